//! The semi-TCP sender: reliability without congestion control (SPEC.md
//! section 2). There is no window: the source hands a segment down whenever
//! its MAC's reserved buffer has room (and, with rate control, its sending
//! timer allows). End-to-end ACKs carry the cumulative ACK and the segment
//! that triggered them (so an out-of-order segment is acknowledged on its
//! own) and echo that copy's send time; lost segments are resent, and no
//! loss changes the sending rate.
//!
//! Loss detection (**Decision**: SPEC.md says "retransmission timer,
//! duplicate ACKs"; the duplicate-ACK rule is generalised to time-based
//! detection, RACK, RFC 8985): a segment still unacknowledged when a copy
//! sent after it (plus a reorder window of SRTT / 4) is acknowledged is
//! lost and resent at once; one fast-retransmit per recovery would leave a
//! windowless sender, which keeps sending new data behind the hole, waiting
//! for the backed-off timer after every lost retransmission. The RFC 6298
//! timer remains the backstop: on expiry the oldest segment is resent.

use crate::time::SimTime;
use crate::transport::tcp::config::TcpConfig;
use crate::transport::tcp::rtt::RttEstimator;
use crate::transport::tcp::sender::SenderCounters;
use crate::wire::tcp::{SegmentKind, TcpHeader};
use std::collections::{BTreeMap, VecDeque};

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
}

impl SemiTcpSender {
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
        }
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
        // RACK: the copy that triggered this ACK left at `ack.echo`; what
        // was sent before it (beyond the reorder window) and is still
        // unacknowledged was lost.
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
        if self.outstanding.is_empty() {
            self.rto_deadline = None;
        }
        if self.total_segments.is_some_and(|t| self.cumulative_ack >= t) && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
    }

    /// The timer expired: resend the oldest unacknowledged segment, back off.
    pub fn on_rto(&mut self, now: SimTime) {
        self.rto_deadline = None;
        let Some((&oldest, _)) = self.outstanding.iter().next() else { return };
        self.counters.timeouts += 1;
        self.rtt.back_off();
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
}
