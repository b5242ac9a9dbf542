"""The `hoplab` command: run, validate, schema, bench, sweep, reproduce, query.

Every bad input (a missing file, bad TOML, an unknown key, a wrong type, an
out-of-range value, a bad `--set`) ends the command with one line on stderr,
`error: <key>: <what is wrong and what is allowed>`, exit status 2, and
nothing on stdout. A failure of the simulation itself exits with 1. No
traceback reaches the user unless HOPLAB_DEBUG=1.

Start-up: each command imports what it needs when it runs (rich, pandas,
DuckDB, the executors and the paper modules are not imported by `hoplab
--help` or before `hoplab run` simulates, nor are pathlib and hoplab.paths
unless it writes a trace or a page; docs/performance.md, Start-up;
tests/test_startup.py checks the import graph), and a plain `hoplab run`
does not import this module at all: hoplab.command, where the command
starts, reads it and runs `run_command` itself. The commands are click's:
typer 0.29 converted every option through pydantic, whose import alone took
longer than the whole start-up now does; the option types and the words of
the usage errors are the ones the typer-made CLI had.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from hoplab import _core
from hoplab._core import ScenarioError
from hoplab.bench import BENCH_DESCRIPTIONS, BENCH_SCENARIOS, DEFAULT_ENGINE_EVENTS, DEFAULT_REPEAT
# The run command, the error reporting every command shares and the helpers of both live in
# hoplab.command, which runs a plain `hoplab run` without click.
from hoplab.command import (EXIT_SIMULATION_FAILED, InputError, _error, _memory_limit, _read_scenario, _stderr,
                            _stdout, _table, exit_command, failure_status, run_command)

__all__ = ["app", "main"]

def _printable(text: str) -> str:
    """`text` with terminal control characters escaped (\\x1b, \\x0a): an
    error stays one line whatever the user typed."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda match: f"\\x{ord(match[0]):02x}", text)


