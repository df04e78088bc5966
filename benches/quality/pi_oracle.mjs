#!/usr/bin/env node
// The pi side of the compaction-quality benchmark: everything here is pi 1.6.0's OWN code
// (SessionManager, buildSessionProjection, prepareCompaction, estimateTokens, convertToLlm,
// serializeConversation), loaded from tests/interop/node_modules (Node >= 20).
//
//   node benches/quality/pi_oracle.mjs migrate IN.jsonl OUT.jsonl
//       open a copy of IN with pi's SessionManager (which migrates v1/v2 to v3 and rewrites the
//       file) and write the migrated bytes to OUT.
//   node benches/quality/pi_oracle.mjs prepare < jobs.jsonl
//       one job per line: {"path", "keep", "targetFirstKept"?, "later"?: {"path", "fromLine"}};
//       prints one JSON line per job: pi's cut for the prefix (prepareCompaction), the region
//       (messagesToSummarize + turnPrefixMessages) and the kept part as plain text parts, their
//       token estimates, pi's own serialization of the region (what its summarizer is given),
//       and the texts of the later lines. With targetFirstKept, keepRecentTokens is searched so
//       that pi's cut lands on that entry (to reproduce a real pi compaction's cut).
//   node benches/quality/pi_oracle.mjs check < jobs.jsonl
//       one job per line: {"path", "summary"}; opens a copy with pi and reports whether the
//       projection starts (after system messages) with a compaction summary equal to `summary`.
//
// Errors are reported per job as {"ok": false, "error"}; the exit code is 0 unless the usage is
// wrong or pi cannot be loaded.

import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join, resolve, basename } from "node:path";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

const HERE = dirname(fileURLToPath(import.meta.url));
const PKG = process.env.PI_CODING_AGENT_PKG_DIR
	? resolve(process.env.PI_CODING_AGENT_PKG_DIR)
	: join(HERE, "..", "..", "tests", "interop", "node_modules", "@earendil-works", "pi-coding-agent");
const url = (rel) => pathToFileURL(join(PKG, rel)).href;

const sm = await import(url("dist/core/session-manager.js"));
const comp = await import(url("dist/core/compaction/index.js"));
const msgs = await import(url("dist/core/messages.js"));
const { SessionManager } = sm;

const SETTINGS = (keep) => ({ enabled: true, reserveTokens: 16384, keepRecentTokens: keep });

