"""Jehan and Radhamani: "Scalable TCP: better throughput in TCP congestion
control algorithms on MANETs" — seed 004.

The paper's MANET (section III, docs/scalable-manet.md): 20 nodes placed at
random in 500 x 500 m, AODV, IEEE 802.11, drop-tail / PriQueue of 50, one
FTP flow over TCP with 1448-byte segments, 200 s; the nodes stand still, or
move at 20 m/s from t = 20 s. It compares Scalable TCP, BIC and Vegas
(ns-2 TCP-Linux, Linux defaults) and plots, for one run each:

- Figs. 2-3: the congestion window over time (static, mobile);
- Figs. 4-5: the round-trip time over time (static, mobile);
- Figs. 6-7: the throughput over time (static, mobile).

hoplab runs the same scenario (`examples/manet-20-tcp.toml`, with its
decisions) over many runs: the random placement (and the nodes' paths)
changes with the run's seed, every controller sees the same placements
(common random numbers), so controllers are compared run by run. Figs. 2-5
draw run 0's trace, as the paper does; Figs. 6-7 draw the mean throughput
over runs per 10 s with 95 % intervals and run 0's trace thin behind it. A
summary table adds the mean throughput of each controller, static and
mobile, with 95 % intervals. TCP NewReno is drawn as a reference (not in
the paper) and is not part of any ranking.

The paper's findings are qualitative and sometimes vague ("Vegas giving good
result" for a window plot); each verdict states how the sentence is read and
gives the numbers, so the reading can be judged too.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoplab.papers import Experiment, ExperimentData, Figure, FigureResult, NotReproduced, Paper, judged, per_run
from hoplab.papers.stalls import stall_notes
from hoplab.papers.verdicts import Check, greater, less, within
from hoplab.papers.verdicts import differences as paired_differences
from hoplab.plots import Line, Panel, line_figure
from hoplab.stats import mean_ci

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PAPER"]

DURATION_S = 200.0
MOBILITY_START_S = 20.0
SPEED_MPS = 20.0

#: examples/manet-20-tcp.toml (see its comments for the decisions: 1 Mbps
#: data and basic rate and 250 m / 550 m as ns-2's defaults, the paper's
#: "initial window 30000" read as the advertised window; SACK on, as ns-2's
#: TCP-Linux recovers losses the Linux way). The paper simulated in ns-2:
#: `preset = "ns2"` (docs/scenario-reference.md, "Presets").
MANET: dict[str, Any] = {
    "name": "scalable-manet",
    "preset": "ns2",
    "duration_s": DURATION_S,
    "warmup_s": 0.0,
    "seed": 1,
    "radio": {"data_rate_mbps": 1.0, "basic_rate_mbps": 1.0, "tx_range_m": 250.0, "cs_range_m": 550.0},
    "mac": {"queue_packets": 50},
    "topology": {"kind": "random", "nodes": 20, "width_m": 500.0, "height_m": 500.0},
    "routing": {"protocol": "aodv"},
    "mobility": {"model": "static"},
    "tcp": {"rwnd_segments": 30000, "sack": True},
    "stats": {"series_interval_s": 0.5},
    "flows": [{"src": 0, "dst": 19, "transport": "tcp", "cc": "scalable", "app": "bulk", "packet_bytes": 1448}],
}

#: "Mobility 0 or 20 m/s, mobility start time 20th sec": every leg at
#: 20 m/s (minimum = maximum speed), no pause.
MANET_MOBILE: dict[str, Any] = {
    **copy.deepcopy(MANET),
    "mobility": {"model": "random_waypoint", "min_speed_mps": SPEED_MPS, "max_speed_mps": SPEED_MPS,
                 "pause_s": 0.0, "start_s": MOBILITY_START_S},
}

C_SCALABLE = "Scalable"
C_BIC = "BIC"
C_VEGAS = "Vegas"
C_NEWRENO = "NewReno (reference)"
#: The paper's three, in its order; NewReno is a reference only.
PAPER_CASES = (C_SCALABLE, C_BIC, C_VEGAS)
CASES: dict[str, dict[str, Any]] = {
    C_SCALABLE: {"flows.0.cc": "scalable"},
    C_BIC: {"flows.0.cc": "bic"},
    # ns-2.35's TCP-Linux carries Linux 2.6.22's tcp_vegas.c, whose diff is
    # the paper's (Expected - Actual) * BaseRTT: `diff = "brakmo"`
    # (docs/tcp-linux-parity.md); later Linux's default holds half the window.
    C_VEGAS: {"flows.0.cc": "vegas", "flows.0.cc_params.diff": "brakmo"},
    C_NEWRENO: {"flows.0.cc": "newreno"},
}
ALL_CASES = (*PAPER_CASES, C_NEWRENO)
_COLORS = {C_SCALABLE: "black", C_BIC: "tab:red", C_VEGAS: "tab:blue", C_NEWRENO: "tab:gray"}
_LINESTYLES = {C_SCALABLE: "-", C_BIC: "-.", C_VEGAS: "--", C_NEWRENO: ":"}

EXPERIMENTS = [
    Experiment(
        name="static",
        description="20 nodes at random in 500 x 500 m, no mobility, one FTP flow 0 -> 19: Scalable, BIC, Vegas "
                    "(TCP NewReno for reference)",
        scenario=MANET, cases=CASES, series=True,
        runs=30, duration_s=DURATION_S, warmup_s=0.0,
        quick_runs=5, quick_duration_s=DURATION_S, quick_warmup_s=0.0,
    ),
    Experiment(
        name="mobile",
        description="the same, nodes moving by random waypoint at 20 m/s from t = 20 s",
        scenario=MANET_MOBILE, cases=CASES, series=True,
        runs=30, duration_s=DURATION_S, warmup_s=0.0,
        quick_runs=5, quick_duration_s=DURATION_S, quick_warmup_s=0.0,
    ),
]

#: Width of the bins the throughput-over-time figures average over.
BIN_S = 10.0


# Reading the runs.
def _flow_series(data: ExperimentData, case: str, metric: str) -> pd.DataFrame:
    """Series rows (run, time_s, value) of flow 0's `metric` in `case`."""
    series = data.series
    if series.empty:
        raise NotReproduced(data.failure(case) or "no series")
    part = series[(series["entity"] == "flow") & (series["id"] == 0) & (series["metric"] == metric)
                  & (series["case"] == case)]
    if part.empty:
        raise NotReproduced(data.failure(case) or f"{case}: no {metric!r} series")
    return part[["run", "time_s", "value"]]


