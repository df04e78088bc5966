//! Deterministic generator of large, realistic pi 1.6 sessions (benchmark input).
//!
//! ```text
//! cargo run --release --example gen_session -- --size 100MB --seed 7 OUT.jsonl
//! ```
//!
//! `--size` accepts `KB`/`MB`/`GB` (powers of 1000) and `KiB`/`MiB`/`GiB`; the file stops at the
//! first turn boundary past the size (so it is a little larger). `--entries N` stops after about
//! N entries instead. Same options + seed ⇒ same bytes.
//!
//! `--small` writes turns of tiny entries instead (~100–200 bytes each: a one-line prompt, an
//! assistant with one tool call and sometimes a short thinking block, a short tool result, a
//! one-line answer; usage on 5 % of answers), for the per-entry costs that big tool outputs hide.
//! The events below happen all the same, plus a pi compaction every 50,000 entries.
//!
//! What a file holds, in file order (positions are fractions of the target size):
//!
//! * header (`version: 3`), `model_change`, `thinking_level_change`, `session_info`, one `system`
//!   message with `sections` and `toolsAdded`, as pi 1.6 writes them;
//! * turns: user prompt (sometimes a fenced code block, sometimes an image) → assistant rounds
//!   (thinking blocks on about half, text, 1–3 tool calls: `bash`, `read`, `edit`, `write`) →
//!   tool results from 100 B to 500 KB (log-uniform; `read` of a PNG returns a base64 image) →
//!   a final assistant answer with `usage`; now and then a `bashExecution`, a `custom_message`,
//!   a `usage` (cache warm) entry, a `model_change`;
//! * ~15 %: an abandoned branch (navigate back without summary, continue from the fork point);
//! * ~30 %: an earlier `pi-shake shake` (its `context_edit`s + `custom`/`shake` log);
//! * ~45 %: an abandoned branch with a `branch_summary` and a `label` on it;
//! * ~60 %: a pi compaction (`firstKeptEntryId` = a user message three turns back, on the path;
//!   `systemMessage` replay, `details`, `usage`, `fromHook: false`);
//! * ~70 %: a provider failure: failed assistant (`stopReason: "error"`) + pi's retry
//!   `context_edit` (`replacement: null`);
//! * ~80 %: a second `pi-shake shake`; ~85 %: a `pi-shake undo` restoring part of it;
//! * the last line is a final assistant answer (the leaf).
//!
//! Every line is compact `JSON.stringify`-style JSON; ids are 8 lowercase hex chars.

#![allow(clippy::print_stdout, clippy::print_stderr)] // a command-line program

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use pi_shake::jscompat::{epoch_ms_to_iso, utf16_len};

const PROVIDER: &str = "anthropic";
const MODEL: &str = "claude-sonnet-4-5";
const CWD: &str = "/home/dev/src/orbit";
/// `--small`: entries between pi compactions.
const SMALL_COMPACT_EVERY: u64 = 50_000;

// ---------------------------------------------------------------------------------------------
// PRNG (splitmix64): tiny, fast, and stable across platforms and crate versions.
// ---------------------------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.next() % xs.len() as u64) as usize]
    }
    /// Log-uniform in `lo..=hi`.
    fn log_uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let (a, b) = ((lo as f64).ln(), (hi as f64).ln());
        ((a + (b - a) * self.unit()).exp() as u64).clamp(lo, hi)
    }
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

const WORDS: &[&str] = &[
    "config", "loader", "session", "entry", "parser", "buffer", "index", "token", "branch",
    "summary", "request", "response", "handler", "cache", "window", "offset", "length", "value",
    "result", "error", "state", "queue", "worker", "thread", "socket", "stream", "chunk", "frame",
    "layout", "render", "widget", "schema", "record", "field", "column", "filter", "reduce",
    "retry", "backoff", "timeout", "deadline", "budget", "metric", "counter", "gauge", "span",
];
const TYPES: &[&str] = &[
    "Session",
    "Entry",
    "Config",
    "Result<()>",
    "Vec<u8>",
    "Option<String>",
    "HashMap<K, V>",
    "Arc<Mutex<State>>",
    "&str",
    "usize",
    "Box<dyn Error>",
    "Cow<'a, str>",
];
const FILES: &[&str] = &[
    "src/main.rs",
    "src/lib.rs",
    "src/config.rs",
    "src/session/mod.rs",
    "src/session/entry.rs",
    "src/tree.rs",
    "src/render/layout.rs",
    "src/net/client.rs",
    "tests/e2e.rs",
    "Cargo.toml",
    "README.md",
    "docs/design.md",
    "web/src/App.tsx",
    "web/src/api.ts",
    "scripts/deploy.sh",
];
const SECTIONS: &[(&str, &str)] = &[
    (
        "preamble",
        "You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, run commands, and modify code.",
    ),
    (
        "tools",
        "<tools>\n- read: Read file contents\n- bash: Execute bash commands (ls, grep, find, etc.)\n- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call\n- write: Create or overwrite files\n\nAdditional tools may be available.\n</tools>",
    ),
    (
        "rules",
        "<rules>\n- Use bash for file operations like ls, rg, find\n- Use read to examine files instead of cat or sed.\n- Use edit for targeted changes. Batch changes to one file in a single call.\n- Use write only for new files or complete rewrites.\n- Be concise in your responses\n- Show file paths clearly when working with files\n</rules>",
    ),
    ("cwd", "<cwd>\n/home/dev/src/orbit\n</cwd>"),
];

