#!/usr/bin/env node
// The pi side of `scripts/op_fuzz.py`: real pi 1.6's own SessionManager appends to a session file
// the way a running pi does between pi-shake's runs.
//
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl turn SEED          # one more turn
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl branch SEED        # /tree to an earlier message, one turn there
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl summary-branch SEED  # the same, with a branch summary
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl retry SEED         # pi's retry: last reply hidden, a turn
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl extension SEED     # a custom message, label, model change,
//                                                                # a context_edit hiding a message or
//                                                                # the cache warmer's `usage` entry
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl compact KEEP       # pi's own compaction (a stand-in summary)
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl hook-compaction DOC.json  # the extension's: pi appends
//                                                                # `compact --emit-json`'s answer
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl open               # open only: pi 1.6 migrates a
//                                                                # file an older pi wrote, in place
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl redact ENTRY_ID    # what a redacting extension does:
//                                                                # a context_edit replacing its content
//   node scripts/op_fuzz_pi.mjs SESSION.jsonl fork DIR           # /fork and /clone: the active branch
//                                                                # copied to a new file in DIR
//                                                                # (prints its "path")
//
// A turn re-sends a run of the active branch's own messages (one user message and what followed
// it, real shapes: thinking, images, errors), deep-copied, with fresh tool-call ids. `compact`
// cuts where pi's `prepareCompaction` cuts (keepRecentTokens KEEP) and appends pi's compaction
// entry with a made-up summary, as pi does after its model answers. Prints one JSON line:
// {"ok":true,"action":…,"appended":N} or {"ok":false,"error":…}. pi is loaded from
// tests/interop/node_modules (or $PI_CODING_AGENT_PKG_DIR).

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const PKG = process.env.PI_CODING_AGENT_PKG_DIR
	? resolve(process.env.PI_CODING_AGENT_PKG_DIR)
	: join(HERE, "..", "tests", "interop", "node_modules", "@earendil-works", "pi-coding-agent");
const url = (rel) => pathToFileURL(join(PKG, rel)).href;

/** A small deterministic PRNG (mulberry32). */
function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** The active branch's message runs: each starts at a user message and ends before the next. */
function turns(branch) {
	const out = [];
	let cur = null;
	for (const e of branch) {
		if (e.type !== "message" || !e.message || typeof e.message !== "object") continue;
		const role = e.message.role;
		if (role === "user") {
			cur = [e.message];
			out.push(cur);
		} else if (cur && (role === "assistant" || role === "toolResult")) {
			cur.push(e.message);
		}
	}
	return out.filter((t) => t.length > 0 && t.length <= 40);
}

/** Append one turn copied from the branch, tool-call ids made fresh. */
function appendTurn(sm, rand, tag) {
	const pool = turns(sm.getBranch());
	if (pool.length === 0) {
		sm.appendMessage({ role: "user", content: [{ type: "text", text: `go on (${tag})` }], timestamp: Date.now() });
		return 1;
	}
	const turn = pool[Math.floor(rand() * pool.length)];
	const ids = new Map();
	const fresh = (id) => {
		if (!ids.has(id)) ids.set(id, `${String(id).slice(0, 24)}_${tag}_${ids.size}`);
		return ids.get(id);
	};
	for (const m of turn) {
		const copy = structuredClone(m);
		copy.timestamp = Date.now();
		if (copy.role === "assistant" && Array.isArray(copy.content)) {
			for (const b of copy.content) if (b && b.type === "toolCall" && typeof b.id === "string") b.id = fresh(b.id);
		}
		if (copy.role === "toolResult" && typeof copy.toolCallId === "string") copy.toolCallId = fresh(copy.toolCallId);
		if (copy.role === "user" && Array.isArray(copy.content)) {
			copy.content = [{ type: "text", text: `(${tag}) ` }, ...copy.content];
		}
		sm.appendMessage(copy);
	}
	return turn.length;
}

