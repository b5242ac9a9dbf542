//! `preset`: a named set of key values applied under a scenario's own keys.
//!
//! `preset = "standard"` (the default) leaves every key at its default: the
//! standards (IEEE 802.11-2016, RFC 3561, RFC 5681/6582/6298) and the
//! papers' text. `preset = "ns2"` sets every key that has an ns-2 variant to
//! ns-2.29's behaviour, as the public semi-TCP code (GitHub
//! musicinthedark/semitcp, ns-2.29) runs it: all five seed papers were
//! simulated in ns-2. Each rule is also its own key, documented with the
//! ns-2 file and line it mirrors, so a user can take one rule without the
//! others; a key the scenario gives itself always wins over the preset.
//!
//! The preset is applied to the scenario's JSON before it is typed: a rule
//! fills its key only where the scenario does not give it (and only where
//! the key exists: AODV's keys only with `routing.protocol = "aodv"`). The
//! normalised scenario (`hoplab validate`) then shows every resolved value,
//! and re-reading it gives the same scenario.

use crate::config::ConfigError;
pub use crate::config::{Applies, PresetRule};
use crate::mac::hop_control::HopControlKind;
use crate::net::routing::RoutingProtocol;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// `preset`: which simulator's behaviour the keys with a variant default to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// The standards' behaviour (and the papers' text where they specify).
    #[default]
    Standard,
    /// ns-2.29's behaviour, as the public semi-TCP code runs it: every key
    /// of the "Presets" table of the scenario reference (`NS2_RULES`).
    Ns2,
}

impl Preset {
    pub const NAMES: [&'static str; 2] = ["standard", "ns2"];

    /// The rules this preset applies.
    pub fn rules(self) -> &'static [PresetRule] {
        match self {
            Preset::Standard => &[],
            Preset::Ns2 => &NS2_RULES,
        }
    }
}

/// The prefix of a rule's key that applies to each flow.
const FLOW_KEY_PREFIX: &str = "flows[].";

/// ns-2.29's behaviour, one key per rule, gathered from the variants that
/// declare them (each beside its config: `NS2_RULES` in the routing
/// protocols' config modules through `routing_protocols!`, `[tcp]`, the
/// controllers', the error model's, `[semitcp]`, `[mac]`, and the hop
/// controls' through `hop_controls!`), in this order. Line numbers are
/// those of the files in GitHub musicinthedark/semitcp (ns-2.29 with
/// semi-TCP) unless a rule names ns-2.35.
pub static NS2_RULES: LazyLock<Vec<PresetRule>> = LazyLock::new(|| {
    let sources: [&[PresetRule]; 6] = [
        crate::transport::tcp::config::NS2_RULES,
        crate::transport::tcp::congestion::westwood_plus::NS2_RULES,
        crate::transport::tcp::congestion::vegas::NS2_RULES,
        crate::phy::error_model::NS2_RULES,
        super::semitcp::NS2_RULES,
        crate::mac::config::NS2_RULES,
    ];
    let routing = RoutingProtocol::ns2_rules();
    routing.chain(sources.into_iter().flatten()).chain(HopControlKind::ns2_rules()).copied().collect()
});

