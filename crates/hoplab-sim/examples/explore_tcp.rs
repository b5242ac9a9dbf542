use hoplab_sim::api::{simulate, RunOptions};
fn main() {
    let cc = std::env::args().nth(1).unwrap_or("newreno".into());
    let extra = std::env::args().nth(2).unwrap_or_default();
    for hops in [1u32, 2, 3, 4, 7, 10, 14] {
        let cfg = format!(r#"{{"duration_s": 100, "warmup_s": 10, {extra} "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
          "flows": [{{"src": 0, "dst": {hops}, "transport": "tcp", "app": "bulk", "cc": "{cc}"}}]}}"#, hops + 1);
        let r = simulate(&cfg, Some(1), RunOptions::default()).unwrap();
        let f = &r.flows[0];
        let lost: u64 = f.losses.values().sum();
        let alost: u64 = f.ack_losses.values().sum();
        println!("hops {hops:2} goodput {:7.1} delay {:7.1} ms sent {} deliv {} lost {:?} inflight {} | acks {} {} {:?} {} | rtx {} to {} fr {} | cons {} {} | ev {} wall {:.3}",
          f.goodput_kbps, f.mean_delay_ms, f.sent, f.delivered, f.losses, f.in_flight, f.acks_sent, f.acks_delivered, f.ack_losses, f.acks_in_flight,
          f.retransmissions, f.timeouts, f.fast_retransmits, f.sent == f.delivered + lost + f.in_flight, f.acks_sent == f.acks_delivered + alost + f.acks_in_flight, r.events, r.wall_seconds);
    }
}
