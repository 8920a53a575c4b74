//! RLC AM's retransmission unit, and how ns3-mmwave's receiver places the segments of
//! one.
//!
//! The module's `LteRlcAm` retransmits what a status report NACKs PDU by PDU: one per
//! data opportunity (a transport block), with nothing else beside it, whole if the
//! opportunity holds it, else cut into a first segment that fills the opportunity and a
//! remainder that waits for the next one (and may be cut again). The stream's bytes are
//! numbered as before; [`Pdus`] remembers where each PDU sent for the first time
//! starts, so a retransmission can be cut at a PDU's end and widened to a whole PDU.
//!
//! Its receiver (`LteRlcAm::DoReceivePdu`) places a PDU it holds nothing of if it is
//! whole or a segment at offset 0, and drops a segment at any other offset. A PDU held
//! in part takes only the segment that continues it (the last one completes it); a
//! segment out of order erases the part held, and a whole PDU is discarded as a
//! duplicate sequence number. So when HARQ delivers a retransmission's segments out of
//! order, or loses a later one, the receiver keeps the first segment alone and
//! discards every whole retransmission of that PDU after it: the PDU never completes
//! and nothing behind it is handed up. A defect of the module, which [`Partial`]
//! models.

use std::collections::VecDeque;

/// Where each PDU a sender sent for the first time starts, oldest first: the PDUs are
/// contiguous in the stream, each ending where the next starts (the last at the end
/// of what was sent).
#[derive(Clone, Debug, Default)]
pub struct Pdus {
    starts: VecDeque<u64>,
}

impl Pdus {
    /// A new PDU starting at `start`, just past the last one.
    pub fn sent(&mut self, start: u64) {
        debug_assert!(self.starts.back().is_none_or(|&s| s < start));
        self.starts.push_back(start);
    }

    /// The PDU holding byte `x`, given `sent_end`, the end of the stream sent. A byte
    /// below the oldest PDU kept (one already handed up) stands for itself up to it.
    pub fn bounds(&self, x: u64, sent_end: u64) -> (u64, u64) {
        let i = self.starts.partition_point(|&s| s <= x);
        let end = self.starts.get(i).copied().unwrap_or(sent_end).max(x);
        match i.checked_sub(1) {
            Some(p) => (self.starts[p], end),
            None => (x, end),
        }
    }

    /// The whole PDUs that `start..end` touches.
    pub fn widen(&self, start: u64, end: u64, sent_end: u64) -> (u64, u64) {
        (
            self.bounds(start, sent_end).0,
            self.bounds(end - 1, sent_end).1,
        )
    }

    /// Forgets the PDUs that end at or below `rx_next`: the receiver handed them up.
    pub fn settle(&mut self, rx_next: u64) {
        while self.starts.get(1).is_some_and(|&next| next <= rx_next) {
            self.starts.pop_front();
        }
    }

    pub fn clear(&mut self) {
        self.starts.clear();
    }
}

/// What the receiver made of a decoded piece of a PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placed {
    /// The PDU is complete: its bytes join the received ones.
    Complete,
    /// Kept as part of the PDU, which is still incomplete.
    Held,
    /// Discarded: the receiver goes on NACKing the PDU.
    Refused,
}

/// The PDUs the receiver holds in part, each as (start, end, next byte expected).
#[derive(Clone, Debug, Default)]
pub struct Partial {
    held: Vec<(u64, u64, u64)>,
}

impl Partial {
    /// The piece `start..end` of the PDU `pdu` (not already complete at the receiver)
    /// arrives. The rule of the module's `DoReceivePdu` (module doc).
    pub fn place(&mut self, start: u64, end: u64, pdu: (u64, u64)) -> Placed {
        let (first, last) = pdu;
        let whole = start == first && end == last;
        let Some(i) = self.held.iter().position(|h| h.0 == first) else {
            return if whole {
                Placed::Complete
            } else if start == first {
                self.held.push((first, last, end));
                Placed::Held
            } else {
                Placed::Refused
            };
        };
        if whole {
            return Placed::Refused;
        }
        if start != self.held[i].2 {
            self.held.swap_remove(i);
            return Placed::Refused;
        }
        if end == last {
            self.held.swap_remove(i);
            Placed::Complete
        } else {
            self.held[i].2 = end;
            Placed::Held
        }
    }

