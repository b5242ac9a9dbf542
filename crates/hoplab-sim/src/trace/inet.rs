//! IPv4 (RFC 791), UDP (RFC 768) and TCP (RFC 9293) headers on the wire,
//! with their checksums (RFC 1071), and the TCP options hoplab's segments
//! carry: SACK (RFC 2018) and TCP-RA's loss hint as an experimental option
//! (RFC 6994).
//!
//! Addresses: node `i` is 10.0.0.0 + i + 1 (node 0 is 10.0.0.1), as in
//! `wire::aodv`; the broadcast address is 255.255.255.255.
//!
//! Application payloads are not carried by the simulator: they are zero
//! bytes, which add nothing to a checksum, so every checksum here is that
//! of the whole segment even when the payload is not written.

use crate::wire::tcp::{LossHint, SackBlocks};
use crate::wire::NodeId;

pub const IPV4_HEADER: usize = 20;
pub const UDP_HEADER: usize = 8;
pub const TCP_HEADER: usize = 20;
pub const PROTOCOL_TCP: u8 = 6;
pub const PROTOCOL_UDP: u8 = 17;

/// TCP flags.
pub const TCP_SYN: u8 = 0x02;
pub const TCP_PSH: u8 = 0x08;
pub const TCP_ACK: u8 = 0x10;

/// RFC 6994's experimental option kind (the second of RFC 4727's two).
pub const TCP_OPTION_EXPERIMENT: u8 = 253;
/// The experiment identifier of TCP-RA's loss hint ("RA"; hoplab's own,
/// not registered with IANA).
pub const TCP_RA_EXID: u16 = 0x5241;

/// A node's IPv4 address.
pub fn ipv4_address(node: NodeId) -> [u8; 4] {
    if node == NodeId::BROADCAST {
        return [255; 4];
    }
    0x0a00_0001u32.wrapping_add(node.0).to_be_bytes()
}

/// The Internet checksum (RFC 1071): a one's complement sum of 16-bit
/// words, kept running over pieces of even length.
#[derive(Debug, Clone, Copy, Default)]
pub struct Checksum(u32);

impl Checksum {
    pub fn add(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(2);
        for pair in &mut chunks {
            self.0 += u16::from_be_bytes([pair[0], pair[1]]) as u32;
        }
        if let [last] = chunks.remainder() {
            self.0 += (*last as u32) << 8;
        }
        self.fold();
    }

    pub fn add_u16(&mut self, v: u16) {
        self.add(&v.to_be_bytes());
    }

    fn fold(&mut self) {
        while self.0 > 0xffff {
            self.0 = (self.0 & 0xffff) + (self.0 >> 16);
        }
    }

    /// The checksum field: the complement of the sum.
    pub fn finish(mut self) -> u16 {
        self.fold();
        !(self.0 as u16)
    }
}

/// An IPv4 header without options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub protocol: u8,
    pub ttl: u8,
    pub ident: u16,
    /// Header and payload, bytes.
    pub total_len: u16,
}

impl Ipv4Repr {
    /// Append the header (Don't Fragment set, checksum filled) to `buf`.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let start = buf.len();
        buf.extend_from_slice(&[0x45, 0x00]); // version 4, IHL 5; DSCP / ECN 0
        buf.extend_from_slice(&self.total_len.to_be_bytes());
        buf.extend_from_slice(&self.ident.to_be_bytes());
        buf.extend_from_slice(&[0x40, 0x00]); // DF, fragment offset 0
        buf.extend_from_slice(&[self.ttl, self.protocol, 0, 0]);
        buf.extend_from_slice(&self.src);
        buf.extend_from_slice(&self.dst);
        let mut sum = Checksum::default();
        sum.add(&buf[start..]);
        let field = sum.finish().to_be_bytes();
        buf[start + 10..start + 12].copy_from_slice(&field);
    }

    /// The pseudo-header of a transport checksum: addresses, protocol,
    /// the transport segment's length.
    fn pseudo_header(&self) -> Checksum {
        let mut sum = Checksum::default();
        sum.add(&self.src);
        sum.add(&self.dst);
        sum.add_u16(self.protocol as u16);
        sum.add_u16(self.total_len - IPV4_HEADER as u16);
        sum
    }
}

