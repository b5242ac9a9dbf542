//! The run report, built at the end of a run from every layer's counters:
//! the MAC's ([`MacStats`](crate::mac::MacStats)) and its hop control's
//! ([`HopStats`](crate::mac::hop_control::HopStats)), the routing
//! protocol's ([`RoutingCounters`](crate::net::routing::RoutingCounters)),
//! the transports', and the world's flow and drop counters.

use super::{Flow, Node, RunOptions, World};
use crate::loss::DropCause;
use crate::mac::FrameKind;
use crate::net::routing::{Routing, RoutingProtocol};
use crate::queue::QueueDisc;
use crate::stats::report::{FlowReport, NodeReport, QueueReport, RunReport};
use crate::wire::NodeId;
use std::collections::BTreeMap;

impl World {
    /// Build the report at the end of the run.
    pub fn report(&mut self, wall_seconds: f64, options: RunOptions) -> RunReport {
        let now = self.end;
        for node in &mut self.nodes {
            node.mac.close_stats(now);
        }
        let in_flight = self.in_flight_per_flow();
        let flows = self.flows.iter().map(|f| self.flow_report(f, in_flight[f.id as usize])).collect();
        let end = self.end;
        let positions: Vec<[f64; 2]> = (0..self.nodes.len()).map(|i| self.channel.position_at(NodeId(i as u32), end)).collect();
        let nodes = self.nodes.iter().map(|n| self.node_report(n, positions[n.id.index()])).collect();
        let run_ns = self.end.as_nanos().max(1) as f64;
        let queues = self.queue_reports(run_ns);
        RunReport {
            name: self.name.clone(),
            version: crate::stats::report::version().to_string(),
            config_hash: self.config_hash.clone(),
            seed: self.seed,
            sim_seconds: self.end.as_secs_f64(),
            wall_seconds,
            events: self.queue.popped() - self.sampling_ticks,
            routing: self.routing_report(),
            flows,
            nodes,
            queues,
            series: options.series.then(|| std::mem::take(&mut self.series)),
            warnings: self.warnings.clone(),
            recording: None,
        }
    }

    /// One flow's entry; `in_flight`: its packets still under way (data,
    /// ACKs).
    fn flow_report(&self, f: &Flow, in_flight: (u64, u64)) -> FlowReport {
        let window_s = self.end.since(self.warmup).as_secs_f64();
        let counters = f.sender_counters();
        let routing = self.routing[f.src.index()].counters();
        let by_destination = |map: Option<&BTreeMap<NodeId, u64>>| map.and_then(|m| m.get(&f.dst).copied()).unwrap_or(0);
        FlowReport {
            id: f.id,
            src: f.src.0,
            dst: f.dst.0,
            transport: f.transport.name().to_string(),
            cc: f.cc_name().map(str::to_string),
            app: f.app.name().to_string(),
            packet_bytes: f.packet_bytes,
            hops: f.hops,
            goodput_kbps: f.stats.window_delivered_bytes as f64 * 8.0 / window_s / 1e3,
            offered_kbps: f.stats.window_offered_bytes as f64 * 8.0 / window_s / 1e3,
            mean_delay_ms: if f.stats.window_delay_samples > 0 {
                f.stats.window_delay_total_ns as f64 / f.stats.window_delay_samples as f64 / 1e6
            } else {
                0.0
            },
            sent: f.stats.sent,
            delivered: f.stats.delivered,
            in_flight: in_flight.0,
            retransmissions: counters.retransmissions,
            timeouts: counters.timeouts,
            fast_retransmits: counters.fast_retransmits,
            losses: cause_map(&f.stats.losses),
            acks_sent: f.stats.acks_sent,
            acks_delivered: f.stats.acks_delivered,
            acks_in_flight: in_flight.1,
            ack_losses: cause_map(&f.stats.ack_losses),
            completion_s: f.completed_at().map(|t| t.as_secs_f64()),
            route_discoveries: by_destination(routing.map(|r| &r.discoveries)),
            route_errors_received: by_destination(routing.map(|r| &r.errors_received)),
            route_breaks: f.stats.route_breaks,
            transport_counters: f.report_section(),
        }
    }

