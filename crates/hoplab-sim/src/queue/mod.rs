//! Queue disciplines of interface queues (the 802.11 MAC's and each
//! direction of a wired link's).
//!
//! A discipline decides which arriving packets are admitted (or pushed
//! out) and which leaves next; every discipline here serves in FIFO order,
//! routing packets ahead of data when it gives them priority (ns-2's
//! PriQueue), so they share one store ([`Fifo`]) and differ in their
//! admission rule. Enqueue gets the time and a random stream, which active
//! queue management (RED, REM, PI, BLUE) needs.
//!
//! - [`drop_tail`]: a capacity in packets (ns-2 `Queue/DropTail`, and
//!   `Queue/DropTail/PriQueue` for 802.11 interfaces).
//!
//! **Adding a discipline**: one file here implementing [`QueueDisc`], a
//! variant of [`QueueDiscipline`] (with its arm in each method of the impl
//! below), and its scenario keys.

pub mod drop_tail;

pub use drop_tail::DropTail;

use crate::engine::Stream;
use crate::loss::DropCause;
use crate::time::SimTime;
use crate::wire::{NodeId, Packet};
use std::collections::VecDeque;

/// A packet waiting for its interface, with the next hop routing chose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Queued {
    pub packet: Packet,
    pub next_hop: NodeId,
}

/// What became of a packet offered to a queue.
#[derive(Debug, Clone, Copy)]
pub enum Admission {
    Queued,
    /// Queued, and another packet had to make room for it.
    QueuedEvicting {
        evicted: Queued,
        cause: DropCause,
    },
    Dropped {
        item: Queued,
        cause: DropCause,
    },
}

/// The store every discipline serves from: routing (control) packets
/// first, then data, FIFO within each.
#[derive(Debug, Clone, Default)]
pub struct Fifo {
    control: VecDeque<Queued>,
    data: VecDeque<Queued>,
}

impl Fifo {
    /// Room for the data packets is made as they arrive (and kept): a
    /// queue of a million packets costs nothing until it fills, and a
    /// network of 100,000 nodes whose queues stay empty holds none.
    pub fn with_capacity(_capacity: usize) -> Fifo {
        Fifo { control: VecDeque::new(), data: VecDeque::new() }
    }

    pub fn len(&self) -> usize {
        self.control.len() + self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn push_control(&mut self, item: Queued) {
        self.control.push_back(item);
    }

    pub fn push_data(&mut self, item: Queued) {
        self.data.push_back(item);
    }

    /// The last data packet (the one a priority packet pushes out).
    pub fn pop_last_data(&mut self) -> Option<Queued> {
        self.data.pop_back()
    }

    pub fn pop(&mut self) -> Option<Queued> {
        self.control.pop_front().or_else(|| self.data.pop_front())
    }

    /// In service order.
    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.control.iter().chain(self.data.iter())
    }

    /// Take out every packet waiting for `next_hop` (a broken link), in
    /// queue order.
    pub fn take_toward(&mut self, next_hop: NodeId) -> Vec<Queued> {
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
}

/// A queue discipline.
pub trait QueueDisc {
    /// Offer a packet at `now`.
    fn enqueue(&mut self, now: SimTime, item: Queued, rng: &mut Stream) -> Admission;
    /// The next packet to serve.
    fn dequeue(&mut self, now: SimTime) -> Option<Queued>;
    /// The packets waiting, in service order.
    fn fifo(&self) -> &Fifo;
    fn fifo_mut(&mut self) -> &mut Fifo;
    fn len(&self) -> usize {
        self.fifo().len()
    }
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The disciplines, dispatched without allocation or dynamic dispatch.
#[derive(Debug, Clone)]
pub enum QueueDiscipline {
    DropTail(DropTail),
}

impl QueueDisc for QueueDiscipline {
    fn enqueue(&mut self, now: SimTime, item: Queued, rng: &mut Stream) -> Admission {
        match self {
            QueueDiscipline::DropTail(q) => q.enqueue(now, item, rng),
        }
    }
    fn dequeue(&mut self, now: SimTime) -> Option<Queued> {
        match self {
            QueueDiscipline::DropTail(q) => q.dequeue(now),
        }
    }
    fn fifo(&self) -> &Fifo {
        match self {
            QueueDiscipline::DropTail(q) => q.fifo(),
        }
    }
    fn fifo_mut(&mut self) -> &mut Fifo {
        match self {
            QueueDiscipline::DropTail(q) => q.fifo_mut(),
        }
    }
}
