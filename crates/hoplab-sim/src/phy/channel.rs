//! The shared medium: who feels whose frames, how strongly, how late.
//!
//! For each transmitter the channel keeps the list of nodes whose received
//! power reaches the carrier-sense threshold (below it a frame does not exist
//! for the receiver, SPEC.md 1.1), with the power and the propagation delay.
//! The list is built with a uniform grid of cells one carrier-sense range
//! wide, so building it costs O(n k) for n nodes with k neighbours each,
//! not O(n^2). Positions are static in this version; a mobile node's lists
//! are rebuilt from the same grid when it moves.

use super::propagation::{RadioModel, SPEED_OF_LIGHT_MPS};
use crate::net::NodeId;
use crate::time::SimDuration;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbour {
    pub node: NodeId,
    pub distance_m: f64,
    pub rx_power_w: f64,
    pub delay: SimDuration,
    /// Received power at or above the receive threshold.
    pub decodable: bool,
}

#[derive(Debug, Clone)]
pub struct Channel {
    pub radio: RadioModel,
    positions: Vec<[f64; 2]>,
    neighbours: Vec<Vec<Neighbour>>,
}

impl Channel {
    /// `has_radio[i]`: node i has an 802.11 interface (wired-only nodes
    /// neither send nor feel frames).
    pub fn new(positions: Vec<[f64; 2]>, has_radio: Vec<bool>, radio: RadioModel) -> Channel {
        let neighbours = neighbour_lists(&positions, &has_radio, &radio);
        Channel { radio, positions, neighbours }
    }

    pub fn node_count(&self) -> usize {
        self.positions.len()
    }

    pub fn position(&self, node: NodeId) -> [f64; 2] {
        self.positions[node.index()]
    }

    /// Nodes that feel `node`'s transmissions, in ascending id.
    pub fn neighbours(&self, node: NodeId) -> &[Neighbour] {
        &self.neighbours[node.index()]
    }

    /// For each node, the nodes that can decode its frames (ascending id).
    pub fn decodable_adjacency(&self) -> Vec<Vec<NodeId>> {
        self.neighbours
            .iter()
            .map(|list| list.iter().filter(|n| n.decodable).map(|n| n.node).collect())
            .collect()
    }
}

fn neighbour_lists(positions: &[[f64; 2]], has_radio: &[bool], radio: &RadioModel) -> Vec<Vec<Neighbour>> {
    let cs_range = radio.cs_range_m();
    let cell = cs_range.max(1.0);
    let cell_of = |p: [f64; 2]| ((p[0] / cell).floor() as i64, (p[1] / cell).floor() as i64);
    let mut grid: HashMap<(i64, i64), Vec<u32>> = HashMap::new();
    for (i, &p) in positions.iter().enumerate() {
        if has_radio[i] {
            grid.entry(cell_of(p)).or_default().push(i as u32);
        }
    }
    positions
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let mut list = Vec::new();
            if !has_radio[i] {
                return list;
            }
            let (cx, cy) = cell_of(p);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    let Some(members) = grid.get(&(cx + dx, cy + dy)) else { continue };
                    for &j in members {
                        if j as usize == i {
                            continue;
                        }
                        let q = positions[j as usize];
                        let distance_m = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt();
                        let rx_power_w = radio.received_power_w(distance_m);
                        if rx_power_w < radio.cs_threshold_w {
                            continue;
                        }
                        list.push(Neighbour {
                            node: NodeId(j),
                            distance_m,
                            rx_power_w,
                            delay: SimDuration::from_nanos((distance_m / SPEED_OF_LIGHT_MPS * 1e9).round() as u64),
                            decodable: rx_power_w >= radio.rx_threshold_w,
                        });
                    }
                }
            }
            list.sort_by_key(|n| n.node);
            list
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::RadioConfig;

    #[test]
    fn chain_at_200m_decodes_one_hop_and_senses_two() {
        let positions: Vec<[f64; 2]> = (0..6).map(|i| [200.0 * i as f64, 0.0]).collect();
        let n = positions.len();
        let ch = Channel::new(positions, vec![true; n], RadioModel::from_config(&RadioConfig::default()));
        let n2: Vec<(u32, bool)> = ch.neighbours(NodeId(2)).iter().map(|n| (n.node.0, n.decodable)).collect();
        // 200 m: decodable; 400 m: sensed only (550 m CS range); 600 m: nothing.
        assert_eq!(n2, vec![(0, false), (1, true), (3, true), (4, false)]);
        let d = ch.neighbours(NodeId(2))[1].delay;
        assert_eq!(d, SimDuration::from_nanos(667)); // 200 m / c
    }

    #[test]
    fn grid_search_matches_brute_force() {
        // Scattered nodes over several cells.
        let positions: Vec<[f64; 2]> =
            (0..200).map(|i| [((i * 7919) % 3000) as f64, ((i * 104_729) % 2000) as f64]).collect();
        let radio = RadioModel::from_config(&RadioConfig::default());
        let ch = Channel::new(positions.clone(), vec![true; positions.len()], radio.clone());
        for (i, p) in positions.iter().enumerate() {
            let brute: Vec<u32> = positions
                .iter()
                .enumerate()
                .filter(|&(j, q)| {
                    j != i && radio.received_power_w(((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt())
                        >= radio.cs_threshold_w
                })
                .map(|(j, _)| j as u32)
                .collect();
            let fast: Vec<u32> = ch.neighbours(NodeId(i as u32)).iter().map(|n| n.node.0).collect();
            assert_eq!(fast, brute, "node {i}");
        }
    }
}
