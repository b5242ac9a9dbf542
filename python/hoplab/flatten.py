"""The one flattening of a run report's per-flow and per-node rows.

`RunResult.flows` / `RunResult.nodes` (DataFrames) and a sweep's store (the
`scalars` table) both call `flatten_row`, so a DataFrame column and a
stored metric of the same quantity have the same name (docs/metrics.md):

- a map-valued field becomes one column per key, `<prefix><key>`:
  `losses` -> `loss_<cause>`, `ack_losses` -> `ack_loss_<cause>`, `drops`
  -> `drop_<cause>`, and any other map `<field>_<key>` (`frames_sent_rts`,
  `routing_messages_sent_rreq`);
- a receiver-aided flow's (TCP-RA) tables become one column per cell:
  `loss_classification` -> `classified_<true cause>_as_<verdict>`,
  `loss_grades` -> `graded_<true cause>_<grade>`;
- every other field keeps its name and value.

The DataFrames once named the routing columns `routing_sent_<message>`
while stores held `routing_messages_sent_<message>`; both now use the
store's name, so stores written before read unchanged (issue 31).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ALWAYS_KEYS", "MAP_PREFIXES", "TABLES", "classified_counts", "flatten_row", "map_prefix",
           "numeric_items", "table_column"]

#: Map-valued report fields whose columns are not named `<field>_<key>`.
MAP_PREFIXES: dict[str, str] = {"losses": "loss_", "ack_losses": "ack_loss_", "drops": "drop_"}

#: Map-valued fields whose every possible key gets a DataFrame column (0
#: when the run reported none): the loss causes (filled in by `hoplab.run`,
#: which reads the core's list).
ALWAYS_KEYS: tuple[str, ...] = ("losses", "ack_losses", "drops")


def map_prefix(field: str) -> str:
    """The prefix of the columns a map-valued report field becomes."""
    return MAP_PREFIXES.get(field, field + "_")


#: Report fields that are tables of counts (true cause -> column -> n):
#: (column prefix, separator between the true cause and the column).
TABLES: dict[str, tuple[str, str]] = {
    "loss_classification": ("classified_", "_as_"),
    "loss_grades": ("graded_", "_"),
}


def table_column(field: str, truth: str, column: str) -> str:
    """The column of cell (`truth`, `column`) of table field `field`
    (`loss_classification`: `classified_<truth>_as_<verdict>`, `loss_grades`:
    `graded_<truth>_<grade>`)."""
    prefix, separator = TABLES[field]
    return f"{prefix}{truth}{separator}{column}"


def classified_counts(row: Mapping[str, Any]) -> dict[str, int]:
    """A flow row's `loss_classification` and `loss_grades` as
    `classified_<truth>_as_<verdict>` and `graded_<truth>_<grade>` counts
    (empty for a flow without verdicts)."""
    counts: dict[str, int] = {}
    for field in TABLES:
        for truth, cells in (row.get(field) or {}).items():
            for column, n in cells.items():
                counts[table_column(field, truth, column)] = int(n)
    return counts


def flatten_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """One report row (a flow or a node) with its maps and tables flattened
    (see the module doc), in the row's order; a table that is null (a flow
    without verdicts) gives no columns."""
    flat: dict[str, Any] = {}
    for field, value in row.items():
        if field in TABLES:
            flat.update(classified_counts({field: value}))
        elif isinstance(value, Mapping):
            prefix = map_prefix(field)
            for key, count in value.items():
                flat[prefix + str(key)] = count
        else:
            flat[field] = value
    return flat


def numeric_items(row: Mapping[str, Any], skip: frozenset[str] = frozenset()) -> list[tuple[str, float]]:
    """The numeric values of `flatten_row(row)` as floats (booleans as 0 / 1),
    fields in `skip`, nulls and text left out: what the store keeps of a row."""
    out: list[tuple[str, float]] = []
    for name, value in flatten_row(row).items():
        if name in skip or value is None or not isinstance(value, (bool, int, float)):
            continue
        out.append((name, float(value)))
    return out
