//! Scenario configuration: the typed form of a scenario file (DESIGN.md,
//! "Scenario files"), with every default named and every value validated.
//!
//! Parsing goes through `serde_path_to_error`, so a wrong type or an unknown
//! key is reported with its full path (`topology.nodes: invalid type ...`).
//! [`Scenario::validate`] then checks ranges and cross-field rules and
//! reports the same way. Python hands the TOML over as JSON; this module is
//! the one place that knows what a valid scenario is.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A configuration error: the dotted key it concerns and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { key: key.into(), message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

fn default_name() -> String {
    "unnamed".to_string()
}
fn default_duration_s() -> f64 {
    100.0
}
fn default_seed() -> u64 {
    1
}

/// A whole scenario. Unknown keys are errors at every level.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_name")]
    pub name: String,
    /// Simulated time of the run.
    #[serde(default = "default_duration_s")]
    pub duration_s: f64,
    /// Statistics (goodput, delay) ignore what happens before this time.
    #[serde(default)]
    pub warmup_s: f64,
    /// Run seed; every random stream derives from it (see `engine::rng`).
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub radio: RadioConfig,
    #[serde(default)]
    pub mac: MacConfig,
    pub topology: TopologyConfig,
    #[serde(default)]
    pub routing: RoutingConfig,
    #[serde(default)]
    pub mobility: MobilityConfig,
    #[serde(default)]
    pub errors: ErrorModelConfig,
    #[serde(default)]
    pub stats: StatsConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    #[serde(default)]
    pub semitcp: SemiTcpConfig,
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
}

/// Semi-TCP parameters (SPEC.md sections 2-3). Its transport also uses the
/// RTO settings of `[tcp]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SemiTcpConfig {
    /// R: places the source's MAC keeps for its own packets (best: 1).
    pub reserved_packets: u32,
    /// Run the hop-by-hop control in every MAC when a flow is semi-TCP.
    pub hop_control: bool,
    /// The hop-by-hop control's rules.
    pub mac: crate::mac::hop_control::HopControlConfig,
    /// Algorithm 1's parameters.
    pub rate_control: crate::transport::semitcp::rate_control::RateControlConfig,
}

impl Default for SemiTcpConfig {
    fn default() -> Self {
        SemiTcpConfig { reserved_packets: 1, hop_control: true, mac: Default::default(), rate_control: Default::default() }
    }
}

impl SemiTcpConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        at_least("semitcp.reserved_packets", self.reserved_packets, 1)?;
        non_negative("semitcp.mac.hold_ms", self.mac.hold_ms)?;
        at_least("semitcp.mac.release_data_frames", self.mac.release_data_frames, 1)?;
        let rc = &self.rate_control;
        at_least("semitcp.rate_control.window_samples", rc.window_samples, 1)?;
        at_least("semitcp.rate_control.frames_per_sample", rc.frames_per_sample, 1)?;
        positive("semitcp.rate_control.low_apr", rc.low_apr)?;
        positive("semitcp.rate_control.too_high_fraction", rc.too_high_fraction)?;
        positive("semitcp.rate_control.too_low_fraction", rc.too_low_fraction)?;
        if rc.too_low_fraction >= rc.too_high_fraction {
            return Err(ConfigError::new(
                "semitcp.rate_control.too_low_fraction",
                format!("must be below too_high_fraction ({})", rc.too_high_fraction),
            ));
        }
        positive("semitcp.rate_control.restart_change", rc.restart_change)?;
        non_negative("semitcp.rate_control.low_level_margin", rc.low_level_margin)?;
        positive("semitcp.rate_control.resolution_kbps", rc.resolution_kbps)
    }
}

/// TCP parameters of every TCP flow. Defaults: the papers' ns-2 settings
/// (SPEC.md section 1) and RFC 6298; each is documented on
/// `transport::tcp::sender::TcpParams`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    pub initial_cwnd_segments: f64,
    pub rwnd_segments: u32,
    /// 200 ms as Linux and ns-2; 1000 for RFC 6298's minimum.
    pub min_rto_ms: f64,
    pub initial_rto_ms: f64,
    pub max_rto_ms: f64,
    pub clock_granularity_ms: f64,
    pub delayed_ack: bool,
    pub delayed_ack_ms: f64,
    pub delayed_ack_segments: u32,
    pub limited_transmit: bool,
    pub handshake: bool,
    /// SACK (RFC 2018) with RFC 6675 loss recovery; off as ns-2's
    /// TCP/Newreno (seed 004's ns-2 TCP-Linux runs with SACK).
    pub sack: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            initial_cwnd_segments: 2.0,
            rwnd_segments: 20,
            min_rto_ms: 200.0,
            initial_rto_ms: 1000.0,
            max_rto_ms: 60_000.0,
            clock_granularity_ms: 10.0,
            delayed_ack: false,
            delayed_ack_ms: 100.0,
            delayed_ack_segments: 2,
            limited_transmit: false,
            handshake: false,
            sack: false,
        }
    }
}

