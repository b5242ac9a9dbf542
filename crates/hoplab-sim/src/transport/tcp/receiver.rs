//! The TCP receiver (sink): cumulative ACKs, an out-of-order set, delayed
//! ACKs (RFC 5681 4.2), and a hook for receiver-aided schemes.
//!
//! RFC 5681 4.2: an out-of-order segment is acknowledged at once (a
//! duplicate ACK); a segment that fills all or part of a gap is acknowledged
//! at once; in-order segments may be acknowledged every
//! `delayed_ack_segments` or when the delayed-ACK timer fires.
//!
//! SACK (RFC 2018, optional): every ACK lists up to three blocks of
//! segments held above the cumulative ACK; the first is the block holding
//! the segment that triggered the ACK, the others the blocks that changed
//! most recently (section 4: "the most recently received").

use super::congestion::LossHint;
use crate::time::{SimDuration, SimTime};
use crate::wire::tcp::{SackBlocks, SegmentKind, TcpHeader, MAX_SACK_BLOCKS};
use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;

/// A receiver-side scheme (TCP-RA, docs/tcp-ra.md): sees every new data
/// segment with its one-way delay and may classify the loss the receiver
/// just detected; the classification rides back in the ACKs.
pub trait ReceiverAid: Send {
    fn name(&self) -> &'static str;
    /// A data segment arrived for the first time. `revealed_loss` is true
    /// when it reveals missing segments: it lies beyond the highest segment
    /// received so far, with a hole before it.
    fn on_segment(&mut self, now: SimTime, header: &TcpHeader, one_way_delay: SimDuration, revealed_loss: bool) -> Option<LossHint>;
    /// The congestion grade behind the latest verdict (0 slight, 1 middle,
    /// 2 heavy), for schemes that grade (TCP-RA's Table 1).
    fn latest_grade(&self) -> Option<u8> {
        None
    }
}

/// A receiver-aided verdict on a hole: the segments `missing` were found
/// missing when a later one arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub hint: LossHint,
    pub missing: Range<u64>,
    /// The grade the aid judged at ([`ReceiverAid::latest_grade`]).
    pub grade: Option<u8>,
}

/// What one arriving data segment produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Received {
    /// An ACK to send now.
    pub ack: Option<TcpHeader>,
    /// Segments that became deliverable in order (0 for a duplicate or an
    /// out-of-order segment).
    pub delivered_in_order: u64,
    /// The segment had been received before.
    pub duplicate: bool,
    /// The receiver aid's verdict on the segments this one revealed
    /// missing, if it gave one.
    pub verdict: Option<Verdict>,
}

pub struct Receiver {
    rcv_nxt: u64,
    /// Segments held above `rcv_nxt`, each with its arrival number (SACK
    /// reports the most recent blocks first).
    out_of_order: BTreeMap<u64, u64>,
    arrivals: u64,
    sack: bool,
    delayed_ack: bool,
    delayed_ack_segments: u32,
    delayed_ack_timeout: SimDuration,
    /// In-order segments not yet acknowledged.
    unacknowledged: u32,
    delack_deadline: Option<SimTime>,
    /// `sent_at` of the segment to echo in the next ACK.
    echo: SimTime,
    /// The segment that triggered the next ACK (carried in its `seq`, a
    /// one-block selective acknowledgement semi-TCP uses).
    last_seq: u64,
    /// One past the highest segment received: an arrival beyond it reveals
    /// a hole.
    rcv_high: u64,
    aid: Option<Box<dyn ReceiverAid>>,
    /// The aid's verdicts on holes not yet filled, oldest first: every ACK
    /// repeats the verdict of the hole at `rcv_nxt`.
    verdicts: VecDeque<Verdict>,
}

impl Receiver {
    /// Runs of out-of-order segments held (what the receiver remembers).
    pub fn out_of_order_runs(&self) -> usize {
        self.out_of_order.len()
    }

