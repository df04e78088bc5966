//! Blind needle sessions for the compaction-quality harness (`--blind N`): a held-out set
//! written WITHOUT reading the other needle generators (`quality/heldout.rs`, `quality/fresh.rs`,
//! `examples/needles*`) or pi-shake's compactor and scorer (`src/`), so nothing here is shaped
//! by what they plant or look for. Only the harness (`quality/harness.rs`), pi's session format
//! and the fixture sessions' entry shapes were consulted.
//!
//! Each session is one coding task in one of six projects: a GHC core-to-core plugin
//! (Haskell/cabal), a Laravel CMS (PHP/composer), a Terraform + Ansible homelab, a Zig archiver
//! CLI, a Java Spring Boot shift-scheduling service (Maven), and a Flutter hiking app (Dart). The
//! agent makes 8–16 big tool calls (outputs of 2–80 KB, log-uniform) and 2–4 small ones, through
//! pi's `read`, `bash`, `grep`, `find`, `ls`, `edit`, `write` and two custom tools, `web_fetch`
//! and `mcp__github__search_issues`; now and then a thinking block, now and then a failing call
//! (`isError`). Output formats: source reads, compiler / type-checker diagnostics, test-runner
//! output, CI job logs, `curl -i` JSON API responses, fetched HTML release notes as text,
//! BuildKit docker build logs, Postgres `EXPLAIN ANALYZE` plans, `git blame -l`, `git diff`,
//! `strace`, `journalctl`, dependency audits, coverage tables, YAML manifests, GitHub issue
//! search JSON, `grep -rn` hits and `find` listings.
//!
//! 3–5 big outputs hold one needle line each. Needle kinds: a function signature, a diagnostic
//! location, the one failing test, a CI cache key, an API request id, a release version, an
//! image digest, a plan's index name, a commit, an added diff line, a file path opened by a
//! traced process, an environment value in a service log, an advisory id, a missed-lines range
//! in a coverage table, a config value, an issue URL, an internal URL, an archive path. A
//! needle's position label is `head` (first 20% of its output's lines), `tail` (last 20%) or
//! `middle`, drawn uniformly inside the band. Every big output also holds 2–4 look-alike
//! distractor lines (the needle's own template with other values) that nothing uses later.
//! Needle lines are ordinary lines of their format: body lines carry as many distinctive
//! strings, and error words are no likelier in them than around them.
//!
//! The prefix ends with the user asking, in words only, for the next step, and one small tool
//! call. The later part (from `cut_line`) opens with a user "Go ahead."; then for each needle
//! the agent quotes one distinctive string of the needle line that occurs nowhere else in the
//! prefix, and gets a small result.

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use super::harness::{self, CaseSpec, distinctive_iter, is_distinctive};

/// One generated session.
pub struct Generated {
    pub name: String,
    pub lines: Vec<String>,
    /// Index of the first line of the later part (a user message).
    pub cut_line: usize,
    /// (kind, whole needle line, label: head | middle | tail).
    pub needles: Vec<(String, String, String)>,
    pub distractors: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// A tiny deterministic RNG (splitmix64)
// ---------------------------------------------------------------------------------------------

pub struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut r = Rng(seed ^ 0x6a09_e667_f3bc_c908);
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        harness::splitmix64(&mut self.0)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
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
    fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16)]))
            .collect()
    }
    fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n).map(|_| char::from(A[self.below(A.len())])).collect()
    }
    /// Log-uniform in `lo..hi`.
    fn log_uniform(&mut self, lo: f64, hi: f64) -> usize {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp() as usize
    }
}

fn mix(a: u64, b: u64) -> u64 {
    Rng::new(a ^ b.wrapping_mul(0xff51_afd7_ed55_8ccd)).next()
}

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of epoch milliseconds (civil-from-days).
fn iso(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        ms % 1000
    )
}

// ---------------------------------------------------------------------------------------------
// The session writer
// ---------------------------------------------------------------------------------------------

struct Model {
    api: &'static str,
    provider: &'static str,
    model: &'static str,
    call_prefix: &'static str,
}

const MODELS: &[Model] = &[
    Model {
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        call_prefix: "toolu_01",
    },
    Model {
        api: "openai-responses",
        provider: "openai",
        model: "gpt-5.1-codex",
        call_prefix: "call_",
    },
    Model {
        api: "google-generative-ai",
        provider: "google",
        model: "gemini-2.5-pro",
        call_prefix: "fc_",
    },
];

struct Session {
    lines: Vec<String>,
    ids: HashSet<String>,
    parent: Value,
    ms: u64,
    model: &'static Model,
}

impl Session {
    fn new(r: &mut Rng, cwd: &str) -> Session {
        // Some day of 2026.
        let ms = 1_767_225_600_000 + r.below(360) as u64 * 86_400_000 + r.below(86_400_000) as u64;
        let model = r.pick(MODELS);
        let id = format!(
            "{:08x}-{}-7{}-{}-{}",
            ms / 65_536,
            r.hex(4),
            r.hex(3),
            r.hex(4),
            r.hex(12)
        );
        let head =
            json!({"type": "session", "version": 3, "id": id, "timestamp": iso(ms), "cwd": cwd});
        let mut s = Session {
            lines: vec![head.to_string()],
            ids: HashSet::new(),
            parent: Value::Null,
            ms,
            model,
        };
        s.push(
            r,
            json!({"type": "model_change", "provider": model.provider, "modelId": model.model}),
        );
        let level = *r.pick(&["low", "medium", "high"]);
        s.push(
            r,
            json!({"type": "thinking_level_change", "thinkingLevel": level}),
        );
        s
    }

    /// Append an entry: id, parentId and timestamp are filled in (and the message's epoch ms).
    fn push(&mut self, r: &mut Rng, body: Value) {
        self.ms += r.range(40, 9_000) as u64;
        let id = loop {
            let h = r.hex(8);
            if self.ids.insert(h.clone()) {
                break h;
            }
        };
        let mut e = serde_json::Map::new();
        e.insert("type".into(), body["type"].clone());
        e.insert("id".into(), json!(id));
        e.insert("parentId".into(), self.parent.clone());
        e.insert("timestamp".into(), json!(iso(self.ms)));
        if let Value::Object(m) = body {
            for (k, v) in m {
                if k != "type" {
                    e.insert(k, v);
                }
            }
        }
        if let Some(Value::Object(m)) = e.get_mut("message") {
            m.insert("timestamp".into(), json!(self.ms));
        }
        self.parent = json!(id);
        self.lines.push(Value::Object(e).to_string());
    }

    fn user(&mut self, r: &mut Rng, text: &str) {
        let msg = json!({"role": "user", "content": [{"type": "text", "text": text}]});
        self.push(r, json!({"type": "message", "message": msg}));
    }

    fn call_id(&self, r: &mut Rng) -> String {
        format!("{}{}", self.model.call_prefix, r.alnum(22))
    }

    /// An assistant message; `stop` is `toolUse` or `stop`.
    fn assistant(&mut self, r: &mut Rng, content: Vec<Value>, stop: &str) {
        let m = self.model;
        let input = r.range(2_000, 60_000);
        let output = r.range(30, 900);
        let cache_read = r.range(0, input);
        let cost_in = input as f64 * 3e-6;
        let cost_out = output as f64 * 1.5e-5;
        let cost_cr = cache_read as f64 * 3e-7;
        let usage = json!({
            "input": input, "output": output, "cacheRead": cache_read, "cacheWrite": 0,
            "totalTokens": input + output + cache_read,
            "cost": {"input": cost_in, "output": cost_out, "cacheRead": cost_cr, "cacheWrite": 0,
                     "total": cost_in + cost_out + cost_cr}
        });
        let msg = json!({
            "role": "assistant", "content": content, "api": m.api, "provider": m.provider,
            "model": m.model, "usage": usage, "stopReason": stop
        });
        self.push(r, json!({"type": "message", "message": msg}));
    }

    fn tool_result(&mut self, r: &mut Rng, call: &str, tool: &str, text: &str, is_error: bool) {
        let msg = json!({
            "role": "toolResult", "toolCallId": call, "toolName": tool,
            "content": [{"type": "text", "text": text}], "isError": is_error
        });
        self.push(r, json!({"type": "message", "message": msg}));
    }

    /// An assistant step (optional thinking, prose, one tool call) and its result.
    fn step(&mut self, r: &mut Rng, prose: &str, think: Option<&str>, out: &Output) {
        let call = self.call_id(r);
        let mut content = Vec::new();
        if let Some(t) = think {
            let sig = r.alnum(48);
            content.push(json!({"type": "thinking", "thinking": t, "thinkingSignature": sig}));
        }
        if !prose.is_empty() {
            content.push(json!({"type": "text", "text": prose}));
        }
        content
            .push(json!({"type": "toolCall", "id": call, "name": out.tool, "arguments": out.args}));
        self.assistant(r, content, "toolUse");
        self.tool_result(r, &call, out.tool, &out.text, out.is_error);
    }
}

/// One tool call's arguments and result.
struct Output {
    tool: &'static str,
    args: Value,
    text: String,
    is_error: bool,
}

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

const WORDS: &[&str] = &[
    "cache", "index", "batch", "token", "route", "frame", "queue", "scope", "shard", "ledger",
    "window", "budget", "cursor", "bucket", "layer", "buffer", "anchor", "policy", "filter",
    "render", "stream", "signal", "worker", "handle", "bundle", "record", "digest", "marker",
    "socket", "ticket", "header", "offset", "payload", "session", "bridge", "region", "sample",
    "trace", "split", "merge", "flush", "retry", "probe", "guard", "slice", "chunk", "parcel",
    "pivot", "drift", "ghost", "spare", "quota", "lease", "epoch", "vault", "patch", "sketch",
    "thread", "mirror", "harbor", "canvas", "tile", "lane", "node", "edge", "grid", "seed",
];

