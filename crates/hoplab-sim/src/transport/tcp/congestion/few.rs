//! FeW, fractional window increment (Nahm, Helmy, Kuo, "TCP over multihop
//! 802.11 networks: issues and performance enhancement", ACM MobiHoc 2005),
//! as seed 003 section 2 (its Eq. 2) and docs/few-afw.md state it:
//! in congestion avoidance `cwnd += alpha / cwnd` per new ACK, `alpha =
//! 0.01`, so the window grows by about alpha segments per RTT instead of
//! Reno's one. Slow start and the loss response are Reno's (RFC 5681:
//! +1 per segment below ssthresh; ssthresh = max(FlightSize / 2, 2)).
//!
//! The increment is applied per acknowledged segment, like this crate's
//! Reno ([`super::reno_increase`]); with one segment per ACK (ns-2's TCP
//! without delayed ACKs, as in seed 003) that is the paper's per-ACK rule.

use super::{reno_slow_start, CongestionControl, TcpState};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// FeW parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "FewParams")]
pub struct Config {
    /// Fraction of Reno's increase: cwnd += alpha / cwnd per ACK in
    /// congestion avoidance, 0 < alpha <= 1 (alpha = 1 is Reno). Default
    /// 0.01 (Nahm et al. 2005, the value seed 003 validates with).
    pub alpha: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config { alpha: 0.01 }
    }
}

#[derive(Debug, Clone)]
pub struct Few {
    config: Config,
}

impl From<Config> for Few {
    fn from(config: Config) -> Self {
        Few { config }
    }
}

impl CongestionControl for Few {
    fn name(&self) -> &'static str {
        "few"
    }

    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        let mut left = segments_acked;
        if state.in_slow_start() {
            left = reno_slow_start(state, segments_acked);
        }
        for _ in 0..left {
            state.cwnd += self.config.alpha / state.cwnd;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::super::LossKind;
    use super::*;

    fn sender(cwnd: f64) -> TestSender<Few> {
        TestSender::new(Few::from(Config::default()), cwnd)
    }

    #[test]
    fn slow_start_is_reno() {
        let mut s = sender(2.0);
        s.state.ssthresh = 8.0;
        s.ack_round(); // 2 -> 4
        s.ack_round(); // 4 -> 8
        assert_eq!(s.state.cwnd, 8.0);
    }

    #[test]
    fn avoidance_adds_a_hundredth_of_reno() {
        let mut s = sender(10.0);
        s.state.ssthresh = 10.0;
        s.ack_n(1); // 10 + 0.01 / 10 = 10.001
        assert!((s.state.cwnd - 10.001).abs() < 1e-12, "{}", s.state.cwnd);
        s.ack_n(1); // 10.001 + 0.01 / 10.001 = 10.001 + 0.000999900009999
        assert!((s.state.cwnd - 10.001_999_900_01).abs() < 1e-11, "{}", s.state.cwnd);
        // A whole round of 10 ACKs from 10 adds just under alpha = 0.01
        // (each step is 0.01 / cwnd with cwnd slightly above 10).
        let mut r = sender(10.0);
        r.state.ssthresh = 10.0;
        r.ack_round();
        assert!(r.state.cwnd > 10.0099 && r.state.cwnd < 10.01, "{}", r.state.cwnd);
    }

    #[test]
    fn loss_response_is_reno() {
        let mut s = sender(12.0);
        s.state.segments_in_flight = 10;
        assert_eq!(s.lose(LossKind::FastRetransmit), 5.0); // FlightSize 10 / 2
        assert_eq!(s.state.cwnd, 5.0);
        s.state.segments_in_flight = 3;
        assert_eq!(s.lose(LossKind::Timeout), 2.0); // max(1.5, 2)
        assert_eq!(s.state.cwnd, 1.0);
    }
}
