//! Binary-search source rate control for semi-TCP (Chen et al., "Rate
//! control for semi-TCP in multihop wireless networks", EURASIP JWCN 2018,
//! section 4 and Algorithm 1; docs/semitcp-2018.md). `[semitcp.rate_control]
//! algorithm = "matcp"` runs the public ns-2.35 code's reading instead
//! ([`super::matcp`]).
//!
//! The source measures, per DATA packet at its own MAC, the MAC sending time
//! (MST: head of queue to ACK or drop) and the RTS attempts it took (APR
//! sample). Both are averaged over the last `n0` samples in O(1) (eqs. 5-6).
//! Decisions are taken once per fresh window of `n0` samples:
//!
//! 1. *Aggressive sending*: the original buffer-based semi-TCP until a
//!    window is full; HAPR = Â, HMST = T̂s; LAPR = 1.
//! 2. *Slow start*: rate = packet size / HMST (eq. 1-2; the low bound);
//!    while Â < (HAPR + LAPR) / 2 double the rate (halve Stimer); the
//!    rate that reaches it is the high bound.
//! 3. *Binary search* between the bounds: Â > 0.5 (HAPR + LAPR): too high,
//!    the rate becomes the high bound and moves to the midpoint toward the
//!    low bound; Â < 0.3 (HAPR + LAPR): too low, symmetrically; in between:
//!    stop. Also stop when the bounds are within 1 kbps.
//! 4. *Dynamic adjustment*: keep the rate; an estimate more than 20 % above
//!    or below the previous one restarts at step 1.
//!
//! **Decisions** (docs/semitcp-2018.md; each a parameter):
//! - `window_samples` n0 = 10 samples, each the mean over
//!   `frames_per_sample` = 10 acknowledged DATA frames (the public
//!   implementation samples every 10 acknowledged DATA frames): a decision
//!   per 100 frames. One frame per sample is selectable; with it, APR
//!   estimates over 10 integer attempt counts are too noisy to stop the
//!   search inside its narrow band, measured in hoplab (it settles at
//!   20-50 % of the peak rate, or restarts every second).
//! - The midpoint is taken in the rate domain; this reproduces Table 1
//!   exactly (240, 120, 180, 150, 135, 142.5 kbps, stop at the sixth
//!   iteration).
//! - The window that ends slow start is also the first binary-search
//!   iteration (Table 1's iteration 0 at the 240 kbps upper bound).
//! - The search's low bound is the last rate slow start found too low (its
//!   APR below the switching level), or 0 when the very first rate, packet
//!   size / HMST, was already too high. Algorithm 1 sets HStimer = HMST,
//!   but the high-level MST (about 14 ms in the paper's Fig. 6, 20-30 ms
//!   here) corresponds to 150-300 kbps, above the peak; the paper's own
//!   example (Table 1) searches [0, 240] kbps.
//! - Slow start does not double the rate beyond the PHY's data rate
//!   (`max_rate_kbps`): it keeps the rate it has (step 4). Faster, the
//!   source only sends by buffer and its APR cannot rise, so on a path whose
//!   APR stays below (HAPR + LAPR) / 2 (one hop: APR near 1) Algorithm 1
//!   would halve Stimer forever, down to nanoseconds: a storm of timer
//!   events (found with AODV's one-hop flows in seed 000's mobile scenario).
//! - `settle_frames` (default 0, the paper's literal algorithm): frames not
//!   sampled after each change of the rate, while the queues a faster rate
//!   left along the path drain. Measured on the AODV chain (8 seeds): with
//!   the RFC's constant NODE_TRAVERSAL_TIME, 20 frames lower the goodput at
//!   7 and 14 hops (119 -> 107, 82 -> 65 kbps); with the measured traversal
//!   time (`routing.aodv.measured_traversal_time`, 12 seeds) they raise it
//!   at 4 and 7 hops (152 -> 170, 119 -> 136; at 4 hops the first window
//!   after halving the rate otherwise averages APR 1.2, inside the stop
//!   band, and the search stops at half the peak).
//! - `low_level_margin` (default 0.15): an estimate below LAPR + 0.15 is
//!   at the low level, so the rate is too low (step 3) or below the
//!   switching point (step 2), tested before "too high". The paper's band
//!   [0.3, 0.5] (HAPR + LAPR) assumes aggressive sending raises APR well
//!   above LAPR (HAPR 3.3 in Table 1: band 1.29-2.15). Where it does not
//!   (short or sparse paths: HAPR < 2.33), the band's low edge falls below
//!   LAPR = 1, which no estimate reaches: the search can only halve, and
//!   stops at the first rate whose APR lands in the band, or, with HAPR
//!   near 1, halves to nothing (seed 000's mobile scenario, a one-hop
//!   route: 721 -> 360 -> 180 -> 90 -> 45 -> 22 kbps at APR 1.1).
//!   Measured (AODV chain, 8 seeds, kbps): 3 hops 167 -> 242, 4 hops
//!   146 -> 149, 7 and 14 hops unchanged (16 seeds); mobile scenario, 10
//!   flows, 8 seeds: 319 -> 347 kbps at 10 m/s, 336 -> 386 at 20 m/s.
//!   0.29 (Table 1's low edge minus LAPR) overshoots the peak at 14 hops
//!   (86 -> 80 kbps). Table 1's sequence is unchanged (its APRs are >= 1.2).
//! - The ±20 % restart compares consecutive estimates taken at the same
//!   rate: it runs in step 4. Algorithm 1 also lists it inside step 3, but
//!   there each iteration changes the rate on purpose and Table 1 itself
//!   (APR 2.7 -> 1.2 between iterations 0 and 1) would restart the search;
//!   `restart_during_search = true` applies it there too.

