#!/usr/bin/env node
// End-to-end driver for the pi-shake extension: the REAL pi 1.6 CLI in RPC mode, the extension
// loaded with `-e integrations/pi-shake`, the scripted mock model on 127.0.0.1 (tests/interop/gen/
// mock-server.mjs), and the pi-shake binary under test.
//
//   node22 integrations/pi-shake/test/drive.mjs --scenario NAME --bin PATH --work DIR [--verbose] [--cli PATH]
//
// Scenarios:
//   compact   a session crosses pi's compaction threshold: pi-shake's compaction (via
//             session_before_compact) is written by pi; then a manual RPC `compact` with custom
//             instructions. The binary is found through PI_SHAKE_BIN.
//   fallback  the same session with PI_SHAKE_BIN pointing at a missing file: pi writes its own
//             summary (from the mock's summarizer queue).
//   shake     `/shake` (scope popup answered "elide"), a turn, `/shake dry-run thinking`,
//             `/shake status`, `/shake undo`, a turn. The binary is found on PATH.
//   auto      `shake.auto` on at 8% of the window: after the second prompt the extension folds
//             by itself; then a turn. The binary is found in ~/.cargo/bin (not on PATH).
//   tree      `/tree` back to the first answer (pi's navigateTree, which moves pi's leaf without
//             writing): `/shake` refuses (an append would land on the abandoned branch) and a
//             manual compaction hands the binary pi's branch (header + branchEntries) instead
//             of the file.
//   old       PI_SHAKE_BIN is a program answering an old handshake (protocol 0): `/shake status`,
//             `/shake`, a manual compaction and a turn still work (pi's own summary); then the
//             program is replaced by the binary (an update while pi runs) and `/shake status` works.
//   overflow  the model answers the second prompt with a context-overflow error (HTTP 400): pi
//             omits the failed attempt, compacts (reason "overflow", through pi-shake) and retries
//             the prompt on the compacted context.
//   abort     a manual compaction the user aborts while the binary runs (a wrapper that waits
//             before running it): pi writes no compaction, and a turn follows.
//   recall    a manual compaction through pi-shake, then the model calls `shake_recall` with the id
//             of a call the summary cut (read from the file), then with a pattern, and answers;
//             `shake.recall` false with `--no-recall`; with `--clone`, pi's `clone` (what `/clone`
//             does: the branch copied to a new session file) comes between the compaction and
//             the model's calls, which then run in the copy.
//   resume    `--session` on a file pi 0.30.2 wrote (no `version`: pi 1.6 migrates it on open),
//             then a manual compaction (pi-shake's, through the extension) and a turn.
//
// stdout: one JSON document with everything the Rust test asserts on (tests/e2e/extension/):
//   {ok, scenario, sessionFile, requests:[{kind, tools, messages}], marks:{name: requestCount},
//    hashes:{name: sha256 of the session file}, notifications:[{step, type, message}],
//    selects:[{step, title, options}], responses:{step: data}, events:[…compaction events],
//    ms}
// The work dir (agent dir, project, sessions) is left in place for the test to inspect.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MockServer, PI_CLI, piEnv, writeAgentDir } from "../../../tests/interop/gen/mock-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const EXTENSION = resolve(HERE, "..");
const RESUME_FIXTURE = resolve(HERE, "../../../sessions-fixtures/pi-releases/0.30.2/tools-large-output.jsonl");

const argv = process.argv.slice(2);
const arg = (name) => {
	const i = argv.indexOf(name);
	return i >= 0 ? argv[i + 1] : undefined;
};
const SCENARIO = arg("--scenario");
const BIN = arg("--bin") && resolve(arg("--bin"));
const WORK = arg("--work") && resolve(arg("--work"));
const VERBOSE = argv.includes("--verbose");
// Another pi CLI (`cli.js` of an older release, tests/interop/releases); default: pi 1.6.0.
const CLI = arg("--cli") ? resolve(arg("--cli")) : PI_CLI;
const log = (...a) => VERBOSE && process.stderr.write(`[drive] ${a.join(" ")}\n`);

