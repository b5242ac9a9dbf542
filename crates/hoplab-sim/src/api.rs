//! The facade the Python binding calls: JSON in, JSON out, errors as values.
//!
//! Everything here is total: bad input comes back as [`ApiError`] with the key
//! it concerns, never as a panic. The binding crate (`hoplab-py`) only converts
//! these into Python objects and exceptions.

use crate::scenario::Scenario;
use crate::stats::report::RunReport;
use serde::Serialize;

pub use crate::error::ApiError;
pub use crate::world::RunOptions;

/// Parse and validate a scenario; return it normalised (all defaults filled)
/// as JSON. Also checks what needs the built topology (connectivity,
/// routes); with a `memory_limit` (bytes), first that the topology fits in
/// it (`ApiError::Simulation` naming what would not), as a run checks.
pub fn validate_json(config_json: &str, memory_limit: Option<u64>) -> Result<String, ApiError> {
    let scenario = Scenario::from_json(config_json)?;
    if let Some(limit) = memory_limit {
        crate::estimate::estimate(&scenario, false)?.check(limit)?;
    }
    crate::world::World::build(&scenario, scenario.seed)?;
    Ok(scenario.to_json())
}

/// What a run of the scenario will cost (events, memory, its parts), as
/// JSON, estimated without building it (`estimate::Estimate`); `series`:
/// the run keeps its time series.
pub fn estimate_json(config_json: &str, series: bool) -> Result<String, ApiError> {
    let scenario = Scenario::from_json(config_json)?;
    let estimate = crate::estimate::estimate(&scenario, series)?;
    serde_json::to_string(&estimate).map_err(|e| ApiError::Simulation(e.to_string()))
}

/// The configuration hash of a scenario given as JSON (the run report's
/// `config_hash`): what identifies a run's configuration, with its seed.
/// Campaigns key their stores with it before running anything.
pub fn config_hash_json(config_json: &str) -> Result<String, ApiError> {
    Ok(Scenario::from_json(config_json)?.config_hash())
}

/// The names of every loss cause, in report order (the keys of `losses`,
/// `ack_losses` and `drops`).
pub fn drop_causes() -> Vec<&'static str> {
    crate::loss::DropCause::ALL.iter().map(|c| c.name()).collect()
}

/// The field names of each part of the run report, every variant's own
/// keys included (`world::report::field_names`).
pub fn report_fields() -> std::collections::BTreeMap<&'static str, Vec<String>> {
    crate::world::report::field_names()
}

/// The JSON Schema of a scenario file (draft 7, pretty-printed): every
/// key, its type, default, choices and description, read off the core's
/// configuration types (`scenario::schema`). `hoplab schema` prints it.
pub fn scenario_schema_json() -> String {
    serde_json::to_string_pretty(&crate::scenario::schema::scenario_schema()).expect("the schema serialises")
}

/// Run a scenario. `seed` overrides the scenario's seed when given.
pub fn simulate(config_json: &str, seed: Option<u64>, options: RunOptions) -> Result<RunReport, ApiError> {
    let mut scenario = Scenario::from_json(config_json)?;
    if let Some(seed) = seed {
        scenario.seed = seed;
    }
    if let Some(limit) = options.memory_limit {
        // Before anything is allocated: what the run cannot avoid holding.
        crate::estimate::estimate(&scenario, options.series)?.check(limit)?;
    }
    let run = std::panic::catch_unwind(|| run_scenario(&scenario, options));
    match run {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "internal error".to_string());
            Err(ApiError::Simulation(message))
        }
    }
}

/// [`simulate`], serialised to JSON.
pub fn simulate_json(config_json: &str, seed: Option<u64>, options: RunOptions) -> Result<String, ApiError> {
    let report = simulate(config_json, seed, options)?;
    serde_json::to_string(&report).map_err(|e| ApiError::Simulation(e.to_string()))
}

/// One benchmark figure (`hoplab bench`).
#[derive(Debug, Clone, Serialize)]
pub struct BenchFigure {
    pub name: String,
    pub events: u64,
    pub wall_seconds: f64,
    pub events_per_second: f64,
    /// Simulated seconds per wall second (0 for the engine micro-benchmark).
    pub sim_seconds_per_wall_second: f64,
    /// Frames put on the air by every node, every kind (0 for the engine
    /// micro-benchmark): the simulated work, to compare scenarios whose
    /// models carry different traffic.
    pub frames: u64,
}

/// The engine micro-benchmark: schedule, cancel and pop `events` events.
pub fn bench_engine(events: u64) -> BenchFigure {
    let (popped, wall_seconds) = crate::engine::bench::schedule_cancel_pop(events);
    BenchFigure {
        name: "engine: schedule/cancel/pop".to_string(),
        events: popped,
        wall_seconds,
        events_per_second: popped as f64 / wall_seconds.max(1e-12),
        sim_seconds_per_wall_second: 0.0,
        frames: 0,
    }
}

