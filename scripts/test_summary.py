"""The one line scripts/test.sh ends with: cargo's and pytest's counts summed.

    python scripts/test_summary.py CARGO_LOG CARGO_STATUS PYTEST_XML PYTEST_STATUS

prints each suite's counts, then, as its last line, `N passed, N failed,
N skipped` for both (CI reads it as the last line of the test run) and exits 1 if anything failed, 0 otherwise. Cargo's counts come
from its `test result:` lines (ignored tests count as skipped), pytest's
from its JUnit XML (errors count as failed). A suite that exited non-zero
without reporting any failure (a build that did not compile, a collection
that crashed, a killed process) counts as one failure, so the line never
says 0 failed for a run that failed.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

_CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;", re.M)


def cargo_counts(log: str) -> tuple[int, int, int]:
    """(passed, failed, skipped) summed over every `test result:` line."""
    passed = failed = skipped = 0
    for match in _CARGO.finditer(log):
        passed += int(match.group(1))
        failed += int(match.group(2))
        skipped += int(match.group(3))
    return passed, failed, skipped


def pytest_counts(xml_path: Path) -> tuple[int, int, int]:
    """(passed, failed, skipped) from pytest's JUnit XML; (0, 0, 0) if it is
    missing or unreadable (the caller then counts the exit status)."""
    try:
        root = ET.parse(xml_path).getroot()
    except (OSError, ET.ParseError):
        return 0, 0, 0
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    tests = failed = skipped = 0
    for suite in suites:
        tests += int(suite.get("tests", 0))
        failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped += int(suite.get("skipped", 0))
    return tests - failed - skipped, failed, skipped


def summary(cargo: tuple[int, int, int], cargo_status: int, pytest: tuple[int, int, int],
            pytest_status: int) -> tuple[str, bool]:
    """The line and whether every test passed."""
    passed = cargo[0] + pytest[0]
    failed = cargo[1] + pytest[1]
    skipped = cargo[2] + pytest[2]
    # A suite that failed without counting a failure still failed.
    failed += int(cargo_status != 0 and cargo[1] == 0) + int(pytest_status != 0 and pytest[1] == 0)
    return f"{passed} passed, {failed} failed, {skipped} skipped", failed == 0


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        sys.stderr.write("usage: test_summary.py CARGO_LOG CARGO_STATUS PYTEST_XML PYTEST_STATUS\n")
        return 2
    log_path, cargo_status, xml_path, pytest_status = argv
    try:
        log = Path(log_path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        log = ""
    cargo, pytest = cargo_counts(log), pytest_counts(Path(xml_path))
    for name, (passed, failed, skipped) in (("cargo", cargo), ("pytest", pytest)):
        sys.stdout.write(f"{name}: {passed} passed, {failed} failed, {skipped} skipped\n")
    line, ok = summary(cargo, int(cargo_status), pytest, int(pytest_status))
    sys.stdout.write(line + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
