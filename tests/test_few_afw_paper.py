"""Seed 003's paper module (`hoplab reproduce few-afw`): its scenarios (the
chains, grids, random nodes and hybrid traffic, the cases), its figure
functions on data made up for the purpose (so that the verdict logic is
tested without running the simulator), and a tiny reproduction through the
core."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import hoplab
from hoplab.papers import ExperimentData, available, get_paper
from hoplab.papers import few_afw as fa
from hoplab.papers.few_afw import chain, experiments, topologies
from hoplab.papers.few_afw.experiments import AFW, FEW, NEWRENO, case
from hoplab.papers.verdicts import AGREES, CONTRADICTS, DOES_NOT_HOLD, HOLDS
from hoplab.report import reproduce

RUNS = 5


def _data(name: str, rows: list[dict[str, Any]], param: str | None = None) -> ExperimentData:
    """ExperimentData of `name` holding the tidy rows given (all runs ok)."""
    experiment = fa.PAPER.experiment(name)
    scalars = pd.DataFrame(rows)
    keys = [k for k in ("case", param) if k and k in scalars.columns] + ["run"]
    scalars["run_id"] = ["|".join(str(r[k]) for k in keys) for r in rows]
    runs = scalars[["run_id", *keys]].drop_duplicates("run_id").assign(status="ok", error=None)
    series = pd.DataFrame(columns=["run_id", "time_s", "entity", "id", "metric", "value"])
    return ExperimentData(experiment, runs.reset_index(drop=True), scalars, series, keys[:-1])


def _rows(points: list[str], schemes: tuple[str, ...], flows: int, value: Callable[[str, str, int, int], float],
          extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Goodput rows: flow i of `scheme` at `point`, run r -> value(scheme, point, i, r)."""
    return [{"case": case(s, p), "run": r, "entity": "flow", "id": i, "metric": "goodput_kbps",
             "value": value(s, p, i, r), **(extra or {})}
            for s in schemes for p in points for r in range(RUNS) for i in range(flows)]


def test_registered_with_its_figures() -> None:
    assert "few-afw" in available()
    paper = get_paper("few-afw")
    assert [f.id for f in paper.figures] == ["Fig. 4a", "Fig. 4b", "Fig. 5", "Fig. 7", "Fig. 9a", "Fig. 9b", "Fig. 10",
                                             "Fig. 11", "Abstract"]
    assert {e.name for e in paper.experiments} == {"chain1", "chain4", "three_flows", "grid7", "grid13", "random",
                                                   "hybrid"}


def test_layouts_follow_the_paper() -> None:
    # A chain of N hops: N + 1 nodes, every flow from 0 to N.
    overrides = fa.PAPER.experiment("chain4").cases[case(AFW, "9 hops")]  # type: ignore[index]
    assert overrides["topology.nodes"] == 10
    assert [(f["src"], f["dst"], f["cc"]) for f in overrides["flows"]] == [(0, 9, "afw")] * 4
    # Grids: the middle row alone, then rows and columns spread symmetrically.
    assert [(f["src"], f["dst"]) for f in experiments.grid_flows(7, 1, "few")] == [(21, 27)]
    assert [(f["src"], f["dst"]) for f in experiments.grid_flows(7, 2, "few")] == [(21, 27), (3, 45)]
    assert [(f["src"], f["dst"]) for f in experiments.grid_flows(7, 4, "few")] == [(7, 13), (35, 41), (1, 43), (5, 47)]
    every = experiments.grid_flows(13, 26, "few")
    assert sorted(f["src"] for f in every[:13]) == [13 * r for r in range(13)]
    assert sorted(f["src"] for f in every[13:]) == list(range(13))
    # Random pairs: distinct nodes, the same in every scheme.
    pairs = [(f["src"], f["dst"]) for f in experiments.random_flows(50, "afw")]
    assert len({n for p in pairs for n in p}) == 100
    assert pairs == [(f["src"], f["dst"]) for f in experiments.random_flows(50, "few")]
    # Hybrid: TCP then a 1024-byte UDP CBR flow on the same path; the rate is varied.
    hybrid = fa.PAPER.experiment("hybrid")
    flows = hybrid.cases[case(FEW, "6 hops")]["flows"]  # type: ignore[index]
    assert [(f["transport"], f["src"], f["dst"]) for f in flows] == [("tcp", 0, 6), ("udp", 0, 6)]
    assert dict(hybrid.vary) == {experiments.UDP_RATE: [100.0, 200.0, 300.0]}


