"""The `hoplab` command as a user sees it: output, errors, exit status."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest

from conftest import SMALL_CHAIN, run_cli
from hoplab.command import _RUN_FLAGS, _RUN_VALUES, _plain_run

FLOW_KEYS = {"id", "src", "dst", "transport", "cc", "goodput_kbps", "mean_delay_ms", "sent", "delivered",
             "retransmissions", "losses"}
NODE_KEYS = {"id", "rts_sent", "rts_attempts_per_packet", "data_attempts_per_packet", "rts_dropped", "rtsc_sent",
             "ctsc_sent", "mac_service_time_ms", "queue_mean", "drops"}
RUN_KEYS = {"flows", "nodes", "events", "sim_seconds", "wall_seconds", "version", "config_hash"}


def test_run_json_has_the_design_keys(small_chain: Path, workdir: Path) -> None:
    done = run_cli("run", str(small_chain), "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert RUN_KEYS <= report.keys()
    assert len(report["flows"]) == 1 and len(report["nodes"]) == 5
    assert FLOW_KEYS <= report["flows"][0].keys()
    for node in report["nodes"]:
        assert NODE_KEYS <= node.keys()
    flow = report["flows"][0]
    assert (flow["src"], flow["dst"], flow["transport"]) == (0, 4, "udp")
    assert flow["delivered"] > 0 and flow["goodput_kbps"] > 0
    assert report["sim_seconds"] == 5.0 and report["events"] > 0
    assert "series" not in report
    assert list(workdir.iterdir()) == []


def test_run_prints_a_readable_summary(small_chain: Path, workdir: Path) -> None:
    done = run_cli("run", str(small_chain), cwd=workdir)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "small-chain" in out and "seed 1" in out
    for heading in ("Flows", "goodput kbps", "delay ms", "delivered", "losses",
                    "Nodes", "APR", "MST ms", "RTS sent", "RTS dropped", "queue mean", "drops"):
        assert heading in out, heading
    assert re.search(r"0→4", out)
    assert done.stderr == ""


def test_run_series_adds_the_time_series(small_chain: Path, workdir: Path) -> None:
    done = run_cli("run", str(small_chain), "--json", "--series", cwd=workdir)
    assert done.returncode == 0, done.stderr
    series = json.loads(done.stdout)["series"]
    assert series and {"time_s", "entity", "id", "metric", "value"} <= series[0].keys()


def test_set_and_seed_override_the_file(small_chain: Path, workdir: Path) -> None:
    done = run_cli("run", str(small_chain), "--json", "--seed", "7",
                   "--set", "duration_s=3", "--set", "flows.0.packet_bytes=256", cwd=workdir)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["seed"] == 7 and report["sim_seconds"] == 3.0
    assert report["flows"][0]["packet_bytes"] == 256


def test_validate_prints_the_normalised_scenario(small_chain: Path, workdir: Path) -> None:
    done = run_cli("validate", str(small_chain), "--set", "mac.queue_packets=20", cwd=workdir)
    assert done.returncode == 0, done.stderr
    normalised = json.loads(done.stdout)
    assert normalised["mac"]["queue_packets"] == 20
    assert normalised["mac"]["short_retry_limit"] == 7  # a default, filled
    assert normalised["radio"]["data_rate_mbps"] == 2.0
    assert normalised["flows"][0]["dst"] == 4


def test_schema_prints_the_scenario_json_schema(small_chain: Path, workdir: Path) -> None:
    done = run_cli("schema", cwd=workdir)
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert schema["required"] == ["topology"] and schema["additionalProperties"] is False
    normalised = json.loads(run_cli("validate", str(small_chain), cwd=workdir).stdout)
    assert set(normalised) <= set(schema["properties"]), "the schema names every top-level key"
    # Only [queue] is left out of a normalised scenario, at its default
    # (drop-tail), so that older scenarios keep their config hash.
    assert set(schema["properties"]) - set(normalised) == {"queue"}
    assert list(workdir.iterdir()) == [], "nothing is written"


def test_schema_takes_no_argument(workdir: Path) -> None:
    done = run_cli("schema", "scenario.toml", cwd=workdir)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1, done.stderr


def test_version_and_entry_point(workdir: Path) -> None:
    script = Path(sys.executable).with_name("hoplab")
    assert script.exists(), "the hoplab console script is installed next to python"
    done = subprocess.run([str(script), "--version"], cwd=workdir, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("hoplab ")


# Each class of bad input: (file content or None for no file, extra args,
# what the one-line message must contain).
BAD_INPUTS = {
    "missing file": (None, [], ["cannot read scenario file", "No such file"]),
    "bad TOML": ("name = \n[topology\n", [], ["invalid TOML", "line"]),
    "TOML cut short": ('name = "x"\nduration_s = [1,\n', [], ["invalid TOML", "(at line 2, column 17: the end of the file)"]),
    "memory limit too small": (SMALL_CHAIN, ["--memory-limit", "10"], ["--memory-limit", "'none' (no limit)", "got 10 bytes"]),
    "unknown key": (SMALL_CHAIN + "\n[mac]\nretry = 3\n", [], ["mac.retry", "unknown key", "short_retry_limit"]),
    "wrong type": (SMALL_CHAIN.replace("nodes = 5", 'nodes = "five"'), [], ["topology.nodes", "must be an integer"]),
    "out of range": (SMALL_CHAIN + "\n[mac]\nqueue_packets = 0\n", [], ["mac.queue_packets", "must be an integer from 1 to 1000000, got 0"]),
    "packet_bytes negative": (SMALL_CHAIN.replace("packet_bytes = 512", "packet_bytes = -1"), [],
                              ["flows[0].packet_bytes: must be an integer from 1 to 65000, got -1"]),
    "packet_bytes too large": (SMALL_CHAIN.replace("packet_bytes = 512", "packet_bytes = 100000"), [],
                               ["flows[0].packet_bytes: must be an integer from 1 to 65000, got 100000"]),
    "packet_bytes fractional": (SMALL_CHAIN.replace("packet_bytes = 512", "packet_bytes = 1.5"), [],
                                ["flows[0].packet_bytes: must be an integer from 1 to 65000, got 1.5"]),
    "queue negative": (SMALL_CHAIN + "\n[mac]\nqueue_packets = -1\n", [],
                       ["mac.queue_packets: must be an integer from 1 to 1000000, got -1"]),
    "no such node": (SMALL_CHAIN.replace("dst = 4", "dst = 9"), [], ["flows[0].dst", "does not exist"]),
    "unreachable flow": (SMALL_CHAIN.replace("spacing_m = 200.0", "spacing_m = 300.0"), [], ["flows[0]"]),
    "missing topology": ('name = "x"\n', [], ["topology"]),
    "unknown --set key": (SMALL_CHAIN, ["--set", "radio.bogus_m=1"], ["radio.bogus_m", "unknown key"]),
    "wrong --set type": (SMALL_CHAIN, ["--set", "mac.queue_packets=lots"], ["mac.queue_packets", "must be an integer"]),
    "--set out of range": (SMALL_CHAIN, ["--set", "warmup_s=9"], ["warmup_s", "below duration_s"]),
    "bad --set syntax": (SMALL_CHAIN, ["--set", "duration_s"], ["KEY=VALUE"]),
    "bad --set key": (SMALL_CHAIN, ["--set", "flows..src=1"], ["flows..src", "not a valid key"]),
    "--set index out of range": (SMALL_CHAIN, ["--set", "flows.5.rate_kbps=10"], ["flows[5]", "indices 0 to 0"]),
    "--set into a value": (SMALL_CHAIN, ["--set", "duration_s.x=1"], ["duration_s.x", "not a table"]),
    "negative seed": (SMALL_CHAIN, ["--seed", "-1"], ["seed: must be an integer from 0 to 18446744073709551615, got -1"]),
    "non-numeric seed": (SMALL_CHAIN, ["--seed", "one"], ["seed: must be an integer from 0 to 18446744073709551615"]),
    "seed past 2^64 - 1": (SMALL_CHAIN, ["--seed", "18446744073709551616"], ["seed: must be an integer from 0 to "]),
    "--set seed=2**70": (SMALL_CHAIN, ["--set", "seed=2**70"], ["seed: must be an integer from 0 to 18446744073709551615",
                                                               "'2**70'"]),
    "--set a seed too large": (SMALL_CHAIN, ["--set", f"seed={2**70}"], ["seed: must be an integer from 0 to ", str(2**70)]),
    "seed in the file": (SMALL_CHAIN.replace("seed = 1", "seed = 1.5"), [], ["seed: must be an integer from 0 to "]),
    "unknown option": (SMALL_CHAIN, ["--bogus"], ["--bogus"]),
}


@pytest.mark.parametrize(
    ("command", "case"),
    [("run", case) for case in BAD_INPUTS]
    + [("validate", case) for case in BAD_INPUTS if "--seed" not in BAD_INPUTS[case][1]],  # validate takes no --seed
)
def test_bad_input_is_one_clear_line_and_status_2(command: str, case: str, tmp_path: Path, workdir: Path) -> None:
    content, extra, expected = BAD_INPUTS[case]
    path = tmp_path / "scenario.toml"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    done = run_cli(command, str(path), "--json" if command == "run" else "--set=name=x", *extra, cwd=workdir)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == "", "nothing is printed on stdout on error"
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in done.stderr
    for text in expected:
        assert text in lines[0], (text, lines[0])
    assert not re.search(r"\d\.\.=?\d", lines[0]), f"a range in Rust's syntax: {lines[0]}"
    assert list(workdir.iterdir()) == [], "nothing is written"


def test_messages_use_the_command_line_words(small_chain: Path, workdir: Path) -> None:
    """`none`, not Python's `None`, for --memory-limit; from Python, `None`."""
    done = run_cli("run", str(small_chain), "--memory-limit", "1k", cwd=workdir)
    assert done.returncode == 2 and "None" not in done.stderr and "'none'" in done.stderr, done.stderr
    from hoplab.limits import check_memory_limit

    with pytest.raises(ValueError, match=r"None \(no limit\) or 'auto', got 10$"):
        check_memory_limit(10)


