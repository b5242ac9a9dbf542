"""The paper modules of `hoplab reproduce`: registered, and each makes its
figures with a verdict per figure from a tiny run (short runs, two runs per
point, so that intervals exist)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from conftest import run_cli
from hoplab.papers import Paper, available, get_paper
from hoplab.papers.verdicts import DOES_NOT_HOLD, INCONCLUSIVE
from hoplab.report import ReproduceResult, reproduce



def _tiny(paper: Paper, figures: tuple[str, ...] | None = None, **changes: object) -> Paper:
    """`paper` with its quick experiments made tiny by `changes` (e.g.
    quick_duration_s), keeping only `figures` (and the experiments they use)."""
    kept = [f for f in paper.figures if figures is None or f.id in figures]
    used = {name for f in kept for name in f.experiments}
    experiments = [dataclasses.replace(e, **changes) for e in paper.experiments if e.name in used]  # type: ignore[arg-type]
    return dataclasses.replace(paper, experiments=experiments, figures=kept)


def _check(result: ReproduceResult, figures: tuple[str, ...]) -> None:
    """Every figure judged by the common rule: with two runs per point it
    can be "does not hold" or "inconclusive", never "holds"."""
    assert sorted(result.figures) == sorted(figures)
    for figure_id, figure in result.figures.items():
        assert figure.outcome in (DOES_NOT_HOLD, INCONCLUSIVE), f"{figure_id}: {figure.summary}"
        assert figure.checks, figure_id
        assert all(check.n <= 2 for check in figure.checks)
        if figure.outcome == INCONCLUSIVE:
            assert "a \"holds\" needs at least 5" in figure.verdict or "nresolved" in figure.verdict
        assert figure.paths["png"].read_bytes().startswith(b"\x89PNG")
        assert figure.paths["csv"].exists()
    markdown = result.markdown.read_text()
    assert markdown.count("## How verdicts are decided") == 1
    for figure_id in figures:
        assert f"## {figure_id}" in markdown


def test_both_papers_are_listed(workdir: Path) -> None:
    assert {"scalable-manet", "semitcp-2018"} <= set(available())
    done = run_cli("reproduce", "--list", cwd=workdir)
    assert done.returncode == 0, done.stderr
    for text in ("scalable-manet", "semitcp-2018", "Summary", "Fig. 11", "Fig. 12"):
        assert text in done.stdout
    assert not any(workdir.iterdir())  # --list writes nothing


def test_scalable_manet_tiny(tmp_path: Path) -> None:
    paper = get_paper("scalable-manet")
    ids = tuple(f.id for f in paper.figures)
    assert ids == ("Fig. 2", "Fig. 3", "Fig. 4", "Fig. 5", "Fig. 6", "Fig. 7", "Summary")
    # 60 s: past the start of the motion (20 s) and the paper's 50 s mark.
    tiny = _tiny(paper, quick_duration_s=60.0, quick_runs=2)
    result = reproduce(tiny, tmp_path / "out", quick=True, jobs=2)
    _check(result, ids)
    summary = result.figures["Summary"]
    assert "Scalable" in summary.verdict and "static" in summary.verdict and "mobile" in summary.verdict
    assert any("Vegas, 20 m/s" in quantity for quantity, _, _ in summary.rows)
    assert [c.point for c in summary.checks] == ["Scalable vs BIC, no mobility", "Scalable vs Vegas, no mobility",
                                                 "Scalable vs BIC, 20 m/s", "Scalable vs Vegas, 20 m/s"]
    assert "vague" in result.figures["Fig. 2"].verdict  # says how it reads the paper's sentence


def test_semitcp_mobile_figures_tiny(tmp_path: Path) -> None:
    paper = get_paper("semitcp-2018")
    assert [e for e in paper.experiments if e.name == "mobile"]
    tiny = _tiny(paper, ("Fig. 11", "Fig. 12"), quick_duration_s=20.0, quick_warmup_s=5.0, quick_runs=2,
                 quick_vary={"mobility.max_speed_mps": [5.0, 20.0]})
    result = reproduce(tiny, tmp_path / "out", quick=True, jobs=2)
    _check(result, ("Fig. 11", "Fig. 12"))
    fig11 = result.figures["Fig. 11"]
    assert [c.point for c in fig11.checks] == ["5 m/s", "20 m/s"]
    assert "5 m/s" in fig11.verdict and "20 m/s" in fig11.verdict
    assert any("route discoveries" in quantity for quantity, _, _ in fig11.rows)
    assert [c.point for c in result.figures["Fig. 12"].checks] == ["5 m/s", "20 m/s"]


@pytest.mark.parametrize("paper_id", ["scalable-manet", "semitcp-2018"])
def test_quick_and_full_settings(paper_id: str) -> None:
    """--quick: fewer runs (and for semitcp-2018's mobile figures, fewer
    speeds and shorter runs); full: the settings the notes give."""
    paper = get_paper(paper_id)
    for experiment in paper.experiments:
        _, quick_vary, quick_runs = experiment.settings(True)
        _, vary, runs = experiment.settings(False)
        assert quick_runs < runs
        assert all(len(quick_vary.get(k, v)) <= len(v) for k, v in vary.items())
    if paper_id == "scalable-manet":
        scenario, _, runs = paper.experiment("mobile").settings(False)
        assert scenario["duration_s"] == 200.0 and runs == 30
        assert scenario["mobility"]["start_s"] == 20.0 and scenario["mobility"]["max_speed_mps"] == 20.0
    else:
        scenario, vary, _ = paper.experiment("mobile").settings(False)
        assert scenario["topology"]["nodes"] == 48 and len(scenario["flows"]) == 10
        assert list(vary["mobility.max_speed_mps"]) == [1.0, 5.0, 10.0, 15.0, 20.0]
