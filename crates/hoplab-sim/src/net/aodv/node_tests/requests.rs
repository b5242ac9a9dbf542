//! Processing RREQs (6.5, 6.6) and RREPs (6.7); sequence numbers (6.1).

use super::*;

// ---------------------------------------------------------------------------
// Processing a RREQ (6.5, 6.6)
// ---------------------------------------------------------------------------

/// 6.5, 6.6.1: the destination makes a reverse route to the originator
/// (hop count + 1, the originator's sequence number, lifetime at least
/// 2 * NET_TRAVERSAL_TIME - 2 * hops * NODE_TRAVERSAL_TIME = 5.6 s - 160 ms)
/// and unicasts a RREP to the previous hop with hop count 0, its own
/// sequence number (at least the one asked for, 6.1), lifetime
/// MY_ROUTE_TIMEOUT = 6 s. A duplicate RREQ is ignored.
#[test]
fn the_destination_answers_with_a_rrep_to_the_previous_hop() {
    let mut d = Node::new(5);
    let out = d.control(ms(0), 1, rreq(0, 7, 1, 5, None, 1), 34);
    assert_eq!(out.kinds(), ["rrep"]);
    assert_eq!(out.the_rrep(), (rrep(5, 0, 0, 0, 6000), n(1)), "'U': the own number unchanged");

    let back = d.route(0).unwrap();
    assert_eq!((back.state, back.next_hop, back.hops, back.seq, back.seq_valid), (RouteState::Valid, n(1), 2, SeqNumber(7), true));
    assert_eq!(back.lifetime, ms(5440));
    let nb = d.route(1).unwrap();
    assert_eq!((nb.next_hop, nb.hops, nb.seq_valid, nb.lifetime), (n(1), 1, false, ms(3000)), "previous hop: ACTIVE_ROUTE_TIMEOUT");

    // Asked for 4 (not 'U'): the RREP carries 4 and the node keeps it.
    let out = d.control(ms(1000), 1, rreq(0, 8, 2, 5, Some(4), 1), 34);
    assert_eq!(out.the_rrep(), (rrep(5, 4, 0, 0, 6000), n(1)));
    assert_eq!(d.routing.own_seq, SeqNumber(4));
    // Asked for an older number: the node's own never goes back.
    let out = d.control(ms(2000), 1, rreq(0, 9, 3, 5, Some(2), 1), 34);
    assert_eq!(out.the_rrep(), (rrep(5, 4, 0, 0, 6000), n(1)));

    // The same RREQ (originator 0, RREQ ID 3) over another path: discarded (6.5).
    assert!(d.control(ms(2010), 4, rreq(0, 9, 3, 5, Some(2), 2), 33).is_empty());
}

/// 6.5: an intermediate node without a route forwards the RREQ after a
/// jitter of up to 10 ms (a `Send` timer, then the RREQ when it fires):
/// broadcast, IP TTL - 1, hop count + 1, the rest unchanged. A duplicate
/// (same originator and RREQ ID) is ignored; a RREQ received with TTL 1
/// goes no further.
#[test]
fn an_intermediate_node_without_a_route_forwards_the_rreq_after_a_jitter() {
    let mut i = Node::new(2);
    let out = i.control(ms(0), 1, rreq(0, 7, 1, 5, None, 1), 4);
    assert_eq!(out.kinds(), ["timer"]);
    let (timer, at) = out.the_timer();
    assert!(matches!(timer, AodvTimer::Send(_)), "{timer:?}");
    assert!(at >= ms(0) && at < ms(10), "jitter within broadcast_jitter_ms = 10 ms: {at}");

    let out = i.timer(at, timer);
    assert_eq!(out.kinds(), ["rreq"]);
    assert_eq!(out.the_rreq(), (rreq(0, 7, 1, 5, None, 2), 3));
    assert!(i.timer(at, timer).is_empty(), "sent once");

    // The reverse route (6.5).
    let back = i.route(0).unwrap();
    assert_eq!((back.next_hop, back.hops, back.seq), (n(1), 2, SeqNumber(7)));

    // The same request heard from another neighbour: ignored.
    assert!(i.control(ms(20), 3, rreq(0, 7, 1, 5, None, 3), 2).is_empty());
    // A new request that arrives with TTL 1: not forwarded.
    assert!(i.control(ms(30), 1, rreq(0, 8, 2, 5, None, 1), 1).is_empty());
    assert_eq!(i.route(0).unwrap().seq, SeqNumber(8), "but its reverse route is learnt");
}

