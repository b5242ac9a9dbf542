"""The `hoplab` command as a user sees it: output, errors, exit status."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SMALL_CHAIN, run_cli

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


@pytest.mark.parametrize("args", [
    ["--json"], [], ["--json", "--seed", "3", "-s", "duration_s=2"], ["--series", "--json", "--memory-limit", "2G"],
    ["--json", "--run-timeout", "none", "--wall-limit", "600"], ["--seed", "3", "--seed", "4"],
    ["--set", "flows.0.rate_kbps=-1"], ["--set", "nonsense"], ["--seed", "x"], ["--memory-limit", "12"],
    ["--run-timeout", "soon"], ["--set", "mac.queue_packets=0.5", "--json"], ["extra"], ["--set"],
])
def test_a_plain_run_reads_as_click_reads_it(args: list[str], small_chain: Path, workdir: Path) -> None:
    """hoplab.command runs a plain `hoplab run` without click: the same output,
    errors and status as click's `run` command on the same command line."""
    plain = _through("hoplab.command", ["run", str(small_chain), *args], workdir)
    clicked = _through("hoplab.cli", ["run", str(small_chain), *args], workdir)
    assert plain == clicked
    assert plain[0] in (0, 2) and (plain[1] == "") == (plain[0] == 2)


def test_a_plain_run_of_a_missing_file_reads_as_click_reads_it(tmp_path: Path, workdir: Path) -> None:
    args = ["run", str(tmp_path / "missing.toml"), "--json"]
    plain = _through("hoplab.command", args, workdir)
    assert plain == _through("hoplab.cli", args, workdir)
    assert plain[0] == 2 and plain[1] == "" and plain[2].startswith("error: cannot read scenario file")