/// Append a UDP header for `ip`'s payload, whose first bytes after the
/// header are `head` (the rest zero), checksum filled, then `head`.
pub fn emit_udp(ip: &Ipv4Repr, src_port: u16, dst_port: u16, head: &[u8], buf: &mut Vec<u8>) {
    let len = ip.total_len - IPV4_HEADER as u16;
    let start = buf.len();
    buf.extend_from_slice(&src_port.to_be_bytes());
    buf.extend_from_slice(&dst_port.to_be_bytes());
    buf.extend_from_slice(&len.to_be_bytes());
    buf.extend_from_slice(&[0, 0]);
    buf.extend_from_slice(head);
    let mut sum = ip.pseudo_header();
    sum.add(&buf[start..]);
    // A computed 0 goes out as all ones (0 means "no checksum").
    let field = match sum.finish() {
        0 => 0xffff,
        c => c,
    };
    buf[start + 6..start + 8].copy_from_slice(&field.to_be_bytes());
}

/// A TCP header, options included (at most 40 bytes, a multiple of 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    options: [u8; 40],
    options_len: u8,
}

impl TcpRepr {
    pub fn new(src_port: u16, dst_port: u16, seq: u32, ack: u32, flags: u8) -> TcpRepr {
        TcpRepr { src_port, dst_port, seq, ack, flags, window: 65535, options: [0; 40], options_len: 0 }
    }

    pub fn options(&self) -> &[u8] {
        &self.options[..self.options_len as usize]
    }

    /// Header length with options, bytes.
    pub fn header_len(&self) -> usize {
        TCP_HEADER + self.options_len as usize
    }

    fn push_option(&mut self, bytes: &[u8]) {
        let at = self.options_len as usize;
        assert!(at + bytes.len() <= 40 && bytes.len() % 4 == 0, "TCP options fit 40 bytes in 32-bit words");
        self.options[at..at + bytes.len()].copy_from_slice(bytes);
        self.options_len += bytes.len() as u8;
    }

    /// The SACK option (RFC 2018 section 3), after two NOPs: each block's
    /// left and right edges, `edge` turning a segment number into a
    /// sequence number. Nothing for no blocks.
    pub fn push_sack(&mut self, blocks: &SackBlocks, edge: impl Fn(u64) -> u32) {
        if blocks.is_empty() {
            return;
        }
        let mut option = [0u8; 28];
        let n = blocks.iter().count();
        option[..4].copy_from_slice(&[1, 1, 5, (2 + 8 * n) as u8]);
        for (i, (start, end)) in blocks.iter().enumerate() {
            option[4 + 8 * i..8 + 8 * i].copy_from_slice(&edge(start).to_be_bytes());
            option[8 + 8 * i..12 + 8 * i].copy_from_slice(&edge(end).to_be_bytes());
        }
        self.push_option(&option[..4 + 8 * n]);
    }

    /// TCP-RA's loss hint as an RFC 6994 experimental option, after three
    /// NOPs: kind 253, length 5, ExID [`TCP_RA_EXID`], then 1 (congestion),
    /// 2 (wireless) or 3 (dubious).
    pub fn push_loss_hint(&mut self, hint: LossHint) {
        let value = match hint {
            LossHint::Congestion => 1,
            LossHint::Wireless => 2,
            LossHint::Dubious => 3,
        };
        let exid = TCP_RA_EXID.to_be_bytes();
        self.push_option(&[1, 1, 1, TCP_OPTION_EXPERIMENT, 5, exid[0], exid[1], value]);
    }

