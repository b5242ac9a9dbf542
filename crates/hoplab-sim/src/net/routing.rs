//! The routing interface every protocol answers (docs/architecture.md,
//! "The traits"), one state machine per node. The engine enters it in one
//! shape, as it enters the MAC: [`Routing::handle`] takes one
//! [`RoutingInput`] (an event) and writes [`RoutingOutput`]s; queries
//! (`next_hop`, `peek_route`, `buffered`, `counters`) are accessors. A
//! protocol implements the events as the trait's per-event methods, its
//! internal structure (as ns-3's protocols have `RouteOutput`,
//! `RouteInput`, `NotifyInterfaceUp` ...), which `handle` dispatches to:
//!
//! - `route_output`: a packet originated here; `route_input`: a packet to
//!   forward; `on_delivered`: a packet for this node arrived (a route used);
//! - `on_control`: a routing packet arrived; `on_heard`: any frame was
//!   decoded from a neighbour (a sign of life); `on_overheard`: a unicast
//!   packet for another node was decoded (promiscuous listening, for the
//!   protocols whose MAC is asked for it, DSR);
//! - `on_link_failure`: the MAC gave up on a packet toward a next hop (a
//!   protocol that `salvages_failed` gets the packet to salvage or drop);
//!   `on_link_broken`: the protocol declared that link broken and the
//!   interface handed back the packets it had queued toward it;
//! - `on_timer`: one of the protocol's timers fired; `start`: the run
//!   begins (periodic timers); `on_control_dropped`: a routing packet it
//!   sent was lost below;
//! - `buffered`: the data packets waiting for a route.
//!
//! A protocol writes [`RoutingOutput`]s (packets to send, drops, timers,
//! broken links) and never touches another layer; the world carries them
//! out in order. Protocols are variants of [`RoutingProtocol`], dispatched
//! without allocation or dynamic dispatch.
//!
//! **Adding a protocol** (as DSR was): a folder beside `aodv/` with its state
//! machine implementing [`Routing`] and [`FromRoutingConfig`] (its node
//! built from `[routing]`, its report section and memory), one line in
//! `routing_protocols!` below, its `routing.protocol` name and keys
//! (`config.rs`), and its control packets in `wire/` (as
//! [`RoutingHeader`](crate::wire::RoutingHeader)).

use super::aodv::AodvNode;
use super::config::{RoutingConfig, RoutingProtocol as ProtocolName};
use super::dsr::DsrNode;
use super::static_routes::{StaticNode, StaticRoutes};
use crate::config::PresetRule;
use crate::engine::{Holding, Outputs, Section, Stream};
use crate::loss::DropCause;
use crate::time::SimTime;
use crate::wire::{NodeId, Packet};
use std::collections::BTreeMap;

/// What a routing protocol asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RoutingOutput {
    /// Hand a packet to the interface toward `next_hop` (or
    /// [`NodeId::BROADCAST`]).
    Send { packet: Packet, next_hop: NodeId },
    /// A packet is lost here.
    Drop { packet: Packet, cause: DropCause },
    /// Call `on_timer(id)` at `at` (a plain timer: the protocol tells the
    /// stale ones apart).
    Timer { id: u32, at: SimTime },
    /// The link to `neighbour` is broken: the interface is to hand back
    /// what it queued toward it (`on_link_broken`). `failed`: the packet
    /// whose MAC failure revealed it.
    LinkBroken { neighbour: NodeId, failed: Option<Packet> },
    /// The data packets this node holds for want of a route changed.
    BufferChanged,
    /// A packet this node originated was given up for want of a route: its
    /// source may send another (as when a packet enters service).
    SourceMayRefill { packet: Packet },
}

