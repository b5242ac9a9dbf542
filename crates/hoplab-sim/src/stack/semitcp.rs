//! Semi-TCP flows: the window-less sender paced by its reserved buffer,
//! its rate control or its MAC's pulls, the sink's held ACKs, and the
//! node's pull and room policy (ns-2's `spaces_available` and `send_down`,
//! musicinthedark/semitcp).

use super::tcp::TcpDriver;
use super::udp::UdpDriver;
use super::Host;
use crate::loss::DropCause;
use crate::mac::TxDone;
use crate::transport::semitcp::connection::{Pacing, SemiTcpConnection, SemiTcpTimer, SendTick};
use crate::wire::tcp::SegmentKind;
use crate::wire::{NodeId, Packet, PacketInfo};

pub trait SemiTcpDriver: Host + TcpDriver + UdpDriver + super::Stack {
    fn semitcp(&mut self, flow: u32) -> &mut SemiTcpConnection {
        self.flows_mut()[flow as usize].semitcp.as_mut().expect("a semi-TCP flow")
    }

    /// Packets of `flow` (data direction) waiting in `node`'s interface
    /// queue, for a route, or on their way down through the link layer
    /// (`mac.ll_delay_us`).
    fn waiting_of_flow(&self, node: NodeId, flow: u32) -> usize {
        self.waiting_below(node, |p: &Packet| p.flow == flow && !p.is_reverse() && !p.is_control())
    }

    /// The flow's start: the FTP begins. A pulled source sends its first
    /// segment if its node has room (ns-2 `SemiTcpAgent::send_much`,
    /// `tcp/semitcp.cc:353-363`).
    fn semitcp_start(&mut self, flow: u32) {
        let src = self.flows_mut()[flow as usize].src;
        if self.semitcp(flow).source_pull && self.has_room(src) {
            self.semitcp(flow).on_pull();
        }
        self.semitcp_pump(flow);
    }

    /// Routing gave up a packet `node` originated (no route): its agents
    /// are pulled as after a service (ns-2: `AODV::send_down(true)` after
    /// its drops, `aodv/aodv.cc:1472-1503`), and any source may refill as
    /// when a packet enters service.
    fn source_may_refill(&mut self, node: NodeId, packet: &PacketInfo) {
        self.pull_agents(node);
        self.app_packet_entered_service(node, packet);
    }

    /// Hand segments down while the reserved buffer (and the timer) allow;
    /// with `source_pull`, one segment if the MAC pulled.
    fn semitcp_pump(&mut self, flow: u32) {
        let now = self.now();
        let (src, dst, stop) = {
            let f = &self.flows()[flow as usize];
            (f.src, f.dst, f.stop)
        };
        // Nothing after the flow's stop time; before it, until the sender
        // has nothing to send or the buffer cannot fill.
        if now < stop {
            loop {
                let waiting = self.waiting_of_flow(src, flow);
                let Some(header) = self.semitcp(flow).next_segment(now, waiting) else { break };
                self.tcp_send(flow, src, dst, header);
                if self.waiting_of_flow(src, flow) <= waiting {
                    // The segment did not stay below the transport (dropped on
                    // the spot, or it pushed out one of its own): the buffer
                    // cannot fill now, and refilling again would loop forever.
                    break;
                }
            }
        }
        self.semitcp_sync_timers(flow);
    }

    /// A semi-TCP packet reached its destination node.
    fn semitcp_deliver(&mut self, packet: Packet) {
        let now = self.now();
        let flow = packet.flow;
        let header = *packet.tcp().expect("a semi-TCP packet");
        if packet.is_reverse() {
            self.flows_mut()[flow as usize].stats.acks_delivered += 1;
            self.semitcp(flow).sender.on_ack(now, &header);
            self.semitcp_pump(flow);
            return;
        }
        if header.kind != SegmentKind::Data {
            return;
        }
        let received = self.semitcp(flow).receiver.on_data(now, &header);
        self.record_segment_delivery(flow, &header, received.delivered_in_order, received.delivered_in_order, received.duplicate);
        if let Some(ack) = received.ack {
            let f = &self.flows()[flow as usize];
            let (src, dst) = (f.src, f.dst);
            if f.held_acks.is_none() {
                return self.tcp_send(flow, dst, src, ack);
            }
            // `sink_holds_acks` (ns-2 `TcpSink::ack`): down only with room.
            let packet = self.tcp_packet(flow, dst, src, ack);
            let room = self.has_room(dst);
            let queue = self.flows_mut()[flow as usize].held_acks.as_mut().expect("holds ACKs");
            let offered = queue.offer(packet, room);
            if let Some(old) = offered.dropped {
                self.drop_packet(dst, &old, DropCause::AckQueueOverflow);
            }
            if let Some(packet) = offered.send {
                self.originate(dst, packet);
            }
        }
    }

