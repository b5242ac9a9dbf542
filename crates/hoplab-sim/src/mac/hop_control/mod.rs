//! Hop-by-hop congestion control inside the MAC: the rules a MAC follows
//! to push congestion back toward the source (semi-TCP's RTSC / CTSC).
//!
//! The DCF asks the control questions (must this RTS wait? does it carry
//! the congestion mark? how to answer an RTS? does an unanswered RTS
//! count?) and tells it what it heard and how many data packets the node
//! holds; the control never reaches into the transport or the routing
//! layer (the world counts the packets routing holds for it).
//!
//! - [`semitcp`]: semi-TCP (Cai et al. 2013; seed 000 section 2).
//!
//! **Adding a scheme**: one file here implementing [`HopControl`] (the
//! hooks it changes from plain DCF's) and [`FromHopConfig`], one line in
//! `hop_controls!` below, its scenario keys, and when the scenario runs it
//! (`Scenario::hop_control`).

pub mod semitcp;

pub use semitcp::{CtscMemory, HopControlConfig, SemiTcpHop};

use super::{Exchange, Mac, MacContext, MacOutputs, MacTimer, RtsHeard, ServiceTail, TxOp};
use crate::queue::Queued;
use crate::time::SimTime;
use crate::wire::ieee80211::Frame;
use crate::wire::{NodeId, Packet};

/// How a node answers an RTS addressed to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtsAnswer {
    Cts,
    /// Congested, but mutually blocked with the sender: a CTSC.
    Ctsc,
    /// Congested: no answer.
    Refuse,
    /// Congested: no answer, and the node sends its own RTS(C) SIFS after
    /// the refused RTS (`refusal_rtsc`).
    RefuseWithRtsc,
}

/// Where the DCF asks whether an RTS must wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeferralPoint {
    /// The backoff ended (every attempt).
    Access,
    /// A packet entered service (`defer_new_packets_only`).
    ServiceStart,
}

/// What a decoded frame means for a parked RTS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeardEffect {
    Nothing,
    /// DATA frames released the parked RTS.
    Release,
    /// `from` announced its congestion with an RTS(C) (`park_on_refusal`):
    /// if this node waits for a CTS from `from`, that RTS was refused, and
    /// its packet parks until `hold_until`.
    RtsAnnounced {
        from: NodeId,
        hold_until: SimTime,
    },
}

/// The control's counters for the run report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HopStats {
    pub rtsc_sent: u64,
    pub ctsc_sent: u64,
    pub rts_refused: u64,
    pub deferrals: u64,
    pub congested_ns: u64,
}

