#!/usr/bin/env node
// Resume a session file with the REAL pi CLI against the mock model and report what pi sends.
//
//   node22 tests/interop/gen/resume-check.mjs --session FILE [--prompt TEXT] [--timeout MS] [--keep] [--verbose]
//
// Works on a COPY of FILE in a fresh temp dir (FILE is never touched). Starts the mock OpenAI
// chat-completions server (mock-server.mjs) on 127.0.0.1, an isolated agent dir whose models.json
// points at it, and runs `pi -p --session COPY --provider mock --model mock-coder PROMPT` in the
// session's working directory. pi loads the session (its own SessionManager and context builder),
// appends the prompt and sends ONE chat-completions request; the mock answers with a short final
// text, so pi writes the turn and exits.
//
// stdout: one JSON document
//   {"ok":true,"messages":[...messages of the FIRST request...],"requestBytes":N,
//    "requestCount":N,"kind":"turn"|"summarization","model":"mock-coder","cwd":"...",
//    "cwdRewritten":false,"answer":"...","appendedLines":N,"ms":N}
// or {"ok":false,"error":"...","stderr":"..."} (exit code 1).
//
// The header `cwd` must exist for pi to resume a session outside interactive mode. If it does not,
// the copy's header `cwd` is rewritten to an empty scratch dir (only the system prompt's "Current
// working directory" line depends on it; every entry stays byte-identical) and `cwdRewritten` is true.

import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { MockServer, PI_CLI, SUMMARIZER_MARKER, piEnv, writeAgentDir } from "./mock-server.mjs";

const args = process.argv.slice(2);
const argValue = (name) => {
	const i = args.indexOf(name);
	return i >= 0 ? args[i + 1] : undefined;
};
const SESSION = argValue("--session");
const PROMPT = argValue("--prompt") ?? "Continue.";
const TIMEOUT_MS = Number(argValue("--timeout") ?? 90000);
const KEEP = args.includes("--keep");
const VERBOSE = args.includes("--verbose");
const ANSWER = "Resumed: nothing else to do.";

const log = (...a) => process.stderr.write(`[resume-check] ${a.join(" ")}\n`);
const vlog = (...a) => VERBOSE && log(...a);

function finish(result, code) {
	process.stdout.write(JSON.stringify(result) + "\n");
	process.exitCode = code;
}

async function main() {
	if (!SESSION) throw new Error("usage: resume-check.mjs --session FILE [--prompt TEXT] [--timeout MS] [--keep] [--verbose]");
	if (!existsSync(PI_CLI)) throw new Error(`pi CLI not found at ${PI_CLI}; run npm ci in tests/interop/gen`);
	const [major, minor] = process.versions.node.split(".").map(Number);
	if (major < 22 || (major === 22 && minor < 19)) throw new Error(`pi needs Node >= 22.19 (this is ${process.version})`);
	const src = resolve(SESSION);
	if (!statSync(src).isFile()) throw new Error(`not a file: ${src}`);

	const scratch = mkdtempSync(join(tmpdir(), "pi-shake-resume-"));
	const agentDir = join(scratch, "agent");
	const home = join(scratch, "home");
	const tmp = join(scratch, "tmp");
	const sessionDir = join(scratch, "sessions");
	for (const d of [agentDir, home, tmp, sessionDir]) mkdirSync(d, { recursive: true });
	const copy = join(sessionDir, basename(src));
	copyFileSync(src, copy);

	// The session's working directory: the header cwd if it exists, else a scratch dir.
	let raw = readFileSync(copy, "utf8");
	const nl = raw.indexOf("\n");
	const header = JSON.parse(nl >= 0 ? raw.slice(0, nl) : raw);
	if (header.type !== "session") throw new Error(`first line is not a session header: ${src}`);
	let cwd = header.cwd;
	let cwdRewritten = false;
	if (typeof cwd !== "string" || !cwd || !existsSync(cwd)) {
		cwd = join(scratch, "project");
		mkdirSync(cwd, { recursive: true });
		// Rewrite only the header line; keep the rest byte for byte.
		raw = JSON.stringify({ ...header, cwd }) + (nl >= 0 ? raw.slice(nl) : "\n");
		writeFileSync(copy, raw);
		cwdRewritten = true;
		vlog(`header cwd ${header.cwd} missing -> ${cwd}`);
	}
	const linesBefore = raw.split("\n").filter((l) => l.trim()).length;

	const mock = new MockServer({ log: vlog, vlog });
	await mock.start();
	mock.reset("resume");
	mock.script({ text: ANSWER });
	writeAgentDir(agentDir, mock.baseUrl, {});
	vlog(`mock at ${mock.baseUrl}; session copy ${copy}; cwd ${cwd}`);

	const t0 = Date.now();
	const argv = [
		PI_CLI,
		"--print",
		"--session",
		copy,
		"--provider",
		"mock",
		"--model",
		"mock-coder",
		"--no-extensions",
		"--no-skills",
		"--no-prompt-templates",
		"--no-context-files",
		"--no-themes",
		"--no-mcp",
		"--offline",
		"--",
		PROMPT,
	];
	let stdout = "";
	let stderr = "";
	const proc = spawn(process.execPath, argv, { cwd, env: piEnv({ agentDir, home, tmp }), stdio: ["ignore", "pipe", "pipe"] });
	proc.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
	proc.stderr.setEncoding("utf8").on("data", (d) => {
		stderr += d;
		vlog(`[pi stderr] ${d.trimEnd()}`);
	});
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		proc.kill("SIGKILL");
	}, TIMEOUT_MS);
	const { code, sig } = await new Promise((r) => proc.on("exit", (c, s) => r({ code: c, sig: s })));
	clearTimeout(timer);
	const ms = Date.now() - t0;
	await mock.stop();

	const linesAfter = readFileSync(copy, "utf8").split("\n").filter((l) => l.trim()).length;
	const cleanup = () => (KEEP ? log(`kept ${scratch}`) : rmSync(scratch, { recursive: true, force: true }));
	const fail = (error) => {
		cleanup();
		finish({ ok: false, error, exitCode: code, signal: sig, requestCount: mock.requests.length, stdout, stderr }, 1);
	};
	if (timedOut) return fail(`pi did not exit within ${TIMEOUT_MS} ms`);
	if (mock.requests.length === 0) return fail("pi sent no chat-completions request");
	if (code !== 0) return fail(`pi exited with ${code ?? sig}`);

	const first = mock.requests[0];
	const messages = first.messages ?? [];
	const sys = messages.find((m) => m.role === "system" || m.role === "developer");
	const sysText = typeof sys?.content === "string" ? sys.content : JSON.stringify(sys?.content ?? "");
	cleanup();
	finish(
		{
			ok: true,
			messages,
			requestBytes: mock.requestBytes[0],
			requestCount: mock.requests.length,
			kind: sysText.startsWith(SUMMARIZER_MARKER) ? "summarization" : "turn",
			model: first.model,
			cwd,
			cwdRewritten,
			answer: stdout.trim(),
			appendedLines: linesAfter - linesBefore,
			ms,
			...(KEEP ? { scratch, sessionCopy: copy } : {}),
		},
		0,
	);
}

main().catch((e) => finish({ ok: false, error: e.stack ?? String(e) }, 1));
