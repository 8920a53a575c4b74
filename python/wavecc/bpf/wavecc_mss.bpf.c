// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wavecc_mss: MSS-CCA (the thesis, chapter 5, Algorithm 5.1) as a BPF
 * tcp_congestion_ops; the simulator's `mss` (crates/wavecc-core/src/cc/mss.rs) with its
 * default parameters. The logic is rtt_variation.h, the hooks rtt_variation_ops.h.
 */
#define RTTV_OPS_NAME wavecc_mss
#define RTTV_OPS_NAME_STR "wavecc_mss"

#include "wavecc_ca.h"
#include "rtt_variation.h"

static const struct rttv_config rttv_config = {
	.growth = RTTV_GROWTH_MSS,
	.decrease = RTTV_DECREASE_BETA,
	.beta_pm = 500,
	.rto_initial = 1,
};

#include "rtt_variation_ops.h"