impl TcpConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if !(self.initial_cwnd_segments >= 1.0 && self.initial_cwnd_segments.is_finite()) {
            return Err(ConfigError::new("tcp.initial_cwnd_segments", "must be at least 1"));
        }
        at_least("tcp.rwnd_segments", self.rwnd_segments, 1)?;
        non_negative("tcp.min_rto_ms", self.min_rto_ms)?;
        positive("tcp.initial_rto_ms", self.initial_rto_ms)?;
        positive("tcp.max_rto_ms", self.max_rto_ms)?;
        if self.max_rto_ms < self.min_rto_ms {
            return Err(ConfigError::new("tcp.max_rto_ms", format!("must be >= min_rto_ms ({})", self.min_rto_ms)));
        }
        non_negative("tcp.clock_granularity_ms", self.clock_granularity_ms)?;
        positive("tcp.delayed_ack_ms", self.delayed_ack_ms)?;
        at_least("tcp.delayed_ack_segments", self.delayed_ack_segments, 1)?;
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reception {
    /// ns-2's receive / carrier-sense / capture thresholds (SPEC.md 1.1).
    Threshold,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Propagation {
    /// Friis below the crossover distance, two-ray ground above (ns-2).
    TwoRayGround,
    /// Friis everywhere.
    FreeSpace,
}

/// Radio and PHY parameters. Defaults are ns-2's (SPEC.md section 1) and
/// the DSSS PHY of IEEE 802.11-2016 clause 15 with the long preamble.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RadioConfig {
    pub reception: Reception,
    pub propagation: Propagation,
    /// Rate of the DATA frame body (MAC header + payload + FCS).
    pub data_rate_mbps: f64,
    /// Rate of control frames (RTS, CTS, ACK) and broadcast frames.
    pub basic_rate_mbps: f64,
    /// PLCP preamble + header duration; 192 us for DSSS long preamble
    /// (144 + 48 bits at 1 Mbps).
    pub plcp_overhead_us: f64,
    pub tx_power_w: f64,
    pub frequency_hz: f64,
    pub antenna_height_m: f64,
    /// ns-2's system loss factor L (1.0: none).
    pub system_loss: f64,
    /// Decoding range; sets the receive threshold. Exclusive with `rx_threshold_w`.
    pub tx_range_m: Option<f64>,
    /// Carrier-sense range; sets the carrier-sense threshold. Exclusive with `cs_threshold_w`.
    pub cs_range_m: Option<f64>,
    /// ns-2 RXThresh_. Default 3.652e-10 W (250 m with the default radio).
    pub rx_threshold_w: Option<f64>,
    /// ns-2 CSThresh_. Default 1.559e-11 W (550 m with the default radio).
    pub cs_threshold_w: Option<f64>,
    /// ns-2 CPThresh_: a frame being received survives a newcomer this much weaker.
    pub capture_threshold_db: f64,
}

impl Default for RadioConfig {
    fn default() -> Self {
        RadioConfig {
            reception: Reception::Threshold,
            propagation: Propagation::TwoRayGround,
            data_rate_mbps: 2.0,
            basic_rate_mbps: 2.0,
            plcp_overhead_us: 192.0,
            tx_power_w: 0.281_838_15,
            frequency_hz: 914e6,
            antenna_height_m: 1.5,
            system_loss: 1.0,
            tx_range_m: None,
            cs_range_m: None,
            rx_threshold_w: None,
            cs_threshold_w: None,
            capture_threshold_db: 10.0,
        }
    }
}

/// DCF parameters (IEEE 802.11-2016 clause 10.3, DSSS values of SPEC.md
/// section 1 / seed 003 Table 1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MacConfig {
    /// RTS/CTS precedes a unicast DATA frame whose MPDU is longer than this;
    /// 0 means every unicast DATA frame (dot11RTSThreshold).
    pub rts_threshold_bytes: u32,
    /// dot11ShortRetryLimit: attempts of an RTS (or of a frame sent without RTS).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: attempts of a DATA frame sent after a CTS.
    pub long_retry_limit: u32,
    /// Interface queue capacity in packets (drop-tail).
    pub queue_packets: u32,
    pub slot_us: f64,
    pub sifs_us: f64,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Answer an RTS with a CTS even while the NAV is set, as ns-2's
    /// `Mac802_11::recvRTS` does. Off by default: IEEE 802.11-2016 10.3.2.6
    /// sends the CTS only "if the NAV at the STA receiving the RTS frame
    /// indicates that the medium is idle".
    pub cts_ignores_nav: bool,
}

impl Default for MacConfig {
    fn default() -> Self {
        MacConfig {
            rts_threshold_bytes: 0,
            short_retry_limit: 7,
            long_retry_limit: 4,
            queue_packets: 50,
            slot_us: 20.0,
            sifs_us: 10.0,
            cw_min: 31,
            cw_max: 1023,
            cts_ignores_nav: false,
        }
    }
}

/// Topology kinds (`topology.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// `nodes` on a line, `spacing_m` apart, node 0 at the origin.
    Chain,
    /// `rows` x `cols`, row-major ids, `spacing_m` apart.
    Grid,
    /// `nodes` uniform in `width_m` x `height_m`, redrawn until the graph of
    /// decodable links is connected, at most `max_tries` times (not when
    /// nodes move: a mobile network may start, and stay, partitioned).
    Random,
    /// One `[x, y]` per node in `positions`, optional wired `links`, and
    /// `wired_nodes` without a radio.
    Explicit,
    /// Seed 002's layout (SPEC.md section 5): `senders` wired hosts, each on
    /// an access link to router R1; a bottleneck link R1 - R2 (the base
    /// station); R2 reaches `receivers` hosts over the last hop, a lossy
    /// point-to-point link (`last_hop = "link"`, as the paper) or 802.11
    /// (`"wifi"`). Ids: senders 0..S-1, R1 = S, R2 = S+1, receivers S+2...
    WiredCumWireless,
}

