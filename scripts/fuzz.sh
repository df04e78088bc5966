#!/usr/bin/env bash
# Fuzz the reader/projection/planner for N seconds (default 60), corpus seeded from the fixtures.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "fuzz: cargo-fuzz is not installed (cargo install cargo-fuzz); skipping" >&2
  exit 0
fi
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: no nightly toolchain (rustup toolchain install nightly); skipping" >&2
  exit 0
fi
corpus=target/fuzz-corpus/read_project_plan
mkdir -p "$corpus"
for f in sessions-fixtures/pi/*.jsonl sessions-fixtures/broken/*.jsonl sessions-fixtures/legacy/*.jsonl; do
  # keep seeds small: the first 64 KiB of each fixture
  head -c 65536 "$f" > "$corpus/$(basename "$f")"
done
cd fuzz
cargo +nightly fuzz run read_project_plan "../$corpus" -- -max_total_time="$secs" -max_len=65536 -rss_limit_mb=4096
