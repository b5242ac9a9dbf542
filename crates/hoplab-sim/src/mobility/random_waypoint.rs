//! The random waypoint model (Johnson & Maltz 1996; Broch et al. 1998):
//! each node, from `start_s` on, picks a destination uniformly in the area
//! and a speed uniformly in [`min_speed_mps`, `max_speed_mps`], travels
//! there in a straight line, pauses `pause_s`, and repeats. Before
//! `start_s` nodes stand still (seed 004: movement from t = 20 s); at
//! `start_s` a node leaves at once (the pause comes after each arrival).
//!
//! **The speed-decay problem** (Yoon, Liu & Noble, "Random waypoint
//! considered harmful", INFOCOM 2003): the time-averaged speed of the model
//! is not the mean of the speed distribution. Slow legs last longer, so
//! over time nodes spend most of it on slow legs and the average speed
//! decays from (min + max) / 2 toward its stationary value
//! (max - min) / ln(max / min); with `min_speed_mps = 0` it decays to zero
//! and never settles (E[1/V] is infinite). Results then depend on the run's
//! length. Keep `min_speed_mps` above zero (hoplab warns when it is zero),
//! and to avoid the transient altogether start in the stationary regime:
//!
//! **Steady-state initialisation** (`steady_state = true`; Navidi & Camp,
//! "Stationary distributions for the random waypoint mobility model", IEEE
//! TMC 2004): at `start_s` each node is paused with probability
//! P = pause / (pause + E\[L\] E\[1/V\]), where E\[L\] is the mean distance
//! between two uniform points of the area and E[1/V] = ln(max/min) /
//! (max - min); a paused node sits at a uniform point with a residual pause
//! uniform in [0, pause]. A moving node's leg is drawn with density
//! proportional to its length (rejection sampling), its position uniform
//! along it, and its speed from the stationary density proportional to 1/v
//! on [min, max] (v = min (max/min)^U). The topology's placement is then
//! replaced. Requires `min_speed_mps > 0`.

use crate::engine::{RngStreams, Stream, StreamPurpose};
use crate::time::{SimDuration, SimTime};

/// The model's parameters (validated by the scenario).
#[derive(Debug, Clone, PartialEq)]
pub struct WaypointParams {
    pub min_speed_mps: f64,
    pub max_speed_mps: f64,
    pub pause: SimDuration,
    pub start: SimTime,
    pub width_m: f64,
    pub height_m: f64,
    pub steady_state: bool,
}

/// One leg: at `from` until `depart`, moving in a straight line at
/// constant speed to `to` (reached at `arrive`), paused there until `until`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leg {
    pub from: [f64; 2],
    pub to: [f64; 2],
    pub depart: SimTime,
    pub arrive: SimTime,
    pub until: SimTime,
    pub speed_mps: f64,
}

impl Leg {
    fn still(at: [f64; 2], until: SimTime) -> Leg {
        Leg { from: at, to: at, depart: SimTime::ZERO, arrive: SimTime::ZERO, until, speed_mps: 0.0 }
    }

    /// Position at `t` (clamped to the leg's ends).
    pub fn position(&self, t: SimTime) -> [f64; 2] {
        if t <= self.depart {
            return self.from;
        }
        if t >= self.arrive {
            return self.to;
        }
        let f = (t.0 - self.depart.0) as f64 / (self.arrive.0 - self.depart.0) as f64;
        [self.from[0] + f * (self.to[0] - self.from[0]), self.from[1] + f * (self.to[1] - self.from[1])]
    }
}

#[derive(Debug, Clone)]
struct Walker {
    leg: Leg,
    rng: Stream,
    moves: bool,
}

/// Random waypoint motion of every node.
#[derive(Debug, Clone)]
pub struct RandomWaypoint {
    params: WaypointParams,
    walkers: Vec<Walker>,
}

/// Mean distance between two independent uniform points of a `w` x `h`
/// rectangle (closed form; e.g. Mathai, "An introduction to geometrical
/// probability", 1999): 0.5214 w for a square.
pub fn mean_distance_in_rectangle(w: f64, h: f64) -> f64 {
    let d = (w * w + h * h).sqrt();
    (w.powi(3) / (h * h) + h.powi(3) / (w * w) + d * (3.0 - w * w / (h * h) - h * h / (w * w))) / 15.0
        + (h * h / w * ((w + d) / h).ln() + w * w / h * ((h + d) / w).ln()) / 6.0
}