use super::matcp::MatcpConfig;
use crate::config::{at_least, count_in, join, non_negative, positive, ConfigError, MAX_SAMPLES};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[semitcp.rate_control]`: the parameters of the binary-search rate
/// control of semi-TCP sources (Algorithm 1 of seed 000; defaults: the
/// paper's). APR: RTS attempts per packet at the source's MAC, Â its moving
/// average, HAPR and LAPR its high and low levels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RateControlConfig {
    /// Which reading of the binary-search rate control runs: "paper", the
    /// seed paper's Algorithm 1 as its text describes it (the keys below),
    /// or "matcp", the sampling and decisions of the rate-control paper's
    /// public ns-2.35 code (GitHub mahaicheng/semitcprc,
    /// `tcp/matcp.cc:167-473`, constants in `[semitcp.rate_control.matcp]`):
    /// one ratio sample per 10 ACKed DATA frames judged on its own, start
    /// at a quarter of the peak from the smallest MAC sending time, settle
    /// at 5 of the last 10 samples in the band, restart at 8 of 10 on one
    /// side, pacing ticks lost while the source holds data and 5 lost of 10
    /// halving the rate. Not part of `preset = "ns2"`: that preset
    /// reproduces ns-2.29 as musicinthedark/semitcp runs it, whose semi-TCP
    /// has no binary-search rate control (only TCP-AP pacing, `use_ap_`,
    /// `tcp/semitcp.cc:367-395`, which its chain scripts do not turn on);
    /// matcp is a separate code base (ns-2.35, its own MAC), and what the
    /// seed paper describes is Algorithm 1.
    pub algorithm: RateControlAlgorithm,
    /// n0: samples per moving average and per decision window.
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, { crate::config::MAX_SAMPLES }>")]
    pub window_samples: u32,
    /// DATA frames, acknowledged or dropped, averaged into one sample.
    pub frames_per_sample: u32,
    /// LAPR: the low-level APR, attempts per packet (1: each RTS succeeds
    /// at once).
    pub low_apr: f64,
    /// Â above this fraction of (HAPR + LAPR): the rate is too high.
    pub too_high_fraction: f64,
    /// Â below this fraction of (HAPR + LAPR): the rate is too low (below
    /// `too_high_fraction`).
    pub too_low_fraction: f64,
    /// Relative change of Â between consecutive estimates at a steady rate
    /// that restarts the search (0.2: ±20 %).
    pub restart_change: f64,
    /// The search stops when its bounds are this close, kb/s.
    pub resolution_kbps: f64,
    /// Apply the `restart_change` restart during the binary search too, as
    /// Algorithm 1 lists it; off: only once the rate is steady.
    pub restart_during_search: bool,
    /// DATA frames left out of the samples after each change of the rate,
    /// while the queues of the previous rate drain (0: the paper's algorithm).
    pub settle_frames: u32,
    /// Â below LAPR + this margin is the low level: the rate is too low
    /// whatever HAPR (0: the paper's band alone).
    pub low_level_margin: f64,
    /// The constants of `algorithm = "matcp"` (mahaicheng/semitcprc's values).
    pub matcp: MatcpConfig,
}

/// `[semitcp.rate_control] algorithm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RateControlAlgorithm {
    /// The seed paper's Algorithm 1 (its text; hoplab's reading).
    #[default]
    Paper,
    /// mahaicheng/semitcprc's `MaTcpAgent` (`tcp/matcp.cc`).
    Matcp,
}

