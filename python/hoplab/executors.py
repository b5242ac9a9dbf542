"""Executors: where the runs of a sweep execute, behind one small interface.

An executor maps a picklable function over tasks and yields `(index,
outcome)` pairs as runs finish, in any order; `outcome` is what the function
returned, or the exception the infrastructure raised (a worker that died).
The function itself never raises for a failing run: it returns a failed
outcome (see `hoplab.worker.execute`), so one bad run never stops a sweep.

- `LocalExecutor`: worker processes on this machine (all cores by default).
  Workers ignore SIGINT and SIGTERM, so Ctrl-C reaches only the sweep, which
  records what finished and cancels the rest (SIGTERM: kills the workers,
  `hoplab.shutdown`), and they die with the sweep's process, even a
  SIGKILLed one (PR_SET_PDEATHSIG). If a worker process dies, the pool is
  restarted and the unfinished tasks are submitted again; the tasks that
  were running then run alone afterwards, so the one that kills its worker
  is found (after `retries` + 1 deaths it comes back as an error) and the
  others finish.
- `DaskExecutor`: the same tasks on a Dask distributed cluster: the
  scheduler at `scheduler` ("tcp://host:8786"), or a LocalCluster of
  `jobs` single-threaded worker processes. Each task is submitted with
  `retries`, and the scheduler reschedules the tasks of a lost worker
  (`distributed.scheduler.allowed-failures`). Any cluster Dask can reach
  works, e.g. SLURM through dask-jobqueue (docs/executors-and-clusters.md).
- `SerialExecutor`: in this process, one run after another (debugging,
  profiling, and tests that count simulator calls).

`make_executor(name, jobs, scheduler)` builds one by name.

`terminate` (SIGTERM) and `stop` (Ctrl-C) are called from the sweep's
signal handlers, between any two bytecodes of the main thread, even inside
a `concurrent.futures` or Dask call holding one of their locks: they only
set `_stopping` and (`terminate`) kill processes (no lock, no call into a
library's machinery); each `map_unordered` loop then yields what finished
and stops, and the sweep raises (`hoplab.shutdown`).
"""

from __future__ import annotations

import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["EXECUTORS", "DaskExecutor", "Executor", "ExecutorError", "LocalExecutor", "SerialExecutor",
           "make_executor"]


class ExecutorError(RuntimeError):
    """The executor could not start (e.g. no Dask scheduler at the address)."""

