//! Linux 2.6.22's Westwood+ bandwidth estimator (`net/ipv4/tcp_westwood.c`),
//! as ns-2.35's TCP-Linux runs it (`select_ca westwood`,
//! tcp/linux/src/tcp_westwood.c in ns-2.35): the estimator behind
//! `westwood_plus`'s `cc_params.variant = "linux"`. Not a controller of its
//! own: `westwood_plus.rs` holds the window rules of both variants.
//!
//! Linux's arithmetic is kept: times are jiffies, which ns-2.35 makes
//! milliseconds (`tcp_time_stamp = trunc(now x JIFFY_RATIO)`, JIFFY_RATIO
//! 1000, tcp/tcp-linux.cc:319; ns-linux-util.h:29), counts are bytes, and
//! every division is an integer one, as in the module's u32s:
//!
//! - the first ACK the module sees initialises it (tcp-linux.cc:369-373
//!   calls `init` there): the window starts at that ACK and what it
//!   acknowledged is not counted (`first_ack`, tcp_westwood.c:60-74,
//!   125-128);
//! - `rtt` is the smoothed RTT in whole jiffies (`srtt >> 3`), refreshed
//!   by every ACK of new data (`tcp_westwood_pkts_acked`, 102-109);
//!   `rtt_min` is the smallest such SRTT (`update_rtt_min`, 147-154), not
//!   the smallest raw sample;
//! - every ACK first closes the window if more than max(rtt, 50 ms) passed
//!   since it opened (`westwood_update_window`, 116-145): the sample
//!   `bk / delta` (bytes per jiffy) goes through two cascaded 7/8 filters
//!   (`westwood_filter`, 80-95; the first sample fills both), then `bk`
//!   starts again from 0;
//! - then the ACK's bytes join `bk`: on the fast path (Open, no SACK
//!   news: `CA_EVENT_FAST_ACK`, tcp-linux.cc:385-386) the bytes `snd_una`
//!   moved; otherwise (`CA_EVENT_SLOW_ACK`) `westwood_acked_count`
//!   (180-209): a duplicate counts one MSS and is remembered as
//!   `accounted`, a cumulative ACK of more than one MSS counts one MSS if
//!   the duplicates already accounted for it, else what they did not;
//! - `bw_rttmin` = max(bw_est x rtt_min / mss, 2) segments
//!   (`tcp_westwood_bw_rttmin`, 218-223).
//!
//! Simplification: the SRTT is hoplab's RFC 6298 estimate (one sample per
//! ACK of a never-resent segment), where ns-2's agent times one segment
//! per round (tcp/tcp-linux.cc:210-223); both smooth by 7/8.

use crate::time::{SimDuration, SimTime};

/// `TCP_WESTWOOD_RTT_MIN`: HZ / 20, 50 ms (tcp_westwood.c:46).
const WINDOW_MIN_JIFFIES: u64 = 50;
/// `TCP_WESTWOOD_INIT_RTT`: 20 x HZ (tcp_westwood.c:47).
const INIT_RTT_JIFFIES: u64 = 20_000;

/// ns-2.35's `tcp_time_stamp`: whole milliseconds (tcp/tcp-linux.cc:319).
fn jiffies(at: SimTime) -> u64 {
    at.since(SimTime::ZERO).as_nanos() / 1_000_000
}

/// Linux's `struct westwood` (tcp_westwood.c:30-42); `snd_una` in bytes.
#[derive(Debug, Clone)]
pub struct LinuxEstimator {
    /// Bytes per jiffy, once filtered (`bw_ns_est`) and twice (`bw_est`).
    bw_ns_est: u64,
    bw_est: u64,
    /// When the window opened, jiffies (`rtt_win_sx`).
    window_start: u64,
    /// Bytes acknowledged in the window (`bk`).
    bk: u64,
    /// Duplicates counted whose bytes no cumulative ACK covered yet.
    accounted: u64,
    /// Smoothed RTT, jiffies (`rtt`), and its smallest value (`rtt_min`).
    rtt: u64,
    rtt_min: u64,
    reset_rtt_min: bool,
    initialised: bool,
    /// `first_ack`: the next ACK's bytes are not counted.
    first_ack: bool,
}

