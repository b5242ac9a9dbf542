//! What the frame-level node tests of the routing protocols share
//! (`aodv/node_tests`, `dsr/node_tests`): a [`Node`] drives one protocol
//! instance through [`Routing::handle`] as `world/network.rs` does (a
//! `RoutingContext` with its own uid counter, a clock that only goes
//! forward) and hands back the [`RoutingOutput`]s of each step as a
//! [`Trace`]. Each protocol's tests add their own steps and decoders to
//! `Node<TheirProtocol>` and `Trace<TheirProtocol>`.

use crate::engine::Outputs;
use crate::loss::DropCause;
use crate::net::routing::{Routing, RoutingContext, RoutingInput, RoutingOutput};
use crate::time::SimTime;
use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES, UDP_HEADER_BYTES};
use std::marker::PhantomData;

/// What the harness needs of a protocol besides [`Routing`].
pub(crate) trait TestedRouting: Routing {
    /// Assert that `output`, produced by a step of node `node`, is built as
    /// the protocol must build it (its routing packets' size, flow, ends).
    fn check_output(node: NodeId, output: &RoutingOutput);
    /// The word [`Trace::kinds`] gives a packet sent: its message's name,
    /// or `"data"`.
    fn sent_kind(packet: &Packet) -> &'static str;
}

/// Milliseconds since the start of the run.
pub(crate) fn ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

pub(crate) fn n(i: u32) -> NodeId {
    NodeId(i)
}

/// A UDP data packet of flow 0 from `src` to `dst`, with no routing header.
pub(crate) fn data(uid: u64, src: u32, dst: u32) -> Packet {
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

/// One node's routing protocol and what surrounds it in the world: its
/// identity, the run's packet uids, the clock.
pub(crate) struct Node<P> {
    pub routing: P,
    pub id: NodeId,
    pub next_uid: u64,
    /// Uids of the packets the tests make up (received control packets).
    pub next_test_uid: u64,
    pub now: SimTime,
}

impl<P: TestedRouting> Node<P> {
    pub fn of(id: u32, routing: P) -> Node<P> {
        Node { routing, id: n(id), next_uid: 1_000_000, next_test_uid: 2_000_000, now: SimTime::ZERO }
    }

    /// One step at `t`, with a context as the world gives it; every output
    /// is checked by [`TestedRouting::check_output`].
    pub fn step(&mut self, t: SimTime, f: impl FnOnce(&mut P, &mut RoutingContext, &mut Outputs<RoutingOutput>)) -> Trace<P> {
        assert!(t >= self.now, "the clock goes forward ({t} after {})", self.now);
        self.now = t;
        let mut out = Outputs::new();
        let mut ctx = RoutingContext { node: self.id, next_uid: &mut self.next_uid, warmup: SimTime::ZERO };
        f(&mut self.routing, &mut ctx, &mut out);
        for o in &out {
            P::check_output(self.id, o);
        }
        Trace::of(out.into_vec())
    }

    /// The transport hands down a packet this node originates.
    pub fn originate(&mut self, t: SimTime, packet: Packet) -> Trace<P> {
        self.step(t, |r, ctx, out| r.handle(t, RoutingInput::Originate(packet), ctx, out))
    }

    /// A data packet from neighbour `from` to forward.
    pub fn forward(&mut self, t: SimTime, packet: Packet, from: u32) -> Trace<P> {
        self.step(t, |r, ctx, out| r.handle(t, RoutingInput::Forward { packet, from: n(from) }, ctx, out))
    }

    /// A routing packet from neighbour `from`.
    pub fn receive(&mut self, t: SimTime, from: u32, packet: Packet) -> Trace<P> {
        self.step(t, |r, ctx, out| r.handle(t, RoutingInput::Control { packet, from: n(from) }, ctx, out))
    }

    /// The protocol's timer `id` fires.
    pub fn fire(&mut self, t: SimTime, id: u32) -> Trace<P> {
        self.step(t, |r, ctx, out| r.handle(t, RoutingInput::Timer(id), ctx, out))
    }
}

/// The outputs of one step, in order.
pub(crate) struct Trace<P>(pub Vec<RoutingOutput>, PhantomData<P>);

impl<P> std::fmt::Debug for Trace<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Trace").field(&self.0).finish()
    }
}

impl<P: TestedRouting> Trace<P> {
    pub fn of(outputs: Vec<RoutingOutput>) -> Trace<P> {
        Trace(outputs, PhantomData)
    }

    /// One word per output, in order: the sent message's name (or
    /// `data`), `drop`, `timer`, `link_broken`, `buffer_changed`, `refill`.
    pub fn kinds(&self) -> Vec<&'static str> {
        self.0
            .iter()
            .map(|o| match o {
                RoutingOutput::Send { packet, .. } => P::sent_kind(packet),
                RoutingOutput::Drop { .. } => "drop",
                RoutingOutput::Timer { .. } => "timer",
                RoutingOutput::LinkBroken { .. } => "link_broken",
                RoutingOutput::BufferChanged => "buffer_changed",
                RoutingOutput::SourceMayRefill { .. } => "refill",
            })
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Packets dropped: (uid, cause).
    pub fn drops(&self) -> Vec<(u64, DropCause)> {
        self.0
            .iter()
            .filter_map(|o| match o {
                RoutingOutput::Drop { packet, cause } => Some((packet.uid, *cause)),
                _ => None,
            })
            .collect()
    }
}
