"""Figures in the papers' style: lines with markers and 95 % error bars,
black and grey, a light grid, an optional second y axis (the papers plot
throughput and APR against source rate on one figure). Every figure is
saved as PNG and SVG with its data beside it as CSV (`<stem>.png`,
`<stem>.svg`, `<stem>.csv`). Matplotlib runs headless (Agg).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Line", "line_figure"]

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
) -> dict[str, Path]:
    """Draw `lines`, save `<stem>.png`, `.svg` and (`data`, or the lines
    themselves) `.csv`; return the paths by extension. `yscale` ("log")
    and `ylim` (bottom, top; None: automatic) apply to the first y axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    ax2: Any = ax.twinx() if any(line.right for line in lines) else None
    handles = []
    for i, line in enumerate(lines):
        style = _STYLES[i % len(_STYLES)]
        target = ax2 if line.right else ax
        errs = [float(e) for e in line.err] if len(line.err) else []
        err = [e if not math.isnan(e) else 0.0 for e in errs] or None
        dense = len(line.x) > 40  # a time series: no markers
        kwargs: dict[str, Any] = {
            **style, "capsize": 3, "markersize": 5, "linewidth": 1.4,
            "markerfacecolor": "white" if line.right else line.style.get("color", style["color"]),
            "drawstyle": "steps-post" if line.steps else "default",
        }
        if dense:
            kwargs["marker"] = ""
        kwargs.update(line.style)
        handle = target.errorbar(
            list(line.x), list(line.y), yerr=err if err and any(err) else None, label=line.label, **kwargs,
        )
        if line.legend:
            handles.append(handle)
    ax.set_xlabel(xlabel)
    if yscale != "linear":
        ax.set_yscale(yscale)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    if ax2 is not None:
        ax2.set_ylabel(y2label or "")
    ax.set_title(title, fontsize=10)
    ax.grid(True, color="0.88", linewidth=0.6)
    if xticks is not None:
        ax.set_xticks(list(xticks))
    if not lines:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="0.4")
    else:
        ax.legend(handles=handles, loc="best", fontsize=8, frameon=False)
    if note:
        fig.text(0.01, 0.01, note, fontsize=7, color="0.35", ha="left", va="bottom")
    fig.tight_layout()
    paths = {"png": stem.with_suffix(".png"), "svg": stem.with_suffix(".svg"), "csv": stem.with_suffix(".csv")}
    fig.savefig(paths["png"])
    fig.savefig(paths["svg"])
    plt.close(fig)
    if data is None:
        import pandas as pd

        rows = []
        for line in lines:
            errs = [float(e) for e in line.err] if len(line.err) else [math.nan] * len(line.x)
            for x, y, e in zip(line.x, line.y, errs, strict=True):
                rows.append({"series": line.label, "x": x, "y": y, "ci_half": e})
        data = pd.DataFrame(rows, columns=["series", "x", "y", "ci_half"])
    data.to_csv(paths["csv"], index=False)
    return paths
