#!/usr/bin/env bash
# Benchmark pi-shake against real pi and two floors on generated sessions (issue 7).
#
#   scripts/bench.sh                 # 10 MB and 100 MB
#   scripts/bench.sh --1gb           # also 1 GB (needs ~4 GB of disk in the bench dir, minutes)
#   scripts/bench.sh --sizes "10MB 100MB 1GB" --runs 10 --seed 7 --dir target/bench
#
# For each size, ONE hyperfine run times on the same file:
#   status, dry-run            pi-shake, read-only
#   shake                      pi-shake shake --force on a fresh copy each run (copy not timed)
#   undo                       pi-shake undo --force on a fresh copy of a once-shaken file
#   pi (rig)                   node tests/interop/project.mjs FILE: real pi 1.6's load +
#                              projection + estimate as a whole Node process, as the interop
#                              rig runs it (it also copies the file and reads it twice more)
#   pi (lean)                  node scripts/pi_project.mjs FILE: the same pi calls, nothing else
#   cat                        cat FILE > /dev/null (floor: reading the bytes)
#   serde_json floor           examples/parse_floor: serde_json::from_str::<Value> of every line
# then runs each once under /usr/bin/time -v for the peak RSS, and prints a markdown table of
# medians, ratios and peak RSS (also written to DIR/results-<size>.md and DIR/results.md).
# `--force` is passed to shake/undo because pi-shake refuses to append to a file modified in the
# last 5 s (the fresh copies are). The page cache is warm (one warm-up run per command).
# Absolute times depend on the machine and its load; ratios from the same run are what count.
#
# Needs: hyperfine (Debian/Ubuntu: `sudo apt-get install hyperfine`; else `cargo install
# hyperfine`), GNU time at /usr/bin/time (`sudo apt-get install time`), Node >= 20 with the
# interop rig installed (`cd tests/interop && npm ci`; done here if node_modules is missing).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SIZES="10MB 100MB"
RUNS=10
RUNS_BIG=3
SEED=7
DIR="${BENCH_DIR:-$ROOT/target/bench}"
REGEN=0

while [ $# -gt 0 ]; do
	case "$1" in
	--1gb) SIZES="$SIZES 1GB" ;;
	--sizes) SIZES="$2"; shift ;;
	--runs) RUNS="$2"; RUNS_BIG="$2"; shift ;;
	--seed) SEED="$2"; shift ;;
	--dir) DIR="$2"; shift ;;
	--regen) REGEN=1 ;;
	-h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench.sh: $1 not found. $2" >&2; exit 1; }
}
need hyperfine "Install it: sudo apt-get install hyperfine (Debian/Ubuntu), or cargo install hyperfine."
need node "Install Node >= 20 (the interop rig runs real pi on it)."
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

ALL_MD="$DIR/results.md"
{
	echo "# pi-shake benchmark"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ) · $(uname -srm) · $(nproc) CPUs · $(node --version) · $(hyperfine --version) · seed $SEED"
	echo
} >"$ALL_MD"

