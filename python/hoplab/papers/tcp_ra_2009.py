"""Chen, Wang, Wang, Li, Lim: "A novel receiver-aided scheme for improving
TCP performance in multihop wireless networks", CMC 2009 — seed 001.

TCP-RA: the receiver tracks each segment's end-to-end delay (EED), grades
congestion (slight / middle / heavy) and its trend (the contention
indicator CI), and on a gap tells the sender whether the loss was
congestion, wireless or dubious (Table 2); the sender halves the window on
congestion, multiplies it by 0.8 on dubious and keeps it on wireless
(`cc = "tcp_ra"` in hoplab's core, with the paper's constants as its
`cc_params` defaults). Section 3 of the paper, as hoplab runs it:

- Network (section 3.1, Table 3): an 11 x 7 grid, IEEE 802.11b at 11 Mbps
  (control frames at 1 Mbps), 250 m transmission and 550 m carrier-sense
  range (the paper's RXThresh 3.652e-10 W and CSThresh 1.559e-11 W, which
  are these ranges with ns-2's radio), 800-byte segments, AODV, ns-2's
  behaviour (`preset = "ns2"`: the paper ran ns-2), a Gilbert two-state
  error model on every link, a 30 s warm-up.
- Table 4 and Fig. 3 (section 3.2): the receiver's verdict on each lost
  segment against its true cause (hoplab knows why every segment was
  lost: queue overflow, MAC retry limit, no route = congestion; channel
  error = wireless), with 8, 12 and 16 TCP-RA flows on the grid, half
  along rows, half along columns. A_c (A_w) = the share of congestion
  (wireless) losses judged exactly so; dubious counts as wrong, as in the
  paper.
- Fig. 4 (section 3.3): goodput against the number of hops, 1 to 10, for
  TCP-RA, Veno, Westwood+ and NewReno.
- Fig. 5: goodput against the packet error rate at 3 hops, the same four.

Decisions (the paper does not say; each is also in the report's notes):

- Grid spacing 200 m: each node's one-hop neighbours are the four next to
  it (200 m < 250 m); the diagonal (283 m) and the node two away (400 m)
  are out of range but within carrier sense, as "the neighbor nodes can
  exchange messages with each other directly" and the paper's hidden and
  exposed nodes need. Any spacing in (177, 250) m gives the same
  neighbours; 200 m is ns-2's customary one (and the chain of seed 000).
- Flows on the grid: full rows (10 hops, west to east) and full columns
  (6 hops, north to south), spread evenly: k horizontal flows on rows
  3 + (i - (k-1)/2) * min(2, 6/(k-1)) (8 flows: rows 0, 2, 4, 6; 12: 0, 1,
  2, 4, 5, 6; 16: every row, and row 3 twice, the second east to west),
  k vertical flows on columns 5 + (i - (k-1)/2) * min(2, 8/(k-1)), rounded
  (8 flows: columns 2, 4, 6, 8, as `examples/aodv-grid-11x7.toml`; 12: 1,
  3, 4, 6, 7, 9; 16: 1-4 and 6-9). Columns keep off the edges so that no
  node is the source or destination of two flows.
- Fig. 3's axis: the text says "the increasing of hop count and TCP
  flows ... degrades the differentiation accuracy" and section 3.1 runs
  8, 12 and 16 flows; Fig. 3 plots A_c and A_w against the number of
  flows on the grid (the finding judged: lower with 16 flows than with 8),
  and the report adds the accuracy by hop count from Fig. 4's runs (not
  judged: a lone flow on a row loses few segments to congestion).
- Fig. 4: one flow along the grid's middle row (row 3), from its west end
  to the node h hops east (h = 1..10: a row of 11 nodes has exactly the
  paper's 10 hops); the rest of the grid is idle but present (it relays
  AODV's floods and senses the carrier). The paper does not say whether
  other flows ran.
- Errors: Gilbert-Elliott (`[errors] model = "gilbert_elliott"`), one
  chain per directed link, frame error 0 in the good state and 1 in the
  bad; for Table 4 and Figs. 3-4 a long-run frame error rate of 3 % with
  bursts of 3 frames on average (as the issue's acceptance runs). A frame
  lost to the channel is retried by the MAC; a segment is lost to the
  channel only when the last retry fails so. Fig. 5 sweeps the rate over
  0, 1, 2, 5, 10, 15 and 20 % (bursts of 3 frames), --quick 0, 5, 20 %.
- Runs: 130 s with a 30 s warm-up (100 s measured), 30 runs per point, 95 %
  intervals; --quick: 40 s with 10 s warm-up, 5 runs per point, hops 1, 2,
  3, 6, 10.
- Veno: the paper's "alpha and beta 1 and 3" are Vegas-style thresholds;
  hoplab's Veno (Linux `tcp_veno.c`) has only beta, 3 by default. TCPW
  (the paper's [7]) is run as Westwood+ (`westwood_plus`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoplab.papers import Experiment, ExperimentData, Figure, FigureResult, NotReproduced, Paper, judged
from hoplab.papers.verdicts import NUMBER_TOLERANCE, Check, PaperNumber, above, greater, less, within
from hoplab.papers.verdicts import differences as paired_differences
from hoplab.plots import Line, Panel, draw_figure, line_figure
from hoplab.stats import mean_ci

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PAPER"]

# The grid (section 3.1, Fig. 2).
ROWS, COLS = 7, 11
SPACING_M = 200.0
PACKET_BYTES = 800
#: The row the hop-count and error-rate experiments' flow runs along.
MIDDLE_ROW = 3


def node(row: int, col: int) -> int:
    """Node id of (row, column): row-major, as hoplab's grid numbers them."""
    return row * COLS + col


