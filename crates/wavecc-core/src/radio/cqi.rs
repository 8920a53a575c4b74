//! The downlink CQI as ns3-mmwave's scheduler (`MmWaveFlexTtiMacScheduler`, the
//! default of its `MmWaveHelper`) holds it, and the MCS a TB gets from it.
//!
//! The module's rules, in order:
//!
//! * The UE makes a wideband CQI report from the SINR of each downlink data block it
//!   receives and from nothing else: `MmWaveUePhy::GenerateDlCqiReport` is the SINR
//!   callback of the data channel only, and runs only while a data slot is scheduled
//!   for the UE. Control symbols make no report, so a UE without downlink data makes
//!   none.
//! * The report leaves in the uplink control symbol at the end of that subframe; the
//!   eNB's MAC hands it to the scheduler at the start of the next subframe
//!   (`MmWaveEnbMac::DoSubframeIndication`), just before it triggers the schedule of
//!   the subframe `L1L2CtrlLatency` (2) ahead. A report on a TB of subframe n thus
//!   first sets the MCS of subframe n + 3.
//! * Each report restarts the UE's timer at `CqiTimerThreshold` (default 100
//!   subframes, 10 ms). `RefreshDlCqiMaps`, called once per subframe before
//!   scheduling, counts it down and erases the report when it reaches zero: the
//!   report of subframe n sets the MCS of subframes n + 3 to n + 102 and is gone for
//!   n + 103, unless a newer report has reached the scheduler by then. One still on
//!   its way does not count: with TBs in subframes n, n + 101 and n + 102, the TB of
//!   n + 103 is scheduled without a report.
//! * A UE with queued data and no report is scheduled with CQI 1, "the lowest value
//!   for trying a transmission", which `MmWaveAmc::GetMcsFromCqi` maps to MCS 0.
//!   Those TBs make reports too, and the first of them is used 3 subframes on.
//!
//! So after a downlink silence of more than 10 ms (a TCP window sent as one burst
//! per round trip, then nothing until the ACKs return) the first three subframes
//! of the next burst carry about one SDU each at MCS 0 while the burst waits in the
//! RLC buffer behind them. The raw traces of the 21 ns3-mmwave runs behind
//! validation/ns3mmwave's references (TCP and UDP, FB-TCP scripts 1-4) bear the rule
//! out TB by TB: it names 3,311 of their new downlink TBs as scheduled without a
//! report, and all of them went at MCS 0; the 270 other new TBs at MCS 0 saw an
//! SINR of 3.4 dB or less, a blocked link on which link adaptation chose it.

use crate::engine::{Ring, Time};

/// How long a CQI report sets the MCS, and how long a new one takes to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CqiExpiry {
    /// From the first TB a report can set the MCS of to the first one it no longer
    /// can.
    pub validity: Time,
    /// From a TB to the first TB whose MCS the report on it can set.
    pub report_delay: Time,
}

impl CqiExpiry {
    /// The module's rule for a report kept `timer_subframes` subframes
    /// (`CqiTimerThreshold`) on subframes of `subframe` length, with the scheduler
    /// working `l1l2_subframes` ahead (`L1L2CtrlLatency`): the report is sent at the
    /// end of the TB's subframe and reaches the scheduler at the next one, so it first
    /// sets the MCS `1 + l1l2_subframes` subframes after the TB. A timer of 0 keeps
    /// no report: every TB goes at MCS 0, as in the module.
    pub fn ns3_mmwave(timer_subframes: u32, l1l2_subframes: u32, subframe: Time) -> Self {
        CqiExpiry {
            validity: u64::from(timer_subframes) * subframe,
            report_delay: (1 + u64::from(l1l2_subframes)) * subframe,
        }
    }
}

/// The scheduler's CQI for one UE's downlink.
#[derive(Clone, Debug, Default)]
pub struct CqiState {
    /// Downlink TBs, oldest first, each of which the UE reported on, with the MCS its
    /// report asks for: the newest one whose report has reached the scheduler, then
    /// those whose reports are on their way. Empty before the first TB.
    tbs: Ring<(Time, u8)>,
}

impl CqiState {
    /// The MCS of a TB sent at `now`. With `expiry`, the module's rule: the MCS of the
    /// newest report that has reached the scheduler while it is held, else MCS 0.
    /// Without, link adaptation's `current_mcs` (a report never expires and the first
    /// one is there from the start).
    pub fn mcs(&self, now: Time, current_mcs: u8, expiry: Option<CqiExpiry>) -> u8 {
        match expiry {
            Some(e) => self.held_report(now, e).unwrap_or(0),
            None => current_mcs,
        }
    }

    /// Records a TB sent at `now`, on which the UE reports the MCS its SINR supports
    /// (`reported_mcs`), and forgets the reports that a newer one has replaced by then.
    /// TBs come in time order, which [`Self::held_report`] relies on.
    pub fn transmitted(&mut self, now: Time, reported_mcs: u8, expiry: Option<CqiExpiry>) {
        let Some(e) = expiry else { return };
        while self
            .tbs
            .get(1)
            .is_some_and(|&(t, _)| t + e.report_delay <= now)
        {
            self.tbs.drop_front(1);
        }
        match self.tbs.back_mut() {
            // Two TBs at once (a HARQ retransmission beside new data) meet one SINR.
            Some(last) if last.0 == now => last.1 = reported_mcs,
            last => {
                debug_assert!(last.is_none_or(|l| l.0 < now), "TBs in time order");
                self.tbs.push_back((now, reported_mcs))
            }
        }
    }

