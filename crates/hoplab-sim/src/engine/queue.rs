//! Event queue keyed by (time, insertion sequence), with lazily cancelled timers.
//!
//! A batch of events known together (a frame's arrivals at every receiver,
//! issue 30) can share one queue entry: its sequence numbers are reserved
//! at once ([`EventQueue::reserve`]), the entry carries the earliest, and
//! each next one is either handled in place, when it is the event that
//! would pop next anyway ([`EventQueue::continue_at`]), or put back with its
//! own reserved number ([`EventQueue::schedule_reserved`]). Either way the
//! events are handled in exactly the (time, sequence) order they would have
//! had as entries of their own; the queue only holds fewer.

use super::pending::{Keyed, Pending};
use crate::time::SimTime;

#[derive(Clone, Copy)]
struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    /// (time, seq) as one number: one comparison orders two entries.
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time.0 as u128) << 64 | self.seq as u128
    }
}

impl<E> Keyed for Entry<E> {
    #[inline(always)]
    fn key(&self) -> u128 {
        Entry::key(self)
    }
}

/// A min-priority queue of events. Same-time events pop in scheduling order.
pub struct EventQueue<E> {
    pending: Pending<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    popped: u64,
    /// Of `popped`, the events handled in place ([`EventQueue::continue_at`]).
    continued: u64,
    /// The horizon of the current `pop_until` (events after it wait).
    horizon: SimTime,
    /// Of `popped`, deferred events never queued ([`EventQueue::reserve_deferred`]).
    deferred: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            pending: Pending::new(),
            next_seq: 1,
            now: SimTime::ZERO,
            popped: 0,
            continued: 0,
            horizon: SimTime(u64::MAX),
            deferred: 0,
        }
    }

    /// The time of the last popped event.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events handled so far: popped (including cancelled timers' stale
    /// entries) or continued in place ([`EventQueue::continue_at`]), each
    /// event of a batch counted as if it had had an entry of its own.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Of [`EventQueue::popped`], the events handled in place: queue entries
    /// a batch saved.
    pub fn continued(&self) -> u64 {
        self.continued
    }

    /// Of [`EventQueue::popped`], the deferred events that never needed a
    /// queue entry ([`EventQueue::reserve_deferred`]).
    pub fn deferred(&self) -> u64 {
        self.deferred
    }

    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Entries the queue has room for without growing.
    pub fn capacity(&self) -> usize {
        self.pending.capacity()
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
        self.pending.push(Entry { time: time.max(self.now), seq, event });
        seq
    }

    /// Reserve `n` consecutive sequence numbers, for events scheduled later
    /// with [`EventQueue::schedule_reserved`] or handled in place, in the
    /// order they would have had if scheduled now; returns the first.
    pub fn reserve(&mut self, n: u64) -> u64 {
        let first = self.next_seq;
        self.next_seq += n;
        first
    }

    /// Reserve a sequence number for an event at `time` that needs a queue
    /// entry only if something happens before then (a timer whose end
    /// usually finds nothing to do: the caller decides, and queues it with
    /// [`EventQueue::schedule_deferred`]). Until then it counts as handled
    /// if it falls within `end`, the last time the run will pop, as its
    /// entry would have popped by then: the count of events at the run's
    /// end is the one each event having its own entry gives.
    pub fn reserve_deferred(&mut self, time: SimTime, end: SimTime) -> u64 {
        if time <= end {
            self.popped += 1;
            self.deferred += 1;
        }
        self.reserve(1)
    }

    /// Queue a deferred event ([`EventQueue::reserve_deferred`], the same
    /// `time` and `end`): it pops where it would have popped had it been
    /// queued when its number was reserved, and counts when it pops.
    pub fn schedule_deferred(&mut self, time: SimTime, seq: u64, event: E, end: SimTime) {
        if time <= end {
            self.popped -= 1;
            self.deferred -= 1;
        }
        self.schedule_reserved(time, seq, event);
    }

    /// Schedule `event` at `time` with a sequence number reserved earlier
    /// ([`EventQueue::reserve`]): it pops where it would have popped had it
    /// been scheduled when the number was reserved.
    pub fn schedule_reserved(&mut self, time: SimTime, seq: u64, event: E) {
        debug_assert!(time >= self.now && seq < self.next_seq, "a reserved event in the past or not reserved");
        self.pending.push(Entry { time: time.max(self.now), seq, event });
    }

    /// Whether the event (`time`, reserved `seq`) is the next to handle,
    /// before every entry in the queue and within the current horizon: then
    /// the clock advances to `time`, the event counts as popped, and the
    /// caller handles it in place (true). False: the caller schedules it
    /// ([`EventQueue::schedule_reserved`]).
    #[inline]
    pub fn continue_at(&mut self, time: SimTime, seq: u64) -> bool {
        let key = (time.0 as u128) << 64 | seq as u128;
        if time > self.horizon || self.pending.peek().is_some_and(|top| top.key() < key) {
            return false;
        }
        debug_assert!(time >= self.now);
        self.now = time;
        self.popped += 1;
        self.continued += 1;
        true
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.pending.peek().map(|e| e.time)
    }

    /// Pop the earliest event and advance the clock to it.
    pub fn pop(&mut self) -> Option<(SimTime, u64, E)> {
        self.horizon = SimTime(u64::MAX);
        self.pop_entry()
    }

    fn pop_entry(&mut self) -> Option<(SimTime, u64, E)> {
        let entry = self.pending.pop()?;
        self.now = entry.time;
        self.popped += 1;
        Some((entry.time, entry.seq, entry.event))
    }

    /// Pop the earliest event if it is not later than `until`.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, u64, E)> {
        match self.pending.peek() {
            Some(e) if e.time <= until => {
                self.horizon = until;
                self.pop_entry()
            }
            _ => None,
        }
    }
}

