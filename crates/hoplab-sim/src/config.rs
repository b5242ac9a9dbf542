//! What every layer's configuration type shares: the error naming a key,
//! range checks, durations read from (and written as) milliseconds or
//! seconds, key-aware parsing of a part of a scenario, and the plain words
//! serde's messages are turned into ("must be an integer from 0 to 255,
//! got 300", not "invalid value: integer `300`, expected u8").
//!
//! Every configuration type also derives `schemars::JsonSchema`, so that
//! the JSON Schema of a scenario (`scenario::schema`) is read off the same
//! definitions as the parser. A duration field names its schema next to
//! its serde module: `#[schemars(schema_with = "crate::config::millis::schema")]`.
//!
//! Each layer owns its configuration type (`phy::config::RadioConfig`,
//! `mac::config::MacConfig`, `net::aodv::AodvConfig`, ...) with `Default`
//! as the only source of each default; `scenario` assembles them.

use crate::time::SimDuration;
use serde::de::DeserializeOwned;
use std::fmt;

/// A configuration error: the dotted key it concerns and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { key: key.into(), message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// `key` joined to a parent key (`radio` + `tx_range_m`).
pub fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

pub fn positive(key: &str, v: f64) -> Result<(), ConfigError> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be a positive number, got {v}")))
    }
}

pub fn non_negative(key: &str, v: f64) -> Result<(), ConfigError> {
    if v >= 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be >= 0, got {v}")))
    }
}

pub fn probability(key: &str, v: f64) -> Result<(), ConfigError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be in [0, 1], got {v}")))
    }
}

pub fn at_least(key: &str, v: u32, min: u32) -> Result<(), ConfigError> {
    if v >= min {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be at least {min}, got {v}")))
    }
}

/// The most packets any one buffer of a scenario may hold (an interface
/// queue, a routing protocol's buffer, a reserved or ACK buffer, a TCP
/// window): a million, 20,000 times ns-2's default interface queue, more
/// than any study needs, and small enough that a buffer filled to it fits
/// in memory (about 100 MB).
pub const MAX_PACKETS: u32 = 1_000_000;

/// The most samples a moving window of a rate controller may hold.
pub const MAX_SAMPLES: u32 = 1_000_000;

/// A count between `min` and `max` inclusive.
pub fn count_in(key: &str, v: u32, min: u32, max: u32) -> Result<(), ConfigError> {
    if (min..=max).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be an integer from {min} to {max}, got {v}")))
    }
}

/// A number of packets a buffer may hold: 1 to [`MAX_PACKETS`].
pub fn packets(key: &str, v: u32) -> Result<(), ConfigError> {
    count_in(key, v, 1, MAX_PACKETS)
}

/// A duration that must not be zero.
pub fn positive_duration(key: &str, d: SimDuration) -> Result<(), ConfigError> {
    if d > SimDuration::ZERO {
        Ok(())
    } else {
        Err(ConfigError::new(key, "must be a positive number"))
    }
}

/// An integer key whose range is checked while it is read:
/// `#[serde(deserialize_with = "crate::config::u32_in::<_, 1, 65000>")]`.
/// A negative, fractional, too large or non-numeric value then gets the
/// same words ("must be an integer from 1 to 65000, got -1"), not the type's
/// range for some values and the key's for others.
pub fn u32_in<'de, D: serde::Deserializer<'de>, const MIN: u32, const MAX: u32>(d: D) -> Result<u32, D::Error> {
    d.deserialize_u32(U32In::<MIN, MAX>)
}

struct U32In<const MIN: u32, const MAX: u32>;

impl<const MIN: u32, const MAX: u32> serde::de::Visitor<'_> for U32In<MIN, MAX> {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an integer from {MIN} to {MAX}")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u32, E> {
        match u32::try_from(v) {
            Ok(v) if (MIN..=MAX).contains(&v) => Ok(v),
            _ => Err(E::invalid_value(serde::de::Unexpected::Unsigned(v), &self)),
        }
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u32, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Signed(v), &self)),
        }
    }
}

