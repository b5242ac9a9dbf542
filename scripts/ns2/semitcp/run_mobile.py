"""Seed 000's mobile scenario in ns-semitcp on hoplab's own node movements.

    .venv/bin/python scripts/ns2/semitcp/run_mobile.py --ns /path/to/ns-semitcp
        [--seeds 1,2,3] [--speeds 20] [--duration 100] [--jobs 2] [--out FILE]
        [--keep DIR] [--mac-trace] [--set KEY=VALUE ...]

For each seed and maximum speed: hoplab runs examples/semitcp-mobile-48.toml
(48 nodes, random waypoint in 1500 x 3000 m, AODV, 10 semi-TCP flows 2i ->
2i+1) with `preset = "ns2"` (hoplab.fidelity.family_ns2_semitcp_mobile.
mobile_scenario, the scenario of Figs. 11-12 in `hoplab reproduce
semitcp-2018`) and its run recorded (`hoplab.run(record=True)`:
every node's position every 0.25 s); the positions become an ns-2 movement
file (`$node_(i) set X_/Y_` at t = 0, then at each sample time `setdest` to
the next sample at the speed that reaches it at the next sample), and
scripts/ns2/semitcp/mobile.tcl runs the same scenario in ns-semitcp on it.
Random waypoint moves in straight legs, so the samples' chords are the path
except within 0.25 s of a waypoint (at most 20 m/s x 0.125 s = 2.5 m off
there) and for the recording's 0.1 m rounding.

Printed per flow: packets the source sent (distinct), delivered (distinct),
route requests the source originated toward the destination (ns-2) / route
discoveries (hoplab), goodput; with --out the ns-2 values are stored as the
reference of `hoplab/fidelity/family_ns2_semitcp_mobile.py`.
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

import hoplab
from hoplab.fidelity.family_ns2_semitcp_mobile import mobile_scenario

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
OUT = REPO / "python" / "hoplab" / "data" / "references" / "ns2-semitcp-mobile.json"
VERSION = "ns-2.35 + semi-TCP (musicinthedark/semitcp 8d9b9e9)"
PAYLOAD_BYTES = 512


def scenario(max_speed_mps: float, duration_s: float, overrides: dict) -> hoplab.Scenario:
    """hoplab's side: the family's scenario (Figs. 11-12 of `hoplab reproduce
    semitcp-2018`, examples/semitcp-mobile-48.toml with `preset = "ns2"`)."""
    sc = hoplab.Scenario(mobile_scenario(max_speed_mps, duration_s))
    for key, value in overrides.items():
        sc.set(key, value)
    return sc


def movement_tcl(recording: dict, width_m: float, height_m: float) -> str:
    """ns-2 movement lines from hoplab's recorded positions (decimetres)."""
    times = recording["times_s"]
    pos = recording["positions_dm"]
    n = len(pos[0]) // 2
    clamp = lambda v, hi: min(max(v, 0.05), hi - 0.05)  # noqa: E731 (set_destination refuses the edges)
    xy = [[(clamp(p[2 * i] / 10.0, width_m), clamp(p[2 * i + 1] / 10.0, height_m)) for i in range(n)] for p in pos]
    lines = []
    for i in range(n):
        x, y = xy[0][i]
        lines.append(f"$node_({i}) set X_ {x:.2f}\n$node_({i}) set Y_ {y:.2f}\n$node_({i}) set Z_ 0.0\n")
    for k in range(len(times) - 1):
        dt = times[k + 1] - times[k]
        for i in range(n):
            (x0, y0), (x1, y1) = xy[k][i], xy[k + 1][i]
            d = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
            if d > 0.0:
                lines.append(f'$ns_ at {times[k]:.4f} "$node_({i}) setdest {x1:.2f} {y1:.2f} {d / dt:.4f}"\n')
    return "".join(lines)


def _fields(line: str) -> tuple[str, dict]:
    f = line.split()
    return f[0], {f[j]: f[j + 1] for j in range(1, len(f) - 1, 2)}


