"""Names the core knows are read from `hoplab._core`, never typed again in
Python: TCP-RA's true causes, verdicts and grades, and the loss causes.
Each test compares with the core, and a scan of the package's source
(`ast`) fails on a literal copy of one of the core's lists (issue 31; the
fuzzer's choices: tests/test_fuzz_choices.py)."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from pathlib import Path

import hoplab
from hoplab import _core
from hoplab.papers.tcp_ra_2009 import classification
from hoplab.run import (
    CLASSIFIED_COLUMNS,
    DROP_CAUSES,
    GRADED_COLUMNS,
    LOSS_GRADES,
    LOSS_TRUE_CAUSES,
    LOSS_VERDICTS,
)

from conftest import EXAMPLES, PACKAGE, string_literals



def _copies(tree: ast.AST, lists: Mapping[str, Sequence[str]]) -> list[str]:
    """Literals that hold every name of one of `lists` (a typed copy)."""
    return [f"line {line}: {name}" for line, strings in string_literals(tree) for name, names in lists.items()
            if set(names) <= set(strings)]


def _package_sources() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))}


def test_tcp_ra_names_are_the_cores() -> None:
    names = _core.loss_classification_names()
    assert (LOSS_TRUE_CAUSES, LOSS_VERDICTS, LOSS_GRADES) == (
        tuple(names["true_causes"]), tuple(names["verdicts"]), tuple(names["grades"]))
    assert classification.TRUTHS is LOSS_TRUE_CAUSES and classification.VERDICTS is LOSS_VERDICTS
    assert classification.GRADES is LOSS_GRADES
    assert len(CLASSIFIED_COLUMNS) == len(LOSS_TRUE_CAUSES) * len(LOSS_VERDICTS)
    assert len(GRADED_COLUMNS) == len(LOSS_TRUE_CAUSES) * len(LOSS_GRADES)


def test_the_names_are_the_keys_of_a_tcp_ra_report() -> None:
    scenario = hoplab.load_scenario(EXAMPLES / "tcp-ra-chain-gilbert.toml").set("duration_s", 4.0).set("warmup_s", 1.0)
    flow = hoplab.run(scenario, seed=1).to_dict()["flows"][0]
    # The report's maps are sorted by name; the core's lists are in report order.
    assert set(flow["loss_classification"]) == set(LOSS_TRUE_CAUSES) == set(flow["loss_grades"])
    assert all(set(cells) == set(LOSS_VERDICTS) for cells in flow["loss_classification"].values())
    assert all(set(cells) == set(LOSS_GRADES) for cells in flow["loss_grades"].values())


def test_the_package_types_no_list_the_core_owns() -> None:
    lists = {"TCP-RA true causes": LOSS_TRUE_CAUSES, "TCP-RA verdicts": LOSS_VERDICTS,
             "TCP-RA grades": LOSS_GRADES, "loss causes": DROP_CAUSES}
    found = [f"{path.relative_to(PACKAGE.parent)} {hit}" for path, tree in _package_sources().items()
             for hit in _copies(tree, lists)]
    assert not found, "read these from hoplab._core (hoplab.run), do not type them: " + "; ".join(found)


def test_the_scan_finds_a_typed_copy() -> None:
    tree = ast.parse('VERDICTS = ("congestion", "dubious", "wireless")\nCAUSES = ("congestion", "wireless")\n')
    assert _copies(tree, {"verdicts": LOSS_VERDICTS}) == ["line 1: verdicts"]
