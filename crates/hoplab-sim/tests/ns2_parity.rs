//! Plain semi-TCP beside the public ns-2.29 results (issue 12): the static
//! chain the ns-2 code's own scripts ran (tests/data/ns2_semitcp_static_chain.csv
//! says where the numbers come from), simulated by hoplab with
//! `preset = "ns2"`.
//!
//! ns-2 ran AODV with link-failure reports off (`CALLRT_ = 0`), so its
//! routes never broke: static routing here is the same network.

use hoplab_sim::api::{simulate, RunOptions};
use hoplab_sim::stats::report::RunReport;

struct Ns2Point {
    hops: u32,
    goodput_kbps: f64,
    mean_delay_ms: f64,
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
            }
        })
        .collect()
}

fn static_chain(hops: u32, seed: u64) -> RunReport {
    let json = format!(
        r#"{{"preset": "ns2", "duration_s": 100, "warmup_s": 1,
            "radio": {{"data_rate_mbps": 1, "basic_rate_mbps": 1, "tx_range_m": 250, "cs_range_m": 550}},
            "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
            "flows": [{{"src": 0, "dst": {hops}, "app": "bulk", "transport": "semitcp", "packet_bytes": 512}}]}}"#,
        hops + 1
    );
    simulate(&json, Some(seed), RunOptions::default()).expect("runs")
}

#[test]
fn plain_semitcp_on_the_static_1_mbps_chain_is_within_15_percent_of_ns2() {
    let ns2 = ns2_results();
    assert_eq!(ns2.len(), 19, "2..20 nodes");
    for point in ns2.iter().filter(|p| p.hops <= 14) {
        let report = static_chain(point.hops, 1);
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
    }
}
