//! The route cache (RFC 4728 section 4.1) as ns-2's MobiCache keeps it
//! (dsr/mobicache.cc): a path cache in two parts, a primary one for routes
//! from replies and routes in use, a secondary one for routes learnt by
//! forwarding and overhearing. Every path starts at this node.
//!
//! - Adding a path (mobicache.cc:511-623): a cached path that is a prefix
//!   of the new one is extended; a new path that is a prefix of a cached
//!   one adds nothing; otherwise it goes to the first empty slot, or
//!   evicts round robin (666-690).
//! - Looking up a destination (372-475): the shortest route to it in
//!   either part, primary first on a tie, cut after the destination; a
//!   route found in the secondary part for a packet to send is promoted to
//!   the primary one.
//! - A dead link `from -> to` (626-664) cuts every path at `from` (a path
//!   starting with the link is emptied).
//! - RouteCacheTimeout (RFC section 9; none in ns-2): a path not added,
//!   confirmed or used for the timeout is emptied when next looked at.

use crate::time::{SimDuration, SimTime};
use crate::wire::dsr::Path;
use crate::wire::NodeId;

/// One cached path and when it was last added, confirmed or used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CachedPath {
    pub path: Path,
    pub used: SimTime,
}

/// One part of the cache: at most `capacity` slots, filled in order.
#[derive(Debug, Clone)]
pub struct PathCache {
    slots: Vec<CachedPath>,
    capacity: usize,
    /// The next eviction victim (ns-2 `victim_ptr`).
    victim: usize,
}

impl PathCache {
    pub fn new(capacity: usize) -> PathCache {
        PathCache { slots: Vec::new(), capacity: capacity.max(1), victim: 0 }
    }

    /// Add `path` (mobicache.cc:511-563); returns its slot.
    pub fn add(&mut self, path: &Path, now: SimTime) -> usize {
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let common = slot.path.iter().zip(path.iter()).take_while(|(a, b)| a == b).count();
            if common == slot.path.len() {
                // The cached path is a prefix of the new one (or empty).
                slot.path = *path;
                slot.used = now;
                return i;
            }
            if common == path.len() {
                // Already there, as a prefix of a cached path.
                slot.used = now;
                return i;
            }
        }
        let entry = CachedPath { path: *path, used: now };
        if self.slots.len() < self.capacity {
            self.slots.push(entry);
            return self.slots.len() - 1;
        }
        let victim = self.victim;
        self.victim = (self.victim + 1) % self.capacity;
        self.slots[victim] = entry;
        victim
    }

    /// The shortest path to `dst` (hops, slot); the first found on a tie.
    fn shortest(&self, dst: NodeId) -> Option<(usize, usize)> {
        self.shortest_live(dst, |_| true)
    }

    /// [`PathCache::shortest`] among the slots `live` keeps.
    fn shortest_live(&self, dst: NodeId, live: impl Fn(&CachedPath) -> bool) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for (i, slot) in self.slots.iter().enumerate().filter(|(_, slot)| live(slot)) {
            if let Some(hops) = slot.path.position(dst).filter(|&h| h > 0) {
                if best.is_none_or(|(b, _)| hops < b) {
                    best = Some((hops, i));
                }
            }
        }
        best
    }

    /// Cut every path at the link `from -> to` (mobicache.cc:626-664).
    pub fn dead_link(&mut self, from: NodeId, to: NodeId) -> usize {
        let mut cut = 0;
        for slot in &mut self.slots {
            if let Some(n) = (1..slot.path.len()).find(|&i| slot.path.get(i - 1) == from && slot.path.get(i) == to) {
                // n - 1 == 0: the path starts with the dead link; it empties.
                slot.path.truncate(if n == 1 { 0 } else { n });
                cut += 1;
            }
        }
        cut
    }

    /// Empty the paths unused since `now - timeout`.
    fn expire(&mut self, now: SimTime, timeout: SimDuration) {
        for slot in &mut self.slots {
            if !slot.path.is_empty() && now.since(slot.used) >= timeout {
                slot.path.truncate(0);
            }
        }
    }

    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.slots.iter().map(|s| &s.path).filter(|p| !p.is_empty())
    }

    /// Slots allocated (what the cache holds in memory).
    pub fn slots(&self) -> usize {
        self.slots.len()
    }
}

/// Which part of the cache a route goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CachePart {
    Primary,
    Secondary,
}

/// A node's route cache.
#[derive(Debug, Clone)]
pub struct RouteCache {
    pub primary: PathCache,
    pub secondary: PathCache,
    pub timeout: Option<SimDuration>,
}

impl RouteCache {
    pub fn new(primary: usize, secondary: usize, timeout: Option<SimDuration>) -> RouteCache {
        RouteCache { primary: PathCache::new(primary), secondary: PathCache::new(secondary), timeout }
    }

    /// Cache `path` (which starts at this node and has a hop at least).
    pub fn add(&mut self, path: &Path, part: CachePart, now: SimTime) {
        if path.len() < 2 {
            return;
        }
        match part {
            CachePart::Primary => self.primary.add(path, now),
            CachePart::Secondary => self.secondary.add(path, now),
        };
    }

