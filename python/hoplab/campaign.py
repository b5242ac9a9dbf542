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
from hoplab.store import RUN_COLUMNS, StoreWriteError
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
    "SweepPlan",
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
    "order_longest_first",
    "parse_range",
    "parse_vary",
    "run_identity",
    "sweep",
    "sweep_many",
    "task_cost",
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
    tasks, param_keys, scenario = _prepare(scenario, vary, runs, cases, series, overrides, check_parameters,
                                           run_timeout_s, memory_limit_bytes)
    with _opened_store(store) as store_obj:
        group = _Group(name or scenario.name, tasks, param_keys, stats if stats is not None else SweepStats())
        # SIGTERM as Ctrl-C; one writer per store (a second sweep waits).
        with sweep_termination() as termination, \
                store_obj.lock(_waiting_message(progress, store_obj), stop=termination.check):
            store_obj.clean()
            _run_groups([group], store_obj, executor, jobs, scheduler, progress, flush_every, flush_seconds,
                        termination)
            return _collect_groups(store_obj, [group], None)[0]


@dataclass
class SweepPlan:
    """One sweep of `sweep_many`: `sweep`'s arguments of that name; `stats`
    is filled as `sweep` fills its own."""

    name: str
    scenario: Scenario
    vary: Mapping[str, Any] | None = None
    runs: int = 1
    cases: Mapping[str, Mapping[str, Any]] | None = None
    series: bool = False
    stats: SweepStats = field(default_factory=SweepStats)


def sweep_many(
    plans: Sequence[SweepPlan],
    *,
    store: Store | str | os.PathLike[str] | None = None,
    executor: Executor | str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool | ProgressCallback = False,
    check_parameters: bool = True,
    flush_every: int = 500,
    flush_seconds: float = 2.0,
    run_timeout_s: float | None = None,
    memory_limit_bytes: MemoryLimit = AUTO,
) -> list[pd.DataFrame]:
    """Several sweeps into one store in one pass of the executor (what
    `hoplab reproduce` runs: a paper's experiments): each returns the frame
    `sweep` would, and each plan's `stats` count what `sweep` would have
    counted running the plans one after another.

    A run two plans share (the same normalised scenario and seed: the same
    run_id) executes once, as the first plan that names it; the later plans
    find it made, as they would in the store after the first one's sweep.
    The runs of every plan go to the workers together, longest first
    (`order_longest_first`), so the workers stay busy from the first run to
    the last instead of idling at the end of each plan. Every plan's points
    are checked before any run; errors as `sweep`'s."""
    check_run_timeout(run_timeout_s)
    memory_limit_bytes = per_worker_limit(check_memory_limit(memory_limit_bytes), executor, jobs)
    groups: list[_Group] = []
    for plan in plans:
        tasks, param_keys, scenario = _prepare(plan.scenario, plan.vary, plan.runs, plan.cases, plan.series, (),
                                               check_parameters, run_timeout_s, memory_limit_bytes)
        groups.append(_Group(plan.name, tasks, param_keys, plan.stats))
    with _opened_store(store) as store_obj:
        with sweep_termination() as termination, \
                store_obj.lock(_waiting_message(progress, store_obj), stop=termination.check):
            store_obj.clean()
            before = store_obj.run_columns() if len(groups) > 1 else []
            _run_groups(groups, store_obj, executor, jobs, scheduler, progress, flush_every, flush_seconds,
                        termination)
            return _collect_groups(store_obj, groups, before)


def _prepare(
    scenario: Scenario | str | os.PathLike[str],
    vary: Mapping[str, Any] | Iterable[str] | None,
    runs: int,
    cases: Mapping[str, Mapping[str, Any]] | None,
    series: bool,
    overrides: Iterable[str],
    check_parameters: bool,
    run_timeout_s: float | None,
    memory_limit_bytes: MemoryLimit,
) -> tuple[list[Task], list[str], Scenario]:
    """A sweep's tasks and parameter columns, every input checked (see
    `sweep`); the scenario with its overrides."""
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise scenario_error("runs", f"must be a positive integer (--runs), got {runs!r}")
    check_run_timeout(run_timeout_s)
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
    return tasks, param_keys, scenario


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