/// A pool of source/log-like lines (ASCII mostly; some quotes, backslashes, tabs, and
/// non-ASCII incl. astral characters so that UTF-16 lengths and escapes matter).
fn line_pool(rng: &mut Rng) -> Vec<String> {
    let mut v = Vec::with_capacity(4096);
    for i in 0..4096u32 {
        let w = |r: &mut Rng| (*r.pick(WORDS)).to_string();
        let t = |r: &mut Rng| (*r.pick(TYPES)).to_string();
        let line = match rng.range(0, 15) {
            0 => format!("    let {} = {}.{}(&{})?;", w(rng), w(rng), w(rng), w(rng)),
            1 => format!(
                "pub fn {}_{}({}: {}) -> {} {{",
                w(rng),
                w(rng),
                w(rng),
                t(rng),
                t(rng)
            ),
            2 => format!(
                "    // {} the {} before the {} is {}",
                w(rng),
                w(rng),
                w(rng),
                w(rng)
            ),
            3 => format!(
                "        assert_eq!({}, \"{}\\n{}\");",
                w(rng),
                w(rng),
                w(rng)
            ),
            4 => format!("\tif {} != nil {{\n\t\treturn {}", w(rng), w(rng)),
            5 => format!(
                "error[E0308]: mismatched types → expected `{}`, found `{}`",
                t(rng),
                t(rng)
            ),
            6 => format!("test {}::{}_{} ... ok ✓", w(rng), w(rng), w(rng)),
            7 => format!(
                "🚀 deployed {} in {} ms (café naïve {})",
                w(rng),
                rng.range(1, 9999),
                i
            ),
            8 => format!(
                "{}:{}:    {}.{}({});",
                rng.pick(FILES),
                rng.range(1, 2000),
                w(rng),
                w(rng),
                w(rng)
            ),
            9 => format!(
                "-rw-r--r-- 1 dev dev {:>8} Mar  {} 10:{:02} {}",
                rng.range(10, 900_000),
                rng.range(1, 28),
                rng.range(0, 59),
                rng.pick(FILES)
            ),
            10 => format!(
                "   Compiling {} v0.{}.{}",
                w(rng),
                rng.range(1, 40),
                rng.range(0, 20)
            ),
            11 => format!(
                "  \"{}\": {{ \"{}\": {}, \"path\": \"C:\\\\tmp\\\\{}\" }},",
                w(rng),
                w(rng),
                rng.range(0, 1000),
                w(rng)
            ),
            12 => format!(
                "{:05}: the quick brown fox jumps over the lazy dog; checksum {}",
                i,
                rng.next() % 100_000
            ),
            13 => format!("        .{}(|{}| {}.{}())", w(rng), w(rng), w(rng), w(rng)),
            _ => String::new(),
        };
        v.push(line);
    }
    v
}

struct Text<'p> {
    pool: &'p [String],
}

impl Text<'_> {
    /// About `bytes` bytes of lines from the pool.
    fn lines(&self, rng: &mut Rng, bytes: u64) -> String {
        let mut s = String::with_capacity(bytes as usize + 128);
        while (s.len() as u64) < bytes {
            s.push_str(rng.pick(self.pool).as_str());
            s.push('\n');
        }
        s
    }
    /// `seq a b`-like output of about `bytes` bytes.
    fn numbers(&self, rng: &mut Rng, bytes: u64) -> String {
        let mut s = String::with_capacity(bytes as usize + 16);
        let mut n = rng.range(1, 50_000);
        while (s.len() as u64) < bytes {
            s.push_str(&n.to_string());
            s.push('\n');
            n += 1;
        }
        s
    }
    /// Prose of about `bytes` bytes (thinking, answers, summaries).
    fn prose(&self, rng: &mut Rng, bytes: u64) -> String {
        let mut s = String::with_capacity(bytes as usize + 64);
        let mut k = 0;
        while (s.len() as u64) < bytes {
            let w: &str = rng.pick::<&str>(WORDS);
            s.push_str(w);
            k += 1;
            if k % 14 == 0 {
                s.push_str(". ");
                if k % 70 == 0 {
                    s.push_str("\n\n");
                }
            } else {
                s.push(' ');
            }
        }
        s
    }
}

