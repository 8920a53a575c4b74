#!/usr/bin/env bash
# Installs Chromium (for the report's browser test) and wavecc with its test extra, then
# runs the Rust core's tests and the Python tests (which exercise the installed package,
# not the source tree).
set -euo pipefail
cd "$(dirname "$0")/.."

# The HTML report's test opens the page in a real headless Chromium (Debian's package).
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "chromium is missing; install it (apt-get install chromium) for the report's browser test" >&2
    fi
fi

python3 -m pip install ".[test]"
cargo test -p wavecc-core --release
python3 -m pytest tests/python -q
