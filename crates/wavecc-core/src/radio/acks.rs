//! What an RLC status report says, and what its sender's peer makes of it, as
//! ns3-mmwave's RLC AM (`LteRlcAm`) does, misreading included.
//!
//! A report is made from its receiver's state when it is sent
//! (`DoNotifyTxOpportunity`): ACK_SN is VR(MS), the first byte not received at or
//! beyond the point up to which the reordering timer stopped waiting, and the holes
//! below it are NACKed (from VR(R), the next in-order byte). It travels in a
//! transport block, so HARQ can delay it by retransmissions; a report sent a
//! prohibit period later can then reach the sender first.
//!
//! The sender walks its PDUs from VT(A), its lowest unacknowledged one, to ACK_SN,
//! acknowledging the ones not NACKed and advancing VT(A) up to the first NACK. It
//! compares sequence numbers modulo 1024 with VT(A) as the base
//! (`ackSn.SetModulusBase (m_vtA)`), so a report overtaken by a newer one, whose
//! ACK_SN is below VT(A), reads as 1,000-odd numbers ahead: the walk
//! `for (sn = m_vtA; sn < ackSn && sn < m_vtS; sn++)` then acknowledges everything
//! sent. What HARQ had not delivered, or later gives up on, is never sent again; the
//! receiver waits for it for good, holding everything behind it (3GPP TS 36.322
//! acts on a report only for numbers from VT(A) to VT(S), so a standard RLC would
//! ignore such a report).

/// A status report's content, in stream bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportContent {
    /// ACK_SN: VR(MS), the first byte not received at or beyond where the reordering
    /// timer gave up waiting.
    pub ack: u64,
    /// VR(R), the receiver's next in-order byte: the first NACK when below `ack`.
    pub next_in_order: u64,
    /// One past the highest byte received (VR(H)).
    pub highest: u64,
}

/// What a sender learnt from its peer's reports, in the order they reached it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeerAcks {
    /// VT(A): no byte below it awaits acknowledgement.
    lowest_unacked: u64,
    /// One past the highest byte a report said was received: from there on the
    /// sender's poll-retransmit timer sends again (`arq.rs`).
    acked_end: u64,
    /// Bytes below it were acknowledged by a misread report: HARQ's failures among
    /// them are never repaired.
    abandoned_below: u64,
}

impl PeerAcks {
    /// A sender whose stream starts at `at` (everything before it is settled).
    pub fn at(at: u64) -> Self {
        PeerAcks {
            lowest_unacked: at,
            acked_end: at,
            abandoned_below: 0,
        }
    }

    /// One past the highest byte the reports acknowledged.
    pub fn acked_end(&self) -> u64 {
        self.acked_end
    }

    /// A report reaches the sender, which has sent the stream up to `sent_end`
    /// (VT(S)). One overtaken by a newer one is misread as acknowledging everything
    /// sent if `misreads` (then returns true), else ignored.
    pub fn arrive(&mut self, report: ReportContent, sent_end: u64, misreads: bool) -> bool {
        if report.ack < self.lowest_unacked {
            if !misreads {
                return false;
            }
            self.lowest_unacked = sent_end;
            self.acked_end = self.acked_end.max(sent_end);
            self.abandoned_below = self.abandoned_below.max(sent_end);
            return true;
        }
        let first_nack = report.next_in_order.min(sent_end);
        self.lowest_unacked = self.lowest_unacked.max(first_nack);
        self.acked_end = self.acked_end.max(report.highest);
        false
    }

    /// The part of `start..end` still to be repaired when HARQ gives up on it.
    pub fn unabandoned(&self, start: u64, end: u64) -> Option<(u64, u64)> {
        let start = start.max(self.abandoned_below);
        (start < end).then_some((start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(ack: u64, next_in_order: u64, highest: u64) -> ReportContent {
        ReportContent {
            ack,
            next_in_order,
            highest,
        }
    }

    /// In order, reports move VT(A) to the first hole and the acknowledged end to
    /// the highest byte received; nothing is abandoned.
    #[test]
    fn reports_in_order_acknowledge_up_to_their_first_hole() {
        let mut acks = PeerAcks::at(0);
        assert!(!acks.arrive(report(1_000, 1_000, 1_000), 5_000, true));
        assert_eq!((acks.lowest_unacked, acks.acked_end()), (1_000, 1_000));
        // A hole at 1,000 that the reordering timer named: ACK_SN beyond it.
        assert!(!acks.arrive(report(3_000, 1_000, 3_000), 5_000, true));
        assert_eq!((acks.lowest_unacked, acks.acked_end()), (1_000, 3_000));
        // The same state reported again is no news, and no misreading.
        assert!(!acks.arrive(report(3_000, 1_000, 3_000), 5_000, true));
        assert_eq!(acks.abandoned_below, 0);
        assert_eq!(acks.unabandoned(1_000, 2_000), Some((1_000, 2_000)));
    }

    /// A report overtaken by a newer one has its ACK_SN below VT(A): read modulo
    /// 1024 it lies ahead, and everything sent is taken as received.
    #[test]
    fn an_overtaken_report_acknowledges_everything_sent() {
        let mut acks = PeerAcks::at(0);
        let older = report(1_350, 1_350, 1_350);
        let newer = report(1_370, 1_370, 1_370);
        assert!(!acks.arrive(newer, 1_390, true));
        assert!(acks.arrive(older, 1_390, true));
        assert_eq!(acks.lowest_unacked, 1_390);
        assert_eq!(acks.acked_end(), 1_390);
        // HARQ then gives up on 1,370..1,380: it is never repaired; what is sent
        // after the misreading still is.
        assert_eq!(acks.unabandoned(1_370, 1_380), None);
        assert_eq!(acks.unabandoned(1_385, 1_400), Some((1_390, 1_400)));
        assert_eq!(acks.unabandoned(1_400, 1_410), Some((1_400, 1_410)));
    }

    /// Under 3GPP's rule the overtaken report is ignored.
    #[test]
    fn without_the_misreading_an_overtaken_report_is_ignored() {
        let mut acks = PeerAcks::at(0);
        acks.arrive(report(1_370, 1_370, 1_370), 1_390, false);
        let before = acks;
        assert!(!acks.arrive(report(1_350, 1_350, 1_350), 1_390, false));
        assert_eq!(acks, before);
    }

    /// The receiver stuck at the hole keeps reporting it as ACK_SN until its
    /// reordering timer names it: each such report is misread again.
    #[test]
    fn a_receiver_stuck_below_vt_a_is_misread_until_it_nacks_the_hole() {
        let mut acks = PeerAcks::at(0);
        acks.arrive(report(1_370, 1_370, 1_370), 1_390, true);
        assert!(acks.arrive(report(1_350, 1_350, 1_350), 1_390, true));
        assert!(acks.arrive(report(1_370, 1_370, 1_500), 1_600, true));
        assert_eq!(acks.abandoned_below, 1_600);
        // The timer expired: ACK_SN beyond the hole, which is NACKed (and ignored).
        assert!(!acks.arrive(report(1_650, 1_370, 1_650), 1_700, true));
        assert_eq!(acks.lowest_unacked, 1_600);
        assert_eq!(acks.acked_end(), 1_650);
    }
}