    /// Append the header for `ip`'s payload (the rest of which is zero
    /// bytes), checksum filled.
    pub fn emit(&self, ip: &Ipv4Repr, buf: &mut Vec<u8>) {
        let start = buf.len();
        buf.extend_from_slice(&self.src_port.to_be_bytes());
        buf.extend_from_slice(&self.dst_port.to_be_bytes());
        buf.extend_from_slice(&self.seq.to_be_bytes());
        buf.extend_from_slice(&self.ack.to_be_bytes());
        buf.extend_from_slice(&[((self.header_len() / 4) as u8) << 4, self.flags]);
        buf.extend_from_slice(&self.window.to_be_bytes());
        buf.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
        buf.extend_from_slice(self.options());
        let mut sum = ip.pseudo_header();
        sum.add(&buf[start..]);
        buf[start + 16..start + 18].copy_from_slice(&sum.finish().to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Verify a checksum the way a receiver does: the sum over everything,
    /// checksum included, is all ones.
    fn verifies(pieces: &[&[u8]]) -> bool {
        let mut sum = Checksum::default();
        for p in pieces {
            sum.add(p);
        }
        sum.finish() == 0
    }

    #[test]
    fn ipv4_header_is_byte_exact() {
        // Hand-worked: 10.0.0.1 -> 10.0.0.3, TCP, TTL 64, ID 7, 552 bytes.
        // Sum of the words: 4500 + 0228 + 0007 + 4000 + 4006 + 0a00 + 0001
        // + 0a00 + 0003 = db39 (no carry); checksum !db39 = 24c6.
        let ip = Ipv4Repr {
            src: ipv4_address(NodeId(0)),
            dst: ipv4_address(NodeId(2)),
            protocol: PROTOCOL_TCP,
            ttl: 64,
            ident: 7,
            total_len: 552,
        };
        let mut buf = Vec::new();
        ip.emit(&mut buf);
        #[rustfmt::skip]
        let expected = [
            0x45, 0x00, 0x02, 0x28, // version 4, IHL 5, TOS 0, total length 552
            0x00, 0x07, 0x40, 0x00, // ID 7, DF
            0x40, 0x06, 0x24, 0xc6, // TTL 64, TCP, checksum
            0x0a, 0x00, 0x00, 0x01, // 10.0.0.1
            0x0a, 0x00, 0x00, 0x03, // 10.0.0.3
        ];
        assert_eq!(buf, expected);
        assert!(verifies(&[&buf]));
        assert_eq!(ipv4_address(NodeId::BROADCAST), [255, 255, 255, 255]);
    }

    #[test]
    fn tcp_header_with_sack_and_the_loss_hint() {
        let ip = Ipv4Repr { src: [10, 0, 0, 3], dst: [10, 0, 0, 1], protocol: PROTOCOL_TCP, ttl: 64, ident: 1, total_len: 0 };
        let mut tcp = TcpRepr::new(5001, 49152, 1, 1 + 512 * 4, TCP_ACK);
        let mut sack = SackBlocks::default();
        sack.push(6, 8);
        tcp.push_sack(&sack, |segment| 1 + 512 * segment as u32);
        tcp.push_loss_hint(LossHint::Wireless);
        let ip = Ipv4Repr { total_len: (IPV4_HEADER + tcp.header_len()) as u16, ..ip };
        let mut buf = Vec::new();
        tcp.emit(&ip, &mut buf);
        assert_eq!(tcp.header_len(), 20 + 12 + 8);
        #[rustfmt::skip]
        let expected_head = [
            0x13, 0x89, 0xc0, 0x00, // ports 5001 -> 49152
            0x00, 0x00, 0x00, 0x01, // seq 1
            0x00, 0x00, 0x08, 0x01, // ack 1 + 2048
            0xa0, 0x10,             // data offset 10 words; ACK
            0xff, 0xff,             // window
        ];
        assert_eq!(buf[..16], expected_head);
        #[rustfmt::skip]
        let expected_options = [
            0x01, 0x01, 0x05, 0x0a, // NOP NOP SACK, length 10
            0x00, 0x00, 0x0c, 0x01, // left edge 1 + 6 x 512
            0x00, 0x00, 0x10, 0x01, // right edge 1 + 8 x 512
            0x01, 0x01, 0x01,       // NOP NOP NOP
            0xfd, 0x05, 0x52, 0x41, // kind 253, length 5, ExID "RA"
            0x02,                   // wireless
        ];
        assert_eq!(buf[20..], expected_options);
        let pseudo = [&ip.src[..], &ip.dst[..], &[0, PROTOCOL_TCP], &(buf.len() as u16).to_be_bytes()].concat();
        assert!(verifies(&[&pseudo, &buf]));
    }

    #[test]
    fn udp_checksum_covers_pseudo_header_head_and_zero_payload() {
        let ip = Ipv4Repr { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], protocol: PROTOCOL_UDP, ttl: 1, ident: 0, total_len: 20 + 8 + 4 + 100 };
        let mut buf = Vec::new();
        emit_udp(&ip, 654, 654, &[1, 2, 3, 4], &mut buf);
        assert_eq!(buf[..6], [0x02, 0x8e, 0x02, 0x8e, 0x00, 112]);
        let pseudo = [&ip.src[..], &ip.dst[..], &[0, PROTOCOL_UDP], &112u16.to_be_bytes()].concat();
        assert!(verifies(&[&pseudo, &buf, &[0u8; 100]]));
    }
}
