//! `preset`: a named set of key values applied under a scenario's own keys.
//!
//! `preset = "standard"` (the default) leaves every key at its default: the
//! standards (IEEE 802.11-2016, RFC 3561, RFC 5681/6582/6298) and the
//! papers' text. `preset = "ns2"` sets every key that has an ns-2 variant to
//! ns-2.29's behaviour, as the public semi-TCP code (GitHub
//! musicinthedark/semitcp, ns-2.29) runs it: all five seed papers were
//! simulated in ns-2. Each rule is also its own key, documented with the
//! ns-2 file and line it mirrors, so a user can take one rule without the
//! others; a key the scenario gives itself always wins over the preset.
//!
//! The preset is applied to the scenario's JSON before it is typed: a rule
//! fills its key only where the scenario does not give it (and only where
//! the key exists: AODV's keys only with `routing.protocol = "aodv"`). The
//! normalised scenario (`hoplab validate`) then shows every resolved value,
//! and re-reading it gives the same scenario.

use crate::config::ConfigError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `preset`: which simulator's behaviour the keys with a variant default to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// The standards' behaviour (and the papers' text where they specify).
    #[default]
    Standard,
    /// ns-2.29's behaviour, as the public semi-TCP code runs it: every key
    /// of the "Presets" table of the scenario reference (`NS2_RULES`).
    Ns2,
}

impl Preset {
    pub const NAMES: [&'static str; 2] = ["standard", "ns2"];

    /// The rules this preset applies.
    pub fn rules(self) -> &'static [PresetRule] {
        match self {
            Preset::Standard => &[],
            Preset::Ns2 => NS2_RULES,
        }
    }
}

/// When a rule's key exists in a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    Always,
    /// Only with `routing.protocol = "aodv"` (the `[routing.aodv]` table
    /// exists only then).
    WithAodv,
    /// Only with `routing.protocol = "dsr"`.
    WithDsr,
    /// Only with `tcp.sack = true`: ns-2's SACK agent with a window of its
    /// own is TCP-Linux (`Agent/TCP/Linux` with a `Sack1` sink, what seed
    /// 004 ran), whose rules these are; ns-2's `Agent/TCP/Newreno` has no
    /// SACK.
    WithTcpSack,
    /// Only with a frame error model (`errors.model` not `"none"`: the
    /// `[errors]` keys exist only then) and ns-2's threshold receiver
    /// (`radio.reception` not `"sinr"`).
    WithErrorModel,
    /// With `tcp.sack = true`, in every flow whose `cc` is this controller:
    /// the rule's key is `flows[].<key in the flow>`. A TCP-Linux module
    /// whose algorithm differs from the controller's default.
    WithTcpSackFlowCc(&'static str),
}

/// The prefix of a rule's key that applies to each flow.
const FLOW_KEY_PREFIX: &str = "flows[].";

/// One key the preset sets.
#[derive(Debug, Clone, Copy)]
pub struct PresetRule {
    /// The dotted key (`mac.cts_ignores_nav`).
    pub key: &'static str,
    /// Its value, as JSON.
    pub value: &'static str,
    pub applies: Applies,
    /// Where ns-2 does this: file, line and function of ns-2.29 as
    /// published in musicinthedark/semitcp.
    pub source: &'static str,
}

