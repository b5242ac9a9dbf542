"""`hoplab bench`: what it reports (figures are measured, never asserted)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES, run_cli
from hoplab.bench import BENCH_DESCRIPTIONS, BENCH_SCENARIOS

FIGURE_KEYS = {"name", "events", "wall_seconds", "events_per_second", "sim_seconds_per_wall_second", "repeat"}


def test_bench_json_reports_every_figure(workdir: Path) -> None:
    done = run_cli("bench", "--duration", "0.5", "--engine-events", "20000", "--repeat", "2", "--json", cwd=workdir,
                   timeout_s=250)
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
        assert figure["repeat"] == 2
    assert figures[0]["events"] >= 20000
    for figure in figures[1:]:
        assert figure["sim_seconds"] == 0.5
        assert figure["sim_seconds_per_wall_second"] > 0
    assert list(workdir.iterdir()) == []


def test_bench_repeats_give_the_same_events_and_the_fastest_wall() -> None:
    """Every repeat simulates the same events (the runs are deterministic);
    the figure kept is the one with the least wall time."""
    import hoplab.bench as bench

    walls = iter([0.3, 0.1, 0.2])
    calls: list[str] = []

    def fake(name: str, config_json: str) -> dict[str, object]:
        calls.append(name)
        wall = next(walls)
        return {"name": name, "events": 10, "wall_seconds": wall, "events_per_second": 10 / wall,
                "sim_seconds_per_wall_second": 1 / wall}

    figure = bench._fastest(lambda: fake("x", "{}"), 3)
    assert calls == ["x", "x", "x"]
    assert figure["wall_seconds"] == 0.1 and figure["repeat"] == 3


def test_bench_refuses_a_bad_repeat(workdir: Path) -> None:
    done = run_cli("bench", "--repeat", "0", cwd=workdir)
    assert done.returncode == 2 and "--repeat" in done.stderr and "Traceback" not in done.stderr


def test_bench_prints_a_table(workdir: Path) -> None:
    done = run_cli("bench", "--duration", "0.2", "--engine-events", "10000", "--repeat", "1", cwd=workdir, timeout_s=250)
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
