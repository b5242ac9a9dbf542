//! CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks", 2023).
//!
//! In congestion avoidance the window follows (RFC 9438 section 4.2)
//!
//! ```text
//! W_cubic(t) = C * (t - K)^3 + W_max,    K = cbrt((W_max - cwnd_epoch) / C)
//! ```
//!
//! with t the time since the congestion-avoidance stage began (`t_epoch`,
//! from `state.now`) and cwnd_epoch the window then. On each new ACK:
//!
//! - Reno-friendly region (4.3): W_est starts at cwnd_epoch and grows by
//!   `alpha_cubic * segments_acked / cwnd`, alpha_cubic = 3 (1 - beta) /
//!   (1 + beta) until W_est reaches cwnd_prior, then 1. If W_cubic(t) <
//!   W_est, cwnd = W_est.
//! - Otherwise (concave 4.4, convex 4.5): target = W_cubic(t + RTT) bounded
//!   to [cwnd, 1.5 cwnd], cwnd += (target - cwnd) / cwnd. RTT is the
//!   smoothed RTT (RFC 9438 section 4.1.2: "calculated as described in
//!   RFC 6298", `state.srtt`; min_rtt, then 0, before any sample).
//!
//! A congestion event (4.6, 4.7): W_max = cwnd, or cwnd * (1 + beta) / 2
//! with fast convergence when cwnd < W_max; cwnd_prior = cwnd; ssthresh =
//! max(flight_size * beta, 2) (RFC 9438 section 4.6: FlightSize, not cwnd;
//! `ssthresh_from = "cwnd"`: cwnd * beta, as Linux's `tcp_cubic.c`, which the
//! RFC allows); the window after a fast retransmit is ssthresh. A timeout (4.8): ssthresh as
//! above, cwnd = 1 (the socket), and the first congestion-avoidance stage
//! after it uses K = 0 and W_max = cwnd_epoch. A stage with no congestion
//! event before it (W_max unknown) is treated the same way, with cwnd_prior
//! = cwnd (the RFC's rule for leaving HyStart++ without a loss). Slow start
//! is Reno's (4.10 allows it; HyStart++ is not implemented).
//!
//! Constants: C = 0.4 (RFC 9438 section 5.1: "C SHOULD be set to 0.4"),
//! beta_cubic = 0.7 (section 4.6: "SHOULD be set to 0.7"); fast convergence
//! on (section 4.7: "SHOULD be implemented", as Linux `fast_convergence = 1`;
//! the RFC advises turning it off for a single flow alone on its path).
//!
//! Decisions: the increase is per acknowledged segment,
//! `segments_acked * (target - cwnd) / cwnd` (never beyond target), as
//! Linux and ns-3 count acknowledged segments; the RFC words it per ACK,
//! which is the same with one segment per ACK. Spurious-loss undo (4.9) and
//! application-limited epochs are not modelled (the senders here are bulk).
//!
//! `ssthresh` is a query that must not change the controller: it only notes
//! the window it was asked at (a `Cell`); W_max and cwnd_prior are updated
//! when the state changes to Recovery right after (the socket's order:
//! ssthresh, cwnd, state), and on a timeout in `cwnd_event(Timeout)`.

use super::bic::LinuxAckRatio;
use super::{reno_slow_start, CongState, CongestionControl, CwndEvent, LossKind, TcpState};
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cell::Cell;

/// CUBIC parameters (RFC 9438).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "CubicParams")]
pub struct Config {
    /// Aggressiveness, segments / s^3. Default 0.4 (RFC 9438 section 5.1).
    pub c: f64,
    /// Multiplicative decrease factor. Default 0.7 (RFC 9438 section 4.6).
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7). Default true.
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 section 4.3, "SHOULD"). Default
    /// true.
    pub reno_friendly: bool,
    /// What a congestion event multiplies by beta. Default `"flight_size"`
    /// (RFC 9438 section 4.6).
    pub ssthresh_from: SsthreshFrom,
    /// Scale each congestion-avoidance step by Linux's packets-per-ACK
    /// estimate (`delayed_ack`, which one segment per ACK leaves at 31/16;
    /// `tcp_cubic.c` `bictcp_acked`, as BIC's `delayed_ack_ratio`). Default
    /// false.
    pub delayed_ack_ratio: bool,
    /// How W_est grows in the Reno-friendly region. Default `"rfc9438"`.
    pub reno_friendly_alpha: RenoFriendlyAlpha,
}

