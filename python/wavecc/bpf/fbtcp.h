/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * FB-TCP (the FB-TCP paper: Poorzare and Calveras Auge, IEEE Access 2021): the logic of
 * crates/wavecc-core/src/cc/fbtcp.rs with its default parameters, in integer
 * arithmetic, as pure functions on `struct fbtcp_state`.
 *
 * Once per RTT cycle (the cycle ends when the cumulative ACK passes the snd_nxt
 * recorded at its start), in the Open state only: fewer than 3 RTT samples -> one
 * NewReno step; cwnd < 900 -> cwnd doubles; otherwise maxCwnd = max(maxCwnd,
 * rate x baseRtt / MSS x rho) and the first matching row of the Convergence table
 * (cwnd <= maxCwnd) or the Divergence table fires; every such cycle ends with
 * ssthresh = max(ssthresh, 0.75 cwnd). A loss: ssthresh = max(min(ssthresh, cwnd - 1), 2).
 * Outside Open, NewReno's per-ACK rules.
 *
 * Precision:
 * - CSI = baseRtt / minRtt and CAD = targetCwnd / cwnd are never rounded: every band
 *   edge is a per-mille constant and a test such as CSI >= 0.98 is evaluated as
 *   baseRtt x 1000 >= 980 x minRtt, exactly. targetCwnd = floor(cwnd x baseRtt /
 *   minRtt) is an exact integer division.
 * - RTTs are the kernel's microsecond samples.
 * - maxCwnd is Q16 segments (1/65536); the rate behind it is the segments delivered
 *   (tcp_sock.delivered, SACKed included) over the last completed window of at least
 *   100 ms (tcp_mstamp, microseconds): maxCwnd = delivered x baseRtt / length x rho,
 *   the simulator's sender-side rate x baseRtt / 8 / MSS x rho with the MSS cancelled.
 * - The window is whole segments (snd_cwnd): a multiplicative row floors
 *   (cwnd x 0.75 -> floor), where the simulator keeps the fraction.
 */
#ifndef WAVECC_FBTCP_H
#define WAVECC_FBTCP_H

#include "wavecc_fixed.h"

/* The simulator's defaults (docs/algorithms.md, FB-TCP parameters). */
#define FBTCP_HOLD_CYCLES 30
#define FBTCP_B_VARIANT_CYCLE 3
#define FBTCP_STARTUP_CWND 900
#define FBTCP_STARTUP_GAIN 2
#define FBTCP_MIN_RTT_SAMPLES 3
#define FBTCP_RHO_PM 1050
#define FBTCP_RATE_WINDOW_US 100000
#define FBTCP_SSTHRESH_KEEP_PM 750
#define FBTCP_CAD_PM 950
/* CSI band edges (Tables 1, 3, 5). */
#define FBTCP_CSI_C1_PM 980
#define FBTCP_CSI_C6_PM 950
#define FBTCP_CSI_C8_PM 700
#define FBTCP_CSI_C10_PM 300
#define FBTCP_CSI_C11_PM 50
#define FBTCP_CSI_D1_PM 990
#define FBTCP_CSI_D2_PM 700
#define FBTCP_CSI_D4_PM 300
#define FBTCP_CSI_D5_PM 50

/* Trace codes of the rule that fired (the simulator's `rule`, x10 so that the ".5"
 * variants stay integers: C1 = 10, C10.5 = 105, D6.5 = 1065). */
#define FBTCP_RULE_NEWRENO (-10)
#define FBTCP_RULE_STARTUP (-20)

/* How a row changes the window. */
enum fbtcp_step_kind {
	FBTCP_ADD,     /* + value segments (negative: take off) */
	FBTCP_MUL_PM,  /* x value / 1000 */
	FBTCP_DIV,     /* / value */
};

struct fbtcp_step {
	enum fbtcp_step_kind kind;
	__s32 value;
};

/* What a cycle's rule saw. */
struct fbtcp_input {
	__u32 base_us;   /* baseRtt */
	__u32 min_us;    /* the cycle's minRtt (>= baseRtt) */
	__u32 cwnd;
	__u64 target;    /* floor(cwnd x CSI) */
	__u64 max_cwnd_q16;
};

