//! TCP Westwood BR (seed 002: Tian, Li, Zhang, Sun, Yang, "TCPW BR: a
//! wireless congestion control scheme based on RTT"; docs/tcpw-br.md):
//! TCP Westwood whose reactions depend on a congestion level read off the
//! RTT.
//!
//! **Level** (section 3.1, eqs. 1-2, Table 2): `F = RTT_max - RTT_min`,
//! `R = (RTT - RTT_min) / F`; L = 1, 2, 3, 4 for R in [0, .25], (.25, .5],
//! (.5, .75], (.75, 1]. RTT_min and RTT_max are the smallest and largest
//! RTT samples of the connection, RTT_max "set to a value not greater than
//! the timeout timer": capped at the current RTO. Readings the paper
//! leaves open, each a parameter:
//! - RTT in eq. 2 is the smoothed RTT of RFC 6298 (beta = 1/8), which
//!   section 3.1 introduces for this purpose (`rtt_signal = "srtt"`; or
//!   `"sample"`, the latest sample).
//! - F = 0 (one sample, or all equal) gives L = 1; R > 1 (the RTT above a
//!   capped RTT_max) gives L = 4.
//!
//! **Growth factor** P by level (Table 3): 1 ("maintain"), 0.867, 0.5, 0.4.
//! A new ACK grows the window as Reno in slow start and by `P / cwnd` per
//! segment in congestion avoidance (docs/tcpw-br.md's reading of the algorithm's
//! step 1, whose "Cwnd = Cwnd + 1" at L <= 2 is slow start).
//!
//! **Losses** (section 3.2, step 2): at L = 1, 3 duplicate ACKs are a
//! wireless loss: fast retransmit and recovery without reduction. Reading:
//! cwnd is kept and ssthresh raised to at least cwnd, so that the full ACK
//! ending NewReno recovery (cwnd = min(ssthresh, FlightSize + 1), RFC 6582)
//! does not deflate the window to an older, lower ssthresh. At L >= 3 two
//! duplicate ACKs suffice, and at L = 2 three: cwnd = P cwnd, ssthresh =
//! BWE x RTT_min / MSS (Westwood's), cwnd = min(cwnd, ssthresh). A timeout
//! is Westwood's (ssthresh = BWE x RTT_min / MSS, cwnd = 1). ssthresh is at
//! least 2 segments.
//!
//! **Bandwidth estimate**: the paper builds on TCPW, so the estimator is
//! original Westwood's per-ACK filter (`westwood.rs`) by default;
//! `bandwidth_estimator = "westwood_plus"` uses Westwood+'s per-RTT one.

use super::westwood::{self, Estimator};
use super::westwood_plus::{self, WestwoodPlus};
use super::{reno_slow_start, CongState, CongestionControl, LossKind, TcpState};
use crate::config::ConfigError;
use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which RTT eq. 2 compares with RTT_min and RTT_max.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttSignal {
    /// The smoothed RTT (RFC 6298).
    Srtt,
    /// The latest RTT sample.
    Sample,
}

/// The bandwidth estimator behind Westwood's ssthresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BandwidthEstimator {
    /// TCP Westwood's per-ACK Tustin filter (Mascolo et al. 2001).
    Westwood,
    /// Westwood+'s per-RTT samples (Mascolo et al. 2004).
    WestwoodPlus,
}

/// TCPW BR parameters (seed 002 section 3, Tables 2-3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "WestwoodBrParams")]
pub struct Config {
    /// Upper bounds of R for levels 1, 2, 3 (Table 2: 0.25, 0.5, 0.75);
    /// level 4 above the last. Increasing, in (0, 1).
    pub level_bounds: [f64; 3],
    /// Growth factor P of levels 1-4 (Table 3: 1 ("maintain"), 0.867, 0.5,
    /// 0.4), in (0, 1].
    pub growth_factors: [f64; 4],
    /// Duplicate ACKs that trigger a fast retransmit below
    /// `early_dupack_level` (section 3.2: 3).
    pub dupack_threshold: u32,
    /// Duplicate ACKs that trigger it from `early_dupack_level` up
    /// (section 3.2: 2).
    pub early_dupack_threshold: u32,
    /// The lowest level with the early threshold (section 3.2: 3).
    pub early_dupack_level: u8,
    /// Levels up to this one take a fast retransmit for a wireless loss:
    /// no reduction (section 3.2: 1).
    pub wireless_max_level: u8,
    /// The RTT of eq. 2: `"srtt"` (default) or `"sample"`.
    pub rtt_signal: RttSignal,
    /// Cap RTT_max at the current RTO (section 3.1). Default true.
    pub cap_rtt_max_at_rto: bool,
    /// `"westwood"` (default: TCPW's, which the paper modifies) or
    /// `"westwood_plus"`.
    pub bandwidth_estimator: BandwidthEstimator,
    /// Westwood's filter time constant, seconds (`bandwidth_estimator =
    /// "westwood"`; `cc = "westwood"`'s `tau_s`). Default 1.0.
    pub tau_s: f64,
    /// Westwood's virtual-sample divisor m (`cc = "westwood"`'s). Default 2.
    pub virtual_sample_divisor: f64,
    /// Westwood+'s filter gain (`bandwidth_estimator = "westwood_plus"`;
    /// `cc = "westwood_plus"`'s `alpha`). Default 0.9.
    pub westwood_plus_alpha: f64,
}

