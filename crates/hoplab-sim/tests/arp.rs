//! ns-2's ARP (`mac.arp = "ns2"`, net/arp.rs) frame by frame: the first
//! packet to a neighbour waits for a request and its reply, the next ones
//! go at once; a node that heard a request needs none of its own; packets
//! are conserved with ARP holding and dropping them; off, nothing changes.

mod common;

use hoplab_sim::api::{simulate, RunOptions};
use hoplab_sim::mac::FrameKind;
use hoplab_sim::scenario::Scenario;
use hoplab_sim::world::{TraceEntry, TraceWhat, World};

fn traced(json: &str) -> Vec<TraceEntry> {
    let scenario = Scenario::from_json(json).expect("valid scenario");
    let mut w = World::build(&scenario, scenario.seed).expect("builds");
    w.enable_trace();
    w.run_until(w.end);
    w.trace.take().unwrap().into_iter().filter(|e| e.what == TraceWhat::Tx).collect()
}

/// (node, frame kind, receiver, what it carries) of each transmission.
fn frames(entries: &[TraceEntry]) -> Vec<(u32, FrameKind, u32, &'static str)> {
    entries.iter().map(|e| (e.node.0, e.kind, e.to.0, e.routing.unwrap_or(if e.kind == FrameKind::Data { "data" } else { "" }))).collect()
}

fn two_nodes(arp: &str, flow: &str) -> String {
    format!(
        r#"{{"duration_s": 1.3, "warmup_s": 0, "mac": {{"arp": "{arp}"}},
            "topology": {{"kind": "chain", "nodes": 2, "spacing_m": 200}},
            "flows": [{{"src": 0, "dst": 1, "start_s": 0.1, {flow}}}]}}"#
    )
}

const BROADCAST: u32 = u32::MAX;

