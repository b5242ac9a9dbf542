//! BLUE (Feng, Shin, Kandlur, Saha, "The BLUE active queue management
//! algorithms", IEEE/ACM ToN 10(4), 2002): one drop probability p_m, moved
//! by packet loss and link idle events rather than by the queue length
//! (the paper's algorithm, as it gives it in pseudo-code):
//!
//! ```text
//! upon packet loss (or Qlen > L) event:
//!     if now - last_update > freeze_time: p_m += d1; last_update = now
//! upon link idle event:
//!     if now - last_update > freeze_time: p_m -= d2; last_update = now
//! ```
//!
//! Every arriving packet is dropped with probability p_m (`aqm_drop`); a
//! packet loss is an arrival at a full queue (`queue_overflow`); the link
//! is idle when a dequeue finds the queue empty. p_m stays in [0, 1].
//! ns-2 has no BLUE; the defaults, d1 = 0.0025, d2 = 0.00025 (d1 an order
//! of magnitude above d2, as the paper advises) and freeze_time = 100 ms,
//! are those of Feng's ns BLUE scripts (`increment 0.0025`, `decrement
//! 0.00025`, hold times 100 ms), within the range the paper evaluates.
//! `queue_threshold_packets` is the optional L (0: off, the loss event
//! alone); packets, not bytes.

use super::{Admission, Fifo, Interface, QueueDisc, Queued};
use crate::config::ConfigError;
use crate::engine::Stream;
use crate::loss::DropCause;
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// BLUE parameters (Feng et al. 2002).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(rename = "BlueParams")]
pub struct Config {
    /// d1, the step up of p_m on a loss event. Default 0.0025.
    pub increment: f64,
    /// d2, the step down on a link idle event. Default 0.00025.
    pub decrement: f64,
    /// Least time between two changes of p_m, milliseconds. Default 100.
    pub freeze_time_ms: f64,
    /// L: an arrival finding more packets queued is a loss event too (0:
    /// off). Default 0.
    pub queue_threshold_packets: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { increment: 0.0025, decrement: 0.00025, freeze_time_ms: 100.0, queue_threshold_packets: 0 }
    }
}

