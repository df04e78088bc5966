#!/usr/bin/env node
// Fixture generator: drives the REAL pi 1.6.0 CLI (RPC mode) against a scripted mock
// OpenAI chat-completions server on 127.0.0.1, so pi itself runs its real tools and writes
// real session files. The results are copied to sessions-fixtures/pi/.
//
// Run through ./run.sh (installs Node 22 + pi from the npm registry). Directly:
//   node22 tests/interop/gen/generate.mjs [--only NAME[,NAME...]] [--out DIR] [--keep] [--verbose]
//                                         [--cli PATH/cli.js [--no-extension] [--legacy-events]]
//
// Deterministic where possible: all prompts, model replies, tool calls, tool-call ids and
// scratch files are fixed; the scratch project always lives at /tmp/pi-shake-gen/<scenario>/project
// so header `cwd` values are stable. pi's entry ids, session ids and timestamps are random.

import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { MockServer, PI_CLI, piEnv, writeAgentDir } from "./mock-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const EXTENSION = join(HERE, "navtree-extension.mjs");
const SCRATCH_ROOT = "/tmp/pi-shake-gen";

const args = process.argv.slice(2);
const argValue = (name) => {
	const i = args.indexOf(name);
	return i >= 0 ? args[i + 1] : undefined;
};
const ONLY = argValue("--only")?.split(",");
const OUT = resolve(argValue("--out") ?? join(HERE, "..", "..", "..", "sessions-fixtures", "pi"));
const KEEP = args.includes("--keep");
// Another pi CLI (an older release, for the cross-version check): its `cli.js`. The default is
// the pinned pi 1.6.0. `--no-extension` for releases without `-e` (the branches scenario needs it).
const CLI = resolve(argValue("--cli") ?? PI_CLI);
const NO_EXTENSION = args.includes("--no-extension");
// Releases before `agent_settled`: a prompt is done at `agent_end` (plus a moment for the writes).
const LEGACY_EVENTS = args.includes("--legacy-events");
const VERBOSE = args.includes("--verbose");

const log = (...a) => process.stderr.write(`[gen] ${a.join(" ")}\n`);
const vlog = (...a) => VERBOSE && log(...a);

// The mock OpenAI chat-completions server and the agent-dir setup live in mock-server.mjs.

// Reply builders ------------------------------------------------------------------------------
const text = (t, thinking) => ({ text: t, thinking });
const call = (id, name, args) => ({ id, name, args });
const tools = (list, { text: t, thinking } = {}) => ({ tools: list, text: t, thinking });
const httpError = (status, message, headers) => ({ error: { status, message, headers } });
const streamError = (partialText, message) => ({ text: partialText, streamError: message });

// =============================================================================================
// pi RPC driver
// =============================================================================================

