//! AODV, Ad hoc On-Demand Distance Vector routing (RFC 3561), with
//! link-layer feedback as ns-2 runs it.
//!
//! Owns, per node ([`AodvNode`], a sans-IO state machine behind the
//! [`Routing`] trait): the routing table,
//! sequence number, RREQ id and id cache, request queue, route discoveries
//! (expanding ring search, retries, rate limit), HELLO neighbours and
//! blacklist. Does not own: how a hop is crossed (the MAC, whose
//! retry-limit failures arrive as `on_link_failure`) or the packets'
//! meaning. It writes [`RoutingOutput`]s: control and data packets to send,
//! drops, timers, broken links.
//!
//! Files, one concern each (as ns-3's `src/aodv`):
//! - `config.rs`: the parameters of section 10 and the options;
//! - `table.rs`: the routing table and its update rules (6.1, 6.2, 6.7, 6.11);
//! - `id_cache.rs`: the RREQ id cache (6.3, 6.5);
//! - `request_queue.rs`: packets waiting for a route (6.3);
//! - `neighbours.rs`: HELLO neighbours, blacklist, rate limits (6.8-6.10);
//! - `discovery.rs`: originating RREQs, expanding ring search, retries,
//!   local repair (6.3, 6.4, 6.12);
//! - `receive.rs`: processing RREQ, RREP, HELLO (6.5-6.7, 6.9), sending
//!   control packets;
//! - `maintenance.rs`: link breaks, RERR (6.11), HELLO timer (6.9);
//! - `forward.rs`: data packets (route_output / route_input, 6.2).
//!
//! - `node_tests/`: one node driven through the trait, no World.
//!
//! The message formats (RREQ, RREP and HELLO, RERR; section 5) are in
//! `wire::aodv`, the wrapping sequence numbers (6.1) in `wire::seqno`.
//!
//! Control packets are `PacketKind::Control` (they jump the interface
//! queue); RREQ, RERR and HELLO are broadcast (no RTS/CTS, basic rate),
//! RREP unicast with RTS/CTS as ns-2 sends it.
//!
//! Decisions where the RFC leaves room (docs/model-fidelity.md, AODV):
//! - Discovery gives up after 1 + RREQ_RETRIES RREQs at TTL = NET_DIAMETER
//!   (6.3 "up to a maximum of RREQ_RETRIES times at the maximum TTL"; ns-2
//!   counts the same way); waits: RING_TRAVERSAL_TIME below NET_DIAMETER,
//!   then NET_TRAVERSAL_TIME doubled per retry (binary exponential backoff).
//! - Every RERR is broadcast with TTL 1 (ns-2), never unicast to a single
//!   precursor; a RERR caused by a data packet without a route (6.11 case
//!   (ii)) carries the stored sequence number unchanged (ns-2, ns-3).
//! - Only a data packet's retry-limit failure breaks a link (ns-2's
//!   `rt_ll_failed`); a failed RREP is dropped (and, optionally, its next
//!   hop blacklisted).
//! - Packets queued at the MAC toward a broken next hop are taken back:
//!   the node's own are buffered for a new discovery, forwarded ones are
//!   dropped with cause `route_break` (ns-2 drops all of them), unless a
//!   local repair buffers them.
//! - Precursors are added in both directions when a RREP is forwarded (ns-2
//!   and ns-3; the RFC names only the forward route's).
//! - The destination changes its sequence number for a RREP only as 6.6.1
//!   says (to the RREQ's if that is one more); ns-2 bumps it on every
//!   reply. So a RREP can die at a node whose route is as fresh and as
//!   short (6.7 forwards only after an update); with the 'D' flag this
//!   happens whenever the reverse path already routes to the destination.
//! - An intermediate node whose route to the destination goes back through
//!   the RREQ's sender does not answer it (AODV-UU's safeguard against a
//!   two-node loop after lost RERRs); it forwards the RREQ instead.

pub mod config;
pub mod discovery;
pub mod forward;
pub mod id_cache;
pub mod maintenance;
pub mod neighbours;
pub mod receive;
pub mod request_queue;
pub mod table;

