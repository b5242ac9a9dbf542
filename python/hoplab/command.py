"""The `hoplab` command's entry point, and its `run` command without click.

`python -m hoplab` and the `hoplab` script start here. A plain `hoplab run
FILE` (the options `--json`, `--series`, `--set`/`-s`, `--seed`,
`--memory-limit`, `--run-timeout`/`--wall-limit`, each written as its own
word followed by its value) is read here and run by `run_command`, the
function click's `run` command calls too; any other command line, any
other option or spelling, goes to click (`hoplab.cli`), which would have
read this one the same way. click and the command definitions cost ~17 ms
of each run's start-up on the 2-core machine, a third of what `hoplab run`
spends outside the simulation (docs/performance.md, Start-up); with this,
a run imports neither (tests/test_startup.py checks the import graph, and
tests/test_cli.py that both ways give the same output and status).

Every bad input ends the command with one line on stderr, `error: <key>:
<what is wrong and what is allowed>`, exit status 2, and nothing on
stdout; a failure of the simulation itself exits with 1 (`failure_status`,
which hoplab.cli uses for every command).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from hoplab._core import ScenarioError, SimulationError
from hoplab.scenario import check_seed, load_scenario, parse_value

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from hoplab.limits import MemoryLimit
    from hoplab.scenario import Scenario

__all__ = ["EXIT_BAD_INPUT", "EXIT_SIMULATION_FAILED", "InputError", "exit_command", "failure_status", "main",
           "run_command"]

EXIT_BAD_INPUT = 2
EXIT_SIMULATION_FAILED = 1


class InputError(Exception):
    """Bad input that is not about a scenario key (e.g. an unreadable file)."""


def _error(message: str) -> None:
    sys.stderr.write(f"error: {message}\n")


def _raised_by(error: BaseException, module: str, name: str) -> bool:
    """Whether `error` is `module.name` (or a subclass); a module not yet
    imported raised nothing, so the check imports nothing."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(error, getattr(loaded, name))


def failure_status(error: BaseException) -> int:
    """Write the one line for `error`, which a command raised, to stderr and
    return the command's exit status (the module's doc): 2 for bad input,
    1 for a failed simulation or a bug (its traceback with HOPLAB_DEBUG=1),
    130 for an interrupt. click's own errors are hoplab.cli's to report."""
    if isinstance(error, (ScenarioError, InputError)):
        _error(str(error))
        return EXIT_BAD_INPUT
    if isinstance(error, OSError):
        if _raised_by(error, "hoplab.store", "StoreWriteError"):  # the disk, not the input: its own words, exit 1
            _error(str(error.strerror))
            return EXIT_SIMULATION_FAILED
        # A file or directory the command needed: one line, as any bad input.
        where = f"{error.filename!r}: " if error.filename else ""
        _error(f"{where}{(error.strerror or str(error)).lower()}")
        return EXIT_BAD_INPUT
    if isinstance(error, SimulationError):
        _error(str(error))
        return EXIT_SIMULATION_FAILED
    if isinstance(error, KeyboardInterrupt):
        _error("interrupted")
        return 130
    if _raised_by(error, "hoplab.paths", "OutputPathError"):  # bad input, as a ScenarioError
        _error(str(error))
        return EXIT_BAD_INPUT
    if _raised_by(error, "hoplab.executors", "ExecutorError"):
        _error(str(error))
        return EXIT_SIMULATION_FAILED
    if os.environ.get("HOPLAB_DEBUG"):
        import traceback

        traceback.print_exception(error)
    _error(f"internal error: {type(error).__name__}: {error} (set HOPLAB_DEBUG=1 for the traceback)")
    return 1


def _read_scenario(path: str, overrides: Sequence[str], memory_limit: MemoryLimit = "auto") -> Scenario:
    try:
        return load_scenario(path, overrides, memory_limit)
    except IsADirectoryError:
        raise InputError(f"cannot read scenario file {path!r}: it is a directory (give a .toml file)") from None
    except UnicodeDecodeError:
        raise InputError(f"cannot read scenario file {path!r}: not UTF-8 text (give a .toml file)") from None
    except OSError as e:
        raise InputError(f"cannot read scenario file {path!r}: {e.strerror or e}") from None


