//! `hoplab._core`: the Python binding of `hoplab_sim::api`.
//!
//! Conversion only. Strings go in and out as they are (scenario JSON in,
//! normalised scenario or run report JSON out); benchmark figures become
//! dicts; `ApiError::Config` becomes `ScenarioError` (a `ValueError` with the
//! offending dotted `key`), `ApiError::Simulation` becomes `SimulationError`.
//! Long calls run with the interpreter detached so other Python threads run.
//! A panic never crosses into Python: each call is wrapped in
//! `catch_unwind` and a panic is reported as `SimulationError`.

use hoplab_sim::api::{self, ApiError, BenchFigure, RunOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(
    hoplab._core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid. `key` is the dotted key concerned (\"\" when the error is not about one key); str() gives \"key: what is wrong and what is allowed\"."
);
create_exception!(
    hoplab._core,
    SimulationError,
    PyRuntimeError,
    "The simulation failed for a reason other than the scenario (an internal error)."
);

/// Why a call failed: an API error, or a panic caught at the boundary.
enum Failure {
    Api(ApiError),
    Panic(String),
}

/// Run `f` with the interpreter detached, turning a panic into a value.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, ApiError> + Send) -> Result<T, Failure> {
    py.detach(|| match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(Failure::Api(error)),
        Err(panic) => Err(Failure::Panic(
            panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "internal error".to_string()),
        )),
    })
}

fn to_pyerr(py: Python<'_>, failure: Failure) -> PyErr {
    match failure {
        Failure::Api(ApiError::Config(config)) => {
            let message = config.to_string();
            let err = ScenarioError::new_err(message);
            if let Err(e) = err.value(py).setattr("key", config.key) {
                return e;
            }
            err
        }
        Failure::Api(error @ ApiError::Simulation(_)) => SimulationError::new_err(error.to_string()),
        // errno 5 (EIO) when the error has no OS number.
        Failure::Api(ApiError::Output { path, errno, message }) => PyOSError::new_err((errno.unwrap_or(5), message, path)),
        Failure::Panic(message) => SimulationError::new_err(format!("internal error (panic): {message}")),
    }
}

fn bench_dict<'py>(py: Python<'py>, figure: BenchFigure) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("name", figure.name)?;
    dict.set_item("events", figure.events)?;
    dict.set_item("wall_seconds", figure.wall_seconds)?;
    dict.set_item("events_per_second", figure.events_per_second)?;
    dict.set_item("sim_seconds_per_wall_second", figure.sim_seconds_per_wall_second)?;
    dict.set_item("frames", figure.frames)?;
    Ok(dict)
}

/// Validate a scenario given as JSON; return it normalised (every default
/// filled) as JSON. Raises ScenarioError naming the key, and
/// SimulationError if its topology cannot fit in `memory_limit_bytes`.
#[pyfunction]
#[pyo3(signature = (config_json, memory_limit_bytes=None))]
fn validate(py: Python<'_>, config_json: &str, memory_limit_bytes: Option<u64>) -> PyResult<String> {
    let config_json = config_json.to_owned();
    detached(py, move || api::validate_json(&config_json, memory_limit_bytes)).map_err(|f| to_pyerr(py, f))
}

/// What a run of a scenario given as JSON will cost, as JSON: `events`,
/// `memory_bytes` and its `parts` (estimates; `series`: with its series).
#[pyfunction]
#[pyo3(signature = (config_json, series=false))]
fn estimate(py: Python<'_>, config_json: &str, series: bool) -> PyResult<String> {
    let config_json = config_json.to_owned();
    detached(py, move || api::estimate_json(&config_json, series)).map_err(|f| to_pyerr(py, f))
}

/// The configuration hash of a scenario given as JSON (its seed left
/// out): the run report's `config_hash`. Raises ScenarioError naming the key.
#[pyfunction]
fn config_hash(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let config_json = config_json.to_owned();
    detached(py, move || api::config_hash_json(&config_json)).map_err(|f| to_pyerr(py, f))
}

/// Every loss cause the core reports, in report order.
#[pyfunction]
fn drop_causes() -> Vec<&'static str> {
    api::drop_causes()
}

/// The field names of each part of the run report: "run" (top level),
/// "routing", "flows", "nodes", "series".
#[pyfunction]
fn report_fields() -> std::collections::BTreeMap<&'static str, Vec<String>> {
    api::report_fields()
}

