"""Run the ns-2.35 reference scenarios and store their results as package data.

    python scripts/ns2/reference.py [--only NAME] [--seeds 1,2,3]

Needs ns-2.35 (`apt-get install ns2`: Debian's ns2 2.35). Each reference set
is a Tcl script of this folder run over a grid of arguments and seeds; its
results go to python/hoplab/data/references/<set>.json with the exact
command of every run, the ns-2 version and the seeds, which `hoplab
fidelity` compares hoplab with (docs/fidelity.md). `hoplab fidelity
--regenerate` calls this.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT_DIR = REPO / "python" / "hoplab" / "data" / "references"

# One reference set: the script, the grid of cases (each a dict of the
# script's key=value arguments) and the seeds.
SETS: dict[str, dict] = {
    "ns2-chain-routing": {
        "script": "chain.tcl",
        "what": "TCP NewReno over the 802.11 chain with AODV and DSR (2 Mb/s, 512 B, 200 m, RTS always, ifq 50, window 256, 100 s, goodput over 10-100 s)",
        "cases": [{"routing": r, "hops": h} for r in ("AODV", "DSR") for h in (1, 2, 4, 7, 10, 14)],
        "seeds": list(range(1, 11)),
    },
    "ns2-chain-gilbert": {
        "script": "chain.tcl",
        "what": "TCP NewReno over AODV on examples/tcp-ra-chain-gilbert.toml's chain (6 hops, 200 m, 11 Mb/s data, 1 Mb/s basic rate, 800 B, window 20, ifq 50, 130 s, goodput over 30-130 s) with two-state frame errors at every receiver (3 % of frames, mean burst 3 frames)",
        "cases": [{"routing": "AODV", "hops": 6, "rate_mbps": 11, "basic_mbps": 1, "packet_bytes": 800, "window": 20,
                   "duration": 130.0, "warmup": 30.0, "errors": "gilbert", "per": 0.03, "burst_frames": 3.0}],
        "seeds": list(range(1, 11)),
    },
    "ns2-wired": {
        "script": "wired.tcl",
        "what": "one bulk TCP flow over seed 002's wired path (100 Mb/s 30 ms, 100 Mb/s 10 ms, a 5 Mb/s 0.01 ms last hop losing 0-3 % of packets each way; queues 50, 1000 B, window 1000, 100 s, goodput over 10-100 s): NewReno, and TCP-Linux with a Sack1 sink",
        "cases": [{"cc": cc, "sack": int(cc != "newreno"), "loss": loss}
                  for cc in ("newreno", "scalable", "bic", "cubic", "vegas", "veno", "westwood")
                  for loss in (0.0, 0.01, 0.02, 0.03)],
        "seeds": list(range(1, 6)),
    },
    "ns2-aqm": {
        "script": "wired.tcl",
        "what": "three NewReno flows over seed 002's wired path, the 5 Mb/s last hop's queue (50 packets) DropTail, RED, REM or PI (q_ref 20) at ns-2's defaults; 60 s, goodput over 10-60 s, queue statistics over the whole run",
        "cases": [{"flows": 3, "queue": q, "duration": 60.0, **({"qref": 20} if q == "PI" else {})}
                  for q in ("DropTail", "RED", "REM", "PI")],
        "seeds": list(range(1, 6)),
    },
}


def ns_version() -> str:
    """The installed ns-2's package version (Debian), else `ns -version`."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True, check=True).stdout
        return f"ns2 {out.strip()} (Debian)"
    except (OSError, subprocess.CalledProcessError):
        out = subprocess.run(["ns", "-version"], capture_output=True, text=True).stdout
        return out.strip()


def run_case(script: str, args: dict, seed: int) -> dict:
    argv = ["ns", f"scripts/ns2/{script}"] + [f"{k}={v}" for k, v in args.items()] + [f"seed={seed}"]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=600)
    match = re.search(r"^result (\{.*\})$", proc.stdout, re.M)
    if proc.returncode != 0 or not match:
        raise RuntimeError(f"{' '.join(argv)} failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
    return {"command": " ".join(argv), **json.loads(match.group(1))}


def regenerate(name: str, seeds: list[int] | None = None) -> Path:
    spec = SETS[name]
    seeds = seeds or spec["seeds"]
    cases = []
    for args in spec["cases"]:
        runs = [run_case(spec["script"], args, seed) for seed in seeds]
        print(f"{name} {args}: " + " ".join(f"{r.get('goodput_kbps', float('nan')):.1f}" for r in runs), file=sys.stderr)
        cases.append({"params": args, "seeds": seeds, "runs": runs})
    doc = {
        "set": name,
        "what": spec["what"],
        "script": f"scripts/ns2/{spec['script']}",
        "driver": "scripts/ns2/reference.py",
        "version": ns_version(),
        "cases": cases,
    }
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{name}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SETS), help="one reference set")
    parser.add_argument("--seeds", help="comma-separated seeds (default: each set's)")
    args = parser.parse_args()
    if shutil.which("ns") is None:
        print("error: ns (ns-2.35) is not installed: apt-get install ns2", file=sys.stderr)
        return 2
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else None
    for name in [args.only] if args.only else sorted(SETS):
        print(regenerate(name, seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