def _spread(count: int, size: int, centre: float, room: float) -> list[int]:
    """`count` positions spread evenly about `centre`, at most 2 apart, over
    `room` (the distance between the outermost), rounded half up."""
    if count == 1:
        return [math.floor(centre + 0.5)]
    step = min(2.0, room / (count - 1))
    return [min(size - 1, max(0, math.floor(centre + (i - (count - 1) / 2) * step + 0.5))) for i in range(count)]


def grid_flows(count: int, cc: str = "tcp_ra") -> list[dict[str, Any]]:
    """`count` bulk TCP flows, half along rows (west to east, a repeated row
    east to west) and half along columns (north to south), spread evenly
    (see the module doc)."""
    if count < 2 or count % 2:
        raise ValueError(f"an even number of flows, at least 2, got {count}")
    half = count // 2
    flow = {"transport": "tcp", "cc": cc, "app": "bulk", "packet_bytes": PACKET_BYTES}
    flows: list[dict[str, Any]] = []
    seen: set[int] = set()
    for row in _spread(half, ROWS, (ROWS - 1) / 2, ROWS - 1):
        west, east = node(row, 0), node(row, COLS - 1)
        src, dst = (east, west) if row in seen else (west, east)
        seen.add(row)
        flows.append({"src": src, "dst": dst, **flow})
    for col in _spread(half, COLS, (COLS - 1) / 2, COLS - 3):
        flows.append({"src": node(0, col), "dst": node(ROWS - 1, col), **flow})
    return flows


#: Table 4 and Figs. 3-4: a long-run frame error rate of 3 %, bursts of 3 frames.
PER_PERCENT = 3.0
BURST_FRAMES = 3.0
ERRORS: dict[str, Any] = {"model": "gilbert_elliott", "packet_error_rate": PER_PERCENT / 100.0,
                          "mean_burst_frames": BURST_FRAMES}

_BASE: dict[str, Any] = {
    "preset": "ns2",
    "duration_s": 130.0,
    "warmup_s": 30.0,
    "seed": 1,
    "radio": {"data_rate_mbps": 11.0, "basic_rate_mbps": 1.0, "tx_range_m": 250.0, "cs_range_m": 550.0},
    "topology": {"kind": "grid", "rows": ROWS, "cols": COLS, "spacing_m": SPACING_M},
    "routing": {"protocol": "aodv"},
    "errors": ERRORS,
}

FLOW_COUNTS = (8, 12, 16)
GRID: dict[str, Any] = {"name": "tcp-ra-2009-grid", **copy.deepcopy(_BASE), "flows": grid_flows(FLOW_COUNTS[0])}


def flows_case(count: int) -> str:
    return f"{count} flows"


GRID_CASES: dict[str, dict[str, Any]] = {flows_case(n): {"flows": grid_flows(n)} for n in FLOW_COUNTS}

