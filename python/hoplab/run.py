"""One run: `run(scenario, seed)` -> `RunResult`.

The core returns the run report as JSON (DESIGN.md, "Command line",
`--json`); `RunResult` keeps that text as it is (`to_json`) and offers it
as a dict (`to_dict`) and as pandas DataFrames:

- `flows`: one row per flow. The `losses` map is flattened into one integer
  column per cause, `loss_<cause>` (e.g. `loss_retry_limit`); every cause
  of DESIGN.md has a column (0 when none), plus any other cause the run
  reported. So per flow: sent == delivered + sum of loss_* + in_flight.
  TCP ACKs are counted apart: acks_sent == acks_delivered + sum of
  ack_loss_* + acks_in_flight.
  A receiver-aided flow's (TCP-RA) `loss_classification` becomes
  `classified_<true cause>_as_<verdict>` columns and its `loss_grades`
  `graded_<true cause>_<grade>` columns (nullable integers: <NA> for flows
  that give no verdicts).
- `nodes`: one row per node. `drops` become `drop_<cause>` columns (same
  rule), `frames_sent` becomes `frames_sent_<kind>` columns and
  `routing_messages_sent` `routing_messages_sent_<message>` columns (AODV:
  `rreq`, `rrep`, `rerr`, `hello`; none under static routing).

Flows and nodes are flattened by `hoplab.flatten.flatten_row`, the function
a sweep's store uses: a column here is a metric of the store's `scalars`
table of the same name.
- `queues`: one row per interface queue (each 802.11 interface's, each
  direction of each wired link's): `node`, `to` (nullable integer: <NA>
  for an 802.11 interface), `discipline`, `mean_packets`, `early_drops`,
  `overflow_drops`, and the discipline's parameters in effect as
  `param_<name>` float columns (NaN where a discipline has none).
- `series`: the long-format time series, one row per
  (time_s, entity, id, metric, value); empty (with those columns) unless
  the run was made with `series=True`.

Wide columns keep one row per flow or node, which is what summaries and
per-run comparisons want; for a tidy table of causes use
`df.melt(id_vars="id", value_vars=[c for c in df if c.startswith("loss_")])`.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hoplab import _core
from hoplab.flatten import ALWAYS_KEYS, TABLES, classified_counts, flatten_row, map_prefix, table_column
from hoplab.limits import AUTO, MemoryLimit, check_memory_limit, resolve_memory_limit
from hoplab.scenario import Scenario, check_seed, load_scenario

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CLASSIFIED_COLUMNS", "DROP_CAUSES", "GRADED_COLUMNS", "LOSS_GRADES", "LOSS_TRUE_CAUSES", "LOSS_VERDICTS",
           "REPORT_FIELDS", "RunResult", "classified_counts", "run"]

#: Every cause of a dropped packet (docs/metrics.md, "Loss causes"), as the
#: core names them.
DROP_CAUSES: tuple[str, ...] = tuple(_core.drop_causes())

SERIES_COLUMNS = ("time_s", "entity", "id", "metric", "value")

_LOSS_NAMES: dict[str, list[str]] = _core.loss_classification_names()
#: TCP-RA's loss classification (docs/metrics.md, "Loss classification"),
#: as the core names it, in report order: the simulator's true causes, the
#: receiver's verdicts and its congestion grades (seed 001 section 2.1).
LOSS_TRUE_CAUSES: tuple[str, ...] = tuple(_LOSS_NAMES["true_causes"])
LOSS_VERDICTS: tuple[str, ...] = tuple(_LOSS_NAMES["verdicts"])
LOSS_GRADES: tuple[str, ...] = tuple(_LOSS_NAMES["grades"])

#: A flow's `loss_classification` (true cause -> verdict -> count) becomes
#: these columns, in this order.
CLASSIFIED_COLUMNS: tuple[str, ...] = tuple(
    table_column("loss_classification", truth, verdict) for truth in LOSS_TRUE_CAUSES for verdict in LOSS_VERDICTS)

#: A flow's `loss_grades` (true cause -> grade -> count) becomes these.
GRADED_COLUMNS: tuple[str, ...] = tuple(
    table_column("loss_grades", truth, grade) for truth in LOSS_TRUE_CAUSES for grade in LOSS_GRADES)

#: Each table field's columns (`hoplab.flatten.TABLES`), in order.
_TABLE_COLUMNS: dict[str, tuple[str, ...]] = {"loss_classification": CLASSIFIED_COLUMNS,
                                              "loss_grades": GRADED_COLUMNS}

#: The report's field names of each part ("run", "routing", "flows",
#: "nodes", "queues", "series"), as the core reports them.
REPORT_FIELDS: dict[str, list[str]] = _core.report_fields()

#: Map-valued fields of flows and nodes: (the prefix of their columns,
#: `hoplab.flatten.map_prefix`; the keys that always get a column).
_FLATTENED: dict[str, tuple[str, tuple[str, ...]]] = {
    field: (map_prefix(field), DROP_CAUSES if field in ALWAYS_KEYS else ())
    for field in ("losses", "ack_losses", "drops", "frames_sent", "routing_messages_sent")
}


def _empty_columns(part: str) -> list[str]:
    """The columns of a flows or nodes DataFrame without rows."""
    fields = REPORT_FIELDS[part]
    columns = [f for f in fields if f not in _FLATTENED and f not in TABLES]
    columns += [prefix + key for field, (prefix, always) in _FLATTENED.items() if field in fields
                for key in sorted(always)]
    columns += [column for field, table in _TABLE_COLUMNS.items() if field in fields for column in table]
    return columns


def _flatten(rows: list[dict[str, Any]], part: str) -> pd.DataFrame:
    """Rows of the report's `part` ("flows" or "nodes") to a DataFrame, each
    row flattened by `hoplab.flatten.flatten_row` (the store's flattening);
    a loss cause no row reported still gets its column (0), a table no row
    carries its nullable columns (<NA>); no rows give the columns all the same."""
    import pandas as pd

    if not rows:
        return pd.DataFrame(columns=_empty_columns(part))
    flat = [flatten_row(row) for row in rows]
    found = dict.fromkeys(f for row in rows for f, v in row.items() if isinstance(v, Mapping) and f not in TABLES)
    maps = [*(f for f in _FLATTENED if f in found), *(f for f in found if f not in _FLATTENED)]
    tables = [field for field in TABLES if field in REPORT_FIELDS[part]]
    plain = [name for name in dict.fromkeys(n for row in rows for n in row) if name not in maps and name not in TABLES]
    frame = pd.DataFrame([{name: row.get(name) for name in plain if name in row} for row in rows], columns=plain)
    for field in maps:
        prefix, always = _FLATTENED.get(field, (map_prefix(field), ()))
        keys = sorted(set(always).union(*(r.get(field, {}).keys() for r in rows)))
        for key in keys:
            frame[prefix + key] = pd.Series([int(f.get(prefix + key, 0)) for f in flat], dtype="int64")
    for field in tables:
        for column in _TABLE_COLUMNS[field]:
            frame[column] = pd.Series([f.get(column) for f in flat], dtype="Int64")
    return frame


def _queue_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The report's `queues` as a DataFrame (see module doc)."""
    import pandas as pd

    scalars = [f for f in REPORT_FIELDS["queues"] if f != "params"]
    frame = pd.DataFrame([{k: row.get(k) for k in scalars} for row in rows], columns=scalars)
    frame["to"] = pd.Series([row.get("to") for row in rows], dtype="Int64")
    for column in ("node", "early_drops", "overflow_drops"):
        frame[column] = frame[column].astype("int64")
    frame["mean_packets"] = frame["mean_packets"].astype("float64")
    names = sorted(set().union(*(row.get("params", {}).keys() for row in rows)))
    for name in names:
        frame[f"param_{name}"] = pd.Series([row.get("params", {}).get(name) for row in rows], dtype="float64")
    return frame


class RunResult:
    """The outcome of one run: the report JSON, as text, dict and DataFrames."""

    def __init__(self, report_json: str) -> None:
        self._json = report_json
        self._parsed: dict[str, Any] | None = None

    @property
    def _report(self) -> dict[str, Any]:
        """The report as a dict, parsed on first use: `hoplab run --json`
        prints the text and needs none (parsing a run with its series or
        recording takes 4-17 ms; docs/performance.md, Start-up)."""
        if self._parsed is None:
            self._parsed = json.loads(self._json)
        return self._parsed

    # Scalars of the run.
    @property
    def name(self) -> str:
        return str(self._report["name"])

    @property
    def seed(self) -> int:
        return int(self._report["seed"])

    @property
    def version(self) -> str:
        return str(self._report["version"])

    @property
    def config_hash(self) -> str:
        return str(self._report["config_hash"])

    @property
    def events(self) -> int:
        return int(self._report["events"])

    @property
    def sim_seconds(self) -> float:
        return float(self._report["sim_seconds"])

    @property
    def wall_seconds(self) -> float:
        return float(self._report["wall_seconds"])

    # Tables.
    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow; `losses` as `loss_<cause>` columns."""
        return _flatten(self._report["flows"], "flows")

    @property
    def nodes(self) -> pd.DataFrame:
        """One row per node; `drops` as `drop_<cause>`, `frames_sent` as `frames_sent_<kind>`."""
        return _flatten(self._report["nodes"], "nodes")

    @property
    def queues(self) -> pd.DataFrame:
        """One row per interface queue; `params` as `param_<name>` float columns."""
        return _queue_frame(self._report.get("queues") or [])

    @property
    def series(self) -> pd.DataFrame:
        """Long-format time series (empty unless run with `series=True`)."""
        import pandas as pd

        rows = self._report.get("series") or []
        if not rows:
            return pd.DataFrame({column: pd.Series(dtype=dtype) for column, dtype in zip(
                SERIES_COLUMNS, ("float64", "str", "int64", "str", "float64"), strict=True)})
        return pd.DataFrame(rows, columns=list(SERIES_COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        """The report as a dict, equal to `json.loads(self.to_json())` (a copy)."""
        return copy.deepcopy(self._report)

    def to_json(self) -> str:
        """The report JSON exactly as the core produced it (`hoplab run --json`)."""
        return self._json

    def __repr__(self) -> str:
        return (
            f"RunResult(name={self.name!r}, seed={self.seed}, flows={len(self._report['flows'])}, "
            f"nodes={len(self._report['nodes'])}, events={self.events})"
        )


def run(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    seed: int | None = None,
    series: bool = False,
    wall_limit_s: float | None = None,
    pcap: str | os.PathLike[str] | None = None,
    memory_limit_bytes: MemoryLimit = AUTO,
    record: bool = False,
) -> RunResult:
    """Run one scenario and return its RunResult.

    `scenario` is a Scenario, a scenario dict, or the path of a scenario
    file. `seed` (0 <= seed < 2**64) overrides the scenario's seed; the
    same scenario and seed give the same report, byte for byte, except
    `wall_seconds`. `series` adds the time series. `wall_limit_s` gives the
    run up after that many wall-clock seconds (SimulationError; ValueError
    naming `wall_limit_s` unless it is a positive number). `pcap` writes a
    packet trace of the run to that file (pcap, radiotap + 802.11;
    docs/traces.md), holding what the scenario's `[trace]` section selects;
    the file appears only if the run succeeds (OutputPathError naming
    `pcap` if it cannot be written there, OSError if writing fails).
    `memory_limit_bytes` bounds what the run may hold ("auto": half of the
    memory this process may use, `hoplab.limits`; None: no limit): a run
    that would not fit fails before it starts, or as it grows, with a
    SimulationError naming what grew and what to change. `record` adds
    the recording `hoplab view` draws (the report's `recording`,
    docs/view.md; bounded, and it changes nothing simulated).
    Raises ScenarioError (naming the key) for an invalid scenario and
    SimulationError if the simulation fails.
    """
    if isinstance(scenario, (str, os.PathLike)):
        scenario = load_scenario(scenario)
    elif not isinstance(scenario, Scenario):
        scenario = Scenario(scenario)
    if seed is not None:
        check_seed(seed)
    if "seed" in scenario.data:
        check_seed(scenario.data["seed"])
    memory_limit = resolve_memory_limit(check_memory_limit(memory_limit_bytes))
    if pcap is None:
        return RunResult(_core.simulate(scenario.to_json(), seed, series, wall_limit_s,
                                        memory_limit_bytes=memory_limit, record=record))
    from hoplab.paths import check_output_file, remove_stale_temporaries  # with pathlib, only for a trace

    check_output_file(pcap, "pcap")
    remove_stale_temporaries(os.path.dirname(os.path.realpath(pcap)))  # what killed runs left
    return RunResult(_core.simulate(scenario.to_json(), seed, series, wall_limit_s, pcap=os.fspath(pcap),
                                    memory_limit_bytes=memory_limit, record=record))
