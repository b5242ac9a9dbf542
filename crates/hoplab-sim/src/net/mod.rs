//! The network layer: packets, hop-by-hop forwarding and routing.
//!
//! Owns: the packet's end-to-end identity (flow, sequence, size, TTL), the
//! choice of next hop ([`routing`]: static shortest paths or [`aodv`]).
//! Does not own: how a hop is crossed (the MAC) or what
//! the payload means (transport and applications).

pub mod aodv;
pub mod forward;
pub mod routing;

pub use crate::wire::{NodeId, Packet, PacketKind, IP_HEADER_BYTES, UDP_HEADER_BYTES};
pub use routing::{Routing, StaticRoutes};
