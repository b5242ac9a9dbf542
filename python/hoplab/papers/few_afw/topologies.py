"""few-afw's grid and random-topology figures: Fig. 9 (total throughput of
AFW and FeW over (a) the 7 x 7 and (b) the 13 x 13 grid against the number
of flows) and Fig. 10 (150 random nodes, 8-50 flows)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hoplab.papers import ExperimentData, FigureResult, judged
from hoplab.papers.few_afw.common import PerRun, by_point, curves, fmt, gain, gain_checks, relative_gain, require
from hoplab.papers.few_afw.experiments import AFW, FEW, NEWRENO
from hoplab.papers.verdicts import PaperNumber, above
from hoplab.plots import line_figure

__all__ = ["FIG9_GAIN", "FIG10_GAIN", "fig9a", "fig9b", "fig10", "flow_count"]

#: Fig. 9: "In both grid topologies, AFW obtains 5% higher throughput than FeW".
FIG9_GAIN = 5.0
#: Fig. 10: "AFW still obtains a higher throughput than FeW by about 5%".
FIG10_GAIN = 5.0


def flow_count(point: str) -> int:
    """The number of flows of a point ("14 flows")."""
    return int(point.split()[0])


def _by_flows(exp: ExperimentData, out: Path, stem: str, title: str, paper_gain: float, where: str) -> FigureResult:
    values = {s: by_point(exp, s) for s in (AFW, FEW, NEWRENO)}
    require(values, exp, AFW, FEW)
    values = {s: v for s, v in values.items() if v}
    afw, few = values[AFW], values[FEW]
    points = sorted(afw, key=flow_count)
    x_of = {p: float(flow_count(p)) for v in values.values() for p in v}
    paths = line_figure(curves(values, x_of), out / stem, title=title, xlabel="number of flows",
                        ylabel="total throughput (kbps)", xticks=sorted(set(x_of.values())), ylim=(0.0, None))
    checks = gain_checks(afw, few, points)
    if len(points) >= 2 and points[0] in few and points[-1] in few:
        # "the percentage growth of the throughput decreases as the number of flows increases"
        first, last = gain(afw[points[0]], few[points[0]]), gain(afw[points[-1]], few[points[-1]])
        shrink: PerRun = {r: first[r] - last[r] for r in sorted(set(first) & set(last))}
        checks.append(above("AFW's gain shrinks as flows are added", f"gain at {points[0]} minus gain at {points[-1]}",
                            shrink.values(), 0.0, unit="points", digits=1))
    measured = relative_gain(afw, few)
    rows = [(f"{p}: {s} (kbps)", "-", fmt(values[s][p])) for p in points for s in values if p in values[s]]
    rows += [(f"{p}: AFW over FeW (%)", "-", fmt(gain(afw[p], few[p]), "%")) for p in points if p in few]
    numbers = [PaperNumber(f"AFW's gain over FeW, {where}, mean over the flow counts", paper_gain, measured, "%", 1)]
    reading = f"AFW's total throughput over FeW's on {where}: {measured:+.1f} % on average (the paper: +{paper_gain:g} %)"
    return judged(reading, checks, rows=rows, paths=paths, numbers=numbers,
                  notes=["The shrinking gain is judged as AFW's gain (per run, in % of FeW's mean) with the fewest "
                         "flows minus that with the most."])


def fig9a(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _by_flows(data["grid7"], out, "fig9a", "Fig. 9a: total throughput over the 7 x 7 grid (DSR)", FIG9_GAIN,
                     "the 7 x 7 grid")


def fig9b(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _by_flows(data["grid13"], out, "fig9b", "Fig. 9b: total throughput over the 13 x 13 grid (DSR)", FIG9_GAIN,
                     "the 13 x 13 grid")


def fig10(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _by_flows(data["random"], out, "fig10", "Fig. 10: total throughput, 150 random nodes in 2000 x 2000 m (DSR)",
                     FIG10_GAIN, "150 random nodes")
