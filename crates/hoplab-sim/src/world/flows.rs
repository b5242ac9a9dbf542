//! Wiring of the flows: applications (CBR and bulk over UDP), TCP and
//! semi-TCP connections. The world turns their segments into network
//! packets at the right endpoint, hands them delivered packets, keeps
//! their timers at the deadlines they ask for, and keeps the flow
//! statistics (sent, delivered, goodput and delay in the window).

use super::{Event, Layer, World};
use crate::app::DEFAULT_TTL;
use crate::loss::DropCause;
use crate::mac::TxDone;
use crate::queue::QueueDisc;
use crate::scenario::{AppKind, Transport};
use crate::time::SimDuration;
use crate::transport::semitcp::connection::{Pacing, SemiTcpTimer, SendTick};
use crate::transport::tcp::connection::TcpTimer;
use crate::wire::tcp::{SegmentKind, TcpHeader, TCP_HEADER_BYTES};
use crate::wire::{NodeId, Packet, PacketInfo, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES, UDP_HEADER_BYTES};

impl World {
    // ------------------------------------------------------ applications

    /// A flow's application event: its start, or a CBR source's next packet.
    pub(crate) fn app_send(&mut self, flow: u32) {
        let now = self.now();
        let f = &self.flows[flow as usize];
        if now >= f.stop {
            return;
        }
        match f.transport {
            Transport::Tcp => return self.tcp_start(flow),
            Transport::Semitcp => return self.semitcp_start(flow),
            Transport::Udp => {}
        }
        match f.app {
            AppKind::Cbr => {
                let next = now + f.interval;
                if next < f.stop {
                    self.queue.schedule(next, Event::new(flow, Layer::App, 0));
                }
                self.app_originate(flow);
            }
            AppKind::Bulk => self.app_originate(flow),
        }
    }

    /// A packet entered MAC service at `node` (or was given up for want of
    /// a route): a bulk source refills, a semi-TCP source's reserved buffer
    /// has room again.
    pub(crate) fn app_packet_entered_service(&mut self, node: NodeId, packet: &PacketInfo) {
        if packet.is_control() || packet.src != node || packet.is_reverse() {
            return;
        }
        let f = &self.flows[packet.flow as usize];
        if f.transport == Transport::Semitcp {
            return self.semitcp_pump(packet.flow);
        }
        if f.transport == Transport::Udp && f.app == AppKind::Bulk && self.now() < f.stop {
            self.app_originate(packet.flow);
        }
    }

    fn app_originate(&mut self, flow: u32) {
        let now = self.now();
        let uid = self.new_uid();
        let in_window = now >= self.warmup;
        let f = &mut self.flows[flow as usize];
        let packet = Packet {
            uid,
            kind: PacketKind::Data,
            flow,
            sequence: f.next_sequence,
            src: f.src,
            dst: f.dst,
            payload_bytes: f.packet_bytes,
            header_bytes: UDP_HEADER_BYTES + IP_HEADER_BYTES,
            created: now,
            ttl: DEFAULT_TTL,
            transport: TransportHeader::Udp,
            routing: RoutingHeader::None,
        };
        f.next_sequence += 1;
        f.stats.sent += 1;
        if in_window {
            f.stats.window_offered_bytes += f.packet_bytes as u64;
        }
        let src = f.src;
        self.net_originate(src, packet);
    }

    /// A transport timer of `flow` popped (`seq` identifies the live arming).
    pub(crate) fn transport_timer(&mut self, flow: u32, id: u32, seq: u64) {
        if !self.flows[flow as usize].timers[id as usize].fire(seq) {
            return;
        }
        if self.flows[flow as usize].tcp.is_some() {
            self.tcp_timer(flow, TcpTimer::ALL[id as usize]);
        } else {
            self.semitcp_timer(flow, SemiTcpTimer::ALL[id as usize]);
        }
    }

    // --------------------------------------------------------------- TCP

    fn tcp(&mut self, flow: u32) -> &mut crate::transport::tcp::connection::TcpConnection {
        self.flows[flow as usize].tcp.as_mut().expect("a TCP flow")
    }

    /// The flow's start time: the FTP begins.
    fn tcp_start(&mut self, flow: u32) {
        let now = self.now();
        self.tcp(flow).sender.start(now);
        self.tcp_pump(flow);
    }

    /// Send whatever the sender's windows allow, then re-arm the timers.
    fn tcp_pump(&mut self, flow: u32) {
        let now = self.now();
        if now < self.flows[flow as usize].stop {
            while let Some(out) = self.tcp(flow).sender.poll_transmit(now) {
                let (src, dst) = (self.flows[flow as usize].src, self.flows[flow as usize].dst);
                self.tcp_send(flow, src, dst, out.header);
            }
        }
        self.tcp_sync_timers(flow);
    }

