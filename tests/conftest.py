"""Shared helpers: small scenarios written to a temporary directory, and the
`hoplab` command run as a user runs it (a subprocess)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
PACKAGE = REPO / "python" / "hoplab"


def string_literals(tree: ast.AST) -> Iterable[tuple[int, list[str]]]:
    """(line, strings) of every tuple, list or set literal holding two strings
    or more: the source scans that catch a list the core owns typed again."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            strings = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(strings) >= 2:
                yield node.lineno, strings

# A 5-node chain (4 hops) with one saturated UDP flow: small, fast, and busy
# enough to queue, collide and drop.
SMALL_CHAIN = """\
name = "small-chain"
duration_s = 5.0
warmup_s = 1.0
seed = 1

[topology]
kind = "chain"
nodes = 5
spacing_m = 200.0

[[flows]]
src = 0
dst = 4
transport = "udp"
app = "bulk"
packet_bytes = 512
"""


@dataclass
class Completed:
    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path, timeout_s: float = 120) -> Completed:
    """Run `python -m hoplab ARGS` in `cwd`; return its status and output."""
    env = {k: v for k, v in os.environ.items() if k != "HOPLAB_DEBUG"}
    done = subprocess.run(
        [sys.executable, "-m", "hoplab", *args],
        cwd=cwd, capture_output=True, text=True, timeout=timeout_s, env=env, check=False,
    )
    return Completed(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """An empty directory to run commands in (to check nothing is written)."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def small_chain(tmp_path: Path) -> Path:
    path = tmp_path / "small-chain.toml"
    path.write_text(SMALL_CHAIN, encoding="utf-8")
    return path
