//! The SINR receiver against its specification: success probabilities
//! drawn from the DSSS curves, overlapping frames, carrier sense at the
//! thresholds.

use super::*;
use crate::engine::{RngStreams, StreamPurpose};
use crate::phy::config::{RadioConfig, Reception as ReceptionKind};
use crate::wire::ieee80211::Frame;
use crate::wire::NodeId;

fn params(capture: bool) -> SinrParams {
    let sinr = SinrConfig { frame_capture: capture, ..SinrConfig::default() };
    let mut radio = RadioConfig { reception: ReceptionKind::Sinr, sinr: Some(sinr), ..RadioConfig::default() };
    radio.validate().unwrap();
    radio.normalize();
    SinrParams::from_config(&radio)
}

fn receiver(seed: u64, capture: bool) -> SinrReceiver {
    SinrReceiver::new(params(capture), RngStreams::new(seed).stream(StreamPurpose::Reception, 0))
}

const US: u64 = 1000;

/// A unicast DATA frame (2 Mb/s) of `payload_us` after the 192 us PLCP.
fn data(payload_us: u64) -> Frame {
    Frame::new(FrameKind::Data, NodeId(1), NodeId(0), SimDuration::ZERO, SimDuration::from_nanos((192 + payload_us) * US))
}

fn arrive(r: &mut SinrReceiver, t: SimTime, slot: u32, frame: &Frame, power_w: f64) -> PhyOutputs {
    r.arrive(t, Incoming { at: FrameRef(slot), frame, power_w, decodable: true })
}

/// Run the followed frame's steps until it ends or is given up; its
/// outcome (None: never decoded nor lost in error), and whether the
/// medium was busy through its detection.
fn finish(r: &mut SinrReceiver) -> Option<Option<Corruption>> {
    let mut at = None;
    loop {
        let Some(c) = r.current else { return None };
        let t = match c.stage {
            Stage::Detecting => c.detected_at + r.params.detection,
            Stage::Header if r.params.lazy_header => c.signal.end,
            Stage::Header => c.signal.start + r.params.plcp,
            Stage::Payload => c.signal.end,
        };
        assert!(at.is_none_or(|prev| t >= prev));
        at = Some(t);
        if let RxStep::Ended { corruption, .. } = r.step(t) {
            return Some(corruption);
        }
    }
}

#[test]
fn success_rate_follows_the_dsss_curve() {
    // A 2 Mb/s frame with an interferer over all of it at a fixed power
    // ratio: the fraction decoded must be the curve's probability
    // (header at 1 Mb/s x payload at 2 Mb/s), within 4 standard errors.
    let p = params(false);
    let signal_w = 1e-8;
    let payload_us = 4000; // 8000 bits at 2 Mb/s
    for sinr_db in [-0.3f64, 0.3, 0.9] {
        let interference_w = signal_w / 10f64.powf(sinr_db / 10.0) - p.noise_w;
        let sinr = signal_w / (p.noise_w + interference_w);
        let expected = DsssRate::Dbpsk1.chunk_success(sinr, 48) * DsssRate::Dqpsk2.chunk_success(sinr, 8000);
        assert!(expected > 0.05 && expected < 0.95, "{sinr_db} dB: {expected}");
        let mut r = receiver(7, false);
        let (trials, mut ok) = (20_000, 0);
        let long = data(payload_us + 1000);
        for k in 0..trials {
            let t0 = SimTime(k * 10_000 * US);
            arrive(&mut r, t0, 1, &data(payload_us), signal_w);
            // The interferer starts after the detection window, so the
            // frame is detected (its SNR is measured just before 4 us);
            // the preamble itself is not checked (ns-3 checks the header).
            r.step(t0 + SimDuration::from_nanos(4 * US));
            arrive(&mut r, t0 + SimDuration::from_nanos(5 * US), 2, &long, interference_w);
            let mut out = finish(&mut r);
            if out.is_none() {
                out = Some(Some(Corruption::Interference));
            }
            ok += u32::from(out == Some(None));
            r.air = Interference::default();
        }
        let got = ok as f64 / trials as f64;
        let se = (expected * (1.0 - expected) / trials as f64).sqrt();
        assert!((got - expected).abs() < 4.0 * se, "{sinr_db} dB: {got} decoded, expected {expected} (se {se})");
    }
}

