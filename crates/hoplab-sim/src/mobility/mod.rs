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
//! and random waypoint ([`random_waypoint`]). The world builds a model
//! from the scenario (`world::build`).

pub mod config;
pub mod random_waypoint;

pub use random_waypoint::{Leg, RandomWaypoint, WaypointParams};