def _trace(data: ExperimentData, case: str, metric: str) -> tuple[int, pd.DataFrame]:
    """(run number, rows) of the lowest-numbered run of `case`."""
    part = _flow_series(data, case, metric)
    first = int(part["run"].min())
    return first, part[part["run"] == first].sort_values("time_s")


def _window(data: ExperimentData, case: str, metric: str, start: float, end: float | None = None) -> dict[int, float]:
    """Per run, the mean of `metric`'s samples in (start, end] (each sample
    covers the interval that ends at its time)."""
    part = _flow_series(data, case, metric)
    mask = part["time_s"] > start + 1e-9
    if end is not None:
        mask &= part["time_s"] <= end + 1e-9
    means = part[mask].groupby("run")["value"].mean()
    return {int(run): float(value) for run, value in means.items() if not math.isnan(float(value))}


def _cv(data: ExperimentData, case: str, start: float) -> dict[int, float]:
    """Per run, the coefficient of variation (std / mean) of cwnd after `start`."""
    part = _flow_series(data, case, "cwnd_segments")
    part = part[part["time_s"] > start + 1e-9]
    out: dict[int, float] = {}
    for run, rows in part.groupby("run"):
        values = rows["value"].astype(float)
        mean = float(values.mean())
        if mean > 0 and len(values) > 1:
            out[int(run)] = float(values.std(ddof=0)) / mean
    return out


