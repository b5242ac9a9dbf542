//! What a run holds in memory, and the budget it must stay within
//! (`RunOptions::memory_limit`).
//!
//! Each thing a run can grow is counted (neighbour lists, nodes, series
//! rows, pending events, buffered packets, route caches, transport
//! records) and the
//! count multiplied by the size of one, with the allocator's and the
//! collection's overhead where it matters. Counting, rather than asking
//! the allocator, keeps a stop deterministic: the same scenario and seed
//! stop at the same event whatever else the process holds. The run loop
//! reads the holdings every 65,536 events, with the wall clock, so a run
//! exceeds its budget by at most what 65,536 events add (a few MB).

use super::{Node, World};
use crate::net::routing::{Routing, RoutingProtocol};
use crate::phy::channel::Neighbour;
use crate::queue::Queued;
use crate::stats::report::SeriesRow;

/// One series row: the row, its two short strings on the heap (16 bytes
/// each with the allocator's header), and its JSON text in the report
/// (about 90 bytes).
pub const SERIES_ROW_BYTES: u64 = std::mem::size_of::<SeriesRow>() as u64 + 32 + 90;

/// One node: its layers, its routing protocol, and what they allocate at
/// the start (the interface queue's first slots, timers, tables).
pub const NODE_BYTES: u64 = (size_of::<Node>() + size_of::<RoutingProtocol>() + 1024) as u64;

/// One entry of a B-tree map of 8-byte keys (a transport's records): the
/// entry, and its share of a node's header and unused slots.
pub const RECORD_BYTES: u64 = 48;

pub use crate::engine::Holding;

/// The neighbour lists' entries (the channel's, per radio).
pub fn neighbour_lists(entries: u64) -> Holding {
    Holding::of("neighbour lists", entries, "entries", size_of::<Neighbour>() as u64, "use fewer or sparser nodes")
}

/// The nodes' layers.
pub fn nodes(count: u64) -> Holding {
    Holding::of("nodes", count, "nodes", NODE_BYTES, "use fewer nodes")
}

/// The time series' rows.
pub fn series_rows(rows: u64) -> Holding {
    Holding::of("series", rows, "rows", SERIES_ROW_BYTES, "raise stats.series_interval_s or run without series")
}

/// The flows, each with room for 64 transport records.
pub fn flows(count: u64) -> Holding {
    Holding::of("flows", count, "flows", size_of::<super::Flow>() as u64 + 64 * RECORD_BYTES, "use fewer flows")
}

impl World {
    /// What the run holds now, largest first.
    pub fn holdings(&self) -> Vec<Holding> {
        let node_count = self.nodes.len() as u64;
        let neighbours = self.channel.neighbour_entries() as u64;
        let buffered: u64 = self.nodes.iter().map(|n| n.mac.queued_len() as u64).sum::<u64>()
            + self.ll_transit.len() as u64
            + self.link_packets().count() as u64
            + self.routing.iter().map(|r| r.buffered().count() as u64).sum::<u64>()
            + self.flows.iter().map(|f| f.held().count() as u64).sum::<u64>();
        let records: u64 = self.flows.iter().map(|f| f.records()).sum();
        let mut holdings = vec![
            neighbour_lists(neighbours),
            nodes(node_count),
            // Rows kept, their room allocated.
            Holding { bytes: self.series.capacity() as u64 * SERIES_ROW_BYTES, ..series_rows(self.series.len() as u64) },
            Holding {
                what: "event queue",
                count: self.queue.len() as u64,
                unit: "events",
                bytes: self.queue.capacity() as u64 * self.queue.entry_bytes() as u64,
                remedy: "use fewer nodes or flows",
            },
            Holding::of(
                "buffered packets",
                buffered,
                "packets",
                size_of::<Queued>() as u64,
                "use smaller buffers (mac.queue_packets, the routing protocol's buffer in [routing.<protocol>], ...)",
            ),
            Holding::of("transport records", records, "segments", RECORD_BYTES, "use fewer or shorter flows"),
        ];
        holdings.extend(RoutingProtocol::holdings(&self.routing));
        holdings.sort_by(|a, b| b.bytes.cmp(&a.bytes));
        holdings
    }

    /// None while the run's holdings fit in `limit_bytes`; else what to
    /// tell the user (what grew, how far, what to change).
    pub(crate) fn over_memory_limit(&self, limit_bytes: u64) -> Option<String> {
        let holdings = self.holdings();
        let total: u64 = holdings.iter().map(|h| h.bytes).sum();
        if total <= limit_bytes {
            return None;
        }
        let largest = &holdings[0];
        Some(format!(
            "memory limit of {} reached at simulated time {:.3} s of {:.3} s: {} hold {} {} (~{} of ~{} in all); {}, or raise the memory limit (--memory-limit)",
            format_bytes(limit_bytes),
            self.now().as_secs_f64(),
            self.end.as_secs_f64(),
            largest.what,
            with_commas(largest.count),
            largest.unit,
            format_bytes(largest.bytes),
            format_bytes(total),
            largest.remedy,
        ))
    }
}

/// Bytes for people: "512 kB", "3.2 MB", "4.0 GB" (powers of 1000).
pub fn format_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..=999_999 => format!("{:.0} kB", (b / 1e3).max(1.0)),
        1_000_000..=999_999_999 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.1} GB", b / 1e9),
    }
}

/// 3000000 -> "3,000,000".
pub fn with_commas(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_counts_read_as_people_write_them() {
        assert_eq!(format_bytes(0), "1 kB");
        assert_eq!(format_bytes(512_000), "512 kB");
        assert_eq!(format_bytes(3_210_000), "3.2 MB");
        assert_eq!(format_bytes(4_000_000_000), "4.0 GB");
        assert_eq!(with_commas(3_000_000), "3,000,000");
        assert_eq!(with_commas(999), "999");
        assert_eq!(with_commas(1000), "1,000");
    }
}
