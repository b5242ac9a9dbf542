//! ns-2's local repair and link-break rules (`preset = "ns2"`; ns-2.35
//! aodv/aodv.cc, the lines each test names). The relay of `relay()`:
//! 0 - 1 - [2] - 3 - 5, route to 5 via 3 (2 hops, sequence number 9).
//! Expected times from the defaults (NODE_TRAVERSAL_TIME 40 ms,
//! TIMEOUT_BUFFER 2, TTL_INCREMENT 2, DELETE_PERIOD 15 s).

use super::*;
use crate::net::aodv::LocalRepairRule;
use crate::wire::DEFAULT_TTL;

fn ns2_repair() -> AodvConfig {
    AodvConfig { local_repair: true, local_repair_rule: LocalRepairRule::Ns2, ..AodvConfig::default() }
}

/// A data packet from `src` to `dst` that has crossed `hops` hops.
fn travelled(uid: u64, src: u32, dst: u32, hops: u8) -> Packet {
    Packet { ttl: DEFAULT_TTL - hops, ..data(uid, src, dst) }
}

impl Node {
    /// The MAC gave up on `packet`, which is AODV's to keep (it salvages
    /// with ns-2's repair) or lost with `cause`.
    fn link_failure_lost(&mut self, t: SimTime, packet: &Packet, next_hop: u32, cause: DropCause) -> Trace {
        self.step(t, |a, ctx, out| a.on_link_failure(t, packet, n(next_hop), Some(cause), ctx, out))
    }
}

/// aodv.cc:325-331, 386-400: a packet that has crossed more hops (3) than
/// its route has left (2) is kept for a repair: buffered, the route held in
/// repair, a discovery started with `sendRequest`'s TTL (2 known hops + 2),
/// no RERR, no broken link (the queue toward 3 and the route to 0 are left
/// alone). The repair timer is armed with the RREQ's timeout as a delay:
/// 1000 ms + (1000 + 480) ms = 2480 ms.
#[test]
fn a_failure_nearer_the_destination_starts_ns2s_repair_without_rerr() {
    let mut r = relay_with(ns2_repair());
    assert!(r.routing.salvages_failed(), "the failed packet is AODV's (ns-2's MAC hands it a copy)");
    let out = r.link_failure_lost(ms(1000), &travelled(10, 9, 5, 3), 3, DropCause::RetryLimit);
    assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer", "timer"]);
    assert!(out.drops().is_empty() && out.rerrs().is_empty() && out.links_broken().is_empty());
    let (q, ttl) = out.the_rreq();
    assert_eq!((q.dst, q.dst_seq, ttl), (n(5), SeqNumber(9), 4));
    assert_eq!(out.timers(), [(AodvTimer::Discovery(n(5)), ms(1480)), (AodvTimer::RepairDeadline(n(5)), ms(2480))]);
    assert_eq!(r.route(5).unwrap().state, RouteState::InRepair);
    assert_eq!(r.next_hop_at(ms(1000), 0), Some(n(1)), "other routes stay up");
    assert_eq!(r.buffered(), [10]);
    assert_eq!(r.routing.stats.local_repairs, 1);
    // Upstream packets for 5 wait too (rt_resolve, aodv.cc:474-476).
    assert_eq!(r.forward(ms(1100), data(11, 0, 5), 1).kinds(), ["buffer_changed"]);
    // A second failure toward 3: buffered, the repair under way goes on.
    let out = r.link_failure_lost(ms(1200), &travelled(12, 9, 5, 3), 3, DropCause::RetryLimit);
    assert_eq!(out.kinds(), ["buffer_changed"]);
    assert_eq!(r.buffered(), [10, 11, 12]);
}

