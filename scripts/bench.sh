#!/usr/bin/env bash
# Benchmark every pi-shake command against real pi and the floors on generated sessions (#7, #16).
#
#   scripts/bench.sh                 # 10 MB and 100 MB, both session kinds
#   scripts/bench.sh --1gb           # also 1 GB (needs ~10 GB of disk in the bench dir, long)
#   scripts/bench.sh --sizes "100MB" --kinds big --runs 5 --seed 7 --dir target/bench
#
# Session kinds (examples/gen_session.rs, deterministic for a seed):
#   big     realistic turns: tool outputs from 100 B to 500 KB, thinking, images, branches, a
#           compaction, earlier shakes and an undo (a 100 MB file holds ~3,800 entries)
#   small   --small: tiny entries (~300 B; 1 M entries ≈ 300 MB), a compaction every 50,000
#           entries: per-entry costs that big outputs hide
#
# For each kind and size, ONE hyperfine run times on the same file:
#   status                     pi-shake status FILE
#   dry-run                    pi-shake dry-run FILE (no --scope: one line per scope)
#   dry-run elide|thinking|images|all   pi-shake dry-run --scope S FILE
#   shake                      pi-shake shake --force on a fresh copy each run (copy not timed)
#   shake all                  pi-shake shake --scope all --force, fresh copy each run
#   undo                       pi-shake undo --force on a fresh copy of a file shaken with
#                              --scope all (it restores everything shake all folded)
#   (compact rows: see compact_rows below)
#   recall --grep (absent|common)  pi-shake recall --grep TEXT FILE, a text in no output / in many
#   pi (lean)                  node scripts/pi_project.mjs FILE: real pi 1.6's SessionManager.open
#                              + buildSessionProjection + estimateProjectedContextTokens, nothing else
#   cat                        cat FILE (floor: reading the bytes)
#   serde_json floor           examples/parse_floor: serde_json::from_str::<Value> of every line
# then runs each once more under /usr/bin/time -v for its peak RSS, and prints markdown tables:
# per size (median, ratios, CPU, CPU seconds per 100 MB, peak RSS ÷ file) and per kind the
# linearity check (CPU seconds per 100 MB at each size, and their spread). Written to
# DIR/results.md too. `--force` is passed to shake/undo so that the live-pi check (a scan of
# /proc, or on systems without /proc a refusal of files modified in the last 5 s) stays out of
# the timing. The page cache is warm (one warm-up run).
# Everything runs under `nice` (the machine may be shared; --no-nice to turn it off). Absolute
# times depend on the machine and its load; ratios from the same run are what count, and CPU time
# is far less disturbed by other load than wall time.
#
# Needs: hyperfine (Debian/Ubuntu: `sudo apt-get install hyperfine`; else `cargo install
# hyperfine`), GNU time at /usr/bin/time (`sudo apt-get install time`), Node >= 20 with the
# interop rig installed (`cd tests/interop && npm ci`; done here if node_modules is missing).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SIZES="10MB 100MB"
KINDS="big small"
RUNS=5
RUNS_BIG=3
SEED=7
DIR="${BENCH_DIR:-$ROOT/target/bench}"
REGEN=0
NICE="nice -n 5"

while [ $# -gt 0 ]; do
	case "$1" in
	--1gb) SIZES="$SIZES 1GB" ;;
	--sizes) SIZES="$2"; shift ;;
	--kinds) KINDS="$2"; shift ;;
	--runs) RUNS="$2"; RUNS_BIG="$2"; shift ;;
	--seed) SEED="$2"; shift ;;
	--dir) DIR="$2"; shift ;;
	--regen) REGEN=1 ;;
	--no-nice) NICE="" ;;
	-h | --help) sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench.sh: $1 not found. $2" >&2; exit 1; }
}
need hyperfine "Install it: sudo apt-get install hyperfine (Debian/Ubuntu), or cargo install hyperfine."
need node "Install Node >= 20 (the benchmark runs real pi on it)."
[ -x /usr/bin/time ] || { echo "bench.sh: /usr/bin/time (GNU time) not found. Install it: sudo apt-get install time" >&2; exit 1; }
if [ ! -d tests/interop/node_modules/@earendil-works/pi-coding-agent ]; then
	echo "== installing the interop rig (npm ci in tests/interop)" >&2
	(cd tests/interop && npm ci --no-audit --no-fund >&2)
