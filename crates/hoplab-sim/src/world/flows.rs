//! What the world offers the node stack (`stack/`): the time, packets into
//! the network, drops, the flows' timers and series, and what a node holds
//! below its transports. The transports themselves are `stack/`'s.

use super::{Event, Layer, World};
use crate::loss::DropCause;
use crate::stack::{Flow, Host, NodeStack};
use crate::stats::report::SeriesRow;
use crate::time::{SimDuration, SimTime};
use crate::wire::{NodeId, Packet};

impl Host for World {
    fn now(&self) -> SimTime {
        self.queue.now()
    }
    fn warmup(&self) -> SimTime {
        self.warmup
    }
    fn new_uid(&mut self) -> u64 {
        World::new_uid(self)
    }
    fn flows(&self) -> &[Flow] {
        &self.flows
    }
    fn flows_mut(&mut self) -> &mut [Flow] {
        &mut self.flows
    }
    fn node_stack(&self) -> &NodeStack {
        &self.node_stack
    }
    fn node_stack_mut(&mut self) -> &mut NodeStack {
        &mut self.node_stack
    }
    fn originate(&mut self, node: NodeId, packet: Packet) {
        self.net_originate(node, packet);
    }
    fn drop_packet(&mut self, node: NodeId, packet: &Packet, cause: DropCause) {
        World::drop_packet(self, node, packet, cause);
    }
    fn schedule_app(&mut self, at: SimTime, flow: u32) {
        self.queue.schedule(at, Event::new(flow, Layer::App, 0));
    }
    fn arm_flow_timer(&mut self, flow: u32, id: u32, at: SimTime) {
        self.flows[flow as usize].timers[id as usize].arm(&mut self.queue, at, Event::new(flow, Layer::Transport, id));
    }
    fn cancel_flow_timer(&mut self, flow: u32, id: u32) {
        self.flows[flow as usize].timers[id as usize].cancel();
    }
    fn keeps_series(&self) -> bool {
        self.series_interval != SimDuration::ZERO
    }
    fn push_series(&mut self, row: SeriesRow) {
        self.series.push(row);
    }
    fn waiting_below(&self, node: NodeId, counts: impl Fn(&Packet) -> bool) -> usize {
        let in_mac = self.nodes[node.index()].mac.queued().filter(|q| counts(&q.packet)).count();
        in_mac + self.routing_held(node, &counts) + self.ll_going_down(node, &counts)
    }
    fn held_for_route(&self, node: NodeId, counts: impl Fn(&Packet) -> bool) -> usize {
        self.routing_held(node, counts)
    }
    fn queued_and_held(&self, node: NodeId) -> usize {
        self.nodes[node.index()].mac.queued_len() + self.routing_held(node, |_| true)
    }
    fn holds_data(&self, node: NodeId) -> bool {
        let data = |p: &Packet| !p.is_control();
        self.nodes[node.index()].mac.holds(data) || self.routing_held(node, data) > 0
    }
}
