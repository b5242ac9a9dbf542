//! Transports: UDP (header only; the applications send datagrams) and TCP.
//!
//! Owns: end-to-end reliability and congestion control. Does not own: how a
//! packet crosses a hop (MAC) or which hop it takes (routing).

pub mod semitcp;
pub mod tcp;
