/* SPDX-License-Identifier: MIT */
/*
 * The few kernel types the wavecc programs touch, for compiling them natively in the
 * user-space harness (tests/bpf_harness/harness.c). Only the fields the programs read
 * or write are here, with the kernel's widths; the enums have the kernel's values.
 * This replaces the vmlinux.h that `wavecc kernel build` dumps from the running
 * kernel's BTF.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#include <linux/types.h>

struct sock {
	int sk_unused;
};

struct inet_connection_sock {
	struct sock icsk_inet;
	__u8 icsk_ca_state;
	__u64 icsk_ca_priv[13];
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	__u32 snd_cwnd;
	__u32 snd_ssthresh;
	__u32 snd_cwnd_clamp;
	__u8 is_cwnd_limited;
	__u32 max_packets_out;
	__u32 mss_cache;
	__u32 snd_nxt;
	__u32 delivered;
	__u32 srtt_us; /* smoothed RTT << 3, microseconds */
	__u64 tcp_mstamp;
	__u32 prior_cwnd;
};

struct ack_sample {
	__u32 pkts_acked;
	__s32 rtt_us;
	__u32 in_flight;
};

enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};

enum tcp_ca_event {
	CA_EVENT_TX_START = 0,
	CA_EVENT_CWND_RESTART = 1,
	CA_EVENT_COMPLETE_CWR = 2,
	CA_EVENT_LOSS = 3,
	CA_EVENT_ECN_NO_CE = 4,
	CA_EVENT_ECN_IS_CE = 5,
};

enum bpf_map_type {
	BPF_MAP_TYPE_ARRAY = 2,
};

/* The hooks as untyped pointers: the programs fill them with casts, the harness
 * calls them through the kernel's signatures. */
struct tcp_congestion_ops {
	void *init;
	void *pkts_acked;
	void *cong_avoid;
	void *ssthresh;
	void *set_state;
	void *cwnd_event;
	void *undo_cwnd;
	char name[16];
};

#endif /* __VMLINUX_H__ */
