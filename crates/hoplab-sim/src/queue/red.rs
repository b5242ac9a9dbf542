//! Random Early Detection (Floyd & Jacobson, "Random early detection
//! gateways for congestion avoidance", IEEE/ACM ToN 1(4), 1993), as ns-2's
//! `Queue/RED` (ns-2.35 `queue/red.cc`) runs it, with ns-2's defaults
//! (`tcl/lib/ns-default.tcl`): gentle RED, byte mode, thresholds and weight
//! set automatically from the link's rate.
//!
//! On each arrival (`REDQueue::enque`):
//! - the average: `avg = avg (1 - w)^(m+1) + w q`, q the queue before the
//!   arrival (bytes with `queue_in_bytes`), m = 0 unless the queue was idle,
//!   then m = floor(ptc x idle time), ptc = rate / (8 x mean_packet_bytes)
//!   packets per second (the packets the link could have sent: the
//!   paper's detailed algorithm; `estimator`, red.cc:386-405, the idle m at red.cc:651);
//! - below `min_thresh` nothing is dropped (and `count` restarts); from it
//!   (with more than one packet, or byte, queued: red.cc:691) the first
//!   arrival only arms the count (`old`), later ones are dropped with
//!   probability p: `p_b = max_p (avg - min_thresh) / (max_thresh -
//!   min_thresh)`, gentle from `max_thresh` to twice it `p_b = max_p + (1 -
//!   max_p)(avg - max_thresh)/max_thresh`, 1 above (non-gentle: 1 from
//!   `max_thresh`) (`calculate_p_new`, red.cc:436-459); spread uniformly
//!   over the arrivals since the last drop (`modify_p`, red.cc:478-505):
//!   with `wait`, 0 while count x p_b < 1, p_b / (2 - count x p_b) below 2,
//!   then 1; without, p_b / (1 - count x p_b); in byte mode count is in
//!   mean-sized packets and p scaled by size / mean_packet_bytes;
//! - an arrival at a full queue (`q >= limit`; in bytes, limit x
//!   mean_packet_bytes, red.cc:687, 714) is an overflow whatever the early
//!   decision, and restarts the count.
//!
//! Early drops are `aqm_drop`; ns-2 also calls "forced" a drop when avg
//! passes `max_thresh` (twice it, gentle) with `use_mark_p_` off, but its
//! default (`use_mark_p_ true`) sends those through the same probability
//! (then 1), so every drop decided from the average is early here.
//!
//! Automatic parameters (`REDQueue::initialize_params`, red.cc:172-224):
//! `min_thresh_packets = 0`: max(5, target_delay x ptc / 2);
//! `max_thresh_packets = 0`: 3 x min; `q_weight = -1`: 1 - exp(-1 / (10 x
//! RTT x ptc)), RTT = max(0.1 s, 3 (delay + 1/ptc)); `0`: 1 - exp(-1/ptc);
//! `-2`: 1 - exp(-10/ptc). ns-2 resolves them only for a queue attached to
//! a wired link; on an 802.11 interface hoplab uses the radio's data rate
//! (no delay). Adaptive RED, ECN marking and drop-front are not modelled.

use super::{Admission, Fifo, Interface, QueueDisc, Queued};
use crate::config::{positive, ConfigError};
use crate::engine::Stream;
use crate::loss::DropCause;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// RED parameters (ns-2 `Queue/RED`; each key's ns-2 name in its doc).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "RedParams")]
pub struct Config {
    /// Lower threshold of the average, packets (`thresh_`); 0: automatic,
    /// max(5, target_delay x ptc / 2). Default 0.
    pub min_thresh_packets: f64,
    /// Upper threshold, packets (`maxthresh_`); 0: 3 x min_thresh. Default 0.
    pub max_thresh_packets: f64,
    /// Weight of the average (`q_weight_`); -1: automatic from the link's
    /// RTT, 0: 1 - exp(-1/ptc), -2: 1 - exp(-10/ptc). Default -1.
    pub q_weight: f64,
    /// 1 / max_p, the drop probability at `max_thresh` (`linterm_`).
    /// Default 10.
    pub linterm: f64,
    /// Probability rising from max_p to 1 between max_thresh and twice it
    /// (`gentle_`). Default true.
    pub gentle: bool,
    /// Wait about 1/p arrivals between drops (`wait_`). Default true.
    pub wait: bool,
    /// Byte mode: count and probability by packet size (`bytes_`).
    /// Default true.
    pub bytes: bool,
    /// Average, thresholds and limit in bytes, a packet counting
    /// `mean_packet_bytes` (`queue_in_bytes_`). Default true.
    pub queue_in_bytes: bool,
    /// Mean packet size, bytes (`mean_pktsize_`). Default 500.
    pub mean_packet_bytes: u32,
    /// Target queueing delay of the automatic min_thresh, milliseconds
    /// (`targetdelay_`). Default 5.
    pub target_delay_ms: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            min_thresh_packets: 0.0,
            max_thresh_packets: 0.0,
            q_weight: -1.0,
            linterm: 10.0,
            gentle: true,
            wait: true,
            bytes: true,
            queue_in_bytes: true,
            mean_packet_bytes: 500,
            target_delay_ms: 5.0,
        }
    }
}

