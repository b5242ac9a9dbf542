//! The PI controller (Hollot, Misra, Towsley, Gong, "On designing improved
//! controllers for AQM routers supporting TCP flows", IEEE INFOCOM 2001),
//! as ns-2's `Queue/PI` (ns-2.35 `queue/pi.cc`) runs it, with its defaults.
//!
//! The drop probability is updated at the sampling frequency w (the
//! paper's discretised controller, T = 1/w; `PIQueue::calculate_p`,
//! pi.cc:161-184):
//!
//! ```text
//! p(kT) = a (q(kT) - q_ref) - b (q((k-1)T) - q_ref) + p((k-1)T)
//! ```
//!
//! clamped to [0, 1]; each arrival is dropped with it (scaled by size /
//! mean with `bytes`; `drop_early`, pi.cc:186-210), early drops being
//! `aqm_drop`; an arrival at a full queue is an overflow (pi.cc:123).
//! ns-2's defaults, a = 1.822e-5, b = 1.816e-5, w = 170 Hz, q_ref = 50
//! packets, are the paper's design example (N = 60 flows, C = 3750
//! packets/s, R+ = 0.246 s). q_ref must lie below the queue's capacity for
//! the integral action, `(a - b)(q - q_ref)` per sample, ever to raise p;
//! with ns-2's 50-packet default queue it never does, only the
//! proportional part `b (q - q_old)` moves p while the queue grows, and PI
//! drops few packets early (a run says so in its warnings).
//!
//! The samples fall at k/w from time 0 (ns-2 computes p at reset and
//! re-arms its timer each time); hoplab runs them lazily when the queue is
//! next touched, with the queue as it was (unchanged since).

use super::{Admission, Fifo, Interface, QueueDisc, Queued};
use crate::config::{positive, ConfigError};
use crate::engine::Stream;
use crate::loss::DropCause;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// PI parameters (ns-2 `Queue/PI`; each key's ns-2 name in its doc).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "PiParams")]
pub struct Config {
    /// Gain on the current error (`a_`). Default 1.822e-5.
    pub a: f64,
    /// Gain on the previous error (`b_`). Default 1.816e-5.
    pub b: f64,
    /// Sampling frequency, updates per second (`w_`). Default 170.
    pub sampling_frequency_hz: f64,
    /// Reference queue length, packets (`qref_`). Default 50.
    pub qref_packets: f64,
    /// Mean packet size, bytes (`mean_pktsize_`). Default 500.
    pub mean_packet_bytes: u32,
    /// Drop probability scaled by size / mean (`bytes_`). Default false.
    pub bytes: bool,
    /// Queue and limit in bytes, a packet counting `mean_packet_bytes`
    /// (`queue_in_bytes_`). Default false.
    pub queue_in_bytes: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            a: 1.822e-5,
            b: 1.816e-5,
            sampling_frequency_hz: 170.0,
            qref_packets: 50.0,
            mean_packet_bytes: 500,
            bytes: false,
            queue_in_bytes: false,
        }
    }
}

