//! Route discovery at its originator: RREQ generation (RFC 3561 section
//! 6.3), expanding ring search (6.4), retries with binary exponential
//! backoff, RREQ_RATELIMIT, and local repair (6.12); or ns-2's schedule
//! (`rreq_schedule = "ns2"`: `sendRequest` and `rt_purge`'s tick).

use super::config::{times, RreqSchedule, NS2_MAX_RREQ_TIMEOUT, NS2_PURGE_PERIOD};
use super::{AodvNode, AodvTimer, Discovery, Ns2Requests, Out, Repair, SeqNumber};
use crate::loss::DropCause;
use crate::net::routing::{RoutingContext, RoutingOutput};
use crate::time::{SimDuration, SimTime};
use crate::wire::aodv::{AodvMessage, Rreq};
use crate::wire::NodeId;

impl AodvNode {
    /// Start discovering a route to `dst` unless a discovery (or repair)
    /// of it is already under way. `repair`: a local repair.
    pub(crate) fn start_discovery(&mut self, now: SimTime, dst: NodeId, repair: Option<Repair>, ctx: &mut RoutingContext, out: &mut Out) {
        if self.discoveries.contains_key(&dst) {
            // ns-2 calls `sendRequest` for every packet the node originates
            // and every repair (ns-2.35 aodv/aodv.cc:466, 396); it decides
            // itself whether a RREQ is due.
            if self.ns2_schedule() {
                self.ns2_send_request(now, dst, ctx, out);
            }
            return;
        }
        if repair.is_some() {
            self.stats.local_repairs += 1;
        } else {
            *self.stats.discoveries.entry(dst).or_default() += 1;
        }
        self.discoveries.insert(
            dst,
            Discovery {
                ttl: 0,
                attempts_at_max_ttl: 0,
                timer_at: SimTime::MAX,
                awaiting_reply: false,
                started_at: now,
                last_rreq_at: now,
                repair,
            },
        );
        self.send_rreq(now, dst, ctx, out);
    }

