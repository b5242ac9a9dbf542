"""few-afw's chain figures: Fig. 4 (total throughput of AFW and FeW over
chains of 4-14 hops, (a) one flow, (b) four flows), Fig. 5 (Jain's index
of the four flows), Fig. 7 (the 9-hop chain's three flows), Fig. 11 (TCP
beside a UDP CBR flow), and the abstract's "FeW well above NewReno"."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hoplab.papers import ExperimentData, FigureResult, judged
from hoplab.papers.few_afw.common import (
    STYLES,
    PerRun,
    by_point,
    curves,
    fmt,
    gain,
    gain_checks,
    mean_of,
    relative_gain,
    require,
)
from hoplab.papers.few_afw.experiments import AFW, FEW, HYBRID_RATES_KBPS, NEWRENO, THREE_FLOWS, UDP_RATE
from hoplab.papers.verdicts import Check, PaperNumber, above, greater, less, within
from hoplab.plots import Line, line_figure
from hoplab.stats import mean_ci

__all__ = ["ALMOST_SAME_PERCENT", "FIG4_GAIN", "FIG7_GAIN", "FIG11_GAIN", "abstract", "fig4a", "fig4b", "fig5",
           "fig7", "fig11", "hops"]

#: Fig. 4: AFW's gain over FeW, % ((a) one flow, (b) four flows).
FIG4_GAIN = {1: 6.5, 4: 3.7}
#: Fig. 7: the three flows' total, AFW over FeW, %.
FIG7_GAIN = 4.0
#: Fig. 11: AFW over FeW beside 100 kb/s of UDP, %.
FIG11_GAIN = 4.7
#: Decision: "almost the same" (Fig. 11, 200 and 300 kb/s of UDP) is
#: judged as AFW's mean gain within this many % of FeW's throughput.
ALMOST_SAME_PERCENT = 5.0


def hops(point: str) -> int:
    """The hop count of a chain point ("7 hops")."""
    return int(point.split()[0])


def _ordered(values: Mapping[str, PerRun]) -> list[str]:
    return sorted(values, key=hops)


def _chain(data: ExperimentData, schemes: tuple[str, ...], **kwargs: object) -> dict[str, dict[str, PerRun]]:
    values = {s: by_point(data, s, **kwargs) for s in schemes}  # type: ignore[arg-type]
    require(values, data, AFW, FEW)
    return {s: v for s, v in values.items() if v}


def _throughput_plot(values: Mapping[str, Mapping[str, PerRun]], out: Path, stem: str, title: str) -> dict[str, Path]:
    x_of = {p: float(hops(p)) for v in values.values() for p in v}
    return line_figure(curves(values, x_of), out / stem, title=title, xlabel="number of hops",
                       ylabel="total throughput (kbps)", xticks=sorted(set(x_of.values())), ylim=(0.0, None))


def _fig4(data: ExperimentData, out: Path, flows: int, stem: str) -> FigureResult:
    values = _chain(data, (AFW, FEW, NEWRENO))
    afw, few = values[AFW], values[FEW]
    points = _ordered(afw)
    paths = _throughput_plot(values, out, stem, f"Fig. 4{stem[-1]}: total throughput over the chain, {flows} "
                             f"flow{'s' if flows > 1 else ''} (DSR)")
    checks = gain_checks(afw, few, points)
    measured = relative_gain(afw, few)
    numbers = [PaperNumber(f"AFW's gain over FeW, {flows} flow{'s' if flows > 1 else ''}, mean over 4-14 hops",
                           FIG4_GAIN[flows], measured, "%", 1)]
    rows = [(f"{p}: {s} (kbps)", "-", fmt(values[s][p])) for p in points for s in values if p in values[s]]
    rows += [(f"{p}: AFW over FeW (%)", "-", fmt(gain(afw[p], few[p]), "%")) for p in points if p in few]
    notes = []
    if flows == 1 and len(points) >= 4:
        # "the gap between the throughput of AFW and FeW increases as the number of hops increases"
        short, long_ = points[:len(points) // 3 or 1], points[-(len(points) // 3 or 1):]
        growth = _gap_growth(afw, few, short, long_)
        checks.append(above("AFW's gain grows with the hop count", f"gain at {_span(long_)} minus gain at {_span(short)}",
                            growth.values(), 0.0, unit="points", digits=1))
        notes.append("The gap's growth is judged as AFW's gain (in % of FeW's mean) averaged over the longest third "
                     "of the chains minus that over the shortest third, per run.")
    reading = (f"AFW's total throughput over FeW's: {measured:+.1f} % on average over {hops(points[0])}-{points[-1]} "
               f"(the paper: +{FIG4_GAIN[flows]} %)")
    return judged(reading, checks, rows=rows, paths=paths, numbers=numbers, notes=notes)


def _span(points: list[str]) -> str:
    """"10-14 hops", or "4 hops" for one point."""
    return points[0] if len(points) == 1 else f"{hops(points[0])}-{points[-1]}"


def _gap_growth(afw: Mapping[str, PerRun], few: Mapping[str, PerRun], short: list[str], long_: list[str]) -> PerRun:
    def mean_gain(points: list[str], run: int) -> float:
        values = [gain(afw[p], few[p]).get(run) for p in points]
        present = [v for v in values if v is not None]
        return sum(present) / len(present) if present else float("nan")

    runs = set.intersection(*(set(afw[p]) & set(few[p]) for p in short + long_))
    return {r: mean_gain(long_, r) - mean_gain(short, r) for r in sorted(runs)}


def fig4a(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _fig4(data["chain1"], out, 1, "fig4a")


def fig4b(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _fig4(data["chain4"], out, 4, "fig4b")


def fig5(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["chain4"]
    values = {s: by_point(exp, s, measure="jain") for s in (AFW, FEW)}
    require(values, exp, AFW, FEW)
    afw, few = values[AFW], values[FEW]
    points = _ordered(afw)
    x_of = {p: float(hops(p)) for p in points}
    paths = line_figure(curves(values, x_of), out / "fig5", title="Fig. 5: Jain's fairness index of the four flows",
                        xlabel="number of hops", ylabel="fairness index", xticks=sorted(x_of.values()),
                        ylim=(0.0, 1.05))
    checks = [less("AFW's fairness index below FeW's", p, afw[p], few[p], digits=3) for p in points if p in few]
    rows = [(f"{p}: Jain's index, {s}", "-", fmt(values[s][p], digits=3)) for p in points for s in values
            if p in values[s]]
    reading = ("Jain's index of the four flows, AFW / FeW: "
               + "; ".join(f"{p} {mean_of(afw[p]):.3f} / {mean_of(few[p]):.3f}" for p in points if p in few))
    return judged(reading, checks, rows=rows, paths=paths,
                  notes=["The paper: \"the fairness of AFW is a little worse than that of FeW\"; judged as AFW's "
                         "index below FeW's at each path length (paired by run)."])


def fig7(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["three_flows"]
    flows = {s: {i: by_point(exp, s, flows=[i]).get("", {}) for i in range(len(THREE_FLOWS))}
             for s in (AFW, FEW, NEWRENO)}
    totals = {s: by_point(exp, s).get("", {}) for s in (AFW, FEW, NEWRENO)}
    require({s: {"": v} if v else {} for s, v in totals.items()}, exp, AFW, FEW)
    labels = [f"flow {i + 1} ({a} -> {b})" for i, (a, b) in enumerate(THREE_FLOWS)]
    lines = []
    for offset, scheme in enumerate(s for s in (FEW, AFW, NEWRENO) if totals[s]):
        stats = [mean_ci(list(flows[scheme][i].values())) for i in range(len(THREE_FLOWS))]
        lines.append(Line(scheme, [i + 1 + 0.15 * (offset - 1) for i in range(len(THREE_FLOWS))],
                          [s[0] for s in stats], [s[2] for s in stats], style={**STYLES[scheme], "linestyle": "none"}))
    paths = line_figure(lines, out / "fig7", title="Fig. 7: the 9-hop chain's three flows (0 -> 9, 2 -> 8, 7 -> 1)",
                        xlabel="TCP flow", ylabel="throughput (kbps)", xticks=[1.0, 2.0, 3.0], ylim=(0.0, None))
    afw, few = flows[AFW], flows[FEW]
    checks: list[Check] = [
        less("AFW's throughput below FeW's on the longest flow", labels[0], afw[0], few[0], unit="kbps"),
        greater("AFW's throughput above FeW's on the shorter flows", labels[1], afw[1], few[1], unit="kbps"),
        greater("AFW's throughput above FeW's on the shorter flows", labels[2], afw[2], few[2], unit="kbps"),
        greater("AFW's total throughput higher than FeW's", "three flows together", totals[AFW], totals[FEW],
                unit="kbps"),
    ]
    total_gain = mean_of(gain(totals[AFW], totals[FEW]))
    rows = [(f"{labels[i]}: {s} (kbps)", "-", fmt(flows[s][i])) for i in range(len(THREE_FLOWS))
            for s in (FEW, AFW, NEWRENO) if totals[s]]
    rows += [(f"total: {s} (kbps)", "-", fmt(totals[s])) for s in (FEW, AFW, NEWRENO) if totals[s]]
    numbers = [PaperNumber("AFW's gain over FeW, total of the three flows", FIG7_GAIN, total_gain, "%", 1)]
    reading = (f"AFW / FeW per flow (kbps): " + "; ".join(
        f"{labels[i]} {mean_of(afw[i]):.1f} / {mean_of(few[i]):.1f}" for i in range(len(THREE_FLOWS)))
        + f"; total {total_gain:+.1f} % (the paper: +{FIG7_GAIN} %)")
    return judged(reading, checks, rows=rows, paths=paths, numbers=numbers)


def fig11(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["hybrid"]
    per_rate = {rate: {s: by_point(exp, s, param=UDP_RATE, value=rate) for s in (AFW, FEW)}
                for rate in HYBRID_RATES_KBPS}
    per_rate = {rate: v for rate, v in per_rate.items() if v[AFW] and v[FEW]}
    if not per_rate:
        require({}, exp, AFW)
    lines = []
    for rate, values in per_rate.items():
        x_of = {p: float(hops(p)) for p in values[AFW]}
        for line in curves(values, x_of):
            line.label = f"{line.label}, {rate:g} kbps"
            line.style = {**line.style, "alpha": 1.0 if rate == HYBRID_RATES_KBPS[0] else 0.6}
            lines.append(line)
    paths = line_figure(lines, out / "fig11", title="Fig. 11: TCP throughput beside a UDP CBR flow on the same path",
                        xlabel="number of hops", ylabel="TCP throughput (kbps)", ylim=(0.0, None))
    checks: list[Check] = []
    numbers = []
    rows = []
    for rate, values in per_rate.items():
        afw, few = values[AFW], values[FEW]
        points = _ordered(afw)
        if rate == HYBRID_RATES_KBPS[0]:
            checks += gain_checks(afw, few, points, claim=f"AFW's throughput higher than FeW's beside {rate:g} kbps "
                                                          "of UDP")
            numbers.append(PaperNumber(f"AFW's gain over FeW beside {rate:g} kbps of UDP, mean over the chains",
                                       FIG11_GAIN, relative_gain(afw, few), "%", 1))
        else:
            checks += [within(f"AFW's throughput almost FeW's beside {rate:g} kbps of UDP (within "
                              f"±{ALMOST_SAME_PERCENT:g} %)", p, gain(afw[p], few[p]).values(), -ALMOST_SAME_PERCENT,
                              ALMOST_SAME_PERCENT, unit="%", digits=1) for p in points if p in few]
        rows += [(f"{rate:g} kbps UDP, {p}: AFW over FeW (%)", "-", fmt(gain(afw[p], few[p]), "%")) for p in points
                 if p in few]
    reading = "AFW's gain over FeW (TCP throughput), mean over the chains: " + "; ".join(
        f"{rate:g} kbps of UDP {relative_gain(v[AFW], v[FEW]):+.1f} %" for rate, v in per_rate.items())
    notes = [f"Decision: \"almost the same\" is judged as AFW's gain (per run, in % of FeW's mean at the point) "
             f"within ±{ALMOST_SAME_PERCENT:g} %, the size of the differences the paper calls a gain."]
    return judged(reading, checks, rows=rows, paths=paths, numbers=numbers, notes=notes)


def abstract(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    checks: list[Check] = []
    lines = []
    rows = []
    for name, flows in (("chain1", 1), ("chain4", 4)):
        exp = data[name]
        values = _chain(exp, (AFW, FEW, NEWRENO))
        if NEWRENO not in values:
            require(values, exp, NEWRENO)
        few, newreno = values[FEW], values[NEWRENO]
        points = _ordered(few)
        label = f"{flows} flow{'s' if flows > 1 else ''}"
        checks += [greater(f"FeW's total throughput higher than NewReno's ({label})", p, few[p], newreno[p],
                           unit="kbps") for p in points if p in newreno]
        rows += [(f"{label}, {p}: FeW over NewReno (%)", "-",
                  fmt({r: 100.0 * (few[p][r] - newreno[p][r]) / mean_of(newreno[p]) for r in few[p] if r in newreno[p]},
                      "%")) for p in points if p in newreno and mean_of(newreno[p]) > 0]
        for line in curves({FEW: few, NEWRENO: newreno}, {p: float(hops(p)) for p in points}):
            line.label = f"{line.label}, {label}"
            line.style = {**line.style, "alpha": 1.0 if flows == 1 else 0.6}
            lines.append(line)
    paths = line_figure(lines, out / "abstract", title="FeW and NewReno over the chain (DSR)",
                        xlabel="number of hops", ylabel="total throughput (kbps)", ylim=(0.0, None))
    return judged("FeW's total throughput beside NewReno's over the chains of Fig. 4", checks, rows=rows, paths=paths)
