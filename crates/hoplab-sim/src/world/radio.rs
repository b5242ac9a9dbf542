//! Wiring of the radio layers: the channel delivers frames to PHYs, each
//! PHY's outputs go to its timers and its MAC, each MAC's outputs go to the
//! PHY and channel (a frame to send), its timers, and the network layer.
//!
//! Outputs are carried out in the order the layer wrote them, each
//! completely (with whatever it causes in other layers) before the next.
//! The world also keeps the ground truth no single node knows: whether a
//! frame was lost to the error model (the sender's eventual drop cause),
//! whether a next hop holds the packet whose ACKs were lost, whether it
//! moved out of range.

use super::{Layer, SlotTimers, TraceEntry, TraceWhat, World};
use crate::loss::DropCause;
use crate::mac::{AttemptLoss, FrameKind, MacContext, MacIndication, MacInput, MacOutput, MacOutputs, MacTimer, BROADCAST};
use crate::net::routing::Routing;
use crate::phy::air::{Arrival, Timers};
use crate::phy::{FrameRef, Neighbour, PhyIndication, PhyInput, PhyOutputs, PhyTimer, RxError};
use crate::time::SimTime;
use crate::stack::Stack;
use crate::wire::{NodeId, Packet};

impl World {
    /// A frame starts arriving at `node`, the receiver at `index` in the
    /// transmitter's list of links when the frame went out.
    pub(crate) fn frame_arrives(&mut self, node: NodeId, at: FrameRef, index: u32) {
        let now = self.now();
        let frame = self.on_air.frame(at);
        let link = self.on_air.link_at(at, index, node).or_else(|| self.channel.static_link_at(frame.transmitter, index, node));
        // A relocated receiver may have left since the frame went out.
        let Some(link) = link else { return self.on_air.release(at) };
        let input = PhyInput::Arrival { at, frame, power_w: link.rx_power_w, decodable: link.decodable };
        let mut out = self.nodes[node.index()].phy.handle(now, input);
        if out.lost_on_arrival {
            self.frame_lost_on_arrival(node, at);
        }
        self.batch_rx_timer(node, at, &mut out);
        self.phy_outputs(node, out);
    }

    /// If the PHY of `node` arms its RxEnd timer for frame `at`, the one it
    /// follows (until the frame's end, or to its next step: the SINR
    /// receiver's preamble detection), the timer's event joins one of the
    /// frame's lists of timer events (one queue entry for each list,
    /// `frame_timers_from`) where it comes after every pending one, with
    /// the sequence number its own event would have had (reserved here,
    /// where `phy_outputs` would have armed it). Otherwise it stays in
    /// `out`, for its own event.
    #[inline(always)]
    fn batch_rx_timer(&mut self, node: NodeId, at: FrameRef, out: &mut PhyOutputs) {
        let Some((PhyTimer::RxEnd, t)) = out.timer else { return };
        if self.nodes[node.index()].phy.locked() != Some(at) {
            return;
        }
        let which = if self.on_air.timer_fits(at, Timers::Ends, t) {
            Timers::Ends
        } else if self.on_air.timer_fits(at, Timers::Steps, t) {
            Timers::Steps
        } else {
            return;
        };
        out.timer = None;
        let seq = self.nodes[node.index()].timers[PhyTimer::RxEnd as usize].arm_in_batch(&mut self.queue, t);
        if self.on_air.add_timer(at, which, Arrival { node, link: 0, start: t, seq }) {
            self.queue.schedule_reserved(t, seq, super::Event::new(node.0, Layer::Phy, super::frame_timers_id(at, which)));
        }
    }

