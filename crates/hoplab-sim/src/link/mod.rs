//! Wired point-to-point links (ns-2 `duplex-link`): full duplex, each
//! direction with its own queue (a [`QueueDiscipline`]: drop-tail by
//! default, `[queue]` or the link's own `queue` table), a transmitter at `rate_mbps` (serialisation delay = size x 8
//! / rate) and a propagation delay; an optional uniform loss per packet
//! (drop cause `channel_error`, the random "wireless" loss of seed 002's
//! lossy last hop).
//!
//! Owns: queues, serialisation, propagation and loss on wires. A node may
//! have wired links and an 802.11 radio (a base station); the world picks
//! the interface by next hop. A link is a sans-IO state machine: it is
//! given packets and its own timer expiries and writes [`LinkOutput`]s.
//!
//! Every packet is offered to the queue, also when the transmitter is
//! idle (it is then taken out at once), as ns-2's `Queue::recv` does:
//! active queue management sees every arrival.

pub mod config;

pub use config::LinkConfig;

use crate::engine::{Outputs, Stream};
use crate::loss::DropCause;
use crate::queue::{Admission, Interface, QueueConfig, QueueDisc, QueueDiscipline, QueueDrops, Queued};
use crate::time::{SimDuration, SimTime};
use crate::wire::{NodeId, Packet};
use std::collections::VecDeque;

/// A direction's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkTimer {
    /// The packet being serialised is all on the wire.
    TxEnd,
    /// The first packet on the wire reaches the far end.
    Arrive,
}

impl LinkTimer {
    /// The timer's id (with its direction, 0: a -> b, 1: b -> a).
    pub fn id(self, direction: u8) -> u32 {
        let kind = match self {
            LinkTimer::TxEnd => 0,
            LinkTimer::Arrive => 1,
        };
        2 * kind + direction as u32
    }

