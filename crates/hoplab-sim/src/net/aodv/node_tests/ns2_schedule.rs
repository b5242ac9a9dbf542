//! ns-2's RREQ schedule (`rreq_schedule = "ns2"`, `preset = "ns2"`;
//! ns-2.35 aodv/aodv.cc `sendRequest` 1063-1183, `rt_purge` 504-549 on its
//! 0.5 s tick 179-184). Expected times written out from ns-2's rules with
//! the ns2 preset's constants: NODE_TRAVERSAL_TIME (PerHopTime) 30 ms,
//! NETWORK_DIAMETER 30, TTL_START 5, TTL_INCREMENT 2, TTL_THRESHOLD 7,
//! RREQ_RETRIES 3, MAX_RREQ_TIMEOUT 10 s.

use super::*;
use crate::net::aodv::{Ns2Requests, RreqSchedule};

fn ns2_constants(schedule: RreqSchedule) -> AodvConfig {
    AodvConfig {
        rreq_schedule: schedule,
        node_traversal_time_ms: SimDuration::from_millis_f64(30.0),
        net_diameter: 30,
        ttl_start: 5,
        rreq_retries: 3,
        ..AodvConfig::default()
    }
}

impl Node {
    /// Fire `rt_purge`'s ticks from `from_ms` to `to_ms` (every 500 ms);
    /// returns the tick times at which a RREQ went out, with its IP TTL.
    fn ticks(&mut self, from_ms: u64, to_ms: u64) -> Vec<(u64, u8)> {
        let mut sent = Vec::new();
        for at in (from_ms..=to_ms).step_by(500) {
            let out = self.timer(ms(at), AodvTimer::PurgeTick);
            if !out.rreqs().is_empty() {
                assert_eq!(out.kinds(), ["rreq", "timer"], "at {at} ms");
                sent.push((at, out.the_rreq().1));
            } else {
                assert_eq!(out.kinds(), ["timer"], "at {at} ms: only the next tick");
            }
            assert_eq!(out.timers().last(), Some(&(AodvTimer::PurgeTick, ms(at + 500))), "at {at} ms");
        }
        sent
    }
}