    pub fn new(delayed_ack: bool, delayed_ack_segments: u32, delayed_ack_timeout: SimDuration) -> Receiver {
        Receiver {
            rcv_nxt: 0,
            out_of_order: BTreeMap::new(),
            arrivals: 0,
            sack: false,
            delayed_ack,
            delayed_ack_segments: delayed_ack_segments.max(1),
            delayed_ack_timeout,
            unacknowledged: 0,
            delack_deadline: None,
            echo: SimTime::ZERO,
            last_seq: 0,
            rcv_high: 0,
            aid: None,
            verdicts: VecDeque::new(),
        }
    }

    pub fn with_aid(mut self, aid: Box<dyn ReceiverAid>) -> Receiver {
        self.aid = Some(aid);
        self
    }

    /// Send SACK blocks in every ACK (RFC 2018).
    pub fn with_sack(mut self, sack: bool) -> Receiver {
        self.sack = sack;
        self
    }

    /// Whether a receiver-aided scheme judges this receiver's losses.
    pub fn has_aid(&self) -> bool {
        self.aid.is_some()
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    /// Answer a SYN.
    pub fn on_syn(&mut self, now: SimTime, syn: &TcpHeader) -> TcpHeader {
        TcpHeader {
            kind: SegmentKind::SynAck,
            seq: 0,
            ack: 0,
            sent_at: now,
            echo: syn.sent_at,
            retransmission: false,
            loss_hint: None,
            sack: Default::default(),
        }
    }

    pub fn on_data(&mut self, now: SimTime, header: &TcpHeader) -> Received {
        let seq = header.seq;
        let duplicate = seq < self.rcv_nxt || self.out_of_order.contains_key(&seq);
        let gap = seq > self.rcv_nxt && !duplicate;
        let mut verdict = None;
        if !duplicate {
            let missing = self.rcv_high.max(self.rcv_nxt)..seq;
            if let Some(aid) = &mut self.aid {
                let revealed = !missing.is_empty();
                if let Some(hint) = aid.on_segment(now, header, now.since(header.sent_at), revealed) {
                    if revealed {
                        verdict = Some(Verdict { hint, missing, grade: aid.latest_grade() });
                        self.verdicts.extend(verdict.clone());
                    }
                }
            }
            self.rcv_high = self.rcv_high.max(seq + 1);
        }
        self.echo = header.sent_at;
        self.last_seq = seq;
        if duplicate {
            return Received { ack: Some(self.ack_now(now)), delivered_in_order: 0, duplicate: true, verdict };
        }
        if gap {
            self.arrivals += 1;
            self.out_of_order.insert(seq, self.arrivals);
            return Received { ack: Some(self.ack_now(now)), delivered_in_order: 0, duplicate: false, verdict };
        }
        // In order: advance over any buffered segments.
        let filled_gap = !self.out_of_order.is_empty();
        self.rcv_nxt += 1;
        let mut delivered = 1;
        while self.out_of_order.remove(&self.rcv_nxt).is_some() {
            self.rcv_nxt += 1;
            delivered += 1;
        }
        self.unacknowledged += 1;
        let ack_now = !self.delayed_ack || filled_gap || self.unacknowledged >= self.delayed_ack_segments;
        let ack = if ack_now {
            Some(self.ack_now(now))
        } else {
            if self.delack_deadline.is_none() {
                self.delack_deadline = Some(now + self.delayed_ack_timeout);
            }
            None
        };
        Received { ack, delivered_in_order: delivered, duplicate: false, verdict }
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, now: SimTime) -> Option<TcpHeader> {
        self.delack_deadline = None;
        (self.unacknowledged > 0).then(|| self.ack_now(now))
    }

    fn ack_now(&mut self, now: SimTime) -> TcpHeader {
        self.unacknowledged = 0;
        self.delack_deadline = None;
        TcpHeader {
            kind: SegmentKind::Ack,
            seq: self.last_seq,
            ack: self.rcv_nxt,
            sent_at: now,
            echo: self.echo,
            retransmission: false,
            loss_hint: self.open_verdict(),
            sack: if self.sack { self.sack_blocks() } else { SackBlocks::default() },
        }
    }

    /// The verdict of the hole the cumulative ACK stops at, if the aid gave
    /// one; verdicts of filled holes are forgotten.
    fn open_verdict(&mut self) -> Option<LossHint> {
        while self.verdicts.front().is_some_and(|v| v.missing.end <= self.rcv_nxt) {
            self.verdicts.pop_front();
        }
        self.verdicts.front().filter(|v| v.missing.contains(&self.rcv_nxt)).map(|v| v.hint)
    }

    /// The held blocks, the one with the newest arrival first (RFC 2018
    /// section 4; the first holds the triggering segment when it was held).
    fn sack_blocks(&self) -> SackBlocks {
        // (newest arrival in the block, start, end)
        let mut runs: Vec<(u64, u64, u64)> = Vec::new();
        for (&seq, &arrival) in &self.out_of_order {
            match runs.last_mut() {
                Some(run) if run.2 == seq => {
                    run.2 = seq + 1;
                    run.0 = run.0.max(arrival);
                }
                _ => runs.push((arrival, seq, seq + 1)),
            }
        }
        runs.sort_unstable_by(|a, b| b.0.cmp(&a.0));
        let mut blocks = SackBlocks::default();
        for &(_, start, end) in runs.iter().take(MAX_SACK_BLOCKS) {
            blocks.push(start, end);
        }
        blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64) -> TcpHeader {
        TcpHeader {
            kind: SegmentKind::Data,
            seq,
            ack: 0,
            sent_at: SimTime::ZERO,
            echo: SimTime::ZERO,
            retransmission: false,
            loss_hint: None,
            sack: Default::default(),
        }
    }

    fn ms(v: f64) -> SimTime {
        SimTime::from_secs_f64(v / 1e3)
    }

    fn blocks(header: &TcpHeader) -> Vec<(u64, u64)> {
        header.sack.iter().collect()
    }

    #[test]
    fn sack_blocks_list_the_newest_block_first_and_at_most_three() {
        let mut r = Receiver::new(false, 2, SimDuration::ZERO).with_sack(true);
        r.on_data(ms(1.0), &data(0));
        assert!(r.on_data(ms(2.0), &data(1)).ack.unwrap().sack.is_empty(), "nothing held: no option");
        assert_eq!(blocks(&r.on_data(ms(3.0), &data(3)).ack.unwrap()), [(3, 4)]);
        assert_eq!(blocks(&r.on_data(ms(4.0), &data(4)).ack.unwrap()), [(3, 5)]);
        assert_eq!(blocks(&r.on_data(ms(5.0), &data(7)).ack.unwrap()), [(7, 8), (3, 5)]);
        assert_eq!(blocks(&r.on_data(ms(6.0), &data(10)).ack.unwrap()), [(10, 11), (7, 8), (3, 5)]);
        let ack = r.on_data(ms(7.0), &data(12)).ack.unwrap();
        assert_eq!(blocks(&ack), [(12, 13), (10, 11), (7, 8)], "three blocks, the oldest left out");
        assert_eq!(ack.sack.option_bytes(), 28, "RFC 2018: 8n + 2, padded to 4");
        // A segment extending an old block makes that block the newest.
        assert_eq!(blocks(&r.on_data(ms(8.0), &data(5)).ack.unwrap()), [(3, 6), (12, 13), (10, 11)]);
        // Filling the first hole: the cumulative ACK moves past the block.
        let ack = r.on_data(ms(9.0), &data(2)).ack.unwrap();
        assert_eq!(ack.ack, 6);
        assert_eq!(blocks(&ack), [(12, 13), (10, 11), (7, 8)]);
        let plain = Receiver::new(false, 2, SimDuration::ZERO).on_data(ms(1.0), &data(3)).ack.unwrap();
        assert!(plain.sack.is_empty(), "SACK is off unless asked for");
    }

    #[test]
    fn every_segment_is_acknowledged_without_delayed_acks() {
        let mut r = Receiver::new(false, 2, SimDuration::from_secs_f64(0.1));
        assert_eq!(r.on_data(ms(1.0), &data(0)).ack.unwrap().ack, 1);
        assert_eq!(r.on_data(ms(2.0), &data(1)).ack.unwrap().ack, 2);
    }

    #[test]
    fn out_of_order_gives_duplicate_acks_and_the_fill_acks_all() {
        let mut r = Receiver::new(true, 2, SimDuration::from_secs_f64(0.1));
        r.on_data(ms(1.0), &data(0));
        let a = r.on_data(ms(2.0), &data(2));
        assert_eq!((a.ack.unwrap().ack, a.delivered_in_order), (1, 0));
        let a = r.on_data(ms(3.0), &data(3));
        assert_eq!(a.ack.unwrap().ack, 1, "duplicate ACK at once");
        let a = r.on_data(ms(4.0), &data(1));
        assert_eq!((a.ack.unwrap().ack, a.delivered_in_order), (4, 3), "gap filled: immediate cumulative ACK");
        let a = r.on_data(ms(5.0), &data(2));
        assert!(a.duplicate);
        assert_eq!(a.ack.unwrap().ack, 4);
    }

    #[test]
    fn delayed_acks_every_second_segment_or_on_the_timer() {
        let mut r = Receiver::new(true, 2, SimDuration::from_secs_f64(0.1));
        assert_eq!(r.on_data(ms(1.0), &data(0)).ack, None);
        assert_eq!(r.delack_deadline(), Some(ms(101.0)));
        assert_eq!(r.on_data(ms(2.0), &data(1)).ack.unwrap().ack, 2);
        assert_eq!(r.delack_deadline(), None);
        assert_eq!(r.on_data(ms(3.0), &data(2)).ack, None);
        assert_eq!(r.on_delack_timer(ms(103.0)).unwrap().ack, 3);
        assert_eq!(r.on_delack_timer(ms(203.0)), None);
    }

    #[test]
    fn a_receiver_aid_classification_rides_in_the_next_ack() {
        struct EveryGapIsWireless;
        impl ReceiverAid for EveryGapIsWireless {
            fn name(&self) -> &'static str {
                "test"
            }
            fn on_segment(&mut self, _: SimTime, _: &TcpHeader, _: SimDuration, revealed_loss: bool) -> Option<LossHint> {
                revealed_loss.then_some(LossHint::Wireless)
            }
        }
        let mut r = Receiver::new(false, 2, SimDuration::ZERO).with_aid(Box::new(EveryGapIsWireless));
        assert_eq!(r.on_data(ms(1.0), &data(0)).ack.unwrap().loss_hint, None);
        let revealing = r.on_data(ms(2.0), &data(3));
        assert_eq!(revealing.ack.unwrap().loss_hint, Some(LossHint::Wireless));
        assert_eq!(
            revealing.verdict,
            Some(Verdict { hint: LossHint::Wireless, missing: 1..3, grade: None }),
            "segments 1 and 2 are missing"
        );
        // Later arrivals beyond the hole reveal nothing new, but their
        // duplicate ACKs repeat the verdict (the third triggers the sender).
        let next = r.on_data(ms(3.0), &data(4));
        assert_eq!((next.verdict, next.ack.unwrap().loss_hint), (None, Some(LossHint::Wireless)));
        // A new hole beyond: its own verdict, segment 5 only.
        assert_eq!(r.on_data(ms(4.0), &data(6)).verdict.unwrap().missing, 5..6);
        // The retransmission of 1 moves the cumulative ACK to 2, still in
        // the first hole; filling it moves to the second hole (5).
        assert_eq!(r.on_data(ms(5.0), &data(1)).ack.unwrap().loss_hint, Some(LossHint::Wireless));
        let ack = r.on_data(ms(6.0), &data(2)).ack.unwrap();
        assert_eq!((ack.ack, ack.loss_hint), (5, Some(LossHint::Wireless)));
        let ack = r.on_data(ms(7.0), &data(5)).ack.unwrap();
        assert_eq!((ack.ack, ack.loss_hint), (7, None), "every hole filled: no verdict");
    }
}