impl Config {
    /// Range checks; `at` is the table's key (`queue`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{at}.{k}");
        for (name, v) in [("min_thresh_packets", self.min_thresh_packets), ("max_thresh_packets", self.max_thresh_packets)] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(ConfigError::new(key(name), format!("must be >= 0 (0: automatic), got {v}")));
            }
        }
        if self.min_thresh_packets > 0.0 && self.max_thresh_packets > 0.0 && self.max_thresh_packets <= self.min_thresh_packets {
            return Err(ConfigError::new(
                key("max_thresh_packets"),
                format!("must be above min_thresh_packets ({})", self.min_thresh_packets),
            ));
        }
        let w = self.q_weight;
        if !(w == -1.0 || w == -2.0 || (0.0..=1.0).contains(&w)) {
            return Err(ConfigError::new(key("q_weight"), format!("must be in [0, 1], or -1 or -2 (automatic), got {w}")));
        }
        if !(self.linterm >= 1.0 && self.linterm.is_finite()) {
            return Err(ConfigError::new(key("linterm"), format!("must be at least 1 (max_p = 1 / linterm), got {}", self.linterm)));
        }
        if self.mean_packet_bytes < 1 {
            return Err(ConfigError::new(key("mean_packet_bytes"), "must be at least 1"));
        }
        positive(&key("target_delay_ms"), self.target_delay_ms)
    }
}

#[derive(Debug, Clone)]
pub struct Red {
    fifo: Fifo,
    priority_control: bool,
    bytes: bool,
    queue_in_bytes: bool,
    wait: bool,
    gentle: bool,
    mean_packet_bytes: f64,
    /// Packets per second the link drains at mean size.
    ptc: f64,
    q_weight: f64,
    /// Thresholds in the queue's unit (bytes with `queue_in_bytes`).
    min_thresh: f64,
    max_thresh: f64,
    max_p: f64,
    /// The hard limit in the queue's unit.
    limit: f64,
    /// Resolved thresholds, packets (reported).
    min_thresh_packets: f64,
    max_thresh_packets: f64,
    /// The average queue (`v_ave`), in the queue's unit.
    avg: f64,
    /// Arrivals (and bytes) since the last drop (`count`, `count_bytes`).
    count: u64,
    count_bytes: u64,
    /// The average was at or above min_thresh at the previous arrival.
    old: bool,
    /// The queue has been empty since `idle_since` (a dequeue found none).
    idle: bool,
    idle_since: SimTime,
}

impl Red {
    pub fn new(config: &Config, interface: &Interface) -> Red {
        let mean = config.mean_packet_bytes as f64;
        let ptc = interface.rate_bps / (8.0 * mean);
        let mut min_pkts = config.min_thresh_packets;
        if min_pkts == 0.0 {
            min_pkts = (config.target_delay_ms / 1e3 * ptc / 2.0).max(5.0);
        }
        let max_pkts = if config.max_thresh_packets == 0.0 { 3.0 * min_pkts } else { config.max_thresh_packets };
        let w = config.q_weight;
        let q_weight = if w == 0.0 {
            1.0 - (-1.0 / ptc).exp()
        } else if w == -1.0 {
            let rtt_s = (3.0 * (interface.delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt_s * ptc)).exp()
        } else if w == -2.0 {
            1.0 - (-10.0 / ptc).exp()
        } else {
            w
        };
        let unit = if config.queue_in_bytes { mean } else { 1.0 };
        Red {
            fifo: Fifo::new(),
            priority_control: interface.priority_control,
            bytes: config.bytes,
            queue_in_bytes: config.queue_in_bytes,
            wait: config.wait,
            gentle: config.gentle,
            mean_packet_bytes: mean,
            ptc,
            q_weight,
            min_thresh: min_pkts * unit,
            max_thresh: max_pkts * unit,
            max_p: 1.0 / config.linterm,
            limit: interface.capacity_packets as f64 * unit,
            min_thresh_packets: min_pkts,
            max_thresh_packets: max_pkts,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle: true,
            idle_since: SimTime::ZERO,
        }
    }

