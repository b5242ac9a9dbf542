//! Node mobility: where each node is at a given time.
//!
//! Owns: the motion of every node (waypoints, speeds, pauses) and its random
//! draws (StreamPurpose::Mobility, one stream per node). Does not own: what
//! positions mean for radio (the channel asks for them when a node
//! transmits) or which nodes exist (the topology).
//!
//! Positions are piecewise linear in time and evaluated lazily: a node's
//! next leg is drawn only when time passes the end of its current one, so
//! mobility costs nothing between transmissions. Each node's legs come from
//! its own stream in order, so its trajectory is a pure function of (seed,
//! node), however often or rarely it is looked at.
//!
//! Models: static (no motion; the channel keeps precomputed neighbour lists)
//! and random waypoint ([`random_waypoint`]).

pub mod random_waypoint;

pub use random_waypoint::{Leg, RandomWaypoint, WaypointParams};

use crate::engine::RngStreams;
use crate::scenario::{ConfigError, MobilityModel, Scenario};
use crate::time::{SimDuration, SimTime};
use crate::topology::Layout;

/// The scenario's mobility model for the placed nodes (None: static).
/// Nodes must start inside the area (unless a steady-state start replaces
/// their placement); a zero minimum speed adds a warning (speed decay).
pub fn build(
    scenario: &Scenario,
    layout: &Layout,
    streams: &RngStreams,
    warnings: &mut Vec<String>,
) -> Result<Option<RandomWaypoint>, ConfigError> {
    let m = &scenario.mobility;
    if m.model == MobilityModel::Static {
        return Ok(None);
    }
    let shape = scenario.topology.shape()?;
    let (width_m, height_m) = m.area_m(&shape);
    let params = WaypointParams {
        min_speed_mps: m.min_speed_mps.unwrap_or(0.0),
        max_speed_mps: m.max_speed_mps.unwrap_or(0.0),
        pause: SimDuration::from_secs_f64(m.pause_s.unwrap_or(0.0)),
        start: SimTime::from_secs_f64(m.start_s.unwrap_or(0.0)),
        width_m,
        height_m,
        steady_state: m.steady_state.unwrap_or(false),
    };
    if !params.steady_state {
        for (i, p) in layout.positions.iter().enumerate() {
            let inside = (0.0..=width_m).contains(&p[0]) && (0.0..=height_m).contains(&p[1]);
            if layout.has_radio[i] && !inside {
                return Err(ConfigError::new(
                    "mobility.width_m",
                    format!("node {i} starts at ({}, {}), outside the {width_m} x {height_m} m area nodes move in", p[0], p[1]),
                ));
            }
        }
    }
    if params.min_speed_mps <= 0.0 {
        warnings.push(
            "mobility.min_speed_mps = 0: random waypoint's average speed decays toward zero over the run \
             (Yoon, Liu & Noble 2003); set a positive minimum (and steady_state = true) for a stationary regime"
                .to_string(),
        );
    }
    Ok(Some(RandomWaypoint::new(params, &layout.positions, &layout.has_radio, streams)))
}
