/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kernel side shared by the five programs: the struct_ops boilerplate, the
 * kfuncs, and thin wrappers that move the window between the tcp_sock and a
 * `struct wavecc_window`. The algorithms' logic lives in pure headers (fbtcp.h,
 * rtt_variation.h, dtcp.h) that never touch a kernel structure.
 *
 * A BPF congestion control may write only a few tcp_sock fields (snd_cwnd,
 * snd_cwnd_cnt, snd_cwnd_stamp, snd_ssthresh, ecn_flags, app_limited, the pacing
 * fields of struct sock and icsk_ca_priv); everything else is read-only. Per-socket
 * state lives in icsk_ca_priv, 104 bytes (13 u64), checked at compile time.
 */
#ifndef WAVECC_CA_H
#define WAVECC_CA_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "wavecc_fixed.h"

/* Size of inet_connection_sock.icsk_ca_priv (include/net/inet_connection_sock.h). */
#define WAVECC_CA_PRIV_SIZE (13 * sizeof(__u64))
#define WAVECC_FITS_CA_PRIV(type)                                                       \
	_Static_assert(sizeof(type) <= WAVECC_CA_PRIV_SIZE,                             \
		       #type " must fit in icsk_ca_priv (104 bytes)")

/* One struct_ops callback: SEC("struct_ops/NAME") with BPF_PROG's typed arguments. */
#define WAVECC_OP(name, args...) SEC("struct_ops/" #name) BPF_PROG(name, ##args)

/* Kernel functions a tcp_congestion_ops program may call (kernel >= 5.13). */
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

static __always_inline struct tcp_sock *wavecc_tp(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline void *wavecc_priv(const struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline struct wavecc_window wavecc_load_window(const struct sock *sk)
{
	const struct tcp_sock *tp = wavecc_tp(sk);
	struct wavecc_window w = {
		.cwnd = wavecc_min32(tp->snd_cwnd, WAVECC_MAX_WINDOW),
		.ssthresh = tp->snd_ssthresh,
	};
	return w;
}

/* Writes the window back, within [1, snd_cwnd_clamp] as the kernel's own algorithms
 * keep it. */
static __always_inline void wavecc_store_window(struct sock *sk, const struct wavecc_window *w)
{
	struct tcp_sock *tp = wavecc_tp(sk);

	tp->snd_cwnd = wavecc_max32(wavecc_min32(w->cwnd, tp->snd_cwnd_clamp), 1);
	tp->snd_ssthresh = w->ssthresh;
}

/* Linux tcp_is_cwnd_limited(): the simulator calls cong_avoid only on such ACKs, and
 * the kernel leaves the check to the algorithm. */
static __always_inline int wavecc_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = wavecc_tp(sk);

	if (tp->is_cwnd_limited)
		return 1;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return 0;
}

static __always_inline __u8 wavecc_ca_state(const struct sock *sk)
{
	return ((const struct inet_connection_sock *)sk)->icsk_ca_state;
}

/* Time of the ACK being processed, microseconds (tcp_mstamp, refreshed per ACK). */
static __always_inline __u64 wavecc_now_us(const struct sock *sk)
{
	return wavecc_tp(sk)->tcp_mstamp;
}

#endif /* WAVECC_CA_H */
