//! What a run will cost, before it runs: its events and the memory it will
//! hold (`hoplab validate`, `hoplab.Scenario.estimate()`), and the check
//! that refuses a run whose fixed memory cannot fit its budget before a
//! byte of it is allocated.
//!
//! Cheap by design: the nodes are placed (O(n)) but no neighbour list is
//! built. Neighbour entries come from binning the positions into cells one
//! carrier-sense range wide: counted exactly (every candidate pair's
//! distance) while the candidates are few, otherwise estimated as the
//! candidates x pi/9 (the disc's share of the 3 x 3 cells for evenly spread
//! nodes). Events come from the offered load: each flow's packets per
//! second (CBR: its rate; bulk: what one 802.11 exchange per packet allows
//! on a path that reuses the channel every three hops), its hops (the
//! straight-line distance over the transmission range), the frames per hop
//! (RTS, CTS, DATA, ACK, and TCP's ACKs back) and the events per frame (its
//! end at the sender, its arrival and end at each node in carrier-sense
//! range, the MAC's timers), with all flows together held to one exchange
//! at a time per carrier-sense disc the network covers; AODV's hellos on
//! top. On the examples (30 s) it is within a factor of two of the real
//! count, except the mobile semi-TCP network (x5.6: its routes are broken
//! for long stretches); the test holds it within six. It tells a
//! 10^7-event run from a 10^11-event one, no more.

use crate::engine::RngStreams;
use crate::error::ApiError;
use crate::mac::MacTiming;
use crate::phy::RadioModel;
use crate::scenario::{AppKind, Scenario, Transport};
use crate::world::budget::{self, format_bytes, with_commas};
use serde::Serialize;
use std::collections::HashMap;

/// Candidate pairs up to which neighbour entries are counted exactly.
const EXACT_PAIRS: u64 = 20_000_000;

/// Series rows per sample of a node (queue, service time, attempts) and of
/// a flow (goodput, window, RTTs, routing and controller variables).
const SERIES_ROWS_PER_NODE: u64 = 3;
const SERIES_ROWS_PER_FLOW: u64 = 10;

/// A run's cost, estimated before it starts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Simulation events (the report's `events`), order of magnitude.
    pub events: u64,
    /// Memory the run will hold at its end (the parts below).
    pub memory_bytes: u64,
    pub neighbour_entries: u64,
    /// Whether `neighbour_entries` was counted pair by pair.
    pub neighbours_exact: bool,
    /// Series rows the run would keep if asked for its series.
    pub series_rows: u64,
    pub parts: Vec<EstimatePart>,
}

/// One part of a run's memory: what the run will hold, counted as the
/// run itself counts it (`world::budget`, and each layer's own holdings).
pub type EstimatePart = crate::engine::Holding;

/// Estimate a validated scenario's events and memory; `series`: the run
/// keeps its time series.
pub fn estimate(scenario: &Scenario, series: bool) -> Result<Estimate, ApiError> {
    let radio = RadioModel::from_config(&scenario.radio);
    let streams = RngStreams::new(scenario.seed);
    let layout = crate::topology::place(&scenario.topology, &radio, &streams, false)?;
    let (neighbour_entries, neighbours_exact) = neighbour_entries(&layout.positions, &layout.has_radio, radio.reach_range_m());
    let nodes = layout.positions.len() as u64;
    let radios = layout.has_radio.iter().filter(|&&r| r).count().max(1) as u64;
    let mean_neighbours = neighbour_entries as f64 / radios as f64;

    let timing = MacTiming::new(&scenario.mac, &scenario.radio, radio.tx_range_m());
    let tx_range_m = radio.tx_range_m();
    let mut frames_per_s = 0.0;
    let mut exchanges_per_s = 0.0;
    let mut shortest_exchange_s = f64::INFINITY;
    let mut wired_packets_per_s = 0.0;
    for flow in &scenario.flows {
        let (src, dst) = (flow.src as usize, flow.dst as usize);
        let wired = !(layout.has_radio[src] && layout.has_radio[dst]) || !layout.links.is_empty();
        let [a, b] = [layout.positions[src], layout.positions[dst]];
        let distance_m = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
        let hops = if wired { 3.0 } else { (distance_m / tx_range_m).ceil().max(1.0) };
        let mpdu = flow.packet_bytes + 40;
        let rts = timing.uses_rts(mpdu);
        let exchange = timing.difs.as_secs_f64()
            + f64::from(timing.cw_min) / 2.0 * timing.slot.as_secs_f64()
            + timing.data_airtime(mpdu, false).as_secs_f64()
            + timing.sifs.as_secs_f64()
            + timing.ack_airtime().as_secs_f64()
            + if rts { (timing.rts_airtime() + timing.cts_airtime() + timing.sifs * 2).as_secs_f64() } else { 0.0 };
        shortest_exchange_s = shortest_exchange_s.min(exchange);
        let path_capacity_pps = 1.0 / exchange / hops.min(3.0);
        let pps = match flow.app {
            AppKind::Cbr => flow.rate_kbps.unwrap_or(0.0) * 1e3 / (8.0 * f64::from(flow.packet_bytes)),
            AppKind::Bulk => path_capacity_pps,
        }
        .min(path_capacity_pps);
        let active_s = flow.stop_s.unwrap_or(scenario.duration_s) - flow.start_s;
        let frames_per_packet = if rts { 4.0 } else { 2.0 };
        // TCP and semi-TCP: an ACK per segment, its frames counted as the
        // data's (an order-of-magnitude estimate: delayed ACKs and ACKs
        // below the RTS threshold would make it fewer).
        let acks = if flow.transport == Transport::Udp { 0.0 } else { 1.0 };
        let packets = pps * active_s.max(0.0) / scenario.duration_s;
        if wired {
            wired_packets_per_s += packets * hops * (1.0 + acks);
        } else {
            frames_per_s += packets * hops * (frames_per_packet + acks * frames_per_packet);
            exchanges_per_s += packets * hops * (1.0 + acks);
        }
    }
    // The flows share the channel: at most one exchange at a time per
    // carrier-sense area the radios cover.
    let capacity_per_s = channel_areas(&layout.positions, &layout.has_radio, radio.reach_range_m()) / shortest_exchange_s;
    if exchanges_per_s > capacity_per_s {
        frames_per_s *= capacity_per_s / exchanges_per_s;
    }
    let events_per_frame = 3.0 + 2.0 * mean_neighbours;
    let mut events_per_s = frames_per_s * events_per_frame + wired_packets_per_s * 3.0;
    if let Some(interval) = scenario.routing.periodic_broadcast_interval() {
        events_per_s += radios as f64 * (1.0 + 2.0 * mean_neighbours) / interval.as_secs_f64();
    }
    let events = (events_per_s * scenario.duration_s).min(u64::MAX as f64) as u64;

    let series_rows = if scenario.stats.series_interval_s > 0.0 {
        let samples = (scenario.duration_s / scenario.stats.series_interval_s).floor().min(u64::MAX as f64) as u64;
        samples.saturating_mul(nodes * SERIES_ROWS_PER_NODE + scenario.flows.len() as u64 * SERIES_ROWS_PER_FLOW)
    } else {
        0
    };
    let mut parts: Vec<EstimatePart> =
        vec![budget::neighbour_lists(neighbour_entries), budget::nodes(nodes), budget::flows(scenario.flows.len() as u64)];
    parts.extend(scenario.routing.memory_bound(nodes));
    if series {
        parts.push(budget::series_rows(series_rows));
    }
    parts.sort_by(|a, b| b.bytes.cmp(&a.bytes));
    let memory_bytes = parts.iter().fold(0u64, |total, p| total.saturating_add(p.bytes));
    Ok(Estimate { events, memory_bytes, neighbour_entries, neighbours_exact, series_rows, parts })
}

