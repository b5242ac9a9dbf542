//! AODV message formats (RFC 3561 section 5) as typed representations
//! (`Repr` in smoltcp's terms): the fields that change behaviour, the size
//! that sets airtime, and `emit` / `parse` of the wire format for traces.
//!
//! Sizes: RREQ 24 bytes (5.1), RREP 20 (5.2), RERR 4 + 8 per unreachable
//! destination (5.3); a HELLO is a RREP (6.9). Each travels in UDP (8
//! bytes, port 654) over IPv4 (20 bytes).
//!
//! Addresses: node `i` is IPv4 10.0.0.0 + i + 1 on the wire.

use super::seqno::SeqNumber;
use super::NodeId;

/// RREQ: type, flags, hop count, RREQ ID, destination and originator
/// addresses and sequence numbers (section 5.1).
pub const RREQ_BYTES: u32 = 24;
/// RREP: type, flags, prefix size, hop count, destination, its sequence
/// number, originator, lifetime (section 5.2).
pub const RREP_BYTES: u32 = 20;
/// RERR header: type, N flag, DestCount (section 5.3).
pub const RERR_HEADER_BYTES: u32 = 4;
/// RERR: per unreachable destination, its address and sequence number.
pub const RERR_BYTES_PER_DESTINATION: u32 = 8;
/// The UDP port of AODV (section 6).
pub const AODV_PORT: u16 = 654;

/// Unreachable destinations carried inline in one RERR; a node with more
/// sends several RERRs (the simulator moves fixed-size headers).
pub const RERR_INLINE_DESTINATIONS: usize = 3;

/// Route Request (section 5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rreq {
    /// 'G': an intermediate node that answers also sends a gratuitous RREP
    /// to the destination (6.6.3).
    pub gratuitous: bool,
    /// 'D': only the destination may answer (6.5).
    pub destination_only: bool,
    /// 'U': the destination sequence number is unknown (6.3).
    pub unknown_seq: bool,
    /// Hops from the originator to the node handling the request.
    pub hop_count: u8,
    /// With the originator, identifies the request (6.3).
    pub id: u32,
    pub dst: NodeId,
    pub dst_seq: SeqNumber,
    pub orig: NodeId,
    pub orig_seq: SeqNumber,
}

/// Route Reply (section 5.2); also the HELLO message (6.9), recognised by
/// `dst == orig`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rrep {
    /// 'A': acknowledgment required (5.4; not used).
    pub ack_required: bool,
    /// Hops to the destination from the node sending this RREP.
    pub hop_count: u8,
    pub dst: NodeId,
    pub dst_seq: SeqNumber,
    pub orig: NodeId,
    /// Milliseconds the receivers may consider the route valid.
    pub lifetime_ms: u32,
}

impl Rrep {
    /// A HELLO message is a RREP about the sender itself (6.9).
    pub fn is_hello(&self) -> bool {
        self.dst == self.orig
    }
}

/// Route Error (section 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rerr {
    /// 'N': a local repair is under way; upstream nodes keep the route (6.12).
    pub no_delete: bool,
    /// DestCount: valid entries of `destinations` (at least 1).
    pub count: u8,
    pub destinations: [(NodeId, SeqNumber); RERR_INLINE_DESTINATIONS],
}

impl Rerr {
    pub fn new(no_delete: bool) -> Rerr {
        Rerr { no_delete, count: 0, destinations: [(NodeId(0), SeqNumber(0)); RERR_INLINE_DESTINATIONS] }
    }

    /// Add an unreachable destination; false if this RERR is full.
    pub fn push(&mut self, dst: NodeId, seq: SeqNumber) -> bool {
        if self.count as usize >= RERR_INLINE_DESTINATIONS {
            return false;
        }
        self.destinations[self.count as usize] = (dst, seq);
        self.count += 1;
        true
    }