    /// `errors.scope = "every_frame"`: the error model took the frame
    /// before the MAC. Ground truth as for a frame corrupted at its end: a
    /// DATA attempt to this node, or the attempt whose RTS, CTS or ACK it
    /// was, lost to a channel error; in the run's
    /// trace an error at its first bit (the MAC never hears of it). No
    /// receive record in the pcap trace: the node's radio never received
    /// it (ns-2 hands it to a drop target, here an `Agent/Null`).
    fn frame_lost_on_arrival(&mut self, node: NodeId, at: FrameRef) {
        let frame = self.on_air.frame(at);
        if frame.receiver == node {
            match frame.kind {
                FrameKind::Data => {
                    if let Some(uid) = frame.packet.map(|p| p.uid) {
                        self.nodes[frame.transmitter.index()].mac.note_channel_loss(uid);
                    }
                }
                // The attempt's sender sent the RTS; the CTS and ACK answer
                // this node's own attempt.
                FrameKind::Rts => self.nodes[frame.transmitter.index()].mac.note_attempt_channel_loss(),
                FrameKind::Cts | FrameKind::Ack => self.nodes[node.index()].mac.note_attempt_channel_loss(),
            }
        }
        if let Some(trace) = &mut self.trace {
            trace.push(TraceEntry::of(self.queue.now(), node, TraceWhat::RxError, frame));
        }
    }

    /// The timer event of `node`, of sequence `seq`, in frame `at`'s list
    /// `which`: in its list of ends the TxEnd timer event if `node` is the
    /// frame's transmitter (its first end), else an RxEnd timer event (the
    /// end of a reception, or a step of it); then the list's next events
    /// for as long as each is the next event of the run anyway (as
    /// `frame_arrivals`). Each is handled as its own timer event would have
    /// been: nothing if the timer was re-armed since (the node locked onto
    /// a later frame that collided).
    pub(crate) fn frame_timers_from(&mut self, mut node: NodeId, at: FrameRef, which: Timers, mut seq: u64) {
        loop {
            debug_assert_eq!(self.on_air.next_timer(at, which).map(|e| (e.node, e.seq)), Some((node, seq)));
            self.on_air.timer_happens(at, which);
            let next = self.on_air.next_timer(at, which);
            // The transmitter's entry is the end of its transmission.
            if which == Timers::Ends && node == self.on_air.frame(at).transmitter {
                if self.nodes[node.index()].timers[PhyTimer::TxEnd as usize].fire(seq) {
                    self.phy_input(node, PhyInput::TxEnd);
                }
            } else if self.nodes[node.index()].timers[PhyTimer::RxEnd as usize].fire(seq) {
                self.frame_ends(node);
            }
            let Some(next) = next else { return };
            if !self.hop_dirty.is_empty() {
                self.hop_flush();
            }
            if self.profile.is_some() || !self.queue.continue_at(next.start, next.seq) {
                let event = super::Event::new(next.node.0, Layer::Phy, super::frame_timers_id(at, which));
                return self.queue.schedule_reserved(next.start, next.seq, event);
            }
            (node, seq) = (next.node, next.seq);
        }
    }

    /// The frame `node`'s PHY is locked onto ends.
    /// (A model that follows a frame in steps: the frame's next step,
    /// which may not end it; the timer of its step after that joins the
    /// frame's lists of timer events where it can, `batch_rx_timer`.)
    #[inline(always)]
    pub(crate) fn frame_ends(&mut self, node: NodeId) {
        let now = self.now();
        // A step of a frame the PHY gave up silently finds none.
        let Some(at) = self.nodes[node.index()].phy.locked() else { return };
        let mut out = self.nodes[node.index()].phy.handle(now, PhyInput::RxEnd { frame: self.on_air.frame(at) });
        let ended = matches!(out.indication, Some(PhyIndication::RxEnd { .. }));
        self.batch_rx_timer(node, at, &mut out);
        self.phy_outputs(node, out);
        // The MAC and what it delivered are done with the frame.
        if ended {
            self.on_air.release(at);
        }
    }

    /// Hand an input to `node`'s PHY and carry out its outputs.
    pub(crate) fn phy_input(&mut self, node: NodeId, input: PhyInput<'_>) {
        let now = self.now();
        let out = self.nodes[node.index()].phy.handle(now, input);
        self.phy_outputs(node, out);
    }

