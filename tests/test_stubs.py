"""Types: `_core.pyi` matches the built extension (mypy.stubtest), and the
package and tests pass `mypy --strict` (settings in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO


def test_core_stubs_match_the_extension(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "hoplab._core"],
        cwd=tmp_path, capture_output=True, text=True, timeout=280, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_package_type_checks(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=REPO, capture_output=True, text=True, timeout=280, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
