// Shared by generate.mjs (fixture generator) and resume-check.mjs (resume a session with the real
// pi CLI): the scripted mock OpenAI chat-completions server on 127.0.0.1 and the isolated pi agent
// dir (models.json pointing at the mock, settings.json) plus the env pi runs with.

import { createServer } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
export const PI_PKG = join(HERE, "node_modules", "@earendil-works", "pi-coding-agent");
export const PI_CLI = join(PI_PKG, "dist", "bundle", "cli.js");

// =============================================================================================
// Mock OpenAI chat-completions server
// =============================================================================================

export const SUMMARIZER_MARKER = "You are a context summarization assistant";

export class MockServer {
	/** `log` gets warnings, `vlog` verbose traces (both default to silence). */
	constructor({ log = () => {}, vlog = () => {} } = {}) {
		this.log = log;
		this.vlog = vlog;
		/** UTF-8 byte length of each request body, parallel to `requests`. */
		this.requestBytes = [];
		this.queue = [];
		this.summaries = [];
		this.requests = [];
		this.unexpected = 0;
		this.scenario = "none";
		this.callSeq = 0;
	}
	async start() {
		this.server = createServer((req, res) => this.handle(req, res));
		await new Promise((r) => this.server.listen(0, "127.0.0.1", r));
		this.port = this.server.address().port;
		this.baseUrl = `http://127.0.0.1:${this.port}/v1`;
	}
	stop() {
		this.server.closeAllConnections?.();
		return new Promise((r) => this.server.close(r));
	}
	reset(scenario) {
		this.scenario = scenario;
		this.queue = [];
		this.summaries = [];
		this.requests = [];
		this.requestBytes = [];
		this.callSeq = 0;
	}
	/** Queue model replies (consumed in order by non-summarization requests). */
	script(...replies) {
		this.queue.push(...replies);
	}
	/** Queue summaries for compaction / branch-summary requests. */
	scriptSummary(...texts) {
		this.summaries.push(...texts);
	}
	handle(req, res) {
		let body = "";
		req.setEncoding("utf8");
		req.on("data", (c) => (body += c));
		req.on("end", () => {
			let json;
			try {
				json = JSON.parse(body);
			} catch {
				res.writeHead(400).end("bad json");
				return;
			}
			if (!req.url.endsWith("/chat/completions")) {
				this.vlog(`unexpected url ${req.method} ${req.url}`);
				res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
				return;
			}
			this.requests.push(json);
			this.requestBytes.push(Buffer.byteLength(body, "utf8"));
			const msgs = json.messages ?? [];
			const sys = msgs.find((m) => m.role === "system" || m.role === "developer");
			const sysText = typeof sys?.content === "string" ? sys.content : JSON.stringify(sys?.content ?? "");
			const promptTokens = Math.ceil((JSON.stringify(msgs).length + JSON.stringify(json.tools ?? []).length) / 4);
			let reply;
			if (sysText.startsWith(SUMMARIZER_MARKER)) {
				// A queued summary is its text, or a reply object (e.g. `{error: {status, message}}`).
				const queued = this.summaries.shift();
				reply =
					queued !== null && typeof queued === "object"
						? queued
						: { text: queued ?? "## Goal\nContinue the task.\n\n## Progress\n- (mock summary)\n\n## Next Steps\n- Keep going." };
				this.vlog(`summarization request -> ${reply.error ? `HTTP ${reply.error.status}` : `${reply.text.length} chars`}`);
			} else {
				reply = this.queue.shift();
				if (!reply) {
					this.unexpected++;
					this.log(`WARNING: ${this.scenario}: no scripted reply left (request #${this.requests.length})`);
					reply = { text: "(mock: no scripted reply)" };
				}
				if (typeof reply === "function") reply = reply(json);
			}
			this.vlog(`request #${this.requests.length}: ${msgs.length} msgs, ~${promptTokens} tokens -> ${reply.error ? `HTTP ${reply.error.status}` : "stream"}`);
			this.respond(res, json, reply, promptTokens);
		});
	}
	respond(res, request, reply, promptTokens) {
		if (reply.error) {
			const headers = { "content-type": "application/json", ...(reply.error.headers ?? {}) };
			res.writeHead(reply.error.status, headers);
			res.end(JSON.stringify({ error: { message: reply.error.message, type: reply.error.type ?? "server_error", code: null } }));
			return;
		}
		res.writeHead(200, {
			"content-type": "text/event-stream",
			"cache-control": "no-cache",
			connection: "keep-alive",
		});
		const id = `chatcmpl-${this.scenario}-${++this.callSeq}`;
		const model = request.model ?? "mock-coder";
		const base = { id, object: "chat.completion.chunk", created: 1767225600 + this.callSeq, model };
		const chunk = (delta, finish = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
		const out = [];
		out.push(chunk({ role: "assistant", content: "" }));
		let outputChars = 0;
		for (const piece of split(reply.thinking ?? "", 400)) {
			out.push(chunk({ reasoning_content: piece }));
			outputChars += piece.length;
		}
		for (const piece of split(reply.text ?? "", 300)) {
			out.push(chunk({ content: piece }));
			outputChars += piece.length;
		}
		(reply.tools ?? []).forEach((tc, index) => {
			const argsJson = JSON.stringify(tc.args);
			out.push(chunk({ tool_calls: [{ index, id: tc.id, type: "function", function: { name: tc.name, arguments: "" } }] }));
			for (const piece of split(argsJson, 40)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
			outputChars += tc.name.length + argsJson.length;
		});
		if (reply.streamError) {
			// Mid-stream failure: OpenAI-style error object in the SSE stream, then the stream ends.
			for (const c of out) res.write(`data: ${JSON.stringify(c)}\n\n`);
			res.write(`data: ${JSON.stringify({ error: { message: reply.streamError, type: "server_error", code: null } })}\n\n`);
			res.end();
			return;
		}
		const finish = reply.finish ?? ((reply.tools ?? []).length ? "tool_calls" : "stop");
		out.push(chunk({}, finish));
		const completion = Math.max(1, Math.ceil(outputChars / 4));
		const reasoning = Math.ceil((reply.thinking ?? "").length / 4);
		const cached = reply.cachedTokens ?? Math.floor(promptTokens * 0.5);
		out.push({
			...base,
			choices: [],
			usage: {
				prompt_tokens: promptTokens,
				completion_tokens: completion,
				total_tokens: promptTokens + completion,
				prompt_tokens_details: { cached_tokens: cached },
				completion_tokens_details: { reasoning_tokens: reasoning },
			},
		});
		for (const c of out) res.write(`data: ${JSON.stringify(c)}\n\n`);
		res.write("data: [DONE]\n\n");
		res.end();
	}
}

export function split(s, n) {
	const parts = [];
	for (let i = 0; i < s.length; i += n) parts.push(s.slice(i, i + n));
	return parts;
}

// =============================================================================================
// Isolated pi agent dir
// =============================================================================================

/** Write `models.json` (provider `mock` -> `baseUrl`) and `settings.json` into `agentDir`. */
export function writeAgentDir(agentDir, baseUrl, settings = {}) {
	mkdirSync(agentDir, { recursive: true });
	const models = {
		providers: {
			mock: {
				name: "Mock (fixture generator)",
				baseUrl,
				api: "openai-completions",
				apiKey: "$MOCK_API_KEY",
				compat: { supportsDeveloperRole: false, supportsReasoningEffort: false, supportsStore: false },
				models: [
					{
						id: "mock-coder",
						name: "Mock Coder",
						reasoning: true,
						input: ["text", "image"],
						contextWindow: 128000,
						maxTokens: 16384,
						cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
					},
				],
			},
		},
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify(models, null, 2));
	const baseSettings = {
		defaultProvider: "mock",
		defaultModel: "mock-coder",
		defaultThinkingLevel: "medium",
		enableInstallTelemetry: false,
		retry: { enabled: true, maxRetries: 3, baseDelayMs: 5, provider: { maxRetries: 0 } },
		compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 },
	};
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify(deepMerge(baseSettings, settings), null, 2));
}

/** The environment pi runs with: only PATH from outside, everything else isolated. */
export function piEnv({ agentDir, home, tmp }) {
	return {
		PATH: process.env.PATH,
		HOME: home,
		LANG: "C.UTF-8",
		TZ: "UTC",
		// pi's bash tool spills full outputs to $TMPDIR/pi-bash-*.log; keep them in the scratch dir.
		TMPDIR: tmp,
		PI_CODING_AGENT_DIR: agentDir,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
		MOCK_API_KEY: "mock-key",
	};
}

export function deepMerge(a, b) {
	const out = { ...a };
	for (const [k, v] of Object.entries(b)) {
		out[k] = v && typeof v === "object" && !Array.isArray(v) && typeof a[k] === "object" ? deepMerge(a[k], v) : v;
	}
	return out;
}
