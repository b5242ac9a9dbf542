//! Frame-level tests of one node's MAC, driven without a World.
//!
//! A [`Station`] is node A's PHY and MAC, wired as `world/radio.rs` wires
//! them: frames arrive at the PHY, the PHY's indications go to the MAC
//! (with the frame that ended, for `RxEnd`), the MAC's timer requests are
//! recorded ([`crate::engine::RecordedTimers`]), its `Transmit` outputs go to the PHY
//! (whose `TxStart` goes back to the MAC) and its `Resume` steps are fed
//! back as inputs, in the order the MAC wrote them. Nothing else happens
//! on its own: each test says, like a trace, when a frame arrives or ends
//! and when a timer fires, and reads what the MAC did ([`Did`]). The
//! station refuses to let time pass an armed timer or the end of a frame
//! the test did not handle, so a trace cannot skip what the world would
//! have done.
//!
//! The expected numbers are written down, not computed: the DSSS timing of
//! the defaults (slot 20 us, SIFS 10 us, DIFS 50 us, EIFS 308 us, RTS 272
//! us, CTS and ACK 248 us, the DATA frame of a 540-byte packet 2464 us at 2
//! Mbps). Backoff draws are read from the MAC after it drew them.

use super::config::MacConfig;
use super::hop_control::CtscMemory;
use super::hop_control::{HopControl, HopControlConfig, SemiTcpHop};
use super::*;
use crate::engine::{RngStreams, StreamPurpose};
use crate::phy::config::RadioConfig;
use crate::phy::error_model::ErrorModel;
use crate::phy::reception::{ReceptionModel, ThresholdReceiver};
use crate::phy::{FrameRef, PhyInput, PhyOutputs, PhyTimer};
use crate::queue::{DropTail, Queued};
use crate::wire::{PacketKind, RoutingHeader, TransportHeader};
use Did::*;
use MacTimer::*;

/// The node under test.
const A: NodeId = NodeId(0);
/// Its next hop.
const B: NodeId = NodeId(1);
/// Other nodes.
const C: NodeId = NodeId(2);
const D: NodeId = NodeId(3);
/// Where the test packets finally go (not a neighbour).
const FAR: NodeId = NodeId(9);

const SLOT: SimDuration = SimDuration(20_000);
const SIFS: SimDuration = SimDuration(10_000);
const DIFS: SimDuration = SimDuration(50_000);
const RTS_AIR: SimDuration = SimDuration(272_000);
const CTS_AIR: SimDuration = SimDuration(248_000);
const ACK_AIR: SimDuration = SimDuration(248_000);
/// DATA frame of a 540-byte packet (+ 28 bytes of MAC header) at 2 Mbps.
const DATA_AIR: SimDuration = SimDuration(2_464_000);
/// CTS / ACK timeout after the end of the RTS / DATA: SIFS + 248 us + 2 x
/// 834 ns of propagation (250 m) + 1 us.
const RESPONSE_TIMEOUT: SimDuration = SimDuration(260_668);
/// Duration field of an RTS for a 540-byte packet: 3 SIFS + CTS + DATA +
/// ACK = 30 + 248 + 2464 + 248 us (10.3.2.5).
const RTS_NAV: SimDuration = SimDuration(2_990_000);
/// Of the CTS answering it: the RTS's - SIFS - CTS = 2990 - 10 - 248 us.
const CTS_NAV: SimDuration = SimDuration(2_732_000);
/// Of a unicast DATA: SIFS + ACK.
const DATA_NAV: SimDuration = SimDuration(258_000);

fn us(micros: u64) -> SimTime {
    SimTime(micros * 1_000)
}

fn ns(nanos: u64) -> SimTime {
    SimTime(nanos)
}

/// A 540-byte UDP packet (512 bytes of payload) from A to `FAR`.
fn packet(uid: u64) -> Packet {
    Packet {
        uid,
        kind: PacketKind::Data,
        flow: 0,
        sequence: uid,
        src: A,
        dst: FAR,
        payload_bytes: 512,
        header_bytes: 28,
        created: SimTime::ZERO,
        ttl: 64,
        transport: TransportHeader::Udp,
        routing: RoutingHeader::None,
    }
}

