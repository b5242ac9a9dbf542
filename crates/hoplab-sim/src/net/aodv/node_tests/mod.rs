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
use crate::engine::{RngStreams, StreamPurpose};
use crate::loss::DropCause;
use crate::net::aodv::table::{RouteEntry, RouteState};
use crate::net::node_harness::{self as harness, data, ms, n, TestedRouting};
use crate::net::routing::{Routing, RoutingOutput};
use crate::time::{SimDuration, SimTime};
use crate::wire::aodv::{AodvMessage, Rerr, Rrep, Rreq};
use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES, UDP_HEADER_BYTES};

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

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

/// One node's AODV, driven as the world drives it (`net/node_harness.rs`).
type Node = harness::Node<AodvNode>;
/// The outputs of one step, decoded below.
type Trace = harness::Trace<AodvNode>;

impl TestedRouting for AodvNode {
    /// Every control packet the node sends is built as a routing packet of
    /// this node addressed to its next hop.
    fn check_output(node: NodeId, o: &RoutingOutput) {
        if let RoutingOutput::Send { packet, next_hop } = o {
            if let Some(m) = packet.aodv() {
                assert_eq!(packet.kind, PacketKind::Control, "{o:?}");
                assert_eq!(packet.flow, CONTROL_FLOW, "{o:?}");
                assert_eq!((packet.src, packet.dst), (node, *next_hop), "{o:?}");
                assert_eq!(packet.size_bytes(), m.buffer_len() + 28, "{o:?}: the message over UDP (8) and IP (20)");
            }
        }
    }

    /// `rreq`, `rrep`, `hello`, `rerr` or `data`.
    fn sent_kind(packet: &Packet) -> &'static str {
        packet.aodv().map_or("data", |m| m.name())
    }
}

impl Node {
    fn new(id: u32) -> Node {
        Node::with(id, AodvConfig::default())
    }

    fn with(id: u32, config: AodvConfig) -> Node {
        let rng = RngStreams::new(1).stream(StreamPurpose::Routing, id as u64);
        Node::of(id, AodvNode::new(config, rng))
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
        self.receive(t, from, packet)
    }

    fn timer(&mut self, t: SimTime, timer: AodvTimer) -> Trace {
        self.fire(t, timer.id())
    }

    /// The MAC gave up on `packet` toward `next_hop`.
    fn link_failure(&mut self, t: SimTime, packet: &Packet, next_hop: u32) -> Trace {
        self.step(t, |a, ctx, out| a.on_link_failure(t, packet, n(next_hop), None, ctx, out))
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
        self.routing.table.get(n(dst), self.now).cloned()
    }

    /// The next hop of the active route to `dst` at `t` (a look, not a step).
    fn next_hop_at(&mut self, t: SimTime, dst: u32) -> Option<NodeId> {
        self.routing.next_hop(t, n(dst))
    }

    /// Uids of the data packets waiting for a route, oldest first.
    fn buffered(&self) -> Vec<u64> {
        self.routing.buffered().map(|p| p.uid).collect()
    }
}

impl Trace {
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

mod discovery;
mod maintenance;
mod ns2_repair;
mod ns2_schedule;
mod requests;
