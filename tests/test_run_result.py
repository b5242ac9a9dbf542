"""RunResult on a hand-written report: how the JSON becomes DataFrames and a
summary, independent of what the simulator computes."""

from __future__ import annotations

import json

import pytest

from hoplab.command import _print_summary
from hoplab.run import _FLATTENED, DROP_CAUSES, REPORT_FIELDS, SERIES_COLUMNS, RunResult


def node(node_id: int, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": node_id, "x_m": 200.0 * node_id, "y_m": 0.0, "rts_sent": 0, "rts_attempts_per_packet": 0.0,
        "data_attempts_per_packet": 0.0, "rts_dropped": 0, "data_dropped": 0, "data_retries": 0, "rtsc_sent": 0,
        "ctsc_sent": 0, "mac_service_time_ms": 0.0, "queue_mean": 0.0, "packets_served": 0, "frames_sent": {},
        "drops": {}, "tx_time_fraction": 0.0,
    }
    return {**base, **fields}


REPORT = {
    "name": "hand-made", "version": "0.1.0", "config_hash": "0123456789abcdef", "seed": 3, "sim_seconds": 10.0,
    "wall_seconds": 0.25, "events": 12345,
    "flows": [
        {"id": 0, "src": 0, "dst": 2, "transport": "udp", "cc": None, "app": "bulk", "packet_bytes": 512, "hops": 2,
         "goodput_kbps": 400.5, "offered_kbps": 900.0, "mean_delay_ms": 35.25, "sent": 100, "delivered": 80,
         "in_flight": 3, "retransmissions": 7, "losses": {"queue_overflow": 15, "retry_limit": 2}},
        {"id": 1, "src": 2, "dst": 0, "transport": "udp", "cc": None, "app": "cbr", "packet_bytes": 512, "hops": 2,
         "goodput_kbps": 50.0, "offered_kbps": 50.0, "mean_delay_ms": 12.0, "sent": 10, "delivered": 9,
         "in_flight": 0, "retransmissions": 0, "losses": {"a_new_cause": 1}},
    ],
    "nodes": [
        node(0, rts_sent=120, rts_attempts_per_packet=1.2, data_attempts_per_packet=1.0, packets_served=100,
             mac_service_time_ms=4.5, queue_mean=40.0, frames_sent={"rts": 120, "data": 100},
             drops={"queue_overflow": 15}),
        node(1, rts_sent=90, packets_served=85, frames_sent={"rts": 90, "data": 85, "cts": 100, "ack": 80},
             drops={"retry_limit": 2, "a_new_cause": 1}),
        node(2),
    ],
}


@pytest.fixture
def result() -> RunResult:
    return RunResult(json.dumps(REPORT))


def test_flows_flatten_losses_into_cause_columns(result: RunResult) -> None:
    flows = result.flows
    assert list(flows["id"]) == [0, 1]
    causes = sorted({*DROP_CAUSES, "a_new_cause"})
    assert [c for c in flows.columns if c.startswith("loss_")] == [f"loss_{c}" for c in causes]
    assert list(flows["loss_queue_overflow"]) == [15, 0]
    assert list(flows["loss_a_new_cause"]) == [0, 1]
    assert flows["loss_ttl"].dtype == "int64"
    assert flows["cc"].isna().all()


def test_nodes_flatten_drops_and_frames(result: RunResult) -> None:
    nodes = result.nodes
    assert list(nodes["drop_retry_limit"]) == [0, 2, 0]
    assert list(nodes["frames_sent_cts"]) == [0, 100, 0]
    assert "drops" not in nodes.columns and "frames_sent" not in nodes.columns


def test_scalars_dict_and_json(result: RunResult) -> None:
    assert (result.name, result.seed, result.events, result.sim_seconds) == ("hand-made", 3, 12345, 10.0)
    assert result.to_dict() == REPORT
    assert result.to_json() == json.dumps(REPORT)
    assert list(result.series.columns) == list(SERIES_COLUMNS) and result.series.empty
    assert "hand-made" in repr(result)


