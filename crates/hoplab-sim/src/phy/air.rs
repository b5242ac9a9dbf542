//! Frames on the air: each transmitted frame is kept here, once, until the
//! last node that feels it is done with it (its reception ended, or it was
//! ignored or lost in a collision). Receivers refer to it by [`FrameRef`];
//! nobody copies a frame in flight.
//!
//! Each frame also keeps its arrivals, one per receiver, in the order they
//! happen (issue 30): the world schedules one event per frame on the air
//! and walks this list ([`OnAir::next_arrival`]) instead of putting one
//! event per receiver in the queue.

use super::channel::Neighbour;
use super::neighbours::Links;
use crate::time::SimTime;
use crate::wire::ieee80211::Frame;
use crate::wire::NodeId;

/// A frame's arrival at one receiver (or the end of its reception there):
/// when, and the event sequence number reserved for it (its place among
/// simultaneous events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    pub node: NodeId,
    /// For an arrival: where its receiver was in the transmitter's list of
    /// links when the frame went out ([`OnAir::link_at`],
    /// [`Channel::static_link_at`](super::Channel::static_link_at)), so
    /// that the link is read there without a search; 0 for a timer event.
    /// (In the padding beside `node`: the size is unchanged.)
    pub link: u32,
    pub start: SimTime,
    pub seq: u64,
}

/// A frame's events at its receivers in the order they happen, and how
/// many have happened. A slot's lists keep their allocations when the slot
/// is reused: no allocation per frame.
#[derive(Debug, Clone, Default)]
struct Batch {
    list: Vec<Arrival>,
    next: usize,
}

impl Batch {
    fn next(&self) -> Option<Arrival> {
        self.list.get(self.next).copied()
    }
}

/// A frame on the air (its slot in the [`OnAir`] table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRef(pub u32);

/// The frames on the air, reference counted by their receivers, slots
/// reused.
#[derive(Debug, Default)]
pub struct OnAir {
    frames: Vec<(Frame, u32)>,
    free: Vec<u32>,
    /// Moving nodes: per slot, the transmitter's links when the frame left
    /// (ascending receiver id). Empty for static nodes.
    links: Vec<Vec<Neighbour>>,
    /// Per slot, the frame's arrivals in the order they happen ((start,
    /// seq) ascending).
    arrivals: Vec<Batch>,
    /// Per slot, the frame's timer events at its transmitter and
    /// receivers, in the order they happen, in two lists ([`Timers`]).
    timers: [Vec<Batch>; 2],
}

/// A frame's two lists of timer events, each walked in the order its
/// events happen ((time, seq) ascending), each holding one queue entry
/// for all its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timers {
    /// The end of its transmission (the transmitter's TxEnd timer), then
    /// the ends of its receptions (the RxEnd timers of the receivers that
    /// locked onto it until its end), and any later step of a reception.
    Ends = 0,
    /// The steps of its receptions that come before its transmission
    /// ends: the SINR receiver's preamble detection, 4 us after each
    /// arrival.
    Steps = 1,
}

impl OnAir {
    /// A frame leaves its transmitter toward `receivers` nodes.
    #[inline]
    pub fn insert(&mut self, frame: &Frame, receivers: u32) -> FrameRef {
        if let Some(slot) = self.free.pop() {
            let entry = &mut self.frames[slot as usize];
            // An RTS, CTS or ACK (no packet) by its fields: its 200 bytes of
            // room for a packet are not copied (a call to memcpy). The
            // whole copy is a call of its own, so that the compiler does
            // not merge the two into one copy through a temporary.
            if frame.packet.is_none() {
                entry.0 = without_packet(frame);
            } else {
                copy_frame(&mut entry.0, frame);
            }
            entry.1 = receivers;
            FrameRef(slot)
        } else {
            self.frames.push((*frame, receivers));
            FrameRef((self.frames.len() - 1) as u32)
        }
    }

