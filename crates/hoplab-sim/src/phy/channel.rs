//! The shared medium: who feels whose frames, how strongly, how late.
//!
//! For each transmitter the channel keeps the list of nodes whose received
//! power reaches the carrier-sense threshold (below it a frame does not exist
//! for the receiver, docs/network-model.md), with the power and the propagation delay.
//! The list is built with a uniform grid of cells one carrier-sense range
//! wide, so building it costs O(n k) for n nodes with k neighbours each,
//! not O(n^2).
//!
//! Static nodes keep these precomputed lists, and the order each
//! transmitter's frame reaches its receivers. When nodes move (a mobility
//! model is attached), a transmitter's list is computed at each
//! transmission from the positions at that instant (evaluated lazily,
//! piecewise linear), from candidates it keeps for a while: the nodes
//! that cannot have come within reach since it gathered them, by the
//! mobility model's maximum speed ([`super::neighbours`]).

use super::neighbours::{arrival_order, Links, Motion};
use super::propagation::{RadioModel, SPEED_OF_LIGHT_MPS};
use crate::mobility::RandomWaypoint;
use crate::time::{SimDuration, SimTime};
use crate::wire::NodeId;
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
    /// Positions at the start (static nodes: always).
    positions: Vec<[f64; 2]>,
    /// Nodes with an 802.11 interface.
    has_radio: Vec<bool>,
    /// A static node was relocated during the run.
    relocated: bool,
    /// Precomputed lists (static nodes).
    neighbours: Vec<Vec<Neighbour>>,
    /// Per precomputed list, its order of arrival ([`arrival_order`]).
    arrival_orders: Vec<Vec<u32>>,
    motion: Option<Box<Motion>>,
    /// The reception model's channel hook: signals received below this
    /// power are offered to the receiver when sent and get an arrival event
    /// only if it asks (`Phy::take_weak_signal`); 0 W: none are.
    weak_signal_below_w: f64,
}

/// The link to `node` at `distance_m`, if a frame reaches it.
pub(super) fn link(radio: &RadioModel, node: u32, distance_m: f64) -> Option<Neighbour> {
    let rx_power_w = radio.received_power_w(distance_m);
    (rx_power_w >= radio.reach_threshold_w).then(|| Neighbour {
        node: NodeId(node),
        distance_m,
        rx_power_w,
        delay: SimDuration::from_nanos(round_to_u64(distance_m / SPEED_OF_LIGHT_MPS * 1e9)),
        decodable: rx_power_w >= radio.rx_threshold_w,
    })
}

