"""Per-run values are read one way in every paper module:
`hoplab.papers.per_run` / `per_point` (and `ExperimentData.per_run` /
`.per_point`), never a comprehension of its own (issue 31)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pandas as pd

from hoplab.papers import Experiment, ExperimentData, per_point, per_run

PAPERS = Path(__file__).resolve().parents[1] / "python" / "hoplab" / "papers"


def _runs_extractions(tree: ast.AST) -> list[int]:
    """Lines of dict comprehensions keyed by run over `zip(rows["run"], ...)`."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.DictComp):
            continue
        for generator in node.generators:
            call = generator.iter
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "zip" and any(
                    isinstance(arg, ast.Subscript) and isinstance(arg.slice, ast.Constant) and arg.slice.value == "run"
                    for arg in call.args):
                lines.append(node.lineno)
    return lines


def test_only_the_shared_code_extracts_per_run_values() -> None:
    found = {str(path.relative_to(PAPERS)): lines for path in sorted(PAPERS.rglob("*.py"))
             if (lines := _runs_extractions(ast.parse(path.read_text(encoding="utf-8"))))}
    assert list(found) == ["__init__.py"], f"use hoplab.papers.per_run / per_point: {found}"
    assert len(found["__init__.py"]) == 1


def test_the_scan_finds_a_hand_written_extraction() -> None:
    tree = ast.parse('x = {int(r): float(v) for r, v in zip(rows["run"], rows["value"], strict=True)}')
    assert _runs_extractions(tree) == [1]


def test_per_run_and_per_point() -> None:
    rows = pd.DataFrame({"run": [0, 1, 2, 0, 1], "value": [1.5, math.nan, 3.0, 4.0, 5.0],
                         "hops": [2, 2, 2, 3, 3], "other": [9.0, 8.0, 7.0, 6.0, 5.0]})
    assert per_run(rows[rows["hops"] == 2]) == {0: 1.5, 2: 3.0}  # NaN left out
    assert per_run(rows[rows["hops"] == 3], "other") == {0: 6.0, 1: 5.0}
    by_hops = per_point(rows, "hops", key=int)
    assert by_hops == {2: {0: 1.5, 2: 3.0}, 3: {0: 4.0, 1: 5.0}}
    assert all(type(k) is int for k in by_hops)
    assert all(type(k) is float for k in per_point(rows, "hops"))
    assert per_point(rows.iloc[:0], "hops") == {} and per_point(rows, "missing") == {}


def test_experiment_data_reads_one_entity() -> None:
    scalars = pd.DataFrame({"run": [0, 1, 0, 1, 0], "metric": ["goodput_kbps"] * 4 + ["sent"],
                            "entity": ["flow"] * 5, "id": [0, 0, 1, 1, 0], "case": ["a"] * 5,
                            "rate": [10.0, 10.0, 10.0, 10.0, 10.0], "value": [1.0, 2.0, 3.0, 4.0, 5.0]})
    data = ExperimentData(Experiment("e", "", {}), pd.DataFrame(), scalars, pd.DataFrame(), ["rate"])
    assert data.per_run("goodput_kbps", "flow", "a", 1) == {0: 3.0, 1: 4.0}
    assert data.per_point("goodput_kbps", "rate", "flow", "a") == {10.0: {0: 1.0, 1: 2.0}}
