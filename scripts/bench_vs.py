"""hoplab beside the simulators it replaces, on the same scenario, in one run:
the source of every speed ratio the README and docs/timings.md quote.

    python scripts/bench_vs.py                 # every case, fastest of 3
    python scripts/bench_vs.py --only ns2 --repeat 5

Cases (each simulator as a user runs it: one process per run, its start-up
included, the wall clock around it):
- ns2-aodv-7, ns2-aodv-14: TCP NewReno over AODV on the 7- and 14-hop
  chain, 300 simulated seconds: ns-2.35 (Debian's `ns`) runs
  scripts/ns2/chain.tcl; hoplab runs the same chain with `preset = "ns2"`
  (hoplab.fidelity.checks.ns2_chain, the mapping `hoplab fidelity` checks
  against ns-2's goodput);
- ns3-sinr-14: the 14-hop static chain with the SINR receiver and ns-3's
  TCP settings, 100 simulated seconds: ns-3 3.44 (/work/ns3venv, or
  --ns3-python) runs scripts/ns3_chain.py --one 14 1; hoplab runs
  examples/sinr-chain-ns3.toml at 14 hops (hoplab.fidelity.checks.ns3_chain).

hoplab runs as `python -m hoplab run FILE --json` (FILE: the case's scenario,
written as TOML to a temporary directory). Rounds alternate which simulator
goes first; each simulator's fastest run is kept (other work on the machine
only ever slows a run down). The 1-minute load average is printed with each
run and each ratio: on a shared machine the absolute times are slower than
on a quiet one, the ratios of alternated runs much less so. The goodput of
both is printed to show the runs did the same work (they are different
simulators: close, not equal).

hoplab's modules are compiled to bytecode first, as pip does when it
installs hoplab's wheel and as Python does on a source tree's first run:
with PYTHONDONTWRITEBYTECODE=1 in the environment and an editable install,
every run would compile them again (about 10 ms of a run's start-up on the
2-core machine, docs/performance.md, Start-up), which no user's run pays.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
NS3_PYTHON = Path("/work/ns3venv/bin/python")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    raise TypeError(f"no TOML form for {value!r}")


def to_toml(data: Mapping[str, Any], prefix: str = "") -> str:
    """A scenario dict as TOML (scalars, tables, arrays of tables)."""
    lines = [f"{key} = {_toml_value(v)}" for key, v in data.items() if not isinstance(v, (dict, list))]
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            lines += ["", f"[{name}]", to_toml(value, name + ".")]
        elif isinstance(value, list):
            for item in value:
                lines += ["", f"[[{name}]]", to_toml(item, name + ".")]
    return "\n".join(line for line in lines if line is not None)


def cases(ns3_python: Path) -> dict[str, dict[str, Any]]:
    """Each case: the reference simulator's command and hoplab's scenario."""
    sys.path.insert(0, str(REPO / "python"))
    from hoplab.fidelity.checks import ns2_chain, ns3_chain

    out: dict[str, dict[str, Any]] = {}
    for hops in (7, 14):
        scenario = ns2_chain(hops, "aodv") | {"duration_s": 300.0}
        out[f"ns2-aodv-{hops}"] = {
            "reference": "ns-2.35",
            "sim_seconds": 300.0,
            "command": ["ns", "scripts/ns2/chain.tcl", f"hops={hops}", "routing=AODV", "seed=1", "duration=300"],
            "scenario": scenario,
        }
    out["ns3-sinr-14"] = {
        "reference": "ns-3 3.44",
        "sim_seconds": 100.0,
        "command": [str(ns3_python), "scripts/ns3_chain.py", "--one", "14", "1", "--duration", "100"],
        "scenario": ns3_chain(14),
    }
    return out


def _timed(command: list[str]) -> tuple[float, str]:
    """(wall seconds, stdout) of one process; exits on failure."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return wall, done.stdout + done.stderr if command[0] == "ns" else done.stdout


def _reference_goodput(output: str) -> float:
    """ns-2's `result {json}` line (ns writes it to stderr), or ns-3's JSON
    line: the goodput (kbit/s)."""
    lines = [line for line in output.splitlines() if line.startswith(("result {", "{"))]
    last = lines[-1]
    return float(json.loads(last.split(" ", 1)[1] if last.startswith("result ") else last)["goodput_kbps"])


