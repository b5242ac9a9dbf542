//! Frame error models: a frame that reception would decode is lost anyway
//! (drop cause `channel_error`, the "wireless" loss of loss-differentiation
//! studies).
//!
//! Which frames (`errors.scope`):
//!
//! - `"unicast_data"` (the default): unicast DATA frames addressed to the
//!   receiving node, decided when the frame ends. RTS, CTS and ACK frames
//!   are short and sent at the basic rate, and broadcast frames are routing
//!   control; the papers' error models (seeds 001, 002) corrupt data
//!   packets, so only those are exposed to errors. The MAC sees the
//!   corrupted frame end (EIFS).
//! - `"every_frame"` (`preset = "ns2"`): ns-2's `-IncomingErrProc`. ns-2
//!   puts the error model between the PHY and the MAC (`$netif up-target
//!   $inerr; $inerr target $mac`, tcl/lib/ns-mobilenode.tcl:513-517), so it
//!   sees every frame `WirelessPhy::sendUp` passes up at its first bit:
//!   every frame above the carrier-sense threshold, RTS, CTS, ACK,
//!   broadcasts, frames to other nodes and frames sensed only
//!   (mac/wireless-phy.cc:344-376, phy.cc:124-134); one model per node
//!   (one chain for all transmitters); a frame it corrupts goes to its drop
//!   target and never reaches the MAC (queue/errmodel.cc:192-205), which
//!   therefore neither locks onto it nor defers for it (no carrier sense,
//!   no EIFS). The threshold receiver only (`radio.reception =
//!   "threshold"`, ns-2's).
//!
//! A corrupted DATA frame is not acknowledged, so the sender's MAC retries
//! it (802.11 long retry limit); the packet is lost only when its last
//! attempt fails, and then counts as a `channel_error` (see
//! `DropCause::ChannelError`).
//!
//! Models: `uniform` (independent losses) and `gilbert_elliott` (a
//! two-state Markov chain per directed link, or per node with
//! `every_frame`: Gilbert 1960, Elliott 1963;
//! the "two-state discrete Markov chain" of seed 001 section 3.1, used there
//! for a Rayleigh-fading channel's bursts).

use crate::config::{nested, parse_at, parse_tagged, probability, ConfigError};
use crate::config::{Applies, PresetRule};
use crate::engine::Stream;
use crate::wire::ieee80211::{Frame, FrameKind};
use crate::wire::NodeId;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// `[errors]`: channel errors: a frame that its receiver would decode is
/// lost anyway (loss cause `channel_error`); by default unicast DATA frames
/// only (`scope`). `model` picks the model and its keys.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, Default)]
#[serde(tag = "model", rename_all = "snake_case")]
#[schemars(deny_unknown_fields, transform = none_by_default)]
pub enum ErrorModelConfig {
    /// No channel errors.
    #[default]
    None,
    /// Each frame the model sees (`scope`) is lost independently with
    /// probability `packet_error_rate`.
    Uniform(UniformErrors),
    /// A two-state (good / bad) Markov chain per directed link (per node
    /// with `scope = "every_frame"`), stepped once per exposed frame: bursts
    /// of errors.
    GilbertElliott(GilbertElliottErrors),
}

/// `errors.scope`: which frames the error model sees, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorScope {
    /// Unicast DATA frames addressed to the node, when they end decoded; a
    /// chain per directed link (Gilbert-Elliott).
    #[default]
    UnicastData,
    /// ns-2's `-IncomingErrProc`: every frame reaching the node above the
    /// carrier-sense threshold, at its first bit, one chain per node; a lost
    /// frame never reaches the MAC (tcl/lib/ns-mobilenode.tcl:513-517,
    /// queue/errmodel.cc:173-211; the threshold receiver only).
    EveryFrame,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UniformErrors {
    /// Probability, 0 to 1, that a frame the model sees (`scope`) is lost.
    pub packet_error_rate: f64,
    /// Which frames the model sees (default `"unicast_data"`).
    #[serde(default)]
    pub scope: ErrorScope,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottErrors {
    /// Long-run probability, 0 to 1, that a frame the model sees (`scope`)
    /// is lost: `pi_bad * bad_state_error + (1 - pi_bad) *
    /// good_state_error`, where `pi_bad` is the chain's stationary share of
    /// frames in the bad state.
    pub packet_error_rate: f64,
    /// Mean run of consecutive frames in the bad state (>= 1): the chain
    /// leaves the bad state with probability `1 / mean_burst_frames` per
    /// frame.
    pub mean_burst_frames: f64,
    /// Frame error probability in the good state (default 0).
    #[serde(default)]
    pub good_state_error: f64,
    /// Frame error probability in the bad state (default 1).
    #[serde(default = "one")]
    pub bad_state_error: f64,
    /// Which frames the model sees and steps its chains with (default
    /// `"unicast_data"`: one chain per directed link; `"every_frame"`: one
    /// chain per receiving node, as ns-2's).
    #[serde(default)]
    pub scope: ErrorScope,
}

fn one() -> f64 {
    1.0
}

/// The chain's transition probabilities, derived from the keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GilbertElliottChain {
    /// P(good -> bad) per frame.
    pub good_to_bad: f64,
    /// P(bad -> good) per frame: 1 / mean_burst_frames.
    pub bad_to_good: f64,
    /// Stationary probability of the bad state.
    pub stationary_bad: f64,
    pub good_state_error: f64,
    pub bad_state_error: f64,
}

