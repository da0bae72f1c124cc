#!/usr/bin/env bash
# Runs every test lore has, on a clean machine: installs what the tests need, then one
# `cargo test --release` (one build for the unit, integration and browser tests).
set -euo pipefail
cd "$(dirname "$0")"

# The export tests check patterns in the target engines' own regex dialects: RE2 (google-re2) and
# Sigma's loader (pysigma).
python3 -c 'import re2' 2>/dev/null || python3 -m pip install --quiet google-re2
python3 -c 'import sigma.collection' 2>/dev/null || python3 -m pip install --quiet pysigma

# The browser tests drive Debian's Chromium through chromedriver; CJK fonts make the screenshots
# readable.
# The doctor's tests run /collect.sh under dash and busybox sh, and drop root with setpriv.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! fc-list 2>/dev/null | grep -qi cjk \
  || ! command -v dash >/dev/null || ! command -v busybox >/dev/null || ! command -v setpriv >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver fonts-noto-cjk dash busybox util-linux >/dev/null
fi

cargo fmt --check
cargo clippy --release --all-targets -- -D warnings
cargo test --release "$@"
