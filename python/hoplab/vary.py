"""A sweep's parameters: `--vary` specs (`key=v1,v2`, `key=a..b:step`) and
`vary` mappings to {key: [values]}, and the check that a varied key is one
the simulator knows (`hoplab.campaign.sweep`)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from hoplab._core import ScenarioError
from hoplab.scenario import Scenario, _format_key, _parse_key, parse_value, scenario_error
from hoplab.store import RUN_COLUMNS

__all__ = ["check_parameter", "normalise_vary", "parse_range", "parse_vary"]

#: Columns of the runs table, which a parameter may not be called.
RESERVED = frozenset(RUN_COLUMNS)

_RANGE = re.compile(r"^\s*([-+0-9.eE]+)\s*\.\.\s*([-+0-9.eE]+)\s*(?::\s*([-+0-9.eE]+)\s*)?$")


def parse_range(key: str, text: str) -> list[int | float]:
    """`a..b` or `a..b:step`, both ends included (b when the steps land on it).

    Integers stay integers when a, b and step all are. An empty or endless
    range is a ScenarioError naming the key."""
    match = _RANGE.match(text)
    if match is None:
        raise scenario_error(key, f"{text!r} in --vary is not a range (expected a..b or a..b:step, e.g. 20..300:20)")
    parts = [match.group(1), match.group(2), match.group(3) or "1"]
    values: list[int | float] = []
    for part in parts:
        number = parse_value(part)
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
            raise scenario_error(key, f"{part!r} in --vary's {text!r} is not a number")
        values.append(number)
    start, stop, step = values
    if step <= 0:
        raise scenario_error(key, f"empty range {text!r} in --vary (the step must be positive, got {step})")
    if stop < start:
        raise scenario_error(key, f"empty range {text!r} in --vary (the end {stop} is below the start {start})")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    if count > 100_000:
        raise scenario_error(key, f"range {text!r} in --vary has {count} values (at most 100000)")
    if all(isinstance(v, int) for v in values):
        return [int(start) + i * int(step) for i in range(count)]
    return [round(float(start) + i * float(step), 12) for i in range(count)]


def parse_vary(spec: str) -> tuple[str, list[Any]]:
    """`key=v1,v2,...` or `key=a..b[:step]` -> (key, values).

    Values are TOML literals where they are one (numbers, booleans, quoted
    strings), text otherwise. Raises ScenarioError naming the key."""
    key, sep, text = spec.partition("=")
    key = key.strip()
    if not sep or not key:
        raise scenario_error("", f"--vary expects KEY=V1,V2 or KEY=A..B[:STEP] (e.g. flows.0.rate_kbps=20..300:20), "
                                 f"got {spec!r}")
    text = text.strip()
    if not text:
        raise scenario_error(key, "no values given in --vary (an empty list)")
    if ".." in text and _RANGE.match(text):
        return key, list(parse_range(key, text))
    if ".." in text and not text.startswith(("[", '"', "'")):
        parse_range(key, text)  # raises with the reason
    values = [parse_value(part.strip()) for part in _split_values(text)]
    if any(v == "" for v in values):
        raise scenario_error(key, f"empty value in --vary's {text!r}")
    return key, values


def _split_values(text: str) -> list[str]:
    """Split on commas outside brackets and quotes."""
    parts: list[str] = []
    depth, quote, current = 0, "", []
    for char in text:
        if quote:
            current.append(char)
            if char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def normalise_vary(vary: Mapping[str, Any] | Iterable[str] | None) -> dict[str, list[Any]]:
    """`vary` as {canonical key: [values]}: accepts a mapping (values: a list,
    a range or a range string "a..b:step") or CLI specs ("key=v1,v2")."""
    out: dict[str, list[Any]] = {}
    seen: set[str] = set()
    if vary is None:
        return out
    items: list[tuple[str, Any]]
    if isinstance(vary, Mapping):
        items = list(vary.items())
    else:
        items = [parse_vary(spec) for spec in vary]
    for raw_key, raw_values in items:
        key = str(raw_key).strip()
        canonical = _format_key(_parse_key(key))
        if isinstance(raw_values, str):
            raw_values = parse_range(key, raw_values) if ".." in raw_values else [raw_values]
        elif isinstance(raw_values, range):
            raw_values = list(raw_values)
        elif not isinstance(raw_values, (list, tuple)):
            raw_values = [raw_values]
        values = list(raw_values)
        if not values:
            raise scenario_error(key, "no values given in --vary (an empty list)")
        if canonical in seen:
            raise scenario_error(key, "given twice in --vary")
        seen.add(canonical)
        if key == "seed":
            raise scenario_error(key, "cannot be varied: the seed comes from the run number; use --runs N")
        if key in RESERVED or key == "case":
            raise scenario_error(key, f"cannot be varied: {key!r} is a column of the results store")
        out[key] = values
    return out


def check_parameter(scenario: Scenario, key: str, value: Any) -> None:
    """Reject a parameter the simulator does not know (ScenarioError naming it).

    Only the key is checked here: a known key with a value the core rejects
    for some combination becomes a failed run, recorded with its message."""
    trial = scenario.copy()
    try:
        trial.set(key, value)
    except ScenarioError as e:
        raise scenario_error(key, f"unknown parameter in --vary ({e})") from None
    try:
        trial.validate()
    except ScenarioError as e:
        if e.key == _format_key(_parse_key(key)) and "unknown key" in str(e):
            raise scenario_error(key, f"unknown parameter in --vary ({str(e).split(': ', 1)[-1]})") from None
