//! The event profile (`hoplab bench --profile-events`, src/profile.rs):
//! its counts add up, and counting changes nothing simulated.

use hoplab_sim::api::{profile_events, simulate, EventProfileReport, RunOptions};
use hoplab_sim::profile::ProfileRow;
use std::path::Path;

/// A benchmark scenario (python/hoplab/data/), shortened to `duration_s`.
fn bench_json(name: &str, duration_s: f64) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/hoplab/data").join(format!("{name}.toml"));
    let mut doc: toml::Value = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let table = doc.as_table_mut().unwrap();
    table.insert("duration_s".into(), toml::Value::Float(duration_s));
    table.insert("warmup_s".into(), toml::Value::Float(duration_s / 10.0));
    serde_json::to_string(&doc).unwrap()
}

fn row<'a>(profile: &'a EventProfileReport, kind: &str) -> Option<&'a ProfileRow> {
    profile.rows.iter().find(|r| r.kind == kind)
}

fn row_total(r: &ProfileRow) -> u64 {
    r.stale + r.no_mac_input + r.mac_unchanged + r.medium_only + r.mac_acted
}

/// The rows (kinds x outcomes) add up to every event popped, which is the
/// report's `events` (no series: no sampling events); the profiled run's
/// report is the normal run's, but its wall time.
#[test]
fn counts_add_up_and_change_nothing() {
    for (name, duration_s) in [
        ("bench-chain15-udp", 5.0),
        ("bench-chain15-tcp", 5.0),
        ("bench-chain15-tcp-sinr", 5.0),
        ("bench-grid7x7-4flows", 3.0),
        ("bench-mobile150", 3.0),
    ] {
        let json = bench_json(name, duration_s);
        let profile = profile_events(name, &json).unwrap();
        let summed: u64 = profile.rows.iter().map(row_total).sum();
        assert_eq!(summed, profile.events, "{name}: rows add up to the events popped");
        // The report's `events` leaves out the time-series sampling (one
        // event here: the first, scheduled before the series were dropped).
        let sampling = row(&profile, "time-series sample").map_or(0, row_total);
        assert_eq!(profile.events, profile.report.events + sampling, "{name}: the report's events");
        assert!(profile.frames > 1000, "{name}: {} frames", profile.frames);
        assert!(profile.mac_steps_changed <= profile.mac_steps);
        let mut normal = simulate(&json, None, RunOptions::default()).unwrap();
        let mut profiled = profile.report.clone();
        (normal.wall_seconds, profiled.wall_seconds) = (0.0, 0.0);
        assert_eq!(serde_json::to_string(&normal).unwrap(), serde_json::to_string(&profiled).unwrap(), "{name}: profiling changed the run");
    }
}

/// On the static threshold chain (200 m apart, 550 m carrier sense): every
/// frame reaches the nodes within two hops, so the arrivals are the sum
/// over nodes of frames sent x neighbours within two hops; every
/// transmission ends once (one live TxEnd per frame); the threshold
/// receiver arms no energy-carrier-sense timer. Frames still on the air at
/// the end (at most one per node) have not ended or arrived everywhere.
#[test]
fn arrivals_and_transmissions_match_the_frames_on_the_chain() {
    for name in ["bench-chain15-udp", "bench-chain15-tcp"] {
        let profile = profile_events(name, &bench_json(name, 5.0)).unwrap();
        let nodes = profile.report.nodes.len() as i64;
        let expected_arrivals: u64 = profile
            .report
            .nodes
            .iter()
            .map(|n| {
                let i = n.id as i64;
                let neighbours = (i - 2..=i + 2).filter(|&j| j != i && (0..nodes).contains(&j)).count() as u64;
                n.frames_sent.values().sum::<u64>() * neighbours
            })
            .sum();
        let arrivals: u64 = profile.rows.iter().filter(|r| r.kind.starts_with("arrival")).map(row_total).sum();
        let nodes_u = nodes as u64;
        assert!(
            arrivals <= expected_arrivals && expected_arrivals - arrivals <= 4 * nodes_u,
            "{name}: {arrivals} arrivals, {expected_arrivals} expected"
        );
        assert!(row(&profile, "arrival: receiver moved out of reach").is_none(), "{name}: static nodes");
        let tx_end = row(&profile, "phy: tx end").unwrap();
        assert_eq!(tx_end.stale, 0, "{name}: a transmission's end is never cancelled");
        let ended = row_total(tx_end);
        assert!(ended <= profile.frames && profile.frames - ended <= nodes_u, "{name}: {ended} TxEnd, {} frames", profile.frames);
        assert!(row(&profile, "phy: energy carrier sense end").is_none(), "{name}: threshold receiver");
        // Arrivals never time out: nothing of them is stale.
        assert!(profile.rows.iter().filter(|r| r.kind.starts_with("arrival")).all(|r| r.stale == 0));
    }
}