#: One flow along the middle row from its west end (Figs. 4-5).
ROW_START = node(MIDDLE_ROW, 0)
DST = "flows.0.dst"
PER = "errors.packet_error_rate"
HOPS = list(range(1, COLS))
QUICK_HOPS = [1, 2, 3, 6, 10]
#: Fig. 5's path length (the paper: "the hop number is set to 3").
PER_HOPS = 3
PER_VALUES = [0.0, 0.01, 0.02, 0.05, 0.10, 0.15, 0.20]
QUICK_PER_VALUES = [0.0, 0.05, 0.20]
ROW: dict[str, Any] = {
    "name": "tcp-ra-2009-row",
    **copy.deepcopy(_BASE),
    "flows": [{"src": ROW_START, "dst": ROW_START + PER_HOPS, "transport": "tcp", "cc": "tcp_ra", "app": "bulk",
               "packet_bytes": PACKET_BYTES}],
}

C_RA = "TCP-RA"
C_VENO = "Veno"
C_WESTWOOD = "Westwood+"
C_NEWRENO = "NewReno"
SCHEMES = (C_RA, C_VENO, C_WESTWOOD, C_NEWRENO)
RIVALS = (C_VENO, C_WESTWOOD, C_NEWRENO)
CC_CASES: dict[str, dict[str, Any]] = {
    C_RA: {"flows.0.cc": "tcp_ra"},
    C_VENO: {"flows.0.cc": "veno"},
    C_WESTWOOD: {"flows.0.cc": "westwood_plus"},
    C_NEWRENO: {"flows.0.cc": "newreno"},
}
_STYLES = {
    C_RA: {"color": "black", "marker": "o", "linestyle": "-"},
    C_VENO: {"color": "tab:blue", "marker": "^", "linestyle": "-."},
    C_WESTWOOD: {"color": "tab:red", "marker": "D", "linestyle": ":"},
    C_NEWRENO: {"color": "dimgray", "marker": "s", "linestyle": "--"},
}

#: Full: the paper's 30 runs, 30 s of warm-up, 100 s measured; --quick:
#: 5 runs, 10 s of warm-up, 30 s measured.
_FULL_RUNS, _FULL_S, _FULL_WARMUP_S = 30, 130.0, 30.0
_QUICK_RUNS, _QUICK_S, _QUICK_WARMUP_S = 5, 40.0, 10.0
EXPERIMENTS = [
    Experiment(
        name="grid",
        description="11 x 7 grid, 8, 12 and 16 TCP-RA flows along rows and columns, Gilbert errors (3 %, bursts of "
                    "3 frames): the receiver's verdicts against the true causes",
        scenario=GRID, cases=GRID_CASES,
        runs=_FULL_RUNS, duration_s=_FULL_S, warmup_s=_FULL_WARMUP_S,
        quick_runs=_QUICK_RUNS, quick_duration_s=_QUICK_S, quick_warmup_s=_QUICK_WARMUP_S,
    ),
    Experiment(
        name="hops",
        description="one flow along the grid's middle row, 1-10 hops, Gilbert errors (3 %, bursts of 3 frames): "
                    "TCP-RA, Veno, Westwood+, NewReno",
        scenario=ROW, cases=CC_CASES, vary={DST: [ROW_START + h for h in HOPS]},
        quick_vary={DST: [ROW_START + h for h in QUICK_HOPS]},
        runs=_FULL_RUNS, duration_s=_FULL_S, warmup_s=_FULL_WARMUP_S,
        quick_runs=_QUICK_RUNS, quick_duration_s=_QUICK_S, quick_warmup_s=_QUICK_WARMUP_S,
    ),
    Experiment(
        name="per",
        description="one flow over 3 hops of the middle row, Gilbert frame error rate 0-20 % (bursts of 3 frames): "
                    "TCP-RA, Veno, Westwood+, NewReno",
        scenario=ROW, cases=CC_CASES, vary={PER: PER_VALUES}, quick_vary={PER: QUICK_PER_VALUES},
        runs=_FULL_RUNS, duration_s=_FULL_S, warmup_s=_FULL_WARMUP_S,
        quick_runs=_QUICK_RUNS, quick_duration_s=_QUICK_S, quick_warmup_s=_QUICK_WARMUP_S,
    ),
]

# Loss classification: true cause -> the receiver's verdict.
TRUTHS = ("congestion", "wireless", "not_lost")
VERDICTS = ("congestion", "dubious", "wireless")
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
#: Fig. 4: the paper's average gain of TCP-RA over NewReno, percent.
PAPER_GAIN = 40.0
#: Fig. 4: "when the hop count is small" = these hop counts; there the four
#: are "similarly effective": each paired difference within this share of
#: the pair's mean goodput.
SMALL_HOPS = (1, 2)
SIMILAR_SHARE = 0.15


