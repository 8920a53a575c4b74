// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wavecc_mrvhs: MRVHS-CCA (the thesis, chapter 6, Algorithm 6.1) as a BPF
 * tcp_congestion_ops; the simulator's `mrvhs` (crates/wavecc-core/src/cc/mrvhs.rs) with its
 * default parameters. The logic is rtt_variation.h, the hooks rtt_variation_ops.h.
 */
#define RTTV_OPS_NAME wavecc_mrvhs
#define RTTV_OPS_NAME_STR "wavecc_mrvhs"

#include "wavecc_ca.h"
#include "rtt_variation.h"

static const struct rttv_config rttv_config = {
	.growth = RTTV_GROWTH_MSS,
	.decrease = RTTV_DECREASE_HIGHSPEED,
	.beta_pm = 500,
	.rto_initial = 0,
};

#include "rtt_variation_ops.h"