class _Command(click.Command):
    """A command whose extra arguments are refused in the words of the
    typer-made CLI before it (issue 30 moved it to click for start-up)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.allow_extra_args = True  # so that click leaves the refusal to us
        rest = super().parse_args(ctx, args)
        ctx.allow_extra_args = False
        if rest and not ctx.resilient_parsing:
            ctx.fail(f"Got unexpected extra argument(s) ({_printable(' '.join(rest))})")
        return rest


class _Group(click.Group):
    """The `hoplab` group: commands listed in the order they are defined."""

    command_class = _Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


class _Number(click.ParamType[Any, Any]):
    """An int or a float read as the command line had it before (typer 0.29's
    pydantic coercion, lax mode): surrounding blanks and `_` between digits
    allowed, ASCII digits only, an integer may end in `.0`; the same words
    when it is not one."""

    def __init__(self, kind: type[int] | type[float]) -> None:
        self.kind = kind
        self.name = "integer" if kind is int else "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, self.kind) and not isinstance(value, bool):
            return value
        text = str(value).strip()
        whole, dot, fraction = text.partition(".")
        if self.kind is int and dot and fraction and set(fraction) == {"0"}:
            text = whole  # "2.0" is 2; "2." and ".0" are not integers
        try:
            if text.isascii():
                return self.kind(text)
        except ValueError:
            pass
        self.fail(f"Input should be a valid {self.name}, unable to parse string as {'an' if self.kind is int else 'a'} "
                  f"{self.name}", param, ctx)


INTEGER = _Number(int)
NUMBER = _Number(float)

app = _Group(
    name="hoplab",
    help="hoplab: a fast, deterministic simulator of 802.11 multi-hop networks.",
    no_args_is_help=True,
)


_set_option = click.option(
    "--set", "-s", "set_", multiple=True, metavar="KEY=VALUE",
    help="Override a scenario key, e.g. --set flows.0.rate_kbps=200 (repeatable).")
_memory_limit_option = click.option(
    "--memory-limit", default="auto", show_default=True, metavar="SIZE",
    help="What a run may hold in memory: e.g. 2G, 512MiB, 'none', or 'auto' (half of the memory this process may "
         "use; a sweep shares it among its workers). A run past it stops naming what grew.")
_executor_option = click.option(
    "--executor", "-e", default="local", show_default=True, metavar="local|dask|serial",
    help="Where runs execute: local worker processes (default), a Dask cluster, or serially in this process.")
_jobs_option = click.option(
    "--jobs", "-j", type=INTEGER, metavar="J",
    help="Worker processes (default: all cores; for dask: LocalCluster workers).")
_scheduler_option = click.option(
    "--scheduler", metavar="ADDRESS",
    help="Dask scheduler address (tcp://host:8786); implies --executor dask.")
_run_timeout_option = click.option(
    "--run-timeout", type=NUMBER, metavar="SECONDS",
    help="Give a run up after this many wall-clock seconds (recorded as failed; retried by the next run of the "
         "command).")


@app.command()
@click.argument("scenario", help="Scenario file (TOML).")
@_set_option
@click.option("--seed", metavar="N", help="Run seed, an integer from 0 to 2^64-1 (overrides the file's seed).")
@click.option("--json", "json_", is_flag=True, help="Print the run report as JSON.")
@click.option("--series", is_flag=True, help="Include the time series in the JSON.")
@click.option("--pcap", metavar="PATH",
              help="Write a packet trace (pcap, radiotap + 802.11) of every frame put on the air; the scenario's "
                   "[trace] keys pick nodes, a time window, receive traces (PATH's stem + .rx<N>) and payloads.")
@_memory_limit_option
@click.option("--run-timeout", "--wall-limit", "run_timeout", metavar="SECONDS|none",
              help="Give the run up after this many wall-clock seconds (default 3600; 'none': no limit).")
@click.option("--record", is_flag=True, help="Record the run for `hoplab view` (the JSON's `recording`; docs/view.md).")
@click.option("--view", "view_path", metavar="PATH",
              help="Write the run's page (one self-contained HTML file; docs/view.md) to PATH.")
def run(scenario: str, set_: Sequence[str], seed: str | None, json_: bool, series: bool, pcap: str | None,
        memory_limit: str, run_timeout: str | None, record: bool, view_path: str | None) -> None:
    """Run one scenario and print a summary (or the JSON report)."""
    run_command(scenario, set_, seed, json_, series, pcap, memory_limit, run_timeout, record, view_path)


@app.command("view")
@click.argument("run_json", metavar="RUN.json", help="A recorded run's JSON report (hoplab run FILE --json --record).")
@click.option("--output", "-o", metavar="PATH", help="The page to write (default: RUN.json's name with .html).")
@click.option("--time", "time_s", type=NUMBER, metavar="SECONDS", help="Where the page's time cursor starts.")
def view_command(run_json: str, output: str | None, time_s: float | None) -> None:
    """Write a recorded run's page: one self-contained HTML file (docs/view.md)."""
    from pathlib import Path

    from hoplab.paths import check_output_file
    from hoplab.view import ViewError, load_run, view

    out = output if output is not None else str(Path(run_json).with_suffix(".html"))
    if out == run_json:
        raise InputError(f"--output: {out!r} is the run's JSON itself; give another path")
    if time_s is not None and not math.isfinite(time_s):
        raise InputError(f"--time: must be a number of seconds, got {time_s}")
    check_output_file(out, "--output")
    try:
        report = load_run(run_json)
    except ViewError as e:
        raise InputError(str(e)) from None
    view(report, out, start_s=time_s)
    sys.stdout.write(f"{out}\n")


