//! RLC status reports as ns3-mmwave's RLC AM sends them (`LteRlcAm`), and the
//! transmission opportunity a report can cost.
//!
//! Every data PDU the module's RLC AM sends asks for a status report (`PollPdu` = 1).
//! A request that arrives while the status-prohibit timer is off is announced to the
//! scheduler (`DoReportBufferStatus`), which gives the report a few bytes of its own
//! beside the data. A request that arrives while the timer runs is only remembered:
//! nothing announces it when the timer expires (`ExpireStatusProhibitTimer` does
//! nothing), so the next transmission opportunity the scheduler grants for data goes
//! to the report (`DoNotifyTxOpportunity` sends the STATUS PDU first and returns) and
//! the transport block carries 2 bytes of it and no data. With a TCP flow, ACKs on the
//! uplink keep the gNB's receiver polled, so one downlink data opportunity per
//! prohibit period (1 ms in the module's TCP examples: one subframe in ten) is lost;
//! the same happens to the UE's uplink opportunities for the reports on downlink data.
//! The periodic buffer-status timer, which would announce a remembered report after
//! `ReportBufferStatusTimer`, is not modelled: with data flowing the opportunity
//! comes first.

use crate::engine::Time;

/// The status reports one receiver owes its peer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatusReport {
    /// A report was requested while the prohibit timer ran: it will take the next data
    /// opportunity in the opposite direction.
    unannounced: bool,
    /// When the prohibit timer started by the last report sent expires.
    prohibit_until: Time,
    /// The arrival of the last request, when it lies ahead of the instants seen so far
    /// (a PDU sent in a slot arrives at its end).
    ahead: Option<Time>,
}

impl StatusReport {
    /// A data PDU asking for a report reaches the receiver at `at`, after every
    /// opportunity before `at` was offered.
    pub fn requested(&mut self, at: Time, prohibit: Time) {
        if let Some(earlier) = self.ahead.replace(at) {
            self.arrive(earlier, prohibit);
        }
    }

    /// True when a data opportunity at `now` goes to an unannounced report. A request
    /// arriving at `now` itself comes after the opportunity (a PDU is decoded after
    /// the slot boundary the next opportunity starts at).
    pub fn takes_opportunity(&mut self, now: Time, prohibit: Time) -> bool {
        if let Some(at) = self.ahead.filter(|&at| at < now) {
            self.ahead = None;
            self.arrive(at, prohibit);
        }
        self.unannounced && now >= self.prohibit_until
    }

    /// The report left at `now`, alone in a data opportunity.
    pub fn sent_alone(&mut self, now: Time, prohibit: Time) {
        self.unannounced = false;
        self.prohibit_until = now + prohibit;
    }

    /// A request arrives at `at`. Off the prohibit timer the report is announced and
    /// leaves beside data in the next transport block, which restarts the timer.
    fn arrive(&mut self, at: Time, prohibit: Time) {
        if at < self.prohibit_until {
            self.unannounced = true;
        } else {
            self.unannounced = false;
            self.prohibit_until = at + prohibit;
        }
    }
}

/// The reports of one UE's two directions: the gNB's for uplink data (they take
/// downlink opportunities) and the UE's for downlink data (uplink opportunities).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkReports {
    pub gnb: StatusReport,
    pub ue: StatusReport,
    /// The entities' decoded transmissions as of the last slot's end.
    seen_dl: u64,
    seen_ul: u64,
}

impl LinkReports {
    /// The end of a slot at `end`, with the downlink and uplink entities' counts of
    /// decoded transmissions: those decoded in the slot ask their receivers for reports.
    /// A downlink TB built `dl_air_delay` ahead of its slot on the air reaches the UE
    /// that much later.
    pub fn slot_end(
        &mut self,
        end: Time,
        dl_air_delay: Time,
        dl_decoded: u64,
        ul_decoded: u64,
        prohibit: Time,
    ) {
        if dl_decoded > self.seen_dl {
            self.ue.requested(end + dl_air_delay, prohibit);
        }
        if ul_decoded > self.seen_ul {
            self.gnb.requested(end, prohibit);
        }
        (self.seen_dl, self.seen_ul) = (dl_decoded, ul_decoded);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;
    const SLOT: Time = 100_000;

    #[test]
    fn a_request_off_the_prohibit_timer_never_takes_an_opportunity() {
        let mut s = StatusReport::default();
        s.requested(5 * MS, MS);
        assert!(!s.takes_opportunity(5 * MS, MS));
        assert!(!s.takes_opportunity(7 * MS, MS));
    }

    #[test]
    fn a_request_under_the_timer_takes_the_first_opportunity_after_it() {
        let mut s = StatusReport::default();
        s.requested(0, MS); // announced; the timer runs to 1 ms
        s.requested(3 * SLOT, MS); // remembered only
        assert!(!s.takes_opportunity(MS - 1, MS));
        assert!(s.takes_opportunity(MS, MS));
        s.sent_alone(MS, MS);
        assert!(!s.takes_opportunity(MS + SLOT, MS));
    }

    #[test]
    fn polled_every_slot_one_opportunity_per_prohibit_period_is_lost() {
        // The receiver is polled by a PDU at the end of every slot and the opposite
        // direction has data in every slot: one slot in ten goes to the report with a
        // 1 ms timer.
        let mut s = StatusReport::default();
        let mut lost = 0;
        for k in 0..10_000u64 {
            let now = k * SLOT;
            if s.takes_opportunity(now, MS) {
                s.sent_alone(now, MS);
                lost += 1;
            }
            s.requested(now + SLOT, MS);
        }
        assert_eq!(lost, 999);
    }

    #[test]
    fn a_request_after_the_timer_announces_a_remembered_report() {
        let mut s = StatusReport::default();
        s.requested(0, MS);
        s.requested(SLOT, MS);
        // No opportunity came before the next request, which arrives off the timer:
        // the report is announced and sent beside data; the timer restarts.
        s.requested(2 * MS, MS);
        assert!(!s.takes_opportunity(2 * MS + SLOT, MS));
        assert!(!s.takes_opportunity(3 * MS, MS));
    }

    #[test]
    fn a_request_arriving_at_an_opportunity_comes_after_it() {
        let mut s = StatusReport::default();
        s.requested(0, MS);
        s.requested(SLOT, MS);
        // At 1 ms the remembered report takes the opportunity although a request
        // arrives at that instant too; that request then falls under the new timer.
        s.requested(MS, MS);
        assert!(s.takes_opportunity(MS, MS));
        s.sent_alone(MS, MS);
        assert!(!s.takes_opportunity(MS + SLOT, MS));
        assert!(s.takes_opportunity(2 * MS, MS));
    }
}

#[cfg(test)]
mod link_tests {
    use super::*;

    #[test]
    fn decoded_downlink_data_asks_the_ue_and_uplink_data_the_gnb() {
        let mut r = LinkReports::default();
        r.slot_end(100, 0, 1, 0, 1_000_000);
        assert_eq!(r.ue.ahead, Some(100));
        assert_eq!(r.gnb.ahead, None);
        r.slot_end(200, 0, 1, 4, 1_000_000);
        assert_eq!(
            r.ue.ahead,
            Some(100),
            "no new downlink transmission decoded"
        );
        assert_eq!(r.gnb.ahead, Some(200));
    }
}