@dataclass
class _Group:
    """One sweep's tasks in a pass of the executor (`_run_groups`)."""

    name: str
    tasks: list[Task]
    param_keys: list[str]
    stats: SweepStats


def _collect_groups(store: Store, groups: Sequence[_Group], before: Sequence[str] | None) -> list[pd.DataFrame]:
    """Each group's runs rows (`_collect`), read from the store at once.
    `before`: the runs columns the store had before the pass (None: keep
    every column): a group's frame then has the parameter columns it would
    have had if the groups had run one after another (those of the store
    before, and of the groups up to it), in that order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = store.runs_table({t.run_id for group in groups for t in group.tasks})
    frames = []
    known = list(before or [])
    for group in groups:
        known += [k for k in group.param_keys if k not in known]
        # Each group's rows made a DataFrame on their own, as its own read
        # would (a column's type follows its rows: integers with a NULL are floats).
        ids = pa.array(sorted({t.run_id for t in group.tasks}), type=pa.string())
        part = _collect(table.filter(pc.is_in(table["run_id"], value_set=ids)).to_pandas(), group.tasks,
                        group.param_keys)
        if before is not None and not part.empty:
            extra = [c for c in part.columns if c not in RUN_COLUMNS and c not in group.param_keys
                     and c not in ("run",)]
            drop = [c for c in extra if c not in known]
            kept = sorted((c for c in extra if c in known), key=known.index)
            fixed = [c for c in part.columns if c not in extra]
            part = part[fixed + kept].drop(columns=drop, errors="ignore")
        frames.append(part)
    return frames


def _collect(frame: pd.DataFrame, tasks: Sequence[Task], param_keys: Sequence[str]) -> pd.DataFrame:
    """The rows of `tasks` among the store's runs rows `frame`, in task
    order, parameters as columns."""
    import pandas as pd

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


def task_cost(task: Task, _cache: dict[str, float] | None = None) -> float:
    """An estimate of a run's cost, for ordering only (never for results):
    simulated seconds x (nodes + flows), read from its scenario. On the
    papers' full runs its rank correlation with the measured run times is
    0.35-0.72 (docs/performance.md, "Where a reproduction's time goes"):
    enough to start the few long runs first."""
    if _cache is not None and task.config_hash in _cache:
        return _cache[task.config_hash]
    try:
        scenario = json.loads(task.scenario_json)
        topology = scenario.get("topology") or {}
        kind = topology.get("kind")
        if kind == "grid":
            nodes = int(topology.get("rows", 1)) * int(topology.get("cols", 1))
        elif kind == "explicit":
            nodes = len(topology.get("positions") or ())
        elif kind == "wired_cum_wireless":
            nodes = int(topology.get("senders", 1)) + int(topology.get("receivers", 1)) + 2
        else:
            nodes = int(topology.get("nodes", 2))
        cost = float(scenario.get("duration_s", 1.0)) * (nodes + len(scenario.get("flows") or ()))
    except (ValueError, TypeError, AttributeError):
        cost = 0.0  # an invalid point: it fails at once
    if _cache is not None:
        _cache[task.config_hash] = cost
    return cost


def order_longest_first(tasks: Sequence[Task]) -> list[Task]:
    """`tasks` by `task_cost`, the costliest first (ties in their given
    order): the last runs to start are the short ones, so no worker waits
    long at the end for the others (longest processing time first)."""
    cache: dict[str, float] = {}
    return sorted(tasks, key=lambda t: -task_cost(t, cache))


def _run_groups(
    groups: list[_Group],
    store: Store,
    executor: Executor | str,
    jobs: int | None,
    scheduler: str | None,
    progress: bool | ProgressCallback,
    flush_every: int,
    flush_seconds: float,
    termination: Termination | None = None,
) -> None:
    """Run what the store lacks of every group in one pass, each run once
    (the first group naming a run_id owns it), longest first; then count
    each group's stats as if the groups had run one after another."""
    from hoplab.executors import Executor, make_executor

    # Deduplicate (two points, or two sweeps, can normalise to the same configuration).
    owner: dict[str, tuple[Task, _Group]] = {}
    for group in groups:
        for task in group.tasks:
            owner.setdefault(task.run_id, (task, group))
    done = store.done_ids(owner)
    todo = order_longest_first([task for run_id, (task, _) in owner.items() if run_id not in done])
    _record_shared(store, groups, done)
    pass_stats = SweepStats(total=len(owner), skipped=len(owner) - len(todo))
    reporter = Reporter(progress, pass_stats)
    started = time.perf_counter()
    batch = _Pending(store, pass_stats)
    finished: dict[str, dict[str, Any]] = {}
    own_executor = not isinstance(executor, Executor)
    runner: Executor | None = None
    try:
        if todo:
            runner = make_executor(executor, jobs, scheduler) if isinstance(executor, str) else executor
            runner.clear_stop()  # before the handlers can reach it: a stop now is this sweep's
            if termination is not None:
                termination.executor = runner
                termination.check()  # it came while the executor started (no workers to kill then)
            runner.start()  # workers first, then the progress bar's thread
            pass_stats.workers = runner.workers
        reporter.start(len(owner), pass_stats.skipped)
        if todo:
            assert runner is not None
            _run_todo(runner, todo, owner, batch, reporter, pass_stats, finished, flush_every, flush_seconds)
        if termination is not None:
            termination.check()  # the executor stopped early: SIGTERM (the finally writes what finished)
    except KeyboardInterrupt:
        pass_stats.interrupted = True
        raise
    finally:
        try:
            batch.flush()
        finally:
            pass_stats.wall_seconds = time.perf_counter() - started
            reporter.stop()
            if runner is not None and own_executor:
                runner.close()
            _count_groups(groups, done, owner, finished, pass_stats)
    _record_shared(store, groups, done, finished)


