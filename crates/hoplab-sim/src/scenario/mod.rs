//! Scenario configuration: the typed form of a scenario file (keys in
//! docs/scenario-reference.md), with every default named and every value validated.
//!
//! Each section's type belongs to the layer it configures (`[radio]`:
//! `phy::config`, `[mac]`: `mac::config`, `[routing]`: `net::config`,
//! `[mobility]`: `mobility::config`, `[errors]`: `phy::error_model`,
//! `[queue]`: `queue::config`, `[tcp]`: `transport::tcp::config`); this module assembles them with the
//! sections that span layers (`topology`, `flows`, `semitcp`, `stats`).
//! `Default` is the only source of each default.
//!
//! Parsing goes through `serde_path_to_error`, so a wrong type or an
//! unknown key is reported with its full path (`topology.nodes: must be an
//! integer from 0 to 4294967295, got the text "three"`). [`Scenario::validate`]
//! then checks ranges and cross-section rules and reports the same way.
//! Python hands the TOML over as JSON; this module is the one place that
//! knows what a valid scenario is.

pub mod flows;
pub mod preset;
pub mod schema;
pub mod semitcp;
pub mod topology;

pub use crate::config::ConfigError;
pub use crate::link::config::LinkConfig;
pub use crate::mac::config::MacConfig;
pub use crate::mobility::config::{MobilityConfig, RandomWaypointConfig};
pub use crate::net::config::{RoutingConfig, RoutingProtocol};
pub use crate::phy::config::{Propagation, RadioConfig, Reception};
pub use crate::phy::error_model::{ErrorModelConfig, UniformErrors};
pub use crate::queue::QueueConfig;
pub use crate::trace::TraceConfig;
pub use crate::transport::tcp::config::TcpConfig;
pub use flows::{AppKind, FlowConfig, RateControlKind, Transport};
pub use preset::Preset;
pub use semitcp::SemiTcpConfig;
pub use topology::{LastHop, TopologyConfig, WiredCumWireless};

use crate::config::{plain_error, positive, unnest};
use crate::transport::tcp::congestion::CcConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The longest run a scenario may ask for: 10^9 s (32 years). The clock
/// counts nanoseconds in 64 bits (1.8 x 10^10 s), so every time a run can
/// reach stays exact, with room for timers set beyond its end.
pub const MAX_DURATION_S: f64 = 1e9;

/// `[stats]`: what a run records besides its totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StatsConfig {
    /// Sampling interval of the time series, seconds (0: none); a report
    /// includes them when asked (`hoplab run --json --series`).
    pub series_interval_s: f64,
}

impl Default for StatsConfig {
    fn default() -> Self {
        StatsConfig { series_interval_s: 1.0 }
    }
}

/// A hoplab scenario: the network, its traffic and the run. Every table
/// and key but `topology` is optional; unknown keys are errors at every level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Which simulator's behaviour the keys with a variant default to:
    /// "standard" (the standards and the papers' text) or "ns2" (ns-2.29's,
    /// as the public semi-TCP code runs it; each of its rules is also a key
    /// of its own, listed with its ns-2 source under "Presets" in the
    /// scenario reference). Keys the scenario gives win.
    #[serde(default)]
    pub preset: Preset,
    /// The scenario's name, carried into its run report.
    #[serde(default = "Scenario::default_name")]
    pub name: String,
    /// Simulated time of the run, seconds.
    #[serde(default = "Scenario::default_duration_s")]
    pub duration_s: f64,
    /// Statistics (goodput, delay, rates) leave out what happens before
    /// this time, seconds (below `duration_s`).
    #[serde(default)]
    pub warmup_s: f64,
    /// Run seed: every random draw of the run derives from it, so one
    /// scenario and seed give one result.
    #[serde(default = "Scenario::default_seed")]
    pub seed: u64,
    /// The radio and PHY of every node.
    #[serde(default)]
    pub radio: RadioConfig,
    /// The 802.11 DCF of every node.
    #[serde(default)]
    pub mac: MacConfig,
    /// The discipline of every interface queue (802.11 interfaces and wired
    /// links): drop-tail unless given (then left out of the normalised
    /// scenario).
    #[serde(default, skip_serializing_if = "QueueConfig::is_drop_tail")]
    pub queue: QueueConfig,
    /// Where the nodes are, and the wired links.
    pub topology: TopologyConfig,
    /// The routing protocol.
    #[serde(default)]
    pub routing: RoutingConfig,
    /// How nodes move.
    #[serde(default)]
    pub mobility: MobilityConfig,
    /// Frame errors of the channel.
    #[serde(default)]
    pub errors: ErrorModelConfig,
    /// What a run records besides its totals.
    #[serde(default)]
    pub stats: StatsConfig,
    /// The settings of every TCP flow.
    #[serde(default)]
    pub tcp: TcpConfig,
    /// Semi-TCP's settings: its transport, its MACs' hop-by-hop control,
    /// its rate control.
    #[serde(default)]
    pub semitcp: SemiTcpConfig,
    /// The end-to-end flows, one `[[flows]]` table each.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// What a packet trace holds (written only with `--pcap PATH`); changes
    /// no result, and is left out of `config_hash`.
    #[serde(default)]
    pub trace: TraceConfig,
}

