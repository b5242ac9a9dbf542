//! Route discovery at the originator (RFC 3561 6.3, 6.4).

use super::*;

// ---------------------------------------------------------------------------
// Route discovery at the originator (6.3, 6.4)
// ---------------------------------------------------------------------------

/// 6.3, 6.4: a packet without a route waits in the request queue, and a
/// RREQ with TTL = TTL_START, the 'U' flag, the incremented own sequence
/// number and a fresh RREQ ID goes out; the node waits
/// RING_TRAVERSAL_TIME(1) = 2 * 40 ms * (1 + 2) = 240 ms.
#[test]
fn route_output_without_a_route_buffers_and_broadcasts_a_first_rreq() {
    let mut s = Node::new(0);
    let out = s.originate(ms(0), data(1, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer"]);
    let expected = Rreq {
        gratuitous: false,
        destination_only: false,
        unknown_seq: true,
        hop_count: 0,
        id: 1,
        dst: n(5),
        dst_seq: SeqNumber(0),
        orig: n(0),
        orig_seq: SeqNumber(1),
    };
    assert_eq!(out.the_rreq(), (expected, 1), "TTL_START = 1");
    assert_eq!(out.timers(), [(AodvTimer::Discovery(n(5)), ms(240))]);
    assert_eq!(s.buffered(), [1]);
    assert_eq!(s.routing.own_seq, SeqNumber(1), "6.1: incremented before the discovery");

    // A second packet for the same destination joins the queue; the
    // discovery under way is not started again.
    let out = s.originate(ms(100), data(2, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed"]);
    assert_eq!(s.buffered(), [1, 2]);
}

/// 6.4 expanding ring: TTL 1, 3, 5, 7 waiting RING_TRAVERSAL_TIME
/// (240, 400, 560, 720 ms), then TTL = NET_DIAMETER = 35 waiting
/// NET_TRAVERSAL_TIME = 2.8 s, doubled per retry (6.3 binary exponential
/// backoff): 5.6 s, 11.2 s; after 1 + RREQ_RETRIES RREQs at TTL 35 (module
/// doc) the discovery fails: the packet is dropped with cause no_route and
/// its source may send another.
#[test]
fn an_unanswered_discovery_widens_the_ring_retries_at_net_diameter_then_fails() {
    let mut s = Node::new(0);
    let p = data(1, 0, 5);
    let out = s.originate(ms(0), p);
    assert_eq!(out.the_rreq().1, 1);
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(240)));

    // (timer fires at ms, TTL of the next RREQ, its RREQ ID = own sequence number, next deadline ms)
    let ring =
        [(240, 3, 2, 640), (640, 5, 3, 1200), (1200, 7, 4, 1920), (1920, 35, 5, 4720), (4720, 35, 6, 10_320), (10_320, 35, 7, 21_520)];
    for (at, ttl, id, next) in ring {
        let out = s.timer(ms(at), AodvTimer::Discovery(n(5)));
        assert_eq!(out.kinds(), ["rreq", "timer"], "at {at} ms");
        let (q, sent_ttl) = out.the_rreq();
        assert_eq!(sent_ttl, ttl, "at {at} ms");
        assert_eq!((q.id, q.orig_seq, q.hop_count, q.unknown_seq, q.dst), (id, SeqNumber(id), 0, true, n(5)), "at {at} ms");
        assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(next)), "at {at} ms");
        assert_eq!(s.buffered(), [1]);
    }

    let out = s.timer(ms(21_520), AodvTimer::Discovery(n(5)));
    assert_eq!(out.kinds(), ["drop", "buffer_changed", "refill"]);
    assert_eq!(out.drops(), [(1, DropCause::NoRoute)]);
    assert_eq!(out.refills(), [1]);
    assert!(s.buffered().is_empty());
    assert_eq!(s.routing.stats.requests_originated, 7);
    assert_eq!(s.routing.stats.discoveries_failed, 1);
    // The discovery is over: its timer is stale.
    assert!(s.timer(ms(21_520), AodvTimer::Discovery(n(5))).is_empty());

    // A packet for the same destination later starts a new search from TTL_START.
    let out = s.originate(ms(30_000), data(2, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer"]);
    assert_eq!((out.the_rreq().0.id, out.the_rreq().1), (8, 1));
}

/// 6.7: a RREP from the next hop installs the forward route (hop count + 1,
/// the RREP's sequence number, lifetime now + the RREP's), the buffered
/// packets go to that next hop in order, and the discovery ends: its timer
/// is stale.
#[test]
fn a_rrep_installs_the_route_releases_the_buffer_and_ends_the_discovery() {
    let mut s = Node::new(0);
    s.originate(ms(0), data(1, 0, 5));
    s.originate(ms(50), data(2, 0, 5));

    let out = s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);
    assert_eq!(out.kinds(), ["data", "data", "buffer_changed"]);
    assert_eq!(out.data(), [(1, n(1)), (2, n(1))]);
    assert!(s.buffered().is_empty());

    let e = s.route(5).unwrap();
    assert_eq!((e.state, e.next_hop, e.hops, e.seq, e.seq_valid), (RouteState::Valid, n(1), 2, SeqNumber(3), true));
    assert_eq!(e.lifetime, ms(6100), "100 ms + the RREP's 6000 ms");
    let nb = s.route(1).unwrap();
    assert_eq!((nb.next_hop, nb.hops, nb.seq_valid), (n(1), 1, false), "6.7: a route to the previous hop, no sequence number");
    assert_eq!(s.routing.stats.discoveries_succeeded, 1);

    // The RREQ's timer fires: stale, no further RREQ.
    assert!(s.timer(ms(240), AodvTimer::Discovery(n(5))).is_empty());
    // New packets go straight to the next hop.
    let out = s.originate(ms(300), data(3, 0, 5));
    assert_eq!(out.kinds(), ["data"]);
    assert_eq!(out.data(), [(3, n(1))]);
}

/// 6.4: a new discovery of a destination whose route broke starts at its
/// last hop count + TTL_INCREMENT and asks for the sequence number the
/// break incremented (6.11); the earlier discovery's timer is stale.
#[test]
fn a_rediscovery_starts_from_the_last_hop_count_and_ignores_the_old_timer() {
    let mut s = Node::new(0);
    s.originate(ms(0), data(1, 0, 5));
    s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);

    let p = data(2, 0, 5);
    assert_eq!(s.link_failure(ms(150), &p, 1).links_broken(), [(n(1), Some(2))]);
    let out = s.link_broken(ms(150), 1, Some(&p), vec![data(3, 0, 5)]);
    assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer", "buffer_changed"]);
    let expected = Rreq {
        gratuitous: false,
        destination_only: false,
        unknown_seq: false,
        hop_count: 0,
        id: 2,
        dst: n(5),
        dst_seq: SeqNumber(4),
        orig: n(0),
        orig_seq: SeqNumber(2),
    };
    assert_eq!(out.the_rreq(), (expected, 4), "TTL = 2 hops + TTL_INCREMENT; sequence number 3 + 1");
    // RING_TRAVERSAL_TIME(4) = 2 * 40 ms * (4 + 2) = 480 ms.
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(630)));
    assert_eq!(s.buffered(), [3]);

    // The first discovery's timer, still in the world's queue: stale.
    assert!(s.timer(ms(240), AodvTimer::Discovery(n(5))).is_empty());
    // The new one goes on: TTL 6, RING_TRAVERSAL_TIME(6) = 640 ms.
    let out = s.timer(ms(630), AodvTimer::Discovery(n(5)));
    assert_eq!(out.the_rreq().1, 6);
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(1270)));
}

