"""Experiments: sweeps, resume, the store, executors, statistics, reproduce."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import hoplab
from conftest import SMALL_CHAIN, run_cli
from hoplab import _core, campaign
from hoplab.campaign import SweepStats, config_hash, parse_range, parse_vary, sweep
from hoplab.papers import Experiment, ExperimentData, Figure, FigureResult, Paper, judged, register
from hoplab.papers.verdicts import HOLDS, INCONCLUSIVE, NOT_REPRODUCED, PaperNumber, greater
from hoplab.plots import Line, line_figure
from hoplab.report import reproduce
from hoplab.stats import jain, mean_ci, summarize, t_quantile
from hoplab.store import Store

# Columns that legitimately differ between two executions of the same run.
TIMING = ["wall_seconds", "sim_call_seconds", "task_seconds", "finished_at", "sweep"]


@pytest.fixture
def chain() -> hoplab.Scenario:
    return hoplab.Scenario.from_toml(SMALL_CHAIN).set("duration_s", 2.0).set("warmup_s", 0.5)


@pytest.fixture
def count_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count simulator calls made in this process (serial executor)."""
    calls: list[int] = []
    real = _core.simulate

    def counting(config: str, seed: int | None = None, series: bool = False,
                 wall_limit_s: float | None = None, **options: Any) -> str:
        calls.append(1)
        return real(config, seed, series, wall_limit_s, **options)

    monkeypatch.setattr(_core, "simulate", counting)
    assert campaign.execute.__globals__["_core"] is _core
    return calls


# Parameters.
def test_vary_lists_and_ranges() -> None:
    assert parse_vary("flows.0.rate_kbps=20,40,80") == ("flows.0.rate_kbps", [20, 40, 80])
    assert parse_vary("flows.0.cc=newreno,vegas") == ("flows.0.cc", ["newreno", "vegas"])
    assert parse_vary("topology.nodes=3..9:2") == ("topology.nodes", [3, 5, 7, 9])
    assert parse_vary("topology.nodes=3..5") == ("topology.nodes", [3, 4, 5])
    assert parse_range("x", "0.1..0.5:0.2") == [0.1, 0.3, 0.5]
    assert parse_range("x", "20..300:40") == [20, 60, 100, 140, 180, 220, 260, 300]


@pytest.mark.parametrize(("spec", "expected"), [
    ("duration_s=5..1", ["duration_s", "empty range"]),
    ("duration_s=1..5:0", ["duration_s", "empty range", "step"]),
    ("duration_s=", ["duration_s", "no values"]),
    ("duration_s", ["KEY=V1,V2"]),
    ("duration_s=a..b", ["duration_s", "not a range"]),
])
def test_bad_vary_specs(spec: str, expected: list[str]) -> None:
    with pytest.raises(hoplab.ScenarioError) as error:
        parse_vary(spec)
    for text in expected:
        assert text in str(error.value)


def test_unknown_parameter_is_named(chain: hoplab.Scenario) -> None:
    with pytest.raises(hoplab.ScenarioError) as error:
        sweep(chain, vary={"flows.0.rate_kbp": [1, 2]}, executor="serial")
    assert error.value.key == "flows.0.rate_kbp" and "unknown parameter" in str(error.value)
    with pytest.raises(hoplab.ScenarioError, match="seed"):
        sweep(chain, vary={"seed": [1, 2]}, executor="serial")


def test_config_hash_is_the_cores(chain: hoplab.Scenario) -> None:
    for value in (1e-5, 1.5e-7, 0.25, 1e21):
        scenario = chain.copy().set("radio.capture_threshold_db", value)
        assert config_hash(scenario.validate()) == hoplab.run(scenario, seed=3).config_hash, value