/// An event for a node's routing protocol: the input of
/// [`Routing::handle`] (one variant per event, as `MacInput` is the
/// MAC's). Packets the protocol only looks at are lent (`'p`).
#[derive(Debug)]
pub enum RoutingInput<'p> {
    /// The run begins (`start`).
    Start,
    /// A packet originated here (`route_output`).
    Originate(Packet),
    /// A data packet from `from` to forward (`route_input`).
    Forward { packet: Packet, from: NodeId },
    /// A data packet for this node arrived from `from` (`on_delivered`).
    Delivered { packet: &'p Packet, from: NodeId },
    /// A routing packet arrived from `from` (`on_control`).
    Control { packet: Packet, from: NodeId },
    /// A frame was decoded from `from` (`on_heard`).
    Heard { from: NodeId },
    /// A unicast packet from `from` to another node was decoded
    /// (`on_overheard`).
    Overheard { packet: &'p Packet, from: NodeId },
    /// The MAC gave up on `packet` toward `next_hop` (`on_link_failure`;
    /// `lost` as there).
    LinkFailure { packet: &'p Packet, next_hop: NodeId, lost: Option<DropCause> },
    /// The interface handed back what it queued toward a neighbour the
    /// protocol declared unreachable (`on_link_broken`).
    LinkBroken { neighbour: NodeId, failed: Option<&'p Packet>, queued: Vec<Packet> },
    /// The protocol's timer `id` fired (`on_timer`).
    Timer(u32),
    /// A routing packet this node sent was dropped below
    /// (`on_control_dropped`).
    ControlDropped,
}

/// What a protocol gets from its surroundings.
pub struct RoutingContext<'a> {
    pub node: NodeId,
    /// The run's packet identities: a protocol creating a packet takes the
    /// next one.
    pub next_uid: &'a mut u64,
    /// Start of the measurement window (window counters).
    pub warmup: SimTime,
}

impl RoutingContext<'_> {
    pub fn new_uid(&mut self) -> u64 {
        let uid = *self.next_uid;
        *self.next_uid += 1;
        uid
    }
}

/// One node's routing counters, in the protocol's own message names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoutingCounters {
    /// Control messages transmitted, by name ("rreq", "rrep", ...), every
    /// hop counted.
    pub messages_sent: BTreeMap<&'static str, u64>,
    /// IP bytes of every routing packet sent (each hop counts).
    pub control_bytes_sent: u64,
    /// The same, sent in the measurement window.
    pub window_control_bytes_sent: u64,
    /// Routing packets this node dropped (queue overflow, no route, MAC).
    pub control_drops: u64,
    /// Route requests this node originated (discovery attempts).
    pub requests_originated: u64,
    /// Route errors not sent because of a rate limit.
    pub errors_rate_limited: u64,
    /// Route discoveries started, by destination (local repairs excluded).
    pub discoveries: BTreeMap<NodeId, u64>,
    pub local_repairs: u64,
    pub discoveries_failed: u64,
    pub discoveries_succeeded: u64,
    pub discovery_time_total_ns: u128,
    /// Routes lost to a received route error, by destination.
    pub errors_received: BTreeMap<NodeId, u64>,
    /// Links found broken (MAC feedback or neighbour loss).
    pub link_breaks: u64,
}

