#!/usr/bin/env bash
# Installs Chromium (for the report's browser test) and wavecc with its test extra, then
# runs the Rust core's tests and the Python tests (which exercise the installed package,
# not the source tree).
set -euo pipefail
cd "$(dirname "$0")/.."

# The HTML report's test opens the page in a real headless Chromium (Debian's package);
# the kernel test (tests/python/test_kernel.py) compiles the eBPF congestion controls
# with clang and libbpf and loads them with bpftool.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v clang >/dev/null 2>&1 || missing+=(clang llvm)
[ -f /usr/include/bpf/bpf_helpers.h ] || missing+=(libbpf-dev)
command -v bpftool >/dev/null 2>&1 || missing+=(bpftool)
# `wavecc emulate` creates network namespaces with ip, and runs iperf3 across them
# (tests/python/test_emulate.py).
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v iperf3 >/dev/null 2>&1 || missing+=(iperf3)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "missing: ${missing[*]}; install them (apt-get install ${missing[*]}) for the report's browser test and the kernel test" >&2
    fi
fi

python3 -m pip install ".[test]"
# Formatting, lints and the type check fail the run before any test does.
bash scripts/lint.sh
cargo test -p wavecc-core --release
# The emulator behind `wavecc emulate`: its link model's tests, then the binary the
# Python tests drive (their end-to-end part needs root, as on CI).
cargo test -p wavecc-emu --release
cargo build -p wavecc-emu --release
export WAVECC_EMU="$PWD/target/release/wavecc-emu"
python3 -m pytest tests/python -q
