//! The run report: what a run returns (`hoplab run --json`; every field
//! described in docs/metrics.md).
//!
//! Scalars per flow and per node, plus optional long-format time series.
//! Maps are `BTreeMap` so the JSON is byte-identical for the same run.

use crate::engine::Section;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RunReport {
    pub name: String,
    pub version: String,
    /// SHA-256 of the normalised scenario without its seed (hex, 16 chars).
    pub config_hash: String,
    pub seed: u64,
    /// Simulated seconds (the scenario's `duration_s`).
    pub sim_seconds: f64,
    /// Wall-clock seconds of the event loop; the only field that differs
    /// between two runs of the same scenario and seed.
    pub wall_seconds: f64,
    /// Events processed by the engine.
    pub events: u64,
    /// The routing protocol's figures (zeros under static routing).
    pub routing: RoutingReport,
    pub flows: Vec<FlowReport>,
    pub nodes: Vec<NodeReport>,
    /// Every interface queue: each 802.11 interface's and each direction
    /// of each wired link's, by node then next node.
    pub queues: Vec<QueueReport>,
    /// Long-format series: one row per (time, flow or node, metric).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<Vec<SeriesRow>>,
    /// Things about the scenario worth knowing (e.g. a random waypoint
    /// minimum speed of zero); absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What `hoplab view` shows of the run (`RunOptions::record`); absent
    /// when not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<super::recording::Recording>,
}

