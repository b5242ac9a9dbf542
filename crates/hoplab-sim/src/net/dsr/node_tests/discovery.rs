//! Route Discovery (RFC 4728 8.2): the request cycles, replies from the
//! target and from caches, accepting replies, gratuitous replies.

use super::*;
use crate::net::dsr::config::RequestBackoff;

#[test]
fn discovery_sends_a_nonpropagating_request_then_a_propagating_one_with_backoff() {
    let mut a = Node::new(0);
    let t = a.originate(ms(0), data(1, 0, 7));
    assert_eq!(a.buffered(), vec![1], "the packet waits in the send buffer");
    assert_eq!(t.discovery_timers(), vec![ms(30)], "NonpropRequestTimeout");
    let sent = a.release_jittered(&t);
    let (packet, h, to) = sent.the_control();
    assert_eq!(to, NodeId::BROADCAST);
    assert_eq!(packet.dst, n(7));
    assert_eq!(h.option, DsrOption::Request { id: 1, target: n(7), hop_limit: 0 }, "non-propagating first (8.2.1)");
    assert_eq!(h.path, path(&[0]));
    assert_eq!(packet.payload_bytes, 4 + 8, "DSR header and Route Request option");
    assert!(packet.created < ms(10), "jittered within BroadcastJitter");

    let t = a.timer(ms(30), DsrTimer::Discovery(n(7)));
    assert_eq!(t.discovery_timers(), vec![ms(500)], "the next cycle RequestPeriod after this one began");
    let (_, h, _) = a.release_jittered(&t).the_control();
    assert_eq!(h.option, DsrOption::Request { id: 2, target: n(7), hop_limit: 255 }, "then propagating (DiscoveryHopLimit)");

    // No reply: a new cycle at 0.5 s, then 1 s after it (doubling).
    let t = a.timer(ms(500), DsrTimer::Discovery(n(7)));
    assert_eq!(t.discovery_timers(), vec![ms(530)]);
    assert!(matches!(a.release_jittered(&t).the_control().1.option, DsrOption::Request { id: 3, hop_limit: 0, .. }));
    let t = a.timer(ms(530), DsrTimer::Discovery(n(7)));
    assert_eq!(t.discovery_timers(), vec![ms(1500)]);
    assert_eq!(a.routing.stats.requests_originated, 4);
    assert_eq!(a.routing.stats.discoveries.get(&n(7)), Some(&1), "one discovery, two cycles");

    // A second packet for the same target joins the discovery.
    let t = a.originate(ms(600), data(2, 0, 7));
    assert_eq!(t.kinds(), vec!["buffer_changed"], "buffered; the discovery under way covers it");
}

#[test]
fn ns2_backoff_quadruples() {
    let mut a = Node::with(0, DsrConfig { request_backoff: RequestBackoff::Ns2, ..Default::default() });
    a.originate(ms(0), data(1, 0, 7));
    let t = a.timer(ms(30), DsrTimer::Discovery(n(7)));
    assert_eq!(t.discovery_timers(), vec![ms(2000)], "4 x RequestPeriod after the first cycle (dsragent.cc:328)");
}

#[test]
fn the_target_replies_to_every_copy_with_the_reversed_route() {
    let mut d = Node::new(3);
    let t = d.receive_request(ms(5), 2, request(&[0, 1, 2], 9, 3, 255));
    let sent = d.release_jittered(&t);
    let (packet, h, to) = sent.the_control();
    assert_eq!((packet.src, packet.dst, to), (n(3), n(0), n(2)), "back along the route the request took");
    assert_eq!(h.option, DsrOption::Reply { replier: 3, gratuitous: false, from_cache: false });
    assert_eq!(h.path, path(&[0, 1, 2, 3]));
    assert_eq!(h.walk(), path(&[3, 2, 1, 0]));
    assert_eq!(d.route_to(0), Some(path(&[3, 2, 1, 0])), "the reversed route is cached (8.2.4)");
    // Another copy, by another way: answered too (ns-2 dsragent.cc:752-765).
    let t = d.receive_request(ms(6), 4, request(&[0, 5, 4], 9, 3, 255));
    assert_eq!(d.release_jittered(&t).the_control().2, n(4));
}

