//! `[routing.dsr]`: DSR's parameters and options. Where RFC 4728 names a
//! constant (section 9) the key is that constant in snake case with its
//! unit and the RFC's value; where the RFC leaves a choice, the default is
//! what ns-2's CMU DSR does (ns-2.35 `dsr/`, GitHub hbatmit/ns2.35; the
//! same code as ns-2.29's apart from semi-TCP's hooks), cited by file and
//! line. Where ns-2 and the RFC differ, the RFC is the default and
//! `preset = "ns2"` sets ns-2's value (scenario/preset.rs).

use crate::config::{packets, positive_duration, ConfigError};
use crate::config::{Applies, PresetRule};
use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the time between a discovery's request cycles grows (RFC 4728
/// 8.2.1: exponential back-off from RequestPeriod to MaxRequestPeriod).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum RequestBackoff {
    /// The k-th cycle (k >= 1) is followed by RequestPeriod x 2^(k-1):
    /// 0.5 s, 1 s, 2 s, ... up to MaxRequestPeriod.
    #[default]
    Doubling,
    /// ns-2's `BackOffTest` (dsr/dsragent.cc:320-340): RequestPeriod x
    /// 4^k after the k-th cycle: 2 s, 8 s, then MaxRequestPeriod.
    Ns2,
}

/// The 802.11 interface queue under DSR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum InterfaceQueue {
    /// ns-2's `PriQueue`, as under AODV: routing packets first, one
    /// capacity (`mac.queue_packets`), a routing packet that finds it full
    /// pushes out the last data packet.
    #[default]
    PriQueue,
    /// ns-2's `CMUPriQueue`, the only queue ns-2's DSR runs over (its
    /// agent's `ifq` is one, dsr/dsragent.h:142, dsragent.cc:574; queue/dsr-priqueue.cc):
    /// routing packets, then TCP ACKs (`PT_ACK`), then data, each class
    /// with `mac.queue_packets` of its own (271-289); a packet that finds
    /// its class full is dropped (235-243). With `[queue] discipline =
    /// "drop_tail"` only.
    CmuPriQueue,
}

