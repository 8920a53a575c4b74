//! The header bytes of ns3-mmwave's transport blocks, and the copies of the RLC queue
//! that size them (the `ns3-mmwave` profile's `downlink_headers` and
//! `uplink_headers`).
//!
//! The RLC byte stream (`rlc.rs`) numbers the bytes of the RLC SDUs: each IP packet
//! plus its 2-byte PDCP header. A transport block's new data is one RLC AM data PDU
//! cut from the opportunity the MAC gives the RLC: the bytes the scheduler granted the
//! bearer less the MAC subheader. The PDU spends 4 bytes on its fixed header and a
//! Length Indicator on each SDU piece but the last (2, 1, 2, 1, ... bytes: two LIs
//! share 3 bytes), so what the block carries of the stream follows from where the
//! SDU boundaries fall ([`pdu_data`]).
//!
//! The scheduler does not read the RLC's queue: it keeps the last buffer status the
//! RLC reported ([`QueueCopy`]), asks for that plus a fixed margin, and after each
//! block deducts the block less a fixed allowance. The allowance is smaller than the
//! headers a block of several SDUs carries, so the copy runs below the real queue:
//! a burst of k >= 8 SDUs drains to a tail of ceil(1.5 (k - 1)) - 10 bytes that the
//! copy calls empty, and the tail waits for the RLC's next report: a new SDU, a polled
//! PDU from the UE off the status-prohibit timer, or the buffer-status timer, up to
//! its period after the last SDU arrived.
//!
//! The uplink's blocks are the grants (`grants.rs`), and the UE's MAC fills each whole
//! (`MmWaveUeMac`, on an uplink DCI): the RLC's opportunity is the TB less its MAC
//! subheader and one byte more. The MAC keeps a copy of its own, the RLC's last
//! buffer status report, and deducts each TB it filled less 2 bytes, the RLC overhead
//! it assumes; while that copy is empty it gives the RLC no opportunity, and the TB
//! goes as padding. A TB of several SDUs leaves a tail there too, which waits for the
//! RLC's next report.

/// The PDCP header each downlink SDU carries.
pub const PDCP_HEADER_BYTES: u64 = 2;

/// The fixed part of an RLC AM data PDU's header (its segment offset is always there).
const AMD_HEADER_BYTES: u64 = 4;

/// The smallest opportunity the RLC cuts a new-data PDU from; a smaller one is wasted.
const MIN_DATA_OPPORTUNITY: u64 = 7;

/// The smallest queue the scheduler asks for, and the margin it adds to its copy (an
/// RLC header of 3, a MAC subheader of 4 and 10 more).
const REQUEST_FLOOR: u64 = 8;
const REQUEST_MARGIN: u64 = 17;

/// What the scheduler keeps of a block it granted out of its copy: a MAC subheader of
/// 4 and an RLC overhead of 2, whatever the block held.
const DEDUCTION_ALLOWANCE: u64 = 6;

/// What the UE's MAC keeps of an uplink TB it filled from its copy: the minimum RLC
/// overhead (`rlcOverhead = 2` for a data bearer).
const UE_DEDUCTION_ALLOWANCE: u64 = 2;

/// The MAC subheader of an RLC PDU granted `granted` bytes: 3 bytes with a 15-bit
/// length above 127 bytes, else 2 (the MAC takes it off the grant).
pub fn mac_subheader_bytes(granted: u64) -> u64 {
    if granted > 127 { 3 } else { 2 }
}

/// The RLC opportunity of a grant of `granted` bytes.
pub fn opportunity(granted: u64) -> u64 {
    granted.saturating_sub(mac_subheader_bytes(granted))
}

/// The RLC opportunity the UE's MAC gives out of an uplink TB of `tb` bytes: the TB
/// less its MAC subheader and one byte more (`bytesForThisLc - subheader.GetSize () - 1`).
pub fn uplink_opportunity(tb: u64) -> u64 {
    tb.saturating_sub(mac_subheader_bytes(tb) + 1)
}