def mobile_stats(trace: str, flows: int, warmup_s: float, duration_s: float) -> list[dict]:
    """Per flow 2i -> 2i+1 from an ns-2 new-format trace (AGT and RTR levels):
    the source's SYN apart (how often and when it was sent), data segments
    (512 B payload) sent and delivered
    (all, as hoplab's `sent` and `delivered`, and distinct sequence numbers),
    the in-order payload delivered within [warmup, duration] (hoplab's
    goodput rule), ACKs, the RREQs each end originated toward the other
    (all of them: expanding-ring steps and retries), drops by trace reason."""
    st = [{"syn_sent": 0, "syn_delivered": 0, "sent": 0, "sent_distinct": set(), "delivered": 0, "delivered_distinct": set(), "in_order_bytes": 0,
           "next_seq": 0, "acks_sent": 0, "acks_received": 0, "rreq_src": 0, "rreq_dst": 0,
           "first_sends_s": [], "syn_sends_s": [], "drops": {}} for _ in range(flows)]
    with open(trace, encoding="latin-1") as fh:  # noqa: PLR1702 (one pass over a large file)
        for line in fh:
            if len(line) < 3 or line[1] != " ":
                continue
            ev, f = _fields(line)
            node = int(f.get("-Ni", -1))
            level = f.get("-Nl")
            kind = f.get("-It")
            if kind in ("tcp", "ack"):
                fid = int(f.get("-If", -1))
                if not 0 <= fid < flows:
                    continue
                s, src, dst, seq = st[fid], 2 * fid, 2 * fid + 1, int(f["-Ps"])
                t = float(f["-t"])
                if ev == "d":
                    why = f"{kind}:{f.get('-Nw')}"
                    s["drops"][why] = s["drops"].get(why, 0) + 1
                elif level != "AGT":
                    continue
                elif kind == "tcp" and int(f["-Il"]) < PAYLOAD_BYTES:
                    # ns-2.35's TcpAgent opens with a 40-byte SYN (syn_ true),
                    # seqno 0, before the first data segment.
                    s["syn_sent" if ev == "s" and node == src else "syn_delivered"] += node in (src, dst)
                    if ev == "s" and node == src:
                        s["syn_sends_s"].append(round(t, 3))
                elif kind == "tcp" and ev == "s" and node == src:
                    s["sent"] += 1
                    s["sent_distinct"].add(seq)
                    if len(s["first_sends_s"]) < 12:
                        s["first_sends_s"].append(round(t, 3))
                elif kind == "tcp" and ev == "r" and node == dst:
                    s["delivered"] += 1
                    s["delivered_distinct"].add(seq)
                    s["next_seq"] = max(s["next_seq"], 1)  # seqno 0 is the SYN
                    while s["next_seq"] in s["delivered_distinct"]:
                        s["next_seq"] += 1
                        if warmup_s <= t <= duration_s:
                            s["in_order_bytes"] += PAYLOAD_BYTES
                elif kind == "ack" and ev == "s" and node == dst:
                    s["acks_sent"] += 1
                elif kind == "ack" and ev == "r" and node == src:
                    s["acks_received"] += 1
            elif kind == "AODV" and ev == "s" and level == "RTR" and f.get("-Pc") == "REQUEST":
                origin, target = int(f.get("-Ps", -1)), int(f.get("-Pd", -1))
                if node == origin and origin // 2 < flows and target == origin ^ 1:
                    st[origin // 2]["rreq_src" if origin % 2 == 0 else "rreq_dst"] += 1
    out = []
    for s in st:
        out.append({"syn_sent": s["syn_sent"], "syn_delivered": s["syn_delivered"], "sent": s["sent"], "sent_distinct": len(s["sent_distinct"]), "delivered": s["delivered"],
                    "delivered_distinct": len(s["delivered_distinct"]),
                    "goodput_kbps": round(s["in_order_bytes"] * 8 / 1000 / (duration_s - warmup_s), 3),
                    "acks_sent": s["acks_sent"], "acks_received": s["acks_received"],
                    "rreq_originated_src": s["rreq_src"], "rreq_originated_dst": s["rreq_dst"],
                    "first_sends_s": s["first_sends_s"], "syn_sends_s": s["syn_sends_s"], "drops": s["drops"]})
    return out


def run_pair(ns: str, seed: int, speed: float, duration_s: float, overrides: dict, keep: str | None,
             mac_trace: bool = False) -> dict:
    sc = scenario(speed, duration_s, overrides)
    result = hoplab.run(sc, seed=seed, record=True).to_dict()
    rec = result["recording"]
    width, height = rec["area_m"]
    ours = [{"sent": f["sent"], "delivered": f["delivered"], "goodput_kbps": round(f["goodput_kbps"], 3),
             "route_discoveries": f["route_discoveries"], "timeouts": f["timeouts"], "losses": f["losses"]}
            for f in result["flows"]]
    args = ["mobile.tcl", "movement=movement.tcl", f"seed={seed}", f"duration={duration_s:g}",
            f"width_m={width:g}", f"height_m={height:g}", f"nodes={len(rec['has_radio'])}", f"flows={len(ours)}"]
    if mac_trace:
        args.append("mac_trace=1")
    with tempfile.TemporaryDirectory(prefix="semitcp-mobile-") as tmp:
        shutil.copy(HERE / "mobile.tcl", tmp)
        Path(tmp, "movement.tcl").write_text(movement_tcl(rec, width, height))
        p = subprocess.run([ns, *args], cwd=tmp, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"ns failed ({p.returncode}) for {args}: {p.stderr[-2000:]}")
        theirs = mobile_stats(str(Path(tmp) / "mobile.tr"), len(ours), rec["warmup_s"], duration_s)
        if keep:
            dest = Path(keep) / f"seed{seed}-speed{speed:g}"
            dest.mkdir(parents=True, exist_ok=True)
            for name in ("movement.tcl", "mobile.tr"):
                shutil.copy(Path(tmp, name), dest / name)
            (dest / "hoplab.json").write_text(json.dumps(result, default=str))
    command = "ns-semitcp scripts/ns2/semitcp/" + " ".join(args).replace("movement.tcl", "MOVEMENT.tcl", 1)
    # Where every node was (decimetres, x and y per node) at the first,
    # middle and last sample: what tests/test_fidelity_semitcp_mobile.py
    # checks hoplab still moves the nodes along.
    marks = {f"{rec['times_s'][k]:g}": rec["positions_dm"][k] for k in (0, len(rec["times_s"]) // 2, -1)}
    return {"seed": seed, "max_speed_mps": speed, "duration_s": duration_s, "command": command,
            "positions_dm": marks, "ns2": theirs, "hoplab": ours}


def summary(run: dict) -> str:
    lines = [f"seed {run['seed']} max speed {run['max_speed_mps']:g} m/s"]
    for i, (n, h) in enumerate(zip(run["ns2"], run["hoplab"])):
        lines.append(f"  flow {i}: ns-2 syn {n['syn_sent']} sent {n['sent_distinct']:5d} ({n['sent']:5d}) deliv {n['delivered_distinct']:5d} "
                     f"rreq {n['rreq_originated_src']:3d}/{n['rreq_originated_dst']:3d} {n['goodput_kbps']:7.2f} kbps"
                     f" | hoplab sent {h['sent']:5d} deliv {h['delivered']:5d} disc {h['route_discoveries']:3d} "
                     f"rto {h['timeouts']:3d} {h['goodput_kbps']:7.2f} kbps")
    tot = lambda side: sum(f["goodput_kbps"] for f in run[side])  # noqa: E731
    live = lambda side, key: sum(1 for f in run[side] if f[key] > 0)  # noqa: E731
    lines.append(f"  total: ns-2 {tot('ns2'):.1f} kbps, {live('ns2', 'delivered_distinct')} flows deliver | "
                 f"hoplab {tot('hoplab'):.1f} kbps, {live('hoplab', 'delivered')} flows deliver")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", required=True, help="the ns-semitcp binary (build.sh)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--speeds", default="20")
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", help="write the reference JSON here (python/hoplab/data/references/ns2-semitcp-mobile.json)")
    ap.add_argument("--keep", help="keep each run's movement file, ns-2 trace and hoplab report under this directory")
    ap.add_argument("--mac-trace", action="store_true",
                    help="ns-2's MAC-level trace too, ARP included (diagnosis, with --keep; the per-flow counts are unchanged, the drops gain the MAC's)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a hoplab override (diagnosis)")
    a = ap.parse_args(argv)
    overrides = {}
    for kv in a.set:
        key, value = kv.split("=", 1)
        overrides[key] = json.loads(value) if value[:1] in "0123456789tf[{-\"" else value
    jobs = [(s, float(v)) for v in a.speeds.split(",") for s in (int(x) for x in a.seeds.split(","))]
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        runs = list(ex.map(lambda j: run_pair(a.ns, j[0], j[1], a.duration, overrides, a.keep, a.mac_trace), jobs))
    for run in runs:
        print(summary(run), flush=True)
    if a.out:
        doc = {
            "set": "ns2-semitcp-mobile",
            "what": ("Plain semi-TCP on seed 000's mobile scenario (examples/semitcp-mobile-48.toml: 48 nodes, "
                     "random waypoint 1-max m/s without pause in 1500 x 3000 m, AODV, 10 FTP flows 2i -> 2i+1, "
                     "512 B, 2 Mbit/s, 250 m / 500 m) in ns-semitcp with the authors' semi-TCP settings "
                     "(scripts/ns2/semitcp/mobile.tcl), on the node movements hoplab recorded for the same seed "
                     "(preset ns2); per flow: data packets the source sent (all / distinct), delivered (all / "
                     "distinct), in-order payload delivered over warmup-duration (goodput_kbps, hoplab's rule), "
                     "the instants the source sent its 40-byte SYN (syn_sends_s), "
                     "AODV route requests the source (and the sink) originated toward the other end, drops by "
                     "trace reason; 'hoplab' holds hoplab's own values of the run the movements came from"),
            "script": "scripts/ns2/semitcp/mobile.tcl",
            "driver": "scripts/ns2/semitcp/run_mobile.py",
            "build": "scripts/ns2/semitcp/build.sh",
            "version": VERSION,
            "hoplab_version": hoplab.__version__,
            "command": f".venv/bin/python scripts/ns2/semitcp/run_mobile.py --ns NS --seeds {a.seeds} "
                       f"--speeds {a.speeds} --duration {a.duration:g} --out OUT",
            "runs": runs,
        }
        Path(a.out).write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
