"""Helpers shared by tcpw-br's figure modules: per-run values by point, a
mean with its 95 % interval as text, per-run ratios, and the cases'
styles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hoplab.papers import ExperimentData
from hoplab.papers.tcpw_br.experiments import BR, NEWRENO, TCPW
from hoplab.stats import fmt, mean_of

__all__ = ["STYLES", "fmt", "mean_of", "per_point", "per_run", "ratios"]

STYLES: dict[str, dict[str, Any]] = {
    BR: {"color": "black", "marker": "o", "linestyle": "-"},
    TCPW: {"color": "tab:red", "marker": "D", "linestyle": ":"},
    NEWRENO: {"color": "dimgray", "marker": "s", "linestyle": "--"},
    "DropTail": {"color": "black", "marker": "s", "linestyle": "-"},
    "RED": {"color": "tab:red", "marker": "o", "linestyle": "--"},
    "REM": {"color": "tab:blue", "marker": "^", "linestyle": "-."},
    "PI": {"color": "tab:green", "marker": "D", "linestyle": ":"},
    "BLUE": {"color": "tab:purple", "marker": "v", "linestyle": (0, (1, 1))},
}


def per_point(data: ExperimentData, metric: str, case: str | None, param: str, ident: int = 0) -> dict[float, dict[int, float]]:
    """{point: {run: value}} of flow `ident`'s `metric` in `case`, by the value of `param`."""
    rows = data.metric(metric, "flow", case, ident)
    if rows.empty or param not in rows.columns:
        return {}
    return {float(p): {int(r): float(v) for r, v in zip(part["run"], part["value"], strict=True)}
            for p, part in rows.groupby(param)}


def per_run(data: ExperimentData, metric: str, case: str | None, ident: int) -> dict[int, float]:
    """{run: value} of flow `ident`'s `metric` in `case`."""
    rows = data.metric(metric, "flow", case, ident)
    return {int(r): float(v) for r, v in zip(rows["run"], rows["value"], strict=True)}


def ratios(x: Mapping[int, float], y: Mapping[int, float]) -> dict[int, float]:
    """x[r] / y[r] over the runs both have (y > 0)."""
    return {r: x[r] / y[r] for r in sorted(set(x) & set(y)) if y[r] > 0}

