//! Data (6.2), link breaks and route errors (6.11, 6.12), local repair, HELLO (6.9).

use super::*;

// ---------------------------------------------------------------------------
// Data (6.2) and route errors for data without a route (6.11 case (ii))
// ---------------------------------------------------------------------------

/// 6.2: forwarding a data packet sends it to the next hop and keeps the
/// routes to its destination, the next hop, its source and the previous
/// hop active for ACTIVE_ROUTE_TIMEOUT = 3 s more.
#[test]
fn forwarding_sends_to_the_next_hop_and_refreshes_the_routes_used() {
    let mut i = Node::new(2);
    // Routes to 5 via 3 and to 0 via 1, each until 1 s; one-hop routes to 1 and 3 until 3 s.
    i.control(ms(0), 3, rrep(5, 9, 1, 2, 1000), 35);
    i.control(ms(0), 1, rrep(0, 7, 1, 2, 1000), 35);

    let out = i.forward(ms(500), data(1, 0, 5), 1);
    assert_eq!(out.kinds(), ["data"]);
    assert_eq!(out.data(), [(1, n(3))]);
    for dst in [5, 3, 0, 1] {
        assert_eq!(i.route(dst).unwrap().lifetime, ms(3500), "route to {dst}");
    }
    assert_eq!(i.next_hop_at(ms(3499), 5), Some(n(3)));
    assert_eq!(i.next_hop_at(ms(3500), 5), None, "expired");
}

/// 6.11 case (ii): a data packet to forward without an active route is
/// dropped (route_break) and a RERR is broadcast with TTL 1 (module doc)
/// for its destination, with the sequence number as stored (module doc;
/// 0 if none); an invalid route's lifetime becomes now + DELETE_PERIOD.
#[test]
fn forwarding_without_a_route_drops_and_broadcasts_a_rerr() {
    let mut i = Node::new(2);
    let out = i.forward(ms(0), data(1, 0, 7), 1);
    assert_eq!(out.kinds(), ["drop", "rerr"]);
    assert_eq!(out.drops(), [(1, DropCause::RouteBreak)]);
    assert_eq!(out.rerrs(), [(vec![(7, 0)], false, 1)]);

    // A route to 5 (sequence number 9) that expired at 1 s: invalid, its
    // number incremented at expiry (table.rs, 6.1), kept DELETE_PERIOD.
    i.control(ms(0), 3, rrep(5, 9, 1, 2, 1000), 35);
    let out = i.forward(ms(2000), data(2, 0, 5), 1);
    assert_eq!(out.kinds(), ["drop", "rerr"]);
    assert_eq!(out.drops(), [(2, DropCause::RouteBreak)]);
    assert_eq!(out.rerrs(), [(vec![(5, 10)], false, 1)]);
    let e = i.route(5).unwrap();
    assert_eq!((e.state, e.seq, e.lifetime), (RouteState::Invalid, SeqNumber(10), ms(17_000)));
}

/// 6.11 RERR_RATELIMIT: at most 10 RERRs originated per second.
#[test]
fn rerr_origination_is_rate_limited_to_ten_per_second() {
    let mut i = Node::new(2);
    for k in 0..10u64 {
        assert_eq!(i.forward(ms(10 * k), data(k, 0, 7), 1).kinds(), ["drop", "rerr"], "packet {k}");
    }
    let out = i.forward(ms(100), data(10, 0, 7), 1);
    assert_eq!(out.kinds(), ["drop"]);
    assert_eq!(i.routing.stats.errors_rate_limited, 1);
    // At 1 s the RERR of 0 ms leaves the window.
    assert_eq!(i.forward(ms(1000), data(11, 0, 7), 1).kinds(), ["drop", "rerr"]);
}

// ---------------------------------------------------------------------------
// Link breaks (6.11 case (i)) and received RERRs (6.11 case (iii), 6.12)
// ---------------------------------------------------------------------------