/// The last hop of a `wired_cum_wireless` topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LastHop {
    /// A point-to-point link with random loss (seed 002's "wireless link").
    Link,
    /// 802.11 from the base station, receivers `last_hop_distance_m` away.
    Wifi,
}

/// A wired point-to-point link (full duplex; each direction has its own
/// drop-tail queue and transmitter).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub a: u32,
    pub b: u32,
    pub rate_mbps: f64,
    pub delay_ms: f64,
    #[serde(default = "default_link_queue")]
    pub queue_packets: u32,
    /// Probability that a packet is lost crossing the link (each direction;
    /// drop cause `channel_error`).
    #[serde(default)]
    pub loss_rate: f64,
}

fn default_link_queue() -> u32 {
    50
}

/// Node placement, positions in metres (2-D). A flat table rather than a
/// tagged enum so that every error names its exact key; [`TopologyConfig::shape`]
/// turns it into the typed [`TopologyShape`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologyConfig {
    pub kind: TopologyKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spacing_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cols: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tries: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<[f64; 2]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<LinkConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wired_nodes: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receivers: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_rate_mbps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_delay_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck_rate_mbps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck_delay_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_hop: Option<LastHop>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_hop_rate_mbps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_hop_delay_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_hop_loss_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_hop_distance_m: Option<f64>,
    /// Queue of every wired link of a `wired_cum_wireless` topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_packets: Option<u32>,
}

/// The validated topology.
#[derive(Debug, Clone, PartialEq)]
pub enum TopologyShape {
    Chain { nodes: u32, spacing_m: f64 },
    Grid { rows: u32, cols: u32, spacing_m: f64 },
    Random { nodes: u32, width_m: f64, height_m: f64, max_tries: u32 },
    Explicit { positions: Vec<[f64; 2]>, links: Vec<LinkConfig>, wired_nodes: Vec<u32> },
    WiredCumWireless(WiredCumWireless),
}

