/* SPDX-License-Identifier: MIT */
/* libbpf's BPF_PROG for the native harness: a plain function with the typed
 * arguments (the kernel passes them in a u64 array). */
#ifndef WAVECC_HARNESS_BPF_TRACING_H
#define WAVECC_HARNESS_BPF_TRACING_H

#define BPF_PROG(name, args...) name(args)

#endif