/// The Reno-friendly estimate's growth per acknowledged segment and cwnd.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RenoFriendlyAlpha {
    /// alpha_cubic = 3 (1 - beta) / (1 + beta) until W_est reaches
    /// cwnd_prior, then 1 (RFC 9438 section 4.3).
    #[default]
    Rfc9438,
    /// Linux 2.6.22's `tcp_cubic.c` (v2.1, the module ns-2.35's TCP-Linux
    /// runs): one segment per `(cwnd * beta_scale) >> 3` ACKs for ever,
    /// `beta_scale = 8 (1024 + beta) / 3 / (1024 - beta)` in integers (23
    /// for beta = 819/1024: 8/23 = 0.348 per cwnd ACKs), with no switch to 1
    /// (tcp/linux/src/tcp_cubic.c:236-249, beta_scale at 389; RFC 8312's
    /// constant alpha).
    Linux,
}

/// The window a congestion event reduces (`ssthresh = max(x * beta, 2)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// FlightSize, the segments sent and not cumulatively acknowledged (RFC
    /// 9438 section 4.6). With SACK this counts the SACKed and the lost
    /// segments too, and after a recovery that sent new data past many
    /// holes it can exceed cwnd several times: the new ssthresh is then
    /// above the window the loss was detected at.
    #[default]
    FlightSize,
    /// cwnd, as Linux's `bictcp_recalc_ssthresh` (`snd_cwnd * beta`; the
    /// 2.6.22 `tcp_cubic.c` ns-2.35's TCP-Linux carries, called at
    /// tcp/tcp-linux.cc:494 and 529), which RFC 9438 section 4.6 allows.
    Cwnd,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            ssthresh_from: SsthreshFrom::FlightSize,
            delayed_ack_ratio: false,
            reno_friendly_alpha: RenoFriendlyAlpha::Rfc9438,
        }
    }
}

/// The current congestion-avoidance stage.
#[derive(Debug, Clone, Copy)]
struct Epoch {
    /// t_epoch.
    start: SimTime,
    /// W_est, segments.
    w_est: f64,
}

#[derive(Debug, Clone)]
pub struct Cubic {
    config: Config,
    /// W_max, segments; 0 before any congestion event.
    w_max: f64,
    /// cwnd_prior, segments; 0 before any congestion event.
    cwnd_prior: f64,
    /// K, seconds.
    k: f64,
    epoch: Option<Epoch>,
    /// The next stage is the first after a timeout (RFC 9438 4.8).
    after_timeout: bool,
    /// The window `ssthresh` was last asked at, applied on entering Recovery.
    loss_cwnd: Cell<Option<f64>>,
    /// With `delayed_ack_ratio`.
    ack_ratio: LinuxAckRatio,
}

impl From<Config> for Cubic {
    fn from(config: Config) -> Self {
        Cubic {
            config,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch: None,
            after_timeout: false,
            loss_cwnd: Cell::new(None),
            ack_ratio: LinuxAckRatio::default(),
        }
    }
}

