"""TCP-Linux parity: hoplab's Scalable, BIC and Vegas with SACK against
ns-2.35's TCP-Linux (Agent/TCP/Linux + select_ca, Agent/TCPSink/Sack1), per
run, on the same static paths: the 802.11 chain (scripts/ns2/chain.tcl, 4
and 7 hops, AODV, seeds 1-10) and seed 004's MANET (scripts/ns2/manet.tcl on
the placement hoplab draws for each seed, seeds 1-10). docs/tcp-linux-parity.md.

    .venv/bin/python scripts/ns2/tcp_linux_parity.py [--reference OUT.json]
        [--only chain|manet] [--set KEY=VALUE ...]

--reference writes ns-2's values (needs `ns`, Debian's ns2 2.35); --set
applies hoplab overrides to every run (e.g. the keys of the ns2 preset set
back to the standard's, to see the before). Prints one line per case and
seed: goodput (kbps), retransmission timeouts, retransmissions, cwnd mean and
coefficient of variation (std / mean of the samples from the warmup on:
hoplab's series every stats.series_interval_s, ns-2's cwnd_ read as often).
"""
from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import hoplab
from hoplab.papers import scalable_manet

ROOT = Path(__file__).resolve().parents[2]
CHAIN_TCL = ROOT / "scripts/ns2/chain.tcl"
MANET_TCL = ROOT / "scripts/ns2/manet.tcl"
CCS = ("scalable", "bic", "vegas")
CHAIN_HOPS = (4, 7)
#: Ten seeds: a 7-hop run's goodput varies by a factor of two or more
#: between seeds in both simulators (ns-2.35, Scalable: 64-93 kbps; BIC:
#: 50-106), so three could not resolve the 15 % tolerance (issue 29: the
#: rows were first stored with seeds 1-3; docs/tcp-linux-parity.md).
CHAIN_SEEDS = tuple(range(1, 11))
MANET_SEEDS = tuple(range(1, 11))
METRICS = ("goodput_kbps", "timeouts", "retransmissions", "cwnd_mean", "cwnd_cv")
#: What ns-2.35's TCP-Linux runs, Linux 2.6.22's modules: Vegas' diff in the
#: paper's form, Scalable's +1 per min(cwnd, 50) ACKs
#: (crates/hoplab-sim/src/transport/tcp/congestion/{vegas,scalable}.rs).
CC_PARAMS = {"vegas": {"diff": "brakmo"}, "scalable": {"increase": "linux", "decrease": "linux"}}


def chain_scenario(hops: int, cc: str) -> dict:
    """hoplab's side of scripts/ns2/chain.tcl's defaults (2 Mbps, 200 m,
    window 256, 512-byte payload, 100 s, goodput from 10 s)."""
    flow = {"src": 0, "dst": hops, "transport": "tcp", "app": "bulk", "packet_bytes": 512, "cc": cc}
    if cc in CC_PARAMS:
        flow["cc_params"] = CC_PARAMS[cc]
    return {"preset": "ns2", "duration_s": 100.0, "warmup_s": 10.0,
            "radio": {"data_rate_mbps": 2.0, "basic_rate_mbps": 2.0},
            "topology": {"kind": "chain", "nodes": hops + 1, "spacing_m": 200.0},
            "routing": {"protocol": "aodv"}, "tcp": {"rwnd_segments": 256, "sack": True},
            "stats": {"series_interval_s": 0.1}, "flows": [flow]}


def manet_scenario(cc: str, mobile: bool = False) -> dict:
    s = copy.deepcopy(scalable_manet.MANET_MOBILE if mobile else scalable_manet.MANET)
    s["flows"][0]["cc"] = cc
    if cc in CC_PARAMS:
        s["flows"][0]["cc_params"] = CC_PARAMS[cc]
    return s