    /// Set the number of receivers of a frame just inserted; a frame no
    /// receiver refers to is freed at once.
    pub fn set_receivers(&mut self, frame: FrameRef, receivers: u32) {
        self.frames[frame.0 as usize].1 = receivers;
        if receivers == 0 {
            self.free.push(frame.0);
        }
    }

    /// Keep the links of a moving transmitter with its frame.
    pub fn store_links(&mut self, frame: FrameRef, links: &[Neighbour]) {
        let slot = frame.0 as usize;
        if self.links.len() <= slot {
            self.links.resize_with(slot + 1, Vec::new);
        }
        let kept = &mut self.links[slot];
        kept.clear();
        kept.extend_from_slice(links);
    }

    /// Set the arrivals of a frame sent at `now` toward `links`, of the
    /// links `heard` keeps (asked once for each, in the order the frame
    /// reaches them: each is another node, so the order changes nothing
    /// there). The j-th kept in that order (by delay, then index) gets
    /// the sequence number `first_seq + j`: the arrivals are then in the
    /// order their events happen ((start, seq) ascending) without a sort.
    ///
    /// The events happen in the order numbering them by index did (the
    /// links' loop before, in ascending id, then a sort): among the frame's
    /// arrivals at one instant both orders are by index, and every other
    /// event's number is outside the frame's reserved range
    /// (`first_seq ..first_seq + links.list.len()`), above or below all of
    /// them whichever way they are numbered inside it.
    #[inline(always)]
    pub fn set_heard_arrivals(
        &mut self,
        frame: FrameRef,
        links: &Links<'_>,
        now: SimTime,
        first_seq: u64,
        mut heard: impl FnMut(&Neighbour) -> bool,
    ) {
        let list = &mut self.emptied(frame).list;
        let mut seq = first_seq;
        for &k in links.by_arrival {
            let link = &links.list[k as usize];
            if heard(link) {
                list.push(Arrival { node: link.node, link: k, start: now + link.delay, seq });
                seq += 1;
            }
        }
        debug_assert!(list.is_sorted_by_key(|a| (a.start, a.seq)));
    }

    /// Set the arrivals of a frame just inserted, given in the order they
    /// happen ((start, seq) ascending).
    #[inline(always)]
    pub fn set_ordered_arrivals(&mut self, frame: FrameRef, arrivals: impl Iterator<Item = Arrival>) {
        let batch = self.emptied(frame);
        batch.list.extend(arrivals);
        debug_assert!(batch.list.is_sorted_by_key(|a| (a.start, a.seq)));
    }

    /// The frame's lists, emptied (the slot's lists made, the first time
    /// it is used); its list of arrivals.
    #[inline(always)]
    fn emptied(&mut self, frame: FrameRef) -> &mut Batch {
        let slot = frame.0 as usize;
        if self.arrivals.len() <= slot {
            self.arrivals.resize_with(slot + 1, Default::default);
            for list in &mut self.timers {
                list.resize_with(slot + 1, Default::default);
            }
        }
        for list in &mut self.timers {
            let timers = &mut list[slot];
            timers.list.clear();
            timers.next = 0;
        }
        let batch = &mut self.arrivals[slot];
        batch.list.clear();
        batch.next = 0;
        batch
    }

    /// How many arrivals the frame has (set by [`OnAir::set_arrivals`]).
    pub fn arrival_count(&self, frame: FrameRef) -> usize {
        self.arrivals[frame.0 as usize].list.len()
    }

    /// The frame's next arrival that has not happened yet, if any.
    #[inline]
    pub fn next_arrival(&self, frame: FrameRef) -> Option<Arrival> {
        self.arrivals[frame.0 as usize].next()
    }

    /// The frame's next arrival happens (it is handled now).
    #[inline]
    pub fn arrival_happens(&mut self, frame: FrameRef) {
        self.arrivals[frame.0 as usize].next += 1;
    }

