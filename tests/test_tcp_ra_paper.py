"""Seed 001's paper module (`hoplab reproduce tcp-ra-2009`): its scenarios
(the grid's flow layouts, the runs of each mode), its figure functions on
data made up for the purpose (so that the verdict logic is tested without
running the simulator), and a tiny reproduction through the core."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import EXAMPLES
from hoplab.flatten import numeric_items
from hoplab.papers import ExperimentData, NotReproduced, available, get_paper
from hoplab.papers import tcp_ra_2009 as ra
from hoplab.papers.verdicts import AGREES, CONTRADICTS, DOES_NOT_HOLD, HOLDS, INCONCLUSIVE
from hoplab.report import reproduce

RUNS = 5


def _data(name: str, param: str | None, rows: list[dict[str, Any]]) -> ExperimentData:
    """ExperimentData of `name` holding the tidy rows given (all runs ok)."""
    experiment = ra.PAPER.experiment(name)
    scalars = pd.DataFrame(rows)
    keys = ["case", *([param] if param else []), "run"]
    scalars["run_id"] = ["|".join(str(r[k]) for k in keys) for r in rows]
    runs = scalars[["run_id", *keys]].drop_duplicates("run_id").assign(status="ok", error=None)
    series = pd.DataFrame(columns=["run_id", "time_s", "entity", "id", "metric", "value"])
    return ExperimentData(experiment, runs.reset_index(drop=True), scalars, series, keys[:-1])


def _classification_rows(counts: Callable[[int, int], dict[tuple[str, str], float]]) -> list[dict[str, Any]]:
    """Rows of the grid experiment: per number of flows and run, the counts
    `counts(flows, run)` split over two flows."""
    rows = []
    for flows in ra.FLOW_COUNTS:
        for run in range(RUNS):
            cells = counts(flows, run)
            for truth in ra.TRUTHS:
                for verdict in ra.VERDICTS:
                    value = cells.get((truth, verdict), 0.0)
                    for ident, part in ((0, value // 2), (1, value - value // 2)):
                        rows.append({"case": ra.flows_case(flows), "run": run, "entity": "flow", "id": ident,
                                     "metric": ra.metric_name(truth, verdict), "value": float(part)})
    return rows


def _matrix(ac: float, aw: float, run: int) -> dict[tuple[str, str], float]:
    """100 congestion and 100 wireless losses: A_c = ac %, A_w = aw % (+- run)."""
    c, w = ac + run, aw - run
    return {("congestion", "congestion"): c, ("congestion", "dubious"): 95.0 - c, ("congestion", "wireless"): 5.0,
            ("wireless", "congestion"): 6.0, ("wireless", "dubious"): 94.0 - w, ("wireless", "wireless"): w,
            ("not_lost", "wireless"): 3.0}


def test_registered_with_its_figures() -> None:
    assert "tcp-ra-2009" in available()
    paper = get_paper("tcp-ra-2009")
    assert [f.id for f in paper.figures] == ["Table 1", "Table 4", "Fig. 3", "Fig. 4", "Fig. 5"]
    assert {e.name for e in paper.experiments} == {"grid", "hops", "per"}


def test_settings_full_and_quick() -> None:
    for experiment in ra.PAPER.experiments:
        scenario, vary, runs = experiment.settings(False)
        assert runs == 30 and scenario["duration_s"] == 130.0 and scenario["warmup_s"] == 30.0
        assert scenario["preset"] == "ns2" and scenario["routing"]["protocol"] == "aodv"
        assert scenario["radio"]["data_rate_mbps"] == 11.0 and scenario["radio"]["cs_range_m"] == 550.0
        assert scenario["errors"]["model"] == "gilbert_elliott"
        assert all(f["packet_bytes"] == 800 for f in scenario["flows"])
        quick, quick_vary, quick_runs = experiment.settings(True)
        assert quick_runs < runs and quick["duration_s"] < scenario["duration_s"]
        assert all(len(quick_vary[k]) < len(v) for k, v in vary.items())
    _, vary, _ = ra.PAPER.experiment("hops").settings(False)
    assert [d - ra.ROW_START for d in vary[ra.DST]] == list(range(1, 11))
    assert ra.ROW["flows"][0]["dst"] - ra.ROW_START == 3  # Fig. 5: "the hop number is set to 3"
    assert set(ra.PAPER.experiment("grid").cases or {}) == {"8 flows", "12 flows", "16 flows"}
    assert {c["flows.0.cc"] for c in ra.CC_CASES.values()} == {"tcp_ra", "veno", "westwood_plus", "newreno"}


@pytest.mark.parametrize("count", ra.FLOW_COUNTS)
def test_grid_flows_half_rows_half_columns(count: int) -> None:
    flows = ra.grid_flows(count)
    assert len(flows) == count and all(f["cc"] == "tcp_ra" for f in flows)
    rows = [f for f in flows if f["src"] // ra.COLS == f["dst"] // ra.COLS]
    cols = [f for f in flows if f["src"] % ra.COLS == f["dst"] % ra.COLS]
    assert len(rows) == len(cols) == count // 2
    assert all(abs(f["dst"] - f["src"]) == ra.COLS - 1 for f in rows)  # whole rows: 10 hops
    assert all(abs(f["dst"] - f["src"]) == (ra.ROWS - 1) * ra.COLS for f in cols)  # whole columns: 6 hops
    sources, sinks = [f["src"] for f in flows], [f["dst"] for f in flows]
    assert len(set(sources)) == count and len(set(sinks)) == count
    columns = sorted(f["src"] % ra.COLS for f in cols)
    assert 0 not in columns and ra.COLS - 1 not in columns


def test_eight_flows_are_the_examples() -> None:
    example = tomllib.loads((EXAMPLES / "aodv-grid-11x7.toml").read_text())
    assert [(f["src"], f["dst"]) for f in example["flows"]] == [(f["src"], f["dst"]) for f in ra.grid_flows(8)]
    assert example["topology"]["spacing_m"] == ra.SPACING_M


def test_loss_classification_becomes_scalars() -> None:
    flow = {"id": 0, "loss_classification": {"congestion": {"congestion": 4, "dubious": 1, "wireless": 0},
                                             "wireless": {"congestion": 0, "dubious": 2, "wireless": 7}}}
    scalars = dict(numeric_items(flow, frozenset({"id"})))
    assert scalars["classified_congestion_as_congestion"] == 4.0
    assert scalars["classified_wireless_as_dubious"] == 2.0 and len(scalars) == 6
    assert not dict(numeric_items({"loss_classification": None}, frozenset()))


def test_table4_and_fig3_on_made_up_data(tmp_path: Path) -> None:
    # A_c 80 -> 70 %, A_w 76 -> 66 % from 8 to 16 flows.
    def counts(flows: int, run: int) -> dict[tuple[str, str], float]:
        drop = 10.0 * (flows - 8) / 8
        return _matrix(80.0 - drop, 76.0 - drop, run)

    grid = _data("grid", None, _classification_rows(counts))
    table = ra.table4({"grid": grid}, tmp_path)
    assert table.outcome == HOLDS, table.verdict
    assert [c.point for c in table.checks] == ["8 flows", "8 flows", "12 flows", "12 flows", "16 flows", "16 flows"]
    numbers = {n.quantity: n for n in table.numbers}
    assert numbers["congestion losses judged wireless"].ours == pytest.approx(5.0)
    assert numbers["wireless losses judged congestion"].ours == pytest.approx(6.0)
    assert numbers["congestion losses judged congestion"].ours == pytest.approx(77.0, abs=0.01)  # 82, 77, 72
    assert table.paths["png"].read_bytes().startswith(b"\x89PNG")
    csv = pd.read_csv(table.paths["csv"])
    assert set(csv["true_cause"]) == {"congestion", "wireless", "not_lost"}

    fig3 = ra.fig3({"grid": grid}, tmp_path)
    assert fig3.outcome == HOLDS, fig3.verdict
    assert [c.point for c in fig3.checks] == ["16 vs 8 flows", "16 vs 8 flows"]
    assert {n.quantity.split()[1] for n in fig3.numbers} == {"A_c", "A_w"}

    # With Fig. 4's runs: also judged by hop count, from the shortest path
    # with losses of both kinds (not 1 hop: no congestion losses there).
    hop_rows = []
    for hops in (1, 2, 6, 10):
        for run in range(RUNS):
            cells = _matrix(90.0 - 2 * hops, 85.0 - 2 * hops, run)
            if hops == 1:
                cells = {k: v for k, v in cells.items() if k[0] != "congestion"}
            hop_rows += [{"case": case, ra.DST: float(ra.ROW_START + hops), "run": run, "entity": "flow", "id": 0,
                          "metric": ra.metric_name(truth, verdict), "value": cells.get((truth, verdict), 0.0)}
                         for case in (ra.C_RA,) for truth in ra.TRUTHS for verdict in ra.VERDICTS]
    fig3 = ra.fig3({"grid": grid, "hops": _data("hops", ra.DST, hop_rows)}, tmp_path)
    assert fig3.outcome == HOLDS, fig3.verdict
    assert [c.point for c in fig3.checks][2:] == ["10 vs 2 hops", "10 vs 2 hops"]
    assert any(quantity.startswith("1 hop, one flow") and ours.startswith("- (0)")
               for quantity, _, ours in fig3.rows)


def test_table1_on_made_up_data(tmp_path: Path) -> None:
    def grades(flows: int, run: int) -> list[dict[str, Any]]:
        heavy = 40.0 if flows == 16 else 76.0 + run  # 16 flows: congestion losses mostly not heavy
        cells = {("congestion", "slight"): 1.0, ("congestion", "middle"): 99.0 - heavy,
                 ("congestion", "heavy"): heavy, ("wireless", "slight"): 47.0, ("wireless", "middle"): 44.0 - run,
                 ("wireless", "heavy"): 9.0 + run}
        return [{"case": ra.flows_case(flows), "run": run, "entity": "flow", "id": 0,
                 "metric": ra.grade_name(truth, grade), "value": cells.get((truth, grade), 0.0)}
                for truth in ra.TRUTHS for grade in ra.GRADES]

    rows = [row for flows in ra.FLOW_COUNTS for run in range(RUNS) for row in grades(flows, run)]
    result = ra.table1({"grid": _data("grid", None, rows)}, tmp_path)
    assert result.outcome == DOES_NOT_HOLD
    statuses = {(c.point, c.claim.split(":")[0]): c.status for c in result.checks}
    assert statuses[("16 flows", "congestion losses found at the heavy grade")] == CONTRADICTS
    assert statuses[("8 flows", "congestion losses found at the heavy grade")] == AGREES
    assert statuses[("16 flows", "wireless losses found at the slight or middle grade")] == AGREES
    assert [n.paper for n in result.numbers] == [1.0, 23.0, 76.0, 47.0, 44.0, 9.0]
    assert set(pd.read_csv(result.paths["csv"])["grade"]) == set(ra.GRADES)
    with pytest.raises(NotReproduced, match="loss_grades"):  # runs without grades
        ra.table1({"grid": _data("grid", None, _classification_rows(lambda f, r: _matrix(80, 76, r)))}, tmp_path)


def test_table4_names_the_point_where_accuracy_is_low(tmp_path: Path) -> None:
    def counts(flows: int, run: int) -> dict[tuple[str, str], float]:
        return _matrix(40.0 if flows == 12 else 85.0, 80.0, run)

    grid = _data("grid", None, _classification_rows(counts))
    table = ra.table4({"grid": grid}, tmp_path)
    assert table.outcome == DOES_NOT_HOLD
    failing = [c.point for c in table.checks if c.status == CONTRADICTS]
    assert failing == ["12 flows"] and "12 flows" in table.verdict
    fig3 = ra.fig3({"grid": grid}, tmp_path)  # A_c does not fall from 8 to 16 flows (equal but for noise)
    assert fig3.outcome in (DOES_NOT_HOLD, INCONCLUSIVE)


def test_without_classification_the_tables_are_not_reproduced(tmp_path: Path) -> None:
    rows = [{"case": ra.flows_case(n), "run": r, "entity": "flow", "id": 0, "metric": "goodput_kbps", "value": 1.0}
            for n in ra.FLOW_COUNTS for r in range(2)]
    grid = _data("grid", None, rows)
    for make in (ra.table4, ra.fig3):
        with pytest.raises(NotReproduced, match="loss classification"):
            make({"grid": grid}, tmp_path)


def _goodput_rows(param: str, points: list[float], value: Callable[[str, float, int], float]) -> list[dict[str, Any]]:
    return [{"case": case, param: point, "run": run, "entity": "flow", "id": 0, "metric": "goodput_kbps",
             "value": value(case, point, run)} for case in ra.SCHEMES for point in points for run in range(RUNS)]


def test_fig4_on_made_up_data(tmp_path: Path) -> None:
    def goodput(case: str, dst: float, run: int) -> float:
        hops = dst - ra.ROW_START
        base = 2000.0 / hops + 3.0 * run
        return base * 1.5 if case == ra.C_RA and hops >= 3 else base + 0.5 * (run % 2)

    dsts = [float(ra.ROW_START + h) for h in ra.HOPS]
    hops = _data("hops", ra.DST, _goodput_rows(ra.DST, dsts, goodput))
    result = ra.fig4({"hops": hops}, tmp_path)
    assert result.outcome == HOLDS, result.verdict
    points = [c.point for c in result.checks]
    assert "TCP-RA vs NewReno, 1 hop" in points and "TCP-RA vs Veno, 10 hops" in points
    assert points[-1] == "average over hop counts"
    gain = result.numbers[0]
    assert gain.paper == 40.0 and gain.ours == pytest.approx(40.0, abs=0.5)  # +50 % at 8 of 10 hop counts
    # One estimator: the reading, the check and the paper-number table say the same average gain.
    average = result.checks[-1]
    assert average.estimate.startswith(f"{gain.ours:.1f} ± "), average.estimate
    assert f"is {gain.ours:+.1f} % ± " in result.verdict, result.verdict
    assert result.paths["png"].read_bytes().startswith(b"\x89PNG")

    # Worse than NewReno at 7 hops: named.
    def worse(case: str, dst: float, run: int) -> float:
        value = goodput(case, dst, run)
        return value * 0.5 if case == ra.C_RA and dst - ra.ROW_START == 7 else value

    result = ra.fig4({"hops": _data("hops", ra.DST, _goodput_rows(ra.DST, dsts, worse))}, tmp_path)
    assert result.outcome == DOES_NOT_HOLD
    assert {c.point for c in result.checks if c.status == CONTRADICTS} >= {"TCP-RA vs NewReno, 7 hops"}


def test_fig5_on_made_up_data(tmp_path: Path) -> None:
    def goodput(case: str, per: float, run: int) -> float:
        base = 600.0 * (1 - 2 * per) + run
        return base * (1 + per) if case == ra.C_RA else base

    data = _data("per", ra.PER, _goodput_rows(ra.PER, ra.PER_VALUES, goodput))
    result = ra.fig5({"per": data}, tmp_path)
    assert result.outcome == HOLDS, result.verdict
    assert len(result.checks) == 3 * (len(ra.PER_VALUES) - 1)  # PER 0 drawn, not judged
    assert all(c.status == AGREES for c in result.checks)
    assert "TCP-RA vs Westwood+, 20 %" in [c.point for c in result.checks]


def test_tiny_reproduction(tmp_path: Path) -> None:
    """Through the core: short runs, two per point, few points; every figure
    is judged (never "holds" on two runs), with the paper's numbers beside."""
    paper = ra.PAPER
    sizes: dict[str, dict[str, Any]] = {"grid": {},
                                        "hops": {"quick_vary": {ra.DST: [ra.ROW_START + 1, ra.ROW_START + 4]}},
                                        "per": {"quick_vary": {ra.PER: [0.0, 0.1]}}}
    experiments = [dataclasses.replace(e, quick_runs=2, quick_duration_s=20.0, quick_warmup_s=5.0, **sizes[e.name])
                   for e in paper.experiments]
    result = reproduce(dataclasses.replace(paper, experiments=experiments), tmp_path / "out", quick=True, jobs=2)
    assert sorted(result.figures) == sorted(f.id for f in paper.figures)
    markdown = result.markdown.read_text()
    for figure_id, figure in result.figures.items():
        assert f"## {figure_id}" in markdown
        assert figure.outcome in (DOES_NOT_HOLD, INCONCLUSIVE), f"{figure_id}: {figure.summary}"
        assert figure.checks and all(check.n <= 2 for check in figure.checks)
        assert figure.paths["png"].read_bytes().startswith(b"\x89PNG")
    assert "*Here*" in markdown and "80" in markdown  # Table 4's numbers beside hoplab's
    assert [n.paper for n in result.figures["Table 4"].numbers] == [80.0, 15.0, 5.0, 6.0, 18.0, 76.0]
    assert [c.point for c in result.figures["Fig. 5"].checks] == [
        f"TCP-RA vs {rival}, 10 %" for rival in (ra.C_VENO, ra.C_WESTWOOD, ra.C_NEWRENO)]
