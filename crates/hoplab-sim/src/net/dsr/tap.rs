//! Promiscuous listening (RFC 4728 8.1.4) and automatic route shortening
//! with gratuitous Route Replies (8.4.3), as ns-2's `DSRAgent::tap`
//! (dsragent.cc:2015-2160) and `sendRouteShortening` (2171-2238).
//!
//! The MAC hands routing every unicast DATA frame it decodes that is for
//! another node (`promiscuous`). From each packet (once: retries and
//! copies are filtered by uid, as ns-2's `DSR_FILTER_TAP`), the node
//! applies a Route Error, caches the route the packet walks from the
//! transmitter on (with itself in front: it heard the transmitter) or the
//! part after itself, and, when it is on a data packet's route further
//! down than the intended receiver, tells the packet's source the shorter
//! route that skips the hops in between.

use super::cache::CachePart;
use super::{DsrNode, Out};
use crate::net::routing::RoutingContext;
use crate::time::SimTime;
use crate::wire::dsr::{DsrHeader, DsrOption, Path};
use crate::wire::{NodeId, Packet};

impl DsrNode {
    /// A unicast packet from `from` to another node was overheard.
    pub(crate) fn overheard(&mut self, now: SimTime, packet: &Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let me = ctx.node;
        let Some(&header) = packet.dsr() else { return };
        if !self.config.promiscuous || matches!(header.option, DsrOption::Request { .. }) {
            return;
        }
        let receiver = header.cur as usize;
        if receiver >= header.walk_len() || header.hop(receiver) == me || packet.src == me || self.tap_seen_before(packet.uid) {
            return;
        }
        let _ = from;
        match header.option {
            DsrOption::Error { unreachable } => {
                if let Some(a) = header.path.last() {
                    self.cache.dead_link(a, unreachable);
                }
            }
            DsrOption::Reply { .. } => {
                // An overheard reply teaches the part of its route after
                // this node (routecache.cc:215-246 with the reply's index 0).
                if let Some(at) = header.path.position(me).filter(|&i| i + 1 < header.path.len()) {
                    self.cache.add(&header.path.slice(at, header.path.len()), CachePart::Secondary, now);
                }
            }
            _ => {}
        }
        let walk = header.walk();
        self.snoop_overheard(now, &walk, receiver, me);
        if header.option == DsrOption::SourceRoute && self.config.gratuitous_replies {
            // No route shortening on routing packets (dsragent.cc:2099).
            if let Some(at) = (receiver + 1..walk.len()).find(|&i| walk.get(i) == me) {
                self.send_route_shortening(now, &walk, receiver, at, ctx, out);
            }
        }
        self.route_learnt(now, ctx, out);
    }

    /// Cache what an overheard walk teaches (routecache.cc:203-262): the
    /// part after this node if it is on it; else this node, the
    /// transmitter (`walk[receiver - 1]`) and the rest.
    fn snoop_overheard(&mut self, now: SimTime, walk: &Path, receiver: usize, me: NodeId) {
        let stub = match walk.position(me) {
            Some(at) if at + 1 < walk.len() => walk.slice(at, walk.len()),
            Some(_) => return,
            None if receiver >= 1 => {
                let mut stub = Path::of(&[me]);
                for n in walk.slice(receiver - 1, walk.len()).iter() {
                    if !stub.push(n) {
                        break;
                    }
                }
                stub
            }
            None => return,
        };
        self.cache.add(&stub, CachePart::Secondary, now);
    }

    /// This node (`walk[at]`) overheard the packet on its way to
    /// `walk[receiver]`: the hops `receiver..at` can go. Send the walk's
    /// source a gratuitous reply with the shorter route, back along the
    /// way the packet came, at most once per GratReplyHoldoff per route.
    fn send_route_shortening(&mut self, now: SimTime, walk: &Path, receiver: usize, at: usize, ctx: &mut RoutingContext, out: &mut Out) {
        if self.grat_held_down(walk, now) {
            return;
        }
        let mut shorter = walk.slice(0, receiver);
        for n in walk.slice(at, walk.len()).iter() {
            shorter.push(n);
        }
        // The way back (this node, the transmitter, ..., the source) is
        // cached too (dsragent.cc:2235-2236).
        let back = shorter.slice(0, receiver + 1).reversed();
        self.cache.add(&back, CachePart::Primary, now);
        let header = DsrHeader {
            path: shorter,
            option: DsrOption::Reply { replier: receiver as u8, gratuitous: true, from_cache: false },
            cur: 1,
            salvage: 0,
            piggyback_error: None,
        };
        let Some(next_hop) = (receiver >= 1).then(|| header.hop(1)) else { return };
        let packet = self.control_packet(header, walk.get(0), now, ctx);
        self.dsr_stats.gratuitous_replies += 1;
        self.send_control(now, packet, next_hop, false, ctx, out);
    }
}
