//! `[semitcp]`: semi-TCP's parameters (SPEC.md sections 2-3), its
//! transport's (the reserved buffer, Algorithm 1) and its MACs' (the
//! hop-by-hop rules). The transport also uses the RTO settings of `[tcp]`.

use crate::config::{at_least, ConfigError};
use crate::mac::hop_control::HopControlConfig;
use crate::transport::semitcp::rate_control::RateControlConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[semitcp]`: the settings of semi-TCP flows (seed 000): the source's
/// reserved buffer, the hop-by-hop congestion control in the MACs, the
/// binary-search rate control. Its transport uses the RTO settings of `[tcp]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SemiTcpConfig {
    /// R: places in its MAC's queue that a semi-TCP source keeps for its
    /// own packets, packets (best: 1).
    pub reserved_packets: u32,
    /// Run the hop-by-hop congestion control (`[semitcp.mac]`) in every
    /// node's MAC when a flow is semi-TCP; off: the MACs are plain DCF.
    pub hop_control: bool,
    /// The hop-by-hop control's rules.
    pub mac: HopControlConfig,
    /// The parameters of the binary-search rate control (Algorithm 1), used
    /// by flows with `rate_control = "binary_search"`.
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
