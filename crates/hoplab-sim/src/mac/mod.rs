//! The MAC: IEEE 802.11 DCF (IEEE 802.11-2016 clause 10.3) with RTS/CTS.
//!
//! Owns: the interface queue (a [`QueueDiscipline`]), the packet in
//! service and its retry counters, the contention window and backoff, the
//! NAV, IFS choice (DIFS / EIFS), the frame exchange RTS -> CTS -> DATA ->
//! ACK with its timeouts, duplicate detection, the per-node MAC statistics,
//! and semi-TCP's hop-by-hop control ([`hop_control`], behind the
//! [`HopControl`] trait). Reads the PHY's carrier sense; never touches
//! routing tables or transports: what the layers above must know leaves as
//! a [`MacIndication`].
//!
//! One node's MAC is a sans-IO state machine: [`Mac::handle`] takes a
//! [`MacInput`] (a packet to send, a PHY indication, one of its timers),
//! requests timers, and writes [`MacOutput`]s: a frame to transmit,
//! indications for the layers above. The world hands the outputs on, in
//! order, before anything else happens.
//!
//! Where the layers above must react before the MAC goes on, the MAC stops
//! after its indication and asks to be resumed ([`MacOutput::Resume`]): at
//! the retry limit (routing takes back the packets queued toward the broken
//! next hop before the next one is served), when a packet's service ends
//! (a source may refill, or change its rate, before the next packet enters
//! service), when a packet enters service (a source refills before the
//! MAC contends), and after a reception that went up (a node forwarding
//! the packet it just received sees the medium as it was). ns-2's
//! `Mac802_11` does the same through its callbacks and `tx_resume()`.
//!
//! Files: `access.rs` (carrier sense, NAV, backoff, slot boundaries),
//! `exchange.rs` (frames sent and received, timeouts, retries),
//! `service.rs` (the queue and the packet in service), `timing.rs`
//! (interframe spaces, airtimes), `stats.rs`, `hop_control/`.

pub mod access;
pub mod config;
pub mod exchange;
pub mod hop_control;
pub mod service;
pub mod stats;
pub mod timing;

#[cfg(test)]
mod tests;

pub use crate::wire::ieee80211::{Frame, FrameKind, BROADCAST};
pub use hop_control::{HopControl, HopControlKind, RtsAnswer};
pub use stats::MacStats;
pub use timing::MacTiming;

use crate::engine::{Stream, TimerRequests};
use crate::loss::DropCause;
use crate::phy::{Phy, PhyIndication};
use crate::queue::{QueueDisc, QueueDiscipline, Queued};
use crate::time::{SimDuration, SimTime};
use crate::wire::{NodeId, Packet, PacketInfo};
use arrayvec::ArrayVec;
use std::collections::BTreeMap;

/// Where the node is in a frame exchange it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// Not in an exchange: may contend for the medium.
    Idle,
    /// Sending (or sent) an RTS, waiting for the CTS.
    WaitCts,
    /// Sending (or sent) a unicast DATA, waiting for the ACK.
    WaitAck,
    /// Sending a broadcast DATA (no response expected).
    Broadcast,
}

/// What a node does SIFS after a frame that asked for an answer. No
/// variant keeps a whole frame: one would be copied in and out whole (232
/// bytes each time, docs/performance.md); each frame is written onto the
/// air when it goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Response {
    /// Send the DATA frame of the packet in service (the answer to a CTS),
    /// written from the service when it goes (`put_data_frame`): nothing
    /// changes the service in the SIFS between (the node is in its
    /// exchange, so no access, service start or parking runs, and no
    /// other frame can end at it so soon).
    SendData,
    /// Send this CTS or ACK: its fields only.
    Reply(Reply),
    /// Answer this RTS now if the medium is idle (`mac.cts_check_at_sifs`;
    /// ns-2 keeps the RTS as `last_rts_frame` for `check_pktCTRL`): the
    /// fields the answer is decided from.
    AnswerRts(RtsHeard),
    /// The RTS was refused: send the node's own RTS(C) now if the medium is
    /// idle (`semitcp.mac.refusal_rtsc`).
    RefusalRts,
}

/// A control frame answering another (a CTS or an ACK), to send SIFS
/// later.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reply {
    pub kind: FrameKind,
    /// RA: the transmitter of the frame answered.
    pub to: NodeId,
    /// The Duration field.
    pub duration: SimDuration,
    pub airtime: SimDuration,
    /// A CTSC (semi-TCP).
    pub congestion_mark: bool,
}

