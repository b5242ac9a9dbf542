//! Hop-by-hop forwarding, delivery, drops (impl World), and the routing
//! interface every protocol answers (DESIGN.md, "Routing trait"):
//! route_output, route_input, on_link_failure, on_timer.

use super::aodv::RoutingTimerKind;
use super::routing::Routing;
use super::{NodeId, Packet};
use crate::mac::MacInput;
use crate::queue::Queued;
use crate::stats::report::RoutingReport;
use crate::loss::DropCause;
use crate::world::World;

impl World {
    /// A packet enters the network at its source (from a transport).
    pub(crate) fn net_originate(&mut self, node: NodeId, packet: Packet) {
        self.route_output(node, packet);
    }

    /// The MAC of `node` delivered a packet received from `from`.
    pub(crate) fn net_receive(&mut self, node: NodeId, mut packet: Packet, from: NodeId) {
        if packet.is_control() {
            if let Routing::Aodv(_) = self.routing {
                self.aodv_receive(node, packet, from);
            }
            return;
        }
        if packet.dst == node {
            if matches!(self.routing, Routing::Aodv(_)) {
                self.aodv_delivered(node, &packet, from);
            }
            self.net_deliver(packet);
            return;
        }
        packet.ttl = packet.ttl.saturating_sub(1);
        if packet.ttl == 0 {
            self.drop_packet(node, &packet, DropCause::Ttl);
            return;
        }
        self.route_input(node, packet, from);
    }

    /// `node` decoded a frame from `from` (any frame, for it or overheard):
    /// AODV's HELLO neighbours count it as a sign of life (RFC 3561 6.9).
    pub(crate) fn routing_heard(&mut self, node: NodeId, from: NodeId) {
        if let Routing::Aodv(aodv) = &mut self.routing {
            if aodv.params.hello {
                let now = self.queue.now();
                aodv.nodes[node.index()].neighbours.packet_from(from, now);
            }
        }
    }

    /// route_output: choose the next hop of a packet originated at `node`.
    fn route_output(&mut self, node: NodeId, packet: Packet) {
        match &self.routing {
            Routing::Static(routes) => match routes.next_hop(node, packet.dst) {
                Some(next_hop) => self.net_enqueue(node, packet, next_hop),
                None => self.drop_packet(node, &packet, DropCause::NoRoute),
            },
            Routing::Aodv(_) => self.aodv_route_output(node, packet),
        }
    }

    /// route_input: choose the next hop of a packet `node` forwards.
    fn route_input(&mut self, node: NodeId, packet: Packet, from: NodeId) {
        match &self.routing {
            Routing::Static(routes) => match routes.next_hop(node, packet.dst) {
                Some(next_hop) => self.net_enqueue(node, packet, next_hop),
                None => self.drop_packet(node, &packet, DropCause::NoRoute),
            },
            Routing::Aodv(_) => self.aodv_route_input(node, packet, from),
        }
    }

    /// on_link_failure: the MAC gave up on `packet` toward `next_hop`
    /// (retry limit): link-layer feedback for routing (AODV detects broken
    /// links from it; static routes ignore it).
    pub(crate) fn net_link_failure(&mut self, node: NodeId, packet: &Packet, next_hop: NodeId) {
        if let Routing::Aodv(_) = self.routing {
            self.aodv_link_failure(node, packet, next_hop);
        }
    }

    /// on_timer: a routing protocol's timer fired.
    pub(crate) fn routing_timer(&mut self, node: NodeId, kind: RoutingTimerKind, arg: u32) {
        if let Routing::Aodv(_) = self.routing {
            self.aodv_timer(node, kind, arg);
        }
    }

    /// Hand a packet to the interface toward `next_hop`: a wired link if
    /// there is one, else the 802.11 MAC.
    pub(crate) fn net_enqueue(&mut self, node: NodeId, packet: Packet, next_hop: NodeId) {
        if !self.wired_interfaces.is_empty() {
            if let Some(&(link, direction)) = self.wired_interfaces.get(&(node, next_hop)) {
                self.link_enqueue(link, direction, packet);
                return;
            }
        }
        self.mac_input(node, MacInput::Enqueue(Queued { packet, next_hop }));
    }

