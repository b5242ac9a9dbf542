"""Figs. 5-6 of semitcp-2018: end-to-end throughput against a fixed source
rate (20-300 kbps) on the 14-hop chain, with the attempts per RTS (Fig. 5)
or the MAC sending time (Fig. 6) at the source, UDP CBR at the same rates
drawn as a reference, from the `fixed-rate` experiment. The finding is
judged as a near-linear rise to a peak, a sharp fall past it, and a jump of
APR / MST from a low to a high level where throughput collapses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hoplab.papers import ExperimentData, FigureResult, NotReproduced, judged
from hoplab.papers.semitcp_2018.common import best_rate, mean_line, value_summary
from hoplab.papers.semitcp_2018.experiments import C_FIXED, C_UDP, RATE
from hoplab.papers.verdicts import AGREES, CONTRADICTS, UNRESOLVED, Check, PaperNumber, above, below, plateau
from hoplab.plots import line_figure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["JUMP", "LINEAR_SHARE", "SHARP_FALL", "fig5", "fig6", "summarize_min_n"]

#: "Falls sharply": the goodput plateau past the peak is below this share of the peak.
SHARP_FALL = 0.5
#: "Rises almost linearly": every rate up to the peak is delivered at this share or more.
LINEAR_SHARE = 0.9
#: A level "jump": the high plateau is at least this many times the low one.
JUMP = {"rts_attempts_per_packet": 1.5, "mac_service_time_ms": 2.0}


def _rate_curves(data: ExperimentData, case: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    goodput = value_summary(data.metric("goodput_kbps", "flow", case, 0), RATE)
    apr = value_summary(data.metric("rts_attempts_per_packet", "node", case, 0), RATE)
    mst = value_summary(data.metric("mac_service_time_ms", "node", case, 0), RATE)
    if goodput.empty:
        raise NotReproduced(data.failure(case) or "no data")
    return goodput, apr, mst


def _by_rate(data: ExperimentData, metric: str, entity: str) -> dict[float, dict[int, float]]:
    """{source rate: {run: value}} of the fixed-rate semi-TCP source."""
    return data.per_point(metric, RATE, entity, C_FIXED, 0)


def _level_runs(per_rate: Mapping[float, Mapping[int, float]], rates: Sequence[float]) -> dict[int, float]:
    """Per run, the mean over `rates` (a plateau) of its values."""
    runs = set.intersection(*(set(per_rate[r]) for r in rates)) if rates else set()
    return {run: sum(per_rate[r][run] for r in rates) / len(rates) for run in sorted(runs)}


def _rise_and_fall(goodput: pd.DataFrame, per_rate: Mapping[float, Mapping[int, float]]) -> tuple[
        list[Check], str, float, float, list[float]]:
    """Checks of "goodput rises almost linearly with the source rate up to a
    peak, then falls sharply"; (checks, reading, best rate, goodput there,
    rates of the plateau past the peak)."""
    rates = [float(v) for v in goodput[RATE]]
    values = [float(v) for v in goodput["mean"]]
    best = best_rate(rates, values)
    checks = [above(f"goodput / source rate >= {LINEAR_SHARE:.0%} (almost linear rise up to the peak)",
                    f"{rate:.0f} kbps", [v / rate for v in per_rate[rate].values()], LINEAR_SHARE)
              for rate in rates[:best + 1]]
    after = values[best + 1:]
    fallen: list[float] = []
    if after:
        fallen = [rates[best + 1 + i] for i in plateau(after, at_end=True)]
        level = _level_runs(per_rate, fallen)
        peak = per_rate[rates[best]]
        checks.append(below(f"goodput plateau past the peak / goodput at the peak < {SHARP_FALL:.0%} (a sharp fall)",
                            f"{fallen[0]:.0f}-{fallen[-1]:.0f} kbps vs {rates[best]:.0f} kbps",
                            [level[r] / peak[r] for r in sorted(set(level) & set(peak)) if peak[r] > 0], SHARP_FALL))
        fallen_level = sum(values[best + 1 + i] for i in plateau(after, True)) / len(fallen)
        low_text = f"then falls to a plateau of {fallen_level:.0f} kbps at {fallen[0]:.0f}-{fallen[-1]:.0f} kbps"
    else:
        checks.append(Check("goodput falls past the peak", "past the peak", UNRESOLVED,
                            "the peak is at the highest rate tried", 0))
        low_text = "and the peak is at the highest rate tried"
    reading = (f"goodput follows the source rate up to {rates[best]:.0f} kbps (peak {values[best]:.0f} kbps, "
               f"the lowest rate within 5 % of the maximum), {low_text}")
    return checks, reading, rates[best], values[best], fallen


def _levels(curve: pd.DataFrame) -> tuple[list[float], list[float], float, float]:
    """(low plateau rates, high plateau rates, low level, high level) of a
    curve against the source rate (see verdicts.plateau)."""
    rates = [float(v) for v in curve[RATE]]
    values = [float(v) for v in curve["mean"]]
    low = plateau(values, at_end=False)
    high = [i for i in plateau(values, at_end=True) if i not in low]
    low_level = sum(values[i] for i in low) / len(low)
    high_level = sum(values[i] for i in high) / len(high) if high else math.nan
    return [rates[i] for i in low], [rates[i] for i in high], low_level, high_level


def _fig_rate(data: Mapping[str, ExperimentData], out: Path, which: str) -> FigureResult:
    fixed = data["fixed-rate"]
    metric = "rts_attempts_per_packet" if which == "apr" else "mac_service_time_ms"
    short = "APR" if which == "apr" else "MST"
    unit = "" if which == "apr" else " ms"
    metric_label = {"apr": "attempts per RTS at the source", "mst": "MAC sending time at the source (ms)"}[which]
    lines, notes = [], []
    curves: dict[str, tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]] = {}
    for case in (C_FIXED, C_UDP):
        try:
            curves[case] = _rate_curves(fixed, case)
        except NotReproduced as e:
            notes.append(f"{case}: not reproduced: {e}")
            continue
        goodput, apr, mst = curves[case]
        second = apr if which == "apr" else mst
        lines.append(mean_line(goodput, RATE, f"{case}: end-to-end throughput"))
        lines.append(mean_line(second, RATE, f"{case}: {short}", right=True))
    number = "5" if which == "apr" else "6"
    title = (f"Fig. {number}: end-to-end throughput and "
             + ("attempts per RTS" if which == "apr" else "MAC sending time") + " at the source vs source rate")
    paths = line_figure(lines, out / f"fig{number}", title=title, xlabel="source rate (kbps)",
                        ylabel="end-to-end throughput (kbps)", y2label=metric_label)
    if C_FIXED not in curves:
        fixed.require(C_FIXED)
        raise NotReproduced("no data")
    goodput, apr, mst = curves[C_FIXED]
    curve = apr if which == "apr" else mst
    goodput_runs = _by_rate(fixed, "goodput_kbps", "flow")
    checks, reading, peak_rate, peak_value, _ = _rise_and_fall(goodput, goodput_runs)
    low_rates, high_rates, low, high = _levels(curve)
    if high_rates:
        level_runs = _by_rate(fixed, metric, "node")
        low_runs, high_runs = _level_runs(level_runs, low_rates), _level_runs(level_runs, high_rates)
        factor = JUMP[metric]
        checks.append(above(f"{short} high level / low level >= {factor:g} (a jump between two levels)",
                            f"{low_rates[0]:.0f}-{low_rates[-1]:.0f} vs {high_rates[0]:.0f}-{high_rates[-1]:.0f} kbps",
                            [high_runs[r] / low_runs[r] for r in sorted(set(low_runs) & set(high_runs))
                             if low_runs[r] > 0], factor))
        step = float(goodput[RATE].iloc[1] - goodput[RATE].iloc[0]) if len(goodput) > 1 else 0.0
        switch_ok = low_rates[-1] - step - 1e-9 <= peak_rate <= low_rates[-1] + step + 1e-9
        checks.append(Check(f"the throughput peak is at the switching point of {short} (within one rate step of the "
                            "end of its low level; from the mean curves)", f"{peak_rate:.0f} kbps",
                            AGREES if switch_ok else CONTRADICTS,
                            f"{short}'s low level ends at {low_rates[-1]:.0f} kbps, the peak is at "
                            f"{peak_rate:.0f} kbps",
                            int(summarize_min_n(goodput))))
        reading += (f"; {short} at the source stays at a low level of {low:.2f}{unit} at {low_rates[0]:.0f}-"
                    f"{low_rates[-1]:.0f} kbps and reaches a high level of {high:.2f}{unit} at {high_rates[0]:.0f}-"
                    f"{high_rates[-1]:.0f} kbps")
    else:
        checks.append(Check(f"{short} switches from a low to a high level", "all rates", CONTRADICTS,
                            f"one level over all rates ({low:.2f}{unit})", int(summarize_min_n(goodput))))
        reading += f"; {short} at the source stays at one level ({low:.2f}{unit})"
    g180 = goodput[goodput[RATE] == 180]["mean"]
    numbers = [PaperNumber("best source rate", 140.0, peak_rate, "kbps", 0),
               PaperNumber("throughput at the best rate", 140.0, peak_value, "kbps", 0)]
    if which == "apr":
        numbers += [PaperNumber("low APR level (LAPR)", 1.0, low, digits=2),
                    PaperNumber("high APR level (HAPR, Table 1's example read from Fig. 5)", 3.3, high, digits=2)]
    else:
        numbers += [PaperNumber("throughput at 180 kbps", 20.0, float(g180.iloc[0]) if len(g180) else math.nan,
                                "kbps", 0),
                    PaperNumber("high MST level", 14.0, high, "ms", 1)]
    return judged(reading, checks, paths=paths, notes=notes, numbers=numbers)


def summarize_min_n(summary: pd.DataFrame) -> int:
    """The fewest runs behind any point of a summary."""
    return int(summary["n"].min()) if len(summary) else 0


def fig5(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _fig_rate(data, out, "apr")


def fig6(data: Mapping[str, ExperimentData], out: Path) -> FigureResult:
    return _fig_rate(data, out, "mst")

