//! The AODV routing table of one node (RFC 3561 sections 2, 6.1, 6.2, 6.7,
//! 6.11).
//!
//! An entry holds the destination's sequence number and whether it is
//! known ("valid destination sequence number flag"), the route's state
//! (valid, invalid, being repaired), hop count, next hop, precursors (the
//! neighbours that route through this node toward the destination) and the
//! lifetime, which is the expiry time of a valid route and the deletion
//! time of an invalid one (6.11).
//!
//! Expiry is applied lazily: every access first settles the entry as an
//! eager timer would have at its lifetime (a valid route becomes invalid at
//! its expiry, its sequence number incremented, and is kept DELETE_PERIOD
//! longer; an invalid one is then deleted). The table is a pure function of the events it saw, whenever it
//! is looked at.

use crate::net::NodeId;
use crate::time::{SimDuration, SimTime};
use crate::wire::seqno::SeqNumber;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteState {
    /// An active route: may forward data (section 3, "active route").
    Valid,
    /// Expired or broken: keeps the sequence number and last hop count
    /// until its deletion time (6.11).
    Invalid,
    /// Broken, a local repair under way (6.12): data is buffered, not dropped.
    InRepair,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RouteEntry {
    pub dst: NodeId,
    pub seq: SeqNumber,
    /// The "valid destination sequence number" flag (section 2).
    pub seq_valid: bool,
    pub state: RouteState,
    pub hops: u8,
    pub next_hop: NodeId,
    /// Expiry (valid) or deletion (invalid, in repair) time.
    pub lifetime: SimTime,
    /// Neighbours that use this node toward `dst`, ascending (6.2).
    pub precursors: Vec<NodeId>,
}

impl RouteEntry {
    pub fn is_valid(&self) -> bool {
        self.state == RouteState::Valid
    }
}

/// New routing information about a destination, from a RREQ (reverse
/// route) or a RREP (forward route).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouteInfo {
    pub seq: SeqNumber,
    pub hops: u8,
    pub next_hop: NodeId,
    pub lifetime: SimTime,
}

/// A destination that became unreachable, for a RERR (6.11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreachable {
    pub dst: NodeId,
    pub seq: SeqNumber,
    /// Some neighbour routes through us toward it: it belongs in the RERR.
    pub has_precursors: bool,
    /// Hop count of the route that broke (MIN_REPAIR_TTL of a local repair).
    pub hops: u8,
}

#[derive(Debug, Clone)]
pub struct RoutingTable {
    entries: BTreeMap<NodeId, RouteEntry>,
    delete_period: SimDuration,
    /// A route in repair is replaced only by a fresher sequence number or
    /// fewer hops, as ns-2's `recvReply` (aodv/aodv.cc:859-862) and
    /// `recvRequest` (705-707) compare with the hop count a route in repair
    /// keeps ([`super::LocalRepairRule::Ns2`]). Off: 6.2's rule (iii), an
    /// equal number replaces a route that is not active.
    repair_needs_better_route: bool,
    /// The hop count each destination's route had when it last stopped
    /// being active (expired, broken, invalidated by a RERR, a repair that
    /// failed), kept after the entry is deleted: ns-2's
    /// `rt_last_hop_count` (`rt_down`, ns-2.35 aodv/aodv.cc:424; entries
    /// are never deleted there), read by its RREQ schedule.
    last_hop_counts: BTreeMap<NodeId, u8>,
}

/// Apply expiry up to `now`; false if the entry is gone. An expired route
/// gets its sequence number incremented like a broken one (6.1: "a lost or
/// expired link"; ns-2's `rt_purge` and AODV-UU do the same): a later RREQ
/// then asks for fresher information than any neighbour that still routes
/// through this node can give, which keeps expiry from closing a loop.
fn settle(e: &mut RouteEntry, now: SimTime, delete_period: SimDuration, last_hop_counts: &mut BTreeMap<NodeId, u8>) -> bool {
    if e.state == RouteState::Valid && e.lifetime <= now {
        e.state = RouteState::Invalid;
        last_hop_counts.insert(e.dst, e.hops);
        if e.seq_valid {
            e.seq = e.seq.next();
        }
        e.lifetime += delete_period;
    }
    !(e.state != RouteState::Valid && e.lifetime <= now)
}

