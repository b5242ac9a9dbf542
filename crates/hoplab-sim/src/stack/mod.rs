//! The node stack above routing: each flow's transport and application,
//! and each node's policy toward the agents it hosts (semi-TCP's pulls,
//! room and held ACKs). One file per transport (`udp.rs`: CBR and bulk
//! sources over UDP; `tcp.rs`; `semitcp.rs`), each driving its sans-IO
//! state machines (`transport/`) over what the world offers it ([`Host`]:
//! the time, packets into the network, drops, timers, and what a node
//! holds below the transport). The world names no transport: it calls
//! [`Stack`] with a flow's events and implements [`Host`].
//!
//! Segments and datagrams become network packets here, counted in the
//! flow's [`FlowStats`] (sent, delivered, goodput and delay in the
//! window); the world carries them.

pub mod build;
pub mod report;
pub mod semitcp;
pub mod tcp;
pub mod udp;

use crate::engine::Timer;
use crate::loss::DropCause;
use crate::mac::TxDone;
use crate::scenario::{AppKind, Transport};
use crate::stats::report::SeriesRow;
use crate::stats::FlowStats;
use crate::time::{SimDuration, SimTime};
use crate::transport::semitcp::connection::SemiTcpConnection;
use crate::transport::semitcp::sink::AckQueue;
use crate::transport::tcp::connection::TcpConnection;
use crate::wire::{NodeId, Packet, PacketInfo};
// The node's policy (`NodeStack`: pulls, room, held ACKs) is semi-TCP's.
use semitcp::SemiTcpDriver;

/// A transport as the node stack drives it: the steps of a flow's events,
/// over what the world offers ([`Host`]). Each is a default method of its
/// driver (`udp.rs`, `tcp.rs`, `semitcp.rs`); the hooks a transport does
/// not use do nothing.
pub trait FlowTransport {
    /// The flow's application event (its start, a CBR source's next packet).
    fn app_event<H: Host>(host: &mut H, flow: u32);
    /// Transport timer `id` of `flow` fired.
    fn timer<H: Host>(_host: &mut H, _flow: u32, _id: u32) {}
    /// A packet of the flow reached its destination node.
    fn deliver<H: Host>(host: &mut H, packet: Packet);
    /// A packet the flow's source originated entered MAC service there (or
    /// was given up for want of a route).
    fn entered_service<H: Host>(_host: &mut H, _flow: u32) {}
    /// `node`'s MAC finished serving one of the flow's data packets.
    fn mac_tx_done<H: Host>(_host: &mut H, _node: NodeId, _done: &TxDone) {}
}

/// The registry: one line per transport, `Name(Type)`, `Name` being its
/// `flows[].transport` variant. It makes `each_transport!`, which runs an
/// expression with the flow's transport type.
macro_rules! transports {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        macro_rules! each_transport {
            ($transport:expr, $t:ident => $e:expr) => {
                match $transport {
                    $(Transport::$variant => {
                        type $t = $ty;
                        $e
                    })*
                }
            };
        }
    };
}

transports! {
    /// CBR and bulk sources over UDP.
    Udp(udp::Udp),
    /// TCP (RFC 5681, 6582, 6298).
    Tcp(tcp::Tcp),
    /// Semi-TCP (Cai et al. 2013).
    Semitcp(semitcp::SemiTcp),
}

/// A flow's configuration as the simulator uses it, and its transport's
/// state.
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
    /// A semi-TCP destination's held ACKs (`[semitcp] sink_holds_acks`).
    pub held_acks: Option<AckQueue<Packet>>,
}

/// Each node's policy toward the agents it hosts: semi-TCP's pulls and
/// room (`[semitcp]` `source_pull`, `sink_holds_acks`, `[semitcp.mac]
/// congestion_threshold`).
#[derive(Debug, Clone, Default)]
pub struct NodeStack {
    /// Some agent answers its MAC's pull (`MacIndication::QueueDrained`).
    pub pulls: bool,
    /// The flow whose agent a pull asks first (agents at one node take turns).
    pub pull_turn: u32,
    /// An agent finds room below this many packets in its node's
    /// interface queue and routing buffer (ns-2's `spaces_available`).
    pub room_threshold: usize,
}

