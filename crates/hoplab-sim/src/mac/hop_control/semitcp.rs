//! Semi-TCP's hop-by-hop congestion control in the MAC (Cai et al. 2013;
//! seed 000 section 2; docs/semitcp-2018.md). Each rule below is a parameter
//! with its default named.
//!
//! - **Congested**: a node holding `congestion_threshold + 1` data packets
//!   (interface queue + the frame in service + packets waiting for a
//!   route) is congested; the threshold
//!   (default 1) keeps one place for transient traffic.
//! - **RTSC**: a congested node sends every RTS with the congestion mark
//!   (the public ns-2 implementation sets the frame-control order bit).
//! - **Refusal**: a congested node does not answer an RTS (no CTS), unless
//!   the packet needs no place in its buffer: a routing packet (docs/semitcp-2018.md: "an
//!   RTS that is always answered") or, a hoplab **Decision**
//!   (`accept_final_hop`, default on), a packet addressed to the receiver
//!   itself. Without it the source, which is congested by construction
//!   (R + 1 packets held), would refuse every end-to-end ACK. A second
//!   **Decision** (`acks_exempt`, default on): end-to-end ACKs are the
//!   transport's control traffic, like routing packets they neither count
//!   as held data nor are refused; counted and refused, they starve behind
//!   the data stream (every relay holding one segment and one ACK would be
//!   congested) and overflow the destination's queue. Mutual
//!   blocking: if the RTS is an RTSC from the very neighbour its own
//!   head-of-line packet is addressed to, it answers with a CTSC, once per
//!   neighbour per congestion episode, so that one of the two proceeds.
//! - **Deferral**: a node that decodes an RTSC or CTSC from neighbour X
//!   (overheard, or addressed to it: either way X announced its
//!   congestion) records it. For `hold` (default 6 ms,
//!   about one four-way handshake) or until it has overheard
//!   `release_data_frames` (K, default 1) DATA frames from X: a node that is
//!   not congested defers its own RTS; a congested node defers an RTS to X.
//!   An RTS to X that went unanswered when X had announced its congestion
//!   within a hold time before it (or did so while it waited) does not
//!   count toward the retry limit and does not double the window.
//! - On release the node draws a fresh backoff from its current window, so
//!   that the nodes released by one DATA frame do not all send at once
//!   (docs/semitcp-2018.md leaves the re-entry open; this is the hoplab reading).
//!
//! Congestion thus propagates back to the source, whose transport stops
//! because its reserved buffer is full, and is released as queues drain.
//!
//! **As ns-2 runs it** (GitHub musicinthedark/semitcp, ns-2.29,
//! `mac/mac-802_11.cc`): where the public code departs from the rules
//! above, each departure is a key, off by default and on with
//! `preset = "ns2"`; each key's doc cites the lines it mirrors.
//! - Refusing and announcing: `refusal_rtsc` (the refuser sends its own
//!   RTSC SIFS later), `park_on_refusal` with `cts_timeout_covers_rtsc`
//!   (the refused sender parks on hearing it, no retry counted),
//!   `excuse_refused_attempts = false` (a timeout always counts),
//!   `routing_rts_announces` (a routing packet's RTS announces too).
//! - Holding: `defer_new_packets_only` (only a packet entering service
//!   defers, and only at an uncongested node), `hold_from_park`,
//!   `release_on_any_data`, `parked_lets_routing_out`.
//! - Counting and answering: `count_all_queued`, `acks_exempt = false`,
//!   `accept_final_hop = false`, `ctsc_memory = "until_reciprocated"`.
//! - In `[mac]`: `cts_check_at_sifs` (the answer, refusal included, is
//!   decided SIFS after the RTS, on an idle medium only).

