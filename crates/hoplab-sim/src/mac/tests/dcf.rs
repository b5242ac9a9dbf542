//! The DCF: sender and receiver sides, NAV, EIFS, backoff, retries (IEEE 802.11-2016 10.3).

use super::*;

// ---------------------------------------------------------------------------
// Sender side

#[test]
fn sender_four_way_handshake() {
    let mut n = Station::new();
    let (p1, p2) = (packet(1), packet(2));
    // The medium is busy until 248 us (an ACK for another station; its
    // zero Duration still arms the NAV's end, at once).
    n.receive(us(0), ack(C, D));
    n.expect(&[Arm(NavEnd, us(248)), heard(C)]);
    n.fire(us(248), NavEnd);
    n.expect(&[]);

    // 10.3.4.2: a packet finding the medium idle, with no backoff pending,
    // goes out at the first slot boundary after DIFS: 248 + 50 us.
    n.enqueue(us(260), p1, B);
    n.expect(&[started(&p1), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(298))]);
    n.enqueue(us(270), p2, B);
    n.expect(&[]);
    n.fire(us(298), Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);

    // The CTS timeout runs from the RTS's end (298 + 272 us).
    n.tx_end(us(570));
    n.expect(&[Arm(ResponseTimeout, ns(830_668))]);

    // The CTS cancels it; the DATA follows SIFS after the CTS's end (828 us).
    n.receive(us(580), cts(B, A, CTS_NAV));
    n.expect(&[Cancel(ResponseTimeout), Arm(SendResponse, us(838)), heard(B)]);
    n.fire(us(838), SendResponse);
    n.expect(&[Tx(data(A, B, 0, p1))]);
    n.tx_end(us(3302));
    n.expect(&[Arm(ResponseTimeout, ns(3_562_668))]);

    // The ACK ends the service: 3560 - 260 us in service, one attempt of
    // each. Then post-backoff (10.3.4.3), the next packet enters service,
    // and once the medium is re-read the countdown starts DIFS after the
    // ACK's end.
    n.receive(us(3312), ack(B, A));
    let k = n.backoff();
    assert!(k <= 31, "post-backoff drawn from [0, CW_min]: {k}");
    let done = TxDone {
        packet: p1.info(),
        next_hop: B,
        acknowledged: true,
        service_time: SimDuration::from_nanos(3_300_000),
        rts_attempts: 1,
        data_attempts: 1,
    };
    n.expect(&[
        Cancel(ResponseTimeout),
        heard(B),
        Up(MacIndication::TxDone(done)),
        Resumed(Resume::AfterServiceEnd { after_timeout: false }),
        started(&p2),
        Resumed(Resume::AfterServiceStart(ServiceTail::ServiceEnded { after_timeout: false })),
        Resumed(Resume::MediumCheck),
        Arm(Access, us(3610) + SLOT * k),
    ]);
    assert_eq!(n.mac.stats.frames_sent, [1, 0, 1, 0], "RTS, CTS, DATA, ACK sent");
    assert_eq!(n.mac.cw, 31);

    // The second packet carries the next sequence number.
    n.fire(us(3610) + SLOT * k, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
    assert_eq!(n.mac.op.map(|op| op.sequence), Some(1));
}

#[test]
fn immediate_access_after_a_long_idle_medium() {
    // The medium has been idle since the start: no DIFS to wait.
    let mut n = Station::new();
    let p = packet(1);
    n.enqueue(us(1_000), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(1_000))]);
    assert_eq!(n.mac.backoff_slots, Some(0));
}

// ---------------------------------------------------------------------------
// Receiver side

