"""The results store: Parquet files in a directory, queried with DuckDB.

Embedded, no server. OMNeT++'s split between scalars and vectors is kept:

```
STORE/
  runs/part-<batch>.parquet      one row per run: run_id, parameters, run,
                                 seed, version, build, config_hash, status
                                 ("ok" | "failed"), error, timings, headline
                                 metrics (total goodput, mean delay, Jain)
  scalars/part-<batch>.parquet   tidy per-run scalars: run_id, entity
                                 ("flow" | "node"), id, metric, value
  series/part-<batch>.parquet    long time series: run_id, time_s, entity,
                                 id, metric, value
```

Every file is written to `STORE/.tmp/` first, flushed to disk, then renamed
into place (`os.replace`, atomic on POSIX), so a reader never sees half a
file. A batch writes its scalars and series files first and its runs file
last; a run exists only once its runs row does, and the views below ignore
scalars and series rows whose batch has no runs file (what a crash between
the renames leaves). Nothing is ever rewritten in place.

Identity: `run_id` is a hash of (version, build, config_hash, seed). The
`config_hash` is the core's (the normalised scenario without its seed) and
`build` fingerprints the compiled simulator, so a changed code version or
configuration is a different run. A run is skipped by a sweep when the store
holds an "ok" row with its run_id; failed runs are recorded (status,
error) and tried again by the next sweep. If a run_id has several rows (a
failure, then a success), the views keep the ok one, else the latest.

Views (DuckDB, `Store.query`): `runs`, `scalars` (joined with nothing; use
`run_id`), `series`, plus `runs_all` with every row ever written.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import pyarrow as pa

__all__ = ["RUN_COLUMNS", "SCALAR_COLUMNS", "SERIES_COLUMNS", "Store"]

#: Fixed columns of a runs row (parameter columns come in addition).
RUN_COLUMNS: tuple[str, ...] = (
    "run_id", "batch", "sweep", "scenario", "run", "seed", "version", "build", "config_hash", "params",
    "status", "error", "events", "sim_seconds", "wall_seconds", "sim_call_seconds", "task_seconds",
    "flows", "goodput_kbps", "mean_delay_ms", "jain_goodput", "finished_at",
)
SCALAR_COLUMNS: tuple[str, ...] = ("run_id", "batch", "entity", "id", "metric", "value")
SERIES_COLUMNS: tuple[str, ...] = ("run_id", "batch", "time_s", "entity", "id", "metric", "value")

_TABLES = ("runs", "scalars", "series")

#: One run's scalars or series, as `hoplab.campaign.execute` makes them:
#: {"names": [metric names], "entity": int8 (0 flow, 1 node), "id": int64,
#: "metric": int32 index into names, "value": float64[, "time_s": float64]}.
Block = dict[str, Any]


def _run_schema_fields() -> list[tuple[str, Any]]:
    import pyarrow as pa

    return [
        ("run_id", pa.string()), ("batch", pa.string()), ("sweep", pa.string()), ("scenario", pa.string()),
        ("run", pa.int64()), ("seed", pa.uint64()), ("version", pa.string()), ("build", pa.string()),
        ("config_hash", pa.string()), ("params", pa.string()), ("status", pa.string()), ("error", pa.string()),
        ("events", pa.int64()), ("sim_seconds", pa.float64()), ("wall_seconds", pa.float64()),
        ("sim_call_seconds", pa.float64()), ("task_seconds", pa.float64()), ("flows", pa.int64()),
        ("goodput_kbps", pa.float64()), ("mean_delay_ms", pa.float64()), ("jain_goodput", pa.float64()),
        ("finished_at", pa.timestamp("us", tz="UTC")),
    ]


def _scalar_schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema([("run_id", pa.string()), ("batch", pa.string()), ("entity", pa.string()),
                      ("id", pa.int64()), ("metric", pa.string()), ("value", pa.float64())])


def _series_schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema([("run_id", pa.string()), ("batch", pa.string()), ("time_s", pa.float64()),
                      ("entity", pa.string()), ("id", pa.int64()), ("metric", pa.string()),
                      ("value", pa.float64())])


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Store:
    """A results store in directory `path` (created on first write)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    #: Directories a store writes into (created by `prepare`).
    DIRECTORIES: tuple[str, ...] = (*_TABLES, ".tmp")

    def check(self, key: str = "store") -> None:
        """Raise `hoplab.paths.OutputPathError` (naming `key`) unless this
        store's directory is, or can be made, a writable directory with no
        file where one of its folders belongs. Leaves nothing behind."""
        from hoplab.paths import check_output_dir

        check_output_dir(self.path, key, self.DIRECTORIES)

    def prepare(self, key: str = "store") -> None:
        """`check`, then create the store's directories: once this returns,
        writing a batch cannot fail for a path (only for the disk itself).
        Sweeps call it before their first run."""
        from hoplab.paths import OutputPathError

        self.check(key)
        try:
            for name in self.DIRECTORIES:
                (self.path / name).mkdir(parents=True, exist_ok=True)
        except OSError as e:  # a race with another process: still one clear error
            raise OutputPathError(key, self.path, f"cannot create it: {(e.strerror or str(e)).lower()}") from None

    # Writing.
    def write_batch(
        self,
        runs: Sequence[Mapping[str, Any]],
        scalars: Sequence[tuple[str, Block]] = (),
        series: Sequence[tuple[str, Block]] = (),
        param_keys: Sequence[str] = (),
    ) -> str:
        """Write one batch atomically; returns its batch id.

        `runs` are runs rows (RUN_COLUMNS without `batch`, plus one column
        per parameter key); `scalars` and `series` are (run_id, Block)
        pairs. Order: scalars, series, then runs (see the module doc).
        """
        import pyarrow as pa

        if not runs:
            return ""
        batch = f"{_now_tag()}-{uuid.uuid4().hex[:8]}"
        if scalars:
            self._write_table("scalars", batch, _blocks_table(scalars, batch, _scalar_schema(), False))
        if series:
            self._write_table("series", batch, _blocks_table(series, batch, _series_schema(), True))
        fields = _run_schema_fields()
        data: dict[str, list[Any]] = {name: [row.get(name) for row in runs] for name, _ in fields}
        data["batch"] = [batch] * len(runs)
        arrays = [pa.array(data[name], type=type_) for name, type_ in fields]
        names = [name for name, _ in fields]
        for key in param_keys:
            if key in data:
                continue
            arrays.append(_param_array([row.get(key) for row in runs]))
            names.append(key)
        self._write_table("runs", batch, pa.Table.from_arrays(arrays, names=names))
        return batch

    def _write_table(self, kind: str, batch: str, table: pa.Table) -> None:
        import pyarrow.parquet as pq

        folder = self.path / kind
        folder.mkdir(parents=True, exist_ok=True)
        tmp_dir = self.path / ".tmp"
        tmp_dir.mkdir(parents=True, exist_ok=True)
        final = folder / f"part-{batch}.parquet"
        tmp = tmp_dir / f"{kind}-{batch}.parquet.tmp"
        try:
            with open(tmp, "wb") as handle:
                pq.write_table(table, handle, compression="zstd")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(folder)

    # Reading.
    def files(self, kind: str) -> list[Path]:
        """The committed Parquet files of `kind` ("runs", "scalars", "series")."""
        folder = self.path / kind
        return sorted(folder.glob("part-*.parquet")) if folder.is_dir() else []

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection with the views `runs`, `runs_all`,
        `scalars` and `series` over this store's files."""
        import duckdb

        con = duckdb.connect(":memory:")
        runs_files = self.files("runs")
        if runs_files:
            listing = "[" + ", ".join(_sql_string(str(f)) for f in runs_files) + "]"
            con.execute(f"CREATE VIEW runs_all AS SELECT * FROM read_parquet({listing}, union_by_name = true)")
        else:
            columns = ", ".join(f"CAST(NULL AS {_duck_type(t)}) AS \"{n}\"" for n, t in _run_schema_fields())
            con.execute(f"CREATE VIEW runs_all AS SELECT {columns} WHERE false")
        con.execute(
            "CREATE VIEW runs AS SELECT * FROM runs_all QUALIFY row_number() OVER ("
            "PARTITION BY run_id ORDER BY (status = 'ok') DESC, finished_at DESC, batch DESC) = 1"
        )
        for kind, schema in (("scalars", _scalar_schema()), ("series", _series_schema())):
            files = self.files(kind)
            if files:
                listing = "[" + ", ".join(_sql_string(str(f)) for f in files) + "]"
                source = f"read_parquet({listing}, union_by_name = true)"
            else:
                columns = ", ".join(f"CAST(NULL AS {_duck_type(f.type)}) AS \"{f.name}\"" for f in schema)
                source = f"(SELECT {columns} WHERE false)"
            con.execute(
                f"CREATE VIEW {kind} AS SELECT x.* FROM {source} AS x "
                f"SEMI JOIN runs AS r ON x.run_id = r.run_id AND x.batch = r.batch"
            )
        return con

    def query(self, sql: str, params: Sequence[Any] | None = None) -> pd.DataFrame:
        """Run SQL over the views (see `connect`); return a DataFrame."""
        con = self.connect()
        try:
            return _frame(con, sql, params)
        finally:
            con.close()

    def done_ids(self, run_ids: Iterable[str] | None = None) -> set[str]:
        """run_ids that have an "ok" row (optionally only among `run_ids`)."""
        if not self.files("runs"):
            return set()
        con = self.connect()
        try:
            rows = con.execute("SELECT DISTINCT run_id FROM runs_all WHERE status = 'ok'").fetchall()
        finally:
            con.close()
        done = {str(r[0]) for r in rows}
        return done if run_ids is None else done.intersection(run_ids)

    def runs(self, run_ids: Iterable[str] | None = None) -> pd.DataFrame:
        """The runs view as a DataFrame (only `run_ids` if given)."""
        return self._select("runs", run_ids)

    def scalars(self, run_ids: Iterable[str] | None = None) -> pd.DataFrame:
        """Tidy scalars (run_id, entity, id, metric, value)."""
        return self._select("scalars", run_ids)

    def series(self, run_ids: Iterable[str] | None = None) -> pd.DataFrame:
        """Long time series (run_id, time_s, entity, id, metric, value)."""
        return self._select("series", run_ids)

    def _select(self, view: str, run_ids: Iterable[str] | None) -> pd.DataFrame:
        con = self.connect()
        try:
            if run_ids is None:
                return _frame(con, f"SELECT * FROM {view}")
            import pandas as pd

            wanted = pd.DataFrame({"run_id": pd.Series(sorted(set(run_ids)), dtype="str")})
            con.register("wanted", wanted)
            return _frame(con, f"SELECT v.* FROM {view} v SEMI JOIN wanted w ON v.run_id = w.run_id")
        finally:
            con.close()


