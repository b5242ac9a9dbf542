"""One pass over several sweeps (`hoplab.campaign.sweep_many`, what
`hoplab reproduce` runs): a run two sweeps share executes once and both
get it; every frame and count is what the sweeps run one after another
give; the runs go to the workers longest first."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import hoplab
from conftest import SMALL_CHAIN
from hoplab import _core, campaign
from hoplab.campaign import SweepPlan, SweepStats, order_longest_first, sweep, sweep_many, task_cost
from hoplab.executors import SerialExecutor
from hoplab.scenario import Scenario
from hoplab.store import Store
from hoplab.tasks import expand

# Columns that differ between two executions of the same run.
TIMING = ["wall_seconds", "sim_call_seconds", "task_seconds", "finished_at"]


@pytest.fixture
def chain() -> hoplab.Scenario:
    return hoplab.Scenario.from_toml(SMALL_CHAIN).set("duration_s", 2.0).set("warmup_s", 0.5)


@pytest.fixture
def count_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The scenario of every simulator call made in this process (serial executor)."""
    calls: list[str] = []
    real = _core.simulate

    def counting(config: str, seed: int | None = None, series: bool = False,
                 wall_limit_s: float | None = None, **options: Any) -> str:
        calls.append(f"{config}|{seed}")
        return real(config, seed, series, wall_limit_s, **options)

    monkeypatch.setattr(_core, "simulate", counting)
    assert campaign.execute.__globals__["_core"] is _core
    return calls


class RecordingExecutor(SerialExecutor):
    """The serial executor, keeping the order tasks were handed to it."""

    def __init__(self) -> None:
        self.order: list[Any] = []

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        self.order.extend(tasks)
        return super().map_unordered(fn, tasks)


def _plans(chain: hoplab.Scenario) -> list[SweepPlan]:
    """Five sweeps over the same chain (512-byte packets to node 4 unless
    varied): b shares packet size 512 with a (both seeds); c names b's 1024
    and a's 512 as cases; d's dst 4 is a's 512 at seed 1; d and e share
    dst 9, a point the core rejects (it fails in both)."""
    return [
        SweepPlan("a", chain, {"flows.0.packet_bytes": [256, 512]}, 2),
        SweepPlan("b", chain, {"flows.0.packet_bytes": [512, 1024]}, 2),
        SweepPlan("c", chain, None, 2, cases={"big": {"flows.0.packet_bytes": 1024}, "small": {}}),
        SweepPlan("d", chain, {"flows.0.dst": [4, 9]}, 1),
        SweepPlan("e", chain, {"flows.0.dst": [9]}, 1),
    ]


def _counts(stats: SweepStats) -> tuple[Any, ...]:
    return stats.total, stats.skipped, stats.executed, stats.failed, stats.failures


def test_a_run_two_sweeps_share_executes_once_and_both_get_it(chain: hoplab.Scenario, tmp_path: Path,
                                                               count_calls: list[str]) -> None:
    plans = _plans(chain)
    frames = sweep_many(plans, store=tmp_path / "s", executor="serial", check_parameters=False)
    # 4 + 4 + 4 + 2 + 1 runs named, 7 distinct: 256, 512, 1024 bytes x 2 seeds, and dst 9.
    assert len(count_calls) == len(set(count_calls)) == 7
    a, b, c, d, e = frames
    shared = a[a["flows.0.packet_bytes"] == 512].set_index("run")
    again = b[b["flows.0.packet_bytes"] == 512].set_index("run")
    assert (shared["run_id"] == again["run_id"]).all() and (again["status"] == "ok").all()
    assert (shared["goodput_kbps"] == again["goodput_kbps"]).all() and (again["sweep"] == "a").all()
    big = c[c["case"] == "big"].set_index("run")
    assert (big["run_id"] == b[b["flows.0.packet_bytes"] == 1024].set_index("run")["run_id"]).all()
    assert d["status"].tolist() == ["ok", "failed"] and e["status"].tolist() == ["failed"]
    assert e["run_id"].iloc[0] == d["run_id"].iloc[1]
    # As the sweeps one after another count: b finds a's two runs made, c finds all four, d one.
    assert [(p.stats.total, p.stats.skipped, p.stats.executed) for p in plans] == [
        (4, 0, 4), (4, 2, 2), (4, 4, 0), (2, 1, 1), (1, 0, 1)]
    # The failed run counts as failed in both d and e (a later sweep would have tried it again).
    assert [p.stats.failed for p in plans] == [0, 0, 0, 1, 1]
    assert e.loc[0, "flows.0.dst"] == 9 and plans[4].stats.failures[0][0] == {"flows.0.dst": 9}


