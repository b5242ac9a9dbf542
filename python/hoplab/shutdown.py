"""Stopping a sweep from outside: SIGTERM, and workers that die with it.

SIGTERM is what `timeout`, SLURM (at the end of a job's time) and systemd
send before they kill. During a sweep (`sweep_termination`), the first
SIGTERM makes the sweep stop as Ctrl-C does: the executor's workers are
killed at once (their runs in flight are not finished; the next sweep runs
them again), every finished run is written to the store, and the sweep
raises `SweepTerminated`, a `SystemExit` with status 143 (128 + 15, what a
shell reports for a process killed by SIGTERM); `hoplab sweep` prints one
line and exits with it. Further SIGTERMs are ignored until then, so the
flush is not cut short.

Ctrl-C (SIGINT) during a sweep starts no more runs: the sweep stops when
the next run finishes (the runs in flight are not killed; the executor
waits for them, as it always did), writes every finished run and raises
`KeyboardInterrupt` (`hoplab sweep`: exit 130). A second Ctrl-C raises it
at once, as Python does. A program's own SIGINT handler is kept.

The handlers themselves raise nothing: they record the signal and stop the
executor (SIGTERM: `Executor.terminate`, which kills the local workers and
so wakes the sweep's wait; Ctrl-C: `Executor.stop`), and the sweep raises
from its own code (`Termination.check`, and on leaving
`sweep_termination`). An exception raised by a handler lands wherever the
main thread is, possibly inside `concurrent.futures.wait` holding a
future's lock; the pool's shutdown then waited for that lock for ever and
the sweep never exited (issue found by the SIGTERM tests).

Local workers never outlive the sweep's process: each asks the kernel to
send it SIGKILL when its parent dies (Linux `prctl(PR_SET_PDEATHSIG)`, via
ctypes), and checks its parent is still there; elsewhere a watchdog thread
polls the parent's pid every second. So a SIGKILL of the main process,
which runs no code, still leaves no worker behind.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["EXIT_TERMINATED", "SweepTerminated", "die_with_parent", "sweep_termination"]

#: The exit status of a sweep stopped by SIGTERM (128 + SIGTERM).
EXIT_TERMINATED = 128 + signal.SIGTERM

_PR_SET_PDEATHSIG = 1


class SweepTerminated(SystemExit):
    """A sweep stopped by SIGTERM after writing its finished runs (exit 143)."""

    def __init__(self) -> None:
        super().__init__(EXIT_TERMINATED)


class Termination:
    """The sweep's SIGTERM and Ctrl-C: which came, and the executor they stop."""

    def __init__(self) -> None:
        self.executor: Any = None
        self.signalled = False  # SIGTERM
        self.interrupted = False  # SIGINT (Ctrl-C)

    def handle(self, signum: int, frame: object) -> None:
        """Record the signal and stop the executor; raise nothing (see the
        module doc): the sweep's loop raises, via `check`."""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the flush is not cut short
        self.signalled = True
        executor = self.executor
        if executor is not None:
            executor.terminate()

    def interrupt(self, signum: int, frame: object) -> None:
        """Ctrl-C: record it and let the executor start no more runs; raise
        nothing, unless it is the second (then at once, as Python does)."""
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True
        executor = self.executor
        if executor is not None:
            executor.stop()

    def check(self) -> None:
        """Raise `SweepTerminated` if SIGTERM came, `KeyboardInterrupt` if
        Ctrl-C did (the sweep's own loops call this)."""
        if self.signalled:
            raise SweepTerminated()
        if self.interrupted:
            raise KeyboardInterrupt


@contextmanager
def sweep_termination() -> Iterator[Termination]:
    """Within: SIGTERM and Ctrl-C stop the sweep (see the module doc). Only
    in the main thread, and only for a signal that still has Python's
    default action (a program with its own handler keeps it)."""
    termination = Termination()
    if threading.current_thread() is not threading.main_thread():
        yield termination
        return
    installed = {signum: handler for signum, default, handler in
                 ((signal.SIGTERM, signal.SIG_DFL, termination.handle),
                  (signal.SIGINT, signal.default_int_handler, termination.interrupt))
                 if signal.getsignal(signum) is default}
    for signum, handler in installed.items():
        signal.signal(signum, handler)
    try:
        yield termination
        termination.check()  # it came after the sweep's last check (collecting the results)
    finally:
        if signal.SIGTERM in installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if signal.SIGINT in installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def die_with_parent(parent: int) -> None:
    """Make this (worker) process die when `parent` does: PR_SET_PDEATHSIG
    on Linux, a watchdog thread elsewhere; exit now if it is already gone."""
    armed = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # it died before the kernel was asked
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="hoplab-watch-parent").start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)