impl GilbertElliottErrors {
    /// The chain these keys describe, or the key that makes it impossible.
    ///
    /// Stationary bad share `pi = (PER - e_good) / (e_bad - e_good)`; with
    /// `r = 1 / mean_burst_frames`, balance `pi * r = (1 - pi) * p` gives
    /// `p = r * pi / (1 - pi)`, which must be a probability.
    pub fn chain(&self) -> Result<GilbertElliottChain, ConfigError> {
        let (per, good, bad) = (self.packet_error_rate, self.good_state_error, self.bad_state_error);
        probability("errors.packet_error_rate", per)?;
        probability("errors.good_state_error", good)?;
        probability("errors.bad_state_error", bad)?;
        if !(self.mean_burst_frames >= 1.0 && self.mean_burst_frames.is_finite()) {
            return Err(ConfigError::new("errors.mean_burst_frames", format!("must be a number >= 1, got {}", self.mean_burst_frames)));
        }
        if bad <= good {
            return Err(ConfigError::new("errors.bad_state_error", format!("must be above errors.good_state_error ({good}), got {bad}")));
        }
        if per < good || per > bad {
            return Err(ConfigError::new(
                "errors.packet_error_rate",
                format!("must lie between good_state_error ({good}) and bad_state_error ({bad}), got {per}"),
            ));
        }
        let stationary_bad = (per - good) / (bad - good);
        let bad_to_good = 1.0 / self.mean_burst_frames;
        let good_to_bad = if stationary_bad < 1.0 { bad_to_good * stationary_bad / (1.0 - stationary_bad) } else { f64::INFINITY };
        if good_to_bad > 1.0 {
            return Err(ConfigError::new(
                "errors.packet_error_rate",
                format!(
                    "{per} is too high for bursts of {} frames: the chain would have to enter the bad state more often than every frame; \
                     raise errors.mean_burst_frames",
                    self.mean_burst_frames
                ),
            ));
        }
        Ok(GilbertElliottChain { good_to_bad, bad_to_good, stationary_bad, good_state_error: good, bad_state_error: bad })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoKeys {}

/// The schema of `[errors]`: `model` may be left out (none).
fn none_by_default(schema: &mut schemars::Schema) {
    crate::config::optional_tag(schema, "model", "none");
}

impl<'de> Deserialize<'de> for ErrorModelConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        parse_tagged(value, "model", Some("none"), &["none", "uniform", "gilbert_elliott"], |model, rest| match model {
            "none" => parse_at::<NoKeys>(rest, "").map(|_| ErrorModelConfig::None),
            "uniform" => parse_at(rest, "").map(ErrorModelConfig::Uniform),
            _ => parse_at(rest, "").map(ErrorModelConfig::GilbertElliott),
        })
        .map_err(nested)
    }
}

impl ErrorModelConfig {
    /// `threshold_receiver`: `radio.reception = "threshold"` (the
    /// `every_frame` scope is ns-2's, whose receiver that is).
    pub fn validate(&self, threshold_receiver: bool) -> Result<(), ConfigError> {
        if self.scope() == ErrorScope::EveryFrame && !threshold_receiver {
            return Err(ConfigError::new("errors.scope", "\"every_frame\" (ns-2's) needs radio.reception = \"threshold\""));
        }
        match self {
            ErrorModelConfig::None => Ok(()),
            ErrorModelConfig::Uniform(u) => probability("errors.packet_error_rate", u.packet_error_rate),
            ErrorModelConfig::GilbertElliott(g) => g.chain().map(|_| ()),
        }
    }

