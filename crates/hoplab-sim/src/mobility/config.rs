//! `[mobility]`: how nodes move. `model = "static"` (no other key) or
//! `"random_waypoint"` with the keys of [`RandomWaypointConfig`].

use crate::config::{nested, non_negative, parse_at, parse_tagged, positive, ConfigError};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// The fastest a node may move: a kilometre a second, beyond any aircraft.
pub const MAX_SPEED_MPS: f64 = 1000.0;

/// The narrowest side of the area nodes move in.
pub const MIN_SIDE_M: f64 = 1.0;

/// `[mobility]`: how nodes move. `model` picks the model and its keys.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, Default)]
#[serde(tag = "model", rename_all = "snake_case")]
#[schemars(deny_unknown_fields, transform = static_by_default)]
pub enum MobilityConfig {
    /// Nodes stay where the topology placed them.
    #[default]
    Static,
    /// Random waypoint: each node moves to a uniformly drawn point of the
    /// area at a uniformly drawn speed, pauses, and draws again.
    RandomWaypoint(RandomWaypointConfig),
}

/// The schema of `[mobility]`: `model` may be left out (static).
fn static_by_default(schema: &mut schemars::Schema) {
    crate::config::optional_tag(schema, "model", "static");
}

/// Random waypoint's keys. Nodes move within an area `width_m` x `height_m`
/// (default: the random topology's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RandomWaypointConfig {
    /// Lowest speed drawn, m/s (speeds are uniform in [min, max]). 0, as
    /// ns-2's setdest, draws a warning: the mean speed then decays toward
    /// zero over the run (Yoon et al. 2003).
    #[serde(default)]
    pub min_speed_mps: f64,
    /// Highest speed drawn, m/s.
    pub max_speed_mps: f64,
    /// Pause at each waypoint before the next leg, seconds.
    #[serde(default)]
    pub pause_s: f64,
    /// Nodes stand still before this time, seconds.
    #[serde(default)]
    pub start_s: f64,
    /// Width of the area nodes move in, metres; default: the random
    /// topology's (required with other topologies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_m: Option<f64>,
    /// Height of the area nodes move in, metres; default: the random
    /// topology's (required with other topologies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_m: Option<f64>,
    /// Start in the stationary regime (Navidi & Camp 2004) rather than with
    /// every node at its first waypoint; needs `min_speed_mps` > 0.
    #[serde(default)]
    pub steady_state: bool,
}

/// A map without keys (a model that takes none).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoKeys {}

impl<'de> Deserialize<'de> for MobilityConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        parse_tagged(value, "model", Some("static"), &["static", "random_waypoint"], |model, rest| match model {
            "static" => parse_at::<NoKeys>(rest, "").map(|_| MobilityConfig::Static),
            _ => parse_at(rest, "").map(MobilityConfig::RandomWaypoint),
        })
        .map_err(nested)
    }
}

impl MobilityConfig {
    pub fn is_static(&self) -> bool {
        matches!(self, MobilityConfig::Static)
    }

    /// Range checks. `default_area`: the random topology's area, if the
    /// topology is random (else the area is required); `wired`: the
    /// topology has wired links (moving nodes are not supported there).
    /// Range checks. The speed and the area are bounded because the model
    /// walks every leg (a node at 1000 m/s in a 1 m area still takes only
    /// ~2000 legs a second).
    pub fn validate(&self, default_area: Option<(f64, f64)>, wired: bool) -> Result<(), ConfigError> {
        let MobilityConfig::RandomWaypoint(w) = self else { return Ok(()) };
        positive("mobility.max_speed_mps", w.max_speed_mps)?;
        if w.max_speed_mps > MAX_SPEED_MPS {
            return Err(ConfigError::new(
                "mobility.max_speed_mps",
                format!("must be at most {MAX_SPEED_MPS} m/s (the model walks every leg), got {}", w.max_speed_mps),
            ));
        }
        non_negative("mobility.min_speed_mps", w.min_speed_mps)?;
        if w.min_speed_mps > w.max_speed_mps {
            return Err(ConfigError::new(
                "mobility.min_speed_mps",
                format!("must be <= max_speed_mps ({}), got {}", w.max_speed_mps, w.min_speed_mps),
            ));
        }
        non_negative("mobility.pause_s", w.pause_s)?;
        non_negative("mobility.start_s", w.start_s)?;
        if w.steady_state && w.min_speed_mps <= 0.0 {
            return Err(ConfigError::new(
                "mobility.min_speed_mps",
                "steady_state needs a positive minimum speed (with 0 the random waypoint model has no stationary regime)",
            ));
        }
        for (key, v) in [("width_m", w.width_m), ("height_m", w.height_m)] {
            let inherited = default_area.map(|(width, height)| if key == "width_m" { width } else { height });
            match v.or(inherited) {
                Some(side) if !(side >= MIN_SIDE_M && side.is_finite()) => {
                    let whose = if v.is_some() { "" } else { " (the random topology's)" };
                    return Err(ConfigError::new(format!("mobility.{key}"), format!("must be at least {MIN_SIDE_M} m{whose}, got {side}")));
                }
                Some(_) => {}
                None if default_area.is_none() => {
                    return Err(ConfigError::new(
                        format!("mobility.{key}"),
                        "required unless topology.kind = \"random\" (whose area it defaults to)",
                    ))
                }
                None => {}
            }
        }
        if wired {
            return Err(ConfigError::new("mobility.model", "moving nodes are not supported with wired links"));
        }
        Ok(())
    }

    /// The area nodes move in: the given one, else the random topology's.
    pub fn area_m(&self, default_area: Option<(f64, f64)>) -> (f64, f64) {
        let (w, h) = default_area.unwrap_or((0.0, 0.0));
        match self {
            MobilityConfig::RandomWaypoint(c) => (c.width_m.unwrap_or(w), c.height_m.unwrap_or(h)),
            MobilityConfig::Static => (w, h),
        }
    }
}