@pytest.mark.parametrize("command", ["", "run", "validate", "schema", "bench", "sweep", "reproduce", "query"])
def test_help_fits_80_columns_with_every_example_whole(command: str, workdir: Path) -> None:
    """At 80 columns no help text is cut ("…") and no bracket is eaten as
    markup: the examples a user copies are there in one piece."""
    env = {k: v for k, v in os.environ.items() if k not in ("HOPLAB_DEBUG", "NO_COLOR")} | {"COLUMNS": "80"}
    done = subprocess.run([sys.executable, "-m", "hoplab", *([command] if command else []), "--help"], cwd=workdir,
                          capture_output=True, text=True, env=env, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout, done.stdout
    assert all(len(line) <= 80 for line in done.stdout.splitlines()), done.stdout
    whole = {"run": ["[trace] keys", "flows.0.rate_kbps=200"], "sweep": ["flows.0.rate_kbps=20..300:20", "KEY=A..B:STEP"]}
    for text in whole.get(command, []):
        assert text in done.stdout, (text, done.stdout)


def test_a_directory_is_not_a_scenario(tmp_path: Path, workdir: Path) -> None:
    done = run_cli("run", str(tmp_path), cwd=workdir)
    assert done.returncode == 2 and "is a directory" in done.stderr and done.stdout == ""


def test_no_command_prints_help(workdir: Path) -> None:
    done = run_cli(cwd=workdir)
    assert done.returncode == 2
    assert "run" in done.stdout and "bench" in done.stdout and "Traceback" not in done.stderr


@pytest.mark.parametrize("value", ["-1", "one", "2**70", str(2**64), "1.5", "1e3", "true", '"7"'])
def test_seed_and_set_seed_say_the_same_words(value: str, small_chain: Path, workdir: Path) -> None:
    by_option = run_cli("run", str(small_chain), "--json", "--seed", value, cwd=workdir)
    by_set = run_cli("run", str(small_chain), "--json", "--set", f"seed={value}", cwd=workdir)
    assert by_option.returncode == by_set.returncode == 2
    assert by_option.stderr == by_set.stderr, (by_option.stderr, by_set.stderr)
    assert by_option.stderr.startswith("error: seed: must be an integer from 0 to 18446744073709551615, got ")
    for word in ("u64", "u32", "f64", "invalid type", "floating point"):
        assert word not in by_option.stderr


def _through(entry: str, args: list[str], cwd: Path) -> tuple[int, str, str]:
    """(status, stdout, stderr) of `entry`'s main (hoplab.command's, which reads a
    plain run itself, or hoplab.cli's, click's) with `args`; wall-clock figures masked."""
    code = f"import sys\nfrom {entry} import main\nmain(sys.argv[1:])"
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if k != "HOPLAB_DEBUG"}, check=False)
    wall = re.compile(r'"wall_seconds":[0-9.e-]+|[0-9.]+ s wall  ·  [0-9.]+ M events/s  ·  [0-9,.]+ sim s per wall s')
    return done.returncode, wall.sub("W", done.stdout), done.stderr


