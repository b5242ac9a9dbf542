//! The SINR receiver of one node (`radio.reception = "sinr"`): ns-3's YANS
//! PHY for the DSSS PHY entity, for one 802.11b channel (ns-3 3.44,
//! src/wifi/model: `PhyEntity::StartReceivePreamble`,
//! `EndPreambleDetectionPeriod`, `DsssPhy::EndReceiveHeader`,
//! `EndReceivePayload`, `InterferenceHelper`,
//! `ThresholdPreambleDetectionModel`, `SimpleFrameCaptureModel`).
//!
//! Every signal the channel delivers (at or above `rx_sensitivity_dbm`)
//! adds its power to the node's [`Interference`] for its whole airtime. A
//! frame is received in four steps:
//!
//! 1. **Arrival.** An idle node starts detecting it; a frame arriving
//!    during the detection window of a weaker one takes its place (ns-3
//!    keeps the strongest preamble event). Frames arriving while the node
//!    transmits, or receives a detected frame, are only interference, unless
//!    frame capture is on and the newcomer is `capture_margin_db` stronger
//!    within `capture_window_us` of the detection (it then replaces it).
//! 2. **Preamble detection**, `preamble_detection_us` after the start:
//!    detected if its power reaches `preamble_detection_min_rssi_dbm` and
//!    its SNR (against noise and the interference just then) reaches
//!    `preamble_detection_threshold_db`. A detected frame makes the medium
//!    busy (the MAC sees `RxStart`) until it ends or its header fails.
//! 3. **PLCP header**, at the end of the PLCP: success drawn from the
//!    SINR over the header's chunks (48 us at 1 Mb/s after the long
//!    preamble, 24 us at 2 Mb/s after the short one). A failed header
//!    ends the reception silently (no EIFS).
//! 4. **Payload**, at the frame's end: success drawn from the SINR over
//!    the payload's chunks at the frame's rate (DATA at the data rate,
//!    control and broadcast frames at the basic rate). A failure is a
//!    frame received in error (`RxEnd` with an error: the MAC waits EIFS).
//!
//! Carrier sense: besides a detected frame and the node's own
//! transmission, the medium is busy while the total received energy
//! reaches the CCA sensitivity (or the energy-detection threshold, if
//! lower), counted from each moment ns-3 counts it: a frame dropped
//! because the node transmits or receives another, a preamble not
//! detected (at the end of its window), a failed header, the end of a
//! reception (`PhyEntity::SwitchMaybeToCcaBusy`, `GetEnergyDuration`).
//! Each success draw takes one number from the node's
//! `StreamPurpose::Reception` stream: success when it exceeds the error
//! probability, as ns-3 draws `GetRandomValue() > per`.

pub mod config;
pub mod interference;

pub use config::SinrConfig;
pub use interference::{Interference, Signal};

use super::dsss::DsssRate;
use super::{Corruption, Incoming, Reception, RxStep};
use crate::engine::Stream;
use crate::phy::{FrameRef, PhyIndication, PhyOutputs, PhyTimer};
use crate::time::{SimDuration, SimTime};
use crate::wire::ieee80211::FrameKind;

/// Boltzmann's constant as ns-3 writes it (`InterferenceHelper::CalculateSnr`).
pub const BOLTZMANN_J_PER_K: f64 = 1.3803e-23;

/// The receiver's parameters, resolved from `[radio]` and `[radio.sinr]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SinrParams {
    /// Noise floor: k 290 K B x noise figure.
    pub noise_w: f64,
    pub detection_min_w: f64,
    /// Minimum SNR for preamble detection (linear).
    pub detection_snr: f64,
    pub detection: SimDuration,
    pub cca_sensitivity_w: f64,
    pub cca_ed_w: f64,
    /// Frame capture: (power ratio, window after the detection).
    pub capture: Option<(f64, SimDuration)>,
    /// The PLCP preamble and header together (the header ends here).
    pub plcp: SimDuration,
    /// The PLCP header alone (its last part).
    pub header: SimDuration,
    pub header_rate: DsssRate,
    pub data_rate: DsssRate,
    pub basic_rate: DsssRate,
    /// Decide the PLCP header when it matters (the next arrival, or the
    /// frame's end) instead of at its end: allowed where a detected frame
    /// is strong enough to keep the medium busy by its energy, so that a
    /// failed header changes nothing the MAC sees until then.
    pub lazy_header: bool,
}

