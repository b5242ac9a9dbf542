//! Run one scenario file (TOML) for `duration_s` and print its event count:
//! `cargo run --release --example profile_run -- FILE [DURATION_S]`. For
//! profilers (callgrind, perf): one run, nothing else.
use hoplab_sim::api::{simulate, RunOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: profile_run FILE [DURATION_S]");
    let mut value: toml::Value = toml::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("TOML");
    if let Some(d) = args.next() {
        let d: f64 = d.parse().expect("a duration");
        value.as_table_mut().unwrap().insert("duration_s".into(), toml::Value::Float(d));
        value.as_table_mut().unwrap().insert("warmup_s".into(), toml::Value::Float(d / 10.0));
    }
    let json = serde_json::to_string(&value).unwrap();
    let report = simulate(&json, None, RunOptions::default()).expect("runs");
    println!("{} events, {:.3} s wall", report.events, report.wall_seconds);
}