class Pi {
	constructor({ agentDir, cwd, sessionDir, name }) {
		this.name = name;
		this.events = [];
		this.waiters = [];
		this.pending = new Map();
		this.seq = 0;
		const argv = [
			CLI,
			"--mode",
			"rpc",
			"--provider",
			"mock",
			"--model",
			"mock-coder",
			"--thinking",
			"medium",
			"--session-dir",
			sessionDir,
			...(NO_EXTENSION ? [] : ["-e", EXTENSION]),
		];
		this.proc = spawn(process.execPath, argv, {
			cwd,
			env: piEnv({ agentDir, home: join(cwd, "..", "home"), tmp: join(cwd, "..", "tmp") }),
			stdio: ["pipe", "pipe", "pipe"],
		});
		this.stderr = "";
		this.proc.stderr.setEncoding("utf8");
		this.proc.stderr.on("data", (d) => {
			this.stderr += d;
			vlog(`[pi stderr] ${d.trimEnd()}`);
		});
		let buf = Buffer.alloc(0);
		this.proc.stdout.on("data", (d) => {
			buf = Buffer.concat([buf, d]);
			let nl;
			while ((nl = buf.indexOf(0x0a)) >= 0) {
				const line = buf.subarray(0, nl).toString("utf8").replace(/\r$/, "");
				buf = buf.subarray(nl + 1);
				if (line.trim()) this.onRecord(JSON.parse(line));
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
			} else vlog(`response without waiter: ${JSON.stringify(rec).slice(0, 200)}`);
			return;
		}
		if (rec.type === "extension_ui_request") {
			vlog(`ui request: ${JSON.stringify(rec).slice(0, 300)}`);
			// Answer dialogs conservatively so pi never blocks.
			if (["select", "confirm", "input", "editor"].includes(rec.method)) {
				this.write({ type: "extension_ui_response", id: rec.id, cancelled: true });
			}
			return;
		}
		this.events.push(rec);
		if (["auto_retry_start", "auto_retry_end", "compaction_start", "compaction_end", "agent_settled"].includes(rec.type))
			vlog(`event ${rec.type} ${JSON.stringify(rec).slice(0, 160)}`);
		for (const w of [...this.waiters]) {
			if (w.pred(rec)) {
				this.waiters.splice(this.waiters.indexOf(w), 1);
				w.resolve(rec);
			}
		}
	}
	write(obj) {
		this.proc.stdin.write(JSON.stringify(obj) + "\n");
	}
	waitEvent(pred, timeoutMs = 60000) {
		return new Promise((resolve, reject) => {
			const t = setTimeout(() => reject(new Error(`${this.name}: timeout waiting for event`)), timeoutMs);
			this.waiters.push({
				pred,
				resolve: (r) => {
					clearTimeout(t);
					resolve(r);
				},
			});
		});
	}
	command(cmd, timeoutMs = 60000) {
		const id = `c${++this.seq}`;
		return new Promise((resolve, reject) => {
			const t = setTimeout(() => reject(new Error(`${this.name}: timeout on ${cmd.type}`)), timeoutMs);
			this.pending.set(id, {
				resolve: (d) => {
					clearTimeout(t);
					resolve(d);
				},
				reject: (e) => {
					clearTimeout(t);
					reject(e);
				},
			});
			this.write({ id, ...cmd });
		});
	}
	/** Send a prompt and wait until pi has settled (all turns, retries, compactions done). */
	async prompt(message, extra = {}) {
		const settled = this.waitEvent((e) => e.type === (LEGACY_EVENTS ? "agent_end" : "agent_settled"), 120000);
		const data = await this.command({ type: "prompt", message, ...extra });
		if (data.disposition === "handled") {
			settled.catch(() => {});
			return data;
		}
		await settled;
		if (LEGACY_EVENTS) await new Promise((r) => setTimeout(r, 300));
		return data;
	}
	async entries() {
		return (await this.command({ type: "get_entries" })).entries;
	}
	async state() {
		return this.command({ type: "get_state" });
	}
	async close() {
		this.proc.stdin.end();
		const timer = setTimeout(() => this.proc.kill("SIGTERM"), 15000);
		const r = await this.exited;
		clearTimeout(timer);
		return r;
	}
}

// =============================================================================================
// Scenario environment
// =============================================================================================

function setupEnv(name, mock, { settings = {}, files = {} } = {}) {
	const root = join(SCRATCH_ROOT, name);
	rmSync(root, { recursive: true, force: true });
	const agentDir = join(root, "agent");
	const cwd = join(root, "project");
	const sessionDir = join(root, "sessions");
	for (const d of [agentDir, cwd, sessionDir, join(root, "home"), join(root, "tmp")]) mkdirSync(d, { recursive: true });
	writeAgentDir(agentDir, mock.baseUrl, settings);
	for (const [rel, content] of Object.entries(files)) {
		const p = join(cwd, rel);
		mkdirSync(dirname(p), { recursive: true });
		writeFileSync(p, content);
	}
	mock.reset(name);
	return { root, agentDir, cwd, sessionDir, name };
}

function collectSessions(env) {
	return readdirSync(env.sessionDir)
		.filter((f) => f.endsWith(".jsonl"))
		.sort()
		.map((f) => join(env.sessionDir, f));
}

// Fixed content ---------------------------------------------------------------------------------

function bigTextFile(lines) {
	const out = [];
	for (let i = 1; i <= lines; i++) {
		out.push(`${String(i).padStart(5, "0")}: the quick brown fox jumps over the lazy dog; checksum=${(i * 2654435761) % 1000003}`);
	}
	return out.join("\n") + "\n";
}

const MAIN_RS = `use std::env;

fn parse_args() -> Vec<String> {
    env::args().skip(1).collect()
}

fn main() {
    let args = parse_args();
    if args.is_empty() {
        eprintln!("usage: demo <name>");
        std::process::exit(2);
    }
    println!("hello, {}", args[0]);
}
`;

const NOTES_MD = `# Notes

Build with:

\`\`\`sh
cargo build --release
\`\`\`

Alternative fence:

~~~toml
[package]
name = "demo"
version = "0.1.0"
~~~

<file path="src/lib.rs">
pub fn answer() -> u32 { 42 }
</file>
`;

function pngFile(w, h, rgb) {
	const crcTable = [];
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		crcTable[n] = c >>> 0;
	}
	const crc = (buf) => {
		let c = 0xffffffff;
		for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
		return (c ^ 0xffffffff) >>> 0;
	};
	const chunk = (type, data) => {
		const len = Buffer.alloc(4);
		len.writeUInt32BE(data.length);
		const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
		const c = Buffer.alloc(4);
		c.writeUInt32BE(crc(td));
		return Buffer.concat([len, td, c]);
	};
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(w, 0);
	ihdr.writeUInt32BE(h, 4);
	ihdr[8] = 8;
	ihdr[9] = 2;
	const raw = Buffer.alloc((w * 3 + 1) * h);
	for (let y = 0; y < h; y++) {
		raw[y * (w * 3 + 1)] = 0;
		for (let x = 0; x < w; x++) {
			const o = y * (w * 3 + 1) + 1 + x * 3;
			const checker = ((x >> 2) + (y >> 2)) % 2 === 0;
			raw[o] = checker ? rgb[0] : 255;
			raw[o + 1] = checker ? rgb[1] : 255;
			raw[o + 2] = checker ? rgb[2] : 255;
		}
	}
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk("IHDR", ihdr),
		chunk("IDAT", deflateSync(raw)),
		chunk("IEND", Buffer.alloc(0)),
	]);
}

