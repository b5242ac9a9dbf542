//! # hoplab-sim
//!
//! The simulator core of hoplab: a deterministic discrete-event simulator of
//! multi-hop IEEE 802.11 networks. No Python here: `cargo test` needs none.
//!
//! Layers, bottom up, each a sans-IO state machine per node (or link, or
//! flow) that writes its outputs and never calls another layer; imports go
//! downward only (`tests/layers.rs`). The repository's
//! `docs/architecture.md` is the map.
//! - [`time`], [`config`] (errors, checks, durations), [`loss`] (drop
//!   causes), [`wire`] (packets and their protocol-neutral headers, 802.11
//!   frames, TCP and AODV formats).
//! - [`engine`]: event queue ordered by (time, insertion), cancellable
//!   timers, named random streams. Knows nothing of networks.
//! - [`mobility`]: positions over time (static, random waypoint).
//! - [`phy`]: propagation, the channel and its neighbour grid, frames on the
//!   air; per node a PHY with its reception model (trait `Reception`) and
//!   frame error model.
//! - [`queue`]: interface queue disciplines (trait `QueueDisc`).
//! - [`mac`]: IEEE 802.11 DCF with RTS/CTS; semi-TCP's hop-by-hop control
//!   behind the trait `HopControl`. [`link`]: wired point-to-point links.
//! - [`net`]: routing behind the trait `Routing`: static shortest paths,
//!   AODV (RFC 3561).
//! - [`transport`]: TCP (sans-IO sender and receiver, pluggable congestion
//!   control) and semi-TCP. [`app`]: CBR and bulk sources.
//! - Wiring: [`topology`] (placement), [`scenario`] (the validated
//!   configuration), [`world`] (the engine and the dispatch between
//!   layers), [`stats`] (the run report), [`api`] (the JSON facade the
//!   Python binding calls), [`trace`] (packet traces: pcap with radiotap
//!   and 802.11, written as frames go on the air).
pub mod api;
pub mod app;
pub mod config;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod link;
pub mod loss;
pub mod mac;
pub mod mobility;
pub mod net;
pub mod phy;
pub mod queue;
pub mod record;
pub mod scenario;
pub mod stack;
pub mod stats;
pub mod time;
pub mod topology;
pub mod trace;
pub mod transport;
pub mod wire;
pub mod world;

/// Counting a run's events by kind and outcome: the world's own
/// instrumentation (`world/profile.rs`), named here as before.
pub use world::profile;
