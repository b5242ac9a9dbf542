//! AODV's configuration parameters (RFC 3561 section 10), each under the
//! RFC's name in snake case with its unit, overridable in the scenario as
//! `routing.aodv.<key>`; and the options the RFC leaves to the
//! implementation (HELLO messages, local repair, gratuitous RREPs, the
//! request buffer).
//!
//! The parameters the RFC derives from others (NET_TRAVERSAL_TIME,
//! PATH_DISCOVERY_TIME, MY_ROUTE_TIMEOUT, DELETE_PERIOD, BLACKLIST_TIMEOUT,
//! MAX_REPAIR_TTL) are derived unless given. RING_TRAVERSAL_TIME depends on
//! the TTL of each attempt and is always derived.

use crate::config::{packets, positive_duration, ConfigError};
use crate::config::{Applies, PresetRule};
use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a local repair (`local_repair`, RFC 3561 section 6.12) is decided,
/// run and ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum LocalRepairRule {
    /// RFC 3561 6.12: a break on the way to a destination at most
    /// MAX_REPAIR_TTL hops away is repaired; the queued packets toward the
    /// broken neighbour for it are buffered; the RREQ's TTL is
    /// max(MIN_REPAIR_TTL, 0.5 x hops to the source) + LOCAL_ADD_TTL; no
    /// RREP within the discovery period invalidates the route and sends a
    /// RERR.
    #[default]
    Rfc,
    /// ns-2's AODV (ns-2.35 aodv/aodv.cc, the same code in ns-2.29): a data
    /// packet whose MAC transmission failed is repaired for when it has
    /// travelled more hops than its route has left (`rt_ll_failed`,
    /// 325-331: `num_forwards() > rt_hops`). Only that packet is buffered:
    /// the interface keeps what it queued toward the neighbour, the other
    /// routes through it stay up, no RERR goes out (the branch returns
    /// before the filter and `nb_delete` of 333-341). The route is held in
    /// repair while discoveries go on as for any buffered packet (the RREQ
    /// TTL of `sendRequest`, retries). `local_rt_repair` (386-400) arms the
    /// repair timer with `rt_req_timeout`, an absolute time, as its delay:
    /// it fires at the repair's start plus the time the first RREQ's wait
    /// ends, about twice the simulated time; then a route still not repaired
    /// goes down without a RERR (`LocalRepairTimer::handle`, 187-212).
    /// Meanwhile a RREP replaces the route only with a fresher sequence
    /// number or fewer hops (`recvReply`, 859-862: the route in repair keeps
    /// its hop count, so an equal answer from a neighbour is ignored).
    Ns2,
}

