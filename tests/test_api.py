"""The Python API: load_scenario, Scenario.set, run and RunResult's DataFrames."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import hoplab
from hoplab.run import DROP_CAUSES, SERIES_COLUMNS
from hoplab.scenario import parse_override, parse_value


def test_package_exports() -> None:
    for name in ("load_scenario", "run", "RunResult", "Scenario", "ScenarioError", "SimulationError", "__version__"):
        assert hasattr(hoplab, name), name
    assert issubclass(hoplab.ScenarioError, ValueError)
    assert issubclass(hoplab.SimulationError, RuntimeError)
    assert issubclass(hoplab.OutputPathError, ValueError)
    assert hoplab.__version__ == hoplab._core.version()


def test_load_scenario_reads_and_validates(small_chain: Path) -> None:
    scenario = hoplab.load_scenario(small_chain)
    assert scenario.name == "small-chain"
    assert scenario.data["topology"] == {"kind": "chain", "nodes": 5, "spacing_m": 200.0}
    normalised = scenario.validate()
    assert normalised["mac"]["queue_packets"] == 50


def test_load_scenario_applies_overrides_before_validating(small_chain: Path) -> None:
    # Alone, each override makes the scenario invalid (flow to node 6 of 5;
    # a 7-node chain is fine): together they are valid.
    scenario = hoplab.load_scenario(small_chain, ["topology.nodes=7", "flows.0.dst=6"])
    assert scenario.validate()["flows"][0]["dst"] == 6


def test_load_scenario_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        hoplab.load_scenario(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[topology]\nkind = \"chain\"\nnodes = 5\nspacing_m = 200.0\n[mac]\nretry = 3\n")
    with pytest.raises(hoplab.ScenarioError) as caught:
        hoplab.load_scenario(bad)
    assert caught.value.key == "mac.retry"
    assert str(caught.value).startswith("mac.retry: unknown key")
    assert " at line " not in str(caught.value), "no position in the internal JSON"


def test_set_dotted_keys_and_list_indices(small_chain: Path) -> None:
    scenario = hoplab.load_scenario(small_chain)
    scenario.set("flows.0.packet_bytes", 256).set("flows[0].start_s", 0.5)
    scenario.set("mac.queue_packets", 20)  # no [mac] table in the file: created
    scenario.set("radio", {"tx_range_m": 250.0, "cs_range_m": 550.0})
    assert scenario.data["flows"][0]["packet_bytes"] == 256
    assert scenario.data["flows"][0]["start_s"] == 0.5
    normalised = scenario.validate()
    assert normalised["mac"]["queue_packets"] == 20
    assert normalised["radio"]["cs_range_m"] == 550.0
    assert normalised["radio"]["cs_threshold_w"] == pytest.approx(1.559e-11, rel=1e-3), "the threshold it gives"


@pytest.mark.parametrize(
    ("key", "value", "error_key"),
    [
        ("flows.3.rate_kbps", 10.0, "flows[3]"),
        ("flows.x.rate_kbps", 10.0, "flows.x"),
        ("duration_s.x", 1, "duration_s.x"),
        ("nothing.0.x", 1, "nothing"),
        ("a..b", 1, "a..b"),
        ("", 1, ""),
        ("duration_s", float("nan"), "duration_s"),
    ],
)
def test_set_errors_name_the_key(small_chain: Path, key: str, value: object, error_key: str) -> None:
    scenario = hoplab.load_scenario(small_chain)
    with pytest.raises(hoplab.ScenarioError) as caught:
        scenario.set(key, value)
    assert caught.value.key == error_key


def test_unknown_key_is_reported_by_validate(small_chain: Path) -> None:
    scenario = hoplab.load_scenario(small_chain).set("mac.queue_pakets", 20)
    with pytest.raises(hoplab.ScenarioError) as caught:
        scenario.validate()
    assert caught.value.key == "mac.queue_pakets"
    assert "queue_packets" in str(caught.value), "the message lists what is allowed"


@pytest.mark.parametrize(
    ("text", "value"),
    [("3", 3), ("2.5", 2.5), ("1e3", 1000.0), ("true", True), ("vegas", "vegas"), ('"a b"', "a b"),
     ("[1, 2]", [1, 2]), ("{x = 1}", {"x": 1}), ("", ""), ("2024-01-01", "2024-01-01"), ("1\nx = 2", "1\nx = 2")],
)
def test_override_values_are_toml_literals_where_possible(text: str, value: object) -> None:
    assert parse_value(text) == value


def test_parse_override() -> None:
    assert parse_override("flows.0.cc=vegas") == ("flows.0.cc", "vegas")
    assert parse_override("name=a=b") == ("name", "a=b")
    with pytest.raises(hoplab.ScenarioError, match="KEY=VALUE"):
        parse_override("duration_s")


def test_run_returns_dataframes(small_chain: Path) -> None:
    result = hoplab.run(hoplab.load_scenario(small_chain), seed=3)
    assert isinstance(result, hoplab.RunResult)
    assert result.seed == 3 and result.sim_seconds == 5.0 and result.events > 0
    flows = result.flows
    assert isinstance(flows, pd.DataFrame) and len(flows) == 1
    for column in ("id", "src", "dst", "transport", "goodput_kbps", "mean_delay_ms", "sent", "delivered",
                   "in_flight", "retransmissions"):
        assert column in flows.columns, column
    for cause in DROP_CAUSES:
        assert flows[f"loss_{cause}"].dtype == "int64"
    assert "losses" not in flows.columns
    nodes = result.nodes
    assert len(nodes) == 5 and list(nodes["id"]) == [0, 1, 2, 3, 4]
    for column in ("rts_sent", "rts_attempts_per_packet", "mac_service_time_ms", "queue_mean", "x_m", "y_m"):
        assert column in nodes.columns, column
    for cause in DROP_CAUSES:
        assert f"drop_{cause}" in nodes.columns
    assert any(c.startswith("frames_sent_") for c in nodes.columns)
    assert list(result.series.columns) == list(SERIES_COLUMNS) and result.series.empty


def test_run_with_series(small_chain: Path) -> None:
    series = hoplab.run(small_chain, series=True).series
    assert list(series.columns) == list(SERIES_COLUMNS)
    assert not series.empty
    assert set(series["entity"]) <= {"flow", "node"}
    assert series["time_s"].between(0.0, 5.0).all()


def test_to_dict_matches_the_json(small_chain: Path) -> None:
    result = hoplab.run(small_chain)
    assert result.to_dict() == json.loads(result.to_json())
    result.to_dict()["flows"].clear()
    assert result.to_dict()["flows"], "to_dict returns a copy"


def test_run_accepts_a_dict_and_a_path(small_chain: Path) -> None:
    from_path = hoplab.run(small_chain, seed=2)
    from_dict = hoplab.run(hoplab.load_scenario(small_chain).data, seed=2)
    assert from_path.flows.equals(from_dict.flows)


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True])
def test_run_rejects_bad_seeds(small_chain: Path, seed: object) -> None:
    with pytest.raises(hoplab.ScenarioError) as caught:
        hoplab.run(small_chain, seed=seed)  # type: ignore[arg-type]
    assert caught.value.key == "seed"


def test_run_reports_invalid_scenarios(small_chain: Path) -> None:
    scenario = hoplab.load_scenario(small_chain).set("flows.0.dst", 0)
    with pytest.raises(hoplab.ScenarioError) as caught:
        hoplab.run(scenario)
    assert caught.value.key == "flows[0].dst"


@pytest.mark.parametrize(
    ("key", "bad"),
    [
        ("mac.cts_ignores_nav", "yes"),
        ("routing.aodv.measured_traversal_time", 3),
        ("semitcp.rate_control.settle_frames", -1),
        ("semitcp.rate_control.low_level_margin", -0.1),
        ("tcp.sack", "on"),
    ],
)
def test_ns2_compatibility_switches_are_validated(small_chain: Path, key: str, bad: object) -> None:
    # The switches toward ns-2's behaviour are scenario keys like any other:
    # accepted with their type, refused naming the key otherwise.
    scenario = hoplab.load_scenario(small_chain)
    good = {"mac.cts_ignores_nav": True, "routing.aodv.measured_traversal_time": True,
            "semitcp.rate_control.settle_frames": 20, "semitcp.rate_control.low_level_margin": 0.0,
            "tcp.sack": True}[key]
    if key.startswith("routing.aodv"):
        scenario = scenario.set("routing.protocol", "aodv")
    assert scenario.set(key, good).validate()
    with pytest.raises(hoplab.ScenarioError) as caught:
        scenario.set(key, bad).validate()
    assert caught.value.key == key


@pytest.mark.parametrize(
    ("errors", "error_key"),
    [
        ({"packet_error_rate": 0.6, "mean_burst_frames": 1.0}, "errors.packet_error_rate"),
        ({"packet_error_rate": 0.03, "mean_burst_frames": 0.5}, "errors.mean_burst_frames"),
        ({"packet_error_rate": 0.03, "mean_burst_frames": 3, "good_state_error": 0.5}, "errors.packet_error_rate"),
        ({"packet_error_rate": 0.03, "mean_burst_frames": 3, "bad_state_error": 0.0}, "errors.bad_state_error"),
        ({"packet_error_rate": 0.03}, "errors.mean_burst_frames"),
        ({"packet_error_rate": 0.03, "mean_burst_frames": 3, "burst": 2}, "errors.burst"),
    ],
)
def test_gilbert_elliott_keys_are_validated(small_chain: Path, errors: dict[str, object], error_key: str) -> None:
    scenario = hoplab.load_scenario(small_chain).set("errors", {"model": "gilbert_elliott", **errors})
    with pytest.raises(hoplab.ScenarioError) as caught:
        scenario.validate()
    assert caught.value.key == error_key


def test_tcp_ra_parameters_are_validated(small_chain: Path) -> None:
    scenario = hoplab.load_scenario(small_chain).set("flows.0", {
        "src": 0, "dst": 2, "transport": "tcp", "app": "bulk", "cc": "tcp_ra", "cc_params": {"dubious_beta": 1.5}})
    with pytest.raises(hoplab.ScenarioError) as caught:
        scenario.validate()
    assert caught.value.key == "flows[0].cc_params.dubious_beta"


def test_a_wall_clock_limit_gives_a_run_up(small_chain: Path) -> None:
    long_run = hoplab.load_scenario(small_chain).set("duration_s", 1200.0)
    with pytest.raises(hoplab.SimulationError, match="wall-clock limit of 0.020 s exceeded at simulated time"):
        hoplab.run(long_run, wall_limit_s=0.02)
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="wall_limit_s: must be a positive number of seconds"):
            hoplab.run(long_run, wall_limit_s=bad)
