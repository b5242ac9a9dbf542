//! The discrete-event engine: a time-ordered event queue, cancellable timers
//! and named random streams.
//!
//! Ordering guarantee: events pop in increasing time; events scheduled for the
//! same instant pop in the order they were scheduled (a global insertion
//! sequence breaks ties). Together with integer time and per-purpose RNG
//! streams this makes a run a pure function of (scenario, seed).
//!
//! The engine knows nothing of networks: the event type is a parameter.

pub mod bench;
pub mod queue;
pub mod rng;

pub use queue::{EventQueue, Timer};
pub use rng::{RngStreams, Stream, StreamPurpose};
