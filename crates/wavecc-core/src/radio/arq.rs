//! When RLC AM retransmits the bytes HARQ gave up on.
//!
//! Two timings:
//!
//! * **Fixed**: the bytes go again a fixed delay after HARQ gives up (the status report
//!   that names them, `radio.rlc_retx_delay_s`).
//! * **Reordering**, as ns3-mmwave's `LteRlcAm` does it. The MAC does not tell the RLC
//!   that HARQ failed (`DoNotifyDlHarqDeliveryFailure` is empty), so the bytes are
//!   repaired in one of two ways, whichever comes first:
//!   - the receiver's reordering timer (`ReorderingTimer`, 3GPP TS 36.322 5.1.3.2):
//!     data received beyond a hole starts it, if it is not already running, and
//!     remembers how far the receiver had data (VR(X)); when it expires, the status
//!     report it triggers names the holes below that point, and the sender
//!     retransmits them once the report has reached it (`status_delay`). A hole
//!     filled before (by HARQ) stops the timer; a hole left beyond VR(X) restarts it.
//!   - the sender's poll-retransmit timer (`PollRetransmitTimer`), restarted by each
//!     PDU it sends: if it expires while the sender has nothing new to send and
//!     nothing to retransmit, the sender sends again everything not acknowledged
//!     (`ExpirePollRetransmitTimer` of the mmWave module), the bytes HARQ gave up on
//!     among them. Where the peer's status reports are modelled (`status.rs`), the
//!     copies of what did arrive go too: they cost their transport blocks, and their
//!     poll makes the receiver announce the report it owes; otherwise only the bytes
//!     HARQ gave up on go.
//!
//! With data flowing, the reordering timer decides: the bytes behind the hole are held
//! at the receiver for about its period (10 ms in the module), and then handed up
//! together.

use std::collections::VecDeque;

use crate::engine::{RangeSet, Time};

/// The reordering timing's three delays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReorderingTimers {
    /// The receiver's reordering timer.
    pub t_reordering: Time,
    /// From the timer's expiry to the sender having the status report it triggers.
    pub status_delay: Time,
    /// The sender's poll-retransmit timer.
    pub poll_retransmit: Time,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArqTiming {
    /// Retransmit this long after HARQ gives up.
    Fixed(Time),
    /// Retransmit after the receiver's reordering timer or the sender's poll-retransmit
    /// timer (module doc).
    Reordering(ReorderingTimers),
}

/// A byte range awaiting retransmission and the instant it may go.
pub type Retransmission = (u64, u64, Time);

/// The timers of one RLC AM entity (one direction): its sender's and its receiver's.
#[derive(Clone, Debug)]
pub struct Arq {
    timing: ArqTiming,
    /// Byte ranges HARQ gave up on that no status report or poll has named yet.
    given_up: VecDeque<(u64, u64)>,
    /// The running reordering timer: its expiry and VR(X), in bytes.
    reordering: Option<(Time, u64)>,
    /// When the sender last sent an RLC PDU (new data or an ARQ retransmission).
    last_pdu: Time,
    /// VR(X) at the reordering timer's last expiry: the receiver's VR(MS), which its
    /// status reports give as ACK_SN, is the first byte missing from there on.
    nacked_to: u64,
}

impl Arq {
    pub fn new(timing: ArqTiming) -> Self {
        Arq {
            timing,
            given_up: VecDeque::new(),
            reordering: None,
            last_pdu: 0,
            nacked_to: 0,
        }
    }

    /// HARQ gave up at `now` on the bytes `start..end` (once while they await a
    /// report: the pieces of one PDU repaired whole give it up more than once).
    pub fn gave_up(
        &mut self,
        now: Time,
        start: u64,
        end: u64,
        queue: &mut VecDeque<Retransmission>,
    ) {
        debug_assert!(start < end, "an empty range would block the queue");
        match self.timing {
            ArqTiming::Fixed(delay) => queue.push_back((start, end, now + delay)),
            ArqTiming::Reordering(_) => {
                if !self.given_up.contains(&(start, end)) {
                    self.given_up.push_back((start, end));
                }
            }
        }
    }

    /// Where the receiver's reordering timer last stopped waiting (VR(X) at its
    /// expiry).
    pub fn nacked_to(&self) -> u64 {
        self.nacked_to
    }

