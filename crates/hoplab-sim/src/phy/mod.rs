//! The physical layer: propagation, the neighbour table, and the ns-2
//! threshold receiver.
//!
//! Owns: received power and propagation delay per (transmitter, receiver)
//! pair, which frames a node locks onto, capture and collision (SPEC.md 1.1),
//! half duplex. Does not own: channel access (the MAC) or what a frame means.

pub mod channel;
pub mod propagation;
pub mod receiver;

pub use channel::{Channel, Neighbour};
pub use propagation::RadioModel;