@app.command()
@click.argument("scenario", help="Scenario file (TOML).")
@_set_option
@_memory_limit_option
def validate(scenario: str, set_: Sequence[str], memory_limit: str) -> None:
    """Check a scenario and print it normalised (every default filled) as JSON; on stderr, what a run
    of it will cost (events and memory, estimated without building it)."""
    loaded = _read_scenario(scenario, set_ or [], _memory_limit(memory_limit))
    normalised = loaded.validate(_memory_limit(memory_limit))
    _print_estimate(loaded.estimate(series=False), loaded.estimate(series=True)["memory_bytes"])
    sys.stdout.write(json.dumps(normalised, indent=2) + "\n")


def _print_estimate(estimate: Mapping[str, Any], with_series_bytes: int) -> None:
    from hoplab.limits import default_memory_limit_bytes

    def size(n: float) -> str:
        return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{max(n, 1e3) / 1e3:.0f} kB"

    parts = ", ".join(f"{p['what']} {size(p['bytes'])}" for p in estimate["parts"])
    limit = default_memory_limit_bytes()
    err = _stderr()
    err.print(f"estimate: ~{estimate['events']:.1e} events, ~{size(estimate['memory_bytes'])} "
              f"({parts}; {size(with_series_bytes)} with --series)"
              + (f"; default memory limit {size(limit)}" if limit else ""), highlight=False)


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files (draft 7), e.g. for an editor:
    taplo / Even Better TOML validate and complete TOML against it."""
    sys.stdout.write(_core.scenario_schema() + "\n")


_BENCH_HELP = ("Run the benchmarks, one core each: the engine micro-benchmark (schedule / cancel / pop), then 100 "
               "simulated seconds (--duration) of " + "; ".join(BENCH_DESCRIPTIONS[name] for name in BENCH_SCENARIOS)
               + ". Each runs --repeat times; the fastest run is reported.")


@app.command(help=_BENCH_HELP)
@click.option("--duration", type=NUMBER, metavar="S", help="Simulated seconds per scenario (default: the files' 100 s).")
@click.option("--engine-events", type=INTEGER, default=DEFAULT_ENGINE_EVENTS, show_default=True, metavar="N",
              help="Events of the engine micro-benchmark.")
@click.option("--repeat", type=INTEGER, default=DEFAULT_REPEAT, show_default=True, metavar="N",
              help="Runs of each benchmark; the fastest is reported.")
@click.option("--json", "json_", is_flag=True, help="Print the figures as JSON.")
@click.option("--profile-events", is_flag=True,
              help="Instead of timing, run each scenario once counting its events by kind and by whether they "
                   "changed any MAC decision, per frame put on the air (docs/performance.md).")
def bench(duration: float | None, engine_events: int, repeat: int, json_: bool, profile_events: bool) -> None:
    """The benchmarks (the help text is _BENCH_HELP, built from hoplab.bench)."""
    if duration is not None and not (duration > 0 and math.isfinite(duration)):
        raise InputError(f"--duration: must be a positive number of simulated seconds, got {duration}")
    if engine_events < 1:
        raise InputError(f"--engine-events: must be a positive integer, got {engine_events}")
    if repeat < 1:
        raise InputError(f"--repeat: must be a positive integer, got {repeat}")
    if profile_events:
        return _print_profiles(duration, json_)
    from hoplab.bench import run_benchmarks, sinr_cost_lines

    figures = run_benchmarks(duration_s=duration, engine_events=engine_events, repeat=repeat)
    if json_:
        document = {"version": _core.version(), "build_profile": _core.build_profile(), "benchmarks": figures}
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return
    table = _table(title=f"hoplab {_core.version()} benchmarks ({_core.build_profile()} build, one core, fastest of {repeat})",
                   title_justify="left")
    for column in ("benchmark", "simulated events", "frames", "events per frame", "wall s", "events/s",
                   "sim s per wall s", "us per frame"):
        table.add_column(column, justify="left" if column == "benchmark" else "right")
    for figure in figures:
        scenario = "sim_seconds" in figure
        per_wall = figure["sim_seconds_per_wall_second"]
        per_frame = f"{figure['us_per_frame']:,.2f}" if figure.get("us_per_frame") is not None else "-"
        per_frame_events = f"{figure['events_per_frame']:.1f}" if figure.get("events_per_frame") is not None else "-"
        table.add_row(
            figure["name"], f"{figure['events']:,}", f"{figure['frames']:,}" if scenario else "-", per_frame_events,
            f"{figure['wall_seconds']:.3f}",
            f"{figure['events_per_second'] / 1e6:,.2f} M", f"{per_wall:,.1f}" if scenario else "-", per_frame,
        )
    _stdout().print(table)
    for line in sinr_cost_lines(figures):
        _stdout().print(line, highlight=False, soft_wrap=True)


def _print_profiles(duration: float | None, json_: bool) -> None:
    """`hoplab bench --profile-events`: each scenario's events by kind and outcome."""
    from hoplab.bench import profile_benchmarks, profile_lines

    profiles = profile_benchmarks(duration_s=duration)
    if json_:
        sys.stdout.write(json.dumps({"version": _core.version(), "profiles": profiles}, indent=2) + "\n")
        return
    for profile in profiles:
        sys.stdout.write("\n".join(profile_lines(profile)) + "\n\n")