def _run_todo(runner: Executor, todo: list[Task], owner: Mapping[str, tuple[Task, _Group]], batch: _Pending,
              reporter: Reporter, stats: SweepStats, finished: dict[str, dict[str, Any]], flush_every: int,
              flush_seconds: float) -> None:
    """Execute `todo`, writing each finished run (as its owner group names
    it) in batches; `finished`: run_id -> its runs row, in finishing order."""
    preload: threading.Thread | None = None
    version, build = _core.version(), build_build_id()
    for index, outcome in runner.map_unordered(execute, todo):
        if preload is None:
            # The workers exist now: load what reading the results
            # back needs while they run (the parent is idle).
            preload = threading.Thread(target=_preload, daemon=True)
            preload.start()
        task = todo[index]
        group = owner[task.run_id][1]
        row = batch.add(task, outcome, group.name, group.param_keys, version, build)
        finished[task.run_id] = row
        stats.executed += 1
        stats.sim_call_seconds += float(row.get("sim_call_seconds") or 0.0)
        if row["status"] != "ok":
            stats.failed += 1
            stats.failures.append((dict(task.params), task.run, str(row.get("error"))))
            reporter.failure(task.params, task.run, str(row.get("error")))
        reporter.advance(row["status"] == "ok")
        if batch.count >= flush_every or time.monotonic() - batch.last_flush >= flush_seconds:
            batch.flush()


def _first_tasks(tasks: Sequence[Task]) -> dict[str, Task]:
    """run_id -> the first of `tasks` with it, in the order of first appearance."""
    first: dict[str, Task] = {}
    for task in tasks:
        first.setdefault(task.run_id, task)
    return first


def _made_before(run_id: str, group: _Group, done: set[str], owner: Mapping[str, tuple[Task, _Group]],
                 finished: Mapping[str, dict[str, Any]]) -> bool:
    """Whether `group`, run after the groups before it, would find the run
    made: in the store before the pass, or made ok by an earlier group."""
    if run_id in done:
        return True
    first = owner[run_id][1]
    return first is not group and run_id in finished and finished[run_id]["status"] == "ok"


