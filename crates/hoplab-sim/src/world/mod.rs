//! The world: the engine, every node's layers, the channel, the flows, and
//! the wiring between them.
//!
//! The layers are sans-IO state machines that know nothing of each other
//! above them: the world owns them all, pops events in (time, insertion)
//! order, hands each to the layer it is for ([`Event`]: `{owner, layer,
//! id}`), and carries each layer's outputs to the layer they are for, in
//! the order they were written. What no single node knows (ground truth
//! for drop causes, conservation) is the world's too.
//!
//! Files: `build.rs` (from a scenario), `radio.rs` (channel, PHY, MAC),
//! `ll.rs` (the link layer's delay between routing and the MAC),
//! `network.rs` (forwarding, routing, drops), `links.rs` (wired links),
//! `flows.rs` (transports and applications), `report.rs` (the run report
//! from every layer's counters), `series.rs` (the time series); the
//! report's types and the flow counters are `stats/`'s.

use crate::engine::{EventQueue, Timer};
use crate::error::ApiError;
use crate::link::Link;
use crate::loss::DropCause;
use crate::mac::{Frame, FrameKind, Mac, MacTimer, MacTiming};
use crate::net::routing::{Routing, RoutingProtocol};
use crate::net::NodeId;
use crate::phy::{Channel, Phy, PhyTimer};
use crate::scenario::Scenario;
use crate::stack::Stack;
use crate::stats::report::SeriesRow;
use crate::time::{SimDuration, SimTime};
use crate::trace::{EncodeParams, Tracer};
use std::collections::{BTreeMap, BTreeSet};

pub mod arp;
pub mod budget;
pub mod build;
pub mod flows;
pub mod links;
pub mod ll;
pub mod network;
pub mod profile;
pub mod radio;
pub mod report;
pub mod series;

/// The layer an event is for (the `layer` of an [`Event`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Layer {
    /// The channel delivers a frame to a node: `id` is the frame's slot
    /// in the on-air table.
    Channel = 0,
    Phy = 1,
    Mac = 2,
    /// A wired link: `owner` is the link, `id` = 2 x kind + direction.
    Link = 3,
    /// A routing protocol's timer: `id` is the protocol's.
    Routing = 4,
    /// A flow's transport: `owner` is the flow.
    Transport = 5,
    /// A flow's application: `owner` is the flow.
    App = 6,
    /// Time-series sampling.
    Stats = 7,
}

impl Layer {
    const ALL: [Layer; 8] =
        [Layer::Channel, Layer::Phy, Layer::Mac, Layer::Link, Layer::Routing, Layer::Transport, Layer::App, Layer::Stats];
}

/// Cancellable timer slots of one node: the PHY's, then the MAC's.
pub(crate) const NODE_TIMERS: usize = PhyTimer::COUNT + MacTimer::COUNT;

/// PHY event ids from here on are timer events kept in a frame's batch of
/// ends (`World::frame_timers_from`): the transmitter's TxEnd, the
/// receivers' RxEnd; the id is this plus the frame's slot on the air.
/// (`timer_slot` gives the RxEnd slot; the profile tells the transmitter's
/// entry apart by the frame.)
pub(crate) const FRAME_ENDS: u32 = PhyTimer::COUNT as u32;

/// PHY event ids from here on are RxEnd timer events kept in a frame's
/// list of reception steps (`OnAir`'s `Timers::Steps`: the SINR
/// receiver's preamble detections); the id is this plus the frame's slot.
pub(crate) const FRAME_STEPS: u32 = FRAME_ENDS + (1 << 27);

/// The frame and the list of its timer events that a PHY event id at or
/// above [`FRAME_ENDS`] names.
#[inline]
pub(crate) fn frame_timers_of(id: u32) -> (crate::phy::FrameRef, crate::phy::air::Timers) {
    use crate::phy::air::Timers;
    if id >= FRAME_STEPS {
        (crate::phy::FrameRef(id - FRAME_STEPS), Timers::Steps)
    } else {
        (crate::phy::FrameRef(id - FRAME_ENDS), Timers::Ends)
    }
}