    /// The MCS of the newest report that has reached the scheduler by `now`, while it
    /// is still valid. The reports that have are the oldest TBs' (they come in time
    /// order), at most the few since [`Self::transmitted`] last dropped all but the
    /// newest of them: read from the front, as searching from the newest back over
    /// the reports still on their way (up to a subframe's TBs each) made the CQI's
    /// functions cost `urban` 43 instructions per delivered segment (22 now,
    /// docs/performance.md).
    fn held_report(&self, now: Time, e: CqiExpiry) -> Option<u8> {
        let mut held = None;
        let mut i = 0;
        while let Some(&(t, mcs)) = self.tbs.get(i).filter(|&&(t, _)| t + e.report_delay <= now) {
            held = Some((t, mcs));
            i += 1;
        }
        held.filter(|&(t, _)| now < t + e.report_delay + e.validity)
            .map(|(_, mcs)| mcs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBFRAME: Time = 100_000;
    const REPORTED: u8 = 28;
    const NS3: Option<CqiExpiry> = Some(CqiExpiry {
        validity: 100 * SUBFRAME,
        report_delay: 3 * SUBFRAME,
    });

    /// Sends a TB in each of `subframes` under `expiry`; returns their MCS.
    fn send(s: &mut CqiState, subframes: &[u64], expiry: Option<CqiExpiry>) -> Vec<u8> {
        subframes
            .iter()
            .map(|&n| {
                let now = n * SUBFRAME;
                let mcs = s.mcs(now, REPORTED, expiry);
                s.transmitted(now, REPORTED, expiry);
                mcs
            })
            .collect()
    }

    /// A UE whose report of subframe 10 is held (it was sent in 0..=10, one TB each).
    fn settled(expiry: Option<CqiExpiry>) -> CqiState {
        let mut s = CqiState::default();
        send(&mut s, &(0..=10).collect::<Vec<_>>(), expiry);
        s
    }

    #[test]
    fn the_profile_default_is_the_modules_ten_ms() {
        assert_eq!(Some(CqiExpiry::ns3_mmwave(100, 2, SUBFRAME)), NS3);
    }

    #[test]
    fn a_report_sets_the_mcs_up_to_subframe_n_plus_102() {
        assert_eq!(send(&mut settled(NS3), &[10 + 102], NS3), [REPORTED]);
    }

    #[test]
    fn a_report_is_gone_at_subframe_n_plus_103() {
        assert_eq!(send(&mut settled(NS3), &[10 + 103], NS3), [0]);
    }

    #[test]
    fn after_expiry_three_subframes_go_blind_until_the_first_blind_tbs_report() {
        let mut s = settled(NS3);
        assert_eq!(
            send(&mut s, &[200, 201, 202, 203], NS3),
            [0, 0, 0, REPORTED]
        );
        // Not back to back: the report of 400 is the one that counts, from 403 on.
        assert_eq!(send(&mut s, &[400, 402, 403], NS3), [0, 0, REPORTED]);
    }

    #[test]
    fn a_report_on_its_way_does_not_renew_the_expiring_one() {
        // The report of 10 is gone at 113; that of 111 counts from 114 on.
        let mut s = settled(NS3);
        assert_eq!(
            send(&mut s, &[111, 112, 113, 114], NS3),
            [REPORTED, REPORTED, 0, REPORTED]
        );
    }

    #[test]
    fn the_first_tbs_of_a_ue_go_blind() {
        let mut s = CqiState::default();
        assert_eq!(send(&mut s, &[5, 6, 7, 8], NS3), [0, 0, 0, REPORTED]);
    }

    #[test]
    fn reports_used_within_their_validity_keep_the_reported_mcs() {
        let mut s = settled(NS3);
        // Gaps of 102 subframes, each TB renewing the report.
        assert_eq!(send(&mut s, &[112, 214, 316], NS3), [REPORTED; 3]);
    }

    /// The MCS follows the channel 3 subframes late: each TB gets what the report on
    /// the TB 3 subframes before it asked for.
    #[test]
    fn the_mcs_is_the_one_reported_three_subframes_before() {
        let mut s = CqiState::default();
        let mut sent = Vec::new();
        for n in 0..12u8 {
            let now = u64::from(n) * SUBFRAME;
            sent.push(s.mcs(now, REPORTED, NS3));
            s.transmitted(now, 10 + n, NS3);
        }
        assert_eq!(sent[..3], [0, 0, 0]);
        let reported: Vec<u8> = (0..9).map(|n| 10 + n).collect();
        assert_eq!(sent[3..], reported[..]);
        // A TB beside another in its subframe meets the same SINR: one report.
        s.transmitted(11 * SUBFRAME, 5, NS3);
        assert_eq!(s.mcs(14 * SUBFRAME, REPORTED, NS3), 5);
    }

    #[test]
    fn a_timer_of_zero_keeps_no_report() {
        let zero = Some(CqiExpiry::ns3_mmwave(0, 2, SUBFRAME));
        assert_eq!(
            send(&mut CqiState::default(), &[0, 1, 2, 3, 4, 5], zero),
            [0; 6]
        );
    }

    #[test]
    fn without_expiry_the_reported_mcs_is_always_used() {
        let mut s = CqiState::default();
        assert_eq!(send(&mut s, &[0, 1, 2, 500, 100_000], None), [REPORTED; 5]);
    }
}
