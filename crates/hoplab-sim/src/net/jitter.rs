//! Control packets waiting out a random jitter before they reach the MAC
//! (AODV's rebroadcast jitter, RFC 3561 section 6.3; DSR's BroadcastJitter,
//! RFC 4728 section 9), parked by slot: the protocol arms a timer whose id
//! names the slot, and takes the packet back when it fires. Slots are
//! reused, the most recently freed first, so the ids stay small.

use crate::wire::{NodeId, Packet};

/// A control packet waiting out its jitter.
#[derive(Debug, Clone, Copy)]
pub struct PendingSend {
    pub packet: Packet,
    pub next_hop: NodeId,
}

/// The packets waiting, by slot.
#[derive(Debug, Clone, Default)]
pub struct Parked {
    slots: Vec<Option<PendingSend>>,
    free: Vec<u32>,
}

impl Parked {
    /// Park `send`; returns its slot.
    pub fn park(&mut self, send: PendingSend) -> u32 {
        if let Some(slot) = self.free.pop() {
            self.slots[slot as usize] = Some(send);
            slot
        } else {
            self.slots.push(Some(send));
            (self.slots.len() - 1) as u32
        }
    }

    /// Take back the packet of `slot` (None if it is empty or unknown).
    pub fn unpark(&mut self, slot: u32) -> Option<PendingSend> {
        let send = self.slots.get_mut(slot as usize)?.take();
        if send.is_some() {
            self.free.push(slot);
        }
        send
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_taken_once() {
        let packet = Packet {
            uid: 1,
            kind: crate::wire::PacketKind::Control,
            flow: u32::MAX,
            sequence: 0,
            src: NodeId(1),
            dst: NodeId::BROADCAST,
            payload_bytes: 0,
            header_bytes: crate::wire::IP_HEADER_BYTES,
            created: crate::time::SimTime::ZERO,
            ttl: 1,
            transport: crate::wire::TransportHeader::Udp,
            routing: crate::wire::RoutingHeader::None,
        };
        let send = PendingSend { packet, next_hop: NodeId::BROADCAST };
        let mut parked = Parked::default();
        assert_eq!((parked.park(send), parked.park(send)), (0, 1));
        assert!(parked.unpark(0).is_some());
        assert!(parked.unpark(0).is_none(), "taken once");
        assert!(parked.unpark(7).is_none(), "unknown slot");
        assert_eq!(parked.park(send), 0, "the freed slot first");
        assert_eq!(parked.park(send), 2);
    }
}
