//! Held-out needle sessions, written apart from the other generators ("veiled").
//!
//! Each session is one coding-agent task in a pi v3 session file: a header, `model_change` and
//! `thinking_level_change` entries, then user / assistant / toolResult messages chained by
//! `parentId` (8-hex ids, increasing timestamps, Anthropic-style `usage` with costs).
//!
//! **Projects** (one per session, rotating): a .NET 8 freight-dispatch API (`harbor-dispatch`:
//! ASP.NET Core, EF Core, xUnit), a Ruby on Rails library-lending app (`shelfwise`: RSpec,
//! RuboCop, Rails logs), a SwiftUI iOS pantry app (`Larder`: xcodebuild, XCTest, SwiftLint, crash
//! reports, SwiftPM), a Godot 4 voxel game with a C++ GDExtension (`emberfall`: SCons, GUT, perf,
//! engine logs), and an OCaml checker for a configuration language (`quire`: dune, opam,
//! core_bench, alcotest, ocaml-lsp).
//!
//! **Tools**: pi's `read`, `bash`, `grep`, `find`, `ls`, `edit`, `write`, plus two custom tools:
//! `lsp_diagnostics` (workspace diagnostics of a language server) and `crash_report` (a crash
//! report fetched from the crash collector). 9–16 calls before the cut, most of them large
//! outputs (log-uniform 2–60 KB, clipped to what the format plausibly prints and to pi's 50 KB /
//! 2,000-line truncation with its `[Showing lines …]` notice), the rest small (edits, writes,
//! short commands, failures with `isError`).
//!
//! **Formats**: `git log --oneline`, pi `grep` hits (with and without context), pi `find`
//! listings; `dotnet test` (vstest + xUnit), `dotnet ef migrations list`, `docker compose logs`
//! of ASP.NET Core, `dotnet list package --outdated --include-transitive`, `dotnet build`,
//! Roslyn and ocaml-lsp diagnostics; RSpec documentation output with failures and profile, Rails
//! development log, `db:migrate:status`, RuboCop, `rails routes`; xcodebuild | xcpretty test
//! runs, raw xcodebuild build logs, SwiftLint, Apple crash reports, `Package.resolved`; SCons +
//! GCC warnings, GUT test runs, `perf report --stdio`, Godot engine logs with script errors;
//! `dune build` errors, alcotest runs, `opam list`, core_bench tables. `dotnet build`, raw
//! xcodebuild logs, `dune build` and alcotest are bulk only (no needle rows).
//!
//! **Needle kinds** (3–5 a session, never the same kind twice in one session): `git-commit`,
//! `grep-hit`, `find-path`, `xunit-test`, `ef-migration`, `api-request`, `nuget-package`,
//! `lsp-diagnostic`, `rspec-rerun`, `rspec-slow`, `rails-request`, `migration-status`,
//! `rubocop-offense`, `rails-route`, `xctest-case`, `crash-address`, `swiftlint-violation`,
//! `spm-revision`, `gcc-warning`, `gut-test`, `perf-symbol`, `godot-script-error`,
//! `opam-package`, `bench-row`.
//!
//! **Rules**: a needle is one whole line of a tool output before the cut, in the prefix once,
//! holding a distinctive string (`harness::is_distinctive`) found nowhere else in the prefix; its
//! label is its place among its output's lines (`head`: first fifth, `tail`: last fifth, else
//! `middle`), aimed to rotate over the three. Each needle has 2–4 distractors: lines of the same
//! output and template, each with a distinctive string of its own, never used later. Needles are
//! ordinary rows of their format, drawn from its repeated templates (so as long, and as marked by
//! error words, as their distractors; the project's own formats three times in four). The prefix
//! ends with an assistant turn's closing text, a user request in words only, a small tool call and
//! its small result; the big output before that holds at least 2,600 tokens. The later part
//! starts with a user message, then the assistant uses every needle's string in its text or in a
//! tool call's arguments, with small results. A draw that breaks a rule is redrawn from a derived
//! seed.

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

use super::harness::{self, CaseSpec, distinctive_iter};

/// One generated needle session.
pub struct Generated {
    pub name: String,
    /// JSONL lines of a pi v3 session (header first).
    pub lines: Vec<String>,
    /// First line of the later part; the prefix is `lines[..cut_line]`.
    pub cut_line: usize,
    /// (kind, whole needle line, "head" | "middle" | "tail").
    pub needles: Vec<(String, String, String)>,
    /// Whole lines, look-alikes of needles, never used later.
    pub distractors: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Randomness
// ---------------------------------------------------------------------------------------------

/// splitmix64.
#[derive(Clone)]
struct Rng(u64);

fn mix(a: u64, b: u64, c: u64) -> u64 {
    let mut r =
        Rng(a ^ b.wrapping_mul(0xA076_1D64_78BD_642F) ^ c.wrapping_mul(0xE703_7ED1_A0B4_28DB));
    r.next();
    r.next()
}

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x7E11_ED00_5EED_0F1A)
    }
    fn next(&mut self) -> u64 {
        harness::splitmix64(&mut self.0)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// Inclusive.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn one(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.below(xs.len())]
    }
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }
    fn fl(&mut self, lo: f64, hi: f64) -> f64 {
        lo + self.unit() * (hi - lo)
    }
    fn chars(&mut self, n: usize, alphabet: &[u8]) -> String {
        (0..n)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }
    fn hex(&mut self, n: usize) -> String {
        self.chars(n, b"0123456789abcdef")
    }
    /// Hex holding at least one digit and one letter (so it reads as a hash, and is distinctive).
    fn hexd(&mut self, n: usize) -> String {
        loop {
            let h = self.hex(n);
            if h.bytes().any(|c| c.is_ascii_digit()) && h.bytes().any(|c| c.is_ascii_alphabetic()) {
                return h;
            }
        }
    }
    fn upper_alnum(&mut self, n: usize) -> String {
        self.chars(n, b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
    fn fork(&mut self) -> Rng {
        Rng::new(self.next())
    }
}

// ---------------------------------------------------------------------------------------------
// Small text helpers
// ---------------------------------------------------------------------------------------------

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// `FooBarBaz` -> `foo_bar_baz`.
fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `foo_bar` -> `FooBar`.
fn pascal(s: &str) -> String {
    s.split('_').map(cap).collect()
}

/// `FooBar` -> `fooBar`.
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn plural(s: &str) -> String {
    if s == "shelf" {
        "shelves".to_string()
    } else if s.ends_with('y') && !s.ends_with("ay") && !s.ends_with("ey") {
        format!("{}ies", &s[..s.len() - 1])
    } else if s.ends_with('s') || s.ends_with("sh") || s.ends_with("ch") || s.ends_with('x') {
        format!("{s}es")
    } else {
        format!("{s}s")
    }
}

fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn parts(ms: u64) -> (i64, u32, u32, u64, u64, u64, u64) {
    let secs = ms / 1000;
    let (y, m, d) = civil((secs / 86_400) as i64);
    let sod = secs % 86_400;
    (y, m, d, sod / 3600, sod % 3600 / 60, sod % 60, ms % 1000)
}

/// `Date.prototype.toISOString()`.
fn iso(ms: u64) -> String {
    let (y, m, d, hh, mm, ss, mi) = parts(ms);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{mi:03}Z")
}

/// git's default date: `Sun Sep 14 09:14:22 2025 +0200`.
fn git_date(ms: u64, tz: &str) -> String {
    let (y, m, d, hh, mm, ss, _) = parts(ms);
    let wd = ((ms / 86_400_000 + 4) % 7) as usize;
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {d} {hh:02}:{mm:02}:{ss:02} {y} {tz}",
        days[wd],
        months[(m - 1) as usize]
    )
}

/// `2025-09-14 09:14:22`.
fn stamp(ms: u64) -> String {
    let (y, m, d, hh, mm, ss, _) = parts(ms);
    format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02}")
}

/// `20250914091422` (migration versions).
fn compact_stamp(ms: u64) -> String {
    let (y, m, d, hh, mm, ss, _) = parts(ms);
    format!("{y:04}{m:02}{d:02}{hh:02}{mm:02}{ss:02}")
}

fn day(ms: u64) -> String {
    let (y, m, d, ..) = parts(ms);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The JSON-escaped form of `s` (how it appears inside the JSONL text).
fn escaped(s: &str) -> String {
    let q = serde_json::to_string(s).unwrap_or_default();
    q[1..q.len().saturating_sub(1)].to_string()
}

// ---------------------------------------------------------------------------------------------
// Tool outputs
// ---------------------------------------------------------------------------------------------

/// What the later part does with a needle's string: prose, then one call and its small result.
#[derive(Clone)]
struct Step {
    say: String,
    tool: &'static str,
    args: Value,
    result: String,
    error: bool,
}

fn step(say: String, tool: &'static str, args: Value, result: String) -> Step {
    Step {
        say,
        tool,
        args,
        result,
        error: false,
    }
}

/// A line of an output that could be a needle or a distractor.
#[derive(Clone)]
struct Cand {
    line: usize,
    kind: &'static str,
    key: String,
    step: Step,
}

#[derive(Default)]
struct Out {
    lines: Vec<String>,
    cands: Vec<Cand>,
    size: usize,
}

impl Out {
    fn push(&mut self, s: impl Into<String>) {
        let s: String = s.into();
        debug_assert!(!s.contains('\n'));
        self.size += s.len() + 1;
        self.lines.push(s);
    }
    fn cand(&mut self, s: String, kind: &'static str, key: String, step: Step) {
        self.cands.push(Cand {
            line: self.lines.len(),
            kind,
            key,
            step,
        });
        self.push(s);
    }
    fn blank(&mut self) {
        self.push("");
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Trunc {
    /// bash: pi keeps the tail.
    Tail,
    /// read: pi keeps the head.
    Head,
    No,
}

/// One tool call with a large output.
struct Call {
    intro: String,
    tool: &'static str,
    args: Value,
    out: Out,
    /// bash exit code (non-zero: pi appends `Command exited with code N`, isError).
    exit: i32,
    trunc: Trunc,
}

fn bash(intro: &str, cmd: String, out: Out, exit: i32) -> Call {
    Call {
        intro: intro.to_string(),
        tool: "bash",
        args: json!({ "command": cmd }),
        out,
        exit,
        trunc: Trunc::Tail,
    }
}

const MAX_BYTES: usize = 51_200;
const MAX_LINES: usize = 2_000;

/// A rendered output: text, candidates re-indexed on the text's lines, isError, details.
struct Rendered {
    text: String,
    cands: Vec<Cand>,
    error: bool,
    details: Option<Value>,
}

fn render(r: &mut Rng, call: Call) -> Rendered {
    let lines = call.out.lines;
    let n = lines.len();
    let total: usize = lines.iter().map(|l| l.len()).sum::<usize>() + n.saturating_sub(1);
    let over = total > MAX_BYTES || n > MAX_LINES;
    let (lo, hi) = if !over || call.trunc == Trunc::No {
        (0, n)
    } else if call.trunc == Trunc::Tail {
        let (mut b, mut i) = (0usize, n);
        while i > 0 && n - i < MAX_LINES && b + lines[i - 1].len() < MAX_BYTES {
            b += lines[i - 1].len() + 1;
            i -= 1;
        }
        (i, n)
    } else {
        let (mut b, mut i) = (0usize, 0usize);
        while i < n && i < MAX_LINES && b + lines[i].len() < MAX_BYTES {
            b += lines[i].len() + 1;
            i += 1;
        }
        (0, i)
    };
    let kept = &lines[lo..hi];
    let mut text = kept.join("\n");
    let kept_bytes = text.len();
    let mut details = None;
    if (lo, hi) != (0, n) {
        let by = if total > MAX_BYTES { "bytes" } else { "lines" };
        let limit = if by == "bytes" {
            "50.0KB limit".to_string()
        } else {
            format!("{MAX_LINES} lines limit")
        };
        let mut tr = json!({
            "truncated": true,
            "truncatedBy": by,
            "totalLines": n,
            "totalBytes": total,
            "outputLines": hi - lo,
            "outputBytes": kept_bytes,
            "lastLinePartial": false,
            "firstLineExceedsLimit": false,
        });
        if call.trunc == Trunc::Tail {
            tr["maxLines"] = json!(MAX_LINES);
            tr["maxBytes"] = json!(MAX_BYTES);
            let path = format!("/tmp/pi-bash-{}.log", r.hex(16));
            text.push_str(&format!(
                "\n\n[Showing lines {}-{} of {} ({limit}). Full output: {path}]",
                lo + 1,
                n,
                n
            ));
            details = Some(json!({ "truncation": tr, "fullOutputPath": path }));
        } else {
            text.push_str(&format!(
                "\n\n[Showing lines 1-{hi} of {n} ({limit}). Use offset={} to continue]",
                hi + 1
            ));
            details = Some(json!({ "truncation": tr }));
        }
    }
    let error = call.exit != 0;
    if error {
        text.push_str(&format!("\n\nCommand exited with code {}", call.exit));
        if details.is_none() {
            details = Some(json!({}));
        }
    }
    let cands = call
        .out
        .cands
        .into_iter()
        .filter(|c| c.line >= lo && c.line < hi)
        .map(|mut c| {
            c.line -= lo;
            c
        })
        .collect();
    Rendered {
        text,
        cands,
        error,
        details,
    }
}

/// The label of line `at` of `n`: head and tail are a fifth each.
fn band(at: usize, n: usize) -> &'static str {
    if at * 5 < n {
        "head"
    } else if at * 5 >= 4 * n {
        "tail"
    } else {
        "middle"
    }
}

// ---------------------------------------------------------------------------------------------
// The session writer
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct Model {
    id: &'static str,
    /// $ per million tokens: input, output, cache read, cache write.
    rates: [f64; 4],
}

const MODELS: &[Model] = &[
    Model {
        id: "claude-sonnet-4-5",
        rates: [3.0, 15.0, 0.3, 3.75],
    },
    Model {
        id: "claude-opus-4-5",
        rates: [5.0, 25.0, 0.5, 6.25],
    },
];

struct Writer {
    lines: Vec<String>,
    ids: HashSet<String>,
    parent: Option<String>,
    t: u64,
    model: Model,
    thinking: bool,
    /// Tokens the provider has cached (the context up to the last assistant message).
    cached: u64,
    /// Tokens added since the last assistant message.
    fresh: u64,
    r: Rng,
}

impl Writer {
    fn new(r: &mut Rng, cwd: &str, t0: u64) -> Writer {
        let mut w = Writer {
            lines: Vec::new(),
            ids: HashSet::new(),
            parent: None,
            t: t0,
            model: *r.pick(MODELS),
            thinking: r.chance(0.6),
            cached: 0,
            fresh: r.range(7_400, 11_800) as u64,
            r: r.fork(),
        };
        // A UUIDv7: 48 bits of milliseconds, version 7, variant 10.
        let ts = format!("{t0:012x}");
        let v7 = format!(
            "{}-{}-7{}-{}{}-{}",
            &ts[..8],
            &ts[8..12],
            w.r.hex(3),
            w.r.pick(&["8", "9", "a", "b"]),
            w.r.hex(3),
            w.r.hex(12)
        );
        w.lines.push(
            json!({"type": "session", "version": 3, "id": v7, "timestamp": iso(t0), "cwd": cwd})
                .to_string(),
        );
        w.t += w.r.range(3, 40) as u64;
        let model = w.model.id;
        w.meta(json!({"type": "model_change", "provider": "anthropic", "modelId": model}));
        let level = if w.thinking {
            *w.r.pick(&["low", "medium", "medium", "high"])
        } else {
            "off"
        };
        w.meta(json!({"type": "thinking_level_change", "thinkingLevel": level}));
        w
    }

    fn id(&mut self) -> String {
        loop {
            let id = self.r.hex(8);
            if self.ids.insert(id.clone()) {
                return id;
            }
        }
    }

    /// Append an entry: `fields` gets id, parentId and timestamp (in pi's key order).
    fn meta(&mut self, fields: Value) {
        let id = self.id();
        let mut e = serde_json::Map::new();
        let Value::Object(f) = fields else { return };
        e.insert("type".into(), f["type"].clone());
        e.insert("id".into(), json!(id));
        e.insert("parentId".into(), json!(self.parent));
        e.insert("timestamp".into(), json!(iso(self.t)));
        for (k, v) in f {
            if k != "type" {
                e.insert(k, v);
            }
        }
        self.lines.push(Value::Object(e).to_string());
        self.parent = Some(id);
    }

    fn message(&mut self, msg: Value) {
        let id = self.id();
        let at = self.t + self.r.range(0, 4) as u64;
        self.lines.push(
            json!({"type": "message", "id": id, "parentId": self.parent, "timestamp": iso(at), "message": msg})
                .to_string(),
        );
        self.parent = Some(id);
    }

    fn user(&mut self, text: &str) {
        self.t += self.r.range(9_000, 140_000) as u64;
        self.fresh += harness::tokens_of(text);
        let ts = self.t;
        self.message(
            json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}),
        );
    }

    fn signature(&mut self) -> String {
        let n = self.r.range(180, 560);
        let body = self.r.chars(
            n,
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        );
        format!("Eq{body}")
    }

    /// An assistant message: optional thinking, optional text, optional tool call.
    fn assistant(
        &mut self,
        thinking: Option<&str>,
        text: &str,
        call: Option<(&str, &Value)>,
    ) -> Option<String> {
        let mut content = Vec::new();
        let mut out_chars = String::new();
        if let Some(th) = thinking.filter(|_| self.thinking) {
            let sig = self.signature();
            content.push(json!({"type": "thinking", "thinking": th, "thinkingSignature": sig}));
            out_chars.push_str(th);
        }
        if !text.is_empty() {
            content.push(json!({"type": "text", "text": text}));
            out_chars.push_str(text);
        }
        let mut call_id = None;
        if let Some((name, args)) = call {
            let id = format!(
                "toolu_01{}",
                self.r.chars(
                    22,
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                )
            );
            content.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": args}));
            out_chars.push_str(name);
            out_chars.push_str(&args.to_string());
            call_id = Some(id);
        }
        let output = harness::tokens_of(&out_chars) + self.r.range(4, 40) as u64;
        let input = self.r.range(1, 9) as u64;
        let (cache_read, cache_write) = (self.cached, self.fresh);
        let [ri, ro, rr, rw] = self.model.rates;
        let m = 1_000_000.0;
        let cost = json!({
            "input": input as f64 * ri / m,
            "output": output as f64 * ro / m,
            "cacheRead": cache_read as f64 * rr / m,
            "cacheWrite": cache_write as f64 * rw / m,
            "total": input as f64 * ri / m + output as f64 * ro / m + cache_read as f64 * rr / m + cache_write as f64 * rw / m,
        });
        let usage = json!({
            "input": input,
            "output": output,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "totalTokens": input + output + cache_read + cache_write,
            "cost": cost,
        });
        self.cached = cache_read + cache_write + input;
        self.fresh = output;
        // Time to first token plus generation.
        self.t += self.r.range(1_800, 6_500) as u64 + output * self.r.range(12, 30) as u64;
        let stop = if call.is_some() { "toolUse" } else { "stop" };
        let ts = self.t;
        let model = self.model.id;
        self.message(json!({
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": model,
            "usage": usage,
            "stopReason": stop,
            "timestamp": ts,
        }));
        call_id
    }

    fn tool_result(
        &mut self,
        call_id: &str,
        tool: &str,
        text: &str,
        error: bool,
        details: Option<Value>,
        ms: u64,
    ) {
        self.t += ms;
        self.fresh += harness::tokens_of(text);
        let mut msg = serde_json::Map::new();
        msg.insert("role".into(), json!("toolResult"));
        msg.insert("toolCallId".into(), json!(call_id));
        msg.insert("toolName".into(), json!(tool));
        msg.insert("content".into(), json!([{"type": "text", "text": text}]));
        if let Some(d) = details {
            msg.insert("details".into(), d);
        }
        msg.insert("isError".into(), json!(error));
        msg.insert("timestamp".into(), json!(self.t));
        self.message(Value::Object(msg));
    }
}

// ---------------------------------------------------------------------------------------------
// Projects and their vocabulary
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Debug)]
enum Proj {
    Dotnet,
    Rails,
    Swift,
    Godot,
    Ocaml,
}

const PROJECTS: [Proj; 5] = [
    Proj::Dotnet,
    Proj::Rails,
    Proj::Swift,
    Proj::Godot,
    Proj::Ocaml,
];

const USERS: &[&str] = &[
    "mara",
    "tkowalczyk",
    "devon",
    "ines",
    "rbaptiste",
    "okafor",
    "lena",
    "sjohansson",
    "priya",
    "hugo",
];

const AUTHORS: &[&str] = &[
    "Mara Lindqvist <mara@lindqvist.dev>",
    "Tomasz Kowalczyk <tomasz.k@fastmail.com>",
    "Devon Hart <devon@hart.io>",
    "Inês Carvalho <ines.carvalho@proton.me>",
    "Rui Baptiste <rui@baptiste.pt>",
    "Chidi Okafor <chidi.okafor@gmail.com>",
    "Lena Vogt <lena.vogt@posteo.de>",
    "Sven Johansson <sven@johansson.se>",
    "Priya Raman <priya.raman@outlook.com>",
    "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
];

const NET_AREAS: &[(&str, &str)] = &[
    ("Tendering", "Tender"),
    ("Docks", "Dock"),
    ("Routing", "Leg"),
    ("RateCards", "RateCard"),
    ("Manifests", "Manifest"),
    ("Carriers", "Carrier"),
    ("Appointments", "Appointment"),
    ("Drivers", "Driver"),
    ("Yard", "YardSlot"),
    ("Customs", "CustomsDeclaration"),
    ("Tracking", "TrackingEvent"),
    ("Pallets", "Pallet"),
    ("Hazmat", "HazmatClass"),
    ("Invoicing", "FreightInvoice"),
];
const NET_SUFFIX: &[&str] = &[
    "Service",
    "Controller",
    "Handler",
    "Validator",
    "Repository",
    "Options",
    "Mapper",
    "Policy",
    "Scheduler",
    "Resolver",
    "Builder",
    "Client",
    "Sweeper",
    "Configuration",
    "Query",
    "Command",
    "Planner",
    "Projection",
];
const NET_LAYERS: &[&str] = &["Api", "Domain", "Infrastructure", "Workers"];
const NET_FIELDS: &[&str] = &[
    "Cutoff",
    "Expiry",
    "Status",
    "Window",
    "Rules",
    "Snapshot",
    "Quote",
    "Slot",
    "Contact",
    "Reference",
    "Weight",
    "Eta",
    "Priority",
    "Tenant",
    "Zone",
];

const RB_MODELS: &[&str] = &[
    "loan",
    "hold",
    "patron",
    "branch",
    "copy",
    "title",
    "fine",
    "notice",
    "shelf",
    "transfer",
    "waitlist",
    "membership",
    "renewal",
    "author",
    "subject",
    "pickup",
];
const RB_SERVICES: &[&str] = &[
    "queue_promoter",
    "fee_calculator",
    "renewal_checker",
    "expiry_sweeper",
    "notice_builder",
    "transfer_planner",
    "import_runner",
    "barcode_resolver",
    "merge_patrons",
    "closure_calendar",
];
const RB_ATTRS: &[&str] = &[
    "renewal_count",
    "queue_position",
    "late_fee_cents",
    "due_on",
    "expires_at",
    "max_renewals",
    "pickup_window",
    "copy_barcode",
    "hold_shelf_until",
    "notified_at",
    "fine_balance",
    "checkout_limit",
    "home_branch",
    "transit_status",
    "last_renewed_at",
    "suspended_until",
];

const SW_FEATURES: &[(&str, &[&str])] = &[
    ("Pantry", &["Pantry", "PantryItem", "Expiry"]),
    ("Recipes", &["Recipe", "Ingredient", "RecipeImport"]),
    ("ShoppingList", &["ShoppingList", "Aisle"]),
    ("MealPlan", &["MealPlan", "MealSlot"]),
    ("Scanner", &["Barcode", "Scanner"]),
    ("Settings", &["Settings", "UnitPreference"]),
    ("Onboarding", &["Onboarding", "Welcome"]),
    ("Nutrition", &["Nutrition", "Macro"]),
];
const SW_CORE: &[(&str, &[&str])] = &[
    (
        "Persistence",
        &["Persistence", "Migration", "ModelContainer"],
    ),
    ("Sync", &["Sync", "CloudKit", "Conflict"]),
    ("Networking", &["API", "Request", "Endpoint"]),
    ("Notifications", &["Reminder", "Notification"]),
    ("Units", &["Unit", "Measurement"]),
    ("Analytics", &["Analytics", "Event"]),
];
const SW_SUFFIX: &[&str] = &[
    "View",
    "ViewModel",
    "Store",
    "Row",
    "Sheet",
    "Coordinator",
    "Service",
    "Client",
    "Parser",
    "Formatter",
    "Importer",
    "Notifier",
    "Cache",
    "Repository",
    "Mirror",
];
const SW_IDENTS: &[&str] = &[
    "expiringSoon",
    "pantryItems",
    "syncToken",
    "barcodePayload",
    "servingScale",
    "mealSlots",
    "unitSystem",
    "lastSyncedAt",
    "pendingChanges",
    "aisleOrder",
    "reminderOffset",
    "importedRecipe",
    "macroTotals",
    "conflictPolicy",
    "quantityText",
];

const GD_CLASSES: &[(&str, &str)] = &[
    ("terrain", "ChunkMesher"),
    ("terrain", "VoxelTerrain"),
    ("lighting", "LightPropagator"),
    ("inventory", "InventoryServer"),
    ("crafting", "CraftingGraph"),
    ("pathing", "PathGrid"),
    ("fx", "EmberParticles"),
    ("save", "SaveCodec"),
    ("weather", "HeatMap"),
    ("fluid", "FluidSim"),
];
const GD_METHODS: &[&str] = &[
    "build_face_quads",
    "rebuild_chunk",
    "propagate_light",
    "flood_fill",
    "merge_stacks",
    "split_stack",
    "resolve_recipe",
    "find_path",
    "reserve_cell",
    "emit_burst",
    "encode_region",
    "decode_region",
    "sample_heat",
    "step_fluid",
    "mark_dirty",
    "queue_remesh",
    "update_neighbors",
    "pack_vertices",
    "compute_ao",
    "bake_lightmap",
    "sweep_dead_nodes",
    "apply_damage",
    "spawn_embers",
    "serialize_chunk",
    "evaluate_node",
    "cache_lookup",
    "prune_cache",
    "sort_by_distance",
    "collect_edges",
    "blend_biomes",
];
const GD_SCRIPTS: &[&str] = &[
    "actors/player/player_controller.gd",
    "actors/player/player_camera.gd",
    "actors/enemies/ash_crawler.gd",
    "actors/enemies/cinder_wisp.gd",
    "actors/npc/trader.gd",
    "ui/inventory/inventory_slot.gd",
    "ui/inventory/inventory_grid.gd",
    "ui/hud/heat_meter.gd",
    "ui/hud/hotbar.gd",
    "ui/crafting/recipe_card.gd",
    "ui/menus/pause_menu.gd",
    "world/biomes/ashlands.gd",
    "world/biomes/glasswood.gd",
    "world/chunk_streamer.gd",
    "world/day_cycle.gd",
    "systems/save/save_manager.gd",
    "systems/audio/music_director.gd",
    "systems/loot/loot_table.gd",
    "systems/crafting/crafting_queue.gd",
    "autoload/game_state.gd",
    "autoload/events.gd",
];
const GD_IDENTS: &[&str] = &[
    "stack_size",
    "light_level",
    "heat_value",
    "chunk_coord",
    "craft_time",
    "slot_index",
    "spawn_weight",
    "ember_count",
    "fuel_left",
    "biome_id",
    "max_stack",
    "noise_seed",
];

const ML_MODULES: &[(&str, &str)] = &[
    ("syntax", "lexer"),
    ("syntax", "parser"),
    ("syntax", "ast"),
    ("syntax", "located"),
    ("typing", "unify"),
    ("typing", "infer"),
    ("typing", "types"),
    ("typing", "env"),
    ("typing", "subst"),
    ("typing", "row"),
    ("eval", "eval"),
    ("eval", "value"),
    ("schema", "schema"),
    ("schema", "validate"),
    ("pretty", "pretty"),
    ("pretty", "doc"),
    ("util", "diag"),
    ("util", "span"),
    ("resolve", "resolve"),
    ("resolve", "imports"),
];
const ML_IDENTS: &[&str] = &[
    "unify_rows",
    "occurs_check",
    "fresh_tvar",
    "generalize",
    "instantiate",
    "expand_alias",
    "resolve_path",
    "pp_type",
    "check_table",
    "infer_expr",
    "merge_spans",
    "lookup_field",
    "normalize_row",
    "subst_apply",
];

const WORDS: &[&str] = &[
    "overdue",
    "pending",
    "stale",
    "partial",
    "nested",
    "empty",
    "duplicate",
    "expired",
    "large",
    "unicode",
    "legacy",
    "missing",
    "optional",
    "recursive",
    "concurrent",
    "cached",
];

struct Ctx {
    p: Proj,
    user: &'static str,
    home: String,
    cwd: String,
    branch: String,
    t0: u64,
}

impl Ctx {
    fn new(r: &mut Rng, p: Proj, t0: u64) -> Ctx {
        let user = *r.pick(USERS);
        let home = if p == Proj::Swift {
            format!("/Users/{user}")
        } else {
            format!("/home/{user}")
        };
        let cwd = match p {
            Proj::Dotnet => format!("{home}/src/harbor-dispatch"),
            Proj::Rails => format!("{home}/work/shelfwise"),
            Proj::Swift => format!("{home}/Code/Larder"),
            Proj::Godot => format!("{home}/games/emberfall"),
            Proj::Ocaml => format!("{home}/src/quire"),
        };
        let topic = match p {
            Proj::Dotnet => *r.pick(&["tender-expiry", "dock-cutoffs", "ef-upgrade", "rate-cards"]),
            Proj::Rails => *r.pick(&[
                "renewal-limits",
                "hold-queue",
                "overdue-notices",
                "late-fees",
            ]),
            Proj::Swift => *r.pick(&[
                "expiry-sort",
                "cloudkit-conflicts",
                "scanner-crash",
                "meal-plan-dnd",
            ]),
            Proj::Godot => *r.pick(&[
                "remesh-hitches",
                "light-borders",
                "inventory-stacks",
                "save-format",
            ]),
            Proj::Ocaml => *r.pick(&[
                "row-unification",
                "alias-expansion",
                "table-spans",
                "enum-schemas",
            ]),
        };
        let branch = format!("{}/{topic}", r.pick(&["fix", "feat", "wip", user]));
        Ctx {
            p,
            user,
            home,
            cwd,
            branch,
            t0,
        }
    }