# Command lines, and whether hoplab.command reads them itself ("plain") or leaves them to click. In the words,
# FILE is the small chain's scenario, DIR a directory, MISSING a file that is not there, and `run` after `run`
# a scenario file named run in the working directory.
PLAIN_OR_CLICK = [
    ("plain", ["run", "FILE", "--json"]),
    ("plain", ["run", "FILE"]),
    ("plain", ["run", "FILE", "--json", "--seed", "3", "-s", "duration_s=2"]),
    ("plain", ["run", "FILE", "--series", "--json", "--memory-limit", "2G"]),
    ("plain", ["run", "FILE", "--json", "--run-timeout", "none"]),
    ("plain", ["run", "FILE", "--json", "--wall-limit", "600"]),
    ("plain", ["run", "FILE", "--run-timeout", " None ", "--json"]),
    ("plain", ["run", "FILE", "--run-timeout", "nan"]),
    ("plain", ["run", "FILE", "--set", "flows.0.rate_kbps=-1"]),
    ("plain", ["run", "FILE", "--set", "nonsense"]),
    ("plain", ["run", "FILE", "--set", "name=a\nb\x1b[31m", "--json"]),
    ("plain", ["run", "FILE", "--seed", "x"]),
    ("plain", ["run", "FILE", "--memory-limit", "12"]),
    ("plain", ["run", "FILE", "--run-timeout", "soon"]),
    ("plain", ["run", "FILE", "--set", "mac.queue_packets=0.5", "--json"]),
    ("plain", ["run", "FILE", "--json", "--json"]),
    ("plain", ["run", "FILE", "--series", "--series", "--json"]),
    ("plain", ["run", "--json", "FILE"]),
    ("plain", ["run", "--seed", "3", "FILE", "-s", "duration_s=2", "--json"]),
    ("plain", ["run", "run", "--json"]),
    ("plain", ["run", "MISSING", "--json"]),
    ("plain", ["run", "DIR"]),
    ("click", ["run", "FILE", "--json", "--run-timeout", "none", "--wall-limit", "600"]),
    ("click", ["run", "FILE", "--seed", "3", "--seed", "4"]),
    ("click", ["run", "FILE", "--seed", "-1"]),
    ("click", ["run", "FILE", "extra"]),
    ("click", ["run", "FILE", "FILE"]),
    ("click", ["run", "FILE", "--set"]),
    ("click", ["run", "FILE", "-s=duration_s=2", "--json"]),
    ("click", ["run", "FILE", "--set=duration_s=2", "--json"]),
    ("click", ["run", "FILE", "--jsn"]),
    ("click", ["run", "FILE", "--record", "--json"]),
    ("click", ["run", "-"]),
    ("click", ["run", ""]),
    ("click", ["run", "--", "FILE", "--json"]),
    ("click", ["run"]),
    ("click", ["run", "FILE", "--help"]),
]


