//! ARP (RFC 826) for IPv4 over IEEE 802 hardware: the operation a packet
//! carries in the simulator, and its 28-byte wire format (smoltcp's
//! `arp` module: a typed `ArpRepr`, `parse` and `emit`), used by the pcap
//! writer (`trace/encode.rs`).
//!
//! In the simulator an ARP packet is a [`Packet`](super::Packet) of kind
//! `PacketKind::Arp(operation)` whose `src` is the sender's protocol
//! address and `dst` the target's; every hoplab node's hardware address is
//! its node id, as in ns-2 (`MobileNode`'s MAC address is its index), so
//! the hardware fields need no storage. Its size on the air is
//! [`ARP_PACKET_BYTES`] plus the MAC's header, as ns-2 gives it
//! (mac/arp.cc:227 and 318, `ch->size() = ARP_HDR_LEN`, mac/arp.h:71; no
//! IP header).

/// The ARP packet's length: ns-2's `ARP_HDR_LEN` (mac/arp.h:71), also
/// RFC 826's for Ethernet hardware (6-byte) and IPv4 (4-byte) addresses.
pub const ARP_PACKET_BYTES: u32 = 28;

/// The EtherType of ARP in an LLC/SNAP header (ns-2's `ETHERTYPE_ARP`).
pub const ETHERTYPE_ARP: u16 = 0x0806;
/// The EtherType of IPv4: ARP's protocol type for IPv4 addresses.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// ARP's hardware type for Ethernet (and 802.11) addresses (`ARPHRD_ETHER`).
pub const HARDWARE_ETHERNET: u16 = 1;

/// What an ARP packet asks or answers (RFC 826 `ar$op`; ns-2's
/// `ARPOP_REQUEST`, `ARPOP_REPLY`, mac/arp.h:63-64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArpOperation {
    /// Who has the target's protocol address? (broadcast)
    Request,
    /// The sender has it (unicast to the requester).
    Reply,
}

impl ArpOperation {
    /// The `ar$op` code.
    pub fn code(self) -> u16 {
        match self {
            ArpOperation::Request => 1,
            ArpOperation::Reply => 2,
        }
    }

    /// The operation of an `ar$op` code.
    pub fn from_code(code: u16) -> Option<ArpOperation> {
        match code {
            1 => Some(ArpOperation::Request),
            2 => Some(ArpOperation::Reply),
            _ => None,
        }
    }

    /// The name in traces ("arp_request", "arp_reply").
    pub fn name(self) -> &'static str {
        match self {
            ArpOperation::Request => "arp_request",
            ArpOperation::Reply => "arp_reply",
        }
    }
}

/// Why bytes are not an ARP packet this module reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArpParseError {
    /// Fewer than [`ARP_PACKET_BYTES`] bytes.
    Truncated,
    /// Not Ethernet hardware with IPv4 protocol addresses (6 and 4 bytes).
    Unsupported,
    /// An `ar$op` other than request or reply.
    UnknownOperation(u16),
}

/// An Ethernet/IPv4 ARP packet (RFC 826), addresses as bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArpRepr {
    pub operation: ArpOperation,
    pub sender_hardware_addr: [u8; 6],
    pub sender_protocol_addr: [u8; 4],
    /// Zero in a request (what is looked for: mac/arp.cc:246).
    pub target_hardware_addr: [u8; 6],
    pub target_protocol_addr: [u8; 4],
}

impl ArpRepr {
    /// Read an ARP packet from the first [`ARP_PACKET_BYTES`] of `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<ArpRepr, ArpParseError> {
        if bytes.len() < ARP_PACKET_BYTES as usize {
            return Err(ArpParseError::Truncated);
        }
        let u16_at = |i: usize| u16::from_be_bytes([bytes[i], bytes[i + 1]]);
        if u16_at(0) != HARDWARE_ETHERNET || u16_at(2) != ETHERTYPE_IPV4 || bytes[4] != 6 || bytes[5] != 4 {
            return Err(ArpParseError::Unsupported);
        }
        let code = u16_at(6);
        let operation = ArpOperation::from_code(code).ok_or(ArpParseError::UnknownOperation(code))?;
        let take6 = |i: usize| -> [u8; 6] { bytes[i..i + 6].try_into().expect("6 bytes") };
        let take4 = |i: usize| -> [u8; 4] { bytes[i..i + 4].try_into().expect("4 bytes") };
        Ok(ArpRepr {
            operation,
            sender_hardware_addr: take6(8),
            sender_protocol_addr: take4(14),
            target_hardware_addr: take6(18),
            target_protocol_addr: take4(24),
        })
    }

    /// Write the packet into the first [`ARP_PACKET_BYTES`] of `buf`.
    pub fn emit(&self, buf: &mut [u8]) {
        let buf = &mut buf[..ARP_PACKET_BYTES as usize];
        buf[0..2].copy_from_slice(&HARDWARE_ETHERNET.to_be_bytes());
        buf[2..4].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        buf[4] = 6;
        buf[5] = 4;
        buf[6..8].copy_from_slice(&self.operation.code().to_be_bytes());
        buf[8..14].copy_from_slice(&self.sender_hardware_addr);
        buf[14..18].copy_from_slice(&self.sender_protocol_addr);
        buf[18..24].copy_from_slice(&self.target_hardware_addr);
        buf[24..28].copy_from_slice(&self.target_protocol_addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request as RFC 826 and every capture tool lay it out.
    const REQUEST: [u8; 28] = [
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, // Ethernet, IPv4, 6, 4, request
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 10, 0, 0, 1, // sender 02:00:00:00:00:01, 10.0.0.1
        0, 0, 0, 0, 0, 0, 10, 0, 0, 2, // target unknown, 10.0.0.2
    ];

    #[test]
    fn a_request_parses_and_emits_the_same_bytes() {
        let repr = ArpRepr::parse(&REQUEST).unwrap();
        assert_eq!(repr.operation, ArpOperation::Request);
        assert_eq!(repr.sender_protocol_addr, [10, 0, 0, 1]);
        assert_eq!(repr.target_protocol_addr, [10, 0, 0, 2]);
        assert_eq!(repr.target_hardware_addr, [0; 6]);
        let mut out = [0xeeu8; 28];
        repr.emit(&mut out);
        assert_eq!(out, REQUEST);
    }

    #[test]
    fn bad_packets_are_refused() {
        assert_eq!(ArpRepr::parse(&REQUEST[..27]), Err(ArpParseError::Truncated));
        let mut other = REQUEST;
        other[7] = 3; // RARP request
        assert_eq!(ArpRepr::parse(&other), Err(ArpParseError::UnknownOperation(3)));
        let mut other = REQUEST;
        other[3] = 0xdd; // IPv6
        assert_eq!(ArpRepr::parse(&other), Err(ArpParseError::Unsupported));
    }
}
