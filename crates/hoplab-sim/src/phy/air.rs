//! Frames on the air: each transmitted frame is kept here, once, until the
//! last node that feels it is done with it (its reception ended, or it was
//! ignored or lost in a collision). Receivers refer to it by [`FrameRef`];
//! nobody copies a frame in flight.

use super::channel::Neighbour;
use crate::wire::ieee80211::Frame;
use crate::wire::NodeId;

/// A frame on the air (its slot in the [`OnAir`] table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRef(pub u32);

/// The frames on the air, reference counted by their receivers, slots
/// reused.
#[derive(Debug, Default)]
pub struct OnAir {
    frames: Vec<(Frame, u32)>,
    free: Vec<u32>,
    /// Moving nodes: per slot, the transmitter's links when the frame left
    /// (ascending receiver id). Empty for static nodes.
    links: Vec<Vec<Neighbour>>,
}

impl OnAir {
    /// A frame leaves its transmitter toward `receivers` nodes.
    pub fn insert(&mut self, frame: &Frame, receivers: u32) -> FrameRef {
        if let Some(slot) = self.free.pop() {
            self.frames[slot as usize] = (*frame, receivers);
            FrameRef(slot)
        } else {
            self.frames.push((*frame, receivers));
            FrameRef((self.frames.len() - 1) as u32)
        }
    }

    /// Set the number of receivers of a frame just inserted; a frame no
    /// receiver refers to is freed at once.
    pub fn set_receivers(&mut self, frame: FrameRef, receivers: u32) {
        self.frames[frame.0 as usize].1 = receivers;
        if receivers == 0 {
            self.free.push(frame.0);
        }
    }

    /// Keep the links of a moving transmitter with its frame.
    pub fn store_links(&mut self, frame: FrameRef, links: &[Neighbour]) {
        let slot = frame.0 as usize;
        if self.links.len() <= slot {
            self.links.resize_with(slot + 1, Vec::new);
        }
        let kept = &mut self.links[slot];
        kept.clear();
        kept.extend_from_slice(links);
    }

    /// The stored link of `frame` to `node` (moving nodes only).
    pub fn link(&self, frame: FrameRef, node: NodeId) -> Option<Neighbour> {
        let links = self.links.get(frame.0 as usize)?;
        links.binary_search_by_key(&node, |n| n.node).ok().map(|i| links[i])
    }

    pub fn frame(&self, frame: FrameRef) -> &Frame {
        &self.frames[frame.0 as usize].0
    }

    /// One receiver is done with the frame; its slot is freed after the last.
    pub fn release(&mut self, frame: FrameRef) {
        let entry = &mut self.frames[frame.0 as usize];
        entry.1 -= 1;
        if entry.1 == 0 {
            self.free.push(frame.0);
        }
    }
}