/// Routing over the whole network (AODV; zeros under static routing).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RoutingReport {
    /// "static", "aodv" or "dsr".
    pub protocol: String,
    /// Routing packets transmitted, every hop counted (RREQ, RREP, RERR, HELLO).
    pub control_packets_sent: u64,
    /// Their IP bytes (AODV message + UDP + IP headers), whole run.
    pub control_bytes_sent: u64,
    /// The same, in the measurement window [warmup_s, duration_s].
    pub window_control_bytes_sent: u64,
    /// Application payload delivered in the measurement window, all flows.
    pub window_delivered_bytes: u64,
    /// Routing overhead: window_control_bytes_sent / window_delivered_bytes
    /// (0 when nothing was delivered).
    pub overhead: f64,
    /// Control messages transmitted, by the protocol's own names (AODV:
    /// "rreq", "rrep", "rerr", "hello"), every hop counted; empty for
    /// static routes.
    pub messages_sent: BTreeMap<String, u64>,
    /// Route requests originated (discovery attempts, expanding ring steps
    /// included).
    pub requests_originated: u64,
    /// Route discoveries started (all nodes; local repairs apart).
    pub route_discoveries: u64,
    pub discoveries_succeeded: u64,
    /// Discoveries abandoned after their last RREQ (packets dropped, `no_route`).
    pub discoveries_failed: u64,
    /// Mean time from a discovery's start to its route.
    pub mean_discovery_ms: f64,
    pub local_repairs: u64,
    /// Links found broken (MAC retry-limit feedback or HELLO loss).
    pub link_breaks: u64,
    /// Routing packets dropped (queue overflow, MAC retry limit, no route).
    pub control_drops: u64,
    /// Route errors not sent because of a rate limit (AODV: RERR_RATELIMIT).
    pub errors_rate_limited: u64,
    /// What the protocol alone counts, by its own names (DSR: `dsr`, an
    /// object of its figures; docs/metrics.md), beside the fields above.
    #[serde(flatten)]
    pub protocol_counters: Section,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct FlowReport {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub transport: String,
    /// Congestion controller (TCP only).
    pub cc: Option<String>,
    pub app: String,
    pub packet_bytes: u32,
    /// Hops of the shortest path at the start (the static route; 0 if
    /// moving nodes start disconnected).
    pub hops: u32,
    /// Application payload delivered in the measurement window
    /// [warmup_s, duration_s] x 8 / window length.
    pub goodput_kbps: f64,
    /// Offered load in the measurement window (payload bits generated / s).
    pub offered_kbps: f64,
    /// Mean end-to-end delay of packets delivered in the window (TCP: one-way
    /// delay of each data segment received for the first time).
    pub mean_delay_ms: f64,
    /// Packets sent in the data direction (whole run): UDP datagrams, TCP
    /// data segments including retransmissions.
    pub sent: u64,
    /// Data-direction packets that reached the destination (whole run; TCP
    /// duplicates included).
    pub delivered: u64,
    /// Packets still queued or on the air at the end.
    pub in_flight: u64,
    /// TCP: data segments sent again.
    pub retransmissions: u64,
    /// TCP: retransmission timer expiries.
    pub timeouts: u64,
    /// TCP: fast retransmits (recoveries entered).
    pub fast_retransmits: u64,
    /// Lost packets by cause (whole run); sent = delivered + sum(losses) + in_flight.
    pub losses: BTreeMap<String, u64>,
    /// TCP: ACKs (and SYN-ACKs) sent by the receiver; likewise
    /// acks_sent = acks_delivered + sum(ack_losses) + acks_in_flight.
    pub acks_sent: u64,
    pub acks_delivered: u64,
    pub acks_in_flight: u64,
    pub ack_losses: BTreeMap<String, u64>,
    /// TCP with `file_bytes`: when the last segment was acknowledged.
    pub completion_s: Option<f64>,
    /// AODV: route discoveries the flow's source started toward its destination.
    pub route_discoveries: u64,
    /// The source's routes to the destination lost to a received route
    /// error (AODV: RERR).
    pub route_errors_received: u64,
    /// AODV: link breaks found while forwarding this flow's packets (data
    /// or ACKs), at any node.
    pub route_breaks: u64,
    /// What the flow's transport and controller alone count, by their own
    /// names (semi-TCP's rate control; a receiver-aided controller's
    /// verdicts against the true causes: docs/metrics.md), null or zero
    /// for flows without them.
    #[serde(flatten)]
    pub transport_counters: Section,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct NodeReport {
    pub id: u32,
    pub x_m: f64,
    pub y_m: f64,
    /// RTS frames transmitted (every attempt).
    pub rts_sent: u64,
    /// APR: RTS attempts per unicast DATA packet that finished service.
    pub rts_attempts_per_packet: f64,
    /// DATA attempts per unicast DATA packet that finished service.
    pub data_attempts_per_packet: f64,
    /// Packets dropped because the RTS reached the short retry limit.
    pub rts_dropped: u64,
    /// Packets dropped because the DATA reached its retry limit.
    pub data_dropped: u64,
    /// DATA retransmissions (attempts beyond the first).
    pub data_retries: u64,
    /// Packets dropped at the RTS retry limit / packets served.
    pub rts_drop_ratio: f64,
    /// MST: mean time from head of queue to ACK or drop.
    pub mac_service_time_ms: f64,
    /// Time-averaged interface queue length (packets, excluding the one in service).
    pub queue_mean: f64,
    /// Unicast DATA packets that finished service (acknowledged or dropped).
    pub packets_served: u64,
    /// Frames this node transmitted, by kind.
    pub frames_sent: BTreeMap<String, u64>,
    /// Packets this node dropped, by cause.
    pub drops: BTreeMap<String, u64>,
    /// Fraction of the run the radio was transmitting.
    pub tx_time_fraction: f64,
    /// Routing messages this node transmitted (originated or forwarded), by
    /// the protocol's own names; empty for static routes.
    pub routing_messages_sent: BTreeMap<String, u64>,
    /// IP bytes of the routing packets it transmitted.
    pub routing_bytes_sent: u64,
    /// Routing packets it dropped (not in `drops`, which counts data).
    pub routing_drops: u64,
    /// The hop-by-hop control's counters, by its own names (semi-TCP's
    /// RTSC / CTSC figures; docs/metrics.md), zeros under plain DCF.
    #[serde(flatten)]
    pub hop_control: Section,
}

/// One interface queue: a node's 802.11 interface queue, or one direction
/// of a wired link's.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct QueueReport {
    /// The node whose queue it is.
    pub node: u32,
    /// The wired link's far end; None (null) for the 802.11 interface.
    pub to: Option<u32>,
    /// "drop_tail", "red", "rem", "pi" or "blue".
    pub discipline: String,
    /// Time-averaged packets waiting (the one being sent excluded), whole
    /// run; for an 802.11 interface the node's `queue_mean`.
    pub mean_packets: f64,
    /// Packets active queue management dropped early (`aqm_drop`), routing
    /// packets included.
    pub early_drops: u64,
    /// Packets that found the queue full, or were pushed out by a routing
    /// packet (`queue_overflow`), routing packets included.
    pub overflow_drops: u64,
    /// The discipline's parameters in effect, automatic ones resolved (RED:
    /// `min_thresh_packets`, `max_thresh_packets`, `q_weight`, `max_p`,
    /// `packet_time_constant_per_s`); empty for drop-tail.
    pub params: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct SeriesRow {
    pub time_s: f64,
    /// "flow" or "node".
    pub entity: String,
    pub id: u32,
    pub metric: String,
    pub value: f64,
}

/// The simulator's version (the crate version), in every report.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The field names of each part of the report, as the JSON spells them
/// (sorted): "run" (the top level), "routing", "flows", "nodes", "queues",
/// "series".
/// What the Python side reads instead of keeping its own list.
/// `sections`: the variants' own keys, by part ("flows", "nodes",
/// "routing.<protocol>").
pub fn field_names(sections: Vec<(&'static str, Vec<String>)>) -> BTreeMap<&'static str, Vec<String>> {
    fn keys<T: Serialize>(value: &T) -> Vec<String> {
        match serde_json::to_value(value) {
            Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }
    // The optional parts present, so that their keys are listed too.
    let run =
        RunReport { series: Some(Vec::new()), warnings: vec![String::new()], recording: Some(Default::default()), ..RunReport::default() };
    let mut names = BTreeMap::from([
        ("run", keys(&run)),
        ("routing", keys(&RoutingReport::default())),
        ("flows", keys(&FlowReport::default())),
        ("nodes", keys(&NodeReport::default())),
        ("queues", keys(&QueueReport::default())),
        ("series", keys(&SeriesRow::default())),
    ]);
    for (part, keys) in sections {
        let list = names.entry(part).or_default();
        list.extend(keys);
        list.sort();
        list.dedup();
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_list_every_key_of_a_report() {
        let names = field_names(vec![("nodes", vec!["x".to_string()])]);
        assert!(names["nodes"].contains(&"x".to_string()));
        assert!(names["run"].contains(&"series".to_string()) && names["run"].contains(&"warnings".to_string()));
        assert!(names["flows"].contains(&"losses".to_string()));
        assert!(names["nodes"].contains(&"routing_messages_sent".to_string()));
        assert!(names["routing"].contains(&"messages_sent".to_string()));
        assert_eq!(names["series"], ["entity", "id", "metric", "time_s", "value"]);
    }
}
