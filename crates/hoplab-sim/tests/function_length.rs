//! No function of the crate's source is longer than 100 lines (the
//! project's standard; tests apart: `#[cfg(test)]` modules and the test
//! folders and files). Counted on the source text: from the line that
//! opens `fn` to the line that closes its body.

use std::path::{Path, PathBuf};

const MAX_FUNCTION_LINES: usize = 100;

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" && name != "node_tests" {
                files.extend(rust_files(&path));
            }
        } else if name.ends_with(".rs") && !["tests.rs", "test_sender.rs", "test_support.rs"].contains(&name.as_str()) {
            files.push(path);
        }
    }
    files
}

/// Whether a line opens a function (`fn name`, with any visibility and
/// qualifiers before it).
fn opens_function(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().take_while(|w| !w.starts_with("fn")).collect();
    let qualifiers = ["pub", "pub(crate)", "pub(super)", "const", "async", "unsafe", "extern", "default"];
    line.split_whitespace().any(|w| w == "fn") && words.iter().all(|w| qualifiers.contains(w))
}

/// Functions longer than `limit` lines: (name line, lines).
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    // Test modules end the source (`#[cfg(test)] mod ...`).
    let end = (0..lines.len())
        .find(|&i| lines[i].trim() == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|l| l.trim_start().starts_with("mod ")))
        .unwrap_or(lines.len());
    let mut long = Vec::new();
    let mut i = 0;
    while i < end {
        if !opens_function(lines[i]) {
            i += 1;
            continue;
        }
        let (mut depth, mut opened, mut j) = (0i32, false, i);
        while j < end {
            for c in lines[j].chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if (opened && depth == 0) || (!opened && lines[j].trim_end().ends_with(';')) {
                break;
            }
            j += 1;
        }
        if j - i + 1 > limit {
            long.push((lines[i].trim().to_string(), j - i + 1));
        }
        i = j + 1;
    }
    long
}

#[test]
fn no_function_is_longer_than_100_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in rust_files(&src) {
        for (name, lines) in long_functions(&std::fs::read_to_string(&file).unwrap(), MAX_FUNCTION_LINES) {
            found.push(format!("{}: {name} ({lines} lines)", file.strip_prefix(&src).unwrap().display()));
        }
    }
    assert!(found.is_empty(), "functions over {MAX_FUNCTION_LINES} lines:\n{}", found.join("\n"));
}

#[test]
fn the_length_check_counts_a_function_from_its_line_to_its_closing_brace() {
    let body = "    let x = 1;\n".repeat(5);
    let text = format!("pub(crate) fn f() {{\n{body}}}\nfn g();\n");
    assert_eq!(long_functions(&text, 6), vec![("pub(crate) fn f() {".to_string(), 7)]);
    assert!(long_functions(&text, 7).is_empty());
    let tests = format!("#[cfg(test)]\nmod tests {{\nfn f() {{\n{body}}}\n}}\n");
    assert!(long_functions(&tests, 3).is_empty());
}
