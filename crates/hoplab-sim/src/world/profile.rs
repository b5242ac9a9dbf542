//! Events by kind and by outcome: where a run's events go, and how many of
//! them change any decision (issue 30's measurement before events are cut;
//! docs/performance.md).
//!
//! A profiled run ([`run_profiled`]) pops and dispatches exactly the events
//! of a normal run, in the same order: it only looks before and after each
//! one, so its report is the normal run's. The normal run pays one
//! `Option` check per MAC step (`World::profile` is none).
//!
//! Each event gets a kind, read before it is handled (a frame's arrival is
//! split by the state of its receiver then), and one outcome:
//! - `stale`: a cancelled or re-armed timer's entry; nothing runs;
//! - `no_mac_input`: handled without any MAC step (the PHY kept it, e.g. a
//!   frame arriving at a receiver already locked onto another and not
//!   captured; or a layer above the MAC that handed it nothing);
//! - `mac_unchanged`: the MAC got an input (a PHY indication, a timer, a
//!   packet) but wrote nothing, armed or cancelled no timer, and its view
//!   of the medium and its queue did not change ([`MacView`]);
//! - `medium_only`: the MAC's view of the medium changed (physical or
//!   virtual carrier sense, EIFS) and nothing else: no output, no timer, no
//!   backoff, service or queue change (a carrier-sense transition the MAC
//!   could read when it needs it instead of being told);
//! - `mac_acted`: some MAC step wrote an output (a frame, a packet up or
//!   down) or changed a timer, its backoff, its service or its queue.
//!
//! The first three change no decision of the node's channel access; the
//! fourth changes only what the MAC would read at its next decision; the
//! fifth may decide. Counted per event, not per step: an event's outcome
//! is the furthest-reaching of the MAC steps it caused.

use crate::engine::Timer;
use crate::mac::{Mac, MacTimer};
use crate::phy::PhyTimer;
use crate::time::SimTime;
use crate::world::{timer_slot, Event, Layer, World, NODE_TIMERS};
use serde::Serialize;

/// What an event was (read before it is handled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A frame starts arriving at a node that is transmitting.
    ArrivalTransmitting = 0,
    /// ... at a node locked onto another frame.
    ArrivalLocked,
    /// ... at an idle node, with power enough to decode it.
    ArrivalIdleDecodable,
    /// ... at an idle node, below the decoding threshold (carrier sense only).
    ArrivalIdleSenseOnly,
    /// ... at a node that moved out of reach since the frame went out.
    ArrivalOutOfReach,
    PhyRxEnd,
    PhyTxEnd,
    PhyCcaEnd,
    MacAccess,
    MacNavEnd,
    MacResponseTimeout,
    MacSendResponse,
    MacHoldRelease,
    MacDataWait,
    /// A packet leaves the link layer's delay (`mac.ll_delay_us`).
    LinkLayer,
    WiredLink,
    Routing,
    Transport,
    App,
    Stats,
}

impl Kind {
    pub const COUNT: usize = 20;
    pub const ALL: [Kind; Kind::COUNT] = [
        Kind::ArrivalTransmitting,
        Kind::ArrivalLocked,
        Kind::ArrivalIdleDecodable,
        Kind::ArrivalIdleSenseOnly,
        Kind::ArrivalOutOfReach,
        Kind::PhyRxEnd,
        Kind::PhyTxEnd,
        Kind::PhyCcaEnd,
        Kind::MacAccess,
        Kind::MacNavEnd,
        Kind::MacResponseTimeout,
        Kind::MacSendResponse,
        Kind::MacHoldRelease,
        Kind::MacDataWait,
        Kind::LinkLayer,
        Kind::WiredLink,
        Kind::Routing,
        Kind::Transport,
        Kind::App,
        Kind::Stats,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::ArrivalTransmitting => "arrival: receiver transmitting",
            Kind::ArrivalLocked => "arrival: receiver locked on another frame",
            Kind::ArrivalIdleDecodable => "arrival: receiver idle, decodable",
            Kind::ArrivalIdleSenseOnly => "arrival: receiver idle, carrier sense only",
            Kind::ArrivalOutOfReach => "arrival: receiver moved out of reach",
            Kind::PhyRxEnd => "phy: rx end (reception step)",
            Kind::PhyTxEnd => "phy: tx end",
            Kind::PhyCcaEnd => "phy: energy carrier sense end",
            Kind::MacAccess => "mac timer: access (backoff / defer)",
            Kind::MacNavEnd => "mac timer: NAV end",
            Kind::MacResponseTimeout => "mac timer: CTS / ACK timeout",
            Kind::MacSendResponse => "mac timer: send response (SIFS)",
            Kind::MacHoldRelease => "mac timer: hop-control hold release",
            Kind::MacDataWait => "mac timer: hop-control data wait",
            Kind::LinkLayer => "link layer delay",
            Kind::WiredLink => "wired link",
            Kind::Routing => "routing timer",
            Kind::Transport => "transport timer",
            Kind::App => "application",
            Kind::Stats => "time-series sample",
        }
    }

    fn of_mac_timer(timer: MacTimer) -> Kind {
        match timer {
            MacTimer::Access => Kind::MacAccess,
            MacTimer::NavEnd => Kind::MacNavEnd,
            MacTimer::ResponseTimeout => Kind::MacResponseTimeout,
            MacTimer::SendResponse => Kind::MacSendResponse,
            MacTimer::HoldRelease => Kind::MacHoldRelease,
            MacTimer::DataWait => Kind::MacDataWait,
        }
    }
}

