//! A sealed held-out needle set (`--sealed N`): synthetic pi v3 sessions of coding-agent work,
//! each hiding 3 to 5 needle lines in its tool outputs that the session goes on to use after the
//! cut. Written without reading the other needle generators or the scorer, as an independent
//! check on them.
//!
//! Projects: `ledgerline` (Scala 2.13 / Spark 3.5 batch job, sbt), `parley` (Elixir / Phoenix
//! chat, mix), `gauge-board` (Vue 3 + Vite dashboard, pnpm), `Harborline.Api` (.NET 8 / C# web
//! API, dotnet), `quill.nvim` (Lua Neovim plugin, busted and luacheck).
//!
//! Tools: `read`, `bash`, `grep`, `find`, `ls`, `edit`, `write`, and the custom `http_request`.
//!
//! Output formats (and needle kinds, one kind per format): `build-log`, `test-run`,
//! `stack-trace`, `json-api` (one object per line), `sql-table` (psql / sqlite aligned rows),
//! `query-plan` (EXPLAIN ANALYZE nodes), `diff` (unified diff lines), `source` (a file read),
//! `config` (key/value settings), `profile` (sampling profiler rows), `deps` (dependency tree),
//! `ci-log` (timestamped CI job lines), `lint` (path:line:col findings), `grep` (search hits),
//! `find` (file paths with the `find` tool), `git-log` (one commit a line).
//!
//! Every output is built from one record template (plus a few frame lines: headers, footers,
//! exception headers, caret lines); a needle is a record line drawn uniformly within its band
//! (head = the first 20% of the output's lines, tail = the last 20%, middle = between) among the
//! records that hold a distinctive string found nowhere else in the prefix, so it is no richer in
//! distinctive strings or error words than its look-alikes. 2 to 4 other such records of the same
//! output are its distractors, used nowhere later. Outputs are 2 to 80 KB (log-uniform, capped per
//! format), plus a few small edits, writes and listings.
//!
//! The prefix ends with a words-only request (it may say what a needle is about, never quote it)
//! and one small tool call; the later part starts with "Go ahead." and then, per needle, an
//! assistant step quoting a distinctive string that the prefix holds only in the needle line (in
//! its text, its tool-call arguments, or both), and its result. The last large output holds at
//! least 2,600 tokens, so at keepRecentTokens 1,500 every needle is in the compacted region.
//! A draw that breaks any of these rules is redrawn.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Value, json};

use super::harness::{self, CaseSpec, distinctive_iter};

/// One generated session.
pub struct Generated {
    pub name: String,
    pub lines: Vec<String>,
    /// The first line of the later part (the prefix is `lines[..cut_line]`).
    pub cut_line: usize,
    /// (kind, whole needle line, head|middle|tail).
    pub needles: Vec<(String, String, String)>,
    pub distractors: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// A tiny deterministic RNG (splitmix64)
// ---------------------------------------------------------------------------------------------

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut r = Rng(seed ^ 0x5EA1_ED00_C0DE_F00D);
        r.next();
        r
    }

    pub fn next(&mut self) -> u64 {
        harness::splitmix64(&mut self.0)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }

    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }

    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }

    pub fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16)]))
            .collect()
    }

    pub fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..n).map(|_| char::from(A[self.below(A.len())])).collect()
    }

    pub fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|i| {
                char::from(
                    b'0' + if i == 0 {
                        1 + self.below(9)
                    } else {
                        self.below(10)
                    } as u8,
                )
            })
            .collect()
    }
}

fn mix(seed: u64, index: usize, attempt: usize) -> u64 {
    let mut r = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ index as u64);
    let a = r.next();
    a ^ (attempt as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------

/// `Date.prototype.toISOString()` of epoch milliseconds.
pub fn iso(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil_from_days.
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

/// (provider, api, model).
const MODELS: &[(&str, &str, &str)] = &[
    ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    ("anthropic", "anthropic-messages", "claude-opus-4-5"),
    ("openai", "openai-responses", "gpt-5.1-codex"),
    ("google", "google-generative-ai", "gemini-2.5-pro"),
];

struct Writer {
    lines: Vec<String>,
    parent: Value,
    ids: HashSet<String>,
    ms: u64,
    rng: Rng,
    model: (&'static str, &'static str, &'static str),
    /// Characters of the context so far (for plausible usage numbers).
    ctx_chars: u64,
}

impl Writer {
    fn new(rng: Rng, ms: u64, model: (&'static str, &'static str, &'static str)) -> Writer {
        Writer {
            lines: Vec::new(),
            parent: Value::Null,
            ids: HashSet::new(),
            ms,
            rng,
            model,
            ctx_chars: 0,
        }
    }

    fn tick(&mut self, lo: u64, hi: u64) -> u64 {
        self.ms += lo + self.rng.next() % (hi - lo + 1);
        self.ms
    }

    fn header(&mut self, cwd: &str) {
        let t = self.ms;
        let id = format!(
            "{:08x}-{:04x}-7{}-{}{}-{}",
            t >> 16,
            t & 0xffff,
            self.rng.hex(3),
            char::from(b"89ab"[self.rng.below(4)]),
            self.rng.hex(3),
            self.rng.hex(12)
        );
        let h = json!({"type": "session", "version": 3, "id": id, "timestamp": iso(t), "cwd": cwd});
        self.lines.push(h.to_string());
    }

    /// Append an entry: base fields first, then `extra`'s fields.
    fn entry(&mut self, kind: &str, extra: Value) {
        let id = loop {
            let id = self.rng.hex(8);
            if self.ids.insert(id.clone()) {
                break id;
            }
        };
        let mut e =
            json!({"type": kind, "id": id, "parentId": self.parent, "timestamp": iso(self.ms)});
        if let (Some(m), Value::Object(x)) = (e.as_object_mut(), extra) {
            m.extend(x);
        }
        self.lines.push(e.to_string());
        self.parent = Value::String(id);
    }

    fn model_change(&mut self) {
        self.tick(1, 120);
        let (provider, _, model) = self.model;
        self.entry(
            "model_change",
            json!({"provider": provider, "modelId": model}),
        );
    }

    fn thinking_level(&mut self, level: &str) {
        self.tick(1, 900);
        self.entry("thinking_level_change", json!({"thinkingLevel": level}));
    }

    fn user(&mut self, text: &str) {
        let t = self.tick(4_000, 90_000);
        self.ctx_chars += text.len() as u64;
        let m =
            json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": t});
        self.entry("message", json!({ "message": m }));
    }

    fn call_id(&mut self) -> String {
        match self.model.0 {
            "anthropic" => format!("toolu_01{}", self.rng.alnum(22)),
            "openai" => format!("call_{}", self.rng.alnum(24)),
            _ => format!("tool_{}_{}", self.rng.digits(4), self.rng.alnum(8)),
        }
    }

    /// An assistant message; `blocks` are content blocks.
    fn assistant(&mut self, blocks: Vec<Value>, stop: &str) {
        let t = self.tick(1_500, 40_000);
        let chars: u64 = blocks.iter().map(|b| b.to_string().len() as u64).sum();
        let (provider, api, model) = self.model;
        let input = 2_000 + self.ctx_chars / 4;
        let output = chars / 4 + 12;
        let cached = input * (60 + self.rng.next() % 35) / 100;
        let fresh = input - cached;
        let c_in = fresh as f64 * 3e-6;
        let c_out = output as f64 * 15e-6;
        let c_read = cached as f64 * 0.3e-6;
        let usage = json!({
            "input": fresh, "output": output, "cacheRead": cached, "cacheWrite": 0,
            "totalTokens": input + output,
            "cost": {"input": c_in, "output": c_out, "cacheRead": c_read, "cacheWrite": 0,
                     "total": c_in + c_out + c_read}
        });
        self.ctx_chars += chars;
        let m = json!({"role": "assistant", "content": blocks, "api": api, "provider": provider,
                       "model": model, "usage": usage, "stopReason": stop, "timestamp": t});
        self.entry("message", json!({ "message": m }));
    }

    fn tool_result(&mut self, call_id: &str, tool: &str, text: &str, is_error: bool) {
        let t = self.tick(80, 9_000);
        self.ctx_chars += text.len() as u64;
        let m = json!({"role": "toolResult", "toolCallId": call_id, "toolName": tool,
                       "content": [{"type": "text", "text": text}], "isError": is_error,
                       "timestamp": t});
        self.entry("message", json!({ "message": m }));
    }

    /// One step: optional thinking, prose, one tool call, and its result.
    fn step(
        &mut self,
        thinking: Option<&str>,
        prose: &str,
        tool: &str,
        args: Value,
        result: &str,
        is_error: bool,
    ) {
        let id = self.call_id();
        let mut blocks = Vec::new();
        if let Some(th) = thinking {
            let sig = self.rng.alnum(48);
            blocks.push(json!({"type": "thinking", "thinking": th, "thinkingSignature": sig}));
        }
        if !prose.is_empty() {
            blocks.push(json!({"type": "text", "text": prose}));
        }
        blocks.push(json!({"type": "toolCall", "id": id, "name": tool, "arguments": args}));
        self.assistant(blocks, "toolUse");
        self.tool_result(&id, tool, result, is_error);
    }

    fn say(&mut self, text: &str) {
        self.assistant(vec![json!({"type": "text", "text": text})], "stop");
    }
}

// ---------------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    Scala,
    Elixir,
    Ts,
    CSharp,
    Lua,
}

struct Project {
    key: &'static str,
    cwd: &'static str,
    lang: Lang,
    /// Namespace prefix of qualified names.
    ns: &'static str,
    words: &'static [&'static str],
    mods: &'static [&'static str],
    /// Source path patterns: `{w}` word, `{W}` Word, `{M}` Module, `{m}` module, `{s}` snake.
    paths: &'static [&'static str],
    build: &'static str,
    test: &'static str,
    lint: &'static str,
    deps_cmd: &'static str,
    deps: &'static [&'static str],
    tables: &'static [&'static str],
    /// The SQL client invocation, `{q}` = the query.
    sql: &'static str,
    config: &'static str,
    log: &'static str,
    tasks: &'static [&'static str],
}