@pytest.mark.parametrize(("reader", "words"), PLAIN_OR_CLICK, ids=lambda case: repr(case)[:60])
def test_a_plain_run_reads_as_click_reads_it(reader: str, words: list[str], small_chain: Path, tmp_path: Path,
                                             workdir: Path) -> None:
    """hoplab.command runs a plain `hoplab run` without click: the same output,
    errors and status as click's `run` command on the same command line; and
    each line takes the way it is meant to (a cut option the fast path stops
    reading would leave every output the same, only slower)."""
    if words[1:2] == ["run"]:
        (workdir / "run").write_text(SMALL_CHAIN, encoding="utf-8")
    named = {"FILE": str(small_chain), "DIR": str(tmp_path), "MISSING": str(tmp_path / "missing.toml")}
    args = [named.get(word, word) for word in words]
    assert (_plain_run(args) is not None) == (reader == "plain"), args
    plain = _through("hoplab.command", args, workdir)
    clicked = _through("hoplab.cli", args, workdir)
    assert plain == clicked
    assert plain[0] in (0, 2) and (plain[1] == "") == (plain[0] == 2)


def test_a_plain_run_of_a_missing_file_reads_as_click_reads_it(tmp_path: Path, workdir: Path) -> None:
    args = ["run", str(tmp_path / "missing.toml"), "--json"]
    plain = _through("hoplab.command", args, workdir)
    assert plain == _through("hoplab.cli", args, workdir)
    assert plain[0] == 2 and plain[1] == "" and plain[2].startswith("error: cannot read scenario file")