/// When a discovery's RREQs go out and when it gives up
/// (`rreq_schedule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum RreqSchedule {
    /// RFC 3561 6.3-6.4: an expanding ring from TTL_START (or the last
    /// known hop count + TTL_INCREMENT), each RREQ waiting
    /// RING_TRAVERSAL_TIME; then up to 1 + RREQ_RETRIES RREQs at
    /// NET_DIAMETER waiting NET_TRAVERSAL_TIME doubled per retry; at most
    /// RREQ_RATELIMIT RREQs per second; the buffered packets are dropped
    /// when the last wait ends, and the next packet starts a new discovery
    /// at once.
    #[default]
    Rfc,
    /// ns-2's `AODV::sendRequest` (ns-2.35 aodv/aodv.cc:1063-1183; the
    /// semi-TCP code's ns-2.29, 1131-1263, the same rules). Its state is
    /// kept per destination for the whole run (the route entry's
    /// `rt_req_timeout`, `rt_req_cnt`, `rt_req_last_ttl`, which no route
    /// deletion clears):
    /// - TTL: `last = max(rt_req_last_ttl, rt_last_hop_count)` (1112):
    ///   TTL_START if `last` is 0, `last` + TTL_INCREMENT below
    ///   TTL_THRESHOLD, else NET_DIAMETER with `rt_req_cnt` + 1
    ///   (1114-1127). `rt_last_hop_count` is the hop count of the route
    ///   when it last went down (`rt_down`, 424), INFINITY2 for a route
    ///   that never did (aodv/aodv_rtable.cc:47): the first RREQ to a
    ///   destination never routed to is network-wide.
    /// - Wait: 2 x TTL x PerHopTime x max(1, `rt_req_cnt`), at most
    ///   MAX_RREQ_TIMEOUT = 10 s (1137-1144, aodv.h:86); PerHopTime is
    ///   NODE_TRAVERSAL_TIME or, with `measured_traversal_time`, the
    ///   measured one. No TIMEOUT_BUFFER, no RREQ_RATELIMIT.
    /// - A retry goes out only when `sendRequest` is called after the wait:
    ///   by a packet the node originates (`rt_resolve`, 466) or by
    ///   `rt_purge` for every destination with packets buffered, every
    ///   0.5 s from 0 s (`RouteCacheTimer`, 179-184; rt_purge 538-547;
    ///   the agent starts at 0.0, tcl/lib/ns-lib.tcl:857).
    /// - Give-up: the call after 1 + RREQ_RETRIES network-wide RREQs
    ///   (`rt_req_cnt > RREQ_RETRIES`, 1093-1101) drops the destination's
    ///   buffered packets (cause `no_route`) and sends no RREQ to it for
    ///   MAX_RREQ_TIMEOUT; packets for it meanwhile wait in the buffer.
    /// - The state is reset (count 0, no wait, last TTL = the hop count)
    ///   by a RREP that updates the route (recvReply, 867-871) and by a
    ///   RREQ that updates the reverse route while a wait was set
    ///   (recvRequest, 712-720).
    /// Not modelled: the order of the destinations within one `rt_purge`
    /// (ns-2: its table's, newest entry first; hoplab: ascending). Meant
    /// with `local_repair_rule = "ns2"`, as the preset sets it: an RFC 6.12
    /// repair under this schedule has no failure timer of its own and ends
    /// with a route or the give-up.
    Ns2,
}

/// ns-2's MAX_RREQ_TIMEOUT (ns-2.35 aodv/aodv.h:86, semi-TCP code aodv.h:91):
/// the longest wait of a RREQ and the hold after a discovery gave up
/// ([`RreqSchedule::Ns2`]).
pub const NS2_MAX_RREQ_TIMEOUT: SimDuration = SimDuration(10_000_000_000);

/// ns-2's `rt_purge` period, `FREQUENCY` (ns-2.35 aodv/aodv.cc:182,
/// semi-TCP code 210): retries of [`RreqSchedule::Ns2`] go out on its ticks.
pub const NS2_PURGE_PERIOD: SimDuration = SimDuration(500_000_000);

