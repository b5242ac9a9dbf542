//! One frame on the air as the bytes of a pcap record: radiotap, the 802.11
//! MAC header, for DATA the LLC/SNAP header, IPv4, UDP or TCP and an AODV
//! message, the (zero) application payload if asked for, and the FCS.
//!
//! The mapping of the simulator's typed headers to real ones:
//!
//! - Ports: flow `f`'s source uses port 49152 + f (mod 16384), its
//!   destination port 9 (discard); ACKs go the other way. AODV: 654 to 654.
//! - TCP sequence numbers count bytes: the initial sequence numbers are 0
//!   (a SYN takes 0), so segment `n` of a flow whose data segments carry
//!   `m` payload bytes starts at 1 + n x m, and an ACK of segment `n`
//!   carries 1 + n x m; SACK edges likewise. Data segments have ACK and
//!   PSH set, acknowledging the receiver's SYN-ACK (1). Window 65535.
//! - The IPv4 identification is the packet's uid (mod 65536): a packet
//!   keeps it hop after hop, and a MAC retry repeats it.
//! - DSR: routing packets are IPv4 protocol 48 with their DSR options
//!   (RFC 4728 section 6); a data packet's source route is counted in its
//!   size but not written (its TCP or UDP header follows IPv4 directly).
//! - ARP (`mac.arp = "ns2"`): LLC/SNAP with EtherType 0x0806 and the
//!   28-byte RFC 826 packet (`wire/arp.rs`), addresses as above.
//! - Lengths are the simulator's sizes plus what it does not count: the
//!   8-byte LLC/SNAP header (ns-2 does not count it either), and the 8
//!   bytes of the TCP-RA option when an ACK carries a loss hint.

use super::ieee80211::{self, Fcs, LLC_SNAP_IPV4};
use super::inet::{self, Ipv4Repr, TcpRepr, PROTOCOL_TCP, PROTOCOL_UDP, TCP_ACK, TCP_PSH, TCP_SYN};
use super::radiotap::{self, Radiotap};
use crate::time::SimDuration;
use crate::wire::aodv::AODV_PORT;
use crate::wire::arp::{ArpOperation, ArpRepr, ARP_PACKET_BYTES, ETHERTYPE_ARP};
use crate::wire::tcp::{SegmentKind, TcpHeader};
use crate::wire::{Frame, FrameKind, Packet, RoutingHeader, TransportHeader};

/// What the encoding needs of the run besides the frame.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodeParams {
    /// Radiotap rate of control frames and broadcasts (500 kbit/s units).
    pub basic_rate: u8,
    /// Radiotap rate of unicast DATA frames.
    pub data_rate: u8,
    pub channel_mhz: u16,
    pub channel_flags: u16,
    /// The PLCP preamble and header before the MPDU (radiotap's TSFT marks
    /// the MPDU's first bit, this long after the frame's).
    pub plcp: SimDuration,
    /// Per flow: the payload bytes of its data segments (turns segment
    /// numbers into TCP sequence numbers).
    pub segment_bytes: Vec<u32>,
    /// Write application payloads (zero bytes) instead of cutting them.
    pub payload: bool,
}

/// The port flow `flow`'s source sends from.
pub fn source_port(flow: u32) -> u16 {
    49152 + (flow % 16384) as u16
}

/// The port every flow's destination receives on (discard).
pub const DESTINATION_PORT: u16 = 9;

/// A record: the captured length is the buffer's; this is the frame's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoded {
    pub original_len: u32,
}

/// Encode `frame` into `buf` (cleared first). `tsft_us`: the radiotap
/// TSFT; `bad_fcs`: the frame was received in error (radiotap flag, and
/// its FCS, when written, is wrong).
pub fn encode(frame: &Frame, tsft_us: u64, bad_fcs: bool, params: &EncodeParams, buf: &mut Vec<u8>) -> Encoded {
    buf.clear();
    let unicast_data = frame.kind == FrameKind::Data && !frame.is_broadcast();
    Radiotap {
        tsft_us,
        flags: radiotap::FLAG_FCS | if bad_fcs { radiotap::FLAG_BAD_FCS } else { 0 },
        rate: if unicast_data { params.data_rate } else { params.basic_rate },
        channel_mhz: params.channel_mhz,
        channel_flags: params.channel_flags,
    }
    .emit(buf);
    let mac_start = buf.len();
    ieee80211::emit_header(frame, buf);
    let mut payload = 0usize;
    if let (FrameKind::Data, Some(packet)) = (frame.kind, &frame.packet) {
        if let Some(operation) = packet.arp() {
            emit_arp(packet, operation, buf);
        } else {
            buf.extend_from_slice(&LLC_SNAP_IPV4);
            payload = emit_packet(packet, params, buf);
        }
    }
    let original_len = (buf.len() + payload + ieee80211::FCS_LEN) as u32;
    if params.payload || payload == 0 {
        buf.resize(buf.len() + payload, 0);
        let mut fcs = Fcs::default();
        fcs.update(&buf[mac_start..]);
        let mut bytes = fcs.bytes();
        if bad_fcs {
            bytes.iter_mut().for_each(|b| *b = !*b);
        }
        buf.extend_from_slice(&bytes);
    }
    Encoded { original_len }
}

