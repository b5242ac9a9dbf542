"""scripts/test.sh ends with one line CI reads: cargo's and pytest's counts
summed, `N passed, N failed, N skipped` (scripts/test_summary.py)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from conftest import REPO

SCRIPT = REPO / "scripts" / "test_summary.py"
LINE = re.compile(r"^\d+ passed, \d+ failed, \d+ skipped$")

CARGO_LOG = """\
   Compiling hoplab-sim v0.1.0
     Running unittests src/lib.rs (target/release/deps/hoplab_sim-1)

running 3 tests
test a ... ok
test b ... ignored
test c ... ok

test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s

     Running tests/aodv.rs (target/release/deps/aodv-2)
test result: FAILED. 40 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.5s

   Doc-tests hoplab_sim
test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.2s
"""


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("test_summary_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def test_cargo_counts_sum_every_test_binary() -> None:
    assert _module().cargo_counts(CARGO_LOG) == (43, 2, 1)


def test_the_last_line_sums_both_suites_from_real_pytest_output(tmp_path: Path) -> None:
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_made_up.py").write_text(
        "import pytest\n\n"
        "def test_ok():\n    pass\n\n"
        "def test_ok_too():\n    pass\n\n"
        "def test_bad():\n    assert False\n\n"
        "@pytest.mark.skip(reason='x')\ndef test_skipped():\n    pass\n", encoding="utf-8")
    xml = tmp_path / "pytest.xml"
    (tmp_path / "none.ini").write_text("[pytest]\n", encoding="utf-8")  # not the project's settings
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(tmp_path / "none.ini"),
                           f"--junit-xml={xml}", str(tests)], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout
    log = tmp_path / "cargo.log"
    log.write_text(CARGO_LOG, encoding="utf-8")
    summary = _run(str(log), "101", str(xml), "1")
    lines = summary.stdout.splitlines()
    assert lines[-1] == "45 passed, 3 failed, 2 skipped", summary.stdout
    assert LINE.match(lines[-1]) and summary.returncode == 1
    assert lines[:-1] == ["cargo: 43 passed, 2 failed, 1 skipped", "pytest: 2 passed, 1 failed, 1 skipped"]


def test_a_suite_that_failed_without_counting_a_failure_still_fails(tmp_path: Path) -> None:
    # Cargo did not compile (no result lines), pytest wrote no XML.
    summary = _run(str(tmp_path / "missing.log"), "101", str(tmp_path / "missing.xml"), "2")
    assert summary.stdout.splitlines()[-1] == "0 passed, 2 failed, 0 skipped" and summary.returncode == 1
    log = tmp_path / "cargo.log"
    log.write_text(CARGO_LOG.replace("40 passed; 2 failed", "42 passed; 0 failed"), encoding="utf-8")
    passing = _run(str(log), "0", str(tmp_path / "missing.xml"), "0")
    assert passing.stdout.splitlines()[-1] == "45 passed, 0 failed, 1 skipped" and passing.returncode == 0


def test_test_sh_ends_with_the_summary() -> None:
    lines = [line for line in (REPO / "scripts" / "test.sh").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert lines[-1].strip() == '"$python" scripts/test_summary.py "$cargo_log" "$cargo_status" "$pytest_xml" "$pytest_status"'
    text = (REPO / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert text.count('--junit-xml="$pytest_xml"') == 2  # serial and side by side
