//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed
//! wide area networks", ACM CCR 33(2), 2003), as docs/scalable-manet.md states it
//! for seed 004 (Jehan): slow start as usual (RFC 5681 3.1); in congestion
//! avoidance `cwnd += a` for every segment acknowledged, `a = 0.01`; on a
//! loss `cwnd = b * cwnd`, `b = 0.875`, so ssthresh = 0.875 cwnd and the
//! window after a fast retransmit is that value (before the socket's
//! duplicate-ACK inflation). A timeout sets ssthresh the same way and
//! cwnd = 1 (the socket's RFC 5681 loss window).
//!
//! ssthresh is floored at 2 segments (RFC 5681 eq. 4 and tcp_scalable.c),
//! so repeated losses at tiny windows still leave a slow-start target.
//!
//! **Difference from Linux's `tcp_scalable.c`** (the code seed 004 ran
//! through ns-2 TCP-Linux): Linux calls `tcp_cong_avoid_ai(tp,
//! min(cwnd, TCP_SCALABLE_AI_CNT), acked)`, i.e. +1 segment per
//! `min(cwnd, AI_CNT)` acknowledged segments. That is Reno's 1/cwnd per
//! segment whenever cwnd < AI_CNT, and 0.01 per segment only above it.
//! `TCP_SCALABLE_AI_CNT` is 100 in current kernels and was 50 in the
//! 2.6-era file ("to account for delayed ack", i.e. 0.02 per segment).
//! Multi-hop 802.11 windows rarely exceed 20 segments, so Linux's Scalable
//! behaves as Reno there, while Kelly's rule (the default here) grows more
//! slowly than Reno for cwnd < 100; `cc_params.increase = "linux"` runs
//! Linux's rule (`ai_cnt` 50, the 2.6.22 file ns-2.35 carries). Linux's
//! decrease is 7/8 in whole segments, `max(cwnd - (cwnd >> 3), 2)`
//! (tcp/linux/src/tcp_scalable.c:44-48 in ns-2.35): the cut `cwnd >> 3`
//! is truncated, so a window below 8 segments keeps its size, one of 8-15
//! loses one segment, 16-23 two. Kelly's `b * cwnd` (the default) cuts
//! 1/8 of any window; `cc_params.decrease = "linux"` runs Linux's
//! integer rule, with `tcp_reno_min_cwnd`'s whole `ssthresh / 2`
//! (tcp_cong.c:374-379) as the recovery's floor.
//!
//! Increments are per acknowledged segment, like this crate's Reno
//! ([`super::reno_increase`]); with one segment per ACK that is Kelly's
//! per-ACK rule.

use super::{reno_slow_start, CongestionControl, LossKind, TcpState};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Scalable TCP parameters (Kelly 2003, section 2; seed 004 section II.B.3:
/// "typical values ... a = 0.01 and b = 0.875").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "ScalableParams")]
pub struct Config {
    /// Congestion-avoidance increase per acknowledged segment, segments.
    /// Default 0.01 (Kelly 2003).
    pub a: f64,
    /// Multiplicative decrease on loss: ssthresh = b * cwnd. Default 0.875
    /// (Kelly 2003).
    pub b: f64,
    /// Congestion-avoidance increase rule: `"kelly"` (default): `a` per
    /// acknowledged segment; `"linux"`: +1 per `min(cwnd, ai_cnt) + 1`
    /// acknowledged segments, `tcp_scalable.c`'s rule (what ns-2.35's
    /// TCP-Linux, and so seed 004, ran; tcp/linux/src/tcp_scalable.c:35-39),
    /// about Reno's 1/cwnd below `ai_cnt`.
    pub increase: ScalableIncrease,
    /// With `increase = "linux"`: `TCP_SCALABLE_AI_CNT`. Default 50, Linux
    /// 2.6.22's as ns-2.35 carries it (tcp/linux/src/tcp_scalable.c:17,
    /// "50 instead of 100 to account for delayed ack"); 100 in current
    /// kernels.
    pub ai_cnt: f64,
    /// Loss response: `"kelly"` (default): ssthresh = `b` x cwnd;
    /// `"linux"`: `tcp_scalable_ssthresh`, max(W - (W >> 3), 2) with W the
    /// whole segments of cwnd (tcp/linux/src/tcp_scalable.c:44-48,
    /// ns-2.35), which leaves a window below 8 unchanged.
    pub decrease: ScalableDecrease,
}

/// `cc_params.decrease` of Scalable TCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScalableDecrease {
    /// Kelly 2003: ssthresh = b * cwnd.
    Kelly,
    /// Linux `tcp_scalable_ssthresh`: W - (W >> 3) in whole segments.
    Linux,
}

