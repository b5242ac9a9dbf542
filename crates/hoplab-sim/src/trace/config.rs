//! `[trace]`: which frames a packet trace holds. The trace is written only
//! when a run is given a path (`hoplab run --pcap PATH`, `hoplab.run(...,
//! pcap=PATH)`); these keys select what goes into it.

use crate::config::ConfigError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[trace]`: what a packet trace (`--pcap PATH`) holds. Without a path
/// nothing is traced and these keys have no effect. Tracing changes no
/// result: this section is left out of `config_hash`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TraceConfig {
    /// The nodes whose transmissions are traced (and, with `receptions`,
    /// whose receptions get a file each); empty: every node.
    pub nodes: Vec<u32>,
    /// Trace frames from this simulated time on, seconds (a frame counts
    /// at the start of its transmission, a reception at its end).
    pub start_s: f64,
    /// Trace frames before this simulated time, seconds; none: to the end
    /// of the run.
    pub stop_s: Option<f64>,
    /// Also write one receive trace per traced node, `<stem>.rx<N>.pcap`
    /// beside `PATH`: every frame the node's PHY decoded, and those it
    /// locked onto but lost (radiotap flag "bad FCS").
    pub receptions: bool,
    /// Write each frame whole, application payload included (as zero
    /// bytes). Off: a DATA frame is cut after its headers (IPv4, TCP / UDP,
    /// AODV), so a record's captured length is below its length.
    pub payload: bool,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig { nodes: Vec::new(), start_s: 0.0, stop_s: None, receptions: false, payload: false }
    }
}

impl TraceConfig {
    /// Range checks: the nodes exist (each listed once), the window is a
    /// window and starts within the run.
    pub fn validate(&self, nodes: u32, duration_s: f64) -> Result<(), ConfigError> {
        for (i, &node) in self.nodes.iter().enumerate() {
            let key = format!("trace.nodes[{i}]");
            if node >= nodes {
                return Err(ConfigError::new(key, format!("node {node} does not exist (nodes 0 to {})", nodes.saturating_sub(1))));
            }
            if self.nodes[..i].contains(&node) {
                return Err(ConfigError::new(key, format!("node {node} is listed twice")));
            }
        }
        if !(self.start_s >= 0.0 && self.start_s < duration_s) {
            return Err(ConfigError::new(
                "trace.start_s",
                format!("must be >= 0 and below duration_s ({duration_s}), got {}", self.start_s),
            ));
        }
        if let Some(stop) = self.stop_s {
            if !(stop > self.start_s && stop.is_finite()) {
                return Err(ConfigError::new("trace.stop_s", format!("must be after start_s ({}), got {stop}", self.start_s)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_key() {
        let ok = TraceConfig { nodes: vec![0, 4], start_s: 1.0, stop_s: Some(2.0), ..Default::default() };
        assert_eq!(ok.validate(5, 10.0), Ok(()));
        let missing = TraceConfig { nodes: vec![0, 5], ..Default::default() };
        assert_eq!(missing.validate(5, 10.0).unwrap_err().key, "trace.nodes[1]");
        let twice = TraceConfig { nodes: vec![3, 3], ..Default::default() };
        assert!(twice.validate(5, 10.0).unwrap_err().message.contains("twice"));
        let late = TraceConfig { start_s: 10.0, ..Default::default() };
        assert_eq!(late.validate(5, 10.0).unwrap_err().key, "trace.start_s");
        let negative = TraceConfig { start_s: -1.0, ..Default::default() };
        assert_eq!(negative.validate(5, 10.0).unwrap_err().key, "trace.start_s");
        let empty = TraceConfig { start_s: 2.0, stop_s: Some(2.0), ..Default::default() };
        assert_eq!(empty.validate(5, 10.0).unwrap_err().key, "trace.stop_s");
    }
}