/// 6.5: the forwarded RREQ asks for the fresher of the RREQ's destination
/// sequence number and the one this node knows, and the node's own
/// entry is not changed by a larger number in the RREQ.
#[test]
fn a_forwarded_rreq_asks_for_the_fresher_destination_sequence_number() {
    let mut i = relay();
    // The route to 5 (sequence number 9) is lost with 10 (RERR from 3).
    i.control(ms(100), 3, rerr(&[(5, 10)], false), 1);
    assert_eq!(i.route(5).unwrap().seq, SeqNumber(10));

    let (timer, at) = i.control(ms(200), 1, rreq(0, 8, 2, 5, Some(6), 1), 10).the_timer();
    assert_eq!(i.timer(at, timer).the_rreq().0.dst_seq, SeqNumber(10));

    let (timer, at) = i.control(ms(300), 1, rreq(0, 9, 3, 5, Some(12), 1), 10).the_timer();
    assert_eq!(i.timer(at, timer).the_rreq().0.dst_seq, SeqNumber(12));
    assert_eq!(i.route(5).unwrap().seq, SeqNumber(10), "6.5: MUST NOT modify its maintained value");
}

/// 6.6.2: an intermediate node with an active route whose sequence number
/// is at least the one asked for answers (no 'D' flag): hop count = its
/// own to the destination, its sequence number, lifetime = what is left
/// of its route; the previous hop joins the forward route's precursors,
/// the next hop toward the destination the reverse route's. With 'D' it
/// forwards instead (6.5); so it does when its route leads back through
/// the RREQ's sender (module doc), or when its number is older than asked.
#[test]
fn an_intermediate_node_with_a_fresh_route_answers_unless_d_is_set() {
    let mut i = Node::new(2);
    // Route to 5: via 3, 2 hops, sequence number 9, until 6 s.
    assert!(i.control(ms(0), 3, rrep(5, 9, 1, 2, 6000), 35).is_empty());

    // Asked for 9, the number it knows: "greater than or equal" (6.6 (ii)).
    let out = i.control(ms(1000), 1, rreq(0, 7, 1, 5, Some(9), 1), 10);
    assert_eq!(out.kinds(), ["rrep"]);
    assert_eq!(out.the_rrep(), (rrep(5, 9, 2, 0, 5000), n(1)));
    assert_eq!(i.route(5).unwrap().precursors, [n(1)]);
    assert_eq!(i.route(0).unwrap().precursors, [n(3)]);

    // 'D': only the destination may answer.
    let mut q = rreq(0, 8, 2, 5, Some(8), 1);
    q.destination_only = true;
    let out = i.control(ms(1100), 1, q, 10);
    assert_eq!(out.kinds(), ["timer"], "forwarded after a jitter");
    assert!(matches!(out.the_timer().0, AodvTimer::Send(_)));

    // Asked for a newer number than 9: forwarded.
    let out = i.control(ms(1200), 1, rreq(0, 9, 3, 5, Some(10), 1), 10);
    assert_eq!(out.kinds(), ["timer"]);

    // From 3, the route's own next hop: not answered (AODV-UU's safeguard).
    let out = i.control(ms(1300), 3, rreq(7, 1, 1, 5, Some(8), 1), 10);
    assert_eq!(out.kinds(), ["timer"]);
}

/// 6.6.3: with 'G' the intermediate node that answers also sends the
/// destination a gratuitous RREP about the originator: hop count and
/// lifetime of its reverse route, the originator's sequence number.
#[test]
fn the_g_flag_adds_a_gratuitous_rrep_to_the_destination() {
    let mut i = Node::new(2);
    i.control(ms(0), 3, rrep(5, 9, 1, 2, 6000), 35);
    let mut q = rreq(0, 7, 1, 5, Some(8), 1);
    q.gratuitous = true;
    let out = i.control(ms(1000), 1, q, 10);
    assert_eq!(out.kinds(), ["rrep", "rrep"]);
    // The reverse route lives until 1 s + 5.6 s - 2 * 2 * 40 ms = 6.44 s.
    assert_eq!(out.rreps(), [(rrep(5, 9, 2, 0, 5000), n(1)), (rrep(0, 7, 2, 5, 5440), n(3))]);
}

// ---------------------------------------------------------------------------
// Processing a RREP (6.7)
// ---------------------------------------------------------------------------

