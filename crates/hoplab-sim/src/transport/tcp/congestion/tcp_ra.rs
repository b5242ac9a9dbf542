//! TCP-RA, receiver-aided loss differentiation (seed 001; docs/tcp-ra.md):
//! the receiver classifies each loss it detects as congestion, wireless or
//! dubious from the one-way delays of the segments around it, and tells the
//! sender in an ACK option; the sender's fast retransmit reacts by verdict.
//!
//! **Receiver** ([`RaReceiver`], section 2.1). Each segment carries its send
//! time S_i; at arrival R_i the end-to-end delay is `EED_i = R_i - S_i`.
//! - Contention indicator, eq. (4): `CI = 7/8 CI + 1/8 (EED_i - EED_{i-1})`.
//! - `EED_mean = 0.95 EED_mean + 0.05 EED_i` (the paper prints `0.5 EED_i`,
//!   a typo: the weights must sum to 1; a decision, docs/tcp-ra.md).
//! - `EED_lc`: the EED of the last segment received before the last loss
//!   classified as congestion (infinite before any).
//! - Grade: slight if `EED_i <= 0.8 EED_mean`; heavy if `EED_i >=
//!   min(1.2 EED_mean, 0.8 EED_lc)`; middle otherwise.
//! - Trend, with `alpha = 0.05 EED_mean`: up if `CI > alpha`, down if
//!   `CI < -alpha`, stable otherwise.
//! - Verdict, Table 2: slight -> wireless for every trend; middle: up ->
//!   congestion, stable -> dubious, down -> wireless; heavy: up ->
//!   congestion, stable -> congestion, down -> dubious.
//!
//! Decisions the paper leaves open: a loss is detected when a segment
//! arrives beyond the highest one received so far (a new hole: the
//! segments in between are missing); that segment's EED is the one graded,
//! against the mean of the segments before it; CI includes its difference
//! (the trend that led to the loss). Every ACK sent while the hole is
//! still open repeats its verdict, so the third duplicate ACK, which
//! triggers the fast retransmit, carries it even if the first was lost.
//! Before any history the segment is its own mean (grade middle).
//!
//! **Sender** ([`TcpRa`], section 2.2): NewReno, except that on a fast
//! retransmit the window becomes `cwnd` for a wireless verdict (no
//! reduction), `0.8 cwnd` for a dubious one and `0.5 cwnd` for congestion
//! (a decision, docs/tcp-ra.md: the paper's "CWND + Packet_received" is the current
//! window); ssthresh likewise, at least 2 segments. A fast retransmit
//! without a verdict (the option never arrived) and timeouts are NewReno's.

use super::{CongestionControl, LossKind, TcpState};
use crate::config::{positive, ConfigError};
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::receiver::ReceiverAid;
use crate::wire::tcp::{LossHint, TcpHeader};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// TCP-RA parameters (seed 001 section 2), the receiver's and the sender's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "TcpRaParams")]
pub struct Config {
    /// Gain of the contention indicator's moving average. Default 1/8
    /// (eq. 4: `CI = 7/8 CI + 1/8 (EED_{i+1} - EED_i)`).
    pub contention_gain: f64,
    /// Gain of EED_mean's moving average. Default 0.05 (section 2.1:
    /// `EED_mean = 0.95 EED_mean + 0.05 EED_i`; the printed 0.5 is a typo).
    pub mean_delay_gain: f64,
    /// Slight congestion: `EED_i <= slight_factor * EED_mean`. Default 0.8.
    pub slight_factor: f64,
    /// Heavy congestion: `EED_i >= min(heavy_factor * EED_mean,
    /// last_congestion_factor * EED_lc)`. Default 1.2.
    pub heavy_factor: f64,
    /// See `heavy_factor`. Default 0.8.
    pub last_congestion_factor: f64,
    /// The trend's dead band: `alpha = trend_threshold * EED_mean`.
    /// Default 0.05 ("alpha = 0.05 * EED_mean provides the best results").
    pub trend_threshold: f64,
    /// Window factor on a dubious loss. Default 0.8 (section 2.2, beta).
    pub dubious_beta: f64,
    /// Window factor on a congestion loss. Default 0.5 (section 2.2).
    pub congestion_beta: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            contention_gain: 0.125,
            mean_delay_gain: 0.05,
            slight_factor: 0.8,
            heavy_factor: 1.2,
            last_congestion_factor: 0.8,
            trend_threshold: 0.05,
            dubious_beta: 0.8,
            congestion_beta: 0.5,
        }
    }
}

