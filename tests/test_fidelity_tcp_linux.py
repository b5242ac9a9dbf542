"""The TCP-Linux family of `hoplab fidelity` (issue 29's controller row):
every stored ns-2.35 case becomes a goodput and a mean-cwnd check, and the
static MANET, where the defects were, is at parity."""

from __future__ import annotations

from hoplab.fidelity import CHECKS, references
from hoplab.fidelity.checks import evaluate
from hoplab.fidelity.family_ns2_tcp_linux import REFERENCE


def test_every_stored_case_is_checked_with_its_source() -> None:
    doc = references.load(REFERENCE)
    assert doc["version"].startswith("ns2 2.35")
    names = {c.name for c in CHECKS}
    for case in doc["cases"]:
        assert "seed=SEED" in case["command"] and len(case["seeds"]) >= 3
        assert all(len(v) == len(case["seeds"]) for v in case["values"].values())
        assert {f"ns2-tcplinux-{case['name']}-goodput", f"ns2-tcplinux-{case['name']}-mean-cwnd"} <= names
    assert sum(c["params"]["topology"] == "manet-20-static" for c in doc["cases"]) == 3


def test_scalable_on_the_static_manet_is_within_15_percent_of_ns2() -> None:
    check = next(c for c in CHECKS if c.name == "ns2-tcplinux-manet-static-scalable-mean-cwnd")
    row = evaluate(check, quick=True)  # seed 1, ns-2.35 on the same placement
    assert row.verdict == "holds", row
