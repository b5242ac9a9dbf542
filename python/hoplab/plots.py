"""Figures in the papers' style: lines with markers and 95 % error bars,
black and grey, a light grid, an optional second y axis (the papers plot
throughput and APR against source rate on one figure). Every figure is
saved as PNG and SVG with its data beside it as CSV (`<stem>.png`,
`<stem>.svg`, `<stem>.csv`; numbers in the CSV rounded to 6 significant
digits, see `hoplab.stats.display_frame`). Matplotlib runs headless (Agg).

Readability rules every figure follows:

- the legend sits outside the plotting area (below it), never over data;
- with a second y axis, each legend entry says which axis it is read on;
- a `lower` panel (sharing x) shows what a comparison needs, e.g. paired
  differences with their intervals, with a zero line, when the cases'
  own intervals are too wide to show the difference;
- `yscale="log"` where one point dwarfs the rest.

Error bars are the 95 % Student-t interval of the mean over runs. A line of
a quantity that cannot be negative (every point >= 0 on the main axes, or
`Line.nonnegative`) has the lower end of its bars cut at 0: five skewed runs
must not draw a throughput below zero. On a log axis the lower ends are cut
at the axis' bottom (a quarter of the smallest positive point), so every
bar stays on the axis. What was cut, and where, is a note of the figure
(`figure_notes`), which `hoplab.papers.judged` adds to the figure's notes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ERROR_BARS", "Line", "Panel", "draw_figure", "figure_notes", "line_figure"]

#: How every figure's error bars are made (the first note of a figure with bars).
ERROR_BARS = ("Error bars: the 95 % Student-t interval of the mean over runs; for a quantity that cannot be negative "
              "its lower end is cut at 0 (the interval of a few skewed runs can reach below zero).")

_STYLES: list[dict[str, Any]] = [
    {"color": "black", "marker": "o", "linestyle": "-"},
    {"color": "dimgray", "marker": "s", "linestyle": "--"},
    {"color": "tab:blue", "marker": "^", "linestyle": "-."},
    {"color": "tab:red", "marker": "D", "linestyle": ":"},
    {"color": "tab:green", "marker": "v", "linestyle": "-"},
]


@dataclass
class Line:
    """One curve: x, y and the half-width of its error bar (NaN: none)."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    err: Sequence[float] = field(default_factory=list)
    right: bool = False  # on the second y axis
    steps: bool = False  # a piecewise-constant value (drawn as steps)
    style: dict[str, Any] = field(default_factory=dict)  # matplotlib overrides (color, linestyle, alpha, ...)
    legend: bool = True  # listed in the legend (the CSV has every line)
    legend_label: str | None = None  # the legend's text, if not `label` (e.g. one entry for several runs)
    #: Cannot be negative: bars cut at 0. None: so when every y >= 0 (main axes only, not a lower panel).
    nonnegative: bool | None = None


@dataclass
class _Cuts:
    """What drawing cut off the bars: points cut at 0, at a log axis' bottom."""

    at_zero: list[str] = field(default_factory=list)
    at_floor: list[str] = field(default_factory=list)
    floor: float = math.nan
    bars: bool = False


#: The notes of each figure drawn in this process, by its PNG path.
_NOTES: dict[Path, list[str]] = {}


def figure_notes(paths: Mapping[str, Path]) -> list[str]:
    """What `line_figure` drew at `paths` says about its error bars (none if it has none)."""
    return list(_NOTES.get(Path(paths["png"]), [])) if "png" in paths else []


def _lower_errors(line: Line, errs: list[float], floor: float | None, cuts: _Cuts) -> list[float]:
    """The lower half of each bar, cut so that it ends no lower than `floor`."""
    lower = []
    for x, y, e in zip(line.x, line.y, errs, strict=True):
        y = float(y)
        if floor is not None and not math.isnan(y) and y - e < floor:
            (cuts.at_floor if floor > 0 else cuts.at_zero).append(f"{line.label} at {x:g}")
            e = max(0.0, y - floor)
        lower.append(e)
    return lower


@dataclass
class Panel:
    """A second plot under the main one, sharing its x axis."""

    lines: Sequence[Line]
    ylabel: str
    zero_line: bool = True  # a reference line at y = 0 (differences)
    yscale: str = "linear"


#: Differences in a lower panel: one style, unlike any case's above.
_DIFFERENCE_STYLE: dict[str, Any] = {"color": "tab:red", "marker": "D", "linestyle": "-"}


