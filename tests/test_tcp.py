"""TCP flows seen from Python and the command line: the TCP columns,
conservation in both directions, determinism, and errors naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hoplab
from conftest import EXAMPLES, run_cli


def _tcp_chain() -> hoplab.Scenario:
    scenario = hoplab.load_scenario(EXAMPLES / "tcp-chain-7hop.toml")
    scenario.set("duration_s", 20.0).set("warmup_s", 2.0)
    return scenario


def test_tcp_flow_reports_its_controller_and_recovery_counters() -> None:
    result = hoplab.run(_tcp_chain(), seed=1, series=True)
    flow = result.flows.iloc[0]
    assert flow["transport"] == "tcp"
    assert flow["cc"] == "newreno"
    assert flow["goodput_kbps"] > 50
    for column in ("retransmissions", "timeouts", "fast_retransmits", "acks_sent", "acks_delivered", "acks_in_flight"):
        assert column in result.flows.columns
    # Conservation in the data and in the ACK direction.
    losses = sum(flow[c] for c in result.flows.columns if c.startswith("loss_"))
    assert flow["sent"] == flow["delivered"] + losses + flow["in_flight"]
    ack_losses = sum(flow[c] for c in result.flows.columns if c.startswith("ack_loss_"))
    assert flow["acks_sent"] == flow["acks_delivered"] + ack_losses + flow["acks_in_flight"]
    metrics = set(result.series[result.series["entity"] == "flow"]["metric"])
    assert {"cwnd_segments", "ssthresh_segments", "srtt_ms", "rtt_ms", "goodput_kbps"} <= metrics


@pytest.mark.parametrize("cc", ["westwood_plus", "veno", "vegas", "bic", "cubic", "scalable", "few", "afw"])
def test_every_controller_is_reachable_by_name(cc: str) -> None:
    scenario = _tcp_chain().set("flows.0.cc", cc).set("duration_s", 5.0).set("warmup_s", 1.0)
    result = hoplab.run(scenario, seed=1)
    assert result.flows.iloc[0]["cc"] == cc
    assert result.flows.iloc[0]["delivered"] > 0


def test_tcp_runs_are_byte_identical_for_one_seed() -> None:
    a = json.loads(hoplab.run(_tcp_chain(), seed=3).to_json())
    b = json.loads(hoplab.run(_tcp_chain(), seed=3).to_json())
    a.pop("wall_seconds")
    b.pop("wall_seconds")
    assert a == b


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("flows.0.cc=reno2", "flows[0].cc"),
        ("flows.0.cc_params={alpha = 2}", "flows[0].cc_params"),
        ("flows.0.app=cbr", "flows[0].app"),
        ("tcp.rwnd_segments=0", "tcp.rwnd_segments"),
        ("tcp.retries=3", "tcp.retries"),
    ],
)
def test_bad_tcp_settings_name_the_key(override: str, key: str, workdir: Path) -> None:
    done = run_cli("run", str(EXAMPLES / "tcp-chain-7hop.toml"), "--set", override, cwd=workdir)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"error: {key}"), done.stderr
    assert "Traceback" not in done.stderr


def test_cli_summary_shows_the_tcp_table(workdir: Path) -> None:
    done = run_cli("run", str(EXAMPLES / "tcp-chain-7hop.toml"), "--set", "duration_s=5", "--set", "warmup_s=1", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert "TCP" in done.stdout and "fast retransmits" in done.stdout and "newreno" in done.stdout