def _count_groups(groups: Sequence[_Group], done: set[str], owner: Mapping[str, tuple[Task, _Group]],
                  finished: Mapping[str, dict[str, Any]], pass_stats: SweepStats) -> None:
    """Each group's stats as its own sweep would have counted them: a run
    an earlier group made ok is skipped; one that failed there would have
    been tried again (and failed again: a run is a pure function of its
    scenario and seed), so it counts as executed and failed in both."""
    if len(groups) == 1:  # the pass was this sweep
        vars(groups[0].stats).update(vars(pass_stats))
        return
    for group in groups:
        stats = group.stats
        mine = _first_tasks(group.tasks)
        stats.total = len(mine)
        stats.skipped = sum(1 for r in mine if _made_before(r, group, done, owner, finished))
        for run_id, row in finished.items():  # finishing order
            if run_id not in mine or _made_before(run_id, group, done, owner, finished):
                continue
            stats.executed += 1
            stats.sim_call_seconds += float(row.get("sim_call_seconds") or 0.0)
            if row["status"] != "ok":
                task = mine[run_id]
                stats.failed += 1
                stats.failures.append((dict(task.params), task.run, str(row.get("error"))))
        stats.workers, stats.wall_seconds = pass_stats.workers, pass_stats.wall_seconds
        stats.interrupted = pass_stats.interrupted


def _record_shared(store: Store, groups: Sequence[_Group], done: set[str],
                   finished: Mapping[str, dict[str, Any]] | None = None) -> None:
    """Record each group's parameters for the runs it finds made by another
    sweep (`Store.record_params`): before the pass (`finished` None) those
    in the store already; after it, those an earlier group of the pass made."""
    for index, group in enumerate(groups):
        mine = _first_tasks(group.tasks).values()
        if finished is None:
            shared = [t for t in mine if t.run_id in done]
        else:
            earlier = {t.run_id for g in groups[:index] for t in g.tasks}
            shared = [t for t in mine if t.run_id not in done and t.run_id in earlier and t.run_id in finished
                      and finished[t.run_id]["status"] == "ok"]
        store.record_params([t.run_id for t in shared], [t.params for t in shared], group.param_keys)


class _Pending:
    """Finished runs not yet written, and their writing (`flush`): one
    batch per sweep, so each runs file holds one sweep's parameter columns,
    as when sweeps run one after another."""

    def __init__(self, store: Store, stats: SweepStats) -> None:
        self.store = store
        self.stats = stats
        #: sweep name -> (its parameter keys, runs rows, scalars, series)
        self.groups: dict[str, tuple[Sequence[str], list[dict[str, Any]], list[tuple[str, dict[str, Any]]],
                                     list[tuple[str, dict[str, Any]]]]] = {}
        self.count = 0
        self.saved = 0
        self.last_flush = time.monotonic()

    def add(self, task: Task, outcome: Any, sweep_name: str, param_keys: Sequence[str], version: str,
            build: str) -> dict[str, Any]:
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
        _, runs, scalars, series = self.groups.setdefault(sweep_name, (param_keys, [], [], []))
        runs.append(row)
        self.count += 1
        if outcome["scalars"] is not None:
            scalars.append((task.run_id, outcome["scalars"]))
        if outcome["series"] is not None:
            series.append((task.run_id, outcome["series"]))
        return row

    def flush(self) -> None:
        for name in list(self.groups):
            param_keys, runs, scalars, series = self.groups[name]
            try:
                self.store.write_batch(runs, scalars, series, param_keys)
            except OSError as e:
                held = self.stats.skipped + self.saved
                raise StoreWriteError(
                    e.errno, f"store {str(self.store.path)!r}: cannot write {self.count} finished run(s): "
                    f"{(e.strerror or str(e)).lower()}; it holds {held} of this sweep's {self.stats.total} runs; "
                    "make room and run the same command again (only the missing runs run)") from e
            self.saved += len(runs)
            self.count -= len(runs)
            del self.groups[name]
        self.last_flush = time.monotonic()


def _preload() -> None:
    import duckdb  # noqa: F401
    import pandas  # noqa: F401


def default_store_path() -> Path:
    """Where `hoplab sweep` keeps results unless told (`--store`)."""
    return Path("hoplab-store")