    /// A source file path (relative to the repository root).
    fn src_path(&self, r: &mut Rng) -> String {
        match self.p {
            Proj::Dotnet => {
                let (area, noun) = *r.pick(NET_AREAS);
                if r.chance(0.2) {
                    format!(
                        "tests/Harbor.Dispatch.Tests/{area}/{noun}{}Tests.cs",
                        r.pick(NET_SUFFIX)
                    )
                } else {
                    format!(
                        "src/Harbor.Dispatch.{}/{area}/{noun}{}.cs",
                        r.pick(NET_LAYERS),
                        r.pick(NET_SUFFIX)
                    )
                }
            }
            Proj::Rails => {
                let m = *r.pick(RB_MODELS);
                match r.below(8) {
                    0 | 1 => format!("app/models/{m}.rb"),
                    2 => format!("app/controllers/{}_controller.rb", plural(m)),
                    3 => format!("app/services/{}/{}.rb", plural(m), r.pick(RB_SERVICES)),
                    4 => format!(
                        "app/jobs/{m}_{}_job.rb",
                        r.pick(&["overdue", "reminder", "expiry", "sync", "digest"])
                    ),
                    5 => format!("app/policies/{m}_policy.rb"),
                    6 => format!(
                        "app/views/{}/{}.html.erb",
                        plural(m),
                        r.pick(&["index", "show", "_form", "edit", "_row", "_summary"])
                    ),
                    _ => format!("spec/models/{m}_spec.rb"),
                }
            }
            Proj::Swift => {
                if r.chance(0.7) {
                    let (f, nouns) = *r.pick(SW_FEATURES);
                    format!(
                        "Larder/Features/{f}/{}{}.swift",
                        r.pick(nouns),
                        r.pick(SW_SUFFIX)
                    )
                } else if r.chance(0.7) {
                    let (c, nouns) = *r.pick(SW_CORE);
                    format!(
                        "Larder/Core/{c}/{}{}.swift",
                        r.pick(nouns),
                        r.pick(SW_SUFFIX)
                    )
                } else {
                    let (_, nouns) = *r.pick(SW_FEATURES);
                    format!(
                        "LarderTests/{}{}Tests.swift",
                        r.pick(nouns),
                        r.pick(SW_SUFFIX)
                    )
                }
            }
            Proj::Godot => {
                if r.chance(0.45) {
                    let (dir, class) = *r.pick(GD_CLASSES);
                    format!(
                        "src/{dir}/{}.{}",
                        snake(class),
                        r.pick(&["cpp", "cpp", "h"])
                    )
                } else {
                    r.pick(GD_SCRIPTS).to_string()
                }
            }
            Proj::Ocaml => {
                let (dir, m) = *r.pick(ML_MODULES);
                if r.chance(0.15) {
                    format!("test/test_{m}.ml")
                } else {
                    format!("lib/{dir}/{m}.{}", r.pick(&["ml", "ml", "ml", "mli"]))
                }
            }
        }
    }

    /// An identifier to search for.
    fn ident(&self, r: &mut Rng) -> String {
        match self.p {
            Proj::Dotnet => {
                let (_, noun) = *r.pick(NET_AREAS);
                format!("{noun}{}", r.pick(NET_FIELDS))
            }
            Proj::Rails => r.pick(RB_ATTRS).to_string(),
            Proj::Swift => r.pick(SW_IDENTS).to_string(),
            Proj::Godot => {
                if r.chance(0.5) {
                    r.pick(GD_IDENTS).to_string()
                } else {
                    r.pick(GD_METHODS).to_string()
                }
            }
            Proj::Ocaml => r.pick(ML_IDENTS).to_string(),
        }
    }

    /// A line of source holding `id`.
    fn code_line(&self, r: &mut Rng, id: &str) -> String {
        let n = r.range(2, 480);
        match self.p {
            Proj::Dotnet => {
                let (_, noun) = *r.pick(NET_AREAS);
                let low = lower_first(id);
                match r.below(10) {
                    0 => format!(
                        "        var {low} = await _{}.Get{id}Async(request.{noun}Id, cancellationToken);",
                        lower_first(noun)
                    ),
                    1 => format!(
                        "    public sealed class {id}Handler : IRequestHandler<{id}Command, Result<{noun}Dto>>"
                    ),
                    2 => format!(
                        "            .Where(x => x.{id} != null && x.{noun}Id == {lower}Id)",
                        lower = lower_first(noun)
                    ),
                    3 => format!("        services.AddScoped<I{id}Provider, {id}Provider>();"),
                    4 => format!("    private readonly I{id}Provider _{low}Provider;"),
                    5 => format!(
                        "        builder.Property(x => x.{id}).HasMaxLength({n}).IsRequired();"
                    ),
                    6 => format!(
                        "            throw new {noun}NotFoundException($\"{id} missing for {{{}.Id}}\");",
                        lower_first(noun)
                    ),
                    7 => format!(
                        "    public async Task<IActionResult> Update{id}(Guid id, [FromBody] {id}Request body, CancellationToken ct)"
                    ),
                    8 => format!(
                        "        _logger.LogInformation(\"{id} changed for {{{noun}Id}}\", {}.Id);",
                        lower_first(noun)
                    ),
                    _ => format!("        Assert.Equal(expected.{id}, result.Value.{id});"),
                }
            }
            Proj::Rails => {
                let m = *r.pick(RB_MODELS);
                match r.below(10) {
                    0 => format!("    {id} = policy.{id}_for({m})"),
                    1 => format!("  def {id}"),
                    2 => format!("  scope :with_{id}, -> {{ where.not({id}: nil) }}"),
                    3 => format!("      expect({m}.reload.{id}).to eq({})", n % 12),
                    4 => format!("      t.integer :{id}, null: false, default: 0"),
                    5 => format!("      .where({id}: ..Time.current)"),
                    6 => format!(
                        "  validates :{id}, numericality: {{ greater_than_or_equal_to: 0 }}"
                    ),
                    7 => format!("    <%= t(\".{id}\", count: @{m}.{id}) %>"),
                    8 => format!("      params.require(:{m}).permit(:{id}, :branch_id, :notes)"),
                    _ => format!("    {m}.update!({id}: {id} + 1, updated_by: current_patron)"),
                }
            }
            Proj::Swift => {
                let (_, nouns) = *r.pick(SW_FEATURES);
                let t = *r.pick(nouns);
                match r.below(9) {
                    0 => format!("    @Published private(set) var {id}: [{t}] = []"),
                    1 => format!("        let {id} = try await repository.{id}(for: item.id)"),
                    2 => format!("    func update{}(_ value: {t}) async throws {{", cap(id)),
                    3 => format!("        XCTAssertEqual(sut.{id}.count, {})", n % 9),
                    4 => format!("            .onChange(of: viewModel.{id}) {{ _, newValue in"),
                    5 => format!("        guard let cached = {id}Cache[key] else {{ return nil }}"),
                    6 => format!("        case {id}"),
                    7 => format!(
                        "        logger.debug(\"{id} updated: \\(count, privacy: .public)\")"
                    ),
                    _ => format!("    var {id}: {t}? {{ store.{id}.first }}"),
                }
            }
            Proj::Godot => {
                let (_, class) = *r.pick(GD_CLASSES);
                match r.below(9) {
                    0 => format!("func {id}(slot: int) -> void:"),
                    1 => format!("\tvar {id} := _cache.get(key, 0)"),
                    2 => format!("\tEvents.{id}_changed.connect(_on_{id}_changed)"),
                    3 => format!("\tif {id} <= 0:"),
                    4 => format!("\temit_signal(\"{id}_updated\", item_id, amount)"),
                    5 => format!("\tassert_eq(inventory.{id}, {}, \"after merge\")", n % 64),
                    6 => format!("void {class}::{id}(const Ref<Chunk> &p_chunk) {{"),
                    7 => format!(
                        "\tClassDB::bind_method(D_METHOD(\"{id}\", \"p_value\"), &{class}::{id});"
                    ),
                    _ => format!("\t\t{id}(p_chunk, dir);"),
                }
            }
            Proj::Ocaml => match r.below(9) {
                0 => format!("let rec {id} env ty ="),
                1 => format!("  | Tarrow (a, b) -> {id} env a && {id} env b"),
                2 => format!("val {id} : Env.t -> Types.t -> Types.t"),
                3 => format!("    let* ty = {id} env expr in"),
                4 => format!(
                    "  Alcotest.test_case \"{} {}\" `Quick test_{id};",
                    r.pick(WORDS),
                    r.pick(WORDS)
                ),
                5 => format!("and {id} ~loc env = function"),
                6 => format!(
                    "      | Error e -> Diag.error ~loc (`{} e) (* {id} *)",
                    pascal(id)
                ),
                7 => format!("  let s = {id} s1 s2 in"),
                _ => format!("    {id} (Env.extend env name ty) body"),
            },
        }
    }

    /// A neutral line of source (context lines, file bodies).
    fn plain_line(&self, r: &mut Rng) -> String {
        let n = r.range(0, 64);
        match self.p {
            Proj::Dotnet => {
                let (_, noun) = *r.pick(NET_AREAS);
                let f = *r.pick(NET_FIELDS);
                match r.below(9) {
                    0 => "        {".into(),
                    1 => "        }".into(),
                    2 => String::new(),
                    3 => format!(
                        "        var {} = {noun}.Create(request.{f});",
                        lower_first(noun)
                    ),
                    4 => format!(
                        "        if ({}.{f} is null) return Result.Fail(\"{f} required\");",
                        lower_first(noun)
                    ),
                    5 => "        await _db.SaveChangesAsync(cancellationToken);".into(),
                    6 => format!("    public {noun}{f} {f} {{ get; private set; }}"),
                    7 => format!(
                        "        return Ok(new {{ {}.Id, {}.{f} }});",
                        lower_first(noun),
                        lower_first(noun)
                    ),
                    _ => format!("        // TODO: remove once tenants are migrated ({n} left)"),
                }
            }
            Proj::Rails => {
                let m = *r.pick(RB_MODELS);
                match r.below(8) {
                    0 => "  end".into(),
                    1 => "    end".into(),
                    2 => String::new(),
                    3 => format!("    {m} = {}.find(params[:id])", pascal(m)),
                    4 => format!("    return unless {m}.active?"),
                    5 => format!("  belongs_to :{m}, optional: true"),
                    6 => format!(
                        "    redirect_to {}_path, notice: t(\".updated\")",
                        plural(m)
                    ),
                    _ => format!("  # {n} branches still on the old policy"),
                }
            }
            Proj::Swift => match r.below(8) {
                0 => "        }".into(),
                1 => "    }".into(),
                2 => String::new(),
                3 => "        let context = container.mainContext".into(),
                4 => "        try context.save()".into(),
                5 => format!("        .padding(.horizontal, {})", n % 24),
                6 => "        guard !items.isEmpty else { return }".into(),
                _ => "    // MARK: - Private".into(),
            },
            Proj::Godot => match r.below(8) {
                0 => String::new(),
                1 => "\t\treturn".into(),
                2 => "\tawait get_tree().process_frame".into(),
                3 => "\tvar count := 0".into(),
                4 => format!("\tfor i in range({}):", n + 1),
                5 => "\tqueue_redraw()".into(),
                6 => "\t\tcontinue".into(),
                _ => "\t# keep in sync with the C++ side".into(),
            },
            Proj::Ocaml => match r.below(8) {
                0 => String::new(),
                1 => "  in".into(),
                2 => "  | _ -> ()".into(),
                3 => "  let open Result.Syntax in".into(),
                4 => "  match Types.repr ty with".into(),
                5 => "    Ok ()".into(),
                6 => "  | Tvar _ -> true".into(),
                _ => "(* see the note in types.mli *)".into(),
            },
        }
    }

    /// A neutral line of source for the file at `path`.
    fn plain_line_at(&self, r: &mut Rng, path: &str) -> String {
        if self.p == Proj::Godot && (path.ends_with(".cpp") || path.ends_with(".h")) {
            let n = r.range(1, 64);
            match r.below(8) {
                0 => String::new(),
                1 => "\t\treturn;".into(),
                2 => "\t}".into(),
                3 => "\tERR_FAIL_COND(p_chunk.is_null());".into(),
                4 => "\tint count = 0;".into(),
                5 => format!("\tfor (int i = 0; i < {n}; i++) {{"),
                6 => "\t\tcontinue;".into(),
                _ => "\t// keep in sync with the GDScript side".into(),
            }
        } else {
            self.plain_line(r)
        }
    }

    /// A line of source holding `id`, of the kind the file at `path` would hold.
    fn code_line_at(&self, r: &mut Rng, path: &str, id: &str) -> String {
        let test = path.contains("test") || path.contains("spec/") || path.contains("Tests");
        for _ in 0..40 {
            let l = self.code_line(r, id);
            let fits = match self.p {
                Proj::Dotnet => test == l.contains("Assert."),
                Proj::Rails => {
                    if path.ends_with(".erb") {
                        l.contains("<%")
                    } else if test {
                        l.contains("expect(")
                    } else if path.contains("controllers") {
                        !l.contains("<%") && !l.contains("expect(") && !l.contains("t.integer")
                    } else {
                        !l.contains("<%") && !l.contains("expect(") && !l.contains("params.")
                    }
                }
                Proj::Swift => test == l.contains("XCTAssert"),
                Proj::Godot => {
                    let cpp = path.ends_with(".cpp") || path.ends_with(".h");
                    let is_cpp = l.contains("::") || l.contains("p_chunk");
                    cpp == is_cpp && (path.contains("test") == l.contains("assert_"))
                }
                Proj::Ocaml => {
                    if path.ends_with(".mli") {
                        l.starts_with("val ")
                    } else if test {
                        l.contains("Alcotest") || !l.starts_with("val ")
                    } else {
                        !l.starts_with("val ") && !l.contains("Alcotest")
                    }
                }
            };
            if fits {
                return l;
            }
        }
        self.code_line(r, id)
    }

    /// A short, plausible piece of a source file (a read result), holding `ident` if given.
    fn snippet(&self, r: &mut Rng, path: &str, ident: Option<&str>, n: usize) -> String {
        let id = ident.map_or_else(|| self.ident(r), str::to_string);
        let mut v: Vec<String> = Vec::new();
        let fill = |r: &mut Rng, v: &mut Vec<String>, k: usize| {
            for _ in 0..k {
                v.push(self.plain_line_at(r, path));
            }
        };
        let body = n.saturating_sub(8).max(2);
        let hit = |r: &mut Rng| -> String {
            if ident.is_some() {
                self.code_line_at(r, path, &id)
            } else {
                self.plain_line_at(r, path)
            }
        };
        match self.p {
            Proj::Dotnet => {
                let (_, noun) = *r.pick(NET_AREAS);
                let low = lower_first(noun);
                v.push(format!(
                    "    public async Task<Result> {}{}Async(Guid {low}Id, CancellationToken cancellationToken)",
                    r.pick(&["Apply", "Update", "Resolve", "Recalculate", "Expire"]),
                    pascal(&snake(&id))
                ));
                v.push("    {".into());
                v.push(format!(
                    "        var {low} = await _db.{}.SingleOrDefaultAsync(x => x.Id == {low}Id, cancellationToken);",
                    plural(noun)
                ));
                v.push(format!("        if ({low} is null)"));
                v.push("        {".into());
                v.push("            return Result.NotFound();".into());
                v.push("        }".into());
                let k = r.below(body);
                fill(r, &mut v, k);
                v.push(hit(r));
                fill(r, &mut v, body - k - 1);
                v.push("        await _db.SaveChangesAsync(cancellationToken);".into());
                v.push("        return Result.Ok();".into());
                v.push("    }".into());
            }
            Proj::Rails => {
                v.push(format!("  def {}", snake(&id).trim_start_matches('_')));
                let m = *r.pick(RB_MODELS);
                v.push(format!("    {m} = {}.find(params[:id])", pascal(m)));
                v.push(format!("    authorize {m}"));
                let k = r.below(body);
                for _ in 0..k {
                    v.push(format!("  {}", self.plain_line(r)));
                }
                v.push(hit(r));
                for _ in 0..body - k - 1 {
                    v.push(format!("  {}", self.plain_line(r)));
                }
                v.push("  end".into());
                v.push(String::new());
                v.push("  private".into());
            }
            Proj::Swift => {
                v.push("    @MainActor".into());
                v.push(format!("    func refresh{}() async {{", cap(&id)));
                v.push("        do {".into());
                let k = r.below(body);
                fill(r, &mut v, k);
                v.push(hit(r));
                fill(r, &mut v, body - k - 1);
                v.push("        } catch {".into());
                v.push(
                    "            logger.error(\"refresh failed: \\(error.localizedDescription)\")"
                        .into(),
                );
                v.push("        }".into());
                v.push("    }".into());
            }
            Proj::Godot if path.ends_with(".cpp") || path.ends_with(".h") => {
                let class = GD_CLASSES
                    .iter()
                    .find(|(_, c)| path.contains(&snake(c)))
                    .map_or("ChunkMesher", |x| x.1);
                v.push(format!(
                    "void {class}::{}(const Ref<Chunk> &p_chunk, FaceDir p_dir) {{",
                    snake(&id)
                ));
                v.push("\tERR_FAIL_COND(p_chunk.is_null());".into());
                let k = r.below(body);
                fill(r, &mut v, k);
                v.push(hit(r));
                fill(r, &mut v, body - k - 1);
                v.push("\tmark_dirty(p_chunk);".into());
                v.push("}".into());
                v.push(String::new());
            }
            Proj::Godot => {
                v.push(format!(
                    "func _on_{}_changed(value: int) -> void:",
                    snake(&id).trim_start_matches('_')
                ));
                v.push("\tif not is_inside_tree():".into());
                v.push("\t\treturn".into());
                let k = r.below(body);
                fill(r, &mut v, k);
                v.push(hit(r));
                fill(r, &mut v, body - k - 1);
                v.push("\t_refresh()".into());
                v.push(String::new());
            }
            Proj::Ocaml => {
                v.push(format!("let rec {} env ty =", snake(&id)));
                v.push("  match Types.repr ty with".into());
                v.push("  | Tvar _ -> Ok ty".into());
                let k = r.below(body);
                fill(r, &mut v, k);
                v.push(hit(r));
                fill(r, &mut v, body - k - 1);
                v.push("  | ty -> Ok ty".into());
                v.push(String::new());
            }
        }
        v.join("\n")
    }

    /// A small new test file (a write).
    fn test_file(&self, r: &mut Rng) -> (String, String) {
        let id = self.ident(r);
        match self.p {
            Proj::Dotnet => {
                let (area, noun) = *r.pick(NET_AREAS);
                let class = format!("{noun}{}RegressionTests", r.pick(NET_FIELDS));
                (
                    format!("tests/Harbor.Dispatch.Tests/{area}/{class}.cs"),
                    format!(
                        "using Harbor.Dispatch.Domain.{area};\nusing Xunit;\n\nnamespace Harbor.Dispatch.Tests.{area};\n\npublic class {class}\n{{\n    [Fact]\n    public async Task Keeps{}AfterReload()\n    {{\n        var sut = TestHost.Create<{noun}Service>();\n        var result = await sut.Get{}Async(TestData.{noun}Id, CancellationToken.None);\n        Assert.True(result.IsSuccess);\n    }}\n}}\n",
                        pascal(&snake(&id)),
                        pascal(&snake(&id))
                    ),
                )
            }
            Proj::Rails => {
                let m = *r.pick(RB_MODELS);
                (
                    format!("spec/models/{m}_{id}_spec.rb"),
                    format!(
                        "require \"rails_helper\"\n\nRSpec.describe {}, type: :model do\n  describe \"#{id}\" do\n    it \"keeps the value after a reload\" do\n      record = create(:{m})\n      expect(record.reload.{id}).to eq(0)\n    end\n  end\nend\n",
                        pascal(m)
                    ),
                )
            }
            Proj::Swift => {
                let (_, nouns) = *r.pick(SW_FEATURES);
                let t = *r.pick(nouns);
                (
                    format!("LarderTests/{t}RegressionTests.swift"),
                    format!(
                        "import XCTest\n@testable import Larder\n\nfinal class {t}RegressionTests: XCTestCase {{\n    func test{}SurvivesReload() async throws {{\n        let sut = try await {t}Store.preview()\n        XCTAssertEqual(sut.{id}.count, 0)\n    }}\n}}\n",
                        cap(&id)
                    ),
                )
            }
            Proj::Godot => (
                format!("test/unit/test_{id}_regression.gd"),
                format!(
                    "extends GutTest\n\nvar _inventory: Inventory\n\nfunc before_each() -> void:\n\t_inventory = Inventory.new()\n\nfunc test_{id}_survives_reload() -> void:\n\tvar saved := SaveCodec.encode(_inventory)\n\tassert_eq(SaveCodec.decode(saved).{id}, _inventory.{id})\n"
                ),
            ),
            Proj::Ocaml => (
                format!("test/test_{id}.ml"),
                format!(
                    "let test_{id} () =\n  let env = Env.empty in\n  match Quire.Typing.Unify.{id} env Types.int with\n  | Ok _ -> ()\n  | Error e -> Alcotest.fail (Diag.to_string e)\n\nlet () = Alcotest.run \"{id}\" [ (\"regression\", [ Alcotest.test_case \"{id}\" `Quick test_{id} ]) ]\n"
                ),
            ),
        }
    }

    /// `ls` of the directory of `path`: the entries that directory plausibly holds.
    fn listing(&self, r: &mut Rng, dir: &str) -> Vec<String> {
        let mut out = HashSet::new();
        for _ in 0..400 {
            let p = self.src_path(r);
            if let Some(rest) = p.strip_prefix(&format!("{dir}/")) {
                let e = match rest.split_once('/') {
                    Some((d, _)) => format!("{d}/"),
                    None => rest.to_string(),
                };
                out.insert(e);
            }
            if out.len() >= 18 {
                break;
            }
        }
        let mut v: Vec<String> = out.into_iter().collect();
        v.sort();
        v
    }

    fn subject(&self, r: &mut Rng) -> String {
        let verbs = [
            "Fix", "Add", "Refactor", "Handle", "Speed up", "Guard", "Simplify", "Rework", "Test",
            "Document", "Clean up", "Tune", "Log", "Cover",
        ];
        let objs: &[&str] = match self.p {
            Proj::Dotnet => &[
                "dock cutoff rounding",
                "rate card expiry check",
                "tender acceptance window",
                "hazmat leg splitting",
                "carrier contact sync",
                "yard slot allocation",
                "query splitting for shipment legs",
                "manifest PDF export",
                "driver roster import",
                "customs declaration mapper",
                "appointment overlap validation",
                "tracking event deduplication",
                "tenant overrides for cutoffs",
                "outbox retries",
            ],
            Proj::Rails => &[
                "renewal limits per branch",
                "hold queue promotion",
                "overdue notice job",
                "late fee rounding",
                "patron merge task",
                "copy transfer workflow",
                "branch closure calendar",
                "checkout limit check",
                "Turbo stream for holds",
                "barcode lookup cache",
                "fine waivers for staff",
                "pickup shelf expiry",
            ],
            Proj::Swift => &[
                "pantry expiry sorting",
                "CloudKit conflict handling",
                "scanner torch toggle",
                "meal plan drag and drop",
                "recipe import from URL",
                "unit conversion for cups",
                "shopping list aisle order",
                "widget timeline refresh",
                "onboarding skip button",
                "SwiftData migration",
                "reminder scheduling",
                "dynamic type in rows",
            ],
            Proj::Godot => &[
                "chunk remesh queue",
                "light propagation across chunk borders",
                "inventory stack merging",
                "crafting graph cycles",
                "ember particle pooling",
                "save codec versioning",
                "heat map sampling",
                "path grid reservations",
                "hotbar scrolling",
                "ashlands spawn weights",
                "fluid sim step budget",
                "ambient occlusion seams",
            ],
            Proj::Ocaml => &[
                "row unification",
                "the occurs check",
                "alias expansion",
                "error spans for tables",
                "pretty printer width",
                "schema validation for enums",
                "import resolution order",
                "lexer float exponents",
                "let-generalization",
                "diagnostic codes",
                "nested table merging",
                "interface files",
            ],
        };
        let base = format!("{} {}", r.pick(&verbs), r.pick(objs));
        match r.below(10) {
            0 => format!(
                "Merge pull request #{} from {}/{}",
                r.range(40, 900),
                match self.p {
                    Proj::Dotnet => "harborline",
                    Proj::Rails => "shelfwise-dev",
                    Proj::Swift => "larder-app",
                    Proj::Godot => "emberfall-games",
                    Proj::Ocaml => "quire-lang",
                },
                self.branch.replace('/', "-")
            ),
            1 | 2 => format!("{base} (#{})", r.range(40, 900)),
            3 => format!("Revert \"{base}\""),
            _ => base,
        }
    }

    /// Result of `git show --stat` for a commit.
    fn git_show(&self, r: &mut Rng, h: &str, subject: &str) -> String {
        let mut s = format!(
            "commit {h}{}\nAuthor: {}\nDate:   {}\n\n    {subject}\n\n",
            r.hex(28),
            r.pick(AUTHORS),
            git_date(
                self.t0 - r.range(3_600_000, 3_600_000 * 24 * 90) as u64,
                r.one(&["+0200", "+0100", "+0000", "-0400", "+0530"])
            )
        );
        let k = r.range(1, 4);
        let (mut ins, mut del) = (0, 0);
        for _ in 0..k {
            let a = r.range(0, 40);
            let d = r.range(0, 25);
            ins += a;
            del += d;
            s.push_str(&format!(
                " {} | {:>3} {}{}\n",
                self.src_path(r),
                a + d,
                "+".repeat(a.min(30)),
                "-".repeat(d.min(20))
            ));
        }
        s.push_str(&format!(
            " {k} file{} changed, {ins} insertions(+), {del} deletions(-)",
            if k == 1 { "" } else { "s" }
        ));
        s
    }
}

fn say_key(r: &mut Rng, key: &str) -> String {
    match r.below(6) {
        0 => format!("`{key}` is the one that matters here; reading around it."),
        1 => format!("Starting with `{key}`."),
        2 => format!("Let me look at `{key}` first."),
        3 => format!("That points at `{key}`, so I'll open it."),
        4 => format!("The earlier output had `{key}`; checking that spot."),
        _ => format!("Going back to `{key}` from before."),
    }
}

/// A read step at `path`, line `ln`, mentioning `key` in the prose.
fn read_step(r: &mut Rng, cx: &Ctx, key: &str, path: &str, ln: usize, ident: Option<&str>) -> Step {
    let n = r.range(12, 22);
    step(
        say_key(r, key),
        "read",
        json!({"path": path, "offset": ln.saturating_sub(6).max(1), "limit": n + 8}),
        cx.snippet(r, path, ident, n),
    )
}

// ---------------------------------------------------------------------------------------------
// Generic formats: git log, pi grep, pi find
// ---------------------------------------------------------------------------------------------

fn fmt_git_log(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let mut i = 0;
    while o.size < target {
        let h = r.hexd(12);
        let deco = if i == 0 {
            format!("(HEAD -> {b}, origin/{b}) ", b = cx.branch)
        } else if r.chance(0.03) {
            format!(
                "(tag: v{}.{}.{}) ",
                r.range(1, 4),
                r.range(0, 19),
                r.range(0, 9)
            )
        } else if i > 3 && r.chance(0.01) {
            "(origin/main, origin/HEAD, main) ".to_string()
        } else {
            String::new()
        };
        let subject = cx.subject(r);
        let show = cx.git_show(r, &h, &subject);
        let say = match r.below(3) {
            0 => format!("Checking what {h} changed."),
            1 => format!("Let me see {h} in full."),
            _ => format!("{h} looks related; showing its stat."),
        };
        o.cand(
            format!("{h} {deco}{subject}"),
            "git-commit",
            h.clone(),
            step(
                say,
                "bash",
                json!({"command": format!("git show --stat {h}")}),
                show,
            ),
        );
        i += 1;
    }
    let intro = *r.pick(&[
        "Let me look at the recent history.",
        "Checking what landed recently.",
        "I'll look at the commit log for context.",
        "",
    ]);
    let since = if i < 120 {
        format!("{} weeks", (i / 12).max(2))
    } else {
        format!("{} months", (i / 60).max(3))
    };
    bash(
        intro,
        format!("git log --oneline --decorate --abbrev=12 --since=\"{since} ago\""),
        o,
        0,
    )
}

fn fmt_grep(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let ident = cx.ident(r);
    let context = if r.chance(0.4) { r.range(1, 2) } else { 0 };
    let limit = 100;
    let mut o = Out::default();
    let mut matches = 0;
    let mut seen = HashSet::new();
    let mut tries = 0;
    while o.size < target && matches < limit && tries < 5_000 {
        tries += 1;
        let path = cx.src_path(r);
        if !seen.insert(path.clone()) {
            continue;
        }
        let mut ln = r.range(3, 40);
        for _ in 0..r.range(1, 4) {
            for k in (1..=context).rev() {
                let l = cx.plain_line_at(r, &path);
                o.push(format!("{path}-{}- {l}", ln - k));
            }
            let code = cx.code_line_at(r, &path, &ident);
            let key = format!("{path}:{ln}");
            let st = read_step(r, cx, &key, &path, ln, Some(&ident));
            o.cand(format!("{key}: {code}"), "grep-hit", key, st);
            for k in 1..=context {
                let l = cx.plain_line_at(r, &path);
                o.push(format!("{path}-{}- {l}", ln + k));
            }
            matches += 1;
            ln += r.range(2 * context + 2, 90);
        }
    }
    if matches >= limit {
        o.blank();
        o.push(format!(
            "[{limit} matches limit reached. Use limit={} for more, or refine pattern]",
            limit * 2
        ));
    }
    let mut args = json!({"pattern": ident, "path": "."});
    if context > 0 {
        args["context"] = json!(context);
    }
    Call {
        intro: r
            .pick(&[
                format!("Searching for {ident} usages."),
                "Let me find every place that touches this.".to_string(),
                String::new(),
            ])
            .clone(),
        tool: "grep",
        args,
        out: o,
        exit: 0,
        trunc: Trunc::Head,
    }
}

