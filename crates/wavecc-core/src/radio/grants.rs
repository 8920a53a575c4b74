//! Uplink grants as ns3-mmwave's MAC gives them: a UE sends only in the symbols the
//! scheduler grants it, and the scheduler grants from the buffer status reports (BSR)
//! the UE sent some subframes before.
//!
//! The module's pipeline (`MmWaveUeMac`, `MmWaveEnbMac`, `MmWaveFlexTtiMacScheduler`,
//! with `L1L2CtrlLatency` = 2 and `UlSchedDelay` = 1 subframes):
//!
//! * Each new SDU makes the UE's RLC report its buffer (`LteRlcAm::DoReportBufferStatus`:
//!   new bytes, bytes awaiting retransmission and an announced status report, see
//!   `status.rs`). The UE's MAC turns it into a BSR at its next slot indication, which
//!   its PHY gives at the start of each of the UE's slots in a subframe (its downlink
//!   and uplink data slots and the uplink control symbol, the last), and the PHY sends
//!   the BSR at the start of the UE's next uplink slot (`GetControlMessages` runs
//!   before the indication). A downlink TB reaches the UE's RLC `TbDecodeLatency`
//!   (one subframe) after its reception ends, so in the next subframe at the symbol
//!   it ended at; usually the next indication is the control symbol's and the BSR
//!   leaves in the control symbol of the subframe after. The radio hands the TB up at
//!   the end of the subframe it reached the UE in, and a report made then belongs to
//!   that subframe. But when the UE has a slot of its own in that subframe starting at
//!   or after the symbol its TB ended at, that slot's indication sends the BSR in the
//!   subframe's own control symbol, a subframe earlier ([`UplinkGrants::sends_early_at`]).
//! * The gNB's MAC hands the reports to the scheduler at the start of the next subframe;
//!   the last one received replaces the scheduler's value (`m_ceBsrRxed`). It then
//!   schedules the subframe `L1L2CtrlLatency` ahead, its downlink and its uplink
//!   together: one share of the data symbols, the uplink TBs placed right after the
//!   downlink ones. A report sent in subframe `n` sets the grants of subframe `n + 3`
//!   on, and one made in `n` and sent in the next, those of `n + 4` on.
//! * A grant covers the reported bytes rounded up to the BSR table's level
//!   (`BufferSizeLevelBsr`, TS 36.321 table 6.1.3.1-1) plus 21 bytes of headers and
//!   margin, in whole symbols at the uplink MCS; the scheduler then deducts the TB less 6 bytes
//!   from its value (`UpdateUlRlcBufferInfo`) and grants again next subframe while any
//!   is left. Grants are not returned: symbols granted to data already sent are lost.
//! * The UE fills a grant when its DCI arrives, `UlSchedDelay` before the TB, with all
//!   it holds then, up to the TB's size.
//!
//! So after a downlink silence the UE's first uplink TB carries its status report on
//! the first downlink TB, one symbol at MCS 0; the first ACKs wait about half a
//! millisecond, those behind them less, and the first full TB carries every ACK the UE
//! holds, so the next window's burst reaches the gNB front-loaded.

use std::collections::VecDeque;

use crate::engine::Time;

/// `BufferSizeLevelBsr`'s levels (bytes): a report names the first level at or above the
/// buffer, and the scheduler reads back that level. The last covers everything larger.
const BSR_LEVELS: [u64; 64] = [
    0, 10, 12, 14, 17, 19, 22, 26, 31, 36, 42, 49, 57, 67, 78, 91, 107, 125, 146, 171, 200, 234,
    274, 321, 376, 440, 515, 603, 706, 826, 967, 1132, 1326, 1552, 1817, 2127, 2490, 2915, 3413,
    3995, 4677, 5476, 6411, 7505, 8787, 10287, 12043, 14099, 16507, 19325, 22624, 26487, 31009,
    36304, 42502, 49759, 58255, 68201, 79846, 93749, 109439, 128125, 150000, 150000,
];

/// Bytes a grant adds to the reported level: the RLC header (3) and 8 more
/// (`m_maxUlBufSize = BSR + m_rlcHdrSize + m_macHdrSize + 8`), and the 10 the
/// scheduler adds again when it sizes the TB (`CalcMinTbSizeNumSym (m_ulMcs,
/// m_maxUlBufSize + 10, ...)`).
const GRANT_HEADER_BYTES: u64 = 21;

/// Bytes of a granted TB the scheduler does not count as data: the MAC subheader (4)
/// and the minimum RLC overhead (2).
const TB_OVERHEAD_BYTES: u64 = 6;

