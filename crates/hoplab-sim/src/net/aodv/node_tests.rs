//! Frame-level unit tests of one node's AODV, without a World.
//!
//! A [`Node`] drives a single [`AodvNode`] through the [`Routing`] trait
//! exactly as `world/network.rs` does (a `RoutingContext` with its own uid
//! counter, a clock that only goes forward) and hands back the
//! [`RoutingOutput`]s of each step as a [`Trace`], decoded for assertions:
//! the RREQ / RREP / RERR sent (with their IP TTL and next hop), data sent,
//! drops with their cause, timers with their deadlines, buffer changes,
//! refills and broken links. Received control packets are built as
//! `send_control` builds them (a `Control` packet on UDP, the message in
//! `RoutingHeader::Aodv`).
//!
//! Expected values are written out, from RFC 3561 and the defaults
//! (NODE_TRAVERSAL_TIME 40 ms, NET_DIAMETER 35, TTL_START 1,
//! TTL_INCREMENT 2, TTL_THRESHOLD 7, TIMEOUT_BUFFER 2, RREQ_RETRIES 2,
//! ACTIVE_ROUTE_TIMEOUT 3 s, MY_ROUTE_TIMEOUT 6 s, NET_TRAVERSAL_TIME
//! 2.8 s, DELETE_PERIOD 15 s, RREQ/RERR rate limits 10 per second), and
//! from the decisions `mod.rs` documents where the RFC leaves room. Never
//! computed by the code under test.

use super::{AodvConfig, AodvNode, AodvTimer, SeqNumber, CONTROL_FLOW};
use crate::engine::{Outputs, RngStreams, StreamPurpose};
use crate::loss::DropCause;
use crate::net::aodv::table::{RouteEntry, RouteState};
use crate::net::routing::{Routing, RoutingContext, RoutingOutput};
use crate::time::{SimDuration, SimTime};
use crate::wire::aodv::{AodvMessage, Rerr, Rrep, Rreq};
use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES, UDP_HEADER_BYTES};

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

/// Milliseconds since the start of the run.
fn ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

fn n(i: u32) -> NodeId {
    NodeId(i)
}

/// A UDP data packet of flow 0 from `src` to `dst`.
fn data(uid: u64, src: u32, dst: u32) -> Packet {
    Packet {
        uid,
        kind: PacketKind::Data,
        flow: 0,
        sequence: uid,
        src: n(src),
        dst: n(dst),
        payload_bytes: 512,
        header_bytes: UDP_HEADER_BYTES + IP_HEADER_BYTES,
        created: SimTime::ZERO,
        ttl: 64,
        transport: TransportHeader::Udp,
        routing: RoutingHeader::None,
    }
}

/// A routing packet as `send_control` builds it: `from` sends `message`
/// to `to` (a neighbour or broadcast) with IP TTL `ttl`.
fn control_packet(uid: u64, from: NodeId, to: NodeId, message: AodvMessage, ttl: u8, at: SimTime) -> Packet {
    Packet {
        uid,
        kind: PacketKind::Control,
        flow: CONTROL_FLOW,
        sequence: 0,
        src: from,
        dst: to,
        payload_bytes: message.buffer_len(),
        header_bytes: UDP_HEADER_BYTES + IP_HEADER_BYTES,
        created: at,
        ttl,
        transport: TransportHeader::Udp,
        routing: RoutingHeader::Aodv(message),
    }
}

/// A RREQ from `orig` (its sequence number `orig_seq`, RREQ ID `id`) for
/// `dst`, asking for `dst_seq` (None: unknown, the 'U' flag), having
/// crossed `hop_count` hops.
fn rreq(orig: u32, orig_seq: u32, id: u32, dst: u32, dst_seq: Option<u32>, hop_count: u8) -> Rreq {
    Rreq {
        gratuitous: false,
        destination_only: false,
        unknown_seq: dst_seq.is_none(),
        hop_count,
        id,
        dst: n(dst),
        dst_seq: SeqNumber(dst_seq.unwrap_or(0)),
        orig: n(orig),
        orig_seq: SeqNumber(orig_seq),
    }
}

/// A RREP for the route to `dst` (sequence number `dst_seq`, `hop_count`
/// hops from the sender) answering `orig`.
fn rrep(dst: u32, dst_seq: u32, hop_count: u8, orig: u32, lifetime_ms: u32) -> Rrep {
    Rrep { ack_required: false, hop_count, dst: n(dst), dst_seq: SeqNumber(dst_seq), orig: n(orig), lifetime_ms }
}

/// A RERR listing (destination, sequence number) pairs; 'N' if `no_delete`.
fn rerr(unreachable: &[(u32, u32)], no_delete: bool) -> Rerr {
    let mut e = Rerr::new(no_delete);
    for &(dst, seq) in unreachable {
        assert!(e.push(n(dst), SeqNumber(seq)));
    }
    e
}

/// What `Node::control` accepts.
trait IntoMessage {
    fn into_message(self) -> AodvMessage;
}
impl IntoMessage for AodvMessage {
    fn into_message(self) -> AodvMessage {
        self
    }
}
impl IntoMessage for Rreq {
    fn into_message(self) -> AodvMessage {
        AodvMessage::Rreq(self)
    }
}
impl IntoMessage for Rrep {
    fn into_message(self) -> AodvMessage {
        AodvMessage::Rrep(self)
    }
}
impl IntoMessage for Rerr {
    fn into_message(self) -> AodvMessage {
        AodvMessage::Rerr(self)
    }
}

/// One node's AODV and what surrounds it in the world: its identity, the
/// run's packet uids, the clock.
struct Node {
    aodv: AodvNode,
    id: NodeId,
    next_uid: u64,
    /// Uids of the packets the tests make up (received control packets).
    next_test_uid: u64,
    now: SimTime,
}

impl Node {
    fn new(id: u32) -> Node {
        Node::with(id, AodvConfig::default())
    }

    fn with(id: u32, config: AodvConfig) -> Node {
        let rng = RngStreams::new(1).stream(StreamPurpose::Routing, id as u64);
        Node { aodv: AodvNode::new(config, rng), id: n(id), next_uid: 1_000_000, next_test_uid: 2_000_000, now: SimTime::ZERO }
    }

    /// One step at `t`, with a context as the world gives it. Every control
    /// packet the node sends is checked to be built as a routing packet of
    /// this node addressed to its next hop.
    fn step(&mut self, t: SimTime, f: impl FnOnce(&mut AodvNode, &mut RoutingContext, &mut Outputs<RoutingOutput>)) -> Trace {
        assert!(t >= self.now, "the clock goes forward ({t} after {})", self.now);
        self.now = t;
        let mut out = Outputs::new();
        let mut ctx = RoutingContext { node: self.id, next_uid: &mut self.next_uid, warmup: SimTime::ZERO };
        f(&mut self.aodv, &mut ctx, &mut out);
        for o in &out {
            if let RoutingOutput::Send { packet, next_hop } = o {
                if let Some(m) = packet.aodv() {
                    assert_eq!(packet.kind, PacketKind::Control, "{o:?}");
                    assert_eq!(packet.flow, CONTROL_FLOW, "{o:?}");
                    assert_eq!((packet.src, packet.dst), (self.id, *next_hop), "{o:?}");
                    assert_eq!(packet.size_bytes(), m.buffer_len() + 28, "{o:?}: the message over UDP (8) and IP (20)");
                }
            }
        }
        Trace(out.into_vec())
    }

