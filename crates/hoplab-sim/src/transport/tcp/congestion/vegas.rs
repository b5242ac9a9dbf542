//! TCP Vegas (Brakmo, Peterson, "TCP Vegas: end to end congestion avoidance
//! on a global Internet", IEEE JSAC 13(8), 1995) with the mechanics and
//! defaults of Linux `tcp_vegas.c`, which seed 004 ran through ns-2
//! TCP-Linux ("all default parameters of TCP-Linux", docs/scalable-manet.md).
//!
//! Once per RTT, Vegas compares the window with what the path carries at
//! its base delay. With BaseRTT the smallest RTT ever sampled and RTT the
//! smallest sample of the round just ended (`minRTT`, which filters
//! delayed ACKs), `diff` estimates the segments queued in the network:
//!
//! - congestion avoidance: `diff < alpha` -> cwnd + 1; `diff > beta` ->
//!   cwnd - 1 (and ssthresh = min(ssthresh, cwnd)); otherwise hold. Nothing
//!   changes between round ends.
//! - slow start (Vegas' modified slow start): Reno's exponential growth
//!   (every RTT, as Linux; the paper doubles every other RTT), but at a
//!   round end with `diff > gamma` the window is set to the rate the path
//!   actually carries, `cwnd = min(cwnd, cwnd * BaseRTT / RTT + 1)`, and
//!   ssthresh = min(ssthresh, cwnd), which ends slow start.
//! - after each adjustment cwnd >= 2 and ssthresh = max(ssthresh, 3/4
//!   cwnd) (`tcp_current_ssthresh`). **This controller writes
//!   `state.ssthresh` in `increase_window`, as `tcp_vegas.c` does**: the
//!   modified slow start cannot end otherwise.
//!
//! Constants (`tcp_vegas.c` module parameters): alpha = 2, beta = 4
//! ("lower / upper bound of packets in network"), gamma = 1 ("limit on
//! increase"). Rounds as Linux: a round ends at the first ACK of a segment
//! sent after the round began (`after(ack, beg_snd_nxt)`); here, the ACK
//! whose RTT sample shows it was sent at or after the round's start
//! (`now - rtt >= round_start`). An ACK without a sample (Karn) ends no
//! round. A round with at most two RTT samples adjusts like Reno (`cntRTT
//! <= 2`: "almost certainly delayed ACKs"). Vegas runs in the Open state
//! only and restarts its round when the state returns to Open
//! (`vegas_enable`); elsewhere it is Reno. The loss response is Linux's
//! `tcp_reno_ssthresh`: max(cwnd / 2, 2).
//!
//! **diff** ([`DiffFormula`]): later Linux (after 2.6.22) computes `cwnd * (RTT -
//! BaseRTT) / BaseRTT` (the default); the paper's `(Expected - Actual) *
//! BaseRTT` is `cwnd * (RTT - BaseRTT) / RTT`, and so is Linux 2.6.22's
//! `tcp_vegas.c`, the one ns-2.35's TCP-Linux carries and seed 004 ran
//! (tcp/linux/src/tcp_vegas.c:208-209, 257-268 in GitHub hbatmit/ns2.35: `diff =
//! old_wnd - old_wnd * baseRTT / rtt`, `old_wnd` the segments sent in the
//! round just ended, which this controller reads as cwnd): `diff =
//! "brakmo"` for ns-2 parity (docs/tcp-linux-parity.md). On a multi-hop
//! path whose RTT grows with the window, the `/ BaseRTT` form holds about
//! half the window (3.3 against 5 segments on seed 004's MANET). Both are
//! real-valued here (Linux truncates to integers); the `+ 1` on leaving
//! slow start is kept as Linux has it.
//!
//! **`variant = "linux_2_6_22"`** ([`Variant`]; set by `preset = "ns2"`
//! with `tcp.sack` in every `vegas` flow): the rules of Linux 2.6.22's
//! `tcp_vegas_cong_avoid` that differ from the later module above
//! (tcp/linux/src/tcp_vegas.c:170-337 in ns-2.35):
//!
//! - the window moves toward the window of the round before, not from its
//!   own value: at a round end `next = old_snd_cwnd + 1` (diff < alpha),
//!   `- 1` (diff > beta) or `old_snd_cwnd`, where `old_snd_cwnd` is cwnd
//!   when the previous round ended, before that round's step (`beg_snd_cwnd`,
//!   208-216); cwnd then steps by one toward `next` (306-312). On a path
//!   where diff stays below alpha cwnd so grows by one segment every
//!   second round;
//! - diff is computed on `old_wnd`, the segments sent in the round before
//!   (`beg_snd_nxt - beg_snd_una`, 208-209), read here as the segments
//!   acknowledged since the previous round end; neither it nor
//!   `old_snd_cwnd` is reset when Vegas restarts (`vegas_enable`, 73-85), so
//!   the first round after a recovery compares with the window before the
//!   loss;
//! - leaving slow start sets ssthresh = 2 (276), then `tcp_slow_start`
//!   still adds one segment (290); nothing raises ssthresh to 3/4 of cwnd;
//! - slow start runs while cwnd <= ssthresh (270, 335), and the Reno
//!   fallback (Vegas off, or 2 RTT samples or fewer, 173, 232) is
//!   `tcp_reno_cong_avoid` with ns-2.35's `sysctl_tcp_abc = 1`: above
//!   ssthresh one segment each time the segments acknowledged since the
//!   last loss or slow-start step reach a window (tcp/linux/src/tcp_cong.c:
//!   337-353, tcp/linux/ns-linux-param.c:20; counted on every ACK of new
//!   data in any state, tcp/tcp-linux.cc:351-353, cleared at 496, 533,
//!   584). Its window test `tcp_is_cwnd_limited` is the socket's.

