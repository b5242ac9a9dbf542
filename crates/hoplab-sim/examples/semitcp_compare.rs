//! NewReno, plain semi-TCP and semi-TCP with Algorithm 1 on seed 000's chain
//! (goodput kbps / delay ms, mean of 3 seeds). Arguments: Algorithm 1 window
//! sizes to compare, e.g. `cargo run --release -p hoplab-sim --example semitcp_compare -- 10`.
use hoplab_sim::api::{simulate, RunOptions};
fn run(hops: u32, transport: &str, extra: &str, seed: u64) -> (f64, f64) {
    let cfg = format!(
        r#"{{"duration_s": 100, "warmup_s": 10, {extra} "radio": {{"tx_range_m": 250, "cs_range_m": 500}}, "topology": {{"kind": "chain", "nodes": {}, "spacing_m": 200}},
          "flows": [{{"src": 0, "dst": {hops}, {transport}, "app": "bulk"}}]}}"#,
        hops + 1
    );
    let r = simulate(&cfg, Some(seed), RunOptions::default()).unwrap();
    (r.flows[0].goodput_kbps, r.flows[0].mean_delay_ms)
}
fn main() {
    let n0s: Vec<u32> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    for hops in [2u32, 4, 7, 14] {
        let mut line = format!("hops {hops:2}:");
        let mut cases: Vec<(String, String, String)> = vec![
            ("newreno".into(), r#""transport": "tcp""#.into(), String::new()),
            ("semi".into(), r#""transport": "semitcp""#.into(), String::new()),
        ];
        for n0 in &n0s {
            cases.push((
                format!("rc{n0}"),
                r#""transport": "semitcp", "rate_control": "binary_search""#.into(),
                format!(r#""semitcp": {{"rate_control": {{"window_samples": {n0}}}}},"#),
            ));
        }
        for (name, t, extra) in cases {
            let (mut g, mut d) = (0.0, 0.0);
            for seed in 1..=3 {
                let (gg, dd) = run(hops, &t, &extra, seed);
                g += gg;
                d += dd;
            }
            line += &format!("  {name} {:.0}/{:.0}ms", g / 3.0, d / 3.0);
        }
        println!("{line}");
    }
}