    /// A misread status report acknowledged what HARQ gave up on: `keep` says what
    /// of each range is still repaired.
    pub fn abandon(&mut self, keep: impl Fn(u64, u64) -> Option<(u64, u64)>) {
        self.given_up = self
            .given_up
            .iter()
            .filter_map(|&(start, end)| keep(start, end))
            .collect();
    }

    /// The sender sent an RLC PDU at `now`.
    pub fn sent_pdu(&mut self, now: Time) {
        self.last_pdu = now;
    }

    /// Runs both timers up to `now`, the end of a slot, after the receiver took in what
    /// reached it: `rx_next` is its next in-order byte and `received` what it holds
    /// beyond; `sender_idle` says the sender has nothing new to send and nothing queued
    /// for retransmission; `unacknowledged` is what the peer's reports have not
    /// acknowledged, where they are modelled. Named ranges join `queue`. Returns the
    /// poll-retransmit timer's expiry when it sent something again: the sender
    /// reports its buffer then (`ExpirePollRetransmitTimer`). Inlined into the
    /// receiver's `deliver`, which calls it at every hand-up, mostly to find nothing
    /// to do.
    #[inline]
    pub fn advance(
        &mut self,
        now: Time,
        rx_next: u64,
        received: &RangeSet,
        sender_idle: bool,
        unacknowledged: Option<(u64, u64)>,
        queue: &mut VecDeque<Retransmission>,
    ) -> Option<Time> {
        if self.idle(now, rx_next, received, sender_idle) {
            return None;
        }
        let ArqTiming::Reordering(timers) = self.timing else {
            return None;
        };
        // One past the furthest byte the receiver has (VR(H)): what it holds beyond its
        // next in-order byte ends there.
        let highest = received.end().max(rx_next);
        while let Some((at, vr_x)) = self.reordering.filter(|r| r.0 <= now) {
            self.nacked_to = self.nacked_to.max(vr_x);
            let ready = at + timers.status_delay;
            self.given_up.retain(|&(start, end)| {
                let named = start < vr_x;
                if named {
                    queue.push_back((start, end, ready));
                }
                !named
            });
            let from = vr_x.max(rx_next);
            let hole_beyond = highest > from && !received.covers(from, highest);
            self.reordering = hole_beyond.then_some((at + timers.t_reordering, highest));
        }
        if self.reordering.is_some_and(|(_, vr_x)| rx_next >= vr_x) {
            self.reordering = None;
        }
        if self.reordering.is_none() && highest > rx_next {
            self.reordering = Some((now + timers.t_reordering, highest));
        }
        let poll_at = self.last_pdu + timers.poll_retransmit;
        if !sender_idle || poll_at > now {
            return None;
        }
        let before = queue.len();
        // Everything from the acknowledged end goes as one retransmission; what HARQ
        // gave up on below it (holes the reports name) goes range by range.
        let from = unacknowledged.map_or(u64::MAX, |r| r.0);
        queue.extend(
            self.given_up
                .drain(..)
                .filter(|&(start, _)| start < from)
                .map(|(start, end)| (start, end.min(from), poll_at)),
        );
        if let Some((start, end)) = unacknowledged {
            queue.push_back((start, end, poll_at));
        }
        (queue.len() > before).then_some(poll_at)
    }

    /// True when [`Self::advance`] with these arguments changes nothing and returns
    /// None: no reordering timer expires by `now` or waits to start or stop, and the
    /// poll-retransmit timer is not due with the sender idle. The receiver's
    /// `deliver` asks it first, to skip the rest when nothing reached it.
    #[inline]
    pub fn idle(&self, now: Time, rx_next: u64, received: &RangeSet, sender_idle: bool) -> bool {
        let ArqTiming::Reordering(timers) = self.timing else {
            return true;
        };
        let reordering_idle = match self.reordering {
            Some((at, vr_x)) => at > now && rx_next < vr_x,
            None => received.end() <= rx_next,
        };
        reordering_idle && (!sender_idle || self.last_pdu + timers.poll_retransmit > now)
    }

    /// A handover re-establishes the entity: what HARQ gave up on goes again after
    /// `resume`, and the receiver's timer stops.
    pub fn reestablish(&mut self, resume: Time, queue: &mut VecDeque<Retransmission>) {
        queue.extend(
            self.given_up
                .drain(..)
                .map(|(start, end)| (start, end, resume)),
        );
        self.reordering = None;
    }

