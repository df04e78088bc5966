//! The needle suite: a deterministic generator of pi sessions with planted facts, the compaction
//! runner and the baselines. Shared by `examples/needles.rs` (the benchmark) and
//! `tests/e2e/needles.rs` (the CI regression check).
//!
//! A session is an investigation: a first prompt, 4–5 turns of tool calls in the region that
//! `compact` prunes, and a kept tail (a user request and an assistant plan) that depends on
//! facts that live *only* in tool outputs of the region:
//!
//! * `error-log`: an ERROR line in a long service log (`kubectl logs` / `cat logs/*.log`);
//! * `config`: a `key = value` line in a `read` of a TOML file;
//! * `port`: a `listening on` line in `docker compose logs`;
//! * `signature`: a `pub fn` line in an `rg -n` result.
//!
//! Distractors are outputs nothing depends on, each with one planted marker line: a superseded
//! re-read (the same file read twice), a repeated test run (a failing run, fixed, re-run — both
//! runs carry a marker), a directory listing, and an unrelated `git log`. Each planted line sits
//! at the head (first ≤ 5% and ≤ 1,500 chars), the middle (35–65%) or the tail (last ≤ 5% and
//! ≤ 1,500 chars) of an output of 1 KB – 200 KB (log-uniform). Neither the tail nor any text of
//! the region contains a planted line, so a fact survives only if its output does.
//!
//! Retention is checked verbatim: the planted line must be a substring of the compacted
//! projection (the summary + the kept messages' text).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Value, json};

use pi_shake::compact::{self, CompactOptions, Outcome};
use pi_shake::jscompat::{epoch_ms_to_iso, utf16_len};
use pi_shake::load::Loaded;
use pi_shake::projection::Projection;
use pi_shake::score::{NoProgress, Scorer};
use pi_shake::session::Session;
use pi_shake::tree::Tree;

/// The session's cwd: a path that does not exist, so the CLI and the benchmark build the same
/// state (no workspace read) and `--scores-out` files replay here.
pub const CWD: &str = "/nonexistent/pi-shake-needles/broker";

// ---------------------------------------------------------------------------------------------
// PRNG (splitmix64)
// ---------------------------------------------------------------------------------------------

#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5EED_0F6E_ED1E)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.range(0, xs.len() as u64 - 1) as usize]
    }
    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from_digit(self.range(0, 15) as u32, 16).unwrap_or('0'))
            .collect()
    }
    fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.range(0, i as u64) as usize;
            xs.swap(i, j);
        }
    }
    /// Log-uniform size in `lo..=hi`.
    fn log_size(&mut self, lo: usize, hi: usize) -> usize {
        let (a, b) = ((lo as f64).ln(), (hi as f64).ln());
        (a + (b - a) * self.unit()).exp().round() as usize
    }
}

// ---------------------------------------------------------------------------------------------
// Facts
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pos {
    Head,
    Middle,
    Tail,
}

impl Pos {
    pub const ALL: [Pos; 3] = [Pos::Head, Pos::Middle, Pos::Tail];
    pub fn name(self) -> &'static str {
        match self {
            Pos::Head => "head",
            Pos::Middle => "middle",
            Pos::Tail => "tail",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A later kept message depends on it.
    Needle,
    /// Nothing depends on it.
    Distractor,
}

/// One planted line.
#[derive(Clone, Debug, Serialize)]
pub struct Fact {
    /// `error-log`, `config`, `port`, `signature`, `superseded-read`, `test-run`, `listing`,
    /// `unrelated`.
    pub kind: &'static str,
    pub role: Role,
    pub pos: Pos,
    /// Chars of the output holding it.
    pub output_chars: usize,
    /// The planted line (checked verbatim).
    pub line: String,
    /// The tool call id of the output.
    pub call_id: String,
}

/// A generated session.
#[derive(Clone, Debug)]
pub struct Generated {
    pub name: String,
    /// JSONL lines (header first).
    pub lines: Vec<String>,
    pub facts: Vec<Fact>,
    /// The id of the first kept entry (the tail's user message).
    pub tail_first_id: String,
    /// Text of the kept tail (user request + assistant plan).
    pub tail_text: String,
    /// The region's messages, for the baselines.
    pub region: Vec<Msg>,
}

/// A region message as the baselines serialise it.
#[derive(Clone, Debug)]
pub enum Msg {
    User(String),
    Assistant {
        text: String,
        calls: Vec<(String, String, Value)>,
    },
    ToolResult {
        output: String,
    },
}

// ---------------------------------------------------------------------------------------------
// Output builders
// ---------------------------------------------------------------------------------------------

/// Lines from `gen` until about `target` chars, with `fact` planted at `pos`.
fn build_output(
    rng: &mut Rng,
    target: usize,
    fact: Option<(Pos, &str)>,
    line_gen: &mut dyn FnMut(&mut Rng) -> String,
) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut len = 0usize;
    let flen = fact.map_or(0, |(_, f)| f.len() + 1);
    while len + flen < target || lines.len() < 3 {
        let l = line_gen(rng);
        len += l.len() + 1;
        lines.push(l);
    }
    if let Some((pos, f)) = fact {
        let total = len + flen;
        let edge = (total as f64 * 0.05).min(1_500.0) as usize;
        let at = match pos {
            Pos::Head => rng.range(0, edge as u64) as usize,
            Pos::Middle => {
                rng.range((total as f64 * 0.35) as u64, (total as f64 * 0.65) as u64) as usize
            }
            Pos::Tail => total - rng.range(0, edge as u64) as usize,
        };
        // The line boundary at or before `at` (head/middle) or after it (tail), with the fact
        // line inside the window.
        let mut off = 0usize;
        let mut idx = lines.len();
        for (i, l) in lines.iter().enumerate() {
            if off + l.len() + 1 > at {
                idx = i;
                break;
            }
            off += l.len() + 1;
        }
        if pos == Pos::Tail {
            idx = (idx + 1).min(lines.len());
            // Keep it within the tail window: the fact plus what follows ≤ edge + fact.
            let mut after: usize = lines[idx..].iter().map(|l| l.len() + 1).sum();
            while after > edge && idx < lines.len() {
                after -= lines[idx].len() + 1;
                idx += 1;
            }
        }
        lines.insert(idx, f.to_string());
    }
    lines.join("\n")
}

