//! The pacer's integer forms of a pacing rate, kept for the last rate seen.
//!
//! The sender converts its pacing rate into a serialisation cost per byte on every
//! transmission and into a burst allowance on every send attempt; each conversion
//! is a division plus a libm `round` call. The rate itself changes far less often
//! (BBR's is its bandwidth estimate times a phase gain: new only when either moves),
//! so the conversions are redone only when its bits change. The values are exactly
//! those of converting afresh.

use crate::engine::{Serialiser, Time, fs_per_byte, to_secs, tx_time};

/// Linux's cap on one TSO burst (`tcp_tso_autosize`: 64 KB).
const MAX_BURST_BYTES: f64 = 65_536.0;

#[derive(Debug, Clone)]
pub struct PacingRate {
    /// The rate these values belong to, as bits (NaN before the first rate).
    rate_bits: u64,
    serialiser: Serialiser,
    allowance: Time,
}

impl Default for PacingRate {
    fn default() -> Self {
        Self {
            rate_bits: f64::NAN.to_bits(),
            serialiser: Serialiser::new(0),
            allowance: 0,
        }
    }
}

impl PacingRate {
    /// Converts `rate_bps` (finite, positive) unless it is the rate of last time.
    /// `segment` is a full packet's size in bytes; `burst` how long a burst lasts at
    /// the pacing rate (0: every packet is paced).
    #[inline]
    pub fn update(&mut self, rate_bps: f64, segment: u32, burst: Time) -> &mut Self {
        if rate_bps.to_bits() != self.rate_bits {
            self.rate_bits = rate_bps.to_bits();
            self.serialiser = Serialiser::new(fs_per_byte(rate_bps));
            self.allowance = allowance(
                rate_bps,
                self.serialiser.fs_per_byte(),
                f64::from(segment),
                burst,
            );
        }
        self
    }

    /// Time the pacer spends on a packet of `bytes`.
    pub fn gap(&mut self, bytes: u64) -> Time {
        self.serialiser.time(bytes)
    }

    /// How far ahead of its schedule the pacer may send.
    pub fn allowance(&self) -> Time {
        self.allowance
    }
}

/// One burst (Linux's `tcp_tso_autosize`: `burst` of data at the pacing rate,
/// capped at 64 KB, at least 2 segments) less its last packet, which sets the next
/// slot; nothing when every packet is paced.
fn allowance(rate_bps: f64, fs_per_byte: u64, segment: f64, burst: Time) -> Time {
    if burst == 0 {
        return 0;
    }
    let bytes = (rate_bps / 8.0 * to_secs(burst))
        .min(MAX_BURST_BYTES)
        .max(2.0 * segment);
    tx_time((bytes - segment).max(0.0) as u64, fs_per_byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gap_is_the_serialisation_time_at_the_rate() {
        let mut p = PacingRate::default();
        // 1500 bytes at 1 Gb/s: 12 us.
        assert_eq!(p.update(1e9, 1500, 0).gap(1500), 12_000);
        // A new rate is converted afresh, not served from the last one.
        assert_eq!(p.update(1e8, 1500, 0).gap(1500), 120_000);
    }

    #[test]
    fn allowance_is_a_burst_less_one_packet_capped_at_64_kb_and_at_least_two_segments() {
        let mut p = PacingRate::default();
        assert_eq!(
            p.update(1e9, 1500, 0).allowance(),
            0,
            "no bursts: every packet paced"
        );
        // 1 ms at 100 Mb/s = 12 500 bytes; less one 1500-byte packet: 11 000 bytes = 880 us.
        assert_eq!(p.update(1e8, 1500, 1_000_000).allowance(), 880_000);
        // 1 ms at 10 Gb/s = 1.25 MB, capped at 65 536 bytes: 64 036 bytes at 10 Gb/s.
        assert_eq!(
            p.update(1e10, 1500, 1_000_000).allowance(),
            tx_time(64_036, fs_per_byte(1e10))
        );
        // 1 ms at 1 Mb/s = 125 bytes, raised to two segments: one segment's time.
        assert_eq!(p.update(1e6, 1500, 1_000_000).allowance(), 12_000_000);
    }
}
