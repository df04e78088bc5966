//! The `unseen` needle generator: synthetic pi v3 sessions written independently of the scorer,
//! as a check on it.
//!
//! Projects (one per session, in turn):
//! - `tollbooth`, a Go rate-limiting microservice: `go test -race ./...`, `go tool pprof -top`,
//!   a goroutine dump from a timed-out soak test, `git log --oneline`, a YAML config file;
//! - `clinicbook`, a Django booking app: `manage.py showmigrations`, `pytest -rf`, the
//!   container's `env | sort`, a `db_query` (custom tool) table, `git log`;
//! - `parcel-api`, a Node/Express + Prisma API: `npm audit`, `ls -la prisma/migrations`, a jest
//!   run, a docs page through `fetch_url` (custom tool), `.env.example`;
//! - `sensorhub`, embedded C firmware built with CMake: `valgrind --leak-check=full` on the host
//!   tests, compiler warnings in a `cmake --build` log, `arm-none-eabi-nm --size-sort`, a `find`
//!   listing of headers, `git log`.
//!
//! Besides these, each session holds filler calls (`read` of generated source files, `ls`,
//! `grep`, `edit`, `write`, short `bash` runs) and one large `read` as its last big output.
//!
//! Needle kinds: `failing-go-test`, `hot-function`, `goroutine-frame`, `commit-hash`,
//! `config-key`, `migration-id`, `failing-pytest`, `env-var`, `booking-ref`,
//! `vulnerable-package`, `prisma-migration`, `failing-jest-suite`, `doc-url`, `leak-site`,
//! `compiler-warning`, `largest-symbol`, `find-path`.
//!
//! Rules every session keeps (a draw that breaks one is redrawn with a derived seed):
//! - 3 to 5 needles; a needle is one whole line of a tool output before the cut, found once in
//!   the prefix, holding a distinctive string found nowhere else in the prefix that the later
//!   part (after `cut_line`) uses in an assistant's text or tool-call arguments;
//! - 2 to 4 distractors a needle: other lines of the same output, of the same look, each with a
//!   string found nowhere else in the prefix, never used later;
//! - labels: `head` in the first fifth of its output's lines, `tail` in the last fifth, else
//!   `middle`; a needle sits where such a line naturally is in its format;
//! - 9 to 15 tool calls before the cut; the last big output holds at least 2,600 tokens; the
//!   prefix ends with a user request in words only, an assistant's small call and its result;
//!   the later part starts with a user message.

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;
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

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        harness::splitmix64(&mut self.0)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn word(&mut self, v: &[&'static str]) -> &'static str {
        v[self.below(v.len())]
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from_digit(self.below(16) as u32, 16).unwrap())
            .collect()
    }
    fn hex_with_digit(&mut self, n: usize) -> String {
        loop {
            let h = self.hex(n);
            if h.chars().any(|c| c.is_ascii_digit()) && h.chars().any(|c| c.is_ascii_alphabetic()) {
                return h;
            }
        }
    }
    fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n).map(|_| A[self.below(A.len())] as char).collect()
    }
    fn upper_code(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        loop {
            let s: String = (0..n).map(|_| A[self.below(A.len())] as char).collect();
            if s.chars().any(|c| c.is_ascii_digit()) {
                return s;
            }
        }
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
    /// `k` distinct items of `v`, in random order.
    fn sample<T: Clone>(&mut self, v: &[T], k: usize) -> Vec<T> {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        self.shuffle(&mut idx);
        idx.into_iter().take(k).map(|i| v[i].clone()).collect()
    }
}

fn mix(a: u64, b: u64, c: u64) -> u64 {
    let mut r = Rng::new(a ^ 0x005E_ED0F_0BAD_CAFE);
    let x = r.next() ^ b.wrapping_mul(0xA24B_AED4_963E_E407);
    let mut r = Rng::new(x);
    r.next() ^ c.wrapping_mul(0x9FB2_1C65_1E98_DF25)
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Lang {
    Go,
    Py,
    Ts,
    C,
}

struct Proj {
    key: &'static str,
    cwd: &'static str,
    lang: Lang,
    provider: &'static str,
    api: &'static str,
    model: &'static str,
    nouns: &'static [&'static str],
    task: &'static str,
}

const VERBS: &[&str] = &[
    "merge", "drain", "flush", "refill", "resolve", "encode", "decode", "apply", "rotate", "sweep",
    "schedule", "collect", "expire", "render", "verify", "compact", "split", "attach", "release",
    "reserve", "sync", "emit", "parse", "probe", "reload", "batch", "clamp", "retry", "snapshot",
    "track",
];

const PROJECTS: &[Proj] = &[
    Proj {
        key: "tollbooth",
        cwd: "/home/mira/src/tollbooth",
        lang: Lang::Go,
        provider: "anthropic",
        api: "anthropic-messages",
        model: "claude-sonnet-4-5",
        nouns: &[
            "bucket", "window", "shard", "quota", "lease", "tenant", "route", "limit", "burst",
            "ticket", "ledger", "counter", "budget", "policy", "client", "header", "cache",
            "store", "metric", "gauge", "token", "slot", "epoch", "peer", "fence",
        ],
        task: "The rate limiter in this service lets bursts through under load and the soak test hangs. Take a look at the test suite, the profile and the recent history, and tell me what you find before changing anything.",
    },
    Proj {
        key: "clinicbook",
        cwd: "/home/ana/work/clinicbook",
        lang: Lang::Py,
        provider: "openai",
        api: "openai-responses",
        model: "gpt-5",
        nouns: &[
            "booking", "slot", "clinic", "patient", "reminder", "invoice", "visit", "doctor",
            "room", "schedule", "deposit", "referral", "consent", "waitlist", "holiday", "insurer",
            "channel", "template", "calendar", "shift", "notice", "refund", "tariff", "pager",
            "survey",
        ],
        task: "Reminders for appointments stopped going out after yesterday's deploy and some bookings are stuck. Check the migrations, the tests and the environment of the web container, and find out what is going on.",
    },
    Proj {
        key: "parcel-api",
        cwd: "/Users/jonas/dev/parcel-api",
        lang: Lang::Ts,
        provider: "google",
        api: "google-generative-ai",
        model: "gemini-2.5-pro",
        nouns: &[
            "parcel",
            "label",
            "quote",
            "carrier",
            "zone",
            "rate",
            "manifest",
            "pickup",
            "depot",
            "customs",
            "tracking",
            "courier",
            "pallet",
            "invoice",
            "webhook",
            "address",
            "surcharge",
            "account",
            "route",
            "dimension",
            "weight",
            "signature",
            "return",
            "batch",
            "voucher",
        ],
        task: "We need to get this API ready for the security review on Friday: the audit is red, one test suite fails on CI and the staging database is behind. Go through it and report back first.",
    },
    Proj {
        key: "sensorhub",
        cwd: "/home/tomas/fw/sensorhub",
        lang: Lang::C,
        provider: "anthropic",
        api: "anthropic-messages",
        model: "claude-opus-4-1",
        nouns: &[
            "sensor", "ringbuf", "frame", "sample", "i2c", "spi", "dma", "adc", "uart", "clock",
            "flash", "config", "packet", "radio", "battery", "filter", "fifo", "timer", "gpio",
            "crc", "baro", "humid", "accel", "power", "boot",
        ],
        task: "The host-side unit tests leak memory, the build throws new warnings and RAM is nearly full on the board. Have a look at the build, the leak report and the symbol table, then tell me where to start.",
    },
];

fn camel(r: &mut Rng, p: &Proj, parts: usize) -> String {
    let mut s = r.word(VERBS).to_string();
    for _ in 1..parts {
        s.push_str(&cap(&r
            .pick(p.nouns)
            .replace(|c: char| c.is_ascii_digit(), "")));
    }
    s
}

fn snake(r: &mut Rng, p: &Proj, parts: usize) -> String {
    let mut v = Vec::new();
    while v.len() < parts {
        let w: &str = if v.len() == 1 && r.chance(50) {
            r.word(VERBS)
        } else {
            r.word(p.nouns)
        };
        if !v.contains(&w) {
            v.push(w);
        }
    }
    v.join("_")
}

// ---------------------------------------------------------------------------------------------
// Tool outputs
// ---------------------------------------------------------------------------------------------

/// A candidate needle or distractor line of an output.
#[derive(Clone)]
struct Fam {
    line: usize,
    token: String,
    /// Context the later part may use along with the token (a value, a file, an app).
    ctx: String,
}

/// One tool call and its output.
struct Out {
    kind: &'static str,
    intro: String,
    tool: &'static str,
    args: Value,
    lines: Vec<String>,
    fam: Vec<Fam>,
    /// The family member a needle naturally is.
    pick: usize,
    /// The request's words about this output.
    ask: &'static str,
}

#[allow(clippy::too_many_arguments)]
fn out(
    kind: &'static str,
    intro: &str,
    tool: &'static str,
    args: Value,
    lines: Vec<String>,
    fam: Vec<Fam>,
    pick: usize,
    ask: &'static str,
) -> Out {
    Out {
        kind,
        intro: intro.to_string(),
        tool,
        args,
        lines,
        fam,
        pick,
        ask,
    }
}

fn bash(cmd: &str) -> Value {
    json!({ "command": cmd })
}

