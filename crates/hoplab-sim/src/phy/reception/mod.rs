//! Reception models: which arriving frames a node locks onto, which it can
//! decode, and what overlapping frames do to each other.
//!
//! A model sees each frame's arrival (its received power, whether that
//! power reaches the decoding threshold, when it ends), the node's own
//! transmissions (half duplex), and releases the frame it was locked onto
//! when that frame ends, saying whether and why it is corrupted.
//!
//! - [`threshold`]: ns-2's receive / carrier-sense / capture thresholds
//!   with pairwise interference (SPEC.md 1.1), `radio.reception =
//!   "threshold"`.
//!
//! **Adding a model** (e.g. SINR): one file here implementing
//! [`Reception`], one variant of [`ReceptionModel`] (and its arm in each
//! method of the `impl Reception for ReceptionModel` below), and its
//! scenario key in `phy::config`.

pub mod threshold;

pub use threshold::ThresholdReceiver;

use super::FrameRef;
use crate::time::SimTime;

/// Why a frame the node locked onto will not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corruption {
    /// Received power below the receive threshold (sensed, not decodable).
    BelowRxThreshold,
    /// It arrived or was still arriving while this node transmitted.
    HalfDuplex,
    /// Another frame overlapped it without being captured.
    Collision,
}

/// The frame a node is locked onto.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lock {
    pub frame: FrameRef,
    pub power_w: f64,
    pub end: SimTime,
    pub corruption: Option<Corruption>,
}

/// What became of a frame that arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// The node was idle and locked onto it; its end is the lock's end.
    Locked,
    /// The locked frame captured the medium: the newcomer is ignored, but
    /// defers the node (ns-2: NAV = EIFS + newcomer duration).
    Captured,
    /// Both are lost; the lock continues until the later end: the
    /// newcomer's if it ends after the locked frame, which it `replaced`.
    Collided { replaced: Option<FrameRef> },
}

/// A node's reception model.
pub trait Reception {
    /// A frame starts arriving: `power_w` received, `decodable` if that
    /// power reaches the decoding threshold, ending at `end`.
    fn arrive(&mut self, frame: FrameRef, power_w: f64, end: SimTime, decodable: bool) -> Arrival;
    /// The node starts transmitting: a frame being received is lost.
    fn start_transmit(&mut self);
    fn end_transmit(&mut self);
    /// The locked frame has ended: release and return it.
    fn release(&mut self) -> Option<Lock>;
    /// Physical carrier sense: busy while transmitting or locked on a frame.
    fn is_busy(&self) -> bool;
    /// The frame the node is locked onto.
    fn locked(&self) -> Option<FrameRef>;
}

/// The reception models (`radio.reception`), dispatched without
/// allocation or dynamic dispatch.
#[derive(Debug, Clone)]
pub enum ReceptionModel {
    Threshold(ThresholdReceiver),
}

impl Reception for ReceptionModel {
    fn arrive(&mut self, frame: FrameRef, power_w: f64, end: SimTime, decodable: bool) -> Arrival {
        match self {
            ReceptionModel::Threshold(r) => r.arrive(frame, power_w, end, decodable),
        }
    }
    fn start_transmit(&mut self) {
        match self {
            ReceptionModel::Threshold(r) => r.start_transmit(),
        }
    }
    fn end_transmit(&mut self) {
        match self {
            ReceptionModel::Threshold(r) => r.end_transmit(),
        }
    }
    fn release(&mut self) -> Option<Lock> {
        match self {
            ReceptionModel::Threshold(r) => r.release(),
        }
    }
    fn is_busy(&self) -> bool {
        match self {
            ReceptionModel::Threshold(r) => r.is_busy(),
        }
    }
    fn locked(&self) -> Option<FrameRef> {
        match self {
            ReceptionModel::Threshold(r) => r.locked(),
        }
    }
}
