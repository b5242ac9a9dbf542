//! The MAC's counters (the per-node figures of the papers,
//! docs/semitcp-2018.md): frames sent by kind, attempts per packet, service time, retry-limit
//! drops, queue length over time.

use crate::queue::QueueDrops;
use crate::time::{SimDuration, SimTime};

#[derive(Debug, Clone, Default)]
pub struct MacStats {
    /// Frames transmitted, by kind (RTS, CTS, DATA, ACK).
    pub frames_sent: [u64; 4],
    /// Unicast DATA packets that finished service (acknowledged or dropped).
    pub packets_served: u64,
    pub rts_attempts_total: u64,
    pub data_attempts_total: u64,
    pub service_time_total_ns: u128,
    pub rts_dropped: u64,
    pub data_dropped: u64,
    pub data_retries: u64,
    /// Retry-limit failures toward a next hop (reported to routing).
    pub link_failures: u64,
    /// Integral of the interface queue length over time (packets x ns).
    pub queue_area: u128,
    pub queue_len: u64,
    pub queue_changed_at: SimTime,
    /// The interface queue's drops, early and overflow.
    pub queue_drops: QueueDrops,
    pub tx_time_ns: u64,
    /// Figures since the last series sample.
    pub interval: IntervalStats,
}

/// Per-node MAC figures over one series sampling interval.
#[derive(Debug, Clone, Default)]
pub struct IntervalStats {
    pub packets_served: u64,
    pub service_time_total_ns: u128,
    pub rts_attempts_total: u64,
}

impl MacStats {
    /// Record a change of the interface queue length (time average).
    pub fn queue_changed(&mut self, now: SimTime, new_len: usize) {
        self.queue_area += self.queue_len as u128 * now.since(self.queue_changed_at).as_nanos() as u128;
        self.queue_len = new_len as u64;
        self.queue_changed_at = now;
    }

    /// A unicast packet finished service.
    pub fn packet_served(&mut self, service_time: SimDuration, rts_attempts: u32, data_attempts: u32) {
        self.packets_served += 1;
        self.rts_attempts_total += rts_attempts as u64;
        self.data_attempts_total += data_attempts as u64;
        self.data_retries += data_attempts.saturating_sub(1) as u64;
        self.service_time_total_ns += service_time.as_nanos() as u128;
        self.interval.packets_served += 1;
        self.interval.service_time_total_ns += service_time.as_nanos() as u128;
        self.interval.rts_attempts_total += rts_attempts as u64;
    }
}