def _goodput(data: ExperimentData, case: str) -> dict[int, float]:
    """Per run, flow 0's goodput over the whole run (kbps)."""
    rows = data.metric("goodput_kbps", "flow", case, 0)
    if rows.empty:
        raise NotReproduced(data.failure(case) or f"{case}: no runs")
    return per_run(rows)


def _stat(values: Mapping[int, float]) -> tuple[float, float]:
    mean, _, half = mean_ci(list(values.values()))
    return mean, half


def _fmt(values: Mapping[int, float], unit: str = "", digits: int = 0) -> str:
    mean, half = _stat(values)
    if math.isnan(mean):
        return "-"
    text = f"{mean:.{digits}f}"
    if not math.isnan(half):
        text += f" ± {half:.{digits}f}"
    return text + (f" {unit}" if unit else "")


def _ranking(values: Mapping[str, float], ascending: bool = True) -> list[str]:
    """Cases ordered by value (NaN last)."""
    return sorted(values, key=lambda c: (math.isnan(values[c]), values[c] if ascending else -values[c]))


#: "Equal" throughput: each pair's mean paired difference within this
#: share (factor - 1) of the pair's mean level.
EQUAL_FACTOR = 1.2


def _lower(what: str, a: str, b: str, values: Mapping[str, Mapping[int, float]], unit: str = "",
           digits: int = 0) -> Check:
    """The claim "a's `what` is lower than b's", paired by run."""
    return less(f"{what}: the first lower", f"{a} vs {b}", values[a], values[b], unit=unit, digits=digits)


def _higher(what: str, a: str, b: str, values: Mapping[str, Mapping[int, float]], unit: str = "",
            digits: int = 0, where: str = "") -> Check:
    """The claim "a's `what` is higher than b's", paired by run."""
    return greater(f"{what}: the first higher", f"{a} vs {b}{where}", values[a], values[b], unit=unit,
                   digits=digits)


def _style(case: str, **extra: Any) -> dict[str, Any]:
    return {"color": _COLORS[case], "linestyle": _LINESTYLES[case], **extra}


# Figures 2-5: one run's trace, judged on the means over runs.
def _trace_figure(
    data: ExperimentData, out: Path, stem: str, metric: str, title: str, ylabel: str, yscale: str = "linear",
) -> tuple[dict[str, Path], list[str]]:
    lines, notes = [], []
    run_shown: set[int] = set()
    for case in ALL_CASES:
        try:
            run, trace = _trace(data, case, metric)
        except NotReproduced as e:
            notes.append(f"{case}: not reproduced: {e}")
            continue
        run_shown.add(run)
        lines.append(Line(case, trace["time_s"].tolist(), trace["value"].tolist(), style=_style(case)))
    which = ", ".join(str(r) for r in sorted(run_shown)) or "-"
    paths = line_figure(lines, out / stem, title=title, xlabel="time (s)", ylabel=ylabel, yscale=yscale)
    notes.insert(0, f"The curves are run {which} (the same placement and node paths for every controller), "
                    f"sampled every 0.5 s, as the paper shows one run; the verdict uses every run.")
    for case in PAPER_CASES:
        data.require(case)
    return paths, notes


