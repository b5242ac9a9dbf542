"""Scenario files: read TOML, apply overrides, validate with the Rust core.

A scenario is the TOML table of DESIGN.md ("Scenario files"). This module
only reads it and edits it; what a *valid* scenario is lives in one place,
the Rust core (`hoplab._core.validate`), which reports errors with the
dotted key concerned and what is allowed.

Overrides (`Scenario.set`, `hoplab run --set KEY=VALUE`) address keys with
dots; list entries by index, either `flows.0.rate_kbps` or
`flows[0].rate_kbps`. Missing tables on the way are created (so
`mac.queue_packets` works on a file without a `[mac]` table); a key the
simulator does not know is rejected at validation, naming it.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hoplab import _core
from hoplab._core import ScenarioError
from hoplab.guards import MAX_DEPTH, check_depth, check_key_length, check_text_size, read_scenario_text
from hoplab.limits import MemoryLimit

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["SEED_MAX", "Scenario", "ScenarioError", "check_seed", "load_scenario", "parse_override", "parse_value"]

#: The largest seed the core takes (a 64-bit unsigned integer).
SEED_MAX = 2**64 - 1


def scenario_error(key: str, message: str) -> ScenarioError:
    """A ScenarioError formatted like the core's: "key: message", with `.key` set."""
    error = ScenarioError(f"{key}: {message}" if key else message)
    error.key = key
    return error


def check_seed(value: Any, key: str = "seed") -> int:
    """`value` if it is a seed (an integer from 0 to SEED_MAX), else a
    ScenarioError naming `key`. Python decides this itself, before the core
    sees the value, so `--seed X`, `--set seed=X`, a file's `seed = X` and
    `hoplab.run(seed=X)` all say the same words about the same X."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= SEED_MAX:
        raise scenario_error(key, f"must be an integer from 0 to {SEED_MAX}, got {value!r}")
    return value


KeyPath = tuple[str | int, ...]

_KEY_PART = re.compile(r"^([^.\[\]]*)((?:\[\d+\])*)$")


def _format_key(path: KeyPath) -> str:
    """The canonical spelling of a key path, as the core reports it: `flows[0].src`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def _parse_key(key: str) -> KeyPath:
    """Split `flows.0.rate_kbps` or `flows[0].rate_kbps` into ("flows", 0, "rate_kbps")."""
    if not key:
        raise scenario_error("", "empty key (expected a dotted key such as mac.queue_packets)")
    check_key_length(key)
    path: list[str | int] = []
    for part in key.split("."):
        match = _KEY_PART.match(part)
        if match is None or (not match.group(1) and not match.group(2)):
            raise scenario_error(key, "not a valid key (dotted names, list indices as .0 or [0], e.g. flows.0.rate_kbps)")
        name, indices = match.group(1), match.group(2)
        if name:
            path.append(int(name) if name.isdigit() else name)
        elif not path:
            raise scenario_error(key, "a key cannot start with an index")
        path.extend(int(i) for i in re.findall(r"\d+", indices))
    return tuple(path)


def parse_value(text: str) -> Any:
    """A `--set` value: a TOML literal where it is one (int, float, bool,
    string in quotes, array, inline table), the text itself otherwise.
    Dates and times are kept as text (no scenario key takes one)."""
    try:
        parsed = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise scenario_error("", f"a --set value nested deeper than the parser reads ({MAX_DEPTH} levels at "
                                 "most; docs/limits.md)") from None
    if set(parsed) != {"value"}:
        return text
    value = parsed["value"]
    if isinstance(value, (datetime.date, datetime.time)):
        return text
    return value


def parse_override(assignment: str) -> tuple[str, Any]:
    """Split `KEY=VALUE` into the key and the parsed value (see `parse_value`)."""
    key, sep, text = assignment.partition("=")
    key = key.strip()
    if not sep or not key:
        raise scenario_error("", f"--set expects KEY=VALUE (e.g. flows.0.rate_kbps=200), got {assignment!r}")
    return key, parse_value(text.strip())


