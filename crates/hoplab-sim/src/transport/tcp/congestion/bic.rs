//! BIC-TCP, binary increase congestion control (Xu, Harfoush, Rhee,
//! "Binary increase congestion control (BIC) for fast long-distance
//! networks", IEEE INFOCOM 2004), as Linux `tcp_bic.c` implements it with
//! its defaults (seed 004 ran it through ns-2 TCP-Linux, docs/scalable-manet.md).
//!
//! After a loss at window W, BIC remembers Wmax and searches for the
//! saturation point between the reduced window and Wmax. `tcp_bic.c`
//! expresses the growth as `cnt`, the segments to acknowledge per +1
//! segment of cwnd; per acknowledged segment cwnd grows by 1/cnt, i.e. by
//! cwnd/cnt per RTT (B = `BICTCP_B` = 4):
//!
//! - cwnd <= low_window: cnt = cwnd (Reno, +1 per RTT);
//! - cwnd < Wmax, binary search: dist = (Wmax - cwnd) / B; dist >
//!   max_increment: +max_increment per RTT (the cap, "linear increase");
//!   dist <= 1: +B / smooth_part per RTT (creep near Wmax); otherwise
//!   +dist per RTT (a quarter of the remaining distance);
//! - cwnd >= Wmax, max probing: below Wmax + B: +B / smooth_part per RTT;
//!   below Wmax + max_increment * (B - 1): +(cwnd - Wmax) / (B - 1) per
//!   RTT (slow start away from Wmax); beyond: +max_increment per RTT;
//! - without a Wmax yet (no loss since the start or a timeout) cnt is at
//!   most 20 (at least +5 % per RTT);
//! - cnt >= 1 (at most +1 per segment).
//!
//! On a loss (`bictcp_recalc_ssthresh`): with fast convergence, if cwnd <
//! Wmax, Wmax = cwnd * (1 + beta) / 2, else Wmax = cwnd; ssthresh =
//! max(cwnd / 2, 2) if cwnd <= low_window, else max(cwnd * beta, 2). The
//! window after a fast retransmit is ssthresh. A timeout (state Loss)
//! resets BIC (`bictcp_state`: Wmax = 0). Slow start is Reno's.
//!
//! Constants (`tcp_bic.c` module parameters): beta = 819/1024 (`beta =
//! 819`, `BICTCP_BETA_SCALE` 1024), max_increment = 16, low_window = 14,
//! smooth_part = 20, fast_convergence = 1, `BICTCP_B` = 4; initial_ssthresh
//! unset (0 in current kernels; early 2.6 kernels used 100).
//!
//! Float conversion (windows are f64 here): cnt and dist are real-valued
//! (Linux divides integers), cwnd grows by 1/cnt per segment instead of by
//! whole segments, and cnt is recomputed on every segment (Linux only when
//! cwnd changed or 1/32 s passed). Linux also scales cnt by its delayed-ACK
//! ratio estimate (`delayed_ack`, packets per ACK) because its 2.6-era
//! `cong_avoid` counted ACKs, not segments; counting segments, as here,
//! makes that scaling unnecessary, so it is left out by default. It is not
//! neutral, though: `delayed_ack` is a Q4 fixed-point u32 that starts at 2
//! and moves by `cnt - (delayed_ack >> 4)` per ACK in the Open state, and
//! with one segment per ACK that integer update stops at 31/16, so Linux's
//! BIC (and CUBIC, the same code) grows 31/16 as fast as the algorithm.
//! `delayed_ack_ratio = true` runs Linux's estimator and scaling
//! ([`LinuxAckRatio`]; `tcp_bic.c`:135, 214-225 in the 2.6.22 file ns-2.35's
//! TCP-Linux carries, which calls it from tcp/tcp-linux.cc:374-382).
//!
//! `ssthresh` is a query that must not change the controller, but Linux
//! updates Wmax in it: here `ssthresh` only notes the window it was asked
//! at (a `Cell`), and the Wmax update happens when the state changes to
//! Recovery, right after (the socket's order: ssthresh, cwnd, state).

use super::{reno_slow_start, CongState, CongestionControl, LossKind, TcpState};
use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cell::Cell;