const AUTHORS: &[&str] = &[
    "Ines Okafor",
    "Tomasz Wrona",
    "Priya Raman",
    "Lukas Brandt",
    "Aiko Tanaka",
    "Mateo Ruiz",
    "Hannah Vogel",
    "Samir Haddad",
    "Jonas Lind",
    "Chloe Martin",
    "Dmitri Sokolov",
    "Nia Adeyemi",
];

fn cap(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

fn words(r: &mut Rng, p: &Project) -> Vec<&'static str> {
    let n = r.range(2, 3);
    let mut v: Vec<&'static str> = Vec::new();
    while v.len() < n {
        let w = if r.chance(0.4) {
            *r.pick(p.words)
        } else {
            *r.pick(WORDS)
        };
        if !v.contains(&w) {
            v.push(w);
        }
    }
    v
}

/// The project's source files (by extension).
fn sources(p: &Project) -> Vec<&'static str> {
    let ext = by_lang(p, [".hs", ".php", ".tf", ".zig", ".java", ".dart"]);
    p.files
        .iter()
        .copied()
        .filter(|f| f.ends_with(ext))
        .collect()
}

/// Expand one placeholder code.
fn expand(r: &mut Rng, p: &Project, code: char) -> String {
    match code {
        'c' => {
            let w = words(r, p);
            w[0].to_string() + &w[1..].iter().map(|x| cap(x)).collect::<String>()
        }
        'C' => words(r, p).iter().map(|x| cap(x)).collect(),
        's' => words(r, p).join("_"),
        'S' => words(r, p).join("_").to_ascii_uppercase(),
        'w' => (*r.pick(WORDS)).to_string(),
        'W' => (*r.pick(p.words)).to_string(),
        'n' => r.range(1, 999).to_string(),
        'N' => r.range(1_000, 99_999).to_string(),
        'd' => format!("{}.{:02}", r.range(0, 99), r.below(100)),
        'm' => r.range(1, 4_000).to_string(),
        'h' => r.hex(7),
        'x' => r.hex(12),
        'H' => r.hex(40),
        'X' => r.hex(64),
        'a' => r.alnum(10),
        'j' => r.range(1, 80).to_string(),
        'y' => r.range(1, 28).to_string(),
        'z' => format!("{}.{}", r.range(1, 9), r.below(10)),
        'R' => {
            let a = r.range(1_000, 9_000);
            format!("{a}-{}", a + r.range(2, 60))
        }
        'M' => format!("{}:{}:{}", r.hex(2), r.hex(2), r.hex(2)).to_ascii_uppercase(),
        'f' => (*r.pick(p.files)).to_string(),
        'e' => (*r.pick(&sources(p))).to_string(),
        'F' => {
            let f = *r.pick(p.files);
            let (dir, ext) = (
                f.rsplit_once('/').map_or("", |x| x.0),
                f.rsplit_once('.').map_or("txt", |x| x.1),
            );
            let w = words(r, p).join("_");
            if dir.is_empty() {
                format!("{w}.{ext}")
            } else {
                format!("{dir}/{w}.{ext}")
            }
        }
        'v' => format!("{}.{}.{}", r.range(0, 9), r.range(0, 30), r.range(0, 40)),
        'V' => {
            let suf = match r.below(3) {
                0 => format!("-rc.{}", r.range(1, 9)),
                1 => format!("+build.{}", r.range(10, 999)),
                _ => format!("-beta.{}", r.range(1, 12)),
            };
            format!(
                "{}.{}.{}{suf}",
                r.range(1, 9),
                r.range(0, 30),
                r.range(0, 40)
            )
        }
        't' => format!(
            "{:02}:{:02}:{:02}",
            r.range(0, 23),
            r.range(0, 59),
            r.range(0, 59)
        ),
        'D' => format!("2026-{:02}-{:02}", r.range(1, 12), r.range(1, 28)),
        'u' => (*r.pick(AUTHORS)).to_string(),
        'q' => (*r.pick(p.deps)).to_string(),
        'i' => format!(
            "10.{}.{}.{}",
            r.range(0, 40),
            r.range(0, 255),
            r.range(2, 254)
        ),
        'r' => p.repo.to_string(),
        'g' => format!(
            "GHSA-{}{}-{}-{}",
            r.range(2, 9),
            r.alnum(3),
            r.alnum(4),
            r.alnum(4)
        )
        .to_ascii_lowercase()
        .replacen("ghsa", "GHSA", 1),
        'k' => unreachable!("handled by tpl"),
        other => other.to_string(),
    }
}

/// Expand a template: `%x` placeholders (see `expand`), `%kx` marks the expansion as the line's
/// key (the string the later part quotes), `%%` is a percent sign.
fn tpl(r: &mut Rng, p: &Project, t: &str) -> (String, Option<String>) {
    let mut out = String::new();
    let mut key = None;
    let mut it = t.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('%') | None => out.push('%'),
            Some('k') => {
                let v = expand(r, p, it.next().unwrap_or('w'));
                out.push_str(&v);
                key = Some(v);
            }
            Some(code) => out.push_str(&expand(r, p, code)),
        }
    }
    (out, key)
}

fn line(r: &mut Rng, p: &Project, t: &str) -> String {
    tpl(r, p, t).0
}

/// Lines from random templates of `tpls` until `bytes` is reached.
fn fill(r: &mut Rng, p: &Project, bytes: usize, tpls: &[&str]) -> Vec<String> {
    let mut v = Vec::new();
    let mut size = 0;
    while size < bytes {
        let t = r_pick(r, tpls);
        let l = line(r, p, t);
        size += l.len() + 1;
        v.push(l);
    }
    v
}

fn r_pick<'a>(r: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[r.below(xs.len())]
}

// ---------------------------------------------------------------------------------------------
// Blocks: one big output with a place for a needle
// ---------------------------------------------------------------------------------------------

/// A big output before placement: fixed head and foot lines, body lines, the needle line of
/// its kind (used only when the output is chosen to hold one) and look-alike lines.
struct Block {
    tool: &'static str,
    args: Value,
    head: Vec<String>,
    body: Vec<String>,
    foot: Vec<String>,
    kind: &'static str,
    needle: String,
    key: Option<String>,
    looks: Vec<String>,
    is_error: bool,
    /// Planting the needle makes the command fail (exit code 1).
    fail_exit: bool,
}

impl Block {
    fn new(tool: &'static str, args: Value, kind: &'static str) -> Block {
        Block {
            tool,
            args,
            head: Vec::new(),
            body: Vec::new(),
            foot: Vec::new(),
            kind,
            needle: String::new(),
            key: None,
            looks: Vec::new(),
            is_error: false,
            fail_exit: false,
        }
    }

    /// The needle from template `t`, and four look-alikes from the same template.
    fn needle_from(mut self, r: &mut Rng, p: &Project, t: &str) -> Block {
        let (l, k) = tpl(r, p, t);
        self.needle = l;
        self.key = k;
        self.looks = (0..4).map(|_| line(r, p, t)).collect();
        self
    }
}

struct Planted {
    kind: String,
    line: String,
    label: &'static str,
    key: Option<String>,
}

fn label_of(idx: usize, n: usize) -> &'static str {
    if idx * 5 < n {
        "head"
    } else if idx * 5 >= 4 * n {
        "tail"
    } else {
        "middle"
    }
}

/// Place 2–4 look-alikes anywhere in the body and, if `want` is given, the needle at a uniform
/// position of that band.
fn place(r: &mut Rng, mut b: Block, want: Option<&str>) -> (Output, Option<Planted>, Vec<String>) {
    if want.is_some() && b.fail_exit && !b.is_error {
        b.is_error = true;
        b.foot.push(String::new());
        b.foot.push("Command exited with code 1".into());
    }
    let mut body = b.body;
    let k = r.range(2, 4).min(b.looks.len());
    let looks: Vec<String> = b.looks.into_iter().take(k).collect();
    for d in &looks {
        let at = r.range(0, body.len());
        body.insert(at, d.clone());
    }
    let mut planted = None;
    if let Some(want) = want {
        let n = b.head.len() + body.len() + 1 + b.foot.len();
        let (lo, hi) = (b.head.len(), b.head.len() + body.len());
        let cands: Vec<usize> = (lo..=hi).filter(|&i| label_of(i, n) == want).collect();
        let idx = if cands.is_empty() {
            r.range(lo, hi)
        } else {
            cands[r.below(cands.len())]
        };
        body.insert(idx - lo, b.needle.clone());
        planted = Some(Planted {
            kind: b.kind.to_string(),
            line: b.needle,
            label: label_of(idx, n),
            key: b.key,
        });
    }
    let mut lines = b.head;
    lines.extend(body);
    lines.extend(b.foot);
    let out = Output {
        tool: b.tool,
        args: b.args,
        text: lines.join("\n"),
        is_error: b.is_error,
    };
    (out, planted, looks)
}

// ---------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------

/// Generate session `index` of `seed` (deterministic).
pub fn generate_one(seed: u64, index: usize) -> Generated {
    let mut attempt = 0u64;
    loop {
        let mut r = Rng::new(mix(mix(seed, index as u64 + 1), attempt));
        if let Some(g) = try_generate(&mut r, seed, index) {
            return g;
        }
        attempt += 1;
    }
}

/// Sessions `0..n` of `seed` written under `work` (`NAME.jsonl`, `NAME.prefix.jsonl`), one case
/// each at keepRecentTokens 1,500.
pub fn specs(seed: u64, n: usize, work: &Path) -> Result<Vec<CaseSpec>> {
    harness::needle_specs(work, "blind", n, |i| {
        let g = generate_one(seed, i);
        (g.name, g.lines, g.cut_line, g.needles, g.distractors)
    })
}