impl Config {
    /// Gains and window factors are in (0, 1]; the thresholds' factors are
    /// positive. `at` is the table's key (`flows[i].cc_params`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{at}.{k}");
        for (name, v) in [
            ("contention_gain", self.contention_gain),
            ("mean_delay_gain", self.mean_delay_gain),
            ("dubious_beta", self.dubious_beta),
            ("congestion_beta", self.congestion_beta),
        ] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(ConfigError::new(key(name), format!("must be in (0, 1], got {v}")));
            }
        }
        for (name, v) in [
            ("slight_factor", self.slight_factor),
            ("heavy_factor", self.heavy_factor),
            ("last_congestion_factor", self.last_congestion_factor),
            ("trend_threshold", self.trend_threshold),
        ] {
            positive(&key(name), v)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- sender

#[derive(Debug, Clone)]
pub struct TcpRa {
    config: Config,
}

impl From<Config> for TcpRa {
    fn from(config: Config) -> Self {
        TcpRa { config }
    }
}

impl CongestionControl for TcpRa {
    fn name(&self) -> &'static str {
        "tcp_ra"
    }

    fn ssthresh(&self, state: &TcpState, loss: LossKind) -> f64 {
        let factor = match (loss, state.loss_hint) {
            (LossKind::FastRetransmit, Some(LossHint::Wireless)) => 1.0,
            (LossKind::FastRetransmit, Some(LossHint::Dubious)) => self.config.dubious_beta,
            (LossKind::FastRetransmit, Some(LossHint::Congestion)) => self.config.congestion_beta,
            // No verdict, or a timeout: NewReno (RFC 5681 eq. 4).
            _ => return (state.segments_in_flight as f64 / 2.0).max(2.0),
        };
        (factor * state.cwnd).max(2.0)
    }
}

// -------------------------------------------------------------- receiver

/// The receiver's congestion grade of a segment (section 2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Grade {
    Slight,
    Middle,
    Heavy,
}

/// The network's trend from the contention indicator (section 2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trend {
    Up,
    Stable,
    Down,
}

/// Table 2: the verdict for a loss seen at this grade and trend.
pub fn table2(grade: Grade, trend: Trend) -> LossHint {
    use LossHint::*;
    match (grade, trend) {
        (Grade::Slight, _) => Wireless,
        (Grade::Middle, Trend::Up) => Congestion,
        (Grade::Middle, Trend::Stable) => Dubious,
        (Grade::Middle, Trend::Down) => Wireless,
        (Grade::Heavy, Trend::Up | Trend::Stable) => Congestion,
        (Grade::Heavy, Trend::Down) => Dubious,
    }
}

/// The TCP-RA receiver's estimators (delays in seconds).
#[derive(Debug, Clone)]
pub struct RaReceiver {
    config: Config,
    /// EED of the previous segment received.
    previous_delay: Option<f64>,
    /// The contention indicator CI.
    contention: f64,
    /// EED_mean (None before the first segment).
    mean_delay: Option<f64>,
    /// EED_lc (infinite before the first congestion verdict).
    last_congestion_delay: f64,
    /// The grade behind the latest verdict.
    latest_grade: Option<Grade>,
}

impl RaReceiver {
    pub fn new(config: Config) -> RaReceiver {
        RaReceiver {
            config,
            previous_delay: None,
            contention: 0.0,
            mean_delay: None,
            last_congestion_delay: f64::INFINITY,
            latest_grade: None,
        }
    }

