"""A user's edges: output paths and seed ranges are checked before any run
starts (one line, exit status 2, nothing run, nothing written), and a
sweep's store cannot fail for a path once runs have started."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

import hoplab
from conftest import SMALL_CHAIN, run_cli
from hoplab import _core, campaign
from hoplab.campaign import sweep
from hoplab.papers import get_paper
from hoplab.paths import OutputPathError, check_output_dir
from hoplab.report import reproduce
from hoplab.store import Store

SEED_MAX = 2**64 - 1

#: A directory no process can create, root included (sysfs refuses it).
UNWRITABLE = "/sys/hoplab-cannot-write-here/out"


@pytest.fixture
def no_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fail the test if the simulator is called in this process."""
    calls: list[int] = []

    def refuse(*args: object) -> str:
        calls.append(1)
        raise AssertionError("a run started")

    monkeypatch.setattr(_core, "simulate", refuse)
    assert campaign.execute.__globals__["_core"] is _core
    return calls


def _one_line_status_2(done: object, *expected: str) -> str:
    returncode, stdout, stderr = (getattr(done, k) for k in ("returncode", "stdout", "stderr"))
    assert returncode == 2, (stdout, stderr)
    assert stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
    for text in expected:
        assert text in lines[0], (text, lines[0])
    return str(lines[0])


# hoplab reproduce --out.
@pytest.mark.parametrize(("make", "out", "expected"), [
    ("file", "taken", ["--out", "'taken'", "is a file, not a directory"]),
    ("file", "taken/inside", ["--out", "'taken/inside'", "is a file, not a directory"]),
    ("none", UNWRITABLE, ["--out", UNWRITABLE, "cannot create it"]),
    ("figures-file", "rep", ["--out", "'rep'", "figures", "is a file where a directory belongs"]),
    ("store-runs-file", "rep", ["--out", "runs", "is a file where a directory belongs"]),
])
def test_reproduce_refuses_an_unusable_out_before_any_run(make: str, out: str, expected: list[str],
                                                          workdir: Path) -> None:
    made = {"file": "taken", "figures-file": "rep/figures", "store-runs-file": "rep/store/runs"}.get(make)
    if made is not None:
        (workdir / made).parent.mkdir(parents=True, exist_ok=True)
        (workdir / made).write_text("not a directory", encoding="utf-8")
    before = sorted(p.relative_to(workdir) for p in workdir.rglob("*"))
    started = time.monotonic()
    done = run_cli("reproduce", "semitcp-2018", "--quick", "--out", out, cwd=workdir)
    assert time.monotonic() - started < 30, "refused within seconds, nothing run"
    _one_line_status_2(done, *expected)
    assert sorted(p.relative_to(workdir) for p in workdir.rglob("*")) == before, "nothing written"


def test_reproduce_refuses_runs_whose_seeds_pass_the_largest(workdir: Path) -> None:
    done = run_cli("reproduce", "semitcp-2018", "--quick", "--runs", str(SEED_MAX + 1), cwd=workdir, timeout_s=30)
    _one_line_status_2(done, "seed", "--runs", str(SEED_MAX))
    # Seeds that fit, but more runs than a sweep can hold: refused too.
    done = run_cli("reproduce", "semitcp-2018", "--quick", "--runs", str(SEED_MAX), cwd=workdir, timeout_s=30)
    _one_line_status_2(done, "--runs", "more than one sweep may hold (1000000)")
    assert list(workdir.iterdir()) == []


def test_reproduce_api_raises_before_any_run(tmp_path: Path, no_runs: list[int]) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    paper = get_paper("scalable-manet")
    with pytest.raises(OutputPathError) as caught:
        reproduce(paper, tmp_path / "file", quick=True, executor="serial")
    assert caught.value.key == "out" and "is a file, not a directory" in str(caught.value)
    with pytest.raises(hoplab.ScenarioError) as seeds:
        reproduce(paper, tmp_path / "out", quick=True, executor="serial", runs=SEED_MAX + 1)
    assert seeds.value.key == "seed"
    assert no_runs == [] and not (tmp_path / "out").exists()


# hoplab sweep --store.
@pytest.mark.parametrize(("make", "store", "expected"), [
    ("file", "st", ["--store", "'st'", "is a file, not a directory"]),
    ("none", UNWRITABLE, ["--store", UNWRITABLE, "cannot create it"]),
    ("runs-file", "st", ["--store", "'st'", "runs", "is a file where a directory belongs"]),
])
def test_sweep_refuses_an_unusable_store_before_any_run(make: str, store: str, expected: list[str],
                                                        small_chain: Path, workdir: Path) -> None:
    made = {"file": "st", "runs-file": "st/runs"}.get(make)
    if made is not None:
        (workdir / made).parent.mkdir(parents=True, exist_ok=True)
        (workdir / made).write_text("not a directory", encoding="utf-8")
    before = sorted(p.relative_to(workdir) for p in workdir.rglob("*"))
    done = run_cli("sweep", str(small_chain), "--runs", "2", "--store", store, cwd=workdir)
    _one_line_status_2(done, *expected)
    assert sorted(p.relative_to(workdir) for p in workdir.rglob("*")) == before