/// 6.3 RREQ_RATELIMIT: at most 10 RREQs originated per second. The 11th
/// discovery waits (its timer armed for the time the window allows, not
/// awaiting a reply) and then sends its first RREQ; a discovery whose
/// retry meets the limit keeps its place in the expanding ring.
#[test]
fn rreq_origination_is_rate_limited_to_ten_per_second() {
    let mut s = Node::new(0);
    for k in 0..10u64 {
        let out = s.originate(ms(10 * k), data(k, 0, 10 + k as u32));
        assert_eq!(out.kinds(), ["buffer_changed", "rreq", "timer"], "discovery {k}");
        assert_eq!(out.the_timer().1, ms(10 * k + 240));
    }
    // 10 RREQs at 0, 10, ..., 90 ms: the 11th may go at 0 + 1 s.
    let out = s.originate(ms(100), data(10, 0, 20));
    assert_eq!(out.kinds(), ["buffer_changed", "timer"]);
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(20)), ms(1000)));
    assert!(!s.routing.discoveries[&n(20)].awaiting_reply);
    assert_eq!(s.routing.stats.requests_originated, 10);

    // The first ten discoveries' timers (240 .. 330 ms) meet the limit too.
    for k in 0..10u64 {
        let out = s.timer(ms(240 + 10 * k), AodvTimer::Discovery(n(10 + k as u32)));
        assert_eq!(out.kinds(), ["timer"], "discovery {k}");
        assert_eq!(out.the_timer().1, ms(1000));
    }

    // At 1 s the RREQ sent at 0 ms leaves the window: one may go, the 11th
    // discovery's first (TTL_START).
    let out = s.timer(ms(1000), AodvTimer::Discovery(n(20)));
    assert_eq!(out.kinds(), ["rreq", "timer"]);
    assert_eq!((out.the_rreq().0.id, out.the_rreq().1), (11, 1));
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(20)), ms(1240)));
    assert!(s.routing.discoveries[&n(20)].awaiting_reply);

    // The others fired at 1 s wait for the next slot: 10 ms + 1 s.
    for k in 0..10u64 {
        let out = s.timer(ms(1000), AodvTimer::Discovery(n(10 + k as u32)));
        assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(10 + k as u32)), ms(1010)), "discovery {k}");
        assert!(out.rreqs().is_empty());
    }
    // At 1010 ms destination 10 gets its second RREQ: TTL 3, not TTL 1 again.
    let out = s.timer(ms(1010), AodvTimer::Discovery(n(10)));
    assert_eq!((out.the_rreq().0.id, out.the_rreq().1), (12, 3));
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(10)), ms(1410)), "RING_TRAVERSAL_TIME(3) = 400 ms");
    // Destination 11 waits again (20 ms + 1 s).
    assert_eq!(s.timer(ms(1010), AodvTimer::Discovery(n(11))).the_timer(), (AodvTimer::Discovery(n(11)), ms(1020)));
}

