//! Broadcast (10.3.2.2, 10.3.6) and semi-TCP's hop-by-hop control (docs/semitcp-2018.md).

use super::*;

// ---------------------------------------------------------------------------
// Semi-TCP's hop-by-hop control (docs/semitcp-2018.md)

#[test]
fn semitcp_congested_node_sends_rtsc() {
    let mut n = Station::semitcp();
    n.mac.hop.update(us(0), 2); // the world's count of the data A holds
    let p = packet(1);
    n.enqueue(us(1_000), p, B);
    n.expect(&[
        started(&p),
        Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)),
        Arm(Access, us(1_000)),
        Up(MacIndication::HeldChanged),
    ]);
    n.fire(us(1_000), Access);
    n.expect(&[Tx(Frame { congestion_mark: true, ..rts(A, B, RTS_NAV) })]);
    assert_eq!(n.semitcp_state().rtsc_sent, 1);

    // Unanswered; A is no longer congested when it retries: a plain RTS.
    n.tx_end(us(1_272));
    n.fire(ns(1_532_668), ResponseTimeout);
    let k = n.backoff();
    n.expect(&[Arm(ResponseTimeout, ns(1_532_668)), Arm(Access, ns(1_582_668) + SLOT * k)]);
    n.mac.hop.update(ns(1_532_668), 1);
    n.fire(ns(1_582_668) + SLOT * k, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
}

#[test]
fn semitcp_congested_node_refuses_rts_unless_the_packet_needs_no_buffer() {
    let mut n = Station::semitcp();
    n.mac.hop.update(us(0), 2);
    n.receive(us(0), rts(C, A, RTS_NAV));
    n.expect(&[heard(C)]);
    assert_eq!(n.mac.pending_response, None);
    assert_eq!(n.semitcp_state().rts_refused, 1);

    // A packet ending here (or a routing packet) is answered anyway.
    n.receive(us(1_000), Frame { needs_no_buffer: true, ..rts(C, A, RTS_NAV) });
    n.expect(&[Arm(SendResponse, us(1_282)), heard(C)]);
    n.fire(us(1_282), SendResponse);
    n.expect(&[Tx(cts(A, C, CTS_NAV))]);
    n.tx_end(us(1_530));

    // Not congested any more: a plain RTS gets its CTS.
    n.mac.hop.update(us(2_000), 1);
    n.receive(us(2_000), rts(C, A, RTS_NAV));
    n.expect(&[Arm(SendResponse, us(2_282)), heard(C)]);
}

#[test]
fn semitcp_mutual_blocking_answers_one_ctsc_per_episode() {
    let mut n = Station::semitcp();
    n.mac.hop.update(us(0), 2);
    // A's packet waits for C (a backoff drawn while the medium is busy).
    let p = packet(1);
    n.frame_arrives(us(0), ack(D, FAR), true);
    n.enqueue(us(100), p, C);
    let k = n.backoff();
    n.rx_end(us(248));
    n.fire(us(248), NavEnd);
    n.expect(&[
        started(&p),
        Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)),
        Up(MacIndication::HeldChanged),
        Arm(NavEnd, us(248)),
        Arm(Access, us(298) + SLOT * k),
        heard(D),
    ]);

    // C, congested too, sends A an RTSC (during DIFS: no slot counted):
    // A answers with a CTSC.
    n.receive(us(260), Frame { congestion_mark: true, ..rts(C, A, RTS_NAV) });
    n.expect(&[Cancel(Access), Arm(SendResponse, us(542)), heard(C)]);
    n.fire(us(542), SendResponse);
    n.expect(&[Tx(Frame { congestion_mark: true, ..cts(A, C, CTS_NAV) })]);
    n.tx_end(us(790));
    n.expect(&[Arm(Access, us(840) + SLOT * k)]);

    // A congested node defers its RTS to the neighbour that announced its
    // congestion: parked until 6 ms after the RTSC's end.
    n.fire(us(840) + SLOT * k, Access);
    n.expect(&[Arm(HoldRelease, us(6_532))]);

    // C's next RTSC in the same episode is refused.
    n.receive(us(5_000), Frame { congestion_mark: true, ..rts(C, A, RTS_NAV) });
    n.expect(&[heard(C)]);
    assert_eq!((n.semitcp_state().ctsc_sent, n.semitcp_state().rts_refused), (1, 1));
}