/// Append the IPv4 packet's headers (and an AODV message); return the
/// bytes of application payload that follow them.
fn emit_packet(packet: &Packet, params: &EncodeParams, buf: &mut Vec<u8>) -> usize {
    let mut ip = Ipv4Repr {
        src: inet::ipv4_address(packet.src),
        dst: inet::ipv4_address(packet.dst),
        protocol: PROTOCOL_UDP,
        ttl: packet.ttl,
        ident: packet.uid as u16,
        total_len: 0,
    };
    let payload = packet.payload_bytes as usize;
    match (&packet.transport, &packet.routing) {
        (TransportHeader::Tcp(h), _) => {
            let segment = params.segment_bytes.get(packet.flow as usize).copied().unwrap_or(0);
            let tcp = tcp_repr(packet.flow, h, segment);
            ip.protocol = PROTOCOL_TCP;
            ip.total_len = ip_len(inet::IPV4_HEADER + tcp.header_len() + payload);
            ip.emit(buf);
            tcp.emit(&ip, buf);
            payload
        }
        (TransportHeader::Udp, RoutingHeader::Aodv(message)) => {
            let len = message.buffer_len() as usize;
            let mut head = [0u8; 64];
            message.emit(&mut head);
            ip.total_len = ip_len(inet::IPV4_HEADER + inet::UDP_HEADER + len);
            ip.emit(buf);
            inet::emit_udp(&ip, AODV_PORT, AODV_PORT, &head[..len], buf);
            0
        }
        (TransportHeader::Udp, RoutingHeader::Dsr(header)) if packet.is_control() => {
            // A DSR routing packet: IPv4 protocol 48, the DSR Options
            // header and options, no payload (RFC 4728 6.1: Next Header 59).
            let len = header.buffer_len() as usize;
            let mut head = [0u8; 256];
            header.emit(&mut head, 59);
            ip.protocol = crate::wire::dsr::PROTOCOL_DSR;
            ip.total_len = ip_len(inet::IPV4_HEADER + len);
            ip.emit(buf);
            buf.extend_from_slice(&head[..len]);
            0
        }
        (TransportHeader::Udp, _) => {
            ip.total_len = ip_len(inet::IPV4_HEADER + inet::UDP_HEADER + payload);
            ip.emit(buf);
            inet::emit_udp(&ip, source_port(packet.flow), DESTINATION_PORT, &[], buf);
            payload
        }
    }
}

/// Append an ARP packet after its LLC/SNAP header (EtherType 0x0806,
/// RFC 1042): a request's target hardware address is zero (mac/arp.cc:246).
fn emit_arp(packet: &Packet, operation: ArpOperation, buf: &mut Vec<u8>) {
    let mut llc = LLC_SNAP_IPV4;
    llc[6..8].copy_from_slice(&ETHERTYPE_ARP.to_be_bytes());
    buf.extend_from_slice(&llc);
    let target_hardware_addr = match operation {
        ArpOperation::Request => [0; 6],
        ArpOperation::Reply => ieee80211::mac_address(packet.dst),
    };
    let repr = ArpRepr {
        operation,
        sender_hardware_addr: ieee80211::mac_address(packet.src),
        sender_protocol_addr: inet::ipv4_address(packet.src),
        target_hardware_addr,
        target_protocol_addr: inet::ipv4_address(packet.dst),
    };
    let start = buf.len();
    buf.resize(start + ARP_PACKET_BYTES as usize, 0);
    repr.emit(&mut buf[start..]);
}

fn ip_len(bytes: usize) -> u16 {
    bytes.min(u16::MAX as usize) as u16
}

