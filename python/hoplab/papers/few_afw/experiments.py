"""The experiments behind few-afw's figures: seed 003's chains (4-14 hops,
1 and 4 flows from node 0 to node N; the 9-hop chain with flows 0 -> 9,
2 -> 8, 7 -> 1), its 7 x 7 and 13 x 13 grids, its 150 random nodes, and its
hybrid TCP + UDP traffic; the schemes compared (FeW, AFW, NewReno for
reference); runs, durations and `--quick` variants. The decisions behind
each value are in the package's docstring.

A chain of N hops has exactly N + 1 nodes, as the paper's Fig. 1, so a
point sets the topology and the flows together: the points of the chain
and grid experiments are cases named "<scheme>, <point>" (`case_of` reads
one back), and every case of an experiment uses the same seeds (runs are
paired).

The case names and parameter keys here are the labels the figure modules
select data by.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from hoplab.papers import Experiment

__all__ = [
    "AFW", "CHAIN_HOPS", "EXPERIMENTS", "FEW", "GRID_FLOWS", "HYBRID_RATES_KBPS", "NEWRENO", "PACKET_BYTES", "PAIR",
    "QUICK_CHAIN_HOPS", "QUICK_GRID_FLOWS", "QUICK_RANDOM_FLOWS", "RANDOM_FLOWS", "ROUTING", "SCHEMES", "SPACING_M",
    "THREE_FLOWS", "UDP_RATE", "case", "case_of", "chain_flows", "flows_point", "grid_flows", "random_flows",
]

PACKET_BYTES = 1024
SPACING_M = 200.0
#: The routing protocol of every experiment (the paper: DSR, Johnson et al. 2004).
ROUTING = "dsr"

FEW = "FeW"
AFW = "AFW"
NEWRENO = "NewReno"
SCHEMES = (FEW, AFW, NEWRENO)
_CC = {FEW: "few", AFW: "afw", NEWRENO: "newreno"}

CHAIN_HOPS = list(range(4, 15))
QUICK_CHAIN_HOPS = [4, 7, 10, 14]
#: Fig. 7: flow 1 0 -> 9, flow 2 2 -> 8, flow 3 7 -> 1 over the 9-hop chain.
THREE_FLOWS = ((0, 9), (2, 8), (7, 1))
#: Grid side -> flow counts (section 4.3).
GRID_FLOWS = {7: (1, 2, 4, 6, 8, 14), 13: (1, 2, 4, 6, 12, 26)}
QUICK_GRID_FLOWS = {7: (1, 4, 14), 13: (1, 6, 26)}
RANDOM_FLOWS = (8, 16, 32, 50)
QUICK_RANDOM_FLOWS = (8, 32)
RANDOM_NODES = 150
RANDOM_SIDE_M = 2000.0
#: Fig. 11: the UDP CBR flow's rate beside the TCP flow.
HYBRID_RATES_KBPS = [100.0, 200.0, 300.0]
UDP_RATE = "flows.1.rate_kbps"


def case(scheme: str, point: str | None = None) -> str:
    """The case name of `scheme` at `point` ("AFW, 7 hops"), or the scheme's alone."""
    return scheme if point is None else f"{scheme}, {point}"


def flows_point(count: int) -> str:
    """The point of a flow count: "1 flow", "8 flows"."""
    return f"{count} flow{'s' if count != 1 else ''}"


def case_of(name: str) -> tuple[str, str | None]:
    """(scheme, point) of a case name made by `case`."""
    scheme, _, point = name.partition(", ")
    return scheme, point or None


def _tcp(src: int, dst: int, cc: str) -> dict[str, Any]:
    return {"src": src, "dst": dst, "transport": "tcp", "cc": cc, "app": "bulk", "packet_bytes": PACKET_BYTES}


def chain_flows(hops: int, count: int, cc: str) -> list[dict[str, Any]]:
    """`count` FTP flows from node 0 to node `hops` (Fig. 1)."""
    return [_tcp(0, hops, cc) for _ in range(count)]