def _stdout() -> Console:
    from rich.console import Console

    # Wide enough for the tables when stdout is not a terminal (pipes, tests).
    return Console(width=None if sys.stdout.isatty() else 160, soft_wrap=False)


def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)


def _table(**options: Any) -> Table:
    """A rich Table (rich is imported by the commands that print one)."""
    from rich.table import Table

    return Table(**options)


def _counts(counts: Mapping[str, int]) -> str:
    """`{"retry_limit": 3, "queue_overflow": 0}` -> "retry_limit 3"; "-" if none."""
    parts = [f"{cause} {count}" for cause, count in sorted(counts.items()) if count]
    return ", ".join(parts) if parts else "-"


def _print_summary(report: Mapping[str, Any]) -> None:
    console = _stdout()
    wall_s = max(float(report["wall_seconds"]), 1e-12)
    console.print(
        f"[bold]{report['name']}[/bold]  ·  seed {report['seed']}  ·  {report['sim_seconds']:g} s simulated  ·  "
        f"hoplab {report['version']}  ·  config {report['config_hash']}",
        highlight=False,
    )
    console.print(
        f"{report['events']:,} events in {report['wall_seconds']:.3f} s wall  ·  "
        f"{report['events'] / wall_s / 1e6:.2f} M events/s  ·  {report['sim_seconds'] / wall_s:,.1f} sim s per wall s",
        highlight=False,
    )

    flows = _table(title="Flows", title_justify="left")
    for column in ("flow", "src→dst", "hops", "transport", "offered kbps", "goodput kbps", "delay ms",
                   "sent", "delivered", "in flight", "losses"):
        flows.add_column(column, justify="left" if column in ("transport", "losses") else "right")
    for f in report["flows"]:
        variant = f.get("cc") or (f.get("rate_control") if f.get("rate_control") not in (None, "none") else None)
        transport = f["transport"] + (f"/{variant}" if variant else "") + f" {f['app']}"
        flows.add_row(
            str(f["id"]), f"{f['src']}→{f['dst']}", str(f["hops"]), transport,
            f"{f['offered_kbps']:.1f}", f"{f['goodput_kbps']:.1f}", f"{f['mean_delay_ms']:.2f}",
            str(f["sent"]), str(f["delivered"]), str(f["in_flight"]), _counts(f["losses"]),
        )
    console.print(flows)

    tcp_flows = [f for f in report["flows"] if f["transport"] in ("tcp", "semitcp")]
    if tcp_flows:
        tcp = _table(title="TCP and semi-TCP", title_justify="left")
        for column in ("flow", "cc / rate control", "source rate kbps", "retransmissions", "timeouts",
                       "fast retransmits", "ACKs sent", "ACKs delivered", "ACK losses", "completed s"):
            tcp.add_column(column, justify="left" if column in ("cc / rate control", "ACK losses") else "right")
        for f in tcp_flows:
            completed = f.get("completion_s")
            rate = f.get("rate_kbps")
            tcp.add_row(
                str(f["id"]), str(f.get("cc") or f.get("rate_control")), "-" if rate is None else f"{rate:.1f}",
                str(f["retransmissions"]), str(f["timeouts"]),
                str(f["fast_retransmits"]), str(f["acks_sent"]), str(f["acks_delivered"]),
                _counts(f["ack_losses"]), "-" if completed is None else f"{completed:.3f}",
            )
        console.print(tcp)

    nodes = _table(title="Nodes", title_justify="left")
    hop_control = any(n.get("rtsc_sent") or n.get("ctsc_sent") for n in report["nodes"])
    columns = ["node", "APR", "DATA att/pkt", "MST ms", "RTS sent", "RTS dropped", "DATA dropped", "queue mean"]
    if hop_control:
        columns += ["RTSC", "RTSC ratio", "CTSC", "congested"]
    for column in (*columns, "drops"):
        nodes.add_column(column, justify="left" if column == "drops" else "right")
    idle = 0
    for n in report["nodes"]:
        if not n["rts_sent"] and not n["packets_served"] and not any(n["drops"].values()) \
                and not any(n.get("frames_sent", {}).values()):
            idle += 1
            continue
        hop_cells = [str(n["rtsc_sent"]), f"{n['rtsc_ratio']:.2f}", str(n["ctsc_sent"]),
                     f"{n['congested_fraction']:.2f}"] if hop_control else []
        nodes.add_row(
            str(n["id"]), f"{n['rts_attempts_per_packet']:.3f}", f"{n['data_attempts_per_packet']:.3f}",
            f"{n['mac_service_time_ms']:.2f}", str(n["rts_sent"]), str(n["rts_dropped"]),
            str(n["data_dropped"]), f"{n['queue_mean']:.2f}", *hop_cells, _counts(n["drops"]),
        )
    console.print(nodes)
    if idle:
        console.print(f"({idle} node(s) sent nothing and are not shown; --json has every node)", highlight=False)


