//! DCF behaviour: reception at the PHY, channel access, frame exchange.
//!
//! Channel access (IEEE 802.11-2016 10.3.2, 10.3.4):
//! - The medium is busy while the PHY is locked on a frame or transmitting
//!   (physical carrier sense) or while the NAV runs (virtual carrier sense).
//! - An idle period's first backoff slot boundary is DIFS after it began, or
//!   later if a frame received in error asks for EIFS (`eifs_until`), or a
//!   CTS/ACK timeout ended later (the timeout counts as the end of a busy
//!   period, as in ns-3's ChannelAccessManager).
//! - Slot boundaries follow the rule of 10.22.2.4: at each boundary a
//!   station either decrements its backoff counter or, at zero, transmits;
//!   a counter of k transmits at `countdown_from + k slots`, and a busy
//!   period starting after boundary j leaves k - (j + 1). This is the
//!   behaviour Bianchi's model (IEEE JSAC 2000) assumes.
//! - A packet reaching an idle MAC with no backoff pending goes out at the
//!   first boundary (immediate access after DIFS); after every transmission
//!   attempt, success or failure, a new backoff is drawn from [0, CW]
//!   (post-backoff), so saturated stations always back off.
//!
//! Frame exchange (10.3.2.5 - 10.3.2.9, 10.3.4.4): RTS -> CTS -> DATA -> ACK
//! separated by SIFS, broadcast DATA alone; the short retry count (SRC)
//! counts failed RTS (and failed DATA sent without RTS) up to
//! `short_retry_limit`, reset when a CTS arrives; the long retry count (LRC)
//! counts failed DATA sent after a CTS up to `long_retry_limit`; CW doubles
//! on each failure and resets on success or drop. A station answers an RTS
//! with a CTS only if its NAV is idle and it is not in an exchange of its
//! own; it always answers a DATA with an ACK; retransmitted duplicates are
//! acknowledged and discarded.
//!
//! Simplifications (README, "Model fidelity"): no NAV reset after an RTS
//! without a following DATA (10.3.2.4 allows it; ns-2 does not do it
//! either); no fragmentation; one sequence-number counter per station.

use crate::wire::ieee80211::{Frame, FrameKind};
use super::hop_control::RtsAnswer;
use super::queue::Queued;
use super::state::{AttemptLoss, Exchange, TxOp};
use crate::net::NodeId;
use crate::phy::receiver::Arrival;
use crate::stats::DropCause;
use crate::time::{SimDuration, SimTime};
use crate::world::{TimerKind, TraceWhat, World};

/// The MAC's per-packet report to the layer above (DESIGN.md, "MAC -> net":
/// TxOk / TxFailed): how one unicast DATA packet's service ended, its MAC
/// service time (head of queue to ACK or drop) and its attempt counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TxDone {
    pub packet: crate::net::Packet,
    pub next_hop: NodeId,
    /// Acknowledged (TxOk); false: dropped at the retry limit (TxFailed).
    pub acknowledged: bool,
    pub service_time: SimDuration,
    pub rts_attempts: u32,
    pub data_attempts: u32,
}

/// How the service of the head-of-line packet ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ServiceEnd {
    Acknowledged,
    BroadcastSent,
    Dropped,
}

impl World {
    // ---------------------------------------------------------------- PHY

    /// A frame starts arriving at `node` (ns-2 threshold receiver).
    /// `link`: the transmitter's link to `node` when the frame left.
    pub(crate) fn phy_rx_start(&mut self, node: NodeId, frame: Frame, link: crate::phy::Neighbour) {
        let now = self.now();
        let end = now + frame.airtime;
        let capture_ratio = self.channel.radio.capture_ratio;
        let arrival = self.nodes[node.index()].rx.arrive(frame, link.rx_power_w, end, link.decodable, capture_ratio);
        match arrival {
            Arrival::Locked => {
                self.arm(node, TimerKind::RxEnd, end);
                self.mac_update_medium(node);
            }
            Arrival::Collided { extended } => {
                if extended {
                    self.arm(node, TimerKind::RxEnd, end);
                }
            }
            Arrival::Captured => {
                // ns-2 Mac802_11::capture: the ignored frame still defers the
                // node for EIFS + its duration.
                let until = now + self.timing.eifs + frame.airtime;
                self.set_nav(node, until);
            }
        }
    }