for SIZE in $SIZES; do
	F="$DIR/session-$SIZE-s$SEED.jsonl"
	if [ "$REGEN" = 1 ] || [ ! -s "$F" ]; then
		echo "== generating $F" >&2
		"$GEN" --size "$SIZE" --seed "$SEED" "$F"
	fi
	touch -d '1 hour ago' "$F"
	BYTES=$(stat -c %s "$F")
	WORK="$DIR/work-$SIZE.jsonl"
	SHAKEN="$DIR/shaken-$SIZE.jsonl"
	cp -p "$F" "$SHAKEN"
	"$BIN" shake --force --quiet "$SHAKEN"
	touch -d '1 hour ago' "$SHAKEN"
	SHAKE_BYTES=$(($(stat -c %s "$SHAKEN") - BYTES))
	cp -p "$SHAKEN" "$WORK"
	"$BIN" undo --force --quiet "$WORK"
	UNDO_BYTES=$(($(stat -c %s "$WORK") - $(stat -c %s "$SHAKEN")))

	# Does real pi load it? (Its rig caps the worker heap at 1 GB.)
	RIG_OK=1
	RIG_NOTE=""
	node tests/interop/project.mjs --timeout=1800000 "$F" >"$DIR/oracle-$SIZE.json" 2>/dev/null || true
	if ! head -c 200 "$DIR/oracle-$SIZE.json" | grep -q '"ok":true'; then
		RIG_OK=0
		RIG_NOTE=$(head -c 200 "$DIR/oracle-$SIZE.json")
		echo "== pi (rig) failed on $SIZE: $RIG_NOTE" >&2
	fi
	rm -f "$DIR/oracle-$SIZE.json"

	N=$RUNS
	[ "$BYTES" -gt 500000000 ] && N=$RUNS_BIG
	NAMES=(status dry-run shake undo "pi (rig)" "pi (lean)" cat "serde_json floor")
	CMDS=(
		"$BIN status $F"
		"$BIN dry-run $F"
		"$BIN shake --force $WORK"
		"$BIN undo --force $WORK"
		"node tests/interop/project.mjs --timeout=1800000 $F"
		"node scripts/pi_project.mjs $F"
		"cat $F"
		"$FLOOR $F"
	)
	PREPS=(true true "cp $F $WORK" "cp $SHAKEN $WORK" true true true true)
	ARGS=()
	for i in "${!CMDS[@]}"; do
		if [ "${NAMES[$i]}" = "pi (rig)" ] && [ "$RIG_OK" = 0 ]; then continue; fi
		ARGS+=(--prepare "${PREPS[$i]}" -n "${NAMES[$i]}" "${CMDS[$i]}")
	done
	echo "== timing $SIZE ($BYTES bytes, $N runs each)" >&2
	hyperfine -N --warmup 1 --runs "$N" --export-json "$DIR/hyperfine-$SIZE.json" "${ARGS[@]}" >&2

	echo "== peak RSS $SIZE" >&2
	RSS="$DIR/rss-$SIZE.txt"
	: >"$RSS"
	echo "status $(peak_rss "$BIN" status "$F")" >>"$RSS"
	echo "dry-run $(peak_rss "$BIN" dry-run "$F")" >>"$RSS"
	cp "$F" "$WORK"
	echo "shake $(peak_rss "$BIN" shake --force "$WORK")" >>"$RSS"
	cp "$SHAKEN" "$WORK"
	echo "undo $(peak_rss "$BIN" undo --force "$WORK")" >>"$RSS"
	[ "$RIG_OK" = 1 ] && echo "pi (rig) $(peak_rss node tests/interop/project.mjs --timeout=1800000 "$F")" >>"$RSS"
	echo "pi (lean) $(peak_rss node scripts/pi_project.mjs "$F")" >>"$RSS"
	echo "cat $(peak_rss cat "$F")" >>"$RSS"
	echo "serde_json floor $(peak_rss "$FLOOR" "$F")" >>"$RSS"
	rm -f "$WORK"

	node - "$DIR/hyperfine-$SIZE.json" "$RSS" "$SIZE" "$BYTES" "$SHAKE_BYTES" "$UNDO_BYTES" "$RIG_NOTE" >"$DIR/results-$SIZE.md" <<'EOF'
const fs = require("fs");
const [json, rssFile, size, bytes, shakeBytes, undoBytes, rigNote] = process.argv.slice(2);
const hf = JSON.parse(fs.readFileSync(json, "utf8")).results;
const rss = Object.fromEntries(fs.readFileSync(rssFile, "utf8").trim().split("\n").map((l) => {
	const i = l.lastIndexOf(" ");
	return [l.slice(0, i), Number(l.slice(i + 1))];
}));
const med = Object.fromEntries(hf.map((r) => [r.command, r.median]));
const sd = Object.fromEntries(hf.map((r) => [r.command, r.stddev ?? 0]));
// CPU time (user + system, mean): less sensitive than wall time to other load on the machine.
const cpu = Object.fromEntries(hf.map((r) => [r.command, r.user + r.system]));
const mb = (n) => (n / 1e6).toFixed(n < 1e7 ? 2 : 1);
const x = (a, b) => (a && b ? (a / b).toFixed(2) + "×" : "–");
const order = ["status", "dry-run", "shake", "undo", "pi (rig)", "pi (lean)", "cat", "serde_json floor"];
const out = [];
out.push(`### ${size} session (${mb(Number(bytes))} MB; shake appends ${mb(Number(shakeBytes))} MB, undo ${mb(Number(undoBytes))} MB)`);
out.push("");
out.push("| command | median (s) | ±σ | pi (rig) ÷ this | pi (lean) ÷ this | this ÷ serde_json floor | this ÷ cat | CPU user+sys (s) | CPU ÷ floor CPU | peak RSS (MB) | RSS ÷ file size |");
out.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const name of order) {
	const m = med[name];
	const r = rss[name];
	if (m === undefined) {
		out.push(`| ${name} | failed | | | | | | | | ${r ? (r / 1024).toFixed(0) : "–"} | |`);
		continue;
	}
	out.push(
		`| ${name} | ${m.toFixed(3)} | ${sd[name].toFixed(3)} | ${x(med["pi (rig)"], m)} | ${x(med["pi (lean)"], m)} | ${x(m, med["serde_json floor"])} | ${x(m, med["cat"])} | ${cpu[name].toFixed(3)} | ${x(cpu[name], cpu["serde_json floor"])} | ${r ? (r / 1024).toFixed(1) : "–"} | ${r ? ((r * 1024) / Number(bytes)).toFixed(3) : "–"} |`,
	);
}
if (rigNote) out.push("", `pi (rig) did not load this file: \`${rigNote.replace(/`/g, "'")}\``);
out.push("");
process.stdout.write(out.join("\n") + "\n");
EOF
	cat "$DIR/results-$SIZE.md" >>"$ALL_MD"
	cat "$DIR/results-$SIZE.md"

	# --- compact --dry-run at a few budgets, against status on the same file in the same run ---
	echo "== timing compact $SIZE ($N runs each)" >&2
	hyperfine -N --warmup 1 --runs "$N" --export-json "$DIR/hyperfine-compact-$SIZE.json" \
		-n status "$BIN status $F" \
		-n "compact 0.30" "$BIN compact --dry-run --target-ratio 0.30 $F" \
		-n "compact 0.10" "$BIN compact --dry-run --target-ratio 0.10 $F" \
		-n "compact 0.05" "$BIN compact --dry-run --target-ratio 0.05 $F" >&2
	CRSS="$DIR/rss-compact-$SIZE.txt"
	: >"$CRSS"
	echo "status $(peak_rss "$BIN" status "$F")" >>"$CRSS"
	for R in 0.30 0.10 0.05; do
		echo "compact $R $(peak_rss "$BIN" compact --dry-run --target-ratio "$R" "$F")" >>"$CRSS"
	done
	node - "$DIR/hyperfine-compact-$SIZE.json" "$CRSS" "$SIZE" "$BYTES" >"$DIR/results-compact-$SIZE.md" <<'EOF'
