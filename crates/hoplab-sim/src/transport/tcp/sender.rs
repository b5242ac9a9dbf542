//! The TCP sender: a sans-IO state machine (smoltcp style). It is told of
//! ACKs and timer expiries and asked what to send; it never touches the
//! network, so it is tested with scripted ACKs.
//!
//! - Windows and sequence numbers count segments (ns-2 one-way TCP).
//! - RFC 5681: slow start / congestion avoidance (delegated to the
//!   controller), fast retransmit on `dupack_threshold` duplicate ACKs.
//! - RFC 6582 NewReno: `recover`, window inflation by one per further
//!   duplicate ACK, partial ACKs retransmit the next hole and deflate the
//!   window (`cwnd - acked + 1`), the first partial ACK restarts the timer,
//!   a full ACK sets cwnd = min(ssthresh, max(FlightSize, 1) + 1); no new recovery
//!   unless the cumulative ACK passes `recover` (section 4.1).
//! - RFC 6298 retransmission timer: started on sending when not running,
//!   restarted by an ACK of new data, stopped when all is acknowledged;
//!   on expiry: back off, ssthresh from the controller, cwnd = 1, resend
//!   from the first unacknowledged segment (go-back-N, as ns-2), and set
//!   `recover` to the highest segment sent (RFC 6582 section 4).
//! - Karn (RFC 6298 section 3): RTT samples only from segments never
//!   retransmitted, and, as BSD's timer does by cancelling its timing on any
//!   retransmission, only from segments sent after the last retransmission:
//!   the ACK that fills a hole also covers segments sent before the
//!   recovery, whose "RTT" would include it (samples of seconds).
//! - RFC 3042 limited transmit (optional): one new segment on each of the
//!   first two duplicate ACKs.
//! - SACK (optional, `sack`): RFC 2018 scoreboard and RFC 6675 loss
//!   recovery. Recovery starts on the third duplicate ACK or when IsLost
//!   (three segments SACKed above) holds for the first unacknowledged
//!   segment; cwnd = ssthresh (no inflation), and while cwnd - pipe >= 1
//!   NextSeg sends: a lost segment not yet resent in this recovery (rule
//!   1), new data (rule 2), else the lowest unSACKed segment with SACKed
//!   data above (rule 3); no rescue retransmission (rule 4). Partial ACKs
//!   neither deflate nor force a retransmission. Recovery ends when the
//!   cumulative ACK passes RecoveryPoint (cwnd = ssthresh). A timeout
//!   clears the SACKed marks (RFC 2018 section 8, as ns-2's Sack1) and goes
//!   back N; segments SACKed again since are not resent.
//! - Linux's (and ns-2.35 TCP-Linux's) variants, each its own key, all on
//!   in `preset = "ns2"` with SACK: `tcp.sack_lost_retransmit` (a
//!   retransmission lost again is found by SACK and resent, and resending
//!   the first unacknowledged segment restarts the timer),
//!   `tcp.sack_kept_after_rto` (a timeout keeps the SACKed marks) and
//!   `tcp.rto_restart_on_every_ack` (ns-2.35 TCP-Linux: every ACK restarts
//!   the timer), `tcp.fack_loss_marking` (FACK: a segment is lost once one
//!   4 above it is SACKed, and only such a loss starts recovery) and
//!   `tcp.sack_pipe_outside_recovery` (the window bounds the scoreboard's
//!   flight in every state).
//! - ns-3's ssthresh (`tcp.ssthresh_from = "pipe"`, set by the ns-3
//!   checks): a loss halves RFC 6675's pipe (ns-3's `BytesInFlight`), not
//!   FlightSize, and a further timeout in the loss state, once go-back-N
//!   resent the head, keeps ssthresh. After a recovery that sent new data
//!   past many holes, FlightSize is several times the pipe: halving it
//!   restarts slow start toward a window RED then cuts again (docs/fidelity.md).
//! - cwnd grows only while it limits the sending (RFC 7661; Linux
//!   `tcp_is_cwnd_limited`): not when the receiver's window or the
//!   application holds the sender back, except in slow start while cwnd is
//!   below twice the flight. Without this, cwnd grows without bound behind a
//!   20-segment receiver window and cwnd-based loss rules misfire.

use super::config::{RttTiming, SsthreshFrom, TcpConfig};
use super::congestion::{CongState, CongestionControl, CwndEvent, LossKind, TcpState};
use super::rtt::RttEstimator;
use crate::time::SimTime;
use crate::wire::tcp::{SegmentKind, TcpHeader};
use std::collections::VecDeque;

/// RFC 6675 DupThresh.
const DUP_THRESH: u32 = 3;

/// What the sender wants on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outgoing {
    pub header: TcpHeader,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SenderCounters {
    /// Data segments put on the wire, retransmissions included.
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
}

#[derive(Debug, Clone, Copy)]
struct SentRecord {
    sent_at: SimTime,
    retransmitted: bool,
    /// Reported received by a SACK block.
    sacked: bool,
    /// Retransmitted during the current SACK recovery (RFC 6675's pipe
    /// counts it twice; NextSeg does not resend it).
    resent_in_recovery: bool,
    /// With `tcp.sack_lost_retransmit`: one past the highest segment sent
    /// when this segment was last retransmitted (Linux's `ack_seq` of a
    /// retransmitted skb, ns-2.35 ScoreBoardNode1's `nxt_`).
    resent_high_tx: u64,
    /// With `tcp.sack_lost_retransmit`: its retransmission was lost (a
    /// segment sent after it was SACKed); lost, and NextSeg resends it.
    lost_again: bool,
}

/// What RFC 6675's pipe and NextSeg need from the scoreboard.
struct ScoreboardScan {
    pipe: u32,
    /// Rule 1: the lowest lost segment not yet resent in this recovery.
    lost: Option<u64>,
    /// Rule 3: the lowest segment not yet resent with SACKed data above.
    sacked_above: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Handshake: SYN not yet sent.
    SynToSend,
    /// Handshake: SYN sent, waiting for the SYN-ACK.
    SynSent,
    Established,
}

pub struct Sender {
    pub state: TcpState,
    cc: Box<dyn CongestionControl>,
    rtt: RttEstimator,
    config: TcpConfig,
    phase: Phase,
    /// First unacknowledged segment.
    snd_una: u64,
    /// Next segment to send (rewinds to snd_una on a timeout).
    snd_nxt: u64,
    /// One past the highest segment ever sent.
    high_tx: u64,
    /// RFC 6582 `recover`: highest segment sent when recovery (or the last
    /// timeout) began.
    recover: Option<u64>,
    dupacks: u32,
    first_partial_ack: bool,
    /// A hole to retransmit before anything else.
    retransmit_next: Option<u64>,
    /// Segments the application has to send (None: unlimited).
    total_segments: Option<u64>,
    /// One record per segment in [snd_una, high_tx).
    records: VecDeque<SentRecord>,
    /// When the sender last retransmitted (RTT timing restarts after it).
    last_retransmission_at: Option<SimTime>,
    rto_deadline: Option<SimTime>,
    /// The last time sending stopped, cwnd (not rwnd or lack of data) was
    /// the limit.
    cwnd_limited: bool,
    /// `tcp.sack_rate_halving`: the controller's `min_cwnd` (ns-2.35
    /// TCP-Linux's `snd_cwnd` in recovery) and the rate-halving bound
    /// (`next_pkts_in_flight_`); cwnd is the larger while in recovery.
    rh_floor: f64,
    rh_next: f64,
    /// `tcp.rtt_timing = "ns2"`: the timed segment and when it left
    /// (ns-2's `rtt_seq_`, `rtt_ts_` while `rtt_active_`).
    timed_segment: Option<(u64, SimTime)>,
    pub counters: SenderCounters,
    /// Time the last segment was acknowledged, if all were.
    pub completed_at: Option<SimTime>,
}

impl Sender {
    /// Segments in flight the sender keeps a record of.
    pub fn records_kept(&self) -> usize {
        self.records.len()
    }