#[test]
fn receiver_answers_rts_with_cts_and_data_with_ack() {
    let mut n = Station::new();
    let (p, q) = (packet(7), packet(8));
    // 10.3.2.6: CTS SIFS after the RTS's end; its Duration is the RTS's
    // minus SIFS and the CTS's own airtime (2990 - 10 - 248 us).
    n.receive(us(0), rts(B, A, RTS_NAV));
    n.expect(&[Arm(SendResponse, us(282)), heard(B)]);
    n.fire(us(282), SendResponse);
    n.expect(&[Tx(cts(A, B, CTS_NAV))]);
    n.tx_end(us(530));
    n.expect(&[]);

    // 10.3.2.9: ACK SIFS after the DATA; the packet goes up, and the MAC
    // re-reads the medium once the layers above are done with it.
    n.receive(us(540), data(B, A, 0, p));
    n.expect(&[Arm(SendResponse, us(3014)), heard(B), Up(MacIndication::Delivered { from: B }), Resumed(Resume::MediumCheck)]);
    assert_eq!(n.delivered, vec![(B, p)]);
    n.fire(us(3014), SendResponse);
    n.expect(&[Tx(ack(A, B))]);
    n.tx_end(us(3262));

    // The ACK was lost at B, which retransmits (retry bit, same sequence
    // number): acknowledged again, not delivered twice (10.3.2.14).
    n.receive(us(3600), Frame { retry: true, ..data(B, A, 0, p) });
    n.expect(&[Arm(SendResponse, us(6074)), heard(B)]);
    n.fire(us(6074), SendResponse);
    n.expect(&[Tx(ack(A, B))]);
    n.tx_end(us(6322));
    assert_eq!(n.delivered.len(), 1);

    // The next sequence number is a new packet.
    n.receive(us(7000), data(B, A, 1, q));
    n.expect(&[Arm(SendResponse, us(9474)), heard(B), Up(MacIndication::Delivered { from: B }), Resumed(Resume::MediumCheck)]);
    assert_eq!(n.delivered, vec![(B, p), (B, q)]);
    n.fire(us(9474), SendResponse);
    n.expect(&[Tx(ack(A, B))]);
    assert_eq!(n.mac.stats.frames_sent, [0, 1, 0, 3]);
}

// ---------------------------------------------------------------------------
// Virtual carrier sense (10.3.2.4)

#[test]
fn overheard_rts_sets_the_nav_which_only_grows() {
    let mut n = Station::new();
    // An RTS from B to C: NAV until its end + 2990 us.
    n.receive(us(0), rts(B, C, RTS_NAV));
    n.expect(&[Arm(NavEnd, us(3262)), heard(B)]);
    // A frame reserving less does not shorten it.
    n.receive(us(400), ack(C, D));
    n.expect(&[heard(C)]);
    assert_eq!(n.mac.nav_until, us(3262));
    // A packet arriving meanwhile finds the medium busy: it draws a backoff
    // and contends only DIFS after the NAV's end.
    let p = packet(1);
    n.enqueue(us(1_000), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued))]);
    let k = n.backoff();
    n.fire(us(3262), NavEnd);
    n.expect(&[Arm(Access, us(3312) + SLOT * k)]);
}

#[test]
fn overheard_cts_sets_the_nav_and_no_cts_is_sent_while_it_runs() {
    let mut n = Station::new();
    // C answers an RTS A did not hear: NAV until the CTS's end + 2732 us.
    n.receive(us(0), cts(C, B, CTS_NAV));
    n.expect(&[Arm(NavEnd, us(2980)), heard(C)]);
    // 10.3.2.6: an RTS for A while the NAV runs gets no CTS.
    n.receive(us(400), rts(D, A, RTS_NAV));
    n.expect(&[heard(D)]);
    assert_eq!(n.mac.pending_response, None);
    n.fire(us(2980), NavEnd);
    n.expect(&[]);
    // Once the NAV has ended, the same RTS is answered.
    n.receive(us(3000), rts(D, A, RTS_NAV));
    n.expect(&[Arm(SendResponse, us(3282)), heard(D)]);
    n.fire(us(3282), SendResponse);
    n.expect(&[Tx(cts(A, D, CTS_NAV))]);
}

#[test]
fn cts_despite_the_nav_when_configured_as_ns2() {
    let mut timing = dsss(&RadioConfig::default());
    timing.cts_ignores_nav = true;
    let mut n = Station::with(timing, HopControlKind::Off, 1);
    n.receive(us(0), cts(C, B, CTS_NAV));
    n.expect(&[Arm(NavEnd, us(2980)), heard(C)]);
    n.receive(us(400), rts(D, A, RTS_NAV));
    n.expect(&[Arm(SendResponse, us(682)), heard(D)]);
}

