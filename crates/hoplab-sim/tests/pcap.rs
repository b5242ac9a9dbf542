//! Packet traces through the API (`RunOptions::pcap`): a semi-TCP chain
//! over AODV traced, the file read back with a few lines of pcap parsing,
//! against the run report; tracing changes no result and writes the same
//! bytes twice; a failed run or an unusable path leaves nothing behind.
//! (tests/test_pcap.py reads the traces with dpkt and tshark.)

use hoplab_sim::api::{simulate, ApiError, RunOptions};
use hoplab_sim::stats::report::RunReport;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn scenario(trace: &str) -> String {
    format!(
        r#"{{"duration_s": 8, "warmup_s": 1, "radio": {{"tx_range_m": 250, "cs_range_m": 500}},
            "routing": {{"protocol": "aodv"}},
            "topology": {{"kind": "chain", "nodes": 8, "spacing_m": 200}},
            "flows": [{{"src": 0, "dst": 7, "app": "bulk", "transport": "semitcp"}}],
            "trace": {{{trace}}}}}"#
    )
}

/// A directory of this test's own, empty.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hoplab-pcap-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn traced(json: &str, path: &Path) -> Result<RunReport, ApiError> {
    simulate(json, Some(1), RunOptions { pcap: Some(path.to_path_buf()), ..Default::default() })
}

struct Record {
    time_ns: u64,
    captured: Vec<u8>,
    length: u32,
}

impl Record {
    /// The 802.11 frame (after the radiotap header).
    fn mpdu(&self) -> &[u8] {
        let radiotap = u16::from_le_bytes([self.captured[2], self.captured[3]]) as usize;
        &self.captured[radiotap..]
    }
}

fn read_pcap(path: &Path) -> Vec<Record> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes[..4], [0x4d, 0x3c, 0xb2, 0xa1], "nanosecond pcap");
    assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), 127, "radiotap + 802.11");
    let mut records = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let word = |i: usize| u32::from_le_bytes(bytes[at + i..at + i + 4].try_into().unwrap());
        let (sec, nsec, caplen, len) = (word(0), word(4), word(8) as usize, word(12));
        records.push(Record {
            time_ns: sec as u64 * 1_000_000_000 + nsec as u64,
            captured: bytes[at + 16..at + 16 + caplen].to_vec(),
            length: len,
        });
        at += 16 + caplen;
    }
    assert_eq!(at, bytes.len());
    records
}

/// Node `i`'s MAC address is 02:00 and i + 1.
fn node_of(mac: &[u8]) -> usize {
    assert_eq!(mac[..2], [2, 0]);
    u32::from_be_bytes(mac[2..6].try_into().unwrap()) as usize - 1
}