    /// The transport hands down a packet this node originates.
    fn originate(&mut self, t: SimTime, packet: Packet) -> Trace {
        self.step(t, |a, ctx, out| a.route_output(t, packet, ctx, out))
    }

    /// A data packet from neighbour `from` to forward.
    fn forward(&mut self, t: SimTime, packet: Packet, from: u32) -> Trace {
        self.step(t, |a, ctx, out| a.route_input(t, packet, n(from), ctx, out))
    }

    /// A routing packet from neighbour `from`, received with IP TTL `ttl`
    /// (RREQ, RERR and HELLO broadcast, RREP unicast to this node).
    fn control(&mut self, t: SimTime, from: u32, message: impl IntoMessage, ttl: u8) -> Trace {
        let message = message.into_message();
        let to = match message {
            AodvMessage::Rrep(r) if !r.is_hello() => self.id,
            _ => NodeId::BROADCAST,
        };
        self.next_test_uid += 1;
        let packet = control_packet(self.next_test_uid, n(from), to, message, ttl, t);
        self.step(t, |a, ctx, out| a.on_control(t, packet, n(from), ctx, out))
    }

    fn timer(&mut self, t: SimTime, timer: AodvTimer) -> Trace {
        self.step(t, |a, ctx, out| a.on_timer(t, timer.id(), ctx, out))
    }

    /// The MAC gave up on `packet` toward `next_hop`.
    fn link_failure(&mut self, t: SimTime, packet: &Packet, next_hop: u32) -> Trace {
        self.step(t, |a, _, out| a.on_link_failure(t, packet, n(next_hop), out))
    }

    /// The world answers `LinkBroken`: the MAC hands back what it queued
    /// toward `neighbour`.
    fn link_broken(&mut self, t: SimTime, neighbour: u32, failed: Option<&Packet>, queued: Vec<Packet>) -> Trace {
        self.step(t, |a, ctx, out| a.on_link_broken(t, n(neighbour), failed, queued, ctx, out))
    }

    fn start(&mut self, t: SimTime) -> Trace {
        self.step(t, |a, ctx, out| a.start(t, ctx, out))
    }

    /// The routing table entry for `dst` in any state, as of now.
    fn route(&mut self, dst: u32) -> Option<RouteEntry> {
        self.aodv.table.get(n(dst), self.now).cloned()
    }

    /// The next hop of the active route to `dst` at `t` (a look, not a step).
    fn next_hop_at(&mut self, t: SimTime, dst: u32) -> Option<NodeId> {
        self.aodv.next_hop(t, n(dst))
    }

    /// Uids of the data packets waiting for a route, oldest first.
    fn buffered(&self) -> Vec<u64> {
        self.aodv.buffered().map(|p| p.uid).collect()
    }
}

/// The outputs of one step, in order.
#[derive(Debug)]
struct Trace(Vec<RoutingOutput>);

impl Trace {
    /// One word per output, in order: `buffer_changed`, `rreq`, `rrep`,
    /// `hello`, `rerr`, `data`, `drop`, `timer`, `refill`, `link_broken`.
    fn kinds(&self) -> Vec<&'static str> {
        self.0
            .iter()
            .map(|o| match o {
                RoutingOutput::Send { packet, .. } => packet.aodv().map_or("data", |m| m.name()),
                RoutingOutput::Drop { .. } => "drop",
                RoutingOutput::Timer { .. } => "timer",
                RoutingOutput::LinkBroken { .. } => "link_broken",
                RoutingOutput::BufferChanged => "buffer_changed",
                RoutingOutput::SourceMayRefill { .. } => "refill",
            })
            .collect()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Control messages sent: (message, next hop, IP TTL).
    fn controls(&self) -> Vec<(AodvMessage, NodeId, u8)> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Send { packet, next_hop } => packet.aodv().map(|m| (*m, *next_hop, packet.ttl)),
                _ => None,
            })
            .collect()
    }

    /// The RREQs sent, each checked to be broadcast: (RREQ, IP TTL).
    fn rreqs(&self) -> Vec<(Rreq, u8)> {
        self.controls()
            .into_iter()
            .filter_map(|(m, to, ttl)| match m {
                AodvMessage::Rreq(q) => {
                    assert_eq!(to, NodeId::BROADCAST, "a RREQ is broadcast (6.3, 6.5)");
                    Some((q, ttl))
                }
                _ => None,
            })
            .collect()
    }

    /// The only RREQ sent: (RREQ, IP TTL).
    fn the_rreq(&self) -> (Rreq, u8) {
        let r = self.rreqs();
        assert_eq!(r.len(), 1, "one RREQ in {self:?}");
        r[0]
    }

    /// The RREPs (HELLOs excluded) sent: (RREP, next hop).
    fn rreps(&self) -> Vec<(Rrep, NodeId)> {
        self.controls()
            .into_iter()
            .filter_map(|(m, to, _)| match m {
                AodvMessage::Rrep(p) if !p.is_hello() => Some((p, to)),
                _ => None,
            })
            .collect()
    }

    /// The only RREP sent: (RREP, next hop).
    fn the_rrep(&self) -> (Rrep, NodeId) {
        let r = self.rreps();
        assert_eq!(r.len(), 1, "one RREP in {self:?}");
        r[0]
    }

    /// The HELLOs sent: (message, next hop, IP TTL).
    fn hellos(&self) -> Vec<(Rrep, NodeId, u8)> {
        self.controls()
            .into_iter()
            .filter_map(|(m, to, ttl)| match m {
                AodvMessage::Rrep(p) if p.is_hello() => Some((p, to, ttl)),
                _ => None,
            })
            .collect()
    }

    /// The RERRs sent, each checked to be broadcast: (unreachable
    /// (destination, sequence number) pairs, 'N' flag, IP TTL).
    fn rerrs(&self) -> Vec<(Vec<(u32, u32)>, bool, u8)> {
        self.controls()
            .into_iter()
            .filter_map(|(m, to, ttl)| match m {
                AodvMessage::Rerr(e) => {
                    assert_eq!(to, NodeId::BROADCAST, "every RERR is broadcast (module doc)");
                    Some((e.unreachable().iter().map(|(d, s)| (d.0, s.0)).collect(), e.no_delete, ttl))
                }
                _ => None,
            })
            .collect()
    }

    /// Data packets sent: (uid, next hop).
    fn data(&self) -> Vec<(u64, NodeId)> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Send { packet, next_hop } if packet.aodv().is_none() => Some((packet.uid, *next_hop)),
                _ => None,
            })
            .collect()
    }

    /// Packets dropped: (uid, cause).
    fn drops(&self) -> Vec<(u64, DropCause)> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Drop { packet, cause } => Some((packet.uid, *cause)),
                _ => None,
            })
            .collect()
    }

    /// Timers asked for: (timer, deadline).
    fn timers(&self) -> Vec<(AodvTimer, SimTime)> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Timer { id, at } => Some((AodvTimer::from_id(*id), *at)),
                _ => None,
            })
            .collect()
    }

    /// The only timer asked for.
    fn the_timer(&self) -> (AodvTimer, SimTime) {
        let t = self.timers();
        assert_eq!(t.len(), 1, "one timer in {self:?}");
        t[0]
    }

    /// Uids of the packets whose source may refill.
    fn refills(&self) -> Vec<u64> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::SourceMayRefill { packet } => Some(packet.uid),
                _ => None,
            })
            .collect()
    }

    /// Links declared broken: (neighbour, uid of the failed packet).
    fn links_broken(&self) -> Vec<(NodeId, Option<u64>)> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::LinkBroken { neighbour, failed } => Some((*neighbour, failed.map(|p| p.uid))),
                _ => None,
            })
            .collect()
    }
}

