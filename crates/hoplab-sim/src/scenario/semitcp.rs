//! `[semitcp]`: semi-TCP's parameters (docs/semitcp-2018.md), its
//! transport's (the reserved buffer, Algorithm 1) and its MACs' (the
//! hop-by-hop rules). The transport also uses the RTO settings of `[tcp]`.

use crate::config::{packets, ConfigError};
use crate::config::{Applies, PresetRule};
use crate::mac::hop_control::HopControlConfig;
use crate::transport::semitcp::rate_control::RateControlConfig;
use crate::transport::semitcp::sender::LossRecovery;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[semitcp]`: the settings of semi-TCP flows (seed 000): the source's
/// reserved buffer, the hop-by-hop congestion control in the MACs, the
/// binary-search rate control. Its transport uses the RTO settings of `[tcp]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SemiTcpConfig {
    /// R: places in its MAC's queue that a semi-TCP source keeps for its
    /// own packets, packets (best: 1). Not used with `source_pull`.
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, { crate::config::MAX_PACKETS }>")]
    pub reserved_packets: u32,
    /// Run the hop-by-hop congestion control (`[semitcp.mac]`) in every
    /// node's MAC when a flow is semi-TCP; off: the MACs are plain DCF.
    pub hop_control: bool,
    /// The hop-by-hop control's rules.
    pub mac: HopControlConfig,
    /// The parameters of the binary-search rate control (Algorithm 1), used
    /// by flows with `rate_control = "binary_search"`.
    pub rate_control: RateControlConfig,
    /// The destination holds its ACKs in a transport-layer queue, as the
    /// public ns-2 code's `TcpSink` does (musicinthedark/semitcp, ns-2.29,
    /// `tcp/tcp-sink.cc:367-395` in `TcpSink::ack`): a new ACK goes down
    /// only when the node's interface queue and routing buffer hold fewer
    /// packets than `[semitcp.mac] congestion_threshold`
    /// (`Mac802_11::spaces_available`, `mac/mac-802_11.cc:2165-2184`; with
    /// the threshold 1: both empty), the oldest held ACK first; otherwise
    /// it waits. One held ACK goes down each time the node's MAC finds its
    /// interface queue empty after a service (`queue/queue.cc:71-81` ->
    /// `AODV::send_down`, `aodv/aodv.cc:1472-1503` -> `TcpSink::send_down`,
    /// `tcp-sink.cc:398-411`) or its routing gives up a packet it
    /// originated, if its routing buffer is empty and no pulled semi-TCP
    /// source at the node takes the pull (ns-2 asks its source agent
    /// first). Off: every ACK goes down at once.
    pub sink_holds_acks: bool,
    /// ACKs the destination holds at most with `sink_holds_acks`; a full
    /// queue drops its oldest (loss cause `ack_queue_overflow`; ns-2
    /// `MAXACKQ_LEN` 500, the default, and "ACK_Q_FULL",
    /// `tcp/tcp-sink.cc:384-389`).
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, { crate::config::MAX_PACKETS }>")]
    pub sink_ack_queue_packets: u32,
    /// The source hands a segment down only when its MAC pulls, as the
    /// public ns-2 code's `SemiTcpAgent` does (musicinthedark/semitcp,
    /// ns-2.29): one at the start if its node's interface queue and
    /// routing buffer are below `[semitcp.mac] congestion_threshold`
    /// (`send_much`, `tcp/semitcp.cc:353-363`), then one each time its MAC
    /// finds its interface queue and routing buffer empty after a service
    /// (`send_down`, `tcp/semitcp.cc:367-419`, called from
    /// `AODV::send_down`, `aodv/aodv.cc:1472-1503`, from the queue's
    /// `deque`, `queue/queue.cc:71-81`) or after routing gave up one of its
    /// packets (`aodv.cc` calls `send_down(true)` after its drops); never on
    /// an ACK or a timer (`semitcp.cc:216-346`). The source then holds one
    /// packet. Off: it keeps `reserved_packets` waiting in its queue
    /// besides the one in service (and holds R + 1).
    pub source_pull: bool,
    /// How the source finds lost segments: "rack" (later ACKs show them,
    /// RFC 8985, the timer as the backstop) or "rto_only" (the timer alone,
    /// as the public ns-2 code: `SemiTcpAgent::recv`,
    /// `tcp/semitcp.cc:216-328` in musicinthedark/semitcp, has no
    /// duplicate-ACK or other ACK-based detection; the timer is re-armed by
    /// every new cumulative ACK, `TcpAgent::newtimer`, `tcp/tcp.cc:959-976`,
    /// and on expiry the oldest segment not acknowledged is resent,
    /// `tcp/semitcp.cc:331-346`). Not (yet) set by `preset = "ns2"`: each
    /// lost segment then costs an RTO, and ns-2's chain runs resent only a
    /// third or less of what they lost; their published throughput counts
    /// every segment received, in order or not, while hoplab's goodput
    /// counts in-order data (see `scenario/preset.rs`).
    pub loss_recovery: LossRecovery,
    /// The retransmission timer doubles on each expiry (RFC 6298 5.5); off:
    /// it re-arms with the same RTO, as the public ns-2 code
    /// (`reset_rtx_timer(0)`, `tcp/semitcp.cc:343`). Not (yet) set by
    /// `preset = "ns2"`, with `loss_recovery`.
    pub rto_backoff: bool,
}

impl Default for SemiTcpConfig {
    fn default() -> Self {
        SemiTcpConfig {
            reserved_packets: 1,
            hop_control: true,
            mac: Default::default(),
            rate_control: Default::default(),
            sink_holds_acks: false,
            sink_ack_queue_packets: 500,
            source_pull: false,
            loss_recovery: LossRecovery::Rack,
            rto_backoff: true,
        }
    }
}

impl SemiTcpConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        packets("semitcp.reserved_packets", self.reserved_packets)?;
        packets("semitcp.sink_ack_queue_packets", self.sink_ack_queue_packets)?;
        self.mac.validate("semitcp.mac")?;
        self.rate_control.validate("semitcp.rate_control")
    }
}

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`, in the order of its
/// sources; `hoplab presets`). Each cites the ns-2 file and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[
    // Transport (tcp-sink.cc, semitcp.cc)
    PresetRule {
        key: "semitcp.sink_holds_acks",
        value: "true",
        applies: Applies::Always,
        source:
            "tcp/tcp-sink.cc:367-395 TcpSink::ack, 398-411 TcpSink::send_down; pulled by queue/queue.cc:71-81 and aodv/aodv.cc:1472-1503",
    },
    PresetRule {
        key: "semitcp.source_pull",
        value: "true",
        applies: Applies::Always,
        source: "tcp/semitcp.cc:353-363 send_much (start), 367-419 send_down (one segment per pull from aodv/aodv.cc:1472-1503)",
    },
    // Not yet: semitcp.loss_recovery = "rto_only", semitcp.rto_backoff =
    // false (semitcp.cc:216-346). ns-2's static chain lost 140-450 segments
    // per 100 s from 5 hops and resent only 40-130 of them
    // (chain/static/semi-dupack/HopsResultAvg.txt); its throughput counts
    // every segment received, in order or not. With these two rules hoplab
    // resends as few and its received throughput matches ns-2's, but the
    // in-order goodput that tests/ns2_parity.rs compares with that figure
    // falls to 10-45 % of it from 5 hops. They belong here once the parity
    // test compares received segments.
];
