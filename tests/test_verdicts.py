"""The common verdict rule (hoplab.papers.verdicts): checks from paired
95 % intervals, three outcomes, at least 5 runs behind a "holds", levels
read from plateaus, the paper's numbers beside ours; and the paper modules
deciding through it on data made up for the purpose."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from hoplab.papers import ExperimentData, FigureResult, get_paper
from hoplab.papers import semitcp_2018 as semitcp
from hoplab.papers.verdicts import (
    AGREES,
    CONTRADICTS,
    DOES_NOT_HOLD,
    HOLDS,
    INCONCLUSIVE,
    MIN_RUNS,
    NOT_REPRODUCED,
    UNRESOLVED,
    VERDICT_RULE,
    PaperNumber,
    above,
    below,
    decide,
    enforce,
    greater,
    less,
    plateau,
    within,
)


def _runs(values: list[float]) -> dict[int, float]:
    return dict(enumerate(values))


# Checks.
def test_a_paired_difference_decides_by_its_interval() -> None:
    # Differences 1..5: mean 3, s = 1.5811, t(0.975, 4) = 2.7764 (tables):
    # half-width 1.9632, interval [1.04, 4.96], wholly above 0.
    x, y = _runs([11.0, 12.0, 13.0, 14.0, 15.0]), _runs([10.0, 10.0, 10.0, 10.0, 10.0])
    check = greater("x > y", "here", x, y, unit="kbps", digits=2)
    assert check.status == AGREES and check.n == 5
    assert check.estimate == "+3.00 ± 1.96 kbps, 5 runs"
    assert less("x < y", "here", x, y).status == CONTRADICTS
    # Spread wider than the mean: unresolved.
    assert greater("x > y", "here", _runs([1.0, -2.0, 4.0]), _runs([0.0, 0.0, 0.0])).status == UNRESOLVED


def test_runs_are_paired_by_run_number() -> None:
    # Unpaired, these two overlap completely; run by run x is always 1 higher.
    x = {0: 101.0, 1: 201.0, 2: 301.0, 3: 401.0, 4: 501.0}
    y = {0: 100.0, 1: 200.0, 2: 300.0, 3: 400.0, 4: 500.0, 9: 0.0}  # run 9 has no partner: ignored
    check = greater("x > y", "here", x, y)
    assert check.status == AGREES and check.n == 5 and check.estimate.startswith("+1.0 ± 0.0")


def test_one_run_has_no_interval() -> None:
    check = greater("x > y", "here", {0: 5.0}, {0: 1.0})
    assert check.status == UNRESOLVED and "no interval" in check.estimate


def test_threshold_and_band_checks() -> None:
    values = [0.9, 1.0, 1.1, 1.0, 1.0]  # mean 1.0, half 0.0878
    assert above("v > 0.5", "p", values, 0.5).status == AGREES
    assert above("v > 1.5", "p", values, 1.5).status == CONTRADICTS
    assert above("v > 1.0", "p", values, 1.0).status == UNRESOLVED
    assert below("v < 2", "p", values, 2.0).status == AGREES
    assert within("v in band", "p", values, 0.8, 1.2).status == AGREES
    assert within("v in band", "p", values, 1.5, 2.0).status == CONTRADICTS
    assert within("v in band", "p", values, 1.05, 2.0).status == UNRESOLVED


# The decision.
def test_holds_needs_every_point_and_enough_runs() -> None:
    good = [greater("x > y", f"{h} hops", _runs([2.0, 3.0, 2.5, 3.5, 2.0]), _runs([0.0] * 5)) for h in (2, 3)]
    assert decide(good)[0] == HOLDS
    four = [greater("x > y", "2 hops", _runs([2.0, 3.0, 2.5, 3.5]), _runs([0.0] * 4))]
    outcome, why = decide(four)
    assert four[0].status == AGREES and outcome == INCONCLUSIVE
    assert f"a \"holds\" needs at least {MIN_RUNS}" in why and "Only 4 runs" in why


def test_every_contradicting_point_is_named() -> None:
    checks = [greater("x > y", f"{h} hops", _runs([v] * 5), _runs([0.0] * 5))
              for h, v in ((2, 1.0), (3, -1.0), (4, -2.0), (5, 1.0))]
    checks.append(greater("x > y", "9 hops", _runs([1.0, -1.0, 2.0, -2.0, 0.5]), _runs([0.0] * 5)))
    outcome, why = decide(checks)
    assert outcome == DOES_NOT_HOLD
    assert why.startswith("Contradicted at 2 of 5 points. X > y: 3 hops (-1.0 ± 0.0, 5 runs), 4 hops (-2.0")
    assert "Unresolved at 1: X > y: 9 hops" in why
    assert "2 hops" not in why and "5 hops" not in why  # agreeing points are not listed


def test_the_count_of_points_reads_as_english() -> None:
    agree = [greater("x > y", f"{h} hops", _runs([2.0, 3.0, 2.5, 3.5, 2.0]), _runs([0.0] * 5)) for h in (2, 3, 4)]
    unsure = greater("x > y", "9 hops", _runs([1.0, -1.0, 2.0, -2.0, 0.5]), _runs([0.0] * 5))
    assert decide(agree[:1])[1].startswith("Agrees at its one point (5 runs")
    assert decide(agree[:2])[1].startswith("Agrees at both points (5 runs")
    assert decide(agree)[1].startswith("Agrees at all 3 points (5 runs")
    assert decide([unsure])[1].startswith("Unresolved at its one point. ")
    assert decide([agree[0], unsure])[1].startswith("Unresolved at 1 of 2 points. ")
    for why in (decide(c)[1] for c in (agree[:1], agree[:2], [unsure], [agree[0], unsure])):
        assert not re.search(r"\b1 points\b|\ball [12] points\b|\b(\d+) of \1 points\b", why), why


def test_fig4_says_the_source_sends_the_most_rtscs_only_when_it_does() -> None:
    from hoplab.papers.semitcp_2018.chain import _rtsc_reading

    assert _rtsc_reading([3.0, 1201.0, 40.0], [1, 2, 3]) == (
        "the source sends 3 RTSCs per run, fewer than node 2 (1201 RTSCs, the most of any node)")
    assert _rtsc_reading([1300.0, 1201.0, 40.0], [1, 2, 3]) == (
        "the source sends 1300 RTSCs per run, the most of any node (next: 1201 RTSCs at node 2)")
    assert _rtsc_reading([1.0, 0.0, 1.0], [1, 2, 3]) == "the source sends 1 RTSC per run, as many as node 3, the most elsewhere"


def test_unresolved_points_make_it_inconclusive() -> None:
    checks = [greater("x > y", "2 hops", _runs([1.0] * 5), _runs([0.0] * 5)),
              greater("x > y", "3 hops", _runs([1.0, -1.0, 2.0, -2.0, 0.5]), _runs([0.0] * 5))]
    outcome, why = decide(checks)
    assert outcome == INCONCLUSIVE and "3 hops" in why and "The other point agrees" in why
    assert decide([])[0] == INCONCLUSIVE


def test_a_module_cannot_report_holds_without_checks() -> None:
    assert enforce(HOLDS, "it rises", [])[0] == INCONCLUSIVE
    thin = [greater("x > y", "p", _runs([1.0, 1.1]), _runs([0.0, 0.0]))]
    assert thin[0].status == AGREES
    assert enforce(HOLDS, "it rises", thin) == (INCONCLUSIVE, "it rises (Only 2 runs behind some points (a \"holds\" "
                                                "needs at least 5))")
    assert enforce(DOES_NOT_HOLD, "it falls", [])[0] == DOES_NOT_HOLD
    # The older bool form still reads.
    assert FigureResult("v", True).outcome == HOLDS and FigureResult("v", None).outcome == NOT_REPRODUCED
    with pytest.raises(ValueError, match="outcome"):
        FigureResult("v", "probably")


def test_the_rule_is_stated() -> None:
    for words in ("paired by run number", "95 % Student-t", "**holds**", "**does not hold**", "**inconclusive**",
                  f"at least {MIN_RUNS} runs", "plateau", "25%"):
        assert words in VERDICT_RULE, words


# Levels and numbers.
def test_levels_are_read_from_plateaus() -> None:
    # APR against source rates 20..300 (the shape of Fig. 5): the mean of
    # everything above the peak (120 kbps) would be 2.43, the plateau is 2.96.
    apr = [1.01, 1.00, 1.06, 1.01, 1.12, 1.19, 1.26, 1.53, 1.87, 2.22, 2.77, 2.92, 3.02, 3.04, 3.03]
    assert plateau(apr, at_end=False) == [0, 1, 2, 3, 4, 5]
    assert plateau(apr, at_end=True) == [10, 11, 12, 13, 14]
    assert sum(apr[i] for i in plateau(apr, True)) / 5 == pytest.approx(2.956)
    assert plateau([5.0], at_end=True) == [0]
    assert plateau([1.0, 10.0], at_end=True) == [1]


def test_the_papers_numbers_beside_ours() -> None:
    far = PaperNumber("throughput at 14 hops", 140.0, 65.4, "kbps", 0)
    assert far.ratio == pytest.approx(0.467, abs=1e-3) and far.flagged
    assert far.cells() == ("throughput at 14 hops", "140 kbps", "65 kbps", "0.47", "off by -53%")
    near = PaperNumber("best rate", 140.0, 120.0, "kbps", 0)
    assert not near.flagged and near.cells()[4] == "within 25 %"
    assert PaperNumber("x", 14.0, math.nan).cells()[4] == "not measured here"


# The paper modules on made-up data.
def _experiment_data(name: str, param: str, rows: list[dict[str, Any]]) -> ExperimentData:
    experiment = get_paper("semitcp-2018").experiment(name)
    scalars = pd.DataFrame(rows)
    scalars["run_id"] = [f"{r['case']}|{r[param]}|{r['run']}" for r in rows]
    scalars["seed"] = scalars["run"] + 1
    runs = scalars[["run_id", "case", param, "run", "seed"]].drop_duplicates("run_id").assign(
        status="ok", error=None, sim_seconds=30.0)
    series = pd.DataFrame(columns=["run_id", "time_s", "entity", "id", "metric", "value"])
    return ExperimentData(experiment, runs.reset_index(drop=True), scalars, series, ["case", param])


def _rows(cases: dict[str, Callable[[float, int], float]], param: str, points: list[float], metric: str,
          entity: str) -> list[dict[str, Any]]:
    return [{"case": case, param: point, "run": run, "entity": entity, "id": 0, "metric": metric,
             "value": value(point, run)}
            for case, value in cases.items() for point in points for run in range(5)]


def test_fig8_names_every_path_length_where_the_claim_fails(tmp_path: Path) -> None:
    worse = {3, 4, 9}

    def semi(hops: float, run: int) -> float:
        return 400.0 / hops + run

    def alg1(hops: float, run: int) -> float:
        return semi(hops, run) + (-30.0 if hops in worse else 40.0) + 0.1 * run

    hops = [float(h) for h in range(1, 15)]
    rows = _rows({semitcp.C_SEMI: semi, semitcp.C_ALG1: alg1, semitcp.C_NEWRENO: semi}, semitcp.DST, hops,
                 "goodput_kbps", "flow")
    result = semitcp.fig8({"path-length": _experiment_data("path-length", semitcp.DST, rows)}, tmp_path)
    assert result.outcome == DOES_NOT_HOLD
    failing = [c.point for c in result.checks if c.status == CONTRADICTS]
    assert failing == ["3 hops", "4 hops", "9 hops"]
    for point in failing:
        assert point in result.verdict
    assert "lower than plain semi-TCP's at 3, 4, 9 hops" in result.verdict
    assert result.numbers[0].paper == 140.0 and result.numbers[0].flagged  # 40 + 400/14 = 69 kbps


def test_fig5_reads_levels_from_plateaus(tmp_path: Path) -> None:
    rates = [float(r) for r in range(20, 301, 20)]
    apr_curve = dict(zip(rates, [1.0] * 6 + [1.3, 1.7, 2.1, 2.5] + [3.0] * 5, strict=True))
    goodput_curve = dict(zip(rates, rates[:6] + [90.0, 60.0] + [40.0] * 7, strict=True))

    def goodput(rate: float, run: int) -> float:
        return goodput_curve[rate] - 0.2 * run

    def apr(rate: float, run: int) -> float:
        return apr_curve[rate] + 0.01 * run

    rows = (_rows({semitcp.C_FIXED: goodput}, semitcp.RATE, rates, "goodput_kbps", "flow")
            + _rows({semitcp.C_FIXED: apr}, semitcp.RATE, rates, "rts_attempts_per_packet", "node")
            + _rows({semitcp.C_FIXED: apr}, semitcp.RATE, rates, "mac_service_time_ms", "node"))
    result = semitcp.fig5({"fixed-rate": _experiment_data("fixed-rate", semitcp.RATE, rows)}, tmp_path)
    assert result.outcome == HOLDS, result.verdict
    # The plateaus (1.02 and 3.02), not the means below / above the peak.
    assert "low level of 1.02 at 20-120 kbps" in result.verdict
    assert "high level of 3.02 at 220-300 kbps" in result.verdict
    numbers = {n.quantity: n for n in result.numbers}
    assert numbers["best source rate"].ours == 120.0
    assert numbers["high APR level (HAPR, Table 1's example read from Fig. 5)"].ours == pytest.approx(3.02)