/// A node 2 relaying between originator 0 (behind neighbour 1) and
/// destination 5 (behind neighbour 3): 0 - 1 - 2 - 3 - 5 (4 hops).
///
/// At 0 ms the RREQ of 0 (sequence number 7, RREQ ID 1) arrives from 1
/// and is forwarded; at 50 ms the RREP of 5 (sequence number 9, lifetime
/// 6 s) arrives from 3 and is forwarded to 1 (6.7). Afterwards: route to 5
/// via 3 (2 hops, precursor 1), route to 0 via 1 (2 hops, precursor 3),
/// one-hop routes to 1 and to 3 (the latter with precursor 1).
fn relay() -> Node {
    relay_with(AodvConfig::default())
}

fn relay_with(config: AodvConfig) -> Node {
    let mut r = Node::with(2, config);
    let (timer, at) = r.control(ms(0), 1, rreq(0, 7, 1, 5, None, 1), 34).the_timer();
    assert_eq!(r.timer(at, timer).kinds(), ["rreq"]);
    let out = r.control(ms(50), 3, rrep(5, 9, 1, 0, 6000), 35);
    assert_eq!(out.kinds(), ["rrep"]);
    r
}

// ---------------------------------------------------------------------------
// Route discovery at the originator (6.3, 6.4)
// ---------------------------------------------------------------------------

/// 6.3, 6.4: a packet without a route waits in the request queue, and a
/// RREQ with TTL = TTL_START, the 'U' flag, the incremented own sequence
/// number and a fresh RREQ ID goes out; the node waits
/// RING_TRAVERSAL_TIME(1) = 2 * 40 ms * (1 + 2) = 240 ms.
#[test]
fn route_output_without_a_route_buffers_and_broadcasts_a_first_rreq() {
    let mut s = Node::new(0);
    let out = s.originate(ms(0), data(1, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer"]);
    let expected = Rreq {
        gratuitous: false,
        destination_only: false,
        unknown_seq: true,
        hop_count: 0,
        id: 1,
        dst: n(5),
        dst_seq: SeqNumber(0),
        orig: n(0),
        orig_seq: SeqNumber(1),
    };
    assert_eq!(out.the_rreq(), (expected, 1), "TTL_START = 1");
    assert_eq!(out.timers(), [(AodvTimer::Discovery(n(5)), ms(240))]);
    assert_eq!(s.buffered(), [1]);
    assert_eq!(s.aodv.own_seq, SeqNumber(1), "6.1: incremented before the discovery");

    // A second packet for the same destination joins the queue; the
    // discovery under way is not started again.
    let out = s.originate(ms(100), data(2, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed"]);
    assert_eq!(s.buffered(), [1, 2]);
}

/// 6.4 expanding ring: TTL 1, 3, 5, 7 waiting RING_TRAVERSAL_TIME
/// (240, 400, 560, 720 ms), then TTL = NET_DIAMETER = 35 waiting
/// NET_TRAVERSAL_TIME = 2.8 s, doubled per retry (6.3 binary exponential
/// backoff): 5.6 s, 11.2 s; after 1 + RREQ_RETRIES RREQs at TTL 35 (module
/// doc) the discovery fails: the packet is dropped with cause no_route and
/// its source may send another.
#[test]
fn an_unanswered_discovery_widens_the_ring_retries_at_net_diameter_then_fails() {
    let mut s = Node::new(0);
    let p = data(1, 0, 5);
    let out = s.originate(ms(0), p);
    assert_eq!(out.the_rreq().1, 1);
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(240)));

    // (timer fires at ms, TTL of the next RREQ, its RREQ ID = own sequence number, next deadline ms)
    let ring =
        [(240, 3, 2, 640), (640, 5, 3, 1200), (1200, 7, 4, 1920), (1920, 35, 5, 4720), (4720, 35, 6, 10_320), (10_320, 35, 7, 21_520)];
    for (at, ttl, id, next) in ring {
        let out = s.timer(ms(at), AodvTimer::Discovery(n(5)));
        assert_eq!(out.kinds(), ["rreq", "timer"], "at {at} ms");
        let (q, sent_ttl) = out.the_rreq();
        assert_eq!(sent_ttl, ttl, "at {at} ms");
        assert_eq!((q.id, q.orig_seq, q.hop_count, q.unknown_seq, q.dst), (id, SeqNumber(id), 0, true, n(5)), "at {at} ms");
        assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(next)), "at {at} ms");
        assert_eq!(s.buffered(), [1]);
    }

    let out = s.timer(ms(21_520), AodvTimer::Discovery(n(5)));
    assert_eq!(out.kinds(), ["drop", "buffer_changed", "refill"]);
    assert_eq!(out.drops(), [(1, DropCause::NoRoute)]);
    assert_eq!(out.refills(), [1]);
    assert!(s.buffered().is_empty());
    assert_eq!(s.aodv.stats.requests_originated, 7);
    assert_eq!(s.aodv.stats.discoveries_failed, 1);
    // The discovery is over: its timer is stale.
    assert!(s.timer(ms(21_520), AodvTimer::Discovery(n(5))).is_empty());

    // A packet for the same destination later starts a new search from TTL_START.
    let out = s.originate(ms(30_000), data(2, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer"]);
    assert_eq!((out.the_rreq().0.id, out.the_rreq().1), (8, 1));
}

/// 6.7: a RREP from the next hop installs the forward route (hop count + 1,
/// the RREP's sequence number, lifetime now + the RREP's), the buffered
/// packets go to that next hop in order, and the discovery ends: its timer
/// is stale.
#[test]
fn a_rrep_installs_the_route_releases_the_buffer_and_ends_the_discovery() {
    let mut s = Node::new(0);
    s.originate(ms(0), data(1, 0, 5));
    s.originate(ms(50), data(2, 0, 5));

    let out = s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);
    assert_eq!(out.kinds(), ["data", "data", "buffer_changed"]);
    assert_eq!(out.data(), [(1, n(1)), (2, n(1))]);
    assert!(s.buffered().is_empty());

    let e = s.route(5).unwrap();
    assert_eq!((e.state, e.next_hop, e.hops, e.seq, e.seq_valid), (RouteState::Valid, n(1), 2, SeqNumber(3), true));
    assert_eq!(e.lifetime, ms(6100), "100 ms + the RREP's 6000 ms");
    let nb = s.route(1).unwrap();
    assert_eq!((nb.next_hop, nb.hops, nb.seq_valid), (n(1), 1, false), "6.7: a route to the previous hop, no sequence number");
    assert_eq!(s.aodv.stats.discoveries_succeeded, 1);

    // The RREQ's timer fires: stale, no further RREQ.
    assert!(s.timer(ms(240), AodvTimer::Discovery(n(5))).is_empty());
    // New packets go straight to the next hop.
    let out = s.originate(ms(300), data(3, 0, 5));
    assert_eq!(out.kinds(), ["data"]);
    assert_eq!(out.data(), [(3, n(1))]);
}

/// 6.4: a new discovery of a destination whose route broke starts at its
/// last hop count + TTL_INCREMENT and asks for the sequence number the
/// break incremented (6.11); the earlier discovery's timer is stale.
#[test]
fn a_rediscovery_starts_from_the_last_hop_count_and_ignores_the_old_timer() {
    let mut s = Node::new(0);
    s.originate(ms(0), data(1, 0, 5));
    s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);

    let p = data(2, 0, 5);
    assert_eq!(s.link_failure(ms(150), &p, 1).links_broken(), [(n(1), Some(2))]);
    let out = s.link_broken(ms(150), 1, Some(&p), vec![data(3, 0, 5)]);
    assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer", "buffer_changed"]);
    let expected = Rreq {
        gratuitous: false,
        destination_only: false,
        unknown_seq: false,
        hop_count: 0,
        id: 2,
        dst: n(5),
        dst_seq: SeqNumber(4),
        orig: n(0),
        orig_seq: SeqNumber(2),
    };
    assert_eq!(out.the_rreq(), (expected, 4), "TTL = 2 hops + TTL_INCREMENT; sequence number 3 + 1");
    // RING_TRAVERSAL_TIME(4) = 2 * 40 ms * (4 + 2) = 480 ms.
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(630)));
    assert_eq!(s.buffered(), [3]);

    // The first discovery's timer, still in the world's queue: stale.
    assert!(s.timer(ms(240), AodvTimer::Discovery(n(5))).is_empty());
    // The new one goes on: TTL 6, RING_TRAVERSAL_TIME(6) = 640 ms.
    let out = s.timer(ms(630), AodvTimer::Discovery(n(5)));
    assert_eq!(out.the_rreq().1, 6);
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(1270)));
}