    /// A TCP or semi-TCP segment leaves endpoint `from` for `to`.
    fn tcp_send(&mut self, flow: u32, from: NodeId, to: NodeId, header: TcpHeader) {
        let packet = self.tcp_packet(flow, from, to, header);
        self.net_originate(from, packet);
    }

    /// The packet of a TCP or semi-TCP segment from `from` to `to`, counted
    /// as sent.
    fn tcp_packet(&mut self, flow: u32, from: NodeId, to: NodeId, header: TcpHeader) -> Packet {
        let now = self.now();
        let uid = self.new_uid();
        let in_window = now >= self.warmup;
        let f = &mut self.flows[flow as usize];
        let payload_bytes = if header.kind == SegmentKind::Data { f.packet_bytes } else { 0 };
        let packet = Packet {
            uid,
            kind: PacketKind::Data,
            flow,
            sequence: header.seq,
            src: from,
            dst: to,
            payload_bytes,
            header_bytes: TCP_HEADER_BYTES + header.option_bytes() + IP_HEADER_BYTES,
            created: now,
            ttl: DEFAULT_TTL,
            transport: TransportHeader::Tcp(header),
            routing: RoutingHeader::None,
        };
        if packet.is_reverse() {
            f.stats.acks_sent += 1;
        } else {
            f.stats.sent += 1;
            if in_window {
                f.stats.window_offered_bytes += payload_bytes as u64;
            }
        }
        packet
    }

    /// A TCP packet reached its destination node.
    pub(crate) fn tcp_deliver(&mut self, packet: Packet) {
        let now = self.now();
        let flow = packet.flow;
        let header = *packet.tcp().expect("a TCP packet");
        if packet.is_reverse() {
            self.flows[flow as usize].stats.acks_delivered += 1;
            let before = self.tcp(flow).loss_marker();
            self.tcp(flow).sender.on_ack(now, &header);
            self.record_loss_reaction(flow, before);
            self.tcp_pump(flow);
            return;
        }
        let f = &self.flows[flow as usize];
        let (src, dst) = (f.src, f.dst);
        let reply = match header.kind {
            SegmentKind::Syn => {
                self.flows[flow as usize].stats.delivered += 1;
                Some(self.tcp(flow).receiver.on_syn(now, &header))
            }
            SegmentKind::Data => {
                let received = self.tcp(flow).receiver.on_data(now, &header);
                self.record_segment_delivery(flow, &header, received.delivered_in_order, received.duplicate);
                let rcv_nxt = self.tcp(flow).receiver.rcv_nxt();
                if let Some(truth) = &mut self.flows[flow as usize].stats.loss_classification {
                    if let Some(verdict) = received.verdict {
                        truth.on_verdict(verdict.missing, verdict.hint, verdict.grade);
                    }
                    truth.forget_below(rcv_nxt);
                }
                received.ack
            }
            SegmentKind::Ack | SegmentKind::SynAck => None,
        };
        if let Some(ack) = reply {
            self.tcp_send(flow, dst, src, ack);
        }
        self.tcp_sync_timers(flow);
    }

    /// Account a data segment that reached the destination: goodput counts
    /// the payload of segments that became deliverable in order; delay the
    /// one-way delay of each segment received for the first time.
    fn record_segment_delivery(&mut self, flow: u32, header: &TcpHeader, in_order: u64, duplicate: bool) {
        let now = self.now();
        let in_window = now >= self.warmup;
        let f = &mut self.flows[flow as usize];
        let payload = f.packet_bytes as u64;
        let stats = &mut f.stats;
        stats.delivered += 1;
        stats.interval_delivered_bytes += in_order * payload;
        if in_window {
            stats.window_delivered_bytes += in_order * payload;
            stats.window_delivered_packets += in_order;
            if !duplicate {
                stats.window_delay_total_ns += now.since(header.sent_at).as_nanos() as u128;
                stats.window_delay_samples += 1;
            }
        }
    }

    fn tcp_timer(&mut self, flow: u32, timer: TcpTimer) {
        let now = self.now();
        match timer {
            TcpTimer::Retransmission => {
                let before = self.tcp(flow).loss_marker();
                self.tcp(flow).sender.on_rto(now);
                self.record_loss_reaction(flow, before);
                self.tcp_pump(flow);
            }
            TcpTimer::DelayedAck => {
                if let Some(ack) = self.tcp(flow).receiver.on_delack_timer(now) {
                    let f = &self.flows[flow as usize];
                    let (src, dst) = (f.src, f.dst);
                    self.tcp_send(flow, dst, src, ack);
                }
            }
        }
    }

