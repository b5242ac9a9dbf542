//! Random Exponential Marking (Athuraliya, Li, Low, Yin, "REM: active
//! queue management", IEEE Network 15(3), 2001), as ns-2's `Queue/REM`
//! (ns-2.35 `queue/rem.cc`) runs it, with its defaults.
//!
//! Every `update_interval_ms` the link's "price" moves with the mismatch
//! of input rate and capacity and of backlog and target (the paper's
//! price update; `REMQueue::run_updaterule`, rem.cc:142-192, the price at 180):
//!
//! ```text
//! x    = (1 - input_weight) x + input_weight (arrivals in the interval)
//! p_l  = max(0, p_l + gamma (x + alpha (b - b*) - c))
//! prob = 1 - phi^(-p_l)
//! ```
//!
//! with b the backlog at the update (packets; bytes / mean size with
//! `queue_in_bytes`), b* `target_backlog_packets`, c = interval x rate / (8
//! x mean_packet_bytes) the packets the link can send in one interval, and
//! alpha 0.1 (a constant in rem.cc). Each arrival is dropped with
//! probability `prob` (scaled by size / mean with `queue_in_bytes`;
//! `REMQueue::enque`, rem.cc:231-271); early drops are `aqm_drop`.
//!
//! The updates fall at k x interval from time 0 (ns-2 arms the timer at
//! reset). hoplab runs them lazily, when the queue is next touched: the
//! backlog and the arrival count cannot have changed in between, so the
//! result is the timer's. An arrival at a full queue is an overflow; ns-2
//! drops when the queue *with* the arrival reaches the limit (rem.cc:250),
//! holding one packet less than its limit: hoplab holds the interface's
//! capacity, as its other disciplines do.

use super::{Admission, Fifo, Interface, QueueDisc, Queued};
use crate::config::{positive, ConfigError};
use crate::engine::Stream;
use crate::loss::DropCause;
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// REM parameters (ns-2 `Queue/REM`; each key's ns-2 name in its doc).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "RemParams")]
pub struct Config {
    /// Step size of the price update (`gamma_`). Default 0.001.
    pub gamma: f64,
    /// Base of the exponential marking, > 1 (`phi_`). Default 1.001.
    pub phi: f64,
    /// Weight of the latest interval's arrivals in the input rate (`inw_`;
    /// 1: no filtering). Default 1.
    pub input_weight: f64,
    /// Target backlog b*, packets (`pbo_`). Default 20.
    pub target_backlog_packets: f64,
    /// Weight alpha of the backlog mismatch (0.1, a constant in rem.cc).
    pub backlog_weight: f64,
    /// Price update interval, milliseconds (`pupdtime_`). Default 2.
    pub update_interval_ms: f64,
    /// Mean packet size, bytes (`mean_pktsize_`). Default 1000.
    pub mean_packet_bytes: u32,
    /// Arrivals and backlog in bytes / mean size, drop probability scaled
    /// by size (`qib_`). Default false.
    pub queue_in_bytes: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            gamma: 0.001,
            phi: 1.001,
            input_weight: 1.0,
            target_backlog_packets: 20.0,
            backlog_weight: 0.1,
            update_interval_ms: 2.0,
            mean_packet_bytes: 1000,
            queue_in_bytes: false,
        }
    }
}

