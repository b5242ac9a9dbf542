//! DCF timing (IEEE 802.11-2016 10.3.2.3, 10.3.7 and the DSSS PHY of clause
//! 15): interframe spaces, airtimes, timeouts.

use super::config::MacConfig;
use crate::phy::config::RadioConfig;
use crate::time::SimDuration;
use crate::wire::ieee80211::{ACK_BYTES, CTS_BYTES, DATA_HEADER_BYTES, RTS_BYTES};

#[derive(Debug, Clone)]
pub struct MacTiming {
    pub slot: SimDuration,
    pub sifs: SimDuration,
    /// DIFS = SIFS + 2 slots (10.3.2.3.5).
    pub difs: SimDuration,
    /// EIFS = SIFS + ACK time at the basic rate + DIFS (10.3.2.3.7), used
    /// instead of DIFS after a frame received in error.
    pub eifs: SimDuration,
    /// PLCP preamble + header, sent at 1 Mbps (192 us, long preamble).
    pub plcp: SimDuration,
    pub data_rate_bps: f64,
    pub basic_rate_bps: f64,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Upper bound of the propagation delay to a station in decoding range;
    /// twice this pads the CTS / ACK timeouts (ns-2 pads with 2 us).
    pub max_propagation: SimDuration,
    pub rts_threshold_bytes: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// See `MacConfig::cts_ignores_nav`.
    pub cts_ignores_nav: bool,
    /// See `MacConfig::eifs_sets_nav`.
    pub eifs_sets_nav: bool,
    /// See `MacConfig::cts_check_at_sifs`.
    pub cts_check_at_sifs: bool,
    /// See `MacConfig::immediate_access`.
    pub immediate_access: bool,
    /// See `MacConfig::busy_doubles_cw`.
    pub busy_doubles_cw: bool,
    /// The link layer's delay each way (`MacConfig::ll_delay_us`).
    pub ll_delay: SimDuration,
}

impl MacTiming {
    pub fn new(mac: &MacConfig, radio: &RadioConfig, tx_range_m: f64) -> MacTiming {
        let slot = SimDuration::from_micros_f64(mac.slot_us);
        let sifs = SimDuration::from_micros_f64(mac.sifs_us);
        let difs = sifs + slot * 2;
        let mut timing = MacTiming {
            slot,
            sifs,
            difs,
            eifs: difs,
            plcp: SimDuration::from_micros_f64(radio.plcp_overhead_us),
            data_rate_bps: radio.data_rate_mbps * 1e6,
            basic_rate_bps: radio.basic_rate_mbps * 1e6,
            cw_min: mac.cw_min,
            cw_max: mac.cw_max,
            max_propagation: SimDuration::from_nanos((tx_range_m / crate::phy::propagation::SPEED_OF_LIGHT_MPS * 1e9).ceil() as u64),
            rts_threshold_bytes: mac.rts_threshold_bytes,
            short_retry_limit: mac.short_retry_limit,
            long_retry_limit: mac.long_retry_limit,
            cts_ignores_nav: mac.cts_ignores_nav,
            eifs_sets_nav: mac.eifs_sets_nav,
            cts_check_at_sifs: mac.cts_check_at_sifs,
            immediate_access: mac.immediate_access,
            busy_doubles_cw: mac.busy_doubles_cw,
            ll_delay: SimDuration::from_micros_f64(mac.ll_delay_us),
        };
        timing.eifs = sifs + timing.control_airtime(ACK_BYTES) + difs;
        timing
    }

    fn airtime(&self, bytes: u32, rate_bps: f64) -> SimDuration {
        // Round the body up to a whole nanosecond so airtimes never undercut.
        let body_ns = ceil_to_u64(bytes as f64 * 8.0 * 1e9 / rate_bps);
        self.plcp + SimDuration::from_nanos(body_ns)
    }

    /// Airtime of a control frame (RTS, CTS, ACK) at the basic rate.
    pub fn control_airtime(&self, bytes: u32) -> SimDuration {
        self.airtime(bytes, self.basic_rate_bps)
    }

