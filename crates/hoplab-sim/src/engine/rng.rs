//! Named, independent random streams.
//!
//! Every random decision draws from a stream named by (purpose, node). A
//! stream's seed is a SplitMix64 hash of (run seed, purpose, node), so adding a
//! node, a flow or a trace never shifts another stream: a run stays
//! comparable when the scenario grows.
//!
//! Generator: PCG-64 MCG (`rand_pcg::Pcg64Mcg`, 128-bit multiplicative
//! congruential with XSL-RR output; O'Neill 2014), pinned by Cargo.lock.
//! Uniform integers use `rand`'s unbiased range sampling.

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

/// What a stream is for. The discriminant enters the seed hash: never
/// renumber an existing purpose (that would change every result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum StreamPurpose {
    /// MAC backoff draws of one node.
    Backoff = 1,
    /// Random topology placement (node = attempt number).
    Topology = 2,
    /// Frame error model at one receiving node.
    ErrorModel = 3,
    /// Application traffic of one flow (node = flow id).
    Traffic = 4,
    /// Mobility of one node.
    Mobility = 5,
    /// Routing protocol jitter of one node.
    Routing = 6,
    /// Packet loss of one wired link (index = link number).
    LinkLoss = 7,
    /// A queue discipline's random decisions (active queue management) at
    /// one node's interface (index = node) or a wired link's direction
    /// (index = 2 x link + direction + node count).
    Queue = 8,
    /// The SINR receiver's success draws of one node (PLCP header and
    /// payload of each detected frame).
    Reception = 9,
}

/// Derives the streams of one run.
#[derive(Debug, Clone, Copy)]
pub struct RngStreams {
    run_seed: u64,
}

/// One random stream.
#[derive(Debug, Clone)]
pub struct Stream(Pcg64Mcg);

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl RngStreams {
    pub fn new(run_seed: u64) -> Self {
        RngStreams { run_seed }
    }

    pub fn stream(&self, purpose: StreamPurpose, index: u64) -> Stream {
        let a = splitmix64(self.run_seed);
        let b = splitmix64(a ^ (purpose as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
        let c = splitmix64(b ^ index);
        let d = splitmix64(c ^ 0xA076_1D64_78BD_642F);
        // The MCG state must be odd.
        let state = ((c as u128) << 64 | d as u128) | 1;
        Stream(Pcg64Mcg::new(state))
    }
}

impl Stream {
    /// Uniform integer in `0..=max`.
    pub fn uniform_inclusive(&mut self, max: u32) -> u32 {
        self.0.random_range(0..=max)
    }

    /// Uniform float in [0, 1).
    pub fn uniform_f64(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform_f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let a: Vec<u32> = {
            let mut s = RngStreams::new(7).stream(StreamPurpose::Backoff, 3);
            (0..5).map(|_| s.uniform_inclusive(1023)).collect()
        };
        let b: Vec<u32> = {
            let mut s = RngStreams::new(7).stream(StreamPurpose::Backoff, 3);
            (0..5).map(|_| s.uniform_inclusive(1023)).collect()
        };
        assert_eq!(a, b);
    }

    #[test]
    fn streams_are_independent_of_each_other() {
        let streams = RngStreams::new(7);
        let mut x = streams.stream(StreamPurpose::Backoff, 3);
        let mut y = streams.stream(StreamPurpose::Backoff, 4);
        let mut z = streams.stream(StreamPurpose::ErrorModel, 3);
        let xs: Vec<u32> = (0..8).map(|_| x.uniform_inclusive(u32::MAX - 1)).collect();
        let ys: Vec<u32> = (0..8).map(|_| y.uniform_inclusive(u32::MAX - 1)).collect();
        let zs: Vec<u32> = (0..8).map(|_| z.uniform_inclusive(u32::MAX - 1)).collect();
        assert_ne!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn uniform_backoff_is_unbiased() {
        // 31 + 1 values, 320 000 draws: each bin expects 10 000, sd ~ 98.
        let mut s = RngStreams::new(1).stream(StreamPurpose::Backoff, 0);
        let mut bins = [0u32; 32];
        for _ in 0..320_000 {
            bins[s.uniform_inclusive(31) as usize] += 1;
        }
        for (v, &count) in bins.iter().enumerate() {
            assert!((9_500..10_500).contains(&count), "value {v} drawn {count} times");
        }
    }
}