    /// A receiver locked onto the frame: its reception ends at `end.start`
    /// (no earlier than any end added before). True if the frame had no
    /// end pending: the caller then schedules this one, and the frame is
    /// kept (one reference more) until its last pending end has happened
    /// ([`OnAir::timer_happens`]), even if every receiver lets it go first.
    pub fn add_end(&mut self, frame: FrameRef, end: Arrival) -> bool {
        self.add_timer(frame, Timers::Ends, end)
    }

    /// Whether a timer event at `t` (its sequence number reserved now, so
    /// above every one before it) can join the frame's list `which`: the
    /// list's pending events all come before it.
    #[inline]
    pub fn timer_fits(&self, frame: FrameRef, which: Timers, t: SimTime) -> bool {
        let batch = &self.timers[which as usize][frame.0 as usize];
        batch.next == batch.list.len() || batch.list.last().is_some_and(|last| last.start <= t)
    }

    /// Add a timer event to the frame's list `which`, after every pending
    /// one ([`OnAir::timer_fits`]). True if the list had none pending: the
    /// caller then schedules this one, and the frame is kept (one
    /// reference more) until the list's last pending event has happened.
    pub fn add_timer(&mut self, frame: FrameRef, which: Timers, event: Arrival) -> bool {
        let batch = &mut self.timers[which as usize][frame.0 as usize];
        debug_assert!(batch.next == batch.list.len() || batch.list.last().is_none_or(|last| (last.start, last.seq) < (event.start, event.seq)));
        let first = batch.next == batch.list.len();
        batch.list.push(event);
        if first {
            self.frames[frame.0 as usize].1 += 1;
        }
        first
    }

    /// The frame's next pending event of list `which`, if any.
    #[inline]
    pub fn next_timer(&self, frame: FrameRef, which: Timers) -> Option<Arrival> {
        self.timers[which as usize][frame.0 as usize].next()
    }

    /// The frame's next end, if any (list [`Timers::Ends`]).
    #[inline]
    pub fn next_end(&self, frame: FrameRef) -> Option<Arrival> {
        self.next_timer(frame, Timers::Ends)
    }

    /// The next event of the frame's list `which` happens (it is handled
    /// now); after the list's last pending event the frame's extra
    /// reference goes ([`OnAir::add_timer`]).
    #[inline]
    pub fn timer_happens(&mut self, frame: FrameRef, which: Timers) {
        let batch = &mut self.timers[which as usize][frame.0 as usize];
        batch.next += 1;
        if batch.next == batch.list.len() {
            self.release(frame);
        }
    }

    /// The stored link of `frame` at `index` in its list, if it is to
    /// `node` (moving nodes only; else [`OnAir::link`]'s search).
    #[inline]
    pub fn link_at(&self, frame: FrameRef, index: u32, node: NodeId) -> Option<Neighbour> {
        let links = self.links.get(frame.0 as usize)?;
        match links.get(index as usize) {
            Some(link) if link.node == node => Some(*link),
            _ => self.link(frame, node),
        }
    }

    /// The stored link of `frame` to `node` (moving nodes only).
    pub fn link(&self, frame: FrameRef, node: NodeId) -> Option<Neighbour> {
        let links = self.links.get(frame.0 as usize)?;
        links.binary_search_by_key(&node, |n| n.node).ok().map(|i| links[i])
    }

    pub fn frame(&self, frame: FrameRef) -> &Frame {
        &self.frames[frame.0 as usize].0
    }

    /// One receiver is done with the frame; its slot is freed after the last.
    pub fn release(&mut self, frame: FrameRef) {
        let entry = &mut self.frames[frame.0 as usize];
        entry.1 -= 1;
        if entry.1 == 0 {
            self.free.push(frame.0);
        }
    }
}

/// `*to = *frame` (a call to memcpy).
#[inline(never)]
fn copy_frame(to: &mut Frame, frame: &Frame) {
    *to = *frame;
}