    /// The average queue, in the queue's unit (bytes with `queue_in_bytes`).
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The instantaneous queue in the queue's unit.
    fn qlen(&self) -> f64 {
        if self.queue_in_bytes {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        }
    }

    /// The drop probability the average gives (`calculate_p_new`).
    pub fn base_probability(&self) -> f64 {
        let p = if self.avg >= self.max_thresh {
            if self.gentle {
                // From max_p at max_thresh to 1 at twice it.
                self.max_p + (1.0 - self.max_p) * (self.avg - self.max_thresh) / self.max_thresh
            } else {
                1.0
            }
        } else {
            let span = self.max_thresh - self.min_thresh;
            let span = if span == 0.0 { 1.0 } else { span };
            self.max_p * (self.avg - self.min_thresh) / span
        };
        p.min(1.0)
    }

    /// `p_b` spread over the arrivals since the last drop (`modify_p`).
    pub fn arrival_probability(&self, p_b: f64, size_bytes: u32) -> f64 {
        let count = if self.bytes { (self.count_bytes / self.mean_packet_bytes as u64) as f64 } else { self.count as f64 };
        let mut p = if self.wait {
            if count * p_b < 1.0 {
                0.0
            } else if count * p_b < 2.0 {
                p_b / (2.0 - count * p_b)
            } else {
                1.0
            }
        } else if count * p_b < 1.0 {
            p_b / (1.0 - count * p_b)
        } else {
            1.0
        };
        if self.bytes && p < 1.0 {
            p = p * size_bytes as f64 / self.mean_packet_bytes;
        }
        p.min(1.0)
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, now: SimTime, item: Queued, rng: &mut Stream) -> Admission {
        if item.packet.is_routing_control() && self.priority_control {
            let full = self.qlen() >= self.limit;
            return self.fifo.admit(item, full, true);
        }
        let mut m = 0.0;
        if self.idle {
            self.idle = false;
            m = (self.ptc * now.since(self.idle_since).as_secs_f64()).floor();
        }
        let q = self.qlen();
        self.avg = self.avg * (1.0 - self.q_weight).powf(m + 1.0) + self.q_weight * q;
        let size = item.packet.size_bytes();
        self.count += 1;
        self.count_bytes += size as u64;
        let more_than_one = q > 1.0;
        let mut early = false;
        if self.avg >= self.min_thresh && more_than_one {
            if !self.old {
                self.old = true;
                self.count = 1;
                self.count_bytes = size as u64;
            } else {
                let p = self.arrival_probability(self.base_probability(), size);
                if rng.uniform_f64() < p {
                    early = true;
                    self.count = 0;
                    self.count_bytes = 0;
                }
            }
        } else {
            self.old = false;
        }
        if q >= self.limit {
            self.count = 0;
            self.count_bytes = 0;
            return Admission::Dropped { item, cause: DropCause::QueueOverflow };
        }
        if early {
            return Admission::Dropped { item, cause: DropCause::AqmDrop };
        }
        self.fifo.admit(item, false, self.priority_control)
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Queued> {
        let item = self.fifo.pop();
        if item.is_none() && !self.idle {
            self.idle = true;
            self.idle_since = now;
        }
        item
    }

    fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    fn fifo_mut(&mut self) -> &mut Fifo {
        &mut self.fifo
    }

    fn name(&self) -> &'static str {
        "red"
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("min_thresh_packets", self.min_thresh_packets),
            ("max_thresh_packets", self.max_thresh_packets),
            ("q_weight", self.q_weight),
            ("max_p", self.max_p),
            ("packet_time_constant_per_s", self.ptc),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{data, stream};
    use super::*;
    use crate::time::SimDuration;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    /// 1 Mb/s and 500-byte mean packets: ptc = 250 packets/s.
    fn interface(capacity_packets: usize) -> Interface {
        Interface { capacity_packets, priority_control: false, rate_bps: 1e6, delay: SimDuration::ZERO }
    }

    /// Packet mode, w = 0.5, thresholds 1 and 3 packets, max_p = 0.1.
    fn packet_red(gentle: bool, wait: bool) -> Red {
        let config = Config {
            min_thresh_packets: 1.0,
            max_thresh_packets: 3.0,
            q_weight: 0.5,
            gentle,
            wait,
            bytes: false,
            queue_in_bytes: false,
            ..Config::default()
        };
        Red::new(&config, &interface(50))
    }

    fn at(ms: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis_f64(ms)
    }

    #[test]
    fn average_after_arrivals_and_its_decay_over_idle_time() {
        let mut red = packet_red(true, true);
        let mut rng = stream(1);
        // Arrivals find 0, 1, 2, 3 packets: avg = 0, 0.5, 1.25, 2.125 (w = 0.5).
        let mut avgs = Vec::new();
        for uid in 0..4 {
            red.enqueue(at(0.0), data(uid, 500), &mut rng);
            avgs.push(red.average());
        }
        assert_eq!(avgs, vec![0.0, 0.5, 1.25, 2.125]);
        // The queue empties at 1 s; an arrival 12 ms later finds it idle for
        // floor(250 x 0.012) = 3 packet times: avg = 2.125 x 0.5^4 + 0 = 0.1328125.
        for _ in 0..5 {
            red.dequeue(at(1000.0));
        }
        red.enqueue(at(1012.0), data(9, 500), &mut rng);
        assert_eq!(red.average(), 0.1328125);
    }

    #[test]
    fn drop_probability_from_the_average() {
        let mut red = packet_red(false, true);
        // Between the thresholds: 0.1 x (2.125 - 1) / (3 - 1) = 0.05625.
        red.avg = 2.125;
        assert!(close(red.base_probability(), 0.05625));
        // Non-gentle: 1 from max_thresh.
        red.avg = 3.0;
        assert_eq!(red.base_probability(), 1.0);
        // Gentle: from max_p at 3 to 1 at 6: at 4.5, 0.1 + 0.9 x 1.5 / 3 = 0.55.
        let mut red = packet_red(true, true);
        red.avg = 4.5;
        assert!(close(red.base_probability(), 0.55));
        red.avg = 7.0;
        assert_eq!(red.base_probability(), 1.0);
    }

    #[test]
    fn probability_is_spread_over_the_arrivals_since_the_last_drop() {
        // wait: p_b = 0.1; count 5 -> 0.5 < 1: 0; count 15 -> 1.5: 0.1 / 0.5
        // = 0.2; count 20 -> 2: 1.
        let mut red = packet_red(false, true);
        for (count, want) in [(5, 0.0), (15, 0.2), (20, 1.0)] {
            red.count = count;
            assert!(close(red.arrival_probability(0.1, 500), want), "count {count}");
        }
        // Without wait: count 5 -> 0.1 / (1 - 0.5) = 0.2.
        let mut red = packet_red(false, false);
        red.count = 5;
        assert!(close(red.arrival_probability(0.1, 500), 0.2));
        // Byte mode: count in mean-sized packets (2 500 bytes = 5), p scaled
        // by size / mean: 0.2 x 1000 / 500 = 0.4.
        let mut red = Red::new(&Config { bytes: true, wait: false, ..Config::default() }, &interface(50));
        red.count_bytes = 2_500;
        assert!(close(red.arrival_probability(0.1, 1000), 0.4));
    }

    #[test]
    fn no_drop_below_min_thresh_the_first_arrival_above_arms_and_p_1_drops() {
        let mut red = packet_red(true, true);
        let mut rng = stream(2);
        for uid in 0..4 {
            assert!(matches!(red.enqueue(at(0.0), data(uid, 500), &mut rng), Admission::Queued));
        }
        // The 3rd arrival (avg 1.25 >= 1, 2 queued) armed the count; the 4th
        // (avg 2.125: p_b = 0.05625, count 2: 2 p_b < 1, wait) was kept.
        assert!(red.old);
        assert_eq!(red.count, 2);
        // Force the average far above twice max_thresh: p = 1, dropped early.
        red.avg = 100.0;
        red.q_weight = 0.0;
        let admission = red.enqueue(at(0.0), data(10, 500), &mut rng);
        assert!(matches!(admission, Admission::Dropped { cause: DropCause::AqmDrop, .. }));
        assert_eq!(red.count, 0);
        assert_eq!(red.fifo().len(), 4);
        // Below min_thresh nothing is dropped and the count disarms.
        red.avg = 0.5;
        assert!(matches!(red.enqueue(at(0.0), data(11, 500), &mut rng), Admission::Queued));
        assert!(!red.old);
    }

    #[test]
    fn a_full_queue_overflows_whatever_the_average_in_bytes_the_limit_scales() {
        // Byte mode: capacity 4 x 500 = 2 000 bytes: two 1000-byte packets.
        let config = Config { min_thresh_packets: 100.0, max_thresh_packets: 200.0, ..Config::default() };
        let mut red = Red::new(&config, &interface(4));
        let mut rng = stream(3);
        assert!(matches!(red.enqueue(at(0.0), data(1, 1000), &mut rng), Admission::Queued));
        assert!(matches!(red.enqueue(at(0.0), data(2, 1000), &mut rng), Admission::Queued));
        let third = red.enqueue(at(0.0), data(3, 1000), &mut rng);
        assert!(matches!(third, Admission::Dropped { cause: DropCause::QueueOverflow, item } if item.packet.uid == 3));
        assert_eq!(red.fifo().bytes(), 2000);
    }

    #[test]
    fn automatic_thresholds_and_weight_as_ns2() {
        // 5 Mb/s, 0.01 ms: ptc = 1250; min = max(5, 0.005 x 1250 / 2) = 5,
        // max = 15; RTT = max(0.1, 3 (0.00001 + 0.0008)) = 0.1: w = 1 - exp(-1/1250).
        let last_hop =
            Interface { capacity_packets: 50, priority_control: false, rate_bps: 5e6, delay: SimDuration::from_micros_f64(10.0) };
        let red = Red::new(&Config::default(), &last_hop);
        let p: std::collections::BTreeMap<_, _> = red.params().into_iter().collect();
        assert_eq!((p["min_thresh_packets"], p["max_thresh_packets"]), (5.0, 15.0));
        assert!(close(p["q_weight"], 1.0 - (-0.0008f64).exp()));
        // In bytes: 2 500 and 7 500; the limit 25 000.
        assert_eq!((red.min_thresh, red.max_thresh, red.limit), (2_500.0, 7_500.0, 25_000.0));
        // 100 Mb/s: ptc 25 000, min = 0.005 x 25 000 / 2 = 62.5, max 187.5.
        let fast = Interface { rate_bps: 100e6, ..last_hop };
        let red = Red::new(&Config::default(), &fast);
        assert_eq!((red.min_thresh_packets, red.max_thresh_packets), (62.5, 187.5));
        assert!(close(red.q_weight, 1.0 - (-1.0f64 / 25_000.0).exp()));
    }

    #[test]
    fn routing_packets_with_priority_are_never_dropped_early() {
        let mut red = Red::new(
            &Config { queue_in_bytes: false, bytes: false, ..Config::default() },
            &Interface { priority_control: true, ..interface(3) },
        );
        red.avg = 1e9;
        red.old = true;
        let mut rng = stream(4);
        let control = super::super::test_support::item_of(7, crate::wire::PacketKind::Control, 60);
        assert!(matches!(red.enqueue(at(0.0), control, &mut rng), Admission::Queued));
        assert_eq!(red.average(), 1e9, "a routing packet leaves the average alone");
    }

    #[test]
    fn parameters_are_validated_naming_the_key() {
        let bad = [
            (Config { min_thresh_packets: -1.0, ..Config::default() }, "queue.min_thresh_packets"),
            (Config { min_thresh_packets: 10.0, max_thresh_packets: 5.0, ..Config::default() }, "queue.max_thresh_packets"),
            (Config { q_weight: 1.5, ..Config::default() }, "queue.q_weight"),
            (Config { linterm: 0.5, ..Config::default() }, "queue.linterm"),
            (Config { mean_packet_bytes: 0, ..Config::default() }, "queue.mean_packet_bytes"),
            (Config { target_delay_ms: 0.0, ..Config::default() }, "queue.target_delay_ms"),
        ];
        for (config, key) in bad {
            assert_eq!(config.validate("queue").unwrap_err().key, key);
        }
        assert!(Config::default().validate("queue").is_ok());
    }
}