/// ns-2.29's behaviour, one key per rule. Line numbers are those of the
/// files in GitHub musicinthedark/semitcp (ns-2.29 with semi-TCP).
pub const NS2_RULES: &[PresetRule] = &[
    PresetRule {
        key: "routing.aodv.measured_traversal_time",
        value: "true",
        applies: Applies::WithAodv,
        source: "aodv/aodv.cc:290-306 AODV::PerHopTime, used at 1215 in AODV::sendRequest",
    },
    // AODV's constants and repair: ns-2.35's aodv/aodv.h and aodv.cc
    // (GitHub hbatmit/ns2.35; ns-2.29's are the same code, 5 lines later in
    // aodv.h and about 30 in aodv.cc).
    PresetRule {
        key: "routing.aodv.active_route_timeout_s",
        value: "10.0",
        applies: Applies::WithAodv,
        source: "aodv/aodv.h:77 ACTIVE_ROUTE_TIMEOUT 10 (set on every forward, aodv.cc:1024; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.my_route_timeout_s",
        value: "10.0",
        applies: Applies::WithAodv,
        source: "aodv/aodv.h:76 MY_ROUTE_TIMEOUT 10 (the destination's RREP lifetime, aodv.cc:765; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.ttl_start",
        value: "5",
        applies: Applies::WithAodv,
        source: "aodv/aodv.h:89 TTL_START 5 (aodv.cc:1116; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.rreq_retries",
        value: "3",
        applies: Applies::WithAodv,
        source: "aodv/aodv.h:84 RREQ_RETRIES 3 (aodv.cc:1093; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.node_traversal_time_ms",
        value: "30.0",
        applies: Applies::WithAodv,
        source: "aodv/aodv.h:94 NODE_TRAVERSAL_TIME 0.03 (PerHopTime's default, aodv.cc:262-281; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.net_diameter",
        value: "30",
        applies: Applies::WithAodv,
        source: "aodv/aodv.h:98 NETWORK_DIAMETER 30 (aodv.cc:1124; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.local_repair",
        value: "true",
        applies: Applies::WithAodv,
        source: "aodv/aodv.h:49 #define AODV_LOCAL_REPAIR (used in rt_ll_failed, aodv.cc:324-331; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.local_repair_rule",
        value: "\"ns2\"",
        applies: Applies::WithAodv,
        source: "aodv/aodv.cc:325-331 rt_ll_failed (num_forwards > rt_hops), 386-400 local_rt_repair (lrtimer delay = rt_req_timeout), 187-212 LocalRepairTimer::handle (rt_down, no RERR), 859-862 recvReply (ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.rreq_schedule",
        value: "\"ns2\"",
        applies: Applies::WithAodv,
        source: "aodv/aodv.cc:1063-1183 AODV::sendRequest (TTL 1112-1128 from rt_req_last_ttl and rt_last_hop_count, INFINITY2 for a new entry: aodv_rtable.cc:47; wait 2 x TTL x PerHopTime x max(1, rt_req_cnt) capped at MAX_RREQ_TIMEOUT 1137-1144; give-up and 10 s hold 1093-1101), retries from rt_purge every 0.5 s 179-184, 538-547 and rt_resolve 466; reset 712-720, 867-871 (ns-2.35; semi-TCP code 1131-1263, 207-212, 584-593, 506, 759-767, 914-918)",
    },
    PresetRule {
        key: "routing.aodv.requeue_own_on_break",
        value: "false",
        applies: Applies::WithAodv,
        source: "aodv/aodv.cc:333-341 rt_ll_failed (drop, ifqueue->filter(broken_nbr) dropped with DROP_RTR_MAC_CALLBACK, nb_delete; ns-2.35)",
    },
    // DSR: ns-2.35's CMU DSR (GitHub hbatmit/ns2.35; the same code in
    // ns-2.29 apart from semi-TCP's hooks, so these lines are ns-2.35's).
    PresetRule {
        key: "routing.dsr.route_cache_timeout_s",
        value: "0.0",
        applies: Applies::WithDsr,
        source: "dsr/mobicache.cc:316-369 MobiCache::addRoute / noticeRouteUsed (links are stamped, never expired; ns-2.35)",
    },
    PresetRule {
        key: "routing.dsr.request_backoff",
        value: "\"ns2\"",
        applies: Applies::WithDsr,
        source: "dsr/dsragent.cc:320-340 BackOffTest (next = 2^(2 x rt_reqs_outstanding) x rt_rq_period; ns-2.35)",
    },
    PresetRule {
        key: "routing.dsr.salvage_by_discovery",
        value: "true",
        applies: Applies::WithDsr,
        source: "dsr/dsragent.cc:89 NEW_SALVAGE_LOGIC; 2424-2438 undeliverablePkt (stickPacketInSendBuffer), 1529-1546 getRouteForPacket (dsr_salvage_max_requests = 1, 100), 1560-1561 (dsr_salvage_allow_propagating = 0, 105; ns-2.35)",
    },
    PresetRule {
        key: "routing.dsr.reply_release_spacing_ms",
        value: "30.0",
        applies: Applies::WithDsr,
        source: "dsr/dsragent.cc:1793-1798 acceptRouteReply (sendOutPacketWithRoute(..., delay); delay += arp_timeout, 30 ms at 124; ns-2.35)",
    },
    PresetRule {
        key: "routing.dsr.interface_queue",
        value: "\"cmu_pri_queue\"",
        applies: Applies::WithDsr,
        source: "queue/dsr-priqueue.cc:235-289 CMUPriQueue::prq_enqueue / prq_dequeue / prq_assign_queue (PT_ACK ahead of data, 50 per class, no push-out); DSR's interface queue is one (dsr/dsragent.h:142, dsragent.cc:574; ns-2.35)",
    },
    // TCP with SACK: ns-2.35's TCP-Linux (tcp/tcp-linux.cc, tcp/scoreboard1.cc;
    // GitHub hbatmit/ns2.35), docs/tcp-linux-parity.md.
    PresetRule {
        key: "tcp.sack_lost_retransmit",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/scoreboard1.cc:213-223 ScoreBoard1::UpdateScoreBoard (a retransmission is lost again once fack_ >= the snd_nxt of its retransmission; marked LOST, resent by tcp/tcp-linux.cc:607-674 send_much; ns-2.35)",
    },
    PresetRule {
        key: "tcp.sack_kept_after_rto",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp-linux.cc:548-551 LinuxTcpAgent::enter_loss (scb_->MarkLoss: every segment not SACKed is lost, the SACKed marks stay; ns-2.35)",
    },
    PresetRule {
        key: "tcp.rto_restart_on_every_ack",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp-linux.cc:168, 226 LinuxTcpAgent::time_processing (renew_timer: set_rtx_timer() on every ACK not below snd_una, duplicates included; ns-2.35)",
    },
    PresetRule {
        key: "tcp.sack_rate_halving",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp-linux.cc:483-507 LinuxTcpAgent::tcp_fastretrans_alert (next_pkts_in_flight_ = snd_cwnd, snd_cwnd = min_cwnd), 629, 653 send_much (the bound falls toward the flight), 460-471 and 442-446 (exit: ssthresh, tcp_moderate_cwnd to the flight + 3; ns-2.35)",
    },
    PresetRule {
        key: "tcp.ssthresh_from",
        value: "\"cwnd\"",
        applies: Applies::Always,
        source: "tcp/tcp.cc:1265, 1300-1301 TcpAgent::slowdown (ssthresh_ = window() / 2), 903-918 window() = min(cwnd_, wnd_); tcp/tcp-newreno.cc:148-152 (fast recovery's inflation is dupwnd_, not cwnd_; ns-2.35)",
    },
    PresetRule {
        key: "tcp.rtt_timing",
        value: "\"ns2\"",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp.cc:788-797 TcpAgent::output (a new highest segment is timed when none is), tcp/tcp-linux.cc:210-223 LinuxTcpAgent::time_processing (the first ACK at or beyond it ends the measurement, no Karn test), tcp/tcp.cc:983 reset_rtx_timer (a timeout cancels it; ns-2.35)",
    },
    PresetRule {
        key: "flows[].cc_params.variant",
        value: "\"linux\"",
        applies: Applies::WithTcpSackFlowCc("westwood_plus"),
        source: "tcp/linux/src/tcp_westwood.c:80-95 westwood_filter, 116-145 westwood_update_window, 218-223 tcp_westwood_bw_rttmin, 280-291 (ssthresh = tcp_reno_ssthresh, min_cwnd = bw_rttmin): Linux 2.6.22's module, run by select_ca westwood through tcp/tcp-linux.cc:374-390, 494-501 (ns-2.35)",
    },
    // Frame errors: where ns-2's node-config -IncomingErrProc sits.
    PresetRule {
        key: "errors.scope",
        value: "\"every_frame\"",
        applies: Applies::WithErrorModel,
        source: "tcl/lib/ns-mobilenode.tcl:513-517 add-interface ($netif up-target $inerr, $inerr target $mac: every frame WirelessPhy::sendUp passes up, mac/wireless-phy.cc:344-376, phy.cc:124-134); queue/errmodel.cc:173-211 ErrorModel::recv (a corrupted frame goes to drop_, never to the MAC), 408-429 TwoStateErrorModel::corruptPkt (one chain per node, stepped per frame; ns-2.35)",
    },
    // Transport (tcp-sink.cc, semitcp.cc)
    PresetRule {
        key: "semitcp.sink_holds_acks",
        value: "true",
        applies: Applies::Always,
        source:
            "tcp/tcp-sink.cc:367-395 TcpSink::ack, 398-411 TcpSink::send_down; pulled by queue/queue.cc:71-81 and aodv/aodv.cc:1472-1503",
    },
    PresetRule {
        key: "semitcp.source_pull",
        value: "true",
        applies: Applies::Always,
        source: "tcp/semitcp.cc:353-363 send_much (start), 367-419 send_down (one segment per pull from aodv/aodv.cc:1472-1503)",
    },
    // Not yet: semitcp.loss_recovery = "rto_only", semitcp.rto_backoff =
    // false (semitcp.cc:216-346). ns-2's static chain lost 140-450 segments
    // per 100 s from 5 hops and resent only 40-130 of them
    // (chain/static/semi-dupack/HopsResultAvg.txt); its throughput counts
    // every segment received, in order or not. With these two rules hoplab
    // resends as few and its received throughput matches ns-2's, but the
    // in-order goodput that tests/ns2_parity.rs compares with that figure
    // falls to 10-45 % of it from 5 hops. They belong here once the parity
    // test compares received segments.
    // MAC (mac-802_11.cc)
    PresetRule {
        key: "mac.eifs_sets_nav",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1699-1723 Mac802_11::recv_timer (set_nav(EIFS) after a collision or an error)",
    },
    PresetRule {
        key: "mac.cts_check_at_sifs",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:883-896 Mac802_11::check_pktCTRL (is_idle() and refuse() SIFS after the RTS; recvRTS 1816-1842)",
    },
    PresetRule {
        key: "mac.immediate_access",
        value: "false",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1547-1563 Mac802_11::send (idle medium: mhDefer_ DIFS + (Random::random() % cw_) slots)",
    },
    PresetRule {
        key: "mac.busy_doubles_cw",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1028-1031 Mac802_11::check_pktRTS, 1080-1084 check_pktTx (busy when the defer ends: inc_cw(), mhBackoff_.start)",
    },
    PresetRule {
        key: "mac.ll_delay_us",
        value: "25.0",
        applies: Applies::Always,
        source: "mac/ll.cc:228 LL::sendDown, 241 LL::sendUp (s.schedule(target, p, delay_)); LL set delay_ 25us in ns-2.29's tcl/lib/ns-default.tcl",
    },
    PresetRule {
        key: "semitcp.mac.refusal_rtsc",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:905-924 Mac802_11::check_pktCTRL (on REFUSE: un-park pktPre_ with ssrc_++ at 916, stop the backoff, check_pktRTS at once)",
    },
    PresetRule {
        key: "semitcp.mac.ctsc_memory",
        value: "\"until_reciprocated\"",
        applies: Applies::Always,
        source: "mac/mac-802_11.h:64-93 Neighbour::helped_by_me; set at mac-802_11.cc:933-940, refused at 2398-2400, reset at 808-816 (CTSC unused), 1917-1918 (CTSC received), 2112-2116 (DATA ACKed); parked packet released at 808-816 and 834-839",
    },
    PresetRule {
        key: "semitcp.mac.park_on_refusal",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:2284-2297 Mac802_11::overHear (an RTSC/uRTS from the node whose CTS it awaits: mhSend_.stop(), store_tx(), nbtimer.start(round_trip_time))",
    },
    PresetRule {
        key: "semitcp.mac.cts_timeout_covers_rtsc",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1035-1043 Mac802_11::check_pktRTS (timeout with txtime(RTSlen) in place of txtime(CTSlen))",
    },
    PresetRule {
        key: "semitcp.mac.defer_new_packets_only",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1525-1540 Mac802_11::send (defer_rts for a new data packet only), 2340-2361 defer_rts (never when congested)",
    },
    PresetRule {
        key: "semitcp.mac.release_on_any_data",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:2264-2278 Mac802_11::overHear (kk++ for every decoded DATA frame)",
    },
    PresetRule {
        key: "semitcp.mac.routing_rts_announces",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:2280-2283 Mac802_11::overHear (MAC_Subtype_uRTS sets nb_congested like an RTSC); uRTS at 1152",
    },
    PresetRule {
        key: "semitcp.mac.hold_from_park",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1532, 2296 nbtimer.start(round_trip_time) at the park; 2453 restore_tx sets nb_congested = -1",
    },
    PresetRule {
        key: "semitcp.mac.excuse_refused_attempts",
        value: "false",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1345-1404 Mac802_11::RetransmitRTS (every CTS timeout counts: ssrc_ += 1, inc_cw())",
    },
    PresetRule {
        key: "semitcp.mac.count_all_queued",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:2187-2196 Mac802_11::congested (the whole IFQ + pktTx_/pktPre_ unless control + the whole AODV buffer), 2364-2411 refuse (no head packet: CTS, 2385-2386; CTSC only for a data head, 2380-2384)",
    },
    PresetRule {
        key: "semitcp.mac.acks_exempt",
        value: "false",
        applies: Applies::Always,
        source: "common/packet.h:477-482 hdr_cmn::control_packet (PT_ACK commented out: TCP ACKs are data), used by mac/mac-802_11.cc:2187-2196 congested and 2364-2411 refuse",
    },
    PresetRule {
        key: "semitcp.mac.accept_final_hop",
        value: "false",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:2364-2411 Mac802_11::refuse (a congested node refuses whatever the packet's destination; only uRTS is always answered)",
    },
    PresetRule {
        key: "semitcp.mac.parked_lets_routing_out",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:666-682 Mac802_11::tx_resume (with pktPre_ parked, pull the IFQ only for a control packet), 2414-2442 store_tx (pktTx_ -> pktPre_, never a control packet, 2421), 2456-2459 restore_tx (waits while pktTx_ is served)",
    },
];

/// Apply the scenario's `preset` to its JSON document: every rule fills its
/// key where the document does not give it. Errors name `preset`.
pub fn apply(document: &mut Value) -> Result<(), ConfigError> {
    let Some(map) = document.as_object_mut() else { return Ok(()) };
    let preset = match map.get("preset") {
        None => Preset::Standard,
        Some(value) => Preset::deserialize(value).map_err(|_| {
            ConfigError::new("preset", format!("must be one of {}, got {value}", Preset::NAMES.map(|n| format!("\"{n}\"")).join(", ")))
        })?,
    };
    let protocol = map.get("routing").and_then(|r| r.get("protocol")).and_then(Value::as_str).map(str::to_string);
    let tcp_sack = map.get("tcp").and_then(|t| t.get("sack")).and_then(Value::as_bool) == Some(true);
    let error_model = map.get("errors").and_then(|e| e.get("model")).and_then(Value::as_str).is_some_and(|m| m != "none");
    let sinr = map.get("radio").and_then(|r| r.get("reception")).and_then(Value::as_str) == Some("sinr");
    for rule in preset.rules() {
        let applies = match rule.applies {
            Applies::Always => true,
            Applies::WithAodv => protocol.as_deref() == Some("aodv"),
            Applies::WithDsr => protocol.as_deref() == Some("dsr"),
            Applies::WithTcpSack => tcp_sack,
            Applies::WithErrorModel => error_model && !sinr,
            Applies::WithTcpSackFlowCc(cc) => {
                if tcp_sack {
                    fill_flows(map, cc, rule);
                }
                false
            }
        };
        if !applies {
            continue;
        }
        let value: Value = serde_json::from_str(rule.value).expect("a preset rule's value is JSON");
        fill(map, rule.key, value);
    }
    Ok(())
}

/// A per-flow rule: fill its key in every flow (a table) whose `cc` is `cc`.
fn fill_flows(map: &mut Map<String, Value>, cc: &str, rule: &PresetRule) {
    let key = rule.key.strip_prefix(FLOW_KEY_PREFIX).expect("a flow rule's key starts with flows[].");
    let Some(Value::Array(flows)) = map.get_mut("flows") else { return };
    for flow in flows.iter_mut().filter_map(Value::as_object_mut) {
        if flow.get("cc").and_then(Value::as_str) == Some(cc) {
            let value: Value = serde_json::from_str(rule.value).expect("a preset rule's value is JSON");
            fill(flow, key, value);
        }
    }
}

/// Set `key` (dotted) in `map` unless it is there; tables on the way are
/// created. A non-table in the way is left alone (typing reports it).
fn fill(map: &mut Map<String, Value>, key: &str, value: Value) {
    let (head, rest) = match key.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (key, None),
    };
    match rest {
        None => {
            map.entry(head.to_string()).or_insert(value);
        }
        Some(rest) => {
            let entry = map.entry(head.to_string()).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(inner) = entry {
                fill(inner, rest, value);
            }
        }
    }
}