/// Time one scenario run.
pub fn bench_scenario(name: &str, config_json: &str) -> Result<BenchFigure, ApiError> {
    let report = simulate(config_json, None, RunOptions::default())?;
    Ok(BenchFigure {
        name: name.to_string(),
        events: report.events,
        wall_seconds: report.wall_seconds,
        events_per_second: report.events as f64 / report.wall_seconds.max(1e-12),
        sim_seconds_per_wall_second: report.sim_seconds / report.wall_seconds.max(1e-12),
        frames: report.nodes.iter().flat_map(|node| node.frames_sent.values()).sum(),
    })
}

/// A run's events by kind and outcome (`hoplab bench --profile-events`).
#[derive(Debug, Clone, Serialize)]
pub struct EventProfileReport {
    pub name: String,
    /// Every event popped (stale timer entries included): the rows' sum.
    pub events: u64,
    /// Frames put on the air by every node, every kind.
    pub frames: u64,
    /// MAC steps taken, and those that changed the MAC (`crate::profile`).
    pub mac_steps: u64,
    pub mac_steps_changed: u64,
    pub rows: Vec<crate::profile::ProfileRow>,
    /// The run's report, as a normal run of the scenario gives it (but its
    /// wall time).
    pub report: RunReport,
}

/// Run a scenario (as a benchmark does: no time series) counting its
/// events by kind and outcome ([`crate::profile`]).
pub fn profile_events(name: &str, config_json: &str) -> Result<EventProfileReport, ApiError> {
    let scenario = Scenario::from_json(config_json)?;
    let run = std::panic::catch_unwind(|| -> Result<EventProfileReport, ApiError> {
        let started = std::time::Instant::now();
        let mut world = crate::world::World::build(&scenario, scenario.seed)?;
        world.drop_series();
        let end = world.end;
        crate::profile::run_profiled(&mut world, end);
        let report = world.report(started.elapsed().as_secs_f64(), RunOptions::default());
        let profile = world.profile.take().expect("run_profiled sets it");
        Ok(EventProfileReport {
            name: name.to_string(),
            events: world.queue.popped(),
            frames: report.nodes.iter().flat_map(|node| node.frames_sent.values()).sum(),
            mac_steps: profile.mac_steps,
            mac_steps_changed: profile.mac_steps_changed,
            rows: profile.rows(),
            report,
        })
    });
    run.unwrap_or_else(|panic| {
        let message = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
        Err(ApiError::Simulation(message.unwrap_or_else(|| "internal error".to_string())))
    })
}

/// [`profile_events`], serialised to JSON.
pub fn profile_events_json(name: &str, config_json: &str) -> Result<String, ApiError> {
    let profile = profile_events(name, config_json)?;
    serde_json::to_string(&profile).map_err(|e| ApiError::Simulation(e.to_string()))
}

/// The simulator's version (the crate version), reported in every result.
pub fn version() -> &'static str {
    crate::stats::report::version()
}

/// Build and run a scenario to its end (recording it for `hoplab view`
/// with `RunOptions::record`).
pub fn run_scenario(scenario: &Scenario, mut options: RunOptions) -> Result<RunReport, ApiError> {
    // The wall-clock limit covers the build too (a large topology's
    // neighbour lists take seconds).
    let started = std::time::Instant::now();
    let mut world = crate::world::World::build(scenario, scenario.seed)?;
    if !options.series {
        world.drop_series();
    }
    if let Some(path) = options.pcap.take() {
        world.enable_pcap(scenario, &path)?;
    }
    let end = world.end;
    let deadline = options.wall_limit.map(|limit| started + limit);
    let (recorder, stopped) = crate::record::run_world(&mut world, scenario, options.record, deadline, options.memory_limit);
    match stopped {
        Ok(()) => {}
        Err(crate::world::Stop::Memory(message)) => return Err(ApiError::Simulation(message)),
        Err(crate::world::Stop::WallClock) => {
            return Err(ApiError::Simulation(format!(
                "wall-clock limit of {:.3} s exceeded at simulated time {:.3} s of {:.3} s",
                options.wall_limit.unwrap_or_default().as_secs_f64(),
                world.now().as_secs_f64(),
                end.as_secs_f64()
            )))
        }
    }
    let wall_seconds = started.elapsed().as_secs_f64();
    let mut report = world.report(wall_seconds, options);
    report.recording = recorder.map(crate::record::Recorder::finish);
    world.finish_pcap()?;
    Ok(report)
}