pub use crate::wire::aodv::AodvMessage;
pub use crate::wire::seqno::SeqNumber;
pub use config::{AodvConfig, LocalRepairRule, RreqSchedule};

use super::jitter::Parked;
pub use super::jitter::PendingSend;
use super::routing::{Buffered, Routing, RoutingContext, RoutingCounters, RoutingOutput};
use crate::engine::{Outputs, Stream};
use crate::time::{SimDuration, SimTime};
use crate::wire::{NodeId, Packet};
use id_cache::RreqIdCache;
use neighbours::{Neighbours, RateLimit};
use request_queue::RequestQueue;
use std::collections::BTreeMap;
use table::RoutingTable;

/// The flow index carried by control packets (they belong to no flow).
pub const CONTROL_FLOW: u32 = u32::MAX;

/// Outputs of an AODV step.
pub type Out = Outputs<RoutingOutput>;

/// A route discovery in progress at its originator (6.3, 6.4) or a local
/// repair (6.12).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discovery {
    /// TTL of the last RREQ sent (0: none yet).
    pub ttl: u8,
    /// RREQs sent with TTL = NET_DIAMETER so far.
    pub attempts_at_max_ttl: u32,
    /// When the discovery timer fires (SimTime::MAX: not armed).
    pub timer_at: SimTime,
    /// The timer waits for a RREP (true) or for the RREQ rate limit (false).
    pub awaiting_reply: bool,
    pub started_at: SimTime,
    /// When the last RREQ of this discovery left (the measured traversal
    /// time counts from it, as ns-2's `rp_timestamp`).
    pub last_rreq_at: SimTime,
    pub repair: Option<Repair>,
}

/// The one-hop latencies of a node's last discoveries of one destination
/// (ns-2 `rt_disc_latency`, MAX_HISTORY = 3).
#[derive(Debug, Clone, Copy, Default)]
pub struct TraversalHistory {
    samples: [SimDuration; TraversalHistory::LEN],
    recorded: usize,
}

impl TraversalHistory {
    const LEN: usize = 3;

    pub fn record(&mut self, per_hop: SimDuration) {
        self.samples[self.recorded % Self::LEN] = per_hop;
        self.recorded += 1;
    }

    /// The mean of the kept samples; None before the first.
    pub fn mean(&self) -> Option<SimDuration> {
        let kept = self.recorded.min(Self::LEN);
        (kept > 0).then(|| SimDuration(self.samples[..kept].iter().map(|d| d.0).sum::<u64>() / kept as u64))
    }
}

/// ns-2's RREQ state of one destination ([`RreqSchedule::Ns2`]): the
/// route entry's `rt_req_timeout`, `rt_req_cnt` and `rt_req_last_ttl`
/// (ns-2.35 aodv/aodv_rtable.h), kept for the whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ns2Requests {
    /// No RREQ to the destination before this (`rt_req_timeout`; None: 0.0).
    pub timeout_at: Option<SimTime>,
    /// Network-wide RREQs since the last reset or give-up (`rt_req_cnt`).
    pub count: u32,
    /// TTL of the last RREQ, or the hop count of the last route found
    /// (`rt_req_last_ttl`; 0: none yet).
    pub last_ttl: u8,
}

/// A local repair (6.12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repair {
    /// Hop count of the route that broke (MIN_REPAIR_TTL).
    pub previous_hops: u8,
    /// Hops back to the source of the undeliverable packet.
    pub hops_to_source: u8,
}

