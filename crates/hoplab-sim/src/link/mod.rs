//! Wired point-to-point links (ns-2 `duplex-link`): full duplex, each
//! direction with its own drop-tail queue, a transmitter at `rate_mbps`
//! (serialisation delay = size x 8 / rate) and a propagation delay; an
//! optional uniform loss per packet (drop cause `channel_error`, the random
//! "wireless" loss of seed 002's lossy last hop).
//!
//! Owns: queues, serialisation, propagation and loss on wires. A node may
//! have wired links and an 802.11 radio (a base station); routing picks the
//! interface by next hop (`World::net_route_and_enqueue`).

use crate::engine::Stream;
use crate::net::{NodeId, Packet};
use crate::scenario::LinkConfig;
use crate::loss::DropCause;
use crate::time::{SimDuration, SimTime};
use crate::world::{Event, Layer, World};
use std::collections::VecDeque;

/// One direction of a link.
#[derive(Debug, Clone, Default)]
pub struct LinkDirection {
    pub queue: VecDeque<Packet>,
    /// The packet being serialised onto the wire.
    pub transmitting: Option<Packet>,
    /// Packets on the wire, in arrival order (one delay for all).
    pub propagating: VecDeque<Packet>,
    pub packets_sent: u64,
    /// Integral of the queue length over time (packets x ns).
    pub queue_area: u128,
    pub queue_changed_at: SimTime,
}

impl LinkDirection {
    fn queue_changed(&mut self, now: SimTime, old_len: usize) {
        self.queue_area += old_len as u128 * now.since(self.queue_changed_at).as_nanos() as u128;
        self.queue_changed_at = now;
    }
}

pub struct Link {
    pub a: NodeId,
    pub b: NodeId,
    pub rate_bps: f64,
    pub delay: SimDuration,
    pub queue_packets: usize,
    pub loss_rate: f64,
    /// [a -> b, b -> a].
    pub directions: [LinkDirection; 2],
    pub loss_rng: Stream,
}

impl Link {
    pub fn new(config: &LinkConfig, loss_rng: Stream) -> Link {
        Link {
            a: NodeId(config.a),
            b: NodeId(config.b),
            rate_bps: config.rate_mbps * 1e6,
            delay: SimDuration::from_secs_f64(config.delay_ms / 1e3),
            queue_packets: config.queue_packets as usize,
            loss_rate: config.loss_rate,
            directions: [LinkDirection::default(), LinkDirection::default()],
            loss_rng,
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
}

impl World {
    /// Hand a packet to a link direction (drop-tail).
    pub(crate) fn link_enqueue(&mut self, link: u32, direction: u8, packet: Packet) {
        let now = self.now();
        let l = &mut self.links[link as usize];
        let capacity = l.queue_packets;
        let d = &mut l.directions[direction as usize];
        if d.transmitting.is_none() {
            self.link_start(link, direction, packet);
        } else if d.queue.len() < capacity {
            let old = d.queue.len();
            d.queue_changed(now, old);
            d.queue.push_back(packet);
        } else {
            let sender = l.ends(direction).0;
            self.drop_packet(sender, &packet, DropCause::QueueOverflow);
        }
    }

    fn link_start(&mut self, link: u32, direction: u8, packet: Packet) {
        let now = self.now();
        let l = &mut self.links[link as usize];
        let done = now + l.serialisation(&packet);
        let d = &mut l.directions[direction as usize];
        d.transmitting = Some(packet);
        d.packets_sent += 1;
        self.queue.schedule(done, Event::new(link, Layer::Link, direction as u32));
    }

    /// The last bit is on the wire: it arrives after the propagation delay;
    /// the next queued packet starts.
    pub(crate) fn link_tx_end(&mut self, link: u32, direction: u8) {
        let now = self.now();
        let l = &mut self.links[link as usize];
        let arrival = now + l.delay;
        let d = &mut l.directions[direction as usize];
        let packet = d.transmitting.take().expect("a packet in transmission");
        d.propagating.push_back(packet);
        self.queue.schedule(arrival, Event::new(link, Layer::Link, 2 + direction as u32));
        let d = &mut self.links[link as usize].directions[direction as usize];
        let old = d.queue.len();
        if let Some(next) = d.queue.pop_front() {
            d.queue_changed(now, old);
            self.link_start(link, direction, next);
        }
    }

    pub(crate) fn link_arrive(&mut self, link: u32, direction: u8) {
        let l = &mut self.links[link as usize];
        let (from, to) = l.ends(direction);
        let packet = l.directions[direction as usize].propagating.pop_front().expect("a packet on the wire");
        let lost = l.loss_rng.bernoulli(l.loss_rate);
        if lost {
            self.drop_packet(to, &packet, DropCause::ChannelError);
        } else {
            self.net_receive(to, packet, from);
        }
    }

    /// Every packet held by a link (queued, serialising or propagating).
    pub fn link_packets(&self) -> impl Iterator<Item = &Packet> {
        self.links.iter().flat_map(|l| l.directions.iter()).flat_map(|d| {
            d.queue.iter().chain(d.transmitting.iter()).chain(d.propagating.iter())
        })
    }
}