/// 6.7: a node on the reverse path forwards the RREP to its next hop toward
/// the originator with hop count + 1 (the lifetime unchanged), adds that
/// next hop to the destination's precursors and the next hop toward the
/// destination to the originator's (ns-2, module doc), and the previous
/// hop's precursors get the next hop toward the source.
#[test]
fn a_relay_forwards_the_rrep_along_the_reverse_route() {
    let mut r = Node::new(2);
    let (timer, at) = r.control(ms(0), 1, rreq(0, 7, 1, 5, None, 1), 34).the_timer();
    r.timer(at, timer);

    let out = r.control(ms(50), 3, rrep(5, 9, 1, 0, 6000), 35);
    assert_eq!(out.kinds(), ["rrep"]);
    assert_eq!(out.the_rrep(), (rrep(5, 9, 2, 0, 6000), n(1)));
    let fwd = r.route(5).unwrap();
    assert_eq!((fwd.next_hop, fwd.hops, fwd.seq, fwd.lifetime), (n(3), 2, SeqNumber(9), ms(6050)));
    assert_eq!(fwd.precursors, [n(1)]);
    assert_eq!(r.route(0).unwrap().precursors, [n(3)]);
    assert_eq!(r.route(3).unwrap().precursors, [n(1)]);

    // A RREP with the same number and no shorter path is not news: not forwarded.
    assert!(r.control(ms(60), 4, rrep(5, 9, 1, 0, 6000), 35).rreps().is_empty());
    assert_eq!(r.route(5).unwrap().next_hop, n(3));
}

// ---------------------------------------------------------------------------
// Sequence numbers (6.1)
// ---------------------------------------------------------------------------

/// 6.1: fresher means a positive signed 32-bit difference, across the wrap:
/// 0 is fresher than 4294967295 (a longer route is taken), 4294967295 is
/// then stale (a shorter route is not), and 2147483648 ahead by 2^31 is
/// stale while 2147483647 is fresh.
#[test]
fn route_updates_compare_sequence_numbers_with_wrap_around() {
    let mut i = Node::new(2);
    i.control(ms(0), 3, rrep(5, u32::MAX, 1, 2, 6000), 35);
    assert_eq!(i.next_hop_at(ms(0), 5), Some(n(3)));

    i.control(ms(10), 4, rrep(5, 0, 5, 2, 6000), 35);
    let e = i.route(5).unwrap();
    assert_eq!((e.next_hop, e.hops, e.seq), (n(4), 6, SeqNumber(0)), "0 follows 4294967295");

    i.control(ms(20), 3, rrep(5, u32::MAX, 0, 2, 6000), 35);
    assert_eq!((i.route(5).unwrap().next_hop, i.route(5).unwrap().seq), (n(4), SeqNumber(0)), "stale: discarded");

    i.control(ms(30), 3, rrep(5, 2_147_483_648, 0, 2, 6000), 35);
    assert_eq!(i.route(5).unwrap().seq, SeqNumber(0), "2^31 ahead is negative in signed 32-bit arithmetic");

    i.control(ms(40), 3, rrep(5, 2_147_483_647, 0, 2, 6000), 35);
    let e = i.route(5).unwrap();
    assert_eq!((e.next_hop, e.hops, e.seq), (n(3), 1, SeqNumber(2_147_483_647)));
}

/// 6.1, 6.6.1: the destination's own number follows a fresher one asked
/// for across the wrap, and its next discovery's RREQ wraps to 0.
#[test]
fn the_own_sequence_number_wraps() {
    let mut d = Node::new(5);
    // 4294967295 is one behind 0: older, the number stays 0.
    let out = d.control(ms(0), 1, rreq(0, 7, 1, 5, Some(u32::MAX), 1), 10);
    assert_eq!(out.the_rrep().0.dst_seq, SeqNumber(0));
    for (id, asked) in [(2, 2_147_483_647), (3, 4_294_967_294), (4, u32::MAX)] {
        let out = d.control(ms(10 * id as u64), 1, rreq(0, 7 + id, id, 5, Some(asked), 1), 10);
        assert_eq!(out.the_rrep().0.dst_seq, SeqNumber(asked));
    }
    let out = d.originate(ms(100), data(1, 5, 9));
    assert_eq!(out.the_rreq().0.orig_seq, SeqNumber(0), "4294967295 + 1 = 0");
}
