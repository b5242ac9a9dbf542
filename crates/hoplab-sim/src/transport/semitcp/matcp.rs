//! Source rate control as the public code of the rate-control paper runs
//! it: `MaTcpAgent::AdjustSendRate` of GitHub mahaicheng/semitcprc
//! (ns-2.35, `tcp/matcp.cc:167-340`, pacing tick `send_timeout` 414-473,
//! samples from its MAC, `mac/mac-802_11.cc:1086-1093`, 2113-2158),
//! chosen by `[semitcp.rate_control] algorithm = "matcp"`. It differs from
//! the paper's Algorithm 1 ([`super::rate_control`]) in every step:
//!
//! - **Sample**: every `sample_frames` (10) DATA frames its MAC sent and
//!   saw acknowledged, the ratio RTS sent / ACKed frames over them (the
//!   RTSs of packets dropped at the retry limit count too). Each decision
//!   is on **that one sample**, not on a moving average.
//! - **Start** (state SEMI_TCP, the buffer-based semi-TCP; one sample):
//!   the peak rate is packet size / the **smallest** MAC sending time seen
//!   in the run (`minSendTime_`, never reset); the rate starts at a
//!   quarter of it (`start_fraction_of_peak`), and the band is
//!   [`band_low_fraction`, `band_high_fraction`] of (r - 1) above 1, r the
//!   sample, raised to [1.1, 1.4] when its low edge is below 1.1.
//! - **Slow start**: a sample below the band doubles the rate (at most the
//!   peak), one above it starts the search in [0, rate] at half the rate.
//! - **Search**: below the band, the rate moves halfway up to the top
//!   bound, above it halfway down to the bottom bound.
//! - **Settle** (state STABLE) when >= `stable_in_band` (5) of the last
//!   `history_samples` (10) samples lie in the band (during slow start or
//!   the search); **restart** (back to SEMI_TCP) when >= `restart_out_of_band`
//!   (8) of them lie on one side (in the search only when the rate is also
//!   within `resolution_kbps` of the bound it moves toward).
//! - **Pacing**: each tick of the sending timer sends one segment, unless
//!   the source node still holds a data packet (in its interface queue, in
//!   service or waiting for a route; R's `TotalCongested`): that tick is
//!   lost. When >= `blocked_ticks_halve` (5) of the last `tick_history`
//!   (10) ticks were lost, the next sample halves the rate and searches
//!   [0, rate] (`hit_the_max_send_rate`).
//!
//! **Decisions**: matcp keeps its history in `static` variables shared by
//! every flow of the simulation (a bug); here each flow has its own. Its
//! tick history is not cleared at a restart (as in matcp). The peak uses
//! the flow's packet size where matcp hard-codes 512 B (its runs use 512
//! B). matcp's MST runs from the last RTS creation of the packet
//! (`sendRTS`: head of queue, or a DATA retry) to its ACK; hoplab's is
//! head of queue to ACK: the same for the smallest, which has no retry.

