#!/usr/bin/env node
// Lean "real pi" for the benchmark: pi 1.6's own SessionManager.open + buildSessionProjection +
// estimateProjectedContextTokens on one file, nothing else (no copy, no oracle bookkeeping).
//
//   node scripts/pi_project.mjs SESSION.jsonl     → prints "<messages> <contextTokens>"
//
// pi's open can write to the file (a lone "\n" when the last line lacks one, a rewrite for
// version < 3): only run it on files that end in "\n" and have version 3 (gen_session's do).
// Uses the interop rig's install (tests/interop/node_modules; `npm ci` there) unless
// PI_CODING_AGENT_PKG_DIR points elsewhere.
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join, resolve } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = process.env.PI_CODING_AGENT_PKG_DIR
	? resolve(process.env.PI_CODING_AGENT_PKG_DIR)
	: join(here, "..", "tests", "interop", "node_modules", "@earendil-works", "pi-coding-agent");
const path = process.argv[2];
if (!path) {
	process.stderr.write("usage: node scripts/pi_project.mjs SESSION.jsonl\n");
	process.exit(2);
}
const { SessionManager } = await import(pathToFileURL(join(pkg, "dist/core/session-manager.js")).href);
const { estimateProjectedContextTokens } = await import(pathToFileURL(join(pkg, "dist/core/compaction/index.js")).href);
const manager = SessionManager.open(resolve(path));
const projection = manager.buildSessionProjection();
const estimate = estimateProjectedContextTokens(projection, manager.getBranch());
process.stdout.write(`${projection.messages.length} ${estimate.tokens}\n`);
