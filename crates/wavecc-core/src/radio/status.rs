//! RLC status reports as ns3-mmwave's RLC AM sends them (`LteRlcAm`), and the
//! transmission opportunities they take.
//!
//! Every data PDU the module's RLC AM sends asks for a status report (`PollPdu` = 1),
//! and the receiving end owes one until it sends it (`m_statusPduRequested`). The
//! report is 4 bytes (`m_statusPduBufferSize`). What happens to it depends on whether
//! the scheduler has heard of it:
//!
//! * **Announced.** A request that arrives while the status-prohibit timer is off, or
//!   a buffer status report the owing end makes off the timer (it makes one for each
//!   new SDU, `DoTransmitPdcpPdu`), names the report's 4 bytes to the scheduler
//!   (`DoReportBufferStatus`). The scheduler then gives it bytes of its own: beside
//!   the data of the next transport block, or, with no data, a transport block of
//!   its own (one symbol). Every request off the timer makes the owing end report
//!   its buffer again, announced or not (`LteRlcAm::DoReceivePdu`), and the UE's MAC
//!   sends each such report as a fresh BSR (`MmWaveUeMac::DoReportBufferStatus`), which
//!   replaces what the scheduler had left after its grants: a UE polled by downlink
//!   TBs in consecutive subframes gets a grant from each. The gNB's scheduler sees its RLC's report at once
//!   (`MmWaveFlexTtiMacScheduler` counts `m_rlcStatusPduSize` as demand); the UE's
//!   report goes into its next buffer status report (`MmWaveUeMac` adds
//!   `statusPduSize` to the queue it reports) and is sent in the grant that report
//!   earns.
//! * **Unannounced.** A request that arrives while the timer runs is only remembered:
//!   nothing announces it when the timer expires (`ExpireStatusProhibitTimer` does
//!   nothing), so unless a new SDU makes the owing end report its buffer first, the
//!   next opportunity the scheduler grants for data goes to the report
//!   (`DoNotifyTxOpportunity` sends the STATUS PDU first and returns) and the
//!   transport block carries it and no data.
//!
//! Sending a report starts the prohibit timer (1 ms in the module's TCP examples).
//! With a TCP flow, ACKs on the uplink keep the gNB's receiver polled, so about one
//! downlink data opportunity per prohibit period is lost to an unannounced report,
//! and the UE's first uplink transport block after a downlink silence carries the
//! announced report on the first downlink data alone, a symbol at the MCS of a
//! silent link.
//!
//! Between a flow's bursts two timers of the sending end announce what the last
//! PDUs left owed (the report a receiver owes acknowledges the sender's PDUs, which
//! stay in its `txedBuffer` until it arrives):
//!
//! * the buffer-status timer ([`BufferStatusTimer`], `ReportBufferStatusTimer`, 4 ms
//!   in the scripts) expires a period after the last SDU and again every period while
//!   the entity holds data or unacknowledged PDUs (`ExpireRbsTimer`); each expiry
//!   reports the buffer, which announces the report the entity owes its peer;
//! * the poll-retransmit timer (`PollRetransmitTimer`, 4 ms), restarted by every PDU
//!   sent, expires when no report has acknowledged the last one; with nothing new to
//!   send the sender then sends its unacknowledged PDUs again, polling
//!   (`ExpirePollRetransmitTimer`, `arq.rs`), and the copy's poll makes the peer
//!   announce its owed report.
//!
//! So a report requested under the prohibit timer at the end of a burst goes out
//! about 4 ms later in a transport block of its own, not with the next burst's first
//! data. A report rides a transport block and that block's HARQ, which can
//! delay it, lose it or let a newer one overtake it (`acks.rs`).

use crate::engine::Time;

/// Bytes of a status report with no NACKs (`m_statusPduBufferSize`).
pub const STATUS_BYTES: u64 = 4;

/// What an owed report does with a transmission opportunity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusTurn {
    /// No report goes.
    None,
    /// The announced report goes with bytes of its own, beside any data.
    Beside,
    /// The unannounced report takes the data opportunity alone.
    Alone,
}

