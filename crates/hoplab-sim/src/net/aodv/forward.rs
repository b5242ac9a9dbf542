//! Data packets under AODV: the route_output / route_input halves of the
//! routing interface, route lifetimes refreshed on use (RFC 3561 section
//! 6.2), the request queue (6.3) and its release.

use super::table::RouteState;
use super::{AodvNode, Out, SeqNumber, CONTROL_FLOW};
use crate::loss::DropCause;
use crate::net::routing::{RoutingContext, RoutingOutput};
use crate::time::SimTime;
use crate::wire::{NodeId, Packet};

impl AodvNode {
    /// route_output: a packet originated here. With an active route it
    /// goes to the MAC; otherwise it waits in the request queue while a
    /// route is discovered (6.3).
    pub(crate) fn output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingContext, out: &mut Out) {
        match self.table.next_hop(packet.dst, now) {
            Some(next_hop) => self.send_data(now, packet, next_hop, None, ctx.node, out),
            None => {
                let dst = packet.dst;
                self.buffer(now, packet, out);
                self.start_discovery(now, dst, None, ctx, out);
            }
        }
    }

    /// route_input: a data packet from `from` to forward. Without an active
    /// route it is buffered if a local repair is under way, else dropped
    /// (`route_break`) and a RERR goes upstream (6.11 case (ii)).
    pub(crate) fn input(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        if let Some(next_hop) = self.table.next_hop(packet.dst, now) {
            return self.send_data(now, packet, next_hop, Some(from), ctx.node, out);
        }
        let delete_period = self.config.delete_period();
        let entry = self.table.get_mut(packet.dst, now);
        if entry.as_ref().is_some_and(|e| e.state == RouteState::InRepair) {
            return self.buffer(now, packet, out);
        }
        // 6.11: "If a data packet is received for an invalid route, the
        // Lifetime field is updated to current time plus DELETE_PERIOD."
        let seq = entry.map_or(SeqNumber(0), |e| {
            e.lifetime = now + delete_period;
            e.seq
        });
        out.push(RoutingOutput::Drop { packet, cause: DropCause::RouteBreak });
        self.send_rerr(now, &[(packet.dst, seq)], false, ctx, out);
    }

    /// A data packet reached its destination here: the routes back to its
    /// source and to the previous hop stay active (6.2).
    pub(crate) fn delivered(&mut self, now: SimTime, packet: &Packet, from: NodeId) {
        let until = now + self.config.active_route_timeout();
        self.table.refresh(packet.src, now, until);
        self.table.refresh(from, now, until);
    }

    /// Hand a data packet to the MAC toward `next_hop`, refreshing the
    /// routes it uses (6.2: destination, next hop, source, previous hop).
    pub(crate) fn send_data(&mut self, now: SimTime, packet: Packet, next_hop: NodeId, from: Option<NodeId>, node: NodeId, out: &mut Out) {
        let until = now + self.config.active_route_timeout();
        self.table.refresh(packet.dst, now, until);
        self.table.refresh(next_hop, now, until);
        if packet.src != node {
            self.table.refresh(packet.src, now, until);
        }
        if let Some(from) = from {
            self.table.refresh(from, now, until);
        }
        out.push(RoutingOutput::Send { packet, next_hop });
    }

    /// Put a data packet in the request queue (6.3); the oldest goes if it
    /// is full, and any packet older than the timeout (cause `no_route`).
    pub(crate) fn buffer(&mut self, now: SimTime, packet: Packet, out: &mut Out) {
        let mut expired = Vec::new();
        self.queue.take_expired(now, &mut expired);
        if let Some(evicted) = self.queue.push(packet, now) {
            expired.push(evicted);
        }
        for packet in expired {
            out.push(RoutingOutput::Drop { packet, cause: DropCause::NoRoute });
        }
        out.push(RoutingOutput::BufferChanged);
        self.arm_purge_tick(now, out);
    }

    /// A route to `dst` became active: end its discovery and send the
    /// packets waiting for it.
    pub(crate) fn release(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        self.discovery_succeeded(now, dst, ctx, out);
        let mut released = Vec::new();
        self.queue.take_for(dst, &mut released);
        if released.is_empty() {
            return;
        }
        for packet in released {
            match self.table.next_hop(dst, now) {
                Some(next_hop) => self.send_data(now, packet, next_hop, None, ctx.node, out),
                None => self.buffer(now, packet, out),
            }
        }
        out.push(RoutingOutput::BufferChanged);
    }

    /// Drop every packet waiting for `dst` (a discovery or local repair
    /// failed). A source whose own packet is lost may send another (bulk
    /// and semi-TCP sources refill as when a packet enters service).
    pub(crate) fn drop_buffered(&mut self, dst: NodeId, cause: DropCause, node: NodeId, out: &mut Out) {
        let mut dropped = Vec::new();
        self.queue.take_for(dst, &mut dropped);
        for &packet in &dropped {
            out.push(RoutingOutput::Drop { packet, cause });
        }
        out.push(RoutingOutput::BufferChanged);
        for packet in dropped {
            if packet.flow != CONTROL_FLOW && packet.src == node {
                out.push(RoutingOutput::SourceMayRefill { packet });
            }
        }
    }
}
