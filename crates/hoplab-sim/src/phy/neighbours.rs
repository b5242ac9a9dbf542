//! Neighbour sets kept between transmissions (issue 30): each transmission
//! gets its receivers, their powers and delays, and the order its arrivals
//! happen in, without searching and sorting every node nearby again.
//!
//! Why: with 150 moving nodes about 30 % of a run went to computing each
//! transmitter's neighbours at each transmission (the positions of every
//! node in the 3 x 3 grid cells around it, about 2.5 times as many as are
//! within reach, then a sort by id; then a sort of the arrivals by delay).
//! Nothing here changes a result: the receivers, powers, delays and their
//! order are exactly those computed from the positions at the instant of
//! the transmission (the property test below compares with that direct
//! computation over random movements).
//!
//! **Static nodes** ([`arrival_order`]): a transmitter's list never changes,
//! so the order its frame reaches its receivers (by propagation delay, then
//! id: the order of their arrival events) is computed once with the list.
//!
//! **Moving nodes** ([`Motion`]): a transmitter keeps its *candidates*, the
//! nodes that were within reach plus a margin when it last looked
//! (ascending id, and nearest first), for a period `T`. No node moves
//! faster than the mobility model's maximum speed `v`, so in `T` two nodes
//! close in by at most `2 v T`: a node farther than reach + `2 v T` at the
//! start cannot be within reach before `T` has passed, and the candidates
//! are a superset of the receivers throughout. Each transmission computes
//! every candidate's position, distance and power at its instant exactly as
//! the direct computation does (the same expressions, so the same bits) and
//! keeps those within reach; its arrival order is the candidates' order by
//! distance at the start, made exact by an insertion sort (nearly sorted
//! already: few moves). When `T` has passed the candidates are gathered
//! again, from the grid of cells the channel re-bins every `refresh`.
//! Nothing is allocated per transmission: the lists are reused.
//!
//! The margin is a sixteenth of the reach (`T = reach / (32 v)`, within
//! [1 ms, 10 s]: 0.86 s for 550 m and 20 m/s): about 13 % more candidates
//! than receivers, each re-gathered a little more than once a second.

use super::channel::{distance_m, link, Neighbour};
use super::propagation::RadioModel;
use crate::mobility::RandomWaypoint;
use crate::time::{SimDuration, SimTime};
use crate::wire::NodeId;

/// A transmission's receivers.
#[derive(Debug, Clone, Copy)]
pub struct Links<'a> {
    /// Every node that feels the frame, ascending id.
    pub list: &'a [Neighbour],
    /// Indices into `list` in the order the frame reaches them: by
    /// propagation delay, then by index (id).
    pub by_arrival: &'a [u32],
}

/// The order a frame reaches the receivers of `list` (ascending id): its
/// indices by (delay, index).
pub fn arrival_order(list: &[Neighbour]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..list.len() as u32).collect();
    order.sort_unstable_by_key(|&k| (list[k as usize].delay, k));
    order
}

/// The candidates' share of the reach (module doc).
const MARGIN_OF_REACH: f64 = 1.0 / 16.0;

/// Added to every distance bound: covers rounding, of the inverse of the
/// propagation model (reach from its threshold) and of each leg's duration
/// to the nanosecond (a node runs ahead of its speed by at most speed x
/// 0.5 ns per leg, 1e-8 m at 20 m/s).
const SLACK_M: f64 = 1.0;

/// Not within reach (in `Motion::in_list`).
const NONE: u32 = u32::MAX;

/// One transmitter's candidates (module doc).
#[derive(Debug, Clone, Default)]
struct Candidates {
    /// Ascending id.
    ids: Vec<u32>,
    /// Indices into `ids`, nearest first when gathered.
    nearest_first: Vec<u32>,
    /// Gather again at or after this time (`SimTime::ZERO`: never gathered).
    expires_at: SimTime,
}

/// Moving nodes: the mobility model, a grid of cells re-binned every
/// `refresh`, and each transmitter's candidates.
#[derive(Debug, Clone)]
pub(super) struct Motion {
    pub(super) model: RandomWaypoint,
    has_radio: Vec<bool>,
    /// A cell's width and height: each at least the candidates' range plus
    /// the distance a node covers between re-binnings, so that the 3 x 3
    /// cells around a node hold every node within that range of it.
    cell_m: [f64; 2],
    columns: usize,
    rows: usize,
    /// Node ids per cell, row-major; each cell ascending.
    cells: Vec<Vec<u32>>,
    refresh: SimDuration,
    /// The grid must be re-binned at or after this time.
    rebin_at: SimTime,
    /// How long candidates are kept (`T`).
    keep: SimDuration,
    /// Candidates are the nodes within this distance when gathered: reach
    /// + 2 v T + slack.
    candidate_range_m: f64,
    per_node: Vec<Candidates>,
    /// The last transmission's receivers (`Links`), and per candidate its
    /// index in `list` (or `NONE`).
    list: Vec<Neighbour>,
    by_arrival: Vec<u32>,
    in_list: Vec<u32>,
    /// Gathering: (candidate, squared distance).
    found: Vec<(u32, f64)>,
}

