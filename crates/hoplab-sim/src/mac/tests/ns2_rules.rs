//! The ns-2 variants of the DCF and of semi-TCP's hop-by-hop control, each
//! a key (`preset = "ns2"` sets them all): with the key on, the frames and
//! times ns-2.29 (GitHub musicinthedark/semitcp, `mac/mac-802_11.cc`)
//! gives; with it off, the standard's (or hoplab's own rule's).

use super::*;

// ---------------------------------------------------------------------------
// `mac.eifs_sets_nav` (mac-802_11.cc:1699-1723)

#[test]
fn eifs_sets_nav_defers_eifs_then_difs_and_a_correct_frame_does_not_end_it() {
    // Standard (10.3.2.3.7): a frame only sensed ends at 272 us; access
    // waits EIFS (308 us) instead of DIFS: the packet goes at 580 us.
    let mut n = Station::new();
    n.frame_arrives(us(0), rts(C, D, RTS_NAV), false);
    n.rx_end(us(272));
    n.expect(&[]);
    let p = packet(1);
    n.enqueue(us(300), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(580))]);

    // ns-2: the NAV is set to EIFS (until 580 us): the packet finds the
    // medium busy and draws a backoff, counted from DIFS after the NAV.
    let mut n = Station::with(dsss_with(|m| m.eifs_sets_nav = true), HopControlKind::Off, 1);
    n.frame_arrives(us(0), rts(C, D, RTS_NAV), false);
    n.rx_end(us(272));
    n.expect(&[Arm(NavEnd, us(580))]);
    n.enqueue(us(300), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued))]);
    let k = n.backoff();
    // A frame decoded meanwhile (ending at 558 us) does not shorten it.
    n.receive(us(310), ack(C, D));
    n.expect(&[heard(C)]);
    assert_eq!(n.mac.nav_until, us(580));
    n.fire(us(580), NavEnd);
    n.expect(&[Arm(Access, us(630) + SLOT * k)]);
}

/// ns-2's EIFS NAV after a sensed RTS is set on an idle PHY, so its end
/// gets a queue entry at once. The CTS that follows SIFS later extends the
/// NAV while that entry is queued: the extension takes no entry of its own
/// but waits for it; when it pops, the extension is queued if the PHY is
/// idle then, and otherwise at the PHY's next idle moment (`set_nav`).
#[test]
fn a_nav_extension_waits_for_the_entry_already_queued() {
    let ns2 = || Station::with(dsss_with(|m| m.eifs_sets_nav = true), HopControlKind::Off, 1);
    let sensed_rts = |n: &mut Station| {
        n.frame_arrives(us(0), rts(C, D, RTS_NAV), false);
        n.rx_end(us(272));
        n.expect(&[Arm(NavEnd, us(580))]);
        assert_eq!(std::mem::take(&mut n.timers.queued), [NavEnd], "the PHY is idle: queued at once");
        // The CTS answering it (decoded, for C) ends at 530 us: NAV to 3262 us.
        n.receive(us(282), cts(D, C, CTS_NAV));
        n.expect(&[Arm(NavEnd, us(530) + CTS_NAV), heard(D)]);
        assert_eq!(n.timers.queued, [], "the entry for 580 us pops first");
    };

    // The DATA (sensed) starts at 540 us: the entry for 580 us pops on a
    // busy PHY and queues nothing; the DATA's end (in error) extends the
    // NAV to its end + EIFS, queued then.
    let mut n = ns2();
    sensed_rts(&mut n);
    n.frame_arrives(us(540), data(C, D, 0, packet(1)), false);
    n.nav_entry_pops(us(580));
    assert_eq!(n.timers.queued, []);
    let data_end = us(540) + DATA_AIR;
    n.rx_end(data_end);
    n.expect(&[Arm(NavEnd, data_end + SimDuration(308_000))]);
    assert_eq!(n.timers.queued, [NavEnd]);

    // No DATA: the entry for 580 us pops on an idle PHY and queues the
    // extension's, whose end turns the medium idle.
    let mut n = ns2();
    sensed_rts(&mut n);
    n.nav_entry_pops(us(580));
    assert_eq!(n.timers.queued, [NavEnd]);
    assert!(n.mac.medium().0);
    n.nav_entry_pops(us(530) + CTS_NAV);
    n.fire(us(530) + CTS_NAV, NavEnd);
    assert!(!n.mac.medium().0);
}

// ---------------------------------------------------------------------------
// `mac.cts_check_at_sifs` (mac-802_11.cc:883-896, 1816-1842)

/// The NAV (set by an overheard CTS ending at 248 us) runs until 575 us,
/// while an RTS for A ends at 572 us.
fn rts_for_a_as_the_nav_ends(timing: MacTiming) -> Station {
    let mut n = Station::with(timing, HopControlKind::Off, 1);
    n.receive(us(0), cts(C, B, SimDuration(327_000)));
    n.expect(&[Arm(NavEnd, us(575)), heard(C)]);
    n.frame_arrives(us(300), rts(D, A, RTS_NAV), true);
    n
}

