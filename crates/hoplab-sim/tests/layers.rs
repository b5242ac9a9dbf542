//! The layers' imports go downward only (docs/architecture.md, "The layers"):
//! each layer's source names no module above it. Layers, bottom up:
//! time, config, loss, wire, engine, mobility (positions over time), phy,
//! queue, mac and link (the interfaces), net (routing), transport, app;
//! trace (packet traces: wire formats to pcap bytes, beside the stack); the
//! top (topology, scenario, world, stats, api) wires them. Checked on the
//! source text: every `crate::<module>` a layer's files name.

use std::path::{Path, PathBuf};

/// Every top-level module of the crate.
const MODULES: &[&str] = &[
    "api",
    "app",
    "config",
    "engine",
    "link",
    "loss",
    "mac",
    "mobility",
    "net",
    "phy",
    "queue",
    "scenario",
    "stats",
    "time",
    "topology",
    "trace",
    "transport",
    "wire",
    "world",
];

/// What each layer may name (besides itself).
const ALLOWED: &[(&str, &[&str])] = &[
    ("time", &[]),
    ("config", &["time"]),
    ("loss", &[]),
    ("wire", &["time"]),
    ("engine", &["time"]),
    ("mobility", &["time", "config", "engine"]),
    ("phy", &["time", "config", "wire", "engine", "mobility"]),
    ("queue", &["time", "config", "loss", "wire", "engine"]),
    ("mac", &["time", "config", "loss", "wire", "engine", "phy", "queue"]),
    ("link", &["time", "config", "loss", "wire", "engine", "queue"]),
    ("net", &["time", "config", "loss", "wire", "engine"]),
    ("transport", &["time", "config", "wire", "engine"]),
    ("app", &["time", "wire"]),
    // Packet traces: the wire formats on the bytes of a pcap file, beside
    // the stack (the world calls the tracer; it calls no layer).
    ("trace", &["time", "config", "wire"]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn files_of(module: &str) -> Vec<PathBuf> {
    let file = src().join(format!("{module}.rs"));
    if file.exists() {
        return vec![file];
    }
    let mut files = Vec::new();
    let mut dirs = vec![src().join(module)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The top-level modules a source text names as `crate::<module>`.
fn named_modules(text: &str) -> Vec<&str> {
    text.match_indices("crate::")
        .filter_map(|(i, _)| {
            let rest = &text[i + "crate::".len()..];
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            MODULES.iter().find(|m| **m == &rest[..end]).copied()
        })
        .collect()
}

#[test]
fn layer_imports_only_go_downward() {
    let mut violations = Vec::new();
    for (layer, allowed) in ALLOWED {
        for file in files_of(layer) {
            let text = std::fs::read_to_string(&file).unwrap();
            for named in named_modules(&text) {
                if named != *layer && !allowed.contains(&named) {
                    violations.push(format!("{} names crate::{named}", file.strip_prefix(src()).unwrap().display()));
                }
            }
        }
    }
    violations.sort();
    violations.dedup();
    assert!(violations.is_empty(), "upward imports:\n{}", violations.join("\n"));
}

#[test]
fn the_check_sees_an_upward_import() {
    assert_eq!(named_modules("use crate::world::World;\nlet x = crate::mac::Mac::new;"), vec!["world", "mac"]);
    assert!(named_modules("use crate::worldly::X; // crate::wire_ish").is_empty());
}

#[test]
fn every_module_is_placed() {
    for module in MODULES {
        assert!(src().join(format!("{module}.rs")).exists() || src().join(module).is_dir(), "{module}");
    }
}
