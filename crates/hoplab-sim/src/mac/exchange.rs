//! Frame exchange (IEEE 802.11-2016 10.3.2.5 - 10.3.2.9, 10.3.4.4):
//! RTS -> CTS -> DATA -> ACK separated by SIFS, broadcast DATA alone; the
//! short retry count (SRC) counts failed RTS (and failed DATA sent without
//! RTS) up to `short_retry_limit`, reset when a CTS arrives; the long retry
//! count (LRC) counts failed DATA sent after a CTS up to `long_retry_limit`;
//! CW doubles on each failure and resets on success or drop. A station
//! answers an RTS with a CTS only if its NAV is idle and it is not in an
//! exchange of its own; it always answers a DATA with an ACK; retransmitted
//! duplicates are acknowledged and discarded.
//!
//! ns-2 variants (keys of `[mac]`, set by `preset = "ns2"`):
//! `eifs_sets_nav` (a frame received in error sets the NAV to EIFS),
//! `cts_check_at_sifs` (the answer to an RTS is decided SIFS after it, and
//! only if the medium is idle then).
//!
//! Simplifications (docs/model-fidelity.md): no NAV reset after an RTS
//! without a following DATA (10.3.2.4 allows it; ns-2 does not do it
//! either); no fragmentation; one sequence-number counter per station.

use super::access::put_data_frame;
use super::hop_control::{HopControl, RtsAnswer};
use super::service::ServiceEnd;
use super::{Exchange, Frame, FrameKind, Mac, MacContext, MacIndication, MacOutput, MacOutputs, MacTimer, Reply, Response, Resume, RtsHeard};
use crate::time::{SimDuration, SimTime};

impl Mac {
    /// Put the frame just written to `self.on_air` on the air (the world
    /// hands it to the PHY and the channel). Each caller writes the frame
    /// there itself rather than passing it: a frame is 232 bytes, and each
    /// move of one through a call is a copy (docs/performance.md).
    pub(crate) fn transmit_on_air(&mut self, out: &mut MacOutputs) {
        let frame = self.on_air.as_ref().expect("the frame to send, written in place");
        self.stats.frames_sent[frame.kind as usize] += 1;
        self.stats.tx_time_ns += frame.airtime.as_nanos();
        out.push(MacOutput::Transmit);
    }

    /// The PHY finished sending our frame.
    pub(crate) fn tx_end(&mut self, now: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        // What is read of the frame (not the frame: 232 bytes).
        let sent = self.on_air.as_ref().map(|f| (f.kind, f.receiver, f.duration, f.congestion_mark));
        self.on_air = None;
        match (sent.map(|(kind, ..)| kind), self.exchange) {
            (Some(FrameKind::Rts), Exchange::WaitCts) => {
                // Semi-TCP as ns-2 runs it (`cts_timeout_covers_rtsc`): long
                // enough for a refusal RTSC (check_pktRTS, mac-802_11.cc:1035-1043).
                let response = if self.hop.cts_wait_covers_rtsc() { ctx.timing.rts_airtime() } else { ctx.timing.cts_airtime() };
                let at = now + ctx.timing.response_timeout(response);
                self.arm(MacTimer::ResponseTimeout, at, ctx);
            }
            (Some(FrameKind::Data), Exchange::WaitAck) => {
                let at = now + ctx.timing.response_timeout(ctx.timing.ack_airtime());
                self.arm(MacTimer::ResponseTimeout, at, ctx);
            }
            (Some(FrameKind::Data), Exchange::Broadcast) => {
                self.exchange = Exchange::Idle;
                self.finish_service(now, ServiceEnd::BroadcastSent, false, ctx, out);
            }
            // A CTS or ACK we sent as a responder.
            (Some(FrameKind::Cts), _) => {
                let (_, receiver, duration, congestion_mark) = sent.expect("matched");
                if congestion_mark && self.hop.awaits_data_after_ctsc() {
                    // ns-2 check_pktCTRL (mac-802_11.cc:953-958): the DATA
                    // must have arrived by then.
                    let data_airtime = duration - ctx.timing.sifs * 2 - ctx.timing.ack_airtime();
                    self.awaiting_data = Some(receiver);
                    self.arm(MacTimer::DataWait, now + ctx.timing.response_timeout(data_airtime), ctx);
                }
            }
            (Some(FrameKind::Ack), _) => {
                // Semi-TCP (ns-2 send_timer, mac-802_11.cc:831-839): an ACK
                // to a neighbour this node helped releases a parked packet.
                let (_, to, ..) = sent.expect("matched");
                if self.parked_alone().is_some() && self.hop.ack_sent(to) {
                    self.hop_unpark(now, ctx);
                }
            }
            _ => {}
        }
    }

