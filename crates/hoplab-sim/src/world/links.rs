//! Wiring of the wired links: packets in, their timers, and what reaches
//! the far end (to the network layer) or is lost.

use super::{Event, Layer, World};
use crate::engine::Outputs;
use crate::link::{LinkOutput, LinkTimer};
use crate::wire::Packet;

impl World {
    /// Hand a packet to a link direction.
    pub(crate) fn link_enqueue(&mut self, link: u32, direction: u8, packet: Packet) {
        let now = self.now();
        let mut out = Outputs::new();
        self.links[link as usize].enqueue(now, direction, packet, &mut out);
        self.link_outputs(link, &out);
    }

    /// A link's timer fired (`id`: [`LinkTimer::id`]).
    pub(crate) fn link_timer(&mut self, link: u32, id: u32) {
        let now = self.now();
        let (timer, direction) = LinkTimer::from_id(id);
        let mut out = Outputs::new();
        self.links[link as usize].on_timer(now, timer, direction, &mut out);
        self.link_outputs(link, &out);
    }

    /// Carry out a link's outputs, in order; lent, as routing's are
    /// (`routing_outputs`): a move copies the whole list.
    fn link_outputs(&mut self, link: u32, out: &Outputs<LinkOutput>) {
        for output in out.iter() {
            match *output {
                LinkOutput::Timer { timer, direction, at } => {
                    self.queue.schedule(at, Event::new(link, Layer::Link, timer.id(direction)));
                }
                LinkOutput::Deliver { to, from, ref packet } => self.net_receive(to, packet, from),
                LinkOutput::Drop { node, ref packet, cause } => self.drop_packet(node, packet, cause),
            }
        }
    }

    /// Every packet held by a link (queued, serialising or propagating).
    pub fn link_packets(&self) -> impl Iterator<Item = &Packet> {
        self.links.iter().flat_map(|l| l.packets())
    }
}
