//! The fixed-point helpers every kernel program shares: `bpf/wavecc_fixed.h` line for
//! line, with the C's widths (`u32` windows, `u64` products, `i64` signed quantities).
//!
//! Q16 is an unsigned value scaled by 2^16; per-mille (`_PM`) constants are the
//! paper's values in thousandths. Windows and ssthresh are whole segments.

pub const Q16_SHIFT: u32 = 16;
pub const Q16_ONE: u64 = 1 << Q16_SHIFT;
pub const PM: u64 = 1000;
/// Smallest ssthresh after a loss (RFC 5681: 2 segments).
pub const MIN_SSTHRESH: u32 = 2;
/// The kernel's "no ssthresh yet" (`TCP_INFINITE_SSTHRESH`).
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
/// Windows are clamped here before fixed-point products (2^20 segments), which keeps
/// every product in 64 bits.
pub const MAX_WINDOW: u32 = 1 << 20;

/// The window an algorithm reads and writes (`struct wavecc_window`), segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u32,
    pub ssthresh: u32,
}

/// `floor(num x 2^16 / den)` without overflow while `num / den < 2^48`; 0 for `den` 0.
pub fn ratio_q16(num: u64, den: u64) -> u64 {
    if den == 0 {
        return 0;
    }
    ((num / den) << Q16_SHIFT) + ((num % den) << Q16_SHIFT) / den
}

/// `floor(x x pm / 1000)`: a per-mille constant applied to a value below 2^54.
pub fn scale_pm(x: u64, pm: u64) -> u64 {
    x.wrapping_mul(pm) / PM
}

/// Signed division truncated towards zero; 0 for a zero denominator (BPF's rule).
pub fn sdiv(num: i64, den: i64) -> i64 {
    let (n, d) = (num.unsigned_abs(), den.unsigned_abs());
    if d == 0 {
        return 0;
    }
    let q = (n / d) as i64;
    if (num < 0) != (den < 0) {
        q.wrapping_neg()
    } else {
        q
    }
}

/// Number of significant bits of `x` (0 for 0).
fn bit_length(x: u64) -> u32 {
    u64::BITS - x.leading_zeros()
}

/// `floor(sqrt(x))` by the C's seven Newton steps from `2^ceil(bits / 2)` and a final
/// correction; the unit tests check it against the exact root.
pub fn isqrt(x: u64) -> u64 {
    if x == 0 {
        return 0;
    }
    let mut y = 1u64 << bit_length(x).div_ceil(2);
    for _ in 0..7 {
        y = (y + x / y) >> 1;
    }
    if y.wrapping_mul(y) > x { y - 1 } else { y }
}

/// Sequence number `a` is after `b` (the kernel's `after()`).
pub fn seq_after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// Linux `tcp_slow_start`: +1 per acknowledged segment up to ssthresh; returns the
/// acknowledged segments left for avoidance.
pub fn slow_start(w: &mut Window, acked: u32) -> u32 {
    let cwnd = w.cwnd.wrapping_add(acked).min(w.ssthresh.max(w.cwnd));
    let left = acked.wrapping_sub(cwnd.wrapping_sub(w.cwnd));
    w.cwnd = cwnd;
    left
}

pub fn in_slow_start(w: &Window) -> bool {
    w.cwnd < w.ssthresh
}

/// Adds `add_q16` segments (Q16): whole segments to cwnd, the rest kept in `frac_q16`.
pub fn grow_q16(w: &mut Window, frac_q16: &mut u32, add_q16: u64) {
    let total = u64::from(*frac_q16).wrapping_add(add_q16);
    w.cwnd = w.cwnd.wrapping_add((total >> Q16_SHIFT) as u32);
    *frac_q16 = (total & (Q16_ONE - 1)) as u32;
}

/// `cwnd += per_rtt x acked / cwnd`: `per_rtt` segments (Q16) per window of ACKs.
pub fn grow_per_rtt(w: &mut Window, frac_q16: &mut u32, per_rtt_q16: u64, acked: u32) {
    let cwnd = u64::from(w.cwnd).max(1);
    grow_q16(
        w,
        frac_q16,
        per_rtt_q16.wrapping_mul(u64::from(acked)) / cwnd,
    );
}

/// NewReno's per-ACK rule: slow start, then +1/cwnd per acknowledged segment.
pub fn reno_step(w: &mut Window, frac_q16: &mut u32, mut acked: u32) {
    if in_slow_start(w) {
        acked = slow_start(w, acked);
    }
    if acked > 0 {
        grow_per_rtt(w, frac_q16, Q16_ONE, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isqrt_is_the_floor_of_the_root() {
        for x in (0..2_000_000u64)
            .map(|x| x * 1_000_003)
            .chain([1, 2, 3, 4, u64::MAX >> 4])
        {
            let r = isqrt(x);
            assert!(r * r <= x && (r + 1) * (r + 1) > x, "{x}: {r}");
        }
    }

    #[test]
    fn ratio_q16_floors_without_overflow() {
        assert_eq!(ratio_q16(3, 2), 3 * Q16_ONE / 2);
        assert_eq!(ratio_q16(1, 3), 21845); // floor(65536 / 3)
        assert_eq!(ratio_q16(5, 0), 0);
        // num x 2^16 would overflow; num / den < 2^48 does not.
        assert_eq!(ratio_q16(1 << 60, 1 << 20), 1 << 56);
    }

    #[test]
    fn per_mille_scaling_and_signed_division_truncate() {
        assert_eq!(scale_pm(1001, 750), 750); // 750.75
        assert_eq!(sdiv(-7, 2), -3);
        assert_eq!(sdiv(7, -2), -3);
        assert_eq!(sdiv(-7, -2), 3);
        assert_eq!(sdiv(7, 0), 0);
    }

    #[test]
    fn sequence_comparison_wraps() {
        assert!(seq_after(5, 0xffff_fff0));
        assert!(!seq_after(0xffff_fff0, 5));
        assert!(!seq_after(7, 7));
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut w = Window {
            cwnd: 10,
            ssthresh: 12,
        };
        assert_eq!(slow_start(&mut w, 5), 3);
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn growth_keeps_the_fraction_of_a_segment() {
        // Reno at cwnd 4: four single-segment ACKs add 4 x 1/4 = one segment, the
        // first three only in the Q16 fraction.
        let (mut w, mut frac) = (
            Window {
                cwnd: 4,
                ssthresh: 2,
            },
            0,
        );
        for i in 0..3 {
            reno_step(&mut w, &mut frac, 1);
            assert_eq!((w.cwnd, frac), (4, (i + 1) * 16384), "ack {i}");
        }
        reno_step(&mut w, &mut frac, 1);
        assert_eq!((w.cwnd, frac), (5, 0));
        // 1/3 of a segment is floored in Q16: 21845 per ACK.
        let (mut w, mut frac) = (
            Window {
                cwnd: 3,
                ssthresh: 2,
            },
            0,
        );
        reno_step(&mut w, &mut frac, 1);
        assert_eq!(frac, 21845);
    }
}
