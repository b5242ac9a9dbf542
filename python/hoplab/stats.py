"""Statistics over runs: mean, standard deviation, Student-t confidence
intervals, Jain's fairness, and helpers to pivot into the papers' tables.

The confidence interval of a point with n runs is mean ± t(1 - a/2, n - 1)
x s / sqrt(n), s the sample standard deviation (ddof = 1), t Student's
quantile (scipy.stats.t). With one run there is no interval (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["display_cell", "display_frame", "fmt", "jain", "jain_index", "mean_ci", "mean_of", "pivot", "round_significant", "summarize", "t_quantile", "tidy",
           "with_ci"]

#: Significant digits of the numbers in the figures' CSV files: more than
#: any run-to-run difference needs, few enough to hide float noise.
FIGURE_DIGITS = 6
#: Significant digits of `hoplab query`'s output: noise from summing and
#: averaging doubles sits near the 16th digit; 10 keeps every real one.
QUERY_DIGITS = 10

SUMMARY_COLUMNS = ("n", "mean", "std", "sem", "ci_half", "ci_low", "ci_high")


def t_quantile(confidence: float, dof: int) -> float:
    """Two-sided Student-t quantile: t(1 - (1 - confidence)/2, dof)."""
    from scipy.stats import t

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if dof < 1:
        return math.nan
    return float(t.ppf(0.5 + confidence / 2.0, dof))


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, sample std, half-width of the Student-t interval) of `values`,
    NaNs ignored. One value: (it, NaN, NaN); none: all NaN."""
    clean = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(clean)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = sum(clean) / n
    if n == 1:
        return mean, math.nan, math.nan
    std = math.sqrt(sum((v - mean) ** 2 for v in clean) / (n - 1))
    return mean, std, t_quantile(confidence, n - 1) * std / math.sqrt(n)


def mean_of(values: Mapping[int, float]) -> float:
    """The mean of per-run values (NaN for none)."""
    return mean_ci(list(values.values()))[0]


def fmt(values: Mapping[int, float] | Sequence[float], unit: str = "", digits: int = 1) -> str:
    """"mean ± 95 % half-width unit" of per-run values ("-" for none)."""
    vals = list(values.values()) if isinstance(values, Mapping) else list(values)
    mean, _, half = mean_ci(vals)
    if math.isnan(mean):
        return "-"
    text = f"{mean:.{digits}f}" + ("" if math.isnan(half) else f" ± {half:.{digits}f}")
    return text + (f" {unit}" if unit else "")


def jain_index(values: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); NaN if empty or all 0."""
    n = len(values)
    squares = sum(v * v for v in values)
    if n == 0 or squares == 0:
        return math.nan
    return sum(values) ** 2 / (n * squares)


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all equal, 1/n
    when one takes everything; NaN for no values or all zeros."""
    return jain_index([float(v) for v in values])


def summarize(
    frame: pd.DataFrame, by: str | Sequence[str], value: str = "value", confidence: float = 0.95
) -> pd.DataFrame:
    """One row per group of `by`: n, mean, std, sem, ci_half, ci_low,
    ci_high of column `value` (NaNs ignored), groups sorted."""
    import pandas as pd

    keys = [by] if isinstance(by, str) else list(by)
    rows = []
    if frame.empty:
        return pd.DataFrame(columns=[*keys, *SUMMARY_COLUMNS])
    for group, part in frame.groupby(keys, sort=True, dropna=False):
        group_values = group if isinstance(group, tuple) else (group,)
        values = [float(v) for v in part[value].tolist()]
        mean, std, half = mean_ci(values, confidence)
        n = sum(1 for v in values if not math.isnan(v))
        rows.append({
            **dict(zip(keys, group_values, strict=True)), "n": n, "mean": mean, "std": std,
            "sem": std / math.sqrt(n) if n > 1 else math.nan, "ci_half": half,
            "ci_low": mean - half if not math.isnan(half) else math.nan,
            "ci_high": mean + half if not math.isnan(half) else math.nan,
        })
    return pd.DataFrame(rows)


def tidy(runs: pd.DataFrame, scalars: pd.DataFrame, params: Sequence[str]) -> pd.DataFrame:
    """Scalars joined with their runs' parameters (and `run`, `seed`): one
    row per (run, entity, id, metric), ok runs only."""
    ok = runs[runs["status"] == "ok"][["run_id", *[p for p in params if p in runs.columns], "run", "seed"]]
    return scalars.drop(columns=[c for c in ("batch",) if c in scalars.columns]).merge(ok, on="run_id")


def pivot(summary: pd.DataFrame, index: str, columns: str, value: str = "mean") -> pd.DataFrame:
    """A summary as a paper table: rows `index`, one column per `columns`."""
    return summary.pivot(index=index, columns=columns, values=value)


def with_ci(summary: pd.DataFrame, digits: int = 1) -> pd.Series:
    """"mean ± ci_half" strings of a summary (for tables)."""
    import pandas as pd

    def fmt(mean: float, half: float) -> str:
        if math.isnan(mean):
            return "-"
        if math.isnan(half):
            return f"{mean:.{digits}f}"
        return f"{mean:.{digits}f} ± {half:.{digits}f}"

    return pd.Series([fmt(float(m), float(h)) for m, h in zip(summary["mean"], summary["ci_half"], strict=True)],
                     index=summary.index)


def round_significant(value: float, digits: int) -> float:
    """`value` rounded to `digits` significant digits, as the nearest double
    (so it prints without float noise: 811.6633600000001 -> 811.66336 at
    10 digits, 811.663 at 6). NaN and infinities pass through."""
    if not math.isfinite(value) or value == 0:
        return value
    return float(f"{value:.{digits}g}")


def display_cell(value: object, digits: int = FIGURE_DIGITS) -> str | None:
    """One value of a query's result as text for display: None (SQL NULL)
    stays None, so that a caller shows it as NULL or an empty field, never
    as NaN; floats rounded to `digits` significant digits (NaN is "nan")."""
    if value is None:
        return None
    if isinstance(value, float):
        return str(round_significant(value, digits))
    return str(value)


def display_frame(frame: pd.DataFrame, digits: int = FIGURE_DIGITS) -> pd.DataFrame:
    """A copy of `frame` with every float column rounded to `digits`
    significant digits, for display and CSV files; stored values stay exact."""
    import pandas as pd

    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_float_dtype(out[column].dtype):
            out[column] = [round_significant(float(v), digits) for v in out[column]]
        elif out[column].dtype == object:
            out[column] = [round_significant(v, digits) if isinstance(v, float) else v for v in out[column]]
    return out
