//! The semi-TCP sender: reliability without congestion control
//! (docs/semitcp-2018.md). There is no window: the source hands a segment down whenever
//! its MAC's reserved buffer has room (and, with rate control, its sending
//! timer allows). End-to-end ACKs carry the cumulative ACK and the segment
//! that triggered them (so an out-of-order segment is acknowledged on its
//! own) and echo that copy's send time; lost segments are resent, and no
//! loss changes the sending rate.
//!
//! Loss detection (**Decision**: docs/semitcp-2018.md says "retransmission timer,
//! duplicate ACKs"; the duplicate-ACK rule is generalised to time-based
//! detection, RACK, RFC 8985): a segment still unacknowledged when a copy
//! sent after it (plus a reorder window of SRTT / 4) is acknowledged is
//! lost and resent at once; one fast-retransmit per recovery would leave a
//! windowless sender, which keeps sending new data behind the hole, waiting
//! for the backed-off timer after every lost retransmission. The RFC 6298
//! timer remains the backstop: on expiry the oldest segment is resent.
//!
//! As the public ns-2 code (`[semitcp] loss_recovery = "rto_only"`,
//! `rto_backoff = false`; GitHub musicinthedark/semitcp, ns-2.29): no
//! detection from ACKs at all (`SemiTcpAgent::recv`,
//! `tcp/semitcp.cc:216-328`, has no duplicate-ACK action); the timer,
//! re-armed by every new cumulative ACK (`TcpAgent::newtimer`,
//! `tcp/tcp.cc:959-976`), resends the oldest segment not acknowledged
//! (cumulatively or on its own; `highest_ack_ + 1` through the `unacked`
//! list) and re-arms **without** backing off (`reset_rtx_timer(0)`,
//! `tcp/semitcp.cc:343`). ns-2 times one segment per round trip for its
//! RTT estimate; hoplab samples every segment not retransmitted (Karn).

use crate::time::SimTime;
use crate::transport::tcp::config::TcpConfig;
use crate::transport::tcp::rtt::RttEstimator;
use crate::transport::tcp::sender::SenderCounters;
use crate::wire::tcp::{SegmentKind, TcpHeader};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// `[semitcp] loss_recovery`: how the sender finds lost segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LossRecovery {
    /// Time-based detection from later ACKs (RACK, RFC 8985), the timer as
    /// the backstop.
    #[default]
    Rack,
    /// The retransmission timer alone (ns-2's `SemiTcpAgent`).
    RtoOnly,
}

#[derive(Debug, Clone, Copy)]
struct Outstanding {
    sent_at: SimTime,
    retransmitted: bool,
}

pub struct SemiTcpSender {
    next_new: u64,
    total_segments: Option<u64>,
    /// Every segment below is acknowledged.
    cumulative_ack: u64,
    /// Sent and not yet acknowledged (cumulatively or on its own).
    outstanding: BTreeMap<u64, Outstanding>,
    retransmit: VecDeque<u64>,
    rtt: RttEstimator,
    rto_deadline: Option<SimTime>,
    pub counters: SenderCounters,
    pub completed_at: Option<SimTime>,
    pub loss_recovery: LossRecovery,
    /// The timer backs off (doubles) on each expiry (RFC 6298 5.5).
    pub rto_backoff: bool,
}

impl SemiTcpSender {
    /// Segments sent and not yet acknowledged (what the sender remembers).
    pub fn outstanding_segments(&self) -> usize {
        self.outstanding.len()
    }

    pub fn new(config: &TcpConfig, total_segments: Option<u64>) -> Self {
        SemiTcpSender {
            next_new: 0,
            total_segments,
            cumulative_ack: 0,
            outstanding: BTreeMap::new(),
            retransmit: VecDeque::new(),
            rtt: RttEstimator::new(config.initial_rto_ms, config.min_rto_ms, config.max_rto_ms, config.clock_granularity_ms),
            rto_deadline: None,
            counters: SenderCounters::default(),
            completed_at: None,
            loss_recovery: LossRecovery::Rack,
            rto_backoff: true,
        }
    }