/// A base64 "PNG" of about `bytes` bytes.
fn base64_png(rng: &mut Rng, bytes: u64) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let n = (bytes / 4).max(8) * 4;
    let mut s = String::with_capacity(n as usize);
    s.push_str("iVBORw0KGgoAAAANSUhEUgAA");
    while (s.len() as u64) < n - 4 {
        let r = rng.next();
        for k in 0..8 {
            s.push(B64[((r >> (k * 6)) & 63) as usize] as char);
        }
    }
    s.truncate(n as usize - 4);
    s.push_str("QmCC");
    s
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn tokens(chars: u64) -> u64 {
    chars.div_ceil(4)
}

// ---------------------------------------------------------------------------------------------
// The session writer
// ---------------------------------------------------------------------------------------------

/// A tool result on the active path that a shake can fold (and undo restore).
#[derive(Clone)]
struct Foldable {
    id: String,
    tool: String,
    /// pi's estimate of the text blocks alone (what the placeholder names).
    text_tokens: u64,
    /// pi's estimate of the whole result (images count 1,200 each).
    tokens: u64,
    content: Value,
}

struct Gen<'p> {
    rng: Rng,
    text: Text<'p>,
    out: BufWriter<File>,
    written: u64,
    ids: HashSet<String>,
    leaf: Option<String>,
    now: i64,
    /// Rough context size (tokens) for plausible `usage` numbers.
    ctx: u64,
    calls: u64,
    responses: u64,
    /// Entries are being written to a branch that will be abandoned.
    off_path: bool,
    /// User-message ids on the active path (most recent last).
    users: Vec<String>,
    /// Tool results on the active path since the last compaction (most recent last).
    foldable: Vec<Foldable>,
    /// Folds of the last shake still in force (target, edit, tool, before, after, content).
    shaken: Vec<(Foldable, String, u64)>,
    model: &'static str,
    /// `--small`: turns of tiny entries (~100–200 bytes each) instead of realistic ones.
    small: bool,
    /// Entries written (header excluded).
    entries: u64,
}

