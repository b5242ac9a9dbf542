//! # hoplab-sim
//!
//! The simulator core of hoplab: a deterministic discrete-event simulator of
//! multi-hop IEEE 802.11 networks. No Python here: `cargo test` needs none.
//!
//! Layers, bottom up (each module's doc says what it owns):
//! - [`engine`]: event queue ordered by (time, insertion), cancellable
//!   timers, named random streams. Knows nothing of networks.
//! - [`phy`]: propagation (two-ray ground, free space), the neighbour table
//!   (spatial grid), the ns-2 threshold receiver (lock, capture, collision).
//! - [`mac`]: IEEE 802.11 DCF with RTS/CTS: carrier sense, NAV, DIFS/EIFS,
//!   backoff, retries, the interface queue, MAC statistics.
//! - [`link`]: wired point-to-point links (rate, delay, drop-tail, loss).
//! - [`net`]: packets, forwarding (wired or wireless interface), routing:
//!   static shortest paths or AODV (RFC 3561, `net::aodv`).
//! - [`transport`]: TCP (sans-IO sender and receiver, pluggable congestion
//!   control); UDP is a header the applications add.
//! - [`app`]: CBR and bulk sources over UDP.
//! - [`topology`]: node placement. [`mobility`]: random waypoint motion,
//!   evaluated lazily. [`stats`]: counters and the run report.
//! - [`world`]: owns every node and the event loop; [`api`] is the JSON
//!   facade the Python binding calls; [`scenario`] the validated config.
pub mod api;
pub mod app;
pub mod config;
pub mod engine;
pub mod link;
pub mod loss;
pub mod mac;
pub mod mobility;
pub mod net;
pub mod phy;
pub mod queue;
pub mod scenario;
pub mod stats;
pub mod time;
pub mod topology;
pub mod transport;
pub mod wire;
pub mod world;
