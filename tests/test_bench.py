"""`hoplab bench`: what it reports (figures are measured, never asserted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, run_cli
from hoplab import _core
from hoplab.bench import BENCH_DESCRIPTIONS, BENCH_SCENARIOS, OUTCOMES, SINR_PAIRS, _sinr_cost, no_decision, profile_lines, sinr_cost_lines

FIGURE_KEYS = {"name", "events", "wall_seconds", "events_per_second", "sim_seconds_per_wall_second", "frames", "repeat"}


def test_bench_json_reports_every_figure(workdir: Path) -> None:
    done = run_cli("bench", "--duration", "0.5", "--engine-events", "20000", "--repeat", "2", "--json", cwd=workdir,
                   timeout_s=250)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["version"]
    assert document["build_profile"] == _core.build_profile()
    figures = document["benchmarks"]
    assert figures[0]["name"].startswith("engine")
    assert [f["name"] for f in figures[1:]] == list(BENCH_SCENARIOS)
    for figure in figures:
        assert FIGURE_KEYS <= figure.keys()
        assert isinstance(figure["events"], int) and figure["events"] > 0
        assert figure["wall_seconds"] >= 0 and figure["events_per_second"] >= 0
        assert figure["repeat"] == 2
    assert figures[0]["events"] >= 20000 and figures[0]["frames"] == 0
    for figure in figures[1:]:
        assert figure["sim_seconds"] == 0.5
        assert figure["sim_seconds_per_wall_second"] > 0
        # Every scenario puts frames on the air; fewer than its events
        # (each frame is at least its end and one arrival).
        assert 0 < figure["frames"] < figure["events"]
        assert figure["us_per_frame"] == figure["wall_seconds"] / figure["frames"] * 1e6
        assert figure["events_per_frame"] == figure["events"] / figure["frames"]
    by_name = {figure["name"]: figure for figure in figures}
    for sinr, threshold in SINR_PAIRS.items():
        cost = by_name[sinr]["sinr_vs_threshold"]
        assert cost["frames"] == by_name[sinr]["frames"] / by_name[threshold]["frames"]
        assert cost["wall"] == by_name[sinr]["wall_seconds"] / by_name[threshold]["wall_seconds"]
        assert abs(cost["per_frame"] * cost["frames"] - cost["wall"]) < 1e-9 * cost["wall"]
    assert all("sinr_vs_threshold" not in f for f in figures if f["name"] not in SINR_PAIRS)
    assert list(workdir.iterdir()) == []


def test_sinr_cost_is_measured_against_the_same_scenario_per_frame() -> None:
    figures: list[dict[str, Any]] = [
        {"name": "bench-chain15-udp", "wall_seconds": 0.2, "frames": 300},
        {"name": "bench-chain15-udp-sinr", "wall_seconds": 0.6, "frames": 400},
    ]
    figures[1]["sinr_vs_threshold"] = _sinr_cost(figures[1], figures[0])
    cost = figures[1]["sinr_vs_threshold"]
    assert abs(cost["wall"] - 3.0) < 1e-12 and abs(cost["frames"] - 4 / 3) < 1e-12 and abs(cost["per_frame"] - 2.25) < 1e-12
    assert sinr_cost_lines(figures) == [
        "bench-chain15-udp-sinr: x3.00 the wall time of bench-chain15-udp; it puts x1.33 the frames on the air, "
        "x2.25 the wall time per frame."]


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
    for text in ("simulated events", "frames", "wall s", "events/s", "sim s per wall s", "us per frame", *BENCH_SCENARIOS):
        assert text in done.stdout, text
    for sinr, threshold in SINR_PAIRS.items():
        assert f"{sinr}: x" in done.stdout and f"the wall time of {threshold}" in done.stdout


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


def test_profile_events_counts_every_event_of_the_timed_run(workdir: Path) -> None:
    """`hoplab bench --profile-events`: per scenario, the kinds' counts by
    outcome add up to the events popped, which are the timed run's events
    (plus the one sampling event the report leaves out): profiling runs
    the same simulation."""
    done = run_cli("bench", "--profile-events", "--duration", "0.5", "--json", cwd=workdir, timeout_s=250)
    assert done.returncode == 0, done.stderr
    profiles = json.loads(done.stdout)["profiles"]
    assert [p["name"] for p in profiles] == list(BENCH_SCENARIOS)
    timed = run_cli("bench", "--duration", "0.5", "--engine-events", "1000", "--repeat", "1", "--json", cwd=workdir,
                    timeout_s=250)
    by_name = {f["name"]: f for f in json.loads(timed.stdout)["benchmarks"]}
    for profile in profiles:
        rows = profile["rows"]
        assert sum(r[o] for r in rows for o in OUTCOMES) == profile["events"], profile["name"]
        sampling = sum(r[o] for r in rows if r["kind"] == "time-series sample" for o in OUTCOMES)
        assert profile["events"] - sampling == by_name[profile["name"]]["events"], profile["name"]
        assert profile["frames"] == by_name[profile["name"]]["frames"]
        assert 0 < profile["mac_steps_changed"] <= profile["mac_steps"]
        table = profile_lines(profile)
        assert f"{profile['events'] / profile['frames']:.2f} events per frame" in table[0]
        assert len(table) == 4 + len(rows) + 1
    assert no_decision({"stale": 1, "no_mac_input": 2, "mac_unchanged": 3, "medium_only": 4, "mac_acted": 5}) == 6
    assert list(workdir.iterdir()) == []
