//! The network layer: routing, and ns-2's ARP between routing and the
//! interface queue ([`arp`], `mac.arp = "ns2"`).
//!
//! Owns: the choice of next hop, per node, behind the [`Routing`] trait
//! ([`routing`]): static shortest paths ([`static_routes`]), AODV
//! ([`aodv`]) or DSR ([`dsr`]). Does not own: how a hop is crossed (the MAC or a wired
//! link) or what the payload means (transport and applications). The
//! packet itself is a [`wire`](crate::wire) type.

pub mod aodv;
pub mod arp;
pub mod config;
pub mod dsr;
pub mod jitter;
#[cfg(test)]
pub(crate) mod node_harness;
pub mod routing;
pub mod static_routes;

pub use crate::wire::{NodeId, Packet, PacketKind, IP_HEADER_BYTES, UDP_HEADER_BYTES};
pub use routing::{Routing, RoutingProtocol};
pub use static_routes::StaticRoutes;
