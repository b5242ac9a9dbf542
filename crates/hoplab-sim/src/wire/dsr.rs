//! DSR's header (RFC 4728 section 6) as a typed representation: the path a
//! packet carries (a data packet's source route, a Route Request's route
//! record, a Route Reply's route), the option it carries, the bytes they
//! add on the air, and `emit` of the options for packet traces.
//!
//! Every DSR packet carries one path of at most [`MAX_SR_LEN`] addresses
//! and walks it: a data packet from its first address to its last; a Route
//! Reply and a Route Error back from one of its addresses to the first.
//! A Route Reply's route is `[initiator, ..., replier, ..., target]`: the
//! reply travels the reverse of its part up to the replier (the target's
//! reply, a reply from a cache and a gratuitous reply all return a route
//! whose first part is the way they came, RFC 4728 8.2.4, 8.2.3, 8.4.3); a
//! Route Error's path is the failed packet's source route up to the node
//! that found the broken link, and it travels it back to its first node.
//! So one path and a position serve every message, and [`DsrHeader`] stays
//! small and `Copy` like the rest of the packet.
//!
//! Addresses are 16 bits in memory (`routing.protocol = "dsr"` takes at
//! most 65,535 nodes) and 4 bytes on the air (IPv4).
//!
//! Sizes (RFC 4728 section 6; the same as ns-2's `hdr_sr::size`,
//! hdr_sr.h:210-246, for data, Route Requests and Route Errors): the DSR
//! Options header, 4 bytes (6.1); a Source Route option, 4 bytes and 4 per
//! intermediate node (6.7); a Route Request option, 8 bytes and 4 per
//! recorded address (6.2); a Route Reply option, 3 bytes and 4 per address
//! after the initiator (6.3); a Route Error option, 16 bytes (6.4). A data
//! packet with a route of `n` addresses carries 4 + 4 + 4 (n - 2) = 4n
//! bytes more than without DSR.

use super::NodeId;

/// The longest path a DSR header carries, in addresses (ns-2
/// `MAX_SR_LEN`, dsr/hdr_sr.h:67): routes of at most 15 hops.
pub const MAX_SR_LEN: usize = 16;
/// The DSR Options header (RFC 4728 6.1).
pub const OPTIONS_HEADER_BYTES: u32 = 4;
/// Route Request option without its addresses (6.2).
pub const RREQ_OPTION_BYTES: u32 = 8;
/// Route Reply option without its addresses (6.3).
pub const RREP_OPTION_BYTES: u32 = 3;
/// Route Error option for an unreachable node (6.4).
pub const RERR_OPTION_BYTES: u32 = 16;
/// Source Route option without its addresses (6.7).
pub const SOURCE_ROUTE_OPTION_BYTES: u32 = 4;
/// Bytes of one address (IPv4).
pub const ADDRESS_BYTES: u32 = 4;
/// The IP protocol number of DSR (RFC 4728 6.1).
pub const PROTOCOL_DSR: u8 = 48;

/// A sequence of at most [`MAX_SR_LEN`] node addresses.
#[derive(Clone, Copy, Default)]
pub struct Path {
    addrs: [u16; MAX_SR_LEN],
    len: u8,
}

/// Paths are equal when their addresses are (what lies beyond the length
/// does not count).
impl PartialEq for Path {
    fn eq(&self, other: &Path) -> bool {
        self.addrs[..self.len()] == other.addrs[..other.len()]
    }
}

impl Eq for Path {}

impl std::fmt::Debug for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(|n| n.0)).finish()
    }
}

impl Path {
    /// The path of these nodes (at most [`MAX_SR_LEN`]; the rest are cut).
    pub fn of(nodes: &[NodeId]) -> Path {
        let mut p = Path::default();
        for &n in nodes {
            p.push(n);
        }
        p
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn is_full(&self) -> bool {
        self.len() == MAX_SR_LEN
    }

    /// The `i`-th address (`i < len`).
    pub fn get(&self, i: usize) -> NodeId {
        debug_assert!(i < self.len());
        NodeId(self.addrs[i] as u32)
    }

    pub fn first(&self) -> Option<NodeId> {
        (self.len > 0).then(|| self.get(0))
    }

    pub fn last(&self) -> Option<NodeId> {
        (self.len > 0).then(|| self.get(self.len() - 1))
    }

    /// Append `n`; false (and nothing changed) if the path is full.
    pub fn push(&mut self, n: NodeId) -> bool {
        if self.is_full() {
            return false;
        }
        debug_assert!(n.0 < u16::MAX as u32, "DSR addresses are 16 bits");
        self.addrs[self.len()] = n.0 as u16;
        self.len += 1;
        true
    }

    /// Keep the first `len` addresses.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len as u8);
    }