    /// The frame `node` was locked onto has ended.
    pub(crate) fn phy_rx_end(&mut self, node: NodeId) {
        let now = self.now();
        let lock = self.nodes[node.index()].rx.release().expect("RxEnd without a lock");
        let frame = lock.frame;
        let mut decoded = lock.corruption.is_none();
        if decoded && self.frame_lost_to_channel_error(node, &frame) {
            decoded = false;
        }
        if decoded {
            self.nodes[node.index()].mac.eifs_until = SimTime::ZERO;
            self.record(node, TraceWhat::RxOk, &frame);
            self.mac_receive(node, frame);
        } else {
            // 10.3.2.3.7: after a frame received in error, wait EIFS.
            self.nodes[node.index()].mac.eifs_until = now + self.timing.eifs;
            self.record(node, TraceWhat::RxError, &frame);
        }
        self.mac_update_medium(node);
    }

    /// The frame error model: a decodable unicast DATA frame addressed to
    /// `node` is lost with the configured probability.
    fn frame_lost_to_channel_error(&mut self, node: NodeId, frame: &Frame) -> bool {
        if self.packet_error_rate <= 0.0 || frame.kind != FrameKind::Data || frame.receiver != node {
            return false;
        }
        if !self.nodes[node.index()].error_rng.bernoulli(self.packet_error_rate) {
            return false;
        }
        // Ground truth for the sender's eventual drop cause.
        let uid = frame.packet.map(|p| p.uid);
        if let Some(op) = self.nodes[frame.transmitter.index()].mac.op.as_mut() {
            if Some(op.item.packet.uid) == uid {
                op.last_loss = AttemptLoss::ChannelError;
            }
        }
        true
    }

    // ------------------------------------------------------ channel access

    /// Re-evaluate carrier sense: freeze the backoff when the medium turns
    /// busy, restart the countdown when it turns idle.
    pub(crate) fn mac_update_medium(&mut self, node: NodeId) {
        let now = self.now();
        let slot = self.timing.slot.as_nanos();
        let difs = self.timing.difs;
        let n = &mut self.nodes[node.index()];
        let busy = n.rx.is_busy() || n.mac.nav_until > now;
        if busy == n.mac.medium_busy {
            return;
        }
        n.mac.medium_busy = busy;
        if busy {
            if n.timers[TimerKind::Access as usize].is_armed() {
                n.timers[TimerKind::Access as usize].cancel();
                // Each boundary countdown_from + j slots reached while idle
                // took one slot off the counter, including one at this very
                // instant (the medium was idle in the slot before it).
                let boundaries_passed =
                    if now >= n.mac.countdown_from { (now.since(n.mac.countdown_from).as_nanos() / slot) as u32 + 1 } else { 0 };
                if let Some(k) = n.mac.backoff_slots {
                    n.mac.backoff_slots = Some(k.saturating_sub(boundaries_passed));
                }
            }
        } else {
            n.mac.countdown_from = (now + difs).max(n.mac.eifs_until);
            self.mac_schedule_access(node);
        }
    }

    /// Arm the access timer if the node has a backoff to count down and may
    /// contend now.
    pub(crate) fn mac_schedule_access(&mut self, node: NodeId) {
        let now = self.now();
        let n = &self.nodes[node.index()];
        let mac = &n.mac;
        if mac.medium_busy || mac.exchange != Exchange::Idle || mac.pending_response.is_some() || n.rx.transmitting {
            return;
        }
        let Some(slots) = mac.backoff_slots else {
            return;
        };
        let at = mac.countdown_from.max(now) + self.timing.slot * slots as u64;
        self.arm(node, TimerKind::Access, at);
    }

    pub(crate) fn draw_backoff(&mut self, node: NodeId) {
        let n = &mut self.nodes[node.index()];
        let cw = n.mac.cw;
        n.mac.backoff_slots = Some(n.backoff_rng.uniform_inclusive(cw));
    }

