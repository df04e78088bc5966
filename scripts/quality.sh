#!/usr/bin/env bash
# The compaction-quality benchmarks (benches/quality/README.md) against a pi-shake binary.
#
#   scripts/quality.sh [BIN] [options of examples/quality.rs] [-- ARGS for one run]
#
# BIN defaults to $PI_SHAKE_BIN, else this tree's release build (built first). Markdown goes to
# stdout, target/quality-report.json gets the full JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${PI_SHAKE_BIN:-}"
if [[ $# -gt 0 && "$1" != --* ]]; then bin="$1"; shift; fi
if [[ -z "$bin" ]]; then
  cargo build --release --quiet
  bin="$PWD/target/release/pi-shake"
fi
[[ -d tests/interop/node_modules/@earendil-works/pi-coding-agent ]] || (cd tests/interop && npm ci --silent)
cargo build --release --quiet --example quality
exec target/release/examples/quality --bin "$bin" --json target/quality-report.json "$@"
