//! Node placement: chain, grid, random (connected), explicit.

use crate::engine::{RngStreams, StreamPurpose};
use crate::phy::{Channel, RadioModel};
use crate::scenario::{ConfigError, TopologyShape};

/// Positions of the scenario's nodes; a random topology is redrawn until the
/// graph of decodable links is connected (at most `max_tries` draws).
pub fn place(shape: &TopologyShape, radio: &RadioModel, streams: &RngStreams) -> Result<Vec<[f64; 2]>, ConfigError> {
    Ok(match shape {
        TopologyShape::Chain { nodes, spacing_m } => (0..*nodes).map(|i| [i as f64 * spacing_m, 0.0]).collect(),
        TopologyShape::Grid { rows, cols, spacing_m } => (0..rows * cols)
            .map(|i| [(i % cols) as f64 * spacing_m, (i / cols) as f64 * spacing_m])
            .collect(),
        TopologyShape::Explicit { positions } => positions.clone(),
        TopologyShape::Random { nodes, width_m, height_m, max_tries } => {
            for attempt in 0..*max_tries {
                let mut rng = streams.stream(StreamPurpose::Topology, attempt as u64);
                let positions: Vec<[f64; 2]> =
                    (0..*nodes).map(|_| [rng.uniform_f64() * width_m, rng.uniform_f64() * height_m]).collect();
                let channel = Channel::new(positions.clone(), radio.clone());
                if is_connected(&channel.decodable_adjacency()) {
                    return Ok(positions);
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

pub fn is_connected(adjacency: &[Vec<crate::net::NodeId>]) -> bool {
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
