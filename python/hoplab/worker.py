"""The worker: `execute` runs one task and returns its runs row and its
scalars and series as compact blocks (`hoplab.store.Block`); it never
raises for a failing run (a simulator error, a limit, a panic)."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from typing import Any

from hoplab import _core
from hoplab._core import ScenarioError
from hoplab.flatten import numeric_items
from hoplab.limits import resolve_memory_limit
from hoplab.stats import jain_index
from hoplab.tasks import Task

__all__ = ["error_text", "execute"]

#: Row fields that identify a flow or node rather than measure it.
_SKIP = frozenset({"id", "src", "dst"})


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
        row.update(status="failed", error=error_text(e), sim_call_seconds=time.perf_counter() - sim_started,
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


def error_text(error: BaseException) -> str:
    """One line naming a failed run's error (its type unless a hoplab error)."""
    text = str(error).strip().replace("\n", " ")
    name = type(error).__name__
    if isinstance(error, (ScenarioError, _core.SimulationError)):
        return text or name
    return f"{name}: {text}" if text else name