# click's `run` options the fast path does not read: a command line with one goes to click.
LEFT_TO_CLICK = {"--pcap", "--record", "--view"}


def test_the_fast_paths_options_are_clicks_run_options() -> None:
    """The fast path's tables are click's `run` options: each flag an `is_flag`
    option, each value option a plain string taking one value (only --set
    repeatable), to the same parameter, read by click as the fast path reads
    it, with click's defaults; every option of click's `run` is read by the
    fast path or left to click here."""
    from hoplab.cli import run

    def read_by_click(*args: str) -> dict[str, Any]:
        return run.make_context("run", ["FILE", *args]).params

    options = [param for param in run.params if isinstance(param, click.Option)]
    flags: dict[str, str] = {}
    values: dict[str, str] = {}
    for option in options:
        assert option.name is not None and option.envvar is None and option.callback is None, option.name
        if option.is_flag:
            assert not option.secondary_opts and not option.multiple and not option.count, option.name
            for word in option.opts:
                assert read_by_click(word)[option.name] is True, word
            flags |= dict.fromkeys(option.opts, option.name)
        else:
            assert isinstance(option.type, click.types.StringParamType) and option.nargs == 1, option.name
            assert option.multiple == (option.name == "set_"), option.name
            for word in option.opts:
                assert read_by_click(word, " 1x ")[option.name] == ((" 1x ",) if option.multiple else " 1x "), word
            values |= dict.fromkeys(option.opts, option.name)
    for table in (flags, values):
        for word in LEFT_TO_CLICK & table.keys():
            del table[word]
    assert (_RUN_FLAGS, _RUN_VALUES) == (flags, values)
    [argument] = [param for param in run.params if isinstance(param, click.Argument)]
    assert argument.name == "scenario" and argument.nargs == 1
    assert isinstance(argument.type, click.types.StringParamType)
    # What a plain `run FILE` passes run_command is what click passes it.
    defaults = read_by_click()
    plain = _plain_run(["run", "FILE"])
    assert plain == {**defaults, "set_": list(defaults["set_"])}


def test_an_interrupt_in_a_plain_run_ends_as_in_click(small_chain: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C inside the command: click's Abort, a new line on stderr and status 1, both ways."""
    import hoplab.cli
    import hoplab.command

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sys.modules["hoplab.run"], "run", interrupted)  # hoplab.run is also the function
    args = ["run", str(small_chain), "--json"]
    assert _plain_run(args) is not None
    ends = []
    for main in (hoplab.command.main, hoplab.cli.main):
        with pytest.raises(SystemExit) as exited:
            main(args)
        ends.append((exited.value.code, *capsys.readouterr()))
    assert ends == [(1, "", "\n")] * 2