    /// SIFS after a frame that asked for it: send the CTS, DATA or ACK, or
    /// decide the answer to an RTS now (`cts_check_at_sifs`).
    pub(crate) fn send_response(&mut self, now: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        // Cleared before anything else (every variant is a few words).
        let Some(response) = self.pending_response.take() else {
            return;
        };
        match response {
            Response::SendData => {
                self.exchange = Exchange::WaitAck;
                // The DATA the CTS asked for, written from the service
                // onto the air: one copy of the packet (`put_data_frame`).
                let op = self.op.as_ref().expect("the packet in service whose CTS came");
                let airtime = ctx.timing.data_airtime(op.item.packet.size_bytes(), false);
                put_data_frame(&mut self.on_air, self.node, op, airtime, ctx.timing.sifs + ctx.timing.ack_airtime());
                self.transmit_on_air(out);
            }
            Response::Reply(reply) => {
                self.on_air = Some(reply.frame(self.node));
                self.transmit_on_air(out);
            }
            Response::AnswerRts(rts) => {
                // ns-2 check_pktCTRL (mac-802_11.cc:883-893): no CTS unless
                // the medium is idle now ("Hinden terminal"); the backoff
                // the RTS interrupted goes on.
                let nav_idle = self.nav_until <= now || ctx.timing.cts_ignores_nav;
                if ctx.phy.is_busy() || !nav_idle {
                    self.schedule_access(now, ctx);
                    return;
                }
                // The refusal is decided now too (896: `refuse(last_rts_frame)`).
                let own_head = self.op.as_ref().or(self.parked.as_ref()).map(|op| &op.item);
                match self.hop.answer_rts(&rts, own_head) {
                    answer @ (RtsAnswer::Cts | RtsAnswer::Ctsc) => {
                        self.on_air = Some(cts_answering(&rts, answer == RtsAnswer::Ctsc, ctx).frame(self.node));
                        self.transmit_on_air(out);
                    }
                    RtsAnswer::Refuse => self.schedule_access(now, ctx),
                    RtsAnswer::RefuseWithRtsc => self.refusal_rts(now, ctx, out),
                }
            }
            Response::RefusalRts => {
                // ns-2 check_pktRTS (mac-802_11.cc:1028): only on an idle
                // medium, NAV included.
                if ctx.phy.is_busy() || self.nav_until > now {
                    self.schedule_access(now, ctx);
                } else {
                    self.refusal_rts(now, ctx, out);
                }
            }
        }
    }

    /// Semi-TCP as ns-2 refuses (`refusal_rtsc`): the congested node sends
    /// its own RTS(C) now, SIFS after the RTS it refused, dropping what
    /// remains of its backoff (`check_pktCTRL`, mac-802_11.cc:905-924); a
    /// parked packet is taken back for it with one more short retry (916).
    /// A packet sent without RTS (broadcast) goes instead (923-926).
    fn refusal_rts(&mut self, now: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        let taken_back = self.parked_alone().is_some();
        if taken_back && self.op.is_none() {
            self.op = self.parked.take();
        }
        let Some(op) = self.op.as_mut() else {
            return self.schedule_access(now, ctx);
        };
        if taken_back {
            op.short_retries += 1;
            self.hop.unpark();
            self.cancel(MacTimer::HoldRelease, ctx);
        }
        if self.access_armed {
            self.cancel(MacTimer::Access, ctx);
        }
        self.backoff_slots = None;
        self.attempt(now, ctx, out);
    }