impl Default for Config {
    fn default() -> Self {
        let westwood = westwood::Config::default();
        Config {
            level_bounds: [0.25, 0.5, 0.75],
            growth_factors: [1.0, 0.867, 0.5, 0.4],
            dupack_threshold: 3,
            early_dupack_threshold: 2,
            early_dupack_level: 3,
            wireless_max_level: 1,
            rtt_signal: RttSignal::Srtt,
            cap_rtt_max_at_rto: true,
            bandwidth_estimator: BandwidthEstimator::Westwood,
            tau_s: westwood.tau_s,
            virtual_sample_divisor: westwood.virtual_sample_divisor,
            westwood_plus_alpha: westwood_plus::Config::default().alpha,
        }
    }
}

impl Config {
    /// Range checks; `at` is the table's key (`flows[i].cc_params`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{at}.{k}");
        let b = self.level_bounds;
        if !(0.0 < b[0] && b[0] < b[1] && b[1] < b[2] && b[2] < 1.0) {
            return Err(ConfigError::new(key("level_bounds"), format!("must be increasing, each in (0, 1), got {b:?}")));
        }
        if let Some(p) = self.growth_factors.iter().find(|p| !(**p > 0.0 && **p <= 1.0)) {
            return Err(ConfigError::new(key("growth_factors"), format!("each must be in (0, 1], got {p}")));
        }
        if self.dupack_threshold < 1 {
            return Err(ConfigError::new(key("dupack_threshold"), "must be at least 1"));
        }
        if !(1..=self.dupack_threshold).contains(&self.early_dupack_threshold) {
            return Err(ConfigError::new(key("early_dupack_threshold"), format!("must be an integer from 1 to {} (dupack_threshold), got {}", self.dupack_threshold, self.early_dupack_threshold)));
        }
        for (name, level) in [("early_dupack_level", self.early_dupack_level), ("wireless_max_level", self.wireless_max_level)] {
            if !(1..=4).contains(&level) {
                return Err(ConfigError::new(key(name), format!("must be a level, 1 to 4, got {level}")));
            }
        }
        let westwood = westwood::Config { tau_s: self.tau_s, virtual_sample_divisor: self.virtual_sample_divisor };
        westwood.validate(at)?;
        if !(self.westwood_plus_alpha >= 0.0 && self.westwood_plus_alpha < 1.0) {
            return Err(ConfigError::new(key("westwood_plus_alpha"), format!("must be in [0, 1), got {}", self.westwood_plus_alpha)));
        }
        Ok(())
    }
}

/// The bandwidth estimator in use.
#[derive(Debug, Clone)]
enum Bwe {
    Westwood(Estimator),
    Plus(WestwoodPlus),
}

#[derive(Debug, Clone)]
pub struct WestwoodBr {
    config: Config,
    bwe: Bwe,
    /// The level at the latest ACK (for the time series).
    last_level: u8,
    /// Fast retransmits taken for wireless losses (no reduction), and for
    /// congestion.
    wireless_retransmits: u64,
    congestion_retransmits: u64,
}

impl From<Config> for WestwoodBr {
    fn from(config: Config) -> Self {
        let bwe = match config.bandwidth_estimator {
            BandwidthEstimator::Westwood => Bwe::Westwood(Estimator::new(&westwood::Config {
                tau_s: config.tau_s,
                virtual_sample_divisor: config.virtual_sample_divisor,
            })),
            BandwidthEstimator::WestwoodPlus => Bwe::Plus(WestwoodPlus::from(westwood_plus::Config {
                variant: westwood_plus::Variant::Ns3,
                filter: westwood_plus::Filter::Tustin,
                alpha: config.westwood_plus_alpha,
            })),
        };
        WestwoodBr { config, bwe, last_level: 1, wireless_retransmits: 0, congestion_retransmits: 0 }
    }
}

