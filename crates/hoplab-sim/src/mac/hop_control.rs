//! Semi-TCP's hop-by-hop congestion control in the MAC (Cai et al. 2013;
//! seed 000 section 2; SPEC.md section 2). Each rule below is a parameter
//! with its default named.
//!
//! - **Congested**: a node holding `congestion_threshold + 1` data packets
//!   (interface queue + the frame in service + packets waiting for a
//!   route) is congested; the threshold
//!   (default 1) keeps one place for transient traffic.
//! - **RTSC**: a congested node sends every RTS with the congestion mark
//!   (the public ns-2 implementation sets the frame-control order bit).
//! - **Refusal**: a congested node does not answer an RTS (no CTS), unless
//!   the packet needs no place in its buffer: a routing packet (SPEC: "an
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
//!   (the SPEC leaves the re-entry open; this is the hoplab reading).
//!
//! Congestion thus propagates back to the source, whose transport stops
//! because its reserved buffer is full, and is released as queues drain.

use crate::net::NodeId;
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Parameters of the hop-by-hop control (SPEC.md section 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HopControlConfig {
    /// Congested at `congestion_threshold + 1` data packets held.
    pub congestion_threshold: u32,
    /// How long an overheard RTSC / CTSC defers the node.
    pub hold_ms: f64,
    /// Overheard DATA frames from the congested neighbour that end the hold early.
    pub release_data_frames: u32,
    /// Answer an RTSC from the neighbour one's own packet waits for (mutual blocking).
    pub mutual_blocking_ctsc: bool,
    /// A congested node still answers an RTS whose packet ends at it.
    pub accept_final_hop: bool,
    /// End-to-end ACKs (pure ACK segments) neither count as held data nor
    /// are refused: the back-pressure governs the data stream.
    pub acks_exempt: bool,
}

impl Default for HopControlConfig {
    fn default() -> Self {
        HopControlConfig {
            congestion_threshold: 1,
            hold_ms: 6.0,
            release_data_frames: 1,
            mutual_blocking_ctsc: true,
            accept_final_hop: true,
            acks_exempt: true,
        }
    }
}

/// The running parameters.
#[derive(Debug, Clone)]
pub struct HopControl {
    pub congested_at: usize,
    pub hold: SimDuration,
    pub release_data_frames: u32,
    pub mutual_blocking_ctsc: bool,
    pub accept_final_hop: bool,
    pub acks_exempt: bool,
}

impl HopControl {
    pub fn new(config: &HopControlConfig) -> HopControl {
        HopControl {
            congested_at: config.congestion_threshold as usize + 1,
            hold: SimDuration::from_secs_f64(config.hold_ms / 1e3),
            release_data_frames: config.release_data_frames,
            mutual_blocking_ctsc: config.mutual_blocking_ctsc,
            accept_final_hop: config.accept_final_hop,
            acks_exempt: config.acks_exempt,
        }
    }

    /// Whether a packet counts as held data for the congestion test (and
    /// needs the receiver's buffer).
    pub fn counts(&self, packet: &crate::net::Packet) -> bool {
        !packet.is_control() && !(self.acks_exempt && packet.is_reverse())
    }
}

/// A congestion announcement overheard from a neighbour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heard {
    pub from: NodeId,
    pub at: SimTime,
    pub data_frames_since: u32,
}

/// Per-node state and counters of the hop-by-hop control.
#[derive(Debug, Clone, Default)]
pub struct HopState {
    pub congested: bool,
    pub congested_since: SimTime,
    pub congested_total_ns: u64,
    pub heard: Option<Heard>,
    /// Neighbours answered with a CTSC in this congestion episode.
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

impl HopState {
    /// Update the congestion flag from the number of data packets held.
    /// Returns true when the node just became uncongested.
    pub fn update(&mut self, now: SimTime, data_held: usize, control: &HopControl) -> bool {
        let congested = data_held >= control.congested_at;
        if congested == self.congested {
            return false;
        }
        self.congested = congested;
        if congested {
            self.congested_since = now;
            false
        } else {
            self.congested_total_ns += now.since(self.congested_since).as_nanos();
            self.ctsc_answered.clear();
            true
        }
    }