impl Reply {
    /// The frame, sent by `from`.
    pub fn frame(&self, from: NodeId) -> Frame {
        Frame { congestion_mark: self.congestion_mark, ..Frame::new(self.kind, from, self.to, self.duration, self.airtime) }
    }
}

/// The fields of a decoded RTS that its answer is decided from (a CTS's
/// Duration and RA, semi-TCP's refusal).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RtsHeard {
    /// TA: the station asking.
    pub transmitter: NodeId,
    /// The Duration field.
    pub duration: SimDuration,
    /// An RTSC (semi-TCP).
    pub congestion_mark: bool,
    /// The packet that follows needs no buffer at the receiver.
    pub needs_no_buffer: bool,
    /// The packet that follows is a routing packet.
    pub control_packet: bool,
}

impl RtsHeard {
    pub fn of(rts: &Frame) -> RtsHeard {
        RtsHeard {
            transmitter: rts.transmitter,
            duration: rts.duration,
            congestion_mark: rts.congestion_mark,
            needs_no_buffer: rts.needs_no_buffer,
            control_packet: rts.control_packet,
        }
    }
}

/// How the last failed attempt of the packet in service was lost (ground
/// truth for the drop cause; the sender itself only sees a timeout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptLoss {
    /// No response: collision, hidden terminal, busy or refusing receiver.
    NoResponse,
    /// The DATA frame (with `errors.scope = "every_frame"`, any frame of
    /// the exchange) was destroyed by the frame error model.
    ChannelError,
}

/// The packet at the head of the MAC, being served.
#[derive(Debug, Clone, Copy)]
pub struct TxOp {
    pub item: Queued,
    /// RTS/CTS precedes the DATA (unicast and longer than the RTS threshold).
    pub uses_rts: bool,
    /// Short retry count (SRC, 10.3.4.4): failed RTS, or DATA sent without RTS.
    pub short_retries: u32,
    /// Long retry count (LRC): failed DATA sent after a CTS.
    pub long_retries: u32,
    /// RTS transmissions so far (APR).
    pub rts_attempts: u32,
    /// DATA transmissions so far.
    pub data_attempts: u32,
    /// When the packet reached the head of the queue (MST starts here).
    pub head_since: SimTime,
    pub sequence: u16,
    pub last_loss: AttemptLoss,
    /// When the latest RTS (or DATA without RTS) attempt went out.
    pub last_attempt_at: SimTime,
}

/// The MAC's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum MacTimer {
    /// Backoff reached zero at a slot boundary: transmit.
    Access = 0,
    /// The NAV expires.
    NavEnd = 1,
    /// No CTS / ACK arrived in time.
    ResponseTimeout = 2,
    /// SIFS has passed: send the pending CTS / DATA / ACK.
    SendResponse = 3,
    /// A semi-TCP deferral (overheard RTSC / CTSC) may have ended.
    HoldRelease = 4,
    /// The DATA a CTSC asked for has not come (semi-TCP,
    /// `ctsc_memory = "until_reciprocated"`).
    DataWait = 5,
}

impl MacTimer {
    pub const COUNT: usize = 6;
    pub const ALL: [MacTimer; 6] =
        [MacTimer::Access, MacTimer::NavEnd, MacTimer::ResponseTimeout, MacTimer::SendResponse, MacTimer::HoldRelease, MacTimer::DataWait];
}

/// Names a packet carried by an output (an index into
/// [`MacOutputs::packets`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketRef(pub u8);

/// How one unicast packet's service ended (acknowledged or failed): its MAC service time (head of queue to ACK or drop) and
/// attempt counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TxDone {
    pub packet: PacketInfo,
    pub next_hop: NodeId,
    /// Acknowledged (TxOk); false: dropped at the retry limit (TxFailed).
    pub acknowledged: bool,
    pub service_time: SimDuration,
    pub rts_attempts: u32,
    pub data_attempts: u32,
}

