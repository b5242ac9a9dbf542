//! DSR, the Dynamic Source Routing protocol (RFC 4728), with ns-2's CMU
//! DSR choices where the RFC leaves one (`config.rs` names each).
//!
//! Owns, per node ([`DsrNode`], a sans-IO state machine behind the
//! [`Routing`] trait): the route cache, the send buffer, the route request
//! table (duplicate requests, and each target's discovery and back-off),
//! the last route error received, the gratuitous-reply hold-down, and the
//! uids of overheard packets. Does not own: how a hop is crossed (the MAC,
//! whose retry-limit failures arrive as `on_link_failure`, and whose
//! overheard unicast frames arrive as `on_overheard`).
//!
//! Files, one concern each:
//! - `config.rs`: the parameters of section 9 and the options;
//! - `cache.rs`: the route cache (4.1; ns-2's MobiCache);
//! - `discovery.rs`: Route Discovery: originating requests (non-propagating
//!   first, then propagating, with back-off, 8.2.1), processing requests
//!   (8.2.2), replies from the target (8.2.4) and from caches (8.2.3),
//!   accepting replies (8.2.6);
//! - `maintenance.rs`: Route Maintenance: link-layer failure feedback
//!   (8.3.1), route errors (8.3.4, 8.3.5), salvaging (8.4.1);
//! - `forward.rs`: data packets (route_output / route_input, 8.1), the
//!   send buffer (4.2), walking source routes;
//! - `tap.rs`: promiscuous listening (8.1.4) and gratuitous replies
//!   (automatic route shortening, 8.4.3).
//! - `node_tests/`: one node driven through the trait, no World.
//!
//! The header (source routes and options, section 6) is in `wire::dsr`.
//! Control packets (Route Request, Reply, Error) are `PacketKind::Control`
//! (they jump the interface queue); requests are broadcast, replies and
//! errors unicast along their source route with RTS/CTS as ns-2 sends them.
//! A data packet carries its source route in its header: its
//! `header_bytes` grow by the DSR header's bytes, so they count on the air.
//!
//! Decisions where neither the RFC nor ns-2 fixes the model (docs/dsr.md):
//! - Timers are events, not ns-2's send-buffer poll every 30-60 ms
//!   (dsragent.cc:233-240): the propagating request goes exactly
//!   NonpropRequestTimeout after the non-propagating one, and buffered
//!   packets expire exactly SendBufferTimeout after they arrived.
//! - ns-2 paces the packets a reply releases 30 ms apart for ARP
//!   (dsragent.cc:1793-1798): `reply_release_spacing_ms` (0 by default,
//!   30 with `preset = "ns2"`); packets released otherwise go at once.
//! - ns-2's flow-state extension (dsragent.cc:110, RFC 4728 3.5, optional)
//!   is not modelled: every data packet carries its full source route.
//! - A forwarded packet that cannot be salvaged from the cache is dropped
//!   (RFC 8.4.1), or with `salvage_by_discovery` (ns-2's NEW_SALVAGE_LOGIC,
//!   dsragent.cc:2424-2438) waits for one non-propagating request.
//! - A routing packet whose link breaks is dropped without a route error
//!   (ns-2 would salvage it or report the error to its sender); its link
//!   still leaves the cache and the packets queued behind it are salvaged.
//! - The request table keeps the highest request id seen per initiator
//!   (ns-2 requesttable.cc, without its 128-entry bound).

pub mod cache;
pub mod config;
pub mod discovery;
pub mod forward;
pub mod maintenance;
pub mod tap;

pub use config::DsrConfig;

use super::aodv::request_queue::RequestQueue;
use super::jitter::Parked;
pub use super::jitter::PendingSend;
use super::routing::{Buffered, Routing, RoutingContext, RoutingCounters, RoutingOutput};
use crate::engine::{Outputs, Stream};
use crate::loss::DropCause;
use crate::time::{SimDuration, SimTime};
use crate::wire::dsr::{DsrHeader, Path};
use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES};
use cache::RouteCache;
use std::collections::{BTreeMap, VecDeque};

/// The flow index carried by control packets (they belong to no flow).
pub const CONTROL_FLOW: u32 = u32::MAX;

