#!/usr/bin/env bash
# Every test, exactly what CI runs: installs what is missing, then formatting, clippy
# (warnings are errors), and the whole workspace's tests (unit, property, end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy --all-targets -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"
cargo test --workspace --all-targets
# Doc tests are not covered by --all-targets.
cargo test --workspace --doc --quiet
