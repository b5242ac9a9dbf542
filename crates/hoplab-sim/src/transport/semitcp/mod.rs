//! Semi-TCP (Cai et al. 2013; seed 000 section 2; docs/semitcp-2018.md):
//! congestion control moved to the MAC, hop by hop (`mac::hop_control`);
//! the transport keeps only reliability and hands segments to its MAC's
//! reserved buffer, optionally paced by a rate controller (Algorithm 1).

pub mod connection;
pub mod matcp;
pub mod rate_control;
pub mod sender;
pub mod sink;
