//! TCP Westwood+ (Mascolo, Grieco, Ferorelli, Camarda, Piscitelli, "Performance
//! evaluation of Westwood+ TCP congestion control", Performance Evaluation
//! 55(1-2), 2004), as ns-3's `TcpWestwoodPlus` implements it (docs/tcpw-br.md
//! uses it as the base of TCPW BR).
//!
//! Bandwidth estimate (BWE), as ns-3: the first ACK after an estimate opens
//! a window one RTT long (the RTT of that ACK: the sample, or the latest
//! sample when Karn's rule gave none, as ns-3 passes `m_lastRtt`); the
//! segments acknowledged in it, the opening ACK's included, give the sample
//! `b = acked * MSS / RTT` when it closes. ns-3 closes it with a timer
//! event; here it closes at the first hook that sees `now >= start + RTT`
//! (a later ACK, or `ssthresh` on a loss, which reads the estimate it would
//! have had). The sample is filtered with ns-3's Tustin (bilinear)
//! low-pass filter, alpha = 0.9:
//!
//! ```text
//! BWE_k = alpha * BWE_{k-1} + (1 - alpha) * (b_k + b_{k-1}) / 2
//! ```
//!
//! (ns-3 `TcpWestwoodPlus::EstimateBW`, `ALPHA = 0.9`; `FilterType`
//! `Tustin`, the default, or `None`). BWE starts at 0.
//!
//! Loss: ssthresh = max(2, BWE * RTT_min / MSS) segments on both fast
//! retransmit and timeout (ns-3 `GetSsThresh`: max(2 segments, BWE *
//! m_minRtt)); after a fast retransmit cwnd = ssthresh (plus the socket's
//! duplicate-ACK inflation), after a timeout cwnd = 1 (the socket). Window
//! growth is Reno's. ns-3 truncates ssthresh to whole bytes; it is kept
//! real-valued here.
//!
//! **`variant = "linux"`**: Linux 2.6.22's `tcp_westwood.c`, the module
//! ns-2.35's TCP-Linux runs for `select_ca westwood` (set by `preset =
//! "ns2"` with `tcp.sack`). Its estimator is `westwood_linux.rs` (samples
//! over max(SRTT, 50 ms), two cascaded 7/8 filters, RTT_min the smallest
//! SRTT); its window rules are not ns-3's: ssthresh is Reno's, max(cwnd /
//! 2, 2) (`.ssthresh = tcp_reno_ssthresh`, tcp_westwood.c:282;
//! tcp_cong.c:367-371) on both losses, and the estimate only sets the
//! `min_cwnd` hook, bw_est x rtt_min (tcp_westwood.c:284, 218-223), which
//! ns-2.35's recovery lowers the window to (tcp/tcp-linux.cc:498-499) and
//! leaves it at when it is above ssthresh (464-468 raise only a window
//! below it). Without `tcp.sack_rate_halving` the window after a fast
//! retransmit is that end point, max(ssthresh, bw_est x rtt_min). Linux's
//! `CA_EVENT_COMPLETE_CWR` (cwnd = ssthresh = bw_est x rtt_min, 235-237)
//! is never raised by ns-2.35's agent, and is not modelled.
//!
//! Its growth is `tcp_reno_cong_avoid` (tcp_westwood.c:283) with ns-2.35's
//! `sysctl_tcp_abc = 1` (tcp/linux/ns-linux-param.c:20), Appropriate Byte
//! Counting: above ssthresh cwnd grows by one segment each time the bytes
//! acknowledged reach a window, `bytes_acked >= snd_cwnd * mss`, the
//! window's worth taken off (tcp/linux/src/tcp_cong.c:345-353). The agent
//! adds every ACK's newly acknowledged bytes to `bytes_acked`, in recovery
//! too where the window does not grow (tcp/tcp-linux.cc:351-353, 397-398,
//! 411-413), and clears it only when a loss is detected (496) or a timeout
//! fires (533, 584) and in slow start (`tcp_slow_start`, tcp_cong.c:297-310,
//! which also grows one segment per ACK at cwnd == ssthresh, 341). So the
//! segments a recovery acknowledges, its closing cumulative ACK included,
//! count toward the growth after it. Counted here in segments, a window
//! being whole segments (ns-2's `snd_cwnd` is an integer).

