//! The sender's retransmission queue: every segment sent and not yet cumulatively
//! acknowledged, with its SACK / lost / retransmitted marks and the counters Linux
//! keeps beside them (`packets_out`, `sacked_out`, `lost_out`, `retrans_out`), from
//! which the pipe estimate of RFC 6675 follows in O(1).
//!
//! The counters change only through this board's methods, each of which ends by
//! recomputing the pipe: the sender reads it about nine times per ACK and the board
//! changes it two or three times, so it is kept rather than derived on every read.

use super::rate::TxState;
use crate::engine::{RangeSet, Ring};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegInfo {
    pub seq: u64,
    pub len: u32,
    pub sacked: bool,
    /// Considered lost and not yet repaired.
    pub lost: bool,
    /// A retransmission of it is in flight (with ns-3's pipe, also after a SACK,
    /// until the cumulative ACK; see [`super::Pipe`]).
    pub retrans: bool,
    pub ever_retrans: bool,
    pub tx: TxState,
}

impl SegInfo {
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

#[derive(Debug, Default)]
pub struct Scoreboard {
    segs: Ring<SegInfo>,
    packets_out: u32,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
    /// Duplicate ACKs counted as "SACKed" segments when SACK is off (Linux's Reno
    /// emulation), so the same pipe arithmetic serves both.
    reno_sacked: u32,
    /// [`Scoreboard::in_flight`], recomputed by every method that moves a counter.
    pipe: u32,
    /// SACKed byte ranges above the cumulative ACK: lets a repeated SACK block be
    /// skipped without walking its segments again.
    sacked_ranges: RangeSet,
    /// Segments before this index have been examined by the loss detector.
    loss_cursor: usize,
    sacked_below_cursor: u32,
    /// No lost-and-not-retransmitted segment exists before this index.
    retrans_hint: usize,
    /// No segment at or after this index is marked lost: the search for the next
    /// retransmission stops here, not at the end of the board (in a recovery each
    /// newly lost segment sent the search through the rest of the window after it).
    lost_end: usize,
    /// No segment before this index is both un-SACKed and not retransmitted.
    resend_hint: usize,
    /// A retransmitted segment stays counted in `retrans_out`, and so in flight, until
    /// the cumulative ACK passes it, SACKed or not (ns-3 3.37; see [`super::Pipe`]).
    keep_sacked_retrans: bool,
}

impl Scoreboard {
    /// An empty board; `keep_sacked_retrans` as the field says.
    pub fn new(keep_sacked_retrans: bool) -> Self {
        Self {
            keep_sacked_retrans,
            ..Self::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn front(&self) -> Option<&SegInfo> {
        self.segs.front()
    }

    pub fn get(&self, i: usize) -> &SegInfo {
        &self.segs[i]
    }

    /// Packets in flight (Linux `tcp_packets_in_flight`, RFC 6675 pipe).
    pub fn in_flight(&self) -> u32 {
        self.pipe
    }

    /// The pipe from the counters, which [`Self::refresh_pipe`] keeps.
    fn derived_pipe(&self) -> u32 {
        (self.packets_out + self.retrans_out)
            .saturating_sub(self.sacked_out + self.reno_sacked + self.lost_out)
    }

    fn refresh_pipe(&mut self) {
        self.pipe = self.derived_pipe();
    }

    /// Segments sent and not cumulatively acknowledged.
    pub fn packets_out(&self) -> u32 {
        self.packets_out
    }

    pub fn sacked_out(&self) -> u32 {
        self.sacked_out
    }

    /// Segments marked lost and not SACKed since.
    pub fn lost_out(&self) -> u32 {
        self.lost_out
    }

    /// Duplicate ACKs counted so far (without SACK).
    pub fn reno_sacked(&self) -> u32 {
        self.reno_sacked
    }

    /// A duplicate ACK without SACK: one more segment has left the network (Linux
    /// `tcp_add_reno_sack`), at most as many as are outstanding.
    pub fn add_reno_sack(&mut self) {
        self.reno_sacked = (self.reno_sacked + 1).min(self.packets_out);
        self.refresh_pipe();
    }

    /// Forgets the duplicate ACKs (recovery over, or a timeout).
    pub fn reset_reno_sacked(&mut self) {
        self.reno_sacked = 0;
        self.refresh_pipe();
    }

    /// Records a segment sent for the first time. Always inlined into the sender's
    /// transmission, once per segment: out of line (as unrelated changes could
    /// leave it) it cost some 50 instructions per segment on the 1 Gb/s dumbbell.
    #[inline(always)]
    pub fn push(&mut self, seq: u64, len: u32, tx: TxState) {
        debug_assert!(
            self.segs.back().is_none_or(|s| s.end() == seq),
            "segments must be contiguous"
        );
        self.segs.push_back(SegInfo {
            seq,
            len,
            sacked: false,
            lost: false,
            retrans: false,
            ever_retrans: false,
            tx,
        });
        self.packets_out += 1;
        self.refresh_pipe();
    }

    /// Removes the segments fully below `ack`, calling `f` on each; returns how
    /// many were removed.
    ///
    /// The segments are looked at in place and dropped together afterwards, not
    /// copied out one by one. A board with no SACKed, lost or retransmitted segment
    /// (every in-order ACK of a loss-free flow) has no marks to take off the
    /// counters, so it skips those tests per segment.
    pub fn ack_through(&mut self, ack: u64, f: impl FnMut(&SegInfo)) -> usize {
        let n = if self.sacked_out == 0 && self.lost_out == 0 && self.retrans_out == 0 {
            self.visit_acked::<false>(ack, f)
        } else {
            self.visit_acked::<true>(ack, f)
        };
        self.segs.drop_front(n);
        self.packets_out -= n as u32;
        // The indexes into the board move with its front. Once a window has passed
        // without a loss they are all 0 (and nothing below the cursor is SACKed),
        // so one test skips their updates on most ACKs.
        if self.loss_cursor | self.retrans_hint | self.lost_end | self.resend_hint != 0 {
            self.loss_cursor = self.loss_cursor.saturating_sub(n);
            if self.loss_cursor == 0 {
                self.sacked_below_cursor = 0;
            }
            self.retrans_hint = self.retrans_hint.saturating_sub(n);
            self.lost_end = self.lost_end.saturating_sub(n);
            self.resend_hint = self.resend_hint.saturating_sub(n);
        }
        if self.reno_sacked != 0 {
            self.reno_sacked = self
                .reno_sacked
                .saturating_sub(n as u32)
                .min(self.packets_out.saturating_sub(1));
        }
        self.sacked_ranges.remove_below(ack);
        self.refresh_pipe();
        n
    }

    /// Calls `f` on the segments fully below `ack`, in place, and returns how many
    /// there are; with `MARKED`, takes their marks off the counters. Two copies of one
    /// loop, the unmarked one without the per-segment tests (a runtime flag inside
    /// the loop cost 10 instructions per segment on the 1 Gb/s dumbbell).
    fn visit_acked<const MARKED: bool>(&mut self, ack: u64, mut f: impl FnMut(&SegInfo)) -> usize {
        let mut n = 0;
        while let Some(s) = self.segs.get(n) {
            if s.end() > ack {
                break;
            }
            if MARKED {
                if s.sacked {
                    self.sacked_out -= 1;
                    if n < self.loss_cursor {
                        self.sacked_below_cursor -= 1;
                    }
                }
                if s.lost && !s.sacked {
                    self.lost_out -= 1;
                }
                if s.retrans {
                    self.retrans_out -= 1;
                }
            }
            f(s);
            n += 1;
        }
        n
    }

    /// Marks the segments inside SACK block [start, end) as SACKed, calling `f` on
    /// each newly SACKed one; returns how many.
    pub fn sack(&mut self, start: u64, end: u64, mut f: impl FnMut(&SegInfo)) -> u32 {
        let mut n = 0;
        let mut covered = true;
        for (gs, ge) in self.sacked_ranges.gaps(start, end) {
            covered = false;
            let mut i = self.first_at_or_after(gs);
            while let Some(s) = self.segs.get_mut(i) {
                if s.end() > ge {
                    break;
                }
                if !s.sacked {
                    s.sacked = true;
                    self.sacked_out += 1;
                    if s.lost {
                        self.lost_out -= 1;
                    }
                    if s.retrans && !self.keep_sacked_retrans {
                        s.retrans = false;
                        self.retrans_out -= 1;
                    }
                    if i < self.loss_cursor {
                        self.sacked_below_cursor += 1;
                    }
                    f(s);
                    n += 1;
                }
                i += 1;
            }
        }
        // A block without gaps lies inside one range (they are disjoint and apart):
        // nothing to insert. Most blocks of an ACK repeat ones already counted.
        if !covered {
            self.sacked_ranges.insert(start, end);
        }
        self.refresh_pipe();
        n
    }

    /// The index of the first segment that starts at or after `seq`. The segments
    /// are contiguous, so where they all have the first one's length that index is
    /// a division, checked here; otherwise it is searched for (as a search every
    /// time cost about 100 instructions per SACK block in a slow-start overshoot).
    fn first_at_or_after(&self, seq: u64) -> usize {
        let Some(front) = self.segs.front() else {
            return 0;
        };
        let n = self.segs.len();
        let guess = (seq.saturating_sub(front.seq) / u64::from(front.len.max(1))) as usize;
        let i = guess.min(n);
        let after = i == n || self.segs[i].seq >= seq;
        let before = i == 0 || self.segs[i - 1].seq < seq;
        if after && before {
            i
        } else {
            self.segs.partition_point(|s| s.seq < seq)
        }
    }

    /// RFC 6675 IsLost: a segment is lost once `dupthresh` segments above it are
    /// SACKed. Marks every such segment, calling `f` on each; returns how many.
    pub fn mark_lost(&mut self, dupthresh: u32, mut f: impl FnMut(&SegInfo)) -> u32 {
        let mut n = 0;
        while let Some(s) = self.segs.get_mut(self.loss_cursor) {
            if s.sacked {
                self.sacked_below_cursor += 1;
            } else if self.sacked_out - self.sacked_below_cursor >= dupthresh {
                if !s.lost {
                    s.lost = true;
                    self.lost_out += 1;
                    self.retrans_hint = self.retrans_hint.min(self.loss_cursor);
                    self.lost_end = self.lost_end.max(self.loss_cursor + 1);
                    f(s);
                    n += 1;
                }
            } else {
                break;
            }
            self.loss_cursor += 1;
        }
        self.refresh_pipe();
        n
    }

    /// Marks the first segment not yet lost as lost (fast retransmit without SACK,
    /// and RFC 6582's retransmission on a partial ACK). Returns its sequence number.
    pub fn mark_head_lost(&mut self) -> Option<u64> {
        let i = (0..self.segs.len()).find(|&i| !self.get(i).sacked)?;
        let s = self.segs.get_mut(i).expect("in range");
        if s.lost {
            return None;
        }
        s.lost = true;
        self.lost_out += 1;
        self.retrans_hint = 0;
        self.lost_end = self.lost_end.max(i + 1);
        let seq = s.seq;
        self.refresh_pipe();
        Some(seq)
    }

    /// After a retransmission timeout every un-SACKed segment is lost and no
    /// retransmission is in flight any more (Linux `tcp_enter_loss`).
    pub fn mark_all_lost(&mut self) {
        self.segs.for_each_mut(|s| {
            if !s.sacked {
                s.lost = true;
            }
            s.retrans = false;
        });
        self.lost_out = self.packets_out - self.sacked_out;
        self.retrans_out = 0;
        self.loss_cursor = self.segs.len();
        self.sacked_below_cursor = self.sacked_out;
        self.retrans_hint = 0;
        self.lost_end = self.segs.len();
        self.resend_hint = 0;
        self.refresh_pipe();
    }

    /// The first segment neither SACKed nor retransmitted, lost or not: what ns-3
    /// 3.37's `TcpTxBuffer::NextSeg` returns under RFC 6675's rule 3 in recovery,
    /// without the rule's condition that it lie below the highest SACKed segment,
    /// so that it re-sends segments still in flight.
    pub fn next_unsacked_unretransmitted(&mut self) -> Option<usize> {
        let i = (self.resend_hint..self.segs.len()).find(|&i| {
            let s = &self.segs[i];
            !s.retrans && !s.sacked
        });
        self.resend_hint = i.unwrap_or(self.segs.len());
        i
    }

    /// The first segment that is lost and not yet retransmitted (RFC 6675 NextSeg rule 1).
    pub fn next_retransmit(&mut self) -> Option<usize> {
        let i = (self.retrans_hint..self.lost_end).find(|&i| {
            let s = &self.segs[i];
            s.lost && !s.retrans && !s.sacked
        });
        self.retrans_hint = i.unwrap_or(self.lost_end);
        i
    }

    /// Whether the oldest unacknowledged segment has been retransmitted and not
    /// acknowledged since (ns-3's `TcpTxBuffer::IsHeadRetransmitted`).
    pub fn head_retransmitted(&self) -> bool {
        self.segs.front().is_some_and(|s| s.retrans)
    }

    /// The head no longer counts as retransmitted (ns-3 3.29's
    /// `DeleteRetransmittedFlagFromHead` on a partial ACK): it leaves the pipe's
    /// retransmission count, and if lost it is the next segment to retransmit again.
    pub fn forget_head_retransmission(&mut self) {
        let Some(head) = self.segs.get_mut(0) else {
            return;
        };
        if head.retrans {
            head.retrans = false;
            self.retrans_out -= 1;
            self.retrans_hint = 0;
            self.resend_hint = 0;
            self.refresh_pipe();
        }
    }

    /// Segment `i` is sent again: normally a lost one; ns-3's partial-ACK rule also
    /// re-sends a head that is neither lost nor already retransmitted.
    pub fn on_retransmit(&mut self, i: usize, tx: TxState) {
        let s = &mut self.segs[i];
        debug_assert!(!s.retrans && !s.sacked);
        s.retrans = true;
        s.ever_retrans = true;
        s.tx = tx;
        self.retrans_out += 1;
        self.refresh_pipe();
    }

    /// Checks the counters against the marks (tests and debug builds).
    pub fn check_invariants(&self) {
        let count = |f: fn(&SegInfo) -> bool| self.segs.iter().filter(&f).count() as u32;
        assert_eq!(self.packets_out, self.segs.len() as u32);
        assert_eq!(self.sacked_out, count(|s| s.sacked));
        assert_eq!(self.lost_out, count(|s| s.lost && !s.sacked));
        assert_eq!(self.retrans_out, count(|s| s.retrans));
        assert_eq!(self.pipe, self.derived_pipe());
        let below = self
            .segs
            .iter()
            .take(self.loss_cursor)
            .filter(|s| s.sacked)
            .count() as u32;
        assert_eq!(self.sacked_below_cursor, below);
        assert!(self.lost_end <= self.segs.len());
        assert!(self.segs.iter().skip(self.lost_end).all(|s| !s.lost));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MSS: u64 = 1000;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push(i * MSS, MSS as u32, TxState::default());
        }
        b
    }

    #[test]
    fn three_sacks_above_a_hole_make_it_lost() {
        let mut b = board(10);
        b.sack(MSS, 3 * MSS, |_| {});
        assert_eq!(
            b.mark_lost(3, |_| {}),
            0,
            "two SACKed segments are not enough"
        );
        b.sack(3 * MSS, 4 * MSS, |_| {});
        let mut lost = vec![];
        assert_eq!(b.mark_lost(3, |s| lost.push(s.seq)), 1);
        assert_eq!(lost, vec![0]);
        assert_eq!(b.in_flight(), 10 - 3 - 1);
        b.check_invariants();
    }

    #[test]
    fn repeated_sack_blocks_are_not_counted_twice() {
        let mut b = board(10);
        assert_eq!(b.sack(2 * MSS, 5 * MSS, |_| {}), 3);
        assert_eq!(b.sack(2 * MSS, 6 * MSS, |_| {}), 1);
        assert_eq!(b.sacked_out, 4);
        b.check_invariants();
    }

    #[test]
    fn retransmission_then_cumulative_ack_clears_counters() {
        let mut b = board(6);
        b.sack(MSS, 4 * MSS, |_| {});
        b.mark_lost(3, |_| {});
        let i = b.next_retransmit().unwrap();
        assert_eq!(i, 0);
        b.on_retransmit(i, TxState::default());
        assert_eq!(b.next_retransmit(), None);
        assert_eq!(b.in_flight(), 6 - 3 - 1 + 1);
        assert_eq!(b.ack_through(4 * MSS, |_| {}), 4);
        assert_eq!(
            (b.packets_out, b.sacked_out, b.lost_out, b.retrans_out),
            (2, 0, 0, 0)
        );
        b.check_invariants();
    }

    #[test]
    fn ns3_pipe_keeps_a_sacked_retransmission_in_flight_until_the_cumulative_ack() {
        // Segments 0 and 1 lost, 0 retransmitted, then its retransmission SACKed while
        // 1 is still missing. Linux takes it out of flight with the SACK: 5 out, 4
        // SACKed, 1 lost, nothing in flight. ns-3 3.37 keeps its m_retrans, so it
        // still counts one segment in flight.
        for (keep, in_flight) in [(false, 0), (true, 1)] {
            let mut b = Scoreboard::new(keep);
            for i in 0..5 {
                b.push(i * MSS, MSS as u32, TxState::default());
            }
            b.sack(2 * MSS, 5 * MSS, |_| {});
            assert_eq!(b.mark_lost(3, |_| {}), 2);
            let i = b.next_retransmit().unwrap();
            b.on_retransmit(i, TxState::default());
            b.sack(0, MSS, |_| {});
            assert_eq!((b.sacked_out, b.lost_out), (4, 1));
            assert_eq!(b.in_flight(), in_flight, "keep = {keep}");
            assert_eq!(
                b.next_retransmit(),
                Some(1),
                "the SACKed one is not sent again"
            );
            b.check_invariants();
            // A timeout forgets every retransmission, SACKed or not (ns-3
            // `SetSentListLost`).
            b.mark_all_lost();
            assert_eq!((b.retrans_out, b.in_flight()), (0, 0));
            b.check_invariants();
        }
        // The cumulative ACK removes it with its count.
        let mut b = Scoreboard::new(true);
        for i in 0..3 {
            b.push(i * MSS, MSS as u32, TxState::default());
        }
        b.sack(MSS, 3 * MSS, |_| {});
        b.on_retransmit(0, TxState::default());
        b.sack(0, MSS, |_| {});
        assert_eq!((b.retrans_out, b.in_flight()), (1, 1));
        b.ack_through(3 * MSS, |_| {});
        assert_eq!((b.packets_out, b.retrans_out, b.in_flight()), (0, 0, 0));
        b.check_invariants();
    }

    #[test]
    fn rto_marks_everything_unsacked_lost() {
        let mut b = board(5);
        b.sack(2 * MSS, 3 * MSS, |_| {});
        b.mark_all_lost();
        assert_eq!(b.lost_out, 4);
        assert_eq!(b.in_flight(), 0);
        assert_eq!(b.next_retransmit(), Some(0));
        b.check_invariants();
    }

    #[test]
    fn head_lost_without_sack() {
        let mut b = board(3);
        assert_eq!(b.mark_head_lost(), Some(0));
        assert_eq!(b.mark_head_lost(), None, "the head is already lost");
        b.ack_through(MSS, |_| {});
        assert_eq!(
            b.mark_head_lost(),
            Some(MSS),
            "a partial ACK exposes the next hole"
        );
    }

    proptest! {
        /// Counters stay equal to the marks, and the kept pipe to its formula, under
        /// any mix of sends, SACKs, loss marking, retransmissions, duplicate ACKs,
        /// cumulative ACKs and timeouts, with either pipe.
        #[test]
        fn counters_match_marks(ops in prop::collection::vec((0u8..9, 0u64..40, 1u64..6), 1..60), keep in any::<bool>()) {
            let mut b = Scoreboard::new(keep);
            let mut end = 0;
            for _ in 0..40 {
                b.push(end * MSS, MSS as u32, TxState::default());
                end += 1;
            }
            let mut una = 0;
            for (op, a, len) in ops {
                match op {
                    0 => { b.sack((una + a) * MSS, (una + a + len) * MSS, |_| {}); }
                    1 => { b.mark_lost(3, |_| {}); }
                    2 => if let Some(i) = b.next_retransmit() { b.on_retransmit(i, TxState::default()); },
                    3 => { una = (una + a.min(3)).min(end); b.ack_through(una * MSS, |_| {}); }
                    4 => b.mark_all_lost(),
                    5 => b.add_reno_sack(),
                    6 => b.reset_reno_sacked(),
                    7 => { b.mark_head_lost(); }
                    _ => { b.push(end * MSS, MSS as u32, TxState::default()); end += 1; }
                }
                b.check_invariants();
            }
        }
    }
}
