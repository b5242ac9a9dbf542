"""Helpers shared by tcpw-br's figure modules: a mean with its 95 % interval
as text, per-run ratios, and the cases' styles (per-run values by point:
`ExperimentData.per_point`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hoplab.papers.tcpw_br.experiments import BR, NEWRENO, TCPW
from hoplab.stats import fmt, mean_of

__all__ = ["STYLES", "fmt", "mean_of", "ratios"]

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


def ratios(x: Mapping[int, float], y: Mapping[int, float]) -> dict[int, float]:
    """x[r] / y[r] over the runs both have (y > 0)."""
    return {r: x[r] / y[r] for r in sorted(set(x) & set(y)) if y[r] > 0}

