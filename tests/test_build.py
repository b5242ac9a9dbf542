"""The installed extension, however it was compiled, gives the core's golden
results, and scripts/install.py picks only an llvm-profdata of rustc's LLVM.

scripts/install.py builds the extension with profile-guided optimisation
(docs/performance.md, "Profile-guided build"): a different compilation of the
same code. The golden set (crates/hoplab-sim/tests/golden/, checked by
`cargo test --test golden` on a plain build) is run here through the
installed extension, so that the build users get is checked to give the
same bytes. CI sets HOPLAB_REQUIRE_PGO=1: there the extension must be the
profile-guided one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hoplab import _core

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "crates" / "hoplab-sim" / "tests" / "golden"
# The digests golden.rs adds to a report; the frame trace's is not reachable
# from Python (the series' is: see _series_sha256).
DIGEST_KEYS = ("series_rows", "series_sha256", "trace_frames", "trace_sha256", "wall_seconds")


def _set_key(doc: Any, key: str, value: Any) -> None:
    """golden.rs's `set_key`: a dotted key, numbers index arrays."""
    parts = key.split(".")
    node = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    if isinstance(node, list):
        node[int(parts[-1])] = value
    else:
        node[parts[-1]] = value


def _golden_cases() -> list[tuple[str, str]]:
    manifest = tomllib.loads((GOLDEN / "cases.toml").read_text())
    cases = []
    for case in manifest["case"]:
        doc = tomllib.loads((REPO / "examples" / case["file"]).read_text())
        for key, value in case.get("set", {}).items():
            _set_key(doc, key, value)
        cases.append((case["name"], json.dumps(doc)))
    return cases


def _series_sha256(report_json: str) -> str:
    """SHA-256 of the report's `series` array as the core wrote it (golden.rs
    hashes serde's compact form of the same array)."""
    start = report_json.index('"series":') + len('"series":')
    depth = 0
    for end in range(start, len(report_json)):
        depth += {"[": 1, "]": -1}.get(report_json[end], 0)
        if depth == 0:
            return hashlib.sha256(report_json[start : end + 1].encode()).hexdigest()
    raise AssertionError("the report's series array does not end")


@pytest.mark.parametrize(("name", "scenario_json"), _golden_cases(), ids=[name for name, _ in _golden_cases()])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_installed_extension_gives_the_golden_results(name: str, scenario_json: str, seed: int) -> None:
    want = json.loads((GOLDEN / f"{name}-seed{seed}.json").read_text())
    got_json = _core.simulate(scenario_json, seed, series=True)
    got = json.loads(got_json)
    assert _series_sha256(got_json) == want["series_sha256"], f"{name} seed {seed}: the time series differs"
    assert len(got.pop("series")) == want["series_rows"]
    for key in DIGEST_KEYS:
        want.pop(key)
    got.pop("wall_seconds")
    differing = sorted(key for key in want.keys() | got.keys() if want.get(key) != got.get(key))
    assert not differing, f"{name} seed {seed} ({_core.build_profile()} build): {differing} differ from the golden set"


def test_the_extension_says_how_it_was_built() -> None:
    assert _core.build_profile() in {"pgo", "pgo-training", "plain"}
    if os.environ.get("HOPLAB_REQUIRE_PGO"):
        assert _core.build_profile() == "pgo", "HOPLAB_REQUIRE_PGO is set: scripts/install.py should have built with PGO"


def _install_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hoplab_install_script", REPO / "scripts" / "install.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _fake_profdata(path: Path, version: str) -> Path:
    path.write_text(f"#!/bin/sh\necho 'LLVM (http://llvm.org/):'\necho '  LLVM version {version}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_install_reads_rustcs_llvm_version() -> None:
    install = _install_script()
    assert install.llvm_major("rustc 1.95.0\nhost: x86_64-unknown-linux-gnu\nLLVM version: 22.1.2\n") == "22"
    assert install.llvm_major("rustc 1.95.0\n") is None


def test_install_takes_only_a_profdata_of_rustcs_llvm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A profile written by one LLVM is not read by another: a tool of
    another major version is passed over, one of the same is taken."""
    install = _install_script()
    monkeypatch.setenv("HOPLAB_LLVM_PROFDATA", str(_fake_profdata(tmp_path / "profdata-98", "98.0.1")))
    assert install.find_profdata("99") is None
    monkeypatch.setenv("HOPLAB_LLVM_PROFDATA", str(_fake_profdata(tmp_path / "profdata-99", "99.1.0")))
    assert install.find_profdata("99") == tmp_path / "profdata-99"
