"""Figures a reader can use, and numbers without float noise: legends
outside the data, each curve's axis named on two-axis figures, a lower panel
for paired differences, log axes with plain numbers; CSV files and
`hoplab query` output rounded for display (the store stays exact)."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import hoplab
from conftest import SMALL_CHAIN, run_cli
from hoplab.plots import Line, Panel, draw_figure, line_figure
from hoplab.stats import display_frame, round_significant
from hoplab.store import Store


def _overlap(a: object, b: object) -> bool:
    return bool(a.overlaps(b))  # type: ignore[attr-defined]


def test_the_legend_never_covers_the_data() -> None:
    # Curves that fill the whole plotting area: a legend "at the best place" inside would cover some.
    xs = [float(x) for x in range(20)]
    lines = [Line("goodput", xs, [x * 10 for x in xs]), Line("loss", xs, [200 - x * 10 for x in xs]),
             Line("APR", xs, [1 + x / 10 for x in xs], right=True)]
    fig = draw_figure(lines, title="t", xlabel="x", ylabel="kbps", y2label="attempts",
                      lower=Panel([Line("difference", xs, [1.0] * 20, [0.5] * 20)], "diff"))
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        [legend] = fig.legends
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            assert not _overlap(box, ax.get_window_extent(renderer)), ax.get_ylabel()
        texts = [t.get_text() for t in legend.get_texts()]
        # Two y axes: each entry says which one it is read on.
        assert texts == ["goodput (left axis)", "loss (left axis)", "APR (right axis)", "difference"]
    finally:
        plt.close(fig)


def test_log_axis_ticks_are_plain_numbers() -> None:
    fig = draw_figure([Line("goodput", [1, 2, 14], [814.0, 340.0, 38.0])], title="t", xlabel="hops",
                      ylabel="kbps", yscale="log")
    try:
        fig.canvas.draw()
        labels = [t.get_text() for t in fig.axes[0].get_yticklabels() if t.get_text()]
        assert labels and all("^" not in t and "times" not in t for t in labels), labels
        assert "100" in labels and "500" in labels
    finally:
        plt.close(fig)


def _bar_ends(ax: object) -> list[tuple[float, float]]:
    """(low, high) of every error bar drawn on `ax`."""
    ends = []
    for container in ax.containers:  # type: ignore[attr-defined]
        for collection in container.lines[2]:
            ends += [(float(seg[0][1]), float(seg[1][1])) for seg in collection.get_segments()]
    return ends


def test_bars_of_a_nonnegative_quantity_never_go_below_zero(tmp_path: Path) -> None:
    # Fig. 5's case: five skewed runs, mean 30 kbps, half-width 80: the t-interval reaches -50.
    throughput = Line("throughput", [20.0, 40.0], [30.0, 100.0], [80.0, 10.0])
    difference = Line("difference", [20.0, 40.0], [5.0, -3.0], [10.0, 10.0])
    notes: list[str] = []
    fig = draw_figure([throughput], title="t", xlabel="x", ylabel="kbps", notes=notes,
                      lower=Panel([difference], "diff"))
    try:
        main, low = fig.axes
        assert sorted(_bar_ends(main)) == [(0.0, 110.0), (90.0, 110.0)]
        assert min(lo for lo, _ in _bar_ends(low)) == -13.0  # a difference may be negative: not cut
    finally:
        plt.close(fig)
    assert notes[0].startswith("Error bars: the 95 % Student-t interval") and "cut at 0" in notes[0]
    assert notes[1] == "Cut at 0 here (1 point): throughput at 20."
    paths = line_figure([throughput], tmp_path / "f", title="t", xlabel="x", ylabel="kbps")
    from hoplab.papers import judged

    assert judged("r", [], paths=paths, notes=["own"]).notes == ["own", *notes]
    # Signed by choice: not cut.
    fig = draw_figure([Line("change", [1.0], [3.0], [5.0], nonnegative=False)], title="t", xlabel="x", ylabel="y")
    try:
        assert _bar_ends(fig.axes[0]) == [(-2.0, 8.0)]
    finally:
        plt.close(fig)


def test_log_scale_bars_stay_on_the_axis() -> None:
    # Fig. 8's case: a bar whose lower end is 0 or below would run off a log axis.
    notes: list[str] = []
    fig = draw_figure([Line("gain", [1.0, 2.0, 3.0], [800.0, 40.0, 8.0], [100.0, 60.0, 2.0])], title="t",
                      xlabel="hops", ylabel="kbps", yscale="log", notes=notes)
    try:
        fig.canvas.draw()
        ax = fig.axes[0]
        bottom = ax.get_ylim()[0]
        assert bottom == 2.0  # a quarter of the smallest point
        ends = _bar_ends(ax)
        assert all(lo >= bottom for lo, _ in ends) and (2.0, 100.0) in ends and (6.0, 10.0) in ends
    finally:
        plt.close(fig)
    assert any(n.startswith("Log axis: a bar whose lower end is at or below 2 ") and "gain at 2" in n for n in notes)


def test_figure_csv_has_no_float_noise(tmp_path: Path) -> None:
    paths = line_figure([Line("a", [1.0, 2.0], [811.6633600000001, 0.1 + 0.2], [0.30000000000000004, math.nan])],
                        tmp_path / "fig", title="t", xlabel="x", ylabel="y")
    text = paths["csv"].read_text()
    assert "811.663," in text and "0.3," in text and "0000000" not in text
    assert pd.read_csv(paths["csv"])["y"].tolist() == [811.663, 0.3]


def test_query_shows_sql_null_as_null_never_as_nan(tmp_path: Path, workdir: Path) -> None:
    chain = hoplab.Scenario.from_toml(SMALL_CHAIN).set("duration_s", 1.0).set("warmup_s", 0.5)
    hoplab.sweep(chain, runs=1, store=tmp_path / "st", executor="serial")
    sql = "SELECT NULL::VARCHAR AS t, NULL::DOUBLE AS d, 'nan'::DOUBLE AS n, 'a,b' AS s, 2 AS i"
    table = run_cli("query", str(tmp_path / "st"), sql, cwd=workdir)
    assert table.returncode == 0, table.stderr
    row = [line for line in table.stdout.splitlines() if "a,b" in line][0]
    assert [cell.strip() for cell in row.strip("│ ").split("│")] == ["NULL", "NULL", "nan", "a,b", "2"], row
    csv = run_cli("query", str(tmp_path / "st"), sql, "--csv", cwd=workdir)
    assert csv.stdout.splitlines() == ["t,d,n,s,i", ',,nan,"a,b",2']
    # DESCRIBE's empty key / default / extra columns (text NULLs).
    described = run_cli("query", str(tmp_path / "st"), "DESCRIBE runs", cwd=workdir)
    assert "nan" not in described.stdout and "NULL" in described.stdout


def test_rounding_for_display() -> None:
    assert round_significant(811.6633600000001, 10) == 811.66336
    assert repr(round_significant(811.6633600000001, 6)) == "811.663"
    assert round_significant(1234567.0, 6) == 1234570.0
    assert math.isnan(round_significant(math.nan, 6)) and round_significant(0.0, 6) == 0.0
    frame = display_frame(pd.DataFrame({"n": [1, 2], "x": [0.1 + 0.2, 2.0], "s": ["a", "b"]}), 6)
    assert frame["x"].tolist() == [0.3, 2.0] and frame["n"].tolist() == [1, 2] and frame["s"].tolist() == ["a", "b"]


def test_query_prints_without_float_noise(tmp_path: Path, workdir: Path) -> None:
    chain = hoplab.Scenario.from_toml(SMALL_CHAIN).set("duration_s", 1.0).set("warmup_s", 0.5)
    hoplab.sweep(chain, runs=1, store=tmp_path / "st", executor="serial")
    sql = "SELECT 811.6633600000001::DOUBLE AS x, 0.1::DOUBLE + 0.2::DOUBLE AS y, count(*) AS n FROM runs"
    table = run_cli("query", str(tmp_path / "st"), sql, cwd=workdir)
    assert table.returncode == 0, table.stderr
    assert "811.66336" in table.stdout and "0.3 " in table.stdout and "0000000" not in table.stdout
    csv = run_cli("query", str(tmp_path / "st"), sql, "--csv", cwd=workdir)
    assert csv.stdout.splitlines() == ["x,y,n", "811.66336,0.3,1"]
    # The store itself keeps the exact value.
    exact = Store(tmp_path / "st").query("SELECT 0.1::DOUBLE + 0.2::DOUBLE AS y")["y"].iloc[0]
    assert exact == 0.1 + 0.2