impl RoutingTable {
    pub fn new(delete_period: SimDuration, repair_needs_better_route: bool) -> RoutingTable {
        RoutingTable { entries: BTreeMap::new(), delete_period, repair_needs_better_route, last_hop_counts: BTreeMap::new() }
    }

    /// The entry for `dst` in any state, settled to `now`.
    pub fn get_mut(&mut self, dst: NodeId, now: SimTime) -> Option<&mut RouteEntry> {
        let delete_period = self.delete_period;
        let keep = settle(self.entries.get_mut(&dst)?, now, delete_period, &mut self.last_hop_counts);
        if !keep {
            self.entries.remove(&dst);
            return None;
        }
        self.entries.get_mut(&dst)
    }

    pub fn get(&mut self, dst: NodeId, now: SimTime) -> Option<&RouteEntry> {
        self.get_mut(dst, now).map(|e| &*e)
    }

    /// The active route to `dst`, if any.
    pub fn valid(&mut self, dst: NodeId, now: SimTime) -> Option<&mut RouteEntry> {
        self.get_mut(dst, now).filter(|e| e.is_valid())
    }

    /// [`RoutingTable::next_hop`] read without settling: a valid entry
    /// whose lifetime has not passed (what `next_hop` would return at
    /// `now`), the table untouched.
    pub fn peek_next_hop(&self, dst: NodeId, now: SimTime) -> Option<NodeId> {
        self.entries.get(&dst).filter(|e| e.is_valid() && e.lifetime > now).map(|e| e.next_hop)
    }

    pub fn next_hop(&mut self, dst: NodeId, now: SimTime) -> Option<NodeId> {
        self.valid(dst, now).map(|e| e.next_hop)
    }

    /// Section 6.2: a route used to forward data lives at least until `until`.
    pub fn refresh(&mut self, dst: NodeId, now: SimTime, until: SimTime) {
        if let Some(e) = self.valid(dst, now) {
            e.lifetime = e.lifetime.max(until);
        }
    }

    /// A packet arrived from neighbour `n` (sections 6.5, 6.7: "create or
    /// update a route to the previous hop without a valid sequence
    /// number"): a one-hop route to it, valid until at least `until`. The
    /// sequence number already known for `n` is kept. Returns whether a
    /// route that was not valid became valid.
    pub fn heard_neighbour(&mut self, n: NodeId, now: SimTime, until: SimTime) -> bool {
        match self.get_mut(n, now) {
            None => {
                self.entries.insert(
                    n,
                    RouteEntry {
                        dst: n,
                        seq: SeqNumber(0),
                        seq_valid: false,
                        state: RouteState::Valid,
                        hops: 1,
                        next_hop: n,
                        lifetime: until,
                        precursors: Vec::new(),
                    },
                );
                true
            }
            Some(e) => {
                let was_valid = e.is_valid();
                e.lifetime = if was_valid { e.lifetime.max(until) } else { until };
                e.state = RouteState::Valid;
                e.hops = 1;
                e.next_hop = n;
                !was_valid
            }
        }
    }

    /// Offer routing information about `dst` (section 6.2, and the update
    /// rules of 6.7): the entry is created, or replaced when (i) its
    /// sequence number is not known, (ii) the offered one is fresher, or
    /// (iii) they are equal and the route is not active, or (iv) equal and
    /// the offered path is shorter. `extend_only` keeps a later existing
    /// lifetime (the reverse route of 6.5). Returns whether it was taken.
    pub fn offer(&mut self, dst: NodeId, info: RouteInfo, now: SimTime, extend_only: bool) -> bool {
        let repair_needs_better_route = self.repair_needs_better_route;
        match self.get_mut(dst, now) {
            None => {
                self.entries.insert(
                    dst,
                    RouteEntry {
                        dst,
                        seq: info.seq,
                        seq_valid: true,
                        state: RouteState::Valid,
                        hops: info.hops,
                        next_hop: info.next_hop,
                        lifetime: info.lifetime,
                        precursors: Vec::new(),
                    },
                );
                true
            }
            Some(e) => {
                let d = info.seq.diff(e.seq);
                let not_active = match e.state {
                    RouteState::Valid => false,
                    RouteState::InRepair => !repair_needs_better_route,
                    RouteState::Invalid => true,
                };
                let take = !e.seq_valid || d > 0 || (d == 0 && (not_active || info.hops < e.hops));
                if !take {
                    return false;
                }
                let lifetime = if extend_only && e.is_valid() { e.lifetime.max(info.lifetime) } else { info.lifetime };
                e.seq = info.seq;
                e.seq_valid = true;
                e.state = RouteState::Valid;
                e.hops = info.hops;
                e.next_hop = info.next_hop;
                e.lifetime = lifetime;
                true
            }
        }
    }

