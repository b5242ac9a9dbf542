"""Sweeps: a scenario, parameters to vary, runs per point -> the store.

A sweep is the cartesian product of its `vary` parameters (dotted scenario
keys, each with a list of values), optionally times named `cases` (each a
set of overrides applied together, e.g. "semitcp" vs "newreno"), times run
numbers `0..runs-1`. Each run is a pure function of (scenario, parameters,
run number):

- the seed is derived from the run number alone: `seed = base + run`, where
  `base` is the scenario's `seed` (default 1). Every parameter point sees
  the same seeds (common random numbers), and raising `--runs` later adds
  runs without touching the ones already made;
- its identity `run_id` hashes (version, build, config_hash, seed), where
  `config_hash` is the core's hash of the normalised scenario without its
  seed (computed here before running, identical to the report's) and
  `build` fingerprints the compiled simulator (`hoplab._core`).

The store (`hoplab.store.Store`) is consulted first: runs it holds as "ok"
are not run again, so a sweep interrupted (Ctrl-C, a crash, a lost node)
and started again runs only what is missing. Finished runs are written in
batches (every `flush_every` runs or `flush_seconds`, and whenever the sweep
stops, Ctrl-C included), each batch atomically.

Every point's scenario is validated before any run: a value the core
rejects at any point is bad input (ScenarioError naming the key and the
point), unless `check_parameters=False`. A run that fails (a simulator
error, a limit; with `check_parameters=False` also an invalid combination)
is recorded with status "failed" and its message, reported, and does not
stop the sweep.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import itertools
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy  # noqa: F401 - loaded before workers fork, so no worker pays for it

from hoplab import _core
from hoplab._core import ScenarioError, SimulationError
from hoplab.limits import AUTO, MemoryLimit, check_memory_limit, per_worker_limit, resolve_memory_limit
from hoplab.flatten import numeric_items
from hoplab.scenario import SEED_MAX, Scenario, _format_key, _parse_key, load_scenario, parse_value, scenario_error
from hoplab.shutdown import Termination, sweep_termination

from hoplab.store import StoreWriteError

if TYPE_CHECKING:
    import pandas as pd

    from hoplab.executors import Executor
    from hoplab.store import Store

__all__ = [
    "METRICS",
    "StoreWriteError",
    "SweepStats",
    "Task",
    "base_seed",
    "build_build_id",
    "check_points",
    "check_seeds",
    "check_size",
    "config_hash",
    "execute",
    "expand",
    "parse_vary",
    "sweep",
]

# Columns of the runs table that a parameter may not be called.
_RESERVED = frozenset({
    "run_id", "batch", "sweep", "scenario", "run", "seed", "version", "build", "config_hash", "params", "status",
    "error", "events", "sim_seconds", "wall_seconds", "sim_call_seconds", "task_seconds", "flows",
    "goodput_kbps", "mean_delay_ms", "jain_goodput", "finished_at",
})

#: The numeric columns of the runs table a sweep's summary can average
#: (`hoplab sweep --metric`).
METRICS: tuple[str, ...] = ("goodput_kbps", "mean_delay_ms", "jain_goodput", "events", "flows", "sim_seconds",
                            "wall_seconds", "sim_call_seconds", "task_seconds")

_RANGE = re.compile(r"^\s*([-+0-9.eE]+)\s*\.\.\s*([-+0-9.eE]+)\s*(?::\s*([-+0-9.eE]+)\s*)?$")


# Parameters.
def parse_range(key: str, text: str) -> list[int | float]:
    """`a..b` or `a..b:step`, both ends included (b when the steps land on it).

    Integers stay integers when a, b and step all are. An empty or endless
    range is a ScenarioError naming the key."""
    match = _RANGE.match(text)
    if match is None:
        raise scenario_error(key, f"{text!r} in --vary is not a range (expected a..b or a..b:step, e.g. 20..300:20)")
    parts = [match.group(1), match.group(2), match.group(3) or "1"]
    values: list[int | float] = []
    for part in parts:
        number = parse_value(part)
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
            raise scenario_error(key, f"{part!r} in --vary's {text!r} is not a number")
        values.append(number)
    start, stop, step = values
    if step <= 0:
        raise scenario_error(key, f"empty range {text!r} in --vary (the step must be positive, got {step})")
    if stop < start:
        raise scenario_error(key, f"empty range {text!r} in --vary (the end {stop} is below the start {start})")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    if count > 100_000:
        raise scenario_error(key, f"range {text!r} in --vary has {count} values (at most 100000)")
    if all(isinstance(v, int) for v in values):
        return [int(start) + i * int(step) for i in range(count)]
    return [round(float(start) + i * float(step), 12) for i in range(count)]


def parse_vary(spec: str) -> tuple[str, list[Any]]:
    """`key=v1,v2,...` or `key=a..b[:step]` -> (key, values).

    Values are TOML literals where they are one (numbers, booleans, quoted
    strings), text otherwise. Raises ScenarioError naming the key."""
    key, sep, text = spec.partition("=")
    key = key.strip()
    if not sep or not key:
        raise scenario_error("", f"--vary expects KEY=V1,V2 or KEY=A..B[:STEP] (e.g. flows.0.rate_kbps=20..300:20), "
                                 f"got {spec!r}")
    text = text.strip()
    if not text:
        raise scenario_error(key, "no values given in --vary (an empty list)")
    if ".." in text and _RANGE.match(text):
        return key, list(parse_range(key, text))
    if ".." in text and not text.startswith(("[", '"', "'")):
        parse_range(key, text)  # raises with the reason
    values = [parse_value(part.strip()) for part in _split_values(text)]
    if any(v == "" for v in values):
        raise scenario_error(key, f"empty value in --vary's {text!r}")
    return key, values


def _split_values(text: str) -> list[str]:
    """Split on commas outside brackets and quotes."""
    parts: list[str] = []
    depth, quote, current = 0, "", []
    for char in text:
        if quote:
            current.append(char)
            if char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def _normalise_vary(vary: Mapping[str, Any] | Iterable[str] | None) -> dict[str, list[Any]]:
    """`vary` as {canonical key: [values]}: accepts a mapping (values: a list,
    a range or a range string "a..b:step") or CLI specs ("key=v1,v2")."""
    out: dict[str, list[Any]] = {}
    seen: set[str] = set()
    if vary is None:
        return out
    items: list[tuple[str, Any]]
    if isinstance(vary, Mapping):
        items = list(vary.items())
    else:
        items = [parse_vary(spec) for spec in vary]
    for raw_key, raw_values in items:
        key = str(raw_key).strip()
        canonical = _format_key(_parse_key(key))
        if isinstance(raw_values, str):
            raw_values = parse_range(key, raw_values) if ".." in raw_values else [raw_values]
        elif isinstance(raw_values, range):
            raw_values = list(raw_values)
        elif not isinstance(raw_values, (list, tuple)):
            raw_values = [raw_values]
        values = list(raw_values)
        if not values:
            raise scenario_error(key, "no values given in --vary (an empty list)")
        if canonical in seen:
            raise scenario_error(key, "given twice in --vary")
        seen.add(canonical)
        if key == "seed":
            raise scenario_error(key, "cannot be varied: the seed comes from the run number; use --runs N")
        if key in _RESERVED or key == "case":
            raise scenario_error(key, f"cannot be varied: {key!r} is a column of the results store")
        out[key] = values
    return out


def _check_parameter(scenario: Scenario, key: str, value: Any) -> None:
    """Reject a parameter the simulator does not know (ScenarioError naming it).

    Only the key is checked here: a known key with a value the core rejects
    for some combination becomes a failed run, recorded with its message."""
    trial = scenario.copy()
    try:
        trial.set(key, value)
    except ScenarioError as e:
        raise scenario_error(key, f"unknown parameter in --vary ({e})") from None
    try:
        trial.validate()
    except ScenarioError as e:
        if e.key == _format_key(_parse_key(key)) and "unknown key" in str(e):
            raise scenario_error(key, f"unknown parameter in --vary ({str(e).split(': ', 1)[-1]})") from None


# Identity.
def config_hash(normalised: Mapping[str, Any]) -> str:
    """The core's config hash of a normalised scenario (`Scenario.validate()`),
    its seed left out: the run report's `config_hash`."""
    return _core.config_hash(json.dumps(dict(normalised), allow_nan=False))


