//! Wiring of the network layer: forwarding (deliver here, or decrement the
//! TTL and route on), each node's routing protocol and its outputs, the
//! choice of interface (a wired link or the 802.11 MAC), and the drop
//! accounting every layer reports into.

use super::{Event, Layer, World};
use crate::engine::Outputs;
use crate::loss::DropCause;
use crate::mac::MacInput;
use crate::net::routing::{Routing, RoutingContext, RoutingInput, RoutingOutput, RoutingProtocol};
use crate::queue::Queued;
use crate::stack::Stack;
use crate::stats::report::RoutingReport;
use crate::wire::{NodeId, Packet};

impl World {
    /// Hand `node`'s routing protocol one event (its one entry,
    /// `Routing::handle`, as the MAC's is `Mac::handle`) and carry out
    /// its outputs.
    #[inline(always)]
    fn routing_step(&mut self, node: NodeId, input: RoutingInput<'_>) {
        self.routing_step_after(node, false, input);
    }

    /// [`World::routing_step`]; `channel_failure`: the step handles a link
    /// failure whose last attempt a channel error took, so that the
    /// packets it drops as `route_break` are wireless losses in the ground
    /// truth of loss differentiation (stats::classification).
    /// Inlined at each call site, so that the input's variant is known
    /// there and `handle`'s match on it folds away, leaving the call each
    /// site made before the one entry (measured: without it, 2.6-3.5 %
    /// more instructions on bench-chain15-udp and manet-20-tcp).
    #[inline(always)]
    fn routing_step_after(&mut self, node: NodeId, channel_failure: bool, input: RoutingInput<'_>) {
        let now = self.now();
        let mut out = Outputs::new();
        {
            let mut ctx = RoutingContext { node, next_uid: &mut self.next_uid, warmup: self.warmup };
            self.routing[node.index()].handle(now, input, &mut ctx, &mut out);
        }
        if !out.is_empty() {
            self.routing_outputs(node, &out, channel_failure);
        }
    }

    /// Carry out a routing step's outputs, in order. `out` is lent, not
    /// moved: a move copies the whole list (four outputs inline, 840
    /// bytes) on every step that has one.
    fn routing_outputs(&mut self, node: NodeId, out: &Outputs<RoutingOutput>, channel_failure: bool) {
        // Read in place: taking each output out copies it (208 bytes).
        for output in out.iter() {
            match output {
                RoutingOutput::Send { packet, next_hop } => self.net_enqueue(node, packet, *next_hop),
                RoutingOutput::Drop { packet, cause } => self.drop_lost(node, packet, *cause, channel_failure),
                &RoutingOutput::Timer { id, at } => {
                    self.queue.schedule(at, Event::new(node.0, Layer::Routing, id));
                }
                &RoutingOutput::LinkBroken { neighbour, ref failed } => {
                    if let Some(packet) = failed {
                        self.flows[packet.flow as usize].stats.route_breaks += 1;
                    }
                    let now = self.now();
                    let queued = self.nodes[node.index()].mac.take_queued_toward(now, neighbour);
                    self.routing_step_after(node, channel_failure, RoutingInput::LinkBroken { neighbour, failed: failed.as_ref(), queued });
                }
                RoutingOutput::BufferChanged => self.hop_update(node),
                RoutingOutput::SourceMayRefill { packet } => Stack::source_gave_up(self, node, &packet.info()),
            }
        }
    }

    /// The run starts: each protocol arms its periodic timers.
    pub(crate) fn routing_start(&mut self) {
        for i in 0..self.nodes.len() {
            self.routing_step(NodeId(i as u32), RoutingInput::Start);
        }
    }

    /// A routing protocol's timer fired.
    pub(crate) fn routing_timer(&mut self, node: NodeId, id: u32) {
        self.routing_step(node, RoutingInput::Timer(id));
    }

    /// A packet enters the network at its source (from a transport).
    pub(crate) fn net_originate(&mut self, node: NodeId, packet: Packet) {
        self.routing_step(node, RoutingInput::Originate(packet));
    }

    /// An interface of `node` delivered a packet received from `from`.
    /// Lent: a packet to forward is copied once, with its TTL one less,
    /// into routing's input (a packet moved in and then changed is copied
    /// twice, 200 bytes each time: docs/performance.md).
    pub(crate) fn net_receive(&mut self, node: NodeId, packet: &Packet, from: NodeId) {
        if packet.is_control() {
            return self.routing_step(node, RoutingInput::Control { packet: *packet, from });
        }
        if packet.dst == node {
            self.routing_step(node, RoutingInput::Delivered { packet, from });
            return Stack::deliver(self, *packet);
        }
        let ttl = packet.ttl.saturating_sub(1);
        if ttl == 0 {
            return self.drop_packet(node, &Packet { ttl, ..*packet }, DropCause::Ttl);
        }
        self.routing_step(node, RoutingInput::Forward { packet: Packet { ttl, ..*packet }, from });
    }

    /// `node` decoded a frame from `from` (any frame, for it or overheard).
    pub(crate) fn routing_heard(&mut self, node: NodeId, from: NodeId) {
        self.routing_step(node, RoutingInput::Heard { from });
    }

    /// `node` overheard a unicast packet from `from` to another node
    /// (promiscuous listening, DSR).
    pub(crate) fn routing_overheard(&mut self, node: NodeId, packet: &Packet, from: NodeId) {
        self.routing_step(node, RoutingInput::Overheard { packet, from });
    }

