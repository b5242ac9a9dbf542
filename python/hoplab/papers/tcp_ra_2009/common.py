"""Helpers shared by tcp-ra-2009's figure modules: a mean with its 95 %
interval as text, and saving a figure drawn with `hoplab.plots.draw_figure`
(for tick labels `line_figure` does not take) the way `line_figure` saves."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoplab.stats import fmt, mean_of

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["fmt", "mean_of", "save_figure"]



def save_figure(fig: Any, stem: Path, data: pd.DataFrame) -> dict[str, Path]:
    """Save a drawn figure as PNG and SVG with `data` as CSV (as `line_figure` does)."""
    import matplotlib.pyplot as plt

    from hoplab.plots import save_csv, save_drawing
    from hoplab.stats import FIGURE_DIGITS, display_frame

    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = {"png": stem.with_suffix(".png"), "svg": stem.with_suffix(".svg"), "csv": stem.with_suffix(".csv")}
    save_drawing(fig, paths)
    plt.close(fig)
    save_csv(display_frame(data, FIGURE_DIGITS), paths["csv"])
    return paths