/// One node's AODV.
#[derive(Debug, Clone)]
pub struct AodvNode {
    pub config: AodvConfig,
    /// The node's own sequence number (6.1).
    pub own_seq: SeqNumber,
    /// The last RREQ ID used (6.3).
    pub rreq_id: u32,
    pub table: RoutingTable,
    pub id_cache: RreqIdCache,
    pub queue: RequestQueue,
    pub discoveries: BTreeMap<NodeId, Discovery>,
    /// Measured one-hop traversal times, by destination.
    pub traversal: BTreeMap<NodeId, TraversalHistory>,
    /// ns-2's RREQ state by destination ([`RreqSchedule::Ns2`] only).
    pub ns2_requests: BTreeMap<NodeId, Ns2Requests>,
    /// When ns-2's `rt_purge` ticks next while packets are buffered
    /// ([`RreqSchedule::Ns2`]; SimTime::MAX: not armed).
    pub purge_tick_at: SimTime,
    pub neighbours: Neighbours,
    pub rreq_rate: RateLimit,
    pub rerr_rate: RateLimit,
    /// When the node last broadcast a RREQ or RERR (6.9: a HELLO is due
    /// only if nothing else was broadcast within HELLO_INTERVAL).
    pub last_broadcast: Option<SimTime>,
    /// When the HELLO timer fires next (SimTime::MAX: not armed).
    pub hello_at: SimTime,
    /// Jitter draws (StreamPurpose::Routing, this node).
    pub rng: Stream,
    pub stats: RoutingCounters,
    /// Control packets waiting out their jitter, by parking slot.
    pending: Parked,
}

/// AODV's timers, as the ids of [`RoutingOutput::Timer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AodvTimer {
    /// A discovery's wait for the destination ended.
    Discovery(NodeId),
    /// HELLO_INTERVAL elapsed (6.9).
    Hello,
    /// A jittered control packet (parking slot) may go.
    Send(u32),
    /// ns-2's local repair timer for a destination ended
    /// ([`config::LocalRepairRule::Ns2`]).
    RepairDeadline(NodeId),
    /// ns-2's `rt_purge` tick ([`RreqSchedule::Ns2`]).
    PurgeTick,
}

impl AodvTimer {
    pub fn id(self) -> u32 {
        match self {
            AodvTimer::Discovery(dst) => dst.0 << 2,
            AodvTimer::Hello => 1,
            AodvTimer::PurgeTick => 1 << 2 | 1,
            AodvTimer::Send(slot) => slot << 2 | 2,
            AodvTimer::RepairDeadline(dst) => dst.0 << 2 | 3,
        }
    }

    pub fn from_id(id: u32) -> AodvTimer {
        match id & 3 {
            0 => AodvTimer::Discovery(NodeId(id >> 2)),
            1 if id >> 2 == 0 => AodvTimer::Hello,
            1 => AodvTimer::PurgeTick,
            2 => AodvTimer::Send(id >> 2),
            _ => AodvTimer::RepairDeadline(NodeId(id >> 2)),
        }
    }
}

impl AodvNode {
    /// `rng`: the node's routing stream (jitter).
    pub fn new(config: AodvConfig, rng: Stream) -> AodvNode {
        AodvNode {
            own_seq: SeqNumber(0),
            rreq_id: 0,
            table: RoutingTable::new(config.delete_period(), config.local_repair && config.local_repair_rule == LocalRepairRule::Ns2),
            id_cache: RreqIdCache::default(),
            queue: RequestQueue::new(config.request_queue_packets(), config.request_queue_timeout()),
            discoveries: BTreeMap::new(),
            traversal: BTreeMap::new(),
            ns2_requests: BTreeMap::new(),
            purge_tick_at: SimTime::MAX,
            neighbours: Neighbours::default(),
            rreq_rate: RateLimit::default(),
            rerr_rate: RateLimit::default(),
            last_broadcast: None,
            hello_at: SimTime::MAX,
            rng,
            stats: RoutingCounters::with_messages(&AodvMessage::NAMES),
            pending: Parked::default(),
            config,
        }
    }
}

