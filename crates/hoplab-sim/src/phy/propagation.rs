//! Propagation loss: free space (Friis) and two-ray ground, as ns-2 computes
//! them (ns-2 `FreeSpace::Friis`, `TwoRayGround::Pr`), and the inverse used to
//! turn a range into a threshold.

use super::config::{Propagation, RadioConfig};

/// Speed of light, m/s.
pub const SPEED_OF_LIGHT_MPS: f64 = 299_792_458.0;

/// ns-2's RXThresh_ default: 250 m with the default radio (two-ray ground,
/// 0.2818 W, 914 MHz, 1.5 m antennas).
pub const DEFAULT_RX_THRESHOLD_W: f64 = 3.652e-10;
/// ns-2's CSThresh_ default: 550 m with the default radio.
pub const DEFAULT_CS_THRESHOLD_W: f64 = 1.559e-11;

/// The radio of every node (ns-2: one `WirelessPhy` configuration for all).
#[derive(Debug, Clone)]
pub struct RadioModel {
    pub propagation: Propagation,
    pub tx_power_w: f64,
    pub wavelength_m: f64,
    pub antenna_height_m: f64,
    pub system_loss: f64,
    /// Frames received at or above this power can be decoded (ns-2 RXThresh_).
    pub rx_threshold_w: f64,
    /// Frames below this power do not exist for the receiver (ns-2 CSThresh_).
    pub cs_threshold_w: f64,
    /// Power ratio for capture (ns-2 CPThresh_, 10 dB -> 10.0).
    pub capture_ratio: f64,
    /// Frames below this power do not reach the node at all: the
    /// carrier-sense threshold (threshold model), or the receive
    /// sensitivity (SINR model, `radio.sinr.rx_sensitivity_dbm`).
    pub reach_threshold_w: f64,
}

impl RadioModel {
    pub fn from_config(radio: &RadioConfig) -> RadioModel {
        let mut model = RadioModel {
            propagation: radio.propagation,
            tx_power_w: radio.tx_power_w,
            wavelength_m: SPEED_OF_LIGHT_MPS / radio.frequency_hz,
            antenna_height_m: radio.antenna_height_m,
            system_loss: radio.system_loss,
            rx_threshold_w: DEFAULT_RX_THRESHOLD_W,
            cs_threshold_w: DEFAULT_CS_THRESHOLD_W,
            capture_ratio: 10f64.powf(radio.capture_threshold_db / 10.0),
            reach_threshold_w: DEFAULT_CS_THRESHOLD_W,
        };
        // A threshold given wins over a range: the normalised scenario
        // names both, the threshold computed from the range given.
        model.rx_threshold_w = match (radio.rx_threshold_w, radio.tx_range_m) {
            (Some(w), _) => w,
            (None, Some(range)) => model.received_power_w(range),
            (None, None) => DEFAULT_RX_THRESHOLD_W,
        };
        model.cs_threshold_w = match (radio.cs_threshold_w, radio.cs_range_m) {
            (Some(w), _) => w,
            (None, Some(range)) => model.received_power_w(range),
            (None, None) => DEFAULT_CS_THRESHOLD_W,
        };
        model.reach_threshold_w = super::reception::reach_threshold_w(radio, &model);
        model
    }

    /// ns-2's crossover distance 4 pi ht hr / lambda: below it two-ray ground
    /// falls back to Friis (about 86 m at 914 MHz and 1.5 m antennas).
    pub fn crossover_distance_m(&self) -> f64 {
        4.0 * std::f64::consts::PI * self.antenna_height_m * self.antenna_height_m / self.wavelength_m
    }

    fn friis_w(&self, distance_m: f64) -> f64 {
        // Pr = Pt Gt Gr lambda^2 / ((4 pi)^2 d^2 L), unit gains.
        let four_pi_d = 4.0 * std::f64::consts::PI * distance_m;
        self.tx_power_w * self.wavelength_m * self.wavelength_m / (four_pi_d * four_pi_d * self.system_loss)
    }

