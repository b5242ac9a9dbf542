//! The data of a recorded run (`RunReport::recording`, `hoplab view`):
//! what `record/` samples while the run goes, kept here beside the rest of
//! the report's types so that the report names no module above it.

use serde::{Deserialize, Serialize};

/// What a recorded run adds to its report (`RunReport::recording`).
/// Arrays per sample are indexed `[sample][node]` or `[sample][flow]`;
/// sample `i` is at `times_s[i]` and its windowed figures cover
/// `(times_s[i - 1], times_s[i]]`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Recording {
    /// The format of this structure (2; 1 kept semi-TCP's RTSCs as
    /// `nodes.rtsc_sent`, now one of `nodes.hop_control`).
    pub format: u32,
    pub interval_s: f64,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// The radio's decoding and carrier-sense ranges (two-ray ground, as
    /// the channel computes them).
    pub tx_range_m: f64,
    pub cs_range_m: f64,
    /// Whether nodes move (then `positions_dm` has one entry per sample).
    pub mobile: bool,
    /// The area nodes move in (random waypoint), if they move.
    pub area_m: Option<[f64; 2]>,
    /// Whether each node has an 802.11 interface.
    pub has_radio: Vec<bool>,
    /// Wired links (node, node).
    pub wired_links: Vec<[u32; 2]>,
    /// Each flow's (source, destination).
    pub flow_ends: Vec<[u32; 2]>,
    pub times_s: Vec<f64>,
    /// Every node's x then y in decimetres: one entry per sample when
    /// nodes move, else one entry.
    pub positions_dm: Vec<Vec<i64>>,
    pub nodes: NodeSamples,
    pub flows: FlowSamples,
    /// Each flow's route whenever it changed (at the sample that saw it).
    pub routes: Vec<RouteChange>,
    /// Route breaks, losses and finds, discoveries and timeouts, at the
    /// sample that counted them.
    pub events: Vec<TimelineEvent>,
    /// Individual frames: `[time_us, what, node, kind, peer]`; `what` 0:
    /// `node` started sending it to `peer` (-1: broadcast), 1: `node`
    /// received it in error (a collision or a channel error) from `peer`;
    /// `kind` 0-3: RTS, CTS, DATA, ACK.
    pub frames: Vec<[i64; 5]>,
    /// Frame transmissions and receptions in error the run had, and how
    /// many `frames` keeps.
    pub frames_seen: u64,
    pub frames_kept: u64,
    /// The names of the causes in `nodes.drops_by_cause`.
    pub drop_causes: Vec<String>,
}

/// Per node, per sample.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct NodeSamples {
    /// Packets in the interface queue at the sample.
    pub queue_packets: Vec<Vec<u32>>,
    /// The MAC at the sample: 0 idle, 1 a packet in service (contending,
    /// in an exchange), 2 transmitting.
    pub mac_state: Vec<Vec<u8>>,
    /// In the interval: frames transmitted, frames received in error,
    /// packets dropped (every cause).
    pub frames_sent: Vec<Vec<u32>>,
    pub rx_errors: Vec<Vec<u32>>,
    pub drops: Vec<Vec<u32>>,
    /// In the interval: the hop-by-hop control's counters that a
    /// recording follows, as the MAC's hop control names and describes
    /// them (`mac::hop_control::HopStats::PER_INTERVAL`; zeros without a
    /// hop control).
    pub hop_control: Vec<CounterSamples>,
    /// Thousandths of the interval spent transmitting, and congested
    /// (the hop-by-hop control's state).
    pub tx_permille: Vec<Vec<u32>>,
    pub congested_permille: Vec<Vec<u32>>,
    /// Drops in the interval by cause: `[sample, node, cause, count]`,
    /// `cause` indexing `Recording::drop_causes`.
    pub drops_by_cause: Vec<[u32; 4]>,
}

/// One counter per node, per sample.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CounterSamples {
    /// Its key in the report's section that holds it.
    pub key: String,
    /// What it counts (the view's label).
    pub label: String,
    /// The count in each interval, `[sample][node]`.
    pub per_interval: Vec<Vec<u32>>,
}

/// Per flow, per sample.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct FlowSamples {
    /// Payload delivered in order in the interval, as the report counts
    /// goodput: inside the measurement window only (0 before `warmup_s`).
    pub goodput_kbps: Vec<Vec<f64>>,
    /// Mean end-to-end delay of the packets delivered in the interval
    /// (measurement window; null when none).
    pub delay_ms: Vec<Vec<Option<f64>>>,
    /// Data packets that reached the destination in the interval (the
    /// whole run, duplicates included): what stalls are found from.
    pub delivered: Vec<Vec<u64>>,
    /// TCP's congestion window (segments) at the sample; null otherwise.
    pub cwnd_segments: Vec<Vec<Option<f64>>>,
    /// Semi-TCP's source rate at the sample; null otherwise.
    pub rate_kbps: Vec<Vec<Option<f64>>>,
    /// The smoothed RTT at the sample (TCP, semi-TCP), once measured.
    pub srtt_ms: Vec<Vec<Option<f64>>>,
}

/// A flow's route from that time on: its nodes from source to
/// destination; empty: no usable route.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RouteChange {
    pub time_s: f64,
    pub flow: u32,
    pub route: Vec<u32>,
}

/// One entry of the page's timeline.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct TimelineEvent {
    pub time_s: f64,
    /// "route_break" (links found broken forwarding the flow's packets),
    /// "route_lost" (the source has no usable route any more),
    /// "route_found" (it has one again: a rediscovery or repair),
    /// "discovery" (the source started route discoveries), "timeout"
    /// (retransmission timeouts).
    pub kind: String,
    pub flow: u32,
    /// How many in the interval (1 for route_lost / route_found).
    pub count: u64,
}
