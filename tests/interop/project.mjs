#!/usr/bin/env node
// Interop oracle: run pi 1.6.0's OWN session loader, projection, token estimate and
// compaction preparation on session files, and print the result as JSON.
//
//   node tests/interop/project.mjs [--messages] [--compaction[=KEEP]] [--timeout=MS] SESSION.jsonl
//   node tests/interop/project.mjs --batch [--messages] [--compaction[=KEEP]] A.jsonl B.jsonl ...
//
// Single mode (one path, no --batch): prints ONE JSON document.
// Batch mode (--batch, or more than one path): prints one JSON line per path, in argument order,
// each with a leading "path" field.
// Errors never make the process fail: {"ok":false,"error":...} is printed and the exit code is 0.
// Only a usage error exits 2.
//
// Every file is copied to a fresh temp directory first, because pi's SessionManager.open can
// write (append "\n", migrate + rewrite, write a header into a 0-byte file). The original is
// never opened by pi.
//
// The work runs in a worker thread with a watchdog, because pi loops forever on a cyclic parent
// chain. We walk the active branch ourselves with a visited-set before calling anything in pi
// that follows parent links; the watchdog (and a worker heap limit) is the second line of defence.

import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join, resolve, basename } from "node:path";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, existsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";

const HERE = dirname(fileURLToPath(import.meta.url));

function piPackageDir() {
	const fromEnv = process.env.PI_CODING_AGENT_PKG_DIR;
	if (fromEnv) return resolve(fromEnv);
	return join(HERE, "node_modules", "@earendil-works", "pi-coding-agent");
}

// ---------------------------------------------------------------------------------------------
// Worker side: load pi once, then answer {path, options} requests.
// ---------------------------------------------------------------------------------------------

async function workerMain() {
	const pkg = workerData.pkgDir;
	const url = (rel) => pathToFileURL(join(pkg, rel)).href;
	let pi;
	try {
		const sm = await import(url("dist/core/session-manager.js"));
		const comp = await import(url("dist/core/compaction/index.js"));
		const pkgJson = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
		pi = { sm, comp, version: pkgJson.version };
	} catch (e) {
		parentPort.postMessage({ fatal: `cannot load pi from ${pkg}: ${e?.message ?? e}` });
		return;
	}
	parentPort.postMessage({ ready: true, piVersion: pi.version });
	parentPort.on("message", (req) => {
		let result;
		try {
			result = projectOne(pi, req.path, req.options, req.dir);
		} catch (e) {
			// pi's messages name the temp copy; show the caller's path instead.
			const msg = String(e?.message ?? e);
			result = { ok: false, error: msg.replace(/\/[^\s]*pi-shake-oracle-[^/\s]*\/[^\s]*/g, req.path) };
		}
		parentPort.postMessage({ seq: req.seq, result: safeJson(result) });
	});
}

function safeJson(value) {
	// Round-trip so that the structured clone cannot choke and output is plain JSON.
	return JSON.stringify(value, (_k, v) => (v instanceof Set ? [...v] : v));
}

function firstParsedValue(text) {
	for (const line of text.split("\n")) {
		if (!line.trim()) continue;
		try {
			const v = JSON.parse(line);
			if (v) return v;
		} catch {
			// skip, like pi
		}
	}
	return undefined;
}

