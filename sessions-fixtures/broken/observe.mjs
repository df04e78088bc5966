#!/usr/bin/env node
// Run real pi (SessionManager from @earendil-works/pi-coding-agent) on a COPY of every fixture in
// sessions-fixtures/broken/ and sessions-fixtures/legacy/ and record what it does:
//   SessionManager.open(copy) -> buildSessionProjection() -> estimateProjectedContextTokens(
//   projection, getBranch()), i.e. what pi computes when it resumes a session.
// Each file runs in its own child process with a timeout (parent cycles make pi loop until V8
// aborts), and the copy is compared byte-for-byte with the original afterwards to detect writes
// made by open (newline repair, migration rewrite, header written into an empty file).
//
// Usage:
//   node sessions-fixtures/broken/observe.mjs            # print the observations
//   node sessions-fixtures/broken/observe.mjs --write    # also write <dir>/expected.json and the
//                                                        # generated table in <dir>/README.md
//   PI_PKG=/path/to/node_modules/@earendil-works/pi-coding-agent node .../observe.mjs
//   (default: /tmp/pi/node_modules/@earendil-works/pi-coding-agent, falling back to
//    tests/interop/node_modules/@earendil-works/pi-coding-agent in this repository)
//   OBSERVE_TIMEOUT_MS=120000 (per file)
//
// Policy columns (shakeRead/shakeWrite/shakeReason/tests) come from <dir>/cases.json, written by
// make.py; this script only adds what pi actually does.

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "..", "..");

function piPkg() {
	if (process.env.PI_PKG) return resolve(process.env.PI_PKG);
	const candidates = [
		"/tmp/pi/node_modules/@earendil-works/pi-coding-agent",
		join(REPO, "tests/interop/node_modules/@earendil-works/pi-coding-agent"),
	];
	return candidates.find((p) => existsSync(join(p, "dist/core/session-manager.js"))) ?? candidates[0];
}

// ------------------------------------------------------------------------------------------
// child: observe one copy, print one JSON line on stdout
// ------------------------------------------------------------------------------------------
async function child(copyPath) {
	const pkg = piPkg();
	const sm = await import(pathToFileURL(join(pkg, "dist/core/session-manager.js")).href);
	const comp = await import(pathToFileURL(join(pkg, "dist/core/compaction/compaction.js")).href);
	const out = { pi: "loads", piStage: null, piError: null };
	const stage = (s) => process.stderr.write(`stage:${s}\n`);
	let mgr, projection, branch, est;
	const fail = (s, e) => {
		out.pi = "throws";
		out.piStage = s;
		out.piError = `${e?.constructor?.name ?? "Error"}: ${e?.message ?? String(e)}`;
	};
	try {
		stage("open");
		mgr = sm.SessionManager.open(copyPath);
	} catch (e) {
		fail("open", e);
	}
	if (mgr) {
		const header = mgr.getHeader();
		out.headerVersionAfterOpen = header ? (header.version ?? null) : null;
		out.entryCount = mgr.getEntries().length;
		const leaf = mgr.getLeafId();
		out.leafId = leaf === undefined ? "undefined" : leaf;
		try {
			stage("projection");
			projection = mgr.buildSessionProjection();
		} catch (e) {
			fail("projection", e);
		}
		if (projection) {
			out.projectedMessages = projection.messages.length;
			// per-message estimate in model order, shaped like `pi-shake status --json`'s projection
			out.projection = projection.entries.flatMap((pe) =>
				pe.messages.map((m) => {
					let tokens = null;
					let error;
					try {
						tokens = comp.estimateTokens(m);
					} catch (e) {
						error = `${e?.constructor?.name}: ${e?.message}`;
					}
					return { entryId: pe.sourceEntry?.id ?? null, role: m?.role ?? null, tokens, ...(error ? { error } : {}) };
				}),
			);
			try {
				stage("branch");
				branch = mgr.getBranch();
				out.branchLength = branch.length;
				stage("estimate");
				est = comp.estimateProjectedContextTokens(projection, branch);
				out.contextTokens = est.tokens;
				out.usageTokens = est.usageTokens;
				out.lastUsageIndex = est.lastUsageIndex;
			} catch (e) {
				fail("estimate", e);
			}
		}
		// What /compact would hit with default settings (keepRecentTokens 20000: with these small
		// sessions it estimates every projected entry and finds nothing to compact).
		try {
			stage("prepareCompaction");
			const prep = comp.prepareCompaction(mgr.getBranch(), comp.DEFAULT_COMPACTION_SETTINGS);
			out.prepareCompaction = prep
				? `ok: firstKeptEntryId ${prep.firstKeptEntryId}, ${prep.messagesToSummarize.length}+${prep.turnPrefixMessages.length} messages to summarize`
				: "nothing to compact";
		} catch (e) {
			out.prepareCompaction = `throws ${e?.constructor?.name}: ${e?.message}`;
		}
	}
	stage("done");
	process.stdout.write(`${JSON.stringify(out)}\n`);
}

