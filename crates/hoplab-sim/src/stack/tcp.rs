//! TCP flows: the sender's segments out while its windows allow, ACKs
//! back, timers kept at the deadlines sender and receiver ask for.

use super::{Host, SeriesRow};
use crate::app::DEFAULT_TTL;
use crate::transport::tcp::connection::{TcpConnection, TcpTimer};
use crate::wire::tcp::{SegmentKind, TcpHeader, TCP_HEADER_BYTES};
use crate::wire::{NodeId, Packet, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES};

pub trait TcpDriver: Host {
    fn tcp(&mut self, flow: u32) -> &mut TcpConnection {
        self.flows_mut()[flow as usize].tcp.as_mut().expect("a TCP flow")
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
        if now < self.flows_mut()[flow as usize].stop {
            while let Some(out) = self.tcp(flow).sender.poll_transmit(now) {
                let (src, dst) = (self.flows_mut()[flow as usize].src, self.flows_mut()[flow as usize].dst);
                self.tcp_send(flow, src, dst, out.header);
            }
        }
        self.tcp_sync_timers(flow);
    }

    /// A TCP or semi-TCP segment leaves endpoint `from` for `to`.
    fn tcp_send(&mut self, flow: u32, from: NodeId, to: NodeId, header: TcpHeader) {
        let packet = self.tcp_packet(flow, from, to, header);
        self.originate(from, packet);
    }

    /// The packet of a TCP or semi-TCP segment from `from` to `to`, counted
    /// as sent.
    fn tcp_packet(&mut self, flow: u32, from: NodeId, to: NodeId, header: TcpHeader) -> Packet {
        let now = self.now();
        let uid = self.new_uid();
        let in_window = now >= self.warmup();
        let f = &mut self.flows_mut()[flow as usize];
        // `tcp.first_segment_header_only`: ns-2's SYN, segment 0, is headers
        // only (tcp/tcp.cc:710-716).
        let header_only = f.tcp.as_ref().is_some_and(|c| c.sender.is_header_only(header.seq));
        let payload_bytes = if header.kind == SegmentKind::Data && !header_only { f.packet_bytes } else { 0 };
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
    fn tcp_deliver(&mut self, packet: Packet) {
        let now = self.now();
        let flow = packet.flow;
        let header = *packet.tcp().expect("a TCP packet");
        if packet.is_reverse() {
            self.flows_mut()[flow as usize].stats.acks_delivered += 1;
            let before = self.tcp(flow).loss_marker();
            self.tcp(flow).sender.on_ack(now, &header);
            self.record_loss_reaction(flow, before);
            self.tcp_pump(flow);
            return;
        }
        let f = &self.flows()[flow as usize];
        let (src, dst) = (f.src, f.dst);
        let reply = match header.kind {
            SegmentKind::Syn => {
                self.flows_mut()[flow as usize].stats.delivered += 1;
                Some(self.tcp(flow).receiver.on_syn(now, &header))
            }
            SegmentKind::Data => {
                let rcv_nxt_before = self.tcp(flow).receiver.rcv_nxt();
                let received = self.tcp(flow).receiver.on_data(now, &header);
                // A header-only segment 0 (`tcp.first_segment_header_only`)
                // delivers no payload when it comes into order.
                let header_only = rcv_nxt_before == 0 && received.delivered_in_order > 0 && self.tcp(flow).sender.is_header_only(0);
                let payload_segments = received.delivered_in_order - u64::from(header_only);
                self.record_segment_delivery(flow, &header, received.delivered_in_order, payload_segments, received.duplicate);
                let rcv_nxt = self.tcp(flow).receiver.rcv_nxt();
                if let Some(truth) = &mut self.flows_mut()[flow as usize].stats.loss_classification {
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
    fn record_segment_delivery(&mut self, flow: u32, header: &TcpHeader, in_order: u64, payload_segments: u64, duplicate: bool) {
        let now = self.now();
        let in_window = now >= self.warmup();
        let f = &mut self.flows_mut()[flow as usize];
        let payload = f.packet_bytes as u64;
        let stats = &mut f.stats;
        stats.delivered += 1;
        stats.interval_delivered_bytes += payload_segments * payload;
        if in_window {
            stats.window_delivered_bytes += payload_segments * payload;
            stats.window_delivered_packets += in_order;
            if !duplicate {
                stats.window_delay_total_ns += now.since(header.sent_at).as_nanos() as u128;
                stats.window_delay_samples += 1;
            }
        }
    }

    fn tcp_timer(&mut self, flow: u32, id: u32) {
        let now = self.now();
        match TcpTimer::ALL[id as usize] {
            TcpTimer::Retransmission => {
                let before = self.tcp(flow).loss_marker();
                self.tcp(flow).sender.on_rto(now);
                self.record_loss_reaction(flow, before);
                self.tcp_pump(flow);
            }
            TcpTimer::DelayedAck => {
                if let Some(ack) = self.tcp(flow).receiver.on_delack_timer(now) {
                    let f = &self.flows()[flow as usize];
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
        if losses_now == losses_before || !self.keeps_series() {
            return;
        }
        let time_s = self.now().as_secs_f64();
        for (metric, value) in [("cwnd_before_loss", cwnd_before), ("cwnd_after_loss", cwnd_after)] {
            self.push_series(SeriesRow { time_s, entity: "flow".into(), id: flow, metric: metric.into(), value });
        }
    }

    /// Make the armed timers match what sender and receiver ask for.
    fn tcp_sync_timers(&mut self, flow: u32) {
        let wanted = self.flows()[flow as usize].tcp.as_ref().expect("a TCP flow").deadlines();
        for (kind, deadline) in TcpTimer::ALL.into_iter().zip(wanted) {
            self.keep_flow_timer(flow, kind as u32, deadline);
        }
    }
}

impl<H: Host> TcpDriver for H {}

/// TCP in the registry (`stack::transports!`).
pub struct Tcp;

impl super::FlowTransport for Tcp {
    fn app_event<H: Host>(host: &mut H, flow: u32) {
        host.tcp_start(flow)
    }
    fn timer<H: Host>(host: &mut H, flow: u32, id: u32) {
        host.tcp_timer(flow, id)
    }
    fn deliver<H: Host>(host: &mut H, packet: Packet) {
        host.tcp_deliver(packet)
    }
}
