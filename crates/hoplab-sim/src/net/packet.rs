//! The network packet: what travels end to end inside DATA frames.

use crate::time::SimTime;

/// A node's index (0-based, as in the scenario).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// IPv4 header without options: 20 bytes (160 bits, seed 003 Table 1).
pub const IP_HEADER_BYTES: u32 = 20;
/// UDP header: 8 bytes.
pub const UDP_HEADER_BYTES: u32 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// Application data of a flow.
    Data,
    /// Routing control (jumps the interface queue).
    Control,
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
    /// The TCP header of a TCP segment (None: UDP or routing).
    pub tcp: Option<crate::transport::tcp::segment::TcpHeader>,
    /// The routing message of a control packet (AODV's RREQ, RREP, RERR).
    pub routing: Option<super::aodv::AodvMessage>,
}

impl Packet {
    /// Size handed to the MAC: payload + transport and IP headers.
    pub fn size_bytes(&self) -> u32 {
        self.payload_bytes + self.header_bytes
    }

    pub fn is_control(&self) -> bool {
        self.kind == PacketKind::Control
    }

    /// Travels from the flow's destination back to its source (TCP ACKs
    /// and SYN-ACKs), as opposed to the flow's data direction.
    pub fn is_reverse(&self) -> bool {
        use crate::transport::tcp::segment::SegmentKind;
        self.tcp.is_some_and(|h| matches!(h.kind, SegmentKind::Ack | SegmentKind::SynAck))
    }
}