/// Every preset's rules as JSON, for the docs and `hoplab validate`:
/// `[{"preset", "key", "value", "applies", "source"}]`.
pub fn rules_json() -> Value {
    let mut rules = Vec::new();
    for (name, preset) in [("ns2", Preset::Ns2)] {
        for rule in preset.rules() {
            rules.push(serde_json::json!({
                "preset": name,
                "key": rule.key,
                "value": serde_json::from_str::<Value>(rule.value).expect("JSON"),
                "applies": match rule.applies {
                    Applies::Always => "always".to_string(),
                    Applies::WithAodv => "routing.protocol = \"aodv\"".to_string(),
                    Applies::WithDsr => "routing.protocol = \"dsr\"".to_string(),
                    Applies::WithTcpSack => "tcp.sack = true".to_string(),
                    Applies::WithErrorModel => "errors.model set, radio.reception = \"threshold\"".to_string(),
                    Applies::WithTcpSackFlowCc(cc) => format!("tcp.sack = true, in flows with cc = \"{cc}\""),
                },
                "source": rule.source,
            }));
        }
    }
    Value::Array(rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn standard_changes_nothing() {
        let mut doc = json!({"topology": {"kind": "chain", "nodes": 3}, "routing": {"protocol": "aodv"}});
        let before = doc.clone();
        apply(&mut doc).unwrap();
        assert_eq!(doc, before);
    }

    #[test]
    fn ns2_fills_absent_keys_and_leaves_given_ones() {
        let mut doc = json!({"preset": "ns2", "routing": {"protocol": "aodv"}});
        apply(&mut doc).unwrap();
        assert_eq!(doc["routing"]["aodv"]["measured_traversal_time"], json!(true));
        let mut doc = json!({"preset": "ns2", "routing": {"protocol": "aodv", "aodv": {"measured_traversal_time": false}}});
        apply(&mut doc).unwrap();
        assert_eq!(doc["routing"]["aodv"]["measured_traversal_time"], json!(false), "the scenario's own key wins");
    }

    #[test]
    fn aodv_rules_only_with_aodv() {
        let mut doc = json!({"preset": "ns2", "routing": {"protocol": "static"}});
        apply(&mut doc).unwrap();
        assert!(doc["routing"].get("aodv").is_none());
    }

    #[test]
    fn every_rule_names_a_key_of_the_scenario_and_its_source() {
        for rule in NS2_RULES {
            assert!(rule.source.contains(".cc:") || rule.source.contains(".h:"), "{}: cite file:line", rule.key);
            serde_json::from_str::<Value>(rule.value).unwrap_or_else(|_| panic!("{}: value is not JSON", rule.key));
        }
    }

    #[test]
    fn every_rule_changes_its_key_from_the_standard_default() {
        // Resolved through the scenario type, as `hoplab validate` shows it
        // (a rule whose value is the default would do nothing).
        let base = json!({"routing": {"protocol": "aodv"}, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200},
            "tcp": {"sack": true}, "errors": {"model": "uniform", "packet_error_rate": 0.01},
            "flows": [{"src": 0, "dst": 2, "app": "bulk", "transport": "semitcp"},
                {"src": 0, "dst": 2, "app": "bulk", "transport": "tcp", "cc": "westwood_plus"}]});
        let resolve = |preset: &str| {
            let mut doc = base.clone();
            doc["preset"] = json!(preset);
            serde_json::to_value(crate::scenario::Scenario::from_json(&doc.to_string()).expect("valid")).expect("serialises")
        };
        let (ns2, standard) = (resolve("ns2"), resolve("standard"));
        let dsr_base = {
            let mut doc = base.clone();
            doc["routing"] = json!({"protocol": "dsr"});
            doc
        };
        let resolve_dsr = |preset: &str| {
            let mut doc = dsr_base.clone();
            doc["preset"] = json!(preset);
            serde_json::to_value(crate::scenario::Scenario::from_json(&doc.to_string()).expect("valid")).expect("serialises")
        };
        let (dsr_ns2, dsr_standard) = (resolve_dsr("ns2"), resolve_dsr("standard"));
        for rule in NS2_RULES {
            let (ns2, standard) = if rule.applies == Applies::WithDsr { (&dsr_ns2, &dsr_standard) } else { (&ns2, &standard) };
            // A flow rule's key is checked in the westwood_plus flow (flows[1]).
            let key = rule.key.replace(FLOW_KEY_PREFIX, "flows.1.");
            let pointer = format!("/{}", key.replace('.', "/"));
            let value: Value = serde_json::from_str(rule.value).unwrap();
            assert_eq!(ns2.pointer(&pointer), Some(&value), "{}", rule.key);
            assert_ne!(standard.pointer(&pointer), Some(&value), "{}: the standard default differs", rule.key);
        }
    }

    #[test]
    fn the_tcp_linux_rules_need_sack() {
        // Without SACK the ns2 preset's TCP is Agent/TCP/Newreno: RFC 6298's timer.
        let mut doc = json!({"preset": "ns2"});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/tcp/rto_restart_on_every_ack"), None);
        let mut doc = json!({"preset": "ns2", "tcp": {"sack": true}});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/tcp/rto_restart_on_every_ack"), Some(&json!(true)));
        assert_eq!(doc.pointer("/tcp/sack_lost_retransmit"), Some(&json!(true)));
    }

    #[test]
    fn linux_westwood_only_in_westwood_plus_flows_with_sack() {
        let flows = json!([{"cc": "westwood_plus"}, {"cc": "newreno"}, {"cc": "westwood_plus", "cc_params": {"variant": "ns3"}}]);
        let mut doc = json!({"preset": "ns2", "tcp": {"sack": true}, "flows": flows});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/flows/0/cc_params/variant"), Some(&json!("linux")));
        assert_eq!(doc.pointer("/flows/1/cc_params"), None);
        assert_eq!(doc.pointer("/flows/2/cc_params/variant"), Some(&json!("ns3")), "the scenario's own key wins");
        // Without SACK ns-2's agent is Agent/TCP/Newreno: no TCP-Linux module.
        let mut doc = json!({"preset": "ns2", "flows": [{"cc": "westwood_plus"}]});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/flows/0/cc_params"), None);
    }

    #[test]
    fn ns2_error_scope_only_with_an_error_model_and_the_threshold_receiver() {
        let mut doc = json!({"preset": "ns2"});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/errors"), None, "no [errors] table without a model");
        let mut doc = json!({"preset": "ns2", "errors": {"model": "gilbert_elliott"}});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/errors/scope"), Some(&json!("every_frame")));
        let mut doc = json!({"preset": "ns2", "radio": {"reception": "sinr"}, "errors": {"model": "uniform"}});
        apply(&mut doc).unwrap();
        assert_eq!(doc.pointer("/errors/scope"), None, "ns-2's placement needs ns-2's receiver");
    }

    #[test]
    fn a_bad_preset_is_named() {
        let mut doc = json!({"preset": "ns3"});
        let e = apply(&mut doc).unwrap_err();
        assert_eq!(e.key, "preset");
        assert!(e.message.contains("\"ns2\""), "{}", e.message);
    }
}