/// 6.3 RREQ_RATELIMIT: at most 10 RREQs originated per second. The 11th
/// discovery waits (its timer armed for the time the window allows, not
/// awaiting a reply) and then sends its first RREQ; a discovery whose
/// retry meets the limit keeps its place in the expanding ring.
#[test]
fn rreq_origination_is_rate_limited_to_ten_per_second() {
    let mut s = Node::new(0);
    for k in 0..10u64 {
        let out = s.originate(ms(10 * k), data(k, 0, 10 + k as u32));
        assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer"], "discovery {k}");
        assert_eq!(out.the_timer().1, ms(10 * k + 240));
    }
    // 10 RREQs at 0, 10, ..., 90 ms: the 11th may go at 0 + 1 s.
    let out = s.originate(ms(100), data(10, 0, 20));
    assert_eq!(out.kinds(), ["buffer_changed", "timer"]);
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(20)), ms(1000)));
    assert!(!s.aodv.discoveries[&n(20)].awaiting_reply);
    assert_eq!(s.aodv.stats.requests_originated, 10);

    // The first ten discoveries' timers (240 .. 330 ms) meet the limit too.
    for k in 0..10u64 {
        let out = s.timer(ms(240 + 10 * k), AodvTimer::Discovery(n(10 + k as u32)));
        assert_eq!(out.kinds(), ["timer"], "discovery {k}");
        assert_eq!(out.the_timer().1, ms(1000));
    }

    // At 1 s the RREQ sent at 0 ms leaves the window: one may go, the 11th
    // discovery's first (TTL_START).
    let out = s.timer(ms(1000), AodvTimer::Discovery(n(20)));
    assert_eq!(out.kinds(), ["rreq", "timer"]);
    assert_eq!((out.the_rreq().0.id, out.the_rreq().1), (11, 1));
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(20)), ms(1240)));
    assert!(s.aodv.discoveries[&n(20)].awaiting_reply);

    // The others fired at 1 s wait for the next slot: 10 ms + 1 s.
    for k in 0..10u64 {
        let out = s.timer(ms(1000), AodvTimer::Discovery(n(10 + k as u32)));
        assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(10 + k as u32)), ms(1010)), "discovery {k}");
        assert!(out.rreqs().is_empty());
    }
    // At 1010 ms destination 10 gets its second RREQ: TTL 3, not TTL 1 again.
    let out = s.timer(ms(1010), AodvTimer::Discovery(n(10)));
    assert_eq!((out.the_rreq().0.id, out.the_rreq().1), (12, 3));
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(10)), ms(1410)), "RING_TRAVERSAL_TIME(3) = 400 ms");
    // Destination 11 waits again (20 ms + 1 s).
    assert_eq!(s.timer(ms(1010), AodvTimer::Discovery(n(11))).the_timer(), (AodvTimer::Discovery(n(11)), ms(1020)));
}

// ---------------------------------------------------------------------------
// Processing a RREQ (6.5, 6.6)
// ---------------------------------------------------------------------------

/// 6.5, 6.6.1: the destination makes a reverse route to the originator
/// (hop count + 1, the originator's sequence number, lifetime at least
/// 2 * NET_TRAVERSAL_TIME - 2 * hops * NODE_TRAVERSAL_TIME = 5.6 s - 160 ms)
/// and unicasts a RREP to the previous hop with hop count 0, its own
/// sequence number (at least the one asked for, 6.1), lifetime
/// MY_ROUTE_TIMEOUT = 6 s. A duplicate RREQ is ignored.
#[test]
fn the_destination_answers_with_a_rrep_to_the_previous_hop() {
    let mut d = Node::new(5);
    let out = d.control(ms(0), 1, rreq(0, 7, 1, 5, None, 1), 34);
    assert_eq!(out.kinds(), ["rrep"]);
    assert_eq!(out.the_rrep(), (rrep(5, 0, 0, 0, 6000), n(1)), "'U': the own number unchanged");

    let back = d.route(0).unwrap();
    assert_eq!((back.state, back.next_hop, back.hops, back.seq, back.seq_valid), (RouteState::Valid, n(1), 2, SeqNumber(7), true));
    assert_eq!(back.lifetime, ms(5440));
    let nb = d.route(1).unwrap();
    assert_eq!((nb.next_hop, nb.hops, nb.seq_valid, nb.lifetime), (n(1), 1, false, ms(3000)), "previous hop: ACTIVE_ROUTE_TIMEOUT");

    // Asked for 4 (not 'U'): the RREP carries 4 and the node keeps it.
    let out = d.control(ms(1000), 1, rreq(0, 8, 2, 5, Some(4), 1), 34);
    assert_eq!(out.the_rrep(), (rrep(5, 4, 0, 0, 6000), n(1)));
    assert_eq!(d.aodv.own_seq, SeqNumber(4));
    // Asked for an older number: the node's own never goes back.
    let out = d.control(ms(2000), 1, rreq(0, 9, 3, 5, Some(2), 1), 34);
    assert_eq!(out.the_rrep(), (rrep(5, 4, 0, 0, 6000), n(1)));

    // The same RREQ (originator 0, RREQ ID 3) over another path: discarded (6.5).
    assert!(d.control(ms(2010), 4, rreq(0, 9, 3, 5, Some(2), 2), 33).is_empty());
}