const PROJECTS: &[Project] = &[
    Project {
        key: "ledgerline",
        cwd: "/home/dev/work/ledgerline",
        lang: Lang::Scala,
        ns: "io.ledgerline",
        words: &[
            "ledger",
            "posting",
            "account",
            "shard",
            "skew",
            "partition",
            "journal",
            "balance",
            "window",
            "watermark",
            "snapshot",
            "currency",
            "batch",
            "offset",
            "rollup",
            "checkpoint",
        ],
        mods: &[
            "LedgerReader",
            "PostingJoin",
            "SkewPlanner",
            "BalanceRollup",
            "JournalWriter",
            "CurrencyRates",
            "SnapshotStore",
            "WatermarkTracker",
            "AccountIndex",
            "PartitionSizer",
        ],
        paths: &[
            "src/main/scala/io/ledgerline/{w}/{M}.scala",
            "src/test/scala/io/ledgerline/{w}/{M}Spec.scala",
            "jobs/src/main/scala/io/ledgerline/jobs/{M}Job.scala",
        ],
        build: "sbt -Dsbt.log.noformat=true compile",
        test: "sbt -Dsbt.log.noformat=true 'testOnly io.ledgerline.*'",
        lint: "sbt -Dsbt.log.noformat=true 'scalafixAll --check'",
        deps_cmd: "sbt -Dsbt.log.noformat=true dependencyTree",
        deps: &[
            "spark-sql",
            "spark-core",
            "delta-spark",
            "hadoop-aws",
            "jackson-databind",
            "scala-logging",
            "cats-core",
            "circe-generic",
            "scalatest",
            "parquet-hadoop",
            "log4j-core",
            "zstd-jni",
            "snappy-java",
            "netty-handler",
            "commons-lang3",
        ],
        tables: &[
            "postings",
            "accounts",
            "journal_entries",
            "fx_rates",
            "balance_snapshots",
        ],
        sql: "psql \"$LEDGER_DB_URL\" -c \"{q}\"",
        config: "src/main/resources/application.conf",
        log: "logs/spark-driver.log",
        tasks: &[
            "The nightly balance rollup on the staging cluster now takes almost three hours and one stage keeps spilling to disk. Find out why and make the posting join cope with the few huge accounts.",
            "Reconciliation against the ledger export is off by a few cents for some currencies since last week. Track down where the rounding goes wrong in the rollup job and fix it with a test.",
        ],
    },
    Project {
        key: "parley",
        cwd: "/srv/src/parley",
        lang: Lang::Elixir,
        ns: "Parley",
        words: &[
            "room",
            "presence",
            "message",
            "member",
            "typing",
            "channel",
            "socket",
            "invite",
            "thread",
            "reaction",
            "mention",
            "digest",
            "roster",
            "broadcast",
            "token",
            "upload",
        ],
        mods: &[
            "Rooms",
            "Presence",
            "MessageStore",
            "RoomChannel",
            "InviteToken",
            "ThreadView",
            "ReactionCounter",
            "MentionParser",
            "DigestMailer",
            "RosterCache",
        ],
        paths: &[
            "lib/parley/{w}/{s}.ex",
            "lib/parley_web/channels/{s}_channel.ex",
            "lib/parley_web/live/{w}_live/{s}.ex",
            "test/parley/{w}/{s}_test.exs",
        ],
        build: "mix compile --force --verbose",
        test: "mix test --trace --seed 0",
        lint: "mix credo --strict --format oneline",
        deps_cmd: "mix deps.tree",
        deps: &[
            "phoenix",
            "phoenix_pubsub",
            "phoenix_live_view",
            "ecto_sql",
            "postgrex",
            "jason",
            "plug_cowboy",
            "telemetry_metrics",
            "swoosh",
            "oban",
            "bandit",
            "finch",
            "castore",
            "gettext",
            "floki",
        ],
        tables: &["messages", "rooms", "memberships", "reactions", "invites"],
        sql: "psql parley_dev -c \"{q}\"",
        config: "config/runtime.exs",
        log: "log/dev.log",
        tasks: &[
            "People in big rooms say typing indicators and presence lag by several seconds, and sometimes a message shows up twice after a reconnect. Please investigate the room channel and presence tracking and fix what you find.",
            "The daily digest mail went out empty for some members yesterday. Figure out why the digest query misses their rooms and add a regression test.",
        ],
    },
    Project {
        key: "gauge-board",
        cwd: "/home/mika/code/gauge-board",
        lang: Lang::Ts,
        ns: "gauge-board",
        words: &[
            "gauge",
            "series",
            "panel",
            "widget",
            "filter",
            "range",
            "tooltip",
            "legend",
            "metric",
            "query",
            "layout",
            "theme",
            "export",
            "alert",
            "sparkline",
            "heatmap",
        ],
        mods: &[
            "GaugePanel",
            "SeriesChart",
            "WidgetGrid",
            "FilterBar",
            "RangePicker",
            "LegendList",
            "MetricStore",
            "QueryClient",
            "AlertBadge",
            "HeatmapTile",
        ],
        paths: &[
            "src/components/{w}/{M}.vue",
            "src/stores/{m}.ts",
            "src/composables/use{M}.ts",
            "src/lib/{w}/{m}.ts",
            "tests/unit/{m}.spec.ts",
        ],
        build: "pnpm vite build --mode staging",
        test: "pnpm vitest run --reporter=verbose",
        lint: "pnpm eslint . --ext .ts,.vue --format unix",
        deps_cmd: "pnpm list --depth 1",
        deps: &[
            "vue",
            "vite",
            "pinia",
            "vue-router",
            "echarts",
            "vue-echarts",
            "dayjs",
            "axios",
            "zod",
            "vitest",
            "typescript",
            "eslint-plugin-vue",
            "@vueuse/core",
            "@vitejs/plugin-vue",
            "unplugin-icons",
        ],
        tables: &[
            "dashboards",
            "panels",
            "metric_points",
            "alerts",
            "saved_queries",
        ],
        sql: "psql \"$GAUGE_API_DB\" -c \"{q}\"",
        config: ".env.staging",
        log: "logs/preview-server.log",
        tasks: &[
            "The dashboard freezes for a second or two when someone picks the last thirty days on a board with many panels. Find what makes the range change so slow and speed it up without changing how the charts look.",
            "Exported panels come out with the wrong time zone on the axis labels for users abroad. Please find where the range gets converted and fix it, with a unit test.",
        ],
    },
    Project {
        key: "harborline",
        cwd: "/src/harborline",
        lang: Lang::CSharp,
        ns: "Harborline.Api",
        words: &[
            "berth", "vessel", "booking", "tariff", "invoice", "pilot", "harbor", "tide", "crane",
            "manifest", "customs", "slot", "permit", "arrival", "quay", "cargo",
        ],
        mods: &[
            "BerthService",
            "VesselRegistry",
            "BookingController",
            "TariffCalculator",
            "InvoiceBuilder",
            "PilotRoster",
            "TideTable",
            "CraneScheduler",
            "ManifestParser",
            "CustomsGateway",
        ],
        paths: &[
            "src/Harborline.Api/{W}/{M}.cs",
            "src/Harborline.Api/{W}s/{M}.cs",
            "src/Harborline.Domain/{W}/{M}.cs",
            "tests/Harborline.Api.Tests/{W}/{M}Tests.cs",
        ],
        build: "dotnet build -c Release -v n",
        test: "dotnet test --no-build -c Release --logger 'console;verbosity=normal'",
        lint: "dotnet format --verify-no-changes --severity info -v diag",
        deps_cmd: "dotnet list package --include-transitive",
        deps: &[
            "Microsoft.EntityFrameworkCore",
            "Npgsql.EntityFrameworkCore.PostgreSQL",
            "Serilog.AspNetCore",
            "Swashbuckle.AspNetCore",
            "FluentValidation",
            "MediatR",
            "Polly",
            "xunit",
            "Moq",
            "AutoMapper",
            "Dapper",
            "NodaTime",
            "Hangfire.Core",
            "StackExchange.Redis",
            "Microsoft.Extensions.Http",
        ],
        tables: &["berths", "vessels", "bookings", "tariffs", "invoices"],
        sql: "psql -h localhost -U harbor harborline -c \"{q}\"",
        config: "src/Harborline.Api/appsettings.Staging.json",
        log: "logs/harborline-api.log",
        tasks: &[
            "Berth bookings made close to midnight sometimes land on the wrong day and double-book a quay. Find the cause in the booking flow and fix it, keeping the public API unchanged.",
            "The invoice endpoint got slow since we added the tariff tiers, some requests take over eight seconds. Profile it, find the hot spot and make it fast again.",
        ],
    },
    Project {
        key: "quill",
        cwd: "/home/ren/dev/quill.nvim",
        lang: Lang::Lua,
        ns: "quill",
        words: &[
            "buffer",
            "window",
            "extmark",
            "highlight",
            "picker",
            "motion",
            "register",
            "layout",
            "preview",
            "session",
            "keymap",
            "cursor",
            "marker",
            "fold",
            "snippet",
            "gutter",
        ],
        mods: &[
            "Render", "Picker", "Marks", "Config", "Layout", "Preview", "Session", "Keymaps",
            "Util", "Health",
        ],
        paths: &[
            "lua/quill/{s}.lua",
            "lua/quill/{w}/{s}.lua",
            "tests/quill/{s}_spec.lua",
            "plugin/quill_{w}.lua",
        ],
        build: "luarocks make --local quill.nvim-scm-1.rockspec",
        test: "busted --verbose --output=TAP tests/",
        lint: "luacheck lua/ tests/ --formatter plain --codes",
        deps_cmd: "luarocks list --porcelain",
        deps: &[
            "plenary.nvim",
            "nvim-treesitter",
            "telescope.nvim",
            "busted",
            "luassert",
            "luacheck",
            "penlight",
            "lua-cjson",
            "say",
            "mediator_lua",
            "luafilesystem",
            "dkjson",
            "inspect",
            "argparse",
            "ansicolors",
        ],
        tables: &["history", "marks", "sessions", "snippets", "jumps"],
        sql: "sqlite3 -header -column ~/.local/share/nvim/quill/state.db \"{q}\"",
        config: "lua/quill/defaults.lua",
        log: "~/.local/state/nvim/quill.log",
        tasks: &[
            "With large files the gutter markers flicker and the cursor jumps when I scroll fast. Please find where the redraw happens too often and make it smooth again.",
            "Restoring a saved session loses the marks in split windows. Find out why the marks are not written back and fix it with a spec.",
        ],
    },
];

const VERBS: &[&str] = &[
    "load", "apply", "merge", "split", "resolve", "flush", "encode", "track", "render", "compute",
    "fetch", "build", "sync", "emit", "parse", "prune", "collect", "refresh", "drain", "stage",
    "reload", "decode", "rank", "scan",
];

fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

fn snake(camel: &str) -> String {
    let mut s = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_lowercase().chain(c).collect())
}

