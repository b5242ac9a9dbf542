//! Route Discovery (RFC 4728 section 8.2): originating Route Requests
//! (8.2.1: a non-propagating request first, then a propagating one, in
//! cycles with exponential back-off), processing received requests (8.2.2),
//! answering them as the target (8.2.4) or from the route cache (8.2.3),
//! and accepting Route Replies (8.2.6). Received routing packets are
//! dispatched here.

use super::cache::CachePart;
use super::config::MAX_ERROR_HOLD;
use super::{Discovery, DsrNode, DsrTimer, Out, SALVAGE_MAX_REQUESTS};
use crate::loss::DropCause;
use crate::net::routing::{RoutingContext, RoutingOutput};
use crate::time::{SimDuration, SimTime};
use crate::wire::dsr::{DsrHeader, DsrOption, Path};
use crate::wire::{NodeId, Packet};

impl DsrNode {
    /// A routing packet from neighbour `from` arrived (broadcast, or
    /// unicast to this node along its source route).
    pub(crate) fn receive(&mut self, now: SimTime, packet: Packet, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let Some(header) = packet.dsr().copied() else { return };
        match header.option {
            DsrOption::Request { .. } => self.receive_request(now, &packet, header, from, ctx, out),
            DsrOption::Reply { .. } if packet.dst == ctx.node => self.accept_reply(now, &header, ctx, out),
            DsrOption::Reply { .. } => self.forward_control(now, packet, header, ctx, out),
            DsrOption::Error { .. } => self.receive_error(now, packet, header, ctx, out),
            DsrOption::SourceRoute => {}
        }
    }

    /// Packets wait for `target`: start its discovery unless one is under
    /// way, or wait out the back-off of the last one (ns-2 `BackOffTest`,
    /// dsragent.cc:320-340, with `getRouteForPacket`, 1469-1586).
    pub(crate) fn start_discovery(&mut self, now: SimTime, target: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let d = self.discoveries.entry(target).or_insert(Discovery {
            cycles: 0,
            cycle_started: SimTime::ZERO,
            propagated: true,
            timer_at: SimTime::MAX,
            active_since: None,
        });
        if d.timer_at != SimTime::MAX {
            return; // under way: the packets wait for its next step
        }
        if d.active_since.is_none() {
            d.active_since = Some(now);
            *self.stats.discoveries.entry(target).or_default() += 1;
        }
        let next = if d.cycles == 0 { now } else { d.cycle_started + self.config.backoff(d.cycles) };
        if next <= now {
            return self.start_cycle(now, target, ctx, out);
        }
        d.propagated = true;
        d.timer_at = next;
        out.push(RoutingOutput::Timer { id: DsrTimer::Discovery(target).id(), at: next });
    }

    /// A request cycle: the non-propagating request, whose timeout leads to
    /// the propagating one (8.2.1), or the propagating one at once.
    fn start_cycle(&mut self, now: SimTime, target: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let nonprop = self.config.nonpropagating_request;
        let (wait, limit) = (self.config.nonprop_request_timeout_ms, self.config.discovery_hop_limit.min(255) as u8);
        let Some(d) = self.discoveries.get_mut(&target) else { return };
        // ns-2 caps the count at 15 (dsragent.cc:333-335).
        d.cycles = (d.cycles + 1).min(15);
        d.cycle_started = now;
        if self.config.salvage_by_discovery && d.cycles > SALVAGE_MAX_REQUESTS {
            // Salvaged packets get one cycle: the next drops them
            // (dsragent.cc:1529-1546, after BackOffTest counted it).
            let me = ctx.node;
            let mut dropped = Vec::new();
            self.send_buffer.take_where(|p| p.dst == target && p.src != me, &mut dropped);
            if !dropped.is_empty() {
                for packet in dropped {
                    out.push(RoutingOutput::Drop { packet, cause: DropCause::NoRoute });
                }
                out.push(RoutingOutput::BufferChanged);
                if !self.send_buffer.has_packets_for(target) {
                    if let Some(e) = self.discoveries.get_mut(&target) {
                        e.timer_at = SimTime::MAX;
                        e.propagated = true;
                        if e.active_since.take().is_some() {
                            self.stats.discoveries_failed += 1;
                        }
                    }
                    return;
                }
            }
        }
        let Some(d) = self.discoveries.get_mut(&target) else { return };
        d.propagated = !nonprop;
        let at = if nonprop { now + wait } else { now + self.config.backoff(d.cycles) };
        d.timer_at = at;
        out.push(RoutingOutput::Timer { id: DsrTimer::Discovery(target).id(), at });
        self.send_request(now, target, if nonprop { 0 } else { limit }, ctx, out);
    }

