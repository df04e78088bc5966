#!/usr/bin/env node
// The pi-shake extension in pi's interactive TUI, as a user sees it: the REAL pi 1.6 CLI in a
// tmux pane (a real terminal emulator), the extension loaded with `-e integrations/pi-shake`, the
// scripted mock model on 127.0.0.1 (tests/interop/gen/mock-server.mjs), the binary under test on
// PATH. The RPC driver (drive.mjs) sees notifications as events; only a screen shows whether pi's
// own status lines (pi collapses consecutive ones) leave them visible.
//
//   node22 integrations/pi-shake/test/tui.mjs --bin PATH --work DIR [--verbose] [--cli PATH] [--missing-bin [--summary-fails]]
//
// Steps: three prompts that each run a large `bash` output (auto-shake on at 25% of the window:
// after the third, the extension folds by itself), `/shake undo`, `/shake dry-run` (its scope popup
// answered with elide), `/shake elide`, `/shake status`,
// `/compact` (pi-shake's compaction, which pi writes), `/tree` back to the second answer (no
// branch summary), `/shake elide` (refused: pi's leaf is not the file's last entry) and `/compact`
// (pi's branch, handed to the binary). With `--missing-bin` (PI_SHAKE_BIN names a
// file that is not there, no auto-shake): three prompts, then `/compact`, which pi summarizes
// itself (the mock's summarizer) while the extension's warning says why; with `--summary-fails`
// too, pi's summarizer fails (no compaction) and the warning still shows.
// After each step the visible screen is captured (`tmux capture-pane`).
//
// stdout: one JSON document: {ok, error?, sessionFile, screens: {step: text}, ms}.

import { spawnSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MockServer, PI_CLI, piEnv, writeAgentDir } from "../../../tests/interop/gen/mock-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const EXTENSION = resolve(HERE, "..");
const argv = process.argv.slice(2);
const arg = (name) => {
	const i = argv.indexOf(name);
	return i >= 0 ? argv[i + 1] : undefined;
};
const BIN = arg("--bin") && resolve(arg("--bin"));
const WORK = arg("--work") && resolve(arg("--work"));
const VERBOSE = argv.includes("--verbose");
const MISSING = argv.includes("--missing-bin");
// With --missing-bin: pi's own summarizer fails too (the mock answers it with HTTP 400).
const SUMMARY_FAILS = argv.includes("--summary-fails");
// Another pi CLI (`cli.js` of an older release, tests/interop/releases); default: pi 1.6.0.
const CLI = arg("--cli") ? resolve(arg("--cli")) : PI_CLI;
const log = (...a) => VERBOSE && process.stderr.write(`[tui] ${a.join(" ")}\n`);
if (!BIN || !WORK) {
	process.stderr.write("usage: tui.mjs --bin PATH --work DIR [--verbose] [--cli PATH]\n");
	process.exit(2);
}

