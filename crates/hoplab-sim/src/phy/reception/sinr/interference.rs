//! The signals on the air at one receiver and what they add up to: ns-3's
//! `InterferenceHelper` (src/wifi/model/interference-helper.cc) for one
//! band, kept as a short list of signals instead of a map of power
//! changes (a node feels a few dozen frames at a time at most).
//!
//! Each signal is its received power from its first to its last bit,
//! `[start, end)`. The SINR of a frame over a stretch of it is its power
//! over the noise floor plus the power of every other signal present; the
//! stretch is cut into chunks wherever another signal starts or ends, and
//! each chunk contributes `(1 - BER)^bits` to the frame's success
//! probability (`CalculatePayloadPer`, `CalculatePhyHeaderSectionPsr`).

use super::super::dsss::DsssRate;
use crate::time::{SimDuration, SimTime};

/// One signal at the receiver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signal {
    /// The receiver's own number for it (distinct while it is kept).
    pub id: u64,
    pub start: SimTime,
    pub end: SimTime,
    pub power_w: f64,
}

/// The signals a receiver still needs: those on the air, and those that
/// overlapped the frame it is receiving.
#[derive(Debug, Clone, Default)]
pub struct Interference {
    signals: Vec<Signal>,
    /// Of `signals`, those weaker than `weak_below_w`, in the same order,
    /// as (start, end, power), for [`Interference::weak_total_at`]; those
    /// that ended by the last instant it was asked at are dropped from
    /// here (not from `signals`).
    weak: Vec<(SimTime, SimTime, f64)>,
    /// The power below which a signal is weak (0 W: none is).
    weak_below_w: f64,
}

impl Interference {
    /// An empty list that also keeps its signals weaker than
    /// `weak_below_w` apart ([`Interference::weak_total_at`]).
    pub fn with_weak_below(weak_below_w: f64) -> Interference {
        Interference { weak_below_w, ..Interference::default() }
    }

    pub fn add(&mut self, signal: Signal) {
        if signal.power_w < self.weak_below_w {
            self.weak.push((signal.start, signal.end, signal.power_w));
        }
        self.signals.push(signal);
    }

    /// [`Interference::add`] of a signal known to be weak (below
    /// `weak_below_w`): the weak-signal hand-over's, which only gets those.
    #[inline(always)]
    pub fn add_weak(&mut self, signal: Signal) {
        debug_assert!(signal.power_w < self.weak_below_w);
        self.weak.push((signal.start, signal.end, signal.power_w));
        self.signals.push(signal);
    }

    /// [`Interference::total_below_at`]`(t, weak_below_w)`, bit for bit (but
    /// for the sign of a zero), for any `t` at or after `now` (and `now`
    /// never earlier than at the last call): the sum runs over the weak
    /// signals only, in the same
    /// order (every other term of the full list's sum is an exact 0.0), and
    /// first forgets those that ended by `now`, which no instant from `now`
    /// on counts. The weak signals on the air at a receiver are few (those
    /// still on the air or yet to arrive) where its full list is long (every
    /// signal within reach, kept while they overlap the frame it receives).
    pub fn weak_total_at(&mut self, now: SimTime, t: SimTime) -> f64 {
        debug_assert!(t >= now);
        compact(&mut self.weak, |signal| lt(now, signal.1));
        self.weak.iter().map(|&(start, end, power_w)| masked(power_w, le(start, t) & lt(t, end))).sum()
    }

    /// Forget the signals that ended at or before `horizon`, from the weak
    /// list too once it holds 8 (a receiver that never asks for the weak
    /// sum, its preamble detection below the CCA threshold, must not keep
    /// them for the run; one that asks drops them there, at each weak
    /// signal, so it rarely holds as many). Their terms in any later sum
    /// are exact zeros, so no sum changes.
    pub fn forget_before(&mut self, horizon: SimTime) {
        compact(&mut self.signals, |signal| lt(horizon, signal.end));
        if self.weak.len() >= 8 {
            compact(&mut self.weak, |signal| lt(horizon, signal.1));
        }
    }

    pub fn len(&self) -> usize {
        self.signals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.signals.is_empty()
    }