/// Outputs of a DSR step.
pub type Out = Outputs<RoutingOutput>;

/// The IP TTL of DSR's control packets (ns-2 sets 255, dsragent.cc:1233).
pub const CONTROL_TTL: u8 = 255;

/// Slots of the overheard-uid filter (ns-2 `TAP_CACHE_SIZE`, dsragent.h:153).
pub const TAP_CACHE_SIZE: usize = 1024;

/// Routes remembered by the gratuitous-reply hold-down (ns-2
/// `RTREP_HOLDOFF_SIZE`, dsragent.h:79).
pub const GRAT_HOLD_SIZE: usize = 10;

/// A target's Route Discovery at its initiator: the request cycles so far
/// and their back-off (ns-2's request table `Entry`, requesttable.h:87-95).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discovery {
    /// Request cycles sent (ns-2 `rt_reqs_outstanding`).
    pub cycles: u32,
    /// When the last cycle began (ns-2 `last_rt_req`).
    pub cycle_started: SimTime,
    /// The last cycle sent its propagating request.
    pub propagated: bool,
    /// When the discovery timer fires (SimTime::MAX: not armed).
    pub timer_at: SimTime,
    /// Since when packets wait for this target (None: no discovery under
    /// way; the back-off state stays until a reply).
    pub active_since: Option<SimTime>,
}

/// DSR's timers, as the ids of [`RoutingOutput::Timer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DsrTimer {
    /// A discovery's next step for this target.
    Discovery(NodeId),
    /// The oldest buffered packet expires.
    SendBuffer,
    /// A jittered control packet (parking slot) may go.
    Send(u32),
    /// Packets a reply released are due (`reply_release_spacing_ms`).
    Release,
}

impl DsrTimer {
    pub fn id(self) -> u32 {
        match self {
            DsrTimer::Discovery(dst) => dst.0 << 2,
            DsrTimer::SendBuffer => 1,
            DsrTimer::Send(slot) => slot << 2 | 2,
            DsrTimer::Release => 3,
        }
    }

    pub fn from_id(id: u32) -> DsrTimer {
        match id & 3 {
            0 => DsrTimer::Discovery(NodeId(id >> 2)),
            1 => DsrTimer::SendBuffer,
            2 => DsrTimer::Send(id >> 2),
            _ => DsrTimer::Release,
        }
    }
}

/// A packet a reply released, with its route, waiting for its turn
/// (`reply_release_spacing_ms`).
#[derive(Debug, Clone, Copy)]
pub struct Paced {
    pub at: SimTime,
    pub send: PendingSend,
}

fn paced_packet(p: &Paced) -> &Packet {
    &p.send.packet
}

/// The packets DSR holds for want of a route: the send buffer, then the
/// released packets waiting out their spacing.
pub type Held<'a> = std::iter::Chain<
    super::aodv::request_queue::Iter<'a>,
    std::iter::Map<std::collections::vec_deque::Iter<'a, Paced>, fn(&'a Paced) -> &'a Packet>,
>;

/// ns-2's `dsr_salvage_max_requests` (dsragent.cc:100): the request cycles
/// a node runs for packets it salvages into its send buffer
/// (`salvage_by_discovery`).
pub const SALVAGE_MAX_REQUESTS: u32 = 1;

/// DSR's own counters, beside the protocol-neutral ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DsrCounters {
    /// Packets salvaged with another route (8.4.1).
    pub salvaged: u64,
    /// Route replies sent from the cache of an intermediate node (8.2.3).
    pub replies_from_cache: u64,
    /// Gratuitous route replies sent (8.4.3).
    pub gratuitous_replies: u64,
    /// Route errors that reached the node they were for.
    pub errors_received: u64,
}

impl DsrCounters {
    /// DSR's section of the run report (`routing.dsr`), these counters
    /// summed over the network.
    pub fn section(&self) -> crate::engine::Section {
        let dsr = serde_json::json!({
            "salvaged_packets": self.salvaged,
            "replies_from_cache": self.replies_from_cache,
            "gratuitous_replies": self.gratuitous_replies,
            "route_errors_received": self.errors_received,
        });
        crate::engine::Section::from([("dsr".to_string(), dsr)])
    }