/// 6.5: an intermediate node without a route forwards the RREQ after a
/// jitter of up to 10 ms (a `Send` timer, then the RREQ when it fires):
/// broadcast, IP TTL - 1, hop count + 1, the rest unchanged. A duplicate
/// (same originator and RREQ ID) is ignored; a RREQ received with TTL 1
/// goes no further.
#[test]
fn an_intermediate_node_without_a_route_forwards_the_rreq_after_a_jitter() {
    let mut i = Node::new(2);
    let out = i.control(ms(0), 1, rreq(0, 7, 1, 5, None, 1), 4);
    assert_eq!(out.kinds(), ["timer"]);
    let (timer, at) = out.the_timer();
    assert!(matches!(timer, AodvTimer::Send(_)), "{timer:?}");
    assert!(at >= ms(0) && at < ms(10), "jitter within broadcast_jitter_ms = 10 ms: {at}");

    let out = i.timer(at, timer);
    assert_eq!(out.kinds(), ["rreq"]);
    assert_eq!(out.the_rreq(), (rreq(0, 7, 1, 5, None, 2), 3));
    assert!(i.timer(at, timer).is_empty(), "sent once");

    // The reverse route (6.5).
    let back = i.route(0).unwrap();
    assert_eq!((back.next_hop, back.hops, back.seq), (n(1), 2, SeqNumber(7)));

    // The same request heard from another neighbour: ignored.
    assert!(i.control(ms(20), 3, rreq(0, 7, 1, 5, None, 3), 2).is_empty());
    // A new request that arrives with TTL 1: not forwarded.
    assert!(i.control(ms(30), 1, rreq(0, 8, 2, 5, None, 1), 1).is_empty());
    assert_eq!(i.route(0).unwrap().seq, SeqNumber(8), "but its reverse route is learnt");
}

/// 6.5: the forwarded RREQ asks for the fresher of the RREQ's destination
/// sequence number and the one this node knows, and the node's own
/// entry is not changed by a larger number in the RREQ.
#[test]
fn a_forwarded_rreq_asks_for_the_fresher_destination_sequence_number() {
    let mut i = relay();
    // The route to 5 (sequence number 9) is lost with 10 (RERR from 3).
    i.control(ms(100), 3, rerr(&[(5, 10)], false), 1);
    assert_eq!(i.route(5).unwrap().seq, SeqNumber(10));

    let (timer, at) = i.control(ms(200), 1, rreq(0, 8, 2, 5, Some(6), 1), 10).the_timer();
    assert_eq!(i.timer(at, timer).the_rreq().0.dst_seq, SeqNumber(10));

    let (timer, at) = i.control(ms(300), 1, rreq(0, 9, 3, 5, Some(12), 1), 10).the_timer();
    assert_eq!(i.timer(at, timer).the_rreq().0.dst_seq, SeqNumber(12));
    assert_eq!(i.route(5).unwrap().seq, SeqNumber(10), "6.5: MUST NOT modify its maintained value");
}

/// 6.6.2: an intermediate node with an active route whose sequence number
/// is at least the one asked for answers (no 'D' flag): hop count = its
/// own to the destination, its sequence number, lifetime = what is left
/// of its route; the previous hop joins the forward route's precursors,
/// the next hop toward the destination the reverse route's. With 'D' it
/// forwards instead (6.5); so it does when its route leads back through
/// the RREQ's sender (module doc), or when its number is older than asked.
#[test]
fn an_intermediate_node_with_a_fresh_route_answers_unless_d_is_set() {
    let mut i = Node::new(2);
    // Route to 5: via 3, 2 hops, sequence number 9, until 6 s.
    assert!(i.control(ms(0), 3, rrep(5, 9, 1, 2, 6000), 35).is_empty());

    // Asked for 9, the number it knows: "greater than or equal" (6.6 (ii)).
    let out = i.control(ms(1000), 1, rreq(0, 7, 1, 5, Some(9), 1), 10);
    assert_eq!(out.kinds(), ["rrep"]);
    assert_eq!(out.the_rrep(), (rrep(5, 9, 2, 0, 5000), n(1)));
    assert_eq!(i.route(5).unwrap().precursors, [n(1)]);
    assert_eq!(i.route(0).unwrap().precursors, [n(3)]);

    // 'D': only the destination may answer.
    let mut q = rreq(0, 8, 2, 5, Some(8), 1);
    q.destination_only = true;
    let out = i.control(ms(1100), 1, q, 10);
    assert_eq!(out.kinds(), ["timer"], "forwarded after a jitter");
    assert!(matches!(out.the_timer().0, AodvTimer::Send(_)));

    // Asked for a newer number than 9: forwarded.
    let out = i.control(ms(1200), 1, rreq(0, 9, 3, 5, Some(10), 1), 10);
    assert_eq!(out.kinds(), ["timer"]);

    // From 3, the route's own next hop: not answered (AODV-UU's safeguard).
    let out = i.control(ms(1300), 3, rreq(7, 1, 1, 5, Some(8), 1), 10);
    assert_eq!(out.kinds(), ["timer"]);
}

/// 6.6.3: with 'G' the intermediate node that answers also sends the
/// destination a gratuitous RREP about the originator: hop count and
/// lifetime of its reverse route, the originator's sequence number.
#[test]
fn the_g_flag_adds_a_gratuitous_rrep_to_the_destination() {
    let mut i = Node::new(2);
    i.control(ms(0), 3, rrep(5, 9, 1, 2, 6000), 35);
    let mut q = rreq(0, 7, 1, 5, Some(8), 1);
    q.gratuitous = true;
    let out = i.control(ms(1000), 1, q, 10);
    assert_eq!(out.kinds(), ["rrep", "rrep"]);
    // The reverse route lives until 1 s + 5.6 s - 2 * 2 * 40 ms = 6.44 s.
    assert_eq!(out.rreps(), [(rrep(5, 9, 2, 0, 5000), n(1)), (rrep(0, 7, 2, 5, 5440), n(3))]);
}

// ---------------------------------------------------------------------------
// Processing a RREP (6.7)
// ---------------------------------------------------------------------------

