//! Parsing and validation of scenarios: defaults, keys named in errors.

use super::*;

fn parse(text: &str) -> Result<Scenario, ConfigError> {
    Scenario::from_json(text)
}

#[test]
fn defaults_fill_in() {
    let s = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}}"#).unwrap();
    assert_eq!(s.mac.short_retry_limit, 7);
    assert_eq!(s.mac.queue_packets, 50);
    assert_eq!(s.radio.data_rate_mbps, 2.0);
    assert_eq!(s.duration_s, 100.0);
}

#[test]
fn unknown_key_is_named() {
    let e = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "mac": {"retry": 3}}"#).unwrap_err();
    assert_eq!(e.key, "mac.retry");
    assert!(e.message.starts_with("unknown key; allowed here: rts_threshold_bytes, short_retry_limit"), "{e}");
}

#[test]
fn wrong_type_is_named() {
    let e = parse(r#"{"topology": {"kind": "chain", "nodes": "three", "spacing_m": 200}}"#).unwrap_err();
    assert_eq!(e.key, "topology.nodes");
}

#[test]
fn missing_kind_key_is_named() {
    let e = parse(r#"{"topology": {"kind": "grid", "rows": 3, "spacing_m": 200}}"#).unwrap_err();
    assert_eq!(e.key, "topology.cols");
    assert!(e.message.contains("required"), "{e}");
    let e = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "rows": 2, "spacing_m": 200}}"#).unwrap_err();
    assert_eq!(e.key, "topology.rows");
}

#[test]
fn out_of_range_flow_node_is_named() {
    let e = parse(
        r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200},
            "flows": [{"src": 0, "dst": 7, "rate_kbps": 10}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.key, "flows[0].dst");
}

#[test]
fn cbr_needs_a_rate() {
    let e = parse(
        r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200},
            "flows": [{"src": 0, "dst": 2}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.key, "flows[0].rate_kbps");
}