    /// The section's keys (`_core.report_fields()["routing.dsr"]`).
    pub const KEYS: [&'static str; 4] = ["gratuitous_replies", "replies_from_cache", "route_errors_received", "salvaged_packets"];
}

/// What DSR's route caches hold: `paths` cached paths.
pub fn cache_holding(paths: u64) -> crate::engine::Holding {
    crate::engine::Holding::of(
        "route caches",
        paths,
        "paths",
        std::mem::size_of::<cache::CachedPath>() as u64,
        "use smaller route caches (routing.dsr.primary_cache_paths, secondary_cache_paths)",
    )
}

impl DsrConfig {
    /// The most a network of `nodes` DSR nodes holds, before it runs (DSR
    /// allocates as it learns: at most its caches' paths and its send
    /// buffer's packets per node).
    pub fn memory_bound(&self, nodes: u64) -> Vec<crate::engine::Holding> {
        let paths = nodes.saturating_mul((self.primary_cache_paths + self.secondary_cache_paths) as u64);
        let buffered = nodes.saturating_mul(self.send_buffer_packets as u64);
        vec![
            cache_holding(paths),
            crate::engine::Holding::of(
                "send buffers",
                buffered,
                "packets",
                super::aodv::request_queue::ENTRY_BYTES,
                "use a smaller send buffer (routing.dsr.send_buffer_packets)",
            ),
        ]
    }
}

/// One node's DSR.
#[derive(Debug, Clone)]
pub struct DsrNode {
    pub config: DsrConfig,
    pub cache: RouteCache,
    /// The send buffer (4.2): the same bounded FIFO as AODV's request queue.
    pub send_buffer: RequestQueue,
    /// When the send buffer's expiry timer fires (SimTime::MAX: not armed).
    pub buffer_timer_at: SimTime,
    /// Packets a reply released, in release order, each with its time.
    pub paced: VecDeque<Paced>,
    /// The highest Route Request id seen from each initiator (4.3).
    pub seen_requests: BTreeMap<NodeId, u16>,
    /// Discoveries by target.
    pub discoveries: BTreeMap<NodeId, Discovery>,
    /// The id of the node's next Route Request.
    pub next_request_id: u16,
    /// The last Route Error received for this node: the link and when.
    pub last_error: Option<(NodeId, NodeId, SimTime)>,
    /// Routes a gratuitous reply was sent for, and when (a ring).
    pub grat_hold: Vec<(Path, SimTime)>,
    grat_victim: usize,
    /// Uids of the packets overheard lately (ns-2 `tap_uid_cache`):
    /// `uid + 1` at `uid % TAP_CACHE_SIZE`, allocated at the first tap.
    tap_seen: Vec<u64>,
    /// Jitter draws (StreamPurpose::Routing, this node).
    pub rng: Stream,
    pub stats: RoutingCounters,
    pub dsr_stats: DsrCounters,
    pending: Parked,
}

impl DsrNode {
    /// `rng`: the node's routing stream (jitter).
    pub fn new(config: DsrConfig, rng: Stream) -> DsrNode {
        DsrNode {
            cache: RouteCache::new(
                config.primary_cache_paths as usize,
                config.secondary_cache_paths as usize,
                config.route_cache_timeout(),
            ),
            send_buffer: RequestQueue::new(config.send_buffer_packets as usize, config.send_buffer_timeout_s),
            buffer_timer_at: SimTime::MAX,
            paced: VecDeque::new(),
            seen_requests: BTreeMap::new(),
            discoveries: BTreeMap::new(),
            next_request_id: 1,
            last_error: None,
            grat_hold: Vec::new(),
            grat_victim: 0,
            tap_seen: Vec::new(),
            rng,
            stats: RoutingCounters::with_messages(&DsrHeader::NAMES),
            dsr_stats: DsrCounters::default(),
            pending: Parked::default(),
            config,
        }
    }