impl RoutingCounters {
    /// Counters naming each of the protocol's messages (zero until sent),
    /// so that reports list every kind.
    pub fn with_messages(names: &[&'static str]) -> Self {
        RoutingCounters { messages_sent: names.iter().map(|&n| (n, 0)).collect(), ..Default::default() }
    }

    pub fn message_sent(&mut self, name: &'static str) {
        *self.messages_sent.entry(name).or_default() += 1;
    }
}

/// A routing protocol at one node.
pub trait Routing {
    fn name(&self) -> &'static str;
    /// One event in, its outputs written to `out`: the one entry the
    /// engine uses (`world/network.rs`). It calls the per-event method the
    /// input names, so a protocol implements those.
    #[inline(always)]
    fn handle(&mut self, now: SimTime, input: RoutingInput<'_>, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        match input {
            RoutingInput::Start => self.start(now, ctx, out),
            RoutingInput::Originate(packet) => self.route_output(now, packet, ctx, out),
            RoutingInput::Forward { packet, from } => self.route_input(now, packet, from, ctx, out),
            RoutingInput::Delivered { packet, from } => self.on_delivered(now, packet, from),
            RoutingInput::Control { packet, from } => self.on_control(now, packet, from, ctx, out),
            RoutingInput::Heard { from } => self.on_heard(now, from),
            RoutingInput::Overheard { packet, from } => self.on_overheard(now, packet, from, ctx, out),
            RoutingInput::LinkFailure { packet, next_hop, lost } => self.on_link_failure(now, packet, next_hop, lost, ctx, out),
            RoutingInput::LinkBroken { neighbour, failed, queued } => self.on_link_broken(now, neighbour, failed, queued, ctx, out),
            RoutingInput::Timer(id) => self.on_timer(now, id, ctx, out),
            RoutingInput::ControlDropped => self.on_control_dropped(),
        }
    }
    fn start(&mut self, now: SimTime, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>);
    fn route_output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>);
    fn route_input(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>);
    fn on_delivered(&mut self, now: SimTime, packet: &Packet, from: NodeId);
    fn on_control(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>);
    fn on_heard(&mut self, now: SimTime, from: NodeId);
    /// A unicast packet from `from` to another node was decoded (only when
    /// the MAC listens promiscuously for this protocol).
    fn on_overheard(
        &mut self,
        _now: SimTime,
        _packet: &Packet,
        _from: NodeId,
        _ctx: &mut RoutingContext,
        _out: &mut Outputs<RoutingOutput>,
    ) {
    }
    /// Whether a packet the MAC gave up on is handed to `on_link_failure`
    /// to salvage (`lost` is then its cause if the protocol drops it);
    /// otherwise the world drops it before telling the protocol.
    fn salvages_failed(&self) -> bool {
        false
    }
    /// Whether `packet`, sent by this protocol, carries a transmit-failure
    /// callback in ns-2 (`hdr_cmn::xmit_failure_`): where ns-2's ARP gives
    /// up on its next hop, such a packet goes to `on_link_failure` and any
    /// other is dropped (mac/arp.cc:159-179). By default the data packets
    /// (ns-2's AODV sets it in `rt_resolve`, aodv/aodv.cc:446, on what it
    /// routes, and builds its own messages without it).
    fn has_failure_callback(&self, packet: &Packet) -> bool {
        !packet.is_control()
    }
    /// `lost`: with [`Routing::salvages_failed`], the cause the packet is
    /// lost with unless the protocol sends it on (None: the next hop holds
    /// it, or the world dropped it already).
    fn on_link_failure(
        &mut self,
        now: SimTime,
        packet: &Packet,
        next_hop: NodeId,
        lost: Option<DropCause>,
        ctx: &mut RoutingContext,
        out: &mut Outputs<RoutingOutput>,
    );
    fn on_link_broken(
        &mut self,
        now: SimTime,
        neighbour: NodeId,
        failed: Option<&Packet>,
        queued: Vec<Packet>,
        ctx: &mut RoutingContext,
        out: &mut Outputs<RoutingOutput>,
    );
    fn on_timer(&mut self, now: SimTime, id: u32, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>);
    /// A routing packet this node sent was dropped below (counted).
    fn on_control_dropped(&mut self);
    /// The next hop a packet for `dst` would take now, if any.
    fn next_hop(&mut self, now: SimTime, dst: NodeId) -> Option<NodeId>;
    /// The route this node's state gives `dst` at `now`, read without
    /// changing anything (no expiry settled, no cache entry touched, so a
    /// recorded run simulates what an unrecorded one does; `record/`):
    /// the hops after this node, up to `dst` for a source route (DSR), the
    /// next hop alone for hop-by-hop protocols; None without a usable route.
    fn peek_route(&self, _now: SimTime, _dst: NodeId) -> Option<Vec<NodeId>> {
        None
    }
    /// Data packets held while a route is looked for.
    fn buffered(&self) -> Buffered<'_>;
    fn counters(&self) -> Option<&RoutingCounters>;
    /// Route cache entries held (memory accounting).
    fn cache_entries(&self) -> usize {
        0
    }
}

/// The packets a protocol holds for want of a route (an iterator over
/// them, without allocation).
pub enum Buffered<'a> {
    None,
    Aodv(super::aodv::request_queue::Iter<'a>),
    /// DSR's send buffer, then the packets a reply released that wait
    /// out their spacing.
    Dsr(super::dsr::Held<'a>),
}

impl<'a> Iterator for Buffered<'a> {
    type Item = &'a Packet;
    fn next(&mut self) -> Option<&'a Packet> {
        match self {
            Buffered::None => None,
            Buffered::Aodv(i) => i.next(),
            Buffered::Dsr(i) => i.next(),
        }
    }
}

