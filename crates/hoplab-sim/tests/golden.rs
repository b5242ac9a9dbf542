//! The golden set: results that a change meant to keep them must keep, byte
//! for byte (tests/golden/cases.toml says which scenarios and why).
//!
//! For every case and seed, the run report (as JSON, without the wall-clock
//! time), a SHA-256 of its time series and a SHA-256 of every frame put on
//! the air or received (time, node, kind, addresses) are compared with the
//! files in tests/golden/. A mismatch names the first differing key of the
//! report. `HOPLAB_BLESS=1 cargo test --release --test golden` rewrites the
//! files; do that only for a change that is meant to change results, and
//! say why in its commit.

use hoplab_sim::api::RunOptions;
use hoplab_sim::scenario::Scenario;
use hoplab_sim::world::{TraceWhat, World};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

const SEEDS: [u64; 2] = [1, 2];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Set a dotted key (`flows.0.cc`) of a TOML document.
fn set_key(doc: &mut toml::Value, key: &str, value: toml::Value) {
    let mut node = doc;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        node = match node {
            toml::Value::Array(items) => {
                let index: usize = part.parse().unwrap_or_else(|_| panic!("{key}: {part} is not an index"));
                &mut items[index]
            }
            toml::Value::Table(table) => {
                if last {
                    table.insert(part.to_string(), value);
                    return;
                }
                table.entry(part.to_string()).or_insert_with(|| toml::Value::Table(Default::default()))
            }
            other => panic!("{key}: cannot descend into {other:?}"),
        };
        if last {
            *node = value;
            return;
        }
    }
}

struct Case {
    name: String,
    scenario_json: String,
}

fn cases() -> Vec<Case> {
    let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(golden_dir().join("cases.toml")).unwrap()).unwrap();
    manifest["case"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            let file = examples_dir().join(case["file"].as_str().unwrap());
            let mut doc: toml::Value = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            if let Some(set) = case.get("set").and_then(|s| s.as_table()) {
                for (key, value) in set {
                    set_key(&mut doc, key, value.clone());
                }
            }
            Case { name: case["name"].as_str().unwrap().to_string(), scenario_json: serde_json::to_string(&doc).unwrap() }
        })
        .collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The golden record of one run: the report (pretty JSON, wall time zeroed,
/// series replaced by its digest) and the digest of the frame trace.
fn record(scenario_json: &str, seed: u64) -> String {
    let scenario = Scenario::from_json(scenario_json).unwrap_or_else(|e| panic!("invalid scenario: {e}"));
    let mut world = World::build(&scenario, seed).unwrap_or_else(|e| panic!("does not build: {e}"));
    world.enable_trace();
    let end = world.end;
    world.run_until(end);
    let mut trace = String::new();
    for e in world.trace.as_ref().unwrap() {
        let what = match e.what {
            TraceWhat::Tx => "tx",
            TraceWhat::RxOk => "rx",
            TraceWhat::RxError => "rx-error",
        };
        trace.push_str(&format!(
            "{} {} {} {} {} {} {}\n",
            e.time.as_nanos(),
            e.node.0,
            what,
            e.kind.name(),
            e.from.0,
            e.to.0,
            e.routing.unwrap_or("-")
        ));
    }
    let mut report = world.report(0.0, RunOptions { series: true, ..Default::default() });
    let series = report.series.take().unwrap_or_default();
    let mut value = serde_json::to_value(&report).unwrap();
    let map = value.as_object_mut().unwrap();
    map.insert("series_rows".into(), series.len().into());
    map.insert("series_sha256".into(), sha256_hex(serde_json::to_string(&series).unwrap().as_bytes()).into());
    map.insert("trace_frames".into(), world.trace.as_ref().unwrap().len().into());
    map.insert("trace_sha256".into(), sha256_hex(trace.as_bytes()).into());
    serde_json::to_string_pretty(&value).unwrap() + "\n"
}

/// The first key path where two JSON documents differ.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                let sub = format!("{path}.{key}");
                match (x.get(key), y.get(key)) {
                    (Some(u), Some(v)) => {
                        if let Some(d) = first_difference(u, v, &sub) {
                            return Some(d);
                        }
                    }
                    (u, v) => return Some(format!("{sub}: {u:?} vs {v:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(u, v, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{path}: {} vs {} items", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
    }
}

#[test]
fn golden_set_is_unchanged() {
    let bless = std::env::var_os("HOPLAB_BLESS").is_some();
    let jobs: Vec<(String, String, u64)> =
        cases().into_iter().flat_map(|c| SEEDS.map(|seed| (c.name.clone(), c.scenario_json.clone(), seed))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((name, json, seed)) = jobs.get(i) else { break };
                let path = golden_dir().join(format!("{name}-seed{seed}.json"));
                let got = record(json, *seed);
                if bless {
                    std::fs::write(&path, &got).unwrap();
                    continue;
                }
                let want = std::fs::read_to_string(&path).unwrap_or_default();
                if got != want {
                    let a: serde_json::Value = serde_json::from_str(&want).unwrap_or_default();
                    let b: serde_json::Value = serde_json::from_str(&got).unwrap();
                    let where_ = first_difference(&a, &b, "").unwrap_or_else(|| "formatting".into());
                    failures.lock().unwrap().push(format!("{name} seed {seed}: {where_}"));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} of {} golden runs changed:\n{}", failures.len(), jobs.len(), failures.join("\n"));
}