    /// A uniform jitter in [0, BroadcastJitter).
    fn jitter(&mut self) -> SimDuration {
        let max = self.config.broadcast_jitter_ms;
        if max == SimDuration::ZERO {
            return SimDuration::ZERO;
        }
        SimDuration::from_nanos((self.rng.uniform_f64() * max.as_nanos() as f64) as u64)
    }

    /// A new control packet from this node to `dst` carrying `header`.
    pub(crate) fn control_packet(&self, header: DsrHeader, dst: NodeId, now: SimTime, ctx: &mut RoutingContext) -> Packet {
        Packet {
            uid: ctx.new_uid(),
            kind: PacketKind::Control,
            flow: CONTROL_FLOW,
            sequence: 0,
            src: ctx.node,
            dst,
            payload_bytes: header.buffer_len(),
            header_bytes: IP_HEADER_BYTES,
            created: now,
            ttl: CONTROL_TTL,
            transport: TransportHeader::Udp,
            routing: RoutingHeader::Dsr(header),
        }
    }

    /// Send a control packet to `next_hop` (or broadcast), after a jitter
    /// if asked.
    pub(crate) fn send_control(
        &mut self,
        now: SimTime,
        packet: Packet,
        next_hop: NodeId,
        jitter: bool,
        ctx: &mut RoutingContext,
        out: &mut Out,
    ) {
        let delay = if jitter { self.jitter() } else { SimDuration::ZERO };
        if delay > SimDuration::ZERO {
            let slot = self.pending.park(PendingSend { packet, next_hop });
            out.push(RoutingOutput::Timer { id: DsrTimer::Send(slot).id(), at: now + delay });
        } else {
            self.transmit_control(now, packet, next_hop, ctx, out);
        }
    }

    /// A control packet goes to the interface: counted by its message name.
    pub(crate) fn transmit_control(&mut self, now: SimTime, packet: Packet, next_hop: NodeId, ctx: &RoutingContext, out: &mut Out) {
        if let Some(name) = packet.dsr().and_then(|h| h.name()) {
            self.stats.message_sent(name);
        }
        let bytes = packet.size_bytes() as u64;
        self.stats.control_bytes_sent += bytes;
        if now >= ctx.warmup {
            self.stats.window_control_bytes_sent += bytes;
        }
        out.push(RoutingOutput::Send { packet, next_hop });
    }

    /// Whether the uid was overheard lately; remember it if not.
    pub(crate) fn tap_seen_before(&mut self, uid: u64) -> bool {
        if self.tap_seen.is_empty() {
            self.tap_seen = vec![0; TAP_CACHE_SIZE];
        }
        let slot = &mut self.tap_seen[(uid % TAP_CACHE_SIZE as u64) as usize];
        let seen = *slot == uid + 1;
        *slot = uid + 1;
        seen
    }

    /// Whether a gratuitous reply for `route` is held down; if not, it is
    /// recorded as sent now.
    pub(crate) fn grat_held_down(&mut self, route: &Path, now: SimTime) -> bool {
        let holdoff = self.config.grat_reply_holdoff_s;
        if let Some(entry) = self.grat_hold.iter_mut().find(|(p, _)| p == route) {
            if now.since(entry.1) < holdoff {
                return true;
            }
            entry.1 = now;
            return false;
        }
        if self.grat_hold.len() < GRAT_HOLD_SIZE {
            self.grat_hold.push((*route, now));
        } else {
            self.grat_hold[self.grat_victim] = (*route, now);
            self.grat_victim = (self.grat_victim + 1) % GRAT_HOLD_SIZE;
        }
        false
    }

    /// Paths the route cache holds (memory accounting).
    pub fn cache_slots(&self) -> usize {
        self.cache.slots()
    }

