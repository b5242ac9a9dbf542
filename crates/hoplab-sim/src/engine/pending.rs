//! The pending entries of the event queue, in key order: a short sorted
//! array of the earliest ones and a binary heap of the rest.
//!
//! Why not one binary heap: a simulation's queue is short (12-180 entries on
//! the bench scenarios, `hoplab bench`), and most new events fall just after
//! now (a SIFS, a slot, a frame's end). A heap pays about log2(n)
//! unpredictable comparisons on every pop whatever the key; a sorted array
//! pops its earliest entry from its end for free and places a near event
//! after a few predictable comparisons from that end. Measured on the
//! 7-hop ns-2 AODV chain (300 s): 3.09 M pops over a queue of 20.8 entries
//! on average, the heap's pop and push 36 % of the run's time; the array
//! took the run from 0.33 to 0.25 s, with the same events in the same order.
//!
//! The heap keeps the array's length bounded ([`NEAR_CAPACITY`]): a
//! scenario with thousands of pending timers costs O(log n) per event, not
//! O(n). Invariant: every key in `near` is smaller than every key in `far`,
//! so the earliest entry is `near`'s last, or `far`'s top when `near` is
//! empty. Keys are unique (the insertion sequence breaks time ties), so the
//! order entries leave in is the one a single heap gives: results do not
//! depend on this structure.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Entries kept sorted before the rest go to the heap: above every bench
/// scenario's mean queue (11.6-104 entries; dsr-random-150's 178 spills),
/// and 64 or 256 measured the same within noise (docs/performance.md).
pub(crate) const NEAR_CAPACITY: usize = 128;

/// What the pending set orders by: a unique key, smaller first.
pub(crate) trait Keyed {
    fn key(&self) -> u128;
}

/// A far entry, ordered so that `BinaryHeap` (a max-heap) tops the smallest key.
struct Far<T>(T);

impl<T: Keyed> PartialEq for Far<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
    }
}
impl<T: Keyed> Eq for Far<T> {}
impl<T: Keyed> PartialOrd for Far<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: Keyed> Ord for Far<T> {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.key().cmp(&self.0.key())
    }
}

/// Pending entries, the smallest key first out (see the module doc).
pub(crate) struct Pending<T> {
    /// The earliest entries, sorted by decreasing key: the next out is last.
    near: Vec<T>,
    /// The rest: every key here is larger than every key in `near`.
    far: BinaryHeap<Far<T>>,
}

impl<T: Keyed + Copy> Pending<T> {
    pub fn new() -> Self {
        Pending { near: Vec::with_capacity(NEAR_CAPACITY + 1), far: BinaryHeap::new() }
    }

    pub fn len(&self) -> usize {
        self.near.len() + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.near.is_empty() && self.far.is_empty()
    }

    /// Entries held without growing.
    pub fn capacity(&self) -> usize {
        self.near.capacity() + self.far.capacity()
    }

    #[inline]
    pub fn push(&mut self, entry: T) {
        let key = entry.key();
        if self.far.peek().is_some_and(|top| key > top.0.key()) {
            self.far.push(Far(entry));
            return;
        }
        // From the earliest end: a new event usually falls among the first
        // few, found with predictable comparisons (a bisection's
        // unpredictable ones made the bench chains 5-10 % slower).
        // Found and placed in one pass from the earliest end, each later
        // entry moved up one place as it is passed (an insertion sort's
        // step), with no call to memmove for the few moved (5.5 on average
        // on the SINR chain, 3.4 on the AODV chain). Measured against
        // `Vec::insert` (callgrind, 20 s of the 14-hop SINR chain and 60 s
        // of the 14-hop AODV chain): 2.3 % and 3.1 % fewer instructions; a
        // safe loop that copies through indices, 1.4 % and 0.9 % more
        // (its bounds checks).
        self.near.reserve(1);
        let len = self.near.len();
        let base = self.near.as_mut_ptr();
        let mut at = len;
        // SAFETY: room for `len + 1` entries was reserved. Each entry read
        // at `at - 1` (< len) is copied to `at` (<= len), which is either
        // the spare place or the place the previous move left; `entry`
        // fills the last such place, so when the length grows every place
        // below it holds an entry. `T: Copy`: nothing is dropped, and a
        // panicking `key` (none does) would leave the length unchanged.
        unsafe {
            while at > 0 && (*base.add(at - 1)).key() < key {
                std::ptr::copy_nonoverlapping(base.add(at - 1), base.add(at), 1);
                at -= 1;
            }
            std::ptr::write(base.add(at), entry);
            self.near.set_len(len + 1);
        }
        if self.near.len() > NEAR_CAPACITY {
            // The latest half moves to the heap (all larger than what stays).
            self.far.extend(self.near.drain(..NEAR_CAPACITY / 2).map(Far));
        }
    }