/// Seconds from departure to arrival, kept finite and positive.
fn travel(distance_m: f64, speed_mps: f64) -> SimDuration {
    let seconds = distance_m / speed_mps.max(1e-9);
    if seconds.is_finite() {
        SimDuration::from_secs_f64(seconds)
    } else {
        SimDuration(u64::MAX)
    }
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

impl RandomWaypoint {
    /// `initial[i]`: node i's position before it moves; `moves[i]`: whether
    /// it moves at all.
    pub fn new(params: WaypointParams, initial: &[[f64; 2]], moves: &[bool], streams: &RngStreams) -> RandomWaypoint {
        let walkers = initial
            .iter()
            .enumerate()
            .map(|(i, &at)| {
                let mut rng = streams.stream(StreamPurpose::Mobility, i as u64);
                let leg = if !moves[i] {
                    Leg::still(at, SimTime::MAX)
                } else if params.steady_state {
                    stationary_leg(&params, &mut rng)
                } else {
                    Leg::still(at, params.start)
                };
                Walker { leg, rng, moves: moves[i] }
            })
            .collect();
        RandomWaypoint { params, walkers }
    }

    pub fn params(&self) -> &WaypointParams {
        &self.params
    }

    pub fn max_speed_mps(&self) -> f64 {
        self.params.max_speed_mps
    }

    /// Node `node`'s position at `t`. Time may only move forward per node
    /// (legs already passed are forgotten). Inlined: the channel asks for
    /// every candidate receiver's position at each transmission.
    #[inline]
    pub fn position(&mut self, node: usize, t: SimTime) -> [f64; 2] {
        let params = &self.params;
        let w = &mut self.walkers[node];
        while w.moves && t >= w.leg.until {
            w.leg = next_leg(params, w.leg.to, w.leg.until, &mut w.rng);
        }
        w.leg.position(t)
    }

    /// The leg node `node` is on at `t` (advancing as [`Self::position`]).
    pub fn leg(&mut self, node: usize, t: SimTime) -> Leg {
        self.position(node, t);
        self.walkers[node].leg
    }

    pub fn node_count(&self) -> usize {
        self.walkers.len()
    }
}

fn uniform_point(p: &WaypointParams, rng: &mut Stream) -> [f64; 2] {
    [rng.uniform_f64() * p.width_m, rng.uniform_f64() * p.height_m]
}

/// The leg after arriving at `from` and pausing until `depart`.
fn next_leg(p: &WaypointParams, from: [f64; 2], depart: SimTime, rng: &mut Stream) -> Leg {
    let to = uniform_point(p, rng);
    let speed_mps = p.min_speed_mps + rng.uniform_f64() * (p.max_speed_mps - p.min_speed_mps);
    let arrive = depart + travel(distance(from, to), speed_mps);
    // At least a nanosecond per leg, so that time always advances.
    let until = (arrive + p.pause).max(depart + SimDuration::from_nanos(1));
    Leg { from, to, depart, arrive, until, speed_mps }
}

/// Navidi & Camp's stationary state at `start` (see the module doc).
fn stationary_leg(p: &WaypointParams, rng: &mut Stream) -> Leg {
    let (vmin, vmax) = (p.min_speed_mps, p.max_speed_mps);
    let mean_inverse_speed = if vmax > vmin { (vmax / vmin).ln() / (vmax - vmin) } else { 1.0 / vmin };
    let mean_travel_s = mean_distance_in_rectangle(p.width_m, p.height_m) * mean_inverse_speed;
    let pause_s = p.pause.as_secs_f64();
    let paused_probability = pause_s / (pause_s + mean_travel_s);
    if rng.uniform_f64() < paused_probability {
        let at = uniform_point(p, rng);
        let residual = SimDuration::from_secs_f64(rng.uniform_f64() * pause_s);
        return Leg {
            from: at,
            to: at,
            depart: p.start,
            arrive: p.start,
            until: (p.start + residual).max(p.start + SimDuration::from_nanos(1)),
            speed_mps: 0.0,
        };
    }
    let diagonal = (p.width_m * p.width_m + p.height_m * p.height_m).sqrt();
    let (a, b) = loop {
        let (a, b) = (uniform_point(p, rng), uniform_point(p, rng));
        if rng.uniform_f64() * diagonal < distance(a, b) {
            break (a, b);
        }
    };
    let f = rng.uniform_f64();
    let from = [a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])];
    let speed_mps = if vmax > vmin { vmin * (vmax / vmin).powf(rng.uniform_f64()) } else { vmin };
    let arrive = p.start + travel(distance(from, b), speed_mps);
    let until = (arrive + p.pause).max(p.start + SimDuration::from_nanos(1));
    Leg { from, to: b, depart: p.start, arrive, until, speed_mps }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(steady_state: bool) -> WaypointParams {
        WaypointParams {
            min_speed_mps: 1.0,
            max_speed_mps: 20.0,
            pause: SimDuration::from_secs_f64(2.0),
            start: SimTime::from_secs_f64(5.0),
            width_m: 1500.0,
            height_m: 300.0,
            steady_state,
        }
    }

    #[test]
    fn mean_distance_formula_matches_sampling() {
        assert!((mean_distance_in_rectangle(1.0, 1.0) - 0.521_405).abs() < 1e-5);
        let mut rng = RngStreams::new(3).stream(StreamPurpose::Mobility, 0);
        let (w, h) = (1500.0, 300.0);
        let n = 200_000;
        let mean = (0..n)
            .map(|_| {
                let a = [rng.uniform_f64() * w, rng.uniform_f64() * h];
                let b = [rng.uniform_f64() * w, rng.uniform_f64() * h];
                distance(a, b)
            })
            .sum::<f64>()
            / n as f64;
        let exact = mean_distance_in_rectangle(w, h);
        assert!((mean / exact - 1.0).abs() < 0.01, "{mean} vs {exact}");
    }

    #[test]
    fn still_before_start_then_legs_within_bounds() {
        let streams = RngStreams::new(9);
        let mut m = RandomWaypoint::new(params(false), &[[100.0, 100.0]], &[true], &streams);
        assert_eq!(m.position(0, SimTime::from_secs_f64(4.9)), [100.0, 100.0]);
        let mut t = SimTime::from_secs_f64(5.0);
        let mut legs = 0;
        let mut last = m.leg(0, t);
        assert_eq!(last.depart, t, "leaves at start_s");
        while t < SimTime::from_secs_f64(6000.0) {
            let leg = m.leg(0, t);
            if leg != last {
                legs += 1;
                assert_eq!(leg.from, last.to, "continuous");
                assert_eq!(leg.depart, last.until, "after the pause");
                assert_eq!(last.until.since(last.arrive), SimDuration::from_secs_f64(2.0), "pause respected");
                last = leg;
            }
            assert!((1.0..=20.0).contains(&leg.speed_mps));
            let p = m.position(0, t);
            assert!((0.0..=1500.0).contains(&p[0]) && (0.0..=300.0).contains(&p[1]), "{p:?}");
            t += SimDuration::from_secs_f64(0.37);
        }
        assert!(legs > 20);
    }

    #[test]
    fn trajectory_does_not_depend_on_how_often_it_is_sampled() {
        let streams = RngStreams::new(4);
        let mut dense = RandomWaypoint::new(params(false), &[[0.0, 0.0]], &[true], &streams);
        let mut sparse = RandomWaypoint::new(params(false), &[[0.0, 0.0]], &[true], &streams);
        for k in 0..5000 {
            dense.position(0, SimTime::from_secs_f64(k as f64 * 0.1));
        }
        let t = SimTime::from_secs_f64(500.0);
        assert_eq!(dense.position(0, t), sparse.position(0, t));
    }

    #[test]
    fn steady_state_speeds_average_to_the_stationary_mean() {
        // The stationary mean speed (time average) is (max - min) / ln(max / min).
        let p = WaypointParams { pause: SimDuration::ZERO, ..params(true) };
        let streams = RngStreams::new(11);
        let n = 4000;
        let mut m = RandomWaypoint::new(p.clone(), &vec![[0.0, 0.0]; n], &vec![true; n], &streams);
        let mean = (0..n).map(|i| m.leg(i, p.start).speed_mps).sum::<f64>() / n as f64;
        let expected = 19.0 / 20f64.ln();
        assert!((mean / expected - 1.0).abs() < 0.05, "{mean} vs {expected}");
        // Positions inside the area, and not uniform: denser in the middle.
        let centre = (0..n)
            .filter(|&i| {
                let q = m.position(i, p.start);
                (q[0] - 750.0).abs() < 375.0
            })
            .count() as f64
            / n as f64;
        assert!(centre > 0.55, "{centre}");
    }
}