/// Bytes of the stream an RLC AM data PDU cut from an `opportunity` carries, from the
/// sizes of the SDU pieces waiting in order (the first may be what is left of a
/// segmented SDU). A piece that does not fit is segmented to fill the PDU exactly; one
/// that fits with at most 2 bytes to spare, or that ends the queue, is the last and
/// needs no Length Indicator; any other takes one, 2 and 1 bytes in turn.
pub fn pdu_data(opportunity: u64, pieces: impl Iterator<Item = u64>) -> u64 {
    if opportunity < MIN_DATA_OPPORTUNITY {
        return 0;
    }
    let mut budget = opportunity - AMD_HEADER_BYTES;
    let mut data = 0;
    let mut li_bytes = 2;
    let mut pieces = pieces.peekable();
    while let Some(piece) = pieces.next() {
        if piece > budget {
            return data + budget;
        }
        if budget - piece <= 2 || pieces.peek().is_none() {
            return data + piece;
        }
        // At least 3 bytes remain, so at least 1 after the Length Indicator.
        data += piece;
        budget -= piece + li_bytes;
        li_bytes = 3 - li_bytes;
    }
    data
}

/// The scheduler's copy of one RLC entity's new-data queue, bytes: what the RLC last
/// reported (at each new SDU, each expiry of its buffer-status timer, each polled PDU
/// received off the status-prohibit timer, a re-establishment), less what the
/// scheduler deducted for its grants since.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueCopy {
    bytes: u64,
}

impl QueueCopy {
    /// The RLC reports `queue` bytes.
    pub fn reported(&mut self, queue: u64) {
        self.bytes = queue;
    }

    /// What the scheduler asks for the bearer, bytes: nothing for an empty copy.
    pub fn request(&self) -> u64 {
        if self.bytes == 0 {
            0
        } else {
            self.bytes.max(REQUEST_FLOOR) + REQUEST_MARGIN
        }
    }

    /// The scheduler granted the bearer `granted` bytes out of its request.
    pub fn granted(&mut self, granted: u64) {
        let deducted = granted.saturating_sub(DEDUCTION_ALLOWANCE);
        self.bytes = self.bytes.saturating_sub(deducted);
    }

