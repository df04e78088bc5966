//! A fresh, independent needle-benchmark generator: a second held-out set for the
//! compaction-quality harness (`examples/quality.rs --fresh N`).
//!
//! Written without reading the other needle generators (`quality/heldout.rs`,
//! `examples/needles*`) or the compactor and its scorer (`src/`): only the measuring harness
//! (`quality/harness.rs`), the benchmark driver and pi's session format were consulted, so
//! nothing here is shaped after what the compactor looks for.
//!
//! Each session is one coding-agent investigation in one of five projects: Rust firmware for a
//! tide-monitoring buoy (embassy on nRF52), a Kotlin/Android field-survey app, a Python ocean
//! regridding pipeline, a C++ game engine, and a Rails clinic-scheduling monolith. The agent
//! uses pi's tools (`read` with offset/limit and pi's truncation notice, `bash`, `grep`, `find`,
//! `ls`, `edit`, `write`) and gets realistic outputs: source files, git history, dependency
//! trees, test-runner output (pytest, gradle, rspec, ctest), compiler diagnostics, timestamped
//! logs, stack traces, profiler and benchmark tables, symbol tables (`nm`), lockfile diffs,
//! XML, CMake/ninja output, config files, env dumps, migration listings and route tables.
//!
//! Three to five outputs hold one needle line each, placed at the head, middle or tail of the
//! output (its label, from the line's position in the output). The needle kinds are mostly not
//! errors: a config key, a function signature, a commit, a dependency version, a lockfile
//! version bump, a path in a listing, a search hit, the one failing test among many passing, a
//! profiler or benchmark row, an upstream URL or gateway id in a log, an env var, a symbol
//! address, a migration, a route, a stack frame, a warning's location, an XML attribute. The
//! needle, its look-alikes and the output's other lines come from the same record generator,
//! so a needle line is no richer in distinctive strings than its neighbours. Every output with
//! a needle shape also holds two to four look-alike lines (distractors) that nothing uses
//! later, and all outputs carry many other distinctive strings (paths, ids, versions,
//! timestamps) that nothing uses either.
//!
//! The prefix ends with the user asking, in words only, for the next steps, and one small tool
//! call. The later part (from `cut_line`) starts with "Go ahead." and then, per needle, an
//! assistant step quoting a distinctive string that occurs in the needle line and nowhere else
//! in the prefix (checked; a session that fails the check is regenerated).

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;
use serde_json::{Map, Value, json};

use super::harness::{self, CaseSpec, distinctive_iter, is_distinctive};

/// One generated session.
pub struct Generated {
    pub name: String,
    pub lines: Vec<String>,
    /// The first line of the later part.
    pub cut_line: usize,
    /// (kind, whole needle line, label: head|middle|tail).
    pub needles: Vec<(String, String, String)>,
    pub distractors: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Randomness, time, words
// ---------------------------------------------------------------------------------------------

/// splitmix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn u64(&mut self) -> u64 {
        harness::splitmix64(&mut self.0)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.u64() % n as u64) as usize
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    pub fn unit(&mut self) -> f64 {
        (self.u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    pub fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16)]))
            .collect()
    }

    pub fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n).map(|_| char::from(A[self.below(A.len())])).collect()
    }

    /// Log-uniform in `lo..hi`.
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> usize {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp() as usize
    }

    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `2026-02-11T09:14:03.512Z`.
fn iso(ms: u64) -> String {
    let s = ms / 1000;
    let (y, m, d) = civil((s / 86_400) as i64);
    let t = s % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        t / 3600,
        t % 3600 / 60,
        t % 60,
        ms % 1000
    )
}

/// `2026-02-11 09:14:03`.
fn stamp(ms: u64) -> String {
    iso(ms)[..19].replace('T', " ")
}

/// `09:14:03.512`.
fn clock(ms: u64) -> String {
    iso(ms)[11..23].to_string()
}

fn cap(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// `n` distinct project words.
fn words(r: &mut Rng, p: &Project, n: usize) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    while v.len() < n {
        let w = *r.pick(p.words);
        if !v.contains(&w) {
            v.push(w);
        }
    }
    v
}

fn snake(r: &mut Rng, p: &Project, n: usize) -> String {
    words(r, p, n).join("_")
}

fn camel(r: &mut Rng, p: &Project, n: usize) -> String {
    let w = words(r, p, n);
    let mut s = w[0].to_string();
    for x in &w[1..] {
        s.push_str(&cap(x));
    }
    s
}

fn pascal(r: &mut Rng, p: &Project, n: usize) -> String {
    words(r, p, n).iter().map(|w| cap(w)).collect()
}

/// A function or method name in the project's language.
fn func(r: &mut Rng, p: &Project) -> String {
    let n = r.range(2, 3);
    match p.lang {
        Lang::Kotlin | Lang::Cpp => camel(r, p, n),
        _ => snake(r, p, n),
    }
}

/// A type name.
fn tname(r: &mut Rng, p: &Project) -> String {
    let n = r.range(1, 2);
    pascal(r, p, n)
}

/// A source file path of the project.
fn src_path(r: &mut Rng, p: &Project) -> String {
    let dir = *r.pick(p.dirs);
    let n = r.range(1, 2);
    match p.lang {
        Lang::Kotlin => format!("{dir}/{}.kt", pascal(r, p, n + 1)),
        Lang::Cpp => format!("{dir}/{}.{}", snake(r, p, n), r.pick(&["cpp", "cpp", "h"])),
        Lang::Rust => format!("{dir}/{}.rs", snake(r, p, n)),
        Lang::Python => format!("{dir}/{}.py", snake(r, p, n)),
        Lang::Ruby => format!("{dir}/{}.rb", snake(r, p, n)),
    }
}

/// `1.4.2`, sometimes with a pre-release.
fn version(r: &mut Rng) -> String {
    let v = format!("{}.{}.{}", r.below(4), r.below(30), r.below(20));
    if r.chance(0.1) {
        format!("{v}-{}.{}", r.pick(&["rc", "beta", "alpha"]), r.range(1, 6))
    } else {
        v
    }
}

const PEOPLE: &[&str] = &[
    "Mara Lindqvist",
    "Tomasz Wrona",
    "Aiko Tanabe",
    "Jonah Okafor",
    "Priya Raman",
    "Lucía Ferrer",
    "Ben Achterberg",
    "Nadia Haddad",
    "Sven Oyelaran",
    "Chloé Marchand",
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    Rust,
    Kotlin,
    Python,
    Cpp,
    Ruby,
}

/// A project sessions happen in.
struct Project {
    key: &'static str,
    cwd: &'static str,
    lang: Lang,
    words: &'static [&'static str],
    dirs: &'static [&'static str],
    tasks: &'static [&'static str],
    /// Output formats that can hold a needle.
    fmts: &'static [Fmt],
}

/// Output formats (each can hold a needle of its own kind).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fmt {
    Source,
    GitLog,
    Find,
    Grep,
    Config,
    Env,
    Log,
    Deps,
    Tests,
    Diag,
    Nm,
    Profile,
    Bench,
    Trace,
    Xml,
    LockDiff,
    Cmake,
    Migrations,
    Routes,
}

const PROJECTS: &[Project] = &[
    Project {
        key: "buoy-fw",
        cwd: "/home/mara/src/tidewatch-fw",
        lang: Lang::Rust,
        words: &[
            "buoy", "tide", "sonar", "imu", "gyro", "accel", "baro", "lora", "radio", "packet",
            "frame", "uart", "spi", "twim", "dma", "adc", "sample", "battery", "solar", "watchdog",
            "flash", "ring", "crc", "gnss", "fix", "epoch", "sleep", "wake", "rtc", "timer",
            "queue", "ballast", "pump", "depth", "temp", "salinity", "uplink", "beacon", "modem",
            "bias",
        ],
        dirs: &[
            "src/drivers",
            "src/radio",
            "src/sensors",
            "src/power",
            "src/storage",
            "src/tasks",
            "src/proto",
            "src/bin",
        ],
        tasks: &[
            "The buoys in the harbour trial lose uplink packets after roughly forty minutes on battery. Dig through the radio and power code, the build and the last RTT capture, and work out what is going on before we change anything.",
            "Since the last firmware bump a few boards reboot during the flash-storage migration. Investigate the storage layer, the dependency changes and the linker output; don't fix anything yet.",
            "Depth readings drift by several centimetres per hour on the new sensor board. Find where the drift could come from: the sensor drivers, the sampling tasks, the build settings.",
        ],
        fmts: &[
            Fmt::Source,
            Fmt::GitLog,
            Fmt::Find,
            Fmt::Grep,
            Fmt::Config,
            Fmt::Log,
            Fmt::Deps,
            Fmt::Diag,
            Fmt::Nm,
        ],
    },
    Project {
        key: "fieldnotes-android",
        cwd: "/Users/aiko/work/fieldnotes-android",
        lang: Lang::Kotlin,
        words: &[
            "survey",
            "note",
            "photo",
            "sync",
            "upload",
            "queue",
            "worker",
            "room",
            "entity",
            "dao",
            "plot",
            "transect",
            "species",
            "sighting",
            "location",
            "map",
            "tile",
            "cache",
            "login",
            "token",
            "session",
            "draft",
            "attachment",
            "export",
            "csv",
            "schedule",
            "notify",
            "screen",
            "model",
            "repo",
            "network",
            "retry",
            "offline",
            "backup",
            "settings",
            "theme",
            "badge",
            "filter",
            "search",
            "compass",
        ],
        dirs: &[
            "app/src/main/java/org/fieldnotes/sync",
            "app/src/main/java/org/fieldnotes/data",
            "app/src/main/java/org/fieldnotes/ui/survey",
            "app/src/main/java/org/fieldnotes/ui/map",
            "app/src/main/java/org/fieldnotes/export",
            "core/src/main/java/org/fieldnotes/core",
            "app/src/test/java/org/fieldnotes/sync",
        ],
        tasks: &[
            "Users report that photos attached offline never upload once the phone is back online. Investigate the sync worker, its tests, the logs from the test device and the dependencies before proposing a fix.",
            "The app started crashing on Android 14 when opening a survey from a notification. Go through the manifest, the crash logs and the relevant code and tell me what you find.",
            "Exports to CSV got very slow after the last release. Look at the export code, the recent history and the test results and find the likely cause.",
        ],
        fmts: &[
            Fmt::Source,
            Fmt::GitLog,
            Fmt::Find,
            Fmt::Grep,
            Fmt::Config,
            Fmt::Log,
            Fmt::Deps,
            Fmt::Tests,
            Fmt::Trace,
            Fmt::Xml,
        ],
    },
    Project {
        key: "oceanmix",
        cwd: "/home/lucia/projects/oceanmix",
        lang: Lang::Python,
        words: &[
            "regrid",
            "ocean",
            "salinity",
            "theta",
            "mixed",
            "layer",
            "depth",
            "grid",
            "mesh",
            "weights",
            "conservative",
            "bilinear",
            "tile",
            "chunk",
            "zarr",
            "netcdf",
            "glorys",
            "anomaly",
            "climatology",
            "mask",
            "land",
            "coast",
            "interp",
            "level",
            "sigma",
            "density",
            "flux",
            "heat",
            "budget",
            "ensemble",
            "member",
            "forcing",
            "bias",
            "trend",
            "season",
            "month",
            "basin",
            "transect",
            "profile",
            "halo",
        ],
        dirs: &[
            "oceanmix/regrid",
            "oceanmix/io",
            "oceanmix/diagnostics",
            "oceanmix/masks",
            "oceanmix/workflows",
            "scripts",
            "tests",
        ],
        tasks: &[
            "The monthly mixed-layer climatology changed after we moved to the new grid weights, and the heat budget no longer closes. Investigate the regridding code, tests, config and the last pipeline run.",
            "The nightly pipeline now takes four hours instead of one. Profile it, look at the recent dependency changes and the logs, and find out where the time goes.",
            "Salinity anomalies near the coast look wrong in the latest ensemble. Go through the land mask handling, the tests and the run logs and report back.",
        ],
        fmts: &[
            Fmt::Source,
            Fmt::GitLog,
            Fmt::Find,
            Fmt::Grep,
            Fmt::Config,
            Fmt::Env,
            Fmt::Log,
            Fmt::Tests,
            Fmt::Profile,
            Fmt::LockDiff,
        ],
    },
    Project {
        key: "emberforge",
        cwd: "/home/sven/dev/emberforge",
        lang: Lang::Cpp,
        words: &[
            "render",
            "shadow",
            "cascade",
            "frustum",
            "cull",
            "mesh",
            "material",
            "shader",
            "texture",
            "atlas",
            "mip",
            "vertex",
            "index",
            "buffer",
            "command",
            "fence",
            "swapchain",
            "frame",
            "graph",
            "pass",
            "light",
            "probe",
            "terrain",
            "foliage",
            "physics",
            "collider",
            "broadphase",
            "job",
            "fiber",
            "scheduler",
            "allocator",
            "arena",
            "pool",
            "asset",
            "streaming",
            "audio",
            "voice",
            "anim",
            "skeleton",
            "decal",
        ],
        dirs: &[
            "engine/render",
            "engine/render/vk",
            "engine/core",
            "engine/jobs",
            "engine/physics",
            "engine/assets",
            "engine/audio",
            "tools/bake",
        ],
        tasks: &[
            "Frame times spike to 40 ms whenever the shadow cascades update in the forest level. Investigate the renderer, the profiles and the benchmarks, and tell me what stands out.",
            "The Linux CI build crashes in the asset streaming tests since yesterday. Look at the build output, the test run, the backtrace and the recent history.",
            "Terrain materials render black on some GPUs after the material system rewrite. Check the material definitions, the shader setup and the build configuration.",
        ],
        fmts: &[
            Fmt::Source,
            Fmt::GitLog,
            Fmt::Find,
            Fmt::Grep,
            Fmt::Config,
            Fmt::Tests,
            Fmt::Profile,
            Fmt::Bench,
            Fmt::Trace,
            Fmt::Xml,
            Fmt::Cmake,
        ],
    },
    Project {
        key: "clinicflow",
        cwd: "/srv/dev/clinicflow",
        lang: Lang::Ruby,
        words: &[
            "appointment",
            "patient",
            "clinic",
            "provider",
            "schedule",
            "slot",
            "booking",
            "reminder",
            "waitlist",
            "referral",
            "insurance",
            "claim",
            "visit",
            "room",
            "shift",
            "calendar",
            "timezone",
            "invite",
            "consent",
            "form",
            "intake",
            "note",
            "chart",
            "audit",
            "export",
            "report",
            "sms",
            "email",
            "webhook",
            "tenant",
            "location",
            "holiday",
            "recurrence",
            "cancellation",
            "checkin",
            "triage",
            "practitioner",
            "availability",
            "import",
            "digest",
        ],
        dirs: &[
            "app/models",
            "app/services",
            "app/controllers/api/v2",
            "app/jobs",
            "app/policies",
            "lib/tasks",
            "app/serializers",
        ],
        tasks: &[
            "Patients in the Lisbon clinic get reminder texts an hour late since the clock change. Investigate the scheduling code, the jobs, the logs and the tests before we touch anything.",
            "Bookings from the waitlist sometimes double-book a room. Go through the booking service, the migrations, the routes and the failing specs and tell me what you find.",
            "The nightly insurance export job times out. Look at the job, the recent commits, the logs and the configuration.",
        ],
        fmts: &[
            Fmt::Source,
            Fmt::GitLog,
            Fmt::Find,
            Fmt::Grep,
            Fmt::Config,
            Fmt::Env,
            Fmt::Log,
            Fmt::Tests,
            Fmt::Trace,
            Fmt::Migrations,
            Fmt::Routes,
            Fmt::LockDiff,
        ],
    },
];