/// What an event did (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Outcome {
    Stale = 0,
    NoMacInput,
    MacUnchanged,
    MediumOnly,
    MacActed,
}

impl Outcome {
    pub const COUNT: usize = 5;
    pub const ALL: [Outcome; Outcome::COUNT] =
        [Outcome::Stale, Outcome::NoMacInput, Outcome::MacUnchanged, Outcome::MediumOnly, Outcome::MacActed];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Stale => "stale",
            Outcome::NoMacInput => "no_mac_input",
            Outcome::MacUnchanged => "mac_unchanged",
            Outcome::MediumOnly => "medium_only",
            Outcome::MacActed => "mac_acted",
        }
    }
}

/// What one MAC step changed (ordered: the furthest-reaching is largest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StepChange {
    Nothing,
    /// Only the MAC's view of the medium.
    Medium,
    /// An output, a timer, the backoff, the service or the queue.
    Acted,
}

/// What of a node's MAC a step may change that decides its channel access:
/// its timers' deadlines (the PHY's too: they share the slots; a timer
/// re-armed for the deadline it had changes nothing, though it leaves a
/// stale entry), its view of the medium (physical and virtual carrier
/// sense, EIFS), its backoff and contention window, what it is sending or
/// answering, its queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MacView {
    deadlines: [Option<SimTime>; NODE_TIMERS],
    medium: (bool, SimTime, SimTime),
    backoff_slots: Option<u32>,
    cw: u32,
    in_service: bool,
    responding: bool,
    transmitting: bool,
    queued: usize,
}

impl MacView {
    pub fn of(mac: &Mac, slots: &[Timer; NODE_TIMERS]) -> MacView {
        MacView {
            deadlines: slots.map(|timer| timer.is_armed().then(|| timer.deadline())),
            medium: mac.medium(),
            backoff_slots: mac.backoff_slots(),
            cw: mac.cw(),
            in_service: mac.serving().is_some(),
            responding: mac.is_responding(),
            transmitting: mac.is_transmitting(),
            queued: mac.queued_len(),
        }
    }

    /// What a step that took the MAC from `self` to `after` changed
    /// (`wrote`: it wrote an output).
    pub fn change(&self, after: &MacView, wrote: bool) -> StepChange {
        let same_but_medium = MacView { medium: after.medium, ..*self } == *after;
        if wrote || !same_but_medium {
            StepChange::Acted
        } else if self.medium != after.medium {
            StepChange::Medium
        } else {
            StepChange::Nothing
        }
    }
}

/// Events counted by kind and outcome.
#[derive(Debug, Clone, Default)]
pub struct EventProfile {
    counts: [[u64; Outcome::COUNT]; Kind::COUNT],
    /// MAC steps of the event being handled, and the furthest-reaching
    /// change of one.
    event_mac_steps: u32,
    event_change: Option<StepChange>,
    /// Every MAC step of the run, and those that changed the MAC (its
    /// medium view, or more).
    pub mac_steps: u64,
    pub mac_steps_changed: u64,
}

impl EventProfile {
    /// A MAC step was taken that changed `change` ([`MacView::change`]).
    #[inline]
    pub fn mac_stepped(&mut self, change: StepChange) {
        self.event_mac_steps += 1;
        self.mac_steps_changed += (change != StepChange::Nothing) as u64;
        self.event_change = self.event_change.max(Some(change));
    }

    pub fn count(&self, kind: Kind, outcome: Outcome) -> u64 {
        self.counts[kind as usize][outcome as usize]
    }

    /// Events of `kind`, every outcome.
    pub fn of_kind(&self, kind: Kind) -> u64 {
        self.counts[kind as usize].iter().sum()
    }

    /// Every event counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }

