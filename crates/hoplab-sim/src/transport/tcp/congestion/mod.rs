//! Pluggable congestion control, in the shape of Linux's
//! `tcp_congestion_ops` and ns-3's `TcpCongestionOps` (docs/architecture.md,
//! "The traits").
//!
//! The socket owns the state ([`TcpState`]: cwnd, ssthresh, RTT estimates,
//! congestion state); a controller decides how cwnd and ssthresh change
//! through the small [`CongestionControl`] trait, whose hooks all have
//! default bodies (Reno's behaviour), so a simple algorithm overrides one or
//! two. Fast retransmit and NewReno recovery live in the socket, not here.
//!
//! Windows are in segments (f64), as the papers state their rules
//! (`cwnd += 0.01` per ACK for Scalable TCP, `alpha / cwnd` for FeW).
//!
//! **Adding a controller**: one new file in this folder with a serde config
//! struct (its parameters, `Default` citing every default, deriving
//! `JsonSchema` under the name `<Controller>Params`) and an `impl
//! CongestionControl` built `From` its config, plus one line in
//! `congestion_controllers!` below (its variant of [`CcConfig`], its name,
//! its config and controller types). A config with range checks adds its
//! arm to [`CcConfig::validate`]; a receiver-aided scheme (TCP-RA) returns
//! its receiver's half from [`CcConfig::receiver_aid`].

pub mod afw;
pub mod bic;
pub mod cubic;
pub mod few;
pub mod newreno;
pub mod scalable;
pub mod tcp_ra;
#[cfg(test)]
pub mod test_sender;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod westwood_br;
pub mod westwood_linux;
pub mod westwood_plus;

use crate::config::{parse_at, ConfigError};
use crate::time::{SimDuration, SimTime};

/// Congestion state of the sender (Linux `tcp_ca_state`, ns-3
/// `TcpCongState_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CongState {
    /// Normal operation.
    Open,
    /// Duplicate ACKs seen, below the fast-retransmit threshold.
    Disorder,
    /// Fast recovery after a fast retransmit (RFC 6582).
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

/// What triggered a window reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossKind {
    /// Duplicate ACKs reached the threshold: fast retransmit.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
}

/// Events the controller may want to know of (ns-3 `TcpCAEvent_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CwndEvent {
    /// A retransmission timeout happened at this cwnd (before reduction).
    Timeout,
    /// Fast recovery ended with a full ACK.
    RecoveryComplete,
}

pub use crate::wire::tcp::LossHint;

/// What a controller sees of the connection. The socket updates it before
/// each hook; controllers change `cwnd` (and nothing else) in
/// `increase_window` / `cwnd_event`. The exception is Vegas, which also
/// lowers `ssthresh` in `increase_window` to leave slow start, as Linux's
/// `tcp_vegas.c` does; the socket must read `ssthresh` afresh.
#[derive(Debug, Clone)]
pub struct TcpState {
    pub now: SimTime,
    /// Congestion window, segments.
    pub cwnd: f64,
    /// Slow-start threshold, segments.
    pub ssthresh: f64,
    /// Receiver's advertised window, segments.
    pub rwnd: f64,
    pub mss_bytes: u32,
    /// Segments sent and not yet cumulatively acknowledged.
    pub segments_in_flight: u32,
    /// Smoothed RTT (RFC 6298), once sampled.
    pub srtt: Option<SimDuration>,
    /// Smallest RTT sample so far.
    pub min_rtt: Option<SimDuration>,
    /// Largest RTT sample so far.
    pub max_rtt: Option<SimDuration>,
    /// Latest RTT sample.
    pub last_rtt: Option<SimDuration>,
    /// Current retransmission timeout.
    pub rto: SimDuration,
    pub cong_state: CongState,
    /// The receiver's classification of the latest loss, if it gave one.
    pub loss_hint: Option<LossHint>,
    /// `tcp.slow_start_at_ssthresh`: slow start also at cwnd == ssthresh,
    /// one segment per ACK up to ssthresh + 1, as Linux 2.6.22's modules
    /// (`snd_cwnd <= snd_ssthresh`) run in ns-2.35's TCP-Linux.
    pub slow_start_at_ssthresh: bool,
}

