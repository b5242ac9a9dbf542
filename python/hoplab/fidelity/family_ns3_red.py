"""RED at a wired bottleneck against ns-3 3.44's RedQueueDisc (issue 29):
the ns-2 AQM rows' path and traffic (three NewReno flows over seed 002's
wired path, the 5 Mb/s last hop's queue RED, 60 s) with ns-3's settings on
both sides. The reference, python/hoplab/data/references/ns3-red.json, is
made by scripts/ns3/red_wired.py (every ns-3 attribute it sets is listed in
its docstring), seeds 1-5.

hoplab's side (`scenario()`): the standard preset; RED with ns-3's
RedQueueDisc defaults in packet mode (`bytes` and `queue_in_bytes` off,
min / max threshold 5 / 15 packets, `q_weight` 0.002, `linterm` 50, gentle,
wait, mean packet 500 bytes for the idle decay at the link's 5 Mb/s) and a
50-packet limit; ns-3's TCP defaults as hoplab.fidelity.checks.ns3_chain
maps them (delayed ACKs every 2 segments or 200 ms, SACK, initial window
10, minimum RTO 1 s, 1 ms clock, limited transmit, handshake; ssthresh
from RFC 6675's pipe, kept by a second timeout in the loss state:
`tcp.ssthresh_from = "pipe"`, ns-3's `GetSsThresh(tcb, BytesInFlight())`),
a receive window of 131 segments (131072 B / 1000 B). Known differences: ns-3's
segments carry TCP timestamps (12 B more per segment) and its recovery is
PRR (hoplab's RFC 6675); ns-3's RED sees its queue disc only, while the
device queue (1 packet, the script's setting) holds one more waiting
packet, so the mean queue compared is every packet waiting at the
bottleneck in both (ns-3: queue disc plus device queue).

Tolerances, fixed before the reference was made (those of the ns-2 AQM
rows): mean queue within 20 %, goodput within 15 %, early drops / all
drops within 20 % or 2 points.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from hoplab import run as run_scenario
from hoplab.fidelity import references
from hoplab.fidelity.checks import Check, Measured
from hoplab.fidelity.family_ns2_wired import wired

REFERENCE = "ns3-red"
SOURCE = "ns-3 3.44 (PyPI ns3==3.44.post0) RedQueueDisc, scripts/ns3/red_wired.py"
#: ns-3 3.44's RedQueueDisc defaults in hoplab's keys (packet mode).
RED_NS3: dict[str, Any] = {
    "discipline": "red", "bytes": False, "queue_in_bytes": False, "min_thresh_packets": 5.0,
    "max_thresh_packets": 15.0, "q_weight": 0.002, "linterm": 50.0, "gentle": True, "wait": True,
    "mean_packet_bytes": 500,
}
#: ns-3's TcpSocket / TcpSocketBase defaults (hoplab.fidelity.checks.ns3_chain).
TCP_NS3: dict[str, Any] = {
    "delayed_ack": True, "delayed_ack_segments": 2, "delayed_ack_ms": 200.0, "sack": True, "rwnd_segments": 131,
    "initial_cwnd_segments": 10.0, "min_rto_ms": 1000.0, "clock_granularity_ms": 1.0, "limited_transmit": True,
    "handshake": True, "ssthresh_from": "pipe",
}


def scenario() -> dict[str, Any]:
    """The ns-2 AQM rows' path with ns-3's RED and TCP settings."""
    s = wired(3, 0.0, "newreno", True, RED_NS3, duration=60.0)
    s["name"] = "ns3-red"
    s["preset"] = "standard"
    s["tcp"] = dict(TCP_NS3)
    return s


@cache
def _run(seed: int) -> dict[str, float]:
    report = run_scenario(scenario(), seed=seed).to_dict()
    q = next(q for q in report["queues"] if q["node"] == 4 and q["to"] == 5)
    drops = q["early_drops"] + q["overflow_drops"]
    return {"goodput_kbps": sum(f["goodput_kbps"] for f in report["flows"]), "queue_mean": q["mean_packets"],
            "early_fraction": 100.0 * q["early_drops"] / drops if drops else 0.0}


def _measure(metric: str) -> Callable[[bool], Measured]:
    def measure(quick: bool) -> Measured:
        runs = references.load(REFERENCE)["runs"]
        runs = runs[:1] if quick else runs
        return [_run(int(r["seed"]))[metric] for r in runs], [float(r[metric]) for r in runs]

    return measure


def checks() -> list[Check]:
    if not references.available(REFERENCE):
        return []
    return [
        Check("ns3-red-queue", "ns-3 RedQueueDisc at the bottleneck, 3 NewReno flows, mean queue", SOURCE, "packets",
              0.20, _measure("queue_mean")),
        Check("ns3-red-goodput", "ns-3 RedQueueDisc at the bottleneck, 3 NewReno flows, goodput", SOURCE, "kbps",
              0.15, _measure("goodput_kbps")),
        Check("ns3-red-early", "ns-3 RedQueueDisc at the bottleneck, early drops / all drops", SOURCE, "%",
              0.20, _measure("early_fraction"), kind="ratio_or_points", points=2.0),
    ]