use super::{DeferralPoint, HeardEffect, HopControl, HopStats, RtsAnswer};
use crate::config::{at_least, join, ConfigError};
use crate::config::{Applies, PresetRule};
use crate::queue::Queued;
use crate::time::{SimDuration, SimTime};
use crate::wire::ieee80211::{Frame, FrameKind};
use crate::wire::{NodeId, Packet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// `[semitcp.mac]`: the rules of semi-TCP's hop-by-hop congestion control
/// in the MAC. A congested node marks its RTS (RTSC) and refuses RTSs;
/// neighbours that hear it defer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HopControlConfig {
    /// Data packets a node holds without being congested: with
    /// `congestion_threshold + 1` (queue, frame in service, packets
    /// awaiting a route) it is congested.
    pub congestion_threshold: u32,
    /// How long an overheard RTSC or CTSC defers the node, milliseconds
    /// (about one four-way handshake).
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub hold_ms: SimDuration,
    /// DATA frames overheard from the congested neighbour that end the hold
    /// early (K, at least 1).
    pub release_data_frames: u32,
    /// A congested node answers an RTSC from the very neighbour its own
    /// head-of-line packet is for with a CTSC, once per neighbour and
    /// congestion episode, so that one of two blocking nodes proceeds.
    pub mutual_blocking_ctsc: bool,
    /// A congested node still answers an RTS whose packet is addressed to
    /// it (needs no place in its buffer).
    pub accept_final_hop: bool,
    /// End-to-end ACKs (pure ACK segments) neither count as held data nor
    /// are refused: the back-pressure governs the data stream.
    pub acks_exempt: bool,
    /// A congested node that refuses an RTS sends its own RTS(C) SIFS after
    /// the refused RTS, if the medium is idle then, without finishing its
    /// backoff; a parked packet is taken back for it, with one more short
    /// retry. This is how ns-2 refuses (`Mac802_11::check_pktCTRL`,
    /// mac-802_11.cc:905-924; the retry at 916, "to avoid deadlock formed
    /// in loop"): the RTSC tells the refused sender and the neighbours of
    /// the congestion. Off: a refusal is silence, and the node's own RTS
    /// waits for its backoff.
    pub refusal_rtsc: bool,
    /// How long a congested node remembers that it answered a neighbour's
    /// RTSC with a CTSC (and so refuses that neighbour's next RTSCs).
    pub ctsc_memory: CtscMemory,
    /// A node waiting for X's CTS that hears an RTSC from X takes it for
    /// X's refusal: it stops waiting and parks its packet for `hold_ms`
    /// without counting a retry or doubling its window (ns-2 `overHear`,
    /// mac-802_11.cc:2284-2297; any node, congested or not). Needs
    /// `cts_timeout_covers_rtsc` to hear the RTSC before the timeout. Off:
    /// the CTS timeout decides.
    pub park_on_refusal: bool,
    /// The CTS timeout leaves room for a refusal RTSC: it waits an RTS's
    /// airtime instead of a CTS's (ns-2 `check_pktRTS`,
    /// mac-802_11.cc:1035-1043). Off: SIFS + CTS + 2 propagation delays
    /// (10.3.2.9).
    pub cts_timeout_covers_rtsc: bool,
    /// An announcement defers only a data packet entering service while
    /// the node is not congested (any RTS it would send, whoever
    /// announced), not later attempts (ns-2 `Mac802_11::send`,
    /// mac-802_11.cc:1525-1540, `defer_rts` 2340-2361). Off: every attempt
    /// is checked when its backoff ends, and a congested node defers its
    /// RTS to the announcer.
    pub defer_new_packets_only: bool,
    /// Any decoded DATA frame (from any node, to any node, this one
    /// included) counts toward the `release_data_frames` that end a hold
    /// (ns-2 `overHear`, mac-802_11.cc:2264-2278). Off: only DATA frames
    /// from the announcer count.
    pub release_on_any_data: bool,
    /// An RTS for a routing packet (ns-2's uRTS) announces congestion like
    /// an RTSC, marked or not (ns-2 `overHear`, mac-802_11.cc:2280-2283).
    /// Off: only marked RTS and CTS frames announce.
    pub routing_rts_announces: bool,
    /// A parked RTS is held for `hold_ms` from the moment it parks (ns-2
    /// `nbtimer.start(round_trip_time)`, mac-802_11.cc:1532, 2296), and its
    /// release is final and forgets the announcement (`restore_tx` sets
    /// `nb_congested = -1`, 2453). Off: the hold ends `hold_ms` after the
    /// announcement, and a release first checks whether a newer
    /// announcement still holds the node.
    pub hold_from_park: bool,
    /// An RTS to a neighbour that announced its congestion within a hold
    /// time before it (or while the node waited) does not count toward the
    /// retry limit and does not double the window when it goes unanswered.
    /// ns-2 has no such excuse: every CTS timeout counts (`RetransmitRTS`,
    /// mac-802_11.cc:1345-1404); a refused sender that hears the refusal
    /// parks instead (`park_on_refusal`).
    pub excuse_refused_attempts: bool,
    /// Every packet waiting in the interface queue or for a route counts as
    /// held, whatever it is (routing packets, end-to-end ACKs), as ns-2's
    /// `congested()` counts the whole interface queue and the whole AODV
    /// route buffer (mac-802_11.cc:2187-2196); the packet in service (or
    /// parked) counts by the other rules. And, as ns-2's `refuse()`
    /// (2364-2411), which looks at the same packets: a node with no packet
    /// in its MAC answers every RTS ("we don't count route queue here",
    /// 2385-2386), and only a data packet at its head makes a CTSC
    /// (2380-2384). Off: only counted data packets wait anywhere (`acks_exempt`).
    pub count_all_queued: bool,
    /// While a data packet is parked, routing packets at the head of the
    /// interface queue are served (the parked packet waits aside, ns-2's
    /// `pktPre_`; `tx_resume`, mac-802_11.cc:668-682), and a routing packet
    /// is never parked itself (`store_tx`, 2421). Off: the parked packet
    /// stays in service, and everything queued waits behind it.
    pub parked_lets_routing_out: bool,
}

