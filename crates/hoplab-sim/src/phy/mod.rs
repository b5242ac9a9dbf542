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

pub mod channel;
pub mod config;
pub mod error_model;
pub mod propagation;
pub mod reception;

pub use channel::{Channel, Neighbour};
pub use propagation::RadioModel;

use crate::time::{SimDuration, SimTime};
use crate::wire::ieee80211::Frame;
use crate::wire::NodeId;
use error_model::ErrorModel;
use reception::{Arrival, Corruption, Reception, ReceptionModel};

/// The PHY's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum PhyTimer {
    /// The frame the PHY is locked onto ends.
    RxEnd = 0,
    /// The node's own transmission ends.
    TxEnd = 1,
}

impl PhyTimer {
    pub const COUNT: usize = 2;
    pub const ALL: [PhyTimer; 2] = [PhyTimer::RxEnd, PhyTimer::TxEnd];
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PhyInput<'a> {
    /// A frame starts arriving (from the channel).
    Arrival { frame: &'a Frame, power_w: f64, decodable: bool },
    /// The MAC starts transmitting a frame of this airtime.
    Transmit { airtime: SimDuration },
    Timer(PhyTimer),
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
    /// The frame the PHY was locked onto ended: decoded, or lost; the
    /// frame is [`Phy::received`] until the next one ends.
    RxEnd { error: Option<RxError> },
    /// The node's transmission started.
    TxStart,
    /// The node's transmission ended.
    TxEnd,
}

/// What one PHY step asks for: at most one timer and one indication; the
/// timer is armed first.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PhyOutputs {
    pub timer: Option<(PhyTimer, SimTime)>,
    pub indication: Option<PhyIndication>,
}

/// One node's PHY.
#[derive(Debug, Clone)]
pub struct Phy {
    pub node: NodeId,
    pub reception: ReceptionModel,
    pub errors: ErrorModel,
    transmitting: bool,
    /// The frame whose reception ended last.
    received: Option<reception::Lock>,
}

impl Phy {
    pub fn new(node: NodeId, reception: ReceptionModel, errors: ErrorModel) -> Phy {
        Phy { node, reception, errors, transmitting: false, received: None }
    }

    /// The frame of the last `RxEnd` indication.
    pub fn received(&self) -> &Frame {
        &self.received.as_ref().expect("a frame ended").frame
    }

    /// Physical carrier sense: transmitting or locked onto a frame.
    pub fn is_busy(&self) -> bool {
        self.reception.is_busy()
    }

    pub fn is_transmitting(&self) -> bool {
        self.transmitting
    }

    #[inline]
    pub fn handle(&mut self, now: SimTime, input: PhyInput<'_>) -> PhyOutputs {
        match input {
            PhyInput::Arrival { frame, power_w, decodable } => {
                let end = now + frame.airtime;
                match self.reception.arrive(*frame, power_w, end, decodable) {
                    Arrival::Locked => {
                        PhyOutputs { timer: Some((PhyTimer::RxEnd, end)), indication: Some(PhyIndication::RxStart) }
                    }
                    Arrival::Collided { extended: true } => PhyOutputs { timer: Some((PhyTimer::RxEnd, end)), indication: None },
                    Arrival::Collided { extended: false } => PhyOutputs::default(),
                    Arrival::Captured => {
                        PhyOutputs { timer: None, indication: Some(PhyIndication::Captured { airtime: frame.airtime }) }
                    }
                }
            }
            PhyInput::Transmit { airtime } => {
                self.transmitting = true;
                self.reception.start_transmit();
                PhyOutputs { timer: Some((PhyTimer::TxEnd, now + airtime)), indication: Some(PhyIndication::TxStart) }
            }
            PhyInput::Timer(PhyTimer::RxEnd) => {
                self.received = self.reception.release();
                let lock = self.received.as_ref().expect("RxEnd without a lock");
                let error = match lock.corruption {
                    Some(c) => Some(RxError::Reception(c)),
                    None if self.errors.corrupts(self.node, &lock.frame) => Some(RxError::ChannelError),
                    None => None,
                };
                PhyOutputs { timer: None, indication: Some(PhyIndication::RxEnd { error }) }
            }
            PhyInput::Timer(PhyTimer::TxEnd) => {
                self.transmitting = false;
                self.reception.end_transmit();
                PhyOutputs { timer: None, indication: Some(PhyIndication::TxEnd) }
            }
        }
    }
}
