/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * RTTV-CCA, MSS-CCA and MRVHS-CCA (the thesis: Abdulmajid, PhD thesis UPM 2025,
 * Algorithms 4.1, 5.1, 6.1): the logic of crates/wavecc-core/src/cc/rtt_variation.rs
 * in integer arithmetic, as pure functions on `struct rttv_state`.
 *
 * The three track RTTbase (minimum), RTTmax (maximum) and RTTcur (latest sample),
 * grow by F / cwnd per acknowledged segment in congestion avoidance with
 * TimeRatio = (RTTmax + RTTbase) / RTTcur, and differ in F and in the decrease:
 *   RTTV  F = sqrt(TimeRatio x cwnd)   loss: ssthresh = beta cwnd           RTO: 1 segment
 *   MSS   F = sqrt(TimeRatio x MSS)    loss: ssthresh = beta cwnd           RTO: initial window
 *   MRVHS F = sqrt(TimeRatio x MSS)    loss: ssthresh = (1 - b(w)) w (3649) RTO: 1 segment
 * MSS in bytes, beta = 0.5: the simulator's defaults. The other readings the
 * simulator offers as parameters are fixed at its defaults: growth per acknowledged
 * segment, RTT triple updated on avoidance ACKs only (with the latest sample),
 * ssthresh from cwnd.
 *
 * Precision: RTTs are the kernel's microsecond samples; TimeRatio and F are Q16
 * (1/65536), F from an integer square root of a Q32 product, so F is exact to
 * 2^-16 segments; the window's fractional growth is kept in Q16 (`frac_q16`).
 * b(w) is ns-3's table, in hundredths as ns-3 tabulates it (exact).
 */
#ifndef WAVECC_RTT_VARIATION_H
#define WAVECC_RTT_VARIATION_H

#include "wavecc_fixed.h"

/* TimeRatio before any sample: (r + r) / r for three equal RTTs. */
#define RTTV_NEUTRAL_TIME_RATIO_Q16 (2 * WAVECC_Q16_ONE)
/* TimeRatio is capped here (RTTmax 255 times RTTcur) so F's product stays in 64 bits. */
#define RTTV_MAX_TIME_RATIO_Q16 (256 * WAVECC_Q16_ONE)

enum rttv_growth {
	RTTV_GROWTH_WINDOW, /* RTTV-CCA, Eq. 4.4 */
	RTTV_GROWTH_MSS,    /* MSS-CCA Eq. 5.4, MRVHS-CCA Eq. 6.5, MSS in bytes */
};

enum rttv_decrease {
	RTTV_DECREASE_BETA,      /* w <- beta w */
	RTTV_DECREASE_HIGHSPEED, /* w <- (1 - b(w)) w, RFC 3649 (ns-3's table) */
};

struct rttv_config {
	enum rttv_growth growth;
	enum rttv_decrease decrease;
	__u32 beta_pm;     /* RTTV_DECREASE_BETA: window kept, per mille */
	int rto_initial;   /* a timeout restarts from the initial window, not 1 segment */
};

struct rttv_state {
	__u32 base_us;     /* RTTbase; 0 before any sample */
	__u32 cur_us;      /* RTTcur; 0 before any sample */
	__u32 max_us;      /* RTTmax */
	__u32 last_us;     /* latest sample of any ACK (ns-3 m_lastRtt); 0 before any */
	__u32 frac_q16;    /* window growth below one segment */
	__u32 init_cwnd;   /* the window at init, for rto_initial */
	__u32 f_q16;       /* F of the last increase (for inspection) */
	__u32 time_ratio_q16; /* TimeRatio of the last increase */
};

/* ns-3's TcpHighSpeed table: windows and b(w) in hundredths (crates/wavecc-core
 * src/cc/highspeed.rs NS3_TABLE). Row i covers windows up to its threshold. */
#define HIGHSPEED_ROWS 73
static const __u32 highspeed_window[HIGHSPEED_ROWS] = {
	38, 118, 221, 347, 495, 663, 851, 1058, 1284, 1529, 1793, 2076, 2378, 2699, 3039,
	3399, 3778, 4177, 4596, 5036, 5497, 5979, 6483, 7009, 7558, 8130, 8726, 9346, 9991,
	10661, 11358, 12082, 12834, 13614, 14424, 15265, 16137, 17042, 17981, 18955, 19965,
	21013, 22101, 23230, 24402, 25618, 26881, 28193, 29557, 30975, 32450, 33986, 35586,
	37253, 38992, 40808, 42707, 44694, 46776, 48961, 51258, 53667, 56230, 58932, 61799,
	64851, 68113, 71617, 75401, 79517, 84035, 89053, 94717,
};
static const __u8 highspeed_b_percent[HIGHSPEED_ROWS] = {
	50, 44, 41, 38, 37, 35, 34, 33, 32, 31, 30, 29, 28, 28, 27, 27, 26, 26, 25, 25, 24,
	24, 23, 23, 22, 22, 22, 21, 21, 21, 20, 20, 20, 19, 19, 19, 19, 18, 18, 18, 17, 17,
	17, 17, 16, 16, 16, 16, 15, 15, 15, 15, 14, 14, 14, 14, 13, 13, 13, 13, 13, 12, 12,
	12, 12, 11, 11, 11, 10, 10, 10, 10, 9,
};

