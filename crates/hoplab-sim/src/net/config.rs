//! `[routing]`: the routing protocol and its parameters.

use crate::config::ConfigError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most nodes DSR takes: its source routes hold 16-bit addresses
/// (`wire::dsr::Path`), 0xFFFF excluded.
pub const MAX_DSR_NODES: u32 = 65_535;

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
    /// DSR (RFC 4728) with ns-2's CMU DSR choices (docs/dsr.md).
    Dsr,
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
    /// DSR's parameters (RFC 4728 section 9) and options. Only with
    /// `protocol = "dsr"`, where the normalised scenario fills in every default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dsr: Option<crate::net::dsr::DsrConfig>,
}

impl RoutingConfig {
    /// Range checks and the cross-section rules: static routes cannot
    /// follow moving nodes, AODV and DSR run over 802.11 only (`wired`: the
    /// topology has wired links), DSR's 16-bit addresses take at most
    /// 65,535 nodes.
    pub fn validate(&self, wired: bool, moving: bool, nodes: u32) -> Result<(), ConfigError> {
        if self.aodv.is_some() && self.protocol != RoutingProtocol::Aodv {
            return Err(ConfigError::new("routing.aodv", "only for protocol = \"aodv\""));
        }
        if self.dsr.is_some() && self.protocol != RoutingProtocol::Dsr {
            return Err(ConfigError::new("routing.dsr", "only for protocol = \"dsr\""));
        }
        match self.protocol {
            RoutingProtocol::Static => {
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
            RoutingProtocol::Dsr => {
                if let Some(dsr) = &self.dsr {
                    dsr.validate()?;
                }
                if wired {
                    return Err(ConfigError::new("routing.protocol", "dsr runs over 802.11 only; wired links need protocol = \"static\""));
                }
                if nodes > MAX_DSR_NODES {
                    return Err(ConfigError::new(
                        "routing.protocol",
                        format!("dsr takes at most {MAX_DSR_NODES} nodes (16-bit addresses in source routes), got {nodes}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Fill AODV's or DSR's parameters when it is the protocol, so that
    /// the normalised scenario names every value used.
    pub fn normalize(&mut self) {
        if self.protocol == RoutingProtocol::Aodv && self.aodv.is_none() {
            self.aodv = Some(Default::default());
        }
        if self.protocol == RoutingProtocol::Dsr && self.dsr.is_none() {
            self.dsr = Some(Default::default());
        }
    }

    /// What the protocol will hold at most in a network of `nodes`, before
    /// it runs (`estimate.rs`): what it allocates as it learns.
    pub fn memory_bound(&self, nodes: u64) -> Vec<crate::engine::Holding> {
        self.dsr.as_ref().map_or_else(Vec::new, |dsr| dsr.memory_bound(nodes))
    }

    /// The period of the broadcasts every node sends on its own (AODV's
    /// HELLOs), if any: the estimate's events.
    pub fn periodic_broadcast_interval(&self) -> Option<crate::time::SimDuration> {
        self.aodv.as_ref().filter(|a| a.hello).map(|a| a.hello_interval_s)
    }

    /// Whether the MAC hands the protocol unicast frames for other nodes
    /// (DSR's tap: ns-2 installs it on the MAC).
    pub fn promiscuous(&self) -> bool {
        self.dsr.as_ref().is_some_and(|d| d.promiscuous)
    }

    /// Whether the interface queues serve TCP ACKs ahead of data (DSR over
    /// ns-2's `CMUPriQueue`), and the key that asks for it.
    pub fn acks_first_queue(&self) -> Option<&'static str> {
        self.dsr
            .as_ref()
            .is_some_and(|d| d.interface_queue == crate::net::dsr::config::InterfaceQueue::CmuPriQueue)
            .then_some("routing.dsr.interface_queue = \"cmu_pri_queue\"")
    }
}
