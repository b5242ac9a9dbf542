//! TCP Westwood, the original (Mascolo, Casetti, Gerla, Sanadidi, Wang,
//! "TCP Westwood: bandwidth estimation for enhanced transport over wireless
//! links", ACM MobiCom 2001): the scheme seed 002 calls TCPW and compares
//! TCPW BR against. Westwood+ (`westwood_plus.rs`) is its later per-RTT
//! variant.
//!
//! **Bandwidth estimate** (MobiCom 2001, section 2): every ACK, new or
//! duplicate, gives a sample `b_k = d_k / Δ_k`, `d_k` the bytes it reports
//! delivered and `Δ_k = t_k - t_{k-1}` the time since the previous ACK; the
//! samples are filtered by the discrete (Tustin, bilinear) form of a
//! first-order low-pass filter of time constant τ (cut-off 1/τ):
//!
//! ```text
//! BWE_k = (2τ - Δ_k)/(2τ + Δ_k) BWE_{k-1} + Δ_k/(2τ + Δ_k) (b_k + b_{k-1})
//! ```
//!
//! The filter must be sampled faster than twice its cut-off: when no ACK
//! comes for τ/m (m >= 2), a virtual sample b = 0 is taken at each τ/m
//! (ibid.). Reading: the virtual samples fall at `t_{k-1} + j τ/m`
//! strictly before the ACK, so the ACK's own sample spans what is left,
//! in (0, τ/m]; every Δ is then at most τ/2 and the first coefficient
//! stays positive. (The UCLA ns-2 agent, `tcp-westwood.cc` v1.3 filter 3,
//! does the same with m = 2, and stretches a remainder under 10 ms to
//! τ/2.) The first ACK only starts the clock. ACKs at the same instant
//! (Δ = 0) are merged into the next sample.
//!
//! `d_k` counts segments (the paper's procedure `AckedCount`): a duplicate
//! ACK counts 1 segment (one more left the network) and is remembered as
//! "accounted for"; a cumulative ACK of n > 1 segments then counts 1 if the
//! duplicates already accounted for n or more (their count falls by n),
//! else n minus those (and none are left). ns-3's `TcpWestwood` (Westwood
//! mode) is the same procedure.
//!
//! **Loss** (the paper's pseudo-code): on 3 duplicate ACKs, ssthresh = BWE x RTT_min /
//! MSS and cwnd = min(cwnd, ssthresh); on a timeout, the same ssthresh and
//! cwnd = 1 (the socket). ssthresh is at least 2 segments (the paper's
//! timeout rule; the UCLA agent applies it to duplicate ACKs too). Window
//! growth is Reno's. RTT_min is the smallest RTT sample.

use super::{CongestionControl, LossKind, TcpState};
use crate::config::{positive, ConfigError};
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// TCP Westwood parameters (MobiCom 2001, section 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "WestwoodParams")]
pub struct Config {
    /// Time constant τ of the bandwidth filter, seconds (cut-off frequency
    /// 1/τ). Default 1.0 (the UCLA ns-2 agent's `tau_`).
    pub tau_s: f64,
    /// m: a virtual null sample every τ/m without an ACK; at least 2 (the
    /// sampling theorem). Default 2 (the UCLA ns-2 agent).
    pub virtual_sample_divisor: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config { tau_s: 1.0, virtual_sample_divisor: 2.0 }
    }
}

impl Config {
    /// τ > 0, m >= 2; `at` is the table's key (`flows[i].cc_params`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        positive(&format!("{at}.tau_s"), self.tau_s)?;
        let m = self.virtual_sample_divisor;
        if !(m >= 2.0 && m.is_finite()) {
            return Err(ConfigError::new(
                format!("{at}.virtual_sample_divisor"),
                format!("must be at least 2 (sampling theorem), got {m}"),
            ));
        }
        Ok(())
    }
}

/// Westwood's per-ACK bandwidth estimator (also the estimator of TCPW BR).
#[derive(Debug, Clone)]
pub struct Estimator {
    tau_s: f64,
    /// τ/m, seconds.
    virtual_step_s: f64,
    /// Filtered estimate, bytes per second.
    bwe: f64,
    /// The previous sample (real or virtual), bytes per second.
    last_sample: f64,
    /// When the previous sample was taken (None before the first ACK).
    last_at: Option<SimTime>,
    /// Duplicate ACKs counted that no cumulative ACK has covered yet.
    accounted_for: u64,
    /// Segments of ACKs at the instant of the previous one, not yet sampled.
    pending_segments: u64,
}

impl Estimator {
    pub fn new(config: &Config) -> Estimator {
        Estimator {
            tau_s: config.tau_s,
            virtual_step_s: config.tau_s / config.virtual_sample_divisor,
            bwe: 0.0,
            last_sample: 0.0,
            last_at: None,
            accounted_for: 0,
            pending_segments: 0,
        }
    }