fn go_test(r: &mut Rng, p: &Proj) -> Out {
    let module = "github.com/mirak/tollbooth";
    let mut pkgs: Vec<String> = vec!["cmd/tollbooth".into(), "cmd/tbctl".into()];
    while pkgs.len() < r.range(16, 34) {
        let d = format!(
            "{}/{}",
            r.word(&["internal", "internal", "pkg"]),
            r.word(p.nouns)
        );
        let d = if r.chance(30) {
            format!("{d}/{}", r.word(p.nouns))
        } else {
            d
        };
        if !pkgs.contains(&d) {
            pkgs.push(d);
        }
    }
    pkgs.sort();
    let nfail = r.range(3, 5);
    let failing = r.sample(&(2..pkgs.len()).collect::<Vec<_>>(), nfail);
    let mut lines = Vec::new();
    let mut fam = Vec::new();
    let msgs = [
        "want 40 tokens, got 38",
        "refill happened twice inside one window",
        "expected 429 after burst, got 200",
        "context deadline exceeded while waiting for lease",
        "counter drifted by 3 after rollover",
        "unexpected quota for tenant: have 120, want 100",
    ];
    for (i, pkg) in pkgs.iter().enumerate() {
        if i < 2 {
            lines.push(format!("?   \t{module}/{pkg}\t[no test files]"));
        } else if failing.contains(&i) {
            let n = if r.chance(30) { 2 } else { 1 };
            for _ in 0..n {
                let name = format!(
                    "Test{}_{}{}",
                    cap(r.word(p.nouns)),
                    cap(r.word(VERBS)),
                    cap(r.word(p.nouns))
                );
                fam.push(Fam {
                    line: lines.len(),
                    token: name.clone(),
                    ctx: pkg.clone(),
                });
                lines.push(format!("--- FAIL: {name} (0.{:02}s)", r.range(1, 99)));
                let file = pkg.rsplit('/').next().unwrap_or("x");
                for _ in 0..r.range(1, 3) {
                    lines.push(format!(
                        "    {file}_test.go:{}: {}",
                        r.range(30, 400),
                        r.pick(&msgs)
                    ));
                }
            }
            lines.push("FAIL".into());
            lines.push(format!(
                "FAIL\t{module}/{pkg}\t{}.{:03}s",
                r.range(0, 4),
                r.below(1000)
            ));
        } else {
            lines.push(format!(
                "ok  \t{module}/{pkg}\t{}.{:03}s",
                r.range(0, 9),
                r.below(1000)
            ));
        }
    }
    lines.push("FAIL".into());
    let pick = r.below(fam.len());
    out(
        "failing-go-test",
        "Running the whole suite with the race detector first.",
        "bash",
        bash("go test -count=1 -race ./... 2>&1 | tail -n 300"),
        lines,
        fam,
        pick,
        "fix the failing Go test",
    )
}

fn pprof(r: &mut Rng, p: &Proj) -> Out {
    let module = "github.com/mirak/tollbooth";
    let nodes = r.range(24, 60);
    let total = r.range(2_000, 6_000) as f64 / 100.0;
    let mut lines = vec![
        "File: tollbooth".to_string(),
        format!("Build ID: {}", r.hex(40)),
        "Type: cpu".into(),
        format!(
            "Time: 2025-03-{:02} {:02}:{:02}:{:02} CET",
            r.range(1, 28),
            r.range(8, 19),
            r.below(60),
            r.below(60)
        ),
        format!(
            "Duration: 30.{:02}s, Total samples = {total:.2}s ({}.{:02}%)",
            r.below(100),
            r.range(100, 190),
            r.below(100)
        ),
        format!(
            "Showing nodes accounting for {:.2}s, {}.{:02}% of {total:.2}s total",
            total * 0.88,
            r.range(80, 95),
            r.below(100)
        ),
        format!(
            "Dropped {} nodes (cum <= 0.{:02}s)",
            r.range(100, 600),
            r.range(10, 40)
        ),
        format!("Showing top {nodes} nodes out of {}", r.range(200, 400)),
        "      flat  flat%   sum%        cum   cum%".into(),
    ];
    let runtime = [
        "runtime.mallocgc",
        "runtime.scanobject",
        "runtime.memmove",
        "runtime.findObject",
        "syscall.Syscall6",
        "runtime.futex",
        "runtime.mapaccess2_faststr",
        "runtime.greyobject",
        "encoding/json.(*decodeState).object",
        "runtime.nextFreeFast",
        "sync.(*Mutex).Lock",
        "time.Now",
        "runtime.lock2",
        "runtime.unlock2",
        "bytes.(*Buffer).WriteString",
        "strconv.AppendInt",
        "runtime.selectgo",
        "runtime.chanrecv",
        "net/http.(*conn).serve",
        "compress/flate.(*compressor).deflate",
        "runtime.madvise",
        "runtime.gcDrain",
        "runtime.heapBitsSetType",
        "runtime.pcvalue",
        "aeshashbody",
        "runtime.step",
        "runtime.writeHeapBits.flush",
        "runtime.(*mspan).nextFreeIndex",
    ];
    let mut rt = r.sample(&runtime, runtime.len());
    let mut fam = Vec::new();
    let mut flat = total * (0.12 + r.below(10) as f64 / 100.0);
    let mut sum = 0.0;
    let first_ours = if r.chance(60) { 0 } else { 1 };
    for i in 0..nodes {
        let ours = i == first_ours || (i > 1 && r.chance(35)) || rt.is_empty();
        let name = if ours {
            let pkg = r.word(p.nouns);
            let method = camel(r, p, 3);
            fam.push(Fam {
                line: lines.len(),
                token: method.clone(),
                ctx: format!("internal/{pkg}"),
            });
            format!(
                "{module}/internal/{pkg}.(*{}).{method}",
                cap(r.word(p.nouns))
            )
        } else {
            rt.pop().unwrap_or_default().to_string()
        };
        let pct = flat / total * 100.0;
        sum += pct;
        let cum = flat * (1.0 + r.below(300) as f64 / 100.0);
        lines.push(format!(
            "{:>9.2}s {:>5.2}% {:>5.2}% {:>9.2}s {:>5.2}%  {name}",
            flat,
            pct,
            sum.min(99.9),
            cum,
            (cum / total * 100.0).min(99.9)
        ));
        flat *= 0.72 + r.below(25) as f64 / 100.0;
    }
    out(
        "hot-function",
        "Let me look at the CPU profile captured during the load test.",
        "bash",
        bash("go tool pprof -top -nodecount=60 ./bin/tollbooth /tmp/tollbooth-cpu.pprof"),
        lines,
        fam,
        0,
        "speed up the hottest of our own functions in the profile",
    )
}

fn goroutines(r: &mut Rng, p: &Proj) -> Out {
    let module = "github.com/mirak/tollbooth";
    let mut pool: Vec<(String, String, usize)> = Vec::new();
    for _ in 0..r.range(10, 18) {
        let pkg = r.word(p.nouns).to_string();
        let f = format!(
            "{module}/internal/{pkg}.(*{}).{}",
            cap(r.word(p.nouns)),
            camel(r, p, 2)
        );
        let file = format!("{}/internal/{pkg}/{}.go", p.cwd, r.word(p.nouns));
        pool.push((f, file, r.range(20, 600)));
    }
    let states = [
        "chan receive",
        "chan send",
        "select",
        "semacquire",
        "IO wait",
        "sync.Mutex.Lock",
        "sleep",
    ];
    let mut lines = vec![
        "panic: test timed out after 1m0s".to_string(),
        "running tests:".into(),
        "\tTestSoak_ManyTenants (1m0s)".into(),
        String::new(),
    ];
    let mut locs: Vec<(usize, String, String)> = Vec::new();
    for g in 0..r.range(8, 30) {
        let id = if g == 0 {
            r.range(1, 40)
        } else {
            r.range(40, 9000)
        };
        let st = r.pick(&states);
        lines.push(format!("goroutine {id} [{st}, {} minutes]:", r.range(1, 2)));
        lines.push("runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)".into());
        lines.push(format!(
            "\t/usr/local/go/src/runtime/proc.go:{} +0xce",
            r.pick(&[398, 402, 424])
        ));
        if st.starts_with("chan") {
            lines.push(format!(
                "runtime.{}(0xc000{}, 0x0, 0x1)",
                if *st == "chan send" {
                    "chansend"
                } else {
                    "chanrecv"
                },
                r.hex(6)
            ));
            lines.push(format!(
                "\t/usr/local/go/src/runtime/chan.go:{} +0x{}",
                r.range(150, 600),
                r.hex(3)
            ));
        }
        for _ in 0..r.range(1, 3) {
            let (f, file, ln) = r.pick(&pool).clone();
            lines.push(format!("{f}(0xc000{})", r.hex(6)));
            locs.push((lines.len(), format!("{file}:{ln}"), file.clone()));
            lines.push(format!("\t{file}:{ln} +0x{}", r.hex(3)));
        }
        let (f, file, ln) = r.pick(&pool).clone();
        lines.push(format!("created by {f} in goroutine {}", r.range(1, 40)));
        lines.push(format!("\t{file}:{} +0x{}", ln + r.range(1, 9), r.hex(3)));
        lines.push(String::new());
    }
    lines.push(format!(
        "FAIL\t{module}/internal/shard\t60.{:03}s",
        r.below(1000)
    ));
    lines.push("FAIL".into());
    let fam: Vec<Fam> = locs
        .iter()
        .filter(|(_, t, _)| locs.iter().filter(|(_, u, _)| u == t).count() == 1)
        .map(|(l, t, f)| Fam {
            line: *l,
            token: t.clone(),
            ctx: f.clone(),
        })
        .collect();
    let pick = r.below(fam.len().max(1));
    out(
        "goroutine-frame",
        "The soak test hangs, so let me get the goroutine dump from the timeout.",
        "bash",
        bash("go test -run TestSoak -timeout 60s ./internal/shard/ 2>&1 | head -n 600"),
        lines,
        fam,
        pick,
        "unblock the goroutine that deadlocks the soak test",
    )
}

