"""Chen, Yu, Guan, Wang, Jiang: "Rate control for semi-TCP in multihop
wireless networks", EURASIP J. Wireless Commun. Netw. (2018) — seed 000.

Figures 2-10 and Table 1 on the paper's chain (section 3.1, SPEC.md
section 3): 15 nodes 200 m apart, IEEE 802.11 with RTS/CTS, 2 Mbps data and
basic rate, 512-byte packets, 250 m transmission and 500 m interference
(carrier-sense) range, one FTP flow from node 1 to node 15 (ids 0 and 14
here), semi-TCP with a reserved buffer of one packet.

- Figs. 2-4: per-node MAC metrics along the 14-hop chain, plain semi-TCP.
- Figs. 5-6: fixed source rates 20-300 kbps: end-to-end throughput, APR and
  MST at the source.
- Figs. 8-10: path lengths 1-14 hops: throughput, delay and contention of
  semi-TCP with and without Algorithm 1 (binary-search rate control).
- Table 1: the iterations of Algorithm 1, here read from the source-rate
  time series of a rate-controlled run.
- Figs. 11-12: the mobile random topology (section 5.1): 48 nodes moving by
  random waypoint in 1500 x 3000 m, FTP over semi-TCP on 10 flows, goodput
  and delay of semi-TCP with and without Algorithm 1 against the maximum
  speed (`examples/semitcp-mobile-48.toml`).

Reference curves not in the paper are drawn dashed and labelled
"(reference)": TCP NewReno for the chain and path-length figures, UDP CBR
at the same source rates for Figs. 5-6. They run today; the paper's own
curves need `transport = "semitcp"` (issue 4), and until the core has it
their figures say "not reproduced: <the simulator's error>".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoplab.papers import Experiment, ExperimentData, Figure, FigureResult, NotReproduced, Paper, judged
from hoplab.papers.verdicts import (
    AGREES,
    CONTRADICTS,
    UNRESOLVED,
    Check,
    PaperNumber,
    above,
    below,
    differences,
    greater,
    less,
    plateau,
    within,
)
from hoplab.plots import Line, Panel, line_figure
from hoplab.stats import summarize

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PAPER"]

HOPS = 14

#: The chain of section 3.1 (SPEC.md section 3), routed by AODV as in the
#: paper (section 3.1): an RTS dropped at the retry limit breaks the route
#: and triggers a rediscovery (section 3.2).
CHAIN: dict[str, Any] = {
    "name": "semitcp-2018-chain",
    "duration_s": 100.0,
    "warmup_s": 10.0,
    "seed": 1,
    "radio": {"data_rate_mbps": 2.0, "basic_rate_mbps": 2.0, "tx_range_m": 250.0, "cs_range_m": 500.0},
    "mac": {"rts_threshold_bytes": 0, "short_retry_limit": 7, "long_retry_limit": 4, "queue_packets": 50},
    "topology": {"kind": "chain", "nodes": HOPS + 1, "spacing_m": 200.0},
    "routing": {"protocol": "aodv"},
    "flows": [{"src": 0, "dst": HOPS, "app": "bulk", "packet_bytes": 512}],
}

SEMITCP = {"flows.0.transport": "semitcp", "flows.0.rate_control": "none"}
SEMITCP_ALG1 = {"flows.0.transport": "semitcp", "flows.0.rate_control": "binary_search"}
NEWRENO = {"flows.0.transport": "tcp", "flows.0.cc": "newreno"}

C_SEMI = "semi-TCP"
C_ALG1 = "semi-TCP + Algorithm 1"
C_NEWRENO = "TCP NewReno (reference)"
C_FIXED = "semi-TCP, fixed rate"
C_UDP = "UDP CBR (reference)"

RATE = "flows.0.rate_kbps"
DST = "flows.0.dst"
SPEED = "mobility.max_speed_mps"

#: Seed 000's mobile random topology (section 5.1; examples/semitcp-mobile-48.toml
#: with its decisions): 48 nodes, 1500 x 3000 m, random waypoint from t = 0
#: with a minimum speed of 1 m/s (a zero minimum makes the speed decay,
#: Yoon et al. 2003) and no pause, the chain's radio and MAC, AODV, and
#: FTP over semi-TCP on 10 flows between nodes 2i and 2i+1 (the placement
#: is random, so any fixed pairs are random pairs).
MOBILE_FLOWS = 10
MOBILE: dict[str, Any] = {
    "name": "semitcp-2018-mobile",
    "duration_s": 100.0,
    "warmup_s": 10.0,
    "seed": 1,
    "radio": dict(CHAIN["radio"]),
    "mac": dict(CHAIN["mac"]),
    "topology": {"kind": "random", "nodes": 48, "width_m": 1500.0, "height_m": 3000.0},
    "routing": {"protocol": "aodv"},
    "mobility": {"model": "random_waypoint", "min_speed_mps": 1.0, "max_speed_mps": 20.0, "pause_s": 0.0,
                 "start_s": 0.0},
    "semitcp": {"reserved_packets": 1},
    "flows": [{"src": 2 * i, "dst": 2 * i + 1, "transport": "semitcp", "app": "bulk", "packet_bytes": 512}
              for i in range(MOBILE_FLOWS)],
}
MOBILE_SEMI = {f"flows.{i}.rate_control": "none" for i in range(MOBILE_FLOWS)}
MOBILE_ALG1 = {f"flows.{i}.rate_control": "binary_search" for i in range(MOBILE_FLOWS)}
#: The paper does not give its speeds (its Figs. 11-12 are not in the text):
#: maximum speeds 1-20 m/s, 1 m/s (the minimum speed) standing for almost static.
MOBILE_SPEEDS = [1.0, 5.0, 10.0, 15.0, 20.0]
MOBILE_QUICK_SPEEDS = [1.0, 10.0, 20.0]

EXPERIMENTS = [
    Experiment(
        name="chain",
        description="14-hop chain, one FTP flow end to end: plain semi-TCP (TCP NewReno for reference)",
        scenario=CHAIN,
        cases={C_SEMI: SEMITCP, C_NEWRENO: NEWRENO},
        runs=10, quick_runs=5,
    ),
    Experiment(
        name="fixed-rate",
        description="14-hop chain, semi-TCP source at a fixed rate (UDP CBR at the same rate for reference)",
        scenario=CHAIN,
        cases={C_FIXED: {"flows.0.transport": "semitcp", "flows.0.rate_control": "fixed"},
               C_UDP: {"flows.0.transport": "udp", "flows.0.app": "cbr"}},
        vary={RATE: list(range(20, 301, 20))},
        runs=10, quick_runs=5,
    ),
    Experiment(
        name="path-length",
        description="chain, path lengths 1-14 hops: semi-TCP with and without Algorithm 1 (TCP NewReno for reference)",
        scenario=CHAIN,
        cases={C_SEMI: SEMITCP, C_ALG1: SEMITCP_ALG1, C_NEWRENO: NEWRENO},
        vary={DST: list(range(1, HOPS + 1))},
        runs=10, quick_runs=5,
    ),
    Experiment(
        name="rate-control",
        description="14-hop chain, semi-TCP with Algorithm 1, source rate sampled every 0.1 s",
        scenario={**CHAIN, "stats": {"series_interval_s": 0.1}},
        cases={C_ALG1: SEMITCP_ALG1},
        # Enough runs for a verdict (verdicts.MIN_RUNS); quick runs long
        # enough for the search to stop and be seen holding its rate.
        runs=10, quick_runs=5, quick_duration_s=60.0, series=True,
    ),
    Experiment(
        name="mobile",
        description="48 nodes moving by random waypoint in 1500 x 3000 m, 10 FTP flows over semi-TCP, with and "
                    "without Algorithm 1 on every flow, maximum speed swept",
        scenario=MOBILE,
        cases={C_SEMI: MOBILE_SEMI, C_ALG1: MOBILE_ALG1},
        vary={SPEED: MOBILE_SPEEDS}, quick_vary={SPEED: MOBILE_QUICK_SPEEDS},
        runs=20, duration_s=100.0, warmup_s=10.0,
        quick_runs=5, quick_duration_s=60.0, quick_warmup_s=10.0,
    ),
]


# Helpers.
def _summary(frame: pd.DataFrame, by: str) -> pd.DataFrame:
    return summarize(frame, by=by, value="value")


def _line(summary: pd.DataFrame, x: str, label: str, right: bool = False, shift: float = 0.0,
          errors: bool = True) -> Line:
    return Line(label, [float(v) + shift for v in summary[x]], [float(v) for v in summary["mean"]],
                [float(v) for v in summary["ci_half"]] if errors else [], right=right)


def _runs_of(rows: pd.DataFrame) -> dict[int, float]:
    """{run number: value} of tidy rows of one point."""
    return {int(r): float(v) for r, v in zip(rows["run"], rows["value"], strict=True) if not math.isnan(float(v))}


def _node_metrics(data: ExperimentData, case: str) -> pd.DataFrame:
    """Per (run, node) the node metrics of `case`, one column each, plus the
    derived RTS drop ratio and RTSC ratio; senders of the path only."""
    frame = data.scalars
    if frame.empty:
        raise NotReproduced(data.failure(case) or "no data")
    part = frame[(frame["entity"] == "node") & (frame["case"] == case) & (frame["id"] < HOPS)]
    if part.empty:
        raise NotReproduced(data.failure(case) or "no data")
    wide = part.pivot_table(index=["run_id", "run", "id"], columns="metric", values="value").reset_index()
    served = wide["packets_served"].where(wide["packets_served"] > 0)
    sent = wide["rts_sent"].where(wide["rts_sent"] > 0)
    wide["rts_drop_ratio"] = wide["rts_dropped"] / served
    wide["rtsc_ratio"] = wide["rtsc_sent"] / sent
    wide["node"] = wide["id"] + 1  # the paper numbers nodes from 1 (the source)
    return wide


def _per_node(wide: pd.DataFrame, metric: str) -> pd.DataFrame:
    return summarize(wide.rename(columns={metric: "value"}), by="node", value="value")


def _node_runs(wide: pd.DataFrame, metric: str, node: int) -> dict[int, float]:
    """{run: metric} at one node (numbered from 1)."""
    rows = wide[wide["node"] == node]
    return {int(r): float(v) for r, v in zip(rows["run"], rows[metric], strict=True) if not math.isnan(float(v))}


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    import pandas as pd

    pairs = [(x, y) for x, y in zip(xs, ys, strict=True) if not (math.isnan(x) or math.isnan(y))]
    if len(pairs) < 3:
        return math.nan
    frame = pd.DataFrame(pairs, columns=["x", "y"])
    if frame["y"].nunique() < 2:
        return math.nan
    return float(frame["x"].rank().corr(frame["y"].rank()))


def _trend_per_run(wide: pd.DataFrame, metric: str) -> list[float]:
    """Per run, the rank correlation of `metric` with the node number (< 0:
    it falls along the path)."""
    return [_spearman([float(v) for v in part["node"]], [float(v) for v in part[metric]])
            for _, part in wide.groupby("run")]


def _largest_elsewhere(wide: pd.DataFrame, metric: str, node: int, among: Sequence[int]) -> list[Check]:
    """Checks that `metric` at `node` exceeds it at every node of `among`."""
    here = _node_runs(wide, metric, node)
    return [greater(f"{_NAMES.get(metric, metric)} at node {node} > here", f"node {other}", here,
                    _node_runs(wide, metric, other), digits=3 if metric in _RATIOS else 2)
            for other in among if other != node]


_NAMES = {"rts_attempts_per_packet": "attempts per RTS", "data_attempts_per_packet": "attempts per DATA",
          "mac_service_time_ms": "MAC sending time (ms)", "queue_mean": "queue length",
          "rtsc_sent": "RTSC transmissions", "rts_drop_ratio": "RTS drop ratio"}
_RATIOS = {"rts_drop_ratio", "queue_mean"}


def _reference_note(data: ExperimentData, case: str) -> list[str]:
    error = data.failure(case)
    return [f"{case}: no successful run ({error})"] if error else []


# Figs. 2-4: per-node metrics along the chain (plain semi-TCP).
def _per_node_lines(chain: ExperimentData, metrics: list[tuple[str, str, bool]]) -> tuple[list[Line], list[str]]:
    """One line per (case, metric) along the chain: semi-TCP, and NewReno as
    a dashed reference; a case without runs becomes a note."""
    lines: list[Line] = []
    notes: list[str] = []
    for case, dashed in ((C_SEMI, False), (C_NEWRENO, True)):
        try:
            wide = _node_metrics(chain, case)
        except NotReproduced as e:
            notes.append(f"{case}: not reproduced: {e}")
            continue
        label = case.replace(" (reference)", "")
        suffix = " (reference)" if dashed else ""
        for metric, name, right in metrics:
            lines.append(_line(_per_node(wide, metric), "node", f"{label}: {name}{suffix}", right=right))
    return lines, notes


def fig2(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    chain = data["chain"]
    lines, notes = _per_node_lines(chain, [("rts_attempts_per_packet", "attempts per RTS", False),
                                           ("data_attempts_per_packet", "attempts per DATA", False)])
    paths = line_figure(lines, out / "fig2", title="Fig. 2: attempts per RTS and per DATA frame along the chain",
                        xlabel="node (1 = source)", ylabel="attempts per packet", xticks=range(1, HOPS + 1))
    wide = _node_metrics(chain, C_SEMI)
    nodes = sorted(int(n) for n in wide["node"].unique())
    apr = _per_node(wide, "rts_attempts_per_packet")
    data_att = _per_node(wide, "data_attempts_per_packet")
    path_apr = wide.groupby("run")["rts_attempts_per_packet"].mean()
    path_data = wide.groupby("run")["data_attempts_per_packet"].mean()
    checks = _largest_elsewhere(wide, "rts_attempts_per_packet", 1, nodes)
    checks.append(below("attempts per RTS fall along the path (rank correlation with the node number < 0)",
                        f"nodes 1-{nodes[-1]}", _trend_per_run(wide, "rts_attempts_per_packet"), 0.0))
    checks.append(less("attempts per DATA < attempts per RTS (mean over the path's nodes)", f"nodes 1-{nodes[-1]}",
                       {int(r): float(v) for r, v in path_data.items()},
                       {int(r): float(v) for r, v in path_apr.items()}, digits=2))
    checks.append(below("attempts per DATA decline along the path (rank correlation with the node number < 0)",
                        f"nodes 1-{nodes[-1]}", _trend_per_run(wide, "data_attempts_per_packet"), 0.0))
    first, last = float(apr["mean"].iloc[0]), float(apr["mean"].iloc[-1])
    reading = (f"attempts per RTS are {first:.2f} at the source and {last:.2f} at node {nodes[-1]}; attempts per "
               f"DATA go from {float(data_att['mean'].iloc[0]):.3f} at the source to "
               f"{float(data_att['mean'].iloc[-1]):.3f} at node {nodes[-1]}")
    numbers = [PaperNumber("attempts per RTS in the final hops (the paper: \"almost one\")", 1.0, last, digits=2)]
    rows = [("attempts per DATA", "much smaller than per RTS, declining slightly",
             f"{float(data_att['mean'].iloc[0]):.3f} at the source, {float(data_att['mean'].iloc[-1]):.3f} at the "
             "last hop")]
    notes.append("Attempts per DATA = DATA transmissions per packet the node's MAC finished (a packet dropped at "
                 "the RTS stage counts 0 DATA attempts), which is why it can be below 1 at the source.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


def fig3(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    chain = data["chain"]
    lines, notes = _per_node_lines(chain, [("mac_service_time_ms", "MAC sending time", False),
                                           ("queue_mean", "queue length", True)])
    paths = line_figure(lines, out / "fig3", title="Fig. 3: MAC sending time and queue length along the chain",
                        xlabel="node (1 = source)", ylabel="average MAC sending time (ms)",
                        y2label="average queue length (packets)", xticks=range(1, HOPS + 1))
    wide = _node_metrics(chain, C_SEMI)
    nodes = sorted(int(n) for n in wide["node"].unique())
    mst = _per_node(wide, "mac_service_time_ms")
    queue = _per_node(wide, "queue_mean")
    checks = _largest_elsewhere(wide, "mac_service_time_ms", 1, nodes)
    checks.append(below("the MAC sending time falls along the path (rank correlation with the node number < 0)",
                        f"nodes 1-{nodes[-1]}", _trend_per_run(wide, "mac_service_time_ms"), 0.0))
    checks += _largest_elsewhere(wide, "queue_mean", 2, nodes[2:])
    by_node = dict(zip((int(n) for n in queue["node"]), (float(v) for v in queue["mean"]), strict=True))
    longest = max((n for n in nodes if n >= 2), key=lambda n: by_node[n])
    queue_text = (f"node 2 has the longest queue ({by_node[2]:.3f} packets on average)" if longest == 2 else
                  f"node {longest} has the longest queue ({by_node[longest]:.3f} packets; node 2: "
                  f"{by_node.get(2, math.nan):.3f})")
    reading = (f"the MAC sending time is {float(mst['mean'].iloc[0]):.2f} ms at the source and "
               f"{float(mst['mean'].iloc[-1]):.2f} ms at node {nodes[-1]}; of the forwarding nodes, {queue_text}")
    rows = [("MAC sending time at the source", "longest on the path", f"{float(mst['mean'].iloc[0]):.2f} ms"),
            ("MAC sending time, last hop", "shorter", f"{float(mst['mean'].iloc[-1]):.2f} ms"),
            ("queue length at node 2", "quickly filled by the source (the most severe interference)",
             f"{by_node.get(2, math.nan):.3f} packets")]
    notes.append("The queue claim (\"the second node ... has less chances to access the channel, and its buffer is "
                 "quick flushed by incoming packets from the source\") is read as: node 2's queue is longer than "
                 "every downstream node's. The source is left out: its queue is bounded by semi-TCP's reserved "
                 "buffer, not by contention.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


def fig4(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    chain = data["chain"]
    notes = _reference_note(chain, C_NEWRENO)
    lines: list[Line] = []
    try:
        wide = _node_metrics(chain, C_SEMI)
        lines = [
            _line(_per_node(wide, "rtsc_sent"), "node", "RTSC transmissions"),
            _line(_per_node(wide, "rts_drop_ratio"), "node", "RTS drop ratio (after 7 attempts)", right=True),
            _line(_per_node(wide, "rtsc_ratio"), "node", "RTSC ratio (RTSC / all RTS)", right=True),
        ]
    except NotReproduced:
        wide = None
    paths = line_figure(lines, out / "fig4", title="Fig. 4: RTSC transmissions, RTS drop ratio, RTSC ratio (semi-TCP)",
                        xlabel="node (1 = source)", ylabel="RTSC transmissions per run", y2label="ratio",
                        xticks=range(1, HOPS + 1))
    if wide is None:
        chain.require(C_SEMI)
        raise NotReproduced("no data")
    nodes = sorted(int(n) for n in wide["node"].unique())
    rtsc = _per_node(wide, "rtsc_sent")
    drops = _per_node(wide, "rts_drop_ratio")
    checks = _largest_elsewhere(wide, "rtsc_sent", 1, nodes)
    shares = []
    for _, part in wide.groupby("run"):
        total = float(part["rts_dropped"].sum())
        if total > 0:
            shares.append(float(part[part["node"] <= 2]["rts_dropped"].sum()) / total)
    checks.append(above("RTS drops concentrate in the first hops: nodes 1-2 drop more than half of the path's RTSs "
                        "(share per run; runs without drops left out)", f"nodes 1-{nodes[-1]}", shares, 0.5))
    values = [float(v) for v in rtsc["mean"]]
    reading = (f"the source sends {values[0]:.0f} RTSCs per run, the most of any node (path maximum elsewhere "
               f"{max(values[1:]):.0f}); nodes 1-2 drop {sum(shares) / len(shares):.0%} of the path's RTSs on average"
               if shares else f"the source sends {values[0]:.0f} RTSCs per run; no RTS was dropped in any run")
    rows = [
        ("RTSC transmissions", "most at the source", f"{values[0]:.0f} at the source, max {max(values):.0f}"),
        ("RTS drop ratio", "RTS drops concentrated in the first hops",
         f"{float(drops['mean'].iloc[0]):.3f} at the source, {float(drops['mean'].iloc[-1]):.3f} at the last hop"),
    ]
    notes.append("RTS drop ratio = RTS dropped after the 7th attempt / packets served by the node's MAC; "
                 "RTSC ratio = RTSC sent / all RTS sent (the paper's endnotes 1 and 2). \"First hops\" = the "
                 "transmissions of nodes 1 and 2.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


# Figs. 5-6: fixed source rates.
#: "Falls sharply": the goodput plateau past the peak is below this share of the peak.
SHARP_FALL = 0.5
#: "Rises almost linearly": every rate up to the peak is delivered at this share or more.
LINEAR_SHARE = 0.9
#: A level "jump": the high plateau is at least this many times the low one.
JUMP = {"rts_attempts_per_packet": 1.5, "mac_service_time_ms": 2.0}


def _rate_curves(data: ExperimentData, case: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    goodput = _summary(data.metric("goodput_kbps", "flow", case, 0), RATE)
    apr = _summary(data.metric("rts_attempts_per_packet", "node", case, 0), RATE)
    mst = _summary(data.metric("mac_service_time_ms", "node", case, 0), RATE)
    if goodput.empty:
        raise NotReproduced(data.failure(case) or "no data")
    return goodput, apr, mst


def _best_rate(rates: Sequence[float], values: Sequence[float]) -> int:
    """Index of the best operating point: the lowest source rate whose
    goodput reaches 95 % of the highest (the peak of a sharp curve, the
    knee of a plateau)."""
    top = max(values)
    return next(i for i, v in enumerate(values) if v >= 0.95 * top)


def _by_rate(data: ExperimentData, metric: str, entity: str) -> dict[float, dict[int, float]]:
    """{source rate: {run: value}} of the fixed-rate semi-TCP source."""
    rows = data.metric(metric, entity, C_FIXED, 0)
    return {float(rate): _runs_of(part) for rate, part in rows.groupby(RATE)}


def _level_runs(per_rate: Mapping[float, Mapping[int, float]], rates: Sequence[float]) -> dict[int, float]:
    """Per run, the mean over `rates` (a plateau) of its values."""
    runs = set.intersection(*(set(per_rate[r]) for r in rates)) if rates else set()
    return {run: sum(per_rate[r][run] for r in rates) / len(rates) for run in sorted(runs)}


def _rise_and_fall(goodput: pd.DataFrame, per_rate: Mapping[float, Mapping[int, float]]) -> tuple[
        list[Check], str, float, float, list[float]]:
    """Checks of "goodput rises almost linearly with the source rate up to a
    peak, then falls sharply"; (checks, reading, best rate, goodput there,
    rates of the plateau past the peak)."""
    rates = [float(v) for v in goodput[RATE]]
    values = [float(v) for v in goodput["mean"]]
    best = _best_rate(rates, values)
    checks = [above(f"goodput / source rate >= {LINEAR_SHARE:.0%} (almost linear rise up to the peak)",
                    f"{rate:.0f} kbps", [v / rate for v in per_rate[rate].values()], LINEAR_SHARE)
              for rate in rates[:best + 1]]
    after = values[best + 1:]
    fallen: list[float] = []
    if after:
        fallen = [rates[best + 1 + i] for i in plateau(after, at_end=True)]
        level = _level_runs(per_rate, fallen)
        peak = per_rate[rates[best]]
        checks.append(below(f"goodput plateau past the peak / goodput at the peak < {SHARP_FALL:.0%} (a sharp fall)",
                            f"{fallen[0]:.0f}-{fallen[-1]:.0f} kbps vs {rates[best]:.0f} kbps",
                            [level[r] / peak[r] for r in sorted(set(level) & set(peak)) if peak[r] > 0], SHARP_FALL))
        fallen_level = sum(values[best + 1 + i] for i in plateau(after, True)) / len(fallen)
        low_text = f"then falls to a plateau of {fallen_level:.0f} kbps at {fallen[0]:.0f}-{fallen[-1]:.0f} kbps"
    else:
        checks.append(Check("goodput falls past the peak", "past the peak", UNRESOLVED,
                            "the peak is at the highest rate tried", 0))
        low_text = "and the peak is at the highest rate tried"
    reading = (f"goodput follows the source rate up to {rates[best]:.0f} kbps (peak {values[best]:.0f} kbps, "
               f"the lowest rate within 5 % of the maximum), {low_text}")
    return checks, reading, rates[best], values[best], fallen


def _levels(curve: pd.DataFrame) -> tuple[list[float], list[float], float, float]:
    """(low plateau rates, high plateau rates, low level, high level) of a
    curve against the source rate (see verdicts.plateau)."""
    rates = [float(v) for v in curve[RATE]]
    values = [float(v) for v in curve["mean"]]
    low = plateau(values, at_end=False)
    high = [i for i in plateau(values, at_end=True) if i not in low]
    low_level = sum(values[i] for i in low) / len(low)
    high_level = sum(values[i] for i in high) / len(high) if high else math.nan
    return [rates[i] for i in low], [rates[i] for i in high], low_level, high_level


def _fig_rate(data: Mapping[str, ExperimentData], out: Path, which: str) -> FigureResult:
    fixed = data["fixed-rate"]
    metric = "rts_attempts_per_packet" if which == "apr" else "mac_service_time_ms"
    short = "APR" if which == "apr" else "MST"
    unit = "" if which == "apr" else " ms"
    metric_label = {"apr": "attempts per RTS at the source", "mst": "MAC sending time at the source (ms)"}[which]
    lines, notes = [], []
    curves: dict[str, tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]] = {}
    for case in (C_FIXED, C_UDP):
        try:
            curves[case] = _rate_curves(fixed, case)
        except NotReproduced as e:
            notes.append(f"{case}: not reproduced: {e}")
            continue
        goodput, apr, mst = curves[case]
        second = apr if which == "apr" else mst
        lines.append(_line(goodput, RATE, f"{case}: end-to-end throughput"))
        lines.append(_line(second, RATE, f"{case}: {short}", right=True))
    number = "5" if which == "apr" else "6"
    title = (f"Fig. {number}: end-to-end throughput and "
             + ("attempts per RTS" if which == "apr" else "MAC sending time") + " at the source vs source rate")
    paths = line_figure(lines, out / f"fig{number}", title=title, xlabel="source rate (kbps)",
                        ylabel="end-to-end throughput (kbps)", y2label=metric_label)
    if C_FIXED not in curves:
        fixed.require(C_FIXED)
        raise NotReproduced("no data")
    goodput, apr, mst = curves[C_FIXED]
    curve = apr if which == "apr" else mst
    goodput_runs = _by_rate(fixed, "goodput_kbps", "flow")
    checks, reading, peak_rate, peak_value, _ = _rise_and_fall(goodput, goodput_runs)
    low_rates, high_rates, low, high = _levels(curve)
    if high_rates:
        level_runs = _by_rate(fixed, metric, "node")
        low_runs, high_runs = _level_runs(level_runs, low_rates), _level_runs(level_runs, high_rates)
        factor = JUMP[metric]
        checks.append(above(f"{short} high level / low level >= {factor:g} (a jump between two levels)",
                            f"{low_rates[0]:.0f}-{low_rates[-1]:.0f} vs {high_rates[0]:.0f}-{high_rates[-1]:.0f} kbps",
                            [high_runs[r] / low_runs[r] for r in sorted(set(low_runs) & set(high_runs))
                             if low_runs[r] > 0], factor))
        step = float(goodput[RATE].iloc[1] - goodput[RATE].iloc[0]) if len(goodput) > 1 else 0.0
        switch_ok = low_rates[-1] - step - 1e-9 <= peak_rate <= low_rates[-1] + step + 1e-9
        checks.append(Check(f"the throughput peak is at the switching point of {short} (within one rate step of the "
                            "end of its low level; from the mean curves)", f"{peak_rate:.0f} kbps",
                            AGREES if switch_ok else CONTRADICTS,
                            f"{short}'s low level ends at {low_rates[-1]:.0f} kbps, the peak is at "
                            f"{peak_rate:.0f} kbps",
                            int(summarize_min_n(goodput))))
        reading += (f"; {short} at the source stays at a low level of {low:.2f}{unit} at {low_rates[0]:.0f}-"
                    f"{low_rates[-1]:.0f} kbps and reaches a high level of {high:.2f}{unit} at {high_rates[0]:.0f}-"
                    f"{high_rates[-1]:.0f} kbps")
    else:
        checks.append(Check(f"{short} switches from a low to a high level", "all rates", CONTRADICTS,
                            f"one level over all rates ({low:.2f}{unit})", int(summarize_min_n(goodput))))
        reading += f"; {short} at the source stays at one level ({low:.2f}{unit})"
    g180 = goodput[goodput[RATE] == 180]["mean"]
    numbers = [PaperNumber("best source rate", 140.0, peak_rate, "kbps", 0),
               PaperNumber("throughput at the best rate", 140.0, peak_value, "kbps", 0)]
    if which == "apr":
        numbers += [PaperNumber("low APR level (LAPR)", 1.0, low, digits=2),
                    PaperNumber("high APR level (HAPR, Table 1's example read from Fig. 5)", 3.3, high, digits=2)]
    else:
        numbers += [PaperNumber("throughput at 180 kbps", 20.0, float(g180.iloc[0]) if len(g180) else math.nan,
                                "kbps", 0),
                    PaperNumber("high MST level", 14.0, high, "ms", 1)]
    return judged(reading, checks, paths=paths, notes=notes, numbers=numbers)


def summarize_min_n(summary: pd.DataFrame) -> int:
    """The fewest runs behind any point of a summary."""
    return int(summary["n"].min()) if len(summary) else 0


def fig5(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _fig_rate(data, out, "apr")


def fig6(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _fig_rate(data, out, "mst")


# Figs. 8-10: path length.
def _by_hops(data: ExperimentData, metric: str, entity: str, ident: int = 0) -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    for case in (C_SEMI, C_ALG1, C_NEWRENO):
        summary = _summary(data.metric(metric, entity, case, ident), DST)
        if not summary.empty:
            out[case] = summary
    return out


def _hop_runs(data: ExperimentData, metric: str, entity: str, case: str) -> dict[int, dict[int, float]]:
    """{hops: {run: value}} of one case."""
    rows = data.metric(metric, entity, case, 0)
    return {int(h): _runs_of(part) for h, part in rows.groupby(DST)}


def _paired_line(x: Mapping[Any, Mapping[int, float]], y: Mapping[Any, Mapping[int, float]], label: str) -> Line:
    """Per point, the mean of the paired differences x - y and its 95 % half-width."""
    from hoplab.stats import mean_ci

    points = sorted(set(x) & set(y))
    stats = [mean_ci(differences(x[p], y[p])) for p in points]
    return Line(label, [float(p) for p in points], [s[0] for s in stats], [s[2] for s in stats])


def _path_figure(
    data: Mapping[str, ExperimentData], out: Path, number: str, metric: str, entity: str, ylabel: str, title: str,
    difference_label: str, yscale: str = "linear",
) -> tuple[dict[str, pd.DataFrame], dict[str, dict[int, dict[int, float]]], dict[str, Path], list[str]]:
    path = data["path-length"]
    curves = _by_hops(path, metric, entity)
    lines = [_line(curve, DST, case) for case, curve in curves.items()]
    runs = {case: _hop_runs(path, metric, entity, case) for case in curves}
    notes = [f"{case}: not reproduced: {path.failure(case)}" for case in (C_SEMI, C_ALG1, C_NEWRENO)
             if case not in curves]
    lower = None
    if C_SEMI in runs and C_ALG1 in runs:
        lower = Panel([_paired_line(runs[C_ALG1], runs[C_SEMI], "Algorithm 1 - semi-TCP, paired by run (95 % CI)")],
                      difference_label)
    paths = line_figure(lines, out / f"fig{number}", title=title, xlabel="path length (hops)", ylabel=ylabel,
                        xticks=range(1, HOPS + 1), yscale=yscale, lower=lower)
    for case in (C_SEMI, C_ALG1):
        if case not in curves:
            path.require(case)
            raise NotReproduced(f"{case}: no data")
    notes.append("Lower panel: the difference Algorithm 1 - semi-TCP per run (runs paired by run number: the same "
                 "seeds), mean and 95 % interval; it is what the verdict reads. 1 hop is drawn but not judged: a "
                 "single link has no forwarding nodes for either scheme to congest, and both deliver its capacity.")
    return curves, runs, paths, notes


def _at(curves: Mapping[str, pd.DataFrame], case: str, hops: int) -> float:
    curve = curves.get(case)
    if curve is None:
        return math.nan
    match = curve[curve[DST] == hops]
    return float(match["mean"].iloc[0]) if len(match) else math.nan


def _judged_hops(runs: Mapping[str, Mapping[int, Mapping[int, float]]]) -> list[int]:
    return [h for h in sorted(set(runs[C_SEMI]) & set(runs[C_ALG1])) if h >= 2]


def fig8(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    curves, runs, paths, notes = _path_figure(
        data, out, "8", "goodput_kbps", "flow", "end-to-end throughput (kbps, log scale)",
        "Fig. 8: end-to-end throughput vs path length", "Alg. 1 - semi-TCP (kbps)", yscale="log")
    hops = _judged_hops(runs)
    if not hops:
        raise NotReproduced("no path length of 2 hops or more in common")
    alg1, semi = runs[C_ALG1], runs[C_SEMI]
    checks = [greater("semi-TCP + Algorithm 1 > semi-TCP (goodput)", f"{h} hops", alg1[h], semi[h], unit="kbps")
              for h in hops]
    first, last = hops[0], hops[-1]

    def gain(h: int) -> dict[int, float]:
        return {r: alg1[h][r] / semi[h][r] - 1.0 for r in set(alg1[h]) & set(semi[h]) if semi[h][r] > 0}

    checks.append(greater(f"the gain (Alg. 1 / semi-TCP - 1, per run) is larger at {last} than at {first} hops",
                          f"{last} vs {first} hops", gain(last), gain(first), digits=2))
    fixed = data.get("fixed-rate")
    best_text = ""
    if fixed is not None and fixed.failure(C_FIXED) is None:
        goodput_curve = _summary(fixed.metric("goodput_kbps", "flow", C_FIXED, 0), RATE)
        if not goodput_curve.empty:
            best = _best_rate([float(v) for v in goodput_curve[RATE]], [float(v) for v in goodput_curve["mean"]])
            best_goodput = float(goodput_curve["mean"].iloc[best])
            checks.append(above(f"near-optimal: Algorithm 1's goodput at {HOPS} hops >= 75 % of the best fixed rate's "
                                f"goodput of Fig. 5 here ({best_goodput:.0f} kbps)", f"{HOPS} hops",
                                alg1.get(HOPS, {}).values(), 0.75 * best_goodput, unit="kbps", digits=1))
            best_text = f"; the best fixed source rate of Fig. 5 delivers {best_goodput:.0f} kbps"
    means = ", ".join(f"{h}: {_at(curves, C_SEMI, h):.0f} -> {_at(curves, C_ALG1, h):.0f}" for h in hops)
    reading = f"goodput in kbps, semi-TCP -> semi-TCP + Algorithm 1, by path length: {means}{best_text}"
    lower_at = [h for h in hops if _at(curves, C_ALG1, h) < _at(curves, C_SEMI, h)]
    if lower_at:
        reading += (f"; Algorithm 1's mean goodput is lower than plain semi-TCP's at "
                    f"{', '.join(str(h) for h in lower_at)} hops")
    newreno = _at(curves, C_NEWRENO, HOPS)
    if not math.isnan(newreno):
        reading += f"; TCP NewReno (reference) delivers {newreno:.0f} kbps at {HOPS} hops"
    numbers = [PaperNumber(f"Algorithm 1's throughput at {HOPS} hops", 140.0, _at(curves, C_ALG1, HOPS), "kbps", 0)]
    rows = [(f"{case}, {h} hops", "-", f"{_at(curves, case, h):.1f} kbps") for h in (4, 7, 14)
            for case in (C_SEMI, C_ALG1, C_NEWRENO) if case in curves]
    notes.append("Throughput on a log scale: the 1-hop point (the link's capacity) would crush the others on a "
                 "linear one.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


def fig9(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    curves, runs, paths, notes = _path_figure(data, out, "9", "mean_delay_ms", "flow", "end-to-end delay (ms)",
                                              "Fig. 9: end-to-end delay vs path length", "Alg. 1 - semi-TCP (ms)")
    hops = _judged_hops(runs)
    if not hops:
        raise NotReproduced("no path length of 2 hops or more in common")
    checks = [less("semi-TCP + Algorithm 1 < semi-TCP (delay)", f"{h} hops", runs[C_ALG1][h], runs[C_SEMI][h],
                   unit="ms") for h in hops]
    semi4, alg4 = _at(curves, C_SEMI, 4), _at(curves, C_ALG1, 4)
    cut = 1.0 - alg4 / semi4 if semi4 > 0 else math.nan
    means = ", ".join(f"{h}: {_at(curves, C_SEMI, h):.0f} -> {_at(curves, C_ALG1, h):.0f}" for h in hops)
    reading = f"delay in ms, semi-TCP -> semi-TCP + Algorithm 1, by path length: {means}"
    numbers = [PaperNumber("delay at 4 hops, semi-TCP", 60.0, semi4, "ms", 0),
               PaperNumber("delay at 4 hops, Algorithm 1", 20.0, alg4, "ms", 0),
               PaperNumber("delay cut by Algorithm 1 at 4 hops", 60.0, 100.0 * cut, "%", 0)]
    rows = [("delay at 14 hops, semi-TCP / Algorithm 1", "-",
             f"{_at(curves, C_SEMI, 14):.1f} / {_at(curves, C_ALG1, 14):.1f} ms"),
            ("delay at 4 / 14 hops, TCP NewReno", "-",
             f"{_at(curves, C_NEWRENO, 4):.1f} / {_at(curves, C_NEWRENO, 14):.1f} ms")]
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


def fig10(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    curves, runs, paths, notes = _path_figure(
        data, out, "10", "rts_attempts_per_packet", "node", "attempts per RTS at the source",
        "Fig. 10: medium contention (attempts per RTS at the source) vs path length", "Alg. 1 - semi-TCP")
    hops = _judged_hops(runs)
    if not hops:
        raise NotReproduced("no path length of 2 hops or more in common")
    checks = [less("semi-TCP + Algorithm 1 < semi-TCP (attempts per RTS at the source)", f"{h} hops",
                   runs[C_ALG1][h], runs[C_SEMI][h], digits=3) for h in hops]
    means = ", ".join(f"{h}: {_at(curves, C_SEMI, h):.2f} -> {_at(curves, C_ALG1, h):.2f}" for h in hops)
    reading = f"attempts per RTS at the source, semi-TCP -> semi-TCP + Algorithm 1, by path length: {means}"
    notes.append("Decision: the paper's text does not say what Fig. 10 plots beyond 'less network resources in "
                 "retransmissions for both RTS/CTS and data packets'; hoplab plots the attempts per RTS at the source.")
    return judged(reading, checks, paths=paths, notes=notes)


# Table 1: Algorithm 1's iterations.
_RATE_METRICS = ("source_rate_kbps", "rate_kbps", "sending_rate_kbps", "send_rate_kbps")
#: A run "stops" when it holds its final rate (within 10 %) for at least
#: this share of its measured time at the end.
HELD_SHARE = 0.25
#: "Near the peak": within this share of the best fixed rate.
NEAR_PEAK = 0.25


def _rate_metric(series: pd.DataFrame) -> str:
    flows = series[series["entity"] == "flow"]
    names = set(flows["metric"].unique())
    for name in _RATE_METRICS:
        if name in names:
            return name
    for name in sorted(names):
        if "rate" in name and "kbps" in name and "goodput" not in name and "offered" not in name:
            return str(name)
    raise NotReproduced(f"the run's series have no source-rate metric (looked for {', '.join(_RATE_METRICS)}; "
                        f"flow series: {', '.join(sorted(names)) or 'none'})")


def _settled_rate(rates: Sequence[float]) -> float:
    """The rate a run settled at: the median over the second half of its samples."""
    tail = sorted(rates[len(rates) // 2:] or rates)
    return tail[len(tail) // 2]


def _held_since(times: Sequence[float], rates: Sequence[float], final: float) -> float:
    """The time from which the rate stays within 10 % of `final` to the end."""
    since = times[-1]
    for t, v in zip(reversed(times), reversed(rates), strict=True):
        if abs(v - final) > 0.1 * final:
            break
        since = t
    return since


def table1(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    rc = data["rate-control"]
    rc.require(C_ALG1)
    series = rc.series
    metric = _rate_metric(series)
    trace = series[(series["metric"] == metric) & (series["entity"] == "flow") & (series["id"] == 0)]
    first_run = int(trace["run"].min())
    lines = []
    for run, part in trace.groupby("run", sort=True):
        part = part.sort_values("time_s")
        others = int(trace["run"].max()) > 3
        lines.append(Line(f"source rate, run {int(run)}", part["time_s"].tolist(), part["value"].tolist(), steps=True,
                          legend=int(run) <= 3, style={} if int(run) < 3 else
                          {"alpha": 0.35, "color": "0.5", "linestyle": "-", "linewidth": 1.0},
                          legend_label=f"source rate, runs 3-{int(trace['run'].max())} (grey)"
                          if int(run) == 3 and others else None))
    goodput = series[(series["metric"] == "goodput_kbps") & (series["entity"] == "flow") & (series["id"] == 0)
                     & (series["run"] == first_run)].sort_values("time_s")
    if not goodput.empty:
        smooth = goodput["value"].rolling(10, min_periods=1).mean()
        lines.append(Line(f"end-to-end throughput, run {first_run} (1 s moving average)", goodput["time_s"].tolist(),
                          smooth.tolist(), style={"color": "tab:green", "linewidth": 0.9}))
    paths = line_figure(lines, out / "table1", title="Table 1: Algorithm 1's source rate over time (14 hops)",
                        xlabel="time (s)", ylabel="kbps")
    end = float(series["time_s"].max())
    per_run: dict[int, tuple[float, float, int]] = {}  # run -> (settled rate, held since, distinct rates)
    for run, part in trace.groupby("run", sort=True):
        part = part.sort_values("time_s")
        clean = [(float(t), float(v)) for t, v in zip(part["time_s"], part["value"], strict=True)
                 if not math.isnan(float(v))]
        if not clean:
            continue
        times, rates = [t for t, _ in clean], [v for _, v in clean]
        final = _settled_rate(rates)
        distinct = sum(1 for i, v in enumerate(rates) if i == 0 or abs(v - rates[i - 1]) > 1e-9)
        per_run[int(run)] = (final, _held_since(times, rates, final), distinct)
    if not per_run:
        raise NotReproduced(f"series {metric!r} is empty")
    settled = {r: v[0] for r, v in per_run.items()}
    peak_rate, source = 140.0, "the paper's 140 kbps"
    fixed = data.get("fixed-rate")
    if fixed is not None and fixed.failure(C_FIXED) is None:
        goodput_curve = _summary(fixed.metric("goodput_kbps", "flow", C_FIXED, 0), RATE)
        if not goodput_curve.empty:
            best = _best_rate([float(v) for v in goodput_curve[RATE]], [float(v) for v in goodput_curve["mean"]])
            peak_rate = float(goodput_curve[RATE].iloc[best])
            source = f"the best fixed rate of Fig. 5 here, {peak_rate:.0f} kbps"
    held = {r: (end - v[1]) / end for r, v in per_run.items()}
    stopped = [r for r, share in held.items() if share >= HELD_SHARE]
    still = [r for r in held if r not in stopped]
    n = len(per_run)
    stop_status = AGREES if not still else CONTRADICTS if len(still) > n / 2 else UNRESOLVED
    checks = [
        Check(f"the search stops: each run holds its final rate (within 10 %) for the last {HELD_SHARE:.0%} of the "
              "run or more", f"{n} runs", stop_status,
              f"{len(stopped)} of {n} runs stop" + (f"; still changing: runs {', '.join(str(r) for r in still)}"
                                                     if still else ""), n),
        within(f"near the throughput peak: the settled rate within {NEAR_PEAK:.0%} of {source}", "settled rate",
               settled.values(), (1 - NEAR_PEAK) * peak_rate, (1 + NEAR_PEAK) * peak_rate, unit="kbps", digits=1),
    ]
    values = sorted(settled.values())
    median = values[len(values) // 2] if len(values) % 2 else 0.5 * (values[len(values) // 2 - 1]
                                                                      + values[len(values) // 2])
    reading = (f"the runs settle at {', '.join(f'{v:.1f}' for v in values)} kbps (median {median:.1f}); they hold "
               f"their final rate from {', '.join(f'{per_run[r][1]:.1f}' for r in sorted(per_run))} s of "
               f"{end:.0f} s")
    run0 = trace[trace["run"] == first_run].sort_values("time_s")
    visited: list[float] = []
    for v in (float(x) for x in run0["value"] if not math.isnan(float(x))):
        if not visited or abs(v - visited[-1]) > 1e-9:
            visited.append(v)
    shown = ", ".join(f"{v:.1f}" for v in visited[:10]) + (" ..." if len(visited) > 10 else "")
    numbers = [PaperNumber("converged rate (median over runs)", 142.5, median, "kbps", 1),
               PaperNumber("distinct rates until the search stops (run 0)", 6.0, float(per_run[first_run][2]),
                           digits=0)]
    rows = [("rates visited (kbps)", "240, 120, 180, 150, 135, 142.5", shown),
            ("time to converge", "\"several frame transmissions ... few milliseconds\"",
             f"{per_run[first_run][1]:.1f} s into run {first_run}")]
    notes = [f"Read from the series {metric!r} of every run (sampled every 0.1 s; the curves before the first rate "
             "are the aggressive-sending phase, which has no rate). Table 1 itself is a worked example with a "
             "scripted APR, checked exactly by the core's unit test (issue 4); the paper's 6 iterations are that "
             "example's, so the count here is for comparison only."]
    return judged(reading, checks, paths=paths, notes=notes, numbers=numbers, rows=rows)


# Figs. 11-12: the mobile random topology.
def _mobile_runs(data: ExperimentData, case: str) -> pd.DataFrame:
    """One row per run of `case`: the speed, the run number, the goodput of
    the 10 flows together (kbps), their delay (ms, weighted by each flow's
    goodput: the mean over delivered packets), and the route discoveries and
    route breaks per flow per minute (whole run)."""
    import pandas as pd

    frame = data.scalars
    if frame.empty:
        raise NotReproduced(data.failure(case) or "no data")
    part = frame[(frame["entity"] == "flow") & (frame["case"] == case)]
    if part.empty:
        raise NotReproduced(data.failure(case) or "no data")
    wide = part.pivot_table(index=["run_id", SPEED, "run", "id"], columns="metric", values="value").reset_index()
    minutes = {str(r): float(t) / 60.0 for r, t in zip(data.runs["run_id"], data.runs["sim_seconds"], strict=True)}
    rows = []
    for (run_id, speed, run), flows in wide.groupby(["run_id", SPEED, "run"]):
        goodput = flows["goodput_kbps"].astype(float)
        delay = flows["mean_delay_ms"].astype(float)
        weight = goodput.where(delay.notna() & (goodput > 0), 0.0)
        total = float(goodput.sum())
        rows.append({
            "run_id": run_id, SPEED: float(speed), "run": int(run), "goodput_kbps": total,
            "delay_ms": float((delay.fillna(0.0) * weight).sum() / weight.sum()) if weight.sum() > 0 else math.nan,
            "discoveries_per_flow_min": float(flows["route_discoveries"].mean()) / minutes[str(run_id)],
            "breaks_per_flow_min": float(flows["route_breaks"].mean()) / minutes[str(run_id)],
        })
    return pd.DataFrame(rows)


def _speed_runs(runs: pd.DataFrame, metric: str) -> dict[float, dict[int, float]]:
    return {float(s): {int(r): float(v) for r, v in zip(part["run"], part[metric], strict=True)
                       if not math.isnan(float(v))} for s, part in runs.groupby(SPEED)}


def _mobile_figure(
    data: Mapping[str, ExperimentData], out: Path, number: str, metric: str, ylabel: str, title: str,
    difference_label: str,
) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame], dict[str, Path], list[str]]:
    mobile = data["mobile"]
    runs: dict[str, pd.DataFrame] = {}
    curves: dict[str, pd.DataFrame] = {}
    lines, notes = [], []
    for case in (C_SEMI, C_ALG1):
        try:
            runs[case] = _mobile_runs(mobile, case)
        except NotReproduced as e:
            notes.append(f"{case}: not reproduced: {e}")
            continue
        curves[case] = summarize(runs[case], by=SPEED, value=metric)
        # Means only: the unpaired intervals span most of the axis (the
        # network is partitioned in some runs, not in others) and hide the
        # difference the lower panel shows.
        lines.append(_line(curves[case], SPEED, f"{case} (mean over runs)", errors=False))
    lower = None
    if C_SEMI in runs and C_ALG1 in runs:
        lower = Panel([_paired_line(_speed_runs(runs[C_ALG1], metric), _speed_runs(runs[C_SEMI], metric),
                                    "Algorithm 1 - semi-TCP, paired by run (95 % CI)")], difference_label)
    speeds = sorted({float(v) for curve in curves.values() for v in curve[SPEED]})
    paths = line_figure(lines, out / f"fig{number}", title=title, xlabel="maximum speed (m/s)", ylabel=ylabel,
                        xticks=speeds or None, ylim=(0.0, None), lower=lower)
    for case in (C_SEMI, C_ALG1):
        if case not in curves:
            mobile.require(case)
            raise NotReproduced(f"{case}: no data")
    notes.append("Upper panel: the mean over runs of each case (no error bars: run-to-run variation in this sparse, "
                 "often partitioned network spans most of the axis). Lower panel: the difference per run, runs "
                 "paired by run number (the same placement and node paths in both cases), with its 95 % interval; "
                 "the verdict reads the lower panel.")
    return runs, curves, paths, notes


def _mobile_checks(runs: Mapping[str, pd.DataFrame], metric: str, higher: bool, what: str,
                   unit: str) -> tuple[list[Check], str]:
    semi, alg1 = _speed_runs(runs[C_SEMI], metric), _speed_runs(runs[C_ALG1], metric)
    speeds = sorted(set(semi) & set(alg1))
    compare = greater if higher else less
    sign = ">" if higher else "<"
    checks = [compare(f"semi-TCP + Algorithm 1 {sign} semi-TCP ({what})", f"{s:g} m/s", alg1[s], semi[s], unit=unit)
              for s in speeds]

    def mean(values: Mapping[int, float]) -> float:
        return sum(values.values()) / len(values) if values else math.nan

    per = "; ".join(f"{s:g} m/s: {mean(semi[s]):.1f} -> {mean(alg1[s]):.1f} {unit}" for s in speeds)
    return checks, f"{what}, semi-TCP -> semi-TCP + Algorithm 1 (means over runs): {per}"


def fig11(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    runs, _, paths, notes = _mobile_figure(
        data, out, "11", "goodput_kbps", "goodput of the 10 flows together (kbps)",
        "Fig. 11: goodput vs maximum speed, 48 mobile nodes, 10 flows", "Alg. 1 - semi-TCP (kbps)")
    checks, reading = _mobile_checks(runs, "goodput_kbps", True, "goodput", "kbps")
    rows = []
    for case in (C_SEMI, C_ALG1):
        by_speed = runs[case].groupby(SPEED)[["discoveries_per_flow_min", "breaks_per_flow_min"]].mean()
        rows += [(f"{case}: route discoveries / route breaks per flow per minute, {float(s):g} m/s", "-",
                  f"{float(r['discoveries_per_flow_min']):.2f} / {float(r['breaks_per_flow_min']):.2f}")
                 for s, r in by_speed.iterrows()]
    notes.append("Goodput: the 10 flows' goodput summed per run (the paper does not say whether it plots the sum "
                 "or the mean per flow; the comparison is the same), averaged over runs.")
    notes.append("Route discoveries (started by each flow's source) and route breaks (links found broken while "
                 "forwarding the flow's packets) are counted over the whole run.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


def fig12(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    runs, _, paths, notes = _mobile_figure(
        data, out, "12", "delay_ms", "end-to-end delay (ms)",
        "Fig. 12: end-to-end delay vs maximum speed, 48 mobile nodes, 10 flows", "Alg. 1 - semi-TCP (ms)")
    checks, reading = _mobile_checks(runs, "delay_ms", False, "delay", "ms")
    notes.append("Delay: per run, the mean end-to-end delay of the packets delivered in the measurement window, "
                 "over all 10 flows (each flow's mean weighted by its goodput); averaged over runs.")
    return judged(reading, checks, paths=paths, notes=notes)


FIGURES = [
    Figure("Fig. 2", "Attempts per RTS and per DATA frame at each node, 14-hop chain, semi-TCP", ["chain"],
           "attempts per RTS are highest at the source and fall along the path to almost one; attempts per DATA "
           "are much smaller and decline slightly", fig2),
    Figure("Fig. 3", "Average MAC sending time and queue length at each node, semi-TCP", ["chain"],
           "the MAC sending time is longest at the source (repeated RTSs) and shorter downstream; the second node, "
           "under the most severe interference, has its buffer quickly filled by the source", fig3),
    Figure("Fig. 4", "RTSC transmissions, RTS drop ratio and RTSC ratio at each node, semi-TCP", ["chain"],
           "the source sends the most RTSCs; RTS drops concentrate in the first hops", fig4),
    Figure("Fig. 5", "End-to-end throughput and APR at the source vs fixed source rate, 14 hops", ["fixed-rate"],
           "throughput rises almost linearly up to about 140 kbps, then falls sharply, while APR jumps from a low "
           "to a high level", fig5),
    Figure("Fig. 6", "End-to-end throughput and MST at the source vs fixed source rate, 14 hops", ["fixed-rate"],
           "the MST switches from a low level to a high level (about 14 ms) where throughput collapses "
           "(about 20 kbps at 180 kbps)", fig6),
    Figure("Fig. 8", "End-to-end throughput vs path length", ["path-length", "fixed-rate"],
           "Algorithm 1 gives higher throughput than plain semi-TCP, more so on longer paths; near-optimal, about "
           "140 kbps at 14 hops, consistent with the peak of Fig. 5", fig8),
    Figure("Fig. 9", "End-to-end delay vs path length", ["path-length"],
           "Algorithm 1 lowers the delay, by almost 60 % at 4 hops (60 ms to 20 ms)", fig9),
    Figure("Fig. 10", "Medium contention vs path length", ["path-length"],
           "Algorithm 1 wastes fewer resources in RTS/CTS and DATA retransmissions", fig10),
    Figure("Table 1", "Iterations of Algorithm 1", ["rate-control", "fixed-rate"],
           "the binary search visits 240, 120, 180, 150, 135, 143 kbps and stops in the sixth iteration, near "
           "the throughput peak", table1),
    Figure("Fig. 11", "Goodput vs maximum speed, 48 mobile nodes, 10 flows", ["mobile"],
           "Algorithm 1 improves the throughput at every mobility speed", fig11),
    Figure("Fig. 12", "End-to-end delay vs maximum speed, 48 mobile nodes, 10 flows", ["mobile"],
           "Algorithm 1 lowers the end-to-end delay at every mobility speed", fig12),
]

PAPER = Paper(
    id="semitcp-2018",
    title="Rate control for semi-TCP in multihop wireless networks (Chen et al., 2018)",
    citation="W. Chen, H. Yu, Q. Guan, Y. Wang, S. Jiang, \"Rate control for semi-TCP in multihop wireless "
             "networks\", EURASIP J. Wireless Commun. Netw. (2018), seed 000",
    source="shared/seeds/000_25a2274fe5f40302.txt",
    experiments=EXPERIMENTS,
    figures=FIGURES,
    notes=[
        "Network of section 3.1 (SPEC.md 3): 15-node chain, 200 m spacing, 802.11 RTS/CTS, 2 Mbps data and basic "
        "rate, 512 B packets, 250 m transmission and 500 m carrier-sense range, drop-tail 50, one bulk (FTP) flow "
        "from node 1 to node 15 (ids 0 and 14 here); nodes are numbered from 1 in the figures, as in the paper.",
        "Routing is AODV (RFC 3561) with link-layer feedback, as the paper's: an RTS dropped at the retry limit "
        "breaks the route and triggers the rediscovery the paper describes under Fig. 4. With static routing "
        "(`--set routing.protocol=static` on the examples) the goodput collapse past the peak rate does not occur.",
        "The paper gives no run length or number of runs; full mode uses 100 s runs (10 s warm-up) and 10 runs "
        "per point; --quick uses 30 s runs (5 s warm-up; 60 s for the rate-control trace, so that the search can be "
        "seen to stop) and 5 runs per point.",
        "Path lengths (Figs. 8-10) move the destination along the same 15-node chain; nodes past the destination "
        "send nothing, so this is the same as a shorter chain.",
        "Curves marked (reference) are not in the paper: TCP NewReno on the same chain, and UDP CBR at the same "
        "source rates; they show what the substrate does and are not judged.",
        "Figs. 11-12 (section 5.1, `examples/semitcp-mobile-48.toml`): 48 nodes placed at random in 1500 x 3000 m, "
        "moving by random waypoint from t = 0 (minimum speed 1 m/s, no pause: decisions, the paper gives neither), "
        "the chain's radio and MAC, AODV, FTP over semi-TCP on 10 flows between nodes 2i and 2i+1, Algorithm 1 on "
        "every flow or on none. The paper does not give its speeds: maximum speeds 1, 5, 10, 15 and 20 m/s "
        "(--quick: 1, 10, 20), 100 s runs with 10 s warm-up and 20 runs per point (--quick: 60 s, 5 runs); each "
        "run's placement and paths depend only on its run number, so both cases meet the same networks.",
    ],
    not_covered=[
        "Fig. 1 (the topology) and Fig. 7 (Algorithm 1's state diagram) hold no data.",
    ],
)