# Sweeps, the store, resume.
def test_sweep_rows_seeds_and_determinism(chain: hoplab.Scenario, tmp_path: Path) -> None:
    assert hoplab.sweep is sweep and hoplab.Store is Store
    frame = sweep(chain, vary={"flows.0.packet_bytes": [256, 512]}, runs=3, store=tmp_path / "s", executor="serial")
    assert len(frame) == 6 and (frame["status"] == "ok").all()
    assert frame["flows.0.packet_bytes"].tolist() == [256, 256, 256, 512, 512, 512]
    assert frame["run"].tolist() == [0, 1, 2, 0, 1, 2]
    assert frame["seed"].tolist() == [1, 2, 3, 1, 2, 3]  # seed = scenario seed + run number
    assert frame["version"].unique().tolist() == [hoplab.__version__]
    assert frame["goodput_kbps"].gt(0).all()
    # Each run is a pure function of (scenario, parameters, run number).
    again = hoplab.run(chain.copy().set("flows.0.packet_bytes", 512), seed=2)
    row = frame[(frame["flows.0.packet_bytes"] == 512) & (frame["run"] == 1)].iloc[0]
    assert row["goodput_kbps"] == pytest.approx(again.flows["goodput_kbps"].sum(), rel=0, abs=0)
    assert row["config_hash"] == again.config_hash
    # Tidy scalars per flow and node.
    scalars = Store(tmp_path / "s").scalars([row["run_id"]])
    nodes = scalars[(scalars["entity"] == "node") & (scalars["metric"] == "rts_attempts_per_packet")]
    assert sorted(nodes["id"]) == [0, 1, 2, 3, 4]
    assert nodes.set_index("id")["value"].to_dict() == pytest.approx(
        again.nodes.set_index("id")["rts_attempts_per_packet"].to_dict())


def test_resume_runs_only_what_is_missing(chain: hoplab.Scenario, tmp_path: Path, count_calls: list[int]) -> None:
    store = Store(tmp_path / "store")
    vary = {"flows.0.packet_bytes": [256, 512]}
    first = sweep(chain, vary=vary, runs=3, store=store, executor="serial", flush_every=2)
    assert len(count_calls) == 6 and len(store.files("runs")) == 3
    # Nothing missing: nothing runs.
    count_calls.clear()
    again = sweep(chain, vary=vary, runs=3, store=store, executor="serial")
    assert count_calls == []
    pd.testing.assert_frame_equal(first.drop(columns=TIMING), again.drop(columns=TIMING))
    # Lose one batch (2 runs): only those run again, with the same results.
    store.files("runs")[1].unlink()
    count_calls.clear()
    resumed = sweep(chain, vary=vary, runs=3, store=store, executor="serial")
    assert len(count_calls) == 2
    pd.testing.assert_frame_equal(first.drop(columns=TIMING), resumed.drop(columns=TIMING))
    # More runs later: only the new run numbers execute.
    count_calls.clear()
    more = sweep(chain, vary=vary, runs=4, store=store, executor="serial")
    assert len(count_calls) == 2 and len(more) == 8
    # A changed configuration is a different run.
    count_calls.clear()
    sweep(chain.copy().set("mac.queue_packets", 20), vary=vary, runs=1, store=store, executor="serial")
    assert len(count_calls) == 2


def test_interrupted_sweep_keeps_what_finished(chain: hoplab.Scenario, tmp_path: Path,
                                               count_calls: list[int]) -> None:
    store = Store(tmp_path / "store")
    vary = {"flows.0.packet_bytes": [128, 256, 512]}

    def interrupt_after_four(event: str, info: Mapping[str, Any]) -> None:
        if event == "advance" and info["executed"] == 4:
            raise KeyboardInterrupt

    stats = SweepStats()
    with pytest.raises(KeyboardInterrupt):
        sweep(chain, vary=vary, runs=2, store=store, executor="serial", progress=interrupt_after_four, stats=stats)
    assert stats.interrupted and len(store.runs()) == 4  # flushed on the way out
    count_calls.clear()
    frame = sweep(chain, vary=vary, runs=2, store=store, executor="serial")
    assert len(count_calls) == 2 and len(frame) == 6 and (frame["status"] == "ok").all()


def test_failed_runs_are_recorded_and_the_sweep_goes_on(chain: hoplab.Scenario, tmp_path: Path) -> None:
    events: list[tuple[str, Any]] = []
    stats = SweepStats()
    # check_parameters=False: a point the core rejects runs (and fails) as a
    # run that fails in the simulator does; by default it is refused up front.
    frame = sweep(chain, vary={"flows.0.dst": [4, 9]}, runs=2, store=tmp_path / "s", executor="serial",
                  stats=stats, progress=lambda event, info: events.append((event, dict(info))),
                  check_parameters=False)
    assert frame["status"].tolist() == ["ok", "ok", "failed", "failed"]
    failed = frame[frame["status"] == "failed"]
    assert failed["error"].str.contains("flows\\[0\\].dst").all() and failed["error"].str.contains("does not exist").all()
    assert stats.failed == 2 and stats.failures[0][0] == {"flows.0.dst": 9}
    assert [e for e, _ in events].count("failure") == 2
    store = Store(tmp_path / "s")
    counts = store.query("SELECT status, count(*) AS n FROM runs GROUP BY status ORDER BY status")
    assert counts.to_dict("list") == {"status": ["failed", "ok"], "n": [2, 2]}
    assert set(store.scalars()["run_id"]) == set(frame.loc[frame["status"] == "ok", "run_id"])


