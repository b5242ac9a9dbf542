//! TCP over wired point-to-point links against known numbers: the capacity
//! of a loss-free path, Reno's sawtooth with a buffer of one
//! bandwidth-delay product, and Padhye et al.'s throughput under random loss
//! ("Modeling TCP throughput: a simple model and its empirical validation",
//! SIGCOMM 1998).

use hoplab_sim::api::{simulate, RunOptions};
use hoplab_sim::stats::report::RunReport;

/// Two wired hosts joined by one link; one NewReno bulk flow 0 -> 1.
fn two_hosts(rate_mbps: f64, delay_ms: f64, queue: u32, loss: f64, rwnd: u32, duration_s: f64, extra: &str) -> String {
    format!(
        r#"{{"duration_s": {duration_s}, "warmup_s": 10, "stats": {{"series_interval_s": 0.05}},
            "tcp": {{"rwnd_segments": {rwnd} {extra}}},
            "topology": {{"kind": "explicit", "positions": [[0, 0], [1000000, 0]], "wired_nodes": [0, 1],
                          "links": [{{"a": 0, "b": 1, "rate_mbps": {rate_mbps}, "delay_ms": {delay_ms},
                                      "queue_packets": {queue}, "loss_rate": {loss}}}]}},
            "flows": [{{"src": 0, "dst": 1, "transport": "tcp", "app": "bulk", "packet_bytes": 1000}}]}}"#
    )
}

fn run(json: &str, seed: u64) -> RunReport {
    simulate(json, Some(seed), RunOptions { series: true, ..Default::default() }).expect("runs")
}

#[test]
fn loss_free_path_runs_at_capacity_less_headers() {
    // 10 Mb/s, 20 ms each way: BDP = 10e6 * 0.04 / 8 / 1040 B = 48 packets.
    let r = run(&two_hosts(10.0, 20.0, 48, 0.0, 10_000, 60.0, ""), 1);
    let capacity_kbps = 10_000.0 * 1000.0 / 1040.0; // TCP 20 + IP 20 bytes per 1000
    let goodput = r.flows[0].goodput_kbps;
    assert!((goodput - capacity_kbps).abs() < 0.02 * capacity_kbps, "{goodput:.0} vs {capacity_kbps:.0} kbps");
}

#[test]
fn reno_sawtooth_with_a_buffer_of_one_bdp() {
    // With B = BDP (48 packets) Reno's window climbs to about BDP + B = 96,
    // loses, halves to about 48 = BDP, and the link never idles.
    let r = run(&two_hosts(10.0, 20.0, 48, 0.0, 10_000, 60.0, ""), 1);
    let cwnd: Vec<f64> =
        r.series.as_ref().unwrap().iter().filter(|s| s.metric == "cwnd_segments" && s.time_s >= 10.0).map(|s| s.value).collect();
    // Percentiles skip the brief window inflation of fast recovery.
    let mut sorted = cwnd.clone();
    sorted.sort_by(f64::total_cmp);
    let percentile = |q: f64| sorted[((sorted.len() - 1) as f64 * q) as usize];
    assert!((46.0..=56.0).contains(&percentile(0.03)), "low end {}", percentile(0.03));
    assert!((88.0..=102.0).contains(&percentile(0.95)), "high end {}", percentile(0.95));
    // Teeth: a fall from the top third to below 60 within 0.1 s; one every
    // ~3 s (48 RTTs of 40 ms to climb from 48 to 96).
    let teeth = cwnd.windows(4).filter(|w| w[3] < 60.0 && w[2] >= 60.0 && w[..3].iter().any(|&c| c > 85.0)).count();
    assert!((12..=20).contains(&teeth), "{teeth} teeth in 50 s");
    assert!(r.flows[0].fast_retransmits as usize >= teeth);
    // Every loss reaction is in the series, with the window it halved.
    let series = r.series.as_ref().unwrap();
    let before: Vec<f64> = series.iter().filter(|s| s.metric == "cwnd_before_loss").map(|s| s.value).collect();
    let after: Vec<f64> = series.iter().filter(|s| s.metric == "cwnd_after_loss").map(|s| s.value).collect();
    assert_eq!(before.len() as u64, r.flows[0].fast_retransmits + r.flows[0].timeouts);
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after).skip(before.len() / 2) {
        // Steady state, flight = cwnd: NewReno enters recovery at
        // ssthresh + 3 = FlightSize / 2 + 3.
        assert!((a - (b / 2.0 + 3.0)).abs() < 2.0, "{b} -> {a}");
    }
}

