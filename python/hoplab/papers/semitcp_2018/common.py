"""Helpers shared by semitcp-2018's figure modules: per-point summaries of
tidy rows, the mean-with-interval and paired-difference lines drawn, and the best operating point of a
throughput-against-source-rate curve (Fig. 5's peak, which Fig. 8 and
Table 1 compare against). Per-run values come from `hoplab.papers.per_run`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hoplab.papers.verdicts import differences
from hoplab.plots import Line
from hoplab.stats import summarize

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["best_rate", "mean_line", "paired_line", "value_summary"]


def value_summary(frame: pd.DataFrame, by: str) -> pd.DataFrame:
    """Per value of `by`, the mean of tidy rows' values and its 95 % interval (`hoplab.stats.summarize`)."""
    return summarize(frame, by=by, value="value")


def mean_line(summary: pd.DataFrame, x: str, label: str, right: bool = False, shift: float = 0.0,
              errors: bool = True) -> Line:
    """The means of a summary against `x`, with their 95 % intervals unless `errors` is False."""
    return Line(label, [float(v) + shift for v in summary[x]], [float(v) for v in summary["mean"]],
                [float(v) for v in summary["ci_half"]] if errors else [], right=right)


def best_rate(rates: Sequence[float], values: Sequence[float]) -> int:
    """Index of the best operating point: the lowest source rate whose
    goodput reaches 95 % of the highest (the peak of a sharp curve, the
    knee of a plateau)."""
    top = max(values)
    return next(i for i, v in enumerate(values) if v >= 0.95 * top)


def paired_line(x: Mapping[Any, Mapping[int, float]], y: Mapping[Any, Mapping[int, float]], label: str) -> Line:
    """Per point, the mean of the paired differences x - y and its 95 % half-width."""
    from hoplab.stats import mean_ci

    points = sorted(set(x) & set(y))
    stats = [mean_ci(differences(x[p], y[p])) for p in points]
    return Line(label, [float(p) for p in points], [s[0] for s in stats], [s[2] for s in stats])