#[test]
fn cts_check_at_sifs_answers_an_rts_whose_nav_ended_during_sifs() {
    // Standard (10.3.2.6): the NAV is set when the RTS ends: no CTS.
    let mut n = rts_for_a_as_the_nav_ends(dsss(&RadioConfig::default()));
    n.rx_end(us(572));
    n.expect(&[heard(D)]);
    n.fire(us(575), NavEnd);
    n.expect(&[]);
    assert_eq!(n.mac.stats.frames_sent, [0; 4]);

    // ns-2: recvRTS ignores the NAV; SIFS later (582 us) it has expired
    // and the medium is idle: the CTS goes.
    let mut n = rts_for_a_as_the_nav_ends(dsss_with(|m| m.cts_check_at_sifs = true));
    n.rx_end(us(572));
    n.expect(&[Arm(SendResponse, us(582)), heard(D)]);
    n.fire(us(575), NavEnd);
    n.expect(&[]);
    n.fire(us(582), SendResponse);
    n.expect(&[Tx(cts(A, D, CTS_NAV))]);
}

/// A's packet has a backoff of k slots pending; an RTS from D for A
/// arrives during DIFS (260 to 532 us), and a frame A only senses starts
/// 3 us after it ended, before SIFS is over (535 to 807 us).
fn rts_then_busy_during_sifs(timing: MacTiming) -> (Station, u64) {
    let mut n = Station::with(timing, HopControlKind::Off, 1);
    let p = packet(1);
    n.frame_arrives(us(0), ack(C, D), true);
    n.enqueue(us(100), p, B);
    let k = n.backoff();
    n.rx_end(us(248));
    n.fire(us(248), NavEnd);
    n.expect(&[
        started(&p),
        Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)),
        Arm(NavEnd, us(248)),
        Arm(Access, us(298) + SLOT * k),
        heard(C),
    ]);
    n.frame_arrives(us(260), rts(D, A, RTS_NAV), true);
    n.expect(&[Cancel(Access)]);
    n.rx_end(us(532));
    n.expect(&[Arm(SendResponse, us(542)), heard(D)]);
    n.frame_arrives(us(535), rts(C, B, RTS_NAV), false);
    (n, k)
}