impl Config {
    /// Range checks; `at` is the table's key (`queue`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{at}.{k}");
        for (name, v) in [("a", self.a), ("b", self.b), ("qref_packets", self.qref_packets)] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(ConfigError::new(key(name), format!("must be >= 0, got {v}")));
            }
        }
        positive(&key("sampling_frequency_hz"), self.sampling_frequency_hz)?;
        if self.sampling_frequency_hz > 1e6 {
            return Err(ConfigError::new(key("sampling_frequency_hz"), "must be at most 1e6 (a sample a microsecond)"));
        }
        if self.mean_packet_bytes < 1 {
            return Err(ConfigError::new(key("mean_packet_bytes"), "must be at least 1"));
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Pi {
    fifo: Fifo,
    priority_control: bool,
    config: Config,
    /// The hard limit in the queue's unit.
    limit: f64,
    probability: f64,
    /// The queue at the previous sample (`qold`), in the queue's unit.
    q_old: f64,
    /// Samples taken (the next is at `samples / w`).
    samples: u64,
}

impl Pi {
    pub fn new(config: &Config, interface: &Interface) -> Pi {
        let unit = if config.queue_in_bytes { config.mean_packet_bytes as f64 } else { 1.0 };
        Pi {
            fifo: Fifo::new(),
            priority_control: interface.priority_control,
            config: config.clone(),
            limit: interface.capacity_packets as f64 * unit,
            probability: 0.0,
            q_old: 0.0,
            samples: 0,
        }
    }

    pub fn probability(&self) -> f64 {
        self.probability
    }

    fn qlen(&self) -> f64 {
        if self.config.queue_in_bytes {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        }
    }

    /// The time of sample k, k / w (rounded to the nanosecond, from k so
    /// that no error accumulates).
    fn sample_time(&self, k: u64) -> SimTime {
        SimTime((k as f64 * 1e9 / self.config.sampling_frequency_hz).round() as u64)
    }

    /// Take the samples due by `now` (`calculate_p` at each 1/w).
    fn catch_up(&mut self, now: SimTime) {
        let c = &self.config;
        let scale = if c.queue_in_bytes { c.mean_packet_bytes as f64 } else { 1.0 };
        let q = self.qlen();
        while self.sample_time(self.samples) <= now {
            if self.probability == 0.0 && q == self.q_old && q / scale <= c.qref_packets && c.a >= c.b {
                // At p = 0 with the queue at or below q_ref and unchanged,
                // every further sample leaves p at 0: skip to `now`.
                let k = (now.as_nanos() as f64 * c.sampling_frequency_hz / 1e9).floor() as u64;
                self.samples = k.max(self.samples);
                while self.sample_time(self.samples) <= now {
                    self.samples += 1;
                }
                break;
            }
            let p = c.a * (q / scale - c.qref_packets) - c.b * (self.q_old / scale - c.qref_packets) + self.probability;
            self.probability = p.clamp(0.0, 1.0);
            self.q_old = q;
            self.samples += 1;
        }
    }
}

impl QueueDisc for Pi {
    fn enqueue(&mut self, now: SimTime, item: Queued, rng: &mut Stream) -> Admission {
        self.catch_up(now);
        let full = self.qlen() >= self.limit;
        if item.packet.is_routing_control() && self.priority_control {
            return self.fifo.admit(item, full, true);
        }
        if full {
            return Admission::Dropped { item, cause: DropCause::QueueOverflow };
        }
        let mut p = self.probability;
        if self.config.bytes {
            p = (p * item.packet.size_bytes() as f64 / self.config.mean_packet_bytes as f64).min(1.0);
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
        "pi"
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("a", self.config.a),
            ("b", self.config.b),
            ("sampling_frequency_hz", self.config.sampling_frequency_hz),
            ("qref_packets", self.config.qref_packets),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{data, stream};
    use super::*;
    use crate::time::SimDuration;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn at(ms: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis_f64(ms)
    }

    /// w = 100 Hz (a sample every 10 ms), q_ref = 2, a = 0.02, b = 0.01.
    fn pi(capacity_packets: usize) -> Pi {
        let config = Config { a: 0.02, b: 0.01, sampling_frequency_hz: 100.0, qref_packets: 2.0, ..Config::default() };
        Pi::new(&config, &Interface { capacity_packets, priority_control: false, rate_bps: 1e6, delay: SimDuration::ZERO })
    }

    #[test]
    fn probability_follows_the_discrete_pi_law() {
        let mut q = pi(50);
        let mut rng = stream(1);
        // Sample 0 at t = 0 (q = 0): p = 0.02 (0 - 2) - 0.01 (0 - 2) = -0.02 -> 0.
        // Six arrivals at 5 ms (p still 0: kept).
        for uid in 0..6 {
            assert!(matches!(q.enqueue(at(5.0), data(uid, 500), &mut rng), Admission::Queued));
        }
        // Sample 1 at 10 ms (q = 6, q_old = 0): 0.02 x 4 - 0.01 x (-2) + 0 = 0.1.
        q.dequeue(at(10.0)); // 5 left
        assert!(close(q.probability(), 0.1));
        // Sample 2 at 20 ms (q = 5, q_old = 6): 0.02 x 3 - 0.01 x 4 + 0.1 = 0.12.
        q.dequeue(at(20.0)); // 4 left
        assert!(close(q.probability(), 0.12));
        // Sample 3 at 30 ms (q = 4, q_old = 5): 0.04 - 0.03 + 0.12 = 0.13.
        q.dequeue(at(30.0));
        assert!(close(q.probability(), 0.13));
    }

    #[test]
    fn drops_with_the_probability_clamped_to_one_and_overflows_at_capacity() {
        let mut q = pi(2);
        let mut rng = stream(2);
        q.probability = 1.0;
        q.samples = 1_000; // next sample at 10 s
        assert!(matches!(q.enqueue(at(0.0), data(1, 500), &mut rng), Admission::Dropped { cause: DropCause::AqmDrop, .. }));
        q.probability = 0.0;
        q.enqueue(at(0.0), data(2, 500), &mut rng);
        q.enqueue(at(0.0), data(3, 500), &mut rng);
        assert!(matches!(q.enqueue(at(0.0), data(4, 500), &mut rng), Admission::Dropped { cause: DropCause::QueueOverflow, .. }));
        // p never leaves [0, 1]: a long queue far above q_ref for 1 s.
        let mut q = pi(500);
        for uid in 0..400 {
            q.enqueue(at(0.0), data(uid, 500), &mut rng);
        }
        q.dequeue(at(1000.0));
        assert_eq!(q.probability(), 1.0);
    }

    #[test]
    fn an_idle_queue_at_p_0_skips_its_samples_and_keeps_the_timing() {
        let mut q = pi(50);
        q.dequeue(at(12_345.0));
        assert_eq!(q.probability(), 0.0);
        // Samples at 0, 10, ..., 12 340 ms taken: the next is at 12 350 ms.
        assert_eq!(q.sample_time(q.samples), at(12_350.0));
    }

    #[test]
    fn parameters_are_validated_naming_the_key() {
        let bad = [
            (Config { a: -1.0, ..Config::default() }, "queue.a"),
            (Config { qref_packets: f64::NAN, ..Config::default() }, "queue.qref_packets"),
            (Config { sampling_frequency_hz: 0.0, ..Config::default() }, "queue.sampling_frequency_hz"),
            (Config { mean_packet_bytes: 0, ..Config::default() }, "queue.mean_packet_bytes"),
        ];
        for (config, key) in bad {
            assert_eq!(config.validate("queue").unwrap_err().key, key);
        }
        assert!(Config::default().validate("queue").is_ok());
    }
}
