"""The experiments behind tcp-ra-2009's figures: the paper's 11 x 7 grid
(section 3.1) with 8, 12 and 16 TCP-RA flows, and one flow along its
middle row for the hop-count and error-rate sweeps; the Gilbert-Elliott
channel; the four schemes compared; runs, durations and `--quick`
variants. The decisions behind each value are in the package's docstring.

The case names and parameter keys here are the labels the figure modules
select data by.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from hoplab.papers import Experiment

__all__ = [
    "BURST_FRAMES", "CC_CASES", "COLS", "C_NEWRENO", "C_RA", "C_VENO", "C_WESTWOOD", "DST", "ERRORS",
    "EXPERIMENTS", "FLOW_COUNTS", "GRID", "GRID_CASES", "HOPS", "MIDDLE_ROW", "PACKET_BYTES", "PER", "PER_HOPS",
    "PER_PERCENT", "PER_VALUES", "QUICK_HOPS", "QUICK_PER_VALUES", "RIVALS", "ROW", "ROWS", "ROW_START", "SCHEMES",
    "SPACING_M", "flows_case", "grid_flows", "hops_of", "node",
]

# The grid (section 3.1, Fig. 2).
ROWS, COLS = 7, 11
SPACING_M = 200.0
PACKET_BYTES = 800
#: The row the hop-count and error-rate experiments' flow runs along.
MIDDLE_ROW = 3


def node(row: int, col: int) -> int:
    """Node id of (row, column): row-major, as hoplab's grid numbers them."""
    return row * COLS + col


def _spread(count: int, size: int, centre: float, room: float) -> list[int]:
    """`count` positions spread evenly about `centre`, at most 2 apart, over
    `room` (the distance between the outermost), rounded half up."""
    if count == 1:
        return [math.floor(centre + 0.5)]
    step = min(2.0, room / (count - 1))
    return [min(size - 1, max(0, math.floor(centre + (i - (count - 1) / 2) * step + 0.5))) for i in range(count)]


def grid_flows(count: int, cc: str = "tcp_ra") -> list[dict[str, Any]]:
    """`count` bulk TCP flows, half along rows (west to east, a repeated row
    east to west) and half along columns (north to south), spread evenly
    (see the module doc)."""
    if count < 2 or count % 2:
        raise ValueError(f"an even number of flows, at least 2, got {count}")
    half = count // 2
    flow = {"transport": "tcp", "cc": cc, "app": "bulk", "packet_bytes": PACKET_BYTES}
    flows: list[dict[str, Any]] = []
    seen: set[int] = set()
    for row in _spread(half, ROWS, (ROWS - 1) / 2, ROWS - 1):
        west, east = node(row, 0), node(row, COLS - 1)
        src, dst = (east, west) if row in seen else (west, east)
        seen.add(row)
        flows.append({"src": src, "dst": dst, **flow})
    for col in _spread(half, COLS, (COLS - 1) / 2, COLS - 3):
        flows.append({"src": node(0, col), "dst": node(ROWS - 1, col), **flow})
    return flows


#: Table 4 and Figs. 3-4: a long-run frame error rate of 3 %, bursts of 3 frames.
PER_PERCENT = 3.0
BURST_FRAMES = 3.0
ERRORS: dict[str, Any] = {"model": "gilbert_elliott", "packet_error_rate": PER_PERCENT / 100.0,
                          "mean_burst_frames": BURST_FRAMES}

_BASE: dict[str, Any] = {
    "preset": "ns2",
    "duration_s": 130.0,
    "warmup_s": 30.0,
    "seed": 1,
    "radio": {"data_rate_mbps": 11.0, "basic_rate_mbps": 1.0, "tx_range_m": 250.0, "cs_range_m": 550.0},
    "topology": {"kind": "grid", "rows": ROWS, "cols": COLS, "spacing_m": SPACING_M},
    "routing": {"protocol": "aodv"},
    "errors": ERRORS,
}

FLOW_COUNTS = (8, 12, 16)
GRID: dict[str, Any] = {"name": "tcp-ra-2009-grid", **copy.deepcopy(_BASE), "flows": grid_flows(FLOW_COUNTS[0])}


def flows_case(count: int) -> str:
    return f"{count} flows"