/// The validated parameters of a `wired_cum_wireless` topology; defaults
/// are seed 002's (SPEC.md section 5).
#[derive(Debug, Clone, PartialEq)]
pub struct WiredCumWireless {
    pub senders: u32,
    pub receivers: u32,
    pub access_rate_mbps: f64,
    pub access_delay_ms: f64,
    pub bottleneck_rate_mbps: f64,
    pub bottleneck_delay_ms: f64,
    pub last_hop: LastHop,
    pub last_hop_rate_mbps: f64,
    pub last_hop_delay_ms: f64,
    pub last_hop_loss_rate: f64,
    pub last_hop_distance_m: f64,
    pub queue_packets: u32,
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

impl TopologyConfig {
    /// Check that the keys of `kind` are present and no other key is, and
    /// return the typed shape.
    pub fn shape(&self) -> Result<TopologyShape, ConfigError> {
        let kind = self.kind;
        let kind_name = serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let allowed: &[&str] = match kind {
            TopologyKind::Chain => &["nodes", "spacing_m"],
            TopologyKind::Grid => &["rows", "cols", "spacing_m"],
            TopologyKind::Random => &["nodes", "width_m", "height_m", "max_tries"],
            TopologyKind::Explicit => &["positions", "links", "wired_nodes"],
            TopologyKind::WiredCumWireless => &[
                "senders",
                "receivers",
                "access_rate_mbps",
                "access_delay_ms",
                "bottleneck_rate_mbps",
                "bottleneck_delay_ms",
                "last_hop",
                "last_hop_rate_mbps",
                "last_hop_delay_ms",
                "last_hop_loss_rate",
                "last_hop_distance_m",
                "queue_packets",
            ],
        };
        let present = [
            ("nodes", self.nodes.is_some()),
            ("spacing_m", self.spacing_m.is_some()),
            ("rows", self.rows.is_some()),
            ("cols", self.cols.is_some()),
            ("width_m", self.width_m.is_some()),
            ("height_m", self.height_m.is_some()),
            ("max_tries", self.max_tries.is_some()),
            ("positions", self.positions.is_some()),
            ("links", self.links.is_some()),
            ("wired_nodes", self.wired_nodes.is_some()),
            ("senders", self.senders.is_some()),
            ("receivers", self.receivers.is_some()),
            ("access_rate_mbps", self.access_rate_mbps.is_some()),
            ("access_delay_ms", self.access_delay_ms.is_some()),
            ("bottleneck_rate_mbps", self.bottleneck_rate_mbps.is_some()),
            ("bottleneck_delay_ms", self.bottleneck_delay_ms.is_some()),
            ("last_hop", self.last_hop.is_some()),
            ("last_hop_rate_mbps", self.last_hop_rate_mbps.is_some()),
            ("last_hop_delay_ms", self.last_hop_delay_ms.is_some()),
            ("last_hop_loss_rate", self.last_hop_loss_rate.is_some()),
            ("last_hop_distance_m", self.last_hop_distance_m.is_some()),
            ("queue_packets", self.queue_packets.is_some()),
        ];
        for (key, is_present) in present {
            if is_present && !allowed.contains(&key) {
                return Err(ConfigError::new(
                    format!("topology.{key}"),
                    format!("not used by kind = \"{kind_name}\" (its keys: {})", allowed.join(", ")),
                ));
            }
        }
        let need = |key: &str| ConfigError::new(format!("topology.{key}"), format!("required for kind = \"{kind_name}\""));
        Ok(match kind {
            TopologyKind::Chain => TopologyShape::Chain {
                nodes: self.nodes.ok_or_else(|| need("nodes"))?,
                spacing_m: self.spacing_m.ok_or_else(|| need("spacing_m"))?,
            },
            TopologyKind::Grid => TopologyShape::Grid {
                rows: self.rows.ok_or_else(|| need("rows"))?,
                cols: self.cols.ok_or_else(|| need("cols"))?,
                spacing_m: self.spacing_m.ok_or_else(|| need("spacing_m"))?,
            },
            TopologyKind::Random => TopologyShape::Random {
                nodes: self.nodes.ok_or_else(|| need("nodes"))?,
                width_m: self.width_m.ok_or_else(|| need("width_m"))?,
                height_m: self.height_m.ok_or_else(|| need("height_m"))?,
                max_tries: self.max_tries.unwrap_or(1000),
            },
            TopologyKind::Explicit => TopologyShape::Explicit {
                positions: self.positions.clone().ok_or_else(|| need("positions"))?,
                links: self.links.clone().unwrap_or_default(),
                wired_nodes: self.wired_nodes.clone().unwrap_or_default(),
            },
            TopologyKind::WiredCumWireless => TopologyShape::WiredCumWireless(WiredCumWireless {
                senders: self.senders.unwrap_or(1),
                receivers: self.receivers.unwrap_or(1),
                access_rate_mbps: self.access_rate_mbps.unwrap_or(100.0),
                access_delay_ms: self.access_delay_ms.unwrap_or(30.0),
                bottleneck_rate_mbps: self.bottleneck_rate_mbps.unwrap_or(100.0),
                bottleneck_delay_ms: self.bottleneck_delay_ms.unwrap_or(10.0),
                last_hop: self.last_hop.unwrap_or(LastHop::Link),
                last_hop_rate_mbps: self.last_hop_rate_mbps.unwrap_or(5.0),
                last_hop_delay_ms: self.last_hop_delay_ms.unwrap_or(0.01),
                last_hop_loss_rate: self.last_hop_loss_rate.unwrap_or(0.0),
                last_hop_distance_m: self.last_hop_distance_m.unwrap_or(100.0),
                queue_packets: self.queue_packets.unwrap_or(50),
            }),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoutingProtocol {
    /// Shortest paths (hop count) over the decodable-link graph, computed
    /// once from the initial positions.
    #[default]
    Static,
    /// AODV (RFC 3561) with link-layer feedback, as ns-2 runs it.
    Aodv,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingConfig {
    pub protocol: RoutingProtocol,
    /// `[routing.aodv]`: AODV's parameters (RFC 3561 section 10 and
    /// options; see `net::aodv::config`). Only with protocol = "aodv",
    /// where the normalised scenario fills in every default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aodv: Option<crate::net::aodv::AodvConfig>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MobilityModel {
    #[default]
    Static,
    /// Random waypoint (see `mobility::random_waypoint`).
    RandomWaypoint,
}

/// `[mobility]`. Keys other than `model` are those of random waypoint:
/// `max_speed_mps` (required), `min_speed_mps` (default 0, as ns-2's
/// setdest; a warning, see the speed-decay note), `pause_s` (0), `start_s`
/// (0: nodes stand still before it), `width_m` / `height_m` (the area;
/// default the random topology's), `steady_state` (false: Navidi & Camp's
/// stationary start).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct MobilityConfig {
    pub model: MobilityModel,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_speed_mps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_speed_mps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width_m: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height_m: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<bool>,
}

impl MobilityConfig {
    fn normalize(&mut self) {
        if self.model == MobilityModel::RandomWaypoint {
            self.min_speed_mps.get_or_insert(0.0);
            self.pause_s.get_or_insert(0.0);
            self.start_s.get_or_insert(0.0);
            self.steady_state.get_or_insert(false);
        }
    }

    fn validate(&self, topology: &TopologyShape) -> Result<(), ConfigError> {
        let present = [
            ("min_speed_mps", self.min_speed_mps.is_some()),
            ("max_speed_mps", self.max_speed_mps.is_some()),
            ("pause_s", self.pause_s.is_some()),
            ("start_s", self.start_s.is_some()),
            ("width_m", self.width_m.is_some()),
            ("height_m", self.height_m.is_some()),
            ("steady_state", self.steady_state.is_some()),
        ];
        if self.model == MobilityModel::Static {
            if let Some((key, _)) = present.iter().find(|(_, p)| *p) {
                return Err(ConfigError::new(format!("mobility.{key}"), "not used by model = \"static\""));
            }
            return Ok(());
        }
        let max =
            self.max_speed_mps.ok_or_else(|| ConfigError::new("mobility.max_speed_mps", "required for model = \"random_waypoint\""))?;
        positive("mobility.max_speed_mps", max)?;
        let min = self.min_speed_mps.unwrap_or(0.0);
        non_negative("mobility.min_speed_mps", min)?;
        if min > max {
            return Err(ConfigError::new("mobility.min_speed_mps", format!("must be <= max_speed_mps ({max}), got {min}")));
        }
        non_negative("mobility.pause_s", self.pause_s.unwrap_or(0.0))?;
        non_negative("mobility.start_s", self.start_s.unwrap_or(0.0))?;
        if self.steady_state == Some(true) && min <= 0.0 {
            return Err(ConfigError::new(
                "mobility.min_speed_mps",
                "steady_state needs a positive minimum speed (with 0 the random waypoint model has no stationary regime)",
            ));
        }
        let random = matches!(topology, TopologyShape::Random { .. });
        for (key, v) in [("width_m", self.width_m), ("height_m", self.height_m)] {
            match v {
                Some(v) => positive(&format!("mobility.{key}"), v)?,
                None if !random => {
                    return Err(ConfigError::new(
                        format!("mobility.{key}"),
                        "required unless topology.kind = \"random\" (whose area it defaults to)",
                    ))
                }
                None => {}
            }
        }
        if let TopologyShape::Explicit { links, wired_nodes, .. } = topology {
            if !links.is_empty() || !wired_nodes.is_empty() {
                return Err(ConfigError::new("mobility.model", "moving nodes are not supported with wired links"));
            }
        }
        if matches!(topology, TopologyShape::WiredCumWireless(_)) {
            return Err(ConfigError::new("mobility.model", "moving nodes are not supported with wired links"));
        }
        Ok(())
    }

    /// The area nodes move in: the given one, else the random topology's.
    pub fn area_m(&self, topology: &TopologyShape) -> (f64, f64) {
        let (w, h) = match topology {
            TopologyShape::Random { width_m, height_m, .. } => (*width_m, *height_m),
            _ => (0.0, 0.0),
        };
        (self.width_m.unwrap_or(w), self.height_m.unwrap_or(h))
    }
}

impl RoutingConfig {
    fn validate(&self, topology: &TopologyShape, mobility: MobilityModel) -> Result<(), ConfigError> {
        match self.protocol {
            RoutingProtocol::Static => {
                if self.aodv.is_some() {
                    return Err(ConfigError::new("routing.aodv", "only for protocol = \"aodv\""));
                }
                if mobility != MobilityModel::Static {
                    return Err(ConfigError::new(
                        "routing.protocol",
                        "static routes are computed once from the initial positions: moving nodes need protocol = \"aodv\"",
                    ));
                }
            }
            RoutingProtocol::Aodv => {
                if let Some(aodv) = &self.aodv {
                    aodv.validate()?;
                }
                let wired = match topology {
                    TopologyShape::Explicit { links, wired_nodes, .. } => !links.is_empty() || !wired_nodes.is_empty(),
                    TopologyShape::WiredCumWireless(_) => true,
                    _ => false,
                };
                if wired {
                    return Err(ConfigError::new("routing.protocol", "aodv runs over 802.11 only; wired links need protocol = \"static\""));
                }
            }
        }
        Ok(())
    }
}

/// Frame error models (`errors.model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ErrorModelKind {
    #[default]
    None,
    /// Each unicast DATA frame is lost independently with `packet_error_rate`.
    Uniform,
}

/// Frame error model applied at receivers to unicast DATA frames that were
/// otherwise decodable (drop cause `channel_error`).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ErrorModelConfig {
    pub model: ErrorModelKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet_error_rate: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatsConfig {
    /// Sampling interval of time series (0: no series).
    pub series_interval_s: f64,
}

impl Default for StatsConfig {
    fn default() -> Self {
        StatsConfig { series_interval_s: 1.0 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    Udp,
    Tcp,
    /// Semi-TCP: hop-by-hop congestion control in the MAC, reliability only
    /// at the transport (SPEC.md section 2).
    Semitcp,
}

/// How a semi-TCP source paces itself (`rate_control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RateControlKind {
    /// Buffer-based sending only (the original semi-TCP).
    #[default]
    None,
    /// Algorithm 1 of seed 000 (SPEC.md section 3).
    BinarySearch,
    /// A constant source rate `rate_kbps`.
    Fixed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    /// Constant bit rate: one `packet_bytes` packet every
    /// `packet_bytes * 8 / rate_kbps` milliseconds.
    Cbr,
    /// Infinite backlog: the source's interface queue is never empty.
    Bulk,
}

fn default_packet_bytes() -> u32 {
    512
}

/// One end-to-end flow.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub src: u32,
    pub dst: u32,
    #[serde(default = "default_transport")]
    pub transport: Transport,
    #[serde(default = "default_app")]
    pub app: AppKind,
    /// Application payload per packet; UDP/IP/MAC headers are added per layer.
    #[serde(default = "default_packet_bytes")]
    pub packet_bytes: u32,
    /// CBR rate (required for `app = "cbr"`).
    #[serde(default)]
    pub rate_kbps: Option<f64>,
    #[serde(default)]
    pub start_s: f64,
    /// Default: the end of the run.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// TCP congestion controller (`transport = "tcp"` only; default "newreno").
    #[serde(default)]
    pub cc: Option<String>,
    /// The controller's parameters (see its `Config` in
    /// `transport/tcp/congestion/`); omitted: the paper's defaults.
    #[serde(default)]
    pub cc_params: Option<serde_json::Value>,
    /// TCP and semi-TCP bulk: size of the file to send (default:
    /// unlimited, as an FTP of a very large file).
    #[serde(default)]
    pub file_bytes: Option<u64>,
    /// Semi-TCP: how the source paces itself (default "none": by buffer).
    #[serde(default)]
    pub rate_control: Option<RateControlKind>,
}

fn default_transport() -> Transport {
    Transport::Udp
}
fn default_app() -> AppKind {
    AppKind::Cbr
}

impl Scenario {
    /// Parse a scenario from JSON text (Python sends TOML converted to JSON),
    /// then validate it. Errors name the key.
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." { String::new() } else { key };
            // serde_json appends the position in the JSON that Python made
            // from the user's TOML: meaningless to the user, so cut it.
            let message = e.inner().to_string();
            let message = match message.rfind(" at line ") {
                Some(at) => message[..at].to_string(),
                None => message,
            };
            ConfigError::new(key, message)
        })?;
        let mut scenario = scenario;
        scenario.normalize();
        scenario.validate()?;
        Ok(scenario)
    }