    /// `errors.scope` (no model: the default).
    pub fn scope(&self) -> ErrorScope {
        match self {
            ErrorModelConfig::None => ErrorScope::default(),
            ErrorModelConfig::Uniform(u) => u.scope,
            ErrorModelConfig::GilbertElliott(g) => g.scope,
        }
    }

    /// The model of one receiving node, drawing from `rng`.
    pub fn build(&self, rng: Stream) -> ErrorModel {
        match self {
            ErrorModelConfig::None => ErrorModel::None,
            ErrorModelConfig::Uniform(u) => ErrorModel::Uniform { packet_error_rate: u.packet_error_rate, scope: u.scope, rng },
            ErrorModelConfig::GilbertElliott(g) => {
                let chain = g.chain().expect("validated");
                ErrorModel::GilbertElliott(Box::new(GilbertElliott { chain, scope: g.scope, bad_links: BTreeMap::new(), rng }))
            }
        }
    }
}

#[derive(Debug, Clone)]
pub enum ErrorModel {
    None,
    /// Each exposed frame is lost independently with `packet_error_rate`.
    Uniform {
        packet_error_rate: f64,
        scope: ErrorScope,
        rng: Stream,
    },
    GilbertElliott(Box<GilbertElliott>),
}

/// The Gilbert-Elliott chains of the links into one node.
#[derive(Debug, Clone)]
pub struct GilbertElliott {
    chain: GilbertElliottChain,
    scope: ErrorScope,
    /// Per transmitter: whether its link into this node is in the bad
    /// state. A link's chain starts at its first exposed frame, in a state
    /// drawn from the stationary distribution. (`every_frame`: one entry,
    /// keyed by the receiving node, for every transmitter.)
    bad_links: BTreeMap<NodeId, bool>,
    rng: Stream,
}

impl GilbertElliott {
    /// One exposed frame from `transmitter`: step that link's chain, then
    /// draw the frame's fate in the new state. Returns true if it is lost.
    pub fn next_frame_lost(&mut self, transmitter: NodeId) -> bool {
        let GilbertElliott { chain, bad_links, rng, .. } = self;
        let bad = match bad_links.get_mut(&transmitter) {
            Some(bad) => {
                let leave = if *bad { chain.bad_to_good } else { chain.good_to_bad };
                if rng.bernoulli(leave) {
                    *bad = !*bad;
                }
                *bad
            }
            None => *bad_links.entry(transmitter).or_insert(rng.bernoulli(chain.stationary_bad)),
        };
        rng.bernoulli(if bad { chain.bad_state_error } else { chain.good_state_error })
    }
}

impl ErrorModel {
    /// The `unicast_data` scope: whether `frame`, decoded at `node` as it
    /// ends, is lost to a channel error.
    pub fn corrupts(&mut self, node: NodeId, frame: &Frame) -> bool {
        match self {
            ErrorModel::None => false,
            ErrorModel::Uniform { packet_error_rate, scope: ErrorScope::UnicastData, rng } => {
                *packet_error_rate > 0.0 && frame.kind == FrameKind::Data && frame.receiver == node && rng.bernoulli(*packet_error_rate)
            }
            ErrorModel::GilbertElliott(ge) if ge.scope == ErrorScope::UnicastData => {
                frame.kind == FrameKind::Data && frame.receiver == node && ge.next_frame_lost(frame.transmitter)
            }
            _ => false,
        }
    }

