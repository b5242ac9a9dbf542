"""`hoplab view` (docs/view.md): the recording changes no result, the page
is one self-contained, bounded file, bad paths are refused before anything
is written, and in headless Chromium (tests/browser.py: Playwright on the
system's Chromium) the page loads with no console error, shows every
node, moves mobile nodes with the cursor, puts route breaks on the
timeline and draws something. The browser tests skip, saying why, only
where no Chromium can run (HOPLAB_REQUIRE_BROWSER=1, set by .ci/run, makes
that a failure)."""

from __future__ import annotations

import copy
import io
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hoplab
from hoplab.view import ViewError, find_stalls, page, page_data, view

from browser import Page, launch, make_docs_screenshot, open_page, unavailable
from conftest import EXAMPLES, run_cli

MOBILE = EXAMPLES / "semitcp-mobile-48.toml"


def _scenario(path: Path, *overrides: str) -> hoplab.Scenario:
    return hoplab.load_scenario(path, list(overrides))


@pytest.fixture(scope="module")
def mobile() -> hoplab.RunResult:
    return hoplab.run(_scenario(MOBILE, "duration_s=60"), record=True)


def test_a_recorded_run_reports_what_an_unrecorded_one_does(mobile: hoplab.RunResult) -> None:
    plain = hoplab.run(_scenario(MOBILE, "duration_s=60")).to_dict()
    recorded = mobile.to_dict()
    assert recorded.pop("recording")["format"] == 2
    assert "recording" not in plain
    for report in (plain, recorded):
        report.pop("wall_seconds")
    assert recorded == plain


def test_the_hop_controls_counters_per_interval_add_up_to_the_report(mobile: hoplab.RunResult) -> None:
    # Each counter the recording follows is the nodes' report key it names,
    # sampled from time 0 to the end: its intervals sum to the run's total.
    report = mobile.to_dict()
    counters = report["recording"]["nodes"]["hop_control"]
    assert [(c["key"], c["label"]) for c in counters] == [("rtsc_sent", "RTSCs sent")]
    for counter in counters:
        totals = [sum(row[i] for row in counter["per_interval"]) for i in range(len(report["nodes"]))]
        assert totals == [node[counter["key"]] for node in report["nodes"]]
        assert sum(totals) > 0  # semi-TCP's nodes sent RTSCs: the test sees counts, not zeros


def test_a_format_1_recording_gives_the_same_page(mobile: hoplab.RunResult) -> None:
    # Format 1 kept the RTSCs as nodes.rtsc_sent.
    report = mobile.to_dict()
    old = copy.deepcopy(report)
    nodes = old["recording"]["nodes"]
    nodes["rtsc_sent"] = nodes.pop("hop_control")[0]["per_interval"]
    old["recording"]["format"] = 1
    assert page_data(old) == page_data(report)
    old["recording"]["format"] = 3
    with pytest.raises(ViewError, match="formats 1 and 2 are known"):
        page_data(old)


def test_the_page_is_one_file_that_asks_for_nothing(mobile: hoplab.RunResult, tmp_path: Path) -> None:
    path = view(mobile, tmp_path / "v.html")
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    # No script, style, image or font from anywhere: everything inline.
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)\s*=\s*[\"'](?!data:)", html)
    assert "@import" not in html and "url(" not in html
    # The data survives the trip through the page.
    found = re.search(r'<script id="hoplab-data" type="application/json">(.*?)</script>', html, re.S)
    assert found is not None
    data = json.loads(found.group(1).replace("<\\/", "</"))
    assert data["recording"] == mobile.to_dict()["recording"]


def test_48_mobile_nodes_for_200_s_give_a_page_under_10_mb(tmp_path: Path) -> None:
    result = hoplab.run(_scenario(MOBILE, "duration_s=200"), record=True)
    path = view(result, tmp_path / "v.html")
    assert path.stat().st_size < 10 * 1024 * 1024
    recording = result.to_dict()["recording"]
    # The page says how it was decimated.
    assert f"{recording['frames_kept']:,} of {recording['frames_seen']:,}" in path.read_text(encoding="utf-8")