fn rts(from: NodeId, to: NodeId, duration: SimDuration) -> Frame {
    Frame::new(FrameKind::Rts, from, to, duration, RTS_AIR)
}

fn cts(from: NodeId, to: NodeId, duration: SimDuration) -> Frame {
    Frame { kind: FrameKind::Cts, airtime: CTS_AIR, ..rts(from, to, duration) }
}

fn ack(from: NodeId, to: NodeId) -> Frame {
    Frame { kind: FrameKind::Ack, airtime: ACK_AIR, ..rts(from, to, SimDuration::ZERO) }
}

/// A unicast DATA frame carrying a 540-byte packet at 2 Mbps.
fn data(from: NodeId, to: NodeId, sequence: u16, packet: Packet) -> Frame {
    Frame { kind: FrameKind::Data, airtime: DATA_AIR, sequence, packet: Some(packet), ..rts(from, to, DATA_NAV) }
}

/// What the MAC did, in the order the world would carry it out (a step's
/// timer requests, then its outputs; a `Resume` is followed by what the
/// resumed step did).
#[derive(Debug, Clone, PartialEq)]
enum Did {
    Arm(MacTimer, SimTime),
    Cancel(MacTimer),
    /// A `Transmit` output: the frame of `Mac::frame_on_air`.
    Tx(Frame),
    Up(MacIndication),
    Resumed(Resume),
}

/// Node A's PHY and MAC, driven by hand.
struct Station {
    now: SimTime,
    timing: MacTiming,
    phy: Phy,
    mac: Mac,
    timers: StationTimers,
    /// The MAC timers armed and not yet fired or cancelled.
    armed: [Option<SimTime>; MacTimer::COUNT],
    /// The PHY's timers.
    rx_end_at: Option<SimTime>,
    tx_end_at: Option<SimTime>,
    /// The frames that arrived, by `FrameRef`.
    frames: Vec<Frame>,
    log: Vec<Did>,
    /// Packets delivered up (`Delivered`), with their neighbour.
    delivered: Vec<(NodeId, Packet)>,
    /// Packets carried whole by indications (`RetryLimit`, `Dropped`).
    carried: Vec<Packet>,
}

impl Station {
    /// Plain 802.11 with the default timing.
    fn new() -> Station {
        Station::with(dsss(&RadioConfig::default()), HopControlKind::Off, 1)
    }

    /// With semi-TCP's hop-by-hop control (default rules).
    fn semitcp() -> Station {
        Station::with(dsss(&RadioConfig::default()), HopControlKind::SemiTcp(SemiTcpHop::new(HopControlConfig::default())), 1)
    }

    /// With semi-TCP's hop-by-hop control, some of its rules changed.
    fn semitcp_with(rules: impl FnOnce(&mut HopControlConfig)) -> Station {
        let mut config = HopControlConfig::default();
        rules(&mut config);
        Station::with(dsss(&RadioConfig::default()), HopControlKind::SemiTcp(SemiTcpHop::new(config)), 1)
    }

    fn with(timing: MacTiming, hop: HopControlKind, seed: u64) -> Station {
        let streams = RngStreams::new(seed);
        let phy = Phy::new(A, ReceptionModel::Threshold(ThresholdReceiver::new(10.0)), ErrorModel::None);
        let queue = QueueDiscipline::DropTail(DropTail::new(50, true));
        let backoff = streams.stream(StreamPurpose::Backoff, 0);
        let mac = Mac::new(A, queue, timing.cw_min, hop, backoff, streams.stream(StreamPurpose::Queue, 0));
        Station {
            now: SimTime::ZERO,
            timing,
            phy,
            mac,
            timers: StationTimers::default(),
            armed: [None; MacTimer::COUNT],
            rx_end_at: None,
            tx_end_at: None,
            frames: Vec::new(),
            log: Vec::new(),
            delivered: Vec::new(),
            carried: Vec::new(),
        }
    }

