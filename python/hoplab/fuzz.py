"""Fuzzing: mutated example scenarios, each run in a worker process that
may die without taking the fuzzer with it.

A case is an example scenario (`examples/*.toml`) with one to three
mutations, the kinds that once aborted the process (issue 19): a numeric
key set to an extreme (0, -1, 2^32 - 1, 2^64, 1e-9, 1e300, x1000, ...), a
choice key set to another choice or to junk, a key removed or given the
wrong type, flows duplicated (up to 100), the topology grown (up to 100,000
nodes, or a 1000 x 70 grid). Every outcome must be one of:

- `ok`: the run finished and conservation holds (per flow, sent =
  delivered + losses + in flight, for data and for ACKs);
- `scenario_error`: a ScenarioError naming a key;
- `limit`: a SimulationError for the wall-clock or the memory limit.

Anything else is a finding: `crash` (the worker process died: an abort, a
signal), `hang` (no answer long after its wall limit), `panic` (a
SimulationError from a caught panic), `exception` (any other exception, a
traceback), `conservation` (a run whose counts do not add up).

`tests/test_fuzz.py` draws a few hundred cases with hypothesis (CI);
`scripts/fuzz.py --cases 100000` draws them from a seeded generator, in
parallel workers, and writes the counts (docs/limits.md, Fuzzing).
"""

from __future__ import annotations

import copy
import faulthandler
import json
import math
import multiprocessing
import os
import random
import resource
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

__all__ = ["FINDINGS", "OUTCOMES", "Case", "Chooser", "Outcome", "Runner", "base_scenarios", "make_case",
           "random_chooser"]

#: Clean outcomes, and the outcomes that are findings.
OUTCOMES = ("ok", "scenario_error", "limit")
FINDINGS = ("crash", "hang", "panic", "exception", "conservation")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: Extremes a numeric key is set to (besides multiples of its own value).
NUMBERS: tuple[float | int, ...] = (
    0, 1, -1, 2, 3, 7, 50, 1000, 100_000, 1_000_000, 2**31 - 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, 2**64,
    0.5, 1e-9, 1e-6, 1e-3, 1e9, 1e12, 1e300, -1e300,
)
SCALES = (0.0, 0.001, 0.1, 10.0, 1000.0, 1e6)



def schema_choices(schema: Mapping[str, Any]) -> dict[str, tuple[Any, ...]]:
    """{key name: its values} of every key of the scenario's JSON Schema
    (`_core.scenario_schema`) that takes one of a set of values: a string
    enum or a set of constants, and the tag of each tagged section
    (`topology.kind`, `queue.discipline`, ...). Keyed by the last part of
    the dotted key, as a mutation finds them (`mobility.model` and
    `errors.model` share `model`)."""
    definitions = schema.get("definitions", {})
    choices: dict[str, list[Any]] = {}

    def values(node: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> list[Any]:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/definitions/") and ref not in seen:
            return values(definitions.get(ref.rsplit("/", 1)[1], {}), seen | {ref})
        found = [v for v in node.get("enum", ()) if v is not None]
        if "const" in node:
            found.append(node["const"])
        for key in ("oneOf", "anyOf", "allOf"):
            for option in node.get(key, ()):
                if "properties" not in option:
                    found += values(option, seen)
        return found

    def add(name: str, found: Sequence[Any]) -> None:
        for value in found:
            if value not in choices.setdefault(name, []):
                choices[name].append(value)

    for node in [schema, *definitions.values()]:
        for name, prop in node.get("properties", {}).items():
            add(name, values(prop))
        for option in node.get("oneOf", ()):  # a tagged section: each variant's tag
            for name, prop in option.get("properties", {}).items():
                if "const" in prop:
                    add(name, [prop["const"]])
    return {name: tuple(found) for name, found in choices.items() if found}


def _core_choices() -> dict[str, tuple[Any, ...]]:
    from hoplab import _core

    return schema_choices(json.loads(_core.scenario_schema()))


#: Other values of the choice keys, from the core's scenario schema (every
#: routing protocol, reception model, controller, queue discipline, ...).
CHOICES: dict[str, tuple[Any, ...]] = _core_choices()
JUNK: tuple[Any, ...] = ("", "x", "NaN", None, [], {}, True, [1, 2], {"a": 1})

#: Wall-clock and memory limits of a fuzzed run; the worker's address space.
WALL_LIMIT_S = 3.0
MEMORY_LIMIT_BYTES = 1_000_000_000
ADDRESS_SPACE_BYTES = 4 << 30
#: A worker that has not answered this long after its run's wall limit hangs.
HANG_MARGIN_S = 30.0


class Chooser:
    """Where a case's choices come from: a seeded generator
    (`random_chooser`) or hypothesis's `data.draw` (tests/test_fuzz.py)."""

    def __init__(self, pick: Callable[[Sequence[Any]], Any], integer: Callable[[int, int], int]) -> None:
        self.pick = pick
        self.integer = integer


def random_chooser(seed: int) -> Chooser:
    rng = random.Random(seed)
    return Chooser(lambda seq: seq[rng.randrange(len(seq))], rng.randint)


@dataclass
class Case:
    """A scenario to run, and how it was made (to replay or report it)."""

    base: str
    mutations: list[str]
    scenario: dict[str, Any]
    series: bool = False


_BASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}