#[test]
fn cts_check_at_sifs_suppresses_the_cts_when_the_medium_turned_busy() {
    // Standard: the CTS goes SIFS after the RTS whatever the medium (the
    // frame arriving meanwhile is lost to half duplex).
    let (mut n, _) = rts_then_busy_during_sifs(dsss(&RadioConfig::default()));
    n.fire(us(542), SendResponse);
    n.expect(&[Tx(cts(A, D, CTS_NAV))]);

    // ns-2: the medium is busy SIFS after the RTS: no CTS; the backoff goes
    // on (nothing was counted: the RTS came during DIFS), EIFS after the
    // sensed frame.
    let (mut n, k) = rts_then_busy_during_sifs(dsss_with(|m| m.cts_check_at_sifs = true));
    n.fire(us(542), SendResponse);
    n.expect(&[]);
    n.rx_end(us(807));
    n.expect(&[Arm(Access, us(1_115) + SLOT * k)]);
    n.fire(us(1_115) + SLOT * k, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
    assert_eq!(n.mac.stats.frames_sent, [1, 0, 0, 0]);
}

// ---------------------------------------------------------------------------
// `semitcp.mac.refusal_rtsc` (mac-802_11.cc:905-924)

/// A, congested, has a packet for C with a backoff of k slots pending (drawn
/// while an ACK was on the air, 0 to 248 us); B's RTS for A arrives during
/// DIFS (260 to 532 us), and A refuses it.
fn congested_a_refuses_b(refusal_rtsc: bool) -> (Station, u64) {
    let mut n = Station::semitcp_with(|r| r.refusal_rtsc = refusal_rtsc);
    n.mac.hop.update(us(0), 2);
    let p = packet(1);
    n.frame_arrives(us(0), ack(D, FAR), true);
    n.enqueue(us(100), p, C);
    let k = n.backoff();
    assert!(k >= 1, "this test needs a backoff of at least 1 slot; the seed drew {k}");
    n.rx_end(us(248));
    n.fire(us(248), NavEnd);
    n.take();
    n.frame_arrives(us(260), rts(B, A, RTS_NAV), true);
    n.expect(&[Cancel(Access)]);
    (n, k)
}

#[test]
fn refusal_rtsc_sends_the_refusers_rtsc_sifs_after_the_refused_rts() {
    // hoplab: the refusal is silence; A's RTSC waits for its backoff.
    let (mut n, k) = congested_a_refuses_b(false);
    n.rx_end(us(532));
    n.expect(&[Arm(Access, us(582) + SLOT * k), heard(B)]);
    n.fire(us(582) + SLOT * k, Access);
    n.expect(&[Tx(Frame { congestion_mark: true, ..rts(A, C, RTS_NAV) })]);

    // ns-2: SIFS after the refused RTS, A sends its RTSC to C, its backoff
    // dropped.
    let (mut n, _) = congested_a_refuses_b(true);
    n.rx_end(us(532));
    n.expect(&[Arm(SendResponse, us(542)), heard(B)]);
    n.fire(us(542), SendResponse);
    n.expect(&[Tx(Frame { congestion_mark: true, ..rts(A, C, RTS_NAV) })]);
    assert_eq!(n.mac.backoff_slots, None);
    let s = n.semitcp_state();
    assert_eq!((s.rts_refused, s.rtsc_sent), (1, 1));
    assert_eq!(n.mac.op.map(|op| (op.rts_attempts, op.short_retries)), Some((1, 0)));
}

#[test]
fn refusal_rtsc_waits_for_an_idle_medium() {
    // A frame A senses starts during SIFS: no RTSC; A's backoff goes on
    // EIFS after it.
    let (mut n, k) = congested_a_refuses_b(true);
    n.rx_end(us(532));
    n.frame_arrives(us(535), rts(D, FAR, RTS_NAV), false);
    n.take();
    n.fire(us(542), SendResponse);
    n.expect(&[]);
    n.rx_end(us(807));
    n.expect(&[Arm(Access, us(1_115) + SLOT * k)]);
}

#[test]
fn refusal_rtsc_takes_back_a_parked_packet_with_one_more_short_retry() {
    for refusal_rtsc in [false, true] {
        // A, not congested, heard C's RTSC (0 to 272 us; NAV to 3262 us):
        // its RTS to C is parked when its backoff ends, until 6272 us.
        let mut n = Station::semitcp_with(|r| r.refusal_rtsc = refusal_rtsc);
        let p = packet(1);
        n.frame_arrives(us(0), Frame { congestion_mark: true, ..rts(C, D, RTS_NAV) }, true);
        n.enqueue(us(100), p, C);
        let k = n.backoff();
        n.rx_end(us(272));
        n.fire(us(3_262), NavEnd);
        n.fire(us(3_312) + SLOT * k, Access);
        assert_eq!(n.armed(HoldRelease), Some(us(6_272)));
        assert!(n.mac.hop.is_parked());
        n.take();
        // Now congested, A refuses B's RTS (4000 to 4272 us).
        n.mac.hop.update(us(4_000), 2);
        n.receive(us(4_000), rts(B, A, RTS_NAV));
        if !refusal_rtsc {
            // hoplab: the packet stays parked.
            n.expect(&[heard(B)]);
            assert!(n.mac.hop.is_parked());
            continue;
        }
        // ns-2: the parked packet is taken back and its RTSC goes SIFS
        // after the refused RTS, with one more short retry.
        n.expect(&[Arm(SendResponse, us(4_282)), heard(B)]);
        n.fire(us(4_282), SendResponse);
        n.expect(&[Cancel(HoldRelease), Tx(Frame { congestion_mark: true, ..rts(A, C, RTS_NAV) })]);
        assert!(!n.mac.hop.is_parked());
        assert_eq!(n.mac.op.map(|op| (op.rts_attempts, op.short_retries)), Some((1, 1)));
    }
}

// ---------------------------------------------------------------------------
// `semitcp.mac.ctsc_memory` (mac-802_11.h:64-93; mac-802_11.cc:808-839,
// 933-940, 1917-1918, 2112-2116, 2398-2400)

/// DATA wait after A's CTSC (ending at 790 us, Duration 2732 us): SIFS +
/// DATA (2464 us) + 2 x 834 ns + 1 us.
const CTSC_DATA_WAIT: SimDuration = SimDuration(2_476_668);

/// A, congested, has a packet for C (backoff k); C, congested too, sends A
/// an RTSC (260 to 532 us): A answers with a CTSC (542 to 790 us).
fn a_answers_c_with_a_ctsc(rules: impl FnOnce(&mut HopControlConfig)) -> (Station, u64) {
    let mut n = Station::semitcp_with(rules);
    n.mac.hop.update(us(0), 2);
    let p = packet(1);
    n.frame_arrives(us(0), ack(D, FAR), true);
    n.enqueue(us(100), p, C);
    let k = n.backoff();
    n.rx_end(us(248));
    n.fire(us(248), NavEnd);
    n.receive(us(260), Frame { congestion_mark: true, ..rts(C, A, RTS_NAV) });
    n.fire(us(542), SendResponse);
    n.expect(&[
        started(&p),
        Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)),
        Up(MacIndication::HeldChanged),
        Arm(NavEnd, us(248)),
        Arm(Access, us(298) + SLOT * k),
        heard(D),
        Cancel(Access),
        Arm(SendResponse, us(542)),
        heard(C),
        Tx(Frame { congestion_mark: true, ..cts(A, C, CTS_NAV) }),
    ]);
    n.tx_end(us(790));
    (n, k)
}

fn until_reciprocated(r: &mut HopControlConfig) {
    r.ctsc_memory = CtscMemory::UntilReciprocated;
}