def test_stalls_are_quiet_stretches_after_the_first_delivery() -> None:
    # 1 s intervals, RTT 100 ms: 4 RTTs < 2 intervals, so 2 s at least.
    recording: dict[str, Any] = {
        "interval_s": 1.0, "times_s": [0, 1, 2, 3, 4, 5, 6, 7, 8], "flow_ends": [[0, 1]],
        "flows": {"delivered": [[0], [0], [3], [0], [0], [0], [2], [0], [0]],
                  "srtt_ms": [[None], [100.0]] + [[100.0]] * 7}}
    # Quiet before the first delivery is not a stall; 2-5 is (3 s); 6-8 is 2 s, to the end.
    assert find_stalls(recording) == [{"flow": 0, "start_s": 2, "end_s": 5}, {"flow": 0, "start_s": 6, "end_s": 8}]
    recording["flows"]["srtt_ms"] = [[None]] + [[800.0]] * 8  # 4 RTTs = 3.2 s: only the 3 s one is not enough
    assert find_stalls(recording) == []


def test_a_run_without_a_recording_is_refused(tmp_path: Path) -> None:
    plain = hoplab.run(EXAMPLES / "dsr-chain-7hop.toml")
    with pytest.raises(ViewError, match="no recording"):
        view(plain, tmp_path / "v.html")
    assert not list(tmp_path.iterdir())


def test_the_view_command_refuses_bad_paths_writing_nothing(tmp_path: Path, workdir: Path) -> None:
    (workdir / "bad.json").write_text("{not json", encoding="utf-8")
    (workdir / "plain.json").write_text(hoplab.run(EXAMPLES / "hidden-terminal.toml").to_json(), encoding="utf-8")
    (workdir / "dir.html").mkdir()
    (workdir / "runs").mkdir()
    cases = [
        (["view", "missing.json"], "missing.json: cannot be read"),
        (["view", "bad.json"], "bad.json: is not JSON"),
        (["view", "plain.json"], "plain.json: has no recording"),
        (["view", "runs"], "runs: is a directory"),
        (["view", "plain.json", "-o", "dir.html"], "--output: 'dir.html': is a directory"),
        (["view", "plain.json", "-o", "nowhere/v.html"], "--output: 'nowhere/v.html'"),
        (["run", str(EXAMPLES / "hidden-terminal.toml"), "--view", "nowhere/v.html"], "--view: 'nowhere/v.html'"),
    ]
    before = sorted(p.name for p in workdir.iterdir())
    for args, message in cases:
        done = run_cli(*args, cwd=workdir)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == "" and done.stderr.count("\n") == 1, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
        assert sorted(p.name for p in workdir.iterdir()) == before, args


def test_run_view_and_view_write_the_same_page(workdir: Path) -> None:
    scenario = str(EXAMPLES / "dsr-chain-7hop.toml")
    done = run_cli("run", scenario, "--set", "duration_s=20", "--view", "a.html", cwd=workdir)
    assert done.returncode == 0, done.stderr
    done = run_cli("run", scenario, "--set", "duration_s=20", "--json", "--record", cwd=workdir)
    assert done.returncode == 0, done.stderr
    (workdir / "run.json").write_text(done.stdout, encoding="utf-8")
    done = run_cli("view", "run.json", cwd=workdir)
    assert done.returncode == 0 and done.stdout == "run.html\n", done.stderr
    # Identical but for the run's wall time.
    strip = re.compile(r'"wall_seconds":[0-9.e-]+')
    assert page(json.loads((workdir / "run.json").read_text())) == (workdir / "run.html").read_text()
    assert "dsr" in (workdir / "a.html").read_text() and (workdir / "a.html").stat().st_size > 10_000
    assert strip.sub("", (workdir / "a.html").read_text()) == strip.sub("", (workdir / "run.html").read_text())


