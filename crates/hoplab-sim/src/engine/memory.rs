//! What a run holds (or will hold) in memory, counted by the layers that
//! hold it: one [`Holding`] per kind of thing, the same description for
//! the up-front estimate (`estimate.rs`, from the scenario) and the live
//! count (`world/budget.rs`, every 65,536 events), so that each size is
//! written once, beside what it measures.

use serde::Serialize;

/// One of the things a run holds: how many, of what, their bytes, and
/// what makes them fewer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Holding {
    pub what: &'static str,
    pub count: u64,
    pub unit: &'static str,
    pub bytes: u64,
    /// What makes it smaller (names the keys to change).
    #[serde(skip)]
    pub remedy: &'static str,
}

impl Holding {
    /// `count` things of `unit_bytes` each.
    pub fn of(what: &'static str, count: u64, unit: &'static str, unit_bytes: u64, remedy: &'static str) -> Holding {
        Holding { what, count, unit, bytes: count.saturating_mul(unit_bytes), remedy }
    }
}
