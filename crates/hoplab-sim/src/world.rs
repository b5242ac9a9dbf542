use crate::api::{ApiError, RunOptions};
use crate::scenario::Scenario;
use crate::stats::report::RunReport;
pub struct World;
impl World {
    pub fn build(_s: &Scenario, _seed: u64) -> Result<World, ApiError> { Ok(World) }
}
pub fn run_scenario(_s: &Scenario, _o: RunOptions) -> Result<RunReport, ApiError> {
    Err(ApiError::Simulation("the simulator is being written".into()))
}
