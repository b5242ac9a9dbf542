"""A sweep's tasks: one `Task` per run (cases x points x run numbers,
`expand`), and the checks made on them before any run starts (seeds,
size, timeout, every point's scenario)."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hoplab import _core
from hoplab._core import ScenarioError, SimulationError
from hoplab.identity import build_build_id, config_hash, run_identity
from hoplab.limits import AUTO, MemoryLimit
from hoplab.scenario import SEED_MAX, Scenario, scenario_error

__all__ = ["MAX_SWEEP_RUNS", "Task", "base_seed", "check_points", "check_run_timeout", "check_seeds", "check_size",
           "expand"]


@dataclass(frozen=True)
class Task:
    """One run to execute: everything the worker needs, picklable."""

    run_id: str
    scenario_json: str
    seed: int
    run: int
    params: dict[str, Any]
    config_hash: str
    series: bool = False
    #: Give the run up after this many wall-clock seconds (None: no limit).
    wall_limit_s: float | None = None
    #: What the run may hold (bytes; None: no limit; "auto": resolved by
    #: the worker, `hoplab.limits`).
    memory_limit_bytes: MemoryLimit = AUTO


def check_run_timeout(run_timeout_s: float | None) -> None:
    """Raise ScenarioError (key `run_timeout_s`) unless None or a positive number."""
    if run_timeout_s is None:
        return
    if (isinstance(run_timeout_s, bool) or not isinstance(run_timeout_s, (int, float))
            or not math.isfinite(run_timeout_s) or not 0 < run_timeout_s < 1e9):
        raise scenario_error("run_timeout_s",
                             f"--run-timeout: must be a positive number of seconds, got {run_timeout_s!r}")


#: The most runs one sweep may hold (points x cases x runs): each is a task
#: in memory with its scenario, so a mistyped --runs must not exhaust it.
MAX_SWEEP_RUNS = 1_000_000


def check_size(points: int, runs: int) -> None:
    """Raise ScenarioError (key `runs`) if `points` x `runs` passes MAX_SWEEP_RUNS."""
    if points * runs > MAX_SWEEP_RUNS:
        raise scenario_error("runs", f"{points} point{'s' if points != 1 else ''} x {runs} runs (--runs) = "
                                     f"{points * runs} runs, more than one sweep may hold ({MAX_SWEEP_RUNS}); "
                                     "split it")


def base_seed(scenario: Scenario) -> int:
    """The seed of run 0: the scenario's `seed` (default 1)."""
    value = scenario.data.get("seed", 1)
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else 1


def check_seeds(first_seed: int, runs: int) -> None:
    """Raise ScenarioError (key `seed`) if run numbers 0..runs-1 from
    `first_seed` would need a seed past SEED_MAX. Checked before any run:
    a run whose seed the core cannot take would fail, and its row could not
    even be stored."""
    if first_seed + runs - 1 > SEED_MAX:
        most = SEED_MAX - first_seed + 1
        raise scenario_error(
            "seed", f"seed {first_seed} + run numbers 0..{runs - 1} would pass {SEED_MAX}, the largest seed: "
                    f"lower the scenario's seed or --runs (at most {most} run{'s' if most != 1 else ''} "
                    "from this seed)")


def check_points(tasks: Sequence[Task]) -> None:
    """Raise ScenarioError (naming the key, the point and how many points
    share the fault) if the core rejects the scenario of any point: a value
    bad at one point is bad input, refused before any run, as one bad at
    every point is. A point only too large to build in this process (a
    SimulationError) is left to its worker and its own memory limit."""
    points: dict[str, Task] = {}
    for task in tasks:
        if task.config_hash.startswith("invalid-"):
            points.setdefault(task.config_hash, task)
    if not points:
        return
    all_points = len({json.dumps(t.params, sort_keys=True, default=str) for t in tasks})
    bad: list[tuple[Task, ScenarioError]] = []
    for task in points.values():
        try:
            Scenario(json.loads(task.scenario_json)).validate()
        except ScenarioError as e:
            bad.append((task, e))
        except SimulationError:
            continue
    if not bad:
        return
    task, error = bad[0]
    reason = str(error).split(": ", 1)[-1] if error.key else str(error)
    if len(bad) == len(points) == all_points:
        where = "at every point of the sweep"
    else:
        point = ", ".join(f"{k}={_point_value(v)}" for k, v in task.params.items()) or "the base scenario"
        others = f" and {len(bad) - 1} other point{'s' if len(bad) != 2 else ''}" if len(bad) > 1 else ""
        where = (f"at {point}{others}, {len(bad)} of the sweep's {all_points} points; "
                 "a sweep runs only when every point is valid")
    raise scenario_error(error.key, f"{reason} ({where})")


def _point_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def expand(
    scenario: Scenario,
    vary: Mapping[str, list[Any]],
    runs: int,
    cases: Mapping[str, Mapping[str, Any]] | None = None,
    series: bool = False,
    wall_limit_s: float | None = None,
    memory_limit_bytes: MemoryLimit = AUTO,
) -> tuple[list[Task], list[str]]:
    """The tasks of a sweep (cases x product(vary) x runs) and the parameter
    column names. An invalid combination still becomes a task: it fails in
    the worker and is recorded."""
    version = _core.version()
    build = build_build_id()
    keys = list(vary)
    param_keys = (["case"] if cases else []) + keys
    first_seed = base_seed(scenario)
    check_seeds(first_seed, runs)
    tasks: list[Task] = []
    case_items: list[tuple[str | None, Mapping[str, Any]]] = (
        [(str(name), overrides) for name, overrides in cases.items()] if cases else [(None, {})])
    for case_name, overrides in case_items:
        for combination in itertools.product(*(vary[k] for k in keys)):
            point = scenario.copy()
            for key, value in overrides.items():
                point.set(key, value)
            params: dict[str, Any] = {"case": case_name} if case_name is not None else {}
            for key, value in zip(keys, combination, strict=True):
                point.set(key, value)
                params[key] = value
            try:
                # Within the default budget whatever the runs get: building a
                # point must not kill this process; one too large to build
                # here is left to its worker, which runs it with its limit.
                normalised: dict[str, Any] | None = point.validate()
            except (ScenarioError, SimulationError):
                normalised = None
            # One hash per point: the config hash leaves the seed out.
            if normalised is not None:
                chash = config_hash(normalised)
            else:  # invalid: identify it by its raw form; the worker reports why
                raw = point.to_json()
                chash = "invalid-" + hashlib.sha256(raw.encode()).hexdigest()[:8]
            for run_number in range(runs):
                seed = first_seed + run_number
                if normalised is not None:
                    scenario_json = json.dumps({**normalised, "seed": seed}, allow_nan=False)
                else:
                    scenario_json = raw
                run_id = run_identity(version, build, chash, seed)
                tasks.append(Task(run_id, scenario_json, seed, run_number, params, chash, series, wall_limit_s,
                                  memory_limit_bytes))
    return tasks, param_keys