use super::{reno_increase, reno_slow_start, CongState, CongestionControl, CwndEvent, LossKind, TcpState};
use crate::config::{Applies, PresetRule};
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How `diff`, the estimate of queued segments, is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiffFormula {
    /// `cwnd * (RTT - BaseRTT) / BaseRTT`, as `tcp_vegas.c` after Linux
    /// 2.6.22.
    Linux,
    /// `cwnd * (RTT - BaseRTT) / RTT`, Brakmo & Peterson's
    /// `(Expected - Actual) * BaseRTT`, and Linux 2.6.22's `tcp_vegas.c`
    /// (ns-2.35's TCP-Linux, what seed 004 ran).
    Brakmo,
}

/// Which Linux `tcp_vegas.c` the window rules follow (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Linux after 2.6.22: cwnd +- 1 from its own value, ssthresh kept at
    /// 3/4 of cwnd or more (the default).
    Linux,
    /// Linux 2.6.22's module, which ns-2.35's TCP-Linux carries: cwnd
    /// steps toward the previous round's window +- 1, diff on the
    /// previous round's segments, ssthresh = 2 on leaving slow start.
    #[serde(rename = "linux_2_6_22")]
    Linux2622,
}

/// Vegas parameters (Linux `tcp_vegas.c` module parameters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "VegasParams")]
pub struct Config {
    /// Below alpha queued segments, grow by one per RTT. Default 2
    /// (`tcp_vegas.c`: `static int alpha = 2`).
    pub alpha: f64,
    /// Above beta queued segments, shrink by one per RTT. Default 4
    /// (`tcp_vegas.c`: `static int beta = 4`).
    pub beta: f64,
    /// Above gamma queued segments, leave slow start. Default 1
    /// (`tcp_vegas.c`: `static int gamma = 1`).
    pub gamma: f64,
    /// `"linux"` (default, `tcp_vegas.c`) or `"brakmo"` (the paper's).
    pub diff: DiffFormula,
    /// `"linux"` (default) or `"linux_2_6_22"` (ns-2.35's TCP-Linux; module
    /// docs).
    pub variant: Variant,
}

impl Default for Config {
    fn default() -> Self {
        Config { alpha: 2.0, beta: 4.0, gamma: 1.0, diff: DiffFormula::Linux, variant: Variant::Linux }
    }
}

