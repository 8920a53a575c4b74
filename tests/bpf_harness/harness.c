// SPDX-License-Identifier: MIT
/*
 * Replays recorded hook calls on one wavecc BPF program compiled natively, to compare
 * it step by step with the simulator's fixed-point twin
 * (crates/wavecc-core/tests/kernel_twins.rs builds and drives it).
 *
 * Build, from the repository root (WAVECC_OPS is the program's struct_ops name):
 *   cc -O2 -I tests/bpf_harness/shim -I bpf -DWAVECC_PROGRAM='"wavecc_mss.bpf.c"' \
 *      -DWAVECC_OPS=wavecc_mss tests/bpf_harness/harness.c -o harness_mss
 *
 * Input, one hook call per line (the tcp_sock before the hook, the hook's arguments):
 *   hook snd_cwnd snd_ssthresh snd_cwnd_clamp is_cwnd_limited max_packets_out
 *   mss_cache snd_nxt delivered srtt_us tcp_mstamp ca_state prior_cwnd
 *   sinr_mdb sinr_valid arg0 arg1
 * with hook one of init, pkts_acked (arg0 = rtt_us), cong_avoid (ack, acked),
 * ssthresh, set_state (state), cwnd_event (event), undo_cwnd. Output, per line:
 *   snd_cwnd snd_ssthresh result
 * after the hook (result: what ssthresh and undo_cwnd return, else 0). The program's
 * private state (icsk_ca_priv) lives on from line to line, as in a socket.
 */
#include <stdio.h>
#include <string.h>

#include WAVECC_PROGRAM

/* The map value the program reads: D-TCP's struct dtcp_sinr_hint layout. */
static struct {
	__s32 sinr_mdb;
	__u32 valid;
} map_value;

void *wavecc_harness_map_lookup(void *map, const void *key)
{
	(void)map;
	(void)key;
	return &map_value;
}

/* The kfunc: Linux tcp_reno_undo_cwnd. */
__u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

#define FIELD(x) printf(" %llu", (unsigned long long)(long long)(x))

/* The private state of the program's logic header, found by its include guard. */
static void print_state(const void *priv)
{
#if defined(WAVECC_FBTCP_H)
	const struct fbtcp_state *s = priv;

	FIELD(s->max_cwnd_q16); FIELD(s->meter_start_us); FIELD(s->meter_start_delivered);
	FIELD(s->rate_segments); FIELD(s->rate_us); FIELD(s->base_us); FIELD(s->cycle_min_us);
	FIELD(s->cycle_samples); FIELD(s->cycle_end_seq); FIELD(s->frac_q16);
	FIELD(s->congestion); FIELD(s->hold); FIELD(s->rule); FIELD(s->enabled);
	FIELD(s->meter_started);
#elif defined(WAVECC_RTT_VARIATION_H)
	const struct rttv_state *s = priv;

	FIELD(s->base_us); FIELD(s->cur_us); FIELD(s->max_us); FIELD(s->last_us);
	FIELD(s->frac_q16); FIELD(s->init_cwnd); FIELD(s->f_q16); FIELD(s->time_ratio_q16);
#elif defined(WAVECC_DTCP_H)
	const struct dtcp_state *s = priv;

	FIELD(s->epoch_start_us); FIELD(s->sample_bps); FIELD(s->filtered_bps);
	FIELD(s->estimate_bps); FIELD(s->n_q16); FIELD(s->epoch_delivered);
	FIELD(s->sinr_avg_mdb); FIELD(s->frac_q16); FIELD(s->init_cwnd);
	FIELD(s->epoch_started); FIELD(s->seeded); FIELD(s->sinr_seen);
#else
#error "unknown program: add its state to print_state"
#endif
	printf("\n");
}

typedef void (*sock_fn)(struct sock *);
typedef void (*acked_fn)(struct sock *, const struct ack_sample *);
typedef void (*avoid_fn)(struct sock *, __u32, __u32);
typedef __u32 (*window_fn)(struct sock *);
typedef void (*state_fn)(struct sock *, __u8);
typedef void (*event_fn)(struct sock *, enum tcp_ca_event);

/* Calls the hook `name` with the arguments a0, a1; returns its result or 0. An
 * absent hook (D-TCP alone has cwnd_event) does nothing, as in the kernel. */
static int call(const char *name, struct sock *sk, long long a0, long long a1, __u32 *ret)
{
	const struct tcp_congestion_ops *ops = &WAVECC_OPS;

	*ret = 0;
	if (!strcmp(name, "init")) {
		((sock_fn)ops->init)(sk);
	} else if (!strcmp(name, "pkts_acked")) {
		struct ack_sample sample = { .rtt_us = (__s32)a0 };

		((acked_fn)ops->pkts_acked)(sk, &sample);
	} else if (!strcmp(name, "cong_avoid")) {
		((avoid_fn)ops->cong_avoid)(sk, (__u32)a0, (__u32)a1);
	} else if (!strcmp(name, "ssthresh")) {
		*ret = ((window_fn)ops->ssthresh)(sk);
	} else if (!strcmp(name, "set_state")) {
		if (ops->set_state)
			((state_fn)ops->set_state)(sk, (__u8)a0);
	} else if (!strcmp(name, "cwnd_event")) {
		if (ops->cwnd_event)
			((event_fn)ops->cwnd_event)(sk, (enum tcp_ca_event)a0);
	} else if (!strcmp(name, "undo_cwnd")) {
		*ret = ((window_fn)ops->undo_cwnd)(sk);
	} else {
		return -1;
	}
	return 0;
}

int main(void)
{
	static struct tcp_sock tp;
	struct sock *sk = (struct sock *)&tp;
	char hook[32];
	unsigned int limited, ca_state, sinr_valid;
	int sinr_mdb;
	unsigned long long mstamp;
	long long a0, a1;
	long line = 0;
	__u32 ret;

	while (scanf("%31s %u %u %u %u %u %u %u %u %u %llu %u %u %d %u %lld %lld", hook,
		     &tp.snd_cwnd, &tp.snd_ssthresh, &tp.snd_cwnd_clamp, &limited,
		     &tp.max_packets_out, &tp.mss_cache, &tp.snd_nxt, &tp.delivered, &tp.srtt_us,
		     &mstamp, &ca_state, &tp.prior_cwnd, &sinr_mdb, &sinr_valid, &a0, &a1) == 17) {
		line++;
		tp.is_cwnd_limited = (__u8)limited;
		tp.tcp_mstamp = mstamp;
		tp.inet_conn.icsk_ca_state = (__u8)ca_state;
		map_value.sinr_mdb = sinr_mdb;
		map_value.valid = sinr_valid;
		if (call(hook, sk, a0, a1, &ret)) {
			fprintf(stderr, "line %ld: unknown hook '%s'\n", line, hook);
			return 2;
		}
		printf("%u %u %u", tp.snd_cwnd, tp.snd_ssthresh, ret);
		print_state(tp.inet_conn.icsk_ca_priv);
	}
	if (!feof(stdin)) {
		fprintf(stderr, "line %ld: malformed record\n", line + 1);
		return 2;
	}
	return 0;
}
