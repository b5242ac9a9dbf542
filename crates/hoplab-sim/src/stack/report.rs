//! What a flow's transport adds to the report, the time series and the
//! memory count.

use super::Flow;
use crate::engine::Section;
use crate::stats::classification::LossClassification;
use crate::time::SimTime;
use crate::transport::semitcp::connection::Pacing;
use crate::transport::tcp::sender::SenderCounters;
use crate::wire::Packet;

impl Flow {
    /// The sender's retransmissions, timeouts and fast retransmits (zeros
    /// without a sender).
    pub fn sender_counters(&self) -> SenderCounters {
        match (&self.tcp, &self.semitcp) {
            (Some(c), _) => c.sender.counters,
            (_, Some(c)) => c.sender.counters,
            _ => Default::default(),
        }
    }

    /// The congestion controller's name (TCP only).
    pub fn cc_name(&self) -> Option<&'static str> {
        self.tcp.as_ref().map(|c| c.sender.cc_name())
    }

    /// When the last segment of a finite transfer was acknowledged.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.tcp.as_ref().and_then(|c| c.sender.completed_at).or_else(|| self.semitcp.as_ref().and_then(|c| c.sender.completed_at))
    }

    /// What the flow's transport and controller alone count (the report's
    /// `transport_counters`): every transport's keys, null or zero unless
    /// the flow's own.
    pub fn report_section(&self) -> Section {
        let mut section = match &self.semitcp {
            Some(c) => c.pacing.section(self.packet_bytes),
            None => Pacing::absent_section(),
        };
        section.extend(LossClassification::section(self.stats.loss_classification.as_deref()));
        section
    }

    /// Every transport's report keys (`_core.report_fields()["flows"]`).
    pub fn report_keys() -> Vec<String> {
        let mut keys: Vec<String> = Pacing::absent_section().into_keys().collect();
        keys.extend(LossClassification::section(None).into_keys());
        keys
    }

    /// The transport's own series values at a sample: TCP's window, RTT
    /// and controller variables; semi-TCP's rate and rate control.
    pub fn series_values(&self, push: &mut impl FnMut(&str, f64)) {
        if let Some(tcp) = &self.tcp {
            let state = &tcp.sender.state;
            push("cwnd_segments", state.cwnd);
            push("ssthresh_segments", state.ssthresh.min(f64::from(u32::MAX)));
            if let Some(srtt) = state.srtt {
                push("srtt_ms", srtt.as_millis_f64());
            }
            if let Some(rtt) = state.last_rtt {
                push("rtt_ms", rtt.as_millis_f64());
            }
            push("rto_ms", state.rto.as_millis_f64());
            for (name, value) in tcp.sender.cc_metrics() {
                push(&format!("cc_{name}"), value);
            }
        }
    }

    /// The rate control's series values at a sample (semi-TCP's rate and
    /// its estimates), written after the routing's rows of the flow.
    pub fn rate_series_values(&self, push: &mut impl FnMut(&str, f64)) {
        if let Some(semi) = &self.semitcp {
            if let Some(srtt_ms) = semi.sender.srtt_ms() {
                push("srtt_ms", srtt_ms);
            }
            if let Some(interval) = semi.pacing.interval() {
                push("source_rate_kbps", self.packet_bytes as f64 * 8.0 / interval.as_secs_f64() / 1e3);
            }
            if let Pacing::BinarySearch(rc) = &semi.pacing {
                push("rate_control_step", rc.phase.step() as f64);
                push("apr_estimate", rc.apr_estimate());
                push("mst_estimate_ms", rc.mst_estimate_s() * 1e3);
            }
            if let Pacing::Matcp(rc) = &semi.pacing {
                // matcp: its state (1-4), the last sample's RTS/DATA
                // ratio, the smallest MAC sending time so far.
                push("rate_control_step", rc.state.step() as f64);
                push("apr_estimate", rc.last_ratio);
                if rc.min_mst_s.is_finite() {
                    push("mst_estimate_ms", rc.min_mst_s * 1e3);
                }
            }
        }
    }

    /// Records the transport keeps (memory accounting): TCP's
    /// retransmission records and out-of-order runs, semi-TCP's
    /// outstanding segments.
    pub fn records(&self) -> u64 {
        let tcp = self.tcp.as_ref().map_or(0, |c| c.sender.records_kept() + c.receiver.out_of_order_runs());
        let semi = self.semitcp.as_ref().map_or(0, |c| c.sender.outstanding_segments() + c.receiver.out_of_order_runs());
        (tcp + semi) as u64
    }

    /// Packets the transport holds back (a semi-TCP sink's ACKs).
    pub fn held(&self) -> impl Iterator<Item = &Packet> {
        self.held_acks.iter().flat_map(|q| q.iter())
    }
}