/// `frame`, which carries no packet, field by field.
#[inline(always)]
fn without_packet(frame: &Frame) -> Frame {
    let Frame { kind, transmitter, receiver, duration, airtime, sequence, retry, packet: _, congestion_mark, needs_no_buffer, control_packet } =
        *frame;
    Frame { kind, transmitter, receiver, duration, airtime, sequence, retry, packet: None, congestion_mark, needs_no_buffer, control_packet }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;
    use crate::wire::ieee80211::FrameKind;

    fn link(node: u32) -> Neighbour {
        Neighbour { node: NodeId(node), distance_m: 100.0 * node as f64, rx_power_w: 1e-9 / node as f64, delay: SimDuration(node as u64), decodable: true }
    }

    /// A moving transmitter's stored link read at its index is the one the
    /// search finds; a wrong index falls back to the search; a frame with
    /// no stored links (static nodes) has none.
    #[test]
    fn a_stored_link_read_at_its_index_is_the_one_searched_for() {
        let mut air = OnAir::default();
        let frame = Frame::new(FrameKind::Data, NodeId(0), NodeId(1), SimDuration::ZERO, SimDuration(1000));
        let stat = air.insert(&frame, 1);
        let moving = air.insert(&frame, 3);
        let links = [link(1), link(3), link(4)];
        air.store_links(moving, &links);
        for (k, l) in links.iter().enumerate() {
            assert_eq!(air.link_at(moving, k as u32, l.node), Some(*l));
            assert_eq!(air.link_at(moving, (k as u32 + 1) % 3, l.node), Some(*l));
        }
        assert_eq!(air.link_at(moving, 0, NodeId(2)), None);
        assert_eq!(air.link_at(stat, 0, NodeId(1)), None);
    }

    /// The arrivals of the links kept, walked in the order of arrival, come
    /// in the order of those the links' loop in id order gave (each
    /// numbered by its rank among the kept, then sorted by (start, seq)),
    /// numbered in that order within the frame's reserved range, for
    /// delays that tie and every kind of choice; each link is asked once,
    /// in the order of arrival.
    #[test]
    fn heard_arrivals_come_in_the_order_the_sorted_ones_did() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let frame = Frame::new(FrameKind::Data, NodeId(0), NodeId(1), SimDuration::ZERO, SimDuration(1000));
        let mut air = OnAir::default();
        let at = air.insert(&frame, 1);
        for round in 0..400 {
            let n = [1, 3, 4, 13, 40][round % 5];
            let list: Vec<Neighbour> = (0..n)
                .map(|i| Neighbour { delay: SimDuration(next(8) * 100), ..link(i as u32 + 1) })
                .collect();
            let by_arrival = super::super::neighbours::arrival_order(&list);
            let keep: Vec<bool> = (0..n).map(|_| next(4) != 0 || round % 3 == 0).collect();
            let (now, first_seq) = (SimTime(5_000 + round as u64), 1_000 * round as u64);
            let mut want: Vec<Arrival> = (0..n)
                .filter(|&k| keep[k])
                .enumerate()
                .map(|(j, k)| Arrival { node: list[k].node, link: k as u32, start: now + list[k].delay, seq: first_seq + j as u64 })
                .collect();
            want.sort_unstable_by_key(|a| (a.start, a.seq));
            let links = Links { list: &list, by_arrival: &by_arrival };
            let mut asked = Vec::new();
            air.set_heard_arrivals(at, &links, now, first_seq, |l| {
                asked.push(l.node);
                keep[l.node.index() - 1]
            });
            let got: Vec<Arrival> = std::iter::from_fn(|| {
                let a = air.next_arrival(at)?;
                air.arrival_happens(at);
                Some(a)
            })
            .collect();
            for (a, seq) in want.iter_mut().zip(first_seq..) {
                a.seq = seq;
            }
            assert_eq!(got, want, "round {round}");
            let in_arrival_order: Vec<NodeId> = by_arrival.iter().map(|&k| list[k as usize].node).collect();
            assert_eq!(asked, in_arrival_order, "each link asked once, in the order of arrival");
        }
    }
}
