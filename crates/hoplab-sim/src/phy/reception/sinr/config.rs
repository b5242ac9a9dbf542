//! `[radio.sinr]`: the keys of the SINR receiver (`radio.reception =
//! "sinr"`), each with ns-3's attribute it mirrors (ns-3 3.44,
//! src/wifi/model). Two defaults differ from ns-3's on purpose: the
//! preamble detection's minimum RSSI and the CCA sensitivity are the
//! powers received at the radio's decoding and carrier-sense ranges
//! (`radio.rx_threshold_w`, `radio.cs_threshold_w`: 250 m and 550 m with
//! the default radio), so that the ranges of the papers hold with either
//! reception model (docs/sinr.md).

use crate::config::{non_negative, positive, ConfigError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[radio.sinr]`: reception decided by the signal to interference-plus-
/// noise ratio (only with `radio.reception = "sinr"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SinrConfig {
    /// Receiver noise figure, dB (ns-3 `WifiPhy::RxNoiseFigure`, 7): the
    /// noise floor is k T B times this (T = 290 K).
    pub noise_figure_db: f64,
    /// Noise bandwidth B, MHz: 22, the DSSS channel (ns-3 uses the
    /// channel width of the DSSS PHY entity, 22 MHz).
    pub noise_bandwidth_mhz: f64,
    /// Receive sensitivity, dBm (ns-3 `WifiPhy::RxSensitivity`, -101;
    /// YansWifiChannel drops weaker signals): a signal received below it
    /// does not exist for the node, not even as interference. It sets how
    /// far the channel delivers signals.
    pub rx_sensitivity_dbm: f64,
    /// Preamble detection: minimum received power, dBm
    /// (ThresholdPreambleDetectionModel `MinimumRssi`; ns-3's default is
    /// -82). Default: `radio.rx_threshold_w` in dBm (-64.37 dBm, 250 m with
    /// the default radio). A frame below it is never detected, so never
    /// decoded: it is only interference and energy.
    pub preamble_detection_min_rssi_dbm: Option<f64>,
    /// Preamble detection: minimum SNR, dB (ThresholdPreambleDetectionModel
    /// `Threshold`, 4), measured against noise and interference at the end
    /// of the detection window.
    pub preamble_detection_threshold_db: f64,
    /// Preamble detection window, microseconds (ns-3
    /// `WifiPhy::PreambleDetectionDuration`, 4): the node decides whether
    /// it detected a frame this long after the frame's start; until then
    /// the frame does not make the medium busy.
    pub preamble_detection_us: f64,
    /// Carrier sense of 802.11 signals, dBm (ns-3 `WifiPhy::CcaSensitivity`;
    /// ns-3's default is -82): after a frame the node did not lock onto (or
    /// after the one it received), the medium stays busy while the total
    /// received energy is at least this. Default: `radio.cs_threshold_w` in
    /// dBm (-78.07 dBm, 550 m with the default radio).
    pub cca_sensitivity_dbm: Option<f64>,
    /// Energy detection threshold, dBm (ns-3 `WifiPhy::CcaEdThreshold`,
    /// -62): where the energy of the signals sensed stays below the CCA
    /// sensitivity, the medium is still busy while it reaches this. With
    /// the default (above the sensitivity) it decides nothing for 802.11
    /// signals, as in ns-3.
    pub cca_ed_threshold_dbm: f64,
    /// Frame capture (ns-3 `SimpleFrameCaptureModel`; ns-3 installs none by
    /// default): a frame arriving within `capture_window_us` of the
    /// detection of the frame being received, and `capture_margin_db`
    /// stronger, replaces it.
    pub frame_capture: bool,
    /// Frame capture margin, dB (SimpleFrameCaptureModel `Margin`, 5).
    pub capture_margin_db: f64,
    /// Frame capture window, microseconds after the preamble detection
    /// (SimpleFrameCaptureModel `CaptureWindow`, 16).
    pub capture_window_us: f64,
}

impl Default for SinrConfig {
    fn default() -> Self {
        SinrConfig {
            noise_figure_db: 7.0,
            noise_bandwidth_mhz: 22.0,
            rx_sensitivity_dbm: -101.0,
            preamble_detection_min_rssi_dbm: None,
            preamble_detection_threshold_db: 4.0,
            preamble_detection_us: 4.0,
            cca_sensitivity_dbm: None,
            cca_ed_threshold_dbm: -62.0,
            frame_capture: false,
            capture_margin_db: 5.0,
            capture_window_us: 16.0,
        }
    }
}

/// Watts of `dbm`.
pub fn dbm_to_w(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0) / 1000.0
}

/// dBm of `watts`.
pub fn w_to_dbm(watts: f64) -> f64 {
    10.0 * (watts * 1000.0).log10()
}

