//! Random waypoint mobility seen from the world: trajectories piecewise
//! linear inside the area with bounded speeds and the pauses kept, the
//! channel's neighbour lists equal to a brute-force recomputation at any
//! instant, static scenarios untouched, the speed-decay problem and the
//! steady-state start, and the scenario keys.

use hoplab_sim::api::{simulate, RunOptions};
use hoplab_sim::engine::{RngStreams, StreamPurpose};
use hoplab_sim::net::NodeId;
use hoplab_sim::scenario::Scenario;
use hoplab_sim::time::SimTime;
use hoplab_sim::world::World;

fn world(json: &str) -> World {
    let scenario = Scenario::from_json(json).expect("valid scenario");
    World::build(&scenario, scenario.seed).expect("builds")
}

fn moving(nodes: u32, side_m: f64, extra: &str) -> String {
    format!(
        r#"{{"duration_s": 100, "routing": {{"protocol": "aodv"}},
            "mobility": {{"model": "random_waypoint", {extra}}},
            "topology": {{"kind": "random", "nodes": {nodes}, "width_m": {side_m}, "height_m": {side_m}}}}}"#
    )
}

#[test]
fn trajectories_are_piecewise_linear_inside_the_area_with_speeds_and_pauses_kept() {
    let mut w = world(&moving(20, 500.0, r#""min_speed_mps": 2, "max_speed_mps": 20, "pause_s": 3, "start_s": 10"#));
    let step_s = 0.1;
    let (mut legs, mut pauses) = (0, 0);
    for node in 0..20u32 {
        let id = NodeId(node);
        let initial = w.channel.position(id);
        let mut prev = w.channel.position_at(id, SimTime::ZERO);
        assert_eq!(prev, initial);
        // Displacements of the current leg; samples paused since the last leg.
        let mut leg: Vec<[f64; 2]> = Vec::new();
        let mut still = 0u32;
        for k in 1..=6000 {
            let t = SimTime::from_secs_f64(k as f64 * step_s);
            let p = w.channel.position_at(id, t);
            assert!((0.0..=500.0).contains(&p[0]) && (0.0..=500.0).contains(&p[1]), "node {node} at {p:?}");
            if t <= SimTime::from_secs_f64(10.0) {
                assert_eq!(p, initial, "nodes stand still before start_s");
            }
            let d = [p[0] - prev[0], p[1] - prev[1]];
            let dist = d[0].hypot(d[1]);
            assert!(dist <= 20.0 * step_s + 1e-6, "node {node}: {dist} m in {step_s} s");
            if dist > 0.0 {
                if still > 0 && legs > 0 && leg.is_empty() && t > SimTime::from_secs_f64(10.0 + 2.0 * step_s) {
                    // Between two legs the node waited its pause (sampling
                    // blurs it by up to two steps).
                    assert!(still as f64 * step_s >= 3.0 - 2.0 * step_s, "node {node}: paused {} s", still as f64 * step_s);
                    pauses += 1;
                }
                still = 0;
                leg.push(d);
            } else {
                still += 1;
                if !leg.is_empty() {
                    // The leg just ended: straight (one direction) and, away
                    // from its ends, at one speed within the bounds.
                    let first = leg[0];
                    let norm = first[0].hypot(first[1]);
                    for x in &leg {
                        let cos = (x[0] * first[0] + x[1] * first[1]) / (norm * x[0].hypot(x[1]));
                        assert!(cos > 1.0 - 1e-9, "node {node} turned inside a leg");
                    }
                    if leg.len() > 2 {
                        let speeds: Vec<f64> = leg[1..leg.len() - 1].iter().map(|x| x[0].hypot(x[1]) / step_s).collect();
                        for v in &speeds {
                            assert!((2.0 - 1e-6..=20.0 + 1e-6).contains(v), "node {node}: {v} m/s");
                            assert!((v - speeds[0]).abs() < 1e-6, "constant speed within a leg");
                        }
                    }
                    legs += 1;
                    leg.clear();
                }
            }
            prev = p;
        }
    }
    assert!(legs > 100 && pauses > 80, "{legs} legs, {pauses} pauses");
}

/// The neighbour list of `node` at `t` by brute force over every node.
fn brute_force(w: &mut World, node: u32, t: SimTime) -> Vec<(u32, bool, u64)> {
    let n = w.nodes.len() as u32;
    let p = w.channel.position_at(NodeId(node), t);
    let radio = w.channel.radio.clone();
    (0..n)
        .filter(|&j| j != node)
        .filter_map(|j| {
            let q = w.channel.position_at(NodeId(j), t);
            let d = (p[0] - q[0]).hypot(p[1] - q[1]);
            let power = radio.received_power_w(d);
            (power >= radio.cs_threshold_w).then(|| (j, power >= radio.rx_threshold_w, (d / 299_792_458.0 * 1e9).round() as u64))
        })
        .collect()
}

#[test]
fn neighbour_lists_equal_a_brute_force_recomputation_at_random_instants() {
    let mut w = world(&moving(150, 2000.0, r#""min_speed_mps": 1, "max_speed_mps": 20, "pause_s": 0"#));
    assert!(w.channel.is_mobile());
    let mut rng = RngStreams::new(99).stream(StreamPurpose::Traffic, 0);
    let mut instants: Vec<f64> = (0..400).map(|_| rng.uniform_f64() * 300.0).collect();
    instants.sort_by(f64::total_cmp);
    let mut compared = 0;
    for s in instants {
        let t = SimTime::from_secs_f64(s);
        for _ in 0..3 {
            let node = rng.uniform_inclusive(149);
            let fast: Vec<(u32, bool, u64)> =
                w.channel.neighbours_at(NodeId(node), t).list.iter().map(|n| (n.node.0, n.decodable, n.delay.as_nanos())).collect();
            assert_eq!(fast, brute_force(&mut w, node, t), "node {node} at {s} s");
            compared += fast.len();
        }
    }
    assert!(compared > 1000, "{compared}");
}

#[test]
fn static_scenarios_keep_their_precomputed_lists() {
    let mut w = world(r#"{"topology": {"kind": "grid", "rows": 4, "cols": 4, "spacing_m": 200}}"#);
    assert!(!w.channel.is_mobile());
    for node in 0..16 {
        let before: Vec<_> = w.channel.neighbours(NodeId(node)).to_vec();
        assert_eq!(w.channel.neighbours_at(NodeId(node), SimTime::from_secs_f64(50.0)).list, &before[..]);
        assert_eq!(w.channel.position_at(NodeId(node), SimTime::from_secs_f64(50.0)), w.channel.position(NodeId(node)));
    }
}

/// Mean speed of `nodes` nodes around `t`, from their displacement over 0.2 s
/// (the still ones included as zero).
fn mean_speed(w: &mut World, nodes: u32, t: f64) -> f64 {
    let (a, b) = (SimTime::from_secs_f64(t), SimTime::from_secs_f64(t + 0.2));
    (0..nodes)
        .map(|i| {
            let p = w.channel.position_at(NodeId(i), a);
            let q = w.channel.position_at(NodeId(i), b);
            (p[0] - q[0]).hypot(p[1] - q[1]) / 0.2
        })
        .sum::<f64>()
        / nodes as f64
}

#[test]
fn average_speed_decays_from_a_uniform_start_but_not_from_the_steady_state() {
    // Yoon, Liu & Noble 2003: speeds uniform in [1, 20] m/s average 10.5 at
    // the start, but the time average is (20 - 1) / ln 20 = 6.34 m/s, which
    // a uniform start reaches only slowly; Navidi & Camp's stationary start
    // is there from the first instant.
    let stationary = 19.0 / 20f64.ln();
    let args = r#""min_speed_mps": 1, "max_speed_mps": 20, "pause_s": 0"#;
    let mut uniform = world(&moving(400, 1000.0, args));
    let early = mean_speed(&mut uniform, 400, 1.0);
    let late = mean_speed(&mut uniform, 400, 3000.0);
    let mut steady = world(&moving(400, 1000.0, &format!(r#"{args}, "steady_state": true"#)));
    let steady_early = mean_speed(&mut steady, 400, 1.0);
    let steady_late = mean_speed(&mut steady, 400, 3000.0);
    println!("uniform start: {early:.2} -> {late:.2} m/s; steady state: {steady_early:.2} -> {steady_late:.2}; stationary {stationary:.2}");
    assert!((early - 10.5).abs() < 1.0, "{early}");
    assert!((steady_early / stationary - 1.0).abs() < 0.12, "{steady_early}");
    assert!((steady_late / stationary - 1.0).abs() < 0.12, "{steady_late}");
    assert!(late < early - 2.0, "{late} vs {early}");
}

#[test]
fn mobility_keys_are_validated_by_name() {
    let with = |mobility: &str, routing: &str| {
        format!(
            r#"{{"routing": {{"protocol": "{routing}"}}, "mobility": {mobility},
                "topology": {{"kind": "chain", "nodes": 3, "spacing_m": 200}}}}"#
        )
    };
    let err = |mobility: &str| Scenario::from_json(&with(mobility, "aodv")).unwrap_err();
    let rwp = |rest: &str| format!(r#"{{"model": "random_waypoint", "width_m": 1000, "height_m": 100{rest}}}"#);
    assert_eq!(err(&rwp("")).key, "mobility.max_speed_mps");
    assert_eq!(err(&rwp(r#", "max_speed_mps": -1"#)).key, "mobility.max_speed_mps");
    assert_eq!(err(&rwp(r#", "max_speed_mps": 5, "min_speed_mps": 6"#)).key, "mobility.min_speed_mps");
    assert_eq!(err(&rwp(r#", "max_speed_mps": 5, "pause_s": -2"#)).key, "mobility.pause_s");
    assert_eq!(err(&rwp(r#", "max_speed_mps": 5, "steady_state": true"#)).key, "mobility.min_speed_mps");
    assert_eq!(err(&rwp(r#", "max_speed_mps": 5, "speed": 3"#)).key, "mobility.speed");
    assert_eq!(err(r#"{"model": "random_waypoint", "max_speed_mps": 5}"#).key, "mobility.width_m", "a chain has no area");
    assert_eq!(err(r#"{"model": "static", "max_speed_mps": 5}"#).key, "mobility.max_speed_mps");
    assert_eq!(err(r#"{"model": "brownian"}"#).key, "mobility.model");
    // Static routes cannot follow moving nodes.
    let e = Scenario::from_json(&with(&rwp(r#", "max_speed_mps": 5"#), "static")).unwrap_err();
    assert_eq!(e.key, "routing.protocol");
    // Nodes must start inside the area (a 3-node chain spans 400 m).
    let small = with(r#"{"model": "random_waypoint", "max_speed_mps": 5, "width_m": 300, "height_m": 100}"#, "aodv");
    let e = hoplab_sim::api::validate_json(&small, None).unwrap_err();
    assert!(e.to_string().starts_with("mobility.width_m: node 2 starts at (400, 0)"), "{e}");
    // A zero minimum speed runs, with a warning in the report.
    let r = simulate(&with(&rwp(r#", "max_speed_mps": 5"#), "aodv"), None, RunOptions::default()).unwrap();
    assert_eq!(r.warnings.len(), 1);
    assert!(r.warnings[0].starts_with("mobility.min_speed_mps = 0"), "{:?}", r.warnings);
    let r = simulate(&with(&rwp(r#", "max_speed_mps": 5, "min_speed_mps": 1"#), "aodv"), None, RunOptions::default()).unwrap();
    assert!(r.warnings.is_empty());
}

#[test]
fn a_transmission_reaches_the_nodes_in_range_when_it_starts() {
    // Frames follow the positions of the moment: every frame a node
    // decoded came from a transmitter within decoding range at the time.
    let mut w = world(
        r#"{"duration_s": 60, "routing": {"protocol": "aodv"},
            "mobility": {"model": "random_waypoint", "min_speed_mps": 10, "max_speed_mps": 30, "pause_s": 0},
            "topology": {"kind": "random", "nodes": 30, "width_m": 800, "height_m": 800},
            "flows": [{"src": 0, "dst": 29, "app": "cbr", "rate_kbps": 64},
                      {"src": 4, "dst": 12, "transport": "tcp", "app": "bulk"}]}"#,
    );
    w.enable_trace();
    let tx_range = w.channel.radio.tx_range_m();
    let mut checked = 0;
    for k in 1..=600 {
        w.run_until(SimTime::from_secs_f64(k as f64 * 0.1));
        let entries: Vec<_> = w.trace.as_mut().unwrap().drain(..).collect();
        for e in entries {
            if e.what == hoplab_sim::world::TraceWhat::RxOk {
                // Positions now (within 0.1 s of the frame: at 30 m/s each
                // node moved at most 3 m).
                let p = w.channel.position_at(e.node, w.now());
                let q = w.channel.position_at(e.from, w.now());
                assert!((p[0] - q[0]).hypot(p[1] - q[1]) <= tx_range + 6.0 + 1e-6);
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