    /// Whether `node`'s interface queue and routing buffer together hold
    /// fewer packets (of any kind) than the congestion threshold: ns-2's
    /// `Mac802_11::spaces_available` (musicinthedark/semitcp,
    /// `mac/mac-802_11.cc:2165-2184`).
    fn has_room(&self, node: NodeId) -> bool {
        self.queued_and_held(node) < self.node_stack().room_threshold
    }

    /// `node`'s MAC finished a service and found its interface queue empty
    /// (ns-2's pull, `queue/queue.cc:71-81`), or its routing gave up a
    /// packet: if the routing buffer is empty (`AODV::send_down`,
    /// `aodv/aodv.cc:1472-1503`), one semi-TCP agent at the node hands one
    /// packet down: a pulled source (`source_pull`) a segment, else a
    /// destination one held ACK (`sink_holds_acks`; `TcpSink::send_down`),
    /// as ns-2 asks its source agent first. Agents of one kind take turns
    /// when a node has several.
    fn pull_agents(&mut self, node: NodeId) {
        if !self.node_stack().pulls || self.held_for_route(node, |_| true) > 0 {
            return;
        }
        let n = self.flows().len();
        let turn = self.node_stack().pull_turn as usize;
        let source = (0..n).map(|k| (turn + k) % n).find(|&i| {
            let f = &self.flows()[i];
            f.src == node && f.semitcp.as_ref().is_some_and(|c| c.source_pull)
        });
        if let Some(flow) = source {
            self.node_stack_mut().pull_turn = (flow + 1) as u32;
            self.semitcp(flow as u32).on_pull();
            return self.semitcp_pump(flow as u32);
        }
        for k in 0..n {
            let flow = (turn + k) % n;
            let f = &mut self.flows_mut()[flow];
            if f.dst != node {
                continue;
            }
            let Some(ack) = f.held_acks.as_mut().and_then(|q| q.release()) else { continue };
            self.node_stack_mut().pull_turn = (flow + 1) as u32;
            self.originate(node, ack);
            return;
        }
    }

    fn semitcp_timer(&mut self, flow: u32, id: u32) {
        let now = self.now();
        match SemiTcpTimer::ALL[id as usize] {
            SemiTcpTimer::Retransmission => self.semitcp(flow).sender.on_rto(now),
            SemiTcpTimer::Send if matches!(self.semitcp(flow).pacing, Pacing::Matcp(_)) => {
                let blocked = self.holds_data(self.flows()[flow as usize].src);
                self.semitcp(flow).on_matcp_tick(blocked);
            }
            SemiTcpTimer::Send => self.semitcp(flow).on_send_tick(),
        }
        self.semitcp_pump(flow);
    }

    /// Algorithm 1 samples every packet of the flow served by the source MAC.
    fn semitcp_mac_sample(&mut self, node: NodeId, done: &TxDone) {
        let flow = done.packet.flow;
        if self.flows_mut()[flow as usize].src != node || done.packet.is_reverse() {
            return;
        }
        if self.semitcp(flow).on_mac_sample(done.rts_attempts, done.service_time.as_secs_f64(), done.acknowledged) {
            if self.semitcp(flow).pacing.restarts_timer_on_change() {
                // The rate changed: the timer restarts with the new period.
                self.cancel_flow_timer(flow, SemiTcpTimer::Send as u32);
            }
            self.semitcp_pump(flow);
        }
    }

    fn semitcp_sync_timers(&mut self, flow: u32) {
        let now = self.now();
        let rto = self.semitcp(flow).sender.rto_deadline();
        self.keep_flow_timer(flow, SemiTcpTimer::Retransmission as u32, rto);
        let armed = self.flows()[flow as usize].timers[SemiTcpTimer::Send as usize].is_armed();
        match self.semitcp(flow).send_tick(now, armed) {
            SendTick::Arm(at) => self.arm_flow_timer(flow, SemiTcpTimer::Send as u32, at),
            SendTick::Cancel => self.cancel_flow_timer(flow, SemiTcpTimer::Send as u32),
            SendTick::Keep => {}
        }
    }
}

impl<H: Host> SemiTcpDriver for H {}

/// Semi-TCP in the registry (`stack::transports!`).
pub struct SemiTcp;

impl super::FlowTransport for SemiTcp {
    fn app_event<H: Host>(host: &mut H, flow: u32) {
        host.semitcp_start(flow)
    }
    fn timer<H: Host>(host: &mut H, flow: u32, id: u32) {
        host.semitcp_timer(flow, id)
    }
    fn deliver<H: Host>(host: &mut H, packet: Packet) {
        host.semitcp_deliver(packet)
    }
    /// The source's reserved buffer has room again.
    fn entered_service<H: Host>(host: &mut H, flow: u32) {
        host.semitcp_pump(flow)
    }
    fn mac_tx_done<H: Host>(host: &mut H, node: NodeId, done: &TxDone) {
        host.semitcp_mac_sample(node, done)
    }
}
