//! The MAC: IEEE 802.11 DCF (IEEE 802.11-2016 clause 10.3) with RTS/CTS.
//!
//! Owns: the interface queue, the packet in service and its retry counters,
//! the contention window and backoff, the NAV, IFS choice (DIFS / EIFS), the
//! frame exchange RTS -> CTS -> DATA -> ACK with its timeouts, duplicate
//! detection, and the per-node MAC statistics. Reads the PHY's carrier sense
//! (locked reception or own transmission); never touches routing tables.
//!
//! `hop_control.rs` is semi-TCP's hop-by-hop congestion control, behind a
//! few hooks in the DCF. `state.rs` holds the per-node state; `dcf.rs` the behaviour (channel
//! access, then frame exchange), as methods on the `World` because a
//! transmission reaches every neighbour's PHY.

pub mod dcf;
pub mod hop_control;
pub mod queue;
pub mod state;
pub mod timing;

pub use crate::wire::ieee80211::{Frame, FrameKind, BROADCAST};
pub use queue::{InterfaceQueue, Queued};
pub use state::{Exchange, Mac, TxOp};
pub use timing::MacTiming;