/// What the MAC tells the layers above.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MacIndication {
    /// A frame from `from` was decoded (addressed here or overheard): a
    /// sign of life of that neighbour (AODV's HELLO neighbours).
    Heard { from: NodeId },
    /// A unicast DATA frame from `from` to another node was decoded, its
    /// packet in [`MacContext::received`] (with `promiscuous`: DSR's tap).
    Overheard { from: NodeId },
    /// The packet of the frame just received ([`MacContext::received`])
    /// arrived from neighbour `from`.
    Delivered { from: NodeId },
    /// A packet left the queue and entered service (a source may refill).
    ServiceStarted { packet: PacketInfo },
    /// The packet in service reached its retry limit toward `next_hop`:
    /// link-layer feedback for routing. `sequence` and `data_attempts` let
    /// the world check whether the next hop did receive the DATA (only its
    /// ACKs were lost); `last_loss` is the ground truth of the last attempt.
    RetryLimit { packet: PacketRef, next_hop: NodeId, sequence: u16, data_attempts: u32, last_loss: AttemptLoss },
    /// A unicast packet's service ended (acknowledged or dropped).
    TxDone(TxDone),
    /// The queue refused or pushed out a packet.
    Dropped { packet: PacketRef, cause: DropCause },
    /// The data packets this node holds changed: semi-TCP re-evaluates its
    /// congestion state at the end of the event (only with hop control).
    HeldChanged,
    /// A service ended and the MAC found its interface queue empty: it is
    /// idle. ns-2's MAC pulls here (`tx_resume` -> `Queue::resume` ->
    /// `PacketQueue::deque` finding no head, `queue/queue.cc:71-81` in
    /// musicinthedark/semitcp), which semi-TCP's agents answer with one
    /// packet (`[semitcp] sink_holds_acks`, `source_pull`).
    QueueDrained,
}

/// Steps the MAC resumes with once the layers above have reacted to its
/// last indication (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// After `RetryLimit`: end the failed packet's service.
    AfterRetryLimit,
    /// After `TxDone`: post-backoff, then serve the next packet;
    /// `after_timeout` when the service ended in a response timeout.
    AfterServiceEnd { after_timeout: bool },
    /// After a reception or transmission ended and what it caused above:
    /// re-read carrier sense.
    MediumCheck,
    /// After `ServiceStarted`: contend for the medium, then finish what
    /// took the packet into service.
    AfterServiceStart(ServiceTail),
}

/// What remains to do after a packet entered service, by what took it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceTail {
    /// A packet arrived at an idle MAC.
    Enqueued,
    /// The previous packet's service ended (`after_timeout`: in a response
    /// timeout).
    ServiceEnded { after_timeout: bool },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MacInput {
    /// A packet from the network layer, for `next_hop`.
    Enqueue(Queued),
    Phy(PhyIndication),
    Timer(MacTimer),
    Resume(Resume),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MacOutput {
    /// Put [`Mac::frame_on_air`] on the air.
    Transmit,
    Indication(MacIndication),
    /// Hand this input back to the MAC once the outputs before it are done.
    Resume(Resume),
}

/// What one MAC step asks for: its outputs in order, and the packets its
/// rare indications carry whole (a retry-limit failure, a drop), kept
/// beside the list so that each output stays a few words (an indication
/// names its packet by [`PacketRef`]). Fixed capacities: one step writes
/// at most 8 outputs and 2 packets. (Timers are requested through the
/// context.)
#[derive(Debug, Default)]
pub struct MacOutputs {
    pub list: ArrayVec<MacOutput, 8>,
    pub packets: ArrayVec<Packet, 2>,
    /// An indication was emitted whose handling may come back to this MAC
    /// (a delivered packet forwarded, a refill, a route repair).
    reentrant: bool,
}

impl MacOutputs {
    pub fn push(&mut self, output: MacOutput) {
        self.list.push(output);
    }

    /// Keep a packet for an indication.
    pub fn packet(&mut self, packet: Packet) -> PacketRef {
        self.packets.push(packet);
        PacketRef((self.packets.len() - 1) as u8)
    }

    pub fn indicate(&mut self, indication: MacIndication) {
        self.reentrant |= !matches!(indication, MacIndication::Heard { .. } | MacIndication::HeldChanged);
        self.list.push(MacOutput::Indication(indication));
    }
}

/// What the MAC reads of its surroundings while handling an input, and
/// where it requests its timers.
pub struct MacContext<'a> {
    pub timing: &'a MacTiming,
    /// The node's PHY (carrier sense, half duplex).
    pub phy: &'a Phy,
    /// With an `RxEnd` indication: the frame that ended.
    pub received: Option<&'a Frame>,
    pub timers: &'a mut dyn TimerRequests<MacTimer>,
}