// ---------------------------------------------------------------------------
// EIFS (10.3.2.3.7)

#[test]
fn eifs_after_a_frame_received_in_error() {
    let mut n = Station::new();
    // A frame only sensed (below the receive threshold) ends at 272 us:
    // nothing goes up and its Duration cannot be read (no NAV).
    n.frame_arrives(us(0), rts(C, D, RTS_NAV), false);
    n.rx_end(us(272));
    n.expect(&[]);
    // Access waits until its end + EIFS (308 us), not DIFS (50 us).
    let p = packet(1);
    n.enqueue(us(300), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(580))]);
    n.fire(us(580), Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
}

#[test]
fn a_correct_frame_ends_the_eifs() {
    let mut n = Station::new();
    n.frame_arrives(us(0), rts(C, D, RTS_NAV), false);
    n.rx_end(us(272));
    // A frame decoded before the EIFS is over: back to DIFS after its end.
    n.receive(us(300), ack(C, D));
    n.expect(&[Arm(NavEnd, us(548)), heard(C)]);
    n.fire(us(548), NavEnd);
    let p = packet(1);
    n.enqueue(us(560), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(598))]);
}

// ---------------------------------------------------------------------------
// Backoff (10.3.4.3)

#[test]
fn backoff_freezes_while_the_medium_is_busy() {
    let mut n = Station::new();
    let p = packet(1);
    // The packet arrives while a frame is being received: a backoff is drawn.
    n.frame_arrives(us(0), ack(C, D), true);
    n.enqueue(us(100), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued))]);
    let k = n.backoff();
    assert!(k >= 6, "this test needs a backoff of at least 6 slots; the seed drew {k}");

    // Countdown: slot boundaries at 298, 318, 338, ... us.
    n.rx_end(us(248));
    n.expect(&[Arm(NavEnd, us(248)), Arm(Access, us(298) + SLOT * k), heard(C)]);
    n.fire(us(248), NavEnd);

    // Busy at 345 us, after the boundaries 298, 318 and 338: three slots
    // were counted down, the access is cancelled.
    n.frame_arrives(us(345), ack(C, D), true);
    n.expect(&[Cancel(Access)]);
    assert_eq!(n.backoff(), k - 3);

    // Idle again from 593 us: the countdown goes on DIFS later with what
    // remains.
    n.rx_end(us(593));
    n.expect(&[Arm(NavEnd, us(593)), Arm(Access, us(643) + SLOT * (k - 3)), heard(C)]);
    n.fire(us(593), NavEnd);

    // Busy exactly on the boundary 663 us (the second): both boundaries
    // count (the slot before each was idle).
    n.frame_arrives(us(663), ack(C, D), true);
    n.expect(&[Cancel(Access)]);
    assert_eq!(n.backoff(), k - 5);
    n.rx_end(us(911));
    n.expect(&[Arm(NavEnd, us(911)), Arm(Access, us(961) + SLOT * (k - 5)), heard(C)]);
    n.fire(us(911), NavEnd);

    // Busy during DIFS, before the first boundary: nothing counted.
    n.frame_arrives(us(950), ack(C, D), true);
    n.expect(&[Cancel(Access)]);
    assert_eq!(n.backoff(), k - 5);
    n.rx_end(us(1198));
    n.expect(&[Arm(NavEnd, us(1198)), Arm(Access, us(1248) + SLOT * (k - 5)), heard(C)]);
    n.fire(us(1198), NavEnd);
    n.fire(us(1248) + SLOT * (k - 5), Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
}

