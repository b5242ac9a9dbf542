//! Bounded resources (issue 19): every scenario that once aborted the
//! process ends cleanly, a run that cannot fit its memory budget says what
//! grew, and the up-front estimate counts what the run will build.

use hoplab_sim::api::{simulate, ApiError, RunOptions};
use hoplab_sim::estimate::estimate;
use hoplab_sim::scenario::Scenario;
use hoplab_sim::stats::report::RunReport;
use hoplab_sim::world::World;

/// An example scenario with `--set`-style changes, as JSON.
fn example(name: &str, changes: &[(&str, toml::Value)]) -> String {
    let path = format!("{}/../../examples/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let mut doc: toml::Value = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for (key, value) in changes {
        let mut node = &mut doc;
        let parts: Vec<&str> = key.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            node = match node {
                toml::Value::Array(items) => &mut items[part.parse::<usize>().unwrap()],
                toml::Value::Table(t) => t.entry(part.to_string()).or_insert_with(|| toml::Value::Table(Default::default())),
                _ => panic!("{key}"),
            };
        }
        node.as_table_mut().unwrap().insert(parts[parts.len() - 1].to_string(), value.clone());
    }
    serde_json::to_string(&doc).unwrap()
}

fn float(v: f64) -> toml::Value {
    toml::Value::Float(v)
}

fn int(v: i64) -> toml::Value {
    toml::Value::Integer(v)
}

fn assert_conserved(r: &RunReport) {
    for f in &r.flows {
        let lost: u64 = f.losses.values().sum();
        assert_eq!(f.sent, f.delivered + lost + f.in_flight, "flow {}: {:?}", f.id, f.losses);
    }
}

fn config_key(result: Result<RunReport, ApiError>) -> String {
    match result {
        Err(ApiError::Config(e)) => e.key,
        other => panic!("expected a scenario error, got {:?}", other.map(|r| r.sim_seconds)),
    }
}

#[test]
fn a_semitcp_reserve_larger_than_the_queue_fills_it_and_stops() {
    // Three flows from node 0, each asking for 1000 waiting packets in a
    // 50-packet queue: the source used to hand segments down forever
    // within one event (each dropped on the spot), until memory ran out.
    let flow: toml::Value = toml::from_str("src = 0\ndst = 14\ntransport = \"semitcp\"\napp = \"bulk\"\npacket_bytes = 512").unwrap();
    let json = example(
        "semitcp-chain-14hop",
        &[
            ("duration_s", float(20.0)),
            ("semitcp.reserved_packets", int(1000)),
            ("flows", toml::Value::Array(vec![flow.clone(), flow.clone(), flow])),
        ],
    );
    let r = simulate(&json, None, RunOptions::default()).expect("runs to its end");
    assert_conserved(&r);
    assert!(r.flows.iter().all(|f| f.sent > 0));
}

#[test]
fn a_request_queue_larger_than_any_need_runs_clean() {
    let json = example(
        "semitcp-mobile-48",
        &[("duration_s", float(20.0)), ("routing.aodv.request_queue_packets", int(100_000)), ("mac.queue_packets", int(1))],
    );
    let r = simulate(&json, None, RunOptions::default()).expect("runs to its end");
    assert_conserved(&r);
}

#[test]
fn buffers_and_the_clock_have_bounds_that_name_their_keys() {
    let run = |changes: &[(&str, toml::Value)]| config_key(simulate(&example("chain-udp-14hop", changes), None, RunOptions::default()));
    assert_eq!(run(&[("mac.queue_packets", int(4_294_967_295))]), "mac.queue_packets");
    assert_eq!(run(&[("duration_s", float(1e300))]), "duration_s");
    assert_eq!(run(&[("semitcp.reserved_packets", int(1_000_001))]), "semitcp.reserved_packets");
    assert_eq!(
        run(&[("routing.protocol", "aodv".into()), ("routing.aodv.request_queue_packets", int(1_000_001))]),
        "routing.aodv.request_queue_packets"
    );
    assert_eq!(run(&[("tcp.rwnd_segments", int(2_000_000))]), "tcp.rwnd_segments");
    // The largest accepted values run (a million-packet queue costs nothing
    // until it fills).
    let json = example("chain-udp-14hop", &[("duration_s", float(2.0)), ("warmup_s", float(0.0)), ("mac.queue_packets", int(1_000_000))]);
    simulate(&json, None, RunOptions::default()).expect("runs");
}

#[test]
fn series_that_cannot_fit_are_refused_before_the_run_and_cost_nothing_unasked() {
    let json =
        example("bench-chain15-udp", &[("duration_s", float(3.0)), ("warmup_s", float(0.0)), ("stats.series_interval_s", float(1e-6))]);
    let limited = |series| RunOptions { series, memory_limit: Some(2_000_000_000), ..Default::default() };
    let started = std::time::Instant::now();
    match simulate(&json, None, limited(true)) {
        Err(ApiError::Simulation(m)) => {
            assert!(m.contains("series") && m.contains("stats.series_interval_s") && m.contains("--memory-limit"), "{m}");
        }
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.events)),
    }
    assert!(started.elapsed().as_secs_f64() < 1.0, "refused before running");
    // Without its series the run keeps none, and is the same run.
    let plain = simulate(&json, None, limited(false)).expect("runs");
    let normal = example("bench-chain15-udp", &[("duration_s", float(3.0)), ("warmup_s", float(0.0))]);
    let with = simulate(&normal, None, RunOptions { series: true, ..Default::default() }).unwrap();
    assert!(!with.series.as_ref().unwrap().is_empty());
    assert_eq!(plain.events, with.events, "sampling ticks are not counted as events");
    assert_eq!(serde_json::to_string(&plain.flows).unwrap(), serde_json::to_string(&with.flows).unwrap());
}