impl SinrParams {
    /// The parameters of `radio` (validated and normalised: both defaults
    /// resolved, the rates DSSS rates, the PLCP the long or short one).
    pub fn from_config(radio: &crate::phy::config::RadioConfig) -> SinrParams {
        let sinr = radio.sinr.clone().unwrap_or_default();
        let model = crate::phy::RadioModel::from_config(radio);
        let long = radio.plcp_overhead_us >= 192.0;
        let db = |x: f64| 10f64.powf(x / 10.0);
        let detection_min_w = sinr.preamble_detection_min_rssi_dbm.map_or(model.rx_threshold_w, config::dbm_to_w);
        let cca_sensitivity_w = sinr.cca_sensitivity_dbm.map_or(model.cs_threshold_w, config::dbm_to_w);
        let cca_ed_w = config::dbm_to_w(sinr.cca_ed_threshold_dbm);
        SinrParams {
            noise_w: BOLTZMANN_J_PER_K * 290.0 * sinr.noise_bandwidth_mhz * 1e6 * db(sinr.noise_figure_db),
            detection_min_w,
            detection_snr: db(sinr.preamble_detection_threshold_db),
            detection: SimDuration::from_micros_f64(sinr.preamble_detection_us),
            cca_sensitivity_w,
            cca_ed_w,
            capture: sinr.frame_capture.then(|| (db(sinr.capture_margin_db), SimDuration::from_micros_f64(sinr.capture_window_us))),
            plcp: SimDuration::from_micros_f64(radio.plcp_overhead_us),
            header: SimDuration::from_micros_f64(if long { 48.0 } else { 24.0 }),
            header_rate: if long { DsssRate::Dbpsk1 } else { DsssRate::Dqpsk2 },
            data_rate: DsssRate::from_mbps(radio.data_rate_mbps).unwrap_or(DsssRate::Dqpsk2),
            basic_rate: DsssRate::from_mbps(radio.basic_rate_mbps).unwrap_or(DsssRate::Dqpsk2),
            lazy_header: detection_min_w >= cca_sensitivity_w.min(cca_ed_w),
        }
    }
}

/// Where the frame the receiver follows is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// In its preamble detection window.
    Detecting,
    /// Detected; its PLCP header is being received.
    Header,
    /// Its header was received; its payload is being received.
    Payload,
}

/// The frame the receiver follows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Current {
    pub frame: FrameRef,
    pub signal: Signal,
    pub rate: DsssRate,
    pub stage: Stage,
    pub detected_at: SimTime,
}

#[derive(Debug, Clone)]
pub struct SinrReceiver {
    pub params: SinrParams,
    pub air: Interference,
    pub current: Option<Current>,
    transmitting: bool,
    next_id: u64,
    /// Energy carrier sense: busy until here (as last counted).
    cca_until: SimTime,
    cca_busy: bool,
    rng: Stream,
}

impl SinrReceiver {
    pub fn new(params: SinrParams, rng: Stream) -> SinrReceiver {
        SinrReceiver {
            params,
            // The weak-signal carrier-sense scan sums those below the CCA threshold.
            air: Interference::with_weak_below(params.cca_sensitivity_w.min(params.cca_ed_w)),
            current: None,
            transmitting: false,
            next_id: 0,
            cca_until: SimTime::ZERO,
            cca_busy: false,
            rng,
        }
    }