    /// Loss detection and timer backoff (`[semitcp] loss_recovery`, `rto_backoff`).
    pub fn with_recovery(mut self, loss_recovery: LossRecovery, rto_backoff: bool) -> Self {
        self.loss_recovery = loss_recovery;
        self.rto_backoff = rto_backoff;
        self
    }

    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }

    pub fn srtt_ms(&self) -> Option<f64> {
        self.rtt.srtt().map(|d| d.as_millis_f64())
    }

    /// The next segment to hand down: a retransmission first, then new data.
    pub fn next_segment(&mut self, now: SimTime) -> Option<TcpHeader> {
        while let Some(seq) = self.retransmit.pop_front() {
            if let Some(record) = self.outstanding.get_mut(&seq) {
                record.sent_at = now;
                record.retransmitted = true;
                self.counters.retransmissions += 1;
                return Some(self.sent(seq, now, true));
            }
        }
        if self.total_segments.is_some_and(|t| self.next_new >= t) {
            return None;
        }
        let seq = self.next_new;
        self.next_new += 1;
        self.outstanding.insert(seq, Outstanding { sent_at: now, retransmitted: false });
        Some(self.sent(seq, now, false))
    }

    fn sent(&mut self, seq: u64, now: SimTime, retransmission: bool) -> TcpHeader {
        self.counters.segments_sent += 1;
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        TcpHeader::outgoing(SegmentKind::Data, seq, now, retransmission)
    }

    fn acknowledge(&mut self, now: SimTime, seq: u64) {
        if let Some(record) = self.outstanding.remove(&seq) {
            if !record.retransmitted {
                self.rtt.sample(now.since(record.sent_at)); // Karn
            }
        }
    }

    pub fn on_ack(&mut self, now: SimTime, ack: &TcpHeader) {
        if ack.kind != SegmentKind::Ack {
            return;
        }
        self.acknowledge(now, ack.seq);
        if ack.ack > self.cumulative_ack {
            let still = self.outstanding.split_off(&ack.ack);
            self.outstanding = still;
            self.cumulative_ack = ack.ack;
            self.rto_deadline = (!self.outstanding.is_empty()).then(|| now + self.rtt.rto());
        }
        if self.loss_recovery == LossRecovery::Rack {
            self.rack(ack);
        }
        if self.outstanding.is_empty() {
            self.rto_deadline = None;
        }
        if self.total_segments.is_some_and(|t| self.cumulative_ack >= t) && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
    }

    /// RACK: the copy that triggered this ACK left at `ack.echo`; what was
    /// sent before it (beyond the reorder window) and is still
    /// unacknowledged was lost.
    fn rack(&mut self, ack: &TcpHeader) {
        let reorder_window =
            self.rtt.srtt().map_or(crate::time::SimDuration::ZERO, |s| crate::time::SimDuration::from_nanos(s.as_nanos() / 4));
        let mut lost = Vec::new();
        for (&seq, record) in &self.outstanding {
            if record.sent_at + reorder_window < ack.echo && !self.retransmit.contains(&seq) {
                lost.push(seq);
            }
        }
        for seq in lost {
            self.retransmit.push_back(seq);
            self.counters.fast_retransmits += 1;
        }
    }

    /// The timer expired: resend the oldest unacknowledged segment, back
    /// off (unless `rto_backoff` is off).
    pub fn on_rto(&mut self, now: SimTime) {
        self.rto_deadline = None;
        let Some((&oldest, _)) = self.outstanding.iter().next() else { return };
        self.counters.timeouts += 1;
        if self.rto_backoff {
            self.rtt.back_off();
        }
        if !self.retransmit.contains(&oldest) {
            self.retransmit.push_back(oldest);
        }
        self.rto_deadline = Some(now + self.rtt.rto());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn at(ms: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(ms / 1e3)
    }

    fn ack(cumulative: u64, seq: u64, echo: SimTime) -> TcpHeader {
        TcpHeader {
            kind: SegmentKind::Ack,
            seq,
            ack: cumulative,
            sent_at: SimTime::ZERO,
            echo,
            retransmission: false,
            loss_hint: None,
            sack: Default::default(),
        }
    }

    #[test]
    fn sends_without_a_window_and_resends_what_a_later_ack_shows_lost() {
        let mut s = SemiTcpSender::new(&TcpConfig::default(), None);
        // Segments 0..5 leave at 0, 10, ..., 50 ms: no window holds them.
        let sent: Vec<u64> = (0..6).map(|i| s.next_segment(at(10.0 * i as f64)).unwrap().seq).collect();
        assert_eq!(sent, [0, 1, 2, 3, 4, 5]);
        // ACK of 0 after 40 ms: SRTT 40 ms, reorder window 10 ms.
        s.on_ack(at(40.0), &ack(1, 0, at(0.0)));
        // Segment 1 is lost. The ACK of 2 (sent 20 ms) does not yet show it:
        // 10 + 10 is not before 20.
        s.on_ack(at(60.0), &ack(1, 2, at(20.0)));
        assert_eq!(s.counters.fast_retransmits, 0, "within the reorder window");
        // The ACK of 3 (sent 30 ms) does.
        s.on_ack(at(70.0), &ack(1, 3, at(30.0)));
        assert_eq!(s.counters.fast_retransmits, 1);
        let next = s.next_segment(at(70.0)).unwrap();
        assert_eq!((next.seq, next.retransmission), (1, true));
        // New data continues after the retransmission.
        assert_eq!(s.next_segment(at(70.0)).unwrap().seq, 6);
        // A later ACK does not resend 1 again while its new copy is young.
        s.on_ack(at(90.0), &ack(1, 4, at(40.0)));
        assert_eq!(s.counters.retransmissions, 1);
    }

    #[test]
    fn timeout_resends_the_oldest_and_backs_off() {
        let mut s = SemiTcpSender::new(&TcpConfig::default(), Some(3));
        for _ in 0..3 {
            s.next_segment(at(0.0));
        }
        assert!(s.next_segment(at(0.0)).is_none(), "a 3-segment file");
        assert_eq!(s.rto_deadline(), Some(at(1000.0)));
        s.on_ack(at(50.0), &ack(0, 2, at(0.0))); // 2 arrived, 0 and 1 did not
        s.on_rto(at(1050.0));
        let again = s.next_segment(at(1050.0)).unwrap();
        assert_eq!((again.seq, again.retransmission), (0, true));
        // The selective ACK of 2 sampled 50 ms: RTO = max(200, 50 + 4 * 25)
        // = 200 ms, doubled by the timeout.
        assert_eq!(s.rto_deadline(), Some(at(1050.0 + 400.0)), "RTO doubled");
        s.on_ack(at(1100.0), &ack(3, 1, at(1050.0)));
        assert_eq!(s.completed_at, Some(at(1100.0)));
    }

    #[test]
    fn rto_only_ignores_later_acks_and_does_not_back_off_as_ns2() {
        // ns-2's SemiTcpAgent (semitcp.cc:216-346): the same losses as the
        // first test, but only the timer resends, re-armed by each new
        // cumulative ACK and never backed off.
        let mut s = SemiTcpSender::new(&TcpConfig::default(), None).with_recovery(LossRecovery::RtoOnly, false);
        for i in 0..6 {
            s.next_segment(at(10.0 * i as f64));
        }
        s.on_ack(at(40.0), &ack(1, 0, at(0.0)));
        assert_eq!(s.rto_deadline(), Some(at(40.0 + 200.0)), "new cumulative ACK: re-armed, RTO 200 ms (min)");
        // Segment 1 lost; 2..5 acknowledged on their own: no fast retransmit,
        // and the timer is not re-armed (no new cumulative ACK).
        for seq in 2..6 {
            s.on_ack(at(40.0 + 10.0 * seq as f64), &ack(1, seq, at(10.0 * seq as f64)));
        }
        assert_eq!(s.counters.fast_retransmits, 0);
        assert_eq!(s.next_segment(at(100.0)).map(|h| (h.seq, h.retransmission)), Some((6, false)), "new data, no resend");
        assert_eq!(s.rto_deadline(), Some(at(240.0)));
        // The timer: resend 1 (the oldest not acknowledged), same RTO again.
        s.on_rto(at(240.0));
        let again = s.next_segment(at(240.0)).unwrap();
        assert_eq!((again.seq, again.retransmission), (1, true));
        let rto = s.rtt.rto();
        assert_eq!(s.rto_deadline(), Some(at(240.0) + rto), "no backoff");
        // Its copy is lost too: the next expiry resends it after the same RTO.
        s.on_rto(at(240.0) + rto);
        assert_eq!(s.rto_deadline(), Some(at(240.0) + rto + rto));
        assert_eq!(s.next_segment(at(500.0)).map(|h| (h.seq, h.retransmission)), Some((1, true)));
        // Today's default backs off: 2 x, then 4 x.
        let mut b = SemiTcpSender::new(&TcpConfig::default(), None);
        b.next_segment(at(0.0));
        b.on_rto(at(1000.0));
        assert_eq!(b.rto_deadline(), Some(at(3000.0)), "initial RTO 1 s doubled");
    }
}