impl RateControlConfig {
    /// Range checks; errors name `<prefix>.<key>`.
    pub fn validate(&self, prefix: &str) -> Result<(), ConfigError> {
        let key = |k: &str| join(prefix, k);
        count_in(&key("window_samples"), self.window_samples, 1, MAX_SAMPLES)?;
        at_least(&key("frames_per_sample"), self.frames_per_sample, 1)?;
        positive(&key("low_apr"), self.low_apr)?;
        positive(&key("too_high_fraction"), self.too_high_fraction)?;
        positive(&key("too_low_fraction"), self.too_low_fraction)?;
        if self.too_low_fraction >= self.too_high_fraction {
            return Err(ConfigError::new(key("too_low_fraction"), format!("must be below too_high_fraction ({})", self.too_high_fraction)));
        }
        positive(&key("restart_change"), self.restart_change)?;
        non_negative(&key("low_level_margin"), self.low_level_margin)?;
        positive(&key("resolution_kbps"), self.resolution_kbps)?;
        self.matcp.validate(&key("matcp"))
    }
}

impl Default for RateControlConfig {
    fn default() -> Self {
        RateControlConfig {
            window_samples: 10,
            frames_per_sample: 10,
            low_apr: 1.0,
            too_high_fraction: 0.5,
            too_low_fraction: 0.3,
            restart_change: 0.2,
            resolution_kbps: 1.0,
            restart_during_search: false,
            settle_frames: 0,
            low_level_margin: 0.15,
            algorithm: RateControlAlgorithm::Paper,
            matcp: MatcpConfig::default(),
        }
    }
}

/// The four states of Algorithm 1 (the paper's Fig. 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Aggressive,
    SlowStart,
    BinarySearch,
    Steady,
}

impl Phase {
    /// Numbering for time series (1-4 as the paper's steps).
    pub fn step(self) -> u32 {
        match self {
            Phase::Aggressive => 1,
            Phase::SlowStart => 2,
            Phase::BinarySearch => 3,
            Phase::Steady => 4,
        }
    }
}

/// A simple moving average over the last `n0` samples, updated in O(1)
/// from the newest and the n0-th oldest sample (eqs. 5 and 6).
#[derive(Debug, Clone)]
pub struct MovingAverage {
    window: usize,
    samples: VecDeque<f64>,
    mean: f64,
}

impl MovingAverage {
    pub fn new(window: usize) -> Self {
        MovingAverage { window: window.max(1), samples: VecDeque::with_capacity(window.max(1)), mean: 0.0 }
    }