    /// The backoff counter is zero at a slot boundary: transmit.
    pub(crate) fn mac_access_granted(&mut self, node: NodeId) {
        let now = self.now();
        self.nodes[node.index()].mac.backoff_slots = None;
        let Some(op) = self.nodes[node.index()].mac.op else {
            return;
        }; // post-backoff done
        if op.uses_rts && self.hop_defers(node, op.item.next_hop) {
            return;
        }
        let congestion_mark = self.hop_control.is_some() && self.nodes[node.index()].hop.congested;
        if congestion_mark && op.uses_rts {
            self.nodes[node.index()].hop.rtsc_sent += 1;
        }
        let timing = &self.timing;
        let mac = &mut self.nodes[node.index()].mac;
        let op = mac.op.as_mut().expect("checked above");
        op.last_loss = AttemptLoss::NoResponse;
        op.last_attempt_at = now;
        let packet_bytes = op.item.packet.size_bytes();
        let broadcast = op.item.next_hop == super::BROADCAST;
        let data_airtime = timing.data_airtime(packet_bytes, broadcast);
        let frame = if broadcast {
            mac.exchange = Exchange::Broadcast;
            op.data_attempts += 1;
            data_frame(node, op, data_airtime, SimDuration::ZERO)
        } else if op.uses_rts {
            mac.exchange = Exchange::WaitCts;
            op.rts_attempts += 1;
            // 10.3.2.5: the RTS reserves CTS + DATA + ACK and three SIFS.
            let duration = timing.sifs * 3 + timing.cts_airtime() + data_airtime + timing.ack_airtime();
            Frame {
                kind: FrameKind::Rts,
                transmitter: node,
                receiver: op.item.next_hop,
                duration,
                airtime: timing.rts_airtime(),
                sequence: 0,
                retry: false,
                packet: None,
                congestion_mark,
                needs_no_buffer: op.item.packet.is_control()
                    || op.item.packet.dst == op.item.next_hop
                    || self.hop_control.as_ref().is_some_and(|c| !c.counts(&op.item.packet)),
            }
        } else {
            mac.exchange = Exchange::WaitAck;
            op.data_attempts += 1;
            data_frame(node, op, data_airtime, timing.sifs + timing.ack_airtime())
        };
        self.mac_transmit(node, frame);
    }

    // ------------------------------------------------------ transmission

    /// Put a frame on the air: every node in carrier-sense range starts
    /// receiving it after its propagation delay.
    fn mac_transmit(&mut self, node: NodeId, frame: Frame) {
        let now = self.now();
        self.record(node, TraceWhat::Tx, &frame);
        let n = &mut self.nodes[node.index()];
        n.stats.frames_sent[frame.kind as usize] += 1;
        n.stats.tx_time_ns += frame.airtime.as_nanos();
        n.rx.start_transmit();
        n.mac.transmitting_kind = Some(frame.kind);
        self.arm(node, TimerKind::TxEnd, now + frame.airtime);
        // Moving nodes: the receivers and their links as of now, kept with
        // the frame for its receptions.
        let mobile = self.channel.is_mobile();
        let links = self.channel.neighbours_at(node, now);
        if !links.is_empty() {
            let slot = self.on_air.insert(frame, links.len() as u32);
            if mobile {
                self.on_air.store_links(slot, links);
            }
            for link in links {
                self.queue.schedule(now + link.delay, crate::world::Event::RxStart { node: link.node, frame: slot });
            }
        }
        self.mac_update_medium(node);
    }

    pub(crate) fn mac_tx_end(&mut self, node: NodeId) {
        let now = self.now();
        let n = &mut self.nodes[node.index()];
        n.rx.end_transmit();
        let sent = n.mac.transmitting_kind.take();
        match (sent, n.mac.exchange) {
            (Some(FrameKind::Rts), Exchange::WaitCts) => {
                let at = now + self.timing.response_timeout(self.timing.cts_airtime());
                self.arm(node, TimerKind::ResponseTimeout, at);
            }
            (Some(FrameKind::Data), Exchange::WaitAck) => {
                let at = now + self.timing.response_timeout(self.timing.ack_airtime());
                self.arm(node, TimerKind::ResponseTimeout, at);
            }
            (Some(FrameKind::Data), Exchange::Broadcast) => {
                self.nodes[node.index()].mac.exchange = Exchange::Idle;
                self.mac_finish_service(node, ServiceEnd::BroadcastSent);
            }
            _ => {} // a CTS or ACK we sent as a responder
        }
        self.mac_update_medium(node);
    }