_BUILD_ID: str | None = None


def build_build_id() -> str:
    """A fingerprint of the compiled simulator (SHA-256 of the extension file,
    12 hex digits): rebuilding the core after a change makes new runs."""
    global _BUILD_ID
    if _BUILD_ID is None:
        path = getattr(_core, "__file__", None)
        digest = hashlib.sha256()
        if path and os.path.exists(path):
            with open(path, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        else:  # pragma: no cover - a builtin module
            digest.update(_core.version().encode())
        _BUILD_ID = digest.hexdigest()[:12]
    return _BUILD_ID


def run_identity(version: str, build: str, chash: str, seed: int) -> str:
    return hashlib.sha256(f"{version}|{build}|{chash}|{seed}".encode()).hexdigest()[:20]


# Tasks and the worker.
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


_SKIP = frozenset({"id", "src", "dst"})


def jain_index(values: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); NaN if empty or all 0."""
    n = len(values)
    squares = sum(v * v for v in values)
    if n == 0 or squares == 0:
        return math.nan
    return sum(values) ** 2 / (n * squares)


def execute(task: Task) -> dict[str, Any]:
    """Run one task; never raises for a failing run.

    Returns {"run": runs row, "scalars": block, "series": block}, where a
    block is a compact column set (see `hoplab.store.Block`); status "ok",
    or a row with status "failed" and the error message (empty blocks).
    """
    started = time.perf_counter()
    row: dict[str, Any] = {"run_id": task.run_id, "run": task.run, "seed": task.seed,
                           "config_hash": task.config_hash}
    sim_started = time.perf_counter()
    try:
        text = _core.simulate(task.scenario_json, task.seed, task.series, task.wall_limit_s,
                              memory_limit_bytes=resolve_memory_limit(task.memory_limit_bytes))
        sim_seconds = time.perf_counter() - sim_started
        report = json.loads(text)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - a Rust panic arrives as a BaseException
        row.update(status="failed", error=_error_text(e), sim_call_seconds=time.perf_counter() - sim_started,
                   task_seconds=time.perf_counter() - started)
        return {"run": row, "scalars": None, "series": None}
    flows = report.get("flows", [])
    goodputs = [float(f.get("goodput_kbps", 0.0)) for f in flows]
    delays = [float(f["mean_delay_ms"]) for f in flows if f.get("delivered", 0) and f.get("mean_delay_ms") is not None]
    row.update(
        status="ok", error=None, version=str(report.get("version", "")), scenario=str(report.get("name", "")),
        events=int(report.get("events", 0)), sim_seconds=float(report.get("sim_seconds", 0.0)),
        wall_seconds=float(report.get("wall_seconds", 0.0)), sim_call_seconds=sim_seconds,
        flows=len(flows), goodput_kbps=float(sum(goodputs)),
        mean_delay_ms=float(sum(delays) / len(delays)) if delays else math.nan,
        jain_goodput=jain_index(goodputs),
    )
    names: dict[str, int] = {}
    entities: list[int] = []
    idents: list[int] = []
    metrics: list[int] = []
    values: list[float] = []
    for code, rows in ((0, flows), (1, report.get("nodes", []))):
        for item in rows:
            ident = int(item.get("id", 0))
            for metric, value in numeric_items(item, _SKIP):
                entities.append(code)
                idents.append(ident)
                metrics.append(names.setdefault(metric, len(names)))
                values.append(value)
    scalars = _block(names, entities, idents, metrics, values, None)
    series = None
    points = report.get("series") or ()
    if points:
        names = {}
        entities, idents, metrics, values = [], [], [], []
        times: list[float] = []
        for point in points:
            times.append(float(point["time_s"]))
            entities.append(0 if point["entity"] == "flow" else 1)
            idents.append(int(point["id"]))
            metrics.append(names.setdefault(str(point["metric"]), len(names)))
            value = point["value"]
            values.append(math.nan if value is None else float(value))
        series = _block(names, entities, idents, metrics, values, times)
    row["task_seconds"] = time.perf_counter() - started
    return {"run": row, "scalars": scalars, "series": series}


def _block(names: Mapping[str, int], entities: list[int], idents: list[int], metrics: list[int],
           values: list[float], times: list[float] | None) -> dict[str, Any]:
    """Columns of one run's scalars or series as numpy arrays (cheap to send
    between processes and to turn into Parquet); metric names once."""
    import numpy as np

    block: dict[str, Any] = {
        "names": list(names), "entity": np.asarray(entities, dtype=np.int8),
        "id": np.asarray(idents, dtype=np.int64), "metric": np.asarray(metrics, dtype=np.int32),
        "value": np.asarray(values, dtype=np.float64),
    }
    if times is not None:
        block["time_s"] = np.asarray(times, dtype=np.float64)
    return block


def _error_text(error: BaseException) -> str:
    text = str(error).strip().replace("\n", " ")
    name = type(error).__name__
    if isinstance(error, (ScenarioError, _core.SimulationError)):
        return text or name
    return f"{name}: {text}" if text else name


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


# The sweep.
@dataclass
class SweepStats:
    """What a sweep did."""

    total: int = 0
    skipped: int = 0
    executed: int = 0
    failed: int = 0
    wall_seconds: float = 0.0
    sim_call_seconds: float = 0.0
    workers: int = 1
    failures: list[tuple[dict[str, Any], int, str]] = field(default_factory=list)
    interrupted: bool = False

    @property
    def overhead(self) -> float:
        """Fraction of the workers' wall time spent outside the simulator
        (1 - simulator call seconds / (wall seconds x workers))."""
        capacity = self.wall_seconds * max(1, min(self.workers, max(1, self.executed)))
        return math.nan if capacity <= 0 else max(0.0, 1.0 - self.sim_call_seconds / capacity)


ProgressCallback = Callable[[str, Mapping[str, Any]], None]


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
            for run_number in range(runs):
                seed = first_seed + run_number
                if normalised is not None:
                    chash = config_hash(normalised)
                    scenario_json = json.dumps({**normalised, "seed": seed}, allow_nan=False)
                else:  # invalid: identify it by its raw form; the worker reports why
                    chash = "invalid-" + hashlib.sha256(point.to_json().encode()).hexdigest()[:8]
                    scenario_json = point.to_json()
                run_id = run_identity(version, build, chash, seed)
                tasks.append(Task(run_id, scenario_json, seed, run_number, params, chash, series, wall_limit_s,
                                  memory_limit_bytes))
    return tasks, param_keys


def sweep(
    scenario: Scenario | str | os.PathLike[str],
    vary: Mapping[str, Any] | Iterable[str] | None = None,
    runs: int = 1,
    *,
    cases: Mapping[str, Mapping[str, Any]] | None = None,
    store: Store | str | os.PathLike[str] | None = None,
    executor: Executor | str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    series: bool = False,
    overrides: Iterable[str] = (),
    name: str | None = None,
    progress: bool | ProgressCallback = False,
    check_parameters: bool = True,
    flush_every: int = 500,
    flush_seconds: float = 2.0,
    stats: SweepStats | None = None,
    run_timeout_s: float | None = None,
    memory_limit_bytes: MemoryLimit = AUTO,
) -> pd.DataFrame:
    """Run a sweep and return its runs, one row per run (also those found in
    the store), with one column per parameter.

    `vary`: {"flows.0.rate_kbps": [20, 40], "topology.nodes": "3..15:2"} or
    CLI specs ["flows.0.rate_kbps=20,40"]. `cases`: {"name": {key: value}}
    applied together, one `case` column. `runs`: run numbers 0..runs-1.
    `store`: a Store or directory (None: a temporary store, discarded).
    `executor`: "local" (processes, `jobs` default all cores), "dask"
    (`scheduler` address or a LocalCluster), "serial", or an Executor.
    `series`: keep time series. `progress`: a rich progress bar on stderr
    (True) or a callback(event, info). `stats`: filled with what happened.
    `check_parameters`: reject, before any run, keys the simulator does not
    know and any point whose scenario the core rejects (False: such runs
    fail and are recorded, as any failing run).
    `run_timeout_s`: give a run up after that many wall-clock seconds; it
    is recorded as failed ("wall-clock limit ... exceeded") and run again
    by the next sweep over the same store (only "ok" runs are kept).
    `memory_limit_bytes`: what one run may hold (`hoplab.run`); "auto"
    shares the default among the local workers (half of this machine's
    memory over `jobs`), and lets each Dask worker take its own default.
    A run past it is recorded as failed with what grew.

    Raises ScenarioError (naming the key) for an unknown parameter, an
    empty range, a bad scenario file, a point the core rejects, or seeds past 2**64 - 1 (`seed` +
    run number), and `hoplab.paths.OutputPathError` for a store directory
    that cannot be written; all before any run starts. Never raises for a
    failing run.
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise scenario_error("runs", f"must be a positive integer (--runs), got {runs!r}")
    check_run_timeout(run_timeout_s)
    memory_limit_bytes = per_worker_limit(check_memory_limit(memory_limit_bytes), executor, jobs)
    if isinstance(scenario, (str, os.PathLike)):
        scenario = load_scenario(scenario, overrides)
    else:
        scenario = scenario.copy().apply_overrides(overrides)
    normal_vary = _normalise_vary(vary)
    if check_parameters:
        for key, values in normal_vary.items():
            _check_parameter(scenario, key, values[0])
        for case_overrides in (cases or {}).values():
            for key in case_overrides:
                _check_parameter(scenario, key, case_overrides[key])
    check_seeds(base_seed(scenario), runs)
    points = max(1, len(cases or {})) * math.prod(len(values) for values in normal_vary.values())
    check_size(points, runs)
    tasks, param_keys = expand(scenario, normal_vary, runs, cases, series, run_timeout_s, memory_limit_bytes)
    if check_parameters:
        check_points(tasks)

    with _opened_store(store) as store_obj:
        result_stats = stats if stats is not None else SweepStats()
        # SIGTERM as Ctrl-C; one writer per store (a second sweep waits).
        with sweep_termination() as termination, store_obj.lock(_waiting_message(progress, store_obj)):
            store_obj.clean()
            _run_tasks(tasks, param_keys, store_obj, executor, jobs, scheduler, name or scenario.name,
                       progress, flush_every, flush_seconds, result_stats, termination)
            return _collect(store_obj, tasks, param_keys)


