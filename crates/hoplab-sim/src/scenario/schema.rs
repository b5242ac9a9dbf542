//! The JSON Schema of a scenario file, derived (`schemars::JsonSchema`)
//! from the same configuration types serde reads, so it cannot drift from
//! the parser: key names, types, defaults (each type's `Default`), the
//! choices of every enumeration, unknown keys refused, and the doc comments
//! as descriptions. `hoplab schema` prints it (editors validate TOML with
//! it); `scripts/scenario_reference.py` renders it as
//! docs/scenario-reference.md.
//!
//! What the schema leaves to [`Scenario::validate`](super::Scenario::validate):
//! ranges beyond a type's own (a positive rate, a probability) and the
//! rules across keys (a flow's nodes exist, `cc` only for TCP).

use super::Scenario;
use schemars::generate::SchemaSettings;
use schemars::Schema;

/// The scenario's JSON Schema, draft 7: the draft that TOML editors'
/// validators (taplo, Even Better TOML) and VS Code's JSON support read.
pub fn scenario_schema() -> Schema {
    let mut schema = SchemaSettings::draft07().into_generator().into_root_schema_for::<Scenario>();
    // The presets' rules (key, value, ns-2 source), for the reference page
    // and editors: an extension keyword, ignored by validators.
    schema.insert("x-presets".to_string(), crate::scenario::preset::rules_json());
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value};

    /// The definition a `$ref` names.
    fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => root.pointer(reference.trim_start_matches('#')).unwrap_or_else(|| panic!("dangling {reference}")),
            None => schema,
        }
    }

    /// The properties the schema gives an object `value`: its own, its
    /// `allOf` parts', the `oneOf` variant whose tag (a `const`) `value`
    /// has, and the `then` of each `if` whose `const`s `value` meets.
    fn properties_for(root: &Value, schema: &Value, value: &Value, out: &mut Map<String, Value>) {
        let schema = resolve(root, schema);
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            out.extend(properties.clone());
        }
        for part in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            properties_for(root, part, value, out);
        }
        for part in schema.get("anyOf").and_then(Value::as_array).into_iter().flatten() {
            if resolve(root, part).get("type") != Some(&Value::from("null")) {
                properties_for(root, part, value, out);
            }
        }
        let meets = |condition: &Value| {
            condition
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|constants| constants.iter().all(|(key, c)| c.get("const").map_or(true, |c| value.get(key) == Some(c))))
        };
        for variant in schema.get("oneOf").and_then(Value::as_array).into_iter().flatten() {
            if meets(variant) {
                properties_for(root, variant, value, out);
            }
        }
        if let (Some(condition), Some(then)) = (schema.get("if"), schema.get("then")) {
            if meets(condition) {
                properties_for(root, then, value, out);
            }
        }
    }

    /// Every key of `value` (at `path`) is a property in the schema, down
    /// to the leaves; returns the keys the schema does not name.
    fn unnamed_keys(root: &Value, schema: &Value, value: &Value, path: &str, missing: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                let mut properties = Map::new();
                properties_for(root, schema, value, &mut properties);
                for (key, inner) in map {
                    let here = crate::config::join(path, key);
                    match properties.get(key) {
                        Some(property) => unnamed_keys(root, property, inner, &here, missing),
                        None => missing.push(here),
                    }
                }
            }
            Value::Array(items) => {
                let schema = resolve(root, schema);
                let item_schema = schema.get("items").cloned().unwrap_or(Value::Null);
                for (i, item) in items.iter().enumerate() {
                    unnamed_keys(root, &item_schema, item, &format!("{path}[{i}]"), missing);
                }
            }
            _ => {}
        }
    }

    /// A scenario with every section and kind of table: explicit topology
    /// with a link, AODV, random waypoint, errors, a queue discipline, a
    /// TCP flow with its controller's parameters and a semi-TCP one.
    fn every_section() -> Scenario {
        let mut scenario = Scenario::from_json(
            r#"{"topology": {"kind": "explicit", "positions": [[0, 0], [200, 0], [400, 0]]},
                "queue": {"discipline": "red", "linterm": 5},
                "routing": {"protocol": "aodv"},
                "mobility": {"model": "random_waypoint", "max_speed_mps": 5, "width_m": 500, "height_m": 300},
                "errors": {"model": "uniform", "packet_error_rate": 0.01},
                "flows": [{"src": 0, "dst": 2, "transport": "tcp", "app": "bulk", "cc": "vegas", "cc_params": {"alpha": 1}},
                          {"src": 2, "dst": 0, "transport": "semitcp", "app": "bulk", "rate_control": "binary_search"}]}"#,
        )
        .expect("valid scenario");
        scenario.normalize();
        scenario
    }

    #[test]
    fn the_schema_names_every_top_level_section_of_a_scenario() {
        let schema = scenario_schema().to_value();
        let properties = schema["properties"].as_object().expect("properties");
        let scenario = serde_json::to_value(every_section()).expect("serialises");
        let sections: Vec<&String> = scenario.as_object().expect("a table").keys().collect();
        assert_eq!(properties.keys().collect::<Vec<_>>(), sections, "schema properties vs the scenario's keys");
        assert_eq!(schema["required"], serde_json::json!(["topology"]));
        assert_eq!(schema["additionalProperties"], Value::Bool(false), "unknown keys are refused");
    }

    #[test]
    fn the_schema_names_every_key_of_normalised_scenarios() {
        let schema = scenario_schema().to_value();
        let mut wired: Scenario = Scenario::from_json(
            r#"{"topology": {"kind": "wired_cum_wireless"}, "flows": [{"src": 0, "dst": 3, "transport": "tcp", "app": "bulk", "cc": "afw"}]}"#,
        )
        .expect("valid scenario");
        wired.normalize();
        // A link with its own queue discipline.
        let mut links: Scenario = Scenario::from_json(
            r#"{"topology": {"kind": "explicit", "positions": [[0, 0], [200, 0]], "wired_nodes": [0, 1],
                             "links": [{"a": 0, "b": 1, "rate_mbps": 5, "delay_ms": 1, "queue": {"discipline": "pi", "qref_packets": 20}}]},
                "flows": [{"src": 0, "dst": 1, "transport": "tcp", "app": "bulk"}]}"#,
        )
        .expect("valid scenario");
        links.normalize();
        for scenario in [every_section(), wired, links] {
            let mut missing = Vec::new();
            unnamed_keys(&schema, &schema, &serde_json::to_value(&scenario).expect("serialises"), "", &mut missing);
            assert!(missing.is_empty(), "keys the schema does not name: {missing:?}");
        }
    }

    #[test]
    fn every_key_and_choice_has_a_description() {
        let schema = scenario_schema().to_value();
        let definitions = schema["definitions"].as_object().expect("definitions");
        let described = |property: &Value| {
            property.get("description").is_some()
                || property
                    .get("allOf")
                    .and_then(Value::as_array)
                    .is_some_and(|parts| parts.iter().any(|part| resolve(&schema, part).get("description").is_some()))
        };
        let mut undescribed = Vec::new();
        let mut tables: Vec<(String, &Value)> = vec![("scenario".to_string(), &schema)];
        tables.extend(definitions.iter().map(|(name, d)| (name.clone(), d)));
        while let Some((name, table)) = tables.pop() {
            for (i, variant) in table.get("oneOf").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if variant.get("description").is_none() {
                    undescribed.push(format!("{name} choice {i}"));
                }
                tables.push((format!("{name} choice {i}"), variant));
            }
            for (key, property) in table.get("properties").and_then(Value::as_object).into_iter().flatten() {
                let is_tag = property.get("const").is_some();
                if !is_tag && !described(property) {
                    undescribed.push(format!("{name}.{key}"));
                }
            }
        }
        assert!(undescribed.is_empty(), "without a doc comment: {undescribed:?}");
    }

    #[test]
    fn durations_are_numbers_in_the_unit_of_their_key_and_defaults_as_written() {
        let schema = scenario_schema().to_value();
        let tcp = &schema["definitions"]["TcpConfig"]["properties"];
        assert_eq!(tcp["min_rto_ms"]["type"], "number");
        assert_eq!(tcp["min_rto_ms"]["minimum"], 0.0);
        assert_eq!(tcp["min_rto_ms"]["default"], 200.0, "milliseconds, as the file writes them");
        let aodv = &schema["definitions"]["AodvConfig"]["properties"];
        assert_eq!(aodv["active_route_timeout_s"]["default"], 3.0);
        assert_eq!(aodv["net_traversal_time_ms"]["type"], serde_json::json!(["number", "null"]));
    }

    #[test]
    fn a_tag_with_a_default_may_be_left_out() {
        let schema = scenario_schema().to_value();
        for (definition, tag, default) in
            [("MobilityConfig", "model", "static"), ("ErrorModelConfig", "model", "none"), ("QueueConfig", "discipline", "drop_tail")]
        {
            let variants = schema["definitions"][definition]["oneOf"].as_array().expect("variants");
            let variant = variants.iter().find(|v| v["properties"][tag]["const"] == default).expect("default variant");
            assert!(!variant["required"].as_array().is_some_and(|r| r.contains(&Value::from(tag))), "{definition}");
            assert_eq!(variant["additionalProperties"], Value::Bool(false), "{definition}: no other key");
        }
        let topology = schema["definitions"]["TopologyConfig"]["oneOf"].as_array().expect("variants");
        assert!(topology.iter().all(|v| v["required"].as_array().is_some_and(|r| r.contains(&Value::from("kind")))));
    }
}
