"""Benchmarks (`hoplab bench`): the engine micro-benchmark and the scenarios
of BENCH_SCENARIOS (the chains with either reception model, side by side;
150 moving nodes with AODV and with DSR).

The scenarios ship inside the package (`hoplab/data/`, copies linked from
`examples/`), so `hoplab bench` works from any directory. Figures are
measured and reported, never asserted: a slow machine is not a failure.
"""

from __future__ import annotations

import json
from typing import Any

from hoplab import _core
from hoplab.scenario import Scenario, scenario_error

__all__ = [
    "BENCH_DESCRIPTIONS", "BENCH_SCENARIOS", "DEFAULT_ENGINE_EVENTS", "DEFAULT_REPEAT", "OUTCOMES", "bench_scenario_file",
    "profile_benchmarks", "profile_lines", "run_benchmarks", "sinr_cost_lines",
]

#: Scenario benchmarks, by name; each is `hoplab/data/<name>.toml`.
BENCH_SCENARIOS: tuple[str, ...] = (
    "bench-chain15-udp", "bench-chain15-udp-sinr", "bench-grid7x7-4flows", "bench-chain15-tcp", "bench-chain15-tcp-sinr",
    "bench-mobile150", "dsr-random-150",
)

#: What each scenario benchmark is (`hoplab bench --help` lists them all).
BENCH_DESCRIPTIONS: dict[str, str] = {
    "bench-chain15-udp": "a 15-node chain with one saturated UDP flow",
    "bench-chain15-udp-sinr": "the same with the SINR receiver",
    "bench-grid7x7-4flows": "a 7x7 grid with four UDP flows",
    "bench-chain15-tcp": "a 15-node chain with one TCP NewReno flow",
    "bench-chain15-tcp-sinr": "the same with the SINR receiver",
    "bench-mobile150": "150 moving nodes with AODV and eight TCP flows",
    "dsr-random-150": "150 moving nodes with DSR and eight TCP flows (seed 003's field)",
}

#: Events scheduled (and popped or cancelled) by the engine micro-benchmark.
DEFAULT_ENGINE_EVENTS = 2_000_000

#: Times each benchmark runs; the fastest run is reported (as timeit and
#: hyperfine do: other processes only ever slow a run down, so the minimum is
#: the least noisy estimate of what the code costs).
DEFAULT_REPEAT = 3


def bench_scenario_file(name: str) -> Scenario:
    """The packaged benchmark scenario `name` (see BENCH_SCENARIOS)."""
    from importlib.resources import files  # here: it imports tempfile, which `hoplab --help` does not need

    resource = files("hoplab").joinpath("data", f"{name}.toml")
    return Scenario.from_toml(resource.read_text(encoding="utf-8"))


def _fastest(measure: Any, repeat: int) -> dict[str, Any]:
    """The figure of the fastest of `repeat` runs of `measure()`, with `repeat` recorded."""
    figure = min((dict(measure()) for _ in range(repeat)), key=lambda f: f["wall_seconds"])
    figure["repeat"] = repeat
    return figure


#: Each SINR benchmark and the threshold-model benchmark it repeats.
SINR_PAIRS: dict[str, str] = {"bench-chain15-udp-sinr": "bench-chain15-udp", "bench-chain15-tcp-sinr": "bench-chain15-tcp"}


def _sinr_cost(figure: dict[str, Any], threshold: dict[str, Any]) -> dict[str, float]:
    """The SINR receiver's cost against the threshold model on the same
    scenario: in wall time, and per frame put on the air (the two models
    carry different traffic: ns-3's receiver gets more through a chain)."""
    wall = figure["wall_seconds"] / max(threshold["wall_seconds"], 1e-12)
    frames = figure["frames"] / max(threshold["frames"], 1)
    return {"wall": wall, "frames": frames, "per_frame": wall / max(frames, 1e-12)}


def sinr_cost_lines(figures: list[dict[str, Any]]) -> list[str]:
    """One sentence per SINR benchmark: what the SINR receiver costs."""
    lines = []
    for figure in figures:
        cost = figure.get("sinr_vs_threshold")
        if cost is not None:
            lines.append(
                f"{figure['name']}: x{cost['wall']:.2f} the wall time of {SINR_PAIRS[figure['name']]}; it puts x{cost['frames']:.2f} "
                f"the frames on the air, x{cost['per_frame']:.2f} the wall time per frame.")
    return lines