/// aodv.cc:1112-1144, aodv_rtable.cc:47: a destination never routed to has
/// `rt_last_hop_count` = INFINITY2, so the first RREQ is network-wide (TTL
/// 30, `rt_req_cnt` 1) and waits 2 x 30 x 30 ms = 1.8 s. Retries go out on
/// the first tick after each wait: at 2.0 s (wait 3.6 s, to 5.6), 6.0 s
/// (5.4 s, to 11.4), 11.5 s (7.2 s, to 18.7). At the 19.0 s tick
/// `rt_req_cnt` = 4 > RREQ_RETRIES: the packet is dropped (`no_route`, its
/// source may send another) and no RREQ goes out for 10 s (1093-1101); a
/// packet in that time waits, and the first tick after the hold (29.0 s)
/// sends a network-wide RREQ. Off (RFC 3561 with the same constants): TTL
/// 5 first, the discovery timer at 0.1 + 2 x 30 ms x (5 + 2) = 0.52 s.
#[test]
fn ns2_discovery_is_network_wide_retries_on_the_purge_tick_and_holds_after_giving_up() {
    let mut rfc = Node::with(0, ns2_constants(RreqSchedule::Rfc));
    let out = rfc.originate(ms(100), data(1, 0, 5));
    assert_eq!(out.the_rreq().1, 5);
    assert_eq!(out.timers(), [(AodvTimer::Discovery(n(5)), ms(520))]);

    let mut s = Node::with(0, ns2_constants(RreqSchedule::Ns2));
    let out = s.originate(ms(100), data(1, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed", "timer", "rreq"]);
    assert_eq!(out.the_rreq().1, 30, "network-wide");
    assert_eq!(out.timers(), [(AodvTimer::PurgeTick, ms(500))], "no discovery timer: the tick retries");
    assert_eq!(s.routing.ns2_requests[&n(5)], Ns2Requests { timeout_at: Some(ms(1900)), count: 1, last_ttl: 30 });

    assert_eq!(s.ticks(500, 18_500), [(2000, 30), (6000, 30), (11_500, 30)]);
    assert_eq!(s.routing.ns2_requests[&n(5)], Ns2Requests { timeout_at: Some(ms(18_700)), count: 4, last_ttl: 30 });

    let out = s.timer(ms(19_000), AodvTimer::PurgeTick);
    assert_eq!(out.kinds(), ["drop", "buffer_changed", "refill"], "given up; nothing buffered, no next tick");
    assert_eq!(out.drops(), [(1, DropCause::NoRoute)]);
    assert_eq!((s.routing.stats.requests_originated, s.routing.stats.discoveries_failed), (4, 1));
    assert_eq!(s.routing.ns2_requests[&n(5)], Ns2Requests { timeout_at: Some(ms(29_000)), count: 0, last_ttl: 30 });

    // The source's next packet waits out the hold.
    let out = s.originate(ms(19_000), data(2, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed", "timer"]);
    assert_eq!(s.ticks(19_500, 28_500), []);
    let out = s.timer(ms(29_000), AodvTimer::PurgeTick);
    assert_eq!(out.the_rreq().1, 30);
    assert_eq!(s.routing.ns2_requests[&n(5)].timeout_at, Some(ms(30_800)));
    assert_eq!(s.buffered(), [2]);
}

/// aodv.cc:466 (`rt_resolve`): each packet the node originates calls
/// `sendRequest`, so a packet after the wait sends the retry at once
/// (1.95 s, not the 2.0 s tick); one within the wait sends nothing.
#[test]
fn ns2_an_own_packet_after_the_wait_sends_the_retry_at_once() {
    let mut s = Node::with(0, ns2_constants(RreqSchedule::Ns2));
    s.originate(ms(100), data(1, 0, 5));
    assert_eq!(s.ticks(500, 1500), []);
    assert_eq!(s.originate(ms(1800), data(2, 0, 5)).kinds(), ["buffer_changed"], "within the wait (to 1.9 s)");
    let out = s.originate(ms(1950), data(3, 0, 5));
    assert_eq!(out.kinds(), ["buffer_changed", "rreq"]);
    assert_eq!(out.the_rreq().1, 30);
    // Wait 2 x 30 x 30 ms x 2 = 3.6 s: the 2.0 s tick sends nothing.
    assert_eq!(s.routing.ns2_requests[&n(5)].timeout_at, Some(ms(5550)));
    assert_eq!(s.ticks(2000, 5500), []);
    assert_eq!(s.buffered(), [1, 2, 3]);
}

/// aodv.cc:867-871, 424, 1112-1128: a RREP resets the state with the route's
/// hop count (3) as the last TTL; after the link breaks (`rt_down` keeps 3
/// as `rt_last_hop_count`) the next discovery is a ring of TTL 3 + 2 = 5
/// (wait 2 x 5 x 30 ms = 0.3 s), then 7 (0.42 s), then network-wide with
/// `rt_req_cnt` 1, 2, 3, 4 (1.8, 3.6, 5.4, 7.2 s), each on the next tick.
#[test]
fn ns2_a_lost_route_is_searched_from_its_last_hop_count() {
    let mut s = Node::with(0, ns2_constants(RreqSchedule::Ns2));
    s.originate(ms(0), data(1, 0, 5));
    let out = s.control(ms(50), 1, rrep(5, 9, 2, 0, 10_000), 30);
    assert_eq!(out.data(), [(1, n(1))]);
    assert_eq!(s.routing.ns2_requests[&n(5)], Ns2Requests { timeout_at: None, count: 0, last_ttl: 3 });
    assert!(s.timer(ms(500), AodvTimer::PurgeTick).is_empty(), "nothing buffered: no next tick");

    let failed = data(2, 0, 5);
    assert_eq!(s.link_failure(ms(900), &failed, 1).links_broken(), [(n(1), Some(2))]);
    s.link_broken(ms(900), 1, Some(&failed), Vec::new());
    assert_eq!(s.routing.table.last_hop_count(n(5)), Some(3));

    let out = s.originate(ms(1000), data(3, 0, 5));
    assert_eq!(out.the_rreq().1, 5);
    assert_eq!(s.routing.ns2_requests[&n(5)].timeout_at, Some(ms(1300)));
    // 1.5 s: TTL 7 to 1.92 s; 2.0 s: TTL 30 to 3.8 s; 4.0 s to 7.6 s;
    // 8.0 s to 13.4 s; 13.5 s to 20.7 s.
    assert_eq!(s.ticks(1500, 20_500), [(1500, 7), (2000, 30), (4000, 30), (8000, 30), (13_500, 30)]);
    let out = s.timer(ms(21_000), AodvTimer::PurgeTick);
    assert_eq!(out.drops(), [(3, DropCause::NoRoute)]);
}

/// aodv.cc:712-720: a RREQ from the destination that updates the reverse
/// route while a wait is set resets the state (last TTL = its hop count,
/// 3) and the buffered packets go; a RREQ from a node this one never
/// searched for leaves no state.
#[test]
fn ns2_a_rreq_from_the_destination_ends_the_wait() {
    let mut s = Node::with(0, ns2_constants(RreqSchedule::Ns2));
    s.originate(ms(0), data(1, 0, 5));
    let out = s.control(ms(300), 1, rreq(5, 4, 1, 0, None, 2), 28);
    assert_eq!(out.data(), [(1, n(1))]);
    assert_eq!(s.routing.ns2_requests[&n(5)], Ns2Requests { timeout_at: None, count: 0, last_ttl: 3 });
    s.control(ms(400), 1, rreq(7, 4, 1, 0, None, 2), 28);
    assert!(!s.routing.ns2_requests.contains_key(&n(7)));
    // Nothing buffered: the tick armed at 0 s ends without re-arming.
    assert!(s.timer(ms(500), AodvTimer::PurgeTick).is_empty());
}
