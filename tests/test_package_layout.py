"""The Python package's shape, read from its source with `ast`: which module
may import which, and how long a function may be (docs/architecture.md,
"The Python package"; issue 31)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "hoplab"


def _modules() -> dict[str, ast.Module]:
    """Every module of the package, by dotted name, parsed."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return out


def _imports(tree: ast.Module) -> set[str]:
    """The hoplab modules a module imports, wherever in it (a function's
    deferred import counts)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("hoplab")}


def test_the_parts_of_a_sweep_do_not_import_the_sweep() -> None:
    # campaign.py (the sweep) stands on these; none of them may reach back
    # into it, and statistics over runs need no sweep at all.
    modules = _modules()
    below = ("hoplab.stats", "hoplab.flatten", "hoplab.vary", "hoplab.identity", "hoplab.tasks", "hoplab.worker",
             "hoplab.store", "hoplab.run")
    for name in below:
        assert "hoplab.campaign" not in _imports(modules[name]), f"{name} imports hoplab.campaign"
    for name, tree in modules.items():
        if name.startswith("hoplab.papers"):
            assert "hoplab.campaign" not in _imports(tree), f"{name} imports hoplab.campaign (use hoplab.stats)"


def test_the_checker_sees_deferred_and_from_imports() -> None:
    tree = ast.parse("def f():\n    from hoplab.campaign import sweep\nimport hoplab.store\n")
    assert {"hoplab.campaign", "hoplab.store"} <= _imports(tree)

