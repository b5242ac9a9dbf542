//! Route Maintenance (RFC 4728 8.3, 8.4): link-layer failure feedback,
//! route errors and their propagation, salvaging, the send buffer.

use super::*;

#[test]
fn a_link_failure_drops_the_link_the_packet_and_tells_the_source() {
    let mut b = Node::new(2);
    b.cache(&[2, 3, 4], CachePart::Secondary);
    let p = routed(1, &[0, 1, 2, 3, 4], 3);
    let t = b.link_failure(ms(10), &p, 3, Some(DropCause::RetryLimit));
    assert_eq!(t.kinds(), vec!["drop", "link_broken", "rerr"], "no other route: lost with the MAC's cause");
    assert_eq!(t.drops(), vec![(1, DropCause::RetryLimit)]);
    assert_eq!(b.route_to(4), None, "the dead link left the cache (8.3.1)");
    let (packet, h, to) = t.the_control();
    assert_eq!((packet.src, packet.dst, to), (n(2), n(0), n(1)), "to the packet's source, back along its route (8.3.4)");
    assert_eq!(h.option, DsrOption::Error { unreachable: n(3) });
    assert_eq!(h.walk(), path(&[2, 1, 0]));
    assert_eq!(packet.payload_bytes, 4 + (4 + 4) + 16, "a source route with one intermediate node, the Route Error option");
    assert_eq!(b.routing.stats.link_breaks, 1);
}

#[test]
fn a_packet_the_next_hop_already_has_is_not_salvaged() {
    let mut b = Node::new(2);
    b.cache(&[2, 5, 4], CachePart::Primary);
    let t = b.link_failure(ms(10), &routed(1, &[0, 1, 2, 3, 4], 3), 3, None);
    assert_eq!(t.kinds(), vec!["link_broken", "rerr"], "only the ACK was lost: no copy goes out");
}

#[test]
fn a_forwarded_packet_is_salvaged_with_a_cached_route() {
    let mut b = Node::new(2);
    b.cache(&[2, 5, 4], CachePart::Primary);
    let t = b.link_failure(ms(10), &routed(1, &[0, 1, 2, 3, 4], 3), 3, Some(DropCause::RetryLimit));
    assert_eq!(t.data(), vec![(1, path(&[2, 5, 4]), 1, n(5))], "a new route from here, salvage count 1 (8.4.1)");
    let RoutingOutput::Send { packet, .. } = t.0[0] else { panic!() };
    assert_eq!(packet.header_bytes, 28 + 12, "the header follows the new route");
    assert_eq!(packet.src, n(0), "the source stays");
    assert_eq!(t.controls().len(), 1, "the source still hears of the broken link");
    assert_eq!(b.routing.dsr_stats.salvaged, 1);
    // MAX_SALVAGE_COUNT reached: lost.
    let mut worn = routed(2, &[0, 1, 2, 3, 4], 3);
    if let RoutingHeader::Dsr(h) = &mut worn.routing {
        h.salvage = 15;
    }
    b.cache(&[2, 5, 4], CachePart::Primary);
    let t = b.link_failure(ms(11), &worn, 3, Some(DropCause::ChannelError));
    assert_eq!(t.drops(), vec![(2, DropCause::ChannelError)]);
}

#[test]
fn packets_queued_toward_a_broken_link_are_salvaged_rerouted_or_dropped() {
    let mut b = Node::new(2);
    b.cache(&[2, 5, 6], CachePart::Primary);
    let own = routed(3, &[2, 3, 4], 1);
    let queued = vec![routed(1, &[0, 1, 2, 3, 6], 3), routed(2, &[0, 1, 2, 3, 4], 3), own];
    let t = b.link_broken(ms(10), 3, queued);
    assert_eq!(t.data(), vec![(1, path(&[2, 5, 6]), 1, n(5))], "salvaged");
    assert_eq!(t.drops(), vec![(2, DropCause::RouteBreak)], "no route to 4");
    assert_eq!(b.buffered(), vec![3], "this node's own packet waits for a new route");
    assert_eq!(b.routing.stats.discoveries.get(&n(4)), Some(&1));
}

#[test]
fn route_errors_remove_the_link_at_every_node_they_cross() {
    let error =
        DsrHeader { path: path(&[0, 1, 2]), option: DsrOption::Error { unreachable: n(3) }, cur: 1, salvage: 0, piggyback_error: None };
    let mut b = Node::new(1);
    b.cache(&[1, 2, 3, 4], CachePart::Secondary);
    let t = b.receive(ms(10), 2, control(50, 2, n(0), error));
    assert_eq!(b.route_to(4), None, "a forwarder applies the error (8.3.5)");
    assert_eq!(b.route_to(2), Some(path(&[1, 2])), "the path is cut at the dead link");
    let (packet, h, to) = t.the_control();
    assert_eq!((packet.uid, to, h.cur), (50, n(0), 2));

    let mut a = Node::new(0);
    a.cache(&[0, 1, 2, 3, 4], CachePart::Primary);
    let t = a.receive(ms(11), 1, control(50, 2, n(0), DsrHeader { cur: 2, ..error }));
    assert!(t.0.is_empty(), "arrived");
    assert_eq!(a.route_to(4), None);
    assert_eq!(a.routing.dsr_stats.errors_received, 1);
    // The next request carries the error to the nodes it reaches (8.2.1).
    let t = a.originate(ms(20), data(9, 0, 4));
    let (_, h, _) = a.release_jittered(&t).the_control();
    assert_eq!(h.piggyback_error, Some((n(2), n(3))));
    assert_eq!(h.buffer_len(), 4 + 8 + 16);
    let mut c = Node::new(7);
    c.cache(&[7, 2, 3], CachePart::Primary);
    c.receive_request(ms(21), 0, h);
    assert_eq!(c.route_to(3), None, "a node the request reaches drops the link too");
}