/// One node's MAC.
#[derive(Debug, Clone)]
pub struct Mac {
    node: NodeId,
    queue: QueueDiscipline,
    op: Option<TxOp>,
    /// Semi-TCP (`parked_lets_routing_out`): a data packet parked aside
    /// while routing packets are served (ns-2's `pktPre_`).
    parked: Option<TxOp>,
    /// Current contention window (CW), from cw_min doubling to cw_max.
    cw: u32,
    /// Backoff slots still to count down; None when no backoff is pending.
    backoff_slots: Option<u32>,
    exchange: Exchange,
    /// Virtual carrier sense: the medium is reserved until this time.
    nav_until: SimTime,
    /// The medium as channel access last saw it (physical or virtual busy).
    medium_busy: bool,
    /// The first backoff slot boundary of the current idle period.
    countdown_from: SimTime,
    /// After a frame received in error, access waits at least until here
    /// (its end + EIFS); cleared by a correctly received frame (10.3.2.3.7).
    eifs_until: SimTime,
    next_sequence: u16,
    /// What to do SIFS after the frame that asked for an answer.
    pending_response: Option<Response>,
    /// The frame this node is transmitting right now.
    on_air: Option<Frame>,
    /// Duplicate detection: last sequence number received per transmitter.
    last_received_sequence: BTreeMap<NodeId, u16>,
    /// The NavEnd timer is armed deferred, without a queue entry yet
    /// (`set_nav`).
    nav_end_deferred: bool,
    /// A NavEnd entry (of this arming or an earlier one) is in the event
    /// queue: it pops before the NAV's end, and the deferred arming gets
    /// its entry then if it needs one (`nav_entry_popped`).
    nav_entry_queued: bool,
    /// The access timer is armed (a backoff is counting down).
    access_armed: bool,
    /// The pending access is ns-2's defer (`mac.busy_doubles_cw`): not
    /// frozen by a busy medium.
    access_defers: bool,
    /// Semi-TCP: the neighbour this node's CTSC asked for a DATA frame
    /// (`MacTimer::DataWait` runs).
    awaiting_data: Option<NodeId>,
    hop: HopControlKind,
    /// Hand unicast DATA frames for other nodes up (promiscuous
    /// listening, as ns-2's `Mac::installTap` for DSR).
    promiscuous: bool,
    stats: MacStats,
    backoff_rng: Stream,
    queue_rng: Stream,
}

impl Mac {
    pub fn new(node: NodeId, queue: QueueDiscipline, cw_min: u32, hop: HopControlKind, backoff_rng: Stream, queue_rng: Stream) -> Mac {
        Mac {
            node,
            queue,
            op: None,
            parked: None,
            cw: cw_min,
            backoff_slots: None,
            exchange: Exchange::Idle,
            nav_until: SimTime::ZERO,
            medium_busy: false,
            countdown_from: SimTime::ZERO,
            eifs_until: SimTime::ZERO,
            next_sequence: 0,
            pending_response: None,
            on_air: None,
            last_received_sequence: BTreeMap::new(),
            nav_end_deferred: false,
            nav_entry_queued: false,
            access_armed: false,
            access_defers: false,
            awaiting_data: None,
            hop,
            promiscuous: false,
            stats: MacStats::default(),
            backoff_rng,
            queue_rng,
        }
    }