#[test]
fn the_first_packet_waits_for_a_request_and_reply_the_second_does_not() {
    // CBR 512-byte packets every 0.5 s (8 kbit/s): at 0.1, 0.6, 1.1 s.
    let tx = traced(&two_nodes("ns2", r#""app": "cbr", "rate_kbps": 8.192, "packet_bytes": 512"#));
    use FrameKind::*;
    let first = [
        (0, Data, BROADCAST, "arp_request"),
        // The reply is unicast: RTS/CTS (dot11RTSThreshold 0), DATA, ACK.
        (1, Rts, 0, ""),
        (0, Cts, 1, ""),
        (1, Data, 0, "arp_reply"),
        (0, Ack, 1, ""),
        (0, Rts, 1, ""),
        (1, Cts, 0, ""),
        (0, Data, 1, "data"),
        (1, Ack, 0, ""),
    ];
    let f = frames(&tx);
    assert_eq!(f[..9], first, "{f:?}");
    // The next packets go at once: no ARP frame after the first exchange.
    let later = &f[9..];
    assert_eq!(later.len(), 8, "{later:?}");
    assert!(later.iter().all(|(_, _, _, what)| !what.starts_with("arp")), "{later:?}");
    // The request left 5 us after the packet reached the ARP table (no LL
    // delay: it was held), the data packet 5 us after the reply arrived.
    let start_ns = 100_000_000;
    assert!(tx[0].time.as_nanos() >= start_ns + 5_000, "{:?}", tx[0].time);
}

#[test]
fn off_sends_the_first_packet_at_once() {
    let tx = traced(&two_nodes("off", r#""app": "cbr", "rate_kbps": 8.192, "packet_bytes": 512"#));
    let f = frames(&tx);
    assert_eq!(f.len(), 12, "{f:?}");
    assert!(f.iter().all(|(_, _, _, what)| !what.starts_with("arp")));
}

#[test]
fn a_node_that_heard_the_request_needs_none_of_its_own() {
    // Node 1 starts sending to node 0 at 0.5 s, after node 0's request of
    // 0.1 s taught it node 0's address (mac/arp.cc:268-278).
    let cbr = r#""app": "cbr", "rate_kbps": 8.192, "packet_bytes": 512"#;
    let json = two_nodes("ns2", cbr).replace(
        r#"}]}"#,
        &format!(r#"}}, {{"src": 1, "dst": 0, "start_s": 0.5, {cbr}}}]}}"#),
    );
    let f = frames(&traced(&json));
    let arp: Vec<_> = f.iter().filter(|x| x.3.starts_with("arp")).collect();
    assert_eq!(arp, [&(0, FrameKind::Data, BROADCAST, "arp_request"), &(1, FrameKind::Data, 0, "arp_reply")]);
    assert_eq!(f.iter().filter(|x| x.0 == 1 && x.3 == "data").count(), 2, "node 1's packets of 0.5 and 1.0 s: {f:?}");
}

#[test]
fn a_second_packet_before_the_reply_replaces_the_first_and_asks_again() {
    // TCP's first window: two segments reach the table together; the
    // second replaces the first (dropped `arp_unresolved`, mac/arp.cc:
    // 185-186) and sends a second request (196).
    let r = simulate(&two_nodes("ns2", r#""transport": "tcp", "app": "bulk""#), Some(1), RunOptions::default()).unwrap();
    common::conserved(&r);
    let f = frames(&traced(&two_nodes("ns2", r#""transport": "tcp", "app": "bulk""#)));
    let requests = f.iter().filter(|x| x.3 == "arp_request").count();
    assert_eq!((requests, r.flows[0].losses.get("arp_unresolved").copied()), (2, Some(1)), "{:?}", r.flows[0].losses);
}

fn mobile_48(arp: &str) -> String {
    let flows: Vec<String> =
        (0..10).map(|i| format!(r#"{{"src": {}, "dst": {}, "transport": "semitcp", "app": "bulk"}}"#, 2 * i, 2 * i + 1)).collect();
    format!(
        r#"{{"duration_s": 40, "warmup_s": 5, "preset": "ns2", "mac": {{"arp": "{arp}"}}, "routing": {{"protocol": "aodv"}},
            "radio": {{"tx_range_m": 250, "cs_range_m": 500}},
            "mobility": {{"model": "random_waypoint", "min_speed_mps": 1, "max_speed_mps": 15, "pause_s": 0}},
            "topology": {{"kind": "random", "nodes": 48, "width_m": 1500, "height_m": 3000}},
            "flows": [{}]}}"#,
        flows.join(", ")
    )
}

#[test]
fn packets_are_conserved_with_arp_on_moving_nodes() {
    // The mobile scenario (AODV, 48 nodes) and a CBR overload of a
    // chain (AODV, DSR): ARP holds packets, replaces them and gives up.
    let chain = r#"{"duration_s": 20, "warmup_s": 2, "preset": "ns2", "mac": {"arp": "ns2"}, "routing": {"protocol": "aodv"},
        "topology": {"kind": "chain", "nodes": 6, "spacing_m": 200},
        "flows": [{"src": 0, "dst": 5, "app": "cbr", "rate_kbps": 800}, {"src": 5, "dst": 0, "transport": "tcp", "app": "bulk"}]}"#;
    let mut arp_drops = 0;
    let dsr = chain.replace(r#""protocol": "aodv""#, r#""protocol": "dsr""#);
    for json in [mobile_48("ns2"), chain.to_string(), dsr] {
        for seed in [1, 2] {
            let r = simulate(&json, Some(seed), RunOptions::default()).expect("runs");
            common::conserved(&r);
            arp_drops += r.flows.iter().filter_map(|f| f.losses.get("arp_unresolved")).sum::<u64>();
        }
    }
    assert!(arp_drops > 0, "some packets were lost to ARP");
}

#[test]
fn off_is_the_default_and_leaves_the_scenario_as_it_was() {
    let with = Scenario::from_json(&two_nodes("off", r#""app": "bulk""#)).unwrap();
    let without = Scenario::from_json(&two_nodes("off", r#""app": "bulk""#).replace(r#""mac": {"arp": "off"}, "#, "")).unwrap();
    assert_eq!(with.config_hash(), without.config_hash());
    let on = Scenario::from_json(&two_nodes("ns2", r#""app": "bulk""#)).unwrap();
    assert_ne!(on.config_hash(), without.config_hash());
}

#[test]
fn a_bad_value_is_named() {
    let e = Scenario::from_json(&two_nodes("rfc826", r#""app": "bulk""#)).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("mac.arp") && text.contains("ns2") && !text.contains('\n'), "{text}");
}
