/* SPDX-License-Identifier: MIT */
/*
 * libbpf's bpf_helpers.h for the native harness: sections vanish, map definitions
 * keep libbpf's shape, and the one helper the programs call (a map lookup) and the
 * kfunc (tcp_reno_undo_cwnd) are the harness's functions.
 */
#ifndef WAVECC_HARNESS_BPF_HELPERS_H
#define WAVECC_HARNESS_BPF_HELPERS_H

#define SEC(name)
#define __uint(name, val) int (*name)[val]
#define __type(name, val) __typeof__(val) *name
#define __ksym

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Every map has one entry, the harness's: D-TCP's SINR hint of the record. */
void *wavecc_harness_map_lookup(void *map, const void *key);
#define bpf_map_lookup_elem(map, key) wavecc_harness_map_lookup((map), (key))

#endif
