//! The TCP header as the simulator needs it (segment-numbered, as ns-2's
//! one-way TCP): the fields that change behaviour, and the sizes.

use super::congestion::LossHint;
use crate::time::SimTime;

/// TCP header without options: 20 bytes.
pub const TCP_HEADER_BYTES: u32 = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentKind {
    /// Carries data segment number `seq`.
    Data,
    /// A pure acknowledgement (no data).
    Ack,
    /// Handshake: SYN and SYN-ACK.
    Syn,
    SynAck,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TcpHeader {
    pub kind: SegmentKind,
    /// Data: the segment number (0, 1, ...).
    pub seq: u64,
    /// Ack: the next segment number expected (cumulative).
    pub ack: u64,
    /// When this copy was sent (a timestamp option; TCP-RA's S_i).
    pub sent_at: SimTime,
    /// Ack: `sent_at` of the data segment that triggered it (timestamp echo).
    pub echo: SimTime,
    /// Data: this copy is a retransmission.
    pub retransmission: bool,
    /// Ack: the receiver's classification of the loss it just saw.
    pub loss_hint: Option<LossHint>,
}