    #[inline(always)]
    fn phy_outputs(&mut self, node: NodeId, out: PhyOutputs) {
        if let Some(frame) = out.let_go {
            self.on_air.release(frame);
        }
        if let Some((timer, at)) = out.timer {
            self.arm_timer(node, Layer::Phy, timer as u32, at);
        }
        if let Some(at) = out.cca_end {
            self.arm_timer(node, Layer::Phy, crate::phy::PhyTimer::CcaEnd as u32, at);
        }
        if let Some(indication) = out.indication {
            self.phy_indication(node, indication);
        }
    }

    #[inline]
    fn phy_indication(&mut self, node: NodeId, indication: PhyIndication) {
        let mut received = None;
        if let PhyIndication::RxEnd { error } = indication {
            let at = self.nodes[node.index()].phy.received();
            let frame = self.on_air.frame(at);
            if error == Some(RxError::ChannelError) {
                // Ground truth for the sender's eventual drop cause.
                if let Some(uid) = frame.packet.map(|p| p.uid) {
                    self.nodes[frame.transmitter.index()].mac.note_channel_loss(uid);
                }
            }
            if let Some(trace) = &mut self.trace {
                let what = if error.is_none() { TraceWhat::RxOk } else { TraceWhat::RxError };
                trace.push(TraceEntry::of(self.queue.now(), node, what, frame));
            }
            if let Some(pcap) = &mut self.pcap {
                pcap.received(self.queue.now(), node, frame, error.is_none());
            }
            received = Some(at);
        } else if self.profile.is_none() && {
            let n = &mut self.nodes[node.index()];
            n.mac.turns_medium_busy(&indication, n.phy.is_busy())
        } {
            return; // the medium turned busy and nothing else (a profiled run takes the full step)
        }
        self.mac_step(node, MacInput::Phy(indication), received);
    }

    /// An entry of `node`'s NavEnd timer pops (sequence `seq`): stale (the
    /// NAV grew since) or live. The MAC may want a later arming that
    /// waited for this entry queued now
    /// ([`Mac::nav_entry_popped`](crate::mac::Mac::nav_entry_popped)); a
    /// live one under a busy PHY changes nothing and takes no step
    /// (`Mac::nav_end_changes_nothing`). A profiled run, which queued every
    /// arming, takes the full step.
    #[inline(always)]
    pub(crate) fn nav_end(&mut self, node: NodeId, seq: u64) {
        let now = self.now();
        let eager = self.profile.is_some();
        let n = &mut self.nodes[node.index()];
        let slot = super::timer_slot(Layer::Mac, MacTimer::NavEnd as u32);
        let live = n.timers[slot].fire(seq);
        let phy_busy = n.phy.is_busy();
        if n.mac.nav_entry_popped(now, phy_busy) {
            // The MAC's own timer requests (a profiled run's queued it already).
            let mut timers = SlotTimers { queue: &mut self.queue, slots: &mut n.timers, owner: node.0, end: self.end, eager };
            crate::engine::TimerRequests::queue_deferred(&mut timers, MacTimer::NavEnd);
        }
        if !live || (!eager && n.mac.nav_end_changes_nothing(phy_busy)) {
            return;
        }
        self.mac_step(node, MacInput::Timer(MacTimer::NavEnd), None);
    }

    /// Hand an input to `node`'s MAC and carry out its outputs.
    pub(crate) fn mac_input(&mut self, node: NodeId, input: MacInput) {
        self.mac_step(node, input, None);
    }

