//! Frame-level unit tests of one node's DSR, without a World.
//!
//! A [`Node`] drives a single [`DsrNode`] through the [`Routing`] trait as
//! `world/network.rs` does (a `RoutingContext` with its own uid counter, a
//! clock that only goes forward) and hands back the [`RoutingOutput`]s of
//! each step as a [`Trace`], decoded for assertions: the Route Requests,
//! Replies and Errors sent (header and next hop), data sent (route and
//! header bytes), drops with their cause, timers with their deadlines.
//!
//! Expected values are written out from RFC 4728 and the defaults of
//! `config.rs` (BroadcastJitter 10 ms, NonpropRequestTimeout 30 ms,
//! RequestPeriod 500 ms doubling, SendBufferTimeout 30 s, send buffer 64,
//! GratReplyHoldoff 1 s), never computed by the code under test.

mod discovery;
mod maintenance;

use super::{DsrConfig, DsrNode, DsrTimer, CONTROL_FLOW};
use crate::engine::{RngStreams, StreamPurpose};
use crate::loss::DropCause;
use crate::net::dsr::cache::CachePart;
use crate::net::node_harness::{self as harness, data, ms, n, TestedRouting};
use crate::net::routing::{Routing, RoutingOutput};
use crate::time::SimTime;
use crate::wire::dsr::{DsrHeader, DsrOption, Path};
use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES};

fn path(nodes: &[u32]) -> Path {
    Path::of(&nodes.iter().map(|&i| n(i)).collect::<Vec<_>>())
}

/// `data` on its way along `route`, held by `route[cur]`.
fn routed(uid: u64, route: &[u32], cur: u8) -> Packet {
    let mut p = data(uid, route[0], *route.last().unwrap());
    let mut h = DsrHeader::source_route(path(route));
    h.cur = cur;
    p.header_bytes += h.buffer_len();
    p.routing = RoutingHeader::Dsr(h);
    p
}

/// A routing packet from `src` to `dst` carrying `header`.
fn control(uid: u64, src: u32, dst: NodeId, header: DsrHeader) -> Packet {
    Packet {
        uid,
        kind: PacketKind::Control,
        flow: CONTROL_FLOW,
        sequence: 0,
        src: n(src),
        dst,
        payload_bytes: header.buffer_len(),
        header_bytes: IP_HEADER_BYTES,
        created: SimTime::ZERO,
        ttl: 255,
        transport: TransportHeader::Udp,
        routing: RoutingHeader::Dsr(header),
    }
}

fn request(route: &[u32], id: u16, target: u32, hop_limit: u8) -> DsrHeader {
    DsrHeader {
        path: path(route),
        option: DsrOption::Request { id, target: n(target), hop_limit },
        cur: 0,
        salvage: 0,
        piggyback_error: None,
    }
}

/// One node's DSR, driven as the world drives it (`net/node_harness.rs`).
type Node = harness::Node<DsrNode>;
/// The outputs of one step, decoded below.
type Trace = harness::Trace<DsrNode>;

impl TestedRouting for DsrNode {
    /// Every control packet sent is a routing packet whose size is its DSR
    /// header over IP.
    fn check_output(_node: NodeId, o: &RoutingOutput) {
        if let RoutingOutput::Send { packet, .. } = o {
            if packet.is_control() {
                let h = packet.dsr().expect("a DSR routing packet");
                assert_eq!(packet.flow, CONTROL_FLOW);
                assert_eq!(packet.size_bytes(), h.buffer_len() + 20, "{o:?}: the DSR header over IP");
            }
        }
    }

    /// `rreq`, `rrep`, `rerr` or `data`.
    fn sent_kind(packet: &Packet) -> &'static str {
        packet.dsr().and_then(|h| h.name()).unwrap_or("data")
    }
}

impl Node {
    fn new(id: u32) -> Node {
        Node::with(id, DsrConfig::default())
    }

    fn with(id: u32, config: DsrConfig) -> Node {
        let rng = RngStreams::new(1).stream(StreamPurpose::Routing, id as u64);
        Node::of(id, DsrNode::new(config, rng))
    }

    /// A Route Request from neighbour `from` (broadcast).
    fn receive_request(&mut self, t: SimTime, from: u32, header: DsrHeader) -> Trace {
        self.next_test_uid += 1;
        let (uid, src) = (self.next_test_uid, header.path.get(0).0);
        let DsrOption::Request { target, .. } = header.option else { panic!("a request") };
        self.receive(t, from, control(uid, src, target, header))
    }

    fn overhear(&mut self, t: SimTime, packet: &Packet, from: u32) -> Trace {
        self.step(t, |d, ctx, out| d.on_overheard(t, packet, n(from), ctx, out))
    }

    fn timer(&mut self, t: SimTime, timer: DsrTimer) -> Trace {
        self.fire(t, timer.id())
    }

