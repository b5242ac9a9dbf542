"""The documentation in the repository stays true: docs/metrics.md names
every field a run reports, every loss cause and every series metric;
docs/scenario-reference.md is what scripts/scenario_reference.py renders
from the core's schema now, and names every key of the examples; the README
links only to files in the repository."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hoplab
from conftest import EXAMPLES, REPO, SMALL_CHAIN
from hoplab import _core
from hoplab.run import DROP_CAUSES, REPORT_FIELDS

METRICS = REPO / "docs" / "metrics.md"
SCENARIO_REFERENCE = REPO / "docs" / "scenario-reference.md"


def _reports() -> list[dict[str, Any]]:
    """Reports that between them have every field: TCP over AODV, and
    semi-TCP with Algorithm 1; with series."""
    tcp = hoplab.Scenario.from_toml(SMALL_CHAIN).set("routing.protocol", "aodv").set("flows.0.transport", "tcp")
    semi = hoplab.Scenario.from_toml(SMALL_CHAIN).set("flows.0.transport", "semitcp") \
        .set("flows.0.rate_control", "binary_search").set("duration_s", 20.0).set("stats.series_interval_s", 0.5)
    return [hoplab.run(s, seed=1, series=True).to_dict() for s in (tcp, semi)]


def _documented() -> set[str]:
    return set(re.findall(r"`([a-z0-9_<>]+)(?:\[\])?`", METRICS.read_text(encoding="utf-8")))


def test_metrics_doc_names_every_report_field() -> None:
    documented = _documented()
    missing = {f"{part}.{k}" for part, fields in REPORT_FIELDS.items() for k in fields if k not in documented}
    for report in _reports():
        missing |= {f"frames_sent.{k}" for k in report["nodes"][0]["frames_sent"] if k not in documented}
        missing |= {f"routing message {k}" for k in report["routing"]["messages_sent"] if k not in documented}
        for point in report["series"]:
            metric = str(point["metric"])
            if metric not in documented and not (metric.startswith("cc_") and "cc_<name>" in documented):
                missing.add(f"series {metric}")
    assert not missing, f"docs/metrics.md does not name: {sorted(missing)}"


def test_metrics_doc_names_every_loss_cause() -> None:
    text = METRICS.read_text(encoding="utf-8")
    causes = set(re.findall(r"^\| `([a-z_]+)` \|", text.split("## Loss causes")[1].split("##")[0], re.M))
    assert causes == set(DROP_CAUSES), "the loss-cause table lists exactly the core's causes"


def test_readme_links_only_to_files_in_the_repository() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "shared folder" not in readme and "../shared" not in readme
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    assert "docs/metrics.md" in targets and "docs/timings.md" in targets
    for target in targets:
        if re.match(r"^[a-z]+://", target):
            continue
        assert (REPO / target).exists(), target
    # DESIGN.md is not in a clone: not named as if it were.
    assert "`DESIGN.md`" not in readme and "(DESIGN.md)" not in readme


def _tracked_text_files() -> Iterator[tuple[str, str]]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in listed.decode().split("\0"):
        path = REPO / name
        if not name or not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        yield name, path.read_text(encoding="utf-8", errors="replace")


TEXT_SUFFIXES = {".rs", ".py", ".md", ".toml", ".txt", ".sh", ".yml", ".yaml", ".json", ".cfg", ".lock", ".tcl", ""}


def test_no_tracked_file_cites_a_document_outside_the_repository() -> None:
    """The rules and numbers the code relies on are in docs/ (one page per
    paper, docs/network-model.md for the network they share): no file cites
    the out-of-tree spec they were first written down in."""
    outside = "SPEC" + ".md"
    citing = [name for name, text in _tracked_text_files() if outside in text]
    assert not citing, f"{outside} is cited by {citing}"


def test_every_docs_page_a_tracked_file_cites_exists() -> None:
    """`docs/semitcp-2018.md` in a Rust doc comment, a paper module or an
    example names a page that is in the repository."""
    missing = set()
    for name, text in _tracked_text_files():
        for page in re.findall(r"\bdocs/([a-z0-9_-]+\.md)", text):
            if not (REPO / "docs" / page).is_file():
                missing.add(f"{name}: docs/{page}")
    assert not missing, sorted(missing)


def test_architecture_page_names_only_files_that_exist() -> None:
    """Every source path docs/architecture.md names (`mac/access.rs`,
    `net/aodv/`, ...) exists, so the "how to add" lists stay true."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    core = REPO / "crates" / "hoplab-sim"
    missing = []
    for path in set(re.findall(r"`((?:[a-z_0-9]+/)+(?:[a-z_0-9]+\.rs)?)`", text)):
        if "<" in path:
            continue
        candidates = [core / "src" / path, core / path, REPO / path, REPO / "python" / "hoplab" / path]
        nested = path.count("/") == 1 and path.endswith("/") and any(
            any(root.rglob(path.rstrip("/"))) for root in (core / "src", REPO / "python" / "hoplab"))
        if not nested and not any(c.exists() for c in candidates):
            missing.append(path)
    for name in set(re.findall(r"`([a-z_]+\.rs)`", text)):
        if not list((core / "src").rglob(name)) and not list(core.rglob(name)):
            missing.append(name)
    for name in set(re.findall(r"`([a-z_]+\.py)`", text)):
        if not list((REPO / "python" / "hoplab").rglob(name)):
            missing.append(name)
    assert not missing, f"docs/architecture.md names missing files: {sorted(missing)}"


def _render_scenario_reference() -> str:
    """What `python scripts/scenario_reference.py` would write now."""
    spec = importlib.util.spec_from_file_location("scenario_reference", REPO / "scripts" / "scenario_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page: str = module.render(json.loads(_core.scenario_schema()))
    return page


def test_scenario_reference_is_current() -> None:
    assert SCENARIO_REFERENCE.read_text(encoding="utf-8") == _render_scenario_reference(), \
        "docs/scenario-reference.md is stale: run python scripts/scenario_reference.py"


def _keys(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(dotted path, key) of every key in a normalised scenario, at every level."""
    if isinstance(value, dict):
        for key, inner in value.items():
            here = f"{path}.{key}" if path else key
            yield here, key
            yield from _keys(inner, here)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _keys(item, f"{path}[{i}]")


def test_scenario_reference_names_every_key_of_the_examples() -> None:
    page = SCENARIO_REFERENCE.read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([a-z0-9_]+)` \|", page, re.M))
    examples = sorted(EXAMPLES.glob("*.toml"))
    assert examples, "examples/*.toml"
    missing = {f"{path.name}: {dotted}" for path in examples
               for dotted, key in _keys(hoplab.load_scenario(path).validate()) if key not in rows}
    assert not missing, f"docs/scenario-reference.md has no row for: {sorted(missing)}"