/// Durations written in milliseconds: `#[serde(with = "crate::config::millis")]`
/// on a [`SimDuration`] field whose key ends in `_ms`. Reading refuses
/// negative and non-finite numbers; the duration is kept to the nanosecond.
pub mod millis {
    use crate::time::SimDuration;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &SimDuration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_nanos() as f64 / 1e6)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SimDuration, D::Error> {
        let v = f64::deserialize(d)?;
        super::duration_from(v, 1e-3).map_err(serde::de::Error::custom)
    }

    /// What the file holds: a number of milliseconds, >= 0.
    pub fn schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        super::duration_schema(false)
    }
}

/// Durations written in seconds (keys ending in `_s`); as [`millis`].
pub mod secs {
    use crate::time::SimDuration;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &SimDuration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_nanos() as f64 / 1e9)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SimDuration, D::Error> {
        let v = f64::deserialize(d)?;
        super::duration_from(v, 1.0).map_err(serde::de::Error::custom)
    }

    /// What the file holds: a number of seconds, >= 0.
    pub fn schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        super::duration_schema(false)
    }
}

/// Optional durations in milliseconds (absent: derived from others).
pub mod millis_opt {
    use crate::time::SimDuration;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<SimDuration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => super::millis::serialize(d, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SimDuration>, D::Error> {
        match Option::<f64>::deserialize(d)? {
            Some(v) => super::duration_from(v, 1e-3).map(Some).map_err(serde::de::Error::custom),
            None => Ok(None),
        }
    }

    /// A number of milliseconds, >= 0, or nothing (null in JSON).
    pub fn schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        super::duration_schema(true)
    }
}

/// Optional durations in seconds.
pub mod secs_opt {
    use crate::time::SimDuration;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<SimDuration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => super::secs::serialize(d, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SimDuration>, D::Error> {
        match Option::<f64>::deserialize(d)? {
            Some(v) => super::duration_from(v, 1.0).map(Some).map_err(serde::de::Error::custom),
            None => Ok(None),
        }
    }

    /// A number of seconds, >= 0, or nothing (null in JSON).
    pub fn schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        super::duration_schema(true)
    }
}

/// The schema of a duration in a file: a number >= 0 (the unit is in the
/// key's name), `optional`: or null. The upper bound, [`MAX_DURATION_S`],
/// depends on the unit and is left to the parser's message.
fn duration_schema(optional: bool) -> schemars::Schema {
    if optional {
        schemars::json_schema!({ "type": ["number", "null"], "minimum": 0.0 })
    } else {
        schemars::json_schema!({ "type": "number", "minimum": 0.0 })
    }
}

/// A transform for an internally tagged enum whose tag may be left out,
/// meaning `default` (`[mobility]` without `model` is static): the tag is
/// not required in that variant's schema, and its default is named (the
/// schema's side of [`parse_tagged`]'s `default_tag`).
pub fn optional_tag(schema: &mut schemars::Schema, tag: &str, default: &str) {
    let Some(variants) = schema.get_mut("oneOf").and_then(|v| v.as_array_mut()) else { return };
    for variant in variants {
        let Some(property) = variant.pointer_mut(&format!("/properties/{tag}")).and_then(|p| p.as_object_mut()) else { continue };
        if property.get("const").and_then(|c| c.as_str()) != Some(default) {
            continue;
        }
        property.insert("default".into(), default.into());
        if let Some(required) = variant.get_mut("required").and_then(|r| r.as_array_mut()) {
            required.retain(|key| key.as_str() != Some(tag));
        }
    }
}

/// The longest duration a configuration may give: about 584 years, what
/// `u64` nanoseconds hold.
pub const MAX_DURATION_S: f64 = 1.8e10;