#[test]
fn the_interference_is_what_overlaps_each_chunk() {
    // An interferer 3 dB stronger over part of the payload fails the frame
    // (2384 bits at -3 dB: BER 0.007); the same interferer ending within
    // the preamble costs nothing.
    let mut r = receiver(1, false);
    arrive(&mut r, SimTime(0), 1, &data(4000), 1e-8);
    r.step(SimTime(4 * US));
    arrive(&mut r, SimTime(500 * US), 2, &data(1000), 2e-8);
    assert_eq!(finish(&mut r), Some(Some(Corruption::Interference)));
    let mut r = receiver(1, false);
    arrive(&mut r, SimTime(0), 1, &data(4000), 1e-8);
    r.step(SimTime(4 * US));
    // 100 us of interference entirely within the 144 us preamble, after detection.
    let short = Frame { airtime: SimDuration::from_nanos(100 * US), ..data(0) };
    arrive(&mut r, SimTime(10 * US), 2, &short, 2e-8);
    assert_eq!(finish(&mut r), Some(None));
}

#[test]
fn two_overlapping_frames_by_power_ratio() {
    // 10 dB weaker newcomer during the payload: the first survives (SINR
    // 10 dB), the newcomer is only interference.
    let mut r = receiver(3, false);
    arrive(&mut r, SimTime(0), 1, &data(2000), 1e-8);
    assert_eq!(
        r.step(SimTime(4 * US)),
        RxStep::Continue(PhyOutputs {
            timer: Some((PhyTimer::RxEnd, SimTime(2192 * US))),
            indication: Some(PhyIndication::RxStart),
            ..PhyOutputs::default()
        })
    );
    let out = arrive(&mut r, SimTime(300 * US), 2, &data(2000), 1e-9);
    assert_eq!(out.let_go, Some(FrameRef(2)));
    assert_eq!(r.locked(), Some(FrameRef(1)));
    assert_eq!(finish(&mut r), Some(None));

    // 3 dB stronger newcomer during the payload, no capture: both lost.
    let mut r = receiver(3, false);
    arrive(&mut r, SimTime(0), 1, &data(2000), 1e-8);
    r.step(SimTime(4 * US));
    arrive(&mut r, SimTime(300 * US), 2, &data(2000), 2e-8);
    assert_eq!(r.locked(), Some(FrameRef(1)));
    assert_eq!(finish(&mut r), Some(Some(Corruption::Interference)));

    // With capture: a 6 dB stronger newcomer within 16 us of the
    // detection replaces the frame (margin 5 dB); one 4 dB stronger, or
    // arriving after the window, does not.
    for (delay_us, ratio, switches) in [(10, 4.0, true), (10, 2.5, false), (30, 4.0, false)] {
        let mut r = receiver(3, true);
        arrive(&mut r, SimTime(0), 1, &data(2000), 1e-8);
        r.step(SimTime(4 * US));
        let out = arrive(&mut r, SimTime((4 + delay_us) * US), 2, &data(2000), ratio * 1e-8);
        assert_eq!(r.locked() == Some(FrameRef(2)), switches, "{delay_us} us, x{ratio}");
        assert_eq!(out.let_go, Some(FrameRef(if switches { 1 } else { 2 })));
        assert!(r.is_busy(), "the medium stays busy");
    }

    // During the detection window the stronger preamble wins.
    let mut r = receiver(3, false);
    arrive(&mut r, SimTime(0), 1, &data(2000), 1e-9);
    let out = arrive(&mut r, SimTime(2 * US), 2, &data(2000), 1e-8);
    assert_eq!((out.let_go, out.timer), (Some(FrameRef(1)), Some((PhyTimer::RxEnd, SimTime(6 * US)))));
    // The earlier window's end is no step of the new frame.
    assert_eq!(r.step(SimTime(4 * US)), RxStep::Continue(PhyOutputs::default()));
    assert_eq!(r.locked(), Some(FrameRef(2)));
}

