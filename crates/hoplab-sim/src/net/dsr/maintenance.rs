//! Route Maintenance (RFC 4728 section 8.3) with link-layer feedback: the
//! MAC's retry-limit failure of a packet toward its next hop (8.3.1; ns-2
//! `XmitFailureCallback` -> `xmitFailed`, dsragent.cc:2615-2801) removes
//! the link from the cache, salvages the packet (8.4.1) and those queued
//! toward the same next hop, and sends a Route Error to the packet's
//! source (8.3.4); Route Errors received or forwarded are applied to the
//! cache (8.3.5).

use super::{DsrNode, Out};
use crate::loss::DropCause;
use crate::net::routing::{RoutingContext, RoutingOutput};
use crate::time::SimTime;
use crate::wire::dsr::{DsrHeader, DsrOption};
use crate::wire::{NodeId, Packet};

impl DsrNode {
    /// on_link_failure: the MAC gave up on `packet` toward `next_hop`.
    /// `lost`: the packet is this node's to salvage, else lost with that
    /// cause (None: the next hop holds it, only its ACKs were lost).
    pub(crate) fn link_failure(
        &mut self,
        now: SimTime,
        packet: &Packet,
        next_hop: NodeId,
        lost: Option<DropCause>,
        ctx: &mut RoutingContext,
        out: &mut Out,
    ) {
        let me = ctx.node;
        self.stats.link_breaks += 1;
        // "kill any routes we have using this link" (dsragent.cc:2689-2691).
        self.cache.dead_link(me, next_hop);
        if packet.is_control() {
            if lost.is_some() {
                self.control_lost();
            }
            return out.push(RoutingOutput::LinkBroken { neighbour: next_hop, failed: None });
        }
        if let Some(cause) = lost {
            self.undeliverable(now, *packet, cause, ctx, out);
        }
        // The packets queued toward the same next hop come back through
        // on_link_broken ("a persistent failure", dsragent.cc:2697-2728).
        out.push(RoutingOutput::LinkBroken { neighbour: next_hop, failed: Some(*packet) });
        self.send_error(now, packet, next_hop, ctx, out);
    }

    /// The interface handed back the packets it queued toward `neighbour`:
    /// each is salvaged, re-routed (this node's own) or dropped.
    pub(crate) fn break_link(&mut self, now: SimTime, neighbour: NodeId, queued: Vec<Packet>, ctx: &mut RoutingContext, out: &mut Out) {
        let _ = neighbour;
        for q in queued {
            if q.is_control() {
                out.push(RoutingOutput::Drop { packet: q, cause: DropCause::RouteBreak });
            } else {
                self.undeliverable(now, q, DropCause::RouteBreak, ctx, out);
            }
        }
        out.push(RoutingOutput::BufferChanged);
    }

    /// A data packet cannot go on its route (ns-2 `undeliverablePkt`,
    /// dsragent.cc:2283-2453): this node's own packet looks for another
    /// route (or waits for a discovery); a forwarded one is salvaged with a
    /// cached route (8.4.1), at most MAX_SALVAGE_COUNT times, else lost
    /// with `cause`, or (`salvage_by_discovery`) waits for one
    /// non-propagating request.
    pub(crate) fn undeliverable(&mut self, now: SimTime, packet: Packet, cause: DropCause, ctx: &mut RoutingContext, out: &mut Out) {
        if packet.src == ctx.node {
            return self.output(now, packet, ctx, out);
        }
        let salvage = packet.dsr().map_or(0, |h| h.salvage);
        if self.config.salvage && (salvage as u32) < self.config.max_salvage_count {
            if let Some(route) = self.cache.find(packet.dst, now, false) {
                self.dsr_stats.salvaged += 1;
                return self.send_data(packet, route, salvage + 1, out);
            }
            if self.config.salvage_by_discovery {
                // dsragent.cc:2424-2438: stickPacketInSendBuffer, whose
                // check (getRouteForPacket) runs the request.
                let dst = packet.dst;
                self.buffer(now, packet, ctx, out);
                return self.start_discovery(now, dst, ctx, out);
            }
        }
        out.push(RoutingOutput::Drop { packet, cause });
    }

    /// Section 8.3.4: tell the source of `failed` (the first node of its
    /// route) that the link to `next_hop` broke, along the reverse of the
    /// route it came by; nothing if this node is that source.
    fn send_error(&mut self, now: SimTime, failed: &Packet, next_hop: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let Some(h) = failed.dsr() else { return };
        let walk = h.walk();
        let Some(at) = walk.position(ctx.node).filter(|&i| i > 0) else { return };
        let mut header = DsrHeader {
            path: walk.slice(0, at + 1),
            option: DsrOption::Error { unreachable: next_hop },
            cur: 0,
            salvage: h.salvage,
            piggyback_error: None,
        };
        let Some(to) = header.next_hop() else { return };
        header.cur = 1;
        let packet = self.control_packet(header, walk.get(0), now, ctx);
        self.send_control(now, packet, to, false, ctx, out);
    }

    /// Section 8.3.5: a Route Error. Every node it reaches removes the dead
    /// link from its cache (ns-2 `dsragent_snoop_forwarded_errors`,
    /// dsragent.cc:146, 663-666); the node it is for keeps it to piggyback
    /// on its next request (1912-1917); the others forward it.
    pub(crate) fn receive_error(&mut self, now: SimTime, packet: Packet, header: DsrHeader, ctx: &mut RoutingContext, out: &mut Out) {
        let DsrOption::Error { unreachable } = header.option else { return };
        let Some(from) = header.path.last() else { return };
        self.cache.dead_link(from, unreachable);
        if packet.dst == ctx.node {
            self.dsr_stats.errors_received += 1;
            *self.stats.errors_received.entry(unreachable).or_default() += 1;
            self.last_error = Some((from, unreachable, now));
            return;
        }
        self.forward_control(now, packet, header, ctx, out);
    }
}
