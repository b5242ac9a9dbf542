//! `[[flows]]`: end-to-end flows. A TCP flow's congestion controller is a
//! typed [`CcConfig`] (in the file: `cc = "vegas"` and the parameters in
//! `cc_params`, each defaulted by the controller's own config).

use crate::config::{positive, ConfigError};
use crate::transport::tcp::congestion::{CcConfig, NAMES};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A flow's transport protocol (`transport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// UDP: datagrams, neither acknowledged nor retransmitted.
    Udp,
    /// TCP with the congestion controller `cc` and the settings of `[tcp]`.
    Tcp,
    /// Semi-TCP: hop-by-hop congestion control in the MAC, reliability only
    /// at the transport (the settings of `[semitcp]`).
    Semitcp,
}

impl Transport {
    /// The name in scenario files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Udp => "udp",
            Transport::Tcp => "tcp",
            Transport::Semitcp => "semitcp",
        }
    }
}

/// How a semi-TCP source paces itself (`rate_control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum RateControlKind {
    /// Buffer-based sending only (the original semi-TCP).
    #[default]
    None,
    /// Binary-search rate control (seed 000's Algorithm 1; its parameters
    /// are `[semitcp.rate_control]`).
    BinarySearch,
    /// A constant source rate `rate_kbps`.
    Fixed,
}

/// A flow's traffic source (`app`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    /// Constant bit rate: one `packet_bytes` packet every
    /// `packet_bytes * 8 / rate_kbps` milliseconds.
    Cbr,
    /// Infinite backlog (an FTP): the source's interface queue is never
    /// empty. The only app of TCP and semi-TCP flows.
    Bulk,
}

impl AppKind {
    /// The name in scenario files and reports.
    pub fn name(self) -> &'static str {
        match self {
            AppKind::Cbr => "cbr",
            AppKind::Bulk => "bulk",
        }
    }
}

/// One end-to-end flow (`[[flows]]`), typed: each field is the key of the
/// same name, documented on `FlowFile` (the form in the file, private), except
/// `cc`, which the file splits into `cc` and `cc_params`.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowConfig {
    pub src: u32,
    pub dst: u32,
    pub transport: Transport,
    pub app: AppKind,
    pub packet_bytes: u32,
    pub rate_kbps: Option<f64>,
    pub start_s: f64,
    pub stop_s: Option<f64>,
    /// TCP's congestion controller and its parameters (`transport = "tcp"`
    /// only; default NewReno, filled in by normalisation).
    pub cc: Option<CcConfig>,
    pub file_bytes: Option<u64>,
    pub rate_control: Option<RateControlKind>,
}

/// A flow as written in a scenario file: `[[flows]]`, one table per flow.
/// Its doc comments are the keys' descriptions in the scenario reference.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FlowFile {
    /// Source node id (nodes are numbered from 0, as the topology places them).
    src: u32,
    /// Destination node id; must differ from `src`.
    dst: u32,
    /// Transport protocol.
    #[serde(default = "FlowFile::default_transport")]
    transport: Transport,
    /// Traffic source: `"cbr"` (needs `rate_kbps`) or `"bulk"` (TCP and
    /// semi-TCP flows are bulk).
    #[serde(default = "FlowFile::default_app")]
    app: AppKind,
    /// Application payload per packet, bytes (1 to 65000); transport, IP and
    /// MAC headers are added per layer. TCP and semi-TCP: the segment size.
    #[serde(default = "FlowFile::default_packet_bytes", deserialize_with = "crate::config::u32_in::<_, 1, 65000>")]
    packet_bytes: u32,
    /// Rate in kb/s: required for `app = "cbr"`, and for a semi-TCP flow
    /// with `rate_control = "fixed"` (its constant source rate); not used
    /// otherwise.
    #[serde(default)]
    rate_kbps: Option<f64>,
    /// When the source starts, seconds into the run (below `duration_s`).
    #[serde(default)]
    start_s: f64,
    /// When the source stops, seconds into the run (after `start_s`);
    /// default: the end of the run.
    #[serde(default)]
    stop_s: Option<f64>,
    /// TCP's congestion controller (`transport = "tcp"` only); default
    /// `"newreno"`, filled in by normalisation.
    #[serde(default)]
    #[schemars(schema_with = "cc_name_schema")]
    cc: Option<String>,
    /// The congestion controller's parameters, a table whose keys depend on
    /// `cc` (each controller's are listed with it); a key left out takes the
    /// controller's default. Only with `cc`.
    #[serde(default)]
    #[schemars(schema_with = "cc_params_schema")]
    cc_params: Option<serde_json::Value>,
    /// TCP and semi-TCP: bytes to send, after which the flow completes
    /// (its `completion_s`); default: unlimited, as an FTP of a very large file.
    #[serde(default)]
    file_bytes: Option<u64>,
    /// Semi-TCP only: how the source paces itself; default `"none"` (by
    /// its buffer alone).
    #[serde(default)]
    rate_control: Option<RateControlKind>,
}