    fn record(&mut self, kind: Kind, live: bool) {
        let outcome = match (live, self.event_change.take()) {
            (false, _) => Outcome::Stale,
            (true, None) => Outcome::NoMacInput,
            (true, Some(StepChange::Nothing)) => Outcome::MacUnchanged,
            (true, Some(StepChange::Medium)) => Outcome::MediumOnly,
            (true, Some(StepChange::Acted)) => Outcome::MacActed,
        };
        self.counts[kind as usize][outcome as usize] += 1;
        self.mac_steps += self.event_mac_steps as u64;
        self.event_mac_steps = 0;
    }

    /// One row per kind that occurred: (kind, counts by [`Outcome::ALL`]).
    pub fn rows(&self) -> Vec<ProfileRow> {
        Kind::ALL
            .iter()
            .filter(|&&kind| self.of_kind(kind) > 0)
            .map(|&kind| ProfileRow {
                kind: kind.name(),
                stale: self.count(kind, Outcome::Stale),
                no_mac_input: self.count(kind, Outcome::NoMacInput),
                mac_unchanged: self.count(kind, Outcome::MacUnchanged),
                medium_only: self.count(kind, Outcome::MediumOnly),
                mac_acted: self.count(kind, Outcome::MacActed),
            })
            .collect()
    }
}

/// One kind's events by outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileRow {
    pub kind: &'static str,
    pub stale: u64,
    pub no_mac_input: u64,
    pub mac_unchanged: u64,
    pub medium_only: u64,
    pub mac_acted: u64,
}

/// The kind of `event`, from the world as it is before the event is handled.
fn kind_of(world: &World, event: Event) -> Kind {
    let (owner, id) = (event.owner as usize, event.id());
    match event.layer() {
        Layer::Channel => {
            let at = crate::phy::FrameRef(id);
            let frame = world.on_air.frame(at);
            let node = crate::wire::NodeId(event.owner);
            let link = world.on_air.link(at, node).or_else(|| world.channel.static_link(frame.transmitter, node));
            let phy = &world.nodes[owner].phy;
            match link {
                None => Kind::ArrivalOutOfReach,
                Some(_) if phy.is_transmitting() => Kind::ArrivalTransmitting,
                Some(_) if phy.locked().is_some() => Kind::ArrivalLocked,
                Some(link) if link.decodable => Kind::ArrivalIdleDecodable,
                Some(_) => Kind::ArrivalIdleSenseOnly,
            }
        }
        Layer::Mac if id == crate::world::ll::LL_EVENT || id == crate::world::arp::ARP_EVENT => Kind::LinkLayer,
        Layer::Phy => match PhyTimer::ALL[batched_slot(world, event).unwrap_or(id as usize)] {
            PhyTimer::RxEnd => Kind::PhyRxEnd,
            PhyTimer::TxEnd => Kind::PhyTxEnd,
            PhyTimer::CcaEnd => Kind::PhyCcaEnd,
        },
        Layer::Mac => Kind::of_mac_timer(MacTimer::ALL[id as usize]),
        Layer::Link => Kind::WiredLink,
        Layer::Routing => Kind::Routing,
        Layer::Transport => Kind::Transport,
        Layer::App => Kind::App,
        Layer::Stats => Kind::Stats,
    }
}

/// The PHY timer of an event in a frame's batch of ends: the transmitter's
/// TxEnd, or a receiver's RxEnd (None: not such an event).
fn batched_slot(world: &World, event: Event) -> Option<usize> {
    let id = event.id();
    if event.layer() != Layer::Phy || id < crate::world::FRAME_ENDS {
        return None;
    }
    let frame = world.on_air.frame(crate::world::frame_timers_of(id).0);
    let timer = if frame.transmitter.0 == event.owner { PhyTimer::TxEnd } else { PhyTimer::RxEnd };
    Some(timer as usize)
}

/// Whether `event` (of sequence `seq`) will run: false for the entry of a
/// timer cancelled or re-armed since it was scheduled.
fn is_live(world: &World, seq: u64, event: Event) -> bool {
    let (owner, id) = (event.owner as usize, event.id());
    match event.layer() {
        Layer::Mac if id == crate::world::ll::LL_EVENT || id == crate::world::arp::ARP_EVENT => true,
        layer @ (Layer::Phy | Layer::Mac) => {
            let slot = batched_slot(world, event).unwrap_or_else(|| timer_slot(layer, id));
            world.nodes[owner].timers[slot].is_live(seq)
        }
        Layer::Transport => world.flows[owner].timers[id as usize].is_live(seq),
        _ => true,
    }
}

/// [`World::run_until`], counting every event into `world.profile` (set
/// here to an empty profile if none).
pub fn run_profiled(world: &mut World, until: SimTime) {
    world.profile.get_or_insert_with(Default::default);
    while let Some((_, seq, event)) = world.queue.pop_until(until) {
        let kind = kind_of(world, event);
        let live = is_live(world, seq, event);
        world.dispatch(seq, event);
        world.profile.as_deref_mut().expect("set above").record(kind, live);
    }
}
