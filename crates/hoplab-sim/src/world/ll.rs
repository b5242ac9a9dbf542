//! The link layer between routing and the 802.11 MAC, as ns-2's `LL`: it
//! delays each packet by `mac.ll_delay_us` on its way down to the
//! interface queue and on its way up from the MAC (mac/ll.cc:228, 241).
//! With the default delay of 0 packets cross at once and nothing here runs.
//!
//! The delay is the same for every packet, so packets leave in the order
//! they entered: one FIFO for the whole world, and one event per packet
//! (`Layer::Mac`, id [`LL_EVENT`]) that takes the oldest out.

use super::{Event, Layer, World};
use crate::mac::MacInput;
use crate::queue::Queued;
use crate::wire::{NodeId, Packet};

/// The id of a link-layer event (beyond the MAC's timer ids).
pub const LL_EVENT: u32 = 0xff;

/// A packet crossing the link layer of `node`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Transit {
    /// From routing to the interface queue.
    Down { node: NodeId, item: Queued },
    /// From the MAC (received from neighbour `from`) to routing.
    Up { node: NodeId, packet: Packet, from: NodeId },
}

impl Transit {
    pub fn packet(&self) -> &Packet {
        match self {
            Transit::Down { item, .. } => &item.packet,
            Transit::Up { packet, .. } => packet,
        }
    }
}

impl World {
    /// A packet enters `node`'s link layer; it leaves `ll_delay` later.
    /// Inlined: a received packet is copied from its frame straight into
    /// the queue of the link layer (`mac_indication`).
    #[inline]
    pub(crate) fn ll_enter(&mut self, node: NodeId, transit: Transit) {
        let at = self.now() + self.timing.ll_delay;
        self.ll_transit.push_back(transit);
        self.queue.schedule(at, Event::new(node.0, Layer::Mac, LL_EVENT));
    }

    /// Packets of `node` on their way down through its link layer that
    /// `counts` accepts (ns-2 counts them nowhere: neither in the interface
    /// queue nor in the routing buffer).
    pub(crate) fn ll_going_down(&self, node: NodeId, counts: impl Fn(&Packet) -> bool) -> usize {
        let going_down = |t: &&Transit| matches!(t, Transit::Down { node: n, item } if *n == node && counts(&item.packet));
        self.ll_transit.iter().filter(going_down).count()
    }

    /// The oldest packet in the link layer leaves it.
    pub(crate) fn ll_exit(&mut self) {
        match self.ll_transit.pop_front().expect("a packet in the link layer") {
            Transit::Down { node, item } => self.mac_input(node, MacInput::Enqueue(item)),
            Transit::Up { node, packet, from } => self.net_receive(node, &packet, from),
        }
    }
}