    pub fn contention_indicator(&self) -> f64 {
        self.contention
    }

    pub fn mean_delay(&self) -> Option<f64> {
        self.mean_delay
    }

    /// The grade of a segment with delay `eed` against the mean `mean`.
    pub fn grade(&self, eed: f64, mean: f64) -> Grade {
        let c = &self.config;
        if eed <= c.slight_factor * mean {
            Grade::Slight
        } else if eed >= (c.heavy_factor * mean).min(c.last_congestion_factor * self.last_congestion_delay) {
            Grade::Heavy
        } else {
            Grade::Middle
        }
    }

    /// The trend of the contention indicator against `alpha`.
    pub fn trend(&self, mean: f64) -> Trend {
        let alpha = self.config.trend_threshold * mean;
        if self.contention > alpha {
            Trend::Up
        } else if self.contention < -alpha {
            Trend::Down
        } else {
            Trend::Stable
        }
    }

    /// A segment with end-to-end delay `eed` (s) arrived; `loss` says it
    /// revealed missing segments. Returns the verdict for them.
    pub fn on_delay(&mut self, eed: f64, loss: bool) -> Option<LossHint> {
        let (contention_gain, mean_delay_gain) = (self.config.contention_gain, self.config.mean_delay_gain);
        let previous = self.previous_delay;
        if let Some(previous) = previous {
            self.contention = (1.0 - contention_gain) * self.contention + contention_gain * (eed - previous);
        }
        let mean = self.mean_delay.unwrap_or(eed);
        let verdict = loss.then(|| {
            let grade = self.grade(eed, mean);
            self.latest_grade = Some(grade);
            table2(grade, self.trend(mean))
        });
        if verdict == Some(LossHint::Congestion) {
            self.last_congestion_delay = previous.unwrap_or(eed);
        }
        self.mean_delay = Some(match self.mean_delay {
            None => eed,
            Some(m) => (1.0 - mean_delay_gain) * m + mean_delay_gain * eed,
        });
        self.previous_delay = Some(eed);
        verdict
    }
}