fn git_log(r: &mut Rng, p: &Proj) -> Out {
    let n = r.range(30, 110);
    let mut lines = Vec::new();
    let mut fam = Vec::new();
    let tmpl = [
        "fix {n} handling when {n2} is empty",
        "add {n} metrics to the {n2} path",
        "bump deps",
        "refactor {n} into its own module",
        "{v} {n} before {n2} on shutdown",
        "tests: cover {n} {n2} edge cases",
        "docs: explain {n} settings",
        "revert \"{v} {n} eagerly\"",
        "ci: cache {n} artifacts",
        "{v} stale {n} entries",
        "make {n} {n2} configurable",
        "log {n} failures at warn",
    ];
    for _ in 0..n {
        let h = r.hex_with_digit(12);
        let t = r
            .pick(&tmpl)
            .replace("{n}", r.word(p.nouns))
            .replace("{n2}", r.word(p.nouns))
            .replace("{v}", r.word(VERBS));
        fam.push(Fam {
            line: lines.len(),
            token: h.clone(),
            ctx: String::new(),
        });
        if t.contains(':') {
            lines.push(format!("{h} {t}"));
        } else {
            lines.push(format!("{h} {}: {t}", r.word(p.nouns)));
        }
    }
    let pick = r.range(n / 5, n - 1);
    out(
        "commit-hash",
        "Checking the recent history for what changed.",
        "bash",
        bash("git log --oneline --abbrev=12 -n 120"),
        lines,
        fam,
        pick,
        "back out the commit that introduced the regression",
    )
}

fn config_yaml(r: &mut Rng, p: &Proj) -> Out {
    let mut lines = vec![
        format!("# {} configuration, loaded at start-up", p.key),
        String::new(),
    ];
    let mut fam = Vec::new();
    let mut seen = HashSet::new();
    for _ in 0..r.range(5, 10) {
        let sec = r.word(p.nouns);
        if !seen.insert(sec.to_string()) {
            continue;
        }
        lines.push(format!("{sec}:"));
        for _ in 0..r.range(3, 9) {
            let key = format!(
                "{}_{}",
                snake(r, p, 2),
                r.word(&[
                    "ms", "max", "limit", "size", "ttl", "enabled", "ratio", "count"
                ])
            );
            if !seen.insert(key.clone()) {
                continue;
            }
            let val = match r.below(4) {
                0 => r.range(1, 5000).to_string(),
                1 => format!("{}s", r.range(1, 120)),
                2 => r.word(&["true", "false"]).to_string(),
                _ => format!("0.{}", r.range(1, 99)),
            };
            fam.push(Fam {
                line: lines.len(),
                token: key.clone(),
                ctx: val.clone(),
            });
            lines.push(format!("  {key}: {val}"));
        }
        lines.push(String::new());
    }
    let pick = r.below(fam.len());
    let path = format!("{}/config/{}.yaml", p.cwd, p.key);
    out(
        "config-key",
        "Reading the service config next.",
        "read",
        json!({ "path": path }),
        lines,
        fam,
        pick,
        "correct the misconfigured limit",
    )
}

fn showmigrations(r: &mut Rng, p: &Proj) -> Out {
    let k = r.range(5, 9);
    let apps = r.sample(p.nouns, k);
    let pending_app = r.below(apps.len());
    let mut lines = Vec::new();
    let mut fam = Vec::new();
    let mut pick = 0;
    for (ai, app) in apps.iter().enumerate() {
        let app = format!("{app}s");
        lines.push(app.clone());
        let n = r.range(4, 24);
        let pending = if ai == pending_app { r.range(1, 3) } else { 0 };
        for k in 1..=n {
            let name = if k == 1 {
                "0001_initial".to_string()
            } else {
                {
                    let parts = r.range(2, 3);
                    format!("{k:04}_{}", snake(r, p, parts))
                }
            };
            let applied = k + pending <= n;
            if k > 1 {
                if !applied && k + pending == n + 1 {
                    pick = fam.len();
                }
                fam.push(Fam {
                    line: lines.len(),
                    token: name.clone(),
                    ctx: app.clone(),
                });
            }
            lines.push(format!(" [{}] {name}", if applied { "X" } else { " " }));
        }
    }
    for extra in ["admin", "auth", "contenttypes", "sessions"] {
        lines.push(extra.into());
        lines.push(" [X] 0001_initial".into());
    }
    out(
        "migration-id",
        "Let me see which migrations are applied.",
        "bash",
        bash("python manage.py showmigrations"),
        lines,
        fam,
        pick,
        "apply the pending migration",
    )
}

