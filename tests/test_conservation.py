"""Every packet is accounted for, seen from Python: per flow,
sent == delivered + sum(losses) + in_flight, and every loss has a cause."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import hoplab
from conftest import EXAMPLES
from hoplab.run import DROP_CAUSES


def saturated_chain(small_chain: Path) -> hoplab.Scenario:
    return hoplab.load_scenario(small_chain)


def small_grid(small_chain: Path) -> hoplab.Scenario:
    scenario = hoplab.Scenario.from_toml((EXAMPLES / "bench-grid7x7-4flows.toml").read_text())
    return scenario.set("duration_s", 5.0).set("warmup_s", 1.0)


def lossy_chain(small_chain: Path) -> hoplab.Scenario:
    scenario = hoplab.load_scenario(small_chain)
    return scenario.set("errors", {"model": "uniform", "packet_error_rate": 0.3})


def short_queues(small_chain: Path) -> hoplab.Scenario:
    return hoplab.load_scenario(small_chain).set("mac.queue_packets", 2)


SCENARIOS: dict[str, Callable[[Path], hoplab.Scenario]] = {
    "saturated chain": saturated_chain,
    "lossy chain": lossy_chain,
    "short queues": short_queues,
    "grid, four flows": small_grid,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_packets_are_conserved_per_flow(name: str, small_chain: Path) -> None:
    result = hoplab.run(SCENARIOS[name](small_chain), seed=4)
    report = result.to_dict()
    for flow in report["flows"]:
        lost = sum(flow["losses"].values())
        assert flow["sent"] == flow["delivered"] + lost + flow["in_flight"], flow
        assert flow["sent"] > 0
        for cause in flow["losses"]:
            assert cause and cause == cause.strip().lower(), f"loss cause {cause!r} is a name"
    flows = result.flows
    loss_columns = [c for c in flows.columns if c.startswith("loss_")]
    assert (flows["sent"] == flows["delivered"] + flows[loss_columns].sum(axis=1) + flows["in_flight"]).all()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_flow_losses_match_node_drops(name: str, small_chain: Path) -> None:
    # With static routing and UDP every packet belongs to a flow, so what the
    # flows lost is what the nodes dropped, cause by cause.
    result = hoplab.run(SCENARIOS[name](small_chain), seed=4)
    flows, nodes = result.flows, result.nodes
    for cause in DROP_CAUSES:
        assert flows[f"loss_{cause}"].sum() == nodes[f"drop_{cause}"].sum(), cause


def test_lossy_channel_loses_packets(small_chain: Path) -> None:
    flow = hoplab.run(lossy_chain(small_chain), seed=4).to_dict()["flows"][0]
    assert sum(flow["losses"].values()) > 0 or flow["retransmissions"] > 0


def test_short_queues_overflow(small_chain: Path) -> None:
    flows = hoplab.run(short_queues(small_chain), seed=4).flows
    assert flows["loss_queue_overflow"].sum() > 0