    /// Originate a Route Request for `target` (8.2.1), carrying the last
    /// route error if it is recent (ns-2 dsragent.cc:1603-1618).
    fn send_request(&mut self, now: SimTime, target: NodeId, hop_limit: u8, ctx: &mut RoutingContext, out: &mut Out) {
        let id = self.next_request_id;
        self.next_request_id = self.next_request_id.wrapping_add(1);
        let mut header = DsrHeader {
            path: Path::of(&[ctx.node]),
            option: DsrOption::Request { id, target, hop_limit },
            cur: 0,
            salvage: 0,
            piggyback_error: None,
        };
        if let Some((from, to, at)) = self.last_error.filter(|_| self.config.piggyback_route_errors) {
            if now.since(at) < MAX_ERROR_HOLD {
                header.piggyback_error = Some((from, to));
                if hop_limit > 0 {
                    self.last_error = None; // it rode a propagating request
                }
            }
        }
        self.stats.requests_originated += 1;
        let packet = self.control_packet(header, target, now, ctx);
        // ns-2 jitters every request it sends (dsragent.cc:1457-1460).
        self.send_control(now, packet, NodeId::BROADCAST, true, ctx, out);
    }

    /// The discovery timer of `target` fired: the propagating request, or
    /// the next cycle; or the end, when no packet waits any more.
    pub(crate) fn discovery_timer(&mut self, now: SimTime, target: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let Some(d) = self.discoveries.get_mut(&target) else { return };
        if d.timer_at != now {
            return; // a stale arming
        }
        d.timer_at = SimTime::MAX;
        let d = *d;
        if !self.send_buffer.has_packets_for(target) {
            // Every waiting packet expired or was pushed out.
            if let Some(e) = self.discoveries.get_mut(&target).filter(|e| e.active_since.is_some()) {
                e.active_since = None;
                self.stats.discoveries_failed += 1;
            }
            return;
        }
        if self.cache.find(target, now, false).is_some() {
            return self.route_learnt(now, ctx, out);
        }
        if d.propagated {
            return self.start_cycle(now, target, ctx, out);
        }
        let limit = self.config.discovery_hop_limit.min(255) as u8;
        let at = (d.cycle_started + self.config.backoff(d.cycles)).max(now + SimDuration::from_nanos(1));
        if let Some(e) = self.discoveries.get_mut(&target) {
            e.propagated = true;
            e.timer_at = at;
        }
        out.push(RoutingOutput::Timer { id: DsrTimer::Discovery(target).id(), at });
        // Salvaged packets alone get no propagating request
        // (`dsr_salvage_allow_propagating = 0`, dsragent.cc:105, 1560-1561).
        let me = ctx.node;
        if self.config.salvage_by_discovery && !self.send_buffer.iter().any(|p| p.dst == target && p.src == me) {
            return;
        }
        self.send_request(now, target, limit, ctx, out);
    }

    /// The packets waiting for `target` have a route: its discovery (if
    /// any) succeeded; its back-off stays (reset only by a reply).
    pub(crate) fn discovery_done(&mut self, now: SimTime, target: NodeId) {
        let Some(d) = self.discoveries.get_mut(&target) else { return };
        d.timer_at = SimTime::MAX;
        if let Some(since) = d.active_since.take() {
            self.stats.discoveries_succeeded += 1;
            self.stats.discovery_time_total_ns += now.since(since).as_nanos() as u128;
        }
    }

