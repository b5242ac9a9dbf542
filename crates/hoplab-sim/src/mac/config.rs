//! `[mac]`: the DCF's parameters.

use crate::config::{at_least, positive, ConfigError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[mac]`: the DCF of every node (IEEE 802.11-2016 clause 10.3); defaults
/// are the DSSS PHY's values, as ns-2 uses them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MacConfig {
    /// RTS/CTS precedes a unicast DATA frame whose MPDU is longer than this;
    /// 0 means every unicast DATA frame (dot11RTSThreshold).
    pub rts_threshold_bytes: u32,
    /// dot11ShortRetryLimit: attempts of an RTS (or of a frame sent without RTS).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: attempts of a DATA frame sent after a CTS.
    pub long_retry_limit: u32,
    /// Interface queue capacity, packets (drop-tail).
    pub queue_packets: u32,
    /// Slot time, microseconds (DSSS: 20); DIFS is SIFS + 2 slots.
    pub slot_us: f64,
    /// SIFS, microseconds (DSSS: 10).
    pub sifs_us: f64,
    /// aCWmin, slots: the contention window of a first attempt, 2^k - 1
    /// (DSSS: 31).
    pub cw_min: u32,
    /// aCWmax, slots: the window doubles per retry up to this, 2^k - 1 and
    /// >= `cw_min` (DSSS: 1023).
    pub cw_max: u32,
    /// Answer an RTS with a CTS even while the NAV is set, as ns-2's
    /// `Mac802_11::recvRTS` does. Off by default: IEEE 802.11-2016 10.3.2.6
    /// sends the CTS only "if the NAV at the STA receiving the RTS frame
    /// indicates that the medium is idle".
    pub cts_ignores_nav: bool,
}

impl Default for MacConfig {
    fn default() -> Self {
        MacConfig {
            rts_threshold_bytes: 0,
            short_retry_limit: 7,
            long_retry_limit: 4,
            queue_packets: 50,
            slot_us: 20.0,
            sifs_us: 10.0,
            cw_min: 31,
            cw_max: 1023,
            cts_ignores_nav: false,
        }
    }
}

impl MacConfig {
    /// Range checks; errors name `mac.<key>`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        at_least("mac.short_retry_limit", self.short_retry_limit, 1)?;
        at_least("mac.long_retry_limit", self.long_retry_limit, 1)?;
        at_least("mac.queue_packets", self.queue_packets, 1)?;
        positive("mac.slot_us", self.slot_us)?;
        positive("mac.sifs_us", self.sifs_us)?;
        if !(self.cw_min >= 1 && (self.cw_min + 1).is_power_of_two()) {
            return Err(ConfigError::new("mac.cw_min", format!("must be 2^k - 1 (e.g. 15, 31), got {}", self.cw_min)));
        }
        if !(self.cw_max >= self.cw_min && (self.cw_max + 1).is_power_of_two()) {
            return Err(ConfigError::new("mac.cw_max", format!("must be 2^k - 1 and >= cw_min ({}), got {}", self.cw_min, self.cw_max)));
        }
        Ok(())
    }
}