/// `ctsc_memory`: when a congested node may answer a neighbour with a CTSC
/// again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CtscMemory {
    /// Once per neighbour per congestion episode: the memory is cleared
    /// when the node stops being congested (hoplab's reading of the paper).
    #[default]
    CongestionEpisode,
    /// ns-2's `Neighbour::helped_by_me` (mac-802_11.h:64-93): kept across
    /// congestion episodes until the neighbour X reciprocates or did not
    /// use the CTSC: this node's DATA to X is acknowledged (`recvACK`,
    /// mac-802_11.cc:2112-2116), X answers this node's RTS with a CTSC
    /// (`recvCTS`, 1917-1918), or X sent no DATA after the CTSC
    /// (`send_timer`, 808-816, which also releases a parked packet to X if
    /// the node is congested). Sending an ACK to a neighbour it helped
    /// releases a parked packet (834-839).
    UntilReciprocated,
}

impl HopControlConfig {
    /// Range checks; errors name `<prefix>.<key>`.
    pub fn validate(&self, prefix: &str) -> Result<(), ConfigError> {
        at_least(&join(prefix, "release_data_frames"), self.release_data_frames, 1)
    }
}

impl Default for HopControlConfig {
    fn default() -> Self {
        HopControlConfig {
            congestion_threshold: 1,
            hold_ms: SimDuration::from_millis_f64(6.0),
            release_data_frames: 1,
            mutual_blocking_ctsc: true,
            accept_final_hop: true,
            acks_exempt: true,
            refusal_rtsc: false,
            ctsc_memory: CtscMemory::CongestionEpisode,
            park_on_refusal: false,
            cts_timeout_covers_rtsc: false,
            defer_new_packets_only: false,
            release_on_any_data: false,
            routing_rts_announces: false,
            hold_from_park: false,
            excuse_refused_attempts: true,
            count_all_queued: false,
            parked_lets_routing_out: false,
        }
    }
}

/// A congestion announcement overheard from a neighbour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heard {
    pub from: NodeId,
    pub at: SimTime,
    pub data_frames_since: u32,
}

/// One node's hop-by-hop control: the rules and the node's state.
#[derive(Debug, Clone)]
pub struct SemiTcpHop {
    pub config: HopControlConfig,
    pub congested: bool,
    pub congested_since: SimTime,
    pub congested_total_ns: u64,
    pub heard: Option<Heard>,
    /// Neighbours answered with a CTSC (in this congestion episode, or
    /// until they reciprocated: `ctsc_memory`).
    pub ctsc_answered: BTreeSet<NodeId>,
    /// The head-of-line RTS is held back by a deferral.
    pub parked: bool,
    pub rtsc_sent: u64,
    pub ctsc_sent: u64,
    pub rtsc_overheard: u64,
    pub ctsc_overheard: u64,
    pub rts_refused: u64,
    pub deferrals: u64,
    pub uncounted_attempts: u64,
}

impl SemiTcpHop {
    pub fn new(config: HopControlConfig) -> SemiTcpHop {
        SemiTcpHop {
            config,
            congested: false,
            congested_since: SimTime::ZERO,
            congested_total_ns: 0,
            heard: None,
            ctsc_answered: BTreeSet::new(),
            parked: false,
            rtsc_sent: 0,
            ctsc_sent: 0,
            rtsc_overheard: 0,
            ctsc_overheard: 0,
            rts_refused: 0,
            deferrals: 0,
            uncounted_attempts: 0,
        }
    }

    fn congested_at(&self) -> usize {
        self.config.congestion_threshold as usize + 1
    }