def test_a_run_over_its_wall_clock_limit_fails_and_is_retried_by_the_next_sweep(
        chain: hoplab.Scenario, tmp_path: Path) -> None:
    long_chain = chain.copy().set("duration_s", 1200.0)  # about 0.7 s of work
    store = Store(tmp_path / "s")
    stats = SweepStats()
    frame = sweep(long_chain, runs=1, store=store, executor="serial", stats=stats, run_timeout_s=0.05)
    assert frame["status"].tolist() == ["failed"]
    assert frame["error"].iloc[0].startswith("simulation failed: wall-clock limit of 0.050 s exceeded")
    assert stats.failed == 1
    # The limit is not part of the run's identity: the next sweep retries
    # the run, and a run within its limit equals an unlimited one.
    retried = sweep(long_chain, runs=1, store=store, executor="serial", run_timeout_s=600.0)
    unlimited = sweep(long_chain, runs=1, executor="serial")
    assert retried["status"].tolist() == ["ok"]
    pd.testing.assert_frame_equal(retried.drop(columns=TIMING), unlimited.drop(columns=TIMING))
    with pytest.raises(hoplab.ScenarioError) as caught:
        sweep(chain, runs=1, executor="serial", run_timeout_s=-1.0)
    assert caught.value.key == "run_timeout_s"


def test_a_crash_while_writing_never_corrupts_the_store(chain: hoplab.Scenario, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "s")
    sweep(chain, vary={"flows.0.packet_bytes": [256]}, runs=1, store=store, executor="serial")
    real = Store._write_table

    def crash_on_runs(self: Store, kind: str, batch: str, table: Any) -> None:
        if kind == "runs":
            raise OSError("disk full")
        real(self, kind, batch, table)

    monkeypatch.setattr(Store, "_write_table", crash_on_runs)
    with pytest.raises(OSError, match="disk full"):
        sweep(chain, vary={"flows.0.packet_bytes": [512]}, runs=1, store=store, executor="serial")
    monkeypatch.setattr(Store, "_write_table", real)
    # The store still reads: the old run, no half-written one, no orphan scalars, no temp file left.
    assert len(store.runs()) == 1
    assert set(store.scalars()["run_id"]) == set(store.runs()["run_id"])
    assert not [p for p in (tmp_path / "s").rglob("*") if p.name.endswith((".partial", ".tmp"))]
    frame = sweep(chain, vary={"flows.0.packet_bytes": [512]}, runs=1, store=store, executor="serial")
    assert frame["status"].tolist() == ["ok"] and len(store.runs()) == 2


def test_series_are_stored_long(chain: hoplab.Scenario, tmp_path: Path) -> None:
    frame = sweep(chain, runs=1, store=tmp_path / "s", executor="serial", series=True)
    series = Store(tmp_path / "s").series(frame["run_id"])
    assert {"time_s", "entity", "id", "metric", "value"} <= set(series.columns)
    assert len(series) == len(hoplab.run(chain, seed=1, series=True).series)


def test_dask_gives_the_same_rows_as_local(chain: hoplab.Scenario, tmp_path: Path) -> None:
    vary = {"flows.0.packet_bytes": [256, 512]}
    local = sweep(chain, vary=vary, runs=2, store=tmp_path / "local", executor="local", jobs=2)
    dask = sweep(chain, vary=vary, runs=2, store=tmp_path / "dask", executor="dask", jobs=2)
    assert (local["status"] == "ok").all() and len(local) == 4
    pd.testing.assert_frame_equal(local.drop(columns=TIMING), dask.drop(columns=TIMING))

    def scalars(path: Path) -> pd.DataFrame:
        frame = Store(path).scalars().drop(columns=["batch"])
        return frame.sort_values(["run_id", "entity", "id", "metric"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(scalars(tmp_path / "local"), scalars(tmp_path / "dask"))


# Statistics.
def test_student_t_interval_of_a_known_sample() -> None:
    # Worked by hand: mean 73/6, s^2 = 26.8333/5, t(0.975, 5) = 2.5706 (tables).
    mean, std, half = mean_ci([12.0, 15.0, 9.0, 14.0, 10.0, 13.0])
    assert mean == pytest.approx(12.16667, abs=1e-5)
    assert std == pytest.approx(2.31661, abs=1e-5)
    assert t_quantile(0.95, 5) == pytest.approx(2.5706, abs=1e-4)
    assert half == pytest.approx(2.4311, abs=1e-4)
    assert t_quantile(0.95, 4) == pytest.approx(2.7764, abs=1e-4)
    assert mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])[2] == pytest.approx(1.9632, abs=1e-4)
    one = mean_ci([7.0])
    assert one[0] == 7.0 and math.isnan(one[1]) and math.isnan(one[2])


