"""Semi-TCP on seed 000's mobile scenario against ns-semitcp, on the same
node movements (docs/fidelity.md, "Semi-TCP in the 48-node mobile
scenario").

The scenario is examples/semitcp-mobile-48.toml (48 nodes, random waypoint
1 to `max_speed_mps` without pause in 1500 x 3000 m, AODV, 10 plain
semi-TCP flows 2i -> 2i+1, 512 B, 2 Mbit/s, 250 m / 500 m, 100 s) with
`preset = "ns2"` and ns-2's MAC settings written out, as `hoplab reproduce
semitcp-2018` runs it for Figs. 11-12 (`mobile_scenario`). The reference is ns-2.35 with the
public semi-TCP code (scripts/ns2/semitcp/build.sh) running
scripts/ns2/semitcp/mobile.tcl, driven by scripts/ns2/semitcp/run_mobile.py,
which records hoplab's run of the same seed and moves ns-2's nodes along
the recorded positions (every 0.25 s), so both simulators see the same
partitions and meetings. Seeds 1-10 per speed (one seed in `--quick`):
issue 29 compares mobile networks as distributions over 10 or more seeds,
and over 3 seeds the share of flows delivering (30 flow-runs) has a
standard error of about 9 points against a 10-point tolerance. The
reference held seeds 1-3 until 2026-11-27, when two of its rows failed
there (15 m/s flows 57 against 43 %, 5 m/s stuck sends 5.3 against 4.0);
the flows behind both were traced to their RREQs first (docs/fidelity.md,
"The rows that failed on seeds 1-3, flow by flow": ns-2's ARP, not modelled, and collisions
among simultaneous floods), then seeds 4-10 were added with the same
command, seeds 1-3 byte-identical, tolerances unchanged.

Tolerances, taken from the existing semi-TCP rows before this family's
rows were judged (a first look at seeds 1-3 at 20 m/s had been taken
while the reference script was written; the values were not tuned):

- `...-delivered`: data segments the 10 destinations received over the
  whole run (hoplab's `delivered`; ns-2's agent-level receptions of
  512-byte segments, duplicates included in both), the mean over the
  seeds: |hoplab / ns-2 - 1| <= 25 %, the tolerance of semi-TCP under route
  failures (issue 28).
- `...-flows`: the share of the 10 flows that deliver any data: within 25 %
  or 10 points (one flow of ten).
- `...-stuck-sends`: the question this family was made for: in a flow
  whose ends never meet (neither simulator delivers anything on it), how
  many segments the source hands down in 100 s (hoplab's `sent`; ns-2's
  transmissions of its first segment, the 40-byte SYN that ns-2.35's
  TcpAgent opens with, `syn_ true`); the mean over those flows per seed,
  then over the seeds, within 25 %.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from hoplab import run as run_scenario
from hoplab.fidelity import references
from hoplab.fidelity.checks import Check, Measured
from hoplab.papers.semitcp_2018.experiments import MOBILE

SET = "ns2-semitcp-mobile"
NS2_SEMITCP_MOBILE = ("ns-2.35 + the public semi-TCP code (musicinthedark/semitcp@8d9b9e9), "
                      "scripts/ns2/semitcp/mobile.tcl on hoplab's recorded movements via run_mobile.py")
QUICK_SPEED_MPS = 20.0


def mobile_scenario(max_speed_mps: float, duration_s: float = 100.0) -> dict[str, Any]:
    """The scenario of `hoplab reproduce semitcp-2018`'s Figs. 11-12
    (`semitcp_2018.experiments.MOBILE`: examples/semitcp-mobile-48.toml with
    `preset = "ns2"` and ns-2's MAC settings written out) at one speed."""
    data: dict[str, Any] = copy.deepcopy(MOBILE)
    data["duration_s"] = duration_s
    data["mobility"]["max_speed_mps"] = max_speed_mps
    return data


@cache
def _flows(speed: float, seed: int, duration_s: float) -> tuple[dict[str, Any], ...]:
    report = run_scenario(mobile_scenario(speed, duration_s), seed=seed).to_dict()
    return tuple(report["flows"])


def _runs(speed: float, quick: bool) -> list[dict[str, Any]]:
    runs = [r for r in references.load(SET)["runs"] if r["max_speed_mps"] == speed]
    return runs[:1] if quick else runs


def _hoplab(run: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    return _flows(run["max_speed_mps"], run["seed"], run.get("duration_s", 100.0))


def _delivered(speed: float) -> Callable[[bool], Measured]:
    def measure(quick: bool) -> Measured:
        runs = _runs(speed, quick)
        ours = [float(sum(f["delivered"] for f in _hoplab(r))) for r in runs]
        return ours, [float(sum(f["delivered"] for f in r["ns2"])) for r in runs]

    return measure


def _share_delivering(flows: Sequence[dict[str, Any]]) -> float:
    return 100.0 * sum(1 for f in flows if f["delivered"] > 0) / len(flows)


def _flows_delivering(speed: float) -> Callable[[bool], Measured]:
    def measure(quick: bool) -> Measured:
        runs = _runs(speed, quick)
        return [_share_delivering(_hoplab(r)) for r in runs], [_share_delivering(r["ns2"]) for r in runs]

    return measure


def _stuck_sends(speed: float) -> Callable[[bool], Measured]:
    """Per seed, the mean over the flows that neither simulator delivers on."""

    def measure(quick: bool) -> Measured:
        ours: list[float] = []
        theirs: list[float] = []
        for r in _runs(speed, quick):
            pairs = [(h["sent"], n["syn_sent"] + n["sent"]) for h, n in zip(_hoplab(r), r["ns2"], strict=True)
                     if h["delivered"] == 0 and n["delivered"] == 0 and n["syn_delivered"] == 0]
            if pairs:
                ours.append(sum(h for h, _ in pairs) / len(pairs))
                theirs.append(sum(n for _, n in pairs) / len(pairs))
        return ours, theirs

    return measure


def checks() -> list[Check]:
    if not references.available(SET):
        return []
    speeds = sorted({r["max_speed_mps"] for r in references.load(SET)["runs"]}, reverse=True)
    found = []
    for v in speeds:
        tag = f"{v:g}"
        what = f"plain semi-TCP, 48-node mobile scenario (max {tag} m/s, hoplab's movements), "
        found += [
            Check(f"ns2-semitcp-mobile-{tag}-delivered", what + "data segments delivered, 10 flows",
                  NS2_SEMITCP_MOBILE, "packets", 0.25, _delivered(v)),
            Check(f"ns2-semitcp-mobile-{tag}-flows", what + "flows delivering any data",
                  NS2_SEMITCP_MOBILE, "%", 0.25, _flows_delivering(v), kind="ratio_or_points", points=10.0),
            Check(f"ns2-semitcp-mobile-{tag}-stuck-sends", what + "segments a source sends when its ends never meet",
                  NS2_SEMITCP_MOBILE, "packets", 0.25, _stuck_sends(v), quick=v == QUICK_SPEED_MPS),
        ]
    return found
