"""Stalls: stretches of a run in which a flow delivers nothing for more than
a few round-trip times, found from the run's own series, counted per run,
and named in a figure's notes with what the run's counters say caused them.

A stall is a run of consecutive `goodput_kbps` samples of the flow that are
all zero (no payload delivered in any of those intervals), after the flow's
first delivery, lasting more than `STALL_RTTS` times the run's median
smoothed RTT (its `srtt_ms` series; at least two sampling intervals). Its
causes, from the counters: the route breaks the flow saw during it (the
`route_breaks` series, AODV and DSR flows) and the run's retransmission
timeouts (the `timeouts` scalar: the run's total, the series has no
timeouts of its own).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["STALL_RTTS", "Stall", "find_stalls", "stall_notes"]

#: "More than a few RTTs": a stall lasts longer than this many smoothed RTTs.
STALL_RTTS = 4.0


@dataclass(frozen=True)
class Stall:
    """No delivery from `start_s` to `end_s` (seconds into the run)."""

    run: int
    start_s: float
    end_s: float
    route_breaks: int  # the flow's route breaks during the stall

    @property
    def seconds(self) -> float:
        return self.end_s - self.start_s


def _flow_series(series: pd.DataFrame, run: int, flow: int, metric: str) -> list[tuple[float, float]]:
    rows = series[(series["run"] == run) & (series["entity"] == "flow") & (series["id"] == flow)
                  & (series["metric"] == metric)].sort_values("time_s")
    return [(float(t), float(v)) for t, v in zip(rows["time_s"], rows["value"], strict=True) if not math.isnan(float(v))]


def _counter_at(samples: list[tuple[float, float]], time_s: float) -> float:
    """The counter's last sampled value at or before `time_s` (0 before any)."""
    value = 0.0
    for t, v in samples:
        if t > time_s + 1e-9:
            break
        value = v
    return value


def _run_stalls(series: pd.DataFrame, run: int, flow: int, rtts: float) -> list[Stall]:
    goodput = _flow_series(series, run, flow, "goodput_kbps")
    if len(goodput) < 2:
        return []
    interval = min(b[0] - a[0] for a, b in zip(goodput, goodput[1:], strict=False))
    srtts = sorted(v for _, v in _flow_series(series, run, flow, "srtt_ms") if v > 0)
    srtt_s = srtts[len(srtts) // 2] / 1e3 if srtts else 0.0
    shortest = max(rtts * srtt_s, 2 * interval)
    breaks = _flow_series(series, run, flow, "route_breaks")
    first = next((i for i, (_, v) in enumerate(goodput) if v > 0), None)
    stalls: list[Stall] = []
    i = len(goodput) if first is None else first + 1
    while i < len(goodput):
        if goodput[i][1] > 0:
            i += 1
            continue
        j = i
        while j + 1 < len(goodput) and goodput[j + 1][1] <= 0:
            j += 1
        start, end = goodput[i - 1][0], goodput[j][0]  # nothing delivered after the sample before the stretch
        if end - start > shortest:
            broken = _counter_at(breaks, end) - _counter_at(breaks, start)
            stalls.append(Stall(run, start, end, int(round(broken))))
        i = j + 1
    return stalls


def find_stalls(series: pd.DataFrame, flow: int = 0, rtts: float = STALL_RTTS) -> dict[int, list[Stall]]:
    """Each run's stalls of `flow` (every run of `series`, none for a run without)."""
    if series.empty:
        return {}
    return {int(run): _run_stalls(series, int(run), flow, rtts) for run in sorted(series["run"].unique())}


def stall_notes(series: pd.DataFrame, timeouts: dict[int, float], flow: int = 0, what: str = "the flow") -> list[str]:
    """The notes of a figure drawn from these runs: how many stalls each run
    had, when, and what its counters say; `timeouts` is {run: the flow's
    retransmission timeouts in the run}."""
    stalls = find_stalls(series, flow)
    if not stalls:
        return []
    rule = (f"Stalls: {what} delivers nothing for more than {STALL_RTTS:g} smoothed RTTs (from each run's goodput "
            "series, after its first delivery)")
    stalled = {run: found for run, found in stalls.items() if found}
    if not stalled:
        return [f"{rule}: none" + (" in its one run." if len(stalls) == 1 else f" in any of the {len(stalls)} runs.")]
    parts = []
    for run, found in stalled.items():
        spans = ", ".join(f"{s.start_s:.1f}-{s.end_s:.1f} s" for s in found[:5]) + (" ..." if len(found) > 5 else "")
        breaks = sum(s.route_breaks for s in found)
        count = f"{len(found)} stall{'s' if len(found) != 1 else ''}"
        during = "during it" if len(found) == 1 else "during them"
        cause = f"{breaks} route break{'s' if breaks != 1 else ''} {during}" if breaks else f"no route break {during}"
        cause += f", {timeouts[run]:.0f} retransmission timeouts in the run" if run in timeouts else ""
        parts.append(f"run {run}: {count}, {sum(s.seconds for s in found):.1f} s in all ({spans}); {cause}")
    quiet = len(stalls) - len(stalled)
    tail = f"; the other {quiet} run{'s' if quiet != 1 else ''}: none" if quiet else ""
    return [f"{rule}: " + "; ".join(parts) + tail + "."]