def test_the_frames_and_counts_are_those_of_the_sweeps_one_after_another(chain: hoplab.Scenario,
                                                                          tmp_path: Path) -> None:
    one_pass = _plans(chain)
    frames = sweep_many(one_pass, store=tmp_path / "pass", executor="serial", check_parameters=False)
    sequential = _plans(chain)
    alone = [sweep(p.scenario, p.vary, p.runs, cases=p.cases, store=tmp_path / "seq", executor="serial",
                   name=p.name, check_parameters=False, stats=p.stats) for p in sequential]
    for got, expected in zip(frames, alone, strict=True):
        assert list(got.columns) == list(expected.columns)
        # A failed run is tried again by each later sweep one after another (its row names the
        # last, as its scenario for a failed run); in one pass it runs once, as the first naming it.
        for frame in (got, expected):
            frame.loc[frame["status"] == "failed", ["sweep", "scenario"]] = None
        pd.testing.assert_frame_equal(got.drop(columns=TIMING), expected.drop(columns=TIMING))
    for got_plan, expected_plan in zip(one_pass, sequential, strict=True):
        assert _counts(got_plan.stats) == _counts(expected_plan.stats)
    # The stores' views give every run the same parameters.
    cols = "run_id, status, \"flows.0.packet_bytes\", \"case\", \"flows.0.dst\""
    query = f"SELECT {cols} FROM runs ORDER BY run_id"
    pd.testing.assert_frame_equal(Store(tmp_path / "pass").query(query), Store(tmp_path / "seq").query(query))
    # Run again: everything comes from the store, nothing executes.
    again = _plans(chain)
    sweep_many(again, store=tmp_path / "pass", executor="serial", check_parameters=False)
    assert [p.stats.executed for p in again] == [0, 0, 0, 1, 1]  # only the failed run is tried again


def test_runs_go_to_the_workers_longest_first(chain: hoplab.Scenario, tmp_path: Path) -> None:
    executor = RecordingExecutor()
    plans = [SweepPlan("short", chain, {"duration_s": [1.0, 3.0]}, 2),
             SweepPlan("long", chain.copy().set("topology.nodes", 7).set("flows.0.dst", 6), {"duration_s": [2.0]}, 2)]
    frames = sweep_many(plans, store=tmp_path / "s", executor=executor)
    durations = [(t.params["duration_s"], t.run) for t in executor.order]
    # cost = simulated s x (nodes + flows): 3 x 6 = 18, then 2 x 8 = 16, then 1 x 6; ties keep their order.
    assert durations == [(3.0, 0), (3.0, 1), (2.0, 0), (2.0, 1), (1.0, 0), (1.0, 1)]
    # The frames keep the sweeps' own order.
    assert frames[0]["duration_s"].tolist() == [1.0, 1.0, 3.0, 3.0] and frames[0]["run"].tolist() == [0, 1, 0, 1]