    /// A MAC step; `received`: with an `RxEnd`, the frame that ended.
    /// Inlined with `Mac::handle` into its callers (`phy_indication`, the
    /// MAC's timers in `dispatch`, `mac_input` for the rest), so the match
    /// on the input folds at each.
    #[inline(always)]
    pub(crate) fn mac_step(&mut self, node: NodeId, input: MacInput, received: Option<FrameRef>) {
        let now = self.now();
        let mut out = MacOutputs::default();
        {
            let n = &mut self.nodes[node.index()];
            let eager = self.profile.is_some();
            let mut timers = SlotTimers { queue: &mut self.queue, slots: &mut n.timers, owner: node.0, end: self.end, eager };
            let received = received.map(|at| self.on_air.frame(at));
            let before = self.profile.as_ref().map(|_| crate::profile::MacView::of(&n.mac, timers.slots));
            let mut ctx = MacContext { timing: &self.timing, phy: &n.phy, received, timers: &mut timers };
            n.mac.handle(now, input, &mut ctx, &mut out);
            if let (Some(profile), Some(before)) = (self.profile.as_deref_mut(), before) {
                profile.mac_stepped(before.change(&crate::profile::MacView::of(&n.mac, timers.slots), !out.list.is_empty()));
            }
        }
        if out.list.is_empty() {
            return;
        }
        for output in out.list.drain(..) {
            match output {
                MacOutput::Transmit => self.transmit(node),
                MacOutput::Indication(indication) => self.mac_indication(node, indication, &out.packets, received),
                MacOutput::Resume(step) => self.mac_input(node, MacInput::Resume(step)),
            }
        }
    }

    /// Put a frame on the air: the PHY starts transmitting, and every node
    /// in carrier-sense range starts receiving it after its propagation
    /// delay.
    fn transmit(&mut self, node: NodeId) {
        let now = self.now();
        let frame = self.nodes[node.index()].mac.frame_on_air();
        let airtime = frame.airtime;
        if let Some(trace) = &mut self.trace {
            trace.push(TraceEntry::of(now, node, TraceWhat::Tx, frame));
        }
        if let Some(pcap) = &mut self.pcap {
            pcap.transmitted(now, node, frame);
        }
        // The end of the transmission joins the frame's batch of ends (its
        // timer armed, with the sequence number its own event would have
        // had, where phy_outputs would have armed it).
        let mut out = self.nodes[node.index()].phy.handle(now, PhyInput::Transmit { airtime });
        let tx_end = out.timer.take().map(|(timer, end)| {
            debug_assert_eq!(timer, PhyTimer::TxEnd);
            Arrival { node, link: 0, start: end, seq: self.nodes[node.index()].timers[PhyTimer::TxEnd as usize].arm_in_batch(&mut self.queue, end) }
        });
        self.phy_outputs(node, out);
        // Moving nodes: the receivers and their links as of now, kept with
        // the frame for its receptions.
        let mobile = self.channel.is_mobile();
        // The reception model's channel hook: a signal below this power is
        // offered to its receiver now, which may keep it (as interference
        // only) and want no arrival event (0 W: every signal arrives).
        let weak_below_w = self.channel.weak_signal_below_w();
        let links = self.channel.neighbours_at(node, now);
        if links.list.is_empty() {
            return self.schedule_tx_end(tx_end);
        }
        let at = self.on_air.insert(self.nodes[node.index()].mac.frame_on_air(), links.list.len() as u32);
        if mobile {
            self.on_air.store_links(at, links.list);
        }
        // One event in the queue for the frame's arrivals at all its
        // receivers (`frame_arrivals`), each with the sequence number its
        // own event would have had.
        let first_seq = self.queue.reserve(links.list.len() as u64);
        if weak_below_w == 0.0 {
            // Every signal arrives: the channel's order of arrival is the
            // events' order.
            let list = links.list;
            let arrivals = links.by_arrival.iter().map(|&k| arrival(&list[k as usize], k, now, first_seq + u64::from(k)));
            self.on_air.set_ordered_arrivals(at, arrivals);
        } else {
            let nodes = &mut self.nodes;
            self.on_air.set_heard_arrivals(at, &links, now, first_seq, |link| {
                let start = now + link.delay;
                link.rx_power_w >= weak_below_w
                    || nodes[link.node.index()].phy.take_weak_signal(now, start, start + airtime, link.rx_power_w)
            });
        }
        let receivers = self.on_air.arrival_count(at) as u32;
        if receivers != links.list.len() as u32 {
            self.on_air.set_receivers(at, receivers);
        }
        if receivers == 0 {
            return self.schedule_tx_end(tx_end); // the frame is gone: no batch
        }
        if let Some(end) = tx_end {
            // The first of the frame's ends (every reception ends after it).
            self.on_air.add_end(at, end);
            self.queue.schedule_reserved(end.start, end.seq, super::Event::new(node.0, Layer::Phy, super::frame_timers_id(at, Timers::Ends)));
        }
        self.schedule_next_arrival(at);
    }