impl Cubic {
    /// W_max, segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// RFC 9438 eq. 1: W_cubic(t) = C (t - K)^3 + W_max, t in seconds.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.config.c * (t - self.k).powi(3) + self.w_max
    }

    fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.config.beta) / (1.0 + self.config.beta)
    }

    /// Linux 2.6.22's Reno-friendly rate, 8 / beta_scale, with beta in
    /// 1/1024 and `cubictcp_register`'s integer divisions.
    fn alpha_linux(&self) -> f64 {
        let beta = (self.config.beta * 1024.0).round() as i64;
        let beta_scale = (8 * (1024 + beta) / 3 / (1024 - beta).max(1)).max(1);
        8.0 / beta_scale as f64
    }

    /// W_est's growth per acknowledged segment and cwnd (RFC 9438 eq. 4).
    fn reno_friendly_rate(&self, w_est: f64) -> f64 {
        match self.config.reno_friendly_alpha {
            RenoFriendlyAlpha::Rfc9438 if w_est >= self.cwnd_prior => 1.0,
            RenoFriendlyAlpha::Rfc9438 => self.alpha_cubic(),
            RenoFriendlyAlpha::Linux => self.alpha_linux(),
        }
    }

    /// A congestion-avoidance stage begins at this ACK.
    fn start_epoch(&mut self, state: &TcpState) -> Epoch {
        let cwnd = state.cwnd;
        if self.after_timeout || self.w_max <= 0.0 {
            // RFC 9438 4.8 (and 4.10 for a stage with no loss before it).
            self.w_max = cwnd;
            self.k = 0.0;
            if self.cwnd_prior <= 0.0 {
                self.cwnd_prior = cwnd;
            }
            self.after_timeout = false;
        } else {
            self.k = ((self.w_max - cwnd) / self.config.c).cbrt(); // eq. 2
        }
        let epoch = Epoch { start: state.now, w_est: cwnd };
        self.epoch = Some(epoch);
        epoch
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// RFC 9438 4.6: max(flight_size * beta_cubic, 2) (or cwnd's, with
    /// `ssthresh_from = "cwnd"`).
    fn ssthresh(&self, state: &TcpState, _loss: LossKind) -> f64 {
        self.loss_cwnd.set(Some(state.cwnd));
        let window = match self.config.ssthresh_from {
            SsthreshFrom::FlightSize => state.segments_in_flight as f64,
            SsthreshFrom::Cwnd => state.cwnd,
        };
        (window * self.config.beta).max(2.0)
    }

    fn state_set(&mut self, _state: &TcpState, new_state: CongState) {
        match new_state {
            CongState::Recovery => {
                if let Some(cwnd) = self.loss_cwnd.take() {
                    // 4.7 fast convergence, then 4.6.
                    self.w_max =
                        if self.config.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.config.beta) / 2.0 } else { cwnd };
                    self.cwnd_prior = cwnd;
                    self.epoch = None;
                    self.after_timeout = false;
                }
            }
            CongState::Loss => {
                self.loss_cwnd.set(None);
                self.ack_ratio = LinuxAckRatio::default(); // bictcp_reset
            }
            _ => {}
        }
    }

    fn cwnd_event(&mut self, state: &mut TcpState, event: CwndEvent) {
        if event == CwndEvent::Timeout {
            self.cwnd_prior = state.cwnd;
            self.epoch = None;
            self.after_timeout = true;
        }
    }

    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        let mut left = segments_acked;
        if state.in_slow_start() {
            left = reno_slow_start(state, segments_acked);
        }
        if left == 0 {
            return;
        }
        let mut epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(state),
        };
        let segments = left as f64;
        let t = state.now.since(epoch.start).as_secs_f64();
        let rtt = state.srtt.or(state.min_rtt).map_or(0.0, |r| r.as_secs_f64());
        let alpha = self.reno_friendly_rate(epoch.w_est);
        epoch.w_est += alpha * segments / state.cwnd; // eq. 4
        self.epoch = Some(epoch);
        let before = state.cwnd;
        if self.config.reno_friendly && self.w_cubic(t) < epoch.w_est {
            state.cwnd = epoch.w_est;
        } else {
            let target = self.w_cubic(t + rtt).clamp(state.cwnd, 1.5 * state.cwnd);
            state.cwnd = (state.cwnd + segments * (target - state.cwnd) / state.cwnd).min(target);
        }
        if self.config.delayed_ack_ratio {
            // Linux divides cnt (segments per +1) by delayed_ack / 16.
            state.cwnd = before + (state.cwnd - before) * self.ack_ratio.factor();
        }
    }

    fn pkts_acked(&mut self, state: &TcpState, segments_acked: u32, _rtt: Option<SimDuration>) {
        if self.config.delayed_ack_ratio {
            self.ack_ratio.acked(segments_acked, state.cong_state);
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("cubic_w_max", self.w_max), ("cubic_k_s", self.k), ("cubic_w_est", self.epoch.map_or(0.0, |e| e.w_est))]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::LossKind;
    use super::*;

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-9, "got {got}, want {want}");
    }

    fn at(s: &mut TestSender<Cubic>, t: f64) {
        s.set_time(SimTime::from_secs_f64(t));
    }

    /// A fast retransmit at cwnd = FlightSize = 36, recovery ends at t = 0:
    /// W_max = 36, ssthresh = cwnd = 0.7 * 36 = 25.2. srtt = 100 ms.
    fn after_loss_at_36() -> TestSender<Cubic> {
        let mut s = TestSender::new(Cubic::from(Config::default()), 36.0);
        s.state.ssthresh = 20.0;
        s.state.srtt = Some(s.rtt);
        s.state.segments_in_flight = 36;
        close(s.lose(LossKind::FastRetransmit), 25.2);
        s.end_recovery(); // min(25.2, 37)
        close(s.state.cwnd, 25.2);
        assert_eq!(s.cc.w_max(), 36.0);
        s
    }

    #[test]
    fn window_curve_from_the_rfc_formula() {
        let mut s = after_loss_at_36();
        s.ack_n(1); // the stage begins: cwnd_epoch = 25.2
                    // K = cbrt((36 - 25.2) / 0.4) = cbrt(27) = 3 s.
        close(s.cc.k(), 3.0);
        // W(t) = 0.4 (t - 3)^3 + 36:
        // t = 0: 0.4 * -27 + 36 = 25.2; t = 1: 0.4 * -8 + 36 = 32.8;
        // t = 2: 35.6; t = 3: 36 (W_max, the plateau); t = 4: 36.4;
        // t = 5: 0.4 * 8 + 36 = 39.2.
        for (t, w) in [(0.0, 25.2), (1.0, 32.8), (2.0, 35.6), (3.0, 36.0), (4.0, 36.4), (5.0, 39.2)] {
            close(s.cc.w_cubic(t), w);
        }
    }

    #[test]
    fn per_ack_growth_in_each_region() {
        let mut s = after_loss_at_36();
        // t = 0: W_est = 25.2 + (0.9 / 1.7) / 25.2 = 25.2 + 0.0210084 =
        // 25.2210084 > W_cubic(0) = 25.2: Reno-friendly, cwnd = W_est.
        s.ack_n(1);
        close(s.state.cwnd, 25.221_008_403_361);
        // t = 1 s: W_est = 25.2210084 + 0.5294118 / 25.2210084 = 25.2419993
        // < W_cubic(1) = 32.8: concave region. target = W(1.1) =
        // 0.4 * (-1.9)^3 + 36 = 33.2564; cwnd += (33.2564 - 25.2210084)
        // / 25.2210084 = 0.3185991 -> 25.5396075.
        at(&mut s, 1.0);
        s.ack_n(1);
        close(s.state.cwnd, 25.539_607_543_734);
        // t = 5 s: W(5.1) = 0.4 * 2.1^3 + 36 = 39.7044 > 1.5 cwnd =
        // 38.3094113: target is capped at 1.5 cwnd, so cwnd += 0.5.
        at(&mut s, 5.0);
        s.ack_n(1);
        close(s.state.cwnd, 26.039_607_543_734);
        // The lower bound: at t = 1.0 with cwnd 34 > W(1.1) = 33.2564 the
        // target is cwnd itself, so no change (W_est is far below).
        let mut low = after_loss_at_36();
        low.ack_n(1);
        at(&mut low, 1.0);
        low.state.cwnd = 34.0;
        low.ack_n(1);
        assert_eq!(low.state.cwnd, 34.0);
    }

    #[test]
    fn ssthresh_from_cwnd_ignores_a_flight_above_the_window() {
        // After a SACK recovery that sent new data past many holes, 60
        // segments are outstanding (SACKed and lost ones included) while
        // cwnd is 20. RFC 9438's FlightSize rule raises ssthresh above the
        // window the loss was found at; Linux's (cwnd) lowers it.
        let mut rfc = TestSender::new(Cubic::from(Config::default()), 20.0);
        rfc.state.segments_in_flight = 60;
        close(rfc.lose(LossKind::FastRetransmit), 42.0);
        let mut linux = TestSender::new(Cubic::from(Config { ssthresh_from: SsthreshFrom::Cwnd, ..Config::default() }), 20.0);
        linux.state.segments_in_flight = 60;
        close(linux.lose(LossKind::FastRetransmit), 14.0);
        assert_eq!(linux.state.cwnd, 14.0);
        close(linux.cc.w_max(), 20.0);
        // A timeout too: cwnd 1, ssthresh from the window before it.
        let mut t = TestSender::new(Cubic::from(Config { ssthresh_from: SsthreshFrom::Cwnd, ..Config::default() }), 20.0);
        t.state.segments_in_flight = 60;
        close(t.lose(LossKind::Timeout), 14.0);
        assert_eq!(t.state.cwnd, 1.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut s = after_loss_at_36();
        s.ack_n(1);
        // A loss at cwnd 30 < W_max 36: W_max = 30 * 1.7 / 2 = 25.5;
        // ssthresh = FlightSize 30 * 0.7 = 21.
        s.state.cwnd = 30.0;
        s.state.segments_in_flight = 30;
        close(s.lose(LossKind::FastRetransmit), 21.0);
        close(s.cc.w_max(), 25.5);
        // Without fast convergence W_max would be 30.
        let mut plain = TestSender::new(Cubic::from(Config { fast_convergence: false, ..Config::default() }), 36.0);
        plain.state.segments_in_flight = 36;
        plain.lose(LossKind::FastRetransmit); // W_max = 36
        plain.end_recovery();
        plain.state.cwnd = 30.0;
        plain.lose(LossKind::FastRetransmit);
        close(plain.cc.w_max(), 30.0);
    }

    #[test]
    fn after_a_timeout_k_is_zero_and_reno_rate_once_past_cwnd_prior() {
        let mut s = TestSender::new(Cubic::from(Config::default()), 4.0);
        s.state.srtt = Some(s.rtt);
        s.state.segments_in_flight = 4;
        // Timeout at cwnd 4: ssthresh = max(4 * 0.7, 2) = 2.8, cwnd 1,
        // cwnd_prior = 4.
        close(s.lose(LossKind::Timeout), 2.8);
        assert_eq!(s.state.cwnd, 1.0);
        s.set_cong_state(CongState::Open);
        // Suppose slow start ended at cwnd = ssthresh = 5. The stage begins:
        // W_max = cwnd_epoch = 5, K = 0, W_est = 5 >= cwnd_prior = 4, so
        // alpha = 1: W_est = 5 + 1/5 = 5.2 > W(0) = 5: cwnd = 5.2 (Reno).
        s.state.cwnd = 5.0;
        s.state.ssthresh = 5.0;
        s.ack_n(1);
        close(s.cc.k(), 0.0);
        close(s.cc.w_max(), 5.0);
        close(s.state.cwnd, 5.2);
        // t = 1 s: W_est = 5.2 + 1/5.2 = 5.3923 < W(1) = 0.4 + 5 = 5.4:
        // convex region, target = W(1.1) = 0.4 * 1.331 + 5 = 5.5324,
        // cwnd += (5.5324 - 5.2) / 5.2 = 0.0639231 -> 5.2639231.
        at(&mut s, 1.0);
        s.ack_n(1);
        close(s.state.cwnd, 5.263_923_076_923);
    }

    #[test]
    fn linux_reno_friendly_rate_stays_8_over_beta_scale() {
        // tcp_cubic.c (2.6.22): beta = 819 -> beta_scale = 8 * 1843 / 3 /
        // 205 = 4914 / 205 = 23 in integers; one segment per cwnd * 23 / 8
        // ACKs, for ever. After a timeout at cwnd 4 and slow start to 5 the
        // stage begins with W_est = 5 >= cwnd_prior = 4, where RFC 9438
        // switches alpha to 1 (the test above: 5.2); Linux keeps 8/23.
        let config = Config { beta: 819.0 / 1024.0, reno_friendly_alpha: RenoFriendlyAlpha::Linux, ..Config::default() };
        let mut s = TestSender::new(Cubic::from(config.clone()), 4.0);
        s.state.srtt = Some(s.rtt);
        s.state.segments_in_flight = 4;
        s.lose(LossKind::Timeout);
        s.set_cong_state(CongState::Open);
        s.state.cwnd = 5.0;
        s.state.ssthresh = 5.0;
        s.ack_n(1);
        // W_est = 5 + (8/23) / 5 = 5.0695652 > W(0) = 5: Reno-friendly.
        close(s.state.cwnd, 5.0 + 8.0 / 23.0 / 5.0);
        // Below cwnd_prior the rate is 8/23 too (RFC 9438's alpha_cubic
        // for beta 0.8 would be 0.6 / 1.8 = 1/3).
        let mut below = after_loss_at_36();
        below.cc.config = Config { reno_friendly_alpha: RenoFriendlyAlpha::Linux, beta: 819.0 / 1024.0, ..Config::default() };
        close(below.cc.reno_friendly_rate(25.2), 8.0 / 23.0);
        close(below.cc.reno_friendly_rate(40.0), 8.0 / 23.0);
        let rfc = Cubic::from(Config { beta: 0.8, ..Config::default() });
        close(rfc.reno_friendly_rate(0.0), 1.0); // cwnd_prior 0: past it
    }

    #[test]
    fn slow_start_is_reno() {
        let mut s = TestSender::new(Cubic::from(Config::default()), 2.0);
        s.state.ssthresh = 8.0;
        s.ack_round(); // 2 -> 4
        s.ack_round(); // 4 -> 8
        assert_eq!(s.state.cwnd, 8.0);
    }
}