/// A cancellable timer slot. Arming schedules an event and remembers its
/// sequence number; cancelling forgets it, and the stale event is ignored
/// when it pops ([`Timer::fire`] returns false). Cancellation is O(1) and
/// needs no search of the queue (lazy deletion).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timer {
    armed_seq: u64,
    at: SimTime,
}

impl Timer {
    pub fn arm<E: Copy>(&mut self, queue: &mut EventQueue<E>, at: SimTime, event: E) {
        self.armed_seq = queue.schedule(at, event);
        self.at = at;
    }

    /// Arm the timer for `at` with a sequence number reserved now, without
    /// an entry of its own: the caller keeps the event in a batch that
    /// shares one entry (see the module doc) and hands back this number
    /// when it is due. Returns the number.
    pub fn arm_in_batch<E: Copy>(&mut self, queue: &mut EventQueue<E>, at: SimTime) -> u64 {
        self.armed_seq = queue.reserve(1);
        self.at = at;
        self.armed_seq
    }

    /// Arm the timer for `at` without a queue entry
    /// ([`EventQueue::reserve_deferred`]; `end`: the run's end):
    /// [`Timer::queue_deferred`] gives it one, with the place among
    /// simultaneous events it has now, if its end may matter after all.
    pub fn arm_deferred<E: Copy>(&mut self, queue: &mut EventQueue<E>, at: SimTime, end: SimTime) {
        self.armed_seq = queue.reserve_deferred(at, end);
        self.at = at;
    }

    /// Queue the event of a timer armed with [`Timer::arm_deferred`] (once;
    /// it must still be armed, the same `end`).
    pub fn queue_deferred<E: Copy>(&self, queue: &mut EventQueue<E>, event: E, end: SimTime) {
        debug_assert!(self.is_armed());
        queue.schedule_deferred(self.at, self.armed_seq, event, end);
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
    fn a_batch_pops_as_its_events_would_have() {
        // Three events of one batch at 10, 20, 30 (reserved numbers), and
        // others scheduled after the reservation at 20 and 25: the batch's
        // 20 comes before the later-scheduled 20, and its 30 after 25.
        let mut q = EventQueue::new();
        let first = q.reserve(3);
        q.schedule_reserved(SimTime(10), first, "b10");
        q.schedule(SimTime(20), "x20");
        q.schedule(SimTime(25), "x25");
        let mut order = vec![];
        while let Some((t, _, e)) = q.pop() {
            order.push(e);
            if e == "b10" {
                assert_eq!(t, SimTime(10));
                assert!(q.continue_at(SimTime(20), first + 1), "nothing in the queue comes before it");
                order.push("b20");
                assert!(!q.continue_at(SimTime(30), first + 2), "x20 and x25 come first");
                q.schedule_reserved(SimTime(30), first + 2, "b30");
            }
        }
        assert_eq!(order, ["b10", "b20", "x20", "x25", "b30"]);
        assert_eq!((q.popped(), q.continued()), (5, 1));
    }

    #[test]
    fn continuing_stops_at_the_horizon() {
        let mut q = EventQueue::new();
        let first = q.reserve(2);
        q.schedule_reserved(SimTime(5), first, ());
        assert!(q.pop_until(SimTime(10)).is_some());
        assert!(!q.continue_at(SimTime(11), first + 1), "past the horizon: it waits for the next pop_until");
        assert!(q.continue_at(SimTime(10), first + 1));
        assert_eq!(q.now(), SimTime(10));
    }

    #[test]
    fn a_deferred_timer_pops_in_its_place_and_counts_once() {
        let end = SimTime(100);
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        q.schedule(SimTime(50), "before");
        t.arm_deferred(&mut q, SimTime(50), end);
        q.schedule(SimTime(50), "after");
        // Never queued: counted as the entry it would have had.
        let mut never = Timer::default();
        never.arm_deferred(&mut q, SimTime(60), end);
        // Past the end: neither counted nor popped.
        let mut late = Timer::default();
        late.arm_deferred(&mut q, SimTime(200), end);
        late.queue_deferred(&mut q, "late", end);
        t.queue_deferred(&mut q, "deferred", end);
        let mut order = vec![];
        while let Some((_, seq, e)) = q.pop_until(end) {
            order.push(e);
            if e == "deferred" {
                assert!(t.fire(seq));
            }
        }
        assert_eq!(order, ["before", "deferred", "after"]);
        assert_eq!((q.popped(), q.deferred()), (4, 1));
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
