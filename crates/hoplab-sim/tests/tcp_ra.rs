//! TCP-RA (seed 001) over an AODV chain with Gilbert-Elliott channel errors:
//! conservation with the `channel_error` cause, the verdicts counted
//! against the true causes, determinism. Whether TCP-RA's findings hold
//! is the reproduction's business (`hoplab reproduce tcp-ra-2009`), not a
//! test's: these assert what must be true of any correct run.

use hoplab_sim::api::{simulate, RunOptions};
use hoplab_sim::stats::report::{FlowReport, RunReport};
use std::collections::BTreeMap;

/// `hops`-hop AODV chain at 11 Mbit/s (802.11b, 1 Mbit/s basic rate),
/// 800-byte segments, Gilbert-Elliott errors: 3 % of frames in bursts of 3.
fn chain(hops: u32, cc: &str, seed: u64) -> RunReport {
    let json = format!(
        r#"{{"duration_s": 60, "warmup_s": 10,
            "radio": {{"data_rate_mbps": 11, "basic_rate_mbps": 1, "tx_range_m": 250, "cs_range_m": 550}},
            "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
            "routing": {{"protocol": "aodv"}},
            "errors": {{"model": "gilbert_elliott", "packet_error_rate": 0.03, "mean_burst_frames": 3}},
            "flows": [{{"src": 0, "dst": {hops}, "transport": "tcp", "app": "bulk", "packet_bytes": 800, "cc": "{cc}"}}]}}"#,
        hops + 1
    );
    simulate(&json, Some(seed), RunOptions::default()).expect("runs")
}

/// The flow's verdicts against the true causes (the report's
/// `loss_classification`), None for a flow whose receiver gives none.
fn classification(f: &FlowReport) -> Option<BTreeMap<String, BTreeMap<String, u64>>> {
    serde_json::from_value(f.transport_counters["loss_classification"].clone()).expect("a map or null")
}

fn row_total(f: &FlowReport, truth: &str) -> u64 {
    classification(f).expect("a TCP-RA flow is judged")[truth].values().sum()
}

#[test]
fn losses_are_conserved_and_every_verdict_is_counted_against_a_true_cause() {
    for (hops, seed) in [(3, 1), (6, 2)] {
        let r = chain(hops, "tcp_ra", seed);
        let f = &r.flows[0];
        let lost: u64 = f.losses.values().sum();
        assert_eq!(f.sent, f.delivered + lost + f.in_flight, "{hops} hops: conservation");
        let channel = f.losses.get("channel_error").copied().unwrap_or(0);
        assert!(channel > 0, "{hops} hops: Gilbert errors cost packets: {:?}", f.losses);
        // A verdict is given once per missing segment, against its latest
        // dropped copy: a true class never holds more than its drops.
        let route_break = f.losses.get("route_break").copied().unwrap_or(0);
        assert!(row_total(f, "wireless") <= channel + route_break, "{:?} vs {:?}", classification(f), f.losses);
        assert!(row_total(f, "congestion") + row_total(f, "wireless") <= lost);
        assert!(row_total(f, "congestion") + row_total(f, "wireless") > 0, "{hops} hops: losses were judged");
        // Every verdict kind exists in the report, with zeros.
        let classes = classification(f).unwrap();
        for truth in ["congestion", "wireless", "not_lost"] {
            assert_eq!(classes[truth].keys().collect::<Vec<_>>(), ["congestion", "dubious", "wireless"]);
        }
    }
}

#[test]
fn only_receiver_aided_flows_are_judged() {
    assert!(classification(&chain(3, "newreno", 1).flows[0]).is_none());
}

#[test]
fn gilbert_elliott_runs_are_deterministic() {
    let (a, b) = (chain(4, "tcp_ra", 7), chain(4, "tcp_ra", 7));
    assert_eq!(serde_json::to_string(&a.flows).unwrap(), serde_json::to_string(&b.flows).unwrap());
    assert_eq!(serde_json::to_string(&a.nodes).unwrap(), serde_json::to_string(&b.nodes).unwrap());
    assert_ne!(a.flows[0].sent, chain(4, "tcp_ra", 8).flows[0].sent, "another seed, other errors");
}

/// One-hop UDP at 1 Mbit/s under Gilbert-Elliott errors: (packets that
/// crossed the link, packets lost to channel errors).
fn one_hop_udp(packet_error_rate: f64, burst: f64, seed: u64) -> (u64, u64) {
    let json = format!(
        r#"{{"duration_s": 60, "warmup_s": 0, "topology": {{"kind": "chain", "nodes": 2, "spacing_m": 200}},
            "errors": {{"model": "gilbert_elliott", "packet_error_rate": {packet_error_rate}, "mean_burst_frames": {burst}}},
            "flows": [{{"src": 0, "dst": 1, "transport": "udp", "app": "cbr", "rate_kbps": 1000, "packet_bytes": 512}}]}}"#
    );
    let f = &simulate(&json, Some(seed), RunOptions::default()).expect("runs").flows[0];
    let lost = f.losses.get("channel_error").copied().unwrap_or(0);
    (f.delivered + lost, lost)
}

/// A packet's loss rate over a Gilbert-Elliott link (e_good = 0, e_bad = 1)
/// when the MAC makes `attempts` DATA attempts, each one step of the
/// chain: a delivered packet leaves the link good, a lost one bad, so
/// P(lost | previous delivered) = p (1-r)^(a-1), P(lost | previous lost) =
/// (1-r)^a, and the stationary rate is L = x / (1 + x - y) with x, y those.
fn analytic_packet_loss(packet_error_rate: f64, burst: f64, attempts: i32) -> f64 {
    let r = 1.0 / burst;
    let p = r * packet_error_rate / (1.0 - packet_error_rate);
    let x = p * (1.0 - r).powi(attempts - 1);
    let y = (1.0 - r).powi(attempts);
    x / (1.0 + x - y)
}

#[test]
fn packet_loss_under_mac_retries_matches_the_chain_analysis() {
    // 802.11 long retry limit 4: the packet is lost only when 4 DATA
    // attempts in a row are corrupted. 10 % of frames in bursts of 8: L =
    // 2.2 % of packets; in bursts of 1.5: 0.28 %. Burstiness, not the frame
    // error rate alone, decides what the transport sees.
    for (burst, seeds) in [(8.0, [1, 2]), (1.5, [1, 2])] {
        let (mut crossed, mut lost) = (0, 0);
        for seed in seeds {
            let (c, l) = one_hop_udp(0.1, burst, seed);
            crossed += c;
            lost += l;
        }
        let expected = analytic_packet_loss(0.1, burst, 4);
        let measured = lost as f64 / crossed as f64;
        println!("bursts of {burst}: {lost} of {crossed} lost ({measured:.5}), analysis {expected:.5}");
        // Hundreds of losses (clustered in runs): 25 % is several standard
        // errors, and the two burst lengths differ by a factor of 8.
        assert!((measured / expected - 1.0).abs() < 0.25, "bursts of {burst}: {measured} vs {expected}");
    }
}