/// A hop-by-hop congestion control scheme (one per node). Every hook's
/// default body is plain 802.11 DCF's (no control): a scheme overrides
/// the ones it changes.
pub trait HopControl {
    fn is_enabled(&self) -> bool {
        false
    }
    /// Whether a packet counts as held data (and needs the receiver's
    /// buffer).
    fn counts(&self, packet: &Packet) -> bool {
        !packet.is_control()
    }
    /// Whether an RTS for this packet may be answered by a congested
    /// receiver (the packet needs no buffer there).
    fn exempts(&self, _packet: &Packet) -> bool {
        false
    }
    /// Whether a packet waiting in the interface queue or for a route
    /// counts as held.
    fn counts_waiting(&self, packet: &Packet) -> bool {
        !packet.is_control()
    }
    /// At access: whether the RTS carries the congestion mark (RTSC).
    fn marks_rts(&mut self) -> bool {
        false
    }
    /// Whether an RTS to `next_hop` must wait now (asked at `point`), and
    /// until when at most.
    fn deferral(&self, _now: SimTime, _next_hop: NodeId, _point: DeferralPoint) -> Option<SimTime> {
        None
    }
    /// A parked RTS to `next_hop` is due for release (its hold ended, or
    /// DATA frames released it): until when it must still wait, if at all.
    fn still_held(&self, _now: SimTime, _next_hop: NodeId) -> Option<SimTime> {
        None
    }
    /// Whether the CTS timeout leaves room for a refusal RTSC.
    fn cts_wait_covers_rtsc(&self) -> bool {
        false
    }
    /// Whether a parked data packet moves aside so that routing packets
    /// can be served meanwhile (and routing packets are never parked).
    fn parks_aside(&self) -> bool {
        false
    }
    /// The head-of-line RTS is held back by a deferral.
    fn park(&mut self) {}
    fn is_parked(&self) -> bool {
        false
    }
    fn unpark(&mut self) {}
    /// An RTS addressed to this node was decoded; `own_head` is the
    /// node's packet in service (parked or not).
    fn answer_rts(&mut self, _rts: &RtsHeard, _own_head: Option<&Queued>) -> RtsAnswer {
        RtsAnswer::Cts
    }
    /// A frame was decoded (addressed here or overheard).
    fn heard(&mut self, _now: SimTime, _frame: &Frame) -> HeardEffect {
        HeardEffect::Nothing
    }
    /// An RTS to `next_hop` sent at `sent_at` went unanswered: true if the
    /// attempt does not count toward the retry limit.
    fn excuses_failure(&mut self, _next_hop: NodeId, _sent_at: SimTime) -> bool {
        false
    }
    /// This node's RTS was answered by `from` with a CTS (a CTSC with
    /// `congestion_mark`).
    fn cts_received(&mut self, _from: NodeId, _congestion_mark: bool) {}
    /// This node's DATA to `next_hop` was acknowledged.
    fn data_acked(&mut self, _next_hop: NodeId) {}
    /// Whether the node waits for the DATA its CTSC asked for (and calls
    /// `ctsc_unused` if none comes).
    fn awaits_data_after_ctsc(&self) -> bool {
        false
    }
    /// No DATA followed this node's CTSC to `to`: true if that releases a
    /// packet parked toward `to`.
    fn ctsc_unused(&mut self, _to: NodeId) -> bool {
        false
    }
    /// This node sent an ACK to `to`: true if that releases a parked packet.
    fn ack_sent(&self, _to: NodeId) -> bool {
        false
    }
    /// The node now holds `held` counted data packets.
    fn update(&mut self, _now: SimTime, _held: usize) {}
    fn stats(&self, _end: SimTime) -> HopStats {
        HopStats::default()
    }
}

impl HopStats {
    /// The node's section of the run report: these counters by the
    /// report's names (`rts_sent`: the RTS frames the node sent; `run_ns`:
    /// the run's length). Every node reports them, zeros under plain DCF.
    pub fn section(&self, rts_sent: u64, run_ns: f64) -> crate::engine::Section {
        let rtsc_ratio = if rts_sent > 0 { self.rtsc_sent as f64 / rts_sent as f64 } else { 0.0 };
        crate::engine::Section::from([
            ("rtsc_sent".to_string(), self.rtsc_sent.into()),
            ("ctsc_sent".to_string(), self.ctsc_sent.into()),
            ("rtsc_ratio".to_string(), rtsc_ratio.into()),
            ("congested_fraction".to_string(), (self.congested_ns as f64 / run_ns).into()),
            ("rts_refused".to_string(), self.rts_refused.into()),
            ("hold_deferrals".to_string(), self.deferrals.into()),
        ])
    }

    /// The section's keys (`_core.report_fields()["nodes"]`).
    pub fn report_keys() -> Vec<String> {
        HopStats::default().section(0, 1.0).into_keys().collect()
    }

    /// The counters a recorded run follows per interval (the run viewer's
    /// node colours; `Recording`'s `nodes.hop_control`), each by its key
    /// in [`HopStats::section`] and what it counts.
    pub const PER_INTERVAL: &'static [IntervalCounter] =
        &[IntervalCounter { key: "rtsc_sent", label: "RTSCs sent", read: |stats| stats.rtsc_sent }];
}

