//! Statistics: counters kept during the run and the report built at its end.
//!
//! Per node: the MAC figures of the papers (attempts per RTS and per DATA,
//! service time, RTS drops, queue length) and drops by cause. Per flow: sent,
//! delivered, goodput and delay over the measurement window, losses by cause.

pub mod report;

use crate::time::SimTime;
use std::collections::BTreeMap;

/// Why a packet was lost. The ground truth that loss-differentiation schemes
/// are scored against (DESIGN.md, "Every drop has a cause").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropCause {
    /// The interface queue was full (drop-tail).
    QueueOverflow,
    /// The MAC gave up after its retry limit (collisions, hidden terminals).
    RetryLimit,
    /// The MAC gave up after its retry limit and the last attempt was lost
    /// to the frame error model (a wireless, not a congestion, loss).
    ChannelError,
    /// No route to the destination: no static route, or (AODV) the route
    /// discovery failed or the request queue overflowed or timed out.
    NoRoute,
    /// The packet's route broke under it (AODV): its next hop failed or
    /// moved out of range and there was no other way (dropped where the
    /// break was found, or after a failed local repair).
    RouteBreak,
    /// Time to live exhausted.
    Ttl,
}

impl DropCause {
    pub fn name(self) -> &'static str {
        match self {
            DropCause::QueueOverflow => "queue_overflow",
            DropCause::RetryLimit => "retry_limit",
            DropCause::ChannelError => "channel_error",
            DropCause::NoRoute => "no_route",
            DropCause::RouteBreak => "route_break",
            DropCause::Ttl => "ttl",
        }
    }
}

/// Counters of one node.
#[derive(Debug, Clone, Default)]
pub struct NodeStats {
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
    pub drops: BTreeMap<DropCause, u64>,
    /// Integral of the interface queue length over time (packets x ns).
    pub queue_area: u128,
    pub queue_len: u64,
    pub queue_changed_at: SimTime,
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

impl NodeStats {
    /// Record a change of the interface queue length (time average).
    pub fn queue_changed(&mut self, now: SimTime, new_len: usize) {
        self.queue_area += self.queue_len as u128 * now.since(self.queue_changed_at).as_nanos() as u128;
        self.queue_len = new_len as u64;
        self.queue_changed_at = now;
    }
}

/// Counters of one flow. `sent` / `delivered` / `losses` count packets in
/// the data direction (UDP datagrams, TCP data segments with their
/// retransmissions and SYNs); `acks_*` count TCP ACKs and SYN-ACKs.
#[derive(Debug, Clone, Default)]
pub struct FlowStats {
    pub sent: u64,
    /// Data-direction packets that reached the destination (TCP: duplicate
    /// segments included).
    pub delivered: u64,
    pub losses: BTreeMap<DropCause, u64>,
    pub acks_sent: u64,
    pub acks_delivered: u64,
    pub ack_losses: BTreeMap<DropCause, u64>,
    /// Payload bytes delivered inside the measurement window.
    pub window_delivered_bytes: u64,
    pub window_delivered_packets: u64,
    pub window_delay_total_ns: u128,
    /// Packets whose delay is in `window_delay_total_ns`.
    pub window_delay_samples: u64,
    /// Payload bytes generated inside the measurement window.
    pub window_offered_bytes: u64,
    /// Payload bytes delivered since the last series sample.
    pub interval_delivered_bytes: u64,
    /// Link breaks found while forwarding this flow's packets (either
    /// direction; AODV).
    pub route_breaks: u64,
}