fn ts(rng: &mut Rng) -> String {
    format!(
        "2026-03-14T{:02}:{:02}:{:02}.{:03}Z",
        rng.range(6, 11),
        rng.range(0, 59),
        rng.range(0, 59),
        rng.range(0, 999)
    )
}

const MODULES: &[&str] = &[
    "queue", "worker", "lease", "retry", "broker", "codec", "metrics", "store", "http", "auth",
    "sched", "ack", "batch", "config", "shard", "wal",
];
const WORDS: &[&str] = &[
    "processed",
    "dispatched",
    "acknowledged",
    "enqueued",
    "polled",
    "flushed",
    "rebalanced",
    "checkpointed",
    "compacted",
    "scheduled",
];

fn log_line(rng: &mut Rng) -> String {
    let m = rng.pick(MODULES);
    match rng.range(0, 9) {
        0 => format!(
            "{} WARN broker::{m}: slow consumer lag={}ms partition={}",
            ts(rng),
            rng.range(100, 9000),
            rng.range(0, 63)
        ),
        1 => format!(
            "{} DEBUG broker::{m}: lease renewed job={} ttl={}s",
            ts(rng),
            rng.hex(5),
            rng.range(5, 120)
        ),
        _ => format!(
            "{} INFO broker::{m}: {} job {} in {}ms queue={}",
            ts(rng),
            rng.pick(WORDS),
            rng.hex(5),
            rng.range(1, 900),
            rng.pick(&["default", "priority", "bulk", "email", "billing"])
        ),
    }
}

const KEYS: &[&str] = &[
    "max_connections",
    "idle_timeout_s",
    "batch_size",
    "poll_interval_ms",
    "compression",
    "log_level",
    "shard_count",
    "prefetch",
    "ack_mode",
    "buffer_bytes",
    "tls_verify",
    "region",
];

fn config_block(rng: &mut Rng) -> String {
    let sec = format!("[{}.{}]", rng.pick(MODULES), rng.hex(3));
    let mut s = vec![String::new(), sec];
    for _ in 0..rng.range(3, 7) {
        let k = rng.pick(KEYS);
        let v = match rng.range(0, 2) {
            0 => rng.range(1, 65_000).to_string(),
            1 => format!(
                "\"{}\"",
                rng.pick(&["zstd", "info", "eu-west-1", "manual", "lz4"])
            ),
            _ => rng.pick(&["true", "false"]).to_string(),
        };
        s.push(format!("{k} = {v}"));
    }
    s.join("\n")
}

const SERVICES: &[&str] = &[
    "postgres-1",
    "redis-queue-1",
    "redis-queue-2",
    "metrics-1",
    "scheduler-1",
    "worker-1",
    "worker-2",
    "jaeger-1",
];

fn compose_line(rng: &mut Rng) -> String {
    let svc = rng.pick(SERVICES);
    let t = format!(
        "{:02}:{:02}:{:02}",
        rng.range(8, 9),
        rng.range(0, 59),
        rng.range(0, 59)
    );
    match rng.range(0, 6) {
        0 => format!(
            "{svc:<16}| {t} INFO listening on 0.0.0.0:{}",
            rng.range(1024, 9999)
        ),
        1 => format!(
            "{svc:<16}| {t} INFO health check passed ({}ms)",
            rng.range(1, 40)
        ),
        2 => format!(
            "{svc:<16}| {t} INFO applied migration {}_{}",
            rng.range(2020_0101, 2026_1231),
            rng.pick(WORDS)
        ),
        _ => format!(
            "{svc:<16}| {t} DEBUG {} {} items from {}",
            rng.pick(WORDS),
            rng.range(1, 500),
            rng.pick(MODULES)
        ),
    }
}

const FNS: &[&str] = &[
    "poll", "ack", "nack", "encode", "decode", "flush", "open", "close", "spawn", "drain", "tick",
    "merge", "split", "route", "emit", "scan",
];

fn rg_line(rng: &mut Rng) -> String {
    let m = rng.pick(MODULES);
    format!(
        "src/{m}/{}.rs:{}:    pub fn {}_{}(&self, {}: {}) -> Result<{}, {}Error> {{",
        rng.pick(MODULES),
        rng.range(1, 900),
        rng.pick(FNS),
        rng.pick(MODULES),
        rng.pick(&["id", "buf", "job", "n", "key"]),
        rng.pick(&["u64", "&[u8]", "JobId", "usize", "&str"]),
        rng.pick(&["()", "usize", "Bytes", "Job", "bool"]),
        capital(rng.pick(MODULES))
    )
}