def _log_floor(lines: Sequence[Line]) -> float:
    """The bottom of a log left axis: a quarter of its smallest positive point (NaN if none)."""
    positive = [float(y) for line in lines if not line.right for y in line.y if float(y) > 0]
    return min(positive) / 4 if positive else math.nan


def _cut_notes(cuts: _Cuts) -> list[str]:
    """The notes of a figure's error bars (none without bars)."""
    if not cuts.bars:
        return []

    def where(points: list[str]) -> str:
        return "; ".join(points[:6]) + (f"; and {len(points) - 6} more" if len(points) > 6 else "")

    notes = [ERROR_BARS]
    if cuts.at_zero:
        notes.append(f"Cut at 0 here ({len(cuts.at_zero)} point{'s' if len(cuts.at_zero) != 1 else ''}): "
                     f"{where(cuts.at_zero)}.")
    if cuts.at_floor:
        notes.append(f"Log axis: a bar whose lower end is at or below {cuts.floor:.3g} (the axis' bottom, a quarter "
                     f"of the smallest point) ends there ({len(cuts.at_floor)} point"
                     f"{'s' if len(cuts.at_floor) != 1 else ''}): {where(cuts.at_floor)}.")
    return notes


def _draw(ax: Any, ax2: Any, lines: Sequence[Line], styles: Sequence[dict[str, Any]] = _STYLES,
          cuts: _Cuts | None = None, log_floor: float | None = None) -> list[Any]:
    """Draw `lines` on ax (or ax2 for right-axis lines); legend handles.
    With `cuts` (the main axes), bars of non-negative lines end at 0, and
    those on a log left axis at `log_floor`."""
    handles = []
    for i, line in enumerate(lines):
        style = styles[i % len(styles)]
        target = ax2 if line.right else ax
        errs = [float(e) for e in line.err] if len(line.err) else []
        err: Any = [e if not math.isnan(e) else 0.0 for e in errs] or None
        has_bars = err is not None and any(err)
        if has_bars and cuts is not None:
            cuts.bars = True
            nonnegative = line.nonnegative if line.nonnegative is not None else all(
                float(y) >= 0 for y in line.y if not math.isnan(float(y)))
            floor = log_floor if log_floor is not None and not line.right else 0.0 if nonnegative else None
            err = [_lower_errors(line, err, floor, cuts), err]
        dense = len(line.x) > 40  # a time series: no markers
        kwargs: dict[str, Any] = {
            **style, "capsize": 3, "markersize": 5, "linewidth": 1.4,
            "markerfacecolor": "white" if line.right else line.style.get("color", style["color"]),
            "drawstyle": "steps-post" if line.steps else "default",
        }
        if dense:
            kwargs["marker"] = ""
        kwargs.update(line.style)
        if kwargs.get("linestyle") == "none":
            kwargs["linestyle"] = ""  # markers and error bars only
        label = line.legend_label or line.label
        if ax2 is not None:  # two y axes: say which one each curve is read on
            label += " (right axis)" if line.right else " (left axis)"
        handle = target.errorbar(list(line.x), list(line.y), yerr=err if has_bars else None, label=label, **kwargs)
        if line.legend:
            handles.append(handle)
    return handles


def line_figure(
    lines: Sequence[Line],
    stem: str | Path,
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    y2label: str | None = None,
    data: pd.DataFrame | None = None,
    xticks: Sequence[float] | None = None,
    note: str | None = None,
    yscale: str = "linear",
    ylim: tuple[float | None, float | None] | None = None,
    lower: Panel | None = None,
) -> dict[str, Path]:
    """Draw `lines` (and a `lower` panel), save `<stem>.png`, `.svg` and
    (`data`, or the lines themselves) `.csv`; return the paths by
    extension. `yscale` ("log") and `ylim` (bottom, top; None: automatic)
    apply to the first y axis."""
    import matplotlib.pyplot as plt

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    fig = draw_figure(lines, title=title, xlabel=xlabel, ylabel=ylabel, y2label=y2label, xticks=xticks, note=note,
                      yscale=yscale, ylim=ylim, lower=lower, notes=notes)
    paths = {"png": stem.with_suffix(".png"), "svg": stem.with_suffix(".svg"), "csv": stem.with_suffix(".csv")}
    save_drawing(fig, paths)
    plt.close(fig)
    _NOTES[paths["png"]] = notes
    if data is None:
        import pandas as pd

        rows = []
        for line in [*lines, *(lower.lines if lower is not None else [])]:
            errs = [float(e) for e in line.err] if len(line.err) else [math.nan] * len(line.x)
            for x, y, e in zip(line.x, line.y, errs, strict=True):
                rows.append({"series": line.label, "x": x, "y": y, "ci_half": e})
        data = pd.DataFrame(rows, columns=["series", "x", "y", "ci_half"])
    from hoplab.stats import FIGURE_DIGITS, display_frame

    save_csv(display_frame(data, FIGURE_DIGITS), paths["csv"])
    return paths