#[test]
fn preamble_detection_at_its_thresholds() {
    let p = params(false);
    // Default minimum RSSI: the power at 250 m (3.652e-10 W).
    assert!((p.detection_min_w / 3.652e-10 - 1.0).abs() < 1e-9);
    for (power_w, detected) in [(3.66e-10, true), (3.64e-10, false)] {
        let mut r = receiver(1, false);
        arrive(&mut r, SimTime(0), 1, &data(1000), power_w);
        assert!(!r.is_busy(), "not busy during the detection window");
        let RxStep::Continue(out) = r.step(SimTime(4 * US)) else { panic!() };
        assert_eq!(out.indication == Some(PhyIndication::RxStart), detected, "{power_w}");
        // Not detected: no lock, but its energy (above 550 m's power) is sensed.
        assert!(r.is_busy());
        assert_eq!(r.locked().is_some(), detected);
        if !detected {
            assert_eq!(out.let_go, Some(FrameRef(1)));
            assert_eq!(out.cca_end, Some(SimTime(1192 * US)));
        }
    }
    // Strong enough, but the SNR is below 4 dB: interference 3 dB under it.
    let mut r = receiver(1, false);
    arrive(&mut r, SimTime(0), 1, &data(3000), 1e-9);
    r.step(SimTime(4 * US)); // locked on the first
    let mut r2 = receiver(1, false);
    arrive(&mut r2, SimTime(0), 2, &data(3000), 0.5e-9);
    arrive(&mut r2, SimTime(1 * US), 1, &data(1000), 1e-9);
    let RxStep::Continue(out) = r2.step(SimTime(5 * US)) else { panic!() };
    assert_ne!(out.indication, Some(PhyIndication::RxStart));
    assert_eq!(r2.locked(), None);
}

#[test]
fn carrier_sense_at_the_cca_sensitivity() {
    let p = params(false);
    // Default CCA sensitivity: the power at 550 m (1.559e-11 W).
    assert!((p.cca_sensitivity_w / 1.559e-11 - 1.0).abs() < 1e-9);
    for (power_w, busy) in [(1.57e-11, true), (1.55e-11, false)] {
        let mut r = receiver(1, false);
        arrive(&mut r, SimTime(0), 1, &data(1000), power_w);
        r.step(SimTime(4 * US));
        assert_eq!(r.is_busy(), busy, "{power_w}");
        // Busy until the frame ends, then idle.
        let out = r.cca_end(SimTime(1192 * US));
        assert_eq!(out.indication, busy.then_some(PhyIndication::Cca));
        assert!(!r.is_busy());
    }
    // Two signals each below the threshold add up above it.
    let mut r = receiver(1, false);
    arrive(&mut r, SimTime(0), 1, &data(1000), 1.0e-11);
    arrive(&mut r, SimTime(1 * US), 2, &data(500), 1.0e-11);
    r.step(SimTime(4 * US));
    assert!(r.is_busy());
    // Busy while both are on the air: until the shorter ends at 693 us.
    assert_eq!(r.cca_end(SimTime(693 * US)).indication, Some(PhyIndication::Cca));
    assert!(!r.is_busy());
}

#[test]
fn transmitting_drops_arrivals_and_aborts_reception() {
    let mut r = receiver(1, false);
    arrive(&mut r, SimTime(0), 1, &data(1000), 1e-8);
    r.step(SimTime(4 * US));
    assert_eq!(r.start_transmit(SimTime(10 * US)), Some(FrameRef(1)));
    assert_eq!(r.locked(), None);
    let out = arrive(&mut r, SimTime(20 * US), 2, &data(1000), 1e-8);
    assert_eq!(out.let_go, Some(FrameRef(2)));
    assert!(out.cca_end.is_some(), "it outlasts nothing yet: sensed by energy");
    r.end_transmit(SimTime(300 * US));
    assert!(r.is_busy(), "the dropped frame is still on the air");
}

