#!/usr/bin/env bash
# Runs every test lore has, on a clean machine: installs what the tests need, then one
# `cargo test --release` (one build for the unit, integration and browser tests).
set -euo pipefail
cd "$(dirname "$0")"

cargo fmt --check
cargo clippy --release --all-targets -- -D warnings
cargo test --release "$@"
