// pi-shake inside pi.
//
// * `/shake [scope]`, `/shake dry-run [scope]`, `/shake undo`, `/shake status`: the shake design's
//   commands, run by the pi-shake binary on the session file pi is writing. Without a scope a popup
//   asks for one (elide / thinking / images / all), as the design describes.
// * pi's compaction engine: on `session_before_compact` the binary prints the compaction entry
//   (`pi-shake compact --emit-json`, pi's own cut) and pi writes it; on any failure pi writes its own
//   summary and a notification says why.
// * Optional automatic shake (off by default): after an agent run, when the context passes a
//   fraction of the model's window, fold with the configured profile.
// * The `shake_recall` tool (pi 1.6 and newer): once the branch holds a pi-shake compaction, the
//   model can read back the full output of a call the summary cut (`pi-shake recall t12`) instead
//   of re-running it. It is activated only then (a compaction changes the context anyway, so the
//   tool list changes at no extra cache cost) and never when `shake.recall` is false.
//
// How a fold reaches pi's in-memory session: pi never re-reads its session file, so the command
// waits until pi is idle, lets the binary append (`--force`: pi is idle, the file is complete and
// pi's leaf is its last line — checked), and reopens the same file with `ctx.switchSession(file)`.
// pi then holds exactly the file, its leaf is pi-shake's last entry, and pi's next entry is parented
// on it: nothing ends on a dead branch. See README.md next to this file.
//
// Settings (pi's settings.json, `shake` key; the binary reads `shake.profile`, `shake.tail`,
// `shake.blockMin` and the `compaction` keys itself):
//   shake.binary            path to pi-shake (else $PI_SHAKE_BIN, else `pi-shake` on PATH, else in
//                           $CARGO_HOME/bin or ~/.cargo/bin, where `cargo install` puts it)
//   shake.compaction        false: leave compaction to pi (default true)
//   shake.scorer            offline (default) | jev | chat, plus shake.jevUrl, shake.jevModel,
//                           shake.chatUrl, shake.chatModel, shake.onScorerError, shake.threshold
//   shake.targetRatio, shake.maxSummaryTokens (or compaction.targetRatio / maxSummaryTokens):
//                           passed as flags when the binary's handshake lists them
//   shake.timeoutSeconds    how long a compaction may take (default 600)
//   shake.auto              {"enabled": true, "threshold": 0.7, "scope": "elide"} (default off)
//   shake.recall            false: no `shake_recall` tool (default true)

import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { execFile } from "node:child_process";
import { accessSync, closeSync, constants, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";

/** The integration protocol this extension speaks (`pi-shake version --json` → `protocol`). */
const PROTOCOL = 1;
/** Modes this extension needs from the binary. */
const REQUIRED_FEATURES = ["compact-emit-json", "compact --first-kept-entry-id", "shake --force", "undo --force"];
const SCOPES = ["elide", "thinking", "images", "all"];
const PROFILES = ["default", "conservative", "aggressive"];
const SCOPE_POPUP = "Shake which scope?";
const PREFIX = "pi-shake: ";
/** The first pi that honours `context_edit` (0.87.0); an older pi ignores every fold (as the
 * binary's old-pi warning says, and `scripts/cross_release.py` measures). */
const FIRST_PI_WITH_EDITS = [0, 87, 0];

type Level = "info" | "warning" | "error";

interface Binary {
	ok: true;
	path: string;
	version: string;
	features: Set<string>;
}
interface Missing {
	ok: false;
	message: string;
}

interface RunResult {
	code: number;
	stdout: string;
	stderr: string;
	failure?: string;
}

interface Config {
	binary?: string;
	compaction: boolean;
	scorer?: string;
	jevUrl?: string;
	jevModel?: string;
	chatUrl?: string;
	chatModel?: string;
	onScorerError?: string;
	threshold?: number;
	targetRatio?: number;
	maxSummaryTokens?: number;
	timeoutSeconds: number;
	auto: { enabled: boolean; threshold: number; scope: string };
	recall: boolean;
}

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

function readJson(path: string): Record<string, any> {
	try {
		const text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
		const v = JSON.parse(text);
		return v && typeof v === "object" && !Array.isArray(v) ? v : {};
	} catch {
		return {};
	}
}

function agentDir(): string {
	const d = process.env.PI_CODING_AGENT_DIR;
	return d ? d : join(homedir(), ".pi", "agent");
}

// ---------------------------------------------------------------------------------------------
// The open-session record: `<agentDir>/pi-shake/open/<pid>` holds the session file this pi has
// open. pi since 0.50 writes its title over its command line, so a pi working on a session of
// another directory leaves no other trace; the binary's live-pi check reads these records (a
// record whose pid is no running pi is ignored) and refuses to append behind this pi's back.
// ---------------------------------------------------------------------------------------------

function openRecord(): string {
	return join(agentDir(), "pi-shake", "open", String(process.pid));
}

function recordOpen(ctx: ExtensionContext): void {
	const file = ctx.sessionManager.getSessionFile();
	if (!file) return forgetOpen();
	const rec = openRecord();
	const dir = dirname(rec);
	try {
		mkdirSync(dir, { recursive: true });
		// Records a killed pi left (no `session_shutdown`) go first: their pid runs no more. Once
		// this pi's own record exists, they are gone.
		for (const name of readdirSync(dir)) {
			const pid = Number(name);
			if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
			rmSync(join(dir, name), { force: true });
		}
		writeFileSync(rec, `${resolve(file)}\n`);
	} catch {
		// Best effort: without the record the binary still finds a pi in the session's directory.
	}
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e: any) {
		// EPERM: it runs, as another user.
		return e?.code === "EPERM";
	}
}