// ---------------------------------------------------------------------------------------------
// Outputs, needles, placement
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pos {
    Head,
    Middle,
    Tail,
}

/// How the later part uses a needle: an assistant step quoting its key.
struct Follow {
    text: String,
    tool: &'static str,
    args: Value,
    result: String,
}

/// One record of an output (one or more lines); `key` is a distinctive string of `lines[at]`.
struct Rec {
    lines: Vec<String>,
    at: usize,
    key: String,
}

impl Rec {
    fn one(line: String, key: String) -> Rec {
        Rec {
            lines: vec![line],
            at: 0,
            key,
        }
    }
}

/// The needle record of an output, with what the user asks about it and how it is used later.
struct Plant {
    kind: &'static str,
    rec: Rec,
    ask: String,
    follow: Follow,
}

struct Needle {
    kind: &'static str,
    line: String,
    key: String,
    label: &'static str,
    ask: String,
    follow: Follow,
}

/// One tool call and its output.
struct Out {
    intro: String,
    tool: &'static str,
    args: Value,
    text: String,
    needle: Option<Needle>,
    decoys: Vec<String>,
}

/// Up to `n` plain words of `line` (letters only, not distinctive), for asking about it in words.
fn plain_words(line: &str, n: usize) -> String {
    const STOP: &[&str] = &[
        "the", "and", "for", "with", "from", "when", "into", "commit",
    ];
    line.split(|c: char| !c.is_ascii_alphanumeric() && !"_./:-@#+~".contains(c))
        .filter(|w| {
            w.len() >= 3
                && w.chars().all(|c| c.is_ascii_alphabetic())
                && !is_distinctive(w)
                && !STOP.contains(&w.to_ascii_lowercase().as_str())
        })
        .take(n)
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Records until about `bytes` bytes.
fn fill(
    r: &mut Rng,
    bytes: usize,
    mut rec: impl FnMut(&mut Rng) -> Vec<String>,
) -> Vec<Vec<String>> {
    let mut v = Vec::new();
    let mut n = 0;
    while n < bytes && v.len() < 50_000 {
        let x = rec(r);
        n += x.iter().map(|l| l.len() + 1).sum::<usize>();
        v.push(x);
    }
    v
}

/// Place the decoys anywhere in `body` and the needle at `pos`; join everything.
#[allow(clippy::too_many_arguments)]
fn finish(
    r: &mut Rng,
    intro: String,
    tool: &'static str,
    args: Value,
    head: Vec<String>,
    mut body: Vec<Vec<String>>,
    foot: Vec<String>,
    plant: Option<(Plant, Pos)>,
    decoys: Vec<Rec>,
) -> Out {
    let mut dl = Vec::new();
    for d in decoys {
        dl.push(d.lines[d.at].clone());
        let i = r.below(body.len() + 1);
        body.insert(i, d.lines);
    }
    let mut needle = None;
    if let Some((pl, pos)) = plant {
        let n = body.len();
        let w = (n / 10).max(1);
        let i = match pos {
            Pos::Head => r.below(w),
            Pos::Middle => (n * 2 / 5 + r.below((n / 5).max(1))).min(n),
            Pos::Tail => n - r.below(w).min(n),
        };
        let line_at = head.len() + body[..i].iter().map(Vec::len).sum::<usize>() + pl.rec.at;
        let line = pl.rec.lines[pl.rec.at].clone();
        body.insert(i, pl.rec.lines);
        let total = head.len() + body.iter().map(Vec::len).sum::<usize>() + foot.len();
        let f = line_at as f64 / (total.saturating_sub(1)).max(1) as f64;
        let label = if f < 0.2 {
            "head"
        } else if f > 0.8 {
            "tail"
        } else {
            "middle"
        };
        needle = Some(Needle {
            kind: pl.kind,
            line,
            key: pl.rec.key,
            label,
            ask: pl.ask,
            follow: pl.follow,
        });
    }
    let mut lines = head;
    lines.extend(body.into_iter().flatten());
    lines.extend(foot);
    Out {
        intro,
        tool,
        args,
        text: lines.join("\n"),
        needle,
        decoys: dl,
    }
}

/// The needle (when `pos` is set) and 2–4 decoys from one record generator; `plan` gives, from
/// the needle's key, the user's request about it (in words) and its use in the later part.
fn plant_and_decoys(
    r: &mut Rng,
    pos: Option<Pos>,
    mut rec: impl FnMut(&mut Rng) -> Rec,
    kind: &'static str,
    plan: impl FnOnce(&mut Rng, &str, &str) -> (String, Follow),
) -> (Option<(Plant, Pos)>, Vec<Rec>) {
    let plant = pos.map(|ps| {
        let mut x = rec(r);
        for _ in 0..50 {
            if is_distinctive(&x.key) {
                break;
            }
            x = rec(r);
        }
        let (ask, follow) = plan(r, &x.key, &x.lines[x.at]);
        (
            Plant {
                kind,
                rec: x,
                ask,
                follow,
            },
            ps,
        )
    });
    let n = r.range(2, 4);
    let decoys = (0..n)
        .map(|_| {
            let mut x = rec(r);
            for _ in 0..50 {
                if is_distinctive(&x.key) {
                    break;
                }
                x = rec(r);
            }
            x
        })
        .collect();
    (plant, decoys)
}

// ---------------------------------------------------------------------------------------------
// Writing a session
// ---------------------------------------------------------------------------------------------

struct Model {
    provider: &'static str,
    api: &'static str,
    model: &'static str,
    call: &'static str,
    /// $ per million tokens: input, output, cache read, cache write.
    rates: [f64; 4],
}

const MODELS: &[Model] = &[
    Model {
        provider: "anthropic",
        api: "anthropic-messages",
        model: "claude-sonnet-4-5",
        call: "toolu_01",
        rates: [3.0, 15.0, 0.3, 3.75],
    },
    Model {
        provider: "openai",
        api: "openai-responses",
        model: "gpt-5.1-codex",
        call: "call_",
        rates: [1.25, 10.0, 0.125, 0.0],
    },
];

struct Writer {
    lines: Vec<String>,
    last: Option<String>,
    ids: HashSet<String>,
    ms: u64,
    /// Context tokens so far, and those already cached at the last assistant message.
    ctx: u64,
    cached: u64,
    model: &'static Model,
}

impl Writer {
    fn new(r: &mut Rng, model: &'static Model, cwd: &str, ms: u64) -> Writer {
        let uuid = format!(
            "{}-{}-7{}-{}{}-{}",
            r.hex(8),
            r.hex(4),
            r.hex(3),
            r.pick(&["8", "9", "a", "b"]),
            r.hex(3),
            r.hex(12)
        );
        let head =
            json!({"type": "session", "version": 3, "id": uuid, "timestamp": iso(ms), "cwd": cwd});
        let mut w = Writer {
            lines: vec![head.to_string()],
            last: None,
            ids: HashSet::new(),
            ms,
            ctx: 0,
            cached: 0,
            model,
        };
        w.entry(
            r,
            "model_change",
            vec![
                ("provider", json!(model.provider)),
                ("modelId", json!(model.model)),
            ],
        );
        let level = *r.pick(&["off", "medium", "high"]);
        w.entry(
            r,
            "thinking_level_change",
            vec![("thinkingLevel", json!(level))],
        );
        w
    }

    fn entry(&mut self, r: &mut Rng, kind: &str, fields: Vec<(&str, Value)>) {
        self.ms += r.range(30, 400) as u64;
        let id = loop {
            let h = r.hex(8);
            if self.ids.insert(h.clone()) {
                break h;
            }
        };
        let mut m = Map::new();
        m.insert("type".into(), json!(kind));
        m.insert("id".into(), json!(id));
        m.insert("parentId".into(), json!(self.last));
        m.insert("timestamp".into(), json!(iso(self.ms)));
        for (k, v) in fields {
            m.insert(k.into(), v);
        }
        self.lines.push(Value::Object(m).to_string());
        self.last = Some(id);
    }

    fn user(&mut self, r: &mut Rng, text: &str) {
        self.ms += r.range(4_000, 90_000) as u64;
        self.ctx += text.len() as u64 / 4 + 4;
        let content = if r.chance(0.5) {
            json!(text)
        } else {
            json!([{"type": "text", "text": text}])
        };
        let msg = json!({"role": "user", "content": content, "timestamp": self.ms});
        self.entry(r, "message", vec![("message", msg)]);
    }

    fn call_id(&self, r: &mut Rng) -> String {
        format!("{}{}", self.model.call, r.alnum(22))
    }

    fn assistant(&mut self, r: &mut Rng, text: &str, calls: Vec<(String, &str, Value)>) {
        self.ms += r.range(1_500, 25_000) as u64;
        let mut content = Vec::new();
        let mut chars = text.len();
        if !text.is_empty() {
            content.push(json!({"type": "text", "text": text}));
        }
        let stop = if calls.is_empty() { "stop" } else { "toolUse" };
        for (id, name, args) in calls {
            chars += name.len() + args.to_string().len();
            content.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": args}));
        }
        let output = chars as u64 / 4 + r.range(4, 90) as u64;
        let input = r.range(2, 40) as u64;
        let (read, write) = (self.cached, self.ctx - self.cached);
        let [ri, ro, rr, rw] = self.model.rates;
        let c = |n: u64, rate: f64| n as f64 * rate / 1e6;
        let cost = json!({
            "input": c(input, ri), "output": c(output, ro), "cacheRead": c(read, rr),
            "cacheWrite": c(write, rw),
            "total": c(input, ri) + c(output, ro) + c(read, rr) + c(write, rw),
        });
        let usage = json!({
            "input": input, "output": output, "cacheRead": read, "cacheWrite": write,
            "totalTokens": input + output + read + write, "cost": cost,
        });
        let msg = json!({
            "role": "assistant", "content": content, "api": self.model.api,
            "provider": self.model.provider, "model": self.model.model, "usage": usage,
            "stopReason": stop, "timestamp": self.ms,
        });
        self.ctx += output;
        self.cached = self.ctx;
        self.entry(r, "message", vec![("message", msg)]);
    }

    fn result(&mut self, r: &mut Rng, id: &str, name: &str, text: &str) {
        self.ms += r.range(40, 6_000) as u64;
        self.ctx += text.len() as u64 / 4 + 4;
        let msg = json!({
            "role": "toolResult", "toolCallId": id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": false, "timestamp": self.ms,
        });
        self.entry(r, "message", vec![("message", msg)]);
    }

    /// One assistant step with one tool call, then its result.
    fn step(&mut self, r: &mut Rng, text: &str, tool: &str, args: Value, out: &str) {
        let id = self.call_id(r);
        self.assistant(r, text, vec![(id.clone(), tool, args)]);
        self.result(r, &id, tool, out);
    }
}

// ---------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------

/// One planned tool call: a format (none: a small call) and its size, and where its needle goes.
struct Call {
    fmt: Option<Fmt>,
    bytes: usize,
    pos: Option<Pos>,
}

const WRAP_UP: &[&str] = &[
    "I've been through all of it. There are a few separate leads here; tell me which ones to act on.",
    "That's the picture so far. Several things look relevant, and I'd rather not change code until you decide which to chase.",
    "Done investigating for now. I have a handful of candidates and no fix applied yet.",
    "I think I've seen enough to narrow it down. Nothing is modified beyond the small edit; what next?",
];

const READY: &[&str] = &[
    "Working tree checked. Ready to start on those.",
    "That's what is modified right now. Shall I go ahead with the list?",
    "Only the files above are touched. I'll take the steps in that order.",
];

fn build(r: &mut Rng, seed: u64, index: usize) -> (Generated, Vec<String>, String) {
    let p = &PROJECTS[(index + (seed % PROJECTS.len() as u64) as usize) % PROJECTS.len()];
    let model = r.pick(MODELS);
    let n_calls = r.range(8, 16);
    let k = r.range(3, 5);
    let n_small = r.range(2, 3);
    let mut fmts = p.fmts.to_vec();
    r.shuffle(&mut fmts);
    let mut calls = Vec::new();
    for &f in &fmts[..k] {
        let pos = *r.pick(&[Pos::Head, Pos::Middle, Pos::Tail]);
        let bytes = if r.chance(0.2) {
            r.range(500, 1_800)
        } else {
            r.log_uniform(2_000.0, 80_000.0)
        };
        calls.push(Call {
            fmt: Some(f),
            bytes,
            pos: Some(pos),
        });
    }
    for _ in 0..n_small {
        calls.push(Call {
            fmt: None,
            bytes: 0,
            pos: None,
        });
    }
    // The other calls take the remaining formats first (repeats only when they run out).
    let mut rest = fmts[k..].to_vec();
    while calls.len() < n_calls {
        if rest.is_empty() {
            rest = fmts.clone();
            r.shuffle(&mut rest);
        }
        let f = rest.remove(0);
        calls.push(Call {
            fmt: Some(f),
            bytes: r.log_uniform(2_000.0, 80_000.0),
            pos: None,
        });
    }
    r.shuffle(&mut calls);
    // The last output is big, so pi's cut lands after it and every output is in the region.
    if let Some(i) = calls.iter().rposition(|c| c.fmt.is_some()) {
        let mut c = calls.remove(i);
        c.bytes = c.bytes.max(r.range(14_000, 24_000));
        calls.push(c);
    }

    let start = 1_767_225_600_000 + r.below(300) as u64 * 86_400_000 + r.below(36_000_000) as u64;
    let mut w = Writer::new(r, model, p.cwd, start);
    let task = *r.pick(p.tasks);
    w.user(r, task);
    let mut needles: Vec<Needle> = Vec::new();
    let mut distractors = Vec::new();
    for c in &calls {
        let out = match c.fmt {
            Some(f) => make(f, r, p, c.bytes, c.pos),
            None => small(r, p),
        };
        w.step(r, &out.intro, out.tool, out.args, &out.text);
        needles.extend(out.needle);
        distractors.extend(out.decoys);
    }
    let wrap = *r.pick(WRAP_UP);
    w.assistant(r, wrap, Vec::new());

    // The kept tail: the next steps in words, and one small call.
    let mut asks: Vec<&str> = needles.iter().map(|n| n.ask.as_str()).collect();
    r.shuffle(&mut asks);
    let (last, first) = asks
        .split_last()
        .map_or((None, &[][..]), |(l, f)| (Some(*l), f));
    let ask = format!(
        "Thanks. Next: {}{}{}. Before that, show me what's modified in the working tree.",
        first.join(", then "),
        if first.is_empty() {
            ""
        } else {
            ", and finally "
        },
        last.unwrap_or("nothing")
    );
    w.user(r, &ask);
    let status: Vec<String> = (0..r.range(2, 5))
        .map(|_| format!("{} {}", r.pick(&[" M", " M", "??", "M "]), src_path(r, p)))
        .collect();
    w.step(
        r,
        "",
        "bash",
        json!({"command": "git status --short"}),
        &status.join("\n"),
    );
    let ready = *r.pick(READY);
    w.assistant(r, ready, Vec::new());
    let cut_line = w.lines.len();

    // The later part: each needle's key is quoted.
    w.user(r, "Go ahead.");
    let mut order: Vec<usize> = (0..needles.len()).collect();
    r.shuffle(&mut order);
    for &i in &order {
        let f = &needles[i].follow;
        w.step(r, &f.text, f.tool, f.args.clone(), &f.result);
    }
    w.assistant(
        r,
        "All of those are done; the changes are uncommitted for you to review.",
        Vec::new(),
    );

    let g = Generated {
        name: format!("fresh-s{seed}-{index:03}-{}", p.key),
        lines: w.lines,
        cut_line,
        needles: needles
            .iter()
            .map(|n| (n.kind.to_string(), n.line.clone(), n.label.to_string()))
            .collect(),
        distractors,
    };
    (g, needles.into_iter().map(|n| n.key).collect(), ask)
}

/// Every key is distinctive, a string of its needle line, used later, and in the prefix only
/// once; every needle line is in the prefix once; the user's request (`ask`) holds no
/// distinctive string of a needle line.
fn valid(g: &Generated, keys: &[String], ask: &str) -> bool {
    let prefix = g.lines[..g.cut_line].join("\n");
    let later = g.lines[g.cut_line..].join("\n");
    let asked: HashSet<&str> = distinctive_iter(ask).collect();
    g.needles.len() == keys.len()
        && g.needles
            .iter()
            .all(|(_, line, _)| distinctive_iter(line).all(|t| !asked.contains(t)))
        && g.needles.iter().zip(keys).all(|((_, line, _), key)| {
            let esc = serde_json::to_string(line).unwrap_or_default();
            is_distinctive(key)
                && distinctive_iter(line).any(|t| t == key)
                && prefix.matches(key.as_str()).count() == 1
                && later.contains(key.as_str())
                && prefix.matches(esc.trim_matches('"')).count() == 1
        })
}

/// One session, deterministic in `(seed, index)`.
pub fn generate_one(seed: u64, index: usize) -> Generated {
    let mut attempt: u64 = 0;
    loop {
        let s = seed.wrapping_mul(0x2545_F491_4F6C_DD1D)
            ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut r = Rng::new(s);
        let (g, keys, ask) = build(&mut r, seed, index);
        if valid(&g, &keys, &ask) || attempt >= 200 {
            return g;
        }
        attempt += 1;
    }
}

/// Write `n` sessions (full and prefix) under `work`; one case each.
pub fn specs(seed: u64, n: usize, work: &Path) -> Result<Vec<CaseSpec>> {
    harness::needle_specs(work, "fresh", n, |i| {
        let g = generate_one(seed, i);
        (g.name, g.lines, g.cut_line, g.needles, g.distractors)
    })
}

// ---------------------------------------------------------------------------------------------
// Output formats
// ---------------------------------------------------------------------------------------------

fn make(f: Fmt, r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    match f {
        Fmt::GitLog => git_log(r, p, bytes, pos),
        Fmt::Source => source(r, p, bytes, pos),
        Fmt::Grep => grep(r, p, bytes, pos),
        Fmt::Config => config(r, p, bytes, pos),
        Fmt::Env => env(r, p, bytes, pos),
        Fmt::Log => log(r, p, bytes, pos),
        Fmt::Deps => deps(r, p, bytes, pos),
        Fmt::Tests => tests(r, p, bytes, pos),
        Fmt::Diag => diag(r, p, bytes, pos),
        Fmt::Nm => nm(r, p, bytes, pos),
        Fmt::Profile => profile(r, p, bytes, pos),
        Fmt::Bench => bench(r, p, bytes, pos),
        Fmt::Trace => trace(r, p, bytes, pos),
        Fmt::Xml => xml(r, p, bytes, pos),
        Fmt::LockDiff => lock_diff(r, p, bytes, pos),
        Fmt::Cmake => cmake(r, p, bytes, pos),
        Fmt::Migrations => migrations(r, p, bytes, pos),
        Fmt::Routes => routes(r, p, bytes, pos),
        Fmt::Find => find(r, p, bytes, pos),
    }
}

/// A few lines of code (results of later reads, edit snippets).
fn snippet(r: &mut Rng, p: &Project, n: usize) -> String {
    (0..n)
        .map(|_| {
            let (a, b) = (func(r, p), func(r, p));
            match p.lang {
                Lang::Rust => format!("    let {} = self.{a}()?;", snake(r, p, 1)),
                Lang::Kotlin => format!("        val {} = {a}({b})", camel(r, p, 1)),
                Lang::Python => format!("    {} = {a}({b}, axis=0)", snake(r, p, 1)),
                Lang::Cpp => format!("    auto {} = {a}({b});", camel(r, p, 1)),
                Lang::Ruby => format!("    {} = {a}({b})", snake(r, p, 1)),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A small call without a needle: an edit, a write or a short command.
fn small(r: &mut Rng, p: &Project) -> Out {
    let path = src_path(r, p);
    let (intro, tool, args, text) = match r.below(5) {
        4 => {
            let dir = *r.pick(p.dirs);
            let mut names: Vec<String> = (0..r.range(3, 14))
                .map(|_| {
                    let f = src_path(r, p);
                    let base = f.rsplit('/').next().unwrap_or(&f).to_string();
                    if r.chance(0.2) {
                        format!("{}/", snake(r, p, 1))
                    } else {
                        base
                    }
                })
                .collect();
            names.sort();
            names.dedup();
            (
                format!("What else is in {dir}?"),
                "ls",
                json!({ "path": dir }),
                names.join("\n"),
            )
        }
        0 | 1 => {
            let (old, new) = (snippet(r, p, 1), snippet(r, p, 2));
            let text = format!(
                "Successfully replaced text in {path}. Changed {} characters to {} characters.",
                old.len(),
                new.len()
            );
            let args = json!({"path": path, "oldText": old, "newText": new});
            (
                format!("Trying a small change in {path}."),
                "edit",
                args,
                text,
            )
        }
        2 => {
            let n = r.range(4, 12);
            let content = snippet(r, p, n) + "\n";
            let text = format!("Successfully wrote {} bytes to {path}", content.len());
            let args = json!({"path": path, "content": content});
            (
                "I'll drop a scratch file to reproduce this in isolation.".to_string(),
                "write",
                args,
                text,
            )
        }
        _ => {
            let text = format!("{:>5} {path}", r.range(40, 900));
            let args = json!({"command": format!("wc -l {path}")});
            (format!("Checking how long {path} is."), "bash", args, text)
        }
    };
    Out {
        intro,
        tool,
        args,
        text,
        needle: None,
        decoys: Vec::new(),
    }
}

const MONTHS: &[&str] = &[
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `Wed Feb 11 09:14:03 2026 +0100`.
fn git_date(ms: u64) -> String {
    let days = (ms / 86_400_000) as i64;
    let (y, m, d) = civil(days);
    let wd = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    format!(
        "{wd} {} {d} {} {y} +0100",
        MONTHS[m as usize - 1],
        &iso(ms)[11..19]
    )
}

/// The last folder of a random source dir.
fn area(r: &mut Rng, p: &Project) -> String {
    let d = *r.pick(p.dirs);
    d.rsplit('/').next().unwrap_or(d).to_string()
}

/// A commit subject.
fn subject(r: &mut Rng, p: &Project) -> String {
    let a = area(r, p);
    let verb = *r.pick(&[
        "handle", "guard", "simplify", "inline", "split", "cache", "drop",
    ]);
    match r.below(8) {
        0 => format!("{a}: {verb} {} in {}", func(r, p), src_path(r, p)),
        1 => format!(
            "fix({a}): {verb} {} when {} is empty",
            func(r, p),
            snake(r, p, 1)
        ),
        2 => format!(
            "Merge pull request #{} from {}/{}",
            r.range(100, 2_400),
            r.pick(&["mara", "tomasz", "aiko", "jonah", "priya", "lucia", "ben"]),
            words(r, p, 2).join("-")
        ),
        3 => format!(
            "deps: bump {}-{} to {}",
            snake(r, p, 1),
            r.pick(&["core", "sys", "utils"]),
            version(r)
        ),
        4 => format!("{a}: rename {} to {}", func(r, p), func(r, p)),
        5 => format!(
            "test({a}): cover {} with {} fixtures",
            func(r, p),
            r.range(2, 40)
        ),
        6 => format!(
            "{a}: {verb} {} ({} ms -> {} ms)",
            words(r, p, 2).join(" "),
            r.range(50, 900),
            r.range(5, 60)
        ),
        _ => format!(
            "{a}: {verb} {} {}",
            words(r, p, 2).join(" "),
            words(r, p, 1)[0]
        ),
    }
}

fn git_log(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let stat = r.chance(0.5);
    let mut t = 1_772_000_000_000 + r.below(1_000_000_000) as u64;
    let mut rec = move |r: &mut Rng| -> Rec {
        t = t.saturating_sub(r.range(600_000, 200_000_000) as u64);
        if !stat {
            let h = r.hex(12);
            return Rec::one(format!("{h} {}", subject(r, p)), h);
        }
        let h = r.hex(40);
        let who = *r.pick(PEOPLE);
        let mail = who.split(' ').next().unwrap_or(who).to_lowercase();
        let mut v = vec![
            format!("commit {h}"),
            format!("Author: {who} <{mail}@{}.dev>", p.key),
            format!("Date:   {}", git_date(t)),
            String::new(),
            format!("    {}", subject(r, p)),
            String::new(),
        ];
        let (mut ins, mut del) = (0, 0);
        let nf = r.range(1, 4);
        for _ in 0..nf {
            let (a, d) = (r.range(0, 60), r.range(0, 30));
            ins += a;
            del += d;
            let bar = "+".repeat(a.min(30)) + &"-".repeat(d.min(20));
            v.push(format!(" {:<52} | {:>3} {bar}", src_path(r, p), a + d));
        }
        v.push(format!(
            " {nf} files changed, {ins} insertions(+), {del} deletions(-)"
        ));
        v.push(String::new());
        Rec {
            lines: v,
            at: 0,
            key: h,
        }
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "commit", |_, k, line| {
        let ask = format!(
            "look at exactly what the commit about {} changed",
            plain_words(line, 3)
        );
        let f = Follow {
            text: format!("Showing {k} in full."),
            tool: "bash",
            args: json!({"command": format!("git show --stat {k}")}),
            result: format!("commit {k}\n\n 2 files changed, 14 insertions(+), 3 deletions(-)"),
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let (cmd, head) = if stat {
        (format!("git log --stat -n {} -- .", body.len() + 3), vec![])
    } else {
        (
            format!("git log --oneline --abbrev=12 -n {}", body.len() + 3),
            vec![],
        )
    };
    let intro = format!(
        "Let me check the recent history around the {} code.",
        area(r, p)
    );
    finish(
        r,
        intro,
        "bash",
        json!({ "command": cmd }),
        head,
        body,
        vec![],
        plant,
        decoys,
    )
}

fn find(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let ext = match p.lang {
        Lang::Rust => "rs",
        Lang::Kotlin => "kt",
        Lang::Python => "py",
        Lang::Cpp => "cpp",
        Lang::Ruby => "rb",
    };
    let mut rec = |r: &mut Rng| {
        let mut path = src_path(r, p);
        if r.chance(0.3) {
            let d = *r.pick(p.dirs);
            path = format!(
                "{d}/{}/{}",
                snake(r, p, 1),
                path.rsplit('/').next().unwrap_or("")
            );
        }
        Rec::one(path.clone(), path)
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "path", |r, k, _| {
        let stem = k.rsplit('/').next().unwrap_or("");
        let stem = stem.split('.').next().unwrap_or("").replace('_', " ");
        let ask = format!(
            "open the {} file from the file listing",
            stem.to_lowercase()
        );
        let f = Follow {
            text: format!("Opening {k} as you asked."),
            tool: "read",
            args: json!({ "path": k }),
            result: snippet(r, p, 6),
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let intro = "Let me get an overview of the source files.".to_string();
    let args = json!({"pattern": format!("**/*.{ext}"), "path": "."});
    finish(r, intro, "find", args, vec![], body, vec![], plant, decoys)
}

/// `Frame::uploadQueueRetry` → `frame upload queue retry`.
fn spoken(key: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if c.is_ascii_alphabetic() {
            if c.is_ascii_uppercase() && prev_lower {
                out.push(' ');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = c.is_ascii_lowercase();
        } else {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            prev_lower = false;
        }
    }
    out.trim().to_string()
}

/// A three-word function name (signatures).
fn func3(r: &mut Rng, p: &Project) -> String {
    match p.lang {
        Lang::Kotlin | Lang::Cpp => camel(r, p, 3),
        _ => snake(r, p, 3),
    }
}

/// One body line of a function.
fn code_line(r: &mut Rng, p: &Project, ind: &str) -> String {
    let (a, b, v) = (func(r, p), snake(r, p, 1), snake(r, p, 2));
    let n = r.range(2, 4096);
    match (p.lang, r.below(4)) {
        (Lang::Rust, 0) => format!("{ind}let {v} = self.{b}.{a}({n})?;"),
        (Lang::Rust, 1) => {
            format!("{ind}if {v} > {n} {{ defmt::debug!(\"{b}: {{}} > {n}\", {v}); }}")
        }
        (Lang::Rust, 2) => format!(
            "{ind}regs::{}.write(|w| w.{b}().bits(0x{:02x}));",
            b.to_uppercase(),
            n % 256
        ),
        (Lang::Rust, _) => format!("{ind}{v}.{a}(&mut self.{b}).await;"),
        (Lang::Kotlin, 0) => format!("{ind}val {} = {b}Dao.{a}({n})", camel(r, p, 2)),
        (Lang::Kotlin, 1) => format!(
            "{ind}if ({} > {n}) Log.d(TAG, \"{b} over limit\")",
            camel(r, p, 1)
        ),
        (Lang::Kotlin, 2) => format!("{ind}{}.emit({}State.Loading)", camel(r, p, 2), tname(r, p)),
        (Lang::Kotlin, _) => format!("{ind}return@withContext {a}({})", camel(r, p, 1)),
        (Lang::Python, 0) => format!(
            "{ind}{v} = {b}.{a}(dim=\"{}\")",
            r.pick(&["depth", "lat", "lon", "time"])
        ),
        (Lang::Python, 1) => format!("{ind}if {v}.size > {n}:"),
        (Lang::Python, 2) => format!("{ind}log.debug(\"{b}: %d cells\", {v}.size)"),
        (Lang::Python, _) => format!("{ind}{v} = np.where(mask, {b}, np.nan)"),
        (Lang::Cpp, 0) => format!(
            "{ind}auto {} = {}.{a}({n}u);",
            camel(r, p, 2),
            camel(r, p, 1)
        ),
        (Lang::Cpp, 1) => format!(
            "{ind}if ({} > {n}) {{ EF_LOG_DEBUG(\"{b} over budget\"); }}",
            camel(r, p, 1)
        ),
        (Lang::Cpp, 2) => format!(
            "{ind}m_{}.push_back({{{n}, {}}});",
            camel(r, p, 2),
            camel(r, p, 1)
        ),
        (Lang::Cpp, _) => format!("{ind}EF_ASSERT({}.isValid());", camel(r, p, 2)),
        (Lang::Ruby, 0) => format!("{ind}{v} = {}.where({b}: {a}).limit({n})", tname(r, p)),
        (Lang::Ruby, 1) => format!("{ind}return if {v}.blank?"),
        (Lang::Ruby, 2) => format!("{ind}Rails.logger.info(\"{b}: #{{{v}.size}} rows\")"),
        (Lang::Ruby, _) => format!("{ind}{v}.update!({b}_at: Time.current)"),
    }
}

/// One function of a source file: a doc line, the signature (the key is its name), the body.
fn function(r: &mut Rng, p: &Project, class: &str) -> Rec {
    let name = func3(r, p);
    let (t1, t2, a) = (tname(r, p), tname(r, p), snake(r, p, 1));
    let doc = format!(
        "{} the {} of a {}.",
        r.pick(&["Returns", "Updates", "Computes", "Drops", "Loads"]),
        words(r, p, 2).join(" "),
        words(r, p, 1)[0]
    );
    let n = r.range(3, 12);
    let (mut v, key, ind, close) = match p.lang {
        Lang::Rust => (
            vec![
                format!("    /// {doc}"),
                format!("    pub fn {name}(&mut self, {a}: {t1}) -> Result<{t2}, Error> {{"),
            ],
            name,
            "        ",
            "    }",
        ),
        Lang::Kotlin => (
            vec![
                format!("    /** {doc} */"),
                format!(
                    "    suspend fun {name}({}: {t1}, limit: Int = {}): {t2} = withContext(io) {{",
                    camel(r, p, 1),
                    r.range(1, 500)
                ),
            ],
            name,
            "        ",
            "    }",
        ),
        Lang::Python => (
            vec![
                format!(
                    "def {name}({a}: xr.DataArray, {}: float = {}) -> xr.Dataset:",
                    snake(r, p, 1),
                    r.range(1, 90)
                ),
                format!("    \"\"\"{doc}\"\"\""),
            ],
            name,
            "    ",
            "",
        ),
        Lang::Cpp => (
            vec![
                format!("// {doc}"),
                format!(
                    "{t2} {class}::{name}(const {t1}& {}, uint32_t flags) {{",
                    camel(r, p, 1)
                ),
            ],
            format!("{class}::{name}"),
            "    ",
            "}",
        ),
        Lang::Ruby => (
            vec![
                format!("  # {doc}"),
                format!("  def {name}({a}, {}: {})", snake(r, p, 1), r.range(1, 120)),
            ],
            name,
            "    ",
            "  end",
        ),
    };
    let at = if p.lang == Lang::Python { 0 } else { 1 };
    for _ in 0..n {
        v.push(code_line(r, p, ind));
    }
    v.push(close.to_string());
    v.push(String::new());
    Rec { lines: v, at, key }
}

fn preamble(r: &mut Rng, p: &Project, class: &str) -> Vec<String> {
    let mut v: Vec<String> = match p.lang {
        Lang::Rust => vec![
            "use embassy_time::{Duration, Timer};".into(),
            "use crate::regs;".into(),
        ],
        Lang::Kotlin => vec![
            format!("package org.fieldnotes.{}", area(r, p)),
            String::new(),
            "import kotlinx.coroutines.withContext".into(),
        ],
        Lang::Python => vec![
            "from __future__ import annotations".into(),
            String::new(),
            "import numpy as np".into(),
            "import xarray as xr".into(),
        ],
        Lang::Cpp => vec![
            format!("#include \"{}\"", src_path(r, p).replace(".cpp", ".h")),
            "#include <vector>".into(),
        ],
        Lang::Ruby => vec![
            "# frozen_string_literal: true".into(),
            String::new(),
            format!("class {class} < ApplicationRecord"),
        ],
    };
    for _ in 0..r.range(2, 6) {
        let w = snake(r, p, 2);
        v.push(match p.lang {
            Lang::Rust => format!("use crate::{}::{w};", area(r, p)),
            Lang::Kotlin => format!("import org.fieldnotes.{}.{}", area(r, p), pascal(r, p, 2)),
            Lang::Python => format!("from oceanmix.{} import {w}", area(r, p)),
            Lang::Cpp => format!("#include \"{}/{w}.h\"", r.pick(p.dirs)),
            Lang::Ruby => format!("  include {}", pascal(r, p, 2)),
        });
    }
    v.push(String::new());
    v
}

fn source(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let path = src_path(r, p);
    let class = tname(r, p);
    let bytes = bytes.min(50_000);
    let mut rec = |r: &mut Rng| function(r, p, &class);
    let path2 = path.clone();
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "signature", |r, k, line| {
        let ask = format!(
            "change the {} function from the file we read so it takes the limit as a parameter",
            spoken(k)
        );
        let new = line.replacen('(', "(limit: u32, ", 1);
        let f = Follow {
            text: format!("Updating the signature of {k}."),
            tool: "edit",
            args: json!({"path": path2, "oldText": line, "newText": new}),
            result: format!(
                "Successfully replaced text in {path2}. Changed {} characters to {} characters.",
                line.len(),
                new.len() + r.below(2)
            ),
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let lines: usize = body.iter().map(Vec::len).sum::<usize>() + 8;
    let (args, head, foot) = if r.chance(0.5) {
        (json!({ "path": path }), preamble(r, p, &class), vec![])
    } else {
        let off = r.range(20, 400);
        let more = r.range(40, 900);
        let foot = vec![
            String::new(),
            format!(
                "... ({more} more lines not shown. Use offset={} to continue reading)",
                off + lines
            ),
        ];
        (
            json!({"path": path, "offset": off, "limit": lines}),
            vec![],
            foot,
        )
    };
    let intro = format!("Reading {path}.");
    finish(r, intro, "read", args, head, body, foot, plant, decoys)
}

fn grep(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let pat = snake(r, p, 1);
    let dir = *r.pick(p.dirs);
    let dir = dir.split('/').next().unwrap_or(dir);
    let mut rec = |r: &mut Rng| {
        let loc = format!("{}:{}", src_path(r, p), r.range(1, 1_400));
        let (a, v, n) = (func(r, p), snake(r, p, 2), r.range(1, 600));
        let code = match (p.lang, r.below(3)) {
            (Lang::Kotlin | Lang::Cpp, 0) => format!("{a}({pat}, {n});"),
            (Lang::Kotlin | Lang::Cpp, 1) => format!("if ({pat} > {n}) return {v};"),
            (Lang::Kotlin, _) => format!("private val {pat} = {a}({n})"),
            (Lang::Cpp, _) => format!("uint32_t {pat} = {a}({n}u);"),
            (_, 0) => format!("{v} = {a}({pat}, {n})"),
            (_, 1) => format!("if {pat} > {n}"),
            (Lang::Rust, _) => format!("let {pat} = self.{a}({n})?;"),
            (_, _) => format!("{pat} = {v}.{a}"),
        };
        Rec::one(format!("{loc}: {code}"), loc)
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "grep_hit", |r, k, _| {
        let (path, line) = k.rsplit_once(':').unwrap_or((k, "1"));
        let line: usize = line.parse().unwrap_or(1);
        let ask = format!(
            "read the code around the {} match from the search",
            spoken(
                path.rsplit('/')
                    .next()
                    .unwrap_or(path)
                    .split('.')
                    .next()
                    .unwrap_or("")
            )
        );
        let f = Follow {
            text: format!("Reading around {k}."),
            tool: "read",
            args: json!({"path": path, "offset": line.saturating_sub(10).max(1), "limit": 40}),
            result: snippet(r, p, 12),
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let intro = format!("Searching for {pat} usages.");
    finish(
        r,
        intro,
        "grep",
        json!({"pattern": pat, "path": dir}),
        vec![],
        body,
        vec![],
        plant,
        decoys,
    )
}

/// A config value of the project's flavour.
fn config_value(r: &mut Rng, p: &Project) -> String {
    match r.below(6) {
        0 => r.range(1, 5_000).to_string(),
        1 => format!("{}.{}", r.below(10), r.range(1, 99)),
        2 => format!("\"{}s\"", r.range(1, 600)),
        3 => format!("\"/var/lib/{}/{}\"", p.key, snake(r, p, 2)),
        4 => r.pick(&["true", "false"]).to_string(),
        _ => format!("0x{}", r.hex(4)),
    }
}

/// A config line (key: the setting's name) in the project's config syntax.
fn config_line(r: &mut Rng, p: &Project) -> Rec {
    let v = config_value(r, p);
    let (line, key) = match p.lang {
        Lang::Rust => {
            let k = snake(r, p, 3);
            (format!("{k} = {v}"), k)
        }
        Lang::Kotlin => {
            let k = format!("fieldnotes.{}.{}", area(r, p), snake(r, p, 2));
            (format!("{k}={}", v.trim_matches('"')), k)
        }
        Lang::Python | Lang::Ruby => {
            let k = snake(r, p, 3);
            (format!("  {k}: {v}"), k)
        }
        Lang::Cpp => {
            let k = pascal(r, p, 3);
            (format!("{k}={}", v.trim_matches('"')), k)
        }
    };
    Rec::one(line, key)
}

fn config(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let path = match p.lang {
        Lang::Rust => "config/buoy.toml",
        Lang::Kotlin => "gradle.properties",
        Lang::Python => "config/pipeline.yaml",
        Lang::Cpp => "config/engine.ini",
        Lang::Ruby => "config/settings.yml",
    };
    let bytes = bytes.min(30_000);
    let mut rec = |r: &mut Rng| config_line(r, p);
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "config_key", |r, k, line| {
        let ask = format!("double the {} setting in the config", spoken(k));
        let new = format!("{line} # raised");
        let f = Follow {
            text: format!("Raising {k}."),
            tool: "edit",
            args: json!({"path": path, "oldText": line, "newText": new}),
            result: format!(
                "Successfully replaced text in {path}. Changed {} characters to {} characters.",
                line.len(),
                new.len() + r.below(2)
            ),
        };
        (ask, f)
    });
    // Sections of 4–12 settings.
    let mut left = 0;
    let body = fill(r, bytes, |r| {
        let mut v = rec(r).lines;
        if left == 0 {
            left = r.range(4, 12);
            let s = snake(r, p, 1);
            let h = match p.lang {
                Lang::Rust => format!("\n[{s}]"),
                Lang::Cpp => format!("\n[{}]", cap(&s)),
                Lang::Python | Lang::Ruby => format!("{s}:"),
                Lang::Kotlin => format!("\n# --- {s} ---"),
            };
            v.insert(0, h);
        }
        left -= 1;
        v
    });
    let head = vec![format!(
        "# {} settings, generated {}",
        p.key,
        stamp(1_767_225_600_000 + r.below(20_000_000_000) as u64)
    )];
    let intro = format!("Checking the settings in {path}.");
    finish(
        r,
        intro,
        "read",
        json!({ "path": path }),
        head,
        body,
        vec![],
        plant,
        decoys,
    )
}

fn env(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let prefix = p.key.split('-').next().unwrap_or(p.key).to_uppercase();
    let mut rec = |r: &mut Rng| {
        let k = format!("{prefix}_{}", snake(r, p, 2).to_uppercase());
        let v = match r.below(4) {
            0 => format!(
                "https://{}.{}.internal:{}/v{}",
                snake(r, p, 1),
                p.key,
                r.range(1_000, 9_999),
                r.range(1, 3)
            ),
            1 => r.range(1, 10_000).to_string(),
            2 => format!("/opt/{}/{}", p.key, snake(r, p, 2)),
            _ => r.alnum(24),
        };
        Rec::one(format!("{k}={v}"), k)
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "env_var", |_, k, _| {
        let ask = format!("rerun with the {} variable overridden", spoken(k));
        let f = Follow {
            text: format!("Overriding {k} for this run."),
            tool: "bash",
            args: json!({"command": format!("{k}=0 make run 2>&1 | tail -n 20")}),
            result: "run finished: exit 0".into(),
        };
        (ask, f)
    });
    let mut body = fill(r, bytes.min(5_000), |r| rec(r).lines);
    for s in [
        "HOME=/home/dev",
        "LANG=en_US.UTF-8",
        "SHELL=/bin/zsh",
        "TERM=xterm-256color",
    ] {
        let i = r.below(body.len() + 1);
        body.insert(i, vec![s.to_string()]);
    }
    let intro = "Let me see which environment settings are in effect.".to_string();
    let cmd = format!("env | grep -E '^({prefix}|HOME|LANG|SHELL|TERM)' | sort");
    finish(
        r,
        intro,
        "bash",
        json!({ "command": cmd }),
        vec![],
        body,
        vec![],
        plant,
        decoys,
    )
}

/// A timestamped log line in the project's flavour; `extra` goes at its end.
fn log_line(r: &mut Rng, p: &Project, t: u64, extra: &str) -> String {
    let lvl = *r.pick(&["INFO", "INFO", "INFO", "DEBUG", "DEBUG", "WARN"]);
    let (m, a, n) = (area(r, p), snake(r, p, 2), r.range(1, 9_999));
    let msg = match r.below(4) {
        0 => format!("{a} done in {}.{} ms", r.range(0, 900), r.below(10)),
        1 => format!("{a} queued id={} depth={n}", r.hex(8)),
        2 => format!("{a}: {n} items from {}", src_path(r, p)),
        _ => format!(
            "{a} state={} seq={n}",
            r.pick(&["idle", "busy", "draining", "ready"])
        ),
    };
    let msg = if extra.is_empty() {
        msg
    } else {
        format!("{msg} {extra}")
    };
    match p.lang {
        Lang::Rust => format!(
            "{}.{:06} {lvl:<5} {m}: {msg}",
            t / 1000 % 100_000,
            (t % 1000) * 1000 + r.below(1000) as u64
        ),
        Lang::Kotlin => format!(
            "{} {}/{}({:>5}): {msg}",
            &iso(t)[5..23].replace('T', " "),
            &lvl[..1],
            pascal(r, p, 2),
            4_211 + r.below(90)
        ),
        Lang::Python => format!("{},{:03} {lvl} oceanmix.{m}: {msg}", stamp(t), t % 1000),
        Lang::Cpp => format!("[{}] [{lvl}] [{m}] {msg}", clock(t)),
        Lang::Ruby => format!(
            "{}, [{}.{:06} #{}] {lvl:>5} -- : [{}] {msg}",
            &lvl[..1],
            &iso(t)[..19],
            r.below(1_000_000),
            r.range(30, 90),
            r.hex(8)
        ),
    }
}

fn log(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let mut t = 1_767_225_600_000 + r.below(20_000_000_000) as u64;
    let eui = p.lang == Lang::Rust;
    let mut rec = move |r: &mut Rng| {
        t += r.range(1, 4_000) as u64;
        let (extra, key) = if eui {
            let k = format!("70B3D57E{}", r.hex(8).to_uppercase());
            (format!("gateway={k} rssi=-{}", r.range(60, 125)), k)
        } else {
            let k = format!(
                "https://{}.{}.example:{}/{}/{}",
                snake(r, p, 1).replace('_', "-"),
                p.key,
                r.range(1_000, 9_999),
                r.pick(&["v1", "v2", "api/v3"]),
                snake(r, p, 2).replace('_', "/")
            );
            (format!("upstream={k}"), k)
        };
        // Most lines carry no upstream.
        let with = r.chance(0.25);
        let line = log_line(r, p, t, if with { &extra } else { "" });
        Rec::one(line, if with { key } else { String::new() })
    };
    let kind = if eui { "gateway_eui" } else { "url" };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, kind, |_, k, _| {
        let (ask, f) = if eui {
            (
                "check the radio gateway from the capture in the gateway console".to_string(),
                Follow {
                    text: format!("Looking up gateway {k}."),
                    tool: "bash",
                    args: json!({"command": format!("ttn-lw-cli gateways get --gateway-eui {k}")}),
                    result: "{\"ids\": {\"gateway_id\": \"harbour-gw-2\"}, \"frequency_plan_id\": \"EU_863_870\"}".into(),
                },
            )
        } else {
            (
                "check whether that upstream from the log is reachable from here".to_string(),
                Follow {
                    text: format!("Probing {k}."),
                    tool: "bash",
                    args: json!({"command": format!("curl -sS -o /dev/null -w '%{{http_code}}\\n' {k}")}),
                    result: "503".into(),
                },
            )
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let (cmd, intro) = match p.lang {
        Lang::Rust => ("probe-rs attach --chip nRF52840_xxAA target/thumbv7em-none-eabihf/release/tidewatch-fw 2>&1 | tail -n 3000".to_string(), "Attaching to the board to capture the RTT log."),
        Lang::Kotlin => ("adb logcat -d -v time | grep -v chatty | tail -n 4000".to_string(), "Pulling the device log."),
        Lang::Python => (format!("tail -n 4000 logs/pipeline-{}.log", r.range(100, 999)), "Reading the last pipeline run's log."),
        _ => ("tail -n 5000 log/development.log".to_string(), "Reading the application log."),
    };
    finish(
        r,
        intro.into(),
        "bash",
        json!({ "command": cmd }),
        vec![],
        body,
        vec![],
        plant,
        decoys,
    )
}

fn deps(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    const CRATES: &[&str] = &[
        "embassy-executor",
        "embassy-time",
        "embassy-nrf",
        "embassy-sync",
        "embedded-hal",
        "embedded-hal-async",
        "heapless",
        "defmt",
        "defmt-rtt",
        "panic-probe",
        "cortex-m",
        "cortex-m-rt",
        "nrf-pac",
        "lora-phy",
        "static-cell",
        "critical-section",
        "fixed",
        "micromath",
        "postcard",
        "serde",
        "crc",
        "bitflags",
        "byteorder",
        "hash32",
        "portable-atomic",
        "futures-util",
        "volatile-register",
        "bare-metal",
        "rand_core",
        "embedded-storage",
        "sequential-storage",
        "nb",
        "cfg-if",
        "document-features",
    ];
    const LIBS: &[&str] = &[
        "androidx.work:work-runtime-ktx",
        "androidx.room:room-runtime",
        "androidx.room:room-ktx",
        "androidx.core:core-ktx",
        "androidx.lifecycle:lifecycle-viewmodel-ktx",
        "androidx.compose.ui:ui",
        "androidx.compose.material3:material3",
        "com.squareup.okhttp3:okhttp",
        "com.squareup.retrofit2:retrofit",
        "org.jetbrains.kotlinx:kotlinx-coroutines-android",
        "com.google.dagger:hilt-android",
        "io.coil-kt:coil-compose",
        "org.osmdroid:osmdroid-android",
        "com.jakewharton.timber:timber",
        "androidx.datastore:datastore-preferences",
        "com.google.android.gms:play-services-location",
        "org.jetbrains.kotlin:kotlin-stdlib",
        "androidx.exifinterface:exifinterface",
    ];
    let rust = p.lang == Lang::Rust;
    let ver = |r: &mut Rng| format!("{}.{}.{}", r.below(3), r.range(1, 40), r.range(0, 30));
    let mut rec = |r: &mut Rng| {
        let depth = r.range(1, 5);
        if rust {
            let v = format!("v{}", ver(r));
            let pre = "│   ".repeat(depth - 1) + *r.pick(&["├── ", "├── ", "└── "]);
            let name = *r.pick(CRATES);
            let tail = if r.chance(0.2) { " (*)" } else { "" };
            Rec::one(format!("{pre}{name} {v}{tail}"), v)
        } else {
            let lib = *r.pick(LIBS);
            let pre = "|    ".repeat(depth - 1) + *r.pick(&["+--- ", "+--- ", "\\--- "]);
            let k = format!("{lib}:{}", ver(r));
            let tail = if r.chance(0.25) {
                format!(" -> {} (*)", ver(r))
            } else {
                String::new()
            };
            Rec::one(format!("{pre}{k}{tail}"), k)
        }
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "dep_version", |_, k, line| {
        let name = line.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
        let name = name
            .split([' ', ':'])
            .nth(if rust { 0 } else { 1 })
            .unwrap_or("")
            .to_string();
        let ask = format!(
            "find out why the {} version in the dependency tree is so old",
            spoken(&name)
        );
        let cmd = if rust {
            format!(
                "cargo tree -i {name}@{} -e normal",
                k.trim_start_matches('v')
            )
        } else {
            format!("./gradlew :app:dependencyInsight --dependency {k}")
        };
        let f = Follow {
            text: format!("Checking who pulls in {k}."),
            tool: "bash",
            args: json!({ "command": cmd }),
            result: format!("{name} is required by 2 crates"),
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let (cmd, head, intro) = if rust {
        (
            "cargo tree -e normal --target thumbv7em-none-eabihf",
            vec![format!(
                "tidewatch-fw v0.{}.{} ({})",
                r.range(5, 12),
                r.below(10),
                p.cwd
            )],
            "Let me look at the dependency tree.",
        )
    } else {
        ("./gradlew :app:dependencies --configuration releaseRuntimeClasspath", vec!["".into(), "> Task :app:dependencies".into(), "".into(), "releaseRuntimeClasspath - Runtime classpath of compilation 'release' (target  (androidJvm)).".into()], "Listing the app's runtime dependencies.")
    };
    finish(
        r,
        intro.into(),
        "bash",
        json!({ "command": cmd }),
        head,
        body,
        vec![],
        plant,
        decoys,
    )
}

fn tests(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let mut i = 0;
    let total = (bytes / 70).max(8);
    // `failed` records are the needle's shape; the others pass (a few are skipped).
    let mut rec = |r: &mut Rng, failed: bool| -> Rec {
        i += 1;
        let ms = r.range(1, 900);
        let (ok, bad) = match p.lang {
            Lang::Python => ("PASSED", "FAILED"),
            Lang::Cpp => ("  Passed", "***Failed"),
            _ => ("PASSED", "FAILED"),
        };
        let st = if failed {
            bad
        } else if r.chance(0.03) {
            "SKIPPED"
        } else {
            ok
        };
        match p.lang {
            Lang::Kotlin => {
                let (m, c) = (camel(r, p, 3), pascal(r, p, 2));
                let mut x = Rec::one(format!("{c}Test > {m}() {st}"), m);
                if failed {
                    x.lines.push(format!(
                        "    org.junit.ComparisonFailure at {c}Test.kt:{}",
                        r.range(20, 400)
                    ));
                }
                x
            }
            Lang::Python => {
                let k = format!("tests/test_{}.py::test_{}", snake(r, p, 1), snake(r, p, 3));
                let param = if r.chance(0.3) {
                    format!("[{}-{}]", snake(r, p, 1), r.range(1, 64))
                } else {
                    String::new()
                };
                Rec::one(
                    format!("{k}{param} {st} [{:>3}%]", (i * 100 / total).min(99)),
                    k,
                )
            }
            Lang::Cpp => {
                let k = format!("{}.{}", area(r, p), snake(r, p, 3));
                let dots = ".".repeat(56usize.saturating_sub(k.len()).max(3));
                Rec::one(
                    format!(
                        "{i:>4}/{total} Test #{i:>4}: {k} {dots}{st}  {}.{:02} sec",
                        ms / 100,
                        ms % 100
                    ),
                    k,
                )
            }
            _ => {
                // rspec documentation format: the key is the example's location.
                let k = format!(
                    "./spec/{}/{}_spec.rb:{}",
                    r.pick(&["models", "services", "jobs", "requests"]),
                    snake(r, p, 2),
                    r.range(5, 400)
                );
                let d = words(r, p, 3).join(" ");
                let line = if failed {
                    format!("rspec {k} # {} {d}", tname(r, p))
                } else {
                    format!("    {d} ({}.{:03}s)", ms / 1000, ms % 1000)
                };
                Rec::one(line, k.trim_start_matches('.').to_string())
            }
        }
    };
    let ruby = p.lang == Lang::Ruby;
    let (plant, decoys) = plant_and_decoys(
        r,
        pos,
        |r| rec(r, true),
        "failing_test",
        |_, k, _| {
            let cmd = match p.lang {
                Lang::Kotlin => format!("./gradlew :app:testDebugUnitTest --tests '*.{k}' -i"),
                Lang::Python => format!("pytest -x -vv '{k}'"),
                Lang::Cpp => format!("ctest --test-dir build -R '^{k}$' --output-on-failure"),
                _ => format!("bundle exec rspec .{k} --format documentation"),
            };
            let f = Follow {
                text: format!("Rerunning {k} on its own."),
                tool: "bash",
                args: json!({ "command": cmd }),
                result: match p.lang {
                    Lang::Kotlin => "BUILD SUCCESSFUL in 21s",
                    Lang::Python => "1 passed in 2.31s",
                    Lang::Cpp => "100% tests passed, 0 tests failed out of 1",
                    _ => "1 example, 0 failures",
                }
                .into(),
            };
            (
                "rerun the one failing test on its own with verbose output".to_string(),
                f,
            )
        },
    );
    // Decoys pass: only the needle fails (rspec lists one failed example).
    let decoys: Vec<Rec> = decoys
        .into_iter()
        .map(|mut d| {
            let l = d.lines[0]
                .replace("***Failed", "  Passed")
                .replace("FAILED", "PASSED");
            d.lines = vec![l];
            d
        })
        .collect();
    let body = fill(r, bytes, |r| rec(r, false).lines);
    let secs = r.range(4, 600);
    // Only the needle fails: a run without one passes.
    let failed = plant.is_some();
    let (cmd, head, foot, intro) = match p.lang {
        Lang::Kotlin => (
            "./gradlew :app:testDebugUnitTest",
            vec!["> Task :app:testDebugUnitTest".to_string(), String::new()],
            if failed {
                vec![
                    String::new(),
                    format!("@TOTAL@ tests completed, 1 failed, {} skipped", r.below(4)),
                    String::new(),
                    "> Task :app:testDebugUnitTest FAILED".into(),
                ]
            } else {
                vec![
                    String::new(),
                    format!("BUILD SUCCESSFUL in {}m {}s", secs / 60, secs % 60),
                ]
            },
            "Running the unit tests.",
        ),
        Lang::Python => (
            "pytest -v --tb=no -p no:cacheprovider tests/",
            vec![
                "============================= test session starts =============================="
                    .to_string(),
                format!(
                    "platform linux -- Python 3.12.{}, pytest-8.3.{}, pluggy-1.5.0",
                    r.below(8),
                    r.below(5)
                ),
                format!("rootdir: {}", p.cwd),
                "collected @TOTAL@ items".to_string(),
                String::new(),
            ],
            vec![
                String::new(),
                format!(
                    "================== {}passed in {secs}.{}s ==================",
                    if failed {
                        "1 failed, @PASSED@ "
                    } else {
                        "@TOTAL@ "
                    },
                    r.below(100)
                ),
            ],
            "Running the test suite.",
        ),
        Lang::Cpp => (
            "ctest --test-dir build -j16",
            vec![format!("Test project {}/build", p.cwd)],
            vec![
                String::new(),
                if failed {
                    "99% tests passed, 1 tests failed out of @TOTAL@"
                } else {
                    "100% tests passed, 0 tests failed out of @TOTAL@"
                }
                .to_string(),
                String::new(),
                format!("Total Test time (real) = {secs}.{:02} sec", r.below(100)),
            ],
            "Running the engine tests.",
        ),
        _ => (
            "bundle exec rspec --format documentation",
            vec![
                format!("Randomized with seed {}", r.range(1_000, 65_000)),
                String::new(),
            ],
            vec![
                String::new(),
                format!(
                    "Finished in {} minutes {} seconds (files took {}.{} seconds to load)",
                    secs / 60,
                    secs % 60,
                    r.range(2, 9),
                    r.below(100)
                ),
                format!(
                    "@TOTAL@ examples, {} failure{}, {} pending",
                    usize::from(failed),
                    if failed { "" } else { "s" },
                    decoys.len()
                ),
            ],
            "Running the specs.",
        ),
    };
    if ruby {
        // rspec: the decoys are pending examples' locations, and the failed example is listed
        // after the summary, so the needle is at the very end.
        let mut foot = foot;
        let mut pending = vec![
            String::new(),
            "Pending: (Failures listed here are expected and do not affect your suite's status)"
                .to_string(),
        ];
        for (k, d) in decoys.iter().enumerate() {
            let loc = d.lines[0].split(' ').nth(1).unwrap_or("");
            pending.push(String::new());
            pending.push(format!(
                "  {}) {} {}",
                k + 1,
                tname(r, p),
                words(r, p, 3).join(" ")
            ));
            pending.push("     # Temporarily skipped with xit".into());
            pending.push(format!("     # {loc}"));
        }
        let dl: Vec<String> = pending
            .iter()
            .filter(|l| l.contains("# ./spec"))
            .cloned()
            .collect();
        foot.splice(0..0, pending);
        if failed {
            foot.extend([String::new(), "Failed examples:".into(), String::new()]);
        }
        let mut out = finish(
            r,
            intro.into(),
            "bash",
            json!({ "command": cmd }),
            head,
            body,
            vec![],
            None,
            vec![],
        );
        out.decoys = dl;
        if let Some((pl, _)) = plant {
            let line = pl.rec.lines[0].clone();
            foot.push(line.clone());
            out.needle = Some(Needle {
                kind: pl.kind,
                line,
                key: pl.rec.key,
                label: "tail",
                ask: pl.ask,
                follow: pl.follow,
            });
        }
        out.text = format!("{}\n{}", out.text, foot.join("\n"));
        renumber(&mut out, p.lang);
        return out;
    }
    let mut out = finish(
        r,
        intro.into(),
        "bash",
        json!({ "command": cmd }),
        head,
        body,
        foot,
        plant,
        decoys,
    );
    renumber(&mut out, p.lang);
    out
}

/// Rewrite every line of an output (numbering that depends on the final order), keeping the
/// needle and decoy lines in step.
fn rewrite(out: &mut Out, mut f: impl FnMut(&str) -> String) {
    let mut lines = Vec::new();
    for l in out.text.lines() {
        let new = f(l);
        if let Some(n) = out.needle.as_mut().filter(|n| n.line == l) {
            n.line = new.clone();
        }
        for d in out.decoys.iter_mut().filter(|d| *d == l) {
            *d = new.clone();
        }
        lines.push(new);
    }
    out.text = lines.join("\n");
}

/// Number test lines in order of appearance and fill in the totals (`@TOTAL@`, `@PASSED@`):
/// the needle and decoys were made before their place was known.
fn renumber(out: &mut Out, lang: Lang) {
    let is_test = |l: &str| match lang {
        Lang::Cpp => l.contains(" Test #"),
        Lang::Python => l.ends_with("%]"),
        Lang::Kotlin => l.contains("Test > "),
        _ => l.ends_with("s)"),
    };
    let total = out.text.lines().filter(|l| is_test(l)).count();
    let mut i = 0;
    rewrite(out, |l| {
        let l = l
            .replace("@TOTAL@", &total.to_string())
            .replace("@PASSED@", &total.saturating_sub(1).to_string());
        if !is_test(&l) {
            return l;
        }
        i += 1;
        match lang {
            Lang::Cpp => {
                let rest = l.split_once(": ").map_or("", |x| x.1);
                format!("{i:>4}/{total} Test #{i:>4}: {rest}")
            }
            Lang::Python => {
                let rest = l.rsplit_once(" [").map_or(l.as_str(), |x| x.0);
                format!("{rest} [{:>3}%]", (i * 100 / total.max(1)).min(100))
            }
            _ => l,
        }
    });
}

fn diag(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    const LINTS: &[(&str, &str)] = &[
        ("unused variable: `{v}`", "#[warn(unused_variables)]"),
        (
            "unused import: `crate::{a}::{v}`",
            "#[warn(unused_imports)]",
        ),
        (
            "variable does not need to be mutable",
            "#[warn(unused_mut)]",
        ),
        ("field `{v}` is never read", "#[warn(dead_code)]"),
        (
            "casting `u32` to `u16` may truncate the value",
            "#[warn(clippy::cast_possible_truncation)]",
        ),
        (
            "this `if` has identical blocks",
            "#[warn(clippy::if_same_then_else)]",
        ),
    ];
    let mut rec = |r: &mut Rng| {
        let (msg, lint) = *r.pick(LINTS);
        let (v, a) = (snake(r, p, 2), area(r, p));
        let (line, col) = (r.range(10, 900), r.range(5, 40));
        let loc = format!("{}:{line}:{col}", src_path(r, p));
        let code = code_line(r, p, "        ");
        let w = line.to_string().len();
        let pad = " ".repeat(w);
        Rec {
            lines: vec![
                format!("warning: {}", msg.replace("{v}", &v).replace("{a}", &a)),
                format!("{pad}--> {loc}"),
                format!("{pad} |"),
                format!("{line} |{code}"),
                format!("{pad} |{}{}", " ".repeat(col), "^".repeat(r.range(3, 14))),
                format!("{pad} |"),
                format!("{pad} = note: `{lint}` on by default"),
                String::new(),
            ],
            at: 1,
            key: loc,
        }
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "diag_location", |_, k, _| {
        let path = k.split(':').next().unwrap_or(k);
        let line: usize = k
            .split(':')
            .nth(1)
            .and_then(|x| x.parse().ok())
            .unwrap_or(1);
        let ask = format!(
            "fix the warning in the {} module that looks related",
            spoken(
                path.rsplit('/')
                    .next()
                    .unwrap_or(path)
                    .trim_end_matches(".rs")
            )
        );
        let f = Follow {
            text: format!("Looking at the warning at {k}."),
            tool: "read",
            args: json!({"path": path, "offset": line.saturating_sub(8).max(1), "limit": 20}),
            result: "    let mut frame = Frame::new();\n    frame.push(sample)?;".into(),
        };
        (ask, f)
    });
    let mut head: Vec<String> = Vec::new();
    for _ in 0..r.range(3, 12) {
        let mut v = format!("{}.{}.{}", r.below(2), r.range(1, 30), r.below(20));
        if r.chance(0.3) {
            v = format!(
                "{v} (https://github.com/embassy-rs/embassy?rev={}#{})",
                r.hex(8),
                r.hex(8)
            );
        }
        let c = *r.pick(&[
            "embassy-nrf",
            "embassy-time",
            "lora-phy",
            "heapless",
            "defmt",
            "postcard",
        ]);
        head.push(format!("   Compiling {c} v{v}"));
    }
    head.push(format!(
        "   Compiling tidewatch-fw v0.{}.{} ({})",
        r.range(5, 12),
        r.below(10),
        p.cwd
    ));
    let body = fill(r, bytes, |r| rec(r).lines);
    let n = body.len() + 1;
    let foot = vec![
        format!(
            "warning: `tidewatch-fw` (bin \"tidewatch-fw\") generated {n} warnings (run `cargo fix --bin \"tidewatch-fw\"` to apply {} suggestions)",
            n / 3
        ),
        format!(
            "    Finished `release` profile [optimized + debuginfo] target(s) in {}.{:02}s",
            r.range(8, 90),
            r.below(100)
        ),
    ];
    let cmd = "cargo clippy --release --target thumbv7em-none-eabihf 2>&1";
    finish(
        r,
        "Building with clippy to see the warnings.".into(),
        "bash",
        json!({ "command": cmd }),
        head,
        body,
        foot,
        plant,
        decoys,
    )
}

fn nm(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let mut rec = |r: &mut Rng| {
        let ram = r.chance(0.2);
        let addr = if ram {
            format!("2000{}", r.hex(4))
        } else {
            format!("000{}", r.hex(5))
        };
        let size = format!("{:08x}", r.range(2, 6_000));
        let t = if ram {
            *r.pick(&["B", "D", "b", "d"])
        } else {
            *r.pick(&["T", "T", "t", "R", "r"])
        };
        let sym = format!(
            "tidewatch_fw::{}::{}::{}::{}",
            area(r, p),
            snake(r, p, 1),
            tname(r, p),
            func(r, p)
        );
        let sym = if r.chance(0.3) {
            format!("<{sym} as core::future::Future>::poll")
        } else {
            sym
        };
        Rec::one(format!("{addr} {size} {t} {sym}"), addr)
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "symbol_address", |_, k, line| {
        let f = line.rsplit("::").next().unwrap_or("");
        let ask = format!(
            "set a breakpoint on the {} symbol from the symbol table and run to it",
            spoken(f)
        );
        let f = Follow {
            text: format!("Breaking at 0x{k}."),
            tool: "bash",
            args: json!({"command": format!("arm-none-eabi-gdb -batch -ex 'target remote :1337' -ex 'break *0x{k}' -ex continue target/thumbv7em-none-eabihf/release/tidewatch-fw")}),
            result: format!("Breakpoint 1, 0x{k} in ?? ()"),
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let cmd = "arm-none-eabi-nm -S -C --size-sort target/thumbv7em-none-eabihf/release/tidewatch-fw | tail -n 3000";
    finish(
        r,
        "Checking which symbols take the most flash.".into(),
        "bash",
        json!({ "command": cmd }),
        vec![],
        body,
        vec![],
        plant,
        decoys,
    )
}

fn profile(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let py = p.lang == Lang::Python;
    let mut rec = |r: &mut Rng| {
        if py {
            let loc = format!("{}:{}", src_path(r, p), r.range(5, 900));
            let (calls, tot, cum) = (r.range(1, 200_000), r.unit() * 40.0, r.unit() * 400.0);
            let line = format!(
                "{:>9} {tot:>8.3} {:>8.3} {cum:>8.3} {:>8.3} {loc}({})",
                calls,
                tot / calls as f64,
                cum / calls as f64,
                snake(r, p, 2)
            );
            Rec::one(line, loc)
        } else {
            let sym = format!("ef::{}::{}::{}", area(r, p), tname(r, p), camel(r, p, 2));
            let (a, b) = (r.unit() * 9.0, r.unit() * 3.0);
            let dso = *r.pick(&[
                "libef_render.so",
                "libef_core.so",
                "emberforge",
                "libef_physics.so",
            ]);
            Rec::one(
                format!(
                    "    {:>6.2}%  {b:>5.2}%  ef-worker-{}  {dso:<18} [.] {sym}",
                    a + b,
                    r.below(16)
                ),
                sym,
            )
        }
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "profile_row", |_, k, _| {
        let (ask, f) = if py {
            let (path, line) = k.split_once(':').unwrap_or((k, "1"));
            let line: usize = line.parse().unwrap_or(1);
            let f = Follow {
                text: format!("Opening the hot spot at {k}."),
                tool: "read",
                args: json!({"path": path, "offset": line.saturating_sub(5).max(1), "limit": 60}),
                result: "    for tile in tiles:\n        out[tile.index] = weights @ tile.values"
                    .into(),
            };
            (
                format!(
                    "look into the {} function from the profile",
                    spoken(
                        path.rsplit('/')
                            .next()
                            .unwrap_or(path)
                            .trim_end_matches(".py")
                    )
                ),
                f,
            )
        } else {
            let f = Follow {
                text: format!("Annotating {k}."),
                tool: "bash",
                args: json!({"command": format!("perf annotate --stdio -s '{k}' | head -n 80")}),
                result: " 31.20 │       vmovups (%rax,%rcx,4),%ymm0".into(),
            };
            let last = k.rsplit("::").next().unwrap_or(k);
            (
                format!(
                    "annotate the {} function from the perf profile",
                    spoken(last)
                ),
                f,
            )
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let secs = r.range(200, 9_000);
    let (cmd, head, intro) = if py {
        (
            "python -m cProfile -s cumtime -m oceanmix.workflows.monthly --year 2023 2>&1 | head -n 1500".to_string(),
            vec![
                format!("         {} function calls ({} primitive calls) in {secs}.{:03} seconds", r.range(1_000_000, 90_000_000), r.range(900_000, 80_000_000), r.below(1000)),
                String::new(),
                "   Ordered by: cumulative time".into(),
                String::new(),
                "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)".into(),
            ],
            "Profiling one month of the pipeline.",
        )
    } else {
        (
            format!(
                "perf report --stdio --no-children -i perf-{}.data | head -n 2000",
                r.range(100, 999)
            ),
            vec![
                format!("# Samples: {}K of event 'cycles:P'", r.range(80, 900)),
                format!(
                    "# Event count (approx.): {}",
                    r.range(1_000_000_000, 2_000_000_000)
                ),
                "#".into(),
                "# Overhead  Self    Command       Shared Object      Symbol".into(),
                "# ........  ......  ............  .................  ......".into(),
                "#".into(),
            ],
            "Looking at the CPU profile of the bad frames.",
        )
    };
    finish(
        r,
        intro.into(),
        "bash",
        json!({ "command": cmd }),
        head,
        body,
        vec![],
        plant,
        decoys,
    )
}

fn bench(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let mut rec = |r: &mut Rng| {
        let name = format!("BM_{}/{}", pascal(r, p, 2), 1usize << r.range(4, 16));
        let name = if r.chance(0.4) {
            format!("{name}/real_time")
        } else {
            name
        };
        let t = r.range(40, 9_000_000);
        let line = format!(
            "{name:<48} {t:>12} ns {:>12} ns {:>10}",
            t - t / r.range(8, 40),
            r.range(10, 900_000)
        );
        Rec::one(line, name)
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "bench_row", |_, k, _| {
        let f = Follow {
            text: format!("Repeating {k} to see if the number is stable."),
            tool: "bash",
            args: json!({"command": format!("./build/bench/ef_bench --benchmark_filter='^{k}$' --benchmark_repetitions=10")}),
            result: "mean 183211 ns, stddev 2.1%".into(),
        };
        (
            "repeat the benchmark that regressed with more repetitions".to_string(),
            f,
        )
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let head = vec![
        format!(
            "{}",
            stamp(1_767_225_600_000 + r.below(20_000_000_000) as u64)
        ),
        "Running ./build/bench/ef_bench".into(),
        "Run on (16 X 4200 MHz CPU s)".into(),
        "CPU Caches:".into(),
        "  L1 Data 48 KiB (x8)".into(),
        "  L2 Unified 1280 KiB (x8)".into(),
        "  L3 Unified 24576 KiB (x1)".into(),
        format!(
            "Load Average: {}.{:02}, {}.{:02}, {}.{:02}",
            r.below(9),
            r.below(100),
            r.below(9),
            r.below(100),
            r.below(9),
            r.below(100)
        ),
        "-".repeat(90),
        format!(
            "{:<48} {:>15} {:>15} {:>10}",
            "Benchmark", "Time", "CPU", "Iterations"
        ),
        "-".repeat(90),
    ];
    finish(
        r,
        "Running the micro-benchmarks.".into(),
        "bash",
        json!({"command": "./build/bench/ef_bench --benchmark_min_time=0.2s"}),
        head,
        body,
        vec![],
        plant,
        decoys,
    )
}

/// A stack trace (several, for big outputs); the key of a frame is its source location.
fn trace(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let mut depth = 0;
    let mut rec = |r: &mut Rng| -> Rec {
        depth += 1;
        let n = r.range(5, 900);
        match p.lang {
            Lang::Kotlin => {
                let c = pascal(r, p, 2);
                let file = format!("{c}.kt:{n}");
                Rec::one(
                    format!(
                        "\tat org.fieldnotes.{}.{c}.{}({file})",
                        area(r, p),
                        camel(r, p, 2)
                    ),
                    file,
                )
            }
            Lang::Cpp => {
                let loc = format!("{}:{n}", src_path(r, p));
                let line = format!(
                    "#{:<2} 0x00005555{} in ef::{}::{}::{} (this=0x7fff{}, {}={}) at {loc}",
                    depth % 40,
                    r.hex(8),
                    area(r, p),
                    tname(r, p),
                    camel(r, p, 2),
                    r.hex(8),
                    camel(r, p, 1),
                    r.range(0, 4096)
                );
                Rec::one(line, loc)
            }
            _ => {
                let loc = format!("{}:{n}", src_path(r, p));
                // (`path:88:in` is one string to the harness's tokenizer.)
                Rec::one(
                    format!("{loc}:in `{}'", snake(r, p, 2)),
                    format!("{loc}:in"),
                )
            }
        }
    };
    // Library frames and headers between the project's frames.
    let lib = |r: &mut Rng, lang: Lang| -> Vec<String> {
        let n = r.range(5, 2_000);
        match (lang, r.below(6)) {
            (Lang::Kotlin, 0) => vec![
                String::new(),
                "--------- beginning of crash".into(),
                format!(
                    "E/AndroidRuntime({}): FATAL EXCEPTION: DefaultDispatcher-worker-{}",
                    r.range(4000, 9000),
                    r.below(8)
                ),
                "java.lang.IllegalStateException: Cannot access database on the main thread".into(),
            ],
            (Lang::Kotlin, _) => {
                let (c, m, f) = *r.pick(&[
                    ("kotlinx.coroutines.DispatchedTask", "run", "DispatchedTask"),
                    (
                        "androidx.work.impl.WorkerWrapper",
                        "runWorker",
                        "WorkerWrapper",
                    ),
                    (
                        "androidx.room.RoomDatabase",
                        "assertNotMainThread",
                        "RoomDatabase",
                    ),
                    (
                        "kotlin.coroutines.jvm.internal.BaseContinuationImpl",
                        "resumeWith",
                        "ContinuationImpl",
                    ),
                    ("android.os.Handler", "dispatchMessage", "Handler"),
                    ("android.os.Looper", "loop", "Looper"),
                ]);
                vec![format!("\tat {c}.{m}({f}.kt:{n})")]
            }
            (Lang::Cpp, 0) => vec![
                String::new(),
                format!(
                    "Thread {} (Thread 0x7fff{} (LWP {}) \"ef-worker-{}\"):",
                    r.range(2, 40),
                    r.hex(8),
                    r.range(40_000, 60_000),
                    r.below(16)
                ),
            ],
            (Lang::Cpp, _) => vec![format!(
                "#{:<2} 0x00007fff{} in {} () from /lib/x86_64-linux-gnu/{}",
                r.below(40),
                r.hex(8),
                r.pick(&[
                    "__pthread_clockjoin_ex",
                    "syscall",
                    "__futex_abstimed_wait_common",
                    "start_thread",
                    "clone3"
                ]),
                r.pick(&["libc.so.6", "libstdc++.so.6"])
            )],
            (_, 0) => vec![
                String::new(),
                format!(
                    "ActiveRecord::RecordNotUnique (PG::UniqueViolation: ERROR:  duplicate key value violates unique constraint \"index_bookings_on_room_id_and_starts_at\")"
                ),
                "Backtrace:".into(),
            ],
            (_, _) => vec![format!(
                "/usr/local/bundle/gems/{}/lib/{}.rb:{n}:in `{}'",
                r.pick(&[
                    "activerecord-7.1.3.2",
                    "activesupport-7.1.3.2",
                    "sidekiq-7.2.2",
                    "rack-3.0.9.1",
                    "actionpack-7.1.3.2"
                ]),
                r.pick(&[
                    "active_record/relation",
                    "active_support/callbacks",
                    "sidekiq/processor",
                    "rack/builder",
                    "action_controller/metal"
                ]),
                r.pick(&[
                    "exec_queries",
                    "run_callbacks",
                    "process",
                    "call",
                    "dispatch"
                ])
            )],
        }
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "stack_frame", |_, k, _| {
        let f = Follow {
            text: format!("Going to the frame at {k}."),
            tool: "grep",
            args: json!({"pattern": k.rsplit('/').next().unwrap_or(k), "path": "."}),
            result: format!("{k}: (source line)"),
        };
        (
            "open the code of the frame in our own code that the crash went through".to_string(),
            f,
        )
    });
    let lang = p.lang;
    let body = fill(r, bytes, |r| {
        if r.chance(0.3) {
            rec(r).lines
        } else {
            lib(r, lang)
        }
    });
    let head = match lang {
        Lang::Cpp => vec![
            format!("[New LWP {}]", r.range(40_000, 60_000)),
            "[Thread debugging using libthread_db enabled]".into(),
            "Core was generated by `build/bin/ef_tests --gtest_filter=Streaming*'.".into(),
            "Program terminated with signal SIGSEGV, Segmentation fault.".into(),
            String::new(),
            format!(
                "Thread 1 (Thread 0x7fff{} (LWP {}) \"ef_tests\"):",
                r.hex(8),
                r.range(40_000, 60_000)
            ),
        ],
        Lang::Kotlin => vec![
            "--------- beginning of crash".to_string(),
            format!(
                "E/AndroidRuntime({}): FATAL EXCEPTION: main",
                r.range(4000, 9000)
            ),
            format!("Process: org.fieldnotes, PID: {}", r.range(4000, 9000)),
            "java.lang.IllegalStateException: Cannot access database on the main thread".into(),
        ],
        _ => vec![],
    };
    let (tool, args, intro) = match p.lang {
        Lang::Kotlin => (
            "bash",
            json!({"command": "adb logcat -d -b crash"}),
            "Pulling the crash buffer from the device.",
        ),
        Lang::Cpp => (
            "bash",
            json!({"command": "gdb -batch -ex 'thread apply all bt' build/bin/ef_tests core.48211"}),
            "Getting all thread backtraces from the core dump.",
        ),
        _ => (
            "read",
            json!({"path": "log/sidekiq-errors.log"}),
            "Reading the job error log.",
        ),
    };
    let mut out = finish(
        r,
        intro.into(),
        tool,
        args,
        head,
        body,
        vec![],
        plant,
        decoys,
    );
    if lang == Lang::Cpp {
        // gdb numbers threads downwards and frames from 0 within each thread.
        let mut t = out
            .text
            .lines()
            .filter(|l| l.starts_with("Thread "))
            .count()
            + 1;
        let mut k = 0;
        rewrite(&mut out, |l| {
            if let Some(rest) = l.strip_prefix("Thread ") {
                t -= 1;
                k = 0;
                format!("Thread {t} {}", rest.split_once(' ').map_or("", |x| x.1))
            } else if l.starts_with('#') {
                let rest = l.split_once(" 0x").map_or(l, |x| x.1);
                k += 1;
                format!("#{:<2} 0x{rest}", k - 1)
            } else {
                l.to_string()
            }
        });
    }
    out
}

fn xml(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let android = p.lang == Lang::Kotlin;
    let mut rec = |r: &mut Rng| {
        if android {
            let (a, c) = (area(r, p), pascal(r, p, 2));
            let (line, key) = match r.below(4) {
                0 => {
                    let k = format!("org.fieldnotes.{a}.{}", snake(r, p, 2).to_uppercase());
                    (
                        format!(
                            "        <meta-data android:name=\"{k}\" android:value=\"{}\" />",
                            r.range(1, 900)
                        ),
                        k,
                    )
                }
                1 => {
                    let k = format!(".{a}.{c}Activity");
                    (
                        format!(
                            "        <activity android:name=\"{k}\" android:exported=\"{}\" android:theme=\"@style/Theme.Fieldnotes\" />",
                            r.pick(&["true", "false"])
                        ),
                        k[1..].to_string(),
                    )
                }
                2 => {
                    let k = format!(".{a}.{c}Service");
                    (
                        format!(
                            "        <service android:name=\"{k}\" android:foregroundServiceType=\"{}\" android:exported=\"false\" />",
                            r.pick(&["dataSync", "location", "shortService"])
                        ),
                        k[1..].to_string(),
                    )
                }
                _ => {
                    let k = format!(
                        "org.fieldnotes.permission.{}",
                        snake(r, p, 2).to_uppercase()
                    );
                    (
                        format!(
                            "    <permission android:name=\"{k}\" android:protectionLevel=\"signature\" />"
                        ),
                        k,
                    )
                }
            };
            Rec::one(line, key)
        } else {
            let id = format!(
                "{}_{}_{:02}",
                snake(r, p, 2),
                r.pick(&["wet", "dry", "lod1", "lod2", "night"]),
                r.range(1, 40)
            );
            let tex = format!(
                "textures/{}/{}_{}.ktx2",
                area(r, p),
                snake(r, p, 2),
                r.pick(&["albedo", "normal", "orm"])
            );
            let line = format!(
                "  <material id=\"{id}\" shader=\"shaders/{}.frag\" albedo=\"{tex}\" roughness=\"{}.{:02}\" flags=\"0x{}\"/>",
                snake(r, p, 2),
                r.below(2),
                r.below(100),
                r.hex(4)
            );
            Rec::one(line, id)
        }
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "xml_attr", |_, k, _| {
        let ask = if android {
            "check where the manifest entry we need is used in code".to_string()
        } else {
            "check which levels use the material I'm worried about".to_string()
        };
        let f = Follow {
            text: format!("Searching for {k}."),
            tool: "grep",
            args: json!({"pattern": k, "path": if android { "app/src" } else { "content" }}),
            result: format!(
                "{}: 3 matches",
                if android {
                    "app/src/main/java/org/fieldnotes/App.kt"
                } else {
                    "content/levels/forest_02.level"
                }
            ),
        };
        (ask, f)
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let (path, head, foot) = if android {
        (
            "app/src/main/AndroidManifest.xml",
            vec![
                "<?xml version=\"1.0\" encoding=\"utf-8\"?>".to_string(),
                "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\"".into(),
                "    xmlns:tools=\"http://schemas.android.com/tools\">".into(),
                "    <application android:name=\".FieldnotesApp\" android:allowBackup=\"false\">"
                    .into(),
            ],
            vec!["    </application>".to_string(), "</manifest>".into()],
        )
    } else {
        (
            "content/materials/terrain.xml",
            vec![
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>".to_string(),
                format!(
                    "<materials version=\"{}\" pipeline=\"deferred\">",
                    r.range(3, 9)
                ),
            ],
            vec!["</materials>".to_string()],
        )
    };
    let intro = format!("Reading {path}.");
    finish(
        r,
        intro,
        "read",
        json!({ "path": path }),
        head,
        body,
        foot,
        plant,
        decoys,
    )
}

fn lock_diff(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    const PY: &[&str] = &[
        "xarray",
        "numpy",
        "dask",
        "zarr",
        "fsspec",
        "netcdf4",
        "cftime",
        "pandas",
        "scipy",
        "numba",
        "llvmlite",
        "pyproj",
        "shapely",
        "pooch",
        "xesmf",
        "distributed",
        "bokeh",
        "cloudpickle",
        "toolz",
        "partd",
        "s3fs",
        "aiohttp",
        "packaging",
        "pyarrow",
        "numcodecs",
    ];
    const GEMS: &[&str] = &[
        "nokogiri",
        "rails",
        "activerecord",
        "sidekiq",
        "puma",
        "pg",
        "rack",
        "grpc",
        "google-protobuf",
        "ffi",
        "bootsnap",
        "devise",
        "pundit",
        "redis-client",
        "aws-sdk-s3",
        "twilio-ruby",
        "tzinfo",
        "ice_cube",
        "faraday",
        "msgpack",
        "bcrypt",
        "oj",
        "zeitwerk",
    ];
    let py = p.lang == Lang::Python;
    let mut rec = |r: &mut Rng| {
        let (old, new) = if py && r.chance(0.3) {
            (
                format!("202{}.{}.{}", r.range(3, 4), r.range(1, 12), r.below(3)),
                format!("2025.{}.{}", r.range(1, 12), r.below(3)),
            )
        } else {
            (
                format!("{}.{}.{}", r.range(1, 7), r.range(0, 30), r.range(0, 20)),
                format!("{}.{}.{}", r.range(1, 8), r.range(0, 30), r.range(0, 25)),
            )
        };
        if py {
            let name = *r.pick(PY);
            let h = r.hex(64);
            let lines = vec![
                " [[package]]".to_string(),
                format!(" name = \"{name}\""),
                format!("-version = \"{old}\""),
                format!("+version = \"{new}\""),
                " source = { registry = \"https://pypi.org/simple\" }".into(),
                format!(
                    "-sdist = {{ hash = \"sha256:{}\", size = {} }}",
                    r.hex(64),
                    r.range(100_000, 9_000_000)
                ),
                format!(
                    "+sdist = {{ hash = \"sha256:{h}\", size = {} }}",
                    r.range(100_000, 9_000_000)
                ),
                format!(
                    " dependencies = [{{ name = \"{}\" }}, {{ name = \"packaging\" }}]",
                    r.pick(PY)
                ),
                "@@ -".to_string()
                    + &format!(
                        "{},{} +{},{} @@",
                        r.range(10, 9000),
                        r.range(6, 40),
                        r.range(10, 9000),
                        r.range(6, 40)
                    ),
            ];
            Rec {
                lines,
                at: 3,
                key: new,
            }
        } else {
            let name = *r.pick(GEMS);
            let plat = if r.chance(0.4) { "-x86_64-linux" } else { "" };
            let lines = vec![
                format!("-    {name} ({old}{plat})"),
                format!("+    {name} ({new}{plat})"),
            ];
            Rec {
                lines,
                at: 1,
                key: format!("{new}{plat}"),
            }
        }
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "version_bump", |_, k, line| {
        let name = if py {
            "the package".to_string()
        } else {
            line.trim_start_matches(['+', ' '])
                .split(' ')
                .next()
                .unwrap_or("")
                .replace(['-', '_'], " ")
        };
        let f = Follow {
            text: format!("Reading the release notes of the {k} bump."),
            tool: "bash",
            args: json!({"command": if py { format!("uv pip show --verbose $(grep -B3 '\"{k}\"' uv.lock | head -1)") } else { format!("gem contents --version '{k}' {} | head", name.replace(' ', "-")) }}),
            result: "Changelog: https://example.invalid/changelog".into(),
        };
        (
            format!("read the changelog of {name} upgrade that the lockfile diff pulled in"),
            f,
        )
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let (file, head) = if py {
        (
            "uv.lock",
            vec![
                "diff --git a/uv.lock b/uv.lock".to_string(),
                format!("index {}..{} 100644", r.hex(10), r.hex(10)),
                "--- a/uv.lock".into(),
                "+++ b/uv.lock".into(),
            ],
        )
    } else {
        (
            "Gemfile.lock",
            vec![
                "diff --git a/Gemfile.lock b/Gemfile.lock".to_string(),
                format!("index {}..{} 100644", r.hex(10), r.hex(10)),
                "--- a/Gemfile.lock".into(),
                "+++ b/Gemfile.lock".into(),
                "@@ -1,6 +1,6 @@".into(),
                " GEM".into(),
                "   remote: https://rubygems.org/".into(),
                "   specs:".into(),
            ],
        )
    };
    let cmd = format!("git diff HEAD~{} -- {file}", r.range(2, 30));
    finish(
        r,
        "Checking what moved in the lockfile.".into(),
        "bash",
        json!({ "command": cmd }),
        head,
        body,
        vec![],
        plant,
        decoys,
    )
}

fn cmake(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    // Build steps, with a compiler warning now and then (the warning's location is the key).
    let mut warning = |r: &mut Rng| {
        let (line, col) = (r.range(10, 1_500), r.range(3, 60));
        let loc = format!("{}/{}:{line}:{col}", p.cwd, src_path(r, p));
        let v = camel(r, p, 2);
        let (msg, flag) = *r.pick(&[
            ("unused variable '{v}'", "-Wunused-variable"),
            (
                "comparison of integers of different signs: 'int' and 'uint32_t'",
                "-Wsign-compare",
            ),
            ("'{v}' may be used uninitialized", "-Wmaybe-uninitialized"),
            (
                "declaration of '{v}' shadows a member of 'this'",
                "-Wshadow",
            ),
        ]);
        let code = code_line(r, p, "    ");
        Rec {
            lines: vec![
                format!("{loc}: warning: {} [{flag}]", msg.replace("{v}", &v)),
                format!("{line:>5} | {code}"),
                format!(
                    "      | {}^{}",
                    " ".repeat(col.min(30)),
                    "~".repeat(r.range(2, 12))
                ),
            ],
            at: 0,
            key: loc,
        }
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut warning, "build_warning", |_, k, _| {
        let path = k
            .split(':')
            .next()
            .unwrap_or(k)
            .trim_start_matches(p.cwd)
            .trim_start_matches('/');
        let f = Follow {
            text: format!("Fixing the warning at {k}."),
            tool: "read",
            args: json!({"path": path, "offset": 1, "limit": 80}),
            result: "    uint32_t cascadeCount = settings.cascadeCount;".into(),
        };
        let file = path
            .rsplit('/')
            .next()
            .unwrap_or(path)
            .split('.')
            .next()
            .unwrap_or("");
        (
            format!("fix the compiler warning in the {} source", spoken(file)),
            f,
        )
    });
    let body = fill(r, bytes, |r| {
        if r.chance(0.06) {
            return warning(r).lines;
        }
        let lib = area(r, p);
        vec![format!(
            "[@/@] Building CXX object engine/{lib}/CMakeFiles/ef_{lib}.dir/{}.cpp.o",
            snake(r, p, 2)
        )]
    });
    let head = vec![
        format!(
            "-- The CXX compiler identification is GNU 13.{}.0",
            r.below(4)
        ),
        "-- Detecting CXX compiler ABI info - done".into(),
        format!(
            "-- Found Vulkan: /usr/lib/x86_64-linux-gnu/libvulkan.so (found version \"1.3.{}\") found components: glslc",
            r.range(200, 290)
        ),
        format!("-- EF_ENABLE_VALIDATION: {}", r.pick(&["ON", "OFF"])),
        format!("-- EF_SHADOW_CASCADES: {}", r.range(2, 6)),
        "-- Configuring done (2.1s)".into(),
        "-- Generating done (0.4s)".into(),
        format!("-- Build files have been written to: {}/build", p.cwd),
    ];
    let foot = vec!["[@/@] Linking CXX executable bin/ef_editor".to_string()];
    let cmd = "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build -j16 2>&1";
    let mut out = finish(
        r,
        "Rebuilding to see the compiler output.".into(),
        "bash",
        json!({ "command": cmd }),
        head,
        body,
        foot,
        plant,
        decoys,
    );
    let steps = out.text.lines().filter(|l| l.starts_with("[@/@]")).count();
    let mut i = 0;
    rewrite(&mut out, |l| match l.strip_prefix("[@/@]") {
        Some(rest) => {
            i += 1;
            format!("[{i:>w$}/{steps}]{rest}", w = steps.to_string().len())
        }
        None => l.to_string(),
    });
    out
}

fn migrations(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let mut rec = |r: &mut Rng| {
        let t = 1_600_000_000_000 + r.below(170_000_000) as u64 * 1000;
        let ts: String = iso(t)[..19].chars().filter(char::is_ascii_digit).collect();
        let verb = *r.pick(&["add", "remove", "create", "backfill", "index", "rename"]);
        let name = format!("{ts}_{verb}_{}_to_{}.rb", snake(r, p, 2), r.pick(p.words));
        Rec::one(name.clone(), name)
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "migration", |r, k, _| {
        let words: Vec<&str> = k.trim_end_matches(".rb").split('_').skip(1).collect();
        let f = Follow {
            text: format!("Opening db/migrate/{k}."),
            tool: "read",
            args: json!({ "path": format!("db/migrate/{k}") }),
            result: format!(
                "class Migration{} < ActiveRecord::Migration[7.1]\n  def change\n  end\nend",
                r.range(1, 99)
            ),
        };
        (
            format!(
                "open the migration that does the {} change",
                words.join(" ")
            ),
            f,
        )
    });
    let body = fill(r, bytes.min(40_000), |r| rec(r).lines);
    finish(
        r,
        "Listing the migrations, newest first.".into(),
        "bash",
        json!({"command": "ls -1t db/migrate"}),
        vec![],
        body,
        vec![],
        plant,
        decoys,
    )
}

fn routes(r: &mut Rng, p: &Project, bytes: usize, pos: Option<Pos>) -> Out {
    let mut rec = |r: &mut Rng| {
        let w = words(r, p, 4);
        let (a, b, c, d) = (w[0], w[1], w[2], w[3]);
        // Only routes ending in their own words are keys (the others are prefixes of each other).
        let (verb, action, path, key) = match r.below(5) {
            0 => ("GET", "index", format!("/api/v2/{a}s/:{a}_id/{b}s"), false),
            1 => ("POST", c, format!("/api/v2/{a}s/:{a}_id/{b}s/{c}"), true),
            2 => (
                "GET",
                "show",
                format!("/api/v2/{a}s/:{a}_id/{b}s/:id"),
                false,
            ),
            3 => ("PATCH", "update", format!("/api/v2/{b}s/:id/{c}_{d}"), true),
            _ => ("DELETE", "destroy", format!("/api/v2/{b}s/:id"), false),
        };
        let helper = format!("api_v2_{a}_{b}s");
        let line = format!("{helper:>48} {verb:<6} {path}(.:format) api/v2/{b}s#{action}");
        Rec::one(line, if key { path } else { String::new() })
    };
    let (plant, decoys) = plant_and_decoys(r, pos, &mut rec, "route", |_, k, _| {
        let url = k.replace(":id", "42").replace("_id", "").replace(':', "");
        let f = Follow {
            text: format!("Exercising {k} locally."),
            tool: "bash",
            args: json!({"command": format!("curl -s -X POST localhost:3000{url} -H 'Accept: application/json'")}),
            result: "{\"error\":\"unauthorized\"}".into(),
        };
        (
            "call the endpoint from the routes that handles this and see what it returns"
                .to_string(),
            f,
        )
    });
    let body = fill(r, bytes, |r| rec(r).lines);
    let head = vec![format!(
        "{:>48} {:<6} {:<60} Controller#Action",
        "Prefix", "Verb", "URI Pattern"
    )];
    finish(
        r,
        "Let me check the routes.".into(),
        "bash",
        json!({"command": "bin/rails routes"}),
        head,
        body,
        vec![],
        plant,
        decoys,
    )
}