#[derive(Debug, Clone)]
pub struct Vegas {
    config: Config,
    /// Smallest RTT sample ever (`baseRTT`).
    base_rtt: Option<SimDuration>,
    /// Smallest RTT sample of the current round (`minRTT`).
    min_rtt: Option<SimDuration>,
    /// RTT samples in the current round (`cntRTT`).
    samples: u32,
    /// The RTT sample of the ACK being processed.
    ack_rtt: Option<SimDuration>,
    /// When the current round began (`beg_snd_nxt`, in time).
    round_start: SimTime,
    /// Vegas is on in the Open state only (`doing_vegas_now`).
    enabled: bool,
    /// The diff of the last round end, for tracing.
    last_diff: f64,
    /// `linux_2_6_22`: segments acknowledged since the last round end
    /// (`old_wnd` when the next round ends).
    round_acked: u64,
    /// `linux_2_6_22`: cwnd when the last round ended, before its step
    /// (`beg_snd_cwnd`, 0 until then as Linux's zeroed state).
    round_cwnd: f64,
    /// `linux_2_6_22`: ns-2.35's `bytes_acked`, in segments (module docs).
    abc_acked: u64,
}

impl From<Config> for Vegas {
    fn from(config: Config) -> Self {
        Vegas {
            config,
            base_rtt: None,
            min_rtt: None,
            samples: 0,
            ack_rtt: None,
            round_start: SimTime::ZERO,
            enabled: true,
            last_diff: 0.0,
            round_acked: 0,
            round_cwnd: 0.0,
            abc_acked: 0,
        }
    }
}

impl Vegas {
    /// `vegas_enable`: start a fresh round now.
    fn enable(&mut self, now: SimTime) {
        self.enabled = true;
        self.round_start = now;
        self.samples = 0;
        self.min_rtt = None;
    }

    /// The diff of the last round that used Vegas' rule, segments.
    pub fn last_diff(&self) -> f64 {
        self.last_diff
    }

    /// Vegas' once-per-RTT decision, with the round's minimum RTT.
    fn adjust(&mut self, state: &mut TcpState, segments_acked: u32, rtt: SimDuration, base: SimDuration) {
        let c = &self.config;
        let (rtt_ns, base_ns) = (rtt.as_nanos() as f64, base.as_nanos().max(1) as f64);
        let diff = match c.diff {
            DiffFormula::Linux => state.cwnd * (rtt_ns - base_ns) / base_ns,
            DiffFormula::Brakmo => state.cwnd * (rtt_ns - base_ns) / rtt_ns,
        };
        self.last_diff = diff;
        if diff > c.gamma && state.in_slow_start() {
            // Leave slow start at the rate the path carries (+1 as Linux).
            let target = state.cwnd * base_ns / rtt_ns;
            state.cwnd = state.cwnd.min(target + 1.0);
            state.ssthresh = state.ssthresh.min(state.cwnd);
        } else if state.in_slow_start() {
            reno_slow_start(state, segments_acked);
        } else if diff > c.beta {
            state.cwnd -= 1.0;
            state.ssthresh = state.ssthresh.min(state.cwnd);
        } else if diff < c.alpha {
            state.cwnd += 1.0;
        }
        state.cwnd = state.cwnd.max(2.0);
        // tcp_current_ssthresh outside recovery: max(ssthresh, 3/4 cwnd).
        state.ssthresh = state.ssthresh.max(0.75 * state.cwnd);
    }
}