    /// SIFS after a frame that asked for it: send the CTS, DATA or ACK.
    pub(crate) fn mac_send_response(&mut self, node: NodeId) {
        let mac = &mut self.nodes[node.index()].mac;
        let Some(frame) = mac.pending_response.take() else {
            return;
        };
        if frame.kind == FrameKind::Data {
            mac.exchange = Exchange::WaitAck;
        }
        self.mac_transmit(node, frame);
    }

    fn respond_after_sifs(&mut self, node: NodeId, frame: Frame) {
        let at = self.now() + self.timing.sifs;
        self.nodes[node.index()].mac.pending_response = Some(frame);
        self.arm(node, TimerKind::SendResponse, at);
    }

    fn set_nav(&mut self, node: NodeId, until: SimTime) {
        let mac = &mut self.nodes[node.index()].mac;
        if until > mac.nav_until {
            mac.nav_until = until;
            self.arm(node, TimerKind::NavEnd, until);
            self.mac_update_medium(node);
        }
    }

    // --------------------------------------------------------- reception

    /// A frame was decoded at `node`.
    fn mac_receive(&mut self, node: NodeId, frame: Frame) {
        let now = self.now();
        self.hop_heard(node, &frame);
        self.routing_heard(node, frame.transmitter);
        if frame.receiver != node && !frame.is_broadcast() {
            // Overheard: virtual carrier sense (10.3.2.4).
            self.set_nav(node, now + frame.duration);
            return;
        }
        match frame.kind {
            FrameKind::Rts => {
                let n = &self.nodes[node.index()];
                let may_answer = (n.mac.nav_until <= now || self.timing.cts_ignores_nav)
                    && n.mac.exchange == Exchange::Idle
                    && n.mac.pending_response.is_none()
                    && !n.rx.transmitting;
                let answer = if may_answer { self.hop_answer_rts(node, &frame) } else { RtsAnswer::Refuse };
                if answer != RtsAnswer::Refuse {
                    let cts_airtime = self.timing.cts_airtime();
                    let cts = Frame {
                        kind: FrameKind::Cts,
                        transmitter: node,
                        receiver: frame.transmitter,
                        duration: frame.duration - self.timing.sifs - cts_airtime,
                        airtime: cts_airtime,
                        sequence: 0,
                        retry: false,
                        packet: None,
                        congestion_mark: answer == RtsAnswer::Ctsc,
                        needs_no_buffer: false,
                    };
                    self.respond_after_sifs(node, cts);
                }
            }
            FrameKind::Cts => {
                let mac = &mut self.nodes[node.index()].mac;
                let expected = mac.exchange == Exchange::WaitCts && mac.op.is_some_and(|op| op.item.next_hop == frame.transmitter);
                if !expected {
                    return;
                }
                self.cancel(node, TimerKind::ResponseTimeout);
                let timing = &self.timing;
                let mac = &mut self.nodes[node.index()].mac;
                let op = mac.op.as_mut().expect("checked above");
                op.short_retries = 0; // 10.3.4.4: SRC resets when a CTS arrives
                op.data_attempts += 1;
                let airtime = timing.data_airtime(op.item.packet.size_bytes(), false);
                let data = data_frame(node, op, airtime, timing.sifs + timing.ack_airtime());
                self.respond_after_sifs(node, data);
            }
            FrameKind::Data => {
                let packet = frame.packet.expect("DATA carries a packet");
                if frame.is_broadcast() {
                    self.net_receive(node, packet, frame.transmitter);
                    return;
                }
                let ack = Frame {
                    kind: FrameKind::Ack,
                    transmitter: node,
                    receiver: frame.transmitter,
                    duration: SimDuration::ZERO,
                    airtime: self.timing.ack_airtime(),
                    sequence: 0,
                    retry: false,
                    packet: None,
                    congestion_mark: false,
                    needs_no_buffer: false,
                };
                self.respond_after_sifs(node, ack);
                let cache = &mut self.nodes[node.index()].mac.last_received_sequence;
                let duplicate = frame.retry && cache.get(&frame.transmitter) == Some(&frame.sequence);
                cache.insert(frame.transmitter, frame.sequence);
                if !duplicate {
                    self.net_receive(node, packet, frame.transmitter);
                }
            }
            FrameKind::Ack => {
                let mac = &self.nodes[node.index()].mac;
                let expected = mac.exchange == Exchange::WaitAck && mac.op.is_some_and(|op| op.item.next_hop == frame.transmitter);
                if expected {
                    self.cancel(node, TimerKind::ResponseTimeout);
                    self.nodes[node.index()].mac.exchange = Exchange::Idle;
                    self.mac_finish_service(node, ServiceEnd::Acknowledged);
                }
            }
        }
    }