    /// Add `p` to the precursors of the route to `dst`, if it exists.
    pub fn add_precursor(&mut self, dst: NodeId, p: NodeId, now: SimTime) {
        if let Some(e) = self.get_mut(dst, now) {
            if let Err(at) = e.precursors.binary_search(&p) {
                e.precursors.insert(at, p);
            }
        }
    }

    /// Section 6.11: a node that invalidates its route to neighbour `n`
    /// removes `n` from every precursor list.
    pub fn remove_precursor_everywhere(&mut self, n: NodeId) {
        for e in self.entries.values_mut() {
            if let Ok(at) = e.precursors.binary_search(&n) {
                e.precursors.remove(at);
            }
        }
    }

    /// Section 6.11 case (i): the link to next hop `n` broke. Every active
    /// route through `n` (the route to `n` included) is invalidated, its
    /// sequence number incremented if known, and kept until `now +
    /// DELETE_PERIOD`; `n` leaves every precursor list. Returns the
    /// destinations lost, ascending, in `lost` (cleared first).
    pub fn break_link(&mut self, n: NodeId, now: SimTime, lost: &mut Vec<Unreachable>) {
        lost.clear();
        let delete_period = self.delete_period;
        self.entries.retain(|_, e| settle(e, now, delete_period, &mut self.last_hop_counts));
        for e in self.entries.values_mut() {
            if e.is_valid() && e.next_hop == n {
                if e.seq_valid {
                    e.seq = e.seq.next();
                }
                e.state = RouteState::Invalid;
                e.lifetime = now + delete_period;
                self.last_hop_counts.insert(e.dst, e.hops);
                lost.push(Unreachable { dst: e.dst, seq: e.seq, has_precursors: !e.precursors.is_empty(), hops: e.hops });
            }
        }
        self.remove_precursor_everywhere(n);
    }

    /// Section 6.11 case (iii): a RERR from neighbour `from` lists `dst`
    /// with `seq`. If our active route to `dst` goes through `from`, it is
    /// invalidated with the RERR's sequence number (never an older one) and
    /// returned; otherwise None.
    pub fn rerr_invalidate(&mut self, from: NodeId, dst: NodeId, seq: SeqNumber, now: SimTime) -> Option<Unreachable> {
        let delete_period = self.delete_period;
        let e = self.valid(dst, now)?;
        if e.next_hop != from {
            return None;
        }
        e.seq = if e.seq_valid { e.seq.max(seq) } else { seq };
        e.seq_valid = true;
        e.state = RouteState::Invalid;
        e.lifetime = now + delete_period;
        let lost = Unreachable { dst, seq: e.seq, has_precursors: !e.precursors.is_empty(), hops: e.hops };
        self.last_hop_counts.insert(dst, lost.hops);
        if lost.hops == 1 {
            self.remove_precursor_everywhere(dst);
        }
        Some(lost)
    }

    /// A route held in repair whose repair failed goes down (ns-2's
    /// `LocalRepairTimer::handle`, aodv/aodv.cc:187-212, `rt_down`); it is
    /// kept until `now` + DELETE_PERIOD.
    pub fn repair_failed(&mut self, dst: NodeId, now: SimTime) {
        let delete_period = self.delete_period;
        if let Some(e) = self.get_mut(dst, now).filter(|e| e.state == RouteState::InRepair) {
            e.state = RouteState::Invalid;
            e.lifetime = now + delete_period;
            let hops = e.hops;
            self.last_hop_counts.insert(dst, hops);
        }
    }

