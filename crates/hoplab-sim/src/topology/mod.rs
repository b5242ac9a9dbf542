//! Node placement and wiring: chain, grid, random (connected), explicit
//! (with optional wired links), and seed 002's wired-cum-wireless layout.

use crate::config::ConfigError;
use crate::engine::{RngStreams, StreamPurpose};
use crate::link::LinkConfig;
use crate::phy::{Channel, RadioModel};
use crate::scenario::{LastHop, TopologyConfig};

/// Where the nodes are, which of them have a radio, and the wired links.
#[derive(Debug, Clone)]
pub struct Layout {
    pub positions: Vec<[f64; 2]>,
    /// Nodes with an 802.11 interface (a wired-only node has none).
    pub has_radio: Vec<bool>,
    pub links: Vec<LinkConfig>,
}

/// Lay out the scenario's nodes; a random topology is redrawn until the
/// graph of decodable links is connected (at most `max_tries` draws),
/// unless `require_connected` is false (moving nodes: connectivity at time
/// 0 means little, and sparse mobile networks are partitioned by design).
pub fn place(topology: &TopologyConfig, radio: &RadioModel, streams: &RngStreams, require_connected: bool) -> Result<Layout, ConfigError> {
    let wireless = |positions: Vec<[f64; 2]>| Layout { has_radio: vec![true; positions.len()], positions, links: Vec::new() };
    Ok(match topology {
        TopologyConfig::Chain(c) => wireless((0..c.nodes).map(|i| [i as f64 * c.spacing_m, 0.0]).collect()),
        TopologyConfig::Grid(g) => {
            wireless((0..g.rows * g.cols).map(|i| [(i % g.cols) as f64 * g.spacing_m, (i / g.cols) as f64 * g.spacing_m]).collect())
        }
        TopologyConfig::Explicit(e) => {
            let mut has_radio = vec![true; e.positions.len()];
            for &node in &e.wired_nodes {
                has_radio[node as usize] = false;
            }
            Layout { positions: e.positions.clone(), has_radio, links: e.links.clone() }
        }
        TopologyConfig::WiredCumWireless(w) => {
            let n = w.node_count() as usize;
            let (router, base) = (w.router() as usize, w.base_station() as usize);
            let mut positions = vec![[0.0, 0.0]; n];
            // Wired hosts and the router sit far from the base station (their
            // positions matter only for a radio, which they do not have).
            for (i, p) in positions.iter_mut().enumerate().take(router + 1) {
                *p = [-10_000.0 - 1_000.0 * i as f64, 0.0];
            }
            let mut has_radio = vec![false; n];
            let mut links = Vec::new();
            let link = |a: usize, b: usize, rate_mbps: f64, delay_ms: f64, loss_rate: f64| LinkConfig {
                a: a as u32,
                b: b as u32,
                rate_mbps,
                delay_ms,
                queue_packets: w.queue_packets,
                loss_rate,
                queue: None,
            };
            for sender in 0..w.senders as usize {
                links.push(link(sender, router, w.access_rate_mbps, w.access_delay_ms, 0.0));
            }
            links.push(link(router, base, w.bottleneck_rate_mbps, w.bottleneck_delay_ms, 0.0));
            for j in 0..w.receivers as usize {
                let receiver = base + 1 + j;
                match w.last_hop {
                    LastHop::Link => links.push(link(base, receiver, w.last_hop_rate_mbps, w.last_hop_delay_ms, w.last_hop_loss_rate)),
                    LastHop::Wifi => {
                        let angle = 2.0 * std::f64::consts::PI * j as f64 / w.receivers as f64;
                        positions[receiver] = [w.last_hop_distance_m * angle.cos(), w.last_hop_distance_m * angle.sin()];
                        has_radio[receiver] = true;
                        has_radio[base] = true;
                    }
                }
            }
            Layout { positions, has_radio, links }
        }
        TopologyConfig::Random(r) => {
            let (nodes, width_m, height_m, max_tries) = (r.nodes, r.width_m, r.height_m, r.max_tries);
            for attempt in 0..max_tries {
                let mut rng = streams.stream(StreamPurpose::Topology, attempt as u64);
                let positions: Vec<[f64; 2]> = (0..nodes).map(|_| [rng.uniform_f64() * width_m, rng.uniform_f64() * height_m]).collect();
                if !require_connected {
                    return Ok(wireless(positions));
                }
                let channel = Channel::new(positions.clone(), vec![true; positions.len()], radio.clone());
                if is_connected(&channel.decodable_adjacency()) {
                    return Ok(wireless(positions));
                }
            }
            return Err(ConfigError::new(
                "topology.max_tries",
                format!(
                    "no connected placement of {nodes} nodes in {width_m} x {height_m} m after {max_tries} draws \
                     (tx range {:.0} m); add nodes, shrink the area or raise max_tries",
                    radio.tx_range_m()
                ),
            ));
        }
    })
}

pub fn is_connected(adjacency: &[Vec<crate::wire::NodeId>]) -> bool {
    if adjacency.is_empty() {
        return true;
    }
    let mut seen = vec![false; adjacency.len()];
    let mut stack = vec![0usize];
    seen[0] = true;
    while let Some(u) = stack.pop() {
        for v in &adjacency[u] {
            if !seen[v.index()] {
                seen[v.index()] = true;
                stack.push(v.index());
            }
        }
    }
    seen.iter().all(|&s| s)
}
