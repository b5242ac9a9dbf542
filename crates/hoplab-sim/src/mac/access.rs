//! Channel access (IEEE 802.11-2016 10.3.2, 10.3.4):
//! - The medium is busy while the PHY is locked on a frame or transmitting
//!   (physical carrier sense) or while the NAV runs (virtual carrier sense).
//! - An idle period's first backoff slot boundary is DIFS after it began, or
//!   later if a frame received in error asks for EIFS (`eifs_until`), or a
//!   CTS/ACK timeout ended later (the timeout counts as the end of a busy
//!   period, as in ns-3's ChannelAccessManager).
//! - Slot boundaries follow the rule of 10.22.2.4: at each boundary a
//!   station either decrements its backoff counter or, at zero, transmits;
//!   a counter of k transmits at `countdown_from + k slots`, and a busy
//!   period starting after boundary j leaves k - (j + 1). This is the
//!   behaviour Bianchi's model (IEEE JSAC 2000) assumes.
//! - A packet reaching an idle MAC with no backoff pending goes out at the
//!   first boundary (immediate access after DIFS); after every transmission
//!   attempt, success or failure, a new backoff is drawn from [0, CW]
//!   (post-backoff), so saturated stations always back off.
//! - ns-2 variants (`preset = "ns2"`): `mac.immediate_access = false` (such
//!   a packet waits DIFS and (random mod CW) slots from its arrival) and
//!   `mac.busy_doubles_cw` (that wait is not frozen by a busy medium; if
//!   the medium is busy when it ends, CW doubles and a backoff is drawn).

use super::hop_control::{DeferralPoint, HopControl};
use super::{Exchange, Frame, FrameKind, Mac, MacContext, MacOutputs, MacTimer, BROADCAST};
use crate::engine::TimerRequests;
use crate::phy::PhyIndication;
use crate::time::{SimDuration, SimTime};

impl Mac {
    /// Re-evaluate carrier sense: freeze the backoff when the medium turns
    /// busy, restart the countdown when it turns idle.
    pub(crate) fn update_medium(&mut self, now: SimTime, ctx: &mut MacContext) {
        let phy_busy = ctx.phy.is_busy();
        self.queue_nav_end_if_needed(now, phy_busy, ctx.timers);
        let busy = phy_busy || self.nav_until > now;
        if busy == self.medium_busy {
            return;
        }
        self.medium_busy = busy;
        if busy {
            if self.access_armed && !self.access_defers {
                self.cancel(MacTimer::Access, ctx);
                // Each boundary countdown_from + j slots reached while idle
                // took one slot off the counter, including one at this very
                // instant (the medium was idle in the slot before it).
                let slot = ctx.timing.slot.as_nanos();
                let boundaries_passed =
                    if now >= self.countdown_from { (now.since(self.countdown_from).as_nanos() / slot) as u32 + 1 } else { 0 };
                if let Some(k) = self.backoff_slots {
                    self.backoff_slots = Some(k.saturating_sub(boundaries_passed));
                }
            }
        } else {
            self.countdown_from = (now + ctx.timing.difs).max(self.eifs_until);
            self.schedule_access(now, ctx);
        }
    }

    /// Arm the access timer if the node has a backoff to count down and may
    /// contend now. A countdown already running keeps its end: a packet
    /// arriving during a post-backoff goes out when it ends (10.3.4.3). A
    /// countdown starting in the middle of an idle period (a backoff drawn
    /// after a semi-TCP hold, a packet reaching an idle MAC) counts its
    /// slots from now, as ns-3's ChannelAccessManager counts from the later
    /// of the access start and the backoff's start; freezing
    /// (`update_medium`) then counts the slots gone from the same instant.
    pub(crate) fn schedule_access(&mut self, now: SimTime, ctx: &mut MacContext) {
        if self.access_armed
            || self.medium_busy
            || self.exchange != Exchange::Idle
            || self.pending_response.is_some()
            || ctx.phy.is_transmitting()
        {
            return;
        }
        let Some(slots) = self.backoff_slots else {
            return;
        };
        self.countdown_from = self.countdown_from.max(now);
        let at = self.countdown_from + ctx.timing.slot * slots as u64;
        self.arm(MacTimer::Access, at, ctx);
    }

    pub(crate) fn draw_backoff(&mut self) {
        self.backoff_slots = Some(self.backoff_rng.uniform_inclusive(self.cw));
        self.access_defers = false;
    }