/// Link-layer feedback (module doc): only a data packet's MAC failure
/// breaks the link (`LinkBroken` with the failed packet, nothing
/// invalidated yet); a failed control packet is just dropped.
#[test]
fn a_data_packet_failing_at_the_mac_breaks_the_link_a_control_packet_does_not() {
    let mut r = relay();
    let p = data(1, 0, 5);
    let out = r.link_failure(ms(1000), &p, 3);
    assert_eq!(out.kinds(), ["link_broken"]);
    assert_eq!(out.links_broken(), [(n(3), Some(1))]);
    assert_eq!(r.next_hop_at(ms(1000), 5), Some(n(3)), "invalidated only in on_link_broken");

    let sent_rrep = control_packet(9, n(2), n(1), AodvMessage::Rrep(rrep(5, 9, 2, 0, 6000)), 35, ms(50));
    assert!(r.link_failure(ms(1000), &sent_rrep, 1).is_empty());

    // Without link-layer feedback a data failure breaks nothing either.
    let mut quiet = Node::with(2, AodvConfig { link_layer_feedback: false, ..AodvConfig::default() });
    assert!(quiet.link_failure(ms(0), &p, 3).is_empty());
}

/// 6.11 case (i): the routes through the broken neighbour (its own route
/// included) become invalid with their sequence numbers incremented (if
/// known) and kept DELETE_PERIOD; the packets the MAC held for it come
/// back: the node's own are buffered for a new discovery, forwarded and
/// control ones dropped (route_break, module doc); a RERR lists the lost
/// destinations that have precursors.
#[test]
fn a_broken_link_invalidates_its_routes_rebuffers_own_packets_and_sends_a_rerr() {
    let mut r = relay();
    let failed = data(10, 0, 5);
    assert_eq!(r.link_failure(ms(1000), &failed, 3).links_broken(), [(n(3), Some(10))]);

    let own = data(11, 2, 5);
    let forwarded = data(12, 0, 5);
    // A RREP this node unicast to 3 (answering a RREQ of 3 for 0).
    let control = control_packet(13, n(2), n(3), AodvMessage::Rrep(rrep(0, 7, 2, 3, 5000)), 35, ms(999));
    let out = r.link_broken(ms(1000), 3, Some(&failed), vec![own, forwarded, control]);
    assert_eq!(out.kinds(), ["buffer_changed", "drop", "drop", "rerr", "rreq", "timer", "buffer_changed"]);
    assert_eq!(out.drops(), [(12, DropCause::RouteBreak), (13, DropCause::RouteBreak)]);
    // Neighbour 3 (no sequence number known: 0) and 5 (9 + 1); both have precursor 1.
    assert_eq!(out.rerrs(), [(vec![(3, 0), (5, 10)], false, 1)]);
    // The own packet's discovery: TTL 2 hops + 2, asking for 10.
    let expected = Rreq {
        gratuitous: false,
        destination_only: false,
        unknown_seq: false,
        hop_count: 0,
        id: 1,
        dst: n(5),
        dst_seq: SeqNumber(10),
        orig: n(2),
        orig_seq: SeqNumber(1),
    };
    assert_eq!(out.the_rreq(), (expected, 4));
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(1480)));
    assert_eq!(r.buffered(), [11]);

    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.seq, e.lifetime), (RouteState::Invalid, SeqNumber(10), ms(16_000)));
    assert_eq!(r.route(3).unwrap().state, RouteState::Invalid);
    let back = r.route(0).unwrap();
    assert_eq!((back.state, back.next_hop), (RouteState::Valid, n(1)), "not through 3");
    assert!(back.precursors.is_empty(), "6.11: 3 leaves every precursor list");
    assert_eq!(r.routing.stats.link_breaks, 1);

    // Another own packet: buffered, the discovery under way is not restarted.
    assert_eq!(r.originate(ms(1100), data(14, 2, 5)).kinds(), ["buffer_changed"]);
    // A forwarded one: dropped with a RERR (6.11 case (ii)).
    let out = r.forward(ms(1200), data(15, 0, 5), 1);
    assert_eq!(out.drops(), [(15, DropCause::RouteBreak)]);
    assert_eq!(out.rerrs(), [(vec![(5, 10)], false, 1)]);
}

/// 6.11: a break of a link no neighbour routes through sends no RERR.
#[test]
fn a_broken_link_without_precursors_sends_no_rerr() {
    let mut s = Node::new(0);
    s.originate(ms(0), data(1, 0, 5));
    s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);
    let out = s.link_broken(ms(200), 1, None, vec![]);
    assert_eq!(out.kinds(), ["buffer_changed"]);
    assert_eq!(s.next_hop_at(ms(200), 5), None);
    assert_eq!(s.route(5).unwrap().seq, SeqNumber(4));
}