/// A cumulative counter of [`HopStats`] that a recording samples per
/// interval ([`HopStats::PER_INTERVAL`]).
#[derive(Debug, Clone, Copy)]
pub struct IntervalCounter {
    /// Its key in the nodes' report section.
    pub key: &'static str,
    /// What it counts, as the run viewer labels it.
    pub label: &'static str,
    pub read: fn(&HopStats) -> u64,
}

/// Plain 802.11 DCF: no hop-by-hop control (every hook's default).
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainDcf;

impl HopControl for PlainDcf {}

/// A scheme as the registry builds it: from its configuration.
pub trait FromHopConfig: HopControl + Sized {
    type Config: 'static;
    /// Its rules of `preset = "ns2"`, declared beside its config.
    const NS2_RULES: &'static [crate::config::PresetRule] = &[];
    fn from_config(config: &Self::Config) -> Self;
}

/// The registry: one line per scheme, `Name(Type)`. It makes
/// [`HopControlKind`] (plain DCF, `Off`, and one variant per scheme:
/// enum dispatch, no allocation or dynamic dispatch per event) and
/// [`HopControlChoice`], what the scenario chooses (`Scenario::hop_control`).
macro_rules! hop_controls {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        /// The schemes, dispatched without allocation or dynamic dispatch.
        #[derive(Debug, Clone)]
        pub enum HopControlKind {
            /// Plain 802.11.
            Off,
            $($(#[$doc])* $variant($ty),)*
        }

        macro_rules! each {
            ($self:ident, $h:ident => $e:expr) => {
                match $self {
                    HopControlKind::Off => {
                        let $h = PlainDcf;
                        #[allow(unused_mut)]
                        let mut $h = $h;
                        $e
                    }
                    $(HopControlKind::$variant($h) => $e,)*
                }
            };
        }

        /// The scheme a scenario runs at every node, with its configuration.
        #[derive(Debug, Clone, Copy)]
        pub enum HopControlChoice<'a> {
            $($variant(&'a <$ty as FromHopConfig>::Config),)*
        }

        $(impl<'a> From<&'a <$ty as FromHopConfig>::Config> for HopControlChoice<'a> {
            fn from(config: &'a <$ty as FromHopConfig>::Config) -> Self {
                HopControlChoice::$variant(config)
            }
        })*

        impl HopControlKind {
            /// Every scheme's ns-2 preset rules, in registry order.
            pub fn ns2_rules() -> impl Iterator<Item = &'static crate::config::PresetRule> {
                [$(<$ty>::NS2_RULES),*].into_iter().flatten()
            }

            /// A node's scheme: the scenario's choice, else plain DCF.
            pub fn build<'a>(choice: Option<impl Into<HopControlChoice<'a>>>) -> HopControlKind {
                match choice.map(Into::into) {
                    $(Some(HopControlChoice::$variant(config)) => HopControlKind::$variant(<$ty>::from_config(config)),)*
                    None => HopControlKind::Off,
                }
            }
        }
    };
}

hop_controls! {
    /// Semi-TCP's RTSC / CTSC (`semitcp`).
    SemiTcp(SemiTcpHop),
}

impl HopControlKind {
    /// The node's section of the run report (see [`HopStats::section`]).
    pub fn section(&self, end: SimTime, rts_sent: u64, run_ns: f64) -> crate::engine::Section {
        self.stats(end).section(rts_sent, run_ns)
    }
}