    /// Until when the last announcement holds an RTS to `next_hop`, if it
    /// does: `hold_ms` after it, unless K DATA frames came since; a
    /// congested node only defers an RTS to the announcer (never with
    /// `defer_new_packets_only`, as ns-2's `defer_rts`).
    fn held_until(&self, now: SimTime, next_hop: NodeId) -> Option<SimTime> {
        let heard = self.heard?;
        let until = heard.at + self.config.hold_ms;
        let active = now < until && heard.data_frames_since < self.config.release_data_frames;
        let relevant = !self.congested || (!self.config.defer_new_packets_only && heard.from == next_hop);
        (active && relevant).then_some(until)
    }

    /// Time congested up to `now`.
    pub fn congested_ns(&self, now: SimTime) -> u64 {
        self.congested_total_ns + if self.congested { now.since(self.congested_since).as_nanos() } else { 0 }
    }
}

impl super::FromHopConfig for SemiTcpHop {
    type Config = HopControlConfig;
    const NS2_RULES: &'static [crate::config::PresetRule] = NS2_RULES;
    fn from_config(config: &HopControlConfig) -> SemiTcpHop {
        SemiTcpHop::new(config.clone())
    }
}

impl HopControl for SemiTcpHop {
    fn is_enabled(&self) -> bool {
        true
    }

    fn counts(&self, packet: &Packet) -> bool {
        !packet.is_control() && !(self.config.acks_exempt && packet.is_reverse())
    }

    fn exempts(&self, packet: &Packet) -> bool {
        !self.counts(packet)
    }

    fn counts_waiting(&self, packet: &Packet) -> bool {
        self.config.count_all_queued || self.counts(packet)
    }

    fn marks_rts(&mut self) -> bool {
        if self.congested {
            self.rtsc_sent += 1;
        }
        self.congested
    }

    fn deferral(&self, now: SimTime, next_hop: NodeId, point: DeferralPoint) -> Option<SimTime> {
        if (point == DeferralPoint::ServiceStart) != self.config.defer_new_packets_only {
            return None;
        }
        let until = self.held_until(now, next_hop)?;
        Some(if self.config.hold_from_park { now + self.config.hold_ms } else { until })
    }

    fn still_held(&self, now: SimTime, next_hop: NodeId) -> Option<SimTime> {
        if self.config.hold_from_park {
            return None;
        }
        self.held_until(now, next_hop)
    }

    fn cts_wait_covers_rtsc(&self) -> bool {
        self.config.cts_timeout_covers_rtsc
    }

    fn parks_aside(&self) -> bool {
        self.config.parked_lets_routing_out
    }

    fn park(&mut self) {
        self.parked = true;
        self.deferrals += 1;
    }

    fn is_parked(&self) -> bool {
        self.parked
    }

    fn unpark(&mut self) {
        self.parked = false;
        if self.config.hold_from_park {
            self.heard = None;
        }
    }

    fn answer_rts(&mut self, rts: &crate::mac::RtsHeard, own_head: Option<&Queued>) -> RtsAnswer {
        // A routing packet's RTS is always answered (ns-2 `refuse`,
        // mac-802_11.cc:2374: uRTS -> CTS).
        if !self.congested || rts.control_packet || (rts.needs_no_buffer && self.config.accept_final_hop) {
            return RtsAnswer::Cts;
        }
        let ns2_head = self.config.count_all_queued;
        if ns2_head && own_head.is_none() {
            return RtsAnswer::Cts; // ns-2 refuse(), 2385-2386
        }
        let head_to_sender = own_head.is_some_and(|q| q.next_hop == rts.transmitter && !(ns2_head && q.packet.is_control()));
        let mutual =
            rts.congestion_mark && self.config.mutual_blocking_ctsc && head_to_sender && !self.ctsc_answered.contains(&rts.transmitter);
        if mutual {
            self.ctsc_answered.insert(rts.transmitter);
            self.ctsc_sent += 1;
            RtsAnswer::Ctsc
        } else {
            self.rts_refused += 1;
            if self.config.refusal_rtsc {
                RtsAnswer::RefuseWithRtsc
            } else {
                RtsAnswer::Refuse
            }
        }
    }

    fn heard(&mut self, now: SimTime, frame: &Frame) -> HeardEffect {
        let announces = match frame.kind {
            FrameKind::Rts => frame.congestion_mark || (frame.control_packet && self.config.routing_rts_announces),
            FrameKind::Cts => frame.congestion_mark,
            FrameKind::Data | FrameKind::Ack => false,
        };
        if announces {
            if frame.kind == FrameKind::Rts {
                self.rtsc_overheard += 1;
            } else {
                self.ctsc_overheard += 1;
            }
            self.heard = Some(Heard { from: frame.transmitter, at: now, data_frames_since: 0 });
            if frame.kind == FrameKind::Rts && self.config.park_on_refusal {
                return HeardEffect::RtsAnnounced { from: frame.transmitter, hold_until: now + self.config.hold_ms };
            }
            return HeardEffect::Nothing;
        }
        if frame.kind != FrameKind::Data {
            return HeardEffect::Nothing;
        }
        let any_data = self.config.release_on_any_data;
        match &mut self.heard {
            Some(heard) if any_data || heard.from == frame.transmitter => {
                heard.data_frames_since += 1;
                if heard.data_frames_since >= self.config.release_data_frames && self.parked {
                    HeardEffect::Release
                } else {
                    HeardEffect::Nothing
                }
            }
            _ => HeardEffect::Nothing,
        }
    }