    /// The transmission's end as its own timer event (a frame no node feels).
    fn schedule_tx_end(&mut self, tx_end: Option<Arrival>) {
        if let Some(end) = tx_end {
            let event = super::Event::new(end.node.0, Layer::Phy, PhyTimer::TxEnd as u32);
            self.queue.schedule_reserved(end.start, end.seq, event);
        }
    }

    /// Put frame `at`'s next arrival in the queue, if it has one left.
    fn schedule_next_arrival(&mut self, at: FrameRef) {
        if let Some(next) = self.on_air.next_arrival(at) {
            self.queue.schedule_reserved(next.start, next.seq, super::Event::new(next.node.0, Layer::Channel, at.0));
        }
    }

    /// The event of frame `at`'s arrival at `node`; then the frame's next
    /// arrivals, for as long as each is the next event of the run anyway
    /// (nothing in the queue comes before it: `EventQueue::continue_at`),
    /// else the next is put back in the queue. The arrivals are handled in
    /// the order, and at the times, their own events would have had. A
    /// profiled run puts each back, so that it counts one per event.
    pub(crate) fn frame_arrivals(&mut self, mut node: NodeId, at: FrameRef) {
        loop {
            let this = self.on_air.next_arrival(at).expect("the frame's next arrival");
            debug_assert_eq!(this.node, node);
            self.on_air.arrival_happens(at);
            // Read first: after the frame's last arrival its slot may be freed.
            let next = self.on_air.next_arrival(at);
            self.frame_arrives(node, at, this.link);
            let Some(next) = next else { return };
            if !self.hop_dirty.is_empty() {
                self.hop_flush();
            }
            if self.profile.is_some() || !self.queue.continue_at(next.start, next.seq) {
                return self.schedule_next_arrival(at);
            }
            node = next.node;
        }
    }

    fn mac_indication(&mut self, node: NodeId, indication: MacIndication, packets: &[Packet], received: Option<FrameRef>) {
        match indication {
            MacIndication::Heard { from } => self.routing_heard(node, from),
            MacIndication::Overheard { from } => {
                let at = received.expect("an overheard packet comes with the frame received");
                let packet = self.on_air.frame(at).packet.as_ref().expect("DATA carries a packet");
                // ns-2's DSR tap reads only packets with its header.
                if packet.arp().is_none() {
                    let packet = *packet;
                    self.routing_overheard(node, &packet, from)
                }
            }
            MacIndication::Delivered { from } => {
                let at = received.expect("a delivery comes with the frame received");
                // Read in the frame, then copied out once (each copy of a
                // packet is 200 bytes: docs/performance.md).
                let packet = self.on_air.frame(at).packet.as_ref().expect("DATA carries a packet");
                // ARP packets go to the table at once (mac/ll.cc:153-156).
                if packet.arp().is_some() {
                    let packet = *packet;
                    return self.arp_input(node, &packet);
                }
                if self.timing.ll_delay > crate::time::SimDuration::ZERO {
                    // Copied from the frame straight into the link layer
                    // (bound apart first, it is copied twice).
                    return self.ll_enter(node, super::ll::Transit::Up { node, packet: *packet, from });
                }
                let packet = *packet;
                self.net_receive(node, &packet, from)
            }
            MacIndication::ServiceStarted { packet } => Stack::app_packet_entered_service(self, node, &packet),
            MacIndication::RetryLimit { packet, next_hop, sequence, data_attempts, last_loss } => {
                self.retry_limit(node, &packets[packet.0 as usize], next_hop, (sequence, data_attempts), last_loss)
            }
            MacIndication::TxDone(done) => Stack::mac_tx_done(self, node, &done),
            MacIndication::Dropped { packet, cause } => self.drop_packet(node, &packets[packet.0 as usize], cause),
            MacIndication::HeldChanged => self.hop_update(node),
            MacIndication::QueueDrained => Stack::queue_drained(self, node),
        }
    }