def metric_name(truth: str, verdict: str) -> str:
    """The scalar (and flows DataFrame column) counting `truth` losses the receiver judged `verdict`."""
    return f"classified_{truth}_as_{verdict}"


Counts = dict[tuple[str, str], float]


def _counts(data: ExperimentData, case: str) -> dict[int, Counts]:
    """Per run, the (truth, verdict) counts summed over the run's TCP-RA flows."""
    out: dict[int, Counts] = {}
    for truth in TRUTHS:
        for verdict in VERDICTS:
            rows = data.metric(metric_name(truth, verdict), "flow", case)
            if rows.empty:
                continue
            for run, value in rows.groupby("run")["value"].sum().items():
                out.setdefault(int(run), {})[(truth, verdict)] = float(value)
    return out


def _classified(data: ExperimentData, cases: Sequence[str]) -> dict[str, dict[int, Counts]]:
    """Per case (with successful runs), per run, the classification counts;
    NotReproduced if no run carries any."""
    out = {case: _counts(data, case) for case in cases if data.failure(case) is None}
    if not any(out.values()):
        for case in cases:
            data.require(case)
        raise NotReproduced("the runs carry no loss classification (flows[].loss_classification: the core's "
                            "`cc = \"tcp_ra\"` counts the receiver's verdicts against the true causes)")
    return {case: runs for case, runs in out.items() if runs}


def _total(counts: Counts, truth: str) -> float:
    return sum(counts.get((truth, v), 0.0) for v in VERDICTS)


def _shares(runs: Mapping[int, Counts], truth: str, verdict: str) -> dict[int, float]:
    """Per run, the percent of `truth` losses judged `verdict` (runs without such losses left out)."""
    return {run: 100.0 * c.get((truth, verdict), 0.0) / _total(c, truth)
            for run, c in runs.items() if _total(c, truth) > 0}


def _pooled(runs: Sequence[Mapping[int, Counts]], truth: str, verdict: str) -> tuple[float, float]:
    """(percent of all `truth` losses, over every run given, judged `verdict`; their number)."""
    total = sum(_total(c, truth) for part in runs for c in part.values())
    hit = sum(c.get((truth, verdict), 0.0) for part in runs for c in part.values())
    return (100.0 * hit / total if total else math.nan), total


def _fmt(values: Mapping[int, float] | Sequence[float], unit: str = "", digits: int = 1) -> str:
    vals = list(values.values()) if isinstance(values, Mapping) else list(values)
    mean, _, half = mean_ci(vals)
    if math.isnan(mean):
        return "-"
    text = f"{mean:.{digits}f}" + ("" if math.isnan(half) else f" ± {half:.{digits}f}")
    return text + (f" {unit}" if unit else "")


def _save(fig: Any, stem: Path, data: pd.DataFrame) -> dict[str, Path]:
    """Save a drawn figure as PNG and SVG with `data` as CSV (as `line_figure` does)."""
    import matplotlib.pyplot as plt

    from hoplab.stats import FIGURE_DIGITS, display_frame

    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = {"png": stem.with_suffix(".png"), "svg": stem.with_suffix(".svg"), "csv": stem.with_suffix(".csv")}
    fig.savefig(paths["png"])
    fig.savefig(paths["svg"])
    plt.close(fig)
    display_frame(data, FIGURE_DIGITS).to_csv(paths["csv"], index=False)
    return paths