impl WestwoodBr {
    /// The congestion level, 1 to 4, that `state`'s RTTs give (Table 2).
    pub fn level(&self, state: &TcpState) -> u8 {
        let rtt = match self.config.rtt_signal {
            RttSignal::Srtt => state.srtt,
            RttSignal::Sample => state.last_rtt,
        };
        let (Some(rtt), Some(min), Some(mut max)) = (rtt, state.min_rtt, state.max_rtt) else { return 1 };
        if self.config.cap_rtt_max_at_rto {
            max = max.min(state.rto);
        }
        // In integer nanoseconds, so that R on a bound is exactly it.
        let ns = |d: SimDuration| d.as_nanos() as i128;
        let span = ns(max) - ns(min);
        if span <= 0 {
            return 1;
        }
        let r = (ns(rtt) - ns(min)) as f64 / span as f64;
        match self.config.level_bounds.iter().position(|&bound| r <= bound) {
            Some(i) => i as u8 + 1,
            None => 4,
        }
    }

    fn growth_factor(&self, level: u8) -> f64 {
        self.config.growth_factors[level as usize - 1]
    }

    fn is_wireless(&self, level: u8) -> bool {
        level <= self.config.wireless_max_level
    }

    /// The bandwidth estimate, bytes per second.
    pub fn bwe(&self) -> f64 {
        match &self.bwe {
            Bwe::Westwood(e) => e.bwe(),
            Bwe::Plus(p) => p.bwe(),
        }
    }

    /// Westwood's ssthresh, BWE x RTT_min / MSS (at least 2).
    fn westwood_ssthresh(&self, state: &TcpState, loss: LossKind) -> f64 {
        match &self.bwe {
            Bwe::Westwood(e) => e.ssthresh(state),
            Bwe::Plus(p) => p.ssthresh(state, loss),
        }
    }
}