/// A frame's arrivals at its receivers, and the ends of its receptions,
/// each share one queue entry (issue 30): a normal run handles the events a
/// profiled run pops one by one (`counts_add_up_and_change_nothing`: the
/// same report), but most of them in place, without a heap entry of their
/// own. On the chain a frame reaches up to 4 receivers and up to 4 lock
/// onto it: at least half of the arrivals and rx ends are continued in
/// place; with 150 moving nodes (about 24 receivers a frame) most are.
#[test]
fn a_frames_arrivals_and_ends_share_queue_entries() {
    for (name, duration_s, at_least) in
        [("bench-chain15-udp", 5.0, 0.5), ("bench-grid7x7-4flows", 3.0, 0.7), ("bench-mobile150", 3.0, 0.85)]
    {
        let json = bench_json(name, duration_s);
        let profile = profile_events(name, &json).unwrap();
        let batched: u64 = profile
            .rows
            .iter()
            .filter(|r| r.kind.starts_with("arrival") || r.kind.starts_with("phy: rx end"))
            .map(row_total)
            .sum();
        let scenario = hoplab_sim::scenario::Scenario::from_json(&json).unwrap();
        let mut world = hoplab_sim::world::World::build(&scenario, scenario.seed).unwrap();
        world.drop_series();
        let end = world.end;
        world.run_until(end);
        assert_eq!(world.queue.popped(), profile.events, "{name}: the same events");
        let continued = world.queue.continued();
        println!("{name}: {continued} of {batched} arrivals and rx ends continued in place, {} queue entries for {} events",
            world.queue.popped() - continued, profile.events);
        assert!(continued as f64 >= at_least * batched as f64, "{name}: {continued} of {batched} continued in place");
        assert!(continued < batched, "{name}: only a frame's arrivals and ends are continued");
    }
}

/// The SINR receiver's steps of a frame (its preamble detection at each
/// receiver, the ends of its receptions) share the frame's queue entries
/// too, and that changes no reception: every frame received or lost, at
/// every node and instant (the run's frame trace), is the same as when
/// each event has its own queue entry (a profiled run puts each back).
/// Capture on and off: with it a frame can be replaced while detected.
#[test]
fn sinr_reception_steps_share_queue_entries_and_change_no_reception() {
    for (name, capture) in [("bench-chain15-udp-sinr", false), ("bench-chain15-tcp-sinr", false), ("bench-chain15-tcp-sinr", true)] {
        let mut doc: serde_json::Value = serde_json::from_str(&bench_json(name, 5.0)).unwrap();
        doc["radio"]["sinr"]["frame_capture"] = serde_json::Value::Bool(capture);
        let json = doc.to_string();
        let scenario = hoplab_sim::scenario::Scenario::from_json(&json).unwrap();
        let run = |profiled: bool| {
            let mut world = hoplab_sim::world::World::build(&scenario, scenario.seed).unwrap();
            world.drop_series();
            world.enable_trace();
            let end = world.end;
            if profiled {
                hoplab_sim::profile::run_profiled(&mut world, end);
            } else {
                world.run_until(end);
            }
            world
        };
        let (alone, batched) = (run(true), run(false));
        let trace = |w: &hoplab_sim::world::World| w.trace.clone().unwrap();
        assert!(trace(&alone).len() > 10_000, "{name}: frames traced");
        assert_eq!(trace(&alone), trace(&batched), "{name}, capture {capture}: the same receptions");
        assert_eq!(alone.queue.popped(), batched.queue.popped(), "{name}: the same events");
        assert_eq!(alone.queue.continued(), 0);
        // Per frame about 4 arrivals and 5 reception steps (docs/performance.md):
        // most of them are handled in place.
        let per_event = batched.queue.continued() as f64 / batched.queue.popped() as f64;
        println!("{name}, capture {capture}: {:.1} % of the events continued in place", 100.0 * per_event);
        assert!(per_event > 0.4, "{name}: {:.3} of the events continued in place", per_event);
    }
}

/// NAV ends that find the PHY busy never get a queue entry (`set_nav`
/// arms them deferred): on the chain some are deferred for good, and the
/// run's events are still those a profiled run, which queues every one,
/// pops one by one.
#[test]
fn nav_ends_under_a_busy_phy_need_no_queue_entry() {
    let json = bench_json("bench-chain15-udp", 5.0);
    let profile = profile_events("bench-chain15-udp", &json).unwrap();
    let scenario = hoplab_sim::scenario::Scenario::from_json(&json).unwrap();
    let mut world = hoplab_sim::world::World::build(&scenario, scenario.seed).unwrap();
    world.drop_series();
    let end = world.end;
    world.run_until(end);
    assert_eq!(world.queue.popped(), profile.events, "the same events");
    let nav_ends: u64 = profile.rows.iter().filter(|r| r.kind.starts_with("mac timer: NAV end")).map(row_total).sum();
    let deferred = world.queue.deferred();
    println!("{deferred} of {nav_ends} NAV ends without a queue entry");
    assert!(deferred > 0 && deferred < nav_ends, "{deferred} of {nav_ends}");
}