/// What the world spares the MAC (`Mac::turns_medium_busy`: no step for a
/// reception or transmission starting) is exactly what `update_medium`
/// would have done: only a backoff counting down on an idle medium needs
/// the full step, to freeze.
#[test]
fn a_medium_turning_busy_needs_a_step_only_to_freeze_a_backoff() {
    use crate::phy::PhyIndication::{RxEnd, RxStart, TxStart};
    let mut quiet = Station::new();
    assert!(quiet.mac.turns_medium_busy(&RxStart, true));
    assert!(quiet.mac.medium().0, "marked busy, as update_medium marks it");

    let mut n = Station::new();
    let p = packet(1);
    n.frame_arrives(us(0), ack(C, D), true);
    n.enqueue(us(100), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued))]);
    let k = n.backoff();
    assert!(k >= 3, "this test needs a backoff of at least 3 slots; the seed drew {k}");
    n.rx_end(us(248));
    n.expect(&[Arm(NavEnd, us(248)), Arm(Access, us(298) + SLOT * k), heard(C)]);
    n.fire(us(248), NavEnd);
    // Counting down on an idle medium: a start must freeze it.
    assert!(!n.mac.turns_medium_busy(&RxStart, true));
    assert!(!n.mac.turns_medium_busy(&TxStart, true));
    n.frame_arrives(us(345), ack(C, D), true);
    n.expect(&[Cancel(Access)]);
    // Frozen, the medium busy: another start changes nothing.
    let before = (n.mac.medium(), n.mac.backoff_slots());
    assert!(n.mac.turns_medium_busy(&RxStart, true));
    assert_eq!((n.mac.medium(), n.mac.backoff_slots()), before);
    // Only a start, and only with the PHY busy.
    assert!(!n.mac.turns_medium_busy(&RxEnd { error: None }, true));
    let mut idle = Station::new();
    assert!(!idle.mac.turns_medium_busy(&RxStart, false));
    assert!(!idle.mac.medium().0);
}

#[test]
fn a_nav_end_needs_a_step_only_when_the_phy_is_idle() {
    // The NAV set by an overheard RTS ends while a sensed frame keeps the
    // PHY busy: the world skips the step, and the full step would indeed
    // change nothing.
    let mut n = Station::new();
    let p = packet(1);
    n.frame_arrives(us(0), rts(C, D, RTS_NAV), true);
    n.enqueue(us(100), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued))]);
    let nav_end = us(0) + RTS_AIR + RTS_NAV;
    n.rx_end(us(0) + RTS_AIR);
    n.expect(&[Arm(NavEnd, nav_end), heard(C)]);
    let sensed_at = us(0) + (RTS_AIR + RTS_NAV - SimDuration(10_000));
    n.frame_arrives(sensed_at, ack(D, C), false);
    n.expect(&[]);
    assert!(n.phy.is_busy());
    assert!(n.mac.nav_end_changes_nothing(n.phy.is_busy()));
    let before = (n.mac.medium(), n.mac.backoff_slots(), n.mac.cw());
    n.fire(nav_end, NavEnd);
    n.expect(&[]);
    assert_eq!((n.mac.medium(), n.mac.backoff_slots(), n.mac.cw()), before);
    // The sensed frame's end turns the medium idle (EIFS: it was not decoded).
    let end = sensed_at + ACK_AIR;
    n.rx_end(end);
    assert!(!n.mac.medium().0);
    assert!(n.armed(Access).is_some());

    // The same NAV ending on an idle PHY: a step is needed, and it turns
    // the medium idle and starts the access.
    let mut m = Station::new();
    m.frame_arrives(us(0), rts(C, D, RTS_NAV), true);
    m.enqueue(us(100), p, B);
    m.rx_end(us(0) + RTS_AIR);
    m.take();
    assert!(!m.phy.is_busy());
    assert!(!m.mac.nav_end_changes_nothing(m.phy.is_busy()));
    let k = m.backoff();
    m.fire(nav_end, NavEnd);
    m.expect(&[Arm(Access, nav_end + DIFS + SLOT * k)]);
    assert!(!m.mac.medium().0);
}

// ---------------------------------------------------------------------------
// Retries (10.3.4.4)