def _blocks_table(blocks: Sequence[tuple[str, Block]], batch: str, schema: pa.Schema, timed: bool) -> pa.Table:
    """Concatenate per-run blocks into one table (string columns built from
    dictionaries and numpy indices: no per-row Python objects)."""
    import numpy as np
    import pyarrow as pa

    names: dict[str, int] = {}
    run_index, entity, ident, metric, value, times = [], [], [], [], [], []
    for i, (_, block) in enumerate(blocks):
        lookup = np.asarray([names.setdefault(n, len(names)) for n in block["names"]] or [0], dtype=np.int32)
        count = len(block["value"])
        run_index.append(np.full(count, i, dtype=np.int32))
        entity.append(block["entity"].astype(np.int32))
        ident.append(block["id"])
        metric.append(lookup[block["metric"]] if count else np.zeros(0, dtype=np.int32))
        value.append(block["value"])
        if timed:
            times.append(block["time_s"])

    def text(indices: list[Any], dictionary: list[str]) -> pa.Array:
        joined = np.concatenate(indices) if indices else np.zeros(0, dtype=np.int32)
        return pa.DictionaryArray.from_arrays(pa.array(joined, type=pa.int32()), pa.array(dictionary, type=pa.string())
                                              ).cast(pa.string())

    total = sum(len(v) for v in value)
    columns: dict[str, pa.Array] = {
        "run_id": text(run_index, [run_id for run_id, _ in blocks]),
        "batch": pa.array([batch] * 1, type=pa.string()).take(pa.array(np.zeros(total, dtype=np.int32))),
        "entity": text(entity, ["flow", "node"]),
        "id": pa.array(np.concatenate(ident) if ident else np.zeros(0, dtype=np.int64), type=pa.int64()),
        "metric": text(metric, list(names)),
        "value": pa.array(np.concatenate(value) if value else np.zeros(0), type=pa.float64()),
    }
    if timed:
        columns["time_s"] = pa.array(np.concatenate(times) if times else np.zeros(0), type=pa.float64())
    return pa.Table.from_arrays([columns[f.name] for f in schema], schema=schema)


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] | None = None) -> pd.DataFrame:
    """A query's result as a DataFrame, through Arrow (DuckDB's own `.df()`
    uses pandas API that pandas 3.1 deprecates)."""
    relation = con.sql(sql, params=list(params)) if params is not None else con.sql(sql)
    if relation is None:  # a statement without a result
        import pandas as pd

        return pd.DataFrame()
    frame: pd.DataFrame = relation.to_arrow_table().to_pandas()
    return frame


def _param_array(values: list[Any]) -> pa.Array:
    """One parameter column: numbers stay numbers, anything mixed becomes text."""
    import pyarrow as pa

    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.array(values, type=pa.bool_())
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.array(values, type=pa.int64())
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    return pa.array([None if v is None else (v if isinstance(v, str) else _param_text(v)) for v in values],
                    type=pa.string())


def _param_text(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True)


def _duck_type(arrow_type: Any) -> str:
    import pyarrow as pa

    if pa.types.is_string(arrow_type):
        return "VARCHAR"
    if pa.types.is_uint64(arrow_type):
        return "UBIGINT"
    if pa.types.is_integer(arrow_type):
        return "BIGINT"
    if pa.types.is_floating(arrow_type):
        return "DOUBLE"
    if pa.types.is_timestamp(arrow_type):
        return "TIMESTAMPTZ"
    return "VARCHAR"


def _now_tag() -> str:
    import datetime

    return datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%f")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