#[test]
fn ctsc_memory_until_reciprocated_outlives_the_congestion_episode() {
    for memory in [CtscMemory::CongestionEpisode, CtscMemory::UntilReciprocated] {
        let (mut n, k) = a_answers_c_with_a_ctsc(|r| r.ctsc_memory = memory);
        if memory == CtscMemory::UntilReciprocated {
            // ns-2 waits for the DATA the CTSC asked for.
            n.expect(&[Arm(DataWait, us(790) + CTSC_DATA_WAIT), Arm(Access, us(840) + SLOT * k)]);
        } else {
            n.expect(&[Arm(Access, us(840) + SLOT * k)]);
        }
        // C's DATA comes (800 to 3264 us) and is acknowledged.
        let q = Packet { src: C, ..packet(5) };
        n.receive(us(800), data(C, A, 0, q));
        n.fire(us(3_274), SendResponse);
        n.tx_end(us(3_522));
        let log = n.take();
        assert_eq!(log.contains(&Cancel(DataWait)), memory == CtscMemory::UntilReciprocated, "{log:?}");
        assert!(log.contains(&Tx(ack(A, C))));
        // A's congestion ends and starts again; C sends another RTSC.
        n.mac.hop.update(us(3_524), 1);
        n.mac.hop.update(us(3_526), 2);
        n.receive(us(3_530), Frame { congestion_mark: true, ..rts(C, A, RTS_NAV) });
        let log = n.take();
        let s = (n.semitcp_state().ctsc_sent, n.semitcp_state().rts_refused);
        if memory == CtscMemory::UntilReciprocated {
            // ns-2: C has not reciprocated: refused.
            assert!(!log.contains(&Arm(SendResponse, us(3_812))), "{log:?}");
            assert_eq!(s, (1, 1));
        } else {
            // A new congestion episode: a CTSC again.
            assert!(log.contains(&Arm(SendResponse, us(3_812))), "{log:?}");
            assert_eq!(s, (2, 0));
        }
    }
}

#[test]
fn ctsc_memory_until_reciprocated_forgets_an_unused_ctsc_and_releases_the_packet_parked_toward_its_receiver() {
    let (mut n, k) = a_answers_c_with_a_ctsc(until_reciprocated);
    // A's RTS to C is parked (C announced its congestion) until 6532 us.
    n.fire(us(840) + SLOT * k, Access);
    assert!(n.mac.hop.is_parked());
    n.take();
    // C sends no DATA: A forgets the help and, congested, takes its packet
    // for C back at once (ns-2 send_timer, MAC_CTS).
    n.fire(us(790) + CTSC_DATA_WAIT, DataWait);
    let j = n.backoff();
    n.expect(&[Cancel(HoldRelease), Arm(Access, us(790) + CTSC_DATA_WAIT + SLOT * j)]);
    assert!(!n.mac.hop.is_parked());
    assert!(n.semitcp_state().ctsc_answered.is_empty());
}

#[test]
fn ctsc_memory_until_reciprocated_an_ack_to_a_helped_neighbour_releases_the_parked_packet() {
    for memory in [CtscMemory::CongestionEpisode, CtscMemory::UntilReciprocated] {
        // K = 2: one DATA frame from C does not end A's hold.
        let mut n = Station::semitcp_with(|r| {
            r.ctsc_memory = memory;
            r.release_data_frames = 2;
        });
        // A, congested, overhears C's RTSC (0 to 272 us): its RTS to C is
        // parked when its backoff ends, until 6272 us.
        n.mac.hop.update(us(0), 2);
        n.frame_arrives(us(0), Frame { congestion_mark: true, ..rts(C, D, RTS_NAV) }, true);
        n.enqueue(us(100), packet(1), C);
        let k = n.backoff();
        n.rx_end(us(272));
        n.fire(us(3_262), NavEnd);
        n.fire(us(3_312) + SLOT * k, Access);
        assert!(n.mac.hop.is_parked());
        // C's RTSC for A: A answers with a CTSC (4282 to 4530 us), and C's
        // DATA follows (4540 to 7004 us); the hold is renewed meanwhile.
        n.receive(us(4_000), Frame { congestion_mark: true, ..rts(C, A, RTS_NAV) });
        n.fire(us(4_282), SendResponse);
        n.tx_end(us(4_530));
        n.frame_arrives(us(4_540), data(C, A, 0, Packet { src: C, ..packet(5) }), true);
        n.fire(us(6_272), HoldRelease);
        n.rx_end(us(7_004));
        n.fire(us(7_014), SendResponse);
        let log = n.take();
        assert!(log.contains(&Tx(Frame { congestion_mark: true, ..cts(A, C, CTS_NAV) })), "{log:?}");
        assert!(log.contains(&Arm(HoldRelease, us(10_272))), "{log:?}");
        assert!(log.contains(&Tx(ack(A, C))), "{log:?}");
        n.tx_end(us(7_262));
        if memory == CtscMemory::CongestionEpisode {
            // hoplab: the hold goes on until 10272 us.
            n.expect(&[]);
            assert!(n.mac.hop.is_parked());
        } else {
            // ns-2: the ACK to the neighbour A helped releases it.
            let j = n.backoff();
            n.expect(&[Cancel(HoldRelease), Arm(Access, us(7_312) + SLOT * j)]);
            assert!(!n.mac.hop.is_parked());
        }
    }
}