def save_drawing(fig: Any, paths: Mapping[str, Path]) -> None:
    """Save `fig` as `paths["png"]` and `paths["svg"]`, each through
    `hoplab.paths.write_file` (a temporary made exclusively, then renamed)."""
    from hoplab.paths import write_file

    for kind in ("png", "svg"):
        write_file(paths[kind], functools.partial(_save_as, fig, kind), "figure")


def _save_as(fig: Any, kind: str, handle: Any) -> None:
    fig.savefig(handle, format=kind)


def save_csv(frame: pd.DataFrame, path: Path) -> None:
    """`frame` as CSV at `path`, through `hoplab.paths.write_file`."""
    from hoplab.paths import write_file

    text = frame.to_csv(index=False)
    write_file(path, lambda handle: handle.write(text.encode("utf-8")), "figure")


def draw_figure(
    lines: Sequence[Line],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    y2label: str | None = None,
    xticks: Sequence[float] | None = None,
    note: str | None = None,
    yscale: str = "linear",
    ylim: tuple[float | None, float | None] | None = None,
    lower: Panel | None = None,
    notes: list[str] | None = None,
) -> Any:
    """The matplotlib Figure of `line_figure`, not saved (the caller closes it).
    `notes`, if given, receives what the figure's error bars are and what
    was cut off them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if lower is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.6), dpi=110, layout="constrained")
        low_ax = None
    else:
        fig, (ax, low_ax) = plt.subplots(2, 1, figsize=(6.4, 6.4), dpi=110, layout="constrained", sharex=True,
                                         gridspec_kw={"height_ratios": [3, 2]})
    ax2: Any = ax.twinx() if any(line.right for line in lines) else None
    cuts = _Cuts(floor=_log_floor(lines) if yscale == "log" else math.nan)
    handles = _draw(ax, ax2, lines, cuts=cuts, log_floor=None if math.isnan(cuts.floor) else cuts.floor)
    if yscale != "linear":
        ax.set_yscale(yscale)
        if yscale == "log":  # plain numbers at 1-2-5 steps, not 6 x 10^1
            from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            formatter = ScalarFormatter()
            formatter.set_scientific(False)
            ax.yaxis.set_major_formatter(formatter)
            ax.yaxis.set_minor_formatter(NullFormatter())
    if ylim is not None:
        ax.set_ylim(*ylim)
    elif not math.isnan(cuts.floor):
        ax.set_ylim(bottom=cuts.floor)  # bars cut at the floor end on the axis
    if notes is not None:
        notes += _cut_notes(cuts)
    ax.set_ylabel(ylabel)
    if ax2 is not None:
        ax2.set_ylabel(y2label or "")
    ax.set_title(title, fontsize=10)
    ax.grid(True, color="0.88", linewidth=0.6)
    bottom = ax
    if low_ax is not None and lower is not None:
        bottom = low_ax
        if lower.zero_line:
            low_ax.axhline(0.0, color="0.5", linewidth=0.8, zorder=0)
        handles += _draw(low_ax, None, lower.lines, [_DIFFERENCE_STYLE])
        low_ax.set_ylabel(lower.ylabel)
        if lower.yscale != "linear":
            low_ax.set_yscale(lower.yscale)
        low_ax.grid(True, color="0.88", linewidth=0.6)
    bottom.set_xlabel(xlabel)
    if xticks is not None:
        bottom.set_xticks(list(xticks))
    if not lines:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="0.4")
    elif handles:
        # Below the plot, never over the data; two columns when the labels are short.
        longest = max(len(str(h.get_label())) for h in handles)
        fig.legend(handles=handles, loc="outside lower center", ncol=2 if len(handles) > 1 and longest <= 38 else 1,
                   fontsize=8, frameon=False)
    if note:
        fig.text(0.01, 0.01, note, fontsize=7, color="0.35", ha="left", va="bottom")
    return fig
