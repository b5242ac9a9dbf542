//! The TCP header as the simulator needs it (segment-numbered, as ns-2's
//! one-way TCP): the fields that change behaviour, and the sizes.

use crate::time::SimTime;

/// A receiver's classification of a loss, carried back in an ACK option
/// (receiver-aided schemes such as TCP-RA, docs/tcp-ra.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossHint {
    Congestion,
    Wireless,
    Dubious,
}

/// The loss-hint option's bytes on the wire: kind, length, the verdict and
/// one NOP of padding (seed 001 gives no format; 4 bytes is the smallest
/// option that keeps the header a multiple of 4).
pub const LOSS_HINT_OPTION_BYTES: u32 = 4;

/// TCP header without options: 20 bytes.
pub const TCP_HEADER_BYTES: u32 = 20;

/// SACK blocks an ACK carries at most (RFC 2018 section 3: three when the
/// timestamp option is also present, as Linux and ns-2's Sack1 sink send).
pub const MAX_SACK_BLOCKS: usize = 3;

/// The SACK option of an ACK (RFC 2018): blocks of segments received above
/// the cumulative ACK, each `[start, end)` in segment numbers, the first
/// holding the segment that triggered the ACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SackBlocks {
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    /// Append a block; ignored once `MAX_SACK_BLOCKS` are present.
    pub fn push(&mut self, start: u64, end: u64) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = (start, end);
            self.len += 1;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.len as usize].iter().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes on the wire: kind, length and 8 per block (RFC 2018 section
    /// 3), padded with two NOPs to a multiple of 4.
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            4 + 8 * self.len as u32
        }
    }
}

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
    /// Ack: selective acknowledgements (empty unless the flow uses SACK).
    pub sack: SackBlocks,
}

impl TcpHeader {
    /// Bytes of the options this header carries (SACK, the loss hint).
    pub fn option_bytes(&self) -> u32 {
        self.sack.option_bytes() + if self.loss_hint.is_some() { LOSS_HINT_OPTION_BYTES } else { 0 }
    }

    /// A sender's segment (data, or a SYN): no ACK fields.
    pub fn outgoing(kind: SegmentKind, seq: u64, now: SimTime, retransmission: bool) -> TcpHeader {
        TcpHeader { kind, seq, ack: 0, sent_at: now, echo: SimTime::ZERO, retransmission, loss_hint: None, sack: SackBlocks::default() }
    }
}