    /// Time congested up to `now`.
    pub fn congested_ns(&self, now: SimTime) -> u64 {
        self.congested_total_ns + if self.congested { now.since(self.congested_since).as_nanos() } else { 0 }
    }

    /// Whether an RTS to `next_hop` must wait, and until when at the latest.
    pub fn deferral(&self, now: SimTime, next_hop: NodeId, control: &HopControl) -> Option<SimTime> {
        let heard = self.heard?;
        let until = heard.at + control.hold;
        let active = now < until && heard.data_frames_since < control.release_data_frames;
        let relevant = !self.congested || heard.from == next_hop;
        (active && relevant).then_some(until)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control() -> HopControl {
        HopControl::new(&HopControlConfig::default())
    }

    #[test]
    fn congested_at_threshold_plus_one() {
        let c = control();
        let mut s = HopState::default();
        assert!(!s.update(SimTime(0), 1, &c));
        assert!(!s.congested);
        s.update(SimTime(10), 2, &c);
        assert!(s.congested);
        assert!(s.update(SimTime(30), 1, &c), "released");
        assert_eq!(s.congested_ns(SimTime(50)), 20);
    }

    #[test]
    fn deferral_lasts_the_hold_or_until_k_data_frames() {
        let c = control();
        let mut s = HopState { heard: Some(Heard { from: NodeId(3), at: SimTime(1_000), data_frames_since: 0 }), ..Default::default() };
        let until = SimTime(1_000) + c.hold;
        // Not congested: every RTS waits.
        assert_eq!(s.deferral(SimTime(2_000), NodeId(9), &c), Some(until));
        // After the hold, or after K = 1 DATA frame from node 3, nothing waits.
        assert_eq!(s.deferral(until, NodeId(9), &c), None);
        s.heard.as_mut().unwrap().data_frames_since = 1;
        assert_eq!(s.deferral(SimTime(2_000), NodeId(9), &c), None);
        // Congested: only an RTS to the congested neighbour waits.
        s.heard.as_mut().unwrap().data_frames_since = 0;
        s.congested = true;
        assert_eq!(s.deferral(SimTime(2_000), NodeId(9), &c), None);
        assert_eq!(s.deferral(SimTime(2_000), NodeId(3), &c), Some(until));
    }
}

/// How a node answers an RTS addressed to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtsAnswer {
    Cts,
    /// Congested, but mutually blocked with the sender: a CTSC.
    Ctsc,
    /// Congested: no answer.
    Refuse,
}

impl crate::world::World {
    /// At access: must the RTS to `next_hop` wait? If so, park it until the
    /// hold ends (or DATA frames release it earlier).
    pub(crate) fn hop_defers(&mut self, node: NodeId, next_hop: NodeId) -> bool {
        let Some(control) = &self.hop_control else { return false };
        let now = self.now();
        let Some(until) = self.nodes[node.index()].hop.deferral(now, next_hop, control) else { return false };
        let hop = &mut self.nodes[node.index()].hop;
        hop.parked = true;
        hop.deferrals += 1;
        self.arm(node, crate::world::TimerKind::HoldRelease, until);
        true
    }

    /// The hold ended or DATA frames released it: contend again with a
    /// fresh backoff, unless a newer announcement still holds the node.
    pub(crate) fn hop_release(&mut self, node: NodeId) {
        let now = self.now();
        let Some(control) = &self.hop_control else { return };
        let n = &mut self.nodes[node.index()];
        if !n.hop.parked {
            return;
        }
        let Some(op) = n.mac.op else {
            n.hop.parked = false;
            return;
        };
        if let Some(until) = n.hop.deferral(now, op.item.next_hop, control) {
            self.arm(node, crate::world::TimerKind::HoldRelease, until);
            return;
        }
        n.hop.parked = false;
        self.cancel(node, crate::world::TimerKind::HoldRelease);
        self.draw_backoff(node);
        self.mac_schedule_access(node);
    }