/// Linux 2.6.22 (`variant = "linux_2_6_22"`): the round-end step and
/// the Reno fallback with byte counting (module docs).
impl Vegas {
    /// tcp_vegas.c:204-322 at a round end with more than 2 RTT samples:
    /// `old_wnd` and `old_snd_cwnd` are the previous round's.
    fn adjust_2_6_22(&mut self, state: &mut TcpState, old_wnd: f64, old_cwnd: f64, rtt: SimDuration, base: SimDuration) {
        let c = &self.config;
        let (rtt_ns, base_ns) = (rtt.as_nanos() as f64, base.as_nanos().max(1) as f64);
        let target = old_wnd * base_ns / rtt_ns;
        let diff = match c.diff {
            DiffFormula::Linux => old_wnd * (rtt_ns - base_ns) / base_ns,
            DiffFormula::Brakmo => old_wnd - target,
        };
        self.last_diff = diff;
        if state.cwnd <= state.ssthresh {
            if diff > c.gamma {
                // 276-288: ssthresh 2, cwnd to the actual rate + 1.
                state.ssthresh = 2.0;
                state.cwnd = state.cwnd.min(target.floor() + 1.0);
            }
            self.slow_start_2_6_22(state); // 290
        } else {
            let next = if diff > c.beta {
                old_cwnd - 1.0
            } else if diff < c.alpha {
                old_cwnd + 1.0
            } else {
                old_cwnd
            };
            if next > state.cwnd {
                state.cwnd += 1.0;
            } else if next < state.cwnd {
                state.cwnd -= 1.0;
            }
        }
        state.cwnd = state.cwnd.max(2.0); // 315-316
    }

    /// `tcp_slow_start` with `sysctl_tcp_abc = 1` (tcp_cong.c:286-318): one
    /// segment per ACK of new data, the byte count cleared.
    fn slow_start_2_6_22(&mut self, state: &mut TcpState) {
        state.cwnd += 1.0;
        self.abc_acked = 0;
    }

    /// `tcp_reno_cong_avoid` with `sysctl_tcp_abc = 1` (tcp_cong.c:329-353).
    fn reno_2_6_22(&mut self, state: &mut TcpState) {
        if state.cwnd <= state.ssthresh {
            self.slow_start_2_6_22(state);
        } else if self.abc_acked >= state.cwnd.floor() as u64 {
            self.abc_acked -= state.cwnd.floor() as u64;
            state.cwnd += 1.0;
        }
    }