/// The status report one receiver owes its peer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatusReport {
    /// A report was requested and has not been sent.
    owed: bool,
    /// The scheduler has heard of the owed report.
    announced: bool,
    /// When the prohibit timer started by the last report sent expires.
    prohibit_until: Option<Time>,
    /// The arrival of the last request, not yet taken into account.
    ahead: Option<Time>,
}

impl StatusReport {
    /// A data PDU asking for a report reaches the receiver at `at`. Returns true when
    /// the prohibit timer is off, so that the receiving end reports its buffer
    /// (`DoReportBufferStatus`, whether or not the scheduler has heard of the report).
    pub fn requested(&mut self, at: Time) -> bool {
        if let Some(earlier) = self.ahead.replace(at) {
            self.arrive(earlier);
        }
        !self.prohibits(at)
    }

    /// Takes into account a request that arrived at or before `by`; returns the
    /// instant of its arrival if the owing end reported its buffer then (off the
    /// prohibit timer).
    pub fn catch_up(&mut self, by: Time) -> Option<Time> {
        let at = self.ahead.filter(|&at| at <= by)?;
        self.ahead = None;
        self.arrive(at).then_some(at)
    }

    /// The owing end reports its buffer at `now` (a new SDU): an owed report is
    /// announced off the timer. Returns the report's bytes the buffer status names.
    pub fn buffer_reported(&mut self, now: Time) -> u64 {
        self.catch_up(now);
        if self.owed && !self.prohibits(now) {
            self.announced = true;
        }
        if self.announced { STATUS_BYTES } else { 0 }
    }

    /// True while a report is owed or a request waits to be taken into account.
    #[cfg(test)]
    pub fn owes(&self) -> bool {
        self.owed || self.ahead.is_some()
    }

    /// True while the report needs a transmission opportunity of its own, or a
    /// request waits to be taken into account.
    pub fn awaits_opportunity(&self) -> bool {
        self.announced || self.ahead.is_some()
    }

    /// True when an announced report asks the scheduler for bytes at `now`.
    pub fn announced_by(&mut self, now: Time) -> bool {
        self.catch_up(now);
        self.announced
    }

    /// What the owed report does with a data opportunity at `now`. A request handed
    /// up at `now` itself came before it: the radio hands up at a slot boundary what
    /// was decoded in the slot that ends there.
    pub fn turn(&mut self, now: Time) -> StatusTurn {
        self.catch_up(now);
        if !self.owed || self.prohibit_until.is_some_and(|until| now < until) {
            StatusTurn::None
        } else if self.announced {
            StatusTurn::Beside
        } else {
            StatusTurn::Alone
        }
    }

    /// The report left at `now`: the prohibit timer starts.
    pub fn sent(&mut self, now: Time, prohibit: Time) {
        self.owed = false;
        self.announced = false;
        self.prohibit_until = Some(now + prohibit);
    }

    /// The prohibit timer runs for something handed up at `at`: what is handed up at a
    /// slot boundary arrived just before it, so the timer still ran if it expires there.
    fn prohibits(&self, at: Time) -> bool {
        self.prohibit_until.is_some_and(|until| at <= until)
    }

    /// A request arrives at `at`; returns true if the owing end reports its buffer
    /// (`DoReportBufferStatus`), which it does off the prohibit timer, whether or not
    /// the report was announced before.
    fn arrive(&mut self, at: Time) -> bool {
        self.owed = true;
        let reports = !self.prohibits(at);
        self.announced |= reports;
        reports
    }
}

/// One RLC entity's buffer-status timer (`ReportBufferStatusTimer`): each new SDU
/// restarts it; it expires a period after the last one, and again every period while
/// the entity holds data or PDUs its peer has not acknowledged (`ExpireRbsTimer`),
/// else it stops. Each expiry reports the entity's buffer. A period of 0: no timer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStatusTimer {
    period: Time,
    next: Option<Time>,
}

impl BufferStatusTimer {
    pub fn new(period: Time) -> Self {
        BufferStatusTimer { period, next: None }
    }