    /// Airtime of a DATA frame carrying a `packet_bytes` network packet:
    /// unicast at the data rate, broadcast at the basic rate.
    pub fn data_airtime(&self, packet_bytes: u32, broadcast: bool) -> SimDuration {
        let rate = if broadcast { self.basic_rate_bps } else { self.data_rate_bps };
        self.airtime(DATA_HEADER_BYTES + packet_bytes, rate)
    }

    pub fn rts_airtime(&self) -> SimDuration {
        self.control_airtime(RTS_BYTES)
    }
    pub fn cts_airtime(&self) -> SimDuration {
        self.control_airtime(CTS_BYTES)
    }
    pub fn ack_airtime(&self) -> SimDuration {
        self.control_airtime(ACK_BYTES)
    }

    /// How long a station waits after its frame's end for the CTS or ACK
    /// to have fully arrived: SIFS + response airtime + a round trip of
    /// propagation, + 1 us so a response ending exactly at the bound wins.
    pub fn response_timeout(&self, response_airtime: SimDuration) -> SimDuration {
        self.sifs + response_airtime + self.max_propagation * 2 + SimDuration::from_nanos(1_000)
    }

    /// Whether a unicast DATA frame of this MPDU length is preceded by RTS/CTS
    /// (dot11RTSThreshold: RTS when the MPDU is longer than the threshold).
    pub fn uses_rts(&self, mpdu_bytes: u32) -> bool {
        mpdu_bytes > self.rts_threshold_bytes
    }
}

/// `x.ceil() as u64`, without the call: x86-64's baseline has no rounding
/// instruction, so `ceil` is a library call, and every frame exchange
/// computes several airtimes. The same value for every `x`: truncation
/// toward zero, plus one if that lost a fraction (negative and NaN give 0,
/// +inf and beyond 2^64 the largest, as the cast saturates).
#[inline]
fn ceil_to_u64(x: f64) -> u64 {
    let truncated = x as u64;
    if (truncated as f64) < x {
        truncated.saturating_add(1)
    } else {
        truncated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dsss() -> MacTiming {
        MacTiming::new(&MacConfig::default(), &RadioConfig::default(), 250.0)
    }

    #[test]
    fn dsss_interframe_spaces() {
        let t = dsss();
        assert_eq!(t.difs, SimDuration::from_nanos(50_000));
        // EIFS = 10 + (192 + 112 / 2) + 50 = 308 us at 2 Mbps basic rate.
        assert_eq!(t.eifs, SimDuration::from_nanos(308_000));
    }

    #[test]
    fn dsss_airtimes() {
        let t = dsss();
        assert_eq!(t.rts_airtime(), SimDuration::from_nanos(272_000)); // 192 + 160/2
        assert_eq!(t.cts_airtime(), SimDuration::from_nanos(248_000)); // 192 + 112/2
                                                                       // 512 B payload + 8 UDP + 20 IP = 540 B; + 28 = 568 B = 4544 bits at 2 Mbps.
        assert_eq!(t.data_airtime(540, false), SimDuration::from_nanos(192_000 + 2_272_000));
        assert_eq!(t.data_airtime(540, true), SimDuration::from_nanos(192_000 + 2_272_000));
    }

    #[test]
    fn ceil_without_the_call_is_ceil() {
        let mut values = vec![0.0, -0.0, -0.5, -3.0, 0.5, 1.0, 1.5, 2.0 - f64::EPSILON, 4.5e15, 2f64.powi(52) + 0.5, 2f64.powi(53) + 2.0];
        values.extend([2f64.powi(63), 2f64.powi(64), 1e30, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE]);
        // Airtimes' own quotients: bits * 1e9 / rate for every size and the usual rates.
        for rate in [1e6, 2e6, 5.5e6, 11e6, 6e6, 54e6, 0.3e6] {
            values.extend((0..3000u32).map(|bytes| bytes as f64 * 8.0 * 1e9 / rate));
        }
        for x in values {
            assert_eq!(ceil_to_u64(x), x.ceil() as u64, "{x}");
        }
    }

    #[test]
    fn rts_threshold_zero_means_always() {
        let t = dsss();
        assert!(t.uses_rts(28));
        let t = MacTiming { rts_threshold_bytes: 3000, ..dsss() };
        assert!(!t.uses_rts(568));
    }
}
