//! `[topology]`: node placement, positions in metres (2-D). `kind` picks
//! the layout and its keys; each kind is a typed struct, so the keys a kind
//! takes, their defaults and the error for a key another kind takes all
//! come from one definition.

use crate::config::{at_least, count_in, nested, non_negative, packets, parse_at, parse_tagged, positive, probability, ConfigError};
use crate::link::LinkConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// `[topology]`: where the nodes are (positions in metres, 2-D; node ids
/// count from 0) and the wired links.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TopologyConfig {
    Chain(Chain),
    Grid(Grid),
    Random(Random),
    Explicit(Explicit),
    WiredCumWireless(WiredCumWireless),
}

/// `nodes` on a line, `spacing_m` apart, node 0 at the origin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Chain {
    /// Number of nodes (at least 2), ids 0..nodes-1 along the line.
    pub nodes: u32,
    /// Distance between neighbours, metres.
    pub spacing_m: f64,
}

/// `rows` x `cols`, row-major ids, `spacing_m` apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    /// Number of rows (rows * cols at least 2).
    pub rows: u32,
    /// Number of columns; node id = row * cols + column.
    pub cols: u32,
    /// Distance between horizontal and vertical neighbours, metres.
    pub spacing_m: f64,
}

/// `nodes` uniform in `width_m` x `height_m`, redrawn until the graph of
/// decodable links is connected, at most `max_tries` times (not when nodes
/// move: a mobile network may start, and stay, partitioned).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Random {
    /// Number of nodes (at least 2).
    pub nodes: u32,
    /// Width of the area, metres.
    pub width_m: f64,
    /// Height of the area, metres.
    pub height_m: f64,
    /// Draws of the positions before giving up on a connected network
    /// (1 to 10000).
    #[serde(default = "Random::default_max_tries")]
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, 10000>")]
    pub max_tries: u32,
}

impl Random {
    fn default_max_tries() -> u32 {
        1000
    }
}

/// One `[x, y]` per node in `positions`, optional wired `links`, and
/// `wired_nodes` without a radio.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Explicit {
    /// `[x, y]` of each node in metres, in id order (at least 2 nodes).
    pub positions: Vec<[f64; 2]>,
    /// Wired point-to-point links, one `[[topology.links]]` table each.
    #[serde(default)]
    pub links: Vec<LinkConfig>,
    /// Ids of the nodes without a radio (reached over `links` only).
    #[serde(default)]
    pub wired_nodes: Vec<u32>,
}

/// Seed 002's layout: `senders` wired hosts, each on
/// an access link to router R1; a bottleneck link R1 - R2 (the base
/// station); R2 reaches `receivers` hosts over the last hop, a lossy
/// point-to-point link (`last_hop = "link"`, as the paper) or 802.11
/// (`"wifi"`). Ids: senders 0..S-1, R1 = S, R2 = S+1, receivers S+2...
/// Defaults are seed 002's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WiredCumWireless {
    /// Number of wired senders (ids 0..senders-1).
    pub senders: u32,
    /// Number of receivers behind the base station (ids from senders + 2).
    pub receivers: u32,
    /// Rate of each sender's access link to R1, Mb/s.
    pub access_rate_mbps: f64,
    /// Propagation delay of each access link, milliseconds.
    pub access_delay_ms: f64,
    /// Rate of the bottleneck link R1 - R2, Mb/s.
    pub bottleneck_rate_mbps: f64,
    /// Propagation delay of the bottleneck link, milliseconds.
    pub bottleneck_delay_ms: f64,
    /// What the last hop, base station to receivers, is.
    pub last_hop: LastHop,
    /// Rate of each last-hop link, Mb/s (`last_hop = "link"`).
    pub last_hop_rate_mbps: f64,
    /// Propagation delay of each last-hop link, milliseconds (`last_hop = "link"`).
    pub last_hop_delay_ms: f64,
    /// Probability, 0 to 1, that a packet is lost on a last-hop link, each
    /// direction (`last_hop = "link"`; the paper's wireless losses).
    pub last_hop_loss_rate: f64,
    /// Distance of the receivers from the base station, metres (`last_hop = "wifi"`).
    pub last_hop_distance_m: f64,
    /// Drop-tail queue of every wired link, each direction, packets.
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, { crate::config::MAX_PACKETS }>")]
    pub queue_packets: u32,
}

impl Default for WiredCumWireless {
    fn default() -> Self {
        WiredCumWireless {
            senders: 1,
            receivers: 1,
            access_rate_mbps: 100.0,
            access_delay_ms: 30.0,
            bottleneck_rate_mbps: 100.0,
            bottleneck_delay_ms: 10.0,
            last_hop: LastHop::Link,
            last_hop_rate_mbps: 5.0,
            last_hop_delay_ms: 0.01,
            last_hop_loss_rate: 0.0,
            last_hop_distance_m: 100.0,
            queue_packets: 50,
        }
    }
}

impl WiredCumWireless {
    pub fn node_count(&self) -> u32 {
        self.senders + 2 + self.receivers
    }
    pub fn router(&self) -> u32 {
        self.senders
    }
    pub fn base_station(&self) -> u32 {
        self.senders + 1
    }
}

/// The last hop of a `wired_cum_wireless` topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LastHop {
    /// A point-to-point link with random loss (seed 002's "wireless link").
    Link,
    /// 802.11 from the base station, receivers `last_hop_distance_m` away.
    Wifi,
}