/// Builds a protocol's node from the scenario's `[routing]` (one
/// implementation per protocol, called by [`RoutingProtocol::build`]).
pub trait FromRoutingConfig: Sized {
    /// Its rules of `preset = "ns2"` (ns-2's behaviour where it differs
    /// from the RFC), declared beside its config.
    const NS2_RULES: &'static [PresetRule] = &[];
    /// Node `node`'s protocol state: its parameters, its random stream,
    /// and (static routing) the shortest paths of the initial topology.
    fn from_config(config: &RoutingConfig, node: NodeId, rng: Stream, routes: &StaticRoutes) -> Self;

    /// This protocol's part of the report's `routing` section, from every
    /// node's state (empty unless the protocol counts something of its own).
    fn network_section<'a>(_nodes: impl Iterator<Item = &'a Self>) -> Section
    where
        Self: 'a,
    {
        Section::new()
    }

    /// What the protocol holds beyond the interface queues, over every
    /// node (memory accounting, `World::holdings`).
    fn holdings<'a>(_nodes: impl Iterator<Item = &'a Self>) -> Vec<Holding>
    where
        Self: 'a,
    {
        Vec::new()
    }

    /// The keys of its report section, by part (`"routing.<name>"`).
    fn report_keys() -> Vec<(&'static str, Vec<String>)> {
        Vec::new()
    }
}

impl<T: FromRoutingConfig> FromRoutingConfig for Box<T> {
    const NS2_RULES: &'static [PresetRule] = T::NS2_RULES;
    fn from_config(config: &RoutingConfig, node: NodeId, rng: Stream, routes: &StaticRoutes) -> Self {
        Box::new(T::from_config(config, node, rng, routes))
    }
    fn network_section<'a>(nodes: impl Iterator<Item = &'a Self>) -> Section
    where
        Self: 'a,
    {
        T::network_section(nodes.map(|b| &**b))
    }
    fn holdings<'a>(nodes: impl Iterator<Item = &'a Self>) -> Vec<Holding>
    where
        Self: 'a,
    {
        T::holdings(nodes.map(|b| &**b))
    }
    fn report_keys() -> Vec<(&'static str, Vec<String>)> {
        T::report_keys()
    }
}

