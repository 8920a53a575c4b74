/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * D-TCP / NexGen D-TCP (the D-TCP paper: Kanagarathinam et al., IEEE Access 2020): the
 * logic of crates/wavecc-core/src/cc/dtcp.rs with its default parameters (Tustin
 * filter, Eq. 12 in its N_i form, BW_C = the epoch's B_i, epoch = one smoothed RTT, N <= W), in
 * integer arithmetic, as pure functions on `struct dtcp_state`.
 *
 * Every epoch (the first ACK more than one srtt after the epoch began):
 *   B_i  = bytes delivered / epoch length                      (Eq. 1)
 *   B_I  = k B_I' + (1 - k) (B_i + B_{i-1}) / 2, k = 0.9       (Eq. 4)
 *   s    = B_I (SINR_i - SINR_avg) / max(|SINR_avg|, 1 dB)      (0 without a hint)
 *   BW_E = B_I + g ((B_i - B_I) + s), g = 0.5                   (Eqs. 6-7)
 *   N    = min(W, max(1, N + 1 - (BW_E - B_i) / (alpha BW_E) N)), alpha = 0.2 (Eq. 12
 *          as derived from Eqs. 10-11: the simulator's default n_update = "eq10")
 * cwnd += N per RTT in avoidance (slow start is NewReno's); a loss sets
 * ssthresh = cwnd (1 - y), y = eta / ((2 eta - 1) N + 1), eta = 2; a timeout resets
 * N and the estimator and restarts from twice the initial window, which is also the
 * connection's first window.
 *
 * Precision:
 * - bandwidths are integer bytes per second (the simulator: bit/s in floating point);
 *   B_i from tcp_sock.delivered segments x MSS over tcp_mstamp microseconds;
 * - SINR and its average are integer milli-dB (the hint's unit);
 * - (BW_E - BW_C) / BW_E is Q24 (6e-8), saturated at +-256, where N's bounds decide
 *   anyway; N is Q16 segments;
 * - ssthresh is floor(cwnd (1 - y)), whole segments; eta is an integer (the paper's 2).
 */
#ifndef WAVECC_DTCP_H
#define WAVECC_DTCP_H

#include "wavecc_fixed.h"

#define DTCP_K_PM 900
#define DTCP_G_PM 500
#define DTCP_ALPHA_PM 200
#define DTCP_ETA 2
#define DTCP_SINR_WEIGHT_PM 100
#define DTCP_INITIAL_WINDOW_FACTOR 2
#define DTCP_RTO_WINDOW_FACTOR 2
#define DTCP_MAX_N_WINDOW_FACTOR 1
#define DTCP_Q24_SHIFT 24
/* |(BW_E - BW_C) / BW_E| is saturated at 256 (Q24) so that / alpha x N stays in 64 bits;
 * beyond it N's bounds [1, W] decide anyway. */
#define DTCP_MAX_EXCESS_Q24 (256LL << DTCP_Q24_SHIFT)
/* One dB in the hint's unit, the floor of |SINR_avg| in s. */
#define DTCP_MDB_PER_DB 1000
/* Hints are clamped to +-100 dB, beyond any radio's range, so that a wrong value
 * written by the agent cannot overflow B_I x (SINR_i - SINR_avg). */
#define DTCP_SINR_LIMIT_MDB 100000

/* The SINR hint a user-space agent writes into the `dtcp_sinr` map. */
struct dtcp_sinr_hint {
	__s32 sinr_mdb; /* SINR in milli-dB */
	__u32 valid;    /* 0: no hint (the algorithm's wired-path behaviour, s = 0) */
};

struct dtcp_state {
	__u64 epoch_start_us;
	__u64 sample_bps;      /* B_i, bytes/s */
	__u64 filtered_bps;    /* B_I */
	__s64 estimate_bps;    /* BW_E */
	__u64 n_q16;           /* N, Q16 segments per RTT */
	__u32 epoch_delivered; /* tcp_sock.delivered at the epoch's start */
	__s32 sinr_avg_mdb;
	__u32 frac_q16;        /* window growth below one segment */
	__u32 init_cwnd;       /* the kernel's initial window */
	__u8 epoch_started;
	__u8 seeded;           /* an epoch has ended since the last reset */
	__u8 sinr_seen;        /* SINR_avg holds a value */
};

/* The estimator and N after a timeout (Algorithm 1, D-TCP_reset). */
static __always_inline void dtcp_reset(struct dtcp_state *s)
{
	__u32 init_cwnd = s->init_cwnd;

	*s = (struct dtcp_state){ .n_q16 = WAVECC_Q16_ONE, .init_cwnd = init_cwnd };
}

/* Algorithm 1 Initialization: cwnd = 2 x the initial window. */
static __always_inline void dtcp_init(struct dtcp_state *s, struct wavecc_window *w)
{
	s->init_cwnd = w->cwnd;
	dtcp_reset(s);
	w->cwnd = wavecc_max32(DTCP_INITIAL_WINDOW_FACTOR * s->init_cwnd, 1);
}

/* Step 2, Eq. 4. */
static __always_inline __u64 dtcp_low_pass(__u64 filtered, __u64 sample, __u64 prev)
{
	return (2 * DTCP_K_PM * filtered + (WAVECC_PM - DTCP_K_PM) * (sample + prev)) /
	       (2 * WAVECC_PM);
}

/* Step 3's s, and the SINR average's update; 0 without a hint. */
static __always_inline __s64 dtcp_sinr_term(struct dtcp_state *s, struct dtcp_sinr_hint h)
{
	__s64 avg = s->sinr_avg_mdb, sinr = h.sinr_mdb, scale;

	if (!h.valid)
		return 0;
	if (sinr > DTCP_SINR_LIMIT_MDB)
		sinr = DTCP_SINR_LIMIT_MDB;
	if (sinr < -DTCP_SINR_LIMIT_MDB)
		sinr = -DTCP_SINR_LIMIT_MDB;
	WAVECC_OPAQUE(sinr);
	if (!s->sinr_seen)
		avg = sinr;
	scale = avg < 0 ? -avg : avg;
	if (scale < DTCP_MDB_PER_DB)
		scale = DTCP_MDB_PER_DB;
	s->sinr_avg_mdb = (__s32)wavecc_sdiv((WAVECC_PM - DTCP_SINR_WEIGHT_PM) * avg +
					     DTCP_SINR_WEIGHT_PM * sinr, WAVECC_PM);
	s->sinr_seen = 1;
	return wavecc_sdiv((__s64)s->filtered_bps * (sinr - avg), scale);
}

/* Step 4, Eq. 12 as derived from Eqs. 10-11 (the simulator's default, n_update =
 * "eq10"): N + 1 - (BW_E - BW_C) / (alpha BW_E) x N, bounded to [1, W] (Q16). */
static __always_inline __u64 dtcp_next_n(__u64 n_q16, __s64 bw_e, __u64 bw_c, __u32 cwnd)
{
	__s64 excess = wavecc_sdiv((bw_e - (__s64)bw_c) * ((__s64)1 << DTCP_Q24_SHIFT), bw_e);
	__s64 per_alpha, next, step_q16;
	__u64 w = wavecc_min32(cwnd, WAVECC_MAX_WINDOW);

	if (excess > DTCP_MAX_EXCESS_Q24)
		excess = DTCP_MAX_EXCESS_Q24;
	if (excess < -DTCP_MAX_EXCESS_Q24)
		excess = -DTCP_MAX_EXCESS_Q24;
	/* excess / alpha, Q24. */
	per_alpha = wavecc_sdiv(excess * (__s64)WAVECC_PM, DTCP_ALPHA_PM);
	/* x N, Q24 x Q16 to Q16, N's whole and fractional parts apart so that no product
	 * passes 2^55 (N <= W <= 2^20). */
	step_q16 = wavecc_sdiv(per_alpha * (__s64)(n_q16 >> WAVECC_Q16_SHIFT),
			       1LL << (DTCP_Q24_SHIFT - WAVECC_Q16_SHIFT)) +
		   wavecc_sdiv(per_alpha * (__s64)(n_q16 & (WAVECC_Q16_ONE - 1)),
			       1LL << DTCP_Q24_SHIFT);
	next = (__s64)n_q16 + (__s64)WAVECC_Q16_ONE - step_q16;
	if (next < (__s64)WAVECC_Q16_ONE)
		next = WAVECC_Q16_ONE;
	return wavecc_max64(wavecc_min64(next, (__u64)DTCP_MAX_N_WINDOW_FACTOR * w << WAVECC_Q16_SHIFT),
			    WAVECC_Q16_ONE);
}

/* Steps 2-4 for an epoch that delivered at `b` bytes/s. */
static __always_inline void dtcp_end_epoch(struct dtcp_state *s, __u64 b, __u32 cwnd,
					   struct dtcp_sinr_hint h)
{
	__u64 filtered = s->seeded ? s->filtered_bps : b;
	__u64 prev = s->seeded ? s->sample_bps : b;
	__s64 sinr_term;

	s->filtered_bps = dtcp_low_pass(filtered, b, prev);
	s->sample_bps = b;
	s->seeded = 1;
	sinr_term = dtcp_sinr_term(s, h);
	s->estimate_bps = (__s64)s->filtered_bps +
			  wavecc_sdiv(DTCP_G_PM * ((__s64)b - (__s64)s->filtered_bps + sinr_term),
				      WAVECC_PM);
	if (s->estimate_bps > 0)
		s->n_q16 = dtcp_next_n(s->n_q16, s->estimate_bps, b, cwnd);
}

/* Every ACK (pkts_acked): ends the epoch on the first ACK more than srtt after it
 * began (step 1). */
static __always_inline void dtcp_on_ack(struct dtcp_state *s, __u64 now_us, __u32 delivered,
					__u32 srtt_us, __u32 mss, __u32 cwnd,
					struct dtcp_sinr_hint h)
{
	__u64 elapsed, bytes;

	if (!s->epoch_started) {
		s->epoch_started = 1;
		s->epoch_start_us = now_us;
		s->epoch_delivered = delivered;
		return;
	}
	elapsed = now_us - s->epoch_start_us;
	if (!srtt_us || elapsed <= srtt_us)
		return;
	bytes = (__u64)(delivered - s->epoch_delivered) * mss;
	s->epoch_start_us = now_us;
	s->epoch_delivered = delivered;
	dtcp_end_epoch(s, bytes * 1000000 / elapsed, cwnd, h);
}

/* Eqs. 15-16: floor(cwnd (1 - y)), y = eta / ((2 eta - 1) N + 1), at least 2. */
static __always_inline __u32 dtcp_ssthresh(const struct dtcp_state *s, __u32 cwnd)
{
	__u64 den = (2 * DTCP_ETA - 1) * s->n_q16 + WAVECC_Q16_ONE;
	__u64 num = den - DTCP_ETA * WAVECC_Q16_ONE;
	__u64 w = wavecc_min32(cwnd, WAVECC_MAX_WINDOW);

	return wavecc_max32((__u32)(w * num / den), WAVECC_MIN_SSTHRESH);
}

/* Eq. 14: cwnd += N per RTT. */
static __always_inline void dtcp_cong_avoid(struct dtcp_state *s, struct wavecc_window *w,
					    __u32 acked)
{
	if (wavecc_in_slow_start(w))
		acked = wavecc_slow_start(w, acked);
	if (acked)
		wavecc_grow_per_rtt(w, &s->frac_q16, s->n_q16, acked);
}

/* The window after a timeout: twice the initial window. */
static __always_inline __u32 dtcp_loss_window(const struct dtcp_state *s)
{
	return wavecc_max32(DTCP_RTO_WINDOW_FACTOR * s->init_cwnd, 1);
}

#endif /* WAVECC_DTCP_H */