def test_task_cost_grows_with_simulated_time_nodes_and_flows(chain: hoplab.Scenario) -> None:
    def cost(scenario: hoplab.Scenario) -> float:
        tasks, _ = expand(Scenario(scenario.data), {}, 1)
        return task_cost(tasks[0])

    base = cost(chain)
    assert base == pytest.approx(2.0 * (5 + 1))  # 2 simulated s, 5 nodes, 1 flow
    assert cost(chain.copy().set("duration_s", 4.0)) == pytest.approx(2 * base)
    assert cost(chain.copy().set("topology.nodes", 11)) > base
    grid = chain.copy().set("topology", {"kind": "grid", "rows": 3, "cols": 4, "spacing_m": 200.0})
    assert cost(grid) == pytest.approx(2.0 * (12 + 1))
    tasks, _ = expand(Scenario(chain.data), {"duration_s": [1.0, 5.0, 3.0]}, 1)
    assert [t.params["duration_s"] for t in order_longest_first(tasks)] == [5.0, 3.0, 1.0]


def _paper_with_a_shared_experiment() -> Any:
    """test_experiments' stub paper, plus an experiment whose five runs are
    the first one's at 50 kbps, drawn by a figure of its own."""
    import dataclasses

    from hoplab.papers import Experiment, Figure, judged
    from hoplab.papers.verdicts import greater
    from test_experiments import _stub_paper

    paper = _stub_paper()
    rates = paper.experiment("rates")
    top = Experiment("top", "the 50 kbps point again", rates.scenario, vary={"flows.0.rate_kbps": [50]}, runs=5,
                     quick_runs=5, duration_s=3.0, warmup_s=0.5, quick_duration_s=2.0, quick_warmup_s=0.5)

    def above(data: Any, out: Path) -> Any:
        goodput = data["top"].per_run("goodput_kbps")
        return judged("above 1 kbps", [greater("goodput above 1 kbps", "50 kbps", goodput,
                                               dict.fromkeys(goodput, 1.0))])

    return dataclasses.replace(paper, experiments=[*paper.experiments, top],
                               figures=[*paper.figures, Figure("Fig. C", "the top point", ["top"], "some", above)])


def _report_lines(out: Path) -> list[str]:
    text = (out / "report.md").read_text().replace(str(out), "OUT")
    return [line for line in text.splitlines() if not line.startswith(("- **date**", "- **wall time**"))]


def test_a_reproduction_is_the_same_with_views_and_figures_made_by_forked_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from hoplab import report
    from hoplab.report import reproduce

    real = report._make_figure
    drawn_by = tmp_path / "drawn-by"
    drawn_by.mkdir()

    def noting_the_process(figure: Any, data: Any, out: Path) -> Any:
        (drawn_by / f"{figure.stem}-{os.getpid()}").touch()
        return real(figure, data, out)

    monkeypatch.setattr(report, "_make_figure", noting_the_process)
    paper = _paper_with_a_shared_experiment()
    serial = reproduce(paper, tmp_path / "serial", quick=True, executor="serial")
    assert {p.name for p in drawn_by.iterdir()} == {f"fig{x}-{os.getpid()}" for x in "abc"}
    for made in drawn_by.iterdir():
        made.unlink()
    local = reproduce(paper, tmp_path / "local", quick=True, executor="local", jobs=2)
    pids = {int(p.name.split("-")[1]) for p in drawn_by.iterdir()}
    assert len(list(drawn_by.iterdir())) == 3 and os.getpid() not in pids  # drawn by the workers
    assert _report_lines(tmp_path / "serial") == _report_lines(tmp_path / "local")
    # The shared runs executed once, counted as the experiments one after another count them.
    assert "- **runs**: 21 (16 executed now, 5 from the store, 1 failed)" in _report_lines(tmp_path / "local")
    assert {name: (s.total, s.skipped, s.executed) for name, s in local.stats.items()} == {
        "rates": (15, 0, 15), "broken": (1, 0, 1), "top": (5, 5, 0)}
    assert local.figures["Fig. C"].outcome == serial.figures["Fig. C"].outcome == "holds"
    for name in ("figures/figa.png", "figures/figa.csv", "views/rates.html", "views/top.html"):
        assert (tmp_path / "serial" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name