def test_series_rows_become_a_long_table() -> None:
    rows = [{"time_s": 1.0, "entity": "flow", "id": 0, "metric": "goodput_kbps", "value": 10.0},
            {"time_s": 1.0, "entity": "node", "id": 1, "metric": "queue", "value": 3.0}]
    series = RunResult(json.dumps({**REPORT, "series": rows})).series
    assert list(series.columns) == list(SERIES_COLUMNS)
    assert series.to_dict("records") == rows


def test_summary_shows_flows_and_busy_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    _print_summary(REPORT)
    out = capsys.readouterr().out
    assert "hand-made" in out and "12,345 events" in out
    assert "400.5" in out and "35.25" in out and "queue_overflow 15, retry_limit 2" in out
    assert "a_new_cause 1, retry_limit 2" in out
    assert "(1 node(s) sent nothing" in out


def test_the_python_side_names_only_fields_the_core_reports() -> None:
    assert sorted(SERIES_COLUMNS) == REPORT_FIELDS["series"]
    for field in _FLATTENED:
        assert field in REPORT_FIELDS["flows"] or field in REPORT_FIELDS["nodes"], field


def test_a_report_without_flows_or_nodes_still_has_their_columns() -> None:
    empty = RunResult(json.dumps({**REPORT, "flows": [], "nodes": []}))
    flows, nodes = empty.flows, empty.nodes
    assert flows.empty and nodes.empty
    assert {"goodput_kbps", "mean_delay_ms", "loss_retry_limit", "ack_loss_no_route"} <= set(flows.columns)
    assert "losses" not in flows.columns
    assert {"mac_service_time_ms", "drop_queue_overflow"} <= set(nodes.columns) and "drops" not in nodes.columns


def test_loss_classification_becomes_nullable_integer_columns() -> None:
    from hoplab.run import CLASSIFIED_COLUMNS

    report = json.loads(json.dumps(REPORT))
    classes = {truth: {"congestion": 0, "dubious": 0, "wireless": 0} for truth in ("congestion", "wireless", "not_lost")}
    classes["wireless"]["wireless"] = 7
    classes["congestion"]["dubious"] = 2
    report["flows"][0]["loss_classification"] = classes
    report["flows"][1]["loss_classification"] = None
    flows = RunResult(json.dumps(report)).flows
    assert "loss_classification" not in flows.columns
    assert len(CLASSIFIED_COLUMNS) == 9 and set(CLASSIFIED_COLUMNS) <= set(flows.columns)
    assert flows["classified_wireless_as_wireless"].dtype == "Int64"
    assert flows.loc[0, "classified_wireless_as_wireless"] == 7
    assert flows.loc[0, "classified_congestion_as_dubious"] == 2
    assert flows.loc[0, "classified_not_lost_as_congestion"] == 0
    assert flows["classified_wireless_as_wireless"].isna().tolist() == [False, True], "no verdicts: <NA>, not 0"


def test_a_tcp_ra_run_reports_its_verdicts_and_its_true_causes() -> None:
    import hoplab

    scenario = {
        "duration_s": 20.0, "warmup_s": 2.0,
        "radio": {"data_rate_mbps": 11.0, "basic_rate_mbps": 1.0},
        "topology": {"kind": "chain", "nodes": 5, "spacing_m": 200.0},
        "errors": {"model": "gilbert_elliott", "packet_error_rate": 0.05, "mean_burst_frames": 6.0},
        "flows": [{"src": 0, "dst": 4, "transport": "tcp", "cc": "tcp_ra", "app": "bulk", "packet_bytes": 800},
                  {"src": 4, "dst": 0, "transport": "tcp", "cc": "newreno", "app": "bulk", "packet_bytes": 800}],
    }
    flows = hoplab.run(scenario, seed=1).flows
    judged = flows.loc[0, [c for c in flows.columns if c.startswith("classified_")]]
    assert judged.sum() > 0
    assert flows.loc[0, "classified_wireless_as_wireless"] + flows.loc[0, "classified_wireless_as_dubious"] \
        + flows.loc[0, "classified_wireless_as_congestion"] <= flows.loc[0, "loss_channel_error"] + flows.loc[0, "loss_route_break"]
    assert flows.loc[1, [c for c in flows.columns if c.startswith("classified_")]].isna().all()