impl Routing for AodvNode {
    fn name(&self) -> &'static str {
        "aodv"
    }
    fn start(&mut self, now: SimTime, _ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.start_hellos(now, out);
    }
    fn route_output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.output(now, packet, ctx, out)
    }
    fn route_input(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.input(now, packet, from, ctx, out)
    }
    fn on_delivered(&mut self, now: SimTime, packet: &Packet, from: NodeId) {
        self.delivered(now, packet, from)
    }
    fn on_control(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.receive(now, packet, from, ctx, out)
    }
    /// Any frame decoded from `from` is a sign of life for HELLO
    /// neighbours (6.9).
    fn on_heard(&mut self, now: SimTime, from: NodeId) {
        if self.config.hello {
            self.neighbours.packet_from(from, now);
        }
    }
    fn on_link_failure(
        &mut self,
        now: SimTime,
        packet: &Packet,
        next_hop: NodeId,
        lost: Option<crate::loss::DropCause>,
        ctx: &mut RoutingContext,
        out: &mut Outputs<RoutingOutput>,
    ) {
        self.link_failure(now, packet, next_hop, lost, ctx, out)
    }
    /// With ns-2's local repair the failed packet is AODV's: ns-2's MAC
    /// hands the routing agent a copy (mac/mac-802_11.cc:1292, 1374) that
    /// `rt_ll_failed` buffers for the repair or drops.
    fn salvages_failed(&self) -> bool {
        self.ns2_local_repair()
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
        self.break_link(now, neighbour, failed, queued, ctx, out)
    }
    fn on_timer(&mut self, now: SimTime, id: u32, ctx: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        match AodvTimer::from_id(id) {
            AodvTimer::Discovery(dst) => self.discovery_timer(now, dst, ctx, out),
            AodvTimer::Hello => self.hello_timer(now, ctx, out),
            AodvTimer::Send(slot) => self.send_parked(now, slot, ctx, out),
            AodvTimer::RepairDeadline(dst) => self.repair_deadline(now, dst),
            AodvTimer::PurgeTick => self.purge_tick(now, ctx, out),
        }
    }
    fn on_control_dropped(&mut self) {
        self.stats.control_drops += 1;
    }
    fn next_hop(&mut self, now: SimTime, dst: NodeId) -> Option<NodeId> {
        self.table.next_hop(dst, now)
    }
    fn peek_route(&self, now: SimTime, dst: NodeId) -> Option<Vec<NodeId>> {
        self.table.peek_next_hop(dst, now).map(|hop| vec![hop])
    }
    fn buffered(&self) -> Buffered<'_> {
        Buffered::Aodv(self.queue.iter())
    }
    fn counters(&self) -> Option<&RoutingCounters> {
        Some(&self.stats)
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
            AodvTimer::Discovery(NodeId(0)),
            AodvTimer::Discovery(NodeId(99_999)),
            AodvTimer::Hello,
            AodvTimer::PurgeTick,
            AodvTimer::Send(0),
            AodvTimer::Send(7),
            AodvTimer::RepairDeadline(NodeId(0)),
            AodvTimer::RepairDeadline(NodeId(4321)),
        ] {
            assert_eq!(AodvTimer::from_id(t.id()), t);
        }
    }

    #[test]
    fn traversal_history_is_the_mean_of_the_last_three_discoveries() {
        let ms = |v: u64| SimDuration::from_nanos(v * 1_000_000);
        let mut h = TraversalHistory::default();
        assert_eq!(h.mean(), None, "no discovery yet: NODE_TRAVERSAL_TIME applies");
        h.record(ms(6));
        assert_eq!(h.mean(), Some(ms(6)));
        h.record(ms(9));
        assert_eq!(h.mean(), Some(SimDuration::from_nanos(7_500_000)));
        h.record(ms(3));
        h.record(ms(12)); // replaces the oldest (6): (9 + 3 + 12) / 3
        assert_eq!(h.mean(), Some(ms(8)));
    }
}

impl super::routing::FromRoutingConfig for AodvNode {
    const NS2_RULES: &'static [crate::config::PresetRule] = config::NS2_RULES;
    fn from_config(config: &super::config::RoutingConfig, _node: NodeId, rng: Stream, _routes: &super::StaticRoutes) -> Self {
        AodvNode::new(config.aodv.clone().unwrap_or_default(), rng)
    }
}
