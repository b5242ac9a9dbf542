"""`hoplab bench`: what it reports (figures are measured, never asserted)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES, run_cli
from hoplab.bench import BENCH_DESCRIPTIONS, BENCH_SCENARIOS

FIGURE_KEYS = {"name", "events", "wall_seconds", "events_per_second", "sim_seconds_per_wall_second"}


def test_bench_json_reports_every_figure(workdir: Path) -> None:
    done = run_cli("bench", "--duration", "0.5", "--engine-events", "20000", "--json", cwd=workdir, timeout_s=250)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["version"]
    figures = document["benchmarks"]
    assert figures[0]["name"].startswith("engine")
    assert [f["name"] for f in figures[1:]] == list(BENCH_SCENARIOS)
    for figure in figures:
        assert FIGURE_KEYS <= figure.keys()
        assert isinstance(figure["events"], int) and figure["events"] > 0
        assert figure["wall_seconds"] >= 0 and figure["events_per_second"] >= 0
    assert figures[0]["events"] >= 20000
    for figure in figures[1:]:
        assert figure["sim_seconds"] == 0.5
        assert figure["sim_seconds_per_wall_second"] > 0
    assert list(workdir.iterdir()) == []


def test_bench_prints_a_table(workdir: Path) -> None:
    done = run_cli("bench", "--duration", "0.2", "--engine-events", "10000", cwd=workdir, timeout_s=250)
    assert done.returncode == 0, done.stderr
    for text in ("simulated events", "wall s", "events/s", "sim s per wall s", *BENCH_SCENARIOS):
        assert text in done.stdout, text


def test_examples_hold_the_packaged_bench_scenarios() -> None:
    data = Path(__file__).resolve().parent.parent / "python" / "hoplab" / "data"
    for name in BENCH_SCENARIOS:
        assert (EXAMPLES / f"{name}.toml").read_text() == (data / f"{name}.toml").read_text()


def test_bench_scenarios_are_valid_as_shipped(workdir: Path) -> None:
    for name in BENCH_SCENARIOS:
        done = run_cli("validate", str(EXAMPLES / f"{name}.toml"), cwd=workdir)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["duration_s"] == 100.0


def test_bench_help_lists_every_benchmark(workdir: Path) -> None:
    done = run_cli("bench", "--help", cwd=workdir)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.replace("│", " ").split())
    assert "engine micro-benchmark" in text
    assert set(BENCH_DESCRIPTIONS) == set(BENCH_SCENARIOS)
    for name in BENCH_SCENARIOS:
        assert BENCH_DESCRIPTIONS[name] in text, name