    pub fn new(cc: Box<dyn CongestionControl>, config: TcpConfig, mss_bytes: u32, total_segments: Option<u64>) -> Sender {
        let rtt = RttEstimator::new(config.initial_rto_ms, config.min_rto_ms, config.max_rto_ms, config.clock_granularity_ms);
        let mut state = TcpState::new(config.initial_cwnd_segments, config.rwnd_segments as f64, mss_bytes, rtt.rto());
        state.slow_start_at_ssthresh = config.slow_start_at_ssthresh;
        // `tcp.first_segment_header_only`: the data follow the header-only
        // segment 0 (ns-2's `curseq_ += 1`, tcp/tcp.cc:712-714).
        let total_segments = total_segments.map(|t| t + u64::from(config.first_segment_header_only));
        Sender {
            state,
            cc,
            rtt,
            phase: if config.handshake { Phase::SynToSend } else { Phase::Established },
            config,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            recover: None,
            dupacks: 0,
            first_partial_ack: false,
            retransmit_next: None,
            total_segments,
            records: VecDeque::new(),
            last_retransmission_at: None,
            rto_deadline: None,
            cwnd_limited: true,
            rh_floor: 0.0,
            rh_next: 0.0,
            timed_segment: None,
            counters: SenderCounters::default(),
            completed_at: None,
        }
    }

    /// Whether segment `seq` carries no payload, only its headers
    /// (`tcp.first_segment_header_only`: ns-2's SYN, segment 0).
    pub fn is_header_only(&self, seq: u64) -> bool {
        self.config.first_segment_header_only && seq == 0
    }

    /// Initialise the controller (before the first segment).
    pub fn start(&mut self, now: SimTime) {
        self.state.now = now;
        self.cc.init(&mut self.state);
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    pub fn cc_metrics(&self) -> Vec<(&'static str, f64)> {
        self.cc.metrics()
    }

    /// When the retransmission timer expires, if it runs.
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    pub fn is_complete(&self) -> bool {
        self.total_segments.is_some_and(|t| self.snd_una >= t)
    }

    fn flight(&self) -> u32 {
        (self.snd_nxt.saturating_sub(self.snd_una)) as u32
    }

    fn sync_state(&mut self, now: SimTime) {
        self.state.now = now;
        self.state.segments_in_flight = self.flight();
        self.state.srtt = self.rtt.srtt();
        self.state.rto = self.rtt.rto();
    }

    /// The state a loss's ssthresh is computed from: with
    /// `tcp.ssthresh_from = "cwnd"` its flight is ns-2's `window()`,
    /// min(cwnd_, wnd_) in whole segments, NewReno's cwnd_ being ssthresh
    /// in recovery (tcp/tcp.cc:903-918, 1265; tcp/tcp-newreno.cc:148-152).
    fn loss_state(&self) -> std::borrow::Cow<'_, TcpState> {
        let segments_in_flight = match self.config.ssthresh_from {
            SsthreshFrom::FlightSize => None,
            // ns-3's BytesInFlight (tcp-tx-buffer.cc:1054-1073).
            SsthreshFrom::Pipe if self.config.sack => Some(self.scan_scoreboard().pipe),
            SsthreshFrom::Pipe => None,
            SsthreshFrom::Cwnd => {
                let inflated = !self.config.sack && self.state.cong_state == CongState::Recovery;
                let cwnd = if inflated { self.state.ssthresh } else { self.state.cwnd };
                Some(cwnd.min(self.state.rwnd).floor().max(0.0) as u32)
            }
        };
        let whole = self.config.whole_segment_ssthresh;
        if segments_in_flight.is_none() && !whole {
            return std::borrow::Cow::Borrowed(&self.state);
        }
        let mut state = self.state.clone();
        if let Some(segments) = segments_in_flight {
            state.segments_in_flight = segments;
        }
        if whole {
            // Linux's snd_cwnd is a whole number of segments.
            state.cwnd = state.cwnd.floor();
        }
        std::borrow::Cow::Owned(state)
    }

    /// `tcp.whole_segment_ssthresh`: Linux's u32 snd_ssthresh and
    /// `min_cwnd` (ns-2.35 tcp/linux/ns-linux-util.h:271-272) truncate.
    fn whole_segments(&self, segments: f64) -> f64 {
        if self.config.whole_segment_ssthresh {
            segments.floor()
        } else {
            segments
        }
    }

    fn set_cong_state(&mut self, new_state: CongState) {
        if self.state.cong_state != new_state {
            self.state.cong_state = new_state;
            self.cc.state_set(&self.state, new_state);
        }
    }

    fn arm_rto_if_idle(&mut self, now: SimTime) {
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    /// The next segment to put on the wire now, if the windows allow one.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Outgoing> {
        match self.phase {
            Phase::SynToSend => {
                self.phase = Phase::SynSent;
                self.arm_rto_if_idle(now);
                return Some(self.header(SegmentKind::Syn, 0, now, false));
            }
            Phase::SynSent => return None,
            Phase::Established => {}
        }
        if let Some(seq) = self.retransmit_next.take() {
            if seq >= self.snd_una && seq < self.high_tx {
                let out = self.send_data(seq, now);
                if self.rate_halving() && self.sack_recovery() {
                    let pipe = self.scan_scoreboard().pipe;
                    self.rate_halve((pipe.max(2) - 1) as f64);
                }
                return Some(out);
            }
        }
        if self.sack_recovery() {
            return self.poll_sack_recovery(now);
        }
        // After a timeout, segments SACKed since are not sent again.
        while self.snd_nxt < self.high_tx && self.records[(self.snd_nxt - self.snd_una) as usize].sacked {
            self.snd_nxt += 1;
        }
        let mut window = self.state.cwnd.min(self.state.rwnd).floor().max(1.0) as u64;
        if self.config.limited_transmit && self.state.cong_state == CongState::Disorder {
            // RFC 3042: one extra segment per duplicate ACK (at most two),
            // within the receiver's window.
            window = (window + self.dupacks.min(2) as u64).min(self.state.rwnd as u64);
        }
        let within_window = if self.pipe_outside_recovery() {
            // ns-2.35 tcp/tcp-linux.cc:624: the scoreboard's flight.
            (self.scan_scoreboard().pipe as u64) < window
        } else {
            self.snd_nxt < self.snd_una + window
        };
        let has_data = self.total_segments.is_none_or(|t| self.snd_nxt < t);
        if within_window && has_data {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            return Some(self.send_data(seq, now));
        }
        self.cwnd_limited = has_data && self.state.cwnd.floor() <= self.state.rwnd;
        None
    }

    fn sack_recovery(&self) -> bool {
        self.config.sack && self.state.cong_state == CongState::Recovery
    }

    /// `tcp.sack_pipe_outside_recovery` with SACK, in Open or Disorder
    /// (where snd_nxt is the highest segment sent).
    fn pipe_outside_recovery(&self) -> bool {
        self.config.sack
            && self.config.sack_pipe_outside_recovery
            && matches!(self.state.cong_state, CongState::Open | CongState::Disorder)
            && self.snd_nxt == self.high_tx
    }

    /// `tcp.fack_loss_marking` with SACK.
    fn fack(&self) -> bool {
        self.config.sack && self.config.fack_loss_marking
    }

    fn rate_halving(&self) -> bool {
        self.config.sack && self.config.sack_rate_halving
    }

    /// `tcp.sack_rate_halving`: lower the bound toward the flight (ns-2.35
    /// tcp/tcp-linux.cc:629 `min(next, pif + 1)` when an ACK arrives, 653
    /// `min(next, max(pif - 1, 1))` after each segment sent).
    fn rate_halve(&mut self, bound: f64) {
        self.rh_next = self.rh_next.min(bound);
        self.state.cwnd = self.rh_floor.max(self.rh_next);
    }

    /// RFC 6675 section 5 step (C): send while cwnd - pipe >= 1.
    fn poll_sack_recovery(&mut self, now: SimTime) -> Option<Outgoing> {
        let scan = self.scan_scoreboard();
        if self.state.cwnd - (scan.pipe as f64) < 1.0 {
            self.cwnd_limited = true;
            return None;
        }
        let has_data = self.total_segments.is_none_or(|t| self.high_tx < t);
        let rwnd = self.state.rwnd.floor().max(1.0) as u64;
        let seq = if let Some(seq) = scan.lost {
            seq // rule 1
        } else if has_data && self.high_tx < self.snd_una + rwnd {
            self.snd_nxt = self.high_tx + 1;
            self.high_tx // rule 2 (snd_nxt == high_tx in recovery)
        } else {
            scan.sacked_above? // rule 3
        };
        let out = self.send_data(seq, now);
        if self.rate_halving() {
            let pipe = scan.pipe + 1;
            self.rate_halve((pipe.max(2) - 1) as f64);
        }
        Some(out)
    }

