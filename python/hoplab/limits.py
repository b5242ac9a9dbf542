"""How much memory a run may hold: the default budget and the `--memory-limit` syntax.

A run's memory budget (`memory_limit_bytes` of `hoplab.run`, `--memory-limit`
of `hoplab run` / `sweep`) is checked by the core before the run starts
(what it cannot avoid holding: its nodes' neighbour lists, its series) and
every 65,536 events as it runs (docs/metrics.md, "Memory"); a run that would
not fit ends with a SimulationError naming what grew, never with the process
killed. The default is half of the memory this process may use: the
smallest of the machine's physical memory, the cgroup's limit (containers)
and the address-space limit (`ulimit -v`), so that a run fails cleanly well
before the allocator would.
"""

from __future__ import annotations

import os
import re
import resource
from typing import Literal

__all__ = ["AUTO", "DEFAULT_RUN_TIMEOUT_S", "ESTIMATE_NOTICE_EVENTS", "MemoryLimit", "check_memory_limit", "default_memory_limit_bytes", "parse_memory_limit",
           "per_worker_limit", "resolve_memory_limit"]

#: The default budget, resolved where the run executes (a sweep's workers may
#: run on other machines).
AUTO: Literal["auto"] = "auto"

#: A memory limit as the API takes it: bytes, None (no limit) or "auto".
MemoryLimit = int | None | Literal["auto"]

#: The wall-clock budget of `hoplab run` unless `--run-timeout` says otherwise
#: (`none` lifts it): an hour, 25x the slowest example at 100 simulated seconds.
DEFAULT_RUN_TIMEOUT_S = 3600.0

#: `hoplab run` prints its up-front estimate (events, a wall-time range) on
#: stderr above this many estimated events: 2.4x the largest example's
#: 4.2e7, about 10-30 s at 3-10 M events per second.
ESTIMATE_NOTICE_EVENTS = 1e8

#: The share of the available memory a run may hold by default.
DEFAULT_SHARE = 0.5

#: The smallest limit accepted: less cannot hold a scenario's fixed state.
MIN_MEMORY_LIMIT_BYTES = 1_000_000

_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
          "ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40}


def available_memory_bytes() -> int | None:
    """What this process may use at most: the smallest of physical memory,
    the cgroup v2 / v1 limit and RLIMIT_AS (None if none is known)."""
    limits: list[int] = []
    try:
        limits.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as handle:  # not pathlib: a run imports none (docs/performance.md, Start-up)
                text = handle.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:
            limits.append(int(text))
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft > 0:
        limits.append(soft)
    return min(limits) if limits else None


def default_memory_limit_bytes() -> int | None:
    """Half of `available_memory_bytes()` (None if unknown: no limit)."""
    available = available_memory_bytes()
    return None if available is None else max(MIN_MEMORY_LIMIT_BYTES, int(available * DEFAULT_SHARE))


def check_memory_limit(value: object, key: str = "memory_limit_bytes") -> MemoryLimit:
    """Return `value` if it is a valid limit (an int >= 1 MB, None or
    "auto"); else ValueError naming `key`."""
    if value is None or value == AUTO:
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_MEMORY_LIMIT_BYTES:
        # The command line's words on the command line, Python's in Python.
        none, got = ("'none'", f"{value:,} bytes") if key.startswith("--") else ("None", repr(value))
        raise ValueError(f"{key}: must be a number of bytes >= {MIN_MEMORY_LIMIT_BYTES:,}, {none} (no limit) "
                         f"or 'auto', got {got}")
    return value


def resolve_memory_limit(value: MemoryLimit) -> int | None:
    """The limit in bytes the core gets: "auto" becomes the default here."""
    return default_memory_limit_bytes() if value == AUTO or isinstance(value, str) else value


def per_worker_limit(value: MemoryLimit, executor: object, jobs: int | None) -> MemoryLimit:
    """A sweep's limit per run: "auto" on local workers is the default
    shared among them (`jobs`, default all cores); a Dask worker resolves
    "auto" on its own machine; anything else stands."""
    if value != AUTO or not (isinstance(executor, str) and executor in ("local", "serial")):
        return value
    from hoplab.executors import default_jobs

    workers = 1 if executor == "serial" else (jobs or default_jobs())
    default = default_memory_limit_bytes()
    return None if default is None else max(MIN_MEMORY_LIMIT_BYTES, default // workers)


def parse_memory_limit(text: str, key: str = "--memory-limit") -> MemoryLimit:
    """Read `--memory-limit`: "auto", "none", bytes, or a number with a
    unit: k, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti (powers of 1024),
    with an optional B ("2G", "1.5GB", "512MiB"). ValueError naming `key`."""
    word = text.strip().lower()
    if word in ("auto", "none"):
        return AUTO if word == "auto" else None
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]i?)?b?", word)
    if not match:
        raise ValueError(f"{key}: expected a size such as 2G, 512MiB or 4000000000, 'auto' or 'none', got {text!r}")
    number, unit = match.groups()
    value = int(float(number) * _UNITS[unit or ""])
    return check_memory_limit(value, key)
