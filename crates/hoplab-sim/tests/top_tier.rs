//! The top tier names no protocol (issue 31): world/, stats/, estimate.rs
//! and api.rs wire the layers and build the report through the registries
//! (`net::routing::routing_protocols!`, the reception and hop-control
//! builders, `stack/` for the transports), so no AODV, DSR, SINR, TCP-RA or
//! semi-TCP type, function or report key appears in their code. Comments
//! may name them (they say why, citing the protocol).

use std::path::{Path, PathBuf};

/// What the top tier must not name (lower case; a match anywhere inside
/// an identifier or a string literal counts): the protocols, and the
/// semi-TCP pieces whose names do not say "semi-TCP" (its rate control,
/// its marked RTS / CTS, its sink's held ACKs).
const PROTOCOL_NAMES: &[&str] = &[
    "aodv",
    "dsr",
    "sinr",
    "tcp_ra",
    "tcpra",
    "semitcp",
    "semi_tcp",
    "matcp",
    "pacing",
    "rtsc",
    "ctsc",
    "held_acks",
    "link_failure_by_channel_error",
];

/// Known exceptions, each with its reason: (file below src/, name). None
/// is left: the profile's labels name the reception step generically, and
/// the recording keeps the hop control's counters under the keys the hop
/// control gives them (`HopStats::PER_INTERVAL`).
const EXCEPTIONS: &[(&str, &str)] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        files.extend(rust_files(&entry.unwrap().path()).into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")));
    }
    files
}

/// The source without its comments (`//` to the end of the line, `/* */`),
/// string literals kept.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The protocol names a source text's code (comments aside) holds.
fn protocol_names(text: &str) -> Vec<&'static str> {
    let code = without_comments(text).to_lowercase();
    PROTOCOL_NAMES.iter().copied().filter(|name| code.contains(name)).collect()
}

#[test]
fn the_top_tier_names_no_protocol() {
    let mut found = Vec::new();
    for part in ["world", "stats", "estimate.rs", "api.rs"] {
        for file in rust_files(&src().join(part)) {
            let relative = file.strip_prefix(src()).unwrap().display().to_string();
            for name in protocol_names(&std::fs::read_to_string(&file).unwrap()) {
                if !EXCEPTIONS.contains(&(relative.as_str(), name)) {
                    found.push(format!("{relative}: {name}"));
                }
            }
        }
    }
    assert!(found.is_empty(), "the top tier names protocols:\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_names_in_code_and_not_in_comments() {
    assert_eq!(protocol_names("let x = AodvNode::new(); // DSR"), ["aodv"]);
    assert_eq!(protocol_names("section[\"rtsc_sent\"] /* SINR */"), ["rtsc"]);
    assert!(protocol_names("/// AODV and DSR\n// semi-TCP\nlet y = 1;").is_empty());
    assert_eq!(protocol_names("let s = \"// not a comment: sinr\";"), ["sinr"]);
}

/// The engine enters a routing protocol in one shape, as it enters the
/// MAC (`Mac::handle`): `Routing::handle` with one `RoutingInput` per
/// event. world/ calls none of the protocol's per-event methods (which
/// stay the protocols' internal structure); queries (`next_hop`,
/// `buffered`, `counters` ...) are accessors.
#[test]
fn the_engine_enters_routing_only_through_handle() {
    const PER_EVENT: &[&str] = &[
        ".start(",
        ".route_output(",
        ".route_input(",
        ".on_delivered(",
        ".on_control(",
        ".on_heard(",
        ".on_overheard(",
        ".on_link_failure(",
        ".on_link_broken(",
        ".on_control_dropped(",
    ];
    let mut found = Vec::new();
    for file in rust_files(&src().join("world")) {
        let code = without_comments(&std::fs::read_to_string(&file).unwrap());
        for call in PER_EVENT.iter().filter(|call| code.contains(*call)) {
            found.push(format!("{}: {call}", file.strip_prefix(src()).unwrap().display()));
        }
    }
    let network = without_comments(&std::fs::read_to_string(src().join("world/network.rs")).unwrap());
    assert!(network.contains(".handle(now, input,"), "world/network.rs enters routing through handle");
    assert!(found.is_empty(), "world/ calls routing's per-event methods:\n{}", found.join("\n"));
}