fn try_generate(r: &mut Rng, seed: u64, index: usize) -> Option<Generated> {
    let p = &PROJECTS[((seed % PROJECTS.len() as u64) as usize + index) % PROJECTS.len()];
    let mut s = Session::new(r, p.cwd);
    let task = r_pick(r, p.tasks);
    s.user(r, task);

    // The big calls, their formats, which hold a needle and where.
    let n_big = r.range(8, 16);
    let mut fmts: Vec<Fmt> = Fmt::ALL
        .iter()
        .copied()
        .filter(|f| !p.avoid.contains(f))
        .collect();
    r.shuffle(&mut fmts);
    let plan: Vec<Fmt> = (0..n_big).map(|i| fmts[i % fmts.len()]).collect();
    let n_needles = r.range(3, 5);
    let mut order: Vec<usize> = (0..n_big).collect();
    r.shuffle(&mut order);
    let mut holders: Vec<usize> = Vec::new();
    for i in order {
        if holders.len() < n_needles && !holders.iter().any(|&h| plan[h] == plan[i]) {
            holders.push(i);
        }
    }
    let mut labels = vec!["head", "middle", "tail"];
    while labels.len() < holders.len() {
        labels.push(r_pick(r, &["head", "middle", "tail"]));
    }
    r.shuffle(&mut labels);
    let small_before: Vec<usize> = (0..r.range(2, 4)).map(|_| r.below(n_big)).collect();

    let mut planted: Vec<Planted> = Vec::new();
    let mut distractors = Vec::new();
    for (i, fmt) in plan.iter().enumerate() {
        for _ in small_before.iter().filter(|&&b| b == i) {
            let o = small(r, p);
            let prose = prose_for(r, p, &o);
            s.step(r, &prose, None, &o);
        }
        let mut bytes = r.log_uniform(2_048.0, 81_920.0);
        if i + 1 == n_big {
            // The last big output alone exceeds keepRecentTokens: the cut falls after it.
            bytes = bytes.max(12_000);
        }
        let block = fmt.build(r, p, bytes);
        let want = holders.iter().position(|&h| h == i).map(|k| labels[k]);
        let (out, got, looks) = place(r, block, want);
        // (pi's estimate: UTF-16 units / 4; box-drawing tables are short in it.)
        if i + 1 == n_big && out.text.encode_utf16().count() < 4 * 2_500 {
            return None;
        }
        let prose = prose_for(r, p, &out);
        let think = r.chance(0.2).then(|| thinking(r, p));
        s.step(r, &prose, think.as_deref(), &out);
        planted.extend(got);
        distractors.extend(looks);
    }

    // The kept tail: the next step in words, one small call.
    let next = r_pick(r, NEXT_STEPS);
    s.user(r, next);
    let o = git_status(r, p);
    s.step(r, "", None, &o);
    let cut_line = s.lines.len();

    // Every needle line once in the prefix; a key of it nowhere else in the prefix.
    let body = s.lines.join("\n");
    let mut keys = Vec::new();
    for n in &planted {
        let esc = serde_json::to_string(&n.line).ok()?;
        if body.matches(esc.trim_matches('"')).count() != 1 {
            return None;
        }
        let unique = |t: &str| is_distinctive(t) && body.matches(t).count() == 1;
        let key = match &n.key {
            Some(k) => distinctive_iter(&n.line)
                .find(|t| t.contains(k.as_str()) && unique(t))?
                .to_string(),
            None => distinctive_iter(&n.line).find(|t| unique(t))?.to_string(),
        };
        keys.push(key);
    }
    if distractors
        .iter()
        .any(|d| planted.iter().any(|n| &n.line == d))
    {
        return None;
    }

    // The later part.
    s.user(r, "Go ahead.");
    for key in &keys {
        later_step(r, p, &mut s, key);
    }
    let done = r_pick(
        r,
        &[
            "Done; all of it is applied.",
            "That's everything, the changes are in place.",
        ],
    );
    s.assistant(r, vec![json!({"type": "text", "text": done})], "stop");

    Some(Generated {
        name: format!("blind-s{seed}-{index:03}-{}", p.slug),
        lines: s.lines,
        cut_line,
        needles: planted
            .into_iter()
            .map(|n| (n.kind, n.line, n.label.to_string()))
            .collect(),
        distractors,
    })
}

/// What the user says at the end of the prefix: words only, no distinctive string.
const NEXT_STEPS: &[&str] = &[
    "Good, that is enough digging. Check what is modified in the working tree, then apply the fixes we talked about, one at a time.",
    "Alright. Before you touch anything else, look at the state of the repository and then go through the findings and fix them.",
    "Thanks. Let us wrap this up: see what is uncommitted, then make the changes you proposed and tell me when the checks pass.",
    "Makes sense. Show me what changed so far, then carry on with the plan and use the exact values you found above.",
    "Okay, I agree with the diagnosis. Take stock of the local changes first, then do the edits.",
];

/// A step after the cut quoting `key`.
fn later_step(r: &mut Rng, p: &Project, s: &mut Session, key: &str) {
    let f = r_pick(r, p.files);
    let (prose, out) = match r.below(4) {
        0 => (
            format!("Starting from `{key}`, as seen earlier."),
            Output {
                tool: "bash",
                args: json!({"command": format!("rg -n -F '{key}' . | head -20")}),
                text: format!("{f}:{}: see above", r.range(2, 400)),
                is_error: false,
            },
        ),
        1 => (
            "Recording it next to the code.".to_string(),
            Output {
                tool: "edit",
                args: json!({"path": f, "edits": [{"oldText": "TODO(review)", "newText": format!("TODO(review): {key}")}]}),
                text: format!("Successfully replaced 1 block(s) in {f}."),
                is_error: false,
            },
        ),
        2 => (
            format!("The value that matters is {key}; noting it for the follow-up."),
            Output {
                tool: "bash",
                args: json!({"command": "git stash list | head -3"}),
                text: "(no output)".into(),
                is_error: false,
            },
        ),
        _ => (
            String::new(),
            Output {
                tool: "bash",
                args: json!({"command": format!("printf '%s\\n' '{key}' >> .notes/followups.txt && wc -l .notes/followups.txt")}),
                text: format!("{} .notes/followups.txt", r.range(1, 30)),
                is_error: false,
            },
        ),
    };
    s.step(r, &prose, None, &out);
}

/// The kept tail's small call.
fn git_status(r: &mut Rng, p: &Project) -> Output {
    let mut files: Vec<&str> = p.files.to_vec();
    r.shuffle(&mut files);
    files.truncate(r.range(2, 5));
    let text: Vec<String> = files
        .iter()
        .map(|f| format!(" {} {f}", r_pick(r, &["M", "M", "A", "??"])))
        .collect();
    Output {
        tool: "bash",
        args: json!({"command": "git status --short"}),
        text: text.join("\n"),
        is_error: false,
    }
}

/// A small call without needle: `ls`, `edit`, `write` or a short `find`.
fn small(r: &mut Rng, p: &Project) -> Output {
    let f = r_pick(r, p.files);
    let dir = f.rsplit_once('/').map_or(".", |x| x.0);
    match r.below(4) {
        0 => {
            let n = r.range(4, 12);
            let items: Vec<String> = (0..n).map(|_| line(r, p, "%s.%W")).collect();
            Output {
                tool: "ls",
                args: json!({"path": dir}),
                text: items.join("\n"),
                is_error: false,
            }
        }
        1 => {
            let (old, new) = (line(r, p, "%c"), line(r, p, "%c"));
            Output {
                tool: "edit",
                args: json!({"path": f, "edits": [{"oldText": old, "newText": new}]}),
                text: format!("Successfully replaced 1 block(s) in {f}."),
                is_error: false,
            }
        }
        2 => {
            let path = line(r, p, "%F");
            let size = r.range(200, 900);
            let content = fill(r, p, size, &["%c = %n", "# %w %w %w"]).join("\n");
            let text = format!("Successfully wrote {} bytes to {path}", content.len());
            Output {
                tool: "write",
                args: json!({"path": path, "content": content}),
                text,
                is_error: false,
            }
        }
        _ => {
            let n = r.range(1, 6);
            let items: Vec<String> = (0..n).map(|_| line(r, p, "%F")).collect();
            Output {
                tool: "find",
                args: json!({"pattern": format!("*{}*", r_pick(r, p.words)), "path": dir}),
                text: items.join("\n"),
                is_error: false,
            }
        }
    }
}

/// A short sentence before a call; never quotes a needle (it names project files at most).
fn prose_for(r: &mut Rng, p: &Project, out: &Output) -> String {
    let tool = out.tool;
    let f = match out.args["path"].as_str() {
        Some(path) if path.contains('.') => path,
        _ => r_pick(r, p.files),
    };
    let t = match tool {
        "read" => r_pick(
            r,
            &[
                "Let me read {f}.",
                "Opening {f} to see how it is wired.",
                "Reading the file.",
            ],
        ),
        "grep" | "find" | "ls" => r_pick(
            r,
            &[
                "Searching the tree.",
                "Let me find where that lives.",
                "Looking around {f}.",
            ],
        ),
        "edit" | "write" => r_pick(
            r,
            &[
                "Small change to {f} first.",
                "Applying that.",
                "Writing a scratch file.",
            ],
        ),
        "web_fetch" => r_pick(
            r,
            &[
                "Checking upstream docs.",
                "Let me look at the release notes.",
            ],
        ),
        "mcp__github__search_issues" => r_pick(
            r,
            &[
                "Searching the issue tracker.",
                "Maybe this is a known issue.",
            ],
        ),
        _ => r_pick(
            r,
            &[
                "Running it.",
                "Let me check the output of that.",
                "Next, the logs.",
                "That narrows it down; one more look.",
                "Now I'll run this to compare with {f}.",
                "",
            ],
        ),
    };
    t.replace("{f}", f)
}

fn thinking(r: &mut Rng, p: &Project) -> String {
    let f = r_pick(r, p.files);
    let a = r_pick(
        r,
        &[
            "The output is long; most of it is noise.",
            "This does not explain the behaviour yet.",
            "There are several similar entries, I need to keep track of which one matters.",
        ],
    );
    let b = r_pick(
        r,
        &[
            "Next I should compare with what {f} does.",
            "Probably the configuration rather than the code.",
            "I will keep going and collect the details before editing.",
        ],
    );
    format!("{a} {}", b.replace("{f}", f))
}