    /// No CTS or ACK came back in time.
    pub(crate) fn mac_response_timeout(&mut self, node: NodeId) {
        let (short_limit, long_limit, cw_max) = (self.timing.short_retry_limit, self.timing.long_retry_limit, self.timing.cw_max);
        let mac = &mut self.nodes[node.index()].mac;
        let waited_for = mac.exchange;
        mac.exchange = Exchange::Idle;
        let Some(op) = mac.op.as_mut() else { return };
        let (next_hop, sent_at) = (op.item.next_hop, op.last_attempt_at);
        if waited_for == Exchange::WaitCts && self.hop_excuses_failure(node, next_hop, sent_at) {
            // Semi-TCP: the next hop announced its congestion; the attempt
            // does not count and the window stays (SPEC.md section 2).
            self.draw_backoff(node);
            self.mac_resume_after_timeout(node);
            return;
        }
        let mac = &mut self.nodes[node.index()].mac;
        let op = mac.op.as_mut().expect("checked above");
        let limit_reached = match waited_for {
            Exchange::WaitCts => {
                op.short_retries += 1;
                op.short_retries >= short_limit
            }
            Exchange::WaitAck if op.uses_rts => {
                op.long_retries += 1;
                op.long_retries >= long_limit
            }
            Exchange::WaitAck => {
                op.short_retries += 1;
                op.short_retries >= short_limit
            }
            Exchange::Idle | Exchange::Broadcast => return,
        };
        if limit_reached {
            self.mac_drop_at_retry_limit(node, waited_for == Exchange::WaitCts);
        } else {
            mac.cw = ((mac.cw + 1) * 2 - 1).min(cw_max);
            self.draw_backoff(node);
        }
        self.mac_resume_after_timeout(node);
    }

    /// The timeout ends a busy period for channel access (ns-3's
    /// ChannelAccessManager): the countdown restarts DIFS after it.
    fn mac_resume_after_timeout(&mut self, node: NodeId) {
        let now = self.now();
        let difs = self.timing.difs;
        let mac = &mut self.nodes[node.index()].mac;
        if !mac.medium_busy {
            mac.countdown_from = (now + difs).max(mac.eifs_until);
            self.mac_schedule_access(node);
        }
    }

    /// The head-of-line packet failed its last allowed attempt.
    fn mac_drop_at_retry_limit(&mut self, node: NodeId, rts_failed: bool) {
        let n = &mut self.nodes[node.index()];
        let op = n.mac.op.expect("a packet in service");
        if rts_failed {
            n.stats.rts_dropped += 1;
        } else {
            n.stats.data_dropped += 1;
        }
        n.stats.link_failures += 1;
        let next_hop = op.item.next_hop;
        // If the next hop did receive the DATA (only its ACKs were lost), the
        // packet lives on there: not a loss.
        if !self.mac_next_hop_has(node, &op) {
            let cause = match op.last_loss {
                AttemptLoss::ChannelError => DropCause::ChannelError,
                AttemptLoss::NoResponse => DropCause::RetryLimit,
            };
            // Ground truth: a next hop that moved out of decoding range
            // broke the route; it was not contention.
            let now = self.now();
            let moved_away = self.channel.positions_change() && !self.channel.decodable_at(node, next_hop, now);
            let cause = if moved_away { DropCause::RouteBreak } else { cause };
            self.drop_packet(node, &op.item.packet, cause);
        }
        self.net_link_failure(node, &op.item.packet, next_hop);
        self.mac_finish_service(node, ServiceEnd::Dropped);
    }