use super::westwood_linux::{AckPath, LinuxEstimator};
use super::{CongState, CongestionControl, CwndEvent, LossKind, TcpState};
use crate::config::{Applies, PresetRule};
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The low-pass filter applied to bandwidth samples (ns-3 `FilterType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Tustin (bilinear) approximation of a first-order low-pass filter.
    Tustin,
    /// The raw per-RTT sample.
    None,
}

/// Which implementation of Westwood+ (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// ns-3 3.44's `TcpWestwoodPlus` (the default).
    Ns3,
    /// Linux 2.6.22's `tcp_westwood.c`, as ns-2.35's TCP-Linux runs it;
    /// `filter` and `alpha` do not apply.
    Linux,
}

/// Westwood+ parameters (ns-3 `TcpWestwoodPlus`, or Linux's module).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "WestwoodPlusParams")]
pub struct Config {
    /// `"ns3"` (default: ns-3's `TcpWestwoodPlus`) or `"linux"` (Linux
    /// 2.6.22's `tcp_westwood.c`, ns-2.35 TCP-Linux's `westwood`; `preset
    /// = "ns2"` sets it with `tcp.sack = true`).
    pub variant: Variant,
    /// `"tustin"` (default, ns-3 `FilterType` default) or `"none"`.
    pub filter: Filter,
    /// Filter gain on the previous estimate. Default 0.9 (ns-3
    /// `EstimateBW`: `constexpr double ALPHA = 0.9`).
    pub alpha: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config { variant: Variant::Ns3, filter: Filter::Tustin, alpha: 0.9 }
    }
}

/// The measurement window in progress.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: SimTime,
    rtt: SimDuration,
    /// Segments acknowledged since `start`.
    acked: u64,
}

#[derive(Debug, Clone)]
pub struct WestwoodPlus {
    config: Config,
    /// Filtered estimate, bytes per second (ns-3 `m_currentBW` / 8).
    bwe: f64,
    /// The previous raw sample, bytes per second (`m_lastSampleBW`).
    last_sample: f64,
    window: Option<Window>,
    /// `variant = "linux"`: Linux's estimator (the fields above unused).
    linux: Option<LinuxEstimator>,
    /// `variant = "linux"`: ns-2.35's `bytes_acked`, in segments (module docs).
    acked_segments: u64,
}

impl From<Config> for WestwoodPlus {
    fn from(config: Config) -> Self {
        let linux = (config.variant == Variant::Linux).then(LinuxEstimator::default);
        WestwoodPlus { config, bwe: 0.0, last_sample: 0.0, window: None, linux, acked_segments: 0 }
    }
}

impl WestwoodPlus {
    /// The bandwidth estimate, bytes per second, as of the last closed window.
    pub fn bwe(&self) -> f64 {
        self.linux.as_ref().map_or(self.bwe, LinuxEstimator::bwe_bytes_per_s)
    }

    /// (estimate, raw sample) after closing the window if it is due at `now`.
    fn estimate_at(&self, now: SimTime, mss_bytes: u32) -> Option<(f64, f64)> {
        let w = self.window?;
        if now < w.start + w.rtt {
            return None;
        }
        let sample = (w.acked * mss_bytes as u64) as f64 / w.rtt.as_secs_f64();
        let bwe = match self.config.filter {
            Filter::Tustin => {
                let a = self.config.alpha;
                a * self.bwe + (1.0 - a) * (sample + self.last_sample) / 2.0
            }
            Filter::None => sample,
        };
        Some((bwe, sample))
    }
}

