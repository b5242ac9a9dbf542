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
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy  # noqa: F401 - loaded before workers fork, so no worker pays for it

from hoplab import _core
from hoplab.identity import build_build_id, config_hash, run_identity
from hoplab.limits import AUTO, MemoryLimit, check_memory_limit, per_worker_limit
from hoplab.progress import ProgressCallback, Reporter
from hoplab.scenario import Scenario, load_scenario, scenario_error
from hoplab.shutdown import Termination, sweep_termination
from hoplab.stats import jain_index
from hoplab.store import StoreWriteError
from hoplab.tasks import (
    MAX_SWEEP_RUNS,
    Task,
    base_seed,
    check_points,
    check_run_timeout,
    check_seeds,
    check_size,
    expand,
)
from hoplab.vary import check_parameter, normalise_vary, parse_range, parse_vary
from hoplab.worker import error_text, execute

if TYPE_CHECKING:
    import pandas as pd

    from hoplab.executors import Executor
    from hoplab.store import Store

# The names below the sweep itself live in their own modules (parameters:
# hoplab.vary; identity: hoplab.identity; tasks and their checks:
# hoplab.tasks; the worker: hoplab.worker; progress: hoplab.progress) and
# are re-exported here, where they always were.
__all__ = [
    "MAX_SWEEP_RUNS",
    "METRICS",
    "ProgressCallback",
    "StoreWriteError",
    "SweepStats",
    "Task",
    "base_seed",
    "build_build_id",
    "check_points",
    "check_run_timeout",
    "check_seeds",
    "check_size",
    "config_hash",
    "default_store_path",
    "execute",
    "expand",
    "jain_index",
    "parse_range",
    "parse_vary",
    "run_identity",
    "sweep",
]

#: The numeric columns of the runs table a sweep's summary can average
#: (`hoplab sweep --metric`).
METRICS: tuple[str, ...] = ("goodput_kbps", "mean_delay_ms", "jain_goodput", "events", "flows", "sim_seconds",
                            "wall_seconds", "sim_call_seconds", "task_seconds")


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
    normal_vary = normalise_vary(vary)
    if check_parameters:
        for key, values in normal_vary.items():
            check_parameter(scenario, key, values[0])
        for case_overrides in (cases or {}).values():
            for key in case_overrides:
                check_parameter(scenario, key, case_overrides[key])
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
    reporter = Reporter(progress, stats)
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
                               "error": f"worker lost: {error_text(outcome)}"},
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


def default_store_path() -> Path:
    """Where `hoplab sweep` keeps results unless told (`--store`)."""
    return Path("hoplab-store")