    /// True when the copy holds nothing: the UE's MAC gives the RLC no opportunity.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The UE's MAC filled an uplink TB of `tb` bytes from the copy.
    pub fn filled(&mut self, tb: u64) {
        let deducted = tb.saturating_sub(UE_DEDUCTION_ALLOWANCE);
        self.bytes = self.bytes.saturating_sub(deducted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TCP segment of 1400 bytes with its headers (1452) and the PDCP header.
    const SDU: u64 = 1454;

    fn sdus(k: usize) -> impl Iterator<Item = u64> {
        std::iter::repeat_n(SDU, k)
    }

    /// A PDU that is filled exactly holds 4 + ceil(1.5 (k - 1)) bytes of header for k
    /// pieces: the data is the opportunity less that.
    #[test]
    fn a_full_pdu_of_k_pieces_spends_4_plus_ceil_1_5_k_minus_1_on_its_header() {
        for k in 1..30u64 {
            // Enough for k - 1 SDUs and part of the k-th.
            let o = 4 + (k - 1) * (SDU + 2) + 100;
            let data = pdu_data(o, sdus(40));
            assert_eq!(o - data, 4 + (3 * (k - 1)).div_ceil(2), "k = {k}");
        }
    }

    /// The Length Indicators cost 2, 1, 2, 1 ... bytes: each second SDU costs one byte
    /// less, seen in where the last piece's segment ends.
    #[test]
    fn length_indicators_alternate_two_and_one_bytes() {
        let o = 4 + 1000;
        // Pieces of 100: after n full pieces the budget is 1000 - 100 n - LIs.
        let data = pdu_data(o, std::iter::repeat_n(100, 20));
        // 9 pieces with LIs 2+1+2+1+2+1+2+1+2 = 14: 1000 - 900 - 14 = 86 of the 10th.
        assert_eq!(data, 900 + 86);
        let li = |n: u64| (3 * n).div_ceil(2);
        assert_eq!((li(1), li(2), li(3), li(4)), (2, 3, 5, 6));
    }

    #[test]
    fn the_last_piece_of_the_queue_needs_no_length_indicator() {
        // Two SDUs that leave 10 bytes spare: only the first takes an LI.
        assert_eq!(pdu_data(4 + 2 + 2 * SDU + 10, sdus(2)), 2 * SDU);
        // With a third behind them the second needs an LI too, and the third's segment
        // gets what is left.
        assert_eq!(pdu_data(4 + 2 + 2 * SDU + 10, sdus(3)), 2 * SDU + 10 - 1);
    }

    #[test]
    fn a_piece_leaving_at_most_two_bytes_ends_the_pdu_without_a_length_indicator() {
        for spare in 0..=2 {
            assert_eq!(pdu_data(4 + SDU + spare, sdus(3)), SDU, "spare {spare}");
        }
        // Three spare bytes: it takes an LI (2) and the next SDU gets the last byte.
        assert_eq!(pdu_data(4 + SDU + 3, sdus(3)), SDU + 1);
    }

    #[test]
    fn a_piece_that_does_not_fit_is_segmented_to_fill_the_pdu() {
        assert_eq!(pdu_data(4 + 500, sdus(3)), 500);
        // What is left of a segmented SDU comes first in the next PDU.
        assert_eq!(pdu_data(4 + 2000, [SDU - 500, SDU].into_iter()), 2000 - 2);
        assert_eq!(pdu_data(6, sdus(1)), 0, "below 7 bytes nothing is cut");
        assert_eq!(pdu_data(7, sdus(1)), 3);
    }

    #[test]
    fn the_mac_subheader_is_two_bytes_up_to_127_and_three_above() {
        assert_eq!((mac_subheader_bytes(127), opportunity(127)), (2, 125));
        assert_eq!((mac_subheader_bytes(128), opportunity(128)), (3, 125));
        assert_eq!(opportunity(39_187), 39_184);
    }

    #[test]
    fn the_request_is_the_copy_floored_at_8_plus_17_and_the_grant_less_6_is_deducted() {
        let mut c = QueueCopy::default();
        assert_eq!(c.request(), 0, "an empty copy asks for nothing");
        c.reported(3);
        assert_eq!(c.request(), 8 + 17);
        c.reported(10 * SDU);
        assert_eq!(c.request(), 10 * SDU + 17);
        c.granted(1776);
        assert_eq!(c.request(), 10 * SDU - 1770 + 17);
        c.granted(1_000_000);
        assert_eq!(c.request(), 0, "clamped at 0");
        c.granted(3);
        assert_eq!(c.request(), 0);
    }

    /// A burst of k SDUs whose request fits in one block: the block drains the copy
    /// but leaves ceil(1.5 (k - 1)) - 10 bytes of the last SDU in the RLC (k >= 8).
    #[test]
    fn a_burst_of_k_sdus_leaves_a_tail_the_copy_calls_empty() {
        for k in 1..=26u64 {
            let queue = k * SDU;
            let mut c = QueueCopy::default();
            c.reported(queue);
            let granted = c.request();
            let data = pdu_data(opportunity(granted), sdus(k as usize));
            c.granted(granted);
            let tail = (3 * (k - 1)).div_ceil(2).saturating_sub(10);
            assert_eq!(queue - data, tail, "k = {k}");
            assert_eq!(c.request(), 0, "k = {k}");
        }
    }

    /// A TCP ACK with timestamps (52 bytes) and its PDCP header.
    const ACK: u64 = 54;

    /// The UE's MAC gives the RLC its TB less the subheader and a byte: a one-symbol TB
    /// of 330 bytes (a 3-byte subheader) opens 326 to the RLC, whose PDU then carries
    /// five ACKs and 44 bytes of a sixth behind its 4-byte header and five Length
    /// Indicators (2 + 1 + 2 + 1 + 2).
    #[test]
    fn an_uplink_tb_gives_the_rlc_the_tb_less_its_subheader_and_a_byte() {
        assert_eq!(uplink_opportunity(330), 326);
        assert_eq!(uplink_opportunity(100), 97, "a 2-byte subheader up to 127");
        assert_eq!(uplink_opportunity(2), 0);
        let data = pdu_data(uplink_opportunity(330), std::iter::repeat_n(ACK, 10));
        assert_eq!(data, 5 * ACK + 44);
    }

    /// The UE's MAC deducts a filled TB less 2 bytes: six ACKs reported and one TB of
    /// 330 empty its copy, though 10 bytes of the sixth are still in the RLC.
    #[test]
    fn the_ue_macs_copy_empties_before_the_rlc_queue() {
        let mut c = QueueCopy::default();
        assert!(c.is_empty());
        c.reported(6 * ACK);
        assert!(!c.is_empty());
        let data = pdu_data(uplink_opportunity(330), std::iter::repeat_n(ACK, 6));
        c.filled(330);
        assert!(c.is_empty());
        assert_eq!(6 * ACK - data, 10);
        c.reported(6 * ACK);
        c.filled(100);
        assert_eq!(c.request(), 6 * ACK - 98 + 17, "100 less 2 deducted");
    }
}
