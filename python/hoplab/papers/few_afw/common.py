"""Helpers shared by few-afw's figure modules: per-run totals and Jain's
index by case and point, AFW's gain over FeW, the comparison checks every
figure makes, curves with their 95 % intervals, and the schemes' styles."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hoplab.stats import jain_index
from hoplab.papers import ExperimentData, NotReproduced
from hoplab.papers.few_afw.experiments import AFW, FEW, NEWRENO, case, case_of
from hoplab.papers.verdicts import Check, greater
from hoplab.plots import Line
from hoplab.stats import fmt, mean_ci, mean_of

__all__ = ["STYLES", "PerRun", "by_point", "curves", "fmt", "gain", "gain_checks", "mean_of", "relative_gain",
           "require"]

STYLES: dict[str, dict[str, Any]] = {
    AFW: {"color": "black", "marker": "o", "linestyle": "-"},
    FEW: {"color": "tab:red", "marker": "s", "linestyle": "--"},
    NEWRENO: {"color": "dimgray", "marker": "^", "linestyle": ":"},
}

#: {run: value}
PerRun = dict[int, float]


def by_point(data: ExperimentData, scheme: str, *, param: str | None = None, value: float | None = None,
             flows: Sequence[int] | None = None, measure: str = "total") -> dict[str, PerRun]:
    """{point: {run: x}} of `scheme` over the experiment's cases ("<scheme>,
    <point>", or the scheme's own case, point ""), where x is the `total`
    goodput (kb/s) of the TCP flows `flows` (default: every TCP flow) or
    their Jain index (`measure = "jain"`); `param`/`value` select one value
    of a varied parameter."""
    rows = data.scalars
    if rows.empty:
        data.require()
        raise NotReproduced("no runs")
    rows = rows[(rows["metric"] == "goodput_kbps") & (rows["entity"] == "flow")]
    if param is not None:
        rows = rows[rows[param].astype(float) == float(value)]  # type: ignore[arg-type]
    tcp = _tcp_flows(data)
    out: dict[str, dict[int, list[float]]] = {}
    for name, part in rows.groupby("case"):
        which, point = case_of(str(name))
        if which != scheme:
            continue
        for run, ident, x in zip(part["run"], part["id"], part["value"], strict=True):
            if int(ident) in tcp.get(str(name), set()) and (flows is None or int(ident) in flows):
                out.setdefault(point or "", {}).setdefault(int(run), []).append(float(x))
    reducers: dict[str, Callable[[list[float]], float]] = {"total": sum, "jain": jain_index}
    reduce = reducers[measure]
    return {point: {run: float(reduce(values)) for run, values in runs.items()} for point, runs in out.items()}


def _tcp_flows(data: ExperimentData) -> dict[str, set[int]]:
    """{case: ids of its TCP flows} from the experiment's case overrides
    (flow ids are the flows' positions)."""
    experiment = data.experiment
    base = list(experiment.scenario.get("flows", []))
    cases = {**(experiment.cases or {}), **(experiment.quick_cases or {})}
    return {name: {i for i, f in enumerate(overrides.get("flows", base)) if f.get("transport") == "tcp"}
            for name, overrides in cases.items()}


def gain(afw: PerRun, few: PerRun) -> PerRun:
    """Per run, AFW's gain over FeW in % of FeW's mean at the point (the
    mean, not the run's own, so that a run where FeW starves does not
    dominate)."""
    base = mean_of(few)
    return {r: 100.0 * (afw[r] - few[r]) / base for r in sorted(set(afw) & set(few)) if base > 0}


def relative_gain(afw: Mapping[str, PerRun], few: Mapping[str, PerRun]) -> float:
    """AFW's gain over FeW averaged over the points, % (the paper's "x %
    higher")."""
    gains = [mean_of(gain(afw[p], few[p])) for p in afw if p in few]
    return sum(gains) / len(gains) if gains else float("nan")


def gain_checks(afw: Mapping[str, PerRun], few: Mapping[str, PerRun], points: Sequence[str],
                claim: str = "AFW's total throughput higher than FeW's") -> list[Check]:
    """AFW > FeW, paired by run, at each point both have."""
    return [greater(claim, p, afw[p], few[p], unit="kbps", digits=1) for p in points if p in afw and p in few]


def curves(values: Mapping[str, Mapping[str, PerRun]], x_of: Mapping[str, float]) -> list[Line]:
    """One line per scheme: the mean and its 95 % half-width at each point."""
    lines = []
    for scheme, points in values.items():
        xs = sorted((x_of[p], p) for p in points if p in x_of)
        stats = [mean_ci(list(points[p].values())) for _, p in xs]
        lines.append(Line(scheme, [x for x, _ in xs], [s[0] for s in stats], [s[2] for s in stats],
                          style=STYLES.get(scheme, {})))
    return lines


def require(values: Mapping[str, Mapping[str, PerRun]], data: ExperimentData, *schemes: str) -> None:
    """NotReproduced, with the first error of its runs, unless every scheme
    named has data."""
    for scheme in schemes:
        if values.get(scheme):
            continue
        runs = data.runs
        if "case" in runs.columns:
            runs = runs[[case_of(str(c))[0] == scheme for c in runs["case"]]]
        errors = [str(e) for e in runs["error"].dropna()] if "error" in runs.columns else []
        raise NotReproduced(f"{scheme}: " + (errors[0] if errors else "no successful run"))