def test_summarize_per_point() -> None:
    frame = pd.DataFrame({"rate": [20, 20, 20, 40, 40], "value": [1.0, 2.0, 3.0, 5.0, 7.0]})
    summary = summarize(frame, by="rate")
    assert summary["rate"].tolist() == [20, 40] and summary["n"].tolist() == [3, 2]
    assert summary["mean"].tolist() == [2.0, 6.0]
    assert summary.loc[0, "ci_half"] == pytest.approx(4.302653 * 1.0 / math.sqrt(3), abs=1e-5)
    assert summary.loc[1, "ci_half"] == pytest.approx(12.706205 * math.sqrt(2) / math.sqrt(2), abs=1e-5)


def test_jain_fairness() -> None:
    assert jain([5.0, 5.0, 5.0, 5.0]) == pytest.approx(1.0)
    assert jain([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain([1.0, 2.0, 3.0]) == pytest.approx(36 / 42)
    assert math.isnan(jain([])) and math.isnan(jain([0.0, 0.0]))


def test_figure_files(tmp_path: Path) -> None:
    paths = line_figure([Line("a", [1, 2, 3], [1.0, 4.0, 9.0], [0.5, 0.5, math.nan]),
                         Line("b", [1, 2, 3], [3.0, 2.0, 1.0], right=True)],
                        tmp_path / "fig", title="t", xlabel="x", ylabel="y", y2label="y2")
    assert paths["png"].read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in paths["svg"].read_bytes()[:500]
    assert pd.read_csv(paths["csv"])["series"].tolist() == ["a"] * 3 + ["b"] * 3


# Reproduce.
def _stub_paper() -> Paper:
    def goodput(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
        rates = data["rates"]
        rates.require()
        summary = summarize(rates.metric("goodput_kbps", "flow", ident=0), by="flows.0.rate_kbps")
        paths = line_figure([Line("goodput", summary["flows.0.rate_kbps"], summary["mean"], summary["ci_half"])],
                            out / "figa", title="goodput", xlabel="rate", ylabel="kbps")
        per_rate = {float(rate): dict(zip(part["run"], part["value"], strict=True))
                    for rate, part in rates.metric("goodput_kbps", "flow", ident=0).groupby("flows.0.rate_kbps")}
        checks = [greater("goodput rises with the rate", f"{high:g} vs {low:g} kbps", per_rate[high], per_rate[low])
                  for low, high in zip(sorted(per_rate), sorted(per_rate)[1:])]
        return judged("goodput rises with the rate", checks, paths=paths,
                      rows=[("goodput at 50 kbps", "50", f"{summary['mean'].iloc[-1]:.1f}")],
                      numbers=[PaperNumber("goodput at 50 kbps", 50.0, float(summary["mean"].iloc[-1]), "kbps")])

    def broken(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
        data["broken"].require()
        raise AssertionError("unreachable")

    scenario = hoplab.Scenario.from_toml(SMALL_CHAIN).data
    scenario["flows"][0].update(app="cbr", rate_kbps=10.0)
    return Paper(
        id="stub-paper", title="A stub", citation="nobody", source="-",
        experiments=[
            Experiment("rates", "cbr rates", scenario, vary={"flows.0.rate_kbps": [10, 30, 50]}, runs=5, quick_runs=5,
                       duration_s=3.0, warmup_s=0.5, quick_duration_s=2.0, quick_warmup_s=0.5),
            Experiment("broken", "a transport that does not exist", scenario,
                       cases={"bogus": {"flows.0.transport": "warp"}}, runs=1, quick_runs=1,
                       quick_duration_s=2.0, quick_warmup_s=0.5),
        ],
        figures=[Figure("Fig. A", "goodput vs rate", ["rates"], "goodput rises", goodput),
                 Figure("Fig. B", "needs a missing transport", ["broken"], "anything", broken)],
    )


def test_reproduce_writes_the_report(tmp_path: Path) -> None:
    paper = _stub_paper()
    result = reproduce(paper, tmp_path / "out", quick=True, executor="serial")
    assert result.figures["Fig. A"].outcome == HOLDS and result.figures["Fig. A"].holds is True
    assert result.figures["Fig. A"].verdict == "goodput rises with the rate. Agrees at both points (5 runs or more each)"
    assert result.figures["Fig. B"].outcome == NOT_REPRODUCED and result.figures["Fig. B"].holds is None
    assert result.figures["Fig. B"].verdict.startswith("flows[0].transport")
    markdown = result.markdown.read_text()
    assert "*Here*: **holds**: goodput rises with the rate. Agrees at both points" in markdown
    assert "figures/figa.png" in markdown
    assert "**not reproduced**: flows[0].transport" in markdown
    # The rule once, at the top; the paper's numbers with their ratio.
    assert markdown.count("## How verdicts are decided") == 1
    assert markdown.index("## How verdicts are decided") < markdown.index("## Findings")
    assert "| goodput at 50 kbps | 50 kbps |" in markdown and "within 25 %" in markdown
    page = result.html.read_text()
    assert "data:image/png;base64," in page and "src='figures/" not in page  # self-contained
    assert page.count("How verdicts are decided") == 1
    # Each outcome once per cell: not "holds: ... : holds".
    assert ": holds</" not in page and "holds: goodput rises with the rate: holds" not in page
    assert page.count("<span class='holds'>holds</span>") == 2  # the findings table and the figure's section
    assert (tmp_path / "out" / "figures" / "figa.svg").exists() and (tmp_path / "out" / "figures" / "figa.csv").exists()
    # Again: everything comes from the store.
    again = reproduce(paper, tmp_path / "out", quick=True, executor="serial")
    assert sum(s.executed for s in again.stats.values()) == 1  # only the failed run is tried again
    assert again.figures["Fig. A"].verdict == result.figures["Fig. A"].verdict
    # Fewer runs than a "holds" needs: the same data can only be inconclusive.
    fewer = reproduce(paper, tmp_path / "out", quick=True, executor="serial", runs=4)
    assert fewer.figures["Fig. A"].outcome == INCONCLUSIVE
    assert "a \"holds\" needs at least 5" in fewer.figures["Fig. A"].verdict


def test_stub_paper_through_the_registry(tmp_path: Path) -> None:
    register(_stub_paper())
    assert "stub-paper" in hoplab.papers.available()
    assert hoplab.papers.get_paper("stub-paper").figures[0].stem == "figa"
    with pytest.raises(ValueError, match="unknown paper 'nope'"):
        hoplab.papers.get_paper("nope")


# The command line.
def test_cli_reproduce_list(workdir: Path) -> None:
    done = run_cli("reproduce", "--list", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert "semitcp-2018" in done.stdout and "Fig. 5" in done.stdout


def test_cli_reproduce_semitcp_quick(workdir: Path) -> None:
    done = run_cli("reproduce", "semitcp-2018", "--quick", "--runs", "1", "--out", "rep", cwd=workdir, timeout_s=280)
    assert done.returncode == 0, done.stderr
    markdown = (workdir / "rep" / "report.md").read_text()
    for figure in ("Fig. 2", "Fig. 3", "Fig. 4", "Fig. 5", "Fig. 6", "Fig. 8", "Fig. 9", "Fig. 10", "Table 1",
                   "Fig. 11", "Fig. 12"):
        assert f"## {figure}" in markdown
    assert (workdir / "rep" / "report.html").exists() and "report:" in done.stdout
    assert markdown.count("## How verdicts are decided") == 1
    for line in markdown.splitlines():
        if line.startswith("*Here*"):
            # One run per point: never "holds".
            assert line.startswith(("*Here*: **inconclusive**: ", "*Here*: **does not hold**: ",
                                    "*Here*: **not reproduced**: ")), line
    # Each verdict printed once: in the table on stdout, not again on stderr.
    assert "Fig. 8" not in done.stderr and "Table 1" not in done.stderr
    for figure in ("Fig. 2", "Fig. 8", "Table 1", "Fig. 12"):
        assert done.stdout.count(f"│ {figure} ") == 1, figure


@pytest.mark.parametrize(("args", "expected"), [
    (["reproduce", "nope"], ["unknown paper 'nope'", "semitcp-2018"]),
    (["reproduce"], ["PAPER"]),
    (["sweep", "SCENARIO", "--vary", "flows.0.rate_kbp=1,2"], ["flows.0.rate_kbp", "unknown parameter"]),
    (["sweep", "SCENARIO", "--vary", "duration_s=5..1"], ["duration_s", "empty range"]),
    (["sweep", "SCENARIO", "--vary", "duration_s"], ["--vary expects KEY="]),
    (["sweep", "SCENARIO", "--vary", "flows.0.rate_kbps=10,20"], ["flows[0].rate_kbps", "every point"]),
    (["sweep", "SCENARIO", "--executor", "slurm"], ["--executor", "slurm"]),
    (["sweep", "SCENARIO", "--runs", "0"], ["--runs"]),
    (["sweep", "SCENARIO", "--runs", "2000000"], ["--runs", "more than one sweep may hold"]),
    (["sweep", "SCENARIO", "--run-timeout", "0"], ["--run-timeout", "positive number of seconds"]),
    (["sweep", "SCENARIO", "--run-timeout", "nan"], ["--run-timeout"]),
    (["reproduce", "semitcp-2018", "--run-timeout", "-5"], ["--run-timeout", "positive number of seconds"]),
    (["sweep", "missing.toml"], ["cannot read scenario file"]),
])
def test_cli_bad_input(args: list[str], expected: list[str], small_chain: Path, workdir: Path) -> None:
    done = run_cli(*[str(small_chain) if a == "SCENARIO" else a for a in args], cwd=workdir)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for text in expected:
        assert text in lines[0]
    assert not re.match(r"error: [\w.\[\]]+: --[\w-]+: ", lines[0]), f"a doubled prefix: {lines[0]}"
    assert list(workdir.iterdir()) == [], "nothing is written"


def test_cli_sweep_then_rerun(small_chain: Path, workdir: Path) -> None:
    args = ["sweep", str(small_chain), "--vary", "flows.0.packet_bytes=256,512", "--runs", "2",
            "--set", "duration_s=2", "--store", "st", "--jobs", "2"]
    done = run_cli(*args, cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert "4 runs: 4 executed, 0 already in the store, 0 failed" in done.stdout
    assert "± 95 % CI" in done.stdout and "256" in done.stdout
    assert "ETA" in done.stderr
    again = run_cli(*args, cwd=workdir)
    assert "4 runs: 0 executed, 4 already in the store" in again.stdout
    # Every run from the store: no time left to estimate, no "ETA -:--:--".
    assert "4 from store" in again.stderr and "ETA" not in again.stderr and "-:--" not in again.stderr
    query = run_cli("query", "st", "SELECT count(*) AS n FROM runs WHERE status = 'ok'", "--csv", cwd=workdir)
    assert query.returncode == 0 and query.stdout.split() == ["n", "4"]


def test_cli_ctrl_c_then_rerun_runs_only_the_missing(workdir: Path) -> None:
    scenario = workdir / "chain.toml"
    scenario.write_text(SMALL_CHAIN.replace("duration_s = 5.0", "duration_s = 60.0")
                        .replace("nodes = 5", "nodes = 15").replace("dst = 4", "dst = 14"), encoding="utf-8")
    args = [sys.executable, "-m", "hoplab", "sweep", str(scenario), "--vary", "flows.0.packet_bytes=256..1024:64",
            "--runs", "4", "--store", "st", "--jobs", "2"]
    env = {k: v for k, v in os.environ.items() if k != "HOPLAB_DEBUG"}
    process = subprocess.Popen(args, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    store = Store(workdir / "st")
    deadline = time.monotonic() + 60
    while not store.files("runs") and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    _, err = process.communicate(timeout=60)
    total = 13 * 4
    finished = len(store.runs())
    if process.returncode == 130:
        assert "interrupted" in err and 0 < finished < total
    else:  # finished before the signal arrived (-2: it came while Python was exiting)
        assert process.returncode in (0, -signal.SIGINT) and finished == total
    done = subprocess.run(args, cwd=workdir, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert f"{total} runs: {total - finished} executed, {finished} already in the store, 0 failed" in done.stdout


def _die_once(marker: str) -> str:
    """A task whose worker process dies the first time it runs."""
    path = Path(marker)
    if not path.exists():
        path.write_text("died", encoding="utf-8")
        os._exit(1)
    return "ok"


def test_local_executor_survives_a_dead_worker(tmp_path: Path) -> None:
    from hoplab.executors import LocalExecutor

    markers = [str(tmp_path / f"m{i}") for i in range(3)]
    with LocalExecutor(jobs=2, retries=5) as executor:
        results = dict(executor.map_unordered(_die_once, markers))
    assert results == {0: "ok", 1: "ok", 2: "ok"}
