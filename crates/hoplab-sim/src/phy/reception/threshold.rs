//! The ns-2 threshold reception model of one node (docs/network-model.md; ns-2
//! `Mac802_11::recv`, `capture`, `collision`, `recv_timer`).
//!
//! A node locks onto the first frame that reaches it while it is idle and
//! stays locked until that frame ends. A newcomer during the lock is either
//! ignored because the locked frame is at least `capture_ratio` stronger
//! (capture; the newcomer still defers the node by EIFS + its duration), or
//! destroys the locked frame (collision): the node then stays locked on
//! whichever of the two ends later. Frames between the carrier-sense and the
//! receive threshold, and frames arriving while the node transmits, are
//! locked onto like any other but marked corrupted.

use super::{Arrival, Corruption, Incoming, Lock, Reception, RxStep};
use crate::phy::{FrameRef, PhyIndication, PhyOutputs, PhyTimer};
use crate::time::SimTime;

#[derive(Debug, Clone, Default)]
pub struct ThresholdReceiver {
    pub lock: Option<Lock>,
    pub transmitting: bool,
    /// Power ratio for capture (ns-2 CPThresh_, 10 dB -> 10.0).
    pub capture_ratio: f64,
}

impl ThresholdReceiver {
    pub fn new(capture_ratio: f64) -> ThresholdReceiver {
        ThresholdReceiver { lock: None, transmitting: false, capture_ratio }
    }
}

impl super::FromRadioConfig for ThresholdReceiver {
    /// The capture ratio (ns-2 CPThresh_).
    type Params = f64;
    fn params(_config: &crate::phy::config::RadioConfig, radio: &crate::phy::RadioModel) -> f64 {
        radio.capture_ratio
    }
    fn from_params(capture_ratio: &f64, _rng: crate::engine::Stream) -> ThresholdReceiver {
        ThresholdReceiver::new(*capture_ratio)
    }
}

impl ThresholdReceiver {
    /// A frame arrives: locked, captured, or colliding.
    pub fn arrive_frame(&mut self, frame: FrameRef, power_w: f64, end: SimTime, decodable: bool) -> Arrival {
        let capture_ratio = self.capture_ratio;
        let mut corruption = None;
        if !decodable {
            corruption = Some(Corruption::BelowRxThreshold);
        }
        if self.transmitting {
            corruption = Some(Corruption::HalfDuplex);
        }
        match &mut self.lock {
            None => {
                self.lock = Some(Lock { frame, power_w, end, corruption });
                Arrival::Locked
            }
            Some(lock) => {
                if lock.power_w >= power_w * capture_ratio {
                    Arrival::Captured
                } else {
                    lock.corruption = Some(Corruption::Collision);
                    if end > lock.end {
                        let replaced = lock.frame;
                        lock.frame = frame;
                        lock.power_w = power_w;
                        lock.end = end;
                        Arrival::Collided { replaced: Some(replaced) }
                    } else {
                        Arrival::Collided { replaced: None }
                    }
                }
            }
        }
    }

    /// ns-2 `Mac802_11::transmit` forces the error bit of a frame being
    /// received.
    pub fn start_transmitting(&mut self) {
        self.transmitting = true;
        if let Some(lock) = &mut self.lock {
            lock.corruption = Some(Corruption::HalfDuplex);
        }
    }

    pub fn end_transmitting(&mut self) {
        self.transmitting = false;
    }

    pub fn release(&mut self) -> Option<Lock> {
        self.lock.take()
    }
}

impl Reception for ThresholdReceiver {
    #[inline]
    fn arrive(&mut self, now: SimTime, incoming: Incoming<'_>) -> PhyOutputs {
        let end = now + incoming.frame.airtime;
        match self.arrive_frame(incoming.at, incoming.power_w, end, incoming.decodable) {
            Arrival::Locked => {
                PhyOutputs { timer: Some((PhyTimer::RxEnd, end)), indication: Some(PhyIndication::RxStart), ..PhyOutputs::default() }
            }
            Arrival::Collided { replaced: Some(old) } => {
                PhyOutputs { timer: Some((PhyTimer::RxEnd, end)), let_go: Some(old), ..PhyOutputs::default() }
            }
            Arrival::Collided { replaced: None } => PhyOutputs { let_go: Some(incoming.at), ..PhyOutputs::default() },
            Arrival::Captured => PhyOutputs {
                indication: Some(PhyIndication::Captured { airtime: incoming.frame.airtime }),
                let_go: Some(incoming.at),
                ..PhyOutputs::default()
            },
        }
    }

