#!/usr/bin/env python3
"""The long fuzzing profile: `python scripts/fuzz.py --cases 100000`.

Draws cases from a seeded generator (case i of seed s is always the same
case: `--replay I` runs one again and prints it), runs them in `--workers`
processes (each under a 4 GB address-space limit, a 3 s wall limit and a
1 GB memory limit), and prints the counts of each outcome (hoplab.fuzz).
Every finding is written, with its case, to `--findings` (JSON lines).
Exit status 1 if there was any finding. docs/limits.md ("In short")
holds the last result.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from hoplab.fuzz import FINDINGS, Runner, describe, make_case, random_chooser, run_case, summary


def case_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--findings", type=Path, default=Path("fuzz-findings.jsonl"))
    parser.add_argument("--replay", type=int, metavar="I", help="run case I of --seed here and print it")
    args = parser.parse_args()
    if args.replay is not None:
        case = make_case(random_chooser(case_seed(args.seed, args.replay)))
        print(describe(case))
        print(json.dumps(case.scenario, indent=2))
        outcome = run_case(case)
        print(outcome.kind, outcome.detail)
        return 0 if outcome.clean else 1
    counts: Counter[str] = Counter()
    started = time.perf_counter()
    cases = (make_case(random_chooser(case_seed(args.seed, i))) for i in range(args.cases))
    with Runner(workers=args.workers) as runner, args.findings.open("w", encoding="utf-8") as findings:
        for done, (index, case, outcome) in enumerate(runner.run(cases), 1):
            counts[outcome.kind] += 1
            if not outcome.clean:
                findings.write(json.dumps({"index": index, "seed": args.seed, "kind": outcome.kind,
                                           "case": describe(case), "detail": outcome.detail}) + "\n")
                findings.flush()
                print(f"finding: case {index}: {outcome.kind}: {describe(case)}: {outcome.detail[:300]}",
                      file=sys.stderr)
            if done % 1000 == 0:
                print(summary(counts, time.perf_counter() - started), file=sys.stderr, flush=True)
    print(summary(counts, time.perf_counter() - started))
    return 1 if any(counts[k] for k in FINDINGS) else 0


if __name__ == "__main__":
    sys.exit(main())