/// 6.7: a node on the reverse path forwards the RREP to its next hop toward
/// the originator with hop count + 1 (the lifetime unchanged), adds that
/// next hop to the destination's precursors and the next hop toward the
/// destination to the originator's (ns-2, module doc), and the previous
/// hop's precursors get the next hop toward the source.
#[test]
fn a_relay_forwards_the_rrep_along_the_reverse_route() {
    let mut r = Node::new(2);
    let (timer, at) = r.control(ms(0), 1, rreq(0, 7, 1, 5, None, 1), 34).the_timer();
    r.timer(at, timer);

    let out = r.control(ms(50), 3, rrep(5, 9, 1, 0, 6000), 35);
    assert_eq!(out.kinds(), ["rrep"]);
    assert_eq!(out.the_rrep(), (rrep(5, 9, 2, 0, 6000), n(1)));
    let fwd = r.route(5).unwrap();
    assert_eq!((fwd.next_hop, fwd.hops, fwd.seq, fwd.lifetime), (n(3), 2, SeqNumber(9), ms(6050)));
    assert_eq!(fwd.precursors, [n(1)]);
    assert_eq!(r.route(0).unwrap().precursors, [n(3)]);
    assert_eq!(r.route(3).unwrap().precursors, [n(1)]);

    // A RREP with the same number and no shorter path is not news: not forwarded.
    assert!(r.control(ms(60), 4, rrep(5, 9, 1, 0, 6000), 35).rreps().is_empty());
    assert_eq!(r.route(5).unwrap().next_hop, n(3));
}

// ---------------------------------------------------------------------------
// Sequence numbers (6.1)
// ---------------------------------------------------------------------------

/// 6.1: fresher means a positive signed 32-bit difference, across the wrap:
/// 0 is fresher than 4294967295 (a longer route is taken), 4294967295 is
/// then stale (a shorter route is not), and 2147483648 ahead by 2^31 is
/// stale while 2147483647 is fresh.
#[test]
fn route_updates_compare_sequence_numbers_with_wrap_around() {
    let mut i = Node::new(2);
    i.control(ms(0), 3, rrep(5, u32::MAX, 1, 2, 6000), 35);
    assert_eq!(i.next_hop_at(ms(0), 5), Some(n(3)));

    i.control(ms(10), 4, rrep(5, 0, 5, 2, 6000), 35);
    let e = i.route(5).unwrap();
    assert_eq!((e.next_hop, e.hops, e.seq), (n(4), 6, SeqNumber(0)), "0 follows 4294967295");

    i.control(ms(20), 3, rrep(5, u32::MAX, 0, 2, 6000), 35);
    assert_eq!((i.route(5).unwrap().next_hop, i.route(5).unwrap().seq), (n(4), SeqNumber(0)), "stale: discarded");

    i.control(ms(30), 3, rrep(5, 2_147_483_648, 0, 2, 6000), 35);
    assert_eq!(i.route(5).unwrap().seq, SeqNumber(0), "2^31 ahead is negative in signed 32-bit arithmetic");

    i.control(ms(40), 3, rrep(5, 2_147_483_647, 0, 2, 6000), 35);
    let e = i.route(5).unwrap();
    assert_eq!((e.next_hop, e.hops, e.seq), (n(3), 1, SeqNumber(2_147_483_647)));
}

/// 6.1, 6.6.1: the destination's own number follows a fresher one asked
/// for across the wrap, and its next discovery's RREQ wraps to 0.
#[test]
fn the_own_sequence_number_wraps() {
    let mut d = Node::new(5);
    // 4294967295 is one behind 0: older, the number stays 0.
    let out = d.control(ms(0), 1, rreq(0, 7, 1, 5, Some(u32::MAX), 1), 10);
    assert_eq!(out.the_rrep().0.dst_seq, SeqNumber(0));
    for (id, asked) in [(2, 2_147_483_647), (3, 4_294_967_294), (4, u32::MAX)] {
        let out = d.control(ms(10 * id as u64), 1, rreq(0, 7 + id, id, 5, Some(asked), 1), 10);
        assert_eq!(out.the_rrep().0.dst_seq, SeqNumber(asked));
    }
    let out = d.originate(ms(100), data(1, 5, 9));
    assert_eq!(out.the_rreq().0.orig_seq, SeqNumber(0), "4294967295 + 1 = 0");
}

// ---------------------------------------------------------------------------
// Data (6.2) and route errors for data without a route (6.11 case (ii))
// ---------------------------------------------------------------------------

/// 6.2: forwarding a data packet sends it to the next hop and keeps the
/// routes to its destination, the next hop, its source and the previous
/// hop active for ACTIVE_ROUTE_TIMEOUT = 3 s more.
#[test]
fn forwarding_sends_to_the_next_hop_and_refreshes_the_routes_used() {
    let mut i = Node::new(2);
    // Routes to 5 via 3 and to 0 via 1, each until 1 s; one-hop routes to 1 and 3 until 3 s.
    i.control(ms(0), 3, rrep(5, 9, 1, 2, 1000), 35);
    i.control(ms(0), 1, rrep(0, 7, 1, 2, 1000), 35);

    let out = i.forward(ms(500), data(1, 0, 5), 1);
    assert_eq!(out.kinds(), ["data"]);
    assert_eq!(out.data(), [(1, n(3))]);
    for dst in [5, 3, 0, 1] {
        assert_eq!(i.route(dst).unwrap().lifetime, ms(3500), "route to {dst}");
    }
    assert_eq!(i.next_hop_at(ms(3499), 5), Some(n(3)));
    assert_eq!(i.next_hop_at(ms(3500), 5), None, "expired");
}

/// 6.11 case (ii): a data packet to forward without an active route is
/// dropped (route_break) and a RERR is broadcast with TTL 1 (module doc)
/// for its destination, with the sequence number as stored (module doc;
/// 0 if none); an invalid route's lifetime becomes now + DELETE_PERIOD.
#[test]
fn forwarding_without_a_route_drops_and_broadcasts_a_rerr() {
    let mut i = Node::new(2);
    let out = i.forward(ms(0), data(1, 0, 7), 1);
    assert_eq!(out.kinds(), ["drop", "rerr"]);
    assert_eq!(out.drops(), [(1, DropCause::RouteBreak)]);
    assert_eq!(out.rerrs(), [(vec![(7, 0)], false, 1)]);

    // A route to 5 (sequence number 9) that expired at 1 s: invalid, its
    // number incremented at expiry (table.rs, 6.1), kept DELETE_PERIOD.
    i.control(ms(0), 3, rrep(5, 9, 1, 2, 1000), 35);
    let out = i.forward(ms(2000), data(2, 0, 5), 1);
    assert_eq!(out.kinds(), ["drop", "rerr"]);
    assert_eq!(out.drops(), [(2, DropCause::RouteBreak)]);
    assert_eq!(out.rerrs(), [(vec![(5, 10)], false, 1)]);
    let e = i.route(5).unwrap();
    assert_eq!((e.state, e.seq, e.lifetime), (RouteState::Invalid, SeqNumber(10), ms(17_000)));
}

/// 6.11 RERR_RATELIMIT: at most 10 RERRs originated per second.
#[test]
fn rerr_origination_is_rate_limited_to_ten_per_second() {
    let mut i = Node::new(2);
    for k in 0..10u64 {
        assert_eq!(i.forward(ms(10 * k), data(k, 0, 7), 1).kinds(), ["drop", "rerr"], "packet {k}");
    }
    let out = i.forward(ms(100), data(10, 0, 7), 1);
    assert_eq!(out.kinds(), ["drop"]);
    assert_eq!(i.aodv.stats.errors_rate_limited, 1);
    // At 1 s the RERR of 0 ms leaves the window.
    assert_eq!(i.forward(ms(1000), data(11, 0, 7), 1).kinds(), ["drop", "rerr"]);
}