    pub fn unreachable(&self) -> &[(NodeId, SeqNumber)] {
        &self.destinations[..self.count as usize]
    }
}

/// An AODV control message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AodvMessage {
    Rreq(Rreq),
    Rrep(Rrep),
    Rerr(Rerr),
}

/// Why bytes did not parse as an AODV message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    Truncated,
    UnknownType(u8),
    /// A RERR with no destination, or more than the simulator carries inline.
    BadDestCount(u8),
}

fn node_ipv4(node: NodeId) -> u32 {
    0x0A00_0001u32.wrapping_add(node.0)
}

fn ipv4_node(addr: u32) -> NodeId {
    NodeId(addr.wrapping_sub(0x0A00_0001))
}

fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

impl AodvMessage {
    /// Bytes of the AODV message (without UDP and IP headers).
    pub fn buffer_len(&self) -> u32 {
        match self {
            AodvMessage::Rreq(_) => RREQ_BYTES,
            AodvMessage::Rrep(_) => RREP_BYTES,
            AodvMessage::Rerr(e) => RERR_HEADER_BYTES + RERR_BYTES_PER_DESTINATION * e.count as u32,
        }
    }

    /// Every name [`name`](Self::name) gives, in report order.
    pub const NAMES: [&'static str; 4] = ["rreq", "rrep", "rerr", "hello"];

    pub fn name(&self) -> &'static str {
        match self {
            AodvMessage::Rreq(_) => "rreq",
            AodvMessage::Rrep(r) if r.is_hello() => "hello",
            AodvMessage::Rrep(_) => "rrep",
            AodvMessage::Rerr(_) => "rerr",
        }
    }

    /// Write the wire format into `buf` (at least `buffer_len` bytes).
    pub fn emit(&self, buf: &mut [u8]) {
        let len = self.buffer_len() as usize;
        buf[..len].fill(0);
        match self {
            AodvMessage::Rreq(q) => {
                buf[0] = 1;
                buf[1] = (u8::from(q.gratuitous) << 5) | (u8::from(q.destination_only) << 4) | (u8::from(q.unknown_seq) << 3);
                buf[3] = q.hop_count;
                put_u32(buf, 4, q.id);
                put_u32(buf, 8, node_ipv4(q.dst));
                put_u32(buf, 12, q.dst_seq.0);
                put_u32(buf, 16, node_ipv4(q.orig));
                put_u32(buf, 20, q.orig_seq.0);
            }
            AodvMessage::Rrep(p) => {
                buf[0] = 2;
                buf[1] = u8::from(p.ack_required) << 6;
                buf[3] = p.hop_count;
                put_u32(buf, 4, node_ipv4(p.dst));
                put_u32(buf, 8, p.dst_seq.0);
                put_u32(buf, 12, node_ipv4(p.orig));
                put_u32(buf, 16, p.lifetime_ms);
            }
            AodvMessage::Rerr(e) => {
                buf[0] = 3;
                buf[1] = u8::from(e.no_delete) << 7;
                buf[3] = e.count;
                for (i, (dst, seq)) in e.unreachable().iter().enumerate() {
                    put_u32(buf, 4 + 8 * i, node_ipv4(*dst));
                    put_u32(buf, 8 + 8 * i, seq.0);
                }
            }
        }
    }