impl Project {
    fn word(&self, r: &mut Rng) -> &'static str {
        r.pick(self.words)
    }

    /// A module or class name: a known one, or one made of the project's words.
    fn module(&self, r: &mut Rng) -> String {
        if r.chance(0.5) {
            return r.pick(self.mods).to_string();
        }
        let suffix = r.pick(&[
            "Reader", "Writer", "Planner", "Store", "Cache", "View", "Parser", "Service",
            "Builder", "Index", "Tracker", "Policy", "Worker", "Client",
        ]);
        let (a, b) = (self.word(r), self.word(r));
        if a != b && r.chance(0.4) {
            format!("{}{}{suffix}", cap(a), cap(b))
        } else {
            format!("{}{suffix}", cap(a))
        }
    }

    /// A function name in the project's style.
    fn func(&self, r: &mut Rng) -> String {
        let v = r.pick(VERBS);
        let (a, b) = (self.word(r), self.word(r));
        let two = r.chance(0.75) && a != b;
        match self.lang {
            Lang::Elixir | Lang::Lua if two => format!("{v}_{a}_{b}"),
            Lang::Elixir | Lang::Lua => format!("{v}_{a}"),
            Lang::CSharp if two => format!("{}{}{}", cap(v), cap(a), cap(b)),
            Lang::CSharp => format!("{}{}", cap(v), cap(a)),
            _ if two => format!("{v}{}{}", cap(a), cap(b)),
            _ => format!("{v}{}", cap(a)),
        }
    }

    /// A local variable name in the project's style.
    fn var(&self, r: &mut Rng) -> String {
        let (a, b) = (self.word(r), self.word(r));
        let suffix = r.pick(&[
            "count", "ids", "size", "limit", "map", "key", "ms", "rows", "state", "total",
            "cursor", "delay", "ratio", "budget", "retries", "bytes",
        ]);
        let first = if r.chance(0.7) && a != b {
            format!("{a}_{b}")
        } else {
            a.to_string()
        };
        match self.lang {
            Lang::Elixir | Lang::Lua => format!("{first}_{suffix}"),
            _ => {
                let parts: Vec<String> = first.split('_').chain([suffix]).map(cap).collect();
                lower_first(&parts.concat())
            }
        }
    }

    /// A source path.
    fn path(&self, r: &mut Rng) -> String {
        let pat = r.pick(self.paths);
        let w = self.word(r);
        let m = self.module(r);
        pat.replace("{w}", w)
            .replace("{W}", &cap(w))
            .replace("{M}", &m)
            .replace("{m}", &lower_first(&m))
            .replace("{s}", &snake(&m))
    }

    /// A qualified module name (for stack frames and profiles).
    fn qualified(&self, r: &mut Rng) -> String {
        let w = self.word(r);
        let m = self.module(r);
        match self.lang {
            Lang::Scala => format!("{}.{w}.{m}", self.ns),
            Lang::Elixir | Lang::CSharp => format!("{}.{}.{m}", self.ns, cap(w)),
            Lang::Ts => m,
            Lang::Lua => format!("{}.{}", self.ns, snake(&m)),
        }
    }

    fn ext(&self) -> &'static str {
        match self.lang {
            Lang::Scala => "scala",
            Lang::Elixir => "ex",
            Lang::Ts => "ts",
            Lang::CSharp => "cs",
            Lang::Lua => "lua",
        }
    }
}

/// A number that looks like a setting, a size or a duration.
fn num(r: &mut Rng) -> String {
    match r.below(5) {
        0 => r.range(2, 64).to_string(),
        1 => (r.range(1, 40) * 50).to_string(),
        2 => r.range(100, 9_999).to_string(),
        3 => format!("{}_{:03}", r.range(1, 90), r.below(1000)),
        _ => format!("{}.{}", r.range(0, 9), r.range(5, 95)),
    }
}

/// One line of source code in the project's language.
fn code_line(r: &mut Rng, p: &Project) -> String {
    let (v, v2, f, m, w) = (p.var(r), p.var(r), p.func(r), p.module(r), p.word(r));
    let n = num(r).replace('.', "");
    let n = if p.lang == Lang::Lua {
        n.replace('_', "")
    } else {
        n
    };
    match (p.lang, r.below(6)) {
        (Lang::Scala, 0) => format!("    val {v} = {m}.{f}({v2}, {n})"),
        (Lang::Scala, 1) => {
            format!("  def {f}({v}: Dataset[{m}], {v2}: Int = {n}): DataFrame = {{")
        }
        (Lang::Scala, 2) => format!(
            "    if ({v}.rdd.getNumPartitions > {n}) {v}.coalesce({}) else {v}",
            r.range(8, 400)
        ),
        (Lang::Scala, 3) => format!(
            "      .withColumn(\"{}\", col(\"{}\") * lit({n}))",
            snake(&v),
            snake(&v2)
        ),
        (Lang::Scala, 4) => {
            format!("    logger.info(s\"{f} finished {w} in ${{{v}}} ms ({n} rows)\")")
        }
        (Lang::Scala, _) => format!(
            "  private val {v} = conf.getInt(\"ledgerline.{w}.{}\")",
            snake(&v2)
        ),
        (Lang::Elixir, 0) => format!("    {v} = {}.{m}.{f}({v2}, {n})", p.ns),
        (Lang::Elixir, 1) => format!("  def {f}(%{m}{{id: {v}}} = {v2}, opts \\\\ []) do"),
        (Lang::Elixir, 2) => format!("    |> Enum.chunk_every({n}) |> Enum.map(&{f}/1)"),
        (Lang::Elixir, 3) => format!("    Logger.debug(\"{f} {w} took #{{{v}}}ms\", {w}_id: {v2})"),
        (Lang::Elixir, 4) => format!("  @{v} {n}"),
        (Lang::Elixir, _) => {
            format!("    Phoenix.PubSub.broadcast(Parley.PubSub, \"{w}:#{{{v}}}\", {{:{f}, {v2}}})")
        }
        (Lang::Ts, 0) => format!("  const {v} = {f}({v2}, {n});"),
        (Lang::Ts, 1) => format!("export function {f}({v}: {m}[], {v2} = {n}): {m}[] {{"),
        (Lang::Ts, 2) => {
            format!("    {v}.value = await api.get(`/api/{w}s/${{{v2}}}`, {{ timeout: {n} }});")
        }
        (Lang::Ts, 3) => format!(
            "  if ({v}.length > {n}) return {v}.slice(0, {});",
            r.range(10, 500)
        ),
        (Lang::Ts, 4) => format!(
            "  watch({v}, () => {f}({v2}), {{ flush: 'post', deep: {} }});",
            r.chance(0.5)
        ),
        (Lang::Ts, _) => format!("    {v}: '{w}-{}',", r.hex(6)),
        (Lang::CSharp, 0) => format!(
            "        var {v} = await _{v2}.{f}Async({}, cancellationToken);",
            lower_first(&m)
        ),
        (Lang::CSharp, 1) => {
            format!("    public async Task<{m}> {f}Async(Guid {v}, int {v2} = {n})")
        }
        (Lang::CSharp, 2) => format!(
            "        if ({v}.Count > {n}) return Results.Conflict(new {{ {} = {v2} }});",
            cap(w)
        ),
        (Lang::CSharp, 3) => format!(
            "        _logger.LogInformation(\"{f} {w} {{{}}} in {{ElapsedMs}} ms\", {v});",
            cap(&v2)
        ),
        (Lang::CSharp, 4) => format!("    private const int {} = {n};", cap(&v)),
        (Lang::CSharp, _) => format!(
            "            .Where(x => x.{}Id == {v} && x.{} < {n})",
            cap(w),
            cap(&v2)
        ),
        (Lang::Lua, 0) => format!("  local {v} = {}.{f}({v2}, {n})", snake(&m)),
        (Lang::Lua, 1) => format!("function M.{f}({v}, {v2})"),
        (Lang::Lua, 2) => format!(
            "  vim.api.nvim_buf_set_extmark({v}, ns_{w}, {n}, 0, {{ hl_group = \"Quill{}\" }})",
            cap(w)
        ),
        (Lang::Lua, 3) => format!("  if #{v} > {n} then return {f}({v2}) end"),
        (Lang::Lua, 4) => format!("  {v} = {n},"),
        (Lang::Lua, _) => format!("  vim.defer_fn(function() {f}({v}) end, {n})"),
    }
}

// ---------------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------------

/// A tool output: its lines, which of them are records (needle candidates), and its call.
struct Out {
    tool: &'static str,
    args: Value,
    /// The assistant's sentence before the call.
    intro: String,
    lines: Vec<String>,
    records: Vec<usize>,
    /// The file the output shows, when it shows one (for later edits).
    file: Option<String>,
    is_error: bool,
}

impl Out {
    fn new(tool: &'static str, args: Value, intro: &str) -> Out {
        Out {
            tool,
            args,
            intro: intro.to_string(),
            lines: Vec::new(),
            records: Vec::new(),
            file: None,
            is_error: false,
        }
    }

    fn frame(&mut self, s: impl Into<String>) {
        let s: String = s.into();
        self.lines.extend(s.split('\n').map(str::to_string));
    }

    fn rec(&mut self, s: impl Into<String>) {
        self.records.push(self.lines.len());
        self.lines.push(s.into());
    }

    fn bytes(&self) -> usize {
        self.lines.iter().map(|l| l.len() + 1).sum()
    }

    fn text(&self) -> String {
        self.lines.join("\n")
    }
}

/// A format: its needle kind, how a user would name one of its lines, the largest size it
/// comes in, and its maker (rng, project, target bytes).
struct Format {
    kind: &'static str,
    topics: &'static [&'static str],
    max_bytes: usize,
    make: fn(&mut Rng, &Project, usize) -> Out,
}

fn source(r: &mut Rng, p: &Project, target: usize) -> Out {
    let path = p.path(r);
    let mut o = Out::new(
        "read",
        json!({"path": path}),
        "Reading the file to see how it is wired.",
    );
    o.file = Some(path.clone());
    match p.lang {
        Lang::Scala => o.frame(format!("package io.ledgerline.{}", p.word(r))),
        Lang::Elixir => o.frame(format!("defmodule {} do", p.qualified(r))),
        Lang::Ts => o.frame("import { computed, ref, watch } from 'vue';"),
        Lang::CSharp => o.frame(format!("namespace {};", p.qualified(r))),
        Lang::Lua => o.frame("local M = {}"),
    }
    o.frame("");
    while o.bytes() < target {
        o.rec(code_line(r, p));
        if r.chance(0.12) {
            o.frame("");
        }
    }
    o.frame("");
    o.frame(match p.lang {
        Lang::Elixir => "end",
        Lang::Lua => "return M",
        _ => "}",
    });
    o
}

fn find(r: &mut Rng, p: &Project, target: usize) -> Out {
    let pattern = format!("**/*.{}", p.ext());
    let mut o = Out::new(
        "find",
        json!({"pattern": pattern}),
        "Listing the source files to see the layout.",
    );
    let mut seen = HashSet::new();
    let mut misses = 0;
    while o.bytes() < target && misses < 200 {
        let path = p.path(r);
        if path.ends_with(&format!(".{}", p.ext())) && seen.insert(path.clone()) {
            o.rec(path);
        } else {
            misses += 1;
        }
    }
    o
}

