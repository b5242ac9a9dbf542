"""The experiments behind tcpw-br's figures: seed 002's wired-cum-wireless
path (`topology.kind = "wired_cum_wireless"`, whose defaults are the
paper's: 100 Mb/s 30 ms access links, a 100 Mb/s 10 ms link to the base
station, a 5 Mb/s 0.01 ms lossy last hop), the schemes compared, the
queue disciplines, the multi-flow layouts, runs, durations and `--quick`
variants. The decisions behind each value are in the package's docstring.

The case names and parameter keys here are the labels the figure modules
select data by.
"""

from __future__ import annotations

import copy
from typing import Any

from hoplab.papers import Experiment

__all__ = [
    "BR", "BR_CASES", "BOTTLENECK_DELAY", "CC_CASES", "CONVERGENCE_PAIRS", "DELAYS_MS", "DISCIPLINES",
    "EXPERIMENTS", "FRIENDLY_COUNTS", "LAST_HOP_MBPS", "LOSS", "LOSS_RATES", "NEWRENO", "PACKET_BYTES",
    "PAPER_DISCIPLINES", "QUEUE_CASES", "QUICK_DELAYS_MS", "QUICK_LOSS_RATES", "SCHEMES", "TABLE1_LOSS_RATES", "TCPW",
    "friendly_case",
]

PACKET_BYTES = 1000
LAST_HOP_MBPS = 5.0
LOSS = "topology.last_hop_loss_rate"
BOTTLENECK_DELAY = "topology.bottleneck_delay_ms"

BR = "TCPW BR"
TCPW = "TCPW"
NEWRENO = "NewReno"
SCHEMES = (BR, TCPW, NEWRENO)
_CC = {BR: "westwood_br", TCPW: "westwood", NEWRENO: "newreno"}
CC_CASES: dict[str, dict[str, Any]] = {name: {"flows.0.cc": cc} for name, cc in _CC.items()}

#: Table 1's columns (the paper's four) and BLUE, which section 1 names.
PAPER_DISCIPLINES = ("DropTail", "RED", "REM", "PI")
DISCIPLINES = (*PAPER_DISCIPLINES, "BLUE")
QUEUE_CASES: dict[str, dict[str, Any]] = {
    name: {"queue.discipline": name.lower().replace("droptail", "drop_tail")} for name in DISCIPLINES}

LOSS_RATES = [0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03]
QUICK_LOSS_RATES = [0.0, 0.01, 0.03]
TABLE1_LOSS_RATES = [0.0, 0.01, 0.02, 0.03]
DELAYS_MS = [10.0, 25.0, 50.0, 100.0, 150.0, 200.0]
QUICK_DELAYS_MS = [10.0, 100.0, 200.0]


def _flow(src: int, dst: int, cc: str) -> dict[str, Any]:
    return {"src": src, "dst": dst, "transport": "tcp", "cc": cc, "app": "bulk", "packet_bytes": PACKET_BYTES}


def _path(senders: int = 1, **topology: Any) -> dict[str, Any]:
    """Seed 002's layout with `senders` senders, each to its own receiver
    (ids: senders 0..S-1, R1 = S, base station S+1, receivers S+2...)."""
    return {
        "duration_s": 100.0,
        "warmup_s": 10.0,
        "seed": 1,
        "stats": {"series_interval_s": 0.0},
        "tcp": {"rwnd_segments": 1000},
        "topology": {"kind": "wired_cum_wireless", "senders": senders, "receivers": senders, **topology},
        "flows": [_flow(i, senders + 2 + i, "westwood_br") for i in range(senders)],
    }


#: One flow over the path (Table 1, Figs. 3, 5, 6, Table 4).
ONE_FLOW: dict[str, Any] = {"name": "tcpw-br-path", **_path()}

#: Fig. 7: three TCPW BR flows, each to its own receiver, sharing a 5 Mb/s
#: link to the base station (the paper: "the bottleneck bandwidth 5M").
FAIRNESS: dict[str, Any] = {"name": "tcpw-br-fairness", **_path(3, bottleneck_rate_mbps=LAST_HOP_MBPS,
                                                                    last_hop_loss_rate=0.01)}

#: Fig. 8: five flows over a 5 Mb/s bottleneck, k TCPW BR and 5 - k NewReno.
FRIENDLY_COUNTS = (0, 1, 2, 3, 4)


