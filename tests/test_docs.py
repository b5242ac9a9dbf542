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


# The README as an entrance, and the pages it leads to.
README_MAX_LINES = 250
PAPER_PAGES = ("semitcp-2018.md", "scalable-manet.md", "tcp-ra.md", "tcpw-br.md", "few-afw.md")


def _outside_code(text: str) -> Iterator[str]:
    """The lines of a Markdown text outside fenced code blocks, inline code removed."""
    fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield re.sub(r"`[^`]*`", "", line)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    anchors: set[str] = set()
    fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", line):
            slug = _slug(line.lstrip("#"))
            unique, n = slug, 0
            while unique in anchors:
                n += 1
                unique = f"{slug}-{n}"
            anchors.add(unique)
    anchors.update(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", path.read_text(encoding="utf-8")))
    return anchors


def _broken_links(page: Path, root: Path = REPO) -> list[str]:
    broken = []
    for line in _outside_code(page.read_text(encoding="utf-8")):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", target):
                continue
            path_part, _, anchor = target.partition("#")
            resolved = (page.parent / path_part).resolve() if path_part else page
            if not resolved.exists():
                broken.append(f"{page.relative_to(root)}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
                broken.append(f"{page.relative_to(root)}: {target} (no heading #{anchor})")
    return broken


def test_every_relative_link_of_the_readme_and_docs_resolves() -> None:
    """Files and #anchors (GitHub's heading slugs) of README.md and docs/*.md."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    broken = [problem for page in pages for problem in _broken_links(page)]
    assert not broken, broken


def test_the_link_check_catches_a_broken_file_or_anchor(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n\n## Loss causes\n\n[ok](#loss-causes) [x](b.md) [y](#nope)\n"
                                   "```\n[in code](missing.md)\n```\n", encoding="utf-8")
    assert _broken_links(tmp_path / "a.md", tmp_path) == ["a.md: b.md (no such file)", "a.md: #nope (no heading #nope)"]
    assert _slug(" Why 2x cannot be reached with ns-3's receiver") == "why-2x-cannot-be-reached-with-ns-3s-receiver"
    assert _slug(" `flows[]`") == "flows"


def test_the_readme_is_an_entrance() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    first_block = readme.split("```sh", 1)[1].split("```", 1)[0]
    commands = [line for line in first_block.splitlines() if line.strip()]
    assert len(commands) == 2 and commands[0].endswith("hoplab reproduce semitcp-2018 --quick")
    assert commands[1].endswith("bash scripts/test.sh")
    assert readme.index("```sh") < readme.index("## What it is")  # the two commands at the very top
    for heading in ("## What it is", "## Install", "## Quick start", "## The five papers", "## Status in short",
                    "## Where to read on"):
        assert heading in readme, heading
    assert "```python" in readme and "hoplab run " in readme  # a quick start in the shell and in Python
    for page in (*PAPER_PAGES, "status.md", "index.md", "experiments-and-store.md", "executors-and-clusters.md",
                 "model-fidelity.md", "limits.md", "traces.md", "reproducing.md", "benchmarks.md"):
        assert f"](docs/{page}" in readme, page
    papers = readme.split("## The five papers", 1)[1].split("\n## ", 1)[0]
    for paper in ("semitcp-2018", "scalable-manet", "tcp-ra-2009", "tcpw-br", "few-afw"):
        assert f"`hoplab reproduce {paper}`" in papers, paper


def test_what_left_the_readme_is_reachable_from_it() -> None:
    """The full Status table, the paper findings and the measured speed are
    one link away (docs/status.md, docs/benchmarks.md, docs/timings.md), and
    docs/index.md lists every page."""
    status = (REPO / "docs" / "status.md").read_text(encoding="utf-8")
    assert "| part | state |" in status and "## Paper findings" in status
    for issue in (2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19):
        assert f"(issue {issue})" in status, issue
    benchmarks = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "simulated s per wall s" in benchmarks and "ns-3" in benchmarks
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    unlisted = [p.name for p in (REPO / "docs").glob("*.md") if p.name != "index.md" and f"]({p.name})" not in index]
    assert not unlisted, unlisted
