"""Figs. 2-4 of semitcp-2018: per-node MAC metrics along the 14-hop chain
under plain semi-TCP (attempts per RTS and per DATA frame; MAC sending
time and queue length; RTSC transmissions, RTS drop ratio and RTSC ratio),
TCP NewReno drawn as a reference, from the `chain` experiment.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hoplab.papers import ExperimentData, FigureResult, NotReproduced, judged, per_run
from hoplab.papers.semitcp_2018.common import mean_line
from hoplab.papers.semitcp_2018.experiments import C_NEWRENO, C_SEMI, HOPS
from hoplab.papers.verdicts import Check, PaperNumber, above, below, greater, less
from hoplab.plots import Line, line_figure
from hoplab.stats import summarize

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["fig2", "fig3", "fig4"]


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
    return per_run(wide[wide["node"] == node], metric)


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


def _rtsc_reading(values: Sequence[float], nodes: Sequence[int]) -> str:
    """Fig. 4's reading of the mean RTSCs per node (`values[0]` at the
    source): "the most of any node" only when it is."""
    def rtscs(value: float) -> str:
        return f"{value:.0f} RTSC{'' if round(value) == 1 else 's'}"

    text = f"the source sends {rtscs(values[0])} per run"
    if len(values) < 2:
        return text
    elsewhere = max(values[1:])
    busiest = nodes[1 + list(values[1:]).index(elsewhere)]
    if round(values[0]) > round(elsewhere):
        return f"{text}, the most of any node (next: {rtscs(elsewhere)} at node {busiest})"
    if round(values[0]) == round(elsewhere):
        return f"{text}, as many as node {busiest}, the most elsewhere"
    return f"{text}, fewer than node {busiest} ({rtscs(elsewhere)}, the most of any node)"


_NAMES = {"rts_attempts_per_packet": "attempts per RTS", "data_attempts_per_packet": "attempts per DATA",
          "mac_service_time_ms": "MAC sending time (ms)", "queue_mean": "queue length",
          "rtsc_sent": "RTSC transmissions", "rts_drop_ratio": "RTS drop ratio"}
_RATIOS = {"rts_drop_ratio", "queue_mean"}


def _reference_note(data: ExperimentData, case: str) -> list[str]:
    error = data.failure(case)
    return [f"{case}: no successful run ({error})"] if error else []


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
            lines.append(mean_line(_per_node(wide, metric), "node", f"{label}: {name}{suffix}", right=right))
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
            mean_line(_per_node(wide, "rtsc_sent"), "node", "RTSC transmissions"),
            mean_line(_per_node(wide, "rts_drop_ratio"), "node", "RTS drop ratio (after 7 attempts)", right=True),
            mean_line(_per_node(wide, "rtsc_ratio"), "node", "RTSC ratio (RTSC / all RTS)", right=True),
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
    reading = _rtsc_reading(values, [int(n) for n in rtsc["node"]])
    reading += (f"; nodes 1-2 drop {sum(shares) / len(shares):.0%} of the path's RTSs on average" if shares
                else "; no RTS was dropped in any run")
    rows = [
        ("RTSC transmissions", "most at the source", f"{values[0]:.0f} at the source, max {max(values):.0f}"),
        ("RTS drop ratio", "RTS drops concentrated in the first hops",
         f"{float(drops['mean'].iloc[0]):.3f} at the source, {float(drops['mean'].iloc[-1]):.3f} at the last hop"),
    ]
    notes.append("RTS drop ratio = RTS dropped after the 7th attempt / packets served by the node's MAC; "
                 "RTSC ratio = RTSC sent / all RTS sent (the paper's endnotes 1 and 2). \"First hops\" = the "
                 "transmissions of nodes 1 and 2.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)