    /// `tcp_vegas_cong_avoid` of 2.6.22 (tcp_vegas.c:170-337).
    fn increase_2_6_22(&mut self, state: &mut TcpState) {
        if !self.enabled {
            return self.reno_2_6_22(state);
        }
        let round_over = self.ack_rtt.is_some_and(|rtt| state.now >= self.round_start + rtt);
        if !round_over {
            if state.cwnd <= state.ssthresh {
                self.slow_start_2_6_22(state); // 335-336
            }
            return;
        }
        self.round_start = state.now;
        let (old_wnd, old_cwnd) = (self.round_acked as f64, self.round_cwnd);
        self.round_acked = 0;
        self.round_cwnd = state.cwnd;
        match (self.samples, self.min_rtt, self.base_rtt) {
            (n, Some(rtt), Some(base)) if n > 2 => self.adjust_2_6_22(state, old_wnd, old_cwnd, rtt, base),
            _ => self.reno_2_6_22(state),
        }
        self.samples = 0;
        self.min_rtt = None;
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    /// `tcp_reno_min_cwnd` (ns-2.35 tcp/linux/src/tcp_vegas.c:368).
    fn min_cwnd(&self, _state: &TcpState, new_ssthresh: f64) -> f64 {
        new_ssthresh / 2.0
    }

    fn init(&mut self, state: &mut TcpState) {
        self.base_rtt = None;
        self.enable(state.now);
    }

    /// `tcp_reno_ssthresh`: max(cwnd / 2, 2).
    fn ssthresh(&self, state: &TcpState, _loss: LossKind) -> f64 {
        (state.cwnd / 2.0).max(2.0)
    }

    fn pkts_acked(&mut self, _state: &TcpState, segments_acked: u32, rtt: Option<SimDuration>) {
        // linux_2_6_22: tcp/tcp-linux.cc:351-353, every ACK of new data.
        self.round_acked += u64::from(segments_acked);
        self.abc_acked += u64::from(segments_acked);
        self.ack_rtt = rtt;
        let Some(rtt) = rtt else { return };
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.samples += 1;
    }

    fn state_set(&mut self, state: &TcpState, new_state: CongState) {
        if matches!(new_state, CongState::Recovery | CongState::Loss) {
            self.abc_acked = 0; // tcp/tcp-linux.cc:496, 533
        }
        if new_state == CongState::Open {
            self.enable(state.now);
        } else {
            self.enabled = false;
        }
    }

    fn cwnd_event(&mut self, _state: &mut TcpState, event: CwndEvent) {
        if event == CwndEvent::Timeout {
            self.abc_acked = 0; // tcp/tcp-linux.cc:584
        }
    }

    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        if self.config.variant == Variant::Linux2622 {
            return self.increase_2_6_22(state);
        }
        if !self.enabled {
            reno_increase(state, segments_acked);
            return;
        }
        let round_over = self.ack_rtt.is_some_and(|rtt| state.now >= self.round_start + rtt);
        if round_over {
            self.round_start = state.now;
            match (self.samples, self.min_rtt, self.base_rtt) {
                (n, Some(rtt), Some(base)) if n > 2 => self.adjust(state, segments_acked, rtt, base),
                _ => reno_increase(state, segments_acked),
            }
            self.samples = 0;
            self.min_rtt = None;
        } else if state.in_slow_start() {
            reno_slow_start(state, segments_acked);
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("vegas_diff", self.last_diff), ("vegas_base_rtt_s", self.base_rtt.map_or(0.0, |b| b.as_secs_f64()))]
    }
}

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`). Each cites the ns-2 file
/// and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[PresetRule {
    key: "flows[].cc_params.variant",
    value: "\"linux_2_6_22\"",
    applies: Applies::WithTcpSackFlowCc("vegas"),
    source: "tcp/linux/src/tcp_vegas.c:204-216 (old_wnd, old_snd_cwnd: the previous round's), 270-290 (slow start while snd_cwnd <= snd_ssthresh; leaving it sets snd_ssthresh = 2), 292-312 (cwnd steps toward old_snd_cwnd +- 1), 173, 232 (tcp_reno_cong_avoid with sysctl_tcp_abc = 1, tcp/linux/ns-linux-param.c:20): Linux 2.6.22's module, run by select_ca vegas through tcp/tcp-linux.cc:400-420 (ns-2.35)",
}];

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::LossKind;
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_nanos(v * 1_000_000)
    }

    fn at(s: &mut TestSender<Vegas>, t_ms: u64) {
        s.set_time(SimTime(t_ms * 1_000_000));
    }

    /// Congestion avoidance at cwnd 10 (ssthresh 10), BaseRTT 100 ms after
    /// the first round. Round 1 starts at t = 0 (init); two ACKs at t = 0
    /// were sent before it, the ACK at 100 ms (sent at 0) ends it: 3
    /// samples, RTT = BaseRTT, diff 0 < alpha: cwnd 11.
    fn sender(config: Config) -> TestSender<Vegas> {
        let mut s = TestSender::new(Vegas::from(config), 10.0);
        s.state.ssthresh = 10.0;
        s.ack_n_with_rtt(2, ms(100));
        assert_eq!(s.state.cwnd, 10.0); // no change inside a round
        at(&mut s, 100);
        s.ack_n_with_rtt(1, ms(100));
        assert_eq!(s.state.cwnd, 11.0);
        s
    }

    #[test]
    fn holds_between_alpha_and_beta_and_moves_by_one_otherwise() {
        let mut s = sender(Config::default());
        // Round 2 (began at 100 ms): RTT 125 ms. ACKs at 200 ms were sent
        // at 75 ms, before the round; the one at 225 ms (sent at 100) ends
        // it. diff = 11 * (125 - 100) / 100 = 2.75, in [2, 4]: hold at 11.
        at(&mut s, 200);
        s.ack_n_with_rtt(2, ms(125));
        at(&mut s, 225);
        s.ack_n_with_rtt(1, ms(125));
        assert!((s.cc.last_diff() - 2.75).abs() < 1e-12, "{}", s.cc.last_diff());
        assert_eq!(s.state.cwnd, 11.0);

        // Round 3 (from 225 ms): RTT 150 ms, ended at 375 ms.
        // diff = 11 * 50 / 100 = 5.5 > 4: cwnd 10, ssthresh min(10, 10) = 10.
        at(&mut s, 300);
        s.ack_n_with_rtt(2, ms(150));
        at(&mut s, 375);
        s.ack_n_with_rtt(1, ms(150));
        assert!((s.cc.last_diff() - 5.5).abs() < 1e-12);
        assert_eq!(s.state.cwnd, 10.0);
        assert_eq!(s.state.ssthresh, 10.0);

        // Round 4 (from 375 ms): RTT 105 ms, ended at 480 ms.
        // diff = 10 * 5 / 100 = 0.5 < 2: cwnd 11.
        at(&mut s, 400);
        s.ack_n_with_rtt(2, ms(105));
        at(&mut s, 480);
        s.ack_n_with_rtt(1, ms(105));
        assert!((s.cc.last_diff() - 0.5).abs() < 1e-12);
        assert_eq!(s.state.cwnd, 11.0);
    }

    #[test]
    fn brakmo_diff_divides_by_the_rtt() {
        // RTT 120 ms at cwnd 11: Linux diff = 11 * 20 / 100 = 2.2 (hold);
        // Brakmo's = 11 * 20 / 120 = 1.833 < 2 (grow to 12).
        for (diff, want) in [(DiffFormula::Linux, 11.0), (DiffFormula::Brakmo, 12.0)] {
            let mut s = sender(Config { diff, ..Config::default() });
            at(&mut s, 200);
            s.ack_n_with_rtt(2, ms(120));
            at(&mut s, 220);
            s.ack_n_with_rtt(1, ms(120));
            assert_eq!(s.state.cwnd, want, "{diff:?}");
        }
    }

    #[test]
    fn few_samples_mean_reno() {
        let mut s = sender(Config::default());
        // Round 2 with two samples only: Reno for the ending ACK,
        // 11 + 1/11 = 11.090909.
        at(&mut s, 200);
        s.ack_n_with_rtt(1, ms(150));
        at(&mut s, 250);
        s.ack_n_with_rtt(1, ms(150));
        assert!((s.state.cwnd - 11.090_909_090_9).abs() < 1e-9, "{}", s.state.cwnd);
    }

    #[test]
    fn modified_slow_start_leaves_at_the_actual_rate() {
        let mut s = TestSender::new(Vegas::from(Config::default()), 2.0);
        // Round 1 (from t = 0): two ACKs sent before it: slow start 2 -> 4.
        s.ack_n_with_rtt(2, ms(100));
        assert_eq!(s.state.cwnd, 4.0);
        // Ends at 100 ms with RTT = BaseRTT: diff 0 <= gamma: slow start, 5.
        at(&mut s, 100);
        s.ack_n_with_rtt(1, ms(100));
        assert_eq!(s.state.cwnd, 5.0);
        // Round 2 (from 100 ms): RTT 150 ms. Three ACKs at 200 ms (sent at
        // 50 ms, before the round): slow start 5 -> 8. The ACK at 250 ms
        // ends it: diff = 8 * 50 / 100 = 4 > gamma = 1, so cwnd =
        // min(8, 8 * 100 / 150 + 1) = 6.3333 and ssthresh = 6.3333:
        // congestion avoidance from now on.
        at(&mut s, 200);
        s.ack_n_with_rtt(3, ms(150));
        assert_eq!(s.state.cwnd, 8.0);
        at(&mut s, 250);
        s.ack_n_with_rtt(1, ms(150));
        assert!((s.state.cwnd - 6.333_333_333_3).abs() < 1e-9, "{}", s.state.cwnd);
        assert!((s.state.ssthresh - 6.333_333_333_3).abs() < 1e-9, "{}", s.state.ssthresh);
        assert!(!s.state.in_slow_start());
    }

    fn linux_2_6_22() -> Config {
        Config { diff: DiffFormula::Brakmo, variant: Variant::Linux2622, ..Config::default() }
    }

    #[test]
    fn linux_2_6_22_steps_toward_the_previous_rounds_window_so_grows_every_second_round() {
        // Congestion avoidance at cwnd 10 (ssthresh 5), RTT = BaseRTT = 100
        // ms: diff 0 < alpha at every round end, so next = old_snd_cwnd + 1
        // (tcp_vegas.c:296-312). Rounds end at 100, 200, ... ms (3 samples
        // each). The first round's old_snd_cwnd is Linux's zeroed 0: next
        // 1 < 10, cwnd 9.
        let mut s = TestSender::new(Vegas::from(linux_2_6_22()), 10.0);
        s.state.ssthresh = 5.0;
        let mut windows = Vec::new();
        for round in 1..=6u64 {
            s.ack_n_with_rtt(2, ms(100));
            at(&mut s, 100 * round);
            s.ack_n_with_rtt(1, ms(100));
            windows.push(s.state.cwnd);
        }
        // 9 (next 0 + 1), then old 10 -> next 11 > 9: 10; old 9 -> 10 =
        // 10: hold; old 10 -> 11: 11; old 10 -> 11 = 11: hold; 12.
        assert_eq!(windows, vec![9.0, 10.0, 10.0, 11.0, 11.0, 12.0]);
        assert_eq!(s.cc.last_diff(), 0.0);
        // The later module grows every round from its own window.
        let mut later = TestSender::new(Vegas::from(Config { diff: DiffFormula::Brakmo, ..Config::default() }), 10.0);
        later.state.ssthresh = 5.0;
        for round in 1..=6u64 {
            later.ack_n_with_rtt(2, ms(100));
            at(&mut later, 100 * round);
            later.ack_n_with_rtt(1, ms(100));
        }
        assert_eq!(later.state.cwnd, 16.0);
    }

    #[test]
    fn linux_2_6_22_leaves_slow_start_with_ssthresh_2_and_one_more_segment() {
        // Slow start (cwnd 8 <= ssthresh), a round of 8 segments with RTT
        // 200 ms against BaseRTT 100: target = 8 * 100 / 200 = 4, diff = 4
        // > gamma: ssthresh 2, cwnd min(cwnd, 4 + 1), then tcp_slow_start's
        // +1 (tcp_vegas.c:270-290): 6.
        let mut s = TestSender::new(Vegas::from(linux_2_6_22()), 8.0);
        s.ack_n_with_rtt(1, ms(100)); // BaseRTT 100 ms; slow start 9
        at(&mut s, 100);
        s.ack_n_with_rtt(1, ms(100)); // round 1 ends (2 samples: Reno, +1)
        assert_eq!(s.state.cwnd, 10.0);
        s.state.cwnd = 8.0;
        at(&mut s, 200);
        s.ack_n_with_rtt(7, ms(200)); // sent before the round: slow start
        assert_eq!(s.state.cwnd, 15.0);
        at(&mut s, 300);
        s.ack_n_with_rtt(1, ms(200)); // ends round 2: 8 segments acked, 8 samples
        assert_eq!(s.cc.last_diff(), 4.0);
        assert_eq!(s.state.ssthresh, 2.0);
        assert_eq!(s.state.cwnd, 6.0);
    }

    #[test]
    fn loss_halves_cwnd_and_recovery_restarts_the_round() {
        let mut s = sender(Config::default()); // cwnd 11
        s.state.segments_in_flight = 11;
        assert_eq!(s.lose(LossKind::FastRetransmit), 5.5);
        at(&mut s, 300);
        s.end_recovery(); // cwnd = min(5.5, 12) = 5.5; round restarts at 300 ms
        assert_eq!(s.state.cwnd, 5.5);
        // ACKs at 350 ms with RTT 100 ms were sent at 250, before the new
        // round: no change in congestion avoidance.
        at(&mut s, 350);
        s.ack_n_with_rtt(3, ms(100));
        assert_eq!(s.state.cwnd, 5.5);
        // The ACK at 400 ms (sent at 300) ends it: diff 0: 6.5.
        at(&mut s, 400);
        s.ack_n_with_rtt(1, ms(100));
        assert_eq!(s.state.cwnd, 6.5);
    }
}