impl HopControl for HopControlKind {
    #[inline]
    fn is_enabled(&self) -> bool {
        each!(self, h => h.is_enabled())
    }
    #[inline]
    fn counts(&self, packet: &Packet) -> bool {
        each!(self, h => h.counts(packet))
    }
    #[inline]
    fn exempts(&self, packet: &Packet) -> bool {
        each!(self, h => h.exempts(packet))
    }
    #[inline]
    fn counts_waiting(&self, packet: &Packet) -> bool {
        each!(self, h => h.counts_waiting(packet))
    }
    #[inline]
    fn marks_rts(&mut self) -> bool {
        each!(self, h => h.marks_rts())
    }
    #[inline]
    fn deferral(&self, now: SimTime, next_hop: NodeId, point: DeferralPoint) -> Option<SimTime> {
        each!(self, h => h.deferral(now, next_hop, point))
    }
    #[inline]
    fn still_held(&self, now: SimTime, next_hop: NodeId) -> Option<SimTime> {
        each!(self, h => h.still_held(now, next_hop))
    }
    #[inline]
    fn cts_wait_covers_rtsc(&self) -> bool {
        each!(self, h => h.cts_wait_covers_rtsc())
    }
    #[inline]
    fn parks_aside(&self) -> bool {
        each!(self, h => h.parks_aside())
    }
    #[inline]
    fn park(&mut self) {
        each!(self, h => h.park())
    }
    #[inline]
    fn is_parked(&self) -> bool {
        each!(self, h => h.is_parked())
    }
    #[inline]
    fn unpark(&mut self) {
        each!(self, h => h.unpark())
    }
    #[inline]
    fn answer_rts(&mut self, rts: &RtsHeard, own_head: Option<&Queued>) -> RtsAnswer {
        each!(self, h => h.answer_rts(rts, own_head))
    }
    #[inline]
    fn heard(&mut self, now: SimTime, frame: &Frame) -> HeardEffect {
        each!(self, h => h.heard(now, frame))
    }
    #[inline]
    fn excuses_failure(&mut self, next_hop: NodeId, sent_at: SimTime) -> bool {
        each!(self, h => h.excuses_failure(next_hop, sent_at))
    }
    #[inline]
    fn cts_received(&mut self, from: NodeId, congestion_mark: bool) {
        each!(self, h => h.cts_received(from, congestion_mark))
    }
    #[inline]
    fn data_acked(&mut self, next_hop: NodeId) {
        each!(self, h => h.data_acked(next_hop))
    }
    #[inline]
    fn awaits_data_after_ctsc(&self) -> bool {
        each!(self, h => h.awaits_data_after_ctsc())
    }
    #[inline]
    fn ctsc_unused(&mut self, to: NodeId) -> bool {
        each!(self, h => h.ctsc_unused(to))
    }
    #[inline]
    fn ack_sent(&self, to: NodeId) -> bool {
        each!(self, h => h.ack_sent(to))
    }
    #[inline]
    fn update(&mut self, now: SimTime, held: usize) {
        each!(self, h => h.update(now, held))
    }
    #[inline]
    fn stats(&self, end: SimTime) -> HopStats {
        each!(self, h => h.stats(end))
    }
}

impl Mac {
    /// Must the RTS to `next_hop` wait (asked at `point`)? If so, park it
    /// until the hold ends (or DATA frames release it earlier).
    pub(crate) fn hop_defers(
        &mut self,
        now: SimTime,
        next_hop: NodeId,
        point: DeferralPoint,
        ctx: &mut MacContext,
        out: &mut MacOutputs,
    ) -> bool {
        let Some(until) = self.hop.deferral(now, next_hop, point) else { return false };
        if self.hop.parks_aside() && self.op.is_some_and(|op| op.item.packet.is_control()) {
            return false; // ns-2 never parks a routing packet (store_tx, 2421)
        }
        self.hop_park(now, until, ctx, out);
        true
    }

    /// A packet entered service: with `defer_new_packets_only`, a data
    /// packet sent after an RTS is parked now if an announcement holds the
    /// node (ns-2 `Mac802_11::send`, mac-802_11.cc:1525-1540, `defer_rts`
    /// 2340-2361).
    pub(crate) fn hop_defers_new_packet(&mut self, now: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        let Some(op) = self.op else { return };
        if op.uses_rts && !op.item.packet.is_control() {
            self.hop_defers(now, op.item.next_hop, DeferralPoint::ServiceStart, ctx, out);
        }
    }

