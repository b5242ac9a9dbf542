//! `[semitcp]`: semi-TCP's parameters (SPEC.md sections 2-3), its
//! transport's (the reserved buffer, Algorithm 1) and its MACs' (the
//! hop-by-hop rules). The transport also uses the RTO settings of `[tcp]`.

use crate::config::{at_least, ConfigError};
use crate::mac::hop_control::HopControlConfig;
use crate::transport::semitcp::rate_control::RateControlConfig;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SemiTcpConfig {
    /// R: places the source's MAC keeps for its own packets (best: 1).
    pub reserved_packets: u32,
    /// Run the hop-by-hop control in every MAC when a flow is semi-TCP.
    pub hop_control: bool,
    /// The hop-by-hop control's rules.
    pub mac: HopControlConfig,
    /// Algorithm 1's parameters.
    pub rate_control: RateControlConfig,
}

impl Default for SemiTcpConfig {
    fn default() -> Self {
        SemiTcpConfig { reserved_packets: 1, hop_control: true, mac: Default::default(), rate_control: Default::default() }
    }
}

impl SemiTcpConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        at_least("semitcp.reserved_packets", self.reserved_packets, 1)?;
        self.mac.validate("semitcp.mac")?;
        self.rate_control.validate("semitcp.rate_control")
    }
}
