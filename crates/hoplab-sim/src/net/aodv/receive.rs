//! Processing received AODV messages: RREQ (RFC 3561 sections 6.5, 6.6),
//! RREP (6.7), HELLO (6.9), RERR (6.11 case (iii)); and sending control
//! packets.

use super::config::times;
use super::table::RouteInfo;
use super::{AodvNode, AodvTimer, Out, PendingSend, SeqNumber, CONTROL_FLOW};
use crate::net::routing::{RoutingContext, RoutingOutput};
use crate::time::{SimDuration, SimTime};
use crate::wire::aodv::{AodvMessage, Rerr, Rrep, Rreq, RERR_INLINE_DESTINATIONS};
use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES, UDP_HEADER_BYTES};

impl AodvNode {
    /// A routing packet from neighbour `from` arrived.
    pub(crate) fn receive(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let Some(&message) = packet.aodv() else { return };
        match message {
            AodvMessage::Rreq(q) => self.receive_rreq(now, q, packet.ttl, from, ctx, out),
            AodvMessage::Rrep(p) if p.is_hello() => self.receive_hello(now, p, from, ctx, out),
            AodvMessage::Rrep(p) => self.receive_rrep(now, p, from, ctx, out),
            AodvMessage::Rerr(e) => self.receive_rerr(now, e, from, ctx, out),
        }
    }

    /// Sections 6.2, 6.5, 6.7: a control packet from `from` gives a route
    /// to that neighbour (no sequence number learnt).
    fn heard_neighbour(&mut self, now: SimTime, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let until = now + self.config.active_route_timeout();
        if self.table.heard_neighbour(from, now, until) {
            self.release(now, from, ctx, out);
        }
    }

    /// Section 6.5: process (and answer or forward) a RREQ received with
    /// IP TTL `ttl`.
    fn receive_rreq(&mut self, now: SimTime, q: Rreq, ttl: u8, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let node = ctx.node;
        // 6.8: RREQs from blacklisted neighbours are ignored.
        if self.neighbours.is_blacklisted(from, now) {
            return;
        }
        self.heard_neighbour(now, from, ctx, out);
        let p = &self.config;
        if q.orig == node || self.id_cache.seen_or_insert(q.orig, q.id, now, p.path_discovery_time()) {
            return; // 6.5: already seen within PATH_DISCOVERY_TIME
        }
        let hops = q.hop_count.saturating_add(1);
        // The reverse route (6.5): lifetime at least now + 2 *
        // NET_TRAVERSAL_TIME - 2 * HopCount * NODE_TRAVERSAL_TIME.
        let minimal = now + (times(p.net_traversal_time(), 2) - times(p.node_traversal_time(), 2 * hops as u64));
        let info = RouteInfo { seq: q.orig_seq, hops, next_hop: from, lifetime: minimal };
        let reverse_taken = self.table.offer(q.orig, info, now, true);
        if !reverse_taken {
            self.table.refresh(q.orig, now, minimal);
        }
        if reverse_taken {
            self.ns2_requests_answered(q.orig, hops, false);
            self.release(now, q.orig, ctx, out);
        }
        let p = &self.config;
        if q.dst == node {
            // 6.6.1 and 6.1: the destination's number becomes at least the
            // one asked for, then it answers with MY_ROUTE_TIMEOUT.
            if !q.unknown_seq {
                self.own_seq = self.own_seq.max(q.dst_seq);
            }
            let rrep = Rrep {
                ack_required: false,
                hop_count: 0,
                dst: node,
                dst_seq: self.own_seq,
                orig: q.orig,
                lifetime_ms: duration_ms(p.my_route_timeout()),
            };
            return self.send_rrep(now, rrep, ctx, out);
        }
        // 6.6 (ii): an intermediate node with a fresh enough active route
        // answers, unless the RREQ says 'D' (or its route leads back to the
        // sender: see the module doc).
        let fresh =
            self.table.valid(q.dst, now).filter(|e| e.seq_valid && (q.unknown_seq || e.seq.diff(q.dst_seq) >= 0) && e.next_hop != from);
        if let (false, Some(e)) = (q.destination_only, fresh) {
            // 6.6.2
            let (dst_seq, dst_hops, dst_next_hop, remaining) = (e.seq, e.hops, e.next_hop, e.lifetime.since(now));
            self.table.add_precursor(q.dst, from, now);
            self.table.add_precursor(q.orig, dst_next_hop, now);
            let rrep =
                Rrep { ack_required: false, hop_count: dst_hops, dst: q.dst, dst_seq, orig: q.orig, lifetime_ms: duration_ms(remaining) };
            self.send_rrep(now, rrep, ctx, out);
            if q.gratuitous {
                // 6.6.3: tell the destination the way back to the originator.
                if let Some(back) = self.table.valid(q.orig, now) {
                    let grat = Rrep {
                        ack_required: false,
                        hop_count: back.hops,
                        dst: q.orig,
                        dst_seq: q.orig_seq,
                        orig: q.dst,
                        lifetime_ms: duration_ms(back.lifetime.since(now)),
                    };
                    self.send_rrep(now, grat, ctx, out);
                }
            }
            return;
        }
        // 6.5: forward with TTL - 1, the hop count incremented and the
        // destination sequence number at least the one known here.
        if ttl <= 1 {
            return;
        }
        let mut forward = q;
        forward.hop_count = hops;
        if let Some(e) = self.table.get(q.dst, now).filter(|e| e.seq_valid) {
            forward.dst_seq = if q.unknown_seq { e.seq } else { q.dst_seq.max(e.seq) };
            forward.unknown_seq = false;
        }
        self.send_control(now, AodvMessage::Rreq(forward), NodeId::BROADCAST, ttl - 1, true, ctx, out);
    }

