"""A worker that dies in the middle of a task: the executors run the task
again elsewhere (Dask: the scheduler reschedules a lost worker's tasks;
local: the broken pool is restarted) and the sweep loses nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import pytest

from hoplab.executors import DaskExecutor, LocalExecutor


def square_dying_once(task: tuple[int, str]) -> int:
    """Square x; the first time it meets x = 3, kill the worker process (a
    marker file remembers), as a lost node or an OOM kill would."""
    x, marker_dir = task
    marker = os.path.join(marker_dir, f"died-{x}")
    if x == 3 and not os.path.exists(marker):
        Path(marker).touch()
        os._exit(1)
    return x * x


@pytest.mark.parametrize(
    "make", [lambda: DaskExecutor(jobs=2, retries=2), lambda: LocalExecutor(jobs=2, retries=2)], ids=["dask", "local"]
)
def test_a_lost_worker_costs_no_result(make: Callable[[], Any], tmp_path: Path) -> None:
    tasks = [(x, str(tmp_path)) for x in range(6)]
    with make() as executor:
        results = dict(executor.map_unordered(square_dying_once, tasks))
    assert (tmp_path / "died-3").exists(), "the worker really died"
    assert results == {i: i * i for i in range(6)}


def square_unless_fatal(x: int) -> int:
    """Square x; x = 5 kills its worker every time (a run that always aborts)."""
    if x == 5:
        os._exit(134)
    return x * x


def test_a_run_that_always_kills_its_worker_fails_alone() -> None:
    """The runs in flight beside it are retried alone and finish; only the
    run that kills its worker comes back as an error, after retries + 1
    deaths, saying so."""
    with LocalExecutor(jobs=2, retries=2) as executor:
        results = dict(executor.map_unordered(square_unless_fatal, list(range(10))))
    assert {i: v for i, v in results.items() if i != 5} == {i: i * i for i in range(10) if i != 5}
    assert isinstance(results[5], RuntimeError) and "died 3 times running this run" in str(results[5])
