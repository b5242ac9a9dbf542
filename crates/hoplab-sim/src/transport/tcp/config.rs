//! `[tcp]`: the TCP parameters of every TCP flow (and the RTO settings
//! semi-TCP's transport uses). Defaults are the papers' ns-2 settings
//! (docs/network-model.md) unless noted.

use crate::config::{at_least, packets, positive_duration, ConfigError};
use crate::config::{Applies, PresetRule};
use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[tcp]`: the settings of every TCP flow (semi-TCP's transport uses the
/// RTO settings). Defaults are ns-2's, as the papers ran it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Initial congestion window, segments (ns-2 windowInit_ = 2).
    pub initial_cwnd_segments: f64,
    /// Receiver's advertised window, segments (ns-2 window_ = 20).
    #[serde(deserialize_with = "crate::config::u32_in::<_, 1, { crate::config::MAX_PACKETS }>")]
    pub rwnd_segments: u32,
    /// Minimum retransmission timeout, milliseconds (200 as Linux and
    /// ns-2's minrto_; RFC 6298 says 1 s).
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub min_rto_ms: SimDuration,
    /// Retransmission timeout before the first RTT sample, milliseconds
    /// (RFC 6298 2.1: 1 s).
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub initial_rto_ms: SimDuration,
    /// Maximum retransmission timeout, milliseconds (RFC 6298 2.5: at
    /// least 60 s); the backoff doubles the RTO up to it.
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub max_rto_ms: SimDuration,
    /// Clock granularity G of the RTO computation, milliseconds (ns-2
    /// tcpTick_ = 10 ms).
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub clock_granularity_ms: SimDuration,
    /// Delayed ACKs (RFC 5681 4.2). Off by default: ns-2's TCPSink
    /// acknowledges every segment.
    pub delayed_ack: bool,
    /// Delayed-ACK timer, milliseconds (ns-2 DelAckSink interval_ = 100;
    /// RFC 5681: < 500 ms). With `delayed_ack`.
    #[serde(with = "crate::config::millis")]
    #[schemars(schema_with = "crate::config::millis::schema")]
    pub delayed_ack_ms: SimDuration,
    /// With `delayed_ack`: acknowledge at least every this many in-order
    /// segments (RFC 5681: 2).
    pub delayed_ack_segments: u32,
    /// RFC 3042 limited transmit: the first two duplicate ACKs each send a
    /// new segment.
    pub limited_transmit: bool,
    /// Three-way handshake before data (off: the papers' FTP flows start
    /// with data, as ns-2's one-way agents).
    pub handshake: bool,
    /// Selective acknowledgements (RFC 2018) and SACK-based loss recovery
    /// (RFC 6675). Off by default: ns-2's TCP/Newreno agent has none
    /// (seed 004's ns-2 TCP-Linux runs with SACK).
    pub sack: bool,
    /// How a cumulative ACK that covers several new segments grows cwnd.
    /// `"per_ack"` (default): once, as one segment acknowledged: slow start
    /// adds at most one segment per ACK (RFC 5681 3.1, "at most SMSS
    /// bytes"), congestion avoidance 1/cwnd per ACK (RFC 5681 eq. 3); ns-2's
    /// `TcpAgent::opencwnd` (tcp/tcp.cc) and ns-3's `TcpNewReno` do this, as
    /// did Linux 2.6 (the kernel behind ns-2's TCP-Linux). `"per_segment_acked"`:
    /// by every segment the ACK covers (RFC 3465 byte counting with no
    /// limit, Linux since 3.9's `tcp_slow_start(tp, acked)`).
    pub cwnd_growth: CwndGrowth,
    /// With `sack`: a segment retransmitted in SACK recovery counts as lost
    /// again once a segment first sent after that retransmission is
    /// SACKed, and is resent (Linux's lost-retransmission detection,
    /// `tcp_sacktag_write_queue`'s `lost_retrans` in 2.6; ns-2.35's
    /// TCP-Linux scoreboard, tcp/scoreboard1.cc:213-223). Off: RFC 6675,
    /// whose NextSeg never resends a segment twice in one recovery
    /// (HighRxt), so a lost retransmission waits for the timeout.
    pub sack_lost_retransmit: bool,
    /// With `sack`: a timeout keeps the SACKed marks and resends only the
    /// segments not SACKed (Linux: the scoreboard is cleared only on SACK
    /// reneging; ns-2.35's TCP-Linux, tcp/tcp-linux.cc:551 `MarkLoss`).
    /// Off: RFC 2018 section 8, the marks are cleared (ns-2's Sack1 agent).
    pub sack_kept_after_rto: bool,
    /// Every ACK that is not older than the cumulative ACK, duplicates
    /// included, restarts the retransmission timer (ns-2.35's TCP-Linux,
    /// tcp/tcp-linux.cc:168 and 226 `renew_timer` in `time_processing`,
    /// run for every ACK). Off: RFC 6298 5.3, only an ACK of new data.
    pub rto_restart_on_every_ack: bool,
    /// With `sack`: ns-2.35 TCP-Linux's rate-halving recovery in place of
    /// RFC 6675's window. On entry the window is the controller's
    /// `min_cwnd` (Linux 2.6: ssthresh / 2 for Reno, Scalable and Vegas,
    /// ssthresh for BIC), and a bound that starts at the old cwnd lets one
    /// segment out per two ACKs down to it (tcp/tcp-linux.cc:483-507
    /// `tcp_fastretrans_alert`, 607-674 `send_much`); at the end cwnd =
    /// ssthresh, moderated to the flight + 3 (`tcp_moderate_cwnd`,
    /// 442-446, 460-471). Off: RFC 6675, cwnd = ssthresh throughout.
    pub sack_rate_halving: bool,
    /// Which RTT samples feed SRTT and the RTO. `"karn"` (default): every
    /// ACK of new data whose newest segment was never resent (RFC 6298
    /// section 3, Karn's algorithm). `"ns2"`: ns-2's `TcpAgent` timing,
    /// one segment per round: the first transmission of a new highest
    /// segment starts a measurement when none runs (tcp/tcp.cc:788-797),
    /// the first ACK at or beyond it ends it (tcp/tcp-linux.cc:210-223;
    /// tcp.cc:1407-1419), even if a hole or a retransmission of the timed
    /// segment delayed that ACK (no Karn test), and only a timeout cancels
    /// it (`reset_rtx_timer`, tcp.cc:983). The controllers' per-ACK RTT
    /// samples are the same under both.
    pub rtt_timing: RttTiming,
    /// The window a loss halves, as the controller reads it
    /// (`TcpState::segments_in_flight` at a loss). `"flight_size"`
    /// (default): RFC 5681 eq. 4's FlightSize, the segments outstanding.
    /// `"cwnd"`: ns-2's `TcpAgent::slowdown`, which halves `window()` =
    /// min(cwnd_, wnd_) in whole segments (tcp/tcp.cc:903-918, 1265, 1300-1301),
    /// where NewReno's `cwnd_` leaves out fast recovery's inflation (that
    /// is `dupwnd_`, tcp/tcp-newreno.cc:148-152, 258-266): in recovery the
    /// window is ssthresh. `"pipe"` (with `sack`): ns-3's, RFC 6675's pipe
    /// (segments neither SACKed nor lost, plus those resent), and a timeout
    /// while the sender is already in the timeout's loss state keeps
    /// ssthresh (ns-3 3.44 src/internet/model/tcp-socket-base.cc:1715-1717
    /// EnterRecovery, 3916, 3961-3964 ReTxTimeout: `GetSsThresh(tcb,
    /// BytesInFlight())`, skipped in CA_LOSS once the head is resent;
    /// tcp-tx-buffer.cc:1054-1073 BytesInFlight). Controllers whose
    /// ssthresh reads cwnd already are unchanged.
    pub ssthresh_from: SsthreshFrom,
    /// Slow start also when cwnd equals ssthresh, one segment per ACK
    /// while cwnd <= ssthresh, so it ends at ssthresh + 1: Linux 2.6.22's
    /// modules, which ns-2.35's TCP-Linux runs, test `snd_cwnd <=
    /// snd_ssthresh` (tcp/linux/src/tcp_cong.c:341 Reno, tcp_scalable.c:32,
    /// tcp_bic.c:153, tcp_cubic.c:287, tcp_veno.c:151, tcp_vegas.c:270,
    /// 335) and `tcp_slow_start` adds a segment per ACK with
    /// `sysctl_tcp_abc = 1` (tcp_cong.c:286-318, ns-linux-param.c:20). After
    /// every recovery, which ends at cwnd = ssthresh (tcp/tcp-linux.cc:
    /// 464-468), the window so gains one segment more. Off: RFC 5681 3.1,
    /// slow start while cwnd < ssthresh (at equality the RFC allows
    /// either).
    pub slow_start_at_ssthresh: bool,
    /// ssthresh, and the rate-halving recovery's floor (`min_cwnd`), in
    /// whole segments, computed from the whole segments of cwnd: Linux's
    /// `snd_cwnd` and `snd_ssthresh` are u32 segment counts (ns-2.35
    /// tcp/linux/ns-linux-util.h:271-272) and every 2.6.22 module's
    /// ssthresh truncates (`tcp_reno_ssthresh` cwnd >> 1, tcp_cong.c:
    /// 367-371; `tcp_reno_min_cwnd` ssthresh / 2, 375-379; tcp_bic.c:
    /// 193-195; tcp_cubic.c:321; tcp_veno.c:202-205; tcp_westwood.c:222).
    /// The controller's ssthresh is computed from floor(cwnd) and
    /// truncated. Off: real-valued (RFC 5681 counts bytes).
    pub whole_segment_ssthresh: bool,
    /// With `sack`: FACK loss marking, ns-2.35 TCP-Linux's scoreboard. A
    /// segment not SACKed is lost once a segment DupThresh + 1 (4) above it
    /// is SACKed, whatever lies between (`lost_seq_threshold = fack_ -
    /// (dupack_threshold + 1)`, tcp/scoreboard1.cc:168, 223-235), and
    /// recovery starts when the scoreboard marks a loss, on a duplicate ACK
    /// or on a new one that SACKs data (`FLAG_DATA_LOST` in
    /// `tcp_fastretrans_alert`, tcp/tcp-linux.cc:360, 411-415, 483;
    /// `FLAG_CA_ALERT`, tcp/linux/ns-linux-util.h:363); duplicates are not
    /// counted. A single loss so waits for the fourth duplicate, a burst of
    /// k losses for the 4 - k-th, and segments overtaken by 4 are resent.
    /// Off: RFC 6675, IsLost (DupThresh segments SACKed above) or DupThresh
    /// duplicate ACKs.
    pub fack_loss_marking: bool,
    /// With `sack`: outside recovery too, the window bounds the segments
    /// in flight counted from the scoreboard (neither SACKed nor lost), not
    /// all those sent and unacknowledged, so each SACKed segment lets a new
    /// one out before recovery starts: ns-2.35 TCP-Linux's `send_much`
    /// sends while `packets_in_flight() < max(win, next_pkts_in_flight_)`
    /// in every state (tcp/tcp-linux.cc:607-627), with `packets_in_flight
    /// = snd_nxt - snd_una - fack_out_ - sack_out_` (tcp/scoreboard1.h:162).
    /// Off: RFC 5681, new data only within cwnd of snd_una until recovery
    /// (RFC 3042's two segments with `limited_transmit`).
    pub sack_pipe_outside_recovery: bool,
    /// The first segment (sequence 0) carries no payload, only the 40-byte
    /// TCP/IP header, and is otherwise an ordinary segment: windowed, timed
    /// (so the first RTT sample is a header's), acknowledged and resent
    /// like the others; the data follow it, so a file takes one segment
    /// more. ns-2.35's one-way agents model the SYN this way (`syn_`, on
    /// by default: tcl/lib/ns-default.tcl:937; `TcpAgent::output` sends
    /// `seqno == 0` with `databytes = 0` and size `tcpip_base_hdr_size_`,
    /// and adds one to `curseq_`, tcp/tcp.cc:710-716), NewReno and
    /// TCP-Linux alike. Off: every segment carries `packet_bytes`. TCP
    /// flows only: semi-TCP's sender does not read it, although ns-2.29's
    /// semi-TCP agent sends its segment 0 the same way (tcp/semitcp.cc:98-104
    /// of musicinthedark/semitcp; a known difference, docs/fidelity.md).
    /// `preset = "ns2"` sets it without `tcp.handshake`, whose SYN is the
    /// SYN.
    pub first_segment_header_only: bool,
}