    /// Unicast a RREP toward its originator along the reverse route (6.6,
    /// 6.7); dropped if the reverse route is gone.
    fn send_rrep(&mut self, now: SimTime, rrep: Rrep, ctx: &mut RoutingContext, out: &mut Out) {
        let Some(next_hop) = self.table.next_hop(rrep.orig, now) else {
            self.stats.control_drops += 1;
            return;
        };
        // 6.7: the destination's precursors get the RREP's next hop; the
        // reverse route lives at least ACTIVE_ROUTE_TIMEOUT more.
        if rrep.dst != ctx.node {
            self.table.add_precursor(rrep.dst, next_hop, now);
        }
        self.table.refresh(rrep.orig, now, now + self.config.active_route_timeout());
        let ttl = self.config.net_diameter();
        self.send_control(now, AodvMessage::Rrep(rrep), next_hop, ttl, false, ctx, out);
    }

    /// Section 6.7: a RREP from `from`.
    fn receive_rrep(&mut self, now: SimTime, rrep: Rrep, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        self.heard_neighbour(now, from, ctx, out);
        let hops = rrep.hop_count.saturating_add(1);
        let lifetime = now + SimDuration::from_nanos(rrep.lifetime_ms as u64 * 1_000_000);
        let info = RouteInfo { seq: rrep.dst_seq, hops, next_hop: from, lifetime };
        let taken = self.table.offer(rrep.dst, info, now, false);
        if taken && rrep.orig == ctx.node {
            self.record_traversal(now, rrep.dst, hops);
        }
        if taken {
            self.ns2_requests_answered(rrep.dst, hops, true);
            self.release(now, rrep.dst, ctx, out);
        }
        if rrep.orig == ctx.node || !taken {
            return; // arrived, or not better than what we know: not forwarded
        }
        let Some(back) = self.table.next_hop(rrep.orig, now) else {
            self.stats.control_drops += 1;
            return;
        };
        // Precursors both ways (6.7; ns-2 and ns-3 add the reverse too).
        self.table.add_precursor(from, back, now);
        self.table.add_precursor(rrep.orig, from, now);
        let forward = Rrep { hop_count: hops, ..rrep };
        self.send_rrep(now, forward, ctx, out);
    }

    /// Section 6.9: a HELLO from neighbour `from`.
    fn receive_hello(&mut self, now: SimTime, hello: Rrep, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let until = now + self.config.hello_loss_time();
        self.neighbours.hello_from(from, now);
        let became_valid = self.table.heard_neighbour(from, now, until);
        if let Some(e) = self.table.get_mut(from, now) {
            e.seq = if e.seq_valid { e.seq.max(hello.dst_seq) } else { hello.dst_seq };
            e.seq_valid = true;
        }
        if became_valid {
            self.release(now, from, ctx, out);
        }
    }