/// `cc_params.increase` of Scalable TCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScalableIncrease {
    /// Kelly 2003: `cwnd += a` per acknowledged segment.
    Kelly,
    /// Linux `tcp_scalable_cong_avoid`: +1 per `min(cwnd, ai_cnt) + 1`.
    Linux,
}

impl Default for Config {
    fn default() -> Self {
        Config { a: 0.01, b: 0.875, increase: ScalableIncrease::Kelly, ai_cnt: 50.0, decrease: ScalableDecrease::Kelly }
    }
}

#[derive(Debug, Clone)]
pub struct Scalable {
    config: Config,
}

impl From<Config> for Scalable {
    fn from(config: Config) -> Self {
        Scalable { config }
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    /// b * cwnd (the window, not FlightSize, as Kelly and Linux), at least
    /// 2; Linux's in whole segments with `decrease = "linux"`.
    fn ssthresh(&self, state: &TcpState, _loss: LossKind) -> f64 {
        match self.config.decrease {
            ScalableDecrease::Kelly => (state.cwnd * self.config.b).max(2.0),
            ScalableDecrease::Linux => {
                // tcp_scalable.c:44-48: max(snd_cwnd - (snd_cwnd >> 3), 2U).
                let window = state.cwnd.floor().max(0.0) as u64;
                ((window - (window >> 3)) as f64).max(2.0)
            }
        }
    }

    /// `tcp_reno_min_cwnd` (ns-2.35 tcp/linux/src/tcp_scalable.c:54), in
    /// whole segments with `decrease = "linux"` (tcp_cong.c:374-379).
    fn min_cwnd(&self, _state: &TcpState, new_ssthresh: f64) -> f64 {
        match self.config.decrease {
            ScalableDecrease::Kelly => new_ssthresh / 2.0,
            ScalableDecrease::Linux => (new_ssthresh / 2.0).floor(),
        }
    }

    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        let mut left = segments_acked;
        if state.in_slow_start() {
            left = reno_slow_start(state, segments_acked);
        }
        match self.config.increase {
            ScalableIncrease::Kelly => state.cwnd += self.config.a * left as f64,
            ScalableIncrease::Linux => {
                // `snd_cwnd_cnt > min(snd_cwnd, AI_CNT)`: +1 once the count
                // passes the bound, i.e. per min(cwnd, ai_cnt) + 1 ACKs.
                for _ in 0..left {
                    state.cwnd += 1.0 / (state.cwnd.min(self.config.ai_cnt) + 1.0);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::LossKind;
    use super::*;

    fn sender(cwnd: f64) -> TestSender<Scalable> {
        TestSender::new(Scalable::from(Config::default()), cwnd)
    }

    #[test]
    fn the_linux_decrease_cuts_whole_eighths_so_small_windows_keep_their_size() {
        // tcp_scalable.c:44-48: max(W - (W >> 3), 2) on W = floor(cwnd).
        let linux = Scalable::from(Config { decrease: ScalableDecrease::Linux, ..Config::default() });
        let kelly = Scalable::from(Config::default());
        let mut state = TcpState::new(7.9, 1e9, 1000, crate::time::SimDuration::from_secs_f64(1.0));
        for (cwnd, want) in [(7.9, 7.0), (12.5, 11.0), (16.0, 14.0), (23.99, 21.0), (2.5, 2.0)] {
            state.cwnd = cwnd;
            assert_eq!(linux.ssthresh(&state, LossKind::FastRetransmit), want, "cwnd {cwnd}");
        }
        // Kelly's 7/8: 12.5 -> 10.9375.
        state.cwnd = 12.5;
        assert_eq!(kelly.ssthresh(&state, LossKind::FastRetransmit), 10.9375);
        // tcp_reno_min_cwnd: whole ssthresh / 2.
        assert_eq!(linux.min_cwnd(&state, 11.0), 5.0);
        assert_eq!(kelly.min_cwnd(&state, 11.0), 5.5);
    }

    #[test]
    fn slow_start_is_reno() {
        let mut s = sender(2.0);
        s.state.ssthresh = 8.0;
        s.ack_round(); // 2 acked: 2 -> 4
        assert_eq!(s.state.cwnd, 4.0);
        s.ack_round(); // 4 acked: 4 -> 8
        assert_eq!(s.state.cwnd, 8.0);
    }

    #[test]
    fn avoidance_adds_a_hundredth_per_ack_whatever_the_window() {
        let mut s = sender(10.0);
        s.state.ssthresh = 10.0;
        s.ack_n(1);
        assert!((s.state.cwnd - 10.01).abs() < 1e-12, "{}", s.state.cwnd);
        s.ack_n(99); // 100 ACKs in all: 10 + 100 * 0.01 = 11
        assert!((s.state.cwnd - 11.0).abs() < 1e-9, "{}", s.state.cwnd);
        // At 50 segments Reno (and Linux's tcp_scalable.c, AI_CNT = 100)
        // would add 1/50 = 0.02; Kelly's rule still adds 0.01.
        let mut big = sender(50.0);
        big.state.ssthresh = 50.0;
        big.ack_n(1);
        assert!((big.state.cwnd - 50.01).abs() < 1e-12, "{}", big.state.cwnd);
    }

    #[test]
    fn the_linux_increase_is_reno_below_ai_cnt_and_one_per_ai_cnt_above() {
        let linux = Config { increase: ScalableIncrease::Linux, ..Config::default() };
        let mut s = TestSender::new(Scalable::from(linux.clone()), 10.0);
        s.state.ssthresh = 10.0;
        s.ack_n(1); // 1 / (min(10, 50) + 1): snd_cwnd_cnt > min(cwnd, AI_CNT)
        assert!((s.state.cwnd - (10.0 + 1.0 / 11.0)).abs() < 1e-12, "{}", s.state.cwnd);
        let mut big = TestSender::new(Scalable::from(linux), 80.0);
        big.state.ssthresh = 80.0;
        big.ack_n(1); // 1 / (min(80, 50) + 1): tcp_scalable.c's 2.6.22 AI_CNT
        assert!((big.state.cwnd - (80.0 + 1.0 / 51.0)).abs() < 1e-12, "{}", big.state.cwnd);
    }

    #[test]
    fn loss_keeps_seven_eighths() {
        let mut s = sender(40.0);
        s.state.ssthresh = 10.0;
        s.state.segments_in_flight = 40;
        // 0.875 * 40 = 35: ssthresh and the window after fast retransmit.
        assert_eq!(s.lose(LossKind::FastRetransmit), 35.0);
        assert_eq!(s.state.cwnd, 35.0);

        let mut t = sender(40.0);
        // Timeout at cwnd 40: ssthresh 35, cwnd 1 (RFC 5681 loss window).
        assert_eq!(t.lose(LossKind::Timeout), 35.0);
        assert_eq!(t.state.cwnd, 1.0);
        // A second timeout at cwnd 1: 0.875 is floored at 2.
        assert_eq!(t.lose(LossKind::Timeout), 2.0);
    }
}
