"""The wired-bottleneck family of `hoplab fidelity` (issue 29,
hoplab/fidelity/family_ns2_wired.py): its stored ns-2.35 references and its
quick rows."""

from __future__ import annotations

import pytest

from hoplab.fidelity import references
from hoplab.fidelity.checks import CHECKS, evaluate
from hoplab.fidelity.family_ns2_wired import padhye_pps

# The quick rows' verdicts as measured when the family landed: a change
# that flips one must say why (and update docs/fidelity.md).
QUICK_VERDICTS = {
    "ns2-wired-newreno-loss2": "holds",
    "ns2-wired-padhye-loss2": "holds",
    "ns2-aqm-red-queue": "holds",
}


@pytest.mark.parametrize("name", ["ns2-wired", "ns2-aqm"])
def test_the_stored_references_name_their_commands_and_seeds(name: str) -> None:
    doc = references.load(name)
    assert doc["version"].startswith("ns2 2.35") and doc["what"]
    assert doc["script"] == "scripts/ns2/wired.tcl" and doc["driver"] == "scripts/ns2/reference.py"
    for case in doc["cases"]:
        assert len(case["seeds"]) >= 5 and len(case["runs"]) == len(case["seeds"])
        for run, seed in zip(case["runs"], case["seeds"], strict=True):
            command = run["command"]
            assert command.startswith("ns scripts/ns2/wired.tcl ") and command.endswith(f" seed={seed}")
            assert all(f"{k}={v}" in command for k, v in case["params"].items())
            assert run["goodput_kbps"] > 0


def test_the_family_covers_every_controller_loss_and_discipline() -> None:
    names = {c.name for c in CHECKS if c.name.startswith(("ns2-wired-", "ns2-aqm-"))}
    for cc in ("newreno", "scalable", "bic", "cubic", "vegas", "veno", "westwood"):
        assert {f"ns2-wired-{cc}-loss{p}" for p in range(4)} <= names
    assert {f"ns2-wired-padhye-loss{p}" for p in (1, 2, 3)} <= names
    for q in ("red", "rem", "pi"):
        assert {f"ns2-aqm-{q}-queue", f"ns2-aqm-{q}-goodput", f"ns2-aqm-{q}-early"} <= names
    family = [c for c in CHECKS if c.name in names]
    assert all(c.tolerance in (0.15, 0.20) for c in family)
    assert {c.name for c in family if c.quick} == set(QUICK_VERDICTS)


def test_padhye_matches_the_papers_closed_form() -> None:
    # p = 2 %, RTT 100 ms, T0 200 ms, b = 1: 1 / (0.1 sqrt(0.04/3)
    # + 0.2 x 3 sqrt(0.0075) x 0.02 x (1 + 32 x 0.0004)) = 1 / (0.011547
    # + 0.001053) = 79.37 pkt/s.
    assert padhye_pps(0.02, 0.1, 0.2, 1.0, 1e9) == pytest.approx(79.37, abs=0.01)
    # The window limit caps it at W_max / RTT.
    assert padhye_pps(1e-6, 0.1, 0.2, 1.0, 10.0) == pytest.approx(100.0)


@pytest.mark.parametrize("name", sorted(QUICK_VERDICTS))
def test_the_quick_rows_give_their_verdicts(name: str) -> None:
    check = next(c for c in CHECKS if c.name == name)
    row = evaluate(check, quick=True)
    assert row.seeds == 1 and row.reference_value is not None and row.value is not None
    assert row.verdict == QUICK_VERDICTS[name], row
