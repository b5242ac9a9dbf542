//! The interface queue and the packet in service: a packet from the network
//! layer is queued (or dropped by the queue discipline), taken into service
//! when the MAC is free, and leaves service acknowledged, sent (broadcast)
//! or dropped at the retry limit, after which the next one is served.

use super::hop_control::HopControl;
use super::{AttemptLoss, Mac, MacContext, MacIndication, MacOutput, MacOutputs, Resume, ServiceTail, TxDone, TxOp, BROADCAST};
use crate::queue::{Admission, QueueDisc, Queued};
use crate::time::SimTime;
use crate::wire::ieee80211::DATA_HEADER_BYTES;

/// How the service of the head-of-line packet ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceEnd {
    Acknowledged,
    BroadcastSent,
    Dropped,
}

impl Mac {
    /// A packet from the network layer.
    pub(crate) fn enqueue(&mut self, now: SimTime, item: Queued, ctx: &mut MacContext, out: &mut MacOutputs) {
        let evicted = match self.queue.enqueue(now, item, &mut self.queue_rng) {
            Admission::Queued => None,
            Admission::QueuedEvicting { evicted, cause } => {
                self.stats.queue_drops.count(cause);
                Some((evicted, cause))
            }
            Admission::Dropped { item, cause } => {
                self.stats.queue_drops.count(cause);
                let packet = out.packet(item.packet);
                out.indicate(MacIndication::Dropped { packet, cause });
                return;
            }
        };
        let len = self.queue.len();
        self.stats.queue_changed(now, len);
        if let Some((evicted, cause)) = evicted {
            let packet = out.packet(evicted.packet);
            out.indicate(MacIndication::Dropped { packet, cause });
        }
        if !self.start_next(now, ServiceTail::Enqueued, ctx, out) {
            self.held_changed(out);
        }
    }

    /// Take the next packet into service if the MAC is free: true if one
    /// entered (the step then ends; `after_service_start` goes on with
    /// `tail` once the layers above have seen it).
    pub(crate) fn start_next(&mut self, now: SimTime, tail: ServiceTail, ctx: &mut MacContext, out: &mut MacOutputs) -> bool {
        if self.op.is_some() {
            return false;
        }
        if self.parked.is_some() {
            // Semi-TCP (`parked_lets_routing_out`): a packet parked aside
            // returns to service once released; until then only routing
            // packets pass it (ns-2 tx_resume, mac-802_11.cc:666-682).
            if !self.hop.is_parked() {
                self.op = self.parked.take();
                return false;
            }
            if !self.queued().next().is_some_and(|q| q.packet.is_control()) {
                return false;
            }
        }
        // The packet is read where it lies and moved once, into service
        // (bound out of the `Option` first, it would be copied twice).
        let next = self.queue.dequeue(now);
        let Some(item) = &next else {
            return false;
        };
        let len = self.queue.len();
        self.stats.queue_changed(now, len);
        let broadcast = item.next_hop == BROADCAST;
        let mpdu_bytes = DATA_HEADER_BYTES + item.packet.size_bytes();
        let info = item.packet.info();
        let sequence = self.next_sequence;
        self.next_sequence = (sequence + 1) % 4096;
        let uses_rts = !broadcast && ctx.timing.uses_rts(mpdu_bytes);
        self.op = next.map(|item| TxOp {
            item,
            uses_rts,
            short_retries: 0,
            long_retries: 0,
            rts_attempts: 0,
            data_attempts: 0,
            head_since: now,
            sequence,
            last_loss: AttemptLoss::NoResponse,
            last_attempt_at: now,
        });
        if self.backoff_slots.is_none() {
            if self.medium_busy {
                self.draw_backoff();
            } else {
                self.first_access(now, ctx);
            }
        }
        out.indicate(MacIndication::ServiceStarted { packet: info });
        out.push(MacOutput::Resume(Resume::AfterServiceStart(tail)));
        true
    }

    /// The packet that entered service has been seen above: contend, then
    /// finish the step that took it in.
    pub(crate) fn after_service_start(&mut self, now: SimTime, tail: ServiceTail, ctx: &mut MacContext, out: &mut MacOutputs) {
        self.hop_defers_new_packet(now, ctx, out);
        self.schedule_access(now, ctx);
        self.held_changed(out);
        if let ServiceTail::ServiceEnded { after_timeout } = tail {
            self.after_next_started(now, after_timeout, ctx);
        }
    }

    /// The packet in service leaves it. A unicast packet's end goes up as
    /// `TxDone`, and the MAC resumes (`after_service_end`) once the layers
    /// above have reacted.
    pub(crate) fn finish_service(
        &mut self,
        now: SimTime,
        end: ServiceEnd,
        after_timeout: bool,
        ctx: &mut MacContext,
        out: &mut MacOutputs,
    ) {
        let op = self.op.take().expect("a packet in service");
        self.cw = ctx.timing.cw_min;
        if end == ServiceEnd::BroadcastSent {
            return self.after_service_end(now, after_timeout, ctx, out);
        }
        let service_time = now.since(op.head_since);
        self.stats.packet_served(service_time, op.rts_attempts, op.data_attempts);
        out.indicate(MacIndication::TxDone(TxDone {
            packet: op.item.packet.info(),
            next_hop: op.item.next_hop,
            acknowledged: end == ServiceEnd::Acknowledged,
            service_time,
            rts_attempts: op.rts_attempts,
            data_attempts: op.data_attempts,
        }));
        out.push(MacOutput::Resume(Resume::AfterServiceEnd { after_timeout }));
    }

    /// Post-backoff (10.3.4.3), then the next packet.
    pub(crate) fn after_service_end(&mut self, now: SimTime, after_timeout: bool, ctx: &mut MacContext, out: &mut MacOutputs) {
        self.draw_backoff();
        if !self.start_next(now, ServiceTail::ServiceEnded { after_timeout }, ctx, out) {
            self.held_changed(out);
            // Not while a packet waits parked aside (ns-2 tx_resume,
            // mac-802_11.cc:668-682: no pull with pktPre_ and an empty queue).
            if self.op.is_none() && self.parked.is_none() && self.queue.is_empty() {
                out.indicate(MacIndication::QueueDrained);
            }
            self.after_next_started(now, after_timeout, ctx);
        }
    }

    /// The end of a service's aftermath: contend (a timeout's busy period
    /// has ended).
    fn after_next_started(&mut self, now: SimTime, after_timeout: bool, ctx: &mut MacContext) {
        if after_timeout {
            self.resume_after_timeout(now, ctx);
        } else {
            self.schedule_access(now, ctx);
        }
    }

    /// The data held changed: semi-TCP re-evaluates congestion at the end
    /// of the event.
    pub(crate) fn held_changed(&self, out: &mut MacOutputs) {
        if self.hop.is_enabled() {
            out.indicate(MacIndication::HeldChanged);
        }
    }
}