    /// True when the entity has such a timer.
    pub fn exists(&self) -> bool {
        self.period > 0
    }

    /// A new SDU at `now`: the timer restarts.
    pub fn restart(&mut self, now: Time) {
        if self.exists() {
            self.next = Some(now + self.period);
        }
    }

    /// True when an expiry due by `now` reports the buffer of an entity that `holds`
    /// something.
    pub fn due(&self, now: Time, holds: bool) -> bool {
        holds && self.next.is_some_and(|at| at <= now)
    }

    /// Fires the expiries due by `now`, for an entity that `holds` something: returns
    /// the instant of the last one, the report the entity made then. One that finds
    /// the entity holding nothing stops the timer (nothing is sent or arrives between
    /// expiries without an SDU, which would have restarted it).
    pub fn fire(&mut self, now: Time, holds: bool) -> Option<Time> {
        let at = self.next.filter(|&at| at <= now)?;
        if !holds {
            self.next = None;
            return None;
        }
        let last = at + (now - at) / self.period * self.period;
        self.next = Some(last + self.period);
        Some(last)
    }
}

/// The reports of one UE's two directions: the gNB's for uplink data (they take
/// downlink opportunities) and the UE's for downlink data (uplink opportunities).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkReports {
    pub gnb: StatusReport,
    pub ue: StatusReport,
}