#[test]
fn seven_unanswered_rts_reach_the_retry_limit() {
    let mut n = Station::new();
    let p = packet(1);
    n.enqueue(us(1_000), p, B);
    n.expect(&[started(&p), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(1_000))]);

    // CW after each failure: doubled up to CW_max.
    let windows: [u32; 6] = [63, 127, 255, 511, 1023, 1023];
    let mut at = us(1_000);
    for attempt in 1..=6 {
        n.fire(at, Access);
        n.expect(&[Tx(rts(A, B, RTS_NAV))]);
        n.tx_end(at + RTS_AIR);
        n.expect(&[Arm(ResponseTimeout, at + RTS_AIR + RESPONSE_TIMEOUT)]);
        let timeout = at + RTS_AIR + RESPONSE_TIMEOUT;
        n.fire(timeout, ResponseTimeout);
        assert_eq!(n.mac.cw, windows[attempt - 1], "CW after failure {attempt}");
        assert_eq!(n.mac.op.unwrap().short_retries, attempt as u32);
        let k = n.backoff();
        assert!(k <= windows[attempt - 1] as u64);
        // The timeout ends a busy period: DIFS, then the new backoff.
        n.expect(&[Arm(Access, timeout + DIFS + SLOT * k)]);
        at = timeout + DIFS + SLOT * k;
    }

    // The seventh: routing hears of the failure first, then the service
    // ends unacknowledged, CW is reset and a post-backoff drawn.
    n.fire(at, Access);
    n.expect(&[Tx(rts(A, B, RTS_NAV))]);
    n.tx_end(at + RTS_AIR);
    let timeout = at + RTS_AIR + RESPONSE_TIMEOUT;
    n.expect(&[Arm(ResponseTimeout, timeout)]);
    n.fire(timeout, ResponseTimeout);
    let k = n.backoff();
    let log = n.take();
    let failed =
        MacIndication::RetryLimit { packet: PacketRef(0), next_hop: B, sequence: 0, data_attempts: 0, last_loss: AttemptLoss::NoResponse };
    let done = TxDone {
        packet: p.info(),
        next_hop: B,
        acknowledged: false,
        service_time: timeout.since(us(1_000)),
        rts_attempts: 7,
        data_attempts: 0,
    };
    assert_eq!(
        log[..4],
        [
            Up(failed),
            Resumed(Resume::AfterRetryLimit),
            Up(MacIndication::TxDone(done)),
            Resumed(Resume::AfterServiceEnd { after_timeout: true })
        ]
    );
    // The queue is empty: the MAC says so (ns-2's pull), then contends.
    assert_eq!(log[4..].iter().filter(|d| **d == Up(MacIndication::QueueDrained)).count(), 1, "{log:?}");
    assert!(log[4..].iter().all(|d| matches!(d, Arm(Access, _) | Up(MacIndication::QueueDrained))), "{log:?}");
    assert_eq!(n.carried, vec![p]);
    assert_eq!(n.mac.cw, 31);
    assert!(n.mac.op.is_none());
    assert_eq!((n.mac.stats.rts_dropped, n.mac.stats.link_failures), (1, 1));
    // The post-backoff runs from DIFS after the timeout; it sends nothing.
    assert_eq!(n.armed(Access), Some(timeout + DIFS + SLOT * k));
    n.fire(timeout + DIFS + SLOT * k, Access);
    n.expect(&[]);
    assert_eq!(n.mac.backoff_slots, None);
}