impl Gen<'_> {
    fn id(&mut self) -> String {
        loop {
            let id = format!("{:08x}", self.rng.next() & 0xffff_ffff);
            if self.ids.insert(id.clone()) {
                return id;
            }
        }
    }

    fn tick(&mut self, lo: u64, hi: u64) -> i64 {
        self.now += self.rng.range(lo, hi) as i64;
        self.now
    }

    fn line(&mut self, v: &Value) -> Result<()> {
        let s = serde_json::to_string(v)?;
        self.out.write_all(s.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.written += s.len() as u64 + 1;
        Ok(())
    }

    /// Append an entry of `ty` with `fields` after the base fields; returns its id.
    fn entry(&mut self, ty: &str, fields: Value) -> Result<String> {
        let id = self.id();
        let ts = epoch_ms_to_iso(self.tick(1, 40));
        let mut m = serde_json::Map::new();
        m.insert("type".into(), json!(ty));
        m.insert("id".into(), json!(id));
        m.insert("parentId".into(), json!(self.leaf));
        m.insert("timestamp".into(), json!(ts));
        if let Value::Object(f) = fields {
            m.extend(f);
        }
        self.line(&Value::Object(m))?;
        self.leaf = Some(id.clone());
        self.entries += 1;
        Ok(id)
    }

    /// `custom` entries put `customType`/`data` first, as pi and pi-shake write them.
    fn custom(&mut self, custom_type: &str, data: Value) -> Result<String> {
        let id = self.id();
        let ts = epoch_ms_to_iso(self.tick(0, 2));
        let v = json!({"type": "custom", "customType": custom_type, "data": data, "id": id, "parentId": self.leaf, "timestamp": ts});
        self.line(&v)?;
        self.leaf = Some(id.clone());
        self.entries += 1;
        Ok(id)
    }

    fn message(&mut self, mut msg: Value) -> Result<String> {
        let ms = self.tick(5, 3000);
        msg["timestamp"] = json!(ms);
        self.entry("message", json!({ "message": msg }))
    }

    fn system_message(&self, ts: i64) -> Value {
        let mut sections = serde_json::Map::new();
        for (k, v) in SECTIONS {
            sections.insert((*k).into(), json!(v));
        }
        let tool = |name: &str, desc: &str, props: Value, req: Value| json!({"name": name, "description": desc, "parameters": {"type": "object", "required": req, "properties": props}});
        json!({
            "role": "system",
            "content": "",
            "sections": sections,
            "timestamp": ts,
            "toolsAdded": [
                tool("read", "Read the contents of a file. Supports text files and images (jpg, png, gif, webp).", json!({"path": {"type": "string", "description": "Path to the file to read (relative or absolute)"}, "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"}, "limit": {"type": "number", "description": "Maximum number of lines to read"}}), json!(["path"])),
                tool("bash", "Execute a bash command in the current working directory.", json!({"command": {"type": "string", "description": "Shell command to execute"}, "timeout": {"type": "number", "description": "Timeout in seconds (optional, no default timeout)"}}), json!(["command"])),
                tool("edit", "Edit a single file using exact text replacement.", json!({"path": {"type": "string"}, "edits": {"type": "array", "items": {"type": "object", "required": ["oldText", "newText"], "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}}}}}), json!(["path", "edits"])),
                tool("write", "Write content to a file. Creates the file if it does not exist, overwrites if it does.", json!({"path": {"type": "string"}, "content": {"type": "string"}}), json!(["path", "content"])),
            ]
        })
    }

    fn usage(&mut self, output: u64) -> Value {
        let input = self.rng.range(200, 2000);
        let cache_read = self.ctx.saturating_sub(input);
        let total = input + output + cache_read;
        let c = |n: u64, per_m: f64| (n as f64) * per_m / 1e6;
        json!({
            "input": input, "output": output, "cacheRead": cache_read, "cacheWrite": 0,
            "reasoning": output / 3, "totalTokens": total,
            "cost": {"input": c(input, 3.0), "output": c(output, 15.0), "cacheRead": c(cache_read, 0.3), "cacheWrite": 0, "total": c(input, 3.0) + c(output, 15.0) + c(cache_read, 0.3), "totalFromProvider": false}
        })
    }

    fn assistant(&mut self, content: Vec<Value>, stop: &str, out_tokens: u64) -> Result<String> {
        self.responses += 1;
        let usage = self.usage(out_tokens);
        let id = format!("msg_{:016x}", self.rng.next());
        let duration = self.rng.range(300, 40_000);
        self.message(json!({
            "role": "assistant", "content": content, "api": "anthropic-messages",
            "provider": PROVIDER, "model": self.model, "usage": usage, "stopReason": stop,
            "responseId": id, "durationMs": duration
        }))
    }

    fn user_prompt(&mut self) -> Result<()> {
        let r = &mut self.rng;
        let mut text = format!(
            "Please look at {} and fix the {} in the {} {}.",
            r.pick(FILES),
            r.pick(WORDS),
            r.pick(WORDS),
            r.pick(WORDS)
        );
        let mut chars = utf16_len(&text) as u64;
        if self.rng.chance(0.3) {
            // A pasted code block (the `elide` scope folds large fenced blocks).
            let n = self.rng.log_uniform(400, 20_000);
            let code = self.text.lines(&mut self.rng, n);
            text.push_str("\n\nHere is the current code:\n\n```rust\n");
            text.push_str(&code);
            text.push_str("```\n\nWhat is wrong with it?");
            chars = utf16_len(&text) as u64;
        }
        let mut content = vec![json!({"type": "text", "text": text})];
        if self.rng.chance(0.06) {
            let n = self.rng.log_uniform(20_000, 400_000);
            content.push(json!({"type": "image", "data": base64_png(&mut self.rng, n), "mimeType": "image/png"}));
            chars += 4800;
        }
        self.ctx += tokens(chars);
        let id = self.message(json!({"role": "user", "content": content}))?;
        if !self.off_path {
            self.users.push(id);
        }
        Ok(())
    }

    /// One tool call and its result (content + tokens), arguments chosen by tool.
    /// Returns (call block, tool, result message, text tokens, tokens, is_error).
    fn tool_call(&mut self) -> (Value, String, Value, u64, u64, bool) {
        self.calls += 1;
        let call_id = format!("toolu_{:016x}{:04x}", self.rng.next(), self.calls & 0xffff);
        let tool = *self
            .rng
            .pick(&["bash", "bash", "read", "read", "edit", "write"]);
        let size = self.rng.log_uniform(100, 500_000);
        let mut is_error = false;
        let (args, text, image, details) = match tool {
            "bash" => {
                let cmd = match self.rng.range(0, 3) {
                    0 => format!("seq 1 {}", size / 6),
                    1 => format!("rg -n '{}' src tests", self.rng.pick(WORDS)),
                    2 => "cargo build --release 2>&1 | tail -n 400".to_string(),
                    _ => format!(
                        "ls -la {}",
                        self.rng.pick(&["src", "tests", "web/src", "."])
                    ),
                };
                let out = if cmd.starts_with("seq") {
                    self.text.numbers(&mut self.rng, size)
                } else {
                    self.text.lines(&mut self.rng, size)
                };
                is_error = self.rng.chance(0.08);
                let details = (size > 51_200).then(|| {
                    json!({"truncation": {"truncated": true, "truncatedBy": "bytes", "totalLines": out.lines().count() * 3, "totalBytes": size * 3, "outputLines": out.lines().count(), "outputBytes": size, "lastLinePartial": false, "firstLineExceedsLimit": false, "maxLines": 2000, "maxBytes": 51200}, "fullOutputPath": format!("/tmp/pi-bash-{:012x}.log", self.rng.next() & 0xffff_ffff_ffff)})
                });
                (json!({"command": cmd}), out, None, details)
            }
            "read" if self.rng.chance(0.08) => {
                let n = self.rng.log_uniform(10_000, 400_000);
                let path = format!("docs/screenshots/{}.png", self.rng.pick(WORDS));
                (
                    json!({"path": path}),
                    "Read image file [image/png]".to_string(),
                    Some(base64_png(&mut self.rng, n)),
                    None,
                )
            }
            "read" => {
                let path = *self.rng.pick(FILES);
                let off = self.rng.range(1, 400);
                (
                    json!({"path": path, "offset": off, "limit": 2000}),
                    self.text.lines(&mut self.rng, size),
                    None,
                    None,
                )
            }
            "edit" => {
                let (a, b) = (self.rng.range(40, 600), self.rng.range(40, 600));
                let old = self.text.lines(&mut self.rng, a);
                let new = self.text.lines(&mut self.rng, b);
                let path = *self.rng.pick(FILES);
                (
                    json!({"path": path, "edits": [{"oldText": old, "newText": new}]}),
                    format!("Successfully replaced 1 block(s) in {path}."),
                    None,
                    Some(
                        json!({"diff": format!("-{}\n+{}", old.lines().next().unwrap_or(""), new.lines().next().unwrap_or("")), "firstChangedLine": self.rng.range(1, 900)}),
                    ),
                )
            }
            _ => {
                let n = self.rng.log_uniform(200, 30_000);
                let body = self.text.lines(&mut self.rng, n);
                let path = *self.rng.pick(FILES);
                (
                    json!({"path": path, "content": body}),
                    format!("Successfully wrote {} bytes to {path}", n),
                    None,
                    None,
                )
            }
        };
        let call = json!({"type": "toolCall", "id": call_id, "name": tool, "arguments": args});
        let mut content = vec![json!({"type": "text", "text": text})];
        let text_tokens = tokens(utf16_len(&text) as u64);
        let mut chars = utf16_len(&text) as u64;
        if let Some(data) = image {
            content.push(json!({"type": "image", "data": data, "mimeType": "image/png"}));
            chars += 4800;
        }
        let mut result = json!({"role": "toolResult", "toolCallId": call_id, "toolName": tool, "content": content});
        if let Some(d) = details {
            result["details"] = d;
        }
        result["isError"] = json!(is_error);
        result["durationMs"] = json!(self.rng.range(1, 5000));
        (
            call,
            tool.to_string(),
            result,
            text_tokens,
            tokens(chars),
            is_error,
        )
    }

    /// `--small`: a turn of tiny entries — a short prompt, an assistant with (sometimes) a short
    /// signed thinking block and one tool call, a short tool result, a one-line answer. No usage
    /// on most assistants, so entries stay around 100–200 bytes and per-entry costs dominate.
    fn small_turn(&mut self) -> Result<()> {
        let text = format!(
            "Fix the {} in {}.",
            self.rng.pick(WORDS),
            self.rng.pick(FILES)
        );
        self.ctx += tokens(utf16_len(&text) as u64);
        let id =
            self.message(json!({"role": "user", "content": [{"type": "text", "text": text}]}))?;
        if !self.off_path {
            self.users.push(id);
        }
        for _ in 0..self.rng.range(1, 3) {
            self.calls += 1;
            let call_id = format!("t{:x}", self.calls);
            let tool = *self.rng.pick(&["bash", "read"]);
            let args = if tool == "bash" {
                json!({"command": format!("rg {}", self.rng.pick(WORDS))})
            } else {
                json!({"path": self.rng.pick(FILES)})
            };
            let mut content = Vec::new();
            if self.rng.chance(0.3) {
                let n = self.rng.range(20, 120);
                let t = self.text.prose(&mut self.rng, n);
                self.ctx += tokens(utf16_len(&t) as u64);
                content
                    .push(json!({"type": "thinking", "thinking": t, "thinkingSignature": "Ev1"}));
            }
            content
                .push(json!({"type": "toolCall", "id": call_id, "name": tool, "arguments": args}));
            self.responses += 1;
            self.message(
                json!({"role": "assistant", "content": content, "stopReason": "toolUse"}),
            )?;
            let n = self.rng.log_uniform(10, 300);
            let out = self.text.lines(&mut self.rng, n);
            let chars = utf16_len(&out) as u64;
            self.ctx += tokens(chars);
            let result = json!({"role": "toolResult", "toolCallId": call_id, "toolName": tool, "content": [{"type": "text", "text": out}], "isError": false});
            let rc = result["content"].clone();
            let id = self.message(result)?;
            if !self.off_path && tokens(chars) > 30 {
                self.foldable.push(Foldable {
                    id,
                    tool: tool.to_string(),
                    text_tokens: tokens(chars),
                    tokens: tokens(chars),
                    content: rc,
                });
                if self.foldable.len() > 200 {
                    self.foldable.remove(0);
                }
            }
        }
        let n = self.rng.range(5, 40);
        let answer = self.text.prose(&mut self.rng, n);
        self.ctx += tokens(utf16_len(&answer) as u64);
        self.responses += 1;
        let mut msg = json!({"role": "assistant", "content": [{"type": "text", "text": answer}], "stopReason": "stop"});
        if self.rng.chance(0.05) {
            msg["usage"] = self.usage(20);
        }
        self.message(msg)?;
        Ok(())
    }

    /// user → assistant/tool rounds → final answer.
    fn turn(&mut self) -> Result<()> {
        if self.small {
            return self.small_turn();
        }
        self.user_prompt()?;
        let rounds = self.rng.range(1, 4);
        for _ in 0..rounds {
            let mut content = Vec::new();
            if self.rng.chance(0.5) {
                let n = self.rng.log_uniform(200, 20_000);
                let t = self.text.prose(&mut self.rng, n);
                self.ctx += tokens(utf16_len(&t) as u64);
                content.push(json!({"type": "thinking", "thinking": t, "thinkingSignature": format!("Ev{}", base64_png(&mut self.rng, 200))}));
            }
            if self.rng.chance(0.4) {
                let t = format!("Let me check the {} first.", self.rng.pick(WORDS));
                content.push(json!({"type": "text", "text": t}));
            }
            let n_calls = self.rng.range(1, 3);
            let mut results = Vec::new();
            for _ in 0..n_calls {
                let (call, tool, result, text_tok, tok, is_error) = self.tool_call();
                content.push(call);
                results.push((tool, result, text_tok, tok, is_error));
            }
            let out = self.rng.range(20, 400);
            self.assistant(content, "toolUse", out)?;
            for (tool, result, text_tokens, tok, is_error) in results {
                self.ctx += tok;
                let rc = result["content"].clone();
                let id = self.message(result)?;
                if !self.off_path && !is_error && text_tokens > 30 {
                    self.foldable.push(Foldable {
                        id,
                        tool,
                        text_tokens,
                        tokens: tok,
                        content: rc,
                    });
                    // Bounded memory: only the most recent results are shake candidates.
                    if self.foldable.len() > 200 {
                        self.foldable.remove(0);
                    }
                }
            }
        }
        let mut content = Vec::new();
        if self.rng.chance(0.3) {
            let n = self.rng.log_uniform(200, 8_000);
            content.push(json!({"type": "thinking", "thinking": self.text.prose(&mut self.rng, n), "thinkingSignature": format!("Ev{}", base64_png(&mut self.rng, 200))}));
        }
        let n = self.rng.log_uniform(100, 6_000);
        let mut answer = self.text.prose(&mut self.rng, n);
        if self.rng.chance(0.25) {
            answer.push_str("\n\n```diff\n");
            let d = self.rng.range(200, 3000);
            answer.push_str(&self.text.lines(&mut self.rng, d));
            answer.push_str("```\n");
        }
        self.ctx += tokens(utf16_len(&answer) as u64);
        content.push(json!({"type": "text", "text": answer}));
        let out = self.rng.range(50, 2000);
        self.assistant(content, "stop", out)?;
        // Now and then: extension message, user shell run, cache warm, model switch.
        if self.rng.chance(0.05) {
            self.entry("custom_message", json!({"customType": "reminder", "content": "Remember: run the tests before finishing.\n\n```sh\ncargo test\n```", "display": true, "details": {"source": "gen_session"}}))?;
        }
        if self.rng.chance(0.05) {
            let n = self.rng.log_uniform(100, 30_000);
            let output = self.text.lines(&mut self.rng, n);
            let ms = self.now;
            self.message(json!({"role": "bashExecution", "command": "git status --short && git diff --stat", "output": output, "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": ms}))?;
        }
        if self.rng.chance(0.02) {
            let u = self.usage(0);
            self.entry("usage", json!({"kind": "cache_warm", "provider": PROVIDER, "model": self.model, "usage": u}))?;
        }
        if self.rng.chance(0.01) {
            self.model = if self.model == MODEL {
                "claude-opus-4-1"
            } else {
                MODEL
            };
            self.entry(
                "model_change",
                json!({"provider": PROVIDER, "modelId": self.model}),
            )?;
        }
        Ok(())
    }

    /// Some turns on a branch that is then left; the session continues from the fork point.
    fn abandoned_branch(&mut self, summarize: bool) -> Result<()> {
        let fork = self.leaf.clone();
        self.off_path = true;
        for _ in 0..self.rng.range(2, 4) {
            self.turn()?;
        }
        self.off_path = false;
        let from = self.leaf.clone();
        self.leaf = fork;
        if summarize {
            let summary = format!(
                "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n{}",
                self.text.prose(&mut self.rng, 1500)
            );
            let u = self.usage(300);
            let id = self.entry("branch_summary", json!({"fromId": from, "summary": summary, "details": {"readFiles": ["src/config.rs"], "modifiedFiles": []}, "usage": u, "fromHook": false}))?;
            self.entry("label", json!({"targetId": id, "label": "plan-b-explored"}))?;
        }
        Ok(())
    }

    /// pi's compaction: keep from the user message three turns back.
    fn compaction(&mut self) -> Result<()> {
        let Some(first_kept) = self.users.iter().rev().nth(2).cloned() else {
            return Ok(());
        };
        let summary = format!(
            "## Goal\nFix the {} in the {}.\n\n## Progress\n{}\n\n## Next steps\n- run the tests\n\n<read-files>\nsrc/config.rs\nsrc/session/mod.rs\n</read-files>",
            self.rng.pick(WORDS),
            self.rng.pick(WORDS),
            self.text.prose(&mut self.rng, 3000)
        );
        let before = self.ctx;
        let u = self.usage(800);
        let sys = self.system_message(self.now + 1);
        self.entry("compaction", json!({"summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": before, "details": {"readFiles": ["src/config.rs", "src/session/mod.rs"], "modifiedFiles": ["src/config.rs"]}, "usage": u, "fromHook": false, "systemMessage": sys}))?;
        self.ctx = 30_000;
        // Only entries from the kept range on stay foldable.
        let keep_from = self.users.len().saturating_sub(3);
        self.users.drain(..keep_from);
        self.foldable.clear();
        Ok(())
    }

    /// pi's auto-retry after a provider error: failed assistant + `replacement: null` edit.
    fn provider_failure(&mut self) -> Result<()> {
        self.user_prompt()?;
        let ms = self.tick(100, 2000);
        let failed = self.entry("message", json!({"message": {"role": "assistant", "content": [], "api": "anthropic-messages", "provider": PROVIDER, "model": self.model, "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}, "stopReason": "error", "timestamp": ms, "errorMessage": "529: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}}))?;
        self.entry(
            "context_edit",
            json!({"targetId": failed, "replacement": null}),
        )?;
        let n = self.rng.log_uniform(100, 2_000);
        let answer = self.text.prose(&mut self.rng, n);
        self.assistant(vec![json!({"type": "text", "text": answer})], "stop", 200)?;
        Ok(())
    }

    /// An earlier `pi-shake shake` (elide scope): placeholders for older tool results.
    fn shake(&mut self, max: usize) -> Result<()> {
        // Leave the most recent results alone (pi-shake protects the tail).
        let n = self.foldable.len().saturating_sub(6).min(max);
        let targets: Vec<Foldable> = self.foldable.drain(..n).collect();
        if targets.is_empty() {
            return Ok(());
        }
        let mut folds = Vec::new();
        let mut shaken = Vec::new();
        let (mut before, mut after) = (0, 0);
        for t in targets {
            let ph = format!(
                "[{} output omitted (~{} tokens)]",
                t.tool,
                thousands(t.text_tokens)
            );
            let mut content = vec![json!({"type": "text", "text": ph})];
            // Images stay (the elide scope only folds text).
            if let Some(arr) = t.content.as_array() {
                content.extend(arr.iter().filter(|b| b["type"] == "image").cloned());
            }
            let img = content.len() as u64 - 1;
            let t_after = tokens(utf16_len(&ph) as u64 + 4800 * img);
            let t_before = t.tokens;
            let edit = self.entry(
                "context_edit",
                json!({"targetId": t.id, "replacement": {"content": content}}),
            )?;
            folds.push(json!({"target": t.id, "edit": edit, "scope": "elide", "kind": "toolResult", "tool": t.tool, "count": 1, "tokensBefore": t_before, "tokensAfter": t_after, "base": null}));
            before += t_before;
            after += t_after;
            shaken.push((t, edit, t_after));
        }
        self.custom(
            "shake",
            json!({"op": "shake", "tool": "pi-shake", "version": "0.1.0", "profile": "default", "profileSource": "built-in", "tail": 20000, "blockMin": 400, "scopes": ["elide"], "folds": folds, "tokensBefore": before, "tokensAfter": after}),
        )?;
        self.shaken = shaken;
        Ok(())
    }

    /// An earlier `pi-shake undo` of the last shake's first `n` folds: the original content back.
    fn undo(&mut self, n: usize) -> Result<()> {
        let items: Vec<_> = self.shaken.drain(..n.min(self.shaken.len())).collect();
        if items.is_empty() {
            return Ok(());
        }
        let mut restores = Vec::new();
        let (mut before, mut after) = (0, 0);
        for (t, _fold_edit, t_after) in items {
            let edit = self.entry(
                "context_edit",
                json!({"targetId": t.id, "replacement": {"content": t.content}}),
            )?;
            restores.push(json!({"target": t.id, "edit": edit, "to": null, "tokensBefore": t_after, "tokensAfter": t.tokens}));
            before += t_after;
            after += t.tokens;
        }
        self.custom(
            "shake",
            json!({"op": "undo", "tool": "pi-shake", "version": "0.1.0", "restores": restores, "tokensBefore": before, "tokensAfter": after}),
        )?;
        Ok(())
    }
}

fn parse_size(s: &str) -> Result<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let num: f64 = num.parse().with_context(|| format!("bad size `{s}`"))?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        u => bail!("unknown size unit `{u}` (use KB, MB, GB, KiB, MiB, GiB)"),
    };
    Ok((num * mult) as u64)
}

fn main() -> Result<()> {
    let mut size = 10_000_000u64;
    let mut seed = 7u64;
    let mut out: Option<PathBuf> = None;
    let mut small = false;
    let mut max_entries = u64::MAX;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--size" => size = parse_size(&args.next().context("--size needs a value")?)?,
            "--seed" => {
                seed = args
                    .next()
                    .context("--seed needs a value")?
                    .parse()
                    .context("--seed must be an integer")?
            }
            "--small" => small = true,
            "--entries" => {
                max_entries = args
                    .next()
                    .context("--entries needs a value")?
                    .parse()
                    .context("--entries must be an integer")?;
                size = u64::MAX;
            }
            "-h" | "--help" => {
                println!(
                    "usage: gen_session [--size 100MB | --entries N] [--small] [--seed 7] OUT.jsonl"
                );
                return Ok(());
            }
            _ if a.starts_with('-') => bail!("unknown option `{a}`"),
            _ => out = Some(PathBuf::from(a)),
        }
    }
    let out = out.context("usage: gen_session [--size 100MB] [--seed 7] OUT.jsonl")?;
    if size < 200_000 {
        bail!("--size must be at least 200KB");
    }
    let mut rng = Rng(seed ^ 0x5eed_0000_0000_0000);
    let pool = line_pool(&mut rng);
    let file = File::create(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let start = 1_767_258_000_000i64 + (seed % 1000) as i64 * 86_400_000; // 2026-01-01T09:00Z + seed days
    let mut g = Gen {
        rng,
        text: Text { pool: &pool },
        out: BufWriter::with_capacity(1 << 20, file),
        written: 0,
        ids: HashSet::new(),
        leaf: None,
        now: start,
        ctx: 0,
        calls: 0,
        responses: 0,
        off_path: false,
        users: Vec::new(),
        foldable: Vec::new(),
        shaken: Vec::new(),
        model: MODEL,
        small,
        entries: 0,
    };
    let session_id = format!(
        "019b{:04x}-{:04x}-7{:03x}-8{:03x}-{:012x}",
        g.rng.next() & 0xffff,
        g.rng.next() & 0xffff,
        g.rng.next() & 0xfff,
        g.rng.next() & 0xfff,
        g.rng.next() & 0xffff_ffff_ffff
    );
    let header = json!({"type": "session", "version": 3, "id": session_id, "timestamp": epoch_ms_to_iso(start), "cwd": CWD});
    g.line(&header)?;
    g.entry(
        "model_change",
        json!({"provider": PROVIDER, "modelId": MODEL}),
    )?;
    g.entry("thinking_level_change", json!({"thinkingLevel": "medium"}))?;
    g.entry(
        "session_info",
        json!({"name": "Orbit: config loader rework"}),
    )?;
    let sys = g.system_message(g.now + 3);
    g.message(sys)?;

    // (fraction of the target, event) in order.
    #[derive(Clone, Copy, PartialEq)]
    enum Ev {
        Branch,
        Shake1,
        BranchSummary,
        Compaction,
        Failure,
        Shake2,
        Undo,
    }
    let plan = [
        (0.15, Ev::Branch),
        (0.30, Ev::Shake1),
        (0.45, Ev::BranchSummary),
        (0.60, Ev::Compaction),
        (0.70, Ev::Failure),
        (0.80, Ev::Shake2),
        (0.85, Ev::Undo),
    ];
    let mut next = 0;
    // Progress towards the target: bytes, or entries with `--entries`.
    let done =
        |g: &Gen| (g.written as f64 / size as f64).max(g.entries as f64 / max_entries as f64);
    let mut last_compaction = 0u64;
    while done(&g) < 1.0 {
        g.turn()?;
        // A long session of small entries compacts again and again, as pi does when the context
        // fills (pi 1.6's projection also overflows V8's stack past ~120k entries after the
        // latest compaction).
        if g.small && g.entries - last_compaction >= SMALL_COMPACT_EVERY {
            g.compaction()?;
            last_compaction = g.entries;
        }
        while next < plan.len() && done(&g) >= plan[next].0 {
            match plan[next].1 {
                Ev::Branch => g.abandoned_branch(false)?,
                Ev::Shake1 => g.shake(12)?,
                Ev::BranchSummary => g.abandoned_branch(true)?,
                Ev::Compaction => g.compaction()?,
                Ev::Failure => g.provider_failure()?,
                Ev::Shake2 => g.shake(40)?,
                Ev::Undo => g.undo(3)?,
            }
            next += 1;
        }
    }
    // End on a plain answer (the leaf), after anything the last event appended.
    g.turn()?;
    g.out.flush()?;
    eprintln!(
        "{}: {} bytes, {} entries, {} ids, {} tool calls, {} responses",
        out.display(),
        g.written,
        g.entries,
        g.ids.len(),
        g.calls,
        g.responses
    );
    Ok(())
}
