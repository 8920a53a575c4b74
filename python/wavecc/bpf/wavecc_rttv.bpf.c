// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wavecc_rttv: RTTV-CCA (the thesis, chapter 4, Algorithm 4.1) as a BPF
 * tcp_congestion_ops; the simulator's `rttv` (crates/wavecc-core/src/cc/rttv.rs) with its
 * default parameters. The logic is rtt_variation.h, the hooks rtt_variation_ops.h.
 */
#define RTTV_OPS_NAME wavecc_rttv
#define RTTV_OPS_NAME_STR "wavecc_rttv"

#include "wavecc_ca.h"
#include "rtt_variation.h"

static const struct rttv_config rttv_config = {
	.growth = RTTV_GROWTH_WINDOW,
	.decrease = RTTV_DECREASE_BETA,
	.beta_pm = 500,
	.rto_initial = 0,
};

#include "rtt_variation_ops.h"
