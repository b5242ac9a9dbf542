"""Figs. 8-10 and Table 1 of semitcp-2018: Algorithm 1 (binary-search rate
control) against plain semi-TCP.

- Figs. 8-10: end-to-end throughput, delay and contention (attempts per RTS
  at the source) against the path length, 1-14 hops on the chain, TCP
  NewReno drawn as a reference (`path-length` experiment; Fig. 8 also
  compares with the best fixed rate of Fig. 5, `fixed-rate`).
- Table 1: Algorithm 1's iterations, read from the source-rate time series
  of rate-controlled runs on the 14-hop chain (`rate-control`), judged on
  whether the search stops and settles near the throughput peak.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hoplab.papers import ExperimentData, FigureResult, NotReproduced, judged
from hoplab.papers.semitcp_2018.common import best_rate, mean_line, paired_line, value_summary
from hoplab.papers.semitcp_2018.experiments import C_ALG1, C_FIXED, C_NEWRENO, C_SEMI, DST, HOPS, RATE
from hoplab.papers.stalls import stall_notes
from hoplab.papers.verdicts import AGREES, CONTRADICTS, UNRESOLVED, Check, PaperNumber, above, greater, less, within
from hoplab.plots import Line, Panel, line_figure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HELD_SHARE", "NEAR_PEAK", "fig8", "fig9", "fig10", "table1"]


def _by_hops(data: ExperimentData, metric: str, entity: str, ident: int = 0) -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    for case in (C_SEMI, C_ALG1, C_NEWRENO):
        summary = value_summary(data.metric(metric, entity, case, ident), DST)
        if not summary.empty:
            out[case] = summary
    return out


def _hop_runs(data: ExperimentData, metric: str, entity: str, case: str) -> dict[int, dict[int, float]]:
    """{hops: {run: value}} of one case."""
    return data.per_point(metric, DST, entity, case, 0, key=int)



def _path_figure(
    data: Mapping[str, ExperimentData], out: Path, number: str, metric: str, entity: str, ylabel: str, title: str,
    difference_label: str, yscale: str = "linear",
) -> tuple[dict[str, pd.DataFrame], dict[str, dict[int, dict[int, float]]], dict[str, Path], list[str]]:
    path = data["path-length"]
    curves = _by_hops(path, metric, entity)
    lines = [mean_line(curve, DST, case) for case, curve in curves.items()]
    runs = {case: _hop_runs(path, metric, entity, case) for case in curves}
    notes = [f"{case}: not reproduced: {path.failure(case)}" for case in (C_SEMI, C_ALG1, C_NEWRENO)
             if case not in curves]
    lower = None
    if C_SEMI in runs and C_ALG1 in runs:
        lower = Panel([paired_line(runs[C_ALG1], runs[C_SEMI], "Algorithm 1 - semi-TCP, paired by run (95 % CI)")],
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
        goodput_curve = value_summary(fixed.metric("goodput_kbps", "flow", C_FIXED, 0), RATE)
        if not goodput_curve.empty:
            best = best_rate([float(v) for v in goodput_curve[RATE]], [float(v) for v in goodput_curve["mean"]])
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


def _rate_lines(series: pd.DataFrame, trace: pd.DataFrame, first_run: int) -> list[Line]:
    """Table 1's figure: each run's source rate over time (runs 3 on in
    grey), and run `first_run`'s end-to-end throughput (1 s moving average)."""
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
    return lines


def _settling(trace: pd.DataFrame) -> dict[int, tuple[float, float, int]]:
    """Per run: (the settled rate, the time it is held from, the distinct rates visited)."""
    per_run: dict[int, tuple[float, float, int]] = {}
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
    return per_run


def _peak_rate(data: Mapping[str, ExperimentData]) -> tuple[float, str]:
    """The rate Table 1's search should settle near, and where it comes from:
    Fig. 5's best fixed rate here when that experiment ran, else the paper's."""
    fixed = data.get("fixed-rate")
    if fixed is not None and fixed.failure(C_FIXED) is None:
        goodput_curve = value_summary(fixed.metric("goodput_kbps", "flow", C_FIXED, 0), RATE)
        if not goodput_curve.empty:
            best = best_rate([float(v) for v in goodput_curve[RATE]], [float(v) for v in goodput_curve["mean"]])
            peak_rate = float(goodput_curve[RATE].iloc[best])
            return peak_rate, f"the best fixed rate of Fig. 5 here, {peak_rate:.0f} kbps"
    return 140.0, "the paper's 140 kbps"