# Table 4: the classification matrix.
def table4(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    import pandas as pd

    grid = data["grid"]
    cases = [flows_case(n) for n in FLOW_COUNTS]
    per_case = _classified(grid, cases)
    every = list(per_case.values())
    lines, records = [], []
    x = [1.0, 2.0, 3.0]
    for truth, color in (("congestion", "black"), ("wireless", "tab:blue")):
        pooled = [_pooled(every, truth, v)[0] for v in VERDICTS]
        every_run = [c for part in per_case.values() for c in part.values()]
        halves = [mean_ci([100.0 * c.get((truth, v), 0.0) / _total(c, truth) for c in every_run
                           if _total(c, truth) > 0])[2] for v in VERDICTS]
        lines.append(Line(f"{truth} losses, hoplab (all runs pooled; 95 % CI of the per-run shares)", x, pooled,
                          halves, style={"color": color, "marker": "o", "linestyle": "-"}))
        lines.append(Line(f"{truth} losses, the paper", x, [TABLE4[(truth, v)] for v in VERDICTS],
                          style={"color": color, "marker": "x", "linestyle": "--", "alpha": 0.6}))
        for v, ours in zip(VERDICTS, pooled, strict=True):
            records.append({"true_cause": truth, "verdict": v, "hoplab_percent": ours,
                            "paper_percent": TABLE4[(truth, v)], "losses": _pooled(every, truth, v)[1]})
    for v in VERDICTS:
        records.append({"true_cause": "not_lost", "verdict": v, "hoplab_percent": _pooled(every, "not_lost", v)[0],
                        "paper_percent": math.nan, "losses": _pooled(every, "not_lost", v)[1]})
    fig = draw_figure(lines, title="Table 4: the receiver's verdict on each lost segment, by its true cause",
                      xlabel="the receiver's verdict", ylabel="share of the true cause's losses (%)",
                      xticks=x, ylim=(0.0, 100.0))
    fig.axes[0].set_xticks(x, list(VERDICTS))
    paths = _save(fig, out / "table4", pd.DataFrame(records))

    checks: list[Check] = []
    for case, runs in per_case.items():
        checks.append(above(f"congestion losses judged congestion (A_c) at least {AC_FLOOR:.0f} % (the paper's "
                            f"{PAPER_AC:.0f} % less {NUMBER_TOLERANCE * 100:.0f} %)", case,
                            _shares(runs, "congestion", "congestion").values(), AC_FLOOR, unit="%", digits=1))
        checks.append(above(f"wireless losses judged wireless (A_w) at least {AW_FLOOR:.0f} % (the paper's "
                            f"{PAPER_AW:.0f} % less {NUMBER_TOLERANCE * 100:.0f} %)", case,
                            _shares(runs, "wireless", "wireless").values(), AW_FLOOR, unit="%", digits=1))
    numbers = [PaperNumber(f"{truth} losses judged {v}", TABLE4[(truth, v)], _pooled(every, truth, v)[0], "%", 0)
               for truth in ("congestion", "wireless") for v in VERDICTS]
    rows = []
    for v in VERDICTS:
        cells = ", ".join(f"{truth} {_pooled(every, truth, v)[0]:.0f} %" for truth in ("congestion", "wireless"))
        rows.append((f"judged {v}: share of congestion / wireless losses",
                     f"congestion {TABLE4[('congestion', v)]:.0f} %, wireless {TABLE4[('wireless', v)]:.0f} %", cells))
    n_c, n_w = _pooled(every, "congestion", "congestion")[1], _pooled(every, "wireless", "wireless")[1]
    n_r = _pooled(every, "not_lost", "congestion")[1]
    rows.append(("losses classified (all runs): congestion / wireless / gaps of segments never lost", "-",
                 f"{n_c:.0f} / {n_w:.0f} / {n_r:.0f}"))
    if n_r:
        rows.append(("gaps of segments never lost (reordering), judged congestion / dubious / wireless", "-",
                     " / ".join(f"{_pooled(every, 'not_lost', v)[0]:.0f} %" for v in VERDICTS)))
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
        "True causes (hoplab's ground truth): queue overflow, MAC retry limit and no route are congestion; a "
        "channel error (the Gilbert chain, after the MAC's last retry) is wireless. A gap whose segment was never "
        "dropped (reordering, a late retransmission) is counted apart (\"not lost\"); the paper has no such "
        "column.",
        f"Decision: the paper's Table 4 gives the accuracies; the claim \"the receiver classifies most losses "
        f"right\" is read as A_c >= {AC_FLOOR:.0f} % and A_w >= {AW_FLOOR:.0f} % (the paper's 80 % and 76 % less "
        f"the {NUMBER_TOLERANCE * 100:.0f} % by which a number may differ) at each number of flows.",
    ]
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


# Fig. 3: accuracy against the number of flows.
def _hop_accuracy(data: Mapping[str, ExperimentData]) -> dict[int, dict[int, Counts]]:
    """{hops: {run: counts}} of the TCP-RA flow of Fig. 4's runs (empty without them)."""
    hops = data.get("hops")
    if hops is None or hops.failure(C_RA) is not None:
        return {}
    return {_hops_of(p): _counts_of(part) for p, part in _by_point(hops, C_RA, DST).items()}


