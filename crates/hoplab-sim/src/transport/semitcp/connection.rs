//! A semi-TCP connection: the sender at the source, a receiver that
//! acknowledges every segment at the destination, the source's pacing
//! (buffer only, a fixed rate, or Algorithm 1), and the timers it asks for.
//! Sans-IO: the world counts the source's packets waiting below the
//! transport (the reserved buffer is full when R of them wait), delivers
//! segments, MAC samples and timer expiries.
//!
//! Buffer-based sending (docs/semitcp-2018.md): the source hands a segment to
//! its MAC whenever fewer than `reserved_packets` (R) of its own packets
//! wait in the interface queue (the packet in service not counted), so it
//! holds R + 1 and, with the default threshold, is congested and sends
//! RTSCs, as the paper's Fig. 4 shows. A paced source additionally needs a
//! tick of its sending timer (Stimer, eq. 1) per segment; ticks do not
//! accumulate beyond one.
//!
//! Pull-based sending (`[semitcp] source_pull`, as the public ns-2 code;
//! GitHub musicinthedark/semitcp, ns-2.29, `tcp/semitcp.cc:353-419`): the
//! source hands down one segment at its start if its node has room
//! (`send_much`), then one segment per pull only: each time its MAC finds
//! its interface queue (and the routing buffer) empty after a service
//! (`send_down`, called from `AODV::send_down`, `aodv/aodv.cc:1472-1503`,
//! from the queue's `deque`, `queue/queue.cc:71-81`). ACKs and timers
//! never send. The source thus holds one packet (the one in service) and,
//! with the default threshold, is not congested. **Decision**: a pull the
//! source cannot answer at once (a paced source without a tick, or nothing
//! to send) stays until it can (ns-2 always has a new segment for its
//! FTP; with a finite file it would stall).

use super::matcp::MatcpRateControl;
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
    /// `[semitcp.rate_control] algorithm = "matcp"`.
    Matcp(Box<MatcpRateControl>),
}

impl Pacing {
    /// The flow's section of the run report: the source's pacing
    /// (`rate_control`), its rate at the end (`rate_kbps`, None while
    /// sending by buffer) and Algorithm 1's restarts (`rate_restarts`);
    /// `packet_bytes`: the flow's segment payload.
    pub fn section(&self, packet_bytes: u32) -> crate::engine::Section {
        let (rate_kbps, restarts) = match self {
            Pacing::BinarySearch(rc) => (rc.rate_kbps, rc.restarts),
            Pacing::Matcp(rc) => (rc.rate(), rc.restarts),
            Pacing::Fixed { interval } => (Some(packet_bytes as f64 * 8.0 / interval.as_secs_f64() / 1e3), 0),
            Pacing::Buffer => (None, 0),
        };
        crate::engine::Section::from([
            ("rate_control".to_string(), self.name().into()),
            ("rate_kbps".to_string(), rate_kbps.into()),
            ("rate_restarts".to_string(), restarts.into()),
        ])
    }

    /// The section of a flow that is not semi-TCP: the same keys, null or
    /// zero.
    pub fn absent_section() -> crate::engine::Section {
        crate::engine::Section::from([
            ("rate_control".to_string(), serde_json::Value::Null),
            ("rate_kbps".to_string(), serde_json::Value::Null),
            ("rate_restarts".to_string(), 0u32.into()),
        ])
    }
}

impl Pacing {
    /// The sending timer's period, if the source is paced now.
    pub fn interval(&self) -> Option<SimDuration> {
        match self {
            Pacing::Buffer => None,
            Pacing::Fixed { interval } => Some(*interval),
            Pacing::BinarySearch(rc) => rc.interval_s().map(SimDuration::from_secs_f64),
            Pacing::Matcp(rc) => rc.interval_s().map(SimDuration::from_secs_f64),
        }
    }

    /// Whether a change of the rate restarts the sending timer with the new
    /// period (matcp keeps the tick armed and re-arms it with the new
    /// period when it fires, `tcp/matcp.cc:414-473`).
    pub fn restarts_timer_on_change(&self) -> bool {
        !matches!(self, Pacing::Matcp(_))
    }

    pub fn name(&self) -> &'static str {
        match self {
            Pacing::Buffer => "none",
            Pacing::Fixed { .. } => "fixed",
            Pacing::BinarySearch(_) | Pacing::Matcp(_) => "binary_search",
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
    /// `[semitcp] source_pull`: send only when the MAC pulls (see the
    /// module doc); `reserved_packets` is then not used.
    pub source_pull: bool,
    /// A pull not answered yet.
    pulled: bool,
}

impl SemiTcpConnection {
    pub fn new(sender: SemiTcpSender, receiver: Receiver, pacing: Pacing, reserved_packets: usize) -> Self {
        SemiTcpConnection {
            sender,
            receiver,
            pacing,
            reserved_packets,
            credit: true,
            armed_interval: None,
            source_pull: false,
            pulled: false,
        }
    }

    /// Send by pull (`[semitcp] source_pull`) instead of by reserved buffer.
    pub fn with_source_pull(mut self, source_pull: bool) -> Self {
        self.source_pull = source_pull;
        self
    }