function fencedUserText(n) {
	// User text of varying size mixing ``` / ~~~ fences and <file> blocks.
	const body = [];
	for (let i = 0; i < n; i++) body.push(`    let v${i} = compute(${i}); // step ${i}`);
	return [
		`Here is the function I am worried about (${n} lines):`,
		"",
		"```rust",
		"fn compute_all() {",
		...body,
		"}",
		"```",
		"",
		"And the config as we ship it:",
		"",
		"~~~toml",
		"[profile.release]",
		"lto = true",
		"~~~",
		"",
		'<file path="Cargo.toml">',
		"[package]",
		'name = "demo"',
		"</file>",
		"",
		"Please check the numbers with seq and read big.txt.",
	].join("\n");
}

function fencedAssistantText(n) {
	const rows = [];
	for (let i = 0; i < n; i++) rows.push(`| ${i} | ${i * i} | ok |`);
	return [
		"Here is what I found.",
		"",
		"```text",
		"seq output ends at 20000 (truncated by the bash tool to the last lines)",
		"```",
		"",
		"| n | n² | status |",
		"|---|---|---|",
		...rows,
		"",
		"~~~diff",
		"- let x = 1;",
		"+ let x = 2;",
		"~~~",
		"",
		'<file path="src/main.rs">',
		"fn main() {}",
		"</file>",
		"",
		"Nested fence example:",
		"",
		"````markdown",
		"```js",
		"console.log(1)",
		"```",
		"````",
	].join("\n");
}

// =============================================================================================
// Scenarios
// =============================================================================================

const scenarios = {};