/// BIC parameters (Linux `tcp_bic.c` module parameters and defines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "BicParams")]
pub struct Config {
    /// Multiplicative decrease: ssthresh = beta * cwnd above low_window.
    /// Default 819/1024 = 0.7998 (`tcp_bic.c` `beta = 819`, scale 1024).
    pub beta: f64,
    /// Largest increase per RTT, segments. Default 16 (`max_increment`).
    pub max_increment: f64,
    /// At or below this window BIC is Reno. Default 14 (`low_window`).
    pub low_window: f64,
    /// RTTs to creep the last B segments to Wmax. Default 20 (`smooth_part`).
    pub smooth_part: f64,
    /// Binary-search divisor: move 1/b of the distance to Wmax per RTT.
    /// Default 4 (`tcp_bic.c` `#define BICTCP_B 4`).
    pub b: f64,
    /// Lower Wmax further on a loss below the previous Wmax. Default true
    /// (`fast_convergence = 1`).
    pub fast_convergence: bool,
    /// ssthresh at the start, segments; `null` leaves the socket's (RFC
    /// 5681: arbitrarily high). Default null (`initial_ssthresh` = 0, off,
    /// in current `tcp_bic.c`; early 2.6 kernels used 100).
    #[serde(default)]
    pub initial_ssthresh: Option<f64>,
    /// Scale the increase by Linux's packets-per-ACK estimate
    /// (`delayed_ack`), which one segment per ACK leaves at 31/16. Default
    /// false (the algorithm; `tcp_bic.c`'s `bictcp_acked` when true).
    pub delayed_ack_ratio: bool,
}

/// Linux 2.6's packets-per-ACK estimate of `tcp_bic.c` and `tcp_cubic.c`
/// (`delayed_ack`, Q4 fixed point, u32): 2 at the start and after a
/// timeout (`bictcp_reset`); each ACK that acknowledges `cnt` segments in
/// the Open state does `cnt -= delayed_ack >> 4; delayed_ack += cnt` in u32
/// arithmetic (`bictcp_acked`), and the increase divides the controller's
/// cnt by `delayed_ack / 16` (`ca->cnt = (ca->cnt << 4) / ca->delayed_ack`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinuxAckRatio(u32);

impl Default for LinuxAckRatio {
    fn default() -> Self {
        LinuxAckRatio(2 << 4)
    }
}

impl LinuxAckRatio {
    pub fn acked(&mut self, segments: u32, state: CongState) {
        if segments > 0 && state == CongState::Open {
            let cnt = segments.wrapping_sub(self.0 >> 4);
            self.0 = self.0.wrapping_add(cnt);
        }
    }