/// `[routing.aodv]`: AODV's parameters, each the RFC 3561 section 10
/// constant of the same name with its unit, and its options. Defaults: the
/// RFC's; options as ns-2's AODV (link-layer feedback on, HELLO and local
/// repair off). A parameter the RFC derives from others is derived unless
/// given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AodvConfig {
    /// ACTIVE_ROUTE_TIMEOUT, seconds (RFC: 3): lifetime of a route
    /// refreshed by use.
    #[serde(with = "crate::config::secs")]
    #[schemars(schema_with = "crate::config::secs::schema")]
    pub active_route_timeout_s: SimDuration,
    /// ALLOWED_HELLO_LOSS (2): HELLO intervals without a packet from a
    /// neighbour before the link to it is deemed lost.
    pub allowed_hello_loss: u32,
    /// HELLO_INTERVAL, seconds (RFC: 1): between a node's HELLO messages
    /// (with `hello`).
    #[serde(with = "crate::config::secs")]
    #[schemars(schema_with = "crate::config::secs::schema")]
    pub hello_interval_s: SimDuration,
    /// LOCAL_ADD_TTL (2): added to the TTL of a local repair's RREQ.
    pub local_add_ttl: u32,
    /// NET_DIAMETER (35): the maximum hops between two nodes; the TTL of
    /// network-wide RREQs.
    pub net_diameter: u32,
    /// NODE_TRAVERSAL_TIME, milliseconds (RFC: 40): a conservative one-hop
    /// traversal time.
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub node_traversal_time_ms: SimDuration,
    /// RERR_RATELIMIT (10): RERR messages a node may originate per second.
    pub rerr_ratelimit: u32,
    /// RREQ_RETRIES (2): RREQs sent again at TTL = NET_DIAMETER before a
    /// discovery fails.
    pub rreq_retries: u32,
    /// RREQ_RATELIMIT (10): RREQ messages a node may originate per second.
    pub rreq_ratelimit: u32,
    /// TIMEOUT_BUFFER (2): slack, in hops, added to the TTL in
    /// RING_TRAVERSAL_TIME.
    pub timeout_buffer: u32,
    /// TTL_START (1): TTL of a discovery's first RREQ (expanding ring search).
    pub ttl_start: u32,
    /// TTL_INCREMENT (2): added to the TTL of each new RREQ of the expanding
    /// ring search.
    pub ttl_increment: u32,
    /// TTL_THRESHOLD (7): beyond it RREQs go out with TTL = NET_DIAMETER.
    pub ttl_threshold: u32,
    /// NET_TRAVERSAL_TIME, milliseconds: how long a network-wide RREQ
    /// waits for its RREP; default 2 * NODE_TRAVERSAL_TIME * NET_DIAMETER.
    #[serde(with = "crate::config::millis_opt", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::config::millis_opt::schema")]
    pub net_traversal_time_ms: Option<SimDuration>,
    /// PATH_DISCOVERY_TIME, milliseconds: how long a RREQ id is remembered;
    /// default 2 * NET_TRAVERSAL_TIME.
    #[serde(with = "crate::config::millis_opt", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::config::millis_opt::schema")]
    pub path_discovery_time_ms: Option<SimDuration>,
    /// MY_ROUTE_TIMEOUT, seconds: the lifetime in a destination's own RREP;
    /// default 2 * ACTIVE_ROUTE_TIMEOUT.
    #[serde(with = "crate::config::secs_opt", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::config::secs_opt::schema")]
    pub my_route_timeout_s: Option<SimDuration>,
    /// DELETE_PERIOD, seconds: how long an invalid route is kept; default
    /// K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL) with K = 5.
    #[serde(with = "crate::config::secs_opt", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::config::secs_opt::schema")]
    pub delete_period_s: Option<SimDuration>,
    /// BLACKLIST_TIMEOUT, seconds: how long a neighbour stays on the
    /// blacklist; default RREQ_RETRIES * NET_TRAVERSAL_TIME.
    #[serde(with = "crate::config::secs_opt", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::config::secs_opt::schema")]
    pub blacklist_timeout_s: Option<SimDuration>,
    /// MAX_REPAIR_TTL: the farthest destination, in hops, that a local
    /// repair is tried for; default 0.3 * NET_DIAMETER (rounded down).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_repair_ttl: Option<u32>,

    /// Link breaks are learnt from the MAC's retry-limit failure of a data
    /// packet (link-layer feedback, as ns-2; section 6.11 case (i)).
    pub link_layer_feedback: bool,
    /// Broadcast HELLO messages (section 6.9) and deem a link lost after
    /// ALLOWED_HELLO_LOSS silent intervals.
    pub hello: bool,
    /// Local repair of a broken link (section 6.12).
    pub local_repair: bool,
    /// How a local repair is decided, run and ended: "rfc" (section 6.12)
    /// or "ns2" (ns-2.35 aodv/aodv.cc:325-331, 386-400, 187-212, 859-862).
    /// With `local_repair`.
    pub local_repair_rule: LocalRepairRule,
    /// On a link break, this node's own data packets queued toward the
    /// broken neighbour wait in the request queue for a new discovery. Off,
    /// as ns-2's `rt_ll_failed` (ns-2.35 aodv/aodv.cc:333-341): every packet
    /// queued toward the neighbour is dropped, the node's own included
    /// (`ifqueue->filter`, `DROP_RTR_MAC_CALLBACK`; loss cause
    /// `route_break`).
    pub requeue_own_on_break: bool,
    /// Set the 'G' flag in RREQs: an intermediate node that answers also
    /// sends a gratuitous RREP to the destination (section 6.6.3).
    pub gratuitous_reply: bool,
    /// Set the 'D' flag in RREQs: only the destination answers (section 6.5).
    pub destination_only: bool,
    /// A RREP whose unicast fails at the MAC puts its next hop on the
    /// blacklist for BLACKLIST_TIMEOUT (section 6.8; link-layer feedback
    /// stands in for the RREP-ACK). Off as in ns-2 and ns-3.
    pub blacklist_on_rrep_failure: bool,
    /// Upper bound of the uniform jitter before a RREQ is rebroadcast or a
    /// HELLO is sent, milliseconds (ns-2: 10).
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub broadcast_jitter_ms: SimDuration,
    /// Replace NODE_TRAVERSAL_TIME in a discovery's waits by the one-hop
    /// latency measured from the node's last three discoveries of the same
    /// destination that a RREP addressed to it answered (RREQ to RREP,
    /// divided by the route's hops), as ns-2's `AODV::PerHopTime` does
    /// (sampled in `recvReply` only, ns-2.35 aodv/aodv.cc:873-880; a route
    /// found otherwise gives no sample); the network-wide retries then wait
    /// 2 * measured * NET_DIAMETER (doubling), even if `net_traversal_time_ms`
    /// is given. Off by default: the RFC's constant, as ns-3.
    /// On a TCP chain it makes a lost rediscovery RREQ cost about 0.1 s
    /// instead of 0.9 s (see AODV in docs/model-fidelity.md).
    pub measured_traversal_time: bool,
    /// When a discovery's RREQs go out, with which TTL, and when it gives
    /// up: "rfc" (RFC 3561 6.3-6.4: expanding ring, binary exponential
    /// backoff, RREQ_RATELIMIT) or "ns2" (ns-2's `sendRequest`, retries on
    /// `rt_purge`'s 0.5 s tick, a 10 s hold after giving up; ns-2.35
    /// aodv/aodv.cc:1063-1183, 179-184, 538-547).
    pub rreq_schedule: RreqSchedule,
    /// Packets buffered per node while routes are discovered (ns-2 and
    /// ns-3: 64); on overflow the oldest is dropped (loss cause `no_route`).
    pub request_queue_packets: u32,
    /// A buffered packet older than this, seconds, is dropped (loss cause
    /// `no_route`; ns-2 and ns-3: 30).
    #[serde(with = "crate::config::secs")]
    #[schemars(schema_with = "crate::config::secs::schema")]
    pub request_queue_timeout_s: SimDuration,
}