impl Estimate {
    /// An error for a run that cannot fit in `limit_bytes`, naming its
    /// largest part, before it starts.
    pub fn check(&self, limit_bytes: u64) -> Result<(), ApiError> {
        if self.memory_bytes <= limit_bytes {
            return Ok(());
        }
        let largest = &self.parts[0];
        Err(ApiError::Simulation(format!(
            "memory limit of {}: the run would need ~{}, most of it for {} ({} {}, ~{}); {}, or raise the memory limit (--memory-limit)",
            format_bytes(limit_bytes),
            format_bytes(self.memory_bytes),
            largest.what,
            with_commas(largest.count),
            largest.unit,
            format_bytes(largest.bytes),
            largest.remedy,
        )))
    }
}

/// How many carrier-sense discs the radios' bounding box (widened by one
/// range) holds: the exchanges the channel can carry at once (at least 1).
fn channel_areas(positions: &[[f64; 2]], has_radio: &[bool], cs_range_m: f64) -> f64 {
    let radios = positions.iter().zip(has_radio).filter(|(_, &r)| r).map(|(p, _)| *p);
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in radios {
        for k in 0..2 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    if !lo[0].is_finite() {
        return 1.0;
    }
    let area_m2 = (hi[0] - lo[0] + cs_range_m) * (hi[1] - lo[1] + cs_range_m);
    (area_m2 / (std::f64::consts::PI * cs_range_m * cs_range_m)).max(1.0)
}

/// Entries of the neighbour lists the channel would build (every ordered
/// pair of radios within `cs_range_m`), and whether counted exactly.
fn neighbour_entries(positions: &[[f64; 2]], has_radio: &[bool], cs_range_m: f64) -> (u64, bool) {
    let cell = |p: [f64; 2]| ((p[0] / cs_range_m).floor() as i64, (p[1] / cs_range_m).floor() as i64);
    let mut cells: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (i, &p) in positions.iter().enumerate() {
        if has_radio[i] {
            cells.entry(cell(p)).or_default().push(i);
        }
    }
    let around = |(cx, cy): (i64, i64)| (-1..=1).flat_map(move |dx| (-1..=1).map(move |dy| (cx + dx, cy + dy)));
    let candidates: u64 = cells
        .iter()
        .map(|(&c, members)| {
            let near: u64 = around(c).filter_map(|k| cells.get(&k)).map(|m| m.len() as u64).sum();
            members.len() as u64 * (near - 1)
        })
        .sum();
    if candidates > EXACT_PAIRS {
        return ((candidates as f64 * std::f64::consts::PI / 9.0) as u64, false);
    }
    let within = |a: usize, b: usize| {
        let (p, q) = (positions[a], positions[b]);
        (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) <= cs_range_m * cs_range_m
    };
    let mut exact = 0u64;
    for (&c, members) in &cells {
        for k in around(c) {
            if let Some(others) = cells.get(&k) {
                for &a in members {
                    exact += others.iter().filter(|&&b| b != a && within(a, b)).count() as u64;
                }
            }
        }
    }
    (exact, true)
}