/// The level the scheduler reads back for a buffer of `bytes`.
pub fn bsr_level(bytes: u64) -> u64 {
    BSR_LEVELS
        .iter()
        .copied()
        .find(|&level| level >= bytes)
        .unwrap_or(BSR_LEVELS[63])
}

/// The delays of the pipeline, in subframes of `subframe`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrantTiming {
    pub subframe: Time,
    /// From the scheduler's decision to the subframe it schedules
    /// (`L1L2CtrlLatency`), the downlink's and the uplink's alike.
    pub scheduling_lead: u64,
}

impl GrantTiming {
    /// The module's pipeline with its scheduling latency `l1l2_subframes`.
    pub fn ns3_mmwave(l1l2_subframes: u32, subframe: Time) -> Self {
        GrantTiming {
            subframe,
            scheduling_lead: u64::from(l1l2_subframes),
        }
    }

    /// From the subframe a report is made in to the first subframe a grant from it
    /// applies to: sent in the next subframe's control symbol, handed to the scheduler
    /// at the start of the one after, which schedules `scheduling_lead` ahead.
    pub fn report_to_grant(&self) -> u64 {
        2 + self.scheduling_lead
    }

    /// How long before the subframe it applies to the scheduler decides a grant.
    pub fn decision_lead(&self) -> Time {
        self.scheduling_lead * self.subframe
    }

    /// How long before its TB the UE fills a grant (`UlSchedDelay`): an SDU queued
    /// later waits for the next one.
    pub fn fill_lead(&self) -> Time {
        self.subframe
    }
}

/// The symbol a subframe's first data slot starts at, after the downlink control
/// symbol.
pub const FIRST_DATA_SYMBOL: u32 = 1;

/// Subframes a UE's [`SlotPositions`] remembers.
const REMEMBERED: usize = 8;

/// Where one UE's slots lay in the subframes the scheduler laid out lately, which
/// tells when its reports leave early (the module's pipeline above).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotPositions {
    /// By subframe number modulo `REMEMBERED`: the subframe's start, the symbol after
    /// the UE's downlink TB (if it had one) and the first symbol of its last slot (if
    /// it had any).
    recent: [(Time, Option<u32>, Option<u32>); REMEMBERED],
}

impl SlotPositions {
    /// The scheduler laid out the subframe starting at `air`.
    pub fn lay_out(
        &mut self,
        air: Time,
        subframe: Time,
        dl_end: Option<u32>,
        last_start: Option<u32>,
    ) {
        self.recent[Self::index(air, subframe)] = (air, dl_end, last_start);
    }

    /// Reports the UE makes at `when`, where the radio hands up the downlink TB that
    /// reached it in the subframe ending at or after `when` (`decode` after the
    /// subframe it was on the air in: at a boundary, what reached it before; inside a
    /// subframe, a TB landing then), leave in that subframe's control symbol: one of
    /// the UE's slots there starts at or after the symbol its TB ended at.
    pub fn sends_early(&self, when: Time, decode: Time, subframe: Time) -> bool {
        let reached = (when.div_ceil(subframe) * subframe).saturating_sub(subframe);
        let aired = reached.saturating_sub(decode);
        let dl_end = self.at(aired, subframe).and_then(|r| r.0);
        let last_start = self.at(reached, subframe).and_then(|r| r.1);
        matches!((dl_end, last_start), (Some(end), Some(start)) if start >= end)
    }

    /// The UE's downlink TB end and last slot start in the subframe starting at `air`,
    /// if it is remembered.
    pub fn at(&self, air: Time, subframe: Time) -> Option<(Option<u32>, Option<u32>)> {
        let (at, dl_end, last_start) = self.recent[Self::index(air, subframe)];
        (at == air).then_some((dl_end, last_start))
    }

    fn index(air: Time, subframe: Time) -> usize {
        (air / subframe) as usize % REMEMBERED
    }
}

/// The scheduler's knowledge of one UE's uplink buffer, and the grants it has made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UplinkGrants {
    /// Reports on their way, oldest first: the first subframe whose grant each can set,
    /// and the bytes it reports.
    on_the_way: VecDeque<(Time, u64)>,
    /// The last report that has arrived, less what has been granted since.
    known: u64,
    /// Grants decided and not yet on the air, oldest first: the subframe, the symbols
    /// and their MCS.
    scheduled: VecDeque<(Time, u32, u8)>,
    /// A subframe boundary at which the UE's reports leave in the control symbol of the
    /// subframe ending there (a slot of the UE's started after its downlink TB
    /// reached it, see the module's pipeline above).
    pub sends_early_at: Option<Time>,
}

