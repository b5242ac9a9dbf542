//! Route maintenance (impl World): link breaks learnt from the MAC's
//! retry-limit failures or from HELLO loss, RERR origination (RFC 3561
//! section 6.11 case (i)), local repair (6.12), the HELLO timer (6.9), and
//! the dispatch of AODV's timers.

use crate::wire::aodv::{AodvMessage, Rrep};
use super::table::RouteState;
use super::{Repair, RoutingTimerKind, SeqNumber};
use crate::mac::BROADCAST;
use crate::net::{NodeId, Packet};
use crate::loss::DropCause;
use crate::time::{SimDuration, SimTime};
use crate::world::{Event, Layer, World};

impl World {
    /// on_link_failure: the MAC gave up on `packet` toward `next_hop`.
    pub(crate) fn aodv_link_failure(&mut self, node: NodeId, packet: &Packet, next_hop: NodeId) {
        let now = self.now();
        let p = &self.aodv().params;
        let (feedback, blacklist, blacklist_timeout) = (p.link_layer_feedback, p.blacklist_on_rrep_failure, p.blacklist_timeout);
        if packet.is_control() {
            // ns-2's rt_ll_failed: a failed routing packet is just dropped;
            // 6.8: a failed RREP may blacklist its next hop.
            if blacklist && matches!(packet.aodv(), Some(AodvMessage::Rrep(r)) if !r.is_hello()) {
                self.aodv().nodes[node.index()].neighbours.blacklist(next_hop, now + blacklist_timeout);
            }
            return;
        }
        if !feedback {
            return;
        }
        self.flows[packet.flow as usize].stats.route_breaks += 1;
        self.aodv_break_link(node, next_hop, Some(packet));
    }

    /// The link from `node` to neighbour `n` is broken (6.11 case (i)):
    /// invalidate the routes through `n`, take back the packets queued
    /// toward it, repair locally if enabled, and send a RERR for the
    /// destinations that neighbours still use.
    pub(crate) fn aodv_break_link(&mut self, node: NodeId, n: NodeId, failed: Option<&Packet>) {
        let now = self.now();
        let (local_repair, max_repair_ttl) = {
            let p = &self.aodv().params;
            (p.local_repair, p.max_repair_ttl)
        };
        let mut lost = Vec::new();
        {
            let a = &mut self.aodv().nodes[node.index()];
            a.stats.link_breaks += 1;
            a.table.break_link(n, now, &mut lost);
        }
        let queued = self.mac_take_queued_toward(node, n);

        // 6.12: repair the destinations of forwarded packets caught by the
        // break, if they were at most MAX_REPAIR_TTL hops away.
        let mut repairs: Vec<(NodeId, Repair)> = Vec::new();
        if local_repair {
            let forwarded = failed.into_iter().chain(queued.iter()).filter(|q| !q.is_control() && q.src != node);
            for q in forwarded {
                if repairs.iter().any(|(d, _)| *d == q.dst) {
                    continue;
                }
                let Some(u) = lost.iter().find(|u| u.dst == q.dst) else { continue };
                if u.hops > max_repair_ttl {
                    continue;
                }
                let a = &mut self.aodv().nodes[node.index()];
                let hops_to_source = a.table.get(q.src, now).map_or(0, |e| e.hops);
                if let Some(e) = a.table.get_mut(q.dst, now) {
                    e.state = RouteState::InRepair;
                }
                repairs.push((q.dst, Repair { previous_hops: u.hops, hops_to_source }));
            }
        }

        // The packets that were waiting for the broken link.
        let mut own_destinations: Vec<NodeId> = Vec::new();
        for q in &queued {
            if q.is_control() {
                self.drop_packet(node, q, DropCause::RouteBreak);
            } else if q.src == node {
                if !own_destinations.contains(&q.dst) {
                    own_destinations.push(q.dst);
                }
                self.aodv_buffer(node, *q);
            } else if repairs.iter().any(|(d, _)| *d == q.dst) {
                self.aodv_buffer(node, *q);
            } else {
                self.drop_packet(node, q, DropCause::RouteBreak);
            }
        }

        // 6.11: a RERR for the lost destinations that have precursors (those
        // under repair wait for its outcome).
        let unreachable: Vec<(NodeId, SeqNumber)> =
            lost.iter().filter(|u| u.has_precursors && !repairs.iter().any(|(d, _)| *d == u.dst)).map(|u| (u.dst, u.seq)).collect();
        if !unreachable.is_empty() {
            self.aodv_send_rerr(node, &unreachable, false);
        }
        for (dst, repair) in repairs {
            self.aodv_start_discovery(node, dst, Some(repair));
        }
        for dst in own_destinations {
            self.aodv_start_discovery(node, dst, None);
        }
        self.hop_update(node);
    }

