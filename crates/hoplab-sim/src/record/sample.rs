//! One sample of the recording: what the world holds at the sample time,
//! and what its counters and frame trace say of the interval since the
//! last one. Reads only (the frame trace apart, which it empties).

use super::{FlowMarks, Recorder, RouteChange, TimelineEvent};
use crate::loss::DropCause;
use crate::mac::hop_control::HopStats;
use crate::net::routing::Routing;
use crate::time::SimTime;
use crate::wire::NodeId;
use crate::world::{TraceWhat, World};

/// `x` to three decimals (shorter JSON; the page draws no finer).
pub(crate) fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

fn permille(part_ns: u64, whole_ns: u64) -> u32 {
    if whole_ns == 0 {
        0
    } else {
        ((part_ns as f64 / whole_ns as f64) * 1e3).round().min(1e3) as u32
    }
}

impl Recorder {
    /// Take the sample at `now` (every event up to `now` processed).
    pub(super) fn sample(&mut self, world: &mut World, now: SimTime) {
        self.recording.times_s.push(round3(now.as_secs_f64()));
        if self.recording.mobile || self.recording.positions_dm.is_empty() {
            self.sample_positions(world, now);
        }
        self.sample_nodes(world, now);
        self.sample_frames(world);
        self.sample_flows(world, now);
        self.sample_routes(world, now);
        self.last_sample = now;
    }

    fn sample_positions(&mut self, world: &mut World, now: SimTime) {
        let mut at = Vec::with_capacity(2 * world.nodes.len());
        for i in 0..world.nodes.len() {
            let [x, y] = world.channel.position_at(NodeId(i as u32), now);
            at.push((x * 10.0).round() as i64);
            at.push((y * 10.0).round() as i64);
        }
        self.recording.positions_dm.push(at);
    }

