"""Build hoplab's extension and install it (editable) into the active Python:
profile-guided when the machine has the LLVM tool that needs, plain otherwise.

    python scripts/install.py            # what README's commands run
    python scripts/install.py --plain    # no profile-guided optimisation (or HOPLAB_PGO=0)

Profile-guided optimisation (PGO; rustc's `-Cprofile-generate` /
`-Cprofile-use`, as rustc itself, CPython and Firefox are built): an
instrumented build of the extension, installed aside in target/pgo/train-site
(never as the package's own extension, so no other hoplab process adds to
its counts), runs the training scenarios of scripts/pgo/training.toml;
`llvm-profdata` merges what they counted, and the extension is built again
with those counts, so that the compiler lays out and inlines the
simulator's hot paths for how they are taken. It changes no result (the same
code; tests/test_build.py runs the golden set through the installed
extension and compares it with the golden files); on the benchmark
scenarios runs are x1.03-1.16 faster (docs/performance.md, "Profile-guided
build"). The training scenarios are none of the ones the speed claims
measure (hoplab bench's, scripts/bench_vs.py's) nor shortened copies of them.

It needs an `llvm-profdata` of the LLVM that rustc uses (`rustc -vV`: LLVM
version 22 for rustc 1.95): rustup's `llvm-tools` component, the
distribution's (`apt-get install llvm-22` on Debian), or the one
`HOPLAB_LLVM_PROFDATA` names. Without one, or when the profile-guided build
fails, it builds plainly and says so in one line; with
`HOPLAB_REQUIRE_PGO=1` (CI) either is an error instead.

The training is not run again while the sources, the training set and its
scenario files, rustc, the compiler flags and this script are what the
profile in target/pgo/ was made from (its stamp); cargo rebuilds nothing
that did not change. Every build of the core after a change of its sources
is done twice (instrumented, optimised) and the training re-run: about 1.5
minutes more than a plain build on the 2-core machine; `--plain` or
`HOPLAB_PGO=0` skips it while developing. The builds go to their own cargo
target folders (target/pgo/generate, target/pgo/use); one install at a time
per checkout (a lock in target/pgo/).
"""

from __future__ import annotations

import argparse
import fcntl
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
TRAIN_SITE = PGO_DIR / "train-site"
PROFILES = PGO_DIR / "profiles"


class InstallError(Exception):
    """A one-line reason the install cannot go on."""


def rustc_info() -> str:
    try:
        return subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
    except (FileNotFoundError, subprocess.CalledProcessError) as error:
        raise InstallError(f"rustc -vV failed ({error}): hoplab needs a Rust toolchain (https://rustup.rs)") from None


def llvm_major(info: str) -> str | None:
    match = re.search(r"^LLVM version: (\d+)\.", info, re.MULTILINE)
    return match.group(1) if match else None


def _profdata_major(tool: Path) -> str | None:
    try:
        version = subprocess.run([str(tool), "--version"], capture_output=True, text=True).stdout
    except OSError:
        return None
    match = re.search(r"LLVM version (\d+)\.", version)
    return match.group(1) if match else None


def find_profdata(major: str, info: str) -> Path | None:
    """An llvm-profdata whose LLVM major version is rustc's (a profile from
    another version is refused by rustc, or worse, misread). One named by
    HOPLAB_LLVM_PROFDATA must be such a tool."""
    if explicit := os.environ.get("HOPLAB_LLVM_PROFDATA"):
        found = _profdata_major(Path(explicit))
        if found != major:
            raise InstallError(f"HOPLAB_LLVM_PROFDATA={explicit}: not an llvm-profdata of LLVM {major} "
                               f"(rustc's), it says {found or 'no version'}")
        return Path(explicit)
    candidates: list[Path] = []
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True).stdout.strip()
    host = re.search(r"^host: (\S+)", info, re.MULTILINE)
    if sysroot and host:
        candidates.append(Path(sysroot) / "lib" / "rustlib" / host.group(1) / "bin" / "llvm-profdata")
    for name in (f"llvm-profdata-{major}", "llvm-profdata"):
        if found_on_path := shutil.which(name):
            candidates.append(Path(found_on_path))
    candidates.append(Path(f"/usr/lib/llvm-{major}/bin/llvm-profdata"))
    return next((c for c in candidates if c.is_file() and _profdata_major(c) == major), None)


