//! The routing protocols ([`Routing`], a closed set) and static
//! shortest-path routing over the graph of decodable links.
//!
//! Every protocol answers the same four questions, as methods of the world
//! in `forward.rs`: route_output (a packet originated here), route_input (a
//! packet to forward), on_link_failure (the MAC gave up on a next hop) and
//! on_timer (a protocol timer fired).
//!
//! Next hops are computed by breadth-first search from each destination
//! that a flow uses (O(destinations x links), not all pairs). Ties between
//! equally short paths go to the neighbour with the lowest id, so routes
//! are deterministic and independent of the seed.

use super::aodv::{Aodv, AodvStats};
use super::{NodeId, Packet};
use std::collections::{BTreeMap, VecDeque};

/// The routing protocol of the world (`routing.protocol`).
#[derive(Debug, Clone)]
pub enum Routing {
    /// Shortest paths computed once from the initial positions.
    Static(StaticRoutes),
    /// AODV (RFC 3561) in every node.
    Aodv(Box<Aodv>),
}

impl Routing {
    pub fn name(&self) -> &'static str {
        match self {
            Routing::Static(_) => "static",
            Routing::Aodv(_) => "aodv",
        }
    }

    /// Data packets `node` holds while it looks for a route.
    pub fn buffered(&self, node: NodeId) -> impl Iterator<Item = &Packet> {
        let aodv = match self {
            Routing::Aodv(aodv) => Some(aodv.buffered(node)),
            Routing::Static(_) => None,
        };
        aodv.into_iter().flatten()
    }

    /// AODV's counters at `node` (None for static routing).
    pub fn node_stats(&self, node: NodeId) -> Option<&AodvStats> {
        match self {
            Routing::Aodv(aodv) => Some(&aodv.nodes[node.index()].stats),
            Routing::Static(_) => None,
        }
    }
}

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

    /// Hops from `at` to `dst` (None if unreachable or not a destination).
    pub fn hops(&self, at: NodeId, dst: NodeId) -> Option<u32> {
        let table = self.tables.get(&dst)?;
        let hops = table[at.index()].1;
        (hops != UNREACHABLE).then_some(hops)
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