impl Motion {
    /// Nodes moving by `model` (area `width_m` x `height_m` from its
    /// parameters); frames reach `reach_m` at most. The grid is re-binned
    /// every `refresh`, a tenth of the reach per maximum speed within
    /// [0.1 s, 10 s].
    pub(super) fn new(model: RandomWaypoint, has_radio: Vec<bool>, reach_m: f64) -> Motion {
        let reach_m = reach_m.max(1.0);
        let speed = model.max_speed_mps().max(1e-9);
        let refresh_s = (0.1 * reach_m / speed).clamp(0.1, 10.0);
        let keep_s = (MARGIN_OF_REACH * reach_m / (2.0 * speed)).clamp(1e-3, 10.0);
        // The speed bound, with room for the rounding of speeds drawn
        // (steady state's power law) and of positions.
        let bound_mps = speed * (1.0 + 1e-6);
        let candidate_range_m = reach_m * (1.0 + 1e-6) + 2.0 * bound_mps * keep_s + SLACK_M;
        let params = model.params().clone();
        // Cells wider than needed stay correct (the 3 x 3 search still
        // covers the range), so a vast, sparse area gets fewer, larger
        // cells: at most 4 per node (and 1024), never one per 600 m of a
        // 10^12 m wide area.
        let max_cells = (4 * model.node_count()).max(1024) as f64;
        let mut cell_m = [candidate_range_m + bound_mps * refresh_s + SLACK_M; 2];
        let count = |size: f64, cell: f64| (size / cell).floor() + 1.0;
        while count(params.width_m, cell_m[0]) * count(params.height_m, cell_m[1]) > max_cells {
            let axis = usize::from(count(params.width_m, cell_m[0]) < count(params.height_m, cell_m[1]));
            cell_m[axis] *= 2.0;
        }
        let columns = count(params.width_m, cell_m[0]) as usize;
        let rows = count(params.height_m, cell_m[1]) as usize;
        let nodes = model.node_count();
        let mut motion = Motion {
            model,
            has_radio,
            cell_m,
            columns,
            rows,
            cells: vec![Vec::new(); columns * rows],
            refresh: SimDuration::from_secs_f64(refresh_s),
            rebin_at: SimTime::ZERO,
            keep: SimDuration::from_secs_f64(keep_s),
            candidate_range_m,
            per_node: vec![Candidates::default(); nodes],
            list: Vec::new(),
            by_arrival: Vec::new(),
            in_list: Vec::new(),
            found: Vec::new(),
        };
        motion.rebin(SimTime::ZERO);
        motion
    }

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

    /// The nodes that feel a transmission of `node` starting at `t` (time
    /// may only advance), from its candidates (gathered again if expired).
    pub(super) fn links_at(&mut self, radio: &RadioModel, node: NodeId, t: SimTime) -> Links<'_> {
        let i = node.index();
        self.list.clear();
        self.by_arrival.clear();
        if !self.has_radio[i] {
            return Links { list: &self.list, by_arrival: &self.by_arrival };
        }
        if t >= self.per_node[i].expires_at {
            self.gather(i, t);
        }
        let p = self.model.position(i, t);
        let candidates = &self.per_node[i];
        self.in_list.clear();
        for &j in &candidates.ids {
            let q = self.model.position(j as usize, t);
            match link(radio, j, distance_m(p, q)) {
                Some(l) => {
                    self.in_list.push(self.list.len() as u32);
                    self.list.push(l);
                }
                None => self.in_list.push(NONE),
            }
        }
        let in_list = &self.in_list;
        self.by_arrival.extend(candidates.nearest_first.iter().map(|&k| in_list[k as usize]).filter(|&x| x != NONE));
        let list = &self.list;
        insertion_sort_by_key(&mut self.by_arrival, |&x| (list[x as usize].delay, x));
        Links { list: &self.list, by_arrival: &self.by_arrival }
    }

    /// Node `i`'s candidates at `t`: every node with a radio within
    /// `candidate_range_m`, from the 3 x 3 grid cells around it.
    fn gather(&mut self, i: usize, t: SimTime) {
        if t >= self.rebin_at {
            self.rebin(t);
        }
        let p = self.model.position(i, t);
        let (cx, cy) = self.cell_of(p);
        let range2 = self.candidate_range_m * self.candidate_range_m;
        self.found.clear();
        for y in cy.saturating_sub(1)..=(cy + 1).min(self.rows - 1) {
            for x in cx.saturating_sub(1)..=(cx + 1).min(self.columns - 1) {
                for &j in &self.cells[y * self.columns + x] {
                    if j as usize == i {
                        continue;
                    }
                    let q = self.model.position(j as usize, t);
                    let d2 = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
                    if d2 <= range2 {
                        self.found.push((j, d2));
                    }
                }
            }
        }
        self.found.sort_unstable_by_key(|&(j, _)| j);
        let candidates = &mut self.per_node[i];
        candidates.ids.clear();
        candidates.ids.extend(self.found.iter().map(|&(j, _)| j));
        candidates.nearest_first.clear();
        candidates.nearest_first.extend(0..self.found.len() as u32);
        let found = &self.found;
        candidates.nearest_first.sort_unstable_by(|&a, &b| found[a as usize].1.total_cmp(&found[b as usize].1).then(a.cmp(&b)));
        candidates.expires_at = t + self.keep;
    }
}