    pub fn from_id(id: u32) -> (LinkTimer, u8) {
        (if id >> 1 == 0 { LinkTimer::TxEnd } else { LinkTimer::Arrive }, (id & 1) as u8)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LinkOutput {
    /// Call `on_timer` at `at` (plain timers, one per packet).
    Timer { timer: LinkTimer, direction: u8, at: SimTime },
    /// `packet` reached `to` from `from`.
    Deliver { to: NodeId, from: NodeId, packet: Packet },
    /// `packet` is lost at `node`.
    Drop { node: NodeId, packet: Packet, cause: DropCause },
}

/// One direction of a link.
#[derive(Debug, Clone)]
pub struct LinkDirection {
    pub queue: QueueDiscipline,
    /// The packet being serialised onto the wire.
    pub transmitting: Option<Packet>,
    /// Packets on the wire, in arrival order (one delay for all).
    pub propagating: VecDeque<Packet>,
    pub packets_sent: u64,
    /// Integral of the queue length over time (packets x ns).
    pub queue_area: u128,
    pub queue_changed_at: SimTime,
    /// The queue's drops, early and overflow.
    pub drops: QueueDrops,
    queue_rng: Stream,
}

impl LinkDirection {
    /// Account the queue's length since the last change (`old_len`) up to
    /// `now` (the time average).
    pub fn queue_changed(&mut self, now: SimTime, old_len: usize) {
        self.queue_area += old_len as u128 * now.since(self.queue_changed_at).as_nanos() as u128;
        self.queue_changed_at = now;
    }
}

pub struct Link {
    pub a: NodeId,
    pub b: NodeId,
    pub rate_bps: f64,
    pub delay: SimDuration,
    pub loss_rate: f64,
    /// [a -> b, b -> a].
    pub directions: [LinkDirection; 2],
    pub loss_rng: Stream,
}

impl Link {
    /// `queue`: the discipline of both directions (the link's own, or
    /// `[queue]`'s); `queue_rngs`: the queue streams of the two directions.
    pub fn new(config: &LinkConfig, queue: &QueueConfig, loss_rng: Stream, queue_rngs: [Stream; 2]) -> Link {
        let interface = Link::interface(config);
        let direction = |queue_rng| LinkDirection {
            queue: queue.build(&interface),
            transmitting: None,
            propagating: VecDeque::new(),
            packets_sent: 0,
            queue_area: 0,
            queue_changed_at: SimTime::ZERO,
            drops: QueueDrops::default(),
            queue_rng,
        };
        let [r0, r1] = queue_rngs;
        Link {
            a: NodeId(config.a),
            b: NodeId(config.b),
            rate_bps: config.rate_mbps * 1e6,
            delay: SimDuration::from_millis_f64(config.delay_ms),
            loss_rate: config.loss_rate,
            directions: [direction(r0), direction(r1)],
            loss_rng,
        }
    }

    /// What a direction's queue knows of the link.
    pub fn interface(config: &LinkConfig) -> Interface {
        Interface {
            capacity_packets: config.queue_packets as usize,
            priority_control: false,
            rate_bps: config.rate_mbps * 1e6,
            delay: SimDuration::from_millis_f64(config.delay_ms),
        }
    }

    /// Sending and receiving node of a direction.
    pub fn ends(&self, direction: u8) -> (NodeId, NodeId) {
        if direction == 0 {
            (self.a, self.b)
        } else {
            (self.b, self.a)
        }
    }

    fn serialisation(&self, packet: &Packet) -> SimDuration {
        SimDuration::from_nanos((packet.size_bytes() as f64 * 8.0 * 1e9 / self.rate_bps).ceil() as u64)
    }

    /// A packet to send in `direction`: the queue takes it (or drops it);
    /// it starts at once if the transmitter is idle.
    pub fn enqueue(&mut self, now: SimTime, direction: u8, packet: Packet, out: &mut Outputs<LinkOutput>) {
        let (sender, receiver) = self.ends(direction);
        let d = &mut self.directions[direction as usize];
        let old = d.queue.len();
        match d.queue.enqueue(now, Queued { packet, next_hop: receiver }, &mut d.queue_rng) {
            Admission::Queued => d.queue_changed(now, old),
            Admission::QueuedEvicting { evicted, cause } => {
                d.queue_changed(now, old);
                d.drops.count(cause);
                out.push(LinkOutput::Drop { node: sender, packet: evicted.packet, cause });
            }
            Admission::Dropped { item, cause } => {
                d.drops.count(cause);
                out.push(LinkOutput::Drop { node: sender, packet: item.packet, cause });
                return;
            }
        }
        if d.transmitting.is_none() {
            let old = d.queue.len();
            if let Some(next) = d.queue.dequeue(now) {
                d.queue_changed(now, old);
                self.start(now, direction, next.packet, out);
            }
        }
    }

    fn start(&mut self, now: SimTime, direction: u8, packet: Packet, out: &mut Outputs<LinkOutput>) {
        let done = now + self.serialisation(&packet);
        let d = &mut self.directions[direction as usize];
        d.transmitting = Some(packet);
        d.packets_sent += 1;
        out.push(LinkOutput::Timer { timer: LinkTimer::TxEnd, direction, at: done });
    }

    pub fn on_timer(&mut self, now: SimTime, timer: LinkTimer, direction: u8, out: &mut Outputs<LinkOutput>) {
        match timer {
            LinkTimer::TxEnd => {
                // The last bit is on the wire: it arrives after the
                // propagation delay; the next queued packet starts.
                let arrival = now + self.delay;
                let d = &mut self.directions[direction as usize];
                let packet = d.transmitting.take().expect("a packet in transmission");
                d.propagating.push_back(packet);
                out.push(LinkOutput::Timer { timer: LinkTimer::Arrive, direction, at: arrival });
                let old = d.queue.len();
                if let Some(next) = d.queue.dequeue(now) {
                    d.queue_changed(now, old);
                    self.start(now, direction, next.packet, out);
                }
            }
            LinkTimer::Arrive => {
                let (from, to) = self.ends(direction);
                let packet = self.directions[direction as usize].propagating.pop_front().expect("a packet on the wire");
                if self.loss_rng.bernoulli(self.loss_rate) {
                    out.push(LinkOutput::Drop { node: to, packet, cause: DropCause::ChannelError });
                } else {
                    out.push(LinkOutput::Deliver { to, from, packet });
                }
            }
        }
    }

    /// Every packet the link holds (queued, serialising or propagating).
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.directions
            .iter()
            .flat_map(|d| d.queue.fifo().iter().map(|q| &q.packet).chain(d.transmitting.iter()).chain(d.propagating.iter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{RngStreams, StreamPurpose};
    use crate::wire::{PacketKind, RoutingHeader, TransportHeader};

    fn packet(uid: u64, bytes: u32) -> Packet {
        Packet {
            uid,
            kind: PacketKind::Data,
            flow: 0,
            sequence: uid,
            src: NodeId(0),
            dst: NodeId(1),
            payload_bytes: bytes - 28,
            header_bytes: 28,
            created: SimTime::ZERO,
            ttl: 64,
            transport: TransportHeader::Udp,
            routing: RoutingHeader::None,
        }
    }

    fn link(queue_packets: u32, loss_rate: f64) -> Link {
        let config = LinkConfig { a: 0, b: 1, rate_mbps: 1.0, delay_ms: 10.0, queue_packets, loss_rate, queue: None };
        let s = RngStreams::new(1);
        let queue = QueueConfig::DropTail;
        Link::new(
            &config,
            &queue,
            s.stream(StreamPurpose::LinkLoss, 0),
            [s.stream(StreamPurpose::Queue, 0), s.stream(StreamPurpose::Queue, 1)],
        )
    }

    #[test]
    fn a_packet_is_serialised_then_propagated() {
        let mut l = link(5, 0.0);
        let mut out = Outputs::new();
        // 1000 bytes at 1 Mb/s: 8 ms on the wire, then 10 ms of flight.
        l.enqueue(SimTime::ZERO, 0, packet(1, 1000), &mut out);
        assert_eq!(out[0], LinkOutput::Timer { timer: LinkTimer::TxEnd, direction: 0, at: SimTime(8_000_000) });
        out.clear();
        l.on_timer(SimTime(8_000_000), LinkTimer::TxEnd, 0, &mut out);
        assert_eq!(out[0], LinkOutput::Timer { timer: LinkTimer::Arrive, direction: 0, at: SimTime(18_000_000) });
        out.clear();
        l.on_timer(SimTime(18_000_000), LinkTimer::Arrive, 0, &mut out);
        assert!(matches!(out[0], LinkOutput::Deliver { to: NodeId(1), from: NodeId(0), packet } if packet.uid == 1));
    }

    #[test]
    fn a_full_queue_drops_at_the_sender_and_the_next_packet_follows_back_to_back() {
        let mut l = link(1, 0.0);
        let mut out = Outputs::new();
        for uid in 1..=3 {
            l.enqueue(SimTime::ZERO, 1, packet(uid, 1000), &mut out);
        }
        // 1 serialising, 1 queued, 1 dropped at node 1 (the b end sends).
        assert!(matches!(out[1], LinkOutput::Drop { node: NodeId(1), cause: DropCause::QueueOverflow, packet } if packet.uid == 3));
        out.clear();
        l.on_timer(SimTime(8_000_000), LinkTimer::TxEnd, 1, &mut out);
        assert_eq!(out[1], LinkOutput::Timer { timer: LinkTimer::TxEnd, direction: 1, at: SimTime(16_000_000) });
        assert_eq!(l.packets().count(), 2);
    }

    #[test]
    fn timer_ids_round_trip() {
        for timer in [LinkTimer::TxEnd, LinkTimer::Arrive] {
            for direction in [0, 1] {
                assert_eq!(LinkTimer::from_id(timer.id(direction)), (timer, direction));
            }
        }
    }
}