    /// One pass over the scoreboard, from the highest segment down (RFC
    /// 6675 sections 3-4): pipe, and NextSeg's rule 1 and rule 3
    /// candidates (the lowest segment neither SACKed nor resent in this
    /// recovery that IsLost, resp. that has SACKed data above it).
    fn scan_scoreboard(&self) -> ScoreboardScan {
        let mut scan = ScoreboardScan { pipe: 0, lost: None, sacked_above: None };
        let mut sacked_above = 0u32;
        let fack_lost_below = self.fack_lost_below();
        for (i, r) in self.records.iter().enumerate().rev() {
            let seq = self.snd_una + i as u64;
            if r.sacked {
                sacked_above += 1;
                continue;
            }
            let lost = match fack_lost_below {
                Some(bound) => seq < bound,
                None => sacked_above >= DUP_THRESH, // IsLost
            } || r.lost_again;
            scan.pipe += (!lost) as u32 + r.resent_in_recovery as u32;
            if !r.resent_in_recovery {
                if lost {
                    scan.lost = Some(seq);
                }
                if sacked_above > 0 {
                    scan.sacked_above = Some(seq);
                }
            }
        }
        scan
    }

    #[cfg(test)]
    fn pipe(&self) -> u32 {
        self.scan_scoreboard().pipe
    }

    /// `tcp.fack_loss_marking`: segments below this one are lost when not
    /// SACKed: the highest SACKed segment less DupThresh + 1, exclusive
    /// (ns-2.35 tcp/scoreboard1.cc:168, 225 `GetStart() <=
    /// lost_seq_threshold`). None under RFC 6675's IsLost.
    fn fack_lost_below(&self) -> Option<u64> {
        if !self.config.fack_loss_marking {
            return None;
        }
        let fack_end = self.records.iter().rposition(|r| r.sacked).map_or(0, |i| self.snd_una + i as u64 + 1);
        Some(fack_end.saturating_sub(DUP_THRESH as u64 + 1))
    }

    fn is_lost(&self, seq: u64) -> bool {
        if let Some(bound) = self.fack_lost_below() {
            return seq < bound;
        }
        let from = (seq.saturating_sub(self.snd_una)) as usize + 1;
        self.records.iter().skip(from).filter(|r| r.sacked).count() as u32 >= DUP_THRESH
    }

    /// Mark the segments an ACK's SACK blocks report; whether any was not
    /// SACKed before (ns-2.35's `FLAG_DATA_SACKED`, tcp/scoreboard1.cc:204).
    fn apply_sack(&mut self, ack: &TcpHeader) -> bool {
        let mut newly_sacked = false;
        for (start, end) in ack.sack.iter() {
            for seq in start.max(self.snd_una)..end.min(self.high_tx) {
                let record = &mut self.records[(seq - self.snd_una) as usize];
                newly_sacked |= !record.sacked;
                record.sacked = true;
            }
        }
        if self.config.sack_lost_retransmit && self.sack_recovery() {
            self.mark_lost_retransmissions();
        }
        newly_sacked
    }

    /// `tcp.sack_lost_retransmit`: a segment resent in this recovery and
    /// still not SACKed is lost again once a segment first sent after the
    /// retransmission is SACKed: the highest SACKed segment (FACK) is at or
    /// above the `high_tx` of its retransmission. Linux 2.6's
    /// `tcp_sacktag_write_queue` (`lost_retrans`), ns-2.35's
    /// tcp/scoreboard1.cc:213-223 (`GetSndNxt() <= fack_`).
    fn mark_lost_retransmissions(&mut self) {
        let Some(fack) = self.records.iter().rposition(|r| r.sacked).map(|i| self.snd_una + i as u64) else {
            return;
        };
        for r in self.records.iter_mut() {
            if r.resent_in_recovery && !r.sacked && r.resent_high_tx <= fack {
                r.resent_in_recovery = false;
                r.lost_again = true;
            }
        }
    }

