"""Build hoplab's extension and install it (editable) into the active Python:
profile-guided when the machine has the LLVM tool that needs, plain otherwise.

    python scripts/install.py            # what README's commands run
    python scripts/install.py --plain    # no profile-guided optimisation

Profile-guided optimisation (PGO; rustc's `-Cprofile-generate` /
`-Cprofile-use`, as rustc itself, CPython and Firefox are built): an
instrumented build of the extension runs the training scenarios of
scripts/pgo/training.toml, `llvm-profdata` merges what they counted, and the
extension is built again with those counts, so that the compiler lays out
and inlines the simulator's hot paths for how they are taken. It changes
no result (the same code; tests/test_build.py runs golden-set scenarios
through the installed extension and compares them with the golden files);
it makes runs about 15 % faster (docs/performance.md, "Profile-guided
build"). The training scenarios are none of the ones the speed claims
measure (hoplab bench's, scripts/bench_vs.py's).

It needs an `llvm-profdata` of the LLVM that rustc uses (`rustc -vV`: LLVM
version 22 for rustc 1.95): rustup's `llvm-tools` component, or the
distribution's (`apt-get install llvm-22` on Debian). Without one it builds
plainly and says so in one line. `HOPLAB_LLVM_PROFDATA` names one
explicitly.

The training is not run again while the sources, the training set, rustc
and this script are what the profile in target/pgo/ was made from (its
stamp), and cargo rebuilds nothing that did not change. The builds go to
their own cargo target folders (target/pgo/generate, target/pgo/use), so
`cargo test --release` in target/ is not disturbed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PGO_DIR = REPO / "target" / "pgo"
TRAINING = REPO / "scripts" / "pgo" / "training.toml"
STAMP = PGO_DIR / "stamp"


def rustc_info() -> str:
    return subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout


def llvm_major(info: str) -> str | None:
    match = re.search(r"^LLVM version: (\d+)\.", info, re.MULTILINE)
    return match.group(1) if match else None


def find_profdata(major: str) -> Path | None:
    """An llvm-profdata whose LLVM major version is rustc's (a profile from
    another version is refused by rustc, or worse, misread)."""
    candidates: list[Path] = []
    if explicit := os.environ.get("HOPLAB_LLVM_PROFDATA"):
        candidates.append(Path(explicit))
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True).stdout.strip()
    host = re.search(r"^host: (\S+)", rustc_info(), re.MULTILINE)
    if sysroot and host:
        candidates.append(Path(sysroot) / "lib" / "rustlib" / host.group(1) / "bin" / "llvm-profdata")
    for name in (f"llvm-profdata-{major}", "llvm-profdata"):
        if found := shutil.which(name):
            candidates.append(Path(found))
    candidates.append(Path(f"/usr/lib/llvm-{major}/bin/llvm-profdata"))
    for candidate in candidates:
        if not candidate.is_file():
            continue
        version = subprocess.run([str(candidate), "--version"], capture_output=True, text=True).stdout
        if re.search(rf"LLVM version {major}\.", version):
            return candidate
    return None


def source_digest(info: str) -> str:
    """What the extension is built from: every Rust source and manifest, the
    lock file, rustc, the training set and this script."""
    digest = hashlib.sha256(info.encode())
    paths = sorted(
        p
        for pattern in ("crates/**/*.rs", "crates/**/Cargo.toml", "Cargo.toml", "Cargo.lock", "pyproject.toml")
        for p in REPO.glob(pattern)
        if "tests" not in p.relative_to(REPO).parts
    )
    paths += [TRAINING, Path(__file__).resolve()]
    for path in paths:
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def pip_install(env_extra: dict[str, str], quiet: bool) -> None:
    env = {**os.environ, **env_extra}
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-build-isolation", "--no-deps", "-e", str(REPO)]
    if quiet:
        command.insert(4, "--quiet")
    subprocess.run(command, check=True, env=env, cwd=REPO)


def train() -> None:
    """Run every training scenario through the instrumented extension, each
    in its own process (the counts are written when a process exits)."""
    runs = tomllib.loads(TRAINING.read_text())["run"]
    for run in runs:
        command = [sys.executable, "-m", "hoplab", "run", str(REPO / run["file"]), "--json"]
        for key, value in run.get("set", {}).items():
            command += ["--set", f"{key}={value}"]
        subprocess.run(command, check=True, cwd=REPO, stdout=subprocess.DEVNULL)


def build_pgo(profdata: Path, wanted: str, quiet: bool) -> None:
    """The profile first (unless the stamp says the one in target/pgo/ was
    made from these sources), then the optimised build (cargo's own
    fingerprints make it a no-op when nothing changed)."""
    merged = PGO_DIR / "hoplab.profdata"
    if not (merged.exists() and STAMP.exists() and STAMP.read_text().strip() == wanted):
        profiles = PGO_DIR / "profiles"
        shutil.rmtree(profiles, ignore_errors=True)
        profiles.mkdir(parents=True)
        STAMP.unlink(missing_ok=True)
        print(f"install: profile-guided build: the instrumented build, its training runs "
              f"({TRAINING.relative_to(REPO)}), then the optimised build", flush=True)
        pip_install({"RUSTFLAGS": f"-Cprofile-generate={profiles}", "CARGO_TARGET_DIR": str(PGO_DIR / "generate"),
                     "HOPLAB_BUILD_PROFILE": "pgo-training"}, quiet)
        train()
        raw = sorted(profiles.glob("*.profraw"))
        if not raw:
            raise SystemExit("install: the training runs wrote no profile (target/pgo/profiles is empty)")
        subprocess.run([str(profdata), "merge", "-o", str(merged), *map(str, raw)], check=True)
        STAMP.write_text(wanted + "\n")
    pip_install({"RUSTFLAGS": f"-Cprofile-use={merged}", "CARGO_TARGET_DIR": str(PGO_DIR / "use"),
                 "HOPLAB_BUILD_PROFILE": "pgo"}, quiet)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plain", action="store_true", help="build without profile-guided optimisation")
    parser.add_argument("--quiet", action="store_true", help="pass --quiet to pip")
    args = parser.parse_args(argv)
    info = rustc_info()
    major = llvm_major(info)
    profdata = None if args.plain or major is None else find_profdata(major)
    if profdata is None:
        if not args.plain:
            print(f"install: no llvm-profdata of LLVM {major} (rustc's; `rustup component add llvm-tools`, or "
                  f"`apt-get install llvm-{major}`): building without profile-guided optimisation, about 15 % slower",
                  flush=True)
        pip_install({}, args.quiet)
        return 0
    build_pgo(profdata, source_digest(info), args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