def run_hoplab(scenario: dict, seed: int, overrides: dict) -> tuple[dict, list]:
    sc = hoplab.Scenario(scenario)
    for key, value in overrides.items():
        sc.set(key, value)
    result = hoplab.run(sc, seed=seed, series=True)
    flow = result.flows.iloc[0]
    series = result.series
    warmup = float(scenario["warmup_s"])
    cwnd = series[(series.entity == "flow") & (series.metric == "cwnd_segments")
                  & (series.time_s > warmup + 1e-9)]["value"].astype(float)
    positions = placement(seed) if scenario.get("mobility", {}).get("model", "static") != "static" else \
        [(node["x_m"], node["y_m"]) for node in result.to_dict()["nodes"]]
    return {"goodput_kbps": float(flow.goodput_kbps), "timeouts": int(flow.timeouts),
            "retransmissions": int(flow.retransmissions), "cwnd_mean": float(cwnd.mean()),
            "cwnd_cv": float(cwnd.std(ddof=0) / cwnd.mean())}, positions


_PLACEMENTS: dict[int, list] = {}


def placement(seed: int) -> list:
    """The static MANET's placement for `seed` (the mobile runs start
    from it: the same topology draw; hoplab's report gives final positions)."""
    if seed not in _PLACEMENTS:
        s = manet_scenario("scalable")
        s["duration_s"] = 1.0
        result = hoplab.run(hoplab.Scenario(s), seed=seed)
        _PLACEMENTS[seed] = [(node["x_m"], node["y_m"]) for node in result.to_dict()["nodes"]]
    return _PLACEMENTS[seed]


def run_ns2(args: list[str], cwd: str) -> dict:
    out = subprocess.run(["ns", *args], capture_output=True, text=True, cwd=cwd, check=True).stdout
    line = next(line for line in out.splitlines() if line.startswith("result "))
    r = json.loads(line[len("result "):])
    return {"goodput_kbps": r["goodput_kbps"], "timeouts": r["timeouts"], "retransmissions": r["retransmitted"],
            "cwnd_mean": r["cwnd_mean"], "cwnd_cv": r["cwnd_cv"]}


def cases(only: str | None):
    if only in (None, "chain"):
        for cc in CCS:
            for hops in CHAIN_HOPS:
                yield (f"chain-{hops}hop-{cc}", {"topology": "chain", "hops": hops, "routing": "AODV", "cc": cc, "sack": 1},
                       CHAIN_SEEDS, chain_scenario(hops, cc),
                       lambda seed, pos, hops=hops, cc=cc: [str(CHAIN_TCL), f"hops={hops}", "routing=AODV", f"cc={cc}",
                                                            "sack=1", f"seed={seed}"])
    if only in (None, "manet"):
        for cc in CCS:
            yield (f"manet-static-{cc}", {"topology": "manet-20-static", "routing": "AODV", "cc": cc, "sack": 1,
                                         "placement": "hoplab's draw for the seed (report nodes x_m, y_m)"},
                   MANET_SEEDS, manet_scenario(cc),
                   lambda seed, pos, cc=cc: [str(MANET_TCL), f"placement={pos}", f"cc={cc}", f"seed={seed}"])
    if only in (None, "manet-mobile"):
        # Random waypoint at 20 m/s from 20 s: ns-2 draws its own paths, so
        # this case compares distributions over seeds, not runs.
        for cc in CCS:
            yield (f"manet-mobile-{cc}", {"topology": "manet-20-mobile", "routing": "AODV", "cc": cc, "sack": 1,
                                         "mobility": "random waypoint, 20 m/s, no pause, from 20 s; ns-2's own paths",
                                         "placement": "hoplab's static draw for the seed, at t = 0"},
                   MANET_SEEDS, manet_scenario(cc, mobile=True),
                   lambda seed, pos, cc=cc: [str(MANET_TCL), f"placement={pos}", f"cc={cc}", f"seed={seed}",
                                             "speed_mps=20", "move_start=20"])