/// What the world offers the node stack.
pub trait Host {
    fn now(&self) -> SimTime;
    /// The start of the measurement window.
    fn warmup(&self) -> SimTime;
    /// A packet identity, unique over the run.
    fn new_uid(&mut self) -> u64;
    fn flows(&self) -> &[Flow];
    fn flows_mut(&mut self) -> &mut [Flow];
    fn node_stack(&self) -> &NodeStack;
    fn node_stack_mut(&mut self) -> &mut NodeStack;
    /// A packet enters the network at its source node.
    fn originate(&mut self, node: NodeId, packet: Packet);
    /// A packet is lost at `node`.
    fn drop_packet(&mut self, node: NodeId, packet: &Packet, cause: DropCause);
    /// The flow's application event at `at`.
    fn schedule_app(&mut self, at: SimTime, flow: u32);
    /// Arm timer `id` of `flow` at `at` (re-arming replaces it).
    fn arm_flow_timer(&mut self, flow: u32, id: u32, at: SimTime);
    fn cancel_flow_timer(&mut self, flow: u32, id: u32);
    /// Whether the run keeps its time series.
    fn keeps_series(&self) -> bool;
    fn push_series(&mut self, row: SeriesRow);
    /// Packets `counts` accepts that `node` holds below the transport:
    /// in its interface queue, waiting for a route, or on their way down
    /// through the link layer.
    fn waiting_below(&self, node: NodeId, counts: impl Fn(&Packet) -> bool) -> usize;
    /// Packets `counts` accepts that `node`'s routing holds for want of a
    /// route.
    fn held_for_route(&self, node: NodeId, counts: impl Fn(&Packet) -> bool) -> usize;
    /// Packets of any kind in `node`'s interface queue and routing buffer.
    fn queued_and_held(&self, node: NodeId) -> usize;
    /// Whether `node` holds a data packet (ACKs included; not routing
    /// packets): queued, in service, or waiting for a route.
    fn holds_data(&self, node: NodeId) -> bool;

    /// Keep timer `id` of `flow` at `deadline`: armed there (unless it
    /// already is), or cancelled for none.
    fn keep_flow_timer(&mut self, flow: u32, id: u32, deadline: Option<SimTime>) {
        let timer = &self.flows()[flow as usize].timers[id as usize];
        match deadline {
            Some(at) if !(timer.is_armed() && timer.deadline() == at) => self.arm_flow_timer(flow, id, at),
            None if timer.is_armed() => self.cancel_flow_timer(flow, id),
            _ => {}
        }
    }
}

/// The events the world hands the node stack, dispatched by the flow's
/// transport.
pub trait Stack: Host + Sized {
    /// A flow's application event: its start, or a CBR source's next packet.
    fn app_send(&mut self, flow: u32) {
        let f = &self.flows()[flow as usize];
        if self.now() >= f.stop {
            return;
        }
        each_transport!(f.transport, T => T::app_event(self, flow))
    }

    /// A packet entered MAC service at `node` (or was given up for want of
    /// a route): a bulk source refills, a semi-TCP source's reserved buffer
    /// has room again.
    fn app_packet_entered_service(&mut self, node: NodeId, packet: &PacketInfo) {
        if packet.is_control() || packet.src != node || packet.is_reverse() {
            return;
        }
        each_transport!(self.flows()[packet.flow as usize].transport, T => T::entered_service(self, packet.flow))
    }

    /// A transport timer of `flow` popped (`seq` identifies the live arming).
    fn transport_timer(&mut self, flow: u32, id: u32, seq: u64) {
        if !self.flows_mut()[flow as usize].timers[id as usize].fire(seq) {
            return;
        }
        each_transport!(self.flows()[flow as usize].transport, T => T::timer(self, flow, id))
    }

    /// A packet reached its destination node.
    fn deliver(&mut self, packet: Packet) {
        each_transport!(self.flows()[packet.flow as usize].transport, T => T::deliver(self, packet))
    }

    /// The MAC of `node` finished serving a unicast packet (acknowledged
    /// or dropped).
    fn mac_tx_done(&mut self, node: NodeId, done: &TxDone) {
        if !done.packet.is_control() {
            each_transport!(self.flows()[done.packet.flow as usize].transport, T => T::mac_tx_done(self, node, done))
        }
    }

    /// Routing gave up a packet `node` originated (no route).
    fn source_gave_up(&mut self, node: NodeId, packet: &PacketInfo) {
        self.source_may_refill(node, packet);
    }

    /// `node`'s MAC found its interface queue empty after a service.
    fn queue_drained(&mut self, node: NodeId) {
        self.pull_agents(node);
    }
}

impl<H: Host> Stack for H {}