/// `[routing.dsr]`: DSR's parameters (RFC 4728 section 9) and options
/// (ns-2's CMU DSR where the RFC leaves a choice).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DsrConfig {
    /// BroadcastJitter, milliseconds (RFC 4728 section 9: 10; ns-2
    /// `RREQ_JITTER`, dsragent.h:76): a Route Request, originated or
    /// forwarded, and the target's Route Reply wait a uniform draw in
    /// [0, this) (8.2.2; ns-2 dsragent.cc:1457-1460, 1689).
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub broadcast_jitter_ms: SimDuration,
    /// RouteCacheTimeout, seconds (RFC: 300): a cached route not used or
    /// confirmed for this long is forgotten. 0: never (ns-2's MobiCache
    /// keeps routes until a dead link or eviction removes them,
    /// mobicache.cc:316-369; `preset = "ns2"`).
    #[serde(with = "crate::config::secs")]
    #[schemars(schema_with = "crate::config::secs::schema")]
    pub route_cache_timeout_s: SimDuration,
    /// Paths of the primary route cache: routes from replies and routes in
    /// use (ns-2 MobiCache, mobicache.cc:188: 30; the RFC sets no size).
    pub primary_cache_paths: u32,
    /// Paths of the secondary route cache: routes learnt by overhearing
    /// and forwarding (mobicache.cc:189: 64). Full caches evict round
    /// robin (mobicache.cc:666-690).
    pub secondary_cache_paths: u32,
    /// Packets the send buffer holds while routes are discovered (ns-2
    /// `SEND_BUF_SIZE`, dsragent.h:78: 64; the RFC sets no size); when full
    /// the oldest is dropped (dsragent.cc:259-280; loss cause `no_route`).
    pub send_buffer_packets: u32,
    /// SendBufferTimeout, seconds (RFC: 30; ns-2 `SEND_TIMEOUT`,
    /// dsragent.h:77): a buffered packet older than this is dropped (loss
    /// cause `no_route`).
    #[serde(with = "crate::config::secs")]
    #[schemars(schema_with = "crate::config::secs::schema")]
    pub send_buffer_timeout_s: SimDuration,
    /// Each request cycle starts with a non-propagating Route Request (hop
    /// limit 0: neighbours answer from their caches), then a propagating
    /// one (RFC 8.2.1 "MAY"; ns-2 `dsragent_ring_zero_search`,
    /// dsragent.cc:166, used at 1548-1569).
    pub nonpropagating_request: bool,
    /// NonpropRequestTimeout, milliseconds (RFC: 30; ns-2 `arp_timeout`,
    /// dsragent.cc:124): the wait for a reply to the non-propagating
    /// request before the propagating one.
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub nonprop_request_timeout_ms: SimDuration,
    /// RequestPeriod, milliseconds (RFC: 500; ns-2 `rt_rq_period`,
    /// dsragent.cc:125): the unit of the back-off between request cycles.
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub request_period_ms: SimDuration,
    /// MaxRequestPeriod, seconds (RFC: 10; ns-2 `rt_rq_max_period`,
    /// dsragent.cc:126): the longest wait between request cycles.
    #[serde(with = "crate::config::secs")]
    #[schemars(schema_with = "crate::config::secs::schema")]
    pub max_request_period_s: SimDuration,
    /// How the wait between request cycles grows: "doubling" (RFC 8.2.1)
    /// or "ns2" (x4 per cycle, dsragent.cc:320-340; `preset = "ns2"`).
    pub request_backoff: RequestBackoff,
    /// DiscoveryHopLimit (RFC 8.2.1: 255): the hop limit of propagating
    /// requests (a route holds at most 16 addresses, ns-2 `MAX_SR_LEN`,
    /// hdr_sr.h:67, so requests die after 15 hops anyway).
    pub discovery_hop_limit: u32,
    /// Intermediate nodes answer propagating requests from their route
    /// caches (RFC 8.2.3 "MAY"; ns-2
    /// `dsragent_reply_from_cache_on_propagating`, dsragent.cc:163);
    /// non-propagating requests are always answered from caches
    /// (dsragent.cc:1040).
    pub reply_from_cache: bool,
    /// Promiscuous listening: routes in overheard packets are cached and
    /// overheard route errors applied (RFC 8.1.4 "MAY"; ns-2
    /// `dsragent_use_tap`, dsragent.cc:161, tap at 2015-2160).
    pub promiscuous: bool,
    /// Send a gratuitous Route Reply to the source of an overheard packet
    /// whose route passes through this node later (automatic route
    /// shortening, RFC 8.4.3; ns-2 `dsragent_send_grat_replies`,
    /// dsragent.cc:156). Needs `promiscuous`.
    pub gratuitous_replies: bool,
    /// GratReplyHoldoff, seconds (RFC: 1; ns-2 `grat_hold_down_time`,
    /// dsragent.cc:136): no second gratuitous reply for the same route
    /// within this time.
    #[serde(with = "crate::config::secs")]
    #[schemars(schema_with = "crate::config::secs::schema")]
    pub grat_reply_holdoff_s: SimDuration,
    /// Salvage a forwarded packet whose next link broke with another route
    /// from the cache (RFC 8.4.1 "SHOULD"; ns-2
    /// `dsragent_salvage_with_cache`, dsragent.cc:158).
    pub salvage: bool,
    /// MAX_SALVAGE_COUNT (RFC: 15; ns-2 `dsr_salvage_max_attempts`,
    /// dsragent.cc:95): times one packet may be salvaged.
    pub max_salvage_count: u32,
    /// A forwarded packet whose next link broke and that no cached route
    /// can salvage waits in the send buffer while this node sends one
    /// non-propagating Route Request for its destination; if no route
    /// comes, it is dropped (`no_route`) when that request's back-off runs
    /// out. ns-2's `NEW_SALVAGE_LOGIC` (dsr/dsragent.cc:89, with
    /// `dsr_salvage_max_requests = 1` and `dsr_salvage_allow_propagating =
    /// 0` at 100-105; the buffering at 2424-2438, the one request at
    /// 1529-1546, no propagating one at 1560-1561; `preset = "ns2"`).
    /// false: dropped at once with the MAC's cause (RFC 4728 8.4.1).
    pub salvage_by_discovery: bool,
    /// Packets a Route Reply releases from the send buffer go to the
    /// interface this far apart, the first at once. ns-2 spaces them by
    /// `arp_timeout` (30 ms) "to give ARP time to complete"
    /// (dsr/dsragent.cc:1793-1798 in `acceptRouteReply`; `preset =
    /// "ns2"`); packets released otherwise (a route learnt by forwarding
    /// or overhearing) go at once there too. 0: all at once (the RFC has
    /// no such pacing).
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub reply_release_spacing_ms: SimDuration,
    /// The 802.11 interface queue: "pri_queue" (ns-2's PriQueue, as under
    /// AODV) or "cmu_pri_queue" (ns-2's CMUPriQueue: TCP ACKs ahead of
    /// data, a capacity per class; queue/dsr-priqueue.cc:235-289, the
    /// queue ns-2's DSR needs, dsragent.cc:574; `preset = "ns2"`).
    pub interface_queue: InterfaceQueue,
    /// The next Route Request a node originates within one second of a
    /// Route Error it received carries that error, so the nodes the
    /// request reaches drop the dead link too (RFC 8.2.1; ns-2
    /// `dsragent_propagate_last_error` and `max_err_hold`, dsragent.cc:152,
    /// 139, used at 1603-1618).
    pub piggyback_route_errors: bool,
}