    /// The MAC gave up on `packet` toward `next_hop` (retry limit):
    /// link-layer feedback for routing. `lost`: the packet is the
    /// protocol's to salvage, lost with this cause unless it sends it on;
    /// `channel_failure`: a channel error took the last attempt.
    pub(crate) fn net_link_failure(
        &mut self,
        node: NodeId,
        packet: &Packet,
        next_hop: NodeId,
        lost: Option<DropCause>,
        channel_failure: bool,
    ) {
        self.routing_step_after(node, channel_failure, RoutingInput::LinkFailure { packet, next_hop, lost });
    }

    /// Hand a packet to the interface toward `next_hop`: a wired link if
    /// there is one, else the 802.11 MAC. Lent, and copied once into the
    /// interface: each move of a packet through a call is a copy (200
    /// bytes, docs/performance.md).
    pub(crate) fn net_enqueue(&mut self, node: NodeId, packet: &Packet, next_hop: NodeId) {
        if !self.wired_interfaces.is_empty() {
            if let Some(&(link, direction)) = self.wired_interfaces.get(&(node, next_hop)) {
                self.link_enqueue(link, direction, *packet);
                return;
            }
        }
        if !self.arp.is_empty() {
            return self.arp_resolve(node, packet, next_hop);
        }
        self.radio_enqueue(node, packet, next_hop);
    }

    /// Hand a packet to the 802.11 interface queue, through the link
    /// layer's delay.
    pub(crate) fn radio_enqueue(&mut self, node: NodeId, packet: &Packet, next_hop: NodeId) {
        if self.timing.ll_delay > crate::time::SimDuration::ZERO {
            return self.ll_enter(node, super::ll::Transit::Down { node, item: Queued { packet: *packet, next_hop } });
        }
        self.mac_input(node, MacInput::Enqueue(Queued { packet: *packet, next_hop }));
    }

    /// Count a lost packet at the node that lost it and against its flow.
    /// A routing packet counts among the node's routing drops only, so that
    /// node drops add up to the flows' losses.
    pub(crate) fn drop_packet(&mut self, node: NodeId, packet: &Packet, cause: DropCause) {
        self.drop_lost(node, packet, cause, false);
    }

    /// [`World::drop_packet`]; `channel_failure`: dropped while routing
    /// handled a link failure a channel error caused (a `route_break`
    /// drop is then a wireless loss in the ground truth).
    fn drop_lost(&mut self, node: NodeId, packet: &Packet, cause: DropCause, channel_failure: bool) {
        if packet.arp().is_some() {
            return self.arp_packet_lost();
        }
        if packet.is_control() {
            return self.routing_step(node, RoutingInput::ControlDropped);
        }
        *self.nodes[node.index()].drops.entry(cause).or_default() += 1;
        let stats = &mut self.flows[packet.flow as usize].stats;
        let losses = if packet.is_reverse() { &mut stats.ack_losses } else { &mut stats.losses };
        *losses.entry(cause).or_default() += 1;
        if let (Some(truth), false) = (&mut stats.loss_classification, packet.is_reverse()) {
            let wireless = cause == DropCause::ChannelError || (cause == DropCause::RouteBreak && channel_failure);
            truth.on_drop(packet.sequence, wireless);
        }
    }

    /// Data packets `node` holds while waiting for a route that `counts`
    /// accepts.
    pub(crate) fn routing_held(&self, node: NodeId, counts: impl Fn(&Packet) -> bool) -> usize {
        self.routing[node.index()].buffered().filter(|p| counts(p)).count()
    }

    /// The packets `node` holds while waiting for a route.
    pub fn routing_buffered(&self, node: NodeId) -> impl Iterator<Item = &Packet> {
        self.routing[node.index()].buffered()
    }

    /// The next hop `node` would give a packet for `dst` now: the static
    /// route, or AODV's active route (None if it has none).
    pub fn route_next_hop(&mut self, node: NodeId, dst: NodeId) -> Option<NodeId> {
        let now = self.now();
        self.routing[node.index()].next_hop(now, dst)
    }

    /// The run's routing summary (RunReport.routing).
    pub(crate) fn routing_report(&self) -> RoutingReport {
        let delivered: u64 = self.flows.iter().map(|f| f.stats.window_delivered_bytes).sum();
        let mut r = RoutingReport { protocol: self.routing[0].name().to_string(), ..Default::default() };
        r.window_delivered_bytes = delivered;
        let mut discovery_ns = 0u128;
        for s in self.routing.iter().filter_map(|n| n.counters()) {
            for (&name, &n) in &s.messages_sent {
                *r.messages_sent.entry(name.to_string()).or_default() += n;
            }
            r.requests_originated += s.requests_originated;
            r.control_packets_sent += s.messages_sent.values().sum::<u64>();
            r.control_bytes_sent += s.control_bytes_sent;
            r.window_control_bytes_sent += s.window_control_bytes_sent;
            r.control_drops += s.control_drops;
            r.route_discoveries += s.discoveries.values().sum::<u64>();
            r.discoveries_failed += s.discoveries_failed;
            r.local_repairs += s.local_repairs;
            r.link_breaks += s.link_breaks;
            r.errors_rate_limited += s.errors_rate_limited;
            discovery_ns += s.discovery_time_total_ns;
            r.discoveries_succeeded += s.discoveries_succeeded;
        }
        r.protocol_counters = RoutingProtocol::network_section(&self.routing);
        if r.discoveries_succeeded > 0 {
            r.mean_discovery_ms = discovery_ns as f64 / r.discoveries_succeeded as f64 / 1e6;
        }
        if delivered > 0 {
            r.overhead = r.window_control_bytes_sent as f64 / delivered as f64;
        }
        r
    }
}
