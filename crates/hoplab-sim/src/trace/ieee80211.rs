//! 802.11 MAC headers on the wire (IEEE 802.11-2016 clause 9), the FCS,
//! and the LLC/SNAP header of a DATA frame's body (IEEE 802.2, RFC 1042).
//!
//! Addresses: node `i` is `02:00:` followed by `i + 1` as a big-endian
//! 32-bit number (locally administered, unicast), so node 0 is
//! `02:00:00:00:00:01`, as its IPv4 address is 10.0.0.1. The network is an
//! IBSS (ToDS = FromDS = 0): a DATA frame's Address 3 is [`BSSID`].

use crate::time::SimDuration;
use crate::wire::{Frame, FrameKind, NodeId};

/// Frame control, first byte: subtype << 4 | type << 2 | protocol version 0.
pub const FC_RTS: u8 = 0xb4; // control (1), subtype 11
pub const FC_CTS: u8 = 0xc4; // control (1), subtype 12
pub const FC_ACK: u8 = 0xd4; // control (1), subtype 13
pub const FC_DATA: u8 = 0x08; // data (2), subtype 0

/// Frame control, second byte (flags).
pub const FLAG_RETRY: u8 = 0x08;
/// The order bit, which semi-TCP's public ns-2 code sets on an RTS or CTS
/// to make it an RTSC or CTSC.
pub const FLAG_ORDER: u8 = 0x80;

/// The IBSS's BSSID (locally administered; no node has it).
pub const BSSID: [u8; 6] = [0x02, 0, 0, 0, 0, 0];
pub const BROADCAST_ADDRESS: [u8; 6] = [0xff; 6];

/// Header lengths (without the FCS).
pub const RTS_HEADER: usize = 16;
pub const CTS_HEADER: usize = 10;
pub const DATA_HEADER: usize = 24;
pub const FCS_LEN: usize = 4;

/// The LLC/SNAP header before an IPv4 packet: DSAP AA, SSAP AA, UI (03),
/// OUI 00-00-00, EtherType 0x0800.
pub const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00];

/// A node's MAC address ([`NodeId::BROADCAST`]: ff:ff:ff:ff:ff:ff).
pub fn mac_address(node: NodeId) -> [u8; 6] {
    if node == NodeId::BROADCAST {
        return BROADCAST_ADDRESS;
    }
    let n = node.0.wrapping_add(1).to_be_bytes();
    [0x02, 0x00, n[0], n[1], n[2], n[3]]
}

/// The Duration field: microseconds, rounded up (9.2.5), at most 32767
/// (bit 15 clear: a duration, not an AID).
pub fn duration_field(d: SimDuration) -> u16 {
    d.as_nanos().div_ceil(1000).min(32767) as u16
}

/// Append the MAC header of `frame` (everything before the body) to `buf`.
pub fn emit_header(frame: &Frame, buf: &mut Vec<u8>) {
    let fc = match frame.kind {
        FrameKind::Rts => FC_RTS,
        FrameKind::Cts => FC_CTS,
        FrameKind::Ack => FC_ACK,
        FrameKind::Data => FC_DATA,
    };
    let mut flags = 0;
    if frame.kind == FrameKind::Data && frame.retry {
        flags |= FLAG_RETRY;
    }
    if matches!(frame.kind, FrameKind::Rts | FrameKind::Cts) && frame.congestion_mark {
        flags |= FLAG_ORDER;
    }
    buf.extend_from_slice(&[fc, flags]);
    buf.extend_from_slice(&duration_field(frame.duration).to_le_bytes());
    buf.extend_from_slice(&mac_address(frame.receiver));
    match frame.kind {
        FrameKind::Cts | FrameKind::Ack => {}
        FrameKind::Rts => buf.extend_from_slice(&mac_address(frame.transmitter)),
        FrameKind::Data => {
            buf.extend_from_slice(&mac_address(frame.transmitter));
            buf.extend_from_slice(&BSSID);
            // Sequence control: fragment number 0 in bits 0-3.
            buf.extend_from_slice(&((frame.sequence & 0x0fff) << 4).to_le_bytes());
        }
    }
}