    pub fn push(&mut self, sample: f64) {
        if self.samples.len() == self.window {
            let oldest = self.samples.pop_front().expect("full");
            // Eq. 5: T(n) = T(n-1) + (T_s(n) - T_s(n - n0)) / n0.
            self.mean += (sample - oldest) / self.window as f64;
        } else {
            // Filling up: the running mean of the samples so far.
            self.mean += (sample - self.mean) / (self.samples.len() + 1) as f64;
        }
        self.samples.push_back(sample);
    }

    pub fn mean(&self) -> f64 {
        self.mean
    }

    pub fn is_full(&self) -> bool {
        self.samples.len() == self.window
    }

    pub fn clear(&mut self) {
        self.samples.clear();
        self.mean = 0.0;
    }
}

/// Algorithm 1's state at the source.
#[derive(Debug, Clone)]
pub struct BinarySearchRateControl {
    config: RateControlConfig,
    packet_bits: f64,
    apr: MovingAverage,
    mst_s: MovingAverage,
    fresh_samples: u32,
    /// Frames still to be ignored after the last rate change.
    settling: u32,
    /// The frames of the sample being gathered: (count, attempts, seconds).
    pending: (u32, u64, f64),
    pub phase: Phase,
    pub high_apr: f64,
    pub high_mst_s: f64,
    /// Current source rate; None while sending by buffer (step 1).
    pub rate_kbps: Option<f64>,
    /// The search bounds: the low (HStimer) and high (LStimer) rates.
    pub low_rate_kbps: f64,
    pub high_rate_kbps: f64,
    /// Â at the previous decision.
    pub previous_estimate: Option<f64>,
    /// Binary-search iterations since the last restart.
    pub iterations: u32,
    slow_start_doubled: bool,
    pub restarts: u32,
    /// Slow start never doubles the rate beyond this (the PHY's data rate;
    /// infinite unless set).
    pub max_rate_kbps: f64,
}

impl BinarySearchRateControl {
    pub fn new(config: RateControlConfig, packet_bytes: u32) -> Self {
        let n0 = config.window_samples as usize;
        BinarySearchRateControl {
            config,
            packet_bits: packet_bytes as f64 * 8.0,
            apr: MovingAverage::new(n0),
            mst_s: MovingAverage::new(n0),
            fresh_samples: 0,
            settling: 0,
            pending: (0, 0, 0.0),
            phase: Phase::Aggressive,
            high_apr: 0.0,
            high_mst_s: 0.0,
            rate_kbps: None,
            low_rate_kbps: 0.0,
            high_rate_kbps: 0.0,
            previous_estimate: None,
            iterations: 0,
            restarts: 0,
            slow_start_doubled: false,
            max_rate_kbps: f64::INFINITY,
        }
    }

    /// Start in step 3 with given HAPR and bounds (for tests and for
    /// experiments that skip steps 1-2, as Table 1 does).
    pub fn in_binary_search(config: RateControlConfig, packet_bytes: u32, high_apr: f64, low_rate_kbps: f64, high_rate_kbps: f64) -> Self {
        let mut rc = Self::new(config, packet_bytes);
        rc.phase = Phase::BinarySearch;
        rc.high_apr = high_apr;
        rc.low_rate_kbps = low_rate_kbps;
        rc.high_rate_kbps = high_rate_kbps;
        rc.rate_kbps = Some(high_rate_kbps);
        rc
    }

    /// The APR estimate Â(n).
    pub fn apr_estimate(&self) -> f64 {
        self.apr.mean()
    }

    /// The MST estimate T̂s(n), seconds.
    pub fn mst_estimate_s(&self) -> f64 {
        self.mst_s.mean()
    }

    /// Sending interval for the current rate (Stimer, eq. 1); None: send by buffer.
    pub fn interval_s(&self) -> Option<f64> {
        self.rate_kbps.map(|r| self.packet_bits / (r * 1e3))
    }