    pub fn clear(&mut self) {
        self.held.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three_pdus() -> Pdus {
        let mut p = Pdus::default();
        for start in [100, 300, 350] {
            p.sent(start);
        }
        p
    }

    #[test]
    fn a_byte_belongs_to_the_pdu_that_starts_at_or_before_it() {
        let p = three_pdus();
        assert_eq!(p.bounds(100, 500), (100, 300));
        assert_eq!(p.bounds(299, 500), (100, 300));
        assert_eq!(p.bounds(300, 500), (300, 350));
        assert_eq!(p.bounds(420, 500), (350, 500));
        // Below the oldest PDU kept: the byte alone, up to it.
        assert_eq!(p.bounds(40, 500), (40, 100));
        assert_eq!(p.widen(120, 320, 500), (100, 350));
        assert_eq!(p.widen(300, 350, 500), (300, 350));
    }

    #[test]
    fn settling_forgets_only_pdus_wholly_handed_up() {
        let mut p = three_pdus();
        p.settle(299);
        assert_eq!(p.bounds(150, 500), (100, 300));
        p.settle(300);
        assert_eq!(p.bounds(320, 500), (300, 350));
        assert_eq!(p.bounds(150, 500), (150, 300));
        p.settle(10_000);
        assert_eq!(p.bounds(400, 500), (350, 500), "the last PDU stays");
    }

    const PDU: (u64, u64) = (100, 334);

    #[test]
    fn a_whole_pdu_completes_and_segments_complete_only_in_order() {
        let mut r = Partial::default();
        assert_eq!(r.place(100, 334, PDU), Placed::Complete);
        assert_eq!(r.place(100, 200, PDU), Placed::Held);
        assert_eq!(r.place(200, 300, PDU), Placed::Held);
        assert_eq!(r.place(300, 334, PDU), Placed::Complete);
        assert!(r.held.is_empty());
    }

    #[test]
    fn a_segment_not_at_offset_zero_is_dropped_when_nothing_is_held() {
        let mut r = Partial::default();
        assert_eq!(r.place(325, 334, PDU), Placed::Refused);
        assert!(r.held.is_empty(), "the last segment leaves no trace");
    }

    /// The module's stall: the last segment arrives first and is dropped, the first
    /// is held, and every whole retransmission after it is a duplicate.
    #[test]
    fn a_whole_pdu_is_refused_while_a_part_of_it_is_held() {
        let mut r = Partial::default();
        assert_eq!(r.place(325, 334, PDU), Placed::Refused);
        assert_eq!(r.place(100, 325, PDU), Placed::Held);
        for _ in 0..3 {
            assert_eq!(r.place(100, 334, PDU), Placed::Refused);
        }
        assert_eq!(r.held, vec![(100, 334, 325)]);
        // Only the segment that continues it completes it.
        assert_eq!(r.place(325, 334, PDU), Placed::Complete);
    }

    #[test]
    fn a_segment_out_of_order_erases_the_part_held() {
        let mut r = Partial::default();
        assert_eq!(r.place(100, 200, PDU), Placed::Held);
        // A resent first segment does not continue the part held.
        assert_eq!(r.place(100, 150, PDU), Placed::Refused);
        assert!(r.held.is_empty());
        // With nothing held, a whole retransmission completes the PDU.
        assert_eq!(r.place(100, 334, PDU), Placed::Complete);
    }

    #[test]
    fn parts_of_different_pdus_are_held_apart() {
        let mut r = Partial::default();
        let other = (334, 500);
        assert_eq!(r.place(100, 200, PDU), Placed::Held);
        assert_eq!(r.place(334, 400, other), Placed::Held);
        assert_eq!(r.place(400, 500, other), Placed::Complete);
        assert_eq!(r.place(200, 334, PDU), Placed::Complete);
    }
}