// ---------------------------------------------------------------------------
// Parking (mac-802_11.cc: overHear 2230-2305, send 1525-1540, defer_rts
// 2340-2361, store_tx / restore_tx 2414-2486, check_pktRTS 1035-1043)

/// CTS timeout after the RTS's end when it covers a refusal RTSC: SIFS +
/// RTS (272 us) + 2 x 834 ns + 1 us.
const RTSC_TIMEOUT: SimDuration = SimDuration(284_668);

/// A sends its RTS to B at 1000 us (an idle MAC: immediate access); it
/// ends at 1272 us.
fn rts_to_b_at_1000(rules: impl FnOnce(&mut HopControlConfig)) -> Station {
    let mut n = Station::semitcp_with(rules);
    n.enqueue(us(1_000), packet(1), B);
    n.fire(us(1_000), Access);
    n.take();
    n
}

#[test]
fn cts_timeout_covers_rtsc_waits_an_rts_airtime() {
    // Standard: SIFS + CTS + propagation (10.3.2.9).
    let mut n = rts_to_b_at_1000(|_| {});
    n.tx_end(us(1_272));
    n.expect(&[Arm(ResponseTimeout, us(1_272) + RESPONSE_TIMEOUT)]);
    // ns-2: room for a refusal RTSC, whose end (1555 us here) the CTS
    // timeout (1532.668 us) would otherwise precede.
    let mut n = rts_to_b_at_1000(|r| r.cts_timeout_covers_rtsc = true);
    n.tx_end(us(1_272));
    n.expect(&[Arm(ResponseTimeout, us(1_272) + RTSC_TIMEOUT)]);
}

/// B refuses A's RTS with its own RTSC to C (1283 to 1555 us).
fn b_refuses_with_an_rtsc(n: &mut Station) {
    n.tx_end(us(1_272));
    n.take();
    n.receive(us(1_283), Frame { congestion_mark: true, ..rts(B, C, RTS_NAV) });
}

#[test]
fn park_on_refusal_parks_the_refused_packet_without_a_retry() {
    // ns-2: the RTSC from B while A waits for B's CTS is the refusal: A
    // stops waiting and parks its packet for 6 ms, no retry counted.
    let mut n = rts_to_b_at_1000(|r| {
        r.cts_timeout_covers_rtsc = true;
        r.park_on_refusal = true;
    });
    b_refuses_with_an_rtsc(&mut n);
    n.expect(&[Cancel(ResponseTimeout), Arm(HoldRelease, us(7_555)), Arm(NavEnd, us(4_545)), heard(B)]);
    assert!(n.mac.hop.is_parked());
    assert_eq!(n.mac.exchange, Exchange::Idle);
    assert_eq!(n.mac.op.map(|op| (op.rts_attempts, op.short_retries)), Some((1, 0)));
    assert_eq!(n.mac.cw, 31);
    // The hold ends 6 ms after the refusal (no DATA from B): a fresh
    // backoff from the unchanged window.
    n.fire(us(4_545), NavEnd);
    n.fire(us(7_555), HoldRelease);
    let k = n.backoff();
    n.expect(&[Cancel(HoldRelease), Arm(Access, us(7_555) + SLOT * k)]);

    // hoplab: the CTS timeout decides; B announced after the RTS, so the
    // attempt is excused (`excuse_refused_attempts`).
    let mut n = rts_to_b_at_1000(|r| r.cts_timeout_covers_rtsc = true);
    b_refuses_with_an_rtsc(&mut n);
    n.expect(&[Arm(NavEnd, us(4_545)), heard(B)]);
    n.fire(us(1_272) + RTSC_TIMEOUT, ResponseTimeout);
    assert!(!n.mac.hop.is_parked());
    assert_eq!(n.mac.op.map(|op| op.short_retries), Some(0));
    assert_eq!(n.semitcp_state().uncounted_attempts, 1);
}

#[test]
fn excuse_refused_attempts_off_counts_a_refused_rts() {
    // ns-2 never excuses a timeout: SRC 1, the window doubles.
    let mut n = rts_to_b_at_1000(|r| {
        r.cts_timeout_covers_rtsc = true;
        r.excuse_refused_attempts = false;
    });
    b_refuses_with_an_rtsc(&mut n);
    n.fire(us(1_272) + RTSC_TIMEOUT, ResponseTimeout);
    assert_eq!(n.mac.op.map(|op| op.short_retries), Some(1));
    assert_eq!(n.mac.cw, 63);
    assert_eq!(n.semitcp_state().uncounted_attempts, 0);
}