function withCopy(path, fn) {
	const dir = mkdtempSync(join(tmpdir(), "pi-shake-quality-"));
	try {
		const copy = join(dir, basename(path));
		copyFileSync(path, copy);
		return fn(copy);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

function text(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((b) => b && b.type === "text" && typeof b.text === "string")
		.map((b) => b.text)
		.join("\n");
}

// A projected/agent message as plain text parts. `prose` is what any summary keeps by
// construction (user and assistant text, tool-call names and arguments, summaries);
// `output` is tool output (tool results, output of user-run shell commands); `thinking` is
// neither (it is part of the kept context, not of a region's prose).
function parts(m) {
	const p = { role: m.role, prose: [], output: [], thinking: [], tool: null };
	switch (m.role) {
		case "user":
		case "custom":
			p.prose.push(text(m.content));
			break;
		case "assistant":
			for (const b of Array.isArray(m.content) ? m.content : []) {
				if (!b) continue;
				if (b.type === "text") p.prose.push(b.text ?? "");
				else if (b.type === "thinking") p.thinking.push(b.thinking ?? "");
				else if (b.type === "toolCall") p.prose.push(`${b.name}(${JSON.stringify(b.arguments ?? {})})`);
			}
			break;
		case "toolResult":
			p.tool = m.toolName ?? null;
			p.output.push(text(m.content));
			break;
		case "bashExecution":
			p.tool = "bashExecution";
			p.prose.push(String(m.command ?? ""));
			p.output.push(String(m.output ?? ""));
			break;
		case "compactionSummary":
		case "branchSummary":
			p.prose.push(String(m.summary ?? ""));
			break;
		default:
			break;
	}
	p.tokens = comp.estimateTokens(m);
	return p;
}

// Texts of the later lines of a file (raw JSONL, file order from line `fromLine`, 0-based):
// user text, assistant text, tool-call arguments, user-run shell commands. No tool output, no
// thinking, no summaries: what the session went on to *use*.
function laterTexts(path, fromLine) {
	const lines = readFileSync(path, "utf8").split("\n");
	const out = [];
	for (let i = fromLine; i < lines.length; i++) {
		let e;
		try {
			e = JSON.parse(lines[i]);
		} catch {
			continue;
		}
		if (!e || e.type !== "message" || !e.message) continue;
		const m = e.message;
		if (m.role === "user") out.push(text(m.content));
		else if (m.role === "assistant") {
			for (const b of Array.isArray(m.content) ? m.content : []) {
				if (b?.type === "text") out.push(b.text ?? "");
				else if (b?.type === "toolCall") out.push(JSON.stringify(b.arguments ?? {}));
			}
		} else if (m.role === "bashExecution") out.push(String(m.command ?? ""));
	}
	return out;
}

function prepareAt(branch, keep) {
	return comp.prepareCompaction(branch, SETTINGS(keep));
}

function prepare(job) {
	return withCopy(job.path, (copy) => {
		const manager = SessionManager.open(copy);
		const branch = manager.getBranch();
		const index = new Map(branch.map((e, i) => [e.id, i]));
		let keep = job.keep ?? 20000;
		let prep = prepareAt(branch, keep);
		let exact = true;
		if (job.targetFirstKept) {
			const target = index.get(job.targetFirstKept);
			if (target === undefined) return { ok: false, error: `targetFirstKept ${job.targetFirstKept} not on the branch` };
			// The cut moves towards the start as keep grows: find the smallest keep whose cut is
			// at or before the target.
			const cutOf = (k) => {
				const p = prepareAt(branch, k);
				return p ? (index.get(p.firstKeptEntryId) ?? -1) : -1;
			};
			let lo = 1;
			let hi = 4_000_000;
			while (lo < hi) {
				const mid = Math.floor((lo + hi) / 2);
				const c = cutOf(mid);
				if (c <= target) hi = mid; // -1: nothing to compact, the cut is at the start
				else lo = mid + 1;
			}
			keep = lo;
			prep = prepareAt(branch, keep);
			exact = prep?.firstKeptEntryId === job.targetFirstKept;
		}
		if (!prep) return { ok: true, nothing: true, keep };
		const region = [...prep.messagesToSummarize, ...prep.turnPrefixMessages];
		const projection = manager.buildSessionProjection();
		const kept = [];
		let inKept = false;
		for (const pe of projection.entries) {
			if (pe.sourceEntry?.id === prep.firstKeptEntryId) inKept = true;
			if (!inKept) continue;
			for (const m of pe.messages ?? []) if (m.role !== "system") kept.push(parts(m));
		}
		const ser = (ms) => comp.serializeConversation(msgs.convertToLlm(ms));
		let serialized = ser(prep.messagesToSummarize);
		if (prep.turnPrefixMessages.length > 0) {
			serialized += `\n\n---\n\n**Turn Context (split turn):**\n\n${ser(prep.turnPrefixMessages)}`;
		}
		if (prep.previousSummary) serialized = `${prep.previousSummary}\n\n${serialized}`;
		return {
			ok: true,
			nothing: false,
			keep,
			exact,
			firstKeptEntryId: prep.firstKeptEntryId,
			isSplitTurn: prep.isSplitTurn,
			previousSummary: prep.previousSummary ?? null,
			region: region.map(parts),
			kept,
			serialized,
			later: job.later ? laterTexts(job.later.path, job.later.fromLine) : [],
		};
	});
}

function check(job) {
	return withCopy(job.path, (copy) => {
		const manager = SessionManager.open(copy);
		const projection = manager.buildSessionProjection();
		const first = projection.messages.find((m) => m.role !== "system");
		const branch = manager.getBranch();
		const last = branch[branch.length - 1];
		const tokens = comp.estimateProjectedContextTokens(projection, branch).tokens;
		const startsWithSummary = first?.role === "compactionSummary" && first.summary === job.summary;
		return {
			ok: true,
			loaded: true,
			startsWithSummary,
			firstRole: first?.role ?? null,
			leafType: last?.type ?? null,
			firstKeptEntryId: last?.type === "compaction" ? last.firstKeptEntryId : null,
			messages: projection.messages.length,
			contextTokens: tokens,
		};
	});
}

function migrate(inPath, outPath) {
	withCopy(inPath, (copy) => {
		SessionManager.open(copy);
		writeFileSync(outPath, readFileSync(copy));
	});
}

async function jobs(fn) {
	const input = readFileSync(0, "utf8");
	for (const line of input.split("\n")) {
		if (!line.trim()) continue;
		let out;
		try {
			out = fn(JSON.parse(line));
		} catch (e) {
			out = { ok: false, error: String(e?.message ?? e) };
		}
		process.stdout.write(`${JSON.stringify(out)}\n`);
	}
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "migrate" && args.length === 2) migrate(args[0], args[1]);
else if (cmd === "prepare") await jobs(prepare);
else if (cmd === "check") await jobs(check);
else {
	process.stderr.write("usage: pi_oracle.mjs migrate IN OUT | prepare < jobs.jsonl | check < jobs.jsonl\n");
	process.exit(2);
}
