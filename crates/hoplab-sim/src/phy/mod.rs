//! The physical layer: propagation, the shared channel, and each node's PHY.
//!
//! Owns: received power and propagation delay per (transmitter, receiver)
//! pair ([`channel`], [`propagation`]); per node ([`Phy`]): which frames it
//! locks onto and decodes (the [`reception`] model: capture, collision,
//! half duplex), frame errors ([`error_model`]), and physical carrier sense.
//! Does not own: channel access (the MAC) or what a frame means; it knows
//! frames only as [`wire`](crate::wire) types.
//!
//! A PHY is a sans-IO state machine: [`Phy::handle`] takes an input (a
//! frame arriving, the node starting to transmit, one of its timers) and
//! writes its outputs ([`PhyOutputs`]): at most one timer to arm and one
//! indication for the MAC ([`PhyIndication`], as ns-3's PHY notifies its
//! channel access manager).

pub mod air;
pub mod channel;
pub mod config;
pub mod error_model;
pub mod neighbours;
pub mod propagation;
pub mod reception;

pub use channel::{Channel, Neighbour};
pub use propagation::RadioModel;

use crate::time::{SimDuration, SimTime};
use crate::wire::ieee80211::Frame;
use crate::wire::NodeId;
pub use air::FrameRef;
use error_model::ErrorModel;
use reception::{Corruption, Incoming, Reception, ReceptionModel, RxStep};

/// The PHY's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum PhyTimer {
    /// The frame the PHY is locked onto ends.
    RxEnd = 0,
    /// The node's own transmission ends.
    TxEnd = 1,
    /// Energy carrier sense may end (the SINR model).
    CcaEnd = 2,
}

impl PhyTimer {
    pub const COUNT: usize = 3;
    pub const ALL: [PhyTimer; 3] = [PhyTimer::RxEnd, PhyTimer::TxEnd, PhyTimer::CcaEnd];
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PhyInput<'a> {
    /// Frame `at` (`frame`) starts arriving (from the channel).
    Arrival { at: FrameRef, frame: &'a Frame, power_w: f64, decodable: bool },
    /// The MAC starts transmitting a frame of this airtime.
    Transmit { airtime: SimDuration },
    /// The RxEnd timer: the frame the PHY is locked onto ([`Phy::locked`],
    /// `frame`) ends, or (the SINR model) reaches its next step.
    RxEnd { frame: &'a Frame },
    /// The TxEnd timer.
    TxEnd,
    /// The CcaEnd timer.
    CcaEnd,
}

/// Why a frame that ended was not received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxError {
    /// Lost in reception (below threshold, half duplex, collision).
    Reception(Corruption),
    /// Decodable, but destroyed by the frame error model.
    ChannelError,
}

/// What the PHY tells the MAC. Each changes physical carrier sense (but
/// `Captured`), which the MAC re-reads ([`Phy::is_busy`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PhyIndication {
    /// The PHY locked onto a frame: the medium is busy.
    RxStart,
    /// A frame arrived while a stronger one was being received and was
    /// ignored (capture); it still defers the node (ns-2
    /// `Mac802_11::capture`: NAV = EIFS + its airtime).
    Captured { airtime: SimDuration },
    /// The frame the PHY was locked onto ([`Phy::received`]) ended:
    /// decoded, or lost.
    RxEnd { error: Option<RxError> },
    /// The node's transmission started.
    TxStart,
    /// The node's transmission ended.
    TxEnd,
    /// Energy carrier sense changed (the SINR model: a frame the node did
    /// not follow, a failed PLCP header, the energy fell below the
    /// threshold): the MAC re-reads [`Phy::is_busy`].
    Cca,
}

/// What one PHY step asks for: at most one timer, the CcaEnd timer, and
/// one indication (the timers are armed first), and a frame on the air it
/// no longer refers to (an ignored newcomer, or the frame a collision's
/// later end replaced).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PhyOutputs {
    pub timer: Option<(PhyTimer, SimTime)>,
    pub indication: Option<PhyIndication>,
    pub let_go: Option<FrameRef>,
    /// Arm the CcaEnd timer here (the SINR model's energy carrier sense).
    pub cca_end: Option<SimTime>,
    /// The arriving frame (`let_go`) was lost to the frame error model
    /// before the MAC saw it (`errors.scope = "every_frame"`, ns-2's
    /// `-IncomingErrProc`): no lock, no indication; the world keeps it as
    /// ground truth.
    pub lost_on_arrival: bool,
}

/// One node's PHY.
#[derive(Debug, Clone)]
pub struct Phy {
    pub node: NodeId,
    pub reception: ReceptionModel,
    pub errors: ErrorModel,
    transmitting: bool,
    /// The frame whose reception ended last.
    received: Option<FrameRef>,
}

impl Phy {
    pub fn new(node: NodeId, reception: ReceptionModel, errors: ErrorModel) -> Phy {
        Phy { node, reception, errors, transmitting: false, received: None }
    }

    /// The frame of the last `RxEnd` indication.
    pub fn received(&self) -> FrameRef {
        self.received.expect("a frame ended")
    }

    /// The frame the PHY is locked onto, if any.
    pub fn locked(&self) -> Option<FrameRef> {
        self.reception.locked()
    }

