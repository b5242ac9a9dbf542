//! The world: every node's layers, the channel, the flows, and the event loop.
//!
//! `World::build` turns a validated scenario into nodes and flows;
//! `World::run_until` pops events in (time, insertion) order and hands each
//! to the layer that owns it (PHY reception, MAC timers, applications).
//! Layer behaviour lives in `mac::dcf`, `net::forward` and `app`, as `impl
//! World` blocks, so that a transmission can reach every neighbour's PHY
//! without shared mutable references.

use crate::api::{ApiError, RunOptions};
use crate::engine::{EventQueue, RngStreams, StreamPurpose, Timer};
use crate::link::Link;
use crate::loss::DropCause;
use crate::mac::hop_control::{HopControl, HopControlKind, SemiTcpHop};
use crate::mac::{Frame, FrameKind, Mac, MacTimer, MacTiming};
use crate::net::aodv::{AodvNode, AodvParams};
use crate::net::routing::{Routing, RoutingProtocol};
use crate::net::{NodeId, StaticRoutes};
use crate::phy::error_model::ErrorModel;
use crate::phy::reception::{ReceptionModel, ThresholdReceiver};
use crate::phy::{Channel, Phy, PhyTimer, RadioModel};
use crate::queue::{DropTail, QueueDisc, QueueDiscipline};
use crate::scenario::{AppKind, ConfigError, ErrorModelKind, Scenario, Transport};
use crate::stats::report::{FlowReport, NodeReport, RunReport, SeriesRow};
use crate::stats::FlowStats;
use crate::scenario::RateControlKind;
use crate::transport::semitcp::connection::{Pacing, SemiTcpConnection};
use crate::transport::semitcp::rate_control::BinarySearchRateControl;
use crate::transport::semitcp::sender::SemiTcpSender;
use crate::transport::tcp::congestion;
use crate::transport::tcp::connection::TcpConnection;
use crate::transport::tcp::receiver::Receiver as TcpReceiver;
use crate::transport::tcp::sender::{Sender as TcpSender, TcpParams};
use crate::time::{SimDuration, SimTime};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

pub mod flows;
pub mod links;
pub mod network;
pub mod radio;

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
const NODE_TIMERS: usize = PhyTimer::COUNT + MacTimer::COUNT;