// ---------------------------------------------------------------------------
// Link breaks (6.11 case (i)) and received RERRs (6.11 case (iii), 6.12)
// ---------------------------------------------------------------------------

/// Link-layer feedback (module doc): only a data packet's MAC failure
/// breaks the link (`LinkBroken` with the failed packet, nothing
/// invalidated yet); a failed control packet is just dropped.
#[test]
fn a_data_packet_failing_at_the_mac_breaks_the_link_a_control_packet_does_not() {
    let mut r = relay();
    let p = data(1, 0, 5);
    let out = r.link_failure(ms(1000), &p, 3);
    assert_eq!(out.kinds(), ["link_broken"]);
    assert_eq!(out.links_broken(), [(n(3), Some(1))]);
    assert_eq!(r.next_hop_at(ms(1000), 5), Some(n(3)), "invalidated only in on_link_broken");

    let sent_rrep = control_packet(9, n(2), n(1), AodvMessage::Rrep(rrep(5, 9, 2, 0, 6000)), 35, ms(50));
    assert!(r.link_failure(ms(1000), &sent_rrep, 1).is_empty());

    // Without link-layer feedback a data failure breaks nothing either.
    let mut quiet = Node::with(2, AodvConfig { link_layer_feedback: false, ..AodvConfig::default() });
    assert!(quiet.link_failure(ms(0), &p, 3).is_empty());
}

/// 6.11 case (i): the routes through the broken neighbour (its own route
/// included) become invalid with their sequence numbers incremented (if
/// known) and kept DELETE_PERIOD; the packets the MAC held for it come
/// back: the node's own are buffered for a new discovery, forwarded and
/// control ones dropped (route_break, module doc); a RERR lists the lost
/// destinations that have precursors.
#[test]
fn a_broken_link_invalidates_its_routes_rebuffers_own_packets_and_sends_a_rerr() {
    let mut r = relay();
    let failed = data(10, 0, 5);
    assert_eq!(r.link_failure(ms(1000), &failed, 3).links_broken(), [(n(3), Some(10))]);

    let own = data(11, 2, 5);
    let forwarded = data(12, 0, 5);
    // A RREP this node unicast to 3 (answering a RREQ of 3 for 0).
    let control = control_packet(13, n(2), n(3), AodvMessage::Rrep(rrep(0, 7, 2, 3, 5000)), 35, ms(999));
    let out = r.link_broken(ms(1000), 3, Some(&failed), vec![own, forwarded, control]);
    assert_eq!(out.kinds(), ["buffer_changed", "drop", "drop", "rerr", "rreq", "timer", "buffer_changed"]);
    assert_eq!(out.drops(), [(12, DropCause::RouteBreak), (13, DropCause::RouteBreak)]);
    // Neighbour 3 (no sequence number known: 0) and 5 (9 + 1); both have precursor 1.
    assert_eq!(out.rerrs(), [(vec![(3, 0), (5, 10)], false, 1)]);
    // The own packet's discovery: TTL 2 hops + 2, asking for 10.
    let expected = Rreq {
        gratuitous: false,
        destination_only: false,
        unknown_seq: false,
        hop_count: 0,
        id: 1,
        dst: n(5),
        dst_seq: SeqNumber(10),
        orig: n(2),
        orig_seq: SeqNumber(1),
    };
    assert_eq!(out.the_rreq(), (expected, 4));
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(1480)));
    assert_eq!(r.buffered(), [11]);

    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.seq, e.lifetime), (RouteState::Invalid, SeqNumber(10), ms(16_000)));
    assert_eq!(r.route(3).unwrap().state, RouteState::Invalid);
    let back = r.route(0).unwrap();
    assert_eq!((back.state, back.next_hop), (RouteState::Valid, n(1)), "not through 3");
    assert!(back.precursors.is_empty(), "6.11: 3 leaves every precursor list");
    assert_eq!(r.aodv.stats.link_breaks, 1);

    // Another own packet: buffered, the discovery under way is not restarted.
    assert_eq!(r.originate(ms(1100), data(14, 2, 5)).kinds(), ["buffer_changed"]);
    // A forwarded one: dropped with a RERR (6.11 case (ii)).
    let out = r.forward(ms(1200), data(15, 0, 5), 1);
    assert_eq!(out.drops(), [(15, DropCause::RouteBreak)]);
    assert_eq!(out.rerrs(), [(vec![(5, 10)], false, 1)]);
}

/// 6.11: a break of a link no neighbour routes through sends no RERR.
#[test]
fn a_broken_link_without_precursors_sends_no_rerr() {
    let mut s = Node::new(0);
    s.originate(ms(0), data(1, 0, 5));
    s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);
    let out = s.link_broken(ms(200), 1, None, vec![]);
    assert_eq!(out.kinds(), ["buffer_changed"]);
    assert_eq!(s.next_hop_at(ms(200), 5), None);
    assert_eq!(s.route(5).unwrap().seq, SeqNumber(4));
}

/// 6.11 case (iii): a RERR from the next hop of an active route invalidates
/// it (with the RERR's sequence number) and, the route having precursors,
/// goes on in a RERR of this node; a RERR from another neighbour changes
/// nothing.
#[test]
fn a_rerr_from_the_next_hop_invalidates_the_route_and_is_propagated() {
    let mut r = relay();
    assert!(r.control(ms(500), 4, rerr(&[(5, 12)], false), 1).is_empty());
    assert_eq!(r.next_hop_at(ms(500), 5), Some(n(3)), "4 is not the next hop");

    let out = r.control(ms(1000), 3, rerr(&[(5, 12)], false), 1);
    assert_eq!(out.kinds(), ["rerr"]);
    assert_eq!(out.rerrs(), [(vec![(5, 12)], false, 1)]);
    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.seq, e.lifetime), (RouteState::Invalid, SeqNumber(12), ms(16_000)));
    assert_eq!(r.aodv.stats.errors_received[&n(5)], 1);
    // The route to 3 itself is untouched.
    assert_eq!(r.next_hop_at(ms(1000), 3), Some(n(3)));
}

/// 6.11: the originator (no precursors) invalidates its route but sends
/// nothing; its next discovery asks for the RERR's number, from the last
/// hop count + TTL_INCREMENT (6.4).
#[test]
fn a_rerr_at_the_originator_invalidates_without_propagating() {
    let mut s = Node::new(0);
    s.originate(ms(0), data(1, 0, 5));
    s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);
    assert!(s.control(ms(1000), 1, rerr(&[(5, 4)], false), 1).is_empty());
    assert_eq!(s.next_hop_at(ms(1000), 5), None);

    let out = s.originate(ms(1100), data(2, 0, 5));
    let (q, ttl) = out.the_rreq();
    assert_eq!((q.unknown_seq, q.dst_seq, ttl), (false, SeqNumber(4), 4));
}