/// Padhye et al. (eq. 33): packets per second with loss rate p, round trip
/// `rtt_s`, timeout `t0_s`, b packets per ACK, window limit `w_max`.
fn padhye_pps(p: f64, rtt_s: f64, t0_s: f64, b: f64, w_max: f64) -> f64 {
    let denominator = rtt_s * (2.0 * b * p / 3.0).sqrt() + t0_s * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    (w_max / rtt_s).min(1.0 / denominator)
}

#[test]
fn newreno_under_random_loss_follows_padhye() {
    // 100 Mb/s (never the bottleneck), 50 ms each way: RTT 100 ms; an
    // RTO of max(200 ms min RTO, SRTT + 4 RTTVAR) = 200 ms; no delayed ACKs.
    for (p, duration_s) in [(0.001, 400.0), (0.005, 300.0), (0.01, 300.0), (0.02, 300.0)] {
        let r = run(&two_hosts(100.0, 50.0, 1000, p, 100_000, duration_s, ""), 3);
        let f = &r.flows[0];
        let window_s = duration_s - 10.0;
        // The model counts packets sent per second.
        let sent_pps = f.offered_kbps * 1e3 / 8.0 / 1000.0;
        let model = padhye_pps(p, 0.1, 0.2, 1.0, 1e9);
        let error = sent_pps / model - 1.0;
        println!(
            "p = {p}: model {model:.1} pkt/s, hoplab {sent_pps:.1} pkt/s ({:+.1} %), goodput {:.0} kbps, {} timeouts, {} fast retransmits in {window_s} s",
            error * 100.0, f.goodput_kbps, f.timeouts, f.fast_retransmits
        );
        assert!(error.abs() < 0.20, "p = {p}: {sent_pps:.1} vs model {model:.1} pkt/s");
    }
}

#[test]
fn conservation_and_determinism_with_tcp_over_wires_and_radio() {
    // Seed 002's layout with an 802.11 last hop: wired and wireless mixed.
    let json = r#"{"duration_s": 30, "warmup_s": 5,
        "topology": {"kind": "wired_cum_wireless", "senders": 2, "receivers": 2, "last_hop": "wifi",
                     "access_rate_mbps": 10, "bottleneck_rate_mbps": 5},
        "errors": {"model": "uniform", "packet_error_rate": 0.05},
        "flows": [{"src": 0, "dst": 4, "transport": "tcp", "app": "bulk"},
                  {"src": 1, "dst": 5, "transport": "tcp", "app": "bulk", "start_s": 2}]}"#;
    let a = run(json, 9);
    for f in &a.flows {
        assert!(f.goodput_kbps > 50.0, "{f:?}");
        let lost: u64 = f.losses.values().sum();
        assert_eq!(f.sent, f.delivered + lost + f.in_flight, "{f:?}");
        let acks_lost: u64 = f.ack_losses.values().sum();
        assert_eq!(f.acks_sent, f.acks_delivered + acks_lost + f.acks_in_flight, "{f:?}");
        assert_eq!(f.hops, 3);
    }
    let b = run(json, 9);
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.series, b.series);
}

#[test]
fn the_lossy_last_hop_of_seed_002_loses_packets_as_channel_errors() {
    let json = r#"{"duration_s": 30, "warmup_s": 5,
        "topology": {"kind": "wired_cum_wireless", "last_hop_loss_rate": 0.02},
        "flows": [{"src": 0, "dst": 3, "transport": "tcp", "app": "bulk", "packet_bytes": 1000}]}"#;
    let r = run(json, 1);
    let f = &r.flows[0];
    let lost = f.losses.get("channel_error").copied().unwrap_or(0);
    let rate = lost as f64 / f.sent as f64;
    assert!((rate - 0.02).abs() < 0.006, "loss rate {rate}");
    assert_eq!(f.losses.len(), 1, "{:?}", f.losses);
    assert_eq!(f.sent, f.delivered + lost + f.in_flight);
}

#[test]
fn a_finite_file_completes_and_reports_its_time() {
    // 1 MB over 10 Mb/s, 20 ms each way, a receiver window (100) below
    // BDP + buffer (148) so nothing is lost: about 6 RTTs of slow start to
    // reach the window plus 1000 x 0.832 ms of serialisation.
    let json = r#"{"duration_s": 20, "warmup_s": 0, "tcp": {"rwnd_segments": 100},
        "topology": {"kind": "explicit", "positions": [[0, 0], [1000000, 0]], "wired_nodes": [0, 1],
                     "links": [{"a": 0, "b": 1, "rate_mbps": 10, "delay_ms": 20, "queue_packets": 100}]},
        "flows": [{"src": 0, "dst": 1, "transport": "tcp", "app": "bulk", "packet_bytes": 1000, "file_bytes": 1000000}]}"#;
    let r = run(json, 1);
    let f = &r.flows[0];
    let done = f.completion_s.expect("the transfer completes");
    assert!(done > 0.87 && done < 1.3, "{done} s");
    assert_eq!((f.sent, f.retransmissions, f.delivered), (1000, 0, 1000));
}

