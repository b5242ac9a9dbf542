//! TCP Veno (Fu, Liew, "TCP Veno: TCP enhancement for transmission over
//! wireless access networks", IEEE JSAC 21(2), 2003; Linux `tcp_veno.c`).
//!
//! Veno estimates the sender's backlog in the bottleneck queue as Vegas
//! does, `N = Actual * (RTT - BaseRTT) = cwnd * (RTT - BaseRTT) / RTT`, and
//! uses it two ways:
//!
//! - **Loss**: with `N < beta` the loss is taken as random (wireless), and
//!   ssthresh = cwnd * 4/5; otherwise as congestion, ssthresh = cwnd / 2
//!   (floored at 2, as `tcp_veno_ssthresh`). The window after a fast
//!   retransmit is ssthresh (the socket adds the duplicate-ACK inflation).
//!   Linux applies the same `ssthresh` on timeouts; so does this file.
//! - **Congestion avoidance**: `cwnd += 1/cwnd` per segment acknowledged
//!   while `N < beta`; once `N >= beta`, on every other segment only (the
//!   paper's "every other new ACK", Linux's "every other RTT").
//!
//! Slow start is Reno's. Constants and mechanics from `tcp_veno.c`:
//! `beta = 3` (`3 << V_PARAM_SHIFT`, segments); BaseRTT is the smallest RTT
//! sample ever seen; RTT is the smallest sample since the previous window
//! update (`minrtt`, reset after every `cong_avoid`); Veno's rule is used
//! only after more than two RTT samples (`cntrtt > 2`, Reno before), and
//! only in the Open state (`veno_enable` / `veno_disable` on state changes).
//! N keeps its last value between updates and starts at 0, so a loss
//! before any estimate takes the 4/5 branch, as in Linux.
//!
//! Differences from `tcp_veno.c`, all from windows being f64 here:
//! N is real-valued (Linux keeps it in half segments); the increase is
//! per segment (`1/cwnd`, or every other segment) instead of whole
//! segments per RTT; an ACK without an RTT sample leaves N as it was
//! (Linux would compute it from its "no sample" sentinel).

use super::{reno_increase, reno_slow_start, CongState, CongestionControl, LossKind, TcpState};
use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Veno parameters (Fu & Liew 2003 section III; `tcp_veno.c`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "VenoParams")]
pub struct Config {
    /// Backlog threshold, segments: N < beta means no congestion. Default 3
    /// (Fu & Liew 2003; `tcp_veno.c` `beta = 3 << V_PARAM_SHIFT`).
    pub beta: f64,
    /// ssthresh = factor * cwnd on a loss with N < beta. Default 0.8
    /// (Fu & Liew 2003 "cwnd * (4/5)"; `tcp_veno.c` `snd_cwnd * 4 / 5`).
    pub random_loss_factor: f64,
    /// ssthresh = factor * cwnd on a loss with N >= beta. Default 0.5
    /// (Reno's halving; `tcp_veno.c` `snd_cwnd >> 1`).
    pub congestion_loss_factor: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config { beta: 3.0, random_loss_factor: 0.8, congestion_loss_factor: 0.5 }
    }
}

#[derive(Debug, Clone)]
pub struct Veno {
    config: Config,
    /// Smallest RTT sample ever (`basertt`).
    base_rtt: Option<SimDuration>,
    /// Smallest RTT sample since the last window update (`minrtt`).
    min_rtt: Option<SimDuration>,
    /// RTT samples so far (`cntrtt`, never reset, as in `tcp_veno.c`).
    rtt_samples: u64,
    /// Veno is on in the Open state only (`doing_veno_now`).
    enabled: bool,
    /// Backlog estimate N, segments (`diff`).
    backlog: f64,
    /// In the congestive state, whether the next segment increases cwnd.
    inc: bool,
}

impl From<Config> for Veno {
    fn from(config: Config) -> Self {
        Veno { config, base_rtt: None, min_rtt: None, rtt_samples: 0, enabled: true, backlog: 0.0, inc: true }
    }
}

impl Veno {
    /// The latest backlog estimate N, segments.
    pub fn backlog(&self) -> f64 {
        self.backlog
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn init(&mut self, _state: &mut TcpState) {
        self.base_rtt = None;
        self.min_rtt = None;
        self.inc = true;
        self.enabled = true;
    }

    fn ssthresh(&self, state: &TcpState, _loss: LossKind) -> f64 {
        let factor = if self.backlog < self.config.beta { self.config.random_loss_factor } else { self.config.congestion_loss_factor };
        (state.cwnd * factor).max(2.0)
    }

    fn pkts_acked(&mut self, _state: &TcpState, _segments_acked: u32, rtt: Option<SimDuration>) {
        let Some(rtt) = rtt.filter(|r| *r > SimDuration::ZERO) else { return };
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.rtt_samples += 1;
    }

    fn state_set(&mut self, _state: &TcpState, new_state: CongState) {
        if new_state == CongState::Open {
            self.enabled = true;
            self.min_rtt = None;
        } else {
            self.enabled = false;
        }
    }

    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        if !self.enabled || self.rtt_samples <= 2 {
            reno_increase(state, segments_acked);
        } else {
            if let (Some(rtt), Some(base)) = (self.min_rtt, self.base_rtt) {
                let rtt_ns = rtt.as_nanos() as f64;
                self.backlog = state.cwnd * (rtt_ns - base.as_nanos() as f64) / rtt_ns;
            }
            let mut left = segments_acked;
            if state.in_slow_start() {
                left = reno_slow_start(state, segments_acked);
            }
            for _ in 0..left {
                if self.backlog < self.config.beta {
                    state.cwnd += 1.0 / state.cwnd;
                } else {
                    if self.inc {
                        state.cwnd += 1.0 / state.cwnd;
                    }
                    self.inc = !self.inc;
                }
            }
        }
        self.min_rtt = None;
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("veno_backlog", self.backlog)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::LossKind;
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_nanos(v * 1_000_000)
    }

