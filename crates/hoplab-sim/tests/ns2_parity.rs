//! Plain semi-TCP beside the public ns-2.29 results (issue 12): the
//! chain the ns-2 code's own scripts ran (tests/data/ns2_semitcp_static_chain.csv
//! says where the numbers come from), simulated by hoplab with
//! `preset = "ns2"`.
//!
//! ns-2 ran AODV with link-failure reports off (`CALLRT_ = 0`), so its
//! routes never broke: both that and static routing are checked.

use hoplab_sim::api::{simulate, RunOptions};
use hoplab_sim::stats::report::RunReport;

struct Ns2Point {
    hops: u32,
    goodput_kbps: f64,
    mean_delay_ms: f64,
    /// ACKs received by the source / ACKs sent by the sink.
    ack_delivery: f64,
}

fn ns2_results() -> Vec<Ns2Point> {
    let text = include_str!("data/ns2_semitcp_static_chain.csv");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with("hops"))
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            Ns2Point {
                hops: fields[0].parse().expect("hops"),
                goodput_kbps: fields[1].parse().expect("goodput"),
                mean_delay_ms: fields[2].parse().expect("delay"),
                ack_delivery: fields[4].parse::<f64>().expect("ACKs received") / fields[3].parse::<f64>().expect("ACKs sent"),
            }
        })
        .collect()
}

/// Plain semi-TCP on a chain (512 B, 200 m spacing, 250 m / 550 m) under
/// `preset` with `routing` (a JSON table), data and basic rate
/// `rate_mbps`, for `duration_s` with a warm-up of `warmup_s`.
struct Chain {
    preset: &'static str,
    routing: &'static str,
    rate_mbps: f64,
    duration_s: f64,
    warmup_s: f64,
}

impl Chain {
    fn run(&self, hops: u32, seed: u64) -> RunReport {
        let Chain { preset, routing, rate_mbps, duration_s, warmup_s } = self;
        let json = format!(
            r#"{{"preset": "{preset}", "duration_s": {duration_s}, "warmup_s": {warmup_s}, "routing": {routing},
                "radio": {{"data_rate_mbps": {rate_mbps}, "basic_rate_mbps": {rate_mbps}, "tx_range_m": 250, "cs_range_m": 550}},
                "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
                "flows": [{{"src": 0, "dst": {hops}, "app": "bulk", "transport": "semitcp", "packet_bytes": 512}}]}}"#,
            hops + 1
        );
        simulate(&json, Some(seed), RunOptions::default()).expect("runs")
    }
}

/// The chain of ns-2's scripts (1 Mbit/s, 100 s) with `routing`.
fn ns2_script_chain(routing: &'static str) -> Chain {
    Chain { preset: "ns2", routing, rate_mbps: 1.0, duration_s: 100.0, warmup_s: 1.0 }
}

/// Static routes: the same paths as ns-2's AODV, which never broke.
const STATIC: &str = r#"{"protocol": "static"}"#;
/// What ns-2's scripts ran: AODV without link-failure reports (CALLRT_ = 0
/// in chain/static/semi-dupack/chain.tcl; hoplab's link-layer feedback).
const AODV_WITHOUT_FEEDBACK: &str = r#"{"protocol": "aodv", "aodv": {"link_layer_feedback": false}}"#;

#[test]
fn plain_semitcp_on_the_static_1_mbps_chain_is_within_15_percent_of_ns2() {
    within_15_percent_of_ns2(STATIC);
}

#[test]
fn plain_semitcp_on_ns2s_own_aodv_chain_is_within_15_percent_of_ns2() {
    within_15_percent_of_ns2(AODV_WITHOUT_FEEDBACK);
}