    /// One packet finished MAC service at the source: its RTS attempts and
    /// MAC sending time (A(n) and T_s(n) are means over
    /// `frames_per_sample` such packets). Returns true when the rate changed.
    pub fn on_sample(&mut self, rts_attempts: u32, mac_sending_time_s: f64) -> bool {
        if self.settling > 0 {
            self.settling -= 1;
            return false;
        }
        let (frames, attempts, seconds) = &mut self.pending;
        *frames += 1;
        *attempts += rts_attempts as u64;
        *seconds += mac_sending_time_s;
        if *frames < self.config.frames_per_sample {
            return false;
        }
        let n = *frames as f64;
        let (apr_sample, mst_sample) = (*attempts as f64 / n, *seconds / n);
        self.pending = (0, 0, 0.0);
        self.apr.push(apr_sample);
        self.mst_s.push(mst_sample);
        self.fresh_samples += 1;
        if self.fresh_samples < self.config.window_samples || !self.apr.is_full() {
            return false;
        }
        self.fresh_samples = 0;
        let before = self.rate_kbps;
        self.decide(self.apr.mean());
        let changed = self.rate_kbps != before;
        if changed {
            self.settling = self.config.settle_frames;
        }
        changed
    }

    /// One decision on a fresh window's estimate.
    fn decide(&mut self, estimate: f64) {
        let c = &self.config;
        let levels = self.high_apr + c.low_apr;
        let changed = self
            .previous_estimate
            .is_some_and(|prev| estimate > (1.0 + c.restart_change) * prev || estimate < (1.0 - c.restart_change) * prev);
        match self.phase {
            Phase::Aggressive => {
                self.high_apr = estimate;
                self.high_mst_s = self.mst_s.mean();
                // Step 2 starts at Stimer = HMST: the low bound of the range.
                let rate = self.packet_bits / self.high_mst_s.max(1e-9) / 1e3;
                self.low_rate_kbps = rate;
                self.rate_kbps = Some(rate);
                self.slow_start_doubled = false;
                self.phase = Phase::SlowStart;
            }
            Phase::SlowStart => {
                let rate = self.rate_kbps.expect("slow start has a rate");
                let below_switching = estimate < 0.5 * levels || self.at_low_level(estimate);
                if below_switching && rate * 2.0 > self.max_rate_kbps {
                    // Decision: no faster than the PHY (see the module doc).
                    self.phase = Phase::Steady;
                } else if below_switching {
                    // This rate is below the switching point: the search's low bound.
                    self.low_rate_kbps = rate;
                    self.slow_start_doubled = true;
                    self.rate_kbps = Some(rate * 2.0);
                } else {
                    if !self.slow_start_doubled {
                        // Already too high at packet size / HMST: search from 0.
                        self.low_rate_kbps = 0.0;
                    }
                    self.high_rate_kbps = rate;
                    self.phase = Phase::BinarySearch;
                    self.iterations = 0;
                    self.search_step(estimate);
                }
            }
            Phase::BinarySearch => {
                if c.restart_during_search && changed {
                    self.restart();
                    return;
                }
                self.search_step(estimate);
            }
            Phase::Steady => {
                if changed {
                    self.restart();
                    return;
                }
            }
        }
        self.previous_estimate = Some(estimate);
    }

    /// One iteration of step 3 at the current rate.
    fn search_step(&mut self, estimate: f64) {
        let c = &self.config;
        let levels = self.high_apr + c.low_apr;
        let rate = self.rate_kbps.expect("the search has a rate");
        self.iterations += 1;
        if estimate < c.too_low_fraction * levels || self.at_low_level(estimate) {
            self.low_rate_kbps = rate;
            self.rate_kbps = Some(0.5 * (rate + self.high_rate_kbps));
        } else if estimate > c.too_high_fraction * levels {
            self.high_rate_kbps = rate;
            self.rate_kbps = Some(0.5 * (rate + self.low_rate_kbps));
        } else {
            self.phase = Phase::Steady;
            return;
        }
        if (self.high_rate_kbps - self.low_rate_kbps).abs() <= c.resolution_kbps {
            self.phase = Phase::Steady;
        }
    }

