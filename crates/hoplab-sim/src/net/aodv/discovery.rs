//! Route discovery at its originator (impl World): RREQ generation (RFC
//! 3561 section 6.3), expanding ring search (6.4), retries with binary
//! exponential backoff, RREQ_RATELIMIT, and local repair (6.12).

use crate::wire::aodv::{AodvMessage, Rreq};
use super::{Discovery, Repair, RoutingTimerKind, SeqNumber};
use crate::mac::BROADCAST;
use crate::net::NodeId;
use crate::loss::DropCause;
use crate::time::{SimDuration, SimTime};
use crate::world::{Event, Layer, World};

impl World {
    /// Start discovering a route from `node` to `dst` unless a discovery
    /// (or repair) of it is already under way. `repair`: a local repair.
    pub(crate) fn aodv_start_discovery(&mut self, node: NodeId, dst: NodeId, repair: Option<Repair>) {
        let now = self.now();
        let n = &mut self.aodv().nodes[node.index()];
        if n.discoveries.contains_key(&dst) {
            return;
        }
        if repair.is_some() {
            n.stats.local_repairs += 1;
        } else {
            *n.stats.discoveries.entry(dst).or_default() += 1;
        }
        n.discoveries.insert(
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
        self.aodv_send_rreq(node, dst);
    }

    fn aodv_arm_discovery(&mut self, node: NodeId, dst: NodeId, at: SimTime, awaiting_reply: bool) {
        if let Some(d) = self.aodv().nodes[node.index()].discoveries.get_mut(&dst) {
            d.timer_at = at;
            d.awaiting_reply = awaiting_reply;
            self.queue.schedule(at, Event::new(node.0, Layer::Routing, dst.0 << 2 | RoutingTimerKind::Discovery as u32));
        }
    }

    /// Send the discovery's next RREQ (6.3, 6.4), or wait for the rate limit.
    fn aodv_send_rreq(&mut self, node: NodeId, dst: NodeId) {
        let now = self.now();
        let aodv = self.aodv();
        let p = aodv.params.clone();
        let n = &mut aodv.nodes[node.index()];
        // 6.3: "A node SHOULD NOT originate more than RREQ_RATELIMIT RREQ
        // messages per second."
        let allowed = n.rreq_rate.next_allowed(now, p.rreq_ratelimit);
        if allowed > now {
            return self.aodv_arm_discovery(node, dst, allowed, false);
        }
        let known = n.table.get(dst, now).map(|e| (e.seq_valid.then_some(e.seq), e.hops));
        let measured = n.traversal.get(&dst).and_then(|h| h.mean()).filter(|_| p.measured_traversal_time);
        let node_traversal_time = measured.unwrap_or(p.node_traversal_time);
        let Some(d) = n.discoveries.get_mut(&dst) else {
            return;
        };
        let ttl = match d.repair {
            // 6.12: TTL = max(MIN_REPAIR_TTL, 0.5 * #hops) + LOCAL_ADD_TTL.
            Some(r) => r.previous_hops.max(r.hops_to_source / 2).saturating_add(p.local_add_ttl),
            None if d.ttl == 0 => match known {
                // 6.4: the last known hop count plus TTL_INCREMENT.
                Some((_, hops)) if hops > 0 => hops.saturating_add(p.ttl_increment),
                _ => p.ttl_start,
            },
            None => {
                let next = d.ttl.saturating_add(p.ttl_increment);
                if d.ttl >= p.net_diameter || next > p.ttl_threshold {
                    p.net_diameter
                } else {
                    next
                }
            }
        }
        .min(p.net_diameter)
        .max(1);
        let wait = if d.repair.is_none() && ttl >= p.net_diameter {
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
        n.own_seq = n.own_seq.next();
        n.rreq_id = n.rreq_id.wrapping_add(1);
        let (dst_seq, unknown_seq) = match known {
            Some((Some(seq), _)) => (seq, false),
            _ => (SeqNumber(0), true),
        };
        let rreq = Rreq {
            gratuitous: p.gratuitous_reply,
            destination_only: p.destination_only,
            unknown_seq,
            hop_count: 0,
            id: n.rreq_id,
            dst,
            dst_seq,
            orig: node,
            orig_seq: n.own_seq,
        };
        n.id_cache.seen_or_insert(node, rreq.id, now, p.path_discovery_time);
        n.rreq_rate.record(now);
        n.stats.rreq_originated += 1;
        self.aodv_send_control(node, AodvMessage::Rreq(rreq), BROADCAST, ttl, false);
        self.aodv_arm_discovery(node, dst, now + wait, true);
    }

    /// The discovery timer of (`node`, `dst`) fired.
    pub(crate) fn aodv_discovery_timer(&mut self, node: NodeId, dst: NodeId) {
        let now = self.now();
        let retries = self.aodv().params.rreq_retries;
        let n = &mut self.aodv().nodes[node.index()];
        let Some(d) = n.discoveries.get_mut(&dst) else {
            return;
        };
        if d.timer_at != now {
            return; // a stale arming
        }
        d.timer_at = SimTime::MAX;
        let d = *d;
        if !d.awaiting_reply {
            return self.aodv_send_rreq(node, dst);
        }
        if n.table.valid(dst, now).is_some() {
            return self.aodv_release(node, dst);
        }
        if let Some(_repair) = d.repair {
            // 6.12: no RREP within the discovery period: the repair failed;
            // a RERR for the destination goes upstream.
            n.discoveries.remove(&dst);
            let entry = n.table.get_mut(dst, now);
            let lost = entry.map(|e| {
                e.state = super::table::RouteState::Invalid;
                (e.seq, !e.precursors.is_empty())
            });
            self.aodv_drop_buffered(node, dst, DropCause::RouteBreak);
            if let Some((seq, true)) = lost {
                self.aodv_send_rerr(node, &[(dst, seq)], false);
            }
            return;
        }
        if d.attempts_at_max_ttl > retries {
            // 6.3: no RREP after the retries at the maximum TTL: give up.
            n.discoveries.remove(&dst);
            n.stats.discoveries_failed += 1;
            return self.aodv_drop_buffered(node, dst, DropCause::NoRoute);
        }
        self.aodv_send_rreq(node, dst);
    }

    /// A route to `dst` became active: the discovery (if any) ends. A local
    /// repair that found a longer route sends a RERR with the 'N' flag (6.12).
    pub(crate) fn aodv_discovery_succeeded(&mut self, node: NodeId, dst: NodeId) {
        let now = self.now();
        let n = &mut self.aodv().nodes[node.index()];
        let Some(d) = n.discoveries.remove(&dst) else {
            return;
        };
        match d.repair {
            None => {
                n.stats.discoveries_succeeded += 1;
                n.stats.discovery_time_total_ns += now.since(d.started_at).as_nanos() as u128;
                // ns-2 recvReply: rt_disc_latency = (now - RREQ time) / hops.
                if let Some(hops) = n.table.valid(dst, now).map(|e| e.hops).filter(|&h| h > 0) {
                    let per_hop = SimDuration(now.since(d.last_rreq_at).0 / hops as u64);
                    n.traversal.entry(dst).or_default().record(per_hop);
                }
            }
            Some(r) => {
                let longer = n.table.valid(dst, now).filter(|e| e.hops > r.previous_hops && !e.precursors.is_empty());
                if let Some(e) = longer {
                    let seq = e.seq;
                    self.aodv_send_rerr(node, &[(dst, seq)], true);
                }
            }
        }
    }
}