impl Default for DsrConfig {
    fn default() -> Self {
        DsrConfig {
            broadcast_jitter_ms: SimDuration::from_millis_f64(10.0),
            route_cache_timeout_s: SimDuration::from_secs_f64(300.0),
            primary_cache_paths: 30,
            secondary_cache_paths: 64,
            send_buffer_packets: 64,
            send_buffer_timeout_s: SimDuration::from_secs_f64(30.0),
            nonpropagating_request: true,
            nonprop_request_timeout_ms: SimDuration::from_millis_f64(30.0),
            request_period_ms: SimDuration::from_millis_f64(500.0),
            max_request_period_s: SimDuration::from_secs_f64(10.0),
            request_backoff: RequestBackoff::Doubling,
            discovery_hop_limit: 255,
            reply_from_cache: true,
            promiscuous: true,
            gratuitous_replies: true,
            grat_reply_holdoff_s: SimDuration::from_secs_f64(1.0),
            salvage: true,
            max_salvage_count: 15,
            salvage_by_discovery: false,
            reply_release_spacing_ms: SimDuration::ZERO,
            interface_queue: InterfaceQueue::PriQueue,
            piggyback_route_errors: true,
        }
    }
}

/// ns-2's `max_err_hold` (dsragent.cc:139): how long a received Route
/// Error may ride on the node's next Route Request.
pub const MAX_ERROR_HOLD: SimDuration = SimDuration(1_000_000_000);

/// Paths a route cache may hold: bounded like the packet buffers (each is
/// 48 bytes, and a lookup scans them all).
pub const MAX_CACHE_PATHS: u32 = 100_000;