    /// The one entry for every input. Inlined into the world's MAC step,
    /// itself inlined at each of its call sites (a PHY indication, a
    /// timer, the other inputs), where the input's kind is known and the outer match
    /// folds away, as the routing layer's `handle` (docs/architecture.md):
    /// 4 % fewer instructions on the chains (docs/performance.md).
    #[inline(always)]
    pub fn handle(&mut self, now: SimTime, input: MacInput, ctx: &mut MacContext, out: &mut MacOutputs) {
        match input {
            MacInput::Enqueue(item) => self.enqueue(now, item, ctx, out),
            MacInput::Phy(PhyIndication::RxStart | PhyIndication::TxStart | PhyIndication::Cca) => self.update_medium(now, ctx),
            MacInput::Phy(PhyIndication::Captured { airtime }) => {
                // ns-2 Mac802_11::capture: the ignored frame still defers
                // the node for EIFS + its duration.
                self.set_nav(now, now + ctx.timing.eifs + airtime, ctx);
            }
            MacInput::Phy(PhyIndication::RxEnd { error }) => {
                let frame = ctx.received.expect("RxEnd comes with its frame");
                self.rx_end(now, frame, error.is_none(), ctx, out);
                self.medium_after(now, ctx, out);
            }
            MacInput::Phy(PhyIndication::TxEnd) => {
                self.tx_end(now, ctx, out);
                self.medium_after(now, ctx, out);
            }
            MacInput::Timer(timer) => {
                if timer == MacTimer::Access {
                    self.access_armed = false;
                }
                match timer {
                    MacTimer::Access => self.access_granted(now, ctx, out),
                    MacTimer::NavEnd => self.update_medium(now, ctx),
                    MacTimer::ResponseTimeout => self.response_timeout(now, ctx, out),
                    MacTimer::SendResponse => self.send_response(now, ctx, out),
                    MacTimer::HoldRelease => self.hop_release(now, ctx),
                    MacTimer::DataWait => self.hop_ctsc_unused(now, ctx),
                }
            }
            MacInput::Resume(Resume::AfterRetryLimit) => self.finish_service(now, service::ServiceEnd::Dropped, true, ctx, out),
            MacInput::Resume(Resume::AfterServiceEnd { after_timeout }) => self.after_service_end(now, after_timeout, ctx, out),
            MacInput::Resume(Resume::MediumCheck) => self.update_medium(now, ctx),
            MacInput::Resume(Resume::AfterServiceStart(tail)) => self.after_service_start(now, tail, ctx, out),
        }
    }

    /// A reception or transmission ended: re-read carrier sense, after
    /// what went up has been handled if anything did (a node forwarding
    /// the packet it just received still sees the medium as it was).
    fn medium_after(&mut self, now: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        if out.reentrant {
            out.push(MacOutput::Resume(Resume::MediumCheck));
        } else {
            self.update_medium(now, ctx);
        }
    }

    fn arm(&mut self, timer: MacTimer, at: SimTime, ctx: &mut MacContext) {
        if timer == MacTimer::Access {
            self.access_armed = true;
        }
        ctx.timers.arm(timer, at);
    }

    fn cancel(&mut self, timer: MacTimer, ctx: &mut MacContext) {
        if timer == MacTimer::Access {
            self.access_armed = false;
            self.access_defers = false;
        }
        ctx.timers.cancel(timer);
    }

    /// The frame of the last `Transmit` output.
    pub fn frame_on_air(&self) -> &Frame {
        self.on_air.as_ref().expect("a frame on the air")
    }

    /// Ground truth from the receiving PHY: the latest DATA attempt of
    /// packet `uid` was destroyed by the frame error model.
    pub fn note_channel_loss(&mut self, uid: u64) {
        if let Some(op) = self.op.as_mut() {
            if op.item.packet.uid == uid {
                op.last_loss = AttemptLoss::ChannelError;
            }
        }
    }

    /// Ground truth (`errors.scope = "every_frame"`): a control frame of
    /// the attempt in service (its RTS at the receiver, or the CTS or ACK
    /// back at this node) was destroyed by the frame error model.
    pub fn note_attempt_channel_loss(&mut self) {
        if let Some(op) = self.op.as_mut() {
            op.last_loss = AttemptLoss::ChannelError;
        }
    }

    /// Whether this node has received DATA sequence `sequence` from `from`
    /// last (ground truth: a sender whose ACKs were lost still counts its
    /// packet as delivered here).
    pub fn received_last(&self, from: NodeId, sequence: u16) -> bool {
        self.last_received_sequence.get(&from) == Some(&sequence)
    }

    /// The packets queued (not in service), in service order.
    pub fn queued(&self) -> impl Iterator<Item = &Queued> {
        self.queue.fifo().iter()
    }

    /// Packets in the interface queue (not in service).
    pub fn queued_len(&self) -> usize {
        self.queue.len()
    }

    /// The interface queue's discipline (its name and parameters, for the
    /// report).
    pub fn queue_disc(&self) -> &QueueDiscipline {
        &self.queue
    }

    /// Close the run's queue statistics at `end` (the queue's length held
    /// since its last change counts up to the end).
    pub fn close_stats(&mut self, end: SimTime) {
        let len = self.queue.len();
        self.stats.queue_changed(end, len);
    }

    /// Whether a hop-by-hop control runs at this node.
    pub fn hop_control_enabled(&self) -> bool {
        self.hop.is_enabled()
    }

