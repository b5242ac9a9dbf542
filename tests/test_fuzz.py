"""Fuzzing (quick profile): mutated example scenarios, drawn by hypothesis,
each run in a worker process under a 4 GB address-space limit. Whatever the
mutation, the outcome is a run that conserves every packet, a ScenarioError
naming a key, or a clean wall-clock / memory-limit stop; never a dead
worker, a panic or a traceback (`hoplab.fuzz`; the long profile is
`scripts/fuzz.py --cases 100000`)."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hoplab.fuzz import Case, Chooser, Runner, base_scenarios, describe, make_case

#: Cases in CI; each is tens of milliseconds, a few at the wall limit.
QUICK_CASES = 300


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    with Runner(workers=1) as r:
        yield r


def _case(data: st.DataObject) -> Case:
    def pick(seq):  # type: ignore[no-untyped-def]
        return data.draw(st.sampled_from(list(seq)))

    return make_case(Chooser(pick, lambda lo, hi: data.draw(st.integers(lo, hi))))


@settings(max_examples=QUICK_CASES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_no_mutated_scenario_crashes_panics_or_breaks_conservation(runner: Runner, data: st.DataObject) -> None:
    case = _case(data)
    [(_, _, outcome)] = list(runner.run([case]))
    assert outcome.clean, f"{outcome.kind}: {describe(case)}\n{outcome.detail}"


def test_a_worker_that_dies_is_a_finding_and_is_replaced() -> None:
    """The harness itself, on a reproducer of issue 19: 100,000 moving nodes
    in 2 x 2 km need ~50 GB of neighbour lists. Without a memory budget the
    allocator's failure kills the worker (a crash, and the next case gets a
    fresh worker); with one, the run is refused cleanly."""
    raw = copy.deepcopy(base_scenarios()["bench-mobile150"][0])
    raw["topology"]["nodes"] = 100_000
    raw["duration_s"], raw["warmup_s"] = 1.0, 0.0
    case = Case("bench-mobile150", ["topology.nodes=100000"], raw)
    with Runner(workers=1, memory_limit_bytes=10**14, address_space_bytes=2 << 30) as unguarded:
        assert [o.kind for _, _, o in unguarded.run([case, case])] == ["crash", "crash"]
    with Runner(workers=1) as guarded:
        [(_, _, outcome)] = list(guarded.run([case]))
    assert outcome.kind == "limit" and "neighbour lists" in outcome.detail, outcome