@app.command()
@click.option("--quick", is_flag=True, help="The quick subset (fewer checks and seeds; about a minute).")
@click.option("--json", "json_", is_flag=True, help="Print every row as JSON.")
@click.option("--only", multiple=True, metavar="NAME",
              help="A check, or a prefix of checks' names (repeatable), e.g. ns2-aodv.")
@click.option("--doc", metavar="PATH", help="Also write the table into PATH (docs/fidelity.md's generated part).")
@click.option("--regenerate", is_flag=True,
              help="First rerun the reference simulators (ns-2.35) that are installed here.")
def fidelity(quick: bool, json_: bool, only: Sequence[str], doc: str | None, regenerate: bool) -> None:
    """Cross-check hoplab's models against ns-2.35, ns-2.29 with semi-TCP, ns-3 3.44 and analytic models."""
    from pathlib import Path

    from hoplab.fidelity import CHECKS, run_checks
    from hoplab.fidelity import output as fidelity_output
    from hoplab.paths import check_output_file

    names = [c.name for c in CHECKS]
    for name in only or []:
        if not any(n == name or n.startswith(name) for n in names):
            raise InputError(f"--only: no check is named or starts with {name!r} (checks: {', '.join(names)})")
    if doc is not None:
        check_output_file(doc, "--doc")
    if regenerate:
        problem = fidelity_output.regenerate()
        if problem is not None:
            raise InputError(problem)
    console = _stdout()
    rows = run_checks(only, quick, progress=None if json_ else lambda r: console.print(
        f"{r.name}: {r.verdict} ({fidelity_output.deviation_text(r)})", highlight=False))
    if doc is not None:
        command = "hoplab fidelity" + (" --quick" if quick else "") + "".join(f" --only {o}" for o in only or [])
        fidelity_output.write_doc(Path(doc), rows, command)
    if json_:
        sys.stdout.write(json.dumps(fidelity_output.document(rows, _core.version(), quick), indent=2) + "\n")
        return
    table = _table(title=f"hoplab {_core.version()} fidelity", title_justify="left")
    for column in fidelity_output.HEADER:
        table.add_column(column, justify="left" if column in ("check", "what", "verdict") else "right")
    for cells in fidelity_output.table_rows(rows):
        table.add_row(*cells)
    console.print(table)


def _check_run_timeout(run_timeout: float | None) -> None:
    """Checked before anything is written (the sweep checks it again)."""
    from hoplab.campaign import check_run_timeout

    try:
        check_run_timeout(run_timeout)
    except ScenarioError as e:
        raise InputError(str(e).split(": ", 1)[-1]) from None


