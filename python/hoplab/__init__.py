"""hoplab: a fast, deterministic simulator of 802.11 multi-hop networks.

>>> import hoplab
>>> scenario = hoplab.load_scenario("examples/bench-chain15-udp.toml")
>>> scenario.set("duration_s", 20.0)          # doctest: +SKIP
>>> result = hoplab.run(scenario, seed=1)     # doctest: +SKIP
>>> result.flows[["id", "goodput_kbps", "mean_delay_ms"]]  # doctest: +SKIP

The simulator is the Rust extension `hoplab._core`; this package reads
scenario files, applies overrides, and turns run reports into DataFrames.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _package_version

from hoplab._core import ScenarioError, SimulationError
from hoplab.run import RunResult, run
from hoplab.scenario import Scenario, load_scenario

try:
    __version__ = _package_version("hoplab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    from hoplab._core import version as _core_version

    __version__ = _core_version()

__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "__version__",
    "load_scenario",
    "run",
]