#[test]
fn the_trace_holds_every_frame_the_report_counts() {
    let dir = scratch("counts");
    let path = dir.join("run.pcap");
    let report = traced(&scenario(""), &path).expect("runs");
    let records = read_pcap(&path);
    let n = report.nodes.len();
    let (mut rts, mut rtsc, mut data) = (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
    let (mut cts, mut ctsc, mut ack) = (0u64, 0u64, 0u64);
    for (i, r) in records.iter().enumerate() {
        assert!(i == 0 || r.time_ns >= records[i - 1].time_ns, "timestamps never go backwards");
        let mpdu = r.mpdu();
        let order = mpdu[1] & 0x80 != 0;
        match mpdu[0] {
            0xb4 => {
                rts[node_of(&mpdu[10..16])] += 1;
                rtsc[node_of(&mpdu[10..16])] += order as u64;
            }
            0xc4 => {
                cts += 1;
                ctsc += order as u64;
            }
            0xd4 => ack += 1,
            0x08 => {
                data[node_of(&mpdu[10..16])] += 1;
                assert_eq!(mpdu[24..32], [0xaa, 0xaa, 3, 0, 0, 0, 8, 0], "LLC/SNAP, IPv4");
                assert_eq!(mpdu[32] >> 4, 4);
            }
            other => panic!("frame control {other:#x}"),
        }
        assert!(r.captured.len() as u32 <= r.length);
    }
    for node in &report.nodes {
        let i = node.id as usize;
        assert_eq!(rts[i], node.frames_sent["rts"], "node {i}");
        assert_eq!(rtsc[i], node.hop_control["rtsc_sent"].as_u64().unwrap(), "node {i}");
        assert_eq!(data[i], node.frames_sent["data"], "node {i}");
    }
    assert!(rtsc.iter().sum::<u64>() > 0 && ctsc > 0);
    assert_eq!(ctsc, report.nodes.iter().map(|x| x.hop_control["ctsc_sent"].as_u64().unwrap()).sum::<u64>());
    assert_eq!(cts, report.nodes.iter().map(|x| x.frames_sent["cts"]).sum::<u64>());
    assert_eq!(ack, report.nodes.iter().map(|x| x.frames_sent["ack"]).sum::<u64>());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn tracing_changes_no_result_and_writes_the_same_bytes_twice() {
    let dir = scratch("determinism");
    let json = scenario(r#""receptions": true, "nodes": [1, 4]"#);
    let mut reports = Vec::new();
    for name in ["a.pcap", "b.pcap"] {
        reports.push(traced(&json, &dir.join(name)).expect("runs"));
    }
    reports.push(simulate(&json, Some(1), RunOptions::default()).unwrap());
    for r in &mut reports {
        r.wall_seconds = 0.0;
    }
    let as_json = |r: &RunReport| serde_json::to_string(r).unwrap();
    assert_eq!(as_json(&reports[0]), as_json(&reports[2]));
    assert_eq!(as_json(&reports[1]), as_json(&reports[2]));
    assert_eq!(files_in(&dir), ["a.pcap", "a.rx1.pcap", "a.rx4.pcap", "b.pcap", "b.rx1.pcap", "b.rx4.pcap"]);
    for file in ["", ".rx1", ".rx4"] {
        let a = std::fs::read(dir.join(format!("a{file}.pcap"))).unwrap();
        assert!(a.len() > 1000);
        assert_eq!(a, std::fs::read(dir.join(format!("b{file}.pcap"))).unwrap(), "a{file}.pcap");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn failed_runs_and_bad_paths_leave_nothing_behind() {
    let dir = scratch("failures");
    let long = scenario(r#""receptions": true"#).replace(r#""duration_s": 8"#, r#""duration_s": 2000"#);
    let options = RunOptions { pcap: Some(dir.join("t.pcap")), wall_limit: Some(Duration::from_millis(30)), ..Default::default() };
    assert!(matches!(simulate(&long, Some(1), options), Err(ApiError::Simulation(_))));
    assert!(files_in(&dir).is_empty(), "{:?}", files_in(&dir));
    let missing = dir.join("missing").join("t.pcap");
    match traced(&scenario(""), &missing) {
        Err(ApiError::Output { path, errno, message }) => {
            assert_eq!(path, missing.display().to_string());
            assert_eq!(errno, Some(2), "ENOENT");
            assert!(message.contains("does not exist"), "{message}");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert!(matches!(traced(&scenario(""), &dir), Err(ApiError::Output { .. })), "a directory is no trace file");
    match traced(&scenario(r#""nodes": [8]"#), &dir.join("t.pcap")) {
        Err(ApiError::Config(e)) => assert_eq!(e.key, "trace.nodes[0]"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert!(files_in(&dir).is_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn arp_frames_go_into_the_trace_as_llc_snap_0806_and_rfc_826() {
    // mac.arp = "ns2" on the chain: every node's first packet to a
    // neighbour waits for an ARP request (broadcast) and its reply.
    let json = scenario("").replace(r#""routing""#, r#""mac": {"arp": "ns2"}, "routing""#);
    let dir = scratch("arp");
    let path = dir.join("arp.pcap");
    traced(&json, &path).unwrap();
    let (mut requests, mut replies) = (0, 0);
    for r in read_pcap(&path) {
        let mpdu = r.mpdu();
        if mpdu[0] != 0x08 || mpdu[24..32] != [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x06] {
            continue;
        }
        let arp = &mpdu[32..60];
        assert_eq!(arp[..6], [0x00, 0x01, 0x08, 0x00, 6, 4], "Ethernet, IPv4");
        assert_eq!(r.length as usize, r.captured.len(), "ARP frames are written whole");
        // The sender's hardware address is the transmitter's (address 2).
        assert_eq!(arp[8..14], mpdu[10..16]);
        match arp[7] {
            1 => {
                assert_eq!(mpdu[4..10], [0xff; 6], "a request is broadcast");
                requests += 1;
            }
            2 => {
                assert_eq!(arp[18..24], mpdu[4..10], "a reply goes to the requester");
                replies += 1;
            }
            op => panic!("ARP operation {op}"),
        }
    }
    // 8 nodes in a line: each link is resolved at least once.
    assert!(requests >= 7 && replies >= 7, "{requests} requests, {replies} replies");
    let _ = std::fs::remove_dir_all(&dir);
}