#[test]
fn unacknowledged_data_is_retried_after_a_new_rts_with_the_retry_bit() {
    let mut n = Station::new();
    let p = packet(1);
    n.enqueue(us(1_000), p, B);
    n.fire(us(1_000), Access);
    n.tx_end(us(1_272));
    n.receive(us(1_282), cts(B, A, CTS_NAV));
    n.fire(us(1_540), SendResponse);
    n.tx_end(us(4_004));
    n.expect(&[
        started(&p),
        Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)),
        Arm(Access, us(1_000)),
        Tx(rts(A, B, RTS_NAV)),
        Arm(ResponseTimeout, ns(1_532_668)),
        Cancel(ResponseTimeout),
        Arm(SendResponse, us(1_540)),
        heard(B),
        Tx(data(A, B, 0, p)),
        Arm(ResponseTimeout, ns(4_264_668)),
    ]);

    // No ACK: the long retry count goes up (the CTS reset the short one)
    // and CW doubles.
    n.fire(ns(4_264_668), ResponseTimeout);
    let k = n.backoff();
    n.expect(&[Arm(Access, ns(4_314_668) + SLOT * k)]);
    let op = n.mac.op.unwrap();
    assert_eq!((op.short_retries, op.long_retries, n.mac.cw), (0, 1, 63));

    // The retry starts over with an RTS; the DATA carries the retry bit
    // and the same sequence number.
    let at = ns(4_314_668) + SLOT * k;
    n.fire(at, Access);
    n.tx_end(at + RTS_AIR);
    n.receive(at + RTS_AIR + SIFS, cts(B, A, CTS_NAV));
    n.fire(at + RTS_AIR + SIFS + CTS_AIR + SIFS, SendResponse);
    let log = n.take();
    assert_eq!(log.first(), Some(&Tx(rts(A, B, RTS_NAV))));
    assert_eq!(log.last(), Some(&Tx(Frame { retry: true, ..data(A, B, 0, p) })));
    let op = n.mac.op.unwrap();
    assert_eq!((op.rts_attempts, op.data_attempts), (2, 2));
}

#[test]
fn a_packet_arriving_during_the_post_backoff_keeps_its_end() {
    let mut n = Station::new();
    let (p1, p2) = (packet(1), packet(2));
    n.enqueue(us(1_000), p1, BROADCAST);
    n.fire(us(1_000), Access);
    n.tx_end(us(3_464));
    // Post-backoff: k slots from DIFS after the broadcast's end.
    let k = n.backoff();
    assert!(k >= 4, "this test needs a post-backoff of at least 4 slots; the seed drew {k}");
    assert_eq!(n.armed(Access), Some(us(3_514) + SLOT * k));
    // 10.3.4.3: a packet arriving while it counts down (three boundaries
    // passed) is sent when it ends, not k slots after its arrival (which
    // once re-armed it at 3579 us + k slots, off the slot grid).
    n.enqueue(us(3_579), p2, B);
    assert_eq!(n.armed(Access), Some(us(3_514) + SLOT * k));
}

// ---------------------------------------------------------------------------
// Broadcast (10.3.2.2, 10.3.6)

#[test]
fn broadcast_data_goes_alone_at_the_basic_rate() {
    // Unicast at 11 Mbps, broadcast at the 2 Mbps basic rate.
    let radio = RadioConfig { data_rate_mbps: 11.0, ..RadioConfig::default() };
    let mut n = Station::with(dsss(&radio), HopControlKind::Off, 1);
    let (p1, p2) = (packet(1), packet(2));
    n.enqueue(us(1_000), p1, BROADCAST);
    n.expect(&[started(&p1), Resumed(Resume::AfterServiceStart(ServiceTail::Enqueued)), Arm(Access, us(1_000))]);
    n.enqueue(us(1_000), p2, B);
    n.fire(us(1_000), Access);
    // No RTS, no Duration (no response), 192 + 4544 / 2 us.
    let broadcast = Frame { duration: SimDuration::ZERO, airtime: SimDuration(2_464_000), ..data(A, BROADCAST, 0, p1) };
    n.expect(&[Tx(broadcast)]);

    // Its end ends its service (no ACK awaited, no TxDone): post-backoff,
    // then the next packet.
    n.tx_end(us(3_464));
    let k = n.backoff();
    n.expect(&[
        started(&p2),
        Resumed(Resume::AfterServiceStart(ServiceTail::ServiceEnded { after_timeout: false })),
        Resumed(Resume::MediumCheck),
        Arm(Access, us(3_514) + SLOT * k),
    ]);
    assert_eq!(n.mac.stats.packets_served, 0);

    // The unicast one is preceded by an RTS reserving its 11 Mbps DATA:
    // 30 + 248 + (192 + 4544 / 11) + 248 us.
    n.fire(us(3_514) + SLOT * k, Access);
    n.expect(&[Tx(rts(A, B, SimDuration(1_131_091)))]);
}