#[test]
fn defer_new_packets_only_parks_a_packet_as_it_enters_service() {
    // B's RTSC (to D) is heard at 272 us; A's packet for C (not B) arrives
    // at 1000 us, during the NAV.
    for new_only in [false, true] {
        let mut n = Station::semitcp_with(|r| r.defer_new_packets_only = new_only);
        n.receive(us(0), Frame { congestion_mark: true, ..rts(B, D, RTS_NAV) });
        n.take();
        let p = packet(1);
        n.enqueue(us(1_000), p, C);
        if new_only {
            // ns-2: parked at once, until 6 ms after the announcement.
            n.expect(&[
                started(&p),
                Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)),
                Arm(HoldRelease, us(6_272)),
                Up(MacIndication::HeldChanged),
            ]);
            assert!(n.mac.hop.is_parked());
            assert_eq!(n.mac.backoff_slots, None);
        } else {
            // hoplab: it contends, and is parked when its backoff ends.
            n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Up(MacIndication::HeldChanged)]);
            let k = n.backoff();
            n.fire(us(3_262), NavEnd);
            n.fire(us(3_312) + SLOT * k, Access);
            n.expect(&[Arm(Access, us(3_312) + SLOT * k), Arm(HoldRelease, us(6_272))]);
        }
    }
}

#[test]
fn defer_new_packets_only_leaves_a_retry_alone() {
    // A's RTS to B (1000 to 1272 us) is unanswered; D's RTSC (to FAR) is
    // heard meanwhile (1300 to 1572 us; NAV to 4562 us).
    for new_only in [false, true] {
        let mut n = rts_to_b_at_1000(|r| r.defer_new_packets_only = new_only);
        n.tx_end(us(1_272));
        n.frame_arrives(us(1_300), Frame { congestion_mark: true, ..rts(D, FAR, RTS_NAV) }, true);
        n.fire(us(1_272) + RESPONSE_TIMEOUT, ResponseTimeout);
        let k = n.backoff();
        n.rx_end(us(1_572));
        n.fire(us(4_562), NavEnd);
        n.take();
        n.fire(us(4_612) + SLOT * k, Access);
        if new_only {
            // ns-2: only a packet entering service is deferred.
            n.expect(&[Tx(rts(A, B, RTS_NAV))]);
        } else {
            // hoplab: every attempt, until 6 ms after the RTSC.
            n.expect(&[Arm(HoldRelease, us(7_572))]);
        }
    }
}

/// A, not congested, overhears an RTSC from B to D (0 to 272 us; NAV to
/// 3262 us), with a packet for B queued at 100 us (backoff k): parked when
/// the backoff ends, at 3312 us + k slots.
fn parked_behind_b(rules: impl FnOnce(&mut HopControlConfig)) -> (Station, u64) {
    let mut n = Station::semitcp_with(rules);
    n.frame_arrives(us(0), Frame { congestion_mark: true, ..rts(B, D, RTS_NAV) }, true);
    n.enqueue(us(100), packet(1), B);
    let k = n.backoff();
    n.rx_end(us(272));
    n.fire(us(3_262), NavEnd);
    n.fire(us(3_312) + SLOT * k, Access);
    assert!(n.mac.hop.is_parked());
    n.take();
    (n, k)
}

#[test]
fn release_on_any_data_counts_a_data_frame_from_anyone() {
    // C's DATA frame to D (a 100-byte packet: 4000 to 4704 us).
    let small = Packet { payload_bytes: 72, src: C, dst: D, ..packet(2) };
    let frame = Frame { airtime: SimDuration(704_000), ..data(C, D, 0, small) };
    // hoplab: only DATA from the announcer B releases A.
    let (mut n, _) = parked_behind_b(|_| {});
    n.receive(us(4_000), frame);
    n.expect(&[Arm(NavEnd, us(4_962)), heard(C)]);
    assert!(n.mac.hop.is_parked());
    // ns-2: any DATA frame counts.
    let (mut n, _) = parked_behind_b(|r| r.release_on_any_data = true);
    n.receive(us(4_000), frame);
    let k = n.backoff();
    n.expect(&[Cancel(HoldRelease), Arm(NavEnd, us(4_962)), heard(C)]);
    assert!(!n.mac.hop.is_parked());
    n.fire(us(4_962), NavEnd);
    n.expect(&[Arm(Access, us(5_012) + SLOT * k)]);
}

#[test]
fn routing_rts_announces_congestion_like_an_rtsc() {
    // B's RTS for a routing packet, unmarked (0 to 272 us); A's packet for
    // B queued at 100 us.
    for announces in [false, true] {
        let mut n = Station::semitcp_with(|r| r.routing_rts_announces = announces);
        n.frame_arrives(us(0), Frame { control_packet: true, ..rts(B, D, RTS_NAV) }, true);
        n.enqueue(us(100), packet(1), B);
        let k = n.backoff();
        n.rx_end(us(272));
        n.fire(us(3_262), NavEnd);
        n.take();
        n.fire(us(3_312) + SLOT * k, Access);
        if announces {
            n.expect(&[Arm(HoldRelease, us(6_272))]); // ns-2: a uRTS announces
        } else {
            n.expect(&[Tx(rts(A, B, RTS_NAV))]);
        }
    }
}

