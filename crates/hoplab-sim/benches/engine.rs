//! `cargo bench -p hoplab-sim`: the engine micro-benchmark and the
//! scenario benchmarks of `hoplab bench` (the same files, from
//! `python/hoplab/data/`; `bench-mobile150` has 150 moving nodes and
//! AODV). Prints figures; asserts nothing about speed.

use hoplab_sim::api::{bench_engine, bench_scenario, BenchFigure};
use std::path::Path;

fn scenario_json(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/hoplab/data").join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let value: toml::Value = toml::from_str(&text).expect("valid TOML");
    serde_json::to_string(&value).expect("TOML converts to JSON")
}

fn print(figure: &BenchFigure) {
    println!(
        "{:<32} {:>12} events {:>8.3} s {:>8.2} M events/s {:>9.1} sim s / wall s",
        figure.name,
        figure.events,
        figure.wall_seconds,
        figure.events_per_second / 1e6,
        figure.sim_seconds_per_wall_second
    );
}

fn main() {
    // `cargo test --benches` runs this with --bench absent: keep it quick then.
    let quick = !std::env::args().any(|a| a == "--bench");
    print(&bench_engine(if quick { 100_000 } else { 10_000_000 }));
    for name in ["bench-chain15-udp", "bench-grid7x7-4flows", "bench-chain15-tcp", "bench-mobile150"] {
        let mut json = scenario_json(name);
        if quick {
            let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
            v["duration_s"] = 2.0.into();
            v["warmup_s"] = 0.5.into();
            json = v.to_string();
        }
        print(&bench_scenario(name, &json).expect("benchmark scenario runs"));
    }
}
