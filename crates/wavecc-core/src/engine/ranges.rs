//! A set of disjoint, non-adjacent byte ranges [start, end), kept sorted. Holds the
//! TCP receiver's out-of-order data, the sender's SACKed ranges and the RLC
//! receiver's reassembled bytes; all stay small (one range per hole), so a sorted
//! vector beats any tree.

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<(u64, u64)>,
    /// Bytes in the set, kept as ranges come and go: the receiver reads it for every
    /// ACK it sends.
    total: u64,
}

impl RangeSet {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().copied()
    }

    pub fn total_len(&self) -> u64 {
        self.total
    }

    fn len_of(ranges: &[(u64, u64)]) -> u64 {
        ranges.iter().map(|(s, e)| e - s).sum()
    }

    /// The range containing byte `x`.
    pub fn containing(&self, x: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|&(_, e)| e <= x);
        self.ranges.get(i).copied().filter(|&(s, _)| s <= x)
    }

    /// True when [start, end) is entirely in the set.
    pub fn covers(&self, start: u64, end: u64) -> bool {
        self.containing(start).is_some_and(|(_, e)| e >= end)
    }

    /// Inserts [start, end), merging with overlapping or adjacent ranges.
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let lo = self.ranges.partition_point(|&(_, e)| e < start);
        let hi = self.ranges.partition_point(|&(s, _)| s <= end);
        let (mut s, mut e) = (start, end);
        if lo < hi {
            s = s.min(self.ranges[lo].0);
            e = e.max(self.ranges[hi - 1].1);
            self.total -= Self::len_of(&self.ranges[lo..hi]);
        }
        self.total += e - s;
        self.ranges.splice(lo..hi, [(s, e)]);
    }

    /// The parts of [start, end) not yet in the set, in order.
    pub fn gaps(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut cur = start;
        let first = self.ranges.partition_point(|&(_, e)| e <= start);
        for &(s, e) in &self.ranges[first..] {
            if s >= end {
                break;
            }
            if s > cur {
                out.push((cur, s));
            }
            cur = cur.max(e);
        }
        if cur < end {
            out.push((cur, end));
        }
        out
    }

    /// Removes everything below `x`, returning the range that started at or below
    /// `x` and extends past it, if any (the receiver uses it to advance `rcv_nxt`).
    pub fn remove_below(&mut self, x: u64) -> Option<(u64, u64)> {
        let n = self.ranges.partition_point(|&(s, _)| s <= x);
        let merged = n
            .checked_sub(1)
            .map(|i| self.ranges[i])
            .filter(|&(_, e)| e > x);
        if n > 0 {
            self.total -= Self::len_of(&self.ranges[..n]);
            self.ranges.drain(..n);
        }
        merged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn insert_merges_overlapping_and_adjacent() {
        let mut r = RangeSet::default();
        r.insert(10, 20);
        r.insert(30, 40);
        r.insert(20, 30);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(10, 40)]);
        r.insert(50, 60);
        r.insert(5, 12);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(5, 40), (50, 60)]);
        assert_eq!(r.total_len(), 45);
    }

    #[test]
    fn gaps_are_the_uncovered_parts() {
        let mut r = RangeSet::default();
        r.insert(10, 20);
        r.insert(30, 40);
        assert_eq!(r.gaps(0, 50), vec![(0, 10), (20, 30), (40, 50)]);
        assert_eq!(r.gaps(12, 18), vec![]);
        assert_eq!(r.gaps(15, 35), vec![(20, 30)]);
    }

    #[test]
    fn remove_below_returns_the_straddling_range() {
        let mut r = RangeSet::default();
        r.insert(10, 20);
        r.insert(30, 40);
        assert_eq!(r.remove_below(10), Some((10, 20)));
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(30, 40)]);
        assert_eq!(r.remove_below(25), None);
        assert_eq!(r.iter().count(), 1);
    }

    proptest! {
        /// The set agrees with a plain bitmap of bytes, whatever the order of
        /// inserts and removals.
        #[test]
        fn matches_a_bitmap(ops in prop::collection::vec((0u8..4, 0u64..200, 1u64..30), 0..40)) {
            let mut r = RangeSet::default();
            let mut bits = vec![false; 256];
            for (op, s, len) in ops {
                if op == 3 {
                    r.remove_below(s);
                    // Every run of bytes that starts at or below `s` goes, whole.
                    let mut x = 0;
                    while x < bits.len() {
                        let start = x;
                        while x < bits.len() && bits[x] {
                            x += 1;
                        }
                        if x > start && start as u64 <= s {
                            bits[start..x].fill(false);
                        }
                        x += 1;
                    }
                } else {
                    let e = (s + len).min(256);
                    r.insert(s, e);
                    bits[s as usize..e as usize].iter_mut().for_each(|b| *b = true);
                }
            }
            for x in 0..256u64 {
                prop_assert_eq!(r.containing(x).is_some(), bits[x as usize]);
            }
            let v: Vec<_> = r.iter().collect();
            for w in v.windows(2) {
                prop_assert!(w[0].1 < w[1].0, "ranges must be disjoint and non-adjacent");
            }
            prop_assert_eq!(r.total_len() as usize, bits.iter().filter(|&&b| b).count());
            let gap_len: u64 = r.gaps(0, 256).iter().map(|(s, e)| e - s).sum();
            prop_assert_eq!(gap_len as usize, bits.iter().filter(|&&b| !b).count());
        }
    }
}