    /// Time moves to `t`: nothing the world would have done before may be
    /// pending.
    #[track_caller]
    fn advance(&mut self, t: SimTime) {
        assert!(t >= self.now, "time goes back: {t:?} < {:?}", self.now);
        for timer in MacTimer::ALL {
            if let Some(at) = self.armed[timer as usize] {
                assert!(at >= t, "{timer:?} armed for {at:?} would have fired before {t:?}");
            }
        }
        for (what, end) in [("reception", self.rx_end_at), ("transmission", self.tx_end_at)] {
            if let Some(end) = end {
                assert!(end >= t, "the {what} ending at {end:?} would have ended before {t:?}");
            }
        }
        self.now = t;
    }

    /// The network layer hands the MAC a packet for `next_hop`.
    #[track_caller]
    fn enqueue(&mut self, t: SimTime, packet: Packet, next_hop: NodeId) {
        self.advance(t);
        self.mac_step(MacInput::Enqueue(Queued { packet, next_hop }), None);
    }

    /// `frame` starts arriving at A (strong enough to be decoded, or only
    /// sensed).
    #[track_caller]
    fn frame_arrives(&mut self, t: SimTime, frame: Frame, decodable: bool) {
        self.advance(t);
        self.frames.push(frame);
        let at = FrameRef(self.frames.len() as u32 - 1);
        let input = PhyInput::Arrival { at, frame: &self.frames[at.0 as usize], power_w: 1e-9, decodable };
        let out = self.phy.handle(t, input);
        self.phy_outputs(out, None);
    }

    /// The frame the PHY is locked onto ends.
    #[track_caller]
    fn rx_end(&mut self, t: SimTime) {
        assert_eq!(self.rx_end_at, Some(t), "the PHY's reception does not end at {t:?}");
        self.advance(t);
        self.rx_end_at = None;
        let at = self.phy.locked().expect("locked onto a frame");
        let out = self.phy.handle(t, PhyInput::RxEnd { frame: &self.frames[at.0 as usize] });
        let received = Some(self.phy.received());
        self.phy_outputs(out, received);
    }

    /// A frame arrives at `t` and is decoded at its end.
    #[track_caller]
    fn receive(&mut self, t: SimTime, frame: Frame) {
        self.frame_arrives(t, frame, true);
        self.rx_end(t + frame.airtime);
    }

    /// The MAC's `timer`, which must be armed for `t`, fires.
    #[track_caller]
    fn fire(&mut self, t: SimTime, timer: MacTimer) {
        assert_eq!(self.armed[timer as usize], Some(t), "{timer:?} is not armed for {t:?}");
        self.advance(t);
        self.armed[timer as usize] = None;
        self.mac_step(MacInput::Timer(timer), None);
    }

    /// An entry of the NAV's end timer pops at `t`, stale or live, before
    /// its event is handled: a later arming that waited for it is queued
    /// if the MAC asks (as `World::nav_end`).
    #[track_caller]
    fn nav_entry_pops(&mut self, t: SimTime) {
        self.advance(t);
        if self.mac.nav_entry_popped(t, self.phy.is_busy()) {
            self.timers.queued.push(NavEnd);
        }
    }

    /// A's own transmission, which must end at `t`, ends.
    #[track_caller]
    fn tx_end(&mut self, t: SimTime) {
        assert_eq!(self.tx_end_at, Some(t), "A's transmission does not end at {t:?}");
        self.advance(t);
        self.tx_end_at = None;
        let out = self.phy.handle(t, PhyInput::TxEnd);
        self.phy_outputs(out, None);
    }