/// Apply the scenario's `preset` to its JSON document: every rule fills its
/// key where the document does not give it. Errors name `preset`.
pub fn apply(document: &mut Value) -> Result<(), ConfigError> {
    let Some(map) = document.as_object_mut() else { return Ok(()) };
    let preset = match map.get("preset") {
        None => Preset::Standard,
        Some(value) => Preset::deserialize(value).map_err(|_| {
            ConfigError::new("preset", format!("must be one of {}, got {value}", Preset::NAMES.map(|n| format!("\"{n}\"")).join(", ")))
        })?,
    };
    let protocol = map.get("routing").and_then(|r| r.get("protocol")).and_then(Value::as_str).map(str::to_string);
    let tcp_sack = map.get("tcp").and_then(|t| t.get("sack")).and_then(Value::as_bool) == Some(true);
    let error_model = map.get("errors").and_then(|e| e.get("model")).and_then(Value::as_str).is_some_and(|m| m != "none");
    let sinr = map.get("radio").and_then(|r| r.get("reception")).and_then(Value::as_str) == Some("sinr");
    let handshake = map.get("tcp").and_then(|t| t.get("handshake")).and_then(Value::as_bool) == Some(true);
    for rule in preset.rules() {
        let applies = match rule.applies {
            Applies::Always => true,
            Applies::WithRouting(name) => protocol.as_deref() == Some(name),
            Applies::WithTcpSack => tcp_sack,
            Applies::WithErrorModel => error_model && !sinr,
            Applies::WithoutTcpHandshake => !handshake,
            Applies::WithTcpSackFlowCc(cc) => {
                if tcp_sack {
                    fill_flows(map, cc, rule);
                }
                false
            }
        };
        if !applies {
            continue;
        }
        let value: Value = serde_json::from_str(rule.value).expect("a preset rule's value is JSON");
        fill(map, rule.key, value);
    }
    Ok(())
}

/// A per-flow rule: fill its key in every flow (a table) whose `cc` is `cc`.
fn fill_flows(map: &mut Map<String, Value>, cc: &str, rule: &PresetRule) {
    let key = rule.key.strip_prefix(FLOW_KEY_PREFIX).expect("a flow rule's key starts with flows[].");
    let Some(Value::Array(flows)) = map.get_mut("flows") else { return };
    for flow in flows.iter_mut().filter_map(Value::as_object_mut) {
        if flow.get("cc").and_then(Value::as_str) == Some(cc) {
            let value: Value = serde_json::from_str(rule.value).expect("a preset rule's value is JSON");
            fill(flow, key, value);
        }
    }
}

/// Set `key` (dotted) in `map` unless it is there; tables on the way are
/// created. A non-table in the way is left alone (typing reports it).
fn fill(map: &mut Map<String, Value>, key: &str, value: Value) {
    let (head, rest) = match key.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (key, None),
    };
    match rest {
        None => {
            map.entry(head.to_string()).or_insert(value);
        }
        Some(rest) => {
            let entry = map.entry(head.to_string()).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(inner) = entry {
                fill(inner, rest, value);
            }
        }
    }
}

