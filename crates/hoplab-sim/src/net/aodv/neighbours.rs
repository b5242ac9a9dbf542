//! Local connectivity (RFC 3561 sections 6.8-6.10): the neighbours a node
//! heard HELLO messages from, with the time it last heard anything from
//! them, and the blacklist of neighbours whose RREQs are ignored.

use crate::net::NodeId;
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default)]
pub struct Neighbours {
    /// Neighbour -> (last HELLO, last packet of any kind).
    heard: BTreeMap<NodeId, (SimTime, SimTime)>,
    /// Neighbour -> end of its blacklisting (6.8).
    blacklist: BTreeMap<NodeId, SimTime>,
}

impl Neighbours {
    /// A HELLO from `n` (6.9).
    pub fn hello_from(&mut self, n: NodeId, now: SimTime) {
        self.heard.insert(n, (now, now));
    }

    /// Any packet from `n` (6.9: "Hello messages or otherwise").
    pub fn packet_from(&mut self, n: NodeId, now: SimTime) {
        if let Some(h) = self.heard.get_mut(&n) {
            h.1 = now;
        }
    }

    /// Section 6.9: neighbours that sent a HELLO within DELETE_PERIOD and
    /// then nothing for more than ALLOWED_HELLO_LOSS * HELLO_INTERVAL: their
    /// links are lost (they are forgotten and returned in `lost`).
    pub fn lost_links(&mut self, now: SimTime, silence: SimDuration, delete_period: SimDuration, lost: &mut Vec<NodeId>) {
        lost.clear();
        self.heard.retain(|&n, &mut (hello, last)| {
            if now.since(last) > silence {
                if now.since(hello) <= delete_period + silence {
                    lost.push(n);
                }
                false
            } else {
                true
            }
        });
    }

    /// Section 6.8: ignore RREQs from `n` until `until`.
    pub fn blacklist(&mut self, n: NodeId, until: SimTime) {
        self.blacklist.insert(n, until);
    }

    pub fn is_blacklisted(&mut self, n: NodeId, now: SimTime) -> bool {
        match self.blacklist.get(&n) {
            Some(&until) if until > now => true,
            Some(_) => {
                self.blacklist.remove(&n);
                false
            }
            None => false,
        }
    }
}

/// A sliding one-second window counting messages a node originated
/// (RREQ_RATELIMIT, RERR_RATELIMIT; sections 6.3, 6.11).
#[derive(Debug, Clone, Default)]
pub struct RateLimit {
    sent: std::collections::VecDeque<SimTime>,
}

pub const RATE_WINDOW: SimDuration = SimDuration(1_000_000_000);

impl RateLimit {
    /// When the next message may go: now, or once the oldest of the last
    /// `per_second` leaves the window.
    pub fn next_allowed(&mut self, now: SimTime, per_second: u32) -> SimTime {
        while self.sent.front().is_some_and(|&t| t + RATE_WINDOW <= now) {
            self.sent.pop_front();
        }
        if self.sent.len() < per_second as usize {
            now
        } else {
            self.sent[self.sent.len() - per_second as usize] + RATE_WINDOW
        }
    }

    pub fn record(&mut self, now: SimTime) {
        self.sent.push_back(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_per_second_then_wait_for_the_window() {
        let mut r = RateLimit::default();
        let t = SimTime::from_secs_f64;
        for i in 0..10 {
            assert_eq!(r.next_allowed(t(0.05 * i as f64), 10), t(0.05 * i as f64));
            r.record(t(0.05 * i as f64));
        }
        assert_eq!(r.next_allowed(t(0.5), 10), t(1.0));
        assert_eq!(r.next_allowed(t(1.0), 10), t(1.0));
    }

    #[test]
    fn silent_hello_neighbours_are_lost_and_blacklists_expire() {
        let mut n = Neighbours::default();
        let t = SimTime::from_secs_f64;
        let silence = SimDuration::from_secs_f64(2.0);
        let delete = SimDuration::from_secs_f64(15.0);
        n.hello_from(NodeId(1), t(0.0));
        n.hello_from(NodeId(2), t(0.0));
        n.packet_from(NodeId(2), t(1.5));
        let mut lost = Vec::new();
        n.lost_links(t(2.5), silence, delete, &mut lost);
        assert_eq!(lost, vec![NodeId(1)]);
        n.lost_links(t(3.6), silence, delete, &mut lost);
        assert_eq!(lost, vec![NodeId(2)]);
        n.blacklist(NodeId(3), t(5.0));
        assert!(n.is_blacklisted(NodeId(3), t(4.9)));
        assert!(!n.is_blacklisted(NodeId(3), t(5.0)));
    }
}
