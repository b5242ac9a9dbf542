//! Helpers shared by the whole-run test binaries (each includes this with
//! `mod common;`).

use hoplab_sim::stats::report::RunReport;

/// Every packet of every flow is delivered, lost with a cause, or still in
/// flight, in each direction (data and ACKs), and the nodes' drops add up
/// to the flows' losses.
pub fn conserved(r: &RunReport) {
    for f in &r.flows {
        let lost: u64 = f.losses.values().sum();
        assert_eq!(f.sent, f.delivered + lost + f.in_flight, "flow {}: {f:?}", f.id);
        let acks_lost: u64 = f.ack_losses.values().sum();
        assert_eq!(f.acks_sent, f.acks_delivered + acks_lost + f.acks_in_flight, "flow {} ACKs: {f:?}", f.id);
    }
    let node_drops: u64 = r.nodes.iter().flat_map(|n| n.drops.values()).sum();
    let flow_losses: u64 = r.flows.iter().flat_map(|f| f.losses.values().chain(f.ack_losses.values())).sum();
    assert_eq!(node_drops, flow_losses, "node drops add up to flow losses");
}
