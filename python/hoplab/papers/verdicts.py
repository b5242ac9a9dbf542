"""Verdicts: holds / does not hold / inconclusive, decided one way for
every paper module.

A paper's finding is a set of claims, each made at some points (a node of
the chain, a source rate, a path length, a speed, a pair of controllers).
At each point a module computes, per run, the quantity the claim is about,
and a `Check` compares it with the claim through the 95 % Student-t
confidence interval of its mean:

- `greater` / `less`: a paired difference x - y (runs paired by run number:
  every case of an experiment uses the same seeds, so run r of one case
  meets the same placement, paths and random draws as run r of the other,
  common random numbers);
- `above` / `below`: one value against the claim's threshold;
- `within`: one value inside a band (an "about equal" or "near" claim).

The check *agrees* when the interval lies wholly on the claimed side,
*contradicts* when it lies wholly on the other side, and is *unresolved*
otherwise (or with fewer than two runs: no interval). `decide` turns the
checks into the outcome (see VERDICT_RULE) and names every point that
contradicts or is unresolved. Numbers the paper states are kept beside
ours as `PaperNumber`s: the ratio, flagged beyond 25 %.

`enforce` is applied by `hoplab.report` to every figure of every module, so
a module cannot report "holds" without checks that support it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "AGREES",
    "CONTRADICTS",
    "DOES_NOT_HOLD",
    "HOLDS",
    "INCONCLUSIVE",
    "MIN_RUNS",
    "NOT_REPRODUCED",
    "NUMBER_TOLERANCE",
    "OUTCOMES",
    "UNRESOLVED",
    "VERDICT_RULE",
    "Check",
    "PaperNumber",
    "above",
    "below",
    "decide",
    "differences",
    "enforce",
    "greater",
    "less",
    "plateau",
    "within",
]

HOLDS = "holds"
DOES_NOT_HOLD = "does not hold"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
OUTCOMES = (HOLDS, DOES_NOT_HOLD, INCONCLUSIVE, NOT_REPRODUCED)

AGREES = "agrees"
CONTRADICTS = "contradicts"
UNRESOLVED = "unresolved"

#: Runs behind every point of a claim that "holds".
MIN_RUNS = 5
CONFIDENCE = 0.95
#: A number of ours off the paper's by more than this share is flagged.
NUMBER_TOLERANCE = 0.25
#: Points of a plateau lie within this share of the plateau's median.
PLATEAU_TOLERANCE = 0.15

VERDICT_RULE = (
    "Each finding is split into claims, and each claim is checked at every point it covers (a node, a source "
    "rate, a path length, a speed, a pair of schemes). At a point the quantity is computed per run; runs are "
    "paired by run number (every case uses the same seeds: common random numbers), so a comparison is the mean of "
    "the per-run differences. The point agrees with the claim when the 95 % Student-t confidence interval of "
    "that mean lies wholly on the claimed side (of zero, or of the claim's threshold), contradicts it when the "
    "interval lies wholly on the other side, and is unresolved otherwise. A finding **holds** when every point "
    f"agrees with at least {MIN_RUNS} runs behind it; it **does not hold** when some point contradicts it (every "
    "such point is named); otherwise it is **inconclusive** (the unresolved points, or the missing runs, are "
    f"named; with fewer than {MIN_RUNS} runs per point, as `--quick` may have, \"holds\" is impossible). A level "
    "(\"from a low to a high level\") is read from its plateau: the points at that end of the curve, taken one "
    f"by one inward while all of them lie within {PLATEAU_TOLERANCE:.0%} of their median; the level is their mean. "
    "Numbers "
    "the paper states are shown beside hoplab's with the ratio hoplab / paper, flagged when it is off by more "
    f"than {NUMBER_TOLERANCE:.0%}; a flagged number decides a verdict only where the claim is about it."
)


@dataclass(frozen=True)
class Check:
    """One claim at one point: its status, and the estimate behind it."""

    claim: str  # what is claimed here, e.g. "semi-TCP + Algorithm 1 > semi-TCP"
    point: str  # where, e.g. "3 hops"
    status: str  # AGREES, CONTRADICTS or UNRESOLVED
    estimate: str  # e.g. "+12.3 ± 4.5 kbps over 5 runs"
    n: int  # runs behind it

    def cells(self) -> tuple[str, str, str, str]:
        return self.point, self.claim, self.estimate, self.status


@dataclass(frozen=True)
class PaperNumber:
    """A number the paper states, beside ours."""

    quantity: str
    paper: float
    ours: float
    unit: str = ""
    digits: int = 1

    @property
    def ratio(self) -> float:
        """ours / paper (NaN when either is missing or the paper's is 0)."""
        if self.paper == 0 or math.isnan(self.paper) or math.isnan(self.ours):
            return math.nan
        return self.ours / self.paper

    @property
    def flagged(self) -> bool:
        """Off by more than NUMBER_TOLERANCE (or missing here)."""
        return math.isnan(self.ratio) or abs(self.ratio - 1.0) > NUMBER_TOLERANCE

    def cells(self) -> tuple[str, str, str, str, str]:
        unit = f" {self.unit}" if self.unit else ""
        ours = "-" if math.isnan(self.ours) else f"{self.ours:.{self.digits}f}{unit}"
        ratio = "-" if math.isnan(self.ratio) else f"{self.ratio:.2f}"
        if math.isnan(self.ratio):
            flag = "not measured here"
        elif self.flagged:
            flag = f"off by {self.ratio - 1:+.0%}"
        else:
            flag = "within 25 %"
        return self.quantity, f"{self.paper:g}{unit}", ours, ratio, flag


# Estimates.
def _interval(values: Sequence[float]) -> tuple[float, float, int]:
    """(mean, half-width of the 95 % Student-t interval, n); NaNs ignored."""
    from hoplab.stats import mean_ci

    clean = [float(v) for v in values if not math.isnan(float(v))]
    mean, _, half = mean_ci(clean, CONFIDENCE)
    return mean, half, len(clean)


def differences(x: Mapping[int, float], y: Mapping[int, float]) -> list[float]:
    """x[r] - y[r] over the run numbers r both have (paired by run)."""
    return [float(x[r]) - float(y[r]) for r in sorted(set(x) & set(y))
            if not (math.isnan(float(x[r])) or math.isnan(float(y[r])))]


def _runs(n: int) -> str:
    return f"{n} run{'s' if n != 1 else ''}"


def _share(part: int, whole: int) -> str:
    """How many of a finding's points, in words: "its one point", "both
    points", "all 5 points", "2 of 5 points", "1 of 3 points"."""
    if part == whole:
        return "its one point" if whole == 1 else "both points" if whole == 2 else f"all {whole} points"
    return f"{part} of {whole} points"


def _side(values: Sequence[float], threshold: float, above_it: bool) -> tuple[str, float, float, int]:
    """Status of "the mean of `values` is above (below) `threshold`"."""
    mean, half, n = _interval(values)
    if n < 2 or math.isnan(half):
        return UNRESOLVED, mean, half, n
    low, high = mean - half, mean + half
    if above_it:
        status = AGREES if low > threshold else CONTRADICTS if high < threshold else UNRESOLVED
    else:
        status = AGREES if high < threshold else CONTRADICTS if low > threshold else UNRESOLVED
    return status, mean, half, n


def _text(mean: float, half: float, n: int, unit: str, digits: int, signed: bool, against: str = "") -> str:
    """"+12.3 ± 4.5 kbps, 5 runs" (with ", <against>" before the runs)."""
    if math.isnan(mean):
        return "no runs"
    unit = f" {unit}" if unit else ""
    value = f"{mean:+.{digits}f}" if signed else f"{mean:.{digits}f}"
    against = f", {against}" if against else ""
    if n < 2 or math.isnan(half):
        return f"{value}{unit}{against}, {_runs(n)}: no interval"
    return f"{value} ± {half:.{digits}f}{unit}{against}, {_runs(n)}"


# Checks.
def greater(claim: str, point: str, x: Mapping[int, float], y: Mapping[int, float], *, unit: str = "",
            digits: int = 1) -> Check:
    """x > y at this point, paired by run: the mean of x[r] - y[r] over runs."""
    status, mean, half, n = _side(differences(x, y), 0.0, True)
    return Check(claim, point, status, _text(mean, half, n, unit, digits, True), n)


def less(claim: str, point: str, x: Mapping[int, float], y: Mapping[int, float], *, unit: str = "",
         digits: int = 1) -> Check:
    """x < y at this point, paired by run."""
    status, mean, half, n = _side(differences(x, y), 0.0, False)
    return Check(claim, point, status, _text(mean, half, n, unit, digits, True), n)


def above(claim: str, point: str, values: Iterable[float], threshold: float, *, unit: str = "",
          digits: int = 2) -> Check:
    """The mean of `values` (one per run) is above `threshold`."""
    status, mean, half, n = _side(list(values), threshold, True)
    return Check(claim, point, status,
                 _text(mean, half, n, unit, digits, False, f"threshold {threshold:.{digits}f}"), n)


def below(claim: str, point: str, values: Iterable[float], threshold: float, *, unit: str = "",
          digits: int = 2) -> Check:
    """The mean of `values` (one per run) is below `threshold`."""
    status, mean, half, n = _side(list(values), threshold, False)
    return Check(claim, point, status,
                 _text(mean, half, n, unit, digits, False, f"threshold {threshold:.{digits}f}"), n)


def within(claim: str, point: str, values: Iterable[float], low: float, high: float, *, unit: str = "",
           digits: int = 2) -> Check:
    """The mean of `values` lies in [low, high]: agrees when the whole
    interval does, contradicts when the interval misses the band."""
    mean, half, n = _interval(list(values))
    band = f"band ±{high:.{digits}f}" if math.isclose(low, -high) else f"band {low:.{digits}f} to {high:.{digits}f}"
    text = _text(mean, half, n, unit, digits, False, band)
    if n < 2 or math.isnan(half):
        return Check(claim, point, UNRESOLVED, text, n)
    lo, hi = mean - half, mean + half
    status = AGREES if low <= lo and hi <= high else CONTRADICTS if hi < low or lo > high else UNRESOLVED
    return Check(claim, point, status, text, n)


# Levels.
def plateau(values: Sequence[float], at_end: bool, tolerance: float = PLATEAU_TOLERANCE) -> list[int]:
    """Indices of the plateau at one end of a curve: the points from that
    end, taken one by one inward while every point taken lies within
    `tolerance` of their median (the first point that breaks this ends the
    plateau). At least the end point itself."""
    import statistics

    order = list(range(len(values)))
    if at_end:
        order.reverse()
    chosen: list[int] = order[:1]
    for index in order[1:]:
        trial = [*chosen, index]
        middle = statistics.median(float(values[i]) for i in trial)
        if all(abs(float(values[i]) - middle) <= tolerance * abs(middle) for i in trial):
            chosen = trial
        else:
            break
    return sorted(chosen)


# The decision.
def decide(checks: Sequence[Check]) -> tuple[str, str]:
    """(outcome, why) from the checks of one finding (see VERDICT_RULE)."""
    if not checks:
        return INCONCLUSIVE, "Nothing could be checked"
    failing = [c for c in checks if c.status == CONTRADICTS]
    unresolved = [c for c in checks if c.status == UNRESOLVED]
    thin = [c for c in checks if c.n < MIN_RUNS]

    def where(items: Sequence[Check]) -> str:
        """Grouped by claim: "claim: point (estimate), point (estimate)"."""
        groups: dict[str, list[Check]] = {}
        for check in items:
            groups.setdefault(check.claim, []).append(check)
        return ". ".join(f"{claim[0].upper()}{claim[1:]}: " + ", ".join(f"{c.point} ({c.estimate})" for c in group)
                         for claim, group in groups.items())

    if failing:
        why = f"Contradicted at {_share(len(failing), len(checks))}. {where(failing)}"
        if unresolved:
            why += f". Unresolved at {len(unresolved)}: {where(unresolved)}"
        return DOES_NOT_HOLD, why
    if unresolved or thin:
        parts = []
        if unresolved:
            parts.append(f"Unresolved at {_share(len(unresolved), len(checks))}. {where(unresolved)}")
        if thin:
            fewest = min(c.n for c in thin)
            parts.append(f"Only {_runs(fewest)} behind some points (a \"holds\" needs at least {MIN_RUNS})")
        agreeing = len(checks) - len(unresolved)
        if agreeing and unresolved:
            parts.append("The other point agrees" if agreeing == 1 else f"The other {agreeing} agree")
        return INCONCLUSIVE, ". ".join(parts)
    fewest = min(c.n for c in checks)
    return HOLDS, f"Agrees at {_share(len(checks), len(checks))} ({_runs(fewest)} or more each)"


def enforce(outcome: str, verdict: str, checks: Sequence[Check]) -> tuple[str, str]:
    """A module's (outcome, verdict), with "holds" turned into "inconclusive"
    unless its checks support it: the rule binds every module."""
    if outcome != HOLDS:
        return outcome, verdict
    decided, why = decide(checks)
    if decided == HOLDS:
        return outcome, verdict
    if not checks:
        return INCONCLUSIVE, f"{verdict} (no per-point checks behind it, so it cannot hold)"
    return decided, f"{verdict} ({why})"