@contextlib.contextmanager
def _opened_store(store: Store | str | os.PathLike[str] | None) -> Iterator[Store]:
    """The sweep's store, its directories made (every input is checked by
    now: writing a finished run cannot fail later for a path); None: a
    temporary store, removed afterwards."""
    import tempfile

    from hoplab.store import Store

    temporary: tempfile.TemporaryDirectory[str] | None = None
    if store is None:
        temporary = tempfile.TemporaryDirectory(prefix="hoplab-sweep-")
        store_obj = Store(temporary.name)
    else:
        store_obj = store if isinstance(store, Store) else Store(store)
    try:
        store_obj.prepare()
        yield store_obj
    finally:
        if temporary is not None:
            temporary.cleanup()


def _waiting_message(progress: bool | ProgressCallback, store: Store) -> Callable[[int | None], None]:
    """What a sweep says once while another process holds its store."""
    def tell(holder: int | None) -> None:
        who = f"process {holder}" if holder else "another process"
        message = (f"store {str(store.path)!r} is in use by {who} (another sweep); waiting for it to finish "
                   "(then only the runs still missing run)")
        if callable(progress):
            progress("waiting", {"holder": holder, "message": message})
        elif progress:
            import sys

            sys.stderr.write(message + "\n")
            sys.stderr.flush()
    return tell