def _spread(count: int, size: int) -> list[int]:
    """`count` of the lines 0..size-1, evenly and symmetrically about the
    middle (1: the middle line; size: every line)."""
    return [round((i + 0.5) * size / count - 0.5) for i in range(count)]


def grid_flows(side: int, count: int, cc: str) -> list[dict[str, Any]]:
    """Section 4.3: one flow along the middle row from the left edge to the
    right; otherwise half the flows along rows (left to right) and half
    along columns (top to bottom), spread evenly and symmetrically (an odd
    count gives the rows the extra flow)."""
    rows = _spread((count + 1) // 2, side)
    cols = _spread(count // 2, side) if count > 1 else []
    return ([_tcp(r * side, r * side + side - 1, cc) for r in rows]
            + [_tcp(c, (side - 1) * side + c, cc) for c in cols])


def random_flows(count: int, cc: str) -> list[dict[str, Any]]:
    """`count` flows between random pairs of the 150 nodes (section 4.4:
    "random sources and sinks"): distinct sources and destinations drawn
    once from a fixed stream, the same pairs in every run and scheme (the
    placement changes with the seed, so each run meets other paths)."""
    draw = random.Random(3_000 + count)
    nodes = draw.sample(range(RANDOM_NODES), 2 * count) if 2 * count <= RANDOM_NODES else None
    if nodes is None:
        raise ValueError(f"at most {RANDOM_NODES // 2} flows, got {count}")
    return [_tcp(nodes[2 * i], nodes[2 * i + 1], cc) for i in range(count)]


_BASE: dict[str, Any] = {
    "preset": "ns2",
    "seed": 1,
    "stats": {"series_interval_s": 0.0},
    "radio": {"data_rate_mbps": 2.0, "basic_rate_mbps": 2.0, "tx_range_m": 250.0, "cs_range_m": 500.0,
              "propagation": "two_ray_ground"},
    "routing": {"protocol": ROUTING},
}


def _chain(hops: int, flows: list[dict[str, Any]]) -> dict[str, Any]:
    return {**copy.deepcopy(_BASE), "topology": {"kind": "chain", "nodes": hops + 1, "spacing_m": SPACING_M},
            "flows": flows}


def _chain_cases(count: int, schemes: tuple[str, ...], hops: list[int]) -> dict[str, dict[str, Any]]:
    return {case(s, f"{h} hops"): {"topology.nodes": h + 1, "flows": chain_flows(h, count, _CC[s])}
            for s in schemes for h in hops}


def _hybrid_cases(schemes: tuple[str, ...], hops: list[int]) -> dict[str, dict[str, Any]]:
    return {case(s, f"{h} hops"): {"topology.nodes": h + 1,
                                   "flows": [_tcp(0, h, _CC[s]), _udp(0, h, HYBRID_RATES_KBPS[0])]}
            for s in schemes for h in hops}


def _udp(src: int, dst: int, rate_kbps: float) -> dict[str, Any]:
    return {"src": src, "dst": dst, "transport": "udp", "app": "cbr", "rate_kbps": rate_kbps,
            "packet_bytes": PACKET_BYTES}


def _grid(side: int) -> dict[str, Any]:
    return {**copy.deepcopy(_BASE), "name": f"few-afw-grid{side}",
            "topology": {"kind": "grid", "rows": side, "cols": side, "spacing_m": SPACING_M},
            "flows": grid_flows(side, 1, "few")}


#: The schemes of the grid and random experiments: the two the paper
#: compares there (NewReno's reference is the chains').
PAIR = (FEW, AFW)


def _grid_cases(side: int, counts: tuple[int, ...]) -> dict[str, dict[str, Any]]:
    return {case(s, flows_point(n)): {"flows": grid_flows(side, n, _CC[s])} for s in PAIR for n in counts}


RANDOM: dict[str, Any] = {
    **copy.deepcopy(_BASE), "name": "few-afw-random150",
    "topology": {"kind": "random", "nodes": RANDOM_NODES, "width_m": RANDOM_SIDE_M, "height_m": RANDOM_SIDE_M},
    "flows": random_flows(RANDOM_FLOWS[0], "few"),
}


def _random_cases(counts: tuple[int, ...]) -> dict[str, dict[str, Any]]:
    return {case(s, flows_point(n)): {"flows": random_flows(n, _CC[s])} for s in PAIR for n in counts}


#: Full: 30 runs per point (the paper's 95 % intervals), 110 s with 10 s of
#: warm-up; --quick: 5 runs, 40 s with 10 s of warm-up.
_FULL_RUNS, _FULL_S, _FULL_WARMUP_S = 30, 110.0, 10.0
_QUICK_RUNS, _QUICK_S, _QUICK_WARMUP_S = 5, 40.0, 10.0


def _experiment(name: str, description: str, scenario: dict[str, Any], cases: dict[str, dict[str, Any]],
                quick_cases: dict[str, dict[str, Any]] | None = None, **kwargs: Any) -> Experiment:
    return Experiment(name=name, description=description, scenario=scenario, cases=cases, quick_cases=quick_cases,
                      runs=_FULL_RUNS, duration_s=_FULL_S, warmup_s=_FULL_WARMUP_S, quick_runs=_QUICK_RUNS,
                      quick_duration_s=_QUICK_S, quick_warmup_s=_QUICK_WARMUP_S, **kwargs)


EXPERIMENTS = [
    _experiment("chain1", "one FTP flow from node 0 to node N over a chain of N = 4-14 hops: FeW, AFW, NewReno",
                {**_chain(4, chain_flows(4, 1, "few")), "name": "few-afw-chain-1flow"},
                _chain_cases(1, SCHEMES, CHAIN_HOPS), _chain_cases(1, SCHEMES, QUICK_CHAIN_HOPS)),
    _experiment("chain4", "four FTP flows from node 0 to node N over a chain of N = 4-14 hops: FeW, AFW, NewReno",
                {**_chain(4, chain_flows(4, 4, "few")), "name": "few-afw-chain-4flows"},
                _chain_cases(4, SCHEMES, CHAIN_HOPS), _chain_cases(4, SCHEMES, QUICK_CHAIN_HOPS)),
    _experiment("three_flows", "the 9-hop chain with flows 0 -> 9, 2 -> 8 and 7 -> 1: FeW, AFW, NewReno",
                {**_chain(9, [_tcp(s, d, "few") for s, d in THREE_FLOWS]), "name": "few-afw-chain-3flows"},
                {case(s): {"flows": [_tcp(a, b, _CC[s]) for a, b in THREE_FLOWS]} for s in SCHEMES}),
    _experiment("grid7", "7 x 7 grid at 200 m, 1-14 flows along rows and columns: FeW, AFW", _grid(7),
                _grid_cases(7, GRID_FLOWS[7]), _grid_cases(7, QUICK_GRID_FLOWS[7])),
    _experiment("grid13", "13 x 13 grid at 200 m, 1-26 flows along rows and columns: FeW, AFW",
                _grid(13), _grid_cases(13, GRID_FLOWS[13]), _grid_cases(13, QUICK_GRID_FLOWS[13])),
    _experiment("random", "150 static nodes placed at random in 2000 x 2000 m, 8-50 flows between random nodes: "
                "FeW, AFW", RANDOM, _random_cases(RANDOM_FLOWS), _random_cases(QUICK_RANDOM_FLOWS)),
    _experiment("hybrid", "one FTP flow and one UDP CBR flow (100, 200, 300 kb/s) from node 0 to node N over a "
                "chain of N = 4-14 hops: FeW, AFW",
                {**_chain(4, [_tcp(0, 4, "few"), _udp(0, 4, HYBRID_RATES_KBPS[0])]), "name": "few-afw-hybrid"},
                _hybrid_cases((FEW, AFW), CHAIN_HOPS), _hybrid_cases((FEW, AFW), QUICK_CHAIN_HOPS),
                vary={UDP_RATE: HYBRID_RATES_KBPS}),
]