    /// Fill the defaults that depend on other keys (AODV's parameters when
    /// protocol = "aodv", random waypoint's when that model is chosen), so
    /// that the normalised scenario names every value used.
    pub fn normalize(&mut self) {
        if self.routing.protocol == RoutingProtocol::Aodv && self.routing.aodv.is_none() {
            self.routing.aodv = Some(Default::default());
        }
        self.mobility.normalize();
    }

    /// The normalised scenario (every default filled) as canonical JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serialises")
    }

    /// Number of nodes the topology creates (0 if the topology is invalid).
    pub fn node_count(&self) -> u32 {
        match self.topology.shape() {
            Ok(TopologyShape::Chain { nodes, .. }) | Ok(TopologyShape::Random { nodes, .. }) => nodes,
            Ok(TopologyShape::Grid { rows, cols, .. }) => rows.saturating_mul(cols),
            Ok(TopologyShape::Explicit { positions, .. }) => positions.len() as u32,
            Ok(TopologyShape::WiredCumWireless(w)) => w.node_count(),
            Err(_) => 0,
        }
    }

    /// Range and cross-field checks that the types alone cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        positive("duration_s", self.duration_s)?;
        if !(self.warmup_s >= 0.0 && self.warmup_s < self.duration_s) {
            return Err(ConfigError::new(
                "warmup_s",
                format!("must be >= 0 and below duration_s ({}), got {}", self.duration_s, self.warmup_s),
            ));
        }
        self.radio.validate()?;
        self.mac.validate()?;
        self.tcp.validate()?;
        self.semitcp.validate()?;
        self.validate_topology()?;
        let shape = self.topology.shape()?;
        self.mobility.validate(&shape)?;
        self.routing.validate(&shape, self.mobility.model)?;
        match (self.errors.model, self.errors.packet_error_rate) {
            (ErrorModelKind::None, None) => {}
            (ErrorModelKind::None, Some(_)) => {
                return Err(ConfigError::new("errors.packet_error_rate", "not used by model = \"none\""));
            }
            (ErrorModelKind::Uniform, None) => {
                return Err(ConfigError::new("errors.packet_error_rate", "required for model = \"uniform\""));
            }
            (ErrorModelKind::Uniform, Some(per)) => {
                if !(0.0..=1.0).contains(&per) {
                    return Err(ConfigError::new("errors.packet_error_rate", format!("must be in [0, 1], got {per}")));
                }
            }
        }
        if !(self.stats.series_interval_s >= 0.0 && self.stats.series_interval_s.is_finite()) {
            return Err(ConfigError::new("stats.series_interval_s", "must be >= 0 (0 disables series)"));
        }
        let n = self.node_count();
        for (i, flow) in self.flows.iter().enumerate() {
            flow.validate(i, n, self.duration_s)?;
        }
        Ok(())
    }

    fn validate_topology(&self) -> Result<(), ConfigError> {
        match self.topology.shape()? {
            TopologyShape::Chain { nodes, spacing_m } => {
                at_least("topology.nodes", nodes, 2)?;
                positive("topology.spacing_m", spacing_m)?;
            }
            TopologyShape::Grid { rows, cols, spacing_m } => {
                at_least("topology.rows", rows, 1)?;
                at_least("topology.cols", cols, 1)?;
                if rows.saturating_mul(cols) < 2 {
                    return Err(ConfigError::new("topology.cols", "rows * cols must be at least 2"));
                }
                positive("topology.spacing_m", spacing_m)?;
            }
            TopologyShape::Random { nodes, width_m, height_m, max_tries } => {
                at_least("topology.nodes", nodes, 2)?;
                positive("topology.width_m", width_m)?;
                positive("topology.height_m", height_m)?;
                at_least("topology.max_tries", max_tries, 1)?;
            }
            TopologyShape::Explicit { positions, links, wired_nodes } => {
                if positions.len() < 2 {
                    return Err(ConfigError::new("topology.positions", "needs at least 2 nodes"));
                }
                for (i, p) in positions.iter().enumerate() {
                    if !(p[0].is_finite() && p[1].is_finite()) {
                        return Err(ConfigError::new(format!("topology.positions[{i}]"), "must be finite"));
                    }
                }
                let n = positions.len() as u32;
                for (i, link) in links.iter().enumerate() {
                    link.validate(&format!("topology.links[{i}]"), n)?;
                }
                for (i, &node) in wired_nodes.iter().enumerate() {
                    if node >= n {
                        return Err(ConfigError::new(
                            format!("topology.wired_nodes[{i}]"),
                            format!("node {node} does not exist (nodes 0..{})", n - 1),
                        ));
                    }
                }
            }
            TopologyShape::WiredCumWireless(w) => {
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
                at_least("topology.queue_packets", w.queue_packets, 1)?;
            }
        }
        if self.node_count() > 100_000 {
            return Err(ConfigError::new("topology", "at most 100000 nodes"));
        }
        Ok(())
    }
}