    /// Section 6.11 case (iii): a RERR from neighbour `from`. Routes through
    /// `from` to the listed destinations are invalidated; those some
    /// neighbour still uses go on in a new RERR. With 'N' (6.12) nothing is
    /// invalidated: the RERR is passed on if it came from the next hop.
    fn receive_rerr(&mut self, now: SimTime, rerr: Rerr, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let mut onward: Vec<(NodeId, SeqNumber)> = Vec::new();
        for &(dst, seq) in rerr.unreachable() {
            if dst == ctx.node {
                continue;
            }
            if rerr.no_delete {
                if let Some(e) = self.table.valid(dst, now).filter(|e| e.next_hop == from && !e.precursors.is_empty()) {
                    onward.push((dst, e.seq));
                }
                continue;
            }
            if let Some(lost) = self.table.rerr_invalidate(from, dst, seq, now) {
                *self.stats.errors_received.entry(dst).or_default() += 1;
                if lost.has_precursors {
                    onward.push((dst, lost.seq));
                }
            }
        }
        if !onward.is_empty() {
            self.send_rerr(now, &onward, rerr.no_delete, ctx, out);
        }
    }

    /// Broadcast RERRs (TTL 1) for `unreachable`, several if they do not fit
    /// in one; each counts against RERR_RATELIMIT (6.11).
    pub(crate) fn send_rerr(
        &mut self,
        now: SimTime,
        unreachable: &[(NodeId, SeqNumber)],
        no_delete: bool,
        ctx: &mut RoutingContext,
        out: &mut Out,
    ) {
        for chunk in unreachable.chunks(RERR_INLINE_DESTINATIONS) {
            if self.rerr_rate.next_allowed(now, self.config.rerr_ratelimit) > now {
                self.stats.errors_rate_limited += 1;
                continue;
            }
            self.rerr_rate.record(now);
            let mut rerr = Rerr::new(no_delete);
            for &(dst, seq) in chunk {
                rerr.push(dst, seq);
            }
            self.send_control(now, AodvMessage::Rerr(rerr), NodeId::BROADCAST, 1, false, ctx, out);
        }
    }

    /// Send a routing packet to `next_hop` (or broadcast) with IP TTL
    /// `ttl`, after a jitter from the node's routing stream if asked.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send_control(
        &mut self,
        now: SimTime,
        message: AodvMessage,
        next_hop: NodeId,
        ttl: u8,
        jitter: bool,
        ctx: &mut RoutingContext,
        out: &mut Out,
    ) {
        let packet = Packet {
            uid: ctx.new_uid(),
            kind: PacketKind::Control,
            flow: CONTROL_FLOW,
            sequence: 0,
            src: ctx.node,
            dst: next_hop,
            payload_bytes: message.buffer_len(),
            header_bytes: UDP_HEADER_BYTES + IP_HEADER_BYTES,
            created: now,
            ttl,
            transport: TransportHeader::Udp,
            routing: RoutingHeader::Aodv(message),
        };
        let max_jitter = self.config.broadcast_jitter();
        if jitter && max_jitter > SimDuration::ZERO {
            let draw = self.rng.uniform_f64();
            let delay = SimDuration::from_nanos((draw * max_jitter.as_nanos() as f64) as u64);
            let slot = self.pending.park(PendingSend { packet, next_hop });
            out.push(RoutingOutput::Timer { id: AodvTimer::Send(slot).id(), at: now + delay });
        } else {
            self.transmit_control(now, packet, next_hop, ctx, out);
        }
    }

    /// A parked (jittered) control packet's time has come.
    pub(crate) fn send_parked(&mut self, now: SimTime, slot: u32, ctx: &mut RoutingContext, out: &mut Out) {
        if let Some(send) = self.pending.unpark(slot) {
            self.transmit_control(now, send.packet, send.next_hop, ctx, out);
        }
    }

    fn transmit_control(&mut self, now: SimTime, packet: Packet, next_hop: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let message = packet.aodv().copied();
        if let Some(m) = message {
            self.stats.message_sent(m.name());
        }
        let s = &mut self.stats;
        s.control_bytes_sent += packet.size_bytes() as u64;
        if now >= ctx.warmup {
            s.window_control_bytes_sent += packet.size_bytes() as u64;
        }
        let hello = matches!(message, Some(AodvMessage::Rrep(r)) if r.is_hello());
        if next_hop == NodeId::BROADCAST && !hello {
            self.last_broadcast = Some(now);
        }
        out.push(RoutingOutput::Send { packet, next_hop });
    }
}

fn duration_ms(d: SimDuration) -> u32 {
    (d.as_nanos() / 1_000_000).min(u32::MAX as u64) as u32
}