    /// The locked frame ends.
    #[inline]
    fn step(&mut self, _now: SimTime) -> RxStep {
        match self.release() {
            Some(lock) => RxStep::Ended { frame: lock.frame, corruption: lock.corruption, outputs: PhyOutputs::default() },
            None => RxStep::Continue(PhyOutputs::default()),
        }
    }

    #[inline]
    fn start_transmit(&mut self, _now: SimTime) -> Option<FrameRef> {
        self.start_transmitting();
        None
    }

    #[inline]
    fn end_transmit(&mut self, _now: SimTime) -> PhyOutputs {
        self.end_transmitting();
        PhyOutputs::default()
    }

    /// No energy carrier sense: never armed.
    fn cca_end(&mut self, _now: SimTime) -> PhyOutputs {
        PhyOutputs::default()
    }

    #[inline]
    fn is_busy(&self) -> bool {
        self.transmitting || self.lock.is_some()
    }

    #[inline]
    fn locked(&self) -> Option<FrameRef> {
        self.lock.map(|l| l.frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(slot: u32) -> FrameRef {
        FrameRef(slot)
    }

    #[test]
    fn idle_receiver_locks_and_decodes() {
        let mut r = ThresholdReceiver::new(10.0);
        assert_eq!(r.arrive_frame(frame(1), 1e-9, SimTime(100), true), Arrival::Locked);
        assert!(r.is_busy());
        let lock = r.release().unwrap();
        assert_eq!(lock.corruption, None);
        assert!(!r.is_busy());
    }

    #[test]
    fn sensed_only_frame_is_locked_but_corrupted() {
        let mut r = ThresholdReceiver::new(10.0);
        r.arrive_frame(frame(1), 2e-11, SimTime(100), false);
        assert_eq!(r.release().unwrap().corruption, Some(Corruption::BelowRxThreshold));
    }

    #[test]
    fn ten_db_stronger_frame_captures() {
        let mut r = ThresholdReceiver::new(10.0);
        r.arrive_frame(frame(1), 1e-8, SimTime(100), true);
        assert_eq!(r.arrive_frame(frame(2), 1e-9, SimTime(200), true), Arrival::Captured);
        let lock = r.release().unwrap();
        assert_eq!(lock.frame, FrameRef(1));
        assert_eq!(lock.corruption, None);
    }

    #[test]
    fn weaker_margin_collides_and_keeps_the_later_end() {
        let mut r = ThresholdReceiver::new(10.0);
        r.arrive_frame(frame(1), 5e-9, SimTime(100), true);
        assert_eq!(r.arrive_frame(frame(2), 1e-9, SimTime(200), true), Arrival::Collided { replaced: Some(FrameRef(1)) });
        let lock = r.release().unwrap();
        assert_eq!(lock.end, SimTime(200));
        assert_eq!(lock.corruption, Some(Corruption::Collision));
        // A newcomer that ends earlier does not extend the lock.
        r.arrive_frame(frame(1), 1e-9, SimTime(300), true);
        assert_eq!(r.arrive_frame(frame(2), 1e-9, SimTime(250), true), Arrival::Collided { replaced: None });
    }

    #[test]
    fn transmitting_corrupts_reception_both_ways() {
        let mut r = ThresholdReceiver::new(10.0);
        r.arrive_frame(frame(1), 1e-8, SimTime(100), true);
        r.start_transmitting();
        assert_eq!(r.release().unwrap().corruption, Some(Corruption::HalfDuplex));
        r.arrive_frame(frame(1), 1e-8, SimTime(100), true);
        assert_eq!(r.release().unwrap().corruption, Some(Corruption::HalfDuplex));
    }
}