fn within_15_percent_of_ns2(routing: &'static str) {
    let ns2 = ns2_results();
    assert_eq!(ns2.len(), 19, "2..20 nodes");
    println!("routing {routing}");
    for point in ns2.iter().filter(|p| p.hops <= 14) {
        let report = ns2_script_chain(routing).run(point.hops, 1);
        let flow = &report.flows[0];
        let ratio = flow.goodput_kbps / point.goodput_kbps;
        println!(
            "{:>2} hops: goodput {:.1} kbps (ns-2 {:.1}, x{ratio:.2}), delay {:.1} ms (ns-2 {:.1}, x{:.2}), ACKs delivered {:.1} %",
            point.hops,
            flow.goodput_kbps,
            point.goodput_kbps,
            flow.mean_delay_ms,
            point.mean_delay_ms,
            flow.mean_delay_ms / point.mean_delay_ms,
            100.0 * flow.acks_delivered as f64 / flow.acks_sent.max(1) as f64
        );
        assert!((0.85..=1.15).contains(&ratio), "{} hops: x{ratio:.2}", point.hops);
        // ns-2's sink loses a few ACKs on long chains (93.8 % delivered at
        // 14 hops): the same within 5 points.
        let ack_delivery = flow.acks_delivered as f64 / flow.acks_sent.max(1) as f64;
        assert!(
            (ack_delivery - point.ack_delivery).abs() <= 0.05,
            "{} hops: ACKs {:.1} % against ns-2's {:.1} %",
            point.hops,
            100.0 * ack_delivery,
            100.0 * point.ack_delivery
        );
    }
}

/// The paper's AODV chain (seed 000 section 3.1, with issue 12's carrier
/// sense of 550 m): 2 Mbit/s, 60 s.
const PAPERS_AODV_CHAIN: Chain =
    Chain { preset: "ns2", routing: r#"{"protocol": "aodv"}"#, rate_mbps: 2.0, duration_s: 60.0, warmup_s: 5.0 };

/// Issue 12: with the standard rules the destination loses its route back
/// to contention (its ACKs' RTSs collide with the source's DATA, hidden
/// two hops away; the route breaks and its RREQs die the same way while the
/// window-less source keeps the chain saturated) and delivers 5-37 % of its
/// ACKs at 3-4 hops; ns-2's sink holds its ACKs until its queues are empty
/// and its source holds one packet, and ns-2 delivers >= 98 %.
#[test]
fn with_the_ns2_rules_the_destination_delivers_its_acks_over_aodv() {
    // Counted as at 4 hops (below), since ns-2's ARP joined the preset: on
    // seed 1 the sink's route back breaks twice and it holds 1,150 of the
    // 3,940 ACKs it makes (649 pushed out of its full queue, 501 held at
    // the end): 70.7 % of those made arrive, 99.9 % of those sent. Without
    // ARP it held 4. So issue 12's symptom, ACKs kept from the source, is
    // back on this seed in the ACKs made (the public code's sink on its
    // 1 Mbit/s chain also holds some, about 150 at 3 hops, seed 1; it has
    // no reference on this 2 Mbit/s chain).
    sink_delivers_the_acks_it_sends(3);
}

/// The same at 4 hops, with the ACKs counted as the public semi-TCP
/// code's statistics count them (the authors' avgStatsForTcp.awk,
/// scripts/ns2/semitcp/chain_stats.py): an ACK is sent when the sink agent
/// hands it down. ns-2's TcpSink holds ACKs in its ack_q while its node
/// has no room (tcp/tcp-sink.cc:367-395); one pushed out of the full queue
/// (500, "ACK_Q_FULL") or still held at the end never counts. Counted so,
/// hoplab delivers 99.9-100 % here (the public code 98-99 % at 3-5 hops).
/// Counted from every ACK the sink made, seed 1 delivered 49 % before ns-2's
/// ARP joined the preset (100 % since; at 3 hops seed 1 now holds them
/// instead): its route back is down for long stretches while the
/// window-less source keeps sending, and its held ACKs overflow the queue. The public code's sink
/// loses ACKs the same way but fewer (the 1 Mbit/s chain at 3 hops, seed
/// 1: about 150 against hoplab's 865; docs/fidelity.md, "Semi-TCP under
/// route failures").
#[test]
fn with_the_ns2_rules_the_destination_delivers_its_acks_over_aodv_at_4_hops() {
    sink_delivers_the_acks_it_sends(4);
}

/// Over seeds 1-3 on the papers' AODV chain at `hops`, at least 95 % of the
/// ACKs the sink handed down arrive (held ACKs and those pushed out of the
/// full queue never went down), and every ACK made is delivered, lost with
/// a cause or in flight.
fn sink_delivers_the_acks_it_sends(hops: u32) {
    for seed in 1..=3 {
        let report = PAPERS_AODV_CHAIN.run(hops, seed);
        let flow = &report.flows[0];
        // Held at the end: in acks_in_flight (with the few on their way).
        let overflow = flow.ack_losses.get("ack_queue_overflow").copied().unwrap_or(0);
        let sent_down = flow.acks_sent - overflow - flow.acks_in_flight;
        let delivered = flow.acks_delivered as f64 / sent_down.max(1) as f64;
        println!(
            "{hops} hops, seed {seed}: {:.1} % of the {sent_down} ACKs the sink sent ({:.1} % of the {} it made), goodput {:.1} kbps",
            100.0 * delivered,
            100.0 * flow.acks_delivered as f64 / flow.acks_sent.max(1) as f64,
            flow.acks_sent,
            flow.goodput_kbps
        );
        assert!(delivered >= 0.95, "{hops} hops, seed {seed}: {:.1} %", 100.0 * delivered);
        let acks_lost: u64 = flow.ack_losses.values().sum();
        assert_eq!(flow.acks_sent, flow.acks_delivered + acks_lost + flow.acks_in_flight, "conservation");
    }
}

/// Issue 28: TCP NewReno over AODV (and DSR) on the chain beside ns-2.35,
/// run here by scripts/ns2/chain.tcl (scripts/ns2/reference.py stored the
/// results, with each run's command, in
/// python/hoplab/data/references/ns2-chain-routing.json): 2 Mbit/s data
/// and basic rate, 512 B, 200 m, RTS always, a 50-packet queue, window 256,
/// no delayed ACKs, 100 s, goodput over 10-100 s; hoplab with
/// `preset = "ns2"`. Per seed the goodput varies widely in both simulators
/// at 10 and more hops (ns-2.35 at 14 hops: 38-97 kbps), so the means are
/// over the reference's ten seeds.
fn ns2_routing_reference() -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/hoplab/data/references/ns2-chain-routing.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("the stored ns-2.35 reference")).expect("JSON")
}