def _check_executor(executor: str, jobs: int | None, scheduler: str | None) -> str:
    from hoplab.executors import EXECUTORS

    if scheduler:
        if executor not in ("local", "dask"):
            raise InputError(f"--scheduler: only with --executor dask, not {executor!r}")
        executor = "dask"
    if executor not in EXECUTORS:
        raise InputError(f"--executor: unknown executor {executor!r} (choose from {', '.join(EXECUTORS)})")
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs: must be a positive integer, got {jobs}")
    return executor


@app.command()
@click.argument("scenario", help="Scenario file (TOML).")
@click.option("--vary", "-v", multiple=True, metavar="KEY=VALUES",
              help="A parameter and its values, KEY=V1,V2 or KEY=A..B:STEP, e.g. flows.0.rate_kbps=20..300:20 "
                   "(repeatable: the product).")
@click.option("--runs", "-n", type=INTEGER, default=1, show_default=True, metavar="N",
              help="Runs per point, numbers 0..N-1; run r has seed = scenario seed + r.")
@_executor_option
@_jobs_option
@_scheduler_option
@click.option("--store", metavar="DIR", help="Results store (Parquet); runs already there are skipped.")
@_set_option
@click.option("--series", is_flag=True, help="Keep the time series of every run.")
@click.option("--metric", default="goodput_kbps", show_default=True, metavar="COLUMN",
              help="Headline metric of the summary table: goodput_kbps, mean_delay_ms, jain_goodput, events, ...")
@_run_timeout_option
@_memory_limit_option
def sweep(scenario: str, vary: Sequence[str], runs: int, executor: str, jobs: int | None, scheduler: str | None,
          store: str | None, set_: Sequence[str], series: bool, metric: str, run_timeout: float | None,
          memory_limit: str) -> None:
    """Run a scenario over parameter values and runs; store every run; print mean and 95 % CI per point."""
    from hoplab.campaign import METRICS, SweepStats, default_store_path, parse_vary
    from hoplab.shutdown import EXIT_TERMINATED, SweepTerminated
    from hoplab.campaign import sweep as run_sweep
    from hoplab.stats import summarize

    if metric not in METRICS:
        raise InputError(f"--metric: {metric!r} is not a metric of the runs table; allowed: {', '.join(METRICS)}")
    executor = _check_executor(executor, jobs, scheduler)
    if runs < 1:
        raise InputError(f"--runs: must be a positive integer, got {runs}")
    _check_run_timeout(run_timeout)
    limit = _memory_limit(memory_limit)
    specs = [parse_vary(spec) for spec in vary or []]  # syntax errors before anything else
    loaded = _read_scenario(scenario, set_ or [])
    store_path = store if store is not None else str(default_store_path())
    from hoplab.store import Store

    Store(store_path).check("--store")  # before any run: a run that cannot be stored is lost
    stats = SweepStats()
    try:
        frame = run_sweep(loaded, vary=dict(specs), runs=runs, store=store_path, executor=executor, jobs=jobs,
                          scheduler=scheduler, series=series, progress=True, stats=stats,
                          run_timeout_s=run_timeout, memory_limit_bytes=limit)
    except KeyboardInterrupt:
        _error(f"interrupted: {stats.skipped + stats.executed} of {stats.total} runs are in the store "
               f"{store_path}; run the same command again to run only the missing ones")
        raise click.exceptions.Exit(130) from None
    except SweepTerminated:
        _error(f"terminated (SIGTERM): {stats.skipped + stats.executed} of {stats.total} runs are in the store "
               f"{store_path}; run the same command again to run only the missing ones")
        raise click.exceptions.Exit(EXIT_TERMINATED) from None
    console = _stdout()
    params = [key for key, _ in specs]
    ok = frame[frame["status"] == "ok"] if not frame.empty else frame
    table = _table(title=f"{loaded.name}: {metric}, mean and 95 % CI over runs", title_justify="left")
    for column in [*params, "runs ok", "mean", "± 95 % CI", "std"]:
        table.add_column(column, justify="right")
    if not ok.empty:
        values = ok.rename(columns={metric: "_value"}).assign(_all="all")
        summary = summarize(values, by=params or ["_all"], value="_value")
        for i in range(len(summary)):
            cells = [str(summary[p].iloc[i]) for p in params]
            mean, half, std = (float(summary[c].iloc[i]) for c in ("mean", "ci_half", "std"))
            table.add_row(*cells, str(int(summary["n"].iloc[i])), f"{mean:.3f}",
                          "-" if math.isnan(half) else f"{half:.3f}", "-" if math.isnan(std) else f"{std:.3f}")
    console.print(table)
    console.print(
        f"{stats.total} runs: {stats.executed} executed, {stats.skipped} already in the store, {stats.failed} failed  "
        f"·  {stats.wall_seconds:.1f} s wall on {stats.workers} worker(s)",
        highlight=False,
    )
    console.print(f"store: {store_path}  (hoplab query {store_path} \"SELECT ... FROM runs\")", highlight=False)
    if stats.failed:
        raise click.exceptions.Exit(EXIT_SIMULATION_FAILED)


