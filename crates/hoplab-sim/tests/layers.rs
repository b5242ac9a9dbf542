//! The modules' imports go downward only (docs/architecture.md, "The
//! layers"): each module's source names no module above it, and no two
//! modules name each other, however indirectly. Modules, bottom up:
//! time, config, loss, wire, engine, mobility (positions over time), phy,
//! queue, mac and link (the interfaces), net (routing), transport, app;
//! trace (packet traces: wire formats to pcap bytes, beside the stack);
//! then the top tier, which wires them: scenario (the validated
//! configuration), topology (placement), error (the entry points' error),
//! stats (the report's types and counters), stack (each flow's transport
//! and application, each node's policy toward them), world (engine and
//! wiring),
//! estimate (a run's cost before it runs), record (a run recorded for
//! `hoplab view`), api (the facade).
//!
//! Checked on the source text: every top-level module a file names, as
//! `crate::<module>`, inside a grouped import (`use crate::{a, b::C}`), or
//! through `super::` chains that climb to the crate root
//! (`super::super::x` in `src/a/b.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What each module may name (besides itself), bottom up. Every module of
/// the crate is here.
fn allowed() -> Vec<(&'static str, Vec<&'static str>)> {
    let below: &[(&str, &[&str])] = &[
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
        // Packet traces: the wire formats on the bytes of a pcap file,
        // beside the stack (the world calls the tracer; it calls no layer).
        ("trace", &["time", "config", "wire"]),
    ];
    let stack: Vec<&str> = below.iter().map(|(m, _)| *m).collect();
    // The top tier: each names the stack and the top modules below it.
    let top: &[(&str, &[&str])] = &[
        ("scenario", &[]),
        ("topology", &["scenario"]),
        ("error", &[]),
        ("stats", &["scenario"]),
        // Each flow's transport and application, each node's policy
        // toward them, over what the world offers (`stack::Host`).
        ("stack", &["scenario", "topology", "error", "stats"]),
        ("world", &["scenario", "topology", "error", "stats", "stack"]),
        ("estimate", &["scenario", "topology", "error", "stats", "stack", "world"]),
        // A run recorded for `hoplab view`: reads the world between chunks
        // of its event loop.
        ("record", &["scenario", "topology", "error", "stats", "stack", "world"]),
        ("api", &["scenario", "topology", "error", "stats", "stack", "world", "estimate", "record"]),
    ];
    let mut all: Vec<(&str, Vec<&str>)> = below.iter().map(|(m, a)| (*m, a.to_vec())).collect();
    for (module, above_stack) in top {
        let names = if *module == "error" { vec!["config", "trace"] } else { [stack.as_slice(), above_stack].concat() };
        all.push((module, names));
    }
    all
}

fn modules() -> Vec<&'static str> {
    allowed().into_iter().map(|(m, _)| m).collect()
}

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

/// A file's module path below the crate root: `src/a/b.rs` -> [a, b],
/// `src/a/mod.rs` -> [a].
fn module_path(file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src()).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

