//! Hop-by-hop forwarding, delivery, drops (impl World).

use super::{NodeId, Packet};
use crate::mac::Queued;
use crate::stats::DropCause;
use crate::world::World;

impl World {
    /// A packet enters the network at its source (from a transport).
    pub(crate) fn net_originate(&mut self, node: NodeId, packet: Packet) {
        self.net_route_and_enqueue(node, packet);
    }

    /// The MAC of `node` delivered a packet received from `from`.
    pub(crate) fn net_receive(&mut self, node: NodeId, mut packet: Packet, _from: NodeId) {
        if packet.dst == node {
            self.net_deliver(packet);
            return;
        }
        packet.ttl = packet.ttl.saturating_sub(1);
        if packet.ttl == 0 {
            self.drop_packet(node, &packet, DropCause::Ttl);
            return;
        }
        self.net_route_and_enqueue(node, packet);
    }

    fn net_route_and_enqueue(&mut self, node: NodeId, packet: Packet) {
        let Some(next_hop) = self.routes.next_hop(node, packet.dst) else {
            self.drop_packet(node, &packet, DropCause::NoRoute);
            return;
        };
        // The wired interface toward the next hop, if there is one.
        if !self.wired_interfaces.is_empty() {
            if let Some(&(link, direction)) = self.wired_interfaces.get(&(node, next_hop)) {
                self.link_enqueue(link, direction, packet);
                return;
            }
        }
        self.mac_enqueue(node, Queued { packet, next_hop });
    }

    /// The MAC gave up on `next_hop` (retry limit): link-layer feedback for
    /// routing (AODV uses it to detect a broken link; static routes ignore it).
    pub(crate) fn net_link_failure(&mut self, _node: NodeId, _next_hop: NodeId) {}

    /// The MAC finished serving a unicast packet (acknowledged or dropped).
    /// The hook where per-packet MAC figures reach the layers above (semi-TCP's
    /// rate control samples the source's MST and APR here).
    pub(crate) fn net_mac_tx_done(&mut self, node: NodeId, done: crate::mac::dcf::TxDone) {
        let interval = &mut self.nodes[node.index()].stats.interval;
        interval.packets_served += 1;
        interval.service_time_total_ns += done.service_time.as_nanos() as u128;
        interval.rts_attempts_total += done.rts_attempts as u64;
        if !done.packet.is_control() && self.flows[done.packet.flow as usize].semitcp.is_some() {
            self.semitcp_mac_sample(node, &done);
        }
    }

    fn net_deliver(&mut self, packet: Packet) {
        if packet.tcp.is_some() {
            if self.flows[packet.flow as usize].semitcp.is_some() {
                self.semitcp_deliver(packet);
            } else {
                self.tcp_deliver(packet);
            }
            return;
        }
        let now = self.now();
        let stats = &mut self.flows[packet.flow as usize].stats;
        stats.delivered += 1;
        stats.interval_delivered_bytes += packet.payload_bytes as u64;
        if now >= self.warmup {
            stats.window_delivered_bytes += packet.payload_bytes as u64;
            stats.window_delivered_packets += 1;
            stats.window_delay_total_ns += now.since(packet.created).as_nanos() as u128;
            stats.window_delay_samples += 1;
        }
    }

    /// Count a lost packet at the node that lost it and against its flow.
    pub(crate) fn drop_packet(&mut self, node: NodeId, packet: &Packet, cause: DropCause) {
        *self.nodes[node.index()].stats.drops.entry(cause).or_default() += 1;
        if !packet.is_control() {
            let stats = &mut self.flows[packet.flow as usize].stats;
            let losses = if packet.is_reverse() { &mut stats.ack_losses } else { &mut stats.losses };
            *losses.entry(cause).or_default() += 1;
        }
    }
}