    /// The route to `dst` (from this node, cut after `dst`), if cached. A
    /// route for a packet to send (`for_use`) found in the secondary part
    /// moves to the primary one (mobicache.cc:413-442).
    pub fn find(&mut self, dst: NodeId, now: SimTime, for_use: bool) -> Option<Path> {
        if let Some(timeout) = self.timeout {
            self.primary.expire(now, timeout);
            self.secondary.expire(now, timeout);
        }
        let primary = self.primary.shortest(dst);
        let secondary = self.secondary.shortest(dst).filter(|&(h, _)| primary.is_none_or(|(p, _)| h < p));
        let route = match (primary, secondary) {
            (_, Some((hops, slot))) => {
                let full = self.secondary.slots[slot].path;
                if for_use {
                    self.primary.add(&full, now);
                    self.secondary.slots[slot].path.truncate(0);
                } else {
                    self.secondary.slots[slot].used = now;
                }
                full.slice(0, hops + 1)
            }
            (Some((hops, slot)), None) => {
                self.primary.slots[slot].used = now;
                self.primary.slots[slot].path.slice(0, hops + 1)
            }
            (None, None) => return None,
        };
        Some(route)
    }

    /// The route [`RouteCache::find`] would give `dst` at `now`, read
    /// without changing the cache (no path expired, promoted or marked
    /// used): a path past the timeout counts as gone.
    pub fn peek(&self, dst: NodeId, now: SimTime) -> Option<Path> {
        let live = |slot: &CachedPath| self.timeout.is_none_or(|timeout| now.since(slot.used) < timeout);
        let primary = self.primary.shortest_live(dst, live);
        let secondary = self.secondary.shortest_live(dst, live).filter(|&(h, _)| primary.is_none_or(|(p, _)| h < p));
        match (primary, secondary) {
            (_, Some((hops, slot))) => Some(self.secondary.slots[slot].path.slice(0, hops + 1)),
            (Some((hops, slot)), None) => Some(self.primary.slots[slot].path.slice(0, hops + 1)),
            (None, None) => None,
        }
    }

    /// The link `from -> to` is broken: cut every path using it.
    pub fn dead_link(&mut self, from: NodeId, to: NodeId) -> usize {
        self.primary.dead_link(from, to) + self.secondary.dead_link(from, to)
    }

    /// Paths the cache holds (slots allocated).
    pub fn slots(&self) -> usize {
        self.primary.slots() + self.secondary.slots()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(nodes: &[u32]) -> Path {
        Path::of(&nodes.iter().map(|&n| NodeId(n)).collect::<Vec<_>>())
    }

    fn t(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    #[test]
    fn prefixes_merge_and_the_shortest_route_wins() {
        let mut c = RouteCache::new(30, 64, None);
        c.add(&path(&[0, 1, 2]), CachePart::Primary, t(0.0));
        c.add(&path(&[0, 1, 2, 3, 4]), CachePart::Primary, t(0.0));
        assert_eq!(c.primary.paths().count(), 1, "the new route extends the cached prefix");
        c.add(&path(&[0, 1]), CachePart::Primary, t(0.0));
        assert_eq!(c.primary.paths().count(), 1, "a prefix of a cached path adds nothing");
        assert_eq!(c.find(NodeId(3), t(1.0), false), Some(path(&[0, 1, 2, 3])));
        c.add(&path(&[0, 5, 4]), CachePart::Secondary, t(0.0));
        assert_eq!(c.find(NodeId(4), t(1.0), false), Some(path(&[0, 5, 4])), "shorter, in the secondary cache");
        assert_eq!(c.secondary.paths().count(), 1, "a lookup to answer a request does not promote");
        assert_eq!(c.find(NodeId(4), t(1.0), true), Some(path(&[0, 5, 4])));
        assert_eq!((c.primary.paths().count(), c.secondary.paths().count()), (2, 0), "promoted for use");
    }

    #[test]
    fn a_dead_link_cuts_paths_and_full_caches_evict_round_robin() {
        let mut c = RouteCache::new(2, 2, None);
        c.add(&path(&[0, 1, 2, 3]), CachePart::Primary, t(0.0));
        c.add(&path(&[0, 2, 3]), CachePart::Primary, t(0.0));
        assert_eq!(c.dead_link(NodeId(2), NodeId(3)), 2);
        assert_eq!(c.find(NodeId(3), t(0.0), false), None);
        assert_eq!(c.find(NodeId(2), t(0.0), false), Some(path(&[0, 2])));
        c.dead_link(NodeId(0), NodeId(2));
        assert_eq!(c.find(NodeId(2), t(0.0), false), Some(path(&[0, 1, 2])), "the path starting with the link emptied");
        c.add(&path(&[0, 7]), CachePart::Primary, t(0.0)); // fills the empty slot
        c.add(&path(&[0, 8]), CachePart::Primary, t(0.0)); // evicts slot 0
        assert_eq!(c.find(NodeId(2), t(0.0), false), None);
        assert_eq!(c.find(NodeId(8), t(0.0), false), Some(path(&[0, 8])));
    }

    #[test]
    fn routes_expire_after_the_timeout_unless_used() {
        let mut c = RouteCache::new(30, 64, Some(SimDuration::from_secs_f64(300.0)));
        c.add(&path(&[0, 1, 2]), CachePart::Primary, t(0.0));
        c.add(&path(&[0, 3, 4]), CachePart::Primary, t(0.0));
        assert!(c.find(NodeId(2), t(299.0), true).is_some(), "used at 299 s");
        assert!(c.find(NodeId(4), t(300.0), false).is_none(), "unused for 300 s");
        assert!(c.find(NodeId(2), t(598.0), false).is_some());
    }
}
