//! A variant's own part of the run report (a routing protocol's, a hop
//! control's, a transport's): named values, as the JSON report spells
//! them. The report's fixed fields are the same for every variant; what
//! one variant alone counts travels as a section, so that the code that
//! builds the report names no variant.

use std::collections::BTreeMap;

/// Named values of one report entry (a flow, a node, the network).
pub type Section = BTreeMap<String, serde_json::Value>;

/// Add `other`'s values to `section` (a section summed over nodes):
/// integers add, maps add key by key, anything else is replaced.
pub fn add_into(section: &mut Section, other: Section) {
    for (key, value) in other {
        match section.get_mut(&key) {
            Some(existing) => add_value(existing, value),
            None => {
                section.insert(key, value);
            }
        }
    }
}

fn add_value(into: &mut serde_json::Value, value: serde_json::Value) {
    use serde_json::Value;
    match (into, value) {
        (Value::Number(a), Value::Number(b)) if a.is_u64() && b.is_u64() => {
            *a = (a.as_u64().unwrap_or(0) + b.as_u64().unwrap_or(0)).into();
        }
        (Value::Object(a), Value::Object(b)) => {
            for (key, v) in b {
                match a.get_mut(&key) {
                    Some(existing) => add_value(existing, v),
                    None => {
                        a.insert(key, v);
                    }
                }
            }
        }
        (into, value) => *into = value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sections_add_counter_by_counter() {
        let mut total = Section::new();
        add_into(&mut total, Section::from([("dsr".to_string(), json!({"salvaged": 2, "replies": 1}))]));
        add_into(&mut total, Section::from([("dsr".to_string(), json!({"salvaged": 3, "replies": 0})), ("x".into(), json!(1))]));
        assert_eq!(total["dsr"], json!({"salvaged": 5, "replies": 1}));
        assert_eq!(total["x"], json!(1));
    }
}
