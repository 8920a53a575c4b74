#!/usr/bin/env bash
# Installs wavecc from this checkout (pip builds the Rust core with maturin, in release
# mode) and runs the 1 Gb/s dumbbell: one CUBIC flow for 60 simulated seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install .
# --force: a rerun replaces the earlier run (and only a run: never files of yours).
wavecc run dumbbell-1g --out out/dumbbell-1g --force
echo "figure: $(pwd)/out/dumbbell-1g/figure.png"
