//! Active queue management at seed 002's base station: three NewReno bulk
//! flows (senders 0, 1, 2) share the 5 Mb/s last hop from the base station
//! (node 4) to one receiver (node 5) of a `wired_cum_wireless` layout,
//! with each queue discipline on every interface (docs/queues.md).
//!
//! Measured (60 s, 50 s window, seed 1; the base station's queue to the
//! receiver: mean packets, early / overflow drops; the three flows'
//! goodput): drop-tail 28.4, 0 / 208, 4781 kbps; RED 3.4, 190 / 103, 4533;
//! REM 20.5, 75 / 158, 4704; PI (q_ref 20) 22.1, 62 / 175, 4696; BLUE 16.6,
//! 97 / 122, 4630.

use hoplab_sim::api::{simulate, RunOptions};
use hoplab_sim::stats::report::{QueueReport, RunReport};

const BASE_STATION: u32 = 4;
const RECEIVER: u32 = 5;

fn scenario(queue: &str, loss_rate: f64) -> String {
    let flow = |src: u32| format!(r#"{{"src": {src}, "dst": 5, "transport": "tcp", "app": "bulk", "packet_bytes": 1000}}"#);
    format!(
        r#"{{"duration_s": 60, "warmup_s": 10, "queue": {queue}, "tcp": {{"rwnd_segments": 1000}},
            "topology": {{"kind": "wired_cum_wireless", "senders": 3, "receivers": 1, "last_hop_loss_rate": {loss_rate}}},
            "flows": [{}, {}, {}]}}"#,
        flow(0),
        flow(1),
        flow(2)
    )
}

fn run(queue: &str, loss_rate: f64, seed: u64) -> RunReport {
    simulate(&scenario(queue, loss_rate), Some(seed), RunOptions::default()).expect("runs")
}

fn bottleneck(r: &RunReport) -> &QueueReport {
    r.queues.iter().find(|q| q.node == BASE_STATION && q.to == Some(RECEIVER)).expect("the base station's queue to the receiver")
}