/// `tcp.ssthresh_from`: which window a loss halves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// FlightSize (RFC 5681 eq. 4).
    FlightSize,
    /// The congestion window without recovery's inflation, capped by the
    /// receiver's (ns-2).
    Cwnd,
    /// RFC 6675's pipe, not lowered again by a timeout in the loss state
    /// (ns-3).
    Pipe,
}

/// `tcp.rtt_timing`: which RTT samples the RTO estimator takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttTiming {
    /// Every ACK of a never-resent segment (RFC 6298, Karn).
    Karn,
    /// ns-2's one timed segment per round, without Karn's test.
    Ns2,
}

/// `tcp.cwnd_growth`: what one cumulative ACK counts for when cwnd grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CwndGrowth {
    /// One acknowledgement, whatever it covers (RFC 5681, ns-2, ns-3).
    PerAck,
    /// Every segment it covers (RFC 3465 with no limit, Linux >= 3.9).
    PerSegmentAcked,
}

impl CwndGrowth {
    /// The count the congestion controller grows cwnd by for an ACK that
    /// newly covers `segments_acked` segments.
    pub fn growth_segments(self, segments_acked: u32) -> u32 {
        match self {
            CwndGrowth::PerAck => segments_acked.min(1),
            CwndGrowth::PerSegmentAcked => segments_acked,
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            initial_cwnd_segments: 2.0,
            rwnd_segments: 20,
            min_rto_ms: SimDuration::from_millis_f64(200.0),
            initial_rto_ms: SimDuration::from_millis_f64(1000.0),
            max_rto_ms: SimDuration::from_millis_f64(60_000.0),
            clock_granularity_ms: SimDuration::from_millis_f64(10.0),
            delayed_ack: false,
            delayed_ack_ms: SimDuration::from_millis_f64(100.0),
            delayed_ack_segments: 2,
            limited_transmit: false,
            handshake: false,
            sack: false,
            cwnd_growth: CwndGrowth::PerAck,
            sack_lost_retransmit: false,
            sack_kept_after_rto: false,
            rto_restart_on_every_ack: false,
            sack_rate_halving: false,
            rtt_timing: RttTiming::Karn,
            ssthresh_from: SsthreshFrom::FlightSize,
            slow_start_at_ssthresh: false,
            whole_segment_ssthresh: false,
            fack_loss_marking: false,
            sack_pipe_outside_recovery: false,
            first_segment_header_only: false,
        }
    }
}

