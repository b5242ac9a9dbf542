//! Queue disciplines of interface queues (the 802.11 MAC's and each
//! direction of a wired link's).
//!
//! A discipline decides which arriving packets are admitted (or pushed
//! out) and which leaves next; every discipline here serves in FIFO order,
//! routing packets ahead of data when it gives them priority (ns-2's
//! PriQueue), so they share one store ([`Fifo`]) and differ in their
//! admission rule. Enqueue gets the time and a random stream, which active
//! queue management needs; dequeue gets the time (an empty queue is the
//! "link idle" event RED and BLUE react to).
//!
//! - [`drop_tail`]: a capacity in packets (ns-2 `Queue/DropTail`, and
//!   `Queue/DropTail/PriQueue` for 802.11 interfaces; or, for DSR, ns-2's
//!   `CMUPriQueue`: TCP ACKs served ahead of data, a capacity per class).
//! - [`red`]: Random Early Detection (Floyd & Jacobson 1993), ns-2's
//!   `Queue/RED` with its defaults (gentle, byte mode, automatic
//!   thresholds and weight).
//! - [`rem`]: Random Exponential Marking (Athuraliya, Li, Low, Yin 2001),
//!   ns-2's `Queue/REM`.
//! - [`pi`]: the PI controller (Hollot, Misra, Towsley, Gong 2001), ns-2's
//!   `Queue/PI`.
//! - [`blue`]: BLUE (Feng, Shin, Kandlur, Saha 2002).
//!
//! An active discipline's early drops have the cause `aqm_drop`; a packet
//! that finds the queue full is a `queue_overflow`, as with drop-tail. On
//! an interface that gives routing packets priority, a routing packet is
//! never dropped early: it goes ahead of data and, at capacity, pushes out
//! the last data packet (PriQueue), whatever the discipline. Parameters
//! come from the `[queue]` table (`config.rs`), per link from
//! `topology.links[].queue`.
//!
//! **Adding a discipline**: one file here implementing [`QueueDisc`] with
//! its parameters (a serde `Config` with `Default` citing every default), a
//! variant of [`QueueDiscipline`] (with its arm in each method of the impl
//! below) and of [`QueueConfig`] (its name, parsing, schema, building and
//! checks in `config.rs`).

pub mod blue;
pub mod config;
pub mod drop_tail;
pub mod pi;
pub mod red;
pub mod rem;

pub use blue::Blue;
pub use config::QueueConfig;
pub use drop_tail::DropTail;
pub use pi::Pi;
pub use red::Red;
pub use rem::Rem;

use crate::engine::Stream;
use crate::loss::DropCause;
use crate::time::{SimDuration, SimTime};
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
/// first, then data, FIFO within each; with `acks_first` (ns-2's
/// `CMUPriQueue`), TCP ACKs between the two.
#[derive(Debug, Clone, Default)]
pub struct Fifo {
    control: VecDeque<Queued>,
    /// TCP ACKs (`Packet::is_reverse`), only with `acks_first`.
    acks: VecDeque<Queued>,
    data: VecDeque<Queued>,
    acks_first: bool,
    /// Bytes of every packet held (IP size), for the disciplines that
    /// measure the queue in bytes.
    bytes: u64,
}

impl Fifo {
    /// Room for the data packets is made as they arrive (and kept): a
    /// queue of a million packets costs nothing until it fills, and a
    /// network of 100,000 nodes whose queues stay empty holds none.
    pub fn new() -> Fifo {
        Fifo { control: VecDeque::new(), acks: VecDeque::new(), data: VecDeque::new(), acks_first: false, bytes: 0 }
    }

    /// Serve TCP ACKs after routing packets and before data (ns-2's
    /// `CMUPriQueue`: `PT_ACK` in `IFQ_LOWDELAY`, queue/dsr-priqueue.cc:271-289).
    pub fn serve_acks_first(&mut self) {
        self.acks_first = true;
    }

    pub fn len(&self) -> usize {
        self.control.len() + self.acks.len() + self.data.len()
    }

