//! TCP as ns-2 and ns-3 model it for these studies: segment-numbered,
//! one-way bulk transfer (sender at the source, sink at the destination),
//! cumulative ACKs, delayed ACKs (RFC 5681 4.2), RTO per RFC 6298, fast
//! retransmit and NewReno recovery (RFC 6582), optional limited transmit
//! (RFC 3042), and a pluggable congestion controller (`congestion`).

pub mod config;
pub mod congestion;
pub mod connection;
pub mod receiver;
pub mod rtt;
pub mod sender;