    /// The entry with the smallest key.
    #[inline]
    pub fn peek(&self) -> Option<&T> {
        match self.near.last() {
            Some(entry) => Some(entry),
            None => self.far.peek().map(|far| &far.0),
        }
    }

    /// Take the entry with the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        if self.near.is_empty() {
            self.refill();
        }
        self.near.pop()
    }

    /// Move the heap's earliest entries (up to half the array) into the
    /// empty array, in its order.
    #[cold]
    fn refill(&mut self) {
        let moved = self.far.len().min(NEAR_CAPACITY / 2);
        self.near.extend(std::iter::from_fn(|| self.far.pop().map(|far| far.0)).take(moved));
        self.near.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Key(u128);
    impl Keyed for Key {
        fn key(&self) -> u128 {
            self.0
        }
    }

    /// Random pushes and pops (unique keys, most near the last popped one,
    /// some far ahead, the length swinging well past the array's capacity
    /// and back to empty): every pop is the smallest key, as a plain heap
    /// of the same entries gives.
    #[test]
    fn pops_what_a_plain_heap_pops() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut pending = Pending::new();
        let mut oracle = std::collections::BTreeSet::new();
        let mut now = 0u128;
        let mut next_unique = 0u128;
        let (mut pops, mut max_len) = (0, 0);
        for round in 0..200_000u32 {
            // Phases that grow the queue far past NEAR_CAPACITY, then drain it.
            let push_weight = if (round / 5_000) % 2 == 0 { 0.6 } else { 0.35 };
            if rng.random_bool(push_weight) {
                let ahead: u128 = if rng.random_bool(0.9) { rng.random_range(0..50) } else { rng.random_range(0..100_000) };
                // Low bits: a unique sequence, as the queue's keys have.
                next_unique += 1;
                let key = (now + ahead) << 32 | next_unique;
                pending.push(Key(key));
                oracle.insert(key);
            } else {
                let expected = oracle.pop_first();
                assert_eq!(pending.peek().map(|k| k.0), expected);
                let got = pending.pop().map(|k| k.0);
                assert_eq!(got, expected, "pop {pops}");
                if let Some(key) = got {
                    now = key >> 32;
                    pops += 1;
                }
            }
            assert_eq!(pending.len(), oracle.len());
            max_len = max_len.max(pending.len());
        }
        assert!(max_len > 4 * NEAR_CAPACITY, "the heap was used: {max_len}");
        assert!(pops > 50_000);
        while let Some(expected) = oracle.pop_first() {
            assert_eq!(pending.pop().map(|k| k.0), Some(expected));
        }
        assert!(pending.is_empty() && pending.pop().is_none());
    }

    /// The room it reports (the memory budget's event-queue bytes,
    /// world/budget.rs) counts both parts: at least what it holds, and the
    /// heap's room once entries spilled there.
    #[test]
    fn capacity_counts_the_array_and_the_heap() {
        let mut pending = Pending::new();
        assert!(pending.capacity() > NEAR_CAPACITY);
        for key in (0..10 * NEAR_CAPACITY as u128).rev() {
            pending.push(Key(key));
            assert!(pending.capacity() >= pending.len());
        }
        assert!(pending.capacity() >= 10 * NEAR_CAPACITY);
    }
}