function forgetOpen(): void {
	try {
		rmSync(openRecord(), { force: true });
	} catch {
		// Best effort.
	}
}

/** pi's merged settings (`pi.getSettings()`); the `shake` key from the files (project over global,
 * trusted projects only) if pi's copy does not carry keys it does not know. */
function settings(pi: ExtensionAPI, ctx: ExtensionContext): Record<string, any> {
	let merged: Record<string, any> | undefined;
	try {
		merged = pi.getSettings() as Record<string, any>;
	} catch {
		merged = undefined;
	}
	if (merged && merged.shake !== undefined) return merged;
	const global = readJson(join(agentDir(), "settings.json"));
	let trusted = false;
	try {
		trusted = ctx.isProjectTrusted();
	} catch {
		trusted = false;
	}
	const project = trusted ? readJson(join(ctx.cwd, ".pi", "settings.json")) : {};
	return {
		...global,
		...project,
		...(merged ?? {}),
		shake: { ...(global.shake ?? {}), ...(project.shake ?? {}) },
		compaction: merged?.compaction ?? { ...(global.compaction ?? {}), ...(project.compaction ?? {}) },
	};
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);

function config(pi: ExtensionAPI, ctx: ExtensionContext): Config {
	const s = settings(pi, ctx);
	const shake = s.shake && typeof s.shake === "object" ? s.shake : {};
	const compaction = s.compaction && typeof s.compaction === "object" ? s.compaction : {};
	const auto = shake.auto === true ? {} : shake.auto && typeof shake.auto === "object" ? shake.auto : undefined;
	return {
		binary: str(shake.binary),
		compaction: shake.compaction !== false,
		scorer: str(shake.scorer),
		jevUrl: str(shake.jevUrl),
		jevModel: str(shake.jevModel),
		chatUrl: str(shake.chatUrl),
		chatModel: str(shake.chatModel),
		onScorerError: str(shake.onScorerError),
		threshold: num(shake.threshold),
		targetRatio: num(shake.targetRatio) ?? num(compaction.targetRatio),
		maxSummaryTokens: num(shake.maxSummaryTokens) ?? num(compaction.maxSummaryTokens),
		timeoutSeconds: num(shake.timeoutSeconds) ?? 600,
		auto: {
			enabled: auto !== undefined && auto.enabled !== false,
			threshold: num(auto?.threshold) ?? 0.7,
			scope: SCOPES.includes(auto?.scope) ? auto.scope : "elide",
		},
		recall: shake.recall !== false,
	};
}

// ---------------------------------------------------------------------------------------------
// The binary: lookup, handshake, runs
// ---------------------------------------------------------------------------------------------

