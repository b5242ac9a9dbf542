use hoplab_sim::api::{simulate, RunOptions};
fn main() {
    let mode = std::env::args().nth(1).unwrap_or("none".into());
    let hops: u32 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(14);
    let rate = std::env::args().nth(3).unwrap_or_default(); let n0: u32 = std::env::args().nth(4).map(|s| s.parse().unwrap()).unwrap_or(10);
    let rate = if rate.is_empty() { String::new() } else { format!(r#", "rate_kbps": {rate}"#) };
    let transport = if mode == "tcp" { r#""transport": "tcp""#.to_string() } else { format!(r#""transport": "semitcp", "rate_control": "{mode}" {rate}"#) };
    let cfg = format!(r#"{{"duration_s": 100, "warmup_s": 10, "radio": {{"tx_range_m": 250, "cs_range_m": 500}}, "semitcp": {{"rate_control": {{"window_samples": {n0}}}}}, "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
          "flows": [{{"src": 0, "dst": {hops}, {transport}, "app": "bulk"}}]}}"#, hops + 1);
    let r = simulate(&cfg, Some(1), RunOptions { series: true }).unwrap();
    let f = &r.flows[0];
    println!("{mode} {hops} hops: goodput {:.1} delay {:.1} ms sent {} deliv {} losses {:?} inflight {} rtx {} to {} | acks {} {} {:?} | rate {:?} restarts {} | ev {} wall {:.3}",
        f.goodput_kbps, f.mean_delay_ms, f.sent, f.delivered, f.losses, f.in_flight, f.retransmissions, f.timeouts, f.acks_sent, f.acks_delivered, f.ack_losses, f.rate_kbps, f.rate_restarts, r.events, r.wall_seconds);
    for n in &r.nodes { print!("[{} apr {:.2} mst {:.1} q {:.2} rtsc {} r {:.2} cong {:.2} drop {:.3} ref {} def {}] ", n.id, n.rts_attempts_per_packet, n.mac_service_time_ms, n.queue_mean, n.rtsc_sent, n.rtsc_ratio, n.congested_fraction, n.rts_drop_ratio, n.rts_refused, n.hold_deferrals); }
    println!();
    if mode == "binary_search" {
        for s in r.series.unwrap().iter().filter(|s| s.entity == "flow" && (s.metric == "source_rate_kbps" || s.metric=="rate_control_step" || s.metric == "apr_estimate") && s.time_s <= 30.0) { print!("{:.0}:{}={:.2} ", s.time_s, &s.metric[..4], s.value); }
        println!();
    }
}