    /// Count the energy on the air for carrier sense from `now` (ns-3
    /// `SwitchMaybeToCcaBusy`): the CcaEnd time to arm if it grew, and
    /// whether the medium just turned busy.
    fn count_energy(&mut self, now: SimTime) -> (Option<SimTime>, bool) {
        let threshold_w = self.params.cca_sensitivity_w.min(self.params.cca_ed_w);
        // None: no signal outlasts the count already made.
        let Some(until) = self.air.energy_end_beyond(now, threshold_w, Some(self.cca_until)) else { return (None, false) };
        if until > self.cca_until && until > now {
            self.cca_until = until;
            let turned_busy = !self.cca_busy;
            self.cca_busy = true;
            return (Some(until), turned_busy);
        }
        (None, false)
    }

    /// A frame the node does not follow: only its energy counts.
    fn dropped(&mut self, now: SimTime, frame: FrameRef) -> PhyOutputs {
        let was_busy = self.is_busy();
        let (cca_end, _) = self.count_energy(now);
        // The MAC hears of it only if its carrier sense changed.
        let indication = (self.is_busy() != was_busy).then_some(PhyIndication::Cca);
        PhyOutputs { let_go: Some(frame), cca_end, indication, ..PhyOutputs::default() }
    }

    fn follow(&mut self, now: SimTime, frame: FrameRef, signal: Signal, rate: DsssRate) -> Option<(PhyTimer, SimTime)> {
        self.current = Some(Current { frame, signal, rate, stage: Stage::Detecting, detected_at: now });
        Some((PhyTimer::RxEnd, now + self.params.detection))
    }

    /// Success of `c` over `[from, to)` at `rate`: one draw.
    fn draw(&mut self, c: &Current, from: SimTime, to: SimTime, rate: DsssRate) -> bool {
        let psr = self.air.success(&c.signal, from, to, rate, self.params.noise_w);
        self.rng.uniform_f64() > 1.0 - psr
    }

    /// End of the preamble detection window of the frame followed.
    fn detect(&mut self, now: SimTime, mut c: Current) -> RxStep {
        let p = self.params;
        let snr = c.signal.power_w / (p.noise_w + self.air.before(now, c.signal.id));
        if c.signal.power_w >= p.detection_min_w && snr >= p.detection_snr {
            c.stage = Stage::Header;
            c.detected_at = now;
            self.current = Some(c);
            let next = if p.lazy_header { c.signal.end } else { c.signal.start + p.plcp };
            let timer = Some((PhyTimer::RxEnd, next));
            return RxStep::Continue(PhyOutputs { timer, indication: Some(PhyIndication::RxStart), ..PhyOutputs::default() });
        }
        self.current = None;
        RxStep::Continue(self.dropped(now, c.frame))
    }

    /// The PLCP header of `c` (ended by now) got through: one draw.
    fn header_ok(&mut self, c: &Current) -> bool {
        let p = self.params;
        let start = c.signal.start + p.plcp;
        let from = SimTime(start.as_nanos() - p.header.as_nanos());
        self.draw(c, from, start, p.header_rate)
    }

    /// A lazily decided header that failed: the reception ends silently.
    fn header_failed(&mut self, now: SimTime, c: Current) -> PhyOutputs {
        self.current = None;
        let mut out = self.dropped(now, c.frame);
        out.indication = Some(PhyIndication::Cca);
        out
    }

    /// End of the PLCP header of the frame followed.
    fn header_end(&mut self, now: SimTime, mut c: Current) -> RxStep {
        if self.header_ok(&c) {
            c.stage = Stage::Payload;
            self.current = Some(c);
            return RxStep::Continue(PhyOutputs { timer: Some((PhyTimer::RxEnd, c.signal.end)), ..PhyOutputs::default() });
        }
        // DsssPhy::EndReceiveHeader: abort, the medium busy by its energy.
        self.current = None;
        let mut out = self.dropped(now, c.frame);
        out.indication = Some(PhyIndication::Cca);
        RxStep::Continue(out)
    }

