// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wavecc_fbtcp: FB-TCP (the FB-TCP paper) as a BPF tcp_congestion_ops; the simulator's
 * `fbtcp` (crates/wavecc-core/src/cc/fbtcp.rs) with its default parameters and the
 * sender-side rate. The logic is fbtcp.h; these are the hooks:
 * - init: state cleared, the first cycle starts at snd_nxt;
 * - pkts_acked [on_ack]: the RTT sample, and the rate meter on tcp_sock.delivered
 *   (segments delivered, SACKed included) and tcp_mstamp;
 * - cong_avoid: cycle ends on cwnd-limited ACKs outside recovery;
 * - ssthresh: a loss takes one segment off, max(min(ssthresh, cwnd - 1), 2);
 * - set_state: rules only in Open; entering Open starts a fresh cycle;
 * - undo_cwnd: the kernel's Reno undo.
 */
#include "wavecc_ca.h"
#include "fbtcp.h"

WAVECC_FITS_CA_PRIV(struct fbtcp_state);

/* GPL-compatible, as kfunc calls from struct_ops require; the project is MIT. */
char _license[] SEC("license") = "Dual MIT/GPL";

void WAVECC_OP(ca_init, struct sock *sk)
{
	fbtcp_init(wavecc_priv(sk), wavecc_ca_state(sk) == TCP_CA_Open, wavecc_tp(sk)->snd_nxt);
}

void WAVECC_OP(ca_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	fbtcp_on_ack(wavecc_priv(sk), sample->rtt_us, wavecc_now_us(sk), wavecc_tp(sk)->delivered);
}

void WAVECC_OP(ca_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct wavecc_window w;

	if (!wavecc_cwnd_limited(sk))
		return;
	w = wavecc_load_window(sk);
	fbtcp_cong_avoid(wavecc_priv(sk), &w, ack, wavecc_tp(sk)->snd_nxt, acked);
	wavecc_store_window(sk, &w);
}

__u32 WAVECC_OP(ca_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = wavecc_tp(sk);

	return fbtcp_lowered_ssthresh(tp->snd_ssthresh, tp->snd_cwnd);
}

void WAVECC_OP(ca_set_state, struct sock *sk, __u8 new_state)
{
	fbtcp_set_state(wavecc_priv(sk), new_state == TCP_CA_Open, wavecc_tp(sk)->snd_nxt);
}

__u32 WAVECC_OP(ca_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops wavecc_fbtcp = {
	.init = (void *)ca_init,
	.pkts_acked = (void *)ca_pkts_acked,
	.cong_avoid = (void *)ca_cong_avoid,
	.ssthresh = (void *)ca_ssthresh,
	.set_state = (void *)ca_set_state,
	.undo_cwnd = (void *)ca_undo_cwnd,
	.name = "wavecc_fbtcp",
};