    fn two_ray_w(&self, distance_m: f64) -> f64 {
        // Pr = Pt Gt Gr ht^2 hr^2 / (d^4 L), unit gains.
        let h2 = self.antenna_height_m * self.antenna_height_m;
        self.tx_power_w * h2 * h2 / (distance_m.powi(4) * self.system_loss)
    }

    /// Received power at `distance_m` from a transmitter.
    pub fn received_power_w(&self, distance_m: f64) -> f64 {
        // ns-2 clamps nothing at d = 0; we keep co-located nodes finite.
        let d = distance_m.max(0.01);
        match self.propagation {
            Propagation::FreeSpace => self.friis_w(d),
            Propagation::TwoRayGround => {
                if d < self.crossover_distance_m() {
                    self.friis_w(d)
                } else {
                    self.two_ray_w(d)
                }
            }
        }
    }

    /// The largest distance at which the received power still reaches
    /// `threshold_w` (the inverse of [`Self::received_power_w`]).
    pub fn range_for_threshold_m(&self, threshold_w: f64) -> f64 {
        let friis_d = (self.tx_power_w / (threshold_w * self.system_loss)).sqrt() * self.wavelength_m / (4.0 * std::f64::consts::PI);
        match self.propagation {
            Propagation::FreeSpace => friis_d,
            Propagation::TwoRayGround => {
                if friis_d < self.crossover_distance_m() {
                    friis_d
                } else {
                    let h2 = self.antenna_height_m * self.antenna_height_m;
                    (self.tx_power_w * h2 * h2 / (threshold_w * self.system_loss)).powf(0.25)
                }
            }
        }
    }

    /// The carrier-sense range: the farthest a frame is felt at all.
    pub fn cs_range_m(&self) -> f64 {
        self.range_for_threshold_m(self.cs_threshold_w)
    }

    /// The farthest a frame reaches a node at all (the channel's reach):
    /// the carrier-sense range for the threshold model, the receive
    /// sensitivity's range for the SINR model.
    pub fn reach_range_m(&self) -> f64 {
        self.range_for_threshold_m(self.reach_threshold_w)
    }

    pub fn tx_range_m(&self) -> f64 {
        self.range_for_threshold_m(self.rx_threshold_w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns2_default() -> RadioModel {
        RadioModel::from_config(&RadioConfig::default())
    }

    #[test]
    fn ns2_thresholds_give_250_and_550_metres() {
        // ns-2's threshold tool: RXThresh 3.652e-10 W <-> 250 m, CSThresh
        // 1.559e-11 W <-> 550 m, with two-ray ground and the default radio.
        let m = ns2_default();
        assert!((m.tx_range_m() - 250.0).abs() < 0.1, "{}", m.tx_range_m());
        assert!((m.cs_range_m() - 550.0).abs() < 0.5, "{}", m.cs_range_m());
        assert!((m.received_power_w(250.0) / 3.652e-10 - 1.0).abs() < 1e-3);
    }

    #[test]
    fn crossover_is_about_86_metres() {
        let m = ns2_default();
        assert!((m.crossover_distance_m() - 86.14).abs() < 0.1, "{}", m.crossover_distance_m());
    }

    #[test]
    fn two_ray_falls_with_the_fourth_power() {
        let m = ns2_default();
        let ratio = m.received_power_w(200.0) / m.received_power_w(400.0);
        assert!((ratio - 16.0).abs() < 1e-9);
        let free = RadioModel { propagation: Propagation::FreeSpace, ..ns2_default() };
        let ratio = free.received_power_w(200.0) / free.received_power_w(400.0);
        assert!((ratio - 4.0).abs() < 1e-9);
    }

    #[test]
    fn ranges_set_thresholds() {
        let cfg = RadioConfig { tx_range_m: Some(250.0), cs_range_m: Some(500.0), ..RadioConfig::default() };
        let m = RadioModel::from_config(&cfg);
        assert!((m.cs_range_m() - 500.0).abs() < 1e-6);
        assert!((m.tx_range_m() - 250.0).abs() < 1e-6);
    }
}
