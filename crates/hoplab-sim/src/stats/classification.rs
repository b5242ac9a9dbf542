//! Ground truth for loss differentiation (seed 001's Table 4): each data
//! segment a receiver-aided flow loses has a true cause, known to the
//! simulator; each verdict the receiver gives is counted against it.
//!
//! True causes: a copy lost to a channel error (`channel_error`: the MAC's
//! last retry was corrupted by the frame error model) is a **wireless**
//! loss, and so is a copy dropped as `route_break` by the routing's
//! handling of that same failure (AODV takes the failed link for broken
//! and drops what was queued for it: the channel error caused those
//! losses too). Every other drop (queue overflow, MAC retry limit, no
//! route, other route breaks, TTL) is a **congestion** loss: the paper's
//! two classes (section 3.2: "contention failure" vs "sporadic wireless
//! channel error"). A segment whose copies were lost to several causes
//! counts by its latest dropped copy, the one whose absence the receiver
//! noticed.
//! A verdict on a segment that no drop took (it arrives later: reordering
//! after a route change) counts as **not lost**.

use crate::wire::tcp::LossHint;
use std::collections::BTreeMap;
use std::ops::Range;

/// True classes, in report order.
pub const TRUE_CLASSES: [&str; 3] = ["congestion", "wireless", "not_lost"];
/// Verdicts, in report order.
pub const VERDICTS: [&str; 3] = ["congestion", "dubious", "wireless"];
/// TCP-RA's congestion grades (section 2.1), in report order.
pub const GRADES: [&str; 3] = ["slight", "middle", "heavy"];

fn verdict_index(hint: LossHint) -> usize {
    match hint {
        LossHint::Congestion => 0,
        LossHint::Dubious => 1,
        LossHint::Wireless => 2,
    }
}

/// The confusion matrix of one flow.
#[derive(Debug, Clone, Default)]
pub struct LossClassification {
    /// Whether the latest dropped copy of each segment not yet judged or
    /// delivered was a wireless loss.
    latest_drop: BTreeMap<u64, bool>,
    /// counts[true class][verdict].
    pub counts: [[u64; 3]; 3],
    /// grades[true class][grade]: the grade each missing segment was
    /// judged at (seed 001's Table 1).
    pub grades: [[u64; 3]; 3],
}

impl LossClassification {
    /// A copy of data segment `seq` was dropped, by a wireless or a
    /// congestion loss.
    pub fn on_drop(&mut self, seq: u64, wireless: bool) {
        self.latest_drop.insert(seq, wireless);
    }

    /// The receiver judged the segments `missing` with `hint`, at `grade`
    /// if it grades.
    pub fn on_verdict(&mut self, missing: Range<u64>, hint: LossHint, grade: Option<u8>) {
        for seq in missing {
            let class = self.latest_drop.remove(&seq).map_or(2, usize::from);
            self.counts[class][verdict_index(hint)] += 1;
            if let Some(grade) = grade {
                self.grades[class][usize::from(grade.min(2))] += 1;
            }
        }
    }

    /// Segments below `rcv_nxt` arrived: their drops need no verdict any
    /// more (a loss the receiver never saw as a hole, e.g. a tail loss
    /// repaired by a timeout, is not counted).
    pub fn forget_below(&mut self, rcv_nxt: u64) {
        if self.latest_drop.first_key_value().is_some_and(|(&seq, _)| seq < rcv_nxt) {
            self.latest_drop = self.latest_drop.split_off(&rcv_nxt);
        }
    }

    /// The report's map: true class -> verdict -> count.
    pub fn report(&self) -> BTreeMap<String, BTreeMap<String, u64>> {
        table(&self.counts, &VERDICTS)
    }

    /// The report's map: true class -> grade -> count.
    pub fn grade_report(&self) -> BTreeMap<String, BTreeMap<String, u64>> {
        table(&self.grades, &GRADES)
    }
}

fn table(counts: &[[u64; 3]; 3], columns: &[&str; 3]) -> BTreeMap<String, BTreeMap<String, u64>> {
    TRUE_CLASSES
        .iter()
        .zip(counts)
        .map(|(class, row)| (class.to_string(), columns.iter().zip(row).map(|(v, &n)| (v.to_string(), n)).collect()))
        .collect()
}

impl LossClassification {
    /// A flow's section of the run report: the confusion matrix
    /// (`loss_classification`) and the grades (`loss_grades`), null for a
    /// flow whose receiver gives no verdicts.
    pub fn section(of: Option<&LossClassification>) -> crate::engine::Section {
        let value = |t: Option<BTreeMap<String, BTreeMap<String, u64>>>| serde_json::to_value(t).unwrap_or_default();
        crate::engine::Section::from([
            ("loss_classification".to_string(), value(of.map(|c| c.report()))),
            ("loss_grades".to_string(), value(of.map(|c| c.grade_report()))),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_count_against_the_latest_drop_of_each_segment() {
        let mut c = LossClassification::default();
        c.on_drop(3, true);
        c.on_drop(4, false);
        c.on_drop(4, true); // the retransmission, lost again
        c.on_drop(5, false);
        c.on_verdict(3..6, LossHint::Wireless, Some(0));
        assert_eq!(c.counts[1][2], 2, "3 and 4: wireless, judged wireless");
        assert_eq!(c.counts[0][2], 1, "5: congestion, judged wireless");
        // 7 was never dropped: a reordering.
        c.on_verdict(7..8, LossHint::Dubious, Some(1));
        assert_eq!(c.counts[2][1], 1);
        // Judged once: a second verdict on 3 finds no drop.
        c.on_verdict(3..4, LossHint::Congestion, None);
        assert_eq!(c.counts[2][0], 1);
        let report = c.report();
        assert_eq!(report["wireless"]["wireless"], 2);
        assert_eq!(report["congestion"]["dubious"], 0);
        let grades = c.grade_report();
        assert_eq!((grades["wireless"]["slight"], grades["congestion"]["slight"], grades["not_lost"]["middle"]), (2, 1, 1));
    }

    #[test]
    fn delivered_segments_are_forgotten() {
        let mut c = LossClassification::default();
        c.on_drop(1, false);
        c.on_drop(9, false);
        c.forget_below(5);
        c.on_verdict(1..2, LossHint::Congestion, None);
        c.on_verdict(9..10, LossHint::Congestion, None);
        assert_eq!((c.counts[0][0], c.counts[2][0]), (1, 1), "1 was forgotten, 9 kept");
    }
}
