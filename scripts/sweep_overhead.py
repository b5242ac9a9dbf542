"""Measure the sweep machinery's overhead: the fraction of wall time spent
outside the simulator in a sweep of 200 short runs (issue 5).

    python scripts/sweep_overhead.py [--duration S] [--jobs J] [--executor local|dask|serial]

The sweep: the 15-node chain with one saturated UDP flow
(examples/bench-chain15-udp.toml) for S simulated seconds, 20 packet sizes x
10 runs, into a fresh store. Simulator time is the time inside
`hoplab._core.simulate` (parse, build, run, report), summed over runs; the
capacity is the whole `hoplab.sweep` call's wall time x the workers. The
overhead is 1 - simulator time / capacity: process start-up, task
transfer, result parsing, Parquet writes, the final read-back, and idle
workers at the end all count against it.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from hoplab.campaign import SweepStats, sweep

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0, help="simulated seconds per run (default 20)")
    parser.add_argument("--jobs", type=int, default=None, help="workers (default: all cores)")
    parser.add_argument("--executor", default="local")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hoplab-overhead-") as store:
        stats = SweepStats()
        started = time.perf_counter()
        frame = sweep(REPO / "examples" / "bench-chain15-udp.toml",
                      vary={"flows.0.packet_bytes": list(range(256, 256 + 20 * 32, 32))}, runs=10,
                      store=store, executor=args.executor, jobs=args.jobs, stats=stats,
                      overrides=[f"duration_s={args.duration}", "warmup_s=1"])
        wall = time.perf_counter() - started
    ok = int((frame["status"] == "ok").sum())
    capacity = wall * stats.workers
    print(f"{len(frame)} runs ({ok} ok) of {args.duration:g} simulated s, {args.executor} executor, "
          f"{stats.workers} worker(s)")
    print(f"wall {wall:.2f} s; inside the simulator {stats.sim_call_seconds:.2f} s "
          f"({stats.sim_call_seconds / len(frame) * 1e3:.1f} ms per run)")
    print(f"outside the simulator: {1 - stats.sim_call_seconds / capacity:.1%} of wall x workers")


if __name__ == "__main__":
    main()
