//! Processing received AODV messages (impl World): RREQ (RFC 3561 sections
//! 6.5, 6.6), RREP (6.7), HELLO (6.9), RERR (6.11 case (iii)), and sending
//! control packets.

use super::config::times;
use crate::wire::aodv::{AodvMessage, Rerr, Rrep, Rreq};
use super::table::RouteInfo;
use super::{PendingSend, RoutingTimerKind, CONTROL_FLOW};
use crate::mac::BROADCAST;
use crate::net::{NodeId, Packet, PacketKind, IP_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::time::SimDuration;
use crate::world::{Event, Layer, World};

impl World {
    /// A routing packet from neighbour `from` reached `node`.
    pub(crate) fn aodv_receive(&mut self, node: NodeId, packet: Packet, from: NodeId) {
        let Some(&message) = packet.aodv() else { return };
        match message {
            AodvMessage::Rreq(q) => self.aodv_receive_rreq(node, q, packet.ttl, from),
            AodvMessage::Rrep(p) if p.is_hello() => self.aodv_receive_hello(node, p, from),
            AodvMessage::Rrep(p) => self.aodv_receive_rrep(node, p, from),
            AodvMessage::Rerr(e) => self.aodv_receive_rerr(node, e, from),
        }
    }

    /// Sections 6.2, 6.5, 6.7: a control packet from `from` gives a route
    /// to that neighbour (no sequence number learnt).
    fn aodv_heard_neighbour(&mut self, node: NodeId, from: NodeId) {
        let now = self.now();
        let until = now + self.aodv().params.active_route_timeout;
        if self.aodv().nodes[node.index()].table.heard_neighbour(from, now, until) {
            self.aodv_release(node, from);
        }
    }

    /// Section 6.5: process (and answer or forward) a RREQ received with
    /// IP TTL `ttl`.
    fn aodv_receive_rreq(&mut self, node: NodeId, q: Rreq, ttl: u8, from: NodeId) {
        let now = self.now();
        let p = self.aodv().params.clone();
        // 6.8: RREQs from blacklisted neighbours are ignored.
        if self.aodv().nodes[node.index()].neighbours.is_blacklisted(from, now) {
            return;
        }
        self.aodv_heard_neighbour(node, from);
        let n = &mut self.aodv().nodes[node.index()];
        if q.orig == node || n.id_cache.seen_or_insert(q.orig, q.id, now, p.path_discovery_time) {
            return; // 6.5: already seen within PATH_DISCOVERY_TIME
        }
        let hops = q.hop_count.saturating_add(1);
        // The reverse route (6.5): lifetime at least now + 2 *
        // NET_TRAVERSAL_TIME - 2 * HopCount * NODE_TRAVERSAL_TIME.
        let minimal = now + (times(p.net_traversal_time, 2) - times(p.node_traversal_time, 2 * hops as u64));
        let info = RouteInfo { seq: q.orig_seq, hops, next_hop: from, lifetime: minimal };
        let reverse_taken = n.table.offer(q.orig, info, now, true);
        if !reverse_taken {
            n.table.refresh(q.orig, now, minimal);
        }
        if reverse_taken {
            self.aodv_release(node, q.orig);
        }
        let n = &mut self.aodv().nodes[node.index()];
        if q.dst == node {
            // 6.6.1 and 6.1: the destination's number becomes at least the
            // one asked for, then it answers with MY_ROUTE_TIMEOUT.
            if !q.unknown_seq {
                n.own_seq = n.own_seq.max(q.dst_seq);
            }
            let rrep = Rrep {
                ack_required: false,
                hop_count: 0,
                dst: node,
                dst_seq: n.own_seq,
                orig: q.orig,
                lifetime_ms: duration_ms(p.my_route_timeout),
            };
            return self.aodv_send_rrep(node, rrep);
        }
        // 6.6 (ii): an intermediate node with a fresh enough active route
        // answers, unless the RREQ says 'D' (or its route leads back to the
        // sender: see the module doc).
        let fresh =
            n.table.valid(q.dst, now).filter(|e| e.seq_valid && (q.unknown_seq || e.seq.diff(q.dst_seq) >= 0) && e.next_hop != from);
        if let (false, Some(e)) = (q.destination_only, fresh) {
            // 6.6.2
            let (dst_seq, dst_hops, dst_next_hop, remaining) = (e.seq, e.hops, e.next_hop, e.lifetime.since(now));
            n.table.add_precursor(q.dst, from, now);
            n.table.add_precursor(q.orig, dst_next_hop, now);
            let rrep =
                Rrep { ack_required: false, hop_count: dst_hops, dst: q.dst, dst_seq, orig: q.orig, lifetime_ms: duration_ms(remaining) };
            self.aodv_send_rrep(node, rrep);
            if q.gratuitous {
                // 6.6.3: tell the destination the way back to the originator.
                let n = &mut self.aodv().nodes[node.index()];
                if let Some(back) = n.table.valid(q.orig, now) {
                    let grat = Rrep {
                        ack_required: false,
                        hop_count: back.hops,
                        dst: q.orig,
                        dst_seq: q.orig_seq,
                        orig: q.dst,
                        lifetime_ms: duration_ms(back.lifetime.since(now)),
                    };
                    self.aodv_send_rrep(node, grat);
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
        if let Some(e) = n.table.get(q.dst, now).filter(|e| e.seq_valid) {
            forward.dst_seq = if q.unknown_seq { e.seq } else { q.dst_seq.max(e.seq) };
            forward.unknown_seq = false;
        }
        self.aodv_send_control(node, AodvMessage::Rreq(forward), BROADCAST, ttl - 1, true);
    }

    /// Unicast a RREP toward its originator along the reverse route (6.6,
    /// 6.7); dropped if the reverse route is gone.
    fn aodv_send_rrep(&mut self, node: NodeId, rrep: Rrep) {
        let now = self.now();
        let p = self.aodv().params.clone();
        let n = &mut self.aodv().nodes[node.index()];
        let Some(next_hop) = n.table.next_hop(rrep.orig, now) else {
            n.stats.control_drops += 1;
            return;
        };
        // 6.7: the destination's precursors get the RREP's next hop; the
        // reverse route lives at least ACTIVE_ROUTE_TIMEOUT more.
        if rrep.dst != node {
            n.table.add_precursor(rrep.dst, next_hop, now);
        }
        n.table.refresh(rrep.orig, now, now + p.active_route_timeout);
        self.aodv_send_control(node, AodvMessage::Rrep(rrep), next_hop, p.net_diameter, false);
    }

    /// Section 6.7: a RREP from `from`.
    fn aodv_receive_rrep(&mut self, node: NodeId, rrep: Rrep, from: NodeId) {
        let now = self.now();
        self.aodv_heard_neighbour(node, from);
        let hops = rrep.hop_count.saturating_add(1);
        let lifetime = now + SimDuration::from_nanos(rrep.lifetime_ms as u64 * 1_000_000);
        let info = RouteInfo { seq: rrep.dst_seq, hops, next_hop: from, lifetime };
        let taken = self.aodv().nodes[node.index()].table.offer(rrep.dst, info, now, false);
        if taken {
            self.aodv_release(node, rrep.dst);
        }
        if rrep.orig == node || !taken {
            return; // arrived, or not better than what we know: not forwarded
        }
        let n = &mut self.aodv().nodes[node.index()];
        let Some(back) = n.table.next_hop(rrep.orig, now) else {
            n.stats.control_drops += 1;
            return;
        };
        // Precursors both ways (6.7; ns-2 and ns-3 add the reverse too).
        n.table.add_precursor(from, back, now);
        n.table.add_precursor(rrep.orig, from, now);
        let forward = Rrep { hop_count: hops, ..rrep };
        self.aodv_send_rrep(node, forward);
    }

    /// Section 6.9: a HELLO from neighbour `from`.
    fn aodv_receive_hello(&mut self, node: NodeId, hello: Rrep, from: NodeId) {
        let now = self.now();
        let until = now + self.aodv().params.hello_loss_time();
        let n = &mut self.aodv().nodes[node.index()];
        n.neighbours.hello_from(from, now);
        let became_valid = n.table.heard_neighbour(from, now, until);
        if let Some(e) = n.table.get_mut(from, now) {
            e.seq = if e.seq_valid { e.seq.max(hello.dst_seq) } else { hello.dst_seq };
            e.seq_valid = true;
        }
        if became_valid {
            self.aodv_release(node, from);
        }
    }

    /// Section 6.11 case (iii): a RERR from neighbour `from`. Routes through
    /// `from` to the listed destinations are invalidated; those some
    /// neighbour still uses go on in a new RERR. With 'N' (6.12) nothing is
    /// invalidated: the RERR is passed on if it came from the next hop.
    fn aodv_receive_rerr(&mut self, node: NodeId, rerr: Rerr, from: NodeId) {
        let now = self.now();
        let mut onward: Vec<(NodeId, super::SeqNumber)> = Vec::new();
        let n = &mut self.aodv().nodes[node.index()];
        for &(dst, seq) in rerr.unreachable() {
            if dst == node {
                continue;
            }
            if rerr.no_delete {
                if let Some(e) = n.table.valid(dst, now).filter(|e| e.next_hop == from && !e.precursors.is_empty()) {
                    onward.push((dst, e.seq));
                }
                continue;
            }
            if let Some(lost) = n.table.rerr_invalidate(from, dst, seq, now) {
                *n.stats.rerr_invalidations.entry(dst).or_default() += 1;
                if lost.has_precursors {
                    onward.push((dst, lost.seq));
                }
            }
        }
        if !onward.is_empty() {
            self.aodv_send_rerr(node, &onward, rerr.no_delete);
        }
    }

    /// Broadcast RERRs (TTL 1) for `unreachable`, several if they do not fit
    /// in one; each counts against RERR_RATELIMIT (6.11).
    pub(crate) fn aodv_send_rerr(&mut self, node: NodeId, unreachable: &[(NodeId, super::SeqNumber)], no_delete: bool) {
        for chunk in unreachable.chunks(crate::wire::aodv::RERR_INLINE_DESTINATIONS) {
            let now = self.now();
            let limit = self.aodv().params.rerr_ratelimit;
            let n = &mut self.aodv().nodes[node.index()];
            if n.rerr_rate.next_allowed(now, limit) > now {
                n.stats.rerr_rate_limited += 1;
                continue;
            }
            n.rerr_rate.record(now);
            let mut rerr = Rerr::new(no_delete);
            for &(dst, seq) in chunk {
                rerr.push(dst, seq);
            }
            self.aodv_send_control(node, AodvMessage::Rerr(rerr), BROADCAST, 1, false);
        }
    }

    /// Send a routing packet to `next_hop` (or [`BROADCAST`]) with IP TTL
    /// `ttl`, after a jitter from the node's routing stream if asked.
    pub(crate) fn aodv_send_control(&mut self, node: NodeId, message: AodvMessage, next_hop: NodeId, ttl: u8, jitter: bool) {
        let now = self.now();
        let uid = self.next_uid;
        self.next_uid += 1;
        let packet = Packet {
            uid,
            kind: PacketKind::Control,
            flow: CONTROL_FLOW,
            sequence: 0,
            src: node,
            dst: next_hop,
            payload_bytes: message.buffer_len(),
            header_bytes: UDP_HEADER_BYTES + IP_HEADER_BYTES,
            created: now,
            ttl,
            transport: crate::wire::TransportHeader::Udp,
            routing: crate::wire::RoutingHeader::Aodv(message),
        };
        let aodv = self.aodv();
        let max_jitter = aodv.params.broadcast_jitter;
        if jitter && max_jitter > SimDuration::ZERO {
            let draw = aodv.nodes[node.index()].rng.uniform_f64();
            let delay = SimDuration::from_nanos((draw * max_jitter.as_nanos() as f64) as u64);
            let slot = aodv.park(PendingSend { packet, next_hop });
            self.queue.schedule(now + delay, Event::new(node.0, Layer::Routing, slot << 2 | RoutingTimerKind::Send as u32));
        } else {
            self.aodv_transmit_control(node, packet, next_hop);
        }
    }

    /// A parked (jittered) control packet's time has come.
    pub(crate) fn aodv_send_parked(&mut self, node: NodeId, slot: u32) {
        if let Some(send) = self.aodv().unpark(slot) {
            self.aodv_transmit_control(node, send.packet, send.next_hop);
        }
    }

    fn aodv_transmit_control(&mut self, node: NodeId, packet: Packet, next_hop: NodeId) {
        let now = self.now();
        let in_window = now >= self.warmup;
        let n = &mut self.aodv().nodes[node.index()];
        let s = &mut n.stats;
        match packet.aodv() {
            Some(AodvMessage::Rreq(_)) => s.rreq_sent += 1,
            Some(AodvMessage::Rrep(r)) if r.is_hello() => s.hello_sent += 1,
            Some(AodvMessage::Rrep(_)) => s.rrep_sent += 1,
            Some(AodvMessage::Rerr(_)) => s.rerr_sent += 1,
            None => {}
        }
        s.control_bytes_sent += packet.size_bytes() as u64;
        if in_window {
            s.window_control_bytes_sent += packet.size_bytes() as u64;
        }
        let hello = matches!(packet.aodv(), Some(AodvMessage::Rrep(r)) if r.is_hello());
        if next_hop == BROADCAST && !hello {
            n.last_broadcast = Some(now);
        }
        self.net_enqueue(node, packet, next_hop);
    }
}

fn duration_ms(d: SimDuration) -> u32 {
    (d.as_nanos() / 1_000_000).min(u32::MAX as u64) as u32
}
