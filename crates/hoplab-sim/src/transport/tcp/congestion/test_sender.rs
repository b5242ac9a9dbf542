//! A scripted sender for controller unit tests (after quiche's `TestSender`):
//! acknowledge rounds, lose, advance time, read the window. No network.

use super::{CongState, CongestionControl, CwndEvent, LossKind, TcpState};
use crate::time::{SimDuration, SimTime};

pub struct TestSender<C: CongestionControl> {
    pub cc: C,
    pub state: TcpState,
    /// RTT used for samples and for advancing time by one round.
    pub rtt: SimDuration,
}

impl<C: CongestionControl> TestSender<C> {
    /// A sender with `cwnd` segments, 1000-byte MSS, 100 ms RTT, ssthresh high.
    pub fn new(mut cc: C, cwnd: f64) -> Self {
        let mut state = TcpState::new(cwnd, 1e9, 1000, SimDuration::from_secs_f64(1.0));
        cc.init(&mut state);
        TestSender { cc, state, rtt: SimDuration::from_secs_f64(0.1) }
    }

    pub fn advance(&mut self, by: SimDuration) {
        self.state.now += by;
    }

    pub fn set_time(&mut self, at: SimTime) {
        self.state.now = at;
    }

    /// Acknowledge `n` segments one ACK at a time, each with an RTT sample.
    pub fn ack_n(&mut self, n: u32) {
        self.ack_n_with_rtt(n, self.rtt);
    }

    /// Acknowledge `n` segments one ACK at a time at the current time, each
    /// with the RTT sample `rtt` (the segment was sent at `now - rtt`).
    /// `self.rtt` is left as it is.
    pub fn ack_n_with_rtt(&mut self, n: u32, rtt: SimDuration) {
        for _ in 0..n {
            self.sample_rtt(rtt);
            self.cc.pkts_acked(&self.state, 1, Some(rtt));
            self.cc.increase_window(&mut self.state, 1);
        }
    }

    /// Acknowledge one window's worth of segments (floor of cwnd), then
    /// advance time by one RTT.
    pub fn ack_round(&mut self) {
        let n = self.state.cwnd.floor() as u32;
        self.state.segments_in_flight = n;
        self.ack_n(n);
        self.advance(self.rtt);
    }

    fn sample_rtt(&mut self, rtt: SimDuration) {
        self.state.last_rtt = Some(rtt);
        self.state.min_rtt = Some(self.state.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.state.max_rtt = Some(self.state.max_rtt.map_or(rtt, |m| m.max(rtt)));
        self.state.srtt = Some(match self.state.srtt {
            None => rtt,
            Some(s) => SimDuration::from_nanos((s.as_nanos() * 7 + rtt.as_nanos()) / 8),
        });
    }

    /// A loss: the socket's sequence for this kind (cwnd_event on a
    /// timeout, ssthresh, cwnd, then the state change to Recovery or Loss).
    /// No duplicate-ACK inflation is added. Returns the new ssthresh.
    pub fn lose(&mut self, loss: LossKind) -> f64 {
        if loss == LossKind::Timeout {
            self.cc.cwnd_event(&mut self.state, CwndEvent::Timeout);
        }
        let ssthresh = self.cc.ssthresh(&self.state, loss);
        self.state.ssthresh = ssthresh;
        self.state.cwnd = match loss {
            LossKind::FastRetransmit => self.cc.cwnd_after_fast_retransmit(&self.state, ssthresh),
            LossKind::Timeout => 1.0,
        };
        self.set_cong_state(match loss {
            LossKind::FastRetransmit => CongState::Recovery,
            LossKind::Timeout => CongState::Loss,
        });
        ssthresh
    }

    /// A full ACK ends fast recovery, as the socket does it (RFC 6582 3.2
    /// step 3): cwnd = min(ssthresh, max(FlightSize, 1) + 1), then
    /// `RecoveryComplete` and the state change to Open.
    pub fn end_recovery(&mut self) {
        let flight = self.state.segments_in_flight.max(1) as f64;
        self.state.cwnd = self.state.ssthresh.min(flight + 1.0);
        self.cc.cwnd_event(&mut self.state, CwndEvent::RecoveryComplete);
        self.set_cong_state(CongState::Open);
    }

    /// Change the congestion state and tell the controller, only if it
    /// changes (as the socket does).
    pub fn set_cong_state(&mut self, new_state: CongState) {
        if self.state.cong_state != new_state {
            self.state.cong_state = new_state;
            self.cc.state_set(&self.state, new_state);
        }
    }
}