    /// The `every_frame` scope (ns-2's `-IncomingErrProc`): whether a frame
    /// starting to arrive at `node` (any kind, any receiver, decodable or
    /// sensed only) is lost before the MAC sees it. ns-2 steps one
    /// `TwoStateErrorModel` per node once per frame (queue/errmodel.cc:408-429,
    /// unit pkt), so every transmitter shares the node's chain.
    pub fn loses_on_arrival(&mut self, node: NodeId) -> bool {
        match self {
            ErrorModel::Uniform { packet_error_rate, scope: ErrorScope::EveryFrame, rng } => {
                *packet_error_rate > 0.0 && rng.bernoulli(*packet_error_rate)
            }
            ErrorModel::GilbertElliott(ge) if ge.scope == ErrorScope::EveryFrame => ge.next_frame_lost(node),
            _ => false,
        }
    }
}

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`, in the order of its
/// sources; `hoplab presets`). Each cites the ns-2 file and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[
    // Frame errors: where ns-2's node-config -IncomingErrProc sits.
    PresetRule {
        key: "errors.scope",
        value: "\"every_frame\"",
        applies: Applies::WithErrorModel,
        source: "tcl/lib/ns-mobilenode.tcl:513-517 add-interface ($netif up-target $inerr, $inerr target $mac: every frame WirelessPhy::sendUp passes up, mac/wireless-phy.cc:344-376, phy.cc:124-134); queue/errmodel.cc:173-211 ErrorModel::recv (a corrupted frame goes to drop_, never to the MAC), 408-429 TwoStateErrorModel::corruptPkt (one chain per node, stepped per frame; ns-2.35)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{RngStreams, StreamPurpose};

    fn config(per: f64, burst: f64) -> GilbertElliottErrors {
        GilbertElliottErrors {
            packet_error_rate: per,
            mean_burst_frames: burst,
            good_state_error: 0.0,
            bad_state_error: 1.0,
            scope: ErrorScope::UnicastData,
        }
    }

    fn model(c: &GilbertElliottErrors, seed: u64) -> GilbertElliott {
        GilbertElliott {
            chain: c.chain().unwrap(),
            scope: c.scope,
            bad_links: BTreeMap::new(),
            rng: RngStreams::new(seed).stream(StreamPurpose::ErrorModel, 0),
        }
    }

    /// Frame fates of one link over `n` frames.
    fn fates(m: &mut GilbertElliott, from: NodeId, n: usize) -> Vec<bool> {
        (0..n).map(|_| m.next_frame_lost(from)).collect()
    }

    #[test]
    fn chain_of_3_percent_in_bursts_of_3() {
        // pi = 0.03, r = 1/3, p = r pi / (1 - pi) = 0.010309...
        let chain = config(0.03, 3.0).chain().unwrap();
        assert!((chain.stationary_bad - 0.03).abs() < 1e-12);
        assert!((chain.bad_to_good - 1.0 / 3.0).abs() < 1e-12);
        assert!((chain.good_to_bad - 0.01 / 0.97).abs() < 1e-12);
    }

    #[test]
    fn long_run_error_rate_and_mean_burst_over_a_million_frames() {
        let c = config(0.03, 3.0);
        let lost = fates(&mut model(&c, 11), NodeId(4), 1_000_000);
        let rate = lost.iter().filter(|&&l| l).count() as f64 / lost.len() as f64;
        // Standard error of the rate with bursts: sqrt(pi (1-pi) (2/r - 1) / n)
        // ~ 0.0004; 5 sigma.
        assert!((rate - 0.03).abs() < 0.002, "long-run error rate {rate}");
        // With e_bad = 1 and e_good = 0 a run of losses is a stay in the bad
        // state: geometric with mean 1 / r = 3.
        let mut runs = Vec::new();
        let mut run = 0usize;
        for &l in &lost {
            if l {
                run += 1;
            } else if run > 0 {
                runs.push(run);
                run = 0;
            }
        }
        let mean = runs.iter().sum::<usize>() as f64 / runs.len() as f64;
        assert!((mean - 3.0).abs() < 0.1, "mean burst {mean} over {} bursts", runs.len());
        // Geometric: P(run >= 4) = (1 - r)^3 = 8/27.
        let long = runs.iter().filter(|&&r| r >= 4).count() as f64 / runs.len() as f64;
        assert!((long - 8.0 / 27.0).abs() < 0.02, "share of bursts >= 4 frames {long}");
    }

    #[test]
    fn soft_states_keep_the_long_run_rate() {
        // Errors in both states: the long-run rate is still PER.
        let c = GilbertElliottErrors {
            packet_error_rate: 0.1,
            mean_burst_frames: 5.0,
            good_state_error: 0.02,
            bad_state_error: 0.5,
            scope: ErrorScope::UnicastData,
        };
        let chain = c.chain().unwrap();
        assert!((chain.stationary_bad - (0.1 - 0.02) / (0.5 - 0.02)).abs() < 1e-12);
        let lost = fates(&mut model(&c, 3), NodeId(1), 1_000_000);
        let rate = lost.iter().filter(|&&l| l).count() as f64 / lost.len() as f64;
        assert!((rate - 0.1).abs() < 0.004, "long-run error rate {rate}");
    }

    #[test]
    fn links_have_their_own_chains() {
        // Frames from node 1 in a burst do not put node 2's link in one:
        // interleaving two links keeps each link's burst statistics.
        let c = config(0.05, 4.0);
        let mut m = model(&c, 5);
        let mut a = Vec::new();
        let mut b = Vec::new();
        for _ in 0..400_000 {
            a.push(m.next_frame_lost(NodeId(1)));
            b.push(m.next_frame_lost(NodeId(2)));
        }
        // P(lost | previous frame of the same link lost) = 1 - r = 0.75;
        // across links the fates are independent: P(b lost | a lost) = 0.05.
        let cond = |x: &[bool], y: &[bool]| {
            let both = x.iter().zip(y).filter(|(p, q)| **p && **q).count() as f64;
            both / x.iter().filter(|&&p| p).count() as f64
        };
        assert!((cond(&a[..a.len() - 1], &a[1..]) - 0.75).abs() < 0.02);
        assert!((cond(&a, &b) - 0.05).abs() < 0.01, "links are not independent: {}", cond(&a, &b));
    }

    #[test]
    fn every_frame_scope_is_one_chain_per_node_decided_on_arrival() {
        // ns-2 steps one TwoStateErrorModel per node for every frame
        // (queue/errmodel.cc:408-429): a burst started by a frame from one
        // transmitter goes on for the next frame from another.
        let c = GilbertElliottErrors { scope: ErrorScope::EveryFrame, ..config(0.05, 4.0) };
        let mut m = ErrorModelConfig::GilbertElliott(c).build(RngStreams::new(5).stream(StreamPurpose::ErrorModel, 0));
        let zero = crate::time::SimDuration::ZERO;
        let data = Frame::new(FrameKind::Data, NodeId(1), NodeId(0), zero, zero);
        assert!((0..1000).all(|_| !m.corrupts(NodeId(0), &data)), "decided on arrival, never again at the end");
        let fates: Vec<bool> = (0..800_000).map(|_| m.loses_on_arrival(NodeId(0))).collect();
        let (a, b): (Vec<bool>, Vec<bool>) =
            (fates.iter().step_by(2).copied().collect(), fates.iter().skip(1).step_by(2).copied().collect());
        // Frames alternate between two transmitters; P(b lost | a lost just
        // before) is the chain's 1 - r = 0.75, not the 0.05 of independent
        // per-link chains.
        let both = a.iter().zip(&b).filter(|(p, q)| **p && **q).count() as f64;
        let cond = both / a.iter().filter(|&&p| p).count() as f64;
        assert!((cond - 0.75).abs() < 0.02, "{cond}");
        let rate = fates.iter().filter(|&&l| l).count() as f64 / fates.len() as f64;
        assert!((rate - 0.05).abs() < 0.003, "long-run rate {rate}");
        // The unicast_data scope never loses a frame on arrival.
        let mut u = ErrorModelConfig::GilbertElliott(config(0.5, 1.0)).build(RngStreams::new(1).stream(StreamPurpose::ErrorModel, 0));
        assert!((0..1000).all(|_| !u.loses_on_arrival(NodeId(0))));
    }

    #[test]
    fn impossible_chains_name_their_key() {
        let too_high = config(0.6, 1.0).chain().unwrap_err();
        assert_eq!(too_high.key, "errors.packet_error_rate");
        assert!(too_high.message.contains("mean_burst_frames"), "{}", too_high.message);
        assert_eq!(config(0.1, 0.5).chain().unwrap_err().key, "errors.mean_burst_frames");
        let inverted = GilbertElliottErrors {
            packet_error_rate: 0.1,
            mean_burst_frames: 3.0,
            good_state_error: 0.5,
            bad_state_error: 0.2,
            scope: ErrorScope::UnicastData,
        };
        assert_eq!(inverted.chain().unwrap_err().key, "errors.bad_state_error");
        let outside = GilbertElliottErrors {
            packet_error_rate: 0.01,
            mean_burst_frames: 3.0,
            good_state_error: 0.02,
            bad_state_error: 1.0,
            scope: ErrorScope::UnicastData,
        };
        assert_eq!(outside.chain().unwrap_err().key, "errors.packet_error_rate");
    }

    #[test]
    fn only_unicast_data_to_this_node_is_exposed() {
        use crate::wire::ieee80211::Frame;
        let c = ErrorModelConfig::GilbertElliott(config(0.5, 1.0));
        let mut m = c.build(RngStreams::new(1).stream(StreamPurpose::ErrorModel, 0));
        let zero = crate::time::SimDuration::ZERO;
        let mut frame = Frame::new(FrameKind::Data, NodeId(1), NodeId(0), zero, zero);
        let data_losses = (0..1000).filter(|_| m.corrupts(NodeId(0), &frame)).count();
        assert!(data_losses > 300, "{data_losses}");
        frame.receiver = NodeId(7);
        assert_eq!((0..1000).filter(|_| m.corrupts(NodeId(0), &frame)).count(), 0);
        frame.receiver = NodeId(0);
        frame.kind = FrameKind::Rts;
        assert_eq!((0..1000).filter(|_| m.corrupts(NodeId(0), &frame)).count(), 0);
    }
}