// pi's own compaction on, keeping 3,000 recent tokens (no threshold compaction in these
// sessions: pi's default reserve on a 128,000 window).
const PI_CUT_3000 = { compaction: { enabled: true, keepRecentTokens: 3000 } };

// Reply builders.
const text = (t, thinking) => ({ text: t, thinking });
const call = (id, name, args) => ({ id, name, args });
const tools = (list, t, thinking) => ({ tools: list, text: t, thinking });

/** ~`n` chars of distinct, greppable lines. */
function bigFile(tag, n) {
	const lines = [];
	let i = 0;
	let len = 0;
	while (len < n) {
		const l = `${tag} line ${String(i).padStart(5, "0")}: value=${createHash("sha1").update(`${tag}${i}`).digest("hex").slice(0, 24)}`;
		lines.push(l);
		len += l.length + 1;
		i++;
	}
	return lines.join("\n") + "\n";
}

class Pi {
	constructor({ agentDir, cwd, sessionDir, env, extra = [], args: more = [] }) {
		this.events = [];
		this.waiters = [];
		this.pending = new Map();
		this.seq = 0;
		this.step = "start";
		this.notifications = [];
		this.selects = [];
		this.selectAnswers = [];
		const args = [CLI, "--mode", "rpc", "--provider", "mock", "--model", "mock-coder", "--thinking", "medium", "--session-dir", sessionDir, "-e", EXTENSION, ...extra.flatMap((e) => ["-e", e]), ...more];
		this.proc = spawn(process.execPath, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
		this.stderr = "";
		this.proc.stderr.setEncoding("utf8");
		this.proc.stderr.on("data", (d) => {
			this.stderr += d;
			log(`[pi stderr] ${d.trimEnd()}`);
		});
		let buf = Buffer.alloc(0);
		this.proc.stdout.on("data", (d) => {
			buf = Buffer.concat([buf, d]);
			let nl;
			while ((nl = buf.indexOf(0x0a)) >= 0) {
				const line = buf.subarray(0, nl).toString("utf8").replace(/\r$/, "");
				buf = buf.subarray(nl + 1);
				if (!line.trim()) continue;
				let rec;
				try {
					rec = JSON.parse(line);
				} catch {
					log(`non-JSON stdout: ${line.slice(0, 200)}`);
					continue;
				}
				this.onRecord(rec);
			}
		});
		this.exited = new Promise((r) => this.proc.on("exit", (code, sig) => r({ code, sig })));
	}
	onRecord(rec) {
		if (rec.type === "response") {
			const p = this.pending.get(rec.id);
			if (p) {
				this.pending.delete(rec.id);
				if (rec.success) p.resolve(rec.data ?? {});
				else p.reject(new Error(`${rec.command}: ${rec.error}`));
			}
			return;
		}
		if (rec.type === "extension_ui_request") {
			log(`ui ${rec.method}: ${JSON.stringify(rec).slice(0, 300)}`);
			if (rec.method === "notify") this.notifications.push({ step: this.step, type: rec.notifyType ?? "info", message: rec.message });
			if (rec.method === "select") {
				this.selects.push({ step: this.step, title: rec.title, options: rec.options });
				const answer = this.selectAnswers.shift();
				this.write(answer ? { type: "extension_ui_response", id: rec.id, value: answer } : { type: "extension_ui_response", id: rec.id, cancelled: true });
			} else if (["confirm", "input", "editor"].includes(rec.method)) {
				this.write({ type: "extension_ui_response", id: rec.id, cancelled: true });
			}
			for (const w of [...this.waiters]) if (w.pred(rec)) this.settle(w, rec);
			return;
		}
		this.events.push({ step: this.step, requestsSoFar: this.requestCount?.() ?? null, ...rec });
		if (rec.type?.startsWith("compaction") || rec.type === "agent_settled") log(`event ${rec.type} ${JSON.stringify(rec).slice(0, 200)}`);
		for (const w of [...this.waiters]) if (w.pred(rec)) this.settle(w, rec);
	}
	settle(w, rec) {
		this.waiters.splice(this.waiters.indexOf(w), 1);
		w.resolve(rec);
	}
	write(obj) {
		this.proc.stdin.write(JSON.stringify(obj) + "\n");
	}
	waitFor(pred, what, timeoutMs = 60000) {
		return new Promise((resolve, reject) => {
			const t = setTimeout(() => reject(new Error(`timeout waiting for ${what} (step ${this.step})`)), timeoutMs);
			this.waiters.push({ pred, resolve: (r) => (clearTimeout(t), resolve(r)) });
		});
	}
	command(cmd, timeoutMs = 60000) {
		const id = `c${++this.seq}`;
		return new Promise((resolve, reject) => {
			const t = setTimeout(() => reject(new Error(`timeout on ${cmd.type} (step ${this.step})`)), timeoutMs);
			this.pending.set(id, {
				resolve: (d) => (clearTimeout(t), resolve(d)),
				reject: (e) => (clearTimeout(t), reject(e)),
			});
			this.write({ id, ...cmd });
		});
	}
	/** A prompt that starts a run: wait until pi has settled. */
	async prompt(message) {
		const settled = this.waitFor((e) => e.type === "agent_settled", "agent_settled", 120000);
		const data = await this.command({ type: "prompt", message });
		if (data.disposition === "handled") {
			settled.catch(() => {});
			return data;
		}
		await settled;
		return data;
	}
	/** An extension command (`/shake …`): pi answers once the handler has finished. */
	async slash(line) {
		return this.command({ type: "prompt", message: line }, 120000);
	}
	async close() {
		this.proc.stdin.end();
		const timer = setTimeout(() => this.proc.kill("SIGTERM"), 15000);
		const r = await this.exited;
		clearTimeout(timer);
		return r;
	}
}

function sha(file) {
	return createHash("sha256").update(readFileSync(file)).digest("hex");
}

function sessionFileIn(dir, except = null) {
	const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl") && join(dir, f) !== except);
	if (files.length !== 1) throw new Error(`expected one session file in ${dir}, found ${files.length}`);
	return join(dir, files[0]);
}

/** Six big reads in two prompts, then a short turn. */
function scriptReads(mock) {
	mock.script(
		tools([call("t1", "read", { path: "big1.txt" })], "Reading big1.txt.", "The user wants three files read; start with big1.txt."),
		tools([call("t2", "read", { path: "big2.txt" })], "Now big2.txt.", "big1.txt is a list of values; next big2.txt."),
		tools([call("t3", "bash", { command: "grep -c line big3.txt && tail -n 40 big3.txt" })], "Counting lines in big3.txt."),
		text("I read big1.txt, big2.txt and big3.txt; nothing unusual."),
		tools([call("t4", "read", { path: "big4.txt" })], "Reading big4.txt."),
		tools([call("t5", "read", { path: "big5.txt" })], "And big5.txt."),
		text("big4.txt and big5.txt look fine too."),
	);
}

/** A `pi-shake` in `dir` that runs the binary under test (a script: no copy, no symlink). */
function wrapper(dir) {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "pi-shake"), `#!/bin/sh\nexec "${BIN}" "$@"\n`, { mode: 0o755 });
}

