//! The request queue (RFC 3561 section 6.3): data packets wait here, in
//! arrival order, while a route to their destination is discovered (or
//! locally repaired, 6.12). Bounded: when full, the oldest packet is
//! dropped (as ns-2's `aodv_rqueue` and ns-3's `RequestQueue`); a packet
//! older than the timeout is dropped too. Both drops have cause `no_route`.

use crate::time::{SimDuration, SimTime};
use crate::wire::{NodeId, Packet};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Buffered {
    pub packet: Packet,
    pub since: SimTime,
}

/// The buffered packets, oldest first.
pub struct Iter<'a>(std::collections::vec_deque::Iter<'a, Buffered>);

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Packet;
    fn next(&mut self) -> Option<&'a Packet> {
        self.0.next().map(|b| &b.packet)
    }
}

/// Bytes of one packet waiting in a request queue (memory accounting).
pub const ENTRY_BYTES: u64 = std::mem::size_of::<Buffered>() as u64;

#[derive(Debug, Clone)]
pub struct RequestQueue {
    packets: VecDeque<Buffered>,
    capacity: usize,
    timeout: SimDuration,
}

impl RequestQueue {
    pub fn new(capacity: usize, timeout: SimDuration) -> RequestQueue {
        RequestQueue { packets: VecDeque::new(), capacity: capacity.max(1), timeout }
    }

    /// Buffer a packet; returns the packet that had to go to make room.
    pub fn push(&mut self, packet: Packet, now: SimTime) -> Option<Packet> {
        let evicted = if self.packets.len() >= self.capacity { self.packets.pop_front().map(|b| b.packet) } else { None };
        self.packets.push_back(Buffered { packet, since: now });
        evicted
    }

    /// Move the packets older than the timeout into `out`.
    pub fn take_expired(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        while let Some(b) = self.packets.front() {
            if now.since(b.since) < self.timeout {
                break;
            }
            out.push(self.packets.pop_front().expect("front exists").packet);
        }
    }

    /// Move every packet for `dst` into `out`, in arrival order.
    pub fn take_for(&mut self, dst: NodeId, out: &mut Vec<Packet>) {
        self.take_where(|p| p.dst == dst, out)
    }

    /// Move every packet `pick` accepts into `out`, in arrival order.
    pub fn take_where(&mut self, pick: impl Fn(&Packet) -> bool, out: &mut Vec<Packet>) {
        if !self.packets.iter().any(|b| pick(&b.packet)) {
            return;
        }
        let mut keep = VecDeque::with_capacity(self.packets.len());
        for b in self.packets.drain(..) {
            if pick(&b.packet) {
                out.push(b.packet);
            } else {
                keep.push_back(b);
            }
        }
        self.packets = keep;
    }

    /// When the oldest packet arrived (None when empty).
    pub fn oldest_since(&self) -> Option<SimTime> {
        self.packets.front().map(|b| b.since)
    }

    pub fn has_packets_for(&self, dst: NodeId) -> bool {
        self.packets.iter().any(|b| b.packet.dst == dst)
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter(self.packets.iter())
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::PacketKind;

    fn packet(uid: u64, dst: u32) -> Packet {
        Packet {
            uid,
            kind: PacketKind::Data,
            flow: 0,
            sequence: uid,
            src: NodeId(0),
            dst: NodeId(dst),
            payload_bytes: 512,
            header_bytes: 28,
            created: SimTime::ZERO,
            ttl: 64,
            transport: crate::wire::TransportHeader::Udp,
            routing: crate::wire::RoutingHeader::None,
        }
    }

    #[test]
    fn full_queue_drops_the_oldest_and_releases_per_destination() {
        let mut q = RequestQueue::new(3, SimDuration::from_secs_f64(30.0));
        let t = SimTime::from_secs_f64;
        assert_eq!(q.push(packet(1, 5), t(0.0)), None);
        assert_eq!(q.push(packet(2, 6), t(0.1)), None);
        assert_eq!(q.push(packet(3, 5), t(0.2)), None);
        assert_eq!(q.push(packet(4, 5), t(0.3)).map(|p| p.uid), Some(1));
        let mut out = Vec::new();
        q.take_for(NodeId(5), &mut out);
        assert_eq!(out.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(q.len(), 1);
        assert!(q.has_packets_for(NodeId(6)));
    }

    #[test]
    fn packets_expire_after_the_timeout() {
        let mut q = RequestQueue::new(10, SimDuration::from_secs_f64(30.0));
        let t = SimTime::from_secs_f64;
        q.push(packet(1, 5), t(0.0));
        q.push(packet(2, 5), t(10.0));
        let mut out = Vec::new();
        q.take_expired(t(29.9), &mut out);
        assert!(out.is_empty());
        q.take_expired(t(30.0), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(q.len(), 1);
    }
}
