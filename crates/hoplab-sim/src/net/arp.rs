//! ns-2.35's ARP (`mac.arp = "ns2"`): one node's address resolution, as
//! ns-2's `ARPTable` (mac/arp.cc, mac/arp.h) does it between the link
//! layer and the interface queue. A sans-IO state machine: a packet to
//! resolve or an ARP packet received goes in, what to send, hold or drop
//! comes out; the world (`world/arp.rs`) carries the outputs.
//!
//! ns-2's rules, each modelled:
//! - Every unicast packet the link layer sends down is resolved against
//!   its next hop (mac/ll.cc:190-205, `LL::sendDown`); broadcasts are not
//!   (196-199).
//! - One table per node, one entry per neighbour address, never removed
//!   and never expiring: ns-2 has no ARP timer, and `up_` once set is never
//!   cleared (mac/arp.cc, mac/arp.h:97-112).
//! - An unresolved entry holds one packet; a newer packet for it replaces
//!   the held one, which is dropped with `DROP_IFQ_ARP_FULL`
//!   (mac/arp.cc:184-187), and sends a new request (195-196). There is no
//!   retransmission timer: requests are re-sent only as packets come.
//! - A packet finding its entry with `count_ >= ARP_MAX_REQUEST_COUNT` (3,
//!   mac/arp.h:112) ends the attempt: the count is reset, and the held
//!   packet and the new one each go to their transmit-failure callback
//!   (the routing agent's link-failure handler) or, without one, are
//!   dropped with `DROP_IFQ_ARP_FULL` (mac/arp.cc:145-181). No request is
//!   sent then; the next packet starts over.
//! - The request is a broadcast of `ARP_HDR_LEN` = 28 bytes (mac/arp.cc:
//!   225-249); the reply goes unicast to the requester (311-343).
//! - Any ARP packet the node receives (a request heard, broadcast, or a
//!   reply addressed to it) teaches it the sender's address and releases a
//!   packet held for the sender (268-309); only a request for this node's
//!   address is answered (311-312).
//! - Requests, replies and released packets enter the interface queue after
//!   the table's `delay_`, 5 us (mac/arp.cc:249, 302, 342;
//!   `ARPTable set delay_ 5us`, tcl/lib/ns-mobilenode.tcl:49), in turn
//!   with data: PriQueue favours only routing packets
//!   (queue/priqueue.cc:88-99).
//!
//! Simplified: the end-of-run `Terminate` (mac/arp.cc:87-97) is not a
//! drop here; a packet still held at the end counts as in flight.

use crate::time::{SimDuration, SimTime};
use crate::wire::arp::{ArpOperation, ARP_PACKET_BYTES};
use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader, DEFAULT_TTL};
use std::collections::BTreeMap;

/// Requests sent for one entry before the next packet ends the attempt
/// (`ARP_MAX_REQUEST_COUNT`, mac/arp.h:112).
pub const ARP_MAX_REQUEST_COUNT: u8 = 3;

/// The ARP table's delay into the interface queue (`ARPTable set delay_
/// 5us`, tcl/lib/ns-mobilenode.tcl:49).
pub const ARP_DELAY: SimDuration = SimDuration(5_000);

/// What the table asks of the node's interface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArpOutput {
    /// The next hop is resolved: the packet goes on down at once (through
    /// the link layer's own delay, mac/ll.cc:225-228).
    Resolved { packet: Packet, next_hop: NodeId },
    /// Into the interface queue after [`ARP_DELAY`]: a request, a reply, or
    /// a held packet whose next hop was just resolved.
    Enqueue { packet: Packet, next_hop: NodeId },
    /// A held packet replaced by a newer one (`DROP_IFQ_ARP_FULL`).
    Replaced { packet: Packet },
    /// The attempt ended after [`ARP_MAX_REQUEST_COUNT`] requests: the
    /// packet's transmit failure (the routing agent's callback, else a
    /// `DROP_IFQ_ARP_FULL` drop).
    Failed { packet: Packet, next_hop: NodeId },
}