// 1. Multi-turn, big bash/read outputs, fences and XML-ish blocks, edit/write tools, thinking.
scenarios["tools-large-output"] = async (mock) => {
	const env = setupEnv("tools-large-output", mock, {
		files: { "big.txt": bigTextFile(600), "src/main.rs": MAIN_RS, "notes.md": NOTES_MD },
	});
	mock.script(
		tools([call("call_t1_1", "bash", { command: "seq 1 20000" })], {
			thinking: "The user wants the numbers checked. Start with seq, then read big.txt.",
		}),
		tools([call("call_t1_2", "read", { path: "big.txt" })], { text: "Now reading big.txt." }),
		tools([call("call_t1_2b", "bash", { command: "seq 1 12000 | paste -d' ' - - - - - - - - - -" })], {
			text: "And the same numbers ten per line (about 70k chars, the bash tool keeps the last 50 KB).",
		}),
		text(fencedAssistantText(40), "Both outputs are large; summarize them in a table."),
		// turn 2
		tools([call("call_t1_3", "bash", { command: "cat notes.md && wc -l big.txt" }), call("call_t1_4", "read", { path: "src/main.rs" })], {
			thinking: "Look at notes and main.rs in parallel.",
		}),
		tools(
			[
				call("call_t1_5", "edit", {
					path: "src/main.rs",
					edits: [{ oldText: 'println!("hello, {}", args[0]);', newText: 'println!("hello, {}!", args[0]);' }],
				}),
			],
			{ text: "I will add an exclamation mark." },
		),
		tools([call("call_t1_6", "write", { path: "src/lib.rs", content: "pub fn answer() -> u32 {\n    42\n}\n" })]),
		text("Done: `src/main.rs` edited and `src/lib.rs` written.\n\n~~~rust\npub fn answer() -> u32 { 42 }\n~~~"),
		// turn 3
		tools([call("call_t1_7", "bash", { command: "for i in $(seq 1 300); do echo \"<file path=\\\"gen/$i.txt\\\">line $i</file>\"; done" })]),
		text("That printed 300 `<file>` lines; nothing else to do."),
		// turn 4
		text("Short answer: yes.", "Trivial question."),
	);
	const pi = new Pi(env);
	// User `!cmd` style runs (RPC `bash`): bashExecution messages, one excluded from context, one failing.
	await pi.command({ type: "bash", command: "ls -1 && wc -c big.txt" });
	await pi.command({ type: "bash", command: "head -n 400 big.txt", excludeFromContext: true });
	await pi.command({ type: "bash", command: "cat missing-file.txt" });
	await pi.prompt(fencedUserText(60));
	await pi.prompt("Now look at notes.md and src/main.rs, then make main print an exclamation mark and add src/lib.rs.");
	await pi.prompt("Print 300 <file> lines with bash, please.\n\n<file path=\"x\">\nsmall\n</file>");
	await pi.prompt("/customentry shake-demo {\"op\":\"note\",\"count\":1}");
	await pi.prompt("/custommsg reminder Remember: run the tests before finishing.\n\n```sh\ncargo test\n```");
	await pi.prompt("```\nIs that all?\n```");
	await pi.close();
	return collectSessions(env).map((p) => ({ src: p, name: "tools-large-output.jsonl" }));
};

// 2. Tool errors (non-zero bash exit, read of a missing file) later succeeding.
scenarios["tool-error-then-success"] = async (mock) => {
	const env = setupEnv("tool-error-then-success", mock, { files: { "README.md": "# demo\n" } });
	const CHECK = "test -f build.ok && echo build ok || { echo 'error: build.ok missing' >&2; exit 3; }";
	mock.script(
		tools([call("call_e_1", "bash", { command: CHECK })], { thinking: "Run the check first." }),
		tools([call("call_e_2", "read", { path: "docs/guide.md" })], { text: "The check failed; let me look at the guide." }),
		text("The check fails (exit 3) and docs/guide.md does not exist."),
		// turn 2: fix
		tools([call("call_e_3", "bash", { command: "touch build.ok" }), call("call_e_4", "write", { path: "docs/guide.md", content: "# Guide\n\nRun the check.\n" })]),
		text("Created build.ok and docs/guide.md."),
		// turn 3: same commands succeed
		tools([call("call_e_5", "bash", { command: CHECK })]),
		tools([call("call_e_6", "read", { path: "docs/guide.md" })]),
		text("Both succeed now."),
		// turn 4: another failing command, then success with the same command
		tools([call("call_e_7", "bash", { command: "ls no-such-dir" })]),
		tools([call("call_e_8", "bash", { command: "mkdir -p no-such-dir && ls no-such-dir" })]),
		tools([call("call_e_9", "bash", { command: "ls no-such-dir" })]),
		text("`ls no-such-dir` failed first, then worked after mkdir."),
	);
	const pi = new Pi(env);
	await pi.prompt("Run the build check and read docs/guide.md.");
	await pi.prompt("Fix it: create build.ok and write docs/guide.md.");
	await pi.prompt("Run the same check and read the guide again.");
	await pi.prompt("List no-such-dir; create it if needed.");
	await pi.close();
	return collectSessions(env).map((p) => ({ src: p, name: "tool-error-then-success.jsonl" }));
};

