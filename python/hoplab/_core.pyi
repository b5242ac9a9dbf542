"""Type stubs of the Rust extension `hoplab._core` (crates/hoplab-py).

Checked against the built module by `python -m mypy.stubtest hoplab._core`
(tests/test_stubs.py).
"""

import os
from typing import Literal

__all__ = [
    "ScenarioError",
    "SimulationError",
    "bench_engine",
    "bench_scenario",
    "build_profile",
    "config_hash",
    "drop_causes",
    "estimate",
    "loss_classification_names",
    "profile_events",
    "report_fields",
    "scenario_schema",
    "simulate",
    "validate",
    "version",
]

class ScenarioError(ValueError):
    """The scenario is invalid; `key` is the dotted key concerned ("" if none)."""

    key: str

class SimulationError(RuntimeError):
    """The simulation failed for a reason other than the scenario."""

def validate(config_json: str, memory_limit_bytes: int | None = None) -> str:
    """Validate a scenario (JSON); return it normalised, every default filled.
    SimulationError if its topology cannot fit in `memory_limit_bytes`."""

def estimate(config_json: str, series: bool = False) -> str:
    """What a run of the scenario (JSON) will cost, as JSON: `events`,
    `memory_bytes`, `neighbour_entries`, `neighbours_exact`, `series_rows`
    and `parts` (what, count, unit, bytes); estimates, not built."""

def config_hash(config_json: str) -> str:
    """The configuration hash of a scenario (JSON), its seed left out: the
    run report's `config_hash`."""

def drop_causes() -> list[str]:
    """Every loss cause the core reports, in report order."""

def loss_classification_names() -> dict[str, list[str]]:
    """TCP-RA's loss classification names, in report order: "true_causes"
    (the simulator's ground truth), "verdicts" (the receiver's), "grades"
    (its congestion grades)."""

def report_fields() -> dict[str, list[str]]:
    """The field names of each part of the run report: "run" (top level),
    "routing", "flows", "nodes", "queues", "series"."""

def scenario_schema() -> str:
    """The JSON Schema (draft 7) of a scenario file, pretty-printed: every
    key, its type, default, choices and description."""

def simulate(
    config_json: str,
    seed: int | None = None,
    series: bool = False,
    wall_limit_s: float | None = None,
    pcap: str | os.PathLike[str] | None = None,
    memory_limit_bytes: int | None = None,
    record: bool = False,
) -> str:
    """Run a scenario (JSON); return the run report as JSON; give it up
    (SimulationError) after `wall_limit_s` wall-clock seconds, or once what
    it holds passes `memory_limit_bytes` (naming what grew); write a
    packet trace to `pcap` (OSError if it cannot be written; nothing is
    left of it on any failure); `record` adds the recording `hoplab view`
    draws (the report's `recording`)."""

def bench_engine(events: int) -> dict[str, str | int | float]:
    """Engine micro-benchmark: schedule, cancel and pop `events` events."""

def bench_scenario(name: str, config_json: str) -> dict[str, str | int | float]:
    """Time one run of a scenario (JSON)."""

def profile_events(name: str, config_json: str) -> str:
    """One run of a scenario (JSON) with its events counted by kind and
    outcome, as JSON (`hoplab bench --profile-events`)."""

def version() -> str:
    """The simulator core's version."""

def build_profile() -> Literal["pgo", "pgo-training", "plain"]:
    """How this extension was compiled: "pgo" (profile-guided, by
    scripts/install.py), "pgo-training" (its instrumented build) or
    "plain"."""