    fn phy_outputs(&mut self, out: PhyOutputs, received: Option<FrameRef>) {
        match out.timer {
            Some((PhyTimer::RxEnd, at)) => self.rx_end_at = Some(at),
            Some((PhyTimer::TxEnd, at)) => self.tx_end_at = Some(at),
            Some((PhyTimer::CcaEnd, _)) => unreachable!("the threshold model has no energy carrier sense"),
            None => {}
        }
        if let Some(indication) = out.indication {
            self.mac_step(MacInput::Phy(indication), received);
        }
    }

    /// One MAC step and everything its outputs cause, as `World::mac_step`.
    fn mac_step(&mut self, input: MacInput, received: Option<FrameRef>) {
        let mut out = MacOutputs::default();
        let mut ctx = MacContext {
            timing: &self.timing,
            phy: &self.phy,
            received: received.map(|at| &self.frames[at.0 as usize]),
            timers: &mut self.timers,
        };
        self.mac.handle(self.now, input, &mut ctx, &mut out);
        for (timer, at) in std::mem::take(&mut self.timers.requests) {
            self.armed[timer as usize] = at;
            self.log.push(match at {
                Some(at) => Arm(timer, at),
                None => Cancel(timer),
            });
        }
        for output in std::mem::take(&mut out.list) {
            match output {
                MacOutput::Transmit => self.transmit(),
                MacOutput::Indication(indication) => {
                    self.log.push(Up(indication));
                    match indication {
                        MacIndication::Delivered { from } => {
                            let frame = &self.frames[received.expect("a delivery comes with its frame").0 as usize];
                            self.delivered.push((from, frame.packet.expect("DATA carries a packet")));
                        }
                        MacIndication::RetryLimit { packet, .. } | MacIndication::Dropped { packet, .. } => {
                            self.carried.push(out.packets[packet.0 as usize]);
                        }
                        _ => {}
                    }
                }
                MacOutput::Resume(step) => {
                    self.log.push(Resumed(step));
                    self.mac_step(MacInput::Resume(step), None);
                }
            }
        }
    }

    /// Put the MAC's frame on the air: the PHY starts transmitting.
    fn transmit(&mut self) {
        let frame = *self.mac.frame_on_air();
        self.log.push(Tx(frame));
        let out = self.phy.handle(self.now, PhyInput::Transmit { airtime: frame.airtime });
        self.phy_outputs(out, None);
    }

    /// What the MAC did since the last check, exactly.
    #[track_caller]
    fn expect(&mut self, expected: &[Did]) {
        let log = std::mem::take(&mut self.log);
        assert_eq!(log, expected, "at {:?}", self.now);
    }

    /// What the MAC did since the last check.
    fn take(&mut self) -> Vec<Did> {
        std::mem::take(&mut self.log)
    }

    fn armed(&self, timer: MacTimer) -> Option<SimTime> {
        self.armed[timer as usize]
    }

    /// The backoff the MAC drew (it must have one).
    #[track_caller]
    fn backoff(&self) -> u64 {
        self.mac.backoff_slots.expect("a backoff pending") as u64
    }

    fn semitcp_state(&self) -> &SemiTcpHop {
        match &self.mac.hop {
            HopControlKind::SemiTcp(h) => h,
            HopControlKind::Off => panic!("no hop control"),
        }
    }
}

/// The station's timer requests ([`crate::engine::RecordedTimers`]).
type StationTimers = crate::engine::RecordedTimers<MacTimer>;

fn dsss(radio: &RadioConfig) -> MacTiming {
    MacTiming::new(&MacConfig::default(), radio, 250.0)
}

/// The default timing with some `[mac]` keys changed.
fn dsss_with(edit: impl FnOnce(&mut MacConfig)) -> MacTiming {
    let mut mac = MacConfig::default();
    edit(&mut mac);
    MacTiming::new(&mac, &RadioConfig::default(), 250.0)
}

fn started(p: &Packet) -> Did {
    Up(MacIndication::ServiceStarted { packet: p.info() })
}

fn heard(from: NodeId) -> Did {
    Up(MacIndication::Heard { from })
}

// ---------------------------------------------------------------------------

mod broadcast_and_semitcp;
mod dcf;
mod ns2_rules;