// A tmux server of our own (its own socket), so nothing else the machine runs is touched.
const SOCKET = `pi-shake-tui-${process.pid}`;
const tmux = (...args) => {
	const r = spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
	if (r.error) throw new Error(`tmux: ${r.error.message} (install tmux: it is the terminal this test runs pi in)`);
	if (r.status !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.trim()}`);
	return r.stdout;
};
const screen = () => tmux("capture-pane", "-p", "-t", "pi");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The editor's text: the lines between the last two rules (pi draws the editor between them). */
function editorText(shown) {
	const lines = shown.split("\n");
	const rules = lines.flatMap((l, i) => (l.startsWith("───") ? [i] : []));
	if (rules.length < 2) return undefined;
	return lines
		.slice(rules[rules.length - 2] + 1, rules[rules.length - 1])
		.map((l) => l.trim())
		.join("\n")
		.trim();
}

/** Wait until the screen matches `re` (30 s at most); the screen. With `typed`, a command still
 *  sitting in the editor after 3 s (its Enter taken by the autocomplete on a slow machine) gets
 *  one more Enter, as a user would press it. */
async function waitFor(re, what, typed) {
	const start = Date.now();
	const deadline = start + 30_000;
	let last = "";
	let again = typed !== undefined;
	while (Date.now() < deadline) {
		last = screen();
		if (re.test(last)) return last;
		if (again && Date.now() - start > 3_000 && editorText(last) === typed) {
			log(`Enter again for ${typed}`);
			tmux("send-keys", "-t", "pi", "Enter");
			again = false;
		}
		await sleep(200);
	}
	throw new Error(`timed out waiting for ${what}; the screen:\n${last}`);
}

/** The steps after the auto-shake (with the binary). */
async function steps(send) {
	await send("/shake undo", /Restored \d+ folded entr/, "undo");
	// The design's popup: `/shake dry-run` asks for a scope; Enter takes the first, elide.
	await send("/shake dry-run", /Shake which scope\?/, "popup");
	tmux("send-keys", "-t", "pi", "Enter");
	screens.dryrun = await waitFor(/\[dry-run\] · Shook \d+ tool results?/, "the dry-run's notice");
	await send("/shake elide", /^\s*Shook \d+ tool results? \(~[\d,]+ tokens\)/m, "shake");
	await send("/shake status", /pi-shake: \d+ entr(y|ies) folded/, "status");
	await send("/compact", /pi-shake: compacted \d+ tool calls?/, "compact");
	await send("/tree", /Session Tree[\s\S]*› • \[compaction/, "tree");
	for (let i = 0; i < 5; i++) tmux("send-keys", "-t", "pi", "Up");
	await sleep(300);
	tmux("send-keys", "-t", "pi", "Enter");
	await waitFor(/Summarize branch\?[\s\S]*→ No summary/, "pi's branch-summary question");
	tmux("send-keys", "-t", "pi", "Enter");
	screens.navigated = await waitFor(/Navigated to selected point/, "pi's navigation");
	// pi's leaf moved without a write: /shake refuses (an append would land on the other
	// branch) and /compact hands the binary pi's branch.
	await send("/shake elide", /pi-shake: pi's position in the session tree \(\w+\) is not the file's last entry/, "treeShake");
	await send("/compact", /pi-shake: compacted \d+ tool calls?/, "treeCompact");
}

const t0 = Date.now();
const mock = new MockServer({ log: (s) => process.stderr.write(`${s}\n`), vlog: log });
const screens = {};
let ok = false;
let error;
let sessionFile;
try {
	rmSync(WORK, { recursive: true, force: true });
	const dirs = { agentDir: join(WORK, "agent"), home: join(WORK, "home"), tmp: join(WORK, "tmp") };
	const project = join(WORK, "project");
	for (const d of [...Object.values(dirs), project]) mkdirSync(d, { recursive: true });
	await mock.start();
	// A small recent tail, so that the first outputs are old enough to fold.
	writeAgentDir(dirs.agentDir, mock.baseUrl, {
		compaction: { keepRecentTokens: 4000 },
		shake: MISSING ? {} : { auto: { enabled: true, threshold: 0.25 } },
	});
	let n = 0;
	for (let i = 0; i < 3; i++) {
		mock.script(
			{ text: "Let me check.", tools: [{ id: `call_${++n}`, name: "bash", args: { command: `seq 1 ${4000 + i * 500} | sed 's/^/line item value /'` } }] },
			{ text: `Step ${i} done.` },
		);
	}
	const env = { ...piEnv(dirs), PATH: `${dirname(BIN)}:${process.env.PATH}`, TERM: "xterm-256color" };
	if (MISSING) env.PI_SHAKE_BIN = join(WORK, "missing", "pi-shake");
	const envFile = join(WORK, "env.sh");
	writeFileSync(envFile, Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v)}`).join("\n") + "\n");
	const cmd = `. ${JSON.stringify(envFile)} && cd ${JSON.stringify(project)} && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} -e ${JSON.stringify(EXTENSION)}`;
	tmux("new-session", "-d", "-s", "pi", "-x", "150", "-y", "50", "sh", "-c", cmd);
	// pi may draw its footer before the list of loaded extensions: wait for both.
	screens.start = await waitFor(/\[Extensions\][\s\S]*mock-coder/, "pi's loaded extensions and footer");
	for (let i = 0; i < 3; i++) {
		tmux("send-keys", "-t", "pi", "-l", `run step ${i} please\r`);
		screens[`step${i}`] = await waitFor(new RegExp(`Step ${i} done\\.`), `step ${i}'s answer`, `run step ${i} please`);
	}
	const send = async (text, re, step) => {
		// The text and its Enter in one burst: once the command's autocomplete is showing, an
		// Enter takes the suggestion instead of sending.
		tmux("send-keys", "-t", "pi", "-l", `${text}\r`);
		screens[step] = await waitFor(re, `${step}'s notice`, text);
	};
	if (MISSING) {
		if (SUMMARY_FAILS) for (let i = 0; i < 8; i++) mock.scriptSummary({ error: { status: 400, message: "mock: the summarizer refuses" } });
		await send("/compact", /pi-shake: compaction not available: .* pi writes its own summary\./s, "compact");
	} else {
		// The auto-shake runs after the third run settles.
		screens.auto = await waitFor(/auto-shake: Shook \d+ tool results?/, "the auto-shake's notice");
		await steps(send);
	}
	const sessions = join(dirs.agentDir, "sessions");
	for (const d of readdirSync(sessions)) {
		for (const f of readdirSync(join(sessions, d))) if (f.endsWith(".jsonl")) sessionFile = join(sessions, d, f);
	}
	ok = true;
} catch (e) {
	error = String(e?.message ?? e);
} finally {
	try {
		tmux("kill-server");
	} catch {}
	await mock.stop();
}
process.stdout.write(`${JSON.stringify({ ok, error, sessionFile, screens, unexpectedRequests: mock.unexpected, ms: Date.now() - t0 })}\n`);
process.exit(ok ? 0 : 1);