async function main() {
	const [path, action, arg] = process.argv.slice(2);
	if (!path || !action) {
		process.stderr.write("usage: node scripts/op_fuzz_pi.mjs SESSION.jsonl turn|branch|compact ARG\n");
		process.exit(2);
	}
	const { SessionManager } = await import(url("dist/core/session-manager.js"));
	const comp = await import(url("dist/core/compaction/index.js"));
	// A fork writes its new file into the session directory: DIR, never the user's.
	const sm = action === "fork" ? SessionManager.open(path, arg) : SessionManager.open(path);
	const n = ["hook-compaction", "redact", "fork"].includes(action) ? 0 : Number(arg ?? 0);
	const rand = rng(n);
	const tag = `f${n}`;
	let appended = 0;
	if (action === "turn") {
		appended = appendTurn(sm, rand, tag);
	} else if (action === "branch") {
		const msgs = sm.getBranch().filter((e) => e.type === "message" && e.message?.role === "user");
		if (msgs.length < 2) {
			appended = appendTurn(sm, rand, tag);
		} else {
			// /tree to just before an earlier user message (its parent), then one turn there.
			const target = msgs[Math.floor(rand() * (msgs.length - 1))];
			if (target.parentId) sm.branch(target.parentId);
			else sm.resetLeaf();
			appended = appendTurn(sm, rand, tag);
		}
	} else if (action === "summary-branch") {
		// /tree with a summary of the abandoned path, then one turn there.
		const msgs = sm.getBranch().filter((e) => e.type === "message" && e.message?.role === "user");
		const target = msgs.length > 1 ? msgs[Math.floor(rand() * (msgs.length - 1))] : null;
		if (target?.parentId) {
			sm.branchWithSummary(target.parentId, `The abandoned path (${tag}) tried something else.`, {}, false);
			appended = 1;
		}
		appended += appendTurn(sm, rand, tag);
	} else if (action === "retry") {
		// pi's retry after a failed request: the last assistant message is hidden (a null
		// context_edit), then the turn goes on.
		const last = [...sm.getBranch()].reverse().find((e) => e.type === "message" && e.message?.role === "assistant");
		if (last) {
			sm.appendContextEdit(last.id, null);
			appended = 1;
		}
		appended += appendTurn(sm, rand, tag);
	} else if (action === "extension") {
		// What an extension may append: a custom message in context (text, or a big text and an
		// image), a label, a model or
		// thinking-level change, a session name; or a context_edit hiding an earlier message.
		const kind = Math.floor(rand() * 5);
		if (kind === 0) {
			// A note as a string, or as blocks with a big text and an image (shake folds both).
			const big = Array.from({ length: 400 }, (_, i) => `row ${i} of ${tag}: src/mod_${i}.rs ok`).join("\n");
			const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
			sm.appendCustomMessageEntry(
				"op-fuzz",
				rand() < 0.5
					? `note ${tag}: keep src/lib.rs in mind`
					: [
							{ type: "text", text: `report ${tag}:\n${big}` },
							{ type: "image", data: png.repeat(40), mimeType: "image/png" },
						],
				true,
			);
		}
		else if (kind === 1) {
			const b = sm.getBranch();
			sm.appendLabelChange(b[Math.floor(rand() * b.length)].id, `label-${tag}`);
		} else if (kind === 2) {
			sm.appendModelChange("mock", `model-${tag}`);
			sm.appendThinkingLevelChange(rand() < 0.5 ? "low" : "high");
			sm.appendSessionInfo(`name ${tag}`);
		} else if (kind === 4) {
			// pi's cache warmer: a `usage` entry, outside the context, that becomes the leaf.
			const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
			sm.appendUsage("cache_warm", "mock", `model-${tag}`, { input: 10, output: 0, cacheRead: 5000, cacheWrite: 0, totalTokens: 5010, cost });
		} else {
			const editable = sm
				.getBranch()
				.filter((e) => e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message?.role));
			if (editable.length) sm.appendContextEdit(editable[Math.floor(rand() * editable.length)].id, null);
		}
		appended = 1;
	} else if (action === "redact") {
		sm.appendContextEdit(arg, { content: [{ type: "text", text: "[redacted by an extension]" }] });
		appended = 1;
	} else if (action === "fork") {
		// What /fork and /clone do (agent-session-runtime): only the path from the root to the
		// leaf, other branches' entries left out and labels moved to the end.
		const forked = sm.createBranchedSession(sm.getLeafId());
		console.log(JSON.stringify({ ok: true, action, appended: 0, path: forked }));
		return;
	} else if (action === "hook-compaction") {
		// What the pi-shake extension hands pi from `compact --emit-json`; pi appends the entry.
		const doc = JSON.parse(readFileSync(arg, "utf8"));
		sm.appendCompaction(doc.summary, doc.firstKeptEntryId, doc.tokensBefore, doc.details, true);
		appended = 1;
	} else if (action === "compact") {
		const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: n };
		const prep = comp.prepareCompaction(sm.getBranch(), settings);
		if (!prep) {
			console.log(JSON.stringify({ ok: true, action, appended: 0 }));
			return;
		}
		sm.appendCompaction(
			`## Goal\npi's own summary (${tag}), standing in for the model's.\n\n## Progress\n- worked on it`,
			prep.firstKeptEntryId,
			prep.tokensBefore,
			{ readFiles: [], modifiedFiles: [] },
		);
		appended = 1;
	} else if (action !== "open") {
		throw new Error(`unknown action ${action}`);
	}
	console.log(JSON.stringify({ ok: true, action, appended }));
}

main().catch((e) => {
	console.log(JSON.stringify({ ok: false, error: String(e?.stack ?? e) }));
});
