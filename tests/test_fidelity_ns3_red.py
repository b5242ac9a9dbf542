"""RED against ns-3 3.44's RedQueueDisc (issue 29, item 5;
hoplab/fidelity/family_ns3_red.py): the stored reference names its script,
command, ns-3 version and seeds, and hoplab's scenario is the ns-2 AQM
rows' path with ns-3's RED and TCP settings, nothing else changed."""

from __future__ import annotations

from pathlib import Path

from hoplab.fidelity import CHECKS, references
from hoplab.fidelity.family_ns2_wired import QUEUES, wired
from hoplab.fidelity.family_ns3_red import RED_NS3, REFERENCE, TCP_NS3, scenario

ROOT = Path(__file__).resolve().parents[1]


def test_the_reference_names_its_script_version_and_seeds() -> None:
    doc = references.load(REFERENCE)
    assert doc["version"].startswith("ns-3 3.44") and (ROOT / doc["script"]).is_file()
    assert doc["script"] in doc["command"] and "--json" in doc["command"]
    assert len(doc["seeds"]) >= 3 and [r["seed"] for r in doc["runs"]] == doc["seeds"]
    for run in doc["runs"]:
        assert 0 < run["goodput_kbps"] <= 5000 and run["queue_mean"] > 0
        assert 0 <= run["early_drops"] <= run["drops"]


def test_three_rows_with_the_aqm_tolerances() -> None:
    rows = {c.name: c for c in CHECKS if c.name.startswith("ns3-red-")}
    assert set(rows) == {"ns3-red-queue", "ns3-red-goodput", "ns3-red-early"}
    assert (rows["ns3-red-queue"].tolerance, rows["ns3-red-goodput"].tolerance) == (0.20, 0.15)
    assert (rows["ns3-red-early"].kind, rows["ns3-red-early"].points) == ("ratio_or_points", 2.0)


def test_the_scenario_is_the_aqm_path_with_ns3s_red_and_tcp() -> None:
    ours = scenario()
    ns2 = wired(3, 0.0, "newreno", False, QUEUES["RED"], duration=60.0)
    assert ours["preset"] == "standard" and ours["tcp"] == TCP_NS3
    last = ours["topology"]["links"][-1]
    assert last["queue"] == RED_NS3 and last["rate_mbps"] == 5.0 and last["queue_packets"] == 50
    # ns-3's RedQueueDisc defaults in packet mode (red-queue-disc.cc).
    assert (RED_NS3["min_thresh_packets"], RED_NS3["max_thresh_packets"], RED_NS3["q_weight"]) == (5.0, 15.0, 0.002)
    assert (RED_NS3["linterm"], RED_NS3["bytes"], RED_NS3["queue_in_bytes"]) == (50.0, False, False)
    for key in ("duration_s", "warmup_s", "flows"):
        assert ours[key] == ns2[key]
    assert ours["topology"]["links"][:-1] == ns2["topology"]["links"][:-1]