def run_case(name: str, case: dict[str, Any], repeat: int, work: Path) -> dict[str, Any]:
    scenario_file = work / f"{name}.toml"
    scenario_file.write_text(to_toml(case["scenario"]) + "\n", encoding="utf-8")
    hoplab_cmd = [sys.executable, "-m", "hoplab", "run", str(scenario_file), "--json"]
    runs: dict[str, list[dict[str, float]]] = {"reference": [], "hoplab": []}
    for round_ in range(repeat):
        order = ("reference", "hoplab") if round_ % 2 == 0 else ("hoplab", "reference")
        for who in order:
            load = os.getloadavg()[0]
            wall, stdout = _timed(case["command"] if who == "reference" else hoplab_cmd)
            if who == "hoplab":
                report = json.loads(stdout)
                goodput, sim_wall = float(report["flows"][0]["goodput_kbps"]), float(report["wall_seconds"])
            else:
                goodput, sim_wall = _reference_goodput(stdout), wall
            runs[who].append({"wall_s": wall, "load": load, "goodput_kbps": goodput, "sim_wall_s": sim_wall})
            print(f"  {name} {who:9s} round {round_ + 1}: {wall:7.2f} s wall (load {load:.1f}), "
                  f"goodput {goodput:.1f} kbit/s", file=sys.stderr, flush=True)
    best = {who: min(r, key=lambda x: x["wall_s"]) for who, r in runs.items()}
    loads = [r["load"] for rs in runs.values() for r in rs]
    return {
        "case": name,
        "reference": case["reference"],
        "sim_seconds": case["sim_seconds"],
        "reference_command": " ".join(case["command"]),
        "hoplab_command": "python -m hoplab run " + scenario_file.name + " --json",
        "hoplab_scenario": case["scenario"],
        "reference_wall_s": best["reference"]["wall_s"],
        "hoplab_wall_s": best["hoplab"]["wall_s"],
        "hoplab_simulation_wall_s": min(r["sim_wall_s"] for r in runs["hoplab"]),
        "ratio": best["reference"]["wall_s"] / best["hoplab"]["wall_s"],
        "reference_goodput_kbps": best["reference"]["goodput_kbps"],
        "hoplab_goodput_kbps": best["hoplab"]["goodput_kbps"],
        "load_min": min(loads),
        "load_max": max(loads),
        "repeat": repeat,
        "runs": runs,
    }


def table(results: list[dict[str, Any]]) -> str:
    lines = ["| case | reference | simulated s | reference wall s | hoplab wall s (simulating) | ratio | "
             "goodput kbit/s (reference / hoplab) | load average |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(
            f"| {r['case']} | {r['reference']} | {r['sim_seconds']:.0f} | {r['reference_wall_s']:.2f} | "
            f"{r['hoplab_wall_s']:.2f} ({r['hoplab_simulation_wall_s']:.2f}) | **{r['ratio']:.1f}x** | "
            f"{r['reference_goodput_kbps']:.1f} / {r['hoplab_goodput_kbps']:.1f} | "
            f"{r['load_min']:.1f}-{r['load_max']:.1f} |")
    return "\n".join(lines)


def _compile_hoplab() -> None:
    """Write the bytecode of the hoplab package the runs import (see the
    module's doc); stale files are rewritten, current ones kept."""
    import compileall

    import hoplab

    if not compileall.compile_dir(os.path.dirname(hoplab.__file__), quiet=1):
        sys.exit("could not compile hoplab's modules to bytecode")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", metavar="PREFIX",
                        help="cases whose name starts with PREFIX (repeatable; default every case)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each simulator per case; the fastest is kept")
    parser.add_argument("--ns3-python", type=Path, default=NS3_PYTHON, help="the interpreter with ns-3 3.44's bindings")
    parser.add_argument("--json", type=Path, help="also write every run to this file")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat: must be a positive integer")
    chosen = {n: c for n, c in cases(args.ns3_python).items()
              if not args.only or any(n.startswith(p) for p in args.only)}
    if not chosen:
        parser.error(f"--only: no case matches {args.only}")
    if any(n.startswith("ns2") for n in chosen) and shutil.which("ns") is None:
        sys.exit("ns-2.35 is not installed (`apt-get install -y ns2`), or --only ns3")
    if any(n.startswith("ns3") for n in chosen) and not args.ns3_python.exists():
        sys.exit(f"{args.ns3_python}: no ns-3 interpreter (scripts/ns3_chain.py's doc installs one), or --only ns2")
    command = "python scripts/bench_vs.py" + "".join(f" --only {p}" for p in args.only or []) \
        + (f" --repeat {args.repeat}" if args.repeat != 3 else "")
    _compile_hoplab()
    with tempfile.TemporaryDirectory(prefix="hoplab-bench-vs-") as tmp:
        results = [run_case(name, case, args.repeat, Path(tmp)) for name, case in chosen.items()]
    from hoplab import _core

    head = (f"{command}: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
            f"fastest of {args.repeat} alternated runs per simulator, hoplab's extension: "
            f"{_core.build_profile()} build (scripts/install.py)")
    print(head)
    print()
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps({"command": command, "results": results}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
