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

Every file is written to a temporary in its own folder first (created
exclusively under an unguessable name, `hoplab.paths.write_file`), flushed
to disk, then renamed into place (`os.replace`, atomic on POSIX), so a
reader never sees half a file. A batch writes its scalars and series files first and its runs file
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

One writer at a time: a sweep holds `STORE/.lock` (`fcntl.flock`, released
by the kernel when its holder dies, however it dies) from before it looks
up the finished runs until its last batch is written; a second sweep on the
same store waits for it, then runs only what is still missing. Holding the
lock, a sweep first removes what killed writers left: temporaries, the old
`.tmp/` folder, and scalars and series files whose batch has no runs file.

A run found in the store by a sweep that names its parameters differently
(one sweep varied `flows.0.packet_bytes`, the next `flows.0.cc`) gets a
`params/part-<batch>.parquet` row (run_id, batch, the parameters); the
views give every run every parameter any sweep gave it.

Views (DuckDB, `Store.query`): `runs`, `scalars` (joined with nothing; use
`run_id`), `series`, plus `runs_all` with every row ever written.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import pyarrow as pa

__all__ = ["RUN_COLUMNS", "SCALAR_COLUMNS", "SERIES_COLUMNS", "Store", "StoreLock", "StoreWriteError"]

#: Fixed columns of a runs row (parameter columns come in addition).
RUN_COLUMNS: tuple[str, ...] = (
    "run_id", "batch", "sweep", "scenario", "run", "seed", "version", "build", "config_hash", "params",
    "status", "error", "events", "sim_seconds", "wall_seconds", "sim_call_seconds", "task_seconds",
    "flows", "goodput_kbps", "mean_delay_ms", "jain_goodput", "finished_at",
)
SCALAR_COLUMNS: tuple[str, ...] = ("run_id", "batch", "entity", "id", "metric", "value")
SERIES_COLUMNS: tuple[str, ...] = ("run_id", "batch", "time_s", "entity", "id", "metric", "value")

_TABLES = ("runs", "scalars", "series", "params")

#: One run's scalars or series, as `hoplab.worker.execute` makes them:
#: {"names": [metric names], "entity": int8 (0 flow, 1 node), "id": int64,
#: "metric": int32 index into names, "value": float64[, "time_s": float64]}.
Block = dict[str, Any]


class StoreWriteError(OSError):
    """Finished runs that could not be written to the store (a full disk, a
    read-only remount): the message (`.strerror`) names the store, how many
    runs of the sweep it holds, how many were not written, and what to do."""


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
    DIRECTORIES: tuple[str, ...] = _TABLES

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

        from hoplab.paths import write_file

        folder = self.path / kind
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / f"part-{batch}.parquet"
        if os.path.lexists(final):  # batch ids are unique: never replace a committed file
            raise FileExistsError(f"{final} exists")
        write_file(final, lambda handle: pq.write_table(table, handle, compression="zstd"), "store")
        _fsync_dir(folder)

    def record_params(self, run_ids: Sequence[str], params: Sequence[Mapping[str, Any]],
                      param_keys: Sequence[str]) -> str:
        """Record that runs found in the store also have these parameters
        (a `params` file), unless every one of them already shows them all.
        Returns the batch id, or "" if nothing was written."""
        import pyarrow as pa

        keys = [k for k in param_keys if k not in RUN_COLUMNS]
        if not run_ids or not keys:
            return ""
        con = self.connect()
        try:
            have = {str(c[0]) for c in con.execute("DESCRIBE runs_all").fetchall()}
            if all(k in have for k in keys):
                known = pa.table({"run_id": list(run_ids)})
                con.register("known", known)
                nulls = " OR ".join(f"{_ident(k)} IS NULL" for k in keys)
                missing = con.execute(f"SELECT count(*) FROM runs_all r SEMI JOIN known k ON r.run_id = k.run_id "
                                      f"WHERE {nulls}").fetchone()
                if missing is not None and missing[0] == 0:
                    return ""
        finally:
            con.close()
        batch = f"{_now_tag()}-{uuid.uuid4().hex[:8]}"
        arrays = [pa.array(list(run_ids), type=pa.string()), pa.array([batch] * len(run_ids), type=pa.string())]
        arrays += [_param_array([row.get(k) for row in params]) for k in keys]
        self._write_table("params", batch, pa.Table.from_arrays(arrays, names=["run_id", "batch", *keys]))
        return batch

    def lock(self, on_wait: Callable[[int | None], None] | None = None, poll_s: float = 0.2,
             stop: Callable[[], None] | None = None) -> StoreLock:
        """The store's writer lock (`with store.lock(): ...`): waits while
        another process holds it, calling `on_wait(holder pid)` once, and
        `stop()` at every poll (it raises to give up: a sweep's SIGTERM)."""
        return StoreLock(self.path / ".lock", on_wait, poll_s, stop)

    def clean(self) -> int:
        """Remove what killed writers left (call holding `lock`): their
        temporaries, the old `.tmp/` folder, and scalars, series and params
        files whose batch has no runs file. Returns how many files."""
        from hoplab.paths import remove_stale_temporaries

        removed = sum(remove_stale_temporaries(self.path / kind) for kind in _TABLES)
        legacy = self.path / ".tmp"
        if legacy.is_dir() and not legacy.is_symlink():
            for entry in legacy.iterdir():
                if entry.name.endswith(".tmp") and entry.is_file() and not entry.is_symlink():
                    entry.unlink()
                    removed += 1
            try:
                legacy.rmdir()
            except OSError:
                pass
        batches = {_batch_of(f) for f in self.files("runs")}
        for kind in ("scalars", "series"):  # a params file is a batch of its own
            for orphan in (f for f in self.files(kind) if _batch_of(f) not in batches):
                orphan.unlink()
                removed += 1
        return removed

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
            con.execute(f"CREATE VIEW runs_all AS {_runs_all_sql(con, runs_files, self.files('params'))}")
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

    def run_columns(self) -> list[str]:
        """The columns of the `runs` view, in order ([] for an empty store)."""
        if not self.files("runs"):
            return []
        con = self.connect()
        try:
            return [str(c[0]) for c in con.execute("DESCRIBE runs").fetchall()]
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

    def runs_table(self, run_ids: Iterable[str]) -> pa.Table:
        """The runs view's rows of `run_ids` as an Arrow table: one read
        for several sweeps, each turned into its DataFrame (`to_pandas`) as
        `runs` would give it."""
        return self._select_table("runs", run_ids)

    def _select(self, view: str, run_ids: Iterable[str] | None) -> pd.DataFrame:
        frame: pd.DataFrame = self._select_table(view, run_ids).to_pandas()
        return frame

    def _select_table(self, view: str, run_ids: Iterable[str] | None) -> pa.Table:
        con = self.connect()
        try:
            if run_ids is None:
                return con.sql(f"SELECT * FROM {view}").to_arrow_table()
            import pandas as pd

            wanted = pd.DataFrame({"run_id": pd.Series(sorted(set(run_ids)), dtype="str")})
            con.register("wanted", wanted)
            return con.sql(f"SELECT v.* FROM {view} v SEMI JOIN wanted w ON v.run_id = w.run_id").to_arrow_table()
        finally:
            con.close()


