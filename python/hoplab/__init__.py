"""hoplab: a fast, deterministic simulator of 802.11 multi-hop networks.

>>> import hoplab
>>> scenario = hoplab.load_scenario("examples/bench-chain15-udp.toml")
>>> scenario.set("duration_s", 20.0)          # doctest: +SKIP
>>> result = hoplab.run(scenario, seed=1)     # doctest: +SKIP
>>> result.flows[["id", "goodput_kbps", "mean_delay_ms"]]  # doctest: +SKIP
>>> runs = hoplab.sweep(scenario, vary={"flows.0.packet_bytes": [256, 512]}, runs=5)  # doctest: +SKIP

The simulator is the Rust extension `hoplab._core`; this package reads
scenario files, applies overrides, and turns run reports into DataFrames.
"""

from typing import TYPE_CHECKING, Any

from hoplab._core import ScenarioError, SimulationError
from hoplab.run import RunResult, run
from hoplab.scenario import Scenario, load_scenario
from hoplab.view import view  # the function: hoplab.view(result, path) (docs/view.md)

if TYPE_CHECKING:
    from hoplab.campaign import sweep
    from hoplab.paths import OutputPathError
    from hoplab.store import Store

__all__ = [
    "OutputPathError",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "Store",
    "__version__",
    "load_scenario",
    "run",
    "sweep",
    "view",
]


def _version() -> str:
    """The installed package's version (the core's, from a source tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hoplab")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        from hoplab._core import version as core_version

        return core_version()


def __getattr__(name: str) -> Any:
    """`hoplab.sweep`, `hoplab.Store`, `hoplab.OutputPathError` and
    `hoplab.__version__`, on first use: the first two bring numpy, pyarrow
    and DuckDB, which a single run does not need; the third brings
    hoplab.paths and pathlib (with urllib.parse and ipaddress), which a run
    without --pcap or --view does not need; the version's lookup
    (importlib.metadata) alone costs more than the rest of `import hoplab`
    (docs/performance.md, Start-up)."""
    if name == "__version__":
        value = _version()
        globals()["__version__"] = value
        return value
    if name == "sweep":
        from hoplab.campaign import sweep

        return sweep
    if name == "Store":
        from hoplab.store import Store

        return Store
    if name == "OutputPathError":
        from hoplab.paths import OutputPathError

        return OutputPathError
    raise AttributeError(f"module 'hoplab' has no attribute {name!r}")