def _by_point(data: ExperimentData, case: str, param: str) -> dict[float, pd.DataFrame]:
    frame = data.scalars
    if frame.empty or param not in frame.columns:
        return {}
    frame = frame[(frame["entity"] == "flow") & (frame["case"] == case)]
    return {float(p): part for p, part in frame.groupby(param)}


def _counts_of(frame: pd.DataFrame) -> dict[int, Counts]:
    out: dict[int, Counts] = {}
    for truth in TRUTHS:
        for verdict in VERDICTS:
            rows = frame[frame["metric"] == metric_name(truth, verdict)]
            for run, value in rows.groupby("run")["value"].sum().items():
                out.setdefault(int(run), {})[(truth, verdict)] = float(value)
    return out


def fig3(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    grid = data["grid"]
    cases = [flows_case(n) for n in FLOW_COUNTS]
    per_case = _classified(grid, cases)
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
             f"{_fmt(accuracy['A_c'][n])} / {_fmt(accuracy['A_w'][n])}") for n in counts]
    by_hops = _hop_accuracy(data)
    for h, runs in sorted(by_hops.items()):
        (hc, n_c), (hw, n_w) = _pooled([runs], "congestion", "congestion"), _pooled([runs], "wireless", "wireless")
        rows.append((f"{h} hop{'s' if h > 1 else ''}, one flow (Fig. 4's runs): A_c / A_w, pooled over runs "
                     "(losses)", "falls with hop count",
                     f"{'-' if math.isnan(hc) else f'{hc:.0f} %'} ({n_c:.0f}) / "
                     f"{'-' if math.isnan(hw) else f'{hw:.0f} %'} ({n_w:.0f})"))
    # The hop-count claim: between the shortest path with losses of both
    # kinds in most runs and the longest path.
    judged_hops = [h for h, runs in sorted(by_hops.items())
                   if len(_shares(runs, "congestion", "congestion")) * 2 > len(runs)
                   and len(_shares(runs, "wireless", "wireless")) * 2 > len(runs)]
    if len(judged_hops) >= 2:
        short, long = judged_hops[0], judged_hops[-1]
        for name, truth in (("A_c", "congestion"), ("A_w", "wireless")):
            checks.append(less(f"{name} is lower on longer paths", f"{long} vs {short} hops",
                               _shares(by_hops[long], truth, truth), _shares(by_hops[short], truth, truth),
                               unit="points"))
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
    if not checks:
        raise NotReproduced("only one number of flows has classified losses")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes, numbers=numbers)


# Figs. 4-5: goodput of the four schemes.
def _goodput(data: ExperimentData, param: str) -> dict[str, dict[float, dict[int, float]]]:
    """{scheme: {point: {run: goodput of flow 0 (kbps)}}} of the schemes with successful runs."""
    out: dict[str, dict[float, dict[int, float]]] = {}
    for case in SCHEMES:
        if data.failure(case) is not None:
            continue
        rows = data.metric("goodput_kbps", "flow", case, 0)
        if rows.empty:
            continue
        out[case] = {float(p): {int(r): float(v) for r, v in zip(part["run"], part["value"], strict=True)}
                     for p, part in rows.groupby(param)}
    return out


def _mean(values: Mapping[int, float]) -> float:
    return mean_ci(list(values.values()))[0]


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


def _hops_of(dst: float) -> int:
    return int(round(dst)) - ROW_START