// 3. Images: read tool on a PNG (image block in a tool result) and an image in a user prompt.
scenarios["image-read"] = async (mock) => {
	const png = pngFile(24, 16, [200, 30, 30]);
	const env = setupEnv("image-read", mock, { files: { "logo.png": png, "icon.png": pngFile(8, 8, [20, 120, 220]) } });
	mock.script(
		tools([call("call_i_1", "read", { path: "logo.png" })], { thinking: "Read the image file." }),
		text("The logo is a red and white checkerboard, 24x16 pixels."),
		tools([call("call_i_2", "read", { path: "icon.png" })]),
		text("The attached image and icon.png are both small checkerboards."),
	);
	const pi = new Pi(env);
	await pi.prompt("What does logo.png look like?");
	await pi.prompt("Compare this image with icon.png.", {
		images: [{ type: "image", data: pngFile(12, 12, [30, 160, 60]).toString("base64"), mimeType: "image/png" }],
	});
	await pi.close();
	return collectSessions(env).map((p) => ({ src: p, name: "image-read.jsonl" }));
};

// 4. Thinking blocks (reasoning_content deltas), incl. a long one and thinking-only + tool call.
scenarios["thinking"] = async (mock) => {
	const env = setupEnv("thinking", mock, { files: { "a.txt": "alpha\n" } });
	const longThinking = Array.from({ length: 80 }, (_, i) => `Step ${i + 1}: consider option ${i % 7} and its trade-offs carefully.`).join("\n");
	mock.script(
		text("The answer is 42.", "Let me think about this. 6 * 7 = 42."),
		tools([call("call_th_1", "read", { path: "a.txt" })], { thinking: longThinking }),
		text("a.txt contains `alpha`.", "The file has one line."),
		text("No thinking on this one."),
	);
	const pi = new Pi(env);
	await pi.prompt("What is six times seven?");
	await pi.prompt("Think hard, then read a.txt.");
	await pi.prompt("Anything else?");
	await pi.close();
	return collectSessions(env).map((p) => ({ src: p, name: "thinking.jsonl" }));
};

// 5. Manual compaction via RPC `compact`, more turns, then a second compaction and more turns.
scenarios["compaction-rpc"] = async (mock) => {
	const env = setupEnv("compaction-rpc", mock, { files: { "data.txt": bigTextFile(450) } });
	const script = [];
	for (let t = 1; t <= 8; t++) {
		script.push(
			tools([call(`call_c_${t}a`, "bash", { command: `seq ${t * 1000} ${t * 1000 + 6000}` })], { thinking: `Turn ${t}: list numbers.` }),
			tools([call(`call_c_${t}b`, "read", { path: "data.txt", offset: t * 20, limit: 300 })]),
			text(`Turn ${t} done: numbers ${t * 1000}..${t * 1000 + 6000} listed and data.txt lines ${t * 20}..${t * 20 + 299} read.`),
		);
	}
	mock.script(...script);
	mock.scriptSummary(
		"## Goal\nInspect numbers and data.txt in 8 passes.\n\n## Progress\n- Passes 1-6 done.\n\n## Next Steps\n- Finish remaining passes.",
	);
	const pi = new Pi(env);
	for (let t = 1; t <= 8; t++) await pi.prompt(`Pass ${t}: run seq for block ${t} and read data.txt at offset ${t * 20}.`);
	const c1 = await pi.command({ type: "compact" }, 120000);
	log(`compaction-rpc: first compact firstKept=${c1.firstKeptEntryId} tokensBefore=${c1.tokensBefore}`);
	const script2 = [];
	for (let t = 9; t <= 14; t++) {
		script2.push(
			tools([call(`call_c_${t}a`, "bash", { command: `seq ${t * 1000} ${t * 1000 + 6000}` })]),
			text(`Turn ${t} done.`),
		);
	}
	mock.script(...script2);
	for (let t = 9; t <= 14; t++) await pi.prompt(`Pass ${t}: run seq for block ${t}.`);
	mock.scriptSummary(
		"## Goal\nInspect numbers and data.txt.\n\n## Progress\n- Passes 1-12 done (updated summary).\n\n## Next Steps\n- Wrap up.",
	);
	const c2 = await pi.command({ type: "compact", customInstructions: "Focus on which passes are done." }, 120000);
	log(`compaction-rpc: second compact firstKept=${c2.firstKeptEntryId} tokensBefore=${c2.tokensBefore}`);
	mock.script(text("All passes are done."), tools([call("call_c_last", "bash", { command: "echo finished" })]), text("Finished."));
	await pi.prompt("Are we done?");
	await pi.prompt("Echo finished.");
	await pi.close();
	return collectSessions(env).map((p) => ({ src: p, name: "compaction-rpc.jsonl" }));
};