    /// A packet reached an idle MAC with no backoff pending (10.3.4.2).
    pub(crate) fn first_access(&mut self, now: SimTime, ctx: &mut MacContext) {
        if ctx.timing.immediate_access {
            // The first slot boundary after DIFS.
            self.backoff_slots = Some(0);
        } else {
            // ns-2 Mac802_11::send (mac-802_11.cc:1547-1563): DIFS from
            // now, then (random mod CW) slots.
            self.backoff_slots = Some(self.backoff_rng.uniform_inclusive(self.cw - 1));
            self.countdown_from = now + ctx.timing.difs;
        }
        self.access_defers = ctx.timing.busy_doubles_cw;
    }

    /// The timeout ends a busy period for channel access (ns-3's
    /// ChannelAccessManager): the countdown restarts DIFS after it.
    /// A countdown armed before it in the same step restarts from there.
    pub(crate) fn resume_after_timeout(&mut self, now: SimTime, ctx: &mut MacContext) {
        if !self.medium_busy {
            if self.access_armed {
                self.cancel(MacTimer::Access, ctx);
            }
            self.countdown_from = (now + ctx.timing.difs).max(self.eifs_until);
            self.schedule_access(now, ctx);
        }
    }

    /// Virtual carrier sense: the medium is reserved until `until`.
    ///
    /// The NAV's end changes the medium only if the PHY is idle then (a
    /// busy PHY keeps it busy, and the PHY's own end re-reads the NAV). So
    /// its timer is armed deferred, in its place among simultaneous
    /// events, and queued only once the PHY is idle before it
    /// (`update_medium`, which every change of physical carrier sense
    /// reaches): a NAV end under a busy PHY, most of them, needs no event.
    /// Every decision is as with the timer queued at once.
    ///
    /// The NAV only grows, so an entry already queued for an earlier
    /// arming pops before this one's end: this arming waits for it
    /// (`queue_nav_end_if_needed`) instead of taking a second entry, and
    /// is queued when it pops if the PHY is idle then
    /// ([`Mac::nav_entry_popped`]), or at the PHY's next idle moment after.
    /// Under `preset = "ns2"` most NAVs are set while the PHY is idle (at
    /// the end of a frame: an overheard one's Duration, 10.3.2.4, or EIFS
    /// after one in error, ns-2.35 mac/mac-802_11.cc:1655, 1667) and grow
    /// at the end of the exchange's next frame, which starts SIFS later.
    pub(crate) fn set_nav(&mut self, now: SimTime, until: SimTime, ctx: &mut MacContext) {
        if until > self.nav_until {
            self.nav_until = until;
            ctx.timers.arm_deferred(MacTimer::NavEnd, until);
            self.nav_end_deferred = true;
            self.update_medium(now, ctx);
        }
    }

    /// Queue the deferred NavEnd timer if its end may now matter: the PHY
    /// is idle before it, and no entry of an earlier arming is still in the
    /// queue (that one pops first and comes back here, `nav_entry_popped`).
    #[inline]
    fn queue_nav_end_if_needed(&mut self, now: SimTime, phy_busy: bool, timers: &mut dyn TimerRequests<MacTimer>) {
        if !self.nav_entry_queued && self.nav_end_needs_entry(now, phy_busy) {
            timers.queue_deferred(MacTimer::NavEnd);
        }
    }

    /// Whether the deferred NavEnd timer needs its queue entry now (the
    /// PHY is idle before the NAV's end); if so it counts as queued.
    #[inline]
    fn nav_end_needs_entry(&mut self, now: SimTime, phy_busy: bool) -> bool {
        let needs = self.nav_end_deferred && !phy_busy && self.nav_until > now;
        if needs {
            self.nav_end_deferred = false;
            self.nav_entry_queued = true;
        }
        needs
    }

    /// A NavEnd entry popped, stale or live (`phy_busy`: the PHY's carrier
    /// sense now), before it is handled: no entry of the NAV is queued any
    /// more. True if a later arming that waited for this entry needs its
    /// own now (the PHY is idle): the caller queues it (if the PHY is
    /// busy, its next idle moment does, as for any deferred arming).
    #[inline]
    pub fn nav_entry_popped(&mut self, now: SimTime, phy_busy: bool) -> bool {
        self.nav_entry_queued = false;
        self.nav_end_needs_entry(now, phy_busy)
    }

    /// A PHY indication that the medium turned busy (a reception or a
    /// transmission starting) changes channel access only if a backoff is
    /// counting down on an idle medium (it freezes, `update_medium`);
    /// otherwise all it does is mark the medium busy. This does that at
    /// once, sparing the world a MAC step: true if the indication is
    /// handled so, exactly as `update_medium` would have (`phy_busy`:
    /// the PHY's carrier sense now).
    #[inline]
    pub fn turns_medium_busy(&mut self, indication: &PhyIndication, phy_busy: bool) -> bool {
        let freezes = !self.medium_busy && self.access_armed && !self.access_defers;
        if freezes || !phy_busy || !matches!(indication, PhyIndication::RxStart | PhyIndication::TxStart) {
            return false;
        }
        self.medium_busy = true;
        true
    }