    /// The series between samples, where it is cheap: each loss reaction
    /// adds the window just before and just after it (the sawtooth's edges).
    fn record_loss_reaction(&mut self, flow: u32, (losses_before, cwnd_before): (u64, f64)) {
        let (losses_now, cwnd_after) = self.tcp(flow).loss_marker();
        if losses_now == losses_before || self.series_interval == SimDuration::ZERO {
            return;
        }
        let time_s = self.now().as_secs_f64();
        for (metric, value) in [("cwnd_before_loss", cwnd_before), ("cwnd_after_loss", cwnd_after)] {
            self.series.push(crate::stats::report::SeriesRow { time_s, entity: "flow".into(), id: flow, metric: metric.into(), value });
        }
    }

    /// Make the armed timers match what sender and receiver ask for.
    fn tcp_sync_timers(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let wanted = f.tcp.as_ref().expect("a TCP flow").deadlines();
        for (kind, deadline) in TcpTimer::ALL.into_iter().zip(wanted) {
            let timer = &mut f.timers[kind as usize];
            match deadline {
                Some(at) if !(timer.is_armed() && timer.deadline() == at) => {
                    timer.arm(&mut self.queue, at, Event::new(flow, Layer::Transport, kind as u32));
                }
                None if timer.is_armed() => timer.cancel(),
                _ => {}
            }
        }
    }

    // ---------------------------------------------------------- semi-TCP

    fn semitcp(&mut self, flow: u32) -> &mut crate::transport::semitcp::connection::SemiTcpConnection {
        self.flows[flow as usize].semitcp.as_mut().expect("a semi-TCP flow")
    }

    /// Packets of `flow` (data direction) waiting in `node`'s interface
    /// queue, for a route, or on their way down through the link layer
    /// (`mac.ll_delay_us`).
    fn waiting_of_flow(&self, node: NodeId, flow: u32) -> usize {
        let of_flow = |p: &Packet| p.flow == flow && !p.is_reverse() && !p.is_control();
        let in_mac = self.nodes[node.index()].mac.queued().filter(|q| of_flow(&q.packet)).count();
        in_mac + self.routing_held(node, of_flow) + self.ll_going_down(node, of_flow)
    }

    /// The flow's start: the FTP begins. A pulled source sends its first
    /// segment if its node has room (ns-2 `SemiTcpAgent::send_much`,
    /// `tcp/semitcp.cc:353-363`).
    fn semitcp_start(&mut self, flow: u32) {
        let src = self.flows[flow as usize].src;
        if self.semitcp(flow).source_pull && self.has_room(src) {
            self.semitcp(flow).on_pull();
        }
        self.semitcp_pump(flow);
    }

    /// Routing gave up a packet `node` originated (no route): its agents
    /// are pulled as after a service (ns-2: `AODV::send_down(true)` after
    /// its drops, `aodv/aodv.cc:1472-1503`), and any source may refill as
    /// when a packet enters service.
    pub(crate) fn source_may_refill(&mut self, node: NodeId, packet: &PacketInfo) {
        self.pull_agents(node);
        self.app_packet_entered_service(node, packet);
    }

