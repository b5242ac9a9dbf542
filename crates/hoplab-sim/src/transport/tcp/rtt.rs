//! Retransmission timeout per RFC 6298.

use crate::time::SimDuration;

#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    /// RTO without backoff.
    base_rto: SimDuration,
    /// Exponential backoff factor (2.5: doubled on every expiry, up to 64).
    backoff: u32,
    min_rto: SimDuration,
    max_rto: SimDuration,
    /// Clock granularity G (RFC 6298 2.2-2.3).
    granularity: SimDuration,
}

impl RttEstimator {
    /// RFC 6298 2.1: before any sample, RTO = the initial RTO (1 s).
    pub fn new(initial_rto: SimDuration, min_rto: SimDuration, max_rto: SimDuration, granularity: SimDuration) -> Self {
        RttEstimator { srtt: None, rttvar: SimDuration::ZERO, base_rto: initial_rto, backoff: 1, min_rto, max_rto, granularity }
    }

    /// A valid sample (Karn: never from a retransmitted segment). Clears the
    /// backoff (RFC 6298 5.7 keeps it until a new sample arrives).
    pub fn sample(&mut self, rtt: SimDuration) {
        let r = rtt.as_nanos() as f64;
        match self.srtt {
            None => {
                // 2.2: SRTT = R, RTTVAR = R / 2.
                self.srtt = Some(rtt);
                self.rttvar = SimDuration::from_nanos((r / 2.0) as u64);
            }
            Some(srtt) => {
                // 2.3: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'|; SRTT = 7/8 SRTT + 1/8 R'.
                let s = srtt.as_nanos() as f64;
                let var = 0.75 * self.rttvar.as_nanos() as f64 + 0.25 * (s - r).abs();
                self.rttvar = SimDuration::from_nanos(var.round() as u64);
                self.srtt = Some(SimDuration::from_nanos((0.875 * s + 0.125 * r).round() as u64));
            }
        }
        let srtt = self.srtt.expect("set above");
        let k_rttvar = self.rttvar * 4;
        self.base_rto = srtt + k_rttvar.max(self.granularity);
        self.backoff = 1;
    }

    /// 5.5: the timer expired: back off (double), at most to the maximum.
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff = (self.backoff * 2).min(64);
        }
    }

    /// The current RTO: clamped to [min_rto, max_rto] (2.4, 2.5), backed off.
    pub fn rto(&self) -> SimDuration {
        let rto = self.base_rto.max(self.min_rto) * self.backoff as u64;
        rto.min(self.max_rto)
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }

    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: f64) -> SimDuration {
        SimDuration::from_secs_f64(v / 1e3)
    }

    fn estimator(min_rto_ms: f64) -> RttEstimator {
        RttEstimator::new(ms(1000.0), ms(min_rto_ms), ms(60_000.0), ms(10.0))
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(estimator(200.0).rto(), ms(1000.0));
    }

    #[test]
    fn first_and_second_samples_follow_rfc_6298() {
        let mut e = estimator(0.0);
        e.sample(ms(100.0));
        // SRTT 100, RTTVAR 50, RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.srtt(), Some(ms(100.0)));
        assert_eq!(e.rto(), ms(300.0));
        e.sample(ms(200.0));
        // RTTVAR = 0.75 * 50 + 0.25 * 100 = 62.5; SRTT = 87.5 + 25 = 112.5;
        // RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.rttvar(), ms(62.5));
        assert_eq!(e.srtt(), Some(ms(112.5)));
        assert_eq!(e.rto(), ms(362.5));
    }

    #[test]
    fn min_rto_and_granularity_bound_the_timeout() {
        let mut e = estimator(200.0);
        e.sample(ms(10.0)); // 10 + 4 * 5 = 30 ms < min RTO
        assert_eq!(e.rto(), ms(200.0));
        let mut e = estimator(0.0);
        for _ in 0..50 {
            e.sample(ms(40.0)); // RTTVAR decays to ~0: G = 10 ms floors 4 RTTVAR
        }
        assert_eq!(e.rto(), ms(50.0));
    }

    #[test]
    fn backoff_doubles_until_a_new_sample() {
        let mut e = estimator(200.0);
        e.sample(ms(100.0)); // RTO 300
        e.back_off();
        assert_eq!(e.rto(), ms(600.0));
        e.back_off();
        assert_eq!(e.rto(), ms(1200.0));
        e.sample(ms(100.0));
        assert!(e.rto() < ms(600.0));
    }

    #[test]
    fn backoff_stops_at_the_maximum() {
        let mut e = estimator(200.0);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), ms(60_000.0));
    }
}
