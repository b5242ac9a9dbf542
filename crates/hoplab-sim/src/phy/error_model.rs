//! Frame error models: a frame that reception would decode is lost anyway
//! (drop cause `channel_error`, the "wireless" loss of loss-differentiation
//! studies).
//!
//! Which frames: unicast DATA frames addressed to the receiving node. RTS,
//! CTS and ACK frames are short and sent at the basic rate, and broadcast
//! frames are routing control; the papers' error models (seeds 001, 002)
//! corrupt data packets, so only those are exposed to errors.

use crate::engine::Stream;
use crate::wire::ieee80211::{Frame, FrameKind};
use crate::wire::NodeId;

#[derive(Debug, Clone)]
pub enum ErrorModel {
    None,
    /// Each exposed frame is lost independently with `packet_error_rate`.
    Uniform { packet_error_rate: f64, rng: Stream },
}

impl ErrorModel {
    /// Whether `frame`, decodable at `node`, is lost to a channel error.
    pub fn corrupts(&mut self, node: NodeId, frame: &Frame) -> bool {
        match self {
            ErrorModel::None => false,
            ErrorModel::Uniform { packet_error_rate, rng } => {
                *packet_error_rate > 0.0
                    && frame.kind == FrameKind::Data
                    && frame.receiver == node
                    && rng.bernoulli(*packet_error_rate)
            }
        }
    }
}