// ------------------------------------------------------------------------------------------
// parent
// ------------------------------------------------------------------------------------------
function describeModification(before, after) {
	if (Buffer.compare(before, after) === 0) return null;
	if (before.length === 0) return "header written into the empty file";
	if (after.length === before.length + 1 && after[after.length - 1] === 0x0a && Buffer.compare(after.subarray(0, before.length), before) === 0)
		return "appended \\n";
	return "rewritten";
}

function observeFile(file, workDir) {
	const name = basename(file);
	const copy = join(workDir, name);
	copyFileSync(file, copy);
	const before = readFileSync(file);
	const timeout = Number(process.env.OBSERVE_TIMEOUT_MS ?? 120000);
	const t0 = Date.now();
	const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", copy], {
		encoding: "utf8",
		timeout,
		killSignal: "SIGKILL",
		maxBuffer: 64 * 1024 * 1024,
		env: { ...process.env, PI_CODING_AGENT_DIR: join(workDir, "agent") },
	});
	process.stderr.write(`  ${name}: ${Date.now() - t0} ms\n`);
	const after = existsSync(copy) ? readFileSync(copy) : Buffer.alloc(0);
	const mod = describeModification(before, after);
	let obs;
	const line = (r.stdout ?? "").trim().split("\n").pop();
	if (r.status === 0 && line) {
		obs = JSON.parse(line);
	} else {
		const stages = (r.stderr ?? "").split("\n").filter((l) => l.startsWith("stage:"));
		const lastStage = stages.length ? stages[stages.length - 1].slice(6) : null;
		const errLines = (r.stderr ?? "").split("\n");
		const fatal =
			errLines.find((l) => /invalid size error|heap out of memory|Invalid array length|Maximum call stack/.test(l)) ??
			errLines.find((l) => /Error/.test(l));
		const why = r.error?.code === "ETIMEDOUT" ? `killed after the ${timeout} ms timeout` : `process aborted (${r.signal ?? `exit ${r.status}`})`;
		obs = {
			pi: "hangs",
			piStage: lastStage,
			piError: `${why} in ${lastStage}${fatal ? `: ${fatal.replace(/^#\s*/, "").trim()}` : ""}`,
		};
	}
	obs.fileModifiedOnOpen = mod !== null;
	obs.fileModification = mod;
	if (mod === "rewritten") {
		const ids = (buf) =>
			buf
				.toString("utf8")
				.split("\n")
				.flatMap((l) => {
					try {
						const v = JSON.parse(l);
						return v && typeof v.id === "string" && v.type !== "session" ? [v.id] : [];
					} catch {
						return [];
					}
				})
				.sort()
				.join(",");
		obs.idsRegenerated = ids(before) !== ids(after);
		obs.rewrittenLines = after.toString("utf8").split("\n").filter((l) => l.length > 0).length;
	}
	if (obs.idsRegenerated) {
		// migrated files get fresh random ids: keep the observation reproducible
		obs.leafId = obs.leafId === undefined ? undefined : "(regenerated)";
		if (obs.projection) for (const p of obs.projection) if (p.entryId) p.entryId = "(regenerated)";
		if (obs.prepareCompaction) obs.prepareCompaction = obs.prepareCompaction.replace(/firstKeptEntryId \S+,/, "firstKeptEntryId (regenerated),");
	}
	if (obs.piError) obs.piError = obs.piError.split(workDir).join("<copy-dir>");
	return obs;
}

function piSummary(o) {
	const compact = o.prepareCompaction?.startsWith("throws") ? `; /compact (prepareCompaction): ${o.prepareCompaction}` : "";
	return piSummaryCore(o) + compact;
}

function piSummaryCore(o) {
	const mod = o.fileModification
		? `; file modified on open: ${o.fileModification}${o.idsRegenerated ? " (every entry id regenerated)" : ""}`
		: "";
	if (o.pi === "loads")
		return `loads: ${o.projectedMessages} projected messages, contextTokens ${o.contextTokens}${o.lastUsageIndex === null ? " (pure estimate)" : " (usage-based)"}, leaf ${o.leafId}${mod}`;
	if (o.pi === "throws") {
		const extra = o.projectedMessages != null ? ` (projection built: ${o.projectedMessages} messages)` : "";
		return `throws in ${o.piStage}: \`${o.piError}\`${extra}${mod}`;
	}
	return `hangs (${o.piError})${mod}`;
}

function mdEscape(s) {
	return String(s).replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function updateReadme(dir, results, cases) {
	const readme = join(dir, "README.md");
	if (!existsSync(readme)) return false;
	const text = readFileSync(readme, "utf8");
	const begin = "<!-- BEGIN observed (generated by observe.mjs --write) -->";
	const end = "<!-- END observed -->";
	const i = text.indexOf(begin);
	const j = text.indexOf(end);
	if (i < 0 || j < 0) return false;
	const rows = ["| file | tests | real pi 1.6.0 (open → projection → estimate) | pi-shake read | pi-shake write |", "|---|---|---|---|---|"];
	for (const [name, o] of Object.entries(results)) {
		const c = cases[name] ?? {};
		const write = c.shakeWrite === "refuse" ? `**refuse**: ${c.shakeReason}` : `allow${c.shakeReason ? `: ${c.shakeReason}` : ""}`;
		rows.push(`| \`${name}\` | ${mdEscape(c.tests ?? "")} | ${mdEscape(piSummary(o))} | ${c.shakeRead ?? ""} | ${mdEscape(write)} |`);
	}
	writeFileSync(readme, `${text.slice(0, i + begin.length)}\n${rows.join("\n")}\n${text.slice(j)}`);
	return true;
}

async function parent(args) {
	const write = args.includes("--write");
	const dirs = args.filter((a) => !a.startsWith("--"));
	const targets = dirs.length ? dirs.map((d) => resolve(d)) : [HERE, resolve(HERE, "..", "legacy")];
	const pkg = piPkg();
	const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
	process.stderr.write(`pi package: ${pkg} (${version})\n`);
	for (const dir of targets) {
		const cases = existsSync(join(dir, "cases.json")) ? JSON.parse(readFileSync(join(dir, "cases.json"), "utf8")) : {};
		const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();
		const results = {};
		const work = mkdtempSync(join(tmpdir(), "pi-observe-"));
		try {
			for (const f of files) {
				const o = observeFile(join(dir, f), work);
				const c = cases[f] ?? {};
				results[f] = {
					pi: o.pi,
					piError: o.piError ?? null,
					piStage: o.piStage ?? null,
					projectedMessages: o.projectedMessages ?? null,
					contextTokens: o.contextTokens ?? null,
					lastUsageIndex: o.lastUsageIndex ?? null,
					prepareCompaction: o.prepareCompaction ?? null,
					projection: o.projection ?? null,
					leafId: o.leafId ?? null,
					entryCount: o.entryCount ?? null,
					branchLength: o.branchLength ?? null,
					headerVersionAfterOpen: o.headerVersionAfterOpen ?? null,
					fileModifiedOnOpen: o.fileModifiedOnOpen,
					fileModification: o.fileModification,
					idsRegenerated: o.idsRegenerated ?? false,
					shakeRead: c.shakeRead ?? null,
					shakeWrite: c.shakeWrite ?? null,
					shakeReason: c.shakeReason ?? null,
					tests: c.tests ?? null,
				};
				process.stdout.write(`${basename(dir)}/${f}: ${piSummary(o)}\n`);
			}
		} finally {
			rmSync(work, { recursive: true, force: true });
		}
		if (write) {
			const doc = { _generatedBy: "sessions-fixtures/broken/observe.mjs", _pi: `@earendil-works/pi-coding-agent@${version}`, ...results };
			writeFileSync(join(dir, "expected.json"), `${JSON.stringify(doc, null, 2)}\n`);
			const ok = updateReadme(dir, results, cases);
			process.stderr.write(`wrote ${join(dir, "expected.json")}${ok ? " and README table" : ""}\n`);
		}
	}
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") await child(argv[1]);
else await parent(argv);