    /// The hop-by-hop control's report section (see [`HopStats::section`](hop_control::HopStats::section)).
    pub fn hop_control_section(&self, end: SimTime, rts_sent: u64, run_ns: f64) -> crate::engine::Section {
        self.hop.section(end, rts_sent, run_ns)
    }

    /// Data packets the hop-by-hop control counts as held here: the MAC's
    /// own, and those of `waiting` (held for a route) it counts.
    pub fn held_with<'a>(&self, waiting: impl Iterator<Item = &'a Packet>) -> usize {
        self.held_data() + waiting.filter(|p| self.hop.counts_waiting(p)).count()
    }

    /// The node now holds `held` counted data packets (the hop-by-hop
    /// control's congestion state follows).
    pub fn update_held(&mut self, now: SimTime, held: usize) {
        self.hop.update(now, held);
    }

    /// Whether a packet `counts` accepts is queued or contending for the
    /// medium (one parked aside not included: matcp's
    /// `Mac802_11::TotalCongested`, mahaicheng/semitcprc
    /// `mac/mac-802_11.cc:2184-2192`, reads the queue and the packet in
    /// transmission).
    pub fn holds(&self, counts: impl Fn(&Packet) -> bool) -> bool {
        self.queued().any(|q| counts(&q.packet)) || self.op.iter().any(|op| counts(&op.item.packet))
    }

    /// Take back the packets queued toward `next_hop` (the link to it
    /// broke).
    pub fn take_queued_toward(&mut self, now: SimTime, next_hop: NodeId) -> Vec<Packet> {
        let taken = self.queue.fifo_mut().take_toward(next_hop);
        if !taken.is_empty() {
            let len = self.queue.len();
            self.stats.queue_changed(now, len);
        }
        taken.into_iter().map(|q| q.packet).collect()
    }

    /// Packets the MAC holds (queued and in service) that semi-TCP's hop
    /// control counts as held data.
    pub fn held_data(&self) -> usize {
        let queued = self.queued().filter(|q| self.hop.counts_waiting(&q.packet)).count();
        queued + self.in_service().filter(|op| self.hop.counts(&op.item.packet)).count()
    }

    /// The packets in service: the one contending, and one parked aside
    /// (`parked_lets_routing_out`).
    pub fn in_service(&self) -> impl Iterator<Item = &TxOp> {
        self.op.iter().chain(self.parked.iter())
    }

    /// The packet contending for the medium now (not one parked aside).
    pub fn serving(&self) -> Option<&TxOp> {
        self.op.as_ref()
    }

    /// Whether this node is transmitting a frame now.
    pub fn is_transmitting(&self) -> bool {
        self.on_air.is_some()
    }

    /// Whether an answer (CTS, ACK, DATA after a CTS) is due SIFS after a
    /// frame received.
    pub fn is_responding(&self) -> bool {
        self.pending_response.is_some()
    }

    /// The medium as channel access sees it: physical or virtual busy,
    /// the NAV's end, and the end of an EIFS after a frame in error.
    pub fn medium(&self) -> (bool, SimTime, SimTime) {
        (self.medium_busy, self.nav_until, self.eifs_until)
    }

    /// Backoff slots still to count down (None when no backoff is pending).
    pub fn backoff_slots(&self) -> Option<u32> {
        self.backoff_slots
    }

    /// The current contention window.
    pub fn cw(&self) -> u32 {
        self.cw
    }

    /// The MAC's counters.
    pub fn stats(&self) -> &MacStats {
        &self.stats
    }

    /// The figures of the series interval that ends now, starting the next.
    pub fn take_interval(&mut self) -> stats::IntervalStats {
        std::mem::take(&mut self.stats.interval)
    }

    /// The hop-by-hop control's counters up to `now`.
    pub fn hop_stats(&self, now: SimTime) -> hop_control::HopStats {
        self.hop.stats(now)
    }

    /// Hand unicast DATA frames for other nodes up (promiscuous listening,
    /// as ns-2's `Mac::installTap` for DSR).
    pub fn set_promiscuous(&mut self, promiscuous: bool) {
        self.promiscuous = promiscuous;
    }

    /// Reserve the medium at this node until `until` (virtual carrier
    /// sense): tests use it to keep a node deaf to RTS.
    #[doc(hidden)]
    pub fn hold_nav_until(&mut self, until: SimTime) {
        self.nav_until = until;
    }
}
