//! Statistics: counters kept during the run and the report built at its end.
//!
//! Per node: the MAC figures of the papers (attempts per RTS and per DATA,
//! service time, RTS drops, queue length) and drops by cause. Per flow: sent,
//! delivered, goodput and delay over the measurement window, losses by cause.

pub mod classification;
pub mod recording;
pub mod report;

use std::collections::BTreeMap;

pub use crate::loss::DropCause;

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
    /// Receiver-aided flows (TCP-RA): verdicts against the true causes.
    pub loss_classification: Option<Box<classification::LossClassification>>,
}
