#!/usr/bin/env node
// The model context a given pi release builds from session files (`scripts/cross_release.py`).
//
//   node scripts/release_context.mjs PI_PACKAGE_DIR SESSION.jsonl...
//
// For each file (opened on a private copy: opening can write), one JSON line:
// {"file", "ok": true, "messages": buildSessionContext().messages} or {"file", "ok": false, "error"}.
// Works with pi releases from 0.50 on (`SessionManager.open` + `buildSessionContext`).

import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, ...files] = process.argv.slice(2);
if (!pkg || files.length === 0) {
	process.stderr.write("usage: node scripts/release_context.mjs PI_PACKAGE_DIR SESSION.jsonl...\n");
	process.exit(2);
}
const sm = await import(pathToFileURL(join(pkg, "dist/core/session-manager.js")).href);
for (const f of files) {
	const dir = mkdtempSync(join(tmpdir(), "release-context-"));
	const copy = join(dir, basename(f));
	copyFileSync(f, copy);
	try {
		const messages = sm.SessionManager.open(copy).buildSessionContext().messages;
		console.log(JSON.stringify({ file: f, ok: true, messages }));
	} catch (e) {
		console.log(JSON.stringify({ file: f, ok: false, error: String(e?.message ?? e) }));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
