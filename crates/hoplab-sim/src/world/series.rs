//! Time series (`stats.series_interval_s`): every interval, per flow its
//! goodput, TCP window and RTT (and the controller's own variables),
//! semi-TCP's rate and Algorithm 1's estimates, routing discoveries and
//! breaks; per node its queue, and the MAC service time and attempts per
//! packet of the packets served in the interval. Long format: one row per
//! (time, entity, id, metric).

use super::{Event, Layer, World};
use crate::net::routing::Routing;
use crate::stats::report::SeriesRow;
use crate::time::SimDuration;

impl World {
    pub(crate) fn sample_series(&mut self) {
        self.sampling_ticks += 1;
        if self.series_interval == SimDuration::ZERO {
            return; // the run does not keep its series (`World::drop_series`)
        }
        let now = self.now();
        let interval_s = self.series_interval.as_secs_f64();
        for flow in &mut self.flows {
            let goodput_kbps = flow.stats.interval_delivered_bytes as f64 * 8.0 / interval_s / 1e3;
            flow.stats.interval_delivered_bytes = 0;
            let mut push = |metric: &str, value: f64| {
                self.series.push(SeriesRow { time_s: now.as_secs_f64(), entity: "flow".into(), id: flow.id, metric: metric.into(), value })
            };
            push("goodput_kbps", goodput_kbps);
            flow.series_values(&mut push);
            if let Some(counters) = self.routing[flow.src.index()].counters() {
                push("route_discoveries", counters.discoveries.get(&flow.dst).copied().unwrap_or(0) as f64);
                push("route_breaks", flow.stats.route_breaks as f64);
            }
            flow.rate_series_values(&mut push);
        }
        for node in &mut self.nodes {
            let interval = node.mac.take_interval();
            let mut push = |metric: &str, value: f64| {
                self.series.push(SeriesRow {
                    time_s: now.as_secs_f64(),
                    entity: "node".into(),
                    id: node.id.0,
                    metric: metric.into(),
                    value,
                })
            };
            push("queue_packets", node.mac.queued_len() as f64);
            // MST and APR of the packets served in this interval (absent when
            // none was served).
            if interval.packets_served > 0 {
                let served = interval.packets_served as f64;
                push("mac_service_time_ms", interval.service_time_total_ns as f64 / served / 1e6);
                push("rts_attempts_per_packet", interval.rts_attempts_total as f64 / served);
            }
        }
        let next = now + self.series_interval;
        if next <= self.end {
            self.queue.schedule(next, Event::new(0, Layer::Stats, 0));
        }
    }
}