    /// The addresses `from..to`.
    pub fn slice(&self, from: usize, to: usize) -> Path {
        let mut p = Path::default();
        for i in from..to.min(self.len()) {
            p.push(self.get(i));
        }
        p
    }

    /// The addresses in reverse order.
    pub fn reversed(&self) -> Path {
        let mut p = *self;
        p.addrs[..self.len()].reverse();
        p
    }

    pub fn position(&self, n: NodeId) -> Option<usize> {
        self.iter().position(|m| m == n)
    }

    pub fn contains(&self, n: NodeId) -> bool {
        self.position(n).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.addrs[..self.len()].iter().map(|&a| NodeId(a as u32))
    }

    /// This path followed by `rest` (whose first address may repeat this
    /// path's last); None if the result would not fit.
    pub fn join(&self, rest: &Path) -> Option<Path> {
        let skip = usize::from(self.last().is_some() && self.last() == rest.first());
        if self.len() + rest.len() - skip > MAX_SR_LEN {
            return None;
        }
        let mut p = *self;
        for n in rest.iter().skip(skip) {
            p.push(n);
        }
        Some(p)
    }

    /// Remove every double back (`A B C B D` -> `A B D`), as ns-2's
    /// `compressPath` (dsr/path.cc:400-429): a reply from a cache must not
    /// return a route with a loop (RFC 4728 8.2.3).
    pub fn compress(&mut self) {
        let mut fp = 0;
        while fp < self.len() {
            let mut bp = self.len() - 1;
            while bp != fp {
                if self.addrs[fp] == self.addrs[bp] {
                    let (cut, len) = (bp - fp, self.len());
                    self.addrs.copy_within(bp..len, fp);
                    self.len -= cut as u8;
                    break;
                }
                bp -= 1;
            }
            fp += 1;
        }
    }

    /// Whether the link `a -> b` is on the path.
    pub fn has_link(&self, a: NodeId, b: NodeId) -> bool {
        (1..self.len()).any(|i| self.get(i - 1) == a && self.get(i) == b)
    }
}

/// The option a DSR header carries besides its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DsrOption {
    /// A data packet: `path` is its source route (6.7).
    SourceRoute,
    /// A Route Request (6.2): `path` is the route record, initiator first.
    /// `hop_limit` 0: non-propagating (8.2.1).
    Request { id: u16, target: NodeId, hop_limit: u8 },
    /// A Route Reply (6.3): `path` is the returned route; the reply was
    /// sent by `path[replier]` and travels back to `path[0]`.
    Reply { replier: u8, gratuitous: bool, from_cache: bool },
    /// A Route Error (6.4): the link `path.last() -> unreachable` broke;
    /// the error travels back along `path` to `path[0]`.
    Error { unreachable: NodeId },
}

/// The DSR header of a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DsrHeader {
    pub path: Path,
    pub option: DsrOption,
    /// Index, in the hops the packet walks ([`DsrHeader::hop`]), of the node
    /// that holds it (the sender advances it to the next hop, as ns-2's
    /// `cur_addr`).
    pub cur: u8,
    /// Times the packet was salvaged (6.7 Salvage field, 8.4.1).
    pub salvage: u8,
    /// A Route Request may carry the last Route Error its initiator
    /// received, the broken link `(from, to)` (8.2.1; ns-2
    /// `dsragent_propagate_last_error`).
    pub piggyback_error: Option<(NodeId, NodeId)>,
}

impl DsrHeader {
    /// A data packet's header: source route `path`, held by its first node.
    pub fn source_route(path: Path) -> DsrHeader {
        DsrHeader { path, option: DsrOption::SourceRoute, cur: 0, salvage: 0, piggyback_error: None }
    }

    /// The number of nodes the packet walks (the hops plus one); 0 for a
    /// Route Request (it is broadcast).
    pub fn walk_len(&self) -> usize {
        match self.option {
            DsrOption::SourceRoute => self.path.len(),
            DsrOption::Reply { replier, .. } => replier as usize + 1,
            DsrOption::Error { .. } => self.path.len(),
            DsrOption::Request { .. } => 0,
        }
    }

    /// The `i`-th node of the walk (`i < walk_len`).
    pub fn hop(&self, i: usize) -> NodeId {
        match self.option {
            DsrOption::SourceRoute | DsrOption::Request { .. } => self.path.get(i),
            DsrOption::Reply { replier, .. } => self.path.get(replier as usize - i),
            DsrOption::Error { .. } => self.path.get(self.path.len() - 1 - i),
        }
    }

    /// The walk as a path (the source route the packet carries on the air).
    pub fn walk(&self) -> Path {
        let mut p = Path::default();
        for i in 0..self.walk_len() {
            p.push(self.hop(i));
        }
        p
    }