/// A path for the find listing of each project (relative to the root) and what reading it shows.
fn find_entry(r: &mut Rng, cx: &Ctx) -> (String, String) {
    match cx.p {
        Proj::Godot => {
            let kinds = [
                (
                    "resources/items",
                    &["ores", "tools", "food", "fuel", "gear"][..],
                    "tres",
                ),
                (
                    "resources/recipes",
                    &["smelting", "forge", "camp", "alchemy"][..],
                    "tres",
                ),
                (
                    "scenes",
                    &["actors", "ui", "world", "fx", "props"][..],
                    "tscn",
                ),
                (
                    "resources/biomes",
                    &["ashlands", "glasswood", "saltflats"][..],
                    "tres",
                ),
            ];
            let (root, subs, ext) = *r.pick(&kinds);
            let a = *r.pick(&[
                "cinder", "basalt", "glass", "ember", "salt", "iron", "copper", "ash", "obsidian",
                "char", "slag", "quartz", "moss", "bone", "tallow", "flint",
            ]);
            let b = *r.pick(&[
                "ore", "ingot", "pick", "lantern", "stew", "brick", "shard", "torch", "bellows",
                "crucible", "satchel", "helm", "crawler", "wisp", "spire", "vent",
            ]);
            let path = if r.chance(0.5) {
                format!("{root}/{}/{a}_{b}.{ext}", r.pick(subs))
            } else {
                format!(
                    "{root}/{}/{a}_{b}_{:02}.{ext}",
                    r.pick(subs),
                    r.range(1, 12)
                )
            };
            let body = if ext == "tres" {
                format!(
                    "[gd_resource type=\"Resource\" script_class=\"ItemData\" load_steps=3 format=3 uid=\"uid://{}\"]\n\n[ext_resource type=\"Script\" path=\"res://systems/items/item_data.gd\" id=\"1_{}\"]\n\n[resource]\nscript = ExtResource(\"1_{}\")\nmax_stack = {}\nheat_value = {}.0\nweight = {}.{}",
                    r.chars(13, b"abcdefghijklmnopqrstuvwxyz0123456789"),
                    r.hex(5),
                    r.hex(5),
                    r.pick(&[1, 16, 32, 64]),
                    r.range(0, 40),
                    r.range(0, 9),
                    r.range(0, 9)
                )
            } else {
                format!(
                    "[gd_scene load_steps=4 format=3 uid=\"uid://{}\"]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Mesh\" type=\"MeshInstance3D\" parent=\".\"]",
                    r.chars(13, b"abcdefghijklmnopqrstuvwxyz0123456789")
                )
            };
            (path, body)
        }
        Proj::Ocaml => {
            let libs = [
                "base",
                "core",
                "core_kernel",
                "stdio",
                "ppxlib",
                "sexplib0",
                "yojson",
                "angstrom",
                "cmdliner",
                "fmt",
                "logs",
                "alcotest",
                "menhirLib",
                "sedlex",
                "uutf",
                "lwt",
                "re",
                "astring",
                "fpath",
                "bos",
                "ppx_expect",
                "ppx_inline_test",
                "stdune",
                "dune-private-libs",
                "ocaml-compiler-libs",
                "lsp",
                "jsonrpc",
                "merlin-lib",
            ];
            let lib = *r.pick(&libs);
            let m = format!(
                "{}{}",
                lib.replace('-', "_"),
                r.pick(&[
                    "",
                    "__Import",
                    "__Export",
                    "__Std",
                    "__Int",
                    "__Map",
                    "__List",
                    "__Hashtbl",
                    "__Option",
                    "__Result",
                    "__Format",
                    "__Buffer",
                    "__Seq",
                    "__Parser",
                    "__Lexer",
                    "__Types",
                    "__Common",
                    "__Printer",
                    "__Arg",
                    "__Term",
                ])
            );
            let path = format!("{}/.opam/5.1.1/lib/{lib}/{}.mli", cx.home, m.to_lowercase());
            let t = m.rsplit("__").next().unwrap_or("t").to_lowercase();
            (
                path,
                format!(
                    "(** {} *)\n\ntype t\n\nval compare : t -> t -> int\nval equal : t -> t -> bool\nval pp : Format.formatter -> t -> unit\nval of_{t} : {t} -> t\nval to_{t} : t -> {t}",
                    cap(&t)
                ),
            )
        }
        _ => {
            let p = cx.src_path(r);
            let k = r.range(10, 18);
            let body = cx.snippet(r, &p, None, k);
            (p, body)
        }
    }
}

fn fmt_find(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let mut seen = HashSet::new();
    let mut tries = 0;
    while o.size < target && o.lines.len() < 1000 && tries < 20_000 {
        tries += 1;
        let (path, body) = find_entry(r, cx);
        if !seen.insert(path.clone()) {
            continue;
        }
        let say = match r.below(3) {
            0 => format!("Opening {path}."),
            1 => format!("Let me read {path}."),
            _ => String::new(),
        };
        let st = step(say, "read", json!({"path": path}), body);
        o.cand(path.clone(), "find-path", path, st);
    }
    if o.lines.len() >= 1000 {
        o.blank();
        o.push("[1000 results limit reached. Use limit=2000 for more, or refine pattern]");
    }
    let (pattern, path) = match cx.p {
        Proj::Dotnet => ("*.cs", "."),
        Proj::Rails => ("*.{rb,erb}", "."),
        Proj::Swift => ("*.swift", "."),
        Proj::Godot => ("*.{tres,tscn}", "."),
        Proj::Ocaml => ("*.mli", "~/.opam/5.1.1/lib"),
    };
    Call {
        intro: r
            .pick(&["Let me list the files.", "Finding the relevant files.", ""])
            .to_string(),
        tool: "find",
        args: json!({"pattern": pattern, "path": path}),
        out: o,
        exit: 0,
        trunc: Trunc::Head,
    }
}

// ---------------------------------------------------------------------------------------------
// .NET: harbor-dispatch
// ---------------------------------------------------------------------------------------------

fn net_test_name(r: &mut Rng, noun: &str) -> String {
    let verbs = [
        "Rejects",
        "Accepts",
        "Splits",
        "Keeps",
        "Rounds",
        "Schedules",
        "Returns",
        "Throws",
        "Skips",
        "Merges",
        "Assigns",
        "Recalculates",
        "Publishes",
        "Ignores",
        "Extends",
        "Caps",
    ];
    let objs = [
        "ExpiredRateCard",
        "LegAtDockCutoff",
        "HazmatLoad",
        "OverlappingAppointment",
        "EmptyManifest",
        "DriverWithoutLicence",
        "PartialPallets",
        "DuplicateTender",
        "LateArrival",
        "WeekendSlot",
        "CrossBorderLeg",
        "ReeferUnit",
        "MissingContact",
        "ZeroWeightItem",
        "OversizeFreight",
        "CancelledShipment",
        "ExpiredQuote",
    ];
    let conds = [
        "",
        "",
        "WhenCarrierSuspended",
        "ForMultiStopRoute",
        "AfterCutoff",
        "InUtc",
        "WithinGraceWindow",
        "WhenYardFull",
        "OnRetry",
        "ForTenantOverride",
        "WithoutEta",
    ];
    let v = *r.pick(&verbs);
    let o = if r.chance(0.3) {
        format!("{noun}{}", r.pick(NET_FIELDS))
    } else {
        r.pick(&objs).to_string()
    };
    let c = *r.pick(&conds);
    match r.below(3) {
        0 if !c.is_empty() => format!("{v}{o}_{c}"),
        1 => format!(
            "{v}_{}{}",
            snake(&o),
            if c.is_empty() {
                String::new()
            } else {
                format!("_{}", snake(c))
            }
        ),
        _ => format!("{v}{o}{c}"),
    }
}

fn fmt_dotnet_test(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let cwd = &cx.cwd;
    let mut o = Out::default();
    o.push("  Determining projects to restore...");
    o.push("  All projects are up-to-date for restore.");
    for p in ["Domain", "Infrastructure", "Workers", "Api"] {
        o.push(format!(
            "  Harbor.Dispatch.{p} -> {cwd}/src/Harbor.Dispatch.{p}/bin/Debug/net8.0/Harbor.Dispatch.{p}.dll"
        ));
    }
    let dll =
        format!("{cwd}/tests/Harbor.Dispatch.Tests/bin/Debug/net8.0/Harbor.Dispatch.Tests.dll");
    o.push(format!("  Harbor.Dispatch.Tests -> {dll}"));
    o.push(format!("Test run for {dll} (.NETCoreApp,Version=v8.0)"));
    o.push("Microsoft (R) Test Execution Command Line Tool Version 17.9.0 (x64)");
    o.push("Copyright (c) Microsoft Corporation.  All rights reserved.");
    o.blank();
    o.push("Starting test execution, please wait...");
    o.push("A total of 1 test files matched the specified pattern.");
    o.push(
        "[xUnit.net 00:00:00.00] xUnit.net VSTest Adapter v2.5.7+8f2703126a (64-bit .NET 8.0.3)",
    );
    o.push("[xUnit.net 00:00:00.41]   Discovering: Harbor.Dispatch.Tests");
    o.push("[xUnit.net 00:00:00.66]   Discovered:  Harbor.Dispatch.Tests");
    o.push("[xUnit.net 00:00:00.67]   Starting:    Harbor.Dispatch.Tests");
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut clock = 0.7f64;
    let mut names = HashSet::new();
    while o.size + 300 < target {
        let (area, noun) = *r.pick(NET_AREAS);
        let class = format!("{noun}{}Tests", r.pick(NET_SUFFIX));
        let fqc = format!("Harbor.Dispatch.Tests.{area}.{class}");
        for _ in 0..r.range(2, 9) {
            let m = net_test_name(r, noun);
            let fq = format!("{fqc}.{m}");
            if !names.insert(fq.clone()) {
                continue;
            }
            let ms = if r.chance(0.7) {
                r.range(1, 40)
            } else {
                r.range(40, 900)
            };
            let dur = if r.chance(0.08) {
                "< 1 ms".to_string()
            } else {
                format!("{ms} ms")
            };
            clock += ms as f64 / 1000.0;
            let roll = r.unit();
            if roll < 0.14 {
                // A theory: one row per case.
                for _ in 0..r.range(2, 5) {
                    let carrier = *r.pick(&[
                        "NORDLINE",
                        "KESTREL",
                        "BALTCO",
                        "TRANSAVIA",
                        "OSTFRACHT",
                        "MERIDIAN",
                    ]);
                    o.push(format!(
                        "  Passed {fq}(carrier: \"{carrier}\", legs: {}) [{} ms]",
                        r.range(1, 6),
                        r.range(1, 30)
                    ));
                    passed += 1;
                }
            } else if roll < 0.165 && failed < 5 {
                failed += 1;
                o.push(format!("[xUnit.net 00:00:{clock:05.2}]     {fq} [FAIL]"));
                o.push(format!("  Failed {fq} [{dur}]"));
                o.push("  Error Message:");
                match r.below(4) {
                    0 => {
                        o.push("   Assert.Equal() Failure: Values differ");
                        o.push(format!("Expected: {}", r.pick(&["Rejected", "Accepted", "Scheduled", "Closed"])));
                        o.push(format!("Actual:   {}", r.pick(&["Pending", "Open", "Expired", "Draft"])));
                    }
                    1 => {
                        o.push("   Assert.True() Failure");
                        o.push("Expected: True");
                        o.push("Actual:   False");
                    }
                    2 => o.push(format!(
                        "   System.InvalidOperationException : The LINQ expression 'DbSet<{noun}>().Where(x => x.{} == __now_0)' could not be translated. Either rewrite the query in a form that can be translated, or switch to client evaluation explicitly by inserting a call to 'AsEnumerable'.",
                        r.pick(NET_FIELDS)
                    )),
                    _ => o.push(format!(
                        "   Npgsql.PostgresException : 23505: duplicate key value violates unique constraint \"ix_{}_{}_id\"",
                        snake(&plural(noun)),
                        snake(noun)
                    )),
                }
                o.push("  Stack Trace:");
                o.push(format!(
                    "     at {fq}() in {cwd}/tests/Harbor.Dispatch.Tests/{area}/{class}.cs:line {}",
                    r.range(20, 400)
                ));
                o.push("--- End of stack trace from previous location ---");
            } else if roll < 0.18 {
                skipped += 1;
                o.push(format!("  Skipped {fq} [1 ms]"));
            } else {
                passed += 1;
                let say = format!("Re-running {m} on its own.");
                let res = format!(
                    "Test run for {dll} (.NETCoreApp,Version=v8.0)\nMicrosoft (R) Test Execution Command Line Tool Version 17.9.0 (x64)\nCopyright (c) Microsoft Corporation.  All rights reserved.\n\nStarting test execution, please wait...\nA total of 1 test files matched the specified pattern.\n\nPassed!  - Failed:     0, Passed:     1, Skipped:     0, Total:     1, Duration: {} ms - Harbor.Dispatch.Tests.dll (net8.0)",
                    r.range(20, 400)
                );
                let st = step(
                    say,
                    "bash",
                    json!({"command": format!("dotnet test tests/Harbor.Dispatch.Tests --no-build --filter \"FullyQualifiedName={fq}\"")}),
                    res,
                );
                o.cand(format!("  Passed {fq} [{dur}]"), "xunit-test", fq, st);
            }
        }
    }
    o.push(format!(
        "[xUnit.net 00:00:{clock:05.2}]   Finished:    Harbor.Dispatch.Tests"
    ));
    o.blank();
    let total = passed + failed + skipped;
    o.push(format!(
        "{}!  - Failed: {failed:>5}, Passed: {passed:>5}, Skipped: {skipped:>5}, Total: {total:>5}, Duration: {} s - Harbor.Dispatch.Tests.dll (net8.0)",
        if failed > 0 { "Failed" } else { "Passed" },
        clock.round() as u64
    ));
    let exit = if failed > 0 { 1 } else { 0 };
    let intro = *r.pick(&[
        "Let me run the unit tests.",
        "Running the test suite.",
        "Let me see what the tests say.",
    ]);
    bash(
        intro,
        "dotnet test tests/Harbor.Dispatch.Tests --logger \"console;verbosity=normal\"".into(),
        o,
        exit,
    )
}

fn fmt_ef_migrations(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("Build started...");
    o.push("Build succeeded.");
    o.push("info: Microsoft.EntityFrameworkCore.Infrastructure[10403]");
    o.push("      Entity Framework Core 8.0.3 initialized 'DispatchDbContext' using provider 'Npgsql.EntityFrameworkCore.PostgreSQL:8.0.2' with options: None");
    let mut t = cx.t0 - 86_400_000 * r.range(700, 1100) as u64;
    let mut rows = Vec::new();
    rows.push(format!("{}_InitialCreate", compact_stamp(t)));
    let pats = [
        "Add{N}{F}",
        "Rename{N}Columns",
        "Index{N}By{F}",
        "Drop{N}Legacy{F}",
        "Seed{N}Defaults",
        "Split{N}Table",
        "Add{N}Table",
        "Make{N}{F}Nullable",
        "Backfill{N}{F}",
        "Add{N}{F}Index",
    ];
    let mut seen = HashSet::new();
    while rows.iter().map(|x| x.len() + 1).sum::<usize>() + 400 < target {
        t += 3_600_000 * r.range(20, 400) as u64 + r.range(0, 3_599_999) as u64;
        if t > cx.t0 {
            break;
        }
        let (_, noun) = *r.pick(NET_AREAS);
        let name = r
            .pick(&pats)
            .replace("{N}", noun)
            .replace("{F}", r.one(NET_FIELDS));
        if seen.insert(name.clone()) {
            rows.push(format!("{}_{name}", compact_stamp(t)));
        }
    }
    let pending = r.range(0, 2);
    let n = rows.len();
    for (i, id) in rows.into_iter().enumerate() {
        let say = match r.below(3) {
            0 => format!("Moving the database to {id}."),
            1 => format!("Let me apply {id} on the dev database."),
            _ => format!("Updating to {id} to check the schema at that point."),
        };
        let st = step(
            say,
            "bash",
            json!({"command": format!("dotnet ef database update {id} --project src/Harbor.Dispatch.Infrastructure --startup-project src/Harbor.Dispatch.Api")}),
            format!(
                "Build started...\nBuild succeeded.\ninfo: Microsoft.EntityFrameworkCore.Migrations[20402]\n      Applying migration '{id}'.\nDone."
            ),
        );
        let line = if i + pending >= n && i > 0 {
            format!("{id} (Pending)")
        } else {
            id.clone()
        };
        o.cand(line, "ef-migration", id, st);
    }
    bash(
        r.one(&["Let me check which migrations are applied.", "Listing the EF migrations.", ""]),
        "dotnet ef migrations list --project src/Harbor.Dispatch.Infrastructure --startup-project src/Harbor.Dispatch.Api".into(),
        o,
        0,
    )
}

fn fmt_compose_logs(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let a = "api-1     | ";
    let w = "worker-1  | ";
    o.push(format!("{a}info: Microsoft.Hosting.Lifetime[14]"));
    o.push(format!("{a}      Now listening on: http://[::]:8080"));
    o.push(format!("{a}info: Microsoft.Hosting.Lifetime[0]"));
    o.push(format!(
        "{a}      Application started. Press Ctrl+C to shut down."
    ));
    o.push(format!("{a}info: Microsoft.Hosting.Lifetime[0]"));
    o.push(format!("{a}      Hosting environment: Development"));
    let tables = [
        "tenders",
        "shipments",
        "legs",
        "rate_cards",
        "appointments",
        "docks",
        "carriers",
    ];
    while o.size < target {
        match r.below(11) {
            0..=3 => {
                let (method, path) = match r.below(6) {
                    0 => (
                        "GET",
                        format!("/api/v2/shipments/SHP-{}/legs", r.upper_alnum(6)),
                    ),
                    1 => (
                        "POST",
                        format!("/api/v2/tenders/TND-{}/accept", r.range(10_000, 99_999)),
                    ),
                    2 => (
                        "GET",
                        format!("/api/v2/carriers/CAR-{:05}/rate-cards", r.range(1, 99_999)),
                    ),
                    3 => (
                        "GET",
                        format!("/api/v2/docks/DCK-{:02}/appointments", r.range(1, 24)),
                    ),
                    4 => (
                        "GET",
                        format!(
                            "/api/v2/manifests/MNF-{}-{:03}/pdf",
                            compact_stamp(cx.t0 - r.range(0, 40) as u64 * 86_400_000)
                                .get(..8)
                                .unwrap_or("20250101"),
                            r.range(1, 999)
                        ),
                    ),
                    _ => (
                        *r.pick(&["PUT", "DELETE", "GET"]),
                        format!(
                            "/api/v2/appointments/{}-{}-4{}-{}{}-{}",
                            r.hex(8),
                            r.hex(4),
                            r.hex(3),
                            r.pick(&["8", "9", "a", "b"]),
                            r.hex(3),
                            r.hex(12)
                        ),
                    ),
                };
                let query = if path.contains("/docks/") {
                    format!("?from={}", day(cx.t0 + r.range(0, 9) as u64 * 86_400_000))
                } else {
                    String::new()
                };
                let code = if method == "POST" {
                    *r.pick(&[200, 201, 409, 422])
                } else {
                    *r.pick(&[200, 200, 200, 204, 404])
                };
                let ms = r.fl(0.9, 900.0);
                o.push(format!(
                    "{a}info: Harbor.Dispatch.Api.Middleware.RequestTimingMiddleware[1001]"
                ));
                let line =
                    format!("{a}      {method} {path}{query} responded {code} in {ms:.4} ms");
                let curl = if method == "GET" {
                    format!(
                        "curl -s -H \"Authorization: Bearer $HARBOR_DEV_TOKEN\" \"http://localhost:8080{path}{query}\" | jq ."
                    )
                } else {
                    format!(
                        "curl -s -X {method} -H \"Authorization: Bearer $HARBOR_DEV_TOKEN\" \"http://localhost:8080{path}\" | jq ."
                    )
                };
                let res = format!(
                    "{{\n  \"type\": \"https://tools.ietf.org/html/rfc9110#section-15.5.{}\",\n  \"title\": \"{}\",\n  \"status\": {code},\n  \"traceId\": \"00-{}-{}-00\"\n}}",
                    r.range(1, 20),
                    r.pick(&[
                        "One or more validation errors occurred.",
                        "Conflict",
                        "OK",
                        "Not Found"
                    ]),
                    r.hex(32),
                    r.hex(16)
                );
                let say = format!("Replaying {method} {path} against the local API.");
                o.cand(
                    line,
                    "api-request",
                    path,
                    step(say, "bash", json!({"command": curl}), res),
                );
            }
            4 | 5 => {
                let n = r.range(1, 240);
                o.push(format!(
                    "{a}info: Microsoft.EntityFrameworkCore.Database.Command[20101]"
                ));
                o.push(format!(
                    "{a}      Executed DbCommand ({n}ms) [Parameters=[@__p_0='?' (DbType = Guid), @__p_1='?' (DbType = Int32)], CommandType='Text', CommandTimeout='30']"
                ));
                let t = *r.pick(&tables);
                let al = &t[..1];
                o.push(format!(
                    "{a}      SELECT {al}.id, {al}.status, {al}.updated_at, {al}.tenant_id"
                ));
                o.push(format!("{a}      FROM {t} AS {al}"));
                o.push(format!(
                    "{a}      WHERE {al}.{}_id = @__p_0",
                    snake(r.one(&["Shipment", "Carrier", "Dock", "Tender"]))
                ));
                if r.chance(0.5) {
                    o.push(format!("{a}      ORDER BY {al}.updated_at DESC"));
                }
                o.push(format!("{a}      LIMIT @__p_1"));
            }
            6 => {
                o.push(format!(
                    "{a}info: Microsoft.AspNetCore.Hosting.Diagnostics[1]"
                ));
                o.push(format!(
                    "{a}      Request starting HTTP/1.1 GET http://api:8080/healthz - - -"
                ));
                o.push(format!(
                    "{a}info: Microsoft.AspNetCore.Hosting.Diagnostics[2]"
                ));
                o.push(format!(
                    "{a}      Request finished HTTP/1.1 GET http://api:8080/healthz - 200 null text/plain {:.4}ms",
                    r.fl(0.2, 3.0)
                ));
            }
            7 => {
                o.push(format!(
                    "{w}info: Harbor.Dispatch.Workers.TenderExpirySweeper[2001]"
                ));
                o.push(format!(
                    "{w}      Swept {} expired tenders in {} ms (batch {})",
                    r.range(0, 40),
                    r.range(3, 800),
                    r.range(1, 9000)
                ));
            }
            8 => {
                o.push(format!(
                    "{a}warn: Microsoft.EntityFrameworkCore.Query[20504]"
                ));
                o.push(format!("{a}      Compiling a query which loads related collections for more than one collection navigation, either via 'Include' or through projection, but no 'QuerySplittingBehavior' has been configured. By default, Entity Framework will use 'QuerySplittingBehavior.SingleQuery', which can potentially result in slow query performance."));
            }
            9 => {
                o.push(format!(
                    "{w}info: Harbor.Dispatch.Workers.OutboxPublisher[3002]"
                ));
                o.push(format!(
                    "{w}      Published {} outbox messages to harbor.dispatch.events in {:.1} ms",
                    r.range(1, 60),
                    r.fl(1.0, 120.0)
                ));
            }
            _ => {
                let (area, noun) = *r.pick(NET_AREAS);
                o.push(format!(
                    "{a}fail: Harbor.Dispatch.Api.{area}.{noun}Controller[0]"
                ));
                o.push(format!(
                    "{a}      Unhandled exception while handling {noun} request"
                ));
                o.push(format!(
                    "{a}      System.InvalidOperationException: {noun} {} is not set for tenant {}",
                    r.pick(NET_FIELDS),
                    r.range(2, 60)
                ));
                for _ in 0..r.range(2, 5) {
                    let (ar, nn) = *r.pick(NET_AREAS);
                    let layer = r.one(NET_LAYERS);
                    let class = format!("{nn}{}", r.one(NET_SUFFIX));
                    o.push(format!(
                        "{a}         at Harbor.Dispatch.{layer}.{ar}.{class}.{}Async(CancellationToken ct) in /src/src/Harbor.Dispatch.{layer}/{ar}/{class}.cs:line {}",
                        r.one(&["Resolve", "Handle", "Apply", "Load", "Validate"]),
                        r.range(20, 300)
                    ));
                }
            }
        }
    }
    bash(
        r.one(&[
            "Let me look at the API logs.",
            "Checking the container logs.",
            "",
        ]),
        "docker compose logs --no-color --tail=1500 api worker".into(),
        o,
        0,
    )
}

const NUGET: &[&str] = &[
    "Azure.Core",
    "Azure.Identity",
    "Azure.Storage.Blobs",
    "Azure.Messaging.ServiceBus",
    "Dapper",
    "FluentValidation",
    "FluentValidation.AspNetCore",
    "FluentValidation.DependencyInjectionExtensions",
    "Humanizer.Core",
    "MediatR",
    "MediatR.Contracts",
    "Microsoft.AspNetCore.Authentication.JwtBearer",
    "Microsoft.AspNetCore.Mvc.Testing",
    "Microsoft.AspNetCore.OpenApi",
    "Microsoft.Bcl.AsyncInterfaces",
    "Microsoft.Bcl.TimeProvider",
    "Microsoft.CodeAnalysis.Common",
    "Microsoft.CodeAnalysis.CSharp",
    "Microsoft.CodeAnalysis.Workspaces.Common",
    "Microsoft.CodeCoverage",
    "Microsoft.CSharp",
    "Microsoft.Data.SqlClient",
    "Microsoft.EntityFrameworkCore",
    "Microsoft.EntityFrameworkCore.Abstractions",
    "Microsoft.EntityFrameworkCore.Analyzers",
    "Microsoft.EntityFrameworkCore.Design",
    "Microsoft.EntityFrameworkCore.Relational",
    "Microsoft.Extensions.Caching.Abstractions",
    "Microsoft.Extensions.Caching.Memory",
    "Microsoft.Extensions.Configuration.Binder",
    "Microsoft.Extensions.DependencyModel",
    "Microsoft.Extensions.Diagnostics.HealthChecks",
    "Microsoft.Extensions.Http.Polly",
    "Microsoft.Extensions.Http.Resilience",
    "Microsoft.Extensions.Logging.Abstractions",
    "Microsoft.Extensions.Options.DataAnnotations",
    "Microsoft.Extensions.Telemetry.Abstractions",
    "Microsoft.Identity.Client",
    "Microsoft.IdentityModel.Abstractions",
    "Microsoft.IdentityModel.JsonWebTokens",
    "Microsoft.IdentityModel.Protocols.OpenIdConnect",
    "Microsoft.IdentityModel.Tokens",
    "Microsoft.NET.Test.Sdk",
    "Microsoft.OpenApi",
    "Microsoft.TestPlatform.ObjectModel",
    "Microsoft.TestPlatform.TestHost",
    "Newtonsoft.Json",
    "Npgsql",
    "Npgsql.EntityFrameworkCore.PostgreSQL",
    "NodaTime",
    "NodaTime.Serialization.SystemTextJson",
    "NSubstitute",
    "OpenTelemetry",
    "OpenTelemetry.Api",
    "OpenTelemetry.Exporter.OpenTelemetryProtocol",
    "OpenTelemetry.Extensions.Hosting",
    "OpenTelemetry.Instrumentation.AspNetCore",
    "OpenTelemetry.Instrumentation.Http",
    "Polly",
    "Polly.Core",
    "Polly.Extensions.Http",
    "QuestPDF",
    "RabbitMQ.Client",
    "Respawn",
    "Scrutor",
    "Serilog",
    "Serilog.AspNetCore",
    "Serilog.Extensions.Hosting",
    "Serilog.Formatting.Compact",
    "Serilog.Settings.Configuration",
    "Serilog.Sinks.Console",
    "Serilog.Sinks.File",
    "Serilog.Sinks.Seq",
    "Shouldly",
    "StackExchange.Redis",
    "Swashbuckle.AspNetCore",
    "Swashbuckle.AspNetCore.Swagger",
    "Swashbuckle.AspNetCore.SwaggerGen",
    "Swashbuckle.AspNetCore.SwaggerUI",
    "System.Collections.Immutable",
    "System.ComponentModel.Annotations",
    "System.Diagnostics.DiagnosticSource",
    "System.IdentityModel.Tokens.Jwt",
    "System.IO.Pipelines",
    "System.Memory",
    "System.Reflection.Metadata",
    "System.Runtime.CompilerServices.Unsafe",
    "System.Security.Cryptography.ProtectedData",
    "System.Text.Encodings.Web",
    "System.Text.Json",
    "System.Threading.Channels",
    "Testcontainers",
    "Testcontainers.PostgreSql",
    "Testcontainers.RabbitMq",
    "xunit",
    "xunit.abstractions",
    "xunit.analyzers",
    "xunit.assert",
    "xunit.core",
    "xunit.extensibility.core",
    "xunit.extensibility.execution",
    "xunit.runner.visualstudio",
    "Bogus",
    "AutoFixture",
    "AutoFixture.Xunit2",
    "Castle.Core",
    "coverlet.collector",
    "Hangfire.Core",
    "Hangfire.PostgreSql",
    "MassTransit",
    "MassTransit.RabbitMQ",
];

fn version(r: &mut Rng) -> (String, String) {
    let major = *r.pick(&[1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 13]);
    let minor = r.range(0, 12);
    let patch = r.range(0, 9);
    let old = format!("{major}.{minor}.{patch}");
    let new = if r.chance(0.6) {
        format!("{major}.{minor}.{}", patch + r.range(1, 4))
    } else {
        format!("{major}.{}.{}", minor + r.range(1, 3), r.range(0, 3))
    };
    (old, new)
}

