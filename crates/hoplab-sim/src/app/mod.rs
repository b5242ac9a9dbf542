//! Applications: constant bit rate and bulk (infinite backlog), over UDP.
//!
//! CBR emits one `packet_bytes` packet every `packet_bytes * 8 / rate`
//! seconds from `start_s` to `stop_s`. Bulk keeps one packet of its flow
//! waiting at the source's MAC at all times: whenever one of its packets
//! enters service a new one is generated, so the source never idles and the
//! interface queue never overflows because of the source itself (the
//! saturation condition of Bianchi's model).

use crate::net::{NodeId, Packet, PacketKind, IP_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::scenario::AppKind;
use crate::world::{Event, Layer, World};

/// Initial TTL of data packets.
pub const DEFAULT_TTL: u8 = 64;

impl World {
    /// The `AppSend` event of a flow.
    pub(crate) fn app_send(&mut self, flow: u32) {
        let now = self.now();
        let f = &self.flows[flow as usize];
        if now >= f.stop {
            return;
        }
        match f.transport {
            crate::scenario::Transport::Tcp => return self.tcp_start(flow),
            crate::scenario::Transport::Semitcp => return self.semitcp_start(flow),
            crate::scenario::Transport::Udp => {}
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

    /// A packet entered MAC service at `node`: a bulk source refills.
    pub(crate) fn app_packet_entered_service(&mut self, node: NodeId, packet: &Packet) {
        if packet.is_control() || packet.src != node || packet.is_reverse() {
            return;
        }
        let f = &self.flows[packet.flow as usize];
        if f.transport == crate::scenario::Transport::Semitcp {
            // The reserved buffer has room again.
            return self.semitcp_pump(packet.flow);
        }
        if f.transport == crate::scenario::Transport::Udp && f.app == AppKind::Bulk && self.now() < f.stop {
            self.app_originate(packet.flow);
        }
    }

    fn app_originate(&mut self, flow: u32) {
        let now = self.now();
        let uid = self.next_uid;
        self.next_uid += 1;
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
            transport: crate::wire::TransportHeader::Udp,
            routing: crate::wire::RoutingHeader::None,
        };
        f.next_sequence += 1;
        f.stats.sent += 1;
        if in_window {
            f.stats.window_offered_bytes += f.packet_bytes as u64;
        }
        let src = f.src;
        self.net_originate(src, packet);
    }
}
