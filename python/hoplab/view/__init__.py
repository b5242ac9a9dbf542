"""`hoplab view`: one self-contained HTML page of a recorded run
(docs/view.md).

The page draws the run's `recording` (made by `hoplab.run(..., record=True)`
or `hoplab run --record` / `--view`): the nodes to scale over time, each
flow's route at the cursor, per-node colour for a chosen quantity, frames
with receptions in error, a timeline of route breaks, rediscoveries,
timeouts and stalls, and per-flow plots, all linked to one time cursor.
Everything it needs is inlined: the data as JSON, the style and the
script (`viewer.css`, `viewer.js`, plain JavaScript and SVG written for
hoplab, no library), so it opens from disk with no server or network.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hoplab.run import RunResult

if TYPE_CHECKING:
    from pathlib import Path

# pathlib and hoplab.paths are imported by the functions that read or
# write: `import hoplab` imports this module, and a run without --view
# needs neither (docs/performance.md, Start-up).

__all__ = ["FORMAT", "ViewError", "current_recording", "find_stalls", "load_run", "page", "page_data", "view"]

#: A stall lasts longer than this many of the flow's median smoothed RTTs
#: (the rule of `hoplab.papers.stalls`, applied to the recording's
#: intervals), and at least two intervals.
STALL_RTTS = 4.0

#: The recording format this page reads (`Recording::format` in the core);
#: format 1 is read through `current_recording`.
FORMAT = 2


class ViewError(ValueError):
    """A run that cannot be viewed: `key` names what is wrong (the file,
    or `recording`), str() says what to do."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