const fs = require("fs");
const [json, rssFile, size, bytes] = process.argv.slice(2);
const hf = JSON.parse(fs.readFileSync(json, "utf8")).results;
const rss = Object.fromEntries(fs.readFileSync(rssFile, "utf8").trim().split("\n").map((l) => {
	const i = l.lastIndexOf(" ");
	return [l.slice(0, i), Number(l.slice(i + 1))];
}));
const st = hf.find((r) => r.command === "status");
const out = [`### compact --dry-run, ${size} session (${(Number(bytes) / 1e6).toFixed(1)} MB)`, "",
	"| command | median (s) | this ÷ status | CPU user+sys (s) | CPU ÷ status CPU | peak RSS (MB) | RSS ÷ file size |",
	"|---|---:|---:|---:|---:|---:|---:|"];
for (const r of hf) {
	const cpu = r.user + r.system, sc = st.user + st.system, m = rss[r.command];
	out.push(`| ${r.command} | ${r.median.toFixed(3)} | ${(r.median / st.median).toFixed(2)}× | ${cpu.toFixed(3)} | ${(cpu / sc).toFixed(2)}× | ${m ? (m / 1024).toFixed(1) : "–"} | ${m ? ((m * 1024) / Number(bytes)).toFixed(3) : "–"} |`);
}
out.push("");
process.stdout.write(out.join("\n") + "\n");
EOF
	cat "$DIR/results-compact-$SIZE.md" >>"$ALL_MD"
	cat "$DIR/results-compact-$SIZE.md"
	# --- end compact ---
done

# Linearity: wall seconds, CPU seconds and peak RSS per 100 MB of file, per size.
node - "$DIR" $SIZES >>"$ALL_MD" <<'EOF'
const fs = require("fs");
const [dir, ...sizes] = process.argv.slice(2);
const wall = {}, cpu = {}, rss = {};
const have = [];
for (const s of sizes) {
	const f = `${dir}/hyperfine-${s}.json`;
	if (!fs.existsSync(f)) continue;
	const md = fs.readFileSync(`${dir}/results-${s}.md`, "utf8");
	const bytes = Number(md.match(/\(([\d.]+) MB;/)[1]) * 1e6;
	const per = 1e8 / bytes;
	have.push(s);
	for (const r of JSON.parse(fs.readFileSync(f, "utf8")).results) {
		(wall[r.command] ??= {})[s] = r.median * per;
		(cpu[r.command] ??= {})[s] = (r.user + r.system) * per;
	}
	for (const l of fs.readFileSync(`${dir}/rss-${s}.txt`, "utf8").trim().split("\n")) {
		const i = l.lastIndexOf(" ");
		(rss[l.slice(0, i)] ??= {})[s] = (Number(l.slice(i + 1)) * 1024) / bytes;
	}
}
if (have.length > 1) {
	const cols = have.flatMap((s) => [`wall ${s}`, `CPU ${s}`, `RSS÷size ${s}`]);
	const out = ["### Linearity: seconds per 100 MB (wall median, CPU mean) and peak RSS ÷ file size", "", `| command | ${cols.join(" | ")} |`, `|---|${cols.map(() => "---:").join("|")}|`];
	const f = (v, d) => (v === undefined ? "–" : v.toFixed(d));
	for (const cmd of Object.keys(rss)) {
		out.push(`| ${cmd} | ${have.map((s) => `${f(wall[cmd]?.[s], 3)} | ${f(cpu[cmd]?.[s], 3)} | ${f(rss[cmd]?.[s], 3)}`).join(" | ")} |`);
	}
	process.stdout.write(out.join("\n") + "\n\n");
}
EOF
echo "== results: $ALL_MD" >&2
cat "$ALL_MD"
