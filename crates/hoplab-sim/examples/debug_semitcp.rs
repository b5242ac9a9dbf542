use hoplab_sim::scenario::Scenario;
use hoplab_sim::time::SimTime;
use hoplab_sim::world::World;
fn main() {
    let hops: u32 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(4);
    let extra = std::env::args().nth(2).unwrap_or_default();
    let cfg = format!(r#"{{"duration_s": 30, "warmup_s": 5, {extra} "radio": {{"tx_range_m": 250, "cs_range_m": 500}}, "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
          "flows": [{{"src": 0, "dst": {hops}, "transport": "semitcp", "app": "bulk"}}]}}"#, hops + 1);
    let s = Scenario::from_json(&cfg).unwrap();
    let mut w = World::build(&s, 1).unwrap();
    w.run_until(SimTime::from_secs_f64(30.0));
    let r = w.report(0.0, Default::default());
    let f = &r.flows[0];
    println!("goodput {:.1} sent {} deliv {} losses {:?} acks {} {} {:?} rtx {} to {} fr {}", f.goodput_kbps, f.sent, f.delivered, f.losses, f.acks_sent, f.acks_delivered, f.ack_losses, f.retransmissions, f.timeouts, f.fast_retransmits);
    for (n, nr) in w.nodes.iter().zip(&r.nodes) {
        println!("node {}: served {} rts_sent {} rtsc {} refused {} uncounted {} deferrals {} rts_dropped {} data_dropped {} cong {:.2} drops {:?}",
            nr.id, nr.packets_served, nr.rts_sent, n.hop.rtsc_sent, n.hop.rts_refused, n.hop.uncounted_attempts, n.hop.deferrals, nr.rts_dropped, nr.data_dropped, nr.congested_fraction, nr.drops);
    }
}
