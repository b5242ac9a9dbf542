//! The RREQ ID cache (RFC 3561 sections 6.3, 6.5): a node remembers each
//! (originator, RREQ ID) it has seen, or sent, for PATH_DISCOVERY_TIME and
//! silently discards the same request arriving again.

use crate::net::NodeId;
use crate::time::{SimDuration, SimTime};
use std::collections::{BTreeSet, VecDeque};

#[derive(Debug, Clone, Default)]
pub struct RreqIdCache {
    seen: BTreeSet<(NodeId, u32)>,
    /// (forget at, originator, id), in insertion order = expiry order.
    expiry: VecDeque<(SimTime, NodeId, u32)>,
}

impl RreqIdCache {
    fn purge(&mut self, now: SimTime) {
        while let Some(&(at, orig, id)) = self.expiry.front() {
            if at > now {
                break;
            }
            self.expiry.pop_front();
            self.seen.remove(&(orig, id));
        }
    }

    /// Whether the request was seen within its holding time; if not, it is
    /// remembered for `hold` from `now`.
    pub fn seen_or_insert(&mut self, orig: NodeId, id: u32, now: SimTime, hold: SimDuration) -> bool {
        self.purge(now);
        if !self.seen.insert((orig, id)) {
            return true;
        }
        self.expiry.push_back((now + hold, orig, id));
        false
    }

    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_recognised_for_path_discovery_time() {
        let hold = SimDuration::from_secs_f64(5.6);
        let mut c = RreqIdCache::default();
        let t = SimTime::from_secs_f64;
        assert!(!c.seen_or_insert(NodeId(1), 7, t(0.0), hold));
        assert!(c.seen_or_insert(NodeId(1), 7, t(5.5), hold));
        assert!(!c.seen_or_insert(NodeId(1), 8, t(5.5), hold), "another id");
        assert!(!c.seen_or_insert(NodeId(2), 7, t(5.5), hold), "another originator");
        assert!(!c.seen_or_insert(NodeId(1), 7, t(5.6), hold), "forgotten after the holding time");
        assert_eq!(c.len(), 3);
    }
}
