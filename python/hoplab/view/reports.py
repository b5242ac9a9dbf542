"""A view of one representative run per experiment, for the reproduction
reports (`hoplab reproduce`, docs/view.md).

The representative run of an experiment: among the successful runs of its
first point (first case, first value of each varied key), the one whose
goodput is the median (the lower median for an even count); it is run again
with its own scenario and seed, recorded (the same run: a recording
changes nothing simulated), and its page written to
`views/<experiment>.html` beside the report.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["RunView", "write_views"]


@dataclass(frozen=True)
class RunView:
    """A written view: its path relative to the report and which run it is."""

    path: str
    run: str


def _representative(tasks: list[Any], runs: Any) -> Any | None:
    """The task of the first point's median-goodput ok run (None if none)."""
    if runs is None or runs.empty or not tasks:
        return None
    ok = runs[runs["status"] == "ok"].set_index("run_id")["goodput_kbps"]
    first = [t for t in tasks if t.params == tasks[0].params and t.run_id in ok.index]
    if not first:
        return None
    ranked = sorted(first, key=lambda t: (float(ok[t.run_id]), t.seed))
    return ranked[(len(ranked) - 1) // 2]


def _describe(task: Any) -> str:
    params = ", ".join(f"{k} = {v}" for k, v in task.params.items())
    return (f"{params + ', ' if params else ''}seed {task.seed} (the median goodput of this point's "
            f"successful runs)")


def write_views(experiments: list[tuple[Any, Mapping[str, Any], Mapping[str, list[Any]], int]],
                runs: Mapping[str, Any], quick: bool, out_dir: Path, log: Callable[[str], None]) -> dict[str, RunView]:
    """Write a view per experiment; `experiments`: (experiment, its
    scenario, vary, runs per point) as the report ran them; `runs`: each
    experiment's runs frame. An experiment with no successful run gets no
    view (the log says so)."""
    import hoplab
    from hoplab.scenario import Scenario
    from hoplab.tasks import expand
    from hoplab.view import view

    views: dict[str, RunView] = {}
    for experiment, scenario_data, vary, n_runs in experiments:
        tasks, _ = expand(Scenario(dict(scenario_data)), dict(vary), n_runs, cases=experiment.cases_for(quick))
        task = _representative(tasks, runs.get(experiment.name))
        if task is None:
            log(f"{experiment.name}: no successful run to view")
            continue
        (out_dir / "views").mkdir(parents=True, exist_ok=True)
        result = hoplab.run(Scenario(json.loads(task.scenario_json)), record=True)
        path = view(result, out_dir / "views" / f"{experiment.name}.html")
        views[experiment.name] = RunView(path.relative_to(out_dir).as_posix(), _describe(task))
    return views