/// aodv.cc:859-862: a route in repair keeps its hop count, so a RREP with
/// the same sequence number and as many hops is ignored (the RFC's rule
/// (iii) would take it); a fresher one repairs the route and releases the
/// packets, with no RERR.
#[test]
fn ns2s_repair_ignores_an_equal_answer_and_takes_a_fresher_one() {
    let mut r = relay_with(ns2_repair());
    r.link_failure_lost(ms(1000), &travelled(10, 9, 5, 3), 3, DropCause::RetryLimit);
    // 4 answers for 5: sequence number 9, 1 hop from 4, so 2 hops here.
    let out = r.control(ms(1100), 4, rrep(5, 9, 1, 2, 6000), 35);
    assert!(out.data().is_empty(), "ignored: {out:?}");
    assert_eq!(r.route(5).unwrap().state, RouteState::InRepair);
    let out = r.control(ms(1150), 4, rrep(5, 10, 1, 2, 6000), 35);
    assert_eq!(out.data(), [(10, n(4))]);
    assert!(out.rerrs().is_empty());
    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.next_hop, e.seq), (RouteState::Valid, n(4), SeqNumber(10)));
    assert!(r.timer(ms(2480), AodvTimer::RepairDeadline(n(5))).is_empty(), "repaired: the timer changes nothing");
    assert_eq!(r.route(5).unwrap().state, RouteState::Valid);

    // The RFC's rule takes an equal answer for a route in repair (the
    // RFC's repair increments the number first: 10).
    let mut rfc = relay_with(AodvConfig { local_repair: true, ..AodvConfig::default() });
    rfc.link_broken(ms(1000), 3, Some(&travelled(10, 9, 5, 3)), vec![data(12, 0, 5)]);
    assert_eq!(rfc.control(ms(1100), 4, rrep(5, 10, 1, 2, 6000), 35).data(), [(12, n(4))]);
}

/// aodv.cc:187-212: the repair timer brings a route still in repair down
/// without a RERR; the discovery goes on for the buffered packets (no RERR
/// and no drop when its first wait ends, unlike the RFC's repair), and a
/// packet arriving from upstream is then dropped with a RERR (rt_resolve,
/// 478-498).
#[test]
fn ns2s_repair_timer_brings_the_route_down_quietly() {
    let mut r = relay_with(ns2_repair());
    r.link_failure_lost(ms(1000), &travelled(10, 9, 5, 3), 3, DropCause::RetryLimit);
    let out = r.timer(ms(1480), AodvTimer::Discovery(n(5)));
    assert_eq!(out.kinds(), ["rreq", "timer"], "the next RREQ of the ring, no RERR");
    assert_eq!(out.the_rreq().1, 6, "TTL 4 + TTL_INCREMENT");
    assert!(r.timer(ms(2480), AodvTimer::RepairDeadline(n(5))).is_empty());
    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.lifetime), (RouteState::Invalid, ms(17_480)));
    assert_eq!(r.buffered(), [10]);
    let out = r.forward(ms(2500), data(11, 0, 5), 1);
    assert_eq!(out.drops(), [(11, DropCause::RouteBreak)]);
    assert_eq!(out.rerrs().len(), 1);
}

/// aodv.cc:333-341: a failure nearer the source is not repaired: the
/// failed packet is dropped (it was AODV's) and the link breaks; with
/// `requeue_own_on_break` off, the node's own packets queued toward the
/// broken neighbour are dropped too, not buffered (`ifqueue->filter`).
#[test]
fn a_failure_nearer_the_source_breaks_the_link_and_drops_own_packets() {
    let mut r = relay_with(AodvConfig { requeue_own_on_break: false, ..ns2_repair() });
    let failed = travelled(10, 0, 5, 2);
    let out = r.link_failure_lost(ms(1000), &failed, 3, DropCause::RetryLimit);
    assert_eq!(out.kinds(), ["drop", "link_broken"]);
    assert_eq!(out.drops(), [(10, DropCause::RetryLimit)]);
    let out = r.link_broken(ms(1000), 3, Some(&failed), vec![data(11, 2, 5), data(12, 0, 5)]);
    assert_eq!(out.drops(), [(11, DropCause::RouteBreak), (12, DropCause::RouteBreak)]);
    assert!(out.rreqs().is_empty(), "no discovery: nothing waits for one");
    assert!(r.buffered().is_empty());
    assert_eq!(r.route(5).unwrap().state, RouteState::Invalid);
}