impl Default for AodvConfig {
    fn default() -> Self {
        let s = SimDuration::from_secs_f64;
        AodvConfig {
            active_route_timeout_s: s(3.0),
            allowed_hello_loss: 2,
            hello_interval_s: s(1.0),
            local_add_ttl: 2,
            net_diameter: 35,
            node_traversal_time_ms: SimDuration::from_millis_f64(40.0),
            rerr_ratelimit: 10,
            rreq_retries: 2,
            rreq_ratelimit: 10,
            timeout_buffer: 2,
            ttl_start: 1,
            ttl_increment: 2,
            ttl_threshold: 7,
            net_traversal_time_ms: None,
            path_discovery_time_ms: None,
            my_route_timeout_s: None,
            delete_period_s: None,
            blacklist_timeout_s: None,
            max_repair_ttl: None,
            link_layer_feedback: true,
            hello: false,
            local_repair: false,
            local_repair_rule: LocalRepairRule::Rfc,
            requeue_own_on_break: true,
            gratuitous_reply: false,
            destination_only: false,
            blacklist_on_rrep_failure: false,
            broadcast_jitter_ms: SimDuration::from_millis_f64(10.0),
            measured_traversal_time: false,
            rreq_schedule: RreqSchedule::Rfc,
            request_queue_packets: 64,
            request_queue_timeout_s: s(30.0),
        }
    }
}

/// Section 10: DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
pub const DELETE_PERIOD_K: u64 = 5;

