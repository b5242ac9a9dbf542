"""tcpw-br's multi-flow figures: Fig. 7 (Jain's fairness of three TCPW BR
flows against the delay), Fig. 8 (TCP-friendliness: TCPW BR flows beside
NewReno flows) and Fig. 9 (the windows of two TCPW and two TCPW BR flows
over a 10 Mb/s bottleneck, and how closely each pair's windows follow each
other)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hoplab.stats import jain_index
from hoplab.papers import ExperimentData, FigureResult, NotReproduced, judged
from hoplab.papers.tcpw_br.common import STYLES, fmt, mean_of, ratios
from hoplab.papers.tcpw_br.experiments import (
    BOTTLENECK_DELAY,
    BR,
    CONVERGENCE_PAIRS,
    FRIENDLY_COUNTS,
    TCPW,
    friendly_case,
)
from hoplab.papers.verdicts import Check, PaperNumber, above, less
from hoplab.plots import Line, line_figure
from hoplab.stats import mean_ci

__all__ = ["FAIRNESS_FLOOR", "KEPT_SHARE", "PAPER_JAIN", "fig7", "fig8", "fig9", "window_gap"]

#: Fig. 7: "the TCPW BR fairness index has been around 0.9".
PAPER_JAIN = 0.9
#: Decision: "around 0.9" is judged as at least this at every delay.
FAIRNESS_FLOOR = 0.8
#: Decision: "friendly to NewReno" is judged as NewReno flows keeping at
#: least this share of the goodput they get among NewReno flows only.
KEPT_SHARE = 0.8


def _goodputs(data: ExperimentData, case: str | None = None) -> dict[tuple[float, int], dict[int, float]]:
    """{(point or 0, run): {flow id: goodput}}."""
    rows = data.metric("goodput_kbps", "flow", case)
    if rows.empty:
        data.require(case)
        raise NotReproduced(f"{case or data.experiment.name}: no goodput")
    param = BOTTLENECK_DELAY if BOTTLENECK_DELAY in rows.columns else None
    points = rows[param].astype(float).tolist() if param else [0.0] * len(rows)
    out: dict[tuple[float, int], dict[int, float]] = {}
    for point, run, ident, value in zip(points, rows["run"], rows["id"], rows["value"], strict=True):
        out.setdefault((point, int(run)), {})[int(ident)] = float(value)
    return out


def fig7(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["fairness"]
    by_run = _goodputs(exp)
    jain: dict[float, dict[int, float]] = {}
    for (delay, run), flows in by_run.items():
        jain.setdefault(delay, {})[run] = jain_index([flows[i] for i in sorted(flows)])
    delays = sorted(jain)
    stats = [mean_ci(list(jain[d].values())) for d in delays]
    paths = line_figure([Line("Jain's index, 3 TCPW BR flows", delays, [s[0] for s in stats], [s[2] for s in stats],
                              style=STYLES[BR])], out / "fig7",
                        title="Fig. 7: fairness of three TCPW BR flows vs delay (5 Mb/s bottleneck, 1 % loss)",
                        xlabel="one-way delay of the R1 - base station link (ms)", ylabel="Jain's fairness index",
                        xticks=delays, ylim=(0.0, 1.05))
    checks: list[Check] = [above(f"Jain's index around 0.9: at least {FAIRNESS_FLOOR:g}", f"{d:g} ms", jain[d].values(),
                                 FAIRNESS_FLOOR, digits=3) for d in delays]
    numbers = [PaperNumber("Jain's index of 3 TCPW BR flows, over the delays", PAPER_JAIN,
                           mean_ci([v for d in delays for v in jain[d].values()])[0], "", 3)]
    reading = "Jain's index by delay: " + "; ".join(f"{d:g} ms: {mean_of(jain[d]):.3f}" for d in delays)
    rows = [(f"{d:g} ms: Jain's index", "about 0.9", fmt(jain[d], digits=3)) for d in delays]
    notes = [
        "Three TCPW BR flows, each from its own sender to its own receiver (each with its own 5 Mb/s last hop losing "
        "1 % of packets each way), sharing the link from the router to the base station, set to 5 Mb/s (the paper: "
        "\"the bottleneck bandwidth to 5M\"); its one-way delay is the x axis. Jain's index (sum x)^2 / (n sum x^2) "
        "of the three goodputs, per run.",
        f"Decision: the paper's \"around 0.9\" is judged as at least {FAIRNESS_FLOOR:g} at every delay. The section's "
        "equations are about flows of different RTTs, but its experiment varies one delay that all three share; "
        "hoplab does the same.",
    ]
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


def fig8(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["friendliness"]
    baseline_case = friendly_case(0)
    base = {run: sum(flows.values()) / len(flows) for (_, run), flows in _goodputs(exp, baseline_case).items()}
    friendliness: dict[int, dict[int, float]] = {}
    kept: dict[int, dict[int, float]] = {}
    for k in (k for k in FRIENDLY_COUNTS if k > 0):
        if exp.failure(friendly_case(k)) is not None:
            continue
        br_mean, nr_mean = {}, {}
        for (_, run), flows in _goodputs(exp, friendly_case(k)).items():
            br_mean[run] = sum(flows[i] for i in flows if i < k) / k
            nr_mean[run] = sum(flows[i] for i in flows if i >= k) / (len(flows) - k)
        friendliness[k] = ratios(br_mean, nr_mean)
        kept[k] = ratios(nr_mean, base)
    if not kept:
        raise NotReproduced("no mixed runs")
    ks = sorted(kept)

    def line(label: str, values: Mapping[int, Mapping[int, float]], style: dict[str, object]) -> Line:
        stats = [mean_ci(list(values[k].values())) for k in ks]
        return Line(label, [float(k) for k in ks], [s[0] for s in stats], [s[2] for s in stats], style=style)

    paths = line_figure([line("Fr: a TCPW BR flow's goodput / a NewReno flow's", friendliness, STYLES[BR]),
                         line("a NewReno flow's goodput / among 5 NewReno flows", kept, STYLES["NewReno"])],
                        out / "fig8", title="Fig. 8: TCPW BR beside NewReno (5 flows, 5 Mb/s, 1 % loss)",
                        xlabel="TCPW BR flows of 5", ylabel="ratio", xticks=[float(k) for k in ks], ylim=(0.0, None))
    checks = [above(f"NewReno flows keep at least {KEPT_SHARE:.0%} of their goodput among NewReno flows only",
                    f"{k} TCPW BR + {5 - k} NewReno", kept[k].values(), KEPT_SHARE, digits=3) for k in ks]
    reading = ("per flow, TCPW BR / NewReno goodput (Fr): " + "; ".join(f"{k} BR: {mean_of(friendliness[k]):.2f}"
                                                                       for k in ks)
               + "; a NewReno flow keeps " + ", ".join(f"{100 * mean_of(kept[k]):.0f} %" for k in ks)
               + f" of its goodput among NewReno flows only ({mean_of(base):.0f} kbps)")
    rows = [row for k in ks for row in ((f"{k} TCPW BR: Fr (per-flow goodput ratio)", "-", fmt(friendliness[k], digits=2)),
                                        (f"{k} TCPW BR: NewReno flows' goodput kept", "friendly",
                                         fmt({r: 100 * v for r, v in kept[k].items()}, "%", digits=0)))]
    notes = [
        "Five flows, each from its own sender to its own receiver (1 % loss on each last hop, each way), sharing a 5 "
        "Mb/s link from the router to the base station; k of them TCPW BR, the others NewReno, and a run of five "
        "NewReno flows as the reference, every case with the same seeds.",
        "Decision: the paper's Fr (\"link utilization of non-TCP flows / link utilization of TCP flows\") is read as "
        "a TCPW BR flow's goodput over a NewReno flow's and drawn; \"TCPW BR is friendly to NewReno\" is judged as "
        f"the NewReno flows keeping at least {KEPT_SHARE:.0%} of the per-flow goodput they get among five NewReno "
        "flows (paired by run): TCPW BR may take what NewReno leaves unused, not what NewReno would have had.",
    ]
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


def window_gap(a: Mapping[float, float], b: Mapping[float, float], after_s: float) -> float:
    """Mean over common samples after `after_s` of |a - b| / ((a + b) / 2)."""
    gaps = [abs(a[t] - b[t]) / ((a[t] + b[t]) / 2) for t in sorted(set(a) & set(b)) if t > after_s and a[t] + b[t] > 0]
    return sum(gaps) / len(gaps) if gaps else float("nan")


def fig9(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["convergence"]
    series = exp.series
    if series.empty:
        exp.require()
        raise NotReproduced("no series")
    cwnd = series[(series["entity"] == "flow") & (series["metric"] == "cwnd_segments")]
    windows: dict[int, dict[int, dict[float, float]]] = {}
    for row in cwnd.itertuples(index=False):
        windows.setdefault(int(row.run), {}).setdefault(int(row.id), {})[round(float(row.time_s), 6)] = float(row.value)
    warmup_s = exp.experiment.warmup_s  # the same, full or quick
    gaps = {name: {run: window_gap(flows[a], flows[b], warmup_s) for run, flows in windows.items()
                   if a in flows and b in flows} for name, (a, b) in CONVERGENCE_PAIRS.items()}
    first = min(windows)
    lines = []
    for name, pair in CONVERGENCE_PAIRS.items():
        for i, ident in enumerate(pair):
            trace = windows[first].get(ident, {})
            ts = sorted(trace)
            lines.append(Line(f"{name} flow {ident}", ts, [trace[t] for t in ts],
                              style={**STYLES[name], "marker": None, "linewidth": 0.8, "alpha": 1.0 if i == 0 else 0.6}))
    paths = line_figure(lines, out / "fig9", title=f"Fig. 9: congestion windows, 2 TCPW + 2 TCPW BR flows (run {first})",
                        xlabel="time (s)", ylabel="cwnd (segments)", ylim=(0.0, None))
    checks = [less("TCPW BR's two windows closer than TCPW's", "mean relative gap, TCPW BR vs TCPW", gaps[BR],
                   gaps[TCPW], digits=3)]
    reading = (f"mean relative gap between the pair's windows after the warm-up: TCPW {mean_of(gaps[TCPW]):.3f}, "
               f"TCPW BR {mean_of(gaps[BR]):.3f}")
    rows = [(f"{name}: mean |cwnd_a - cwnd_b| / mean cwnd", "TCPW BR more convergent" if name == BR else "poor",
             fmt(gaps[name], digits=3)) for name in CONVERGENCE_PAIRS]
    notes = [
        "Four flows, two TCPW (flows 0, 1) and two TCPW BR (flows 2, 3), each to its own receiver (1 % loss on each "
        "last hop, each way), sharing a 10 Mb/s link from the router to the base station, 100 s; windows sampled "
        "every 0.2 s. The figure draws the lowest-numbered run; its spikes are fast recovery's window inflation "
        "(one segment per duplicate ACK, RFC 6582) in long recoveries of several losses.",
        "Decision: \"more convergent\" is read as the pair's windows staying closer: per run, the mean over the "
        "samples after the warm-up of |cwnd_a - cwnd_b| / ((cwnd_a + cwnd_b) / 2), compared between the pairs, runs "
        "paired.",
    ]
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)
