//! A TCP connection as the simulator runs it: the sender at the flow's
//! source and the receiver at its destination (ns-2's one-way agents),
//! with the timers each asks for. Sans-IO like its halves: the world
//! delivers segments and timer expiries, asks for segments to send, and
//! keeps the timers at the deadlines the connection reports.

use super::receiver::Receiver;
use super::sender::Sender;
use crate::time::SimTime;

/// The timers of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TcpTimer {
    /// The sender's retransmission timer.
    Retransmission = 0,
    /// The receiver's delayed-ACK timer.
    DelayedAck = 1,
}

impl TcpTimer {
    pub const ALL: [TcpTimer; 2] = [TcpTimer::Retransmission, TcpTimer::DelayedAck];
}

pub struct TcpConnection {
    pub sender: Sender,
    pub receiver: Receiver,
}

impl TcpConnection {
    pub fn new(sender: Sender, receiver: Receiver) -> TcpConnection {
        TcpConnection { sender, receiver }
    }

    /// When each timer (in [`TcpTimer::ALL`] order) should fire, if it
    /// should run.
    pub fn deadlines(&self) -> [Option<SimTime>; 2] {
        [self.sender.rto_deadline(), self.receiver.delack_deadline()]
    }

    /// (fast retransmits + timeouts, cwnd): compared before and after an
    /// event to see whether the sender reacted to a loss.
    pub fn loss_marker(&self) -> (u64, f64) {
        (self.sender.counters.fast_retransmits + self.sender.counters.timeouts, self.sender.state.cwnd)
    }
}