def _entry_into_a_closed_pipe(code: str, args: list[str], cwd: Path) -> tuple[int, str]:
    """(status, stderr) of `python -c CODE ARGS` writing to a pipe whose reader is gone before it starts."""
    reader, writer = os.pipe()
    os.close(reader)
    env = {k: v for k, v in os.environ.items() if k not in ("HOPLAB_DEBUG", "PYTHONUNBUFFERED")}
    try:
        done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, stdout=writer, stderr=subprocess.PIPE,
                              text=True, env=env, timeout=120, check=False)
    finally:
        os.close(writer)
    return done.returncode, done.stderr


# A run that leaves a byte in stdout's buffer and then meets the closed pipe: the ending must not try to write
# it again at exit (click's flush wrapper; the fast path's /dev/null).
_HOLDING_A_BYTE = """\
import errno, sys, hoplab.cli, hoplab.command
def run_command(*args, **kwargs):
    sys.stdout.write("{")
    raise BrokenPipeError(errno.EPIPE, "Broken pipe")
hoplab.command.run_command = hoplab.cli.run_command = run_command
"""


@pytest.mark.parametrize(("before", "args"), [("", []), ("", ["--json", "--series"]), ("", ["--json"]),
                                              (_HOLDING_A_BYTE, ["--json"])], ids=["summary", "series", "json", "held"])
def test_a_closed_pipe_ends_a_plain_run_as_it_ends_click(before: str, args: list[str], small_chain: Path,
                                                         workdir: Path) -> None:
    """`hoplab run FILE | head -c 1`: the same status and stderr both ways, and
    where the command itself meets the closed pipe (the summary, a report
    larger than stdout's buffer, a write left in the buffer) click's quiet
    status 1."""
    words = ["run", str(small_chain), *args]
    assert _plain_run(words) is not None
    plain = _entry_into_a_closed_pipe(f"{before}from hoplab.command import main\nmain()", words, workdir)
    clicked = _entry_into_a_closed_pipe(f"{before}from hoplab.cli import main\nmain()", words, workdir)
    assert plain == clicked
    if before or args != ["--json"]:  # a 4 kB report waits in stdout's buffer until exit: Python's ending, both ways
        assert plain == (1, "")


def test_with_view_the_summary_reads_the_pages_parse(small_chain: Path, tmp_path: Path, workdir: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`hoplab run FILE --view PAGE` parses the report once: the summary reads the parse the page made."""
    import hoplab.cli

    parse = json.loads
    reports: list[str] = []

    def counted(text: str | bytes, **kwargs: Any) -> Any:
        if isinstance(text, str) and '"config_hash"' in text:
            reports.append(text)
        return parse(text, **kwargs)

    monkeypatch.setattr(json, "loads", counted)
    page = tmp_path / "page.html"
    with pytest.raises(SystemExit) as exited:
        hoplab.cli.main(["run", str(small_chain), "--view", str(page)])
    assert exited.value.code == 0 and page.is_file()
    assert "Flows" in capsys.readouterr().out
    assert len(reports) == 1


def test_only_the_command_line_freezes_the_objects_at_exit(small_chain: Path, workdir: Path) -> None:
    """gc.freeze skips the last collections of a `hoplab run` process; a caller
    of main(argv) in its own process keeps its objects collectable."""
    import gc

    import hoplab.cli
    import hoplab.command

    args = ["run", str(small_chain), "--json"]
    try:
        for main in (hoplab.command.main, hoplab.cli.main):
            with pytest.raises(SystemExit):
                main(args)
            assert gc.get_freeze_count() == 0, main.__module__
    finally:
        gc.unfreeze()
    report = "import atexit, gc, sys\natexit.register(lambda: sys.stderr.write(f'{gc.get_freeze_count()}'))\n"
    for entry, words in (("hoplab.command", args), ("hoplab.cli", args), ("hoplab.command", ["validate", args[1]])):
        done = subprocess.run([sys.executable, "-c", f"{report}from {entry} import main\nmain()", *words], cwd=workdir,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        frozen = int(done.stderr.rsplit("\n", 1)[-1])
        assert (frozen > 0) == (words[0] == "run"), (entry, words, done.stderr)