fn timer_slot(layer: Layer, id: u32) -> usize {
    match layer {
        Layer::Mac => PhyTimer::COUNT + id as usize,
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
}

impl crate::engine::TimerRequests<MacTimer> for SlotTimers<'_> {
    fn arm(&mut self, timer: MacTimer, at: SimTime) {
        let id = timer as u32;
        self.slots[timer_slot(Layer::Mac, id)].arm(self.queue, at, Event::new(self.owner, Layer::Mac, id));
    }
    fn cancel(&mut self, timer: MacTimer) {
        self.slots[timer_slot(Layer::Mac, timer as u32)].cancel();
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

/// A flow's configuration as the simulator uses it.
pub struct Flow {
    pub id: u32,
    pub src: NodeId,
    pub dst: NodeId,
    pub transport: Transport,
    pub app: AppKind,
    pub packet_bytes: u32,
    /// CBR inter-packet time.
    pub interval: SimDuration,
    pub start: SimTime,
    pub stop: SimTime,
    pub next_sequence: u64,
    pub hops: u32,
    pub stats: FlowStats,
    /// The TCP connection of a TCP flow.
    pub tcp: Option<TcpConnection>,
    /// The semi-TCP connection of a semi-TCP flow.
    pub semitcp: Option<SemiTcpConnection>,
    /// The connection's timer slots (a connection has two).
    pub timers: [Timer; 2],
}

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
    /// "hello"), if any.
    pub routing: Option<&'static str>,
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

/// Frames on the air, shared by their receivers until each has started
/// receiving (reference counted, slots reused).
#[derive(Default)]
pub struct OnAir {
    frames: Vec<(Frame, u32)>,
    free: Vec<u32>,
    /// Moving nodes: per slot, the transmitter's links when the frame left
    /// (ascending receiver id). Empty for static nodes.
    links: Vec<Vec<crate::phy::Neighbour>>,
}

impl OnAir {
    pub(crate) fn insert(&mut self, frame: Frame, receivers: u32) -> u32 {
        if let Some(slot) = self.free.pop() {
            self.frames[slot as usize] = (frame, receivers);
            slot
        } else {
            self.frames.push((frame, receivers));
            (self.frames.len() - 1) as u32
        }
    }

    /// Keep the links of a moving transmitter with its frame.
    pub(crate) fn store_links(&mut self, slot: u32, links: &[crate::phy::Neighbour]) {
        if self.links.len() <= slot as usize {
            self.links.resize_with(slot as usize + 1, Vec::new);
        }
        let kept = &mut self.links[slot as usize];
        kept.clear();
        kept.extend_from_slice(links);
    }

    /// The stored link of slot `slot` to `node` (moving nodes only).
    fn link(&self, slot: u32, node: NodeId) -> Option<crate::phy::Neighbour> {
        let links = self.links.get(slot as usize)?;
        links.binary_search_by_key(&node, |n| n.node).ok().map(|i| links[i])
    }

    /// The frame of a slot.
    fn frame(&self, slot: u32) -> &Frame {
        &self.frames[slot as usize].0
    }

    /// One receiver is done with the frame; the slot is freed after the last.
    fn release(&mut self, slot: u32) {
        let entry = &mut self.frames[slot as usize];
        entry.1 -= 1;
        if entry.1 == 0 {
            self.free.push(slot);
        }
    }
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
    pub on_air: OnAir,
    pub next_uid: u64,
    pub end: SimTime,
    pub warmup: SimTime,
    pub series_interval: SimDuration,
    pub series: Vec<SeriesRow>,
    pub trace: Option<Vec<TraceEntry>>,
    /// Nodes whose semi-TCP congestion state is to be re-evaluated at the
    /// end of the current event.
    pub hop_dirty: Vec<NodeId>,
    pub config_hash: String,
    pub name: String,
    pub seed: u64,
    /// Things the user should know about the scenario (in the report).
    pub warnings: Vec<String>,
}

impl World {
    /// Build the world of a validated scenario. Fails (naming the key) if a
    /// flow's endpoints cannot reach each other.
    pub fn build(scenario: &Scenario, seed: u64) -> Result<World, ApiError> {
        let streams = RngStreams::new(seed);
        let radio = RadioModel::from_config(&scenario.radio);
        let shape = scenario.topology.shape()?;
        let moving = scenario.mobility.model != crate::scenario::MobilityModel::Static;
        let layout = crate::topology::place(&shape, &radio, &streams, !moving)?;
        let mut warnings = Vec::new();
        let motion = crate::mobility::build(scenario, &layout, &streams, &mut warnings)?;
        let mut channel = match &motion {
            // The positions at time 0 come from the model (a steady-state
            // start replaces the topology's placement).
            Some(model) => {
                let mut model = model.clone();
                let positions = (0..layout.positions.len()).map(|i| model.position(i, SimTime::ZERO)).collect();
                Channel::new(positions, layout.has_radio.clone(), radio)
            }
            None => Channel::new(layout.positions, layout.has_radio.clone(), radio),
        };
        if let Some(model) = motion {
            channel.set_motion(model);
        }
        let links: Vec<Link> = layout
            .links
            .iter()
            .enumerate()
            .map(|(i, config)| {
                // Queue streams after the nodes' (index = node count + 2 x link + direction).
                let queue = |d: u64| streams.stream(StreamPurpose::Queue, channel.node_count() as u64 + 2 * i as u64 + d);
                Link::new(config, streams.stream(StreamPurpose::LinkLoss, i as u64), [queue(0), queue(1)])
            })
            .collect();
        let mut wired_interfaces = BTreeMap::new();
        let mut adjacency = channel.decodable_adjacency();
        for (i, link) in links.iter().enumerate() {
            // A wired link wins over a radio link between the same nodes.
            wired_interfaces.insert((link.a, link.b), (i as u32, 0u8));
            wired_interfaces.insert((link.b, link.a), (i as u32, 1u8));
            adjacency[link.a.index()].push(link.b);
            adjacency[link.b.index()].push(link.a);
        }
        for list in &mut adjacency {
            list.sort();
            list.dedup();
        }
        let timing = MacTiming::new(&scenario.mac, &scenario.radio, channel.radio.tx_range_m());
        // Routes toward every destination, and back to TCP sources for ACKs.
        let destinations: BTreeSet<NodeId> = scenario
            .flows
            .iter()
            .flat_map(|f| {
                let reverse = (f.transport != Transport::Udp).then_some(NodeId(f.src));
                std::iter::once(NodeId(f.dst)).chain(reverse)
            })
            .collect();
        let tcp_params = tcp_params(&scenario.tcp);
        let routes = StaticRoutes::compute(&adjacency, destinations);

        let end = SimTime::from_secs_f64(scenario.duration_s);
        let mut flows = Vec::with_capacity(scenario.flows.len());
        let mobile = channel.is_mobile();
        for (i, f) in scenario.flows.iter().enumerate() {
            // Moving nodes may meet later: only fixed ones must be connected.
            let hops = routes.hops(NodeId(f.src), NodeId(f.dst)).or(mobile.then_some(0)).ok_or_else(|| {
                ConfigError::new(
                    format!("flows[{i}].dst"),
                    format!(
                        "node {} cannot reach node {} over wired links and radio links of the {:.0} m decoding range",
                        f.src,
                        f.dst,
                        channel.radio.tx_range_m()
                    ),
                )
            })?;
            let interval = match f.rate_kbps {
                Some(rate_kbps) => SimDuration::from_secs_f64(f.packet_bytes as f64 * 8.0 / (rate_kbps * 1e3)),
                None => SimDuration::ZERO,
            };
            let semitcp = (f.transport == Transport::Semitcp).then(|| {
                let total_segments = f.file_bytes.map(|b| b.div_ceil(f.packet_bytes as u64));
                let sender = SemiTcpSender::new(&tcp_params, total_segments);
                // Every segment is acknowledged at once, on its own if out of order.
                let receiver = TcpReceiver::new(false, 1, tcp_params.delayed_ack_timeout);
                let pacing = match f.rate_control.unwrap_or_default() {
                    RateControlKind::None => Pacing::Buffer,
                    RateControlKind::Fixed => Pacing::Fixed {
                        interval: SimDuration::from_secs_f64(
                            f.packet_bytes as f64 * 8.0 / (f.rate_kbps.unwrap_or(1.0) * 1e3),
                        ),
                    },
                    RateControlKind::BinarySearch => {
                        let mut rc = BinarySearchRateControl::new(scenario.semitcp.rate_control.clone(), f.packet_bytes);
                        rc.max_rate_kbps = scenario.radio.data_rate_mbps * 1e3;
                        Pacing::BinarySearch(Box::new(rc))
                    }
                };
                SemiTcpConnection::new(sender, receiver, pacing, scenario.semitcp.reserved_packets as usize)
            });
            let tcp = match f.transport {
                Transport::Udp | Transport::Semitcp => None,
                Transport::Tcp => {
                    let key = format!("flows[{i}].cc");
                    let name = f.cc.as_deref().unwrap_or("newreno");
                    let params = f.cc_params.clone().unwrap_or(serde_json::Value::Null);
                    let cc = congestion::build(name, &params, &key)?;
                    let total_segments = f.file_bytes.map(|b| b.div_ceil(f.packet_bytes as u64));
                    let mss_bytes = f.packet_bytes;
                    let sender = TcpSender::new(cc, tcp_params.clone(), mss_bytes, total_segments);
                    let receiver = TcpReceiver::new(
                        tcp_params.delayed_ack,
                        tcp_params.delayed_ack_segments,
                        tcp_params.delayed_ack_timeout,
                    )
                    .with_sack(tcp_params.sack);
                    Some(TcpConnection::new(sender, receiver))
                }
            };
            flows.push(Flow {
                id: i as u32,
                src: NodeId(f.src),
                dst: NodeId(f.dst),
                transport: f.transport,
                app: f.app,
                packet_bytes: f.packet_bytes,
                interval: interval.max(SimDuration::from_nanos(1)),
                start: SimTime::from_secs_f64(f.start_s),
                stop: f.stop_s.map_or(end, SimTime::from_secs_f64).min(end),
                next_sequence: 0,
                hops,
                stats: FlowStats::default(),
                tcp,
                semitcp,
                timers: [Timer::default(); 2],
            });
        }

        let routing: Vec<RoutingProtocol> = match scenario.routing.protocol {
            crate::scenario::RoutingProtocol::Static => {
                (0..channel.node_count() as u32).map(|i| RoutingProtocol::Static(routes.node(NodeId(i)))).collect()
            }
            crate::scenario::RoutingProtocol::Aodv => {
                let params = AodvParams::new(&scenario.routing.aodv.clone().unwrap_or_default());
                (0..channel.node_count())
                    .map(|i| RoutingProtocol::Aodv(Box::new(AodvNode::new(params.clone(), streams.stream(StreamPurpose::Routing, i as u64)))))
                    .collect()
            }
        };
        let hop_control = scenario.semitcp.hop_control && scenario.flows.iter().any(|f| f.transport == Transport::Semitcp);
        let capture_ratio = channel.radio.capture_ratio;
        let nodes = (0..channel.node_count() as u32)
            .map(|i| {
                let id = NodeId(i);
                let errors = match scenario.errors.model {
                    ErrorModelKind::None => ErrorModel::None,
                    ErrorModelKind::Uniform => ErrorModel::Uniform {
                        packet_error_rate: scenario.errors.packet_error_rate.unwrap_or(0.0),
                        rng: streams.stream(StreamPurpose::ErrorModel, i as u64),
                    },
                };
                let reception = ReceptionModel::Threshold(ThresholdReceiver::new(capture_ratio));
                let hop = if hop_control {
                    HopControlKind::SemiTcp(SemiTcpHop::new(scenario.semitcp.mac.clone()))
                } else {
                    HopControlKind::Off
                };
                let queue = QueueDiscipline::DropTail(DropTail::new(scenario.mac.queue_packets as usize, true));
                Node {
                    id,
                    phy: Phy::new(id, reception, errors),
                    mac: Mac::new(
                        id,
                        queue,
                        scenario.mac.cw_min,
                        hop,
                        streams.stream(StreamPurpose::Backoff, i as u64),
                        streams.stream(StreamPurpose::Queue, i as u64),
                    ),
                    timers: [Timer::default(); NODE_TIMERS],
                    drops: BTreeMap::new(),
                }
            })
            .collect();

        let mut world = World {
            queue: EventQueue::new(),
            timing,
            channel,
            nodes,
            flows,
            routing,
            links,
            wired_interfaces,
            on_air: OnAir::default(),
            next_uid: 0,
            end,
            warmup: SimTime::from_secs_f64(scenario.warmup_s),
            series_interval: SimDuration::from_secs_f64(scenario.stats.series_interval_s),
            series: Vec::new(),
            trace: None,
            hop_dirty: Vec::new(),
            config_hash: config_hash(scenario),
            name: scenario.name.clone(),
            seed,
            warnings,
        };
        world.routing_start();
        for i in 0..world.flows.len() {
            let start = world.flows[i].start;
            world.queue.schedule(start, Event::new(i as u32, Layer::App, 0));
        }
        if world.series_interval > SimDuration::ZERO {
            let first = SimTime::ZERO + world.series_interval;
            world.queue.schedule(first, Event::new(0, Layer::Stats, 0));
        }
        Ok(world)
    }

    /// Record every frame transmission and reception from now on.
    pub fn enable_trace(&mut self) {
        self.trace = Some(Vec::new());
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

    /// `run_until`, giving up (false) once the wall clock passes `deadline`.
    /// The clock is read every 65536 events (about 3 ms of work), so the
    /// check costs nothing measurable and never changes what is simulated.
    pub fn run_until_deadline(&mut self, until: SimTime, deadline: std::time::Instant) -> bool {
        const CHECK_EVERY: u32 = 1 << 16;
        let mut since_check = 0;
        while let Some((_, seq, event)) = self.queue.pop_until(until) {
            self.dispatch(seq, event);
            since_check += 1;
            if since_check == CHECK_EVERY {
                since_check = 0;
                if std::time::Instant::now() >= deadline {
                    return false;
                }
            }
        }
        true
    }

    fn dispatch(&mut self, seq: u64, event: Event) {
        let (owner, id) = (event.owner, event.id());
        match event.layer() {
            Layer::Channel => self.frame_arrives(NodeId(owner), id),
            layer @ (Layer::Phy | Layer::Mac) => {
                let node = NodeId(owner);
                if !self.nodes[node.index()].timers[timer_slot(layer, id)].fire(seq) {
                    return; // cancelled or re-armed since
                }
                if layer == Layer::Phy {
                    self.phy_input(node, crate::phy::PhyInput::Timer(PhyTimer::ALL[id as usize]));
                } else {
                    self.mac_input(node, crate::mac::MacInput::Timer(MacTimer::ALL[id as usize]));
                }
            }
            Layer::App => self.app_send(owner),
            Layer::Transport => self.transport_timer(owner, id, seq),
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


    pub fn record(&mut self, node: NodeId, what: TraceWhat, frame: &Frame) {
        if let Some(trace) = &mut self.trace {
            let time = self.queue.now();
            let routing = frame.packet.and_then(|p| p.routing.message_name());
            trace.push(TraceEntry { time, node, what, kind: frame.kind, from: frame.transmitter, to: frame.receiver, routing });
        }
    }

    fn sample_series(&mut self) {
        let now = self.now();
        let interval_s = self.series_interval.as_secs_f64();
        for flow in &mut self.flows {
            let goodput_kbps = flow.stats.interval_delivered_bytes as f64 * 8.0 / interval_s / 1e3;
            flow.stats.interval_delivered_bytes = 0;
            let mut push = |metric: &str, value: f64| {
                self.series.push(SeriesRow {
                    time_s: now.as_secs_f64(),
                    entity: "flow".into(),
                    id: flow.id,
                    metric: metric.into(),
                    value,
                })
            };
            push("goodput_kbps", goodput_kbps);
            if let Some(tcp) = &flow.tcp {
                let state = &tcp.sender.state;
                push("cwnd_segments", state.cwnd);
                push("ssthresh_segments", state.ssthresh.min(f64::from(u32::MAX)));
                if let Some(srtt) = state.srtt {
                    push("srtt_ms", srtt.as_millis_f64());
                }
                if let Some(rtt) = state.last_rtt {
                    push("rtt_ms", rtt.as_millis_f64());
                }
                push("rto_ms", state.rto.as_millis_f64());
                for (name, value) in tcp.sender.cc_metrics() {
                    push(&format!("cc_{name}"), value);
                }
            }
            if let Some(counters) = self.routing[flow.src.index()].counters() {
                push("route_discoveries", counters.discoveries.get(&flow.dst).copied().unwrap_or(0) as f64);
                push("route_breaks", flow.stats.route_breaks as f64);
            }
            if let Some(semi) = &flow.semitcp {
                if let Some(srtt_ms) = semi.sender.srtt_ms() {
                    push("srtt_ms", srtt_ms);
                }
                if let Some(interval) = semi.pacing.interval() {
                    push("source_rate_kbps", flow.packet_bytes as f64 * 8.0 / interval.as_secs_f64() / 1e3);
                }
                if let Pacing::BinarySearch(rc) = &semi.pacing {
                    push("rate_control_step", rc.phase.step() as f64);
                    push("apr_estimate", rc.apr_estimate());
                    push("mst_estimate_ms", rc.mst_estimate_s() * 1e3);
                }
            }
        }
        for node in &mut self.nodes {
            let interval = std::mem::take(&mut node.mac.stats.interval);
            let mut push = |metric: &str, value: f64| {
                self.series.push(SeriesRow {
                    time_s: now.as_secs_f64(),
                    entity: "node".into(),
                    id: node.id.0,
                    metric: metric.into(),
                    value,
                })
            };
            push("queue_packets", node.mac.queue.len() as f64);
            // MST and APR of the packets served in this interval (absent when
            // none was served).
            if interval.packets_served > 0 {
                let served = interval.packets_served as f64;
                push("mac_service_time_ms", interval.service_time_total_ns as f64 / served / 1e6);
                push("rts_attempts_per_packet", interval.rts_attempts_total as f64 / served);
            }
        }
        let next = now + self.series_interval;
        if next <= self.end {
            self.queue.schedule(next, Event::new(0, Layer::Stats, 0));
        }
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
                .op
                .iter()
                .filter(|op| !self.next_hop_has(node.id, op.item.next_hop, op.sequence, op.data_attempts))
                .map(|op| &op.item);
            node.mac.queued().chain(in_service).map(|item| &item.packet)
        });
        // Packets waiting for a route (AODV's request queues).
        let buffered = self.routing.iter().flat_map(|r| r.buffered());
        for packet in in_macs.chain(self.link_packets()).chain(buffered) {
            if !packet.is_control() {
                let sets = &mut seen[packet.flow as usize];
                let set = if packet.is_reverse() { &mut sets.1 } else { &mut sets.0 };
                set.insert(packet.uid);
            }
        }
        seen.iter().map(|(data, acks)| (data.len() as u64, acks.len() as u64)).collect()
    }

    /// Build the report at the end of the run.
    pub fn report(&mut self, wall_seconds: f64, options: RunOptions) -> RunReport {
        let now = self.end;
        for node in &mut self.nodes {
            let len = node.mac.queue.len();
            node.mac.stats.queue_changed(now, len);
        }
        let window_s = self.end.since(self.warmup).as_secs_f64();
        let in_flight = self.in_flight_per_flow();
        let flows = self
            .flows
            .iter()
            .map(|f| {
                let counters = match (&f.tcp, &f.semitcp) {
                    (Some(c), _) => c.sender.counters,
                    (_, Some(c)) => c.sender.counters,
                    _ => Default::default(),
                };
                let rate_control = f.semitcp.as_ref().map(|c| c.pacing.name().to_string());
                let (rate_kbps, rate_restarts) = match f.semitcp.as_ref().map(|c| &c.pacing) {
                    Some(Pacing::BinarySearch(rc)) => (rc.rate_kbps, rc.restarts),
                    Some(Pacing::Fixed { interval }) => {
                        (Some(f.packet_bytes as f64 * 8.0 / interval.as_secs_f64() / 1e3), 0)
                    }
                    _ => (None, 0),
                };
                FlowReport {
                    id: f.id,
                    src: f.src.0,
                    dst: f.dst.0,
                    transport: match f.transport {
                        Transport::Udp => "udp",
                        Transport::Tcp => "tcp",
                        Transport::Semitcp => "semitcp",
                    }
                    .to_string(),
                    cc: f.tcp.as_ref().map(|c| c.sender.cc_name().to_string()),
                    app: match f.app {
                        AppKind::Cbr => "cbr",
                        AppKind::Bulk => "bulk",
                    }
                    .to_string(),
                    packet_bytes: f.packet_bytes,
                    hops: f.hops,
                    goodput_kbps: f.stats.window_delivered_bytes as f64 * 8.0 / window_s / 1e3,
                    offered_kbps: f.stats.window_offered_bytes as f64 * 8.0 / window_s / 1e3,
                    mean_delay_ms: if f.stats.window_delay_samples > 0 {
                        f.stats.window_delay_total_ns as f64 / f.stats.window_delay_samples as f64 / 1e6
                    } else {
                        0.0
                    },
                    sent: f.stats.sent,
                    delivered: f.stats.delivered,
                    in_flight: in_flight[f.id as usize].0,
                    retransmissions: counters.retransmissions,
                    timeouts: counters.timeouts,
                    fast_retransmits: counters.fast_retransmits,
                    losses: cause_map(&f.stats.losses),
                    acks_sent: f.stats.acks_sent,
                    acks_delivered: f.stats.acks_delivered,
                    acks_in_flight: in_flight[f.id as usize].1,
                    ack_losses: cause_map(&f.stats.ack_losses),
                    completion_s: f
                        .tcp
                        .as_ref()
                        .and_then(|c| c.sender.completed_at)
                        .or_else(|| f.semitcp.as_ref().and_then(|c| c.sender.completed_at))
                        .map(|t| t.as_secs_f64()),
                    rate_control,
                    rate_kbps,
                    rate_restarts,
                    route_discoveries: self.routing[f.src.index()]
                        .counters()
                        .map_or(0, |r| r.discoveries.get(&f.dst).copied().unwrap_or(0)),
                    rerrs_received: self.routing[f.src.index()]
                        .counters()
                        .map_or(0, |r| r.errors_received.get(&f.dst).copied().unwrap_or(0)),
                    route_breaks: f.stats.route_breaks,
                }
            })
            .collect();
        let run_ns = self.end.as_nanos().max(1) as f64;
        let end = self.end;
        let positions: Vec<[f64; 2]> = (0..self.nodes.len()).map(|i| self.channel.position_at(NodeId(i as u32), end)).collect();
        let nodes = self
            .nodes
            .iter()
            .map(|n| {
                let s = &n.mac.stats;
                let hop = n.mac.hop.stats(self.end);
                let served = s.packets_served.max(1) as f64;
                let pos = positions[n.id.index()];
                let routing = self.routing[n.id.index()].counters();
                let sent = |name: &str| routing.map_or(0, |r| r.messages_sent.get(name).copied().unwrap_or(0));
                let mut frames_sent = BTreeMap::new();
                for kind in [FrameKind::Rts, FrameKind::Cts, FrameKind::Data, FrameKind::Ack] {
                    frames_sent.insert(kind.name().to_string(), s.frames_sent[kind as usize]);
                }
                NodeReport {
                    id: n.id.0,
                    x_m: pos[0],
                    y_m: pos[1],
                    rts_sent: s.frames_sent[FrameKind::Rts as usize],
                    rts_attempts_per_packet: if s.packets_served > 0 { s.rts_attempts_total as f64 / served } else { 0.0 },
                    data_attempts_per_packet: if s.packets_served > 0 { s.data_attempts_total as f64 / served } else { 0.0 },
                    rts_dropped: s.rts_dropped,
                    data_dropped: s.data_dropped,
                    data_retries: s.data_retries,
                    rtsc_sent: hop.rtsc_sent,
                    ctsc_sent: hop.ctsc_sent,
                    rtsc_ratio: if s.frames_sent[FrameKind::Rts as usize] > 0 {
                        hop.rtsc_sent as f64 / s.frames_sent[FrameKind::Rts as usize] as f64
                    } else {
                        0.0
                    },
                    rts_drop_ratio: if s.packets_served > 0 { s.rts_dropped as f64 / served } else { 0.0 },
                    congested_fraction: hop.congested_ns as f64 / run_ns,
                    rts_refused: hop.rts_refused,
                    hold_deferrals: hop.deferrals,
                    mac_service_time_ms: if s.packets_served > 0 {
                        s.service_time_total_ns as f64 / served / 1e6
                    } else {
                        0.0
                    },
                    queue_mean: s.queue_area as f64 / run_ns,
                    packets_served: s.packets_served,
                    frames_sent,
                    drops: cause_map(&n.drops),
                    tx_time_fraction: s.tx_time_ns as f64 / run_ns,
                    rreq_sent: sent("rreq"),
                    rrep_sent: sent("rrep"),
                    rerr_sent: sent("rerr"),
                    hello_sent: sent("hello"),
                    routing_bytes_sent: routing.map_or(0, |r| r.control_bytes_sent),
                    routing_drops: routing.map_or(0, |r| r.control_drops),
                }
            })
            .collect();
        RunReport {
            name: self.name.clone(),
            version: crate::api::version().to_string(),
            config_hash: self.config_hash.clone(),
            seed: self.seed,
            sim_seconds: self.end.as_secs_f64(),
            wall_seconds,
            events: self.queue.popped(),
            routing: self.routing_report(),
            flows,
            nodes,
            series: options.series.then(|| self.series.clone()),
            warnings: self.warnings.clone(),
        }
    }
}

fn cause_map(causes: &BTreeMap<DropCause, u64>) -> BTreeMap<String, u64> {
    causes.iter().map(|(cause, &count)| (cause.name().to_string(), count)).collect()
}

fn tcp_params(tcp: &crate::scenario::TcpConfig) -> TcpParams {
    let ms = |v: f64| SimDuration::from_secs_f64(v / 1e3);
    TcpParams {
        initial_cwnd: tcp.initial_cwnd_segments,
        rwnd_segments: tcp.rwnd_segments,
        min_rto: ms(tcp.min_rto_ms),
        initial_rto: ms(tcp.initial_rto_ms),
        max_rto: ms(tcp.max_rto_ms),
        granularity: ms(tcp.clock_granularity_ms),
        limited_transmit: tcp.limited_transmit,
        handshake: tcp.handshake,
        delayed_ack: tcp.delayed_ack,
        delayed_ack_timeout: ms(tcp.delayed_ack_ms),
        delayed_ack_segments: tcp.delayed_ack_segments,
        sack: tcp.sack,
    }
}

/// SHA-256 of the normalised scenario without its seed, first 16 hex digits.
pub fn config_hash(scenario: &Scenario) -> String {
    let mut value = serde_json::to_value(scenario).expect("scenario serialises");
    if let Some(map) = value.as_object_mut() {
        map.remove("seed");
    }
    let digest = Sha256::digest(value.to_string().as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Build and run a scenario to its end.
pub fn run_scenario(scenario: &Scenario, options: RunOptions) -> Result<RunReport, ApiError> {
    let mut world = World::build(scenario, scenario.seed)?;
    let started = std::time::Instant::now();
    let end = world.end;
    match options.wall_limit {
        None => world.run_until(end),
        Some(limit) => {
            if !world.run_until_deadline(end, started + limit) {
                return Err(ApiError::Simulation(format!(
                    "wall-clock limit of {:.3} s exceeded at simulated time {:.3} s of {:.3} s",
                    limit.as_secs_f64(),
                    world.now().as_secs_f64(),
                    end.as_secs_f64()
                )));
            }
        }
    }
    let wall_seconds = started.elapsed().as_secs_f64();
    Ok(world.report(wall_seconds, options))
}
