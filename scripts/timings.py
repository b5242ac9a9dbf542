"""Measure how long hoplab's commands take on this machine and write
docs/timings.md, the one place the README's times come from.

    python scripts/timings.py                 # benchmarks + both --quick reproductions (about a minute)
    python scripts/timings.py --full          # + both full reproductions (a few minutes)
    python scripts/timings.py --fresh-clone   # + the README's two commands on a fresh clone (about 10 minutes)
    python scripts/timings.py --install --keep-quick --keep-bench   # only the two locks' installs (a few minutes)
    python scripts/timings.py --paper tcp-ra-2009 --full --keep-bench   # one paper's rows only
    python scripts/timings.py --fidelity --keep-quick --keep-bench      # `hoplab fidelity`, quick and full
    python scripts/timings.py --vs --keep-quick --keep-bench            # beside ns-2.35 and ns-3 (scripts/bench_vs.py)

Every command runs as a user runs it (`python -m hoplab ...` in a fresh
temporary directory, so every run executes: nothing comes from a store).
The README's commands are read from README.md itself, so what is timed is
what the README says. Options not given keep their rows from the current
docs/timings.md (marked with the date they were measured), so a quick
refresh does not drop the slow measurements.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "timings.md"
PAPERS = ("semitcp-2018", "scalable-manet", "tcp-ra-2009", "tcpw-br", "few-afw")
BENCH_NAMES = {
    "engine": "engine: schedule / cancel / pop",
    "bench-chain15-udp": "15-node chain, saturated UDP",
    "bench-chain15-udp-sinr": "the same, SINR reception",
    "bench-grid7x7-4flows": "7x7 grid, 4 UDP flows",
    "bench-chain15-tcp": "14-hop chain, TCP NewReno",
    "bench-chain15-tcp-sinr": "the same, SINR reception",
    "bench-mobile150": "150 moving nodes, AODV, 8 TCP flows",
    "dsr-random-150": "150 moving nodes, DSR, 8 TCP flows",
}


def _hoplab(*args: str, cwd: Path) -> tuple[float, str]:
    """Run `python -m hoplab ARGS` in `cwd`; (wall seconds, stdout). Exits on failure."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "hoplab", *args], cwd=cwd, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"hoplab {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return wall, done.stdout


def _machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {platform.system()}"


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                          check=False)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True, check=False)
    return done.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def _runs_in(report_md: Path) -> str:
    match = re.search(r"\*\*runs\*\*: (\d+)", report_md.read_text(encoding="utf-8"))
    return match.group(1) if match else "-"


def _readme_commands() -> list[str]:
    """The two commands of the README's first code block."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("```sh", 1)[1].split("```", 1)[0]
    return [line.strip() for line in block.strip().splitlines() if line.strip()]


def _fresh_clone(command: str, work: Path, name: str) -> float:
    """Time `command` in a fresh clone of this repository's HEAD."""
    clone = work / name
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CARGO_TARGET_DIR")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(sys.prefix))
    started = time.perf_counter()
    done = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"on a fresh clone, {command!r} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return wall


