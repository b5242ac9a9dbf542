//! A semi-TCP flow in the world: the sender at the source, a receiver that
//! acknowledges every segment at the destination, the source's pacing
//! (buffer only, a fixed rate, or Algorithm 1), and the timers (impl World).
//!
//! Buffer-based sending (SPEC.md section 2): the source hands a segment to
//! its MAC whenever fewer than `reserved_packets` (R) of its own packets
//! wait in the interface queue (the packet in service not counted), so it
//! holds R + 1 and, with the default threshold, is congested and sends
//! RTSCs, as the paper's Fig. 4 shows. A paced source additionally needs a
//! tick of its sending timer (Stimer, eq. 1) per segment; ticks do not
//! accumulate beyond one.

use super::rate_control::BinarySearchRateControl;
use super::sender::SemiTcpSender;
use crate::engine::Timer;
use crate::mac::TxDone;
use crate::net::{NodeId, Packet};
use crate::time::SimDuration;
use crate::transport::tcp::receiver::Receiver;
use crate::wire::tcp::SegmentKind;
use crate::world::{Event, Layer, World};

/// How the source paces itself.
pub enum Pacing {
    /// The original semi-TCP: by buffer only.
    Buffer,
    Fixed { interval: SimDuration },
    BinarySearch(Box<BinarySearchRateControl>),
}

impl Pacing {
    /// The sending timer's period, if the source is paced now.
    pub fn interval(&self) -> Option<SimDuration> {
        match self {
            Pacing::Buffer => None,
            Pacing::Fixed { interval } => Some(*interval),
            Pacing::BinarySearch(rc) => rc.interval_s().map(SimDuration::from_secs_f64),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Pacing::Buffer => "none",
            Pacing::Fixed { .. } => "fixed",
            Pacing::BinarySearch(_) => "binary_search",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SemiTcpTimer {
    Retransmission = 0,
    /// The source's sending timer (Stimer).
    Send = 1,
}

pub struct SemiTcpConnection {
    pub sender: SemiTcpSender,
    pub receiver: Receiver,
    pub pacing: Pacing,
    pub reserved_packets: usize,
    /// A tick of the sending timer not yet used.
    credit: bool,
    timers: [Timer; 2],
    /// The interval the sending timer was armed with.
    armed_interval: Option<SimDuration>,
}

impl SemiTcpConnection {
    pub fn new(sender: SemiTcpSender, receiver: Receiver, pacing: Pacing, reserved_packets: usize) -> Self {
        SemiTcpConnection {
            sender,
            receiver,
            pacing,
            reserved_packets,
            credit: true,
            timers: [Timer::default(); 2],
            armed_interval: None,
        }
    }
}

impl World {
    fn semitcp(&mut self, flow: u32) -> &mut SemiTcpConnection {
        self.flows[flow as usize].semitcp.as_mut().expect("a semi-TCP flow")
    }

    pub(crate) fn semitcp_start(&mut self, flow: u32) {
        self.semitcp_pump(flow);
    }

    /// Packets of `flow` (data direction) waiting in `node`'s interface
    /// queue or for a route (AODV's request queue).
    fn waiting_of_flow(&self, node: NodeId, flow: u32) -> usize {
        let of_flow = |p: &Packet| p.flow == flow && !p.is_reverse() && !p.is_control();
        self.nodes[node.index()].mac.queued().filter(|q| of_flow(&q.packet)).count()
            + self.routing_held(node, of_flow)
    }

    /// Hand segments down while the reserved buffer (and the timer) allow.
    pub(crate) fn semitcp_pump(&mut self, flow: u32) {
        let now = self.now();
        let (src, dst, stop) = {
            let f = &self.flows[flow as usize];
            (f.src, f.dst, f.stop)
        };
        while now < stop && self.waiting_of_flow(src, flow) < self.semitcp(flow).reserved_packets {
            let c = self.semitcp(flow);
            let paced = c.pacing.interval().is_some();
            if paced && !c.credit {
                break;
            }
            let Some(header) = c.sender.next_segment(now) else { break };
            if paced {
                c.credit = false;
            }
            self.tcp_send(flow, src, dst, header);
        }
        self.semitcp_sync_timers(flow);
    }

    /// A semi-TCP packet reached its destination node.
    pub(crate) fn semitcp_deliver(&mut self, packet: Packet) {
        let now = self.now();
        let flow = packet.flow;
        let header = packet.tcp().copied().expect("a semi-TCP packet");
        if packet.is_reverse() {
            self.flows[flow as usize].stats.acks_delivered += 1;
            self.semitcp(flow).sender.on_ack(now, &header);
            self.semitcp_pump(flow);
            return;
        }
        if header.kind != SegmentKind::Data {
            return;
        }
        let received = self.semitcp(flow).receiver.on_data(now, &header);
        self.record_segment_delivery(flow, &header, received.delivered_in_order, received.duplicate);
        if let Some(ack) = received.ack {
            let f = &self.flows[flow as usize];
            let (src, dst) = (f.src, f.dst);
            self.tcp_send(flow, dst, src, ack);
        }
    }

    pub(crate) fn semitcp_timer(&mut self, flow: u32, timer: SemiTcpTimer, seq: u64) {
        let now = self.now();
        if !self.semitcp(flow).timers[timer as usize].fire(seq) {
            return;
        }
        match timer {
            SemiTcpTimer::Retransmission => self.semitcp(flow).sender.on_rto(now),
            SemiTcpTimer::Send => {
                let c = self.semitcp(flow);
                c.credit = true;
                c.armed_interval = None; // re-armed below for the next tick
            }
        }
        self.semitcp_pump(flow);
    }

    /// Algorithm 1 samples every packet of the flow served by the source MAC.
    pub(crate) fn semitcp_mac_sample(&mut self, node: NodeId, done: &TxDone, packet: &Packet) {
        let flow = packet.flow;
        if self.flows[flow as usize].src != node || packet.is_reverse() {
            return;
        }
        let c = self.semitcp(flow);
        if let Pacing::BinarySearch(rc) = &mut c.pacing {
            if rc.on_sample(done.rts_attempts, done.service_time.as_secs_f64()) {
                // The rate changed: the timer restarts with the new period.
                c.armed_interval = None;
                c.timers[SemiTcpTimer::Send as usize].cancel();
                c.credit = true;
                self.semitcp_pump(flow);
            }
        }
    }

    fn semitcp_sync_timers(&mut self, flow: u32) {
        let now = self.now();
        let c = self.flows[flow as usize].semitcp.as_mut().expect("a semi-TCP flow");
        let rto = c.sender.rto_deadline();
        let timer = &mut c.timers[SemiTcpTimer::Retransmission as usize];
        match rto {
            Some(at) if !(timer.is_armed() && timer.deadline() == at) => {
                timer.arm(&mut self.queue, at, Event::new(flow, Layer::Transport, 2));
            }
            None if timer.is_armed() => timer.cancel(),
            _ => {}
        }
        let interval = c.pacing.interval();
        let send = &mut c.timers[SemiTcpTimer::Send as usize];
        match interval {
            Some(period) if !send.is_armed() || c.armed_interval != Some(period) => {
                send.arm(&mut self.queue, now + period, Event::new(flow, Layer::Transport, 3));
                c.armed_interval = Some(period);
            }
            None if send.is_armed() => {
                send.cancel();
                c.armed_interval = None;
            }
            _ => {}
        }
    }
}