    /// The estimate, bytes per second.
    pub fn bwe(&self) -> f64 {
        self.bwe
    }

    /// Set the estimate (controller tests start from a known one).
    #[cfg(test)]
    pub fn force_bwe(&mut self, bwe: f64) {
        self.bwe = bwe;
    }

    /// An ACK at `now` for `new_segments` (0: a duplicate ACK).
    pub fn on_ack(&mut self, now: SimTime, new_segments: u64, mss_bytes: u32) {
        let segments = self.acked_count(new_segments) + self.pending_segments;
        let Some(last_at) = self.last_at else {
            self.last_at = Some(now);
            return;
        };
        let mut delta_s = now.since(last_at).as_secs_f64();
        if delta_s <= 0.0 {
            self.pending_segments = segments;
            return;
        }
        self.pending_segments = 0;
        // Virtual null samples at each τ/m strictly before `now`.
        let virtual_samples = ((delta_s / self.virtual_step_s).ceil() as u64).saturating_sub(1);
        for _ in 0..virtual_samples {
            self.filter(self.virtual_step_s, 0.0);
        }
        delta_s -= virtual_samples as f64 * self.virtual_step_s;
        self.filter(delta_s, (segments * mss_bytes as u64) as f64 / delta_s);
        self.last_at = Some(now);
    }

    /// MobiCom 2001, `AckedCount`: the segments this ACK
    /// reports delivered.
    fn acked_count(&mut self, new_segments: u64) -> u64 {
        if new_segments == 0 {
            self.accounted_for += 1;
            return 1;
        }
        if new_segments == 1 {
            return 1;
        }
        if self.accounted_for >= new_segments {
            self.accounted_for -= new_segments;
            1
        } else {
            let n = new_segments - self.accounted_for;
            self.accounted_for = 0;
            n
        }
    }

    /// One step of the Tustin filter with sampling interval `delta_s`.
    fn filter(&mut self, delta_s: f64, sample: f64) {
        let two_tau = 2.0 * self.tau_s;
        self.bwe = (two_tau - delta_s) / (two_tau + delta_s) * self.bwe + delta_s / (two_tau + delta_s) * (sample + self.last_sample);
        self.last_sample = sample;
    }

    /// Westwood's ssthresh: BWE x RTT_min / MSS, at least 2 segments.
    pub fn ssthresh(&self, state: &TcpState) -> f64 {
        let rtt_min = state.min_rtt.map_or(0.0, |r| r.as_secs_f64());
        (self.bwe * rtt_min / state.mss_bytes as f64).max(2.0)
    }
}

#[derive(Debug, Clone)]
pub struct Westwood {
    estimator: Estimator,
}

impl From<Config> for Westwood {
    fn from(config: Config) -> Self {
        Westwood { estimator: Estimator::new(&config) }
    }
}