def _old_rows() -> dict[str, list[str]]:
    """Cells of the current file's commands table, by their first cell."""
    if not OUT.exists():
        return {}
    text = OUT.read_text(encoding="utf-8")
    if "## Commands" not in text:
        return {}
    section = text.split("## Commands", 1)[1].split("## Benchmarks", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 5 and cells[0] != "what":
            rows[cells[0]] = cells
    return rows


def _old_bench() -> str | None:
    """The current file's benchmarks section as it stands (None if it has none)."""
    if not OUT.exists() or "## Benchmarks" not in OUT.read_text(encoding="utf-8"):
        return None
    return "## Benchmarks" + OUT.read_text(encoding="utf-8").split("## Benchmarks", 1)[1]


#: What each README command installs before it builds hoplab: the runtime
#: lock alone (the main job), and the runtime and test locks (the tests).
INSTALLS = (("runtime (README's first command)", ("requirements.lock",)),
            ("runtime + test (README's second command, .ci/run)", ("requirements.lock", "requirements-test.lock")))


def _install(locks: tuple[str, ...], venv: Path) -> tuple[float, int, int]:
    """(seconds, bytes, packages) of a fresh venv with `locks` installed
    from the package index, pip's cache left out (as on a new machine)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    args = [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", "--no-cache-dir"]
    for lock in locks:
        args += ["-r", str(REPO / lock)]
    subprocess.run(args, check=True)
    seconds = time.perf_counter() - started
    size = sum(f.stat().st_size for f in venv.rglob("*") if f.is_file() and not f.is_symlink())
    freeze = subprocess.run([str(venv / "bin" / "pip"), "freeze"], capture_output=True, text=True, check=True)
    return seconds, size, len(freeze.stdout.split())


def _install_section(measure: bool, work: Path, today: str) -> list[str]:
    """docs/timings.md's installs section: measured now, or kept as it is."""
    if not measure:
        text = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if "## Installs" not in text:
            return []
        return ["", "## Installs" + text.split("## Installs", 1)[1].split("\n## ", 1)[0].rstrip("\n")]
    lines = ["", "## Installs", "",
             "What the README's commands install before they build hoplab (`python scripts/install.py`, "
             "the same for both): a fresh venv (`python3 -m venv`), then `pip install --no-cache-dir -r LOCK...` from "
             "PyPI, one after the other, so the load average above applies to both. Size: the bytes of every file in "
             "the venv. `python scripts/timings.py "
             "--install --keep-quick --keep-bench` measures these rows again.", "",
             "| what | locks | packages | venv size | install time | measured |", "|---|---|---|---|---|---|"]
    for name, locks in INSTALLS:
        seconds, size, packages = _install(locks, work / ("venv-" + str(len(locks))))
        lines.append(f"| {name} | {' + '.join(f'`{lock}`' for lock in locks)} | {packages} | {size / 1e6:.0f} MB | "
                     f"{_minutes(seconds)} | {today} |")
    return lines


def _stale_readme_rows(rows: list[list[str]]) -> str:
    """A sentence when a README row was measured with an earlier form of the
    command than README.md's (kept from an earlier run)."""
    current = {f"`{command}`" for command in _readme_commands()}
    if all(row[1] in current for row in rows if row[0].startswith("README")):
        return ""
    return (" A README row whose command differs from README.md's was measured with that earlier form of it "
            "(before the lock was split, both commands installed both locks); the installs below are measured "
            "with today's.")


def _vs_section(measure: bool, output: Path | None) -> list[str]:
    """docs/timings.md's section of hoplab beside ns-2.35 and ns-3: the
    output of scripts/bench_vs.py, run now (or read from `output`, the
    script's saved output), or kept as it is."""
    if not measure and output is None:
        text = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if "## Beside ns-2.35 and ns-3" not in text:
            return []
        return ["", "## Beside ns-2.35 and ns-3" + text.split("## Beside ns-2.35 and ns-3", 1)[1].split("\n## ", 1)[0].rstrip("\n")]
    if output is not None:
        printed = output.read_text(encoding="utf-8")
    else:
        done = subprocess.run([sys.executable, str(REPO / "scripts" / "bench_vs.py")], cwd=REPO, capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"scripts/bench_vs.py failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        printed = done.stdout
    return ["", "## Beside ns-2.35 and ns-3", "",
            "Each simulator as a user runs it (one process per run, start-up included; hoplab's time simulating "
            "in brackets), on the same scenario, rounds alternated, the fastest of 3 each; the load average of the "
            "machine during the runs beside each ratio (scripts/bench_vs.py says how each case maps). "
            "`python scripts/timings.py --vs --keep-quick --keep-bench` measures this section again; its output:",
            "", *printed.rstrip("\n").splitlines()]


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="also time both full reproductions")
    parser.add_argument("--fresh-clone", action="store_true", help="also time the README's commands on a fresh clone")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write (default docs/timings.md)")
    parser.add_argument("--paper", action="append", choices=PAPERS,
                        help="time only this paper's reproductions (repeatable; default every paper)")
    parser.add_argument("--reports", type=Path, default=None,
                        help="keep each reproduction's output (report, figures, store) under this directory")
    parser.add_argument("--keep-bench", action="store_true",
                        help="keep the benchmarks table as it is (do not run `hoplab bench`)")
    parser.add_argument("--keep-quick", action="store_true",
                        help="keep the --quick reproductions' rows as they are (do not run them)")
    parser.add_argument("--fidelity", action="store_true",
                        help="also time `hoplab fidelity --quick` and `hoplab fidelity` (every check)")
    parser.add_argument("--vs", action="store_true",
                        help="also run hoplab beside ns-2.35 and ns-3 (scripts/bench_vs.py)")
    parser.add_argument("--vs-output", type=Path, metavar="FILE",
                        help="instead of running scripts/bench_vs.py, take its printed output from FILE")
    parser.add_argument("--install", action="store_true",
                        help="also measure the installs of requirements.lock and requirements-test.lock in fresh venvs")
    args = parser.parse_args()

    today = datetime.date.today().isoformat()
    load_before = os.getloadavg()[0]
    rows: list[list[str]] = []  # what, command, runs, wall time, measured
    old = _old_rows()
    with tempfile.TemporaryDirectory(prefix="hoplab-timings-") as tmp:
        work = Path(tmp)
        if args.fresh_clone:
            first, second = _readme_commands()
            rows.append(["README, first command, fresh clone (build + quick reproduction)", f"`{first}`", "-",
                         _minutes(_fresh_clone(first, work, "first")), today])
            rows.append(["README, second command, fresh clone (build + every test)", f"`{second}`", "-",
                         _minutes(_fresh_clone(second, work, "second")), today])
        installs = _install_section(args.install, work, today)
        vs = _vs_section(args.vs, args.vs_output)
        for quick in ((False,) if args.keep_quick else (True, False)) if args.full else (() if args.keep_quick else (True,)):
            for paper in args.paper or PAPERS:
                out = (args.reports or work) / f"{paper}{'-quick' if quick else ''}"
                if out.exists():
                    sys.exit(f"{out} exists: every run must execute (give --reports an empty directory)")
                flag = " --quick" if quick else ""
                wall, _ = _hoplab("reproduce", paper, *(["--quick"] if quick else []), "--out", str(out), cwd=work)
                rows.append([f"reproduce {paper}{flag}", f"`hoplab reproduce {paper}{flag}`",
                             _runs_in(out / "report.md"), _minutes(wall), today])
        for flag in ("--quick", "") if args.fidelity else ():
            wall, _ = _hoplab("fidelity", *([flag] if flag else []), "--json", cwd=work)
            name = f"fidelity {flag}".strip()
            rows.append([name, f"`hoplab {name}`", "-", _minutes(wall), today])
        old_bench = _old_bench() if args.keep_bench else None
        if old_bench is None:
            _, text = _hoplab("bench", "--json", cwd=work)
            document = json.loads(text)
            bench = document["benchmarks"]
        else:
            from hoplab import __version__

            document, bench = {"version": __version__}, []
    load_after = os.getloadavg()[0]

    # The slow rows this run did not redo keep their earlier measurement (and date).
    measured = {r[0] for r in rows}
    kept = [cells for first, cells in old.items() if first not in measured]
    everything = rows + kept
    ordered = sorted(everything, key=lambda r: (not r[0].startswith("README"), "--quick" not in r[0], r[0]))

    lines = [
        "# Measured timings",
        "",
        "<!-- Generated by scripts/timings.py; do not edit by hand: run the script again. -->",
        "",
        f"Last run {today} on {_machine()}, hoplab {document.get('version', '')} at commit {_commit()}; load "
        f"average {load_before:.2f} before, {load_after:.2f} after (other work on the machine slows every figure "
        "down)." + (" The benchmarks are kept from the run that measured them (`--keep-bench`); the commands table "
                    "says when each row was measured." if old_bench is not None else ""),
        "",
        "## Commands",
        "",
        "Wall-clock time of each command as a user runs it, every run executed (a fresh output directory, "
        "nothing from a store); reproductions use the local executor on every core. `python "
        "scripts/timings.py --full --fresh-clone` measures every row." + _stale_readme_rows(ordered),
        "",
        "| what | command | runs | wall time | measured |",
        "|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in ordered]
    lines += installs
    lines += vs
    if old_bench is not None:
        lines += ["", old_bench.rstrip("\n")]
    else:
        lines += [
            "",
            "## Benchmarks",
            "",
            f"`hoplab bench --json`: one core per benchmark, 100 simulated seconds per scenario, the fastest of "
            f"{bench[0].get('repeat', 1)} runs; the extension's {document.get('build_profile', 'plain')} build "
            "(scripts/install.py).",
            "",
            "| benchmark | simulated events | frames on the air | events per frame | wall s | events/s | "
            "sim s per wall s | us per frame |",
            "|---|---|---|---|---|---|---|---|",
        ]
    for figure in bench:
        name = BENCH_NAMES.get(str(figure["name"]), str(figure["name"]))
        scenario = "sim_seconds" in figure
        per_wall = f"{figure['sim_seconds_per_wall_second']:,.0f}" if scenario else "-"
        frames = f"{figure['frames']:,}" if scenario else "-"
        per_frame = f"{figure['us_per_frame']:.2f}" if figure.get("us_per_frame") is not None else "-"
        events_per_frame = f"{figure['events_per_frame']:.1f}" if figure.get("events_per_frame") is not None else "-"
        lines.append(f"| {name} | {figure['events']:,} | {frames} | {events_per_frame} | {figure['wall_seconds']:.2f} | "
                     f"{figure['events_per_second'] / 1e6:.1f} M | {per_wall} | {per_frame} |")
    if bench:
        from hoplab.bench import sinr_cost_lines

        lines += ["", "The SINR receiver's cost against the threshold model on the same scenario (docs/sinr.md, Cost):", ""]
        lines += [f"- {line}" for line in sinr_cost_lines(bench)]
    lines.append("")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main()