#[test]
fn the_send_buffer_drops_the_oldest_when_full_and_packets_that_waited_too_long() {
    let config = DsrConfig {
        send_buffer_packets: 2,
        nonprop_request_timeout_ms: crate::time::SimDuration::from_secs_f64(60.0),
        ..Default::default()
    };
    let mut a = Node::with(0, config);
    let t = a.originate(ms(0), data(1, 0, 7));
    assert_eq!(t.timers(|t| t == DsrTimer::SendBuffer), vec![ms(30_000)], "SendBufferTimeout");
    a.originate(ms(1), data(2, 0, 7));
    let t = a.originate(ms(2), data(3, 0, 8));
    assert_eq!(t.drops(), vec![(1, DropCause::NoRoute)], "full: the oldest goes");
    assert!(t.kinds().contains(&"refill"), "its source may send another");
    assert_eq!(t.timers(|t| t == DsrTimer::SendBuffer), vec![ms(30_001)], "the next oldest's deadline");
    let t = a.timer(ms(30_001), DsrTimer::SendBuffer);
    assert_eq!(t.drops(), vec![(2, DropCause::NoRoute)]);
    assert_eq!(a.buffered(), vec![3]);
    // Its discovery finds no packet left at its next step: failed.
    let t = a.timer(ms(60_000), DsrTimer::Discovery(n(7)));
    assert!(t.0.is_empty());
    assert_eq!(a.routing.stats.discoveries_failed, 1);
}

#[test]
fn ns2_salvage_by_discovery_gives_a_forwarded_packet_one_nonpropagating_request() {
    // Off (RFC 4728 8.4.1): no cached route, the packet is lost at once.
    let mut b = Node::new(2);
    let t = b.link_failure(ms(10), &routed(1, &[0, 1, 2, 3, 4], 3), 3, Some(DropCause::RetryLimit));
    assert_eq!(t.drops(), vec![(1, DropCause::RetryLimit)]);
    assert!(t.discovery_timers().is_empty());

    // On (ns-2's NEW_SALVAGE_LOGIC, dsragent.cc:2424-2438): it waits in the
    // send buffer while one non-propagating request looks for node 4.
    let config = DsrConfig { salvage_by_discovery: true, ..Default::default() };
    let mut b = Node::with(2, config.clone());
    let t = b.link_failure(ms(10), &routed(1, &[0, 1, 2, 3, 4], 3), 3, Some(DropCause::RetryLimit));
    assert!(t.drops().is_empty());
    assert_eq!(b.buffered(), vec![1]);
    assert_eq!(t.discovery_timers(), vec![ms(40)], "NonpropRequestTimeout");
    let rreqs: Vec<_> =
        b.release_jittered(&t).controls().into_iter().filter(|(_, h, _)| matches!(h.option, DsrOption::Request { .. })).collect();
    assert_eq!(rreqs.len(), 1);
    assert_eq!(rreqs[0].1.option, DsrOption::Request { id: 1, target: n(4), hop_limit: 0 }, "non-propagating");
    // No propagating request for another node's packet (dsragent.cc:1560-1561):
    // the cycle waits out RequestPeriod from its start.
    let t = b.timer(ms(40), DsrTimer::Discovery(n(4)));
    assert!(b.release_jittered(&t).controls().is_empty());
    assert_eq!(t.discovery_timers(), vec![ms(510)]);
    // The next cycle would be its second: the packet is dropped instead
    // (dsr_salvage_max_requests = 1, dsragent.cc:1529-1546).
    let t = b.timer(ms(510), DsrTimer::Discovery(n(4)));
    assert_eq!(t.drops(), vec![(1, DropCause::NoRoute)]);
    assert!(t.controls().is_empty() && t.discovery_timers().is_empty());
    assert!(b.buffered().is_empty());
    assert_eq!(b.routing.stats.discoveries_failed, 1);

    // A reply in time sends it on with a route from here, its Salvage
    // count unchanged (dsragent.cc:2437: no increment on this path).
    let mut b = Node::with(2, config);
    b.link_failure(ms(10), &routed(1, &[0, 1, 2, 3, 4], 3), 3, Some(DropCause::RetryLimit));
    let reply = DsrHeader {
        path: path(&[2, 5, 4]),
        option: DsrOption::Reply { replier: 1, gratuitous: false, from_cache: true },
        cur: 2,
        salvage: 0,
        piggyback_error: None,
    };
    let t = b.receive(ms(25), 5, control(77, 5, n(2), reply));
    assert_eq!(t.data(), vec![(1, path(&[2, 5, 4]), 0, n(5))]);
    assert!(b.buffered().is_empty());
}
