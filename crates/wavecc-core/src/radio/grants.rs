//! Uplink grants as ns3-mmwave's MAC gives them: a UE sends only in the symbols the
//! scheduler grants it, and the scheduler grants from the buffer status reports (BSR)
//! the UE sent some subframes before.
//!
//! The module's pipeline (`MmWaveUeMac`, `MmWaveEnbMac`, `MmWaveFlexTtiMacScheduler`,
//! with `L1L2CtrlLatency` = 2 and `UlSchedDelay` = 1 subframes):
//!
//! * Each new SDU makes the UE's RLC report its buffer (`LteRlcAm::DoReportBufferStatus`:
//!   new bytes, bytes awaiting retransmission and an announced status report, see
//!   `status.rs`); the report leaves in the uplink control symbol at the end of that
//!   subframe. A downlink TB reaches the UE's RLC `TbDecodeLatency` (one subframe)
//!   after its reception ends, just before the end of the next subframe; the radio
//!   hands it up at that subframe's end, and what it makes the UE report belongs to the
//!   subframe that ends there.
//! * The gNB's MAC hands the reports to the scheduler at the start of the next subframe;
//!   the last one received replaces the scheduler's value (`m_ceBsrRxed`). It then
//!   schedules the subframe `L1L2CtrlLatency` ahead, whose uplink grants apply one
//!   subframe later still: a report sent in subframe `n` sets the grants of subframe
//!   `n + 4` on.
//! * A grant covers the reported bytes rounded up to the BSR table's level
//!   (`BufferSizeLevelBsr`, TS 36.321 table 6.1.3.1-1) plus 11 bytes of headers, in
//!   whole symbols at the uplink MCS; the scheduler then deducts the TB less 6 bytes
//!   from its value (`UpdateUlRlcBufferInfo`) and grants again next subframe while any
//!   is left. Grants are not returned: symbols granted to data already sent are lost.
//! * The UE fills a grant when its DCI arrives, one subframe before the TB, with all it
//!   holds then, up to the TB's size.
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
/// (`m_maxUlBufSize = BSR + m_rlcHdrSize + m_macHdrSize + 8`).
const GRANT_HEADER_BYTES: u64 = 11;

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
    /// From the subframe a packet reaches the UE's buffer in to the first subframe a
    /// grant from its report applies to (1 + `L1L2CtrlLatency` + `UlSchedDelay`).
    pub report_to_grant: u64,
}

impl GrantTiming {
    /// The module's pipeline with its scheduling latency `l1l2_subframes`.
    pub fn ns3_mmwave(l1l2_subframes: u32, subframe: Time) -> Self {
        GrantTiming {
            subframe,
            report_to_grant: 1 + u64::from(l1l2_subframes) + 1,
        }
    }

    /// How long before its TB the UE fills a grant (`UlSchedDelay`): an SDU queued
    /// later waits for the next one.
    pub fn fill_lead(&self) -> Time {
        self.subframe
    }
}

/// The scheduler's knowledge of one UE's uplink buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UplinkGrants {
    /// Reports on their way, oldest first: the first subframe whose grant each can set,
    /// and the bytes it reports.
    on_the_way: VecDeque<(Time, u64)>,
    /// The last report that has arrived, less what has been granted since.
    known: u64,
}

impl UplinkGrants {
    /// The UE reports `bytes` at `now`: the report sets the grants of the subframe
    /// `report_to_grant` after the subframe `now` falls in, where a report at a
    /// subframe boundary falls in the subframe that ends there (the radio hands up at
    /// a boundary what reached the UE just before it). Reports made in one subframe
    /// reach the scheduler together, and the last one counts.
    pub fn report(&mut self, now: Time, bytes: u64, timing: GrantTiming) {
        let usable = now.div_ceil(timing.subframe) * timing.subframe
            + (timing.report_to_grant - 1) * timing.subframe;
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

    /// No report is on its way and none is left to grant.
    pub fn is_idle(&self) -> bool {
        self.known == 0 && self.on_the_way.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SF: Time = 100_000;
    const TIMING: GrantTiming = GrantTiming {
        subframe: SF,
        report_to_grant: 4,
    };

    #[test]
    fn the_module_reports_four_subframes_ahead_and_fills_one_ahead() {
        let t = GrantTiming::ns3_mmwave(2, SF);
        assert_eq!(t.report_to_grant, 4);
        assert_eq!(t.fill_lead(), SF);
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
        assert_eq!(g.grant(14 * SF), Some(107 + 11));
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
        assert_eq!(g.grant(14 * SF), Some(321 + 11));
    }

    #[test]
    fn a_newer_report_replaces_what_is_left() {
        let mut g = UplinkGrants::default();
        g.report(10 * SF + 1, 1000, TIMING);
        g.report(11 * SF + 1, 200, TIMING);
        assert!(g.grant(14 * SF).is_some());
        g.granted(100); // 94 of the 1000 deducted
        assert_eq!(g.grant(15 * SF), Some(200 + 11), "not 906");
    }

    #[test]
    fn grants_go_on_until_the_granted_tbs_cover_the_report() {
        let mut g = UplinkGrants::default();
        g.report(0, 1000, TIMING);
        assert!(g.grant(4 * SF).is_some());
        g.granted(506); // 500 of 1000
        assert_eq!(g.grant(5 * SF), Some(515 + 11));
        g.granted(506);
        assert_eq!(g.grant(6 * SF), None);
        assert!(g.is_idle());
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
