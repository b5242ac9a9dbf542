//! `[mac]`: the DCF's parameters.

use crate::config::{at_least, packets, positive, ConfigError};
use crate::config::{Applies, PresetRule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[mac]`: the DCF of every node (IEEE 802.11-2016 clause 10.3); defaults
/// are the DSSS PHY's values, as ns-2 uses them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MacConfig {
    /// RTS/CTS precedes a unicast DATA frame whose MPDU is longer than this;
    /// 0 means every unicast DATA frame (dot11RTSThreshold).
    pub rts_threshold_bytes: u32,
    /// dot11ShortRetryLimit: attempts of an RTS (or of a frame sent without RTS).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: attempts of a DATA frame sent after a CTS.
    pub long_retry_limit: u32,
    /// Interface queue capacity, packets (drop-tail).
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, { crate::config::MAX_PACKETS }>")]
    pub queue_packets: u32,
    /// Slot time, microseconds (DSSS: 20); DIFS is SIFS + 2 slots.
    pub slot_us: f64,
    /// SIFS, microseconds (DSSS: 10).
    pub sifs_us: f64,
    /// aCWmin, slots: the contention window of a first attempt, 2^k - 1
    /// (DSSS: 31).
    pub cw_min: u32,
    /// aCWmax, slots: the window doubles per retry up to this, 2^k - 1 and
    /// >= `cw_min` (DSSS: 1023).
    pub cw_max: u32,
    /// Answer an RTS with a CTS even while the NAV is set. Off by default:
    /// IEEE 802.11-2016 10.3.2.6 sends the CTS only "if the NAV at the STA
    /// receiving the RTS frame indicates that the medium is idle". This is
    /// not ns-2's behaviour: ns-2's `Mac802_11::recvRTS` ignores the NAV when
    /// the RTS arrives, but checks it SIFS later, before the CTS goes out
    /// (`check_pktCTRL`, mac-802_11.cc:883-893), which is
    /// `cts_check_at_sifs`. With `cts_check_at_sifs`, this key skips the NAV
    /// in that check too.
    pub cts_ignores_nav: bool,
    /// After a frame received in error (a collision, or a frame sensed but
    /// not decodable), set the NAV to EIFS from its end, as ns-2's
    /// `Mac802_11::recv_timer` does (mac-802_11.cc:1699-1711 after a
    /// collision, 1720-1723 after an error; not while the node transmits,
    /// 1691-1694); the countdown then resumes DIFS after the NAV
    /// (`navHandler`, 749-756), so access waits EIFS + DIFS, and a correct
    /// frame does not end the wait. Off: IEEE 802.11-2016 10.3.2.3.7, access
    /// waits EIFS instead of DIFS, and a correctly received frame ends that.
    pub eifs_sets_nav: bool,
    /// Decide the answer to an RTS SIFS after it ended, as ns-2 does: when
    /// the RTS arrives, `Mac802_11::recvRTS` (mac-802_11.cc:1816-1842) only
    /// checks that the node is in no exchange and has no response pending;
    /// SIFS later `check_pktCTRL` (883-896) sends the CTS only if the medium
    /// is idle (the PHY neither receiving nor sending, the NAV expired) and
    /// takes semi-TCP's refusal decision then. Off: the answer is decided
    /// when the RTS ends (NAV checked then, 10.3.2.6) and sent SIFS later
    /// whatever the medium does meanwhile.
    pub cts_check_at_sifs: bool,
    /// A packet reaching an idle MAC with no backoff pending goes out at
    /// the first slot boundary after DIFS (immediate access, 10.3.4.2).
    /// Off, as ns-2's `Mac802_11::send` (mac-802_11.cc:1547-1563): it waits
    /// DIFS from its arrival and then (random mod CW) slots.
    pub immediate_access: bool,
    /// The wait of a packet that found the MAC idle (DIFS, with the slots
    /// of `immediate_access = false`) is not frozen by a busy medium: ns-2
    /// runs it on its defer timer, and if the medium is busy when it ends,
    /// the window doubles and a backoff is drawn, without a failed attempt
    /// (`check_pktRTS` 1028-1031, `check_pktTx` 1080-1084). Off: the wait
    /// is a backoff like any other, frozen while the medium is busy.
    pub busy_doubles_cw: bool,
    /// Delay of the link layer between routing and the 802.11 MAC, each
    /// way (a packet handed down reaches the interface queue this much
    /// later; a packet received goes up this much later), microseconds.
    /// ns-2's `LL` schedules both with its `delay_` (mac/ll.cc:228, 241),
    /// 25 us by default (`LL set delay_ 25us`, tcl/lib/ns-default.tcl).
    /// Default 0: the standard has no such delay.
    pub ll_delay_us: f64,
    /// Address resolution between the link layer and the interface queue.
    /// `"off"` (default): next hops are known, as in the standard's
    /// simulators with a filled neighbour cache. `"ns2"`: ns-2.35's
    /// `ARPTable` (mac/arp.cc, `net/arp.rs`): every unicast packet is
    /// resolved against its next hop (mac/ll.cc:190-205); the first to an
    /// unknown neighbour is held while a 28-byte broadcast request goes
    /// out; one packet is held per neighbour (a newer one replaces it,
    /// dropped `arp_unresolved`); after 3 requests the next packet ends the
    /// attempt (the held and new packets go to routing's link-failure
    /// handler, or are dropped); entries never expire. `preset = "ns2"`
    /// sets it with AODV and DSR. With static routes it stays off (a
    /// simplification: they stand for routes already found, and ns-2's
    /// discovery resolves each hop as its reply comes back by unicast);
    /// set by hand there with a semi-TCP source pulled by its MAC it is
    /// refused, as ARP's one-packet hold would drop the source's first
    /// segments and no routing agent would pull it again.
    #[serde(skip_serializing_if = "ArpMode::is_off")]
    pub arp: ArpMode,
}

/// `mac.arp`: whether next hops are resolved by ARP, and whose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum ArpMode {
    /// No address resolution: a packet goes to the interface queue at once.
    #[default]
    Off,
    /// ns-2.35's `ARPTable` (mac/arp.cc:121-346).
    Ns2,
}

impl ArpMode {
    /// Left out of the normalised scenario when off, so that scenarios
    /// without it keep their `config_hash`.
    pub fn is_off(&self) -> bool {
        *self == ArpMode::Off
    }
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
            eifs_sets_nav: false,
            cts_check_at_sifs: false,
            immediate_access: true,
            busy_doubles_cw: false,
            ll_delay_us: 0.0,
            arp: ArpMode::Off,
        }
    }
}

impl MacConfig {
    /// Range checks; errors name `mac.<key>`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        at_least("mac.short_retry_limit", self.short_retry_limit, 1)?;
        at_least("mac.long_retry_limit", self.long_retry_limit, 1)?;
        packets("mac.queue_packets", self.queue_packets)?;
        positive("mac.slot_us", self.slot_us)?;
        positive("mac.sifs_us", self.sifs_us)?;
        if !(self.ll_delay_us >= 0.0 && self.ll_delay_us.is_finite()) {
            return Err(ConfigError::new("mac.ll_delay_us", format!("must be >= 0, got {}", self.ll_delay_us)));
        }
        if !(self.cw_min >= 1 && (self.cw_min + 1).is_power_of_two()) {
            return Err(ConfigError::new("mac.cw_min", format!("must be 2^k - 1 (e.g. 15, 31), got {}", self.cw_min)));
        }
        if !(self.cw_max >= self.cw_min && (self.cw_max + 1).is_power_of_two()) {
            return Err(ConfigError::new("mac.cw_max", format!("must be 2^k - 1 and >= cw_min ({}), got {}", self.cw_min, self.cw_max)));
        }
        Ok(())
    }
}

/// Where ns-2.35 resolves next hops (the `mac.arp` rules below).
const NS2_ARP_SOURCE: &str = "mac/ll.cc:190-205 LL::sendDown (arptable_->arpresolve for every unicast next hop), mac/arp.cc:121-346 ARPTable::arpresolve / arprequest / arpinput (ns-2.35)";

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`, in the order of its
/// sources; `hoplab presets`). Each cites the ns-2 file and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[
    // MAC (mac-802_11.cc)
    PresetRule {
        key: "mac.eifs_sets_nav",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1699-1723 Mac802_11::recv_timer (set_nav(EIFS) after a collision or an error)",
    },
    PresetRule {
        key: "mac.cts_check_at_sifs",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:883-896 Mac802_11::check_pktCTRL (is_idle() and refuse() SIFS after the RTS; recvRTS 1816-1842)",
    },
    PresetRule {
        key: "mac.immediate_access",
        value: "false",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1547-1563 Mac802_11::send (idle medium: mhDefer_ DIFS + (Random::random() % cw_) slots)",
    },
    PresetRule {
        key: "mac.busy_doubles_cw",
        value: "true",
        applies: Applies::Always,
        source: "mac/mac-802_11.cc:1028-1031 Mac802_11::check_pktRTS, 1080-1084 check_pktTx (busy when the defer ends: inc_cw(), mhBackoff_.start)",
    },
    PresetRule {
        key: "mac.ll_delay_us",
        value: "25.0",
        applies: Applies::Always,
        source: "mac/ll.cc:228 LL::sendDown, 241 LL::sendUp (s.schedule(target, p, delay_)); LL set delay_ 25us in ns-2.29's tcl/lib/ns-default.tcl",
    },
    // ns-2's ARP with the routing protocols that find routes on the air.
    // Left out with static routes, a simplification of hoplab's (ns-2 runs
    // ARP under any routing agent): static routes stand for routes already
    // found, and in ns-2 finding a route resolves its hops, the reply
    // travelling back hop by hop as unicast (aodv/aodv.cc:1186
    // AODV::sendReply, dsr/dsragent.cc:1628 returnSrcRouteToRequestor), each
    // hop through arpresolve, ARP learning both ends of the exchange
    // (mac/arp.cc:268-279), entries never expiring.
    PresetRule { key: "mac.arp", value: "\"ns2\"", applies: Applies::WithRouting("aodv"), source: NS2_ARP_SOURCE },
    PresetRule { key: "mac.arp", value: "\"ns2\"", applies: Applies::WithRouting("dsr"), source: NS2_ARP_SOURCE },
];
