// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wavecc_dtcp: D-TCP (the D-TCP paper) as a BPF tcp_congestion_ops; the simulator's `dtcp`
 * (crates/wavecc-core/src/cc/dtcp.rs) with its default parameters. The logic is
 * dtcp.h; these are the hooks:
 * - init: twice the initial window, N = 1;
 * - pkts_acked [on_ack]: epochs on tcp_sock.delivered, tcp_mstamp and srtt, with the
 *   SINR hint of the `dtcp_sinr` map (one entry, key 0: the host's radio; a
 *   user-space agent fills it, `valid = 0` or never written: no hint, s = 0);
 * - cong_avoid: cwnd-limited ACKs outside recovery;
 * - ssthresh: cwnd (1 - y);
 * - cwnd_event(CA_EVENT_LOSS) [cwnd_event]: a timeout resets N and the estimator;
 * - set_state(TCP_CA_Loss) [loss_window]: after the kernel's timeout window (in
 *   flight + 1), twice the initial window;
 * - undo_cwnd: the kernel's Reno undo.
 */
#include "wavecc_ca.h"
#include "dtcp.h"

WAVECC_FITS_CA_PRIV(struct dtcp_state);

/* GPL-compatible, as kfunc calls from struct_ops require; the project is MIT. */
char _license[] SEC("license") = "Dual MIT/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dtcp_sinr_hint);
} dtcp_sinr SEC(".maps");

void WAVECC_OP(ca_init, struct sock *sk)
{
	struct wavecc_window w = wavecc_load_window(sk);

	dtcp_init(wavecc_priv(sk), &w);
	wavecc_store_window(sk, &w);
}

void WAVECC_OP(ca_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = wavecc_tp(sk);
	struct dtcp_sinr_hint hint = {};
	__u32 key = 0;
	const struct dtcp_sinr_hint *entry = bpf_map_lookup_elem(&dtcp_sinr, &key);

	if (entry)
		hint = *entry;
	dtcp_on_ack(wavecc_priv(sk), wavecc_now_us(sk), tp->delivered, tp->srtt_us >> 3,
		    tp->mss_cache, tp->snd_cwnd, hint);
}

void WAVECC_OP(ca_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct wavecc_window w;

	if (!wavecc_cwnd_limited(sk))
		return;
	w = wavecc_load_window(sk);
	dtcp_cong_avoid(wavecc_priv(sk), &w, acked);
	wavecc_store_window(sk, &w);
}

__u32 WAVECC_OP(ca_ssthresh, struct sock *sk)
{
	return dtcp_ssthresh(wavecc_priv(sk), wavecc_tp(sk)->snd_cwnd);
}

void WAVECC_OP(ca_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	if (event == CA_EVENT_LOSS)
		dtcp_reset(wavecc_priv(sk));
}

void WAVECC_OP(ca_set_state, struct sock *sk, __u8 new_state)
{
	struct wavecc_window w;

	if (new_state != TCP_CA_Loss)
		return;
	w = wavecc_load_window(sk);
	w.cwnd = dtcp_loss_window(wavecc_priv(sk));
	wavecc_store_window(sk, &w);
}

__u32 WAVECC_OP(ca_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops wavecc_dtcp = {
	.init = (void *)ca_init,
	.pkts_acked = (void *)ca_pkts_acked,
	.cong_avoid = (void *)ca_cong_avoid,
	.ssthresh = (void *)ca_ssthresh,
	.cwnd_event = (void *)ca_cwnd_event,
	.set_state = (void *)ca_set_state,
	.undo_cwnd = (void *)ca_undo_cwnd,
	.name = "wavecc_dtcp",
};