impl TcpConfig {
    /// Range checks; errors name `tcp.<key>`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.initial_cwnd_segments >= 1.0 && self.initial_cwnd_segments.is_finite()) {
            return Err(ConfigError::new("tcp.initial_cwnd_segments", "must be at least 1"));
        }
        packets("tcp.rwnd_segments", self.rwnd_segments)?;
        positive_duration("tcp.initial_rto_ms", self.initial_rto_ms)?;
        positive_duration("tcp.max_rto_ms", self.max_rto_ms)?;
        if self.max_rto_ms < self.min_rto_ms {
            return Err(ConfigError::new("tcp.max_rto_ms", format!("must be >= min_rto_ms ({})", self.min_rto_ms.as_millis_f64())));
        }
        positive_duration("tcp.delayed_ack_ms", self.delayed_ack_ms)?;
        at_least("tcp.delayed_ack_segments", self.delayed_ack_segments, 1)?;
        Ok(())
    }
}

/// ns-2's behaviour for these keys: the rules `preset = "ns2"` applies
/// (gathered in `scenario::preset::NS2_RULES`, in the order of its
/// sources; `hoplab presets`). Each cites the ns-2 file and line it mirrors.
pub const NS2_RULES: &[PresetRule] = &[
    // TCP with SACK: ns-2.35's TCP-Linux (tcp/tcp-linux.cc, tcp/scoreboard1.cc;
    // GitHub hbatmit/ns2.35), docs/tcp-linux-parity.md.
    PresetRule {
        key: "tcp.sack_lost_retransmit",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/scoreboard1.cc:213-223 ScoreBoard1::UpdateScoreBoard (a retransmission is lost again once fack_ >= the snd_nxt of its retransmission; marked LOST, resent by tcp/tcp-linux.cc:607-674 send_much; ns-2.35)",
    },
    PresetRule {
        key: "tcp.sack_kept_after_rto",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp-linux.cc:548-551 LinuxTcpAgent::enter_loss (scb_->MarkLoss: every segment not SACKed is lost, the SACKed marks stay; ns-2.35)",
    },
    PresetRule {
        key: "tcp.rto_restart_on_every_ack",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp-linux.cc:168, 226 LinuxTcpAgent::time_processing (renew_timer: set_rtx_timer() on every ACK not below snd_una, duplicates included; ns-2.35)",
    },
    PresetRule {
        key: "tcp.sack_rate_halving",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp-linux.cc:483-507 LinuxTcpAgent::tcp_fastretrans_alert (next_pkts_in_flight_ = snd_cwnd, snd_cwnd = min_cwnd), 629, 653 send_much (the bound falls toward the flight), 460-471 and 442-446 (exit: ssthresh, tcp_moderate_cwnd to the flight + 3; ns-2.35)",
    },
    PresetRule {
        key: "tcp.ssthresh_from",
        value: "\"cwnd\"",
        applies: Applies::Always,
        source: "tcp/tcp.cc:1265, 1300-1301 TcpAgent::slowdown (ssthresh_ = window() / 2), 903-918 window() = min(cwnd_, wnd_); tcp/tcp-newreno.cc:148-152 (fast recovery's inflation is dupwnd_, not cwnd_; ns-2.35)",
    },
    PresetRule {
        key: "tcp.rtt_timing",
        value: "\"ns2\"",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp.cc:788-797 TcpAgent::output (a new highest segment is timed when none is), tcp/tcp-linux.cc:210-223 LinuxTcpAgent::time_processing (the first ACK at or beyond it ends the measurement, no Karn test), tcp/tcp.cc:983 reset_rtx_timer (a timeout cancels it; ns-2.35)",
    },
    PresetRule {
        key: "tcp.slow_start_at_ssthresh",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/linux/src/tcp_cong.c:341 tcp_reno_cong_avoid, tcp_scalable.c:32, tcp_bic.c:153, tcp_cubic.c:287, tcp_veno.c:151, tcp_vegas.c:270, 335 (slow start while snd_cwnd <= snd_ssthresh), tcp_cong.c:286-318 tcp_slow_start (one segment per ACK with sysctl_tcp_abc = 1, tcp/linux/ns-linux-param.c:20), after a recovery that ends at snd_cwnd = snd_ssthresh (tcp/tcp-linux.cc:464-468; ns-2.35)",
    },
    PresetRule {
        key: "tcp.whole_segment_ssthresh",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/linux/ns-linux-util.h:271-272 (u32 snd_ssthresh, snd_cwnd), tcp/linux/src/tcp_cong.c:367-379 tcp_reno_ssthresh (cwnd >> 1), tcp_reno_min_cwnd (ssthresh / 2), tcp_bic.c:193-195, tcp_cubic.c:321, tcp_veno.c:202-205, tcp_scalable.c:47, tcp_westwood.c:222, set at tcp/tcp-linux.cc:494-501, 529 (ns-2.35)",
    },
    PresetRule {
        key: "tcp.fack_loss_marking",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/scoreboard1.cc:168, 223-235 ScoreBoard1::UpdateScoreBoard (a segment in flight at or below fack_ - (dupack_threshold + 1) is LOST), tcp/tcp-linux.cc:360, 411-415, 479-483 (recovery on FLAG_DATA_LOST from an ACK that is a duplicate or SACKs data, no duplicate count; ns-2.35)",
    },
    PresetRule {
        key: "tcp.sack_pipe_outside_recovery",
        value: "true",
        applies: Applies::WithTcpSack,
        source: "tcp/tcp-linux.cc:607-627 LinuxTcpAgent::send_much (sends while packets_in_flight() < max(window(), next_pkts_in_flight_) in every state), tcp/scoreboard1.h:162 (packets_in_flight = snd_nxt - snd_una - fack_out_ - sack_out_; ns-2.35)",
    },
    // Every ns-2.35 TcpAgent (Agent/TCP/Newreno and Agent/TCP/Linux alike).
    PresetRule {
        key: "tcp.first_segment_header_only",
        value: "true",
        applies: Applies::WithoutTcpHandshake,
        source: "tcp/tcp.cc:710-716 TcpAgent::output (seqno 0 with syn_: databytes = 0, size tcpip_base_hdr_size_ = 40, curseq_ += 1), tcl/lib/ns-default.tcl:937 (Agent/TCP set syn_ true), 952 (tcpip_base_hdr_size_ 40; ns-2.35)",
    },
];
