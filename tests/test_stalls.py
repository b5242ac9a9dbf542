"""Stalls (no delivery for more than a few RTTs) found per run from the run's
series, with their causes from its counters (hoplab.papers.stalls)."""

from __future__ import annotations

import pandas as pd
import pytest

from hoplab.papers.stalls import STALL_RTTS, find_stalls, stall_notes


def _series(run: int, goodput: list[float], srtt_ms: float = 200.0,
            breaks_at: float | None = None) -> list[dict[str, object]]:
    rows = []
    for i, value in enumerate(goodput):
        t = round(0.1 * (i + 1), 1)
        rows.append({"run": run, "time_s": t, "entity": "flow", "id": 0, "metric": "goodput_kbps", "value": value})
        rows.append({"run": run, "time_s": t, "entity": "flow", "id": 0, "metric": "srtt_ms", "value": srtt_ms})
        broken = 2.0 if breaks_at is not None and t >= breaks_at else 0.0
        rows.append({"run": run, "time_s": t, "entity": "flow", "id": 0, "metric": "route_breaks", "value": broken})
    return rows


def _table1_like() -> pd.DataFrame:
    # Run 0 (the Table 1 run): delivers until 15 s, nothing to 40 s, one spike at 40.1 s, nothing to 44 s,
    # then delivers again; two route breaks at 15.3 s. Run 1: a 0.4 s gap (2 RTTs): not a stall.
    run0 = [0.0] * 5 + [200.0] * 145 + [0.0] * 250 + [926.0] + [0.0] * 39 + [200.0] * 160
    run1 = [200.0] * 100 + [0.0] * 4 + [200.0] * 100
    return pd.DataFrame(_series(0, run0, breaks_at=15.3) + _series(1, run1))


def test_stalls_are_found_per_run_from_the_series() -> None:
    stalls = find_stalls(_table1_like())
    assert set(stalls) == {0, 1} and stalls[1] == []
    first, second = stalls[0]
    assert (first.start_s, first.end_s, first.route_breaks) == (15.0, 40.0, 2)
    assert (second.start_s, second.end_s, second.route_breaks) == (40.1, 44.0, 0)
    # The startup before the first delivery is not a stall.
    assert all(s.start_s >= 0.5 for s in stalls[0])


def test_a_gap_shorter_than_a_few_rtts_is_not_a_stall() -> None:
    gap = int(STALL_RTTS * 2)  # samples of 0.1 s: 0.8 s = 4 RTTs of 200 ms, not more
    frame = pd.DataFrame(_series(0, [100.0] * 10 + [0.0] * gap + [100.0] * 10))
    assert find_stalls(frame)[0] == []
    frame = pd.DataFrame(_series(0, [100.0] * 10 + [0.0] * (gap + 1) + [100.0] * 10))
    assert [(s.start_s, s.end_s) for s in find_stalls(frame)[0]] == [(1.0, 1.9)]


def test_the_note_names_each_run_its_stalls_and_their_causes() -> None:
    [note] = stall_notes(_table1_like(), {0: 3.0, 1: 0.0})
    assert note.startswith(f"Stalls: the flow delivers nothing for more than {STALL_RTTS:g} smoothed RTTs")
    assert ("run 0: 2 stalls, 28.9 s in all (15.0-40.0 s, 40.1-44.0 s); 2 route breaks during them, "
            "3 retransmission timeouts in the run; the other 1 run: none.") in note
    quiet = pd.DataFrame(_series(0, [100.0] * 20))
    assert stall_notes(quiet, {}) == [f"Stalls: the flow delivers nothing for more than {STALL_RTTS:g} smoothed RTTs "
                                      "(from each run's goodput series, after its first delivery): none in its one "
                                      "run."]
    assert stall_notes(pd.DataFrame(), {}) == []


@pytest.mark.parametrize("srtt_ms", [0.0, 5.0])
def test_without_an_rtt_two_samples_is_the_shortest_stall(srtt_ms: float) -> None:
    frame = pd.DataFrame(_series(0, [100.0] * 5 + [0.0] * 3 + [100.0] * 5, srtt_ms=srtt_ms))
    assert [(s.start_s, s.end_s) for s in find_stalls(frame)[0]] == [(0.5, 0.8)]