    fn sample_nodes(&mut self, world: &World, now: SimTime) {
        let interval_ns = now.since(self.last_sample).as_nanos();
        let sample = self.recording.times_s.len() as u32 - 1;
        let n = world.nodes.len();
        let (mut queue, mut state, mut drops) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut tx, mut congested) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut counters = vec![Vec::with_capacity(n); HopStats::PER_INTERVAL.len()];
        for (i, node) in world.nodes.iter().enumerate() {
            let mac = &node.mac;
            queue.push(mac.queued_len() as u32);
            state.push(if mac.is_transmitting() {
                2
            } else if mac.serving().is_some() {
                1
            } else {
                0
            });
            let marks = &mut self.node_marks[i];
            let mut dropped = 0;
            for (c, cause) in DropCause::ALL.iter().enumerate() {
                let total = node.drops.get(cause).copied().unwrap_or(0);
                let new = total - marks.drops[c];
                if new > 0 {
                    self.recording.nodes.drops_by_cause.push([sample, i as u32, c as u32, new as u32]);
                }
                dropped += new;
                marks.drops[c] = total;
            }
            drops.push(dropped as u32);
            let hop = mac.hop_stats(now);
            for ((counter, series), mark) in HopStats::PER_INTERVAL.iter().zip(&mut counters).zip(&mut marks.hop_counters) {
                let total = (counter.read)(&hop);
                series.push((total - *mark) as u32);
                *mark = total;
            }
            congested.push(permille(hop.congested_ns - marks.congested_ns, interval_ns));
            tx.push(permille(mac.stats().tx_time_ns - marks.tx_time_ns, interval_ns));
            (marks.congested_ns, marks.tx_time_ns) = (hop.congested_ns, mac.stats().tx_time_ns);
        }
        let nodes = &mut self.recording.nodes;
        nodes.queue_packets.push(queue);
        nodes.mac_state.push(state);
        nodes.drops.push(drops);
        for (samples, series) in nodes.hop_control.iter_mut().zip(counters) {
            samples.per_interval.push(series);
        }
        nodes.tx_permille.push(tx);
        nodes.congested_permille.push(congested);
    }

    /// Count the interval's frames per node and keep an even spread of
    /// at most `frames_per_interval` of them.
    fn sample_frames(&mut self, world: &mut World) {
        let n = world.nodes.len();
        let (mut sent, mut errors) = (vec![0u32; n], vec![0u32; n]);
        let trace = world.trace.get_or_insert_with(Vec::new);
        let seen: Vec<_> = trace.drain(..).filter(|e| e.what != TraceWhat::RxOk).collect();
        let stride = seen.len().div_ceil(self.frames_per_interval).max(1);
        for (k, entry) in seen.iter().enumerate() {
            let (what, peer) = match entry.what {
                TraceWhat::Tx => {
                    sent[entry.node.index()] += 1;
                    (0, if entry.to == crate::mac::BROADCAST { -1 } else { i64::from(entry.to.0) })
                }
                _ => {
                    errors[entry.node.index()] += 1;
                    (1, i64::from(entry.from.0))
                }
            };
            if k % stride == 0 {
                let time_us = (entry.time.as_nanos() / 1_000) as i64;
                self.recording.frames.push([time_us, what, i64::from(entry.node.0), entry.kind as i64, peer]);
                self.recording.frames_kept += 1;
            }
        }
        self.recording.frames_seen += seen.len() as u64;
        self.recording.nodes.frames_sent.push(sent);
        self.recording.nodes.rx_errors.push(errors);
    }

    fn sample_flows(&mut self, world: &World, now: SimTime) {
        let interval_s = now.since(self.last_sample).as_secs_f64();
        let time_s = round3(now.as_secs_f64());
        let m = world.flows.len();
        let mut goodput = Vec::with_capacity(m);
        let (mut delay, mut delivered) = (Vec::with_capacity(m), Vec::with_capacity(m));
        let (mut cwnd, mut rate, mut srtt) = (Vec::with_capacity(m), Vec::with_capacity(m), Vec::with_capacity(m));
        for (i, flow) in world.flows.iter().enumerate() {
            let s = &flow.stats;
            let counters = match (&flow.tcp, &flow.semitcp) {
                (Some(c), _) => c.sender.counters,
                (_, Some(c)) => c.sender.counters,
                _ => Default::default(),
            };
            let discoveries = world.routing[flow.src.index()].counters().map_or(0, |r| r.discoveries.get(&flow.dst).copied().unwrap_or(0));
            let marks = FlowMarks {
                delivered: s.delivered,
                window_bytes: s.window_delivered_bytes,
                delay_total_ns: s.window_delay_total_ns,
                delay_samples: s.window_delay_samples,
                route_breaks: s.route_breaks,
                timeouts: counters.timeouts,
                discoveries,
            };
            let last = std::mem::replace(&mut self.flow_marks[i], marks);
            let bits = (marks.window_bytes - last.window_bytes) as f64 * 8.0;
            goodput.push(if interval_s > 0.0 { round3(bits / interval_s / 1e3) } else { 0.0 });
            let samples = marks.delay_samples - last.delay_samples;
            delay.push((samples > 0).then(|| round3((marks.delay_total_ns - last.delay_total_ns) as f64 / samples as f64 / 1e6)));
            delivered.push(marks.delivered - last.delivered);
            for (kind, new) in [
                ("route_break", marks.route_breaks - last.route_breaks),
                ("discovery", marks.discoveries - last.discoveries),
                ("timeout", marks.timeouts - last.timeouts),
            ] {
                if new > 0 {
                    self.recording.events.push(TimelineEvent { time_s, kind: kind.to_string(), flow: flow.id, count: new });
                }
            }
            cwnd.push(flow.tcp.as_ref().map(|c| round3(c.sender.state.cwnd)));
            let semi = flow.semitcp.as_ref();
            rate.push(semi.and_then(|c| c.pacing.interval()).map(|t| round3(flow.packet_bytes as f64 * 8.0 / t.as_secs_f64() / 1e3)));
            let tcp_srtt = flow.tcp.as_ref().and_then(|c| c.sender.state.srtt).map(|d| d.as_millis_f64());
            srtt.push(tcp_srtt.or_else(|| semi.and_then(|c| c.sender.srtt_ms())).map(round3));
        }
        let flows = &mut self.recording.flows;
        flows.goodput_kbps.push(goodput);
        flows.delay_ms.push(delay);
        flows.delivered.push(delivered);
        flows.cwnd_segments.push(cwnd);
        flows.rate_kbps.push(rate);
        flows.srtt_ms.push(srtt);
    }

    /// Note each flow's route when it differs from the last one noted;
    /// losing it and finding it again are timeline events too.
    fn sample_routes(&mut self, world: &World, now: SimTime) {
        let time_s = round3(now.as_secs_f64());
        for flow in &world.flows {
            let route = Recorder::route_now(world, flow.src, flow.dst, now);
            let last = &mut self.last_routes[flow.id as usize];
            if last.as_ref().is_some_and(|r| *r == route) || (last.is_none() && route.is_empty()) {
                continue;
            }
            let kind = match (last.as_ref().is_some_and(|r| !r.is_empty()), route.is_empty()) {
                (true, true) => Some("route_lost"),
                (false, false) => Some("route_found"),
                _ => None, // one route for another
            };
            if let Some(kind) = kind {
                self.recording.events.push(TimelineEvent { time_s, kind: kind.to_string(), flow: flow.id, count: 1 });
            }
            *last = Some(route.clone());
            self.recording.routes.push(RouteChange { time_s, flow: flow.id, route });
        }
    }
}