impl TcpState {
    /// A fresh connection's state (RFC 5681 3.1: IW, ssthresh arbitrarily high).
    pub fn new(initial_cwnd: f64, rwnd: f64, mss_bytes: u32, rto: SimDuration) -> TcpState {
        TcpState {
            now: SimTime::ZERO,
            cwnd: initial_cwnd,
            ssthresh: f64::from(u32::MAX),
            rwnd,
            mss_bytes,
            segments_in_flight: 0,
            srtt: None,
            min_rtt: None,
            max_rtt: None,
            last_rtt: None,
            rto,
            cong_state: CongState::Open,
            loss_hint: None,
            slow_start_at_ssthresh: false,
        }
    }

    /// RFC 5681 3.1: slow start while cwnd < ssthresh (at cwnd ==
    /// ssthresh either may be used: with `slow_start_at_ssthresh`, slow
    /// start).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh || (self.slow_start_at_ssthresh && self.cwnd <= self.ssthresh)
    }
}

/// A congestion controller. Every hook has Reno's behaviour by default.
pub trait CongestionControl: Send {
    /// The name used in scenario files (`cc = "..."`).
    fn name(&self) -> &'static str;

    /// The connection starts (before the first segment).
    fn init(&mut self, _state: &mut TcpState) {}

    /// The new ssthresh after a loss; returns it, does not mutate (RFC 5681
    /// eq. 4: max(FlightSize / 2, 2)).
    fn ssthresh(&self, state: &TcpState, _loss: LossKind) -> f64 {
        (state.segments_in_flight as f64 / 2.0).max(2.0)
    }

    /// cwnd on entering fast recovery, before the socket adds the three
    /// duplicate ACKs' inflation (RFC 6582 3.2 step 2: ssthresh).
    fn cwnd_after_fast_retransmit(&self, _state: &TcpState, new_ssthresh: f64) -> f64 {
        new_ssthresh
    }

    /// With `tcp.sack_rate_halving` (ns-2.35's TCP-Linux): the floor the
    /// rate-halving recovery lowers the window to, Linux 2.6's `min_cwnd`
    /// hook: `tcp_reno_min_cwnd` (ssthresh / 2) for Reno, Scalable, Vegas
    /// and HighSpeed, Westwood's bandwidth x RTTmin; a module without the
    /// hook (BIC, CUBIC, Veno) starts the recovery at ssthresh
    /// (tcp/tcp-linux.cc:498-501 in ns-2.35). Default: the window after a
    /// fast retransmit.
    fn min_cwnd(&self, state: &TcpState, new_ssthresh: f64) -> f64 {
        self.cwnd_after_fast_retransmit(state, new_ssthresh)
    }

    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    fn dupack_threshold(&self, _state: &TcpState) -> u32 {
        3
    }

    /// New data was acknowledged outside recovery: grow cwnd (RFC 5681 3.1:
    /// slow start +1 per segment up to ssthresh, then 1/cwnd per segment in
    /// congestion avoidance). `segments_acked` is what the ACK counts for
    /// under `tcp.cwnd_growth`: 1 per ACK by default (RFC 5681, ns-2), or
    /// every segment it covers; the true count reaches `pkts_acked`.
    fn increase_window(&mut self, state: &mut TcpState, segments_acked: u32) {
        reno_increase(state, segments_acked);
    }

    /// Segments were acknowledged, with an RTT sample if Karn's rule allows
    /// one. Called before `increase_window`, in recovery too.
    fn pkts_acked(&mut self, _state: &TcpState, _segments_acked: u32, _rtt: Option<SimDuration>) {}

    /// A duplicate ACK arrived (before the socket counts it toward a fast
    /// retransmit, in recovery too). TCP Westwood counts it as a segment
    /// delivered (Mascolo et al. 2001, `AckedCount`).
    fn dup_ack(&mut self, _state: &TcpState) {}

    /// The congestion state changes.
    fn state_set(&mut self, _state: &TcpState, _new_state: CongState) {}

    /// Something happened to the window.
    fn cwnd_event(&mut self, _state: &mut TcpState, _event: CwndEvent) {}