fi

echo "== building (release)" >&2
cargo build --release --quiet --bin pi-shake --example gen_session --example parse_floor
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}/release"
BIN="$TARGET/pi-shake"
GEN="$TARGET/examples/gen_session"
FLOOR="$TARGET/examples/parse_floor"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"

# Peak RSS in KB of one run of a command (stdout/stderr discarded).
peak_rss() {
	local out="$DIR/time.txt"
	/usr/bin/time -v -o "$out" "$@" >/dev/null 2>&1 || true
	sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$out"
}

# Rows of one hyperfine run: name, command run before each timing (not timed), command.
NAMES=()
PREPS=()
CMDS=()
add_row() {
	NAMES+=("$1")
	PREPS+=("$2")
	CMDS+=("$3")
}

# ---- compact rows ----------------------------------------------------------------------------
# `compact --dry-run` (offline scorer) at three budgets; compare with the status row of the same run.
# Available: $BIN, $F (the session), $WORK (scratch copy), $SHAKEN (shaken with --scope all).
compact_rows() {
	local R
	for R in 0.30 0.10 0.05; do
		add_row "compact $R" true "$BIN compact --dry-run --target-ratio $R $F"
	done
}
# ---- end of compact rows ---------------------------------------------------------------------

ALL_MD="$DIR/results.md"
{
	echo "# pi-shake benchmark"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ) · $(uname -srm) · $(nproc) CPUs · load $(cut -d' ' -f1-3 /proc/loadavg) · $(node --version) · $(hyperfine --version) · seed $SEED"
	echo
} >"$ALL_MD"