GRID_CASES: dict[str, dict[str, Any]] = {flows_case(n): {"flows": grid_flows(n)} for n in FLOW_COUNTS}

#: One flow along the middle row from its west end (Figs. 4-5).
ROW_START = node(MIDDLE_ROW, 0)
DST = "flows.0.dst"
PER = "errors.packet_error_rate"
HOPS = list(range(1, COLS))
QUICK_HOPS = [1, 2, 3, 6, 10]
#: Fig. 5's path length (the paper: "the hop number is set to 3").
PER_HOPS = 3
PER_VALUES = [0.0, 0.01, 0.02, 0.05, 0.10, 0.15, 0.20]
QUICK_PER_VALUES = [0.0, 0.05, 0.20]
ROW: dict[str, Any] = {
    "name": "tcp-ra-2009-row",
    **copy.deepcopy(_BASE),
    "flows": [{"src": ROW_START, "dst": ROW_START + PER_HOPS, "transport": "tcp", "cc": "tcp_ra", "app": "bulk",
               "packet_bytes": PACKET_BYTES}],
}

C_RA = "TCP-RA"
C_VENO = "Veno"
C_WESTWOOD = "Westwood+"
C_NEWRENO = "NewReno"
SCHEMES = (C_RA, C_VENO, C_WESTWOOD, C_NEWRENO)
RIVALS = (C_VENO, C_WESTWOOD, C_NEWRENO)
CC_CASES: dict[str, dict[str, Any]] = {
    C_RA: {"flows.0.cc": "tcp_ra"},
    C_VENO: {"flows.0.cc": "veno"},
    C_WESTWOOD: {"flows.0.cc": "westwood_plus"},
    C_NEWRENO: {"flows.0.cc": "newreno"},
}

#: Full: the paper's 30 runs, 30 s of warm-up, 100 s measured; --quick:
#: 5 runs, 10 s of warm-up, 30 s measured.
_FULL_RUNS, _FULL_S, _FULL_WARMUP_S = 30, 130.0, 30.0
_QUICK_RUNS, _QUICK_S, _QUICK_WARMUP_S = 5, 40.0, 10.0
EXPERIMENTS = [
    Experiment(
        name="grid",
        description="11 x 7 grid, 8, 12 and 16 TCP-RA flows along rows and columns, Gilbert errors (3 %, bursts of "
                    "3 frames): the receiver's verdicts against the true causes",
        scenario=GRID, cases=GRID_CASES,
        runs=_FULL_RUNS, duration_s=_FULL_S, warmup_s=_FULL_WARMUP_S,
        quick_runs=_QUICK_RUNS, quick_duration_s=_QUICK_S, quick_warmup_s=_QUICK_WARMUP_S,
    ),
    Experiment(
        name="hops",
        description="one flow along the grid's middle row, 1-10 hops, Gilbert errors (3 %, bursts of 3 frames): "
                    "TCP-RA, Veno, Westwood+, NewReno",
        scenario=ROW, cases=CC_CASES, vary={DST: [ROW_START + h for h in HOPS]},
        quick_vary={DST: [ROW_START + h for h in QUICK_HOPS]},
        runs=_FULL_RUNS, duration_s=_FULL_S, warmup_s=_FULL_WARMUP_S,
        quick_runs=_QUICK_RUNS, quick_duration_s=_QUICK_S, quick_warmup_s=_QUICK_WARMUP_S,
    ),
    Experiment(
        name="per",
        description="one flow over 3 hops of the middle row, Gilbert frame error rate 0-20 % (bursts of 3 frames): "
                    "TCP-RA, Veno, Westwood+, NewReno",
        scenario=ROW, cases=CC_CASES, vary={PER: PER_VALUES}, quick_vary={PER: QUICK_PER_VALUES},
        runs=_FULL_RUNS, duration_s=_FULL_S, warmup_s=_FULL_WARMUP_S,
        quick_runs=_QUICK_RUNS, quick_duration_s=_QUICK_S, quick_warmup_s=_QUICK_WARMUP_S,
    ),
]



def hops_of(dst: float) -> int:
    """Path length of the row flow whose destination is node `dst`."""
    return int(round(dst)) - ROW_START