impl UplinkGrants {
    /// The UE reports `bytes` at `now`: the report sets the grants of the subframe
    /// `report_to_grant` after the subframe `now` falls in, where a report at a
    /// subframe boundary falls in the subframe that ends there (the radio hands up at
    /// a boundary what reached the UE before it), or one subframe earlier when it is
    /// sent in that subframe (`sends_early_at`). Reports made in one subframe reach
    /// the scheduler together, and the last one counts; an early report is the BSR
    /// that the reports of its subframe were waiting for, so it replaces them.
    pub fn report(&mut self, now: Time, bytes: u64, timing: GrantTiming) {
        let made_in_end = now.div_ceil(timing.subframe) * timing.subframe;
        let early = self.sends_early_at == Some(now);
        let usable =
            made_in_end + (timing.report_to_grant() - 1 - u64::from(early)) * timing.subframe;
        while self.on_the_way.back().is_some_and(|last| last.0 > usable) {
            self.on_the_way.pop_back();
        }
        match self.on_the_way.back_mut() {
            Some(last) if last.0 == usable => last.1 = bytes,
            _ => self.on_the_way.push_back((usable, bytes)),
        }
    }

    /// The bytes granted to the UE in the subframe starting at `now` (before headers
    /// and rounding to symbols), if any: the newest report that has arrived replaces
    /// what the scheduler knew.
    pub fn grant(&mut self, now: Time) -> Option<u64> {
        while self.on_the_way.front().is_some_and(|r| r.0 <= now) {
            self.known = self.on_the_way.pop_front().expect("checked").1;
        }
        (self.known > 0).then(|| bsr_level(self.known) + GRANT_HEADER_BYTES)
    }

    /// A TB of `tb_bytes` was granted: the scheduler deducts it from what it knows.
    pub fn granted(&mut self, tb_bytes: u64) {
        self.known = self
            .known
            .saturating_sub(tb_bytes.saturating_sub(TB_OVERHEAD_BYTES));
    }

    /// The scheduler's decision: `symbols` at `mcs` in the subframe starting at `air`.
    pub fn schedule(&mut self, air: Time, symbols: u32, mcs: u8) {
        self.scheduled.push_back((air, symbols, mcs));
    }

    /// The symbols and their MCS scheduled for the subframe starting at `now`, if any
    /// (decisions for earlier subframes, missed, are dropped).
    pub fn take_scheduled(&mut self, now: Time) -> Option<(u32, u8)> {
        while let Some(&(air, symbols, mcs)) = self.scheduled.front() {
            if air > now {
                break;
            }
            self.scheduled.pop_front();
            if air == now {
                return Some((symbols, mcs));
            }
        }
        None
    }