    /// Read a message written by [`AodvMessage::emit`].
    pub fn parse(buf: &[u8]) -> Result<AodvMessage, ParseError> {
        let need = |n: usize| if buf.len() < n { Err(ParseError::Truncated) } else { Ok(()) };
        need(4)?;
        match buf[0] {
            1 => {
                need(RREQ_BYTES as usize)?;
                Ok(AodvMessage::Rreq(Rreq {
                    gratuitous: buf[1] & 0x20 != 0,
                    destination_only: buf[1] & 0x10 != 0,
                    unknown_seq: buf[1] & 0x08 != 0,
                    hop_count: buf[3],
                    id: get_u32(buf, 4),
                    dst: ipv4_node(get_u32(buf, 8)),
                    dst_seq: SeqNumber(get_u32(buf, 12)),
                    orig: ipv4_node(get_u32(buf, 16)),
                    orig_seq: SeqNumber(get_u32(buf, 20)),
                }))
            }
            2 => {
                need(RREP_BYTES as usize)?;
                Ok(AodvMessage::Rrep(Rrep {
                    ack_required: buf[1] & 0x40 != 0,
                    hop_count: buf[3],
                    dst: ipv4_node(get_u32(buf, 4)),
                    dst_seq: SeqNumber(get_u32(buf, 8)),
                    orig: ipv4_node(get_u32(buf, 12)),
                    lifetime_ms: get_u32(buf, 16),
                }))
            }
            3 => {
                let count = buf[3];
                if count == 0 || count as usize > RERR_INLINE_DESTINATIONS {
                    return Err(ParseError::BadDestCount(count));
                }
                need((RERR_HEADER_BYTES + RERR_BYTES_PER_DESTINATION * count as u32) as usize)?;
                let mut e = Rerr::new(buf[1] & 0x80 != 0);
                for i in 0..count as usize {
                    e.push(ipv4_node(get_u32(buf, 4 + 8 * i)), SeqNumber(get_u32(buf, 8 + 8 * i)));
                }
                Ok(AodvMessage::Rerr(e))
            }
            t => Err(ParseError::UnknownType(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(m: AodvMessage) {
        let mut buf = [0xAAu8; 64];
        m.emit(&mut buf);
        assert_eq!(AodvMessage::parse(&buf[..m.buffer_len() as usize]), Ok(m));
    }

    #[test]
    fn sizes_are_section_5s() {
        let q = Rreq {
            gratuitous: true,
            destination_only: false,
            unknown_seq: true,
            hop_count: 3,
            id: 77,
            dst: NodeId(9),
            dst_seq: SeqNumber(0),
            orig: NodeId(1),
            orig_seq: SeqNumber(u32::MAX),
        };
        assert_eq!(AodvMessage::Rreq(q).buffer_len(), 24);
        round_trip(AodvMessage::Rreq(q));
        let p = Rrep { ack_required: false, hop_count: 2, dst: NodeId(9), dst_seq: SeqNumber(12), orig: NodeId(1), lifetime_ms: 6000 };
        assert_eq!(AodvMessage::Rrep(p).buffer_len(), 20);
        round_trip(AodvMessage::Rrep(p));
        let mut e = Rerr::new(true);
        assert!(e.push(NodeId(4), SeqNumber(5)));
        assert!(e.push(NodeId(6), SeqNumber(7)));
        assert_eq!(AodvMessage::Rerr(e).buffer_len(), 4 + 2 * 8);
        round_trip(AodvMessage::Rerr(e));
    }

    #[test]
    fn rerr_is_bounded_and_hello_is_a_rrep_about_oneself() {
        let mut e = Rerr::new(false);
        for i in 0..RERR_INLINE_DESTINATIONS as u32 {
            assert!(e.push(NodeId(i), SeqNumber(i)));
        }
        assert!(!e.push(NodeId(99), SeqNumber(1)));
        let hello = Rrep { ack_required: false, hop_count: 0, dst: NodeId(3), dst_seq: SeqNumber(4), orig: NodeId(3), lifetime_ms: 2000 };
        assert!(hello.is_hello());
        assert_eq!(AodvMessage::Rrep(hello).name(), "hello");
        assert_eq!(AodvMessage::parse(&[9, 0, 0, 0]), Err(ParseError::UnknownType(9)));
        assert_eq!(AodvMessage::parse(&[1, 0, 0]), Err(ParseError::Truncated));
        assert_eq!(AodvMessage::parse(&[3, 0, 0, 0]), Err(ParseError::BadDestCount(0)));
    }
}
