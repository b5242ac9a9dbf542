"""Figs. 11-12 of semitcp-2018: goodput of the 10 flows together (Fig. 11)
and their end-to-end delay (Fig. 12) against the maximum speed on the
mobile random topology (48 nodes, random waypoint), semi-TCP with and
without Algorithm 1, compared run by run (`mobile` experiment).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from hoplab.papers import ExperimentData, FigureResult, NotReproduced, judged, per_point
from hoplab.papers.semitcp_2018.common import mean_line, paired_line
from hoplab.papers.semitcp_2018.experiments import C_ALG1, C_SEMI, SPEED
from hoplab.papers.verdicts import Check, greater, less
from hoplab.plots import Panel, line_figure
from hoplab.stats import summarize

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["fig11", "fig12"]


def _mobile_runs(data: ExperimentData, case: str) -> pd.DataFrame:
    """One row per run of `case`: the speed, the run number, the goodput of
    the 10 flows together (kbps), their delay (ms, weighted by each flow's
    goodput: the mean over delivered packets), and the route discoveries and
    route breaks per flow per minute (whole run)."""
    import pandas as pd

    frame = data.scalars
    if frame.empty:
        raise NotReproduced(data.failure(case) or "no data")
    part = frame[(frame["entity"] == "flow") & (frame["case"] == case)]
    if part.empty:
        raise NotReproduced(data.failure(case) or "no data")
    wide = part.pivot_table(index=["run_id", SPEED, "run", "id"], columns="metric", values="value").reset_index()
    minutes = {str(r): float(t) / 60.0 for r, t in zip(data.runs["run_id"], data.runs["sim_seconds"], strict=True)}
    rows = []
    for (run_id, speed, run), flows in wide.groupby(["run_id", SPEED, "run"]):
        goodput = flows["goodput_kbps"].astype(float)
        delay = flows["mean_delay_ms"].astype(float)
        weight = goodput.where(delay.notna() & (goodput > 0), 0.0)
        total = float(goodput.sum())
        rows.append({
            "run_id": run_id, SPEED: float(speed), "run": int(run), "goodput_kbps": total,
            "delay_ms": float((delay.fillna(0.0) * weight).sum() / weight.sum()) if weight.sum() > 0 else math.nan,
            "discoveries_per_flow_min": float(flows["route_discoveries"].mean()) / minutes[str(run_id)],
            "breaks_per_flow_min": float(flows["route_breaks"].mean()) / minutes[str(run_id)],
        })
    return pd.DataFrame(rows)


def _speed_runs(runs: pd.DataFrame, metric: str) -> dict[float, dict[int, float]]:
    return per_point(runs, SPEED, metric)


def _mobile_figure(
    data: Mapping[str, ExperimentData], out: Path, number: str, metric: str, ylabel: str, title: str,
    difference_label: str,
) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame], dict[str, Path], list[str]]:
    mobile = data["mobile"]
    runs: dict[str, pd.DataFrame] = {}
    curves: dict[str, pd.DataFrame] = {}
    lines, notes = [], []
    for case in (C_SEMI, C_ALG1):
        try:
            runs[case] = _mobile_runs(mobile, case)
        except NotReproduced as e:
            notes.append(f"{case}: not reproduced: {e}")
            continue
        curves[case] = summarize(runs[case], by=SPEED, value=metric)
        # Means only: the unpaired intervals span most of the axis (the
        # network is partitioned in some runs, not in others) and hide the
        # difference the lower panel shows.
        lines.append(mean_line(curves[case], SPEED, f"{case} (mean over runs)", errors=False))
    lower = None
    if C_SEMI in runs and C_ALG1 in runs:
        lower = Panel([paired_line(_speed_runs(runs[C_ALG1], metric), _speed_runs(runs[C_SEMI], metric),
                                   "Algorithm 1 - semi-TCP, paired by run (95 % CI)")], difference_label)
    speeds = sorted({float(v) for curve in curves.values() for v in curve[SPEED]})
    paths = line_figure(lines, out / f"fig{number}", title=title, xlabel="maximum speed (m/s)", ylabel=ylabel,
                        xticks=speeds or None, ylim=(0.0, None), lower=lower)
    for case in (C_SEMI, C_ALG1):
        if case not in curves:
            mobile.require(case)
            raise NotReproduced(f"{case}: no data")
    notes.append("Upper panel: the mean over runs of each case (no error bars: run-to-run variation in this sparse, "
                 "often partitioned network spans most of the axis). Lower panel: the difference per run, runs "
                 "paired by run number (the same placement and node paths in both cases), with its 95 % interval; "
                 "the verdict reads the lower panel.")
    return runs, curves, paths, notes


def _mobile_checks(runs: Mapping[str, pd.DataFrame], metric: str, higher: bool, what: str,
                   unit: str) -> tuple[list[Check], str]:
    semi, alg1 = _speed_runs(runs[C_SEMI], metric), _speed_runs(runs[C_ALG1], metric)
    speeds = sorted(set(semi) & set(alg1))
    compare = greater if higher else less
    sign = ">" if higher else "<"
    checks = [compare(f"semi-TCP + Algorithm 1 {sign} semi-TCP ({what})", f"{s:g} m/s", alg1[s], semi[s], unit=unit)
              for s in speeds]

    def mean(values: Mapping[int, float]) -> float:
        return sum(values.values()) / len(values) if values else math.nan

    per = "; ".join(f"{s:g} m/s: {mean(semi[s]):.1f} -> {mean(alg1[s]):.1f} {unit}" for s in speeds)
    return checks, f"{what}, semi-TCP -> semi-TCP + Algorithm 1 (means over runs): {per}"


def fig11(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    runs, _, paths, notes = _mobile_figure(
        data, out, "11", "goodput_kbps", "goodput of the 10 flows together (kbps)",
        "Fig. 11: goodput vs maximum speed, 48 mobile nodes, 10 flows", "Alg. 1 - semi-TCP (kbps)")
    checks, reading = _mobile_checks(runs, "goodput_kbps", True, "goodput", "kbps")
    rows = []
    for case in (C_SEMI, C_ALG1):
        by_speed = runs[case].groupby(SPEED)[["discoveries_per_flow_min", "breaks_per_flow_min"]].mean()
        rows += [(f"{case}: route discoveries / route breaks per flow per minute, {float(s):g} m/s", "-",
                  f"{float(r['discoveries_per_flow_min']):.2f} / {float(r['breaks_per_flow_min']):.2f}")
                 for s, r in by_speed.iterrows()]
    notes.append("Goodput: the 10 flows' goodput summed per run (the paper does not say whether it plots the sum "
                 "or the mean per flow; the comparison is the same), averaged over runs.")
    notes.append("Route discoveries (started by each flow's source) and route breaks (links found broken while "
                 "forwarding the flow's packets) are counted over the whole run.")
    return judged(reading, checks, rows=rows, paths=paths, notes=notes)


def fig12(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    runs, _, paths, notes = _mobile_figure(
        data, out, "12", "delay_ms", "end-to-end delay (ms)",
        "Fig. 12: end-to-end delay vs maximum speed, 48 mobile nodes, 10 flows", "Alg. 1 - semi-TCP (ms)")
    checks, reading = _mobile_checks(runs, "delay_ms", False, "delay", "ms")
    notes.append("Delay: per run, the mean end-to-end delay of the packets delivered in the measurement window, "
                 "over all 10 flows (each flow's mean weighted by its goodput); averaged over runs.")
    return judged(reading, checks, paths=paths, notes=notes)