fn fmt_nuget_outdated(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("The following sources were used:");
    o.push("   https://api.nuget.org/v3/index.json");
    o.push(format!("   {}/.nuget/local-feed", cx.home));
    o.blank();
    let mut pool: Vec<&str> = NUGET.to_vec();
    r.shuffle(&mut pool);
    let projects = [
        "Harbor.Dispatch.Api",
        "Harbor.Dispatch.Domain",
        "Harbor.Dispatch.Infrastructure",
        "Harbor.Dispatch.Workers",
        "Harbor.Dispatch.Tests",
        "Harbor.Dispatch.IntegrationTests",
    ];
    let per = (target / 110).clamp(8, 60);
    let mut next = 0usize;
    for p in projects {
        if r.chance(0.15) {
            o.push(format!(
                "Project `{p}` has no updates given the current sources."
            ));
            continue;
        }
        o.push(format!(
            "Project `{p}` has the following updates to its packages"
        ));
        o.push("   [net8.0]: ");
        o.push(format!(
            "   {:<58}{:<12}{:<11}{}",
            "Top-level Package", "Requested", "Resolved", "Latest"
        ));
        let dir = if p.contains("Tests") { "tests" } else { "src" };
        let row = |r: &mut Rng, o: &mut Out, top: bool, name: &str| {
            let (old, new) = version(r);
            let line = if top {
                format!("   > {name:<56}{old:<12}{old:<11}{new}")
            } else {
                format!("   > {name:<56}{old:<11}{new}")
            };
            let proj = format!("{dir}/{p}/{p}.csproj");
            let res = format!(
                "  Determining projects to restore...\ninfo : Adding PackageReference for package '{name}' into project '{}/{proj}'.\ninfo : Restoring packages for {}/{proj}...\ninfo : Package '{name}' is compatible with all the specified frameworks in project '{}/{proj}'.\ninfo : PackageReference for package '{name}' version '{new}' added to file '{}/{proj}'.\ninfo : Writing assets file to disk. Path: {}/{dir}/{p}/obj/project.assets.json\nlog  : Restored {}/{proj} (in {} ms).",
                cx.cwd,
                cx.cwd,
                cx.cwd,
                cx.cwd,
                cx.cwd,
                cx.cwd,
                r.range(200, 2400)
            );
            let say = format!("Pinning {name} to {new} in {p}.");
            let st = step(
                say,
                "bash",
                json!({"command": format!("dotnet add {proj} package {name} --version {new}")}),
                res,
            );
            o.cand(line, "nuget-package", name.to_string(), st);
        };
        for _ in 0..r.range(2, 7) {
            let name = pool[next % pool.len()];
            next += 1;
            row(r, &mut o, true, name);
        }
        o.blank();
        o.push(format!(
            "   {:<58}{:<11}{}",
            "Transitive Package", "Resolved", "Latest"
        ));
        for _ in 0..r.range(per / 2, per) {
            // Mostly fresh names; sometimes one already listed for another project.
            let name = if r.chance(0.2) && next > 0 {
                pool[r.below(next) % pool.len()]
            } else {
                next += 1;
                pool[(next - 1) % pool.len()]
            };
            row(r, &mut o, false, name);
        }
        o.blank();
    }
    bash(
        r.one(&[
            "Let me see which packages are behind.",
            "Checking outdated NuGet packages.",
            "",
        ]),
        "dotnet list package --outdated --include-transitive".into(),
        o,
        0,
    )
}

fn fmt_lsp_net(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let (mut e, mut w, mut i) = (0, 0, 0);
    let mut files = HashSet::new();
    o.push("csharp-ls 0.12.0 (Roslyn 4.9.2), solution Harbor.Dispatch.sln, 6 projects loaded");
    while o.size + 120 < target {
        let path = cx.src_path(r);
        files.insert(path.clone());
        let mut ln = r.range(5, 60);
        for _ in 0..r.range(1, 5) {
            let (_, noun) = *r.pick(NET_AREAS);
            let f = *r.pick(NET_FIELDS);
            let (sev, code, msg) = match r.below(9) {
                0 => ("warning", "CS8602", "Dereference of a possibly null reference.".to_string()),
                1 => ("warning", "CS8618", format!("Non-nullable property '{f}' must contain a non-null value when exiting constructor. Consider adding the 'required' modifier or declaring the property as nullable.")),
                2 => ("info", "IDE0057", "Substring can be simplified".to_string()),
                3 => ("info", "IDE0090", "'new' expression can be simplified".to_string()),
                4 => ("warning", "CA1822", format!("Member 'Get{f}' does not access instance data and can be marked as static")),
                5 => ("warning", "CS1998", "This async method lacks 'await' operators and will run synchronously. Consider using the 'await' operator to await non-blocking API calls, or 'await Task.Run(...)' to do CPU-bound work on a background thread.".to_string()),
                6 => ("info", "IDE0005", "Using directive is unnecessary.".to_string()),
                7 => ("warning", "CA2007", "Consider calling ConfigureAwait on the awaited task".to_string()),
                _ => ("error", "CS0246", format!("The type or namespace name '{noun}{f}Dto' could not be found (are you missing a using directive or an assembly reference?)")),
            };
            match sev {
                "error" => e += 1,
                "warning" => w += 1,
                _ => i += 1,
            }
            let col = r.range(5, 60);
            let key = format!("{path}:{ln}:{col}");
            let st = read_step(r, cx, &key, &path, ln, None);
            o.cand(
                format!("{key}: {sev} {code}: {msg}"),
                "lsp-diagnostic",
                key,
                st,
            );
            ln += r.range(1, 80);
        }
    }
    o.blank();
    o.push(format!(
        "{} diagnostics ({e} errors, {w} warnings, {i} info) in {} files",
        e + w + i,
        files.len()
    ));
    Call {
        intro: r
            .pick(&[
                "Let me ask the language server what it sees.",
                "Checking diagnostics for the solution.",
                "",
            ])
            .to_string(),
        tool: "lsp_diagnostics",
        args: json!({"path": "src", "minSeverity": "info"}),
        out: o,
        exit: 0,
        trunc: Trunc::Head,
    }
}

fn fmt_dotnet_build(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let cwd = &cx.cwd;
    let mut o = Out::default();
    o.push("MSBuild version 17.9.8+b34f75857 for .NET");
    o.push("  Determining projects to restore...");
    let layers = ["Domain", "Infrastructure", "Workers", "Api"];
    for p in layers {
        o.push(format!(
            "  Restored {cwd}/src/Harbor.Dispatch.{p}/Harbor.Dispatch.{p}.csproj (in {} ms).",
            r.range(80, 2400)
        ));
    }
    let mut warns = Vec::new();
    for p in layers {
        for _ in 0..(target / 4 / 260).max(3) {
            if o.size + warns.iter().map(|x: &String| x.len()).sum::<usize>() > target {
                break;
            }
            let (area, noun) = *r.pick(NET_AREAS);
            let (code, msg) = match r.below(5) {
                0 => (
                    "CS8602",
                    "Dereference of a possibly null reference.".to_string(),
                ),
                1 => (
                    "CS8618",
                    format!(
                        "Non-nullable property '{}' must contain a non-null value when exiting constructor. Consider adding the 'required' modifier or declaring the property as nullable.",
                        r.pick(NET_FIELDS)
                    ),
                ),
                2 => (
                    "CS0618",
                    format!(
                        "'{noun}Options.Legacy{}' is obsolete: 'Use the tenant override instead.'",
                        r.pick(NET_FIELDS)
                    ),
                ),
                3 => (
                    "CS8604",
                    format!(
                        "Possible null reference argument for parameter '{}' in '{noun}{}.Create'.",
                        lower_first(r.one(NET_FIELDS)),
                        r.pick(NET_SUFFIX)
                    ),
                ),
                _ => (
                    "CS0168",
                    "The variable 'ex' is declared but never used".to_string(),
                ),
            };
            let line = format!(
                "{cwd}/src/Harbor.Dispatch.{p}/{area}/{noun}{}.cs({},{}): warning {code}: {msg} [{cwd}/src/Harbor.Dispatch.{p}/Harbor.Dispatch.{p}.csproj]",
                r.pick(NET_SUFFIX),
                r.range(5, 400),
                r.range(5, 60)
            );
            o.push(line.clone());
            warns.push(line);
        }
        o.push(format!(
            "  Harbor.Dispatch.{p} -> {cwd}/src/Harbor.Dispatch.{p}/bin/Debug/net8.0/Harbor.Dispatch.{p}.dll"
        ));
    }
    o.blank();
    o.push("Build succeeded.");
    o.blank();
    for w in &warns {
        o.push(w.clone());
    }
    o.push(format!("    {} Warning(s)", warns.len()));
    o.push("    0 Error(s)");
    o.blank();
    o.push(format!("Time Elapsed 00:00:{:05.2}", r.fl(8.0, 59.0)));
    bash(
        r.one(&[
            "Building the solution first.",
            "Let me make sure it builds.",
            "",
        ]),
        "dotnet build Harbor.Dispatch.sln".into(),
        o,
        0,
    )
}

// ---------------------------------------------------------------------------------------------
// Rails: shelfwise
// ---------------------------------------------------------------------------------------------

fn rb_example(r: &mut Rng) -> String {
    let verbs = [
        "extends",
        "refuses",
        "charges",
        "notifies",
        "promotes",
        "skips",
        "records",
        "returns",
        "raises",
        "keeps",
        "clears",
        "sends",
        "enqueues",
        "renders",
        "redirects",
        "caps",
    ];
    let objs = [
        "the due date",
        "the renewal",
        "a late fee",
        "the next patron",
        "the hold to ready",
        "suspended patrons",
        "the transfer",
        "a 404 for other branches",
        "an error when the copy is lost",
        "the queue position",
        "the fine balance",
        "a reminder email",
        "the overdue job",
        "the pickup shelf list",
        "to the dashboard",
        "the checkout limit",
        "the closure calendar",
    ];
    let tails = [
        "",
        "",
        "",
        " by the branch loan period",
        " once per day",
        " in the patron's locale",
        " for staff accounts",
        " when the branch is closed",
        " after the grace period",
    ];
    format!("{} {}{}", r.pick(&verbs), r.pick(&objs), r.pick(&tails))
}

struct RbExample {
    desc: String,
    file: String,
    line: usize,
    /// Its line in the documentation output.
    at: usize,
}

fn fmt_rspec(r: &mut Rng, _cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let seed = r.range(1000, 65_000);
    o.push(format!("Randomized with seed {seed}"));
    o.blank();
    let mut examples: Vec<RbExample> = Vec::new();
    let mut failures: Vec<(usize, RbExample)> = Vec::new();
    let mut pending: Vec<RbExample> = Vec::new();
    let want_fail = r.range(3, 7);
    let body_target = target * 4 / 5;
    let mut files = HashSet::new();
    let mut tries = 0;
    while o.size < body_target && tries < 5_000 {
        tries += 1;
        let m = *r.pick(RB_MODELS);
        let (top, file) = match r.below(5) {
            0 | 1 => (pascal(m), format!("spec/models/{m}_spec.rb")),
            2 => {
                let s = *r.pick(RB_SERVICES);
                (
                    format!("{}::{}", pascal(&plural(m)), pascal(s)),
                    format!("spec/services/{}/{s}_spec.rb", plural(m)),
                )
            }
            3 => (
                pascal(&plural(m)),
                format!("spec/requests/{}_spec.rb", plural(m)),
            ),
            _ => {
                let flow = *r.pick(&[
                    "Checkout flow",
                    "Hold pickup",
                    "Patron signup",
                    "Fine payment",
                    "Branch transfer",
                ]);
                (
                    flow.to_string(),
                    format!(
                        "spec/system/{}_spec.rb",
                        snake(&flow.replace(' ', "_").to_lowercase())
                    ),
                )
            }
        };
        if !files.insert(file.clone()) {
            continue;
        }
        o.push(top.clone());
        let mut ln = 3;
        for _ in 0..r.range(1, 4) {
            let inner = if top.contains("::") || top.contains(' ') {
                format!(
                    "when {}",
                    r.pick(&[
                        "the patron is suspended",
                        "the branch is closed",
                        "the copy is lost",
                        "the hold expired",
                        "it is a staff account",
                        "the queue is empty"
                    ])
                )
            } else {
                format!(
                    "#{}",
                    r.pick(&[
                        "renew!",
                        "expire!",
                        "promote!",
                        "overdue?",
                        "charge_late_fee",
                        "ready_for_pickup?",
                        "transfer_to",
                        "notify"
                    ])
                )
            };
            o.push(format!("  {inner}"));
            ln += r.range(2, 6);
            let nested = r.chance(0.4);
            let ctx_line = if nested {
                let c = format!(
                    "when {}",
                    r.pick(&[
                        "the copy has a pending hold",
                        "the patron owes fines",
                        "renewals are exhausted",
                        "the due date is a holiday",
                        "notifications are disabled"
                    ])
                );
                o.push(format!("    {c}"));
                ln += r.range(2, 8);
                format!(" {c}")
            } else {
                String::new()
            };
            let ind = if nested { "      " } else { "    " };
            for _ in 0..r.range(1, 6) {
                let it = rb_example(r);
                ln += r.range(3, 14);
                let ex = RbExample {
                    desc: format!("{top} {inner}{ctx_line} {it}"),
                    file: file.clone(),
                    line: ln,
                    at: o.lines.len(),
                };
                let roll = r.unit();
                if roll < 0.04 && failures.len() < want_fail {
                    o.push(format!("{ind}{it}"));
                    failures.push((0, ex));
                } else if roll < 0.06 {
                    o.push(format!(
                        "{ind}{it} (PENDING: Waiting on the notifier rewrite)"
                    ));
                    pending.push(ex);
                } else {
                    o.push(format!("{ind}{it}"));
                    examples.push(ex);
                }
            }
        }
        o.blank();
    }
    // Make sure there are enough failures for a rerun list.
    while failures.len() < want_fail && !examples.is_empty() {
        let i = r.below(examples.len());
        let ex = examples.swap_remove(i);
        failures.push((0, ex));
    }
    // Number the failures in the order they ran and mark their lines.
    failures.sort_by_key(|f| f.1.at);
    for (i, f) in failures.iter_mut().enumerate() {
        f.0 = i + 1;
        let l = &mut o.lines[f.1.at];
        let mark = format!(" (FAILED - {})", i + 1);
        o.size += mark.len();
        l.push_str(&mark);
    }
    if !pending.is_empty() {
        o.push(
            "Pending: (Failures listed here are expected and do not affect your suite's status)",
        );
        o.blank();
        for (i, p) in pending.iter().enumerate() {
            o.push(format!("  {}) {}", i + 1, p.desc));
            o.push("     # Waiting on the notifier rewrite");
            o.push(format!("     # ./{}:{}", p.file, p.line));
            o.blank();
        }
    }
    o.push("Failures:");
    o.blank();
    for (n, f) in &failures {
        o.push(format!("  {n}) {}", f.desc));
        let m = *r.pick(RB_MODELS);
        match r.below(3) {
            0 => {
                o.push(format!(
                    "     Failure/Error: expect({m}.renew!).to be(false)"
                ));
                o.blank();
                o.push("       expected false");
                o.push("            got true");
            }
            1 => {
                let want = r.range(0, 9);
                o.push(format!(
                    "     Failure/Error: expect({m}.reload.{}).to eq({want})",
                    r.pick(RB_ATTRS)
                ));
                o.blank();
                o.push(format!("       expected: {want}"));
                o.push(format!("            got: {}", r.range(10, 99)));
                o.blank();
                o.push("       (compared using ==)");
            }
            _ => {
                o.push(format!(
                    "     Failure/Error: {m}.update!({}: nil)",
                    r.pick(RB_ATTRS)
                ));
                o.blank();
                o.push("     ActiveRecord::RecordInvalid:");
                o.push(format!(
                    "       Validation failed: {} can't be blank",
                    cap(&r.pick(RB_ATTRS).replace('_', " "))
                ));
            }
        }
        o.push(format!(
            "     # ./app/models/{m}.rb:{}:in `{}'",
            r.range(10, 200),
            r.pick(&["renew!", "expire!", "promote!", "charge_late_fee", "notify"])
        ));
        o.push(format!(
            "     # ./{}:{}:in `block (4 levels) in <top (required)>'",
            f.file,
            f.line + r.range(1, 6)
        ));
        o.blank();
    }
    let total = examples.len() + failures.len() + pending.len();
    let secs = r.fl(20.0, 200.0);
    let mins = (secs / 60.0) as u64;
    let took = r.fl(2.0, 9.0);
    o.push(if mins == 0 {
        format!("Finished in {secs:.2} seconds (files took {took:.2} seconds to load)")
    } else {
        format!(
            "Finished in {mins} minute{} {:.2} seconds (files took {took:.2} seconds to load)",
            if mins == 1 { "" } else { "s" },
            secs % 60.0
        )
    });
    o.push(format!(
        "{total} examples, {} failures, {} pending",
        failures.len(),
        pending.len()
    ));
    o.blank();
    o.push("Failed examples:");
    o.blank();
    for (_, f) in &failures {
        let key = format!("/{}:{}", f.file, f.line);
        let res = format!(
            "Run options: include {{:locations=>{{\"./{}\"=>[{}]}}}}\n\nRandomized with seed {}\n\n{}\n\nFinished in {:.2} seconds (files took {:.2} seconds to load)\n1 example, 0 failures",
            f.file,
            f.line,
            r.range(1000, 65_000),
            f.desc,
            r.fl(0.1, 3.0),
            r.fl(2.0, 9.0)
        );
        let st = step(
            format!("Re-running {} on its own.", f.desc),
            "bash",
            json!({"command": format!("bundle exec rspec .{key}")}),
            res,
        );
        o.cand(format!("rspec .{key} # {}", f.desc), "rspec-rerun", key, st);
    }
    o.blank();
    let nprof = r.range(8, 20).min(examples.len());
    let mut prof: Vec<&RbExample> = examples.iter().collect();
    r.shuffle(&mut prof);
    prof.truncate(nprof);
    let mut times: Vec<f64> = (0..prof.len()).map(|_| r.log_uniform(0.3, 6.0)).collect();
    times.sort_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
    let sum: f64 = times.iter().sum();
    o.push(format!(
        "Top {} slowest examples ({sum:.2} seconds, {:.1}% of total time):",
        prof.len(),
        sum / secs * 100.0
    ));
    for (ex, t) in prof.iter().zip(&times) {
        o.push(format!("  {}", ex.desc));
        let key = format!("/{}:{}", ex.file, ex.line);
        let res = format!(
            "Run options: include {{:locations=>{{\"./{}\"=>[{}]}}}}\n\nRandomized with seed {}\n\n{}\n\nTop 1 slowest examples ({:.2} seconds, 96.1% of total time):\n  {}\n    {:.2} seconds ./{}:{}\n\nFinished in {:.2} seconds (files took {:.2} seconds to load)\n1 example, 0 failures",
            ex.file,
            ex.line,
            r.range(1000, 65_000),
            ex.desc,
            t * 0.9,
            ex.desc,
            t * 0.9,
            ex.file,
            ex.line,
            t,
            r.fl(2.0, 9.0)
        );
        let st = step(
            format!("Profiling {} alone.", ex.desc),
            "bash",
            json!({"command": format!("bundle exec rspec .{key} --profile 1")}),
            res,
        );
        o.cand(format!("    {t:.2} seconds .{key}"), "rspec-slow", key, st);
    }
    o.blank();
    o.push(format!("Randomized with seed {seed}"));
    bash(
        r.one(&[
            "Running the specs.",
            "Let me run the whole suite.",
            "Let me see which specs fail.",
        ]),
        "bundle exec rspec --format documentation --profile 20".into(),
        o,
        if failures.is_empty() { 0 } else { 1 },
    )
}