fn newreno_chain(hops: u32, routing: &str, seed: u64) -> f64 {
    let json = format!(
        r#"{{"preset": "ns2", "duration_s": 100.0, "warmup_s": 10.0, "routing": {{"protocol": "{routing}"}},
            "radio": {{"data_rate_mbps": 2.0, "basic_rate_mbps": 2.0}},
            "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
            "tcp": {{"rwnd_segments": 256}},
            "flows": [{{"src": 0, "dst": {hops}, "transport": "tcp", "cc": "newreno", "app": "bulk", "packet_bytes": 512}}]}}"#,
        hops + 1
    );
    simulate(&json, Some(seed), RunOptions::default()).expect("runs").flows[0].goodput_kbps
}

/// (hops, ns-2.35's mean, hoplab's mean) over the reference's seeds.
fn routing_parity(routing: &str, hops_list: &[u32]) -> Vec<(u32, f64, f64)> {
    let reference = ns2_routing_reference();
    hops_list
        .iter()
        .map(|&hops| {
            let case = reference["cases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["params"]["routing"] == routing.to_uppercase() && c["params"]["hops"] == hops)
                .expect("a stored case");
            let seeds: Vec<u64> = case["seeds"].as_array().unwrap().iter().map(|s| s.as_u64().unwrap()).collect();
            let ns2: f64 =
                case["runs"].as_array().unwrap().iter().map(|r| r["goodput_kbps"].as_f64().unwrap()).sum::<f64>() / seeds.len() as f64;
            let ours: f64 = seeds.iter().map(|&s| newreno_chain(hops, routing, s)).sum::<f64>() / seeds.len() as f64;
            println!("{routing} {hops:>2} hops: hoplab {ours:.1} kbps, ns-2.35 {ns2:.1} (x{:.2}, {} seeds)", ours / ns2, seeds.len());
            (hops, ns2, ours)
        })
        .collect()
}

/// Within 20 % of ns-2.35 at 4, 7 and 14 hops, and 10 % on average (issue 28).
fn assert_routing_parity(routing: &str) {
    let points = routing_parity(routing, &[4, 7, 14]);
    for &(hops, ns2, ours) in &points {
        assert!((ours / ns2 - 1.0).abs() <= 0.20, "{routing}, {hops} hops: x{:.2}", ours / ns2);
    }
    let mean_deviation = points.iter().map(|&(_, ns2, ours)| (ours / ns2 - 1.0).abs()).sum::<f64>() / points.len() as f64;
    assert!(mean_deviation <= 0.10, "{routing}: mean deviation {:.1} %", 100.0 * mean_deviation);
}

#[test]
fn newreno_over_aodv_is_within_20_percent_of_ns2_35_and_10_on_average() {
    assert_routing_parity("aodv");
}

#[test]
fn newreno_over_dsr_is_within_20_percent_of_ns2_35_and_10_on_average() {
    assert_routing_parity("dsr");
}

/// What the public semi-TCP code's `chain/rt-fail` scripts run: AODV with
/// link-failure reports (`CALLRT_ = 1`).
const AODV_WITH_FEEDBACK: &str = r#"{"protocol": "aodv", "aodv": {"link_layer_feedback": true}}"#;

/// Issue 28: plain semi-TCP with link-failure reports beside the public
/// semi-TCP code (ns-2.35 + musicinthedark/semitcp, run by
/// scripts/ns2/semitcp/run_chain.py, stored with each run's command in
/// python/hoplab/data/references/ns2-semitcp-chain.json, seeds 1-3):
/// goodput within 25 % at 3, 5, 7, 10 and 14 hops and 15 % on average;
/// the ACKs delivered, counted as the reference's statistics count them
/// (of those the sink handed down: `acks_sent - ack_queue_overflow -
/// acks_in_flight`, as hoplab fidelity's rows), at most 8 points below.
#[test]
fn plain_semitcp_under_route_failures_is_within_25_percent_of_the_public_code_and_15_on_average() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/hoplab/data/references/ns2-semitcp-chain.json");
    let reference: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the stored reference")).expect("JSON");
    let chain = ns2_script_chain(AODV_WITH_FEEDBACK);
    let mut deviations = Vec::new();
    for hops in [3u32, 5, 7, 10, 14] {
        let case = reference["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["params"]["callrt"] == 1 && c["params"]["hops"] == hops)
            .expect("a stored case");
        let (mut ours, mut theirs, mut our_acks, mut their_acks) = (0.0, 0.0, 0.0, 0.0);
        let runs = case["runs"].as_array().unwrap();
        for (seed, run) in case["seeds"].as_array().unwrap().iter().zip(runs) {
            let report = chain.run(hops, seed.as_u64().unwrap());
            let flow = &report.flows[0];
            let handed_down = flow.acks_sent - flow.ack_losses.get("ack_queue_overflow").copied().unwrap_or(0) - flow.acks_in_flight;
            ours += flow.goodput_kbps;
            our_acks += 100.0 * flow.acks_delivered as f64 / handed_down.max(1) as f64;
            theirs += run["goodput_kbps"].as_f64().unwrap();
            their_acks += 100.0 * run["acks_received"].as_f64().unwrap() / run["acks_sent"].as_f64().unwrap().max(1.0);
        }
        let n = runs.len() as f64;
        let ratio = ours / theirs;
        println!(
            "{hops:>2} hops: goodput {:.1} kbps (public code {:.1}, x{ratio:.2}), ACKs {:.1} % ({:.1} %)",
            ours / n,
            theirs / n,
            our_acks / n,
            their_acks / n
        );
        assert!((ratio - 1.0).abs() <= 0.25, "{hops} hops: x{ratio:.2}");
        assert!(our_acks / n >= their_acks / n - 8.0, "{hops} hops: ACKs {:.1} against {:.1} %", our_acks / n, their_acks / n);
        deviations.push((ratio - 1.0).abs());
    }
    let mean = deviations.iter().sum::<f64>() / deviations.len() as f64;
    assert!(mean <= 0.15, "mean deviation {:.1} %", 100.0 * mean);
}
