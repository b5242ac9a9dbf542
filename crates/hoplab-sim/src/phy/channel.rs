//! The shared medium: who feels whose frames, how strongly, how late.
//!
//! For each transmitter the channel keeps the list of nodes whose received
//! power reaches the carrier-sense threshold (below it a frame does not exist
//! for the receiver, docs/network-model.md), with the power and the propagation delay.
//! The list is built with a uniform grid of cells one carrier-sense range
//! wide, so building it costs O(n k) for n nodes with k neighbours each,
//! not O(n^2).
//!
//! Static nodes keep these precomputed lists. When nodes move (a mobility
//! model is attached), a transmitter's list is recomputed at each
//! transmission from the positions at that instant (evaluated lazily,
//! piecewise linear), looking only at the 3 x 3 grid cells around it. The
//! grid is re-binned every `refresh` period and its cells are conservative:
//! `cs_range + max_speed * refresh` wide, so a node that was binned up to
//! one period ago and is now within carrier-sense range of the transmitter
//! is always in one of those cells.

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
    motion: Option<Box<Motion>>,
    /// The reception model's channel hook: signals received below this
    /// power are offered to the receiver when sent and get an arrival event
    /// only if it asks (`Phy::take_weak_signal`); 0 W: none are.
    weak_signal_below_w: f64,
}

/// Moving nodes: the mobility model and a lazily re-binned grid.
#[derive(Debug, Clone)]
struct Motion {
    model: RandomWaypoint,
    has_radio: Vec<bool>,
    /// A cell's width and height: each at least one carrier-sense range
    /// (plus the distance a node covers between re-binnings).
    cell_m: [f64; 2],
    columns: usize,
    rows: usize,
    /// Node ids per cell, row-major; each cell ascending.
    cells: Vec<Vec<u32>>,
    refresh: SimDuration,
    /// The grid must be re-binned at or after this time.
    rebin_at: SimTime,
    /// The list handed out by the last `neighbours_at`.
    scratch: Vec<Neighbour>,
}

impl Motion {
    fn cell_of(&self, p: [f64; 2]) -> (usize, usize) {
        let cx = (p[0] / self.cell_m[0]).floor().clamp(0.0, (self.columns - 1) as f64) as usize;
        let cy = (p[1] / self.cell_m[1]).floor().clamp(0.0, (self.rows - 1) as f64) as usize;
        (cx, cy)
    }

    fn rebin(&mut self, t: SimTime) {
        for cell in &mut self.cells {
            cell.clear();
        }
        for i in 0..self.model.node_count() {
            if self.has_radio[i] {
                let p = self.model.position(i, t);
                let (cx, cy) = self.cell_of(p);
                self.cells[cy * self.columns + cx].push(i as u32);
            }
        }
        self.rebin_at = t + self.refresh;
    }
}

fn link(radio: &RadioModel, node: u32, distance_m: f64) -> Option<Neighbour> {
    let rx_power_w = radio.received_power_w(distance_m);
    (rx_power_w >= radio.reach_threshold_w).then(|| Neighbour {
        node: NodeId(node),
        distance_m,
        rx_power_w,
        delay: SimDuration::from_nanos((distance_m / SPEED_OF_LIGHT_MPS * 1e9).round() as u64),
        decodable: rx_power_w >= radio.rx_threshold_w,
    })
}

fn distance_m(p: [f64; 2], q: [f64; 2]) -> f64 {
    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()
}

impl Channel {
    /// `has_radio[i]`: node i has an 802.11 interface (wired-only nodes
    /// neither send nor feel frames).
    pub fn new(positions: Vec<[f64; 2]>, has_radio: Vec<bool>, radio: RadioModel) -> Channel {
        let neighbours = neighbour_lists(&positions, &has_radio, &radio);
        Channel { radio, positions, has_radio, relocated: false, neighbours, motion: None, weak_signal_below_w: 0.0 }
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
    /// channel's). The grid covers `width_m` x `height_m`, where moving
    /// nodes stay; it is re-binned every `refresh` (derived from the
    /// maximum speed: a tenth of the carrier-sense range per period,
    /// within [0.1 s, 10 s]).
    pub fn set_motion(&mut self, model: RandomWaypoint) {
        let cs_range = self.radio.reach_range_m().max(1.0);
        let speed = model.max_speed_mps().max(1e-9);
        let refresh_s = (0.1 * cs_range / speed).clamp(0.1, 10.0);
        let params = model.params().clone();
        // Cells wider than needed stay correct (the 3 x 3 search still
        // covers the range), so a vast, sparse area gets fewer, larger
        // cells: at most 4 per node (and 1024), never one per 600 m of a
        // 10^12 m wide area.
        let max_cells = (4 * model.node_count()).max(1024) as f64;
        let mut cell_m = [cs_range + speed * refresh_s; 2];
        let count = |size: f64, cell: f64| (size / cell).floor() + 1.0;
        while count(params.width_m, cell_m[0]) * count(params.height_m, cell_m[1]) > max_cells {
            let axis = usize::from(count(params.width_m, cell_m[0]) < count(params.height_m, cell_m[1]));
            cell_m[axis] *= 2.0;
        }
        let columns = count(params.width_m, cell_m[0]) as usize;
        let rows = count(params.height_m, cell_m[1]) as usize;
        let mut motion = Motion {
            model,
            has_radio: self.has_radio.clone(),
            cell_m,
            columns,
            rows,
            cells: vec![Vec::new(); columns * rows],
            refresh: SimDuration::from_secs_f64(refresh_s),
            rebin_at: SimTime::ZERO,
            scratch: Vec::new(),
        };
        motion.rebin(SimTime::ZERO);
        self.motion = Some(Box::new(motion));
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
    /// ascending id: the precomputed list for static nodes, else computed
    /// from the positions at `t`.
    pub fn neighbours_at(&mut self, node: NodeId, t: SimTime) -> &[Neighbour] {
        let Some(m) = self.motion.as_deref_mut() else { return &self.neighbours[node.index()] };
        m.scratch.clear();
        if !m.has_radio[node.index()] {
            return &m.scratch;
        }
        if t >= m.rebin_at {
            m.rebin(t);
        }
        let p = m.model.position(node.index(), t);
        let (cx, cy) = m.cell_of(p);
        for y in cy.saturating_sub(1)..=(cy + 1).min(m.rows - 1) {
            for x in cx.saturating_sub(1)..=(cx + 1).min(m.columns - 1) {
                for k in 0..m.cells[y * m.columns + x].len() {
                    let j = m.cells[y * m.columns + x][k];
                    if j == node.0 {
                        continue;
                    }
                    let q = m.model.position(j as usize, t);
                    if let Some(l) = link(&self.radio, j, distance_m(p, q)) {
                        m.scratch.push(l);
                    }
                }
            }
        }
        m.scratch.sort_unstable_by_key(|n| n.node);
        &m.scratch
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
