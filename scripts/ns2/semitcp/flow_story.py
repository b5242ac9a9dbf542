"""One flow of the mobile scenario in both simulators, down to its RREQs and RREPs.

    .venv/bin/python scripts/ns2/semitcp/flow_story.py --keep DIR --seed 3 --speed 15 --flow 9
        [--from 30 --to 70]

DIR is what `run_mobile.py --keep DIR` left (per run: hoplab.json with the
recording, mobile.tr, the ns-2 trace, with `--mac-trace` also ARP and
collisions). Printed (docs/fidelity.md, "The failing rows, flow by flow"):

- when the flow's ends are connected: hoplab's recorded positions every
  0.25 s, links of at most `--range-m` (250 m), with the hop count and the
  first path of each window;
- ns-2: each RREQ the source originated toward the destination (time,
  nodes that re-broadcast it, when the destination had it), every routing-
  level event of the RREPs toward the source (a `d` with `IFQ END` is a
  RREP still held by ARP when the run ended), the ARP requests and
  collisions of those RREPs' hops (MAC trace only) and the source's
  agent-level sends;
- hoplab, from a pcap of the same run (written to DIR on first use): each
  RREQ of the source (time, TTL, re-broadcasting nodes), the RREPs toward
  it hop by hop, and the flow's first transmissions by its source.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import deque
from pathlib import Path

import dpkt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run_mobile import scenario  # noqa: E402


def connected_windows(recording: dict, src: int, dst: int, range_m: float) -> list[tuple[float, float, list[int]]]:
    """(start, end, first path) of each run of samples where a path joins the ends."""
    windows: list[tuple[float, float, list[int]]] = []
    step = recording["interval_s"]
    for t, pos in zip(recording["times_s"], recording["positions_dm"]):
        xy = [(pos[2 * i] / 10.0, pos[2 * i + 1] / 10.0) for i in range(len(pos) // 2)]
        prev: dict[int, int | None] = {src: None}
        todo = deque([src])
        while todo and dst not in prev:
            u = todo.popleft()
            for v in range(len(xy)):
                if v not in prev and math.dist(xy[u], xy[v]) <= range_m:
                    prev[v] = u
                    todo.append(v)
        if dst not in prev:
            continue
        path = [dst]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])  # type: ignore[arg-type]
        if windows and abs(t - windows[-1][1] - step) < 1e-6:
            windows[-1] = (windows[-1][0], t, windows[-1][2])
        else:
            windows.append((t, t, path[::-1]))
    return windows


def ns2_events(trace: Path, t0: float, t1: float) -> list[tuple[str, float, dict[str, str]]]:
    out = []
    with trace.open(encoding="latin-1") as fh:
        for line in fh:
            f = line.split()
            if len(f) < 3 or f[1] != "-t":
                continue
            t = float(f[2])
            if t0 <= t <= t1:
                out.append((f[0], t, {f[j]: f[j + 1] for j in range(1, len(f) - 1, 2)}))
    return out


def ns2_story(events: list, src: int, dst: int, flow: int) -> None:
    rreqs: dict[str, dict] = {}
    for ev, t, f in events:
        if f.get("-It") == "AODV" and f.get("-Pc") == "REQUEST" and f.get("-Nl") == "RTR" \
                and f.get("-Ps") == str(src) and f.get("-Pd") == str(dst):
            r = rreqs.setdefault(f["-Pb"], {"at": None, "by": set(), "dst_at": None})
            node = int(f["-Ni"])
            if ev == "s" and node == src:
                r["at"] = t
            elif ev == "s":
                r["by"].add(node)
            elif ev == "r" and node == dst and r["dst_at"] is None:
                r["dst_at"] = t
    for r in sorted(rreqs.values(), key=lambda r: r["at"] or 0.0):
        print(f"  RREQ {r['at']}: re-broadcast by {len(r['by'])} nodes, destination has it at {r['dst_at']}")
    hops: set[tuple[int, int]] = set()
    for ev, t, f in events:
        rrep = f.get("-Pc") == "REPLY" and f.get("-Pd") == str(dst) and f.get("-Id", "").split(".")[0] == str(src)
        if rrep and f.get("-Nl") in ("RTR", "IFQ"):
            print(f"    RREP {ev} {t:.4f} node {f['-Ni']} -> {f.get('-Hd')} ({f.get('-Nl')} {f.get('-Nw')})")
            if ev == "f":
                hops.add((int(f["-Ni"]), int(f["-Hd"])))
        pair = (int(f.get("-Ps", -1)), int(f.get("-Pd", -1)))
        arp = f.get("-Mt") == "ARP" and (pair in hops or pair[::-1] in hops)
        if arp and (ev != "r" or f["-Ni"] == f.get("-Pd")):  # sends, losses, and arrivals where addressed
            print(f"    ARP {f.get('-Po')} {ev} {t:.6f} at node {f['-Ni']} {f.get('-Nw')}")
        if f.get("-It") == "tcp" and f.get("-Nl") == "AGT" and ev == "s" and f.get("-If") == str(flow):
            print(f"    source sends {t:.3f} ({f.get('-Il')} B)")


def hoplab_pcap(keep: Path, seed: int, speed: float) -> Path:
    path = keep / "hoplab.pcap"
    if not path.exists():
        import hoplab

        hoplab.run(scenario(speed, 100.0, {}), seed=seed, pcap=path)
    return path


def hoplab_frames(path: Path, t0: float, t1: float) -> list[tuple[float, int, int | None, object]]:
    """(time, transmitter, receiver or None for broadcast, IP packet) of DATA frames."""
    node = lambda mac: int.from_bytes(mac[2:], "big") - 1  # noqa: E731 (02:00 + node + 1, docs/traces.md)
    out = []
    with path.open("rb") as fh:
        for ts, data in dpkt.pcap.Reader(fh):
            t = float(ts)
            mpdu = data[data[2] | data[3] << 8:]
            if not t0 <= t <= t1 or (mpdu[0] >> 2) & 3 != 2:
                continue
            ip = dpkt.llc.LLC(mpdu[24:]).data
            to = None if mpdu[4:10] == b"\xff" * 6 else node(mpdu[4:10])
            out.append((t, node(mpdu[10:16]), to, ip))
    return out


def hoplab_story(frames: list, src: int, dst: int) -> None:
    addr = lambda b: b[3] - 1  # noqa: E731 (10.0.0.(node + 1))
    rreqs: dict[int, dict] = {}
    sent = 0
    for t, tx, to, ip in frames:
        if isinstance(ip.data, dpkt.udp.UDP) and ip.data.dport == 654:
            m = bytes(ip.data.data)
            if m[0] == 1 and addr(m[8:12]) == dst and addr(m[16:20]) == src:
                r = rreqs.setdefault(int.from_bytes(m[4:8], "big"), {"at": None, "ttl": None, "by": set()})
                if tx == src and r["at"] is None:
                    r["at"], r["ttl"] = round(t, 4), ip.ttl
                elif tx != src:
                    r["by"].add(tx)
            elif m[0] == 2 and addr(m[4:8]) == dst and addr(m[12:16]) == src:
                print(f"    RREP {t:.4f} node {tx} -> {to} (hop count {m[3]})")
        elif isinstance(ip.data, dpkt.tcp.TCP) and tx == src and addr(ip.src) == src and sent < 20:
            sent += 1
            print(f"    source transmits {t:.4f} to {to} (byte {ip.data.seq})")
    for r in sorted(rreqs.values(), key=lambda r: r["at"] or 0.0):
        print(f"  RREQ {r['at']} TTL {r['ttl']}: re-broadcast by {len(r['by'])} nodes {sorted(r['by'])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", required=True, help="run_mobile.py's --keep directory")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--speed", type=float, required=True)
    ap.add_argument("--flow", type=int, required=True, help="flow i: node 2i -> node 2i + 1")
    ap.add_argument("--from", dest="t0", type=float, default=0.0)
    ap.add_argument("--to", dest="t1", type=float, default=100.0)
    ap.add_argument("--range-m", type=float, default=250.0)
    a = ap.parse_args(argv)
    keep = Path(a.keep) / f"seed{a.seed}-speed{a.speed:g}"
    src, dst = 2 * a.flow, 2 * a.flow + 1
    recording = json.loads((keep / "hoplab.json").read_text())["recording"]
    print(f"flow {a.flow} ({src} -> {dst}), seed {a.seed}, {a.speed:g} m/s; ends connected:")
    for start, end, path in connected_windows(recording, src, dst, a.range_m):
        print(f"  {start:g}-{end:g} s, {len(path) - 1} hops at first: {path}")
    print("ns-2:")
    ns2_story(ns2_events(keep / "mobile.tr", a.t0, a.t1), src, dst, a.flow)
    print("hoplab:")
    hoplab_story(hoplab_frames(hoplab_pcap(keep, a.seed, a.speed), a.t0, a.t1), src, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
