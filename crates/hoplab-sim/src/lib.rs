//! # hoplab-sim
//!
//! The simulator core of hoplab. No Python here: `cargo test` needs none.
pub mod api;
pub mod engine;
pub mod scenario;
pub mod stats;
pub mod world;