const KINDS: &[&str] = &["chain", "grid", "random", "explicit", "wired_cum_wireless"];

impl<'de> Deserialize<'de> for TopologyConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        parse_tagged(value, "kind", None, KINDS, |kind, rest| match kind {
            "chain" => parse_at(rest, "").map(TopologyConfig::Chain),
            "grid" => parse_at(rest, "").map(TopologyConfig::Grid),
            "random" => parse_at(rest, "").map(TopologyConfig::Random),
            "explicit" => parse_at(rest, "").map(TopologyConfig::Explicit),
            _ => parse_at(rest, "").map(TopologyConfig::WiredCumWireless),
        })
        .map_err(nested)
    }
}

/// The most nodes a topology may have.
pub const MAX_NODES: u32 = 100_000;

impl TopologyConfig {
    /// Number of nodes the topology creates.
    pub fn node_count(&self) -> u32 {
        match self {
            TopologyConfig::Chain(c) => c.nodes,
            TopologyConfig::Random(r) => r.nodes,
            TopologyConfig::Grid(g) => g.rows.saturating_mul(g.cols),
            TopologyConfig::Explicit(e) => e.positions.len().min(u32::MAX as usize) as u32,
            TopologyConfig::WiredCumWireless(w) => w.node_count(),
        }
    }

    /// The layout has wired links.
    pub fn is_wired(&self) -> bool {
        match self {
            TopologyConfig::Explicit(e) => !e.links.is_empty() || !e.wired_nodes.is_empty(),
            TopologyConfig::WiredCumWireless(_) => true,
            _ => false,
        }
    }

    /// A random topology's area (where moving nodes stay by default).
    pub fn random_area_m(&self) -> Option<(f64, f64)> {
        match self {
            TopologyConfig::Random(r) => Some((r.width_m, r.height_m)),
            _ => None,
        }
    }

    /// Range checks; errors name `topology.<key>`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            TopologyConfig::Chain(c) => {
                at_least("topology.nodes", c.nodes, 2)?;
                positive("topology.spacing_m", c.spacing_m)?;
            }
            TopologyConfig::Grid(g) => {
                at_least("topology.rows", g.rows, 1)?;
                at_least("topology.cols", g.cols, 1)?;
                if g.rows.saturating_mul(g.cols) < 2 {
                    return Err(ConfigError::new("topology.cols", "rows * cols must be at least 2"));
                }
                positive("topology.spacing_m", g.spacing_m)?;
            }
            TopologyConfig::Random(r) => {
                at_least("topology.nodes", r.nodes, 2)?;
                positive("topology.width_m", r.width_m)?;
                positive("topology.height_m", r.height_m)?;
                count_in("topology.max_tries", r.max_tries, 1, 10_000)?;
                // Each draw of a static network checks its connectivity
                // (O(nodes)): bounded so that a network that never connects
                // gives up in seconds, not hours.
                if u64::from(r.max_tries) * u64::from(r.nodes) > 100_000_000 {
                    return Err(ConfigError::new(
                        "topology.max_tries",
                        format!(
                            "max_tries x nodes must be at most 10^8 ({} nodes: at most {} draws), got {}",
                            r.nodes,
                            100_000_000 / r.nodes.max(1),
                            r.max_tries
                        ),
                    ));
                }
            }
            TopologyConfig::Explicit(e) => {
                if e.positions.len() < 2 {
                    return Err(ConfigError::new("topology.positions", "needs at least 2 nodes"));
                }
                for (i, p) in e.positions.iter().enumerate() {
                    if !(p[0].is_finite() && p[1].is_finite()) {
                        return Err(ConfigError::new(format!("topology.positions[{i}]"), "must be finite"));
                    }
                }
                let n = self.node_count();
                for (i, link) in e.links.iter().enumerate() {
                    link.validate(&format!("topology.links[{i}]"), n)?;
                }
                for (i, &node) in e.wired_nodes.iter().enumerate() {
                    if node >= n {
                        return Err(ConfigError::new(
                            format!("topology.wired_nodes[{i}]"),
                            format!("node {node} does not exist (nodes 0 to {})", n - 1),
                        ));
                    }
                }
            }
            TopologyConfig::WiredCumWireless(w) => {
                at_least("topology.senders", w.senders, 1)?;
                at_least("topology.receivers", w.receivers, 1)?;
                positive("topology.access_rate_mbps", w.access_rate_mbps)?;
                non_negative("topology.access_delay_ms", w.access_delay_ms)?;
                positive("topology.bottleneck_rate_mbps", w.bottleneck_rate_mbps)?;
                non_negative("topology.bottleneck_delay_ms", w.bottleneck_delay_ms)?;
                positive("topology.last_hop_rate_mbps", w.last_hop_rate_mbps)?;
                non_negative("topology.last_hop_delay_ms", w.last_hop_delay_ms)?;
                probability("topology.last_hop_loss_rate", w.last_hop_loss_rate)?;
                positive("topology.last_hop_distance_m", w.last_hop_distance_m)?;
                packets("topology.queue_packets", w.queue_packets)?;
            }
        }
        if self.node_count() > MAX_NODES {
            return Err(ConfigError::new("topology", format!("at most {MAX_NODES} nodes")));
        }
        Ok(())
    }
}
