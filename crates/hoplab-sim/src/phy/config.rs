//! `[radio]`: the radio and PHY parameters of every node (one radio
//! configuration for all, as ns-2's `WirelessPhy`).

use super::propagation::RadioModel;
use super::reception::dsss::DsssRate;
pub use super::reception::sinr::SinrConfig;
use crate::config::{non_negative, positive, ConfigError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a node decides that it receives a frame (`radio.reception`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reception {
    /// ns-2's thresholds: a frame is decoded above the receive threshold,
    /// sensed above the carrier-sense threshold, and survives an
    /// overlapping frame `capture_threshold_db` weaker.
    Threshold,
    /// ns-3's YANS receiver: the sum of all concurrent signals plus
    /// thermal noise, preamble detection, the 802.11b DSSS error-rate
    /// curves over each interference chunk, energy carrier sense
    /// (`[radio.sinr]`; docs/sinr.md).
    Sinr,
}

/// The path-loss model (`radio.propagation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Propagation {
    /// Friis below the crossover distance, two-ray ground above (ns-2).
    TwoRayGround,
    /// Friis everywhere.
    FreeSpace,
}

/// `[radio]`: the radio and PHY of every node. Defaults are ns-2's (a
/// 914 MHz WaveLAN: 250 m decoding and 550 m carrier-sense range) and the
/// DSSS PHY of IEEE 802.11-2016 clause 15 with the long preamble.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RadioConfig {
    /// How a node decides that it receives a frame.
    pub reception: Reception,
    /// The path-loss model.
    pub propagation: Propagation,
    /// Rate of the DATA frame body (MAC header + payload + FCS), Mb/s.
    pub data_rate_mbps: f64,
    /// Rate of control frames (RTS, CTS, ACK) and broadcast frames, Mb/s.
    pub basic_rate_mbps: f64,
    /// PLCP preamble + header duration, microseconds; 192 for the DSSS long
    /// preamble (144 + 48 bits at 1 Mb/s).
    pub plcp_overhead_us: f64,
    /// Transmit power, watts (ns-2's Pt_).
    pub tx_power_w: f64,
    /// Carrier frequency, Hz (ns-2's freq_: 914 MHz).
    pub frequency_hz: f64,
    /// Antenna height above the ground, metres (two-ray ground's ht and hr).
    pub antenna_height_m: f64,
    /// ns-2's system loss factor L, >= 1 (1: none).
    pub system_loss: f64,
    /// Decoding range, metres: sets the receive threshold to the power
    /// received at this distance. Give it or `rx_threshold_w` (both only if
    /// they agree); the normalised scenario names both, each computed from
    /// the other. Default: the threshold's 250 m.
    pub tx_range_m: Option<f64>,
    /// Carrier-sense range, metres (>= the decoding range): sets the
    /// carrier-sense threshold likewise. Give it or `cs_threshold_w`;
    /// default: the threshold's 550 m.
    pub cs_range_m: Option<f64>,
    /// Receive threshold, watts (ns-2 RXThresh_): frames received at or
    /// above it can be decoded. Default 3.652e-10 W, 250 m with the default
    /// radio.
    pub rx_threshold_w: Option<f64>,
    /// Carrier-sense threshold, watts (ns-2 CSThresh_): frames below it are
    /// not felt at all. Default 1.559e-11 W, 550 m with the default radio.
    pub cs_threshold_w: Option<f64>,
    /// Capture threshold, dB (ns-2 CPThresh_): a frame being received
    /// survives an overlapping frame at least this much weaker.
    pub capture_threshold_db: f64,
    /// The SINR receiver's keys (`radio.reception = "sinr"` only; every
    /// key filled in the normalised scenario).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sinr: Option<SinrConfig>,
}

impl Default for RadioConfig {
    fn default() -> Self {
        RadioConfig {
            reception: Reception::Threshold,
            propagation: Propagation::TwoRayGround,
            data_rate_mbps: 2.0,
            basic_rate_mbps: 2.0,
            plcp_overhead_us: 192.0,
            tx_power_w: 0.281_838_15,
            frequency_hz: 914e6,
            antenna_height_m: 1.5,
            system_loss: 1.0,
            tx_range_m: None,
            cs_range_m: None,
            rx_threshold_w: None,
            cs_threshold_w: None,
            capture_threshold_db: 10.0,
            sinr: None,
        }
    }
}