/// 6.11 case (iii): a RERR from the next hop of an active route invalidates
/// it (with the RERR's sequence number) and, the route having precursors,
/// goes on in a RERR of this node; a RERR from another neighbour changes
/// nothing.
#[test]
fn a_rerr_from_the_next_hop_invalidates_the_route_and_is_propagated() {
    let mut r = relay();
    assert!(r.control(ms(500), 4, rerr(&[(5, 12)], false), 1).is_empty());
    assert_eq!(r.next_hop_at(ms(500), 5), Some(n(3)), "4 is not the next hop");

    let out = r.control(ms(1000), 3, rerr(&[(5, 12)], false), 1);
    assert_eq!(out.kinds(), ["rerr"]);
    assert_eq!(out.rerrs(), [(vec![(5, 12)], false, 1)]);
    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.seq, e.lifetime), (RouteState::Invalid, SeqNumber(12), ms(16_000)));
    assert_eq!(r.routing.stats.errors_received[&n(5)], 1);
    // The route to 3 itself is untouched.
    assert_eq!(r.next_hop_at(ms(1000), 3), Some(n(3)));
}

/// 6.11: the originator (no precursors) invalidates its route but sends
/// nothing; its next discovery asks for the RERR's number, from the last
/// hop count + TTL_INCREMENT (6.4).
#[test]
fn a_rerr_at_the_originator_invalidates_without_propagating() {
    let mut s = Node::new(0);
    s.originate(ms(0), data(1, 0, 5));
    s.control(ms(100), 1, rrep(5, 3, 1, 0, 6000), 35);
    assert!(s.control(ms(1000), 1, rerr(&[(5, 4)], false), 1).is_empty());
    assert_eq!(s.next_hop_at(ms(1000), 5), None);

    let out = s.originate(ms(1100), data(2, 0, 5));
    let (q, ttl) = out.the_rreq();
    assert_eq!((q.unknown_seq, q.dst_seq, ttl), (false, SeqNumber(4), 4));
}

/// 6.12: a RERR with the 'N' flag (a local repair under way downstream)
/// invalidates nothing; from the next hop, with precursors, it is passed on
/// with 'N'.
#[test]
fn a_rerr_with_the_n_flag_invalidates_nothing_and_is_passed_on() {
    let mut r = relay();
    assert!(r.control(ms(900), 4, rerr(&[(5, 12)], true), 1).is_empty(), "not from the next hop");

    let out = r.control(ms(1000), 3, rerr(&[(5, 12)], true), 1);
    assert_eq!(out.kinds(), ["rerr"]);
    let (unreachable, no_delete, ttl) = out.rerrs().remove(0);
    assert_eq!((unreachable.iter().map(|&(d, _)| d).collect::<Vec<_>>(), no_delete, ttl), (vec![5], true, 1));
    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.next_hop, e.seq), (RouteState::Valid, n(3), SeqNumber(9)));
}

// ---------------------------------------------------------------------------
// Local repair (6.12)
// ---------------------------------------------------------------------------

/// 6.12: with local repair, a break caught with a forwarded packet for a
/// destination at most MAX_REPAIR_TTL = 10 hops away starts a repair: the
/// packet waits, the route is "in repair" (later packets wait too, no
/// RERR), and the RREQ has TTL max(MIN_REPAIR_TTL = 2 hops, 0.5 * 2 hops
/// to the source) + LOCAL_ADD_TTL 2 = 4 and asks for the incremented
/// sequence number; the RERR for the destination waits for the outcome.
/// With no RREP within RING_TRAVERSAL_TIME(4) = 480 ms the repair fails:
/// the waiting packets are dropped (route_break, no refill: not this
/// node's own) and the RERR goes out.
#[test]
fn a_failed_local_repair_drops_the_waiting_packets_and_sends_the_rerr() {
    let mut r = relay_with(AodvConfig { local_repair: true, ..AodvConfig::default() });
    let failed = data(10, 0, 5);
    let out = r.link_broken(ms(1000), 3, Some(&failed), vec![data(12, 0, 5)]);
    assert_eq!(out.kinds(), ["buffer_changed", "rerr", "rreq", "timer", "buffer_changed"]);
    assert_eq!(out.rerrs(), [(vec![(3, 0)], false, 1)], "5 is under repair");
    let (q, ttl) = out.the_rreq();
    assert_eq!((q.dst, q.unknown_seq, q.dst_seq, q.orig, ttl), (n(5), false, SeqNumber(10), n(2), 4));
    assert_eq!(out.the_timer(), (AodvTimer::Discovery(n(5)), ms(1480)));
    assert_eq!(r.route(5).unwrap().state, RouteState::InRepair);
    assert_eq!(r.routing.stats.local_repairs, 1);

    let out = r.forward(ms(1100), data(16, 0, 5), 1);
    assert_eq!(out.kinds(), ["buffer_changed"]);
    assert_eq!(r.buffered(), [12, 16]);

    let out = r.timer(ms(1480), AodvTimer::Discovery(n(5)));
    assert_eq!(out.kinds(), ["drop", "drop", "buffer_changed", "rerr"]);
    assert_eq!(out.drops(), [(12, DropCause::RouteBreak), (16, DropCause::RouteBreak)]);
    assert!(out.refills().is_empty());
    assert_eq!(out.rerrs(), [(vec![(5, 10)], false, 1)]);
    assert_eq!(r.route(5).unwrap().state, RouteState::Invalid);
}

