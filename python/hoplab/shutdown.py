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

The handler itself raises nothing: it records the signal and stops the
executor (`Executor.terminate`: kills the local workers, which wakes the
sweep's wait; the executors' loops then stop), and the sweep raises
`SweepTerminated` from its own code (`Termination.check`, and on leaving
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
    """The sweep's SIGTERM: whether it came, and the executor it stops."""

    def __init__(self) -> None:
        self.executor: Any = None
        self.signalled = False

    def handle(self, signum: int, frame: object) -> None:
        """Record the signal and stop the executor; raise nothing (see the
        module doc): the sweep's loop raises, via `check`."""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the flush is not cut short
        self.signalled = True
        executor = self.executor
        if executor is not None:
            executor.terminate()

    def check(self) -> None:
        """Raise `SweepTerminated` if SIGTERM came (the sweep's own loops call this)."""
        if self.signalled:
            raise SweepTerminated()


@contextmanager
def sweep_termination() -> Iterator[Termination]:
    """Within: SIGTERM stops the sweep (see the module doc). Only in the main
    thread, and only where SIGTERM still has its default action (a program
    with its own handler keeps it)."""
    termination = Termination()
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield termination
        return
    signal.signal(signal.SIGTERM, termination.handle)
    try:
        yield termination
        termination.check()  # it came after the sweep's last check (collecting the results)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


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