def base_scenarios() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Every example: (the file's dict, its normalised form), read once."""
    if not _BASES:
        import tomllib

        from hoplab.scenario import Scenario

        for path in sorted(EXAMPLES.glob("*.toml")):
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
            _BASES[path.stem] = (raw, Scenario(copy.deepcopy(raw)).validate())
    return _BASES


def _leaves(node: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list) and node and all(isinstance(v, Mapping) for v in node):
        for i, value in enumerate(node):
            yield from _leaves(value, (*path, i))
    else:
        yield path, node


def _set(doc: dict[str, Any], path: tuple[str | int, ...], value: Any) -> None:
    node: Any = doc
    for part in path[:-1]:
        if isinstance(node, list):
            node = node[part] if isinstance(part, int) and part < len(node) else None
        elif isinstance(node, dict):
            node = node.setdefault(str(part), {}) if not isinstance(node.get(str(part)), (dict, list)) \
                else node[str(part)]
        if node is None:
            return
    last = path[-1]
    if isinstance(node, list) and isinstance(last, int) and last < len(node):
        node[last] = value
    elif isinstance(node, dict):
        node[str(last)] = value


def _delete(doc: dict[str, Any], path: tuple[str | int, ...]) -> None:
    node: Any = doc
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(node, dict):
        node.pop(str(path[-1]), None)


def _name(path: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in path)


def _mutate(doc: dict[str, Any], normalised: dict[str, Any], choose: Chooser) -> str:
    """Apply one mutation to `doc`; return what it did."""
    leaves = [(p, v) for p, v in _leaves(normalised) if p]
    # Growing the topology is a rarer draw: its runs cost a second each.
    kinds = ("number",) * 6 + ("choice", "choice", "flip", "flip", "delete", "delete", "wrong_type", "wrong_type",
                               "flows", "flows", "grow")
    kind = choose.pick(kinds)
    if kind == "number":
        numeric = [(p, v) for p, v in leaves if isinstance(v, (int, float)) and not isinstance(v, bool)]
        path, old = choose.pick(numeric)
        value = choose.pick(NUMBERS) if choose.integer(0, 2) else old * choose.pick(SCALES)
        if isinstance(value, float) and value.is_integer() and isinstance(old, int) and abs(value) < 2**64:
            value = int(value)
        _set(doc, path, value)
        return f"{_name(path)}={value!r}"
    if kind == "choice":
        strings = [(p, v) for p, v in leaves if isinstance(v, str)]
        if not strings:
            return "none"
        path, _ = choose.pick(strings)
        options = CHOICES.get(str(path[-1]), ()) + JUNK[:2]
        value = choose.pick(options)
        _set(doc, path, value)
        return f"{_name(path)}={value!r}"
    if kind == "flip":
        booleans = [(p, v) for p, v in leaves if isinstance(v, bool)]
        if not booleans:
            return "none"
        path, old = choose.pick(booleans)
        _set(doc, path, not old)
        return f"{_name(path)}={not old!r}"
    if kind == "delete":
        path, _ = choose.pick(leaves)
        _delete(doc, path)
        return f"del {_name(path)}"
    if kind == "wrong_type":
        path, _ = choose.pick(leaves)
        value = choose.pick(JUNK)
        _set(doc, path, value)
        return f"{_name(path)}={value!r}"
    if kind == "flows":
        flows = doc.get("flows")
        if not isinstance(flows, list) or not flows:
            return "none"
        times = choose.pick((2, 8, 32, 100))
        doc["flows"] = [copy.deepcopy(flows[0]) for _ in range(times)]
        return f"flows x{times}"
    # grow the topology
    size = choose.pick((1000, 10_000, 100_000))
    shape = choose.pick(("nodes", "grid"))
    if shape == "grid":
        doc["topology"] = {"kind": "grid", "rows": 1000, "cols": 70, "spacing_m": 200.0}
        return "topology 1000 x 70 grid"
    topology = doc.setdefault("topology", {})
    if isinstance(topology, dict):
        topology["nodes"] = size
    return f"topology.nodes={size}"


def make_case(choose: Chooser) -> Case:
    """A case: an example and one to three mutations."""
    bases = base_scenarios()
    name = choose.pick(sorted(bases))
    raw, normalised = bases[name]
    doc = copy.deepcopy(raw)
    # Short runs: the fuzzer looks for what breaks, not for long results.
    doc["duration_s"] = choose.pick((1.0, 2.0, 5.0))
    doc["warmup_s"] = 0.0
    mutations = [_mutate(doc, normalised, choose) for _ in range(choose.integer(1, 3))]
    return Case(name, mutations, doc, series=choose.integer(0, 4) == 0)


@dataclass
class Outcome:
    kind: str
    detail: str = ""
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return self.kind in OUTCOMES


def _conservation(report: Mapping[str, Any]) -> str:
    """'' if every flow's counts add up, else what does not."""
    for f in report.get("flows", []):
        lost = sum(f["losses"].values())
        if f["sent"] != f["delivered"] + lost + f["in_flight"]:
            return f"flow {f['id']}: sent {f['sent']} != {f['delivered']} + {lost} + {f['in_flight']}"
        ack_lost = sum(f["ack_losses"].values())
        if f["acks_sent"] != f["acks_delivered"] + ack_lost + f["acks_in_flight"]:
            return f"flow {f['id']} ACKs: {f['acks_sent']} != {f['acks_delivered']} + {ack_lost} + {f['acks_in_flight']}"
    return ""


def run_case(case: Case, wall_limit_s: float = WALL_LIMIT_S,
             memory_limit_bytes: int = MEMORY_LIMIT_BYTES) -> Outcome:
    """Run a case in this process and classify what happened."""
    from hoplab import _core
    from hoplab._core import ScenarioError, SimulationError

    started = time.perf_counter()
    try:
        text = json.dumps(case.scenario, allow_nan=False)
    except (TypeError, ValueError) as e:
        return Outcome("exception", f"case not JSON: {e}")
    try:
        report = json.loads(_core.simulate(text, None, case.series, wall_limit_s,
                                           memory_limit_bytes=memory_limit_bytes))
    except ScenarioError as e:
        key = getattr(e, "key", "")
        kind = "scenario_error" if key else "exception"
        return Outcome(kind, str(e) if key else f"ScenarioError without a key: {e}", time.perf_counter() - started)
    except SimulationError as e:
        message = str(e)
        if "wall-clock limit" in message or "memory limit" in message:
            return Outcome("limit", message, time.perf_counter() - started)
        return Outcome("panic" if "panic" in message else "exception", message, time.perf_counter() - started)
    except BaseException:  # noqa: BLE001 - every other exception is a finding
        return Outcome("exception", traceback.format_exc(limit=5), time.perf_counter() - started)
    broken = _conservation(report)
    return Outcome("conservation" if broken else "ok", broken, time.perf_counter() - started)


def _worker(connection: Connection, address_space_bytes: int) -> None:
    # A worker that dies is a finding the parent reports; its Python
    # traceback dump (pytest turns faulthandler on) would only be noise.
    faulthandler.disable()
    resource.setrlimit(resource.RLIMIT_AS, (address_space_bytes, address_space_bytes))
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            return
        case, wall_limit_s, memory_limit_bytes = message
        outcome = run_case(case, wall_limit_s, memory_limit_bytes)
        connection.send((outcome.kind, outcome.detail[:2000], outcome.seconds))


@dataclass
class _Slot:
    process: Any
    connection: Connection
    index: int = -1
    started: float = 0.0


@dataclass
class Runner:
    """Worker processes, each under an address-space limit, that run cases;
    a worker that dies (or hangs) is replaced and its case recorded."""

    workers: int = 1
    wall_limit_s: float = WALL_LIMIT_S
    memory_limit_bytes: int = MEMORY_LIMIT_BYTES
    address_space_bytes: int = ADDRESS_SPACE_BYTES
    _slots: list[_Slot] = field(default_factory=list)

    def _spawn(self) -> _Slot:
        context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods()
                                              else "spawn")
        parent, child = context.Pipe()
        process = context.Process(  # type: ignore[attr-defined]
            target=_worker, args=(child, self.address_space_bytes), daemon=True)
        process.start()
        child.close()
        return _Slot(process, parent)

    def __enter__(self) -> Runner:
        base_scenarios()  # read before forking: every worker has them
        self._slots = [self._spawn() for _ in range(self.workers)]
        return self

    def __exit__(self, *exc: object) -> None:
        for slot in self._slots:
            try:
                slot.connection.send(None)
            except OSError:
                pass
            slot.process.join(timeout=5)
            if slot.process.is_alive():
                slot.process.kill()

    def run(self, cases: Iterator[Case] | Sequence[Case]) -> Iterator[tuple[int, Case, Outcome]]:
        """Run every case; yield (index, case, outcome) as they finish."""
        queue = iter(enumerate(cases))
        busy: dict[int, tuple[_Slot, Case]] = {}
        exhausted = False

        def feed(slot: _Slot) -> bool:
            nonlocal exhausted
            item = next(queue, None)
            if item is None:
                exhausted = True
                return False
            slot.index, case = item
            slot.started = time.monotonic()
            slot.connection.send((case, self.wall_limit_s, self.memory_limit_bytes))
            busy[id(slot)] = (slot, case)
            return True

        for slot in self._slots:
            if not feed(slot):
                break
        while busy:
            ready = wait([s.connection for s, _ in busy.values()], timeout=1.0)
            now = time.monotonic()
            for slot, case in list(busy.values()):
                outcome: Outcome | None = None
                if slot.connection in ready:
                    try:
                        kind, detail, seconds = slot.connection.recv()
                        outcome = Outcome(kind, detail, seconds)
                    except (EOFError, OSError):
                        slot.process.join(timeout=5)
                        code = slot.process.exitcode
                        outcome = Outcome("crash", f"worker died (exit code {code})", now - slot.started)
                elif now - slot.started > self.wall_limit_s + HANG_MARGIN_S:
                    slot.process.kill()
                    slot.process.join(timeout=5)
                    outcome = Outcome("hang", f"no answer after {now - slot.started:.0f} s", now - slot.started)
                if outcome is None:
                    continue
                del busy[id(slot)]
                yield slot.index, case, outcome
                if outcome.kind in ("crash", "hang"):
                    position = self._slots.index(slot)
                    slot = self._spawn()
                    self._slots[position] = slot
                if not exhausted:
                    feed(slot)


def describe(case: Case) -> str:
    return f"{case.base} + {'; '.join(case.mutations)}" + (" (series)" if case.series else "")


def summary(counts: Mapping[str, int], seconds: float) -> str:
    total = sum(counts.values())
    parts = ", ".join(f"{counts.get(k, 0):,} {k}" for k in (*OUTCOMES, *FINDINGS))
    rate = total / seconds if seconds > 0 else math.nan
    return f"{total:,} cases in {seconds:,.0f} s ({rate:.1f}/s): {parts}"


def environment() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "wall_limit_s": WALL_LIMIT_S, "memory_limit_bytes": MEMORY_LIMIT_BYTES,
            "address_space_bytes": ADDRESS_SPACE_BYTES}
