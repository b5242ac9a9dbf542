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

import psutil  # type: ignore[import-untyped]
import pytest

import hoplab
from conftest import REPO, SMALL_CHAIN, run_cli
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


def test_a_trace_to_a_redirected_stderr_writes_into_the_file_the_shell_holds(tmp_path: Path) -> None:
    """`--pcap /dev/stderr 2> FILE`: FILE (a regular file behind a link in
    /proc) is written through, not replaced by a new file."""
    (tmp_path / "chain.toml").write_text(SMALL_CHAIN, encoding="utf-8")
    out = tmp_path / "trace.pcap"
    with open(out, "wb") as err:
        inode = os.fstat(err.fileno()).st_ino
        done = subprocess.run([sys.executable, "-m", "hoplab", "run", "chain.toml", "--pcap", "/dev/stderr", "--json",
                               "--set", "duration_s=2"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err,
                              timeout=120, check=False)
    assert done.returncode == 0
    assert os.stat(out).st_ino == inode and out.read_bytes()[:4] == PCAP_MAGIC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.toml", "trace.pcap"]


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
    monkeypatch.setattr("secrets.token_hex", lambda n: next(tokens))  # hoplab.paths imports it on use
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


# 3: SIGTERM flushes every finished run and exits 143; no worker outlives
# the sweep's process, whether it got SIGTERM or SIGKILL. The sweep is sized
# (13 points x 200 runs) so that no machine finishes it before the signal: a
# fast CI machine ran 13 x 4 of these chains in 2 s, within the first flush.
SWEEP_RUNS = "200"
LONG_CHAIN = (SMALL_CHAIN.replace("duration_s = 5.0", "duration_s = 40.0").replace("nodes = 5", "nodes = 15")
              .replace("dst = 4", "dst = 14"))


def _start_sweep(workdir: Path, store: str = "st", *extra: str) -> subprocess.Popen[str]:
    (workdir / "chain.toml").write_text(LONG_CHAIN, encoding="utf-8")
    args = [sys.executable, "-m", "hoplab", "sweep", "chain.toml", "--vary", "flows.0.packet_bytes=256..1024:64",
            "--runs", SWEEP_RUNS, "--store", store, "--jobs", "2", *extra]
    env = {k: v for k, v in os.environ.items() if k != "HOPLAB_DEBUG"}
    return subprocess.Popen(args, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _workers(pid: int, count: int = 2, timeout_s: float = 60) -> list[psutil.Process]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        children: list[psutil.Process] = psutil.Process(pid).children(recursive=True)
        if len(children) >= count:
            return children
        time.sleep(0.05)
    raise AssertionError("the sweep started no workers")


def _gone_within(processes: list[psutil.Process], seconds: float) -> list[psutil.Process]:
    alive: list[psutil.Process] = psutil.wait_procs(processes, timeout=seconds)[1]
    for process in alive:  # do not leave them to the next test
        process.kill()
    return alive


def test_sigterm_flushes_finished_runs_and_exits_143(tmp_path: Path) -> None:
    process = _start_sweep(tmp_path)
    workers = _workers(process.pid)
    store = Store(tmp_path / "st")
    deadline = time.monotonic() + 60
    while not store.files("runs") and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # a few more runs finish, not yet flushed
    process.send_signal(signal.SIGTERM)  # as `timeout`, SLURM and systemd do: to the main process only
    _, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    lines = err.strip().splitlines()
    assert lines[-1].startswith("error: terminated (SIGTERM): ") and "runs are in the store" in lines[-1]
    finished = int(re.search(r"(\d+) of \d+ runs are in the store", lines[-1]).group(1))  # type: ignore[union-attr]
    assert finished == len(store.runs()) > 0, "every finished run was written"
    assert _gone_within(workers, 5) == [], "no worker left running"


def test_sigterm_to_the_whole_group_as_systemd_sends_it(tmp_path: Path) -> None:
    """Workers ignore SIGTERM (the sweep stops them itself): the sweep still
    flushes, exits 143, and leaves no worker."""
    (tmp_path / "chain.toml").write_text(LONG_CHAIN, encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "hoplab", "sweep", "chain.toml", "--vary",
                                "flows.0.packet_bytes=256..1024:64", "--runs", SWEEP_RUNS, "--store", "st", "--jobs", "2"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    workers = _workers(process.pid)
    store = Store(tmp_path / "st")
    deadline = time.monotonic() + 60
    while not store.files("runs") and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 143 and "terminated (SIGTERM)" in err
    assert len(store.runs()) > 0 and _gone_within(workers, 5) == []


# A SIGTERM or Ctrl-C that lands while the sweep waits in
# `concurrent.futures.wait`, holding one future's lock (inside
# `_AcquireFutures.__enter__`): a handler that raised there (ours for
# SIGTERM, Python's for SIGINT) left the lock held, and the pool's shutdown
# then waited for it for ever (the sweep never exited; the two tests above
# timed out now and then). The hook sends the signal at exactly that point,
# at the sweep's third wait (runs have finished by then).
_SIGNAL_INSIDE_WAIT = """
import os, signal, sys
from concurrent.futures import _base

waits = [0]

def acquire_with_signal(self):
    waits[0] += 1
    for i, future in enumerate(self.futures):
        future._condition.acquire()
        if i == 0 and waits[0] == 3:
            sys.stderr.write("hook: SIGNAL inside wait, one future's lock held\\n")
            os.kill(os.getpid(), signal.SIGNAL)  # its handler runs before the next line

_base._AcquireFutures.__enter__ = acquire_with_signal
from hoplab.command import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize(("signame", "status", "words"), [("SIGTERM", 143, "terminated (SIGTERM)"),
                                                          ("SIGINT", 130, "interrupted")])
def test_a_signal_inside_the_executors_wait_stops_the_sweep(signame: str, status: int, words: str,
                                                            tmp_path: Path) -> None:
    (tmp_path / "chain.toml").write_text(LONG_CHAIN, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "HOPLAB_DEBUG"}
    driver = _SIGNAL_INSIDE_WAIT.replace("SIGNAL", signame)
    process = subprocess.Popen([sys.executable, "-c", driver, "sweep", "chain.toml", "--vary",
                                "flows.0.packet_bytes=256..1024:64", "--runs", SWEEP_RUNS, "--store", "st",
                                "--jobs", "2"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    workers = _workers(process.pid)
    try:
        _, err = process.communicate(timeout=60)  # a guard: it hung for ever before the fix
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        _gone_within(workers, 5)
        raise AssertionError(f"the sweep hung after a {signame} inside concurrent.futures.wait") from None
    assert f"hook: {signame} inside wait" in err, "the hook ran"
    assert process.returncode == status, err
    last = err.strip().splitlines()[-1]
    match = re.search(r"(\d+) of \d+ runs are in the store", last)
    assert last.startswith(f"error: {words}: ") and match is not None, err
    assert int(match.group(1)) == len(Store(tmp_path / "st").runs()) >= 2, "the runs finished before it are stored"
    assert _gone_within(workers, 5) == [], "no worker left running"


def test_an_executor_stopped_by_an_earlier_sweeps_ctrl_c_runs_the_next_sweep(chain: hoplab.Scenario,
                                                                            tmp_path: Path) -> None:
    """A caller that caught a sweep's KeyboardInterrupt and runs another
    sweep on the same executor gets every run, not a silently short sweep."""
    from hoplab.executors import SerialExecutor

    executor = SerialExecutor()
    executor.stop()  # what the Ctrl-C handler did during the earlier sweep
    stats = hoplab.campaign.SweepStats()
    sweep(chain, vary={"flows.0.packet_bytes": [256, 512]}, store=tmp_path / "st", executor=executor, stats=stats)
    assert stats.executed == 2 and len(Store(tmp_path / "st").runs()) == 2


def test_sigkill_of_the_sweep_leaves_no_worker(tmp_path: Path) -> None:
    process = _start_sweep(tmp_path)
    workers = _workers(process.pid)
    process.kill()
    process.communicate(timeout=30)
    assert _gone_within(workers, 5) == [], "workers die with their parent (PR_SET_PDEATHSIG)"


def test_sigkill_of_a_dask_sweep_leaves_no_worker(tmp_path: Path) -> None:
    process = _start_sweep(tmp_path, "st", "--executor", "dask")
    workers = _workers(process.pid, 2, 120)
    time.sleep(2)  # the LocalCluster's worker processes are up
    workers = psutil.Process(process.pid).children(recursive=True)
    process.kill()
    process.communicate(timeout=30)
    assert _gone_within(workers, 5) == []


# 4: one writer per store. A second sweep waits for the first, then runs
# only what is still missing; a dead holder does not hold the lock.
def test_two_sweeps_on_one_store_run_each_run_once(tmp_path: Path) -> None:
    """Both sweeps start while the store is held (here by the test, so that
    how fast a sweep runs cannot let one finish before the other asks: it
    did once the build got faster); both wait, then one runs all 14 runs
    and the other none."""
    (tmp_path / "chain.toml").write_text(SMALL_CHAIN, encoding="utf-8")
    args = [sys.executable, "-m", "hoplab", "sweep", "chain.toml", "--vary", "flows.0.packet_bytes=256..1024:128",
            "--runs", "2", "--store", "st", "--jobs", "1", "--set", "duration_s=15"]
    (tmp_path / "st").mkdir()
    store = Store(tmp_path / "st")
    with store.lock():
        sweeps = [subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                  for _ in range(2)]
        told = [_stderr_until(p, "waiting", 120) for p in sweeps]
    outputs = [(out, before + err) for p, before in zip(sweeps, told) for out, err in [p.communicate(timeout=300)]]
    assert all(f"is in use by process {os.getpid()}" in err for _, err in outputs), outputs
    assert sweeps[0].returncode == sweeps[1].returncode == 0, outputs
    count = store.query("SELECT count(*) AS n, count(DISTINCT run_id) AS runs FROM runs_all")
    assert count["n"].tolist() == [14] and count["runs"].tolist() == [14], "no run twice"
    assert sorted("14 executed" in out for out, _ in outputs) == [False, True], outputs


def _stderr_until(process: subprocess.Popen[str], text: str, timeout_s: float) -> str:
    """Read `process`'s stderr up to the line holding `text`; what was read."""
    import selectors

    assert process.stderr is not None
    read = ""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout_s
        while text not in read:
            assert selector.select(max(deadline - time.monotonic(), 0)), f"no {text!r} on stderr: {read!r}"
            line = process.stderr.readline()
            assert line, f"stderr ended without {text!r}: {read!r}"
            read += line
    return read


def test_a_sweep_waits_while_the_store_is_held_and_not_after_its_holder_dies(chain: hoplab.Scenario,
                                                                             tmp_path: Path) -> None:
    Store(tmp_path / "st").prepare()
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from hoplab.store import Store\n"
                               "with Store(sys.argv[1]).lock(): print('held', flush=True); time.sleep(600)",
                               str(tmp_path / "st")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    events: list[str] = []
    killer = threading.Timer(3.0, holder.kill)  # SIGKILL: it never unlocks; the kernel does
    killer.start()
    started = time.monotonic()
    sweep(chain, vary={"flows.0.packet_bytes": [256]}, store=tmp_path / "st", executor="serial",
          progress=lambda event, info: events.append(event))
    holder.wait(10)
    holder.stdout.close()
    assert events[0] == "waiting" and 2.5 < time.monotonic() - started < 30
    assert len(Store(tmp_path / "st").runs()) == 1


def test_sigterm_to_a_sweep_waiting_for_the_store_exits_143(tmp_path: Path) -> None:
    """The handler only records SIGTERM; the lock's wait checks it at every
    poll, so a sweep waiting for another one's store still stops at once."""
    Store(tmp_path / "st").prepare()
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from hoplab.store import Store\n"
                               "with Store(sys.argv[1]).lock(): print('held', flush=True); time.sleep(600)",
                               str(tmp_path / "st")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        (tmp_path / "chain.toml").write_text(SMALL_CHAIN, encoding="utf-8")
        waiting = subprocess.Popen([sys.executable, "-m", "hoplab", "sweep", "chain.toml", "--store", "st",
                                    "--executor", "serial"], cwd=tmp_path, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        assert waiting.stderr is not None and "is in use by process" in waiting.stderr.readline()
        waiting.send_signal(signal.SIGTERM)
        _, err = waiting.communicate(timeout=30)  # the holder keeps the store for 600 s
        assert waiting.returncode == 143 and "terminated (SIGTERM): 0 of " in err, err
        assert holder.poll() is None and Store(tmp_path / "st").runs().empty
    finally:
        holder.kill()
        holder.communicate()


# 5: runs shared by sweeps over different keys are found under every key.
def test_shared_runs_are_visible_under_every_parameter(chain: hoplab.Scenario, tmp_path: Path) -> None:
    store = Store(tmp_path / "st")
    sweep(chain, vary={"flows.0.packet_bytes": [256, 512]}, runs=2, store=store, executor="serial")
    stats = hoplab.campaign.SweepStats()
    sweep(chain, vary={"duration_s": [2.0]}, runs=2, store=store, executor="serial", stats=stats)
    assert stats.executed == 0 and stats.skipped == 2, "the 512-byte runs are shared"
    for view in ("runs", "runs_all"):
        both = store.query(f'SELECT count(*) AS n FROM {view} WHERE duration_s = 2.0 AND '
                           f'"flows.0.packet_bytes" = 512')
        assert both["n"].tolist() == [2], view
    assert store.query("SELECT count(*) AS n FROM runs")["n"].tolist() == [4]
    # A third sweep that changes nothing writes nothing more.
    files = len(store.files("params"))
    sweep(chain, vary={"duration_s": [2.0]}, runs=2, store=store, executor="serial")
    assert len(store.files("params")) == files == 1


# 9: what killed writers left is removed at the next sweep's start.
def test_a_sweep_removes_what_killed_writers_left(chain: hoplab.Scenario, tmp_path: Path) -> None:
    store = Store(tmp_path / "st")
    sweep(chain, vary={"flows.0.packet_bytes": [256]}, store=store, executor="serial")
    (tmp_path / "st" / ".tmp").mkdir()
    (tmp_path / "st" / ".tmp" / "runs-x.parquet.tmp").write_bytes(b"old format leftover")
    stale = tmp_path / "st" / "runs" / f".part-y.parquet.{_dead_pid()}-00ff.partial"
    stale.write_bytes(b"half a file")
    orphan = tmp_path / "st" / "scalars" / "part-20990101T000000000000-deadbeef.parquet"
    orphan.write_bytes(store.files("scalars")[0].read_bytes())  # its runs file never came
    running = Path(os.environ.get("TMPDIR", "/tmp")) / f"hoplab-running-{_dead_pid()}-x"
    running.mkdir()
    (running / "3").touch()
    sweep(chain, vary={"flows.0.packet_bytes": [512]}, store=store, executor="local", jobs=1)
    assert not (tmp_path / "st" / ".tmp").exists() and not stale.exists() and not orphan.exists()
    assert not running.exists()
    assert len(store.runs()) == 2


# 9: path errors name what is wrong; a full disk names the store and the count.
@pytest.mark.parametrize("make, words", [
    (lambda d: d / "missing" / ".." / "st", "its folder"),
    (lambda d: (d / "link").symlink_to(d / "nowhere") or d / "link", "dangling symbolic link"),
    (lambda d: (d / "link").symlink_to(d / "nowhere") or d / "link" / "st", "dangling symbolic link"),
])
def test_store_path_errors_say_what_is_wrong(make: object, words: str, tmp_path: Path) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(OutputPathError, match=words) as caught:
        Store(path).check("--store")
    assert "file exists" not in str(caught.value)


def test_a_full_disk_names_the_store_and_what_it_holds(chain: hoplab.Scenario, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "st")
    sweep(chain, vary={"flows.0.packet_bytes": [256]}, store=store, executor="serial")

    def full(*args: object, **kwargs: object) -> str:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Store, "write_batch", full)
    with pytest.raises(hoplab.campaign.StoreWriteError) as caught:
        sweep(chain, vary={"flows.0.packet_bytes": [256, 512]}, store=store, executor="serial")
    message = str(caught.value.strerror)
    assert str(tmp_path / "st") in message and "no space left on device" in message
    assert "cannot write 1 finished run" in message and "it holds 1 of this sweep's 2 runs" in message


# 6: the scenario reader's guards: exit 2, one line, within a second.
def _fifo(d: Path) -> str:
    os.mkfifo(d / "s.toml")
    return "s.toml"


def _write(name: str, text: str) -> object:
    def make(d: Path) -> str:
        (d / name).write_text(text, encoding="utf-8")
        return name
    return make


@pytest.mark.parametrize("make, extra, words", [
    (lambda d: "/dev/zero", [], "is a character device, not a regular file"),
    (_fifo, [], "is a FIFO, not a regular file"),
    (_write("big.toml", "x = [" + "0," * 3_000_000 + "]"), [], "HOPLAB_MAX_SCENARIO_BYTES"),
    (_write("deep.toml", "x = " + "[" * 600 + "]" * 600), [], "nested deeper than 32 levels"),
    (_write("deep2.toml", "[" + ".".join(["a"] * 600) + "]\nb = 1"), [], "nested deeper than 32 levels"),
    (_write("deep3.toml", "x = " + "[" * 150 + "]" * 150), [], "nested deeper than 32 levels"),
    (_write("ok.toml", SMALL_CHAIN), ["--set", ".".join(["a"] * 10_000) + "=1"], "keys have at most 256"),
    (_write("ok.toml", SMALL_CHAIN), ["--set", "a=" + "[" * 900 + "]" * 900], "nested deeper"),
])
def test_scenario_reader_guards(make: object, extra: list[str], words: str, tmp_path: Path) -> None:
    target = make(tmp_path)  # type: ignore[operator]
    before = {p.name for p in tmp_path.iterdir()}
    started = time.monotonic()
    done = run_cli("validate", target, *extra, cwd=tmp_path, timeout_s=30)
    elapsed = time.monotonic() - started
    started = time.monotonic()
    run_cli("--version", cwd=tmp_path)  # the same start-up (Python, hoplab.cli), no work
    startup = time.monotonic() - started
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("error: ") and words in done.stderr
    assert elapsed < startup + 1.0, f"refused within a second of start-up ({elapsed:.2f} s, start-up {startup:.2f} s)"
    assert {p.name for p in tmp_path.iterdir()} == before, "nothing written"


def test_the_size_bound_is_lifted_by_its_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SMALL_CHAIN + "# " + "x" * 600_000 + "\n", encoding="utf-8")
    with pytest.raises(hoplab.ScenarioError, match="HOPLAB_MAX_SCENARIO_BYTES"):
        hoplab.scenario.load_scenario(path)
    monkeypatch.setenv("HOPLAB_MAX_SCENARIO_BYTES", "1000000")
    assert hoplab.scenario.load_scenario(path).name == "small-chain"


# 7: hoplab run shows its estimate above the threshold and has a default budget.
def test_run_prints_the_estimate_and_applies_the_default_budget(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from hoplab import cli, limits

    (tmp_path / "chain.toml").write_text(SMALL_CHAIN, encoding="utf-8")
    monkeypatch.setattr(limits, "DEFAULT_RUN_TIMEOUT_S", 1.0)
    status = cli._main(["run", str(tmp_path / "chain.toml"), "--set", "duration_s=1e9"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1 and len(err) == 2
    assert err[0].startswith("estimate: ~") and "days" in err[0] and "it stops after 1 s" in err[0]
    assert "wall-clock limit of 1.000 s exceeded" in err[1] and "--run-timeout SECONDS or none" in err[1]
    assert cli._main(["run", str(tmp_path / "chain.toml"), "--run-timeout", "soon"]) == 2
    assert "--run-timeout: must be a positive number of seconds or 'none'" in capsys.readouterr().err
    # A small run says nothing of its estimate.
    assert cli._main(["run", str(tmp_path / "chain.toml"), "--json", "--run-timeout", "none"]) == 0
    assert capsys.readouterr().err == ""


# 8: the local Dask cluster opens no HTTP port.
def _listening(pids: list[int]) -> list[tuple[int, int]]:
    found = []
    for pid in pids:
        for conn in psutil.Process(pid).net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN:
                found.append((pid, conn.laddr.port))
    return found


def test_the_local_dask_cluster_opens_no_http_port() -> None:
    """Every socket the cluster's processes listen on is one of Dask's own
    comm addresses (scheduler, workers, nannies), on loopback; none serves
    HTTP (Dask's default LocalCluster adds 8787 and one per worker)."""
    from urllib.parse import urlparse

    from hoplab.executors import DaskExecutor

    executor = DaskExecutor(jobs=2)
    with executor:
        assert dict(executor.map_unordered(abs, [-1, -2])) == {0: 1, 1: 2}
        info = executor._client.scheduler_info()
        comms = {urlparse(info["address"]).port}
        for address, worker in info["workers"].items():
            comms |= {urlparse(address).port, urlparse(worker["nanny"]).port}
            assert "dashboard" not in worker.get("services", {})
        assert "dashboard" not in info.get("services", {})
        me = psutil.Process()
        sockets = _listening([me.pid, *(c.pid for c in me.children(recursive=True))])
        assert len(sockets) == len(comms) == 5, sockets
        assert {port for _, port in sockets} == comms and 8787 not in comms
        for pid, _ in sockets:
            for conn in psutil.Process(pid).net_connections(kind="inet"):
                if conn.status == psutil.CONN_LISTEN:
                    assert conn.laddr.ip == "127.0.0.1", "loopback only"


def test_the_local_dask_scheduler_takes_no_stranger() -> None:
    """Mutual TLS with a key only the sweep holds: a client with another
    certificate (another local user) cannot connect, let alone submit."""
    from distributed import Client
    from distributed.security import Security

    from hoplab.executors import DaskExecutor

    executor = DaskExecutor(jobs=1)
    with executor:
        address = executor._client.scheduler_info()["address"]
        assert address.startswith("tls://127.0.0.1:")
        with pytest.raises((OSError, TimeoutError)):
            Client(address, security=Security.temporary(), timeout="3s")  # type: ignore[no-untyped-call]
        assert dict(executor.map_unordered(abs, [-3])) == {0: 3}


# 2, 9: a reproduction's report and figures: a link is followed (the link
# stays), a FIFO written through, leftovers of a killed run removed.
def test_reproduce_writes_through_links_and_fifos_and_removes_leftovers(tmp_path: Path) -> None:
    from test_experiments import _stub_paper

    from hoplab.report import reproduce

    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    stale = [out / f".report.md.{_dead_pid()}-00aa.partial", out / "figures" / f".figa.png.{_dead_pid()}-00bb.partial"]
    for path in stale:
        path.write_bytes(b"left by a killed reproduction")
    kept = tmp_path / "kept.md"
    kept.write_text("an older report", encoding="utf-8")
    (out / "report.md").symlink_to(kept)
    os.mkfifo(out / "figures" / "figa.csv")
    got: list[bytes] = []
    reader = _read_fifo(out / "figures" / "figa.csv", got)
    reproduce(_stub_paper(), out, quick=True, executor="serial")
    reader.join(10)
    assert not any(path.exists() for path in stale)
    assert (out / "report.md").is_symlink() and "## Findings" in kept.read_text(encoding="utf-8")
    assert stat.S_ISFIFO(os.lstat(out / "figures" / "figa.csv").st_mode) and b"," in got[0].splitlines()[0]
    assert not list(out.rglob("*.partial"))