for KIND in $KINDS; do
	GEN_FLAGS=()
	[ "$KIND" = small ] && GEN_FLAGS=(--small)
	for SIZE in $SIZES; do
		TAG="$KIND-$SIZE"
		F="$DIR/session-$TAG-s$SEED.jsonl"
		if [ "$REGEN" = 1 ] || [ ! -s "$F" ]; then
			echo "== generating $F" >&2
			"$GEN" "${GEN_FLAGS[@]}" --size "$SIZE" --seed "$SEED" "$F"
		fi
		touch -d '1 hour ago' "$F"
		BYTES=$(stat -c %s "$F")
		LINES=$(wc -l <"$F")
		WORK="$DIR/work-$TAG.jsonl"
		SHAKEN="$DIR/shaken-$TAG.jsonl"
		cp -p "$F" "$SHAKEN"
		"$BIN" shake --scope all --force --quiet "$SHAKEN"
		touch -d '1 hour ago' "$SHAKEN"
		SHAKE_BYTES=$(($(stat -c %s "$SHAKEN") - BYTES))
		cp -p "$SHAKEN" "$WORK"
		"$BIN" undo --force --quiet "$WORK"
		UNDO_BYTES=$(($(stat -c %s "$WORK") - $(stat -c %s "$SHAKEN")))

		# Does real pi load it? (pi 1.6 overflows V8's stack past ~120k entries after the latest
		# compaction; the small kind compacts often enough.)
		PI_OK=1
		PI_NOTE=""
		if ! PI_NOTE=$(node scripts/pi_project.mjs "$F" 2>&1 >/dev/null); then
			PI_OK=0
			PI_NOTE=$(echo "$PI_NOTE" | grep -m1 -E 'Error|error' || echo "exit non-zero")
			echo "== pi (lean) failed on $TAG: $PI_NOTE" >&2
		fi

		NAMES=()
		PREPS=()
		CMDS=()
		add_row status true "$BIN status $F"
		add_row dry-run true "$BIN dry-run $F"
		for S in elide thinking images all; do
			add_row "dry-run $S" true "$BIN dry-run --scope $S $F"
		done
		add_row shake "cp $F $WORK" "$BIN shake --force $WORK"
		add_row "shake all" "cp $F $WORK" "$BIN shake --scope all --force $WORK"
		add_row undo "cp $SHAKEN $WORK" "$BIN undo --force $WORK"
		compact_rows
		# recall --grep reads every tool output of the branch: a text no line holds (the raw-line
		# skip: the I/O floor) and one many outputs hold (each such line parsed).
		add_row "recall --grep (absent)" true "$BIN recall --grep zq9-no-such-text $F"
		add_row "recall --grep (common)" true "$BIN recall --grep error $F"
		[ "$PI_OK" = 1 ] && add_row "pi (lean)" true "node scripts/pi_project.mjs $F"
		add_row cat true "cat $F"
		add_row "serde_json floor" true "$FLOOR $F"

		N=$RUNS
		[ "$BYTES" -gt 500000000 ] && N=$RUNS_BIG
		ARGS=()
		for i in "${!CMDS[@]}"; do
			ARGS+=(--prepare "${PREPS[$i]}" -n "${NAMES[$i]}" "${CMDS[$i]}")
		done
		echo "== timing $TAG ($BYTES bytes, $LINES lines, $N runs each)" >&2
		$NICE hyperfine -N --warmup 1 --runs "$N" --export-json "$DIR/hyperfine-$TAG.json" "${ARGS[@]}" >&2

		echo "== peak RSS $TAG" >&2
		RSS="$DIR/rss-$TAG.txt"
		: >"$RSS"
		for i in "${!CMDS[@]}"; do
			# shellcheck disable=SC2086 # the commands are word lists, as hyperfine -N runs them
			[ "${PREPS[$i]}" = true ] || ${PREPS[$i]}
			# shellcheck disable=SC2086
			echo "${NAMES[$i]} $(peak_rss ${CMDS[$i]})" >>"$RSS"
		done
		rm -f "$WORK"

		node - "$DIR/hyperfine-$TAG.json" "$RSS" "$KIND" "$SIZE" "$BYTES" "$LINES" "$SHAKE_BYTES" "$UNDO_BYTES" "$PI_NOTE" >"$DIR/results-$TAG.md" <<'EOF'
const fs = require("fs");
const [json, rssFile, kind, size, bytes, lines, shakeBytes, undoBytes, piNote] = process.argv.slice(2);
const hf = JSON.parse(fs.readFileSync(json, "utf8")).results;
const rss = Object.fromEntries(fs.readFileSync(rssFile, "utf8").trim().split("\n").map((l) => {
	const i = l.lastIndexOf(" ");
	return [l.slice(0, i), Number(l.slice(i + 1))];
}));
const B = Number(bytes);
const med = Object.fromEntries(hf.map((r) => [r.command, r.median]));
const sd = Object.fromEntries(hf.map((r) => [r.command, r.stddev ?? 0]));
// CPU time (user + system, mean): far less sensitive than wall time to other load.
const cpu = Object.fromEntries(hf.map((r) => [r.command, r.user + r.system]));
const mb = (n) => (n / 1e6).toFixed(n < 1e7 ? 2 : 1);
const x = (a, b) => (a && b ? (a / b >= 100 ? (a / b).toFixed(0) : (a / b).toFixed(2)) + "×" : "–");
const out = [];
out.push(`### ${kind} session, ${size} (${mb(B)} MB, ${Number(lines).toLocaleString("en")} lines; shake --scope all appends ${mb(Number(shakeBytes))} MB, undo ${mb(Number(undoBytes))} MB)`);
out.push("");
out.push("| command | median (s) | ±σ | pi (lean) ÷ this | this ÷ cat | this ÷ serde_json floor | CPU (s) | CPU s / 100 MB | pi CPU ÷ this CPU | peak RSS (MB) | RSS ÷ file |");
out.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of hf) {
	const name = r.command;
	const m = med[name];
	const k = rss[name];
	out.push(
		`| ${name} | ${m.toFixed(3)} | ${sd[name].toFixed(3)} | ${x(med["pi (lean)"], m)} | ${x(m, med["cat"])} | ${x(m, med["serde_json floor"])} | ${cpu[name].toFixed(3)} | ${((cpu[name] * 1e8) / B).toFixed(3)} | ${x(cpu["pi (lean)"], cpu[name])} | ${k ? (k / 1024).toFixed(1) : "–"} | ${k ? ((k * 1024) / B).toFixed(3) : "–"} |`,
	);
}
if (piNote) out.push("", `pi (lean) did not load this file: \`${piNote.replace(/`/g, "'")}\``);
out.push("");
process.stdout.write(out.join("\n") + "\n");
EOF
		cat "$DIR/results-$TAG.md" >>"$ALL_MD"
		cat "$DIR/results-$TAG.md"
	done

	# Linearity: CPU seconds per 100 MB at each size (and the spread, max ÷ min − 1), RSS ÷ size.
	node - "$DIR" "$KIND" $SIZES >>"$ALL_MD" <<'EOF'