impl Config {
    /// Range checks; `at` is the table's key (`queue`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{at}.{k}");
        positive(&key("gamma"), self.gamma)?;
        if !(self.phi > 1.0 && self.phi.is_finite()) {
            return Err(ConfigError::new(key("phi"), format!("must be above 1, got {}", self.phi)));
        }
        if !(self.input_weight > 0.0 && self.input_weight <= 1.0) {
            return Err(ConfigError::new(key("input_weight"), format!("must be in (0, 1], got {}", self.input_weight)));
        }
        for (name, v) in [("target_backlog_packets", self.target_backlog_packets), ("backlog_weight", self.backlog_weight)] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(ConfigError::new(key(name), format!("must be >= 0, got {v}")));
            }
        }
        positive(&key("update_interval_ms"), self.update_interval_ms)?;
        if self.update_interval_ms < 1e-3 {
            return Err(ConfigError::new(key("update_interval_ms"), "must be at least 0.001 (1 microsecond)"));
        }
        if self.mean_packet_bytes < 1 {
            return Err(ConfigError::new(key("mean_packet_bytes"), "must be at least 1"));
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Rem {
    fifo: Fifo,
    capacity: usize,
    priority_control: bool,
    config: Config,
    interval: SimDuration,
    /// c: packets the link can send in one interval.
    capacity_per_interval: f64,
    /// The link price p_l.
    price: f64,
    /// The drop probability 1 - phi^(-p_l).
    probability: f64,
    /// Filtered input (packets per interval).
    input: f64,
    /// Arrivals (packets, or bytes) in the current interval.
    arrivals: f64,
    next_update: SimTime,
}

impl Rem {
    pub fn new(config: &Config, interface: &Interface) -> Rem {
        let interval = SimDuration::from_millis_f64(config.update_interval_ms);
        let ptc = interface.rate_bps / (8.0 * config.mean_packet_bytes as f64);
        Rem {
            fifo: Fifo::new(),
            capacity: interface.capacity_packets,
            priority_control: interface.priority_control,
            config: config.clone(),
            interval,
            capacity_per_interval: interval.as_secs_f64() * ptc,
            price: 0.0,
            probability: 0.0,
            input: 0.0,
            arrivals: 0.0,
            next_update: SimTime::ZERO + interval,
        }
    }

    /// The drop probability now (as of the last update).
    pub fn probability(&self) -> f64 {
        self.probability
    }

    pub fn price(&self) -> f64 {
        self.price
    }

    /// The backlog in packets (bytes / mean size with `queue_in_bytes`).
    fn backlog(&self) -> f64 {
        if self.config.queue_in_bytes {
            self.fifo.bytes() as f64 / self.config.mean_packet_bytes as f64
        } else {
            self.fifo.len() as f64
        }
    }

    /// Run the updates due by `now` (`run_updaterule` at each interval).
    fn catch_up(&mut self, now: SimTime) {
        let c = &self.config;
        while self.next_update <= now {
            let arrivals = if c.queue_in_bytes { self.arrivals / c.mean_packet_bytes as f64 } else { self.arrivals };
            let mismatch = c.backlog_weight * (self.backlog() - c.target_backlog_packets) - self.capacity_per_interval;
            if self.price == 0.0 && self.input == 0.0 && arrivals == 0.0 && mismatch <= 0.0 {
                // Idle at price 0: every update until `now` leaves it there.
                let behind = now.since(self.next_update).as_nanos() / self.interval.as_nanos();
                self.next_update += self.interval * (behind + 1);
                break;
            }
            self.input = (1.0 - c.input_weight) * self.input + c.input_weight * arrivals;
            self.price = (self.price + c.gamma * (self.input + mismatch)).max(0.0);
            self.probability = 1.0 - c.phi.powf(-self.price);
            self.arrivals = 0.0;
            self.next_update += self.interval;
        }
    }
}

impl QueueDisc for Rem {
    fn enqueue(&mut self, now: SimTime, item: Queued, rng: &mut Stream) -> Admission {
        self.catch_up(now);
        let full = self.fifo.len() >= self.capacity;
        if item.packet.is_routing_control() && self.priority_control {
            return self.fifo.admit(item, full, true);
        }
        let size = item.packet.size_bytes();
        self.arrivals += if self.config.queue_in_bytes { size as f64 } else { 1.0 };
        if full {
            return Admission::Dropped { item, cause: DropCause::QueueOverflow };
        }
        let mut p = self.probability;
        if self.config.queue_in_bytes {
            p = p * size as f64 / self.config.mean_packet_bytes as f64;
        }
        if p > 0.0 && rng.uniform_f64() < p {
            return Admission::Dropped { item, cause: DropCause::AqmDrop };
        }
        self.fifo.admit(item, false, self.priority_control)
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Queued> {
        self.catch_up(now);
        self.fifo.pop()
    }

    fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    fn fifo_mut(&mut self) -> &mut Fifo {
        &mut self.fifo
    }

    fn name(&self) -> &'static str {
        "rem"
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("gamma", self.config.gamma),
            ("phi", self.config.phi),
            ("target_backlog_packets", self.config.target_backlog_packets),
            ("update_interval_s", self.interval.as_secs_f64()),
            ("link_packets_per_interval", self.capacity_per_interval),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{data, stream};
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12 * b.abs().max(1.0)
    }

    fn at(ms: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis_f64(ms)
    }

    /// 1 Mb/s, 1000-byte mean: 125 packets/s, c = 0.25 packet per 2 ms.
    /// gamma 0.5, phi 2, b* 0 for round numbers.
    fn rem(capacity_packets: usize) -> Rem {
        let config = Config { gamma: 0.5, phi: 2.0, target_backlog_packets: 0.0, ..Config::default() };
        let interface = Interface { capacity_packets, priority_control: false, rate_bps: 1e6, delay: SimDuration::ZERO };
        Rem::new(&config, &interface)
    }

    #[test]
    fn price_and_probability_after_given_intervals() {
        let mut q = rem(50);
        let mut rng = stream(1);
        // Three arrivals in [0, 2 ms) (probability still 0: all queued).
        for uid in 0..3 {
            assert!(matches!(q.enqueue(at(0.5), data(uid, 1000), &mut rng), Admission::Queued));
        }
        // The update at 2 ms, run by a dequeue at 3 ms: x = 3, b = 3:
        // p = 0 + 0.5 (3 + 0.1 x 3 - 0.25) = 1.525; prob = 1 - 2^-1.525.
        q.dequeue(at(3.0));
        assert!(close(q.price(), 1.525));
        assert!(close(q.probability(), 1.0 - 2f64.powf(-1.525)));
        // At 4 ms: no arrivals, b = 2: p = 1.525 + 0.5 (0 + 0.2 - 0.25) = 1.5.
        q.dequeue(at(4.0));
        assert!(close(q.price(), 1.5));
        assert!(close(q.probability(), 1.0 - 2f64.powf(-1.5)));
        // Empty from 4 ms on (b = 0): -0.125 a step, price 0 after 12 more
        // (at 28 ms), then it stays 0.
        q.dequeue(at(4.0));
        q.dequeue(at(1000.0));
        assert_eq!(q.price(), 0.0);
        assert_eq!(q.probability(), 0.0);
        assert_eq!(q.next_update, at(1002.0));
    }

    #[test]
    fn arrivals_are_dropped_with_the_probability_and_overflow_at_capacity() {
        let mut q = rem(2);
        let mut rng = stream(2);
        q.price = 1e6; // phi^-p = 0: probability 1
        q.probability = 1.0;
        q.next_update = at(1000.0);
        assert!(matches!(q.enqueue(at(0.0), data(1, 1000), &mut rng), Admission::Dropped { cause: DropCause::AqmDrop, .. }));
        q.probability = 0.0;
        q.price = 0.0;
        for uid in 2..4 {
            assert!(matches!(q.enqueue(at(0.0), data(uid, 1000), &mut rng), Admission::Queued));
        }
        assert!(matches!(q.enqueue(at(0.0), data(4, 1000), &mut rng), Admission::Dropped { cause: DropCause::QueueOverflow, .. }));
        // Every arrival counts toward the input rate, dropped or not.
        assert_eq!(q.arrivals, 4.0);
    }

    #[test]
    fn parameters_are_validated_naming_the_key() {
        let bad = [
            (Config { gamma: 0.0, ..Config::default() }, "queue.gamma"),
            (Config { phi: 1.0, ..Config::default() }, "queue.phi"),
            (Config { input_weight: 0.0, ..Config::default() }, "queue.input_weight"),
            (Config { target_backlog_packets: -1.0, ..Config::default() }, "queue.target_backlog_packets"),
            (Config { update_interval_ms: 0.0, ..Config::default() }, "queue.update_interval_ms"),
            (Config { mean_packet_bytes: 0, ..Config::default() }, "queue.mean_packet_bytes"),
        ];
        for (config, key) in bad {
            assert_eq!(config.validate("queue").unwrap_err().key, key);
        }
        assert!(Config::default().validate("queue").is_ok());
    }
}
