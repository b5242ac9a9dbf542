//! `[routing]`: the routing protocol and its parameters.

use crate::config::ConfigError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A routing protocol (`routing.protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoutingProtocol {
    /// Shortest paths (hop count) over the decodable-link graph, computed
    /// once from the initial positions.
    #[default]
    Static,
    /// AODV (RFC 3561) with link-layer feedback, as ns-2 runs it.
    Aodv,
}

/// `[routing]`: the routing protocol of every node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingConfig {
    /// The routing protocol.
    pub protocol: RoutingProtocol,
    /// AODV's parameters (RFC 3561 section 10) and options. Only with
    /// `protocol = "aodv"`, where the normalised scenario fills in every default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aodv: Option<crate::net::aodv::AodvConfig>,
}

impl RoutingConfig {
    /// Range checks and the cross-section rules: static routes cannot
    /// follow moving nodes, AODV runs over 802.11 only (`wired`: the
    /// topology has wired links).
    pub fn validate(&self, wired: bool, moving: bool) -> Result<(), ConfigError> {
        match self.protocol {
            RoutingProtocol::Static => {
                if self.aodv.is_some() {
                    return Err(ConfigError::new("routing.aodv", "only for protocol = \"aodv\""));
                }
                if moving {
                    return Err(ConfigError::new(
                        "routing.protocol",
                        "static routes are computed once from the initial positions: moving nodes need protocol = \"aodv\"",
                    ));
                }
            }
            RoutingProtocol::Aodv => {
                if let Some(aodv) = &self.aodv {
                    aodv.validate()?;
                }
                if wired {
                    return Err(ConfigError::new("routing.protocol", "aodv runs over 802.11 only; wired links need protocol = \"static\""));
                }
            }
        }
        Ok(())
    }

    /// Fill AODV's parameters when it is the protocol, so that the
    /// normalised scenario names every value used.
    pub fn normalize(&mut self) {
        if self.protocol == RoutingProtocol::Aodv && self.aodv.is_none() {
            self.aodv = Some(Default::default());
        }
    }
}