    /// Internal variables to trace (name, value), sampled into time series.
    fn metrics(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// Reno's window growth (RFC 5681 3.1), shared by controllers that keep it
/// in slow start. Returns the segments left after slow start used its share.
///
/// With `slow_start_at_ssthresh`, Linux 2.6.22's `tcp_slow_start` with
/// ns-2.35's `sysctl_tcp_abc = 1` (tcp/linux/src/tcp_cong.c:286-318,
/// tcp/linux/ns-linux-param.c:20): one segment per ACK while cwnd <=
/// ssthresh, not capped at ssthresh, so it ends at ssthresh + 1 (every
/// 2.6.22 module tests `snd_cwnd <= snd_ssthresh`: tcp_cong.c:341,
/// tcp_scalable.c:32, tcp_bic.c:153, tcp_cubic.c:287, tcp_veno.c:151,
/// tcp_vegas.c:270, 335).
pub fn reno_slow_start(state: &mut TcpState, segments_acked: u32) -> u32 {
    if state.slow_start_at_ssthresh {
        let mut left = segments_acked;
        while left > 0 && state.cwnd <= state.ssthresh {
            state.cwnd += 1.0;
            left -= 1;
        }
        return left;
    }
    let room = (state.ssthresh - state.cwnd).max(0.0);
    let used = (segments_acked as f64).min(room.ceil());
    state.cwnd = (state.cwnd + used).min(state.ssthresh.max(state.cwnd));
    segments_acked - used as u32
}

/// Reno: slow start, then cwnd += 1/cwnd per segment acked.
pub fn reno_increase(state: &mut TcpState, segments_acked: u32) {
    let mut left = segments_acked;
    if state.in_slow_start() {
        left = reno_slow_start(state, segments_acked);
    }
    for _ in 0..left {
        state.cwnd += 1.0 / state.cwnd;
    }
}

/// The registry: one line per controller, `Variant("name", its config =>
/// its controller)`. It makes [`CcConfig`], [`NAMES`] and the methods
/// that name every controller (name, parsing, parameter schema,
/// parameters, build).
macro_rules! congestion_controllers {
    ($($variant:ident($name:literal, $config:ty => $controller:ty),)*) => {
        /// A congestion controller and its parameters: what a TCP flow's `cc`
        /// (the name) and `cc_params` (the parameters, each with its default)
        /// say. Builds the controller; parses from a name (`"vegas".parse()`) with
        /// the defaults.
        #[derive(Debug, Clone, PartialEq)]
        pub enum CcConfig {
            $($variant($config),)*
        }

        /// Every controller's name, for error messages and `hoplab` listings.
        pub const NAMES: &[&str] = &[$($name),*];

        impl CcConfig {
            pub fn name(&self) -> &'static str {
                match self {
                    $(CcConfig::$variant(_) => $name,)*
                }
            }

            /// The controller `name` with `params` (a table; absent: every
            /// default). Error keys: `cc` for the name, `cc_params.<key>` for a
            /// parameter.
            pub fn from_parts(name: &str, params: Option<serde_json::Value>) -> Result<CcConfig, ConfigError> {
                let params = params.unwrap_or_else(|| serde_json::json!({}));
                let at = "cc_params";
                Ok(match name {
                    $($name => CcConfig::$variant(parse_at(params, at)?),)*
                    other => return Err(ConfigError::new("cc", format!("unknown congestion control {other:?}; allowed: {}", NAMES.join(", ")))),
                })
            }

            /// The JSON Schema of the `cc_params` of controller `name` (a reference
            /// to its definition in `generator`), or None for an unknown name.
            pub fn params_schema(name: &str, generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
                Some(match name {
                    $($name => generator.subschema_for::<$config>(),)*
                    _ => return None,
                })
            }

            /// The parameters as a table (every value, defaults included).
            pub fn params(&self) -> serde_json::Value {
                let value = match self {
                    $(CcConfig::$variant(c) => serde_json::to_value(c),)*
                };
                value.expect("controller parameters serialise")
            }

            /// A controller in its initial state.
            pub fn build(&self) -> Box<dyn CongestionControl> {
                match self.clone() {
                    $(CcConfig::$variant(c) => Box::new(<$controller>::from(c)),)*
                }
            }
        }
    };
}

congestion_controllers! {
    NewReno("newreno", newreno::Config => newreno::NewReno),
    WestwoodPlus("westwood_plus", westwood_plus::Config => westwood_plus::WestwoodPlus),
    Westwood("westwood", westwood::Config => westwood::Westwood),
    WestwoodBr("westwood_br", westwood_br::Config => westwood_br::WestwoodBr),
    Veno("veno", veno::Config => veno::Veno),
    Vegas("vegas", vegas::Config => vegas::Vegas),
    Bic("bic", bic::Config => bic::Bic),
    Cubic("cubic", cubic::Config => cubic::Cubic),
    Scalable("scalable", scalable::Config => scalable::Scalable),
    Few("few", few::Config => few::Few),
    Afw("afw", afw::Config => afw::Afw),
    TcpRa("tcp_ra", tcp_ra::Config => tcp_ra::TcpRa),
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::NewReno(newreno::Config::default())
    }
}