def run_benchmarks(
    duration_s: float | None = None, engine_events: int = DEFAULT_ENGINE_EVENTS, repeat: int = DEFAULT_REPEAT,
) -> list[dict[str, Any]]:
    """Run every benchmark `repeat` times and keep the fastest; one figure
    (dict) each: name, events, wall_seconds, events_per_second,
    sim_seconds_per_wall_second, frames (put on the air), repeat, and for
    scenarios sim_seconds, us_per_frame (wall microseconds per frame, None
    without frames) and events_per_frame (None without frames); a SINR benchmark also has sinr_vs_threshold:
    its wall time, frames and wall time per frame as ratios to the
    threshold model's run of the same scenario (SINR_PAIRS).
    `duration_s` shortens the scenarios (their warm-up is cut to a tenth of
    it when it would not fit)."""
    if not (isinstance(engine_events, int) and engine_events >= 1):
        raise scenario_error("engine_events", f"must be a positive integer, got {engine_events!r}")
    if not (isinstance(repeat, int) and repeat >= 1):
        raise scenario_error("repeat", f"must be a positive integer, got {repeat!r}")
    if duration_s is not None and not duration_s > 0:
        raise scenario_error("duration_s", f"must be a positive number, got {duration_s}")
    figures: list[dict[str, Any]] = [_fastest(lambda: _core.bench_engine(engine_events), repeat)]
    for name in BENCH_SCENARIOS:
        scenario = _shortened(name, duration_s)
        config_json = scenario.to_json()
        figure = _fastest(lambda: _core.bench_scenario(name, config_json), repeat)  # noqa: B023 (called at once)
        figure["sim_seconds"] = float(scenario.validate()["duration_s"])
        figure["us_per_frame"] = figure["wall_seconds"] / figure["frames"] * 1e6 if figure["frames"] else None
        figure["events_per_frame"] = figure["events"] / figure["frames"] if figure["frames"] else None
        figures.append(figure)
    by_name = {figure["name"]: figure for figure in figures}
    for name, threshold in SINR_PAIRS.items():
        if name in by_name and threshold in by_name:
            by_name[name]["sinr_vs_threshold"] = _sinr_cost(by_name[name], by_name[threshold])
    return figures


#: What became of an event (crates/hoplab-sim/src/profile.rs): its timer was
#: cancelled or re-armed (stale); no MAC step (no_mac_input); a MAC step that
#: wrote nothing and changed none of the MAC's timers, medium view, backoff,
#: service or queue (mac_unchanged); one that changed only the MAC's view of
#: the medium (medium_only); one that wrote an output or changed a timer, the
#: backoff, the service or the queue (mac_acted).
OUTCOMES: tuple[str, ...] = ("stale", "no_mac_input", "mac_unchanged", "medium_only", "mac_acted")


def _shortened(name: str, duration_s: float | None) -> Scenario:
    scenario = bench_scenario_file(name)
    if duration_s is not None:
        scenario.set("duration_s", float(duration_s))
        if float(scenario.data.get("warmup_s", 0.0)) >= duration_s:
            scenario.set("warmup_s", duration_s / 10)
    return scenario


def profile_benchmarks(names: tuple[str, ...] = BENCH_SCENARIOS, duration_s: float | None = None) -> list[dict[str, Any]]:
    """Run each benchmark scenario once with its events counted by kind and
    outcome; one dict each: name, events, frames, mac_steps,
    mac_steps_changed, rows (kind and a count per OUTCOMES), the same run's
    report left out. The counts are the run's own: a profiled run simulates
    exactly what a normal run does (tests/profile.rs)."""
    if duration_s is not None and not duration_s > 0:
        raise scenario_error("duration_s", f"must be a positive number, got {duration_s}")
    profiles = []
    for name in names:
        if name not in BENCH_SCENARIOS:
            raise scenario_error("name", f"no benchmark {name!r} (choose from {', '.join(BENCH_SCENARIOS)})")
        profile = json.loads(_core.profile_events(name, _shortened(name, duration_s).to_json()))
        profile.pop("report")
        profiles.append(profile)
    return profiles


def no_decision(row: dict[str, Any]) -> int:
    """A row's events that changed no decision of channel access."""
    return int(row["stale"] + row["no_mac_input"] + row["mac_unchanged"])


def profile_lines(profile: dict[str, Any]) -> list[str]:
    """One benchmark's profile as a Markdown table: events per frame by kind
    and outcome, the kinds by events, and the totals."""
    frames = max(int(profile["frames"]), 1)
    medium = sum(r["medium_only"] for r in profile["rows"])
    lines = [f"{profile['name']}: {profile['events']:,} events, {profile['frames']:,} frames, "
             f"{profile['events'] / frames:.2f} events per frame; "
             f"{sum(no_decision(r) for r in profile['rows']) / frames:.2f} per frame changed no decision, "
             f"{medium / frames:.2f} only the MAC's view of the medium",
             "", "| kind | per frame | " + " | ".join(OUTCOMES) + " | no decision |",
             "|---|---|" + "---|" * (len(OUTCOMES) + 1)]
    for row in sorted(profile["rows"], key=lambda r: -sum(r[o] for o in OUTCOMES)):
        total = sum(row[o] for o in OUTCOMES)
        cells = " | ".join(f"{row[o] / frames:.2f}" for o in OUTCOMES)
        lines.append(f"| {row['kind']} | {total / frames:.2f} | {cells} | {no_decision(row) / frames:.2f} |")
    totals = {o: sum(r[o] for r in profile["rows"]) for o in OUTCOMES}
    lines.append(f"| **all** | **{profile['events'] / frames:.2f}** | "
                 + " | ".join(f"{totals[o] / frames:.2f}" for o in OUTCOMES)
                 + f" | **{sum(no_decision(r) for r in profile['rows']) / frames:.2f}** |")
    return lines