// 6. Branches in one file: navigate back (pi's navigateTree, like /tree) and continue; once with
//    a branch summary and a label; plus a session name.
scenarios["branches"] = async (mock) => {
	const env = setupEnv("branches", mock, { files: { "x.txt": "x\n" } });
	mock.script(
		text("Plan A: use a HashMap."),
		tools([call("call_b_1", "bash", { command: "echo plan-a > plan.txt && cat plan.txt" })]),
		text("Wrote plan A."),
		text("Plan A benchmark: 120 ms."),
	);
	const pi = new Pi(env);
	await pi.command({ type: "set_session_name", name: "Branch demo" });
	await pi.prompt("How should we store the index?");
	await pi.prompt("Write the plan to plan.txt.");
	await pi.prompt("Benchmark it.");
	let entries = await pi.entries();
	const users = entries.filter((e) => e.type === "message" && e.message.role === "user");
	// Branch 1: go back to the second user message (leaf = its parent), no summary, then a new prompt.
	await pi.prompt(`/navtree ${users[1].id}`);
	mock.script(text("Plan B: use a sorted Vec with binary search."), text("Plan B benchmark: 95 ms."));
	await pi.prompt("Actually, try a sorted Vec instead.");
	await pi.prompt("Benchmark plan B.");
	// Branch 2: go back to the first assistant reply with a branch summary + label.
	entries = await pi.entries();
	const firstAssistant = entries.find((e) => e.type === "message" && e.message.role === "assistant");
	mock.scriptSummary("Tried plan B (sorted Vec): 95 ms, faster than plan A's 120 ms.");
	await pi.prompt(`/navtree ${firstAssistant.id} summarize label=plan-b-explored`);
	mock.script(text("Plan C: a BTreeMap keeps order and is fast enough."));
	await pi.prompt("What about a BTreeMap?");
	entries = await pi.entries();
	const last = entries[entries.length - 1];
	await pi.prompt(`/setlabel ${last.id} plan-c`);
	// RPC fork: a NEW file holding only the active path up to before the chosen user message,
	// with header parentSession = this file; then one more turn in the fork.
	entries = await pi.entries();
	const lastUser = entries.filter((e) => e.type === "message" && e.message.role === "user").pop();
	await pi.command({ type: "fork", entryId: lastUser.id });
	mock.script(text("In the fork: let's benchmark the BTreeMap too."));
	await pi.prompt("Fork: benchmark the BTreeMap.");
	await pi.close();
	return collectSessions(env).map((p) => {
		const header = JSON.parse(readFileSync(p, "utf8").split("\n")[0]);
		return { src: p, name: header.parentSession ? "branches-fork.jsonl" : "branches.jsonl" };
	});
};

// 7. Auto-retry of retryable provider errors: pi writes `context_edit` replacement:null entries.
scenarios["retry-context-edit"] = async (mock) => {
	const env = setupEnv("retry-context-edit", mock, { files: { "r.txt": "retry me\n" } });
	mock.script(
		httpError(500, "Internal server error (mock)"),
		tools([call("call_r_1", "read", { path: "r.txt" })], { thinking: "Read the file." }),
		text("r.txt says: retry me."),
		// turn 2: 429 twice, then success
		httpError(429, "Rate limit exceeded (mock)", { "retry-after-ms": "5" }),
		httpError(429, "Rate limit exceeded (mock)", { "retry-after-ms": "5" }),
		text("Second answer after two rate limits."),
		// turn 3: a tool call turn, then a mid-stream failure with partial text, then success
		tools([call("call_r_2", "bash", { command: "echo step1" })]),
		streamError("I was saying that step1 printed", "Internal server error: upstream connection closed (mock)"),
		text("step1 printed `step1`."),
	);
	const pi = new Pi(env);
	await pi.prompt("Read r.txt.");
	await pi.prompt("Say something.");
	await pi.prompt("Run echo step1 and tell me what it printed.");
	await pi.close();
	return collectSessions(env).map((p) => ({ src: p, name: "retry-context-edit.jsonl" }));
};