// ---------------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    Haskell,
    Php,
    Hcl,
    Zig,
    Java,
    Dart,
}

struct Project {
    slug: &'static str,
    cwd: &'static str,
    repo: &'static str,
    lang: Lang,
    files: &'static [&'static str],
    words: &'static [&'static str],
    deps: &'static [&'static str],
    build: &'static str,
    test: &'static str,
    service: &'static str,
    tasks: &'static [&'static str],
    avoid: &'static [Fmt],
}

/// The entry of `xs` for the project's language (Haskell, PHP, HCL, Zig, Java, Dart).
fn by_lang<T: Copy>(p: &Project, xs: [T; 6]) -> T {
    xs[p.lang as usize]
}

const PROJECTS: &[Project] = &[
    Project {
        slug: "ghc-strictify",
        cwd: "/home/mira/src/ghc-strictify",
        repo: "mira-k/ghc-strictify",
        lang: Lang::Haskell,
        files: &[
            "src/Strictify/Plugin.hs",
            "src/Strictify/Core/Rewrite.hs",
            "src/Strictify/Core/Demand.hs",
            "src/Strictify/Config.hs",
            "src/Strictify/Pretty.hs",
            "test/Spec/RewriteSpec.hs",
            "test/Golden/Driver.hs",
            "strictify.cabal",
            "cabal.project",
            "bench/Allocs.hs",
        ],
        words: &[
            "strict",
            "demand",
            "binder",
            "thunk",
            "unfold",
            "coercion",
            "wrapper",
            "letrec",
            "occurrence",
            "simpl",
        ],
        deps: &[
            "ghc-lib-parser",
            "containers",
            "hspec",
            "tasty-golden",
            "mtl",
            "text",
            "optparse-applicative",
            "bytestring",
        ],
        build: "cabal build all",
        test: "cabal test --test-show-details=direct",
        service: "strictify-bench",
        tasks: &[
            "The strictify plugin breaks on recursive let bindings since we moved to GHC 9.10: the letrec golden tests fail. Find out why and fix the rewrite pass.",
            "Allocation numbers in the benchmark doubled after the last merge. Figure out which change to the demand analysis did it and repair it.",
            "Add an option to exclude modules from strictification by pattern, wire it through the plugin options and cover it with a test.",
        ],
        avoid: &[Fmt::Explain, Fmt::Journal, Fmt::Manifest],
    },
    Project {
        slug: "quire-cms",
        cwd: "/srv/www/quire-cms",
        repo: "quire-labs/quire-cms",
        lang: Lang::Php,
        files: &[
            "app/Http/Controllers/PageController.php",
            "app/Models/Revision.php",
            "app/Services/MediaLibrary.php",
            "app/Jobs/PublishScheduledPages.php",
            "config/media.php",
            "routes/web.php",
            "database/migrations/2026_02_11_093000_create_revisions_table.php",
            "tests/Feature/PublishPageTest.php",
            "composer.json",
            "resources/views/pages/show.blade.php",
        ],
        words: &[
            "page", "revision", "media", "slug", "draft", "publish", "locale", "menu", "block",
            "author",
        ],
        deps: &[
            "laravel/framework",
            "spatie/laravel-permission",
            "league/flysystem-aws-s3-v3",
            "intervention/image",
            "pestphp/pest",
            "livewire/livewire",
            "guzzlehttp/guzzle",
        ],
        build: "composer install --no-interaction && php artisan optimize",
        test: "php artisan test --parallel",
        service: "quire-queue",
        tasks: &[
            "Scheduled pages are published an hour late for editors in Lisbon. Track down where the timezone goes wrong and fix it, with a test.",
            "Media uploads to the S3 disk started failing on staging after the dependency bump. Find the cause and make uploads work again.",
            "The revisions table grows without bound. Add pruning of old drafts, keep the last twenty per page, and make sure the page history still renders.",
        ],
        avoid: &[],
    },
    Project {
        slug: "homelab",
        cwd: "/home/jo/homelab",
        repo: "jo-lindqvist/homelab",
        lang: Lang::Hcl,
        files: &[
            "terraform/proxmox/main.tf",
            "terraform/proxmox/variables.tf",
            "terraform/dns/records.tf",
            "ansible/site.yml",
            "ansible/inventory/hosts.yml",
            "ansible/roles/nas/tasks/main.yml",
            "ansible/roles/monitoring/templates/prometheus.yml.j2",
            "ansible/group_vars/all.yml",
            "docker/gitea/compose.yaml",
        ],
        words: &[
            "vlan", "proxmox", "zfs", "pool", "backup", "gitea", "grafana", "dns", "nas", "guest",
        ],
        deps: &[
            "bpg/proxmox",
            "hashicorp/random",
            "community.general",
            "ansible.posix",
            "cloudflare/cloudflare",
            "community.docker",
        ],
        build: "terraform -chdir=terraform/proxmox validate",
        test: "terraform -chdir=terraform/proxmox test",
        service: "gitea",
        tasks: &[
            "The nightly ZFS backup job on the NAS silently stopped two weeks ago. Figure out what broke and get backups running again.",
            "Move the Gitea VM to the new storage VLAN without losing its DNS name, and make the Terraform and Ansible sides agree.",
            "Grafana shows gaps for every host on the guest VLAN. Find out why Prometheus cannot scrape them and fix the config.",
        ],
        avoid: &[Fmt::Coverage],
    },
    Project {
        slug: "tarpit",
        cwd: "/home/ren/code/tarpit",
        repo: "renz/tarpit",
        lang: Lang::Zig,
        files: &[
            "src/main.zig",
            "src/archive/reader.zig",
            "src/archive/writer.zig",
            "src/cli/args.zig",
            "src/compress/zstd.zig",
            "src/index/catalog.zig",
            "build.zig",
            "build.zig.zon",
            "tests/roundtrip.zig",
        ],
        words: &[
            "archive", "entry", "zstd", "inode", "xattr", "symlink", "catalog", "frame", "extent",
            "member",
        ],
        deps: &["clap", "zstd", "known-folders", "zig-sqlite"],
        build: "zig build -Doptimize=ReleaseSafe",
        test: "zig build test --summary all",
        service: "tarpit-nightly",
        tasks: &[
            "Extracting archives with long symlink targets truncates them. Find the bug in the reader and fix it, with a round-trip test.",
            "Port tarpit to Zig 0.14: the build fails all over the place. Get it building and the tests green again.",
            "Listing a big archive is slow. Find where the time goes and make the catalog lookup fast.",
        ],
        avoid: &[Fmt::Explain, Fmt::Audit, Fmt::Manifest],
    },
    Project {
        slug: "roster-service",
        cwd: "/opt/dev/roster-service",
        repo: "acme-health/roster-service",
        lang: Lang::Java,
        files: &[
            "src/main/java/org/roster/shift/ShiftController.java",
            "src/main/java/org/roster/shift/ShiftPlanner.java",
            "src/main/java/org/roster/staff/StaffRepository.java",
            "src/main/java/org/roster/config/SecurityConfig.java",
            "src/main/resources/application.yml",
            "src/main/resources/db/migration/V14__swap_requests.sql",
            "src/test/java/org/roster/shift/ShiftPlannerTest.java",
            "pom.xml",
            "Dockerfile",
        ],
        words: &[
            "shift", "roster", "swap", "staff", "ward", "rota", "overtime", "slot", "leave",
            "handover",
        ],
        deps: &[
            "spring-boot-starter-web",
            "spring-boot-starter-data-jpa",
            "flyway-core",
            "postgresql",
            "jackson-databind",
            "testcontainers",
            "mapstruct",
        ],
        build: "./mvnw -q -DskipTests package",
        test: "./mvnw -q test",
        service: "roster-service",
        tasks: &[
            "Shift swap requests sometimes approve both sides twice. Find the race and fix it so a swap is applied once.",
            "The weekly rota endpoint got very slow after the last migration. Find out why and bring it back under a second.",
            "Upgrade to Spring Boot 3.4 and fix whatever breaks in security config and tests.",
        ],
        avoid: &[],
    },
    Project {
        slug: "trailhead",
        cwd: "/Users/sam/dev/trailhead",
        repo: "trailhead-app/trailhead",
        lang: Lang::Dart,
        files: &[
            "lib/src/map/tile_cache.dart",
            "lib/src/routes/route_planner.dart",
            "lib/src/sync/offline_queue.dart",
            "lib/src/ui/elevation_chart.dart",
            "lib/main.dart",
            "pubspec.yaml",
            "test/route_planner_test.dart",
            "android/app/build.gradle",
            "ios/Runner/Info.plist",
        ],
        words: &[
            "trail",
            "tile",
            "elevation",
            "waypoint",
            "offline",
            "gpx",
            "summit",
            "segment",
            "hike",
            "contour",
        ],
        deps: &[
            "flutter_map",
            "drift",
            "flutter_riverpod",
            "dio",
            "geolocator",
            "path_provider",
            "freezed",
        ],
        build: "flutter analyze",
        test: "flutter test --reporter expanded",
        service: "trailhead-tiles",
        tasks: &[
            "Offline tiles vanish after the app is restarted on Android. Find out why the cache is dropped and fix it.",
            "The elevation chart shows wrong totals for routes imported from GPX files. Track it down and fix the computation, with a test.",
            "Queued edits made offline are sometimes synced twice. Find the bug in the sync queue and fix it.",
        ],
        avoid: &[Fmt::Strace, Fmt::Journal],
    },
];

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fmt {
    Source,
    Tests,
    Compiler,
    CiLog,
    Api,
    WebPage,
    Docker,
    Blame,
    Diff,
    Explain,
    Strace,
    Journal,
    Audit,
    Coverage,
    Manifest,
    Issues,
    Grep,
    Listing,
}

