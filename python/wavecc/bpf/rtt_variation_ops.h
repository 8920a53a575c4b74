/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The struct_ops wrappers of RTTV-CCA, MSS-CCA and MRVHS-CCA: thin glue between the
 * kernel's hooks and the pure logic of rtt_variation.h. A program defines
 * `RTTV_OPS_NAME` (its struct_ops map and TCP_CONGESTION name) and a
 * `static const struct rttv_config rttv_config`, then includes this file.
 *
 * Hook by hook (the simulator's CongestionControl methods in brackets):
 * - init [init]: state cleared, the initial window remembered;
 * - pkts_acked [on_ack]: the ACK's RTT sample (microseconds, -1 when none);
 * - cong_avoid [cong_avoid]: on cwnd-limited ACKs outside recovery;
 * - ssthresh [ssthresh]: on a loss (dup ACKs/SACK or timeout); the kernel's PRR then
 *   brings cwnd to it, as the simulator's socket does;
 * - set_state(TCP_CA_Loss) [loss_window]: after a timeout the kernel has set cwnd to
 *   the segments in flight + 1; MSS-CCA raises it to the initial window;
 * - undo_cwnd: the kernel's Reno undo (max(cwnd, prior_cwnd)) after a spurious loss.
 */
#ifndef RTTV_OPS_NAME
#error "define RTTV_OPS_NAME before including rtt_variation_ops.h"
#endif

#include "wavecc_ca.h"
#include "rtt_variation.h"

WAVECC_FITS_CA_PRIV(struct rttv_state);

/* GPL-compatible, as kfunc calls from struct_ops require; the project is MIT. */
char _license[] SEC("license") = "Dual MIT/GPL";

void WAVECC_OP(ca_init, struct sock *sk)
{
	rttv_init(wavecc_priv(sk), wavecc_tp(sk)->snd_cwnd);
}

void WAVECC_OP(ca_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	rttv_on_sample(wavecc_priv(sk), sample->rtt_us);
}

void WAVECC_OP(ca_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct wavecc_window w;

	if (!wavecc_cwnd_limited(sk))
		return;
	w = wavecc_load_window(sk);
	rttv_cong_avoid(wavecc_priv(sk), &rttv_config, &w, acked, wavecc_tp(sk)->mss_cache);
	wavecc_store_window(sk, &w);
}

__u32 WAVECC_OP(ca_ssthresh, struct sock *sk)
{
	return rttv_ssthresh(&rttv_config, wavecc_tp(sk)->snd_cwnd);
}

void WAVECC_OP(ca_set_state, struct sock *sk, __u8 new_state)
{
	struct wavecc_window w;

	if (new_state != TCP_CA_Loss)
		return;
	w = wavecc_load_window(sk);
	w.cwnd = rttv_loss_window(wavecc_priv(sk), &rttv_config, w.cwnd);
	wavecc_store_window(sk, &w);
}

__u32 WAVECC_OP(ca_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops RTTV_OPS_NAME = {
	.init = (void *)ca_init,
	.pkts_acked = (void *)ca_pkts_acked,
	.cong_avoid = (void *)ca_cong_avoid,
	.ssthresh = (void *)ca_ssthresh,
	.set_state = (void *)ca_set_state,
	.undo_cwnd = (void *)ca_undo_cwnd,
	.name = RTTV_OPS_NAME_STR,
};
