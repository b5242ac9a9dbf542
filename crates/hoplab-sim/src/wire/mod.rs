//! Wire formats: what travels between nodes, as typed representations
//! (smoltcp's `Repr` half): node addresses, the network packet with its
//! transport and routing headers, the 802.11 frame, and the TCP, AODV
//! and DSR headers, each with the size it adds on the air.
//!
//! This is the bottom of the layer stack: it imports nothing but time.
//! Every layer may use it; a layer matches only on the headers it owns (the
//! MAC moves a [`Packet`] without looking at its TCP header; routing below
//! the transport never looks at it either).

pub mod aodv;
pub mod arp;
pub mod dsr;
pub mod ieee80211;
pub mod packet;
pub mod seqno;
pub mod tcp;

pub use ieee80211::{Frame, FrameKind};
pub use packet::{Packet, PacketInfo, PacketKind, RoutingHeader, TransportHeader, DEFAULT_TTL, IP_HEADER_BYTES, UDP_HEADER_BYTES};

/// A node's index (0-based, as in the scenario); also its MAC and IP
/// address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The broadcast address (receiver of a broadcast frame, next hop of a
    /// broadcast packet).
    pub const BROADCAST: NodeId = NodeId(u32::MAX);

    pub fn index(self) -> usize {
        self.0 as usize
    }
}
