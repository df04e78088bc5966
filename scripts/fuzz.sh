#!/usr/bin/env bash
# Fuzz the reader/projection/planners for N seconds per target (default 60), corpora seeded from
# the fixtures: `read_project_plan` (reader → projection → wall → status → fold/undo plans) and
# `compact_plan` (reader → projection → compaction plans, threshold and budgeted; its inputs
# start with one byte that picks the recent tokens to keep and the budget).
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
seeds=(sessions-fixtures/pi/*.jsonl sessions-fixtures/broken/*.jsonl sessions-fixtures/legacy/*.jsonl)
corpus=target/fuzz-corpus/read_project_plan
mkdir -p "$corpus"
for f in "${seeds[@]}"; do
  # keep seeds small: the first 64 KiB of each fixture
  head -c 65536 "$f" > "$corpus/$(basename "$f")"
done
compact_corpus=target/fuzz-corpus/compact_plan
mkdir -p "$compact_corpus"
for f in "${seeds[@]}" sessions-fixtures/pi-mono/*.jsonl; do
  # whole lines up to 60 KB, behind knobs for: the threshold path, 30%, 5%, 400 tokens
  body=$(mktemp)
  head -c 60000 "$f" > "$body"
  if [ -n "$(tail -c 1 "$body")" ]; then sed -i '$d' "$body"; fi
  for knob in 05 0a 2e 13; do
    { printf "\\x$knob"; cat "$body"; } > "$compact_corpus/$(basename "$f").$knob"
  done
  rm -f "$body"
done
cd fuzz
for target in read_project_plan compact_plan; do
  cargo +nightly fuzz run "$target" "../target/fuzz-corpus/$target" -- \
    -max_total_time="$secs" -max_len=70000 -rss_limit_mb=4096
done
