"""`_core.pyi` matches the built extension (mypy.stubtest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_core_stubs_match_the_extension(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "hoplab._core"],
        cwd=tmp_path, capture_output=True, text=True, timeout=280, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
