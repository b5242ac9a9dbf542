//! Data packets under AODV (impl World): the route_output / route_input
//! halves of the routing interface, route lifetimes refreshed on use (RFC
//! 3561 section 6.2), the request queue (6.3) and its release.

use super::{Aodv, CONTROL_FLOW};
use crate::net::routing::Routing;
use crate::net::{NodeId, Packet};
use crate::loss::DropCause;
use crate::world::World;

impl World {
    /// The AODV state (only called when the world runs AODV).
    pub(crate) fn aodv(&mut self) -> &mut Aodv {
        match &mut self.routing {
            Routing::Aodv(aodv) => aodv,
            Routing::Static(_) => unreachable!("AODV handler called in a static-routing world"),
        }
    }

    /// route_output: a packet originated at `node`. With an active route it
    /// goes to the MAC; otherwise it waits in the request queue while a
    /// route is discovered (6.3).
    pub(crate) fn aodv_route_output(&mut self, node: NodeId, packet: Packet) {
        let now = self.now();
        let next_hop = self.aodv().nodes[node.index()].table.next_hop(packet.dst, now);
        match next_hop {
            Some(next_hop) => self.aodv_send_data(node, packet, next_hop, None),
            None => {
                let dst = packet.dst;
                self.aodv_buffer(node, packet);
                self.aodv_start_discovery(node, dst, None);
            }
        }
    }

    /// route_input: a data packet from `from` that `node` must forward.
    /// Without an active route it is buffered if a local repair is under
    /// way, else dropped (`route_break`) and a RERR goes upstream (6.11
    /// case (ii)).
    pub(crate) fn aodv_route_input(&mut self, node: NodeId, packet: Packet, from: NodeId) {
        use super::table::RouteState;
        let now = self.now();
        let delete_period = self.aodv().params.delete_period;
        let table = &mut self.aodv().nodes[node.index()].table;
        if let Some(next_hop) = table.next_hop(packet.dst, now) {
            return self.aodv_send_data(node, packet, next_hop, Some(from));
        }
        let entry = table.get_mut(packet.dst, now);
        if entry.as_ref().is_some_and(|e| e.state == RouteState::InRepair) {
            return self.aodv_buffer(node, packet);
        }
        // 6.11: "If a data packet is received for an invalid route, the
        // Lifetime field is updated to current time plus DELETE_PERIOD."
        let seq = entry.map_or(super::SeqNumber(0), |e| {
            e.lifetime = now + delete_period;
            e.seq
        });
        self.drop_packet(node, &packet, DropCause::RouteBreak);
        self.aodv_send_rerr(node, &[(packet.dst, seq)], false);
    }

    /// A data packet reached its destination: the routes back to its
    /// source and to the previous hop stay active (6.2).
    pub(crate) fn aodv_delivered(&mut self, node: NodeId, packet: &Packet, from: NodeId) {
        let now = self.now();
        let until = now + self.aodv().params.active_route_timeout;
        let table = &mut self.aodv().nodes[node.index()].table;
        table.refresh(packet.src, now, until);
        table.refresh(from, now, until);
    }

    /// Hand a data packet to the MAC toward `next_hop`, refreshing the
    /// routes it uses (6.2: destination, next hop, source, previous hop).
    pub(crate) fn aodv_send_data(&mut self, node: NodeId, packet: Packet, next_hop: NodeId, from: Option<NodeId>) {
        let now = self.now();
        let until = now + self.aodv().params.active_route_timeout;
        let table = &mut self.aodv().nodes[node.index()].table;
        table.refresh(packet.dst, now, until);
        table.refresh(next_hop, now, until);
        if packet.src != node {
            table.refresh(packet.src, now, until);
        }
        if let Some(from) = from {
            table.refresh(from, now, until);
        }
        self.net_enqueue(node, packet, next_hop);
    }

    /// Put a data packet in the request queue (6.3); the oldest goes if it
    /// is full, and any packet older than the timeout (cause `no_route`).
    pub(crate) fn aodv_buffer(&mut self, node: NodeId, packet: Packet) {
        let now = self.now();
        let mut expired = Vec::new();
        let n = &mut self.aodv().nodes[node.index()];
        n.queue.take_expired(now, &mut expired);
        if let Some(evicted) = n.queue.push(packet, now) {
            expired.push(evicted);
        }
        for p in &expired {
            self.drop_packet(node, p, DropCause::NoRoute);
        }
        self.hop_update(node);
    }

    /// A route to `dst` became active at `node`: end its discovery and
    /// send the packets waiting for it.
    pub(crate) fn aodv_release(&mut self, node: NodeId, dst: NodeId) {
        self.aodv_discovery_succeeded(node, dst);
        let mut out = Vec::new();
        self.aodv().nodes[node.index()].queue.take_for(dst, &mut out);
        if out.is_empty() {
            return;
        }
        for packet in out {
            let now = self.now();
            match self.aodv().nodes[node.index()].table.next_hop(dst, now) {
                Some(next_hop) => self.aodv_send_data(node, packet, next_hop, None),
                None => self.aodv_buffer(node, packet),
            }
        }
        self.hop_update(node);
    }

    /// Drop every packet waiting for `dst` at `node` (a discovery or local
    /// repair failed). A source whose own packet is lost may send another
    /// (bulk and semi-TCP sources refill as when a packet enters service).
    pub(crate) fn aodv_drop_buffered(&mut self, node: NodeId, dst: NodeId, cause: DropCause) {
        let mut out = Vec::new();
        self.aodv().nodes[node.index()].queue.take_for(dst, &mut out);
        for packet in &out {
            self.drop_packet(node, packet, cause);
        }
        self.hop_update(node);
        for packet in &out {
            if packet.flow != CONTROL_FLOW && packet.src == node {
                self.app_packet_entered_service(node, packet);
            }
        }
    }
}
