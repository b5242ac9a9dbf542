//! The network packet: what travels end to end inside DATA frames, with
//! its transport and routing headers as protocol-neutral enums, so that the
//! layers below the transport move packets without knowing TCP, and the
//! layers below routing without knowing AODV.

use super::aodv::AodvMessage;
use super::arp::ArpOperation;
use super::dsr::DsrHeader;
use super::tcp::{SegmentKind, TcpHeader};
use super::NodeId;
use crate::time::SimTime;

/// IPv4 header without options: 20 bytes (160 bits, seed 003 Table 1).
pub const IP_HEADER_BYTES: u32 = 20;
/// UDP header: 8 bytes.
pub const UDP_HEADER_BYTES: u32 = 8;
/// Initial TTL of data packets; each forwarding node takes one off.
pub const DEFAULT_TTL: u8 = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// Application data of a flow.
    Data,
    /// Routing control (jumps the interface queue).
    Control,
    /// An ARP request or reply (`mac.arp = "ns2"`, `wire/arp.rs`): no
    /// flow's, and not routing control (it waits its turn in the interface
    /// queue: ns-2's PriQueue favours only routing packets,
    /// queue/priqueue.cc:88-99).
    Arp(ArpOperation),
}

/// One network packet. `Copy`: the simulator moves headers, not payloads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packet {
    /// Unique over the run; identifies copies of the same packet.
    pub uid: u64,
    pub kind: PacketKind,
    /// Flow index (scenario order).
    pub flow: u32,
    /// Sequence number within the flow (0, 1, ...).
    pub sequence: u64,
    pub src: NodeId,
    pub dst: NodeId,
    /// Application payload.
    pub payload_bytes: u32,
    /// Transport + network headers.
    pub header_bytes: u32,
    /// When the application created it (for end-to-end delay).
    pub created: SimTime,
    pub ttl: u8,
    pub transport: TransportHeader,
    pub routing: RoutingHeader,
}

/// What bookkeeping above the MAC needs of a packet, without its headers
/// (a few words instead of the whole packet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketInfo {
    pub uid: u64,
    pub flow: u32,
    pub src: NodeId,
    pub dst: NodeId,
    pub control: bool,
    /// [`Packet::is_reverse`].
    pub reverse: bool,
}

impl PacketInfo {
    pub fn is_control(&self) -> bool {
        self.control
    }
    pub fn is_reverse(&self) -> bool {
        self.reverse
    }
}

/// The transport header of a packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TransportHeader {
    /// UDP (8 bytes): application datagrams, and routing messages (AODV
    /// runs on UDP port 654).
    Udp,
    /// A TCP (or semi-TCP) segment.
    Tcp(TcpHeader),
}

/// What the routing protocol carries in a packet: its control message (the
/// whole payload of a routing packet), or nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RoutingHeader {
    None,
    /// An AODV message (RREQ, RREP, RERR) in a control packet.
    Aodv(AodvMessage),
    /// A DSR header (RFC 4728): a data packet's source route, or a Route
    /// Request, Reply or Error (then the whole of a control packet).
    Dsr(DsrHeader),
}

impl RoutingHeader {
    /// The message's name ("rreq", "rrep", "rerr", "hello"), if any.
    pub fn message_name(&self) -> Option<&'static str> {
        match self {
            RoutingHeader::None => None,
            RoutingHeader::Aodv(m) => Some(m.name()),
            RoutingHeader::Dsr(h) => h.name(),
        }
    }
}

impl Packet {
    /// Size handed to the MAC: payload + transport and IP headers.
    pub fn size_bytes(&self) -> u32 {
        self.payload_bytes + self.header_bytes
    }

    /// Not a flow's packet: routing control or ARP.
    pub fn is_control(&self) -> bool {
        self.kind != PacketKind::Data
    }

    /// A routing protocol's packet (the interface queue's priority, the
    /// routing agent's own drops).
    pub fn is_routing_control(&self) -> bool {
        self.kind == PacketKind::Control
    }

    /// The operation of an ARP packet.
    pub fn arp(&self) -> Option<ArpOperation> {
        match self.kind {
            PacketKind::Arp(op) => Some(op),
            _ => None,
        }
    }

    /// The name of the control message it carries in traces: a routing
    /// message's ("rreq", ...) or ARP's ("arp_request", "arp_reply").
    pub fn message_name(&self) -> Option<&'static str> {
        match self.kind {
            PacketKind::Arp(op) => Some(op.name()),
            _ => self.routing.message_name(),
        }
    }

    /// Hops a data packet has crossed since its source (each forwarding
    /// node takes one off its TTL): ns-2's `hdr_cmn::num_forwards()`,
    /// counted by the MAC of each receiver (mac/mac-802_11.cc:1909).
    pub fn hops_travelled(&self) -> u8 {
        DEFAULT_TTL.saturating_sub(self.ttl)
    }

    /// Travels from the flow's destination back to its source (TCP ACKs
    /// and SYN-ACKs), as opposed to the flow's data direction.
    pub fn is_reverse(&self) -> bool {
        matches!(self.transport, TransportHeader::Tcp(h) if matches!(h.kind, SegmentKind::Ack | SegmentKind::SynAck))
    }

    pub fn info(&self) -> PacketInfo {
        PacketInfo { uid: self.uid, flow: self.flow, src: self.src, dst: self.dst, control: self.is_control(), reverse: self.is_reverse() }
    }

    /// The TCP header of a TCP segment.
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.transport {
            TransportHeader::Tcp(h) => Some(h),
            TransportHeader::Udp => None,
        }
    }

    /// The AODV message of an AODV control packet.
    pub fn aodv(&self) -> Option<&AodvMessage> {
        match &self.routing {
            RoutingHeader::Aodv(m) => Some(m),
            _ => None,
        }
    }

    /// The DSR header of a packet routed by DSR.
    pub fn dsr(&self) -> Option<&DsrHeader> {
        match &self.routing {
            RoutingHeader::Dsr(h) => Some(h),
            _ => None,
        }
    }
}