use crate::config::{at_least, count_in, join, positive, ConfigError, MAX_SAMPLES};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[semitcp.rate_control.matcp]`: the constants of matcp's rate control
/// (`algorithm = "matcp"`), with mahaicheng/semitcprc's values as defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MatcpConfig {
    /// ACKed DATA frames per sample of the RTS/DATA ratio (`SAMPLE_COUNT`
    /// 10, `mac/mac-802_11.cc:66`, used at 2145).
    pub sample_frames: u32,
    /// Samples kept to count those in, below and above the band
    /// (`SAMPLE_COUNT` 10, `tcp/matcp.cc:53`, used at 186).
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, { crate::config::MAX_SAMPLES }>")]
    pub history_samples: u32,
    /// Samples in the band (of `history_samples`) that settle the rate
    /// (`STABLE_THRESHOLD` 5, `tcp/matcp.cc:52`).
    pub stable_in_band: u32,
    /// Samples on one side of the band (of `history_samples`) that restart
    /// the control (`RESTART_THRESHOLD` 8, `tcp/matcp.cc:51`).
    pub restart_out_of_band: u32,
    /// The band's low edge: 1 + this fraction of (r - 1), r the first
    /// sample (`MIN_RATIO` 0.3, `tcp/matcp.cc:56`, used at 244).
    pub band_low_fraction: f64,
    /// The band's high edge: 1 + this fraction of (r - 1) (`MAX_RATIO` 0.5,
    /// `tcp/matcp.cc:55`, used at 243).
    pub band_high_fraction: f64,
    /// A band whose low edge falls below this becomes
    /// [`band_floor_low`, `band_floor_high`] (1.1, `tcp/matcp.cc:246-250`).
    pub band_floor_low: f64,
    /// The high edge of that band (1.4, `tcp/matcp.cc:249`).
    pub band_floor_high: f64,
    /// The first rate, as a fraction of the peak rate (packet size / the
    /// smallest MAC sending time) (1/4, `tcp/matcp.cc:241-242`).
    pub start_fraction_of_peak: f64,
    /// Sending-timer ticks kept to count the lost ones (`STATUS_SIZE` 10,
    /// `tcp/matcp.cc:417`).
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, { crate::config::MAX_SAMPLES }>")]
    pub tick_history: u32,
    /// Lost ticks (of `tick_history`) that halve the rate at the next
    /// sample (`CAN_NOT_SEND_THRESHOLD` 5, `tcp/matcp.cc:418`, 453-460, 229-235).
    pub blocked_ticks_halve: u32,
    /// In the search, a rate this close to the bound it moves toward may
    /// restart, kb/s (`elips` 1000 b/s, `tcp/matcp.cc:54`).
    pub resolution_kbps: f64,
}

impl Default for MatcpConfig {
    fn default() -> Self {
        MatcpConfig {
            sample_frames: 10,
            history_samples: 10,
            stable_in_band: 5,
            restart_out_of_band: 8,
            band_low_fraction: 0.3,
            band_high_fraction: 0.5,
            band_floor_low: 1.1,
            band_floor_high: 1.4,
            start_fraction_of_peak: 0.25,
            tick_history: 10,
            blocked_ticks_halve: 5,
            resolution_kbps: 1.0,
        }
    }
}

impl MatcpConfig {
    /// Range checks; errors name `<prefix>.<key>`.
    pub fn validate(&self, prefix: &str) -> Result<(), ConfigError> {
        let key = |k: &str| join(prefix, k);
        at_least(&key("sample_frames"), self.sample_frames, 1)?;
        count_in(&key("history_samples"), self.history_samples, 1, MAX_SAMPLES)?;
        count_in(&key("tick_history"), self.tick_history, 1, MAX_SAMPLES)?;
        positive(&key("band_low_fraction"), self.band_low_fraction)?;
        if self.band_high_fraction <= self.band_low_fraction {
            return Err(ConfigError::new(
                key("band_high_fraction"),
                format!("must be above band_low_fraction ({})", self.band_low_fraction),
            ));
        }
        positive(&key("band_floor_low"), self.band_floor_low)?;
        if self.band_floor_high <= self.band_floor_low {
            return Err(ConfigError::new(key("band_floor_high"), format!("must be above band_floor_low ({})", self.band_floor_low)));
        }
        positive(&key("start_fraction_of_peak"), self.start_fraction_of_peak)?;
        positive(&key("resolution_kbps"), self.resolution_kbps)
    }
}

/// matcp's states (`TCPStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcpState {
    /// Buffer-based semi-TCP, until the next sample.
    SemiTcp,
    SlowStart,
    Searching,
    Stable,
}

impl MatcpState {
    /// Numbering for time series (as Algorithm 1's steps 1-4).
    pub fn step(self) -> u32 {
        match self {
            MatcpState::SemiTcp => 1,
            MatcpState::SlowStart => 2,
            MatcpState::Searching => 3,
            MatcpState::Stable => 4,
        }
    }
}

