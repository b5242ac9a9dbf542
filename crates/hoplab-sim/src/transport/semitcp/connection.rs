//! A semi-TCP connection: the sender at the source, a receiver that
//! acknowledges every segment at the destination, the source's pacing
//! (buffer only, a fixed rate, or Algorithm 1), and the timers it asks for.
//! Sans-IO: the world counts the source's packets waiting below the
//! transport (the reserved buffer is full when R of them wait), delivers
//! segments, MAC samples and timer expiries.
//!
//! Buffer-based sending (SPEC.md section 2): the source hands a segment to
//! its MAC whenever fewer than `reserved_packets` (R) of its own packets
//! wait in the interface queue (the packet in service not counted), so it
//! holds R + 1 and, with the default threshold, is congested and sends
//! RTSCs, as the paper's Fig. 4 shows. A paced source additionally needs a
//! tick of its sending timer (Stimer, eq. 1) per segment; ticks do not
//! accumulate beyond one.

use super::rate_control::BinarySearchRateControl;
use super::sender::SemiTcpSender;
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::receiver::Receiver;
use crate::wire::tcp::TcpHeader;

/// How the source paces itself.
pub enum Pacing {
    /// The original semi-TCP: by buffer only.
    Buffer,
    Fixed {
        interval: SimDuration,
    },
    BinarySearch(Box<BinarySearchRateControl>),
}

impl Pacing {
    /// The sending timer's period, if the source is paced now.
    pub fn interval(&self) -> Option<SimDuration> {
        match self {
            Pacing::Buffer => None,
            Pacing::Fixed { interval } => Some(*interval),
            Pacing::BinarySearch(rc) => rc.interval_s().map(SimDuration::from_secs_f64),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Pacing::Buffer => "none",
            Pacing::Fixed { .. } => "fixed",
            Pacing::BinarySearch(_) => "binary_search",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SemiTcpTimer {
    Retransmission = 0,
    /// The source's sending timer (Stimer).
    Send = 1,
}

impl SemiTcpTimer {
    pub const ALL: [SemiTcpTimer; 2] = [SemiTcpTimer::Retransmission, SemiTcpTimer::Send];
}

/// What the sending timer should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendTick {
    Keep,
    /// (Re-)arm it for this instant.
    Arm(SimTime),
    Cancel,
}

pub struct SemiTcpConnection {
    pub sender: SemiTcpSender,
    pub receiver: Receiver,
    pub pacing: Pacing,
    pub reserved_packets: usize,
    /// A tick of the sending timer not yet used.
    credit: bool,
    /// The interval the sending timer was armed with.
    armed_interval: Option<SimDuration>,
}

impl SemiTcpConnection {
    pub fn new(sender: SemiTcpSender, receiver: Receiver, pacing: Pacing, reserved_packets: usize) -> Self {
        SemiTcpConnection { sender, receiver, pacing, reserved_packets, credit: true, armed_interval: None }
    }

    /// The next segment to hand down, given `waiting`: the source's own
    /// packets below the transport. None when the reserved buffer is full,
    /// a paced source has no tick left, or nothing is to be sent.
    pub fn next_segment(&mut self, now: SimTime, waiting: usize) -> Option<TcpHeader> {
        if waiting >= self.reserved_packets {
            return None;
        }
        let paced = self.pacing.interval().is_some();
        if paced && !self.credit {
            return None;
        }
        let header = self.sender.next_segment(now)?;
        if paced {
            self.credit = false;
        }
        Some(header)
    }

    /// The sending timer fired: one more segment may go.
    pub fn on_send_tick(&mut self) {
        self.credit = true;
        self.armed_interval = None; // re-armed for the next tick
    }

    /// Algorithm 1's sample of a packet the source's MAC served; true if
    /// the rate changed (the sending timer restarts with the new period).
    pub fn on_mac_sample(&mut self, rts_attempts: u32, service_time_s: f64) -> bool {
        let Pacing::BinarySearch(rc) = &mut self.pacing else { return false };
        let changed = rc.on_sample(rts_attempts, service_time_s);
        if changed {
            self.armed_interval = None;
            self.credit = true;
        }
        changed
    }

    /// What the sending timer should do now, given whether it is armed.
    pub fn send_tick(&mut self, now: SimTime, armed: bool) -> SendTick {
        match self.pacing.interval() {
            Some(period) if !armed || self.armed_interval != Some(period) => {
                self.armed_interval = Some(period);
                SendTick::Arm(now + period)
            }
            None if armed => {
                self.armed_interval = None;
                SendTick::Cancel
            }
            _ => SendTick::Keep,
        }
    }
}
