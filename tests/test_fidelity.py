"""`hoplab fidelity` (issue 29): the checks, their stored references, the
quick form the test suite runs, and the command's edges."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from hoplab.fidelity import CHECKS, references
from hoplab.fidelity.bianchi import throughput_kbps
from hoplab.fidelity.checks import ns3_chain
from hoplab.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]

# The verdicts of the quick form as measured when the checks landed: a
# change that flips one must say why (and update docs/fidelity.md).
QUICK_VERDICTS = {
    "bianchi-rtscts-n10": "holds",
    "ns2-aodv-chain-1": "holds",
    "ns2-aodv-chain-7": "holds",
    "ns2-dsr-chain-1": "holds",
    "ns2-dsr-chain-7": "holds",
    "ns3-sinr-chain-4": "holds",
    "ns2-semitcp-static-7": "holds",
    # ACKs counted as the public semi-TCP code's statistics count them
    # (those the sink sent); its goodput under route failures is at parity
    # since ns-2's RREQ schedule (tests/ns2_parity.rs, docs/fidelity.md).
    "ns2-semitcp-rtfail-acks-5": "holds",
}


def _hoplab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hoplab", *args], capture_output=True, text=True, cwd=ROOT)


def test_at_least_fifteen_checks_have_a_reference_with_its_source() -> None:
    referenced = [c for c in CHECKS if c.measure is not None]
    assert len(referenced) >= 15
    assert all(c.tolerance is not None and c.tolerance > 0 for c in referenced)
    unreferenced = [c for c in CHECKS if c.measure is None]
    assert all(c.note for c in unreferenced), "a row without a reference names what checks the model instead"
    assert len({c.name for c in CHECKS}) == len(CHECKS)


@pytest.mark.parametrize("name", ["ns2-chain-routing", "ns2-semitcp-chain"])
def test_every_stored_reference_names_how_it_was_made(name: str) -> None:
    doc = references.load(name)
    assert doc["version"] and doc["what"] and (ROOT / doc["script"]).is_file() and (ROOT / doc["driver"]).is_file()
    for case in doc["cases"]:
        assert len(case["runs"]) == len(case["seeds"]) >= 3
        assert all("scripts/ns2/" in run["command"] and run["command"].endswith(f"seed={seed}")
                   for run, seed in zip(case["runs"], case["seeds"], strict=True))


def test_the_ns2_reference_script_and_driver_ship_with_the_repository() -> None:
    doc = references.load("ns2-chain-routing")
    assert (ROOT / doc["script"]).is_file() and (ROOT / doc["driver"]).is_file()
    assert {(c["params"]["routing"], c["params"]["hops"]) for c in doc["cases"]} >= {
        (r, h) for r in ("AODV", "DSR") for h in (4, 7, 14)}


def test_the_ns3_check_runs_the_example_scenario() -> None:
    example = load_scenario(ROOT / "examples" / "sinr-chain-ns3.toml").data
    ours = ns3_chain(7)
    for key in ("radio", "mac", "tcp", "topology", "duration_s", "warmup_s"):
        assert ours[key] == example[key], key
    assert ours["flows"] == example["flows"]


def test_bianchi_model_matches_the_rust_tests_figures() -> None:
    # crates/hoplab-sim/tests/bianchi.rs computes the same model in Rust
    # and prints it (`cargo test --release --test bianchi -- --nocapture`):
    # RTS/CTS n = 10 1178.3 kbit/s, basic access 1218.5.
    assert throughput_kbps(10, True) == pytest.approx(1178.3, abs=0.1)
    assert throughput_kbps(10, False) == pytest.approx(1218.5, abs=0.1)


def test_the_quick_form_gives_its_recorded_verdicts() -> None:
    done = _hoplab("fidelity", "--quick", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["name"]: r for r in json.loads(done.stdout)["checks"]}
    assert {n: rows[n]["verdict"] for n in QUICK_VERDICTS} == QUICK_VERDICTS
    for name, row in rows.items():
        if row["verdict"] == "no reference":
            assert row["value"] is None and row["note"], name
        else:
            assert row["value"] > 0 and row["reference_value"] > 0 and row["tolerance"] > 0, name


def test_the_doc_table_is_written_between_its_markers(tmp_path: Path) -> None:
    doc = tmp_path / "fidelity.md"
    doc.write_text("# Head\n\nkept\n", encoding="utf-8")
    done = _hoplab("fidelity", "--only", "bianchi-rtscts", "--quick", "--doc", str(doc))
    assert done.returncode == 0, done.stderr
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Head\n\nkept\n") and "| bianchi-rtscts-n10 |" in text
    done = _hoplab("fidelity", "--only", "tcp-ra", "--doc", str(doc))
    text = doc.read_text(encoding="utf-8")
    assert "bianchi-rtscts-n10" not in text and "| tcp-ra |" in text and text.count("fidelity:end") == 1


def test_docs_fidelity_md_has_the_generated_table() -> None:
    text = (ROOT / "docs" / "fidelity.md").read_text(encoding="utf-8")
    assert "<!-- fidelity:begin" in text and "<!-- fidelity:end -->" in text
    assert all(f"| {c.name} |" in text for c in CHECKS), "regenerate: hoplab fidelity --doc docs/fidelity.md"


def test_an_unknown_check_is_refused_before_anything_runs(tmp_path: Path) -> None:
    doc = tmp_path / "out.md"
    done = _hoplab("fidelity", "--only", "ns2-aodvv", "--doc", str(doc))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--only" in done.stderr
    assert not doc.exists()


def test_the_references_are_package_data() -> None:
    assert files("hoplab").joinpath("data", "references", "ns2-chain-routing.json").is_file()