@app.command()
@click.argument("paper", required=False, help="Paper id (see --list).")
@click.option("--quick", is_flag=True, help="Fewer points and runs, shorter runs: minutes.")
@click.option("--runs", "-n", type=INTEGER, metavar="N", help="Runs per point (default: the paper module's).")
@click.option("--out", "-o", metavar="DIR", help="Output directory (default reports/PAPER or reports/PAPER-quick).")
@click.option("--list", "list_", is_flag=True, help="List the papers that can be reproduced.")
@_executor_option
@_jobs_option
@_scheduler_option
@_run_timeout_option
def reproduce(paper: str | None, quick: bool, runs: int | None, out: str | None, list_: bool, executor: str,
              jobs: int | None, scheduler: str | None, run_timeout: float | None) -> None:
    """Run a paper's experiments and write a report (Markdown + HTML) with every figure and a verdict per finding."""
    from hoplab.papers import available, get_paper
    from hoplab.report import check_out_dir, check_settings, default_out_dir
    from hoplab.report import reproduce as run_reproduce
    from hoplab.shutdown import EXIT_TERMINATED, SweepTerminated

    if list_:
        console = _stdout()
        table = _table(title="Papers hoplab reproduces", title_justify="left")
        for column in ("paper", "title", "figures"):
            table.add_column(column)
        for paper_id in available():
            entry = get_paper(paper_id)
            table.add_row(paper_id, entry.title, ", ".join(f.id for f in entry.figures))
        console.print(table)
        return
    if paper is None:
        raise InputError("reproduce: give a PAPER (one of: " + ", ".join(available()) + "), or --list")
    try:
        chosen = get_paper(paper)
    except ValueError as e:
        raise InputError(str(e)) from None
    executor = _check_executor(executor, jobs, scheduler)
    if runs is not None and runs < 1:
        raise InputError(f"--runs: must be a positive integer, got {runs}")
    _check_run_timeout(run_timeout)
    check_settings(chosen, quick, runs)
    check_out_dir(out if out is not None else default_out_dir(chosen.id, quick), "--out")
    err = _stderr()
    try:
        result = run_reproduce(chosen, out, quick=quick, runs=runs, executor=executor, jobs=jobs,
                               scheduler=scheduler, progress=True, run_timeout_s=run_timeout,
                               log=lambda message: err.print(message, highlight=False))
    except KeyboardInterrupt:
        _error("interrupted: finished runs are in the store; run the same command again to resume")
        raise click.exceptions.Exit(130) from None
    except SweepTerminated:
        _error("terminated (SIGTERM): finished runs are in the store; run the same command again to resume")
        raise click.exceptions.Exit(EXIT_TERMINATED) from None
    console = _stdout()
    from hoplab.papers.verdicts import MIN_RUNS

    # The verdicts, once (the progress on stderr does not repeat them).
    table = _table(title=f"{chosen.id}: findings (holds: every point agrees, paired 95 % CIs, "
                        f"at least {MIN_RUNS} runs; the report states the rule)", title_justify="left")
    table.add_column("figure", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("why")
    for figure in chosen.figures:
        figure_result = result.figures[figure.id]
        table.add_row(figure.id, str(figure_result.outcome), figure_result.verdict)
    console.print(table)
    console.print(f"report: {result.html}  (Markdown: {result.markdown}; figures, CSV and the run store beside it)",
                  highlight=False)


_QUERY_DEFAULT = "SELECT status, count(*) AS runs FROM runs GROUP BY status"


@app.command()
@click.argument("store", help="Results store directory.")
@click.argument("sql", default=_QUERY_DEFAULT,
                help=f"DuckDB SQL over the views runs, scalars, series (and runs_all); default: {_QUERY_DEFAULT}")
@click.option("--csv", is_flag=True, help="Print CSV instead of a table.")
def query(store: str, sql: str, csv: bool) -> None:
    """Query a results store with SQL (DuckDB). SQL NULL shows as NULL (empty in CSV); NaN as nan."""
    import duckdb

    from hoplab.stats import QUERY_DIGITS, display_cell
    from hoplab.store import Store

    if not os.path.isdir(store):
        raise InputError(f"store {store!r}: " + ("is a file, not a directory" if os.path.exists(store)
                                                   else "no such directory"))
    con = Store(store).connect()
    try:
        relation = con.sql(sql)
        result = relation.to_arrow_table() if relation is not None else None
    except duckdb.Error as e:
        raise InputError(f"SQL: {str(e).splitlines()[0]}") from None
    finally:
        con.close()
    names = [str(n) for n in result.column_names] if result is not None else []
    # Display only (the store keeps every value exact); None is SQL NULL.
    columns = [[display_cell(v, QUERY_DIGITS) for v in result.column(n).to_pylist()] for n in names] if names else []
    rows = list(zip(*columns, strict=True))
    if csv:
        import csv as csv_module

        writer = csv_module.writer(sys.stdout, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([["" if v is None else v for v in row] for row in rows])
        return
    table = _table(title_justify="left")
    for name in names:
        table.add_column(name, justify="right")
    for row in rows:
        table.add_row(*["NULL" if v is None else v for v in row])
    _stdout().print(table)


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        sys.stdout.write(f"hoplab {_core.version()}\n")
        ctx.exit(0)


app.params.append(click.Option(["--version"], is_flag=True, expose_value=False, is_eager=True,
                               callback=_print_version, help="Print the version and exit."))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `hoplab` command (exits with its status)."""
    exit_command(_main(argv), argv)


def _usage_message(error: click.ClickException) -> str:
    """click's words for a usage error; an unknown option's as the typer-made
    CLI before issue 30 said it ("No such option: --jsn (Possible options: --json)")."""
    if not isinstance(error, click.NoSuchOption):
        return error.format_message()
    message = f"No such option: {_printable(error.option_name)}"
    if error.possibilities:
        message += f" (Possible options: {', '.join(sorted(error.possibilities))})"
    return message


def _main(argv: Sequence[str] | None) -> int:
    # click's exceptions are none of the others (ScenarioError, OSError, SimulationError, ...), so they are
    # caught first; every other one is reported as `hoplab run` reports it without click.
    try:
        status = app(args=list(argv) if argv is not None else None, prog_name="hoplab", standalone_mode=False)
        return status if isinstance(status, int) else 0
    except click.exceptions.NoArgsIsHelpError as e:  # `hoplab` alone: its help, on stdout
        sys.stdout.write(e.format_message() + "\n")
        return e.exit_code
    except click.ClickException as e:  # click's usage errors: bad option, missing argument, ...
        _error(_usage_message(e))
        return e.exit_code
    except click.Abort:
        return 1
    except (Exception, KeyboardInterrupt) as e:
        return failure_status(e)