impl RadioConfig {
    /// Range checks; errors name `radio.<key>`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        positive("radio.data_rate_mbps", self.data_rate_mbps)?;
        positive("radio.basic_rate_mbps", self.basic_rate_mbps)?;
        non_negative("radio.plcp_overhead_us", self.plcp_overhead_us)?;
        positive("radio.tx_power_w", self.tx_power_w)?;
        positive("radio.frequency_hz", self.frequency_hz)?;
        positive("radio.antenna_height_m", self.antenna_height_m)?;
        if !(self.system_loss >= 1.0 && self.system_loss.is_finite()) {
            return Err(ConfigError::new("radio.system_loss", "must be >= 1"));
        }
        non_negative("radio.capture_threshold_db", self.capture_threshold_db)?;
        match self.reception {
            Reception::Threshold if self.sinr.is_some() => {
                return Err(ConfigError::new("radio.sinr", "only with radio.reception = \"sinr\""));
            }
            Reception::Threshold => {}
            Reception::Sinr => self.validate_sinr()?,
        }
        for (key, v) in [
            ("radio.tx_range_m", self.tx_range_m),
            ("radio.cs_range_m", self.cs_range_m),
            ("radio.rx_threshold_w", self.rx_threshold_w),
            ("radio.cs_threshold_w", self.cs_threshold_w),
        ] {
            if let Some(v) = v {
                positive(key, v)?;
            }
        }
        // Both a range and its threshold: they must name the same power
        // (as the normalised scenario does). Relative 1e-9: a range printed
        // and read back agrees to the last few bits.
        let model = RadioModel::from_config(&RadioConfig { tx_range_m: None, cs_range_m: None, ..self.clone() });
        for (range_key, range, threshold_key, threshold) in [
            ("radio.tx_range_m", self.tx_range_m, "rx_threshold_w", self.rx_threshold_w),
            ("radio.cs_range_m", self.cs_range_m, "cs_threshold_w", self.cs_threshold_w),
        ] {
            if let (Some(range), Some(threshold)) = (range, threshold) {
                let at_range = model.received_power_w(range);
                if (at_range - threshold).abs() > 1e-9 * threshold {
                    return Err(ConfigError::new(
                        range_key,
                        format!(
                            "{range} m gives a threshold of {at_range:e} W, but {threshold_key} is {threshold:e} W ({} m); give one of the two",
                            model.range_for_threshold_m(threshold)
                        ),
                    ));
                }
            }
        }
        if model.cs_threshold_w > model.rx_threshold_w {
            return Err(ConfigError::new(
                if self.cs_range_m.is_some() { "radio.cs_range_m" } else { "radio.cs_threshold_w" },
                format!(
                    "carrier sense must reach at least as far as decoding: {} m (cs_threshold_w {:e} W) against {} m (rx_threshold_w {:e} W)",
                    model.cs_range_m(),
                    model.cs_threshold_w,
                    model.tx_range_m(),
                    model.rx_threshold_w
                ),
            ));
        }
        Ok(())
    }

    /// The SINR receiver's own checks: DSSS rates, the long or short DSSS
    /// PLCP, and `[radio.sinr]`'s ranges.
    fn validate_sinr(&self) -> Result<(), ConfigError> {
        for (key, rate) in [("radio.data_rate_mbps", self.data_rate_mbps), ("radio.basic_rate_mbps", self.basic_rate_mbps)] {
            if DsssRate::from_mbps(rate).is_none() {
                return Err(ConfigError::new(
                    key,
                    format!("with radio.reception = \"sinr\" must be a DSSS rate (1, 2, 5.5 or 11), got {rate}"),
                ));
            }
        }
        // IEEE 802.11-2016 15.2.2 / 16.2.2: long PLCP 144 + 48 us, short 72 + 24 us.
        let preamble_us = match self.plcp_overhead_us {
            x if x == 192.0 => 144.0,
            x if x == 96.0 => 72.0,
            x => {
                return Err(ConfigError::new(
                    "radio.plcp_overhead_us",
                    format!("with radio.reception = \"sinr\" must be 192 (long DSSS preamble) or 96 (short), got {x}"),
                ))
            }
        };
        self.sinr.clone().unwrap_or_default().validate(preamble_us)
    }

    /// Name the effective ranges and thresholds (each from the other, or
    /// the defaults), so that the normalised scenario shows what the radio
    /// uses; the SINR receiver's keys all filled. Call after
    /// [`validate`](Self::validate).
    pub fn normalize(&mut self) {
        let model = RadioModel::from_config(self);
        self.rx_threshold_w = Some(model.rx_threshold_w);
        self.cs_threshold_w = Some(model.cs_threshold_w);
        self.tx_range_m = Some(model.tx_range_m());
        self.cs_range_m = Some(model.cs_range_m());
        if self.reception == Reception::Sinr {
            let mut sinr = self.sinr.clone().unwrap_or_default();
            let dbm = super::reception::sinr::config::w_to_dbm;
            sinr.preamble_detection_min_rssi_dbm.get_or_insert(dbm(model.rx_threshold_w));
            sinr.cca_sensitivity_dbm.get_or_insert(dbm(model.cs_threshold_w));
            self.sinr = Some(sinr);
        }
    }
}
