"""Tables 1 and 4 and Fig. 3 of tcp-ra-2009: what TCP-RA's receiver made of
each lost segment, against its true cause, on the 11 x 7 grid with 8, 12
and 16 TCP-RA flows (`grid` experiment; Fig. 3 also reads the lone flow of
Fig. 4, `hops`).

- Table 1: the congestion grade (slight / middle / heavy) the receiver was
  in when it found each loss, by true cause (`flows[].loss_grades`, as
  scalars `graded_<truth>_<grade>`).
- Table 4: its verdict (congestion / dubious / wireless) by true cause
  (`flows[].loss_classification`, as scalars
  `classified_<truth>_as_<verdict>`).
- Fig. 3: the accuracies A_c and A_w (dubious counts as wrong) against the
  number of flows, and by hop count.

True causes are hoplab's ground truth: queue overflow, MAC retry limit and
no route are congestion; a channel error (and a route break it caused) is
wireless; "not lost" is a gap whose segment was never dropped (reordering,
a late retransmission), which the paper has no column for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hoplab.flatten import table_column
from hoplab.papers import ExperimentData, FigureResult, NotReproduced, judged
from hoplab.papers.tcp_ra_2009.common import fmt, save_figure
from hoplab.papers.tcp_ra_2009.experiments import C_RA, DST, FLOW_COUNTS, flows_case, hops_of
from hoplab.papers.verdicts import NUMBER_TOLERANCE, Check, PaperNumber, above, less
from hoplab.plots import Line, draw_figure, line_figure
from hoplab.run import LOSS_GRADES, LOSS_TRUE_CAUSES, LOSS_VERDICTS
from hoplab.stats import mean_ci

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AC_FLOOR",
    "AW_FLOOR",
    "GRADES",
    "HEAVY_FLOOR",
    "LIGHT_FLOOR",
    "PAPER_AC",
    "PAPER_AW",
    "TABLE1",
    "TABLE4",
    "TRUTHS",
    "VERDICTS",
    "fig3",
    "grade_name",
    "metric_name",
    "table1",
    "table4",
]

#: The true causes, verdicts and congestion grades, as the core names them.
TRUTHS, VERDICTS, GRADES = LOSS_TRUE_CAUSES, LOSS_VERDICTS, LOSS_GRADES
#: The two causes the paper has columns for.
CAUSES = ("congestion", "wireless")

#: Table 1, percent of each true cause's losses (columns) per grade (rows).
#: The paper's text swaps the wireless column's first two numbers ("44 %
#: wireless losses ... in slight", "47 % ... in middle"); the table's are kept.
TABLE1: dict[tuple[str, str], float] = {
    ("wireless", "slight"): 47.0, ("wireless", "middle"): 44.0, ("wireless", "heavy"): 9.0,
    ("congestion", "slight"): 1.0, ("congestion", "middle"): 23.0, ("congestion", "heavy"): 76.0,
}
#: Table 1's claim "congestion losses happen in heavy congestion, wireless
#: losses in slight or middle", read as each share at least the paper's less
#: the number tolerance (25 %).
HEAVY_FLOOR = (1 - NUMBER_TOLERANCE) * TABLE1[("congestion", "heavy")]
LIGHT_FLOOR = (1 - NUMBER_TOLERANCE) * (TABLE1[("wireless", "slight")] + TABLE1[("wireless", "middle")])

#: Table 4, percent of each true cause's losses (columns) per verdict (rows).
TABLE4: dict[tuple[str, str], float] = {
    ("congestion", "congestion"): 80.0, ("congestion", "dubious"): 15.0, ("congestion", "wireless"): 5.0,
    ("wireless", "congestion"): 6.0, ("wireless", "dubious"): 18.0, ("wireless", "wireless"): 76.0,
}
#: The paper's average accuracies (section 3.2).
PAPER_AC, PAPER_AW = 80.0, 76.0
#: Table 4's claim "most losses are classified right", read as each
#: accuracy at least the paper's less the number tolerance (25 %).
AC_FLOOR = (1 - NUMBER_TOLERANCE) * PAPER_AC
AW_FLOOR = (1 - NUMBER_TOLERANCE) * PAPER_AW
_TOLERANCE = f"{NUMBER_TOLERANCE * 100:.0f} %"


def metric_name(truth: str, verdict: str) -> str:
    """The scalar (and flows DataFrame column) counting `truth` losses the receiver judged `verdict`."""
    return table_column("loss_classification", truth, verdict)


def grade_name(truth: str, grade: str) -> str:
    """The scalar (and flows DataFrame column) counting `truth` losses found at congestion grade `grade`."""
    return table_column("loss_grades", truth, grade)


#: (true cause, verdict or grade) -> losses.
Counts = dict[tuple[str, str], float]
Metric = Callable[[str, str], str]


def _counts_of(frame: pd.DataFrame, metric: Metric, columns: Sequence[str]) -> dict[int, Counts]:
    """Per run, the counts of tidy rows `frame`, summed over the run's flows."""
    out: dict[int, Counts] = {}
    for truth in TRUTHS:
        for column in columns:
            rows = frame[frame["metric"] == metric(truth, column)]
            for run, value in rows.groupby("run")["value"].sum().items():
                out.setdefault(int(run), {})[(truth, column)] = float(value)
    return out