    /// One node's entry; `pos`: where it is at the end.
    fn node_report(&self, n: &Node, pos: [f64; 2]) -> NodeReport {
        let run_ns = self.end.as_nanos().max(1) as f64;
        let s = n.mac.stats();
        let served = s.packets_served.max(1) as f64;
        let per_packet = |total: u64| if s.packets_served > 0 { total as f64 / served } else { 0.0 };
        let routing = self.routing[n.id.index()].counters();
        let frames_sent = [FrameKind::Rts, FrameKind::Cts, FrameKind::Data, FrameKind::Ack]
            .into_iter()
            .map(|kind| (kind.name().to_string(), s.frames_sent[kind as usize]))
            .collect();
        let rts_sent = s.frames_sent[FrameKind::Rts as usize];
        NodeReport {
            id: n.id.0,
            x_m: pos[0],
            y_m: pos[1],
            rts_sent,
            rts_attempts_per_packet: per_packet(s.rts_attempts_total),
            data_attempts_per_packet: per_packet(s.data_attempts_total),
            rts_dropped: s.rts_dropped,
            data_dropped: s.data_dropped,
            data_retries: s.data_retries,
            rts_drop_ratio: per_packet(s.rts_dropped),
            mac_service_time_ms: if s.packets_served > 0 { s.service_time_total_ns as f64 / served / 1e6 } else { 0.0 },
            queue_mean: s.queue_area as f64 / run_ns,
            packets_served: s.packets_served,
            frames_sent,
            drops: cause_map(&n.drops),
            tx_time_fraction: s.tx_time_ns as f64 / run_ns,
            routing_messages_sent: routing
                .map(|r| r.messages_sent.iter().map(|(&name, &n)| (name.to_string(), n)).collect())
                .unwrap_or_default(),
            routing_bytes_sent: routing.map_or(0, |r| r.control_bytes_sent),
            routing_drops: routing.map_or(0, |r| r.control_drops),
            hop_control: n.mac.hop_control_section(self.end, rts_sent, run_ns),
        }
    }
}

/// Every variant's own report keys, by part of the report
/// (`_core.report_fields()`).
pub fn field_names() -> BTreeMap<&'static str, Vec<String>> {
    let mut sections = RoutingProtocol::report_keys();
    sections.push(("nodes", crate::mac::hop_control::HopStats::report_keys()));
    sections.push(("flows", Flow::report_keys()));
    crate::stats::report::field_names(sections)
}

impl World {
    /// One entry per interface queue (802.11 interfaces of the nodes with a
    /// radio, both directions of every link), by node then next node.
    fn queue_reports(&mut self, run_ns: f64) -> Vec<QueueReport> {
        let report = |node: NodeId, to: Option<NodeId>, queue: &dyn QueueDisc, area: u128, drops: crate::queue::QueueDrops| QueueReport {
            node: node.0,
            to: to.map(|n| n.0),
            discipline: queue.name().to_string(),
            mean_packets: area as f64 / run_ns,
            early_drops: drops.early,
            overflow_drops: drops.overflow,
            params: queue.params().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        };
        let mut queues: Vec<QueueReport> = self
            .nodes
            .iter()
            .filter(|n| self.channel.has_radio(n.id))
            .map(|n| report(n.id, None, n.mac.queue_disc(), n.mac.stats().queue_area, n.mac.stats().queue_drops))
            .collect();
        let end = self.end;
        for link in &mut self.links {
            for direction in 0..2u8 {
                let (from, to) = link.ends(direction);
                let d = &mut link.directions[direction as usize];
                let len = d.queue.len();
                d.queue_changed(end, len);
                queues.push(report(from, Some(to), &d.queue, d.queue_area, d.drops));
            }
        }
        queues.sort_by_key(|q| (q.node, q.to));
        queues
    }
}

fn cause_map(causes: &BTreeMap<DropCause, u64>) -> BTreeMap<String, u64> {
    causes.iter().map(|(cause, &count)| (cause.name().to_string(), count)).collect()
}