    /// The MAC gave up on `packet` toward `next_hop` at its retry limit
    /// (`(sequence, data_attempts)` of its DATA): drop it with the cause
    /// the world knows (or hand it to a protocol that salvages), then tell
    /// routing of the failure.
    fn retry_limit(
        &mut self,
        node: NodeId,
        packet: &Packet,
        next_hop: NodeId,
        (sequence, data_attempts): (u16, u32),
        last_loss: AttemptLoss,
    ) {
        if packet.arp().is_some() {
            return self.arp_packet_lost();
        }
        // If the next hop did receive the DATA (only its ACKs were
        // lost), the packet lives on there: not a loss.
        let mut by_channel_error = last_loss == AttemptLoss::ChannelError;
        // A protocol that salvages (DSR) gets the packet to send on
        // or drop with the cause found here.
        let salvages = self.routing[node.index()].salvages_failed();
        let mut lost = None;
        if !self.next_hop_has(node, next_hop, sequence, data_attempts) {
            let cause = match last_loss {
                AttemptLoss::ChannelError => DropCause::ChannelError,
                AttemptLoss::NoResponse => DropCause::RetryLimit,
            };
            // Ground truth: a next hop that moved out of decoding
            // range broke the route; it was not contention.
            let now = self.now();
            let moved_away = self.channel.positions_change() && !self.channel.decodable_at(node, next_hop, now);
            let cause = if moved_away { DropCause::RouteBreak } else { cause };
            by_channel_error &= !moved_away;
            if salvages {
                lost = Some(cause);
            } else {
                self.drop_packet(node, packet, cause);
            }
        }
        self.net_link_failure(node, packet, next_hop, lost, by_channel_error);
    }

    /// Whether `next_hop` already received DATA `sequence` from `node`
    /// (its ACK was lost): ground truth for conservation, not something the
    /// sender knows.
    pub(crate) fn next_hop_has(&self, node: NodeId, next_hop: NodeId, sequence: u16, data_attempts: u32) -> bool {
        data_attempts > 0 && next_hop != BROADCAST && self.nodes[next_hop.index()].mac.received_last(node, sequence)
    }

    /// Note that `node`'s held data may have changed; its congestion state
    /// is re-evaluated once the current event is complete ([`World::hop_flush`]).
    pub(crate) fn hop_update(&mut self, node: NodeId) {
        if self.nodes[node.index()].mac.hop_control_enabled() && !self.hop_dirty.contains(&node) {
            self.hop_dirty.push(node);
        }
    }

    /// Re-evaluate the congestion state of the nodes whose held data
    /// changed during the event just processed: the data packets in the
    /// MAC and those waiting for a route (docs/semitcp-2018.md).
    pub(crate) fn hop_flush(&mut self) {
        let now = self.now();
        let mut dirty = std::mem::take(&mut self.hop_dirty);
        for &node in &dirty {
            let mac = &self.nodes[node.index()].mac;
            let held = mac.held_with(self.routing[node.index()].buffered());
            self.nodes[node.index()].mac.update_held(now, held);
        }
        dirty.clear();
        self.hop_dirty = dirty;
    }
}

/// A frame sent at `now` arrives at `link`'s node (at `index` in the
/// transmitter's links) after its propagation delay; `seq`: the event
/// sequence number reserved for it.
fn arrival(link: &Neighbour, index: u32, now: SimTime, seq: u64) -> Arrival {
    Arrival { node: link.node, link: index, start: now + link.delay, seq }
}