struct fbtcp_state {
	__u64 max_cwnd_q16;        /* maxCwnd, Q16 segments; 0 until a rate window closes */
	__u64 meter_start_us;      /* start of the open rate window (tcp_mstamp) */
	__u32 meter_start_delivered;
	__u32 rate_segments;       /* the last completed rate window: segments delivered */
	__u32 rate_us;             /*   over this many microseconds (0: none yet) */
	__u32 base_us;             /* baseRtt; 0 before any sample */
	__u32 cycle_min_us;        /* minRtt of the cycle; 0 before a sample */
	__u32 cycle_samples;
	__u32 cycle_end_seq;       /* snd_nxt when the cycle began */
	__u32 frac_q16;            /* NewReno growth below one segment */
	__u16 congestion;          /* consecutive decrease cycles */
	__u16 hold;                /* consecutive hold cycles */
	__s16 rule;                /* the last cycle's rule, x10 */
	__u8 enabled;              /* in the Open state */
	__u8 meter_started;
};

/* CSI = base / min compared with a per-mille edge, exactly. */
static __always_inline int fbtcp_csi_at_least(const struct fbtcp_input *x, __u64 edge_pm)
{
	return (__u64)x->base_us * WAVECC_PM >= edge_pm * x->min_us;
}

static __always_inline int fbtcp_cad_high(const struct fbtcp_input *x)
{
	return x->target * WAVECC_PM >= (__u64)FBTCP_CAD_PM * x->cwnd;
}

static __always_inline __u32 fbtcp_apply(struct fbtcp_step step, __u32 cwnd)
{
	__s64 w = cwnd;

	if (step.kind == FBTCP_ADD)
		w += step.value;
	else if (step.kind == FBTCP_MUL_PM)
		w = (__s64)wavecc_scale_pm(cwnd, step.value);
	else
		w = cwnd / (__u32)step.value;
	return w < 1 ? 1 : (__u32)w; /* the simulator's MIN_CWND */
}

/* An increase row: both counters reset. */
static __always_inline void fbtcp_increase(struct fbtcp_state *s, __u32 *cwnd, __s16 rule,
					   __u32 segments)
{
	*cwnd += segments;
	s->rule = rule;
	s->congestion = 0;
	s->hold = 0;
}

/* A hold row (C10, D3, D4 share the counter): the 31st cycle multiplies cwnd and
 * maxCwnd by 0.9 (alpha/beta, gamma/theta) and resets it. */
static __always_inline void fbtcp_hold(struct fbtcp_state *s, __u32 *cwnd, __s16 rule)
{
	s->congestion = 0;
	if (++s->hold <= FBTCP_HOLD_CYCLES) {
		s->rule = rule;
		return;
	}
	*cwnd = fbtcp_apply((struct fbtcp_step){ FBTCP_MUL_PM, 900 }, *cwnd);
	s->max_cwnd_q16 = wavecc_scale_pm(s->max_cwnd_q16, 900);
	s->hold = 0;
	s->rule = rule + 5;
}

/* A decrease row: step a while the counter is below 3, step b on the third. Returns
 * 1: decrease rows lower ssthresh. */
static __always_inline int fbtcp_decrease(struct fbtcp_state *s, __u32 *cwnd, __s16 rule,
					  struct fbtcp_step a, struct fbtcp_step b)
{
	s->hold = 0;
	if (++s->congestion < FBTCP_B_VARIANT_CYCLE) {
		*cwnd = fbtcp_apply(a, *cwnd);
		s->rule = rule;
	} else {
		*cwnd = fbtcp_apply(b, *cwnd);
		s->congestion = 0;
		s->rule = rule + 5;
	}
	return 1;
}

/* Tables 1-4, first matching row (C8, C11, C13 need CAD >= 0.95 with CSI < 0.95 and
 * cannot fire; kept as written, as in the simulator). */
