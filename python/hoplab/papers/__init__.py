"""Seed papers as experiments: one module per paper, declaring the scenarios
and sweeps behind each of its figures and tables, and how to judge from our
data whether the paper's finding holds.

A paper module defines `PAPER = Paper(...)`:

- `experiments`: each an `Experiment`, a base scenario (a TOML-shaped dict),
  parameters to vary, named cases (overrides applied together, e.g. the
  schemes compared), runs per point and durations, with a `quick` variant
  (fewer points and runs, shorter runs) for `hoplab reproduce --quick`;
- `figures`: each a `Figure` naming the paper's figure or table, the
  finding the paper states, and a function that turns the experiments' data
  (`ExperimentData`: runs, tidy scalars, series) into a plot and a
  `FigureResult`: an outcome (holds / does not hold / inconclusive), the
  checks it was decided from, a sentence saying what the data show and
  why, the paper's numbers beside ours, and qualitative rows. Every module
  decides through `hoplab.papers.verdicts` (one rule, stated once at the
  top of the report); `hoplab.report` enforces it, so no module can report
  "holds" without the per-point checks behind it.

`hoplab reproduce PAPER` (`hoplab.report.reproduce`) runs the experiments
through `hoplab.campaign.sweep` into a store under the output directory (so
an interrupted reproduction resumes), then writes the report.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoplab.papers.verdicts import (
    DOES_NOT_HOLD,
    HOLDS,
    NOT_REPRODUCED,
    OUTCOMES,
    Check,
    PaperNumber,
    decide,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Experiment",
    "ExperimentData",
    "Figure",
    "FigureResult",
    "NotReproduced",
    "Paper",
    "PerRun",
    "available",
    "get_paper",
    "judged",
    "per_point",
    "per_run",
    "register",
]

#: Paper id -> module (under hoplab.papers) that defines PAPER.
_MODULES: dict[str, str] = {
    "few-afw": "hoplab.papers.few_afw",
    "scalable-manet": "hoplab.papers.scalable_manet",
    "semitcp-2018": "hoplab.papers.semitcp_2018",
    "tcp-ra-2009": "hoplab.papers.tcp_ra_2009",
    "tcpw-br": "hoplab.papers.tcpw_br",
}
_EXTRA: dict[str, Paper] = {}


class NotReproduced(Exception):
    """A figure cannot be made: its runs failed (the message says why)."""


#: {run number: value}
PerRun = dict[int, float]


def per_run(rows: pd.DataFrame, column: str = "value") -> PerRun:
    """{run number: value} of rows holding one value per run: the tidy
    scalars of one metric of one entity (`ExperimentData.metric`), or a table
    with one row per run and the value in `column`. NaN (a metric a run did
    not report, in a pivoted table) is left out. Every paper reads its
    per-run values through this."""
    return {int(r): float(v) for r, v in zip(rows["run"], rows[column], strict=True) if not math.isnan(float(v))}


def per_point(rows: pd.DataFrame, by: str, column: str = "value",
              key: Callable[[Any], Any] = float) -> dict[Any, PerRun]:
    """{point: `per_run` of its rows}, the points being the values of column
    `by` (a varied parameter), made by `key` (float, or int for hop
    counts); {} without rows."""
    if rows.empty or by not in rows.columns:
        return {}
    return {key(point): per_run(part, column) for point, part in rows.groupby(by)}


@dataclass
class Experiment:
    """The runs behind one or more figures."""

    name: str
    description: str
    scenario: Mapping[str, Any]
    vary: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    cases: Mapping[str, Mapping[str, Any]] | None = None
    runs: int = 10
    duration_s: float = 100.0
    warmup_s: float = 10.0
    quick_vary: Mapping[str, Sequence[Any]] | None = None
    quick_runs: int = 5
    quick_duration_s: float = 30.0
    quick_warmup_s: float = 5.0
    series: bool = False
    #: The cases of a `--quick` run (None: `cases`), for experiments whose
    #: points are cases (e.g. a chain whose nodes and flows change together).
    quick_cases: Mapping[str, Mapping[str, Any]] | None = None

    def cases_for(self, quick: bool) -> Mapping[str, Mapping[str, Any]] | None:
        """The cases of a full or quick run."""
        return self.quick_cases if quick and self.quick_cases is not None else self.cases

    def settings(self, quick: bool, runs: int | None = None) -> tuple[dict[str, Any], Mapping[str, Sequence[Any]], int]:
        """(scenario with durations set, vary, runs) for a full or quick run."""
        import copy

        scenario = copy.deepcopy(dict(self.scenario))
        scenario["duration_s"] = self.quick_duration_s if quick else self.duration_s
        scenario["warmup_s"] = self.quick_warmup_s if quick else self.warmup_s
        vary = self.quick_vary if quick and self.quick_vary is not None else self.vary
        return scenario, vary, runs if runs is not None else (self.quick_runs if quick else self.runs)


@dataclass
class ExperimentData:
    """An experiment's results: `runs` (one row per run, parameters as
    columns, `case` when the experiment has cases), `scalars` (tidy, ok runs,
    joined with the parameters), `series` (with parameters, if kept)."""

    experiment: Experiment
    runs: pd.DataFrame
    scalars: pd.DataFrame
    series: pd.DataFrame
    params: list[str]

    def failure(self, case: str | None = None) -> str | None:
        """The first error of `case` (or of any run) if none of its runs
        succeeded; None when some did."""
        runs = self.runs
        if case is not None and "case" in runs.columns:
            runs = runs[runs["case"] == case]
        if runs.empty:
            return "no runs"
        if (runs["status"] == "ok").any():
            return None
        errors = runs["error"].dropna()
        return str(errors.iloc[0]) if not errors.empty else "every run failed"

    def require(self, case: str | None = None) -> None:
        """Raise NotReproduced if `case` has no successful run."""
        error = self.failure(case)
        if error is not None:
            raise NotReproduced(error)

    def metric(self, metric: str, entity: str, case: str | None = None, ident: int | None = None) -> pd.DataFrame:
        """Tidy rows of one metric (of one case / entity id)."""
        frame = self.scalars
        if frame.empty:
            return frame
        mask = (frame["metric"] == metric) & (frame["entity"] == entity)
        if case is not None and "case" in frame.columns:
            mask &= frame["case"] == case
        if ident is not None:
            mask &= frame["id"] == ident
        return frame[mask]

    def per_run(self, metric: str, entity: str = "flow", case: str | None = None, ident: int = 0) -> PerRun:
        """{run: value} of one metric of entity `ident` (default flow 0) in `case`."""
        return per_run(self.metric(metric, entity, case, ident))

    def per_point(self, metric: str, by: str, entity: str = "flow", case: str | None = None, ident: int = 0,
                  key: Callable[[Any], Any] = float) -> dict[Any, PerRun]:
        """{value of parameter `by`: {run: value}} of one metric of entity `ident` in `case`."""
        return per_point(self.metric(metric, entity, case, ident), by, key=key)


@dataclass
class FigureResult:
    """What a figure showed: its outcome and why, the checks behind it, the
    paper's numbers beside ours, qualitative rows, files and notes.

    `verdict` says what the data show and why the outcome follows; it does
    not repeat the outcome (`summary` joins the two). An `outcome` given as
    a bool (the older form) means holds / does not hold."""

    verdict: str
    outcome: str | bool | None  # one of verdicts.OUTCOMES
    rows: list[tuple[str, str, str]] = field(default_factory=list)  # (quantity, paper, ours)
    paths: dict[str, Path] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    numbers: list[PaperNumber] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.outcome is None:
            self.outcome = NOT_REPRODUCED
        elif isinstance(self.outcome, bool):
            self.outcome = HOLDS if self.outcome else DOES_NOT_HOLD
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome: must be one of {', '.join(OUTCOMES)}, got {self.outcome!r}")

    @property
    def holds(self) -> bool | None:
        """True (holds), False (does not hold), None (inconclusive or not reproduced)."""
        return {HOLDS: True, DOES_NOT_HOLD: False}.get(str(self.outcome))

    @property
    def summary(self) -> str:
        """"<outcome>: <verdict>", the form printed on the terminal."""
        return f"{self.outcome}: {self.verdict}"


def judged(reading: str, checks: Sequence[Check], *, rows: Sequence[tuple[str, str, str]] = (),
           paths: Mapping[str, Path] | None = None, notes: Sequence[str] = (),
           numbers: Sequence[PaperNumber] = ()) -> FigureResult:
    """A FigureResult decided from `checks` by the common rule: `reading`
    (what the data show) followed by why the outcome follows."""
    from hoplab.plots import figure_notes

    outcome, why = decide(checks)
    drawn = figure_notes(paths) if paths else []  # how its error bars are made, what was cut off them
    return FigureResult(f"{reading}. {why[0].upper()}{why[1:]}", outcome, list(rows), dict(paths or {}),
                        [*notes, *drawn], list(checks), list(numbers))


FigureFunction = Callable[[Mapping[str, ExperimentData], Path], FigureResult]


@dataclass
class Figure:
    """One figure or table of the paper."""

    id: str
    title: str
    experiments: Sequence[str]
    finding: str
    make: FigureFunction

    @property
    def stem(self) -> str:
        """File name stem of its files and its anchor: "Fig. 2" -> "fig2"."""
        return "".join(ch for ch in self.id.lower() if ch.isalnum())


@dataclass
class Paper:
    id: str
    title: str
    citation: str
    source: str
    experiments: Sequence[Experiment]
    figures: Sequence[Figure]
    notes: Sequence[str] = ()
    not_covered: Sequence[str] = ()

    def experiment(self, name: str) -> Experiment:
        for experiment in self.experiments:
            if experiment.name == name:
                return experiment
        raise KeyError(name)


def register(paper: Paper) -> None:
    """Make `paper` available to `get_paper` (tests, user extensions)."""
    _EXTRA[paper.id] = paper


def available() -> list[str]:
    """Ids of the papers hoplab can reproduce."""
    return sorted({*_MODULES, *_EXTRA})


def get_paper(paper_id: str) -> Paper:
    """The paper `paper_id`; ValueError naming it (and what exists) if unknown."""
    if paper_id in _EXTRA:
        return _EXTRA[paper_id]
    module_name = _MODULES.get(paper_id)
    if module_name is None:
        raise ValueError(f"unknown paper {paper_id!r} (available: {', '.join(available())}; "
                         f"see `hoplab reproduce --list`)")
    module = importlib.import_module(module_name)
    paper = module.PAPER
    assert isinstance(paper, Paper)
    return paper