impl Scenario {
    fn default_name() -> String {
        "unnamed".to_string()
    }
    fn default_duration_s() -> f64 {
        100.0
    }
    fn default_seed() -> u64 {
        1
    }

    /// Parse a scenario from JSON text (Python sends TOML converted to
    /// JSON), normalise and validate it. Errors name the key.
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        // The preset fills its keys under the scenario's own: on the JSON
        // document, before typing, so that typing and its errors are the
        // same whether a value came from the file or from the preset.
        let mut document: serde_json::Value = serde_json::from_str(text).map_err(|e| plain_error(String::new(), &e.to_string()))?;
        preset::apply(&mut document)?;
        let mut scenario: Scenario = serde_path_to_error::deserialize(document).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." { String::new() } else { key };
            unnest(key, &e.inner().to_string())
        })?;
        // The radio's own keys first: normalising names its effective
        // ranges, and an error is to name the key the user wrote.
        scenario.radio.validate()?;
        scenario.normalize();
        scenario.validate()?;
        Ok(scenario)
    }

    /// Fill the defaults that depend on other keys (the radio's ranges and
    /// thresholds, AODV's parameters when protocol = "aodv", TCP flows'
    /// congestion controller), so that the
    /// normalised scenario names every value used.
    pub fn normalize(&mut self) {
        self.radio.normalize();
        self.routing.normalize();
        for flow in &mut self.flows {
            if flow.transport == Transport::Tcp && flow.cc.is_none() {
                flow.cc = Some(CcConfig::default());
            }
        }
    }

    /// The normalised scenario (every default filled) as canonical JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serialises")
    }

    /// SHA-256 of the normalised scenario without its seed and its
    /// `[trace]` section (which selects what a packet trace holds and
    /// changes no result), first 16 hex digits: what identifies a run's
    /// configuration (with its seed).
    pub fn config_hash(&self) -> String {
        let mut value = serde_json::to_value(self).expect("scenario serialises");
        if let Some(map) = value.as_object_mut() {
            map.remove("seed");
            map.remove("trace");
        }
        let digest = Sha256::digest(value.to_string().as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    /// Number of nodes the topology creates.
    /// The hop-by-hop control every MAC runs, if any: semi-TCP's rules
    /// when a flow is semi-TCP and `[semitcp] hop_control` is on.
    pub fn hop_control(&self) -> Option<&crate::mac::hop_control::HopControlConfig> {
        (self.semitcp.hop_control && self.flows.iter().any(|f| f.transport == Transport::Semitcp)).then_some(&self.semitcp.mac)
    }

    pub fn node_count(&self) -> u32 {
        self.topology.node_count()
    }

    /// Range and cross-section checks that the types alone cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        positive("duration_s", self.duration_s)?;
        if self.duration_s > MAX_DURATION_S {
            return Err(ConfigError::new(
                "duration_s",
                format!("must be at most {MAX_DURATION_S:e} s (the clock counts nanoseconds in 64 bits), got {:e}", self.duration_s),
            ));
        }
        if !(self.warmup_s >= 0.0 && self.warmup_s < self.duration_s) {
            return Err(ConfigError::new(
                "warmup_s",
                format!("must be >= 0 and below duration_s ({}), got {}", self.duration_s, self.warmup_s),
            ));
        }
        self.radio.validate()?;
        self.mac.validate()?;
        self.queue.validate("queue")?;
        self.tcp.validate()?;
        self.semitcp.validate()?;
        self.topology.validate()?;
        let wired = self.topology.is_wired();
        self.mobility.validate(self.topology.random_area_m(), wired)?;
        self.routing.validate(wired, !self.mobility.is_static(), self.node_count())?;
        self.validate_arp()?;
        self.errors.validate(self.radio.reception == crate::phy::config::Reception::Threshold)?;
        if !(self.stats.series_interval_s >= 0.0 && self.stats.series_interval_s.is_finite()) {
            return Err(ConfigError::new("stats.series_interval_s", "must be >= 0 (0 disables series)"));
        }
        let n = self.node_count();
        for (i, flow) in self.flows.iter().enumerate() {
            flow.validate(i, n, self.duration_s)?;
        }
        self.trace.validate(n, self.duration_s)?;
        Ok(())
    }

    /// `mac.arp = "ns2"` with static routes and a semi-TCP source pulled by
    /// its MAC cannot run: ARP's one-packet hold drops the source's first
    /// segments, and nothing pulls the source again. In ns-2 the pull goes
    /// through the AODV agent, which also pulls after each of its drops
    /// (the semi-TCP code's aodv/aodv.cc:332, 540, 570); static routes have
    /// no agent. (`preset = "ns2"` sets ARP with AODV and DSR only.)
    fn validate_arp(&self) -> Result<(), ConfigError> {
        let pulled_semitcp = self.semitcp.source_pull && self.flows.iter().any(|f| f.transport == flows::Transport::Semitcp);
        if self.mac.arp == crate::mac::config::ArpMode::Ns2
            && self.routing.protocol == crate::net::config::RoutingProtocol::Static
            && pulled_semitcp
        {
            return Err(ConfigError::new(
                "mac.arp",
                "\"ns2\" needs routing.protocol = \"aodv\" or \"dsr\" with a semi-TCP source pulled by its MAC (semitcp.source_pull): \
                 with static routes ARP drops its first segments and nothing pulls it again; set mac.arp = \"off\" or use AODV",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