async function main() {
	if (!SCENARIO || !BIN || !WORK) throw new Error("usage: drive.mjs --scenario compact|fallback|shake --bin PATH --work DIR");
	if (!existsSync(CLI)) throw new Error(`pi CLI not found at ${CLI}; run npm ci in tests/interop/gen`);
	const t0 = Date.now();
	rmSync(WORK, { recursive: true, force: true });
	const agentDir = join(WORK, "agent");
	const cwd = join(WORK, "project");
	const sessionDir = join(WORK, "sessions");
	const home = join(WORK, "home");
	const tmp = join(WORK, "tmp");
	const binDir = join(WORK, "bin");
	for (const d of [agentDir, cwd, sessionDir, home, tmp, binDir]) mkdirSync(d, { recursive: true });
	for (let i = 1; i <= 5; i++) writeFileSync(join(cwd, `big${i}.txt`), bigFile(`big${i}`, 9000));
	writeFileSync(join(cwd, "README.md"), "# demo project\n\nA scratch project for the pi-shake extension test.\n");

	const mock = new MockServer({ log: (m) => process.stderr.write(`[mock] ${m}\n`), vlog: log });
	await mock.start();
	mock.reset(SCENARIO);

	const env = piEnv({ agentDir, home, tmp });
	let settings = {};
	const marks = {};
	const hashes = {};
	const responses = {};
	let pi;
	try {
		if (SCENARIO === "compact" || SCENARIO === "fallback") {
			// The threshold (contextWindow 128,000 − reserveTokens) sits between the context after
			// the first prompt (~6.6k tokens) and after the second (~11.4k).
			settings = { compaction: { enabled: true, reserveTokens: 128000 - 9000, keepRecentTokens: 3000 } };
			env.PI_SHAKE_BIN = SCENARIO === "compact" ? BIN : join(WORK, "missing", "pi-shake");
			mock.scriptSummary("MOCK-PI-SUMMARY: pi's own summary of the reads.", "MOCK-PI-SUMMARY-2: pi's own summary again.");
		} else if (SCENARIO === "shake") {
			// Found on PATH (a symlink-free copy location is not needed: a wrapper script).
			wrapper(binDir);
			env.PATH = `${binDir}:${env.PATH}`;
			settings = { shake: { profile: "aggressive" } };
		} else if (SCENARIO === "auto") {
			settings = { shake: { profile: "aggressive", auto: { enabled: true, threshold: 0.08 } } };
			// Found where `cargo install` puts it, ~/.cargo/bin; no directory of this pi's PATH
			// holds a pi-shake.
			wrapper(join(home, ".cargo", "bin"));
			env.PATH = env.PATH.split(":").filter((d) => d && !existsSync(join(d, "pi-shake"))).join(":");
		} else if (SCENARIO === "overflow") {
			// No threshold compaction (pi's default reserve on a 128,000 window): only the
			// provider's overflow error makes pi compact.
			env.PI_SHAKE_BIN = BIN;
			settings = PI_CUT_3000;
		} else if (SCENARIO === "abort") {
			// `compact` waits 30 s before the real binary runs (its handshake does not); killing the
			// wrapper stops the sleep, whose output goes elsewhere (the wrapper's pipes close).
			const slow = join(binDir, "pi-shake-slow");
			writeFileSync(slow, `#!/bin/sh\nif [ "$1" = compact ]; then\n  sleep 30 >/dev/null 2>&1 &\n  p=$!\n  trap 'kill $p; exit 143' TERM\n  wait $p\nfi\nexec "${BIN}" "$@"\n`, { mode: 0o755 });
			env.PI_SHAKE_BIN = slow;
			settings = PI_CUT_3000;
		} else if (SCENARIO === "tree") {
			env.PI_SHAKE_BIN = BIN;
			settings = PI_CUT_3000;
		} else if (SCENARIO === "recall") {
			env.PI_SHAKE_BIN = BIN;
			settings = argv.includes("--no-recall") ? { ...PI_CUT_3000, shake: { recall: false } } : PI_CUT_3000;
		} else if (SCENARIO === "resume") {
			// A session an old pi (0.30.2, no `version` in its header) wrote, resumed in pi 1.6 with
			// the extension: pi migrates the file on open, then /compact goes through pi-shake.
			env.PI_SHAKE_BIN = BIN;
			settings = PI_CUT_3000;
			// The header names the directory the old pi ran in; a user resumes in their project,
			// so the copy names this run's (pi 1.6 will not resume a session whose directory is gone).
			const [header, ...rest] = readFileSync(RESUME_FIXTURE, "utf8").split("\n");
			const h = JSON.parse(header);
			h.cwd = cwd;
			writeFileSync(join(sessionDir, "resumed.jsonl"), [JSON.stringify(h), ...rest].join("\n"));
		} else if (SCENARIO === "old") {
			const fake = join(binDir, "pi-shake-old");
			writeFileSync(fake, `#!/bin/sh\necho '{"schemaVersion":1,"name":"pi-shake","version":"0.0.1","protocol":0,"features":[]}'\n`, { mode: 0o755 });
			env.PI_SHAKE_BIN = fake;
			settings = PI_CUT_3000;
		} else throw new Error(`unknown scenario ${SCENARIO}`);
		writeAgentDir(agentDir, mock.baseUrl, settings);
		const extra = SCENARIO === "tree" ? [resolve(HERE, "../../../tests/interop/gen/navtree-extension.mjs")] : [];
		const args = SCENARIO === "resume" ? ["--session", join(sessionDir, "resumed.jsonl")] : [];
		pi = new Pi({ agentDir, cwd, sessionDir, env, extra, args });
		pi.requestCount = () => mock.requests.length;
		const mark = (name) => {
			pi.step = name;
			marks[name] = mock.requests.length;
		};

		if (SCENARIO === "compact" || SCENARIO === "fallback") {
			scriptReads(mock);
			mock.script(
				tools([call("t6", "read", { path: "big1.txt" })], "Re-reading big1.txt."),
				tools([call("t7", "bash", { command: "wc -l big2.txt big3.txt" })], "Counting."),
				text("Continuing after the compaction."),
				text("Done after the manual compaction."),
			);
			mark("prompt1");
			await pi.prompt("Please read big1.txt, big2.txt and big3.txt.");
			mark("prompt2");
			await pi.prompt("Now read big4.txt and big5.txt.");
			mark("prompt3");
			await pi.prompt("Continue.");
			mark("manual");
			responses.manual = await pi.command({ type: "compact", customInstructions: "focus on big5.txt" }, 120000).catch((e) => ({ error: e.message }));
			mark("prompt4");
			await pi.prompt("Anything else?");
			mark("end");
		} else if (SCENARIO === "auto") {
			scriptReads(mock);
			mock.script(text("Continuing with the folded context."));
			mark("prompt1");
			await pi.prompt("Please read big1.txt, big2.txt and big3.txt.");
			mark("prompt2");
			const folded = pi.waitFor((r) => r.method === "notify" && /auto-shake/.test(r.message ?? ""), "the auto-shake notification");
			await pi.prompt("Now read big4.txt and big5.txt.");
			await folded;
			mark("prompt3");
			await pi.prompt("Continue.");
			mark("end");
		} else if (SCENARIO === "overflow") {
			mock.script(
				tools([call("t1", "read", { path: "big1.txt" })], "Reading big1.txt."),
				tools([call("t2", "read", { path: "big2.txt" })], "Now big2.txt."),
				tools([call("t3", "read", { path: "big3.txt" })], "And big3.txt."),
				text("I read big1.txt, big2.txt and big3.txt."),
				// The wording of an OpenAI-compatible server (one of pi-ai's overflow patterns).
				{ error: { status: 400, type: "invalid_request_error", message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages." } },
				tools([call("t4", "read", { path: "big4.txt" })], "Reading big4.txt after the compaction."),
				text("big4.txt read on the compacted context."),
			);
			mark("prompt1");
			await pi.prompt("Please read big1.txt, big2.txt and big3.txt.");
			mark("prompt2");
			const compacted = pi.waitFor((r) => r.type === "compaction_end", "the overflow compaction", 120000);
			// The retry is a fresh run pi starts after the compaction: wait for its last request.
			const retried = pi.waitFor((r) => r.type === "agent_settled" && pi.requestCount() >= 7, "the retried run", 120000);
			await pi.prompt("Now read big4.txt.");
			await compacted;
			await retried;
			mark("end");
		} else if (SCENARIO === "abort") {
			scriptReads(mock);
			mock.script(text("Continuing without a compaction."));
			mark("prompt1");
			await pi.prompt("Please read big1.txt, big2.txt and big3.txt.");
			mark("prompt2");
			await pi.prompt("Now read big4.txt and big5.txt.");
			mark("manual");
			const started = pi.waitFor((r) => r.type === "compaction_start", "the compaction's start");
			const manual = pi.command({ type: "compact" }, 120000).then(
				(d) => ({ data: d }),
				(e) => ({ error: e.message }),
			);
			await started;
			// Give the hook time to start the binary, then abort as Esc does.
			await new Promise((r) => setTimeout(r, 1500));
			const t = Date.now();
			responses.abort = await pi.command({ type: "abort" }, 60000).catch((e) => ({ error: e.message }));
			responses.manual = await manual;
			responses.abortMs = Date.now() - t;
			mark("prompt3");
			await pi.prompt("Continue.");
			mark("end");
		} else if (SCENARIO === "tree") {
			scriptReads(mock);
			mock.script(text("Back on the first branch."));
			mark("prompt1");
			await pi.prompt("Please read big1.txt, big2.txt and big3.txt.");
			mark("prompt2");
			await pi.prompt("Now read big4.txt and big5.txt.");
			const entries = (await pi.command({ type: "get_entries" })).entries;
			const answer = entries.find((e) => e.type === "message" && e.message.role === "assistant" && JSON.stringify(e.message.content).includes("I read big1.txt"));
			responses.navigatedTo = answer.id;
			const file = sessionFileIn(sessionDir);
			mark("navtree");
			await pi.slash(`/navtree ${answer.id}`);
			hashes.beforeShake = sha(file);
			mark("shake");
			responses.shake = await pi.slash("/shake elide");
			hashes.afterShake = sha(file);
			mark("manual");
			responses.manual = await pi.command({ type: "compact" }, 120000).catch((e) => ({ error: e.message }));
			mark("prompt3");
			await pi.prompt("Continue from here.");
			mark("end");
		} else if (SCENARIO === "recall") {
			scriptReads(mock);
			mark("prompt1");
			await pi.prompt("Please read big1.txt, big2.txt and big3.txt.");
			mark("prompt2");
			await pi.prompt("Now read big4.txt and big5.txt.");
			mark("manual");
			responses.manual = await pi.command({ type: "compact" }, 120000).catch((e) => ({ error: e.message }));
			// The id of the first call the summary names with lines cut: `(t12; 40 of 900 lines)`.
			const file = sessionFileIn(sessionDir);
			const entries = readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
			const summary = [...entries].reverse().find((e) => e.type === "compaction")?.summary ?? "";
			const cut = [...summary.matchAll(/\((t\d+(?:_\d+)?[a-z]?);(?: error;)? ([\d,]+) of ([\d,]+) lines\)/g)].find((m) => m[2] !== m[3]);
			responses.recallId = cut?.[1] ?? null;
			if (argv.includes("--clone")) {
				mark("clone");
				responses.clone = await pi.command({ type: "clone" });
				responses.clonedFrom = file;
			}
			mock.script(
				tools([call("r1", "shake_recall", { id: cut?.[1] ?? "t1", limit: 5000 })], "Reading back what the summary cut."),
				tools([call("r2", "shake_recall", { pattern: "BIG4 line 00100" })], "Looking for one line."),
				text("Recalled it."),
			);
			mark("prompt3");
			await pi.prompt("What exactly did that output say?");
			mark("end");
		} else if (SCENARIO === "resume") {
			mock.script(text("Continuing the resumed session."));
			mark("manual");
			responses.manual = await pi.command({ type: "compact" }, 120000).catch((e) => ({ error: e.message }));
			mark("prompt1");
			await pi.prompt("Continue where we left off.");
			mark("end");
		} else if (SCENARIO === "old") {
			scriptReads(mock);
			mock.script(text("Still working."));
			mark("prompt1");
			await pi.prompt("Please read big1.txt, big2.txt and big3.txt.");
			mark("status");
			responses.status = await pi.slash("/shake status");
			mark("shake");
			responses.shake = await pi.slash("/shake elide");
			mark("manual");
			responses.manual = await pi.command({ type: "compact" }, 120000).catch((e) => ({ error: e.message }));
			mark("prompt2");
			await pi.prompt("Now read big4.txt and big5.txt.");
			// The user updates pi-shake while pi runs: the next command asks the new binary.
			writeFileSync(join(binDir, "pi-shake-old"), `#!/bin/sh\nexec "${BIN}" "$@"\n`, { mode: 0o755 });
			mark("updated");
			responses.updated = await pi.slash("/shake status");
			mark("end");
		} else {
			scriptReads(mock);
			mock.script(text("Continuing with the folded context."), text("Continuing with everything restored."));
			mark("prompt1");
			await pi.prompt("Please read big1.txt, big2.txt and big3.txt.");
			mark("prompt2");
			await pi.prompt("Now read big4.txt and big5.txt.");
			const file = sessionFileIn(sessionDir);
			mark("shake");
			hashes.beforeShake = sha(file);
			pi.selectAnswers.push("elide");
			responses.shake = await pi.slash("/shake");
			hashes.afterShake = sha(file);
			mark("prompt3");
			await pi.prompt("Continue.");
			mark("dryrun");
			hashes.beforeDryRun = sha(file);
			responses.dryrun = await pi.slash("/shake dry-run thinking");
			hashes.afterDryRun = sha(file);
			mark("status");
			responses.status = await pi.slash("/shake status");
			hashes.afterStatus = sha(file);
			mark("undo");
			responses.undo = await pi.slash("/shake undo");
			hashes.afterUndo = sha(file);
			mark("prompt4");
			await pi.prompt("Continue again.");
			mark("end");
		}
		const closed = await pi.close();
		const sessionFile = sessionFileIn(sessionDir, responses.clonedFrom ?? null);
		const out = {
			ok: true,
			scenario: SCENARIO,
			sessionFile,
			requests: mock.requests.map((r) => {
				const sys = (r.messages ?? []).find((m) => m.role === "system" || m.role === "developer");
				const sysText = typeof sys?.content === "string" ? sys.content : JSON.stringify(sys?.content ?? "");
				return {
					kind: sysText.startsWith("You are a context summarization assistant") ? "summarization" : "turn",
					tools: (r.tools ?? []).map((t) => t.function?.name ?? t.name),
					messages: r.messages,
				};
			}),
			marks,
			hashes,
			notifications: pi.notifications,
			selects: pi.selects,
			responses,
			events: pi.events.filter((e) => e.type?.startsWith("compaction")),
			unexpectedRequests: mock.unexpected,
			exit: closed,
			ms: Date.now() - t0,
		};
		process.stdout.write(JSON.stringify(out) + "\n");
	} catch (e) {
		process.stdout.write(JSON.stringify({ ok: false, error: String(e?.stack ?? e), stderr: pi?.stderr ?? "", notifications: pi?.notifications ?? [], marks }) + "\n");
		process.exitCode = 1;
		if (pi) pi.proc.kill("SIGTERM");
	} finally {
		await mock.stop();
	}
}

main().catch((e) => {
	process.stdout.write(JSON.stringify({ ok: false, error: String(e?.stack ?? e) }) + "\n");
	process.exitCode = 1;
});
