"""Issue 34: writes that never replace what they should not, signals that
leave no orphans, inputs guarded by size and shape, one writer per store.

Each test names the issue's case it covers."""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

import hoplab
from conftest import REPO, SMALL_CHAIN, run_cli
from hoplab import paths
from hoplab.campaign import sweep
from hoplab.paths import OutputPathError, write_file
from hoplab.store import Store

PCAP_MAGIC = bytes.fromhex("4d3cb2a1")  # nanosecond pcap, little-endian


@pytest.fixture
def chain() -> hoplab.Scenario:
    return hoplab.Scenario.from_toml(SMALL_CHAIN).set("duration_s", 2.0).set("warmup_s", 0.5)


def _read_fifo(fifo: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(fifo, "rb") as handle:
            into.append(handle.read())
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


# 1, "What must show": a FIFO (or a device) is written through, never replaced.
def test_a_trace_to_a_fifo_is_written_through(chain: hoplab.Scenario, tmp_path: Path) -> None:
    fifo = tmp_path / "trace.pcap"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    hoplab.run(chain, pcap=fifo)
    reader.join(10)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO is still a FIFO"
    assert got and got[0][:4] == PCAP_MAGIC and len(got[0]) > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.pcap"], "no temporary left"


def test_cli_trace_to_a_fifo(tmp_path: Path) -> None:
    (tmp_path / "chain.toml").write_text(SMALL_CHAIN, encoding="utf-8")
    os.mkfifo(tmp_path / "out")
    got: list[bytes] = []
    reader = _read_fifo(tmp_path / "out", got)
    done = run_cli("run", "chain.toml", "--pcap", "out", "--set", "duration_s=2", cwd=tmp_path)
    reader.join(10)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.lstat(tmp_path / "out").st_mode) and got[0][:4] == PCAP_MAGIC


# 2: the temporary is created exclusively, its name unguessable: links planted
# at the names the old code used (".NAME.PID-N.partial") are never followed.
def test_planted_links_at_temporary_names_are_not_followed(chain: hoplab.Scenario, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    for n in range(64):
        (out / f".x.pcap.{os.getpid()}-{n}.partial").symlink_to(victim)
    hoplab.run(chain, pcap=out / "x.pcap")
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not (out / "x.pcap").is_symlink() and (out / "x.pcap").read_bytes()[:4] == PCAP_MAGIC


def test_write_file_never_follows_a_link_at_its_temporary_name(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    tokens = iter(["0" * 16, "1" * 16])
    monkeypatch.setattr(paths.secrets, "token_hex", lambda n: next(tokens))
    (tmp_path / f".report.md.{os.getpid()}-{'0' * 16}.partial").symlink_to(victim)
    write_file(tmp_path / "report.md", lambda h: h.write(b"new"), "out")
    assert victim.read_text(encoding="utf-8") == "precious", "O_EXCL: the planted link was not opened"
    assert (tmp_path / "report.md").read_bytes() == b"new"


def test_write_file_through_a_fifo_a_link_and_refusing_a_dangling_link(tmp_path: Path) -> None:
    fifo = tmp_path / "figure.csv"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    write_file(fifo, lambda h: h.write(b"a,b\n"), "figure")
    reader.join(10)
    assert got == [b"a,b\n"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    real = tmp_path / "real.md"
    real.write_text("old", encoding="utf-8")
    (tmp_path / "link.md").symlink_to(real)
    write_file(tmp_path / "link.md", lambda h: h.write(b"new"), "out")
    assert (tmp_path / "link.md").is_symlink() and real.read_text(encoding="utf-8") == "new"
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere" / "x.md")
    with pytest.raises(OutputPathError, match="dangling symbolic link"):
        write_file(tmp_path / "dangling.md", lambda h: h.write(b"x"), "out")
    assert not list(tmp_path.glob(".*.partial"))


def test_a_trace_through_a_link_keeps_the_link(chain: hoplab.Scenario, tmp_path: Path) -> None:
    real = tmp_path / "real.pcap"
    real.write_bytes(b"old")
    (tmp_path / "link.pcap").symlink_to(real)
    hoplab.run(chain, pcap=tmp_path / "link.pcap")
    assert (tmp_path / "link.pcap").is_symlink() and real.read_bytes()[:4] == PCAP_MAGIC


def test_cli_refuses_a_dangling_link_and_a_socket(tmp_path: Path) -> None:
    (tmp_path / "chain.toml").write_text(SMALL_CHAIN, encoding="utf-8")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "sock"))
    try:
        for target, words in (("dangling", "dangling symbolic link"), ("sock", "is a socket")):
            done = run_cli("run", "chain.toml", "--pcap", target, "--set", "duration_s=2", cwd=tmp_path)
            assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and words in done.stderr
    finally:
        listener.close()
    assert not (tmp_path / "nowhere").exists()


# 2: every writer of the package goes through paths.write_file or the tracer.
def test_no_module_writes_a_file_in_place() -> None:
    package = REPO / "python" / "hoplab"
    pattern = re.compile(r"\.write_text\(|\.write_bytes\(|savefig\((?!handle)|\.to_csv\((?!index)|os\.replace\(|"
                         r"open\([^)]*[\"'][wa]b?[\"']")
    offenders = []
    for source in package.rglob("*.py"):
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line) and source.name != "paths.py":
                offenders.append(f"{source.relative_to(package)}:{number}: {line.strip()}")
    # The marker files of running tasks (empty, in a private folder of the sweep's own) are the one exception.
    assert [o for o in offenders if "executors.py" not in o or "marker" not in o] == []


# 9: stale temporaries of killed runs are removed at the next start.
def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_trace_temporaries_are_removed_by_the_next_run(chain: hoplab.Scenario, tmp_path: Path) -> None:
    stale = tmp_path / f".x.pcap.{_dead_pid()}-0.partial"
    stale.write_bytes(b"left by a killed run")
    alive = tmp_path / f".y.pcap.{os.getppid()}-0.partial"  # a live process's: kept
    alive.write_bytes(b"in use")
    hoplab.run(chain, pcap=tmp_path / "x.pcap")
    assert not stale.exists() and alive.exists()