/// The names of TCP-RA's loss classification, in report order (the keys of
/// a flow's `loss_classification` and `loss_grades`): "true_causes" (the
/// simulator's ground truth), "verdicts" (the receiver's) and "grades" (its
/// congestion grades, seed 001 section 2.1). Read from the core's
/// constants so the Python side types none of them.
#[pyfunction]
fn loss_classification_names() -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
    use hoplab_sim::stats::classification::{GRADES, TRUE_CLASSES, VERDICTS};
    [("true_causes", TRUE_CLASSES.to_vec()), ("verdicts", VERDICTS.to_vec()), ("grades", GRADES.to_vec())].into_iter().collect()
}

/// Run a scenario given as JSON; return the run report as JSON. `seed`
/// overrides the scenario's seed; `series` adds the time series;
/// `wall_limit_s` gives the run up (SimulationError) after that many
/// wall-clock seconds; `pcap` writes a packet trace to that path (OSError
/// if it cannot be written; nothing is left of it on any failure);
/// `memory_limit_bytes` gives it up (SimulationError naming what grew)
/// once what it holds passes that many bytes; `record` adds the recording
/// `hoplab view` draws (the report's `recording`; nothing simulated changes).
#[pyfunction]
#[pyo3(signature = (config_json, seed=None, series=false, wall_limit_s=None, pcap=None, memory_limit_bytes=None, record=false))]
fn simulate(
    py: Python<'_>,
    config_json: &str,
    seed: Option<u64>,
    series: bool,
    wall_limit_s: Option<f64>,
    pcap: Option<std::path::PathBuf>,
    memory_limit_bytes: Option<u64>,
    record: bool,
) -> PyResult<String> {
    let wall_limit = match wall_limit_s {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Some(std::time::Duration::from_secs_f64(s)),
        Some(s) => return Err(PyValueError::new_err(format!("wall_limit_s: must be a positive number of seconds, got {s}"))),
    };
    let config_json = config_json.to_owned();
    detached(py, move || {
        api::simulate_json(&config_json, seed, RunOptions { series, wall_limit, pcap, memory_limit: memory_limit_bytes, record })
    })
    .map_err(|f| to_pyerr(py, f))
}

/// The engine micro-benchmark (schedule, cancel, pop `events` events).
#[pyfunction]
fn bench_engine(py: Python<'_>, events: u64) -> PyResult<Bound<'_, PyDict>> {
    let figure = detached(py, move || Ok(api::bench_engine(events))).map_err(|f| to_pyerr(py, f))?;
    bench_dict(py, figure)
}

/// Time one run of a scenario given as JSON.
#[pyfunction]
fn bench_scenario<'py>(py: Python<'py>, name: &str, config_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let (name, config_json) = (name.to_owned(), config_json.to_owned());
    let figure = detached(py, move || api::bench_scenario(&name, &config_json)).map_err(|f| to_pyerr(py, f))?;
    bench_dict(py, figure)
}

/// One run of a scenario given as JSON with its events counted by kind and
/// outcome (`hoplab bench --profile-events`), as JSON: name, events,
/// frames, mac_steps, mac_steps_changed, rows, report.
#[pyfunction]
fn profile_events(py: Python<'_>, name: &str, config_json: &str) -> PyResult<String> {
    let (name, config_json) = (name.to_owned(), config_json.to_owned());
    detached(py, move || api::profile_events_json(&name, &config_json)).map_err(|f| to_pyerr(py, f))
}

/// The JSON Schema (draft 7) of a scenario file, pretty-printed: every key,
/// its type, default, choices and description.
#[pyfunction]
fn scenario_schema() -> String {
    api::scenario_schema_json()
}

/// The simulator core's version.
#[pyfunction]
fn version() -> &'static str {
    api::version()
}

/// How this extension was compiled: "pgo" (optimised with the profile of
/// scripts/install.py's training runs), "pgo-training" (the instrumented
/// build those runs use) or "plain". scripts/install.py sets
/// `HOPLAB_BUILD_PROFILE` for its builds; the code is the same either way,
/// and so is every result (tests/test_build.py).
#[pyfunction]
fn build_profile() -> &'static str {
    option_env!("HOPLAB_BUILD_PROFILE").unwrap_or("plain")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(config_hash, m)?)?;
    m.add_function(wrap_pyfunction!(drop_causes, m)?)?;
    m.add_function(wrap_pyfunction!(report_fields, m)?)?;
    m.add_function(wrap_pyfunction!(loss_classification_names, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(bench_engine, m)?)?;
    m.add_function(wrap_pyfunction!(bench_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(profile_events, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build_profile, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}