fn fmt_rails_log(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let mut t = cx.t0 - r.range(3_600_000, 7_200_000) as u64;
    while o.size < target {
        t += r.range(200, 40_000) as u64;
        match r.below(8) {
            0..=4 => {
                let patron = r.range(10_000, 99_999);
                let (method, path, ctrl, action, fmt) = match r.below(7) {
                    0 => (
                        "POST",
                        format!(
                            "/patrons/{patron}/loans/{}/renew",
                            r.range(100_000, 999_999)
                        ),
                        "Loans",
                        "renew",
                        "TURBO_STREAM",
                    ),
                    1 => (
                        "PATCH",
                        format!("/holds/{}/cancel", r.range(10_000, 99_999)),
                        "Holds",
                        "cancel",
                        "TURBO_STREAM",
                    ),
                    2 => (
                        "GET",
                        format!(
                            "/titles/978{}/copies",
                            r.range(1_000_000_000, 9_999_999_999)
                        ),
                        "Copies",
                        "index",
                        "HTML",
                    ),
                    3 => (
                        "GET",
                        format!("/branches/{}/holds", r.range(1, 14)),
                        "Holds",
                        "index",
                        "HTML",
                    ),
                    4 => (
                        "GET",
                        format!("/patrons/{patron}/fines"),
                        "Fines",
                        "index",
                        "HTML",
                    ),
                    5 => (
                        "GET",
                        format!("/transfers/{}", r.range(10_000, 99_999)),
                        "Transfers",
                        "show",
                        "JSON",
                    ),
                    _ => (
                        "GET",
                        "/admin/reports/overdue.csv".to_string(),
                        "Admin::Reports",
                        "overdue",
                        "CSV",
                    ),
                };
                let query = if path.ends_with("/holds") {
                    format!("?page={}", r.range(1, 9))
                } else {
                    String::new()
                };
                let line = format!(
                    "Started {method} \"{path}{query}\" for 127.0.0.1 at {} +0000",
                    stamp(t)
                );
                let (cmd, res) = if method == "GET" {
                    (
                        format!(
                            "curl -s -b tmp/dev_cookies.txt \"http://localhost:3000{path}{query}\" | head -n 12"
                        ),
                        format!(
                            "<!DOCTYPE html>\n<html lang=\"en\">\n  <head>\n    <title>Shelfwise</title>\n    <meta name=\"csrf-token\" content=\"{}\" />\n  </head>\n  <body class=\"{}-{action}\">\n    <turbo-frame id=\"main\">",
                            r.chars(
                                43,
                                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                            ),
                            ctrl.to_lowercase().replace("::", "-")
                        ),
                    )
                } else {
                    (
                        format!(
                            "curl -s -o /dev/null -w '%{{http_code}}\\n' -X {method} -b tmp/dev_cookies.txt -H 'X-CSRF-Token: dev' http://localhost:3000{path}"
                        ),
                        r.pick(&["302", "422", "200"]).to_string(),
                    )
                };
                let say = format!("Replaying {method} {path} locally.");
                o.cand(
                    line,
                    "rails-request",
                    path.clone(),
                    step(say, "bash", json!({"command": cmd}), res),
                );
                o.push(format!("Processing by {ctrl}Controller#{action} as {fmt}"));
                if path.contains("/patrons/") {
                    o.push(format!(
                        "  Parameters: {{\"patron_id\"=>\"{patron}\", \"id\"=>\"{}\"}}",
                        r.range(1, 999_999)
                    ));
                } else if !query.is_empty() {
                    o.push(format!("  Parameters: {{\"page\"=>\"{}\"}}", r.range(1, 9)));
                }
                o.push(format!(
                    "  Patron Load ({:.1}ms)  SELECT \"patrons\".* FROM \"patrons\" WHERE \"patrons\".\"id\" = $1 LIMIT $2  [[\"id\", {}], [\"LIMIT\", 1]]",
                    r.fl(0.2, 3.0),
                    r.range(1, 99_999)
                ));
                o.push("  ↳ app/controllers/application_controller.rb:21:in `current_patron'");
                for _ in 0..r.range(1, 4) {
                    let m = *r.pick(RB_MODELS);
                    let a = *r.pick(RB_ATTRS);
                    let t = plural(m);
                    o.push(format!(
                        "  {} Load ({:.1}ms)  SELECT \"{t}\".* FROM \"{t}\" WHERE \"{t}\".\"{a}\" = $1  [[\"{a}\", {}]]",
                        pascal(m),
                        r.fl(0.2, 40.0),
                        r.range(1, 9999)
                    ));
                    o.push(format!(
                        "  ↳ app/controllers/{}_controller.rb:{}:in `{action}'",
                        snake(&ctrl.replace("::", "/")).replace("/_", "/"),
                        r.range(8, 90)
                    ));
                }
                if fmt == "HTML" {
                    o.push("  Rendering layout layouts/application.html.erb");
                    let view = ctrl.to_lowercase().replace("::", "/");
                    o.push(format!(
                        "  Rendering {view}/{action}.html.erb within layouts/application"
                    ));
                    o.push(format!(
                        "  Rendered collection of {view}/_row.html.erb [{} times] (Duration: {:.1}ms | Allocations: {})",
                        r.range(1, 40),
                        r.fl(1.0, 60.0),
                        r.range(300, 30_000)
                    ));
                    o.push(format!(
                        "  Rendered {view}/{action}.html.erb within layouts/application (Duration: {:.1}ms | Allocations: {})",
                        r.fl(2.0, 90.0),
                        r.range(1000, 60_000)
                    ));
                    o.push(format!("  Rendered layout layouts/application.html.erb (Duration: {:.1}ms | Allocations: {})", r.fl(5.0, 120.0), r.range(2000, 80_000)));
                }
                let (code, word) = *r.pick(&[
                    (200, "OK"),
                    (200, "OK"),
                    (302, "Found"),
                    (422, "Unprocessable Entity"),
                    (404, "Not Found"),
                ]);
                o.push(format!(
                    "Completed {code} {word} in {}ms (Views: {:.1}ms | ActiveRecord: {:.1}ms | Allocations: {})",
                    r.range(4, 900),
                    r.fl(0.0, 200.0),
                    r.fl(0.3, 80.0),
                    r.range(500, 90_000)
                ));
                o.blank();
                o.blank();
            }
            5 => {
                let job = *r.pick(&[
                    "OverdueNoticeJob",
                    "HoldExpiryJob",
                    "ReminderDigestJob",
                    "CatalogSyncJob",
                ]);
                let id = format!(
                    "{}-{}-{}-{}-{}",
                    r.hex(8),
                    r.hex(4),
                    r.hex(4),
                    r.hex(4),
                    r.hex(12)
                );
                o.push(format!("[ActiveJob] [{job}] [{id}] Performing {job} (Job ID: {id}) from Async(default) enqueued at {} with arguments: {}", iso(t - r.range(100, 5000) as u64), r.range(1, 99_999)));
                o.push(format!("[ActiveJob] [{job}] [{id}]   Loan Load ({:.1}ms)  SELECT \"loans\".* FROM \"loans\" WHERE \"loans\".\"due_on\" < $1", r.fl(0.5, 30.0)));
                o.push(format!("[ActiveJob] [{job}] [{id}] Performed {job} (Job ID: {id}) from Async(default) in {:.2}ms", r.fl(3.0, 900.0)));
            }
            6 => {
                o.push(format!(
                    "Started GET \"/cable\" for 127.0.0.1 at {} +0000",
                    stamp(t)
                ));
                o.push(format!(
                    "Started GET \"/cable\" [WebSocket] for 127.0.0.1 at {} +0000",
                    stamp(t)
                ));
                o.push("Successfully upgraded to WebSocket (REQUEST_METHOD: GET, HTTP_CONNECTION: Upgrade, HTTP_UPGRADE: websocket)");
                o.push("Turbo::StreamsChannel is transmitting the subscription confirmation");
                o.push(format!(
                    "Turbo::StreamsChannel is streaming from {}",
                    r.chars(24, b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
                ));
            }
            _ => {
                o.push(format!("  TRANSACTION ({:.1}ms)  BEGIN", r.fl(0.1, 2.0)));
                let m = *r.pick(RB_MODELS);
                o.push(format!(
                    "  {} Update ({:.1}ms)  UPDATE \"{}\" SET \"{}\" = $1, \"updated_at\" = $2 WHERE \"{}\".\"id\" = $3",
                    pascal(m),
                    r.fl(0.3, 9.0),
                    plural(m),
                    r.pick(RB_ATTRS),
                    plural(m)
                ));
                o.push(format!("  TRANSACTION ({:.1}ms)  COMMIT", r.fl(0.2, 6.0)));
            }
        }
    }
    let n = o.lines.len();
    bash(
        r.one(&[
            "Let me look at the development log.",
            "Checking what the app logged.",
            "",
        ]),
        format!("tail -n {n} log/development.log"),
        o,
        0,
    )
}

fn fmt_migrate_status(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.blank();
    o.push("database: shelfwise_development");
    o.blank();
    o.push(" Status   Migration ID    Migration Name");
    o.push("--------------------------------------------------");
    let mut tm = cx.t0 - 86_400_000 * r.range(900, 1500) as u64;
    let mut rows = Vec::new();
    while rows.len() * 52 + 300 < target {
        tm += 3_600_000 * r.range(10, 300) as u64 + r.range(0, 3_599_999) as u64;
        if tm > cx.t0 {
            break;
        }
        let m = *r.pick(RB_MODELS);
        let a = *r.pick(RB_ATTRS);
        let t = plural(m);
        let (name, up, down) = match r.below(7) {
            0 => (
                format!("Create {t}"),
                format!("create_table(:{t})"),
                format!("drop_table(:{t})"),
            ),
            1 => (
                format!("Add {a} to {t}"),
                format!("add_column(:{t}, :{a}, :integer)"),
                format!("remove_column(:{t}, :{a}, :integer)"),
            ),
            2 => (
                format!("Remove {a} from {t}"),
                format!("remove_column(:{t}, :{a}, :integer)"),
                format!("add_column(:{t}, :{a}, :integer)"),
            ),
            3 => (
                format!("Add index on {t} {a}"),
                format!("add_index(:{t}, :{a})"),
                format!("remove_index(:{t}, {{:column=>:{a}}})"),
            ),
            4 => (
                format!("Backfill {a} on {t}"),
                format!("execute(\"UPDATE {t} SET {a} = 0 WHERE {a} IS NULL\")"),
                "(no-op)".to_string(),
            ),
            5 => (
                format!("Change {a} default on {t}"),
                format!("change_column_default(:{t}, :{a}, {{:from=>nil, :to=>0}})"),
                format!("change_column_default(:{t}, :{a}, {{:from=>0, :to=>nil}})"),
            ),
            _ => {
                let o2 = plural(r.one(RB_MODELS));
                (
                    format!("Add {m} references to {o2}"),
                    format!("add_reference(:{o2}, :{m}, {{:foreign_key=>true}})"),
                    format!("remove_reference(:{o2}, :{m}, {{:foreign_key=>true}})"),
                )
            }
        };
        rows.push((compact_stamp(tm), name, up, down));
    }
    let down_n = r.range(0, 2);
    let n = rows.len();
    for (i, (v, name, up, down)) in rows.into_iter().enumerate() {
        let status = if i + down_n >= n { "  down" } else { "   up " };
        let class = pascal(&name.to_lowercase().replace(' ', "_"));
        let bar = |s: &str| format!("{s} {}", "=".repeat(75usize.saturating_sub(s.len() + 1)));
        let res = [
            bar(&format!("== {v} {class}: reverting")),
            format!("-- {down}"),
            format!("   -> {:.4}s", r.fl(0.001, 0.02)),
            bar(&format!(
                "== {v} {class}: reverted ({:.4}s)",
                r.fl(0.002, 0.03)
            )),
            String::new(),
            bar(&format!("== {v} {class}: migrating")),
            format!("-- {up}"),
            format!("   -> {:.4}s", r.fl(0.001, 0.02)),
            bar(&format!(
                "== {v} {class}: migrated ({:.4}s)",
                r.fl(0.002, 0.03)
            )),
        ]
        .join("\n");
        let say = format!("Redoing migration {v} to make sure it is reversible.");
        let st = step(
            say,
            "bash",
            json!({"command": format!("bin/rails db:migrate:redo VERSION={v}")}),
            res,
        );
        o.cand(
            format!("{status}    {v}  {name}"),
            "migration-status",
            v,
            st,
        );
    }
    o.blank();
    bash(
        r.one(&[
            "Checking migration status.",
            "Let me see which migrations ran.",
            "",
        ]),
        "bin/rails db:migrate:status".into(),
        o,
        0,
    )
}

fn fmt_rubocop(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let files = r.range(280, 520);
    o.push(format!("Inspecting {files} files"));
    let prog: String = (0..files)
        .map(|_| *r.pick(&['.', '.', '.', '.', '.', 'C', 'W']))
        .collect();
    o.push(prog);
    o.blank();
    o.push("Offenses:");
    o.blank();
    let (mut count, mut correctable) = (0, 0);
    while o.size + 120 < target {
        let path = cx.src_path(r);
        let l = r.range(1, 260);
        let c = r.range(1, 40);
        let var = *r.pick(RB_ATTRS);
        let (sev, corr, cop, msg) = match r.below(12) {
            0 => ("C", true, "Style/GuardClause", format!("Use a guard clause (`return unless {var}`) instead of wrapping the code inside a conditional expression.")),
            1 => ("C", false, "Layout/LineLength", format!("Line is too long. [{}/120]", r.range(121, 180))),
            2 => ("C", false, "Metrics/AbcSize", format!("Assignment Branch Condition size for `{var}` is too high. [<{}, {}, {}> {:.2}/17]", r.range(3, 12), r.range(10, 30), r.range(3, 12), r.fl(17.5, 40.0))),
            3 => ("C", false, "Metrics/MethodLength", format!("Method has too many lines. [{}/10]", r.range(11, 40))),
            4 => ("W", true, "Lint/UselessAssignment", format!("Useless assignment to variable - `{var}`.")),
            5 => ("C", true, "Style/StringLiterals", "Prefer double-quoted strings unless you need single quotes to avoid extra backslashes for escaping.".to_string()),
            6 => ("C", true, "Rails/WhereExists", format!("Use `exists?({var}: value)` instead of `where({var}: value).exists?`.")),
            7 => ("W", false, "Lint/ShadowingOuterLocalVariable", format!("Shadowing outer local variable - `{var}`.")),
            8 => ("C", false, "Rails/SkipsModelValidations", "Avoid using `update_column` because it skips validations.".to_string()),
            9 => ("C", true, "Style/SafeNavigation", "Use safe navigation (`&.`) instead of checking if an object exists before calling the method.".to_string()),
            10 => ("C", false, "RSpec/MultipleExpectations", format!("Example has too many expectations [{}/1].", r.range(2, 6))),
            _ => ("C", false, "RSpec/ExampleLength", format!("Example has too many lines. [{}/5]", r.range(6, 30))),
        };
        count += 1;
        if corr {
            correctable += 1;
        }
        let key = format!("{path}:{l}:{c}");
        let st = read_step(r, cx, &key, &path, l, Some(var));
        o.cand(
            format!(
                "{key}: {sev}: {}{cop}: {msg}",
                if corr { "[Correctable] " } else { "" }
            ),
            "rubocop-offense",
            key,
            st,
        );
        let code = cx.code_line_at(r, &path, var);
        let width = r
            .range(2, 24)
            .min(code.len().saturating_sub(c.min(code.len())).max(1));
        o.push(code);
        o.push(format!(
            "{}{}",
            " ".repeat(c.saturating_sub(1)),
            "^".repeat(width)
        ));
    }
    o.blank();
    o.push(format!(
        "{files} files inspected, {count} offenses detected, {correctable} offenses autocorrectable"
    ));
    bash(
        r.one(&["Running RuboCop.", "Let me lint the app.", ""]),
        "bundle exec rubocop app spec".into(),
        o,
        1,
    )
}

fn fmt_routes(r: &mut Rng, _cx: &Ctx, target: usize) -> Call {
    let mut rows: Vec<(String, &str, String, String)> = Vec::new();
    rows.push(("root".into(), "GET", "/".into(), "dashboard#show".into()));
    let mut models: Vec<&str> = RB_MODELS.to_vec();
    r.shuffle(&mut models);
    let parents = ["patron", "branch"];
    for m in models {
        if rows.len() * 135 > target {
            break;
        }
        let pl = plural(m);
        let nested = r.chance(0.5);
        let (pre, uri_pre) = if nested {
            let p = *r.pick(&parents);
            (format!("{p}_"), format!("/{}/:{p}_id", plural(p)))
        } else {
            (String::new(), String::new())
        };
        let base = format!("{uri_pre}/{pl}");
        rows.push((
            format!("{pre}{pl}"),
            "GET",
            format!("{base}(.:format)"),
            format!("{pl}#index"),
        ));
        rows.push((
            String::new(),
            "POST",
            format!("{base}(.:format)"),
            format!("{pl}#create"),
        ));
        rows.push((
            format!("new_{pre}{m}"),
            "GET",
            format!("{base}/new(.:format)"),
            format!("{pl}#new"),
        ));
        rows.push((
            format!("edit_{pre}{m}"),
            "GET",
            format!("{base}/:id/edit(.:format)"),
            format!("{pl}#edit"),
        ));
        rows.push((
            format!("{pre}{m}"),
            "GET",
            format!("{base}/:id(.:format)"),
            format!("{pl}#show"),
        ));
        rows.push((
            String::new(),
            "PATCH",
            format!("{base}/:id(.:format)"),
            format!("{pl}#update"),
        ));
        rows.push((
            String::new(),
            "PUT",
            format!("{base}/:id(.:format)"),
            format!("{pl}#update"),
        ));
        rows.push((
            String::new(),
            "DELETE",
            format!("{base}/:id(.:format)"),
            format!("{pl}#destroy"),
        ));
        for act in [
            "renew",
            "cancel",
            "promote",
            "waive",
            "recall",
            "print_slip",
        ] {
            if r.chance(0.25) {
                let verb = if act == "print_slip" { "GET" } else { "POST" };
                rows.push((
                    format!("{act}_{pre}{m}"),
                    verb,
                    format!("{base}/:id/{act}(.:format)"),
                    format!("{pl}#{act}"),
                ));
            }
        }
        if r.chance(0.3) {
            rows.push((
                format!("admin_{pl}"),
                "GET",
                format!("/admin/{pl}(.:format)"),
                format!("admin/{pl}#index"),
            ));
            rows.push((
                format!("export_admin_{pl}"),
                "GET",
                format!("/admin/{pl}/export(.:format)"),
                format!("admin/{pl}#export"),
            ));
        }
    }
    for (n, v, u, c) in [
        (
            "turbo_recede_historical_location",
            "GET",
            "/recede_historical_location(.:format)",
            "turbo/native/navigation#recede",
        ),
        (
            "turbo_resume_historical_location",
            "GET",
            "/resume_historical_location(.:format)",
            "turbo/native/navigation#resume",
        ),
        (
            "turbo_refresh_historical_location",
            "GET",
            "/refresh_historical_location(.:format)",
            "turbo/native/navigation#refresh",
        ),
        (
            "rails_service_blob",
            "GET",
            "/rails/active_storage/blobs/redirect/:signed_id/*filename(.:format)",
            "active_storage/blobs/redirect#show",
        ),
        (
            "rails_service_blob_proxy",
            "GET",
            "/rails/active_storage/blobs/proxy/:signed_id/*filename(.:format)",
            "active_storage/blobs/proxy#show",
        ),
        (
            "rails_blob_representation",
            "GET",
            "/rails/active_storage/representations/redirect/:signed_blob_id/:variation_key/*filename(.:format)",
            "active_storage/representations/redirect#show",
        ),
        (
            "rails_disk_service",
            "GET",
            "/rails/active_storage/disk/:encoded_key/*filename(.:format)",
            "active_storage/disk#show",
        ),
        (
            "update_rails_disk_service",
            "PUT",
            "/rails/active_storage/disk/:encoded_token(.:format)",
            "active_storage/disk#update",
        ),
        (
            "rails_direct_uploads",
            "POST",
            "/rails/active_storage/direct_uploads(.:format)",
            "active_storage/direct_uploads#create",
        ),
    ] {
        rows.push((n.into(), v, u.into(), c.into()));
    }
    let pw = rows.iter().map(|x| x.0.len()).max().unwrap_or(6).max(6);
    let uw = rows.iter().map(|x| x.2.len()).max().unwrap_or(11).max(11);
    let mut o = Out::default();
    o.push(format!(
        "{:>pw$} {:<6} {:<uw$} Controller#Action",
        "Prefix", "Verb", "URI Pattern"
    ));
    for (name, verb, uri, ca) in rows {
        let line = format!("{name:>pw$} {verb:<6} {uri:<uw$} {ca}");
        if name.contains('_')
            && name.len() >= 8
            && !name.starts_with("rails_")
            && !name.starts_with("turbo_")
            && !name.ends_with("_service")
        {
            let (ctrl, _) = ca.split_once('#').unwrap_or((ca.as_str(), ""));
            let res = format!(
                "app/views/{ctrl}/_row.html.erb:{}:     <%= link_to t(\".open\"), {name}_path(record), class: \"btn btn-sm\" %>\napp/controllers/{}_controller.rb:{}:     redirect_to {name}_path(@record), notice: t(\".saved\")",
                r.range(3, 40),
                ctrl,
                r.range(10, 90)
            );
            let st = step(
                format!("Looking for callers of the {name} helpers."),
                "grep",
                json!({"pattern": format!("{name}_(path|url)"), "path": "app"}),
                res,
            );
            o.cand(line, "rails-route", name.clone(), st);
        } else {
            o.push(line);
        }
    }
    bash(
        r.one(&["Let me check the routes.", "Listing the routes.", ""]),
        "bin/rails routes".into(),
        o,
        0,
    )
}

// ---------------------------------------------------------------------------------------------
// Swift: Larder
// ---------------------------------------------------------------------------------------------

fn sw_file(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn sw_test_name(r: &mut Rng) -> String {
    let verbs = [
        "Merges",
        "Sorts",
        "Imports",
        "Parses",
        "Schedules",
        "Converts",
        "Rejects",
        "Keeps",
        "Drops",
        "Restores",
        "Groups",
        "Formats",
        "Syncs",
        "Retries",
        "Scales",
        "Clamps",
    ];
    let objs = [
        "DuplicateItems",
        "ByExpiryDate",
        "RecipeFromURL",
        "FractionalCups",
        "ReminderAtNoon",
        "EmptyBarcode",
        "OfflineChanges",
        "ConflictingEdits",
        "AisleOrder",
        "MealSlotsAcrossWeeks",
        "MetricUnits",
        "ZeroQuantity",
        "ExpiredItems",
        "UnknownIngredients",
        "ServingSizes",
        "PartialScans",
    ];
    let conds = [
        "",
        "",
        "",
        "WhenOffline",
        "AfterMigration",
        "InDarkMode",
        "WithLegacyStore",
        "ForEmptyPantry",
        "OnFirstLaunch",
    ];
    format!("test{}{}{}", r.pick(&verbs), r.pick(&objs), r.pick(&conds))
}

fn fmt_xcpretty_test(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("▸ Processing Info.plist");
    let mut compiled = HashSet::new();
    for _ in 0..r.range(6, 30) {
        let p = cx.src_path(r);
        if !p.starts_with("LarderTests") && compiled.insert(p.clone()) {
            o.push(format!("▸ Compiling {}", sw_file(&p)));
        }
    }
    o.push("▸ Linking Larder");
    o.push("▸ Generating 'Larder.app.dSYM'");
    o.push("▸ Signing Larder.app (in target 'Larder' from project 'Larder')");
    o.push("▸ Linking LarderTests");
    o.push("▸ Touching LarderTests.xctest");
    o.push("All tests");
    o.push("Test Suite LarderTests.xctest started");
    let mut failures = Vec::new();
    let mut names = HashSet::new();
    let mut total = 0;
    let mut secs = 0.0;
    let mut tries = 0;
    while o.size + 400 < target && tries < 5_000 {
        tries += 1;
        let (_, nouns) = *r.pick(SW_FEATURES);
        let class = format!("{}{}Tests", r.pick(nouns), r.pick(SW_SUFFIX));
        if !names.insert(class.clone()) {
            continue;
        }
        o.push(class.clone());
        for _ in 0..r.range(2, 12) {
            let t = sw_test_name(r);
            if !names.insert(t.clone()) {
                continue;
            }
            total += 1;
            let d = r.log_uniform(0.001, 1.5);
            secs += d;
            if r.chance(0.04) && failures.len() < 4 {
                let a = r.range(0, 9);
                let msg = format!(
                    "XCTAssertEqual failed: (\"{a}\") is not equal to (\"{}\")",
                    a + r.range(1, 3)
                );
                o.push(format!("    ✗ {t}, {msg}"));
                failures.push((class.clone(), t, msg));
            } else {
                let res = format!(
                    "▸ Linking LarderTests\nAll tests\nTest Suite Selected tests started\n{class}\n    ✓ {t} ({d:.3} seconds)\n\n\n\t Executed 1 test, with 0 failures (0 unexpected) in {d:.3} ({:.3}) seconds",
                    d + 0.004
                );
                let st = step(
                    format!("Running {t} alone."),
                    "bash",
                    json!({"command": format!("xcodebuild test -scheme Larder -destination 'platform=iOS Simulator,name=iPhone 15' -only-testing:LarderTests/{class}/{t} | xcpretty")}),
                    res,
                );
                o.cand(format!("    ✓ {t} ({d:.3} seconds)"), "xctest-case", t, st);
            }
        }
    }
    o.blank();
    o.blank();
    for (class, t, msg) in &failures {
        o.push(format!("Larder.{class}"));
        o.push(format!("  {t}, {msg}"));
        o.push(format!(
            "  {}/LarderTests/{class}.swift:{}",
            cx.cwd,
            r.range(20, 300)
        ));
        o.push("  ```");
        o.push(format!(
            "        XCTAssertEqual(sut.{}.count, {})",
            r.pick(SW_IDENTS),
            r.range(0, 9)
        ));
        o.push("  ```");
        o.blank();
    }
    o.push(format!(
        "\t Executed {total} tests, with {} failures (0 unexpected) in {secs:.3} ({:.3}) seconds",
        failures.len(),
        secs + 0.3
    ));
    bash(
        r.one(&["Running the unit tests on the simulator.", "Let me run the test target.", ""]),
        "xcodebuild test -scheme Larder -destination 'platform=iOS Simulator,name=iPhone 15' | xcpretty".into(),
        o,
        if failures.is_empty() { 0 } else { 65 },
    )
}

const IOS_LIBS: &[(&str, &str, &[&str])] = &[
    (
        "libswiftCore.dylib",
        "/usr/lib/swift/libswiftCore.dylib",
        &[
            "_assertionFailure(_:_:file:line:flags:)",
            "swift_unknownObjectRetain",
            "Array._checkSubscript(_:wasNativeTypeChecked:)",
            "swift_retain",
            "swift_release",
        ],
    ),
    (
        "SwiftUI",
        "/System/Library/Frameworks/SwiftUI.framework/SwiftUI",
        &[
            "ViewGraph.updateOutputs(at:)",
            "GraphHost.flushTransactions()",
            "ViewRendererHost.render(interval:updateDisplayList:targetTimestamp:)",
            "ForEachState.item(at:offset:)",
            "closure #1 in ViewGraphDelegate.updateGraph<A>(body:)",
        ],
    ),
    (
        "UIKitCore",
        "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore",
        &[
            "-[UIApplication _run]",
            "UIApplicationMain",
            "-[_UIAfterCACommitBlock run]",
            "_runAfterCACommitDeferredBlocks",
            "_cleanUpAfterCAFlushAndRunDeferredBlocks",
        ],
    ),
    (
        "CoreFoundation",
        "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation",
        &[
            "__CFRUNLOOP_IS_CALLING_OUT_TO_A_SOURCE0_PERFORM_FUNCTION__",
            "__CFRunLoopDoSource0",
            "__CFRunLoopDoSources0",
            "__CFRunLoopRun",
            "CFRunLoopRunSpecific",
        ],
    ),
    (
        "GraphicsServices",
        "/System/Library/PrivateFrameworks/GraphicsServices.framework/GraphicsServices",
        &["GSEventRunModal"],
    ),
    (
        "libdispatch.dylib",
        "/usr/lib/system/libdispatch.dylib",
        &[
            "_dispatch_call_block_and_release",
            "_dispatch_client_callout",
            "_dispatch_main_queue_drain",
            "_dispatch_main_queue_callback_4CF",
            "_dispatch_lane_serial_drain",
            "_dispatch_root_queue_drain",
            "_dispatch_worker_thread2",
        ],
    ),
    (
        "libsystem_pthread.dylib",
        "/usr/lib/system/libsystem_pthread.dylib",
        &[
            "_pthread_wqthread",
            "start_wqthread",
            "_pthread_start",
            "thread_start",
        ],
    ),
    (
        "libsystem_kernel.dylib",
        "/usr/lib/system/libsystem_kernel.dylib",
        &[
            "__workq_kernreturn",
            "mach_msg2_trap",
            "mach_msg2_internal",
            "mach_msg_overwrite",
            "mach_msg",
            "__psynch_cvwait",
            "__ulock_wait",
        ],
    ),
    (
        "libswift_Concurrency.dylib",
        "/usr/lib/swift/libswift_Concurrency.dylib",
        &[
            "swift::runJobInEstablishedExecutorContext(swift::Job*)",
            "swift_job_runImpl(swift::Job*, swift::ExecutorRef)",
            "completeTaskWithClosure(swift::AsyncContext*, swift::SwiftError*)",
        ],
    ),
    (
        "CoreData",
        "/System/Library/Frameworks/CoreData.framework/CoreData",
        &[
            "-[NSManagedObjectContext save:]",
            "-[NSManagedObjectContext executeFetchRequest:error:]",
            "developerSubmittedBlockToNSManagedObjectContextPerform",
        ],
    ),
    (
        "SwiftData",
        "/System/Library/Frameworks/SwiftData.framework/SwiftData",
        &[
            "ModelContext.save()",
            "ModelContext.fetch<A>(_:batchSize:)",
            "DefaultStore.fetch<A>(_:)",
        ],
    ),
    (
        "Foundation",
        "/System/Library/Frameworks/Foundation.framework/Foundation",
        &[
            "__NSThreadPerformPerform",
            "-[NSOperation start]",
            "__NSOQSchedule_f",
        ],
    ),
    ("dyld", "/usr/lib/dyld", &["start"]),
];

const IOS_EXTRA_IMAGES: &[&str] = &[
    "AVFCore",
    "AVFoundation",
    "Accelerate",
    "AppleAccount",
    "AssetsLibraryServices",
    "AudioToolbox",
    "BackBoardServices",
    "BaseBoard",
    "CFNetwork",
    "CloudKit",
    "Combine",
    "CoreAudio",
    "CoreGraphics",
    "CoreImage",
    "CoreLocation",
    "CoreML",
    "CoreMedia",
    "CoreMotion",
    "CoreServices",
    "CoreText",
    "CoreUI",
    "CoreVideo",
    "FrontBoardServices",
    "IOKit",
    "IOSurface",
    "ImageIO",
    "LocalAuthentication",
    "MetalKit",
    "Metal",
    "Network",
    "OSLog",
    "PhotosUI",
    "QuartzCore",
    "RunningBoardServices",
    "Security",
    "SpringBoardServices",
    "StoreKit",
    "SystemConfiguration",
    "TextInput",
    "UserNotifications",
    "VisionKit",
    "WebKit",
    "WidgetKit",
    "libobjc.A.dylib",
    "libc++.1.dylib",
    "libsqlite3.dylib",
    "libz.1.dylib",
    "libxml2.2.dylib",
    "libicucore.A.dylib",
    "libnetwork.dylib",
    "libsystem_malloc.dylib",
    "libsystem_c.dylib",
    "libsystem_info.dylib",
    "libsystem_trace.dylib",
    "libcache.dylib",
];

fn fmt_crash(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let uuid = |r: &mut Rng| {
        format!(
            "{}-{}-{}-{}-{}",
            r.hex(8),
            r.hex(4),
            r.hex(4),
            r.hex(4),
            r.hex(12)
        )
        .to_uppercase()
    };
    let app_load = 0x1_0000_0000u64 + (r.range(0x200, 0x4ff) as u64) * 0x1_0000;
    let app_size = r.range(0x20, 0x60) as u64 * 0x1_0000;
    let bundle = uuid(r);
    o.push(format!("Incident Identifier: {}", uuid(r)));
    o.push(format!("CrashReporter Key:   {}", r.hex(40)));
    let hw = *r.pick(&[
        "iPhone15,2",
        "iPhone15,4",
        "iPhone14,7",
        "iPhone16,1",
        "iPhone13,2",
    ]);
    o.push(format!("Hardware Model:      {hw}"));
    let pid = r.range(300, 9000);
    o.push(format!("Process:             Larder [{pid}]"));
    o.push(format!(
        "Path:                /private/var/containers/Bundle/Application/{bundle}/Larder.app/Larder"
    ));
    o.push("Identifier:          app.larder.ios");
    let (maj, min, build) = (1, r.range(6, 9), r.range(180, 260));
    o.push(format!(
        "Version:             {maj}.{min}.{} ({build})",
        r.range(0, 4)
    ));
    o.push("AppStoreTools:       15E204");
    o.push(format!("AppVariant:          1:{hw}:17"));
    o.push("Code Type:           ARM-64 (Native)");
    o.push("Role:                Foreground");
    o.push("Parent Process:      launchd [1]");
    o.push(format!(
        "Coalition:           app.larder.ios [{}]",
        r.range(300, 2000)
    ));
    o.blank();
    let t = cx.t0 - r.range(3_600_000, 86_400_000 * 5) as u64;
    o.push(format!(
        "Date/Time:           {}.{:04} +0100",
        stamp(t),
        r.range(0, 9999)
    ));
    o.push(format!(
        "Launch Time:         {}.{:04} +0100",
        stamp(t - r.range(5_000, 900_000) as u64),
        r.range(0, 9999)
    ));
    o.push(format!(
        "OS Version:          iPhone OS 17.{}.{} (21{}{})",
        r.range(2, 5),
        r.range(0, 1),
        r.pick(&["D", "E", "F"]),
        r.range(50, 99)
    ));
    o.push("Release Type:        User");
    o.push(format!(
        "Baseband Version:    {}.{:02}.{:02}",
        r.range(1, 3),
        r.range(10, 80),
        r.range(0, 9)
    ));
    o.push("Report Version:      104");
    o.blank();
    o.push("Exception Type:  EXC_BREAKPOINT (SIGTRAP)");
    o.push(format!(
        "Exception Codes: 0x0000000000000001, 0x{:016x}",
        0x1_a000_0000u64 + r.range(0, 0xfff_ffff) as u64
    ));
    o.push("Termination Reason: SIGNAL 5 Trace/BPT trap: 5");
    o.push(format!("Terminating Process: exc handler [{pid}]"));
    o.blank();
    o.push("Triggered by Thread:  0");
    o.blank();
    let mut lib_load: Vec<u64> = IOS_LIBS
        .iter()
        .map(|_| 0x1_9000_0000u64 + r.range(0, 0x6_ffff) as u64 * 0x1000)
        .collect();
    lib_load.sort_unstable();
    let mut seen = HashSet::new();
    let dsym = "build/Larder.xcarchive/dSYMs/Larder.app.dSYM/Contents/Resources/DWARF/Larder";
    let body_target = target * 3 / 4;
    let mut thread = 0;
    while o.size < body_target || thread < 2 {
        if thread == 0 {
            o.push("Thread 0 name:   Dispatch queue: com.apple.main-thread");
            o.push("Thread 0 Crashed:");
        } else if r.chance(0.3) {
            o.push(format!(
                "Thread {thread} name:   Dispatch queue: {}",
                r.pick(&[
                    "com.apple.root.user-initiated-qos.cooperative",
                    "app.larder.sync",
                    "com.apple.NSURLSession-delegate",
                    "app.larder.scanner.capture"
                ])
            ));
            o.push(format!("Thread {thread}:"));
        } else {
            o.push(format!("Thread {thread}:"));
        }
        // A plausible stack per thread: `None` is a frame of the app (left unsymbolicated).
        let stack: Vec<Option<(usize, &str)>> = if thread == 0 {
            let mut v = vec![Some((0, "_assertionFailure(_:_:file:line:flags:)"))];
            v.extend((0..r.range(2, 5)).map(|_| None));
            for _ in 0..r.range(2, 5) {
                v.push(Some((1, r.one(IOS_LIBS[1].2))));
            }
            for (l, f) in [
                (2, "-[_UIAfterCACommitBlock run]"),
                (2, "_runAfterCACommitDeferredBlocks"),
                (2, "_cleanUpAfterCAFlushAndRunDeferredBlocks"),
                (
                    3,
                    "__CFRUNLOOP_IS_CALLING_OUT_TO_A_SOURCE0_PERFORM_FUNCTION__",
                ),
                (3, "__CFRunLoopDoSource0"),
                (3, "__CFRunLoopDoSources0"),
                (3, "__CFRunLoopRun"),
                (3, "CFRunLoopRunSpecific"),
                (4, "GSEventRunModal"),
                (2, "-[UIApplication _run]"),
                (2, "UIApplicationMain"),
            ] {
                v.push(Some((l, f)));
            }
            v.push(None);
            v.push(Some((12, "start")));
            v
        } else {
            match r.below(4) {
                0 => vec![
                    Some((7, "__workq_kernreturn")),
                    Some((6, "_pthread_wqthread")),
                    Some((6, "start_wqthread")),
                ],
                1 => vec![
                    Some((7, "mach_msg2_trap")),
                    Some((7, "mach_msg2_internal")),
                    Some((7, "mach_msg_overwrite")),
                    Some((7, "mach_msg")),
                    Some((3, "__CFRunLoopRun")),
                    Some((3, "CFRunLoopRunSpecific")),
                    Some((11, "__NSThreadPerformPerform")),
                    Some((6, "_pthread_start")),
                    Some((6, "thread_start")),
                ],
                2 => {
                    let mut v: Vec<Option<(usize, &str)>> =
                        (0..r.range(1, 3)).map(|_| None).collect();
                    v.extend([
                        Some((8, "swift::runJobInEstablishedExecutorContext(swift::Job*)")),
                        Some((8, "swift_job_runImpl(swift::Job*, swift::ExecutorRef)")),
                        Some((5, "_dispatch_root_queue_drain")),
                        Some((5, "_dispatch_worker_thread2")),
                        Some((6, "_pthread_wqthread")),
                        Some((6, "start_wqthread")),
                    ]);
                    v
                }
                _ => vec![
                    Some((7, "__psynch_cvwait")),
                    None,
                    Some((10, "ModelContext.save()")),
                    Some((9, "-[NSManagedObjectContext save:]")),
                    Some((9, "developerSubmittedBlockToNSManagedObjectContextPerform")),
                    Some((5, "_dispatch_client_callout")),
                    Some((5, "_dispatch_lane_serial_drain")),
                    Some((5, "_dispatch_root_queue_drain")),
                    Some((5, "_dispatch_worker_thread2")),
                    Some((6, "_pthread_wqthread")),
                    Some((6, "start_wqthread")),
                ],
            }
        };
        let mut i = 0;
        for frame in stack {
            if let Some((li, sym)) = frame {
                let lib = IOS_LIBS[li].0;
                let off = r.range(0x40, 0x3f_ffff) as u64;
                o.push(format!(
                    "{i:<4}{lib:<30}\t0x{:016x} {sym} + {}",
                    lib_load[li] + off,
                    r.range(4, 2000)
                ));
            } else {
                let off = r.range(0x400, app_size as usize - 0x100) as u64 & !3;
                let addr = app_load + off;
                let key = format!("0x{addr:016x}");
                if !seen.insert(key.clone()) {
                    continue;
                }
                let res = format!(
                    "{} (in Larder) ({}.swift:{})",
                    r.one(&[
                        "PantryStore.merge(_:)",
                        "closure #1 in PantryListView.body.getter",
                        "ExpiryNotifier.schedule(for:)",
                        "SyncEngine.apply(_:)",
                        "RecipeImporter.parse(_:)",
                        "BarcodeScanner.handle(_:)",
                        "MealPlanViewModel.move(from:to:)",
                        "UnitConverter.convert(_:to:)"
                    ]),
                    r.one(&[
                        "PantryStore",
                        "PantryListView",
                        "ExpiryNotifier",
                        "SyncEngine",
                        "RecipeImporter",
                        "BarcodeScanner",
                        "MealPlanViewModel",
                        "UnitConverter"
                    ]),
                    r.range(20, 400)
                );
                let st = step(
                    format!("Symbolicating {key} from the crashed report."),
                    "bash",
                    json!({"command": format!("xcrun atos -arch arm64 -o {dsym} -l 0x{app_load:x} {key}")}),
                    res,
                );
                o.cand(
                    format!("{i:<4}{:<30}\t{key} 0x{app_load:x} + {off}", "Larder"),
                    "crash-address",
                    key,
                    st,
                );
            }
            i += 1;
        }
        o.blank();
        thread += 1;
    }
    o.blank();
    o.push("Thread 0 crashed with ARM Thread State (64-bit):");
    for row in 0..7 {
        let mut s = String::from("   ");
        for k in 0..4 {
            let reg = row * 4 + k;
            if reg > 28 {
                break;
            }
            s.push_str(&format!(
                " {:>4}: 0x{:016x}",
                format!("x{reg}"),
                r.next() & 0x0000_0001_ffff_ffff
            ));
        }
        o.push(s);
    }
    o.push(format!(
        "    fp: 0x{:016x}   lr: 0x{:016x}",
        r.next() & 0x1_6fff_ffff,
        app_load + 0x4000
    ));
    o.push(format!(
        "    sp: 0x{:016x}   pc: 0x{:016x} cpsr: 0x60001000",
        r.next() & 0x1_6fff_ffff,
        lib_load[0] + 0x1c2c8
    ));
    o.push("   esr: 0xf2000001 (Breakpoint) brk 1".to_string());
    o.blank();
    o.blank();
    o.push("Binary Images:");
    o.push(format!(
        "       0x{app_load:x} -        0x{:x} Larder arm64  <{}> /private/var/containers/Bundle/Application/{bundle}/Larder.app/Larder",
        app_load + app_size - 1,
        r.hex(32)
    ));
    let mut k = 0;
    while o.size < target || k < IOS_LIBS.len() + 12 {
        let (name, path) = if k < IOS_LIBS.len() {
            (IOS_LIBS[k].0.to_string(), IOS_LIBS[k].1.to_string())
        } else {
            let n = IOS_EXTRA_IMAGES[k % IOS_EXTRA_IMAGES.len()];
            if k >= IOS_LIBS.len() + IOS_EXTRA_IMAGES.len() * 2 {
                break;
            }
            let p = if n.ends_with(".dylib") {
                format!("/usr/lib/{n}")
            } else if k % 3 == 0 {
                format!("/System/Library/PrivateFrameworks/{n}.framework/{n}")
            } else {
                format!("/System/Library/Frameworks/{n}.framework/{n}")
            };
            (n.to_string(), p)
        };
        if seen.insert(name.clone()) {
            let base = if k < IOS_LIBS.len() {
                lib_load[k]
            } else {
                0x1_8000_0000u64 + r.range(0, 0xf_ffff) as u64 * 0x1000
            };
            o.push(format!(
                "       0x{base:x} -        0x{:x} {name} arm64e  <{}> {path}",
                base + r.range(0x1000, 0x80_0000) as u64,
                r.hex(32)
            ));
        }
        k += 1;
    }
    o.blank();
    o.push("EOF");
    Call {
        intro: r
            .pick(&[
                "Let me pull the latest crash report.",
                "Fetching the crash from the collector.",
                "",
            ])
            .to_string(),
        tool: "crash_report",
        args: json!({"project": "larder-ios", "issue": format!("LARDER-IOS-{}", r.upper_alnum(3)), "event": "latest"}),
        out: o,
        exit: 0,
        trunc: Trunc::Head,
    }
}

fn fmt_swiftlint(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let files = r.range(150, 260);
    let quiet = r.chance(0.5);
    if !quiet {
        o.push("Linting Swift files in current working directory");
        let mut k = 0;
        while k < files && o.size < target / 3 {
            k += 1;
            let p = cx.src_path(r);
            o.push(format!("Linting '{}' ({k}/{files})", sw_file(&p)));
        }
    }
    let rules: &[(&str, &str, &str)] = &[
        (
            "Line Length",
            "line_length",
            "Line should be 140 characters or less; currently it has {n} characters",
        ),
        (
            "Trailing Whitespace",
            "trailing_whitespace",
            "Lines should not have trailing whitespace",
        ),
        (
            "Identifier Name",
            "identifier_name",
            "Variable name 'id' should be between 3 and 40 characters long",
        ),
        (
            "Force Unwrapping",
            "force_unwrapping",
            "Force unwrapping should be avoided",
        ),
        (
            "Todo",
            "todo",
            "TODOs should be resolved (Revisit once sync is on the new engine)",
        ),
        (
            "Cyclomatic Complexity",
            "cyclomatic_complexity",
            "Function should have complexity 10 or less; currently complexity is {n}",
        ),
        (
            "Function Body Length",
            "function_body_length",
            "Function body should span 50 lines or less excluding comments and whitespace: currently spans {n} lines",
        ),
        (
            "Unused Closure Parameter",
            "unused_closure_parameter",
            "Unused parameter in a closure should be replaced with _",
        ),
        (
            "Vertical Whitespace",
            "vertical_whitespace",
            "Limit vertical whitespace to a single empty line; currently {n}",
        ),
        (
            "Opening Brace Spacing",
            "opening_brace",
            "Opening braces should be preceded by a single space and on the same line as the declaration",
        ),
        (
            "Large Tuple",
            "large_tuple",
            "Tuples should have at most 2 members",
        ),
        ("Force Cast", "force_cast", "Force casts should be avoided"),
        (
            "Redundant Optional Initialization",
            "redundant_optional_initialization",
            "Initializing an optional variable with nil is redundant",
        ),
    ];
    let (mut n, mut serious) = (0, 0);
    let mut touched = HashSet::new();
    while o.size + 100 < target {
        let p = cx.src_path(r);
        let l = r.range(1, 420);
        let c = r.range(1, 60);
        let (name, id, msg) = *r.pick(rules);
        let sev = if id == "force_cast" || (id == "line_length" && r.chance(0.2)) {
            serious += 1;
            "error"
        } else {
            "warning"
        };
        n += 1;
        touched.insert(p.clone());
        let msg = msg.replace("{n}", &r.range(3, 220).to_string());
        let key = format!("{}/{p}:{l}:{c}", cx.cwd);
        let st = read_step(r, cx, &key, &p, l, None);
        o.cand(
            format!("{key}: {sev}: {name} Violation: {msg} ({id})"),
            "swiftlint-violation",
            key,
            st,
        );
    }
    o.push(format!(
        "Done linting! Found {n} violations, {serious} serious in {files} files."
    ));
    bash(
        r.one(&["Running SwiftLint.", "Let me lint the project.", ""]),
        format!("swiftlint lint{}", if quiet { " --quiet" } else { "" }),
        o,
        if serious > 0 { 2 } else { 0 },
    )
}

const SPM_PINS: &[(&str, &str)] = &[
    (
        "swift-collections",
        "https://github.com/apple/swift-collections.git",
    ),
    (
        "swift-algorithms",
        "https://github.com/apple/swift-algorithms.git",
    ),
    (
        "swift-async-algorithms",
        "https://github.com/apple/swift-async-algorithms.git",
    ),
    ("swift-log", "https://github.com/apple/swift-log.git"),
    (
        "swift-numerics",
        "https://github.com/apple/swift-numerics.git",
    ),
    (
        "swift-syntax",
        "https://github.com/swiftlang/swift-syntax.git",
    ),
    (
        "swift-argument-parser",
        "https://github.com/apple/swift-argument-parser.git",
    ),
    (
        "swift-protobuf",
        "https://github.com/apple/swift-protobuf.git",
    ),
    (
        "swift-composable-architecture",
        "https://github.com/pointfreeco/swift-composable-architecture",
    ),
    (
        "swift-dependencies",
        "https://github.com/pointfreeco/swift-dependencies",
    ),
    (
        "swift-case-paths",
        "https://github.com/pointfreeco/swift-case-paths",
    ),
    (
        "swift-custom-dump",
        "https://github.com/pointfreeco/swift-custom-dump",
    ),
    (
        "xctest-dynamic-overlay",
        "https://github.com/pointfreeco/xctest-dynamic-overlay",
    ),
    (
        "swift-identified-collections",
        "https://github.com/pointfreeco/swift-identified-collections",
    ),
    (
        "swift-clocks",
        "https://github.com/pointfreeco/swift-clocks",
    ),
    (
        "swift-concurrency-extras",
        "https://github.com/pointfreeco/swift-concurrency-extras",
    ),
    (
        "swift-snapshot-testing",
        "https://github.com/pointfreeco/swift-snapshot-testing",
    ),
    (
        "swift-perception",
        "https://github.com/pointfreeco/swift-perception",
    ),
    (
        "swift-navigation",
        "https://github.com/pointfreeco/swift-navigation",
    ),
    (
        "combine-schedulers",
        "https://github.com/pointfreeco/combine-schedulers",
    ),
    ("grdb.swift", "https://github.com/groue/GRDB.swift.git"),
    ("kingfisher", "https://github.com/onevcat/Kingfisher.git"),
    ("nuke", "https://github.com/kean/Nuke.git"),
    ("lottie-spm", "https://github.com/airbnb/lottie-spm.git"),
    (
        "purchases-ios",
        "https://github.com/RevenueCat/purchases-ios.git",
    ),
    (
        "sentry-cocoa",
        "https://github.com/getsentry/sentry-cocoa.git",
    ),
    (
        "firebase-ios-sdk",
        "https://github.com/firebase/firebase-ios-sdk",
    ),
    (
        "abseil-cpp-binary",
        "https://github.com/google/abseil-cpp-binary.git",
    ),
    ("grpc-binary", "https://github.com/google/grpc-binary.git"),
    (
        "gtm-session-fetcher",
        "https://github.com/google/gtm-session-fetcher.git",
    ),
    (
        "googleutilities",
        "https://github.com/google/GoogleUtilities.git",
    ),
    (
        "googledatatransport",
        "https://github.com/google/GoogleDataTransport.git",
    ),
    ("app-check", "https://github.com/google/app-check.git"),
    (
        "interop-ios-for-google-sdks",
        "https://github.com/google/interop-ios-for-google-sdks.git",
    ),
    ("leveldb", "https://github.com/firebase/leveldb.git"),
    ("nanopb", "https://github.com/firebase/nanopb.git"),
    ("promises", "https://github.com/google/promises.git"),
    (
        "keychainaccess",
        "https://github.com/kishikawakatsumi/KeychainAccess.git",
    ),
    (
        "swift-markdown-ui",
        "https://github.com/gonzalezreal/swift-markdown-ui",
    ),
    (
        "networkimage",
        "https://github.com/gonzalezreal/NetworkImage",
    ),
    ("swift-cmark", "https://github.com/swiftlang/swift-cmark"),
    ("swift-system", "https://github.com/apple/swift-system.git"),
    (
        "swift-atomics",
        "https://github.com/apple/swift-atomics.git",
    ),
    (
        "swiftlintplugins",
        "https://github.com/SimplyDanny/SwiftLintPlugins",
    ),
];

fn fmt_package_resolved(r: &mut Rng, _cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("{");
    o.push(format!("  \"originHash\" : \"{}\",", r.hex(64)));
    o.push("  \"pins\" : [");
    let mut pins: Vec<&(&str, &str)> = SPM_PINS.iter().collect();
    let n = ((target.saturating_sub(200)) / 290).clamp(8, pins.len());
    r.shuffle(&mut pins);
    pins.truncate(n);
    pins.sort_by_key(|p| p.0);
    let dd = r.chars(28, b"abcdefghijklmnopqrstuvwxyz");
    for (i, (id, url)) in pins.iter().enumerate() {
        o.push("    {");
        o.push(format!("      \"identity\" : \"{id}\","));
        o.push("      \"kind\" : \"remoteSourceControl\",");
        o.push(format!("      \"location\" : \"{url}\","));
        o.push("      \"state\" : {");
        let rev = r.hexd(40);
        let ver = format!("{}.{}.{}", r.range(0, 11), r.range(0, 20), r.range(0, 9));
        let st = step(
            format!("Checking what {id} is pinned to."),
            "bash",
            json!({"command": format!("git -C ~/Library/Developer/Xcode/DerivedData/Larder-{dd}/SourcePackages/checkouts/{id} show -s --format='%H %d %s' {rev}")}),
            format!("{rev}  (HEAD, tag: {ver}) Release {ver}"),
        );
        o.cand(
            format!("        \"revision\" : \"{rev}\","),
            "spm-revision",
            rev,
            st,
        );
        o.push(format!("        \"version\" : \"{ver}\""));
        o.push("      }");
        o.push(if i + 1 == n { "    }" } else { "    }," });
    }
    o.push("  ],");
    o.push("  \"version\" : 3");
    o.push("}");
    Call {
        intro: r
            .pick(&[
                "Let me look at the resolved package versions.",
                "Checking Package.resolved.",
                "",
            ])
            .to_string(),
        tool: "read",
        args: json!({"path": "Larder.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved"}),
        out: o,
        exit: 0,
        trunc: Trunc::Head,
    }
}

fn fmt_xcodebuild_raw(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    let derived = format!(
        "{}/Library/Developer/Xcode/DerivedData/Larder-{}",
        cx.home,
        r.chars(28, b"abcdefghijklmnopqrstuvwxyz")
    );
    o.push("Command line invocation:");
    o.push("    /Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild -scheme Larder -destination \"platform=iOS Simulator,name=iPhone 15\" build");
    o.blank();
    o.push("User defaults from command line:");
    o.push("    IDEPackageSupportUseBuiltinSCM = YES");
    o.blank();
    o.push("Prepare packages");
    o.blank();
    o.push("ComputeTargetDependencyGraph");
    o.push("note: Building targets in dependency order");
    o.push("note: Target dependency graph (9 targets)");
    for t in [
        "Larder",
        "LarderKit",
        "LarderWidgets",
        "Dependencies",
        "GRDB",
        "Nuke",
    ] {
        o.push(format!(
            "    Target '{t}' in project '{}'",
            if t.starts_with("Larder") { "Larder" } else { t }
        ));
    }
    o.blank();
    let obj = format!(
        "{derived}/Build/Intermediates.noindex/Larder.build/Debug-iphonesimulator/Larder.build/Objects-normal/arm64"
    );
    while o.size < target {
        let p = cx.src_path(r);
        if p.starts_with("LarderTests") {
            continue;
        }
        let f = sw_file(&p).trim_end_matches(".swift").to_string();
        o.push(format!(
            "SwiftCompile normal arm64 Compiling\\ {f}.swift {}/{p} (in target 'Larder' from project 'Larder')",
            cx.cwd
        ));
        o.push(format!("    cd {}", cx.cwd));
        o.push(format!(
            "    builtin-swiftTaskExecution -- /Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/bin/swift-frontend -frontend -c -primary-file {}/{p} -emit-dependencies-path {obj}/{f}.d -emit-const-values-path {obj}/{f}.swiftconstvalues -serialize-diagnostics-path {obj}/{f}.dia -target arm64-apple-ios17.0-simulator -enable-objc-interop -sdk /Applications/Xcode.app/Contents/Developer/Platforms/iPhoneSimulator.platform/Developer/SDKs/iPhoneSimulator17.4.sdk -swift-version 5 -enforce-exclusivity\\=checked -Onone -D DEBUG -module-name Larder -o {obj}/{f}.o -index-unit-output-path /Larder.build/Debug-iphonesimulator/Larder.build/Objects-normal/arm64/{f}.o",
            cx.cwd
        ));
        if r.chance(0.25) {
            o.push(format!(
                "{}/{p}:{}:{}: warning: capture of 'self' with non-sendable type '{f}' in a `@Sendable` closure",
                cx.cwd,
                r.range(10, 300),
                r.range(5, 40)
            ));
        }
        o.blank();
    }
    o.push("** BUILD SUCCEEDED **");
    bash(
        r.one(&["Building for the simulator.", "Let me build it first.", ""]),
        "xcodebuild -scheme Larder -destination 'platform=iOS Simulator,name=iPhone 15' build"
            .into(),
        o,
        0,
    )
}

// ---------------------------------------------------------------------------------------------
// Godot: emberfall
// ---------------------------------------------------------------------------------------------

const GODOT_CPP_CLASSES: &[&str] = &[
    "animation_node_state_machine",
    "animation_player",
    "area3d",
    "array_mesh",
    "audio_stream_player",
    "camera3d",
    "canvas_item",
    "character_body3d",
    "collision_shape3d",
    "concave_polygon_shape3d",
    "control",
    "cpu_particles3d",
    "directional_light3d",
    "editor_plugin",
    "engine",
    "file_access",
    "geometry_instance3d",
    "gpu_particles3d",
    "image",
    "image_texture",
    "input",
    "label",
    "mesh_instance3d",
    "multi_mesh",
    "multi_mesh_instance3d",
    "navigation_mesh",
    "node",
    "node3d",
    "object",
    "omni_light3d",
    "os",
    "packed_scene",
    "physics_body3d",
    "physics_direct_space_state3d",
    "project_settings",
    "ray_cast3d",
    "rendering_server",
    "resource",
    "resource_loader",
    "resource_saver",
    "rigid_body3d",
    "scene_tree",
    "shader_material",
    "spot_light3d",
    "standard_material3d",
    "static_body3d",
    "surface_tool",
    "texture2d",
    "thread",
    "timer",
    "tween",
    "viewport",
    "voxel_gi",
    "world3d",
    "worker_thread_pool",
];

fn fmt_scons(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("scons: Reading SConscript files ...");
    let cores = *r.pick(&[8, 12, 16, 24]);
    o.push(format!("Auto-detected {cores} CPU cores available for build parallelism. Using {} cores by default. You can override it with the -j argument.", cores - 1));
    o.push("Building for architecture x86_64 on platform linux");
    o.push("scons: done reading SConscript files.");
    o.push("scons: Building targets ...");
    if r.chance(0.5) {
        o.push("Generating bindings");
        let mut gens: Vec<&str> = GODOT_CPP_CLASSES.to_vec();
        r.shuffle(&mut gens);
        for g in gens.iter().take(r.range(10, GODOT_CPP_CLASSES.len())) {
            if o.size > target / 3 {
                break;
            }
            o.push(format!("Compiling godot-cpp/gen/src/classes/{g}.cpp ..."));
        }
        o.push(
            "Linking Static Library godot-cpp/bin/libgodot-cpp.linux.template_debug.x86_64.a ...",
        );
        o.push("Ranlib Library godot-cpp/bin/libgodot-cpp.linux.template_debug.x86_64.a ...");
    }
    let mut seen = HashSet::new();
    // `-fdiagnostics-plain-output` (set in the SConstruct of some checkouts): no source excerpts.
    let plain = r.chance(0.5);
    while o.size + 200 < target {
        let (dir, class) = *r.pick(GD_CLASSES);
        let file = format!(
            "src/{dir}/{}{}.cpp",
            snake(class),
            r.pick(&[
                "",
                "",
                "_jobs",
                "_cache",
                "_debug",
                "_bindings",
                "_simd",
                "_serialize"
            ])
        );
        if !seen.insert(file.clone()) && seen.len() < GD_CLASSES.len() * 4 {
            continue;
        }
        o.push(format!("Compiling {file} ..."));
        for _ in 0..r.range(0, 4) {
            let m = *r.pick(GD_METHODS);
            o.push(format!(
                "{file}: In member function 'void {class}::{m}(const godot::Ref<Chunk>&, FaceDir)':"
            ));
            let l = r.range(30, 900);
            let c = r.range(5, 60);
            let v = *r.pick(GD_IDENTS);
            let (msg, code) = match r.below(6) {
                0 => ("comparison of integer expressions of different signedness: 'int' and 'int64_t' {aka 'long int'} [-Wsign-compare]".to_string(), "\tfor (int i = 0; i < p_indices.size(); i++) {".to_string()),
                1 => (format!("unused variable '{v}' [-Wunused-variable]"), format!("\tconst int {v} = p_chunk->get_{v}();")),
                2 => (format!("'{v}' may be used uninitialized [-Wmaybe-uninitialized]"), format!("\t\tsum += {v};")),
                3 => (format!("narrowing conversion of '{v}' from 'int64_t' {{aka 'long int'}} to 'int32_t' {{aka 'int'}} [-Wnarrowing]"), format!("\tVector3i cell{{ {v}, 0, 0 }};")),
                4 => (format!("unused parameter 'p_{v}' [-Wunused-parameter]"), format!("void {class}::{m}(int p_{v}) {{")),
                _ => ("implicitly-declared 'constexpr godot::Vector3i& godot::Vector3i::operator=(const godot::Vector3i&)' is deprecated [-Wdeprecated-copy]".to_string(), "\t\tneighbors[n] = p_cell + OFFSETS[n];".to_string()),
            };
            let key = format!("{file}:{l}:{c}");
            let st = read_step(r, cx, &key, &file, l, Some(m));
            o.cand(format!("{key}: warning: {msg}"), "gcc-warning", key, st);
            if !plain {
                o.push(format!("  {l:>3} | {}", code.replace('\t', "        ")));
                o.push(format!("      | {}~~^~~~~~~~~~~~", " ".repeat(c.min(30))));
            }
        }
    }
    o.push("Linking Shared Library bin/libemberfall.linux.template_debug.x86_64.so ...");
    o.push("scons: done building targets.");
    bash(
        r.one(&[
            "Building the extension.",
            "Let me rebuild the GDExtension.",
            "",
        ]),
        format!(
            "scons platform=linux target=template_debug -j{}{}",
            cores - 1,
            if plain {
                " ccflags=-fdiagnostics-plain-output"
            } else {
                ""
            }
        ),
        o,
        0,
    )
}

fn gut_test_name(r: &mut Rng) -> String {
    let a = [
        "stack",
        "split",
        "merge",
        "drop",
        "craft",
        "smelt",
        "spawn",
        "save",
        "load",
        "propagate",
        "remesh",
        "path",
        "ignite",
        "cool",
        "equip",
        "trade",
    ];
    let b = [
        "merges_same_item",
        "rounds_down",
        "clears_slot",
        "respects_max_stack",
        "uses_fuel",
        "queues_neighbors",
        "skips_air_chunks",
        "survives_reload",
        "keeps_heat",
        "blocks_diagonal",
        "emits_signal",
        "restores_hotbar",
        "caps_light_level",
        "ignores_empty_recipe",
        "handles_negative_coords",
        "reuses_pool",
    ];
    format!("test_{}_{}", r.pick(&a), r.pick(&b))
}

fn fmt_gut(r: &mut Rng, _cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("Godot Engine v4.2.2.stable.official.15073afe3 - https://godotengine.org");
    o.push(" ");
    o.push("--- GUT ---");
    o.push("[INFO]:  using [res://.gutconfig.json] for configuration");
    o.push("[INFO]:  Exiting when done");
    o.push("Godot version:  4.2.2");
    o.push("GUT version:  9.2.1");
    o.blank();
    let mut scripts = HashSet::new();
    let mut names = HashSet::new();
    let mut failing: Vec<(String, String, String, usize)> = Vec::new();
    let (mut tests, mut pending, mut asserts) = (0, 0, 0);
    let mut tries = 0;
    while o.size + 600 < target && tries < 5_000 {
        tries += 1;
        let s = format!(
            "res://test/{}/test_{}.gd",
            r.pick(&["unit", "unit", "integration"]),
            r.pick(&[
                "inventory",
                "crafting",
                "chunk_mesher",
                "light_propagator",
                "save_codec",
                "heat_map",
                "path_grid",
                "loot_table",
                "hotbar",
                "day_cycle",
                "trader",
                "fluid_sim"
            ])
        );
        if !scripts.insert(s.clone()) {
            if scripts.len() >= 12 {
                break;
            }
            continue;
        }
        o.push(s.clone());
        let file = s.trim_start_matches("res://test/").to_string();
        for _ in 0..r.range(4, 16) {
            let t = gut_test_name(r);
            if !names.insert(t.clone()) {
                continue;
            }
            tests += 1;
            let n = r.range(1, 9);
            asserts += n;
            if r.chance(0.05) {
                o.push(format!("* {t}"));
                let msg = format!(
                    "[{}] expected to equal [{}]:  after {}",
                    r.range(0, 9),
                    r.range(10, 64),
                    r.pick(&["merge", "split", "reload", "tick"])
                );
                let line = r.range(10, 300);
                o.push(format!("    [Failed]:  {msg}"));
                o.push(format!("      at line {line}"));
                failing.push((s.clone(), t, msg, line));
            } else if r.chance(0.03) {
                pending += 1;
                o.push(format!("* {t}"));
                o.push("    [Pending]:  loot tables not final");
            } else {
                let res = format!(
                    "--- GUT ---\n[INFO]:  using [res://.gutconfig.json] for configuration\n\nres://test/{file}\n* {t}\n\nTotals\nScripts:          1\nTests:            1\nPassing Tests     1\nAsserts:          {n} of {n} passed\n\n---- All tests passed! ----"
                );
                let st = step(
                    format!("Running {t} by itself."),
                    "bash",
                    json!({"command": format!("godot --headless -s addons/gut/gut_cmdln.gd -gtest=res://test/{file} -gunit_test_name={t} -gexit")}),
                    res,
                );
                o.cand(format!("* {t}"), "gut-test", t, st);
            }
            if r.chance(0.04) {
                o.push(format!(
                    "[Orphans]:  {} new orphans in test.",
                    r.range(1, 6)
                ));
            }
        }
        o.blank();
    }
    o.push("==============================================");
    o.push("= Run Summary");
    o.push("==============================================");
    o.blank();
    for (s, t, msg, line) in &failing {
        o.push(s.clone());
        o.push(format!("- {t}"));
        o.push(format!("    [Failed]:  {msg}"));
        o.push(format!("      at line {line}"));
        o.blank();
    }
    o.push("Totals");
    o.push(format!("Scripts:          {}", scripts.len()));
    o.push(format!("Tests:            {tests}"));
    o.push(format!(
        "Passing Tests     {}",
        tests - failing.len() - pending
    ));
    o.push(format!("Failing Tests     {}", failing.len()));
    o.push(format!("Risky/Pending:    {pending}"));
    o.push(format!(
        "Asserts:          {} of {asserts} passed",
        asserts - failing.len()
    ));
    o.blank();
    if failing.is_empty() {
        o.push("---- All tests passed! ----");
    } else {
        o.push(format!("---- {} failing tests ----", failing.len()));
    }
    bash(
        r.one(&[
            "Running the GUT suite headless.",
            "Let me run the tests.",
            "",
        ]),
        "godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test -ginclude_subdirs -gexit"
            .into(),
        o,
        if failing.is_empty() { 0 } else { 1 },
    )
}

const ENGINE_SYMS: &[&str] = &[
    "RenderingServerDefault::_draw(bool, double)",
    "RendererSceneCull::_scene_cull(RendererSceneCull::CullData&, RendererSceneCull::InstanceCullResult&, unsigned long, unsigned long)",
    "RendererSceneCull::render_camera(godot::Ref<RenderSceneBuffers> const&, RID, RID, RID, Vector2, RID)",
    "RendererRD::MeshStorage::mesh_surface_get_arrays(RID, int) const",
    "Node::_propagate_process_owner(Node*, int, int)",
    "SceneTree::process(double)",
    "SceneTree::physics_process(double)",
    "GDScriptFunction::call(GDScriptInstance*, Variant const**, int, Callable::CallError&, GDScriptFunction::CallState*)",
    "GDScriptInstance::callp(StringName const&, Variant const**, int, Callable::CallError&)",
    "Variant::operator=(Variant const&)",
    "Variant::reference(Variant const&)",
    "StringName::StringName(char const*, bool)",
    "StringName::unref()",
    "CowData<unsigned char>::_copy_on_write()",
    "CowData<Vector3>::resize<false>(long)",
    "Object::emit_signalp(StringName const&, Variant const**, int)",
    "Object::get(StringName const&, bool*) const",
    "PhysicsServer3DWrapMT::step(float)",
    "GodotSpace3D::intersect_ray(PhysicsDirectSpaceState3D::RayParameters const&, PhysicsDirectSpaceState3D::RayResult&)",
    "GodotBroadPhase3DBVH::update()",
    "SurfaceTool::commit(godot::Ref<ArrayMesh> const&, unsigned long)",
    "ArrayMesh::add_surface_from_arrays(Mesh::PrimitiveType, Array const&, TypedArray<Array> const&, Dictionary const&, BitField<Mesh::ArrayFormat>)",
    "WorkerThreadPool::_process_task(WorkerThreadPool::Task*)",
    "Main::iteration()",
    "OS_LinuxBSD::run()",
    "MessageQueue::flush()",
    "Memory::alloc_static(unsigned long, bool)",
    "Memory::free_static(void*, bool)",
    "Image::get_pixelv(Vector2i const&) const",
    "Basis::orthonormalize()",
];
const LIBC_SYMS: &[&str] = &[
    "__memmove_avx_unaligned_erms",
    "__memset_avx2_unaligned_erms",
    "_int_malloc",
    "malloc",
    "_int_free",
    "cfree@GLIBC_2.2.5",
    "pthread_mutex_lock@@GLIBC_2.2.5",
    "__strlen_avx2",
    "pthread_mutex_unlock@@GLIBC_2.2.5",
    "__memcmp_avx2_movbe",
];

fn fmt_perf(r: &mut Rng, _cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("# To display the perf.data header info, please use --header/--header-only options.");
    o.push("#");
    o.push("#");
    o.push("# Total Lost Samples: 0");
    o.push("#");
    let samples = r.range(12, 90);
    o.push(format!("# Samples: {samples}K of event 'cycles:P'"));
    o.push(format!(
        "# Event count (approx.): {}",
        r.range(10_000_000, 99_999_999) as u64 * 1000 + r.range(0, 999) as u64
    ));
    o.push("#");
    o.push(format!(
        "# {:<9} {:<15}  {:<46}  {}",
        "Overhead", "Command", "Shared Object", "Symbol"
    ));
    o.push(format!(
        "# {:<9} {:<15}  {:<46}  {}",
        "........",
        "...............",
        "..............................................",
        "......................................................"
    ));
    o.push("#");
    let lib = "libemberfall.linux.template_debug.x86_64.so";
    let godot = "godot.linuxbsd.editor.x86_64";
    let mut rows: Vec<(String, String, String, Option<String>)> = Vec::new();
    for (j, (_, class)) in GD_CLASSES.iter().enumerate() {
        for (i, m) in GD_METHODS.iter().enumerate() {
            if (i * 7 + j * 3) % 3 != 0 {
                continue;
            }
            let args = *r.pick(&[
                "(godot::Ref<Chunk> const&, FaceDir)",
                "()",
                "(int)",
                "(godot::Vector3i const&)",
                "(float)",
                "(godot::PackedByteArray const&)",
            ]);
            let comm = *r.pick(&[
                "emberfall",
                "emberfall",
                "WorkerThreadPoo",
                "WorkerThreadPoo",
            ]);
            let key = format!("{class}::{m}");
            rows.push((
                comm.into(),
                lib.into(),
                format!("[.] {key}{args}"),
                Some(key),
            ));
        }
    }
    for s in ENGINE_SYMS {
        rows.push((
            r.pick(&["emberfall", "WorkerThreadPoo"]).to_string(),
            godot.into(),
            format!("[.] {s}"),
            None,
        ));
    }
    for s in LIBC_SYMS {
        rows.push((
            r.pick(&["emberfall", "WorkerThreadPoo", "AudioServer"])
                .to_string(),
            "libc.so.6".into(),
            format!("[.] {s}"),
            None,
        ));
    }
    r.shuffle(&mut rows);
    // Fill up with unresolved addresses in the GPU driver and the kernel.
    let row_len = 120;
    let want = (target.saturating_sub(o.size) / row_len).max(20);
    while rows.len() < want {
        if r.chance(0.6) {
            rows.push((
                r.pick(&["emberfall", "WorkerThreadPoo", ":4181"])
                    .to_string(),
                r.pick(&["radeonsi_dri.so", "libLLVM-17.so.1", "libvulkan_radeon.so"])
                    .to_string(),
                format!("[.] 0x{:016x}", r.range(0x10_0000, 0x3f_ffff)),
                None,
            ));
        } else {
            rows.push((
                r.pick(&["emberfall", "swapper", "WorkerThreadPoo"])
                    .to_string(),
                "[kernel.kallsyms]".into(),
                format!(
                    "[k] {}",
                    r.pick(&[
                        "clear_page_erms",
                        "native_queued_spin_lock_slowpath",
                        "syscall_exit_to_user_mode",
                        "__schedule",
                        "_raw_spin_lock",
                        "copy_user_enhanced_fast_string",
                        "do_syscall_64",
                        "amdgpu_cs_ioctl",
                        "ttm_bo_validate"
                    ])
                ),
                None,
            ));
        }
    }
    rows.truncate(want.max(40));
    let mut pcts: Vec<f64> = (0..rows.len())
        .map(|i| 14.0 / (1.0 + i as f64 * r.fl(0.3, 0.9)))
        .collect();
    pcts.sort_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
    let mut seen = HashSet::new();
    for ((comm, dso, sym, key), p) in rows.into_iter().zip(pcts) {
        let line = format!("  {:>8.2}%  {comm:<15}  {dso:<46}  {sym}", p.max(0.01));
        match key {
            Some(k) if seen.insert(k.clone()) => {
                let (class, m) = k.split_once("::").unwrap_or((&k, ""));
                let dir = GD_CLASSES
                    .iter()
                    .find(|(_, c)| *c == class)
                    .map_or("terrain", |x| x.0);
                let res = format!(
                    "src/{dir}/{}.cpp:{}:void {k}(const Ref<Chunk> &p_chunk, FaceDir p_dir) {{\nsrc/{dir}/{}.h:{}:\tvoid {m}(const Ref<Chunk> &p_chunk, FaceDir p_dir);",
                    snake(class),
                    r.range(40, 900),
                    snake(class),
                    r.range(20, 120)
                );
                let st = step(
                    format!("{k} is high in the profile; finding its definition."),
                    "grep",
                    json!({"pattern": k, "path": "src"}),
                    res,
                );
                o.cand(line, "perf-symbol", k, st);
            }
            _ => o.push(line),
        }
    }
    o.blank();
    o.blank();
    o.push("#");
    o.push("# (Tip: To see callchains in a more compact form: perf report -g folded)");
    o.push("#");
    bash(
        r.one(&[
            "Let me look at the profile.",
            "Checking where the frame time goes.",
            "",
        ]),
        "perf report --stdio --no-children -g none --percent-limit 0.01".into(),
        o,
        0,
    )
}

fn fmt_godot_log(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("Godot Engine v4.2.2.stable.official.15073afe3 - https://godotengine.org");
    o.push("Vulkan API 1.3.260 - Forward+ - Using Vulkan Device #0: AMD - AMD Radeon RX 6700 XT (RADV NAVI22)");
    o.push(" ");
    let mut sites: Vec<(String, String, String, usize)> = Vec::new();
    let mut chunk_log = 0;
    while o.size < target {
        match r.below(10) {
            0..=3 => {
                chunk_log += 1;
                o.push(format!(
                    "[emberfall] chunk ({}, {}, {}) meshed in {:.2} ms ({} quads)",
                    r.range(0, 64) as i64 - 32,
                    r.range(0, 8) as i64 - 4,
                    r.range(0, 64) as i64 - 32,
                    r.log_uniform(0.2, 40.0),
                    r.range(0, 9000)
                ));
            }
            4 => o.push(format!(
                "[emberfall] streamer: {} chunks queued, {} in flight, radius {}",
                r.range(0, 400),
                r.range(0, 15),
                r.range(4, 10)
            )),
            5 => o.push(format!(
                "[emberfall] autosave -> user://saves/slot_{}/world_{:04}.sav ({} KB)",
                r.range(1, 3),
                r.range(1, 400),
                r.range(80, 900)
            )),
            6..=8 => {
                let site = if !sites.is_empty() && r.chance(0.35) {
                    sites[r.below(sites.len())].clone()
                } else {
                    let path = r.pick(GD_SCRIPTS).to_string();
                    let class = pascal(
                        path.rsplit('/')
                            .next()
                            .unwrap_or("x")
                            .trim_end_matches(".gd"),
                    );
                    let m = format!(
                        "_{}",
                        r.pick(&[
                            "refresh",
                            "on_item_changed",
                            "process",
                            "physics_process",
                            "apply_heat",
                            "update_slot",
                            "spawn_wave",
                            "load_chunk",
                            "ready"
                        ])
                    );
                    let msg = match r.below(4) {
                        0 => format!(
                            "Invalid get index '{}' (on base: 'Nil').",
                            r.pick(GD_IDENTS)
                        ),
                        1 => format!(
                            "Invalid call. Nonexistent function '{}' in base 'Nil'.",
                            r.pick(GD_METHODS)
                        ),
                        2 => format!(
                            "Out of bounds get index '{}' (on base: 'Array[ItemStack]')",
                            r.range(0, 40)
                        ),
                        _ => format!(
                            "Attempt to call function '{}' in base 'previously freed' on a null instance.",
                            r.pick(GD_METHODS)
                        ),
                    };
                    let s = (path, format!("{class}.{m}"), msg, r.range(8, 400));
                    sites.push(s.clone());
                    s
                };
                let (path, func, msg, line) = site;
                o.push(format!("SCRIPT ERROR: {msg}"));
                let key = format!("res://{path}:{line}");
                let st = read_step(r, cx, &key, &path, line, None);
                o.cand(
                    format!("          at: {func} ({key})"),
                    "godot-script-error",
                    key,
                    st,
                );
            }
            _ => {
                let (msg, at) = *r.pick(&[
                    ("Condition \"p_index < 0\" is true. Returning: nullptr", "get_child (scene/main/node.cpp:1426)"),
                    ("Parameter \"mesh\" is null.", "mesh_surface_get_arrays (servers/rendering/renderer_rd/storage_rd/mesh_storage.cpp:578)"),
                    ("Index p_index = 12 is out of bounds (size() = 12).", "get (./core/templates/cowdata.h:155)"),
                    ("Attempted to free a locked object (calling or emitting).", "_predelete (core/object/object.cpp:1958)"),
                ]);
                o.push(format!("ERROR: {msg}"));
                o.push(format!("   at: {at}"));
            }
        }
    }
    if chunk_log > 0 {
        o.push("WARNING: ObjectDB instances leaked at exit (run with --verbose for details).");
        o.push("     at: cleanup (core/object/object.cpp:2070)");
    }
    let n = o.lines.len();
    bash(
        r.one(&[
            "Let me run the world scene headless and watch the log.",
            "Running the game headless for a minute.",
            "",
        ]),
        format!(
            "godot --headless --path . --quit-after 3600 res://scenes/world/world.tscn 2>&1 | tail -n {n}"
        ),
        o,
        0,
    )
}

// ---------------------------------------------------------------------------------------------
// OCaml: quire
// ---------------------------------------------------------------------------------------------

fn ml_path(r: &mut Rng) -> String {
    let (dir, m) = *r.pick(ML_MODULES);
    format!("lib/{dir}/{m}.ml")
}

fn fmt_dune_build(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    while o.size < target {
        let p = ml_path(r);
        let l = r.range(5, 700);
        let c1 = r.range(2, 30);
        let c2 = c1 + r.range(3, 40);
        let id = *r.pick(ML_IDENTS);
        if r.chance(0.2) {
            o.push(format!(
                "File \"{p}\", lines {l}-{}, characters {c1}-{c2}:",
                l + r.range(1, 5)
            ));
        } else {
            o.push(format!("File \"{p}\", line {l}, characters {c1}-{c2}:"));
        }
        o.push(format!("{l} |   {}", cx.code_line(r, id)));
        o.push(format!("{}{}", " ".repeat(c1 + 6), "^".repeat(c2 - c1)));
        match r.below(6) {
            0 => o.push(format!(
                "Error (warning 27 [unused-var-strict]): unused variable {}.",
                r.pick(&["env", "loc", "ty", "acc", "row"])
            )),
            1 => o.push(format!(
                "Error (warning 32 [unused-value-declaration]): unused value {id}."
            )),
            2 => {
                o.push("Error: This expression has type Types.row");
                o.push("       but an expression was expected of type Types.t");
            }
            3 => {
                o.push(format!("Error: Unbound value {id}"));
                o.push(format!("Hint: Did you mean {}?", r.pick(ML_IDENTS)));
            }
            4 => {
                o.push("Error (warning 9 [missing-record-field-pattern]): the following labels are not bound in this record pattern:");
                o.push("loc");
                o.push("Either bind these labels explicitly or add '; _' to the pattern.");
            }
            _ => {
                o.push(
                    "Error (warning 8 [partial-match]): this pattern-matching is not exhaustive.",
                );
                o.push("Here is an example of a case that is not matched:");
                o.push(format!(
                    "{} (_, _)",
                    r.pick(&["Tforall", "Trecord", "Tvariant", "Talias"])
                ));
            }
        }
    }
    bash(
        r.one(&["Building.", "Let me see what dune says.", ""]),
        "dune build 2>&1".into(),
        o,
        1,
    )
}

const OPAM: &[(&str, &str, &str)] = &[
    (
        "alcotest",
        "1.7.0",
        "Alcotest is a lightweight and colourful test framework",
    ),
    (
        "angstrom",
        "0.16.0",
        "Parser combinators built for speed and memory-efficiency",
    ),
    ("astring", "0.8.5", "Alternative String module for OCaml"),
    (
        "base",
        "v0.16.3",
        "Full standard library replacement for OCaml",
    ),
    ("base-bigarray", "base", ""),
    ("base-domains", "base", ""),
    (
        "base-nnp",
        "base",
        "Naked pointers prohibited in the OCaml heap",
    ),
    ("base-threads", "base", ""),
    ("base-unix", "base", ""),
    (
        "base_bigstring",
        "v0.16.0",
        "String type based on [Bigarray], for use in I/O and C-bindings",
    ),
    (
        "base_quickcheck",
        "v0.16.0",
        "Randomized testing framework, designed for compatibility with Base",
    ),
    ("bin_prot", "v0.16.0", "A binary protocol generator"),
    ("bos", "0.2.1", "Basic OS interaction for OCaml"),
    (
        "camlp-streams",
        "5.0.1",
        "The Stream and Genlex libraries for use with Camlp4 and Camlp5",
    ),
    (
        "chrome-trace",
        "3.15.0",
        "Chrome trace event generation library",
    ),
    (
        "cmdliner",
        "1.2.0",
        "Declarative definition of command line interfaces for OCaml",
    ),
    (
        "core",
        "v0.16.2",
        "Industrial strength alternative to OCaml's standard library",
    ),
    ("core_bench", "v0.16.0", "Benchmarking library"),
    (
        "core_kernel",
        "v0.16.0",
        "Industrial strength alternative to OCaml's standard library",
    ),
    ("core_unix", "v0.16.0", "Unix-specific portions of Core"),
    ("cppo", "1.6.9", "Code preprocessor like cpp for OCaml"),
    (
        "csexp",
        "1.5.2",
        "Parsing and printing of S-expressions in Canonical form",
    ),
    (
        "dune",
        "3.15.0",
        "Fast, portable, and opinionated build system",
    ),
    (
        "dune-build-info",
        "3.15.0",
        "Embed build information inside executable",
    ),
    (
        "dune-configurator",
        "3.15.0",
        "Helper library for gathering system configuration",
    ),
    ("dune-rpc", "3.15.0", "Communicate with dune using rpc"),
    ("dyn", "3.15.0", "Dynamic type"),
    ("either", "1.0.0", "Compatibility Either module"),
    (
        "fiber",
        "3.7.0",
        "Dune's monadic structured concurrency library",
    ),
    (
        "fieldslib",
        "v0.16.0",
        "Syntax extension to define first class values representing record fields",
    ),
    (
        "fix",
        "20230505",
        "Algorithmic building blocks for memoization, recursion, and more",
    ),
    ("fmt", "0.9.0", "OCaml Format pretty-printer combinators"),
    ("fpath", "0.7.3", "File system paths for OCaml"),
    (
        "gen",
        "1.1",
        "Iterators for OCaml, both restartable and consumable",
    ),
    ("int_repr", "v0.16.0", "Integers of various widths"),
    (
        "jane-street-headers",
        "v0.16.0",
        "Jane Street C header files",
    ),
    ("jsonrpc", "1.17.0", "Jsonrpc protocol implemenation"),
    (
        "jst-config",
        "v0.16.0",
        "Compile-time configuration for Jane Street libraries",
    ),
    ("logs", "0.7.0", "Logging infrastructure for OCaml"),
    ("lsp", "1.17.0", "LSP protocol implementation in OCaml"),
    ("menhir", "20231231", "An LR(1) parser generator"),
    (
        "menhirLib",
        "20231231",
        "Runtime support library for parsers generated by Menhir",
    ),
    (
        "menhirSdk",
        "20231231",
        "Compile-time library for auxiliary tools related to Menhir",
    ),
    ("merlin-lib", "4.14-501", "Merlin's libraries"),
    (
        "num",
        "1.5",
        "The legacy Num library for arbitrary-precision integer and rational arithmetic",
    ),
    ("ocaml", "5.1.1", "The OCaml compiler (virtual package)"),
    ("ocaml-base-compiler", "5.1.1", "Official release 5.1.1"),
    (
        "ocaml-compiler-libs",
        "v0.12.4",
        "OCaml compiler libraries repackaged",
    ),
    ("ocaml-config", "3", "OCaml Switch Configuration"),
    ("ocaml-lsp-server", "1.17.0", "LSP Server for OCaml"),
    (
        "ocaml-options-vanilla",
        "1",
        "Ensure that OCaml is compiled with no special options enabled",
    ),
    ("ocaml_intrinsics", "v0.16.0", "Intrinsics"),
    (
        "ocamlbuild",
        "0.14.3",
        "OCamlbuild is a build system with builtin rules to easily build most OCaml projects",
    ),
    (
        "ocamlc-loc",
        "3.15.0",
        "Parse ocaml compiler output into structured form",
    ),
    ("ocamlfind", "1.9.6", "A library manager for OCaml"),
    ("ocamlformat", "0.26.1", "Auto-formatter for OCaml code"),
    ("ocamlformat-lib", "0.26.1", "OCaml Code Formatter"),
    (
        "ocamlformat-rpc-lib",
        "0.26.1",
        "Auto-formatter for OCaml code (RPC mode)",
    ),
    (
        "ocp-indent",
        "1.8.1",
        "A simple tool to indent OCaml programs",
    ),
    ("odoc", "2.4.1", "OCaml Documentation Generator"),
    (
        "odoc-parser",
        "2.4.1",
        "Parser for ocaml documentation comments",
    ),
    ("ordering", "3.15.0", "Element ordering"),
    ("parsexp", "v0.16.0", "S-expression parsing library"),
    ("pp", "1.2.0", "Pretty-printing library"),
    (
        "ppx_assert",
        "v0.16.0",
        "Assert-like extension nodes that raise useful errors on failure",
    ),
    ("ppx_base", "v0.16.0", "Base set of ppx rewriters"),
    (
        "ppx_bench",
        "v0.16.0",
        "Syntax extension for writing in-line benchmarks in ocaml code",
    ),
    (
        "ppx_bin_prot",
        "v0.16.0",
        "Generation of bin_prot readers and writers from types",
    ),
    (
        "ppx_cold",
        "v0.16.0",
        "Expands [@cold] into [@inline never][@specialise never][@local never]",
    ),
    (
        "ppx_compare",
        "v0.16.0",
        "Generation of comparison functions from types",
    ),
    (
        "ppx_custom_printf",
        "v0.16.0",
        "Printf-style format-strings for user-defined string conversion",
    ),
    (
        "ppx_derivers",
        "1.2.1",
        "Shared [@@deriving] plugin registry",
    ),
    (
        "ppx_deriving",
        "5.2.1",
        "Type-driven code generation for OCaml",
    ),
    (
        "ppx_deriving_yojson",
        "3.7.0",
        "JSON codec generator for OCaml",
    ),
    (
        "ppx_disable_unused_warnings",
        "v0.16.0",
        "Expands [@disable_unused_warnings] into [@warning \"-20-26-32-33-35-37-38-39-60-66-69\"]",
    ),
    (
        "ppx_enumerate",
        "v0.16.0",
        "Generate a list containing all values of a finite type",
    ),
    ("ppx_expect", "v0.16.0", "Cram like framework for OCaml"),
    (
        "ppx_fields_conv",
        "v0.16.0",
        "Generation of accessor and iteration functions for ocaml records",
    ),
    (
        "ppx_fixed_literal",
        "v0.16.0",
        "Simpler notation for fixed point literals",
    ),
    (
        "ppx_globalize",
        "v0.16.0",
        "A ppx rewriter that generates functions to copy local values to the global heap",
    ),
    (
        "ppx_hash",
        "v0.16.0",
        "A ppx rewriter that generates hash functions from type expressions and definitions",
    ),
    ("ppx_here", "v0.16.0", "Expands [%here] into its location"),
    (
        "ppx_ignore_instrumentation",
        "v0.16.0",
        "Ignore Jane Street specific instrumentation extensions",
    ),
    (
        "ppx_inline_test",
        "v0.16.1",
        "Syntax extension for writing in-line tests in ocaml code",
    ),
    ("ppx_let", "v0.16.0", "Monadic let-bindings"),
    (
        "ppx_log",
        "v0.16.0",
        "Ppx_sexp_message-like extension nodes for lazily rendering log messages",
    ),
    (
        "ppx_module_timer",
        "v0.16.0",
        "Ppx rewriter that records top-level module startup times",
    ),
    ("ppx_optcomp", "v0.16.0", "Optional compilation for OCaml"),
    (
        "ppx_optional",
        "v0.16.0",
        "Pattern matching on flat options",
    ),
    (
        "ppx_pipebang",
        "v0.16.0",
        "A ppx rewriter that inlines reverse application operators `|>` and `|!`",
    ),
    (
        "ppx_sexp_conv",
        "v0.16.0",
        "[@@deriving] plugin to generate S-expression conversion functions",
    ),
    (
        "ppx_sexp_message",
        "v0.16.0",
        "A ppx rewriter for easy construction of s-expressions",
    ),
    (
        "ppx_sexp_value",
        "v0.16.0",
        "A ppx rewriter that simplifies building s-expressions from ocaml values",
    ),
    (
        "ppx_stable",
        "v0.16.0",
        "Stable types conversions generator",
    ),
    (
        "ppx_stable_witness",
        "v0.16.0",
        "Ppx extension for deriving a witness that a type is intended to be stable",
    ),
    (
        "ppx_string",
        "v0.16.0",
        "Ppx extension for string interpolation",
    ),
    (
        "ppx_tydi",
        "v0.16.0",
        "Let expressions, inferring pattern type from expression",
    ),
    (
        "ppx_typerep_conv",
        "v0.16.0",
        "Generation of runtime types from type declarations",
    ),
    (
        "ppx_variants_conv",
        "v0.16.0",
        "Generation of accessor and iteration functions for ocaml variant types",
    ),
    (
        "ppx_yojson_conv_lib",
        "v0.16.0",
        "Runtime lib for ppx_yojson_conv",
    ),
    (
        "ppxlib",
        "0.32.0",
        "Standard infrastructure for ppx rewriters",
    ),
    (
        "re",
        "1.11.0",
        "RE is a regular expression library for OCaml",
    ),
    ("result", "1.5", "Compatibility Result module"),
    ("sedlex", "3.2", "An OCaml lexer generator for Unicode"),
    (
        "seq",
        "base",
        "Compatibility package for OCaml's standard iterator type starting from 4.07.",
    ),
    (
        "sexplib",
        "v0.16.0",
        "Library for serializing OCaml values to and from S-expressions",
    ),
    (
        "sexplib0",
        "v0.16.0",
        "Library containing the definition of S-expressions and some base converters",
    ),
    ("spawn", "v0.15.1", "Spawning sub-processes"),
    (
        "splittable_random",
        "v0.16.0",
        "PRNG that can be split into independent streams",
    ),
    ("stdio", "v0.16.0", "Standard IO library for OCaml"),
    (
        "stdlib-shims",
        "0.3.0",
        "Backport some of the new stdlib features to older compiler",
    ),
    ("stdune", "3.15.0", "Dune's unstable standard library"),
    ("time_now", "v0.16.0", "Reports the current time"),
    ("topkg", "1.0.7", "The transitory OCaml software packager"),
    (
        "typerep",
        "v0.16.0",
        "Typerep is a library for runtime types",
    ),
    ("uucp", "15.1.0", "Unicode character properties for OCaml"),
    ("uuseg", "15.1.0", "Unicode text segmentation for OCaml"),
    (
        "uutf",
        "1.0.3",
        "Non-blocking streaming Unicode codec for OCaml",
    ),
    (
        "variantslib",
        "v0.16.0",
        "Part of Jane Street's Core library",
    ),
    ("xdg", "3.15.0", "XDG Base Directory Specification"),
    (
        "yojson",
        "2.1.2",
        "Yojson is an optimized parsing and printing library for the JSON format",
    ),
];

fn fmt_opam_list(r: &mut Rng, _cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("# Packages matching: installed");
    o.push(format!("# {:<28}# {:<13}# Synopsis", "Name", "Installed"));
    // `opam list` prints every installed package; a smaller target shows a filtered list.
    let keep = (target as f64 / (OPAM.len() as f64 * 75.0)).min(1.0);
    for (name, ver, syn) in OPAM {
        if keep < 1.0 && !r.chance(keep) {
            continue;
        }
        let line = format!("{name:<30}{ver:<15}{syn}");
        let newer = if ver.starts_with('v') {
            format!("v0.17.{}", r.range(0, 2))
        } else {
            let mut p: Vec<String> = ver.split('.').map(str::to_string).collect();
            if let Some(last) = p.last_mut() {
                *last = (last.parse::<u64>().unwrap_or(0) + 1).to_string();
            }
            p.join(".")
        };
        let res = format!(
            "The following actions will be performed:\n  ∗ upgrade {name} {ver} to {newer}\n===== ∗ 1 =====\n\n<><> Processing actions <><><><><><><><><><><><><><><><><><><><><><><><><><><><>\n⬇ retrieved {name}.{newer}  (https://opam.ocaml.org/cache)\n⊘ removed   {name}.{ver}\n∗ installed {name}.{newer}\nDone."
        );
        let st = step(
            format!("Upgrading {name} to {newer}."),
            "bash",
            json!({"command": format!("opam install {name}.{newer} --yes")}),
            res,
        );
        o.cand(line, "opam-package", name.to_string(), st);
    }
    bash(
        r.one(&[
            "Let me check the installed opam packages.",
            "Listing the switch's packages.",
            "",
        ]),
        "opam list".into(),
        o,
        0,
    )
}

fn fmt_bench(r: &mut Rng, _cx: &Ctx, target: usize) -> Call {
    let phases = [
        "parse", "lex", "infer", "unify", "check", "pretty", "eval", "resolve", "schema",
    ];
    let cases = [
        "deep_records",
        "wide_tables",
        "many_imports",
        "long_strings",
        "nested_tables",
        "enum_heavy",
        "row_poly",
        "alias_chain",
        "unicode_keys",
        "big_arrays",
        "mixed_config",
        "inline_tables",
        "deep_aliases",
        "generic_lists",
    ];
    let sizes = ["", "_1k", "_4k", "_16k", ":64", ":256", ":1024"];
    let mut names = Vec::new();
    let mut seen = HashSet::new();
    let mut tries = 0;
    while names.len() * 110 + 500 < target && tries < 5000 {
        tries += 1;
        let n = format!("{}/{}{}", r.pick(&phases), r.pick(&cases), r.pick(&sizes));
        if seen.insert(n.clone()) {
            names.push(n);
        }
    }
    names.sort();
    let w = names.iter().map(|n| n.len()).max().unwrap_or(10).max(10);
    let mut o = Out::default();
    let quota = *r.pick(&[1, 2, 5]);
    o.push(format!(
        "Estimated testing time {}s ({} benchmarks x {quota}s). Change using '-quota'.",
        names.len() * quota,
        names.len()
    ));
    let bar = |l: &str, m: &str, rr: &str| {
        format!(
            "{l}{}{m}{}{m}{}{m}{}{m}{}{m}{}{rr}",
            "─".repeat(w + 2),
            "─".repeat(12),
            "─".repeat(12),
            "─".repeat(10),
            "─".repeat(10),
            "─".repeat(12)
        )
    };
    o.push(bar("┌", "┬", "┐"));
    o.push(format!(
        "│ {:<w$} │ {:>10} │ {:>10} │ {:>8} │ {:>8} │ {:>10} │",
        "Name", "Time/Run", "mWd/Run", "mjWd/Run", "Prom/Run", "Percentage"
    ));
    o.push(bar("├", "┼", "┤"));
    for n in names {
        let t = r.log_uniform(0.3, 9000.0);
        let time = if t > 1000.0 {
            format!("{:.2}ms", t / 1000.0)
        } else {
            format!("{t:.2}us")
        };
        let line = format!(
            "│ {n:<w$} │ {time:>10} │ {:>10} │ {:>8} │ {:>8} │ {:>9.2}% │",
            format!("{:.2}kw", r.log_uniform(0.5, 900.0)),
            format!("{:.2}w", r.log_uniform(1.0, 800.0)),
            format!("{:.2}w", r.log_uniform(1.0, 800.0)),
            r.fl(0.05, 100.0)
        );
        let res = format!(
            "Estimated testing time 10s (1 benchmarks x 10s). Change using '-quota'.\n┌{}┬────────────┐\n│ {n:<w$} │ {time:>10} │\n└{}┴────────────┘",
            "─".repeat(w + 2),
            "─".repeat(w + 2)
        );
        let st = step(
            format!("Re-measuring {n} with a longer quota."),
            "bash",
            json!({"command": format!("dune exec --profile release bench/main.exe -- -quota 10 -name {n}")}),
            res,
        );
        o.cand(line, "bench-row", n, st);
    }
    o.push(bar("└", "┴", "┘"));
    bash(
        r.one(&["Running the benchmarks.", "Let me measure it.", ""]),
        format!("dune exec --profile release bench/main.exe -- -quota {quota}"),
        o,
        0,
    )
}

fn fmt_alcotest(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("Testing `Quire'.");
    o.push(format!("This run has ID `{}'.", r.upper_alnum(8)));
    o.blank();
    let suites = [
        "lexer", "parser", "unify", "infer", "schema", "pretty", "eval", "resolve", "diag",
    ];
    let mut fails = Vec::new();
    let mut total = 0;
    'outer: for s in suites {
        for i in 0..r.range(8, 60) {
            if o.size + 800 > target {
                break 'outer;
            }
            total += 1;
            let name = format!(
                "{} {}",
                r.pick(WORDS),
                r.pick(&[
                    "tables", "rows", "aliases", "imports", "strings", "floats", "enums",
                    "records", "arrays", "comments"
                ])
            );
            if r.chance(0.03) && fails.len() < 3 {
                o.push(format!("  [FAIL]        {s:<24}{i:>3}   {name}."));
                fails.push((s, i, name));
            } else {
                o.push(format!("  [OK]          {s:<24}{i:>3}   {name}."));
            }
        }
    }
    for (s, i, name) in &fails {
        o.push("┌──────────────────────────────────────────────────────────────────────────────┐");
        o.push(format!(
            "│ [FAIL]        {s:<24}{i:>3}   {:<36}│",
            format!("{name}.")
        ));
        o.push("└──────────────────────────────────────────────────────────────────────────────┘");
        o.push("ASSERT inferred type");
        o.push("FAIL inferred type");
        o.blank();
        o.push("   Expected: `\"'a -> 'a\"'");
        o.push("   Received: `\"'a -> int\"'");
        o.blank();
        o.push("Raised at Alcotest_engine__Test.check in file \"src/alcotest-engine/test.ml\", line 200, characters 4-19");
        o.push(format!("Called from Quire_test__Test_{s}.test_{} in file \"test/test_{s}.ml\", line {}, characters 2-64", r.pick(ML_IDENTS), r.range(20, 300)));
        o.push("Called from Alcotest_engine__Core.Make.protect_test.(fun) in file \"src/alcotest-engine/core.ml\", line 181, characters 17-23");
        o.push("Called from Alcotest_engine__Monad.Identity.catch in file \"src/alcotest-engine/monad.ml\", line 24, characters 31-35");
        o.blank();
        o.push(format!(
            "Logs saved to `{}/_build/default/test/_build/_tests/Quire/{s}.{i:03}.output'.",
            cx.cwd.replace(&cx.home, "~")
        ));
        o.push(" ──────────────────────────────────────────────────────────────────────────────");
        o.blank();
    }
    o.push(format!(
        "Full test results in `{}/_build/default/test/_build/_tests/Quire'.",
        cx.cwd.replace(&cx.home, "~")
    ));
    if fails.is_empty() {
        o.push(format!(
            "Test Successful in {:.3}s. {total} tests run.",
            r.fl(0.1, 3.0)
        ));
    } else {
        o.push(format!(
            "{} failure{}! in {:.3}s. {total} tests run.",
            fails.len(),
            if fails.len() == 1 { "" } else { "s" },
            r.fl(0.1, 3.0)
        ));
    }
    bash(
        r.one(&["Running the tests.", "Let me run the test suite.", ""]),
        "dune test 2>&1".into(),
        o,
        if fails.is_empty() { 0 } else { 1 },
    )
}

fn fmt_lsp_ml(r: &mut Rng, cx: &Ctx, target: usize) -> Call {
    let mut o = Out::default();
    o.push("ocamllsp 1.17.0 (merlin 4.14-501), workspace quire");
    let (mut e, mut w) = (0, 0);
    let mut files = HashSet::new();
    while o.size + 100 < target {
        let p = ml_path(r);
        files.insert(p.clone());
        let l = r.range(3, 700);
        let c1 = r.range(0, 30);
        let l2 = if r.chance(0.2) { l + r.range(1, 6) } else { l };
        let c2 = c1 + r.range(3, 40);
        let id = *r.pick(ML_IDENTS);
        let (sev, msg) = match r.below(7) {
            0 => (
                "warning",
                format!(
                    "Warning 27 [unused-var-strict]: unused variable {}.",
                    r.pick(&["env", "loc", "ty", "acc", "row"])
                ),
            ),
            1 => (
                "warning",
                format!("Warning 32 [unused-value-declaration]: unused value {id}."),
            ),
            2 => ("error", format!("Unbound value {id}")),
            3 => (
                "error",
                "This expression has type Types.row but an expression was expected of type Types.t"
                    .to_string(),
            ),
            4 => (
                "warning",
                format!(
                    "Warning 8 [partial-match]: this pattern-matching is not exhaustive. Here is an example of a case that is not matched: {} (_, _)",
                    r.pick(&["Tforall", "Trecord", "Tvariant", "Talias"])
                ),
            ),
            5 => ("hint", "unused open Result.Syntax.".to_string()),
            _ => (
                "warning",
                "Warning 69 [unused-field]: record field loc is never read.".to_string(),
            ),
        };
        if sev == "error" {
            e += 1;
        } else {
            w += 1;
        }
        let key = format!("{p}:{l}:{c1}-{l2}:{c2}");
        let st = read_step(r, cx, &key, &p, l, Some(id));
        o.cand(format!("{key}: {sev}: {msg}"), "lsp-diagnostic", key, st);
    }
    o.blank();
    o.push(format!(
        "{} diagnostics ({e} errors, {w} warnings and hints) in {} files",
        e + w,
        files.len()
    ));
    Call {
        intro: r
            .pick(&[
                "Let me ask ocamllsp for diagnostics.",
                "Checking the workspace diagnostics.",
                "",
            ])
            .to_string(),
        tool: "lsp_diagnostics",
        args: json!({"path": "lib", "minSeverity": "hint"}),
        out: o,
        exit: 0,
        trunc: Trunc::Head,
    }
}

// ---------------------------------------------------------------------------------------------
// The formats of each project
// ---------------------------------------------------------------------------------------------

type FmtFn = fn(&mut Rng, &Ctx, usize) -> Call;

#[derive(Clone, Copy)]
struct Fmt {
    f: FmtFn,
    /// Plausible output sizes of the format, in bytes.
    min: usize,
    max: usize,
    /// May run twice in one session (another pattern, another scope).
    repeat: bool,
}

const fn fmt(f: FmtFn, min: usize, max: usize, repeat: bool) -> Fmt {
    Fmt {
        f,
        min,
        max,
        repeat,
    }
}

fn formats(p: Proj) -> Vec<Fmt> {
    let mut v = vec![
        fmt(fmt_git_log, 2_000, 24_000, false),
        fmt(fmt_grep, 2_000, 40_000, true),
        fmt(fmt_find, 2_000, 24_000, false),
    ];
    v.extend(match p {
        Proj::Dotnet => vec![
            fmt(fmt_dotnet_test, 6_000, 60_000, false),
            fmt(fmt_ef_migrations, 2_000, 7_000, false),
            fmt(fmt_compose_logs, 8_000, 60_000, true),
            fmt(fmt_nuget_outdated, 3_000, 20_000, false),
            fmt(fmt_lsp_net, 2_000, 30_000, true),
            fmt(fmt_dotnet_build, 4_000, 40_000, false),
        ],
        Proj::Rails => vec![
            fmt(fmt_rspec, 6_000, 60_000, false),
            fmt(fmt_rails_log, 8_000, 60_000, true),
            fmt(fmt_migrate_status, 2_000, 9_000, false),
            fmt(fmt_rubocop, 3_000, 40_000, false),
            fmt(fmt_routes, 4_000, 22_000, false),
        ],
        Proj::Swift => vec![
            fmt(fmt_xcpretty_test, 5_000, 50_000, false),
            fmt(fmt_crash, 4_000, 30_000, true),
            fmt(fmt_swiftlint, 3_000, 40_000, false),
            fmt(fmt_package_resolved, 3_000, 12_000, false),
            fmt(fmt_xcodebuild_raw, 6_000, 60_000, false),
        ],
        Proj::Godot => vec![
            fmt(fmt_scons, 6_000, 60_000, false),
            fmt(fmt_gut, 4_000, 40_000, false),
            fmt(fmt_perf, 4_000, 40_000, false),
            fmt(fmt_godot_log, 4_000, 50_000, true),
        ],
        Proj::Ocaml => vec![
            fmt(fmt_dune_build, 3_000, 30_000, false),
            fmt(fmt_opam_list, 3_000, 9_000, false),
            fmt(fmt_bench, 3_000, 20_000, false),
            fmt(fmt_alcotest, 4_000, 40_000, false),
            fmt(fmt_lsp_ml, 2_000, 30_000, true),
        ],
    });
    v
}

// ---------------------------------------------------------------------------------------------
// Prose
// ---------------------------------------------------------------------------------------------

fn task_prompt(p: Proj) -> &'static [&'static str] {
    match p {
        Proj::Dotnet => &[
            "The tendering integration tests started failing after we moved to the new rate card rules. Can you figure out why and get them green again?",
            "Dock appointment booking got slow in staging this week. Please find out where the time goes and propose a fix.",
            "We need to upgrade the EF Core packages and make sure nothing in the dispatch API regresses. Start by looking at the current state.",
            "Carriers are complaining that expired tenders still show as pending. Investigate and fix it.",
        ],
        Proj::Rails => &[
            "Patrons at two branches can renew books past the renewal limit. Track down why and fix it with tests.",
            "The hold queue sometimes skips people when a copy comes back. Please look into it.",
            "Overdue notices went out twice last night. Find out what happened.",
            "Late fees look off by a few cents for some patrons. Can you investigate?",
        ],
        Proj::Swift => &[
            "The pantry list sorts items by expiry wrongly after a sync. Can you find the cause and fix it?",
            "We have a crash spike in the latest TestFlight build around the barcode scanner. Please investigate.",
            "Meal plan drag and drop loses items when you move them across weeks. Look into it.",
            "Clean up the lint warnings and the flaky tests before we cut the release branch.",
        ],
        Proj::Godot => &[
            "The game hitches whenever new chunks stream in. Find out what is slow and fix it.",
            "Light leaks across chunk borders in the ashlands. Investigate and fix it.",
            "Inventory stacks sometimes duplicate items after a reload. Please dig in.",
            "Get the test suite green again and look at the warnings in the extension build.",
        ],
        Proj::Ocaml => &[
            "Row unification rejects some valid configs after the last refactor. Can you find out why?",
            "The checker got noticeably slower on big config files. Profile it and find the regression.",
            "Error spans for nested tables point at the wrong place. Please investigate and fix.",
            "Upgrade the dependencies in the switch and make sure everything still builds and passes.",
        ],
    }
}