impl CcConfig {
    /// The receiver's half of a receiver-aided scheme (TCP-RA), if this is
    /// one.
    pub fn receiver_aid(&self) -> Option<Box<dyn crate::transport::tcp::receiver::ReceiverAid>> {
        match self {
            CcConfig::TcpRa(c) => Some(Box::new(tcp_ra::RaReceiver::new(c.clone()))),
            _ => None,
        }
    }

    /// Range checks of the parameters; `at` is the table's key
    /// (`flows[i].cc_params`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        match self {
            CcConfig::TcpRa(c) => c.validate(at),
            CcConfig::Westwood(c) => c.validate(at),
            CcConfig::WestwoodBr(c) => c.validate(at),
            _ => Ok(()),
        }
    }
}

impl std::str::FromStr for CcConfig {
    type Err = ConfigError;
    fn from_str(name: &str) -> Result<CcConfig, ConfigError> {
        CcConfig::from_parts(name, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_at_ssthresh_grows_one_segment_per_ack_to_ssthresh_plus_one() {
        // Linux 2.6.22 (ns-2.35's TCP-Linux): slow start while cwnd <=
        // ssthresh, so a window at ssthresh (where a recovery ends) gains a
        // whole segment on its next ACK, then grows as Reno above it.
        let mut state = TcpState::new(10.0, 1e9, 1000, SimDuration::from_secs_f64(1.0));
        state.ssthresh = 10.0;
        state.slow_start_at_ssthresh = true;
        assert!(state.in_slow_start());
        reno_increase(&mut state, 1);
        assert_eq!(state.cwnd, 11.0);
        reno_increase(&mut state, 1);
        assert!((state.cwnd - (11.0 + 1.0 / 11.0)).abs() < 1e-12, "{}", state.cwnd);
        // Two segments covered at 9.5: +1 to 10.5 (> ssthresh), the second
        // grows as Reno.
        state.cwnd = 9.5;
        reno_increase(&mut state, 2);
        assert!((state.cwnd - (10.5 + 1.0 / 10.5)).abs() < 1e-12, "{}", state.cwnd);
        // RFC 5681's default: at cwnd == ssthresh, congestion avoidance.
        let mut rfc = TcpState::new(10.0, 1e9, 1000, SimDuration::from_secs_f64(1.0));
        rfc.ssthresh = 10.0;
        assert!(!rfc.in_slow_start());
        reno_increase(&mut rfc, 1);
        assert_eq!(rfc.cwnd, 10.1);
    }

    #[test]
    fn every_name_builds_with_defaults_and_names_itself() {
        for name in NAMES {
            let config: CcConfig = name.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(config.name(), *name);
            assert_eq!(config.build().name(), *name);
            assert!(CcConfig::params_schema(name, &mut schemars::SchemaGenerator::default()).is_some(), "{name} has no schema");
            // An empty table is the same as none; the parameters read back.
            assert_eq!(CcConfig::from_parts(name, Some(serde_json::json!({}))).unwrap(), config);
            assert_eq!(CcConfig::from_parts(name, Some(config.params())).unwrap(), config);
        }
    }

    #[test]
    fn unknown_name_is_an_error_naming_the_key_and_the_choices() {
        let err = CcConfig::from_parts("reno2", None).err().expect("unknown name accepted");
        assert_eq!(err.key, "cc");
        assert!(err.message.contains("\"reno2\""), "{}", err.message);
        for name in NAMES {
            assert!(err.message.contains(name), "{}", err.message);
        }
    }

    #[test]
    fn unknown_parameter_is_an_error_naming_the_key_and_the_parameter() {
        for name in NAMES {
            let params = serde_json::json!({"no_such_parameter": 1});
            let err = CcConfig::from_parts(name, Some(params)).err().unwrap_or_else(|| panic!("{name} accepted it"));
            assert_eq!(err.key, "cc_params.no_such_parameter", "{name}");
        }
        // A known parameter of the wrong type is refused too, naming it.
        let err = CcConfig::from_parts("afw", Some(serde_json::json!({"at_timeout_window": "sideways"}))).err().unwrap();
        assert_eq!(err.key, "cc_params.at_timeout_window");
        assert!(err.message.contains("sideways"), "{}", err.message);
    }
}
