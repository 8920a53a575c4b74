#!/usr/bin/env bash
# The style gate CI runs before the tests: formatting (rustfmt, ruff format), lints
# (clippy with warnings as errors, ruff check) and the package's type check (mypy).
# Installs the pinned tools of the `lint` extra. Run it before committing.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install -q "ruff==0.17.6" "mypy==2.4.1" "pandas-stubs==3.1.0.261029" \
    "scipy-stubs==1.17.1.5"
cargo fmt --all --check
cargo clippy --workspace --all-targets --release -- -D warnings
python3 -m ruff check python tests scripts
python3 -m ruff format --check python tests scripts
python3 -m mypy