def _per_case(data: ExperimentData, cases: Sequence[str], metric: Metric, columns: Sequence[str],
              what: str) -> dict[str, dict[int, Counts]]:
    """Per case with counted losses, per run, the counts; NotReproduced if
    no run carries any (`what` names the report field)."""
    out: dict[str, dict[int, Counts]] = {}
    for case in cases:
        if data.failure(case) is not None or data.scalars.empty:
            continue
        frame = data.scalars[(data.scalars["entity"] == "flow") & (data.scalars["case"] == case)]
        runs = _counts_of(frame, metric, columns)
        if runs:
            out[case] = runs
    if not out:
        for case in cases:
            data.require(case)
        raise NotReproduced(f"the runs carry no {what}: the core's `cc = \"tcp_ra\"` counts them against the "
                            "true causes")
    return out


def _total(counts: Counts, truth: str) -> float:
    return sum(n for (t, _), n in counts.items() if t == truth)


def _shares(runs: Mapping[int, Counts], truth: str, *columns: str) -> dict[int, float]:
    """Per run, the percent of `truth` losses in `columns` (runs without such losses left out)."""
    return {run: 100.0 * sum(c.get((truth, col), 0.0) for col in columns) / _total(c, truth)
            for run, c in runs.items() if _total(c, truth) > 0}


def _pooled(runs: Sequence[Mapping[int, Counts]], truth: str, column: str) -> tuple[float, float]:
    """(percent of all `truth` losses over every run given that are in
    `column`; the number of `truth` losses)."""
    total = sum(_total(c, truth) for part in runs for c in part.values())
    hit = sum(c.get((truth, column), 0.0) for part in runs for c in part.values())
    return (100.0 * hit / total if total else math.nan), total


def _percent(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.0f} %"


def _matrix_figure(per_case: Mapping[str, Mapping[int, Counts]], columns: Sequence[str],
                   paper: Mapping[tuple[str, str], float], stem: Path, title: str, xlabel: str,
                   column_name: str) -> dict[str, Path]:
    """A table of shares as a figure: per true cause, its shares over
    `columns` (pooled over every run, with the 95 % interval of the per-run
    shares), the paper's dashed beside; CSV: the table itself."""
    import pandas as pd

    every = list(per_case.values())
    every_run = [c for part in every for c in part.values()]
    x = [float(i + 1) for i in range(len(columns))]
    lines, records = [], []
    for truth, color in zip(CAUSES, ("black", "tab:blue"), strict=True):
        pooled = [_pooled(every, truth, col)[0] for col in columns]
        halves = [mean_ci([100.0 * c.get((truth, col), 0.0) / _total(c, truth) for c in every_run
                           if _total(c, truth) > 0])[2] for col in columns]
        lines.append(Line(f"{truth} losses, hoplab (all runs pooled; 95 % CI of the per-run shares)", x, pooled,
                          halves, style={"color": color, "marker": "o", "linestyle": "-"}))
        lines.append(Line(f"{truth} losses, the paper", x, [paper[(truth, col)] for col in columns],
                          style={"color": color, "marker": "x", "linestyle": "--", "alpha": 0.6}))
    for truth in TRUTHS:
        for col in columns:
            share, losses = _pooled(every, truth, col)
            records.append({"true_cause": truth, column_name: col, "hoplab_percent": share,
                            "paper_percent": paper.get((truth, col), math.nan), "losses": losses})
    fig = draw_figure(lines, title=title, xlabel=xlabel, ylabel="share of the true cause's losses (%)", xticks=x,
                      ylim=(0.0, 100.0))
    fig.axes[0].set_xticks(x, list(columns))
    return save_figure(fig, stem, pd.DataFrame(records))