# ---- In the browser ---------------------------------------------------------

def _need_browser() -> None:
    reason = unavailable()
    if reason is None:
        return
    if os.environ.get("HOPLAB_REQUIRE_BROWSER") == "1":
        pytest.fail(f"HOPLAB_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    _need_browser()
    with launch() as browser:
        yield browser


@pytest.fixture(scope="module")
def mobile_page(mobile: hoplab.RunResult, chromium: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    path = view(mobile, tmp_path_factory.mktemp("view") / "mobile.html")
    assert path.stat().st_size < 10 * 1024 * 1024
    with open_page(path, chromium) as opened:
        yield opened


def test_the_page_loads_with_every_node_and_no_console_error(mobile_page: Page) -> None:
    state = mobile_page.state()
    assert [n["id"] for n in state["nodes"]] == list(range(48))
    assert mobile_page.page.locator("#map g.node").count() == 48
    assert mobile_page.errors == []


def test_seek_moves_the_mobile_nodes_as_the_recording_says(mobile_page: Page, mobile: hoplab.RunResult) -> None:
    recording = mobile.to_dict()["recording"]
    at10, at50 = mobile_page.seek(10), mobile_page.seek(50)
    assert at10["time_s"] == 10 and at50["time_s"] == 50
    moved = sum((a["x_m"], a["y_m"]) != (b["x_m"], b["y_m"]) for a, b in zip(at10["nodes"], at50["nodes"], strict=True))
    assert moved >= 40
    # At a sample time, each node is where the core put it (to 0.1 m).
    k = recording["times_s"].index(50)
    for node in at50["nodes"]:
        assert (node["x_m"], node["y_m"]) == pytest.approx(
            (recording["positions_dm"][k][2 * node["id"]] / 10, recording["positions_dm"][k][2 * node["id"] + 1] / 10))
    assert mobile_page.errors == []


def test_each_flow_shows_the_route_the_recording_has_at_the_cursor(mobile_page: Page, mobile: hoplab.RunResult) -> None:
    recording = mobile.to_dict()["recording"]
    state = mobile_page.seek(50)
    for flow in state["flows"]:
        changes = [c for c in recording["routes"] if c["flow"] == flow["id"] and c["time_s"] <= 50]
        had = [c["route"] for c in changes if c["route"]]
        if not changes:
            assert flow["route_state"] == "none" and flow["route"] == []
        elif changes[-1]["route"]:
            assert flow["route_state"] == "up" and flow["route"] == changes[-1]["route"]
        else:  # lost: shown as the last route it had, marked broken
            assert flow["route_state"] == "broken" and flow["route"] == had[-1]
        if flow["route"]:
            assert (flow["route"][0], flow["route"][-1]) == (flow["src"], flow["dst"])
        # A flow without any route: its ends are not connected at all then.
        if flow["route_state"] == "none":
            assert flow["ends_connected"] is False


def test_the_cursor_plays(mobile_page: Page) -> None:
    mobile_page.seek(5)
    mobile_page.page.evaluate("window.hoplabViewer.setSpeed(20); window.hoplabViewer.play()")
    mobile_page.page.wait_for_function("window.hoplabViewer.state().time_s > 5.5", timeout=20_000)
    mobile_page.page.evaluate("window.hoplabViewer.pause()")
    assert not mobile_page.state()["playing"]


def test_every_quantity_colours_the_nodes(mobile_page: Page) -> None:
    names = mobile_page.page.evaluate("window.hoplabViewer.quantities()")
    assert {"queue_packets", "mac_state", "drops", "rx_errors", "frames_sent"} <= set(names)
    # Semi-TCP's hop control counted RTSCs: the page shows them and the time congested.
    assert {"rtsc_sent", "congested_permille"} <= set(names)
    for name in names:
        mobile_page.page.evaluate("q => window.hoplabViewer.setQuantity(q)", name)
        assert mobile_page.state()["quantity"] == name
    assert mobile_page.errors == []


def test_a_route_break_appears_on_the_timeline(chromium: Any, tmp_path: Path) -> None:
    # The lossy TCP-RA chain: channel errors break links, AODV rediscovers.
    # Its own 130 s: with ns-2's ARP its seed 1 finds no route in the first
    # 30 s (crates/hoplab-sim/tests/limits.rs).
    result = hoplab.run(_scenario(EXAMPLES / "tcp-ra-chain-gilbert.toml", "warmup_s=5"), record=True)
    breaks = [e for e in result.to_dict()["recording"]["events"] if e["kind"] == "route_break"]
    assert breaks and sum(e["count"] for e in breaks) == sum(f["route_breaks"] for f in result.to_dict()["flows"])
    with open_page(view(result, tmp_path / "v.html"), chromium) as opened:
        marks = opened.page.locator("#timeline .ev-route_break")
        assert marks.count() == len(breaks)
        assert sorted(float(t) for t in marks.evaluate_all("els => els.map(e => e.dataset.time)")) == \
            sorted(e["time_s"] for e in breaks)
        assert opened.errors == []


def test_a_static_network_shows_every_node_where_the_report_puts_it(chromium: Any, tmp_path: Path) -> None:
    result = hoplab.run(EXAMPLES / "wired-cum-wireless.toml", record=True)
    nodes = result.to_dict()["nodes"]
    with open_page(view(result, tmp_path / "v.html"), chromium) as opened:
        for t in (0, result.sim_seconds / 2):
            state = opened.seek(t)
            assert [v for n in state["nodes"] for v in (n["x_m"], n["y_m"])] == pytest.approx(
                [v for n in nodes for v in (n["x_m"], n["y_m"])], abs=0.05)
        assert opened.page.locator("#map line.wired").count() == len(result.to_dict()["recording"]["wired_links"])
        assert opened.errors == []


def test_the_screenshot_is_not_blank(chromium: Any, tmp_path: Path) -> None:
    from PIL import Image

    out = make_docs_screenshot(tmp_path / "view.png", time_s=50.0, browser=chromium)
    image = Image.open(io.BytesIO(out.read_bytes())).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "the page drew (almost) nothing"
    # Not one colour almost everywhere either.
    assert max(count for count, _ in colours) < 0.97 * image.width * image.height


def test_reproduction_reports_link_a_view_of_a_median_run_per_experiment(tmp_path: Path) -> None:
    from hoplab.report import reproduce

    from test_experiments import _stub_paper

    result = reproduce(_stub_paper(), tmp_path / "out", quick=True, executor="serial")
    # "rates" has runs; "broken" has none that succeeded, so no view.
    assert set(result.views) == {"rates"}
    view_path = tmp_path / "out" / result.views["rates"].path
    assert result.views["rates"].path == "views/rates.html" and view_path.exists()
    markdown, html = result.markdown.read_text(), result.html.read_text()
    assert "[rates](views/rates.html): flows.0.rate_kbps = 10, seed " in markdown
    assert "<a href='views/rates.html'>rates</a>" in html
    # The first point's five runs: the view is of the one with the median goodput.
    runs = hoplab.Store(tmp_path / "out" / "store").runs()
    first = runs[(runs["flows.0.rate_kbps"] == 10) & (runs["status"] == "ok")].sort_values(["goodput_kbps", "seed"])
    assert len(first) == 5
    seed = int(first.iloc[2]["seed"])
    assert f"seed {seed} (the median goodput" in result.views["rates"].run
    found = re.search(r'<script id="hoplab-data" type="application/json">(.*?)</script>', view_path.read_text(), re.S)
    assert found is not None
    shown = json.loads(found.group(1).replace("<\\/", "</"))
    assert shown["meta"]["summary"].startswith(f"seed {seed} ")