impl LinkReports {
    /// True while either end's report waits for an opportunity of its own.
    pub fn await_opportunities(&self) -> bool {
        self.gnb.awaits_opportunity() || self.ue.awaits_opportunity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;
    const SLOT: Time = 100_000;

    #[test]
    fn a_request_off_the_prohibit_timer_is_announced_and_goes_beside_data() {
        let mut s = StatusReport::default();
        s.requested(5 * MS);
        assert!(s.awaits_opportunity());
        assert_eq!(s.turn(5 * MS - 1), StatusTurn::None, "not arrived yet");
        assert_eq!(s.turn(5 * MS + SLOT), StatusTurn::Beside);
        s.sent(5 * MS + SLOT, MS);
        assert!(!s.awaits_opportunity());
        assert_eq!(s.turn(7 * MS), StatusTurn::None, "nothing is owed");
    }

    #[test]
    fn a_request_under_the_timer_takes_the_first_opportunity_after_it_alone() {
        let mut s = StatusReport::default();
        s.requested(0);
        assert_eq!(s.turn(SLOT), StatusTurn::Beside);
        s.sent(SLOT, MS); // the timer runs to 1.1 ms
        s.requested(3 * SLOT); // remembered only
        assert_eq!(s.turn(3 * SLOT), StatusTurn::None);
        assert!(
            !s.awaits_opportunity(),
            "an unannounced report asks for nothing"
        );
        assert_eq!(s.turn(MS + SLOT - 1), StatusTurn::None);
        assert_eq!(s.turn(MS + SLOT), StatusTurn::Alone);
        s.sent(MS + SLOT, MS);
        assert_eq!(s.turn(MS + 2 * SLOT), StatusTurn::None);
    }

    #[test]
    fn polled_every_slot_one_opportunity_per_prohibit_period_is_lost() {
        // The receiver is polled by a PDU at the end of every slot and the opposite
        // direction has data in every slot, but no new SDU reaches the owing end: one
        // slot in ten goes to the report alone with a 1 ms timer.
        let mut s = StatusReport::default();
        let mut lost = 0;
        for k in 0..10_000u64 {
            let now = k * SLOT;
            s.requested(now);
            match s.turn(now) {
                StatusTurn::Alone => {
                    s.sent(now, MS);
                    lost += 1;
                }
                StatusTurn::Beside => s.sent(now, MS),
                StatusTurn::None => {}
            }
        }
        assert_eq!(lost, 999);
    }

    #[test]
    fn a_new_sdu_after_the_timer_announces_a_remembered_report() {
        let mut s = StatusReport::default();
        s.requested(0);
        assert_eq!(s.turn(SLOT), StatusTurn::Beside);
        s.sent(SLOT, MS);
        s.requested(2 * SLOT);
        assert_eq!(s.buffer_reported(5 * SLOT), 0, "under the timer");
        assert_eq!(s.buffer_reported(MS + SLOT), 0, "the timer expires there");
        assert_eq!(s.buffer_reported(MS + 2 * SLOT), STATUS_BYTES);
        assert!(s.awaits_opportunity());
        assert_eq!(s.turn(MS + 3 * SLOT), StatusTurn::Beside);
    }

    #[test]
    fn a_buffer_report_names_no_report_when_none_is_owed() {
        let mut s = StatusReport::default();
        assert_eq!(s.buffer_reported(MS), 0);
        s.requested(2 * MS);
        assert_eq!(s.buffer_reported(2 * MS - 1), 0, "not arrived yet");
        assert_eq!(
            s.buffer_reported(2 * MS),
            STATUS_BYTES,
            "arrived with the SDU"
        );
    }

    #[test]
    fn a_request_handed_up_at_an_opportunity_came_before_it() {
        let mut s = StatusReport::default();
        s.requested(0);
        s.sent(SLOT, MS);
        // Handed up as the timer expires, it arrived just before: remembered only, and
        // the opportunity at that boundary goes to it.
        s.requested(MS + SLOT);
        assert_eq!(s.turn(MS + SLOT), StatusTurn::Alone);
        s.sent(MS + SLOT, MS);
        // Handed up a slot after the expiry: announced.
        s.requested(2 * MS + 2 * SLOT);
        assert_eq!(s.turn(2 * MS + 2 * SLOT), StatusTurn::Beside);
    }

    #[test]
    fn the_buffer_status_timer_expires_a_period_after_the_last_sdu_while_the_entity_holds() {
        let mut t = BufferStatusTimer::new(4 * MS);
        assert_eq!(t.fire(10 * MS, true), None, "not started");
        t.restart(0);
        t.restart(MS);
        assert_eq!(
            t.fire(5 * MS - 1, true),
            None,
            "restarted by the second SDU"
        );
        assert_eq!(t.fire(5 * MS + SLOT, true), Some(5 * MS));
        assert_eq!(t.fire(9 * MS - 1, true), None);
        assert_eq!(
            t.fire(13 * MS + SLOT, true),
            Some(13 * MS),
            "late: the last expiry reports"
        );
        assert_eq!(t.fire(17 * MS, false), None, "holding nothing, it stops");
        assert_eq!(t.fire(21 * MS, true), None);
        let mut none = BufferStatusTimer::new(0);
        none.restart(0);
        assert!(!none.exists());
        assert_eq!(none.fire(MS, true), None);
    }

    /// The receiving end reports its buffer on each request off the prohibit timer,
    /// whether or not the scheduler already knows of the report.
    #[test]
    fn a_request_off_the_prohibit_timer_makes_the_receiver_report_its_buffer() {
        let mut s = StatusReport::default();
        assert!(s.requested(0));
        assert!(s.requested(SLOT), "announced already, still reported");
        s.sent(2 * SLOT, MS);
        assert!(!s.requested(3 * SLOT));
        assert!(!s.requested(MS + 2 * SLOT), "the timer expires there");
        assert!(s.requested(MS + 3 * SLOT));
    }

    /// Each request off the timer is caught up as a buffer report of its own, the
    /// second while the first is still owed too; one under the timer is not.
    #[test]
    fn catching_up_tells_when_a_request_made_the_receiver_report() {
        let mut s = StatusReport::default();
        s.requested(3 * SLOT);
        assert_eq!(s.catch_up(2 * SLOT), None);
        assert_eq!(s.catch_up(3 * SLOT), Some(3 * SLOT));
        s.requested(4 * SLOT);
        assert_eq!(
            s.catch_up(4 * SLOT),
            Some(4 * SLOT),
            "announced, reported again"
        );
        s.sent(5 * SLOT, MS);
        s.requested(6 * SLOT);
        assert_eq!(s.catch_up(6 * SLOT), None, "under the timer");
    }
}