const FORMATS: &[Format] = &[
    Format {
        kind: "source",
        topics: &[
            "the line we read in that source file",
            "the constant in the file you read earlier",
        ],
        max_bytes: 40_000,
        make: source,
    },
    Format {
        kind: "find",
        topics: &[
            "the odd file in the listing",
            "that stray file the file search turned up",
        ],
        max_bytes: 30_000,
        make: find,
    },
    Format {
        kind: "build-log",
        topics: &[
            "the compiler message in the build output",
            "that build warning we scrolled past",
        ],
        max_bytes: 80_000,
        make: build_log,
    },
    Format {
        kind: "test-run",
        topics: &[
            "the test in the test run that looked suspicious",
            "the slow test from the test output",
        ],
        max_bytes: 80_000,
        make: test_run,
    },
    Format {
        kind: "stack-trace",
        topics: &[
            "the frame of our own code in the crash trace",
            "where the stack trace pointed",
        ],
        max_bytes: 80_000,
        make: stack_trace,
    },
    Format {
        kind: "lint",
        topics: &[
            "one of the lint findings",
            "the linter complaint about that file",
        ],
        max_bytes: 60_000,
        make: lint,
    },
    Format {
        kind: "json-api",
        topics: &[
            "the record from the local API response that looked off",
            "that entry the endpoint returned",
        ],
        max_bytes: 80_000,
        make: json_api,
    },
    Format {
        kind: "sql-table",
        topics: &[
            "the row in the table we queried",
            "that database row from the query result",
        ],
        max_bytes: 60_000,
        make: sql_table,
    },
    Format {
        kind: "query-plan",
        topics: &[
            "the expensive node in the query plan",
            "the scan in the plan output",
        ],
        max_bytes: 40_000,
        make: query_plan,
    },
    Format {
        kind: "profile",
        topics: &[
            "the hot function in the profile",
            "that entry near the profiler numbers we looked at",
        ],
        max_bytes: 60_000,
        make: profile,
    },
    Format {
        kind: "deps",
        topics: &[
            "the package in the dependency tree we should pin",
            "that library version in the dependency listing",
        ],
        max_bytes: 40_000,
        make: deps,
    },
    Format {
        kind: "ci-log",
        topics: &[
            "the step in the pipeline log",
            "that line in the continuous integration output",
        ],
        max_bytes: 80_000,
        make: ci_log,
    },
    Format {
        kind: "grep",
        topics: &[
            "the search hit that matters",
            "the call site the search turned up",
        ],
        max_bytes: 60_000,
        make: grep_hits,
    },
    Format {
        kind: "git-log",
        topics: &[
            "the commit in the history that probably caused it",
            "that older change in the commit history",
        ],
        max_bytes: 50_000,
        make: git_log,
    },
    Format {
        kind: "config",
        topics: &[
            "the setting in the config file we read",
            "that timeout or limit in the configuration",
        ],
        max_bytes: 16_000,
        make: config,
    },
    Format {
        kind: "diff",
        topics: &[
            "the changed line in the branch diff",
            "the line the diff touched that worried you",
        ],
        max_bytes: 60_000,
        make: diff,
    },
];

// ---------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------

/// The band of line `at` among `n` lines.
fn band(n: usize, at: usize) -> &'static str {
    if at * 5 < n {
        "head"
    } else if at * 5 >= 4 * n {
        "tail"
    } else {
        "middle"
    }
}

const THOUGHTS: &[&str] = &[
    "The output is long; the relevant part could be anywhere, so I will skim it for the module we care about.",
    "I should check how this is wired before touching anything.",
    "Better to look at the whole picture first and change things afterwards.",
    "This is probably related to the earlier output, but I want to confirm it.",
];

const WRAPS: &[&str] = &[
    "The main change is in and the build passes locally. I noticed a few loose ends while reading the outputs above; tell me if you want me to take them on.",
    "That covers the core of the task. Some smaller things came up along the way that I have not touched yet.",
    "The fix is in place and the affected tests pass. A handful of side issues showed up in the logs and listings, which I left alone for now.",
];

const OPENERS: &[&str] = &[
    "Nice, that looks better.",
    "Thanks, good progress so far.",
    "Okay, that part is done.",
    "Great, the main thing works now.",
];
const CLOSERS: &[&str] = &[
    "Check where things stand first, then handle them one at a time.",
    "Keep each change small and tell me what you touched.",
    "Look at the current state before you start changing things.",
];

/// A small prefix step (an edit, a new file, a directory listing).
fn small_step(r: &mut Rng, p: &Project, w: &mut Writer, touched: &mut Vec<String>) {
    match r.below(3) {
        0 => {
            let path = p.path(r);
            let (old, new) = (code_line(r, p), code_line(r, p));
            let args =
                json!({"path": path, "edits": [{"oldText": old.trim(), "newText": new.trim()}]});
            let res = format!("Successfully replaced 1 block(s) in {path}.");
            w.step(None, "Making that change now.", "edit", args, &res, false);
            touched.push(path);
        }
        1 => {
            let path = p.path(r);
            let content: Vec<String> = (0..r.range(6, 14)).map(|_| code_line(r, p)).collect();
            let content = content.join("\n") + "\n";
            let res = format!("Successfully wrote {} bytes to {path}", content.len());
            w.step(
                None,
                "Adding a small file for this.",
                "write",
                json!({"path": path, "content": content}),
                &res,
                false,
            );
            touched.push(path);
        }
        _ => {
            let path = p.path(r);
            let dir = path.rsplit_once('/').map_or(".", |x| x.0).to_string();
            let mut names: Vec<String> = (0..r.range(4, 12))
                .map(|_| {
                    let q = p.path(r);
                    q.rsplit('/').next().unwrap_or("").to_string()
                })
                .collect();
            names.sort();
            names.dedup();
            w.step(
                None,
                "Checking what else lives in that folder.",
                "ls",
                json!({"path": dir}),
                &names.join("\n"),
                false,
            );
        }
    }
}

