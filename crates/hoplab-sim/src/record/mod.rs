//! Recording a run for `hoplab view` (docs/view.md): what the page shows
//! of the network over time, sampled at a bounded rate while the run goes.
//!
//! Off by default (`RunOptions::record`): an unrecorded run never reaches
//! this module. A recorded run simulates exactly what an unrecorded one
//! does (`tests/record.rs` compares the reports): the recorder runs the
//! event loop in chunks ([`World::run_within`] up to each sample time) and,
//! between chunks, only reads the world: positions (each node's own
//! mobility stream, so reading one node's position draws nothing from
//! another's), queue lengths, counters, and routes through
//! [`Routing::peek_route`], which settles no expiry and touches no cache.
//! Frames come from the world's frame trace ([`World::enable_trace`]),
//! drained at every sample, so it never holds more than one interval.
//!
//! Bounds: at most [`MAX_SAMPLES`] samples and [`MAX_NODE_SAMPLES`] node
//! samples (samples x nodes); a longer run or a larger network gets a
//! longer interval (at least [`MIN_INTERVAL_S`]). Individual frames are
//! kept up to [`MAX_FRAMES`] in all, the same number per interval, evenly
//! spread over the interval's frames (every frame is still counted per
//! node). The recording says what it kept (`frames_seen`, `frames_kept`).
//! So a 48-node run of 200 s records 800 samples at 0.25 s whatever its
//! traffic.

mod sample;

use crate::net::routing::Routing;
use crate::scenario::Scenario;
use crate::time::{SimDuration, SimTime};
use crate::world::{Stop, World};

/// The shortest sampling interval.
pub const MIN_INTERVAL_S: f64 = 0.25;
/// The most samples a run records.
pub const MAX_SAMPLES: u64 = 800;
/// The most (sample, node) pairs a run records.
pub const MAX_NODE_SAMPLES: u64 = 48 * 800;
/// The most individual frames a run keeps.
pub const MAX_FRAMES: u64 = 60_000;

use crate::mac::hop_control::HopStats;
pub use crate::stats::recording::{CounterSamples, FlowSamples, NodeSamples, Recording, RouteChange, TimelineEvent};

/// Cumulative counters of one flow at the last sample.
#[derive(Debug, Clone, Copy, Default)]
struct FlowMarks {
    delivered: u64,
    window_bytes: u64,
    delay_total_ns: u128,
    delay_samples: u64,
    route_breaks: u64,
    timeouts: u64,
    discoveries: u64,
}

/// Cumulative counters of one node at the last sample.
#[derive(Debug, Clone, Default)]
struct NodeMarks {
    drops: [u64; crate::loss::DropCause::ALL.len()],
    tx_time_ns: u64,
    /// `HopStats::PER_INTERVAL`'s counters, in its order.
    hop_counters: Vec<u64>,
    congested_ns: u64,
}

/// Records a run as it goes ([`Recorder::run`]), then gives the
/// [`Recording`] ([`Recorder::finish`]).
pub struct Recorder {
    interval: SimDuration,
    frames_per_interval: usize,
    recording: Recording,
    flow_marks: Vec<FlowMarks>,
    node_marks: Vec<NodeMarks>,
    /// Each flow's route as last noted (None: never had one).
    last_routes: Vec<Option<Vec<u32>>>,
    last_sample: SimTime,
}