/// `x.round() as u64` (halves away from zero; saturating; NaN and
/// negatives give 0), without `f64::round`, which is a libm call on x86-64
/// without SSE4.1 (2 % of a 150-moving-node run, one per link). For
/// 0 <= x < 2^53, `x - trunc(x)` is exact (Sterbenz's lemma when x >= 1),
/// so comparing it with 0.5 decides as `round` does; above, every f64 is
/// an integer and the fraction is 0 (or the cast saturates).
#[inline]
fn round_to_u64(x: f64) -> u64 {
    let whole = x as u64;
    if x - whole as f64 >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

pub(super) fn distance_m(p: [f64; 2], q: [f64; 2]) -> f64 {
    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()
}

impl Channel {
    /// `has_radio[i]`: node i has an 802.11 interface (wired-only nodes
    /// neither send nor feel frames).
    pub fn new(positions: Vec<[f64; 2]>, has_radio: Vec<bool>, radio: RadioModel) -> Channel {
        let neighbours = neighbour_lists(&positions, &has_radio, &radio);
        let arrival_orders = neighbours.iter().map(|list| arrival_order(list)).collect();
        Channel { radio, positions, has_radio, relocated: false, neighbours, arrival_orders, motion: None, weak_signal_below_w: 0.0 }
    }

    /// Set the reception model's channel hook (see
    /// `reception::FromRadioConfig::weak_signal_below_w`).
    pub fn set_weak_signal_below_w(&mut self, power_w: f64) {
        self.weak_signal_below_w = power_w;
    }

    /// Signals received below this power are offered to the receiver's
    /// `Phy::take_weak_signal` when sent (0 W: none).
    #[inline]
    pub fn weak_signal_below_w(&self) -> f64 {
        self.weak_signal_below_w
    }

    /// Let the nodes move with `model` (positions at time 0 must be the
    /// channel's; the area is its parameters').
    pub fn set_motion(&mut self, model: RandomWaypoint) {
        self.motion = Some(Box::new(Motion::new(model, self.has_radio.clone(), self.radio.reach_range_m())));
    }

    /// Whether nodes move (neighbour lists are computed per transmission).
    pub fn is_mobile(&self) -> bool {
        self.motion.is_some()
    }

    /// Where `node` is at `t` (moving nodes: time may only advance).
    pub fn position_at(&mut self, node: NodeId, t: SimTime) -> [f64; 2] {
        match &mut self.motion {
            Some(m) => m.model.position(node.index(), t),
            None => self.positions[node.index()],
        }
    }

    /// The nodes that feel a transmission of `node` starting at `t`, in
    /// ascending id, and the order the frame reaches them: the precomputed
    /// list for static nodes, else from the positions at `t`.
    #[inline]
    pub fn neighbours_at(&mut self, node: NodeId, t: SimTime) -> Links<'_> {
        match self.motion.as_deref_mut() {
            Some(m) => m.links_at(&self.radio, node, t),
            None => Links { list: &self.neighbours[node.index()], by_arrival: &self.arrival_orders[node.index()] },
        }
    }

    /// [`Channel::static_link`], read at `index` in `from`'s list where the
    /// link there is to `to` (its place when a frame went out; a relocation
    /// since may have moved it: then the search).
    #[inline]
    pub fn static_link_at(&self, from: NodeId, index: u32, to: NodeId) -> Option<Neighbour> {
        match self.neighbours[from.index()].get(index as usize) {
            Some(link) if link.node == to => Some(*link),
            _ => self.static_link(from, to),
        }
    }

    /// The precomputed link from `from` to `to` (static nodes), if `to` is
    /// a neighbour of `from`.
    pub fn static_link(&self, from: NodeId, to: NodeId) -> Option<Neighbour> {
        let list = &self.neighbours[from.index()];
        list.binary_search_by_key(&to, |n| n.node).ok().map(|i| list[i])
    }

    /// Move a static node to `to` at once and rebuild the neighbour lists
    /// (experiments and tests that break a link on purpose; moving nodes
    /// follow their mobility model instead).
    pub fn relocate(&mut self, node: NodeId, to: [f64; 2]) {
        if self.motion.is_some() {
            return;
        }
        self.positions[node.index()] = to;
        self.neighbours = neighbour_lists(&self.positions, &self.has_radio, &self.radio);
        self.arrival_orders = self.neighbours.iter().map(|list| arrival_order(list)).collect();
        self.relocated = true;
    }

    /// Whether positions can change during the run (moving or relocated
    /// nodes): then links must be checked against the current positions.
    pub fn positions_change(&self) -> bool {
        self.motion.is_some() || self.relocated
    }

    /// Whether `to` can decode `from`'s frames at `t` (ground truth for a
    /// link broken by motion).
    pub fn decodable_at(&mut self, from: NodeId, to: NodeId, t: SimTime) -> bool {
        let (p, q) = (self.position_at(from, t), self.position_at(to, t));
        self.radio.received_power_w(distance_m(p, q)) >= self.radio.rx_threshold_w
    }

    /// Node `node` has an 802.11 interface.
    pub fn has_radio(&self, node: NodeId) -> bool {
        self.has_radio[node.index()]
    }

    pub fn node_count(&self) -> usize {
        self.positions.len()
    }

    pub fn position(&self, node: NodeId) -> [f64; 2] {
        self.positions[node.index()]
    }

    /// Entries of every precomputed neighbour list (the channel's memory).
    pub fn neighbour_entries(&self) -> usize {
        self.neighbours.iter().map(Vec::len).sum()
    }

    /// Nodes that feel `node`'s transmissions, in ascending id.
    pub fn neighbours(&self, node: NodeId) -> &[Neighbour] {
        &self.neighbours[node.index()]
    }

    /// For each node, the nodes that can decode its frames (ascending id).
    pub fn decodable_adjacency(&self) -> Vec<Vec<NodeId>> {
        self.neighbours.iter().map(|list| list.iter().filter(|n| n.decodable).map(|n| n.node).collect()).collect()
    }
}