    /// ns-2's `rt_last_hop_count` of `dst` (see `last_hop_counts`); None:
    /// its route never went down (ns-2's INFINITY2).
    pub fn last_hop_count(&self, dst: NodeId) -> Option<u8> {
        self.last_hop_counts.get(&dst).copied()
    }

    /// Any active route (section 6.9: HELLOs only from nodes on one).
    pub fn has_active_route(&mut self, now: SimTime) -> bool {
        let delete_period = self.delete_period;
        self.entries.retain(|_, e| settle(e, now, delete_period, &mut self.last_hop_counts));
        self.entries.values().any(|e| e.is_valid())
    }

    /// Every entry, settled to `now`, ascending by destination.
    pub fn entries(&mut self, now: SimTime) -> impl Iterator<Item = &RouteEntry> {
        let delete_period = self.delete_period;
        self.entries.retain(|_, e| settle(e, now, delete_period, &mut self.last_hop_counts));
        self.entries.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ART: SimDuration = SimDuration(3_000_000_000);
    const DELETE: SimDuration = SimDuration(15_000_000_000);

    fn t(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    fn info(seq: u32, hops: u8, next_hop: u32, until: f64) -> RouteInfo {
        RouteInfo { seq: SeqNumber(seq), hops, next_hop: NodeId(next_hop), lifetime: t(until) }
    }

    #[test]
    fn fresher_or_shorter_information_wins_stale_is_discarded() {
        let mut rt = RoutingTable::new(DELETE, false);
        let d = NodeId(9);
        assert!(rt.offer(d, info(10, 4, 1, 10.0), t(0.0), false));
        // Stale (older sequence number): discarded (6.1).
        assert!(!rt.offer(d, info(9, 1, 2, 10.0), t(0.0), false));
        // Same sequence number, longer: discarded; shorter: taken (6.7 iv).
        assert!(!rt.offer(d, info(10, 5, 2, 10.0), t(0.0), false));
        assert!(rt.offer(d, info(10, 3, 2, 10.0), t(0.0), false));
        assert_eq!(rt.next_hop(d, t(1.0)), Some(NodeId(2)));
        // Fresher, even if longer: taken (6.7 ii).
        assert!(rt.offer(d, info(11, 8, 3, 10.0), t(0.0), false));
        assert_eq!(rt.get(d, t(1.0)).unwrap().hops, 8);
        // Across the wrap: 0 is fresher than 4294967295.
        let w = NodeId(4);
        assert!(rt.offer(w, info(u32::MAX, 2, 1, 10.0), t(0.0), false));
        assert!(rt.offer(w, info(0, 6, 3, 10.0), t(0.0), false));
        assert_eq!(rt.get(w, t(0.0)).unwrap().seq, SeqNumber(0));
    }

    #[test]
    fn an_invalid_route_takes_equal_information() {
        let mut rt = RoutingTable::new(DELETE, false);
        let d = NodeId(5);
        rt.offer(d, info(7, 2, 1, 10.0), t(0.0), false);
        let mut lost = Vec::new();
        rt.break_link(NodeId(1), t(1.0), &mut lost);
        assert_eq!(lost, vec![Unreachable { dst: d, seq: SeqNumber(8), has_precursors: false, hops: 2 }]);
        // The broken route's number went up (6.11): 7 is now stale, 8 is taken (6.7 iii).
        assert!(!rt.offer(d, info(7, 1, 3, 10.0), t(1.0), false));
        assert!(rt.offer(d, info(8, 3, 3, 10.0), t(1.0), false));
        assert!(rt.get(d, t(1.0)).unwrap().is_valid());
    }

    #[test]
    fn expiry_invalidates_then_deletes_after_delete_period() {
        let mut rt = RoutingTable::new(DELETE, false);
        let d = NodeId(5);
        rt.offer(d, info(7, 2, 1, 3.0), t(0.0), false);
        rt.refresh(d, t(2.0), t(2.0) + ART); // used at 2 s: lives until 5 s
        assert!(rt.valid(d, t(4.9)).is_some());
        assert!(rt.valid(d, t(5.0)).is_none());
        // Invalid until 5 + 15 s, its sequence number incremented, its hops kept.
        let e = rt.get(d, t(19.9)).unwrap();
        assert_eq!((e.state, e.seq, e.hops), (RouteState::Invalid, SeqNumber(8), 2));
        assert!(rt.get(d, t(20.0)).is_none());
    }

    /// ns-2's `rt_last_hop_count` (`rt_down`, aodv/aodv.cc:424): the hop
    /// count a route had when it stopped being active, kept after the
    /// entry is deleted (ns-2 never deletes it); None for a route that
    /// never went down (INFINITY2, aodv_rtable.cc:47).
    #[test]
    fn the_last_hop_count_outlives_the_entry() {
        let mut rt = RoutingTable::new(DELETE, false);
        rt.offer(NodeId(5), info(7, 4, 1, 3.0), t(0.0), false);
        rt.offer(NodeId(6), info(7, 2, 2, 30.0), t(0.0), false);
        assert_eq!(rt.last_hop_count(NodeId(5)), None, "up, never down");
        assert!(rt.get(NodeId(5), t(25.0)).is_none(), "expired at 3 s, deleted at 18 s");
        assert_eq!(rt.last_hop_count(NodeId(5)), Some(4));
        let mut lost = Vec::new();
        rt.break_link(NodeId(2), t(26.0), &mut lost);
        assert_eq!(rt.last_hop_count(NodeId(6)), Some(2));
    }

    #[test]
    fn link_break_invalidates_routes_through_the_neighbour_and_prunes_precursors() {
        let mut rt = RoutingTable::new(DELETE, false);
        rt.heard_neighbour(NodeId(1), t(0.0), t(3.0));
        rt.offer(NodeId(5), info(3, 3, 1, 10.0), t(0.0), false);
        rt.offer(NodeId(6), info(4, 2, 2, 10.0), t(0.0), false);
        rt.add_precursor(NodeId(5), NodeId(7), t(0.0));
        rt.add_precursor(NodeId(6), NodeId(1), t(0.0));
        let mut lost = Vec::new();
        rt.break_link(NodeId(1), t(1.0), &mut lost);
        // Route to 1 (sequence number unknown: unchanged) and to 5; not to 6.
        assert_eq!(lost.iter().map(|u| (u.dst.0, u.seq.0, u.has_precursors)).collect::<Vec<_>>(), vec![(1, 0, false), (5, 4, true)]);
        assert!(rt.valid(NodeId(6), t(1.0)).unwrap().precursors.is_empty(), "1 left the precursor lists");
    }

    #[test]
    fn rerr_invalidates_only_routes_through_its_sender() {
        let mut rt = RoutingTable::new(DELETE, false);
        rt.offer(NodeId(5), info(3, 3, 1, 10.0), t(0.0), false);
        rt.offer(NodeId(6), info(4, 2, 2, 10.0), t(0.0), false);
        assert_eq!(rt.rerr_invalidate(NodeId(2), NodeId(5), SeqNumber(9), t(1.0)), None);
        let u = rt.rerr_invalidate(NodeId(2), NodeId(6), SeqNumber(5), t(1.0)).unwrap();
        assert_eq!(u.seq, SeqNumber(5), "copied from the RERR");
        assert!(rt.valid(NodeId(6), t(1.0)).is_none());
        assert!(rt.valid(NodeId(5), t(1.0)).is_some());
    }

    #[test]
    fn hearing_a_neighbour_keeps_its_known_sequence_number() {
        let mut rt = RoutingTable::new(DELETE, false);
        rt.offer(NodeId(3), info(12, 4, 1, 10.0), t(0.0), false);
        assert!(!rt.heard_neighbour(NodeId(3), t(1.0), t(4.0)));
        let e = rt.get(NodeId(3), t(1.0)).unwrap();
        assert_eq!((e.hops, e.next_hop, e.seq, e.seq_valid), (1, NodeId(3), SeqNumber(12), true));
        assert_eq!(e.lifetime, t(10.0), "an active route's lifetime only grows");
    }
}
