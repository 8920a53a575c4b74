//! Simulated time: integer nanoseconds, so that event order never depends on
//! floating-point rounding and runs are bit-identical across machines.

/// A point in simulated time or a duration, in nanoseconds.
pub type Time = u64;

pub const NS_PER_S: u64 = 1_000_000_000;

/// Seconds (as written in configs) to nanoseconds, rounded to the nearest ns.
pub fn from_secs(s: f64) -> Time {
    debug_assert!(s >= 0.0, "negative time {s}");
    // + 0.5 and truncation round a non-negative value without a libm call.
    (s * NS_PER_S as f64 + 0.5) as Time
}

pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_S as f64
}

/// Serialisation cost of one byte in femtoseconds, for [`tx_time`]: integer
/// arithmetic per packet, exact for every rate that divides 8e15 (all the usual
/// ones), and within 1 fs per byte otherwise. An infinite rate costs nothing.
pub fn fs_per_byte(rate_bps: f64) -> u64 {
    (8e15 / rate_bps).round() as u64
}

/// Time to serialise `bytes` at `fs_per_byte`, rounded up so that a link never
/// exceeds its rate.
pub fn tx_time(bytes: u64, fs_per_byte: u64) -> Time {
    (bytes * fs_per_byte).div_ceil(1_000_000)
}

/// Serialisation at one rate, remembering the last packet size and its time: a link
/// or a pacer sees one or two sizes nearly always (full segments, pure ACKs), so the
/// multiply and divide of [`tx_time`] are rarely redone.
#[derive(Debug, Clone, Copy)]
pub struct Serialiser {
    fs_per_byte: u64,
    last: (u64, Time),
}

impl Serialiser {
    /// At `fs_per_byte` (see [`fs_per_byte`]).
    pub fn new(fs_per_byte: u64) -> Self {
        Self {
            fs_per_byte,
            last: (0, 0),
        }
    }

    pub fn fs_per_byte(&self) -> u64 {
        self.fs_per_byte
    }

    /// [`tx_time`] of `bytes` at this rate.
    pub fn time(&mut self, bytes: u64) -> Time {
        if bytes != self.last.0 {
            self.last = (bytes, tx_time(bytes, self.fs_per_byte));
        }
        self.last.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_trip() {
        assert_eq!(from_secs(0.010), 10_000_000);
        assert_eq!(from_secs(1.5), 1_500_000_000);
        assert!((to_secs(from_secs(0.0226)) - 0.0226).abs() < 1e-12);
    }

    #[test]
    fn serialisation_time_at_one_gigabit() {
        // 1500 bytes at 1 Gb/s take exactly 12 us.
        assert_eq!(tx_time(1500, fs_per_byte(1e9)), 12_000);
        // Rounded up, never down: 1 byte at 3 b/s is 2.666.. s.
        assert_eq!(tx_time(1, fs_per_byte(3.0)), 2_666_666_667);
        assert_eq!(tx_time(1500, fs_per_byte(f64::INFINITY)), 0);
    }

    #[test]
    fn serialiser_gives_tx_time_for_each_size_however_sizes_alternate() {
        let fs = fs_per_byte(1e9);
        let mut s = Serialiser::new(fs);
        for bytes in [0, 1500, 1500, 52, 1500, 52, 52, 0, 3] {
            assert_eq!(s.time(bytes), tx_time(bytes, fs), "{bytes} bytes");
        }
    }
}
