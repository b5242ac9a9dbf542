//! AFW, adaptive fractional window increment (seed 003: "Adaptive
//! fractional window increment", an improvement of FeW, Nahm et al. 2005),
//! as docs/few-afw.md states it.
//!
//! AFW keeps a step S_W for every integer window W = 1, 2, ..., all starting
//! at Smax. In congestion avoidance each new ACK adds `S_floor(cwnd) / cwnd`
//! (FeW's `alpha / cwnd` with a per-window alpha). On a retransmission
//! timeout at window W_t (the window before the timeout, floored to an
//! integer as the table is indexed), the steps of smaller windows grow and
//! those of larger windows shrink (seed 003 Fig. 3):
//!
//! - W < W_t: S_W = min(S_W * alpha, Smax)
//! - W > W_t: S_W = max(S_W / beta, Smin)
//! - W = W_t: **Decision** (docs/few-afw.md): the paper leaves it open
//!   (its text says "smaller than W_t ... increased, larger than W_t ...
//!   decreased"); docs/few-afw.md reads `W >= W_t` as shrinking, the default here.
//!   [`Config::at_timeout_window`] selects `"grow"` (W <= W_t grows) or
//!   `"keep"` (the literal reading: S_{W_t} is left as it is).
//!
//! Constants (seed 003 section 3, "Parameter tuning"): alpha = 4, beta = 8
//! (the best of the combinations tried on the 7-hop chain), Smin = 0.001,
//! Smax = 0.1 ("the BDP of wireless ad hoc networks is relatively small").
//!
//! Slow start and the loss response are Reno's, as in FeW, which AFW
//! modifies only in its step (RFC 5681: +1 per segment below ssthresh;
//! ssthresh = max(FlightSize / 2, 2); cwnd = 1 after a timeout). The step is
//! applied per acknowledged segment, like this crate's Reno.

use super::{reno_slow_start, CongestionControl, CwndEvent, TcpState};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a timeout at window W_t does to S_{W_t} (seed 003 leaves it
/// open; docs/few-afw.md decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AtTimeoutWindow {
    /// S_{W_t} shrinks with the larger windows (W >= W_t): hoplab's reading
    /// of the paper, which leaves W = W_t open.
    Shrink,
    /// S_{W_t} grows with the smaller windows (W <= W_t).
    Grow,
    /// S_{W_t} is left unchanged (the paper's text taken literally).
    Keep,
}

/// AFW parameters (seed 003 section 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "AfwParams")]
pub struct Config {
    /// Multiplier of the steps below the timeout window. Default 4 (seed 003
    /// "Parameter tuning": alpha = 4, beta = 8 gave the highest throughput).
    pub alpha: f64,
    /// Divisor of the steps at and above the timeout window. Default 8
    /// (seed 003, as alpha).
    pub beta: f64,
    /// Largest step, and every step's initial value. Default 0.1 (seed 003:
    /// "we adopted Smax = 0.1").
    pub s_max: f64,
    /// Smallest step. Default 0.001 (seed 003: "Smin = 0.001 was used").
    pub s_min: f64,
    /// What a timeout at window W_t does to S_{W_t}: `"shrink"` (default,
    /// hoplab's reading), `"grow"` or `"keep"`.
    pub at_timeout_window: AtTimeoutWindow,
}

impl Default for Config {
    fn default() -> Self {
        Config { alpha: 4.0, beta: 8.0, s_max: 0.1, s_min: 0.001, at_timeout_window: AtTimeoutWindow::Shrink }
    }
}

#[derive(Debug, Clone)]
pub struct Afw {
    config: Config,
    /// S_W for W = 1 ..= steps.len() (index W - 1).
    steps: Vec<f64>,
    /// S_W for every W > steps.len(): those windows have always been above
    /// every timeout window, so they share one value.
    tail: f64,
}