    /// The next node of the walk after the holder, if any.
    pub fn next_hop(&self) -> Option<NodeId> {
        let next = self.cur as usize + 1;
        (next < self.walk_len()).then(|| self.hop(next))
    }

    /// The message's name in reports ("rreq", "rrep", "rerr"); None for data.
    pub fn name(&self) -> Option<&'static str> {
        match self.option {
            DsrOption::SourceRoute => None,
            DsrOption::Request { .. } => Some("rreq"),
            DsrOption::Reply { .. } => Some("rrep"),
            DsrOption::Error { .. } => Some("rerr"),
        }
    }

    /// Every name [`name`](Self::name) gives, in report order.
    pub const NAMES: [&'static str; 3] = ["rreq", "rrep", "rerr"];

    /// Bytes of a Source Route option over `walk` nodes: none for one hop
    /// (a packet to a neighbour needs no route), else 4 and 4 per
    /// intermediate node (6.7).
    fn source_route_bytes(walk: usize) -> u32 {
        if walk < 2 {
            0
        } else {
            SOURCE_ROUTE_OPTION_BYTES + ADDRESS_BYTES * (walk as u32 - 2)
        }
    }

    /// Bytes of the DSR header on the air: the Options header and the
    /// options, padded to a multiple of 4 (6.1).
    pub fn buffer_len(&self) -> u32 {
        let walk = self.walk_len();
        let body = match self.option {
            DsrOption::SourceRoute => Self::source_route_bytes(walk).max(SOURCE_ROUTE_OPTION_BYTES),
            DsrOption::Request { .. } => {
                // The route record holds every node after the initiator.
                let error = if self.piggyback_error.is_some() { RERR_OPTION_BYTES } else { 0 };
                RREQ_OPTION_BYTES + ADDRESS_BYTES * (self.path.len().max(1) as u32 - 1) + error
            }
            DsrOption::Reply { .. } => {
                Self::source_route_bytes(walk) + RREP_OPTION_BYTES + ADDRESS_BYTES * (self.path.len().max(1) as u32 - 1)
            }
            DsrOption::Error { .. } => Self::source_route_bytes(walk) + RERR_OPTION_BYTES,
        };
        (OPTIONS_HEADER_BYTES + body + 3) & !3
    }

    /// Write the DSR Options header and options (RFC 4728 section 6) into
    /// `buf` (at least `buffer_len` bytes): for packet traces.
    pub fn emit(&self, buf: &mut [u8], payload_protocol: u8) {
        let len = self.buffer_len() as usize;
        buf[..len].fill(0);
        buf[0] = payload_protocol;
        buf[2..4].copy_from_slice(&((len - 4) as u16).to_be_bytes());
        let mut at = 4;
        let addr = |buf: &mut [u8], at: &mut usize, n: NodeId| {
            buf[*at..*at + 4].copy_from_slice(&ipv4(n).to_be_bytes());
            *at += 4;
        };
        match self.option {
            DsrOption::Request { id, target, .. } => {
                let n = self.path.len().saturating_sub(1);
                buf[at] = 1;
                buf[at + 1] = (6 + 4 * n) as u8;
                buf[at + 2..at + 4].copy_from_slice(&id.to_be_bytes());
                at += 4;
                addr(buf, &mut at, target);
                for node in self.path.iter().skip(1) {
                    addr(buf, &mut at, node);
                }
                if let Some((from, to)) = self.piggyback_error {
                    self.emit_error(buf, &mut at, from, to);
                }
            }
            DsrOption::Reply { .. } => {
                at = self.emit_source_route(buf, at);
                let n = self.path.len().saturating_sub(1);
                buf[at] = 2;
                buf[at + 1] = (1 + 4 * n) as u8;
                at += 3;
                for node in self.path.iter().skip(1) {
                    addr(buf, &mut at, node);
                }
            }
            DsrOption::Error { unreachable } => {
                at = self.emit_source_route(buf, at);
                let from = self.path.last().unwrap_or_default();
                self.emit_error(buf, &mut at, from, unreachable);
            }
            DsrOption::SourceRoute => {
                self.emit_source_route(buf, at);
            }
        }
    }

    fn emit_source_route(&self, buf: &mut [u8], mut at: usize) -> usize {
        let walk = self.walk_len();
        if walk < 2 {
            return at;
        }
        buf[at] = 96;
        buf[at + 1] = (2 + 4 * (walk - 2)) as u8;
        buf[at + 2] = self.salvage & 0x0F;
        buf[at + 3] = (walk - 1 - (self.cur as usize).min(walk - 1)) as u8;
        at += 4;
        for i in 1..walk - 1 {
            buf[at..at + 4].copy_from_slice(&ipv4(self.hop(i)).to_be_bytes());
            at += 4;
        }
        at
    }

    fn emit_error(&self, buf: &mut [u8], at: &mut usize, from: NodeId, to: NodeId) {
        buf[*at] = 3;
        buf[*at + 1] = 14;
        buf[*at + 2] = 1; // NODE_UNREACHABLE
        buf[*at + 3] = self.salvage & 0x0F;
        buf[*at + 4..*at + 8].copy_from_slice(&ipv4(from).to_be_bytes());
        buf[*at + 8..*at + 12].copy_from_slice(&ipv4(self.path.first().unwrap_or_default()).to_be_bytes());
        buf[*at + 12..*at + 16].copy_from_slice(&ipv4(to).to_be_bytes());
        *at += 16;
    }
}