impl Fmt {
    const ALL: &[Fmt] = &[
        Fmt::Source,
        Fmt::Tests,
        Fmt::Compiler,
        Fmt::CiLog,
        Fmt::Api,
        Fmt::WebPage,
        Fmt::Docker,
        Fmt::Blame,
        Fmt::Diff,
        Fmt::Explain,
        Fmt::Strace,
        Fmt::Journal,
        Fmt::Audit,
        Fmt::Coverage,
        Fmt::Manifest,
        Fmt::Issues,
        Fmt::Grep,
        Fmt::Listing,
    ];

    fn build(self, r: &mut Rng, p: &Project, bytes: usize) -> Block {
        match self {
            Fmt::Source => source(r, p, bytes),
            Fmt::Tests => tests(r, p, bytes),
            Fmt::Compiler => compiler(r, p, bytes),
            Fmt::CiLog => ci_log(r, p, bytes),
            Fmt::Api => api(r, p, bytes),
            Fmt::WebPage => web_page(r, p, bytes),
            Fmt::Docker => docker(r, p, bytes),
            Fmt::Blame => blame(r, p, bytes),
            Fmt::Diff => diff(r, p, bytes),
            Fmt::Explain => explain(r, p, bytes),
            Fmt::Strace => strace(r, p, bytes),
            Fmt::Journal => journal(r, p, bytes),
            Fmt::Audit => audit(r, p, bytes),
            Fmt::Coverage => coverage(r, p, bytes),
            Fmt::Manifest => manifest(r, p, bytes),
            Fmt::Issues => issues(r, p, bytes),
            Fmt::Grep => grep(r, p, bytes),
            Fmt::Listing => listing(r, p, bytes),
        }
    }
}

/// `read` of a source file (pi's read: the text, and a continuation note when limited).
fn source(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let path = r_pick(r, &p.files[..p.files.len().min(6)]);
    let offset = r.range(1, 4) * 100 + 1;
    let body: [&[&str]; 6] = [
        &[
            "%c :: %C -> %C -> CoreM %C",
            "%c %s %c = do",
            "  %c <- %c %c (%C %n)",
            "  let %c = %c %c `seq` %c",
            "  pure $! %c %c",
            "-- | %C: %w the %w before %w.",
            "import qualified %C.%C as %C",
            "    , %c = %n",
            "",
        ],
        &[
            "    public function %c(%C $%c): %C",
            "        $%c = $this->%c->%c($%c, %n);",
            "        if ($%c === null) {",
            "            throw new %CException('%w %w');",
            "        }",
            "        return $%c;",
            "    }",
            "    // %w %w %w",
            "",
        ],
        &[
            "resource \"proxmox_virtual_environment_vm\" \"%s\" {",
            "  name      = \"%s\"",
            "  node_name = \"pve%n\"",
            "  memory    = %N",
            "  tags      = [\"%w\", \"%w\"]",
            "}",
            "  # %w %w",
            "  ipv4_address = \"%i/24\"",
            "",
        ],
        &[
            "pub fn %c(self: *%C, %s: []const u8) !%C {",
            "    const %s = try self.%s.%c(%s, %n);",
            "    if (%s.len > %n) return error.%C;",
            "    var %s: usize = 0;",
            "    defer %s.deinit();",
            "}",
            "// %w %w %w",
            "const %C = @import(\"%s.zig\");",
            "",
        ],
        &[
            "    public %C %c(%C %c, long %c) {",
            "        var %c = %c.%c(%c, %n);",
            "        if (%c.isEmpty()) {",
            "            throw new %CException(\"%w %w\");",
            "        }",
            "        return %c;",
            "    }",
            "    @Transactional(readOnly = true)",
            "    private final %C %c;",
            "",
        ],
        &[
            "  Future<%C> %c(%C %c, {int %c = %n}) async {",
            "    final %c = await _%c.%c(%c);",
            "    if (%c == null) return %C.empty();",
            "    return %c;",
            "  }",
            "  // %w %w %w",
            "  late final %C _%c;",
            "",
        ],
    ];
    let needle = by_lang(
        p,
        [
            "%kc :: %C -> CoreM ()",
            "    public function %kc(int $%w = %n): ?%C",
            "  template  = \"tmpl-%kx\"",
            "pub fn %kc(self: *Self, %w: u%n) !void {",
            "    public ResponseEntity<%C> %kc(@PathVariable long id) {",
            "  Stream<List<%C>> %kc({int limit = %n}) {",
        ],
    );
    let mut b = Block::new(
        "read",
        json!({"path": path, "offset": offset, "limit": 2000}),
        "signature",
    );
    b.body = fill(r, p, bytes, by_lang(p, body));
    let next = offset + b.body.len() + 5;
    b.foot = vec![
        String::new(),
        format!(
            "[Showing lines {offset}-{} of {}. Use offset={next} to continue.]",
            next - 1,
            next + r.range(10, 900)
        ),
    ];
    b.needle_from(r, p, needle)
}

/// The test suite's output; the needle is the one failing case.
fn tests(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let (head, pass, fail, skip): (&[&str], &[&str], &str, &str) = match p.lang {
        Lang::Haskell => (
            &[
                "Build profile: -w ghc-9.10.1 -O1",
                "Running 1 test suites...",
                "Test suite spec: RUNNING...",
            ],
            &[
                "  Strictify.%C",
                "    %w %w the %w of %c [✔]",
                "    keeps %c strict under %w [✔]",
            ],
            "    %w %w the %w of %kc [✘]",
            "    %w %w the %w of %c [‐]",
        ),
        Lang::Php => (
            &["", "   PASS  Tests\\Unit\\%CTest"],
            &[
                "   PASS  Tests\\Feature\\%CTest",
                "  ✓ %s                                   0.%ns",
                "  ✓ it_%s_%w                            0.%ns",
            ],
            "  ⨯ it_%ks                                   %d s",
            "  - it_%s                                   skipped",
        ),
        Lang::Hcl => (
            &["tests/main.tftest.hcl... in progress"],
            &["  run \"%s\"... pass", "  run \"%s_%w\"... pass"],
            "  run \"%ks\"... fail",
            "  run \"%s\"... skip",
        ),
        Lang::Zig => (
            &["Build Summary: test"],
            &["%n/%N test.%s...OK", "%n/%N %s.test.%s...OK"],
            "%n/%N test.%ks...FAIL (TestUnexpectedResult)",
            "%n/%N test.%s...SKIP",
        ),
        Lang::Java => (
            &[
                "[INFO] -------------------------------------------------------",
                "[INFO]  T E S T S",
                "[INFO] -------------------------------------------------------",
            ],
            &[
                "[INFO] Running org.roster.%w.%CTest",
                "[INFO] Tests run: %n, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: %d s -- in org.roster.%w.%CTest",
            ],
            "[ERROR] org.roster.%w.%CTest.%kc -- Time elapsed: %d s <<< FAILURE!",
            "[WARNING] org.roster.%w.%CTest.%c -- skipped (@Disabled)",
        ),
        Lang::Dart => (
            &["00:00 +0: loading test/route_planner_test.dart"],
            &[
                "00:%n +%n: test/%s_test.dart: %C %c returns %w",
                "00:%n +%n: test/%s_test.dart: %C handles %c",
            ],
            "00:%n +%n -1: test/%s_test.dart: %C %kc returns %w [E]",
            "00:%n +%n ~1: test/%s_test.dart: %C %c (skipped)",
        ),
    };
    let mut b = Block::new("bash", json!({"command": p.test}), "failing test");
    b.head = head.iter().map(|t| line(r, p, t)).collect();
    b.body = fill(r, p, bytes, pass);
    b.foot = vec![
        String::new(),
        line(r, p, "Finished in %d seconds; %N checks."),
    ];
    let mut b = b.needle_from(r, p, fail);
    b.fail_exit = true;
    b.looks = (0..4).map(|_| line(r, p, skip)).collect();
    b
}