impl RadioConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        positive("radio.data_rate_mbps", self.data_rate_mbps)?;
        positive("radio.basic_rate_mbps", self.basic_rate_mbps)?;
        non_negative("radio.plcp_overhead_us", self.plcp_overhead_us)?;
        positive("radio.tx_power_w", self.tx_power_w)?;
        positive("radio.frequency_hz", self.frequency_hz)?;
        positive("radio.antenna_height_m", self.antenna_height_m)?;
        if !(self.system_loss >= 1.0 && self.system_loss.is_finite()) {
            return Err(ConfigError::new("radio.system_loss", "must be >= 1"));
        }
        non_negative("radio.capture_threshold_db", self.capture_threshold_db)?;
        if self.tx_range_m.is_some() && self.rx_threshold_w.is_some() {
            return Err(ConfigError::new("radio.tx_range_m", "give either tx_range_m or rx_threshold_w, not both"));
        }
        if self.cs_range_m.is_some() && self.cs_threshold_w.is_some() {
            return Err(ConfigError::new("radio.cs_range_m", "give either cs_range_m or cs_threshold_w, not both"));
        }
        for (key, v) in [
            ("radio.tx_range_m", self.tx_range_m),
            ("radio.cs_range_m", self.cs_range_m),
            ("radio.rx_threshold_w", self.rx_threshold_w),
            ("radio.cs_threshold_w", self.cs_threshold_w),
        ] {
            if let Some(v) = v {
                positive(key, v)?;
            }
        }
        if let (Some(tx), Some(cs)) = (self.tx_range_m, self.cs_range_m) {
            if cs < tx {
                return Err(ConfigError::new("radio.cs_range_m", format!("must be >= tx_range_m ({tx}), got {cs}")));
            }
        }
        Ok(())
    }
}