/// A power in dBm or a ratio in dB: -200 to 100 (1e-23 W to 10 MW: far
/// beyond any radio; the bound keeps the channel's reach finite).
fn finite(key: &str, v: f64) -> Result<(), ConfigError> {
    if (-200.0..=100.0).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be a number from -200 to 100, got {v}")))
    }
}

impl SinrConfig {
    /// Range checks; errors name `radio.sinr.<key>`. `plcp_preamble_us`:
    /// the PLCP preamble's duration (the detection window must end in it).
    pub fn validate(&self, plcp_preamble_us: f64) -> Result<(), ConfigError> {
        non_negative("radio.sinr.noise_figure_db", self.noise_figure_db)?;
        finite("radio.sinr.noise_figure_db", self.noise_figure_db)?;
        positive("radio.sinr.noise_bandwidth_mhz", self.noise_bandwidth_mhz)?;
        finite("radio.sinr.rx_sensitivity_dbm", self.rx_sensitivity_dbm)?;
        finite("radio.sinr.preamble_detection_threshold_db", self.preamble_detection_threshold_db)?;
        finite("radio.sinr.cca_ed_threshold_dbm", self.cca_ed_threshold_dbm)?;
        for (key, v) in [
            ("radio.sinr.preamble_detection_min_rssi_dbm", self.preamble_detection_min_rssi_dbm),
            ("radio.sinr.cca_sensitivity_dbm", self.cca_sensitivity_dbm),
        ] {
            if let Some(v) = v {
                finite(key, v)?;
            }
        }
        positive("radio.sinr.preamble_detection_us", self.preamble_detection_us)?;
        if self.preamble_detection_us >= plcp_preamble_us {
            return Err(ConfigError::new(
                "radio.sinr.preamble_detection_us",
                format!("must end within the PLCP preamble ({plcp_preamble_us} us), got {}", self.preamble_detection_us),
            ));
        }
        non_negative("radio.sinr.capture_margin_db", self.capture_margin_db)?;
        finite("radio.sinr.capture_margin_db", self.capture_margin_db)?;
        non_negative("radio.sinr.capture_window_us", self.capture_window_us)?;
        if self.capture_window_us > 1e6 {
            return Err(ConfigError::new(
                "radio.sinr.capture_window_us",
                format!("must be at most 1e6 (1 s), got {}", self.capture_window_us),
            ));
        }
        if self.noise_bandwidth_mhz > 1e6 {
            return Err(ConfigError::new(
                "radio.sinr.noise_bandwidth_mhz",
                format!("must be at most 1e6, got {}", self.noise_bandwidth_mhz),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::config::{RadioConfig, Reception};

    fn check(sinr: SinrConfig) -> Result<(), ConfigError> {
        RadioConfig { reception: Reception::Sinr, sinr: Some(sinr), ..RadioConfig::default() }.validate()
    }

    #[test]
    fn bad_values_name_their_key() {
        let bad = [
            (SinrConfig { noise_figure_db: -1.0, ..SinrConfig::default() }, "radio.sinr.noise_figure_db"),
            (SinrConfig { rx_sensitivity_dbm: f64::NAN, ..SinrConfig::default() }, "radio.sinr.rx_sensitivity_dbm"),
            (SinrConfig { preamble_detection_us: 150.0, ..SinrConfig::default() }, "radio.sinr.preamble_detection_us"),
            (SinrConfig { cca_sensitivity_dbm: Some(500.0), ..SinrConfig::default() }, "radio.sinr.cca_sensitivity_dbm"),
            (SinrConfig { capture_window_us: 1e300, ..SinrConfig::default() }, "radio.sinr.capture_window_us"),
        ];
        for (sinr, key) in bad {
            assert_eq!(check(sinr).unwrap_err().key, key);
        }
        assert!(check(SinrConfig::default()).is_ok());
        let e = RadioConfig { reception: Reception::Sinr, data_rate_mbps: 3.0, ..RadioConfig::default() }.validate().unwrap_err();
        assert_eq!(e.key, "radio.data_rate_mbps");
        let e = RadioConfig { reception: Reception::Sinr, plcp_overhead_us: 100.0, ..RadioConfig::default() }.validate().unwrap_err();
        assert_eq!(e.key, "radio.plcp_overhead_us");
        let e = RadioConfig { sinr: Some(SinrConfig::default()), ..RadioConfig::default() }.validate().unwrap_err();
        assert_eq!(e.key, "radio.sinr");
    }

    #[test]
    fn dbm_round_trips() {
        assert!((w_to_dbm(dbm_to_w(-64.37)) + 64.37).abs() < 1e-12);
        assert!((dbm_to_w(30.0) - 1.0).abs() < 1e-12);
    }
}