/// `value` in units of `unit_s` seconds as a duration (as
/// `SimDuration::from_secs_f64(value * unit_s)`).
fn duration_from(value: f64, unit_s: f64) -> Result<SimDuration, String> {
    let seconds = value * unit_s;
    // 584 years of nanoseconds fit in u64; refuse what does not.
    if !(value >= 0.0 && seconds.is_finite()) {
        return Err(format!("must be a duration >= 0, got {value}"));
    }
    if seconds >= MAX_DURATION_S {
        return Err(format!("must be below {} in this unit (584 years, the longest simulated time), got {value}", MAX_DURATION_S / unit_s));
    }
    Ok(if unit_s == 1e-3 { SimDuration::from_millis_f64(value) } else { SimDuration::from_secs_f64(seconds) })
}

/// Parse `value` as a `T`, naming the key of any error under `prefix`.
pub fn parse_at<T: DeserializeOwned>(value: serde_json::Value, prefix: &str) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let key = if path == "." { prefix.to_string() } else { join(prefix, &path) };
        // A tagged table inside (a link's `queue`) reports its own key.
        unnest(key, &e.into_inner().to_string())
    })
}

/// Marks a [`ConfigError`] carried through serde as a custom error message
/// (a section parsed by hand inside a derived `Deserialize`): its key is
/// relative to where serde stood, which [`unnest`] joins back on.
const NESTED: char = '\u{1}';

/// A [`ConfigError`] with a key relative to the value being deserialized,
/// as a serde error.
pub fn nested<E: serde::de::Error>(e: ConfigError) -> E {
    E::custom(format!("{NESTED}{}{NESTED}{}", e.key, e.message))
}

/// The error of a deserialization at `key`: a nested [`ConfigError`]
/// (its key joined to `key`), or a serde message in plain words.
pub fn unnest(key: String, message: &str) -> ConfigError {
    if let Some(rest) = message.strip_prefix(NESTED) {
        if let Some((inner, message)) = rest.split_once(NESTED) {
            let message = match message.rfind(" at line ") {
                Some(at) => &message[..at],
                None => message,
            };
            return ConfigError::new(join(&key, inner), message);
        }
    }
    plain_error(key, message)
}

/// Parse a section whose keys depend on one of them, the tag (`kind` of a
/// topology, `model` of mobility or errors): `parse` gets the tag's value
/// and the other keys. Keys in errors are relative to the section; a key
/// not used with this tag, or missing for it, is named with the tag.
pub fn parse_tagged<T>(
    value: serde_json::Value,
    tag: &str,
    default_tag: Option<&str>,
    tags: &[&str],
    parse: impl FnOnce(&str, serde_json::Value) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    let serde_json::Value::Object(mut map) = value else {
        return Err(ConfigError::new("", "must be a table"));
    };
    let name = match map.remove(tag) {
        Some(serde_json::Value::String(name)) => name,
        Some(other) => return Err(ConfigError::new(tag, format!("must be text, one of: {}; got {other}", tags.join(", ")))),
        None => match default_tag {
            Some(name) => name.to_string(),
            None => return Err(ConfigError::new(tag, format!("required: one of {}", tags.join(", ")))),
        },
    };
    if !tags.contains(&name.as_str()) {
        return Err(ConfigError::new(tag, format!("unknown value \"{name}\"; allowed: {}", tags.join(", "))));
    }
    parse(&name, serde_json::Value::Object(map)).map_err(|e| {
        let with_tag = format!("{tag} = \"{name}\"");
        let message = if let Some(allowed) = e.message.strip_prefix("unknown key; allowed here: ") {
            format!("not used by {with_tag} (its keys: {allowed})")
        } else if e.message == "unknown key" {
            format!("not used by {with_tag} (it has no other keys)")
        } else if e.message == "required" {
            format!("required for {with_tag}")
        } else {
            e.message
        };
        ConfigError::new(e.key, message)
    })
}

