//! Route maintenance: link breaks learnt from the MAC's retry-limit
//! failures or from HELLO loss, RERR origination (RFC 3561 section 6.11
//! case (i)), local repair (6.12), the HELLO timer (6.9).

use super::config::LocalRepairRule;
use super::table::RouteState;
use super::{AodvNode, AodvTimer, Out, Repair, SeqNumber};
use crate::loss::DropCause;
use crate::net::routing::{RoutingContext, RoutingOutput};
use crate::time::{SimDuration, SimTime};
use crate::wire::aodv::{AodvMessage, Rrep};
use crate::wire::{NodeId, Packet};

impl AodvNode {
    /// on_link_failure: the MAC gave up on `packet` toward `next_hop`. A
    /// data packet's failure breaks the link (link-layer feedback, as
    /// ns-2's `rt_ll_failed`), or, with ns-2's local repair, starts a
    /// repair for its destination; a failed routing packet is just dropped
    /// (6.8: a failed RREP may blacklist its next hop). `lost`: the cause
    /// the packet is lost with unless AODV keeps it (only when it salvages,
    /// i.e. with ns-2's local repair; None: the next hop holds it).
    pub(crate) fn link_failure(
        &mut self,
        now: SimTime,
        packet: &Packet,
        next_hop: NodeId,
        lost: Option<DropCause>,
        ctx: &mut RoutingContext,
        out: &mut Out,
    ) {
        if !packet.is_control() && self.ns2_repairs(now, packet) {
            return self.ns2_repair(now, packet, lost, ctx, out);
        }
        if let Some(cause) = lost {
            out.push(RoutingOutput::Drop { packet: *packet, cause });
        }
        if packet.is_control() {
            let rrep = matches!(packet.aodv(), Some(AodvMessage::Rrep(r)) if !r.is_hello());
            if self.config.blacklist_on_rrep_failure && rrep {
                self.neighbours.blacklist(next_hop, now + self.config.blacklist_timeout());
            }
            return;
        }
        if self.config.link_layer_feedback {
            out.push(RoutingOutput::LinkBroken { neighbour: next_hop, failed: Some(*packet) });
        }
    }

    /// Whether ns-2's local repair ([`LocalRepairRule::Ns2`]) is on.
    pub(crate) fn ns2_local_repair(&self) -> bool {
        self.config.local_repair && self.config.local_repair_rule == LocalRepairRule::Ns2
    }

    /// ns-2's `rt_ll_failed` (aodv/aodv.cc:325-331): a data packet that has
    /// travelled more hops than its route to the destination has left
    /// (`num_forwards() > rt_hops`; a route that is down has no hops).
    fn ns2_repairs(&mut self, now: SimTime, packet: &Packet) -> bool {
        if !self.ns2_local_repair() || !self.config.link_layer_feedback {
            return false;
        }
        let travelled = packet.hops_travelled();
        self.table.get(packet.dst, now).is_some_and(|e| e.state != RouteState::Invalid && travelled > e.hops)
    }

    /// ns-2's `local_rt_repair` (aodv/aodv.cc:386-400): buffer the failed
    /// packet, hold the route in repair and discover it again; the repair
    /// timer is armed with the RREQ's timeout, an absolute time, as its
    /// delay (399), so it fires at twice the repair's start plus the wait.
    fn ns2_repair(&mut self, now: SimTime, packet: &Packet, lost: Option<DropCause>, ctx: &mut RoutingContext, out: &mut Out) {
        let dst = packet.dst;
        if lost.is_some() {
            self.buffer(now, *packet, out);
        }
        let Some(e) = self.table.get_mut(dst, now) else { return };
        let previous_hops = e.hops;
        e.state = RouteState::InRepair;
        self.stats.link_breaks += 1;
        // ns-2 repairs (`sendRequest` and a repair timer) on every such
        // failure; hoplab's RFC schedule runs one discovery at a time.
        if self.discoveries.contains_key(&dst) && !self.ns2_schedule() {
            return;
        }
        let hops_to_source = self.table.get(packet.src, now).map_or(0, |e| e.hops);
        self.start_discovery(now, dst, Some(Repair { previous_hops, hops_to_source }), ctx, out);
        // The wait `sendRequest` left (`rt_req_timeout`, absolute) as a delay.
        let timeout_at = if self.ns2_schedule() {
            self.ns2_requests.get(&dst).and_then(|r| r.timeout_at)
        } else {
            self.discoveries.get(&dst).map(|d| d.timer_at).filter(|&t| t != SimTime::MAX)
        };
        if let Some(t) = timeout_at {
            let deadline = t + now.since(SimTime::ZERO);
            out.push(RoutingOutput::Timer { id: AodvTimer::RepairDeadline(dst).id(), at: deadline });
        }
    }