/// The PHY event id of frame `at`'s list `which` ([`frame_timers_of`]).
#[inline]
pub(crate) fn frame_timers_id(at: crate::phy::FrameRef, which: crate::phy::air::Timers) -> u32 {
    match which {
        crate::phy::air::Timers::Ends => FRAME_ENDS + at.0,
        crate::phy::air::Timers::Steps => FRAME_STEPS + at.0,
    }
}

pub(crate) fn timer_slot(layer: Layer, id: u32) -> usize {
    match layer {
        Layer::Mac => PhyTimer::COUNT + id as usize,
        Layer::Phy if id >= FRAME_ENDS => PhyTimer::RxEnd as usize,
        _ => id as usize,
    }
}

/// A node's timer slots of one layer, as that layer's
/// [`TimerRequests`](crate::engine::TimerRequests): arming schedules an
/// [`Event`] for the layer at once.
pub(crate) struct SlotTimers<'a> {
    pub queue: &'a mut EventQueue<Event>,
    pub slots: &'a mut [Timer; NODE_TIMERS],
    pub owner: u32,
    /// The run's end (deferred timers count as events up to it).
    pub end: SimTime,
    /// Queue deferred timers at once (a profiled run counts every event
    /// as its own entry).
    pub eager: bool,
}

impl crate::engine::TimerRequests<MacTimer> for SlotTimers<'_> {
    fn arm(&mut self, timer: MacTimer, at: SimTime) {
        let id = timer as u32;
        self.slots[timer_slot(Layer::Mac, id)].arm(self.queue, at, Event::new(self.owner, Layer::Mac, id));
    }
    fn cancel(&mut self, timer: MacTimer) {
        self.slots[timer_slot(Layer::Mac, timer as u32)].cancel();
    }
    fn arm_deferred(&mut self, timer: MacTimer, at: SimTime) {
        if self.eager {
            return self.arm(timer, at);
        }
        self.slots[timer_slot(Layer::Mac, timer as u32)].arm_deferred(self.queue, at, self.end);
    }
    fn queue_deferred(&mut self, timer: MacTimer) {
        if self.eager {
            return;
        }
        let id = timer as u32;
        self.slots[timer_slot(Layer::Mac, id)].queue_deferred(self.queue, Event::new(self.owner, Layer::Mac, id), self.end);
    }
}

/// One event of the simulation, protocol-neutral: a layer's timer (or the
/// channel's delivery of a frame) at one owner, with the layer's own
/// number. Packed in 8 bytes (owner; layer in the top 3 bits, id in the
/// other 29), so the event queue's entries stay small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// The node (channel, PHY, MAC, routing), link or flow (transport,
    /// application) the event is for.
    pub owner: u32,
    layer_and_id: u32,
}

impl Event {
    const ID_BITS: u32 = 29;
    /// The largest `id` an event can carry.
    pub const MAX_ID: u32 = (1 << Event::ID_BITS) - 1;

    pub fn new(owner: u32, layer: Layer, id: u32) -> Event {
        debug_assert!(id <= Event::MAX_ID, "event id {id} does not fit");
        Event { owner, layer_and_id: (layer as u32) << Event::ID_BITS | (id & Event::MAX_ID) }
    }

    pub fn layer(self) -> Layer {
        Layer::ALL[(self.layer_and_id >> Event::ID_BITS) as usize]
    }

    pub fn id(self) -> u32 {
        self.layer_and_id & Event::MAX_ID
    }
}

pub struct Node {
    pub id: NodeId,
    pub phy: Phy,
    pub mac: Mac,
    /// The PHY's and the MAC's timer slots.
    pub timers: [Timer; NODE_TIMERS],
    /// Packets this node dropped, by cause (any layer).
    pub drops: BTreeMap<DropCause, u64>,
}