/// A serde message in plain words, with the key completed where serde
/// names the field (unknown or missing fields).
pub fn plain_error(key: String, message: &str) -> ConfigError {
    // serde_json appends the position in the JSON that Python made from
    // the user's TOML: meaningless to the user, so cut it.
    let message = match message.rfind(" at line ") {
        Some(at) => &message[..at],
        None => message,
    };
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (field, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed = expected.trim_start_matches(", expected ").trim_start_matches("one of ").replace('`', "").replace(" or ", ", ");
        let message = if allowed.contains("there are no fields") {
            "unknown key".to_string()
        } else {
            format!("unknown key; allowed here: {allowed}")
        };
        // serde_path_to_error's path already ends at the unknown key.
        let key = if key == field || key.ends_with(&format!(".{field}")) { key } else { join(&key, field) };
        return ConfigError::new(key, message);
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.trim_end_matches('`');
        return ConfigError::new(join(&key, field), "required");
    }
    ConfigError::new(key, plain_words(message))
}

/// What a serde type name means to a user.
fn expected_in_words(expected: &str) -> String {
    let range = |max: &str| format!("an integer from 0 to {max}");
    match expected.trim() {
        "u8" => range("255"),
        "u16" => range("65535"),
        "u32" => range("4294967295"),
        "u64" | "usize" => range("18446744073709551615"),
        "i32" | "i64" | "isize" => "an integer".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        "a string" => "text".to_string(),
        "a sequence" => "a list".to_string(),
        "a map" => "a table".to_string(),
        other if other.starts_with("struct ") => "a table".to_string(),
        other if other.starts_with("a tuple of size") || other.starts_with("an array of length") => {
            format!("a list of {}", other.rsplit(' ').next().unwrap_or("?"))
        }
        other => other.replace('`', "\""),
    }
}

/// What a serde "unexpected" value is, in plain words.
fn got_in_words(got: &str) -> String {
    let got = got.trim();
    for (prefix, words) in [("string ", "the text "), ("floating point ", ""), ("integer ", ""), ("boolean ", "")] {
        if let Some(rest) = got.strip_prefix(prefix) {
            return format!("{words}{}", rest.replace('`', ""));
        }
    }
    match got {
        "sequence" => "a list".to_string(),
        "map" => "a table".to_string(),
        "unit value" | "null" => "nothing".to_string(),
        other => other.replace('`', ""),
    }
}

