//! A wired link's parameters (`topology.links[]`, and the links of a
//! `wired_cum_wireless` topology).

use crate::config::{non_negative, packets, positive, probability, ConfigError};
use crate::queue::QueueConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A wired point-to-point link (full duplex; each direction has its own
/// queue and transmitter).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Node id of one end.
    pub a: u32,
    /// Node id of the other end (not `a`).
    pub b: u32,
    /// Transmission rate of each direction, Mb/s.
    pub rate_mbps: f64,
    /// Propagation delay, milliseconds.
    pub delay_ms: f64,
    /// Queue capacity of each direction, packets.
    #[serde(default = "default_link_queue")]
    pub queue_packets: u32,
    /// Probability, 0 to 1, that a packet is lost crossing the link (each
    /// direction; loss cause `channel_error`).
    #[serde(default)]
    pub loss_rate: f64,
    /// This link's queue discipline (both directions) and its keys, as in
    /// `[queue]`, which applies where this is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueConfig>,
}

fn default_link_queue() -> u32 {
    50
}

impl LinkConfig {
    /// Range checks; errors name `<key>.<field>`.
    pub fn validate(&self, key: &str, nodes: u32) -> Result<(), ConfigError> {
        for (end, node) in [("a", self.a), ("b", self.b)] {
            if node >= nodes {
                return Err(ConfigError::new(format!("{key}.{end}"), format!("node {node} does not exist (nodes 0 to {})", nodes - 1)));
            }
        }
        if self.a == self.b {
            return Err(ConfigError::new(format!("{key}.b"), "a link joins two different nodes"));
        }
        positive(&format!("{key}.rate_mbps"), self.rate_mbps)?;
        non_negative(&format!("{key}.delay_ms"), self.delay_ms)?;
        packets(&format!("{key}.queue_packets"), self.queue_packets)?;
        probability(&format!("{key}.loss_rate"), self.loss_rate)?;
        match &self.queue {
            Some(queue) => queue.validate(&format!("{key}.queue")),
            None => Ok(()),
        }
    }
}