/// Every preset's rules as JSON, for the docs and `hoplab validate`:
/// `[{"preset", "key", "value", "applies", "source"}]`.
pub fn rules_json() -> Value {
    let mut rules = Vec::new();
    for (name, preset) in [("ns2", Preset::Ns2)] {
        for rule in preset.rules() {
            rules.push(serde_json::json!({
                "preset": name,
                "key": rule.key,
                "value": serde_json::from_str::<Value>(rule.value).expect("JSON"),
                "applies": match rule.applies {
                    Applies::Always => "always".to_string(),
                    Applies::WithRouting(name) => format!("routing.protocol = \"{name}\""),
                    Applies::WithTcpSack => "tcp.sack = true".to_string(),
                    Applies::WithErrorModel => "errors.model set, radio.reception = \"threshold\"".to_string(),
                    Applies::WithTcpSackFlowCc(cc) => format!("tcp.sack = true, in flows with cc = \"{cc}\""),
                    Applies::WithoutTcpHandshake => "tcp.handshake = false".to_string(),
                },
                "source": rule.source,
            }));
        }
    }
    Value::Array(rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn standard_changes_nothing() {
        let mut doc = json!({"topology": {"kind": "chain", "nodes": 3}, "routing": {"protocol": "aodv"}});
        let before = doc.clone();
        apply(&mut doc).unwrap();
        assert_eq!(doc, before);
    }

    #[test]
    fn ns2_fills_absent_keys_and_leaves_given_ones() {
        let mut doc = json!({"preset": "ns2", "routing": {"protocol": "aodv"}});
        apply(&mut doc).unwrap();
        assert_eq!(doc["routing"]["aodv"]["measured_traversal_time"], json!(true));
        let mut doc = json!({"preset": "ns2", "routing": {"protocol": "aodv", "aodv": {"measured_traversal_time": false}}});
        apply(&mut doc).unwrap();
        assert_eq!(doc["routing"]["aodv"]["measured_traversal_time"], json!(false), "the scenario's own key wins");
    }

    #[test]
    fn aodv_rules_only_with_aodv() {
        let mut doc = json!({"preset": "ns2", "routing": {"protocol": "static"}});
        apply(&mut doc).unwrap();
        assert!(doc["routing"].get("aodv").is_none());
    }

    #[test]
    fn every_rule_names_a_key_of_the_scenario_and_its_source() {
        for rule in NS2_RULES.iter() {
            assert!(rule.source.contains(".cc:") || rule.source.contains(".h:"), "{}: cite file:line", rule.key);
            serde_json::from_str::<Value>(rule.value).unwrap_or_else(|_| panic!("{}: value is not JSON", rule.key));
        }
    }

    #[test]
    fn every_rule_changes_its_key_from_the_standard_default() {
        // Resolved through the scenario type, as `hoplab validate` shows it
        // (a rule whose value is the default would do nothing).
        let base = json!({"routing": {"protocol": "aodv"}, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200},
            "tcp": {"sack": true}, "errors": {"model": "uniform", "packet_error_rate": 0.01},
            "flows": [{"src": 0, "dst": 2, "app": "bulk", "transport": "semitcp"},
                {"src": 0, "dst": 2, "app": "bulk", "transport": "tcp", "cc": "westwood_plus"},
                {"src": 0, "dst": 2, "app": "bulk", "transport": "tcp", "cc": "vegas"}]});
        let resolve = |preset: &str| {
            let mut doc = base.clone();
            doc["preset"] = json!(preset);
            serde_json::to_value(crate::scenario::Scenario::from_json(&doc.to_string()).expect("valid")).expect("serialises")
        };
        let (ns2, standard) = (resolve("ns2"), resolve("standard"));
        let dsr_base = {
            let mut doc = base.clone();
            doc["routing"] = json!({"protocol": "dsr"});
            doc
        };
        let resolve_dsr = |preset: &str| {
            let mut doc = dsr_base.clone();
            doc["preset"] = json!(preset);
            serde_json::to_value(crate::scenario::Scenario::from_json(&doc.to_string()).expect("valid")).expect("serialises")
        };
        let (dsr_ns2, dsr_standard) = (resolve_dsr("ns2"), resolve_dsr("standard"));
        for rule in NS2_RULES.iter() {
            let (ns2, standard) = if rule.applies == Applies::WithRouting("dsr") { (&dsr_ns2, &dsr_standard) } else { (&ns2, &standard) };
            // A flow rule's key is checked in its controller's flow
            // (westwood_plus flows[1], vegas flows[2]).
            let flow = if rule.applies == Applies::WithTcpSackFlowCc("vegas") { "flows.2." } else { "flows.1." };
            let key = rule.key.replace(FLOW_KEY_PREFIX, flow);
            let pointer = format!("/{}", key.replace('.', "/"));
            let value: Value = serde_json::from_str(rule.value).unwrap();
            assert_eq!(ns2.pointer(&pointer), Some(&value), "{}", rule.key);
            assert_ne!(standard.pointer(&pointer), Some(&value), "{}: the standard default differs", rule.key);
        }
    }

    #[test]
    fn ns2s_header_only_syn_only_without_a_handshake() {
        let mut doc = json!({"preset": "ns2"});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/tcp/first_segment_header_only"), Some(&json!(true)));
        let mut doc = json!({"preset": "ns2", "tcp": {"handshake": true}});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/tcp/first_segment_header_only"), None, "the handshake's SYN is the SYN");
    }

    #[test]
    fn ns2_arp_comes_with_route_discovery_only() {
        // AODV and DSR resolve each hop as their replies come back; static
        // routes stand for routes already found (mac/config.rs).
        for (protocol, arp) in [("aodv", Some(json!("ns2"))), ("dsr", Some(json!("ns2"))), ("static", None)] {
            let mut doc = json!({"preset": "ns2", "routing": {"protocol": protocol}});
            apply(&mut doc).unwrap();
            assert_eq!(doc.pointer("/mac/arp"), arp.as_ref(), "{protocol}");
        }
        let mut doc = json!({"preset": "ns2"});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/mac/arp"), None, "no routing table: static routes");
        let mut doc = json!({"preset": "ns2", "routing": {"protocol": "aodv"}, "mac": {"arp": "off"}});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/mac/arp"), Some(&json!("off")), "the scenario's own value wins");
    }

    #[test]
    fn the_tcp_linux_rules_need_sack() {
        // Without SACK the ns2 preset's TCP is Agent/TCP/Newreno: RFC 6298's timer.
        let mut doc = json!({"preset": "ns2"});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/tcp/rto_restart_on_every_ack"), None);
        let mut doc = json!({"preset": "ns2", "tcp": {"sack": true}});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/tcp/rto_restart_on_every_ack"), Some(&json!(true)));
        assert_eq!(doc.pointer("/tcp/sack_lost_retransmit"), Some(&json!(true)));
    }

    #[test]
    fn linux_westwood_only_in_westwood_plus_flows_with_sack() {
        let flows = json!([{"cc": "westwood_plus"}, {"cc": "newreno"}, {"cc": "westwood_plus", "cc_params": {"variant": "ns3"}}]);
        let mut doc = json!({"preset": "ns2", "tcp": {"sack": true}, "flows": flows});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/flows/0/cc_params/variant"), Some(&json!("linux")));
        assert_eq!(doc.pointer("/flows/1/cc_params"), None);
        assert_eq!(doc.pointer("/flows/2/cc_params/variant"), Some(&json!("ns3")), "the scenario's own key wins");
        // Without SACK ns-2's agent is Agent/TCP/Newreno: no TCP-Linux module.
        let mut doc = json!({"preset": "ns2", "flows": [{"cc": "westwood_plus"}]});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/flows/0/cc_params"), None);
    }

    #[test]
    fn linux_2_6_22_vegas_only_in_vegas_flows_with_sack() {
        let flows = json!([{"cc": "vegas", "cc_params": {"diff": "brakmo"}}, {"cc": "westwood_plus"}, {"cc": "vegas", "cc_params": {"variant": "linux"}}]);
        let mut doc = json!({"preset": "ns2", "tcp": {"sack": true}, "flows": flows});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/flows/0/cc_params"), Some(&json!({"diff": "brakmo", "variant": "linux_2_6_22"})));
        assert_eq!(doc.pointer("/flows/1/cc_params/variant"), Some(&json!("linux")));
        assert_eq!(doc.pointer("/flows/2/cc_params/variant"), Some(&json!("linux")), "the scenario's own key wins");
        let mut doc = json!({"preset": "ns2", "flows": [{"cc": "vegas"}]});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/flows/0/cc_params"), None);
    }

    #[test]
    fn ns2_error_scope_only_with_an_error_model_and_the_threshold_receiver() {
        let mut doc = json!({"preset": "ns2"});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/errors"), None, "no [errors] table without a model");
        let mut doc = json!({"preset": "ns2", "errors": {"model": "gilbert_elliott"}});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/errors/scope"), Some(&json!("every_frame")));
        let mut doc = json!({"preset": "ns2", "radio": {"reception": "sinr"}, "errors": {"model": "uniform"}});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/errors/scope"), None, "ns-2's placement needs ns-2's receiver");
    }

    #[test]
    fn a_bad_preset_is_named() {
        let mut doc = json!({"preset": "ns3"});
        let e = apply(&mut doc).unwrap_err();
        assert_eq!(e.key, "preset");
        assert!(e.message.contains("\"ns2\""), "{}", e.message);
    }
}