impl Default for LinuxEstimator {
    fn default() -> Self {
        LinuxEstimator {
            bw_ns_est: 0,
            bw_est: 0,
            window_start: 0,
            bk: 0,
            accounted: 0,
            rtt: INIT_RTT_JIFFIES,
            rtt_min: INIT_RTT_JIFFIES,
            reset_rtt_min: true,
            initialised: false,
            first_ack: true,
        }
    }
}

/// What kind of ACK the module is told of (tcp/tcp-linux.cc:385-390).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckPath {
    /// `CA_EVENT_FAST_ACK`: new data, in the Open state, no SACK news.
    Fast,
    /// `CA_EVENT_SLOW_ACK`: anything else (duplicates, recovery, loss).
    Slow,
}

impl LinuxEstimator {
    /// The filtered estimate, bytes per second.
    pub fn bwe_bytes_per_s(&self) -> f64 {
        self.bw_est as f64 * 1000.0
    }

    /// `tcp_westwood_bw_rttmin`: max(bw_est x rtt_min / mss, 2), whole segments.
    pub fn bw_rttmin_segments(&self, mss_bytes: u32) -> f64 {
        ((self.bw_est * self.rtt_min) / u64::from(mss_bytes)).max(2) as f64
    }

    /// `tcp_westwood_pkts_acked`: an ACK of new data refreshes `rtt`.
    pub fn on_pkts_acked(&mut self, now: SimTime, srtt: Option<SimDuration>) {
        self.init_once(now);
        if let Some(srtt) = srtt {
            self.rtt = srtt.as_nanos() / 1_000_000;
        }
    }

    /// `tcp_westwood_event` for an ACK: `acked_bytes` is what it moved
    /// `snd_una` by (0 for a duplicate).
    pub fn on_ack(&mut self, now: SimTime, path: AckPath, acked_bytes: u64, mss_bytes: u32) {
        self.init_once(now);
        // `first_ack`: the module's snd_una starts at this ACK's, so it
        // moved nothing (and the slow path takes it for a duplicate).
        let acked_bytes = if std::mem::take(&mut self.first_ack) { 0 } else { acked_bytes };
        self.update_window(jiffies(now));
        self.bk += match path {
            AckPath::Fast => acked_bytes,
            AckPath::Slow => self.acked_count(acked_bytes, u64::from(mss_bytes)),
        };
        self.update_rtt_min();
    }

    /// `tcp_westwood_init`, at the first ACK (tcp/tcp-linux.cc:369-373).
    fn init_once(&mut self, now: SimTime) {
        if !self.initialised {
            self.initialised = true;
            self.window_start = jiffies(now);
        }
    }

    /// `westwood_update_window` (tcp_westwood.c:116-145).
    fn update_window(&mut self, now_jiffies: u64) {
        let delta = now_jiffies.saturating_sub(self.window_start);
        if self.rtt > 0 && delta > self.rtt.max(WINDOW_MIN_JIFFIES) {
            let sample = self.bk / delta;
            if self.bw_ns_est == 0 && self.bw_est == 0 {
                self.bw_ns_est = sample;
                self.bw_est = sample;
            } else {
                self.bw_ns_est = (7 * self.bw_ns_est + sample) >> 3;
                self.bw_est = (7 * self.bw_est + self.bw_ns_est) >> 3;
            }
            self.bk = 0;
            self.window_start = now_jiffies;
        }
    }

    /// `westwood_acked_count` (tcp_westwood.c:180-209), bytes.
    fn acked_count(&mut self, acked_bytes: u64, mss: u64) -> u64 {
        if acked_bytes == 0 {
            self.accounted += mss;
            return mss;
        }
        if acked_bytes <= mss {
            return acked_bytes;
        }
        if self.accounted >= acked_bytes {
            self.accounted -= acked_bytes;
            mss
        } else {
            let counted = acked_bytes - self.accounted;
            self.accounted = 0;
            counted
        }
    }

