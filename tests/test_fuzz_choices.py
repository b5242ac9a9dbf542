"""The fuzzer's choice values are the scenario schema's (`_core.scenario_schema`),
read, not typed: every routing protocol, reception model, congestion
controller and queue discipline the core takes (issue 31)."""

from __future__ import annotations

import ast
import json
from hoplab import _core, fuzz

from conftest import PACKAGE, string_literals


def test_fuzz_choices_are_the_schemas() -> None:
    schema = json.loads(_core.scenario_schema())
    assert fuzz.CHOICES == fuzz.schema_choices(schema)
    definitions = schema["definitions"]
    # Read here a second way, from the definitions the schema names them by.
    routing = [v["const"] for v in definitions["RoutingProtocol"]["oneOf"]]
    assert set(fuzz.CHOICES["protocol"]) == set(routing) and "dsr" in routing
    assert set(fuzz.CHOICES["reception"]) == {v["const"] for v in definitions["Reception"]["oneOf"]}
    assert set(fuzz.CHOICES["discipline"]) == {v["properties"]["discipline"]["const"]
                                               for v in definitions["QueueConfig"]["oneOf"]}
    assert set(fuzz.CHOICES["cc"]) == {v for v in definitions["FlowConfig"]["properties"]["cc"]["enum"] if v}
    assert {"sinr"} <= set(fuzz.CHOICES["reception"])
    assert {"westwood", "westwood_br"} <= set(fuzz.CHOICES["cc"])
    assert {"red", "rem", "pi", "blue"} <= set(fuzz.CHOICES["discipline"])


def test_fuzz_types_no_choices() -> None:
    # Any literal of two or more of one key's choices in fuzz.py is a copy.
    tree = ast.parse((PACKAGE / "fuzz.py").read_text(encoding="utf-8"))
    typed = [f"line {line}: {strings}" for line, strings in string_literals(tree) for values in fuzz.CHOICES.values()
             if set(strings) <= set(values)]
    assert not typed, "fuzz.py: read these from the scenario schema: " + "; ".join(typed)


def test_the_fuzz_scan_finds_a_typed_list() -> None:
    tree = ast.parse('CHOICES = {"protocol": ("static", "aodv")}')
    assert [s for _, s in string_literals(tree) if set(s) <= set(fuzz.CHOICES["protocol"])] == [["static", "aodv"]]