/// `measured_traversal_time` (ns-2 `PerHopTime`): the one-hop latency is
/// sampled only from a RREP addressed to this node (ns-2 `recvReply`,
/// aodv/aodv.cc:873-880 of ns-2.35, where `ih->daddr() == index`). The
/// RREP 100 ms after the RREQ over 2 hops gives 50 ms, so the
/// rediscovery's RING_TRAVERSAL_TIME(4) is 2 * 50 ms * (4 + 2) = 600 ms.
#[test]
fn measured_traversal_time_is_sampled_from_a_rrep_to_this_node() {
    let config = AodvConfig { measured_traversal_time: true, ..AodvConfig::default() };
    let mut s = Node::with(0, config);
    s.originate(ms(0), data(1, 0, 5));
    s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);

    let p = data(2, 0, 5);
    s.link_failure(ms(150), &p, 1);
    let out = s.link_broken(ms(150), 1, Some(&p), vec![data(3, 0, 5)]);
    assert_eq!(out.the_rreq().1, 4);
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(750)));
}

/// A discovery that ends because someone else's RREQ gave this node a
/// reverse route to the destination gives no sample (ns-2 sets
/// `rt_disc_latency` in `recvReply` only): the rediscovery waits with the
/// constant NODE_TRAVERSAL_TIME, RING_TRAVERSAL_TIME(7) = 2 * 40 ms * (7 +
/// 2) = 720 ms, not with the 100 ms / 5 hops the reverse route took.
#[test]
fn measured_traversal_time_takes_no_sample_from_a_reverse_route() {
    let config = AodvConfig { measured_traversal_time: true, ..AodvConfig::default() };
    let mut s = Node::with(0, config);
    s.originate(ms(0), data(1, 0, 5));
    // Node 5's own RREQ for node 9, 4 hops out, reaches us through node 1.
    let out = s.control(ms(100), 1, rreq(5, 7, 1, 9, None, 4), 30);
    assert_eq!(out.data(), [(1, n(1))], "the reverse route releases the packet");
    assert_eq!(s.routing.stats.discoveries_succeeded, 1);

    let p = data(2, 0, 5);
    s.link_failure(ms(150), &p, 1);
    let out = s.link_broken(ms(150), 1, Some(&p), vec![data(3, 0, 5)]);
    assert_eq!(out.the_rreq().1, 7, "5 hops + TTL_INCREMENT");
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(870)));
}