    #[inline]
    fn respond_after_sifs(&mut self, now: SimTime, response: Response, ctx: &mut MacContext) {
        self.pending_response = Some(response);
        self.arm(MacTimer::SendResponse, now + ctx.timing.sifs, ctx);
    }

    /// The frame the PHY was locked onto ended: decoded or not.
    pub(crate) fn rx_end(&mut self, now: SimTime, frame: &Frame, decoded: bool, ctx: &mut MacContext, out: &mut MacOutputs) {
        if decoded {
            if !ctx.timing.eifs_sets_nav {
                self.eifs_until = SimTime::ZERO;
            }
            self.receive(now, frame, ctx, out);
        } else if ctx.timing.eifs_sets_nav {
            // ns-2 recv_timer: a collision or an error sets the NAV to EIFS
            // (mac-802_11.cc:1710, 1722), except while the node transmits
            // (1691-1694: it "would never have seen it").
            if !ctx.phy.is_transmitting() {
                self.set_nav(now, now + ctx.timing.eifs, ctx);
            }
        } else {
            // 10.3.2.3.7: after a frame received in error, wait EIFS.
            self.eifs_until = now + ctx.timing.eifs;
        }
    }

    /// A frame was decoded.
    fn receive(&mut self, now: SimTime, frame: &Frame, ctx: &mut MacContext, out: &mut MacOutputs) {
        self.hop_heard(now, frame, ctx, out);
        out.indicate(MacIndication::Heard { from: frame.transmitter });
        if frame.receiver != self.node && !frame.is_broadcast() {
            // Overheard: virtual carrier sense (10.3.2.4).
            self.set_nav(now, now + frame.duration, ctx);
            if self.promiscuous && frame.kind == FrameKind::Data {
                out.indicate(MacIndication::Overheard { from: frame.transmitter });
            }
            return;
        }
        match frame.kind {
            FrameKind::Rts => {
                let free = self.exchange == Exchange::Idle && self.pending_response.is_none() && !ctx.phy.is_transmitting();
                if ctx.timing.cts_check_at_sifs {
                    // ns-2 recvRTS (mac-802_11.cc:1823-1836): busy in an
                    // exchange or answering someone: ignored; otherwise the
                    // answer is decided SIFS later (`send_response`).
                    if free {
                        self.respond_after_sifs(now, Response::AnswerRts(RtsHeard::of(frame)), ctx);
                    }
                    return;
                }
                // 10.3.2.6: a CTS only if the NAV is idle.
                let may_answer = free && (self.nav_until <= now || ctx.timing.cts_ignores_nav);
                let own_head = self.op.as_ref().or(self.parked.as_ref()).map(|op| &op.item);
                let rts = RtsHeard::of(frame);
                let answer = if may_answer { self.hop.answer_rts(&rts, own_head) } else { RtsAnswer::Refuse };
                match answer {
                    RtsAnswer::Cts => self.respond_after_sifs(now, Response::Reply(cts_answering(&rts, false, ctx)), ctx),
                    RtsAnswer::Ctsc => self.respond_after_sifs(now, Response::Reply(cts_answering(&rts, true, ctx)), ctx),
                    RtsAnswer::Refuse => {}
                    RtsAnswer::RefuseWithRtsc => self.respond_after_sifs(now, Response::RefusalRts, ctx),
                }
            }
            FrameKind::Cts => {
                let expected = self.exchange == Exchange::WaitCts && self.op.is_some_and(|op| op.item.next_hop == frame.transmitter);
                if !expected {
                    return;
                }
                self.cancel(MacTimer::ResponseTimeout, ctx);
                self.hop.cts_received(frame.transmitter, frame.congestion_mark);
                let op = self.op.as_mut().expect("checked above");
                op.short_retries = 0; // 10.3.4.4: SRC resets when a CTS arrives
                op.data_attempts += 1;
                self.respond_after_sifs(now, Response::SendData, ctx);
            }
            FrameKind::Data => {
                if frame.is_broadcast() {
                    out.indicate(MacIndication::Delivered { from: frame.transmitter });
                    return;
                }
                if self.awaiting_data.take().is_some() {
                    self.cancel(MacTimer::DataWait, ctx); // the CTSC was used
                }
                let ack =
                    Reply { kind: FrameKind::Ack, to: frame.transmitter, duration: SimDuration::ZERO, airtime: ctx.timing.ack_airtime(), congestion_mark: false };
                self.respond_after_sifs(now, Response::Reply(ack), ctx);
                let duplicate = frame.retry && self.last_received_sequence.get(&frame.transmitter) == Some(&frame.sequence);
                self.last_received_sequence.insert(frame.transmitter, frame.sequence);
                if !duplicate {
                    out.indicate(MacIndication::Delivered { from: frame.transmitter });
                }
            }
            FrameKind::Ack => {
                let expected = self.exchange == Exchange::WaitAck && self.op.is_some_and(|op| op.item.next_hop == frame.transmitter);
                if expected {
                    self.cancel(MacTimer::ResponseTimeout, ctx);
                    self.hop.data_acked(frame.transmitter);
                    self.exchange = Exchange::Idle;
                    self.finish_service(now, ServiceEnd::Acknowledged, false, ctx, out);
                }
            }
        }
    }

