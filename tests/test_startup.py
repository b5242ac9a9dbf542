"""Start-up: `import hoplab`, `hoplab --help` and `hoplab run` import only
what they need (issue 30; docs/performance.md, Start-up: with that, both
begin their work within 0.15 s). Checked on the import graph of a fresh
interpreter (sys.modules, and `python -X importtime`'s list of every module
imported), not on a clock."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLES

#: What neither the help nor a single run needs before it simulates: data
#: frames, plots, the store, the sweep machinery, rich's tables; pydantic,
#: which typer 0.29 imported to convert every option (0.1 s of each command's
#: start-up, the reason hoplab.cli is on click), and the package metadata.
HEAVY = ("pandas", "numpy", "pyarrow", "duckdb", "matplotlib", "dask", "hoplab.campaign", "hoplab.store",
         "hoplab.executors", "hoplab.papers", "hoplab.fidelity", "rich", "pydantic", "pydantic_core", "typer",
         "markdown_it", "importlib.metadata",
         # Output paths (hoplab.paths, pathlib with urllib.parse and ipaddress, secrets with hashlib and
         # random): only a run that writes a trace or a page, or a command that writes files, needs them.
         "hoplab.paths", "pathlib", "secrets", "urllib", "ipaddress", "hashlib", "random")


def _modules_after(code: str, cwd: Path) -> set[str]:
    """The top-level and hoplab modules a fresh interpreter holds after
    `code`, which prints json.dumps(sorted(sys.modules)) as its last line."""
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True,
                          timeout=120)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_import_hoplab_and_the_cli_bring_nothing_heavy(workdir: Path) -> None:
    for module in ("hoplab", "hoplab.cli"):
        modules = _modules_after(f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))", workdir)
        assert module in modules
        assert _heavy(modules) == [], module
        # The version's lookup (importlib.metadata) waits for hoplab.__version__.
        assert "importlib.metadata" not in modules, module


def test_help_brings_nothing_heavy(workdir: Path) -> None:
    code = ("import json, sys, contextlib, io\nfrom hoplab.cli import _main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n    status = _main(['--help'])\n"
            "assert status == 0 and 'Commands' in out.getvalue(), out.getvalue()\n"
            "print(json.dumps(sorted(sys.modules)))")
    modules = _modules_after(code, workdir)
    assert _heavy(modules) == []


def test_the_command_imports_nothing_heavy_for_its_help(workdir: Path) -> None:
    """`python -X importtime -m hoplab --help`: every module the command
    imports, the entry point's own included, is listed on stderr."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "hoplab", "--help"], cwd=workdir,
                          capture_output=True, text=True, check=True, timeout=120)
    modules = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "hoplab.cli" in modules and "click" in modules
    assert _heavy(modules) == []
    assert "Commands:" in done.stdout


def test_run_simulates_before_importing_anything_heavy(workdir: Path) -> None:
    """The modules loaded when `hoplab run` hands the scenario to the core
    (rich comes after, to print the summary)."""
    scenario = EXAMPLES / "bench-chain15-udp.toml"
    code = ("import json, sys, contextlib, io\nfrom hoplab import _core\nseen = []\nreal = _core.simulate\n"
            "def spy(*a, **k):\n    seen.append(sorted(sys.modules))\n    return real(*a, **k)\n"
            "_core.simulate = spy\nfrom hoplab.cli import _main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    status = _main(['run', {str(scenario)!r}, '--set', 'duration_s=0.5', '--set', 'warmup_s=0.1'])\n"
            "assert status == 0 and len(seen) == 1, status\n"
            "print(json.dumps(seen[0]))")
    modules = _modules_after(code, workdir)
    assert "hoplab.run" in modules
    assert _heavy(modules) == []


def test_the_public_api_is_whole(workdir: Path) -> None:
    code = ("import json, hoplab\nfrom hoplab import _core\n"
            f"r = hoplab.run(hoplab.load_scenario({str(EXAMPLES / 'bench-chain15-udp.toml')!r}, ['duration_s=0.5', 'warmup_s=0.1']), seed=1)\n"
            "names = [n for n in hoplab.__all__ if not hasattr(hoplab, n)]\n"
            "print(json.dumps([r.to_dict()['seed'], hoplab.__version__, _core.version(), names]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=workdir, capture_output=True, text=True, check=True,
                          timeout=120)
    seed, version, core_version, missing = json.loads(done.stdout.strip().splitlines()[-1])
    assert seed == 1
    assert version == core_version  # the package and its core are built together
    assert missing == []


def test_a_plain_run_imports_no_click(small_chain: Path, workdir: Path) -> None:
    """`python -m hoplab run FILE --json` (hoplab.command's own reading of a
    plain run): neither click nor hoplab.cli is imported at all, nor
    anything heavy; any other command line still goes through click."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "hoplab", "run", str(small_chain), "--json",
                           "--set", "duration_s=0.5", "--set", "warmup_s=0.1"], cwd=workdir, capture_output=True,
                          text=True, check=True, timeout=120)
    modules = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert json.loads(done.stdout)["sim_seconds"] == 0.5
    assert "hoplab.command" in modules and "hoplab.run" in modules
    assert "click" not in modules and "hoplab.cli" not in modules
    assert _heavy(modules) == []
    other = subprocess.run([sys.executable, "-X", "importtime", "-m", "hoplab", "run", str(small_chain), "--json",
                            "--set=duration_s=0.5", "--set", "warmup_s=0.1"], cwd=workdir, capture_output=True,
                           text=True, check=True, timeout=120)
    clicked = {line.rsplit("|", 1)[-1].strip() for line in other.stderr.splitlines() if line.startswith("import time:")}
    assert "hoplab.cli" in clicked and json.loads(other.stdout)["sim_seconds"] == 0.5