    /// Packets held of `packet`'s class: routing packets, TCP ACKs (with
    /// `acks_first`) or data.
    pub fn class_len(&self, packet: &Packet) -> usize {
        if packet.is_routing_control() {
            self.control.len()
        } else if self.acks_first && packet.is_reverse() {
            self.acks.len()
        } else {
            self.data.len()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held (IP packet sizes).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn push_control(&mut self, item: Queued) {
        self.bytes += item.packet.size_bytes() as u64;
        self.control.push_back(item);
    }

    pub fn push_data(&mut self, item: Queued) {
        self.bytes += item.packet.size_bytes() as u64;
        if self.acks_first && item.packet.is_reverse() {
            self.acks.push_back(item);
        } else {
            self.data.push_back(item);
        }
    }

    /// The last data packet (the one a priority packet pushes out).
    pub fn pop_last_data(&mut self) -> Option<Queued> {
        let item = self.data.pop_back()?;
        self.bytes -= item.packet.size_bytes() as u64;
        Some(item)
    }

    /// The next packet to serve. The class is chosen first and popped
    /// once: chaining the pops (`or_else`) copies the packet out of each
    /// `Option` it passes through (208 bytes each).
    pub fn pop(&mut self) -> Option<Queued> {
        let class = if !self.control.is_empty() {
            &mut self.control
        } else if !self.acks.is_empty() {
            &mut self.acks
        } else {
            &mut self.data
        };
        let item = class.pop_front()?;
        self.bytes -= item.packet.size_bytes() as u64;
        Some(item)
    }

    /// In service order.
    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.control.iter().chain(self.acks.iter()).chain(self.data.iter())
    }

    /// Take out every packet waiting for `next_hop` (a broken link), in
    /// queue order.
    pub fn take_toward(&mut self, next_hop: NodeId) -> Vec<Queued> {
        let mut taken = Vec::new();
        for q in [&mut self.control, &mut self.acks, &mut self.data] {
            if q.iter().any(|i| i.next_hop == next_hop) {
                let (out, keep): (VecDeque<Queued>, VecDeque<Queued>) = q.drain(..).partition(|i| i.next_hop == next_hop);
                taken.extend(out);
                *q = keep;
            }
        }
        self.bytes -= taken.iter().map(|i| i.packet.size_bytes() as u64).sum::<u64>();
        taken
    }

    /// Admit `item` by the capacity rule alone, `full` saying whether the
    /// queue is at capacity: drop-tail, and ns-2's PriQueue when
    /// `priority_control` (a routing packet goes ahead of data and, at
    /// capacity, pushes out the last data packet, `PriQueue::recvHighPriority`;
    /// it is dropped only if the queue holds nothing but routing packets).
    pub fn admit(&mut self, item: Queued, full: bool, priority_control: bool) -> Admission {
        if item.packet.is_routing_control() && priority_control {
            let evicted = if full {
                match self.pop_last_data() {
                    Some(last) => Some(last),
                    None => return Admission::Dropped { item, cause: DropCause::QueueOverflow },
                }
            } else {
                None
            };
            self.push_control(item);
            return match evicted {
                Some(evicted) => Admission::QueuedEvicting { evicted, cause: DropCause::QueueOverflow },
                None => Admission::Queued,
            };
        }
        if full {
            return Admission::Dropped { item, cause: DropCause::QueueOverflow };
        }
        if item.packet.is_routing_control() {
            self.push_control(item);
        } else {
            self.push_data(item);
        }
        Admission::Queued
    }
}

/// What a discipline knows of its interface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interface {
    /// Capacity, packets (`mac.queue_packets`, a link's `queue_packets`).
    pub capacity_packets: usize,
    /// Routing packets go first (the 802.11 interface queue, ns-2 PriQueue).
    pub priority_control: bool,
    /// The rate the queue drains at, bits per second (a link's rate, the
    /// radio's data rate): RED's and REM's "packet time constant".
    pub rate_bps: f64,
    /// The link's propagation delay (none for a radio): RED's automatic
    /// weight.
    pub delay: SimDuration,
}

/// Packets an interface's queue dropped, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueDrops {
    /// Active queue management's early drops (`aqm_drop`).
    pub early: u64,
    /// Arrivals at a full queue, and data pushed out by a routing packet
    /// (`queue_overflow`).
    pub overflow: u64,
}

impl QueueDrops {
    /// Count a drop of the queue's with this cause.
    pub fn count(&mut self, cause: DropCause) {
        match cause {
            DropCause::AqmDrop => self.early += 1,
            _ => self.overflow += 1,
        }
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
    /// The discipline's name in scenarios and reports (`"red"`).
    fn name(&self) -> &'static str;
    /// The parameters in effect, automatic ones resolved (reported with
    /// the queue).
    fn params(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
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
    Red(Red),
    Rem(Rem),
    Pi(Pi),
    Blue(Blue),
}

/// `$q` bound to the discipline inside, for each variant.
macro_rules! each {
    ($self:expr, $q:ident => $body:expr) => {
        match $self {
            QueueDiscipline::DropTail($q) => $body,
            QueueDiscipline::Red($q) => $body,
            QueueDiscipline::Rem($q) => $body,
            QueueDiscipline::Pi($q) => $body,
            QueueDiscipline::Blue($q) => $body,
        }
    };
}

impl QueueDisc for QueueDiscipline {
    fn enqueue(&mut self, now: SimTime, item: Queued, rng: &mut Stream) -> Admission {
        each!(self, q => q.enqueue(now, item, rng))
    }
    fn dequeue(&mut self, now: SimTime) -> Option<Queued> {
        each!(self, q => q.dequeue(now))
    }
    fn fifo(&self) -> &Fifo {
        each!(self, q => q.fifo())
    }
    fn fifo_mut(&mut self) -> &mut Fifo {
        each!(self, q => q.fifo_mut())
    }
    fn name(&self) -> &'static str {
        each!(self, q => q.name())
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        each!(self, q => q.params())
    }
}

impl QueueDiscipline {
    /// Make a drop-tail interface queue ns-2's `CMUPriQueue` (DSR's,
    /// `routing.dsr.interface_queue`); false (and nothing changed) for
    /// another discipline.
    pub fn use_cmu_classes(&mut self) -> bool {
        match self {
            QueueDiscipline::DropTail(q) => {
                q.use_cmu_classes();
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Packets and streams for the disciplines' unit tests.
    use super::Queued;
    use crate::engine::{RngStreams, Stream, StreamPurpose};
    use crate::time::SimTime;
    use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader};

    /// A packet of `bytes` bytes (IP size).
    pub fn item_of(uid: u64, kind: PacketKind, bytes: u32) -> Queued {
        let packet = Packet {
            uid,
            kind,
            flow: 0,
            sequence: uid,
            src: NodeId(0),
            dst: NodeId(2),
            payload_bytes: bytes - 40,
            header_bytes: 40,
            created: SimTime::ZERO,
            ttl: 64,
            transport: TransportHeader::Udp,
            routing: RoutingHeader::None,
        };
        Queued { packet, next_hop: NodeId(1) }
    }

    pub fn data(uid: u64, bytes: u32) -> Queued {
        item_of(uid, PacketKind::Data, bytes)
    }

    pub fn stream(seed: u64) -> Stream {
        RngStreams::new(seed).stream(StreamPurpose::Queue, 0)
    }
}