def main() -> int:
    global CHAIN_SEEDS, CCS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", help="write ns-2's values to this JSON file")
    parser.add_argument("--only", choices=("chain", "manet", "manet-mobile"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--chain-seeds", type=int, default=len(CHAIN_SEEDS), metavar="N",
                        help=f"run the chain cases on seeds 1..N (default {len(CHAIN_SEEDS)})")
    parser.add_argument("--cc", choices=CCS, action="append", help="only these controllers (default: all)")
    parser.add_argument("--vegas-diff", default="brakmo", choices=("brakmo", "linux"),
                        help="hoplab Vegas' cc_params.diff (ns-2.35's Linux 2.6.22: brakmo)")
    parser.add_argument("--scalable-increase", default="linux", choices=("linux", "kelly"),
                        help="hoplab Scalable's cc_params.increase and decrease (ns-2.35's Linux 2.6.22: linux)")
    args = parser.parse_args()
    CHAIN_SEEDS = tuple(range(1, args.chain_seeds + 1))
    CCS = tuple(args.cc) if args.cc else CCS
    CC_PARAMS["vegas"] = {"diff": args.vegas_diff}
    CC_PARAMS["scalable"] = {"increase": args.scalable_increase, "decrease": args.scalable_increase}
    overrides = {}
    for kv in args.set:
        key, value = kv.split("=", 1)
        overrides[key] = json.loads(value) if value[:1] in "0123456789tf[{-\"" else value
    ref_cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, params, seeds, scenario, ns2_args in cases(args.only):
            hl_values = {m: [] for m in METRICS}
            placements = []
            ns_values = {m: [] for m in METRICS}
            for seed in seeds:
                h, positions = run_hoplab(scenario, seed, overrides)
                placement = Path(tmp) / f"placement-{seed}.tcl"
                placement.write_text("".join(f"set pos({i}) {{{x!r} {y!r}}}\n" for i, (x, y) in enumerate(positions)))
                placements.append([[x, y] for x, y in positions])
                n = run_ns2(ns2_args(seed, placement), tmp)
                for m in METRICS:
                    hl_values[m].append(h[m])
                    ns_values[m].append(n[m])
                print(f"{name:22s} seed {seed:2d}  hoplab " + " ".join(f"{m} {h[m]:.3g}" for m in METRICS)
                      + "  | ns-2 " + " ".join(f"{m} {n[m]:.3g}" for m in METRICS), flush=True)
            mean = lambda xs: sum(xs) / len(xs)
            print(f"{name:22s} MEAN     hoplab " + " ".join(f"{m} {mean(hl_values[m]):.3g}" for m in METRICS)
                  + "  | ns-2 " + " ".join(f"{m} {mean(ns_values[m]):.3g}" for m in METRICS), flush=True)
            command = "ns " + " ".join(ns2_args("SEED", "PLACEMENT.tcl")).replace(str(ROOT) + "/", "")
            case = {"name": name, "params": params, "command": command, "seeds": list(seeds), "values": ns_values}
            if params["topology"] == "manet-20-static":
                # The positions ns-2 ran on, per seed (metres; hoplab's
                # draw for that seed), so the reference stands on its own.
                case["placements"] = placements
            ref_cases.append(case)
    if args.reference:
        # With --only or --cc, the other cases of an existing reference stay.
        path = Path(args.reference)
        if (args.only or args.cc) and path.is_file():
            new = {c["name"]: c for c in ref_cases}
            old = json.loads(path.read_text())["cases"]
            ref_cases = [new.pop(c["name"], c) for c in old] + list(new.values())
        doc = {"source": "ns-2.35 TCP-Linux (Agent/TCP/Linux, select_ca; Agent/TCPSink/Sack1), "
                         "scripts/ns2/chain.tcl and scripts/ns2/manet.tcl",
               "command": ".venv/bin/python scripts/ns2/tcp_linux_parity.py --reference " + args.reference,
               "version": "ns2 2.35+dfsg-5",
               "metrics": {"goodput_kbps": "payload acknowledged x 8 / (duration - warmup)",
                           "timeouts": "nrexmit_ (retransmission timeouts)",
                           "retransmissions": "nrexmitpack_ (segments retransmitted)",
                           "cwnd_mean": "mean of cwnd_ sampled every sample_s after warmup",
                           "cwnd_cv": "std / mean of the same samples"},
               "cases": ref_cases}
        Path(args.reference).write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