def _settling_checks(per_run: Mapping[int, tuple[float, float, int]], end: float,
                     data: Mapping[str, ExperimentData]) -> list[Check]:
    """The search stops in every run, and near the throughput peak."""
    settled = {r: v[0] for r, v in per_run.items()}
    peak_rate, source = _peak_rate(data)
    held = {r: (end - v[1]) / end for r, v in per_run.items()}
    stopped = [r for r, share in held.items() if share >= HELD_SHARE]
    still = [r for r in held if r not in stopped]
    n = len(per_run)
    stop_status = AGREES if not still else CONTRADICTS if len(still) > n / 2 else UNRESOLVED
    return [
        Check(f"the search stops: each run holds its final rate (within 10 %) for the last {HELD_SHARE:.0%} of the "
              "run or more", f"{n} run{'s' if n != 1 else ''}", stop_status,
              (f"{len(stopped)} of {n} runs stop" if n != 1 else f"{len(stopped)} of 1 run stops")
              + (f"; still changing: run{'s' if len(still) != 1 else ''} {', '.join(str(r) for r in still)}"
                 if still else ""), n),
        within(f"near the throughput peak: the settled rate within {NEAR_PEAK:.0%} of {source}", "settled rate",
               settled.values(), (1 - NEAR_PEAK) * peak_rate, (1 + NEAR_PEAK) * peak_rate, unit="kbps", digits=1),
    ]


def _visited(run_trace: pd.DataFrame) -> str:
    """The rates one run visited, in order (the first 10)."""
    visited: list[float] = []
    for v in (float(x) for x in run_trace.sort_values("time_s")["value"] if not math.isnan(float(x))):
        if not visited or abs(v - visited[-1]) > 1e-9:
            visited.append(v)
    return ", ".join(f"{v:.1f}" for v in visited[:10]) + (" ..." if len(visited) > 10 else "")


def table1(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    rc = data["rate-control"]
    rc.require(C_ALG1)
    series = rc.series
    metric = _rate_metric(series)
    trace = series[(series["metric"] == metric) & (series["entity"] == "flow") & (series["id"] == 0)]
    first_run = int(trace["run"].min())
    paths = line_figure(_rate_lines(series, trace, first_run), out / "table1",
                        title="Table 1: Algorithm 1's source rate over time (14 hops)", xlabel="time (s)", ylabel="kbps")
    end = float(series["time_s"].max())
    per_run = _settling(trace)  # run -> (settled rate, held since, distinct rates)
    if not per_run:
        raise NotReproduced(f"series {metric!r} is empty")
    checks = _settling_checks(per_run, end, data)
    values = sorted(v[0] for v in per_run.values())
    median = values[len(values) // 2] if len(values) % 2 else 0.5 * (values[len(values) // 2 - 1]
                                                                      + values[len(values) // 2])
    reading = (f"the runs settle at {', '.join(f'{v:.1f}' for v in values)} kbps (median {median:.1f}); they hold "
               f"their final rate from {', '.join(f'{per_run[r][1]:.1f}' for r in sorted(per_run))} s of "
               f"{end:.0f} s")
    numbers = [PaperNumber("converged rate (median over runs)", 142.5, median, "kbps", 1),
               PaperNumber("distinct rates until the search stops (run 0)", 6.0, float(per_run[first_run][2]),
                           digits=0)]
    rows = [("rates visited (kbps)", "240, 120, 180, 150, 135, 142.5", _visited(trace[trace["run"] == first_run])),
            ("time to converge", "\"several frame transmissions ... few milliseconds\"",
             f"{per_run[first_run][1]:.1f} s into run {first_run}")]
    notes = [f"Read from the series {metric!r} of every run (sampled every 0.1 s; the curves before the first rate "
             "are the aggressive-sending phase, which has no rate). Table 1 itself is a worked example with a "
             "scripted APR, checked exactly by the core's unit test (issue 4); the paper's 6 iterations are that "
             "example's, so the count here is for comparison only."]
    notes += stall_notes(rc.series[rc.series["case"] == C_ALG1] if "case" in rc.series.columns else rc.series,
                         rc.per_run("timeouts", "flow", C_ALG1, 0), what="the flow")
    return judged(reading, checks, paths=paths, notes=notes, numbers=numbers, rows=rows)