    /// Â within `low_level_margin` of LAPR: no contention to speak of.
    fn at_low_level(&self, estimate: f64) -> bool {
        let c = &self.config;
        c.low_level_margin > 0.0 && estimate < c.low_apr + c.low_level_margin
    }

    /// Back to step 1: buffer-based sending to measure HAPR again.
    fn restart(&mut self) {
        self.phase = Phase::Aggressive;
        self.rate_kbps = None;
        self.previous_estimate = None;
        self.apr.clear();
        self.mst_s.clear();
        self.fresh_samples = 0;
        self.pending = (0, 0, 0.0);
        self.restarts += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_the_phy_rate() {
        // One hop: APR stays at 1.0, below (HAPR + LAPR) / 2 = 1.1 with HAPR
        // 1.2; MST 5 ms: 819 -> 1638 kbps, then no doubling past 2 Mbps.
        let config = RateControlConfig { frames_per_sample: 1, ..Default::default() };
        let mut rc = BinarySearchRateControl::new(config, 512);
        rc.max_rate_kbps = 2000.0;
        for k in 0..10 {
            rc.on_sample(if k < 2 { 2 } else { 1 }, 0.005);
        }
        assert_eq!(rc.phase, Phase::SlowStart);
        for _ in 0..200 {
            rc.on_sample(1, 0.005);
        }
        assert_eq!(rc.phase, Phase::Steady);
        let rate = rc.rate_kbps.unwrap();
        assert!(rate > 1000.0 && rate <= 2000.0, "{rate}");
    }

    #[test]
    fn a_sample_is_the_mean_of_ten_frames() {
        let mut rc = BinarySearchRateControl::new(RateControlConfig::default(), 512);
        for attempts in [1, 1, 1, 1, 1, 2, 2, 2, 3, 6] {
            rc.on_sample(attempts, 0.010);
        }
        // One sample so far: A = 20 / 10 = 2.0, T_s = 10 ms.
        assert!((rc.apr_estimate() - 2.0).abs() < 1e-12);
        assert!((rc.mst_estimate_s() - 0.010).abs() < 1e-12);
        assert_eq!(rc.phase, Phase::Aggressive, "a decision needs n0 = 10 samples");
        for _ in 0..90 {
            rc.on_sample(3, 0.020);
        }
        // Ten samples: (2.0 + 9 x 3.0) / 10 = 2.9; step 1 is over.
        assert_eq!(rc.phase, Phase::SlowStart);
        assert!((rc.high_apr - 2.9).abs() < 1e-12);
        assert!((rc.high_mst_s - 0.019).abs() < 1e-12);
    }

    fn feed_window(rc: &mut BinarySearchRateControl, apr: f64) {
        for _ in 0..rc.config.window_samples {
            // A scripted APR oracle: the window's estimate is `apr`.
            rc.apr.push(apr);
            rc.mst_s.push(0.01);
            rc.fresh_samples += 1;
        }
        rc.fresh_samples = 0;
        rc.decide(rc.apr.mean());
    }

    #[test]
    fn table_1_sequence_stops_in_the_sixth_iteration() {
        // Seed 000 Table 1: HAPR = 3.3, LAPR = 1, range 0-240 kbps; the APR
        // oracle answers 2.7, 1.2, 3.3, 3.3, 1.2, 1.7 (thresholds 1.29 and 2.15).
        let mut rc = BinarySearchRateControl::in_binary_search(RateControlConfig::default(), 512, 3.3, 0.0, 240.0);
        let answers = [2.7, 1.2, 3.3, 3.3, 1.2, 1.7];
        let mut rates = vec![rc.rate_kbps.unwrap()];
        for (i, &apr) in answers.iter().enumerate() {
            assert_eq!(rc.phase, Phase::BinarySearch, "still searching before iteration {i}");
            feed_window(&mut rc, apr);
            rates.push(rc.rate_kbps.unwrap());
        }
        assert_eq!(rates[..6], [240.0, 120.0, 180.0, 150.0, 135.0, 142.5]);
        assert_eq!(rc.phase, Phase::Steady);
        assert_eq!(rc.iterations, 6);
        assert_eq!(rc.rate_kbps, Some(142.5), "the stopping iteration keeps its rate");
    }

    #[test]
    fn an_estimate_at_the_low_level_is_too_low_whatever_hapr() {
        // A contention-free path: aggressive sending only reached HAPR 1.1,
        // so the paper's band is [0.63, 1.05] and APR 1.08 reads "too high".
        let literal = RateControlConfig { low_level_margin: 0.0, ..Default::default() };
        let mut rc = BinarySearchRateControl::in_binary_search(literal, 512, 1.1, 0.0, 800.0);
        feed_window(&mut rc, 1.08);
        feed_window(&mut rc, 1.08);
        assert_eq!(rc.rate_kbps, Some(200.0), "the literal band halves a rate that causes no contention");
        // Within 0.15 of LAPR the estimate is at the low level: search upward.
        let mut rc = BinarySearchRateControl::in_binary_search(RateControlConfig::default(), 512, 1.1, 0.0, 800.0);
        feed_window(&mut rc, 1.08);
        assert_eq!(rc.phase, Phase::Steady, "no room above the upper bound: step 4 at it");
        assert_eq!(rc.rate_kbps, Some(800.0));
        let mut rc = BinarySearchRateControl::in_binary_search(RateControlConfig::default(), 512, 1.1, 100.0, 800.0);
        rc.rate_kbps = Some(200.0);
        feed_window(&mut rc, 1.08);
        assert_eq!(rc.rate_kbps, Some(500.0), "too low: halfway up to the high bound");
        // Above LAPR + 0.15 the paper's band decides: 1.2 at HAPR 1.1 is too high.
        let mut rc = BinarySearchRateControl::in_binary_search(RateControlConfig::default(), 512, 1.1, 0.0, 800.0);
        feed_window(&mut rc, 1.2);
        assert_eq!(rc.rate_kbps, Some(400.0));
    }

    #[test]
    fn moving_average_matches_brute_force() {
        let mut ma = MovingAverage::new(10);
        let samples: Vec<f64> = (0..200).map(|i| ((i * 7919) % 13) as f64 + 0.25 * (i % 3) as f64).collect();
        for (i, &s) in samples.iter().enumerate() {
            ma.push(s);
            let from = (i + 1).saturating_sub(10);
            let window = &samples[from..=i];
            let brute = window.iter().sum::<f64>() / window.len() as f64;
            assert!((ma.mean() - brute).abs() < 1e-9, "sample {i}: {} vs {brute}", ma.mean());
        }
    }

    #[test]
    fn steady_state_restarts_on_a_twenty_percent_jump() {
        let mut rc = BinarySearchRateControl::in_binary_search(RateControlConfig::default(), 512, 3.3, 0.0, 240.0);
        // 240 -> 120 -> 180 -> 150 -> 135 -> 142.5 (steady at 1.7).
        for apr in [2.7, 1.2, 3.3, 3.3, 1.2, 1.7] {
            feed_window(&mut rc, apr);
        }
        assert_eq!(rc.phase, Phase::Steady);
        feed_window(&mut rc, 2.0); // +17.6 %: keep
        assert_eq!(rc.phase, Phase::Steady);
        assert_eq!(rc.rate_kbps, Some(142.5));
        feed_window(&mut rc, 2.5); // +25 % over 2.0: restart at step 1
        assert_eq!(rc.phase, Phase::Aggressive);
        assert_eq!(rc.rate_kbps, None, "step 1 sends by buffer");
        assert_eq!(rc.restarts, 1);
        // And a 20 % drop restarts too.
        let mut rc = BinarySearchRateControl::in_binary_search(RateControlConfig::default(), 512, 3.3, 0.0, 240.0);
        for apr in [2.7, 1.2, 3.3, 3.3, 1.2, 1.7, 1.3] {
            feed_window(&mut rc, apr);
        }
        assert_eq!(rc.phase, Phase::Aggressive);
    }

    #[test]
    fn frames_right_after_a_rate_change_are_not_sampled() {
        // One frame per sample, n0 = 10, 20 frames of settling. Step 1: ten
        // frames of 3 attempts and 20 ms: HAPR 3, slow start at 204.8 kbps.
        let config = RateControlConfig { frames_per_sample: 1, settle_frames: 20, ..RateControlConfig::default() };
        let mut rc = BinarySearchRateControl::new(config, 512);
        for _ in 0..10 {
            rc.on_sample(3, 0.020);
        }
        assert_eq!(rc.phase, Phase::SlowStart);
        let start = rc.rate_kbps.unwrap();
        assert!((start - 204.8).abs() < 1e-9);
        // The queues of step 1 drain: 20 more frames at 3 attempts. Were
        // they sampled, the estimate 3.0 >= (3 + 1) / 2 would end slow start.
        for _ in 0..20 {
            assert!(!rc.on_sample(3, 0.020));
        }
        assert_eq!((rc.phase, rc.rate_kbps), (Phase::SlowStart, Some(start)));
        // Ten frames at the new rate, one attempt each: too low, double.
        for _ in 0..9 {
            assert!(!rc.on_sample(1, 0.005));
        }
        assert!(rc.on_sample(1, 0.005));
        assert_eq!(rc.rate_kbps, Some(2.0 * start));
        assert!((rc.apr_estimate() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn aggressive_then_slow_start_then_search_from_real_samples() {
        // 512 B packets. Step 1 measures HAPR = 3 and HMST = 20 ms (a low
        // bound of 4096 bit / 20 ms = 204.8 kbps). An APR oracle answers 1.1
        // up to 500 kbps and 3.0 above, so slow start doubles 204.8 -> 409.6
        // -> 819.2 (APR 3.0 >= 2.0: high bound; 409.6 the low bound); the
        // search then goes 614.4 (3.0), 512 (3.0), 460.8 (1.1), 486.4, 499.2
        // (1.1), 505.6 (3.0), 502.4 (3.0), 500.8 (3.0), 500: bounds within
        // 1 kbps, stop. The oracle has no transients: no settling.
        let config = RateControlConfig { frames_per_sample: 1, settle_frames: 0, ..RateControlConfig::default() };
        let mut rc = BinarySearchRateControl::new(config, 512);
        let attempts_for = |rate: Option<f64>| -> [u32; 10] {
            match rate {
                None => [3; 10],
                Some(r) if r > 500.0 => [3; 10],
                // Mean 1.1: nine single attempts and one double.
                Some(_) => [1, 1, 1, 1, 1, 1, 1, 1, 1, 2],
            }
        };
        let mut rates = Vec::new();
        for _ in 0..40 {
            for a in attempts_for(rc.rate_kbps) {
                rc.on_sample(a, 0.020);
            }
            rates.push(rc.rate_kbps);
            if rc.phase == Phase::Steady {
                break;
            }
        }
        assert_eq!(rc.high_apr, 3.0);
        assert!((rc.high_mst_s - 0.020).abs() < 1e-12);
        let r = rates.iter().map(|r| r.unwrap_or(0.0)).collect::<Vec<_>>();
        assert!((r[0] - 204.8).abs() < 1e-6, "{r:?}");
        assert!((r[1] - 409.6).abs() < 1e-6, "{r:?}");
        assert!((r[2] - 819.2).abs() < 1e-6, "{r:?}");
        assert!((r[3] - 614.4).abs() < 1e-6, "{r:?}");
        // The search settles on the 500 kbps step within 1 kbps.
        assert_eq!(rc.phase, Phase::Steady);
        let settled = rc.rate_kbps.unwrap();
        assert!((settled - 500.0).abs() < 1.0, "settled at {settled} ({r:?})");
    }
}