def _memory_limit(text: str) -> MemoryLimit:
    from hoplab.limits import parse_memory_limit

    try:
        return parse_memory_limit(text)
    except ValueError as e:
        raise InputError(str(e)) from None


def _run_budget(text: str | None) -> float | None:
    """`--run-timeout` of `hoplab run`: seconds, 'none', or the default budget."""
    from hoplab.limits import DEFAULT_RUN_TIMEOUT_S

    if text is None:
        return DEFAULT_RUN_TIMEOUT_S
    if text.strip().lower() == "none":
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds < 1e9):
        raise InputError(f"--run-timeout: must be a positive number of seconds or 'none', got {text!r}")
    return seconds


def _notice_estimate(loaded: Scenario, series: bool, wall_limit: float | None) -> None:
    """Above ESTIMATE_NOTICE_EVENTS estimated events, say so on stderr before the run starts."""
    from hoplab.limits import ESTIMATE_NOTICE_EVENTS

    events = float(loaded.estimate(series=series)["events"])
    if events <= ESTIMATE_NOTICE_EVENTS:
        return
    low, high = events / 10e6, events / 3e6  # 3-10 M events per second (docs/timings.md)
    budget = (f"it stops after {wall_limit:g} s of wall-clock time (--run-timeout SECONDS or none)"
              if wall_limit is not None else "no wall-clock limit (--run-timeout none)")
    _stderr().print(
        f"estimate: ~{events:.1e} events, about {_duration(low)} to {_duration(high)} of wall-clock time; "
        f"{budget}", highlight=False)


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:,.3g} {unit}"
    return f"{seconds:.3g} s"


def run_command(scenario: str, set_: Sequence[str], seed: str | None, json_: bool, series: bool, pcap: str | None,
                memory_limit: str, run_timeout: str | None, record: bool, view_path: str | None) -> None:
    """`hoplab run`: run one scenario and print a summary (or the JSON report)."""
    from hoplab.run import run as run_scenario

    # `--seed X` is read as `--set seed=X` is, so the same X gets the same words.
    seed_value = check_seed(parse_value(seed.strip())) if seed is not None else None
    limit = _memory_limit(memory_limit)
    wall_limit = _run_budget(run_timeout)
    loaded = _read_scenario(scenario, set_ or [], limit)
    if pcap is not None or view_path is not None:
        from hoplab.paths import check_output_file

        if pcap is not None:
            check_output_file(pcap, "--pcap")
        if view_path is not None:
            check_output_file(view_path, "--view")
    _notice_estimate(loaded, series, wall_limit)
    try:
        result = run_scenario(loaded, seed=seed_value, series=series, pcap=pcap, memory_limit_bytes=limit,
                              wall_limit_s=wall_limit, record=record or view_path is not None)
    except SimulationError as e:
        if "wall-clock limit" in str(e) and run_timeout is None:
            raise SimulationError(f"{e} (the default budget of hoplab run; --run-timeout SECONDS or none "
                                  "lifts it)") from None
        raise
    if view_path is not None:
        from hoplab.view import view as write_view

        write_view(result, view_path)
    if json_:
        sys.stdout.write(result.to_json() + "\n")
    else:
        # The summary only reads the report: the parse --view's page made, or the first one (to_dict's deep
        # copy took 40 ms with --series).
        _print_summary(result._report)
        if view_path is not None:
            sys.stdout.write(f"view: {view_path}\n")