    /// No report is on its way, none is left to grant and no grant waits for its
    /// subframe.
    pub fn is_idle(&self) -> bool {
        self.known == 0 && self.on_the_way.is_empty() && self.scheduled.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SF: Time = 100_000;
    const TIMING: GrantTiming = GrantTiming {
        subframe: SF,
        scheduling_lead: 2,
    };

    #[test]
    fn the_module_reports_four_subframes_ahead_and_fills_one_ahead() {
        let t = GrantTiming::ns3_mmwave(2, SF);
        assert_eq!(t.report_to_grant(), 4);
        assert_eq!(t.decision_lead(), 2 * SF);
        assert_eq!(t.fill_lead(), SF);
        assert_eq!(GrantTiming::ns3_mmwave(1, SF).report_to_grant(), 3);
    }

    #[test]
    fn levels_round_up_and_saturate() {
        assert_eq!(bsr_level(0), 0);
        assert_eq!(bsr_level(1), 10);
        assert_eq!(bsr_level(10), 10);
        assert_eq!(bsr_level(11), 12);
        assert_eq!(bsr_level(1133), 1326);
        assert_eq!(bsr_level(150_000), 150_000);
        assert_eq!(bsr_level(10_000_000), 150_000);
    }

    #[test]
    fn a_report_sets_the_grant_four_subframes_after_its_subframe() {
        let mut g = UplinkGrants::default();
        g.report(10 * SF + 30_000, 100, TIMING);
        assert_eq!(g.grant(13 * SF), None);
        assert_eq!(g.grant(14 * SF), Some(107 + 21));
    }

    #[test]
    fn a_report_at_a_subframe_boundary_belongs_to_the_subframe_ending_there() {
        let mut g = UplinkGrants::default();
        g.report(10 * SF, 100, TIMING);
        assert_eq!(g.grant(12 * SF), None);
        assert!(g.grant(13 * SF).is_some());
    }

    #[test]
    fn the_last_report_of_a_subframe_counts() {
        let mut g = UplinkGrants::default();
        g.report(10 * SF, 100, TIMING);
        g.report(10 * SF + 50_000, 300, TIMING);
        assert_eq!(g.grant(14 * SF), Some(321 + 21));
    }

    #[test]
    fn a_newer_report_replaces_what_is_left() {
        let mut g = UplinkGrants::default();
        g.report(10 * SF + 1, 1000, TIMING);
        g.report(11 * SF + 1, 200, TIMING);
        assert!(g.grant(14 * SF).is_some());
        g.granted(100); // 94 of the 1000 deducted
        assert_eq!(g.grant(15 * SF), Some(200 + 21), "not 906");
    }

    #[test]
    fn grants_go_on_until_the_granted_tbs_cover_the_report() {
        let mut g = UplinkGrants::default();
        g.report(0, 1000, TIMING);
        assert!(g.grant(4 * SF).is_some());
        g.granted(506); // 500 of 1000
        assert_eq!(g.grant(5 * SF), Some(515 + 21));
        g.granted(506);
        assert_eq!(g.grant(6 * SF), None);
        assert!(g.is_idle());
    }

    /// A report sent in the control symbol of the subframe it is made in reaches the
    /// scheduler a subframe earlier, and it is the BSR the earlier reports of that
    /// subframe waited for: they go with it.
    #[test]
    fn a_report_sent_in_its_own_subframe_sets_the_grant_a_subframe_earlier() {
        let mut g = UplinkGrants::default();
        g.report(9 * SF + 50_000, 500, TIMING);
        g.report(10 * SF - 20_000, 700, TIMING);
        g.sends_early_at = Some(10 * SF);
        g.report(10 * SF, 100, TIMING);
        assert_eq!(g.grant(12 * SF), Some(107 + 21), "not the 700 of 13 * SF");
        g.granted(200);
        assert_eq!(g.grant(13 * SF), None, "the 700 went with the early report");
        // Later reports at that boundary go early too; others as before.
        g.report(10 * SF, 300, TIMING);
        g.report(10 * SF + 1, 400, TIMING);
        assert_eq!(g.grant(12 * SF), Some(321 + 21));
        assert_eq!(g.grant(14 * SF), Some(440 + 21));
    }

    #[test]
    fn scheduled_grants_wait_for_their_subframe() {
        let mut g = UplinkGrants::default();
        g.schedule(12 * SF, 2, 28);
        g.schedule(13 * SF, 1, 0);
        g.schedule(15 * SF, 3, 5);
        assert!(!g.is_idle(), "grants wait");
        assert_eq!(g.take_scheduled(11 * SF), None);
        assert_eq!(g.take_scheduled(12 * SF), Some((2, 28)));
        assert_eq!(g.take_scheduled(12 * SF), None, "taken once");
        assert_eq!(g.take_scheduled(14 * SF), None, "13's was missed");
        assert_eq!(g.take_scheduled(15 * SF), Some((3, 5)));
        assert!(g.is_idle());
    }

    /// The module's case: a downlink TB that ended at symbol 22 reaches the UE in the
    /// next subframe at symbol 22; a slot of the UE's starting there sends its report
    /// in that subframe, one starting at 21 does not.
    #[test]
    fn reports_leave_early_after_a_slot_that_starts_after_the_tb_ended() {
        let mut p = SlotPositions::default();
        let b = 12 * SF; // hand-up boundary; aired in 10, reached the UE in 11
        p.lay_out(10 * SF, SF, Some(22), Some(1));
        p.lay_out(11 * SF, SF, Some(22), Some(22));
        assert!(p.sends_early(b, SF, SF));
        p.lay_out(11 * SF, SF, Some(21), Some(21));
        assert!(!p.sends_early(b, SF, SF));
        p.lay_out(11 * SF, SF, None, None);
        assert!(!p.sends_early(b, SF, SF), "no slot of its own");
        p.lay_out(11 * SF, SF, Some(5), Some(22));
        p.lay_out(10 * SF, SF, None, Some(3));
        assert!(!p.sends_early(b, SF, SF), "no downlink TB");
        p.lay_out(10 * SF, SF, Some(22), Some(1));
        assert!(p.sends_early(b, SF, SF));
        // A layout from eight subframes before is another subframe's.
        p.lay_out(18 * SF, SF, None, None);
        assert!(!p.sends_early(b, SF, SF));
        // Decoded in the subframe it was on the air in: the same subframe's slots.
        let mut p = SlotPositions::default();
        p.lay_out(11 * SF, SF, Some(8), Some(9));
        assert!(p.sends_early(b, 0, SF));
    }

    #[test]
    fn idle_only_with_nothing_on_the_way() {
        let mut g = UplinkGrants::default();
        assert!(g.is_idle());
        g.report(0, 10, TIMING);
        assert!(!g.is_idle());
        g.grant(4 * SF);
        g.granted(100);
        assert!(g.is_idle());
    }
}
