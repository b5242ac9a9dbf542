//! Run a scenario file and print its report as JSON (wall_seconds zeroed,
//! so two runs of the same scenario and seed print the same bytes):
//! `cargo run --release --example run_scenario -- examples/tcp-chain-7hop.toml [seed] [--series]`.

use hoplab_sim::api::{simulate, RunOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: run_scenario SCENARIO.toml [seed] [--series]");
        std::process::exit(2);
    };
    let seed = args.iter().filter(|a| !a.starts_with("--")).nth(1).map(|s| s.parse::<u64>().expect("seed is an integer"));
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: toml::Value = toml::from_str(&text).expect("valid TOML");
    let json = serde_json::to_string(&value).expect("TOML converts to JSON");
    let options = RunOptions { series: args.iter().any(|a| a == "--series"), ..Default::default() };
    match simulate(&json, seed, options) {
        Ok(mut report) => {
            report.wall_seconds = 0.0;
            println!("{}", serde_json::to_string(&report).expect("report serialises"));
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