    /// Forgets everything (a handover without forwarding).
    pub fn clear(&mut self) {
        self.given_up.clear();
        self.reordering = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn reordering() -> Arq {
        Arq::new(ArqTiming::Reordering(ReorderingTimers {
            t_reordering: 10 * MS,
            status_delay: MS / 2,
            poll_retransmit: 4 * MS,
        }))
    }

    fn held(ranges: &[(u64, u64)]) -> RangeSet {
        let mut r = RangeSet::default();
        for &(a, b) in ranges {
            r.insert(a, b);
        }
        r
    }

    #[test]
    fn a_fixed_timing_queues_the_bytes_its_delay_after_harq_gives_up() {
        let mut arq = Arq::new(ArqTiming::Fixed(4 * MS));
        let mut queue = VecDeque::new();
        arq.gave_up(3 * MS, 100, 200, &mut queue);
        assert_eq!(queue, VecDeque::from([(100, 200, 7 * MS)]));
    }

    #[test]
    fn data_beyond_a_hole_starts_the_timer_and_its_expiry_names_the_hole() {
        let mut arq = reordering();
        let mut queue = VecDeque::new();
        arq.sent_pdu(MS);
        // Bytes 100..200 failed; 200..300 reached the receiver at 1 ms.
        arq.gave_up(2 * MS, 100, 200, &mut queue);
        let beyond = held(&[(200, 300)]);
        arq.advance(MS, 100, &beyond, false, None, &mut queue);
        arq.advance(10 * MS, 100, &beyond, false, None, &mut queue);
        assert!(queue.is_empty(), "nothing before the timer expires (11 ms)");
        arq.advance(11 * MS, 100, &beyond, false, None, &mut queue);
        // Named at the expiry, sent once the status report reached the sender.
        assert_eq!(queue, VecDeque::from([(100, 200, 11 * MS + MS / 2)]));
    }

    /// Two pieces of one PDU, repaired whole, give it up twice: it goes once.
    #[test]
    fn a_range_given_up_twice_before_a_report_names_it_goes_once() {
        let mut arq = reordering();
        let mut queue = VecDeque::new();
        arq.gave_up(MS, 100, 200, &mut queue);
        arq.gave_up(2 * MS, 100, 200, &mut queue);
        arq.advance(MS, 100, &held(&[(200, 300)]), false, None, &mut queue);
        arq.advance(11 * MS, 100, &held(&[(200, 300)]), false, None, &mut queue);
        assert_eq!(queue, VecDeque::from([(100, 200, 11 * MS + MS / 2)]));
    }

    #[test]
    fn a_hole_filled_in_time_stops_the_timer() {
        let mut arq = reordering();
        let mut queue = VecDeque::new();
        arq.advance(MS, 100, &held(&[(200, 300)]), false, None, &mut queue);
        // HARQ delivers 100..200 at 2 ms: the receiver is in order up to 300.
        arq.advance(2 * MS, 300, &RangeSet::default(), false, None, &mut queue);
        // A later failure beyond: its own timer starts at 5 ms, not with the first one.
        arq.gave_up(4 * MS, 300, 400, &mut queue);
        arq.advance(5 * MS, 300, &held(&[(400, 500)]), false, None, &mut queue);
        arq.advance(14 * MS, 300, &held(&[(400, 500)]), false, None, &mut queue);
        assert!(queue.is_empty());
        arq.advance(15 * MS, 300, &held(&[(400, 500)]), false, None, &mut queue);
        assert_eq!(queue, VecDeque::from([(300, 400, 15 * MS + MS / 2)]));
    }

    #[test]
    fn a_hole_beyond_the_timers_mark_waits_for_the_restarted_timer() {
        let mut arq = reordering();
        let mut queue = VecDeque::new();
        arq.gave_up(MS, 100, 200, &mut queue);
        arq.advance(MS, 100, &held(&[(200, 300)]), false, None, &mut queue);
        // A second failure beyond VR(X) = 300, with data after it, at 3 ms.
        arq.gave_up(3 * MS, 300, 400, &mut queue);
        let beyond = held(&[(200, 300), (400, 500)]);
        arq.advance(11 * MS, 100, &beyond, false, None, &mut queue);
        assert_eq!(queue, VecDeque::from([(100, 200, 11 * MS + MS / 2)]));
        // The timer restarted at its expiry for VR(H) = 500.
        arq.advance(20 * MS, 100, &beyond, false, None, &mut queue);
        assert_eq!(queue.len(), 1);
        arq.advance(21 * MS, 100, &beyond, false, None, &mut queue);
        assert_eq!(queue.back(), Some(&(300, 400, 21 * MS + MS / 2)));
    }

    /// `idle` lets a receiver skip `advance` when nothing reached it; after a
    /// re-establishment the timer must still restart at the next call, from that
    /// call's instant, with nothing new received.
    #[test]
    fn a_stopped_timer_restarts_at_the_next_call_with_nothing_new() {
        let mut arq = reordering();
        let mut queue = VecDeque::new();
        let beyond = held(&[(200, 300)]);
        arq.advance(MS, 100, &beyond, false, None, &mut queue);
        assert!(
            arq.idle(2 * MS, 100, &beyond, false),
            "running, not yet due"
        );
        arq.reestablish(2 * MS, &mut queue);
        assert!(!arq.idle(3 * MS, 100, &beyond, false), "to restart");
        arq.advance(3 * MS, 100, &beyond, false, None, &mut queue);
        assert!(arq.idle(13 * MS - 1, 100, &beyond, false));
        assert!(
            !arq.idle(13 * MS, 100, &beyond, false),
            "due 10 ms after 3 ms"
        );
        arq.advance(13 * MS, 100, &beyond, false, None, &mut queue);
        assert_eq!(arq.nacked_to(), 300);
        // The hole filled (HARQ delivered it): the restarted timer waits to stop.
        let nothing = RangeSet::default();
        assert!(!arq.idle(14 * MS, 300, &nothing, false));
        arq.advance(14 * MS, 300, &nothing, false, None, &mut queue);
        // An idle sender's poll is due a period after its last PDU.
        arq.sent_pdu(14 * MS);
        assert!(arq.idle(18 * MS - 1, 300, &nothing, true));
        assert!(!arq.idle(18 * MS, 300, &nothing, true));
        assert!(
            arq.idle(18 * MS, 300, &nothing, false),
            "a busy sender does not poll"
        );
    }

    #[test]
    fn an_idle_sender_resends_on_its_poll_retransmit_timer() {
        let mut arq = reordering();
        let mut queue = VecDeque::new();
        // The last PDU went at 1 ms and failed for good; nothing reached the receiver
        // after it, so no reordering timer runs.
        arq.sent_pdu(MS);
        arq.gave_up(2 * MS, 100, 200, &mut queue);
        arq.advance(6 * MS, 100, &RangeSet::default(), false, None, &mut queue);
        assert!(queue.is_empty(), "a busy sender does not poll");
        arq.advance(6 * MS, 100, &RangeSet::default(), true, None, &mut queue);
        assert_eq!(queue, VecDeque::from([(100, 200, 5 * MS)]));
    }

    /// With reports modelled, an idle sender whose last PDUs no report acknowledged
    /// sends them all again at the expiry: the bytes that arrived and those HARQ gave
    /// up on above the acknowledged end as one range, a hole below it on its own.
    #[test]
    fn the_poll_retransmit_timer_resends_what_no_report_acknowledged() {
        let mut arq = reordering();
        let mut queue = VecDeque::new();
        arq.sent_pdu(MS);
        arq.gave_up(2 * MS, 100, 200, &mut queue);
        arq.gave_up(2 * MS, 400, 450, &mut queue);
        let unacked = Some((300, 500));
        let beyond = held(&[(200, 300)]);
        arq.advance(5 * MS - 1, 100, &beyond, true, unacked, &mut queue);
        assert!(queue.is_empty(), "before the expiry at 5 ms");
        assert_eq!(
            arq.advance(5 * MS, 100, &beyond, true, unacked, &mut queue),
            Some(5 * MS),
            "the sender reports its buffer at the expiry"
        );
        assert_eq!(
            queue,
            VecDeque::from([(100, 200, 5 * MS), (300, 500, 5 * MS)])
        );
        queue.clear();
        let fired = arq.advance(9 * MS, 500, &RangeSet::default(), true, None, &mut queue);
        assert_eq!(fired, None);
        assert!(queue.is_empty(), "acknowledged since: nothing goes again");
    }
}