def _cwnd_figure(data: Mapping[str, ExperimentData], out: Path, mobile: bool) -> FigureResult:
    exp = data["mobile" if mobile else "static"]
    number = "3" if mobile else "2"
    where = "nodes moving at 20 m/s from t = 20 s" if mobile else "no mobility"
    paths, notes = _trace_figure(exp, out, f"fig{number}", "cwnd_segments",
                                 f"Fig. {number}: congestion window over time ({where}), run 0",
                                 "cwnd (segments)")
    start = MOBILITY_START_S
    cvs = {case: _cv(exp, case, start) for case in ALL_CASES if exp.failure(case) is None}
    windows = {case: _window(exp, case, "cwnd_segments", start) for case in cvs}
    mean_cv = {case: _stat(cvs[case])[0] for case in PAPER_CASES}
    order = _ranking(mean_cv)
    rows = [(f"{case}: cwnd after {start:.0f} s (segments, mean ± 95 % CI over runs)", "-",
             _fmt(windows[case], digits=1)) for case in ALL_CASES if case in windows]
    rows += [(f"{case}: variation of cwnd after {start:.0f} s (std / mean)",
              ("steady (the exception)" if case == C_VEGAS else "rises and falls") if not mobile else
              ("best" if case == C_VEGAS else "second" if case == C_SCALABLE else "-"),
              _fmt(cvs[case], digits=2)) for case in ALL_CASES if case in cvs]
    ranking = " < ".join(f"{c} {mean_cv[c]:.2f}" for c in order)
    what = f"variation of cwnd after {start:.0f} s"
    checks = [_lower(what, C_VEGAS, C_SCALABLE, cvs, digits=2), _lower(what, C_VEGAS, C_BIC, cvs, digits=2)]
    if not mobile:
        reading = (f"the paper's sentence is vague (\"increasing and decreasing in all algorithms without any "
                   f"similarities except TCP Vegas\"); read as: Vegas's window is the steady one, i.e. its variation "
                   f"(std / mean of cwnd after {start:.0f} s, per run) is lower than Scalable's and BIC's. Means over "
                   f"runs: {ranking}")
    else:
        checks.append(_lower(what, C_SCALABLE, C_BIC, cvs, digits=2))
        reading = (f"the paper's sentence is vague (\"TCP Vegas giving good result than other algorithms ... Scalable "
                   f"TCP giving second level good performance\" about a window plot); read as a ranking of "
                   f"steadiness (std / mean of cwnd after {start:.0f} s, per run): Vegas first, Scalable second. "
                   f"Means over runs: {ranking}")
    notes.append("Decision: a window plot has no \"better\"; hoplab reads the paper's cwnd sentences as steadiness "
                 "(the coefficient of variation of cwnd over time, per run) and also gives the mean window.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


def fig2(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _cwnd_figure(data, out, mobile=False)


def fig3(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _cwnd_figure(data, out, mobile=True)


def _rtt_figure(data: Mapping[str, ExperimentData], out: Path, mobile: bool) -> FigureResult:
    exp = data["mobile" if mobile else "static"]
    number = "5" if mobile else "4"
    where = "nodes moving at 20 m/s from t = 20 s" if mobile else "no mobility"
    paths, notes = _trace_figure(exp, out, f"fig{number}", "rtt_ms",
                                 f"Fig. {number}: round-trip time over time ({where}), run 0",
                                 "RTT (ms, log scale)", yscale="log")
    rtts = {case: _window(exp, case, "rtt_ms", 0.0) for case in ALL_CASES if exp.failure(case) is None}
    means = {case: _stat(rtts[case])[0] for case in PAPER_CASES}
    order = _ranking(means)
    ranking = " < ".join(f"{c} {means[c]:.0f} ms" for c in order)
    checks = [_lower("mean RTT", C_VEGAS, C_SCALABLE, rtts, "ms"), _lower("mean RTT", C_VEGAS, C_BIC, rtts, "ms"),
              _lower("mean RTT", C_SCALABLE, C_BIC, rtts, "ms")]
    reading = f"mean RTT over the run, means over runs: {ranking}"
    rows = [(f"{case}: mean RTT (ms)", "lowest" if case == C_VEGAS else "second" if case == C_SCALABLE else
             ("-" if case == C_NEWRENO else "highest"), _fmt(rtts[case], "ms")) for case in ALL_CASES if case in rtts]
    notes.append("The paper (under Figs. 4-5): \"TCP Vegas performance is better than other algorithms. But, the "
                 "algorithm Scalable TCP is the second highest\": among three, second best and second highest are "
                 "both the middle place, so the claim is read as Vegas < Scalable < BIC in RTT.")
    notes.append("RTT: the latest RTT sample (`rtt_ms`), sampled every 0.5 s and averaged over the run, then over "
                 "runs.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


def fig4(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _rtt_figure(data, out, mobile=False)


def fig5(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _rtt_figure(data, out, mobile=True)


# Figures 6-7: throughput over time, mean over runs.
def _binned(
    data: ExperimentData, case: str, bin_s: float, run: int | None = None,
) -> tuple[list[float], list[float], list[float]]:
    """Bin centres, mean over runs (or of one run) and 95 % half-width of
    the goodput per bin."""
    part = _flow_series(data, case, "goodput_kbps").copy()
    if run is not None:
        part = part[part["run"] == run]
    part["bin"] = ((part["time_s"] - 1e-9) // bin_s).astype(int)
    per_run = part.groupby(["bin", "run"])["value"].mean().reset_index()
    xs, ys, errs = [], [], []
    for b, rows in per_run.groupby("bin"):
        mean, _, half = mean_ci([float(v) for v in rows["value"]])
        xs.append((int(b) + 0.5) * bin_s)
        ys.append(mean)
        errs.append(half)
    return xs, ys, errs


def _throughput_figure(data: Mapping[str, ExperimentData], out: Path, mobile: bool) -> FigureResult:
    exp = data["mobile" if mobile else "static"]
    number = "7" if mobile else "6"
    where = "nodes moving at 20 m/s from t = 20 s" if mobile else "no mobility"
    lines, notes = [], []
    for i, case in enumerate(ALL_CASES):
        try:
            run, _ = _trace(exp, case, "goodput_kbps")
            xs, ys, errs = _binned(exp, case, BIN_S)
            trace_x, trace_y, _ = _binned(exp, case, BIN_S, run)
        except NotReproduced as e:
            notes.append(f"{case}: not reproduced: {e}")
            continue
        shift = (i - 1.5) * BIN_S / 12  # side by side, so that the error bars can be told apart
        lines.append(Line(f"{case}: mean over runs", [x + shift for x in xs], ys, errs, style=_style(case)))
        lines.append(Line(f"{case}: run {run}", trace_x, trace_y, legend=False,
                          style=_style(case, linewidth=0.8, alpha=0.4, marker="", linestyle="-")))
    paths = line_figure(lines, out / f"fig{number}", title=f"Fig. {number}: throughput over time ({where})",
                        xlabel="time (s)", ylabel=f"throughput (kbps, {BIN_S:.0f} s bins)", ylim=(0.0, None))
    for case in PAPER_CASES:
        exp.require(case)
    end = max(float(t) for t in exp.series["time_s"])
    notes.insert(0, f"Lines with markers: the mean over runs of the goodput in {BIN_S:.0f} s bins, with 95 % "
                    "intervals (drawn side by side); thin lines in the same colour: run 0 alone (the paper shows "
                    "one run). Throughput = in-order payload delivered to the receiving application, so a hole "
                    "filled after a stall releases a burst.")
    if not mobile:
        early = {case: _window(exp, case, "goodput_kbps", 0.0, 50.0) for case in ALL_CASES if exp.failure(case) is None}
        late = {case: _window(exp, case, "goodput_kbps", 50.0, end) for case in early}
        late_means = {case: _stat(late[case])[0] for case in PAPER_CASES}
        early_means = {case: _stat(early[case])[0] for case in PAPER_CASES}
        checks = []
        for a, b in ((C_SCALABLE, C_BIC), (C_SCALABLE, C_VEGAS), (C_BIC, C_VEGAS)):
            # Paired differences against a band of +-20 % of the pair's mean
            # level (a mean of per-run ratios would be ruled by the runs
            # where one of the two nearly stalls).
            level = (late_means[a] + late_means[b]) / 2
            band = (EQUAL_FACTOR - 1) * level
            checks.append(within(f"equal after 50 s: throughput difference over 50-{end:.0f} s within "
                                 f"{EQUAL_FACTOR - 1:.0%} of the pair's mean", f"{a} - {b}",
                                 paired_differences(late[a], late[b]), -band, band, unit="kbps", digits=0))
        checks += [_lower("throughput 0-50 s", C_BIC, C_SCALABLE, early, "kbps"),
                   _lower("throughput 0-50 s", C_BIC, C_VEGAS, early, "kbps")]
        reading = ("throughput over 50-" + f"{end:.0f} s: " + ", ".join(f"{c} {late_means[c]:.0f}" for c in PAPER_CASES)
                   + " kbps; over 0-50 s: " + ", ".join(f"{c} {early_means[c]:.0f}" for c in PAPER_CASES) + " kbps")
        rows = [(f"{case}: throughput 0-50 s (kbps)", "very low" if case == C_BIC else "-", _fmt(early[case]))
                for case in ALL_CASES if case in early]
        rows += [(f"{case}: throughput 50-{end:.0f} s (kbps)", "equal for all" if case != C_NEWRENO else "-",
                  _fmt(late[case])) for case in ALL_CASES if case in late]
    else:
        whole = {case: _goodput(exp, case) for case in ALL_CASES if exp.failure(case) is None}
        burst = {case: _window(exp, case, "goodput_kbps", MOBILITY_START_S, 50.0) for case in whole}
        whole_means = {case: _stat(whole[case])[0] for case in PAPER_CASES}
        burst_means = {case: _stat(burst[case])[0] for case in PAPER_CASES}
        top = _ranking(whole_means, ascending=False)
        top_burst = _ranking(burst_means, ascending=False)
        checks = [_higher("throughput over the run", C_SCALABLE, C_BIC, whole, "kbps"),
                  _higher("throughput over the run", C_SCALABLE, C_VEGAS, whole, "kbps"),
                  _higher("throughput 20-50 s", C_VEGAS, C_SCALABLE, burst, "kbps", where=", 20-50 s"),
                  _higher("throughput 20-50 s", C_VEGAS, C_BIC, burst, "kbps", where=", 20-50 s")]
        reading = (f"throughput over 0-{end:.0f} s: " + ", ".join(f"{c} {whole_means[c]:.0f}" for c in top)
                   + " kbps; over 20-50 s: " + ", ".join(f"{c} {burst_means[c]:.0f}" for c in top_burst) + " kbps")
        rows = [(f"{case}: throughput 0-{end:.0f} s (kbps)", "highest" if case == C_SCALABLE else "lower",
                 _fmt(whole[case])) for case in ALL_CASES if case in whole]
        rows += [(f"{case}: throughput 20-50 s (kbps)", "highest" if case == C_VEGAS else "-", _fmt(burst[case]))
                 for case in ALL_CASES if case in burst]
    return judged(reading, checks, rows=rows, paths=paths, notes=notes + _stall_notes(exp))


def _stall_notes(exp: ExperimentData) -> list[str]:
    """Each controller's stalls per run (no delivery for more than a few RTTs), with their causes."""
    notes = []
    for case in ALL_CASES:
        if exp.failure(case) is not None or exp.series.empty:
            continue
        notes += stall_notes(exp.series[exp.series["case"] == case], exp.per_run("timeouts", "flow", case, 0),
                             what=f"{case}'s flow")
    return notes


def fig6(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _throughput_figure(data, out, mobile=False)


def fig7(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _throughput_figure(data, out, mobile=True)


# Summary: mean throughput per controller and mobility.
def summary(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    per: dict[str, dict[str, dict[int, float]]] = {}
    notes: list[str] = []
    for name in ("static", "mobile"):
        exp = data[name]
        per[name] = {}
        for case in ALL_CASES:
            if exp.failure(case) is None:
                per[name][case] = _goodput(exp, case)
            else:
                notes.append(f"{case}, {name}: not reproduced: {exp.failure(case)}")
    lines = []
    for case in ALL_CASES:
        xs, ys, errs = [], [], []
        for name, speed in (("static", 0.0), ("mobile", SPEED_MPS)):
            if case in per[name]:
                mean, half = _stat(per[name][case])
                xs.append(speed)
                ys.append(mean)
                errs.append(half)
        if xs:
            # Means only: the placements differ so much that the unpaired
            # intervals span most of the axis; the lower panel pairs runs.
            lines.append(Line(f"{case} (mean over runs)", xs, ys, style=_style(case)))
    differences = []
    for i, rival in enumerate((C_BIC, C_VEGAS)):
        xs, ys, errs = [], [], []
        for name, speed in (("static", 0.0), ("mobile", SPEED_MPS)):
            if C_SCALABLE in per[name] and rival in per[name]:
                mean, _, half = mean_ci(paired_differences(per[name][C_SCALABLE], per[name][rival]))
                xs.append(speed + (i - 0.5) * 0.6)  # side by side
                ys.append(mean)
                errs.append(half)
        if xs:
            differences.append(Line(f"Scalable - {rival}, paired by run (95 % CI)", xs, ys, errs,
                                    style={"color": _COLORS[rival], "marker": "D", "linestyle": "none"}))
    paths = line_figure(lines, out / "summary", title="Summary: mean throughput per controller, 0 and 20 m/s",
                        xlabel="node speed (m/s; 0 = no mobility)", ylabel="throughput over the run (kbps)",
                        xticks=[0.0, SPEED_MPS], ylim=(0.0, None),
                        lower=Panel(differences, "Scalable - other (kbps)") if differences else None)
    for name in ("static", "mobile"):
        for case in PAPER_CASES:
            data[name].require(case)
    parts, checks = [], []
    for name in ("static", "mobile"):
        means = {case: _stat(per[name][case])[0] for case in PAPER_CASES}
        order = _ranking(means, ascending=False)
        where = f", {'no mobility' if name == 'static' else '20 m/s'}"
        checks += [_higher("throughput over the run", C_SCALABLE, C_BIC, per[name], "kbps", where=where),
                   _higher("throughput over the run", C_SCALABLE, C_VEGAS, per[name], "kbps", where=where)]
        parts.append(f"{name}: " + ", ".join(f"{c} {means[c]:.0f}" for c in order) + " kbps")
    reading = "mean throughput over the run, means over runs: " + "; ".join(parts)
    rows = []
    for case in ALL_CASES:
        for name in ("static", "mobile"):
            if case in per[name]:
                paper = ("highest" if case == C_SCALABLE else "low") if case != C_NEWRENO else "not in the paper"
                rows.append((f"{case}, {'no mobility' if name == 'static' else '20 m/s'}: throughput (kbps, "
                             "mean ± 95 % CI)", paper, _fmt(per[name][case])))
    hops = data["static"].metric("hops", "flow", C_SCALABLE, 0)
    if not hops.empty:
        counts = hops["value"].value_counts().sort_index()
        notes.append("Route length at the start over the runs' placements: "
                     + ", ".join(f"{int(h)} hop{'s' if h != 1 else ''}: {int(n)} run{'s' if n != 1 else ''}"
                                 for h, n in counts.items()) + ".")
    notes.append("The paper's conclusion: \"In this small MANET scenario, the algorithm Scalable TCP provided good "
                 "throughput than other algorithms ... Except Scalable TCP, all other assessed algorithms provided "
                 "low throughput\"; read as: Scalable's mean throughput is the highest of the three, with and "
                 "without mobility. Differences are paired by run (the same placement); the lower panel shows "
                 "them with their 95 % intervals, which is what the verdict reads.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


FIGURES = [
    Figure("Fig. 2", "Congestion window over time, no mobility", ["static"],
           "the window rises and falls in every algorithm \"without any similarities except TCP Vegas\"", fig2),
    Figure("Fig. 3", "Congestion window over time, nodes moving at 20 m/s from t = 20 s", ["mobile"],
           "Vegas gives the best result and Scalable the second best (the paper does not say by what measure)",
           fig3),
    Figure("Fig. 4", "Round-trip time over time, no mobility", ["static"],
           "Vegas has the best (lowest) RTT; Scalable is second", fig4),
    Figure("Fig. 5", "Round-trip time over time, nodes moving at 20 m/s from t = 20 s", ["mobile"],
           "Vegas has the best (lowest) RTT; Scalable is second", fig5),
    Figure("Fig. 6", "Throughput over time, no mobility", ["static"],
           "after 50 s all algorithms give equal throughput; in the initial stage BIC's throughput is very low",
           fig6),
    Figure("Fig. 7", "Throughput over time, nodes moving at 20 m/s from t = 20 s", ["mobile"],
           "Scalable's throughput is better than the others' over the run; Vegas does better from 20 to 50 s",
           fig7),
    Figure("Summary", "Mean throughput per controller, without and with mobility (not a figure of the paper)",
           ["static", "mobile"],
           "Scalable TCP gives better throughput than BIC and Vegas; the others give low throughput (the paper's "
           "conclusion)", summary),
]

PAPER = Paper(
    id="scalable-manet",
    title="Scalable TCP: better throughput in TCP congestion control algorithms on MANETs (Jehan and "
          "Radhamani)",
    citation="M. Jehan, G. Radhamani, \"Scalable TCP: Better Throughput in TCP Congestion Control Algorithms on "
             "MANETs\", seed 004",
    source="shared/seeds/004_5cac71727f132319.txt",
    experiments=EXPERIMENTS,
    figures=FIGURES,
    notes=[
        "Network of section III (docs/network-model.md, docs/scalable-manet.md; `examples/manet-20-tcp.toml`): 20 nodes placed uniformly at "
        "random in 500 x 500 m, AODV with link-layer feedback, 802.11 with RTS/CTS at ns-2's default 1 Mbps data "
        "and basic rate, 250 m transmission and 550 m carrier-sense range, drop-tail interface queue of 50 "
        "(routing packets first), one bulk (FTP) flow from node 0 to node 19 over TCP with 1448-byte segments, "
        "200 s; the paper's \"TCP initial window 30000\" is read as the advertised window (30000 segments).",
        "Mobility: none, or random waypoint with every leg at 20 m/s (minimum = maximum speed), no pause, from "
        "t = 20 s (the paper: \"Mobility 0 or 20 m/s, mobility start time 20th sec\"; it does not give the "
        "pause time).",
        "Controllers: Scalable TCP (a = 0.01, b = 0.875, as the paper states), BIC and Vegas with the Linux "
        "defaults, TCP NewReno as a reference (not in the paper). Every run measures from t = 0 (no warm-up), as "
        "the paper's time plots do.",
        "The paper shows one run per figure and no number of runs; hoplab runs 30 placements per controller "
        "(full) or 5 (--quick), each 200 s in both modes: the findings are about the windows 0-50 s, 20-50 s and "
        "50-200 s, and a run costs well under a second. Each run's placement and node paths depend only on its "
        "run number, so every controller meets the same networks.",
        "The paper's throughput is \"packets reaching the destination per ms/second\"; hoplab plots goodput "
        "(in-order payload delivered to the application) in kbps.",

        "Loss recovery: SACK (RFC 2018 blocks, RFC 6675 recovery; `tcp.sack = true` in the scenario), because "
        "the paper's ns-2 TCP-Linux recovers losses the Linux way, with SACK. With an advertised window of 30000 "
        "segments, Scalable, BIC and NewReno grow the window far past the 50-packet queues (about 3 s of "
        "queueing at 1 Mbps over two hops) and lose many segments per window; SACK resends them all within "
        "about a round trip. Without SACK (`tcp.sack = false`, NewReno recovery: one hole per round trip, then "
        "a timeout) Scalable and BIC stall for tens of seconds: measured over 30 runs, 110-140 kbps against "
        "Vegas's 500-560, and of Figs. 3-7 only Fig. 5 held. Vegas keeps its window near the path's capacity and "
        "seldom loses, so SACK changes little for it.",
    ],
    not_covered=["Fig. 1 (the scenario's picture) holds no data."],
)