function isExecutable(p: string): boolean {
	try {
		if (!statSync(p).isFile()) return false;
		accessSync(p, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** Where `cargo install` puts binaries: `$CARGO_HOME/bin`, else `~/.cargo/bin`. pi started from a
 *  desktop launcher or a shell whose profile does not add it has it off PATH. */
function cargoBin(): string {
	const home = str(process.env.CARGO_HOME);
	return home ? join(home, "bin") : join(homedir(), ".cargo", "bin");
}

/** `$PI_SHAKE_BIN`, else `shake.binary`, else `pi-shake` on PATH, else in cargo's bin directory
 *  (`pi-shake.exe` first on Windows); `undefined` when not found. */
function locate(cfg: Config, cwd: string): { path?: string; looked: string } {
	const explicit = str(process.env.PI_SHAKE_BIN) ?? cfg.binary;
	if (explicit) {
		const p = explicit.startsWith("~/") ? join(homedir(), explicit.slice(2)) : isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
		const from = str(process.env.PI_SHAKE_BIN) ? "PI_SHAKE_BIN" : "shake.binary in settings.json";
		return { path: isExecutable(p) ? p : undefined, looked: `${p} (${from})` };
	}
	const names = process.platform === "win32" ? ["pi-shake.exe", "pi-shake"] : ["pi-shake"];
	const cargo = cargoBin();
	const looked = `pi-shake on PATH and in ${cargo}`;
	for (const dir of [...(process.env.PATH ?? "").split(delimiter), cargo]) {
		if (!dir) continue;
		for (const name of names) {
			const p = join(dir, name);
			if (isExecutable(p)) return { path: p, looked };
		}
	}
	return { looked };
}

function run(bin: string, args: string[], opts: { cwd?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RunResult> {
	return new Promise((done) => {
		execFile(
			bin,
			args,
			{
				cwd: opts.cwd,
				timeout: opts.timeoutMs ?? 60_000,
				signal: opts.signal,
				maxBuffer: 1 << 30,
				env: { ...process.env, NO_COLOR: "1" },
				encoding: "utf8",
			},
			(err: any, stdout: string, stderr: string) => {
				if (!err) return done({ code: 0, stdout, stderr });
				const code = typeof err.code === "number" ? err.code : -1;
				let failure: string | undefined;
				if (err.name === "AbortError") failure = "aborted";
				else if (err.killed) failure = `timed out after ${Math.round((opts.timeoutMs ?? 60_000) / 1000)} s`;
				else if (typeof err.code === "string") failure = `${err.code}: ${err.message}`;
				done({ code, stdout: stdout ?? "", stderr: stderr ?? "", failure });
			},
		);
	});
}

/** The binary's own error line(s), without the `error: ` prefix. */
function errorText(r: RunResult): string {
	if (r.failure) return r.failure;
	const lines = r.stderr
		.split("\n")
		.map((l) => l.trim())
		.filter((l) => l && !l.startsWith("compact: sending"));
	const text = lines.map((l) => l.replace(/^error: /, "")).join(" ");
	return text || `exit code ${r.code}`;
}

const handshakes = new Map<string, Binary>();

/** Find the binary and check its handshake (a passing one cached per file for this pi process). */
async function binary(cfg: Config, cwd: string): Promise<Binary | Missing> {
	const { path, looked } = locate(cfg, cwd);
	if (!path) {
		return {
			ok: false,
			message: `the pi-shake binary was not found (looked for ${looked}). Install it (\`cargo install --path .\` in the pi-shake repository) or set "shake": {"binary": "/path/to/pi-shake"} in settings.json.`,
		};
	}
	// Keyed by the file's identity: a binary the user updates while pi runs is asked again.
	let key = path;
	try {
		const st = statSync(path);
		key = `${path}\0${st.size}\0${st.mtimeMs}`;
	} catch {}
	const cached = handshakes.get(key);
	if (cached) return cached;
	const r = await run(path, ["--json", "version"], { timeoutMs: 15_000 });
	let result: Binary | Missing;
	let doc: any;
	try {
		doc = r.code === 0 ? JSON.parse(r.stdout) : undefined;
	} catch {
		doc = undefined;
	}
	if (!doc || doc.name !== "pi-shake" || typeof doc.version !== "string") {
		result = {
			ok: false,
			message: `${path} does not answer \`pi-shake version --json\` (${r.code === 0 ? "no handshake" : errorText(r)}); it is too old for this extension or not pi-shake. Update pi-shake.`,
		};
	} else if (doc.protocol !== PROTOCOL) {
		result = {
			ok: false,
			message: `${path} is pi-shake ${doc.version} speaking protocol ${doc.protocol}; this extension speaks protocol ${PROTOCOL}. Update ${typeof doc.protocol === "number" && doc.protocol > PROTOCOL ? "the extension" : "pi-shake"}.`,
		};
	} else {
		const features = new Set<string>(Array.isArray(doc.features) ? doc.features : []);
		const missing = REQUIRED_FEATURES.filter((f) => !features.has(f));
		result = missing.length
			? { ok: false, message: `${path} (pi-shake ${doc.version}) lacks ${missing.join(", ")}; update pi-shake.` }
			: { ok: true, path, version: doc.version, features };
	}
	// Only a binary that passed is remembered: after "Update pi-shake" the next command asks the
	// updated binary (a handshake takes milliseconds).
	if (result.ok) handshakes.set(key, result);
	return result;
}

// ---------------------------------------------------------------------------------------------
// Session file helpers
// ---------------------------------------------------------------------------------------------

/** The id of the last JSON line of `file` (pi's leaf on open), or `undefined`. */
function lastEntryId(file: string): string | undefined {
	const fd = openSync(file, "r");
	try {
		const size = fstatSync(fd).size;
		let end = size;
		let tail = Buffer.alloc(0);
		const chunk = 64 * 1024;
		// Skip trailing newlines / blank lines, then read back to the previous newline.
		while (end > 0) {
			const start = Math.max(0, end - chunk);
			const buf = Buffer.alloc(end - start);
			readSync(fd, buf, 0, buf.length, start);
			tail = Buffer.concat([buf, tail]);
			end = start;
			const text = tail.toString("utf8").replace(/\s+$/, "");
			const nl = text.lastIndexOf("\n");
			if (nl >= 0 || end === 0) {
				const line = text.slice(nl + 1);
				try {
					const v = JSON.parse(line);
					return typeof v?.id === "string" ? v.id : undefined;
				} catch {
					return undefined;
				}
			}
		}
		return undefined;
	} finally {
		closeSync(fd);
	}
}

/** The session file if pi has written it, else a reason. */
function sessionFile(ctx: ExtensionContext): { file?: string; why?: string } {
	const file = ctx.sessionManager.getSessionFile();
	if (!file) return { why: "this session is not saved to a file (--no-session)" };
	if (!existsSync(file)) return { why: "pi has not written the session file yet (nothing to shake before the first answer)" };
	return { file };
}

function notify(ctx: ExtensionContext, message: string, level: Level = "info") {
	if (ctx.hasUI) ctx.ui.notify(message, level);
	else process.stderr.write(`${message}\n`);
}

/** What a compaction has to say, held until pi has finished it (TUI only, see `sayAfterCompaction`). */
let afterCompaction: Array<[string, Level]> = [];

/** Notify about a compaction. pi's TUI clears its chat and redraws it from the session when a
 *  compaction ends, so a notice given while pi compacts is wiped before anyone sees it: there it
 *  waits for `session_compact` / `session_compact_failed` (`flushAfterCompaction`). Other modes
 *  (RPC, where notices are events) get it at once. */
function sayAfterCompaction(ctx: ExtensionContext, message: string, level: Level = "info") {
	if ((ctx as any).mode === "tui") afterCompaction.push([message, level]);
	else notify(ctx, message, level);
}

/** Give the held notices once pi's TUI has redrawn the chat after the compaction: pi redraws it
 *  synchronously right after the compaction's event handlers return, so the next task is after.
 *  When pi did not write the compaction (`failed`: cancelled, or its write failed), the counts
 *  of a summary that was not written are dropped; the warnings stay. */
function flushAfterCompaction(ctx: ExtensionContext, failed = false) {
	const held = failed ? afterCompaction.filter(([, level]) => level !== "info") : afterCompaction;
	afterCompaction = [];
	if (held.length === 0) return;
	setTimeout(() => {
		for (const [message, level] of held) notify(ctx, message, level);
	}, 0);
}

// ---------------------------------------------------------------------------------------------
// Compaction engine
// ---------------------------------------------------------------------------------------------

function compactArgs(cfg: Config, bin: Binary, prep: any, instructions: string | undefined, file: string): string[] {
	const a = ["compact", "--emit-json", "--first-kept-entry-id", String(prep.firstKeptEntryId)];
	const keep = num(prep.settings?.keepRecentTokens);
	if (keep !== undefined) a.push("--keep-recent-tokens", String(keep));
	const flag = (name: string, value: string | number | undefined) => {
		if (value === undefined) return;
		if (bin.features.has(`compact --${name}`)) a.push(`--${name}`, String(value));
	};
	flag("scorer", cfg.scorer);
	flag("jev-url", cfg.jevUrl);
	flag("jev-model", cfg.jevModel);
	flag("chat-url", cfg.chatUrl);
	flag("chat-model", cfg.chatModel);
	flag("on-scorer-error", cfg.onScorerError);
	flag("threshold", cfg.threshold);
	flag("target-ratio", cfg.targetRatio);
	flag("max-summary-tokens", cfg.maxSummaryTokens);
	if (instructions && instructions.trim()) flag("instructions", instructions.trim());
	a.push(file);
	return a;
}

/** A JSONL copy of what pi holds (header + branch), for when pi's leaf is not the file's last line. */
function snapshot(ctx: ExtensionContext, branch: any[]): { file: string; dir: string } {
	const dir = mkdtempSync(join(tmpdir(), "pi-shake-branch-"));
	const file = join(dir, "branch.jsonl");
	const lines = [JSON.stringify(ctx.sessionManager.getHeader()), ...branch.map((e) => JSON.stringify(e))];
	writeFileSync(file, lines.join("\n") + "\n", { mode: 0o600 });
	return { file, dir };
}

async function onBeforeCompact(pi: ExtensionAPI, event: any, ctx: ExtensionContext) {
	const cfg = config(pi, ctx);
	if (!cfg.compaction) return undefined;
	afterCompaction = [];
	const fallback = (why: string) => {
		sayAfterCompaction(ctx, `${PREFIX}compaction not available: ${why} pi writes its own summary.`, "warning");
		return undefined;
	};
	const bin = await binary(cfg, ctx.cwd);
	if (!bin.ok) return fallback(bin.message);
	const prep = event.preparation;
	if (!prep?.firstKeptEntryId) return fallback("pi gave no firstKeptEntryId.");
	const sf = sessionFile(ctx);
	if (!sf.file) return fallback(`${sf.why}.`);
	// pi writes each entry synchronously, so the file normally holds exactly pi's branch with pi's
	// leaf last. After /tree moved pi's position without writing, hand the binary pi's branch.
	let file = sf.file;
	let scratch: string | undefined;
	if (lastEntryId(sf.file) !== ctx.sessionManager.getLeafId()) {
		const snap = snapshot(ctx, event.branchEntries ?? ctx.sessionManager.getBranch());
		file = snap.file;
		scratch = snap.dir;
	}
	try {
		const r = await run(bin.path, compactArgs(cfg, bin, prep, event.customInstructions, file), {
			cwd: ctx.cwd,
			timeoutMs: cfg.timeoutSeconds * 1000,
			signal: event.signal,
		});
		// The user aborted the compaction (Esc, RPC `abort`): pi writes nothing and says so itself;
		// "pi writes its own summary" would be wrong.
		if (r.failure === "aborted" || event.signal?.aborted) return undefined;
		if (r.code !== 0) return fallback(`pi-shake compact failed (${errorText(r)}).`);
		let doc: any;
		try {
			doc = JSON.parse(r.stdout);
		} catch {
			return fallback("pi-shake compact printed no JSON.");
		}
		if (typeof doc?.summary !== "string" || !doc.summary) return fallback("pi-shake compact returned no summary.");
		if (doc.firstKeptEntryId !== prep.firstKeptEntryId) return fallback(`pi-shake cut at ${doc.firstKeptEntryId}, pi at ${prep.firstKeptEntryId}.`);
		const tokensBefore = num(doc.tokensBefore) ?? num(prep.tokensBefore) ?? 0;
		const d = doc.details ?? {};
		const c = d.counts ?? {};
		const t = d.tokens ?? {};
		sayAfterCompaction(
			ctx,
			`${PREFIX}compacted ${c.pairs ?? 0} tool calls (${c.kept ?? 0} kept, ${c.stubbed ?? 0} stubbed, ${c.dropped ?? 0} dropped, ${c.pinned ?? 0} pinned): region ~${fmt(t.regionBefore)} → ~${fmt(t.regionAfter)} tokens${budgetText(d.budget)}. Scorer: ${d.scorer ?? "?"}.`,
		);
		for (const w of Array.isArray(d.warnings) ? d.warnings : []) sayAfterCompaction(ctx, `${PREFIX}warning: ${w}`, "warning");
		return { compaction: { summary: doc.summary, firstKeptEntryId: doc.firstKeptEntryId, tokensBefore, details: d } };
	} finally {
		if (scratch) rmSync(scratch, { recursive: true, force: true });
	}
}

/** ` (14%; budget 15% of the region, built-in default)` from a compaction's `details.budget`
 *  (empty without one: the threshold semantics of a remote scorer). Where the budget came from
 *  tells the user which setting to change. */
function budgetText(b: any): string {
	if (!b || typeof b !== "object") return "";
	const pct = (r: unknown) => (typeof r === "number" ? `${Math.round(r * 100)}%` : "?");
	const limits = [
		typeof b.targetRatio === "number" ? `${pct(b.targetRatio)} of the region` : undefined,
		typeof b.maxSummaryTokens === "number" ? `~${fmt(b.maxSummaryTokens)} tokens` : undefined,
	].filter(Boolean);
	const source = typeof b.source === "string" && b.source ? `, ${b.source}` : "";
	return ` (${pct(b.achievedRatio)}; budget ${limits.join(" or ") || `~${fmt(b.tokens)} tokens`}${source})`;
}

const fmt = (n: unknown) => (typeof n === "number" ? Math.round(n).toLocaleString("en-US") : "?");

// ---------------------------------------------------------------------------------------------
// /shake
// ---------------------------------------------------------------------------------------------

interface Parsed {
	op: "shake" | "dry-run" | "undo" | "status" | "auto";
	scope?: string;
	profile?: string;
	error?: string;
}

export function parseArgs(args: string): Parsed {
	const words = args.trim().split(/\s+/).filter(Boolean);
	let op: Parsed["op"] = "shake";
	const first = words[0];
	if (first === "dry-run" || first === "undo" || first === "status" || first === "auto") {
		op = first;
		words.shift();
	}
	const out: Parsed = { op };
	for (const w of words) {
		if (SCOPES.includes(w) && (op === "shake" || op === "dry-run")) out.scope = w;
		else if (PROFILES.includes(w) && (op === "shake" || op === "dry-run")) out.profile = w;
		else out.error = `unknown argument "${w}". Usage: /shake [elide|thinking|images|all] [profile] · /shake dry-run [scope] · /shake undo · /shake status`;
	}
	return out;
}

async function pickScope(ctx: ExtensionContext): Promise<string | undefined> {
	if (!ctx.hasUI) return "elide";
	return ctx.ui.select(SCOPE_POPUP, SCOPES);
}

async function shakeCommand(pi: ExtensionAPI, args: string, ctx: ExtensionCommandContext) {
	const p = parseArgs(args);
	if (p.error) return notify(ctx, PREFIX + p.error, "error");
	const cfg = config(pi, ctx);
	const bin = await binary(cfg, ctx.cwd);
	if (!bin.ok) return notify(ctx, PREFIX + bin.message, "error");
	if (p.op === "shake" || p.op === "auto") {
		// Writing folds this pi would ignore only misleads: nothing would be reclaimed.
		const why = foldsIgnored(piVersion());
		if (why) return notify(ctx, PREFIX + why, p.op === "auto" ? "info" : "warning");
	}
	if (p.op === "auto") p.scope = cfg.auto.scope;
	if ((p.op === "shake" || p.op === "dry-run") && !p.scope) {
		if (p.op === "dry-run" && !ctx.hasUI) p.scope = undefined;
		else {
			p.scope = await pickScope(ctx);
			if (!p.scope) return;
		}
	}
	const sf = sessionFile(ctx);
	if (!sf.file) return notify(ctx, `${PREFIX}${sf.why}.`, p.op === "auto" ? "info" : "warning");
	const file = sf.file;
	const flags = [...(p.scope ? ["--scope", p.scope] : []), ...(p.profile ? ["--profile", p.profile] : [])];

	if (p.op === "dry-run") {
		const r = await run(bin.path, ["dry-run", ...flags, file], { cwd: ctx.cwd });
		if (r.code !== 0) return notify(ctx, `${PREFIX}${errorText(r)}`, "error");
		notify(ctx, r.stdout.trimEnd());
		const why = foldsIgnored(piVersion());
		if (why) notify(ctx, PREFIX + why, "warning");
		return;
	}
	if (p.op === "status") {
		const r = await run(bin.path, ["--json", "status", file], { cwd: ctx.cwd });
		if (r.code !== 0) return notify(ctx, `${PREFIX}${errorText(r)}`, "error");
		return notify(ctx, statusText(JSON.parse(r.stdout)));
	}

	// shake / undo / auto write: wait until pi is idle, check pi's leaf is the file's last line,
	// let the binary append, reopen the file.
	await ctx.waitForIdle();
	const leaf = ctx.sessionManager.getLeafId();
	const last = lastEntryId(file);
	if (leaf !== last) {
		return notify(
			ctx,
			`${PREFIX}pi's position in the session tree (${leaf}) is not the file's last entry (${last}), e.g. after /tree; an append now would land on another branch. Send a message first, then /shake.`,
			"warning",
		);
	}
	const cmd = p.op === "undo" ? ["--json", "undo", "--force", file] : ["--json", "shake", ...flags, "--force", file];
	const r = await run(bin.path, cmd, { cwd: ctx.cwd });
	if (r.code !== 0) return notify(ctx, `${PREFIX}${errorText(r)}`, "error");
	let doc: any;
	try {
		doc = JSON.parse(r.stdout);
	} catch {
		return notify(ctx, `${PREFIX}pi-shake printed no JSON.`, "error");
	}
	const summary = p.op === "undo" ? String(doc.summary ?? "") : (doc.runs ?? []).map((x: any) => x.summary).join("\n");
	if (!doc.writtenEntries) {
		if (p.op !== "auto") notify(ctx, summary);
		return;
	}
	const expected = lastEntryId(file);
	// Said once pi has finished reopening, through the replacement session's UI (the old `ctx` is
	// stale by then): pi's TUI shows "Resumed session" as a status line after `withSession` runs,
	// and a status line replaces the status line just before it, so an info notified inside
	// `withSession` was never seen there.
	let report: (() => void) | undefined;
	const result = await ctx.switchSession(file, {
		withSession: async (next) => {
			const now = next.sessionManager.getLeafId();
			const ui = next.ui;
			report =
				now !== expected
					? () => ui.notify(`${PREFIX}${summary}\nbut pi reopened the session at ${now}, not at pi-shake's last entry ${expected}: run /shake status.`, "warning")
					: () => ui.notify(p.op === "auto" ? `${PREFIX}auto-shake: ${summary}` : summary, "info");
		},
	});
	report?.();
	if (result.cancelled) {
		notify(
			ctx,
			`${PREFIX}${summary}\nbut reopening the session was cancelled by another extension: pi still holds the old context, and its next entry will leave pi-shake's entries on a side branch. Reopen the session (/resume) before continuing.`,
			"error",
		);
	}
}

function statusText(s: any): string {
	const w = s.wall ?? {};
	const scopes = Object.entries(w.byScope ?? {})
		.map(([k, v]) => `${k} ${v}`)
		.join(", ");
	const parts = [
		w.active ? `${w.active} ${w.active === 1 ? "entry" : "entries"} folded (~${fmt(w.tokensReclaimed)} tokens reclaimed${scopes ? `; ${scopes}` : ""})` : "nothing folded",
	];
	if (w.moot) parts.push(`${w.moot} moot (behind a compaction)`);
	if (w.superseded) parts.push(`${w.superseded} superseded`);
	parts.push(`context ~${fmt(s.contextTokens)} tokens`);
	// The compaction the context starts from, and who wrote it (binaries before it say nothing).
	const c = s.branch?.compaction;
	if (c) parts.push(`last compaction by ${c.by} (summary ~${fmt(c.summaryTokens)} tokens)`);
	if (w.profile) parts.push(`profile ${w.profile}`);
	const problems = (s.problems ?? []).filter((x: any) => x.severity === "error").length;
	if (problems) parts.push(`${problems} problem(s): run pi-shake status on the file`);
	return `${PREFIX}${parts.join(" · ")}`;
}

/** The running pi's version, from the package its CLI script (`process.argv[1]`) belongs to;
 * undefined when that cannot be told (pi embedded through its SDK, a bundled binary). */
function piVersion(): string | undefined {
	try {
		let dir = dirname(realpathSync(process.argv[1] ?? ""));
		for (let i = 0; i < 8; i++) {
			const p = join(dir, "package.json");
			if (existsSync(p)) {
				const j = JSON.parse(readFileSync(p, "utf8"));
				if (typeof j.name === "string" && j.name.endsWith("/pi-coding-agent") && typeof j.version === "string") return j.version;
			}
			const up = dirname(dir);
			if (up === dir) break;
			dir = up;
		}
	} catch {
		// Unknown: no check.
	}
	return undefined;
}

/** Why a fold would not reach the model in this pi (an older pi ignores `context_edit`), or
 * undefined. */
export function foldsIgnored(version: string | undefined): string | undefined {
	const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version ?? "");
	if (!m) return undefined;
	const v = m.slice(1).map(Number);
	const i = v.findIndex((x, k) => x !== FIRST_PI_WITH_EDITS[k]);
	if (i < 0 || v[i] > FIRST_PI_WITH_EDITS[i]) return undefined;
	return `this pi (${version}) ignores context_edit, so a fold would not reach the model; update pi to ${FIRST_PI_WITH_EDITS.join(".")} or newer (npm install -g @earendil-works/pi-coding-agent). Compaction through pi-shake works here.`;
}

// ---------------------------------------------------------------------------------------------
// The shake_recall tool
// ---------------------------------------------------------------------------------------------

const RECALL_TOOL = "shake_recall";
/** The first pi whose tool API this tool is written against (plain JSON-schema parameters,
 * `defaultActive`). */
const FIRST_PI_WITH_RECALL = [1, 6, 0];

/** Whether this pi gets the tool (a pi whose version cannot be told, embedded through its SDK, does). */
export function recallSupported(version: string | undefined): boolean {
	const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version ?? "");
	if (!m) return true;
	const v = m.slice(1).map(Number);
	const i = v.findIndex((x, k) => x !== FIRST_PI_WITH_RECALL[k]);
	return i < 0 || v[i] > FIRST_PI_WITH_RECALL[i];
}

/** Whether a compaction entry is pi-shake's (its `details.pruner`). */
function isPiShakes(entry: any): boolean {
	return entry?.type === "compaction" && typeof entry?.details?.pruner === "string" && entry.details.pruner.startsWith("pi-shake");
}

/** Activate the tool when the branch holds a pi-shake compaction and the settings allow it;
 * deactivate it otherwise. */
function syncRecallTool(pi: ExtensionAPI, ctx: ExtensionContext, compaction?: any) {
	try {
		const cfg = config(pi, ctx);
		const active = pi.getActiveTools();
		const has = active.includes(RECALL_TOOL);
		const want = cfg.recall && (isPiShakes(compaction) || ctx.sessionManager.getBranch().some(isPiShakes));
		if (want && !has) pi.setActiveTools([...active, RECALL_TOOL]);
		else if (!want && has) pi.setActiveTools(active.filter((n) => n !== RECALL_TOOL));
	} catch {
		// pi itself is never affected: without the tool the model re-runs calls as before.
	}
}

async function recallTool(pi: ExtensionAPI, params: any, signal: AbortSignal | undefined, ctx: ExtensionContext) {
	const id = typeof params?.id === "string" ? params.id.trim() : "";
	const pattern = typeof params?.pattern === "string" ? params.pattern : "";
	if (!id && !pattern.trim()) throw new Error("shake_recall needs an id (the t12 of a pi-shake summary's call header) or a pattern to search for");
	const bin = await binary(config(pi, ctx), ctx.cwd);
	if (!bin.ok) throw new Error(bin.message);
	const needs = pattern.trim() ? "recall --grep" : "recall --offset";
	if (!bin.features.has(needs)) throw new Error(`${bin.path} (pi-shake ${bin.version}) cannot ${pattern.trim() ? "search with recall" : "recall"}; update pi-shake.`);
	const { file, why } = sessionFile(ctx);
	if (!file) throw new Error(why);
	const args = ["recall"];
	if (pattern.trim()) args.push("--grep", pattern);
	if (id) args.push(id);
	for (const k of pattern.trim() ? ["limit"] : ["offset", "limit"]) {
		const n = num(params?.[k]);
		if (n !== undefined && n >= 1) args.push(`--${k}`, String(Math.floor(n)));
	}
	args.push(file);
	const r = await run(bin.path, args, { cwd: ctx.cwd, signal, timeoutMs: 60_000 });
	if (r.code !== 0) throw new Error(errorText(r));
	return { content: [{ type: "text" as const, text: r.stdout.replace(/\n$/, "") }], details: { id, pattern } };
}

function registerRecall(pi: ExtensionAPI) {
	pi.registerTool({
		name: RECALL_TOOL,
		label: "Recall",
		description:
			"Read back the full output of a tool call that a pi-shake compaction summary cut. The summary's call headers name each call by an id such as t12 or t12_2 (`**bash** `cargo test` (t12; 40 of 900 lines)`). Returns up to 2,000 lines or 50 KB from `offset`; the first line says which lines of how many. With `pattern` (a plain text, case-insensitive) it returns only the lines holding it, with their line numbers, from that call's output or, without an id, from every tool output of the session (and of the shell commands the user ran), each under its call's id (up to 200 lines; calls the summary left out whole are searched too).",
		promptSnippet: "Read back the full output of a call a pi-shake summary cut, by its id (t12)",
		promptGuidelines: [
			"Use shake_recall with a call's id from a pi-shake summary (t12) to see the lines the summary cut, instead of re-running a search, fetch or build whose answer may have changed; re-run a read when the file's current content is what matters.",
			"Use shake_recall with a pattern (and no id) to find which earlier tool output held a value, error or name the pi-shake summary does not show.",
		],
		parameters: {
			type: "object",
			properties: {
				id: { type: "string", description: "The call's id from the summary header, e.g. t12 or t12_2 (or the entry id a cut shell command shows)" },
				pattern: { type: "string", description: "Return only lines holding this text (case-insensitive); without an id, search every tool output" },
				offset: { type: "integer", minimum: 1, description: "First line to return (from 1; not with pattern)" },
				limit: { type: "integer", minimum: 1, description: "Lines to return at most (default 2,000, or 200 matching lines)" },
			},
			additionalProperties: false,
		} as any,
		defaultActive: false,
		execute: async (_toolCallId: string, params: any, signal: AbortSignal | undefined, _onUpdate: unknown, ctx: ExtensionContext) =>
			recallTool(pi, params, signal, ctx),
	} as any);
}

// ---------------------------------------------------------------------------------------------
// Extension entry point
// ---------------------------------------------------------------------------------------------

export default function (pi: ExtensionAPI) {
	let autoRequested = false;
	const recall = recallSupported(piVersion());
	if (recall) registerRecall(pi);

	pi.registerCommand("shake", {
		description: "Fold old heavy content into placeholders (pi-shake): /shake [elide|thinking|images|all] · dry-run [scope] · undo · status",
		getArgumentCompletions: (prefix: string) => {
			const items = ["dry-run", "undo", "status", ...SCOPES, ...PROFILES].filter((x) => x.startsWith(prefix.trim().split(/\s+/).pop() ?? ""));
			return items.length ? items.map((value) => ({ value, label: value })) : null;
		},
		handler: async (args, ctx) => {
			try {
				await shakeCommand(pi, args, ctx);
			} catch (e: any) {
				notify(ctx, `${PREFIX}${e?.message ?? String(e)}`, "error");
			}
		},
	});

	pi.on("session_before_compact", async (event, ctx) => {
		try {
			return await onBeforeCompact(pi, event, ctx);
		} catch (e: any) {
			sayAfterCompaction(ctx, `${PREFIX}compaction not available: ${e?.message ?? String(e)}; pi writes its own summary.`, "warning");
			return undefined;
		}
	});
	pi.on("session_compact", async (event: any, ctx) => {
		flushAfterCompaction(ctx);
		if (recall) syncRecallTool(pi, ctx, event?.compactionEntry);
	});
	pi.on("session_compact_failed", async (_event, ctx) => flushAfterCompaction(ctx, true));

	// A resumed, reloaded or switched-to session (also after `/shake`, which reopens the file).
	pi.on("session_start", async (_event, ctx) => {
		recordOpen(ctx);
		if (recall) syncRecallTool(pi, ctx);
	});
	pi.on("session_shutdown", async () => forgetOpen());
	// `/tree` moves to a branch that may or may not hold a pi-shake compaction.
	pi.on("session_tree", async (_event, ctx) => {
		if (recall) syncRecallTool(pi, ctx);
	});

	pi.on("agent_start", async () => {
		autoRequested = false;
	});

	pi.on("agent_settled", async (event: any, ctx) => {
		if (event?.aborted || autoRequested) return;
		let cfg: Config;
		try {
			cfg = config(pi, ctx);
		} catch {
			return;
		}
		if (!cfg.auto.enabled || foldsIgnored(piVersion())) return;
		const usage = ctx.getContextUsage();
		if (!usage || usage.tokens == null || !usage.contextWindow) return;
		if (usage.tokens / usage.contextWindow < cfg.auto.threshold) return;
		autoRequested = true;
		// Commands (waitForIdle, switchSession) are not available in event handlers; dispatch the
		// command the documented way, after every settled handler has finished.
		pi.sendUserMessage("/shake auto", { expandPromptTemplates: true });
	});
}