    fn send_data(&mut self, seq: u64, now: SimTime) -> Outgoing {
        let retransmission = seq < self.high_tx;
        let in_sack_recovery = self.sack_recovery();
        if retransmission {
            let high_tx = self.high_tx;
            let record = &mut self.records[(seq - self.snd_una) as usize];
            record.sent_at = now;
            record.retransmitted = true;
            record.resent_in_recovery |= in_sack_recovery;
            record.resent_high_tx = high_tx;
            record.lost_again = false;
            self.counters.retransmissions += 1;
            self.last_retransmission_at = Some(now);
            if in_sack_recovery && self.config.sack_lost_retransmit && seq == self.snd_una {
                // Linux 2.6 tcp_xmit_retransmit_queue: resending the head
                // of the queue restarts the timer.
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        } else {
            self.records.push_back(SentRecord {
                sent_at: now,
                retransmitted: false,
                sacked: false,
                resent_in_recovery: false,
                resent_high_tx: 0,
                lost_again: false,
            });
            self.high_tx = seq + 1;
            if self.config.rtt_timing == RttTiming::Ns2 && self.timed_segment.is_none() {
                self.timed_segment = Some((seq, now)); // tcp/tcp.cc:788-797
            }
        }
        self.counters.segments_sent += 1;
        self.arm_rto_if_idle(now);
        self.header(SegmentKind::Data, seq, now, retransmission)
    }

    fn header(&self, kind: SegmentKind, seq: u64, now: SimTime, retransmission: bool) -> Outgoing {
        Outgoing { header: TcpHeader::outgoing(kind, seq, now, retransmission) }
    }

    /// An ACK (or SYN-ACK) arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: &TcpHeader) {
        if ack.kind == SegmentKind::SynAck {
            if self.phase == Phase::SynSent {
                self.phase = Phase::Established;
                self.rto_deadline = None;
            }
            return;
        }
        if ack.kind != SegmentKind::Ack || self.phase != Phase::Established {
            return;
        }
        // The receiver repeats its verdict in every ACK while the hole is
        // open (receiver.rs), so the latest ACK's is the current one.
        self.state.loss_hint = ack.loss_hint;
        let mut newly_sacked = false;
        if self.config.sack && ack.ack >= self.snd_una && ack.ack <= self.high_tx {
            newly_sacked = self.apply_sack(ack);
        }
        if ack.ack > self.snd_una && ack.ack <= self.high_tx {
            let was_open = matches!(self.state.cong_state, CongState::Open | CongState::Disorder);
            self.on_new_ack(now, ack.ack);
            if self.fack() && was_open && newly_sacked && self.is_lost(self.snd_una) {
                // ns-2.35 tcp/tcp-linux.cc:411-415, 483: an ACK of new data
                // that SACKs data is dubious; a loss marked starts recovery.
                self.enter_fast_recovery();
            }
        } else if ack.ack == self.snd_una && self.high_tx > self.snd_una {
            self.on_duplicate_ack(now);
        } else {
            return; // Older ACKs (ack < snd_una) carry nothing new.
        }
        if self.rate_halving() && self.sack_recovery() {
            let pipe = self.scan_scoreboard().pipe;
            self.rate_halve((pipe + 1) as f64);
        }
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u64) {
        let acked = (ack - self.snd_una) as u32;
        // Karn: sample only if the newest acknowledged segment was never
        // resent and left after the last retransmission.
        let newest = self.records[(ack - 1 - self.snd_una) as usize];
        let timed = !newest.retransmitted && self.last_retransmission_at.is_none_or(|t| newest.sent_at > t);
        let rtt_sample = timed.then(|| now.since(newest.sent_at));
        match self.config.rtt_timing {
            RttTiming::Karn => {
                if let Some(rtt) = rtt_sample {
                    self.rtt.sample(rtt);
                }
            }
            RttTiming::Ns2 => {
                // tcp/tcp-linux.cc:210-223: the ACK at or beyond the timed
                // segment ends the measurement, whatever delayed it.
                if let Some((_, sent_at)) = self.timed_segment.filter(|&(seq, _)| ack > seq) {
                    self.rtt.sample(now.since(sent_at));
                    self.timed_segment = None;
                }
            }
        }
        if let Some(rtt) = rtt_sample {
            self.state.last_rtt = Some(rtt);
            self.state.min_rtt = Some(self.state.min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.state.max_rtt = Some(self.state.max_rtt.map_or(rtt, |m| m.max(rtt)));
        }
        self.records.drain(..acked as usize);
        self.snd_una = ack;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        self.sync_state(now);
        self.cc.pkts_acked(&self.state, acked, rtt_sample);

        let mut restart_timer = true;
        if self.state.cong_state == CongState::Recovery {
            if self.recover.is_some_and(|r| ack > r) {
                // Full ACK (RFC 6582 3.2 step 3, option 1):
                // min(ssthresh, max(FlightSize, SMSS) + SMSS); with SACK
                // the window is already ssthresh's, pipe-governed.
                self.state.cwnd = if self.rate_halving() {
                    // ns-2.35 tcp/tcp-linux.cc:464-468: up to ssthresh,
                    // moderated to the flight + tcp_max_burst (3).
                    if self.rh_floor < self.state.ssthresh {
                        self.state.ssthresh.min(self.flight() as f64 + 3.0)
                    } else {
                        self.rh_floor
                    }
                } else if self.config.sack {
                    self.state.ssthresh
                } else {
                    self.state.ssthresh.min(self.flight().max(1) as f64 + 1.0)
                };
                self.dupacks = 0;
                self.cc.cwnd_event(&mut self.state, CwndEvent::RecoveryComplete);
                self.set_cong_state(CongState::Open);
            } else if self.config.sack {
                // RFC 6675: a partial ACK only moves the scoreboard; NextSeg
                // picks what to resend. The timer restarts (RFC 6298 5.3).
            } else {
                // Partial ACK (step 4): resend the next hole, deflate.
                self.retransmit_next = Some(self.snd_una);
                self.state.cwnd = (self.state.cwnd - acked as f64 + 1.0).max(1.0);
                restart_timer = self.first_partial_ack || self.config.rto_restart_on_every_ack;
                self.first_partial_ack = false;
            }
        } else {
            self.dupacks = 0;
            if self.state.cong_state == CongState::Disorder
                || (self.state.cong_state == CongState::Loss && self.recover.is_none_or(|r| ack > r))
            {
                self.set_cong_state(CongState::Open);
            }
            let flight_before = self.flight() + acked;
            let slow_start_room = self.state.in_slow_start() && self.state.cwnd < 2.0 * flight_before as f64;
            if self.cwnd_limited || slow_start_room {
                // `tcp.cwnd_growth`: RFC 5681 grows once per ACK.
                self.cc.increase_window(&mut self.state, self.config.cwnd_growth.growth_segments(acked));
            }
        }

        if self.snd_una >= self.high_tx {
            self.rto_deadline = None; // all acknowledged (RFC 6298 5.2)
        } else if restart_timer {
            self.rto_deadline = Some(now + self.rtt.rto()); // 5.3
        }
        if self.is_complete() && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
    }

    fn on_duplicate_ack(&mut self, now: SimTime) {
        self.dupacks += 1;
        if self.config.rto_restart_on_every_ack {
            // ns-2.35 TCP-Linux (tcp/tcp-linux.cc:168, 226): every ACK
            // re-arms the timer while data is outstanding.
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.sync_state(now);
        self.cc.dup_ack(&self.state);
        if self.state.cong_state == CongState::Recovery {
            if !self.config.sack {
                self.state.cwnd += 1.0; // inflation (RFC 6582 3.2 step 3)
            }
            return;
        }
        // RFC 6675 section 5: DupThresh duplicates, or IsLost(HighACK + 1);
        // `tcp.fack_loss_marking`: only a loss the scoreboard marks.
        let sack_lost = self.config.sack && self.is_lost(self.snd_una);
        let enough_dupacks = !self.fack() && self.dupacks >= self.cc.dupack_threshold(&self.state);
        if !enough_dupacks && !sack_lost {
            self.set_cong_state(CongState::Disorder);
            return;
        }
        self.enter_fast_recovery();
    }

    /// Fast retransmit and recovery (RFC 6582 3.2 step 2, RFC 6675 section 5).
    fn enter_fast_recovery(&mut self) {
        // RFC 6582 4.1: only if the cumulative ACK passed `recover`.
        if self.recover.is_some_and(|r| self.snd_una <= r) {
            return;
        }
        self.counters.fast_retransmits += 1;
        self.recover = Some(self.high_tx - 1);
        let ssthresh = self.whole_segments(self.cc.ssthresh(&self.loss_state(), LossKind::FastRetransmit));
        self.state.ssthresh = ssthresh;
        let inflation = if self.config.sack { 0.0 } else { self.dupacks as f64 };
        let (old_cwnd, floor) = (self.state.cwnd, self.whole_segments(self.cc.min_cwnd(&self.state, ssthresh)));
        self.state.cwnd = self.cc.cwnd_after_fast_retransmit(&self.state, ssthresh) + inflation;
        if self.rate_halving() {
            // ns-2.35 tcp/tcp-linux.cc:487 next_pkts_in_flight_ = snd_cwnd,
            // 498-501 snd_cwnd = min_cwnd.
            self.rh_floor = floor;
            self.rh_next = old_cwnd.floor();
            self.state.cwnd = floor.max(self.rh_next);
        }
        self.first_partial_ack = true;
        for record in &mut self.records {
            record.resent_in_recovery = false;
            record.lost_again = false;
        }
        self.set_cong_state(CongState::Recovery);
        // RFC 6675 step (4.2)/(C): the first unacknowledged segment goes now.
        self.retransmit_next = Some(self.snd_una);
        if self.config.sack {
            self.snd_nxt = self.high_tx;
        }
    }

    /// The retransmission timer expired.
    pub fn on_rto(&mut self, now: SimTime) {
        self.rto_deadline = None;
        self.rtt.back_off();
        if self.phase == Phase::SynSent {
            self.phase = Phase::SynToSend; // resend the SYN
            return;
        }
        if self.snd_una >= self.high_tx {
            return;
        }
        self.counters.timeouts += 1;
        self.timed_segment = None; // tcp/tcp.cc:983 reset_rtx_timer
        if self.rate_halving() && self.state.cong_state == CongState::Recovery {
            // ns-2.35 enter_loss reads Linux's snd_cwnd, the floor.
            self.state.cwnd = self.rh_floor;
        }
        self.sync_state(now);
        // ns-3 (tcp-socket-base.cc:3961-3964): a further timeout in the
        // loss state keeps ssthresh once the head was resent since the
        // last one (go-back-N has passed it: snd_nxt rewound to snd_una).
        let head_resent = self.state.cong_state == CongState::Loss && self.snd_nxt > self.snd_una;
        let keep_ssthresh = self.config.ssthresh_from == SsthreshFrom::Pipe && head_resent;
        self.cc.cwnd_event(&mut self.state, CwndEvent::Timeout);
        let ssthresh = self.whole_segments(self.cc.ssthresh(&self.loss_state(), LossKind::Timeout));
        if !keep_ssthresh {
            self.state.ssthresh = ssthresh;
        }
        self.state.cwnd = 1.0; // RFC 5681 3.1: loss window
        self.recover = Some(self.high_tx - 1);
        self.dupacks = 0;
        self.retransmit_next = None;
        let keep_sacked = self.config.sack_kept_after_rto;
        for record in &mut self.records {
            // RFC 2018 section 8: the receiver may have discarded them
            // (unless `tcp.sack_kept_after_rto`, as Linux).
            record.sacked &= keep_sacked;
            record.resent_in_recovery = false;
            record.lost_again = false;
        }
        self.snd_nxt = self.snd_una; // go-back-N
        self.set_cong_state(CongState::Loss);
        self.state.rto = self.rtt.rto();
    }
}

#[cfg(test)]
mod tests {
    use super::super::congestion::newreno::NewReno;
    use super::*;

    fn ms(v: f64) -> crate::time::SimDuration {
        crate::time::SimDuration::from_millis_f64(v)
    }

    fn sender(config: TcpConfig) -> Sender {
        let mut s = Sender::new(Box::new(NewReno), config, 1000, None);
        s.start(SimTime::ZERO);
        s
    }

    fn drain(s: &mut Sender, now: SimTime) -> Vec<(u64, bool)> {
        std::iter::from_fn(|| s.poll_transmit(now)).map(|o| (o.header.seq, o.header.retransmission)).collect()
    }

    fn ack(s: &mut Sender, now: SimTime, next_expected: u64) {
        sack_ack(s, now, next_expected, &[]);
    }

    fn at(ms_: f64) -> SimTime {
        SimTime::ZERO + ms(ms_)
    }

    #[test]
    fn sends_the_initial_window_then_clocks_out_on_acks() {
        let mut s = sender(TcpConfig::default());
        assert_eq!(drain(&mut s, at(0.0)), vec![(0, false), (1, false)]);
        assert_eq!(s.rto_deadline(), Some(at(1000.0)), "RFC 6298 initial RTO");
        ack(&mut s, at(100.0), 1); // slow start: cwnd 3
        assert_eq!(s.state.cwnd, 3.0);
        assert_eq!(drain(&mut s, at(100.0)), vec![(2, false), (3, false)]);
        // The first sample (100 ms) sets RTO = max(200, 100 + 4 * 50) = 300 ms.
        assert_eq!(s.rto_deadline(), Some(at(400.0)));
    }

    #[test]
    fn a_cumulative_ack_grows_cwnd_once_per_ack_or_per_segment() {
        use super::super::config::CwndGrowth;
        // IW 8, ssthresh high: an ACK covering 4 segments (the first 3 ACKs
        // lost) is one ACK to RFC 5681 3.1 ("at most SMSS bytes"), four
        // segments to RFC 3465 byte counting with no limit (Linux >= 3.9).
        for (growth, slow_start_cwnd) in [(CwndGrowth::PerAck, 9.0), (CwndGrowth::PerSegmentAcked, 12.0)] {
            let mut s = sender(TcpConfig { initial_cwnd_segments: 8.0, cwnd_growth: growth, ..TcpConfig::default() });
            let _ = drain(&mut s, at(0.0));
            ack(&mut s, at(100.0), 4);
            assert_eq!(s.state.cwnd, slow_start_cwnd, "{growth:?} in slow start");
            // Congestion avoidance: 1/cwnd once per ACK, or per segment.
            s.state.ssthresh = s.state.cwnd;
            let before = s.state.cwnd;
            let _ = drain(&mut s, at(100.0));
            ack(&mut s, at(200.0), 6);
            let expected = match growth {
                CwndGrowth::PerAck => before + 1.0 / before,
                CwndGrowth::PerSegmentAcked => before + 1.0 / before + 1.0 / (before + 1.0 / before),
            };
            assert!((s.state.cwnd - expected).abs() < 1e-12, "{growth:?}: cwnd {} expected {expected}", s.state.cwnd);
        }
    }

    #[test]
    fn receiver_window_caps_the_flight() {
        let mut s = sender(TcpConfig { rwnd_segments: 4, initial_cwnd_segments: 10.0, ..TcpConfig::default() });
        assert_eq!(drain(&mut s, at(0.0)).len(), 4);
    }

    #[test]
    fn cwnd_stops_growing_behind_the_receiver_window() {
        // rwnd 4: once cwnd passes twice the flight in slow start, and in
        // congestion avoidance whenever rwnd is the limit, ACKs do not grow it.
        let mut s = sender(TcpConfig { rwnd_segments: 4, initial_cwnd_segments: 2.0, ..TcpConfig::default() });
        let mut next = 0;
        let _ = drain(&mut s, at(0.0));
        for round in 1..=50 {
            let sent_so_far = s.counters.segments_sent;
            while next < sent_so_far {
                next += 1;
                ack(&mut s, at(100.0 * round as f64), next);
            }
            let _ = drain(&mut s, at(100.0 * round as f64));
        }
        assert!(s.state.cwnd <= 8.0, "cwnd {} behind rwnd 4", s.state.cwnd);
        assert!(s.counters.segments_sent > 150, "the flow keeps going");
    }

    #[test]
    fn three_duplicate_acks_fast_retransmit_and_newreno_recovers() {
        let mut s = sender(TcpConfig { initial_cwnd_segments: 10.0, ..TcpConfig::default() });
        assert_eq!(drain(&mut s, at(0.0)).len(), 10); // segments 0..9
                                                      // Segments 2 and 5 are lost. ACKs 1 and 2 grow cwnd to 12 (slow
                                                      // start) and release 10..13; then duplicate ACKs of 2.
        ack(&mut s, at(100.0), 1);
        ack(&mut s, at(100.0), 2);
        assert_eq!(drain(&mut s, at(100.0)), vec![(10, false), (11, false), (12, false), (13, false)]);
        ack(&mut s, at(101.0), 2);
        ack(&mut s, at(101.0), 2);
        assert_eq!(s.state.cong_state, CongState::Disorder);
        ack(&mut s, at(101.0), 2);
        // Third dupack: FlightSize = 12 (2..13), ssthresh = 6, cwnd = 6 + 3.
        assert_eq!(s.state.cong_state, CongState::Recovery);
        assert_eq!(s.state.ssthresh, 6.0);
        assert_eq!(s.state.cwnd, 9.0);
        assert_eq!(drain(&mut s, at(101.0)), vec![(2, true)]);
        // A fourth dupack inflates to 10; a partial ACK of 2, 3, 4 deflates
        // to 10 - 3 + 1 = 8 and resends the next hole, 5.
        ack(&mut s, at(102.0), 2);
        assert_eq!(s.state.cwnd, 10.0);
        ack(&mut s, at(150.0), 5);
        assert_eq!(s.state.cwnd, 8.0);
        assert_eq!(drain(&mut s, at(150.0)), vec![(5, true)]);
        assert_eq!(s.counters.fast_retransmits, 1, "a partial ACK is not a new recovery");
        // Full ACK (past recover = 13): cwnd = min(6, max(0, 1) + 1) = 2.
        ack(&mut s, at(200.0), 14);
        assert_eq!(s.state.cong_state, CongState::Open);
        assert_eq!(s.state.cwnd, 2.0);
        assert_eq!(s.counters.retransmissions, 2);
        // Two samples of 100 ms before the retransmission at 101 ms; the ACKs
        // of 5 (segment 4, sent at 0 ms) and 14 (segment 13, sent at 100 ms)
        // cover segments sent before it: not timed. (Timed, the 150 ms
        // sample would move SRTT to 105.47 ms.)
        assert_eq!(s.state.srtt, Some(ms(100.0)));
    }

    #[test]
    fn ns2_rtt_timing_times_one_segment_per_round_without_karns_test() {
        use super::super::config::RttTiming;
        // IW 10 at 0 ms (segment 0 timed); the ACK of 0 at 100 ms is a
        // 100 ms sample under both rules; 10 and 11 leave at 100 ms (ns-2
        // times 10). Segment 1 is lost: three duplicates at 101 ms resend
        // it, and the full ACK of 0..11 comes at 250 ms.
        let srtt_after = |timing: RttTiming, ack_of_1_at: f64| {
            let mut s = sender(TcpConfig { initial_cwnd_segments: 10.0, rtt_timing: timing, ..TcpConfig::default() });
            let _ = drain(&mut s, at(0.0));
            ack(&mut s, at(100.0), 1);
            assert_eq!(drain(&mut s, at(100.0)), vec![(10, false), (11, false)]);
            let after_first = s.state.srtt;
            if ack_of_1_at > 0.0 {
                ack(&mut s, at(ack_of_1_at), 2); // a plain ACK of segment 1
                return (after_first, s.state.srtt);
            }
            for _ in 0..3 {
                ack(&mut s, at(101.0), 1);
            }
            assert_eq!(drain(&mut s, at(101.0))[0], (1, true));
            ack(&mut s, at(250.0), 12);
            (after_first, s.state.srtt)
        };
        // Karn: the full ACK's newest segment (11) left before the
        // retransmission: no sample. ns-2: the timed segment 10 is
        // acknowledged, 150 ms after it left: SRTT 7/8 x 100 + 150 / 8.
        assert_eq!(srtt_after(RttTiming::Karn, 0.0), (Some(ms(100.0)), Some(ms(100.0))));
        assert_eq!(srtt_after(RttTiming::Ns2, 0.0), (Some(ms(100.0)), Some(ms(106.25))));
        // An ACK of an untimed segment (1, sent at 0, acknowledged at 140
        // ms) is a sample for Karn only.
        assert_eq!(srtt_after(RttTiming::Karn, 140.0).1, Some(ms(105.0)));
        assert_eq!(srtt_after(RttTiming::Ns2, 140.0).1, Some(ms(100.0)));
    }

    #[test]
    fn ssthresh_from_cwnd_halves_ns2s_window_not_the_flight() {
        use super::super::config::SsthreshFrom;
        // IW 10; ACKs 1 and 2 grow cwnd to 12 and release 10..13; three
        // duplicates of 2: FlightSize 12 = cwnd 12, ssthresh 6 either way.
        // The timer then expires in recovery with 12 segments outstanding:
        // RFC 5681 halves them (6); ns-2 halves cwnd_, which in NewReno's
        // recovery is ssthresh without the inflation (3).
        for (from, after_timeout) in [(SsthreshFrom::FlightSize, 6.0), (SsthreshFrom::Cwnd, 3.0)] {
            let mut s = sender(TcpConfig { initial_cwnd_segments: 10.0, ssthresh_from: from, ..TcpConfig::default() });
            let _ = drain(&mut s, at(0.0));
            ack(&mut s, at(100.0), 1);
            ack(&mut s, at(100.0), 2);
            let _ = drain(&mut s, at(100.0));
            for _ in 0..3 {
                ack(&mut s, at(101.0), 2);
            }
            assert_eq!((s.state.ssthresh, s.state.cwnd), (6.0, 9.0), "{from:?}");
            s.on_rto(at(1000.0));
            assert_eq!(s.state.ssthresh, after_timeout, "{from:?}");
        }
        // The receiver's window caps ns-2's window: rwnd 5, cwnd 10 -> 2.5.
        let mut s =
            sender(TcpConfig { initial_cwnd_segments: 10.0, rwnd_segments: 5, ssthresh_from: SsthreshFrom::Cwnd, ..TcpConfig::default() });
        let _ = drain(&mut s, at(0.0));
        s.on_rto(at(1000.0));
        assert_eq!(s.state.ssthresh, 2.5);
    }

    #[test]
    fn ssthresh_from_pipe_halves_ns3s_bytes_in_flight_once_per_timeout_episode() {
        use super::super::config::SsthreshFrom;
        // 0..9 sent, 2 lost; 10..13 released; SACKs of 3..5 start recovery:
        // FlightSize 12, pipe 12 - 3 SACKed - 1 lost (2: IsLost) = 8.
        // 2 is resent; 3..13 are SACKed, new segments go out (14..18 with
        // cwnd 6, 14..16 with cwnd 4), 2's retransmission is lost and the
        // timer expires: FlightSize 17, resp. pipe 4 (ns-3's BytesInFlight:
        // 15 sent - 11 SACKed - 1 lost + 1 resent; FlightSize 15). After
        // go-back-N resent 2, a second timeout: FlightSize 1 halves again
        // (to the floor, 2), ns-3 keeps ssthresh (here set to 7).
        for (from, at_recovery, at_timeout, at_second) in
            [(SsthreshFrom::FlightSize, 6.0, 8.5, 2.0), (SsthreshFrom::Pipe, 4.0, 2.0, 7.0)]
        {
            let config = TcpConfig { initial_cwnd_segments: 10.0, sack: true, ssthresh_from: from, ..TcpConfig::default() };
            let mut s = in_sack_recovery(config);
            assert_eq!(s.state.ssthresh, at_recovery, "{from:?} at the third duplicate");
            assert_eq!(drain(&mut s, at(101.0)), vec![(2, true)]);
            sack_ack(&mut s, at(110.0), 2, &[(3, 14)]);
            let _ = drain(&mut s, at(110.0));
            s.on_rto(at(1200.0));
            assert_eq!(s.state.ssthresh, at_timeout, "{from:?} at the timeout");
            assert_eq!(drain(&mut s, at(1200.0)), vec![(2, true)]);
            s.state.ssthresh = 7.0; // what a second halving would lower
            s.on_rto(at(3200.0));
            assert_eq!(s.state.ssthresh, at_second, "{from:?} at the second timeout");
        }
    }

    fn sack_ack(s: &mut Sender, now: SimTime, next_expected: u64, blocks: &[(u64, u64)]) {
        let mut sack = crate::wire::tcp::SackBlocks::default();
        for &(start, end) in blocks {
            sack.push(start, end);
        }
        let header = TcpHeader {
            kind: SegmentKind::Ack,
            seq: 0,
            ack: next_expected,
            sent_at: now,
            echo: SimTime::ZERO,
            retransmission: false,
            loss_hint: None,
            sack,
        };
        s.on_ack(now, &header);
    }

    #[test]
    fn sack_recovery_resends_a_second_hole_before_the_partial_ack() {
        let mut s = sender(TcpConfig { initial_cwnd_segments: 10.0, sack: true, ..TcpConfig::default() });
        assert_eq!(drain(&mut s, at(0.0)).len(), 10); // 0..9; 2 and 5 are lost
        sack_ack(&mut s, at(100.0), 1, &[]);
        sack_ack(&mut s, at(100.0), 2, &[]);
        assert_eq!(drain(&mut s, at(100.0)).len(), 4); // cwnd 12: 10..13
        sack_ack(&mut s, at(101.0), 2, &[(3, 4)]);
        sack_ack(&mut s, at(101.0), 2, &[(3, 5)]);
        sack_ack(&mut s, at(101.0), 2, &[(6, 7), (3, 5)]);
        // Third duplicate: RFC 6675 recovery, cwnd = ssthresh = 12 / 2, no inflation.
        assert_eq!(s.state.cong_state, CongState::Recovery);
        assert_eq!(s.state.cwnd, 6.0);
        // Resend 2; pipe = 2 (resent) + 5 + 7..13 = 9 > cwnd: nothing else.
        assert_eq!(drain(&mut s, at(101.0)), vec![(2, true)]);
        assert_eq!(s.pipe(), 9);
        // 7 and 8 arrive: three SACKed above 5 make it lost (IsLost);
        // pipe = 1 + 0 + 9..13 = 6: still no room. No inflation on dupacks.
        sack_ack(&mut s, at(102.0), 2, &[(6, 8), (3, 5)]);
        sack_ack(&mut s, at(102.0), 2, &[(6, 9), (3, 5)]);
        assert_eq!(s.state.cwnd, 6.0);
        assert_eq!(drain(&mut s, at(102.0)), vec![]);
        // 9 arrives: pipe 5, room for one: rule 1 resends the lost 5 at once,
        // before any partial ACK (NewReno would wait an RTT for it).
        sack_ack(&mut s, at(103.0), 2, &[(6, 10), (3, 5)]);
        assert_eq!(drain(&mut s, at(103.0)), vec![(5, true)]);
        // 10 arrives: rule 2, new data.
        sack_ack(&mut s, at(104.0), 2, &[(6, 11), (3, 5)]);
        assert_eq!(drain(&mut s, at(104.0)), vec![(14, false)]);
        // The partial ACK of 2 neither deflates nor resends anything by itself.
        sack_ack(&mut s, at(150.0), 5, &[(6, 11)]);
        assert_eq!(s.state.cong_state, CongState::Recovery);
        assert_eq!(s.state.cwnd, 6.0);
        // 5's ACK passes RecoveryPoint (13) once 11..13 are in: recovery ends at ssthresh.
        sack_ack(&mut s, at(151.0), 14, &[]);
        assert_eq!(s.state.cong_state, CongState::Open);
        assert_eq!(s.state.cwnd, 6.0);
        assert_eq!(s.counters.retransmissions, 2);
        assert_eq!(s.counters.fast_retransmits, 1);
    }

    /// 0..9 sent, 2 lost; ACKs 1 and 2 grow cwnd to 12 and release 10..13;
    /// three SACKs (3, 3..4, 3..5) start SACK recovery at 101 ms.
    fn in_sack_recovery(config: TcpConfig) -> Sender {
        let mut s = sender(config);
        let _ = drain(&mut s, at(0.0));
        sack_ack(&mut s, at(100.0), 1, &[]);
        sack_ack(&mut s, at(100.0), 2, &[]);
        assert_eq!(drain(&mut s, at(100.0)).len(), 4);
        sack_ack(&mut s, at(101.0), 2, &[(3, 4)]);
        sack_ack(&mut s, at(101.0), 2, &[(3, 5)]);
        sack_ack(&mut s, at(101.0), 2, &[(3, 6)]);
        s
    }

    #[test]
    fn a_lost_retransmission_is_resent_once_a_later_segment_is_sacked() {
        // 0..9 sent, 2 lost; ACKs 1, 2 grow cwnd to 12 and release 10..13;
        // SACKs of 3..5 start recovery (cwnd 6) and 2 is resent while
        // high_tx = 14. That retransmission is lost too.
        for lost_retransmit in [false, true] {
            let config =
                TcpConfig { initial_cwnd_segments: 10.0, sack: true, sack_lost_retransmit: lost_retransmit, ..TcpConfig::default() };
            let mut s = in_sack_recovery(config);
            assert_eq!(drain(&mut s, at(101.0)), vec![(2, true)]);
            // 3..13 SACKed: pipe 1 (the retransmission), five new segments.
            sack_ack(&mut s, at(110.0), 2, &[(3, 14)]);
            assert_eq!(drain(&mut s, at(110.0)), vec![(14, false), (15, false), (16, false), (17, false), (18, false)]);
            // 14, sent after the retransmission, is SACKed: with the rule the
            // retransmission is lost (pipe 4: 15..18) and goes again, first,
            // and resending the head restarts the timer (Linux); RFC 6675's
            // NextSeg never resends it (HighRxt): pipe 5, one new segment,
            // and only the timeout will repair 2.
            let deadline = s.rto_deadline();
            sack_ack(&mut s, at(150.0), 2, &[(3, 15)]);
            if lost_retransmit {
                assert_eq!(drain(&mut s, at(150.0)), vec![(2, true), (19, false)]);
                assert_eq!(s.rto_deadline(), Some(at(150.0) + s.rtt.rto()));
                // Its ACK ends the recovery with no timeout.
                sack_ack(&mut s, at(200.0), 20, &[]);
                assert_eq!(s.state.cong_state, CongState::Open);
                assert_eq!(s.counters.retransmissions, 2);
            } else {
                assert_eq!(drain(&mut s, at(150.0)), vec![(19, false)]);
                assert_eq!(s.rto_deadline(), deadline);
            }
            assert_eq!(s.counters.timeouts, 0);
        }
    }

    #[test]
    fn sack_rate_halving_lets_one_segment_out_per_two_acks_and_moderates_the_exit() {
        // ns-2.35 TCP-Linux: 0..9 sent, 2 lost, ACKs 1 and 2 grow cwnd to 12
        // and release 10..13. Recovery: ssthresh = 12 / 2 = 6, Reno's
        // min_cwnd 3, the bound starts at the old cwnd, 12.
        let config = TcpConfig { initial_cwnd_segments: 10.0, sack: true, sack_rate_halving: true, ..TcpConfig::default() };
        let mut s = in_sack_recovery(config);
        assert_eq!(s.state.ssthresh, 6.0);
        // The ACK: bound min(12, pipe 8 + 1) = 9; 2 goes (pipe 9), bound 8.
        assert_eq!(s.state.cwnd, 9.0);
        assert_eq!(drain(&mut s, at(101.0)), vec![(2, true)]);
        assert_eq!(s.state.cwnd, 8.0);
        // Each SACKed segment lowers the pipe by one: a segment goes on every
        // other ACK, and each lowers the bound by one.
        let mut sent = Vec::new();
        for (i, end) in (7..=10).enumerate() {
            sack_ack(&mut s, at(102.0 + i as f64), 2, &[(3, end)]);
            sent.push(drain(&mut s, at(102.0 + i as f64)));
        }
        assert_eq!(sent, vec![vec![], vec![(14, false)], vec![], vec![(15, false)]]);
        assert_eq!(s.state.cwnd, 6.0);
        // The full ACK ends recovery at min(ssthresh 6, flight 2 + 3) = 5
        // (RFC 6675: ssthresh, 6).
        sack_ack(&mut s, at(150.0), 14, &[]);
        assert_eq!(s.state.cong_state, CongState::Open);
        assert_eq!(s.state.cwnd, 5.0);
    }

    #[test]
    fn whole_segment_ssthresh_truncates_ssthresh_and_the_recovery_floor() {
        // 0..10 sent, 2 lost; ACKs 1, 2 grow cwnd to 13 (FlightSize 13).
        // Reno halves it: 6.5 real; Linux's u32 snd_ssthresh 6 and
        // tcp_reno_min_cwnd 6 / 2 = 3 (the rate-halving floor).
        for whole in [false, true] {
            let config = TcpConfig {
                initial_cwnd_segments: 11.0,
                sack: true,
                sack_rate_halving: true,
                whole_segment_ssthresh: whole,
                ..TcpConfig::default()
            };
            let s = in_sack_recovery(config);
            assert_eq!(s.state.ssthresh, if whole { 6.0 } else { 6.5 }, "whole {whole}");
            assert_eq!(s.rh_floor, if whole { 3.0 } else { 3.25 }, "whole {whole}");
        }
    }

    #[test]
    fn rto_restart_on_every_ack_rearms_the_timer_on_duplicates() {
        for every_ack in [false, true] {
            let mut s = sender(TcpConfig { initial_cwnd_segments: 4.0, rto_restart_on_every_ack: every_ack, ..TcpConfig::default() });
            let _ = drain(&mut s, at(0.0));
            assert_eq!(s.rto_deadline(), Some(at(1000.0)));
            ack(&mut s, at(500.0), 0); // a duplicate: nothing new acknowledged
            let expected = if every_ack { at(500.0) + s.rtt.rto() } else { at(1000.0) };
            assert_eq!(s.rto_deadline(), Some(expected), "every_ack {every_ack}");
        }
    }

    #[test]
    fn sack_kept_after_rto_resends_only_what_was_not_sacked() {
        let config = TcpConfig { initial_cwnd_segments: 4.0, sack: true, sack_kept_after_rto: true, ..TcpConfig::default() };
        let mut s = sender(config);
        let _ = drain(&mut s, at(0.0)); // 0..3
        sack_ack(&mut s, at(100.0), 0, &[(1, 2)]);
        s.on_rto(at(1000.0));
        assert!(s.records[1].sacked, "Linux keeps the marks");
        assert_eq!(drain(&mut s, at(1000.0)), vec![(0, true)]);
        // cwnd 2 after 0's ACK (window 1..2): 1 is skipped, SACKed before
        // the timeout (without the key it would go again, as the test above).
        sack_ack(&mut s, at(1100.0), 1, &[(1, 2)]);
        assert_eq!(drain(&mut s, at(1100.0)), vec![(2, true)]);
        assert_eq!(s.counters.retransmissions, 2);
    }

    #[test]
    fn fack_loss_marking_counts_distance_to_the_highest_sack_not_duplicates() {
        // ns-2.35 tcp/scoreboard1.cc:168, 225: a segment is lost once one 4
        // above it is SACKed; recovery starts on the loss, not on a count.
        for fack in [false, true] {
            let config = TcpConfig { initial_cwnd_segments: 10.0, sack: true, fack_loss_marking: fack, ..TcpConfig::default() };
            // One loss (0), three duplicates SACK 1..3: RFC 6675 recovers,
            // FACK waits for the fourth.
            let mut s = sender(config.clone());
            let _ = drain(&mut s, at(0.0));
            for end in 2..=4 {
                sack_ack(&mut s, at(100.0), 0, &[(1, end)]);
            }
            assert_eq!(s.state.cong_state == CongState::Recovery, !fack, "fack {fack}");
            sack_ack(&mut s, at(100.0), 0, &[(1, 5)]);
            assert_eq!(s.state.cong_state, CongState::Recovery);
            assert_eq!(drain(&mut s, at(100.0)).first(), Some(&(0, true)));
            // A burst (0..3 lost): the first duplicate, SACKing 4, marks 0.
            let mut s = sender(config.clone());
            let _ = drain(&mut s, at(0.0));
            sack_ack(&mut s, at(100.0), 0, &[(4, 5)]);
            assert_eq!(s.state.cong_state == CongState::Recovery, fack, "fack {fack}");
            if fack {
                // Only 0 is 4 below the highest SACK: one retransmission.
                assert_eq!(drain(&mut s, at(100.0)), vec![(0, true)]);
                assert!(!s.is_lost(1));
                sack_ack(&mut s, at(101.0), 0, &[(4, 6)]);
                assert!(s.is_lost(1) && !s.is_lost(2));
            }
            // An ACK of new data that SACKs data (0 arrives, 1..4 lost, 5
            // SACKed) starts recovery under FACK (tcp/tcp-linux.cc:411-415).
            let mut s = sender(config);
            let _ = drain(&mut s, at(0.0));
            sack_ack(&mut s, at(100.0), 1, &[(5, 6)]);
            assert_eq!(s.state.cong_state == CongState::Recovery, fack, "fack {fack}");
            assert_eq!(s.counters.fast_retransmits, fack as u64);
        }
    }

    #[test]
    fn sack_pipe_outside_recovery_lets_a_new_segment_out_per_sacked_one() {
        // ns-2.35 tcp/tcp-linux.cc:624, scoreboard1.h:162: the flight is
        // snd_nxt - snd_una - lost - SACKed in every state. A window of 4,
        // 0 lost: each duplicate SACKing one more segment sends a new one,
        // so FACK's fourth duplicate comes and recovery starts.
        for pipe in [false, true] {
            let config = TcpConfig {
                initial_cwnd_segments: 4.0,
                sack: true,
                fack_loss_marking: true,
                sack_pipe_outside_recovery: pipe,
                ..TcpConfig::default()
            };
            let mut s = sender(config);
            assert_eq!(drain(&mut s, at(0.0)).len(), 4);
            let mut sent = Vec::new();
            for end in 2..=4 {
                sack_ack(&mut s, at(100.0), 0, &[(1, end)]);
                sent.extend(drain(&mut s, at(100.0)));
            }
            let expected: Vec<(u64, bool)> = if pipe { vec![(4, false), (5, false), (6, false)] } else { vec![] };
            assert_eq!(sent, expected, "pipe {pipe}");
            assert_eq!(s.state.cong_state, CongState::Disorder);
            if pipe {
                sack_ack(&mut s, at(101.0), 0, &[(1, 5)]);
                assert_eq!(s.state.cong_state, CongState::Recovery);
                assert_eq!(drain(&mut s, at(101.0)).first(), Some(&(0, true)));
            }
        }
    }

    #[test]
    fn sack_is_lost_starts_recovery_before_three_duplicates() {
        // Limited transmit aside, a single duplicate ACK SACKing three
        // segments above the first hole already proves it lost (RFC 6675 5).
        let mut s = sender(TcpConfig { initial_cwnd_segments: 8.0, sack: true, ..TcpConfig::default() });
        let _ = drain(&mut s, at(0.0)); // 0..7; 0 lost, the ACKs of 1..3 lost but one
        sack_ack(&mut s, at(100.0), 0, &[(1, 4)]);
        assert_eq!(s.state.cong_state, CongState::Recovery);
        assert_eq!(drain(&mut s, at(100.0)).first(), Some(&(0, true)));
    }

    #[test]
    fn after_a_timeout_sack_marks_are_cleared_and_later_sacked_segments_skipped() {
        let mut s = sender(TcpConfig { initial_cwnd_segments: 4.0, sack: true, ..TcpConfig::default() });
        let _ = drain(&mut s, at(0.0)); // 0..3
        sack_ack(&mut s, at(100.0), 0, &[(1, 2)]);
        s.on_rto(at(1000.0));
        assert!(s.records.iter().all(|r| !r.sacked), "RFC 2018 section 8");
        assert_eq!(drain(&mut s, at(1000.0)), vec![(0, true)]);
        // The receiver reports 2..3 again: go-back-N resends 1 and skips them.
        sack_ack(&mut s, at(1100.0), 1, &[(2, 4)]);
        assert_eq!(drain(&mut s, at(1100.0)), vec![(1, true)]);
        sack_ack(&mut s, at(1200.0), 4, &[]);
        assert_eq!(drain(&mut s, at(1200.0)).first(), Some(&(4, false)));
        assert_eq!(s.counters.retransmissions, 2, "only 0 and 1 were resent");
    }

    #[test]
    fn timeout_backs_off_goes_back_n_and_restarts_slow_start() {
        let mut s = sender(TcpConfig { initial_cwnd_segments: 4.0, ..TcpConfig::default() });
        assert_eq!(drain(&mut s, at(0.0)).len(), 4);
        s.on_rto(at(1000.0));
        assert_eq!(s.counters.timeouts, 1);
        assert_eq!(s.state.cwnd, 1.0);
        assert_eq!(s.state.ssthresh, 2.0);
        assert_eq!(s.state.cong_state, CongState::Loss);
        assert_eq!(drain(&mut s, at(1000.0)), vec![(0, true)]);
        assert_eq!(s.rto_deadline(), Some(at(3000.0)), "RTO doubled to 2 s");
        // The retransmission's ACK gives no RTT sample (Karn) but slow start
        // resends the rest of the window.
        ack(&mut s, at(1100.0), 1);
        assert_eq!(s.state.srtt, None);
        assert_eq!(s.state.cwnd, 2.0);
        assert_eq!(drain(&mut s, at(1100.0)), vec![(1, true), (2, true)]);
    }

    #[test]
    fn duplicate_acks_after_a_timeout_do_not_trigger_a_second_reduction() {
        let mut s = sender(TcpConfig { initial_cwnd_segments: 6.0, ..TcpConfig::default() });
        let _ = drain(&mut s, at(0.0));
        s.on_rto(at(1000.0));
        let _ = drain(&mut s, at(1000.0));
        for _ in 0..3 {
            ack(&mut s, at(1001.0), 0); // dupacks of old data, below recover
        }
        assert_eq!(s.counters.fast_retransmits, 0);
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_per_early_dupack() {
        let mut s = sender(TcpConfig { initial_cwnd_segments: 4.0, limited_transmit: true, ..TcpConfig::default() });
        let _ = drain(&mut s, at(0.0)); // 0..3
        ack(&mut s, at(100.0), 1); // cwnd 5: sends 4, 5
        assert_eq!(drain(&mut s, at(100.0)).len(), 2);
        ack(&mut s, at(101.0), 1);
        assert_eq!(drain(&mut s, at(101.0)), vec![(6, false)]);
        ack(&mut s, at(101.0), 1);
        assert_eq!(drain(&mut s, at(101.0)), vec![(7, false)]);
    }

    #[test]
    fn a_finite_transfer_completes() {
        let mut s = Sender::new(Box::new(NewReno), TcpConfig::default(), 1000, Some(3));
        s.start(SimTime::ZERO);
        assert_eq!(drain(&mut s, at(0.0)).len(), 2);
        ack(&mut s, at(50.0), 2);
        assert_eq!(drain(&mut s, at(50.0)), vec![(2, false)]);
        assert!(!s.is_complete());
        ack(&mut s, at(100.0), 3);
        assert!(s.is_complete());
        assert_eq!(s.completed_at, Some(at(100.0)));
        assert_eq!(s.rto_deadline(), None);
    }

    #[test]
    fn handshake_precedes_data_and_the_syn_is_retransmitted() {
        let mut s = sender(TcpConfig { handshake: true, ..TcpConfig::default() });
        let syn = s.poll_transmit(at(0.0)).unwrap();
        assert_eq!(syn.header.kind, SegmentKind::Syn);
        assert_eq!(s.poll_transmit(at(0.0)), None);
        s.on_rto(at(1000.0));
        assert_eq!(s.poll_transmit(at(1000.0)).unwrap().header.kind, SegmentKind::Syn);
        let synack = TcpHeader { kind: SegmentKind::SynAck, ..syn.header };
        s.on_ack(at(1050.0), &synack);
        assert_eq!(drain(&mut s, at(1050.0)), vec![(0, false), (1, false)]);
    }
    #[test]
    fn first_segment_header_only_puts_ns2s_syn_before_a_files_data() {
        // A 3-segment file: ns-2's agent sends the header-only segment 0
        // and then the 3 data segments (tcp/tcp.cc:710-716, curseq_ += 1).
        for (rule, segments) in [(false, vec![0, 1, 2]), (true, vec![0, 1, 2, 3])] {
            let config = TcpConfig { initial_cwnd_segments: 10.0, first_segment_header_only: rule, ..TcpConfig::default() };
            let mut s = Sender::new(Box::new(NewReno), config, 1000, Some(3));
            s.start(SimTime::ZERO);
            let sent: Vec<u64> = drain(&mut s, at(0.0)).into_iter().map(|(seq, _)| seq).collect();
            assert_eq!(sent, segments);
            assert_eq!((s.is_header_only(0), s.is_header_only(1)), (rule, false));
            // A retransmitted segment 0 is headers only again.
            s.on_rto(at(3000.0));
            assert_eq!(drain(&mut s, at(3000.0)).first(), Some(&(0, true)));
            assert_eq!(s.is_header_only(0), rule);
        }
    }
}