    /// End of the frame followed.
    fn payload_end(&mut self, now: SimTime, c: Current) -> RxStep {
        let from = c.signal.start + self.params.plcp;
        let ok = self.draw(&c, from, c.signal.end, c.rate);
        self.current = None;
        let (cca_end, _) = self.count_energy(now);
        let corruption = (!ok).then_some(Corruption::Interference);
        RxStep::Ended { frame: c.frame, corruption, outputs: PhyOutputs { cca_end, ..PhyOutputs::default() } }
    }
}

impl super::FromRadioConfig for SinrReceiver {
    type Params = SinrParams;
    fn params(radio: &crate::phy::config::RadioConfig, _model: &crate::phy::RadioModel) -> SinrParams {
        SinrParams::from_config(radio)
    }
    fn from_params(params: &SinrParams, rng: Stream) -> SinrReceiver {
        SinrReceiver::new(*params, rng)
    }
    /// Signals too weak to be detected or to make the medium busy alone
    /// (below the preamble detection minimum and the CCA thresholds) are
    /// interference only: taken when sent, without an arrival event
    /// ([`SinrReceiver::take_weak_signal`](Reception::take_weak_signal)).
    fn weak_signal_below_w(params: &SinrParams) -> f64 {
        params.detection_min_w.min(params.cca_sensitivity_w.min(params.cca_ed_w))
    }
    /// The receive sensitivity (`radio.sinr.rx_sensitivity_dbm`).
    fn reach_threshold_w(radio: &crate::phy::config::RadioConfig, _model: &crate::phy::RadioModel) -> f64 {
        config::dbm_to_w(radio.sinr.clone().unwrap_or_default().rx_sensitivity_dbm)
    }
}

impl SinrReceiver {
    /// A signal too weak to be detected or to make the medium busy alone
    /// (below the preamble detection minimum and the CCA thresholds),
    /// handed over when it is sent (`now`), before it arrives: kept as
    /// interference for the frames it overlaps, without an arrival event.
    ///
    /// ns-3 also counts the total energy for carrier sense at the end of
    /// its detection window. That count can outlast every other one only
    /// if the signals that are each below the CCA threshold add up to it:
    /// while a signal at or above the threshold is present, its own count
    /// (when it is dropped, undetected, or its reception ends) already
    /// keeps the medium busy until it ends. So where the weak signals
    /// present when this one starts, this one included, reach the
    /// threshold, it is refused (true) and delivered as a frame like any
    /// other; each later weak signal is checked the same way. Inlined into
    /// the channel's loop over a frame's receivers (`Phy::take_weak_signal`).
    #[inline(always)]
    fn weak_signal(&mut self, now: SimTime, start: SimTime, end: SimTime, power_w: f64) -> bool {
        if self.air.len() >= 16 {
            self.air.forget_before(self.current.map_or(now, |c| c.signal.start.min(now)));
        }
        let threshold_w = self.params.cca_sensitivity_w.min(self.params.cca_ed_w);
        if self.air.weak_total_at(now, start) + power_w >= threshold_w {
            return true;
        }
        // Weak for the list (below the CCA threshold, its bound): the sum
        // with it (the others' are not negative) stayed below.
        self.air.add_weak(Signal { id: self.next_id, start, end, power_w });
        self.next_id += 1;
        false
    }
}