    /// The HELLO timer (6.9): broadcast a HELLO if the node is on an active
    /// route and has broadcast nothing for HELLO_INTERVAL; then declare
    /// lost the links to HELLO neighbours silent for too long.
    fn aodv_hello_timer(&mut self, node: NodeId) {
        let now = self.now();
        let p = self.aodv().params.clone();
        let n = &mut self.aodv().nodes[node.index()];
        if n.hello_at != now {
            return;
        }
        // The next HELLO comes a little early, by a jitter of up to
        // `broadcast_jitter_ms` (at most half the interval): neighbours'
        // phases drift apart, so hidden HELLOs do not collide period after
        // period, and no gap exceeds HELLO_INTERVAL, so one lost HELLO
        // never breaks a link.
        let max_jitter = p.broadcast_jitter.min(SimDuration::from_nanos(p.hello_interval.as_nanos() / 2));
        let jitter = SimDuration::from_nanos((n.rng.uniform_f64() * max_jitter.as_nanos() as f64) as u64);
        let next = now + (p.hello_interval - jitter);
        n.hello_at = next;
        self.queue.schedule(next, Event::new(node.0, Layer::Routing, RoutingTimerKind::Hello as u32));
        let n = &mut self.aodv().nodes[node.index()];
        let quiet = match n.last_broadcast {
            Some(t) => now.since(t) >= p.hello_interval,
            None => true,
        };
        if quiet && n.table.has_active_route(now) {
            let hello = Rrep {
                ack_required: false,
                hop_count: 0,
                dst: node,
                dst_seq: n.own_seq,
                orig: node,
                lifetime_ms: (p.hello_loss_time().as_nanos() / 1_000_000) as u32,
            };
            self.aodv_send_control(node, AodvMessage::Rrep(hello), BROADCAST, 1, false);
        }
        let mut lost = Vec::new();
        self.aodv().nodes[node.index()].neighbours.lost_links(now, p.hello_loss_time(), p.delete_period, &mut lost);
        for neighbour in lost {
            self.aodv_break_link(node, neighbour, None);
        }
    }

    /// Arm every node's HELLO timer at a random phase of HELLO_INTERVAL
    /// (from the node's routing stream), when HELLOs are enabled.
    pub(crate) fn aodv_start_hellos(&mut self) {
        if !self.aodv().params.hello {
            return;
        }
        let interval = self.aodv().params.hello_interval;
        for i in 0..self.nodes.len() {
            let n = &mut self.aodv().nodes[i];
            let at = SimTime::ZERO + SimDuration::from_nanos((n.rng.uniform_f64() * interval.as_nanos() as f64) as u64);
            n.hello_at = at;
            self.queue.schedule(at, Event::new(i as u32, Layer::Routing, RoutingTimerKind::Hello as u32));
        }
    }

    /// on_timer: an AODV timer of `node` fired.
    pub(crate) fn aodv_timer(&mut self, node: NodeId, kind: RoutingTimerKind, arg: u32) {
        match kind {
            RoutingTimerKind::Discovery => self.aodv_discovery_timer(node, NodeId(arg)),
            RoutingTimerKind::Hello => self.aodv_hello_timer(node),
            RoutingTimerKind::Send => self.aodv_send_parked(node, arg),
        }
    }
}