impl Config {
    /// Range checks; `at` is the table's key (`queue`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{at}.{k}");
        for (name, v) in [("increment", self.increment), ("decrement", self.decrement)] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(ConfigError::new(key(name), format!("must be in (0, 1], got {v}")));
            }
        }
        if !(self.freeze_time_ms >= 0.0 && self.freeze_time_ms < 1e12) {
            return Err(ConfigError::new(key("freeze_time_ms"), format!("must be >= 0, got {}", self.freeze_time_ms)));
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Blue {
    fifo: Fifo,
    capacity: usize,
    priority_control: bool,
    config: Config,
    freeze_time: SimDuration,
    /// p_m.
    probability: f64,
    last_update: SimTime,
}

impl Blue {
    pub fn new(config: &Config, interface: &Interface) -> Blue {
        Blue {
            fifo: Fifo::new(),
            capacity: interface.capacity_packets,
            priority_control: interface.priority_control,
            config: config.clone(),
            freeze_time: SimDuration::from_millis_f64(config.freeze_time_ms),
            probability: 0.0,
            last_update: SimTime::ZERO,
        }
    }

    pub fn probability(&self) -> f64 {
        self.probability
    }

    /// p_m moves by `delta` unless it moved within the freeze time.
    fn step(&mut self, now: SimTime, delta: f64) {
        if now.since(self.last_update) > self.freeze_time {
            self.probability = (self.probability + delta).clamp(0.0, 1.0);
            self.last_update = now;
        }
    }
}

impl QueueDisc for Blue {
    fn enqueue(&mut self, now: SimTime, item: Queued, rng: &mut Stream) -> Admission {
        let full = self.fifo.len() >= self.capacity;
        if item.packet.is_routing_control() && self.priority_control {
            if full && self.fifo.iter().all(|q| q.packet.is_routing_control()) {
                self.step(now, self.config.increment);
            }
            return self.fifo.admit(item, full, true);
        }
        let threshold = self.config.queue_threshold_packets;
        if full || (threshold > 0 && self.fifo.len() > threshold as usize) {
            self.step(now, self.config.increment);
        }
        if full {
            return Admission::Dropped { item, cause: DropCause::QueueOverflow };
        }
        if self.probability > 0.0 && rng.uniform_f64() < self.probability {
            return Admission::Dropped { item, cause: DropCause::AqmDrop };
        }
        self.fifo.admit(item, false, self.priority_control)
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Queued> {
        let item = self.fifo.pop();
        if item.is_none() {
            self.step(now, -self.config.decrement);
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
        "blue"
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("increment", self.config.increment),
            ("decrement", self.config.decrement),
            ("freeze_time_s", self.freeze_time.as_secs_f64()),
            ("queue_threshold_packets", self.config.queue_threshold_packets as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{data, stream};
    use super::*;

    fn at(ms: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis_f64(ms)
    }

    fn blue(capacity_packets: usize, config: Config) -> Blue {
        Blue::new(&config, &Interface { capacity_packets, priority_control: false, rate_bps: 1e6, delay: SimDuration::ZERO })
    }

    #[test]
    fn losses_raise_and_idle_links_lower_p_m_at_most_once_per_freeze_time() {
        let mut q = blue(1, Config::default());
        let mut rng = stream(1);
        q.enqueue(at(0.0), data(1, 500), &mut rng);
        // A loss at 50 ms: within 100 ms of the start (last_update 0): frozen.
        assert!(matches!(q.enqueue(at(50.0), data(2, 500), &mut rng), Admission::Dropped { cause: DropCause::QueueOverflow, .. }));
        assert_eq!(q.probability(), 0.0);
        // At 150 ms: + 0.0025; at 200 ms frozen again; at 251 ms + 0.0025.
        for (ms, want) in [(150.0, 0.0025), (200.0, 0.0025), (251.0, 0.005)] {
            q.enqueue(at(ms), data(3, 500), &mut rng);
            assert_eq!(q.probability(), want, "{ms} ms");
        }
        // The link goes idle at 300 ms (frozen), then at 352 ms: - 0.00025.
        q.dequeue(at(300.0));
        assert_eq!(q.dequeue(at(300.0)).map(|i| i.packet.uid), None);
        assert_eq!(q.probability(), 0.005);
        q.dequeue(at(352.0));
        assert_eq!(q.probability(), 0.005 - 0.00025);
    }

    #[test]
    fn arrivals_are_dropped_with_p_m_and_the_queue_threshold_is_a_loss_event() {
        let mut q = blue(10, Config { queue_threshold_packets: 2, ..Config::default() });
        let mut rng = stream(2);
        q.probability = 1.0;
        assert!(matches!(q.enqueue(at(0.0), data(1, 500), &mut rng), Admission::Dropped { cause: DropCause::AqmDrop, .. }));
        q.probability = 0.0;
        for uid in 2..5 {
            q.enqueue(at(200.0), data(uid, 500), &mut rng);
        }
        // The 4th arrival (3 queued > L = 2) at 300 ms raises p_m.
        q.enqueue(at(300.0), data(5, 500), &mut rng);
        assert_eq!(q.probability(), 0.0025);
        // p_m never leaves [0, 1].
        q.probability = 0.9;
        q.step(at(1000.0), 0.7);
        assert_eq!(q.probability(), 1.0);
        q.step(at(2000.0), -3.0);
        assert_eq!(q.probability(), 0.0);
    }

    #[test]
    fn parameters_are_validated_naming_the_key() {
        let bad = [
            (Config { increment: 0.0, ..Config::default() }, "queue.increment"),
            (Config { decrement: 2.0, ..Config::default() }, "queue.decrement"),
            (Config { freeze_time_ms: -1.0, ..Config::default() }, "queue.freeze_time_ms"),
        ];
        for (config, key) in bad {
            assert_eq!(config.validate("queue").unwrap_err().key, key);
        }
        assert!(Config::default().validate("queue").is_ok());
    }
}