/// One neighbour's entry (ns-2's `ARPEntry`, mac/arp.h:94-113).
#[derive(Debug, Clone, Default)]
struct ArpEntry {
    /// Resolved (`up_`): never cleared.
    up: bool,
    /// The one packet waiting for the address (`hold_`).
    hold: Option<Packet>,
    /// Requests sent since the last give-up (`count_`).
    count: u8,
}

/// What one node's table did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArpCounters {
    pub requests_sent: u64,
    pub replies_sent: u64,
    /// ARP packets received (requests heard, replies to this node).
    pub received: u64,
    /// Replies received (each answers a request of this node's).
    pub replies_received: u64,
    pub held_replaced: u64,
    /// Attempts ended after [`ARP_MAX_REQUEST_COUNT`] requests.
    pub gave_up: u64,
}

/// One node's ARP table (ns-2's `ARPTable`).
#[derive(Debug, Clone)]
pub struct ArpTable {
    node: NodeId,
    entries: BTreeMap<NodeId, ArpEntry>,
    counters: ArpCounters,
}

impl ArpTable {
    pub fn new(node: NodeId) -> ArpTable {
        ArpTable { node, entries: BTreeMap::new(), counters: ArpCounters::default() }
    }

    /// Whether [`ArpTable::resolve`] would hand a packet to `next_hop`
    /// straight down and change nothing (broadcast, or the address known:
    /// mac/arp.cc:133-136, mac/ll.cc:196-199): the caller then sends it on
    /// itself, without the output list (an allocation and two copies of
    /// the packet, docs/performance.md).
    #[inline]
    pub fn resolves_at_once(&self, next_hop: NodeId) -> bool {
        next_hop == NodeId::BROADCAST || self.entries.get(&next_hop).is_some_and(|entry| entry.up)
    }

    /// ns-2's `ARPTable::arpresolve` (mac/arp.cc:121-198) for `packet` to
    /// `next_hop`; `next_uid` numbers a request it makes.
    pub fn resolve(&mut self, now: SimTime, packet: Packet, next_hop: NodeId, next_uid: &mut u64, out: &mut Vec<ArpOutput>) {
        if next_hop == NodeId::BROADCAST {
            return out.push(ArpOutput::Resolved { packet, next_hop }); // mac/ll.cc:196-199
        }
        let entry = self.entries.entry(next_hop).or_default();
        if entry.up {
            return out.push(ArpOutput::Resolved { packet, next_hop }); // 133-136
        }
        if entry.count >= ARP_MAX_REQUEST_COUNT {
            // 145-181: the held packet's callback first, then the new one's.
            entry.count = 0;
            if let Some(held) = entry.hold.take() {
                out.push(ArpOutput::Failed { packet: held, next_hop });
            }
            self.counters.gave_up += 1;
            return out.push(ArpOutput::Failed { packet, next_hop });
        }
        entry.count += 1; // 184-187
        if let Some(held) = entry.hold.replace(packet) {
            self.counters.held_replaced += 1;
            out.push(ArpOutput::Replaced { packet: held });
        }
        self.counters.requests_sent += 1;
        let request = self.arp_packet(now, ArpOperation::Request, next_hop, next_uid);
        out.push(ArpOutput::Enqueue { packet: request, next_hop: NodeId::BROADCAST });
    }

