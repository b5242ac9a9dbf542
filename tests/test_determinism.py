"""One run is a pure function of (scenario, seed): same bytes out, except
`wall_seconds`; another seed gives another run."""

from __future__ import annotations

import re
from pathlib import Path

import hoplab
from conftest import run_cli

WALL_SECONDS = re.compile(r'"wall_seconds":[^,}]*,?')


def without_wall_seconds(report_json: str) -> str:
    stripped, count = WALL_SECONDS.subn("", report_json)
    assert count == 1, "the report has exactly one wall_seconds"
    return stripped


def test_same_seed_gives_byte_identical_json(small_chain: Path, workdir: Path) -> None:
    first = run_cli("run", str(small_chain), "--json", "--series", "--seed", "11", cwd=workdir)
    second = run_cli("run", str(small_chain), "--json", "--series", "--seed", "11", cwd=workdir)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert without_wall_seconds(first.stdout) == without_wall_seconds(second.stdout)


def test_same_seed_same_bytes_from_python(small_chain: Path) -> None:
    runs = [hoplab.run(small_chain, seed=5).to_json() for _ in range(2)]
    assert without_wall_seconds(runs[0]) == without_wall_seconds(runs[1])


def test_seed_option_equals_seed_in_the_file(small_chain: Path, workdir: Path) -> None:
    by_option = run_cli("run", str(small_chain), "--json", "--seed", "9", cwd=workdir)
    by_file = run_cli("run", str(small_chain), "--json", "--set", "seed=9", cwd=workdir)
    assert without_wall_seconds(by_option.stdout) == without_wall_seconds(by_file.stdout)


def test_another_seed_gives_another_run(small_chain: Path) -> None:
    one = hoplab.run(small_chain, seed=1)
    two = hoplab.run(small_chain, seed=2)
    assert without_wall_seconds(one.to_json()) != without_wall_seconds(two.to_json())
    assert one.config_hash == two.config_hash, "the config hash leaves the seed out"