def _matrix_rows(every: Sequence[Mapping[int, Counts]], columns: Sequence[str],
                 paper: Mapping[tuple[str, str], float], label: Callable[[str], str]) -> list[tuple[str, str, str]]:
    rows = [(f"{label(col)}: share of congestion / wireless losses",
             " / ".join(f"{paper[(truth, col)]:.0f} %" for truth in CAUSES),
             " / ".join(_percent(_pooled(every, truth, col)[0]) for truth in CAUSES)) for col in columns]
    n_c, n_w, n_r = (_pooled(every, truth, columns[0])[1] for truth in TRUTHS)
    rows.append(("losses counted (all runs): congestion / wireless / gaps of segments never lost", "-",
                 f"{n_c:.0f} / {n_w:.0f} / {n_r:.0f}"))
    if n_r:
        rows.append((f"gaps of segments never lost (reordering), by {' / '.join(columns)}", "-",
                     " / ".join(_percent(_pooled(every, "not_lost", col)[0]) for col in columns)))
    return rows


_GROUND_TRUTH = (
    "True causes (hoplab's ground truth): queue overflow, MAC retry limit and no route are congestion; a channel "
    "error (the Gilbert chain, after the MAC's last retry) and the route break it caused are wireless. A gap whose "
    "segment was never dropped (reordering, a late retransmission) is counted apart (\"not lost\"); the paper has "
    "no such column."
)


def _grid_cases() -> list[str]:
    return [flows_case(n) for n in FLOW_COUNTS]


