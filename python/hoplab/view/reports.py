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

__all__ = ["RunView", "chosen_views", "write_view", "write_views"]


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


def chosen_views(experiments: list[tuple[Any, Mapping[str, Any], Mapping[str, list[Any]], int]],
                 runs: Mapping[str, Any], quick: bool, log: Callable[[str], None]) -> list[tuple[str, Any]]:
    """(experiment name, task of its representative run) per experiment;
    `experiments`: (experiment, its scenario, vary, runs per point) as the
    report ran them; `runs`: each experiment's runs frame. An experiment
    with no successful run has none (the log says so)."""
    from hoplab.scenario import Scenario
    from hoplab.tasks import expand

    chosen = []
    for experiment, scenario_data, vary, n_runs in experiments:
        tasks, _ = expand(Scenario(dict(scenario_data)), dict(vary), n_runs, cases=experiment.cases_for(quick))
        task = _representative(tasks, runs.get(experiment.name))
        if task is None:
            log(f"{experiment.name}: no successful run to view")
            continue
        chosen.append((experiment.name, task))
    return chosen


def write_view(name: str, task: Any, out_dir: Path) -> RunView:
    """Run `task` again, recorded, and write its page to `views/<name>.html`."""
    import hoplab
    from hoplab.scenario import Scenario
    from hoplab.view import view

    (out_dir / "views").mkdir(parents=True, exist_ok=True)
    result = hoplab.run(Scenario(json.loads(task.scenario_json)), record=True)
    path = view(result, out_dir / "views" / f"{name}.html")
    return RunView(path.relative_to(out_dir).as_posix(), _describe(task))


def write_views(experiments: list[tuple[Any, Mapping[str, Any], Mapping[str, list[Any]], int]],
                runs: Mapping[str, Any], quick: bool, out_dir: Path, log: Callable[[str], None]) -> dict[str, RunView]:
    """Write a view per experiment (`chosen_views`, then `write_view` each, in this process)."""
    return {name: write_view(name, task, out_dir) for name, task in chosen_views(experiments, runs, quick, log)}
