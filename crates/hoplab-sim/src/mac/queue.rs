//! The interface queue (ns-2 `Queue/DropTail/PriQueue`): drop-tail with a
//! capacity in packets; routing/control packets jump ahead of data, and a
//! routing packet that finds the queue full pushes out the last data
//! packet (ns-2 `PriQueue::recvHighPriority`).

use crate::net::{NodeId, Packet};
use std::collections::VecDeque;

/// A packet waiting for the MAC, with the next hop chosen by routing.
#[derive(Debug, Clone, Copy)]
pub struct Queued {
    pub packet: Packet,
    pub next_hop: NodeId,
}

#[derive(Debug, Clone)]
pub struct InterfaceQueue {
    control: VecDeque<Queued>,
    data: VecDeque<Queued>,
    capacity: usize,
}

impl InterfaceQueue {
    pub fn new(capacity: usize) -> Self {
        InterfaceQueue { control: VecDeque::new(), data: VecDeque::with_capacity(capacity), capacity }
    }

    pub fn len(&self) -> usize {
        self.control.len() + self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Data (non-control) packets waiting.
    pub fn data_len(&self) -> usize {
        self.data.len()
    }

    pub fn is_full(&self) -> bool {
        self.len() >= self.capacity
    }

    /// Append; gives the packet back if the queue is full (drop-tail).
    pub fn push(&mut self, item: Queued) -> Result<(), Queued> {
        if self.is_full() {
            return Err(item);
        }
        if item.packet.is_control() {
            self.control.push_back(item);
        } else {
            self.data.push_back(item);
        }
        Ok(())
    }

    /// Append a routing packet even to a full queue: the last data packet
    /// makes room and is returned (ns-2 PriQueue). Err if the queue holds
    /// nothing but routing packets.
    pub fn push_control(&mut self, item: Queued) -> Result<Option<Queued>, Queued> {
        debug_assert!(item.packet.is_control());
        let evicted = if self.is_full() {
            match self.data.pop_back() {
                Some(last) => Some(last),
                None => return Err(item),
            }
        } else {
            None
        };
        self.control.push_back(item);
        Ok(evicted)
    }

    /// Take out every packet waiting for `next_hop` (a broken link), in
    /// queue order.
    pub fn take_toward(&mut self, next_hop: crate::net::NodeId) -> Vec<Queued> {
        let mut taken = Vec::new();
        for q in [&mut self.control, &mut self.data] {
            if q.iter().any(|i| i.next_hop == next_hop) {
                let (out, keep): (VecDeque<Queued>, VecDeque<Queued>) = q.drain(..).partition(|i| i.next_hop == next_hop);
                taken.extend(out);
                *q = keep;
            }
        }
        taken
    }

    /// The next packet to serve: control first, then data, FIFO within each.
    pub fn pop(&mut self) -> Option<Queued> {
        self.control.pop_front().or_else(|| self.data.pop_front())
    }

    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.control.iter().chain(self.data.iter())
    }
}