/// The TCP header of a segment of `flow` whose data segments carry
/// `segment` payload bytes.
pub fn tcp_repr(flow: u32, h: &TcpHeader, segment: u32) -> TcpRepr {
    let sequence = |n: u64| (1u64.wrapping_add(n.wrapping_mul(segment as u64))) as u32;
    let (sender, receiver) = (source_port(flow), DESTINATION_PORT);
    let mut tcp = match h.kind {
        SegmentKind::Syn => TcpRepr::new(sender, receiver, 0, 0, TCP_SYN),
        SegmentKind::SynAck => TcpRepr::new(receiver, sender, 0, 1, TCP_SYN | TCP_ACK),
        SegmentKind::Data => TcpRepr::new(sender, receiver, sequence(h.seq), 1, TCP_ACK | TCP_PSH),
        SegmentKind::Ack => TcpRepr::new(receiver, sender, 1, sequence(h.ack), TCP_ACK),
    };
    tcp.push_sack(&h.sack, sequence);
    if let Some(hint) = h.loss_hint {
        tcp.push_loss_hint(hint);
    }
    tcp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;
    use crate::wire::aodv::{AodvMessage, Rreq};
    use crate::wire::seqno::SeqNumber;
    use crate::wire::tcp::{LossHint, SackBlocks};
    use crate::wire::{NodeId, PacketKind};

    fn params(payload: bool) -> EncodeParams {
        EncodeParams {
            basic_rate: 2,
            data_rate: 4,
            channel_mhz: 914,
            channel_flags: 0x1020,
            plcp: SimDuration::ZERO,
            segment_bytes: vec![512],
            payload,
        }
    }

    fn data_frame(packet: Packet, receiver: NodeId) -> Frame {
        Frame {
            sequence: 9,
            packet: Some(packet),
            ..Frame::new(FrameKind::Data, NodeId(1), receiver, SimDuration::ZERO, SimDuration::from_nanos(1))
        }
    }

    fn packet(transport: TransportHeader, routing: RoutingHeader, payload_bytes: u32, header_bytes: u32) -> Packet {
        Packet {
            uid: 0x1_0005,
            kind: PacketKind::Data,
            flow: 0,
            sequence: 0,
            src: NodeId(1),
            dst: NodeId::BROADCAST,
            payload_bytes,
            header_bytes,
            created: SimTime::ZERO,
            ttl: 30,
            transport,
            routing,
        }
    }

    #[test]
    fn aodv_rreq_travels_whole_in_udp_654() {
        // RFC 3561 5.1: originator node 1 (10.0.0.2) asks for node 4
        // (10.0.0.5), unknown sequence number, RREQ ID 7, hop count 2.
        let rreq = Rreq {
            gratuitous: false,
            destination_only: false,
            unknown_seq: true,
            hop_count: 2,
            id: 7,
            dst: NodeId(4),
            dst_seq: SeqNumber(0),
            orig: NodeId(1),
            orig_seq: SeqNumber(3),
        };
        let p = Packet { kind: PacketKind::Control, ..packet(TransportHeader::Udp, RoutingHeader::Aodv(AodvMessage::Rreq(rreq)), 24, 28) };
        let mut buf = Vec::new();
        let e = encode(&data_frame(p, NodeId::BROADCAST), 5, false, &params(false), &mut buf);
        let body = radiotap::LEN + ieee80211::DATA_HEADER + LLC_SNAP_IPV4.len();
        // The whole frame is captured: nothing is cut, the FCS is there.
        assert_eq!(e.original_len as usize, buf.len());
        assert_eq!(buf.len(), body + 20 + 8 + 24 + 4);
        assert_eq!(buf[body + 9], PROTOCOL_UDP);
        assert_eq!(buf[body + 16..body + 20], [255, 255, 255, 255], "to everyone");
        assert_eq!(buf[body + 20..body + 26], [0x02, 0x8e, 0x02, 0x8e, 0x00, 32], "ports 654, length 32");
        #[rustfmt::skip]
        let expected = [
            0x01, 0x08, 0x00, 0x02, // type 1; flags J R G D U = 00001; reserved; hop count 2
            0x00, 0x00, 0x00, 0x07, // RREQ ID
            0x0a, 0x00, 0x00, 0x05, // destination IP address
            0x00, 0x00, 0x00, 0x00, // destination sequence number
            0x0a, 0x00, 0x00, 0x02, // originator IP address
            0x00, 0x00, 0x00, 0x03, // originator sequence number
        ];
        assert_eq!(buf[body + 28..body + 52], expected);
    }

    #[test]
    fn arp_request_and_reply_go_whole_after_llc_snap_0806() {
        use crate::wire::arp::ArpOperation;
        // Node 1 (02:00:00:00:00:02, 10.0.0.2) asks for node 4 (10.0.0.5).
        let request = Packet {
            kind: PacketKind::Arp(ArpOperation::Request),
            dst: NodeId(4),
            ..packet(TransportHeader::Udp, RoutingHeader::None, 0, 28)
        };
        let mut buf = Vec::new();
        let e = encode(&data_frame(request, NodeId::BROADCAST), 0, false, &params(false), &mut buf);
        let llc = radiotap::LEN + ieee80211::DATA_HEADER;
        assert_eq!(e.original_len as usize, buf.len(), "nothing is cut");
        assert_eq!(buf.len(), llc + 8 + 28 + 4);
        assert_eq!(buf[llc..llc + 8], [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x06]);
        let repr = ArpRepr::parse(&buf[llc + 8..]).unwrap();
        assert_eq!(repr.operation, ArpOperation::Request);
        assert_eq!((repr.sender_hardware_addr, repr.sender_protocol_addr), ([2, 0, 0, 0, 0, 2], [10, 0, 0, 2]));
        assert_eq!((repr.target_hardware_addr, repr.target_protocol_addr), ([0; 6], [10, 0, 0, 5]));
        // Node 4's reply, unicast to node 1.
        let reply = Packet { kind: PacketKind::Arp(ArpOperation::Reply), src: NodeId(4), dst: NodeId(1), ..request };
        encode(&data_frame(reply, NodeId(1)), 0, false, &params(false), &mut buf);
        let repr = ArpRepr::parse(&buf[llc + 8..]).unwrap();
        assert_eq!(repr.operation, ArpOperation::Reply);
        assert_eq!((repr.sender_hardware_addr, repr.target_hardware_addr), ([2, 0, 0, 0, 0, 5], [2, 0, 0, 0, 0, 2]));
    }

    #[test]
    fn data_segments_are_cut_after_their_headers_unless_asked() {
        let h = TcpHeader::outgoing(SegmentKind::Data, 3, SimTime::ZERO, false);
        let p = Packet { dst: NodeId(4), ..packet(TransportHeader::Tcp(h), RoutingHeader::None, 512, 40) };
        let mut cut = Vec::new();
        let e = encode(&data_frame(p, NodeId(2)), 0, false, &params(false), &mut cut);
        let headers = radiotap::LEN + ieee80211::DATA_HEADER + 8 + 20 + 20;
        assert_eq!(cut.len(), headers);
        assert_eq!(e.original_len as usize, headers + 512 + 4);
        assert_eq!(cut[17], 4, "unicast DATA at the data rate");
        let tcp = &cut[headers - 20..];
        assert_eq!(tcp[4..8], (1u32 + 3 * 512).to_be_bytes());
        let mut whole = Vec::new();
        let again = encode(&data_frame(p, NodeId(2)), 0, false, &params(true), &mut whole);
        assert_eq!(again, e);
        assert_eq!(whole.len() as u32, e.original_len);
        assert_eq!(whole[..headers], cut[..]);
    }

    #[test]
    fn acks_carry_sack_and_the_loss_hint() {
        let mut sack = SackBlocks::default();
        sack.push(5, 6);
        let h = TcpHeader {
            kind: SegmentKind::Ack,
            seq: 0,
            ack: 4,
            sent_at: SimTime::ZERO,
            echo: SimTime::ZERO,
            retransmission: false,
            loss_hint: Some(LossHint::Congestion),
            sack,
        };
        let tcp = tcp_repr(0, &h, 512);
        assert_eq!((tcp.src_port, tcp.dst_port), (DESTINATION_PORT, 49152));
        assert_eq!(tcp.ack, 1 + 4 * 512);
        assert_eq!(tcp.flags, TCP_ACK);
        assert_eq!(tcp.options(), [1, 1, 5, 10, 0, 0, 0x0a, 0x01, 0, 0, 0x0c, 0x01, 1, 1, 1, 253, 5, 0x52, 0x41, 1]);
    }

    #[test]
    fn a_reception_in_error_has_a_wrong_fcs() {
        let ack = Frame {
            kind: FrameKind::Ack,
            packet: None,
            receiver: NodeId(0),
            ..data_frame(packet(TransportHeader::Udp, RoutingHeader::None, 0, 28), NodeId(0))
        };
        let (mut good, mut bad) = (Vec::new(), Vec::new());
        encode(&ack, 0, false, &params(false), &mut good);
        encode(&ack, 0, true, &params(false), &mut bad);
        assert_eq!(good.len(), radiotap::LEN + 14);
        assert_eq!(bad[16], radiotap::FLAG_FCS | radiotap::FLAG_BAD_FCS);
        let n = good.len();
        assert!(good[n - 4..].iter().zip(&bad[n - 4..]).all(|(g, b)| *g == !*b));
    }
}