    /// Power of the signals other than `except` present just before `t`
    /// (started before it, not ended before it): ns-3's
    /// `CalculateNoiseInterferenceW` at `t`, which applies the power
    /// changes strictly before `t`.
    pub fn before(&self, t: SimTime, except: u64) -> f64 {
        // Branch-free (`&`, a 0.0 term): the sum is the same, bit for bit,
        // and no mispredicted branch per signal.
        self.signals.iter().map(|s| masked(s.power_w, differ(s.id, except) & lt(s.start, t) & le(t, s.end))).sum()
    }

    /// Power of the signals other than `except` present during `[t, t + dt)`
    /// for a small dt (started at or before `t`, ending after it).
    fn during(&self, t: SimTime, except: u64) -> f64 {
        self.signals.iter().map(|s| masked(s.power_w, differ(s.id, except) & le(s.start, t) & lt(t, s.end))).sum()
    }

    /// Total power of the signals present during `[t, t + dt)` that are
    /// each weaker than `below_w`.
    pub fn total_below_at(&self, t: SimTime, below_w: f64) -> f64 {
        let below_bits = below_w.to_bits();
        self.signals.iter().map(|s| masked(s.power_w, le(s.start, t) & lt(t, s.end) & lt_u64(s.power_w.to_bits(), below_bits))).sum()
    }

    /// Total power of every signal present during `[t, t + dt)`.
    pub fn total_at(&self, t: SimTime) -> f64 {
        self.during(t, u64::MAX)
    }