/// Replace the first run of digits of `s` with another number.
fn bump_number(s: &str) -> String {
    let Some(a) = s.find(|c: char| c.is_ascii_digit()) else {
        return format!("{s} // checked");
    };
    let b = s[a..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(s.len(), |x| a + x);
    let n: u64 = s[a..b].parse().unwrap_or(1);
    format!("{}{}{}", &s[..a], n.saturating_mul(2).max(2), &s[b..])
}

const KEY_TEXTS: &[&str] = &[
    "Starting with `{}`.",
    "`{}` is the one to change here.",
    "Next, following up on `{}`.",
    "Looking at where `{}` comes from.",
    "Now the item about `{}`.",
];
const PLAIN_TEXTS: &[&str] = &[
    "Next one.",
    "Checking the next item.",
    "On to the next follow-up.",
    "Now this one.",
];

/// Does `key` (up to a `:line`) look like a file path?
fn is_path(key: &str) -> bool {
    let path = key.split(':').next().unwrap_or(key);
    path.contains('/') && path.rsplit('/').next().is_some_and(|f| f.contains('.'))
}

/// One later step: an assistant message quoting `key` (in its text, its call, or both) and the
/// call's result.
fn later_step(
    r: &mut Rng,
    p: &Project,
    w: &mut Writer,
    kind: &str,
    key: &str,
    line: &str,
    file: Option<&str>,
) {
    // 0: the text quotes the key, 1: the call does, 2: both.
    let mode = r.below(3);
    // What a search for the key finds: call sites of an identifier, log lines of a value.
    let ident = key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && !key.chars().next().is_some_and(|c| c.is_ascii_digit());
    let hits = |r: &mut Rng, p: &Project| {
        (0..r.range(1, 3))
            .map(|_| {
                if ident {
                    format!("{}:{}:    {key}({})", p.path(r), r.range(3, 400), p.var(r))
                } else {
                    let (ts, f) = (stamp(r, 'T'), p.func(r));
                    format!(
                        "{}:{}:{ts} INFO {f} {key} ({} ms)",
                        p.log,
                        r.range(10, 90_000),
                        r.range(1, 900)
                    )
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (tool, args, result) = if mode == 0 {
        if r.chance(0.5) {
            let path = p.path(r);
            let body: Vec<String> = (0..r.range(5, 12)).map(|_| code_line(r, p)).collect();
            ("read", json!({"path": path}), body.join("\n"))
        } else {
            let res = format!(
                "{} passed, 0 failed ({} s)",
                r.range(40, 400),
                r.range(3, 90)
            );
            ("bash", json!({"command": p.test}), res)
        }
    } else {
        match (kind, file) {
            ("source" | "config", Some(f)) if r.chance(0.7) => {
                let args = json!({"path": f, "edits": [{"oldText": line.trim(), "newText": bump_number(line.trim())}]});
                (
                    "edit",
                    args,
                    format!("Successfully replaced 1 block(s) in {f}."),
                )
            }
            ("git-log", _) => {
                let cmd = format!("git show --stat {key}");
                let res = format!(
                    "commit {key}{}\nAuthor: dev <dev@example.org>\n\n {} | {} ++--",
                    r.hex(30),
                    p.path(r),
                    r.range(2, 40)
                );
                ("bash", json!({"command": cmd}), res)
            }
            _ if is_path(key) => {
                let mut parts = key.split(':');
                let path = parts.next().unwrap_or(key);
                let body: Vec<String> = (0..r.range(5, 12)).map(|_| code_line(r, p)).collect();
                let args = match parts.next().and_then(|l| l.parse::<usize>().ok()) {
                    Some(l) => {
                        json!({"path": path, "offset": l.saturating_sub(5).max(1), "limit": 30})
                    }
                    None => json!({"path": path}),
                };
                ("read", args, body.join("\n"))
            }
            ("json-api", _) => {
                let url = format!("http://localhost:4000/api/search?q={key}");
                let res = format!(
                    "HTTP/1.1 200 OK\ncontent-type: application/json\n\n{{\"data\": [{{\"id\": \"{key}\", \"status\": \"active\"}}]}}"
                );
                ("http_request", json!({"method": "GET", "url": url}), res)
            }
            _ if ident && r.chance(0.5) => {
                ("grep", json!({"pattern": key, "path": "."}), hits(r, p))
            }
            _ if ident => (
                "bash",
                json!({"command": format!("rg -n -F '{key}' .")}),
                hits(r, p),
            ),
            _ => {
                let dir = p.log.rsplit_once('/').map_or(".", |x| x.0);
                (
                    "bash",
                    json!({"command": format!("rg -n -F '{key}' {dir}")}),
                    hits(r, p),
                )
            }
        }
    };
    // (A call that names a file but not the key's `:line` leaves the quoting to the text.)
    let text = if mode == 1 && args.to_string().contains(key) {
        r.pick(PLAIN_TEXTS).to_string()
    } else {
        r.pick(KEY_TEXTS).replace("{}", key)
    };
    w.step(None, &text, tool, args, &result, false);
}

/// A needle of one output: its kind, line, label, the key chosen later, and the file shown.
struct Planted {
    kind: &'static str,
    label: &'static str,
    file: Option<String>,
    /// The output's lines and which of them are records.
    lines: Vec<String>,
    records: Vec<usize>,
    /// The needle line, chosen once the prefix is complete.
    line: String,
}

fn attempt(seed: u64, index: usize, tries: usize) -> Option<Generated> {
    let mut r = Rng::new(mix(seed, index, tries));
    let p = &PROJECTS[(index + (seed % PROJECTS.len() as u64) as usize) % PROJECTS.len()];
    let model = r.pick(MODELS);
    let start = 1_767_225_600_000 + r.below(300) as u64 * 86_400_000 + r.below(86_400_000) as u64;
    let mut w = Writer::new(Rng::new(r.next()), start, model);
    w.header(p.cwd);
    w.model_change();
    if r.chance(0.6) {
        w.thinking_level(r.pick(&["low", "medium", "high"]));
    }
    w.user(r.pick(p.tasks));

    // Tool calls of the prefix, the small one after the request included.
    let slots = r.range(8, 16) - 1;
    let n_small = r.range(1, 3).min(slots - 6);
    let mut big = vec![true; slots];
    let mut order: Vec<usize> = (0..slots - 1).collect();
    r.shuffle(&mut order);
    for &i in &order[..n_small] {
        big[i] = false;
    }
    let big_slots: Vec<usize> = (0..slots).filter(|&i| big[i]).collect();
    let n_needles = r.range(3, 5);
    let mut needle_slots = big_slots.clone();
    r.shuffle(&mut needle_slots);
    needle_slots.truncate(n_needles);
    let mut labels: Vec<&'static str> = Vec::new();
    let off = r.below(3);
    for k in 0..n_needles {
        labels.push(["head", "middle", "tail"][(k + off) % 3]);
    }
    r.shuffle(&mut labels);
    let mut fmts: Vec<usize> = (0..FORMATS.len()).collect();
    r.shuffle(&mut fmts);

    let mut planted: Vec<Planted> = Vec::new();
    let mut touched = Vec::new();
    let mut topics = Vec::new();
    let mut fi = 0;
    let mut level_changed = false;
    for (slot, &is_big) in big.iter().enumerate() {
        if !is_big {
            small_step(&mut r, p, &mut w, &mut touched);
            continue;
        }
        let f = &FORMATS[fmts[fi % fmts.len()]];
        fi += 1;
        let size = if slot == slots - 1 {
            r.log_uniform(10_500.0, f.max_bytes.max(12_000) as f64)
        } else {
            r.log_uniform(2_048.0, f.max_bytes as f64)
        } as usize;
        let mut out = (f.make)(&mut r, p, size);
        while out.lines.last().is_some_and(|l| l.trim().is_empty()) {
            out.lines.pop();
        }
        out.records
            .retain(|&i| i < out.lines.len() && !out.lines[i].trim().is_empty());
        // The last large output alone outweighs keepRecentTokens 1,500 (pi counts UTF-16 units).
        if slot == slots - 1 && out.text().encode_utf16().count() < 10_400 {
            return None;
        }
        if let Some(k) = needle_slots.iter().position(|&s| s == slot) {
            topics.push(r.pick(f.topics));
            planted.push(Planted {
                kind: f.kind,
                label: labels[k],
                file: out.file.clone(),
                lines: out.lines.clone(),
                records: out.records.clone(),
                line: String::new(),
            });
        }
        let thinking = r.chance(0.25).then(|| r.pick(THOUGHTS));
        w.step(
            thinking,
            &out.intro,
            out.tool,
            out.args.clone(),
            &out.text(),
            out.is_error,
        );
        if !level_changed && slot + 2 < slots && r.chance(0.08) {
            w.thinking_level(r.pick(&["medium", "high", "xhigh"]));
            level_changed = true;
        }
    }
    w.say(r.pick(WRAPS));
    ask_and_later(r, p, w, planted, topics, touched, seed, index)
}

/// The kept tail (a words-only request and one small call), the later part, and the checks.
#[allow(clippy::too_many_arguments)]
fn ask_and_later(
    mut r: Rng,
    p: &Project,
    mut w: Writer,
    mut planted: Vec<Planted>,
    topics: Vec<&str>,
    touched: Vec<String>,
    seed: u64,
    index: usize,
) -> Option<Generated> {
    let list = match topics.len() {
        0..=2 => topics.join(" and "),
        n => format!("{}, and {}", topics[..n - 1].join(", "), topics[n - 1]),
    };
    let ask = format!(
        "{} Before we wrap up, please follow up on a few things we saw along the way: {list}. {}",
        r.pick(OPENERS),
        r.pick(CLOSERS)
    );
    assert_eq!(
        distinctive_iter(&ask).count(),
        0,
        "a request with a distinctive string: {ask}"
    );
    w.user(&ask);
    let status: Vec<String> = touched.iter().map(|t| format!(" M {t}")).collect();
    let status = if status.is_empty() {
        "?? notes/".to_string()
    } else {
        status.join("\n")
    };
    w.step(
        None,
        "Checking the working tree first.",
        "bash",
        json!({"command": "git status --short"}),
        &status,
        false,
    );
    let cut_line = w.lines.len();
    w.user("Go ahead.");

    // Needles and their distractors are records holding a distinctive string that the prefix
    // holds only there (a needle's key must be one); the needle is drawn uniformly among such
    // records of its band, the distractors among those of the whole output.
    let body = w.lines[..cut_line].join("\n");
    let plain = body
        .replace("\\n", "\n")
        .replace("\\t", "\t")
        .replace("\\\"", "\"");
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in distinctive_iter(&plain) {
        *counts.entry(t).or_default() += 1;
    }
    let rich = |l: &str| distinctive_iter(l).any(|t| counts.get(t) == Some(&1));
    let exact = |l: &str| -> Vec<String> {
        distinctive_iter(l)
            .filter(|t| body.matches(t).count() == 1)
            .map(str::to_string)
            .collect()
    };
    let mut keys = Vec::new();
    let mut distractors = Vec::new();
    for n in planted.iter_mut() {
        let total = n.lines.len();
        let mut rich_recs: Vec<usize> = n
            .records
            .iter()
            .copied()
            .filter(|&i| rich(&n.lines[i]))
            .collect();
        r.shuffle(&mut rich_recs);
        let mut chosen = None;
        for &i in rich_recs.iter().filter(|&&i| band(total, i) == n.label) {
            let ks = exact(&n.lines[i]);
            if !ks.is_empty() {
                chosen = Some((i, ks));
                break;
            }
        }
        let (at, ks) = chosen?;
        n.line = n.lines[at].clone();
        // Prefer a name or an id (a few letters) to a bare number, date or duration.
        let named: Vec<&String> = ks
            .iter()
            .filter(|k| k.chars().filter(|c| c.is_ascii_alphabetic()).count() >= 4)
            .collect();
        keys.push(if named.is_empty() {
            ks[r.below(ks.len())].clone()
        } else {
            named[r.below(named.len())].clone()
        });
        let want = r.range(2, 4);
        let mut ds: Vec<String> = Vec::new();
        for &i in &rich_recs {
            let l = &n.lines[i];
            if ds.len() == want {
                break;
            }
            if *l != n.line && !ds.contains(l) && !exact(l).is_empty() {
                ds.push(l.clone());
            }
        }
        if ds.len() < 2 {
            return None;
        }
        distractors.extend(ds);
    }
    for (n, key) in planted.iter().zip(&keys) {
        later_step(&mut r, p, &mut w, n.kind, key, &n.line, n.file.as_deref());
    }
    w.say(r.pick(&[
        "All follow-ups are done and the tests pass.",
        "Done: each item is handled; the test suite is green.",
        "That covers the list. Everything builds and the tests pass.",
    ]));

    // Every key is used later; distractors stay unused: nothing only they hold shows up later.
    let later = w.lines[cut_line..].join("\n");
    if keys.iter().any(|k| !later.contains(k.as_str())) {
        return None;
    }
    for d in &distractors {
        let used = distinctive_iter(d).any(|t| body.matches(t).count() == 1 && later.contains(t));
        if used || planted.iter().any(|n| &n.line == d) {
            return None;
        }
    }
    Some(Generated {
        name: format!("sealed-{seed}-{index:03}-{}", p.key),
        lines: w.lines,
        cut_line,
        needles: planted
            .into_iter()
            .map(|n| (n.kind.to_string(), n.line, n.label.to_string()))
            .collect(),
        distractors,
    })
}

/// Session `index` of the set `seed` (deterministic).
pub fn generate_one(seed: u64, index: usize) -> Generated {
    for tries in 0..10_000 {
        if let Some(g) = attempt(seed, index, tries) {
            return g;
        }
    }
    panic!("sealed: no valid session for seed {seed} index {index}");
}

/// `n` sessions of the set `seed`, written under `work` (`<name>.jsonl` and
/// `<name>.prefix.jsonl`), one case each.
pub fn specs(seed: u64, n: usize, work: &Path) -> anyhow::Result<Vec<CaseSpec>> {
    harness::needle_specs(work, "sealed", n, |i| {
        let g = generate_one(seed, i);
        (g.name, g.lines, g.cut_line, g.needles, g.distractors)
    })
}

// ---------------------------------------------------------------------------------------------
// Formats: builds, tests, traces, lint
// ---------------------------------------------------------------------------------------------

/// A log timestamp near the session's day (`2026-MM-DD HH:MM:SS.mmm`).
fn stamp(r: &mut Rng, sep: char) -> String {
    let t = iso(1_767_225_600_000 + r.below(300 * 86_400_000) as u64);
    t[..23].replace('T', &sep.to_string())
}

fn build_log(r: &mut Rng, p: &Project, target: usize) -> Out {
    let args = json!({"command": p.build, "timeout": 900});
    let mut o = Out::new("bash", args, "Building to see where it stands.");
    let cwd = p.cwd;
    match p.lang {
        Lang::Scala => {
            o.frame("[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 17.0.12)");
            o.frame(format!(
                "[info] loading project definition from {cwd}/project"
            ));
            o.frame(format!(
                "[info] compiling {} Scala sources to {cwd}/target/scala-2.13/classes ...",
                r.range(120, 400)
            ));
        }
        Lang::Elixir => o.frame(format!("Compiling {} files (.ex)", r.range(90, 300))),
        Lang::Ts => {
            o.frame("vite v5.4.11 building for staging...");
            o.frame("transforming...");
            o.frame(format!("✓ {} modules transformed.", r.range(900, 3000)));
            o.frame("rendering chunks...");
        }
        Lang::CSharp => {
            o.frame("MSBuild version 17.11.4+37f6f3b4c for .NET");
            o.frame("  Determining projects to restore...");
            o.frame("  All projects are up-to-date for restore.");
        }
        Lang::Lua => o.frame("Missing dependencies for quill.nvim scm-1: none"),
    }
    while o.bytes() < target {
        let path = p.path(r);
        let (l, c) = (r.range(3, 900), r.range(1, 60));
        let (f, f2, v) = (p.func(r), p.func(r), p.var(r));
        match p.lang {
            Lang::Scala => {
                let msg = match r.below(3) {
                    0 => format!(
                        "method {f} in class {} is deprecated (since 3.{}.0): use {f2} instead",
                        p.module(r),
                        r.range(2, 5)
                    ),
                    1 => format!(
                        "Auto-application to `()` is deprecated. Supply the empty argument list `()` explicitly to invoke method {f}"
                    ),
                    _ => format!("local val {v} in method {f} is never used"),
                };
                o.rec(format!("[warn] {cwd}/{path}:{l}:{c}: {msg}"));
                o.frame(format!("[warn] {}", code_line(r, p)));
                o.frame(format!("[warn] {}^", " ".repeat(c + 3)));
            }
            Lang::Elixir => {
                o.frame(format!("    warning: variable \"{v}\" is unused (if the variable is not meant to be used, prefix it with an underscore)"));
                o.frame("    │");
                o.frame(format!("{l:>4} │ {}", code_line(r, p).trim_end()));
                o.frame(format!(
                    "     │ {}{}",
                    " ".repeat(c.min(30)),
                    "~".repeat(v.len())
                ));
                o.frame("     │");
                o.rec(format!(
                    "     └─ {path}:{l}:{c}: {}.{f}/{}",
                    p.qualified(r),
                    r.range(1, 4)
                ));
                o.frame("");
            }
            Lang::Ts => {
                let ext = r.pick(&["js", "js", "css"]);
                let kb = r.range(1, 900) as f64 + r.below(100) as f64 / 100.0;
                let name = format!("{}-{}", p.module(r), r.alnum(8));
                o.rec(format!(
                    "dist/assets/{name}.{ext}  {kb:>9.2} kB │ gzip: {:>7.2} kB",
                    kb / 3.4
                ));
            }
            Lang::CSharp => {
                let (code, msg) = match r.below(3) {
                    0 => (
                        "CS8602",
                        "Dereference of a possibly null reference.".to_string(),
                    ),
                    1 => (
                        "CS1998",
                        "This async method lacks 'await' operators and will run synchronously."
                            .to_string(),
                    ),
                    _ => (
                        "CS0168",
                        format!("The variable '{v}' is declared but never used"),
                    ),
                };
                o.rec(format!("{cwd}/{path}({l},{c}): warning {code}: {msg} [{cwd}/src/Harborline.Api/Harborline.Api.csproj]"));
            }
            Lang::Lua => {
                let dest = path.trim_start_matches("lua/");
                o.rec(format!("Installing {cwd}/{path} to /home/ren/.luarocks/share/lua/5.1/{dest} ({} bytes)", r.range(300, 40_000)));
            }
        }
    }
    o.frame(match p.lang {
        Lang::Scala => format!(
            "[success] Total time: {} s, completed {}",
            r.range(40, 400),
            stamp(r, ' ')
        ),
        Lang::Elixir => "Generated parley app".to_string(),
        Lang::Ts => format!("✓ built in {}.{:02}s", r.range(8, 90), r.below(100)),
        Lang::CSharp => format!(
            "Build succeeded.\n    {} Warning(s)\n    0 Error(s)",
            o.records.len()
        ),
        Lang::Lua => {
            "quill.nvim scm-1 is now installed in /home/ren/.luarocks (license: MIT)".to_string()
        }
    });
    o
}

fn test_run(r: &mut Rng, p: &Project, target: usize) -> Out {
    let mut o = Out::new(
        "bash",
        json!({"command": p.test, "timeout": 1200}),
        "Running the tests.",
    );
    let mut n = 0;
    let mut failed = 0;
    while o.bytes() < target {
        let m = p.module(r);
        o.frame(match p.lang {
            Lang::Scala => format!("[info] {m}Spec:"),
            Lang::Elixir => format!("{}.{m}Test [test/parley/{}_test.exs]", p.ns, snake(&m)),
            Lang::Ts => format!(
                " ✓ tests/unit/{}.spec.ts ({} tests)",
                lower_first(&m),
                r.range(4, 30)
            ),
            Lang::CSharp => format!("  Harborline.Api.Tests.{}.{m}Tests", cap(p.word(r))),
            Lang::Lua => format!("# {} spec", snake(&m)),
        });
        for _ in 0..r.range(4, 14) {
            n += 1;
            let (f, w, ms) = (p.func(r), p.word(r), r.range(1, 2_400));
            let fail = r.chance(0.04);
            failed += usize::from(fail);
            o.rec(match (p.lang, fail) {
                (Lang::Scala, false) => {
                    format!("[info] - {f} keeps {w} totals stable ({ms} milliseconds)")
                }
                (Lang::Scala, true) => format!(
                    "[info] - {f} keeps {w} totals stable *** FAILED *** ({ms} milliseconds)"
                ),
                (Lang::Elixir, false) => format!(
                    "  * test {f} with {w} ({ms}.{}ms) [L#{}]",
                    r.below(10),
                    r.range(5, 400)
                ),
                (Lang::Elixir, true) => format!(
                    "  * test {f} with {w} ({ms}.{}ms) [L#{}] FAILED",
                    r.below(10),
                    r.range(5, 400)
                ),
                (Lang::Ts, false) => format!("   ✓ {m} > {f} updates the {w} {ms}ms"),
                (Lang::Ts, true) => format!("   × {m} > {f} updates the {w} {ms}ms"),
                (Lang::CSharp, false) => format!(
                    "  Passed {m}Tests.{f}_{}_{} [{ms} ms]",
                    cap(w),
                    cap(p.word(r))
                ),
                (Lang::CSharp, true) => format!(
                    "  Failed {m}Tests.{f}_{}_{} [{ms} ms]",
                    cap(w),
                    cap(p.word(r))
                ),
                (Lang::Lua, false) => format!("ok {n} - {} {f} restores the {w}", snake(&m)),
                (Lang::Lua, true) => format!("not ok {n} - {} {f} restores the {w}", snake(&m)),
            });
        }
    }
    o.frame(match p.lang {
        Lang::Scala => format!(
            "[info] Tests: succeeded {}, failed {failed}, canceled 0, ignored 0, pending 0",
            n - failed
        ),
        Lang::Elixir => format!(
            "Finished in {}.{} seconds\n{n} tests, {failed} failures",
            r.range(2, 90),
            r.below(10)
        ),
        Lang::Ts => format!(" Tests  {failed} failed | {} passed ({n})", n - failed),
        Lang::CSharp => format!(
            "Total tests: {n}\n     Passed: {}\n     Failed: {failed}",
            n - failed
        ),
        Lang::Lua => format!("1..{n}"),
    });
    o
}

/// One stack frame of our code or of a library, in the project's language.
fn frame_line(r: &mut Rng, p: &Project) -> String {
    let (l, path) = (r.range(12, 1_400), p.path(r));
    let ours = r.chance(0.5);
    let f = if ours {
        p.func(r)
    } else {
        r.pick(match p.lang {
            Lang::Scala => &[
                "doExecute",
                "execute",
                "processNext",
                "hasNext",
                "compute",
                "runTask",
                "iterator",
            ][..],
            Lang::Elixir => &[
                "handle_info",
                "try_dispatch",
                "handle_msg",
                "execute",
                "init_p_do_apply",
                "all",
            ][..],
            Lang::Ts => &[
                "callWithErrorHandling",
                "flushJobs",
                "triggerEffects",
                "setOption",
                "patch",
                "run",
            ][..],
            Lang::CSharp => &[
                "MoveNext",
                "Invoke",
                "ExecuteReader",
                "ExecuteCore",
                "ExecuteAsyncCore",
            ][..],
            Lang::Lua => &["pcall", "xpcall"][..],
        })
        .to_string()
    };
    match p.lang {
        Lang::Scala if ours => {
            let m = p.module(r);
            format!(
                "\tat {}.{m}.{f}({m}.scala:{l})",
                p.qualified(r).rsplit_once('.').map_or("", |x| x.0)
            )
        }
        Lang::Scala => {
            let c = r.pick(&[
                "execution.SparkPlan",
                "execution.joins.SortMergeJoinExec",
                "execution.exchange.ShuffleExchangeExec",
                "catalyst.expressions.GeneratedClass$SpecificUnsafeProjection",
                "execution.WholeStageCodegenExec",
            ]);
            let short = c.rsplit('.').next().unwrap_or(c);
            format!("\tat org.apache.spark.sql.{c}.{f}({short}.scala:{l})")
        }
        Lang::Elixir if ours => format!(
            "    (parley 0.9.{}) {path}:{l}: {}.{f}/{}",
            r.below(4),
            p.qualified(r),
            r.range(1, 4)
        ),
        Lang::Elixir => {
            let (lib, file) = r.pick(&[
                ("phoenix 1.7.14", "lib/phoenix/channel/server.ex"),
                ("stdlib 5.2", "gen_server.erl"),
                ("ecto 3.11.2", "lib/ecto/repo/queryable.ex"),
                ("phoenix_pubsub 2.1.3", "lib/phoenix/pubsub.ex"),
            ]);
            format!("    ({lib}) {file}:{l}: {f}/{}", r.range(1, 4))
        }
        Lang::Ts if ours => format!("    at {f} ({}/{path}:{l}:{})", p.cwd, r.range(3, 80)),
        Lang::Ts => {
            let file = r.pick(&[
                "@vue/runtime-core/dist/runtime-core.cjs.js",
                "@vue/reactivity/dist/reactivity.cjs.js",
                "echarts/lib/core/echarts.js",
                "pinia/dist/pinia.mjs",
            ]);
            format!(
                "    at {f} ({}/node_modules/{file}:{l}:{})",
                p.cwd,
                r.range(3, 80)
            )
        }
        Lang::CSharp if ours => format!(
            "   at {}.{f}Async(Guid id, CancellationToken ct) in {}/{path}:line {l}",
            p.qualified(r),
            p.cwd
        ),
        Lang::CSharp => {
            let c = r.pick(&["Microsoft.EntityFrameworkCore.Query.Internal.SingleQueryingEnumerable`1.AsyncEnumerator", "Microsoft.AspNetCore.Routing.EndpointMiddleware", "Npgsql.Internal.NpgsqlConnector", "Polly.ResiliencePipeline"]);
            format!("   at {c}.{f}Async() [+0x{}]", r.hex(4))
        }
        Lang::Lua if ours => format!("\t{path}:{l}: in function '{f}'"),
        Lang::Lua => format!(
            "\t{}:{l}: in function <{}:{}>",
            r.pick(&[
                "vim/_editor.lua",
                "vim/shared.lua",
                "plenary/async/async.lua"
            ]),
            p.path(r),
            r.range(3, 200)
        ),
    }
}

fn stack_trace(r: &mut Rng, p: &Project, target: usize) -> Out {
    let cmd = format!(
        "grep -n -A 40 -E 'ERROR|error|Exception' {} | tail -n 3000",
        p.log
    );
    let mut o = Out::new(
        "bash",
        json!({"command": cmd}),
        "Pulling the failures out of the log.",
    );
    while o.bytes() < target {
        let (ts, f, w) = (stamp(r, ' '), p.func(r), p.word(r));
        match p.lang {
            Lang::Scala => {
                o.frame(format!(
                    "{ts} ERROR TaskSetManager: Task {} in stage {}.0 failed 4 times; aborting job",
                    r.range(0, 800),
                    r.range(2, 90)
                ));
                o.frame(format!("org.apache.spark.SparkException: Job aborted due to stage failure: {w} partition {} exceeded memory", r.range(0, 800)));
            }
            Lang::Elixir => {
                o.frame(format!(
                    "{ts} [error] GenServer #PID<0.{}.0> terminating",
                    r.range(300, 9_000)
                ));
                o.frame(format!(
                    "** (FunctionClauseError) no function clause matching in {}.{f}/2",
                    p.qualified(r)
                ));
            }
            Lang::Ts => {
                o.frame(format!("[vite] {ts} Internal server error: Cannot read properties of undefined (reading '{w}')"));
                o.frame(format!(
                    "TypeError: Cannot read properties of undefined (reading '{w}')"
                ));
            }
            Lang::CSharp => {
                o.frame(format!(
                    "{ts} fail: Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware[1]"
                ));
                o.frame(format!("System.InvalidOperationException: The {w} is already assigned for the requested slot"));
            }
            Lang::Lua => {
                o.frame(format!(
                    "{ts} E5108: Error executing lua: attempt to index a nil value (field '{w}')"
                ));
                o.frame("stack traceback:");
            }
        }
        for _ in 0..r.range(6, 22) {
            o.rec(frame_line(r, p));
        }
    }
    o
}

fn lint(r: &mut Rng, p: &Project, target: usize) -> Out {
    let mut o = Out::new(
        "bash",
        json!({"command": p.lint}),
        "Running the linter as well.",
    );
    if p.lang == Lang::Scala {
        o.frame("[info] Running scalafix on 212 Scala sources");
    }
    while o.bytes() < target {
        let (path, l, c, v, f) = (
            p.path(r),
            r.range(2, 900),
            r.range(1, 80),
            p.var(r),
            p.func(r),
        );
        let cwd = p.cwd;
        o.rec(match (p.lang, r.below(3)) {
            (Lang::Scala, 0) => format!("[warn] {cwd}/{path}:{l}:{c}: [RemoveUnused] Unused import {}", p.qualified(r)),
            (Lang::Scala, 1) => format!("[warn] {cwd}/{path}:{l}:{c}: [ExplicitResultTypes] add an explicit result type to {f}"),
            (Lang::Scala, _) => format!("[warn] {cwd}/{path}:{l}:{c}: [DisableSyntax.var] mutable state {v} is disabled"),
            (Lang::Elixir, 0) => format!("[R] ↘ {path}:{l}:{c} #({}) Modules should have a @moduledoc tag.", p.qualified(r)),
            (Lang::Elixir, 1) => format!("[F] → {path}:{l}:{c} #({}.{f}) Function body is nested too deep (max depth is 2, was 3).", p.qualified(r)),
            (Lang::Elixir, _) => format!("[D] ↗ {path}:{l}:{c} #({}.{f}) Pipe chain should start with a raw value.", p.qualified(r)),
            (Lang::Ts, 0) => format!("{cwd}/{path}:{l}:{c}: '{v}' is assigned a value but never used. [Warning/@typescript-eslint/no-unused-vars]"),
            (Lang::Ts, 1) => format!("{cwd}/{path}:{l}:{c}: Unexpected any. Specify a different type. [Warning/@typescript-eslint/no-explicit-any]"),
            (Lang::Ts, _) => format!("{cwd}/{path}:{l}:{c}: Prop '{v}' requires default value to be set. [Warning/vue/require-default-prop]"),
            (Lang::CSharp, 0) => format!("{cwd}/{path}({l},{c}): info IDE0059: Unnecessary assignment of a value to '{v}'"),
            (Lang::CSharp, 1) => format!("{cwd}/{path}({l},{c}): info CA1822: Member '{f}' does not access instance data and can be marked as static"),
            (Lang::CSharp, _) => format!("{cwd}/{path}({l},{c}): info IDE0290: Use primary constructor for '{}'", p.module(r)),
            (Lang::Lua, 0) => format!("{path}:{l}:{c}: (W211) unused variable '{v}'"),
            (Lang::Lua, 1) => format!("{path}:{l}:{c}: (W212) unused argument '{v}'"),
            (Lang::Lua, _) => format!("{path}:{l}:{c}: (W631) line is too long ({} > 120)", r.range(121, 190)),
        });
    }
    o.frame(match p.lang {
        Lang::Lua => format!(
            "Total: {} warnings / 0 errors in {} files",
            o.records.len(),
            r.range(20, 80)
        ),
        Lang::Elixir => format!("Analysis took {}.{} seconds", r.range(1, 20), r.below(10)),
        _ => format!("{} findings", o.records.len()),
    });
    o
}

// ---------------------------------------------------------------------------------------------
// Formats: API responses, SQL, query plans, profiles
// ---------------------------------------------------------------------------------------------

fn json_api(r: &mut Rng, p: &Project, target: usize) -> Out {
    let (w, port) = (p.word(r), r.pick(&[4000, 5173, 8080, 5081, 9090]));
    let url = format!("http://localhost:{port}/api/{w}s?limit=500&include=stats");
    let args = json!({"method": "GET", "url": url, "headers": {"accept": "application/json"}});
    let mut o = Out::new(
        "http_request",
        args,
        "Asking the local API what it returns.",
    );
    o.frame("HTTP/1.1 200 OK");
    o.frame("content-type: application/json; charset=utf-8");
    o.frame(format!("x-request-id: {}", r.hex(32)));
    o.frame("");
    o.frame("{\"data\": [");
    let (k1, k2) = (p.var(r), p.var(r));
    while o.bytes() < target {
        let id = format!("{}_{}", &w[..3.min(w.len())], r.alnum(12));
        let owner = format!("{}_{}", p.word(r), r.alnum(8));
        let status = r.pick(&["active", "active", "active", "pending", "archived", "draft"]);
        let at = iso(1_767_225_600_000 + r.below(300 * 86_400_000) as u64);
        o.rec(format!(
            "  {{\"id\": \"{id}\", \"owner\": \"{owner}\", \"status\": \"{status}\", \"{k1}\": {}, \"{k2}\": {}, \"updatedAt\": \"{at}\"}},",
            r.range(0, 50_000),
            r.range(0, 900)
        ));
    }
    o.frame(format!(
        "], \"nextCursor\": \"{}\", \"total\": {}}}",
        r.alnum(24),
        o.records.len() + r.range(0, 4000)
    ));
    o
}

fn sql_table(r: &mut Rng, p: &Project, target: usize) -> Out {
    let t = r.pick(p.tables);
    let (c1, c2) = (snake(&p.var(r)), snake(&p.var(r)));
    let q = format!(
        "SELECT id, slug, {c1}, {c2}, updated_at FROM {t} ORDER BY updated_at DESC LIMIT 2000;"
    );
    let cmd = p.sql.replace("{q}", &q);
    let mut o = Out::new(
        "bash",
        json!({"command": cmd}),
        "Checking what the table actually holds.",
    );
    let sqlite = p.lang == Lang::Lua;
    let w1 = c1.len().max(8);
    let w2 = c2.len().max(8);
    if sqlite {
        o.frame(format!(
            "id      slug                  {c1:<w1$}  {c2:<w2$}  updated_at"
        ));
        o.frame(format!(
            "------  --------------------  {}  {}  -----------------------",
            "-".repeat(w1),
            "-".repeat(w2)
        ));
    } else {
        o.frame(format!(
            "   id    |         slug         | {c1:<w1$} | {c2:<w2$} |         updated_at"
        ));
        o.frame(format!(
            "---------+----------------------+-{}-+-{}-+----------------------------",
            "-".repeat(w1),
            "-".repeat(w2)
        ));
    }
    let mut id = r.range(10_000, 900_000);
    while o.bytes() < target {
        id += r.range(1, 40);
        let slug = format!("{}-{}", p.word(r), r.hex(6));
        let a = r.range(0, 99_999).to_string();
        let b = if r.chance(0.3) { String::new() } else { num(r) };
        let ts = stamp(r, ' ');
        o.rec(if sqlite {
            format!("{id:<6}  {slug:<20}  {a:<w1$}  {b:<w2$}  {ts}")
        } else {
            format!(" {id:>7} | {slug:<20} | {a:>w1$} | {b:>w2$} | {ts}+00")
        });
    }
    if !sqlite {
        o.frame(format!("({} rows)", o.records.len()));
    }
    o
}

fn query_plan(r: &mut Rng, p: &Project, target: usize) -> Out {
    let t = r.pick(p.tables);
    let col = snake(&p.var(r));
    let q = format!(
        "EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM {t} WHERE {col} = ANY($1) AND updated_at > now() - interval '30 days';"
    );
    let cmd = if p.lang == Lang::Lua {
        format!(
            "sqlite3 ~/.local/share/nvim/quill/state.db \"EXPLAIN QUERY PLAN SELECT * FROM {t} WHERE {col} = ?\""
        )
    } else {
        p.sql.replace("{q}", &q)
    };
    let mut o = Out::new(
        "bash",
        json!({"command": cmd}),
        "Looking at the query plan.",
    );
    if p.lang == Lang::Lua {
        o.frame("QUERY PLAN");
        while o.bytes() < target {
            let (tt, c) = (r.pick(p.tables), snake(&p.var(r)));
            o.rec(format!(
                "|--SEARCH {tt} USING INDEX idx_{tt}_{c} ({c}=?) -- cost {} rows {}",
                r.range(2, 900),
                r.range(1, 40_000)
            ));
        }
        return o;
    }
    o.frame("                                   QUERY PLAN");
    o.frame("--------------------------------------------------------------------------------");
    o.frame(format!("Append  (cost=0.43..{}.{:02} rows={} width=96) (actual time=0.031..{}.{:03} rows={} loops=1)", r.range(900, 90_000), r.below(100), r.range(100, 90_000), r.range(10, 9_000), r.below(1000), r.range(100, 90_000)));
    let mut part = r.range(0, 40);
    while o.bytes() < target {
        part += 1;
        let (y, m) = (2024 + part / 12, 1 + part % 12);
        let (rows, loops) = (r.range(0, 20_000), r.range(1, 3));
        let node = match r.below(3) {
            0 => format!("Index Scan using {t}_{y}_{m:02}_{col}_idx on {t}_{y}_{m:02}"),
            1 => format!("Bitmap Heap Scan on {t}_{y}_{m:02}"),
            _ => format!("Seq Scan on {t}_{y}_{m:02}"),
        };
        o.rec(format!(
            "  ->  {node}  (cost=0.{}..{}.{:02} rows={} width=96) (actual time=0.0{}..{}.{:03} rows={rows} loops={loops})",
            r.range(10, 99), r.range(8, 9_000), r.below(100), r.range(1, 30_000), r.range(10, 99), r.range(0, 900), r.below(1000)
        ));
        o.frame(format!(
            "        Filter: ({col} = ANY ($1)) AND (updated_at > (now() - '30 days'::interval))"
        ));
        o.frame(format!(
            "        Buffers: shared hit={} read={}",
            r.range(3, 90_000),
            r.range(0, 9_000)
        ));
    }
    o.frame(format!(
        "Planning Time: {}.{:03} ms",
        r.range(0, 40),
        r.below(1000)
    ));
    o.frame(format!(
        "Execution Time: {}.{:03} ms",
        r.range(10, 9_000),
        r.below(1000)
    ));
    o
}

fn profile(r: &mut Rng, p: &Project, target: usize) -> Out {
    let cmd = match p.lang {
        Lang::Scala => {
            "java -jar tools/ap-converter.jar flat --top 2000 profiles/rollup-cpu.jfr".to_string()
        }
        Lang::Elixir => "mix profile.eprof -e 'Parley.Bench.run()'".to_string(),
        Lang::Ts => {
            "pnpm exec speedscope-cli summarize profiles/range-change.cpuprofile --top 2000"
                .to_string()
        }
        Lang::CSharp => {
            "dotnet-trace report traces/invoice.nettrace topN -n 2000 --inclusive".to_string()
        }
        Lang::Lua => {
            "nvim --headless -c 'lua require(\"quill.bench\").profile()' -c qa".to_string()
        }
    };
    let mut o = Out::new("bash", json!({"command": cmd}), "Profiling the slow path.");
    o.frame(match p.lang {
        Lang::Elixir => "#                                              CALLS     %   TIME µS/CALL",
        Lang::CSharp => "Top 2000 Functions (Inclusive)          Inclusive           Exclusive",
        _ => "     samples   self%   total%  function",
    });
    let mut pct = 30.0 + r.unit() * 20.0;
    while o.bytes() < target {
        pct *= 0.93 + r.unit() * 0.06;
        let (f, q) = (p.func(r), p.qualified(r));
        o.rec(match p.lang {
            Lang::Elixir => format!(
                "{q}.{f}/{}   {:>10}  {pct:>5.2}  {:>8}  {:>6.2}",
                r.range(1, 4),
                r.range(1, 900_000),
                r.range(10, 900_000),
                r.unit() * 40.0
            ),
            Lang::CSharp => format!("{q}.{f}Async   {pct:>9.2}%   {:>9.2}%", pct * r.unit()),
            Lang::Scala | Lang::Ts | Lang::Lua => {
                let loc = format!("{}:{}", p.path(r), r.range(5, 900));
                let name = if p.lang == Lang::Scala {
                    format!("{q}.{f}")
                } else {
                    f
                };
                format!(
                    "  {:>10}  {:>6.2}%  {:>6.2}%  {name} ({loc})",
                    r.range(10, 90_000),
                    pct * r.unit(),
                    pct
                )
            }
        });
    }
    o
}

// ---------------------------------------------------------------------------------------------
// Formats: dependencies, CI, search, history, config, diffs
// ---------------------------------------------------------------------------------------------

fn version(r: &mut Rng) -> String {
    format!("{}.{}.{}", r.range(0, 9), r.range(0, 30), r.range(0, 40))
}

/// A dependency name: a real direct one, or a made-up transitive one.
fn dep_name(r: &mut Rng, p: &Project) -> String {
    if r.chance(0.25) {
        return r.pick(p.deps).to_string();
    }
    let (a, b) = (
        r.pick(&[
            "fast", "lite", "core", "util", "async", "proto", "json", "time", "log", "http",
            "stream", "cache",
        ]),
        p.word(r),
    );
    match p.lang {
        Lang::Scala => format!(
            "{}:{a}-{b}_2.13",
            r.pick(&[
                "org.typelevel",
                "com.fasterxml",
                "io.netty",
                "org.apache.commons",
                "com.github.luben"
            ])
        ),
        Lang::CSharp => format!(
            "{}.{}.{}",
            r.pick(&["Microsoft.Extensions", "System", "Azure.Core", "Npgsql"]),
            cap(a),
            cap(b)
        ),
        Lang::Ts => format!(
            "{}{a}-{b}",
            r.pick(&["", "", "@vue/", "@types/", "@babel/"])
        ),
        Lang::Elixir | Lang::Lua => format!("{a}_{b}"),
    }
}

fn deps(r: &mut Rng, p: &Project, target: usize) -> Out {
    let mut o = Out::new(
        "bash",
        json!({"command": p.deps_cmd}),
        "Checking the dependency tree.",
    );
    if p.lang == Lang::CSharp {
        o.frame("Project 'Harborline.Api' has the following package references");
        o.frame("   [net8.0]: ");
        o.frame("   Transitive Package                                        Resolved");
    }
    while o.bytes() < target {
        let depth = if r.chance(0.35) { 0 } else { r.range(1, 3) };
        let (name, v) = (dep_name(r, p), version(r));
        o.rec(match p.lang {
            Lang::Scala => format!("[info] {}+-{name}:{v}", "  ".repeat(depth + 1)),
            Lang::Elixir => format!("{}├── {name} ~> {v} (Hex package)", "│   ".repeat(depth)),
            Lang::Ts => format!("{}├── {name} {v}", "│ ".repeat(depth)),
            Lang::CSharp => format!("   > {name:<56} {v}"),
            Lang::Lua => {
                format!("{name}\t{v}-1\tinstalled\t/home/ren/.luarocks/lib/luarocks/rocks-5.1")
            }
        });
    }
    if p.lang == Lang::Scala {
        o.frame(format!("[success] Total time: {} s", r.range(3, 60)));
    }
    o
}

fn ci_log(r: &mut Rng, p: &Project, target: usize) -> Out {
    let run = r.digits(11);
    let cmd = format!("gh run view {run} --log");
    let mut o = Out::new(
        "bash",
        json!({"command": cmd}),
        "Pulling the CI log for the last run.",
    );
    let jobs = [
        "build (ubuntu-22.04)",
        "test (ubuntu-22.04)",
        "lint",
        "deploy-preview",
    ];
    let mut ms = 1_767_225_600_000 + r.below(300 * 86_400_000) as u64;
    while o.bytes() < target {
        let job = r.pick(&jobs);
        ms += r.range(1, 4_000) as u64;
        let ts = format!("{}{}Z", &iso(ms)[..23], r.digits(4));
        let (step, msg) = match r.below(5) {
            0 => (
                "Install dependencies",
                format!("Downloading {} ({} kB)", dep_name(r, p), r.range(3, 9_000)),
            ),
            1 => (
                "Restore cache",
                format!(
                    "Cache restored from key: {}-{}-{}",
                    r.pick(&["Linux", "ubuntu"]),
                    p.key,
                    r.hex(16)
                ),
            ),
            2 => (
                "Run tests",
                format!(
                    "{} {} ({} ms)",
                    r.pick(&["PASS", "PASS", "PASS", "SKIP"]),
                    p.func(r),
                    r.range(1, 3_000)
                ),
            ),
            3 => ("Build", format!("Compiling {}", p.path(r))),
            _ => (
                "Set up job",
                format!("##[group]Run {}", r.pick(&[p.build, p.test, p.lint])),
            ),
        };
        o.rec(format!("{job}\t{step}\t{ts} {msg}"));
    }
    o
}

fn grep_hits(r: &mut Rng, p: &Project, target: usize) -> Out {
    let w = p.word(r);
    let args = json!({"pattern": w, "path": ".", "ignoreCase": true});
    let mut o = Out::new("grep", args, "Searching for every use of it.");
    while o.bytes() < target {
        let (path, l) = (p.path(r), r.range(1, 1_200));
        o.rec(format!("{path}:{l}: {}", code_line(r, p).trim_start()));
    }
    o
}

fn git_log(r: &mut Rng, p: &Project, target: usize) -> Out {
    let cmd = "git log --date=short --format='%h %ad %an %s' -n 3000";
    let mut o = Out::new(
        "bash",
        json!({"command": cmd}),
        "Looking at the recent history.",
    );
    let authors = [
        "Ana Ruiz",
        "Tomasz Wrona",
        "Keiko Sato",
        "Dev Patel",
        "Lena Brandt",
        "Okafor Chidi",
        "dependabot[bot]",
    ];
    let mut day = 1_767_225_600_000 + 300 * 86_400_000u64;
    while o.bytes() < target {
        day -= r.range(0, 2) as u64 * 86_400_000;
        let kind = r.pick(&["fix", "feat", "refactor", "test", "chore", "perf", "docs"]);
        let subject = match r.below(3) {
            0 => format!(
                "{kind}({}): {} {} in {}",
                p.word(r),
                r.pick(VERBS),
                p.word(r),
                p.module(r)
            ),
            1 => format!(
                "{kind}: {} {} for {} (#{})",
                r.pick(VERBS),
                p.var(r),
                p.word(r),
                r.range(100, 2_400)
            ),
            _ => format!("{kind}({}): handle {} {}", p.word(r), p.word(r), p.word(r)),
        };
        o.rec(format!(
            "{} {} {} {subject}",
            r.hex(9),
            &iso(day)[..10],
            r.pick(&authors)
        ));
    }
    o
}

fn config(r: &mut Rng, p: &Project, target: usize) -> Out {
    let mut o = Out::new(
        "read",
        json!({"path": p.config}),
        "Reading the configuration.",
    );
    o.file = Some(p.config.to_string());
    let value = |r: &mut Rng, p: &Project| match r.below(5) {
        0 => num(r),
        1 => format!("{}s", r.range(1, 600)),
        2 => r.pick(&["true", "false"]).to_string(),
        3 => format!("\"{}-{}\"", p.word(r), r.hex(6)),
        _ => format!(
            "\"{}/{}\"",
            r.pick(&[
                "s3a://ledgerline-staging",
                "/var/lib/app",
                "https://api.staging.example.net"
            ]),
            p.word(r)
        ),
    };
    let mut first = true;
    while o.bytes() < target {
        let (w, m) = (p.word(r), p.module(r));
        match p.lang {
            Lang::Scala => o.frame(format!("{}{w} {{", if first { "ledgerline." } else { "" })),
            Lang::Elixir => o.frame(format!("config :parley, {}.{m},", p.ns)),
            Lang::Ts => o.frame(format!("# {w}")),
            Lang::CSharp => o.frame(format!("  \"{m}\": {{")),
            Lang::Lua => o.frame(format!("  {} = {{", snake(&m))),
        }
        first = false;
        for _ in 0..r.range(3, 10) {
            let (k, v) = (p.var(r), value(r, p));
            o.rec(match p.lang {
                Lang::Scala => format!("  {} = {v}", snake(&k).replace('_', "-")),
                Lang::Elixir => format!("  {}: {v},", snake(&k)),
                Lang::Ts => format!(
                    "VITE_{}_{}={}",
                    w.to_uppercase(),
                    snake(&k).to_uppercase(),
                    v.trim_matches('"')
                ),
                Lang::CSharp => format!("    \"{}\": {v},", cap(&k)),
                Lang::Lua => format!("    {} = {v},", snake(&k)),
            });
        }
        match p.lang {
            Lang::Scala => o.frame("}"),
            Lang::Elixir | Lang::Ts => o.frame(""),
            Lang::CSharp => o.frame("  },"),
            Lang::Lua => o.frame("  },"),
        }
    }
    o
}

fn diff(r: &mut Rng, p: &Project, target: usize) -> Out {
    let cmd = format!(
        "git diff origin/main...HEAD -- {}",
        p.path(r).split('/').next().unwrap_or(".")
    );
    let mut o = Out::new(
        "bash",
        json!({"command": cmd}),
        "Reviewing what the branch changed so far.",
    );
    while o.bytes() < target {
        let path = p.path(r);
        o.frame(format!("diff --git a/{path} b/{path}"));
        o.frame(format!("index {}..{} 100644", r.hex(9), r.hex(9)));
        o.frame(format!("--- a/{path}"));
        o.frame(format!("+++ b/{path}"));
        for _ in 0..r.range(1, 4) {
            let (a, b) = (r.range(1, 900), r.range(3, 12));
            o.frame(format!(
                "@@ -{a},{b} +{a},{} @@ {}",
                b + r.range(0, 4),
                p.func(r)
            ));
            for _ in 0..r.range(5, 16) {
                let sign = r.pick(&[" ", " ", " ", "+", "-"]);
                o.rec(format!("{sign}{}", code_line(r, p)));
            }
        }
    }
    o
}