const MID_PROMPTS: &[&str] = &[
    "Also keep an eye on anything that looks related to the last release.",
    "While you are at it, note anything else that looks broken, but don't fix it yet.",
    "Take your time, I'd rather have the full picture first.",
    "Can you also check the other places this could come from?",
    "Keep going, and tell me if you need access to anything.",
];

const CLOSING: &[&str] = &[
    "I have a clearer picture now. A few entries in that output are worth following up on, and I can go through them one by one.",
    "That narrows it down. Several entries above look relevant, and I'd like to check each of them next.",
    "The output confirms the pattern. I'll follow up on the relevant entries next unless you want something else first.",
    "Good, that is enough context. Next I would check the specific entries that stood out.",
];

const PAUSES: &[&str] = &[
    "That gives me a first overview. Let me keep digging before I change anything.",
    "Noted. There is more to check before I can say where this comes from.",
    "Okay, that rules out the obvious cause.",
];

const REQUESTS: &[&str] = &[
    "Before you touch anything else, what does the working tree look like right now?",
    "Quick check first: which files have changed so far?",
    "Hold on, is the branch still clean apart from your edits?",
    "Before going further, show me the current state of the repository.",
    "Wait, did anything get modified already? Show me before you continue.",
];

const OPENERS: &[&str] = &[
    "Thanks. Now go ahead and follow up on the things you found earlier, one at a time.",
    "Looks fine. Continue with the entries you flagged in that output.",
    "Good. Please go through what you spotted before and check each one.",
    "Alright, carry on with the leads from the earlier output.",
];

