//! NewReno, plain semi-TCP and semi-TCP with Algorithm 1 on seed 000's chain
//! (goodput kbps / delay ms): static routing, mean of 3 seeds, or with
//! `aodv` first, AODV routing, FeW beside NewReno, mean of 8 seeds. The
//! other arguments: Algorithm 1 window sizes to compare, e.g.
//! `cargo run --release -p hoplab-sim --example semitcp_compare -- 10` or
//! `... -- aodv 10` (the two tables of docs/model-fidelity.md, Semi-TCP).
use hoplab_sim::api::{simulate, RunOptions};
fn run(hops: u32, flow: &str, extra: &str, seed: u64) -> (f64, f64) {
    let cfg = format!(
        r#"{{"duration_s": 100, "warmup_s": 10, {extra} "radio": {{"tx_range_m": 250, "cs_range_m": 500}}, "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
          "flows": [{{"src": 0, "dst": {hops}, {flow}, "app": "bulk"}}]}}"#,
        hops + 1
    );
    let r = simulate(&cfg, Some(seed), RunOptions::default()).unwrap();
    (r.flows[0].goodput_kbps, r.flows[0].mean_delay_ms)
}
fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let aodv = args.first().is_some_and(|a| a == "aodv");
    if aodv {
        args.remove(0);
    }
    let (routing, seeds) = if aodv { (r#""routing": {"protocol": "aodv"},"#, 8u64) } else { ("", 3) };
    let n0s: Vec<u32> = args.iter().map(|s| s.parse().expect("a window size")).collect();
    for hops in [2u32, 4, 7, 14] {
        let mut line = format!("hops {hops:2}:");
        let mut cases: Vec<(String, String, String)> = vec![("newreno".into(), r#""transport": "tcp""#.into(), routing.into())];
        if aodv {
            cases.push(("few".into(), r#""transport": "tcp", "cc": "few""#.into(), routing.into()));
        }
        cases.push(("semi".into(), r#""transport": "semitcp""#.into(), routing.into()));
        for n0 in &n0s {
            cases.push((
                format!("rc{n0}"),
                r#""transport": "semitcp", "rate_control": "binary_search""#.into(),
                format!(r#"{routing} "semitcp": {{"rate_control": {{"window_samples": {n0}}}}},"#),
            ));
        }
        for (name, flow, extra) in cases {
            let (mut g, mut d) = (0.0, 0.0);
            for seed in 1..=seeds {
                let (gg, dd) = run(hops, &flow, &extra, seed);
                g += gg;
                d += dd;
            }
            line += &format!("  {name} {:.0}/{:.0}ms", g / seeds as f64, d / seeds as f64);
        }
        println!("{line}");
    }
}