/// 6.12: a RERR with the 'N' flag (a local repair under way downstream)
/// invalidates nothing; from the next hop, with precursors, it is passed on
/// with 'N'.
#[test]
fn a_rerr_with_the_n_flag_invalidates_nothing_and_is_passed_on() {
    let mut r = relay();
    assert!(r.control(ms(900), 4, rerr(&[(5, 12)], true), 1).is_empty(), "not from the next hop");

    let out = r.control(ms(1000), 3, rerr(&[(5, 12)], true), 1);
    assert_eq!(out.kinds(), ["rerr"]);
    let (unreachable, no_delete, ttl) = out.rerrs().remove(0);
    assert_eq!((unreachable.iter().map(|&(d, _)| d).collect::<Vec<_>>(), no_delete, ttl), (vec![5], true, 1));
    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.next_hop, e.seq), (RouteState::Valid, n(3), SeqNumber(9)));
}

// ---------------------------------------------------------------------------
// Local repair (6.12)
// ---------------------------------------------------------------------------

/// 6.12: with local repair, a break caught with a forwarded packet for a
/// destination at most MAX_REPAIR_TTL = 10 hops away starts a repair: the
/// packet waits, the route is "in repair" (later packets wait too, no
/// RERR), and the RREQ has TTL max(MIN_REPAIR_TTL = 2 hops, 0.5 * 2 hops
/// to the source) + LOCAL_ADD_TTL 2 = 4 and asks for the incremented
/// sequence number; the RERR for the destination waits for the outcome.
/// With no RREP within RING_TRAVERSAL_TIME(4) = 480 ms the repair fails:
/// the waiting packets are dropped (route_break, no refill: not this
/// node's own) and the RERR goes out.
#[test]
fn a_failed_local_repair_drops_the_waiting_packets_and_sends_the_rerr() {
    let mut r = relay_with(AodvConfig { local_repair: true, ..AodvConfig::default() });
    let failed = data(10, 0, 5);
    let out = r.link_broken(ms(1000), 3, Some(&failed), vec![data(12, 0, 5)]);
    assert_eq!(out.kinds(), ["buffer_changed", "rerr", "rreq", "timer", "buffer_changed"]);
    assert_eq!(out.rerrs(), [(vec![(3, 0)], false, 1)], "5 is under repair");
    let (q, ttl) = out.the_rreq();
    assert_eq!((q.dst, q.unknown_seq, q.dst_seq, q.orig, ttl), (n(5), false, SeqNumber(10), n(2), 4));
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(1480)));
    assert_eq!(r.route(5).unwrap().state, RouteState::InRepair);
    assert_eq!(r.aodv.stats.local_repairs, 1);

    let out = r.forward(ms(1100), data(16, 0, 5), 1);
    assert_eq!(out.kinds(), ["buffer_changed"]);
    assert_eq!(r.buffered(), [12, 16]);

    let out = r.timer(ms(1480), AodvTimer::Discovery(n(5)));
    assert_eq!(out.kinds(), ["drop", "drop", "buffer_changed", "rerr"]);
    assert_eq!(out.drops(), [(12, DropCause::RouteBreak), (16, DropCause::RouteBreak)]);
    assert!(out.refills().is_empty());
    assert_eq!(out.rerrs(), [(vec![(5, 10)], false, 1)]);
    assert_eq!(r.route(5).unwrap().state, RouteState::Invalid);
}

/// 6.12: a repair that finds a longer route than the one that broke sends
/// the waiting packets on and a RERR with the 'N' flag.
#[test]
fn a_local_repair_finding_a_longer_route_sends_a_rerr_with_n() {
    let mut r = relay_with(AodvConfig { local_repair: true, ..AodvConfig::default() });
    let failed = data(10, 0, 5);
    r.link_broken(ms(1000), 3, Some(&failed), vec![data(12, 0, 5)]);
    // 5 answers through 4, 3 hops from 4: 4 hops instead of 2.
    let out = r.control(ms(1200), 4, rrep(5, 10, 3, 2, 6000), 35);
    assert_eq!(out.kinds(), ["rerr", "data", "buffer_changed"]);
    assert_eq!(out.rerrs(), [(vec![(5, 10)], true, 1)]);
    assert_eq!(out.data(), [(12, n(4))]);
    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.next_hop, e.hops), (RouteState::Valid, n(4), 4));
    assert!(r.timer(ms(1480), AodvTimer::Discovery(n(5))).is_empty(), "the repair is over");
}

// ---------------------------------------------------------------------------
// HELLO (6.9)
// ---------------------------------------------------------------------------

/// 6.9: with HELLOs on, a HELLO gives a one-hop route to its sender living
/// ALLOWED_HELLO_LOSS * HELLO_INTERVAL = 2 s; a node on an active route that
/// broadcast nothing for HELLO_INTERVAL sends a HELLO (TTL 1, its own
/// sequence number, lifetime 2000 ms); a neighbour silent for more than
/// 2 s is declared lost (`LinkBroken` without a failed packet).
#[test]
fn hellos_keep_neighbours_and_silence_breaks_the_link() {
    let mut h = Node::with(2, AodvConfig { hello: true, ..AodvConfig::default() });
    let (timer, mut tick) = h.start(ms(0)).the_timer();
    assert_eq!(timer, AodvTimer::Hello);
    assert!(tick < ms(1000), "first HELLO at a random phase of HELLO_INTERVAL");

    let hello3 = Rrep { ack_required: false, hop_count: 0, dst: n(3), dst_seq: SeqNumber(4), orig: n(3), lifetime_ms: 2000 };
    assert!(h.control(ms(0), 3, hello3, 1).is_empty());
    let e = h.route(3).unwrap();
    assert_eq!((e.next_hop, e.hops, e.seq, e.seq_valid, e.lifetime), (n(3), 1, SeqNumber(4), true, ms(2000)));

    // Ticks every HELLO_INTERVAL less a jitter of at most 10 ms; on an
    // active route (to 3) the node says hello until the route expires at
    // 2 s; at the first tick more than 2 s after 3 was last heard, 3 is lost.
    let mut hellos = 0;
    loop {
        let out = h.timer(tick, AodvTimer::Hello);
        let (timer, next) = out.the_timer();
        assert_eq!(timer, AodvTimer::Hello);
        assert!(next >= tick + SimDuration(990_000_000) && next <= tick + SimDuration(1_000_000_000), "at {tick}: {next}");
        if tick < ms(2000) {
            let own = Rrep { ack_required: false, hop_count: 0, dst: n(2), dst_seq: SeqNumber(0), orig: n(2), lifetime_ms: 2000 };
            assert_eq!(out.hellos(), [(own, NodeId::BROADCAST, 1)], "at {tick}");
            hellos += 1;
        } else {
            assert!(out.hellos().is_empty(), "no active route left");
        }
        if tick > ms(2000) {
            assert_eq!(out.links_broken(), [(n(3), None)], "at {tick}");
            break;
        }
        assert!(out.links_broken().is_empty());
        tick = next;
    }
    assert!(hellos >= 2);
}