# Table 1: the congestion grade at each loss.
def table1(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    per_case = _per_case(data["grid"], _grid_cases(), grade_name, GRADES,
                         "congestion grades (flows[].loss_grades)")
    every = list(per_case.values())
    paths = _matrix_figure(per_case, GRADES, TABLE1, out / "table1",
                           "Table 1: the congestion grade at which each loss was found, by its true cause",
                           "the receiver's congestion grade", "grade")
    checks: list[Check] = []
    for case, runs in per_case.items():
        checks.append(above(f"congestion losses found at the heavy grade: at least {HEAVY_FLOOR:.0f} % (the "
                            f"paper's 76 % less {_TOLERANCE})", case, _shares(runs, "congestion", "heavy").values(),
                            HEAVY_FLOOR, unit="%", digits=1))
        checks.append(above(f"wireless losses found at the slight or middle grade: at least {LIGHT_FLOOR:g} % "
                            f"(the paper's 91 % less {_TOLERANCE})", case,
                            _shares(runs, "wireless", "slight", "middle").values(), LIGHT_FLOOR, unit="%",
                            digits=1))
    numbers = [PaperNumber(f"{truth} losses at the {grade} grade", TABLE1[(truth, grade)],
                           _pooled(every, truth, grade)[0], "%", 0) for truth in CAUSES for grade in GRADES]
    reading = ("over all grid runs, congestion losses were found at the slight / middle / heavy grade in "
               + " / ".join(f"{_pooled(every, 'congestion', g)[0]:.0f}" for g in GRADES)
               + " % of cases (the paper: 1 / 23 / 76), wireless losses in "
               + " / ".join(f"{_pooled(every, 'wireless', g)[0]:.0f}" for g in GRADES)
               + " % (the paper: 47 / 44 / 9)")
    notes = [
        "The grade is the receiver's, when it found the loss: that of the segment that revealed the gap (the first "
        "to arrive beyond it), graded against the mean end-to-end delay of those before it (section 2.1; the "
        "core's `flows[].loss_grades`). The figure draws each true cause's column as a line over the three grades, "
        "hoplab's beside the paper's (dashed); shares are pooled over every TCP-RA flow of every grid run, the "
        "checks read the per-run shares per number of flows.",
        _GROUND_TRUTH,
        f"Decision: the claim (Table 1 is the paper's reason for its Table 2) is read as at least {HEAVY_FLOOR:.0f} "
        f"% of congestion losses at the heavy grade and at least {LIGHT_FLOOR:.0f} % of wireless losses at the "
        f"slight or middle grade (the paper's 76 % and 47 + 44 % less {_TOLERANCE}). The paper's text gives the "
        "wireless column as 44 % slight and 47 % middle, its table 47 % and 44 %; the table's are shown.",
    ]
    rows = _matrix_rows(every, GRADES, TABLE1, lambda g: f"at the {g} grade")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


# Table 4: the verdicts.
def table4(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    per_case = _per_case(data["grid"], _grid_cases(), metric_name, VERDICTS,
                         "loss classification (flows[].loss_classification)")
    every = list(per_case.values())
    paths = _matrix_figure(per_case, VERDICTS, TABLE4, out / "table4",
                           "Table 4: the receiver's verdict on each lost segment, by its true cause",
                           "the receiver's verdict", "verdict")
    checks: list[Check] = []
    for case, runs in per_case.items():
        checks.append(above(f"congestion losses judged congestion (A_c) at least {AC_FLOOR:.0f} % (the paper's "
                            f"{PAPER_AC:.0f} % less {_TOLERANCE})", case,
                            _shares(runs, "congestion", "congestion").values(), AC_FLOOR, unit="%", digits=1))
        checks.append(above(f"wireless losses judged wireless (A_w) at least {AW_FLOOR:.0f} % (the paper's "
                            f"{PAPER_AW:.0f} % less {_TOLERANCE})", case,
                            _shares(runs, "wireless", "wireless").values(), AW_FLOOR, unit="%", digits=1))
    numbers = [PaperNumber(f"{truth} losses judged {v}", TABLE4[(truth, v)], _pooled(every, truth, v)[0], "%", 0)
               for truth in CAUSES for v in VERDICTS]
    n_c, n_w = _pooled(every, "congestion", "congestion")[1], _pooled(every, "wireless", "wireless")[1]
    reading = ("over all grid runs, congestion losses were judged congestion / dubious / wireless in "
               + " / ".join(f"{_pooled(every, 'congestion', v)[0]:.0f}" for v in VERDICTS)
               + " % of cases (the paper: 80 / 15 / 5), wireless losses in "
               + " / ".join(f"{_pooled(every, 'wireless', v)[0]:.0f}" for v in VERDICTS)
               + f" % (the paper: 6 / 18 / 76), from {n_c:.0f} congestion and {n_w:.0f} wireless losses")
    notes = [
        "Rows of the paper's table are the verdicts, columns the true causes; the figure draws each true cause's "
        "column as a line over the three verdicts, hoplab's beside the paper's (dashed). Shares are pooled over "
        "every TCP-RA flow of every grid run (8, 12 and 16 flows); the checks read the per-run accuracies, per "
        "number of flows.",
        _GROUND_TRUTH,
        f"Decision: the paper's Table 4 gives the accuracies; the claim \"the receiver classifies most losses "
        f"right\" is read as A_c >= {AC_FLOOR:.0f} % and A_w >= {AW_FLOOR:.0f} % (the paper's 80 % and 76 % less "
        f"the {_TOLERANCE} by which a number may differ) at each number of flows.",
    ]
    rows = _matrix_rows(every, VERDICTS, TABLE4, lambda v: f"judged {v}")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


# Fig. 3: the accuracies against the number of flows (and hops).
def _hop_counts(data: Mapping[str, ExperimentData]) -> dict[int, dict[int, Counts]]:
    """{hops: {run: verdict counts}} of the TCP-RA flow of Fig. 4's runs (empty without them)."""
    hops = data.get("hops")
    if hops is None or hops.failure(C_RA) is not None or hops.scalars.empty or DST not in hops.scalars.columns:
        return {}
    frame = hops.scalars[(hops.scalars["entity"] == "flow") & (hops.scalars["case"] == C_RA)]
    return {hops_of(float(p)): _counts_of(part, metric_name, VERDICTS) for p, part in frame.groupby(DST)}


def fig3(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    per_case = _per_case(data["grid"], _grid_cases(), metric_name, VERDICTS,
                         "loss classification (flows[].loss_classification)")
    counts = [n for n in FLOW_COUNTS if flows_case(n) in per_case]
    accuracy = {
        "A_c": {n: _shares(per_case[flows_case(n)], "congestion", "congestion") for n in counts},
        "A_w": {n: _shares(per_case[flows_case(n)], "wireless", "wireless") for n in counts},
    }
    lines = []
    for i, (name, paper, color) in enumerate((("A_c", PAPER_AC, "black"), ("A_w", PAPER_AW, "tab:blue"))):
        stats = [mean_ci(list(accuracy[name][n].values())) for n in counts]
        lines.append(Line(f"{name}, hoplab (mean over runs, 95 % CI)", [n + (i - 0.5) * 0.15 for n in counts],
                          [s[0] for s in stats], [s[2] for s in stats],
                          style={"color": color, "marker": "o" if i == 0 else "s", "linestyle": "-"}))
        lines.append(Line(f"{name}, the paper's average", [float(FLOW_COUNTS[0]), float(FLOW_COUNTS[-1])],
                          [paper, paper], style={"color": color, "marker": "", "linestyle": "--", "alpha": 0.6}))
    paths = line_figure(lines, out / "fig3", title="Fig. 3: accuracy of the loss differentiation vs number of flows",
                        xlabel="TCP-RA flows on the 11 x 7 grid", ylabel="accuracy (%)", xticks=list(FLOW_COUNTS),
                        ylim=(0.0, 100.0))
    checks: list[Check] = []
    low, high = counts[0], counts[-1]
    if low != high:
        for name in ("A_c", "A_w"):
            checks.append(less(f"{name} is lower with more flows", f"{high} vs {low} flows", accuracy[name][high],
                               accuracy[name][low], unit="points"))
    every = list(per_case.values())
    ac, aw = _pooled(every, "congestion", "congestion")[0], _pooled(every, "wireless", "wireless")[0]
    numbers = [PaperNumber("average A_c (all grid runs pooled)", PAPER_AC, ac, "%", 0),
               PaperNumber("average A_w (all grid runs pooled)", PAPER_AW, aw, "%", 0)]
    rows = [(f"{n} flows: A_c / A_w (%, mean ± 95 % CI over runs)", "-",
             f"{fmt(accuracy['A_c'][n])} / {fmt(accuracy['A_w'][n])}") for n in counts]
    by_hops = _hop_counts(data)
    for h, runs in sorted(by_hops.items()):
        (hc, n_c), (hw, n_w) = _pooled([runs], "congestion", "congestion"), _pooled([runs], "wireless", "wireless")
        rows.append((f"{h} hop{'s' if h > 1 else ''}, one flow (Fig. 4's runs): A_c / A_w, pooled over runs "
                     "(losses)", "falls with hop count", f"{_percent(hc)} ({n_c:.0f}) / {_percent(hw)} ({n_w:.0f})"))
    # The hop-count claim: between the shortest path whose runs mostly lose
    # segments of both kinds and the longest.
    judged_hops = [h for h, runs in sorted(by_hops.items())
                   if len(_shares(runs, "congestion", "congestion")) * 2 > len(runs)
                   and len(_shares(runs, "wireless", "wireless")) * 2 > len(runs)]
    if len(judged_hops) >= 2:
        short, long = judged_hops[0], judged_hops[-1]
        for name, truth in (("A_c", "congestion"), ("A_w", "wireless")):
            checks.append(less(f"{name} is lower on longer paths", f"{long} vs {short} hops",
                               _shares(by_hops[long], truth, truth), _shares(by_hops[short], truth, truth),
                               unit="points"))
    if not checks:
        raise NotReproduced("only one number of flows has classified losses, and no hop counts")
    reading = ("A_c / A_w by number of flows: "
               + ", ".join(f"{n}: {mean_ci(list(accuracy['A_c'][n].values()))[0]:.0f} / "
                           f"{mean_ci(list(accuracy['A_w'][n].values()))[0]:.0f} %" for n in counts)
               + f"; pooled over all runs {ac:.0f} / {aw:.0f} % (the paper's averages: 80 / 76 %)")
    if len(judged_hops) >= 2:
        reading += "; by hop count (one flow): " + ", ".join(
            f"{h}: {_pooled([by_hops[h]], 'congestion', 'congestion')[0]:.0f} / "
            f"{_pooled([by_hops[h]], 'wireless', 'wireless')[0]:.0f} %" for h in judged_hops)
    notes = [
        "Decision: the paper's Fig. 3 is not in the text; its axis is read as the number of flows (section 3.1 runs "
        "8, 12 and 16), and its finding (\"the increasing of hop count and TCP flows ... degrades the "
        "differentiation accuracy\") as two claims: A_c and A_w are lower with 16 flows than with 8, and lower on "
        "the longest path of Fig. 4's lone flow than on the shortest whose runs mostly lose segments of both kinds "
        "(1 hop loses none to congestion). The hop counts are in the table, not on the figure's axis.",
        "A_c (A_w): per run, the share of the run's congestion (wireless) losses, over all its TCP-RA flows, that "
        "the receiver judged congestion (wireless); a dubious verdict counts as wrong, as in the paper. A run with "
        "no loss of that kind has no value.",
    ]
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)
