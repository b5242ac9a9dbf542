"""The stored references of `hoplab fidelity`: JSON files shipped as package
data, each naming the script, command, simulator version and seeds behind
its numbers."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any


@cache
def load(name: str) -> dict[str, Any]:
    """`hoplab/data/references/<name>.json` (or `hoplab/data/<name>.json`)."""
    data = files("hoplab").joinpath("data")
    path = data.joinpath("references", f"{name}.json")
    if not path.is_file():
        path = data.joinpath(f"{name}.json")
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def available(name: str) -> bool:
    data = files("hoplab").joinpath("data")
    return data.joinpath("references", f"{name}.json").is_file() or data.joinpath(f"{name}.json").is_file()


def case_runs(name: str, **params: Any) -> list[dict[str, Any]]:
    """The runs of the case of reference set `name` whose params include
    `params`, one per seed (empty if the set has no such case)."""
    for case in load(name)["cases"]:
        if all(case["params"].get(k) == v for k, v in params.items()):
            runs: list[dict[str, Any]] = case["runs"]
            return [dict(r, seed=s) for r, s in zip(runs, case["seeds"], strict=True)]
    return []


def source(name: str) -> str:
    """One line naming where a reference set comes from."""
    doc = load(name)
    script = doc.get("script") or doc.get("command") or doc.get("source", "")
    return f"{doc.get('version', '')}, {script}".strip(", ")