def fig4(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    exp = data["hops"]
    goodput, paths, notes = _goodput_figure(
        exp, out, "fig4", DST, _hops_of, "Fig. 4: goodput vs hops (one flow, Gilbert errors 3 %, bursts of 3)",
        "path length (hops)", [float(h) for h in HOPS], yscale="log")
    ra = goodput[C_RA]
    hops = sorted(ra, key=_hops_of)
    checks: list[Check] = []
    for rival in (r for r in RIVALS if r in goodput):
        for p in hops:
            h = _hops_of(p)
            if p not in goodput[rival]:
                continue
            if h in SMALL_HOPS:
                level = (_mean(ra[p]) + _mean(goodput[rival][p])) / 2
                band = SIMILAR_SHARE * level
                checks.append(within(f"similar at small hop counts: TCP-RA - other within {SIMILAR_SHARE * 100:.0f} % of the "
                                     "pair's mean goodput", f"TCP-RA vs {rival}, {h} hop{'s' if h > 1 else ''}",
                                     paired_differences(ra[p], goodput[rival][p]), -band, band, unit="kbps",
                                     digits=0))
            else:
                checks.append(greater("TCP-RA's goodput higher", f"TCP-RA vs {rival}, {h} hops", ra[p],
                                      goodput[rival][p], unit="kbps", digits=0))
    gain_text = ""
    numbers: list[PaperNumber] = []
    if C_NEWRENO in goodput:
        nr = goodput[C_NEWRENO]
        common = [p for p in hops if p in nr and _mean(nr[p]) > 0]
        mean_gain = 100.0 * sum(_mean(ra[p]) / _mean(nr[p]) - 1 for p in common) / len(common) if common else math.nan
        per_run: dict[int, float] = {}
        for run in sorted(set.intersection(*(set(ra[p]) & set(nr[p]) for p in common))) if common else []:
            ratios = [ra[p][run] / nr[p][run] - 1 for p in common if nr[p][run] > 0]
            if ratios:
                per_run[run] = 100.0 * sum(ratios) / len(ratios)
        low, high = (1 - NUMBER_TOLERANCE) * PAPER_GAIN, (1 + NUMBER_TOLERANCE) * PAPER_GAIN
        checks.append(within(f"TCP-RA's gain over NewReno, averaged over the hop counts, about 40 % (within "
                             f"{NUMBER_TOLERANCE * 100:.0f} %: {low:.0f}-{high:.0f} %)", "average over hop counts",
                             per_run.values(), low, high, unit="%", digits=1))
        numbers.append(PaperNumber("TCP-RA's goodput gain over NewReno, averaged over hop counts", PAPER_GAIN,
                                   mean_gain, "%", 0))
        gain_text = f"; TCP-RA's gain over NewReno averages {mean_gain:+.0f} % over the hop counts (the paper: +40 %)"
    reading = ("goodput in kbps by hop count, " + " / ".join(goodput) + ": "
               + "; ".join(f"{_hops_of(p)}: " + " / ".join(f"{_mean(goodput[c][p]):.0f}" for c in goodput
                                                              if p in goodput[c]) for p in hops) + gain_text)
    rows = [(f"{c}, {_hops_of(p)} hops: goodput (kbps)", "-", _fmt(goodput[c][p], digits=0))
            for p in hops if _hops_of(p) in (1, 3, 6, 10) for c in goodput if p in goodput[c]]
    notes.append(f"Decision: \"when the hop count is small, all protocols are similarly effective\" is read as "
                 f"{' and '.join(str(h) for h in SMALL_HOPS)} hops, each pair within {SIMILAR_SHARE * 100:.0f} % of its mean "
                 "goodput; \"TCP-RA achieves better goodput ... regardless of the hop count\" is judged at 3 hops and "
                 "more. The average gain is the mean over the hop counts run of TCP-RA's goodput over NewReno's, "
                 "less 1 (per run for the check).")
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
               + "; ".join(f"{100 * p:g} %: " + " / ".join(f"{_mean(goodput[c][p]):.0f}" for c in goodput
                                                            if p in goodput[c]) for p in rates))
    rows = [(f"{c}, {100 * p:g} %: goodput (kbps)", "TCP-RA highest" if p > 0 else "-", _fmt(goodput[c][p], digits=0))
            for p in rates for c in goodput if p in goodput[c]]
    notes.append(f"Decision: the paper gives neither its error rates nor its burst length. hoplab sweeps the "
                 f"Gilbert chain's long-run frame error rate over {', '.join(f'{100 * p:g}' for p in vary[PER])} % "
                 f"(--quick: {', '.join(f'{100 * p:g}' for p in QUICK_PER_VALUES)} %) with bursts of "
                 f"{BURST_FRAMES:.0f} frames on average, on a {PER_HOPS}-hop flow along the grid's middle row. The "
                 "finding (TCP-RA handles high error rates better than the others) is judged at every rate above 0; "
                 "at 0 nothing is lost to the channel and the point is drawn only.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


FIGURES = [
    Figure("Table 4", "Accuracy of loss classification: the receiver's verdicts by true cause", ["grid"],
           "80 % of congestion losses are judged congestion (15 % dubious, 5 % wireless) and 76 % of wireless losses "
           "wireless (18 % dubious, 6 % congestion)", table4),
    Figure("Fig. 3", "Accuracy of the differentiation (A_c, A_w) vs number of flows", ["grid", "hops"],
           "the average accuracies are 80 % (congestion) and 76 % (wireless); more flows (and hops) degrade them",
           fig3),
    Figure("Fig. 4", "Goodput vs number of hops: TCP-RA, Veno, Westwood+, NewReno", ["hops"],
           "TCP-RA achieves better goodput than the others regardless of the hop count, 40 % over NewReno on "
           "average; when the hop count is small all are similarly effective", fig4),
    Figure("Fig. 5", "Goodput vs packet error rate at 3 hops: TCP-RA, Veno, Westwood+, NewReno", ["per"],
           "TCP-RA handles high packet error rates better than the others", fig5),
]

PAPER = Paper(
    id="tcp-ra-2009",
    title="A novel receiver-aided scheme for improving TCP performance in multihop wireless networks (Chen et al., "
          "2009)",
    citation="C. Chen, H. Wang, X. Wang, M. Li, A. O. Lim, \"A novel receiver-aided scheme for improving TCP "
             "performance in multihop wireless networks\", CMC 2009, pp. 272-277, seed 001",
    source="shared/seeds/001_15641bb9ee5c9c43.txt",
    experiments=EXPERIMENTS,
    figures=FIGURES,
    notes=[
        "Network of section 3.1 and Table 3: an 11 x 7 grid, 200 m spacing (each node reaches the four next to it), "
        "IEEE 802.11b with RTS/CTS, 11 Mbps data and 1 Mbps control frames (802.11b's mandatory rate: the paper "
        "gives only the data rate), 250 m transmission and 550 m carrier-sense range (the paper's RXThresh and "
        "CSThresh), drop-tail interface queues of 50, AODV, bulk (FTP) TCP flows with 800-byte segments, ns-2's "
        "behaviour throughout (`preset = \"ns2\"`; the paper ran ns-2), 30 s of warm-up before measuring.",
        "Errors: the paper's Gilbert two-state model as a Gilbert-Elliott chain per directed link (frame error 0 "
        "in the good state, 1 in the bad), applied to unicast DATA frames their receiver would decode; the MAC "
        "retries a frame lost so, and a segment is lost to the channel only when its last retry fails. The paper "
        "gives no rates: 3 % of frames in bursts of 3 on average for Table 4 and Figs. 3-4; Fig. 5 sweeps the rate.",
        "Flows on the grid (Table 4, Fig. 3): 8, 12 or 16 TCP-RA flows, half along full rows (10 hops, west to "
        "east), half along full columns (6 hops, north to south), spread evenly: rows 0, 2, 4, 6 and columns 2, 4, "
        "6, 8 for 8 flows; rows 0-2, 4-6 and columns 1, 3, 4, 6, 7, 9 for 12; every row (row 3 twice, the second "
        "east to west) and columns 1-4, 6-9 for 16. Columns keep off the grid's edges so that no node is the "
        "source or destination of two flows.",
        "Hop counts (Fig. 4) and error rates (Fig. 5): one flow along the grid's middle row from its west end, h "
        "hops long (1-10; 3 for Fig. 5), the rest of the grid idle but present. Schemes: TCP-RA (`tcp_ra`, the "
        "paper's constants: beta 0.8 on dubious, 0.5 on congestion), Veno (beta 3: the paper's \"alpha and beta 1 "
        "and 3\"; Linux Veno has no alpha), Westwood+ (the paper's TCPW) and NewReno.",
        "Runs: 130 s with 30 s of warm-up, 30 runs per point, as the paper (\"30 times\"); --quick: 40 s with 10 s "
        "of warm-up, 5 runs per point, hops 1, 2, 3, 6, 10 and error rates 0, 5, 20 %. Every scheme and every "
        "number of flows uses the same seeds (run r has seed 1 + r), so comparisons are paired by run.",
    ],
    not_covered=[
        "Fig. 1 (arrival patterns) and Fig. 2 (the grid) hold no data.",
        "Tables 1 and 2 are the paper's calibration of the receiver's rules (loss shares by congestion grade, and "
        "the verdict table); Table 2 is built into `cc = \"tcp_ra\"` and unit-tested in the core, Table 1 is not "
        "reproduced.",
    ],
)