def _listing(files: Sequence[Path]) -> str:
    return "read_parquet([" + ", ".join(_sql_string(str(f)) for f in files) + "], union_by_name = true)"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _runs_all_sql(con: duckdb.DuckDBPyConnection, runs_files: Sequence[Path], params_files: Sequence[Path]) -> str:
    """Every runs row, each parameter column filled from any row (runs or
    params) of the same run_id: a run shared by sweeps that varied
    different keys shows every parameter it has."""
    fixed = set(RUN_COLUMNS)
    columns = [str(c[0]) for c in con.execute(f"DESCRIBE SELECT * FROM {_listing(runs_files)}").fetchall()]
    params = [c for c in columns if c not in fixed]
    sources = [f"SELECT {', '.join(_ident(c) for c in ['run_id', *params])} FROM {_listing(runs_files)}"]
    if params_files:
        extra = [str(c[0]) for c in con.execute(f"DESCRIBE SELECT * FROM {_listing(params_files)}").fetchall()]
        extra = [c for c in extra if c not in fixed]
        params += [c for c in extra if c not in params]
        sources.append(f"SELECT {', '.join(_ident(c) for c in ['run_id', *extra])} FROM {_listing(params_files)}")
    if not params:
        return f"SELECT * FROM {_listing(runs_files)}"
    merged = (f"SELECT run_id, {', '.join(f'any_value({_ident(p)}) AS {_ident(p)}' for p in params)} "
              f"FROM ({' UNION ALL BY NAME '.join(sources)}) GROUP BY run_id")
    select = [f"m.{_ident(c)}" if c in params else f"r.{_ident(c)}" for c in columns]
    select += [f"m.{_ident(p)}" for p in params if p not in columns]
    return (f"SELECT {', '.join(select)} FROM {_listing(runs_files)} AS r "
            f"LEFT JOIN ({merged}) AS m ON r.run_id = m.run_id")


def _batch_of(path: Path) -> str:
    """The batch id of a committed file, `part-<batch>.parquet`."""
    return path.name[len("part-"):-len(".parquet")]


class StoreLock:
    """An exclusive `fcntl.flock` on a store's lock file, held from
    `__enter__` to `__exit__`. The kernel releases it when the holding
    process dies, so a killed sweep never blocks the next one; the file
    holds the holder's pid, for the waiting message only."""

    def __init__(self, path: Path, on_wait: Callable[[int | None], None] | None, poll_s: float,
                 stop: Callable[[], None] | None = None) -> None:
        self.path = path
        self._on_wait = on_wait
        self._poll_s = poll_s
        self._stop = stop
        self._fd: int | None = None

    def __enter__(self) -> StoreLock:
        import fcntl
        import time

        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.path, flags, 0o644)
        told = False
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if not told and self._on_wait is not None:
                        self._on_wait(_holder(fd))
                    told = True
                    if self._stop is not None:
                        self._stop()
                    time.sleep(self._poll_s)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = None


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
        return int(text) if text.isdigit() else None
    except (OSError, ValueError):
        return None


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