/// A, not congested, overhears an RTSC from its next hop B (to D); its RTS
/// to B is parked when its backoff ends, until 6 ms after the RTSC's end
/// (272 us).
fn parked_behind_an_rtsc_of_b() -> Station {
    let mut n = Station::semitcp();
    let p = packet(1);
    n.frame_arrives(us(0), Frame { congestion_mark: true, ..rts(B, D, RTS_NAV) }, true);
    n.enqueue(us(100), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Up(MacIndication::HeldChanged)]);
    let k = n.backoff();
    n.rx_end(us(272));
    n.expect(&[Arm(NavEnd, us(3_262)), heard(B)]);
    n.fire(us(3_262), NavEnd);
    n.expect(&[Arm(Access, us(3_312) + SLOT * k)]);
    n.fire(us(3_312) + SLOT * k, Access);
    n.expect(&[Arm(HoldRelease, us(6_272))]);
    assert!(n.mac.hop.is_parked());
    assert_eq!(n.mac.stats.frames_sent, [0; 4]);
    n
}

/// B's DATA frame to D (a 100-byte packet: 192 + 128 x 8 / 2 = 704 us,
/// 4000 to 4704 us) releases A, which sends its RTS after a fresh backoff,
/// before the hold's end. Returns when the RTS went out.
fn released_by_data_of_b(n: &mut Station) -> SimTime {
    let small = Packet { payload_bytes: 72, src: B, dst: D, ..packet(2) };
    n.receive(us(4_000), Frame { airtime: SimDuration(704_000), ..data(B, D, 0, small) });
    let k = n.backoff();
    n.expect(&[Cancel(HoldRelease), Arm(NavEnd, us(4_962)), heard(B)]);
    assert!(!n.mac.hop.is_parked());
    n.fire(us(4_962), NavEnd);
    let at = us(5_012) + SLOT * k;
    n.expect(&[Arm(Access, at)]);
    n.fire(at, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
    assert!(at < us(6_272));
    at
}

#[test]
fn semitcp_rtsc_from_next_hop_parks_the_rts_until_its_data_frame() {
    let mut n = parked_behind_an_rtsc_of_b();
    released_by_data_of_b(&mut n);
}

#[test]
fn semitcp_hold_ends_6_ms_after_the_rtsc() {
    let mut n = parked_behind_an_rtsc_of_b();
    // No DATA from B: released when the hold ends, with a fresh backoff
    // (the medium has been idle for longer than DIFS).
    n.fire(us(6_272), HoldRelease);
    let k = n.backoff();
    n.expect(&[Cancel(HoldRelease), Arm(Access, us(6_272) + SLOT * k)]);
    n.fire(us(6_272) + SLOT * k, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
}

#[test]
fn semitcp_unanswered_rts_to_a_congested_next_hop_does_not_count() {
    let mut n = parked_behind_an_rtsc_of_b();
    let sent = released_by_data_of_b(&mut n);
    // B announced its congestion less than a hold time before the RTS:
    // the timeout neither counts toward the retry limit nor doubles CW.
    n.tx_end(sent + RTS_AIR);
    let timeout = sent + RTS_AIR + RESPONSE_TIMEOUT;
    n.fire(timeout, ResponseTimeout);
    let k = n.backoff();
    n.expect(&[Arm(ResponseTimeout, timeout), Arm(Access, timeout + DIFS + SLOT * k)]);
    assert_eq!(n.mac.cw, 31);
    assert_eq!(n.mac.op.unwrap().short_retries, 0);
    assert_eq!(n.semitcp_state().uncounted_attempts, 1);
}

#[test]
fn semitcp_a_backoff_drawn_at_the_end_of_a_hold_survives_a_busy_medium() {
    let mut n = parked_behind_an_rtsc_of_b();
    n.fire(us(6_272), HoldRelease);
    let k = n.backoff();
    assert!(k >= 2, "this test needs a backoff of at least 2 slots; the seed drew {k}");
    assert_eq!(n.armed(Access), Some(us(6_272) + SLOT * k));
    // Busy 18 us after the draw, before the first slot of the new count
    // has passed: at most the slot of the current boundary may go. (The
    // MAC once counted the boundaries since 3312 us, DIFS after the NAV
    // that ended at 3262 us, 149 of them: the backoff dropped to 0 and the
    // node sent after DIFS with no backoff.)
    n.frame_arrives(us(6_290), ack(C, D), true);
    assert!(n.backoff() + 1 >= k, "{} slots left of {k}", n.backoff());
}
