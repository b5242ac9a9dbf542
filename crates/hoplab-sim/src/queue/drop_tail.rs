//! Drop-tail: a capacity in packets; an arriving packet that finds the
//! queue full is dropped (`queue_overflow`). With `priority_control` (the
//! 802.11 interface queue, ns-2 `Queue/DropTail/PriQueue`), routing packets
//! go ahead of data, and one that finds the queue full pushes out the last
//! data packet instead (ns-2 `PriQueue::recvHighPriority`); it is dropped
//! only if the queue holds nothing but routing packets.
//!
//! With `routing.dsr.interface_queue = "cmu_pri_queue"` the 802.11
//! interface queue is ns-2's `CMUPriQueue` instead (queue/dsr-priqueue.cc):
//! routing packets, then TCP ACKs, then data, each class with a capacity
//! of its own; an arriving packet that finds its class full is dropped,
//! whatever its class (no push-out).
//!
//! `[queue] discipline = "drop_tail"` has no parameters: the capacity is
//! the interface's (`mac.queue_packets`, a link's `queue_packets`).

use super::{Admission, Fifo, QueueDisc, Queued};
use crate::engine::Stream;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Drop-tail has no parameters of its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "DropTailParams")]
pub struct Config {}

#[derive(Debug, Clone)]
pub struct DropTail {
    fifo: Fifo,
    capacity: usize,
    priority_control: bool,
    /// ns-2's `CMUPriQueue`: a capacity per class.
    per_class: bool,
}

impl DropTail {
    pub fn new(capacity: usize, priority_control: bool) -> DropTail {
        DropTail { fifo: Fifo::new(), capacity, priority_control, per_class: false }
    }

    /// ns-2's `CMUPriQueue` (queue/dsr-priqueue.cc): four FIFOs of the
    /// capacity each, served routing packets first, then `PT_ACK`, then the
    /// rest (271-289, 256-268); `prq_enqueue` drops a packet that finds its
    /// FIFO full (235-243). hoplab has no real-time class (ns-2's audio and
    /// video), so three.
    pub fn use_cmu_classes(&mut self) {
        self.per_class = true;
        self.fifo.serve_acks_first();
    }

    pub fn is_full(&self) -> bool {
        self.fifo.len() >= self.capacity
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, _now: SimTime, item: Queued, _rng: &mut Stream) -> Admission {
        if self.per_class {
            let full = self.fifo.class_len(&item.packet) >= self.capacity;
            return self.fifo.admit(item, full, false);
        }
        let full = self.is_full();
        self.fifo.admit(item, full, self.priority_control)
    }

    fn dequeue(&mut self, _now: SimTime) -> Option<Queued> {
        self.fifo.pop()
    }

    fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    fn fifo_mut(&mut self) -> &mut Fifo {
        &mut self.fifo
    }

    fn name(&self) -> &'static str {
        "drop_tail"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{RngStreams, StreamPurpose};
    use crate::loss::DropCause;
    use crate::wire::{NodeId, PacketKind};

    /// A 540-byte packet (512 B payload, UDP + IP headers).
    fn item(uid: u64, kind: PacketKind) -> Queued {
        super::super::test_support::item_of(uid, kind, 540)
    }

    fn uids(q: &DropTail) -> Vec<u64> {
        q.fifo().iter().map(|i| i.packet.uid).collect()
    }

    #[test]
    fn full_queue_drops_the_newcomer() {
        let mut rng = RngStreams::new(1).stream(StreamPurpose::Backoff, 0);
        let mut q = DropTail::new(2, false);
        let t = SimTime::ZERO;
        assert!(matches!(q.enqueue(t, item(1, PacketKind::Data), &mut rng), Admission::Queued));
        assert!(matches!(q.enqueue(t, item(2, PacketKind::Data), &mut rng), Admission::Queued));
        let dropped = q.enqueue(t, item(3, PacketKind::Data), &mut rng);
        assert!(matches!(dropped, Admission::Dropped { item, cause: DropCause::QueueOverflow } if item.packet.uid == 3));
        assert_eq!(q.dequeue(t).map(|i| i.packet.uid), Some(1));
    }

