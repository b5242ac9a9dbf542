//! Wiring of ns-2's ARP (`mac.arp = "ns2"`, `net/arp.rs`): each node's
//! table is handed the unicast packets going down to the radio and the ARP
//! packets coming up from it, and its outputs are carried out.
//!
//! Where ns-2 puts it: between the link layer and the interface queue
//! (the mobile node's LL calls `arpresolve` in `sendDown`, mac/ll.cc:202,
//! and `arpinput` when an ARP packet comes up, ll.cc:155, before the LL's
//! own delay). ARP's own sends (requests, replies, released packets) enter
//! the queue after the table's delay, 5 us for all of them: one FIFO for
//! the world and one event per packet (`Layer::Mac`, id [`ARP_EVENT`]), as
//! `ll.rs` does for the link layer's delay.

use super::{Event, Layer, World};
use crate::loss::DropCause;
use crate::mac::MacInput;
use crate::net::routing::Routing;
use crate::net::arp::{ArpOutput, ARP_DELAY};
use crate::queue::Queued;
use crate::wire::{NodeId, Packet};

/// The id of an ARP-delay event (beyond the MAC's timer ids, beside
/// `ll::LL_EVENT`).
pub const ARP_EVENT: u32 = 0xfe;

impl World {
    /// Resolve `packet`'s next hop on `node`'s radio (ns-2's
    /// `LL::sendDown` with an ARP table).
    /// A known address (most packets) sends the packet on at once, as
    /// `resolve`'s one `Resolved` output would, lent and not moved.
    pub(crate) fn arp_resolve(&mut self, node: NodeId, packet: &Packet, next_hop: NodeId) {
        if self.arp[node.index()].resolves_at_once(next_hop) {
            return self.radio_enqueue(node, packet, next_hop);
        }
        let mut out = Vec::new();
        let now = self.now();
        self.arp[node.index()].resolve(now, *packet, next_hop, &mut self.next_uid, &mut out);
        self.arp_outputs(node, out);
    }

    /// `node`'s MAC delivered an ARP packet (a request heard, a reply to it).
    pub(crate) fn arp_input(&mut self, node: NodeId, packet: &Packet) {
        let mut out = Vec::new();
        let now = self.now();
        self.arp[node.index()].input(now, packet, &mut self.next_uid, &mut out);
        self.arp_outputs(node, out);
    }

    fn arp_outputs(&mut self, node: NodeId, out: Vec<ArpOutput>) {
        for output in out {
            match output {
                ArpOutput::Resolved { packet, next_hop } => self.radio_enqueue(node, &packet, next_hop),
                ArpOutput::Enqueue { packet, next_hop } => {
                    let at = self.now() + ARP_DELAY;
                    self.arp_transit.push_back((node, Queued { packet, next_hop }));
                    self.queue.schedule(at, Event::new(node.0, Layer::Mac, ARP_EVENT));
                }
                ArpOutput::Replaced { packet } => self.drop_packet(node, &packet, DropCause::ArpUnresolved),
                ArpOutput::Failed { packet, next_hop } => self.arp_failed(node, &packet, next_hop),
            }
        }
    }

    /// ARP gave up on `next_hop` (mac/arp.cc:159-179): a packet with a
    /// transmit-failure callback (`Routing::has_failure_callback`) goes to
    /// routing's link-failure handler as a retry-limit failure does; the
    /// others are dropped.
    fn arp_failed(&mut self, node: NodeId, packet: &Packet, next_hop: NodeId) {
        if !self.routing[node.index()].has_failure_callback(packet) {
            return self.drop_packet(node, packet, DropCause::ArpUnresolved);
        }
        let mut lost = Some(DropCause::ArpUnresolved);
        if !self.routing[node.index()].salvages_failed() {
            self.drop_packet(node, packet, DropCause::ArpUnresolved);
            lost = None;
        }
        self.net_link_failure(node, packet, next_hop, lost, false);
    }

    /// The oldest ARP send enters its interface queue.
    pub(crate) fn arp_exit(&mut self) {
        let (node, item) = self.arp_transit.pop_front().expect("a packet in ARP's delay");
        self.mac_input(node, MacInput::Enqueue(item));
    }

    /// An ARP packet was lost below (queue overflow, or a reply at the
    /// MAC's retry limit: ns-2 discards it, no callback, mac/arp.cc:314-342
    /// reuses the request, which has none): counted against no flow.
    pub(crate) fn arp_packet_lost(&mut self) {
        self.arp_packets_lost += 1;
    }

    /// The flows' packets ARP holds or is sending on.
    pub(crate) fn arp_packets(&self) -> impl Iterator<Item = &Packet> {
        self.arp.iter().flat_map(|t| t.held()).chain(self.arp_transit.iter().map(|(_, item)| &item.packet))
    }
}