#[test]
fn intermediate_nodes_forward_requests_once_and_only_within_the_hop_limit() {
    let mut b = Node::new(2);
    let t = b.receive_request(ms(5), 1, request(&[0, 1], 4, 7, 255));
    let (packet, h, to) = b.release_jittered(&t).the_control();
    assert_eq!((to, h.path), (NodeId::BROADCAST, path(&[0, 1, 2])), "this node appended (8.2.2)");
    assert_eq!(packet.payload_bytes, 4 + 8 + 8, "two recorded addresses");
    assert!(b.receive_request(ms(16), 3, request(&[0, 3], 4, 7, 255)).0.is_empty(), "a duplicate is discarded");
    assert!(b.receive_request(ms(16), 3, request(&[0, 3], 3, 7, 255)).0.is_empty(), "an older id too");
    assert!(b.receive_request(ms(17), 1, request(&[0, 2, 1], 5, 7, 255)).0.is_empty(), "already on the route");
    assert!(b.receive_request(ms(18), 1, request(&[6, 1], 1, 7, 0)).0.is_empty(), "non-propagating, no cached route: dies here");
}

#[test]
fn a_node_replies_from_its_cache_without_loops() {
    let mut c = Node::new(2);
    c.cache(&[2, 5, 6], CachePart::Secondary);
    let t = c.receive_request(ms(5), 1, request(&[0, 1], 4, 6, 0));
    let (packet, h, to) = t.the_control();
    assert_eq!((packet.src, packet.dst, to), (n(2), n(0), n(1)));
    assert_eq!(h.option, DsrOption::Reply { replier: 2, gratuitous: false, from_cache: true });
    assert_eq!(h.path, path(&[0, 1, 2, 5, 6]), "the request's route and the cached one (8.2.3)");
    assert_eq!(c.routing.dsr_stats.replies_from_cache, 1);
    assert_eq!(c.route_to(0), Some(path(&[2, 1, 0])), "the way back is cached too");

    // A cached route through the requester's own path would loop: no reply,
    // and a propagating request goes on.
    let mut c = Node::new(2);
    c.cache(&[2, 1, 6], CachePart::Primary);
    let t = c.receive_request(ms(5), 1, request(&[0, 1], 4, 6, 255));
    let sent = c.release_jittered(&t);
    assert_eq!(sent.the_control().1.path, path(&[0, 1, 2]), "forwarded instead");
    assert_eq!(c.routing.dsr_stats.replies_from_cache, 0);
}

#[test]
fn an_accepted_reply_sends_the_waiting_packets_and_resets_the_backoff() {
    let mut a = Node::new(0);
    a.originate(ms(0), data(1, 0, 3));
    a.originate(ms(1), data(2, 0, 3));
    let reply = DsrHeader {
        path: path(&[0, 1, 2, 3]),
        option: DsrOption::Reply { replier: 3, gratuitous: false, from_cache: false },
        cur: 3,
        salvage: 0,
        piggyback_error: None,
    };
    let t = a.receive(ms(20), 1, control(77, 3, n(0), reply));
    assert_eq!(t.data(), vec![(1, path(&[0, 1, 2, 3]), 0, n(1)), (2, path(&[0, 1, 2, 3]), 0, n(1))], "in arrival order");
    assert!(a.buffered().is_empty());
    assert!(!a.routing.discoveries.contains_key(&n(3)), "the back-off starts over (dsragent.cc:1760-1763)");
    assert_eq!((a.routing.stats.discoveries_succeeded, a.routing.stats.discovery_time_total_ns), (1, 20_000_000));
    assert!(a.timer(ms(30), DsrTimer::Discovery(n(3))).0.is_empty(), "the discovery's timer is stale");
}

#[test]
fn replies_are_forwarded_back_along_their_route() {
    let mut b = Node::new(1);
    let reply = DsrHeader {
        path: path(&[0, 1, 2, 3]),
        option: DsrOption::Reply { replier: 3, gratuitous: false, from_cache: false },
        cur: 2,
        salvage: 0,
        piggyback_error: None,
    };
    let t = b.receive(ms(5), 2, control(77, 3, n(0), reply));
    let (packet, h, to) = t.the_control();
    assert_eq!((packet.uid, to, h.cur), (77, n(0), 3), "same packet, next hop of the walk");
    assert_eq!(b.routing.stats.messages_sent.get("rrep"), Some(&1), "every hop counted");
}

