/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Fixed-point and window helpers shared by the five wavecc congestion controls.
 *
 * Everything here is a pure function of its arguments: no kernel types, no helpers,
 * no floating point (BPF has none). The same header compiles natively (with
 * <linux/types.h>) so that a user-space harness can run the algorithms' logic on
 * recorded ACKs and compare it with the simulator step by step.
 *
 * Conventions, used by every algorithm:
 * - Q16: an unsigned value scaled by 2^16 (precision 1/65536 = 1.5e-5), used for
 *   TimeRatio, F, FB-TCP's maxCwnd, D-TCP's N, and the fraction of a segment the
 *   window has grown by but not yet added (`frac_q16`). Where a ratio is only
 *   compared with a constant (FB-TCP's CSI and CAD), it is compared exactly by
 *   cross-multiplication instead.
 * - per-mille (`_PM`): a constant of the paper written as an integer in thousandths
 *   (0.75 -> 750). All the papers' defaults are exact in this unit.
 * - Times are microseconds (the kernel's RTT samples and tcp_mstamp), windows
 *   and ssthresh whole segments (snd_cwnd, snd_ssthresh).
 */
#ifndef WAVECC_FIXED_H
#define WAVECC_FIXED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Makes the compiler forget what it knows about a value: keeps it from turning
 * `c ? s->x : y` into one load through a selected pointer, which the verifier refuses
 * ("same insn cannot be used with different pointers"). */
#define WAVECC_OPAQUE(x) asm volatile("" : "+r"(x))

#define WAVECC_Q16_SHIFT 16
#define WAVECC_Q16_ONE (1ULL << WAVECC_Q16_SHIFT)
#define WAVECC_PM 1000ULL
/* Smallest ssthresh after a loss (RFC 5681: 2 segments), as the simulator. */
#define WAVECC_MIN_SSTHRESH 2U
/* The kernel's "no ssthresh yet" (TCP_INFINITE_SSTHRESH). */
#define WAVECC_INFINITE_SSTHRESH 0x7fffffffU
/* Windows above this are clamped before fixed-point products (2^20 segments, about
 * 1.4 GB of 1400-byte segments: far above any snd_cwnd_clamp in practice); it keeps
 * every product below in 64 bits. */
#define WAVECC_MAX_WINDOW (1U << 20)

/* The congestion window and slow-start threshold an algorithm reads and writes, in
 * segments; the kernel glue loads them from and stores them to the tcp_sock. */
struct wavecc_window {
	__u32 cwnd;
	__u32 ssthresh;
};

static __always_inline __u64 wavecc_min64(__u64 a, __u64 b) { return a < b ? a : b; }
static __always_inline __u64 wavecc_max64(__u64 a, __u64 b) { return a > b ? a : b; }
static __always_inline __u32 wavecc_min32(__u32 a, __u32 b) { return a < b ? a : b; }
static __always_inline __u32 wavecc_max32(__u32 a, __u32 b) { return a > b ? a : b; }

/* floor(num x 2^16 / den) without overflowing while num / den < 2^48; 0 for den 0. */
static __always_inline __u64 wavecc_ratio_q16(__u64 num, __u64 den)
{
	if (!den)
		return 0;
	return ((num / den) << WAVECC_Q16_SHIFT) + ((num % den) << WAVECC_Q16_SHIFT) / den;
}

/* floor(x x pm / 1000): a per-mille constant applied to a value below 2^54. */
static __always_inline __u64 wavecc_scale_pm(__u64 x, __u64 pm)
{
	return x * pm / WAVECC_PM;
}

/* Signed division truncated towards zero. BPF before cpu v4 (clang < 18) has only
 * unsigned division, so the sign is handled here. */
static __always_inline __s64 wavecc_sdiv(__s64 num, __s64 den)
{
	__u64 n = num < 0 ? -(__u64)num : (__u64)num;
	__u64 d = den < 0 ? -(__u64)den : (__u64)den;
	__u64 q;

	if (!d)
		return 0;
	q = n / d;
	return (num < 0) != (den < 0) ? -(__s64)q : (__s64)q;
}

/* Number of significant bits of x (0 for 0): six steps of a binary search. */
static __always_inline __u32 wavecc_bit_length(__u64 x)
{
	__u32 n = 0;

	if (x >> 32) { n += 32; x >>= 32; }
	if (x >> 16) { n += 16; x >>= 16; }
	if (x >> 8) { n += 8; x >>= 8; }
	if (x >> 4) { n += 4; x >>= 4; }
	if (x >> 2) { n += 2; x >>= 2; }
	if (x >> 1) { n += 1; x >>= 1; }
	return n + (__u32)x;
}

/* floor(sqrt(x)): Newton's iteration from 2^ceil(bits / 2), never below the root, at
 * most twice it; seven branch-free steps reach the floor or one above it (the error
 * squares each step), corrected at the end. A loop with a data-dependent branch per
 * bit would make the verifier walk every path. */
static __always_inline __u64 wavecc_isqrt(__u64 x)
{
	__u64 y;
	int i;

	if (!x)
		return 0;
	y = 1ULL << ((wavecc_bit_length(x) + 1) / 2);
	for (i = 0; i < 7; i++)
		y = (y + x / y) >> 1;
	if (y * y > x)
		y--;
	return y;
}

/* Sequence number a is after b (RFC 793 arithmetic, as the kernel's after()). */
static __always_inline int wavecc_seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

/* Slow start (Linux tcp_slow_start, the simulator's slow_start): +1 per acknowledged
 * segment up to ssthresh; returns the acknowledged segments left for avoidance. */
static __always_inline __u32 wavecc_slow_start(struct wavecc_window *w, __u32 acked)
{
	__u32 cwnd = wavecc_min32(w->cwnd + acked, wavecc_max32(w->ssthresh, w->cwnd));

	acked -= cwnd - w->cwnd;
	w->cwnd = cwnd;
	return acked;
}

static __always_inline int wavecc_in_slow_start(const struct wavecc_window *w)
{
	return w->cwnd < w->ssthresh;
}

/* Adds `add_q16` (segments in Q16) to the window: the whole segments go to cwnd, the
 * rest stays in `frac_q16`. This is the simulator's fractional `cwnd += x`, with the
 * window's fraction kept beside the kernel's integer snd_cwnd. */
static __always_inline void wavecc_grow_q16(struct wavecc_window *w, __u32 *frac_q16,
					    __u64 add_q16)
{
	__u64 total = *frac_q16 + add_q16;

	w->cwnd += (__u32)(total >> WAVECC_Q16_SHIFT);
	*frac_q16 = (__u32)(total & (WAVECC_Q16_ONE - 1));
}

/* `cwnd += per_rtt_q16 x acked / cwnd`: per_rtt segments per window of ACKs. */
static __always_inline void wavecc_grow_per_rtt(struct wavecc_window *w, __u32 *frac_q16,
						__u64 per_rtt_q16, __u32 acked)
{
	__u64 cwnd = wavecc_max64(w->cwnd, 1);

	wavecc_grow_q16(w, frac_q16, per_rtt_q16 * acked / cwnd);
}

/* NewReno's per-ACK rule (the simulator's reno_cong_avoid): slow start, then
 * +1/cwnd per acknowledged segment. */
static __always_inline void wavecc_reno_step(struct wavecc_window *w, __u32 *frac_q16,
					     __u32 acked)
{
	if (wavecc_in_slow_start(w))
		acked = wavecc_slow_start(w, acked);
	if (acked)
		wavecc_grow_per_rtt(w, frac_q16, WAVECC_Q16_ONE, acked);
}

#endif /* WAVECC_FIXED_H */