const FINALS: &[&str] = &[
    "That covers the entries from earlier. Each check came back as expected, so I can start on the actual fix next.",
    "All of those are checked now. Want me to write up the fix, or keep investigating?",
    "Done with the follow-ups. The results line up with what the first run showed.",
];

fn thinking(r: &mut Rng, p: Proj, used: &mut HashSet<usize>) -> Option<String> {
    let a: &[&str] = match p {
        Proj::Dotnet => &[
            "The failures cluster around tendering; the rate card lookup is a likely suspect, but I should confirm with the logs before editing anything.",
            "EF Core might be splitting or not splitting the query here. I need the actual SQL and timings first.",
            "If the expiry sweeper and the controller disagree on the time zone, that would explain pending tenders.",
        ],
        Proj::Rails => &[
            "The renewal limit is probably checked per branch rather than per patron. Let me confirm with the specs and the log.",
            "Duplicate notices suggest the job got enqueued twice; the log should show two performs.",
            "Rounding of cents could differ between the fee calculator and the view helper.",
        ],
        Proj::Swift => &[
            "The sort probably uses the local date while sync writes UTC; I should check the store and the tests.",
            "The crash is a trap in Swift code, likely an index out of range or a force unwrap. The report will say which frames are ours.",
            "Moving items across weeks may rebuild the slot identifiers, which would explain lost items.",
        ],
        Proj::Godot => &[
            "Hitches on streaming usually mean meshing on the main thread. The profile should show which functions dominate.",
            "Light leaking at borders smells like the neighbor lookup using the wrong chunk coordinates.",
            "Duplication after reload could come from the save codec writing stacks twice. Tests first.",
        ],
        Proj::Ocaml => &[
            "Row unification might not normalize before comparing labels. The diagnostics should hint at where.",
            "A slowdown on big files suggests something quadratic in the parser or in alias expansion.",
            "Spans for nested tables are probably merged in the wrong order.",
        ],
    };
    let all: Vec<&str> = a.iter().chain(GENERIC_THOUGHTS).copied().collect();
    let i = r.below(all.len());
    used.insert(i).then(|| all[i].to_string())
}