/// Node `i` is IPv4 10.0.0.0 + i + 1 on the wire (as `wire::aodv`).
fn ipv4(node: NodeId) -> u32 {
    0x0A00_0001u32.wrapping_add(node.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(nodes: &[u32]) -> Path {
        Path::of(&nodes.iter().map(|&n| NodeId(n)).collect::<Vec<_>>())
    }

    #[test]
    fn a_data_packet_carries_four_bytes_per_address() {
        for n in 2..=MAX_SR_LEN {
            let nodes: Vec<u32> = (0..n as u32).collect();
            assert_eq!(DsrHeader::source_route(path(&nodes)).buffer_len(), 4 * n as u32, "{n} addresses");
        }
    }

    #[test]
    fn control_sizes_follow_section_6() {
        let rreq = |p: &[u32]| DsrHeader {
            path: path(p),
            option: DsrOption::Request { id: 1, target: NodeId(9), hop_limit: 255 },
            cur: 0,
            salvage: 0,
            piggyback_error: None,
        };
        assert_eq!(rreq(&[0]).buffer_len(), 4 + 8);
        assert_eq!(rreq(&[0, 1, 2]).buffer_len(), 4 + 8 + 8);
        let with_error = DsrHeader { piggyback_error: Some((NodeId(3), NodeId(4))), ..rreq(&[0]) };
        assert_eq!(with_error.buffer_len(), 4 + 8 + 16);
        // The target's reply over 3 hops: source route 4 + 2 x 4, reply 3 + 3 x 4, padded.
        let rrep = DsrHeader {
            path: path(&[0, 1, 2, 3]),
            option: DsrOption::Reply { replier: 3, gratuitous: false, from_cache: false },
            cur: 0,
            salvage: 0,
            piggyback_error: None,
        };
        assert_eq!(rrep.buffer_len(), 4 + 12 + 16);
        let rerr = DsrHeader { path: path(&[0, 1, 2]), option: DsrOption::Error { unreachable: NodeId(3) }, ..rrep };
        assert_eq!(rerr.buffer_len(), 4 + 8 + 16);
    }

    #[test]
    fn replies_and_errors_walk_back() {
        let rrep = DsrHeader {
            path: path(&[0, 1, 2, 3, 4]),
            option: DsrOption::Reply { replier: 2, gratuitous: false, from_cache: true },
            cur: 0,
            salvage: 0,
            piggyback_error: None,
        };
        assert_eq!(rrep.walk(), path(&[2, 1, 0]));
        assert_eq!(rrep.next_hop(), Some(NodeId(1)));
        let rerr = DsrHeader { path: path(&[5, 6, 7]), option: DsrOption::Error { unreachable: NodeId(8) }, ..rrep };
        assert_eq!(rerr.walk(), path(&[7, 6, 5]));
    }

    #[test]
    fn compress_removes_double_backs_and_join_fits() {
        let mut p = path(&[1, 2, 3, 2, 4]);
        p.compress();
        assert_eq!(p, path(&[1, 2, 4]));
        let mut q = path(&[1, 2, 3, 4, 1, 5]);
        q.compress();
        assert_eq!(q, path(&[1, 5]));
        assert_eq!(path(&[1, 2]).join(&path(&[2, 3])), Some(path(&[1, 2, 3])));
        let long: Vec<u32> = (0..16).collect();
        assert_eq!(path(&long).join(&path(&[15, 16])), None);
        assert!(path(&[1, 2, 3]).has_link(NodeId(2), NodeId(3)));
        assert!(!path(&[1, 2, 3]).has_link(NodeId(3), NodeId(2)));
    }

    #[test]
    fn emit_writes_the_options_length() {
        let h = DsrHeader::source_route(path(&[0, 1, 2, 3]));
        let mut buf = [0xAAu8; 80];
        h.emit(&mut buf, 6);
        assert_eq!(buf[0], 6);
        assert_eq!(u16::from_be_bytes([buf[2], buf[3]]) as u32, h.buffer_len() - 4);
        assert_eq!(buf[4], 96, "Source Route option type");
    }
}