fn capital(s: impl AsRef<str>) -> String {
    let mut c = s.as_ref().chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn md_line(rng: &mut Rng) -> String {
    match rng.range(0, 5) {
        0 => format!("## {} {}", capital(rng.pick(WORDS)), rng.pick(MODULES)),
        1 => String::new(),
        _ => format!(
            "The {} path is {} before the {} step; see the {} notes for details.",
            rng.pick(MODULES),
            rng.pick(WORDS),
            rng.pick(MODULES),
            rng.pick(MODULES)
        ),
    }
}

fn test_line(rng: &mut Rng) -> String {
    format!(
        "test {}::tests::{}_{} ... ok",
        rng.pick(MODULES),
        rng.pick(FNS),
        rng.pick(MODULES)
    )
}

fn path_line(rng: &mut Rng) -> String {
    format!(
        "./{}/{}/{}_{}.{}",
        rng.pick(&[
            "src",
            "tests",
            "vendor",
            "docs",
            "benches",
            "target/debug/deps"
        ]),
        rng.pick(MODULES),
        rng.pick(FNS),
        rng.hex(4),
        rng.pick(&["rs", "md", "toml", "d", "rlib", "json"])
    )
}

fn git_log_line(rng: &mut Rng) -> String {
    if rng.range(0, 2) == 0 {
        format!("commit {}", rng.hex(40))
    } else {
        format!(
            "    {}: {} the {} {}",
            rng.pick(MODULES),
            capital(rng.pick(WORDS)),
            rng.pick(MODULES),
            rng.pick(&["path", "handler", "tests", "docs", "metrics"])
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Session writer
// ---------------------------------------------------------------------------------------------

struct W {
    rng: Rng,
    lines: Vec<String>,
    parent: Option<String>,
    ms: i64,
    calls: usize,
    region: Vec<Msg>,
    tail: bool,
    tail_first_id: String,
    tail_text: Vec<String>,
}

impl W {
    fn entry(&mut self, mut v: serde_json::Map<String, Value>) -> String {
        let id = self.rng.hex(8);
        self.ms += self.rng.range(5, 4_000) as i64;
        let mut m = serde_json::Map::new();
        m.insert("type".into(), json!("message"));
        m.insert("id".into(), json!(id));
        m.insert("parentId".into(), json!(self.parent));
        m.insert("timestamp".into(), json!(epoch_ms_to_iso(self.ms)));
        m.append(&mut v);
        self.lines.push(Value::Object(m).to_string());
        self.parent = Some(id.clone());
        id
    }
    fn message(&mut self, mut msg: Value) -> String {
        msg["timestamp"] = json!(self.ms);
        let mut v = serde_json::Map::new();
        v.insert("message".into(), msg);
        self.entry(v)
    }
    fn user(&mut self, text: &str) {
        let id = self.message(json!({"role": "user", "content": [{"type": "text", "text": text}]}));
        if self.tail {
            if self.tail_first_id.is_empty() {
                self.tail_first_id = id;
            }
            self.tail_text.push(text.to_string());
        } else {
            self.region.push(Msg::User(text.to_string()));
        }
    }
    fn usage(&mut self) -> Value {
        let input = self.rng.range(2_000, 60_000);
        let output = self.rng.range(10, 400);
        json!({"input": input, "output": output, "cacheRead": input, "cacheWrite": 0, "reasoning": 0,
               "totalTokens": 2 * input + output,
               "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0, "total": 0.0, "totalFromProvider": false}})
    }
    /// An assistant message with text and calls; returns the call ids.
    fn assistant(&mut self, text: &str, calls: &[(&str, Value)]) -> Vec<String> {
        let mut content = Vec::new();
        if !text.is_empty() {
            content.push(json!({"type": "text", "text": text}));
        }
        let mut ids = Vec::new();
        let mut rec = Vec::new();
        for (name, args) in calls {
            self.calls += 1;
            let id = format!("call_{}_{}", self.rng.hex(6), self.calls);
            content.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": args}));
            rec.push((id.clone(), name.to_string(), args.clone()));
            ids.push(id);
        }
        let usage = self.usage();
        let stop = if calls.is_empty() { "stop" } else { "toolUse" };
        self.message(
            json!({"role": "assistant", "content": content, "api": "openai-completions",
            "provider": "mock", "model": "mock-coder", "usage": usage, "stopReason": stop}),
        );
        if self.tail {
            self.tail_text.push(text.to_string());
        } else {
            self.region.push(Msg::Assistant {
                text: text.to_string(),
                calls: rec,
            });
        }
        ids
    }
    fn result(&mut self, call_id: &str, tool: &str, output: &str, is_error: bool) {
        self.message(
            json!({"role": "toolResult", "toolCallId": call_id, "toolName": tool,
            "content": [{"type": "text", "text": output}], "isError": is_error}),
        );
        self.region.push(Msg::ToolResult {
            output: output.to_string(),
        });
    }
}

/// One tool step: call, output, planted facts, a short remark.
struct Step {
    tool: &'static str,
    args: Value,
    output: String,
    is_error: bool,
    facts: Vec<Fact>,
    remark: &'static str,
}

fn fact(kind: &'static str, role: Role, pos: Pos, output: &str, line: String) -> Fact {
    Fact {
        kind,
        role,
        pos,
        output_chars: output.chars().count(),
        line,
        call_id: String::new(),
    }
}

/// Suite parameters.
#[derive(Clone, Debug)]
pub struct SuiteConfig {
    pub seed: u64,
    pub sessions: usize,
    pub min_output: usize,
    pub max_output: usize,
}

/// Generate the suite (deterministic for a config).
pub fn generate(cfg: &SuiteConfig) -> Vec<Generated> {
    (0..cfg.sessions).map(|i| generate_one(cfg, i)).collect()
}

fn generate_one(cfg: &SuiteConfig, index: usize) -> Generated {
    let mut rng = Rng::new(cfg.seed.wrapping_mul(1_000_003).wrapping_add(index as u64));
    let size = |rng: &mut Rng| rng.log_size(cfg.min_output, cfg.max_output);
    // Positions rotate so every kind sees head, middle and tail across sessions.
    let pos = |k: usize| Pos::ALL[(index + k) % 3];
    let mut steps: Vec<Step> = Vec::new();
    let mut needs_user: Vec<String> = Vec::new();
    let mut needs_plan: Vec<String> = Vec::new();
    let phrase = |rng: &mut Rng, v: &[String]| -> String { rng.pick(v).clone() };

    // --- error-log needle ----------------------------------------------------------------
    {
        let job = rng.hex(5);
        let node = rng.pick(&[
            "redis-queue-2:6380",
            "redis-queue-1:6379",
            "pg-primary:5432",
        ]);
        let attempts = rng.range(3, 9);
        let line = format!(
            "{} ERROR broker::retry: job {job} exceeded max_attempts={attempts} (last error: connection reset by peer on {node})",
            ts(&mut rng)
        );
        let n = size(&mut rng);
        let out = build_output(&mut rng, n, Some((pos(0), &line)), &mut log_line);
        let (tool, args) = if rng.range(0, 1) == 0 {
            (
                "bash",
                json!({"command": "kubectl logs deploy/broker-worker --since=2h"}),
            )
        } else {
            ("read", json!({"path": "logs/worker.log"}))
        };
        let p = [
            "Fix the retry failure the worker log reported: the job that exceeded its max attempts.".to_string(),
            "Find out why broker::retry gave up on that job (connection reset) and harden the retry loop.".to_string(),
            "The connection reset error from the worker logs: which node was it? Make the retry handle it.".to_string(),
        ];
        let ph = phrase(&mut rng, &p);
        if rng.range(0, 1) == 0 {
            needs_user.push(ph)
        } else {
            needs_plan.push(ph)
        }
        steps.push(Step {
            tool,
            args,
            facts: vec![fact("error-log", Role::Needle, pos(0), &out, line)],
            output: out,
            is_error: false,
            remark: "The worker log is long; mostly routine processing.",
        });
    }
    // --- config needle -------------------------------------------------------------------
    {
        let key = rng
            .pick(&[
                "visibility_timeout_ms",
                "max_inflight_per_worker",
                "lease_renew_interval_ms",
                "dead_letter_after",
            ])
            .to_string();
        let line = format!("{key} = {}", rng.range(1_000, 99_999));
        let n = size(&mut rng);
        let mut out = build_output(&mut rng, n, Some((pos(1), &line)), &mut config_block);
        out = format!("# broker configuration\n{out}");
        let human = key.replace('_', " ");
        let p = [
            format!("Set the client's deadline from the broker's `{key}` in config/broker.toml."),
            format!("Use the {human} value from the broker config for the new client option."),
            format!("Make the worker pool respect {key} from config/broker.toml."),
        ];
        let ph = phrase(&mut rng, &p);
        if rng.range(0, 1) == 0 {
            needs_user.push(ph)
        } else {
            needs_plan.push(ph)
        }
        steps.push(Step {
            tool: "read",
            args: json!({"path": "config/broker.toml"}),
            facts: vec![fact("config", Role::Needle, pos(1), &out, line)],
            output: out,
            is_error: false,
            remark: "That is the broker configuration.",
        });
    }
    // --- port needle ---------------------------------------------------------------------
    {
        let port = rng.range(10_000, 60_000);
        let line = format!(
            "{:<16}| 09:{:02}:{:02} INFO api gateway listening on 0.0.0.0:{port}",
            "api-gateway-1",
            rng.range(0, 59),
            rng.range(0, 59)
        );
        let n = size(&mut rng);
        let out = build_output(&mut rng, n, Some((pos(2), &line)), &mut compose_line);
        let p = [
            "Point the integration tests at the port the api gateway is listening on.".to_string(),
            "Put the gateway's port from the compose logs into tests/.env.".to_string(),
            "The api-gateway came up on some port in docker compose; wire the smoke test to it."
                .to_string(),
        ];
        let ph = phrase(&mut rng, &p);
        if rng.range(0, 1) == 0 {
            needs_user.push(ph)
        } else {
            needs_plan.push(ph)
        }
        steps.push(Step {
            tool: "bash",
            args: json!({"command": "docker compose up -d && docker compose logs --no-color"}),
            facts: vec![fact("port", Role::Needle, pos(2), &out, line)],
            output: out,
            is_error: false,
            remark: "The stack is up.",
        });
    }
    // --- signature needle ----------------------------------------------------------------
    {
        let (name, arg, ret) = rng
            .pick(&[
                ("renew_lease", "extend_by: Duration", "LeaseToken"),
                ("requeue_with_backoff", "attempt: u32", "Scheduled"),
                ("claim_batch", "max: NonZeroUsize", "Vec<Claimed>"),
                ("mark_dead_letter", "reason: DeadReason", "DeadLetterId"),
            ])
            .to_owned();
        let line = format!(
            "src/queue/lease.rs:{}:    pub fn {name}(&self, job: JobId, {arg}) -> Result<{ret}, LeaseError> {{",
            rng.range(40, 900)
        );
        let n = size(&mut rng);
        let out = build_output(&mut rng, n, Some((pos(3), &line)), &mut rg_line);
        let human = name.replace('_', " ");
        let p = [
            format!("Call {name} from the retry loop with the right argument types."),
            format!("Use the queue's {human} function (src/queue/lease.rs) in the worker."),
            format!("Wire `{name}` into the scheduler; match its signature exactly."),
        ];
        let ph = phrase(&mut rng, &p);
        if rng.range(0, 1) == 0 {
            needs_user.push(ph)
        } else {
            needs_plan.push(ph)
        }
        steps.push(Step {
            tool: "bash",
            args: json!({"command": "rg -n 'pub fn' src/"}),
            facts: vec![fact("signature", Role::Needle, pos(3), &out, line)],
            output: out,
            is_error: false,
            remark: "Lots of public functions.",
        });
    }
    // --- distractor: superseded re-read ---------------------------------------------------
    let reread = {
        let line = format!(
            "Rotation owner for {} is {}-{}.",
            rng.pick(MODULES),
            rng.pick(&["ana", "li", "sam", "kofi"]),
            rng.hex(4)
        );
        let n = size(&mut rng);
        let out = build_output(&mut rng, n, Some((pos(4), &line)), &mut md_line);
        let f = fact("superseded-read", Role::Distractor, pos(4), &out, line);
        (out, f)
    };
    steps.push(Step {
        tool: "read",
        args: json!({"path": "docs/runbook.md"}),
        output: reread.0.clone(),
        is_error: false,
        facts: vec![reread.1],
        remark: "The runbook.",
    });
    // --- distractor: repeated test run (fail, then pass) ----------------------------------
    let test_fail = {
        let line = format!(
            "thread 'queue::tests::lease_expiry_{}' panicked at src/queue/tests.rs:{}:9: assertion `left == right` failed",
            rng.hex(3),
            rng.range(10, 400)
        );
        let n = size(&mut rng);
        let out = build_output(&mut rng, n, Some((pos(5), &line)), &mut test_line);
        let f = fact("test-run", Role::Distractor, pos(5), &out, line);
        (
            out + "\n\ntest result: FAILED. 1 failed\n\nCommand exited with code 101",
            f,
        )
    };
    let test_pass = {
        let line = format!(
            "test result: ok. {} passed; 0 failed; {} ignored; finished in {}.{:02}s",
            rng.range(200, 900),
            rng.range(0, 9),
            rng.range(3, 40),
            rng.range(0, 99)
        );
        let n = size(&mut rng);
        let out = build_output(&mut rng, n, Some((Pos::Tail, &line)), &mut test_line);
        let f = fact("test-run", Role::Distractor, Pos::Tail, &out, line);
        (out, f)
    };
    // --- distractor: listing -------------------------------------------------------------
    {
        let line = format!(
            "./vendor/{}-sys/{}/lib_{}.c",
            rng.pick(&["lz4", "zstd", "ring"]),
            rng.pick(MODULES),
            rng.hex(6)
        );
        let n = size(&mut rng);
        let mut extra = vec![
            "./config/broker.toml".to_string(),
            "./src/queue/lease.rs".to_string(),
            "./logs/worker.log".to_string(),
            "./docs/runbook.md".to_string(),
        ];
        let mut g = |r: &mut Rng| {
            if !extra.is_empty() && r.range(0, 20) == 0 {
                extra.pop().unwrap_or_default()
            } else {
                path_line(r)
            }
        };
        let out = build_output(&mut rng, n, Some((pos(6), &line)), &mut g);
        steps.push(Step {
            tool: "bash",
            args: json!({"command": "find . -type f -not -path './.git/*'"}),
            facts: vec![fact("listing", Role::Distractor, pos(6), &out, line)],
            output: out,
            is_error: false,
            remark: "The tree is large.",
        });
    }
    // --- distractor: unrelated history ------------------------------------------------------
    {
        let line = format!(
            "    docs: Fix typo in the {} guide ({})",
            rng.pick(MODULES),
            rng.hex(7)
        );
        let n = size(&mut rng);
        let out = build_output(&mut rng, n, Some((pos(7), &line)), &mut git_log_line);
        steps.push(Step {
            tool: "bash",
            args: json!({"command": "git log -n 400 --format='commit %H%n    %s'"}),
            facts: vec![fact("unrelated", Role::Distractor, pos(7), &out, line)],
            output: out,
            is_error: false,
            remark: "Recent history, nothing relevant.",
        });
    }
    // Shuffle the investigation order, then put the re-read and the passing test run after
    // their first occurrence.
    rng.shuffle(&mut steps);
    let first_read = steps
        .iter()
        .position(|s| s.args == json!({"path": "docs/runbook.md"}))
        .unwrap_or(0);
    let at = rng.range(first_read as u64 + 1, steps.len() as u64) as usize;
    steps.insert(
        at,
        Step {
            tool: "read",
            args: json!({"path": "docs/runbook.md"}),
            output: reread.0,
            is_error: false,
            facts: vec![],
            remark: "Re-read the runbook to be sure.",
        },
    );
    let fail_at = rng.range(0, steps.len() as u64 - 1) as usize;
    steps.insert(
        fail_at,
        Step {
            tool: "bash",
            args: json!({"command": "cargo test -p broker"}),
            output: test_fail.0,
            is_error: true,
            facts: vec![test_fail.1],
            remark: "One test fails; it is an unrelated flaky expiry test, I'll fix its timing.",
        },
    );
    steps.insert(fail_at + 1, Step { tool: "edit", args: json!({"path": "src/queue/tests.rs", "edits": [{"oldText": "sleep(Duration::from_millis(5))", "newText": "sleep(Duration::from_millis(50))"}]}), output: "Successfully replaced 1 block(s) in src/queue/tests.rs.".into(), is_error: false, facts: vec![], remark: "" });
    let pass_at = rng.range(fail_at as u64 + 2, steps.len() as u64) as usize;
    steps.insert(
        pass_at,
        Step {
            tool: "bash",
            args: json!({"command": "cargo test -p broker"}),
            output: test_pass.0,
            is_error: false,
            facts: vec![test_pass.1],
            remark: "All green now.",
        },
    );
    // Small fillers.
    for (tool, args, out) in [
        ("bash", json!({"command": "git status --short"}), " M src/queue/tests.rs\n?? notes/\n".to_string()),
        ("read", json!({"path": "Cargo.toml"}), "[package]\nname = \"broker\"\nversion = \"0.9.2\"\nedition = \"2021\"\n\n[dependencies]\ntokio = \"1\"\nserde = \"1\"\n".to_string()),
        ("bash", json!({"command": "ls src/queue"}), "lease.rs\nmod.rs\nretry.rs\ntests.rs\n".to_string()),
    ] {
        let at = rng.range(0, steps.len() as u64) as usize;
        steps.insert(at, Step { tool, args, output: out, is_error: false, facts: vec![], remark: "" });
    }

    // --- write the session ----------------------------------------------------------------
    let name = format!("needles-s{}-{:03}", cfg.seed, index);
    let mut w = W {
        rng: Rng::new(cfg.seed ^ (index as u64).wrapping_mul(0xA24B_AED4_963E_E407)),
        lines: Vec::new(),
        parent: None,
        ms: 1_773_475_200_000 + index as i64 * 86_400_000,
        calls: 0,
        region: Vec::new(),
        tail: false,
        tail_first_id: String::new(),
        tail_text: Vec::new(),
    };
    let header = json!({"type": "session", "version": 3, "id": format!("01a22b23-{}-7{}-8{}-{}", w.rng.hex(4), w.rng.hex(3), w.rng.hex(3), w.rng.hex(12)),
        "timestamp": epoch_ms_to_iso(w.ms), "cwd": CWD});
    w.lines.push(header.to_string());
    {
        let id = w.rng.hex(8);
        w.lines.push(json!({"type": "model_change", "id": id, "parentId": null, "timestamp": epoch_ms_to_iso(w.ms), "provider": "mock", "modelId": "mock-coder"}).to_string());
        w.parent = Some(id);
    }
    w.user("The broker drops jobs under load. Investigate: look at the worker logs, the broker config, the running stack and the queue code, then we'll fix it.");
    let prompts = [
        "Keep digging; check the tests too.",
        "What else do we know? Look around the repo.",
        "Continue the investigation.",
        "Anything in the history or docs?",
    ];
    let turns = 4usize;
    let per = steps.len().div_ceil(turns);
    let mut facts = Vec::new();
    for (t, chunk) in steps.chunks(per).enumerate() {
        if t > 0 {
            w.user(prompts[(t - 1) % prompts.len()]);
        }
        // One or two calls per assistant message.
        let mut i = 0;
        while i < chunk.len() {
            let k = if i + 1 < chunk.len() && w.rng.range(0, 2) == 0 {
                2
            } else {
                1
            };
            let group = &chunk[i..i + k];
            let calls: Vec<(&str, Value)> =
                group.iter().map(|s| (s.tool, s.args.clone())).collect();
            let text = if i == 0 { "Let me look." } else { "" };
            let ids = w.assistant(text, &calls);
            for (s, id) in group.iter().zip(&ids) {
                w.result(id, s.tool, &s.output, s.is_error);
                for f in &s.facts {
                    let mut f = f.clone();
                    f.call_id = id.clone();
                    facts.push(f);
                }
            }
            let remarks: Vec<&str> = group
                .iter()
                .map(|s| s.remark)
                .filter(|r| !r.is_empty())
                .collect();
            if !remarks.is_empty() {
                w.assistant(&remarks.join(" "), &[]);
            }
            i += k;
        }
        w.assistant("Noted. Waiting for the next step.", &[]);
    }
    // --- the kept tail -------------------------------------------------------------------------
    w.tail = true;
    let mut user = String::from("Now let's fix it.");
    for n in &needs_user {
        user.push_str("\n- ");
        user.push_str(n);
    }
    w.user(&user);
    let mut plan = String::from("Plan:");
    for (i, n) in needs_user.iter().chain(&needs_plan).enumerate() {
        plan.push_str(&format!("\n{}. {n}", i + 1));
    }
    w.assistant(&plan, &[]);
    let tail_text = w.tail_text.join("\n");
    Generated {
        name,
        lines: w.lines,
        facts,
        tail_first_id: w.tail_first_id,
        tail_text,
        region: w.region,
    }
}

// ---------------------------------------------------------------------------------------------
// Running compact
// ---------------------------------------------------------------------------------------------

/// Write a generated session to `dir/NAME.jsonl`.
pub fn write(g: &Generated, dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    let path = dir.join(format!("{}.jsonl", g.name));
    let mut text = g.lines.join("\n");
    text.push('\n');
    std::fs::write(&path, text).with_context(|| format!("{}", path.display()))?;
    Ok(path)
}

/// `keepRecentTokens` that puts pi's cut at the tail's user message: the tail's tokens.
pub fn keep_for(path: &Path, g: &Generated) -> Result<u64> {
    let s = Session::open(path)?;
    let t = Tree::build(&s);
    let p = Projection::build(&s, &t);
    let pos = p
        .entries
        .iter()
        .position(|pe| {
            s.entries[pe.idx]
                .id
                .as_ref()
                .map(|k| k.display().to_string())
                == Some(g.tail_first_id.clone())
        })
        .context("tail entry not projected")?;
    Ok(p.entries[pos..]
        .iter()
        .flat_map(|pe| pe.messages.iter())
        .map(|m| m.tokens0())
        .sum())
}

/// What one compaction (or baseline) left.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    pub session: String,
    pub method: String,
    pub region_before: u64,
    pub region_after: u64,
    pub total_before: u64,
    pub total_after: u64,
    /// Planted line → retained?
    pub retained: Vec<bool>,
    /// Pair actions (ours only): keep / stub / drop / pinned counts.
    pub actions: [usize; 4],
}

/// Compact `path` with `scorer` (as the CLI would) and check every fact.
pub fn run_compact(
    path: &Path,
    g: &Generated,
    keep: u64,
    scorer: &dyn Scorer,
    method: &str,
    ratio: Option<f64>,
) -> Result<(RunResult, compact::CompactPlan)> {
    let l = Loaded::open(path)?;
    // With a ratio: the budgeted selector, as `pi-shake compact --target-ratio R` runs it.
    let opts = CompactOptions {
        keep_recent_tokens: keep,
        budget: ratio.map(|r| compact::budget::BudgetSpec {
            target_ratio: Some(r),
            max_summary_tokens: None,
            source: "needles".into(),
        }),
        ..CompactOptions::default()
    };
    let out = compact::plan(&l, &opts, scorer, &NoProgress, &mut l.fetcher())?;
    let Outcome::Ready(plan) = out else {
        bail!("{}: nothing to compact", g.name)
    };
    if plan.cut.first_kept_id != g.tail_first_id {
        bail!(
            "{}: cut at {} instead of the tail ({})",
            g.name,
            plan.cut.first_kept_id,
            g.tail_first_id
        );
    }
    let projected = format!("{}\n{}", plan.summary, g.tail_text);
    let mut actions = [0usize; 4];
    for pr in &plan.pairs {
        let i = match pr.action {
            compact::Action::Keep => 0,
            compact::Action::Stub => 1,
            compact::Action::Drop => 2,
            _ => 3,
        };
        actions[i] += 1;
    }
    let other = plan.sizes.context_estimate_before - plan.sizes.region_before;
    Ok((
        RunResult {
            session: g.name.clone(),
            method: method.to_string(),
            region_before: plan.sizes.region_before,
            region_after: plan.sizes.region_after,
            total_before: plan.sizes.context_estimate_before,
            total_after: other + plan.sizes.region_after,
            retained: g
                .facts
                .iter()
                .map(|f| projected.contains(&f.line))
                .collect(),
            actions,
        },
        *plan,
    ))
}

/// How a baseline treats a tool output.
#[derive(Clone, Copy, Debug)]
pub enum Cut {
    /// Everything verbatim.
    None,
    /// No output at all.
    Drop,
    /// First and last `n` chars.
    HeadTail(usize),
    /// pi's summarizer input: the first 2,000 chars + `[... N more characters truncated]`.
    Pi,
    /// pi's cut at another size: the first `n` chars + the same marker.
    Head(usize),
}

fn chars_head(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((b, _)) => &s[..b],
        None => s,
    }
}

fn chars_tail(s: &str, n: usize) -> &str {
    let len = s.chars().count();
    if len <= n {
        return s;
    }
    match s.char_indices().nth(len - n) {
        Some((b, _)) => &s[b..],
        None => s,
    }
}

/// pi's conversation serialisation (`docs/pi-format.md#pis-own-summary`) of the region with
/// `cut` applied.
pub fn serialise(region: &[Msg], cut: Cut) -> String {
    let mut out: Vec<String> = Vec::new();
    for m in region {
        match m {
            Msg::User(t) => out.push(format!("[User]: {t}")),
            Msg::Assistant { text, calls } => {
                if !text.is_empty() {
                    out.push(format!("[Assistant]: {text}"));
                }
                if !calls.is_empty() {
                    let c: Vec<String> = calls
                        .iter()
                        .map(|(_, name, args)| {
                            let kv: Vec<String> = args
                                .as_object()
                                .map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect())
                                .unwrap_or_default();
                            format!("{name}({})", kv.join(", "))
                        })
                        .collect();
                    out.push(format!("[Assistant tool calls]: {}", c.join("; ")));
                }
            }
            Msg::ToolResult { output } => {
                let len = output.chars().count();
                let body = match cut {
                    Cut::None => output.clone(),
                    Cut::Drop => continue,
                    Cut::HeadTail(n) if len > 2 * n => format!(
                        "{}\n[... {} characters omitted]\n{}",
                        chars_head(output, n),
                        len - 2 * n,
                        chars_tail(output, n)
                    ),
                    Cut::HeadTail(_) => output.clone(),
                    Cut::Pi if len > 2_000 => format!(
                        "{}\n\n[... {} more characters truncated]",
                        chars_head(output, 2_000),
                        len - 2_000
                    ),
                    Cut::Pi => output.clone(),
                    Cut::Head(n) if len > n => format!(
                        "{}\n\n[... {} more characters truncated]",
                        chars_head(output, n),
                        len - n
                    ),
                    Cut::Head(_) => output.clone(),
                };
                out.push(format!("[Tool result]: {body}"));
            }
        }
    }
    out.join("\n\n")
}

/// A baseline's result, with `ours` for the before sizes.
pub fn run_baseline(g: &Generated, ours: &RunResult, cut: Cut, method: &str) -> RunResult {
    let text = serialise(&g.region, cut);
    let region_after = match cut {
        Cut::None => ours.region_before,
        _ => (utf16_len(&text) as u64).div_ceil(4),
    };
    let projected = format!("{text}\n{}", g.tail_text);
    let other = ours.total_before - ours.region_before;
    RunResult {
        session: g.name.clone(),
        method: method.to_string(),
        region_before: ours.region_before,
        region_after,
        total_before: ours.total_before,
        total_after: other + region_after,
        retained: g
            .facts
            .iter()
            .map(|f| projected.contains(&f.line))
            .collect(),
        actions: [0; 4],
    }
}

/// Sanity: no planted line leaks into the tail or the region's own words.
pub fn check_isolation(g: &Generated) -> Result<()> {
    let words = serialise(&g.region, Cut::Drop);
    for f in &g.facts {
        if g.tail_text.contains(&f.line) || words.contains(&f.line) {
            bail!("{}: planted line leaks: {}", g.name, f.line);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Aggregation
// ---------------------------------------------------------------------------------------------

/// Totals of one method over the suite.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub method: String,
    pub needles: usize,
    pub needles_kept: usize,
    pub middle: usize,
    pub middle_kept: usize,
    pub distractors: usize,
    pub distractors_kept: usize,
    pub region_before: u64,
    pub region_after: u64,
    pub total_before: u64,
    pub total_after: u64,
    pub actions: [usize; 4],
}

impl Summary {
    pub fn needle_retention(&self) -> f64 {
        ratio(self.needles_kept, self.needles)
    }
    pub fn middle_retention(&self) -> f64 {
        ratio(self.middle_kept, self.middle)
    }
    pub fn distractor_retention(&self) -> f64 {
        ratio(self.distractors_kept, self.distractors)
    }
    pub fn region_cut(&self) -> f64 {
        1.0 - self.region_after as f64 / self.region_before.max(1) as f64
    }
    pub fn total_cut(&self) -> f64 {
        1.0 - self.total_after as f64 / self.total_before.max(1) as f64
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// Sum `runs` (one per session, same order as `suite`) for `method`, restricted by `filter`.
pub fn summarise(
    method: &str,
    suite: &[Generated],
    runs: &[RunResult],
    filter: &dyn Fn(&Fact) -> bool,
) -> Summary {
    let mut s = Summary {
        method: method.to_string(),
        ..Default::default()
    };
    for (g, r) in suite.iter().zip(runs) {
        s.region_before += r.region_before;
        s.region_after += r.region_after;
        s.total_before += r.total_before;
        s.total_after += r.total_after;
        for k in 0..4 {
            s.actions[k] += r.actions[k];
        }
        for (f, &kept) in g.facts.iter().zip(&r.retained) {
            if !filter(f) {
                continue;
            }
            match f.role {
                Role::Needle => {
                    s.needles += 1;
                    s.needles_kept += usize::from(kept);
                    if f.pos == Pos::Middle {
                        s.middle += 1;
                        s.middle_kept += usize::from(kept);
                    }
                }
                Role::Distractor => {
                    s.distractors += 1;
                    s.distractors_kept += usize::from(kept);
                }
            }
        }
    }
    s
}

/// The head+tail size whose suite-total region tokens come closest to `target` from below.
pub fn head_tail_for(suite: &[Generated], ours: &[RunResult], target: u64) -> usize {
    size_for(suite, ours, target, Cut::HeadTail)
}

/// The size `n` of `cut(n)` whose suite-total region tokens come closest to `target` from below.
pub fn size_for(
    suite: &[Generated],
    ours: &[RunResult],
    target: u64,
    cut: fn(usize) -> Cut,
) -> usize {
    let total = |n: usize| -> u64 {
        suite
            .iter()
            .zip(ours)
            .map(|(g, r)| run_baseline(g, r, cut(n), "").region_after)
            .sum()
    };
    let (mut lo, mut hi) = (0usize, 400_000usize);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if total(mid) <= target {
            lo = mid
        } else {
            hi = mid
        }
    }
    lo
}