/// The length of the MAC header [`emit_header`] writes.
pub fn header_len(kind: FrameKind) -> usize {
    match kind {
        FrameKind::Rts => RTS_HEADER,
        FrameKind::Cts | FrameKind::Ack => CTS_HEADER,
        FrameKind::Data => DATA_HEADER,
    }
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// The FCS: CRC-32 (IEEE 802.3 polynomial, reflected), kept running over
/// pieces of the frame.
#[derive(Debug, Clone, Copy)]
pub struct Fcs(u32);

impl Default for Fcs {
    fn default() -> Self {
        Fcs(0xffff_ffff)
    }
}

impl Fcs {
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = CRC_TABLE[((self.0 ^ b as u32) & 0xff) as usize] ^ (self.0 >> 8);
        }
    }

    /// `n` zero bytes (an application payload hoplab does not carry).
    pub fn update_zeros(&mut self, n: usize) {
        for _ in 0..n {
            self.0 = CRC_TABLE[(self.0 & 0xff) as usize] ^ (self.0 >> 8);
        }
    }

    /// The four FCS bytes as they go on the air (least significant first).
    pub fn bytes(self) -> [u8; 4] {
        (!self.0).to_le_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: FrameKind) -> Frame {
        Frame {
            sequence: 0x123,
            ..Frame::new(kind, NodeId(0), NodeId(1), SimDuration::from_nanos(1_234_100), SimDuration::from_nanos(272_000))
        }
    }

    #[test]
    fn addresses_derive_from_the_node_id() {
        assert_eq!(mac_address(NodeId(0)), [2, 0, 0, 0, 0, 1]);
        assert_eq!(mac_address(NodeId(0x01ff)), [2, 0, 0, 0, 2, 0]);
        assert_eq!(mac_address(NodeId::BROADCAST), [0xff; 6]);
    }

    #[test]
    fn rtsc_is_an_rts_with_the_order_bit() {
        let mut buf = Vec::new();
        emit_header(&Frame { congestion_mark: true, ..frame(FrameKind::Rts) }, &mut buf);
        #[rustfmt::skip]
        let expected = [
            0xb4, 0x80,                         // RTS (type 1, subtype 11); flags: order
            0xd3, 0x04,                         // Duration 1234.1 us -> 1235 (0x04d3), LE
            0x02, 0x00, 0x00, 0x00, 0x00, 0x02, // RA: node 1
            0x02, 0x00, 0x00, 0x00, 0x00, 0x01, // TA: node 0
        ];
        assert_eq!(buf, expected);
        assert_eq!(buf.len() + FCS_LEN, crate::wire::ieee80211::RTS_BYTES as usize);
        buf.clear();
        emit_header(&frame(FrameKind::Rts), &mut buf);
        assert_eq!(buf[..2], [0xb4, 0x00], "a plain RTS has no order bit");
    }

    #[test]
    fn ctsc_ack_and_data_headers() {
        let mut buf = Vec::new();
        emit_header(&Frame { congestion_mark: true, ..frame(FrameKind::Cts) }, &mut buf);
        assert_eq!(buf, [0xc4, 0x80, 0xd3, 0x04, 2, 0, 0, 0, 0, 2]);
        assert_eq!(buf.len() + FCS_LEN, crate::wire::ieee80211::CTS_BYTES as usize);
        buf.clear();
        emit_header(&Frame { duration: SimDuration::ZERO, ..frame(FrameKind::Ack) }, &mut buf);
        assert_eq!(buf, [0xd4, 0x00, 0x00, 0x00, 2, 0, 0, 0, 0, 2]);
        buf.clear();
        // A congestion mark is never written on DATA; the retry bit is.
        emit_header(&Frame { retry: true, congestion_mark: true, receiver: NodeId::BROADCAST, ..frame(FrameKind::Data) }, &mut buf);
        #[rustfmt::skip]
        let expected = [
            0x08, 0x08,                         // DATA; flags: retry (ToDS = FromDS = 0: IBSS)
            0xd3, 0x04,                         // Duration
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Address 1: RA (broadcast)
            0x02, 0x00, 0x00, 0x00, 0x00, 0x01, // Address 2: TA, node 0
            0x02, 0x00, 0x00, 0x00, 0x00, 0x00, // Address 3: BSSID
            0x30, 0x12,                         // Sequence 0x123 << 4, fragment 0, LE
        ];
        assert_eq!(buf, expected);
        assert_eq!(buf.len() + FCS_LEN, crate::wire::ieee80211::DATA_HEADER_BYTES as usize);
    }

    #[test]
    fn durations_round_up_and_stay_below_the_aid_bit() {
        assert_eq!(duration_field(SimDuration::ZERO), 0);
        assert_eq!(duration_field(SimDuration::from_nanos(1)), 1);
        assert_eq!(duration_field(SimDuration::from_nanos(1000)), 1);
        assert_eq!(duration_field(SimDuration::from_secs_f64(1.0)), 32767);
    }

    #[test]
    fn fcs_is_crc32() {
        // The CRC-32 check value of "123456789".
        let mut fcs = Fcs::default();
        fcs.update(b"123456789");
        assert_eq!(fcs.bytes(), 0xcbf4_3926u32.to_le_bytes());
        let (mut a, mut b) = (Fcs::default(), Fcs::default());
        a.update(&[1, 2, 0, 0, 0]);
        b.update(&[1, 2]);
        b.update_zeros(3);
        assert_eq!(a.bytes(), b.bytes());
    }
}
