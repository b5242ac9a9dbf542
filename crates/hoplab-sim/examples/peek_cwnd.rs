use hoplab_sim::api::{simulate, RunOptions};
fn main() {
    let json = r#"{"duration_s": 60, "warmup_s": 10, "stats": {"series_interval_s": 0.05},
            "tcp": {"rwnd_segments": 10000},
            "topology": {"kind": "explicit", "positions": [[0, 0], [1000000, 0]], "wired_nodes": [0, 1],
                          "links": [{"a": 0, "b": 1, "rate_mbps": 10, "delay_ms": 20, "queue_packets": 48, "loss_rate": 0}]},
            "flows": [{"src": 0, "dst": 1, "transport": "tcp", "app": "bulk", "packet_bytes": 1000}]}"#;
    let r = simulate(json, Some(1), RunOptions { series: true }).unwrap();
    let mut last = 0.0;
    for s in r.series.unwrap().iter().filter(|s| s.metric == "cwnd_segments" || s.metric == "ssthresh_segments" || s.metric == "goodput_kbps") {
        if s.time_s > 10.0 && s.time_s < 40.0 && s.metric == "cwnd_segments" && (s.time_s * 20.0).round() as i64 % 2 == 0 { print!("{}:{}={:.0} ", s.time_s, &s.metric[..4], s.value); }
        last = s.value;
    }
    println!("\n{:?} {}", r.flows[0], last);
}