    /// Physical carrier sense: transmitting or locked onto a frame.
    pub fn is_busy(&self) -> bool {
        self.reception.is_busy()
    }

    /// The reception model's channel hook: a weak signal from `start` to
    /// `end` at `power_w`, handed over when it is sent (`now`). False: it
    /// was kept as interference only and needs no arrival event; true:
    /// deliver it as a frame (see `Reception::take_weak_signal`).
    /// Inlined into the channel's loop over a frame's receivers
    /// (`World::transmit`), with the SINR receiver's own step: a call per
    /// weak link costs 2 % more instructions on the 14-hop ns-3 chain.
    #[inline(always)]
    pub fn take_weak_signal(&mut self, now: SimTime, start: SimTime, end: SimTime, power_w: f64) -> bool {
        self.reception.take_weak_signal(now, start, end, power_w)
    }

    pub fn is_transmitting(&self) -> bool {
        self.transmitting
    }

    /// One PHY step. The threshold model's path (ns-2's, the default) is
    /// written out with the receiver's type known (inlined into the event
    /// loop, as before any other model existed); every other model's is a
    /// call of its own.
    #[inline(always)]
    pub fn handle(&mut self, now: SimTime, input: PhyInput<'_>) -> PhyOutputs {
        match &mut self.reception {
            ReceptionModel::Threshold(r) => {
                let (node, errors) = (self.node, &mut self.errors);
                Self::step_with(r, &mut self.transmitting, &mut self.received, node, errors, now, input)
            }
            // Each caller passes one kind of input (an arrival, a step, a
            // timer), so that where this is inlined the match below picks
            // its call: no jump on the input's kind at run time (mispredicted
            // about every other time in one function for all of them).
            #[allow(unreachable_patterns)]
            _ => match input {
                PhyInput::Arrival { at, frame, power_w, decodable } => self.arrive_other(now, at, frame, power_w, decodable),
                PhyInput::RxEnd { frame } => self.step_other(now, frame),
                _ => self.handle_other(now, input),
            },
        }
    }

    /// [`Phy::handle`]'s arrival for any model but the threshold one.
    #[inline(never)]
    fn arrive_other(&mut self, now: SimTime, at: FrameRef, frame: &Frame, power_w: f64, decodable: bool) -> PhyOutputs {
        self.handle_other_inlined(now, PhyInput::Arrival { at, frame, power_w, decodable })
    }

    /// [`Phy::handle`]'s RxEnd timer for any model but the threshold one.
    #[inline(never)]
    fn step_other(&mut self, now: SimTime, frame: &Frame) -> PhyOutputs {
        self.handle_other_inlined(now, PhyInput::RxEnd { frame })
    }

    #[inline(never)]
    fn handle_other(&mut self, now: SimTime, input: PhyInput<'_>) -> PhyOutputs {
        self.handle_other_inlined(now, input)
    }

    #[inline(always)]
    fn handle_other_inlined(&mut self, now: SimTime, input: PhyInput<'_>) -> PhyOutputs {
        let (node, errors) = (self.node, &mut self.errors);
        let (transmitting, received, model) = (&mut self.transmitting, &mut self.received, &mut self.reception);
        reception::each_model!(model, r => Self::step_with(r, transmitting, received, node, errors, now, input))
    }

    #[inline(always)]
    fn step_with<R: Reception>(
        reception: &mut R,
        transmitting: &mut bool,
        received: &mut Option<FrameRef>,
        node: NodeId,
        errors: &mut ErrorModel,
        now: SimTime,
        input: PhyInput<'_>,
    ) -> PhyOutputs {
        match input {
            PhyInput::Arrival { at, frame, power_w, decodable } => {
                // ns-2: WirelessPhy::sendUp -> the incoming error model ->
                // Mac802_11::recv; a corrupted frame goes to the drop target
                // (queue/errmodel.cc:192-205). Only with scope every_frame.
                if errors.loses_on_arrival(node) {
                    return PhyOutputs { let_go: Some(at), lost_on_arrival: true, ..PhyOutputs::default() };
                }
                reception.arrive(now, Incoming { at, frame, power_w, decodable })
            }
            PhyInput::Transmit { airtime } => {
                *transmitting = true;
                let let_go = reception.start_transmit(now);
                PhyOutputs {
                    timer: Some((PhyTimer::TxEnd, now + airtime)),
                    indication: Some(PhyIndication::TxStart),
                    let_go,
                    ..PhyOutputs::default()
                }
            }
            PhyInput::RxEnd { frame } => match reception.step(now) {
                RxStep::Continue(out) => out,
                RxStep::Ended { frame: at, corruption, outputs } => {
                    *received = Some(at);
                    let error = match corruption {
                        Some(c) => Some(RxError::Reception(c)),
                        None if errors.corrupts(node, frame) => Some(RxError::ChannelError),
                        None => None,
                    };
                    PhyOutputs { indication: Some(PhyIndication::RxEnd { error }), ..outputs }
                }
            },
            PhyInput::TxEnd => {
                *transmitting = false;
                let out = reception.end_transmit(now);
                PhyOutputs { indication: Some(PhyIndication::TxEnd), ..out }
            }
            PhyInput::CcaEnd => reception.cca_end(now),
        }
    }
}