    fn arm_discovery(&mut self, dst: NodeId, at: SimTime, awaiting_reply: bool, out: &mut Out) {
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.timer_at = at;
            d.awaiting_reply = awaiting_reply;
            out.push(RoutingOutput::Timer { id: AodvTimer::Discovery(dst).id(), at });
        }
    }

    /// Send the discovery's next RREQ (6.3, 6.4), or wait for the rate limit.
    fn send_rreq(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        if self.ns2_schedule() {
            return self.ns2_send_request(now, dst, ctx, out);
        }
        let p = &self.config;
        // 6.3: "A node SHOULD NOT originate more than RREQ_RATELIMIT RREQ
        // messages per second."
        let allowed = self.rreq_rate.next_allowed(now, p.rreq_ratelimit);
        if allowed > now {
            return self.arm_discovery(dst, allowed, false, out);
        }
        let known = self.table.get(dst, now).map(|e| (e.seq_valid.then_some(e.seq), e.hops));
        let measured = self.traversal.get(&dst).and_then(|h| h.mean()).filter(|_| p.measured_traversal_time);
        let node_traversal_time = measured.unwrap_or(p.node_traversal_time());
        // ns-2's repairs send the RREQs of any discovery (`local_rt_repair`
        // calls `sendRequest`, aodv/aodv.cc:386-400).
        let rfc_repair = !self.ns2_local_repair();
        let Some(d) = self.discoveries.get_mut(&dst) else {
            return;
        };
        let ttl = match d.repair.filter(|_| rfc_repair) {
            // 6.12: TTL = max(MIN_REPAIR_TTL, 0.5 * #hops) + LOCAL_ADD_TTL.
            Some(r) => r.previous_hops.max(r.hops_to_source / 2).saturating_add(p.local_add_ttl()),
            None if d.ttl == 0 => match known {
                // 6.4: the last known hop count plus TTL_INCREMENT.
                Some((_, hops)) if hops > 0 => hops.saturating_add(p.ttl_increment()),
                _ => p.ttl_start(),
            },
            None => {
                let next = d.ttl.saturating_add(p.ttl_increment());
                if d.ttl >= p.net_diameter() || next > p.ttl_threshold() {
                    p.net_diameter()
                } else {
                    next
                }
            }
        }
        .min(p.net_diameter())
        .max(1);
        let wait = if (d.repair.is_none() || !rfc_repair) && ttl >= p.net_diameter() {
            d.attempts_at_max_ttl += 1;
            // 6.3: binary exponential backoff of the network-wide attempts.
            let net_traversal_time = p.net_traversal_time_with(measured);
            times(net_traversal_time, 1u64 << (d.attempts_at_max_ttl - 1).min(30))
        } else {
            p.ring_traversal_time_with(node_traversal_time, ttl)
        };
        d.ttl = ttl;
        d.last_rreq_at = now;
        self.emit_rreq(now, dst, ttl, ctx, out);
        self.arm_discovery(dst, now + wait, true, out);
    }

    /// Broadcast a RREQ for `dst` with IP TTL `ttl`.
    fn emit_rreq(&mut self, now: SimTime, dst: NodeId, ttl: u8, ctx: &mut RoutingContext, out: &mut Out) {
        let known = self.table.get(dst, now).and_then(|e| e.seq_valid.then_some(e.seq));
        let p = &self.config;
        // 6.1: increment the own sequence number before a discovery's RREQ;
        // 6.3: a fresh RREQ ID.
        self.own_seq = self.own_seq.next();
        self.rreq_id = self.rreq_id.wrapping_add(1);
        let (dst_seq, unknown_seq) = match known {
            Some(seq) => (seq, false),
            None => (SeqNumber(0), true),
        };
        let rreq = Rreq {
            gratuitous: p.gratuitous_reply,
            destination_only: p.destination_only,
            unknown_seq,
            hop_count: 0,
            id: self.rreq_id,
            dst,
            dst_seq,
            orig: ctx.node,
            orig_seq: self.own_seq,
        };
        let path_discovery_time = p.path_discovery_time();
        self.id_cache.seen_or_insert(ctx.node, rreq.id, now, path_discovery_time);
        self.rreq_rate.record(now);
        self.stats.requests_originated += 1;
        self.send_control(now, AodvMessage::Rreq(rreq), NodeId::BROADCAST, ttl, false, ctx, out);
    }

    pub(crate) fn ns2_schedule(&self) -> bool {
        self.config.rreq_schedule == RreqSchedule::Ns2
    }

    /// ns-2's `AODV::sendRequest` (ns-2.35 aodv/aodv.cc:1063-1183; semi-TCP
    /// code 1131-1263), [`RreqSchedule::Ns2`]: nothing while the
    /// destination's wait runs (1084-1087); after 1 + RREQ_RETRIES
    /// network-wide RREQs the buffered packets go and a hold of
    /// MAX_RREQ_TIMEOUT follows (1093-1101); otherwise a RREQ with the TTL
    /// of 1112-1128 and the wait of 1137-1144.
    fn ns2_send_request(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        if self.table.valid(dst, now).is_some() {
            // 1078-1082: no RREQ for a route that is up; rt_purge sends
            // what waits for it (528-536).
            return self.release(now, dst, ctx, out);
        }
        let p = &self.config;
        let (retries, ttl_start, ttl_increment, ttl_threshold, net_diameter) =
            (p.rreq_retries, p.ttl_start(), p.ttl_increment(), p.ttl_threshold(), p.net_diameter());
        let measured = self.traversal.get(&dst).and_then(|h| h.mean()).filter(|_| p.measured_traversal_time);
        let per_hop_time = measured.unwrap_or(p.node_traversal_time());
        // INFINITY2 (0xff) for a route that never went down (aodv_rtable.cc:47).
        let last_hop_count = self.table.last_hop_count(dst).unwrap_or(u8::MAX);
        let r = self.ns2_requests.entry(dst).or_default();
        if r.timeout_at.is_some_and(|t| t > now) {
            return;
        }
        if r.count > retries {
            r.timeout_at = Some(now + NS2_MAX_RREQ_TIMEOUT);
            r.count = 0;
            if self.discoveries.remove(&dst).is_some() {
                self.stats.discoveries_failed += 1;
            }
            return self.drop_buffered(dst, DropCause::NoRoute, ctx.node, out);
        }
        let last = r.last_ttl.max(last_hop_count);
        let ttl = if last == 0 {
            ttl_start
        } else if last < ttl_threshold {
            last.saturating_add(ttl_increment)
        } else {
            r.count += 1;
            net_diameter
        };
        r.last_ttl = ttl;
        let wait = times(per_hop_time, 2 * ttl as u64 * r.count.max(1) as u64).min(NS2_MAX_RREQ_TIMEOUT);
        r.timeout_at = Some(now + wait);
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.ttl = ttl;
            d.last_rreq_at = now;
        }
        self.emit_rreq(now, dst, ttl, ctx, out);
        self.arm_purge_tick(now, out);
    }

    /// ns-2's `rt_purge` tick ([`RreqSchedule::Ns2`]; ns-2.35
    /// aodv/aodv.cc:179-184, 504-549): each destination with packets
    /// buffered gets them sent if its route is up, else a `sendRequest`.
    pub(crate) fn purge_tick(&mut self, now: SimTime, ctx: &mut RoutingContext, out: &mut Out) {
        if self.purge_tick_at != now {
            return; // a stale arming
        }
        self.purge_tick_at = SimTime::MAX;
        let mut waiting: Vec<NodeId> = self.queue.iter().map(|p| p.dst).collect();
        waiting.sort_unstable();
        waiting.dedup();
        for dst in waiting {
            if !self.queue.has_packets_for(dst) {
                continue;
            }
            if self.table.valid(dst, now).is_some() {
                self.release(now, dst, ctx, out);
            } else {
                self.start_discovery(now, dst, None, ctx, out);
            }
        }
        self.arm_purge_tick(now, out);
    }

    /// Arm the next `rt_purge` tick (multiples of 0.5 s from 0 s: the agent
    /// starts at 0.0, tcl/lib/ns-lib.tcl:857) while packets are buffered.
    pub(crate) fn arm_purge_tick(&mut self, now: SimTime, out: &mut Out) {
        if !self.ns2_schedule() || self.queue.is_empty() || self.purge_tick_at != SimTime::MAX {
            return;
        }
        let period = NS2_PURGE_PERIOD.as_nanos();
        let at = SimTime((now.as_nanos() / period + 1) * period);
        self.purge_tick_at = at;
        out.push(RoutingOutput::Timer { id: AodvTimer::PurgeTick.id(), at });
    }

    /// ns-2 resets a destination's RREQ state (count 0, no wait, last TTL
    /// = the route's `hops`) when a RREP updates its route (recvReply,
    /// ns-2.35 aodv/aodv.cc:867-871) and when a RREQ updates the reverse
    /// route while a wait was set (recvRequest, 712-720: `rt_req_timeout >
    /// 0.0`). [`RreqSchedule::Ns2`] only.
    pub(crate) fn ns2_requests_answered(&mut self, dst: NodeId, hops: u8, by_rrep: bool) {
        if !self.ns2_schedule() {
            return;
        }
        let reset = Ns2Requests { timeout_at: None, count: 0, last_ttl: hops };
        if by_rrep {
            self.ns2_requests.insert(dst, reset);
        } else if let Some(r) = self.ns2_requests.get_mut(&dst).filter(|r| r.timeout_at.is_some()) {
            *r = reset;
        }
    }

    /// The discovery timer of `dst` fired.
    pub(crate) fn discovery_timer(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let retries = self.config.rreq_retries;
        let Some(d) = self.discoveries.get_mut(&dst) else {
            return;
        };
        if d.timer_at != now {
            return; // a stale arming
        }
        d.timer_at = SimTime::MAX;
        let d = *d;
        if !d.awaiting_reply {
            return self.send_rreq(now, dst, ctx, out);
        }
        if self.table.valid(dst, now).is_some() {
            return self.release(now, dst, ctx, out);
        }
        if d.repair.is_some() && !self.ns2_local_repair() {
            // 6.12: no RREP within the discovery period: the repair failed;
            // a RERR for the destination goes upstream.
            self.discoveries.remove(&dst);
            let lost = self.table.get_mut(dst, now).map(|e| {
                e.state = super::table::RouteState::Invalid;
                (e.seq, !e.precursors.is_empty())
            });
            self.drop_buffered(dst, DropCause::RouteBreak, ctx.node, out);
            if let Some((seq, true)) = lost {
                self.send_rerr(now, &[(dst, seq)], false, ctx, out);
            }
            return;
        }
        if d.attempts_at_max_ttl > retries {
            // 6.3: no RREP after the retries at the maximum TTL: give up.
            self.discoveries.remove(&dst);
            self.stats.discoveries_failed += 1;
            return self.drop_buffered(dst, DropCause::NoRoute, ctx.node, out);
        }
        self.send_rreq(now, dst, ctx, out);
    }

    /// A RREP addressed to this node made its route to `dst` (`hops` away)
    /// newer or shorter: the one-hop latency of the discovery under way is
    /// recorded for `measured_traversal_time`. Only then, as ns-2's
    /// `recvReply` (aodv/aodv.cc:920-927 of the semi-TCP code, 873-880 of
    /// ns-2.35: `rt_disc_latency` set where `ih->daddr() == index`, local
    /// repairs included); a route that became valid otherwise (a reverse
    /// route from someone's RREQ, a neighbour heard) ends the discovery
    /// without a sample. ns-2 divides
    /// the time since the answered RREQ (`rp_timestamp`); hoplab's RREP
    /// names no RREQ, so the time since the discovery's last RREQ.
    pub(crate) fn record_traversal(&mut self, now: SimTime, dst: NodeId, hops: u8) {
        let Some(d) = self.discoveries.get(&dst).filter(|_| hops > 0) else {
            return;
        };
        let per_hop = SimDuration(now.since(d.last_rreq_at).0 / hops as u64);
        self.traversal.entry(dst).or_default().record(per_hop);
    }

    /// A route to `dst` became active: the discovery (if any) ends. A local
    /// repair that found a longer route sends a RERR with the 'N' flag (6.12).
    pub(crate) fn discovery_succeeded(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let Some(d) = self.discoveries.remove(&dst) else {
            return;
        };
        match d.repair {
            None => {
                self.stats.discoveries_succeeded += 1;
                self.stats.discovery_time_total_ns += now.since(d.started_at).as_nanos() as u128;
            }
            // ns-2's repair ends quietly (aodv/aodv.cc:859-899 recvReply).
            Some(_) if self.ns2_local_repair() => {}
            Some(r) => {
                let longer = self.table.valid(dst, now).filter(|e| e.hops > r.previous_hops && !e.precursors.is_empty());
                if let Some(e) = longer {
                    let seq = e.seq;
                    self.send_rerr(now, &[(dst, seq)], true, ctx, out);
                }
            }
        }
    }
}