    /// Take back the packets `node`'s MAC queued toward `next_hop` (the
    /// link to it broke).
    pub(crate) fn mac_take_queued_toward(&mut self, node: NodeId, next_hop: NodeId) -> Vec<Packet> {
        let now = self.now();
        self.nodes[node.index()].mac.take_queued_toward(now, next_hop)
    }

    /// The MAC finished serving a unicast packet (acknowledged or dropped).
    /// The hook where per-packet MAC figures reach the layers above (semi-TCP's
    /// rate control samples the source's MST and APR here).
    pub(crate) fn net_mac_tx_done(&mut self, node: NodeId, done: &crate::mac::TxDone, packet: &Packet) {
        if !packet.is_control() && self.flows[packet.flow as usize].semitcp.is_some() {
            self.semitcp_mac_sample(node, done, packet);
        }
    }

    fn net_deliver(&mut self, packet: Packet) {
        if packet.tcp().is_some() {
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
    /// A routing packet counts among the node's routing drops only, so that
    /// node drops add up to the flows' losses.
    pub(crate) fn drop_packet(&mut self, node: NodeId, packet: &Packet, cause: DropCause) {
        if packet.is_control() {
            if let Routing::Aodv(aodv) = &mut self.routing {
                aodv.nodes[node.index()].stats.control_drops += 1;
            }
            return;
        }
        *self.nodes[node.index()].drops.entry(cause).or_default() += 1;
        let stats = &mut self.flows[packet.flow as usize].stats;
        let losses = if packet.is_reverse() { &mut stats.ack_losses } else { &mut stats.losses };
        *losses.entry(cause).or_default() += 1;
    }

    /// Data packets of `node`'s own flows and their ACKs held while waiting
    /// for a route, counted as semi-TCP counts held data.
    pub(crate) fn routing_held(&self, node: NodeId, counts: impl Fn(&Packet) -> bool) -> usize {
        self.routing.buffered(node).filter(|p| counts(p)).count()
    }

    /// The next hop `node` would give a packet for `dst` now: the static
    /// route, or AODV's active route (None if it has none).
    pub fn route_next_hop(&mut self, node: NodeId, dst: NodeId) -> Option<NodeId> {
        let now = self.queue.now();
        match &mut self.routing {
            Routing::Static(routes) => routes.next_hop(node, dst),
            Routing::Aodv(aodv) => aodv.nodes[node.index()].table.next_hop(dst, now),
        }
    }

    /// The run's routing summary (RunReport.routing).
    pub(crate) fn routing_report(&self) -> RoutingReport {
        let delivered: u64 = self.flows.iter().map(|f| f.stats.window_delivered_bytes).sum();
        let mut r = RoutingReport { protocol: self.routing.name().to_string(), ..Default::default() };
        r.window_delivered_bytes = delivered;
        if let Routing::Aodv(aodv) = &self.routing {
            let mut discovery_ns = 0u128;
            for n in &aodv.nodes {
                let s = &n.stats;
                r.rreq_sent += s.rreq_sent;
                r.rreq_originated += s.rreq_originated;
                r.rrep_sent += s.rrep_sent;
                r.rerr_sent += s.rerr_sent;
                r.hello_sent += s.hello_sent;
                r.control_packets_sent += s.rreq_sent + s.rrep_sent + s.rerr_sent + s.hello_sent;
                r.control_bytes_sent += s.control_bytes_sent;
                r.window_control_bytes_sent += s.window_control_bytes_sent;
                r.control_drops += s.control_drops;
                r.route_discoveries += s.discoveries.values().sum::<u64>();
                r.discoveries_failed += s.discoveries_failed;
                r.local_repairs += s.local_repairs;
                r.link_breaks += s.link_breaks;
                r.rerr_rate_limited += s.rerr_rate_limited;
                discovery_ns += s.discovery_time_total_ns;
                r.discoveries_succeeded += s.discoveries_succeeded;
            }
            if r.discoveries_succeeded > 0 {
                r.mean_discovery_ms = discovery_ns as f64 / r.discoveries_succeeded as f64 / 1e6;
            }
            if delivered > 0 {
                r.overhead = r.window_control_bytes_sent as f64 / delivered as f64;
            }
        }
        r
    }
}