    /// Section 8.2.2: a Route Request from neighbour `from`.
    fn receive_request(&mut self, now: SimTime, packet: &Packet, header: DsrHeader, from: NodeId, ctx: &mut RoutingContext, out: &mut Out) {
        let DsrOption::Request { id, target, hop_limit } = header.option else { return };
        let me = ctx.node;
        let initiator = packet.src;
        if let Some((a, b)) = header.piggyback_error {
            // ns-2 processes errors on every packet it handles (dsragent.cc:663-666).
            self.cache.dead_link(a, b);
        }
        let _ = from;
        if target == me {
            // ns-2 answers every copy that reaches the target, each by the
            // reverse of its route (dsragent.cc:752-765, 1627-1695).
            self.seen_requests.insert(initiator, id);
            return self.reply_as_target(now, &header, ctx, out);
        }
        // ns-2 `ignoreRouteRequestp` (dsragent.cc:1121-1146): seen before,
        // already on the route, or no room to add this node.
        let seen = self.seen_requests.get(&initiator).is_some_and(|&last| (id.wrapping_sub(last) as i16) <= 0);
        if seen || header.path.contains(me) || header.path.is_full() {
            return;
        }
        self.seen_requests.insert(initiator, id);
        if (hop_limit == 0 || self.config.reply_from_cache) && self.reply_from_cache(now, &header, target, ctx, out) {
            return;
        }
        // Propagate (ns-2 dsragent.cc:1080-1115): within the hop limit,
        // this node appended, after a jitter.
        if header.path.len() > hop_limit as usize {
            return;
        }
        let mut forward = header;
        forward.path.push(me);
        let mut packet = *packet;
        packet.payload_bytes = forward.buffer_len();
        packet.routing = crate::wire::RoutingHeader::Dsr(forward);
        self.send_control(now, packet, NodeId::BROADCAST, true, ctx, out);
    }

    /// Section 8.2.4: answer as the target, with the reverse of the route
    /// the request recorded (ns-2 `returnSrcRouteToRequestor`), which is
    /// cached too.
    fn reply_as_target(&mut self, now: SimTime, request: &DsrHeader, ctx: &mut RoutingContext, out: &mut Out) {
        let mut route = request.path;
        if !route.push(ctx.node) {
            return; // the route would be too long (dsragent.cc:1635-1636)
        }
        self.cache.add(&route.reversed(), CachePart::Primary, now);
        let replier = (route.len() - 1) as u8;
        let header = DsrHeader {
            path: route,
            option: DsrOption::Reply { replier, gratuitous: false, from_cache: false },
            cur: 0,
            salvage: 0,
            piggyback_error: None,
        };
        let Some(next_hop) = header.next_hop() else { return };
        let mut header = header;
        header.cur = 1;
        let dst = route.get(0);
        let packet = self.control_packet(header, dst, now, ctx);
        // The reply answers a broadcast: jittered (dsragent.cc:1684-1694).
        self.send_control(now, packet, next_hop, true, ctx, out);
        self.route_learnt(now, ctx, out);
    }

    /// Section 8.2.3: answer from the cache if it holds a route to the
    /// target that, joined to the request's route, passes through this node
    /// without a loop (ns-2 `replyFromRouteCache`, dsragent.cc:1149-1256).
    fn reply_from_cache(&mut self, now: SimTime, request: &DsrHeader, target: NodeId, ctx: &mut RoutingContext, out: &mut Out) -> bool {
        let me = ctx.node;
        let Some(rest) = self.cache.find(target, now, false) else { return false };
        if request.path.len() + rest.len() > crate::wire::dsr::MAX_SR_LEN {
            return false;
        }
        let Some(mut complete) = request.path.join(&rest) else { return false };
        complete.compress();
        let replier = request.path.len();
        if complete.position(me) != Some(replier) {
            return false;
        }
        let mut back = request.path;
        back.push(me);
        self.cache.add(&back.reversed(), CachePart::Primary, now);
        let mut header = DsrHeader {
            path: complete,
            option: DsrOption::Reply { replier: replier as u8, gratuitous: false, from_cache: true },
            cur: 0,
            salvage: 0,
            piggyback_error: None,
        };
        let Some(next_hop) = header.next_hop() else { return false };
        header.cur = 1;
        let packet = self.control_packet(header, complete.get(0), now, ctx);
        self.dsr_stats.replies_from_cache += 1;
        self.send_control(now, packet, next_hop, false, ctx, out);
        true
    }

    /// Section 8.2.6: a Route Reply for this node: cache the route, reset
    /// the target's back-off (ns-2 `acceptRouteReply`, dsragent.cc:1719-1802)
    /// and send what waited for it.
    pub(crate) fn accept_reply(&mut self, now: SimTime, header: &DsrHeader, ctx: &mut RoutingContext, out: &mut Out) {
        let route = header.path;
        if route.first() != Some(ctx.node) || route.len() < 2 {
            return;
        }
        self.cache.add(&route, CachePart::Primary, now);
        let target = route.last().expect("two addresses at least");
        self.discovery_done(now, target);
        self.discoveries.remove(&target);
        let spacing = self.config.reply_release_spacing_ms;
        self.release_spaced(now, spacing, ctx, out);
    }
}