def source_digest(info: str, rustflags: str) -> str:
    """What the profile is made from: every Rust source and manifest but
    test-only code, the lock file, rustc, the user's compiler flags, the
    training set and its scenario files, and this script."""
    digest = hashlib.sha256(info.encode() + b"\0" + rustflags.encode())
    paths = sorted(
        p
        for pattern in ("crates/**/*.rs", "crates/**/Cargo.toml", "Cargo.toml", "Cargo.lock", "pyproject.toml")
        for p in REPO.glob(pattern)
        if "tests" not in p.relative_to(REPO).parts
    )
    paths += [TRAINING, *(REPO / str(run["file"]) for run in _training_runs())]
    for path in paths:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0")
        digest.update(path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def _training_runs() -> list[dict[str, object]]:
    runs: list[dict[str, object]] = tomllib.loads(TRAINING.read_text())["run"]
    return runs


def _build_env(rustflags: str, extra_flag: str | None, profile_name: str, target_dir: Path | None) -> dict[str, str]:
    """The environment of one build: the user's RUSTFLAGS with ours added
    (CARGO_ENCODED_RUSTFLAGS, which would override them, removed)."""
    env = {k: v for k, v in os.environ.items() if k != "CARGO_ENCODED_RUSTFLAGS"}
    env["RUSTFLAGS"] = " ".join(f for f in (rustflags, extra_flag) if f)
    env["HOPLAB_BUILD_PROFILE"] = profile_name
    if target_dir is not None:
        env["CARGO_TARGET_DIR"] = str(target_dir)
    return env


def pip_install(env: dict[str, str], quiet: bool, site: Path | None = None) -> None:
    """`pip install -e .` (the package's own extension), or a plain install
    of the package into `site` (a folder put on PYTHONPATH)."""
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-build-isolation", "--no-deps"]
    command += ["--quiet"] if quiet else []
    command += ["--target", str(site), "--upgrade", str(REPO)] if site else ["-e", str(REPO)]
    subprocess.run(command, check=True, env=env, cwd=REPO)


def train() -> None:
    """Run every training scenario through the instrumented extension in
    target/pgo/train-site, each in its own process (the counts are written
    when a process exits), into target/pgo/profiles/train-*.profraw."""
    env = {**os.environ, "PYTHONPATH": str(TRAIN_SITE), "LLVM_PROFILE_FILE": str(PROFILES / "train-%m.profraw")}
    for arguments in training_arguments():
        subprocess.run([sys.executable, "-m", "hoplab", "run", *arguments, "--json"], check=True, cwd=REPO,
                       stdout=subprocess.DEVNULL, env=env)


def training_arguments() -> list[list[str]]:
    """Each training run's `hoplab run` arguments: its file and --set's."""
    commands = []
    for run in _training_runs():
        command = [str(REPO / str(run["file"]))]
        settings = run.get("set", {})
        assert isinstance(settings, dict), f"{TRAINING}: set must be a table"
        for key, value in settings.items():
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            command += ["--set", f"{key}={text}"]
        commands.append(command)
    return commands


def make_profile(profdata: Path, rustflags: str, quiet: bool) -> Path:
    """The instrumented build, its training runs and the merge."""
    merged = PGO_DIR / "hoplab.profdata"
    shutil.rmtree(PROFILES, ignore_errors=True)
    shutil.rmtree(TRAIN_SITE, ignore_errors=True)
    PROFILES.mkdir(parents=True)
    print(f"install: profile-guided build: the instrumented build, its training runs "
          f"({TRAINING.relative_to(REPO)}), then the optimised build", flush=True)
    pip_install(_build_env(rustflags, f"-Cprofile-generate={PROFILES}", "pgo-training", PGO_DIR / "generate"),
                quiet, site=TRAIN_SITE)
    train()
    raw = sorted(PROFILES.glob("train-*.profraw"))
    if not raw:
        raise InstallError("the training runs wrote no profile (target/pgo/profiles has no train-*.profraw)")
    subprocess.run([str(profdata), "merge", "-o", str(merged), *map(str, raw)], check=True)
    return merged


def build_pgo(profdata: Path, wanted: str, rustflags: str, quiet: bool) -> None:
    """The profile first (unless the stamp says the one in target/pgo/ was
    made from these sources), then the optimised build (cargo's own
    fingerprints make it a no-op when nothing changed)."""
    merged = PGO_DIR / "hoplab.profdata"
    if not (merged.exists() and STAMP.exists() and STAMP.read_text().strip() == wanted):
        STAMP.unlink(missing_ok=True)
        merged = make_profile(profdata, rustflags, quiet)
        STAMP.write_text(wanted + "\n")
    pip_install(_build_env(rustflags, f"-Cprofile-use={merged}", "pgo", PGO_DIR / "use"), quiet)


def install(args: argparse.Namespace) -> None:
    rustflags = os.environ.get("RUSTFLAGS", "")
    plain_env = _build_env(rustflags, None, "plain", None)
    if args.plain or os.environ.get("HOPLAB_PGO") == "0":
        pip_install(plain_env, args.quiet)
        return
    required = bool(os.environ.get("HOPLAB_REQUIRE_PGO"))
    info = rustc_info()
    major = llvm_major(info)
    profdata = find_profdata(major, info) if major else None
    if profdata is None:
        why = (f"no llvm-profdata of LLVM {major} (rustc's; `rustup component add llvm-tools`, or "
               f"`apt-get install llvm-{major}`)" if major else "rustc -vV names no LLVM version")
        if required:
            raise InstallError(f"{why}, and HOPLAB_REQUIRE_PGO is set")
        print(f"install: {why}: building without profile-guided optimisation (runs x1.03-1.16 slower)", flush=True)
        pip_install(plain_env, args.quiet)
        return
    PGO_DIR.mkdir(parents=True, exist_ok=True)
    with open(PGO_DIR / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install per checkout at a time
        try:
            build_pgo(profdata, source_digest(info, rustflags), rustflags, args.quiet)
        except (subprocess.CalledProcessError, InstallError) as error:
            if required:
                raise InstallError(f"the profile-guided build failed ({error}), and HOPLAB_REQUIRE_PGO is set") from None
            print(f"install: the profile-guided build failed ({error}): building without it", flush=True)
            STAMP.unlink(missing_ok=True)
            pip_install(plain_env, args.quiet)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--plain", action="store_true", help="build without profile-guided optimisation")
    parser.add_argument("--quiet", action="store_true", help="pass --quiet to pip")
    parser.add_argument("--find-profdata", action="store_true",
                        help="only print the llvm-profdata a profile-guided build would use (exit 1 if none)")
    args = parser.parse_args(argv)
    try:
        if args.find_profdata:
            info = rustc_info()
            major = llvm_major(info)
            tool = find_profdata(major, info) if major else None
            print(tool or f"no llvm-profdata of LLVM {major}")
            return 0 if tool else 1
        install(args)
    except InstallError as error:
        print(f"install: {error}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:
        print(f"install: {' '.join(map(str, error.cmd[:6]))} ... failed (exit status {error.returncode})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