def _collect(store: Store, tasks: Sequence[Task], param_keys: Sequence[str]) -> pd.DataFrame:
    """The runs rows of `tasks`, in task order, parameters as columns."""
    import pandas as pd

    frame = store.runs(t.run_id for t in tasks)
    order = {t.run_id: i for i, t in enumerate(tasks)}
    by_id = {t.run_id: t for t in tasks}
    if frame.empty:
        return frame
    frame = frame[frame["run_id"].isin(order)].copy()
    # Parameters as this sweep names them (a run may be shared with a sweep
    # that called its parameters differently).
    for key in param_keys:
        frame[key] = pd.Series([by_id[r].params.get(key) for r in frame["run_id"]], index=frame.index,
                               dtype="object")
        values = [v for v in frame[key] if v is not None]
        if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            frame[key] = pd.to_numeric(frame[key])
    frame["run"] = [by_id[r].run for r in frame["run_id"]]
    frame["_order"] = [order[r] for r in frame["run_id"]]
    frame = frame.sort_values("_order").drop(columns=["_order", "batch"]).reset_index(drop=True)
    leading = [*param_keys, "run", "seed", "status", "error"]
    rest = [c for c in frame.columns if c not in leading and c not in ("params",)]
    return frame[leading + rest]


def _run_tasks(
    tasks: list[Task],
    param_keys: list[str],
    store: Store,
    executor: Executor | str,
    jobs: int | None,
    scheduler: str | None,
    sweep_name: str,
    progress: bool | ProgressCallback,
    flush_every: int,
    flush_seconds: float,
    stats: SweepStats,
    termination: Termination | None = None,
) -> None:
    from hoplab.executors import Executor, make_executor

    # Deduplicate (two points can normalise to the same configuration).
    unique: dict[str, Task] = {}
    for task in tasks:
        unique.setdefault(task.run_id, task)
    done = store.done_ids(unique)
    todo = [t for t in unique.values() if t.run_id not in done]
    stats.total = len(unique)
    stats.skipped = len(unique) - len(todo)
    # Runs another sweep made: this sweep's parameters for them, too.
    shared = [t for t in unique.values() if t.run_id in done]
    store.record_params([t.run_id for t in shared], [t.params for t in shared], param_keys)
    reporter = _Reporter(progress, stats)
    started = time.perf_counter()
    batch = _Pending(store, param_keys, stats)
    own_executor = not isinstance(executor, Executor)
    runner: Executor | None = None
    try:
        if todo:
            runner = make_executor(executor, jobs, scheduler) if isinstance(executor, str) else executor
            if termination is not None:
                termination.executor = runner
            runner.start()  # workers first, then the progress bar's thread
            stats.workers = runner.workers
        reporter.start(len(unique), stats.skipped)
        if todo:
            assert runner is not None
            preload: threading.Thread | None = None
            version, build = _core.version(), build_build_id()
            for index, outcome in runner.map_unordered(execute, todo):
                if preload is None:
                    # The workers exist now: load what reading the results
                    # back needs while they run (the parent is idle).
                    preload = threading.Thread(target=_preload, daemon=True)
                    preload.start()
                task = todo[index]
                row = batch.add(task, outcome, sweep_name, version, build)
                stats.executed += 1
                stats.sim_call_seconds += float(row.get("sim_call_seconds") or 0.0)
                if row["status"] != "ok":
                    stats.failed += 1
                    stats.failures.append((dict(task.params), task.run, str(row.get("error"))))
                    reporter.failure(task.params, task.run, str(row.get("error")))
                reporter.advance(row["status"] == "ok")
                if len(batch.runs) >= flush_every or time.monotonic() - batch.last_flush >= flush_seconds:
                    batch.flush()
    except KeyboardInterrupt:
        stats.interrupted = True
        raise
    finally:
        try:
            batch.flush()
        finally:
            stats.wall_seconds = time.perf_counter() - started
            reporter.stop()
            if runner is not None and own_executor:
                runner.close()