fn neighbour_lists(positions: &[[f64; 2]], has_radio: &[bool], radio: &RadioModel) -> Vec<Vec<Neighbour>> {
    let cs_range = radio.reach_range_m();
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
                        if let Some(l) = link(radio, j, distance_m(p, positions[j as usize])) {
                            list.push(l);
                        }
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
    use crate::phy::config::RadioConfig;

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

    /// A link read at the index its receiver had when a frame went out is
    /// the link the search finds, and still is after a relocation moved
    /// the receiver to another place in the list, or out of reach.
    #[test]
    fn a_link_read_at_its_index_is_the_one_searched_for() {
        let positions: Vec<[f64; 2]> = (0..6).map(|i| [200.0 * i as f64, 0.0]).collect();
        let n = positions.len();
        let mut ch = Channel::new(positions, vec![true; n], RadioModel::from_config(&RadioConfig::default()));
        let before: Vec<Vec<Neighbour>> = (0..n as u32).map(|i| ch.neighbours(NodeId(i)).to_vec()).collect();
        for (from, list) in before.iter().enumerate() {
            let from = NodeId(from as u32);
            for (k, link) in list.iter().enumerate() {
                assert_eq!(ch.static_link_at(from, k as u32, link.node), Some(*link));
                // A wrong index: the search.
                assert_eq!(ch.static_link_at(from, k as u32 + 1, link.node), ch.static_link(from, link.node));
            }
        }
        // Node 1 moves beyond node 5: in node 2's list it was at index 1
        // (0, 1, 3, 4), now out of reach; node 3 moves from index 2 to 1.
        ch.relocate(NodeId(1), [1200.0, 0.0]);
        assert_eq!(ch.static_link_at(NodeId(2), 1, NodeId(1)), None);
        assert_eq!(ch.static_link_at(NodeId(2), 2, NodeId(3)), ch.static_link(NodeId(2), NodeId(3)));
        assert_eq!(ch.static_link_at(NodeId(2), 2, NodeId(3)).map(|l| l.node), Some(NodeId(3)));
        assert_ne!(ch.neighbours(NodeId(2)).get(2).map(|l| l.node), Some(NodeId(3)), "node 3 moved in the list");
    }

    #[test]
    fn delay_rounding_is_f64_rounds() {
        let mut values = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            0.499_999_999_999_999_94,
            1e15 + 0.5,
            2f64.powi(52) + 1.0,
            2f64.powi(53),
            1.8e19,
            2e19,
            -0.5,
            -3.0,
            f64::NAN,
            f64::INFINITY,
        ];
        let mut x = 0.123_456_789_f64;
        for _ in 0..200_000 {
            x = (x * 7.919 + 0.311).fract();
            values.extend([x * 2000.0, (x * 4000.0).floor() / 2.0, f64::from_bits((x * 1e6) as u64 + 0x3FE0_0000_0000_0000)]);
        }
        for v in values {
            assert_eq!(round_to_u64(v), v.round() as u64, "{v:e}");
        }
    }

    #[test]
    fn grid_search_matches_brute_force() {
        // Scattered nodes over several cells.
        let positions: Vec<[f64; 2]> = (0..200).map(|i| [((i * 7919) % 3000) as f64, ((i * 104_729) % 2000) as f64]).collect();
        let radio = RadioModel::from_config(&RadioConfig::default());
        let ch = Channel::new(positions.clone(), vec![true; positions.len()], radio.clone());
        for (i, p) in positions.iter().enumerate() {
            let brute: Vec<u32> = positions
                .iter()
                .enumerate()
                .filter(|&(j, q)| {
                    j != i && radio.received_power_w(((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()) >= radio.cs_threshold_w
                })
                .map(|(j, _)| j as u32)
                .collect();
            let fast: Vec<u32> = ch.neighbours(NodeId(i as u32)).iter().map(|n| n.node.0).collect();
            assert_eq!(fast, brute, "node {i}");
        }
    }
}
