//! NewReno (RFC 5681 window growth, RFC 6582 recovery): the reference every
//! other controller is compared with. The recovery itself (partial ACKs,
//! window inflation) is the socket's; the controller is plain Reno: slow
//! start, +1/cwnd per ACKed segment in congestion avoidance, ssthresh =
//! max(FlightSize / 2, 2) on loss (RFC 5681 eq. 4).

use super::{CongestionControl, TcpState};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// NewReno has no parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "NewRenoParams")]
pub struct Config {}

#[derive(Debug, Clone, Default)]
pub struct NewReno;

impl From<Config> for NewReno {
    fn from(_: Config) -> Self {
        NewReno
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    /// `tcp_reno_min_cwnd` (ns-2.35 tcp/linux/src/tcp_cong.c:375-379).
    fn min_cwnd(&self, _state: &TcpState, new_ssthresh: f64) -> f64 {
        new_ssthresh / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_sender::TestSender;
    use super::*;

    #[test]
    fn slow_start_doubles_per_round_then_avoidance_adds_one() {
        let mut s = TestSender::new(NewReno, 2.0);
        s.state.ssthresh = 8.0;
        s.ack_round(); // 2 acked -> 4
        assert_eq!(s.state.cwnd, 4.0);
        s.ack_round(); // 4 acked -> 8 (capped at ssthresh)
        assert_eq!(s.state.cwnd, 8.0);
        // 8 segments at 1/cwnd each, cwnd updated per ACK:
        // 8.125, 8.2481, 8.3693, 8.4888, 8.6066, 8.7228, 8.8374, 8.9506.
        s.ack_round();
        assert!((s.state.cwnd - 8.9506).abs() < 1e-4, "{}", s.state.cwnd);
    }

    #[test]
    fn loss_halves_the_flight() {
        let mut s = TestSender::new(NewReno, 10.0);
        s.state.segments_in_flight = 10;
        assert_eq!(s.lose(super::super::LossKind::FastRetransmit), 5.0);
        s.state.segments_in_flight = 3;
        assert_eq!(s.lose(super::super::LossKind::Timeout), 2.0);
    }
}
