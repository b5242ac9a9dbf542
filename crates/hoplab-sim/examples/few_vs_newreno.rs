//! FeW and AFW against NewReno on 802.11 chains of 4-14 hops (mean of 5
//! seeds). `cargo run --release -p hoplab-sim --example few_vs_newreno -- 1024`
//! (packet bytes), optionally with extra scenario JSON keys as a second argument.
use hoplab_sim::api::{simulate, RunOptions};
fn main() {
    let bytes: u32 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1024);
    let extra = std::env::args().nth(2).unwrap_or_default();
    for hops in [4u32, 7, 10, 14] {
        let mut line = format!("hops {hops:2}:");
        for cc in ["newreno", "few", "afw"] {
            let mut sum = 0.0;
            for seed in 1..=5 {
                let cfg = format!(
                    r#"{{"duration_s": 100, "warmup_s": 10, {extra} "radio": {{"tx_range_m": 250, "cs_range_m": 500}}, "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
                  "flows": [{{"src": 0, "dst": {hops}, "transport": "tcp", "app": "bulk", "cc": "{cc}", "packet_bytes": {bytes}}}]}}"#,
                    hops + 1
                );
                sum += simulate(&cfg, Some(seed), RunOptions::default()).unwrap().flows[0].goodput_kbps;
            }
            line += &format!("  {cc} {:.1}", sum / 5.0);
        }
        println!("{line}");
    }
}