def load_run(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a run report (`hoplab run --json --record`) from `path`;
    ViewError naming the file if it is unreadable, not a report, or has no
    recording."""
    from pathlib import Path

    key = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except IsADirectoryError:
        raise ViewError(key, "is a directory; give the JSON report of a recorded run") from None
    except UnicodeDecodeError:
        raise ViewError(key, "is not UTF-8 text; give the JSON report of a recorded run") from None
    except OSError as e:
        raise ViewError(key, f"cannot be read: {e.strerror or e}") from None
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        raise ViewError(key, f"is not JSON ({e.msg} at line {e.lineno}); give `hoplab run FILE --json --record`'s output") from None
    check_report(report, key)
    return dict(report)


def check_report(report: Any, key: str = "result") -> None:
    """ViewError unless `report` is a run report with a recording."""
    if not isinstance(report, Mapping) or not isinstance(report.get("flows"), list) \
            or not isinstance(report.get("nodes"), list):
        raise ViewError(key, "is not a hoplab run report (no flows and nodes)")
    recording = report.get("recording")
    if recording is None:
        raise ViewError(key, "has no recording: run it with `hoplab run FILE --json --record` "
                             "(or `--view out.html`; Python: hoplab.run(..., record=True))")
    if not isinstance(recording, Mapping) or recording.get("format") not in (1, FORMAT):
        raise ViewError(key, f"has a recording this hoplab cannot read (formats 1 and {FORMAT} are known)")


def current_recording(recording: Mapping[str, Any]) -> dict[str, Any]:
    """`recording` in format FORMAT. Format 1 kept semi-TCP's RTSCs as
    `nodes.rtsc_sent`; format 2 keeps the hop control's counters as
    `nodes.hop_control`, each with the key and label the core gives it."""
    if recording["format"] == FORMAT:
        return dict(recording)
    nodes = dict(recording["nodes"])
    nodes["hop_control"] = [{"key": "rtsc_sent", "label": "RTSCs sent", "per_interval": nodes.pop("rtsc_sent")}]
    return {**recording, "format": FORMAT, "nodes": nodes}


def find_stalls(recording: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Stalls from the recording: per flow, runs of consecutive intervals
    that deliver nothing, after the flow's first delivery, longer than
    STALL_RTTS median smoothed RTTs and at least two intervals (as
    `hoplab.papers.stalls` finds them from a run's series). A stall still
    going at the end of the run ends there."""
    import statistics

    times = recording["times_s"]
    delivered = recording["flows"]["delivered"]
    srtt = recording["flows"]["srtt_ms"]
    interval_s = float(recording["interval_s"])
    stalls: list[dict[str, Any]] = []
    for flow in range(len(recording["flow_ends"])):
        rtts = [row[flow] for row in srtt if row[flow] is not None]
        shortest = max(2 * interval_s, STALL_RTTS * statistics.median(rtts) / 1e3 if rtts else 0.0)
        started, quiet_from = False, None
        for k in range(1, len(times)):
            if delivered[k][flow] > 0:
                if quiet_from is not None and times[k - 1] - quiet_from > shortest - 1e-9:
                    stalls.append({"flow": flow, "start_s": quiet_from, "end_s": times[k - 1]})
                started, quiet_from = True, None
            elif started and quiet_from is None:
                quiet_from = times[k - 1]
        if quiet_from is not None and times[-1] - quiet_from > shortest - 1e-9:
            stalls.append({"flow": flow, "start_s": quiet_from, "end_s": times[-1]})
    return stalls


def _flow_label(flow: Mapping[str, Any]) -> str:
    variant = flow.get("cc") or (flow.get("rate_control") if flow.get("rate_control") not in (None, "none") else None)
    transport = flow["transport"] + (f"/{variant}" if variant else "")
    return f"{flow['id']}: {flow['src']} → {flow['dst']} {transport} ({flow['goodput_kbps']:.1f} kbps)"


def _bounds_note(recording: Mapping[str, Any]) -> str:
    samples = len(recording["times_s"])
    seen, kept = int(recording["frames_seen"]), int(recording["frames_kept"])
    frames = ("every frame transmission and reception in error is drawn" if kept == seen else
              f"frames: {kept:,} of {seen:,} transmissions and receptions in error are drawn "
              f"(an even spread of each interval's), every one is counted per node")
    moving = "positions sampled every interval and interpolated between; " if recording["mobile"] else ""
    return (f"Recorded every {recording['interval_s']:g} s ({samples} samples; the interval grows with "
            f"the run's length and size to keep the page bounded): {moving}routes, queues and MAC state "
            f"as at each sample; counts per interval; {frames}.")


def page_data(report: Mapping[str, Any], start_s: float | None = None) -> dict[str, Any]:
    """What the page's script reads: the recording, flow labels, stalls
    and the header's lines."""
    check_report(report)
    recording = current_recording(report["recording"])
    routing = report.get("routing", {}).get("protocol", "?")
    summary = (f"seed {report['seed']} · {report['sim_seconds']:g} s simulated · {len(report['nodes'])} nodes · "
               f"{len(report['flows'])} flows · routing {routing} · hoplab {report['version']} · "
               f"config {report['config_hash']}")
    return {
        "meta": {"name": report["name"], "summary": summary, "bounds": _bounds_note(recording),
                 "start_s": start_s if start_s is not None else 0.0},
        "flows": [{"id": f["id"], "src": f["src"], "dst": f["dst"], "label": _flow_label(f)} for f in report["flows"]],
        "stalls": find_stalls(recording),
        "recording": recording,
    }


def _asset(name: str) -> str:
    from importlib import resources

    return resources.files("hoplab.view").joinpath(name).read_text(encoding="utf-8")


def page(report: Mapping[str, Any], start_s: float | None = None) -> str:
    """The page of a recorded run, as HTML text."""
    data = json.dumps(page_data(report, start_s), separators=(",", ":"), allow_nan=False)
    # Inside <script>, "</" could end the element: JSON allows "<\/".
    data = data.replace("</", "<\\/")
    title = str(report["name"]).replace("&", "&amp;").replace("<", "&lt;")
    html = _asset("template.html")
    # Each placeholder once, data last (it is the only part that is not ours).
    for placeholder, value in (("{{title}}", title), ("{{css}}", _asset("viewer.css")),
                               ("{{js}}", _asset("viewer.js")), ("{{data}}", data)):
        head, sep, tail = html.partition(placeholder)
        html = head + value + tail if sep else html
    return html


def view(result: RunResult | Mapping[str, Any] | str | os.PathLike[str], path: str | os.PathLike[str],
         start_s: float | None = None) -> Path:
    """Write the page of a recorded run to `path` and return it. `result`:
    a RunResult (of `hoplab.run(..., record=True)`), a report dict, or the
    path of a report's JSON. `start_s`: where the cursor starts. Raises
    ViewError for a run without a recording, OutputPathError if `path`
    cannot be written; nothing is written then."""
    from hoplab.paths import check_output_file, write_file

    if isinstance(result, RunResult):
        report: Mapping[str, Any] = result.to_dict()
    elif isinstance(result, Mapping):
        report = result
    else:
        report = load_run(result)
    check_report(report)
    check_output_file(path, "path")
    html = page(report, start_s).encode("utf-8")
    return write_file(path, lambda handle: handle.write(html), key="path")