def _check_json_value(value: Any, path: KeyPath) -> None:
    """Reject what JSON cannot carry faithfully, naming the key."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise scenario_error(_format_key(path), f"must be a finite number, got {value}")
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise scenario_error(_format_key(path), f"table keys must be strings, got {k!r}")
            _check_json_value(v, (*path, k))
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_json_value(v, (*path, i))
        return
    if isinstance(value, (datetime.date, datetime.time)):
        raise scenario_error(_format_key(path), "dates and times are not allowed here")
    raise scenario_error(_format_key(path), f"unsupported value of type {type(value).__name__}")


def _is_path_name(path: str) -> bool:
    """Whether pathlib would leave `path` as it is (`str(Path(path)) == path`):
    no empty or "." part (`a//b`, `a/`, `./a`, `//a`). Such a name is used as
    it is, so that reading a scenario imports no pathlib (with urllib.parse
    and ipaddress, ~3 ms of each run's start-up; docs/performance.md,
    Start-up); any other is converted, as before."""
    body = path[1:] if path.startswith("/") else path
    return bool(body) and all(part not in ("", ".") for part in body.split("/"))


def _as_path(path: str | os.PathLike[str]) -> Path:
    from pathlib import Path

    return Path(path)


def _path_name(source: str | os.PathLike[str]) -> str:
    """`str(Path(source))`: how messages name a scenario's file."""
    if isinstance(source, str) and _is_path_name(source):
        return source
    return str(_as_path(source))


def _with_position(message: str, text: str) -> str:
    """tomllib's message with a line and column also where it says "at end
    of document" (Python 3.11-3.13 give no position there)."""
    end = "(at end of document)"
    if not message.endswith(end):
        return message
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final newline ends the last line
    return f"{message[:-len(end)]}(at line {len(lines)}, column {len(lines[-1]) + 1}: the end of the file)"


