use hoplab_sim::api::{simulate, RunOptions};
fn main() {
    let hops: u32 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(14);
    for rate in [50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 400.0, 600.0, 1000.0] {
        let cfg = format!(r#"{{"duration_s": 60, "warmup_s": 10, "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
          "flows": [{{"src": 0, "dst": {}, "app": "cbr", "rate_kbps": {rate}}}]}}"#, hops + 1, hops);
        let r = simulate(&cfg, Some(1), RunOptions::default()).unwrap();
        let f = &r.flows[0];
        println!("rate {rate:6.0} goodput {:7.1} delay {:8.1} ms losses {:?} events {} wall {:.3}s", f.goodput_kbps, f.mean_delay_ms, f.losses, r.events, r.wall_seconds);
    }
    let cfg = format!(r#"{{"duration_s": 100, "warmup_s": 10, "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
          "flows": [{{"src": 0, "dst": {}, "app": "bulk"}}]}}"#, hops + 1, hops);
    let r = simulate(&cfg, Some(1), RunOptions::default()).unwrap();
    let f = &r.flows[0];
    println!("bulk goodput {:7.1} delay {:8.1} ms losses {:?} events {} wall {:.3}s => {:.0} sim s/wall s, {:.2} M ev/s", f.goodput_kbps, f.mean_delay_ms, f.losses, r.events, r.wall_seconds, 100.0/r.wall_seconds, r.events as f64/r.wall_seconds/1e6);
    for n in &r.nodes { print!("[{} apr {:.2} mst {:.1} q {:.1}] ", n.id, n.rts_attempts_per_packet, n.mac_service_time_ms, n.queue_mean); }
    println!();
}