#[test]
fn a_congested_node_answers_a_routing_packets_rts_even_without_accept_final_hop() {
    // ns-2 refuse() answers every uRTS (mac-802_11.cc:2374).
    let mut n = Station::semitcp_with(|r| r.accept_final_hop = false);
    n.mac.hop.update(us(0), 2);
    n.receive(us(0), Frame { needs_no_buffer: true, ..rts(C, A, RTS_NAV) });
    n.expect(&[heard(C)]);
    n.receive(us(1_000), Frame { needs_no_buffer: true, control_packet: true, ..rts(C, A, RTS_NAV) });
    n.expect(&[Arm(SendResponse, us(1_282)), heard(C)]);
}

#[test]
fn hold_from_park_runs_the_hold_from_the_park_and_forgets_the_announcement() {
    // hoplab: the hold ends 6 ms after the announcement (6272 us); B's
    // newer RTSC (5000 to 5272 us) renews it at its end.
    let (mut n, _) = parked_behind_b(|_| {});
    assert_eq!(n.armed(HoldRelease), Some(us(6_272)));
    n.receive(us(5_000), Frame { congestion_mark: true, ..rts(B, D, RTS_NAV) });
    n.fire(us(6_272), HoldRelease);
    n.fire(us(8_262), NavEnd);
    n.take();
    assert!(n.mac.hop.is_parked());
    assert_eq!(n.armed(HoldRelease), Some(us(11_272)));

    // ns-2: 6 ms from the park, and then released whatever was heard since.
    let (mut n, k) = parked_behind_b(|r| r.hold_from_park = true);
    let parked_at = us(3_312) + SLOT * k;
    assert_eq!(n.armed(HoldRelease), Some(parked_at + SimDuration::from_millis_f64(6.0)));
    n.receive(us(5_000), Frame { congestion_mark: true, ..rts(B, D, RTS_NAV) });
    n.fire(us(8_262), NavEnd);
    n.fire(parked_at + SimDuration::from_millis_f64(6.0), HoldRelease);
    assert!(!n.mac.hop.is_parked());
    assert_eq!(n.semitcp_state().heard, None, "the release forgets the announcement");
}

// ---------------------------------------------------------------------------
// `semitcp.mac.count_all_queued` (mac-802_11.cc:2187-2196 congested(),
// 2364-2411 refuse())

/// A routing packet (say an AODV message) from A to C.
fn routing_packet(uid: u64) -> Packet {
    Packet { kind: PacketKind::Control, dst: C, ..packet(uid) }
}

/// An end-to-end TCP ACK (40 bytes) travelling back through A.
fn tcp_ack(uid: u64) -> Packet {
    use crate::wire::tcp::{SackBlocks, SegmentKind, TcpHeader};
    let header = TcpHeader {
        kind: SegmentKind::Ack,
        seq: 0,
        ack: 1,
        sent_at: SimTime::ZERO,
        echo: SimTime::ZERO,
        retransmission: false,
        loss_hint: None,
        sack: SackBlocks::default(),
    };
    Packet { payload_bytes: 0, header_bytes: 40, transport: TransportHeader::Tcp(header), ..packet(uid) }
}

#[test]
fn count_all_queued_counts_routing_packets_and_acks_waiting_in_the_queue() {
    for all in [false, true] {
        let mut n = Station::semitcp_with(|r| r.count_all_queued = all);
        // A data packet in service; a routing packet and an ACK queued.
        n.enqueue(us(0), packet(1), B);
        n.enqueue(us(0), routing_packet(2), C);
        n.enqueue(us(0), tcp_ack(3), B);
        assert_eq!(n.mac.queue.len(), 2);
        // hoplab: the data packet only (ACKs exempt, routing packets not
        // data); ns-2: every packet in the interface queue.
        assert_eq!(n.mac.held_data(), if all { 3 } else { 1 });
    }
}

#[test]
fn count_all_queued_a_node_with_no_packet_in_its_mac_answers_every_rts() {
    // A is congested by packets waiting for a route alone.
    for all in [false, true] {
        let mut n = Station::semitcp_with(|r| r.count_all_queued = all);
        n.mac.hop.update(us(0), 2);
        n.receive(us(0), rts(C, A, RTS_NAV));
        if all {
            n.expect(&[Arm(SendResponse, us(282)), heard(C)]); // ns-2
        } else {
            n.expect(&[heard(C)]);
        }
    }
}

#[test]
fn count_all_queued_only_a_data_packet_at_the_head_makes_a_ctsc() {
    // A, congested, serves a routing packet for C (backoff pending); C's
    // RTSC for A arrives.
    for all in [false, true] {
        let mut n = Station::semitcp_with(|r| r.count_all_queued = all);
        n.mac.hop.update(us(0), 2);
        n.frame_arrives(us(0), ack(D, FAR), true);
        n.enqueue(us(100), routing_packet(1), C);
        n.rx_end(us(248));
        n.fire(us(248), NavEnd);
        n.take();
        n.receive(us(260), Frame { congestion_mark: true, ..rts(C, A, RTS_NAV) });
        let s = (n.semitcp_state().ctsc_sent, n.semitcp_state().rts_refused);
        // hoplab: a CTSC; ns-2: refused (its head is no data packet).
        assert_eq!(s, if all { (0, 1) } else { (1, 0) });
    }
}