class Scenario:
    """A scenario as a TOML-shaped dict (`.data`), before defaults are filled.

    `set` edits it; `validate` asks the core whether it is valid and returns
    the normalised form (every default filled). `hoplab.run` accepts it.
    """

    def __init__(self, data: Mapping[str, Any], source: str | os.PathLike[str] | None = None) -> None:
        self.data: dict[str, Any] = copy.deepcopy(dict(data))
        self._source: str | os.PathLike[str] | None = source

    @property
    def source(self) -> Path | None:
        """The file the scenario was read from, as a Path (None if it was
        not read from a file)."""
        if self._source is None:
            return None
        from pathlib import Path  # on use: a run reads its file without pathlib (docs/performance.md, Start-up)

        if not isinstance(self._source, Path):
            self._source = Path(self._source)
        return self._source

    @source.setter
    def source(self, value: str | os.PathLike[str] | None) -> None:
        self._source = value

    @classmethod
    def from_toml(cls, text: str, source: str | os.PathLike[str] | None = None) -> Scenario:
        """Parse TOML text. A syntax error is a ScenarioError with its line and column."""
        name = _path_name(source) if source is not None else None
        check_text_size(text, name if name is not None else "scenario")
        where = f"{name}: " if name is not None else ""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise scenario_error("", f"{where}invalid TOML: {_with_position(str(e), text)}") from None
        except RecursionError:
            raise scenario_error("", f"{where}tables and arrays nested deeper than {MAX_DEPTH} levels "
                                     "(no scenario key is deeper than 6; docs/limits.md)") from None
        check_depth(data, name if name is not None else "")
        return cls(data, source)

    @property
    def name(self) -> str:
        name = self.data.get("name", "unnamed")
        return name if isinstance(name, str) else str(name)

    def copy(self) -> Scenario:
        return Scenario(self.data, self._source)

    def set(self, key: str, value: Any) -> Scenario:
        """Set a dotted key (`radio.tx_range_m`, `flows.0.rate_kbps`,
        `flows[0].rate_kbps`) to a Python value; returns self.

        Tables missing on the way are created; an index past the end of a
        list, or a step into a value that is not a table or a list, is a
        ScenarioError naming the key. Unknown keys are reported by
        `validate` (and so by `run`), which knows every valid key.
        """
        path = _parse_key(key)
        check_depth(value, key, len(path))
        _check_json_value(value, path)
        node: Any = self.data
        for depth, part in enumerate(path):
            here = _format_key(path[: depth + 1])
            last = depth == len(path) - 1
            if isinstance(node, list):
                if not isinstance(part, int):
                    raise scenario_error(here, f"{_format_key(path[:depth])} is a list: use an index (0 to {len(node) - 1})")
                if not 0 <= part < len(node):
                    allowed = f"indices 0 to {len(node) - 1}" if node else "it is empty"
                    raise scenario_error(here, f"no such entry ({_format_key(path[:depth])} has {len(node)}: {allowed})")
            elif isinstance(node, dict):
                part = str(part)
                if not last and part not in node:
                    if isinstance(path[depth + 1], int):
                        raise scenario_error(here, "not in the scenario, so it has no entries to index")
                    node[part] = {}
            else:
                raise scenario_error(here, f"{_format_key(path[:depth])} is a value, not a table or a list")
            if last:
                node[part] = copy.deepcopy(value)
            else:
                node = node[part]
        return self

    def apply_overrides(self, assignments: Iterable[str]) -> Scenario:
        """Apply `KEY=VALUE` strings (the CLI's `--set`) in order; returns self."""
        for assignment in assignments:
            key, value = parse_override(assignment)
            self.set(key, value)
        return self

    def to_json(self) -> str:
        """The scenario as JSON, the form the core reads."""
        _check_json_value(self.data, ())
        return json.dumps(self.data, allow_nan=False)

    def validate(self, memory_limit_bytes: MemoryLimit = "auto") -> dict[str, Any]:
        """Validate with the core; return the normalised scenario (defaults
        filled). Raises ScenarioError naming the key and what is allowed,
        and SimulationError if its topology cannot fit in
        `memory_limit_bytes` (as `hoplab.run` takes it; the check builds
        the topology)."""
        from hoplab.limits import check_memory_limit, resolve_memory_limit

        if "seed" in self.data:
            check_seed(self.data["seed"])
        limit = resolve_memory_limit(check_memory_limit(memory_limit_bytes))
        normalised: dict[str, Any] = json.loads(_core.validate(self.to_json(), limit))
        return normalised

    def estimate(self, series: bool = False) -> dict[str, Any]:
        """What a run will cost, estimated without building it: `events`
        (order of magnitude), `memory_bytes` (what the run will hold; with
        its time series if `series`), `neighbour_entries`,
        `neighbours_exact`, `series_rows` and `parts` (what, count, unit,
        bytes; largest first). Raises ScenarioError naming the key."""
        if "seed" in self.data:
            check_seed(self.data["seed"])
        estimate: dict[str, Any] = json.loads(_core.estimate(self.to_json(), series))
        return estimate

    def __repr__(self) -> str:
        source = f", source={_path_name(self._source)!r}" if self._source is not None else ""
        return f"Scenario(name={self.name!r}{source})"


def load_scenario(path: str | os.PathLike[str], overrides: Iterable[str] = (),
                  memory_limit_bytes: MemoryLimit = "auto") -> Scenario:
    """Read a scenario file (TOML), apply `KEY=VALUE` overrides, validate.

    Raises OSError if the file cannot be read and ScenarioError if it is
    not valid TOML or not a valid scenario (the message names the key).
    """
    source = _path_name(path)  # str(Path(path)), the name the messages (OSError's too) have always given
    text = read_scenario_text(source)  # a regular file, of a bounded size
    scenario = Scenario.from_toml(text, source).apply_overrides(overrides)
    scenario.validate(memory_limit_bytes)
    return scenario