class _Pending:
    """Finished runs not yet written, and their writing (`flush`)."""

    def __init__(self, store: Store, param_keys: Sequence[str], stats: SweepStats) -> None:
        self.store = store
        self.param_keys = param_keys
        self.stats = stats
        self.runs: list[dict[str, Any]] = []
        self.scalars: list[tuple[str, dict[str, Any]]] = []
        self.series: list[tuple[str, dict[str, Any]]] = []
        self.saved = 0
        self.last_flush = time.monotonic()

    def add(self, task: Task, outcome: Any, sweep_name: str, version: str, build: str) -> dict[str, Any]:
        """One finished run (an outcome of `execute`, or the exception of a lost worker); its row."""
        if isinstance(outcome, BaseException):
            outcome = {"run": {"run_id": task.run_id, "run": task.run, "seed": task.seed,
                               "config_hash": task.config_hash, "status": "failed",
                               "error": f"worker lost: {_error_text(outcome)}"},
                       "scalars": None, "series": None}
        row: dict[str, Any] = outcome["run"]
        row.update(
            sweep=sweep_name, version=row.get("version") or version, build=build,
            params=json.dumps(task.params, sort_keys=True), config_hash=task.config_hash,
            finished_at=datetime.datetime.now(datetime.UTC),
        )
        row.setdefault("scenario", sweep_name)
        row.update(task.params)
        self.runs.append(row)
        if outcome["scalars"] is not None:
            self.scalars.append((task.run_id, outcome["scalars"]))
        if outcome["series"] is not None:
            self.series.append((task.run_id, outcome["series"]))
        return row

    def flush(self) -> None:
        if self.runs:
            try:
                self.store.write_batch(self.runs, self.scalars, self.series, self.param_keys)
            except OSError as e:
                held = self.stats.skipped + self.saved
                raise StoreWriteError(
                    e.errno, f"store {str(self.store.path)!r}: cannot write {len(self.runs)} finished run(s): "
                    f"{(e.strerror or str(e)).lower()}; it holds {held} of this sweep's {self.stats.total} runs; "
                    "make room and run the same command again (only the missing runs run)") from e
            self.saved += len(self.runs)
            self.runs.clear()
            self.scalars.clear()
            self.series.clear()
        self.last_flush = time.monotonic()


