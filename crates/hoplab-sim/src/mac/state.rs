//! Per-node MAC state.

use crate::wire::ieee80211::Frame;
use super::queue::{InterfaceQueue, Queued};
use crate::net::NodeId;
use crate::time::SimTime;
use std::collections::BTreeMap;

/// Where the node is in a frame exchange it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// Not in an exchange: may contend for the medium.
    Idle,
    /// Sending (or sent) an RTS, waiting for the CTS.
    WaitCts,
    /// Sending (or sent) a unicast DATA, waiting for the ACK.
    WaitAck,
    /// Sending a broadcast DATA (no response expected).
    Broadcast,
}

/// How the last failed attempt of the packet in service was lost (ground
/// truth for the drop cause; the sender itself only sees a timeout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptLoss {
    /// No response: collision, hidden terminal, busy or refusing receiver.
    NoResponse,
    /// The DATA frame was destroyed by the frame error model.
    ChannelError,
}

/// The packet at the head of the MAC, being served.
#[derive(Debug, Clone, Copy)]
pub struct TxOp {
    pub item: Queued,
    /// RTS/CTS precedes the DATA (unicast and longer than the RTS threshold).
    pub uses_rts: bool,
    /// Short retry count (SRC, 10.3.4.4): failed RTS, or DATA sent without RTS.
    pub short_retries: u32,
    /// Long retry count (LRC): failed DATA sent after a CTS.
    pub long_retries: u32,
    /// RTS transmissions so far (APR).
    pub rts_attempts: u32,
    /// DATA transmissions so far.
    pub data_attempts: u32,
    /// When the packet reached the head of the queue (MST starts here).
    pub head_since: SimTime,
    pub sequence: u16,
    pub last_loss: AttemptLoss,
    /// When the latest RTS (or DATA without RTS) attempt went out.
    pub last_attempt_at: SimTime,
}

#[derive(Debug, Clone)]
pub struct Mac {
    pub queue: InterfaceQueue,
    pub op: Option<TxOp>,
    /// Current contention window (CW), from cw_min doubling to cw_max.
    pub cw: u32,
    /// Backoff slots still to count down; None when no backoff is pending.
    pub backoff_slots: Option<u32>,
    pub exchange: Exchange,
    /// Virtual carrier sense: the medium is reserved until this time.
    pub nav_until: SimTime,
    /// The medium as channel access last saw it (physical or virtual busy).
    pub medium_busy: bool,
    /// The first backoff slot boundary of the current idle period.
    pub countdown_from: SimTime,
    /// After a frame received in error, access waits at least until here
    /// (its end + EIFS); cleared by a correctly received frame (10.3.2.3.7).
    pub eifs_until: SimTime,
    pub next_sequence: u16,
    /// A CTS, DATA or ACK to send SIFS after the frame that asked for it.
    pub pending_response: Option<Frame>,
    /// The kind of the frame this node is transmitting right now.
    pub transmitting_kind: Option<crate::wire::ieee80211::FrameKind>,
    /// Duplicate detection: last sequence number received per transmitter.
    pub last_received_sequence: BTreeMap<NodeId, u16>,
}

impl Mac {
    pub fn new(queue_packets: usize, cw_min: u32) -> Mac {
        Mac {
            queue: InterfaceQueue::new(queue_packets),
            op: None,
            cw: cw_min,
            backoff_slots: None,
            exchange: Exchange::Idle,
            nav_until: SimTime::ZERO,
            medium_busy: false,
            countdown_from: SimTime::ZERO,
            eifs_until: SimTime::ZERO,
            next_sequence: 0,
            pending_response: None,
            transmitting_kind: None,
            last_received_sequence: BTreeMap::new(),
        }
    }
}
