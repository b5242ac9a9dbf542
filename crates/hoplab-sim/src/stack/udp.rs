//! CBR and bulk sources over UDP: datagrams in, delivered ones counted.

use super::Host;
use crate::app::DEFAULT_TTL;
use crate::scenario::AppKind;
use crate::wire::{Packet, PacketKind, RoutingHeader, TransportHeader, IP_HEADER_BYTES, UDP_HEADER_BYTES};

pub trait UdpDriver: Host {
    fn app_originate(&mut self, flow: u32) {
        let now = self.now();
        let uid = self.new_uid();
        let in_window = now >= self.warmup();
        let f = &mut self.flows_mut()[flow as usize];
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
        self.originate(src, packet);
    }

    /// A datagram reached its destination.
    fn udp_deliver(&mut self, packet: Packet) {
        let now = self.now();
        let warmup = self.warmup();
        let stats = &mut self.flows_mut()[packet.flow as usize].stats;
        stats.delivered += 1;
        stats.interval_delivered_bytes += packet.payload_bytes as u64;
        if now >= warmup {
            stats.window_delivered_bytes += packet.payload_bytes as u64;
            stats.window_delivered_packets += 1;
            stats.window_delay_total_ns += now.since(packet.created).as_nanos() as u128;
            stats.window_delay_samples += 1;
        }
    }
}

impl<H: Host> UdpDriver for H {}

/// UDP in the registry (`stack::transports!`).
pub struct Udp;

impl super::FlowTransport for Udp {
    fn app_event<H: Host>(host: &mut H, flow: u32) {
        let f = &host.flows()[flow as usize];
        match f.app {
            AppKind::Cbr => {
                let next = host.now() + f.interval;
                if next < f.stop {
                    host.schedule_app(next, flow);
                }
                host.app_originate(flow);
            }
            AppKind::Bulk => host.app_originate(flow),
        }
    }
    fn deliver<H: Host>(host: &mut H, packet: Packet) {
        host.udp_deliver(packet)
    }
    /// A bulk source refills.
    fn entered_service<H: Host>(host: &mut H, flow: u32) {
        let f = &host.flows()[flow as usize];
        if f.app == AppKind::Bulk && host.now() < f.stop {
            host.app_originate(flow);
        }
    }
}
