"""Bounded resources (issue 19), as a user meets them: each reproducer of
the issue, through the CLI (exit 2 naming the key, or a clean limit stop
with exit 1, the process alive and nothing on stdout) and through the
Python API in a worker process under a 4 GB address-space limit; the
`--memory-limit` syntax; `hoplab validate`'s estimate; and a sweep whose
worker dies on a reproducer."""

from __future__ import annotations

import copy
import os
import resource
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, run_cli
from hoplab.fuzz import Case, Runner
from hoplab.limits import AUTO, parse_memory_limit


def _example(name: str) -> dict[str, Any]:
    return tomllib.loads((EXAMPLES / f"{name}.toml").read_text(encoding="utf-8"))


def _reproducers() -> dict[str, dict[str, Any]]:
    """The scenarios of the issue, each valid before it (see its text)."""
    cases: dict[str, dict[str, Any]] = {}
    c = _example("bench-chain15-udp")
    c.update(duration_s=3.0, warmup_s=0.0)
    c["stats"] = {"series_interval_s": 1e-6}
    cases["series_interval_s"] = c
    c = _example("chain-udp-14hop")
    c["mac"] = {"queue_packets": 4294967295}
    cases["queue_packets"] = c
    c = _example("semitcp-chain-14hop")
    c["semitcp"]["reserved_packets"] = 1000
    c["flows"] = [copy.deepcopy(c["flows"][0]) for _ in range(3)]
    cases["reserved_packets"] = c
    c = _example("semitcp-mobile-48")
    c["routing"]["aodv"] = {"request_queue_packets": 100000}
    c["mac"] = {"queue_packets": 1}
    cases["request_queue_packets"] = c
    c = _example("bench-mobile150")
    c["duration_s"] = 1e300
    cases["duration_s"] = c
    c = _example("semitcp-rate-control-14hop")
    c["flows"] = [copy.deepcopy(c["flows"][0]) for _ in range(32)]
    cases["semitcp_32_flows"] = c
    for kind in ("random", "chain"):
        c = _example("bench-mobile150" if kind == "random" else "chain-udp-14hop")
        c["topology"]["nodes"] = 100_000
        c.update(duration_s=2.0, warmup_s=0.0)
        cases[f"{kind}_100000_nodes"] = c
    c = _example("semitcp-mobile-48")
    c["topology"] = {"kind": "grid", "rows": 1000, "cols": 70, "spacing_m": 200.0}
    c["mobility"].update(width_m=14_000.0, height_m=200_000.0)
    c.update(duration_s=2.0, warmup_s=0.0)
    cases["grid_1000x70"] = c
    return cases


REPRODUCERS = _reproducers()

#: What each must end in: a scenario error naming this key, a limit stop,
#: or a run (that conserves every packet).
EXPECTED = {
    "series_interval_s": "limit",
    "queue_packets": "mac.queue_packets",
    "reserved_packets": "ok",
    "request_queue_packets": "ok",
    "duration_s": "duration_s",
    "semitcp_32_flows": "ok",
    "random_100000_nodes": "limit",
    "chain_100000_nodes": "ok",
    "grid_1000x70": "ok",
}


@pytest.fixture(scope="module")
def runner() -> Any:
    # The fuzz harness's worker: RLIMIT_AS 4 GB, a 3 s wall limit, a 1 GB budget.
    with Runner(workers=1, wall_limit_s=10.0) as r:
        yield r


@pytest.mark.parametrize("name", sorted(REPRODUCERS))
def test_each_reproducer_ends_cleanly_in_a_worker(runner: Runner, name: str) -> None:
    case = Case(name, [], REPRODUCERS[name], series=name == "series_interval_s")
    [(_, _, outcome)] = list(runner.run([case]))
    expected = EXPECTED[name]
    if expected in ("ok", "limit"):
        assert outcome.kind == expected, (outcome.kind, outcome.detail)
    else:
        assert outcome.kind == "scenario_error" and outcome.detail.startswith(expected + ":"), outcome