/// Compiler / type-checker / plan output of the project's build command.
fn compiler(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let (cmd, kind, body, needle): (&str, &str, &[&str], &str) = match p.lang {
        Lang::Haskell => (
            p.build,
            "diagnostic location",
            &[
                "[%n of %n] Compiling Strictify.%C ( %e, dist-newstyle/build/x86_64-linux/ghc-9.10.1/ghc-strictify-0.4.%n/build/Strictify/%C.o )",
                "%e:%n:%j: warning: [GHC-62161] [-Wincomplete-patterns]",
                "    Pattern match(es) are non-exhaustive",
                "    In an equation for ‘%c’: Patterns of type ‘%C’ not matched: %C _",
                "%e:%n:%j: error: [GHC-83865]",
                "    • Couldn't match expected type ‘%C’ with actual type ‘CoreM %C’",
                "    |",
                "%n |   %c <- %c %c (%C %n)",
            ],
            "%e:%kn:%j: warning: [GHC-40910] [-Wunused-local-binds]",
        ),
        Lang::Php => (
            "vendor/bin/phpstan analyse --error-format=raw --memory-limit=1G",
            "diagnostic location",
            &[
                "/srv/www/quire-cms/%e:%n:Method App\\%C::%c() should return %C but returns %C|null.",
                "/srv/www/quire-cms/%e:%n:Access to an undefined property App\\Models\\%C::$%s.",
                "/srv/www/quire-cms/%e:%n:Parameter #%n $%c of method App\\%C::%c() expects %C, %C given.",
                "/srv/www/quire-cms/%e:%n:Call to an undefined method Illuminate\\Database\\Eloquent\\Builder::%c().",
            ],
            "/srv/www/quire-cms/%kF:%n:Dead catch - %CException is never thrown in the try block.",
        ),
        Lang::Hcl => (
            "terraform -chdir=terraform/proxmox plan -no-color",
            "plan change",
            &[
                "  # proxmox_virtual_environment_vm.%s will be updated in-place",
                "  ~ resource \"proxmox_virtual_environment_vm\" \"%s\" {",
                "      ~ memory          = %N -> %N",
                "        id              = \"%n\"",
                "        name            = \"%s\"",
                "        # (%n unchanged attributes hidden)",
                "    }",
                "proxmox_virtual_environment_vm.%s: Refreshing state... [id=%n]",
            ],
            "      ~ macaddr         = \"BC:24:11:%kM\" -> (known after apply)",
        ),
        Lang::Zig => (
            p.build,
            "diagnostic location",
            &[
                "%e:%n:%j: error: expected type '%C', found '%C'",
                "    const %s = try self.%s.%c(%s, %n);",
                "                         ~~~~^~~~",
                "%e:%n:%j: note: parameter type declared here",
                "referenced by:",
                "    %c: src/main.zig:%n:%j",
                "    %c__anon_%N: %e:%n:%j",
            ],
            "%e:%kn:%j: note: struct declared here",
        ),
        Lang::Java => (
            "./mvnw -q -DskipTests compile",
            "diagnostic location",
            &[
                "[ERROR] /opt/dev/roster-service/%e:[%n,%j] cannot find symbol",
                "[ERROR]   symbol:   method %c(%C)",
                "[ERROR]   location: variable %c of type org.roster.%w.%C",
                "[WARNING] /opt/dev/roster-service/%e:[%n,%j] [unchecked] unchecked conversion",
                "[INFO] Compiling %n source files with javac [debug release 21] to target/classes",
            ],
            "[WARNING] /opt/dev/roster-service/%e:[%n,%j] [removal] %kc() in %C has been deprecated and marked for removal",
        ),
        Lang::Dart => (
            p.build,
            "diagnostic location",
            &[
                "   info • The value of the local variable '%c' isn't used • lib/src/%s.dart:%n:%j • unused_local_variable",
                "warning • The declaration '_%c' isn't referenced • lib/src/%s.dart:%n:%j • unused_element",
                "   info • Prefer const with constant constructors • lib/src/%s.dart:%n:%j • prefer_const_constructors",
                "  error • The getter '%c' isn't defined for the type '%C' • lib/src/%s.dart:%n:%j • undefined_getter",
            ],
            "   info • The import of 'package:%q/%w.dart' is unnecessary • lib/src/%s.dart:%kn:%j • unnecessary_import",
        ),
    };
    let mut b = Block::new("bash", json!({"command": cmd}), kind);
    b.body = fill(r, p, bytes, body);
    if r.chance(0.5) {
        b.is_error = true;
        b.foot = vec![String::new(), "Command exited with code 1".into()];
    }
    b.needle_from(r, p, needle)
}

/// A CI job log (`gh run view --log`): job, step, timestamp, text, tab-separated.
fn ci_log(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let run = r.range(4_000_000_000, 9_999_999_999);
    let job = r_pick(
        r,
        &["build", "test (ubuntu-24.04)", "lint", "release-dry-run"],
    );
    let steps = [
        "Set up job",
        "Run actions/checkout@v4",
        "Restore cache",
        "Install toolchain",
        "Build",
        "Run tests",
        "Post job cleanup.",
    ];
    let text: &[&str] = &[
        "##[group]Run %s",
        "Syncing repository: %r",
        "Downloading %q (%v)",
        "##[endgroup]",
        "  %c: %m ms",
        "Received %N of %N (%n.%n%%), %d MBs/sec",
        "[command]/usr/bin/git log -1 --format=%%H",
        "%H",
        "shell: /usr/bin/bash -e {0}",
        "  %S: %s",
        "Resolved %n packages in %dms",
        "##[warning]The `%w` input is deprecated; use `%s` instead.",
    ];
    let day = format!("2026-{:02}-{:02}", r.range(1, 12), r.range(1, 28));
    let mut clock = r.range(0, 20_000) as u64 * 1000;
    let mut stamp = |r: &mut Rng, i: usize| {
        clock += r.range(1, 3_000) as u64;
        let s = clock / 1000;
        format!(
            "{job}\t{}\t{day}T{:02}:{:02}:{:02}.{:07}Z ",
            steps[(i * steps.len() * 110 / bytes.max(1)).min(steps.len() - 1)],
            s / 3600 % 24,
            s / 60 % 60,
            s % 60,
            r.below(10_000_000)
        )
    };
    let mut b = Block::new(
        "bash",
        json!({"command": format!("gh run view {run} --log | head -c 200000")}),
        "CI cache key",
    );
    let mut size = 0;
    let mut i = 0;
    while size < bytes {
        let t = r_pick(r, text);
        let l = stamp(r, i) + &line(r, p, t);
        size += l.len() + 1;
        b.body.push(l);
        i += 1;
    }
    let mut b = b.needle_from(r, p, "Cache saved with key: Linux-%W-deps-%kX");
    b.looks = (0..4)
        .map(|_| line(r, p, "Cache not found for input keys: Linux-%W-deps-%X"))
        .collect();
    b.needle = stamp(r, i) + &b.needle;
    for l in b.looks.iter_mut() {
        *l = stamp(r, i) + l;
    }
    b
}

/// `curl -sS -i` on a JSON API: headers, then a pretty-printed array.
fn api(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let url = line(
        r,
        p,
        by_lang(
            p,
            [
                "https://hackage.haskell.org/package/%q/preferred",
                "https://staging.quire.example/api/v1/pages?status=scheduled&per_page=%j",
                "https://pve1.lab.internal:8006/api2/json/nodes/pve1/qemu?full=1",
                "https://api.github.com/repos/%r/releases?per_page=%j",
                "http://localhost:8080/api/v2/shifts?ward=%W&week=2026-W%n",
                "https://tiles.trailhead.app/v3/regions?bbox=%d,%d,%d,%d",
            ],
        ),
    );
    let mut b = Block::new(
        "bash",
        json!({"command": format!("curl -sS -i '{url}'")}),
        "request id",
    );
    b.head = [
        "HTTP/2 200",
        "content-type: application/json; charset=utf-8",
        "date: Tue, %y Mar 2026 %t GMT",
        "x-ratelimit-remaining: %n",
        "etag: W/\"%x\"",
        "",
        "[",
    ]
    .iter()
    .map(|t| line(r, p, t))
    .collect();
    let obj: &[&str] = &[
        "  {",
        "    \"id\": %N,",
        "    \"slug\": \"%s\",",
        "    \"updated_at\": \"%DT%t.000000Z\",",
        "    \"author\": {\"id\": %n, \"name\": \"%u\"},",
        "    \"checksum\": \"sha1:%H\",",
        "    \"tags\": [\"%w\", \"%W\"],",
        "    \"state\": \"%w\"",
        "  },",
    ];
    let mut size = 0;
    while size < bytes {
        for t in obj {
            let l = line(r, p, t);
            size += l.len() + 1;
            b.body.push(l);
        }
    }
    b.foot = vec!["]".into()];
    b.needle_from(r, p, "    \"trace\": \"req_%ka%a\",")
}

/// `web_fetch` of a dependency's release notes, as text.
fn web_page(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let dep = r_pick(r, p.deps);
    let url = format!("https://github.com/{}/releases", dep.replace('/', "-"));
    let mut b = Block::new("web_fetch", json!({"url": url}), "release version");
    b.head = vec![
        format!("Title: Releases · {dep}"),
        format!("URL Source: {url}"),
        String::new(),
        "Markdown Content:".into(),
    ];
    let item: &[&str] = &[
        "- %C no longer %w the %w when `%c` is %w ([#%N](https://github.com/%q/pull/%N))",
        "- Bump minimum %q to %v by @%w%n in #%N",
        "- Fix %w in `%c` on %w platforms (#%N)",
        "- Deprecate `%c`; use `%c` instead.",
        "",
    ];
    let mut size = 0;
    while size < bytes {
        let mut sect = vec![
            line(r, p, "## %v (%D)"),
            String::new(),
            line(
                r,
                p,
                "[Compare changes](https://github.com/%q/compare/v%v...v%v)",
            ),
            r_pick(
                r,
                &["### Fixed", "### Added", "### Changed", "### Security"],
            )
            .into(),
        ];
        for _ in 0..r.range(3, 12) {
            let t = r_pick(r, item);
            sect.push(line(r, p, t));
        }
        size += sect.iter().map(|l| l.len() + 1).sum::<usize>();
        b.body.extend(sect);
    }
    b.foot = vec![
        String::new(),
        "Footer · Terms · Privacy · Security · Status · Docs".into(),
    ];
    let mut b = b.needle_from(r, p, "- Pin the %w resolver to %kV (#%N)");
    b.looks = (0..4)
        .map(|_| line(r, p, "- Revert the %w resolver pin (%V) (#%N)"))
        .collect();
    b
}

/// A BuildKit `--progress=plain` docker build.
fn docker(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let tag = format!("ghcr.io/{}:{}", p.repo, r.hex(7));
    let mut b = Block::new(
        "bash",
        json!({"command": format!("docker buildx build --progress=plain -t {tag} .")}),
        "image digest",
    );
    b.head = vec![
        "#0 building with \"default\" instance using docker driver".into(),
        String::new(),
        "#1 [internal] load build definition from Dockerfile".into(),
        line(r, p, "#1 transferring dockerfile: %nB done"),
    ];
    let run: &[&str] = &[
        "#%j %d Downloading %q %v",
        "#%j %d   Compiling %s v%v",
        "#%j %d Fetched %N kB in %ds (%N kB/s)",
        "#%j sha256:%X %d MB / %d MB %ds",
        "#%j extracting sha256:%X %ds done",
        "#%j [builder %n/%n] RUN %s --%w",
        "#%j CACHED",
        "#%j %d Get:%n http://deb.debian.org/debian bookworm/main amd64 lib%w%n amd64 %v [%N kB]",
    ];
    b.body = fill(r, p, bytes, run);
    b.foot = vec![
        line(r, p, "#%j exporting to image"),
        line(r, p, "#%j exporting layers %ds done"),
        format!("#{} naming to {tag} done", r.range(20, 40)),
    ];
    let mut b = b.needle_from(r, p, "#%j writing image sha256:%kX done");
    b.looks = (0..4)
        .map(|_| line(r, p, "#%j exporting manifest sha256:%X done"))
        .collect();
    b
}

