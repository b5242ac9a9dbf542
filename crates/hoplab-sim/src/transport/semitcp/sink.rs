//! The semi-TCP sink's ACK queue, as the public ns-2 code runs it
//! (`[semitcp] sink_holds_acks`; GitHub musicinthedark/semitcp, ns-2.29,
//! `tcp/tcp-sink.cc:367-395` in `TcpSink::ack`, `:398-411`
//! `TcpSink::send_down`).
//!
//! A new ACK goes down only when the sink node's interface queue and its
//! routing layer's buffer together hold fewer packets than the congestion
//! threshold (`Mac802_11::spaces_available`, `mac/mac-802_11.cc:2165-2184`;
//! with the threshold 1: both empty); then the **oldest** held ACK goes
//! (FIFO) and the new one is held in its place. Otherwise the new ACK is
//! held; at capacity (`MAXACKQ_LEN` 500) the oldest held one is dropped
//! ("ACK_Q_FULL"). One held ACK goes down each time the sink node's MAC
//! finds its interface queue empty (the pull: `queue/queue.cc:71-81` ->
//! `AODV::send_down`, `aodv/aodv.cc:1472-1503` -> `TcpSink::send_down`).
//!
//! Sans-IO and generic over what is held (the world holds built packets,
//! so that a held ACK counts as in flight).

use std::collections::VecDeque;

/// What [`AckQueue::offer`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered<T> {
    /// To send now: the oldest held ACK, or the new one.
    pub send: Option<T>,
    /// Pushed out of a full queue (the oldest).
    pub dropped: Option<T>,
}

/// The sink's transport-layer ACK queue (FIFO, drop-oldest).
#[derive(Debug, Clone)]
pub struct AckQueue<T> {
    held: VecDeque<T>,
    capacity: usize,
}

impl<T> AckQueue<T> {
    /// `capacity`: ACKs held at most (at least 1).
    pub fn new(capacity: usize) -> Self {
        AckQueue { held: VecDeque::new(), capacity: capacity.max(1) }
    }

    /// A new ACK; `space`: the node's interface queue and routing buffer
    /// have room below the congestion threshold.
    pub fn offer(&mut self, ack: T, space: bool) -> Offered<T> {
        if space {
            return match self.held.pop_front() {
                Some(oldest) => {
                    self.held.push_back(ack);
                    Offered { send: Some(oldest), dropped: None }
                }
                None => Offered { send: Some(ack), dropped: None },
            };
        }
        let dropped = if self.held.len() >= self.capacity { self.held.pop_front() } else { None };
        self.held.push_back(ack);
        Offered { send: None, dropped }
    }

    /// The node's MAC found its queue empty: the oldest held ACK, if any.
    pub fn release(&mut self) -> Option<T> {
        self.held.pop_front()
    }

    pub fn len(&self) -> usize {
        self.held.len()
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.held.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_room_the_oldest_goes_and_the_new_one_waits() {
        let mut q = AckQueue::new(500);
        // Room and nothing held: the new ACK goes at once.
        assert_eq!(q.offer(1, true), Offered { send: Some(1), dropped: None });
        // No room: held, in order.
        assert_eq!(q.offer(2, false), Offered { send: None, dropped: None });
        assert_eq!(q.offer(3, false), Offered { send: None, dropped: None });
        // Room again: the oldest held ACK (2) goes, the new one (4) is held.
        assert_eq!(q.offer(4, true), Offered { send: Some(2), dropped: None });
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), [3, 4]);
        // Each pull releases exactly one, oldest first.
        assert_eq!(q.release(), Some(3));
        assert_eq!(q.release(), Some(4));
        assert_eq!(q.release(), None);
    }

    #[test]
    fn a_full_queue_drops_its_oldest() {
        let mut q = AckQueue::new(2);
        q.offer(1, false);
        q.offer(2, false);
        assert_eq!(q.offer(3, false), Offered { send: None, dropped: Some(1) }, "MAXACKQ_LEN: drop the front");
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), [2, 3]);
        assert_eq!(q.len(), 2);
    }
}
