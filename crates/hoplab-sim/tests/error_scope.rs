//! `errors.scope`, frame by frame: which frames the error model takes and
//! where. `"unicast_data"` (the default) exposes DATA frames to their
//! receiver and decides as they end (the MAC sees them end, in error);
//! `"every_frame"` is ns-2's `-IncomingErrProc` (tcl/lib/ns-mobilenode.tcl:
//! 513-517, queue/errmodel.cc:173-211): every frame reaching the node, at
//! its first bit, and a lost frame never reaches the MAC.

use hoplab_sim::mac::FrameKind::{self, Cts, Data, Rts};
use hoplab_sim::scenario::Scenario;
use hoplab_sim::time::SimTime;
use hoplab_sim::world::{TraceWhat, World};

// DSSS at 2 Mbps, in ns (as tests/mac_frames.rs).
const RTS_AIR: u64 = 192_000 + 80_000;
const DATA_AIR: u64 = 192_000 + 2_272_000;
/// Propagation over 200 m.
const D200: u64 = 667;
const T0: u64 = 1_000_000_000;

/// Two (or three) nodes 200 m apart, one CBR packet from node 0 to node 1
/// at 1 s, every frame the model sees lost (`packet_error_rate` 1).
fn world(scope: &str, nodes: u32) -> World {
    let json = format!(
        r#"{{"duration_s": 2, "topology": {{"kind": "chain", "nodes": {nodes}, "spacing_m": 200}},
            "errors": {{"model": "uniform", "packet_error_rate": 1.0, "scope": "{scope}"}},
            "flows": [{{"src": 0, "dst": 1, "rate_kbps": 1, "start_s": 1.0, "stop_s": 1.5}}]}}"#
    );
    let scenario = Scenario::from_json(&json).expect("valid scenario");
    let mut w = World::build(&scenario, scenario.seed).expect("builds");
    w.enable_trace();
    w
}

/// (time, node, what, kind) of every trace entry.
fn entries(w: &World) -> Vec<(u64, u32, TraceWhat, FrameKind)> {
    w.trace.as_ref().unwrap().iter().map(|e| (e.time.as_nanos(), e.node.0, e.what, e.kind)).collect()
}

#[test]
fn unicast_data_scope_loses_only_data_as_it_ends() {
    let mut w = world("unicast_data", 2);
    w.run_until(SimTime::from_secs_f64(2.0));
    let log = entries(&w);
    let sent: Vec<FrameKind> = log.iter().filter(|e| e.2 == TraceWhat::Tx).map(|e| e.3).collect();
    // RTS, CTS and DATA get through the handshake; every DATA is lost, no
    // ACK, and the long retry limit (4) ends it.
    assert_eq!(sent, [Rts, Cts, Data].repeat(4));
    let errors: Vec<_> = log.iter().filter(|e| e.2 == TraceWhat::RxError).collect();
    assert_eq!(errors.len(), 4);
    assert!(errors.iter().all(|e| e.1 == 1 && e.3 == Data));
    // Decided at the frame's end: the first DATA's error is traced at its
    // last bit at node 1.
    let first_data = log.iter().find(|e| e.2 == TraceWhat::Tx && e.3 == Data).unwrap().0;
    assert_eq!(errors[0].0, first_data + DATA_AIR + D200);
}

#[test]
fn every_frame_scope_loses_an_rts_at_its_first_bit_before_the_mac() {
    let mut w = world("every_frame", 2);
    // In the middle of the first RTS at node 1: the error model took it at
    // its first bit, so the PHY is not locked and the medium is idle there
    // (ns-2: the frame goes to the drop target, never to Mac802_11::recv).
    w.run_until(SimTime(T0 + D200 + RTS_AIR / 2));
    assert!(!w.nodes[1].phy.is_busy(), "a lost frame must not hold the receiver");
    assert_eq!(w.nodes[1].phy.locked(), None);
    w.run_until(SimTime::from_secs_f64(2.0));
    let log = entries(&w);
    // Only RTSs: node 1's MAC never hears one, never answers; the short
    // retry limit (7) ends it.
    let sent: Vec<FrameKind> = log.iter().filter(|e| e.2 == TraceWhat::Tx).map(|e| e.3).collect();
    assert_eq!(sent, vec![Rts; 7]);
    // Each is lost at node 1 when its first bit arrives.
    let rts_at: Vec<u64> = log.iter().filter(|e| e.2 == TraceWhat::Tx).map(|e| e.0).collect();
    let lost_at: Vec<u64> = log.iter().filter(|e| e.2 == TraceWhat::RxError && e.1 == 1).map(|e| e.0).collect();
    assert_eq!(lost_at, rts_at.iter().map(|t| t + D200).collect::<Vec<_>>());
    assert!(log.iter().all(|e| e.2 != TraceWhat::RxOk));
    // Ground truth: the packet was lost to channel errors (its RTSs), not
    // to contention at the retry limit.
    let r = w.report(0.0, Default::default());
    assert_eq!(r.flows[0].losses.get("channel_error"), Some(&1), "{:?}", r.flows[0].losses);
    assert_eq!(r.flows[0].losses.get("retry_limit").copied().unwrap_or(0), 0);
}

#[test]
fn every_frame_scope_takes_frames_to_other_nodes_and_sensed_ones() {
    // Node 2 is 200 m from node 1 and 400 m from node 0 (sensed only, 550 m
    // carrier sense): node 0's RTS to node 1 is lost at node 2 as well,
    // which under unicast_data would lock onto it (overheard, then sensed).
    let mut w = world("every_frame", 3);
    w.run_until(SimTime(T0 + D200 + RTS_AIR / 2));
    assert!(!w.nodes[2].phy.is_busy(), "sensed-only frames are exposed too");
    w.run_until(SimTime::from_secs_f64(2.0));
    let lost_at_2 = entries(&w).iter().filter(|e| e.2 == TraceWhat::RxError && e.1 == 2).count();
    assert_eq!(lost_at_2, 7, "every RTS of node 0 reaches node 2 and is lost there");

    let mut w = world("unicast_data", 3);
    w.run_until(SimTime(T0 + D200 + RTS_AIR / 2));
    assert!(w.nodes[2].phy.is_busy(), "without the error model's drop node 2 follows the RTS");
}

#[test]
fn every_frame_scope_needs_the_threshold_receiver() {
    let json = r#"{"duration_s": 2, "radio": {"reception": "sinr"}, "topology": {"kind": "chain", "nodes": 2, "spacing_m": 200},
        "errors": {"model": "gilbert_elliott", "packet_error_rate": 0.03, "mean_burst_frames": 3, "scope": "every_frame"}}"#;
    let e = Scenario::from_json(json).unwrap_err();
    assert!(e.to_string().contains("errors.scope"), "{e}");
    let bad = r#"{"duration_s": 2, "topology": {"kind": "chain", "nodes": 2, "spacing_m": 200}, "errors": {"model": "uniform", "packet_error_rate": 0.1, "scope": "all"}}"#;
    let e = Scenario::from_json(bad).unwrap_err();
    assert!(e.to_string().contains("scope"), "{e}");
}
