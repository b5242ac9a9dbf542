//! 32-bit sequence numbers compared with wrap-around: AODV's (RFC 3561
//! section 6.1).
//!
//! A 32-bit unsigned counter that wraps (4294967295 + 1 = 0); freshness is
//! decided by signed 32-bit subtraction: `a` is newer than `b` when
//! `(a - b) as i32 > 0`. Ordering is therefore partial (it is not
//! transitive across half the number space), as with smoltcp's
//! `TcpSeqNumber`: only `PartialOrd` is implemented.

use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SeqNumber(pub u32);

impl SeqNumber {
    /// The next value, wrapping as an unsigned number (section 6.1).
    pub fn next(self) -> SeqNumber {
        SeqNumber(self.0.wrapping_add(1))
    }

    /// Signed distance `self - other` (section 6.1: negative means stale).
    pub fn diff(self, other: SeqNumber) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }

    /// The fresher of the two.
    pub fn max(self, other: SeqNumber) -> SeqNumber {
        if self.diff(other) >= 0 {
            self
        } else {
            other
        }
    }
}

impl PartialOrd for SeqNumber {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.diff(*other).cmp(&0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increments_wrap_as_unsigned() {
        assert_eq!(SeqNumber(u32::MAX).next(), SeqNumber(0));
        // 2147483647 + 1 is the most negative 32-bit integer (section 6.1).
        assert_eq!(SeqNumber(2_147_483_647).next(), SeqNumber(2_147_483_648));
    }

    #[test]
    fn freshness_survives_the_wrap() {
        assert!(SeqNumber(5) > SeqNumber(4));
        assert!(SeqNumber(0) > SeqNumber(u32::MAX), "0 follows 4294967295");
        assert!(SeqNumber(3) > SeqNumber(u32::MAX - 3));
        assert!(SeqNumber(2_147_483_648) > SeqNumber(2_147_483_647));
        assert!(SeqNumber(7) == SeqNumber(7));
        assert_eq!(SeqNumber(u32::MAX).max(SeqNumber(1)), SeqNumber(1));
        assert_eq!(SeqNumber(10).max(SeqNumber(9)), SeqNumber(10));
        // Stale information compares below (section 6.1: "less than zero").
        assert!(SeqNumber(100).diff(SeqNumber(101)) < 0);
    }
}