    /// ns-2's `ARPTable::arpinput` (mac/arp.cc:252-346): `arp` was received
    /// (a request heard or a reply to this node).
    pub fn input(&mut self, now: SimTime, arp: &Packet, next_uid: &mut u64, out: &mut Vec<ArpOutput>) {
        let Some(operation) = arp.arp() else { return };
        self.counters.received += 1;
        if operation == ArpOperation::Reply {
            self.counters.replies_received += 1;
        }
        let sender = arp.src;
        let entry = self.entries.entry(sender).or_default();
        entry.up = true; // 268-278
        if let Some(held) = entry.hold.take() {
            out.push(ArpOutput::Enqueue { packet: held, next_hop: sender }); // 283-303
        }
        if operation == ArpOperation::Request && arp.dst == self.node {
            self.counters.replies_sent += 1; // 311-343
            let reply = self.arp_packet(now, ArpOperation::Reply, sender, next_uid);
            out.push(ArpOutput::Enqueue { packet: reply, next_hop: sender });
        }
    }

    /// A request for `target`'s address, or a reply to `target`.
    fn arp_packet(&self, now: SimTime, operation: ArpOperation, target: NodeId, next_uid: &mut u64) -> Packet {
        let uid = *next_uid;
        *next_uid += 1;
        Packet {
            uid,
            kind: PacketKind::Arp(operation),
            flow: 0,
            sequence: 0,
            src: self.node,
            dst: target,
            payload_bytes: 0,
            header_bytes: ARP_PACKET_BYTES,
            created: now,
            ttl: DEFAULT_TTL,
            transport: TransportHeader::Udp,
            routing: RoutingHeader::None,
        }
    }

    /// Whether `neighbour`'s address is resolved.
    pub fn is_resolved(&self, neighbour: NodeId) -> bool {
        self.entries.get(&neighbour).is_some_and(|e| e.up)
    }

    /// The packets held for an address (in neighbour order).
    pub fn held(&self) -> impl Iterator<Item = &Packet> {
        self.entries.values().filter_map(|e| e.hold.as_ref())
    }

