"""The ns-3 3.44 family of `hoplab fidelity` (issue 29,
hoplab/fidelity/family_ns3.py): TCP NewReno over AODV and ns-3's
congestion controllers on the SINR chain, against references stored with
the command, ns-3 version and seeds that made them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hoplab.fidelity import CHECKS, references
from hoplab.fidelity.checks import evaluate, ns3_chain
from hoplab.fidelity.family_ns3 import AODV_NS3, CONTROLLERS, TOLERANCE, aodv_chain, checks, controller_chain

ROOT = Path(__file__).resolve().parents[1]
SETS = ["ns3-aodv-chain", "ns3-controllers"]

# The verdicts of the family's quick rows as measured when they landed: a
# change that flips one must say why (and update docs/fidelity.md).
QUICK_VERDICTS = {
    "ns3-aodv-chain-4": "holds",
    "ns3-cc-vegas-4": "holds",
}


@pytest.mark.parametrize("name", SETS)
def test_every_stored_reference_names_its_command_version_and_seeds(name: str) -> None:
    doc = references.load(name)
    assert doc["version"].startswith("ns-3 3.44") and doc["script"] == "scripts/ns3_chain.py"
    assert (ROOT / doc["script"]).is_file()
    assert "scripts/ns3_chain.py" in doc["command"] and "--json" in doc["command"]
    for case in doc["cases"]:
        seeds = case["seeds"]
        assert len(seeds) >= 3 and [r["seed"] for r in case["runs"]] == seeds
        assert f"--one {case['params']['hops']} SEED" in case["command"]
        assert f"--routing {case['params']['routing']}" in case["command"]
        assert f"--cc {case['params']['cc']}" in case["command"]
        assert all(r["goodput_kbps"] > 0 and r["hops"] == case["params"]["hops"] for r in case["runs"])


def test_the_aodv_reference_used_normal_arp_and_saw_route_errors() -> None:
    """The ARP trap of issue 29: with prefilled ARP caches ns-3's AODV never
    learns of a link break; the reference runs use normal ARP and do."""
    doc = references.load("ns3-aodv-chain")
    assert doc["settings"]["routing"] == "aodv" and doc["settings"]["arp"] == "normal"
    assert "--arp auto" in doc["command"] or "--arp normal" in doc["command"]
    assert {c["params"]["hops"] for c in doc["cases"]} == {1, 4, 7, 14}
    multi = [r for c in doc["cases"] if c["params"]["hops"] >= 4 for r in c["runs"]]
    assert all(r["rerr_sent"] > 0 for r in multi)


def test_the_controller_reference_covers_every_ns3_controller_on_4_and_7_hops() -> None:
    doc = references.load("ns3-controllers")
    assert doc["settings"]["routing"] == "static" and doc["settings"]["cubic_hystart"] is False
    assert {(c["params"]["cc"], c["params"]["hops"]) for c in doc["cases"]} == {
        (cc, h) for cc in CONTROLLERS for h in (4, 7)}


def test_the_scenarios_are_the_ns3_example_with_one_change() -> None:
    base = ns3_chain(7)
    aodv = aodv_chain(7)
    assert {k: v for k, v in aodv.items() if k not in ("name", "routing")} == {k: v for k, v in base.items() if k != "name"}
    assert aodv["routing"] == {"protocol": "aodv", "aodv": AODV_NS3}
    assert AODV_NS3["hello"] and AODV_NS3["gratuitous_reply"] and not AODV_NS3["local_repair"]
    vegas = controller_chain(4, "TcpVegas")
    assert vegas["flows"][0]["cc"] == "vegas" and vegas["flows"][0]["cc_params"]["diff"] == "brakmo"
    assert {cc for cc, _ in CONTROLLERS.values()} == {"westwood_plus", "vegas", "veno", "bic", "scalable", "cubic"}


def test_the_family_is_found_and_its_tolerances_are_15_percent() -> None:
    rows = checks()
    names = {c.name for c in CHECKS}
    assert len(rows) == 4 + 12 and all(r.name in names for r in rows)
    assert all(r.tolerance == TOLERANCE == 0.15 and r.kind == "ratio" and r.unit == "kbps" for r in rows)
    assert {r.name for r in rows if r.quick} == set(QUICK_VERDICTS)


@pytest.mark.parametrize("name", sorted(QUICK_VERDICTS))
def test_the_quick_rows_give_their_recorded_verdicts(name: str) -> None:
    check = next(c for c in CHECKS if c.name == name)
    row = evaluate(check, quick=True)
    assert row.seeds == 1 and row.reference_value and row.value
    assert row.verdict == QUICK_VERDICTS[name], f"{name}: hoplab {row.value:.1f}, ns-3 {row.reference_value:.1f}"