#[test]
fn an_overheard_packet_that_could_skip_hops_earns_its_source_a_gratuitous_reply() {
    // Node 3 hears node 1 send to node 2 a packet whose route goes 2 -> 3.
    let mut c = Node::new(3);
    let p = routed(1, &[0, 1, 2, 3, 4], 2);
    let t = c.overhear(ms(5), &p, 1);
    let (packet, h, to) = t.the_control();
    assert_eq!((packet.src, packet.dst, to), (n(3), n(0), n(1)), "to the source, back through the transmitter");
    assert_eq!(h.path, path(&[0, 1, 3, 4]), "node 2 left out (8.4.3)");
    assert_eq!(h.option, DsrOption::Reply { replier: 2, gratuitous: true, from_cache: false });
    assert_eq!(c.routing.dsr_stats.gratuitous_replies, 1);
    assert_eq!(c.route_to(0), Some(path(&[3, 1, 0])));
    assert!(c.overhear(ms(6), &routed(2, &[0, 1, 2, 3, 4], 2), 1).controls().is_empty(), "held down for GratReplyHoldoff");
    assert!(c.overhear(ms(7), &p, 1).0.is_empty(), "the same packet overheard again is ignored");
    assert_eq!(c.overhear(ms(1006), &routed(3, &[0, 1, 2, 3, 4], 2), 1).controls().len(), 1, "after the hold-down");
}

#[test]
fn overheard_routes_are_cached_with_this_node_in_front() {
    let mut c = Node::new(9);
    c.overhear(ms(5), &routed(1, &[0, 1, 2, 3], 2), 1);
    assert_eq!(c.route_to(3), Some(path(&[9, 1, 2, 3])), "it heard node 1, the transmitter (routecache.cc:222-239)");
    assert!(c.routing.cache.secondary.paths().count() == 1, "in the secondary cache");
}

#[test]
fn ns2_reply_release_spacing_sends_the_released_packets_30_ms_apart() {
    let reply = DsrHeader {
        path: path(&[0, 1, 2, 3]),
        option: DsrOption::Reply { replier: 3, gratuitous: false, from_cache: false },
        cur: 3,
        salvage: 0,
        piggyback_error: None,
    };
    let route = path(&[0, 1, 2, 3]);
    // Off: every waiting packet goes at once.
    let mut a = Node::new(0);
    for uid in 1..=3 {
        a.originate(ms(uid - 1), data(uid, 0, 3));
    }
    let t = a.receive(ms(20), 1, control(77, 3, n(0), reply));
    assert_eq!(t.data().iter().map(|d| d.0).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert!(t.timers(|t| t == DsrTimer::Release).is_empty());

    // On (ns-2's acceptRouteReply, dsragent.cc:1793-1798): the first at
    // once, then one per 30 ms, each with the route it had at the reply.
    let mut a = Node::with(0, DsrConfig { reply_release_spacing_ms: ms(30).since(ms(0)), ..Default::default() });
    for uid in 1..=3 {
        a.originate(ms(uid - 1), data(uid, 0, 3));
    }
    let t = a.receive(ms(20), 1, control(77, 3, n(0), reply));
    assert_eq!(t.data(), vec![(1, route, 0, n(1))]);
    assert_eq!(t.timers(|t| t == DsrTimer::Release), vec![ms(50), ms(80)]);
    assert_eq!(a.buffered(), vec![2, 3], "held until their turn (counted as the node's)");
    assert!(a.timer(ms(49), DsrTimer::Release).data().is_empty(), "not yet");
    assert_eq!(a.timer(ms(50), DsrTimer::Release).data(), vec![(2, route, 0, n(1))]);
    assert_eq!(a.timer(ms(80), DsrTimer::Release).data(), vec![(3, route, 0, n(1))]);
    assert!(a.buffered().is_empty());
}