impl MacConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        at_least("mac.short_retry_limit", self.short_retry_limit, 1)?;
        at_least("mac.long_retry_limit", self.long_retry_limit, 1)?;
        at_least("mac.queue_packets", self.queue_packets, 1)?;
        positive("mac.slot_us", self.slot_us)?;
        positive("mac.sifs_us", self.sifs_us)?;
        if !(self.cw_min >= 1 && (self.cw_min + 1).is_power_of_two()) {
            return Err(ConfigError::new("mac.cw_min", format!("must be 2^k - 1 (e.g. 15, 31), got {}", self.cw_min)));
        }
        if !(self.cw_max >= self.cw_min && (self.cw_max + 1).is_power_of_two()) {
            return Err(ConfigError::new("mac.cw_max", format!("must be 2^k - 1 and >= cw_min ({}), got {}", self.cw_min, self.cw_max)));
        }
        Ok(())
    }
}

impl FlowConfig {
    fn validate(&self, index: usize, nodes: u32, duration_s: f64) -> Result<(), ConfigError> {
        let key = |k: &str| format!("flows[{index}].{k}");
        if self.src >= nodes {
            return Err(ConfigError::new(key("src"), format!("node {} does not exist (nodes 0..{})", self.src, nodes - 1)));
        }
        if self.dst >= nodes {
            return Err(ConfigError::new(key("dst"), format!("node {} does not exist (nodes 0..{})", self.dst, nodes - 1)));
        }
        if self.src == self.dst {
            return Err(ConfigError::new(key("dst"), "must differ from src"));
        }
        if !(1..=65_000).contains(&self.packet_bytes) {
            return Err(ConfigError::new(key("packet_bytes"), format!("must be in 1..=65000, got {}", self.packet_bytes)));
        }
        match self.transport {
            Transport::Udp => {
                for (name, present) in [
                    ("cc", self.cc.is_some()),
                    ("cc_params", self.cc_params.is_some()),
                    ("file_bytes", self.file_bytes.is_some()),
                    ("rate_control", self.rate_control.is_some()),
                ] {
                    if present {
                        return Err(ConfigError::new(key(name), "only for transport = \"tcp\""));
                    }
                }
            }
            Transport::Semitcp => {
                if self.app != AppKind::Bulk {
                    return Err(ConfigError::new(key("app"), "transport = \"semitcp\" carries app = \"bulk\" (FTP)"));
                }
                for (name, present) in [("cc", self.cc.is_some()), ("cc_params", self.cc_params.is_some())] {
                    if present {
                        return Err(ConfigError::new(key(name), "semi-TCP has no congestion window: only for transport = \"tcp\""));
                    }
                }
                match (self.rate_control.unwrap_or_default(), self.rate_kbps) {
                    (RateControlKind::Fixed, None) => {
                        return Err(ConfigError::new(key("rate_kbps"), "required for rate_control = \"fixed\""))
                    }
                    (RateControlKind::Fixed, Some(r)) => positive(&key("rate_kbps"), r)?,
                    (_, Some(_)) => return Err(ConfigError::new(key("rate_kbps"), "only with rate_control = \"fixed\"")),
                    (_, None) => {}
                }
                if self.file_bytes == Some(0) {
                    return Err(ConfigError::new(key("file_bytes"), "must be at least 1 (omit it for an unlimited transfer)"));
                }
                return self.validate_times(index, duration_s);
            }
            Transport::Tcp => {
                if self.app != AppKind::Bulk {
                    return Err(ConfigError::new(key("app"), "transport = \"tcp\" carries app = \"bulk\" (FTP)"));
                }
                if self.rate_control.is_some() {
                    return Err(ConfigError::new(key("rate_control"), "only for transport = \"semitcp\""));
                }
                let name = self.cc.as_deref().unwrap_or("newreno");
                let params = self.cc_params.clone().unwrap_or(serde_json::Value::Null);
                crate::transport::tcp::congestion::build(name, &params, &key("cc"))?;
                if self.file_bytes == Some(0) {
                    return Err(ConfigError::new(key("file_bytes"), "must be at least 1 (omit it for an unlimited transfer)"));
                }
            }
        }
        match (self.app, self.rate_kbps) {
            (AppKind::Cbr, None) => {
                return Err(ConfigError::new(key("rate_kbps"), "required for app = \"cbr\""));
            }
            (AppKind::Cbr, Some(r)) => positive(&key("rate_kbps"), r)?,
            (AppKind::Bulk, Some(_)) => {
                return Err(ConfigError::new(key("rate_kbps"), "not used by app = \"bulk\" (infinite backlog); remove it"));
            }
            (AppKind::Bulk, None) => {}
        }
        self.validate_times(index, duration_s)
    }