    /// Park the RTS of the packet in service until `until` at the latest:
    /// no access meanwhile, the backoff dropped (ns-2 `store_tx`,
    /// mac-802_11.cc:2414-2442). With `parked_lets_routing_out` the packet
    /// moves aside (ns-2 `pktPre_`) and a routing packet at the head of
    /// the queue may be served meanwhile (`tx_resume`, 668-682).
    fn hop_park(&mut self, now: SimTime, until: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        self.hop.park();
        if self.access_armed {
            self.cancel(MacTimer::Access, ctx);
        }
        self.backoff_slots = None;
        self.arm(MacTimer::HoldRelease, until, ctx);
        if self.hop.parks_aside() {
            self.parked = self.op.take();
            self.start_next(now, ServiceTail::Enqueued, ctx, out);
        }
    }

    /// The packet parked, if nothing else is in service (ns-2 `pktPre_ &&
    /// !pktTx_`).
    pub(crate) fn parked_alone(&self) -> Option<TxOp> {
        match self.parked {
            Some(parked) => self.op.is_none().then_some(parked),
            None => self.op.filter(|_| self.hop.is_parked()),
        }
    }

    /// The hold ended or DATA frames released it: contend again with a
    /// fresh backoff, unless a newer announcement still holds the node.
    /// (On release the node draws a fresh backoff from its current window,
    /// so that the nodes released by one DATA frame do not all send at
    /// once: docs/semitcp-2018.md leaves the re-entry open; this is the hoplab reading.)
    pub(crate) fn hop_release(&mut self, now: SimTime, ctx: &mut MacContext) {
        if !self.hop.is_parked() {
            return;
        }
        let Some(parked) = self.parked.or(self.op) else {
            self.hop.unpark();
            return;
        };
        if let Some(until) = self.hop.still_held(now, parked.item.next_hop) {
            self.arm(MacTimer::HoldRelease, until, ctx);
            return;
        }
        self.hop_unpark(now, ctx);
    }

    /// Release the parked RTS now, whatever holds it (ns-2 `restore_tx`,
    /// mac-802_11.cc:2448-2486): contend again with a fresh backoff. A
    /// packet parked aside while a routing packet is in service returns
    /// when that one's service ends (`start_next`; ns-2 2456-2459).
    pub(crate) fn hop_unpark(&mut self, now: SimTime, ctx: &mut MacContext) {
        self.hop.unpark();
        self.cancel(MacTimer::HoldRelease, ctx);
        if self.parked.is_some() {
            if self.op.is_some() {
                return;
            }
            self.op = self.parked.take();
        }
        self.draw_backoff();
        self.schedule_access(now, ctx);
    }

    /// No DATA came after this node's CTSC (`MacTimer::DataWait`): the
    /// control forgets the help, and may release a packet parked toward
    /// the neighbour (ns-2 `send_timer`, mac-802_11.cc:808-816).
    pub(crate) fn hop_ctsc_unused(&mut self, now: SimTime, ctx: &mut MacContext) {
        let Some(to) = self.awaiting_data.take() else { return };
        let parked_toward_to = self.parked_alone().is_some_and(|op| op.item.next_hop == to);
        if self.hop.ctsc_unused(to) && parked_toward_to {
            self.hop_unpark(now, ctx);
        }
    }

    /// A frame was decoded: the control notes congestion announcements and
    /// the DATA frames that end a hold.
    pub(crate) fn hop_heard(&mut self, now: SimTime, frame: &Frame, ctx: &mut MacContext, out: &mut MacOutputs) {
        match self.hop.heard(now, frame) {
            HeardEffect::Nothing => {}
            HeardEffect::Release => self.hop_release(now, ctx),
            HeardEffect::RtsAnnounced { from, hold_until } => {
                // ns-2 overHear (mac-802_11.cc:2284-2297): an RTS(C) from
                // the node whose CTS this one awaits is its refusal: park,
                // no timeout, no retry counted, the window unchanged.
                let refused = self.exchange == Exchange::WaitCts
                    && self.op.is_some_and(|op| op.item.next_hop == from && !(self.hop.parks_aside() && op.item.packet.is_control()));
                if refused {
                    self.cancel(MacTimer::ResponseTimeout, ctx);
                    self.exchange = Exchange::Idle;
                    self.hop_park(now, hold_until, ctx, out);
                }
            }
        }
    }
}