fn pytest(r: &mut Rng, p: &Proj) -> Out {
    let mut lines = vec![format!(
        "platform linux -- Python 3.12.2, pytest-8.1.1, pluggy-1.4.0"
    )];
    lines.push(format!(
        "django: version: 5.0.3, settings: {}.settings.test (from ini)",
        p.key
    ));
    lines.push(format!("rootdir: {}", p.cwd));
    lines.push("configfile: pytest.ini".into());
    lines.push("plugins: django-4.8.0, cov-5.0.0, xdist-3.5.0".into());
    let files = r.range(25, 70);
    lines.push(format!("collected {} items", files * 9));
    lines.push(String::new());
    let mut paths = Vec::new();
    for _ in 0..files {
        let path = format!("{}s/tests/test_{}.py", r.word(p.nouns), snake(r, p, 2));
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    let nf = r.range(3, 6);
    let failed = r.sample(&paths, nf);
    let total = paths.len();
    for (i, path) in paths.iter().enumerate() {
        let mut dots: String = (0..r.range(2, 16))
            .map(|_| if r.chance(4) { 's' } else { '.' })
            .collect();
        if failed.contains(path) {
            dots.insert(r.below(dots.len()), 'F');
        }
        lines.push(format!("{path} {dots:<20} [{:>3}%]", (i + 1) * 100 / total));
    }
    lines.push(String::new());
    lines.push(
        "=========================== short test summary info ============================".into(),
    );
    let mut fam = Vec::new();
    let errs = [
        "AssertionError: assert 3 == 2",
        "AssertionError: assert 'queued' == 'sent'",
        "django.db.utils.IntegrityError: duplicate key value violates unique constraint",
        "KeyError: 'channel'",
        "AttributeError: 'NoneType' object has no attribute 'send_at'",
        "TypeError: can't compare offset-naive and offset-aware datetimes",
    ];
    for path in &failed {
        let id = format!("{path}::test_{}", snake(r, p, 3));
        fam.push(Fam {
            line: lines.len(),
            token: id.clone(),
            ctx: String::new(),
        });
        lines.push(format!("FAILED {id} - {}", r.pick(&errs)));
    }
    lines.push(format!(
        "===== {nf} failed, {} passed, {} skipped, {} warnings in {}.{:02}s =====",
        total * 8,
        r.range(1, 12),
        r.range(0, 9),
        r.range(20, 140),
        r.below(100)
    ));
    let pick = r.below(fam.len());
    out(
        "failing-pytest",
        "Running the test suite.",
        "bash",
        bash("pytest -q -rf --tb=no -p no:randomly"),
        lines,
        fam,
        pick,
        "fix the failing reminder test",
    )
}

fn env_dump(r: &mut Rng, p: &Proj, node: bool) -> Out {
    let prefix = p.key.to_uppercase().replace('-', "_");
    let mut vars: Vec<(String, String)> = if node {
        vec![
            ("NODE_ENV".into(), "development".into()),
            ("PORT".into(), "3000".into()),
        ]
    } else {
        vec![
            ("HOME".into(), "/root".into()),
            ("HOSTNAME".into(), r.hex(12)),
            ("LANG".into(), "C.UTF-8".into()),
            (
                "PATH".into(),
                "/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin".into(),
            ),
            ("PYTHON_VERSION".into(), "3.12.2".into()),
            ("PYTHONUNBUFFERED".into(), "1".into()),
            (
                "DJANGO_SETTINGS_MODULE".into(),
                format!("{}.settings.prod", p.key),
            ),
        ]
    };
    let mut names = HashSet::new();
    for _ in 0..r.range(25, 60) {
        let name = format!(
            "{prefix}_{}_{}",
            r.word(p.nouns).to_uppercase(),
            r.word(&[
                "URL",
                "TIMEOUT",
                "TTL_HOURS",
                "RETRIES",
                "ENABLED",
                "QUEUE",
                "BATCH_SIZE",
                "SECRET",
                "REGION",
                "LEAD_MINUTES",
                "HOST",
                "BUCKET"
            ])
        );
        if !names.insert(name.clone()) {
            continue;
        }
        let val = if name.ends_with("URL") {
            format!(
                "https://{}.internal.example.net/v{}",
                r.word(p.nouns),
                r.range(1, 3)
            )
        } else if name.ends_with("SECRET") {
            r.alnum(24)
        } else if name.ends_with("ENABLED") {
            r.word(&["true", "false", "0", "1"]).to_string()
        } else if name.ends_with("QUEUE")
            || name.ends_with("BUCKET")
            || name.ends_with("HOST")
            || name.ends_with("REGION")
        {
            format!(
                "{}-{}",
                r.word(p.nouns),
                r.word(&["staging", "prod", "eu-west-1", "local"])
            )
        } else {
            r.range(1, 900).to_string()
        };
        vars.push((name, val));
    }
    vars.sort();
    let mut lines = Vec::new();
    let mut fam = Vec::new();
    if node {
        lines.push("# Copy to .env and fill in. Never commit real secrets.".into());
    }
    for (k, v) in &vars {
        if k.starts_with(&prefix) {
            fam.push(Fam {
                line: lines.len(),
                token: k.clone(),
                ctx: v.clone(),
            });
        }
        lines.push(format!("{k}={v}"));
    }
    let pick = r.below(fam.len());
    if node {
        out(
            "env-var",
            "Checking which settings the API expects.",
            "read",
            json!({ "path": format!("{}/.env.example", p.cwd) }),
            lines,
            fam,
            pick,
            "fix the wrong setting in the example environment",
        )
    } else {
        out(
            "env-var",
            "Let me dump the environment of the running web container.",
            "bash",
            bash("docker compose exec -T web env | sort"),
            lines,
            fam,
            pick,
            "fix the wrong environment setting",
        )
    }
}

fn db_rows(r: &mut Rng, p: &Proj) -> Out {
    let n = r.range(15, 110);
    let mut lines = vec![
        "   id   | booking_ref | patient_id | clinic_id |    status     |       updated_at".into(),
        "--------+-------------+------------+-----------+---------------+------------------------"
            .into(),
    ];
    let mut fam = Vec::new();
    let mut id = r.range(40_000, 60_000);
    for _ in 0..n {
        id += r.range(1, 90);
        let rf = format!("BK-{}", r.upper_code(8));
        fam.push(Fam {
            line: lines.len(),
            token: rf.clone(),
            ctx: String::new(),
        });
        lines.push(format!(
            " {id:>6} | {rf} | {:>10} | {:>9} | {:<13} | 2024-11-{:02} {:02}:{:02}:{:02}+00",
            r.range(1000, 99999),
            r.range(1, 40),
            r.word(&["pending_sms", "queued", "retrying", "pending_email"]),
            r.range(1, 30),
            r.below(24),
            r.below(60),
            r.below(60)
        ));
    }
    lines.push(format!("({n} rows)"));
    let pick = r.below(fam.len());
    let _ = p;
    out(
        "booking-ref",
        "Querying the stuck bookings.",
        "db_query",
        json!({ "sql": "SELECT id, booking_ref, patient_id, clinic_id, status, updated_at FROM appointments_booking WHERE status <> 'confirmed' AND reminder_sent_at IS NULL ORDER BY updated_at" }),
        lines,
        fam,
        pick,
        "confirm the booking that is stuck",
    )
}

const NPM: &[&str] = &[
    "axios",
    "jsonwebtoken",
    "express",
    "body-parser",
    "semver",
    "ws",
    "tough-cookie",
    "follow-redirects",
    "path-to-regexp",
    "cookie",
    "send",
    "serve-static",
    "micromatch",
    "braces",
    "word-wrap",
    "json5",
    "minimatch",
    "qs",
    "undici",
    "nanoid",
    "postcss",
    "ejs",
    "tar",
    "got",
    "ip",
    "debug",
    "lodash",
];

fn npm_audit(r: &mut Rng, _p: &Proj) -> Out {
    let k = r.range(5, 12);
    let pkgs = r.sample(NPM, k);
    let mut lines = vec!["# npm audit report".to_string(), String::new()];
    let mut fam = Vec::new();
    let mut sev = [0usize; 4];
    for (i, pkg) in pkgs.iter().enumerate() {
        let s = r.below(4);
        sev[s] += 1;
        lines.push(format!(
            "{pkg}  {}.{}.{} - {}.{}.{}",
            r.below(3),
            r.below(20),
            r.below(10),
            r.range(3, 9),
            r.below(30),
            r.below(10)
        ));
        lines.push(format!(
            "Severity: {}",
            ["low", "moderate", "high", "critical"][s]
        ));
        for _ in 0..r.range(1, 2) {
            let title = r.word(&[
                "Regular Expression Denial of Service",
                "Prototype Pollution",
                "Server-Side Request Forgery",
                "Improper Input Validation",
                "Open Redirect",
                "Uncontrolled Resource Consumption",
            ]);
            lines.push(format!(
                "{pkg} vulnerable to {title} - https://github.com/advisories/GHSA-{}-{}-{}",
                r.alnum(4).to_lowercase(),
                r.alnum(4).to_lowercase(),
                r.alnum(4).to_lowercase()
            ));
        }
        if i > 0 && r.chance(30) {
            lines.push(format!("Depends on vulnerable versions of {}", pkgs[i - 1]));
        }
        if r.chance(80) {
            lines.push("fix available via `npm audit fix --force`".into());
            let v = format!("{pkg}@{}.{}.{}", r.range(1, 12), r.below(30), r.below(12));
            fam.push(Fam {
                line: lines.len(),
                token: v.clone(),
                ctx: pkg.to_string(),
            });
            lines.push(format!("Will install {v}, which is a breaking change"));
        } else {
            lines.push("fix available via `npm audit fix`".into());
        }
        lines.push(format!("node_modules/{pkg}"));
        if r.chance(30) {
            lines.push(format!("node_modules/{}/node_modules/{pkg}", r.word(NPM)));
        }
        lines.push(String::new());
    }
    lines.push(format!(
        "{} vulnerabilities ({} low, {} moderate, {} high, {} critical)",
        pkgs.len(),
        sev[0],
        sev[1],
        sev[2],
        sev[3]
    ));
    lines.push(String::new());
    lines.push("To address all issues (including breaking changes), run:".into());
    lines.push("  npm audit fix --force".into());
    let pick = r.below(fam.len().max(1));
    out(
        "vulnerable-package",
        "Starting with the audit.",
        "bash",
        bash("npm audit"),
        lines,
        fam,
        pick,
        "upgrade the vulnerable package the review flagged",
    )
}

fn prisma_ls(r: &mut Rng, p: &Proj) -> Out {
    let mut lines = vec![
        format!("total {}", r.range(0, 8)),
        "drwxr-xr-x  38 jonas  staff  1216 Mar 11 09:12 .".into(),
        "drwxr-xr-x   5 jonas  staff   160 Mar 11 09:12 ..".into(),
    ];
    let mut fam = Vec::new();
    let mut day = r.range(1, 20);
    let mut month = r.range(1, 5);
    let n = r.range(12, 45);
    for k in 0..n {
        day += r.range(0, 9);
        if day > 28 {
            day -= 28;
            month += 1;
        }
        let (h, m, s) = (r.range(8, 19), r.below(60), r.below(60));
        let name = if k == 0 {
            format!("2024{month:02}{day:02}{h:02}{m:02}{s:02}_init")
        } else {
            format!("2024{month:02}{day:02}{h:02}{m:02}{s:02}_{}", {
                let parts = r.range(2, 3);
                let add = usize::from(r.chance(40));
                snake(r, p, parts).replacen('_', "_add_", add)
            })
        };
        if k > 0 {
            fam.push(Fam {
                line: lines.len(),
                token: name.clone(),
                ctx: String::new(),
            });
        }
        let mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug"][month.min(8) - 1];
        lines.push(format!(
            "drwxr-xr-x   3 jonas  staff    96 {mon} {day:>2} {h:02}:{m:02} {name}"
        ));
    }
    lines.push("-rw-r--r--   1 jonas  staff   126 Jan  9 10:02 migration_lock.toml".into());
    let pick = r.below(fam.len());
    out(
        "prisma-migration",
        "Listing the Prisma migrations.",
        "bash",
        bash("ls -la prisma/migrations"),
        lines,
        fam,
        pick,
        "repair the migration that staging failed on",
    )
}

fn jest(r: &mut Rng, p: &Proj) -> Out {
    let n = r.range(18, 60);
    let mut lines = Vec::new();
    let mut fam = Vec::new();
    let mut seen = HashSet::new();
    let fail_at = r.below(n);
    for i in 0..n {
        let path = format!(
            "src/{}/{}.test.ts",
            r.word(&["routes", "services", "lib", "jobs", "middleware", "db"]),
            camel(r, p, 2)
        );
        if !seen.insert(path.clone()) {
            continue;
        }
        let fail = i == fail_at;
        fam.push(Fam {
            line: lines.len(),
            token: path.clone(),
            ctx: String::new(),
        });
        lines.push(format!(
            "{} {path}{}",
            if fail { "FAIL" } else { "PASS" },
            if r.chance(40) {
                format!(" ({}.{:02} s)", r.range(1, 9), r.below(100))
            } else {
                String::new()
            }
        ));
        if fail {
            let w = r.word(p.nouns);
            lines.push(format!(
                "  ● {} › rejects an oversized {w}",
                cap(r.word(p.nouns))
            ));
            lines.push(String::new());
            lines.push("    expect(received).toBe(expected) // Object.is equality".into());
            lines.push(String::new());
            lines.push(format!("    Expected: {}", r.range(400, 422)));
            lines.push("    Received: 201".into());
            lines.push(String::new());
        }
    }
    let pick = fam
        .iter()
        .position(|f| lines[f.line].starts_with("FAIL"))
        .unwrap_or(0);
    lines.push(String::new());
    lines.push(format!(
        "Test Suites: 1 failed, {} passed, {} total",
        fam.len() - 1,
        fam.len()
    ));
    lines.push(format!(
        "Tests:       1 failed, {} passed, {} total",
        fam.len() * 7,
        fam.len() * 7 + 1
    ));
    lines.push("Snapshots:   0 total".into());
    lines.push(format!(
        "Time:        {}.{} s",
        r.range(10, 60),
        r.below(10)
    ));
    lines.push("Ran all test suites.".into());
    out(
        "failing-jest-suite",
        "Running the jest suite the way CI does.",
        "bash",
        bash("npx jest --ci --silent 2>&1"),
        lines,
        fam,
        pick,
        "make the failing test suite pass",
    )
}

fn fetch_docs(r: &mut Rng, _p: &Proj) -> Out {
    let base = "https://www.prisma.io/docs/orm";
    let sections = [
        "prisma-migrate/workflows",
        "prisma-client/queries",
        "reference",
        "prisma-schema/data-model",
        "more/help-and-troubleshooting",
        "overview/databases/postgresql",
    ];
    let words = [
        "baselining",
        "squashing",
        "shadow",
        "database",
        "drift",
        "patching",
        "hotfixing",
        "transactions",
        "relations",
        "indexes",
        "constraints",
        "enum",
        "defaults",
        "seeding",
        "deployment",
        "rollback",
        "naming",
        "conventions",
        "connection",
        "pooling",
        "native",
        "types",
        "composite",
        "keys",
        "raw",
        "queries",
    ];
    let page = format!(
        "{base}/prisma-migrate/workflows/{}-{}",
        r.pick(&words),
        r.pick(&words)
    );
    let mut lines = vec![
        "# Patching and hotfixing migrations".to_string(),
        String::new(),
    ];
    let sentences = [
        "Prisma Migrate compares the migration history with the state of the database before it applies anything.",
        "If a migration fails halfway, the database is left in a state that no migration describes.",
        "You can mark a migration as rolled back once you have reverted its changes by hand.",
        "The shadow database is created and dropped every time you run migrate dev.",
        "Never edit a migration that has already been applied to a production database.",
        "In production, run migrate deploy from your pipeline instead of migrate dev.",
        "A drift means the schema of the database was changed outside of Prisma Migrate.",
        "Use the resolve command to tell Prisma that a failed migration was fixed manually.",
        "Each migration folder holds one SQL file and is applied inside a transaction where the database allows it.",
    ];
    let mut fam = Vec::new();
    let mut seen = HashSet::new();
    for s in 0..r.range(6, 22) {
        lines.push(format!(
            "## {}",
            cap(&format!("{} {}", r.pick(&words), r.pick(&words)))
        ));
        lines.push(String::new());
        for _ in 0..r.range(1, 4) {
            let para: Vec<&str> = (0..r.range(2, 5)).map(|_| *r.pick(&sentences)).collect();
            lines.push(para.join(" "));
            lines.push(String::new());
        }
        if s % 2 == 0 || r.chance(50) {
            lines.push("```bash".into());
            lines.push(format!(
                "npx prisma migrate {} --{}",
                r.word(&["resolve", "diff", "deploy", "status"]),
                r.word(&[
                    "applied",
                    "rolled-back",
                    "from-migrations",
                    "to-schema-datamodel"
                ])
            ));
            lines.push("```".into());
            lines.push(String::new());
        }
        let url = format!(
            "{base}/{}/{}-{}-{}",
            r.pick(&sections),
            r.pick(&words),
            r.pick(&words),
            r.pick(&words)
        );
        if seen.insert(url.clone()) && url != page {
            fam.push(Fam {
                line: lines.len(),
                token: url.clone(),
                ctx: String::new(),
            });
            lines.push(format!("Learn more: {url}"));
            lines.push(String::new());
        }
    }
    let pick = r.below(fam.len().max(1));
    out(
        "doc-url",
        "Let me read Prisma's docs on fixing a failed migration.",
        "fetch_url",
        json!({ "url": page }),
        lines,
        fam,
        pick,
        "follow the docs page that explains the fix",
    )
}

fn c_names(r: &mut Rng, p: &Proj, n: usize) -> Vec<String> {
    let mut v = Vec::new();
    while v.len() < n {
        let s = format!("{}_{}_{}", r.word(p.nouns), r.word(VERBS), r.word(p.nouns));
        if !v.contains(&s) {
            v.push(s);
        }
    }
    v
}

fn valgrind(r: &mut Rng, p: &Proj) -> Out {
    let pid = r.range(10_000, 99_999);
    let pre = format!("=={pid}==");
    let mut lines = vec![
        format!("{pre} Memcheck, a memory error detector"),
        format!("{pre} Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al."),
        format!("{pre} Using Valgrind-3.22.0 and LibVEX; rerun with -h for copyright info"),
        format!("{pre} Command: ./build/host/test_sensorhub"),
        pre.clone(),
    ];
    let k = r.range(12, 50);
    let tests = c_names(r, p, k);
    for t in &tests {
        lines.push(format!(
            "test/test_{}.c:{}:test_{t}:PASS",
            t.split('_').next().unwrap_or("x"),
            r.range(20, 400)
        ));
    }
    lines.push(String::new());
    lines.push("-----------------------".into());
    lines.push(format!("{} Tests 0 Failures 0 Ignored", tests.len()));
    lines.push("OK".into());
    lines.push(pre.clone());
    lines.push(format!("{pre} HEAP SUMMARY:"));
    lines.push(format!(
        "{pre}     in use at exit: {} bytes in {} blocks",
        r.range(500, 9000),
        r.range(5, 40)
    ));
    lines.push(format!(
        "{pre}   total heap usage: {} allocs, {} frees, {} bytes allocated",
        r.range(2000, 9000),
        r.range(1900, 8900),
        r.range(100_000, 900_000)
    ));
    let nrec = r.range(4, 9);
    let sites = c_names(r, p, nrec);
    let callers = c_names(r, p, 6);
    let mut fam = Vec::new();
    for (i, site) in sites.iter().enumerate() {
        lines.push(pre.clone());
        let kind = if r.chance(70) {
            "definitely"
        } else {
            "indirectly"
        };
        lines.push(format!(
            "{pre} {} bytes in {} blocks are {kind} lost in loss record {} of {}",
            r.range(1, 64) * 8,
            r.range(1, 6),
            i + 1,
            nrec
        ));
        lines.push(format!("{pre}    at 0x4848899: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)"));
        let file = format!(
            "src/{}/{}.c",
            r.word(&["core", "drivers", "net", "util"]),
            site.split('_').next().unwrap_or("x")
        );
        let ln = r.range(20, 500);
        fam.push(Fam {
            line: lines.len(),
            token: site.clone(),
            ctx: format!("{file}:{ln}"),
        });
        lines.push(format!(
            "{pre}    by 0x{}: {site} ({}:{ln})",
            r.hex(6).to_uppercase(),
            file.rsplit('/').next().unwrap_or("")
        ));
        for _ in 0..r.range(1, 3) {
            let c = r.pick(&callers);
            lines.push(format!(
                "{pre}    by 0x{}: {c} ({}.c:{})",
                r.hex(6).to_uppercase(),
                c.split('_').next().unwrap_or("x"),
                r.range(20, 500)
            ));
        }
        lines.push(format!(
            "{pre}    by 0x{}: UnityDefaultTestRun (unity.c:1838)",
            r.hex(6).to_uppercase()
        ));
        lines.push(format!(
            "{pre}    by 0x{}: main (test_runner.c:{})",
            r.hex(6).to_uppercase(),
            r.range(30, 200)
        ));
    }
    lines.push(pre.clone());
    lines.push(format!("{pre} LEAK SUMMARY:"));
    lines.push(format!(
        "{pre}    definitely lost: {} bytes in {} blocks",
        r.range(100, 2000),
        r.range(2, 9)
    ));
    lines.push(format!(
        "{pre}    indirectly lost: {} bytes in {} blocks",
        r.range(0, 900),
        r.range(0, 9)
    ));
    lines.push(format!("{pre}      possibly lost: 0 bytes in 0 blocks"));
    lines.push(format!(
        "{pre}    still reachable: {} bytes in {} blocks",
        r.range(0, 4000),
        r.range(0, 9)
    ));
    lines.push(format!("{pre}         suppressed: 0 bytes in 0 blocks"));
    lines.push(pre.clone());
    lines.push(format!(
        "{pre} For lists of detected and suppressed errors, rerun with: -s"
    ));
    lines.push(format!(
        "{pre} ERROR SUMMARY: {nrec} errors from {nrec} contexts (suppressed: 0 from 0)"
    ));
    let pick = r.below(fam.len());
    out(
        "leak-site",
        "Running the host tests under valgrind.",
        "bash",
        bash("valgrind --leak-check=full ./build/host/test_sensorhub 2>&1"),
        lines,
        fam,
        pick,
        "plug the leak in the host tests",
    )
}

fn cmake_build(r: &mut Rng, p: &Proj) -> Out {
    let n = r.range(25, 110);
    let nw = r.range(3, 7);
    let warn_at = r.sample(&(0..n).collect::<Vec<_>>(), nw);
    let mut lines = Vec::new();
    let mut fam = Vec::new();
    let warns = [
        (
            "conversion from 'int32_t' {aka 'long int'} to 'uint16_t' {aka 'short unsigned int'} may change value",
            "-Wconversion",
            "    cal->word = raw >> 4;",
        ),
        (
            "comparison of integer expressions of different signedness: 'int' and 'uint32_t' {aka 'long unsigned int'}",
            "-Wsign-compare",
            "    for (int i = 0; i < len; i++) {",
        ),
        (
            "unused variable 'status'",
            "-Wunused-variable",
            "    int status;",
        ),
        (
            "'memset' used with length equal to number of elements without multiplication by element size",
            "-Wmemset-elt-size",
            "    memset(buf, 0, ARRAY_LEN(buf));",
        ),
        (
            "this statement may fall through",
            "-Wimplicit-fallthrough=",
            "        state = STATE_IDLE;",
        ),
    ];
    let mut used = HashSet::new();
    for i in 0..n {
        let pct = (i + 1) * 97 / n;
        let dir = r.word(&["drivers", "core", "net", "util", "board"]);
        let f = format!("{}_{}", r.word(p.nouns), r.word(p.nouns));
        lines.push(format!(
            "[{pct:>3}%] Building C object CMakeFiles/sensorhub.elf.dir/src/{dir}/{f}.c.obj"
        ));
        if warn_at.contains(&i) {
            let (msg, flag, code) = r.pick(&warns);
            let ln = r.range(20, 700);
            let col = r.range(5, 30);
            let tok = format!("{}/src/{dir}/{f}.c:{ln}:{col}", p.cwd);
            if !used.insert(tok.clone()) {
                continue;
            }
            fam.push(Fam {
                line: lines.len(),
                token: tok.clone(),
                ctx: format!("{}/src/{dir}/{f}.c", p.cwd),
            });
            lines.push(format!("{tok}: warning: {msg} [{flag}]"));
            lines.push(format!("{ln:>5} | {code}"));
            lines.push(format!("      | {:>w$}", "^~~", w = col.min(20)));
        }
    }
    lines.push("[ 98%] Linking C executable sensorhub.elf".into());
    lines.push("Memory region         Used Size  Region Size  %age Used".into());
    lines.push(format!(
        "           FLASH:      {} B         1 MB     {}.{:02}%",
        r.range(150_000, 400_000),
        r.range(14, 39),
        r.below(100)
    ));
    lines.push(format!(
        "             RAM:      {} B       128 KB     {}.{:02}%",
        r.range(110_000, 126_000),
        r.range(84, 97),
        r.below(100)
    ));
    lines.push("[100%] Built target sensorhub.elf".into());
    let pick = r.below(fam.len().max(1));
    out(
        "compiler-warning",
        "Building the firmware to see the warnings.",
        "bash",
        bash("cmake --build build -j8 2>&1"),
        lines,
        fam,
        pick,
        "silence the new compiler warning properly",
    )
}

fn nm_sizes(r: &mut Rng, p: &Proj) -> Out {
    let n = r.range(30, 120);
    let names = c_names(r, p, n);
    let mut sizes: Vec<usize> = (0..n).map(|_| r.range(4, 4000)).collect();
    sizes.sort();
    *sizes.last_mut().unwrap() = r.range(9000, 30000);
    let mut lines = Vec::new();
    let mut fam = Vec::new();
    for (i, sz) in sizes.iter().enumerate() {
        let t = r.word(&["T", "t", "b", "B", "d", "D", "r"]);
        let name = if t.eq_ignore_ascii_case("b") || t.eq_ignore_ascii_case("d") {
            format!("g_{}", names[i])
        } else {
            names[i].clone()
        };
        fam.push(Fam {
            line: lines.len(),
            token: name.clone(),
            ctx: sz.to_string(),
        });
        lines.push(format!(
            "{} {sz:08x} {t} {name}",
            if t == "T" || t == "t" || t == "r" {
                format!("08{}", r.hex(6))
            } else {
                format!("2000{}", r.hex(4))
            }
        ));
    }
    let pick = fam.len() - 1;
    out(
        "largest-symbol",
        "Let me see which symbols eat the RAM.",
        "bash",
        bash("arm-none-eabi-nm --size-sort -S -t x build/sensorhub.elf | tail -n 120"),
        lines,
        fam,
        pick,
        "shrink the biggest buffer so RAM fits again",
    )
}

fn find_headers(r: &mut Rng, p: &Proj) -> Out {
    let n = r.range(40, 260);
    let mut lines = Vec::new();
    let mut fam = Vec::new();
    let mut seen = HashSet::new();
    for _ in 0..n {
        let path = match r.below(4) {
            0 => format!(
                "./src/{}/{}_{}.h",
                r.word(&["drivers", "core", "net", "util"]),
                r.word(p.nouns),
                r.word(p.nouns)
            ),
            1 => format!(
                "./boards/{}/{}_{}.h",
                r.word(&["stm32l4", "nrf52840", "rp2040", "esp32c3"]),
                r.word(p.nouns),
                r.word(&["cfg", "pins", "defs", "map"])
            ),
            2 => format!(
                "./third_party/{}/include/{}_{}.h",
                r.word(&["cmsis", "unity", "littlefs", "tinyusb"]),
                r.word(p.nouns),
                r.word(VERBS)
            ),
            _ => format!(
                "./test/support/mock_{}_{}.h",
                r.word(p.nouns),
                r.word(p.nouns)
            ),
        };
        if !seen.insert(path.clone()) {
            continue;
        }
        fam.push(Fam {
            line: lines.len(),
            token: path.trim_start_matches('.').to_string(),
            ctx: path.clone(),
        });
        lines.push(path);
    }
    let pick = r.below(fam.len());
    out(
        "find-path",
        "Finding the headers that define the board configuration.",
        "bash",
        bash("find . -path ./build -prune -o -name '*.h' -print"),
        lines,
        fam,
        pick,
        "move the pin map into the right board header",
    )
}

type Gen = fn(&mut Rng, &Proj) -> Out;

fn formats(p: &Proj) -> Vec<Gen> {
    match p.lang {
        Lang::Go => vec![go_test, pprof, goroutines, git_log, config_yaml],
        Lang::Py => vec![
            showmigrations,
            pytest,
            |r, p| env_dump(r, p, false),
            db_rows,
            git_log,
        ],
        Lang::Ts => vec![npm_audit, prisma_ls, jest, fetch_docs, |r, p| {
            env_dump(r, p, true)
        }],
        Lang::C => vec![valgrind, cmake_build, nm_sizes, find_headers, git_log],
    }
}

// ---------------------------------------------------------------------------------------------
// Fillers
// ---------------------------------------------------------------------------------------------

fn source_path(r: &mut Rng, p: &Proj) -> String {
    let n = r.word(p.nouns);
    let m = r.word(p.nouns);
    match p.lang {
        Lang::Go => format!("{}/internal/{n}/{m}.go", p.cwd),
        Lang::Py => format!("{}/{n}s/{m}.py", p.cwd),
        Lang::Ts => format!("{}/src/services/{n}{}.ts", p.cwd, cap(m)),
        Lang::C => format!("{}/src/core/{n}_{m}.c", p.cwd),
    }
}

fn source_lines(r: &mut Rng, p: &Proj, min_chars: usize) -> Vec<String> {
    let mut lines = match p.lang {
        Lang::Go => vec![
            format!("package {}", r.word(p.nouns)),
            String::new(),
            "import (".into(),
            "\t\"context\"".into(),
            "\t\"errors\"".into(),
            "\t\"sync\"".into(),
            "\t\"time\"".into(),
            ")".into(),
            String::new(),
        ],
        Lang::Py => vec![
            "from __future__ import annotations".into(),
            String::new(),
            "import logging".into(),
            "from datetime import timedelta".into(),
            String::new(),
            "from django.db import transaction".into(),
            "from django.utils import timezone".into(),
            String::new(),
            "log = logging.getLogger(__name__)".into(),
            String::new(),
        ],
        Lang::Ts => vec![
            "import { Router } from \"express\";".into(),
            "import { prisma } from \"../db/client\";".into(),
            "import { logger } from \"../lib/logger\";".into(),
            String::new(),
        ],
        Lang::C => vec![
            "#include <stdint.h>".into(),
            "#include <string.h>".into(),
            format!("#include \"{}.h\"", r.word(p.nouns)),
            String::new(),
        ],
    };
    let mut chars: usize = lines.iter().map(|l| l.len() + 1).sum();
    while chars < min_chars {
        let a = r.word(p.nouns).to_string();
        let b = r.word(p.nouns).to_string();
        let v = r.word(VERBS).to_string();
        let k = r.range(2, 900);
        let body: Vec<String> = match p.lang {
            Lang::Go => vec![
                format!(
                    "// {v}{} {v}s the {a} of a {b} and reports how many were touched.",
                    cap(&a)
                ),
                format!(
                    "func (s *{}) {v}{}(ctx context.Context, n int) (int, error) {{",
                    cap(&b),
                    cap(&a)
                ),
                "\ts.mu.Lock()".into(),
                "\tdefer s.mu.Unlock()".into(),
                format!("\tif n <= 0 || n > {k} {{"),
                format!("\t\treturn 0, errors.New(\"{b}: bad {a} count\")"),
                "\t}".into(),
                format!("\tfor i := 0; i < n; i++ {{"),
                format!("\t\ts.{a}s[i%len(s.{a}s)].at = time.Now()"),
                "\t}".into(),
                "\treturn n, ctx.Err()".into(),
                "}".into(),
                String::new(),
            ],
            Lang::Py => vec![
                format!("def {v}_{a}({b}, *, limit={k}):"),
                format!("    \"\"\"{} the {a} records of one {b}.\"\"\"", cap(&v)),
                format!("    qs = {b}.{a}_set.filter(created__lte=timezone.now())"),
                "    with transaction.atomic():".into(),
                "        count = 0".into(),
                "        for row in qs[:limit]:".into(),
                "            row.touched = timezone.now()".into(),
                "            row.save(update_fields=[\"touched\"])".into(),
                "            count += 1".into(),
                format!("    log.info(\"{v} %s {a}s\", count)"),
                "    return count".into(),
                String::new(),
            ],
            Lang::Ts => vec![
                format!(
                    "export async function {v}{}(id: string, limit = {k}): Promise<number> {{",
                    cap(&a)
                ),
                format!(
                    "  const rows = await prisma.{a}.findMany({{ where: {{ {b}Id: id }}, take: limit }});"
                ),
                "  let n = 0;".into(),
                "  for (const row of rows) {".into(),
                format!(
                    "    await prisma.{a}.update({{ where: {{ id: row.id }}, data: {{ touchedAt: new Date() }} }});"
                ),
                "    n += 1;".into(),
                "  }".into(),
                format!("  logger.debug({{ n }}, \"{v} {a}\");"),
                "  return n;".into(),
                "}".into(),
                String::new(),
            ],
            Lang::C => vec![
                format!("int {a}_{v}(struct {b}_ctx *ctx, size_t len)"),
                "{".into(),
                format!("    if (ctx == NULL || len > {k}u) {{"),
                "        return -EINVAL;".into(),
                "    }".into(),
                "    for (size_t i = 0; i < len; i++) {".into(),
                format!("        ctx->{a}[i] = 0;"),
                "    }".into(),
                format!("    ctx->{b}_count += (uint32_t)len;"),
                "    return 0;".into(),
                "}".into(),
                String::new(),
            ],
        };
        chars += body.iter().map(|l| l.len() + 1).sum::<usize>();
        lines.extend(body);
    }
    lines
}

fn filler(r: &mut Rng, p: &Proj) -> Out {
    let path = source_path(r, p);
    let (intro, tool, args, lines) = match r.below(6) {
        0 | 1 => {
            let n = r.range(800, 9000);
            (
                "Reading the code involved.",
                "read",
                json!({ "path": path }),
                source_lines(r, p, n),
            )
        }
        2 => {
            let dir = path.rsplit_once('/').map_or(p.cwd, |x| x.0).to_string();
            let lines = (0..r.range(4, 14))
                .map(|_| {
                    source_path(r, p)
                        .rsplit('/')
                        .next()
                        .unwrap_or("")
                        .to_string()
                })
                .collect();
            ("Listing the package.", "ls", json!({ "path": dir }), lines)
        }
        3 => {
            let v = r.word(VERBS);
            let lines = (0..r.range(2, 12))
                .map(|_| {
                    format!(
                        "{}:{}:    {v}(",
                        source_path(r, p)
                            .trim_start_matches(p.cwd)
                            .trim_start_matches('/'),
                        r.range(10, 800)
                    )
                })
                .collect();
            (
                "Searching for the callers.",
                "grep",
                json!({ "pattern": format!("{v}\\("), "path": "." }),
                lines,
            )
        }
        4 => (
            "Small cleanup while I am here.",
            "edit",
            json!({ "path": path, "oldText": "count = 0", "newText": "count = 0  # reset per batch" }),
            vec![format!("Successfully replaced text in {path}.")],
        ),
        _ => {
            let lines = source_lines(r, p, 300);
            let text = lines.join("\n");
            let res = vec![format!("Successfully wrote {} bytes to {path}", text.len())];
            (
                "Adding a scratch file for the reproduction.",
                "write",
                json!({ "path": path, "content": text }),
                res,
            )
        }
    };
    out("", intro, tool, args, lines, Vec::new(), 0, "")
}

// ---------------------------------------------------------------------------------------------
// The later part
// ---------------------------------------------------------------------------------------------

struct Step {
    text: String,
    tool: &'static str,
    args: Value,
    result: String,
}

fn later_step(kind: &str, f: &Fam, p: &Proj, r: &mut Rng) -> Step {
    let t = &f.token;
    let c = &f.ctx;
    let (text, tool, args, result) = match kind {
        "failing-go-test" => (
            format!("The test to fix is {t}; running it alone with -v."),
            "bash",
            bash(&format!("go test -count=1 -race -run '^{t}$' -v ./{c}/")),
            format!("--- FAIL: {t} (0.03s)\nFAIL"),
        ),
        "hot-function" => (
            format!("Our hottest function is {t} in {c}. Let me find it."),
            "grep",
            json!({ "pattern": format!(") {t}("), "path": c }),
            format!("{c}/{}.go:{}: func (x) {t}(now time.Time) int {{", c.rsplit('/').next().unwrap_or(""), r.range(10, 400)),
        ),
        "goroutine-frame" => (
            format!("The stuck goroutine is parked at {t}, a send with no reader. Opening that spot."),
            "read",
            json!({ "path": c, "offset": 1, "limit": 40 }),
            "select {\ncase out <- res:\ncase <-ctx.Done():\n\treturn\n}".to_string(),
        ),
        "commit-hash" => (
            format!("The regression came in with {t}. Reverting it."),
            "bash",
            bash(&format!("git revert --no-edit {t}")),
            "1 file changed, 4 insertions(+), 9 deletions(-)".to_string(),
        ),
        "config-key" => {
            let path = format!("{}/config/{}.yaml", p.cwd, p.key);
            (
                format!("The misconfigured key is {t}; fixing its value."),
                "edit",
                json!({ "path": path, "oldText": format!("{t}: {c}"), "newText": format!("{t}: {}", r.range(1, 100)) }),
                format!("Successfully replaced text in {path}."),
            )
        }
        "migration-id" => (
            format!("{t} is the first unapplied migration of {c}; applying up to it."),
            "bash",
            bash(&format!("python manage.py migrate {c} {t}")),
            "Operations to perform:\n  Target specific migration\nRunning migrations:\n  Applying... OK".to_string(),
        ),
        "failing-pytest" => (
            format!("Re-running {t} with the full traceback."),
            "bash",
            bash(&format!("pytest -q {t} --tb=short")),
            "F\n1 failed in 0.84s".to_string(),
        ),
        "env-var" => {
            let path = format!("{}/{}", p.cwd, if p.lang == Lang::Ts { ".env.example" } else { "deploy/web.env" });
            (
                format!("{t} has the wrong value; correcting it."),
                "edit",
                json!({ "path": path, "oldText": format!("{t}={c}"), "newText": format!("{t}={}", r.range(1, 60)) }),
                format!("Successfully replaced text in {path}."),
            )
        }
        "booking-ref" => (
            format!("Confirming booking {t} by hand."),
            "db_query",
            json!({ "sql": format!("UPDATE appointments_booking SET status = 'confirmed' WHERE booking_ref = '{t}'") }),
            "UPDATE 1".to_string(),
        ),
        "vulnerable-package" => (
            format!("Upgrading to {t} as the audit suggests."),
            "bash",
            bash(&format!("npm install {t} --save-exact")),
            "changed 3 packages, and audited 812 packages in 4s\n\nfound 0 vulnerabilities".to_string(),
        ),
        "prisma-migration" => {
            let path = format!("{}/prisma/migrations/{t}/migration.sql", p.cwd);
            (
                format!("Opening {t}, the migration that failed."),
                "read",
                json!({ "path": path }),
                "-- AlterTable\nALTER TABLE \"Parcel\" ADD COLUMN \"lengthMm\" INTEGER NOT NULL;".to_string(),
            )
        }
        "failing-jest-suite" => (
            format!("Running only {t}."),
            "bash",
            bash(&format!("npx jest {t} --ci")),
            "Tests:       1 failed, 11 passed, 12 total".to_string(),
        ),
        "doc-url" => (
            format!("The page that covers our case is {t}."),
            "fetch_url",
            json!({ "url": t }),
            "# Resolving failed migrations\n\nMark the migration as rolled back, fix it, then deploy again.".to_string(),
        ),
        "leak-site" => {
            let (file, _) = c.rsplit_once(':').unwrap_or((c, ""));
            (
                format!("The lost blocks are allocated in {t} and never freed on the error path."),
                "read",
                json!({ "path": format!("{}/{file}", p.cwd) }),
                "void *buf = malloc(len);\nif (frame_check(buf) != 0) {\n    return -EIO;\n}".to_string(),
            )
        }
        "compiler-warning" => (
            format!("Fixing the warning at {t} with an explicit, checked cast."),
            "edit",
            json!({ "path": c, "oldText": "    cal->word = raw >> 4;", "newText": "    cal->word = (uint16_t)((uint32_t)raw >> 4);" }),
            format!("Successfully replaced text in {c}."),
        ),
        "largest-symbol" => (
            format!("{t} alone takes {c} bytes; shrinking it."),
            "grep",
            json!({ "pattern": t, "path": "src" }),
            "static uint8_t pool[POOL_LEN];".to_string(),
        ),
        "find-path" => (
            format!("The pin map belongs in {}.", c),
            "read",
            json!({ "path": format!("{}{t}", p.cwd) }),
            "#pragma once\n\n#define PIN_LED 13".to_string(),
        ),
        _ => unreachable!("{kind}"),
    };
    Step {
        text,
        tool,
        args,
        result,
    }
}

// ---------------------------------------------------------------------------------------------
// Session assembly
// ---------------------------------------------------------------------------------------------

fn iso(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

struct Writer<'a> {
    r: Rng,
    p: &'a Proj,
    lines: Vec<String>,
    ids: HashSet<String>,
    parent: Option<String>,
    now: u64,
    ctx: u64,
}

impl Writer<'_> {
    fn push(&mut self, message: Value) {
        let id = loop {
            let h = self.r.hex(8);
            if self.ids.insert(h.clone()) {
                break h;
            }
        };
        self.now += self.r.range(900, 30_000) as u64;
        let mut message = message;
        message["timestamp"] = json!(self.now);
        let e = json!({
            "type": "message",
            "id": id,
            "parentId": self.parent,
            "timestamp": iso(self.now),
            "message": message,
        });
        self.lines.push(e.to_string());
        self.parent = Some(id);
    }

    fn user(&mut self, text: &str) {
        self.push(json!({ "role": "user", "content": [{ "type": "text", "text": text }] }));
    }

    fn assistant(&mut self, text: &str, call: Option<(&str, &str, &Value)>) {
        let mut content = Vec::new();
        if !text.is_empty() {
            content.push(json!({ "type": "text", "text": text }));
        }
        if let Some((id, name, args)) = call {
            content.push(json!({ "type": "toolCall", "id": id, "name": name, "arguments": args }));
        }
        let input = self.ctx;
        let output = self.r.range(40, 900) as u64;
        self.ctx += output + self.r.range(100, 2000) as u64;
        let cached = input * 9 / 10;
        let fresh = input - cached;
        // Per-million prices of the model's tier, rounded to whole micro-dollars.
        let micro = |n: u64, per_million: f64| (n as f64 * per_million).round() / 1e6;
        let (ci, co, cr) = (micro(fresh, 3.0), micro(output, 15.0), micro(cached, 0.3));
        self.push(json!({
            "role": "assistant",
            "content": content,
            "api": self.p.api,
            "provider": self.p.provider,
            "model": self.p.model,
            "usage": {
                "input": fresh,
                "output": output,
                "cacheRead": cached,
                "cacheWrite": 0,
                "totalTokens": input + output,
                "cost": {
                    "input": ci,
                    "output": co,
                    "cacheRead": cr,
                    "cacheWrite": 0,
                    "total": ci + co + cr
                }
            },
            "stopReason": if call.is_some() { "toolUse" } else { "stop" },
        }));
    }

    fn call(&mut self, text: &str, tool: &str, args: &Value, result: &str) {
        let id = format!("toolu_01{}", self.r.alnum(22));
        self.assistant(text, Some((&id, tool, args)));
        self.ctx += harness::tokens_of(result);
        self.push(json!({
            "role": "toolResult",
            "toolCallId": id,
            "toolName": tool,
            "content": [{ "type": "text", "text": result }],
            "isError": false,
        }));
    }
}

