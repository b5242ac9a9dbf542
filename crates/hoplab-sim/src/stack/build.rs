//! Each flow's transport and application, built from the scenario.

use super::{Flow, NodeStack};
use crate::config::ConfigError;
use crate::engine::Timer;
use crate::net::StaticRoutes;
use crate::scenario::{FlowConfig, RateControlKind, Scenario, Transport};
use crate::stats::FlowStats;
use crate::time::{SimDuration, SimTime};
use crate::transport::semitcp::connection::{Pacing, SemiTcpConnection};
use crate::transport::semitcp::matcp::MatcpRateControl;
use crate::transport::semitcp::rate_control::{BinarySearchRateControl, RateControlAlgorithm};
use crate::transport::semitcp::sender::SemiTcpSender;
use crate::transport::semitcp::sink::AckQueue;
use crate::transport::tcp::connection::TcpConnection;
use crate::transport::tcp::receiver::Receiver as TcpReceiver;
use crate::transport::tcp::sender::Sender as TcpSender;
use crate::wire::NodeId;

/// Every flow of the scenario, ready to start; `routes`: the static
/// routes of the initial topology (a flow's hops), `mobile`: whether nodes
/// move (then they need not start connected), `tx_range_m`: the decoding
/// range (for the error), `end`: the run's end. Fails (naming the key)
/// if a flow's endpoints cannot reach each other.
pub fn flows(scenario: &Scenario, routes: &StaticRoutes, mobile: bool, tx_range_m: f64, end: SimTime) -> Result<Vec<Flow>, ConfigError> {
    let mut flows = Vec::with_capacity(scenario.flows.len());
    for (i, f) in scenario.flows.iter().enumerate() {
        // Moving nodes may meet later: only fixed ones must be connected.
        let hops = routes.hops(NodeId(f.src), NodeId(f.dst)).or(mobile.then_some(0)).ok_or_else(|| {
            ConfigError::new(
                format!("flows[{i}].dst"),
                format!(
                    "node {} cannot reach node {} over wired links and radio links of the {:.0} m decoding range",
                    f.src, f.dst, tx_range_m
                ),
            )
        })?;
        let interval = match f.rate_kbps {
            Some(rate_kbps) => SimDuration::from_secs_f64(f.packet_bytes as f64 * 8.0 / (rate_kbps * 1e3)),
            None => SimDuration::ZERO,
        };
        let semitcp = (f.transport == Transport::Semitcp).then(|| semitcp_connection(scenario, f));
        let tcp = (f.transport == Transport::Tcp).then(|| tcp_connection(scenario, f));
        flows.push(Flow {
            id: i as u32,
            src: NodeId(f.src),
            dst: NodeId(f.dst),
            transport: f.transport,
            app: f.app,
            packet_bytes: f.packet_bytes,
            interval: interval.max(SimDuration::from_nanos(1)),
            start: SimTime::from_secs_f64(f.start_s),
            stop: f.stop_s.map_or(end, SimTime::from_secs_f64).min(end),
            next_sequence: 0,
            hops,
            stats: FlowStats {
                loss_classification: tcp.as_ref().filter(|c| c.receiver.has_aid()).map(|_| Box::default()),
                ..FlowStats::default()
            },
            tcp,
            semitcp,
            timers: [Timer::default(); 2],
            held_acks: (f.transport == Transport::Semitcp && scenario.semitcp.sink_holds_acks)
                .then(|| AckQueue::new(scenario.semitcp.sink_ack_queue_packets as usize)),
        });
    }
    Ok(flows)
}

/// Each node's policy toward its agents.
pub fn node_stack(scenario: &Scenario) -> NodeStack {
    NodeStack {
        pulls: scenario.flows.iter().any(|f| f.transport == Transport::Semitcp)
            && (scenario.semitcp.sink_holds_acks || scenario.semitcp.source_pull),
        pull_turn: 0,
        room_threshold: scenario.semitcp.mac.congestion_threshold as usize,
    }
}

/// A semi-TCP flow's connection: its sender, its sink (every segment
/// acknowledged at once, on its own if out of order) and its pacing.
fn semitcp_connection(scenario: &Scenario, f: &FlowConfig) -> SemiTcpConnection {
    let total_segments = f.file_bytes.map(|b| b.div_ceil(f.packet_bytes as u64));
    let sender =
        SemiTcpSender::new(&scenario.tcp, total_segments).with_recovery(scenario.semitcp.loss_recovery, scenario.semitcp.rto_backoff);
    let receiver = TcpReceiver::new(false, 1, scenario.tcp.delayed_ack_ms);
    let pacing = match f.rate_control.unwrap_or_default() {
        RateControlKind::None => Pacing::Buffer,
        RateControlKind::Fixed => {
            Pacing::Fixed { interval: SimDuration::from_secs_f64(f.packet_bytes as f64 * 8.0 / (f.rate_kbps.unwrap_or(1.0) * 1e3)) }
        }
        RateControlKind::BinarySearch => match scenario.semitcp.rate_control.algorithm {
            RateControlAlgorithm::Paper => {
                let mut rc = BinarySearchRateControl::new(scenario.semitcp.rate_control.clone(), f.packet_bytes);
                rc.max_rate_kbps = scenario.radio.data_rate_mbps * 1e3;
                Pacing::BinarySearch(Box::new(rc))
            }
            RateControlAlgorithm::Matcp => {
                Pacing::Matcp(Box::new(MatcpRateControl::new(scenario.semitcp.rate_control.matcp.clone(), f.packet_bytes)))
            }
        },
    };
    SemiTcpConnection::new(sender, receiver, pacing, scenario.semitcp.reserved_packets as usize)
        .with_source_pull(scenario.semitcp.source_pull)
}

/// A TCP flow's connection: its controller (`cc`), sender and receiver
/// (with the controller's receiver half, if it has one).
fn tcp_connection(scenario: &Scenario, f: &FlowConfig) -> TcpConnection {
    let cc_config = f.cc.clone().unwrap_or_default();
    let total_segments = f.file_bytes.map(|b| b.div_ceil(f.packet_bytes as u64));
    let sender = TcpSender::new(cc_config.build(), scenario.tcp.clone(), f.packet_bytes, total_segments);
    let tcp = &scenario.tcp;
    let mut receiver = TcpReceiver::new(tcp.delayed_ack, tcp.delayed_ack_segments, tcp.delayed_ack_ms).with_sack(tcp.sack);
    if let Some(aid) = cc_config.receiver_aid() {
        receiver = receiver.with_aid(aid);
    }
    TcpConnection::new(sender, receiver)
}
