#!/usr/bin/env bash
# Installs wavecc with its test extra, then runs the Rust core's tests and the Python
# tests (which exercise the installed package, not the source tree).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install ".[test]"
cargo test -p wavecc-core --release
python3 -m pytest tests/python -q