    /// `update_rtt_min` (tcp_westwood.c:147-154).
    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_nanos(ms * 1_000_000)
    }

    fn srtt_ms(ms: u64) -> Option<SimDuration> {
        Some(SimDuration::from_nanos(ms * 1_000_000))
    }

    /// `n` fast-path ACKs of one 1000-byte segment at `t` ms, SRTT `srtt`.
    fn fast_acks(e: &mut LinuxEstimator, t: u64, n: u32, srtt: u64) {
        for _ in 0..n {
            e.on_pkts_acked(at_ms(t), srtt_ms(srtt));
            e.on_ack(at_ms(t), AckPath::Fast, 1000, 1000);
        }
    }

    #[test]
    fn samples_close_after_more_than_one_srtt_and_pass_two_integer_filters() {
        let mut e = LinuxEstimator::default();
        // t = 0: the first ACK opens the window and is not counted; nine more.
        fast_acks(&mut e, 0, 10, 100);
        assert_eq!(e.bk, 9000);
        // t = 100 ms: delta 100 is not > max(SRTT 100, 50): still building.
        fast_acks(&mut e, 100, 1, 100);
        assert_eq!((e.bk, e.bw_est), (10_000, 0));
        // t = 101 ms: closes: 10 000 B / 101 jiffies = 99 (integer), which
        // fills both filters; this ACK starts the next window's bk.
        fast_acks(&mut e, 101, 20, 100);
        assert_eq!((e.bw_ns_est, e.bw_est, e.bk), (99, 99, 20_000));
        // bw_rttmin = 99 x 100 / 1000 = 9 segments (the real quotient is 9.9).
        assert_eq!(e.bw_rttmin_segments(1000), 9.0);
        // t = 202 ms: sample 20 000 / 101 = 198; bw_ns = (7 x 99 + 198) >> 3
        // = 111; bw_est = (7 x 99 + 111) >> 3 = 100.
        fast_acks(&mut e, 202, 1, 100);
        assert_eq!((e.bw_ns_est, e.bw_est), (111, 100));
        assert_eq!(e.bwe_bytes_per_s(), 100_000.0);
        assert_eq!(e.bw_rttmin_segments(1000), 10.0);
    }

    #[test]
    fn the_window_is_at_least_50_ms() {
        let mut e = LinuxEstimator::default();
        fast_acks(&mut e, 0, 1, 10);
        fast_acks(&mut e, 40, 5, 10); // delta 40 > SRTT 10 but not > 50
        assert_eq!(e.bw_est, 0);
        fast_acks(&mut e, 51, 1, 10); // 5000 B / 51 = 98
        assert_eq!(e.bw_est, 98);
    }

    #[test]
    fn slow_path_counts_duplicates_once() {
        let mut e = LinuxEstimator::default();
        fast_acks(&mut e, 0, 1, 100);
        // Three duplicates: one MSS each, remembered.
        for _ in 0..3 {
            e.on_ack(at_ms(10), AckPath::Slow, 0, 1000);
        }
        assert_eq!((e.bk, e.accounted), (3000, 3000));
        // A cumulative ACK of 5 segments: 5000 - 3000 counted, none left.
        e.on_ack(at_ms(20), AckPath::Slow, 5000, 1000);
        assert_eq!((e.bk, e.accounted), (5000, 0));
        // Four duplicates, then an ACK of 3 segments they cover: one MSS.
        for _ in 0..4 {
            e.on_ack(at_ms(30), AckPath::Slow, 0, 1000);
        }
        e.on_ack(at_ms(40), AckPath::Slow, 3000, 1000);
        assert_eq!((e.bk, e.accounted), (5000 + 4000 + 1000, 1000));
        // The fast path takes what snd_una moved and leaves the tally.
        e.on_ack(at_ms(45), AckPath::Fast, 3000, 1000);
        assert_eq!((e.bk, e.accounted), (13_000, 1000));
    }

    #[test]
    fn rtt_min_is_the_smallest_srtt_and_starts_at_the_first() {
        let mut e = LinuxEstimator::default();
        assert_eq!(e.rtt_min, INIT_RTT_JIFFIES);
        fast_acks(&mut e, 0, 1, 120);
        assert_eq!(e.rtt_min, 120);
        fast_acks(&mut e, 10, 1, 90);
        fast_acks(&mut e, 20, 1, 150);
        assert_eq!((e.rtt, e.rtt_min), (150, 90));
        // A duplicate does not refresh rtt (no pkts_acked), only the minimum.
        e.on_ack(at_ms(30), AckPath::Slow, 0, 1000);
        assert_eq!(e.rtt, 150);
    }
}