    pub fn counters(&self) -> &ArpCounters {
        &self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::node_harness::data;

    fn data_packet(_src: NodeId, _dst: NodeId) -> Packet {
        data(0, 1, 9)
    }

    const ME: NodeId = NodeId(1);
    const PEER: NodeId = NodeId(2);

    struct Node {
        table: ArpTable,
        uid: u64,
        now: SimTime,
    }

    impl Node {
        fn new() -> Node {
            Node { table: ArpTable::new(ME), uid: 1000, now: SimTime::ZERO }
        }
        fn send(&mut self, uid: u64, next_hop: NodeId) -> Vec<ArpOutput> {
            let mut out = Vec::new();
            let packet = Packet { uid, ..data_packet(ME, NodeId(9)) };
            self.table.resolve(self.now, packet, next_hop, &mut self.uid, &mut out);
            out
        }
        fn receive(&mut self, operation: ArpOperation, from: NodeId, target: NodeId) -> Vec<ArpOutput> {
            let mut out = Vec::new();
            let mut uid = 0;
            let arp = ArpTable::new(from).arp_packet(self.now, operation, target, &mut uid);
            self.table.input(self.now, &arp, &mut self.uid, &mut out);
            out
        }
    }

    fn is_request_for(o: &ArpOutput, target: NodeId) -> bool {
        matches!(o, ArpOutput::Enqueue { packet, next_hop } if *next_hop == NodeId::BROADCAST
            && packet.arp() == Some(ArpOperation::Request) && packet.dst == target && packet.src == ME
            && packet.size_bytes() == 28)
    }

    #[test]
    fn the_first_packet_is_held_and_a_broadcast_request_sent() {
        let mut n = Node::new();
        let out = n.send(1, PEER);
        assert_eq!(out.len(), 1);
        assert!(is_request_for(&out[0], PEER), "{out:?}");
        assert_eq!(n.table.held().map(|p| p.uid).collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn a_newer_packet_replaces_the_held_one_and_requests_again() {
        let mut n = Node::new();
        n.send(1, PEER);
        let out = n.send(2, PEER);
        assert!(matches!(out[0], ArpOutput::Replaced { packet } if packet.uid == 1), "{out:?}");
        assert!(is_request_for(&out[1], PEER));
        assert_eq!(n.table.held().map(|p| p.uid).collect::<Vec<_>>(), [2]);
        assert_eq!(n.table.counters().held_replaced, 1);
    }

    #[test]
    fn after_three_requests_the_next_packet_fails_with_the_held_one_and_sends_none() {
        let mut n = Node::new();
        for uid in 1..=3 {
            assert!(n.send(uid, PEER).iter().any(|o| is_request_for(o, PEER)));
        }
        let out = n.send(4, PEER);
        assert_eq!(
            out,
            [
                ArpOutput::Failed { packet: Packet { uid: 3, ..data_packet(ME, NodeId(9)) }, next_hop: PEER },
                ArpOutput::Failed { packet: Packet { uid: 4, ..data_packet(ME, NodeId(9)) }, next_hop: PEER },
            ]
        );
        assert_eq!(n.table.held().count(), 0);
        assert_eq!(n.table.counters().requests_sent, 3);
        // The count was reset: the next packet starts over.
        let out = n.send(5, PEER);
        assert!(is_request_for(&out[0], PEER));
        assert_eq!(n.table.counters().requests_sent, 4);
    }

    #[test]
    fn a_reply_releases_the_held_packet_and_later_packets_pass() {
        let mut n = Node::new();
        n.send(1, PEER);
        let out = n.receive(ArpOperation::Reply, PEER, ME);
        assert_eq!(out.len(), 1);
        assert!(matches!(out[0], ArpOutput::Enqueue { packet, next_hop: PEER } if packet.uid == 1));
        assert!(matches!(n.send(2, PEER)[..], [ArpOutput::Resolved { next_hop: PEER, .. }]));
    }

    #[test]
    fn a_request_heard_for_another_node_teaches_its_sender_without_a_reply() {
        let mut n = Node::new();
        let out = n.receive(ArpOperation::Request, PEER, NodeId(7));
        assert!(out.is_empty(), "{out:?}");
        assert!(n.table.is_resolved(PEER));
        assert!(matches!(n.send(1, PEER)[..], [ArpOutput::Resolved { .. }]));
    }

    #[test]
    fn a_request_for_this_node_is_answered_unicast_and_teaches_the_requester() {
        let mut n = Node::new();
        n.send(1, PEER);
        let out = n.receive(ArpOperation::Request, PEER, ME);
        assert!(matches!(out[0], ArpOutput::Enqueue { packet, next_hop: PEER } if packet.uid == 1), "{out:?}");
        assert!(matches!(out[1], ArpOutput::Enqueue { packet, next_hop: PEER }
            if packet.arp() == Some(ArpOperation::Reply) && packet.src == ME && packet.dst == PEER && packet.size_bytes() == 28));
        assert_eq!(n.table.counters().replies_sent, 1);
    }

    #[test]
    fn entries_never_expire() {
        let mut n = Node::new();
        n.receive(ArpOperation::Reply, PEER, ME);
        n.now = SimTime(1_000_000 * 1_000_000_000);
        assert!(matches!(n.send(1, PEER)[..], [ArpOutput::Resolved { .. }]));
    }

    #[test]
    fn broadcasts_are_not_resolved() {
        let mut n = Node::new();
        assert!(matches!(n.send(1, NodeId::BROADCAST)[..], [ArpOutput::Resolved { next_hop: NodeId::BROADCAST, .. }]));
        assert_eq!(n.table.counters().requests_sent, 0);
    }

    #[test]
    fn entries_are_per_neighbour() {
        let mut n = Node::new();
        n.send(1, PEER);
        n.send(2, NodeId(3));
        assert_eq!(n.table.held().count(), 2, "each unresolved neighbour holds its own packet");
        n.receive(ArpOperation::Reply, NodeId(3), ME);
        assert_eq!(n.table.held().map(|p| p.uid).collect::<Vec<_>>(), [1]);
    }
}
