//! Static shortest-path routing over the graph of decodable links (and
//! wired links): computed once from the initial positions.
//!
//! Next hops are computed by breadth-first search from each destination
//! that a flow uses (O(destinations x links), not all pairs). Ties between
//! equally short paths go to the neighbour with the lowest id, so routes
//! are deterministic and independent of the seed. Each node keeps its own
//! next hop per destination ([`StaticNode`]).

use super::routing::{Buffered, Routing, RoutingContext, RoutingCounters, RoutingOutput};
use crate::engine::Outputs;
use crate::loss::DropCause;
use crate::time::SimTime;
use crate::wire::{NodeId, Packet};
use std::collections::{BTreeMap, VecDeque};

pub const UNREACHABLE: u32 = u32::MAX;

#[derive(Debug, Clone, Default)]
pub struct StaticRoutes {
    /// For each destination: (next hop, hops to destination) per node.
    tables: BTreeMap<NodeId, Vec<(NodeId, u32)>>,
}

impl StaticRoutes {
    /// `adjacency[u]`: the nodes that can decode u's frames (and vice versa:
    /// the threshold model is symmetric), sorted by id.
    pub fn compute(adjacency: &[Vec<NodeId>], destinations: impl IntoIterator<Item = NodeId>) -> StaticRoutes {
        let mut tables = BTreeMap::new();
        for dst in destinations {
            tables.entry(dst).or_insert_with(|| bfs_toward(adjacency, dst));
        }
        StaticRoutes { tables }
    }

    /// The next hop from `at` toward `dst`, if `dst` is reachable.
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<NodeId> {
        let table = self.tables.get(&dst)?;
        let (next, hops) = table[at.index()];
        (hops != UNREACHABLE && at != dst).then_some(next)
    }

    /// Node `at`'s own table: its next hop toward every reachable destination.
    pub fn node(&self, at: NodeId) -> StaticNode {
        StaticNode { next_hops: self.tables.keys().filter_map(|&dst| self.next_hop(at, dst).map(|h| (dst, h))).collect() }
    }

    /// Hops from `at` to `dst` (None if unreachable or not a destination).
    pub fn hops(&self, at: NodeId, dst: NodeId) -> Option<u32> {
        let table = self.tables.get(&dst)?;
        let hops = table[at.index()].1;
        (hops != UNREACHABLE).then_some(hops)
    }
}

/// One node's static routes.
#[derive(Debug, Clone, Default)]
pub struct StaticNode {
    next_hops: BTreeMap<NodeId, NodeId>,
}

impl StaticNode {
    fn forward(&self, packet: Packet, out: &mut Outputs<RoutingOutput>) {
        match self.next_hops.get(&packet.dst) {
            Some(&next_hop) => out.push(RoutingOutput::Send { packet, next_hop }),
            None => out.push(RoutingOutput::Drop { packet, cause: DropCause::NoRoute }),
        }
    }
}

/// Static routes ignore link failures, timers and control packets.
impl super::routing::FromRoutingConfig for StaticNode {
    fn from_config(_config: &super::config::RoutingConfig, node: NodeId, _rng: crate::engine::Stream, routes: &StaticRoutes) -> Self {
        routes.node(node)
    }
}

impl Routing for StaticNode {
    fn name(&self) -> &'static str {
        "static"
    }
    fn start(&mut self, _: SimTime, _: &mut RoutingContext, _: &mut Outputs<RoutingOutput>) {}
    fn route_output(&mut self, _: SimTime, packet: Packet, _: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.forward(packet, out)
    }
    fn route_input(&mut self, _: SimTime, packet: Packet, _: NodeId, _: &mut RoutingContext, out: &mut Outputs<RoutingOutput>) {
        self.forward(packet, out)
    }
    fn on_delivered(&mut self, _: SimTime, _: &Packet, _: NodeId) {}
    fn on_control(&mut self, _: SimTime, _: Packet, _: NodeId, _: &mut RoutingContext, _: &mut Outputs<RoutingOutput>) {}
    fn on_heard(&mut self, _: SimTime, _: NodeId) {}
    fn on_link_failure(
        &mut self,
        _: SimTime,
        _: &Packet,
        _: NodeId,
        _: Option<DropCause>,
        _: &mut RoutingContext,
        _: &mut Outputs<RoutingOutput>,
    ) {
    }
    fn on_link_broken(
        &mut self,
        _: SimTime,
        _: NodeId,
        _: Option<&Packet>,
        _: Vec<Packet>,
        _: &mut RoutingContext,
        _: &mut Outputs<RoutingOutput>,
    ) {
    }
    fn on_timer(&mut self, _: SimTime, _: u32, _: &mut RoutingContext, _: &mut Outputs<RoutingOutput>) {}
    fn on_control_dropped(&mut self) {}
    fn next_hop(&mut self, _: SimTime, dst: NodeId) -> Option<NodeId> {
        self.next_hops.get(&dst).copied()
    }
    fn peek_route(&self, _: SimTime, dst: NodeId) -> Option<Vec<NodeId>> {
        self.next_hops.get(&dst).map(|&hop| vec![hop])
    }
    fn buffered(&self) -> Buffered<'_> {
        Buffered::None
    }
    fn counters(&self) -> Option<&RoutingCounters> {
        None
    }
}

fn bfs_toward(adjacency: &[Vec<NodeId>], dst: NodeId) -> Vec<(NodeId, u32)> {
    let mut table = vec![(NodeId(u32::MAX), UNREACHABLE); adjacency.len()];
    table[dst.index()] = (dst, 0);
    let mut frontier = VecDeque::from([dst]);
    while let Some(u) = frontier.pop_front() {
        let hops = table[u.index()].1;
        // Neighbours in ascending id: the first to reach v is the lowest-id
        // next hop among v's shortest paths.
        for &v in &adjacency[u.index()] {
            if table[v.index()].1 == UNREACHABLE {
                table[v.index()] = (u, hops + 1);
                frontier.push_back(v);
            }
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adj(edges: &[(u32, u32)], n: usize) -> Vec<Vec<NodeId>> {
        let mut a = vec![Vec::new(); n];
        for &(u, v) in edges {
            a[u as usize].push(NodeId(v));
            a[v as usize].push(NodeId(u));
        }
        for l in &mut a {
            l.sort();
        }
        a
    }

    #[test]
    fn chain_routes_hop_by_hop() {
        let a = adj(&[(0, 1), (1, 2), (2, 3)], 4);
        let r = StaticRoutes::compute(&a, [NodeId(3)]);
        assert_eq!(r.next_hop(NodeId(0), NodeId(3)), Some(NodeId(1)));
        assert_eq!(r.next_hop(NodeId(2), NodeId(3)), Some(NodeId(3)));
        assert_eq!(r.hops(NodeId(0), NodeId(3)), Some(3));
        assert_eq!(r.next_hop(NodeId(3), NodeId(3)), None);
    }

    #[test]
    fn ties_go_to_the_lowest_id() {
        // 0 reaches 3 through 1 or 2, both two hops.
        let a = adj(&[(0, 2), (0, 1), (1, 3), (2, 3)], 4);
        let r = StaticRoutes::compute(&a, [NodeId(3)]);
        assert_eq!(r.next_hop(NodeId(0), NodeId(3)), Some(NodeId(1)));
    }

    #[test]
    fn unreachable_is_none() {
        let a = adj(&[(0, 1)], 3);
        let r = StaticRoutes::compute(&a, [NodeId(2)]);
        assert_eq!(r.next_hop(NodeId(0), NodeId(2)), None);
        assert_eq!(r.hops(NodeId(0), NodeId(2)), None);
    }
}