fn label(at: usize, n: usize) -> &'static str {
    if at * 5 < n {
        "head"
    } else if at * 5 >= 4 * n {
        "tail"
    } else {
        "middle"
    }
}

fn try_build(r: &mut Rng, seed: u64, index: usize) -> Option<Generated> {
    let p = &PROJECTS[(index + seed as usize) % PROJECTS.len()];
    let name = format!("unseen-{seed}-{index:02}-{}", p.key);
    let gens = formats(p);
    let nn = r.range(3, 5);
    let chosen: Vec<Gen> = r.sample(&gens, nn);
    let mut outs: Vec<Out> = chosen.iter().map(|g| g(r, p)).collect();
    let total = r.range(9, 15);
    for _ in 0..total - nn - 2 {
        outs.push(filler(r, p));
    }
    r.shuffle(&mut outs);
    // The last big output: a large source file.
    let big_path = source_path(r, p);
    let big_chars = r.range(12_000, 55_000);
    let big = out(
        "",
        "Reading the main module before changing anything.",
        "read",
        json!({ "path": big_path }),
        source_lines(r, p, big_chars),
        Vec::new(),
        0,
        "",
    );
    outs.push(big);

    let mut w = Writer {
        r: Rng::new(r.next()),
        p,
        lines: Vec::new(),
        ids: HashSet::new(),
        parent: None,
        now: 1_741_000_000_000 + (r.next() % 20_000_000_000),
        ctx: r.range(3000, 9000) as u64,
    };
    let header = json!({
        "type": "session",
        "version": 3,
        "id": format!("{}-{}-4{}-a{}-{}", r.hex(8), r.hex(4), r.hex(3), r.hex(3), r.hex(12)),
        "timestamp": iso(w.now),
        "cwd": p.cwd,
    });
    w.lines.push(header.to_string());
    w.user(p.task);
    for o in &outs {
        w.call(&o.intro, o.tool, &o.args, &o.lines.join("\n"));
    }
    let needle_outs: Vec<&Out> = outs.iter().filter(|o| !o.kind.is_empty()).collect();
    let asks: Vec<&str> = needle_outs.iter().map(|o| o.ask).collect();
    let request = format!(
        "Thanks. Now {} and {}. Do them in that order and keep each change small.",
        asks[..asks.len() - 1].join(", "),
        asks[asks.len() - 1]
    );
    if distinctive_iter(&request).count() > 0 {
        return None;
    }
    w.user(&request);
    let status = match p.lang {
        Lang::Go => " M go.sum\n M internal/bucket/bucket.go",
        Lang::Py => " M requirements.txt\n?? notes.txt",
        Lang::Ts => " M package-lock.json\n M package.json",
        Lang::C => " M CMakeLists.txt\n?? build-host/",
    };
    w.call(
        "Checking the working tree first.",
        "bash",
        &bash("git status --short"),
        status,
    );
    let cut_line = w.lines.len();
    let body = w.lines.join("\n");

    // Needles and distractors, by the rules.
    let unique = |t: &str| body.matches(t).count() == 1;
    let line_once = |l: &str| {
        let esc = serde_json::to_string(l).unwrap();
        body.matches(esc.trim_matches('"')).count() == 1
    };
    let mut needles = Vec::new();
    let mut distractors = Vec::new();
    let mut picked: Vec<(&Out, Fam)> = Vec::new();
    for o in &needle_outs {
        let f = o.fam.get(o.pick)?;
        let line = &o.lines[f.line];
        if !harness::is_distinctive(&f.token)
            || !unique(&f.token)
            || !line_once(line)
            || !distinctive_iter(line).any(|t| t == f.token)
        {
            return None;
        }
        // The nearest look-alikes with strings of their own.
        let mut others: Vec<&Fam> = o
            .fam
            .iter()
            .filter(|g| {
                g.line != f.line
                    && unique(&g.token)
                    && harness::is_distinctive(&g.token)
                    && line_once(&o.lines[g.line])
            })
            .collect();
        others.sort_by_key(|g| (g.line as i64 - f.line as i64).abs());
        let k = r.range(2, 4);
        if others.len() < 2 {
            return None;
        }
        for g in others.into_iter().take(k) {
            distractors.push(o.lines[g.line].clone());
        }
        let n = o.lines.join("\n").lines().count();
        needles.push((
            o.kind.to_string(),
            line.clone(),
            label(f.line, n).to_string(),
        ));
        picked.push((o, f.clone()));
    }
    let kinds: HashSet<&str> = needles.iter().map(|(k, _, _)| k.as_str()).collect();
    if kinds.len() != needles.len() {
        return None;
    }

    // The later part.
    w.user(r.word(&[
        "Go ahead.",
        "Go ahead, one at a time.",
        "Sounds good, go ahead.",
        "Yes, do it.",
    ]));
    for (o, f) in &picked {
        let s = later_step(o.kind, f, p, r);
        w.call(&s.text, s.tool, &s.args, &s.result);
    }
    w.assistant(
        "Done. Each change is in place; I will rerun the full checks next.",
        None,
    );
    let later = w.lines[cut_line..].join("\n");
    for (_, f) in &picked {
        if !later.contains(f.token.as_str()) {
            return None;
        }
    }
    for d in &distractors {
        if distinctive_iter(d).any(|t| later.contains(t) && unique(t))
            || !distinctive_iter(d).any(unique)
        {
            return None;
        }
    }
    // The last big output keeps every needle out of the kept part.
    if harness::tokens_of(&outs.last()?.lines.join("\n")) < 2_600 {
        return None;
    }
    Some(Generated {
        name,
        lines: w.lines,
        cut_line,
        needles,
        distractors,
    })
}

/// Session `index` of the set drawn with `seed` (deterministic).
pub fn generate_one(seed: u64, index: usize) -> Generated {
    for attempt in 0..500 {
        let mut r = Rng::new(mix(seed, index as u64, attempt));
        if let Some(g) = try_build(&mut r, seed, index) {
            return g;
        }
    }
    panic!("unseen: no valid draw for seed {seed}, session {index}");
}

/// Write `n` sessions under `work` and return their needle cases.
pub fn specs(seed: u64, n: usize, work: &Path) -> Result<Vec<CaseSpec>> {
    harness::needle_specs(work, "unseen", n, |i| {
        let g = generate_one(seed, i);
        (g.name, g.lines, g.cut_line, g.needles, g.distractors)
    })
}