const DISCIPLINES: [(&str, &str); 5] = [
    ("drop_tail", r#"{"discipline": "drop_tail"}"#),
    ("red", r#"{"discipline": "red"}"#),
    ("rem", r#"{"discipline": "rem"}"#),
    // ns-2's q_ref (50) is the queue's whole capacity: below it, PI can act.
    ("pi", r#"{"discipline": "pi", "qref_packets": 20}"#),
    ("blue", r#"{"discipline": "blue"}"#),
];

/// Every packet sent is delivered, dropped with a cause or still held, per
/// flow and direction; the queues' drop counts are the flows' `aqm_drop`
/// and `queue_overflow` losses.
fn assert_conservation(name: &str, r: &RunReport) {
    let cause = |f: &hoplab_sim::stats::report::FlowReport, c: &str| {
        f.losses.get(c).copied().unwrap_or(0) + f.ack_losses.get(c).copied().unwrap_or(0)
    };
    for f in &r.flows {
        let lost: u64 = f.losses.values().sum();
        assert_eq!(f.sent, f.delivered + lost + f.in_flight, "{name}: flow {} data", f.id);
        let acks_lost: u64 = f.ack_losses.values().sum();
        assert_eq!(f.acks_sent, f.acks_delivered + acks_lost + f.acks_in_flight, "{name}: flow {} ACKs", f.id);
    }
    let early: u64 = r.queues.iter().map(|q| q.early_drops).sum();
    let overflow: u64 = r.queues.iter().map(|q| q.overflow_drops).sum();
    assert_eq!(early, r.flows.iter().map(|f| cause(f, "aqm_drop")).sum::<u64>(), "{name}: early drops");
    assert_eq!(overflow, r.flows.iter().map(|f| cause(f, "queue_overflow")).sum::<u64>(), "{name}: overflow drops");
    let node_drops: u64 = r.nodes.iter().flat_map(|n| n.drops.values()).sum();
    let flow_losses: u64 = r.flows.iter().map(|f| f.losses.values().sum::<u64>() + f.ack_losses.values().sum::<u64>()).sum();
    assert_eq!(node_drops, flow_losses, "{name}: node drops add up to the flows' losses");
}

#[test]
fn aqm_drops_early_and_keeps_a_shorter_queue_than_drop_tail() {
    let reports: Vec<(&str, RunReport)> = DISCIPLINES.iter().map(|(name, queue)| (*name, run(queue, 0.0, 1))).collect();
    let drop_tail = bottleneck(&reports[0].1);
    assert_eq!(reports[0].1.queues.iter().map(|q| q.early_drops).sum::<u64>(), 0, "drop-tail never drops early");
    assert!(drop_tail.overflow_drops > 0, "three flows with a 1000-segment window overflow 50 packets");
    assert!(drop_tail.mean_packets > 15.0, "drop-tail's standing queue: {}", drop_tail.mean_packets);
    for (name, r) in &reports {
        assert_conservation(name, r);
        let q = bottleneck(r);
        assert_eq!(q.discipline, *name);
        // Every flow gets through, and the 5 Mb/s hop stays busy (at least 80 %).
        let total: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
        assert!(r.flows.iter().all(|f| f.goodput_kbps > 100.0) && total > 0.8 * 5000.0 * 1000.0 / 1040.0, "{name}: {total:.0} kbps");
        if *name == "drop_tail" {
            continue;
        }
        assert!(q.early_drops > 0, "{name} drops early");
        assert!(q.mean_packets < drop_tail.mean_packets, "{name}: mean queue {} vs drop-tail {}", q.mean_packets, drop_tail.mean_packets);
        // Only the congested queue drops early. (The senders' 100 Mb/s access
        // queues do overflow under AQM: a flow whose window a short queue
        // kept open sends a burst of it at once after a recovery; RED's
        // byte-mode limit there is 24 packets of 1040 bytes.)
        let early: u64 = r.queues.iter().map(|o| o.early_drops).sum();
        assert_eq!(q.early_drops, early, "{name}");
    }
    // RED holds the average between its automatic thresholds (5 and 15
    // packets of 500 bytes: 2.4 to 7.2 packets of 1040 bytes).
    let red = bottleneck(&reports[1].1);
    assert!(red.mean_packets < 7.2, "RED's mean queue {}", red.mean_packets);
    assert_eq!(red.params["min_thresh_packets"], 5.0);
}

#[test]
fn conservation_holds_with_random_loss_on_the_last_hop() {
    for (name, queue) in DISCIPLINES {
        let r = run(queue, 0.01, 2);
        assert_conservation(name, &r);
        let channel: u64 = r.flows.iter().map(|f| f.losses.get("channel_error").copied().unwrap_or(0)).sum();
        assert!(channel > 0, "{name}: the lossy hop loses packets");
    }
}

#[test]
fn the_same_seed_gives_the_same_drops_and_another_seed_other_ones() {
    for (name, queue) in &DISCIPLINES[1..] {
        let a = run(queue, 0.0, 7);
        let b = run(queue, 0.0, 7);
        assert_eq!(serde_json::to_string(&a.queues).unwrap(), serde_json::to_string(&b.queues).unwrap(), "{name}");
        assert_eq!(a.flows, b.flows, "{name}");
    }
    // RED draws from the queue's stream: a different seed, different drops.
    let (a, b) = (run(DISCIPLINES[1].1, 0.0, 1), run(DISCIPLINES[1].1, 0.0, 2));
    assert_ne!(bottleneck(&a).early_drops, bottleneck(&b).early_drops);
}

#[test]
fn pi_with_ns2_reference_at_the_capacity_is_warned_of() {
    let r = run(r#"{"discipline": "pi"}"#, 0.0, 1);
    assert!(r.warnings.iter().any(|w| w.contains("queue.qref_packets = 50")), "{:?}", r.warnings);
    assert!(run(DISCIPLINES[3].1, 0.0, 1).warnings.is_empty());
}
