"""The two locks: requirements.lock holds what running hoplab needs (README's
first command installs only it), requirements-test.lock what testing adds
(README's second command and .ci/run install both). Each is closed under
its packages' own requirements, so a fresh install lacks nothing, and
pyproject.toml's ranges admit the pinned versions."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import tomllib
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import REPO

RUNTIME = REPO / "requirements.lock"
TEST = REPO / "requirements-test.lock"


def _pins(path: str) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in REPO.joinpath(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, version = line.partition("==")
        assert sep and version and " " not in line, f"{path}: not an exact pin: {line!r}"
        pins[canonicalize_name(name)] = version
    return pins


def _project() -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project


def _requirements_of(name: str, extras: tuple[str, ...] = ()) -> list[Requirement]:
    """What installed package `name` requires (with `extras`), markers evaluated here."""
    found = []
    for text in importlib.metadata.requires(name) or []:
        req = Requirement(text)
        environments = [{"extra": extra} for extra in extras] or [{"extra": ""}]
        if req.marker is None or any(req.marker.evaluate(env) for env in environments):
            found.append(req)
    return found


def _closure(roots: list[Requirement]) -> set[str]:
    seen: set[tuple[str, tuple[str, ...]]] = set()
    stack = [(r.name, tuple(sorted(r.extras))) for r in roots]
    while stack:
        name, extras = stack.pop()
        if (canonicalize_name(name), extras) in seen:
            continue
        seen.add((canonicalize_name(name), extras))
        stack += [(r.name, tuple(sorted(r.extras))) for r in _requirements_of(name, extras)]
    return {name for name, _ in seen}


def test_the_locks_are_disjoint_exact_pins() -> None:
    runtime, test = _pins(RUNTIME.name), _pins(TEST.name)
    assert runtime and test and not set(runtime) & set(test)
    for name in ("pytest", "hypothesis", "mypy", "dpkt", "pytest-timeout"):
        assert name in test and name not in runtime, name


def test_each_lock_holds_everything_its_install_needs() -> None:
    runtime, test = _pins(RUNTIME.name), _pins(TEST.name)
    project = _project()
    dependencies = [Requirement(text) for text in project["dependencies"]]
    extra = [Requirement(text) for text in project["optional-dependencies"]["test"]]
    needed = _closure([*dependencies, Requirement("maturin")])
    assert needed <= set(runtime), f"running needs, not in requirements.lock: {sorted(needed - set(runtime))}"
    assert set(runtime) <= needed, f"requirements.lock pins what running does not need: {sorted(set(runtime) - needed)}"
    tested = _closure(extra) - needed
    assert tested == set(test), (f"requirements-test.lock misses {sorted(tested - set(test))}, "
                                 f"has extra {sorted(set(test) - tested)}")


def test_pyproject_ranges_admit_the_pinned_versions() -> None:
    pins = _pins(RUNTIME.name) | _pins(TEST.name)
    project = _project()
    requirements = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    for text in requirements:
        req = Requirement(text)
        assert req.specifier.contains(pins[canonicalize_name(req.name)], prereleases=True), (text, pins[req.name])
    build = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    assert Requirement(build[0]).specifier.contains(pins["maturin"])


def test_the_readme_main_job_installs_only_the_runtime_lock() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first, second = [line for line in readme.split("```sh", 1)[1].split("```", 1)[0].splitlines() if line.strip()]
    installs = [re.findall(r"-r (\S+)", line) for line in (first, second)]
    assert installs == [["requirements.lock"], ["requirements.lock", "requirements-test.lock"]], installs
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.findall(r"-r (\S+)", ci) == ["requirements.lock", "requirements-test.lock"]


def test_every_package_the_tests_import_is_locked() -> None:
    """What tests/ imports, beyond the standard library and hoplab, comes
    from a package of the two locks (so .ci/run's install has it)."""
    import sys

    pins = _pins(RUNTIME.name) | _pins(TEST.name)
    owners = importlib.metadata.packages_distributions()
    imported: set[str] = set()
    for path in (REPO / "tests").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    local = {"hoplab", "__future__"} | {path.stem for path in (REPO / "tests").glob("*.py")}
    third_party = sorted(m for m in imported - local if m not in sys.stdlib_module_names)
    assert "dpkt" in third_party and "hypothesis" in third_party and "pytest" in third_party
    unlocked = [m for m in third_party if not any(canonicalize_name(d) in pins for d in owners.get(m, []))]
    assert not unlocked, unlocked