// 8. One long session (~40 turns) with many tool results, for compaction tests.
scenarios["long-session"] = async (mock) => {
	const files = { "big.txt": bigTextFile(800), "src/main.rs": MAIN_RS, "notes.md": NOTES_MD };
	for (let i = 1; i <= 10; i++) files[`mod${i}.rs`] = MAIN_RS.replaceAll("hello", `hello from mod ${i}`).repeat(i);
	const env = setupEnv("long-session", mock, { files });
	const pi = new Pi(env);
	for (let t = 1; t <= 40; t++) {
		const kind = t % 4;
		const thinking = t % 3 === 0 ? `Turn ${t}: decide which tool to use.` : undefined;
		if (kind === 0) {
			mock.script(
				tools([call(`call_l_${t}a`, "bash", { command: `seq ${t} 3 ${t * 300}` })], { thinking }),
				tools([call(`call_l_${t}b`, "read", { path: `mod${(t % 10) + 1}.rs` })]),
				text(`Turn ${t}: seq and mod${(t % 10) + 1}.rs inspected.\n\n\`\`\`text\nok\n\`\`\``),
			);
		} else if (kind === 1) {
			mock.script(
				tools([call(`call_l_${t}a`, "read", { path: "big.txt", offset: t * 10, limit: 120 })], { thinking }),
				text(`Turn ${t}: read big.txt from line ${t * 10}.`),
			);
		} else if (kind === 2) {
			mock.script(
				tools(
					[
						call(`call_l_${t}a`, "bash", { command: `grep -c fox big.txt; ls -la` }),
						call(`call_l_${t}b`, "bash", { command: t % 8 === 2 ? "false" : `head -c ${t * 150} big.txt` }),
					],
					{ thinking },
				),
				text(`Turn ${t}: counted and listed.`),
			);
		} else {
			mock.script(text(`Turn ${t}: answer without tools.\n\n${fencedAssistantText(t % 5 + 2)}`, thinking));
		}
		await pi.prompt(t % 5 === 0 ? fencedUserText(t) : `Turn ${t}: please continue the review (step ${t}).`);
	}
	await pi.close();
	return collectSessions(env).map((p) => ({ src: p, name: "long-session.jsonl" }));
};

// =============================================================================================

async function main() {
	if (!existsSync(CLI)) throw new Error(`pi CLI not found at ${CLI}; run npm ci in ${HERE}`);
	const [major, minor] = process.versions.node.split(".").map(Number);
	if (major < 22 || (major === 22 && minor < 19)) throw new Error(`pi needs Node >= 22.19 (this is ${process.version}); use run.sh`);
	mkdirSync(OUT, { recursive: true });
	const mock = new MockServer({ log, vlog });
	await mock.start();
	log(`mock server at ${mock.baseUrl}; output ${OUT}`);
	const names = ONLY ?? Object.keys(scenarios);
	const written = [];
	let failed = 0;
	for (const name of names) {
		if (!scenarios[name]) throw new Error(`unknown scenario ${name}`);
		log(`scenario ${name} ...`);
		const t0 = Date.now();
		try {
			const outputs = await scenarios[name](mock);
			if (outputs.length === 0) throw new Error("pi wrote no session file");
			outputs.forEach((o, i) => {
				const dup = outputs.filter((x) => x.name === o.name).length > 1;
				const dest = join(OUT, dup ? o.name.replace(/\.jsonl$/, `-${i + 1}.jsonl`) : o.name);
				copyFileSync(o.src, dest);
				written.push(dest);
			});
			log(`scenario ${name}: ok (${mock.requests.length} model requests, ${Date.now() - t0} ms, leftover replies ${mock.queue.length})`);
			if (mock.queue.length) log(`WARNING: ${name}: ${mock.queue.length} scripted replies were not used`);
		} catch (e) {
			failed++;
			log(`scenario ${name}: FAILED: ${e.stack ?? e}`);
		}
		if (!KEEP) rmSync(join(SCRATCH_ROOT, name), { recursive: true, force: true });
	}
	await mock.stop();
	if (!KEEP) rmSync(SCRATCH_ROOT, { recursive: true, force: true });
	for (const w of written) process.stdout.write(`${w}\n`);
	if (mock.unexpected) log(`WARNING: ${mock.unexpected} unscripted model requests`);
	process.exit(failed ? 1 : 0);
}

main().catch((e) => {
	log(e.stack ?? String(e));
	process.exit(1);
});