    /// An RTS addressed to `node` was decoded.
    pub(crate) fn hop_answer_rts(&mut self, node: NodeId, rts: &crate::mac::Frame) -> RtsAnswer {
        let Some(control) = &self.hop_control else { return RtsAnswer::Cts };
        let n = &mut self.nodes[node.index()];
        if !n.hop.congested || (rts.needs_no_buffer && control.accept_final_hop) {
            return RtsAnswer::Cts;
        }
        let mutual = rts.congestion_mark
            && control.mutual_blocking_ctsc
            && n.mac.op.is_some_and(|op| op.item.next_hop == rts.transmitter)
            && !n.hop.ctsc_answered.contains(&rts.transmitter);
        if mutual {
            n.hop.ctsc_answered.insert(rts.transmitter);
            n.hop.ctsc_sent += 1;
            RtsAnswer::Ctsc
        } else {
            n.hop.rts_refused += 1;
            RtsAnswer::Refuse
        }
    }

    /// A frame was decoded: note congestion announcements (RTSC / CTSC) and
    /// DATA frames of the announcing neighbour.
    pub(crate) fn hop_heard(&mut self, node: NodeId, frame: &crate::mac::Frame) {
        use crate::mac::FrameKind;
        let Some(control) = &self.hop_control else { return };
        let now = self.now();
        let release_after = control.release_data_frames;
        let hop = &mut self.nodes[node.index()].hop;
        match frame.kind {
            FrameKind::Rts | FrameKind::Cts if frame.congestion_mark => {
                if frame.kind == FrameKind::Rts {
                    hop.rtsc_overheard += 1;
                } else {
                    hop.ctsc_overheard += 1;
                }
                hop.heard = Some(Heard { from: frame.transmitter, at: now, data_frames_since: 0 });
            }
            FrameKind::Data => {
                if let Some(heard) = &mut hop.heard {
                    if heard.from == frame.transmitter {
                        heard.data_frames_since += 1;
                        if heard.data_frames_since >= release_after && hop.parked {
                            self.hop_release(node);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// An RTS to `next_hop` sent at `sent_at` went unanswered: if the next
    /// hop announced its congestion meanwhile, the attempt does not count.
    pub(crate) fn hop_excuses_failure(&mut self, node: NodeId, next_hop: NodeId, sent_at: SimTime) -> bool {
        let Some(control) = &self.hop_control else { return false };
        let hold = control.hold;
        let hop = &mut self.nodes[node.index()].hop;
        // The next hop announced its congestion after the RTS went out, or
        // within a hold time before: it was (or still is) refusing.
        let excused = hop.heard.is_some_and(|h| h.from == next_hop && h.at + hold >= sent_at);
        if excused {
            hop.uncounted_attempts += 1;
        }
        excused
    }

    /// Note that `node`'s held data may have changed; its congestion state
    /// is re-evaluated once the current event is complete
    /// ([`World::hop_flush`]).
    pub(crate) fn hop_update(&mut self, node: NodeId) {
        if self.hop_control.is_some() && !self.hop_dirty.contains(&node) {
            self.hop_dirty.push(node);
        }
    }

    /// Re-evaluate the congestion state of the nodes whose held data
    /// changed during the event just processed.
    pub(crate) fn hop_flush(&mut self) {
        let mut dirty = std::mem::take(&mut self.hop_dirty);
        for &node in &dirty {
            self.hop_evaluate(node);
        }
        dirty.clear();
        self.hop_dirty = dirty;
    }

    fn hop_evaluate(&mut self, node: NodeId) {
        let Some(control) = &self.hop_control else { return };
        let now = self.now();
        // Packets waiting for a route count too (SPEC.md section 2).
        let waiting = self.routing_held(node, |p| control.counts(p));
        let n = &mut self.nodes[node.index()];
        let in_service = n.mac.op.iter().map(|op| &op.item);
        let held = n.mac.queue.iter().chain(in_service).filter(|q| control.counts(&q.packet)).count() + waiting;
        n.hop.update(now, held, control);
    }
}
