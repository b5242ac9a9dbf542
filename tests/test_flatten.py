"""One report flattener: `RunResult.flows` / `.nodes` and a sweep's store
(`scalars`) name and count every flattened quantity the same way
(`hoplab.flatten.flatten_row`, docs/metrics.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import hoplab
from hoplab.flatten import ALWAYS_KEYS, flatten_row, map_prefix, numeric_items
from hoplab.run import DROP_CAUSES
from hoplab.store import Store

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: Columns identifying a row, not stored as metrics.
_IDENTITY = {"id", "src", "dst"}


def _short(name: str, seed: int) -> hoplab.Scenario:
    scenario = hoplab.load_scenario(EXAMPLES / f"{name}.toml")
    return scenario.set("duration_s", 4.0).set("warmup_s", 1.0).set("seed", seed)


def _numeric_columns(frame: pd.DataFrame) -> set[str]:
    """Numeric columns with a value in some row (a null is not stored)."""
    return {str(c) for c in frame.columns
            if pd.api.types.is_numeric_dtype(frame[c].dtype) and frame[c].notna().any()} - _IDENTITY


def _causes_never_reported(rows: list[dict[str, Any]]) -> set[str]:
    """The zero columns the DataFrame adds for loss causes no row reported
    (the store holds only what the run reported)."""
    return {map_prefix(field) + cause for field in ALWAYS_KEYS if any(field in row for row in rows)
            for cause in DROP_CAUSES if not any(cause in (row.get(field) or {}) for row in rows)}


# AODV (routing messages), TCP-RA (its tables), DSR, semi-TCP and a wired path.
@pytest.mark.parametrize("example", ["aodv-grid-11x7", "tcp-ra-chain-gilbert", "dsr-chain-7hop",
                                     "semitcp-chain-14hop", "wired-cum-wireless"])
def test_dataframes_and_the_store_have_the_same_columns_and_values(example: str, tmp_path: Path) -> None:
    scenario = _short(example, seed=5)
    result = hoplab.run(scenario)
    report = result.to_dict()
    hoplab.sweep(scenario, runs=1, store=tmp_path / "store", executor="serial")
    scalars = Store(tmp_path / "store").scalars()
    for part, entity in (("flows", "flow"), ("nodes", "node")):
        frame = getattr(result, part)
        stored = scalars[scalars["entity"] == entity]
        extra = _causes_never_reported(report[part])
        assert _numeric_columns(frame) == set(stored["metric"]) | extra, (part, example)
        assert extra.isdisjoint(set(stored["metric"]))
        assert (frame[sorted(extra)] == 0).all().all()
        by_id = frame.set_index("id")
        for ident, metric, value in zip(stored["id"], stored["metric"], stored["value"], strict=True):
            assert float(by_id.loc[ident, metric]) == pytest.approx(value, rel=0, abs=0), (part, ident, metric)


def test_routing_messages_keep_the_name_stores_already_hold() -> None:
    # Stores written before the flatteners were one hold these names: the
    # DataFrame now uses them too (it once said routing_sent_<message>).
    nodes = hoplab.run(_short("aodv-grid-11x7", seed=1)).nodes
    assert {f"routing_messages_sent_{m}" for m in ("rreq", "rrep", "rerr", "hello")} <= set(nodes.columns)
    assert not [c for c in nodes.columns if c.startswith("routing_sent_")]


def test_flatten_row_names_maps_and_tables() -> None:
    row = {"id": 3, "goodput_kbps": 1.5, "cc": "tcp_ra", "completion_s": None,
           "losses": {"retry_limit": 2}, "ack_losses": {"no_route": 1}, "drops": {"ttl": 4},
           "frames_sent": {"rts": 9}, "routing_messages_sent": {"rreq": 7}, "a_new_map": {"x": 1},
           "loss_classification": {"wireless": {"congestion": 0, "dubious": 2, "wireless": 5}},
           "loss_grades": None}
    assert flatten_row(row) == {
        "id": 3, "goodput_kbps": 1.5, "cc": "tcp_ra", "completion_s": None, "loss_retry_limit": 2,
        "ack_loss_no_route": 1, "drop_ttl": 4, "frames_sent_rts": 9, "routing_messages_sent_rreq": 7,
        "a_new_map_x": 1, "classified_wireless_as_congestion": 0, "classified_wireless_as_dubious": 2,
        "classified_wireless_as_wireless": 5}
    stored = dict(numeric_items(row, frozenset({"id"})))
    assert "cc" not in stored and "completion_s" not in stored and "id" not in stored
    assert stored["routing_messages_sent_rreq"] == 7.0 and stored["a_new_map_x"] == 1.0
