"""`preset = "standard" | "ns2"`: the ns-2 rules fill their keys under the
scenario's own, `hoplab validate` shows the resolved values, the reference
lists every rule with its ns-2 source."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES, REPO, run_cli
from hoplab import _core

AODV_CHAIN = str(EXAMPLES / "semitcp-chain-14hop.toml")
TCP_CHAIN = str(EXAMPLES / "tcp-chain-7hop.toml")


def _rules() -> list[dict[str, object]]:
    rules: list[dict[str, object]] = json.loads(_core.scenario_schema())["x-presets"]
    return rules


def _get(document: dict[str, object], key: str) -> object:
    """The value at dotted `key`; None where the normalised scenario leaves
    the key out (a parameter derived from others, such as AODV's
    MY_ROUTE_TIMEOUT, is written only when given)."""
    node: object = document
    for part in key.split("."):
        assert isinstance(node, dict), key
        if part not in node:
            return None
        node = node[part]
    return node


def test_ns2_sets_every_rule_and_validate_prints_it(workdir: Path) -> None:
    rules = _rules()
    assert rules, "the ns2 preset has rules"
    done = run_cli("validate", AODV_CHAIN, "--set", "preset=ns2", cwd=workdir)
    assert done.returncode == 0, done.stderr
    resolved = json.loads(done.stdout)
    assert resolved["preset"] == "ns2"
    standard = json.loads(run_cli("validate", AODV_CHAIN, cwd=workdir).stdout)
    assert standard["preset"] == "standard"
    # DSR's rules apply with routing.protocol = "dsr" only.
    dsr = ("--set", "routing.protocol=dsr")
    dsr_resolved = json.loads(run_cli("validate", AODV_CHAIN, *dsr, "--set", "preset=ns2", cwd=workdir).stdout)
    dsr_standard = json.loads(run_cli("validate", AODV_CHAIN, *dsr, cwd=workdir).stdout)
    # TCP-Linux's rules apply with tcp.sack = true only.
    sack = ("--set", "tcp.sack=true")
    sack_resolved = json.loads(run_cli("validate", AODV_CHAIN, *sack, "--set", "preset=ns2", cwd=workdir).stdout)
    sack_standard = json.loads(run_cli("validate", AODV_CHAIN, *sack, cwd=workdir).stdout)
    # A flow rule applies to the flows of its controller: the TCP chain's
    # flow made a flow of each controller with a rule.
    flow_runs = {}
    for cc in ("westwood_plus", "vegas"):
        flow = (TCP_CHAIN, *sack, "--set", f"flows.0.cc={cc}")
        flow_runs[cc] = (json.loads(run_cli("validate", *flow, "--set", "preset=ns2", cwd=workdir).stdout),
                         json.loads(run_cli("validate", *flow, cwd=workdir).stdout))
    # The error model's rule applies with an [errors] model only.
    errors = ("--set", "errors.model=uniform", "--set", "errors.packet_error_rate=0.01")
    errors_resolved = json.loads(run_cli("validate", AODV_CHAIN, *errors, "--set", "preset=ns2", cwd=workdir).stdout)
    errors_standard = json.loads(run_cli("validate", AODV_CHAIN, *errors, cwd=workdir).stdout)
    for rule in rules:
        with_dsr = rule["applies"] == 'routing.protocol = "dsr"'
        with_sack = rule["applies"] == "tcp.sack = true"
        key = str(rule["key"])
        if key.startswith("errors."):
            assert rule["applies"] == 'errors.model set, radio.reception = "threshold"', rule
            ns2, std = errors_resolved, errors_standard
        elif key.startswith("flows[]."):
            cc = str(rule["applies"]).split('cc = "')[1].rstrip('"')
            assert rule["applies"] == f'tcp.sack = true, in flows with cc = "{cc}"', rule
            ns2, std = flow_runs[cc]
            ns2, std, key = ns2["flows"][0], std["flows"][0], key.replace("flows[].", "")
        else:
            ns2, std = ((dsr_resolved, dsr_standard) if with_dsr else (sack_resolved, sack_standard) if with_sack
                        else (resolved, standard))
        assert _get(ns2, key) == rule["value"], rule["key"]
        assert _get(std, key) != rule["value"], f"{rule['key']}: the standard default differs"
    assert "dsr" not in resolved["routing"], "DSR's rules only with DSR"
    assert "errors" not in resolved or "scope" not in resolved["errors"], "the error model's rule only with a model"
    assert resolved["tcp"]["rto_restart_on_every_ack"] is False, "TCP-Linux's rules only with SACK"


def test_a_key_the_scenario_gives_wins_over_the_preset(workdir: Path) -> None:
    key = "routing.aodv.measured_traversal_time"
    done = run_cli("validate", AODV_CHAIN, "--set", "preset=ns2", "--set", f"{key}=false", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert _get(json.loads(done.stdout), key) is False


def test_the_resolved_scenario_reads_back_the_same(workdir: Path) -> None:
    done = run_cli("validate", AODV_CHAIN, "--set", "preset=ns2", cwd=workdir)
    resolved = workdir / "resolved.json"
    resolved.write_text(done.stdout)
    assert _core.validate(done.stdout) == _core.validate(resolved.read_text())


def test_a_bad_preset_is_named(workdir: Path) -> None:
    done = run_cli("validate", AODV_CHAIN, "--set", "preset=ns3", cwd=workdir)
    assert done.returncode == 2
    assert "preset" in done.stderr and '"ns2"' in done.stderr and "Traceback" not in done.stderr


def test_the_reference_lists_every_rule_with_its_source() -> None:
    page = (REPO / "docs" / "scenario-reference.md").read_text()
    section = page[page.index("## Presets"):]
    for rule in _rules():
        assert f"`{rule['key']}`" in section and str(rule["source"]) in section, rule["key"]
        assert ".cc:" in str(rule["source"]), f"{rule['key']}: cite the ns-2 file and line"


def test_paper_modules_run_with_the_ns2_preset() -> None:
    from hoplab.papers import scalable_manet
    from hoplab.papers.semitcp_2018 import experiments

    for base in (experiments.CHAIN, experiments.MOBILE, scalable_manet.MANET):
        assert base["preset"] == "ns2", base["name"]
