"""Interface queue disciplines seen from Python and the command line: the
`[queue]` table and a link's own `queue`, `hoplab validate` showing every
parameter, errors naming the key, and `RunResult.queues`."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

import hoplab
from conftest import EXAMPLES, run_cli

WIRED = EXAMPLES / "wired-cum-wireless.toml"


def _base_station(discipline: str, **overrides: object) -> hoplab.Scenario:
    scenario = hoplab.load_scenario(WIRED).set("duration_s", 20.0).set("queue.discipline", discipline)
    for key, value in overrides.items():
        scenario = scenario.set(key, value)
    return scenario


def test_validate_prints_the_queue_with_every_parameter(workdir: Path) -> None:
    done = run_cli("validate", str(WIRED), "--set", "queue.discipline=red", "--set", "queue.linterm=5", cwd=workdir)
    assert done.returncode == 0, done.stderr
    queue = json.loads(done.stdout)["queue"]
    assert queue["discipline"] == "red" and queue["linterm"] == 5
    # Every default named (0 and -1: ns-2's automatic settings, resolved per queue in the report).
    assert {"min_thresh_packets": 0.0, "max_thresh_packets": 0.0, "q_weight": -1.0, "gentle": True,
            "bytes": True, "queue_in_bytes": True, "mean_packet_bytes": 500}.items() <= queue.items()
    # Drop-tail, the default, is left out (config hashes of older scenarios stay).
    plain = run_cli("validate", str(WIRED), cwd=workdir)
    assert "queue" not in json.loads(plain.stdout)


def test_bad_queue_keys_are_errors_naming_the_key(workdir: Path) -> None:
    for sets, key in [(["queue.discipline=codel"], "queue.discipline"),
                      (["queue.discipline=red", "queue.gamma=0.1"], "queue.gamma"),
                      (["queue.discipline=blue", "queue.increment=2"], "queue.increment")]:
        args = [arg for s in sets for arg in ("--set", s)]
        done = run_cli("run", str(WIRED), *args, cwd=workdir)
        assert done.returncode == 2, (sets, done.stdout)
        assert done.stderr.startswith(f"error: {key}:"), done.stderr
        assert done.stdout == ""


def test_run_result_queues_has_one_row_per_queue_with_its_parameters() -> None:
    result = hoplab.run(_base_station("red", **{"topology.last_hop_loss_rate": 0.0}), seed=1)
    queues = result.queues
    report = result.to_dict()["queues"]
    # 3 links, both directions: one row each, by node then next node.
    assert len(queues) == len(report) == 6
    assert list(queues[["node", "to"]].itertuples(index=False, name=None)) == [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2)]
    assert queues["to"].dtype == "Int64" and queues["node"].dtype == "int64"
    assert set(queues["discipline"]) == {"red"}
    # RED's automatic thresholds resolved per link: 5 at 5 Mb/s, 62.5 at 100 Mb/s.
    thresholds = dict(zip(zip(queues["node"], queues["to"]), queues["param_min_thresh_packets"], strict=True))
    assert thresholds[(2, 3)] == 5.0 and thresholds[(0, 1)] == 62.5
    last_hop = queues[(queues["node"] == 2) & (queues["to"] == 3)].iloc[0]
    assert last_hop["early_drops"] > 0
    assert last_hop["early_drops"] == result.flows["loss_aqm_drop"].sum() + result.flows["ack_loss_aqm_drop"].sum()
    assert last_hop["mean_packets"] > 0


def test_an_802_11_interface_queue_has_no_next_node_and_drop_tail_no_parameters() -> None:
    result = hoplab.run(_base_station("drop_tail", **{"topology.last_hop": "wifi"}), seed=1)
    queues = result.queues
    wifi = queues[queues["to"].isna()]
    # The base station (2) and the receiver (3) have radios.
    assert sorted(wifi["node"]) == [2, 3]
    assert not any(c.startswith("param_") for c in queues.columns)
    nodes = result.nodes.set_index("id")
    for row in wifi.itertuples():
        assert row.mean_packets == nodes.loc[row.node, "queue_mean"]
    assert (queues["early_drops"] == 0).all()


def test_a_report_without_queues_still_has_their_columns() -> None:
    from hoplab.run import REPORT_FIELDS

    result = hoplab.run(_base_station("blue"), seed=1)
    empty = hoplab.RunResult(json.dumps({**result.to_dict(), "queues": []})).queues
    assert empty.empty
    assert set(REPORT_FIELDS["queues"]) - {"params"} <= set(empty.columns)
    assert isinstance(empty, pd.DataFrame)