    /// Whether the next hop already received this DATA frame (its ACK was
    /// lost): ground truth for conservation, not something the sender knows.
    pub(crate) fn mac_next_hop_has(&self, node: NodeId, op: &TxOp) -> bool {
        op.data_attempts > 0
            && op.item.next_hop != super::BROADCAST
            && self.nodes[op.item.next_hop.index()].mac.last_received_sequence.get(&node) == Some(&op.sequence)
    }

    // ------------------------------------------------------------ service

    /// Hand a packet from the network layer to the MAC (drop-tail queue).
    pub(crate) fn mac_enqueue(&mut self, node: NodeId, item: Queued) {
        let now = self.now();
        let n = &mut self.nodes[node.index()];
        let pushed = if item.packet.is_control() { n.mac.queue.push_control(item) } else { n.mac.queue.push(item).map(|()| None) };
        match pushed {
            Ok(evicted) => {
                let len = n.mac.queue.len();
                n.stats.queue_changed(now, len);
                if let Some(evicted) = evicted {
                    self.drop_packet(node, &evicted.packet, DropCause::QueueOverflow);
                }
                self.mac_start_next(node);
                self.hop_update(node);
            }
            Err(item) => self.drop_packet(node, &item.packet, DropCause::QueueOverflow),
        }
    }

    /// Take the next packet into service if the MAC is free.
    fn mac_start_next(&mut self, node: NodeId) {
        let now = self.now();
        let timing = &self.timing;
        let n = &mut self.nodes[node.index()];
        if n.mac.op.is_some() {
            return;
        }
        let Some(item) = n.mac.queue.pop() else {
            return;
        };
        let len = n.mac.queue.len();
        n.stats.queue_changed(now, len);
        let broadcast = item.next_hop == super::BROADCAST;
        let mpdu_bytes = crate::wire::ieee80211::DATA_HEADER_BYTES + item.packet.size_bytes();
        let sequence = n.mac.next_sequence;
        n.mac.next_sequence = (sequence + 1) % 4096;
        n.mac.op = Some(TxOp {
            item,
            uses_rts: !broadcast && timing.uses_rts(mpdu_bytes),
            short_retries: 0,
            long_retries: 0,
            rts_attempts: 0,
            data_attempts: 0,
            head_since: now,
            sequence,
            last_loss: AttemptLoss::NoResponse,
            last_attempt_at: now,
        });
        if n.mac.backoff_slots.is_none() {
            if n.mac.medium_busy {
                self.draw_backoff(node);
            } else {
                // Immediate access: first slot boundary after DIFS.
                self.nodes[node.index()].mac.backoff_slots = Some(0);
            }
        }
        self.app_packet_entered_service(node, &item.packet);
        self.mac_schedule_access(node);
    }

    fn mac_finish_service(&mut self, node: NodeId, end: ServiceEnd) {
        let now = self.now();
        let cw_min = self.timing.cw_min;
        let n = &mut self.nodes[node.index()];
        let op = n.mac.op.take().expect("a packet in service");
        if end != ServiceEnd::BroadcastSent {
            let s = &mut n.stats;
            s.packets_served += 1;
            s.rts_attempts_total += op.rts_attempts as u64;
            s.data_attempts_total += op.data_attempts as u64;
            s.data_retries += op.data_attempts.saturating_sub(1) as u64;
            s.service_time_total_ns += now.since(op.head_since).as_nanos() as u128;
        }
        n.mac.cw = cw_min;
        if end != ServiceEnd::BroadcastSent {
            let done = TxDone {
                packet: op.item.packet,
                next_hop: op.item.next_hop,
                acknowledged: end == ServiceEnd::Acknowledged,
                service_time: now.since(op.head_since),
                rts_attempts: op.rts_attempts,
                data_attempts: op.data_attempts,
            };
            self.net_mac_tx_done(node, done);
        }
        self.draw_backoff(node); // post-backoff (10.3.4.3)
        self.mac_start_next(node);
        self.hop_update(node);
        self.mac_schedule_access(node);
    }
}

fn data_frame(node: NodeId, op: &TxOp, airtime: SimDuration, duration: SimDuration) -> Frame {
    Frame {
        kind: FrameKind::Data,
        transmitter: node,
        receiver: op.item.next_hop,
        duration,
        airtime,
        sequence: op.sequence,
        retry: op.data_attempts > 1,
        packet: Some(op.item.packet),
        congestion_mark: false,
        needs_no_buffer: false,
    }
}
