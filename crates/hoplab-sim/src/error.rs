//! The one error type of the core's entry points ([`ApiError`]): a bad
//! scenario (its key and what is allowed), a failed simulation, an output
//! that could not be written. Below `world`, `estimate` and `api`, so that
//! each names it without naming the others.

use crate::config::ConfigError;

/// What can go wrong at the API boundary.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The scenario is invalid: a key and what is allowed.
    Config(ConfigError),
    /// The simulation itself failed (an internal error; reported, never a panic).
    Simulation(String),
    /// An output file (a packet trace) could not be written: its path, the
    /// OS error number if there is one, and what went wrong. Nothing of it
    /// is left behind.
    Output { path: String, errno: Option<i32>, message: String },
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Config(e) => write!(f, "{e}"),
            ApiError::Simulation(m) => write!(f, "simulation failed: {m}"),
            ApiError::Output { path, message, .. } => write!(f, "cannot write {path:?}: {message}"),
        }
    }
}

impl From<crate::trace::TraceError> for ApiError {
    fn from(e: crate::trace::TraceError) -> Self {
        // An error of hoplab's own (no OS number): ENOENT for a missing directory.
        let errno = e.error.raw_os_error().or((e.error.kind() == std::io::ErrorKind::NotFound).then_some(2));
        ApiError::Output { path: e.path.display().to_string(), errno, message: e.error.to_string() }
    }
}

impl From<ConfigError> for ApiError {
    fn from(e: ConfigError) -> Self {
        ApiError::Config(e)
    }
}