def friendly_case(k: int) -> str:
    return f"{k} TCPW BR + {5 - k} NewReno"


def _friendly_flows(k: int) -> list[dict[str, Any]]:
    return [_flow(i, 7 + i, "westwood_br" if i < k else "newreno") for i in range(5)]


FRIENDLY: dict[str, Any] = {"name": "tcpw-br-friendliness", **_path(5, bottleneck_rate_mbps=LAST_HOP_MBPS,
                                                                        last_hop_loss_rate=0.01)}
BR_CASES: dict[str, dict[str, Any]] = {friendly_case(k): {"flows": _friendly_flows(k)} for k in FRIENDLY_COUNTS}

#: Fig. 9: two TCPW and two TCPW BR flows over a 10 Mb/s bottleneck, 1 %
#: loss, 100 s, the windows sampled every 0.2 s.
CONVERGENCE_PAIRS = {TCPW: (0, 1), BR: (2, 3)}
CONVERGENCE: dict[str, Any] = {
    "name": "tcpw-br-convergence",
    **_path(4, bottleneck_rate_mbps=10.0, last_hop_loss_rate=0.01),
}
CONVERGENCE["flows"] = [_flow(i, 6 + i, "westwood" if i < 2 else "westwood_br") for i in range(4)]
CONVERGENCE["stats"] = {"series_interval_s": 0.2}

_FULL_RUNS, _FULL_S, _FULL_WARMUP_S = 30, 100.0, 10.0
_QUICK_RUNS, _QUICK_S, _QUICK_WARMUP_S = 5, 60.0, 10.0


def _at_loss(scenario: dict[str, Any], loss: float) -> dict[str, Any]:
    scenario = copy.deepcopy(scenario)
    scenario["topology"]["last_hop_loss_rate"] = loss
    return scenario


def _experiment(name: str, description: str, scenario: dict[str, Any], **kwargs: Any) -> Experiment:
    return Experiment(name=name, description=description, scenario=scenario, runs=_FULL_RUNS, duration_s=_FULL_S,
                      warmup_s=_FULL_WARMUP_S, quick_runs=_QUICK_RUNS, quick_duration_s=_QUICK_S,
                      quick_warmup_s=_QUICK_WARMUP_S, **kwargs)


EXPERIMENTS = [
    _experiment("loss", "one flow over seed 002's path, random loss on the 5 Mb/s last hop 0-3 %: TCPW BR, TCPW, "
                "NewReno", ONE_FLOW, cases=CC_CASES, vary={LOSS: LOSS_RATES}, quick_vary={LOSS: QUICK_LOSS_RATES}),
    _experiment("queues", "one TCPW flow, random loss 0-3 %, every interface queue DropTail, RED, REM, PI or BLUE "
                "(ns-2's defaults)", _path() | {"name": "tcpw-br-queues", "flows": [_flow(0, 3, "westwood")]},
                cases=QUEUE_CASES, vary={LOSS: TABLE1_LOSS_RATES}, quick_vary={LOSS: QUICK_LOSS_RATES}),
    _experiment("delay", "one flow, 1 % loss, the link to the base station's one-way delay 10-200 ms: TCPW BR, "
                "TCPW, NewReno", _at_loss(ONE_FLOW, 0.01), cases=CC_CASES, vary={BOTTLENECK_DELAY: DELAYS_MS},
                quick_vary={BOTTLENECK_DELAY: QUICK_DELAYS_MS}),
    _experiment("fairness", "three TCPW BR flows sharing a 5 Mb/s bottleneck, 1 % loss, its delay 10-200 ms",
                FAIRNESS, vary={BOTTLENECK_DELAY: [10.0, 50.0, 100.0, 150.0, 200.0]},
                quick_vary={BOTTLENECK_DELAY: QUICK_DELAYS_MS}),
    _experiment("friendliness", "five flows over a 5 Mb/s bottleneck, 1 % loss: 0-4 TCPW BR, the others NewReno",
                FRIENDLY, cases=BR_CASES),
    _experiment("convergence", "two TCPW and two TCPW BR flows over a 10 Mb/s bottleneck, 1 % loss, windows every "
                "0.2 s", CONVERGENCE, series=True),
]