    fn excuses_failure(&mut self, next_hop: NodeId, sent_at: SimTime) -> bool {
        // The next hop announced its congestion after the RTS went out, or
        // within a hold time before: it was (or still is) refusing.
        let hold = self.config.hold_ms;
        let excused = self.config.excuse_refused_attempts && self.heard.is_some_and(|h| h.from == next_hop && h.at + hold >= sent_at);
        if excused {
            self.uncounted_attempts += 1;
        }
        excused
    }

    fn cts_received(&mut self, from: NodeId, congestion_mark: bool) {
        if congestion_mark && self.config.ctsc_memory == CtscMemory::UntilReciprocated {
            self.ctsc_answered.remove(&from);
        }
    }

    fn data_acked(&mut self, next_hop: NodeId) {
        if self.config.ctsc_memory == CtscMemory::UntilReciprocated {
            self.ctsc_answered.remove(&next_hop);
        }
    }

    fn awaits_data_after_ctsc(&self) -> bool {
        self.config.ctsc_memory == CtscMemory::UntilReciprocated
    }

    fn ctsc_unused(&mut self, to: NodeId) -> bool {
        self.ctsc_answered.remove(&to);
        self.congested
    }

    fn ack_sent(&self, to: NodeId) -> bool {
        self.config.ctsc_memory == CtscMemory::UntilReciprocated && self.ctsc_answered.contains(&to)
    }

    fn update(&mut self, now: SimTime, held: usize) {
        let congested = held >= self.congested_at();
        if congested == self.congested {
            return;
        }
        self.congested = congested;
        if congested {
            self.congested_since = now;
        } else {
            self.congested_total_ns += now.since(self.congested_since).as_nanos();
            if self.config.ctsc_memory == CtscMemory::CongestionEpisode {
                self.ctsc_answered.clear();
            }
        }
    }

    fn stats(&self, end: SimTime) -> HopStats {
        HopStats {
            rtsc_sent: self.rtsc_sent,
            ctsc_sent: self.ctsc_sent,
            rts_refused: self.rts_refused,
            deferrals: self.deferrals,
            congested_ns: self.congested_ns(end),
        }
    }
}

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`, in the order of its
/// sources; `hoplab presets`). Each cites the ns-2 file and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn congested_at_threshold_plus_one() {
        let mut s = SemiTcpHop::new(HopControlConfig::default());
        s.update(SimTime(0), 1);
        assert!(!s.congested);
        s.update(SimTime(10), 2);
        assert!(s.congested);
        s.update(SimTime(30), 1);
        assert!(!s.congested, "released");
        assert_eq!(s.congested_ns(SimTime(50)), 20);
    }

    #[test]
    fn deferral_lasts_the_hold_or_until_k_data_frames() {
        let mut s = SemiTcpHop::new(HopControlConfig::default());
        s.heard = Some(Heard { from: NodeId(3), at: SimTime(1_000), data_frames_since: 0 });
        let until = SimTime(1_000) + SimDuration::from_millis_f64(6.0);
        // Not congested: every RTS waits.
        let access = DeferralPoint::Access;
        assert_eq!(s.deferral(SimTime(2_000), NodeId(9), access), Some(until));
        assert_eq!(s.deferral(SimTime(2_000), NodeId(9), DeferralPoint::ServiceStart), None);
        // After the hold, or after K = 1 DATA frame from node 3, nothing waits.
        assert_eq!(s.deferral(until, NodeId(9), access), None);
        s.heard.as_mut().unwrap().data_frames_since = 1;
        assert_eq!(s.deferral(SimTime(2_000), NodeId(9), access), None);
        // Congested: only an RTS to the congested neighbour waits.
        s.heard.as_mut().unwrap().data_frames_since = 0;
        s.congested = true;
        assert_eq!(s.deferral(SimTime(2_000), NodeId(9), access), None);
        assert_eq!(s.deferral(SimTime(2_000), NodeId(3), access), Some(until));
    }
}