const GENERIC_THOUGHTS: &[&str] = &[
    "I should not guess here; the next output will tell me more than reading code blindly.",
    "Before editing anything I want the full list, so I can see whether this is one bug or several.",
    "The simplest explanation would be a recent change. The history might confirm it.",
    "This could also be environmental. Worth ruling out before touching code.",
    "If the failures share one code path, fixing that path should clear most of them.",
];

// ---------------------------------------------------------------------------------------------
// Small tool calls
// ---------------------------------------------------------------------------------------------

struct Small {
    intro: String,
    tool: &'static str,
    args: Value,
    result: String,
    error: bool,
    details: Option<Value>,
}

fn small_step(r: &mut Rng, cx: &Ctx) -> Small {
    let path = cx.src_path(r);
    match r.below(7) {
        0 | 1 => {
            let id = cx.ident(r);
            let old = cx.code_line_at(r, &path, &id);
            let mut new = old.clone();
            new.push_str(match cx.p {
                Proj::Dotnet | Proj::Swift => " // checked",
                Proj::Rails => " # checked",
                Proj::Godot => " # checked",
                Proj::Ocaml => " (* checked *)",
            });
            let n = r.range(8, 300);
            let ctx_a = cx.plain_line_at(r, &path);
            let ctx_b = cx.plain_line_at(r, &path);
            let diff = format!(
                "  {:>3} {ctx_a}\n-{n:>3} {old}\n+{n:>3} {new}\n  {:>3} {ctx_b}",
                n - 1,
                n + 1
            );
            Small {
                intro: r
                    .pick(&["Making that change.", "Editing it.", "Small fix first."])
                    .to_string(),
                tool: "edit",
                args: json!({"path": path, "oldText": old, "newText": new}),
                result: format!("Successfully replaced text in {path}."),
                error: false,
                details: Some(json!({"diff": diff})),
            }
        }
        2 => {
            let (path, content) = cx.test_file(r);
            Small {
                intro: "Adding a regression test.".to_string(),
                tool: "write",
                args: json!({"path": path, "content": content}),
                result: format!("Successfully wrote {} bytes to {path}", content.len()),
                error: false,
                details: None,
            }
        }
        3 => Small {
            intro: String::new(),
            tool: "read",
            args: json!({"path": format!("{path}.orig")}),
            result: format!(
                "ENOENT: no such file or directory, access '{}/{path}.orig'",
                cx.cwd
            ),
            error: true,
            details: Some(json!({})),
        },
        4 => {
            let dir = path.rsplit_once('/').map_or(".", |x| x.0).to_string();
            let entries = cx.listing(r, &dir);
            Small {
                intro: r
                    .pick(&["Let me see what's in that folder.", ""])
                    .to_string(),
                tool: "ls",
                args: json!({"path": dir}),
                result: entries.join("\n"),
                error: false,
                details: None,
            }
        }
        5 => {
            let (cmd, out) = match cx.p {
                Proj::Dotnet => ("dotnet --version", "8.0.204".to_string()),
                Proj::Rails => (
                    "bin/rails runner 'puts Loan.overdue.count'",
                    r.range(3, 90).to_string(),
                ),
                Proj::Swift => (
                    "xcrun simctl list devices booted",
                    format!(
                        "== Devices ==\n-- iOS 17.4 --\n    iPhone 15 ({}) (Booted)",
                        format!(
                            "{}-{}-{}-{}-{}",
                            r.hex(8),
                            r.hex(4),
                            r.hex(4),
                            r.hex(4),
                            r.hex(12)
                        )
                        .to_uppercase()
                    ),
                ),
                Proj::Godot => (
                    "godot --version",
                    "4.2.2.stable.official.15073afe3".to_string(),
                ),
                Proj::Ocaml => (
                    "opam switch show && dune --version",
                    "5.1.1\n3.15.0".to_string(),
                ),
            };
            Small {
                intro: String::new(),
                tool: "bash",
                args: json!({"command": cmd}),
                result: out,
                error: false,
                details: None,
            }
        }
        _ => {
            let (cmd, out) = match cx.p {
                Proj::Dotnet => (
                    format!("dotnet format --verify-no-changes --include {path}"),
                    format!(
                        "{}/{path}(12,1): error WHITESPACE: Fix whitespace formatting. Replace 9 characters with '\\n\\s\\s\\s\\s\\s\\s\\s\\s'.",
                        cx.cwd
                    ),
                ),
                Proj::Rails => (
                    format!("ruby -c {path}"),
                    format!(
                        "{path}:{}: syntax error, unexpected `end', expecting end-of-input",
                        r.range(10, 90)
                    ),
                ),
                Proj::Swift => (
                    format!("swiftc -parse {path}"),
                    format!(
                        "{path}:{}:{}: error: expected '}}' in struct",
                        r.range(10, 200),
                        r.range(1, 5)
                    ),
                ),
                Proj::Godot => (
                    format!("godot --headless --check-only --script {path}"),
                    format!(
                        "SCRIPT ERROR: Parse Error: Expected end of statement after expression, got \"Identifier\" instead.\n          at: GDScript::reload (res://{path}:{})",
                        r.range(10, 200)
                    ),
                ),
                Proj::Ocaml => (
                    "dune build @fmt".to_string(),
                    format!(
                        "File \"{path}\", line 1, characters 0-0:\nError: Files _build/default/{path} and _build/default/{path}.formatted differ."
                    ),
                ),
            };
            Small {
                intro: r.pick(&["Quick sanity check.", ""]).to_string(),
                tool: "bash",
                args: json!({"command": cmd}),
                result: format!("{out}\n\nCommand exited with code {}", r.pick(&[1, 2])),
                error: true,
                details: Some(json!({})),
            }
        }
    }
}

/// The prefix's last call: a small look at the working tree.
fn final_small(r: &mut Rng, cx: &Ctx) -> (String, Value, String) {
    let mut paths: Vec<String> = (0..r.range(1, 4)).map(|_| cx.src_path(r)).collect();
    paths.sort();
    paths.dedup();
    if r.chance(0.5) {
        let mut s = format!("## {b}...origin/{b}", b = cx.branch);
        for p in &paths {
            s.push_str(&format!("\n M {p}"));
        }
        if r.chance(0.4) {
            s.push_str(&format!("\n?? {}", cx.src_path(r)));
        }
        (
            "git status --short --branch".to_string(),
            json!({"command": "git status --short --branch"}),
            s,
        )
    } else {
        let mut s = String::new();
        let (mut ins, mut del) = (0, 0);
        for p in &paths {
            let a = r.range(1, 30);
            let d = r.range(0, 12);
            ins += a;
            del += d;
            s.push_str(&format!(
                " {p} | {:>2} {}{}\n",
                a + d,
                "+".repeat(a.min(20)),
                "-".repeat(d.min(10))
            ));
        }
        s.push_str(&format!(
            " {} file{} changed, {ins} insertions(+), {del} deletions(-)",
            paths.len(),
            if paths.len() == 1 { "" } else { "s" }
        ));
        (
            "git diff --stat".to_string(),
            json!({"command": "git diff --stat"}),
            s,
        )
    }
}

fn tool_ms(r: &mut Rng, tool: &str, bytes: usize) -> u64 {
    match tool {
        "bash" => r.range(300, 4_000) as u64 + (bytes as u64 / 3).min(90_000),
        "read" | "ls" | "edit" | "write" => r.range(3, 60) as u64,
        "grep" | "find" => r.range(30, 900) as u64,
        _ => r.range(400, 4_000) as u64,
    }
}

// ---------------------------------------------------------------------------------------------
// One session
// ---------------------------------------------------------------------------------------------

struct BigOut {
    text: String,
    cands: Vec<Cand>,
}

/// Candidates of one template in one output: ((output, kind), [(candidate, label)]).
type Group = ((usize, &'static str), Vec<(usize, &'static str)>);

const GENERIC_KINDS: &[&str] = &["git-commit", "grep-hit", "find-path"];

fn build(r: &mut Rng, seed: u64, index: usize) -> Result<Generated, String> {
    let p = PROJECTS[(index + (seed % 5) as usize) % 5];
    let t0 = 1_748_736_000_000
        + r.below(270) as u64 * 86_400_000
        + r.range(6 * 3_600_000, 20 * 3_600_000) as u64;
    let cx = Ctx::new(r, p, t0);
    let mut w = Writer::new(r, &cx.cwd, t0);
    let calls = r.range(9, 16);
    let pre = calls - 1;
    let n_big = ((pre as f64 * r.fl(0.6, 0.8)).round() as usize).clamp(5, pre);
    let mut is_big = vec![false; pre];
    is_big[pre - 1] = true;
    // The session opens with a big output (a test run, a log, a listing...).
    is_big[0] = true;
    let mut idx: Vec<usize> = (1..pre - 1).collect();
    r.shuffle(&mut idx);
    for &i in idx.iter().take(n_big.saturating_sub(2)) {
        is_big[i] = true;
    }
    let fmts = formats(p);
    let mut order: Vec<usize> = (0..fmts.len()).collect();
    r.shuffle(&mut order);
    let mut used = vec![0usize; fmts.len()];
    w.user(r.one(task_prompt(p)));
    let mid = if r.chance(0.5) {
        Some(r.range(2, pre - 2))
    } else {
        None
    };
    let mut bigs: Vec<BigOut> = Vec::new();
    let mut next = 0usize;
    let mut thoughts = HashSet::new();
    for (i, &big) in is_big.iter().enumerate() {
        if Some(i) == mid {
            w.assistant(None, r.one(PAUSES), None);
            w.user(r.one(MID_PROMPTS));
        }
        let think = if r.chance(0.3) {
            thinking(r, p, &mut thoughts)
        } else {
            None
        };
        if big {
            let last = i == pre - 1;
            // The next format in the shuffled order that may still run.
            let mut fi = None;
            for k in 0..fmts.len() * 2 {
                let c = order[(next + k) % fmts.len()];
                let f = fmts[c];
                if (used[c] == 0 || f.repeat) && used[c] < 2 && (!last || f.max >= 16_000) {
                    fi = Some(c);
                    next += k + 1;
                    break;
                }
            }
            let fi = fi.ok_or("no format left")?;
            used[fi] += 1;
            let f = fmts[fi];
            let lo = if last { 16_000 } else { f.min.max(2_000) } as f64;
            let hi = f.max.min(60_000) as f64;
            let size = r.log_uniform(lo, hi.max(lo + 1.0)) as usize;
            let call = (f.f)(r, &cx, size);
            let tool = call.tool;
            let args = call.args.clone();
            let intro = call.intro.clone();
            let rend = render(r, call);
            let id = w
                .assistant(think.as_deref(), &intro, Some((tool, &args)))
                .ok_or("no call id")?;
            let ms = tool_ms(r, tool, rend.text.len());
            w.tool_result(&id, tool, &rend.text, rend.error, rend.details.clone(), ms);
            bigs.push(BigOut {
                text: rend.text,
                cands: rend.cands,
            });
        } else {
            let s = small_step(r, &cx);
            let id = w
                .assistant(think.as_deref(), &s.intro, Some((s.tool, &s.args)))
                .ok_or("no call id")?;
            let ms = tool_ms(r, s.tool, s.result.len());
            w.tool_result(&id, s.tool, &s.result, s.error, s.details, ms);
        }
    }
    // The kept tail: a closing text, a words-only request, a small call and its result.
    w.assistant(None, r.one(CLOSING), None);
    w.user(r.one(REQUESTS));
    let (_, args, result) = final_small(r, &cx);
    let intro = *r.pick(&["Checking.", "Sure, one moment.", ""]);
    let id = w
        .assistant(None, intro, Some(("bash", &args)))
        .ok_or("no call id")?;
    let ms = r.range(20, 200) as u64;
    w.tool_result(&id, "bash", &result, false, None, ms);
    let cut = w.lines.len();

    // Needles and distractors.
    let body = w.lines.join("\n");
    let mut groups: Vec<Group> = Vec::new();
    for (oi, b) in bigs.iter().enumerate() {
        let lines: Vec<&str> = b.text.lines().collect();
        let n = lines.len();
        for (ci, c) in b.cands.iter().enumerate() {
            let Some(line) = lines.get(c.line) else {
                continue;
            };
            if !distinctive_iter(line).any(|t| t == c.key)
                || body.matches(c.key.as_str()).count() != 1
                || body.matches(escaped(line).as_str()).count() != 1
            {
                continue;
            }
            let lab = band(c.line, n);
            match groups.iter_mut().find(|g| g.0 == (oi, c.kind)) {
                Some(g) => g.1.push((ci, lab)),
                None => groups.push(((oi, c.kind), vec![(ci, lab)])),
            }
        }
    }
    let bands = ["head", "middle", "tail"];
    let start = (index * 4 + seed as usize) % 3;
    let want_n = r.range(3, 5);
    let mut used_kinds: HashSet<&str> = HashSet::new();
    let mut needles: Vec<(Cand, String, &'static str)> = Vec::new();
    let mut distractors: Vec<String> = Vec::new();
    for j in 0..want_n {
        let want = bands[(start + j) % 3];
        let ok = |g: &Group, strict: bool| {
            !used_kinds.contains(g.0.1)
                && g.1.len() >= 3
                && (!strict || g.1.iter().any(|x| x.1 == want))
        };
        let mut opts: Vec<usize> = (0..groups.len())
            .filter(|&i| ok(&groups[i], true))
            .collect();
        if opts.is_empty() {
            opts = (0..groups.len())
                .filter(|&i| ok(&groups[i], false))
                .collect();
        }
        // Mostly the project's own formats; the generic ones (history, search, listing) less.
        let own: Vec<usize> = opts
            .iter()
            .copied()
            .filter(|&i| !GENERIC_KINDS.contains(&groups[i].0.1))
            .collect();
        if !own.is_empty() && r.chance(0.75) {
            opts = own;
        }
        if opts.is_empty() {
            break;
        }
        let gi = opts[r.below(opts.len())];
        let ((oi, kind), members) = &groups[gi];
        let mut pool: Vec<usize> = (0..members.len())
            .filter(|&m| members[m].1 == want)
            .collect();
        if pool.is_empty() {
            pool = (0..members.len()).collect();
        }
        let m = pool[r.below(pool.len())];
        let lines: Vec<&str> = bigs[*oi].text.lines().collect();
        let cand = bigs[*oi].cands[members[m].0].clone();
        let line = lines[cand.line].to_string();
        let mut rest: Vec<usize> = (0..members.len()).filter(|&x| x != m).collect();
        r.shuffle(&mut rest);
        let k = r.range(2, 4).min(rest.len());
        for &x in rest.iter().take(k) {
            let c = &bigs[*oi].cands[members[x].0];
            distractors.push(lines[c.line].to_string());
        }
        used_kinds.insert(kind);
        needles.push((cand, line, members[m].1));
    }
    if needles.len() < 3 {
        return Err(format!("only {} needles", needles.len()));
    }

    // The later part: the user, then one follow-up per needle, then a closing text.
    w.user(r.one(OPENERS));
    let mut order: Vec<usize> = (0..needles.len()).collect();
    r.shuffle(&mut order);
    for &i in &order {
        let st = needles[i].0.step.clone();
        let id = w
            .assistant(None, &st.say, Some((st.tool, &st.args)))
            .ok_or("no call id")?;
        let ms = tool_ms(r, st.tool, st.result.len());
        w.tool_result(&id, st.tool, &st.result, st.error, None, ms);
    }
    w.assistant(None, r.one(FINALS), None);

    let g = Generated {
        name: format!("veiled-{seed}-{index:03}"),
        lines: w.lines,
        cut_line: cut,
        needles: needles
            .iter()
            .map(|(c, l, lab)| (c.kind.to_string(), l.clone(), lab.to_string()))
            .collect(),
        distractors,
    };
    validate(
        &g,
        &needles.iter().map(|x| x.0.key.clone()).collect::<Vec<_>>(),
    )?;
    Ok(g)
}

/// The rules every session keeps (see the module header).
fn validate(g: &Generated, keys: &[String]) -> Result<(), String> {
    let body = g.lines[..g.cut_line].join("\n");
    let later = g.lines[g.cut_line..].join("\n");
    let count = |t: &str| body.matches(t).count();
    for ((kind, line, _), key) in g.needles.iter().zip(keys) {
        if count(&escaped(line)) != 1 {
            return Err(format!("{kind}: needle line not once in the prefix"));
        }
        if count(key) != 1 || !later.contains(key.as_str()) {
            return Err(format!("{kind}: `{key}` not once before and used later"));
        }
    }
    let mut seen = HashSet::new();
    for d in &g.distractors {
        if !seen.insert(d) || g.needles.iter().any(|n| &n.1 == d) {
            return Err("distractor repeated or a needle".into());
        }
        if count(&escaped(d)) != 1 {
            return Err(format!("distractor `{d}` not once in the prefix"));
        }
        if !distinctive_iter(d).any(|t| count(t) == 1) {
            return Err(format!("distractor `{d}` holds nothing of its own"));
        }
        if distinctive_iter(d).any(|t| count(t) == 1 && later.contains(t)) {
            return Err(format!("distractor `{d}` used later"));
        }
    }
    // The request of the kept tail is words only.
    let ask: Value = serde_json::from_str(&g.lines[g.cut_line - 3]).map_err(|e| e.to_string())?;
    let text = ask["message"]["content"][0]["text"]
        .as_str()
        .unwrap_or("x_1");
    if ask["message"]["role"] != "user" || distinctive_iter(text).count() > 0 {
        return Err("the last request is not words only".into());
    }
    // The last big output (the second-to-last result) is large.
    let results: Vec<String> = g.lines[..g.cut_line]
        .iter()
        .filter_map(|l| {
            let e: Value = serde_json::from_str(l).ok()?;
            (e["message"]["role"] == "toolResult").then(|| {
                e["message"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
        })
        .collect();
    if !(9..=16).contains(&results.len()) {
        return Err(format!("{} calls", results.len()));
    }
    let last_big = results.iter().rev().nth(1).ok_or("no results")?;
    if harness::tokens_of(last_big) < 2_600 {
        return Err("last big output too small".into());
    }
    // Labels are the needles' places.
    for (kind, line, label) in &g.needles {
        let out = results
            .iter()
            .find(|o| o.lines().any(|x| x == line))
            .ok_or(format!("{kind}: not a line of an output"))?;
        let n = out.lines().count();
        let at = out.lines().position(|x| x == line).unwrap_or(0);
        if band(at, n) != label {
            return Err(format!("{kind}: label"));
        }
    }
    Ok(())
}

/// Session `index` of `seed` (deterministic; redrawn from derived seeds until it keeps every
/// rule).
pub fn generate_one(seed: u64, index: usize) -> Generated {
    let mut last = String::new();
    for attempt in 0..400u64 {
        let mut r = Rng::new(mix(seed, index as u64, attempt));
        match build(&mut r, seed, index) {
            Ok(g) => return g,
            Err(e) => last = e,
        }
    }
    panic!(
        "veiled.rs: no valid session for seed {seed}, index {index} in 400 draws (last: {last})"
    );
}

/// Write `n` sessions of `seed` under `work` and return their needle cases.
pub fn specs(seed: u64, n: usize, work: &Path) -> anyhow::Result<Vec<CaseSpec>> {
    harness::needle_specs(work, "veiled", n, |i| {
        let g = generate_one(seed, i);
        (g.name, g.lines, g.cut_line, g.needles, g.distractors)
    })
}
