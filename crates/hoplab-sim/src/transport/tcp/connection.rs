//! A TCP connection in the world: the sender at the flow's source, the
//! receiver at its destination, their timers, and the glue that turns their
//! segments into network packets (impl World).

use super::receiver::Receiver;
use crate::wire::tcp::{SegmentKind, TcpHeader, TCP_HEADER_BYTES};
use super::sender::Sender;
use crate::engine::Timer;
use crate::net::{NodeId, Packet, PacketKind, IP_HEADER_BYTES};
use crate::world::{Event, Layer, World};

/// The timers of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TcpTimer {
    /// The sender's retransmission timer.
    Retransmission = 0,
    /// The receiver's delayed-ACK timer.
    DelayedAck = 1,
}

pub struct TcpConnection {
    pub sender: Sender,
    pub receiver: Receiver,
    timers: [Timer; 2],
}

impl TcpConnection {
    pub fn new(sender: Sender, receiver: Receiver) -> TcpConnection {
        TcpConnection { sender, receiver, timers: [Timer::default(); 2] }
    }
}

impl World {
    fn tcp(&mut self, flow: u32) -> &mut TcpConnection {
        self.flows[flow as usize].tcp.as_mut().expect("a TCP flow")
    }

    /// The flow's start time: the FTP begins.
    pub(crate) fn tcp_start(&mut self, flow: u32) {
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

    pub(crate) fn tcp_send(&mut self, flow: u32, from: NodeId, to: NodeId, header: TcpHeader) {
        let now = self.now();
        let uid = self.next_uid;
        self.next_uid += 1;
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
            header_bytes: TCP_HEADER_BYTES + header.sack.option_bytes() + IP_HEADER_BYTES,
            created: now,
            ttl: crate::app::DEFAULT_TTL,
            transport: crate::wire::TransportHeader::Tcp(header),
            routing: crate::wire::RoutingHeader::None,
        };
        if packet.is_reverse() {
            f.stats.acks_sent += 1;
        } else {
            f.stats.sent += 1;
            if in_window {
                f.stats.window_offered_bytes += payload_bytes as u64;
            }
        }
        self.net_originate(from, packet);
    }

    /// A TCP packet reached its destination node.
    pub(crate) fn tcp_deliver(&mut self, packet: Packet) {
        let now = self.now();
        let flow = packet.flow;
        let header = packet.tcp().copied().expect("a TCP packet");
        if packet.is_reverse() {
            self.flows[flow as usize].stats.acks_delivered += 1;
            let before = self.loss_marker(flow);
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
    pub(crate) fn record_segment_delivery(&mut self, flow: u32, header: &TcpHeader, in_order: u64, duplicate: bool) {
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

    /// A connection timer popped (`seq` identifies the live arming).
    pub(crate) fn tcp_timer(&mut self, flow: u32, timer: TcpTimer, seq: u64) {
        let now = self.now();
        if !self.tcp(flow).timers[timer as usize].fire(seq) {
            return;
        }
        match timer {
            TcpTimer::Retransmission => {
                let before = self.loss_marker(flow);
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

    /// (fast retransmits + timeouts, cwnd) before an event that may react to a loss.
    fn loss_marker(&mut self, flow: u32) -> (u64, f64) {
        let sender = &self.tcp(flow).sender;
        (sender.counters.fast_retransmits + sender.counters.timeouts, sender.state.cwnd)
    }

    /// The series between samples, where it is cheap: each loss reaction
    /// adds the window just before and just after it (the sawtooth's edges).
    fn record_loss_reaction(&mut self, flow: u32, (losses_before, cwnd_before): (u64, f64)) {
        let (losses_now, cwnd_after) = {
            let sender = &self.tcp(flow).sender;
            (sender.counters.fast_retransmits + sender.counters.timeouts, sender.state.cwnd)
        };
        if losses_now == losses_before || self.series_interval == crate::time::SimDuration::ZERO {
            return;
        }
        let time_s = self.now().as_secs_f64();
        for (metric, value) in [("cwnd_before_loss", cwnd_before), ("cwnd_after_loss", cwnd_after)] {
            self.series.push(crate::stats::report::SeriesRow {
                time_s,
                entity: "flow".into(),
                id: flow,
                metric: metric.into(),
                value,
            });
        }
    }

    /// Make the armed timers match what sender and receiver ask for.
    fn tcp_sync_timers(&mut self, flow: u32) {
        let connection = self.flows[flow as usize].tcp.as_mut().expect("a TCP flow");
        let wanted = [connection.sender.rto_deadline(), connection.receiver.delack_deadline()];
        for (kind, deadline) in [TcpTimer::Retransmission, TcpTimer::DelayedAck].into_iter().zip(wanted) {
            let timer = &mut connection.timers[kind as usize];
            match deadline {
                Some(at) if !(timer.is_armed() && timer.deadline() == at) => {
                    timer.arm(&mut self.queue, at, Event::new(flow, Layer::Transport, kind as u32));
                }
                None if timer.is_armed() => timer.cancel(),
                _ => {}
            }
        }
    }
}