const fs = require("fs");
const [dir, kind, ...sizes] = process.argv.slice(2);
const cpu = {}, rss = {}, order = [];
const have = [];
for (const s of sizes) {
	const f = `${dir}/hyperfine-${kind}-${s}.json`;
	if (!fs.existsSync(f)) continue;
	const md = fs.readFileSync(`${dir}/results-${kind}-${s}.md`, "utf8");
	const bytes = Number(md.match(/\(([\d.]+) MB,/)[1]) * 1e6;
	have.push(s);
	for (const r of JSON.parse(fs.readFileSync(f, "utf8")).results) {
		if (!order.includes(r.command)) order.push(r.command);
		(cpu[r.command] ??= {})[s] = ((r.user + r.system) * 1e8) / bytes;
	}
	for (const l of fs.readFileSync(`${dir}/rss-${kind}-${s}.txt`, "utf8").trim().split("\n")) {
		const i = l.lastIndexOf(" ");
		(rss[l.slice(0, i)] ??= {})[s] = (Number(l.slice(i + 1)) * 1024) / bytes;
	}
}
if (have.length > 1) {
	const f = (v, d) => (v === undefined ? "–" : v.toFixed(d));
	// The spread over the sizes from 100 MB up (10 MB runs carry a fixed start-up cost: shown, not counted).
	const counted = have.filter((s) => !/^\d{1,2}(\.\d+)?MB$/i.test(s) || have.length === 1);
	const cols = [...have.map((s) => `CPU s/100 MB ${s}`), `spread ${counted.join("→")}`, `spread ${have.join("→")}`, ...have.map((s) => `RSS÷size ${s}`)];
	const out = [`### Linearity, ${kind} session: CPU seconds per 100 MB, and peak RSS ÷ file size`, "", `| command | ${cols.join(" | ")} |`, `|---|${cols.map(() => "---:").join("|")}|`];
	const spread = (c, ss) => {
		const v = ss.map((s) => c?.[s]).filter((y) => y !== undefined);
		return v.length > 1 ? `${((Math.max(...v) / Math.min(...v) - 1) * 100).toFixed(0)}%` : "–";
	};
	for (const cmd of order) {
		if (cmd === "cat") continue;
		out.push(`| ${cmd} | ${have.map((s) => f(cpu[cmd]?.[s], 3)).join(" | ")} | ${spread(cpu[cmd], counted)} | ${spread(cpu[cmd], have)} | ${have.map((s) => f(rss[cmd]?.[s], 3)).join(" | ")} |`);
	}
	process.stdout.write(out.join("\n") + "\n\n");
}
EOF
done
echo "== results: $ALL_MD" >&2
cat "$ALL_MD"
