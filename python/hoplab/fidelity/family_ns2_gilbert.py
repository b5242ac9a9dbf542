"""Gilbert-Elliott frame errors on the AODV chain against ns-2.35 (issue
29): does ns-2 itself stall under bursty errors with its AODV local repair
as much as hoplab does with `preset = "ns2"`? (docs/fidelity.md, "Gilbert-
Elliott errors on the AODV chain").

The scenario is examples/tcp-ra-chain-gilbert.toml with TCP NewReno (ns-2
has no TCP-RA): 7 nodes 200 m apart, 11 Mb/s data and 1 Mb/s basic rate,
250 m / 550 m, AODV, 800-byte segments, window 20, a 50-packet queue, RTS
always, 130 s, goodput over 30-130 s, frame errors from a two-state chain
losing 3 % of the frames in runs of 3 on average. The reference is
scripts/ns2/chain.tcl `errors=gilbert` run by scripts/ns2/reference.py
(set `ns2-chain-gilbert`, seeds 1-10). ns-2's incoming error model sits
between each node's PHY and MAC: one chain per node sees every frame above
the carrier-sense threshold at its first bit (RTS, CTS, ACK, broadcasts,
overheard and sensed-only frames), and a frame it loses never reaches the
MAC. `preset = "ns2"` sets hoplab's `errors.scope = "every_frame"`, that
placement (phy/error_model.rs; hoplab's default, `"unicast_data"`, is a
chain per directed link over unicast DATA frames decided as they end).

Tolerance: goodput within 20 %, the tolerance of the ns-2.35 routing rows,
fixed before the reference was made.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from hoplab import run as run_scenario
from hoplab.fidelity import references
from hoplab.fidelity.checks import Check, Measured

REFERENCE = "ns2-chain-gilbert"
SOURCE = "ns-2.35 (Debian ns2 2.35+dfsg-5), scripts/ns2/chain.tcl errors=gilbert via scripts/ns2/reference.py"


def gilbert_chain(local_repair_rule: str | None = None) -> dict[str, Any]:
    """examples/tcp-ra-chain-gilbert.toml with NewReno and chain.tcl's
    settings; `local_repair_rule` overrides the preset's ("ns2")."""
    routing: dict[str, Any] = {"protocol": "aodv"}
    if local_repair_rule:
        routing["aodv"] = {"local_repair_rule": local_repair_rule}
    return {
        "name": "ns2-chain-gilbert",
        "preset": "ns2",
        "duration_s": 130.0,
        "warmup_s": 30.0,
        "radio": {"data_rate_mbps": 11.0, "basic_rate_mbps": 1.0, "tx_range_m": 250.0, "cs_range_m": 550.0},
        "topology": {"kind": "chain", "nodes": 7, "spacing_m": 200.0},
        "routing": routing,
        "errors": {"model": "gilbert_elliott", "packet_error_rate": 0.03, "mean_burst_frames": 3.0},
        "tcp": {"rwnd_segments": 20},
        "flows": [{"src": 0, "dst": 6, "transport": "tcp", "cc": "newreno", "app": "bulk", "packet_bytes": 800}],
    }


@cache
def _goodput(seed: int) -> float:
    return float(run_scenario(gilbert_chain(), seed=seed).flows.goodput_kbps.iloc[0])


def _measure() -> Callable[[bool], Measured]:
    def measure(quick: bool) -> Measured:
        runs = references.case_runs(REFERENCE, errors="gilbert")
        runs = runs[:1] if quick else runs
        return [_goodput(int(r["seed"])) for r in runs], [float(r["goodput_kbps"]) for r in runs]

    return measure


def checks() -> list[Check]:
    return [Check("ns2-aodv-chain-gilbert", "TCP NewReno over AODV, 6-hop chain, Gilbert-Elliott frame errors (3 %, bursts of 3), goodput",
                  SOURCE, "kbps", 0.20, _measure())]