#[test]
fn ns2s_header_only_first_segment_adds_a_segment_but_no_payload() {
    // `tcp.first_segment_header_only` (ns-2's SYN, tcp/tcp.cc:710-716): the
    // same 1 MB file takes 1001 segments, the first 40 bytes on the wire,
    // and delivers exactly its 10^6 payload bytes (400 kb/s over 20 s).
    let json = |rule: bool| {
        format!(
            r#"{{"duration_s": 20, "warmup_s": 0, "tcp": {{"rwnd_segments": 100, "first_segment_header_only": {rule}}},
            "topology": {{"kind": "explicit", "positions": [[0, 0], [1000000, 0]], "wired_nodes": [0, 1],
                         "links": [{{"a": 0, "b": 1, "rate_mbps": 10, "delay_ms": 20, "queue_packets": 100}}]}},
            "flows": [{{"src": 0, "dst": 1, "transport": "tcp", "app": "bulk", "packet_bytes": 1000, "file_bytes": 1000000}}]}}"#
        )
    };
    for (rule, segments) in [(false, 1000), (true, 1001)] {
        let r = run(&json(rule), 1);
        let f = &r.flows[0];
        assert_eq!((f.sent, f.retransmissions, f.delivered), (segments, 0, segments));
        assert!((f.goodput_kbps - 400.0).abs() < 1e-9, "{} kb/s", f.goodput_kbps);
        assert!(f.completion_s.is_some());
    }
    // On the wire segment 0 is its 40 header bytes: a one-segment file over
    // 0.1 Mb/s and 1 ms sends segment 0 (3.2 ms to serialise) and the data
    // segment behind it (83.2 ms), arriving after 4.2 and 87.4 ms.
    let one_segment = |rule: bool| {
        format!(
            r#"{{"duration_s": 5, "warmup_s": 0, "tcp": {{"first_segment_header_only": {rule}}},
            "topology": {{"kind": "explicit", "positions": [[0, 0], [1000000, 0]], "wired_nodes": [0, 1],
                         "links": [{{"a": 0, "b": 1, "rate_mbps": 0.1, "delay_ms": 1, "queue_packets": 10}}]}},
            "flows": [{{"src": 0, "dst": 1, "transport": "tcp", "app": "bulk", "packet_bytes": 1000, "file_bytes": 1000}}]}}"#
        )
    };
    for (rule, mean_delay_ms) in [(false, 84.2), (true, (4.2 + 87.4) / 2.0)] {
        let f = &run(&one_segment(rule), 1).flows[0];
        assert!((f.mean_delay_ms - mean_delay_ms).abs() < 1e-6, "{} ms", f.mean_delay_ms);
    }
}

#[test]
fn sack_recovers_a_slow_start_overshoot_without_a_timeout() {
    // rwnd unbounded, a 48-packet buffer: slow start overshoots the 96-packet
    // pipe and loses dozens of segments in one window. NewReno repairs one
    // hole per round trip (RFC 6582) and ends in a timeout; with SACK
    // (RFC 6675) every hole is resent within about one round trip.
    let capacity_kbps = 10_000.0 * 1000.0 / 1040.0;
    let plain = run(&two_hosts(10.0, 20.0, 48, 0.0, 10_000, 60.0, ""), 1);
    let sack = run(&two_hosts(10.0, 20.0, 48, 0.0, 10_000, 60.0, r#", "sack": true"#), 1);
    let (p, s) = (&plain.flows[0], &sack.flows[0]);
    assert!(p.timeouts >= 1, "NewReno without SACK: {} timeouts", p.timeouts);
    assert_eq!(s.timeouts, 0, "SACK recovers without the timer");
    assert!(s.retransmissions * 4 < p.retransmissions, "{} vs {} retransmissions", s.retransmissions, p.retransmissions);
    assert!(s.goodput_kbps > 0.95 * capacity_kbps, "{:.0} of {capacity_kbps:.0} kbps", s.goodput_kbps);
    // Conservation holds with the option's bytes on the ACKs.
    assert_eq!(s.sent, s.delivered + s.losses.values().sum::<u64>() + s.in_flight);
}