/// Where a sample lies against the band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Below,
    Inner,
    Above,
}

/// One flow's matcp state.
#[derive(Debug, Clone)]
pub struct MatcpRateControl {
    config: MatcpConfig,
    packet_bits: f64,
    pub state: MatcpState,
    /// The frames of the sample being gathered: (ACKed frames, RTS sent).
    pending: (u32, u64),
    /// The smallest MAC sending time of an ACKed frame, seconds.
    pub min_mst_s: f64,
    /// The last sample's RTS/DATA ratio.
    pub last_ratio: f64,
    history: VecDeque<Side>,
    ticks: VecDeque<bool>,
    /// Whether enough recent ticks were lost (`hit_the_max_send_rate`).
    pub hit_max: bool,
    pub band_low: f64,
    pub band_high: f64,
    /// The rates in kb/s: current, peak, and the search's bounds.
    pub rate_kbps: f64,
    pub max_rate_kbps: f64,
    pub top_kbps: f64,
    pub bottom_kbps: f64,
    pub restarts: u32,
}

impl MatcpRateControl {
    pub fn new(config: MatcpConfig, packet_bytes: u32) -> Self {
        MatcpRateControl {
            config,
            packet_bits: packet_bytes as f64 * 8.0,
            state: MatcpState::SemiTcp,
            pending: (0, 0),
            min_mst_s: f64::INFINITY,
            last_ratio: 0.0,
            history: VecDeque::new(),
            ticks: VecDeque::new(),
            hit_max: false,
            band_low: 0.0,
            band_high: 0.0,
            rate_kbps: 0.0,
            max_rate_kbps: 0.0,
            top_kbps: 0.0,
            bottom_kbps: 0.0,
            restarts: 0,
        }
    }

    /// The source's rate; None while sending by buffer (SEMI_TCP).
    pub fn rate(&self) -> Option<f64> {
        (self.state != MatcpState::SemiTcp).then_some(self.rate_kbps)
    }

    /// The sending timer's period (`ConvertToTimeInterval`, 8 size / rate).
    pub fn interval_s(&self) -> Option<f64> {
        self.rate().map(|r| self.packet_bits / (r * 1e3))
    }

    /// A packet of the flow finished service at the source's MAC after
    /// `rts_attempts` RTSs; `acknowledged` with its MAC sending time.
    /// Returns true when the rate (or the state) changed.
    pub fn on_tx_done(&mut self, rts_attempts: u32, acknowledged: bool, service_time_s: f64) -> bool {
        self.pending.1 += rts_attempts as u64;
        if !acknowledged {
            return false;
        }
        self.min_mst_s = self.min_mst_s.min(service_time_s);
        self.pending.0 += 1;
        if self.pending.0 < self.config.sample_frames {
            return false;
        }
        let ratio = self.pending.1 as f64 / self.pending.0 as f64;
        self.pending = (0, 0);
        let before = (self.state, self.rate_kbps);
        self.on_sample(ratio);
        (self.state, self.rate_kbps) != before
    }

    /// A tick of the sending timer; `blocked`: the source node still holds
    /// a data packet (the tick is lost). Returns whether it may send.
    pub fn on_tick(&mut self, blocked: bool) -> bool {
        self.ticks.push_back(blocked);
        if self.ticks.len() > self.config.tick_history as usize {
            self.ticks.pop_front();
        }
        self.hit_max = self.ticks.iter().filter(|&&b| b).count() >= self.config.blocked_ticks_halve as usize;
        !blocked
    }

    fn side(&self, ratio: f64) -> Side {
        if ratio < self.band_low {
            Side::Below
        } else if ratio < self.band_high {
            Side::Inner
        } else {
            Side::Above
        }
    }

    fn count(&self, side: Side) -> u32 {
        self.history.iter().filter(|&&s| s == side).count() as u32
    }