impl CongestionControl for WestwoodBr {
    fn name(&self) -> &'static str {
        "westwood_br"
    }

    fn ssthresh(&self, state: &TcpState, loss: LossKind) -> f64 {
        if loss == LossKind::FastRetransmit && self.is_wireless(self.level(state)) {
            return state.ssthresh.max(state.cwnd);
        }
        self.westwood_ssthresh(state, loss)
    }

    fn cwnd_after_fast_retransmit(&self, state: &TcpState, new_ssthresh: f64) -> f64 {
        let level = self.level(state);
        if self.is_wireless(level) {
            return state.cwnd;
        }
        (self.growth_factor(level) * state.cwnd).min(new_ssthresh)
    }

    fn dupack_threshold(&self, state: &TcpState) -> u32 {
        if self.level(state) >= self.config.early_dupack_level {
            self.config.early_dupack_threshold
        } else {
            self.config.dupack_threshold
        }
    }

    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        let mut left = segments_acked;
        if state.in_slow_start() {
            left = reno_slow_start(state, segments_acked);
        }
        let p = self.growth_factor(self.level(state));
        for _ in 0..left {
            state.cwnd += p / state.cwnd;
        }
    }

    fn pkts_acked(&mut self, state: &TcpState, segments_acked: u32, rtt: Option<SimDuration>) {
        self.last_level = self.level(state);
        match &mut self.bwe {
            Bwe::Westwood(e) => e.on_ack(state.now, segments_acked as u64, state.mss_bytes),
            Bwe::Plus(p) => p.pkts_acked(state, segments_acked, rtt),
        }
    }

    fn dup_ack(&mut self, state: &TcpState) {
        if let Bwe::Westwood(e) = &mut self.bwe {
            e.on_ack(state.now, 0, state.mss_bytes);
        }
    }

    fn state_set(&mut self, state: &TcpState, new_state: CongState) {
        if new_state == CongState::Recovery {
            if self.is_wireless(self.level(state)) {
                self.wireless_retransmits += 1;
            } else {
                self.congestion_retransmits += 1;
            }
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("westwood_bwe_bytes_per_s", self.bwe()),
            ("tcpw_br_level", self.last_level as f64),
            ("tcpw_br_wireless_retransmits", self.wireless_retransmits as f64),
            ("tcpw_br_congestion_retransmits", self.congestion_retransmits as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::{CongState, LossKind};
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_nanos(v * 1_000_000)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    /// A sender in congestion avoidance whose RTTs are RTT_min = 100 ms,
    /// RTT_max = 200 ms (RTO 1 s, no cap), with SRTT `srtt_ms`: R =
    /// (srtt - 100) / 100. BWE 50 000 B/s: Westwood's ssthresh = 50 000 x
    /// 0.1 / 1000 = 5 segments.
    fn sender_at(srtt_ms: u64, cwnd: f64) -> TestSender<WestwoodBr> {
        let mut s = TestSender::new(WestwoodBr::from(Config::default()), cwnd);
        s.state.ssthresh = 4.0;
        s.state.min_rtt = Some(ms(100));
        s.state.max_rtt = Some(ms(200));
        s.state.srtt = Some(ms(srtt_ms));
        s.state.last_rtt = Some(ms(srtt_ms));
        s.state.rto = ms(1000);
        s.state.segments_in_flight = cwnd as u32;
        if let Bwe::Westwood(e) = &mut s.cc.bwe {
            e.force_bwe(50_000.0);
        }
        s
    }

    #[test]
    fn levels_follow_table_2() {
        // R = 0, .25 -> 1; .26, .5 -> 2; .51, .75 -> 3; .76, 1 -> 4; above RTT_max -> 4.
        for (srtt, level) in [(100, 1), (125, 1), (126, 2), (150, 2), (151, 3), (175, 3), (176, 4), (200, 4), (260, 4)] {
            let s = sender_at(srtt, 10.0);
            assert_eq!(s.cc.level(&s.state), level, "SRTT {srtt} ms");
        }
        // No spread (F = 0) or no samples: level 1.
        let mut s = sender_at(150, 10.0);
        s.state.max_rtt = Some(ms(100));
        assert_eq!(s.cc.level(&s.state), 1);
        s.state.min_rtt = None;
        assert_eq!(s.cc.level(&s.state), 1);
    }

    #[test]
    fn rtt_max_is_capped_at_the_rto() {
        // RTT_max 400 ms, RTO 200 ms: F = 200 - 100 = 100 ms. SRTT 180 ms:
        // R = 0.8 -> level 4 (uncapped: 80 / 300 = 0.27 -> level 2).
        let mut s = sender_at(180, 10.0);
        s.state.max_rtt = Some(ms(400));
        s.state.rto = ms(200);
        assert_eq!(s.cc.level(&s.state), 4);
        s.cc.config.cap_rtt_max_at_rto = false;
        assert_eq!(s.cc.level(&s.state), 2);
    }

    #[test]
    fn the_rtt_compared_is_srtt_or_the_latest_sample() {
        let mut s = sender_at(110, 10.0); // SRTT 110 ms: R = 0.1 -> 1
        s.state.last_rtt = Some(ms(190)); // the sample: R = 0.9 -> 4
        assert_eq!(s.cc.level(&s.state), 1);
        s.cc.config.rtt_signal = RttSignal::Sample;
        assert_eq!(s.cc.level(&s.state), 4);
    }

    #[test]
    fn congestion_avoidance_grows_by_the_levels_growth_factor() {
        // cwnd 10, one ACKed segment: + P / 10.
        for (srtt, p) in [(110, 1.0), (140, 0.867), (160, 0.5), (190, 0.4)] {
            let mut s = sender_at(srtt, 10.0);
            s.cc.increase_window(&mut s.state, 1);
            assert!(close(s.state.cwnd, 10.0 + p / 10.0), "SRTT {srtt}: {}", s.state.cwnd);
        }
        // Slow start is Reno's whatever the level: cwnd 2 -> 3 below ssthresh 4.
        let mut s = sender_at(190, 2.0);
        s.cc.increase_window(&mut s.state, 1);
        assert_eq!(s.state.cwnd, 3.0);
    }

    #[test]
    fn duplicate_ack_threshold_is_two_from_level_3() {
        for (srtt, threshold) in [(110, 3), (140, 3), (160, 2), (190, 2)] {
            let s = sender_at(srtt, 10.0);
            assert_eq!(s.cc.dupack_threshold(&s.state), threshold, "SRTT {srtt}");
        }
    }

    #[test]
    fn level_1_loss_is_wireless_no_reduction() {
        let mut s = sender_at(110, 20.0);
        // ssthresh rises to cwnd (20), cwnd stays 20.
        assert_eq!(s.lose(LossKind::FastRetransmit), 20.0);
        assert_eq!(s.state.cwnd, 20.0);
        // A full ACK then keeps it: min(20, FlightSize 19 + 1) = 20.
        s.state.segments_in_flight = 19;
        s.end_recovery();
        assert_eq!(s.state.cwnd, 20.0);
        // In slow start (ssthresh above cwnd) ssthresh is not lowered.
        let mut s = sender_at(110, 20.0);
        s.state.ssthresh = 1e9;
        assert_eq!(s.lose(LossKind::FastRetransmit), 1e9);
        assert_eq!(s.cc.metrics()[2], ("tcpw_br_wireless_retransmits", 1.0));
    }

    #[test]
    fn level_2_to_4_losses_scale_cwnd_by_p_then_cap_at_westwoods_ssthresh() {
        // BWE x RTT_min / MSS = 5. cwnd 20: L2 -> min(17.34, 5) = 5; cwnd 5:
        // L2 -> 0.867 x 5 = 4.335, L3 -> 2.5, L4 -> 2.0.
        for (srtt, cwnd, want) in [(140, 20.0, 5.0), (140, 5.0, 4.335), (160, 5.0, 2.5), (190, 5.0, 2.0)] {
            let mut s = sender_at(srtt, cwnd);
            assert!(close(s.lose(LossKind::FastRetransmit), 5.0), "SRTT {srtt}");
            assert!(close(s.state.cwnd, want), "SRTT {srtt}, cwnd {cwnd}: {} != {want}", s.state.cwnd);
        }
        let mut s = sender_at(190, 5.0);
        s.lose(LossKind::FastRetransmit);
        assert_eq!(s.cc.metrics()[3], ("tcpw_br_congestion_retransmits", 1.0));
    }

    #[test]
    fn timeout_is_westwoods_at_every_level() {
        for srtt in [110, 140, 160, 190] {
            let mut s = sender_at(srtt, 20.0);
            assert!(close(s.lose(LossKind::Timeout), 5.0));
            assert_eq!(s.state.cwnd, 1.0);
            assert_eq!(s.state.cong_state, CongState::Loss);
        }
    }

    #[test]
    fn levels_track_rtt_samples_through_the_acks() {
        // Samples 100 ms then 200 ms: RTT_min 100, RTT_max 200, SRTT = 7/8 x
        // 100 + 1/8 x 200 = 112.5 ms: R = 0.125 -> level 1 (RTO 1 s).
        let mut s = TestSender::new(WestwoodBr::from(Config::default()), 10.0);
        s.ack_n_with_rtt(1, ms(100));
        s.ack_n_with_rtt(1, ms(200));
        assert_eq!(s.cc.level(&s.state), 1);
        // Six more of 200 ms: SRTT 100 + 100 (1 - (7/8)^7) = 160.7 ms: R = 0.607 -> 3.
        s.ack_n_with_rtt(6, ms(200));
        assert_eq!(s.cc.level(&s.state), 3);
        assert_eq!(s.cc.metrics()[1], ("tcpw_br_level", 3.0));
    }

    #[test]
    fn westwood_plus_estimator_gives_the_same_ssthresh_rule() {
        let config = Config { bandwidth_estimator: BandwidthEstimator::WestwoodPlus, ..Config::default() };
        let mut s = TestSender::new(WestwoodBr::from(config), 10.0);
        // 10 segments in a 100 ms window: sample 100 000 B/s, Tustin 0.9:
        // BWE = 0.05 x 100 000 = 5 000; RTT_min 100 ms: 0.5 -> 2 (the floor).
        s.ack_n(10);
        s.advance(ms(100));
        s.ack_n(1);
        assert!(close(s.cc.bwe(), 5_000.0));
        s.state.rto = ms(1000);
        s.state.max_rtt = Some(ms(200));
        s.state.srtt = Some(ms(190)); // level 4
        assert_eq!(s.lose(LossKind::Timeout), 2.0);
    }

    #[test]
    fn parameters_are_validated_naming_the_key() {
        let at = "flows[1].cc_params";
        let bad = [
            (Config { level_bounds: [0.5, 0.25, 0.75], ..Config::default() }, "level_bounds"),
            (Config { growth_factors: [1.0, 0.867, 0.0, 0.4], ..Config::default() }, "growth_factors"),
            (Config { early_dupack_threshold: 4, ..Config::default() }, "early_dupack_threshold"),
            (Config { early_dupack_level: 5, ..Config::default() }, "early_dupack_level"),
            (Config { wireless_max_level: 0, ..Config::default() }, "wireless_max_level"),
            (Config { tau_s: -1.0, ..Config::default() }, "tau_s"),
            (Config { westwood_plus_alpha: 1.0, ..Config::default() }, "westwood_plus_alpha"),
        ];
        for (config, key) in bad {
            assert_eq!(config.validate(at).unwrap_err().key, format!("{at}.{key}"));
        }
        assert!(Config::default().validate(at).is_ok());
    }
}