impl FlowFile {
    fn default_transport() -> Transport {
        Transport::Udp
    }
    fn default_app() -> AppKind {
        AppKind::Cbr
    }
    fn default_packet_bytes() -> u32 {
        512
    }
}

/// `cc`: one of the controllers' names (null, as the normalised scenario
/// writes a flow without one).
fn cc_name_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut names: Vec<serde_json::Value> = NAMES.iter().map(|&name| name.into()).collect();
    names.push(serde_json::Value::Null);
    schemars::json_schema!({ "type": ["string", "null"], "enum": names })
}

/// `cc_params`: a table; which keys it takes is said per controller by
/// [`FlowConfig`]'s schema (`if cc = name then cc_params is its params`).
fn cc_params_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["object", "null"] })
}

/// The schema of a flow is `FlowFile`'s, the form serde reads, with what
/// a derive cannot say: `cc_params` follows `cc` (JSON Schema draft 7
/// `if`/`then`, one per controller) and needs it (`dependencies`).
impl JsonSchema for FlowConfig {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FlowConfig".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = FlowFile::json_schema(generator);
        let per_controller: Vec<serde_json::Value> = NAMES
            .iter()
            .map(|&name| {
                let params = CcConfig::params_schema(name, generator).expect("every controller has a params schema");
                serde_json::json!({
                    "if": { "properties": { "cc": { "const": name } }, "required": ["cc"] },
                    "then": { "properties": { "cc_params": { "anyOf": [params, { "type": "null" }] } } },
                })
            })
            .collect();
        schema.insert("allOf".into(), per_controller.into());
        schema.insert("dependencies".into(), serde_json::json!({ "cc_params": ["cc"] }));
        schema
    }
}

impl<'de> Deserialize<'de> for FlowConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = FlowFile::deserialize(d)?;
        let cc = match (f.cc, f.cc_params) {
            (None, None) => None,
            (None, Some(_)) => return Err(crate::config::nested(ConfigError::new("cc_params", "needs cc (the controller it is for)"))),
            (Some(name), params) => Some(CcConfig::from_parts(&name, params).map_err(crate::config::nested)?),
        };
        Ok(FlowConfig {
            src: f.src,
            dst: f.dst,
            transport: f.transport,
            app: f.app,
            packet_bytes: f.packet_bytes,
            rate_kbps: f.rate_kbps,
            start_s: f.start_s,
            stop_s: f.stop_s,
            cc,
            file_bytes: f.file_bytes,
            rate_control: f.rate_control,
        })
    }
}

impl Serialize for FlowConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FlowFile {
            src: self.src,
            dst: self.dst,
            transport: self.transport,
            app: self.app,
            packet_bytes: self.packet_bytes,
            rate_kbps: self.rate_kbps,
            start_s: self.start_s,
            stop_s: self.stop_s,
            cc: self.cc.as_ref().map(|c| c.name().to_string()),
            cc_params: self.cc.as_ref().map(|c| c.params()),
            file_bytes: self.file_bytes,
            rate_control: self.rate_control,
        }
        .serialize(s)
    }
}

impl FlowConfig {
    /// Range and cross-key checks of flow `index` among `nodes` nodes.
    pub fn validate(&self, index: usize, nodes: u32, duration_s: f64) -> Result<(), ConfigError> {
        let key = |k: &str| format!("flows[{index}].{k}");
        if self.src >= nodes {
            return Err(ConfigError::new(key("src"), format!("node {} does not exist (nodes 0 to {})", self.src, nodes - 1)));
        }
        if self.dst >= nodes {
            return Err(ConfigError::new(key("dst"), format!("node {} does not exist (nodes 0 to {})", self.dst, nodes - 1)));
        }
        if self.src == self.dst {
            return Err(ConfigError::new(key("dst"), "must differ from src"));
        }
        if !(1..=65_000).contains(&self.packet_bytes) {
            return Err(ConfigError::new(key("packet_bytes"), format!("must be an integer from 1 to 65000, got {}", self.packet_bytes)));
        }
        match self.transport {
            Transport::Udp => {
                for (name, present) in
                    [("cc", self.cc.is_some()), ("file_bytes", self.file_bytes.is_some()), ("rate_control", self.rate_control.is_some())]
                {
                    if present {
                        return Err(ConfigError::new(key(name), "only for transport = \"tcp\""));
                    }
                }
            }
            Transport::Semitcp => {
                if self.app != AppKind::Bulk {
                    return Err(ConfigError::new(key("app"), "transport = \"semitcp\" carries app = \"bulk\" (FTP)"));
                }
                if self.cc.is_some() {
                    return Err(ConfigError::new(key("cc"), "semi-TCP has no congestion window: only for transport = \"tcp\""));
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
                if self.file_bytes == Some(0) {
                    return Err(ConfigError::new(key("file_bytes"), "must be at least 1 (omit it for an unlimited transfer)"));
                }
                if let Some(cc) = &self.cc {
                    cc.validate(&key("cc_params"))?;
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