    /// Hand segments down while the reserved buffer (and the timer) allow;
    /// with `source_pull`, one segment if the MAC pulled.
    fn semitcp_pump(&mut self, flow: u32) {
        let now = self.now();
        let (src, dst, stop) = {
            let f = &self.flows[flow as usize];
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
    pub(crate) fn semitcp_deliver(&mut self, packet: Packet) {
        let now = self.now();
        let flow = packet.flow;
        let header = *packet.tcp().expect("a semi-TCP packet");
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
            if f.held_acks.is_none() {
                return self.tcp_send(flow, dst, src, ack);
            }
            // `sink_holds_acks` (ns-2 `TcpSink::ack`): down only with room.
            let packet = self.tcp_packet(flow, dst, src, ack);
            let room = self.has_room(dst);
            let queue = self.flows[flow as usize].held_acks.as_mut().expect("holds ACKs");
            let offered = queue.offer(packet, room);
            if let Some(old) = offered.dropped {
                self.drop_packet(dst, &old, DropCause::AckQueueOverflow);
            }
            if let Some(packet) = offered.send {
                self.net_originate(dst, packet);
            }
        }
    }

    /// Whether `node`'s interface queue and routing buffer together hold
    /// fewer packets (of any kind) than the congestion threshold: ns-2's
    /// `Mac802_11::spaces_available` (musicinthedark/semitcp,
    /// `mac/mac-802_11.cc:2165-2184`).
    fn has_room(&self, node: NodeId) -> bool {
        self.nodes[node.index()].mac.queue.len() + self.routing_held(node, |_| true) < self.room_threshold
    }

    /// `node`'s MAC finished a service and found its interface queue empty
    /// (ns-2's pull, `queue/queue.cc:71-81`), or its routing gave up a
    /// packet: if the routing buffer is empty (`AODV::send_down`,
    /// `aodv/aodv.cc:1472-1503`), one semi-TCP agent at the node hands one
    /// packet down: a pulled source (`source_pull`) a segment, else a
    /// destination one held ACK (`sink_holds_acks`; `TcpSink::send_down`),
    /// as ns-2 asks its source agent first. Agents of one kind take turns
    /// when a node has several.
    pub(crate) fn pull_agents(&mut self, node: NodeId) {
        if !self.pulls || self.routing_held(node, |_| true) > 0 {
            return;
        }
        let n = self.flows.len();
        let turn = self.pull_turn as usize;
        let source = (0..n).map(|k| (turn + k) % n).find(|&i| {
            let f = &self.flows[i];
            f.src == node && f.semitcp.as_ref().is_some_and(|c| c.source_pull)
        });
        if let Some(flow) = source {
            self.pull_turn = (flow + 1) as u32;
            self.semitcp(flow as u32).on_pull();
            return self.semitcp_pump(flow as u32);
        }
        for k in 0..n {
            let flow = (turn + k) % n;
            let f = &mut self.flows[flow];
            if f.dst != node {
                continue;
            }
            let Some(ack) = f.held_acks.as_mut().and_then(|q| q.release()) else { continue };
            self.pull_turn = (flow + 1) as u32;
            self.net_originate(node, ack);
            return;
        }
    }

    fn semitcp_timer(&mut self, flow: u32, timer: SemiTcpTimer) {
        let now = self.now();
        match timer {
            SemiTcpTimer::Retransmission => self.semitcp(flow).sender.on_rto(now),
            SemiTcpTimer::Send if matches!(self.semitcp(flow).pacing, Pacing::Matcp(_)) => {
                let blocked = self.holds_data(self.flows[flow as usize].src);
                self.semitcp(flow).on_matcp_tick(blocked);
            }
            SemiTcpTimer::Send => self.semitcp(flow).on_send_tick(),
        }
        self.semitcp_pump(flow);
    }

    /// Algorithm 1 samples every packet of the flow served by the source MAC.
    pub(crate) fn semitcp_mac_sample(&mut self, node: NodeId, done: &TxDone) {
        let flow = done.packet.flow;
        if self.flows[flow as usize].src != node || done.packet.is_reverse() {
            return;
        }
        if self.semitcp(flow).on_mac_sample(done.rts_attempts, done.service_time.as_secs_f64(), done.acknowledged) {
            if self.semitcp(flow).pacing.restarts_timer_on_change() {
                // The rate changed: the timer restarts with the new period.
                self.flows[flow as usize].timers[SemiTcpTimer::Send as usize].cancel();
            }
            self.semitcp_pump(flow);
        }
    }

    /// Whether `node` holds a data packet (ACKs included; not routing
    /// packets): in its interface queue, in service, or waiting for a
    /// route (matcp's `Mac802_11::TotalCongested`, mahaicheng/semitcprc
    /// `mac/mac-802_11.cc:2184-2192`).
    fn holds_data(&self, node: NodeId) -> bool {
        let mac = &self.nodes[node.index()].mac;
        let data = |p: &Packet| !p.is_control();
        mac.queued().any(|q| data(&q.packet)) || mac.op.iter().any(|op| data(&op.item.packet)) || self.routing_held(node, data) > 0
    }

    fn semitcp_sync_timers(&mut self, flow: u32) {
        let now = self.now();
        let f = &mut self.flows[flow as usize];
        let c = f.semitcp.as_mut().expect("a semi-TCP flow");
        let rto = c.sender.rto_deadline();
        let timer = &mut f.timers[SemiTcpTimer::Retransmission as usize];
        match rto {
            Some(at) if !(timer.is_armed() && timer.deadline() == at) => {
                timer.arm(&mut self.queue, at, Event::new(flow, Layer::Transport, SemiTcpTimer::Retransmission as u32));
            }
            None if timer.is_armed() => timer.cancel(),
            _ => {}
        }
        let send = &mut f.timers[SemiTcpTimer::Send as usize];
        match c.send_tick(now, send.is_armed()) {
            SendTick::Arm(at) => send.arm(&mut self.queue, at, Event::new(flow, Layer::Transport, SemiTcpTimer::Send as u32)),
            SendTick::Cancel => send.cancel(),
            SendTick::Keep => {}
        }
    }
}