/// Source code lines of the project's language (for blame and diff).
fn code_line(r: &mut Rng, p: &Project) -> String {
    let t = r_pick(
        r,
        by_lang(
            p,
            [
                &[
                    "  %c <- %c %c (%C %n)",
                    "  let %c = %c %c `seq` %c",
                    "%c :: %C -> CoreM %C",
                    "  pure $! %c %c",
                ][..],
                &[
                    "        $%c = $this->%c->%c($%c, %n);",
                    "        return $%c;",
                    "    public function %c(%C $%c): %C",
                ],
                &[
                    "  memory    = %N",
                    "  name      = \"%s\"",
                    "  tags      = [\"%w\", \"%w\"]",
                    "  node_name = \"pve%n\"",
                ],
                &[
                    "    const %s = try self.%s.%c(%s, %n);",
                    "    if (%s.len > %n) return error.%C;",
                    "    defer %s.deinit();",
                ],
                &[
                    "        var %c = %c.%c(%c, %n);",
                    "        return %c;",
                    "    private final %C %c;",
                ],
                &[
                    "    final %c = await _%c.%c(%c);",
                    "    if (%c == null) return %C.empty();",
                    "    return %c;",
                ],
            ],
        ),
    );
    line(r, p, t)
}

/// `git blame -l` of a file range: long hashes from a few commits.
fn blame(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let f = r_pick(r, &sources(p));
    let start = r.range(1, 300);
    let mut b = Block::new(
        "bash",
        json!({"command": format!("git blame -l -L {start},+{} {f}", bytes / 90)}),
        "commit",
    );
    let pool: Vec<String> = (0..r.range(4, 12))
        .map(|_| line(r, p, "%H (%u %D %t +0100"))
        .collect();
    let mut size = 0;
    let mut n = start;
    while size < bytes {
        let code = code_line(r, p);
        let l = format!("{} {n:>4}) {code}", r.pick(&pool));
        size += l.len() + 1;
        b.body.push(l);
        n += 1;
    }
    let code = code_line(r, p);
    b.needle_from(
        r,
        p,
        &format!("%kH (%u %D %t +0100 %n) {}", code.replace('%', "%%")),
    )
}

/// `git diff` of a few files: hunks of context, removed and added lines.
fn diff(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let n = r.range(2, 9);
    let mut b = Block::new(
        "bash",
        json!({"command": format!("git diff HEAD~{n} --stat -p")}),
        "diff line",
    );
    let mut size = 0;
    while size < bytes {
        let f = r_pick(r, &sources(p));
        let mut hunk = vec![
            format!("diff --git a/{f} b/{f}"),
            line(r, p, "index %h..%h 100644"),
            format!("--- a/{f}"),
            format!("+++ b/{f}"),
        ];
        for _ in 0..r.range(1, 4) {
            let (a, c) = (r.range(1, 900), r.range(6, 30));
            hunk.push(format!(
                "@@ -{a},{c} +{},{} @@ {}",
                a + r.range(0, 9),
                c + r.range(0, 5),
                line(r, p, "%c")
            ));
            for _ in 0..c {
                let sign = r_pick(r, &[" ", " ", " ", "-", "+"]);
                hunk.push(format!("{sign}{}", code_line(r, p)));
            }
        }
        size += hunk.iter().map(|l| l.len() + 1).sum::<usize>();
        b.body.extend(hunk);
    }
    let needle = by_lang(
        p,
        [
            "+%kc = mkThreshold %N",
            "+        '%s' => env('%kS', %N),",
            "+  cidr      = \"%ki/%n\"",
            "+const %kS: usize = %N;",
            "+    private static final Duration %kS = Duration.ofMillis(%N);",
            "+  static const %kc = Duration(milliseconds: %m);",
        ],
    );
    b.needle_from(r, p, needle)
}

/// `EXPLAIN (ANALYZE, BUFFERS)` of a slow query on Postgres.
fn explain(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let table = r_pick(r, p.words);
    let db = by_lang(p, ["bench", "quire", "gitea", "catalog", "roster", "tiles"]);
    let cmd = format!(
        "psql -d {db} -c \"EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM {table}s t JOIN {}s u ON u.id = t.{}_id WHERE t.state = 'open' ORDER BY t.updated_at DESC\"",
        r_pick(r, WORDS),
        r_pick(r, WORDS)
    );
    let mut b = Block::new("bash", json!({"command": cmd}), "plan index name");
    b.head = vec![format!("{:>60}", "QUERY PLAN"), "-".repeat(120)];
    let node: &[&str] = &[
        "%iHash Join  (cost=%d..%d rows=%N width=%n) (actual time=%d..%d rows=%N loops=1)",
        "%i  Hash Cond: (%s.%w_id = %s.id)",
        "%i  Buffers: shared hit=%N read=%n",
        "%i->  Seq Scan on %s_2026_w%n  (cost=0.00..%d rows=%N width=%n) (actual time=0.0%n..%d rows=%N loops=1)",
        "%i      Filter: ((state)::text = '%w'::text)",
        "%i      Rows Removed by Filter: %N",
        "%i->  Sort  (cost=%d..%d rows=%N width=%n) (actual time=%d..%d rows=%N loops=%n)",
        "%i      Sort Key: %s.updated_at DESC",
        "%i      Sort Method: external merge  Disk: %NkB",
        "%i->  Index Scan using %s_pkey on %s  (cost=0.%n..%d rows=%n width=%n) (actual time=%d..%d rows=%n loops=%n)",
        "%i      Index Cond: (id = %s.%w_id)",
    ];
    let mut size = 0;
    while size < bytes {
        let depth = " ".repeat(r.range(0, 8) * 2);
        let t = r_pick(r, node).replace("%i", &depth);
        let l = line(r, p, &t);
        size += l.len() + 1;
        b.body.push(l);
    }
    b.foot = vec![
        line(r, p, "Planning Time: %d ms"),
        line(r, p, "Execution Time: %N.%n ms"),
        line(r, p, "(%n rows)"),
    ];
    let mut b = b.needle_from(
        r,
        p,
        "      ->  Index Only Scan using ix_%s_%kx on %s  (cost=0.%n..%d rows=%n width=%n) (actual time=%d..%d rows=%n loops=%n)",
    );
    b.looks = (0..4)
        .map(|_| line(r, p, "      ->  Bitmap Index Scan on ix_%s_%x  (cost=0.00..%d rows=%N width=0) (actual time=%d..%d rows=%N loops=1)"))
        .collect();
    b
}

/// `strace -f -tt` of the program at work.
fn strace(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let target = by_lang(
        p,
        [
            "cabal exec -- ghc -fplugin=Strictify.Plugin -c test/Golden/Letrec.hs",
            "-p $(pgrep -f 'artisan queue:work')",
            "restic -r /tank/restic backup /tank/shares",
            "./zig-out/bin/tarpit list /tmp/big.tar.zst",
            "-p $(pgrep -f roster-service.jar)",
            "flutter_tester build/unit_test_assets",
        ],
    );
    let mut b = Block::new(
        "bash",
        json!({"command": format!("strace -f -tt -e trace=openat,read,mmap,connect,fstat {target} 2>&1 | tail -c 120000")}),
        "opened path",
    );
    let call: &[&str] = &[
        "[pid %N] %t.%N openat(AT_FDCWD, \"/usr/lib/x86_64-linux-gnu/lib%w.so.%n\", O_RDONLY|O_CLOEXEC) = %n",
        "[pid %N] %t.%N read(%n, \"\\177ELF\\2\\1\\1\\0\\0\\0\\0\\0\\0\\0\\0\\0\\3\\0>\\0\\1\\0\\0\\0\"..., 832) = 832",
        "[pid %N] %t.%N mmap(NULL, %N, PROT_READ, MAP_PRIVATE|MAP_DENYWRITE, %n, 0) = 0x7f%x",
        "[pid %N] %t.%N fstat(%n, {st_mode=S_IFREG|0644, st_size=%N, ...}) = 0",
        "[pid %N] %t.%N connect(%n, {sa_family=AF_INET, sin_port=htons(%N), sin_addr=inet_addr(\"%i\")}, 16) = 0",
        "[pid %N] %t.%N openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = %n",
        "[pid %N] %t.%N read(%n, \"%w %w %w\\n\", 4096) = %n",
        "[pid %N] %t.%N openat(AT_FDCWD, \"/usr/lib/locale/%w/LC_%S\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)",
    ];
    b.body = fill(r, p, bytes, call);
    b.foot = vec![line(r, p, "[pid %N] %t.%N +++ exited with 0 +++")];
    let mut b = b.needle_from(
        r,
        p,
        "[pid %N] %t.%N openat(AT_FDCWD, \"/var/lib/%W/%s-%kx.db\", O_RDWR|O_CREAT|O_CLOEXEC, 0600) = %n",
    );
    b.looks = (0..4)
        .map(|_| line(r, p, "[pid %N] %t.%N openat(AT_FDCWD, \"/var/lib/%W/%s-%x.db\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)"))
        .collect();
    b
}