#[test]
fn wrong_types_are_named_in_plain_words() {
    let e = parse(r#"{"topology": {"kind": "chain", "nodes": "three", "spacing_m": 200}}"#).unwrap_err();
    assert_eq!(e.to_string(), "topology.nodes: must be an integer from 0 to 4294967295, got the text \"three\"");
    let e = parse(r#"{"seed": 1.5, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}}"#).unwrap_err();
    assert_eq!(e.to_string(), "seed: must be an integer from 0 to 18446744073709551615, got 1.5");
    let e = parse(r#"{"radio": {"data_rate_mbps": "fast"}, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}}"#).unwrap_err();
    assert_eq!(e.to_string(), "radio.data_rate_mbps: must be a number, got the text \"fast\"");
}

#[test]
fn a_ranged_count_names_its_own_range_for_every_bad_value() {
    // Negative, fractional and too large: the key's range each time, not u32's for some.
    let chain = r#""topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}"#;
    for (value, got) in [("-1", "-1"), ("0", "0"), ("2.5", "2.5"), ("5000000", "5000000")] {
        let e = parse(&format!(r#"{{"mac": {{"queue_packets": {value}}}, {chain}}}"#)).unwrap_err();
        assert_eq!(e.to_string(), format!("mac.queue_packets: must be an integer from 1 to 1000000, got {got}"));
        let e = parse(&format!(r#"{{"tcp": {{"rwnd_segments": {value}}}, {chain}}}"#)).unwrap_err();
        assert_eq!(e.to_string(), format!("tcp.rwnd_segments: must be an integer from 1 to 1000000, got {got}"));
    }
}

#[test]
fn a_key_of_another_kind_names_the_kind_and_its_keys() {
    let e = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200, "rows": 2}}"#).unwrap_err();
    assert_eq!(e.key, "topology.rows");
    assert_eq!(e.message, "not used by kind = \"chain\" (its keys: nodes, spacing_m)");
    let e = parse(r#"{"topology": {"kind": "ring", "nodes": 3}}"#).unwrap_err();
    assert_eq!(e.key, "topology.kind");
    assert!(e.message.contains("allowed: chain, grid, random, explicit, wired_cum_wireless"), "{e}");
    let e = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "mobility": {"max_speed_mps": 5}}"#).unwrap_err();
    assert_eq!((e.key.as_str(), e.message.as_str()), ("mobility.max_speed_mps", "not used by model = \"static\" (it has no other keys)"));
}

#[test]
fn a_tcp_flow_gets_every_controller_parameter_and_errors_name_them() {
    let s = parse(
        r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200},
            "flows": [{"src": 0, "dst": 2, "transport": "tcp", "app": "bulk", "cc": "vegas", "cc_params": {"alpha": 3}}]}"#,
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(json["flows"][0]["cc"], "vegas");
    assert_eq!(json["flows"][0]["cc_params"]["alpha"], 3.0);
    assert_eq!(json["flows"][0]["cc_params"]["beta"], 4.0, "the defaults are filled in");
    // No controller named: NewReno, normalised in.
    let s = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "flows": [{"src": 0, "dst": 2, "transport": "tcp", "app": "bulk"}]}"#).unwrap();
    assert_eq!(s.flows[0].cc.as_ref().map(|c| c.name()), Some("newreno"));
    let e = parse(
        r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200},
            "flows": [{"src": 0, "dst": 2, "transport": "tcp", "app": "bulk", "cc": "vegas", "cc_params": {"alpha": "two"}}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "flows[0].cc_params.alpha: must be a number, got the text \"two\"");
}

#[test]
fn normalising_twice_changes_nothing() {
    let s = parse(
        r#"{"routing": {"protocol": "aodv"}, "topology": {"kind": "random", "nodes": 5, "width_m": 300, "height_m": 300},
            "mobility": {"model": "random_waypoint", "max_speed_mps": 5},
            "flows": [{"src": 0, "dst": 4, "transport": "tcp", "app": "bulk"}]}"#,
    )
    .unwrap();
    let again = parse(&s.to_json()).unwrap();
    assert_eq!(again, s);
    assert_eq!(again.to_json(), s.to_json());
}

#[test]
fn the_normalised_radio_names_its_effective_ranges_and_thresholds() {
    let chain = r#""topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}"#;
    // Defaults: ns-2's thresholds, and the ranges they give (250 m, 550 m).
    let s = parse(&format!("{{{chain}}}")).unwrap();
    assert_eq!((s.radio.rx_threshold_w, s.radio.cs_threshold_w), (Some(3.652e-10), Some(1.559e-11)));
    let (tx, cs) = (s.radio.tx_range_m.unwrap(), s.radio.cs_range_m.unwrap());
    assert!((tx - 250.0).abs() < 0.1 && (cs - 550.0).abs() < 0.2, "{tx} {cs}");
    // A range given: the threshold is the power received there (two-ray
    // ground: Pt ht^4 / d^4), and the range is kept as written.
    let s = parse(&format!(r#"{{{chain}, "radio": {{"tx_range_m": 300}}}}"#)).unwrap();
    let two_ray_300 = 0.281_838_15 * 1.5f64.powi(4) / 300f64.powi(4);
    assert!((s.radio.rx_threshold_w.unwrap() / two_ray_300 - 1.0).abs() < 1e-12);
    assert_eq!(s.radio.tx_range_m, Some(300.0));
    // The normalised form reads back as itself, both keys named.
    assert_eq!(parse(&s.to_json()).unwrap(), s);
}

#[test]
fn a_range_and_a_threshold_that_disagree_are_an_error_naming_the_range() {
    let e = parse(
        r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "radio": {"tx_range_m": 300, "rx_threshold_w": 3.652e-10}}"#,
    )
    .unwrap_err();
    assert_eq!(e.key, "radio.tx_range_m");
    assert!(e.message.contains("but rx_threshold_w is 3.652e-10 W"), "{e}");
    let e = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "radio": {"tx_range_m": 300, "cs_range_m": 280}}"#)
        .unwrap_err();
    assert_eq!(e.key, "radio.cs_range_m");
    assert!(e.message.starts_with("carrier sense must reach at least as far as decoding: 280"), "{e}");
}

const WIRED: &str = r#""topology": {"kind": "explicit", "positions": [[0, 0], [200, 0], [400, 0]], "wired_nodes": [0, 1, 2],
    "links": [{"a": 0, "b": 1, "rate_mbps": 10, "delay_ms": 1}, {"a": 1, "b": 2, "rate_mbps": 5, "delay_ms": 1, "queue": QUEUE}]}"#;

fn with_queues(queue: &str, link_queue: &str) -> Result<Scenario, ConfigError> {
    parse(&format!("{{{}, \"queue\": {queue}}}", WIRED.replace("QUEUE", link_queue)))
}

#[test]
fn queue_table_and_per_link_override_parse_with_every_default() {
    let s = with_queues(r#"{"discipline": "red", "linterm": 5}"#, r#"{"discipline": "pi", "qref_packets": 20}"#).unwrap();
    let QueueConfig::Red(red) = &s.queue else { panic!("{:?}", s.queue) };
    assert_eq!((red.linterm, red.mean_packet_bytes, red.gentle), (5.0, 500, true));
    let TopologyConfig::Explicit(e) = &s.topology else { unreachable!() };
    assert_eq!(e.links[0].queue, None, "the first link takes [queue]'s");
    assert!(matches!(&e.links[1].queue, Some(QueueConfig::Pi(pi)) if pi.qref_packets == 20.0 && pi.sampling_frequency_hz == 170.0));
    // The normalised scenario names every parameter (what `hoplab validate` prints).
    let json: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(json["queue"]["discipline"], "red");
    assert_eq!(json["queue"]["q_weight"], -1.0);
    assert_eq!(json["topology"]["links"][1]["queue"]["a"], 1.822e-5);
}

#[test]
fn drop_tail_is_left_out_of_the_normalised_scenario_so_config_hashes_stay() {
    let plain = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}}"#).unwrap();
    let explicit = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "queue": {"discipline": "drop_tail"}}"#).unwrap();
    assert!(!plain.to_json().contains("\"queue\""));
    assert_eq!(plain.config_hash(), explicit.config_hash());
    let red = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "queue": {"discipline": "red"}}"#).unwrap();
    assert_ne!(plain.config_hash(), red.config_hash());
}