impl From<Config> for Afw {
    fn from(config: Config) -> Self {
        let tail = config.s_max;
        Afw { config, steps: Vec::new(), tail }
    }
}

impl Afw {
    /// The step S_W of integer window `w` (windows below 1 use S_1).
    pub fn step(&self, w: u32) -> f64 {
        let w = w.max(1) as usize;
        self.steps.get(w - 1).copied().unwrap_or(self.tail)
    }

    /// Seed 003 Fig. 3: a timeout at integer window `w_t`.
    fn on_timeout(&mut self, w_t: usize) {
        let c = &self.config;
        if self.steps.len() < w_t {
            self.steps.resize(w_t, self.tail);
        }
        let grow = |s: f64| (s * c.alpha).min(c.s_max);
        let shrink = |s: f64| (s / c.beta).max(c.s_min);
        for (i, s) in self.steps.iter_mut().enumerate() {
            let w = i + 1;
            *s = match w.cmp(&w_t) {
                std::cmp::Ordering::Less => grow(*s),
                std::cmp::Ordering::Greater => shrink(*s),
                std::cmp::Ordering::Equal => match c.at_timeout_window {
                    AtTimeoutWindow::Shrink => shrink(*s),
                    AtTimeoutWindow::Grow => grow(*s),
                    AtTimeoutWindow::Keep => *s,
                },
            };
        }
        self.tail = shrink(self.tail);
    }
}