impl ReceiverAid for RaReceiver {
    fn name(&self) -> &'static str {
        "tcp_ra"
    }

    fn on_segment(&mut self, _now: SimTime, _header: &TcpHeader, one_way_delay: SimDuration, revealed_loss: bool) -> Option<LossHint> {
        self.on_delay(one_way_delay.as_secs_f64(), revealed_loss)
    }

    fn latest_grade(&self) -> Option<u8> {
        self.latest_grade.map(|g| g as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::*;
    use LossHint::*;

    #[test]
    fn table_2_cell_by_cell() {
        let expected = [
            (Grade::Slight, [Wireless, Wireless, Wireless]),
            (Grade::Middle, [Congestion, Dubious, Wireless]),
            (Grade::Heavy, [Congestion, Congestion, Dubious]),
        ];
        for (grade, row) in expected {
            for (trend, verdict) in [Trend::Up, Trend::Stable, Trend::Down].into_iter().zip(row) {
                assert_eq!(table2(grade, trend), verdict, "{grade:?} {trend:?}");
            }
        }
    }

    #[test]
    fn grades_against_the_mean_and_the_last_congestion_delay() {
        let mut r = RaReceiver::new(Config::default());
        // Mean 100 ms, no congestion loss yet: slight <= 80, heavy >= 120.
        assert_eq!(r.grade(0.080, 0.100), Grade::Slight);
        assert_eq!(r.grade(0.081, 0.100), Grade::Middle);
        assert_eq!(r.grade(0.119, 0.100), Grade::Middle);
        assert_eq!(r.grade(0.1201, 0.100), Grade::Heavy);
        // EED_lc = 130 ms: heavy from min(120, 104) = 104 ms.
        r.last_congestion_delay = 0.130;
        assert_eq!(r.grade(0.103, 0.100), Grade::Middle);
        assert_eq!(r.grade(0.1041, 0.100), Grade::Heavy);
    }

    #[test]
    fn a_hand_worked_delay_sequence() {
        let mut r = RaReceiver::new(Config::default());
        // 1st: no history. mean = 100 ms, CI = 0.
        assert_eq!(r.on_delay(0.100, false), None);
        assert_eq!((r.contention_indicator(), r.mean_delay()), (0.0, Some(0.100)));
        // 2nd: 140 ms. CI = 1/8 * 40 ms = 5 ms; mean = 0.95*100 + 0.05*140 = 102 ms.
        assert_eq!(r.on_delay(0.140, false), None);
        assert!((r.contention_indicator() - 0.005).abs() < 1e-12);
        assert!((r.mean_delay().unwrap() - 0.102).abs() < 1e-12);
        // 3rd reveals a loss at 130 ms: CI = 7/8 * 5 - 1/8 * 10 = 3.125 ms
        // > alpha = 0.05 * 102 = 5.1 ms? No: stable. Grade: 130 >= 1.2*102
        // = 122.4 -> heavy. Heavy + stable -> congestion; EED_lc = 140 ms.
        assert_eq!(r.on_delay(0.130, true), Some(Congestion));
        assert!((r.contention_indicator() - 0.003125).abs() < 1e-12);
        assert_eq!(r.last_congestion_delay, 0.140);
        // mean = 0.95*102 + 0.05*130 = 103.4 ms.
        assert!((r.mean_delay().unwrap() - 0.1034).abs() < 1e-12);
        // 4th reveals a loss at 70 ms: slight (<= 82.72 ms) -> wireless.
        assert_eq!(r.on_delay(0.070, true), Some(Wireless));
        // CI = 7/8 * 3.125 + 1/8 * (70 - 130) = -4.765625 ms; mean =
        // 0.95*103.4 + 0.05*70 = 101.73 ms, alpha 5.0865 ms: stable.
        assert!((r.contention_indicator() + 0.004765625).abs() < 1e-12);
        // 5th reveals a loss at 100 ms: CI = 7/8*(-4.765625) + 1/8*30 =
        // -0.419921875 ms: stable; grade: 100 vs slight 81.38 and heavy
        // min(122.08, 0.8*140 = 112) -> middle. Middle + stable -> dubious.
        assert_eq!(r.on_delay(0.100, true), Some(Dubious));
    }

    #[test]
    fn a_rising_trend_makes_a_middle_loss_congestion_and_a_falling_one_wireless() {
        // alpha = 0.01 EED_mean, so that a steady 4 ms ramp is a trend.
        let ramp = |step: f64| {
            let mut r = RaReceiver::new(Config { trend_threshold: 0.01, ..Config::default() });
            for d in [0.100, 0.100, 0.100 + step, 0.100 + 2.0 * step] {
                assert_eq!(r.on_delay(d, false), None);
            }
            // CI = 1/8 * step * (1 + 7/8 + 49/64) = 0.330 * step, beyond
            // alpha ~ 1 ms; the delay 100 + 3 step ms stays middle.
            let verdict = r.on_delay(0.100 + 3.0 * step, true);
            assert!((r.contention_indicator() - step * (1.0 + 0.875 + 0.765625) / 8.0).abs() < 1e-12);
            verdict
        };
        assert_eq!(ramp(0.004), Some(Congestion), "middle, up");
        assert_eq!(ramp(-0.004), Some(Wireless), "middle, down");
    }

    fn lose_with(hint: Option<LossHint>, loss: LossKind) -> (f64, f64) {
        let mut s = TestSender::new(TcpRa::from(Config::default()), 20.0);
        s.state.segments_in_flight = 16;
        s.state.loss_hint = hint;
        let ssthresh = s.lose(loss);
        (ssthresh, s.state.cwnd)
    }

    #[test]
    fn sender_reacts_by_verdict() {
        assert_eq!(lose_with(Some(Wireless), LossKind::FastRetransmit), (20.0, 20.0), "wireless: no reduction");
        assert_eq!(lose_with(Some(Dubious), LossKind::FastRetransmit), (16.0, 16.0), "dubious: 0.8 cwnd");
        assert_eq!(lose_with(Some(Congestion), LossKind::FastRetransmit), (10.0, 10.0), "congestion: 0.5 cwnd");
        assert_eq!(lose_with(None, LossKind::FastRetransmit), (8.0, 8.0), "no verdict: NewReno, FlightSize / 2");
        assert_eq!(lose_with(Some(Wireless), LossKind::Timeout), (8.0, 1.0), "timeouts are NewReno's");
        let mut small = TestSender::new(TcpRa::from(Config::default()), 3.0);
        small.state.loss_hint = Some(Congestion);
        assert_eq!(small.lose(LossKind::FastRetransmit), 2.0, "at least 2 segments");
    }

    #[test]
    fn parameters_are_checked_naming_the_key() {
        let bad = Config { dubious_beta: 1.5, ..Config::default() };
        assert_eq!(bad.validate("flows[0].cc_params").unwrap_err().key, "flows[0].cc_params.dubious_beta");
        let bad = Config { trend_threshold: -1.0, ..Config::default() };
        assert_eq!(bad.validate("flows[0].cc_params").unwrap_err().key, "flows[0].cc_params.trend_threshold");
        assert!(Config::default().validate("x").is_ok());
    }

    /// The whole path through the sockets: the receiver's verdict on a hole
    /// rides in its duplicate ACKs and sets the sender's window at the fast
    /// retransmit.
    fn fast_retransmit_after_a_loss_judged(verdict: LossHint) -> (f64, f64) {
        use crate::transport::tcp::config::TcpConfig;
        use crate::transport::tcp::receiver::Receiver;
        use crate::transport::tcp::sender::Sender;
        struct Always(LossHint);
        impl ReceiverAid for Always {
            fn name(&self) -> &'static str {
                "always"
            }
            fn on_segment(&mut self, _: SimTime, _: &TcpHeader, _: SimDuration, revealed: bool) -> Option<LossHint> {
                revealed.then_some(self.0)
            }
        }
        let config = TcpConfig { initial_cwnd_segments: 10.0, ..TcpConfig::default() };
        let mut sender = Sender::new(Box::new(TcpRa::from(Config::default())), config, 1000, None);
        let mut receiver = Receiver::new(false, 1, SimDuration::ZERO).with_aid(Box::new(Always(verdict)));
        let mut now = SimTime::ZERO;
        sender.start(now);
        let syn = sender.poll_transmit(now).expect("SYN").header;
        sender.on_ack(now, &receiver.on_syn(now, &syn));
        let mut window = Vec::new();
        while let Some(out) = sender.poll_transmit(now) {
            window.push(out.header);
        }
        assert!(window.len() >= 5, "a window of {} segments", window.len());
        let cwnd_before = sender.state.cwnd;
        // Segment 0 is lost; 1..10 arrive and are ACKed in turn.
        for segment in &window[1..] {
            now = now + SimDuration::from_secs_f64(0.001);
            let ack = receiver.on_data(now, segment).ack.expect("an out-of-order segment is ACKed at once");
            assert_eq!(ack.loss_hint, Some(verdict), "every duplicate ACK repeats the verdict");
            sender.on_ack(now, &ack);
        }
        assert_eq!(sender.counters.fast_retransmits, 1);
        (cwnd_before, sender.state.ssthresh)
    }

    #[test]
    fn the_verdict_travels_from_the_receiver_to_the_senders_window() {
        for (verdict, factor) in [(Wireless, 1.0), (Dubious, 0.8), (Congestion, 0.5)] {
            let (cwnd, ssthresh) = fast_retransmit_after_a_loss_judged(verdict);
            assert!((ssthresh - factor * cwnd).abs() < 1e-9, "{verdict:?}: cwnd {cwnd}, ssthresh {ssthresh}");
        }
    }
}