impl Recorder {
    /// Start recording `world` (built from `scenario`, not yet run): turns
    /// its frame trace on and takes the static picture.
    pub fn start(world: &mut World, scenario: &Scenario) -> Recorder {
        let end_s = world.end.as_secs_f64();
        let nodes = world.nodes.len().max(1) as u64;
        let samples = MAX_SAMPLES.min((MAX_NODE_SAMPLES / nodes).max(1));
        // Whole milliseconds, so sample times print short.
        let interval_ms = (MIN_INTERVAL_S.max(end_s / samples as f64) * 1e3).ceil();
        let interval = SimDuration::from_secs_f64(interval_ms / 1e3);
        let frames_per_interval = (MAX_FRAMES / (end_s / (interval_ms / 1e3)).ceil().max(1.0) as u64).max(1) as usize;
        world.enable_trace();
        let radio = &world.channel.radio;
        let area_m = world.channel.is_mobile().then(|| scenario.mobility.area_m(scenario.topology.random_area_m()));
        let mut recording = Recording {
            format: 2,
            interval_s: interval_ms / 1e3,
            duration_s: end_s,
            warmup_s: world.warmup.as_secs_f64(),
            tx_range_m: sample::round3(radio.tx_range_m()),
            cs_range_m: sample::round3(radio.cs_range_m()),
            mobile: world.channel.is_mobile(),
            area_m: area_m.map(|(w, h)| [w, h]),
            has_radio: (0..world.nodes.len()).map(|i| world.channel.has_radio(crate::wire::NodeId(i as u32))).collect(),
            wired_links: world.links.iter().map(|l| [l.a.0, l.b.0]).collect(),
            flow_ends: world.flows.iter().map(|f| [f.src.0, f.dst.0]).collect(),
            drop_causes: crate::loss::DropCause::ALL.iter().map(|c| c.name().to_string()).collect(),
            ..Recording::default()
        };
        recording.nodes.hop_control = HopStats::PER_INTERVAL
            .iter()
            .map(|c| CounterSamples { key: c.key.to_string(), label: c.label.to_string(), per_interval: Vec::new() })
            .collect();
        let marks = NodeMarks { hop_counters: vec![0; HopStats::PER_INTERVAL.len()], ..NodeMarks::default() };
        Recorder {
            interval,
            frames_per_interval,
            recording,
            flow_marks: vec![FlowMarks::default(); world.flows.len()],
            node_marks: vec![marks; world.nodes.len()],
            last_routes: vec![None; world.flows.len()],
            last_sample: SimTime::ZERO,
        }
    }

    /// Run `world` to `end` as [`World::run_within`] does, sampling at
    /// time 0, every interval, and at `end`. The wall-clock and memory
    /// checks are also made at every sample.
    pub fn run(
        &mut self,
        world: &mut World,
        end: SimTime,
        deadline: Option<std::time::Instant>,
        memory_limit_bytes: Option<u64>,
    ) -> Result<(), Stop> {
        let mut next = SimTime::ZERO;
        loop {
            let until = next.min(end);
            world.run_within(until, deadline, memory_limit_bytes)?;
            self.sample(world, until);
            if until >= end {
                return Ok(());
            }
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Err(Stop::WallClock);
            }
            if let Some(message) = memory_limit_bytes.and_then(|limit| world.over_memory_limit(limit)) {
                return Err(Stop::Memory(message));
            }
            next = until + self.interval;
        }
    }

    /// The recording.
    pub fn finish(self) -> Recording {
        self.recording
    }

    /// The route `world` gives flow `flow` at `now`: from its source,
    /// each node's [`Routing::peek_route`] in turn to the destination;
    /// empty if a node has none or the walk loops.
    fn route_now(world: &World, src: crate::wire::NodeId, dst: crate::wire::NodeId, now: SimTime) -> Vec<u32> {
        let mut route = vec![src.0];
        let mut at = src;
        while at != dst {
            let hops = match world.routing[at.index()].peek_route(now, dst) {
                Some(hops) if !hops.is_empty() => hops,
                _ => return Vec::new(),
            };
            for hop in hops {
                if route.contains(&hop.0) {
                    return Vec::new(); // a loop: no usable route
                }
                route.push(hop.0);
            }
            at = crate::wire::NodeId(*route.last().expect("a hop was pushed"));
        }
        route
    }
}

/// Run `world` with a recorder when `record` is set (the run loop's one
/// hook, `api::run_scenario`): the recorder, if any, and how the run
/// stopped.
pub fn run_world(
    world: &mut World,
    scenario: &Scenario,
    record: bool,
    deadline: Option<std::time::Instant>,
    memory_limit_bytes: Option<u64>,
) -> (Option<Recorder>, Result<(), Stop>) {
    let end = world.end;
    if !record {
        return (None, world.run_within(end, deadline, memory_limit_bytes));
    }
    let mut recorder = Recorder::start(world, scenario);
    let stopped = recorder.run(world, end, deadline, memory_limit_bytes);
    (Some(recorder), stopped)
}
