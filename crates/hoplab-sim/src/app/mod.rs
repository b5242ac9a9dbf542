//! Applications: constant bit rate and bulk (infinite backlog), over UDP;
//! TCP and semi-TCP flows carry a bulk transfer (FTP).
//!
//! CBR emits one `packet_bytes` packet every `packet_bytes * 8 / rate`
//! seconds from `start_s` to `stop_s`. Bulk keeps one packet of its flow
//! waiting at the source's MAC at all times: whenever one of its packets
//! enters service a new one is generated, so the source never idles and the
//! interface queue never overflows because of the source itself (the
//! saturation condition of Bianchi's model). The world runs them
//! (`world::flows`).

/// Initial TTL of data packets (defined with the packet, which counts its
/// hops from it).
pub use crate::wire::DEFAULT_TTL;
