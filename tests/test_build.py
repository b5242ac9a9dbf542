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
import subprocess
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
    """Never the instrumented build (scripts/install.py installs that one
    aside, for its training runs only); in CI the profile-guided one."""
    assert _core.build_profile() in {"pgo", "plain"}
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


RUSTC_INFO = "rustc 1.95.0\nhost: x86_64-unknown-linux-gnu\nLLVM version: 22.1.2\n"


def test_every_training_run_is_a_valid_scenario() -> None:
    """A training run that fails would leave the build plain (or fail CI,
    which requires the profile-guided one): each validates as run."""
    install = _install_script()
    arguments = install.training_arguments()
    assert len(arguments) >= 10
    for args in arguments:
        done = subprocess.run([sys.executable, "-m", "hoplab", "validate", *args], capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stderr)


def test_install_reads_rustcs_llvm_version() -> None:
    install = _install_script()
    assert install.llvm_major(RUSTC_INFO) == "22"
    assert install.llvm_major("rustc 1.95.0\n") is None


def test_install_takes_only_a_profdata_of_rustcs_llvm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A profile written by one LLVM is not read by another: a tool named by
    HOPLAB_LLVM_PROFDATA of another major version is an error, one of the
    same is taken; with none named, no tool of major 99 is found here."""
    install = _install_script()
    monkeypatch.setenv("HOPLAB_LLVM_PROFDATA", str(_fake_profdata(tmp_path / "profdata-98", "98.0.1")))
    with pytest.raises(install.InstallError, match="not an llvm-profdata of LLVM 99"):
        install.find_profdata("99", RUSTC_INFO)
    monkeypatch.setenv("HOPLAB_LLVM_PROFDATA", str(_fake_profdata(tmp_path / "profdata-99", "99.1.0")))
    assert install.find_profdata("99", RUSTC_INFO) == tmp_path / "profdata-99"
    monkeypatch.delenv("HOPLAB_LLVM_PROFDATA")
    assert install.find_profdata("99", RUSTC_INFO) is None


def test_install_digest_covers_the_core_not_its_tests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stamp's digest moves with a source of the extension, the compiler
    flags, a training scenario's file; not with test-only code."""
    install = _install_script()
    repo = tmp_path / "repo"
    for part in ("crates/core/src", "crates/core/tests", "examples", "scripts/pgo"):
        (repo / part).mkdir(parents=True)
    (repo / "crates/core/src/lib.rs").write_text("pub fn f() {}\n")
    (repo / "crates/core/tests/t.rs").write_text("#[test] fn t() {}\n")
    (repo / "Cargo.toml").write_text("[workspace]\n")
    (repo / "examples/a.toml").write_text("duration_s = 1.0\n")
    (repo / "scripts/pgo/training.toml").write_text('[[run]]\nfile = "examples/a.toml"\n')
    monkeypatch.setattr(install, "REPO", repo)
    monkeypatch.setattr(install, "TRAINING", repo / "scripts/pgo/training.toml")
    digest = install.source_digest(RUSTC_INFO, "")
    (repo / "crates/core/tests/t.rs").write_text("#[test] fn t() { assert!(true) }\n")
    assert install.source_digest(RUSTC_INFO, "") == digest
    assert install.source_digest(RUSTC_INFO, "-Ctarget-cpu=native") != digest
    (repo / "examples/a.toml").write_text("duration_s = 2.0\n")
    changed = install.source_digest(RUSTC_INFO, "")
    assert changed != digest
    (repo / "crates/core/src/lib.rs").write_text("pub fn f() { }\n")
    assert install.source_digest(RUSTC_INFO, "") not in {digest, changed}


def test_install_trains_once_per_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second install from the same sources reuses the profile (no
    training); a changed digest trains again; the optimised build always
    runs (cargo makes it a no-op), with the profile and the pgo label."""
    install = _install_script()
    monkeypatch.setattr(install, "PGO_DIR", tmp_path)
    monkeypatch.setattr(install, "STAMP", tmp_path / "stamp")
    made: list[str] = []
    builds: list[dict[str, str]] = []

    def make_profile(profdata: Path, rustflags: str, quiet: bool) -> Path:
        made.append(rustflags)
        (tmp_path / "hoplab.profdata").write_text("counts")
        return tmp_path / "hoplab.profdata"

    monkeypatch.setattr(install, "make_profile", make_profile)
    monkeypatch.setattr(install, "pip_install", lambda env, quiet, site=None: builds.append(env))
    install.build_pgo(Path("llvm-profdata"), "digest-1", "", True)
    install.build_pgo(Path("llvm-profdata"), "digest-1", "", True)
    assert len(made) == 1 and len(builds) == 2
    install.build_pgo(Path("llvm-profdata"), "digest-2", "", True)
    assert len(made) == 2 and len(builds) == 3
    assert all(b["RUSTFLAGS"] == f"-Cprofile-use={tmp_path / 'hoplab.profdata'}" for b in builds)
    assert all(b["HOPLAB_BUILD_PROFILE"] == "pgo" and b["CARGO_TARGET_DIR"] == str(tmp_path / "use") for b in builds)


def test_install_keeps_the_users_flags_and_drops_the_encoded_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """CARGO_ENCODED_RUSTFLAGS would override RUSTFLAGS, the profile flag
    with it, while the build still said pgo."""
    install = _install_script()
    monkeypatch.setenv("CARGO_ENCODED_RUSTFLAGS", "-Copt-level=1")
    env = install._build_env("-Cdebuginfo=1", "-Cprofile-use=/p", "pgo", None)
    assert env["RUSTFLAGS"] == "-Cdebuginfo=1 -Cprofile-use=/p" and "CARGO_ENCODED_RUSTFLAGS" not in env


def test_install_plain_needs_no_rustc_and_says_nothing(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    install = _install_script()
    builds: list[dict[str, str]] = []
    monkeypatch.setattr(install, "rustc_info", lambda: pytest.fail("--plain asked rustc"))
    monkeypatch.setattr(install, "pip_install", lambda env, quiet, site=None: builds.append(env))
    assert install.main(["--plain", "--quiet"]) == 0
    assert [b["HOPLAB_BUILD_PROFILE"] for b in builds] == ["plain"] and "CARGO_TARGET_DIR" not in builds[0]
    assert capsys.readouterr().out == ""


def test_install_without_a_tool_says_one_line_or_fails_when_required(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    install = _install_script()
    builds: list[dict[str, str]] = []
    monkeypatch.setattr(install, "rustc_info", lambda: RUSTC_INFO)
    monkeypatch.setattr(install, "find_profdata", lambda major, info: None)
    monkeypatch.setattr(install, "pip_install", lambda env, quiet, site=None: builds.append(env))
    monkeypatch.delenv("HOPLAB_REQUIRE_PGO", raising=False)
    monkeypatch.delenv("HOPLAB_PGO", raising=False)
    assert install.main(["--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "no llvm-profdata of LLVM 22" in out and "llvm-22" in out
    assert [b["HOPLAB_BUILD_PROFILE"] for b in builds] == ["plain"]
    monkeypatch.setenv("HOPLAB_REQUIRE_PGO", "1")
    assert install.main(["--quiet"]) == 2
    assert "HOPLAB_REQUIRE_PGO is set" in capsys.readouterr().err and len(builds) == 1
