"""Figs. 4 and 5 of tcp-ra-2009: the goodput of TCP-RA, Veno, Westwood+
and NewReno on one flow along the grid's middle row, against the number of
hops (1-10, `hops` experiment) and against the Gilbert channel's frame
error rate at 3 hops (`per` experiment). Each draws the four curves with
95 % intervals and, below, TCP-RA's paired difference from each other
scheme, which is what the verdicts read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hoplab.papers import ExperimentData, FigureResult, NotReproduced, judged
from hoplab.papers.tcp_ra_2009.common import fmt, mean_of
from hoplab.papers.tcp_ra_2009.experiments import (
    BURST_FRAMES,
    C_NEWRENO,
    C_RA,
    C_VENO,
    C_WESTWOOD,
    DST,
    HOPS,
    MIDDLE_ROW,
    PER,
    PER_HOPS,
    QUICK_PER_VALUES,
    RIVALS,
    ROW_START,
    SCHEMES,
    hops_of,
)
from hoplab.papers.verdicts import NUMBER_TOLERANCE, Check, PaperNumber, greater, within
from hoplab.papers.verdicts import differences as paired_differences
from hoplab.plots import Line, Panel, line_figure
from hoplab.stats import mean_ci

__all__ = ["PAPER_GAIN", "SIMILAR_SHARE", "SMALL_HOPS", "fig4", "fig5"]

#: Fig. 4: the paper's average gain of TCP-RA over NewReno, percent.
PAPER_GAIN = 40.0
#: Fig. 4: "when the hop count is small" = these hop counts; there the four
#: are "similarly effective": each paired difference within this share of
#: the pair's mean goodput.
SMALL_HOPS = (1, 2)
SIMILAR_SHARE = 0.15

_STYLES = {
    C_RA: {"color": "black", "marker": "o", "linestyle": "-"},
    C_VENO: {"color": "tab:blue", "marker": "^", "linestyle": "-."},
    C_WESTWOOD: {"color": "tab:red", "marker": "D", "linestyle": ":"},
    C_NEWRENO: {"color": "dimgray", "marker": "s", "linestyle": "--"},
}


def _goodput(data: ExperimentData, param: str) -> dict[str, dict[float, dict[int, float]]]:
    """{scheme: {point: {run: goodput of flow 0 (kbps)}}} of the schemes with successful runs."""
    out: dict[str, dict[float, dict[int, float]]] = {}
    for case in SCHEMES:
        if data.failure(case) is not None:
            continue
        points = data.per_point("goodput_kbps", param, "flow", case, 0)
        if points:
            out[case] = points
    return out


def _goodput_figure(
    data: ExperimentData, out: Path, stem: str, param: str, to_x: Any, title: str, xlabel: str,
    xticks: Sequence[float], yscale: str = "linear",
) -> tuple[dict[str, dict[float, dict[int, float]]], dict[str, Path], list[str]]:
    goodput = _goodput(data, param)
    lines = []
    for case, points in goodput.items():
        xs = sorted(points)
        stats = [mean_ci(list(points[p].values())) for p in xs]
        lines.append(Line(case, [to_x(p) for p in xs], [s[0] for s in stats], [s[2] for s in stats],
                          style=_STYLES[case]))
    lower = None
    if C_RA in goodput:
        diffs = []
        for i, rival in enumerate(r for r in RIVALS if r in goodput):
            xs = sorted(set(goodput[C_RA]) & set(goodput[rival]))
            stats = [mean_ci(paired_differences(goodput[C_RA][p], goodput[rival][p])) for p in xs]
            diffs.append(Line(f"TCP-RA - {rival}, paired by run (95 % CI)", [to_x(p) + (i - 1) * 0.08 * (
                xticks[1] - xticks[0] if len(xticks) > 1 else 1) for p in xs], [s[0] for s in stats],
                [s[2] for s in stats], style={**_STYLES[rival], "linestyle": "none"}))
        lower = Panel(diffs, "TCP-RA - other (kbps)")
    paths = line_figure(lines, out / stem, title=title, xlabel=xlabel,
                        ylabel="goodput (kbps" + (", log scale)" if yscale == "log" else ")"), xticks=xticks,
                        yscale=yscale, ylim=(0.0, None) if yscale == "linear" else None, lower=lower)
    notes = [f"{case}: not reproduced: {data.failure(case)}" for case in SCHEMES if case not in goodput]
    if C_RA not in goodput:
        data.require(C_RA)
        raise NotReproduced(f"{C_RA}: no data")
    notes.append("Lower panel: TCP-RA's goodput minus each other scheme's, per run (runs paired by run number: the "
                 "same seeds, so the same channel draws as far as the schemes' own traffic lets them be), mean and "
                 "95 % interval; it is what the verdict reads. Goodput: in-order payload delivered to the receiving "
                 "application after the warm-up.")
    return goodput, paths, notes


def fig4(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["hops"]
    goodput, paths, notes = _goodput_figure(
        exp, out, "fig4", DST, hops_of, "Fig. 4: goodput vs hops (one flow, Gilbert errors 3 %, bursts of 3)",
        "path length (hops)", [float(h) for h in HOPS], yscale="log")
    ra = goodput[C_RA]
    hops = sorted(ra, key=hops_of)
    checks: list[Check] = []
    for rival in (r for r in RIVALS if r in goodput):
        for p in hops:
            h = hops_of(p)
            if p not in goodput[rival]:
                continue
            if h in SMALL_HOPS:
                level = (mean_of(ra[p]) + mean_of(goodput[rival][p])) / 2
                band = SIMILAR_SHARE * level
                point = f"TCP-RA vs {rival}, {h} hop{'s' if h > 1 else ''}"
                checks.append(within(f"similar at small hop counts: TCP-RA - other within "
                                     f"{SIMILAR_SHARE * 100:.0f} % of the pair's mean goodput", point,
                                     paired_differences(ra[p], goodput[rival][p]), -band, band, unit="kbps",
                                     digits=0))
            else:
                checks.append(greater("TCP-RA's goodput higher", f"TCP-RA vs {rival}, {h} hops", ra[p],
                                      goodput[rival][p], unit="kbps", digits=0))
    gain_text = ""
    numbers: list[PaperNumber] = []
    if C_NEWRENO in goodput:
        nr = goodput[C_NEWRENO]
        common = [p for p in hops if p in nr and mean_of(nr[p]) > 0]
        per_run: dict[int, float] = {}
        for run in sorted(set.intersection(*(set(ra[p]) & set(nr[p]) for p in common))) if common else []:
            ratios = [ra[p][run] / nr[p][run] - 1 for p in common if nr[p][run] > 0]
            if ratios:
                per_run[run] = 100.0 * sum(ratios) / len(ratios)
        low, high = (1 - NUMBER_TOLERANCE) * PAPER_GAIN, (1 + NUMBER_TOLERANCE) * PAPER_GAIN
        checks.append(within(f"TCP-RA's gain over NewReno, averaged over the hop counts, about 40 % (within "
                             f"{NUMBER_TOLERANCE * 100:.0f} %: {low:.0f}-{high:.0f} %)", "average over hop counts",
                             per_run.values(), low, high, unit="%", digits=1))
        # One estimator for the reading, the check and the paper-number
        # table: per run, the mean over the hop counts of RA / NewReno - 1.
        mean_gain, _, half = mean_ci(list(per_run.values()))
        numbers.append(PaperNumber("TCP-RA's goodput gain over NewReno, averaged over hop counts", PAPER_GAIN,
                                   mean_gain, "%", 1))
        gain = "-" if math.isnan(mean_gain) else f"{mean_gain:+.1f} %" + ("" if math.isnan(half) else f" ± {half:.1f}")
        gain_text = f"; TCP-RA's gain over NewReno, averaged over the hop counts, is {gain} (the paper: +40 %)"
    reading = ("goodput in kbps by hop count, " + " / ".join(goodput) + ": "
               + "; ".join(f"{hops_of(p)}: " + " / ".join(f"{mean_of(goodput[c][p]):.0f}" for c in goodput
                                                              if p in goodput[c]) for p in hops) + gain_text)
    rows = [(f"{c}, {hops_of(p)} hops: goodput (kbps)", "-", fmt(goodput[c][p], digits=0))
            for p in hops if hops_of(p) in (1, 3, 6, 10) for c in goodput if p in goodput[c]]
    notes.append(f"Decision: \"when the hop count is small, all protocols are similarly effective\" is read as "
                 f"{' and '.join(str(h) for h in SMALL_HOPS)} hops, each pair within {SIMILAR_SHARE * 100:.0f} % of "
                 "its mean goodput; \"TCP-RA achieves better goodput ... regardless of the hop count\" is judged at "
                 "3 hops and more. The average gain is, per run, the mean over the hop counts run of TCP-RA's goodput "
                 "over NewReno's, less 1; the reading, the check and the paper's number all give its mean and 95 % "
                 "interval over the runs.")
    notes.append("Goodput on a log scale: the 1-hop point would crush the others on a linear one.")
    notes.append(f"One flow along the grid's middle row (row {MIDDLE_ROW}), from its west end (node {ROW_START}) to "
                 "the node h hops east; the rest of the grid is idle. Gilbert errors on every link: 3 % of frames, "
                 "bursts of 3 frames on average.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


def fig5(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["per"]
    _, vary, _ = exp.experiment.settings(False)
    run = sorted({float(p) for p in exp.scalars[PER]}) if PER in exp.scalars.columns else list(vary[PER])
    goodput, paths, notes = _goodput_figure(
        exp, out, "fig5", PER, lambda p: 100.0 * p,
        f"Fig. 5: goodput vs packet error rate ({PER_HOPS} hops, bursts of {BURST_FRAMES:.0f} frames)",
        "frame error rate (%, Gilbert, long-run)", [100.0 * p for p in run])
    ra = goodput[C_RA]
    rates = sorted(ra)
    checks = [greater("TCP-RA's goodput higher", f"TCP-RA vs {rival}, {100 * p:g} %", ra[p], goodput[rival][p],
                      unit="kbps", digits=0)
              for rival in RIVALS if rival in goodput for p in rates if p > 0 and p in goodput[rival]]
    reading = ("goodput in kbps by frame error rate, " + " / ".join(goodput) + ": "
               + "; ".join(f"{100 * p:g} %: " + " / ".join(f"{mean_of(goodput[c][p]):.0f}" for c in goodput
                                                            if p in goodput[c]) for p in rates))
    rows = [(f"{c}, {100 * p:g} %: goodput (kbps)", "TCP-RA highest" if p > 0 else "-", fmt(goodput[c][p], digits=0))
            for p in rates for c in goodput if p in goodput[c]]
    notes.append(f"Decision: the paper gives neither its error rates nor its burst length. hoplab sweeps the "
                 f"Gilbert chain's long-run frame error rate over {', '.join(f'{100 * p:g}' for p in vary[PER])} % "
                 f"(--quick: {', '.join(f'{100 * p:g}' for p in QUICK_PER_VALUES)} %) with bursts of "
                 f"{BURST_FRAMES:.0f} frames on average, on a {PER_HOPS}-hop flow along the grid's middle row. The "
                 "finding (TCP-RA handles high error rates better than the others) is judged at every rate above 0; "
                 "at 0 nothing is lost to the channel and the point is drawn only.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