    /// The MAC pulled (or, at the start, the node had room): one segment
    /// may go.
    pub fn on_pull(&mut self) {
        self.pulled = true;
    }

    /// Whether a pull waits for a segment.
    pub fn is_pulled(&self) -> bool {
        self.pulled
    }

    /// The next segment to hand down, given `waiting`: the source's own
    /// packets below the transport. None when the reserved buffer is full
    /// (with `source_pull`: when no pull waits), a paced source has no tick
    /// left, or nothing is to be sent.
    pub fn next_segment(&mut self, now: SimTime, waiting: usize) -> Option<TcpHeader> {
        if self.source_pull {
            if !self.pulled {
                return None;
            }
        } else if waiting >= self.reserved_packets {
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
        self.pulled = false;
        Some(header)
    }

    /// The sending timer fired: one more segment may go.
    pub fn on_send_tick(&mut self) {
        self.credit = true;
        self.armed_interval = None; // re-armed for the next tick
    }

    /// A tick of matcp's sending timer; `blocked`: the source node still
    /// holds a data packet, and the tick is lost (no segment for it).
    pub fn on_matcp_tick(&mut self, blocked: bool) {
        if let Pacing::Matcp(rc) = &mut self.pacing {
            self.credit = rc.on_tick(blocked);
            self.armed_interval = None;
            if self.credit && self.source_pull {
                // The tick finds the MAC empty: as a pull.
                self.pulled = true;
            }
        }
    }

    /// The rate control's sample of a packet the source's MAC served
    /// (acknowledged or dropped); true if the rate changed (Algorithm 1:
    /// the sending timer restarts with the new period).
    pub fn on_mac_sample(&mut self, rts_attempts: u32, service_time_s: f64, acknowledged: bool) -> bool {
        match &mut self.pacing {
            Pacing::BinarySearch(rc) => {
                let changed = rc.on_sample(rts_attempts, service_time_s);
                if changed {
                    self.armed_interval = None;
                    self.credit = true;
                }
                changed
            }
            Pacing::Matcp(rc) => {
                let paced = rc.rate().is_some();
                let changed = rc.on_tx_done(rts_attempts, acknowledged, service_time_s);
                if changed && !paced && rc.rate().is_some() {
                    // Paced from now: the first segment waits for the first tick.
                    self.credit = false;
                }
                changed
            }
            Pacing::Buffer | Pacing::Fixed { .. } => false,
        }
    }

    /// What the sending timer should do now, given whether it is armed.
    pub fn send_tick(&mut self, now: SimTime, armed: bool) -> SendTick {
        let rearm = self.pacing.restarts_timer_on_change();
        match self.pacing.interval() {
            Some(period) if !armed || (rearm && self.armed_interval != Some(period)) => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::config::TcpConfig;

    fn connection(pacing: Pacing) -> SemiTcpConnection {
        SemiTcpConnection::new(
            SemiTcpSender::new(&TcpConfig::default(), None),
            Receiver::new(false, 1, SimDuration::from_millis_f64(100.0)),
            pacing,
            1,
        )
    }

    #[test]
    fn by_buffer_the_source_refills_whenever_its_reserved_buffer_has_room() {
        let mut c = connection(Pacing::Buffer);
        // Nothing of its own waits: one goes, and again after each service start.
        assert_eq!(c.next_segment(SimTime::ZERO, 0).map(|h| h.seq), Some(0));
        assert!(c.next_segment(SimTime::ZERO, 1).is_none(), "R = 1 waits");
        assert_eq!(c.next_segment(SimTime::ZERO, 0).map(|h| h.seq), Some(1));
    }

    #[test]
    fn by_pull_the_source_sends_one_segment_per_pull_only() {
        let mut c = connection(Pacing::Buffer).with_source_pull(true);
        // Room in the reserved buffer is not enough (ns-2: ACKs and timers never send).
        assert!(c.next_segment(SimTime::ZERO, 0).is_none());
        c.on_pull();
        assert_eq!(c.next_segment(SimTime::ZERO, 0).map(|h| h.seq), Some(0));
        assert!(c.next_segment(SimTime::ZERO, 0).is_none(), "one segment per pull");
        // A retransmission goes first at the next pull (semitcp.cc:398-418).
        c.sender.on_rto(SimTime::ZERO + SimDuration::from_secs_f64(1.0));
        assert!(c.next_segment(SimTime::ZERO, 0).is_none(), "the timer does not send");
        c.on_pull();
        let again = c.next_segment(SimTime::ZERO, 0).unwrap();
        assert_eq!((again.seq, again.retransmission), (0, true));
    }

    #[test]
    fn a_paced_source_keeps_a_pull_until_its_tick() {
        let mut c = connection(Pacing::Fixed { interval: SimDuration::from_secs_f64(0.1) }).with_source_pull(true);
        c.on_pull();
        assert!(c.next_segment(SimTime::ZERO, 0).is_some(), "first tick credit");
        c.on_pull();
        assert!(c.next_segment(SimTime::ZERO, 0).is_none(), "no tick yet");
        assert!(c.is_pulled(), "the pull waits");
        c.on_send_tick();
        assert!(c.next_segment(SimTime::ZERO, 0).is_some());
        assert!(!c.is_pulled());
    }
}