    /// Probability that `frame` gets through its stretch `[from, to)` sent
    /// at `rate`, against `noise_w` and every other signal: the product of
    /// the chunks' success rates, each chunk's bits `rate x duration`
    /// truncated as ns-3 does (`CalculateChunkSuccessRate`).
    pub fn success(&self, frame: &Signal, from: SimTime, to: SimTime, rate: DsssRate, noise_w: f64) -> f64 {
        if to <= from {
            return 1.0;
        }
        // The other signals overlapping the stretch: usually none or few.
        let overlaps = |s: &&Signal| s.id != frame.id && s.start < to && s.end > from;
        let bits = |a: SimTime, b: SimTime| (rate.bps() * b.since(a).as_secs_f64()) as u64;
        // One branch-free pass: how many overlap, and their powers' sum in
        // list order (the others add 0.0: the same sum, bit for bit).
        let (mut overlapping, mut all_w) = (0u64, 0.0f64);
        for s in &self.signals {
            let m = differ(s.id, frame.id) & lt(s.start, to) & lt(from, s.end);
            overlapping += m;
            all_w += masked(s.power_w, m);
        }
        if overlapping == 0 {
            return rate.chunk_success(frame.power_w / noise_w, bits(from, to));
        }
        // Every chunk's interference is a part of the overlapping signals'
        // sum (added in the same order, so never above it after rounding):
        // if the frame is perfect against the whole sum, each chunk's
        // success is exactly 1, and so is their product.
        if frame.power_w / (noise_w + all_w) >= rate.perfect_sinr() {
            return 1.0;
        }
        let mut cuts: smallvec::SmallVec<[SimTime; 32]> = smallvec::smallvec![from, to];
        for s in self.signals.iter().filter(overlaps) {
            for t in [s.start, s.end] {
                if t > from && t < to {
                    cuts.push(t);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        let mut psr = 1.0;
        for w in cuts.windows(2) {
            // Branch-free: the signals present at the chunk's start are all
            // among the overlapping ones (the chunk lies inside the stretch).
            let interference_w = self.during(w[0], frame.id);
            psr *= rate.chunk_success(frame.power_w / (noise_w + interference_w), bits(w[0], w[1]));
        }
        psr
    }

    /// The latest end of the signals present at `now` (started by then).
    pub fn last_end(&self, now: SimTime) -> SimTime {
        self.signals.iter().filter(|s| s.start <= now).map(|s| s.end).max().unwrap_or(now)
    }

    /// When the total power first falls below `threshold_w` at or after
    /// `now` (ns-3 `GetEnergyDuration`), counting the signals that started
    /// by `now` (not those handed over ahead of their arrival): `now` if it
    /// is below already.
    pub fn energy_end(&self, now: SimTime, threshold_w: f64) -> SimTime {
        self.energy_end_beyond(now, threshold_w, None).unwrap_or(now)
    }

    /// [`Interference::energy_end`], if a signal present at `now` ends
    /// after `counted` (the end of the count made last, which this one can
    /// outlast only then); `None` otherwise. The same answer as asking
    /// [`Interference::last_end`] first (the latest end of the signals
    /// started by `now` is a present one's, else at most `now`, where the
    /// count ends at once and outlasts nothing), from one pass over the
    /// list instead of two. `counted` None: no count made.
    pub fn energy_end_beyond(&self, now: SimTime, threshold_w: f64, counted: Option<SimTime>) -> Option<SimTime> {
        // One branch-free pass: the total (summed in list order, as below;
        // a signal not present adds 0.0, bit for bit the same), the latest
        // end of a present signal (one not present counts as ending now),
        // and the latest end of a present one at the threshold on its own
        // (0 if none is).
        let threshold_bits = threshold_w.to_bits();
        let (mut total, mut last_end, mut strong_end) = (0.0, now, SimTime::ZERO);
        for s in &self.signals {
            let m = le(s.start, now) & lt(now, s.end);
            total += masked(s.power_w, m);
            last_end = last_end.max(SimTime(now.0.wrapping_add(s.end.0.wrapping_sub(now.0) & m.wrapping_neg())));
            let strong = m & (lt_u64(s.power_w.to_bits(), threshold_bits) ^ 1);
            strong_end = strong_end.max(SimTime(s.end.0 & strong.wrapping_neg()));
        }
        // `last_end` is the latest end of a present signal, or now: no
        // later than the last count, this count cannot outlast it.
        if counted.is_some_and(|counted| last_end <= counted) {
            return None;
        }
        if total < threshold_w {
            return Some(now);
        }
        // The usual case: a signal that ends last is at the threshold on
        // its own, so the total cannot fall below it before then (the
        // walk below would return that end too). (A signal is present:
        // the total reached the threshold; so `last_end` is after now,
        // and `strong_end` equals it only by a present strong signal's.)
        if strong_end == last_end {
            return Some(last_end);
        }
        Some(self.energy_end_walk(now, threshold_w, total))
    }

    /// [`Interference::energy_end_beyond`]'s walk over the present
    /// signals' ends, from their `total` (kept apart: its loop then keeps
    /// the total in a register, not on the stack across this walk's sort).
    #[inline(never)]
    fn energy_end_walk(&self, now: SimTime, threshold_w: f64, mut total: f64) -> SimTime {
        let present = || self.signals.iter().filter(|s| s.start <= now && s.end > now);
        // Built in place (a returned SmallVec is copied whole, 0.5 kB).
        let mut ends: smallvec::SmallVec<[(SimTime, f64); 32]> = smallvec::SmallVec::new();
        ends.extend(present().map(|s| (s.end, s.power_w)));
        ends.sort_unstable_by_key(|e| e.0);
        let mut i = 0;
        while i < ends.len() {
            let t = ends[i].0;
            while i < ends.len() && ends[i].0 == t {
                total -= ends[i].1;
                i += 1;
            }
            // The remaining sum, re-added where it decides (no drift).
            if total < threshold_w * (1.0 + 1e-9) {
                let exact: f64 = ends[i..].iter().map(|e| e.1).sum();
                if exact < threshold_w {
                    return t;
                }
            }
        }
        ends.last().map_or(now, |e| e.0)
    }
}

/// Keep, in order, the entries of `list` for which `keep` gives 1 (0 drops
/// them), as `retain` does but without its branch: each entry is written at
/// `kept`, which moves on only if it is kept. `retain`'s branch on each
/// signal's end was the arrival's most mispredicted one.
#[inline(always)]
fn compact<T: Copy>(list: &mut Vec<T>, keep: impl Fn(T) -> u64) {
    let mut kept = 0;
    for i in 0..list.len() {
        let entry = list[i];
        list[kept] = entry;
        kept += keep(entry) as usize;
    }
    list.truncate(kept);
}

/// `power_w` where `keep` is 1, 0.0 where it is 0, by a mask on its bits
/// rather than a branch (an `if`, or `&` of comparisons, compiles to
/// branches on the times, mispredicted per signal): the same term, so the
/// sums above add the same numbers in the same order, bit for bit.
#[inline(always)]
fn masked(power_w: f64, keep: u64) -> f64 {
    f64::from_bits(power_w.to_bits() & keep.wrapping_neg())
}

/// 1 if `a < b`, else 0, by the sign of the difference (both below 2^63:
/// times in ns, the bits of positive powers), which compiles to no branch.
#[inline(always)]
fn lt_u64(a: u64, b: u64) -> u64 {
    a.wrapping_sub(b) >> 63
}

/// 1 if `a < b`, else 0 ([`lt_u64`]).
#[inline(always)]
fn lt(a: SimTime, b: SimTime) -> u64 {
    lt_u64(a.0, b.0)
}

/// 1 if `a <= b`, else 0 ([`lt_u64`]).
#[inline(always)]
fn le(a: SimTime, b: SimTime) -> u64 {
    lt_u64(b.0, a.0) ^ 1
}

/// 1 if `a != b`, else 0: the top bit of `x | -x` is set for any `x` but 0.
#[inline(always)]
fn differ(a: u64, b: u64) -> u64 {
    let x = a ^ b;
    (x | x.wrapping_neg()) >> 63
}

/// A duration in whole nanoseconds from microseconds.
pub fn micros(us: f64) -> SimDuration {
    SimDuration::from_micros_f64(us)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(id: u64, start_us: u64, end_us: u64, power_w: f64) -> Signal {
        Signal { id, start: SimTime(start_us * 1000), end: SimTime(end_us * 1000), power_w }
    }

    #[test]
    fn forgetting_bounds_the_weak_list_when_its_sum_is_never_asked() {
        // One weak signal every 100 us for 10,000 signals, the receiver
        // forgetting what ended 1 ms ago and never asking for the weak sum:
        // only the signals of the last 1.1 ms stay, in both lists.
        let mut air = Interference::with_weak_below(1e-9);
        for i in 0..10_000u64 {
            air.add(sig(i, i * 100, i * 100 + 100, 1e-10));
            air.forget_before(SimTime((i * 100).saturating_sub(1000) * 1000));
            assert!(air.weak.len() <= 12 && air.len() <= 12, "{} weak, {} in all", air.weak.len(), air.len());
        }
    }

    /// Forgetting (branch-free) keeps exactly the signals `retain` keeps,
    /// in the same order: random lists whose ends often fall on the
    /// horizon itself (kept only if they end after it). The weak list is
    /// pruned the same way once it holds 8, else left as it is (its sum
    /// prunes it: `the_weak_signals_sum_is_the_full_lists_bit_for_bit`).
    #[test]
    fn forgetting_keeps_what_retain_keeps_in_order() {
        let mut next = xorshift(0x51f15e7e1d2c3b4au64);
        let threshold_w = 1.56e-11;
        let mut pruned = 0;
        for _ in 0..3000 {
            let mut air = Interference::with_weak_below(threshold_w);
            for id in 0..next(24) {
                let start = next(40) * 50;
                let power_w = threshold_w * (0.01 + next(800) as f64 / 400.0);
                air.add(Signal { id, start: SimTime(start), end: SimTime(start + 50 + next(40) * 50), power_w });
            }
            let horizon = SimTime(next(90) * 50);
            let mut want = air.clone();
            want.signals.retain(|s| s.end > horizon);
            if want.weak.len() >= 8 {
                want.weak.retain(|w| w.1 > horizon);
                pruned += 1;
            }
            air.forget_before(horizon);
            assert_eq!(air.signals, want.signals);
            assert_eq!(air.weak, want.weak);
        }
        assert!(pruned > 300, "{pruned} weak lists of 8 or more");
    }

    /// The energy count in one pass gives the receiver the same new end of
    /// carrier sense as the two it replaced (the latest end of the signals
    /// started by `now` against the count made last, then energy_end):
    /// random lists on a coarse grid (ends often at `now` or at the last
    /// count, some lists with no signal present), thresholds that each
    /// signal, a pair or none reaches.
    #[test]
    fn one_pass_energy_count_adopts_what_the_two_passes_did() {
        let mut next = xorshift(0x3c6ef372fe94f82bu64);
        let threshold_w = 1.56e-11;
        let (mut adopted, mut refused_early) = (0, 0);
        for _ in 0..5000 {
            let air = random_list(&mut next, 12, threshold_w * 0.05, threshold_w);
            let now = SimTime(next(60) * 50);
            let counted = SimTime(next(90) * 50);
            for threshold_w in [threshold_w, 2.0 * threshold_w, 5.0 * threshold_w] {
                // What count_energy adopts: an end later than the last count's and than now.
                let adopt = |until: Option<SimTime>| until.filter(|&u| u > counted && u > now);
                let two_passes = (air.last_end(now) > counted).then(|| reference::energy_end(&air, now, threshold_w));
                let one_pass = air.energy_end_beyond(now, threshold_w, Some(counted));
                assert_eq!(adopt(one_pass), adopt(two_passes), "now {now:?}, counted {counted:?}");
                assert_eq!(air.energy_end(now, threshold_w), reference::energy_end(&air, now, threshold_w));
                adopted += adopt(one_pass).is_some() as u32;
                refused_early += one_pass.is_none() as u32;
            }
        }
        // Both ways out taken often.
        assert!(adopted > 1000 && refused_early > 1000, "{adopted} adopted, {refused_early} refused early");
    }

    #[test]
    fn chunks_follow_the_interferers() {
        let mut air = Interference::default();
        let frame = sig(1, 0, 1000, 1e-9);
        air.add(frame);
        air.add(sig(2, 200, 400, 1e-9)); // 0 dB SINR for 200 us
        let noise = 1e-13;
        let rate = DsssRate::Dqpsk2;
        let clean = rate.chunk_success(1e-9 / noise, 800) * rate.chunk_success(1e-9 / noise, 1200);
        let hit = rate.chunk_success(1e-9 / (noise + 1e-9), 400);
        let got = air.success(&frame, SimTime(0), SimTime(1_000_000), rate, noise);
        assert!((got - clean * hit).abs() < 1e-12, "{got} vs {}", clean * hit);
        // A stretch the interferer does not touch.
        assert!((air.success(&frame, SimTime(400_000), SimTime(1_000_000), rate, noise) - rate.chunk_success(1e4, 1200)).abs() < 1e-12);
    }

    #[test]
    fn energy_ends_when_the_sum_falls_below() {
        let mut air = Interference::default();
        air.add(sig(1, 0, 100, 6e-12));
        air.add(sig(2, 10, 300, 6e-12));
        // Together 1.2e-11 >= 1e-11 until the first ends at 100 us.
        assert_eq!(air.energy_end(SimTime(20_000), 1e-11), SimTime(100_000));
        // Either alone is enough for 5e-12: busy until the last ends.
        assert_eq!(air.energy_end(SimTime(20_000), 5e-12), SimTime(300_000));
        assert_eq!(air.energy_end(SimTime(20_000), 1e-10), SimTime(20_000));
        air.forget_before(SimTime(100_000));
        assert_eq!(air.len(), 1);
    }

    /// The sums as written before they were made branch-free (filters and
    /// `if`s over the same list): the reference for bit-for-bit equality.
    mod reference {
        use super::*;

        pub fn before(air: &Interference, t: SimTime, except: u64) -> f64 {
            air.signals.iter().map(|s| if s.id != except && s.start < t && s.end >= t { s.power_w } else { 0.0 }).sum()
        }

        pub fn total_below_at(air: &Interference, t: SimTime, below_w: f64) -> f64 {
            air.signals.iter().map(|s| if s.start <= t && s.end > t && s.power_w < below_w { s.power_w } else { 0.0 }).sum()
        }

        pub fn success(air: &Interference, frame: &Signal, from: SimTime, to: SimTime, rate: DsssRate, noise_w: f64) -> f64 {
            if to <= from {
                return 1.0;
            }
            let overlaps = |s: &&Signal| s.id != frame.id && s.start < to && s.end > from;
            let bits = |a: SimTime, b: SimTime| (rate.bps() * b.since(a).as_secs_f64()) as u64;
            if !air.signals.iter().any(|s| overlaps(&s)) {
                return rate.chunk_success(frame.power_w / noise_w, bits(from, to));
            }
            let all_w: f64 = air.signals.iter().filter(overlaps).map(|s| s.power_w).sum();
            if frame.power_w / (noise_w + all_w) >= rate.perfect_sinr() {
                return 1.0;
            }
            let mut cuts: smallvec::SmallVec<[SimTime; 32]> = smallvec::smallvec![from, to];
            for s in air.signals.iter().filter(overlaps) {
                for t in [s.start, s.end] {
                    if t > from && t < to {
                        cuts.push(t);
                    }
                }
            }
            cuts.sort_unstable();
            cuts.dedup();
            let mut psr = 1.0;
            for w in cuts.windows(2) {
                let interference_w: f64 =
                    air.signals.iter().filter(overlaps).filter(|s| s.start <= w[0] && s.end > w[0]).map(|s| s.power_w).sum();
                psr *= rate.chunk_success(frame.power_w / (noise_w + interference_w), bits(w[0], w[1]));
            }
            psr
        }

        pub fn overlapping_sum(air: &Interference, frame: &Signal, from: SimTime, to: SimTime) -> Option<f64> {
            let overlaps = |s: &&Signal| s.id != frame.id && s.start < to && s.end > from;
            air.signals.iter().any(|s| overlaps(&s)).then(|| air.signals.iter().filter(overlaps).map(|s| s.power_w).sum())
        }

        pub fn energy_end(air: &Interference, now: SimTime, threshold_w: f64) -> SimTime {
            let present = || air.signals.iter().filter(|s| s.start <= now && s.end > now);
            let (mut total, mut last_end, mut last_power_w) = (0.0, now, 0.0f64);
            for s in present() {
                total += s.power_w;
                if s.end > last_end {
                    (last_end, last_power_w) = (s.end, s.power_w);
                } else if s.end == last_end {
                    last_power_w = last_power_w.max(s.power_w);
                }
            }
            if total < threshold_w {
                return now;
            }
            if last_power_w >= threshold_w {
                return last_end;
            }
            let mut ends: smallvec::SmallVec<[(SimTime, f64); 32]> = present().map(|s| (s.end, s.power_w)).collect();
            ends.sort_unstable_by_key(|e| e.0);
            let mut i = 0;
            while i < ends.len() {
                let t = ends[i].0;
                while i < ends.len() && ends[i].0 == t {
                    total -= ends[i].1;
                    i += 1;
                }
                if total < threshold_w * (1.0 + 1e-9) {
                    let exact: f64 = ends[i..].iter().map(|e| e.1).sum();
                    if exact < threshold_w {
                        return t;
                    }
                }
            }
            ends.last().map_or(now, |e| e.0)
        }
    }

    /// Random lists of overlapping signals (times on a coarse grid, so
    /// that starts and ends often coincide with the instants asked about):
    /// every branch-free sum is bit for bit the reference's, and so are
    /// energy_end's and success's answers that depend on them.
    /// A xorshift64 draw below `n` from `seed` (the random signal lists of
    /// the bit-for-bit tests).
    /// Fewer than `signals` signals on a 50 ns grid, each 50-2000 ns long
    /// within the first 2 us, of power `weakest_w` + up to 2.5 `scale_w`.
    fn random_list(next: &mut impl FnMut(u64) -> u64, signals: u64, weakest_w: f64, scale_w: f64) -> Interference {
        let mut air = Interference::default();
        for id in 0..next(signals) {
            let start = next(40) * 50;
            let power_w = weakest_w + scale_w * (next(1000) as f64 / 400.0);
            air.add(Signal { id, start: SimTime(start), end: SimTime(start + 50 + next(40) * 50), power_w });
        }
        air
    }

    fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed;
        move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        }
    }

    #[test]
    fn branch_free_sums_equal_the_plain_ones_bit_for_bit() {
        let mut next = xorshift(0x9e3779b97f4a7c15u64);
        let threshold_w = 1.56e-11;
        for _ in 0..3000 {
            let air = random_list(&mut next, 20, threshold_w * 0.01, threshold_w);
            let t = SimTime(next(45) * 50);
            let except = next(22);
            assert_eq!(air.before(t, except).to_bits(), reference::before(&air, t, except).to_bits());
            assert_eq!(air.total_below_at(t, threshold_w).to_bits(), reference::total_below_at(&air, t, threshold_w).to_bits());
            for threshold_w in [threshold_w, 2.0 * threshold_w, 5.0 * threshold_w] {
                assert_eq!(air.energy_end(t, threshold_w), reference::energy_end(&air, t, threshold_w));
            }
            let frame = Signal { id: 99, start: SimTime(0), end: SimTime(2000), power_w: threshold_w * (1.0 + next(20) as f64) };
            let (from, to) = (SimTime(next(20) * 50), SimTime(1000 + next(20) * 50));
            let rate = DsssRate::Dqpsk2;
            let got = air.success(&frame, from, to, rate, 1e-13);
            assert_eq!(got.to_bits(), reference::success(&air, &frame, from, to, rate, 1e-13).to_bits());
            // Noise near the signal: the chunks are walked, not skipped.
            let noisy = air.success(&frame, from, to, rate, frame.power_w / 4.0);
            assert_eq!(noisy.to_bits(), reference::success(&air, &frame, from, to, rate, frame.power_w / 4.0).to_bits());
            match reference::overlapping_sum(&air, &frame, from, to) {
                None => assert_eq!(got.to_bits(), rate.chunk_success(frame.power_w / 1e-13, (rate.bps() * to.since(from).as_secs_f64()) as u64).to_bits()),
                Some(all_w) if frame.power_w / (1e-13 + all_w) >= rate.perfect_sinr() => assert_eq!(got, 1.0),
                Some(_) => assert!(got <= 1.0),
            }
        }
    }

    /// The weak signals' sum (kept apart, pruned as time goes on) is the
    /// full list's sum of the signals below the threshold, bit for bit, at
    /// every instant asked: random lists built in time order (signals
    /// handed over a little ahead of their start, as the channel does, some
    /// ending before later ones start; the owner forgetting the past now
    /// and then), asked at instants from the present on.
    #[test]
    fn the_weak_signals_sum_is_the_full_lists_bit_for_bit() {
        let mut next = xorshift(0x2545f4914f6cdd1du64);
        let threshold_w = 1.56e-11;
        let (mut asked, mut nonzero) = (0, 0);
        for _ in 0..500 {
            let mut air = Interference::with_weak_below(threshold_w);
            let mut now = 0u64;
            for id in 0..200 {
                now += next(4) * 50;
                let start = now + next(5) * 10;
                let power_w = threshold_w * (0.01 + next(600) as f64 / 400.0);
                air.add(Signal { id, start: SimTime(start), end: SimTime(start + 50 + next(40) * 50), power_w });
                if next(4) == 0 {
                    // The owner forgets what ended before some past instant.
                    air.forget_before(SimTime(now.saturating_sub(next(40) * 50)));
                }
                let t = SimTime(now + next(5) * 10);
                let want = reference::total_below_at(&air, t, threshold_w);
                // `+ 0.0`: an empty sum is -0.0 and one of 0.0 terms +0.0,
                // the same number to add a power to.
                assert_eq!((air.weak_total_at(SimTime(now), t) + 0.0).to_bits(), (want + 0.0).to_bits(), "signal {id}");
                assert!(air.weak.len() <= air.signals.len());
                asked += 1;
                nonzero += (want > 0.0) as u32;
            }
        }
        // The sums asked were mostly of several weak signals, not empty.
        assert!(nonzero > asked / 2, "{nonzero} of {asked}");
    }

    #[test]
    fn the_branch_free_comparisons_compare() {
        for (a, b) in [(0u64, 0u64), (0, 1), (1, 0), (5_000_000_000, 5_000_000_001), (u64::MAX >> 1, 0), (0, u64::MAX >> 1)] {
            assert_eq!(lt_u64(a, b), (a < b) as u64, "{a} < {b}");
            assert_eq!(le(SimTime(a), SimTime(b)), (a <= b) as u64, "{a} <= {b}");
            assert_eq!(differ(a, b), (a != b) as u64, "{a} != {b}");
        }
        assert_eq!(differ(0, 1 << 63), 1);
        assert_eq!(differ(u64::MAX, u64::MAX), 0);
        // Positive powers compare as their bits do.
        for (p, q) in [(1e-12, 1.56e-11), (1.56e-11, 1.56e-11), (2e-11, 1.56e-11), (f64::MIN_POSITIVE, 1.0)] {
            assert_eq!(lt_u64(f64::to_bits(p), f64::to_bits(q)), (p < q) as u64, "{p} < {q}");
        }
        assert_eq!(masked(3.5, 1).to_bits(), 3.5f64.to_bits());
        assert_eq!(masked(3.5, 0).to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn interference_before_an_instant_excludes_what_starts_then() {
        let mut air = Interference::default();
        air.add(sig(1, 0, 100, 1.0));
        air.add(sig(2, 4, 100, 2.0));
        air.add(sig(3, 0, 4, 4.0));
        // Just before 4 us: signals 1 and 3 (3 ends at 4: its end not yet applied).
        assert_eq!(air.before(SimTime(4_000), 1), 4.0);
        assert_eq!(air.before(SimTime(5_000), 1), 2.0);
    }
}