@pytest.mark.parametrize("name,key", [("queue_packets", "mac.queue_packets"), ("duration_s", "duration_s")])
def test_cli_names_the_key_with_exit_2(tmp_path: Path, name: str, key: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(_toml(REPRODUCERS[name]), encoding="utf-8")
    done = run_cli("run", str(path), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.startswith(f"error: {key}:"), done


def test_cli_refuses_series_that_cannot_fit_with_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(_toml(REPRODUCERS["series_interval_s"]), encoding="utf-8")
    done = run_cli("run", str(path), "--series", "--json", "--memory-limit", "2G", cwd=tmp_path, timeout_s=30)
    assert done.returncode == 1 and done.stdout == ""
    assert "memory limit of 2.0 GB" in done.stderr and "stats.series_interval_s" in done.stderr, done.stderr
    # Without --series the same file runs: the series are not kept.
    done = run_cli("run", str(path), "--memory-limit", "2G", cwd=tmp_path, timeout_s=60)
    assert done.returncode == 0, done.stderr


def test_cli_stops_a_run_that_outgrows_its_budget(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        'duration_s = 100.0\nwarmup_s = 0.0\n[topology]\nkind = "chain"\nnodes = 2\nspacing_m = 200.0\n'
        '[mac]\nqueue_packets = 1000000\n'
        '[[flows]]\nsrc = 0\ndst = 1\napp = "cbr"\nrate_kbps = 8000.0\npacket_bytes = 512\n', encoding="utf-8")
    done = run_cli("run", str(path), "--memory-limit", "4MB", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "buffered packets" in done.stderr and "mac.queue_packets" in done.stderr, done.stderr
    assert run_cli("run", str(path), "--memory-limit", "none", "--set", "duration_s=5", cwd=tmp_path).returncode == 0


def test_memory_limit_syntax() -> None:
    assert parse_memory_limit("2G") == 2_000_000_000
    assert parse_memory_limit("1.5GB") == 1_500_000_000
    assert parse_memory_limit("512MiB") == 512 * 2**20
    assert parse_memory_limit("4000000000") == 4_000_000_000
    assert parse_memory_limit("none") is None and parse_memory_limit("AUTO") == AUTO
    for bad in ("", "2X", "-1G", "1k"):  # 1k is below the smallest limit (1 MB)
        with pytest.raises(ValueError, match="--memory-limit"):
            parse_memory_limit(bad)


def test_validate_prints_the_estimate(tmp_path: Path) -> None:
    done = run_cli("validate", str(EXAMPLES / "bench-mobile150.toml"), cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("{")
    assert done.stderr.startswith("estimate: ~") and "events" in done.stderr and "neighbour lists" in done.stderr


def test_python_estimate_and_limits() -> None:
    import hoplab

    scenario = hoplab.load_scenario(EXAMPLES / "bench-chain15-udp.toml")
    plain, with_series = scenario.estimate(), scenario.estimate(series=True)
    assert plain["neighbours_exact"] and plain["neighbour_entries"] == 54  # 2 x (14 + 13) pairs within 500 m
    assert with_series["memory_bytes"] > plain["memory_bytes"] and plain["series_rows"] > 0
    with pytest.raises(ValueError, match="memory_limit_bytes"):
        hoplab.run(scenario, memory_limit_bytes=-5)
    huge = hoplab.Scenario(REPRODUCERS["random_100000_nodes"])
    with pytest.raises(hoplab.SimulationError, match="neighbour lists"):
        hoplab.run(huge, memory_limit_bytes=2_000_000_000)


def _toml(doc: dict[str, Any]) -> str:
    import json

    # Every example is plain enough for this: tables, arrays of tables, scalars.
    lines: list[str] = []

    def scalar(v: Any) -> str:
        return json.dumps(v) if not isinstance(v, float) or abs(v) < 1e300 else repr(v)

    tables: list[tuple[str, dict[str, Any]]] = []
    arrays: list[tuple[str, list[dict[str, Any]]]] = []
    for key, value in doc.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            arrays.append((key, value))
        else:
            lines.append(f"{key} = {scalar(value)}")

    def table(prefix: str, body: dict[str, Any]) -> None:
        lines.append(f"[{prefix}]")
        nested = []
        for k, v in body.items():
            if isinstance(v, dict):
                nested.append((k, v))
            else:
                lines.append(f"{k} = {scalar(v)}")
        for k, v in nested:
            table(f"{prefix}.{k}", v)

    for key, body in tables:
        table(key, body)
    for key, items in arrays:
        for item in items:
            lines.append(f"[[{key}]]")
            lines.extend(f"{k} = {scalar(v)}" for k, v in item.items())
    return "\n".join(lines) + "\n"


def test_a_sweep_survives_a_worker_killed_by_a_reproducer(tmp_path: Path) -> None:
    """Without a memory budget, 100,000 moving nodes kill their worker (the
    allocator fails: the address space is limited to 3 GB here); the sweep
    records the run as failed with the reason, keeps the other point, and
    the next sweep (with the default budget) runs it again and records the
    clean refusal."""
    scenario = tmp_path / "s.toml"
    doc = _example("bench-mobile150")
    doc.update(duration_s=2.0, warmup_s=0.0)
    scenario.write_text(_toml(doc), encoding="utf-8")
    store = tmp_path / "store"
    args = [sys.executable, "-m", "hoplab", "sweep", str(scenario), "--vary", "topology.nodes=150,100000",
            "--jobs", "1", "--store", str(store)]

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    env = {k: v for k, v in os.environ.items() if k != "HOPLAB_DEBUG"}
    first = subprocess.run([*args, "--memory-limit", "none"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300, env=env, preexec_fn=limited, check=False)
    assert first.returncode == 1, first.stderr
    assert "2 runs: 2 executed, 0 already in the store, 1 failed" in first.stdout, first.stdout
    import hoplab

    runs = hoplab.Store(store).runs()
    failed = runs[runs["status"] == "failed"]
    assert len(failed) == 1 and "worker process died" in failed["error"].iloc[0]
    second = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
                            preexec_fn=limited, check=False)
    assert second.returncode == 1 and "2 runs: 1 executed, 1 already in the store, 1 failed" in second.stdout
    runs = hoplab.Store(store).runs()
    errors = runs[runs["status"] == "failed"]["error"].tolist()
    assert any("neighbour lists" in e for e in errors), errors