/// serde's "invalid type / invalid value / unknown variant" messages in
/// plain words; other messages as they are.
pub fn plain_words(message: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            if let Some((got, expected)) = rest.split_once(", expected ") {
                return format!("must be {}, got {}", expected_in_words(expected), got_in_words(got));
            }
        }
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (value, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed = expected.trim_start_matches(", expected ").trim_start_matches("one of ").replace('`', "").replace(" or ", ", ");
        return format!("unknown value \"{value}\"; allowed: {allowed}");
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    struct Bytes {
        #[serde(deserialize_with = "u32_in::<_, 1, 65000>")]
        n: u32,
    }

    #[test]
    fn a_ranged_integer_names_one_range_whatever_the_value() {
        let read = |json: &str| serde_json::from_str::<Bytes>(json).map(|b| b.n).map_err(|e| plain_error(String::new(), &e.to_string()));
        assert_eq!(read(r#"{"n": 512}"#), Ok(512));
        assert_eq!(read(r#"{"n": 1}"#), Ok(1));
        assert_eq!(read(r#"{"n": 65000}"#), Ok(65000));
        for (value, got) in
            [("-1", "-1"), ("0", "0"), ("65001", "65001"), ("5000000000", "5000000000"), ("1.5", "1.5"), (r#""x""#, "the text \"x\"")]
        {
            let message = read(&format!(r#"{{"n": {value}}}"#)).unwrap_err().message;
            assert_eq!(message, format!("must be an integer from 1 to 65000, got {got}"), "{value}");
        }
    }

    #[test]
    fn serde_messages_in_plain_words() {
        assert_eq!(plain_words("invalid value: integer `300`, expected u8"), "must be an integer from 0 to 255, got 300");
        assert_eq!(
            plain_words("invalid type: string \"three\", expected u32"),
            "must be an integer from 0 to 4294967295, got the text \"three\""
        );
        assert_eq!(
            plain_words("invalid type: floating point `1.5`, expected u64"),
            "must be an integer from 0 to 18446744073709551615, got 1.5"
        );
        assert_eq!(plain_words("invalid type: string \"x\", expected f64"), "must be a number, got the text \"x\"");
        assert_eq!(plain_words("invalid type: integer `1`, expected a boolean"), "must be true or false, got 1");
        assert_eq!(
            plain_words("unknown variant `reno2`, expected one of `newreno`, `vegas`"),
            "unknown value \"reno2\"; allowed: newreno, vegas"
        );
    }

    #[test]
    fn unknown_and_missing_fields_complete_the_key() {
        let e = plain_error("mac.retry".into(), "unknown field `retry`, expected one of `short_retry_limit`, `long_retry_limit`");
        assert_eq!(e.key, "mac.retry");
        assert_eq!(e.message, "unknown key; allowed here: short_retry_limit, long_retry_limit");
        let e = plain_error("topology".into(), "missing field `cols` at line 1 column 40");
        assert_eq!((e.key.as_str(), e.message.as_str()), ("topology.cols", "required"));
    }

    #[test]
    fn durations_read_in_their_unit_and_refuse_nonsense() {
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        struct T {
            #[serde(with = "millis")]
            hold_ms: SimDuration,
        }
        let t: T = serde_json::from_str(r#"{"hold_ms": 6.5}"#).unwrap();
        assert_eq!(t.hold_ms, SimDuration::from_nanos(6_500_000));
        assert_eq!(serde_json::to_string(&t).unwrap(), r#"{"hold_ms":6.5}"#);
        let e = parse_at::<T>(serde_json::json!({"hold_ms": -1.0}), "semitcp.mac").unwrap_err();
        assert_eq!(e.key, "semitcp.mac.hold_ms");
        assert!(e.message.contains("duration >= 0"), "{e}");
    }
}

// ---------------------------------------------------------------- presets
// A preset (`scenario::preset`) is gathered from the rules each variant
// declares beside its configuration (`NS2_RULES`), so the rule's type lives
// here, below every layer.

/// When a preset rule's key exists in a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    Always,
    /// Only with `routing.protocol` this protocol (its `[routing.<name>]`
    /// table exists only then).
    WithRouting(&'static str),
    /// Only with `tcp.sack = true`: ns-2's SACK agent with a window of its
    /// own is TCP-Linux (`Agent/TCP/Linux` with a `Sack1` sink, what seed
    /// 004 ran), whose rules these are; ns-2's `Agent/TCP/Newreno` has no
    /// SACK.
    WithTcpSack,
    /// Only with a frame error model (`errors.model` not `"none"`: the
    /// `[errors]` keys exist only then) and ns-2's threshold receiver
    /// (`radio.reception` not `"sinr"`).
    WithErrorModel,
    /// With `tcp.sack = true`, in every flow whose `cc` is this controller:
    /// the rule's key is `flows[].<key in the flow>`. A TCP-Linux module
    /// whose algorithm differs from the controller's default.
    WithTcpSackFlowCc(&'static str),
    /// Only with `tcp.handshake = false`: ns-2's one-way agents, whose SYN
    /// is their first segment; a flow that opens with a handshake has sent
    /// its SYN already.
    WithoutTcpHandshake,
}

/// One key a preset sets.
#[derive(Debug, Clone, Copy)]
pub struct PresetRule {
    /// The dotted key (`mac.cts_ignores_nav`).
    pub key: &'static str,
    /// Its value, as JSON.
    pub value: &'static str,
    pub applies: Applies,
    /// Where ns-2 does this: file, line and function of ns-2.29 as
    /// published in musicinthedark/semitcp.
    pub source: &'static str,
}