function projectOne(pi, path, options, dir) {
	const { SessionManager } = pi.sm;
	const { estimateProjectedContextTokens, estimateTokens, prepareCompaction, computeFileLists } = pi.comp;

	if (!existsSync(path)) return { ok: false, error: `no such file: ${path}` };
	{
		const copy = join(dir, basename(path).endsWith(".jsonl") ? basename(path) : "session.jsonl");
		copyFileSync(path, copy);
		const before = readFileSync(copy);

		const manager = SessionManager.open(copy);

		const after = readFileSync(copy);
		const fileModified = !before.equals(after);
		let fileModification = null;
		if (fileModified) {
			if (before.length === 0) fileModification = "header-written";
			else if (after.length === before.length + 1 && after.subarray(0, before.length).equals(before) && after[before.length] === 0x0a)
				fileModification = "newline-appended";
			else fileModification = "rewritten";
		}

		const header = manager.getHeader();
		const fileHeader = firstParsedValue(before.toString("utf8"));
		const entries = manager.getEntries();
		const leafId = manager.getLeafId();

		// Walk the active branch ourselves (same lookup as pi: getEntry = last entry with that id).
		const seen = new Set();
		const walk = [];
		let current = leafId ? manager.getEntry(leafId) : undefined;
		while (current) {
			if (seen.has(current)) {
				return {
					ok: false,
					error: "cycle",
					hang: true,
					cycleAt: current.id ?? null,
					headerId: header?.id ?? null,
					leafId: leafId ?? null,
					entryCount: entries.length,
					fileModified,
				};
			}
			seen.add(current);
			walk.push(current);
			current = current.parentId ? manager.getEntry(current.parentId) : undefined;
		}

		const branch = manager.getBranch();
		const projection = manager.buildSessionProjection();
		const rows = [];
		for (const pe of projection.entries) {
			for (const message of pe.messages) {
				rows.push({
					entryId: pe.sourceEntry?.id ?? null,
					role: message?.role ?? null,
					tokens: estimateTokens(message),
				});
			}
		}
		const estimate = estimateProjectedContextTokens(projection, branch);

		const out = {
			ok: true,
			piVersion: pi.version,
			headerId: header?.id ?? null,
			version: header?.version ?? null,
			fileVersion: fileHeader && typeof fileHeader === "object" ? (fileHeader.version ?? null) : null,
			cwd: header?.cwd ?? null,
			leafId: leafId ?? null,
			entryCount: entries.length,
			indexedCount: manager.getEntryCount(),
			branchIds: branch.map((e) => e?.id ?? null),
			projection: rows,
			messageCount: projection.messages.length,
			contextTokens: estimate.tokens,
			usageTokens: estimate.usageTokens,
			trailingTokens: estimate.trailingTokens,
			lastUsageIndex: estimate.lastUsageIndex,
			thinkingLevel: projection.thinkingLevel ?? null,
			model: projection.model ?? null,
			fileModified,
			fileModification,
		};
		if (options.messages) out.messages = projection.messages;
		if (options.compaction !== undefined) {
			const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: options.compaction };
			const prep = prepareCompaction(branch, settings);
			if (!prep) out.compaction = null;
			else {
				const lists = computeFileLists(prep.fileOps);
				out.compaction = {
					keepRecentTokens: options.compaction,
					firstKeptEntryId: prep.firstKeptEntryId,
					isSplitTurn: prep.isSplitTurn,
					tokensBefore: prep.tokensBefore,
					summarizeCount: prep.messagesToSummarize.length,
					turnPrefixCount: prep.turnPrefixMessages.length,
					summarizeTokens: prep.messagesToSummarize.reduce((s, m) => s + estimateTokens(m), 0),
					turnPrefixTokens: prep.turnPrefixMessages.reduce((s, m) => s + estimateTokens(m), 0),
					previousSummary: prep.previousSummary ?? null,
					readFiles: lists.readFiles,
					modifiedFiles: lists.modifiedFiles,
				};
			}
		}
		return out;
	}
}

// ---------------------------------------------------------------------------------------------
// Main side: argument parsing, worker management, watchdog, output.
// ---------------------------------------------------------------------------------------------

function usage(msg) {
	if (msg) process.stderr.write(`project.mjs: ${msg}\n`);
	process.stderr.write(
		"usage: node tests/interop/project.mjs [--batch] [--messages] [--compaction[=KEEP_RECENT_TOKENS]] [--timeout=MS] SESSION.jsonl...\n",
	);
	process.exit(2);
}

function parseArgs(argv) {
	const opts = { messages: false, compaction: undefined, batch: false, timeoutMs: 20000, paths: [] };
	let onlyPaths = false;
	for (const a of argv) {
		if (onlyPaths || !a.startsWith("--")) {
			opts.paths.push(a);
			continue;
		}
		if (a === "--") onlyPaths = true;
		else if (a === "--messages") opts.messages = true;
		else if (a === "--batch") opts.batch = true;
		else if (a === "--compaction") opts.compaction = 20000;
		else if (a.startsWith("--compaction=")) {
			const n = Number(a.slice("--compaction=".length));
			if (!Number.isSafeInteger(n) || n < 0) usage(`bad --compaction value: ${a}`);
			opts.compaction = n;
		} else if (a.startsWith("--timeout=")) {
			const n = Number(a.slice("--timeout=".length));
			if (!Number.isFinite(n) || n <= 0) usage(`bad --timeout value: ${a}`);
			opts.timeoutMs = n;
		} else if (a === "--help" || a === "-h") usage();
		else usage(`unknown option: ${a}`);
	}
	if (opts.paths.length === 0) usage("no session path given");
	if (opts.paths.length > 1) opts.batch = true;
	return opts;
}

