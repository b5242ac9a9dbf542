//! DSR (RFC 4728) over whole runs: discovery and the source route on the
//! air, a reply from a cache, a broken link salvaged, conservation over
//! twenty seeds of a moving 48-node network, determinism, the 150-node
//! field of seed 003, TCP over DSR on a 7-hop chain against static routing,
//! AFW against FeW on the 9-hop three-flow chain, and the keys' validation.
//! The frame-level tests of each mechanism are in src/net/dsr/node_tests.

use hoplab_sim::api::{simulate, simulate_json, RunOptions};
use hoplab_sim::mac::FrameKind;
use hoplab_sim::scenario::Scenario;
use hoplab_sim::stats::report::RunReport;
use hoplab_sim::time::SimTime;
use hoplab_sim::world::{TraceWhat, World};

mod common;
use common::conserved;

fn examples() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// An example scenario as JSON with `(key, value)` pairs set at the top level
/// or in `routing` / the first flow (`key` dotted once at most).
fn example(file: &str, set: &[(&str, serde_json::Value)]) -> String {
    let text = std::fs::read_to_string(examples().join(file)).unwrap();
    let mut doc: serde_json::Value = serde_json::to_value(toml::from_str::<toml::Value>(&text).unwrap()).unwrap();
    for (key, value) in set {
        match key.split_once('.') {
            Some((table, k)) => {
                doc[table][k] = value.clone();
            }
            None => doc[*key] = value.clone(),
        }
    }
    doc.to_string()
}

const CHAIN_3_HOPS: &str = r#"{"duration_s": 3, "routing": {"protocol": "dsr"},
    "topology": {"kind": "chain", "nodes": 4, "spacing_m": 200},
    "flows": [{"src": 0, "dst": 3, "rate_kbps": 20, "packet_bytes": 512, "start_s": 1.0, "stop_s": 1.5}]}"#;

#[test]
fn discovery_floods_a_request_the_target_answers_and_data_carries_its_route() {
    let scenario = Scenario::from_json(CHAIN_3_HOPS).unwrap();
    let mut w = World::build(&scenario, 1).unwrap();
    w.enable_trace();
    w.run_until(SimTime::from_secs_f64(3.0));
    let msgs: Vec<(u32, &str, i64)> = w
        .trace
        .as_ref()
        .unwrap()
        .iter()
        .filter(|e| e.what == TraceWhat::Tx && e.kind == FrameKind::Data && e.routing.is_some())
        .map(|e| (e.node.0, e.routing.unwrap(), if e.to.0 == u32::MAX { -1 } else { e.to.0 as i64 }))
        .collect();
    // 8.2.1: a non-propagating request (node 1 has no route: silence), 30 ms
    // later a propagating one that 1 and 2 rebroadcast; 3 answers back
    // along the recorded route, unicast.
    assert_eq!(
        msgs,
        vec![(0, "rreq", -1), (0, "rreq", -1), (1, "rreq", -1), (2, "rreq", -1), (3, "rrep", 2), (2, "rrep", 1), (1, "rrep", 0)]
    );
    let r = w.report(0.0, Default::default());
    conserved(&r);
    assert_eq!(r.flows[0].delivered, r.flows[0].sent, "{:?}", r.flows[0]);
    assert_eq!(r.routing.requests_originated, 2);
    assert_eq!(r.routing.discoveries_succeeded, 1);
}

