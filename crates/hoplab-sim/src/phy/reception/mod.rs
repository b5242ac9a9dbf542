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
//! [`Reception`] and [`FromRadioConfig`] (what it resolves once from
//! `[radio]`, one node's receiver, and the channel hook it declares:
//! [`FromRadioConfig::weak_signal_below_w`]), one line in
//! `reception_models!` below, and its `radio.reception` name and keys in
//! `phy::config`.

pub mod dsss;
pub mod sinr;
pub mod threshold;

pub use sinr::SinrReceiver;
pub use threshold::ThresholdReceiver;

use super::config::{RadioConfig, Reception as ReceptionName};
use super::{FrameRef, PhyOutputs, RadioModel};
use crate::engine::Stream;
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
    /// The channel hook: a signal from `start` to `end` at `power_w`, below
    /// the model's [`FromRadioConfig::weak_signal_below_w`], handed over
    /// when it is sent (`now`), before it arrives. False: the model kept
    /// it (as interference only) and it needs no arrival event; true:
    /// deliver it as a frame (every signal, by default).
    fn take_weak_signal(&mut self, _now: SimTime, _start: SimTime, _end: SimTime, _power_w: f64) -> bool {
        true
    }
}

/// A boxed model (one too large to sit in every node's enum inline).
impl<T: Reception> Reception for Box<T> {
    #[inline]
    fn arrive(&mut self, now: SimTime, incoming: Incoming<'_>) -> PhyOutputs {
        (**self).arrive(now, incoming)
    }
    #[inline]
    fn step(&mut self, now: SimTime) -> RxStep {
        (**self).step(now)
    }
    #[inline]
    fn start_transmit(&mut self, now: SimTime) -> Option<FrameRef> {
        (**self).start_transmit(now)
    }
    #[inline]
    fn end_transmit(&mut self, now: SimTime) -> PhyOutputs {
        (**self).end_transmit(now)
    }
    #[inline]
    fn cca_end(&mut self, now: SimTime) -> PhyOutputs {
        (**self).cca_end(now)
    }
    #[inline]
    fn is_busy(&self) -> bool {
        (**self).is_busy()
    }
    #[inline]
    fn locked(&self) -> Option<FrameRef> {
        (**self).locked()
    }
    #[inline]
    fn take_weak_signal(&mut self, now: SimTime, start: SimTime, end: SimTime, power_w: f64) -> bool {
        (**self).take_weak_signal(now, start, end, power_w)
    }
}

/// A reception model as the registry builds it: what it resolves once
/// from `[radio]` for every node, one node's receiver, and the channel
/// hook it declares.
pub trait FromRadioConfig: Sized {
    /// What depends on the radio alone, resolved once.
    type Params: Copy + std::fmt::Debug;
    fn params(config: &RadioConfig, radio: &RadioModel) -> Self::Params;
    /// One node's receiver; `rng`: its reception stream.
    fn from_params(params: &Self::Params, rng: Stream) -> Self;
    /// The channel hook: signals received below this power are handed to
    /// [`Reception::take_weak_signal`] when they are sent, and get an
    /// arrival event only if it says so. 0 W (the default): every signal
    /// is an arrival.
    fn weak_signal_below_w(_params: &Self::Params) -> f64 {
        0.0
    }
    /// Frames below this power do not reach the node at all (`radio`: its
    /// thresholds resolved, this one not yet): ns-2's carrier-sense
    /// threshold by default.
    fn reach_threshold_w(_config: &RadioConfig, radio: &RadioModel) -> f64 {
        radio.cs_threshold_w
    }
}

impl<T: FromRadioConfig> FromRadioConfig for Box<T> {
    type Params = T::Params;
    fn params(config: &RadioConfig, radio: &RadioModel) -> Self::Params {
        T::params(config, radio)
    }
    fn from_params(params: &Self::Params, rng: Stream) -> Self {
        Box::new(T::from_params(params, rng))
    }
    fn weak_signal_below_w(params: &Self::Params) -> f64 {
        T::weak_signal_below_w(params)
    }
    fn reach_threshold_w(config: &RadioConfig, radio: &RadioModel) -> f64 {
        T::reach_threshold_w(config, radio)
    }
}

/// The registry: one line per model, `Name(Type)`, `Name` being its
/// `radio.reception` variant (`phy::config::Reception`). It makes
/// [`ReceptionModel`] (enum dispatch: no allocation and no dynamic
/// dispatch per event) and [`ReceptionBuilder`].
macro_rules! reception_models {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        /// The reception models (`radio.reception`).
        #[derive(Debug, Clone)]
        pub enum ReceptionModel {
            $($(#[$doc])* $variant($ty),)*
        }

        macro_rules! each {
            ($self:ident, $r:ident => $e:expr) => {
                match $self {
                    $(ReceptionModel::$variant($r) => $e,)*
                }
            };
        }

        /// The reach threshold of `config`'s model (see
        /// [`FromRadioConfig::reach_threshold_w`]).
        pub fn reach_threshold_w(config: &RadioConfig, radio: &RadioModel) -> f64 {
            match config.reception {
                $(ReceptionName::$variant => <$ty>::reach_threshold_w(config, radio),)*
            }
        }

        /// Builds every node's receiver of one radio, as `radio.reception`
        /// says (what depends on the radio alone is resolved once).
        #[derive(Debug, Clone, Copy)]
        pub enum ReceptionBuilder {
            $($variant(<$ty as FromRadioConfig>::Params),)*
        }

        impl ReceptionBuilder {
            pub fn new(config: &RadioConfig, radio: &RadioModel) -> ReceptionBuilder {
                match config.reception {
                    $(ReceptionName::$variant => ReceptionBuilder::$variant(<$ty>::params(config, radio)),)*
                }
            }

            /// One node's receiver; `rng`: its reception stream.
            pub fn build(&self, rng: Stream) -> ReceptionModel {
                match self {
                    $(ReceptionBuilder::$variant(params) => ReceptionModel::$variant(<$ty>::from_params(params, rng)),)*
                }
            }

            /// The channel hook the model declares (see
            /// [`FromRadioConfig::weak_signal_below_w`]).
            pub fn weak_signal_below_w(&self) -> f64 {
                match self {
                    $(ReceptionBuilder::$variant(params) => <$ty>::weak_signal_below_w(params),)*
                }
            }
        }
    };
}

reception_models! {
    /// ns-2's thresholds (`threshold`).
    Threshold(ThresholdReceiver),
    /// ns-3's YANS receiver (`sinr/`), boxed so that a node of the
    /// threshold model stays as small as before.
    Sinr(Box<SinrReceiver>),
}

/// `each!` for the PHY (its step over whichever model a node runs).
pub(crate) use each as each_model;

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
    #[inline]
    fn take_weak_signal(&mut self, now: SimTime, start: SimTime, end: SimTime, power_w: f64) -> bool {
        each!(self, r => r.take_weak_signal(now, start, end, power_w))
    }
}