impl CongestionControl for WestwoodPlus {
    fn name(&self) -> &'static str {
        "westwood_plus"
    }

    fn ssthresh(&self, state: &TcpState, _loss: LossKind) -> f64 {
        if self.linux.is_some() {
            return (state.cwnd / 2.0).max(2.0); // tcp_reno_ssthresh
        }
        let bwe = self.estimate_at(state.now, state.mss_bytes).map_or(self.bwe, |(bwe, _)| bwe);
        let rtt_min = state.min_rtt.map_or(0.0, |r| r.as_secs_f64());
        (bwe * rtt_min / state.mss_bytes as f64).max(2.0)
    }

    /// Linux: where ns-2.35's recovery ends, max(ssthresh, bw_est x rtt_min).
    fn cwnd_after_fast_retransmit(&self, state: &TcpState, new_ssthresh: f64) -> f64 {
        match &self.linux {
            Some(linux) => new_ssthresh.max(linux.bw_rttmin_segments(state.mss_bytes)),
            None => new_ssthresh,
        }
    }

    /// Linux: `tcp_westwood_bw_rttmin` (tcp_westwood.c:218-223, 284).
    fn min_cwnd(&self, state: &TcpState, new_ssthresh: f64) -> f64 {
        match &self.linux {
            Some(linux) => linux.bw_rttmin_segments(state.mss_bytes),
            None => new_ssthresh,
        }
    }

    /// Linux: Reno with ns-2.35's byte counting (module docs).
    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        if self.linux.is_none() {
            return super::reno_increase(state, segments_acked);
        }
        if state.cwnd <= state.ssthresh {
            // tcp_slow_start (tcp_cong.c:297-317): +1 per ACK, count cleared.
            state.cwnd += 1.0;
            self.acked_segments = 0;
        } else if self.acked_segments >= state.cwnd.floor() as u64 {
            // tcp_cong.c:349-352: once per window of acknowledged bytes.
            self.acked_segments -= state.cwnd.floor() as u64;
            state.cwnd += 1.0;
        }
    }

    /// Linux: a loss clears `bytes_acked` (tcp/tcp-linux.cc:496 on entering
    /// recovery, 533 and 584 on a timeout).
    fn state_set(&mut self, _state: &TcpState, new_state: CongState) {
        if matches!(new_state, CongState::Recovery | CongState::Loss) {
            self.acked_segments = 0;
        }
    }

    fn cwnd_event(&mut self, _state: &mut TcpState, event: CwndEvent) {
        if event == CwndEvent::Timeout {
            self.acked_segments = 0;
        }
    }

    fn dup_ack(&mut self, state: &TcpState) {
        if let Some(linux) = &mut self.linux {
            linux.on_ack(state.now, AckPath::Slow, 0, state.mss_bytes);
        }
    }

    fn pkts_acked(&mut self, state: &TcpState, segments_acked: u32, rtt: Option<SimDuration>) {
        if let Some(linux) = &mut self.linux {
            // tcp/tcp-linux.cc:374-390: pkts_acked, then the fast or slow
            // ACK event (hoplab's Disorder is ns-2's Open with SACK news).
            // tcp/tcp-linux.cc:351-353: every ACK of new data, any state.
            self.acked_segments += u64::from(segments_acked);
            linux.on_pkts_acked(state.now, state.srtt);
            let path = if state.cong_state == CongState::Open { AckPath::Fast } else { AckPath::Slow };
            linux.on_ack(state.now, path, u64::from(segments_acked) * u64::from(state.mss_bytes), state.mss_bytes);
            return;
        }
        let Some(rtt) = rtt.or(state.last_rtt).filter(|r| *r > SimDuration::ZERO) else { return };
        if let Some((bwe, sample)) = self.estimate_at(state.now, state.mss_bytes) {
            self.bwe = bwe;
            self.last_sample = sample;
            self.window = None;
        }
        let window = self.window.get_or_insert(Window { start: state.now, rtt, acked: 0 });
        window.acked += segments_acked as u64;
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("westwood_bwe_bytes_per_s", self.bwe())]
    }
}

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`, in the order of its
/// sources; `hoplab presets`). Each cites the ns-2 file and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[
    PresetRule {
        key: "flows[].cc_params.variant",
        value: "\"linux\"",
        applies: Applies::WithTcpSackFlowCc("westwood_plus"),
        source: "tcp/linux/src/tcp_westwood.c:80-95 westwood_filter, 116-145 westwood_update_window, 218-223 tcp_westwood_bw_rttmin, 280-291 (ssthresh = tcp_reno_ssthresh, min_cwnd = bw_rttmin): Linux 2.6.22's module, run by select_ca westwood through tcp/tcp-linux.cc:374-390, 494-501 (ns-2.35)",
    },
];

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::LossKind;
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_nanos(v * 1_000_000)
    }

    fn sender(filter: Filter) -> TestSender<WestwoodPlus> {
        TestSender::new(WestwoodPlus::from(Config { filter, ..Config::default() }), 10.0)
    }

    #[test]
    fn ssthresh_is_bandwidth_times_min_rtt() {
        let mut s = sender(Filter::None);
        s.state.segments_in_flight = 10;
        // Before any estimate BWE = 0: ssthresh = 2.
        assert_eq!(s.lose(LossKind::FastRetransmit), 2.0);
        s.set_cong_state(super::super::CongState::Open);
        // 10 segments of 1000 B acknowledged in the 100 ms window opened at
        // t = 0: BWE = 10 * 1000 B / 0.1 s = 100 000 B/s (800 kbit/s).
        s.ack_n(10);
        s.advance(ms(100));
        // The window is due: the loss sees 100 000 B/s * 0.1 s / 1000 B = 10.
        assert_eq!(s.lose(LossKind::FastRetransmit), 10.0);
        assert_eq!(s.state.cwnd, 10.0);
        // With RTT_min = 50 ms (an earlier sample): 100 000 * 0.05 / 1000 = 5.
        s.state.min_rtt = Some(ms(50));
        assert_eq!(s.lose(LossKind::Timeout), 5.0);
        assert_eq!(s.state.cwnd, 1.0);
        // An ACK at 100 ms closes the window for good and opens the next.
        s.ack_n(1);
        assert_eq!(s.cc.bwe(), 100_000.0);
    }

    #[test]
    fn tustin_filter_smooths_the_samples() {
        let mut s = sender(Filter::Tustin);
        // Four 100 ms windows of 10 segments: every raw sample is 100 000 B/s.
        // BWE_1 = 0.9 * 0 + 0.05 * (100 000 + 0) = 5 000;
        // BWE_2 = 0.9 * 5 000 + 0.05 * (100 000 + 100 000) = 14 500;
        // BWE_3 = 0.9 * 14 500 + 10 000 = 23 050.
        let mut want = [5_000.0, 14_500.0, 23_050.0].into_iter();
        s.ack_n(10);
        for _ in 0..3 {
            s.advance(ms(100));
            s.ack_n(10);
            let w = want.next().unwrap();
            assert!((s.cc.bwe() - w).abs() < 1e-9, "{} != {w}", s.cc.bwe());
        }
        // ssthresh = 23 050 B/s * 0.1 s / 1000 B = 2.305 segments.
        s.state.segments_in_flight = 10;
        let ssthresh = s.lose(LossKind::FastRetransmit);
        assert!((ssthresh - 2.305).abs() < 1e-9, "{ssthresh}");
    }

    #[test]
    fn acks_inside_the_window_accumulate() {
        let mut s = sender(Filter::None);
        // Window opened at t = 0 with RTT 200 ms: 4 ACKs at 0, 6 at 150 ms
        // (inside), then one at 200 ms closes it: 10 * 1000 / 0.2 = 50 000.
        s.ack_n_with_rtt(4, ms(200));
        s.advance(ms(150));
        s.ack_n_with_rtt(6, ms(120));
        assert_eq!(s.cc.bwe(), 0.0);
        s.advance(ms(50));
        s.ack_n_with_rtt(1, ms(120));
        assert_eq!(s.cc.bwe(), 50_000.0);
    }

    fn linux() -> TestSender<WestwoodPlus> {
        TestSender::new(WestwoodPlus::from(Config { variant: Variant::Linux, ..Config::default() }), 30.0)
    }

    #[test]
    fn linux_variant_halves_ssthresh_and_keeps_bandwidth_times_rtt_min_as_the_floor() {
        let mut s = linux();
        // Estimate 100 000 B/s and RTT_min 100 ms (westwood_linux.rs's
        // worked example): bw_rttmin = 100 x 100 / 1000 = 10 segments.
        s.ack_n(10);
        s.advance(ms(100));
        s.ack_n(1);
        s.advance(ms(1));
        s.ack_n(20);
        s.advance(ms(101));
        s.ack_n(1);
        assert_eq!(s.cc.bwe(), 100_000.0);
        // cwnd 30: Reno's ssthresh 15 (ns-3's variant would take 10), and
        // the window ends at ssthresh, which is above the floor.
        s.state.cwnd = 30.0;
        s.state.segments_in_flight = 60; // FlightSize is not read
        assert_eq!(s.lose(LossKind::FastRetransmit), 15.0);
        assert_eq!(s.state.cwnd, 15.0);
        assert_eq!(s.cc.min_cwnd(&s.state, 15.0), 10.0);
        // cwnd 12: ssthresh 6, the window stays at bw_rttmin = 10.
        s.set_cong_state(super::super::CongState::Open);
        s.state.cwnd = 12.0;
        assert_eq!(s.lose(LossKind::FastRetransmit), 6.0);
        assert_eq!(s.state.cwnd, 10.0);
        // A timeout: Reno's ssthresh too, cwnd 1.
        s.set_cong_state(super::super::CongState::Open);
        s.state.cwnd = 12.0;
        assert_eq!(s.lose(LossKind::Timeout), 6.0);
        assert_eq!(s.state.cwnd, 1.0);
    }

    #[test]
    fn linux_variant_counts_duplicates_in_recovery() {
        // In recovery every ACK is a slow one: a duplicate adds a segment
        // to the window's bytes, the cumulative ACK only what they did not.
        let mut s = linux();
        s.ack_n(1); // opens the window
        s.set_cong_state(super::super::CongState::Recovery);
        for _ in 0..4 {
            s.cc.dup_ack(&s.state);
        }
        s.cc.pkts_acked(&s.state, 4, None); // covered by the duplicates: 1 MSS
        s.advance(ms(101));
        s.cc.dup_ack(&s.state); // closes the window: 5000 B / 101 ms = 49
        assert_eq!(s.cc.bwe(), 49_000.0);
    }

    #[test]
    fn linux_variant_grows_once_per_window_of_acked_segments_counting_the_recovery() {
        // ns-2.35's bytes_acked with sysctl_tcp_abc = 1 (tcp_cong.c:345-353,
        // tcp/tcp-linux.cc:351-353, 496): Reno's 1/cwnd per ACK would give
        // 12 + 1/12 after the first ACK below.
        use super::super::CongState;
        let mut s = linux();
        s.state.ssthresh = 10.0;
        s.state.cwnd = 12.0;
        s.set_cong_state(CongState::Recovery);
        s.cc.pkts_acked(&s.state, 12, None); // the recovery's closing cumulative ACK
        s.set_cong_state(CongState::Open);
        s.ack_n(1); // 13 segments counted: one window of 12, one left
        assert_eq!(s.state.cwnd, 13.0);
        s.ack_n(11);
        assert_eq!(s.state.cwnd, 13.0);
        s.ack_n(1); // 13 again
        assert_eq!(s.state.cwnd, 14.0);
        // A loss clears the count (496): 10 counted, then a fast retransmit.
        s.cc.pkts_acked(&s.state, 10, None);
        s.lose(LossKind::FastRetransmit);
        s.state.cwnd = 14.0;
        s.set_cong_state(CongState::Open);
        s.ack_n(13);
        assert_eq!(s.state.cwnd, 14.0);
        s.ack_n(1);
        assert_eq!(s.state.cwnd, 15.0);
        // At cwnd == ssthresh tcp_slow_start grows by one and clears it (341, 310).
        s.cc.pkts_acked(&s.state, 5, None);
        s.state.ssthresh = 15.0;
        s.ack_n(1);
        assert_eq!(s.state.cwnd, 16.0);
        s.ack_n(15);
        assert_eq!(s.state.cwnd, 16.0);
        s.ack_n(1);
        assert_eq!(s.state.cwnd, 17.0);
    }

    #[test]
    fn variant_is_a_parameter() {
        let config: Config = serde_json::from_value(serde_json::json!({"variant": "linux"})).unwrap();
        assert_eq!(config.variant, Variant::Linux);
        assert_eq!(Config::default().variant, Variant::Ns3);
    }
}
