//! The engine micro-benchmark: schedule, cancel and pop, as the MAC does.

use super::{EventQueue, RngStreams, StreamPurpose, Timer};
use crate::time::{SimDuration, SimTime};

/// Arm `events` timers over 64 slots: each live expiry re-arms its slot at a
/// random offset within 1 ms, and one expiry in four also re-arms another
/// slot (cancelling its pending event), the mix of a backoff / timeout heavy
/// DCF run. The queue holds a steady ~64-80 entries, as a node-rich run
/// does per node. Returns (events popped, live or stale; wall seconds).
/// Its offsets are uniform over 1 ms, so a new event lands anywhere in the
/// queue: the queue's sorted array (`pending.rs`) pays a longer scan here
/// than in a simulation, where most new events fall just after now (this
/// figure went from 27 to 16 M events/s with the array, while the bench
/// scenarios ran 10-25 % faster).
pub fn schedule_cancel_pop(events: u64) -> (u64, f64) {
    const SLOTS: usize = 64;
    let mut rng = RngStreams::new(1).stream(StreamPurpose::Traffic, 0);
    let mut queue: EventQueue<u32> = EventQueue::new();
    let mut timers = [Timer::default(); SLOTS];
    let started = std::time::Instant::now();
    let mut armed = 0u64;
    let mut live_fired = 0u64;
    for (slot, timer) in timers.iter_mut().enumerate() {
        let at = SimTime::ZERO + SimDuration::from_nanos(rng.uniform_inclusive(1_000_000) as u64);
        timer.arm(&mut queue, at, slot as u32);
        armed += 1;
    }
    while let Some((now, seq, slot)) = queue.pop() {
        let slot = slot as usize;
        if !timers[slot].fire(seq) {
            continue; // a cancelled timer's stale entry
        }
        live_fired += 1;
        if armed < events {
            // Re-arm this slot, and one time in four also re-arm (cancel and
            // reschedule) another, as a backoff freeze or a timeout does.
            let at = now + SimDuration::from_nanos(1 + rng.uniform_inclusive(1_000_000) as u64);
            timers[slot].arm(&mut queue, at, slot as u32);
            armed += 1;
            if armed % 4 == 0 && armed < events {
                let other = (slot + 17) % SLOTS;
                let at = now + SimDuration::from_nanos(1 + rng.uniform_inclusive(1_000_000) as u64);
                timers[other].arm(&mut queue, at, other as u32);
                armed += 1;
            }
        }
    }
    let wall_seconds = started.elapsed().as_secs_f64();
    std::hint::black_box(live_fired);
    (queue.popped(), wall_seconds)
}