    fn validate_times(&self, index: usize, duration_s: f64) -> Result<(), ConfigError> {
        let key = |k: &str| format!("flows[{index}].{k}");
        if !(self.start_s >= 0.0 && self.start_s < duration_s) {
            return Err(ConfigError::new(key("start_s"), format!("must be >= 0 and below duration_s ({duration_s})")));
        }
        if let Some(stop) = self.stop_s {
            if !(stop > self.start_s) {
                return Err(ConfigError::new(key("stop_s"), format!("must be after start_s ({})", self.start_s)));
            }
        }
        Ok(())
    }
}

impl LinkConfig {
    fn validate(&self, key: &str, nodes: u32) -> Result<(), ConfigError> {
        for (end, node) in [("a", self.a), ("b", self.b)] {
            if node >= nodes {
                return Err(ConfigError::new(format!("{key}.{end}"), format!("node {node} does not exist (nodes 0..{})", nodes - 1)));
            }
        }
        if self.a == self.b {
            return Err(ConfigError::new(format!("{key}.b"), "a link joins two different nodes"));
        }
        positive(&format!("{key}.rate_mbps"), self.rate_mbps)?;
        non_negative(&format!("{key}.delay_ms"), self.delay_ms)?;
        at_least(&format!("{key}.queue_packets"), self.queue_packets, 1)?;
        probability(&format!("{key}.loss_rate"), self.loss_rate)
    }
}

fn probability(key: &str, v: f64) -> Result<(), ConfigError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be in [0, 1], got {v}")))
    }
}

fn positive(key: &str, v: f64) -> Result<(), ConfigError> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be a positive number, got {v}")))
    }
}

fn non_negative(key: &str, v: f64) -> Result<(), ConfigError> {
    if v >= 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be >= 0, got {v}")))
    }
}

fn at_least(key: &str, v: u32, min: u32) -> Result<(), ConfigError> {
    if v >= min {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be at least {min}, got {v}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Scenario, ConfigError> {
        Scenario::from_json(text)
    }

    #[test]
    fn defaults_fill_in() {
        let s = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}}"#).unwrap();
        assert_eq!(s.mac.short_retry_limit, 7);
        assert_eq!(s.mac.queue_packets, 50);
        assert_eq!(s.radio.data_rate_mbps, 2.0);
        assert_eq!(s.duration_s, 100.0);
    }

    #[test]
    fn unknown_key_is_named() {
        let e = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "mac": {"retry": 3}}"#).unwrap_err();
        assert_eq!(e.key, "mac.retry");
        assert!(e.message.contains("unknown field `retry`"), "{e}");
    }

    #[test]
    fn wrong_type_is_named() {
        let e = parse(r#"{"topology": {"kind": "chain", "nodes": "three", "spacing_m": 200}}"#).unwrap_err();
        assert_eq!(e.key, "topology.nodes");
    }

    #[test]
    fn missing_kind_key_is_named() {
        let e = parse(r#"{"topology": {"kind": "grid", "rows": 3, "spacing_m": 200}}"#).unwrap_err();
        assert_eq!(e.key, "topology.cols");
        assert!(e.message.contains("required"), "{e}");
        let e = parse(r#"{"topology": {"kind": "chain", "nodes": 3, "rows": 2, "spacing_m": 200}}"#).unwrap_err();
        assert_eq!(e.key, "topology.rows");
    }

    #[test]
    fn out_of_range_flow_node_is_named() {
        let e = parse(
            r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200},
                "flows": [{"src": 0, "dst": 7, "rate_kbps": 10}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.key, "flows[0].dst");
    }

    #[test]
    fn cbr_needs_a_rate() {
        let e = parse(
            r#"{"topology": {"kind": "chain", "nodes": 3, "spacing_m": 200},
                "flows": [{"src": 0, "dst": 2}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.key, "flows[0].rate_kbps");
    }
}