pub use crate::stack::{Flow, NodeStack};

/// One line of the frame trace (tests and debugging).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEntry {
    pub time: SimTime,
    pub node: NodeId,
    pub what: TraceWhat,
    pub kind: FrameKind,
    pub from: NodeId,
    pub to: NodeId,
    /// The routing message a DATA frame carries ("rreq", "rrep", "rerr",
    /// "hello"), or its ARP operation ("arp_request", "arp_reply"), if any.
    pub routing: Option<&'static str>,
}

impl TraceEntry {
    pub fn of(time: SimTime, node: NodeId, what: TraceWhat, frame: &Frame) -> TraceEntry {
        let routing = frame.packet.and_then(|p| p.message_name());
        TraceEntry { time, node, what, kind: frame.kind, from: frame.transmitter, to: frame.receiver, routing }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceWhat {
    /// The node started transmitting this frame.
    Tx,
    /// The node decoded this frame.
    RxOk,
    /// The node locked onto this frame but could not decode it.
    RxError,
}

pub struct World {
    pub queue: EventQueue<Event>,
    pub timing: MacTiming,
    pub channel: Channel,
    pub nodes: Vec<Node>,
    pub flows: Vec<Flow>,
    /// Each node's routing protocol.
    pub routing: Vec<RoutingProtocol>,
    pub links: Vec<Link>,
    /// (node, next hop) -> (link, direction) for wired interfaces.
    pub wired_interfaces: BTreeMap<(NodeId, NodeId), (u32, u8)>,
    pub on_air: crate::phy::air::OnAir,
    pub next_uid: u64,
    pub end: SimTime,
    pub warmup: SimTime,
    pub series_interval: SimDuration,
    pub series: Vec<SeriesRow>,
    /// Series sampling events so far: the report's `events` leaves them
    /// out, so it is the same whether or not the run keeps its series.
    pub sampling_ticks: u64,
    pub trace: Option<Vec<TraceEntry>>,
    /// The packet trace being written (`RunOptions::pcap`); none: the hot
    /// path only checks this.
    pub pcap: Option<Box<Tracer>>,
    /// Nodes whose semi-TCP congestion state is to be re-evaluated at the
    /// end of the current event.
    pub hop_dirty: Vec<NodeId>,
    /// Packets crossing the link layer (`mac.ll_delay_us`), in the order
    /// they leave it.
    pub ll_transit: std::collections::VecDeque<ll::Transit>,
    /// Each node's ARP table (`mac.arp = "ns2"`; empty when off).
    pub arp: Vec<crate::net::arp::ArpTable>,
    /// ARP's sends in its delay to the interface queue, in the order they
    /// leave it.
    pub arp_transit: std::collections::VecDeque<(NodeId, crate::queue::Queued)>,
    /// ARP packets lost below (queue overflow, retry limit).
    pub arp_packets_lost: u64,
    /// Each node's policy toward the agents it hosts (`stack/`).
    pub node_stack: NodeStack,
    pub config_hash: String,
    pub name: String,
    pub seed: u64,
    /// Things the user should know about the scenario (in the report).
    pub warnings: Vec<String>,
    /// Counting events by kind and outcome (`crate::profile`); none: the
    /// MAC step only checks this.
    pub profile: Option<Box<crate::profile::EventProfile>>,
}

impl World {
    /// Sample no time series (a run whose report leaves them out): they
    /// cost memory in proportion to the run's length and change nothing
    /// simulated.
    pub fn drop_series(&mut self) {
        self.series_interval = SimDuration::ZERO;
        self.series = Vec::new();
    }

    /// Record every frame transmission and reception from now on.
    pub fn enable_trace(&mut self) {
        self.trace = Some(Vec::new());
    }

    /// Write a packet trace of the run to `path`, as the scenario's
    /// `[trace]` says (the files appear at [`World::finish_pcap`]).
    pub fn enable_pcap(&mut self, scenario: &Scenario, path: &std::path::Path) -> Result<(), ApiError> {
        let radio = &scenario.radio;
        let (channel_mhz, channel_flags) = crate::trace::radiotap::channel(radio.frequency_hz, radio.data_rate_mbps);
        let params = EncodeParams {
            basic_rate: crate::trace::radiotap::rate_units(radio.basic_rate_mbps),
            data_rate: crate::trace::radiotap::rate_units(radio.data_rate_mbps),
            channel_mhz,
            channel_flags,
            plcp: self.timing.plcp,
            segment_bytes: self.flows.iter().map(|f| f.packet_bytes).collect(),
            payload: scenario.trace.payload,
        };
        self.pcap = Some(Box::new(Tracer::create(path, &scenario.trace, self.nodes.len(), params)?));
        Ok(())
    }

    /// Close the packet trace and give its files their names; the paths.
    pub fn finish_pcap(&mut self) -> Result<Vec<std::path::PathBuf>, ApiError> {
        match self.pcap.take() {
            Some(tracer) => Ok(tracer.finish()?),
            None => Ok(Vec::new()),
        }
    }

    pub fn now(&self) -> SimTime {
        self.queue.now()
    }

    /// A packet identity, unique over the run.
    pub(crate) fn new_uid(&mut self) -> u64 {
        let uid = self.next_uid;
        self.next_uid += 1;
        uid
    }

    /// Process every event up to and including `until`.
    pub fn run_until(&mut self, until: SimTime) {
        while let Some((_, seq, event)) = self.queue.pop_until(until) {
            self.dispatch(seq, event);
        }
    }

    /// `run_until`, giving up once the wall clock passes `deadline` or the
    /// run's holdings ([`World::holdings`]) exceed `memory_limit_bytes`.
    /// Both are read every 65536 events (about 3 ms of work), so the checks
    /// cost nothing measurable and never change what is simulated.
    pub fn run_within(
        &mut self,
        until: SimTime,
        deadline: Option<std::time::Instant>,
        memory_limit_bytes: Option<u64>,
    ) -> Result<(), Stop> {
        const CHECK_EVERY: u32 = 1 << 16;
        let mut since_check = 0;
        while let Some((_, seq, event)) = self.queue.pop_until(until) {
            self.dispatch(seq, event);
            since_check += 1;
            if since_check == CHECK_EVERY {
                since_check = 0;
                if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                    return Err(Stop::WallClock);
                }
                if let Some(message) = memory_limit_bytes.and_then(|limit| self.over_memory_limit(limit)) {
                    return Err(Stop::Memory(message));
                }
            }
        }
        Ok(())
    }

    pub(crate) fn dispatch(&mut self, seq: u64, event: Event) {
        let (owner, id) = (event.owner, event.id());
        match event.layer() {
            Layer::Channel => self.frame_arrivals(NodeId(owner), crate::phy::FrameRef(id)),
            Layer::Mac if id == ll::LL_EVENT => self.ll_exit(),
            Layer::Mac if id == arp::ARP_EVENT => self.arp_exit(),
            Layer::Mac if id == MacTimer::NavEnd as u32 => self.nav_end(NodeId(owner), seq),
            Layer::Phy if id >= FRAME_ENDS => {
                let (at, which) = frame_timers_of(id);
                self.frame_timers_from(NodeId(owner), at, which, seq);
            }
            layer @ (Layer::Phy | Layer::Mac) => {
                let node = NodeId(owner);
                if !self.nodes[node.index()].timers[timer_slot(layer, id)].fire(seq) {
                    return; // cancelled or re-armed since
                }
                if layer == Layer::Phy {
                    match PhyTimer::ALL[id as usize] {
                        PhyTimer::RxEnd => self.frame_ends(node),
                        PhyTimer::TxEnd => self.phy_input(node, crate::phy::PhyInput::TxEnd),
                        PhyTimer::CcaEnd => self.phy_input(node, crate::phy::PhyInput::CcaEnd),
                    }
                } else {
                    let timer = MacTimer::ALL[id as usize];
                    self.mac_step(node, crate::mac::MacInput::Timer(timer), None);
                }
            }
            Layer::App => Stack::app_send(self, owner),
            Layer::Transport => Stack::transport_timer(self, owner, id, seq),
            Layer::Link => self.link_timer(owner, id),
            Layer::Stats => self.sample_series(),
            Layer::Routing => self.routing_timer(NodeId(owner), id),
        }
        if !self.hop_dirty.is_empty() {
            self.hop_flush();
        }
    }

    /// Arm a node's cancellable timer (re-arming replaces it).
    pub(crate) fn arm_timer(&mut self, node: NodeId, layer: Layer, id: u32, at: SimTime) {
        let timer = &mut self.nodes[node.index()].timers[timer_slot(layer, id)];
        timer.arm(&mut self.queue, at, Event::new(node.0, layer, id));
    }

    /// Packets of each flow still queued or in service anywhere, as (data
    /// direction, ACK direction). Distinct packets: a copy held by a sender
    /// whose ACK was lost counts once.
    pub fn in_flight_per_flow(&self) -> Vec<(u64, u64)> {
        let mut seen: Vec<(BTreeSet<u64>, BTreeSet<u64>)> = vec![Default::default(); self.flows.len()];
        let in_macs = self.nodes.iter().flat_map(|node| {
            // A packet in service whose DATA the next hop already received
            // (only the ACK was lost) lives on there: count it there once.
            let in_service = node
                .mac
                .in_service()
                .filter(|op| !self.next_hop_has(node.id, op.item.next_hop, op.sequence, op.data_attempts))
                .map(|op| &op.item);
            node.mac.queued().chain(in_service).map(|item| &item.packet)
        });
        // Packets crossing the link layer.
        let in_ll = self.ll_transit.iter().map(|t| t.packet());
        // Packets ARP holds for an address or is sending on.
        let in_ll = in_ll.chain(self.arp_packets());
        // Packets waiting for a route (AODV's request queues).
        let buffered = self.routing.iter().flat_map(|r| r.buffered());
        // Packets a transport holds back.
        let held = self.flows.iter().flat_map(|f| f.held());
        for packet in in_macs.chain(in_ll).chain(self.link_packets()).chain(buffered).chain(held) {
            if !packet.is_control() {
                let sets = &mut seen[packet.flow as usize];
                let set = if packet.is_reverse() { &mut sets.1 } else { &mut sets.0 };
                set.insert(packet.uid);
            }
        }
        seen.iter().map(|(data, acks)| (data.len() as u64, acks.len() as u64)).collect()
    }
}

/// Options that change what a run reports, not what it simulates.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Include the long-format time series in the report.
    pub series: bool,
    /// Give the run up with `ApiError::Simulation` once it has taken this
    /// much wall-clock time (None: no limit). A sweep's per-run timeout: a
    /// run either completes, identical to an unlimited one, or reports
    /// nothing.
    pub wall_limit: Option<std::time::Duration>,
    /// Write a packet trace of the run to this file (pcap, radiotap +
    /// 802.11; what it holds: the scenario's `[trace]`). The file, and the
    /// receive traces beside it, appear only if the run succeeds.
    pub pcap: Option<std::path::PathBuf>,
    /// Give the run up with `ApiError::Simulation`, naming what grew, once
    /// what it holds (`World::holdings`) passes this many bytes (None: no
    /// limit). The check is deterministic: a run either completes,
    /// identical to an unlimited one, or stops at the same event each time.
    pub memory_limit: Option<u64>,
    /// Record the run for `hoplab view` (`RunReport::recording`; bounded,
    /// `record/`). Changes nothing simulated.
    pub record: bool,
}

/// Why a run stopped before its end ([`World::run_within`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    WallClock,
    /// What grew past the memory limit, and what to change.
    Memory(String),
}