/// The registry of routing protocols: one line per protocol, its variant
/// of [`RoutingProtocol`] (named as its `routing.protocol` variant in
/// `net/config.rs`) and its node type. The macro writes the enum, its
/// dispatch of [`Routing`] without allocation or dynamic dispatch, and the
/// building, report and memory hooks the world calls.
macro_rules! routing_protocols {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        /// The protocols (`routing.protocol`).
        #[derive(Debug, Clone)]
        pub enum RoutingProtocol {
            $($(#[$doc])* $variant($ty),)*
        }

        macro_rules! each {
            ($self:ident, $r:ident => $e:expr) => {
                match $self {
                    $(RoutingProtocol::$variant($r) => $e,)*
                }
            };
        }

        impl RoutingProtocol {
            /// Node `node`'s protocol, as `[routing]` says.
            pub fn build(config: &RoutingConfig, node: NodeId, rng: Stream, routes: &StaticRoutes) -> RoutingProtocol {
                match config.protocol {
                    $(ProtocolName::$variant => RoutingProtocol::$variant(<$ty>::from_config(config, node, rng, routes)),)*
                }
            }

            /// The protocol's own part of the report's `routing` section,
            /// over every node (`nodes` all run one protocol).
            pub fn network_section(nodes: &[RoutingProtocol]) -> Section {
                match nodes.first() {
                    $(Some(RoutingProtocol::$variant(_)) => <$ty>::network_section(
                        nodes.iter().filter_map(|n| match n { RoutingProtocol::$variant(r) => Some(r), #[allow(unreachable_patterns)] _ => None }),
                    ),)*
                    None => Section::new(),
                }
            }

            /// What the protocols hold beyond the interface queues.
            pub fn holdings(nodes: &[RoutingProtocol]) -> Vec<Holding> {
                match nodes.first() {
                    $(Some(RoutingProtocol::$variant(_)) => <$ty>::holdings(
                        nodes.iter().filter_map(|n| match n { RoutingProtocol::$variant(r) => Some(r), #[allow(unreachable_patterns)] _ => None }),
                    ),)*
                    None => Vec::new(),
                }
            }

            /// Every protocol's ns-2 preset rules, in registry order.
            pub fn ns2_rules() -> impl Iterator<Item = &'static PresetRule> {
                [$(<$ty>::NS2_RULES),*].into_iter().flatten()
            }

            /// Every protocol's report keys, by part of the report.
            pub fn report_keys() -> Vec<(&'static str, Vec<String>)> {
                let mut keys = Vec::new();
                $(keys.extend(<$ty>::report_keys());)*
                keys
            }
        }
    };
}

routing_protocols! {
    /// Shortest paths computed once from the initial positions.
    Static(StaticNode),
    /// AODV (RFC 3561).
    Aodv(Box<AodvNode>),
    /// DSR (RFC 4728).
    Dsr(Box<DsrNode>),
}

impl Routing for RoutingProtocol {
    fn name(&self) -> &'static str {
        each!(self, r => r.name())
    }
    /// The protocol's own `handle`: one dispatch on the protocol, then on
    /// the input inside it.
    #[inline(always)]
    fn handle(&mut self, now: SimTime, input: RoutingInput<'_>, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        each!(self, r => r.handle(now, input, ctx, out))
    }
    fn start(&mut self, now: SimTime, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        each!(self, r => r.start(now, ctx, out))
    }
    fn route_output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        each!(self, r => r.route_output(now, packet, ctx, out))
    }
    fn route_input(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        each!(self, r => r.route_input(now, packet, from, ctx, out))
    }
    fn on_delivered(&mut self, now: SimTime, packet: &Packet, from: NodeId) {
        each!(self, r => r.on_delivered(now, packet, from))
    }
    fn on_control(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        each!(self, r => r.on_control(now, packet, from, ctx, out))
    }
    fn on_heard(&mut self, now: SimTime, from: NodeId) {
        each!(self, r => r.on_heard(now, from))
    }
    fn on_overheard(&mut self, now: SimTime, packet: &Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        each!(self, r => r.on_overheard(now, packet, from, ctx, out))
    }
    fn salvages_failed(&self) -> bool {
        each!(self, r => r.salvages_failed())
    }
    fn has_failure_callback(&self, packet: &Packet) -> bool {
        each!(self, r => r.has_failure_callback(packet))
    }
    fn on_link_failure(
        &mut self,
        now: SimTime,
        packet: &Packet,
        next_hop: NodeId,
        lost: Option<DropCause>,
        ctx: &mut RoutingContext,
        out: &mut Outputs<RoutingOutput>,
    ) {
        each!(self, r => r.on_link_failure(now, packet, next_hop, lost, ctx, out))
    }
    fn on_link_broken(
        &mut self,
        now: SimTime,
        neighbour: NodeId,
        failed: Option<&Packet>,
        queued: Vec<Packet>,
        ctx: &mut RoutingContext,
        out: &mut Outputs<RoutingOutput>,
    ) {
        each!(self, r => r.on_link_broken(now, neighbour, failed, queued, ctx, out))
    }
    fn on_timer(&mut self, now: SimTime, id: u32, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        each!(self, r => r.on_timer(now, id, ctx, out))
    }
    fn on_control_dropped(&mut self) {
        each!(self, r => r.on_control_dropped())
    }
    fn next_hop(&mut self, now: SimTime, dst: NodeId) -> Option<NodeId> {
        each!(self, r => r.next_hop(now, dst))
    }
    fn peek_route(&self, now: SimTime, dst: NodeId) -> Option<Vec<NodeId>> {
        each!(self, r => r.peek_route(now, dst))
    }
    fn buffered(&self) -> Buffered<'_> {
        each!(self, r => r.buffered())
    }
    fn counters(&self) -> Option<&RoutingCounters> {
        each!(self, r => r.counters())
    }
    fn cache_entries(&self) -> usize {
        each!(self, r => r.cache_entries())
    }
}
