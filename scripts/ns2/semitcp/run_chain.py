"""Run the semi-TCP authors' chain script on ns-2.35 + semi-TCP and store the results.

    python scripts/ns2/semitcp/run_chain.py --ns /path/to/ns-semitcp [--jobs 2]
        [--hops 3,5,7,10,14] [--seeds 1,2,3] [--callrt 1,0] [--out FILE]
    python scripts/ns2/semitcp/run_chain.py --ns ... --published   # unseeded runs only, printed

Each run is `ns-semitcp rt_fail.tcl 1 NODES 100 7 CALLRT 0 1 1 seed=N` in a
temporary directory (the script writes chain.tr there), the arguments of the
authors' chain/rt-fail/semi-dupack/chain.sh (CALLRT 1) and
chain/static/semi-dupack/chain.sh (CALLRT 0) plus the seed; the trace is
reduced with chain_stats.py (the rules of their avgStatsForTcp.awk) and
deleted. Results go to python/hoplab/data/references/ns2-semitcp-chain.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
OUT = REPO / "python" / "hoplab" / "data" / "references" / "ns2-semitcp-chain.json"
sys.path.insert(0, str(HERE))
from chain_stats import chain_stats  # noqa: E402

VERSION = "ns-2.35 + semi-TCP (musicinthedark/semitcp 8d9b9e9)"


def run_one(ns: str, hops: int, callrt: int, seed: int) -> dict:
    nodes = hops + 1
    args = ["1", str(nodes), "100", "7", str(callrt), "0", "1", "1"]
    if seed:
        args.append(f"seed={seed}")
    with tempfile.TemporaryDirectory(prefix="semitcp-chain-") as tmp:
        shutil.copy(HERE / "rt_fail.tcl", tmp)
        p = subprocess.run([ns, "rt_fail.tcl", *args], cwd=tmp, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"ns failed ({p.returncode}) for {args}: {p.stderr[-2000:]}")
        st = chain_stats(str(Path(tmp) / "chain.tr"), 0, nodes - 1, 0, 512)
    st["command"] = "ns-semitcp scripts/ns2/semitcp/rt_fail.tcl " + " ".join(args)
    return st


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", required=True, help="the ns-semitcp binary (build.sh)")
    ap.add_argument("--hops", default="3,5,7,10,14")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--callrt", default="1,0")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--published", action="store_true",
                    help="unseeded runs (the authors' default RNG state), printed, not stored")
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args(argv)
    hops = [int(x) for x in a.hops.split(",")]
    callrts = [int(x) for x in a.callrt.split(",")]
    seeds = [0] if a.published else [int(x) for x in a.seeds.split(",")]
    jobs = [(c, h, s) for c in callrts for h in hops for s in seeds]
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        results = list(ex.map(lambda j: run_one(a.ns, j[1], j[0], j[2]), jobs))
    by = {j: r for j, r in zip(jobs, results)}
    if a.published:
        for (c, h, s), r in by.items():
            print(json.dumps({"callrt": c, "hops": h, **r}))
        return 0
    cases = []
    for c in callrts:
        for h in hops:
            runs = []
            for s in seeds:
                r = by[(c, h, s)]
                runs.append({
                    "command": r["command"],
                    "goodput_kbps": round(r["goodput_kbps"], 3),
                    "mean_delay_ms": round(r["mean_delay_ms"], 3),
                    "acks_sent": r["acks_sent"],
                    "acks_received": r["acks_received"],
                    "sent_pkts": r["sent_pkts"],
                    "retransmitted": r["retransmitted"],
                    "received_unique": r["received_unique"],
                    "rts_sent": r["rts_sent"],
                })
            cases.append({"params": {"callrt": c, "hops": h}, "seeds": seeds, "runs": runs})
    doc = {
        "set": "ns2-semitcp-chain",
        "what": ("Plain semi-TCP (Agent/TCP/Semi, TCPSink, no_dupack_ 0) on the semi-TCP authors' "
                 "802.11 chain: 200 m spacing, 250 m / 550 m, 1 Mbit/s data and basic rate "
                 "(Mac/802_11 defaults), RTS always, ifq 50, AODV, 512 B, FTP from 1 s, "
                 "100 s, ShortRetryLimit 7, CongestionThreshold_ 1, K_ 1, RTT_ 0.006; "
                 "callrt = Mac/802_11 CALLRT_ (1: link-failure reports to AODV, chain/rt-fail; "
                 "0: none, chain/static); statistics by the rules of the authors' "
                 "avgStatsForTcp.awk (scripts/ns2/semitcp/chain_stats.py): goodput = 512 B "
                 "payload of first receptions over [first send, last first reception]"),
        "script": "scripts/ns2/semitcp/rt_fail.tcl",
        "driver": "scripts/ns2/semitcp/run_chain.py",
        "build": "scripts/ns2/semitcp/build.sh",
        "version": VERSION,
        "cases": cases,
    }
    Path(a.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