    /// One sample of the RTS/DATA ratio (`AdjustSendRate`).
    pub fn on_sample(&mut self, ratio: f64) {
        let c = self.config.clone();
        self.last_ratio = ratio;
        let side = self.side(ratio);
        self.history.push_back(side);
        if self.history.len() > c.history_samples as usize {
            self.history.pop_front();
        }
        let (below, inner, above) = (self.count(Side::Below), self.count(Side::Inner), self.count(Side::Above));
        let one_sided = below >= c.restart_out_of_band || above >= c.restart_out_of_band;
        if self.hit_max && self.state != MatcpState::SemiTcp {
            // matcp.cc:229-235: too many lost ticks, search below.
            self.state = MatcpState::Searching;
            self.top_kbps = self.rate_kbps;
            self.bottom_kbps = 0.0;
            self.rate_kbps /= 2.0;
            return;
        }
        match self.state {
            MatcpState::SemiTcp => {
                self.state = MatcpState::SlowStart;
                self.max_rate_kbps = self.packet_bits / self.min_mst_s / 1e3;
                self.rate_kbps = self.max_rate_kbps * c.start_fraction_of_peak;
                self.band_high = (ratio - 1.0) * c.band_high_fraction + 1.0;
                self.band_low = (ratio - 1.0) * c.band_low_fraction + 1.0;
                if self.band_low < c.band_floor_low {
                    self.band_low = c.band_floor_low;
                    self.band_high = c.band_floor_high;
                }
                self.history.clear();
            }
            MatcpState::SlowStart => {
                if inner >= c.stable_in_band {
                    self.state = MatcpState::Stable;
                } else if ratio < self.band_low {
                    self.rate_kbps = (2.0 * self.rate_kbps).min(self.max_rate_kbps);
                } else if ratio > self.band_high {
                    self.state = MatcpState::Searching;
                    self.top_kbps = self.rate_kbps;
                    self.bottom_kbps = 0.0;
                    self.rate_kbps /= 2.0;
                }
            }
            MatcpState::Searching => {
                if inner >= c.stable_in_band {
                    self.state = MatcpState::Stable;
                } else if ratio < self.band_low {
                    if one_sided && (self.rate_kbps - self.top_kbps).abs() < c.resolution_kbps {
                        self.restart();
                    } else {
                        self.bottom_kbps = self.rate_kbps;
                        self.rate_kbps = (0.5 * (self.rate_kbps + self.top_kbps)).min(self.max_rate_kbps);
                    }
                } else if ratio > self.band_high {
                    if one_sided && (self.rate_kbps - self.bottom_kbps).abs() < c.resolution_kbps {
                        self.restart();
                    } else {
                        self.top_kbps = self.rate_kbps.min(self.max_rate_kbps);
                        self.rate_kbps = 0.5 * (self.rate_kbps + self.bottom_kbps);
                    }
                }
            }
            MatcpState::Stable => {
                if one_sided {
                    self.restart();
                }
            }
        }
    }