    /// No CTS or ACK came back in time.
    pub(crate) fn response_timeout(&mut self, now: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        let timing = ctx.timing;
        let waited_for = self.exchange;
        self.exchange = Exchange::Idle;
        let Some(op) = self.op else { return };
        let (next_hop, sent_at) = (op.item.next_hop, op.last_attempt_at);
        if waited_for == Exchange::WaitCts && self.hop.excuses_failure(next_hop, sent_at) {
            // Semi-TCP: the next hop announced its congestion; the attempt
            // does not count and the window stays (docs/semitcp-2018.md).
            self.draw_backoff();
            self.resume_after_timeout(now, ctx);
            return;
        }
        let op = self.op.as_mut().expect("checked above");
        let limit_reached = match waited_for {
            Exchange::WaitCts => {
                op.short_retries += 1;
                op.short_retries >= timing.short_retry_limit
            }
            Exchange::WaitAck if op.uses_rts => {
                op.long_retries += 1;
                op.long_retries >= timing.long_retry_limit
            }
            Exchange::WaitAck => {
                op.short_retries += 1;
                op.short_retries >= timing.short_retry_limit
            }
            Exchange::Idle | Exchange::Broadcast => return,
        };
        if limit_reached {
            // The layers above react (routing takes back what waits for
            // this next hop) before the service ends: resumed in
            // `finish_service`, which then ends the timeout's busy period.
            let op = *op;
            if waited_for == Exchange::WaitCts {
                self.stats.rts_dropped += 1;
            } else {
                self.stats.data_dropped += 1;
            }
            self.stats.link_failures += 1;
            let packet = out.packet(op.item.packet);
            out.indicate(MacIndication::RetryLimit {
                packet,
                next_hop: op.item.next_hop,
                sequence: op.sequence,
                data_attempts: op.data_attempts,
                last_loss: op.last_loss,
            });
            out.push(MacOutput::Resume(Resume::AfterRetryLimit));
            return;
        }
        self.cw = ((self.cw + 1) * 2 - 1).min(timing.cw_max);
        self.draw_backoff();
        self.resume_after_timeout(now, ctx);
    }
}

/// The CTS (a CTSC with `congestion_mark`) answering `rts`: its Duration is
/// the RTS's minus SIFS and its own airtime (10.3.2.6).
fn cts_answering(rts: &RtsHeard, congestion_mark: bool, ctx: &MacContext) -> Reply {
    let airtime = ctx.timing.cts_airtime();
    Reply { kind: FrameKind::Cts, to: rts.transmitter, duration: rts.duration - ctx.timing.sifs - airtime, airtime, congestion_mark }
}