/// Sort `v` by `key` (unique keys), cheaply when it is nearly sorted.
fn insertion_sort_by_key<K: Ord>(v: &mut [u32], key: impl Fn(&u32) -> K) {
    for n in 1..v.len() {
        let mut k = n;
        while k > 0 && key(&v[k]) < key(&v[k - 1]) {
            v.swap(k, k - 1);
            k -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{RngStreams, StreamPurpose};
    use crate::mobility::WaypointParams;
    use crate::phy::config::RadioConfig;
    use crate::phy::Channel;

    /// The receivers of `node`'s transmission at `t` computed directly:
    /// every other node with a radio, from the positions at `t`.
    fn direct(model: &mut RandomWaypoint, has_radio: &[bool], radio: &RadioModel, node: usize, t: SimTime) -> Vec<Neighbour> {
        if !has_radio[node] {
            return Vec::new();
        }
        let p = model.position(node, t);
        (0..has_radio.len())
            .filter(|&j| j != node && has_radio[j])
            .filter_map(|j| {
                let q = model.position(j, t);
                link(radio, j as u32, distance_m(p, q))
            })
            .collect()
    }

    /// Random movements (fast nodes, pauses, radio-less nodes), random
    /// transmitters at random instants (bursts within a nanosecond to a
    /// millisecond, gaps up to several candidate periods and grid
    /// re-binnings): the channel's kept neighbour sets give exactly the
    /// direct computation's receivers, powers, delays and arrival order.
    #[test]
    fn kept_neighbour_sets_equal_the_direct_computation() {
        let radio = RadioModel::from_config(&RadioConfig::default());
        let mut crossings = 0;
        for seed in 1..=6u64 {
            let nodes = 70;
            let params = WaypointParams {
                min_speed_mps: 1.0,
                max_speed_mps: if seed % 2 == 0 { 60.0 } else { 20.0 },
                pause: SimDuration::from_secs_f64(if seed % 3 == 0 { 0.0 } else { 0.4 }),
                start: SimTime::from_secs_f64(0.5),
                width_m: 1800.0,
                height_m: 1200.0,
                steady_state: seed % 2 == 1,
            };
            let streams = RngStreams::new(seed);
            let mut draws = streams.stream(StreamPurpose::Topology, 0);
            let initial: Vec<[f64; 2]> = (0..nodes).map(|_| [draws.uniform_f64() * 1800.0, draws.uniform_f64() * 1200.0]).collect();
            let has_radio: Vec<bool> = (0..nodes).map(|i| i % 11 != 5).collect();
            let moves: Vec<bool> = (0..nodes).map(|i| i % 13 != 7).collect();
            let model = RandomWaypoint::new(params, &initial, &moves, &streams);
            let mut reference = model.clone();
            let positions = (0..nodes).map(|i| reference.position(i, SimTime::ZERO)).collect();
            let mut channel = Channel::new(positions, has_radio.clone(), radio.clone());
            channel.set_motion(model);
            let mut last_seen = vec![Vec::<u32>::new(); nodes];
            let mut t = SimTime::ZERO;
            for _ in 0..4000 {
                let gap_s = match draws.uniform_inclusive(3) {
                    0 => draws.uniform_f64() * 1e-9,
                    1 => draws.uniform_f64() * 1e-3,
                    2 => draws.uniform_f64() * 0.3,
                    _ => draws.uniform_f64() * 4.0,
                };
                t += SimDuration::from_secs_f64(gap_s);
                let node = draws.uniform_inclusive(nodes as u32 - 1) as usize;
                let expected = direct(&mut reference, &has_radio, &radio, node, t);
                let links = channel.neighbours_at(NodeId(node as u32), t);
                assert_eq!(links.list, expected.as_slice(), "seed {seed}, node {node}, t {t:?}");
                assert_eq!(links.by_arrival, arrival_order(&expected).as_slice(), "seed {seed}, node {node}, t {t:?}");
                // Receivers gained since the node's previous transmission:
                // the test must see nodes come within reach.
                let now: Vec<u32> = expected.iter().map(|n| n.node.0).collect();
                crossings += now.iter().filter(|j| !last_seen[node].contains(j)).count();
                last_seen[node] = now;
            }
        }
        assert!(crossings > 1000, "{crossings}");
    }

    #[test]
    fn static_arrival_order_is_by_delay_then_id() {
        let positions = vec![[0.0, 0.0], [300.0, 0.0], [0.0, 100.0], [0.0, -300.0], [100.0, 0.0]];
        let channel = Channel::new(positions, vec![true; 5], RadioModel::from_config(&RadioConfig::default()));
        let links = channel.neighbours(NodeId(0));
        let ids: Vec<u32> = arrival_order(links).iter().map(|&k| links[k as usize].node.0).collect();
        // 100 m (nodes 2 and 4: same delay, lower id first), then 300 m (1, 3).
        assert_eq!(ids, vec![2, 4, 1, 3]);
    }
}