    /// Back to buffer-based semi-TCP (`ConvertToSemiTCPStatus`).
    fn restart(&mut self) {
        self.state = MatcpState::SemiTcp;
        self.restarts += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest MST of the tests: 4096 bit at 500 kb/s (peak 500 kb/s).
    const PEAK_MST_MS: f64 = 4096.0 / 500e3 * 1e3;

    fn rc() -> MatcpRateControl {
        MatcpRateControl::new(MatcpConfig::default(), 512)
    }

    /// Ten ACKed frames with `rts` RTSs in all and MST `mst_ms` each.
    fn sample(rc: &mut MatcpRateControl, rts: u32, mst_ms: f64) -> bool {
        let mut changed = false;
        for i in 0..10 {
            let attempts = rts / 10 + u32::from(i < rts % 10);
            changed |= rc.on_tx_done(attempts, true, mst_ms / 1e3);
        }
        changed
    }

    #[track_caller]
    fn assert_close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-9 * want.abs().max(1.0), "{got} != {want}");
    }

    /// A source started with a first sample of ratio 3.0 and the peak MST:
    /// band [1.6, 2.0), peak 500 kb/s, rate 125 kb/s, in slow start.
    fn started() -> MatcpRateControl {
        let mut rc = rc();
        sample(&mut rc, 30, PEAK_MST_MS);
        rc
    }

    #[test]
    fn a_sample_is_ten_acked_frames_and_drops_add_their_rts_only() {
        let mut rc = rc();
        // Nine ACKed frames with one RTS each, a drop after 7 RTSs, then the tenth.
        for _ in 0..9 {
            assert!(!rc.on_tx_done(1, true, 0.004));
        }
        assert!(!rc.on_tx_done(7, false, 0.100));
        assert_eq!(rc.state, MatcpState::SemiTcp);
        assert!(rc.on_tx_done(1, true, 0.002));
        // (9 + 7 + 1) / 10 = 1.7; the smallest MST of an ACKed frame: 2 ms.
        assert_close(rc.last_ratio, 1.7);
        assert_close(rc.min_mst_s, 0.002);
        assert_eq!(rc.state, MatcpState::SlowStart);
    }

    #[test]
    fn start_at_a_quarter_of_the_peak_with_the_band_of_the_first_sample() {
        let rc = started();
        assert_eq!(rc.state, MatcpState::SlowStart);
        assert_close(rc.max_rate_kbps, 500.0);
        assert_close(rc.rate_kbps, 125.0);
        // Band: 1 + 0.3 x (3 - 1) = 1.6 to 1 + 0.5 x (3 - 1) = 2.0.
        assert_close(rc.band_low, 1.6);
        assert_close(rc.band_high, 2.0);
        assert_close(rc.interval_s().unwrap(), 4096.0 / 125e3);
        // A first sample of 1.2 gives a band below 1.1: [1.1, 1.4].
        let mut low = self::rc();
        sample(&mut low, 12, 5.0);
        assert_eq!((low.band_low, low.band_high), (1.1, 1.4));
    }

    #[test]
    fn slow_start_doubles_to_the_peak_then_searches_and_settles() {
        let mut rc = started();
        // 1.0 < 1.6: double 125 -> 250 -> 500, then capped at the peak.
        sample(&mut rc, 10, 9.0);
        assert_close(rc.rate_kbps, 250.0);
        sample(&mut rc, 10, 9.0);
        assert_close(rc.rate_kbps, 500.0);
        sample(&mut rc, 10, 9.0);
        assert_eq!(rc.state, MatcpState::SlowStart);
        assert_close(rc.rate_kbps, 500.0);
        // 3.0 > 2.0: search [0, 500] from 250.
        sample(&mut rc, 30, 9.0);
        assert_eq!(rc.state, MatcpState::Searching);
        assert_close(rc.rate_kbps, 250.0);
        assert_eq!(rc.bottom_kbps, 0.0);
        assert_close(rc.top_kbps, 500.0);
        // Below: halfway up (375, bottom 250); above: halfway down (312.5, top 375).
        sample(&mut rc, 10, 9.0);
        assert_close(rc.rate_kbps, 375.0);
        assert_close(rc.bottom_kbps, 250.0);
        sample(&mut rc, 30, 9.0);
        assert_close(rc.rate_kbps, 312.5);
        assert_close(rc.top_kbps, 375.0);
        // A sample in the band (1.8) changes nothing by itself; the fifth
        // in the band of the last ten settles (since slow start: 1.0, 1.0,
        // 1.0, 3.0, 1.0, 3.0, then 1.8 five times).
        for k in 0..4 {
            sample(&mut rc, 18, 9.0);
            assert_eq!(rc.state, MatcpState::Searching, "{k}");
        }
        assert_eq!(rc.count(Side::Inner), 4);
        sample(&mut rc, 18, 9.0);
        assert_eq!(rc.state, MatcpState::Stable);
        assert_close(rc.rate_kbps, 312.5);
    }

    #[test]
    fn stable_restarts_when_eight_of_ten_lie_on_one_side() {
        let mut rc = started();
        for _ in 0..5 {
            sample(&mut rc, 18, 9.0);
        }
        assert_eq!(rc.state, MatcpState::Stable, "five in the band settle slow start too");
        // Seven samples above: 7 above, 3 in the band of the last ten: keep.
        for _ in 0..7 {
            sample(&mut rc, 25, 9.0);
        }
        assert_eq!(rc.state, MatcpState::Stable);
        // The eighth: restart, buffer-based until the next sample.
        sample(&mut rc, 25, 9.0);
        assert_eq!((rc.state, rc.rate(), rc.restarts), (MatcpState::SemiTcp, None, 1));
        // The next sample starts again: its band from that sample (4.0:
        // [1.9, 2.5)), the peak still from the run's smallest MST.
        sample(&mut rc, 40, 20.0);
        assert_eq!(rc.state, MatcpState::SlowStart);
        assert_close(rc.max_rate_kbps, 500.0);
        assert_close(rc.band_low, 1.9);
        assert_close(rc.band_high, 2.5);
    }

    #[test]
    fn searching_restarts_only_next_to_the_bound_it_moves_toward() {
        let mut rc = started();
        // Eight samples below the band: 125 -> 250 -> 500, then 500 (slow
        // start never restarts).
        for _ in 0..8 {
            sample(&mut rc, 10, 9.0);
        }
        assert_eq!(rc.state, MatcpState::SlowStart);
        // Above: search [0, 500] at 250.
        sample(&mut rc, 30, 9.0);
        assert_close(rc.rate_kbps, 250.0);
        // Below again: 9 of the last 10 below, but 250 is far from the top
        // (500): no restart, halfway up. Then 437.5, 468.75, ... toward 500.
        let mut rates = vec![];
        for _ in 0..8 {
            sample(&mut rc, 10, 9.0);
            assert_eq!(rc.state, MatcpState::Searching);
            rates.push(rc.rate_kbps);
        }
        let want = [375.0, 437.5, 468.75, 484.375, 492.1875, 496.09375, 498.046875, 499.0234375];
        for (got, want) in rates.iter().zip(want) {
            assert_close(*got, want);
        }
        // 499.02 is within 1 kb/s of the top: the next sample below restarts.
        sample(&mut rc, 10, 9.0);
        assert_eq!((rc.state, rc.restarts), (MatcpState::SemiTcp, 1));
    }

    #[test]
    fn half_the_recent_ticks_lost_halve_the_rate() {
        let mut rc = started();
        // Ticks: 4 lost of 10: keep; the fifth lost: hit the max.
        for blocked in [false, true, false, true, false, true, false, true, false, false] {
            assert_eq!(rc.on_tick(blocked), !blocked, "a lost tick sends nothing");
        }
        assert!(!rc.hit_max);
        rc.on_tick(true);
        assert!(rc.hit_max, "5 of the last 10 lost");
        // The next sample halves the rate whatever it says, searching [0, 125].
        sample(&mut rc, 10, 9.0);
        assert_eq!(rc.state, MatcpState::Searching);
        assert_close(rc.rate_kbps, 62.5);
        assert_close(rc.top_kbps, 125.0);
        assert_eq!(rc.bottom_kbps, 0.0);
        // Ticks that get through clear it as the lost ones leave the history.
        for _ in 0..6 {
            rc.on_tick(false);
        }
        assert!(!rc.hit_max);
    }

    #[test]
    fn each_flow_has_its_own_history() {
        // matcp's `static` history is shared by all flows; here it is not.
        let (mut a, mut b) = (started(), started());
        for _ in 0..4 {
            sample(&mut a, 18, 9.0);
        }
        sample(&mut b, 18, 9.0);
        assert_eq!((a.count(Side::Inner), b.count(Side::Inner)), (4, 1));
        assert_eq!(b.state, MatcpState::SlowStart);
    }
}
