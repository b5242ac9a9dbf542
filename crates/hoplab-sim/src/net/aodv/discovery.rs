//! Route discovery at its originator: RREQ generation (RFC 3561 section
//! 6.3), expanding ring search (6.4), retries with binary exponential
//! backoff, RREQ_RATELIMIT, and local repair (6.12).

use super::{AodvNode, AodvTimer, Discovery, Out, Repair, SeqNumber};
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
            super::config::times(net_traversal_time, 1u64 << (d.attempts_at_max_ttl - 1).min(30))
        } else {
            p.ring_traversal_time_with(node_traversal_time, ttl)
        };
        d.ttl = ttl;
        d.last_rreq_at = now;
        // 6.1: increment the own sequence number before a discovery's RREQ;
        // 6.3: a fresh RREQ ID.
        self.own_seq = self.own_seq.next();
        self.rreq_id = self.rreq_id.wrapping_add(1);
        let (dst_seq, unknown_seq) = match known {
            Some((Some(seq), _)) => (seq, false),
            _ => (SeqNumber(0), true),
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
        self.arm_discovery(dst, now + wait, true, out);
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