static __always_inline int fbtcp_convergence(struct fbtcp_state *s, const struct fbtcp_input *x,
					     __u32 *cwnd)
{
	int cad_high = fbtcp_cad_high(x);
	__u64 diff = x->cwnd - x->target;

	if (fbtcp_csi_at_least(x, FBTCP_CSI_C1_PM)) {
		if (diff <= 10)
			fbtcp_increase(s, cwnd, 10, 120);
		else if (diff <= 15)
			fbtcp_increase(s, cwnd, 20, 100);
		else if (diff <= 20)
			fbtcp_increase(s, cwnd, 30, 70);
		else if (diff <= 30)
			fbtcp_increase(s, cwnd, 40, 60);
		else
			fbtcp_increase(s, cwnd, 50, 50);
		return 0;
	}
	if (fbtcp_csi_at_least(x, FBTCP_CSI_C6_PM)) {
		fbtcp_increase(s, cwnd, cad_high ? 60 : 70, cad_high ? 40 : 30);
		return 0;
	}
	if (fbtcp_csi_at_least(x, FBTCP_CSI_C8_PM)) {
		fbtcp_increase(s, cwnd, cad_high ? 80 : 90, cad_high ? 25 : 20);
		return 0;
	}
	if (fbtcp_csi_at_least(x, FBTCP_CSI_C10_PM)) {
		fbtcp_hold(s, cwnd, 100);
		return 0;
	}
	if (fbtcp_csi_at_least(x, FBTCP_CSI_C11_PM)) {
		if (cad_high)
			return fbtcp_decrease(s, cwnd, 110, (struct fbtcp_step){ FBTCP_ADD, -10 },
					      (struct fbtcp_step){ FBTCP_ADD, -20 });
		return fbtcp_decrease(s, cwnd, 120, (struct fbtcp_step){ FBTCP_ADD, -25 },
				      (struct fbtcp_step){ FBTCP_ADD, -50 });
	}
	if (cad_high)
		return fbtcp_decrease(s, cwnd, 130, (struct fbtcp_step){ FBTCP_MUL_PM, 750 },
				      (struct fbtcp_step){ FBTCP_DIV, 2 });
	return fbtcp_decrease(s, cwnd, 140, (struct fbtcp_step){ FBTCP_MUL_PM, 400 },
			      (struct fbtcp_step){ FBTCP_DIV, 3 });
}

/* Tables 5-6. */
static __always_inline int fbtcp_divergence(struct fbtcp_state *s, const struct fbtcp_input *x,
					    __u32 *cwnd)
{
	if (fbtcp_csi_at_least(x, FBTCP_CSI_D1_PM)) {
		fbtcp_increase(s, cwnd, 1010, 1);
		return 0;
	}
	if (fbtcp_csi_at_least(x, FBTCP_CSI_D2_PM)) {
		if (fbtcp_cad_high(x))
			fbtcp_increase(s, cwnd, 1020, 1);
		else
			fbtcp_hold(s, cwnd, 1030);
		return 0;
	}
	if (fbtcp_csi_at_least(x, FBTCP_CSI_D4_PM)) {
		fbtcp_hold(s, cwnd, 1040);
		return 0;
	}
	if (fbtcp_csi_at_least(x, FBTCP_CSI_D5_PM))
		return fbtcp_decrease(s, cwnd, 1050, (struct fbtcp_step){ FBTCP_MUL_PM, 750 },
				      (struct fbtcp_step){ FBTCP_DIV, 2 });
	return fbtcp_decrease(s, cwnd, 1060, (struct fbtcp_step){ FBTCP_DIV, 2 },
			      (struct fbtcp_step){ FBTCP_DIV, 4 });
}

/* Loss (and decrease rows): max(min(ssthresh, cwnd - 1), 2). */
static __always_inline __u32 fbtcp_lowered_ssthresh(__u32 ssthresh, __u32 cwnd)
{
	return wavecc_max32(wavecc_min32(ssthresh, cwnd - 1), WAVECC_MIN_SSTHRESH);
}

static __always_inline void fbtcp_restart_cycle(struct fbtcp_state *s, __u32 snd_nxt)
{
	s->cycle_end_seq = snd_nxt;
	s->cycle_min_us = 0;
	s->cycle_samples = 0;
}

static __always_inline void fbtcp_init(struct fbtcp_state *s, int open, __u32 snd_nxt)
{
	*s = (struct fbtcp_state){ .enabled = open };
	fbtcp_restart_cycle(s, snd_nxt);
}