    /// A sender in congestion avoidance at cwnd 10 with BaseRTT = 100 ms
    /// and three RTT samples behind it.
    fn sender() -> TestSender<Veno> {
        let mut s = TestSender::new(Veno::from(Config::default()), 10.0);
        s.state.ssthresh = 10.0;
        s.ack_n_with_rtt(3, ms(100));
        s.state.cwnd = 10.0;
        s
    }

    #[test]
    fn small_backlog_grows_as_reno_and_cuts_by_a_fifth() {
        let mut s = sender();
        // RTT 120 ms: N = 10 * (120 - 100) / 120 = 1.667 < 3.
        s.ack_n_with_rtt(1, ms(120));
        assert!((s.cc.backlog() - 1.666_666_666_7).abs() < 1e-9, "{}", s.cc.backlog());
        assert!((s.state.cwnd - 10.1).abs() < 1e-12, "{}", s.state.cwnd); // + 1/10
        s.ack_n_with_rtt(1, ms(120)); // + 1/10.1 = 0.0990099
        assert!((s.state.cwnd - 10.199_009_901).abs() < 1e-8, "{}", s.state.cwnd);
        // Random loss: ssthresh = 10.199009901 * 4/5 = 8.159207921.
        s.state.segments_in_flight = 10;
        let ssthresh = s.lose(LossKind::FastRetransmit);
        assert!((ssthresh - 8.159_207_921).abs() < 1e-8, "{ssthresh}");
        assert_eq!(s.state.cwnd, ssthresh);
    }

    #[test]
    fn large_backlog_grows_every_other_ack_and_halves() {
        let mut s = sender();
        // RTT 150 ms: N = 10 * 50 / 150 = 3.333 >= 3: congestive.
        s.ack_n_with_rtt(1, ms(150)); // first of two: + 1/10
        assert!((s.cc.backlog() - 3.333_333_333_3).abs() < 1e-9, "{}", s.cc.backlog());
        assert!((s.state.cwnd - 10.1).abs() < 1e-12, "{}", s.state.cwnd);
        s.ack_n_with_rtt(1, ms(150)); // second: no increase
        assert!((s.state.cwnd - 10.1).abs() < 1e-12, "{}", s.state.cwnd);
        s.ack_n_with_rtt(1, ms(150)); // third: + 1/10.1
        assert!((s.state.cwnd - 10.199_009_901).abs() < 1e-8, "{}", s.state.cwnd);
        s.ack_n_with_rtt(1, ms(150)); // fourth: none
        assert!((s.state.cwnd - 10.199_009_901).abs() < 1e-8, "{}", s.state.cwnd);
        // Congestion loss: ssthresh = 10.199009901 / 2 = 5.099504950.
        let ssthresh = s.lose(LossKind::FastRetransmit);
        assert!((ssthresh - 5.099_504_950).abs() < 1e-8, "{ssthresh}");
    }

    #[test]
    fn reno_until_three_samples_and_outside_open() {
        let mut s = TestSender::new(Veno::from(Config::default()), 10.0);
        s.state.ssthresh = 10.0;
        // Two samples at 300 ms would be N = 0 against themselves anyway;
        // with <= 2 samples Veno is Reno: 10 -> 10.1 -> 10.1990099.
        s.ack_n_with_rtt(2, ms(300));
        assert!((s.state.cwnd - 10.199_009_901).abs() < 1e-8, "{}", s.state.cwnd);
        assert_eq!(s.cc.backlog(), 0.0);
        // No estimate yet: N = 0 < 3, a loss cuts to 4/5: 8.159207921.
        let ssthresh = s.lose(LossKind::Timeout);
        assert!((ssthresh - 8.159_207_921).abs() < 1e-8, "{ssthresh}");
        // In Loss (after the timeout) Veno is off: Reno slow start 1 -> 2.
        s.ack_n_with_rtt(1, ms(100));
        assert_eq!(s.state.cwnd, 2.0);
    }

    #[test]
    fn slow_start_is_reno() {
        let mut s = TestSender::new(Veno::from(Config::default()), 2.0);
        s.state.ssthresh = 8.0;
        s.ack_round(); // 2 -> 4
        s.ack_round(); // 4 -> 8
        assert_eq!(s.state.cwnd, 8.0);
    }
}
