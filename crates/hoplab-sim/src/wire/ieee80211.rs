//! 802.11 frames as the simulator needs them: the typed header fields that
//! change behaviour (kind, addresses, Duration/NAV, sequence number, retry
//! bit) and the sizes that set airtime. IEEE 802.11-2016 clause 9.3.

use super::{NodeId, Packet};
use crate::time::SimDuration;

/// Receiver address of a broadcast frame.
pub const BROADCAST: NodeId = NodeId::BROADCAST;

/// RTS: frame control, duration, RA, TA, FCS (9.3.1.2): 20 bytes = 160 bits.
pub const RTS_BYTES: u32 = 20;
/// CTS: frame control, duration, RA, FCS (9.3.1.3): 14 bytes = 112 bits.
pub const CTS_BYTES: u32 = 14;
/// ACK: same layout as CTS (9.3.1.4): 14 bytes = 112 bits.
pub const ACK_BYTES: u32 = 14;
/// Data MAC header (3 addresses) + FCS: 24 + 4 bytes = 224 bits (seed 003
/// Table 1, Bianchi 2000 Table I).
pub const DATA_HEADER_BYTES: u32 = 28;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FrameKind {
    Rts,
    Cts,
    Data,
    Ack,
}

impl FrameKind {
    pub fn name(self) -> &'static str {
        match self {
            FrameKind::Rts => "rts",
            FrameKind::Cts => "cts",
            FrameKind::Data => "data",
            FrameKind::Ack => "ack",
        }
    }
}

/// One frame on the air.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub kind: FrameKind,
    /// TA: who sends it.
    pub transmitter: NodeId,
    /// RA: who it is for ([`BROADCAST`] for everyone).
    pub receiver: NodeId,
    /// The Duration field: how long after this frame's end the medium stays
    /// reserved (sets other stations' NAV).
    pub duration: SimDuration,
    /// Time on the air, PLCP preamble and header included.
    pub airtime: SimDuration,
    /// Sequence number (DATA only), modulo 4096.
    pub sequence: u16,
    /// Retry bit (DATA only): set on retransmissions, for duplicate detection.
    pub retry: bool,
    /// The network packet a DATA frame carries.
    pub packet: Option<Packet>,
    /// Semi-TCP's congestion mark: an RTS or CTS with it is an RTSC / CTSC
    /// (the frame-control order bit in the public ns-2 implementation).
    pub congestion_mark: bool,
    /// RTS only: the packet that follows needs no buffer at the receiver
    /// (a routing packet, or one whose final destination is the receiver),
    /// so semi-TCP's congested receiver answers it anyway.
    pub needs_no_buffer: bool,
    /// RTS only: the packet that follows is a routing packet (semi-TCP's
    /// ns-2 MAC sends such an RTS as its own subtype, uRTS,
    /// mac-802_11.cc:1152).
    pub control_packet: bool,
}

impl Frame {
    /// A frame of `kind` from `transmitter` to `receiver` carrying no
    /// packet: sequence 0, no retry, no semi-TCP flags. Callers set the rest
    /// with struct-update syntax (`Frame { retry: true, ..Frame::new(..) }`).
    pub fn new(kind: FrameKind, transmitter: NodeId, receiver: NodeId, duration: SimDuration, airtime: SimDuration) -> Frame {
        Frame {
            kind,
            transmitter,
            receiver,
            duration,
            airtime,
            sequence: 0,
            retry: false,
            packet: None,
            congestion_mark: false,
            needs_no_buffer: false,
            control_packet: false,
        }
    }

    pub fn is_broadcast(&self) -> bool {
        self.receiver == BROADCAST
    }

    /// MPDU length in bytes (what the RTS threshold compares).
    pub fn mpdu_bytes(&self) -> u32 {
        match self.kind {
            FrameKind::Rts => RTS_BYTES,
            FrameKind::Cts => CTS_BYTES,
            FrameKind::Ack => ACK_BYTES,
            FrameKind::Data => DATA_HEADER_BYTES + self.packet.map_or(0, |p| p.size_bytes()),
        }
    }
}