    /// The NAV's end (its live `NavEnd` timer event) with the PHY busy
    /// changes nothing when the medium is already marked busy: the PHY
    /// keeps it busy, and `update_medium` would return at once. True if
    /// so, sparing the world a MAC step (`phy_busy`: the PHY's carrier
    /// sense now). On the chains these are most NAV ends that are queued
    /// (`set_nav`): the PHY went idle before the NAV's end, then busy again.
    #[inline]
    pub fn nav_end_changes_nothing(&self, phy_busy: bool) -> bool {
        phy_busy && self.medium_busy
    }

    /// The backoff counter is zero at a slot boundary: transmit.
    pub(crate) fn access_granted(&mut self, now: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        self.backoff_slots = None;
        let Some(op) = self.op else {
            return; // post-backoff done
        };
        if std::mem::take(&mut self.access_defers) && self.medium_busy {
            // ns-2 check_pktRTS / check_pktTx (mac-802_11.cc:1028-1031,
            // 1080-1084): the defer ended on a busy medium: the window
            // doubles and a backoff is drawn, counted once the medium is
            // idle.
            self.cw = ((self.cw + 1) * 2 - 1).min(ctx.timing.cw_max);
            self.draw_backoff();
            return;
        }
        if op.uses_rts && self.hop_defers(now, op.item.next_hop, DeferralPoint::Access, ctx, out) {
            return;
        }
        self.attempt(now, ctx, out);
    }

    /// Transmit the packet in service's next attempt: its RTS, or its DATA
    /// when it goes without RTS (broadcast, or short).
    pub(crate) fn attempt(&mut self, now: SimTime, ctx: &mut MacContext, out: &mut MacOutputs) {
        let Some(op) = self.op else {
            return;
        };
        // Semi-TCP: a congested node sends its RTS as an RTSC.
        let congestion_mark = op.uses_rts && self.hop.marks_rts();
        let timing = ctx.timing;
        let node = self.node;
        let needs_no_buffer = op.item.packet.is_control() || op.item.packet.dst == op.item.next_hop || self.hop.exempts(&op.item.packet);
        let op = self.op.as_mut().expect("checked above");
        op.last_loss = super::AttemptLoss::NoResponse;
        op.last_attempt_at = now;
        let broadcast = op.item.next_hop == BROADCAST;
        let data_airtime = timing.data_airtime(op.item.packet.size_bytes(), broadcast);
        // Each frame written in place (`transmit_on_air`).
        if broadcast {
            self.exchange = Exchange::Broadcast;
            op.data_attempts += 1;
            put_data_frame(&mut self.on_air, node, op, data_airtime, SimDuration::ZERO);
        } else if op.uses_rts {
            self.exchange = Exchange::WaitCts;
            op.rts_attempts += 1;
            // 10.3.2.5: the RTS reserves CTS + DATA + ACK and three SIFS.
            let duration = timing.sifs * 3 + timing.cts_airtime() + data_airtime + timing.ack_airtime();
            self.on_air = Some(Frame {
                congestion_mark,
                needs_no_buffer,
                control_packet: op.item.packet.is_control(),
                ..Frame::new(FrameKind::Rts, node, op.item.next_hop, duration, timing.rts_airtime())
            });
        } else {
            self.exchange = Exchange::WaitAck;
            op.data_attempts += 1;
            put_data_frame(&mut self.on_air, node, op, data_airtime, timing.sifs + timing.ack_airtime());
        }
        self.transmit_on_air(out);
    }
}

/// Write the DATA frame of the packet in service into `slot`: its header
/// fields, then its packet, copied once from the service into the slot (a
/// frame built apart and then moved in is one more copy of 232 bytes).
pub(crate) fn put_data_frame(
    slot: &mut Option<Frame>,
    node: crate::wire::NodeId,
    op: &super::TxOp,
    airtime: SimDuration,
    duration: SimDuration,
) {
    slot.insert(data_frame_header(node, op, airtime, duration)).packet = Some(op.item.packet);
}

/// The DATA frame of the packet in service without its packet (which the
/// caller copies in where the frame is kept: `put_data_frame`).
fn data_frame_header(node: crate::wire::NodeId, op: &super::TxOp, airtime: SimDuration, duration: SimDuration) -> Frame {
    Frame { sequence: op.sequence, retry: op.data_attempts > 1, ..Frame::new(FrameKind::Data, node, op.item.next_hop, duration, airtime) }
}