#[test]
fn a_header_decided_late_or_on_time_draws_alike() {
    // With the detection minimum below the CCA sensitivity the header is
    // decided at its end (no energy to keep the medium busy); the success
    // rate is the same either way.
    let mut p = params(false);
    p.lazy_header = false;
    let rate = |p: SinrParams| {
        let mut r = SinrReceiver::new(p, RngStreams::new(9).stream(StreamPurpose::Reception, 0));
        let mut ok = 0;
        for k in 0..4000u64 {
            let t0 = SimTime(k * 10_000 * US);
            arrive(&mut r, t0, 1, &data(100), 1e-8);
            r.step(t0 + SimDuration::from_nanos(4 * US));
            // -7 dB over the header only: 48 bits at 1 Mb/s, BER 0.6 %.
            let hit = Frame { airtime: SimDuration::from_nanos(52 * US), ..data(0) };
            arrive(&mut r, t0 + SimDuration::from_nanos(140 * US), 2, &hit, 5e-8);
            ok += u32::from(finish(&mut r) == Some(None));
            r.air = Interference::default();
        }
        ok as f64 / 4000.0
    };
    let p0 = params(false);
    let expected = DsssRate::Dbpsk1.chunk_success(1e-8 / (p0.noise_w + 5e-8), 48);
    assert!(expected > 0.6 && expected < 0.9, "{expected}");
    for p in [p, params(false)] {
        let got = rate(p);
        assert!((got - expected).abs() < 4.0 * (expected * (1.0 - expected) / 4000.0).sqrt(), "{got} vs {expected}");
    }
}

#[test]
fn same_seed_same_draws() {
    let run = |seed| {
        let mut r = receiver(seed, false);
        (0..200)
            .map(|k| {
                let t0 = SimTime(k * 10_000 * US);
                arrive(&mut r, t0, 1, &data(4000), 1e-8);
                r.step(t0 + SimDuration::from_nanos(4 * US));
                arrive(&mut r, t0 + SimDuration::from_nanos(5 * US), 2, &data(5000), 1.2e-8);
                finish(&mut r)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

/// A frame is followed at the rate its payload is sent at: a unicast DATA
/// at the data rate, a broadcast DATA and every control frame at the basic
/// rate (IEEE 802.11-2016 10.6, multirate support); here 11 and 1 Mb/s, so that a
/// swap shows (the golden scenarios use 2 Mb/s for both).
#[test]
fn a_frame_is_followed_at_its_payloads_rate() {
    let mut radio = RadioConfig {
        reception: ReceptionKind::Sinr,
        sinr: Some(SinrConfig::default()),
        data_rate_mbps: 11.0,
        basic_rate_mbps: 1.0,
        ..RadioConfig::default()
    };
    radio.validate().unwrap();
    radio.normalize();
    let p = SinrParams::from_config(&radio);
    assert_eq!((p.data_rate, p.basic_rate), (DsssRate::Cck11, DsssRate::Dbpsk1));
    let airtime = SimDuration::from_nanos(500 * US);
    let to = |kind, receiver| Frame::new(kind, NodeId(1), receiver, SimDuration::ZERO, airtime);
    let cases = [
        (to(FrameKind::Data, NodeId(0)), DsssRate::Cck11),
        (to(FrameKind::Data, crate::wire::ieee80211::BROADCAST), DsssRate::Dbpsk1),
        (to(FrameKind::Rts, NodeId(0)), DsssRate::Dbpsk1),
        (to(FrameKind::Cts, NodeId(0)), DsssRate::Dbpsk1),
        (to(FrameKind::Ack, NodeId(0)), DsssRate::Dbpsk1),
    ];
    for (k, (frame, rate)) in cases.iter().enumerate() {
        let mut r = SinrReceiver::new(p, RngStreams::new(1).stream(StreamPurpose::Reception, 0));
        arrive(&mut r, SimTime(k as u64 * 1000 * US), 1, frame, 1e-8);
        assert_eq!(r.current.map(|c| c.rate), Some(*rate), "{:?} to {:?}", frame.kind, frame.receiver);
    }
}