def test_sweep_refuses_seeds_past_the_largest(small_chain: Path, workdir: Path) -> None:
    done = run_cli("sweep", str(small_chain), "--set", f"seed={SEED_MAX - 1}", "--runs", "3", "--store", "st",
                   cwd=workdir)
    line = _one_line_status_2(done, "seed", f"{SEED_MAX - 1}", "--runs", "at most 2 runs")
    assert "Overflow" not in line
    assert list(workdir.iterdir()) == [], "nothing run, no store made"
    # The last seed that fits is fine: run 0 only.
    done = run_cli("sweep", str(small_chain), "--set", f"seed={SEED_MAX}", "--set", "duration_s=1",
                   "--set", "warmup_s=0.5", "--runs", "1", "--store", "st", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert Store(workdir / "st").runs()["seed"].tolist() == [SEED_MAX]


def test_sweep_api_raises_before_any_run(tmp_path: Path, no_runs: list[int]) -> None:
    chain = hoplab.Scenario.from_toml(SMALL_CHAIN)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(OutputPathError) as caught:
        sweep(chain, runs=2, store=tmp_path / "file", executor="serial")
    assert caught.value.key == "store"
    with pytest.raises(hoplab.ScenarioError) as seeds:
        sweep(chain.copy().set("seed", SEED_MAX - 1), runs=3, store=tmp_path / "s", executor="serial")
    assert seeds.value.key == "seed" and "at most 2 runs" in str(seeds.value)
    assert no_runs == [] and not (tmp_path / "s").exists()


# hoplab sweep: every point and the summary's metric checked before any run.
@pytest.mark.parametrize(("args", "expected"), [
    (["--metric", "goodput"], ["--metric", "'goodput'", "allowed: goodput_kbps, mean_delay_ms"]),
    (["--vary", "warmup_s=0.5,2,9"], ["warmup_s", "below duration_s", "at warmup_s=9,", "1 of the sweep's 3 points"]),
    (["--set", "flows.0.transport=tcp", "--vary", "flows.0.cc=newreno,renoo"],
     ["flows[0].cc", "unknown congestion control \"renoo\"", "at flows.0.cc=renoo, 1 of the sweep's 2 points"]),
    (["--vary", "flows.0.dst=4,9,8"], ["flows[0].dst", "at flows.0.dst=9 and 1 other point, 2 of the sweep's 3"]),
    (["--vary", "flows.0.dst=8,9"], ["flows[0].dst", "does not exist", "(at every point of the sweep)"]),
])
def test_sweep_refuses_a_bad_point_or_metric_before_any_run(args: list[str], expected: list[str],
                                                            small_chain: Path, workdir: Path) -> None:
    done = run_cli("sweep", str(small_chain), "--runs", "2", *args, cwd=workdir)
    _one_line_status_2(done, *expected)
    assert list(workdir.iterdir()) == [], "nothing run, no store made"


def test_sweep_api_refuses_a_point_the_core_rejects(tmp_path: Path, no_runs: list[int]) -> None:
    chain = hoplab.Scenario.from_toml(SMALL_CHAIN)
    with pytest.raises(hoplab.ScenarioError) as caught:
        sweep(chain, vary={"duration_s": [5.0, 0.5]}, runs=2, store=tmp_path / "s", executor="serial")
    assert caught.value.key == "warmup_s" and "at duration_s=0.5, 1 of the sweep's 2 points" in str(caught.value)
    assert no_runs == [] and not (tmp_path / "s").exists()


def test_the_store_is_ready_before_the_first_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once runs start, writing one cannot fail for a path: the store's
    directories exist before the first run."""
    chain = hoplab.Scenario.from_toml(SMALL_CHAIN)
    chain.set("duration_s", 1.0).set("warmup_s", 0.5)
    seen: list[bool] = []
    real = _core.simulate

    def checking(config: str, seed: int | None = None, series: bool = False,
                 wall_limit_s: float | None = None, **options: Any) -> str:
        seen.append(all((tmp_path / "deep" / "s" / name).is_dir() for name in Store.DIRECTORIES))
        return real(config, seed, series, wall_limit_s, **options)

    monkeypatch.setattr(_core, "simulate", checking)
    frame = sweep(chain, runs=2, store=tmp_path / "deep" / "s", executor="serial")
    assert seen == [True, True] and frame["status"].tolist() == ["ok", "ok"]


# The check itself.
def test_check_output_dir_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c"
    check_output_dir(target, "out", ("figures", "store"))
    assert not (tmp_path / "a").exists()
    existing = tmp_path / "there"
    existing.mkdir()
    check_output_dir(existing, "out")
    assert list(existing.iterdir()) == []


def test_check_output_dir_looks_again_when_another_process_makes_the_folder(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # Two sweeps started at once on one new store: the other process makes
    # the folder between this one's look and its mkdir (FileExistsError).
    target = tmp_path / "store"
    real_mkdir = Path.mkdir
    raced: list[Path] = []

    def mkdir_after_the_other(self: Path, *args: Any, **kwargs: Any) -> None:
        if self == target.absolute() and not raced:
            raced.append(self)
            real_mkdir(self)  # the other process's folder
            raise FileExistsError(17, "File exists", str(self))
        real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir_after_the_other)
    check_output_dir(target, "store")  # the folder is there and writable: no error
    assert raced and target.is_dir()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permissions")
def test_check_output_dir_refuses_a_read_only_directory(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(OutputPathError, match="cannot write into it: permission denied"):
            check_output_dir(locked, "--out")
        with pytest.raises(OutputPathError, match="cannot create it: permission denied"):
            check_output_dir(locked / "new", "--out")
    finally:
        locked.chmod(0o700)


def test_other_os_errors_are_one_line_and_status_2(small_chain: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    from hoplab import cli

    def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device", "hoplab-store/runs/part-1.parquet")

    # `hoplab run` imports the runner when it runs (start-up, issue 30): patch it where it lives.
    monkeypatch.setattr(importlib.import_module("hoplab.run"), "run", disk_full)
    assert cli._main(["run", str(small_chain)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "error: 'hoplab-store/runs/part-1.parquet': no space left on device\n"