impl Westwood {
    /// The bandwidth estimate, bytes per second.
    pub fn bwe(&self) -> f64 {
        self.estimator.bwe()
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn ssthresh(&self, state: &TcpState, _loss: LossKind) -> f64 {
        self.estimator.ssthresh(state)
    }

    /// Section 2.3: "if (cwin > ssthresh) cwin = ssthresh".
    fn cwnd_after_fast_retransmit(&self, state: &TcpState, new_ssthresh: f64) -> f64 {
        state.cwnd.min(new_ssthresh)
    }

    fn pkts_acked(&mut self, state: &TcpState, segments_acked: u32, _rtt: Option<crate::time::SimDuration>) {
        self.estimator.on_ack(state.now, segments_acked as u64, state.mss_bytes);
    }

    fn dup_ack(&mut self, state: &TcpState) {
        self.estimator.on_ack(state.now, 0, state.mss_bytes);
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("westwood_bwe_bytes_per_s", self.estimator.bwe())]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::LossKind;
    use super::*;
    use crate::time::SimDuration;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_nanos(v * 1_000_000)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn tustin_filter_with_tau() {
        // τ = 1 s. ACKs of one 1000-byte segment every 100 ms: each sample is
        // 10 000 B/s; coefficients (2 - 0.1)/(2 + 0.1) = 19/21 and 0.1/2.1 = 1/21.
        let mut s = TestSender::new(Westwood::from(Config::default()), 10.0);
        s.ack_n(1); // starts the clock
        assert_eq!(s.cc.bwe(), 0.0);
        s.advance(ms(100));
        s.ack_n(1);
        // BWE_1 = 19/21 * 0 + 1/21 * (10 000 + 0) = 476.190...
        assert!(close(s.cc.bwe(), 10_000.0 / 21.0), "{}", s.cc.bwe());
        s.advance(ms(100));
        s.ack_n(1);
        // BWE_2 = 19/21 * 476.19 + 1/21 * 20 000 = 1383.22...
        assert!(close(s.cc.bwe(), 19.0 / 21.0 * 10_000.0 / 21.0 + 20_000.0 / 21.0), "{}", s.cc.bwe());
    }

    #[test]
    fn virtual_null_samples_after_tau_over_m_without_acks() {
        // τ = 1 s, m = 2: a virtual sample every 0.5 s. Prime: BWE_1 = 10 000/21.
        let mut s = TestSender::new(Westwood::from(Config::default()), 10.0);
        s.ack_n(1);
        s.advance(ms(100));
        s.ack_n(1);
        let b1 = 10_000.0 / 21.0;
        // Next ACK 1.2 s later: virtual samples at +0.5 s and +1.0 s (Δ = 0.5:
        // coefficients 1.5/2.5 = 0.6 and 0.5/2.5 = 0.2), then the ACK's own
        // sample over the remaining 0.2 s: 1000 B / 0.2 s = 5000 B/s,
        // coefficients 1.8/2.2 and 0.2/2.2.
        s.advance(ms(1200));
        s.ack_n(1);
        let v1 = 0.6 * b1 + 0.2 * (0.0 + 10_000.0);
        let v2 = 0.6 * v1 + 0.2 * (0.0 + 0.0);
        let want = 1.8 / 2.2 * v2 + 0.2 / 2.2 * (5_000.0 + 0.0);
        assert!(close(s.cc.bwe(), want), "{} != {want}", s.cc.bwe());
    }

    #[test]
    fn duplicate_acks_count_one_segment_and_the_cumulative_ack_what_is_left() {
        let mut e = Estimator::new(&Config::default());
        // Three duplicates: 1 each, 3 accounted for.
        assert_eq!((0..3).map(|_| e.acked_count(0)).sum::<u64>(), 3);
        // A cumulative ACK of 5 segments: 5 - 3 = 2 new, none left over.
        assert_eq!(e.acked_count(5), 2);
        assert_eq!(e.accounted_for, 0);
        // Four duplicates, then an ACK of 3: covered by them, counts 1, 1 left.
        for _ in 0..4 {
            e.acked_count(0);
        }
        assert_eq!(e.acked_count(3), 1);
        assert_eq!(e.accounted_for, 1);
        // A plain ACK of one segment counts one and leaves the tally alone.
        assert_eq!(e.acked_count(1), 1);
        assert_eq!(e.accounted_for, 1);
    }

    #[test]
    fn acks_at_one_instant_are_merged_into_the_next_sample() {
        let mut e = Estimator::new(&Config::default());
        let t0 = SimTime::ZERO + ms(1000);
        e.on_ack(t0, 1, 1000);
        let t1 = t0 + ms(100);
        e.on_ack(t1, 1, 1000);
        let after_one = e.bwe();
        e.on_ack(t1, 1, 1000); // same instant: held
        assert_eq!(e.bwe(), after_one);
        e.on_ack(t1 + ms(100), 1, 1000); // 2 segments over 100 ms: 20 000 B/s
        let want = 19.0 / 21.0 * after_one + (20_000.0 + 10_000.0) / 21.0;
        assert!(close(e.bwe(), want), "{} != {want}", e.bwe());
    }

    #[test]
    fn fast_retransmit_caps_cwnd_at_bwe_times_rtt_min_and_timeout_restarts() {
        let mut s = TestSender::new(Westwood::from(Config::default()), 30.0);
        s.cc.estimator.bwe = 100_000.0; // 800 kbit/s
        s.state.min_rtt = Some(ms(80));
        s.state.segments_in_flight = 30;
        // ssthresh = 100 000 B/s * 0.08 s / 1000 B = 8 segments; cwnd 30 -> 8.
        assert!(close(s.lose(LossKind::FastRetransmit), 8.0));
        assert!(close(s.state.cwnd, 8.0));
        // A window already below ssthresh is kept (no forced increase).
        s.set_cong_state(super::super::CongState::Open);
        s.state.cwnd = 5.0;
        s.lose(LossKind::FastRetransmit);
        assert_eq!(s.state.cwnd, 5.0);
        // Timeout: the same ssthresh, cwnd 1; a tiny estimate gives 2.
        s.set_cong_state(super::super::CongState::Open);
        assert!(close(s.lose(LossKind::Timeout), 8.0));
        assert_eq!(s.state.cwnd, 1.0);
        s.cc.estimator.bwe = 1_000.0;
        assert_eq!(s.lose(LossKind::Timeout), 2.0);
    }

    #[test]
    fn parameters_are_validated_naming_the_key() {
        let at = "flows[0].cc_params";
        assert_eq!(Config { tau_s: 0.0, ..Config::default() }.validate(at).unwrap_err().key, "flows[0].cc_params.tau_s");
        let err = Config { virtual_sample_divisor: 1.5, ..Config::default() }.validate(at).unwrap_err();
        assert_eq!(err.key, "flows[0].cc_params.virtual_sample_divisor");
        assert!(Config::default().validate(at).is_ok());
    }
}
