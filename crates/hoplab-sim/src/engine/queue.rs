//! Event queue keyed by (time, insertion sequence), with lazily cancelled timers.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    /// (time, seq) as one number: comparing it is branch-free, which the
    /// heap's sift loops (unpredictable comparisons) run much faster with.
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time.0 as u128) << 64 | self.seq as u128
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<E> Eq for Entry<E> {}
// BinaryHeap is a max-heap: invert so the earliest (time, seq) is on top.
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    #[inline(always)]
    fn lt(&self, other: &Self) -> bool {
        other.key() < self.key()
    }
    #[inline(always)]
    fn le(&self, other: &Self) -> bool {
        other.key() <= self.key()
    }
    #[inline(always)]
    fn gt(&self, other: &Self) -> bool {
        other.key() > self.key()
    }
    #[inline(always)]
    fn ge(&self, other: &Self) -> bool {
        other.key() >= self.key()
    }
}
impl<E> Ord for Entry<E> {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// A min-priority queue of events. Same-time events pop in scheduling order.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 1, now: SimTime::ZERO, popped: 0 }
    }

    /// The time of the last popped event.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events popped so far (including cancelled timers' stale entries).
    pub fn popped(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Entries the queue has room for without growing.
    pub fn capacity(&self) -> usize {
        self.heap.capacity()
    }

    /// The size of one entry (an event with its time and sequence number).
    pub fn entry_bytes(&self) -> usize {
        std::mem::size_of::<Entry<E>>()
    }

    /// Schedule `event` at `time` (never before now); returns its sequence
    /// number, which identifies it for [`Timer`].
    pub fn schedule(&mut self, time: SimTime, event: E) -> u64 {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time: time.max(self.now), seq, event });
        seq
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Pop the earliest event and advance the clock to it.
    pub fn pop(&mut self) -> Option<(SimTime, u64, E)> {
        let entry = self.heap.pop()?;
        self.now = entry.time;
        self.popped += 1;
        Some((entry.time, entry.seq, entry.event))
    }

    /// Pop the earliest event if it is not later than `until`.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, u64, E)> {
        match self.heap.peek() {
            Some(e) if e.time <= until => self.pop(),
            _ => None,
        }
    }
}

/// A cancellable timer slot. Arming schedules an event and remembers its
/// sequence number; cancelling forgets it, and the stale event is ignored
/// when it pops ([`Timer::fire`] returns false). Cancellation is O(1) and
/// needs no search of the heap (lazy deletion).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timer {
    armed_seq: u64,
    at: SimTime,
}

impl Timer {
    pub fn arm<E>(&mut self, queue: &mut EventQueue<E>, at: SimTime, event: E) {
        self.armed_seq = queue.schedule(at, event);
        self.at = at;
    }

    pub fn cancel(&mut self) {
        self.armed_seq = 0;
    }

    pub fn is_armed(&self) -> bool {
        self.armed_seq != 0
    }

    /// When the armed timer expires (meaningless if not armed).
    pub fn deadline(&self) -> SimTime {
        self.at
    }

    /// Whether the event of sequence `seq` is this timer's live one (not
    /// cancelled or re-armed since); [`Timer::fire`] without disarming.
    pub fn is_live(&self, seq: u64) -> bool {
        self.armed_seq == seq && seq != 0
    }

    /// Called when an event of this timer pops: true (and disarms) if it is
    /// the live one, false if it was cancelled or re-armed since.
    pub fn fire(&mut self, seq: u64) -> bool {
        if self.is_live(seq) {
            self.armed_seq = 0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_with_fifo_ties() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), "c");
        q.schedule(SimTime(10), "a1");
        q.schedule(SimTime(20), "b");
        q.schedule(SimTime(10), "a2");
        q.schedule(SimTime(10), "a3");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, _, e)| e)).collect();
        assert_eq!(order, ["a1", "a2", "a3", "b", "c"]);
        assert_eq!(q.now(), SimTime(30));
    }

    #[test]
    fn cancelled_timer_does_not_fire() {
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.arm(&mut q, SimTime(5), 1);
        t.cancel();
        let (_, seq, _) = q.pop().unwrap();
        assert!(!t.fire(seq));
    }

    #[test]
    fn rearmed_timer_fires_once_at_the_new_time() {
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.arm(&mut q, SimTime(5), 'x');
        t.arm(&mut q, SimTime(9), 'x');
        let (time, seq, _) = q.pop().unwrap();
        assert_eq!(time, SimTime(5));
        assert!(!t.fire(seq), "stale entry of the first arming");
        let (time, seq, _) = q.pop().unwrap();
        assert_eq!(time, SimTime(9));
        assert!(t.fire(seq));
        assert!(!t.is_armed());
    }

    #[test]
    fn pop_until_stops_at_the_horizon() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), ());
        q.schedule(SimTime(15), ());
        assert!(q.pop_until(SimTime(10)).is_some());
        assert!(q.pop_until(SimTime(10)).is_none());
        assert_eq!(q.len(), 1);
    }
}
