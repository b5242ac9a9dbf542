//! Data packets under DSR (RFC 4728 8.1): a packet this node originates
//! gets a source route from the cache, or waits in the send buffer (4.2)
//! while the route is discovered; a packet to forward follows the source
//! route in its header (8.1.5). Routing packets that travel a source route
//! (replies, errors) are walked on the same way. A node forwarding a packet
//! caches the rest of its route (ns-2 `dsragent_snoop_source_routes`,
//! dsragent.cc:148, 979-982).

use super::cache::CachePart;
use super::{DsrNode, DsrTimer, Out, Paced, PendingSend, CONTROL_FLOW};
use crate::loss::DropCause;
use crate::net::routing::{RoutingContext, RoutingOutput};
use crate::time::{SimDuration, SimTime};
use crate::wire::dsr::{DsrHeader, Path};
use crate::wire::{NodeId, Packet, RoutingHeader};

impl DsrNode {
    /// route_output: a packet originated here (8.1.1, 8.1.2).
    pub(crate) fn output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingContext, out: &mut Out) {
        match self.cache.find(packet.dst, now, true) {
            Some(route) => self.send_data(packet, route, 0, out),
            None => {
                let dst = packet.dst;
                self.buffer(now, packet, ctx, out);
                self.start_discovery(now, dst, ctx, out);
            }
        }
    }

    /// route_input: a data packet from `from` to forward along its source
    /// route (8.1.5). A packet without a route to follow is dropped
    /// (`no_route`; ns-2 "ran off the end of a source route",
    /// dsragent.cc:969-977).
    pub(crate) fn input(&mut self, now: SimTime, mut packet: Packet, _from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let Some(mut header) = packet.dsr().copied() else {
            return out.push(RoutingOutput::Drop { packet, cause: DropCause::NoRoute });
        };
        let me = ctx.node;
        let here = header.cur as usize;
        let Some(next_hop) = header.next_hop().filter(|_| here < header.walk_len() && header.hop(here) == me) else {
            return out.push(RoutingOutput::Drop { packet, cause: DropCause::NoRoute });
        };
        self.snoop_walk(now, &header, me, ctx, out);
        header.cur += 1;
        packet.routing = RoutingHeader::Dsr(header);
        out.push(RoutingOutput::Send { packet, next_hop });
    }

    /// Forward a routing packet that walks a source route (a reply or an
    /// error not for this node): the next hop of its walk.
    pub(crate) fn forward_control(
        &mut self,
        now: SimTime,
        mut packet: Packet,
        mut header: DsrHeader,
        ctx: &mut RoutingContext,
        out: &mut Out,
    ) {
        let me = ctx.node;
        let Some(next_hop) = header.next_hop().filter(|_| header.hop(header.cur as usize) == me) else {
            return self.control_lost();
        };
        self.snoop_walk(now, &header, me, ctx, out);
        header.cur += 1;
        packet.routing = RoutingHeader::Dsr(header);
        self.transmit_control(now, packet, next_hop, ctx, out);
    }

    /// Cache the rest of the walk a packet this node forwards takes
    /// (routecache.cc:244-246: the subpath from this node).
    pub(crate) fn snoop_walk(&mut self, now: SimTime, header: &DsrHeader, me: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let walk = header.walk();
        if let Some(at) = walk.position(me).filter(|&i| i + 1 < walk.len()) {
            self.cache.add(&walk.slice(at, walk.len()), CachePart::Secondary, now);
            self.route_learnt(now, ctx, out);
        }
    }

    /// Give a data packet its source route `route` (this node first) and
    /// send it to the route's second node. Its header bytes follow the
    /// route (a salvaged packet's change).
    pub(crate) fn send_data(&mut self, packet: Packet, route: Path, salvage: u8, out: &mut Out) {
        let (packet, next_hop) = with_route(packet, route, salvage);
        out.push(RoutingOutput::Send { packet, next_hop });
    }

    /// The packets released earlier whose turn has come go to the
    /// interface, in release order.
    pub(crate) fn release_paced(&mut self, now: SimTime, out: &mut Out) {
        while let Some(i) = self.paced.iter().position(|p| p.at <= now) {
            let Some(p) = self.paced.remove(i) else { break };
            out.push(RoutingOutput::Send { packet: p.send.packet, next_hop: p.send.next_hop });
        }
    }

    /// Put a packet in the send buffer (4.2); the oldest goes if it is full
    /// (cause `no_route`, ns-2 dsragent.cc:259-280).
    pub(crate) fn buffer(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingContext, out: &mut Out) {
        if let Some(evicted) = self.send_buffer.push(packet, now) {
            self.lose_buffered(evicted, ctx.node, out);
        }
        out.push(RoutingOutput::BufferChanged);
        self.arm_buffer_timer(out);
    }

    /// Arm the expiry timer at the oldest buffered packet's deadline.
    fn arm_buffer_timer(&mut self, out: &mut Out) {
        let Some(since) = self.send_buffer.oldest_since() else { return };
        let at = since + self.config.send_buffer_timeout_s;
        if self.buffer_timer_at != at {
            self.buffer_timer_at = at;
            out.push(RoutingOutput::Timer { id: DsrTimer::SendBuffer.id(), at });
        }
    }

    /// The oldest buffered packet's time is up: drop what expired
    /// (SendBufferTimeout, cause `no_route`).
    pub(crate) fn buffer_timer(&mut self, now: SimTime, ctx: &mut RoutingContext, out: &mut Out) {
        if self.buffer_timer_at != now {
            return;
        }
        self.buffer_timer_at = SimTime::MAX;
        let mut expired = Vec::new();
        self.send_buffer.take_expired(now, &mut expired);
        for packet in expired {
            self.lose_buffered(packet, ctx.node, out);
        }
        out.push(RoutingOutput::BufferChanged);
        self.arm_buffer_timer(out);
    }

    /// A buffered packet is lost for want of a route; its source may send
    /// another (as AODV's request queue).
    fn lose_buffered(&mut self, packet: Packet, node: NodeId, out: &mut Out) {
        out.push(RoutingOutput::Drop { packet, cause: DropCause::NoRoute });
        if packet.flow != CONTROL_FLOW && packet.src == node {
            out.push(RoutingOutput::SourceMayRefill { packet });
        }
    }

    /// The cache learnt something: send the buffered packets it now has
    /// routes for (what ns-2's send-buffer check finds within 30-60 ms,
    /// dsragent.cc:285-310, and its reply handling at once, 1765-1801).
    pub(crate) fn route_learnt(&mut self, now: SimTime, ctx: &mut RoutingContext, out: &mut Out) {
        self.release_spaced(now, SimDuration::ZERO, ctx, out)
    }

    /// As `route_learnt`, the packets released `spacing` apart (the first
    /// at once; ns-2's `acceptRouteReply`, dsragent.cc:1793-1798). A
    /// packet keeps its Salvage count (a salvaged packet that waited here,
    /// dsragent.cc:2437).
    pub(crate) fn release_spaced(&mut self, now: SimTime, spacing: SimDuration, ctx: &mut RoutingContext, out: &mut Out) {
        if self.send_buffer.is_empty() {
            return;
        }
        let mut targets: Vec<NodeId> = Vec::new();
        for p in self.send_buffer.iter() {
            if !targets.contains(&p.dst) {
                targets.push(p.dst);
            }
        }
        let mut released = Vec::new();
        for dst in targets {
            if self.cache.find(dst, now, false).is_none() {
                continue;
            }
            self.discovery_done(now, dst);
            self.send_buffer.take_for(dst, &mut released);
        }
        if released.is_empty() {
            return;
        }
        let mut turn = 0u64;
        for packet in released {
            match self.cache.find(packet.dst, now, true) {
                Some(route) => {
                    let salvage = packet.dsr().map_or(0, |h| h.salvage);
                    if turn == 0 || spacing == SimDuration::ZERO {
                        self.send_data(packet, route, salvage, out);
                    } else {
                        let (packet, next_hop) = with_route(packet, route, salvage);
                        let at = now + spacing * turn;
                        self.paced.push_back(Paced { at, send: PendingSend { packet, next_hop } });
                        out.push(RoutingOutput::Timer { id: DsrTimer::Release.id(), at });
                    }
                    turn += 1;
                }
                None => self.buffer(now, packet, ctx, out),
            }
        }
        out.push(RoutingOutput::BufferChanged);
        self.arm_buffer_timer(out);
    }
}

/// `packet` with the source route `route` (this node first) and Salvage
/// count `salvage`, and its next hop. Its header bytes follow the route.
fn with_route(mut packet: Packet, route: Path, salvage: u8) -> (Packet, NodeId) {
    let old = packet.dsr().map_or(0, |h| h.buffer_len());
    let mut header = DsrHeader::source_route(route);
    header.salvage = salvage;
    header.cur = 1;
    packet.header_bytes = packet.header_bytes - old + header.buffer_len();
    packet.routing = RoutingHeader::Dsr(header);
    (packet, route.get(1))
}