function startWorker(pkgDir) {
	const worker = new Worker(fileURLToPath(import.meta.url), {
		workerData: { pkgDir },
		resourceLimits: { maxOldGenerationSizeMb: 1024 },
		stdout: true,
		stderr: true,
	});
	// Keep our stdout pure JSON: anything pi prints goes to stderr.
	worker.stdout.pipe(process.stderr);
	worker.stderr.pipe(process.stderr);
	worker.unref();
	const ready = new Promise((resolveReady, rejectReady) => {
		const onMsg = (m) => {
			if (m.ready) {
				worker.off("message", onMsg);
				resolveReady(m);
			} else if (m.fatal) {
				worker.off("message", onMsg);
				rejectReady(new Error(m.fatal));
			}
		};
		worker.on("message", onMsg);
		worker.once("error", (e) => rejectReady(e));
	});
	return { worker, ready };
}

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const pkgDir = piPackageDir();
	const options = { messages: opts.messages, compaction: opts.compaction };
	const emit = (path, result) => {
		// writeSync: process.exit() would cut a pending asynchronous pipe write short.
		if (opts.batch) writeOut(JSON.stringify({ path, ...result }) + "\n");
		else writeOut(JSON.stringify(result) + "\n");
	};

	let state = null; // {worker, ready}
	let seq = 0;
	const loadTimeoutMs = Math.max(opts.timeoutMs, 60000);

	for (const p of opts.paths) {
		const path = resolve(p);
		if (!state) state = startWorker(pkgDir);
		let result;
		// The temp dir is owned by this (main) thread so it is removed even if the worker is killed.
		const dir = mkdtempSync(join(tmpdir(), "pi-shake-oracle-"));
		try {
			await withTimeout(state.ready, loadTimeoutMs, "timeout loading pi");
			const mySeq = ++seq;
			const reply = new Promise((res, rej) => {
				const onMsg = (m) => {
					if (m.seq === mySeq) {
						cleanup();
						res(JSON.parse(m.result));
					}
				};
				const onErr = (e) => {
					cleanup();
					rej(e);
				};
				const onExit = (code) => {
					cleanup();
					rej(new Error(`worker exited (${code})`));
				};
				const cleanup = () => {
					state.worker.off("message", onMsg);
					state.worker.off("error", onErr);
					state.worker.off("exit", onExit);
				};
				state.worker.on("message", onMsg);
				state.worker.on("error", onErr);
				state.worker.on("exit", onExit);
			});
			state.worker.postMessage({ seq: mySeq, path, options, dir });
			result = await withTimeout(reply, opts.timeoutMs, "timeout");
		} catch (e) {
			const msg = String(e?.message ?? e);
			if (msg === "timeout") result = { ok: false, error: "timeout", hang: true };
			else if (e?.code === "ERR_WORKER_OUT_OF_MEMORY") result = { ok: false, error: "out of memory", hang: true };
			else result = { ok: false, error: msg };
			// The worker may be stuck or dead: replace it for the next file.
			try {
				await state.worker.terminate();
			} catch {
				// ignore
			}
			state = null;
		} finally {
			try {
				rmSync(dir, { recursive: true, force: true });
			} catch {
				// ignore
			}
		}
		emit(p, result);
	}
	if (state) await state.worker.terminate();
}

function withTimeout(promise, ms, message) {
	let timer;
	return Promise.race([
		promise,
		new Promise((_, rej) => {
			timer = setTimeout(() => rej(new Error(message)), ms);
		}),
	]).finally(() => clearTimeout(timer));
}

if (isMainThread) {
	main().then(
		() => process.exit(0),
		(e) => {
			writeOut(JSON.stringify({ ok: false, error: String(e?.message ?? e) }) + "\n");
			process.exit(0);
		},
	);
} else {
	workerMain();
}

/** Write all of `text` to stdout synchronously (EAGAIN-safe on non-blocking pipes). */
function writeOut(text) {
	const buf = Buffer.from(text);
	let off = 0;
	while (off < buf.length) {
		try {
			off += writeSync(1, buf, off, buf.length - off);
		} catch (e) {
			if (e.code !== "EAGAIN") throw e;
		}
	}
}
