//! Whole-network properties: conservation of packets, determinism, and the
//! UDP chain's capacity (Li et al., "Capacity of ad hoc wireless networks",
//! MobiCom 2001).

use hoplab_sim::api::{simulate, simulate_json, RunOptions};
use hoplab_sim::stats::report::RunReport;

fn run(json: &str, seed: u64) -> RunReport {
    simulate(json, Some(seed), RunOptions::default()).expect("runs")
}

fn chain(hops: u32, flow: &str, duration_s: f64) -> String {
    format!(
        r#"{{"duration_s": {duration_s}, "warmup_s": 5, "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
            "flows": [{{"src": 0, "dst": {hops}, {flow}}}]}}"#,
        hops + 1
    )
}

fn assert_conserved(report: &RunReport) {
    for f in &report.flows {
        let lost: u64 = f.losses.values().sum();
        assert_eq!(
            f.sent,
            f.delivered + lost + f.in_flight,
            "flow {}: sent {} != delivered {} + lost {} ({:?}) + in flight {}",
            f.id,
            f.sent,
            f.delivered,
            lost,
            f.losses,
            f.in_flight
        );
    }
    // Losses are counted where they happen: node drops add up to flow losses.
    let node_drops: u64 = report.nodes.iter().flat_map(|n| n.drops.values()).sum();
    let flow_losses: u64 = report.flows.iter().flat_map(|f| f.losses.values()).sum();
    assert_eq!(node_drops, flow_losses);
}