def test_every_case_validates_with_the_papers_setting() -> None:
    for experiment in fa.PAPER.experiments:
        scenario, _, runs = experiment.settings(False)
        assert runs == 30 and scenario["duration_s"] == 110.0 and scenario["warmup_s"] == 10.0
        assert scenario["preset"] == "ns2" and scenario["routing"]["protocol"] == "dsr"
        cases = experiment.cases or {}
        quick = experiment.quick_cases
        assert quick is None or set(quick) <= set(cases)
        for overrides in cases.values():
            s = hoplab.Scenario(scenario)
            for key, value in overrides.items():
                s = s.set(key, value)
            normalised = s.validate()
            assert normalised["radio"]["cs_range_m"] == pytest.approx(500.0)
            assert all(f["packet_bytes"] == 1024 for f in normalised["flows"])


def test_fig4a_on_made_up_data(tmp_path: Path) -> None:
    points = [f"{h} hops" for h in experiments.CHAIN_HOPS]

    # AFW 2 % over FeW at 4 hops, growing by 1 point per hop; NewReno far below.
    def goodput(scheme: str, point: str, flow: int, run: int) -> float:
        few = 300.0 - 10 * chain.hops(point) + run
        return {FEW: few, AFW: few * (1 + (2 + chain.hops(point) - 4) / 100), NEWRENO: 0.7 * few}[scheme]

    result = chain.fig4a({"chain1": _data("chain1", _rows(points, experiments.SCHEMES, 1, goodput))}, tmp_path)
    assert result.outcome == HOLDS, result.verdict
    assert len(result.checks) == len(points) + 1 and result.checks[-1].claim == "AFW's gain grows with the hop count"
    assert result.numbers[0].paper == 6.5 and result.numbers[0].ours == pytest.approx(7.0, abs=0.1)
    assert (tmp_path / "fig4a.png").exists()

    # AFW below FeW at 14 hops: named.
    def worse(scheme: str, point: str, flow: int, run: int) -> float:
        value = goodput(scheme, point, flow, run)
        return 0.8 * value if (scheme, point) == (AFW, "14 hops") else value

    result = chain.fig4a({"chain1": _data("chain1", _rows(points, experiments.SCHEMES, 1, worse))}, tmp_path)
    assert result.outcome == DOES_NOT_HOLD
    assert [c.point for c in result.checks if c.status == CONTRADICTS] == ["14 hops"]


def test_fig4b_and_fig5_sum_and_compare_the_four_flows(tmp_path: Path) -> None:
    points = ["4 hops", "8 hops"]

    # FeW's four flows equal; AFW's unequal (fairness lower) but more in total.
    def goodput(scheme: str, point: str, flow: int, run: int) -> float:
        return 50.0 + run if scheme != AFW else [80.0, 60.0, 40.0, 30.0][flow] + run

    data = _data("chain4", _rows(points, experiments.SCHEMES, 4, goodput))
    result = chain.fig4b({"chain4": data}, tmp_path)
    assert result.outcome == HOLDS, result.verdict
    # (210 + 4r) vs (200 + 4r): +5 % of FeW's mean (208).
    assert result.numbers[0].ours == pytest.approx(100 * 10 / 208)
    fairness = chain.fig5({"chain4": data}, tmp_path)
    assert fairness.outcome == HOLDS and [c.status for c in fairness.checks] == [AGREES, AGREES]