/// `journalctl -u SERVICE` of the project's service.
fn journal(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let host = by_lang(
        p,
        [
            "bench01",
            "web-2",
            "nas01",
            "buildbox",
            "roster-prod-1",
            "tiles-1",
        ],
    );
    let pid = r.range(900, 99_999);
    let mon = r_pick(
        r,
        &[
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
        ],
    );
    let day = r.range(1, 28);
    let pfx = format!("{mon} {day:02} %t {host} {}[{pid}]: ", p.service);
    let msg: &[&str] = &[
        "level=info msg=\"%w %w\" component=%w duration=%mms",
        "[%DT%t.%n] production.INFO: %C dispatched {\"%s\":%n,\"attempt\":%n}",
        "%C %w %w in %m ms (%N items)",
        "level=warn msg=\"slow %w\" path=/%w/%s took=%d s",
        "GET /%w/%s/%N 200 %m ms \"%w/%v\"",
        "level=error msg=\"%w %w failed, will retry\" attempt=%n err=\"context deadline exceeded\"",
    ];
    let tpls: Vec<String> = msg.iter().map(|m| format!("{pfx}{m}")).collect();
    let tpls: Vec<&str> = tpls.iter().map(String::as_str).collect();
    let mut b = Block::new(
        "bash",
        json!({"command": format!("journalctl -u {} --since '-3h' --no-pager", p.service)}),
        "setting value",
    );
    b.head = vec![format!(
        "-- Logs begin at {mon} {:02} 00:00:01 {host}. --",
        day.max(2) - 1
    )];
    b.body = fill(r, p, bytes, &tpls);
    let needle = format!("{pfx}level=info msg=\"effective setting\" key=%S value=%w-%kx");
    let mut b = b.needle_from(r, p, &needle);
    let look = format!("{pfx}level=info msg=\"default setting\" key=%S value=%w-%x");
    b.looks = (0..4).map(|_| line(r, p, &look)).collect();
    b
}

/// `osv-scanner` over the lockfile: one table row per advisory.
fn audit(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let (eco, lock) = by_lang(
        p,
        [
            ("Hackage", "cabal.project.freeze"),
            ("Packagist", "composer.lock"),
            ("Debian", "docker/gitea/compose.yaml"),
            ("-", "-"),
            ("Maven", "pom.xml"),
            ("Pub", "pubspec.lock"),
        ],
    );
    let mut b = Block::new(
        "bash",
        json!({"command": format!("osv-scanner --lockfile {lock}")}),
        "advisory id",
    );
    let sep = format!(
        "├{:─<38}┼{:─<6}┼{:─<11}┼{:─<34}┼{:─<14}┼{:─<28}┤",
        "", "", "", "", "", ""
    );
    b.head = vec![
        line(r, p, "Scanned /work/%r/%f file and found %n packages"),
        format!(
            "╭{:─<38}┬{:─<6}┬{:─<11}┬{:─<34}┬{:─<14}┬{:─<28}╮",
            "", "", "", "", "", ""
        ),
        format!(
            "│ {:<36} │ {:<4} │ {:<9} │ {:<32} │ {:<12} │ {:<26} │",
            "OSV URL", "CVSS", "ECOSYSTEM", "PACKAGE", "VERSION", "SOURCE"
        ),
    ];
    let row = format!("│ https://osv.dev/%g │ %z  │ {eco:<9} │ %q │ %v       │ {lock} │");
    let cve =
        format!("│ https://osv.dev/CVE-2025-%N   │ %z  │ {eco:<9} │ %q │ %v       │ {lock} │");
    let mut size = 0;
    while size < bytes {
        let t = if r.chance(0.5) { &row } else { &cve };
        let l = line(r, p, t);
        size += l.len() + sep.len() + 2;
        b.body.push(sep.clone());
        b.body.push(l);
    }
    b.foot = vec![format!(
        "╰{:─<38}┴{:─<6}┴{:─<11}┴{:─<34}┴{:─<14}┴{:─<28}╯",
        "", "", "", "", "", ""
    )];
    b.is_error = true;
    b.foot.push(String::new());
    b.foot.push("Command exited with code 1".into());
    b.needle_from(r, p, &row.replacen("%g", "%kg", 1))
}

/// A coverage table with a column of missed line ranges.
fn coverage(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let cmd = by_lang(
        p,
        [
            "cabal test --enable-coverage && hpc-lcov && python3 scripts/lcov_table.py lcov.info",
            "php artisan test --coverage --min=80",
            "-",
            "kcov --include-path=src kcov-out zig-out/bin/test && python3 tools/kcov_table.py kcov-out",
            "./mvnw -q verify && python3 scripts/coverage_table.py target/site/jacoco/jacoco.xml",
            "flutter test --coverage && python3 tool/lcov_table.py coverage/lcov.info",
        ],
    );
    let mut b = Block::new("bash", json!({"command": cmd}), "missed lines range");
    b.head = vec![
        format!(
            "{:<64} {:>6} {:>6} {:>6}   {}",
            "Name", "Stmts", "Miss", "Cover", "Missing"
        ),
        "-".repeat(110),
    ];
    let rows: &[&str] = &[
        "%F   %N   %n   %j%%   %n-%n, %n, %n-%n",
        "%F   %N   %n   %j%%   %n, %R",
        "%F   %n   0   100%%",
        "%F   %N   %n   %j%%   %R, %n-%n",
    ];
    b.body = fill(r, p, bytes, rows);
    b.foot = vec!["-".repeat(110), line(r, p, "TOTAL   %N   %N   %j%%")];
    b.needle_from(r, p, "%F   %N   %n   %j%%   %n-%n, %kR, %n")
}

/// A rendered YAML manifest (`helm template`).
fn manifest(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let chart = p.slug;
    let mut b = Block::new(
        "bash",
        json!({"command": format!("helm template {chart} deploy/charts/{chart} -f deploy/values.prod.yaml")}),
        "config value",
    );
    let doc: &[&str] = &[
        "---",
        "# Source: %s/templates/%w.yaml",
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        "  name: %s",
        "  annotations:",
        "    checksum/config: %X",
        "  labels:",
        "    app.kubernetes.io/name: %s",
        "    app.kubernetes.io/version: \"%v\"",
        "spec:",
        "  replicas: %n",
        "  template:",
        "    spec:",
        "      containers:",
        "        - name: %s",
        "          image: \"ghcr.io/%r:%v\"",
        "          env:",
        "            - name: %S",
        "              value: \"%w\"",
        "            - name: %S",
        "              value: \"%N\"",
        "            - name: %S",
        "              value: \"%w-%x\"",
        "          resources:",
        "            limits:",
        "              memory: %nMi",
        "              cpu: %nm",
    ];
    let mut size = 0;
    while size < bytes {
        for t in doc {
            let l = line(r, p, t);
            size += l.len() + 1;
            b.body.push(l);
        }
    }
    b.needle_from(r, p, "              %w: \"%w-%kx\"")
}

/// `mcp__github__search_issues`: the MCP server's JSON.
fn issues(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let q = format!(
        "repo:{} is:issue {} {}",
        p.repo,
        r_pick(r, p.words),
        r_pick(r, WORDS)
    );
    let mut b = Block::new(
        "mcp__github__search_issues",
        json!({"q": q, "per_page": 100}),
        "issue URL",
    );
    b.head = vec![
        "{".into(),
        line(r, p, "  \"total_count\": %n,"),
        "  \"incomplete_results\": false,".into(),
        "  \"items\": [".into(),
    ];
    let item: &[&str] = &[
        "    {",
        "      \"url\": \"https://api.github.com/repos/%r/issues/%N\",",
        "      \"html_url\": \"https://github.com/%r/issues/%N\",",
        "      \"number\": %N,",
        "      \"title\": \"%C %w %w when %c is %w\",",
        "      \"state\": \"%w\",",
        "      \"user\": {\"login\": \"%w%n\", \"id\": %N},",
        "      \"labels\": [{\"name\": \"%w\"}, {\"name\": \"%W\"}],",
        "      \"comments\": %n,",
        "      \"created_at\": \"%DT%tZ\",",
        "      \"body\": \"Steps: %w the %w, then `%c`. Expected %w, got %w.\"",
        "    },",
    ];
    let mut size = 0;
    while size < bytes {
        for t in item {
            let l = line(r, p, t);
            size += l.len() + 1;
            b.body.push(l);
        }
    }
    b.foot = vec!["  ]".into(), "}".into()];
    b.needle_from(
        r,
        p,
        "      \"url\": \"https://api.github.com/repos/%r/issues/%kN\",",
    )
}

/// pi's `grep` over the tree: `path:line: text`.
fn grep(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let pattern = r_pick(
        r,
        &["http", "env(", "timeout", "base_url|endpoint", "TODO|FIXME"],
    );
    let mut b = Block::new(
        "grep",
        json!({"pattern": pattern, "path": ".", "ignoreCase": true}),
        "internal URL",
    );
    let mut size = 0;
    while size < bytes {
        let f = r_pick(r, p.files);
        let l = format!("{f}:{}: {}", r.range(1, 900), code_line(r, p));
        size += l.len() + 1;
        b.body.push(l);
        if r.chance(0.3) {
            let l = line(
                r,
                p,
                "%f:%n:    endpoint = \"https://%w.%W.example.org/v%n/%s\"",
            );
            size += l.len() + 1;
            b.body.push(l);
        }
    }
    b.needle_from(
        r,
        p,
        "%f:%n:    base_url = \"https://%w-%kx.lab.internal:%N/api\"",
    )
}

/// pi's `find`: a long list of paths.
fn listing(r: &mut Rng, p: &Project, bytes: usize) -> Block {
    let dir = by_lang(
        p,
        [
            "dist-newstyle",
            "storage/app",
            "backups",
            "zig-cache",
            "target",
            "build",
        ],
    );
    let mut b = Block::new(
        "find",
        json!({"pattern": "**/*", "path": dir}),
        "archive path",
    );
    let path: &[&str] = &[
        "%W/%s/%s.%w",
        "%W/%D/%s-%h.json",
        "%W/%s/%s_%n.log",
        "%W/snapshots/%D/%s.manifest",
        "%W/%s/tmp-%h/%w.o",
    ];
    let tpls: Vec<String> = path.iter().map(|t| format!("{dir}/{t}")).collect();
    let tpls: Vec<&str> = tpls.iter().map(String::as_str).collect();
    b.body = fill(r, p, bytes, &tpls);
    let needle = format!("{dir}/%W/snapshots/%D/%s-%kx.tar.zst");
    b.needle_from(r, p, &needle)
}
