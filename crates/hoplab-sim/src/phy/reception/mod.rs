//! Reception models: which arriving frames a node locks onto, which it can
//! decode, and what overlapping frames do to each other.
//!
//! A model sees each frame's arrival (its received power, whether that
//! power reaches the decoding threshold, when it ends), the node's own
//! transmissions (half duplex), and releases the frame it was locked onto
//! when that frame ends, saying whether and why it is corrupted.
//!
//! - [`threshold`]: ns-2's receive / carrier-sense / capture thresholds
//!   with pairwise interference (docs/network-model.md), `radio.reception =
//!   "threshold"`.
//! - [`sinr`]: ns-3's YANS receiver: cumulative interference plus noise,
//!   preamble detection, the DSSS error-rate curves ([`dsss`]) drawn over
//!   each interference chunk, optional frame capture, energy carrier
//!   sense; `radio.reception = "sinr"` (docs/sinr.md).
//!
//! **Adding a model**: one file (or folder) here implementing
//! [`Reception`], one variant of [`ReceptionModel`] (and its arm in each
//! method of the `impl Reception for ReceptionModel` below), its scenario
//! key in `phy::config`, and its construction in `world/build.rs`.

pub mod dsss;
pub mod sinr;
pub mod threshold;

pub use sinr::SinrReceiver;
pub use threshold::ThresholdReceiver;

use super::{FrameRef, PhyOutputs};
use crate::time::SimTime;
use crate::wire::ieee80211::Frame;

/// Why a frame the node locked onto will not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corruption {
    /// Received power below the receive threshold (sensed, not decodable).
    BelowRxThreshold,
    /// It arrived or was still arriving while this node transmitted.
    HalfDuplex,
    /// Another frame overlapped it without being captured.
    Collision,
    /// SINR model: the draw over its payload's interference chunks failed.
    Interference,
}

/// The frame a node is locked onto.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lock {
    pub frame: FrameRef,
    pub power_w: f64,
    pub end: SimTime,
    pub corruption: Option<Corruption>,
}

/// What became of a frame that arrived (the threshold model).
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

/// A frame starting to arrive at a node.
#[derive(Debug, Clone, Copy)]
pub struct Incoming<'a> {
    pub at: FrameRef,
    pub frame: &'a Frame,
    pub power_w: f64,
    /// The power reaches the radio's receive threshold.
    pub decodable: bool,
}

/// What the `RxEnd` timer (the followed frame's next step) led to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RxStep {
    /// The frame goes on, or was given up silently (the SINR model's
    /// preamble detection and PLCP header).
    Continue(PhyOutputs),
    /// The frame ended: decoded, or lost (`corruption`); the PHY then
    /// applies its frame error model and indicates `RxEnd`.
    Ended { frame: FrameRef, corruption: Option<Corruption>, outputs: PhyOutputs },
}

/// A node's reception model, driven by its PHY: frames arriving, the
/// steps of the frame it follows (its `RxEnd` timer), its own
/// transmissions, the end of energy carrier sense (its `CcaEnd` timer).
pub trait Reception {
    /// A frame starts arriving: lock, ignore, capture, ...
    fn arrive(&mut self, now: SimTime, incoming: Incoming<'_>) -> PhyOutputs;
    /// The `RxEnd` timer: the followed frame's next step, or its end.
    fn step(&mut self, now: SimTime) -> RxStep;
    /// The node starts transmitting; a frame it lets go of, if any.
    fn start_transmit(&mut self, now: SimTime) -> Option<FrameRef>;
    fn end_transmit(&mut self, now: SimTime) -> PhyOutputs;
    /// The `CcaEnd` timer (energy carrier sense).
    fn cca_end(&mut self, now: SimTime) -> PhyOutputs;
    /// Physical carrier sense.
    fn is_busy(&self) -> bool;
    /// The frame the node follows, if any.
    fn locked(&self) -> Option<FrameRef>;
}

/// The reception models (`radio.reception`), dispatched without
/// dynamic dispatch (the SINR receiver boxed, so that a node of the
/// threshold model stays as small as before).
#[derive(Debug, Clone)]
pub enum ReceptionModel {
    Threshold(ThresholdReceiver),
    Sinr(Box<SinrReceiver>),
}

macro_rules! each {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            ReceptionModel::Threshold($r) => $e,
            ReceptionModel::Sinr($r) => $e,
        }
    };
}

/// Builds every node's receiver of one radio, as `radio.reception` says
/// (what depends on the radio alone is resolved once).
#[derive(Debug, Clone, Copy)]
pub enum ReceptionBuilder {
    Threshold { capture_ratio: f64 },
    Sinr(sinr::SinrParams),
}

impl ReceptionBuilder {
    pub fn new(config: &super::config::RadioConfig, radio: &super::RadioModel) -> ReceptionBuilder {
        match config.reception {
            super::config::Reception::Threshold => ReceptionBuilder::Threshold { capture_ratio: radio.capture_ratio },
            super::config::Reception::Sinr => ReceptionBuilder::Sinr(sinr::SinrParams::from_config(config)),
        }
    }

    /// One node's receiver; `rng`: its reception stream.
    pub fn build(&self, rng: crate::engine::Stream) -> ReceptionModel {
        match *self {
            ReceptionBuilder::Threshold { capture_ratio } => ReceptionModel::Threshold(ThresholdReceiver::new(capture_ratio)),
            ReceptionBuilder::Sinr(params) => ReceptionModel::Sinr(Box::new(SinrReceiver::new(params, rng))),
        }
    }
}

impl Reception for ReceptionModel {
    #[inline]
    fn arrive(&mut self, now: SimTime, incoming: Incoming<'_>) -> PhyOutputs {
        each!(self, r => r.arrive(now, incoming))
    }
    #[inline]
    fn step(&mut self, now: SimTime) -> RxStep {
        each!(self, r => r.step(now))
    }
    #[inline]
    fn start_transmit(&mut self, now: SimTime) -> Option<FrameRef> {
        each!(self, r => r.start_transmit(now))
    }
    #[inline]
    fn end_transmit(&mut self, now: SimTime) -> PhyOutputs {
        each!(self, r => r.end_transmit(now))
    }
    fn cca_end(&mut self, now: SimTime) -> PhyOutputs {
        each!(self, r => r.cca_end(now))
    }
    #[inline]
    fn is_busy(&self) -> bool {
        each!(self, r => r.is_busy())
    }
    #[inline]
    fn locked(&self) -> Option<FrameRef> {
        each!(self, r => r.locked())
    }
}