    /// Fire every jitter timer of `trace` (in deadline order): the control
    /// packets they release.
    fn release_jittered(&mut self, trace: &Trace) -> Trace {
        let mut timers: Vec<(SimTime, u32)> = trace
            .0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Timer { id, at } if matches!(DsrTimer::from_id(*id), DsrTimer::Send(_)) => Some((*at, *id)),
                _ => None,
            })
            .collect();
        timers.sort();
        let mut all = Vec::new();
        for (at, id) in timers {
            all.extend(self.fire(at, id).0);
        }
        Trace::of(all)
    }

    /// The MAC gave up on `packet` toward `next_hop`; `lost`: its cause
    /// (the node may salvage it).
    fn link_failure(&mut self, t: SimTime, packet: &Packet, next_hop: u32, lost: Option<DropCause>) -> Trace {
        self.step(t, |d, ctx, out| d.on_link_failure(t, packet, n(next_hop), lost, ctx, out))
    }

    fn link_broken(&mut self, t: SimTime, neighbour: u32, queued: Vec<Packet>) -> Trace {
        self.step(t, |d, ctx, out| d.on_link_broken(t, n(neighbour), None, queued, ctx, out))
    }

    fn cache(&mut self, route: &[u32], part: CachePart) {
        let now = self.now;
        self.routing.cache.add(&path(route), part, now);
    }

    fn route_to(&mut self, dst: u32) -> Option<Path> {
        let now = self.now;
        self.routing.cache.find(n(dst), now, false)
    }

    fn buffered(&self) -> Vec<u64> {
        self.routing.buffered().map(|p| p.uid).collect()
    }
}

impl Trace {
    /// Routing packets sent: (packet, header, next hop).
    fn controls(&self) -> Vec<(Packet, DsrHeader, NodeId)> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Send { packet, next_hop } if packet.is_control() => Some((*packet, *packet.dsr().unwrap(), *next_hop)),
                _ => None,
            })
            .collect()
    }

    /// The only routing packet sent: (packet, header, next hop).
    fn the_control(&self) -> (Packet, DsrHeader, NodeId) {
        let c = self.controls();
        assert_eq!(c.len(), 1, "one routing packet in {self:?}");
        c[0]
    }

    /// Data packets sent: (uid, source route, salvage count, next hop).
    fn data(&self) -> Vec<(u64, Path, u8, NodeId)> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Send { packet, next_hop } if !packet.is_control() => {
                    let h = packet.dsr().expect("data carries a source route");
                    Some((packet.uid, h.path, h.salvage, *next_hop))
                }
                _ => None,
            })
            .collect()
    }

    /// Deadlines of the timers armed of one kind.
    fn timers(&self, kind: fn(DsrTimer) -> bool) -> Vec<SimTime> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Timer { id, at } if kind(DsrTimer::from_id(*id)) => Some(*at),
                _ => None,
            })
            .collect()
    }

    fn discovery_timers(&self) -> Vec<SimTime> {
        self.timers(|t| matches!(t, DsrTimer::Discovery(_)))
    }
}

#[test]
fn a_data_packet_carries_its_source_route_and_forwarders_follow_it() {
    let mut a = Node::new(0);
    a.cache(&[0, 1, 2, 3], CachePart::Primary);
    let t = a.originate(ms(1), data(1, 0, 3));
    assert_eq!(t.data(), vec![(1, path(&[0, 1, 2, 3]), 0, n(1))]);
    let RoutingOutput::Send { packet, .. } = t.0[0] else { panic!() };
    assert_eq!(packet.header_bytes, 28 + 16, "4 bytes per address of the route (RFC 4728 6.1, 6.7)");
    assert_eq!(packet.dsr().unwrap().cur, 1, "the next hop holds it next");

    // Node 1 forwards along the route and learns the rest of it.
    let mut b = Node::new(1);
    let t = b.forward(ms(2), packet, 0);
    assert_eq!(t.data(), vec![(1, path(&[0, 1, 2, 3]), 0, n(2))]);
    assert_eq!(b.route_to(3), Some(path(&[1, 2, 3])));
    let RoutingOutput::Send { packet, .. } = t.0[0] else { panic!() };
    assert_eq!(packet.dsr().unwrap().cur, 2);
    assert_eq!(packet.header_bytes, 28 + 16, "forwarding keeps the header's size");
}

#[test]
fn a_packet_with_no_route_to_follow_is_dropped() {
    let mut b = Node::new(5);
    let t = b.forward(ms(1), routed(1, &[0, 1, 2], 1), 0);
    assert_eq!(t.drops(), vec![(1, DropCause::NoRoute)], "node 5 is not on the route");
    let t = b.forward(ms(1), data(2, 0, 9), 0);
    assert_eq!(t.drops(), vec![(2, DropCause::NoRoute)], "no DSR header");
}