// ---------------------------------------------------------------------------
// `semitcp.mac.parked_lets_routing_out` (mac-802_11.cc:666-682 tx_resume,
// 2414-2486 store_tx / restore_tx)

#[test]
fn parked_lets_routing_out_serves_a_routing_packet_past_a_parked_one() {
    let r = Packet { dst: BROADCAST, ..routing_packet(7) };
    let broadcast = Frame { duration: SimDuration::ZERO, ..data(A, BROADCAST, 1, r) };

    // hoplab: the routing packet waits behind the parked one, which goes
    // first when the hold ends (6272 us).
    let (mut n, _) = parked_behind_b(|_| {});
    n.enqueue(us(4_000), r, BROADCAST);
    n.expect(&[Up(MacIndication::HeldChanged)]);
    n.fire(us(6_272), HoldRelease);
    let k = n.backoff();
    n.fire(us(6_272) + SLOT * k, Access);
    assert_eq!(n.take().last(), Some(&Tx(rts(A, B, RTS_NAV))));

    // ns-2: the parked packet waits aside; the routing packet is served at
    // once, and the parked one returns when its hold has ended and the
    // routing packet's service is over (6464 us).
    let (mut n, _) = parked_behind_b(|r| r.parked_lets_routing_out = true);
    assert!(n.mac.op.is_none() && n.mac.parked.is_some());
    n.enqueue(us(4_000), r, BROADCAST);
    n.expect(&[
        started(&r),
        Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)),
        Arm(Access, us(4_000)),
        Up(MacIndication::HeldChanged),
    ]);
    n.fire(us(4_000), Access);
    n.expect(&[Tx(broadcast)]);
    n.fire(us(6_272), HoldRelease);
    n.expect(&[Cancel(HoldRelease)]);
    assert!(n.mac.parked.is_some(), "back once the routing packet's service ends");
    n.tx_end(us(6_464));
    let k = n.backoff();
    n.expect(&[Arm(Access, us(6_514) + SLOT * k), Up(MacIndication::HeldChanged)]);
    assert_eq!(n.mac.op.map(|op| op.item.next_hop), Some(B));
    n.fire(us(6_514) + SLOT * k, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
}

// ---------------------------------------------------------------------------
// `mac.immediate_access` (mac-802_11.cc:1547-1563) and `mac.busy_doubles_cw`
// (1028-1031, 1080-1084)

#[test]
fn immediate_access_off_waits_difs_and_random_slots_from_the_arrival() {
    // Standard: the medium has been idle for longer than DIFS: at once.
    let mut n = Station::new();
    let p = packet(1);
    n.enqueue(us(1_000), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(1_000))]);
    // ns-2: DIFS from the arrival, then (random mod 31) slots.
    let mut n = Station::with(dsss_with(|m| m.immediate_access = false), HopControlKind::Off, 1);
    n.enqueue(us(1_000), p, B);
    let j = n.backoff();
    assert!(j < 31);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(1_050) + SLOT * j)]);
    n.fire(us(1_050) + SLOT * j, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
}

/// A packet arrives at an idle MAC at 1000 us (ns-2's wait: DIFS and j
/// slots); an ACK for others occupies the medium from 1020 to 3268 us
/// (long enough: the test asks for j <= 100).
fn busy_during_the_first_wait(busy_doubles_cw: bool) -> (Station, u64) {
    let timing = dsss_with(|m| {
        m.immediate_access = false;
        m.busy_doubles_cw = busy_doubles_cw;
    });
    let mut n = Station::with(timing, HopControlKind::Off, 1);
    n.enqueue(us(1_000), packet(1), B);
    let j = n.backoff();
    n.take();
    n.frame_arrives(us(1_020), Frame { airtime: SimDuration(2_248_000), ..ack(C, D) }, true);
    (n, j)
}

#[test]
fn busy_doubles_cw_a_wait_ending_on_a_busy_medium_doubles_the_window() {
    // Without: the wait is frozen (no slot counted yet) and resumes DIFS
    // after the busy period.
    let (mut n, j) = busy_during_the_first_wait(false);
    n.expect(&[Cancel(Access)]);
    n.rx_end(us(3_268));
    n.expect(&[Arm(NavEnd, us(3_268)), Arm(Access, us(3_318) + SLOT * j), heard(C)]);
    assert_eq!(n.mac.cw, 31);

    // ns-2: the defer runs on; it ends on a busy medium: CW 63 and a
    // backoff drawn from it, counted DIFS after the busy period.
    let (mut n, j) = busy_during_the_first_wait(true);
    n.expect(&[]);
    n.fire(us(1_050) + SLOT * j, Access);
    n.expect(&[]);
    assert_eq!(n.mac.cw, 63);
    let k = n.backoff();
    n.rx_end(us(3_268));
    n.expect(&[Arm(NavEnd, us(3_268)), Arm(Access, us(3_318) + SLOT * k), heard(C)]);
    n.fire(us(3_268), NavEnd);
    n.fire(us(3_318) + SLOT * k, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
    assert_eq!(n.mac.op.map(|op| op.short_retries), Some(0), "no failed attempt");
}