/* b(w) in hundredths: the first row whose threshold is at least w, the last above. */
static __always_inline __u32 highspeed_b_percent_at(__u32 w)
{
	int i;

	for (i = 0; i < HIGHSPEED_ROWS; i++) {
		if (highspeed_window[i] >= w)
			return highspeed_b_percent[i];
	}
	return highspeed_b_percent[HIGHSPEED_ROWS - 1];
}

static __always_inline void rttv_init(struct rttv_state *s, __u32 cwnd)
{
	*s = (struct rttv_state){ .init_cwnd = cwnd,
				  .time_ratio_q16 = RTTV_NEUTRAL_TIME_RATIO_Q16 };
}

/* Every ACK's sample (pkts_acked): remembered, used at the next avoidance increase. */
static __always_inline void rttv_on_sample(struct rttv_state *s, __s32 rtt_us)
{
	if (rtt_us > 0)
		s->last_us = rtt_us;
}

/* Algorithm 4.1 lines 8-15. */
static __always_inline void rttv_observe(struct rttv_state *s, __u32 rtt_us)
{
	if (!rtt_us)
		return;
	s->cur_us = rtt_us;
	s->base_us = s->base_us ? wavecc_min32(s->base_us, rtt_us) : rtt_us;
	s->max_us = wavecc_max32(s->max_us, rtt_us);
}

/* (RTTmax + RTTbase) / RTTcur in Q16, 2 before any sample. */
static __always_inline __u64 rttv_time_ratio_q16(const struct rttv_state *s)
{
	__u64 r;

	if (!s->cur_us)
		return RTTV_NEUTRAL_TIME_RATIO_Q16;
	r = wavecc_ratio_q16((__u64)s->max_us + s->base_us, s->cur_us);
	return wavecc_min64(r, RTTV_MAX_TIME_RATIO_Q16);
}

/* F = sqrt(scale x TimeRatio) in Q16: sqrt of the Q32 product. scale <= 2^20 and
 * TimeRatio <= 2^24 in Q16 keep the Q32 product below 2^60. */
static __always_inline __u64 rttv_f_q16(const struct rttv_config *c, __u64 time_ratio_q16,
					__u32 cwnd, __u32 mss)
{
	__u64 scale = c->growth == RTTV_GROWTH_WINDOW ? cwnd : mss;

	scale = wavecc_min64(scale, WAVECC_MAX_WINDOW);
	return wavecc_isqrt((scale * time_ratio_q16) << WAVECC_Q16_SHIFT);
}

/* cong_avoid on a cwnd-limited ACK of `acked` segments outside recovery. */
static __always_inline void rttv_cong_avoid(struct rttv_state *s, const struct rttv_config *c,
					    struct wavecc_window *w, __u32 acked, __u32 mss)
{
	__u64 f;

	if (wavecc_in_slow_start(w))
		acked = wavecc_slow_start(w, acked);
	if (!acked || wavecc_in_slow_start(w))
		return;
	rttv_observe(s, s->last_us);
	s->time_ratio_q16 = rttv_time_ratio_q16(s);
	f = rttv_f_q16(c, s->time_ratio_q16, w->cwnd, mss);
	s->f_q16 = (__u32)wavecc_min64(f, 0xffffffffULL);
	wavecc_grow_per_rtt(w, &s->frac_q16, f, acked);
}

/* The reduced window on a loss (duplicate ACKs or timeout), at least 2 segments. */
static __always_inline __u32 rttv_ssthresh(const struct rttv_config *c, __u32 cwnd)
{
	__u64 kept;

	if (c->decrease == RTTV_DECREASE_HIGHSPEED)
		kept = (__u64)cwnd * (100 - highspeed_b_percent_at(cwnd)) / 100;
	else
		kept = wavecc_scale_pm(cwnd, c->beta_pm);
	return wavecc_max32((__u32)kept, WAVECC_MIN_SSTHRESH);
}

/* The window a timeout leaves, given the kernel's (in flight + 1 segment). */
static __always_inline __u32 rttv_loss_window(const struct rttv_state *s,
					      const struct rttv_config *c, __u32 kernel_cwnd)
{
	return c->rto_initial ? s->init_cwnd : kernel_cwnd;
}

#endif /* WAVECC_RTT_VARIATION_H */