fn ident_at(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// The first segment of each item of a grouped import starting at `{`
/// (`{a, b::C, d::{E, F}}` -> a, b, d).
fn group_heads(text: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect_head = true;
    for (i, c) in text.char_indices() {
        match c {
            '{' => {
                depth += 1;
                expect_head = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => expect_head = true,
            c if expect_head && depth == 1 && (c.is_ascii_alphabetic() || c == '_') => {
                heads.push(ident_at(&text[i..]));
                expect_head = false;
            }
            _ => {}
        }
    }
    heads
}

/// The module depth added at `pos` by inline modules (`mod tests { ... }`)
/// open there: a `super` inside one climbs to the file's own module first.
fn inline_depth(text: &str, pos: usize) -> usize {
    let mut depth = 0;
    for (i, _) in text.match_indices("mod ") {
        let rest = &text[i + 4..];
        let name = ident_at(rest);
        let after = rest[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') || i >= pos {
            continue;
        }
        // The inline module's body: from its `{` to the matching `}`.
        let open = i + 4 + name.len() + (rest[name.len()..].len() - after.len());
        let mut level = 0;
        let mut close = text.len();
        for (k, c) in text[open..].char_indices() {
            match c {
                '{' => level += 1,
                '}' => {
                    level -= 1;
                    if level == 0 {
                        close = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        if pos < close {
            depth += 1;
        }
    }
    depth
}

/// The top-level modules a source text names; `path`: the file's module
/// path (for `super::`).
fn named_modules(text: &str, path: &[String]) -> Vec<String> {
    let modules = modules();
    let mut named = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        if text[..i].ends_with('$') || text[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `$crate::`, `hoplab_crate::`
        }
        let rest = &text[i + "crate::".len()..];
        if rest.starts_with('{') {
            named.extend(group_heads(rest).into_iter().map(str::to_string));
        } else {
            named.push(ident_at(rest).to_string());
        }
    }
    for (i, _) in text.match_indices("super::") {
        if text[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue; // counted from the chain's first `super`
        }
        let mut rest = &text[i..];
        let mut climbs: usize = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = r;
        }
        let climbs = climbs.saturating_sub(inline_depth(text, i));
        if climbs < path.len() {
            continue; // stays inside the file's own top-level module
        }
        if rest.starts_with('{') {
            named.extend(group_heads(rest).into_iter().map(str::to_string));
        } else {
            named.push(ident_at(rest).to_string());
        }
    }
    named.retain(|m| modules.contains(&m.as_str()));
    named
}

/// Every module's names of the other modules, from the source.
fn imports() -> BTreeMap<&'static str, BTreeMap<String, Vec<String>>> {
    let mut graph = BTreeMap::new();
    for module in modules() {
        let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for file in files_of(module) {
            let text = std::fs::read_to_string(&file).unwrap();
            for named in named_modules(&text, &module_path(&file)) {
                if named != module {
                    names.entry(named).or_default().push(file.strip_prefix(src()).unwrap().display().to_string());
                }
            }
        }
        graph.insert(module, names);
    }
    graph
}

#[test]
fn imports_only_go_downward() {
    let mut violations = Vec::new();
    for (module, names) in imports() {
        let allowed = allowed().into_iter().find(|(m, _)| *m == module).unwrap().1;
        for (named, files) in names {
            if !allowed.contains(&named.as_str()) {
                let mut files = files.clone();
                files.sort();
                files.dedup();
                violations.push(format!("{module} names crate::{named} ({})", files.join(", ")));
            }
        }
    }
    assert!(violations.is_empty(), "upward imports:\n{}", violations.join("\n"));
}

/// A cycle of modules naming each other, if any (depth-first search).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[start..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_modules_name_each_other() {
    let graph: BTreeMap<String, BTreeSet<String>> =
        imports().into_iter().map(|(m, names)| (m.to_string(), names.into_keys().collect())).collect();
    assert_eq!(find_cycle(&graph), None, "modules that name each other");
}

#[test]
fn the_check_sees_every_form_of_import() {
    let root: Vec<String> = vec!["net".into(), "aodv".into()];
    assert_eq!(named_modules("use crate::world::World;\nlet x = crate::mac::Mac::new;", &root), ["world", "mac"]);
    assert!(named_modules("use crate::worldly::X; // crate::wire_ish\nmacro! { $crate::world }", &root).is_empty());
    assert_eq!(named_modules("use crate::{stats::X, world::{A, B}, time};", &root), ["stats", "world", "time"]);
    // `super::super` from src/net/aodv.rs reaches the crate root.
    assert_eq!(named_modules("use super::super::world::World;\nuse super::routing::X;", &root), ["world"]);
    assert_eq!(named_modules("use super::super::{api, net::X};", &root), ["api", "net"]);
    // Inside an inline module, one `super` is the file's own module.
    assert!(named_modules("mod tests {\n use super::super::routing::X;\n}", &root).is_empty());
    assert_eq!(named_modules("mod tests {\n use super::super::super::stats::X;\n}", &root), ["stats"]);
}

#[test]
fn the_check_sees_a_cycle() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(find_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    assert_eq!(find_cycle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
}

#[test]
fn every_module_is_placed() {
    let modules = modules();
    for entry in std::fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" {
            continue;
        }
        assert!(modules.contains(&name.as_str()), "src/{name} is not placed in `allowed()`");
    }
    for module in &modules {
        assert!(src().join(format!("{module}.rs")).exists() || src().join(module).is_dir(), "{module}");
    }
    // Bottom up: a module names only modules placed before it.
    for (i, (module, allowed)) in allowed().into_iter().enumerate() {
        for named in allowed {
            assert!(modules[..i].contains(&named), "{module} may name {named}, placed above it");
        }
    }
}