#[test]
fn a_run_that_outgrows_its_budget_stops_naming_what_grew_at_the_same_event() {
    // One hop, CBR at 5x what the link carries, into a million-packet
    // queue: the backlog grows by ~1,500 packets a second.
    let json = r#"{"duration_s": 100, "warmup_s": 0, "topology": {"kind": "chain", "nodes": 2, "spacing_m": 200},
        "mac": {"queue_packets": 1000000},
        "flows": [{"src": 0, "dst": 1, "app": "cbr", "rate_kbps": 8000, "packet_bytes": 512}]}"#;
    let options = RunOptions { memory_limit: Some(4_000_000), ..Default::default() };
    let stop = |r: Result<RunReport, ApiError>| match r {
        Err(ApiError::Simulation(m)) => m,
        other => panic!("expected a stop, got {:?}", other.map(|r| r.events)),
    };
    let first = stop(simulate(json, None, options.clone()));
    assert!(
        first.contains("buffered packets") && first.contains("mac.queue_packets") && first.contains("memory limit of 4.0 MB"),
        "{first}"
    );
    assert_eq!(first, stop(simulate(json, None, options)), "the check counts, so it stops at the same event");
    let loose = RunOptions { memory_limit: Some(1_000_000_000), ..Default::default() };
    simulate(json, None, loose).expect("fits a larger budget");
}

#[test]
fn the_estimate_counts_the_neighbour_lists_the_channel_builds() {
    for name in ["chain-udp-14hop", "bench-grid7x7-4flows", "aodv-grid-11x7", "hidden-terminal", "manet-20-tcp", "bianchi-rtscts-n10"] {
        let scenario = Scenario::from_json(&example(name, &[])).unwrap();
        let e = estimate(&scenario, false).unwrap();
        let world = World::build(&scenario, scenario.seed).unwrap();
        assert!(e.neighbours_exact, "{name}");
        assert_eq!(e.neighbour_entries, world.channel.neighbour_entries() as u64, "{name}");
    }
}

#[test]
fn estimated_events_are_within_a_factor_of_six_of_the_examples() {
    let names = [
        "aodv-grid-11x7",
        "bench-chain15-tcp",
        "bench-chain15-udp",
        "bench-grid7x7-4flows",
        "bench-mobile150",
        "bianchi-rtscts-n10",
        "hidden-terminal",
        "manet-20-tcp",
        "semitcp-chain-14hop",
        "semitcp-mobile-48",
        "semitcp-rate-control-14hop",
        "tcp-chain-7hop",
        "tcp-ra-chain-gilbert",
        "wired-cum-wireless",
    ];
    for name in names {
        // The lossy TCP-RA chain runs its own 130 s: with ns-2's ARP (preset
        // ns2) seed 1 finds no route in its first 30 s (node 4's per-frame
        // error chain stays bad for 13 frames: the ARP reply that would
        // carry the RREP back is lost, then every RREQ at node 4).
        let duration_s = if name == "tcp-ra-chain-gilbert" { 130.0 } else { 30.0 };
        let json = example(name, &[("duration_s", float(duration_s)), ("warmup_s", float(0.0))]);
        let scenario = Scenario::from_json(&json).unwrap();
        let estimated = estimate(&scenario, false).unwrap().events as f64;
        let actual = simulate(&json, None, RunOptions::default()).unwrap().events as f64;
        let ratio = estimated / actual;
        // The estimate knows the offered load, not routing outages: where
        // routes stay broken for long stretches (the mobile semi-TCP
        // network; the lossy TCP-RA chain under ns-2's AODV repair, which
        // holds a route in repair for seconds) the run has fewer events
        // than it, and the estimate errs on the safe side.
        let above = if ["semitcp-mobile-48", "tcp-ra-chain-gilbert"].contains(&name) { 8.0 } else { 6.0 };
        assert!((1.0 / 6.0..=above).contains(&ratio), "{name}: estimated {estimated} events, ran {actual}");
    }
}

#[test]
fn a_vast_mobility_area_gets_few_large_cells() {
    // Found by the fuzzer (seed 1, case 13634): a 10^12 m wide area used to
    // ask for one grid cell per 600 m, 261 GB, and abort.
    let json = example("semitcp-mobile-48", &[("duration_s", float(5.0)), ("warmup_s", float(0.0)), ("topology.width_m", float(1e12))]);
    let r = simulate(&json, None, RunOptions::default()).expect("runs");
    assert_conserved(&r);
}

#[test]
fn motion_that_would_walk_forever_within_one_event_is_refused() {
    // Found by the fuzzer (seed 1, case 26862): nodes at 10^300 m/s walk
    // ~10^297 legs a second, all inside one event, past any wall limit.
    let fast = example("semitcp-mobile-48", &[("mobility.max_speed_mps", float(1e300))]);
    assert_eq!(config_key(simulate(&fast, None, RunOptions::default())), "mobility.max_speed_mps");
    let narrow = example("semitcp-mobile-48", &[("mobility.width_m", float(1e-9))]);
    assert_eq!(config_key(simulate(&narrow, None, RunOptions::default())), "mobility.width_m");
    let tries = example("bench-mobile150", &[("topology.nodes", int(100_000)), ("topology.max_tries", int(10_000))]);
    assert_eq!(config_key(simulate(&tries, None, RunOptions::default())), "topology.max_tries");
}