#[test]
fn conservation_on_an_overloaded_chain() {
    let r = run(&chain(14, r#""app": "cbr", "rate_kbps": 600"#, 60.0), 1);
    assert!(r.flows[0].losses.get("queue_overflow").copied().unwrap_or(0) > 0, "overload must overflow queues");
    assert_conserved(&r);
}

#[test]
fn conservation_on_a_saturated_chain() {
    let r = run(&chain(14, r#""app": "bulk""#, 60.0), 2);
    assert!(r.flows[0].in_flight > 0);
    assert_conserved(&r);
}

#[test]
fn conservation_with_channel_errors_on_a_grid() {
    let r = run(
        r#"{"duration_s": 40, "warmup_s": 5, "errors": {"model": "uniform", "packet_error_rate": 0.3},
            "topology": {"kind": "grid", "rows": 7, "cols": 7, "spacing_m": 200},
            "flows": [{"src": 0, "dst": 6, "app": "cbr", "rate_kbps": 200},
                      {"src": 42, "dst": 48, "app": "bulk"},
                      {"src": 0, "dst": 42, "app": "cbr", "rate_kbps": 150},
                      {"src": 6, "dst": 48, "app": "cbr", "rate_kbps": 150, "start_s": 3, "stop_s": 30}]}"#,
        4,
    );
    let causes: Vec<&String> = r.flows.iter().flat_map(|f| f.losses.keys()).collect();
    assert!(causes.iter().any(|c| *c == "channel_error"), "{causes:?}");
    assert_conserved(&r);
}

#[test]
fn conservation_on_a_random_topology() {
    let r = run(
        r#"{"duration_s": 30, "warmup_s": 5,
            "topology": {"kind": "random", "nodes": 40, "width_m": 1000, "height_m": 1000},
            "flows": [{"src": 0, "dst": 39, "app": "bulk"}, {"src": 5, "dst": 20, "app": "cbr", "rate_kbps": 300},
                      {"src": 10, "dst": 30, "app": "bulk"}]}"#,
        5,
    );
    assert_conserved(&r);
}

#[test]
fn same_seed_same_bytes_other_seed_other_result() {
    let json = r#"{"duration_s": 20, "warmup_s": 2, "topology": {"kind": "grid", "rows": 4, "cols": 4, "spacing_m": 200},
                   "flows": [{"src": 0, "dst": 15, "app": "bulk"}, {"src": 3, "dst": 12, "app": "cbr", "rate_kbps": 100}]}"#;
    let strip = |s: String| -> String {
        let mut v: serde_json::Value = serde_json::from_str(&s).unwrap();
        v.as_object_mut().unwrap().remove("wall_seconds");
        v.to_string()
    };
    let options = RunOptions { series: true, ..Default::default() };
    let a = strip(simulate_json(json, Some(7), options.clone()).unwrap());
    let b = strip(simulate_json(json, Some(7), options.clone()).unwrap());
    let c = strip(simulate_json(json, Some(8), options.clone()).unwrap());
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn chain_throughput_peaks_below_a_quarter_of_one_hop_and_falls_under_overload() {
    // Li et al.: an ideal 802.11 chain carries at most 1/4 of the single-hop
    // throughput (nodes 3 hops apart may send together), and more offered
    // load than the chain can carry lowers what it delivers.
    let one_hop = run(&chain(1, r#""app": "bulk""#, 30.0), 1).flows[0].goodput_kbps;
    let sweep: Vec<(f64, f64)> = [50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 400.0, 800.0]
        .iter()
        .map(|&rate| {
            let r = run(&chain(14, &format!(r#""app": "cbr", "rate_kbps": {rate}"#), 60.0), 1);
            (rate, r.flows[0].goodput_kbps)
        })
        .collect();
    println!("single hop {one_hop:.0} kbps; 14-hop sweep {sweep:?}");
    // Light load is carried in full.
    for &(rate, goodput) in &sweep[..3] {
        assert!((goodput - rate).abs() < 0.03 * rate, "{rate} kbps offered, {goodput:.1} delivered");
    }
    let (peak_rate, peak) = sweep.iter().cloned().fold((0.0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    assert!(peak < 0.25 * one_hop, "peak {peak:.0} kbps at {peak_rate} vs quarter of one hop {:.0}", one_hop / 4.0);
    assert!(peak > 0.10 * one_hop, "peak {peak:.0} kbps implausibly low");
    let overload = sweep.last().unwrap().1;
    assert!(overload < 0.9 * peak, "overload {overload:.0} kbps vs peak {peak:.0}");
}

#[test]
fn goodput_falls_with_hops() {
    let goodput: Vec<f64> = [1u32, 2, 3, 4, 7].iter().map(|&h| run(&chain(h, r#""app": "bulk""#, 30.0), 1).flows[0].goodput_kbps).collect();
    println!("saturated UDP goodput by hops 1,2,3,4,7: {goodput:?}");
    for pair in goodput.windows(2) {
        assert!(pair[1] < pair[0], "{goodput:?}");
    }
    // Two hops share one medium: at most half of one hop.
    assert!(goodput[1] < 0.55 * goodput[0], "{goodput:?}");
}

#[test]
fn series_sample_goodput_queue_and_per_packet_mac_figures() {
    let report = simulate(&chain(3, r#""app": "bulk""#, 10.0), Some(1), RunOptions { series: true, ..Default::default() }).unwrap();
    let series = report.series.expect("series requested");
    let of = |entity: &str, id: u32, metric: &str| -> Vec<f64> {
        series.iter().filter(|r| r.entity == entity && r.id == id && r.metric == metric).map(|r| r.value).collect()
    };
    // One sample per second (stats.series_interval_s = 1).
    assert_eq!(of("flow", 0, "goodput_kbps").len(), 10);
    // Interval goodputs after the warm-up average to the run's goodput.
    let after_warmup = &of("flow", 0, "goodput_kbps")[5..];
    let mean = after_warmup.iter().sum::<f64>() / after_warmup.len() as f64;
    assert!((mean - report.flows[0].goodput_kbps).abs() < 0.02 * mean, "{mean} vs {}", report.flows[0].goodput_kbps);
    // Per-packet MAC reports reach the series: the source's MST and APR.
    let mst = of("node", 0, "mac_service_time_ms");
    let apr = of("node", 0, "rts_attempts_per_packet");
    assert_eq!(mst.len(), 10);
    assert!(apr.iter().all(|&a| a >= 1.0));
    let overall = report.nodes[0].mac_service_time_ms;
    let mean_mst = mst.iter().sum::<f64>() / mst.len() as f64;
    assert!((mean_mst - overall).abs() < 0.1 * overall, "{mean_mst} vs {overall}");
    // The destination serves nothing: no MST samples for it.
    assert!(of("node", 3, "mac_service_time_ms").is_empty());
}

#[test]
fn a_wall_clock_limit_gives_the_run_up_and_a_loose_one_changes_nothing() {
    use hoplab_sim::api::ApiError;
    use std::time::Duration;
    // 14-hop saturated chain for an hour of simulated time: seconds of work.
    let long = chain(14, r#""app": "bulk""#, 3600.0);
    let tight = RunOptions { wall_limit: Some(Duration::from_millis(20)), ..Default::default() };
    match simulate(&long, Some(1), tight) {
        Err(ApiError::Simulation(message)) => assert!(message.contains("wall-clock limit of 0.020 s exceeded"), "{message}"),
        other => panic!("expected the limit to stop the run, got {:?}", other.map(|r| r.events)),
    }
    // A limit the run stays within: the same report as without one.
    let short = chain(3, r#""app": "bulk""#, 10.0);
    let loose = RunOptions { wall_limit: Some(Duration::from_secs(600)), ..Default::default() };
    let mut limited = simulate(&short, Some(2), loose).unwrap();
    let unlimited = simulate(&short, Some(2), RunOptions::default()).unwrap();
    assert!(limited.events > 10_000);
    limited.wall_seconds = unlimited.wall_seconds; // the one field that may differ
    assert_eq!(serde_json::to_string(&limited).unwrap(), serde_json::to_string(&unlimited).unwrap());
}