def exit_command(status: int, argv: Sequence[str] | None) -> NoReturn:
    """End the process with `status` (`sys.exit`), as `main` here and in
    hoplab.cli do. When the process is the `hoplab run` command (`argv` is
    None: the command line is sys.argv), every object alive now is first
    left out of the interpreter's last garbage collections (gc.freeze): the
    run is over and the process ends, so they would only walk the ten
    thousand or more objects the imports made (about 5 ms of a `hoplab
    run`; docs/performance.md, Start-up). The interpreter still flushes
    stdout and runs its exit handlers; only reference cycles left now go
    unreclaimed, as the process's memory is returned whole. A caller of
    `main(argv)` in its own process, or of `hoplab.run`, never has its
    objects frozen."""
    if argv is None and sys.argv[1:2] == ["run"]:
        import gc

        gc.freeze()
    sys.exit(status)


#: `hoplab run`'s options read here: flags, and options taking one value
#: (to their parameter of `run_command`; `--set` may be repeated).
_RUN_FLAGS = {"--json": "json_", "--series": "series"}
_RUN_VALUES = {"--set": "set_", "-s": "set_", "--seed": "seed", "--memory-limit": "memory_limit",
               "--run-timeout": "run_timeout", "--wall-limit": "run_timeout"}


def _plain_run(args: Sequence[str]) -> dict[str, Any] | None:
    """`run_command`'s arguments if `args` is a plain `run` command line (the
    module's doc), else None: then click reads it. A value or a file name
    that starts with "-", a repeated option other than --set, `--opt=value`,
    `--`, an unknown option or a missing value all go to click."""
    if not args or args[0] != "run" or os.environ.get("_HOPLAB_COMPLETE"):  # click's shell completion
        return None
    options: dict[str, Any] = {"set_": [], "seed": None, "json_": False, "series": False, "pcap": None,
                               "memory_limit": "auto", "run_timeout": None, "record": False, "view_path": None}
    given: set[str] = set()
    files: list[str] = []
    words = iter(args[1:])
    for word in words:
        if word in _RUN_FLAGS:
            options[_RUN_FLAGS[word]] = True
        elif word in _RUN_VALUES:
            name, value = _RUN_VALUES[word], next(words, None)
            if value is None or value.startswith("-") or (name != "set_" and name in given):
                return None
            given.add(name)
            if name == "set_":
                options["set_"].append(value)
            else:
                options[name] = value
        elif word and not word.startswith("-"):
            files.append(word)
        else:
            return None
    if len(files) != 1:
        return None
    return {"scenario": files[0], **options}


def _run_plain(options: Mapping[str, Any]) -> int:
    """Run `run_command(**options)` and return the exit status, as click's
    `run` command would have ended: an interrupt in the command is click's
    Abort (a new line on stderr, status 1), a closed pipe on stdout its quiet
    exit with status 1, anything else `failure_status`."""
    import errno

    try:
        try:
            run_command(**options)
        except (EOFError, KeyboardInterrupt):
            sys.stderr.write("\n")  # click.echo(file=sys.stderr), then click.Abort: status 1
            sys.stderr.flush()
            return 1
        except OSError as e:
            if e.errno != errno.EPIPE:
                raise
            # The reader is gone: status 1 and nothing on stderr, as click's EPIPE handling ends. What is left in
            # stdout's buffer goes to /dev/null, so the flush at exit raises nothing (the recipe of the Python
            # docs, library/signal.html, "Note on SIGPIPE").
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 1
        return 0
    except (Exception, KeyboardInterrupt) as e:
        return failure_status(e)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `hoplab` command (exits with its status): a plain
    `hoplab run` here, anything else through click (`hoplab.cli.main`)."""
    options = _plain_run(list(argv) if argv is not None else sys.argv[1:])
    if options is not None:
        exit_command(_run_plain(options), argv)
    from hoplab.cli import main as click_main

    click_main(argv)
