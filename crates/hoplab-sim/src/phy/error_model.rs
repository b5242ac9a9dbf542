//! Frame error models: a frame that reception would decode is lost anyway
//! (drop cause `channel_error`, the "wireless" loss of loss-differentiation
//! studies).
//!
//! Which frames: unicast DATA frames addressed to the receiving node. RTS,
//! CTS and ACK frames are short and sent at the basic rate, and broadcast
//! frames are routing control; the papers' error models (seeds 001, 002)
//! corrupt data packets, so only those are exposed to errors.

use crate::config::{nested, parse_at, parse_tagged, probability, ConfigError};
use crate::engine::Stream;
use crate::wire::ieee80211::{Frame, FrameKind};
use crate::wire::NodeId;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// `[errors]`: channel errors: a unicast DATA frame that its receiver
/// would decode is lost anyway (loss cause `channel_error`). `model` picks
/// the model and its keys.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, Default)]
#[serde(tag = "model", rename_all = "snake_case")]
#[schemars(deny_unknown_fields, transform = none_by_default)]
pub enum ErrorModelConfig {
    /// No channel errors.
    #[default]
    None,
    /// Each unicast DATA frame is lost independently with probability
    /// `packet_error_rate`.
    Uniform(UniformErrors),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UniformErrors {
    /// Probability, 0 to 1, that a unicast DATA frame decodable at its
    /// receiver is lost (RTS, CTS, ACK and broadcast frames are not).
    pub packet_error_rate: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoKeys {}

/// The schema of `[errors]`: `model` may be left out (none).
fn none_by_default(schema: &mut schemars::Schema) {
    crate::config::optional_tag(schema, "model", "none");
}

impl<'de> Deserialize<'de> for ErrorModelConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        parse_tagged(value, "model", Some("none"), &["none", "uniform"], |model, rest| match model {
            "none" => parse_at::<NoKeys>(rest, "").map(|_| ErrorModelConfig::None),
            _ => parse_at(rest, "").map(ErrorModelConfig::Uniform),
        })
        .map_err(nested)
    }
}

impl ErrorModelConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            ErrorModelConfig::None => Ok(()),
            ErrorModelConfig::Uniform(u) => probability("errors.packet_error_rate", u.packet_error_rate),
        }
    }
}

#[derive(Debug, Clone)]
pub enum ErrorModel {
    None,
    /// Each exposed frame is lost independently with `packet_error_rate`.
    Uniform {
        packet_error_rate: f64,
        rng: Stream,
    },
}

impl ErrorModel {
    /// Whether `frame`, decodable at `node`, is lost to a channel error.
    pub fn corrupts(&mut self, node: NodeId, frame: &Frame) -> bool {
        match self {
            ErrorModel::None => false,
            ErrorModel::Uniform { packet_error_rate, rng } => {
                *packet_error_rate > 0.0 && frame.kind == FrameKind::Data && frame.receiver == node && rng.bernoulli(*packet_error_rate)
            }
        }
    }
}