#[test]
fn queue_errors_name_the_key() {
    let dt = r#"{"discipline": "drop_tail"}"#;
    let cases = [
        (r#"{"discipline": "fq_codel"}"#, dt, "queue.discipline"),
        (r#"{"discipline": "red", "phi": 2}"#, dt, "queue.phi"),
        (r#"{"discipline": "red", "linterm": "ten"}"#, dt, "queue.linterm"),
        (r#"{"discipline": "red", "q_weight": 3}"#, dt, "queue.q_weight"),
        (r#"{"discipline": "blue", "freeze_time_ms": -5}"#, dt, "queue.freeze_time_ms"),
        (dt, r#"{"discipline": "rem", "gamma": 0}"#, "topology.links[1].queue.gamma"),
        (dt, r#"{"discipline": "pi", "bogus": 1}"#, "topology.links[1].queue.bogus"),
        (dt, r#"{"discipline": "tail"}"#, "topology.links[1].queue.discipline"),
    ];
    for (queue, link_queue, key) in cases {
        let e = with_queues(queue, link_queue).unwrap_err();
        assert_eq!(e.key, key, "{queue} / {link_queue}: {e}");
    }
}

#[test]
fn ns2_arp_with_static_routes_and_a_pulled_semitcp_source_is_refused() {
    let scenario = |routing: &str, arp: &str, pull: bool| {
        format!(
            r#"{{"topology": {{"kind": "chain", "nodes": 3, "spacing_m": 200}}, "routing": {{"protocol": "{routing}"}},
                "mac": {{"arp": "{arp}"}}, "semitcp": {{"source_pull": {pull}}},
                "flows": [{{"src": 0, "dst": 2, "transport": "semitcp", "app": "bulk"}}]}}"#
        )
    };
    let e = parse(&scenario("static", "ns2", true)).unwrap_err();
    assert_eq!(e.key, "mac.arp");
    assert!(e.message.contains("semitcp.source_pull"), "{e}");
    // Each of the three alone is fine.
    parse(&scenario("aodv", "ns2", true)).unwrap();
    parse(&scenario("static", "off", true)).unwrap();
    parse(&scenario("static", "ns2", false)).unwrap();
}