/* The rate meter: a window closes at the first ACK at least 100 ms after it opened. */
static __always_inline void fbtcp_meter(struct fbtcp_state *s, __u64 now_us, __u32 delivered)
{
	if (!s->meter_started) {
		s->meter_started = 1;
	} else if (now_us - s->meter_start_us >= FBTCP_RATE_WINDOW_US) {
		s->rate_segments = delivered - s->meter_start_delivered;
		s->rate_us = (__u32)wavecc_min64(now_us - s->meter_start_us, 0xffffffffULL);
	} else {
		return;
	}
	s->meter_start_us = now_us;
	s->meter_start_delivered = delivered;
}

/* Every ACK (pkts_acked): the RTT sample and the rate meter. */
static __always_inline void fbtcp_on_ack(struct fbtcp_state *s, __s32 rtt_us, __u64 now_us,
					 __u32 delivered)
{
	if (rtt_us > 0) {
		__u32 r = rtt_us;

		s->base_us = s->base_us ? wavecc_min32(s->base_us, r) : r;
		s->cycle_min_us = s->cycle_min_us ? wavecc_min32(s->cycle_min_us, r) : r;
		s->cycle_samples++;
	}
	fbtcp_meter(s, now_us, delivered);
}

/* maxCwnd candidate, Q16: delivered x baseRtt / window length x rho. */
static __always_inline __u64 fbtcp_max_cwnd_candidate(const struct fbtcp_state *s)
{
	__u64 q = wavecc_ratio_q16((__u64)s->rate_segments * s->base_us, s->rate_us);

	return wavecc_scale_pm(q, FBTCP_RHO_PM);
}

/* A cycle with enough samples: start-up or a fuzzy rule, then the ssthresh keep. */
static __always_inline void fbtcp_cycle(struct fbtcp_state *s, struct wavecc_window *w,
					__u32 min_us)
{
	struct fbtcp_input x = { .base_us = s->base_us, .min_us = min_us, .cwnd = w->cwnd };
	__u32 cwnd = w->cwnd;
	int lower = 0;

	if (cwnd < FBTCP_STARTUP_CWND) {
		cwnd *= FBTCP_STARTUP_GAIN;
		s->rule = FBTCP_RULE_STARTUP;
	} else {
		x.target = (__u64)cwnd * s->base_us / min_us;
		s->max_cwnd_q16 = wavecc_max64(s->max_cwnd_q16, fbtcp_max_cwnd_candidate(s));
		x.max_cwnd_q16 = s->max_cwnd_q16;
		if (((__u64)cwnd << WAVECC_Q16_SHIFT) <= x.max_cwnd_q16)
			lower = fbtcp_convergence(s, &x, &cwnd);
		else
			lower = fbtcp_divergence(s, &x, &cwnd);
	}
	w->cwnd = cwnd;
	if (lower)
		w->ssthresh = fbtcp_lowered_ssthresh(w->ssthresh, cwnd);
	w->ssthresh = wavecc_max32(w->ssthresh,
				   (__u32)wavecc_scale_pm(cwnd, FBTCP_SSTHRESH_KEEP_PM));
}

/* cong_avoid on a cwnd-limited ACK outside recovery; `ack` is the new snd_una. */
static __always_inline void fbtcp_cong_avoid(struct fbtcp_state *s, struct wavecc_window *w,
					     __u32 ack, __u32 snd_nxt, __u32 acked)
{
	__u32 min_us = s->cycle_min_us, samples = s->cycle_samples;

	if (!s->enabled) {
		wavecc_reno_step(w, &s->frac_q16, acked);
		return;
	}
	if (!wavecc_seq_after(ack, s->cycle_end_seq))
		return;
	fbtcp_restart_cycle(s, snd_nxt);
	if (samples < FBTCP_MIN_RTT_SAMPLES || !min_us || !s->base_us) {
		s->rule = FBTCP_RULE_NEWRENO;
		wavecc_reno_step(w, &s->frac_q16, acked);
		return;
	}
	fbtcp_cycle(s, w, min_us);
}

/* set_state: rules run in Open only; entering it starts a fresh cycle. */
static __always_inline void fbtcp_set_state(struct fbtcp_state *s, int open, __u32 snd_nxt)
{
	s->enabled = open;
	if (open)
		fbtcp_restart_cycle(s, snd_nxt);
}

#endif /* WAVECC_FBTCP_H */
