"""No Python function in python/hoplab is longer than 80 lines (the
project's brief; issue 31), read from the source with `ast`."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "hoplab"


#: The longest a Python function may be, in lines from its `def` to its
#: last line (docstring and comments included), as the project's brief says.
MAX_FUNCTION_LINES = 80


def _long_functions(tree: ast.Module, limit: int) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function or method over `limit` lines."""
    return [(node.name, node.lineno, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > limit]


def test_no_function_is_longer_than_80_lines() -> None:
    long = [f"{path.relative_to(PACKAGE.parent)}: {function} (line {line}), {length} lines"
            for path in sorted(PACKAGE.rglob("*.py"))
            for function, line, length in _long_functions(ast.parse(path.read_text(encoding="utf-8")),
                                                         MAX_FUNCTION_LINES)]
    assert not long, "split these: " + "; ".join(long)


def test_the_length_check_counts_nested_functions_and_methods() -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(81))
    tree = ast.parse(f"class C:\n    def m(self):\n{body}\n")
    assert _long_functions(tree, MAX_FUNCTION_LINES) == [("m", 2, 82)]
