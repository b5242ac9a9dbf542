use crate::api::BenchFigure;
pub fn schedule_cancel_pop(events: u64) -> BenchFigure {
    BenchFigure { name: "engine".into(), events, wall_seconds: 0.0, events_per_second: 0.0, sim_seconds_per_wall_second: 0.0 }
}