impl CongestionControl for Afw {
    fn name(&self) -> &'static str {
        "afw"
    }

    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        let mut left = segments_acked;
        if state.in_slow_start() {
            left = reno_slow_start(state, segments_acked);
        }
        for _ in 0..left {
            state.cwnd += self.step(state.cwnd.floor() as u32) / state.cwnd;
        }
    }

    fn cwnd_event(&mut self, state: &mut TcpState, event: CwndEvent) {
        if event == CwndEvent::Timeout {
            // state.cwnd is still the window the timeout happened at.
            self.on_timeout(state.cwnd.floor().max(1.0) as usize);
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("afw_tail_step", self.tail)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::LossKind;
    use super::*;

    fn sender(config: Config) -> TestSender<Afw> {
        TestSender::new(Afw::from(config), 2.0)
    }

    fn table(s: &TestSender<Afw>) -> Vec<f64> {
        (1..=10).map(|w| s.cc.step(w)).collect()
    }

    fn timeout_at(s: &mut TestSender<Afw>, cwnd: f64) {
        s.state.cwnd = cwnd;
        s.state.segments_in_flight = cwnd.floor() as u32;
        s.lose(LossKind::Timeout);
    }

    fn assert_table(got: &[f64], want: &[f64]) {
        for (w, (g, e)) in got.iter().zip(want).enumerate() {
            assert!((g - e).abs() < 1e-15, "S_{} = {g}, want {e}; table {got:?}", w + 1);
        }
    }

    #[test]
    fn step_table_after_timeouts() {
        let mut s = sender(Config::default());
        // Before any timeout every step is Smax = 0.1.
        assert_table(&table(&s), &[0.1; 10]);

        // Timeout at cwnd 6.4, so W_t = 6. W < 6: min(0.1 * 4, 0.1) = 0.1;
        // W >= 6: max(0.1 / 8, 0.001) = 0.0125.
        timeout_at(&mut s, 6.4);
        assert_eq!(s.state.cwnd, 1.0);
        assert_table(&table(&s), &[0.1, 0.1, 0.1, 0.1, 0.1, 0.0125, 0.0125, 0.0125, 0.0125, 0.0125]);

        // Timeout at W_t = 3: W = 1, 2 stay at the cap 0.1; W = 3..5:
        // 0.1 / 8 = 0.0125; W >= 6: 0.0125 / 8 = 0.0015625.
        timeout_at(&mut s, 3.7);
        assert_table(&table(&s), &[0.1, 0.1, 0.0125, 0.0125, 0.0125, 0.0015625, 0.0015625, 0.0015625, 0.0015625, 0.0015625]);

        // Timeout at W_t = 8: W = 3..5: 0.0125 * 4 = 0.05; W = 6, 7:
        // 0.0015625 * 4 = 0.00625; W >= 8: 0.0015625 / 8 = 0.000195 < Smin,
        // so 0.001.
        timeout_at(&mut s, 8.0);
        assert_table(&table(&s), &[0.1, 0.1, 0.05, 0.05, 0.05, 0.00625, 0.00625, 0.001, 0.001, 0.001]);
        assert_eq!(s.cc.step(1000), 0.001);
    }

    #[test]
    fn growth_per_ack_follows_the_table() {
        let mut s = sender(Config::default());
        timeout_at(&mut s, 6.4); // S_1..5 = 0.1, S_6.. = 0.0125
                                 // Congestion avoidance at cwnd 4: 4 + S_4 / 4 = 4 + 0.1 / 4 = 4.025.
        s.state.cwnd = 4.0;
        s.state.ssthresh = 4.0;
        s.ack_n(1);
        assert!((s.state.cwnd - 4.025).abs() < 1e-12, "{}", s.state.cwnd);
        // At cwnd 5.99 (S_5 = 0.1): 5.99 + 0.1 / 5.99 = 6.006694490818;
        // the next ACK uses S_6 = 0.0125: + 0.0125 / 6.006694490818
        // = 0.002081011 -> 6.008775502.
        s.state.cwnd = 5.99;
        s.ack_n(1);
        assert!((s.state.cwnd - 6.006_694_490_818).abs() < 1e-11, "{}", s.state.cwnd);
        s.ack_n(1);
        assert!((s.state.cwnd - 6.008_775_502).abs() < 1e-8, "{}", s.state.cwnd);
    }

    #[test]
    fn slow_start_and_loss_are_reno() {
        let mut s = sender(Config::default());
        s.state.ssthresh = 8.0;
        s.ack_round(); // 2 -> 4
        s.ack_round(); // 4 -> 8
        assert_eq!(s.state.cwnd, 8.0);
        s.state.segments_in_flight = 8;
        assert_eq!(s.lose(LossKind::FastRetransmit), 4.0);
        assert_eq!(s.state.cwnd, 4.0);
        // A fast retransmit leaves the table alone.
        assert_table(&table(&s), &[0.1; 10]);
    }

    #[test]
    fn the_timeout_window_itself_per_reading() {
        // Timeout at W_t = 6 from a fresh table.
        let mut grow = sender(Config { at_timeout_window: AtTimeoutWindow::Grow, ..Config::default() });
        timeout_at(&mut grow, 6.0);
        assert_eq!(grow.cc.step(6), 0.1); // min(0.4, 0.1)
        assert_eq!(grow.cc.step(7), 0.0125);
        let mut keep = sender(Config { at_timeout_window: AtTimeoutWindow::Keep, ..Config::default() });
        timeout_at(&mut keep, 6.0);
        timeout_at(&mut keep, 3.0); // S_6 = 0.1 -> 0.0125 (above W_t = 3)
        timeout_at(&mut keep, 6.0); // S_6 kept at 0.0125; S_5 0.0125 -> 0.05
        assert_eq!(keep.cc.step(6), 0.0125);
        assert_eq!(keep.cc.step(5), 0.05);
        // S_7: 0.1 / 8 = 0.0125, / 8 = 0.0015625, / 8 = 0.000195 -> Smin.
        assert_eq!(keep.cc.step(7), 0.001);
    }

    #[test]
    fn config_names_the_reading() {
        let c: Config = serde_json::from_value(serde_json::json!({"at_timeout_window": "grow"})).unwrap();
        assert_eq!(c.at_timeout_window, AtTimeoutWindow::Grow);
        assert!(serde_json::from_value::<Config>(serde_json::json!({"at_timeout_window": "both"})).is_err());
    }
}