    /// ns-2's `LocalRepairTimer::handle` (aodv/aodv.cc:187-212): a route
    /// still in repair goes down, without a RERR; the packets buffered for
    /// it wait for the discovery, which goes on as for any buffered packet
    /// (`rt_purge`, 504-553).
    pub(crate) fn repair_deadline(&mut self, now: SimTime, dst: NodeId) {
        self.table.repair_failed(dst, now);
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.repair = None;
        }
    }

    /// The link to neighbour `n` is broken (6.11 case (i)); the interface
    /// handed back the packets it queued toward `n`. Invalidate the routes
    /// through `n`, repair locally if enabled, re-buffer this node's own
    /// packets for a new discovery, and send a RERR for the destinations
    /// that neighbours still use.
    pub(crate) fn break_link(
        &mut self,
        now: SimTime,
        n: NodeId,
        failed: Option<&Packet>,
        queued: Vec<Packet>,
        ctx: &mut RoutingContext,
        out: &mut Out,
    ) {
        let node = ctx.node;
        // ns-2's local repair is decided per failed packet (`link_failure`);
        // a break that reaches here is not repaired.
        let local_repair = self.config.local_repair && self.config.local_repair_rule == LocalRepairRule::Rfc;
        let max_repair_ttl = self.config.max_repair_ttl();
        let mut lost = Vec::new();
        self.stats.link_breaks += 1;
        self.table.break_link(n, now, &mut lost);

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
                let hops_to_source = self.table.get(q.src, now).map_or(0, |e| e.hops);
                if let Some(e) = self.table.get_mut(q.dst, now) {
                    e.state = RouteState::InRepair;
                }
                repairs.push((q.dst, Repair { previous_hops: u.hops, hops_to_source }));
            }
        }

        // The packets that were waiting for the broken link.
        let mut own_destinations: Vec<NodeId> = Vec::new();
        for q in queued {
            if q.is_control() {
                out.push(RoutingOutput::Drop { packet: q, cause: DropCause::RouteBreak });
            } else if q.src == node && self.config.requeue_own_on_break {
                if !own_destinations.contains(&q.dst) {
                    own_destinations.push(q.dst);
                }
                self.buffer(now, q, out);
            } else if repairs.iter().any(|(d, _)| *d == q.dst) {
                self.buffer(now, q, out);
            } else {
                out.push(RoutingOutput::Drop { packet: q, cause: DropCause::RouteBreak });
            }
        }

        // 6.11: a RERR for the lost destinations that have precursors (those
        // under repair wait for its outcome).
        let unreachable: Vec<(NodeId, SeqNumber)> =
            lost.iter().filter(|u| u.has_precursors && !repairs.iter().any(|(d, _)| *d == u.dst)).map(|u| (u.dst, u.seq)).collect();
        if !unreachable.is_empty() {
            self.send_rerr(now, &unreachable, false, ctx, out);
        }
        for (dst, repair) in repairs {
            self.start_discovery(now, dst, Some(repair), ctx, out);
        }
        for dst in own_destinations {
            self.start_discovery(now, dst, None, ctx, out);
        }
        out.push(RoutingOutput::BufferChanged);
    }

    /// The HELLO timer (6.9): broadcast a HELLO if the node is on an active
    /// route and has broadcast nothing for HELLO_INTERVAL; then declare
    /// lost the links to HELLO neighbours silent for too long.
    pub(crate) fn hello_timer(&mut self, now: SimTime, ctx: &mut RoutingContext, out: &mut Out) {
        if self.hello_at != now {
            return;
        }
        let p = &self.config;
        // The next HELLO comes a little early, by a jitter of up to
        // `broadcast_jitter_ms` (at most half the interval): neighbours'
        // phases drift apart, so hidden HELLOs do not collide period after
        // period, and no gap exceeds HELLO_INTERVAL, so one lost HELLO
        // never breaks a link.
        let max_jitter = p.broadcast_jitter().min(SimDuration::from_nanos(p.hello_interval().as_nanos() / 2));
        let jitter = SimDuration::from_nanos((self.rng.uniform_f64() * max_jitter.as_nanos() as f64) as u64);
        let next = now + (p.hello_interval() - jitter);
        let (hello_interval, hello_loss_time, delete_period) = (p.hello_interval(), p.hello_loss_time(), p.delete_period());
        self.hello_at = next;
        out.push(RoutingOutput::Timer { id: AodvTimer::Hello.id(), at: next });
        let quiet = match self.last_broadcast {
            Some(t) => now.since(t) >= hello_interval,
            None => true,
        };
        if quiet && self.table.has_active_route(now) {
            let hello = Rrep {
                ack_required: false,
                hop_count: 0,
                dst: ctx.node,
                dst_seq: self.own_seq,
                orig: ctx.node,
                lifetime_ms: (hello_loss_time.as_nanos() / 1_000_000) as u32,
            };
            self.send_control(now, AodvMessage::Rrep(hello), NodeId::BROADCAST, 1, false, ctx, out);
        }
        let mut lost = Vec::new();
        self.neighbours.lost_links(now, hello_loss_time, delete_period, &mut lost);
        for neighbour in lost {
            out.push(RoutingOutput::LinkBroken { neighbour, failed: None });
        }
    }

    /// Arm the HELLO timer at a random phase of HELLO_INTERVAL (from the
    /// node's routing stream), when HELLOs are enabled.
    pub(crate) fn start_hellos(&mut self, now: SimTime, out: &mut Out) {
        if !self.config.hello {
            return;
        }
        let interval = self.config.hello_interval();
        let at = now + SimDuration::from_nanos((self.rng.uniform_f64() * interval.as_nanos() as f64) as u64);
        self.hello_at = at;
        out.push(RoutingOutput::Timer { id: AodvTimer::Hello.id(), at });
    }
}