def test_fig7_judges_each_flow(tmp_path: Path) -> None:
    def goodput(scheme: str, point: str, flow: int, run: int) -> float:
        few = [20.0, 100.0, 80.0][flow] + run
        return few * ([0.9, 1.1, 1.1][flow] if scheme == AFW else 1.0)

    rows = _rows([""], experiments.SCHEMES, 3, goodput)
    for row in rows:
        row["case"] = row["case"].rstrip(", ")
    result = chain.fig7({"three_flows": _data("three_flows", rows)}, tmp_path)
    assert result.outcome == HOLDS, result.verdict
    assert [c.status for c in result.checks] == [AGREES] * 4
    # Total: AFW 216 + 3.1 r against FeW 200 + 3 r: +16.2 on average, 7.9 % of FeW's mean (206).
    assert result.numbers[0].ours == pytest.approx(100 * 16.2 / 206)


def test_fig9_and_fig10_judge_the_gain_and_its_shrinking(tmp_path: Path) -> None:
    counts = [1, 2, 4, 6, 8, 14]
    points = [experiments.flows_point(n) for n in counts]

    def goodput(scheme: str, point: str, flow: int, run: int) -> float:
        n = topologies.flow_count(point)
        return (100.0 + run) * (1 + (10 - n / 2) / 100 if scheme == AFW else 1.0)

    rows = [r for r in _rows(points, experiments.SCHEMES, 14, goodput) if r["id"] < topologies.flow_count(
        experiments.case_of(r["case"])[1] or "0")]
    result = topologies.fig9a({"grid7": _data("grid7", rows)}, tmp_path)
    assert result.outcome == HOLDS, result.verdict
    assert result.checks[-1].claim == "AFW's gain shrinks as flows are added"
    assert result.checks[0].point == "1 flow"

    # No gain at all: every comparison contradicts or is unresolved, the shrinking contradicts nothing.
    flat = [{**r, "value": 100.0 + r["run"]} for r in rows]
    result = topologies.fig9a({"grid7": _data("grid7", flat)}, tmp_path)
    assert result.outcome != HOLDS


def test_fig11_reads_the_tcp_flow_at_each_udp_rate(tmp_path: Path) -> None:
    points = ["4 hops", "10 hops"]
    rows: list[dict[str, Any]] = []
    for rate in experiments.HYBRID_RATES_KBPS:
        def goodput(scheme: str, point: str, flow: int, run: int, rate: float = rate) -> float:
            if flow == 1:  # the UDP flow: never counted
                return 1e6
            few = 150.0 - rate / 3 + run
            return few * (1.05 if scheme == AFW and rate == 100.0 else 1.0)

        rows += _rows(points, (FEW, AFW), 2, goodput, {experiments.UDP_RATE: rate})
    result = chain.fig11({"hybrid": _data("hybrid", rows, experiments.UDP_RATE)}, tmp_path)
    assert result.outcome == HOLDS, result.verdict
    assert result.numbers[0].ours == pytest.approx(5.0, abs=0.1)
    assert len(result.checks) == 2 + 2 * 2


def test_tiny_reproduction(tmp_path: Path) -> None:
    """Through the core: short runs, two per point, few points; every figure
    is judged (never "holds" on two runs)."""
    paper = fa.PAPER

    def fewer(experiment: Any) -> dict[str, dict[str, Any]]:
        cases = experiment.quick_cases or experiment.cases
        keep = {p for p in ("4 hops", "7 hops", "1 flow", "8 flows", "4 flows")}
        return {k: v for k, v in cases.items() if experiments.case_of(k)[1] in keep | {None}}

    shorter = [dataclasses.replace(e, quick_runs=2, quick_duration_s=15.0, quick_warmup_s=5.0, quick_cases=fewer(e),
                                   quick_vary={experiments.UDP_RATE: [100.0, 300.0]} if e.vary else None)
               for e in paper.experiments]
    result = reproduce(dataclasses.replace(paper, experiments=shorter), tmp_path / "out", quick=True, jobs=2)
    assert sorted(result.figures) == sorted(f.id for f in paper.figures)
    assert all(f.outcome != HOLDS for f in result.figures.values())
    assert (tmp_path / "out" / "report.md").exists()