/// `d * k`, saturating (absurdly large parameters must not overflow).
pub fn times(d: SimDuration, k: u64) -> SimDuration {
    SimDuration(d.0.saturating_mul(k))
}

/// NET_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * NET_DIAMETER (section 10).
fn net_traversal_time_of(node_traversal_time: SimDuration, net_diameter: u32) -> SimDuration {
    times(node_traversal_time, 2 * net_diameter as u64)
}

fn clamp_ttl(v: u32) -> u8 {
    v.min(255) as u8
}

impl AodvConfig {
    /// Range checks; every error names its key (`routing.aodv.<key>`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let key = |k: &str| format!("routing.aodv.{k}");
        let ttl = |k: &str, v: u32, min: u32| {
            if (min..=255).contains(&v) {
                Ok(())
            } else {
                Err(ConfigError::new(key(k), format!("must be an integer from {min} to 255 (an IP TTL), got {v}")))
            }
        };
        positive_duration(&key("active_route_timeout_s"), self.active_route_timeout_s)?;
        if self.allowed_hello_loss < 1 {
            return Err(ConfigError::new(key("allowed_hello_loss"), "must be at least 1"));
        }
        positive_duration(&key("hello_interval_s"), self.hello_interval_s)?;
        ttl("local_add_ttl", self.local_add_ttl, 0)?;
        ttl("net_diameter", self.net_diameter, 1)?;
        positive_duration(&key("node_traversal_time_ms"), self.node_traversal_time_ms)?;
        if self.rerr_ratelimit < 1 {
            return Err(ConfigError::new(key("rerr_ratelimit"), "must be at least 1 per second"));
        }
        if self.rreq_retries > 30 {
            return Err(ConfigError::new(key("rreq_retries"), format!("must be at most 30, got {}", self.rreq_retries)));
        }
        if self.rreq_ratelimit < 1 {
            return Err(ConfigError::new(key("rreq_ratelimit"), "must be at least 1 per second"));
        }
        if self.timeout_buffer > 255 {
            return Err(ConfigError::new(key("timeout_buffer"), "must be at most 255"));
        }
        ttl("ttl_start", self.ttl_start, 1)?;
        ttl("ttl_increment", self.ttl_increment, 1)?;
        ttl("ttl_threshold", self.ttl_threshold, 1)?;
        for (k, v) in [
            ("net_traversal_time_ms", self.net_traversal_time_ms),
            ("path_discovery_time_ms", self.path_discovery_time_ms),
            ("my_route_timeout_s", self.my_route_timeout_s),
            ("delete_period_s", self.delete_period_s),
            ("blacklist_timeout_s", self.blacklist_timeout_s),
        ] {
            if let Some(v) = v {
                positive_duration(&key(k), v)?;
            }
        }
        if let Some(v) = self.max_repair_ttl {
            ttl("max_repair_ttl", v, 1)?;
        }
        packets(&key("request_queue_packets"), self.request_queue_packets)?;
        positive_duration(&key("request_queue_timeout_s"), self.request_queue_timeout_s)
    }

    pub fn active_route_timeout(&self) -> SimDuration {
        self.active_route_timeout_s
    }
    pub fn hello_interval(&self) -> SimDuration {
        self.hello_interval_s
    }
    pub fn node_traversal_time(&self) -> SimDuration {
        self.node_traversal_time_ms
    }
    pub fn broadcast_jitter(&self) -> SimDuration {
        self.broadcast_jitter_ms
    }
    pub fn request_queue_timeout(&self) -> SimDuration {
        self.request_queue_timeout_s
    }
    pub fn request_queue_packets(&self) -> usize {
        self.request_queue_packets as usize
    }
    pub fn local_add_ttl(&self) -> u8 {
        clamp_ttl(self.local_add_ttl)
    }
    pub fn net_diameter(&self) -> u8 {
        clamp_ttl(self.net_diameter)
    }
    pub fn ttl_start(&self) -> u8 {
        clamp_ttl(self.ttl_start)
    }
    pub fn ttl_increment(&self) -> u8 {
        clamp_ttl(self.ttl_increment)
    }
    pub fn ttl_threshold(&self) -> u8 {
        clamp_ttl(self.ttl_threshold)
    }

    /// NET_TRAVERSAL_TIME (section 10).
    pub fn net_traversal_time(&self) -> SimDuration {
        self.net_traversal_time_ms.unwrap_or_else(|| net_traversal_time_of(self.node_traversal_time_ms, self.net_diameter))
    }
    /// PATH_DISCOVERY_TIME = 2 * NET_TRAVERSAL_TIME.
    pub fn path_discovery_time(&self) -> SimDuration {
        self.path_discovery_time_ms.unwrap_or_else(|| times(self.net_traversal_time(), 2))
    }
    /// MY_ROUTE_TIMEOUT = 2 * ACTIVE_ROUTE_TIMEOUT.
    pub fn my_route_timeout(&self) -> SimDuration {
        self.my_route_timeout_s.unwrap_or_else(|| times(self.active_route_timeout_s, 2))
    }
    /// DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
    pub fn delete_period(&self) -> SimDuration {
        self.delete_period_s.unwrap_or_else(|| times(self.active_route_timeout_s.max(self.hello_interval_s), DELETE_PERIOD_K))
    }
    /// BLACKLIST_TIMEOUT = RREQ_RETRIES * NET_TRAVERSAL_TIME.
    pub fn blacklist_timeout(&self) -> SimDuration {
        self.blacklist_timeout_s.unwrap_or_else(|| times(self.net_traversal_time(), self.rreq_retries as u64))
    }
    /// MAX_REPAIR_TTL = 0.3 * NET_DIAMETER.
    pub fn max_repair_ttl(&self) -> u8 {
        self.max_repair_ttl.map_or(clamp_ttl(3 * self.net_diameter / 10), clamp_ttl)
    }

    /// RING_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * (TTL_VALUE +
    /// TIMEOUT_BUFFER) (section 10): how long a RREQ sent with `ttl` waits
    /// for its RREP (section 6.4).
    pub fn ring_traversal_time(&self, ttl: u8) -> SimDuration {
        self.ring_traversal_time_with(self.node_traversal_time_ms, ttl)
    }

    /// RING_TRAVERSAL_TIME with a given one-hop traversal time (a measured
    /// one, see `measured_traversal_time`).
    pub fn ring_traversal_time_with(&self, node_traversal_time: SimDuration, ttl: u8) -> SimDuration {
        times(node_traversal_time, 2 * (ttl as u64 + self.timeout_buffer as u64))
    }

    /// NET_TRAVERSAL_TIME with a measured one-hop traversal time (see
    /// `measured_traversal_time`), or the configured one.
    pub fn net_traversal_time_with(&self, measured: Option<SimDuration>) -> SimDuration {
        measured.map_or(self.net_traversal_time(), |t| net_traversal_time_of(t, self.net_diameter() as u32))
    }

    /// ALLOWED_HELLO_LOSS * HELLO_INTERVAL (sections 6.9, 6.10).
    pub fn hello_loss_time(&self) -> SimDuration {
        times(self.hello_interval_s, self.allowed_hello_loss as u64)
    }
}

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`, in the order of its
/// sources; `hoplab presets`). Each cites the ns-2 file and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[
    PresetRule {
        key: "routing.aodv.measured_traversal_time",
        value: "true",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.cc:290-306 AODV::PerHopTime, used at 1215 in AODV::sendRequest",
    },
    // AODV's constants and repair: ns-2.35's aodv/aodv.h and aodv.cc
    // (GitHub hbatmit/ns2.35; ns-2.29's are the same code, 5 lines later in
    // aodv.h and about 30 in aodv.cc).
    PresetRule {
        key: "routing.aodv.active_route_timeout_s",
        value: "10.0",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.h:77 ACTIVE_ROUTE_TIMEOUT 10 (set on every forward, aodv.cc:1024; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.my_route_timeout_s",
        value: "10.0",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.h:76 MY_ROUTE_TIMEOUT 10 (the destination's RREP lifetime, aodv.cc:765; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.ttl_start",
        value: "5",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.h:89 TTL_START 5 (aodv.cc:1116; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.rreq_retries",
        value: "3",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.h:84 RREQ_RETRIES 3 (aodv.cc:1093; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.node_traversal_time_ms",
        value: "30.0",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.h:94 NODE_TRAVERSAL_TIME 0.03 (PerHopTime's default, aodv.cc:262-281; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.net_diameter",
        value: "30",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.h:98 NETWORK_DIAMETER 30 (aodv.cc:1124; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.local_repair",
        value: "true",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.h:49 #define AODV_LOCAL_REPAIR (used in rt_ll_failed, aodv.cc:324-331; ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.local_repair_rule",
        value: "\"ns2\"",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.cc:325-331 rt_ll_failed (num_forwards > rt_hops), 386-400 local_rt_repair (lrtimer delay = rt_req_timeout), 187-212 LocalRepairTimer::handle (rt_down, no RERR), 859-862 recvReply (ns-2.35)",
    },
    PresetRule {
        key: "routing.aodv.rreq_schedule",
        value: "\"ns2\"",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.cc:1063-1183 AODV::sendRequest (TTL 1112-1128 from rt_req_last_ttl and rt_last_hop_count, INFINITY2 for a new entry: aodv_rtable.cc:47; wait 2 x TTL x PerHopTime x max(1, rt_req_cnt) capped at MAX_RREQ_TIMEOUT 1137-1144; give-up and 10 s hold 1093-1101), retries from rt_purge every 0.5 s 179-184, 538-547 and rt_resolve 466; reset 712-720, 867-871 (ns-2.35; semi-TCP code 1131-1263, 207-212, 584-593, 506, 759-767, 914-918)",
    },
    PresetRule {
        key: "routing.aodv.requeue_own_on_break",
        value: "false",
        applies: Applies::WithRouting("aodv"),
        source: "aodv/aodv.cc:333-341 rt_ll_failed (drop, ifqueue->filter(broken_nbr) dropped with DROP_RTR_MAC_CALLBACK, nb_delete; ns-2.35)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_values_follow_section_10() {
        let p = AodvConfig::default();
        assert_eq!(p.net_traversal_time(), SimDuration::from_secs_f64(2.8)); // 2 * 40 ms * 35
        assert_eq!(p.path_discovery_time(), SimDuration::from_secs_f64(5.6));
        assert_eq!(p.my_route_timeout(), SimDuration::from_secs_f64(6.0));
        assert_eq!(p.delete_period(), SimDuration::from_secs_f64(15.0)); // 5 * max(3 s, 1 s)
        assert_eq!(p.blacklist_timeout(), SimDuration::from_secs_f64(5.6));
        assert_eq!(p.max_repair_ttl(), 10); // 0.3 * 35
        assert_eq!(p.ring_traversal_time(1), SimDuration::from_secs_f64(0.24)); // 2 * 40 ms * (1 + 2)
        assert_eq!(p.ring_traversal_time(7), SimDuration::from_secs_f64(0.72));
        assert_eq!(p.hello_loss_time(), SimDuration::from_secs_f64(2.0));
    }

    #[test]
    fn given_values_override_the_derivation() {
        let p = AodvConfig {
            net_traversal_time_ms: Some(SimDuration::from_millis_f64(1000.0)),
            delete_period_s: Some(SimDuration::from_secs_f64(4.0)),
            ..Default::default()
        };
        assert_eq!(p.net_traversal_time(), SimDuration::from_secs_f64(1.0));
        assert_eq!(p.path_discovery_time(), SimDuration::from_secs_f64(2.0));
        assert_eq!(p.delete_period(), SimDuration::from_secs_f64(4.0));
    }

    #[test]
    fn bad_values_name_their_key() {
        let c = AodvConfig { net_diameter: 300, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.aodv.net_diameter");
        let c = AodvConfig { active_route_timeout_s: SimDuration::ZERO, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.aodv.active_route_timeout_s");
        let c = AodvConfig { request_queue_packets: 0, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.aodv.request_queue_packets");
    }
}