    /// Packets per ACK, the factor the increase is multiplied by.
    pub fn factor(&self) -> f64 {
        f64::from(self.0) / 16.0
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            beta: 819.0 / 1024.0,
            max_increment: 16.0,
            low_window: 14.0,
            smooth_part: 20.0,
            b: 4.0,
            fast_convergence: true,
            initial_ssthresh: None,
            delayed_ack_ratio: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Bic {
    config: Config,
    /// Window before the last reduction, after fast convergence
    /// (`last_max_cwnd`); 0 when unknown.
    w_max: f64,
    /// The window `ssthresh` was last asked at, applied on entering Recovery.
    loss_cwnd: Cell<Option<f64>>,
    /// With `delayed_ack_ratio`.
    ack_ratio: LinuxAckRatio,
}

impl From<Config> for Bic {
    fn from(config: Config) -> Self {
        Bic { config, w_max: 0.0, loss_cwnd: Cell::new(None), ack_ratio: LinuxAckRatio::default() }
    }
}

impl Bic {
    /// Wmax (`last_max_cwnd`), 0 before any loss or after a timeout.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// `bictcp_update`: segments to acknowledge per +1 of cwnd.
    fn cnt(&self, cwnd: f64) -> f64 {
        let c = &self.config;
        let w_max = self.w_max;
        let mut cnt = if cwnd <= c.low_window {
            cwnd
        } else if cwnd < w_max {
            let dist = (w_max - cwnd) / c.b;
            if dist > c.max_increment {
                cwnd / c.max_increment
            } else if dist <= 1.0 {
                cwnd * c.smooth_part / c.b
            } else {
                cwnd / dist
            }
        } else if cwnd < w_max + c.b {
            cwnd * c.smooth_part / c.b
        } else if cwnd < w_max + c.max_increment * (c.b - 1.0) {
            cwnd * (c.b - 1.0) / (cwnd - w_max)
        } else {
            cwnd / c.max_increment
        };
        if cwnd > c.low_window && w_max == 0.0 {
            cnt = cnt.min(20.0); // no loss yet: at least +5 % per RTT
        }
        cnt.max(1.0)
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn init(&mut self, state: &mut TcpState) {
        self.w_max = 0.0;
        self.ack_ratio = LinuxAckRatio::default();
        if let Some(ssthresh) = self.config.initial_ssthresh {
            state.ssthresh = ssthresh;
        }
    }

    fn ssthresh(&self, state: &TcpState, _loss: LossKind) -> f64 {
        self.loss_cwnd.set(Some(state.cwnd));
        if state.cwnd <= self.config.low_window {
            (state.cwnd / 2.0).max(2.0)
        } else {
            (state.cwnd * self.config.beta).max(2.0)
        }
    }

    fn state_set(&mut self, _state: &TcpState, new_state: CongState) {
        match new_state {
            CongState::Recovery => {
                if let Some(cwnd) = self.loss_cwnd.take() {
                    self.w_max =
                        if cwnd < self.w_max && self.config.fast_convergence { cwnd * (1.0 + self.config.beta) / 2.0 } else { cwnd };
                }
            }
            CongState::Loss => {
                self.loss_cwnd.set(None);
                self.w_max = 0.0; // bictcp_reset
                self.ack_ratio = LinuxAckRatio::default();
            }
            _ => {}
        }
    }

    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        let mut left = segments_acked;
        if state.in_slow_start() {
            left = reno_slow_start(state, segments_acked);
        }
        let factor = if self.config.delayed_ack_ratio { self.ack_ratio.factor() } else { 1.0 };
        for _ in 0..left {
            // Linux: cnt = max(1, cnt * 16 / delayed_ack).
            state.cwnd += 1.0 / (self.cnt(state.cwnd) / factor).max(1.0);
        }
    }

    fn pkts_acked(&mut self, state: &TcpState, segments_acked: u32, _rtt: Option<SimDuration>) {
        if self.config.delayed_ack_ratio {
            self.ack_ratio.acked(segments_acked, state.cong_state);
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("bic_w_max", self.w_max)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::{CongState, LossKind};
    use super::*;

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-9, "got {got}, want {want}");
    }

    /// A fast retransmit at cwnd 1024 and the end of its recovery:
    /// Wmax = 1024, ssthresh = cwnd = 1024 * 819/1024 = 819.
    fn after_loss_at_1024() -> TestSender<Bic> {
        let mut s = TestSender::new(Bic::from(Config::default()), 1024.0);
        s.state.ssthresh = 1000.0;
        s.state.segments_in_flight = 1024;
        assert_eq!(s.lose(LossKind::FastRetransmit), 819.0);
        s.end_recovery(); // min(819, 1025)
        assert_eq!(s.state.cwnd, 819.0);
        assert_eq!(s.cc.w_max(), 1024.0);
        s
    }

    #[test]
    fn linux_ack_ratio_stops_at_31_sixteenths_with_one_segment_per_ack() {
        // tcp_bic.c bictcp_acked in u32: 32 -> 32 + (1 - 2) = 31, then
        // 1 - (31 >> 4) = 0 leaves it at 31 for good.
        let mut r = LinuxAckRatio::default();
        assert_eq!(r.factor(), 2.0);
        r.acked(1, CongState::Open);
        assert_eq!(r, LinuxAckRatio(31));
        for _ in 0..1000 {
            r.acked(1, CongState::Open);
        }
        assert_eq!(r.factor(), 31.0 / 16.0);
        // Not in recovery; ACKs of two segments move it up.
        r.acked(5, CongState::Recovery);
        assert_eq!(r, LinuxAckRatio(31));
        r.acked(2, CongState::Open);
        assert_eq!(r, LinuxAckRatio(32));
    }

    #[test]
    fn with_linux_ack_ratio_reno_mode_grows_31_sixteenths_as_fast() {
        // cwnd 10 <= low_window: cnt = 10; Linux divides it by 31/16.
        let mut plain = TestSender::new(Bic::from(Config::default()), 10.0);
        plain.state.ssthresh = 5.0;
        plain.ack_n(10);
        let mut linux = TestSender::new(Bic::from(Config { delayed_ack_ratio: true, ..Config::default() }), 10.0);
        linux.state.ssthresh = 5.0;
        linux.ack_n(10);
        // Every ACK sees 31/16 (the estimate moves before the increase);
        // the faster-growing window makes cnt a little larger, so the gain
        // is a little under 31/16 of Reno's.
        let plain_gain = plain.state.cwnd - 10.0;
        let linux_gain = linux.state.cwnd - 10.0;
        assert!((plain_gain - 1.0).abs() < 0.05, "{plain_gain}");
        assert!((1.8..=1.9375).contains(&(linux_gain / plain_gain)), "{linux_gain} vs {plain_gain}");
        // A timeout resets the estimate (bictcp_reset).
        linux.lose(LossKind::Timeout);
        assert_eq!(linux.cc.ack_ratio, LinuxAckRatio::default());
    }

    #[test]
    fn far_below_wmax_the_increase_is_capped() {
        let mut s = after_loss_at_1024();
        // dist = (1024 - 819) / 4 = 51.25 > 16: cnt = 819 / 16, so each ACK
        // adds 16 / 819 = 0.0195360195.
        s.ack_n(1);
        close(s.state.cwnd, 819.019_536_019_536);
    }

    #[test]
    fn binary_search_moves_a_quarter_of_the_distance_per_rtt() {
        let mut s = after_loss_at_1024();
        s.state.cwnd = 1000.0;
        // dist = (1024 - 1000) / 4 = 6: cnt = 1000 / 6, + 6 / 1000.
        s.ack_n(1);
        close(s.state.cwnd, 1000.006);
        // dist = (1024 - 1000.006) / 4 = 5.9985: + 5.9985 / 1000.006
        // = 0.005998464 -> 1000.011998464.
        s.ack_n(1);
        close(s.state.cwnd, 1_000.011_998_464_009);
        // Within B = 4 of Wmax (dist <= 1): cnt = 1022 * 20 / 4 = 5110.
        s.state.cwnd = 1022.0;
        s.ack_n(1);
        close(s.state.cwnd, 1_022.000_195_694_716);
    }

    #[test]
    fn max_probing_above_wmax() {
        let mut s = after_loss_at_1024();
        // Below Wmax + 4: cnt = 1026 * 20 / 4 = 5130.
        s.state.cwnd = 1026.0;
        s.ack_n(1);
        close(s.state.cwnd, 1_026.000_194_931_774);
        // Below Wmax + 16 * 3 = 1072: cnt = 1030 * 3 / (1030 - 1024) = 515.
        s.state.cwnd = 1030.0;
        s.ack_n(1);
        close(s.state.cwnd, 1_030.001_941_747_573);
        // Beyond: cnt = 1100 / 16 = 68.75, + 0.0145454545.
        s.state.cwnd = 1100.0;
        s.ack_n(1);
        close(s.state.cwnd, 1_100.014_545_454_545);
    }

    #[test]
    fn fast_convergence_and_low_window() {
        let mut s = after_loss_at_1024();
        // A loss at 900 < Wmax = 1024: Wmax = 900 * (1024 + 819) / 2048
        // = 809.912109375; ssthresh = 900 * 819 / 1024 = 719.82421875.
        s.state.cwnd = 900.0;
        s.state.segments_in_flight = 900;
        assert_eq!(s.lose(LossKind::FastRetransmit), 719.824_218_75);
        assert_eq!(s.cc.w_max(), 809.912_109_375);
        // At or below low_window = 14, Reno: cwnd 10 grows by 1/10, a loss
        // halves it.
        let mut r = TestSender::new(Bic::from(Config::default()), 10.0);
        r.state.ssthresh = 10.0;
        r.ack_n(1);
        close(r.state.cwnd, 10.1);
        r.state.cwnd = 10.0;
        assert_eq!(r.lose(LossKind::FastRetransmit), 5.0);
    }

    #[test]
    fn without_wmax_at_least_five_percent_and_timeout_resets() {
        let mut s = after_loss_at_1024();
        s.state.cwnd = 500.0;
        s.state.segments_in_flight = 500;
        // Timeout: ssthresh = 500 * 819 / 1024 = 399.90234375, then the Loss
        // state resets Wmax to 0.
        assert_eq!(s.lose(LossKind::Timeout), 399.902_343_75);
        assert_eq!(s.cc.w_max(), 0.0);
        // cwnd 100 in congestion avoidance without Wmax: cwnd >= Wmax + 48,
        // cnt = 100 / 16 = 6.25 (under the cap of 20): + 0.16.
        s.state.cwnd = 100.0;
        s.state.ssthresh = 100.0;
        s.ack_n(1);
        close(s.state.cwnd, 100.16);
    }

    #[test]
    fn initial_ssthresh_parameter() {
        let s = TestSender::new(Bic::from(Config { initial_ssthresh: Some(100.0), ..Config::default() }), 2.0);
        assert_eq!(s.state.ssthresh, 100.0);
    }
}