#: Executor names accepted by `make_executor` (and `--executor`).
EXECUTORS: tuple[str, ...] = ("local", "dask", "serial")


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class Executor(ABC):
    """Runs `fn(task)` for each task; yields (index, result or exception)."""

    name = "executor"
    #: Set by `stop` and `terminate`: `map_unordered` starts no more runs and stops.
    _stopping = False

    @property
    @abstractmethod
    def workers(self) -> int:
        """How many runs execute at once."""

    @abstractmethod
    def map_unordered(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """Yield (index into tasks, outcome or exception) as each finishes.

        Closing the iterator early (an exception in the consumer, Ctrl-C)
        cancels what has not started."""

    def start(self) -> None:
        """Start the workers now (before the caller starts threads of its
        own, such as a progress bar); map_unordered starts them otherwise."""

    def close(self) -> None:
        """Release workers (idempotent)."""

    def stop(self) -> None:
        """Start no more runs; those in flight finish (Ctrl-C to the sweep).
        Called from a signal handler: sets a flag, takes no lock."""
        self._stopping = True

    def clear_stop(self) -> None:
        """Forget an earlier sweep's `stop` (a caller that caught its
        KeyboardInterrupt runs another sweep on this executor)."""
        self._stopping = False

    def terminate(self) -> None:
        """Stop the runs in flight at once (SIGTERM to the sweep); `close`
        follows. Called from a signal handler: sets a flag, takes no lock."""
        self._stopping = True

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(Executor):
    """One run after another, in this process."""

    name = "serial"

    @property
    def workers(self) -> int:
        return 1

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        for index, task in enumerate(tasks):
            if self._stopping:
                return
            yield index, fn(task)


def _tracked(call: tuple[Callable[[Any], Any], str, int, Any]) -> Any:
    """Run `fn(task)` with a marker file named by its index in `directory`
    while it runs: a worker that dies leaves it behind (LocalExecutor)."""
    fn, directory, index, task = call
    marker = os.path.join(directory, str(index))
    with open(marker, "w", encoding="utf-8"):
        pass
    try:
        return fn(task)
    finally:
        os.remove(marker)


def _worker_start(parent: int) -> None:
    """A local worker: Ctrl-C and SIGTERM are the sweep's to handle (it kills
    its workers itself), and the worker dies with the sweep's process
    (`hoplab.shutdown.die_with_parent`), even when that is SIGKILLed."""
    from hoplab.shutdown import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    die_with_parent(parent)


class LocalExecutor(Executor):
    """Worker processes on this machine (`jobs`, default all cores)."""

    name = "local"

    def __init__(self, jobs: int | None = None, retries: int = 2) -> None:
        self._jobs = jobs or default_jobs()
        self.retries = retries
        self._ready: Any = None  # a started pool, taken by the next map_unordered
        self._running: Any = None  # the pool map_unordered is using
        self._terminated = False  # `terminate` killed the workers (not only `stop`)

    def start(self) -> None:
        from concurrent.futures.process import BrokenProcessPool

        if self._ready is None:
            self._ready = self._pool()
            try:
                self._ready.submit(int).result()  # forks every worker (all at the first submit)
            except BrokenProcessPool:
                if not self._stopping:  # else `terminate` killed them: the sweep is stopping
                    raise

    def close(self) -> None:
        if self._ready is not None:
            self._ready.shutdown(wait=True)
            self._ready = None

    @property
    def workers(self) -> int:
        return self._jobs

    def _pool(self) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # fork where there is one (Linux): workers start at once, already
        # holding the simulator, and a user's script needs no `if __name__
        # == "__main__"` guard. The pool forks every worker at the first
        # submit, before the sweep starts its progress thread; a worker
        # only calls the simulator (no locks shared with the parent).
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        return ProcessPoolExecutor(max_workers=self._jobs, mp_context=context, initializer=_worker_start,
                                   initargs=(os.getpid(),))

    def terminate(self) -> None:
        """Kill every worker now (the sweep is stopping; runs in flight are
        lost): their pool breaks, which wakes `map_unordered`'s wait."""
        self._stopping = self._terminated = True
        for pool in (self._ready, self._running):
            processes = getattr(pool, "_processes", None) or {}  # ProcessPoolExecutor's pid -> Process
            for process in list(processes.values()):
                try:
                    process.kill()
                except (OSError, AttributeError, ValueError):  # gone, or closed: nothing to kill
                    pass

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """When a worker dies, the pool breaks and every unfinished task comes
        back. The tasks that were running then (each leaves a marker file
        while it runs) get a strike; a task with a strike runs alone
        afterwards, so the one that kills its worker is found and the runs
        beside it finish. A task that dies `retries` + 1 times comes back as
        an error naming that. After `terminate` (SIGTERM) it yields the runs
        that finished and stops: the pool broken by the killed workers is
        no worker death. After `stop` (Ctrl-C) it stops when the next run
        finishes, and the pool's shutdown waits for the others in flight."""
        import tempfile
        from concurrent.futures import FIRST_COMPLETED, Future, wait
        from concurrent.futures.process import BrokenProcessPool

        pending = list(range(len(tasks)))
        strikes: dict[int, int] = {}
        _remove_stale_running_dirs()
        with tempfile.TemporaryDirectory(prefix=f"hoplab-running-{os.getpid()}-") as running:
            while pending and not self._stopping:
                struck = [i for i in pending if strikes.get(i)]
                batch = struck[:1] if struck else pending
                pool, self._ready = (self._ready or self._pool()), None
                self._running = pool
                futures: dict[Future[Any], int] = {}
                broken = False
                finished: set[int] = set()
                try:
                    for index in batch:
                        futures[pool.submit(_tracked, (fn, running, index, tasks[index]))] = index
                    not_done: set[Future[Any]] = set(futures)
                    # Once the workers exist a SIGTERM kills them, which wakes
                    # this wait; before, `_stopping` is set by then. A Ctrl-C
                    # is seen when the next run finishes.
                    while not_done and not broken and not self._stopping:
                        done, not_done = wait(not_done, return_when=FIRST_COMPLETED)
                        for future in done:
                            index = futures[future]
                            error = future.exception()
                            if isinstance(error, BrokenProcessPool):
                                broken = True
                                continue
                            finished.add(index)
                            yield index, (error if error is not None else future.result())
                except BrokenProcessPool:  # from submit: terminate killed the workers meanwhile
                    if not self._stopping:
                        raise
                finally:
                    if self._terminated:  # workers started after the signal: stop their runs too
                        self.terminate()
                    pool.shutdown(wait=True, cancel_futures=True)
                pending = [i for i in pending if i not in finished]
                if not broken or self._stopping:
                    continue
                # The runs in flight when the pool broke (a worker that died
                # outside any run leaves no marker: then the whole batch).
                died = [int(name) for name in os.listdir(running)]
                for name in os.listdir(running):
                    os.remove(os.path.join(running, name))
                for index in died or [i for i in batch if i not in finished]:
                    strikes[index] = strikes.get(index, 0) + 1
                    if strikes[index] > self.retries:
                        pending.remove(index)
                        yield index, RuntimeError(f"worker process died {strikes[index]} times running this run "
                                                  "(killed, out of memory, or crashed)")


def _remove_stale_running_dirs() -> None:
    """Remove the marker folders (`hoplab-running-<pid>-*` in the system's
    temporary directory) of sweeps whose process is gone (killed: no
    cleanup ran); only this user's, and only marker files inside."""
    import re
    import tempfile

    from hoplab.paths import process_alive

    folder = tempfile.gettempdir()
    pattern = re.compile(r"^hoplab-running-(\d+)-")
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        match = pattern.match(entry.name)
        try:
            if match is None or not entry.is_dir(follow_symlinks=False) or entry.stat().st_uid != os.getuid() \
                    or process_alive(int(match.group(1))):
                continue
            for marker in os.scandir(entry.path):
                if marker.name.isdigit() and marker.is_file(follow_symlinks=False):
                    os.unlink(marker.path)
            os.rmdir(entry.path)
        except OSError:
            continue


#: How often `DaskExecutor.map_unordered` looks for finished runs (and a SIGTERM).
_POLL_S = 0.05


class DaskExecutor(Executor):
    """A Dask distributed cluster: `scheduler` address, or a LocalCluster."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, jobs: int | None = None, retries: int = 2) -> None:
        import dask
        from distributed import Client

        self.retries = retries
        self._cluster: Any = None
        dask.config.set({"distributed.scheduler.allowed-failures": max(3, retries + 1)})
        if scheduler:
            try:
                self._client: Any = Client(scheduler, timeout="15s")  # type: ignore[no-untyped-call]
            except (OSError, TimeoutError, ValueError) as e:
                raise ExecutorError(f"--scheduler: cannot reach a Dask scheduler at {scheduler!r}: {e}") from None
            except TypeError as e:  # tls:// without certificates: Dask's words are about its internals
                if "ssl" not in str(e).lower():
                    raise
                raise ExecutorError(f"--scheduler: {scheduler!r} speaks TLS and no client certificate is set "
                                    "(DASK_DISTRIBUTED__COMM__TLS__CA_FILE, ...__CLIENT__CERT, ...__CLIENT__KEY; "
                                    "docs/executors-and-clusters.md)") from None
        else:
            self._cluster = _local_cluster(jobs or default_jobs())
            self._client = Client(self._cluster)  # type: ignore[no-untyped-call]

    @property
    def workers(self) -> int:
        info = self._client.scheduler_info()
        threads = sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values())
        return max(1, threads)

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """After `stop` or `terminate` (Ctrl-C, SIGTERM) it yields the runs
        that finished and stops; the runs left are cancelled. It polls for finished runs
        rather than blocking in `as_completed`'s iterator, so the flag is
        seen within `_POLL_S`."""
        from distributed import as_completed

        futures = {}
        for index, task in enumerate(tasks):
            future = self._client.submit(fn, task, retries=self.retries, pure=False)
            futures[future.key] = (index, future)
        try:
            completed = as_completed([f for _, f in futures.values()])  # type: ignore[no-untyped-call]
            while not completed.is_empty():  # type: ignore[no-untyped-call]
                stopping = self._stopping
                ready = completed.next_batch(block=False)  # type: ignore[no-untyped-call]
                for future in ready:
                    index = futures[future.key][0]
                    if future.status == "error":
                        yield index, future.exception()
                    else:
                        yield index, future.result()
                if stopping:
                    return
                if not ready:
                    time.sleep(_POLL_S)
        finally:
            unfinished = [f for _, f in futures.values() if not f.done()]
            if unfinished:
                self._client.cancel(unfinished)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def _local_cluster(workers: int) -> Any:
    """A Dask cluster on this machine that opens no HTTP port: a scheduler in
    this process and `workers` single-threaded worker processes (each under
    a nanny, so a lost worker is replaced), every one listening on the
    loopback interface only, for Dask's own protocol over mutual TLS. Dask starts an HTTP
    server (dashboard, metrics) in every scheduler and worker even with the
    dashboard off (`dashboard_address=None` still binds 8787); the scheduler
    and worker classes here leave it out."""
    from distributed import Nanny, SpecCluster
    from distributed.security import Security

    # Mutual TLS with a key made now, held in memory and handed to the
    # workers only: no other process (another user's) can submit to the
    # scheduler or join it, though it listens on loopback.
    security = Security.temporary()  # type: ignore[no-untyped-call]
    host = {"host": "127.0.0.1", "dashboard_address": None, "dashboard": False, "security": security}
    scheduler = {"cls": __getattr__("_QuietScheduler"), "options": {**host, "port": 0, "protocol": "tls://"}}
    worker = {"cls": Nanny, "options": {**host, "nthreads": 1, "worker_class": __getattr__("_QuietWorker"),
                                        "silence_logs": 40, "protocol": "tls://"}}
    return SpecCluster(scheduler=scheduler, workers={i: worker for i in range(workers)},  # type: ignore[no-untyped-call]
                       silence_logs=40, name="hoplab-local", security=security)


def _no_http_server(node: Any, routes: Any, *args: Any, **kwargs: Any) -> None:
    """`ServerNode.start_http_server` that keeps the routes (so stopping works)
    and listens nowhere."""
    from distributed.http.routing import RoutingApplication

    node.http_application = RoutingApplication(routes)  # type: ignore[no-untyped-call]


def _quiet_classes() -> tuple[type, type]:
    from distributed import Scheduler, Worker

    class QuietScheduler(Scheduler):
        """A scheduler without the HTTP server."""

        def start_http_server(self, routes: Any, *args: Any, **kwargs: Any) -> None:
            _no_http_server(self, routes)

    class QuietWorker(Worker):
        """A worker without the HTTP server."""

        def start_http_server(self, routes: Any, *args: Any, **kwargs: Any) -> None:
            _no_http_server(self, routes)

    QuietScheduler.__module__ = QuietWorker.__module__ = __name__
    QuietScheduler.__qualname__, QuietWorker.__qualname__ = "_QuietScheduler", "_QuietWorker"
    return QuietScheduler, QuietWorker


def __getattr__(name: str) -> Any:
    """`_QuietScheduler` and `_QuietWorker`, made on first use (importing
    hoplab.executors does not import distributed)."""
    if name in ("_QuietScheduler", "_QuietWorker"):
        if name not in globals():
            scheduler, worker = _quiet_classes()
            globals().update(_QuietScheduler=scheduler, _QuietWorker=worker)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_executor(name: str, jobs: int | None = None, scheduler: str | None = None) -> Executor:
    """An executor by name: "local" (default), "dask" or "serial"."""
    if name == "local":
        return LocalExecutor(jobs)
    if name == "dask":
        return DaskExecutor(scheduler, jobs)
    if name == "serial":
        return SerialExecutor()
    raise ValueError(f"--executor: unknown executor {name!r} (choose from {', '.join(EXECUTORS)})")