    /// Count a lost routing packet (this node sent or forwarded it).
    pub(crate) fn control_lost(&mut self) {
        self.stats.control_drops += 1;
    }
}

impl Routing for DsrNode {
    fn name(&self) -> &'static str {
        "dsr"
    }
    fn start(&mut self, _now: SimTime, _ctx: &mut RoutingContext, _out: &mut Outputs<RoutingOutput>) {}
    fn route_output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.output(now, packet, ctx, out)
    }
    fn route_input(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.input(now, packet, from, ctx, out)
    }
    fn on_delivered(&mut self, _now: SimTime, _packet: &Packet, _from: NodeId) {}
    fn on_control(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.receive(now, packet, from, ctx, out)
    }
    fn on_heard(&mut self, _now: SimTime, _from: NodeId) {}
    fn on_overheard(&mut self, now: SimTime, packet: &Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.overheard(now, packet, from, ctx, out)
    }
    fn salvages_failed(&self) -> bool {
        true
    }
    /// ns-2's DSR sets the callback on every packet it sends on a source
    /// route, its own messages included (dsr/dsragent.cc:1400-1418).
    fn has_failure_callback(&self, _packet: &Packet) -> bool {
        true
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
        self.link_failure(now, packet, next_hop, lost, ctx, out)
    }
    fn on_link_broken(
        &mut self,
        now: SimTime,
        neighbour: NodeId,
        _failed: Option<&Packet>,
        queued: Vec<Packet>,
        ctx: &mut RoutingContext,
        out: &mut Outputs<RoutingOutput>,
    ) {
        self.break_link(now, neighbour, queued, ctx, out)
    }
    fn on_timer(&mut self, now: SimTime, id: u32, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        match DsrTimer::from_id(id) {
            DsrTimer::Discovery(dst) => self.discovery_timer(now, dst, ctx, out),
            DsrTimer::SendBuffer => self.buffer_timer(now, ctx, out),
            DsrTimer::Send(slot) => {
                if let Some(send) = self.pending.unpark(slot) {
                    self.transmit_control(now, send.packet, send.next_hop, ctx, out);
                }
            }
            DsrTimer::Release => self.release_paced(now, out),
        }
    }
    fn on_control_dropped(&mut self) {
        self.control_lost();
    }
    fn next_hop(&mut self, now: SimTime, dst: NodeId) -> Option<NodeId> {
        self.cache.find(dst, now, false).map(|route| route.get(1))
    }
    fn peek_route(&self, now: SimTime, dst: NodeId) -> Option<Vec<NodeId>> {
        self.cache.peek(dst, now).map(|route| route.iter().skip(1).collect())
    }
    fn buffered(&self) -> Buffered<'_> {
        Buffered::Dsr(self.send_buffer.iter().chain(self.paced.iter().map(paced_packet as fn(&Paced) -> &Packet)))
    }
    fn counters(&self) -> Option<&RoutingCounters> {
        Some(&self.stats)
    }
    fn cache_entries(&self) -> usize {
        self.cache_slots()
    }
}

#[cfg(test)]
mod node_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_ids_round_trip() {
        for t in [
            DsrTimer::Discovery(NodeId(0)),
            DsrTimer::Discovery(NodeId(65_534)),
            DsrTimer::SendBuffer,
            DsrTimer::Send(9),
            DsrTimer::Release,
        ] {
            assert_eq!(DsrTimer::from_id(t.id()), t);
        }
    }
}

impl super::routing::FromRoutingConfig for DsrNode {
    const NS2_RULES: &'static [crate::config::PresetRule] = config::NS2_RULES;
    fn from_config(config: &super::config::RoutingConfig, _node: NodeId, rng: Stream, _routes: &super::StaticRoutes) -> Self {
        DsrNode::new(config.dsr.clone().unwrap_or_default(), rng)
    }
    fn network_section<'a>(nodes: impl Iterator<Item = &'a Self>) -> crate::engine::Section {
        let mut total = DsrCounters::default();
        for c in nodes.map(|n| &n.dsr_stats) {
            total.salvaged += c.salvaged;
            total.replies_from_cache += c.replies_from_cache;
            total.gratuitous_replies += c.gratuitous_replies;
            total.errors_received += c.errors_received;
        }
        total.section()
    }
    fn holdings<'a>(nodes: impl Iterator<Item = &'a Self>) -> Vec<crate::engine::Holding> {
        vec![cache_holding(nodes.map(|n| n.cache_entries() as u64).sum())]
    }
    fn report_keys() -> Vec<(&'static str, Vec<String>)> {
        vec![("routing.dsr", DsrCounters::KEYS.iter().map(|k| k.to_string()).collect())]
    }
}