def _preload() -> None:
    import duckdb  # noqa: F401
    import pandas  # noqa: F401


class _Reporter:
    """Progress: a rich bar (done / total, failures, ETA) or a callback."""

    def __init__(self, progress: bool | ProgressCallback, stats: SweepStats) -> None:
        self._callback: ProgressCallback | None = progress if callable(progress) else None
        self._enabled = bool(progress)
        self._stats = stats
        self._progress: Any = None
        self._task: Any = None
        self._shown_failures = 0

    def start(self, total: int, skipped: int) -> None:
        if self._callback is not None:
            self._callback("start", {"total": total, "skipped": skipped})
            return
        if not self._enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        console = Console(stderr=True)
        # No ETA when every run comes from the store: nothing is left to time.
        remaining = [TextColumn("ETA"), TimeRemainingColumn()] if skipped < total else []
        self._progress = Progress(
            TextColumn("[bold]runs[/bold]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed[/red]"),
            TextColumn("{task.fields[skipped]} from store"),
            TimeElapsedColumn(), *remaining,
            console=console, transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task("runs", total=total, completed=skipped, failed=0, skipped=skipped)

    def advance(self, ok: bool) -> None:
        if self._callback is not None:
            self._callback("advance", {"ok": ok, "executed": self._stats.executed, "failed": self._stats.failed})
        elif self._progress is not None:
            self._progress.update(self._task, advance=1, failed=self._stats.failed)

    def failure(self, params: Mapping[str, Any], run: int, error: str) -> None:
        if self._callback is not None:
            self._callback("failure", {"params": dict(params), "run": run, "error": error})
            return
        if self._progress is None:
            return
        self._shown_failures += 1
        if self._shown_failures <= 10:
            where = ", ".join(f"{k}={v}" for k, v in params.items()) or "(no parameters)"
            self._progress.console.print(f"[red]failed[/red] {where}, run {run}: {error}", highlight=False)
        elif self._shown_failures == 11:
            self._progress.console.print("[red]more failures[/red]: see the store's runs (status = 'failed')")

    def stop(self) -> None:
        if self._callback is not None:
            self._callback("stop", {"executed": self._stats.executed, "failed": self._stats.failed})
        elif self._progress is not None:
            self._progress.stop()
            self._progress = None


def default_store_path() -> Path:
    """Where `hoplab sweep` keeps results unless told (`--store`)."""
    return Path("hoplab-store")