impl Reception for SinrReceiver {
    #[inline(always)]
    fn take_weak_signal(&mut self, now: SimTime, start: SimTime, end: SimTime, power_w: f64) -> bool {
        self.weak_signal(now, start, end, power_w)
    }
    fn arrive(&mut self, now: SimTime, incoming: Incoming<'_>) -> PhyOutputs {
        let frame = incoming.frame;
        let signal = Signal { id: self.next_id, start: now, end: now + frame.airtime, power_w: incoming.power_w };
        self.next_id += 1;
        self.air.forget_before(self.current.map_or(now, |c| c.signal.start.min(now)));
        self.air.add(signal);
        // Unicast DATA at the data rate, the rest at the basic rate: chosen
        // by `&` of the two tests (no short-circuit branch on the frame's
        // kind, which alternates frame by frame).
        let at_data_rate = (frame.kind == FrameKind::Data) & !frame.is_broadcast();
        let rate = [self.params.basic_rate, self.params.data_rate][at_data_rate as usize];
        if self.transmitting {
            return self.dropped(now, incoming.at);
        }
        let Some(c) = self.current else {
            let timer = self.follow(now, incoming.at, signal, rate);
            return PhyOutputs { timer, ..PhyOutputs::default() };
        };
        let mut c = c;
        if c.stage == Stage::Header && self.params.lazy_header && now >= c.signal.start + self.params.plcp {
            // The header ended before this arrival: decide it now.
            if !self.header_ok(&c) {
                let out = self.header_failed(now, c);
                let timer = self.follow(now, incoming.at, signal, rate);
                return PhyOutputs { timer, ..out };
            }
            c.stage = Stage::Payload;
            self.current = Some(c);
        }
        if c.stage == Stage::Detecting {
            // EndPreambleDetectionPeriod keeps the strongest preamble.
            if signal.power_w > c.signal.power_w {
                let timer = self.follow(now, incoming.at, signal, rate);
                return PhyOutputs { timer, let_go: Some(c.frame), ..PhyOutputs::default() };
            }
            return PhyOutputs { let_go: Some(incoming.at), ..PhyOutputs::default() };
        }
        if let Some((ratio, window)) = self.params.capture {
            if now <= c.detected_at + window && signal.power_w > c.signal.power_w * ratio {
                // SimpleFrameCaptureModel: switch to the newcomer; the
                // medium stays busy with the energy of the one dropped.
                let timer = self.follow(now, incoming.at, signal, rate);
                let (cca_end, _) = self.count_energy(now);
                return PhyOutputs { timer, let_go: Some(c.frame), cca_end, indication: Some(PhyIndication::Cca), lost_on_arrival: false };
            }
        }
        self.dropped(now, incoming.at)
    }

    fn step(&mut self, now: SimTime) -> RxStep {
        let Some(c) = self.current else { return RxStep::Continue(PhyOutputs::default()) };
        match c.stage {
            Stage::Detecting if now == c.detected_at + self.params.detection => self.detect(now, c),
            Stage::Header if self.params.lazy_header && now == c.signal.end => {
                if self.header_ok(&c) {
                    self.payload_end(now, c)
                } else {
                    RxStep::Continue(self.header_failed(now, c))
                }
            }
            Stage::Header if now == c.signal.start + self.params.plcp => self.header_end(now, c),
            Stage::Payload if now == c.signal.end => self.payload_end(now, c),
            // A step of a frame no longer followed (replaced or aborted).
            _ => RxStep::Continue(PhyOutputs::default()),
        }
    }

    /// ns-3 `WifiPhy::Send` aborts the reception in progress.
    fn start_transmit(&mut self, _now: SimTime) -> Option<FrameRef> {
        self.transmitting = true;
        self.current.take().map(|c| c.frame)
    }

    fn end_transmit(&mut self, _now: SimTime) -> PhyOutputs {
        self.transmitting = false;
        PhyOutputs::default()
    }

    fn cca_end(&mut self, now: SimTime) -> PhyOutputs {
        if !self.cca_busy {
            return PhyOutputs::default();
        }
        if now < self.cca_until {
            return PhyOutputs { cca_end: Some(self.cca_until), ..PhyOutputs::default() };
        }
        self.cca_busy = false;
        PhyOutputs { indication: (!self.is_busy()).then_some(PhyIndication::Cca), ..PhyOutputs::default() }
    }

    fn is_busy(&self) -> bool {
        self.transmitting || self.cca_busy || self.current.is_some_and(|c| c.stage != Stage::Detecting)
    }

    fn locked(&self) -> Option<FrameRef> {
        self.current.map(|c| c.frame)
    }
}

#[cfg(test)]
mod tests;