#[test]
fn data_packets_pay_for_their_source_route_on_the_air() {
    // The same CBR flow over the same 3-hop chain: DSR's DATA frames carry
    // 4 bytes per address of the route (4 addresses: 16 bytes) more.
    let static_json = CHAIN_3_HOPS.replace(r#""protocol": "dsr""#, r#""protocol": "static""#);
    let airtime = |json: &str| {
        let r = simulate(json, Some(1), RunOptions::default()).unwrap();
        r.nodes[0].frames_sent.get("data").copied().unwrap_or(0)
    };
    assert_eq!(airtime(CHAIN_3_HOPS), airtime(&static_json) + 2, "the two RREQs are DATA frames too");
    let scenario = Scenario::from_json(CHAIN_3_HOPS).unwrap();
    let mut w = World::build(&scenario, 1).unwrap();
    w.run_until(SimTime::from_secs_f64(1.3));
    let held: Vec<u32> = w.nodes[1].mac.queued().map(|q| q.packet.header_bytes).collect();
    assert!(held.iter().all(|&b| b == 28 + 16), "{held:?}");
}

/// Seed 000's sparse 48-node network (1500 x 3000 m, random waypoint up to
/// 20 m/s) with DSR and TCP flows.
fn mobile_48(duration_s: f64) -> String {
    let flows: Vec<String> =
        (0..10).map(|i| format!(r#"{{"src": {}, "dst": {}, "transport": "tcp", "app": "bulk"}}"#, 2 * i, 2 * i + 1)).collect();
    format!(
        r#"{{"duration_s": {duration_s}, "warmup_s": 5, "routing": {{"protocol": "dsr"}},
            "radio": {{"tx_range_m": 250, "cs_range_m": 500}},
            "mobility": {{"model": "random_waypoint", "min_speed_mps": 1, "max_speed_mps": 20, "pause_s": 0}},
            "topology": {{"kind": "random", "nodes": 48, "width_m": 1500, "height_m": 3000}},
            "flows": [{}]}}"#,
        flows.join(", ")
    )
}

#[test]
fn twenty_seeds_of_a_moving_48_node_network_conserve_every_packet() {
    let json = mobile_48(40.0);
    let seeds: Vec<u64> = (1..=20).collect();
    let results: Vec<RunReport> = std::thread::scope(|s| {
        let workers: Vec<_> = seeds
            .chunks(10)
            .map(|chunk| {
                let json = &json;
                s.spawn(move || chunk.iter().map(|&seed| simulate(json, Some(seed), RunOptions::default()).unwrap()).collect::<Vec<_>>())
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    let (mut salvaged, mut breaks, mut errors, mut delivered) = (0, 0, 0, 0);
    for r in &results {
        conserved(r);
        let dsr = &r.routing.protocol_counters["dsr"];
        salvaged += dsr["salvaged_packets"].as_u64().expect("DSR's figures");
        errors += dsr["route_errors_received"].as_u64().unwrap();
        breaks += r.routing.link_breaks;
        delivered += r.flows.iter().map(|f| f.delivered).sum::<u64>();
    }
    println!("48 nodes, 20 seeds x 40 s: {breaks} link breaks, {salvaged} packets salvaged, {errors} route errors, {delivered} delivered");
    assert!(breaks > 0 && salvaged > 0 && errors > 0 && delivered > 0);
}

#[test]
fn same_seed_same_bytes() {
    let strip = |s: String| -> String {
        let mut v: serde_json::Value = serde_json::from_str(&s).unwrap();
        v.as_object_mut().unwrap().remove("wall_seconds");
        v.to_string()
    };
    let options = RunOptions { series: true, ..Default::default() };
    let json = mobile_48(20.0);
    let a = strip(simulate_json(&json, Some(3), options.clone()).unwrap());
    let b = strip(simulate_json(&json, Some(3), options.clone()).unwrap());
    let c = strip(simulate_json(&json, Some(4), options).unwrap());
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn the_150_node_field_runs_clean_over_three_seeds() {
    // Seed 003's 150 random nodes in 2000 x 2000 m, 8 TCP flows, 100 s.
    let json = example("dsr-random-150.toml", &[]);
    for seed in 1..=3 {
        let r = simulate(&json, Some(seed), RunOptions::default()).unwrap();
        conserved(&r);
        let dsr = &r.routing.protocol_counters["dsr"];
        let count = |key: &str| dsr[key].as_u64().unwrap();
        let goodput: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
        println!("150 nodes seed {seed}: {goodput:.1} kbps in all, {} link breaks, {dsr:?}", r.routing.link_breaks);
        assert!(goodput > 0.0 && count("salvaged_packets") > 0 && count("replies_from_cache") > 0 && count("gratuitous_replies") > 0);
    }
}

fn mean_goodput(json: &str, seeds: std::ops::RangeInclusive<u64>) -> (f64, Vec<f64>) {
    let per_seed: Vec<f64> = seeds
        .map(|seed| {
            let r = simulate(json, Some(seed), RunOptions::default()).unwrap();
            conserved(&r);
            r.flows.iter().map(|f| f.goodput_kbps).sum::<f64>()
        })
        .collect();
    (per_seed.iter().sum::<f64>() / per_seed.len() as f64, per_seed)
}

#[test]
fn tcp_over_dsr_on_a_static_7_hop_chain_against_static_routing() {
    // The issue asks for DSR within 20 % of static routing. It is not: the
    // MAC's retry-limit drops of TCP data and ACKs (false link breaks, as
    // under AODV) each cost a route error and a new discovery, whose
    // broadcast requests are often lost to the flow's own traffic; a lost
    // propagating request waits RequestPeriod (0.5 s, doubling) for the
    // next cycle, or 2 s with ns-2's back-off (`preset = "ns2"`). Measured
    // (docs/dsr.md): ns-2's rules 0.50 x static (0.45 x without ns-2's
    // ARP), the RFC's 0.79 x, both
    // with the threshold receiver of this scenario (the SINR receiver gives
    // 0.69 x with ns-2's rules). This test pins those facts down, not the
    // target.
    let static_json = example("dsr-chain-7hop.toml", &[("routing.protocol", "static".into())]);
    let ns2_json = example("dsr-chain-7hop.toml", &[]);
    let rfc_json = example("dsr-chain-7hop.toml", &[("preset", "standard".into())]);
    let static_rfc_json = example("dsr-chain-7hop.toml", &[("preset", "standard".into()), ("routing.protocol", "static".into())]);
    let (fixed, _) = mean_goodput(&static_json, 1..=3);
    let (ns2, per_seed) = mean_goodput(&ns2_json, 1..=3);
    let (rfc, _) = mean_goodput(&rfc_json, 1..=3);
    let (fixed_rfc, _) = mean_goodput(&static_rfc_json, 1..=3);
    println!("7-hop chain: static {fixed:.1} kbps, DSR (ns2) {ns2:.1} {per_seed:?} = {:.2} x; standard: static {fixed_rfc:.1}, DSR {rfc:.1} = {:.2} x", ns2 / fixed, rfc / fixed_rfc);
    assert!(ns2 > 0.4 * fixed && ns2 < 0.8 * fixed, "{ns2} vs {fixed}");
    assert!(rfc > 1.2 * ns2, "the RFC's shorter back-off recovers faster: {rfc} vs {ns2}");
}

#[test]
fn afw_keeps_up_with_few_on_the_9_hop_three_flow_chain() {
    // Seed 003: flows 0 -> 9, 2 -> 8, 7 -> 1 over DSR; AFW's total goodput at
    // least 0.97 x FeW's over 5 seeds (the paper: AFW about 5 % ahead).
    let chain = |cc: &str| {
        let flow = |src: u32, dst: u32| {
            format!(r#"{{"src": {src}, "dst": {dst}, "transport": "tcp", "cc": "{cc}", "app": "bulk", "packet_bytes": 1024}}"#)
        };
        format!(
            r#"{{"preset": "ns2", "duration_s": 100, "warmup_s": 10, "routing": {{"protocol": "dsr"}},
                "radio": {{"data_rate_mbps": 2, "basic_rate_mbps": 2, "tx_range_m": 250, "cs_range_m": 500}},
                "topology": {{"kind": "chain", "nodes": 10, "spacing_m": 200}},
                "flows": [{}, {}, {}]}}"#,
            flow(0, 9),
            flow(2, 8),
            flow(7, 1)
        )
    };
    let (afw, afw_seeds) = mean_goodput(&chain("afw"), 1..=5);
    let (few, few_seeds) = mean_goodput(&chain("few"), 1..=5);
    println!("9-hop chain, 3 flows, 5 seeds: AFW {afw:.1} kbps {afw_seeds:?}, FeW {few:.1} {few_seeds:?}: {:.3} x", afw / few);
    assert!(afw >= 0.97 * few, "AFW {afw} vs FeW {few}");
}

#[test]
fn dsr_keys_are_validated_by_name() {
    let base = |routing: &str| format!(r#"{{"routing": {routing}, "topology": {{"kind": "chain", "nodes": 3, "spacing_m": 200}}}}"#);
    let err = |routing: &str| Scenario::from_json(&base(routing)).unwrap_err();
    assert_eq!(err(r#"{"protocol": "dsr", "dsr": {"send_buffer_packets": 0}}"#).key, "routing.dsr.send_buffer_packets");
    assert_eq!(err(r#"{"protocol": "dsr", "dsr": {"send_buffer_packets": 2000000}}"#).key, "routing.dsr.send_buffer_packets");
    assert_eq!(err(r#"{"protocol": "dsr", "dsr": {"discovery_hop_limit": 0}}"#).key, "routing.dsr.discovery_hop_limit");
    assert_eq!(err(r#"{"protocol": "dsr", "dsr": {"request_backoff": "linear"}}"#).key, "routing.dsr.request_backoff");
    assert_eq!(err(r#"{"protocol": "dsr", "dsr": {"flow_state": true}}"#).key, "routing.dsr.flow_state");
    assert_eq!(err(r#"{"protocol": "static", "dsr": {}}"#).key, "routing.dsr");
    assert_eq!(err(r#"{"protocol": "aodv", "dsr": {}}"#).key, "routing.dsr");
    let wired = r#"{"routing": {"protocol": "dsr"}, "topology": {"kind": "wired_cum_wireless"}}"#;
    assert_eq!(Scenario::from_json(wired).unwrap_err().key, "routing.protocol");
    let huge = r#"{"routing": {"protocol": "dsr"}, "topology": {"kind": "chain", "nodes": 70000, "spacing_m": 200}}"#;
    assert_eq!(Scenario::from_json(huge).unwrap_err().key, "routing.protocol");
    // The normalised scenario names every DSR default; the ns2 preset sets
    // ns-2's cache without timeout and its back-off.
    let s = Scenario::from_json(&base(r#"{"protocol": "dsr"}"#)).unwrap();
    let v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(v["routing"]["dsr"]["route_cache_timeout_s"], 300.0);
    assert_eq!(v["routing"]["dsr"]["request_backoff"], "doubling");
    let ns2 = format!(r#"{{"preset": "ns2", {}"#, &base(r#"{"protocol": "dsr"}"#)[1..]);
    let v: serde_json::Value = serde_json::from_str(&Scenario::from_json(&ns2).unwrap().to_json()).unwrap();
    assert_eq!(v["routing"]["dsr"]["route_cache_timeout_s"], 0.0);
    assert_eq!(v["routing"]["dsr"]["request_backoff"], "ns2");
}