/// 6.12: a repair that finds a longer route than the one that broke sends
/// the waiting packets on and a RERR with the 'N' flag.
#[test]
fn a_local_repair_finding_a_longer_route_sends_a_rerr_with_n() {
    let mut r = relay_with(AodvConfig { local_repair: true, ..AodvConfig::default() });
    let failed = data(10, 0, 5);
    r.link_broken(ms(1000), 3, Some(&failed), vec![data(12, 0, 5)]);
    // 5 answers through 4, 3 hops from 4: 4 hops instead of 2.
    let out = r.control(ms(1200), 4, rrep(5, 10, 3, 2, 6000), 35);
    assert_eq!(out.kinds(), ["rerr", "data", "buffer_changed"]);
    assert_eq!(out.rerrs(), [(vec![(5, 10)], true, 1)]);
    assert_eq!(out.data(), [(12, n(4))]);
    let e = r.route(5).unwrap();
    assert_eq!((e.state, e.next_hop, e.hops), (RouteState::Valid, n(4), 4));
    assert!(r.timer(ms(1480), AodvTimer::Discovery(n(5))).is_empty(), "the repair is over");
}

// ---------------------------------------------------------------------------
// HELLO (6.9)
// ---------------------------------------------------------------------------

/// 6.9: with HELLOs on, a HELLO gives a one-hop route to its sender living
/// ALLOWED_HELLO_LOSS * HELLO_INTERVAL = 2 s; a node on an active route that
/// broadcast nothing for HELLO_INTERVAL sends a HELLO (TTL 1, its own
/// sequence number, lifetime 2000 ms); a neighbour silent for more than
/// 2 s is declared lost (`LinkBroken` without a failed packet).
#[test]
fn hellos_keep_neighbours_and_silence_breaks_the_link() {
    let mut h = Node::with(2, AodvConfig { hello: true, ..AodvConfig::default() });
    let (timer, mut tick) = h.start(ms(0)).the_timer();
    assert_eq!(timer, AodvTimer::Hello);
    assert!(tick < ms(1000), "first HELLO at a random phase of HELLO_INTERVAL");

    let hello3 = Rrep { ack_required: false, hop_count: 0, dst: n(3), dst_seq: SeqNumber(4), orig: n(3), lifetime_ms: 2000 };
    assert!(h.control(ms(0), 3, hello3, 1).is_empty());
    let e = h.route(3).unwrap();
    assert_eq!((e.next_hop, e.hops, e.seq, e.seq_valid, e.lifetime), (n(3), 1, SeqNumber(4), true, ms(2000)));

    // Ticks every HELLO_INTERVAL less a jitter of at most 10 ms; on an
    // active route (to 3) the node says hello until the route expires at
    // 2 s; at the first tick more than 2 s after 3 was last heard, 3 is lost.
    let mut hellos = 0;
    loop {
        let out = h.timer(tick, AodvTimer::Hello);
        let (timer, next) = out.the_timer();
        assert_eq!(timer, AodvTimer::Hello);
        assert!(next >= tick + SimDuration(990_000_000) && next <= tick + SimDuration(1_000_000_000), "at {tick}: {next}");
        if tick < ms(2000) {
            let own = Rrep { ack_required: false, hop_count: 0, dst: n(2), dst_seq: SeqNumber(0), orig: n(2), lifetime_ms: 2000 };
            assert_eq!(out.hellos(), [(own, NodeId::BROADCAST, 1)], "at {tick}");
            hellos += 1;
        } else {
            assert!(out.hellos().is_empty(), "no active route left");
        }
        if tick > ms(2000) {
            assert_eq!(out.links_broken(), [(n(3), None)], "at {tick}");
            break;
        }
        assert!(out.links_broken().is_empty());
        tick = next;
    }
    assert!(hellos >= 2);
}