impl DsrConfig {
    /// Range checks; every error names its key (`routing.dsr.<key>`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let key = |k: &str| format!("routing.dsr.{k}");
        if self.broadcast_jitter_ms > SimDuration::from_secs_f64(10.0) {
            return Err(ConfigError::new(key("broadcast_jitter_ms"), "must be at most 10000 ms"));
        }
        for (k, v) in [("primary_cache_paths", self.primary_cache_paths), ("secondary_cache_paths", self.secondary_cache_paths)] {
            if !(1..=MAX_CACHE_PATHS).contains(&v) {
                return Err(ConfigError::new(key(k), format!("must be an integer from 1 to {MAX_CACHE_PATHS}, got {v}")));
            }
        }
        packets(&key("send_buffer_packets"), self.send_buffer_packets)?;
        positive_duration(&key("send_buffer_timeout_s"), self.send_buffer_timeout_s)?;
        positive_duration(&key("nonprop_request_timeout_ms"), self.nonprop_request_timeout_ms)?;
        positive_duration(&key("request_period_ms"), self.request_period_ms)?;
        positive_duration(&key("max_request_period_s"), self.max_request_period_s)?;
        positive_duration(&key("grat_reply_holdoff_s"), self.grat_reply_holdoff_s)?;
        if !(1..=255).contains(&self.discovery_hop_limit) {
            return Err(ConfigError::new(
                key("discovery_hop_limit"),
                format!("must be an integer from 1 to 255 (an IP TTL), got {}", self.discovery_hop_limit),
            ));
        }
        if self.max_salvage_count > 15 {
            return Err(ConfigError::new(
                key("max_salvage_count"),
                format!("must be at most 15 (the Salvage field has 4 bits, RFC 4728 6.7), got {}", self.max_salvage_count),
            ));
        }
        if self.reply_release_spacing_ms > SimDuration::from_secs_f64(1.0) {
            return Err(ConfigError::new(key("reply_release_spacing_ms"), "must be at most 1000 ms"));
        }
        if self.gratuitous_replies && !self.promiscuous {
            return Err(ConfigError::new(key("gratuitous_replies"), "needs promiscuous = true (replies answer overheard packets)"));
        }
        Ok(())
    }

    /// The wait after the `cycles`-th request cycle before the next one.
    pub fn backoff(&self, cycles: u32) -> SimDuration {
        let period = self.request_period_ms.as_nanos() as f64;
        let factor = match self.request_backoff {
            RequestBackoff::Doubling => 2f64.powi(cycles.saturating_sub(1).min(60) as i32),
            RequestBackoff::Ns2 => 4f64.powi(cycles.min(30) as i32),
        };
        let wait = (period * factor).min(self.max_request_period_s.as_nanos() as f64);
        SimDuration::from_nanos(wait as u64)
    }

    /// The route cache timeout, None for never.
    pub fn route_cache_timeout(&self) -> Option<SimDuration> {
        (self.route_cache_timeout_s > SimDuration::ZERO).then_some(self.route_cache_timeout_s)
    }
}

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`, in the order of its
/// sources; `hoplab presets`). Each cites the ns-2 file and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[
    // DSR: ns-2.35's CMU DSR (GitHub hbatmit/ns2.35; the same code in
    // ns-2.29 apart from semi-TCP's hooks, so these lines are ns-2.35's).
    PresetRule {
        key: "routing.dsr.route_cache_timeout_s",
        value: "0.0",
        applies: Applies::WithRouting("dsr"),
        source: "dsr/mobicache.cc:316-369 MobiCache::addRoute / noticeRouteUsed (links are stamped, never expired; ns-2.35)",
    },
    PresetRule {
        key: "routing.dsr.request_backoff",
        value: "\"ns2\"",
        applies: Applies::WithRouting("dsr"),
        source: "dsr/dsragent.cc:320-340 BackOffTest (next = 2^(2 x rt_reqs_outstanding) x rt_rq_period; ns-2.35)",
    },
    PresetRule {
        key: "routing.dsr.salvage_by_discovery",
        value: "true",
        applies: Applies::WithRouting("dsr"),
        source: "dsr/dsragent.cc:89 NEW_SALVAGE_LOGIC; 2424-2438 undeliverablePkt (stickPacketInSendBuffer), 1529-1546 getRouteForPacket (dsr_salvage_max_requests = 1, 100), 1560-1561 (dsr_salvage_allow_propagating = 0, 105; ns-2.35)",
    },
    PresetRule {
        key: "routing.dsr.reply_release_spacing_ms",
        value: "30.0",
        applies: Applies::WithRouting("dsr"),
        source: "dsr/dsragent.cc:1793-1798 acceptRouteReply (sendOutPacketWithRoute(..., delay); delay += arp_timeout, 30 ms at 124; ns-2.35)",
    },
    PresetRule {
        key: "routing.dsr.interface_queue",
        value: "\"cmu_pri_queue\"",
        applies: Applies::WithRouting("dsr"),
        source: "queue/dsr-priqueue.cc:235-289 CMUPriQueue::prq_enqueue / prq_dequeue / prq_assign_queue (PT_ACK ahead of data, 50 per class, no push-out); DSR's interface queue is one (dsr/dsragent.h:142, dsragent.cc:574; ns-2.35)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_or_quadruples_up_to_max_request_period() {
        let s = SimDuration::from_secs_f64;
        let rfc = DsrConfig::default();
        assert_eq!([1, 2, 3, 4, 5, 6, 7].map(|k| rfc.backoff(k)), [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0].map(s));
        let ns2 = DsrConfig { request_backoff: RequestBackoff::Ns2, ..Default::default() };
        assert_eq!([1, 2, 3, 20].map(|k| ns2.backoff(k)), [2.0, 8.0, 10.0, 10.0].map(s));
    }

    #[test]
    fn bad_values_name_their_key() {
        let c = DsrConfig { send_buffer_packets: 0, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.dsr.send_buffer_packets");
        let c = DsrConfig { primary_cache_paths: 0, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.dsr.primary_cache_paths");
        let c = DsrConfig { max_salvage_count: 16, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.dsr.max_salvage_count");
        let c = DsrConfig { promiscuous: false, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.dsr.gratuitous_replies");
        let c = DsrConfig { reply_release_spacing_ms: SimDuration::from_secs_f64(2.0), ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.dsr.reply_release_spacing_ms");
        let c = DsrConfig { request_period_ms: SimDuration::ZERO, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().key, "routing.dsr.request_period_ms");
        assert!(DsrConfig { route_cache_timeout_s: SimDuration::ZERO, ..Default::default() }.validate().is_ok(), "0: never");
    }
}