    #[test]
    fn cmu_priqueue_serves_routing_then_tcp_acks_then_data_with_a_capacity_per_class() {
        use crate::time::SimTime as T;
        use crate::wire::tcp::{SegmentKind, TcpHeader};
        use crate::wire::TransportHeader;
        let ack = |uid: u64| {
            let mut i = item(uid, PacketKind::Data);
            i.packet.transport = TransportHeader::Tcp(TcpHeader::outgoing(SegmentKind::Ack, 0, T::ZERO, false));
            i
        };
        let mut rng = RngStreams::new(1).stream(StreamPurpose::Backoff, 0);
        let t = SimTime::ZERO;
        // PriQueue (AODV's): one FIFO for data and ACKs, one capacity.
        let mut q = DropTail::new(2, true);
        q.enqueue(t, item(1, PacketKind::Data), &mut rng);
        q.enqueue(t, ack(2), &mut rng);
        assert!(matches!(q.enqueue(t, ack(3), &mut rng), Admission::Dropped { .. }));
        assert_eq!(uids(&q), vec![1, 2]);
        // CMUPriQueue (DSR's in ns-2, queue/dsr-priqueue.cc): ACKs ahead of
        // data, routing packets ahead of both, each class holds 2.
        let mut q = DropTail::new(2, true);
        q.use_cmu_classes();
        for i in [item(1, PacketKind::Data), ack(2), item(3, PacketKind::Data), ack(4), item(5, PacketKind::Control)] {
            assert!(matches!(q.enqueue(t, i, &mut rng), Admission::Queued));
        }
        assert_eq!(uids(&q), vec![5, 2, 4, 1, 3]);
        assert!(matches!(q.enqueue(t, item(6, PacketKind::Data), &mut rng), Admission::Dropped { item, .. } if item.packet.uid == 6));
        assert!(matches!(q.enqueue(t, ack(7), &mut rng), Admission::Dropped { item, .. } if item.packet.uid == 7));
        q.enqueue(t, item(8, PacketKind::Control), &mut rng);
        let full = q.enqueue(t, item(9, PacketKind::Control), &mut rng);
        assert!(matches!(full, Admission::Dropped { item, .. } if item.packet.uid == 9), "no push-out: the newcomer goes");
        assert_eq!(q.fifo().bytes(), 6 * 540);
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue(t)).map(|i| i.packet.uid).collect();
        assert_eq!(order, vec![5, 8, 2, 4, 1, 3]);
        assert_eq!(q.fifo().bytes(), 0, "each packet served takes its bytes off, whatever its class");
    }

    #[test]
    fn priority_routing_packets_jump_ahead_and_push_out_the_last_data_packet() {
        let mut rng = RngStreams::new(1).stream(StreamPurpose::Backoff, 0);
        let mut q = DropTail::new(3, true);
        let t = SimTime::ZERO;
        for uid in 1..=3 {
            q.enqueue(t, item(uid, PacketKind::Data), &mut rng);
        }
        let a = q.enqueue(t, item(10, PacketKind::Control), &mut rng);
        assert!(matches!(a, Admission::QueuedEvicting { evicted, .. } if evicted.packet.uid == 3));
        assert_eq!(uids(&q), vec![10, 1, 2]);
        // Only routing packets left: a further one is dropped.
        let mut q = DropTail::new(1, true);
        q.enqueue(t, item(20, PacketKind::Control), &mut rng);
        assert!(matches!(q.enqueue(t, item(21, PacketKind::Control), &mut rng), Admission::Dropped { .. }));
    }

    #[test]
    fn take_toward_removes_one_next_hops_packets_in_order() {
        let mut rng = RngStreams::new(1).stream(StreamPurpose::Backoff, 0);
        let mut q = DropTail::new(10, true);
        let t = SimTime::ZERO;
        for uid in 1..=4 {
            let mut i = item(uid, PacketKind::Data);
            i.next_hop = NodeId(if uid % 2 == 0 { 5 } else { 1 });
            q.enqueue(t, i, &mut rng);
        }
        let taken: Vec<u64> = q.fifo_mut().take_toward(NodeId(5)).iter().map(|i| i.packet.uid).collect();
        assert_eq!(taken, vec![2, 4]);
        assert_eq!(uids(&q), vec![1, 3]);
    }
}
