//! `cloaked`: a held-out needle generator, written without reading the scorer. Each session is one
//! coding-agent task in a pi v3 session file, in one of five projects far from the usual fare:
//!
//! - `orbit-infra`: Terraform on AWS (EKS, RDS). Outputs: `terraform plan` (refresh off),
//!   `terraform show` of the state, `tflint --format compact`, a `.terraform.lock.hcl` read, and
//!   Kubernetes events through the custom tool `k8s_events`.
//! - `courier`: an Elixir/Phoenix service. Outputs: `mix test --trace`, `mix ecto.migrations`,
//!   a `mix.lock` read, the dev server log, `mix phx.routes`, and `EXPLAIN (ANALYZE, BUFFERS)` of
//!   a partitioned table through the custom tool `sql_query`.
//! - `fieldnotes-android`: a Kotlin Android app built with Gradle. Outputs: a multi-module
//!   `assembleDebug` log, `:app:dependencies`, `adb logcat -v threadtime`, unit-test events, and
//!   an R8 `mapping.txt` read.
//! - `tessera`: a Haskell compiler (its simplifier pass), built with cabal. Outputs: `cabal
//!   build` with GHC diagnostics, a tasty-golden run, a `cabal.project.freeze` read,
//!   `-ddump-timings` lines, and pi's `grep`.
//! - `lakeside-dw`: a Python data pipeline (Airflow + dbt on Postgres). Outputs: `dbt run`, an
//!   Airflow task log, a `sql_query` result table, a `pip-compile --generate-hashes` lock, and
//!   `sqlfluff lint`.
//!
//! Tools: pi's `read`, `bash`, `grep`, `find`, `ls`, `edit`, `write`, and the two custom tools
//! `k8s_events` (namespace events as a kubectl table) and `sql_query` (psql-formatted results).
//! Large outputs are 2–60 KB, drawn log-uniform and capped by what a format can hold; those over
//! pi's limits (50 KB or 2,000 lines) end with pi's notice (`[Showing lines 1-N of M. Use
//! offset=N+1 to continue.]` for reads, the tail kept with `[Showing lines A-B of M (50.0KB
//! limit). Full output: /tmp/pi-bash-….log]` for bash, `[N matches limit reached …]` for grep,
//! a truncation line for the custom tools). Small calls: edits, writes, short commands, finds,
//! listings and some failures (`isError` true).
//!
//! Needles (26 kinds, five or six a project; a session draws 3–5 distinct kinds of its project):
//! `tf_forced_replacement`, `tf_state_sg_id`, `k8s_warning_event`, `tflint_error`,
//! `tf_lock_provider`, `exunit_failure_location`, `ecto_migration_down`, `mix_lock_checksum`,
//! `phoenix_session_crash`, `pg_partition_seq_scan`, `phx_route`, `kotlin_unresolved_reference`,
//! `gradle_version_conflict`, `logcat_app_frame`, `junit_failed_test`, `r8_class_mapping`,
//! `ghc_type_error`, `golden_test_failure`, `cabal_freeze_pin`, `ghc_phase_timing_outlier`,
//! `grep_call_site`, `dbt_database_error`, `airflow_schema_skip`, `warehouse_load_batch`,
//! `pip_wheel_hash`, `sqlfluff_failing_model`.
//!
//! Each needle is one whole line of a large output, put where such a line occurs in its format
//! (an error amid warnings, a `down` row amid `up` rows, a failing test amid passing ones, the
//! seq scan amid index scans, a frame inside a crash, a pinned constraint among its neighbours,
//! the database error in dbt's closing summary...). Its record is drawn at a head, middle or
//! tail fraction of the records (the kinds whose format fixes the place, like dbt's summary,
//! only where the format allows); the label is then read off the finished output: line `at` of
//! `n` is `head` when `5·at < n`, `tail` when `5·at ≥ 4·n`, else `middle`. Marking: 16 kinds are
//! marked by something a careful reader notices on the line itself (an error or warning word,
//! FAIL/FAILED, `down`, `must be replaced`, a `->` version bump, an outlier time, a seq scan
//! amid index scans), 10 are plain rows (a state id, a lock entry, a route, a dependency
//! version, a stack frame, a mapping line, a freeze pin, a grep hit, a result row, a wheel
//! hash); a session takes about half of each where its project allows.
//!
//! Each needle holds a distinctive string (`harness::is_distinctive`) found once in the prefix,
//! and 2–4 distractors: lines of the same output on the same template or in the same section,
//! each holding a distinctive string of its own, never used later. The prefix has 8–16 tool
//! calls and ends with the assistant's closing text, a words-only request, and a small call and
//! result; the output before that small call is at least 2,600 tokens. The later part opens
//! with the user, then one assistant turn per needle that names its string (in prose and mostly
//! in the call's arguments) with a small result. Everything is drawn from a splitmix64 stream
//! of (seed, index); a draw that breaks a rule (a string seen twice, a distractor's string
//! reappearing later, a short last output) is redrawn from a derived seed.

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

use super::harness::{self, CaseSpec};

pub struct Generated {
    pub name: String,
    pub lines: Vec<String>,
    pub cut_line: usize,
    pub needles: Vec<(String, String, String)>,
    pub distractors: Vec<String>,
}

pub fn specs(seed: u64, n: usize, work: &Path) -> anyhow::Result<Vec<CaseSpec>> {
    harness::needle_specs(work, "cloaked", n, |i| {
        let g = generate_one(seed, i);
        (g.name, g.lines, g.cut_line, g.needles, g.distractors)
    })
}

/// Session `index` of `seed`: drawn, checked against the rules, redrawn until it holds.
pub fn generate_one(seed: u64, index: usize) -> Generated {
    let name = format!("cloaked-{index:03}");
    let base = mix(seed, index as u64);
    for attempt in 0..500u64 {
        let s = mix(base, attempt.wrapping_mul(0x5851_F42D_4C95_7F2D));
        let (g, keys, expected) = draw(s, (index + (seed % 5) as usize) % PROJECTS.len(), &name);
        if keys.len() == expected && valid(&g, &keys) {
            return g;
        }
    }
    panic!("{name}: no valid draw");
}

// ---------------------------------------------------------------------------------------------
// Randomness
// ---------------------------------------------------------------------------------------------

fn mix(a: u64, b: u64) -> u64 {
    let mut r = Rng(a ^ b.rotate_left(29) ^ 0xC10A_4ED0_0000_0001);
    r.next();
    r.next()
}

#[derive(Clone)]
struct Rng(u64);

impl Rng {
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
    /// Inclusive range.
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
    fn s(&mut self, xs: &[&str]) -> String {
        self.pick(xs).to_string()
    }
    fn from(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }
    fn hex(&mut self, n: usize) -> String {
        self.from(b"0123456789abcdef", n)
    }
    fn alnum(&mut self, n: usize) -> String {
        self.from(b"abcdefghijklmnopqrstuvwxyz0123456789", n)
    }
    fn b62(&mut self, n: usize) -> String {
        self.from(
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            n,
        )
    }
    fn b64(&mut self, n: usize) -> String {
        self.from(
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
            n,
        )
    }
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
    /// `k` distinct indices below `n`, in drawn order.
    fn distinct(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        self.shuffle(&mut v);
        v.truncate(k.min(n));
        v
    }
    /// A log time (hours 00–09, never the session's own hours).
    fn hms(&mut self) -> String {
        format!(
            "{:02}:{:02}:{:02}",
            self.below(10),
            self.below(60),
            self.below(60)
        )
    }
}

fn cap1(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

fn camel(parts: &[&str]) -> String {
    let mut s = parts[0].to_string();
    for p in &parts[1..] {
        s.push_str(&cap1(p));
    }
    s
}

fn pascal(s: &str) -> String {
    s.split('_').map(cap1).collect()
}

// ---------------------------------------------------------------------------------------------
// Where needles and distractors go
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Debug)]
enum Zone {
    Head,
    Middle,
    Tail,
}

const ANY: &[Zone] = &[Zone::Head, Zone::Middle, Zone::Tail];
const NOT_HEAD: &[Zone] = &[Zone::Middle, Zone::Tail];
const TAIL: &[Zone] = &[Zone::Tail];

fn zone_index(r: &mut Rng, z: Zone, n: usize) -> usize {
    let (lo, hi) = match z {
        Zone::Head => (0.04, 0.15),
        Zone::Middle => (0.32, 0.68),
        Zone::Tail => (0.85, 0.96),
    };
    let f = lo + (hi - lo) * r.unit();
    ((f * n as f64) as usize).min(n.saturating_sub(1))
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Fill,
    Needle,
    Dist,
}

/// The needle's record (by zone) and 2–4 distractor records among `n`.
struct Slots {
    needle: usize,
    dists: Vec<usize>,
}

impl Slots {
    fn new(r: &mut Rng, n: usize, z: Option<Zone>) -> Slots {
        Slots::among(r, n, z, |_| true)
    }
    /// Like `new`, with the needle and distractors only on records `ok` accepts (the needle on
    /// the accepted record nearest its zone's draw).
    fn among(r: &mut Rng, n: usize, z: Option<Zone>, ok: impl Fn(usize) -> bool) -> Slots {
        let none = Slots {
            needle: usize::MAX,
            dists: Vec::new(),
        };
        let Some(z) = z else { return none };
        let want = zone_index(r, z, n) as i64;
        let elig: Vec<usize> = (0..n).filter(|&i| ok(i)).collect();
        let Some(&needle) = elig.iter().min_by_key(|&&i| (i as i64 - want).abs()) else {
            return none;
        };
        let k = r.range(2, 4);
        let mut dists = Vec::new();
        for j in r.distinct(elig.len(), k + 1) {
            if elig[j] != needle && dists.len() < k {
                dists.push(elig[j]);
            }
        }
        Slots { needle, dists }
    }
    fn role(&self, i: usize) -> Role {
        if i == self.needle {
            Role::Needle
        } else if self.dists.contains(&i) {
            Role::Dist
        } else {
            Role::Fill
        }
    }
}

/// How many records fit a target size, and whether pi clipped the output.
fn plan_n(target: usize, avg: usize, min_n: usize, lines_per: usize) -> (usize, bool) {
    let want = (target / avg.max(1)).max(min_n);
    let by_bytes = 44_000 / avg.max(1);
    let by_lines = 1_850 / lines_per.max(1);
    let n = want.min(by_bytes).min(by_lines).max(min_n);
    (n, want > n)
}

#[derive(Clone, Copy)]
enum Clip {
    Read,
    Bash,
    Grep,
    Custom,
}

/// The output text: head, body, foot, and pi's notice when clipped (reads keep the head, bash
/// keeps the tail).
fn assemble(
    r: &mut Rng,
    clip: Clip,
    head: Vec<String>,
    body: Vec<String>,
    foot: Vec<String>,
    clipped: bool,
) -> String {
    let mut lines = Vec::new();
    if !clipped {
        lines.extend(head);
        lines.extend(body);
        lines.extend(foot);
        return lines.join("\n");
    }
    match clip {
        Clip::Read => {
            lines.extend(head);
            lines.extend(body);
            let shown = lines.len();
            let total = shown + shown * r.range(30, 250) / 100;
            let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
            let limit = if bytes > 40_000 {
                " (50.0KB limit)"
            } else {
                ""
            };
            let mut t = lines.join("\n");
            t.push_str(&format!(
                "\n\n[Showing lines 1-{shown} of {total}{limit}. Use offset={} to continue.]",
                shown + 1
            ));
            t
        }
        Clip::Bash => {
            lines.extend(body);
            lines.extend(foot);
            let shown = lines.len();
            let total = shown + shown * r.range(30, 250) / 100;
            let mut t = lines.join("\n");
            t.push_str(&format!(
                "\n\n[Showing lines {}-{total} of {total} (50.0KB limit). Full output: /tmp/pi-bash-{}.log]",
                total - shown + 1,
                r.hex(16)
            ));
            t
        }
        Clip::Grep => {
            lines.extend(body);
            let shown = lines.len();
            let mut t = lines.join("\n");
            t.push_str(&format!(
                "\n\n[{shown} matches limit reached. Use limit={} for more, or refine pattern]",
                shown * 2
            ));
            t
        }
        Clip::Custom => {
            lines.extend(head);
            lines.extend(body);
            let shown = lines.len();
            let more = shown * r.range(30, 250) / 100;
            let mut t = lines.join("\n");
            t.push_str(&format!(
                "\n\n[output truncated at 50KB: {more} more lines not shown]"
            ));
            t
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Generated outputs
// ---------------------------------------------------------------------------------------------

/// A planted needle: its line, the string the later part uses, its distractors, and the later
/// turn that uses it.
struct Plant {
    kind: &'static str,
    line: String,
    key: String,
    dists: Vec<String>,
    say: String,
    tool: &'static str,
    args: Value,
    result: String,
}

/// One large tool call and its output.
struct Big {
    intro: String,
    tool: &'static str,
    args: Value,
    text: String,
    is_error: bool,
    plant: Option<Plant>,
}

/// What a generator collects while it renders records.
#[derive(Default)]
struct Acc {
    line: Option<String>,
    key: String,
    dists: Vec<String>,
}

impl Acc {
    fn needle(&mut self, line: String, key: &str) -> String {
        self.line = Some(line.clone());
        self.key = key.to_string();
        line
    }
    fn dist(&mut self, line: String) -> String {
        self.dists.push(line.clone());
        line
    }
    fn plant(
        self,
        kind: &'static str,
        say: String,
        tool: &'static str,
        args: Value,
        result: &str,
    ) -> Option<Plant> {
        let line = self.line?;
        Some(Plant {
            kind,
            line,
            key: self.key,
            dists: self.dists,
            say,
            tool,
            args,
            result: result.to_string(),
        })
    }
}

type GenFn = fn(&mut Rng, Option<Zone>, usize) -> Big;

struct Kind {
    name: &'static str,
    marked: bool,
    zones: &'static [Zone],
    /// The most bytes the format plausibly holds before pi clips it.
    cap: usize,
    gen_fn: GenFn,
}

struct Project {
    slug: &'static str,
    cwd: &'static str,
    tasks: &'static [&'static str],
    closings: &'static [&'static str],
    requests: &'static [&'static str],
    later_asks: &'static [&'static str],
    kinds: &'static [Kind],
    small: fn(&mut Rng) -> Small,
}

struct Small {
    intro: String,
    tool: &'static str,
    args: Value,
    text: String,
    is_error: bool,
}

fn small(intro: &str, tool: &'static str, args: Value, text: &str, is_error: bool) -> Small {
    Small {
        intro: intro.to_string(),
        tool,
        args,
        text: text.to_string(),
        is_error,
    }
}

fn edit_args(path: &str, old: &str, new: &str) -> Value {
    json!({"path": path, "edits": [{"oldText": old, "newText": new}]})
}

fn edited(path: &str) -> String {
    format!("Successfully replaced text in {path}.")
}

// ---------------------------------------------------------------------------------------------
// orbit-infra: Terraform on AWS
// ---------------------------------------------------------------------------------------------

#[rustfmt::skip]
const TF_MODULES: &[&str] = &[
    "network", "eks_core", "ledger_db", "edge", "observability", "batch", "iam_roles", "dns",
    "cache", "queues", "artifacts", "vpn", "search", "payments_api",
];
#[rustfmt::skip]
const TF_NAMES: &[&str] = &[
    "primary", "replica", "ingress", "egress", "workers", "api", "web", "internal", "public",
    "private", "audit", "export", "alerts", "nightly", "default", "shared",
];
#[rustfmt::skip]
const TF_UPDATE_TYPES: &[&str] = &[
    "aws_security_group_rule", "aws_iam_role_policy_attachment", "aws_route53_record",
    "aws_cloudwatch_metric_alarm", "aws_s3_bucket_policy", "aws_lambda_permission",
    "aws_ecr_lifecycle_policy", "aws_ssm_parameter", "aws_sqs_queue", "aws_autoscaling_group",
    "aws_eks_node_group", "aws_kms_key",
];

fn tf_addr(r: &mut Rng, ty: &str) -> String {
    format!(
        "module.{}.{}.{}_{}",
        r.s(TF_MODULES),
        ty,
        r.s(TF_NAMES),
        r.range(1, 96)
    )
}

fn g_tf_plan(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 420, 10, 9);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let (mut add, mut change) = (0, 0);
    for i in 0..n {
        let role = s.role(i);
        if role == Role::Needle {
            let (ty, attr, old, new) = match r.below(3) {
                0 => {
                    let v = r.range(13, 15);
                    (
                        "aws_db_instance",
                        "engine_version",
                        format!("{v}.{}", r.range(2, 9)),
                        format!("{}.{}", v + 1, r.range(1, 4)),
                    )
                }
                1 => (
                    "aws_instance",
                    "ami",
                    format!("ami-0{}", r.hex(16)),
                    format!("ami-0{}", r.hex(16)),
                ),
                _ => (
                    "aws_elasticache_cluster",
                    "node_type",
                    "cache.r6g.large".to_string(),
                    "cache.r7g.large".to_string(),
                ),
            };
            let addr = tf_addr(r, ty);
            let name = addr.rsplit('.').next().unwrap_or("x").to_string();
            let line = format!("  # {addr} must be replaced");
            body.push(acc.needle(line, &addr));
            body.push(format!("-/+ resource \"{ty}\" \"{name}\" {{"));
            body.push(format!(
                "      ~ arn                      = \"arn:aws:rds:eu-west-1:{}:db:{}\" -> (known after apply)",
                r.range(100_000_000_000, 999_999_999_999),
                r.alnum(10)
            ));
            body.push(format!(
                "      ~ {attr:<24} = \"{old}\" -> \"{new}\" # forces replacement"
            ));
            body.push("      ~ id                       = (known after apply)".into());
            body.push(format!(
                "        # ({} unchanged attributes hidden)",
                r.range(12, 40)
            ));
            body.push("    }".into());
            body.push(String::new());
            continue;
        }
        let ty = r.s(TF_UPDATE_TYPES);
        let addr = tf_addr(r, &ty);
        let name = addr.rsplit('.').next().unwrap_or("x").to_string();
        let create = r.chance(0.25);
        let head = if create {
            add += 1;
            format!("  # {addr} will be created")
        } else {
            change += 1;
            format!("  # {addr} will be updated in-place")
        };
        body.push(if role == Role::Dist {
            acc.dist(head)
        } else {
            head
        });
        if create {
            body.push(format!("  + resource \"{ty}\" \"{name}\" {{"));
            body.push("      + arn  = (known after apply)".into());
            body.push("      + id   = (known after apply)".into());
            body.push(format!(
                "      + tags = {{ \"CostCenter\" = \"cc-{}\" }}",
                r.range(1000, 9999)
            ));
        } else {
            body.push(format!("  ~ resource \"{ty}\" \"{name}\" {{"));
            body.push(format!(
                "        id   = \"{}-{}\"",
                r.s(&["sgr", "rule", "pa", "zr"]),
                r.hex(12)
            ));
            body.push("      ~ tags = {".into());
            body.push(format!(
                "          ~ \"CostCenter\" = \"cc-{}\" -> \"cc-{}\"",
                r.range(1000, 9999),
                r.range(1000, 9999)
            ));
            body.push("        }".into());
            body.push(format!(
                "        # ({} unchanged attributes hidden)",
                r.range(2, 14)
            ));
        }
        body.push("    }".into());
        body.push(String::new());
    }
    let head: Vec<String> = [
        "",
        "Terraform used the selected providers to generate the following execution",
        "plan. Resource actions are indicated with the following symbols:",
        "  + create",
        "  ~ update in-place",
        "-/+ destroy and then create replacement",
        "",
        "Terraform will perform the following actions:",
        "",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    let replace = usize::from(acc.line.is_some());
    let foot = vec![
        format!(
            "Plan: {} to add, {change} to change, {replace} to destroy.",
            add + replace
        ),
        String::new(),
        "─────────────────────────────────────────────────────────────────────────────".into(),
        String::new(),
        "Note: You didn't use the -out option to save this plan, so Terraform can't".into(),
        "guarantee to take exactly these actions if you run \"terraform apply\" now.".into(),
    ];
    let text = assemble(r, Clip::Bash, head, body, foot, clipped);
    let key = acc.key.clone();
    let module = key.split('.').nth(1).unwrap_or("ledger_db").to_string();
    let path = format!("modules/{module}/main.tf");
    let plant = acc.plant(
        "tf_forced_replacement",
        format!(
            "The plan would destroy and recreate {key}; the forcing attribute has to match what is deployed, so I'm pinning it and adding prevent_destroy to that resource."
        ),
        "edit",
        edit_args(
            &path,
            "  lifecycle {\n    ignore_changes = [tags]\n  }",
            "  lifecycle {\n    prevent_destroy = true\n    ignore_changes  = [tags]\n  }",
        ),
        &edited(&path),
    );
    Big {
        intro: r.s(&[
            "Let me see what a plan against prod would do right now.",
            "Running a plan without refresh to see the pending changes.",
            "I'll check the plan before touching any module.",
        ]),
        tool: "bash",
        args: json!({"command": "terraform -chdir=envs/prod plan -no-color -refresh=false -lock=false", "timeout": 600}),
        text,
        is_error: false,
        plant,
    }
}

const TF_RES: &[(&str, &str)] = &[
    ("aws_security_group", "sg"),
    ("aws_subnet", "subnet"),
    ("aws_route_table", "rtb"),
    ("aws_network_interface", "eni"),
    ("aws_nat_gateway", "nat"),
    ("aws_instance", "i"),
    ("aws_eip", "eipalloc"),
];

fn g_tf_state(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 560, 10, 14);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let vpc = format!("vpc-0{}", r.hex(16));
    let owner = r.range(100_000_000_000, 999_999_999_999);
    let mut body = Vec::new();
    let mut sg_addr = String::new();
    for i in 0..n {
        let role = s.role(i);
        let (ty, pre) = if role == Role::Fill {
            *r.pick(TF_RES)
        } else {
            ("aws_security_group", "sg")
        };
        let module = r.s(TF_MODULES);
        let name = format!("{}_{}", r.s(TF_NAMES), r.range(1, 96));
        body.push(format!("# module.{module}.{ty}.{name}:"));
        body.push(format!("resource \"{ty}\" \"{name}\" {{"));
        body.push(format!(
            "    description            = \"{} {} traffic\"",
            module.replace('_', " "),
            r.s(&["ingress", "egress", "internal", "peering"])
        ));
        let id = format!("{pre}-0{}", r.hex(16));
        let id_line = format!("    id                     = \"{id}\"");
        body.push(match role {
            Role::Needle => {
                sg_addr = format!("module.{module}.{ty}.{name}");
                acc.needle(id_line, &id)
            }
            Role::Dist => acc.dist(id_line),
            Role::Fill => id_line,
        });
        body.push(format!(
            "    name                   = \"orbit-prod-{}\"",
            module.replace('_', "-")
        ));
        body.push(format!("    owner_id               = \"{owner}\""));
        body.push("    revoke_rules_on_delete = false".into());
        body.push("    tags                   = {".into());
        body.push("        \"Environment\" = \"prod\"".into());
        body.push(format!(
            "        \"Team\"        = \"{}\"",
            r.s(&["platform", "ledger", "data", "sre"])
        ));
        body.push("    }".into());
        body.push(format!("    vpc_id                 = \"{vpc}\""));
        body.push("}".into());
        body.push(String::new());
    }
    let text = assemble(r, Clip::Bash, Vec::new(), body, Vec::new(), clipped);
    let key = acc.key.clone();
    let target_addr = sg_addr.replace("module.", "module.edge_v2_");
    let plant = acc.plant(
        "tf_state_sg_id",
        format!(
            "The security group the new edge module has to adopt is {key}; importing it instead of letting Terraform create a duplicate."
        ),
        "bash",
        json!({"command": format!("terraform -chdir=envs/prod import -no-color '{target_addr}' {key}")}),
        "Import successful!\n\nThe resources that were imported are shown above. These resources are now in\nyour Terraform state and will henceforth be managed by Terraform.",
    );
    Big {
        intro: r.s(&[
            "Dumping the current state so I can match resources to ids.",
            "Let me look at what the state holds for the network pieces.",
        ]),
        tool: "bash",
        args: json!({"command": "terraform -chdir=envs/prod show -no-color"}),
        text,
        is_error: false,
        plant,
    }
}

fn g_k8s_events(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 190, 12, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let ecr = format!(
        "{}.dkr.ecr.eu-west-1.amazonaws.com",
        r.range(100_000_000_000, 999_999_999_999)
    );
    let deploys = [
        "ledger-api",
        "settlement-worker",
        "fx-rates",
        "statement-gen",
        "audit-sink",
        "webhook-relay",
    ];
    let mut body = Vec::new();
    let mut say = String::new();
    let mut args = json!({});
    let mut age = 3 + n * 7;
    for i in 0..n {
        age = age.saturating_sub(r.range(1, 12)).max(1);
        let ago = if age > 120 {
            format!("{}m", age / 60)
        } else {
            format!("{age}s")
        };
        let dep = r.s(&deploys);
        let pod = format!("pod/{dep}-{}-{}", r.hex(9), r.alnum(5));
        let row = |t: &str, reason: &str, obj: &str, msg: &str| {
            format!("{ago:<11} {t:<9} {reason:<19} {obj:<46} {msg}")
        };
        match s.role(i) {
            Role::Needle => {
                if r.chance(0.5) {
                    let rs = pod[4..].rsplit_once('-').map_or("", |x| x.0).to_string();
                    let secret = format!("{dep}-db-credentials-v{}", r.range(2, 19));
                    let l = row(
                        "Warning",
                        "FailedMount",
                        &pod,
                        &format!(
                            "MountVolume.SetUp failed for volume \"db-secrets\" : secret \"{secret}\" not found"
                        ),
                    );
                    body.push(acc.needle(l, &secret));
                    say = format!(
                        "Pods of the new revision {rs} can't start: the secret {secret} they mount does not exist. Looking at that replica set's events."
                    );
                    args = json!({"namespace": "ledger", "object": format!("replicaset/{rs}")});
                } else {
                    let tag = format!(
                        "2024.{}.{}.rc{}",
                        r.range(1, 12),
                        r.range(1, 30),
                        r.range(1, 9)
                    );
                    let img = format!("{ecr}/{dep}:{tag}");
                    let l = row(
                        "Warning",
                        "Failed",
                        &pod,
                        &format!(
                            "Failed to pull image \"{img}\": rpc error: code = NotFound desc = failed to resolve reference"
                        ),
                    );
                    body.push(acc.needle(l, &img));
                    say = format!(
                        "The rollout is stuck on {img}, which was never pushed; looking for the events of the image build."
                    );
                    args = json!({"namespace": "ci", "field_selector": format!("message={img}")});
                }
            }
            Role::Dist => {
                let img = format!("{ecr}/{dep}:2024.{}.{}", r.range(1, 12), r.range(1, 30));
                let l = row(
                    "Normal",
                    "Pulled",
                    &pod,
                    &format!(
                        "Successfully pulled image \"{img}\" in {}.{:03}s",
                        r.range(0, 9),
                        r.below(1000)
                    ),
                );
                body.push(acc.dist(l));
            }
            Role::Fill => {
                let node = format!(
                    "ip-10-0-{}-{}.eu-west-1.compute.internal",
                    r.range(0, 15),
                    r.range(2, 250)
                );
                let (t, reason, msg) = match r.below(8) {
                    0 => (
                        "Normal",
                        "Scheduled",
                        format!("Successfully assigned ledger/{} to {node}", &pod[4..]),
                    ),
                    1 => (
                        "Normal",
                        "Pulling",
                        "Pulling image (digest pinned)".to_string(),
                    ),
                    2 => ("Normal", "Created", format!("Created container {dep}")),
                    3 => ("Normal", "Started", format!("Started container {dep}")),
                    4 => ("Normal", "Killing", format!("Stopping container {dep}")),
                    5 => (
                        "Warning",
                        "Unhealthy",
                        format!(
                            "Readiness probe failed: Get \"http://10.0.{}.{}:8080/healthz\": context deadline exceeded",
                            r.range(0, 15),
                            r.range(2, 250)
                        ),
                    ),
                    6 => (
                        "Normal",
                        "SuccessfulCreate",
                        format!("Created pod: {}", &pod[4..]),
                    ),
                    _ => (
                        "Normal",
                        "ScalingReplicaSet",
                        format!(
                            "Scaled up replica set {dep}-{} to {}",
                            r.hex(9),
                            r.range(2, 8)
                        ),
                    ),
                };
                let obj = if reason == "ScalingReplicaSet" {
                    format!("deployment/{dep}")
                } else {
                    pod.clone()
                };
                body.push(row(t, reason, &obj, &msg));
            }
        }
    }
    let head = vec![format!(
        "{:<11} {:<9} {:<19} {:<46} MESSAGE",
        "LAST SEEN", "TYPE", "REASON", "OBJECT"
    )];
    let text = assemble(r, Clip::Custom, head, body, Vec::new(), clipped);
    let plant = acc.plant(
        "k8s_warning_event",
        say,
        "k8s_events",
        args,
        "No events found.",
    );
    Big {
        intro: r.s(&[
            "Checking the namespace events for the failing rollout.",
            "Let me pull the recent events in the ledger namespace.",
        ]),
        tool: "k8s_events",
        args: json!({"namespace": "ledger", "since": "2h", "sort": "lastTimestamp"}),
        text,
        is_error: false,
        plant,
    }
}

fn g_tflint(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 130, 12, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let files = [
        "main.tf",
        "variables.tf",
        "outputs.tf",
        "iam.tf",
        "alarms.tf",
        "compute.tf",
        "locals.tf",
    ];
    let warns: &[(&str, &str)] = &[
        (
            "variable \"{}\" is declared but not used",
            "terraform_unused_declarations",
        ),
        ("`{}` variable has no type", "terraform_typed_variables"),
        (
            "`{}` variable has no description",
            "terraform_documented_variables",
        ),
        (
            "Missing version constraint for provider \"{}\" in `required_providers`",
            "terraform_required_providers",
        ),
        (
            "local.{} is declared but not used",
            "terraform_unused_declarations",
        ),
        (
            "Interpolation-only expressions are deprecated in Terraform v0.12.14",
            "terraform_deprecated_interpolation",
        ),
    ];
    let mut body = Vec::new();
    let mut path = String::new();
    for i in 0..n {
        let f = format!("modules/{}/{}", r.s(TF_MODULES), r.s(&files));
        let loc = format!("{f}:{}:{}", r.range(100, 899), r.range(1, 40));
        if s.role(i) == Role::Needle {
            let it = r.s(&["m4.xlarge", "t2.medium", "r3.2xlarge", "c4.large"]);
            let l = format!(
                "{loc}: Error - \"{it}\" is an invalid value as instance_type (aws_instance_invalid_type)"
            );
            path = f.clone();
            body.push(acc.needle(l, &loc));
            continue;
        }
        let (m, rule) = *r.pick(warns);
        let name = format!(
            "{}_{}",
            r.s(TF_NAMES),
            r.s(&["cidr", "arn", "tags", "ttl", "count", "prefix"])
        );
        let l = format!("{loc}: Warning - {} ({rule})", m.replace("{}", &name));
        body.push(if s.role(i) == Role::Dist {
            acc.dist(l)
        } else {
            l
        });
    }
    let foot = vec![String::new(), format!("{} issue(s) found:", n)];
    let text = assemble(r, Clip::Bash, Vec::new(), body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "tflint_error",
        format!("tflint's only hard error is {key}: that instance family isn't offered in eu-west-1 any more, so the instance_type there moves to the m7i equivalent."),
        "edit",
        edit_args(&path, "instance_type = var.legacy_instance_type", "instance_type = \"m7i.xlarge\""),
        &edited(&path),
    );
    Big {
        intro: "Running tflint over every module before changing anything.".into(),
        tool: "bash",
        args: json!({"command": "tflint --recursive --format compact --no-color"}),
        text,
        is_error: true,
        plant,
    }
}

#[rustfmt::skip]
const TF_PROVIDERS: &[&str] = &[
    "hashicorp/aws", "hashicorp/random", "hashicorp/null", "hashicorp/tls", "hashicorp/kubernetes",
    "hashicorp/helm", "hashicorp/archive", "hashicorp/local", "hashicorp/time",
    "hashicorp/external", "hashicorp/cloudinit", "hashicorp/http", "cloudflare/cloudflare",
    "datadog/datadog", "integrations/github", "cyrilgdn/postgresql", "gavinbunney/kubectl",
    "alekc/kubectl", "grafana/grafana", "pagerduty/pagerduty", "mongodb/mongodbatlas",
    "fastly/fastly", "vancluever/acme", "okta/okta", "hashicorp/vault", "hashicorp/consul",
    "sumologic/sumologic", "newrelic/newrelic", "jfrog/artifactory", "petoju/mysql",
];

fn g_tf_lock(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let mut provs: Vec<&str> = TF_PROVIDERS.to_vec();
    r.shuffle(&mut provs);
    let (n, clipped) = plan_n(target, 1_250, 6, 18);
    let n = n.min(provs.len());
    let mut provs: Vec<&str> = provs[..n].to_vec();
    provs.sort();
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    for (i, p) in provs.iter().enumerate() {
        let addr = format!("registry.terraform.io/{p}");
        let l = format!("provider \"{addr}\" {{");
        body.push(match s.role(i) {
            Role::Needle => acc.needle(l, &addr),
            Role::Dist => acc.dist(l),
            Role::Fill => l,
        });
        let (a, b, c) = (r.range(1, 5), r.range(0, 40), r.range(0, 9));
        body.push(format!("  version     = \"{a}.{b}.{c}\""));
        body.push(format!(
            "  constraints = \"~> {a}.{}\"",
            b.saturating_sub(r.below(4))
        ));
        body.push("  hashes = [".into());
        body.push(format!("    \"h1:{}=\",", r.b64(43)));
        for _ in 0..r.range(10, 13) {
            body.push(format!("    \"zh:{}\",", r.hex(64)));
        }
        body.push("  ]".into());
        body.push("}".into());
        body.push(String::new());
    }
    let head = vec![
        "# This file is maintained automatically by \"terraform init\".".to_string(),
        "# Manual edits may be lost in future updates.".into(),
        String::new(),
    ];
    let text = assemble(r, Clip::Read, head, body, Vec::new(), clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "tf_lock_provider",
        format!("The air-gapped runner only installs providers on its mirror allowlist, and {key} is locked here but missing there; adding it."),
        "edit",
        edit_args("mirror/allowlist.txt", "registry.terraform.io/hashicorp/aws\n", &format!("registry.terraform.io/hashicorp/aws\n{key}\n")),
        &edited("mirror/allowlist.txt"),
    );
    Big {
        intro: "Let me read the lock file to see which providers are pinned.".into(),
        tool: "read",
        args: json!({"path": "envs/prod/.terraform.lock.hcl"}),
        text,
        is_error: false,
        plant,
    }
}

#[rustfmt::skip]
fn small_infra(r: &mut Rng) -> Small {
    match r.below(8) {
        0 => small("Checking the working tree.", "bash", json!({"command": "git status --short"}), " M envs/prod/main.tf\n M modules/edge/variables.tf\n?? modules/edge_v2/", false,),
        1 => small("Validating the configuration.", "bash", json!({"command": "terraform -chdir=envs/prod validate -no-color"}), "╷\n│ Error: Reference to undeclared input variable\n│\n│   on ../../modules/edge/main.tf line 14, in resource \"aws_lb\" \"this\":\n│   14:   idle_timeout = var.idle_timeout\n│\n│ An input variable with the name \"idle_timeout\" has not been declared.\n╵\n\n\nCommand exited with code 1", true,),
        2 => small("Listing the modules.", "ls", json!({"path": "modules"}), "artifacts/\nbatch/\ncache/\ndns/\nedge/\neks_core/\niam_roles/\nledger_db/\nnetwork/\nobservability/\nqueues/\nvpn/", false,),
        3 => small("Declaring the missing variable.", "edit", edit_args("modules/edge/variables.tf", "variable \"tags\" {", "variable \"idle_timeout\" {\n  type    = number\n  default = 60\n}\n\nvariable \"tags\" {",), &edited("modules/edge/variables.tf"), false,),
        4 => small("Finding the environment roots.", "find", json!({"pattern": "**/backend.tf", "path": "envs"}), "envs/prod/backend.tf\nenvs/staging/backend.tf\nenvs/sandbox/backend.tf", false,),
        5 => small("Reading the backend config.", "read", json!({"path": "envs/prod/backend.tf"}), "terraform {\n  backend \"s3\" {\n    bucket         = \"orbit-tfstate-prod\"\n    key            = \"prod/terraform.tfstate\"\n    region         = \"eu-west-1\"\n    dynamodb_table = \"orbit-tf-locks\"\n    encrypt        = true\n  }\n}", false,),
        6 => small("Formatting check.", "bash", json!({"command": "terraform fmt -check -recursive"}), "modules/edge/main.tf\n\n\nCommand exited with code 3", true,),
        _ => small("Checking the cluster context.", "k8s_events", json!({"namespace": "kube-system", "since": "10m", "type": "Warning"}), "No events found.", false,),
    }
}

// ---------------------------------------------------------------------------------------------
// courier: Elixir/Phoenix
// ---------------------------------------------------------------------------------------------

const EX_AREAS: &[(&str, &str)] = &[
    ("routing", "EtaTest"),
    ("dispatch", "RebalanceTest"),
    ("tracking", "SessionServerTest"),
    ("depots", "CapacityTest"),
    ("billing", "InvoiceTest"),
    ("parcels", "LabelTest"),
];
const EX_FIX: &[&str] = &["zone", "depot", "courier", "parcel", "route", "shift"];
#[rustfmt::skip]
const EX_VERBS: &[&str] = &[
    "assigns", "rejects", "rebalances", "reroutes", "expires", "retries", "caches", "bills",
    "labels", "merges",
];

fn g_mix_test(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 74, 16, 2);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut area = *r.pick(EX_AREAS);
    let mut line_no = 10;
    let mut fail_block = Vec::new();
    for i in 0..n {
        if i == 0 || r.chance(0.08) {
            area = *r.pick(EX_AREAS);
            line_no = r.range(8, 30);
            body.push(String::new());
            body.push(format!(
                "Courier.{}.{} [test/courier/{}/{}.exs]",
                pascal(area.0),
                area.1,
                area.0,
                snake(area.1)
            ));
        }
        line_no += r.range(6, 24);
        let fixture = format!("{}_{}", r.s(EX_FIX), r.range(1000, 9999));
        let name = format!(
            "{} {} when {}",
            r.s(EX_VERBS),
            fixture,
            r.s(&[
                "offline",
                "over capacity",
                "cutoff passed",
                "snapshot is stale",
                "retried",
                "empty"
            ])
        );
        let ms = format!("{}.{}ms", r.range(0, 90), r.below(10));
        let l = format!("  * test {name} ({ms}) [L#{line_no}]");
        match s.role(i) {
            Role::Needle => {
                body.push(l);
                let loc = format!("test/courier/{}/{}.exs:{line_no}", area.0, snake(area.1));
                fail_block.push(String::new());
                fail_block.push(format!(
                    "  1) test {name} (Courier.{}.{})",
                    pascal(area.0),
                    area.1
                ));
                fail_block.push(acc.needle(format!("     {loc}"), &loc));
                fail_block.push("     Assertion with == failed".into());
                fail_block.push(format!(
                    "     code:  assert length(moved) == {}",
                    r.range(2, 6)
                ));
                fail_block.push(format!("     left:  {}", r.range(0, 1)));
                fail_block.push(format!("     right: {}", r.range(2, 6)));
                fail_block.push("     stacktrace:".into());
                fail_block.push(format!(
                    "       test/courier/{}/{}.exs:{}: (test)",
                    area.0,
                    snake(area.1),
                    line_no + r.range(3, 12)
                ));
                fail_block.push(String::new());
                body.append(&mut fail_block);
            }
            Role::Dist => body.push(acc.dist(l)),
            Role::Fill => body.push(l),
        }
    }
    let head = vec![
        "Compiling 4 files (.ex)".to_string(),
        "Generated courier app".into(),
        format!(
            "Running ExUnit with seed: {}, max_cases: 1",
            r.range(100_000, 999_999)
        ),
        "Excluding tags: [:integration, :external_api]".into(),
    ];
    let failures = usize::from(acc.line.is_some());
    let foot = vec![
        String::new(),
        format!(
            "Finished in {}.{} seconds (0.0s async, {}.{}s sync)",
            r.range(8, 60),
            r.below(10),
            r.range(8, 60),
            r.below(10)
        ),
        format!(
            "{n} tests, {failures} failure{}, 7 excluded",
            if failures == 1 { "" } else { "s" }
        ),
        String::new(),
        format!("Randomized with seed {}", r.range(100_000, 999_999)),
    ];
    let text = assemble(r, Clip::Bash, head, body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "exunit_failure_location",
        format!("The one failing test is {key}; the assertion counts moved parcels after the rebalance, so I'll rerun it alone with the fix in place."),
        "bash",
        json!({"command": format!("mix test {key}")}),
        "Running ExUnit with seed: 4410, max_cases: 1\n\n.\nFinished in 0.2 seconds (0.00s async, 0.2s sync)\n1 test, 0 failures",
    );
    Big {
        intro: r.s(&[
            "Running the whole suite with trace.",
            "Let me run the tests to see where we stand.",
        ]),
        tool: "bash",
        args: json!({"command": "mix test --trace --exclude integration"}),
        is_error: failures > 0,
        text: if failures > 0 {
            format!("{text}\n\n\nCommand exited with code 2")
        } else {
            text
        },
        plant,
    }
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

#[rustfmt::skip]
const MIG_VERBS: &[&str] = &[
    "create", "add", "drop", "alter", "backfill", "rename", "index",
];
#[rustfmt::skip]
const MIG_NOUNS: &[&str] = &[
    "depots", "parcels", "couriers", "shifts", "routes", "dispatches", "parcel_events", "invoices",
    "labels", "zones", "eta_snapshots", "webhooks",
];

fn g_ecto_migrations(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 62, 12, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut t: u64 = 20_190_000 + r.range(101, 1128) as u64;
    for i in 0..n {
        t += r.range(1, 9) as u64;
        let (y, m, d) = (t / 10_000, (t / 100 % 100) % 12 + 1, t % 100 % 28 + 1);
        let id = format!(
            "{y}{m:02}{d:02}{:02}{:02}{:02}",
            r.below(24),
            r.below(60),
            r.below(60)
        );
        let name = format!(
            "{}_{}_{}",
            r.s(MIG_VERBS),
            r.s(MIG_NOUNS),
            r.s(&[
                "status",
                "index",
                "column",
                "table",
                "constraint",
                "defaults",
                "fk"
            ])
        );
        match s.role(i) {
            Role::Needle => {
                let l = format!("  down      {id}  {name}");
                body.push(acc.needle(l, &id));
            }
            Role::Dist => body.push(acc.dist(format!("  up        {id}  {name}"))),
            Role::Fill => body.push(format!("  up        {id}  {name}")),
        }
    }
    let head = vec![
        String::new(),
        "Repo: Courier.Repo".to_string(),
        String::new(),
        "  Status    Migration ID    Migration Name".into(),
        "--------------------------------------------------".into(),
    ];
    let text = assemble(r, Clip::Read, head, body, vec![String::new()], clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "ecto_migration_down",
        format!("Migration {key} never ran here — it came in with the rebase — so the column the code expects is missing. Running migrations up to it."),
        "bash",
        json!({"command": format!("mix ecto.migrate --to {key}")}),
        "[info] == Running migration using Courier.Repo\n[info] create index parcel_events_parcel_id_index\n[info] == Migrated in 1.2s",
    );
    Big {
        intro: "Checking which migrations have run on the dev database.".into(),
        tool: "bash",
        args: json!({"command": "mix ecto.migrations"}),
        text,
        is_error: false,
        plant,
    }
}

#[rustfmt::skip]
const HEX_PKGS: &[&str] = &[
    "bandit", "bunt", "castore", "cowboy", "cowboy_telemetry", "cowlib", "credo", "db_connection",
    "decimal", "dialyxir", "ecto", "ecto_sql", "erlex", "esbuild", "ex_aws", "ex_aws_s3", "expo",
    "file_system", "finch", "floki", "gettext", "hackney", "hpax", "jason", "mime", "mint", "mox",
    "nimble_options", "nimble_pool", "oban", "phoenix", "phoenix_ecto", "phoenix_html",
    "phoenix_live_dashboard", "phoenix_live_reload", "phoenix_live_view", "phoenix_pubsub",
    "phoenix_template", "plug", "plug_cowboy", "plug_crypto", "postgrex", "ranch", "req", "swoosh",
    "tailwind", "telemetry", "telemetry_metrics", "telemetry_poller", "thousand_island", "websock",
    "websock_adapter", "geo", "geo_postgis", "tzdata", "sweet_xml",
];

fn g_mix_lock(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let mut pk: Vec<&str> = HEX_PKGS.to_vec();
    r.shuffle(&mut pk);
    let (n, clipped) = plan_n(target, 420, 8, 1);
    let n = n.min(pk.len());
    let mut pk: Vec<&str> = pk[..n].to_vec();
    pk.sort();
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = vec!["%{".to_string()];
    let mut needle_pkg = String::new();
    for (i, p) in pk.iter().enumerate() {
        let ver = format!("{}.{}.{}", r.range(0, 3), r.range(0, 20), r.range(0, 12));
        let sum = r.hex(64);
        let deps: Vec<String> = (0..r.range(0, 3))
            .map(|_| {
                let d = r.s(HEX_PKGS);
                format!(
                    "{{:{d}, \"~> {}.{}\", [hex: :{d}, repo: \"hexpm\", optional: false]}}",
                    r.range(0, 3),
                    r.range(0, 9)
                )
            })
            .collect();
        let l = format!(
            "  \"{p}\": {{:hex, :{p}, \"{ver}\", \"{sum}\", [:mix], [{}], \"hexpm\", \"{}\"}},",
            deps.join(", "),
            r.hex(64)
        );
        body.push(match s.role(i) {
            Role::Needle => {
                needle_pkg = format!("{p} {ver}");
                acc.needle(l, &sum)
            }
            Role::Dist => acc.dist(l),
            Role::Fill => l,
        });
    }
    body.push("}".into());
    let text = assemble(r, Clip::Read, Vec::new(), body, Vec::new(), clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "mix_lock_checksum",
        format!("The build image fetches deps from our Hex mirror, which serves a different tarball for {needle_pkg}; the lock expects checksum {key}, so I'm checking the mirror's copy against it."),
        "bash",
        json!({"command": format!("mix hex.package fetch {needle_pkg} --output /tmp/pkg && sha256sum /tmp/pkg/*.tar | grep -c {key}")}),
        "0\n\n\nCommand exited with code 1",
    );
    Big {
        intro: "Reading mix.lock for the pinned versions.".into(),
        tool: "read",
        args: json!({"path": "mix.lock"}),
        text,
        is_error: false,
        plant,
    }
}

fn g_phx_log(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 96, 16, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut rid = String::new();
    for i in 0..n {
        let t = format!("{}.{:03}", r.hms(), r.below(1000));
        let trk = format!("trk_{}", r.b62(10));
        match s.role(i) {
            Role::Needle => {
                let l = format!("{t} [error] Courier.Tracking.SessionServer {trk} terminating: ** (MatchError) no match of right hand side value: {{:error, :stale_snapshot}}");
                body.push(acc.needle(l, &trk));
            }
            Role::Dist => {
                let l = format!("{t} [warning] Courier.Tracking.SessionServer {trk} idle for {}s, hibernating", r.range(120, 900));
                body.push(acc.dist(l));
            }
            Role::Fill => match r.below(4) {
                0 => {
                    rid = r.b62(20);
                    body.push(format!("{t} request_id={rid} [info] GET /api/v2/dispatches/{}", r.range(1000, 99999)));
                }
                1 => body.push(format!("{t} request_id={rid} [info] Sent 200 in {}ms", r.range(1, 400))),
                2 => body.push(format!(
                    "{t} [debug] QUERY OK source=\"{}\" db={}.{}ms queue={}.{}ms idle={}.{}ms",
                    r.s(MIG_NOUNS),
                    r.range(0, 40),
                    r.below(10),
                    r.range(0, 3),
                    r.below(10),
                    r.range(0, 900),
                    r.below(10)
                )),
                _ => body.push(format!(
                    "{t} [info] Courier.Tracking.SessionServer {} position update lat={}.{} lng={}.{}",
                    r.s(&["joined", "ping", "heartbeat"]),
                    r.range(40, 55),
                    r.range(1000, 9999),
                    r.range(1, 20),
                    r.range(1000, 9999)
                )),
            },
        }
    }
    let text = assemble(r, Clip::Bash, Vec::new(), body, Vec::new(), clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "phoenix_session_crash",
        format!("Tracking session {key} is the one that crashed on the stale snapshot; replaying its events in a script to reproduce."),
        "bash",
        json!({"command": format!("mix run -e 'Courier.Tracking.Replay.run(\"{key}\")'")}),
        "replayed 38 events\n** (MatchError) no match of right hand side value: {:error, :stale_snapshot}\n\n\nCommand exited with code 1",
    );
    Big {
        intro: "Let me look at the tail of the dev log from the load test.".into(),
        tool: "bash",
        args: json!({"command": "tail -n 4000 log/dev.log"}),
        text,
        is_error: false,
        plant,
    }
}

fn g_explain(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 560, 10, 4);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let base = r.s(&[
        "parcel_events",
        "courier_pings",
        "dispatch_audit",
        "eta_samples",
    ]);
    let alias = &base[..1];
    let pid = r.range(100_000, 999_999);
    let start_year = r.range(2016, 2019);
    let mut body = Vec::new();
    for i in 0..n {
        let (y, m) = (start_year + i / 12, i % 12 + 1);
        let part = format!("{base}_p{y}_{m:02}");
        let a = format!("{alias}_{}", i + 1);
        let role = s.role(i);
        if role == Role::Needle {
            let l = format!(
                "   ->  Seq Scan on {part} {a}  (cost=0.00..{}.{:02} rows=1 width=88) (actual time={}.{:03}..{}.{:03} rows=0 loops=1)",
                r.range(20_000, 90_000),
                r.below(100),
                r.range(300, 900),
                r.below(1000),
                r.range(1200, 2400),
                r.below(1000)
            );
            body.push(acc.needle(l, &part));
            body.push(format!("         Filter: ({alias}.parcel_id = {pid})"));
            body.push(format!(
                "         Rows Removed by Filter: {}",
                r.range(900_000, 4_000_000)
            ));
            body.push(format!(
                "         Buffers: shared read={}",
                r.range(20_000, 60_000)
            ));
            continue;
        }
        let l = format!(
            "   ->  Index Scan using {part}_parcel_id_idx on {part} {a}  (cost=0.29..8.{:02} rows=1 width=88) (actual time=0.0{:02}..0.0{:02} rows={} loops=1)",
            r.below(100),
            r.below(100),
            r.below(100),
            r.below(3)
        );
        body.push(if role == Role::Dist { acc.dist(l) } else { l });
        body.push(format!("         Index Cond: (parcel_id = {pid})"));
        body.push(format!("         Buffers: shared hit={}", r.range(2, 9)));
    }
    let head = vec![
        "                                   QUERY PLAN".to_string(),
        "-".repeat(110),
        format!(
            " Append  (cost=0.29..{}.55 rows={} width=88) (actual time=0.031..{}.822 rows=14 loops=1)",
            r.range(50_000, 99_000),
            n,
            r.range(1200, 2500)
        ),
        format!(
            "   Buffers: shared hit={} read={}",
            r.range(100, 5000),
            r.range(20_000, 60_000)
        ),
    ];
    let foot = vec![
        format!(" Planning Time: {}.{:03} ms", r.range(2, 30), r.below(1000)),
        format!(
            " Execution Time: {}.{:03} ms",
            r.range(1200, 2500),
            r.below(1000)
        ),
        format!("({} rows)", n * 3 + 4),
    ];
    let text = assemble(r, Clip::Custom, head, body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "pg_partition_seq_scan",
        format!("The whole query time is one partition: {key} lost its parcel_id index (it was attached after the index was built), so it is scanned sequentially. Creating the missing index."),
        "sql_query",
        json!({"database": "courier_dev", "sql": format!("CREATE INDEX CONCURRENTLY {key}_parcel_id_idx ON {key} (parcel_id)")}),
        "CREATE INDEX",
    );
    Big {
        intro: "Explaining the slow tracking query.".into(),
        tool: "sql_query",
        args: json!({"database": "courier_dev", "sql": format!("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM {base} {alias} WHERE {alias}.parcel_id = {pid} ORDER BY inserted_at")}),
        text,
        is_error: false,
        plant,
    }
}

fn g_phx_routes(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 105, 12, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let res = [
        "depot", "parcel", "courier", "shift", "route", "dispatch", "invoice", "webhook", "zone",
    ];
    let actions = [
        ("GET", "", ":index"),
        ("GET", "/:id", ":show"),
        ("POST", "", ":create"),
        ("PATCH", "/:id", ":update"),
        ("PUT", "/:id", ":update"),
        ("DELETE", "/:id", ":delete"),
    ];
    let mut needle_ctrl = String::new();
    for i in 0..n {
        let rs = r.s(&res);
        let ctrl = format!("CourierWeb.{}Controller", cap1(&rs));
        match s.role(i) {
            Role::Fill => {
                let (verb, suffix, act) = *r.pick(&actions);
                body.push(format!(
                    "  {:<22} {verb:<7} /api/v2/{rs}s{suffix:<30} {ctrl} {act}",
                    format!("{rs}_path")
                ));
            }
            role => {
                let act = format!(
                    "{}_{}",
                    r.s(&[
                        "reroute", "reassign", "recalc", "archive", "export", "replay", "close"
                    ]),
                    r.s(&["batch", "eta", "labels", "manifest", "window"])
                );
                let path = format!("/api/v2/{rs}s/:{rs}_id/{act}_v{}", r.range(2, 9));
                let l = format!(
                    "  {:<22} POST    {path:<36} {ctrl} :{act}",
                    format!("{rs}_path")
                );
                if role == Role::Needle {
                    needle_ctrl = format!("test/courier_web/controllers/{rs}_{act}_test.exs");
                    body.push(acc.needle(l, &path));
                } else {
                    body.push(acc.dist(l));
                }
            }
        }
    }
    let foot = vec![
        "  live_dashboard_path    GET     /dev/dashboard                       Phoenix.LiveDashboard.PageLive :home".to_string(),
        "  websocket              WS      /live/websocket                      Phoenix.LiveView.Socket".into(),
    ];
    let text = assemble(r, Clip::Bash, Vec::new(), body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "phx_route",
        format!("The mobile client posts to {key}; adding a controller test that exercises exactly that route."),
        "write",
        json!({"path": needle_ctrl, "content": format!("defmodule CourierWeb.RouteContractTest do\n  use CourierWeb.ConnCase, async: true\n\n  test \"route exists\", %{{conn: conn}} do\n    conn = post(conn, \"{key}\", %{{}})\n    assert conn.status in [200, 202, 422]\n  end\nend\n")}),
        &format!("Successfully wrote 251 bytes to {needle_ctrl}"),
    );
    Big {
        intro: "Listing the router's routes.".into(),
        tool: "bash",
        args: json!({"command": "mix phx.routes CourierWeb.Router"}),
        text,
        is_error: false,
        plant,
    }
}

#[rustfmt::skip]
fn small_courier(r: &mut Rng) -> Small {
    match r.below(8) {
        0 => small("Checking the working tree.", "bash", json!({"command": "git status --short"}), " M lib/courier/dispatch/rebalance.ex\n M lib/courier/tracking/session_server.ex", false,),
        1 => small("Format check.", "bash", json!({"command": "mix format --check-formatted"}), "** (Mix) mix format failed due to --check-formatted.\nThe following files are not formatted:\n\n  * lib/courier/tracking/session_server.ex\n\n\nCommand exited with code 1", true,),
        2 => small("Looking at the dispatch context.", "ls", json!({"path": "lib/courier/dispatch"}), "assigner.ex\ncapacity.ex\nrebalance.ex\nsupervisor.ex\nworker.ex", false,),
        3 => small("Finding the snapshot code.", "grep", json!({"pattern": "stale_snapshot", "path": "lib"}), "lib/courier/tracking/snapshot.ex:41:      {:error, :stale_snapshot}\nlib/courier/tracking/session_server.ex:88:    {:ok, snap} = Snapshot.fetch(state.parcel_id)", false,),
        4 => small("Handling the stale snapshot case.", "edit", edit_args("lib/courier/tracking/session_server.ex", "    {:ok, snap} = Snapshot.fetch(state.parcel_id)", "    with {:ok, snap} <- Snapshot.fetch(state.parcel_id) do",), &edited("lib/courier/tracking/session_server.ex"), false,),
        5 => small("Compiling with warnings as errors.", "bash", json!({"command": "mix compile --warnings-as-errors"}), "Compiling 2 files (.ex)\nGenerated courier app", false,),
        6 => small("Counting stuck dispatches.", "sql_query", json!({"database": "courier_dev", "sql": "SELECT count(*) FROM dispatches WHERE state = 'assigning'"}), " count\n-------\n    17\n(1 row)", false,),
        _ => small("Reading the repo config.", "read", json!({"path": "config/dev.exs", "limit": 20}), "import Config\n\nconfig :courier, Courier.Repo,\n  username: \"postgres\",\n  password: \"postgres\",\n  hostname: \"localhost\",\n  database: \"courier_dev\",\n  pool_size: 10", false,),
    }
}

// ---------------------------------------------------------------------------------------------
// fieldnotes-android: Kotlin + Gradle
// ---------------------------------------------------------------------------------------------

const AN_MODULES: &[(&str, &str)] = &[
    (":app", "app/src/main/java/com/fieldnotes/app"),
    (":core:data", "core/data/src/main/java/com/fieldnotes/data"),
    (
        ":core:model",
        "core/model/src/main/java/com/fieldnotes/model",
    ),
    (":core:ui", "core/ui/src/main/java/com/fieldnotes/ui"),
    (
        ":feature:capture",
        "feature/capture/src/main/java/com/fieldnotes/capture",
    ),
    (
        ":feature:map",
        "feature/map/src/main/java/com/fieldnotes/map",
    ),
    (
        ":feature:sync",
        "feature/sync/src/main/java/com/fieldnotes/sync",
    ),
    (
        ":feature:notes",
        "feature/notes/src/main/java/com/fieldnotes/notes",
    ),
];
#[rustfmt::skip]
const AN_CLASSES: &[&str] = &[
    "CaptureViewModel", "CaptureFragment", "SyncRepository", "UploadWorker", "NotesDao",
    "MapFragment", "TileCache", "GeoTagger", "DraftStore", "NoteEditorScreen", "PhotoPicker",
    "SettingsViewModel", "AuthInterceptor", "AttachmentUploader", "NotesListAdapter",
];
#[rustfmt::skip]
const AN_TASKS: &[&str] = &[
    "preBuild", "generateDebugBuildConfig", "kaptGenerateStubsDebugKotlin", "kaptDebugKotlin",
    "compileDebugKotlin", "compileDebugJavaWithJavac", "mergeDebugResources",
    "processDebugManifest", "dexBuilderDebug", "mergeDebugJniLibFolders", "bundleDebugAar",
    "generateDebugRFile", "checkDebugAarMetadata", "javaPreCompileDebug",
];

fn g_gradle_build(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 120, 16, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let root = "/home/dev/src/fieldnotes-android";
    let mut failed_task = String::new();
    for i in 0..n {
        let (m, dir) = *r.pick(AN_MODULES);
        let cls = r.s(AN_CLASSES);
        let loc = format!(
            "file://{root}/{dir}/{cls}.kt:{}:{}",
            r.range(20, 480),
            r.range(5, 60)
        );
        match s.role(i) {
            Role::Needle => {
                let a = r.s(&["photo", "draft", "geo", "pending", "upload", "tile"]);
                let b = r.s(&["uri", "tag", "queue", "state", "flow", "cache"]);
                let v = format!("v{}", r.range(2, 9));
                let sym = camel(&[a.as_str(), b.as_str(), v.as_str()]);
                let l = format!("e: {loc} Unresolved reference: {sym}");
                body.push(acc.needle(l, &sym));
                failed_task = format!("{m}:compileDebugKotlin");
            }
            Role::Dist => {
                let l = format!(
                    "w: {loc} '{}: {}' is deprecated. Deprecated in Java",
                    r.s(&[
                        "isConnected",
                        "getColor",
                        "onActivityCreated",
                        "setHasOptionsMenu",
                        "startActivityForResult"
                    ]),
                    r.s(&["Boolean", "Int", "Unit"])
                );
                body.push(acc.dist(l));
            }
            Role::Fill => {
                if r.chance(0.7) {
                    let st = r.s(&[
                        "",
                        "",
                        " UP-TO-DATE",
                        " UP-TO-DATE",
                        " NO-SOURCE",
                        " FROM-CACHE",
                    ]);
                    body.push(format!("> Task {m}:{}{st}", r.s(AN_TASKS)));
                } else {
                    body.push(format!(
                        "w: {loc} Parameter '{}' is never used",
                        r.s(&[
                            "savedInstanceState",
                            "context",
                            "index",
                            "event",
                            "throwable"
                        ])
                    ));
                }
            }
        }
    }
    let head = vec![
        "> Configure project :app".to_string(),
        "WARNING: The option setting 'android.defaults.buildfeatures.buildconfig=true' is deprecated.".into(),
    ];
    let failed = acc.line.is_some();
    let mut foot = Vec::new();
    if failed {
        foot.push(format!("> Task {failed_task} FAILED"));
        foot.push(String::new());
        foot.push("FAILURE: Build failed with an exception.".into());
        foot.push(String::new());
        foot.push("* What went wrong:".into());
        foot.push(format!("Execution failed for task '{failed_task}'."));
        foot.push("> A failure occurred while executing org.jetbrains.kotlin.compilerRunner.GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction".into());
        foot.push("   > Compilation error. See log for more details".into());
        foot.push(String::new());
        foot.push(format!(
            "BUILD FAILED in {}m {}s",
            r.range(1, 4),
            r.range(0, 59)
        ));
    } else {
        foot.push(String::new());
        foot.push(format!(
            "BUILD SUCCESSFUL in {}m {}s",
            r.range(1, 4),
            r.range(0, 59)
        ));
    }
    foot.push(format!(
        "{} actionable tasks: {} executed, {} up-to-date",
        n / 2,
        n / 5,
        n / 2 - n / 5
    ));
    let mut text = assemble(r, Clip::Bash, head, body, foot, clipped);
    if failed {
        text.push_str("\n\n\nCommand exited with code 1");
    }
    let key = acc.key.clone();
    let plant = acc.plant(
        "kotlin_unresolved_reference",
        format!("The build breaks on {key}, which the model refactor renamed; finding every remaining use before switching them to the new property."),
        "grep",
        json!({"pattern": key, "path": "feature", "glob": "*.kt"}),
        "No matches found",
    );
    Big {
        intro: r.s(&[
            "Building the debug variant.",
            "Let me build everything once to see the state.",
        ]),
        tool: "bash",
        args: json!({"command": "./gradlew assembleDebug --console=plain --warning-mode all", "timeout": 900}),
        text,
        is_error: failed,
        plant,
    }
}

#[rustfmt::skip]
const MAVEN: &[&str] = &[
    "androidx.core:core-ktx", "androidx.appcompat:appcompat", "androidx.room:room-runtime",
    "androidx.room:room-ktx", "androidx.work:work-runtime-ktx", "androidx.work:work-runtime",
    "androidx.lifecycle:lifecycle-viewmodel-ktx", "androidx.lifecycle:lifecycle-runtime",
    "androidx.compose.ui:ui", "androidx.compose.material3:material3",
    "androidx.navigation:navigation-compose", "androidx.annotation:annotation",
    "androidx.collection:collection", "com.squareup.okhttp3:okhttp",
    "com.squareup.okhttp3:logging-interceptor", "com.squareup.retrofit2:retrofit",
    "com.squareup.okio:okio", "com.squareup.moshi:moshi",
    "org.jetbrains.kotlinx:kotlinx-coroutines-android",
    "org.jetbrains.kotlinx:kotlinx-coroutines-core", "org.jetbrains.kotlin:kotlin-stdlib",
    "com.google.dagger:hilt-android", "com.google.android.gms:play-services-location",
    "org.maplibre.gl:android-sdk", "io.coil-kt:coil-compose", "com.google.guava:listenablefuture",
];

fn g_gradle_deps(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 68, 16, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut depth = 0usize;
    for i in 0..n {
        depth = match r.below(3) {
            0 => 0,
            1 => (depth + 1).min(5),
            _ => depth.saturating_sub(1),
        };
        let indent = "|    ".repeat(depth);
        let role = s.role(i);
        let g = loop {
            let g = r.s(MAVEN);
            if role == Role::Fill || !g.contains("coroutines") {
                break g;
            }
        };
        let (a, b, c) = (r.range(1, 4), r.range(0, 12), r.range(0, 9));
        let coord = if role == Role::Fill {
            format!("{g}:{a}.{b}.{c}")
        } else {
            format!("{g}:{a}.{b}.{}", r.range(10, 99))
        };
        let line = match role {
            Role::Needle => {
                let l = format!(
                    "{indent}+--- {coord} -> {a}.{}.{}",
                    b + r.range(1, 4),
                    r.range(0, 9)
                );
                body.push(acc.needle(l, &coord));
                continue;
            }
            Role::Dist => {
                let l = format!(
                    "{indent}+--- {coord} -> {a}.{}.{}",
                    b + r.range(1, 4),
                    r.range(0, 9)
                );
                body.push(acc.dist(l));
                continue;
            }
            Role::Fill => match r.below(4) {
                0 => format!(
                    "{indent}+--- {coord} -> {a}.{}.{} (*)",
                    b + 1,
                    r.range(0, 9)
                ),
                1 => format!("{indent}\\--- {coord} (*)"),
                2 => format!("{indent}+--- {coord} (c)"),
                _ => format!("{indent}+--- {coord}"),
            },
        };
        body.push(line);
    }
    let head = vec![
        String::new(),
        "> Task :app:dependencies".to_string(),
        String::new(),
        "------------------------------------------------------------".into(),
        "Project ':app'".into(),
        "------------------------------------------------------------".into(),
        String::new(),
        "releaseRuntimeClasspath - Resolved configuration for runtime for variant: release".into(),
    ];
    let foot = vec![
        String::new(),
        "(c) - A dependency constraint, not a dependency. The dependency affected by the constraint occurs elsewhere in the tree.".to_string(),
        "(*) - Indicates repeated occurrences of a transitive dependency subtree. Gradle expands transitive dependency subtrees only once per project; repeat occurrences only display the root of the subtree, as shown above.".into(),
        String::new(),
        "BUILD SUCCESSFUL in 6s".into(),
        "1 actionable task: 1 executed".into(),
    ];
    let text = assemble(r, Clip::Bash, head, body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "gradle_version_conflict",
        format!("The stale {key} is requested somewhere in the release classpath and Gradle silently upgrades it; asking for the insight to find who requests it."),
        "bash",
        json!({"command": format!("./gradlew :app:dependencyInsight --configuration releaseRuntimeClasspath --dependency {key} --console=plain")}),
        "> Task :app:dependencyInsight\nvariant \"releaseVariantReleaseRuntimePublication\"\n   Selection reasons:\n      - By conflict resolution: between versions\n\nBUILD SUCCESSFUL in 4s",
    );
    Big {
        intro: "Printing the release runtime classpath.".into(),
        tool: "bash",
        args: json!({"command": "./gradlew :app:dependencies --configuration releaseRuntimeClasspath --console=plain"}),
        text,
        is_error: false,
        plant,
    }
}

fn g_logcat(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 112, 20, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let pid = r.range(3000, 9000);
    let day = format!("{:02}-{:02}", r.range(1, 12), r.range(1, 28));
    let mut needle_file = String::new();
    for i in 0..n {
        let ts = format!("{day} {}.{:03}", r.hms(), r.below(1000));
        let tid = pid + r.below(120);
        match s.role(i) {
            Role::Needle => {
                let cls = r.s(AN_CLASSES);
                let (_, dir) = *r.pick(AN_MODULES);
                let pkg = dir
                    .rsplit("java/")
                    .next()
                    .unwrap_or("com/fieldnotes")
                    .replace('/', ".");
                let f = format!("{cls}.kt:{}", r.range(100, 480));
                needle_file = format!("{dir}/{cls}.kt");
                let e = |m: &str| format!("{ts}  {pid}  {pid} E AndroidRuntime: {m}");
                body.push(e("FATAL EXCEPTION: DefaultDispatcher-worker-3"));
                body.push(e(&format!("Process: com.fieldnotes.app, PID: {pid}")));
                body.push(e("java.lang.IllegalStateException: Cannot access database on the main thread since it may potentially lock the UI for a long period of time."));
                body.push(e(
                    "\tat androidx.room.RoomDatabase.assertNotMainThread(RoomDatabase.kt:508)",
                ));
                body.push(e(
                    "\tat androidx.room.RoomDatabase.query(RoomDatabase.kt:567)",
                ));
                body.push(acc.needle(
                    e(&format!(
                        "\tat {pkg}.{cls}.{}({f})",
                        r.s(&["flushPending", "loadDraft", "persist", "resolveTile"])
                    )),
                    &f,
                ));
                body.push(e("\tat kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith(ContinuationImpl.kt:33)"));
                body.push(e(
                    "\tat kotlinx.coroutines.DispatchedTask.run(DispatchedTask.kt:108)",
                ));
                body.push(e("\tat kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.run(CoroutineScheduler.kt:702)"));
            }
            Role::Dist => {
                let cls = r.s(AN_CLASSES);
                let (_, dir) = *r.pick(AN_MODULES);
                let pkg = dir
                    .rsplit("java/")
                    .next()
                    .unwrap_or("com/fieldnotes")
                    .replace('/', ".");
                body.push(acc.dist(format!(
                    "{ts}  {pid}  {tid} W System.err: \tat {pkg}.{cls}.{}({cls}.kt:{})",
                    r.s(&["onResume", "bind", "refresh", "emit", "decode"]),
                    r.range(100, 480)
                )));
            }
            Role::Fill => {
                let l = match r.below(6) {
                    0 => format!(
                        "{ts}  {pid}  {pid} I Choreographer: Skipped {} frames!  The application may be doing too much work on its main thread.",
                        r.range(30, 120)
                    ),
                    1 => format!(
                        "{ts}  {pid}  {tid} D OkHttp  : --> GET https://api.fieldnotes.app/v3/notes?page={}",
                        r.range(1, 40)
                    ),
                    2 => format!(
                        "{ts}  {pid}  {tid} D OkHttp  : <-- 200 https://api.fieldnotes.app/v3/notes ({}ms)",
                        r.range(40, 900)
                    ),
                    3 => format!(
                        "{ts}  {pid}  {tid} I WM-WorkerWrapper: Worker result SUCCESS for Work [ id={}, tags={{ com.fieldnotes.sync.UploadWorker }} ]",
                        r.hex(8)
                    ),
                    4 => format!(
                        "{ts}  {} {} I ActivityManager: Displayed com.fieldnotes.app/.MainActivity: +{}ms",
                        r.range(1000, 1999),
                        r.range(1000, 1999),
                        r.range(300, 2000)
                    ),
                    _ => format!(
                        "{ts}  {pid}  {tid} W System.err: java.net.SocketTimeoutException: timeout"
                    ),
                };
                body.push(l);
            }
        }
    }
    let head = vec!["--------- beginning of main".to_string()];
    let text = assemble(r, Clip::Bash, head, body, Vec::new(), clipped);
    let key = acc.key.clone();
    let (off, file) = (
        key.rsplit(':')
            .next()
            .and_then(|x| x.parse::<usize>().ok())
            .unwrap_or(100),
        needle_file,
    );
    let plant = acc.plant(
        "logcat_app_frame",
        format!("Our own frame in the crash is {key}: a Room query reached from the main dispatcher. Reading the code around that line."),
        "read",
        json!({"path": file, "offset": off.saturating_sub(12), "limit": 30}),
        "        val pending = dao.pendingUploads()\n        withContext(Dispatchers.IO) { uploader.push(pending) }",
    );
    Big {
        intro: "Pulling the device log from the crash.".into(),
        tool: "bash",
        args: json!({"command": "adb logcat -d -v threadtime"}),
        text,
        is_error: false,
        plant,
    }
}

#[rustfmt::skip]
const TEST_VERBS: &[&str] = &[
    "saves", "restores", "emits", "drops", "retries", "merges", "clears", "loads", "tags", "syncs",
];
#[rustfmt::skip]
const TEST_OBJS: &[&str] = &[
    "Draft", "GeoTag", "Photo", "Attachment", "Note", "Tile", "Session", "Upload", "Label",
    "Cursor",
];
#[rustfmt::skip]
const TEST_CONDS: &[&str] = &[
    "WhenOffline", "AfterProcessDeath", "OnRotation", "WithEmptyCache", "OnTimeout", "AfterLogout",
    "WhenQuotaExceeded", "OnConflict", "InBackground", "WithStaleToken",
];

fn g_junit(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 92, 16, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut seen = HashSet::new();
    let mut needle_cls = String::new();
    for i in 0..n {
        let cls = r.s(AN_CLASSES);
        let (_, dir) = *r.pick(AN_MODULES);
        let pkg = dir
            .rsplit("java/")
            .next()
            .unwrap_or("com/fieldnotes")
            .replace('/', ".");
        let mut name = String::new();
        for _ in 0..6 {
            name = format!(
                "{}{}{}{}",
                r.s(TEST_VERBS),
                r.s(TEST_OBJS),
                r.s(TEST_CONDS),
                r.range(1, 9)
            );
            if seen.insert(name.clone()) {
                break;
            }
        }
        match s.role(i) {
            Role::Needle => {
                body.push(acc.needle(format!("{pkg}.{cls}Test > {name} FAILED"), &name));
                body.push(format!(
                    "    org.opentest4j.AssertionFailedError at {cls}Test.kt:{}",
                    r.range(40, 400)
                ));
                needle_cls = format!("{pkg}.{cls}Test");
            }
            Role::Dist => body.push(acc.dist(format!("{pkg}.{cls}Test > {name} PASSED"))),
            Role::Fill => body.push(format!(
                "{pkg}.{cls}Test > {name} {}",
                if r.chance(0.95) { "PASSED" } else { "SKIPPED" }
            )),
        }
    }
    let failed = usize::from(acc.line.is_some());
    let head = vec![
        "> Task :feature:capture:compileDebugUnitTestKotlin".to_string(),
        "> Task :feature:capture:testDebugUnitTest".into(),
        String::new(),
    ];
    let mut foot = vec![
        String::new(),
        format!("{n} tests completed, {failed} failed"),
    ];
    if failed > 0 {
        foot.push(String::new());
        foot.push("> Task :feature:capture:testDebugUnitTest FAILED".into());
        foot.push(String::new());
        foot.push("FAILURE: Build failed with an exception.".into());
        foot.push("* What went wrong:".into());
        foot.push("Execution failed for task ':feature:capture:testDebugUnitTest'.".into());
        foot.push("> There were failing tests. See the report at: file:///home/dev/src/fieldnotes-android/feature/capture/build/reports/tests/testDebugUnitTest/index.html".into());
    }
    let text = assemble(r, Clip::Bash, head, body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "junit_failed_test",
        format!("Only {key} fails; rerunning that single test with stack traces after the fix."),
        "bash",
        json!({"command": format!("./gradlew testDebugUnitTest --tests '{needle_cls}.{key}' --console=plain --stacktrace")}),
        "BUILD SUCCESSFUL in 21s\n38 actionable tasks: 3 executed, 35 up-to-date",
    );
    Big {
        intro: "Running the unit tests.".into(),
        tool: "bash",
        args: json!({"command": "./gradlew testDebugUnitTest --console=plain -PtestLogging=events"}),
        is_error: failed > 0,
        text: if failed > 0 {
            format!("{text}\n\n\nCommand exited with code 1")
        } else {
            text
        },
        plant,
    }
}

fn g_r8_mapping(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 330, 10, 7);
    let mut seen = HashSet::new();
    let mut classes = Vec::new();
    for _ in 0..n {
        let (_, dir) = *r.pick(AN_MODULES);
        let pkg = dir
            .rsplit("java/")
            .next()
            .unwrap_or("com/fieldnotes")
            .replace('/', ".");
        for _ in 0..8 {
            let cls = format!(
                "{pkg}.{}{}",
                r.s(AN_CLASSES),
                r.s(&[
                    "",
                    "_Impl",
                    "$Companion",
                    "Kt",
                    "_Factory",
                    "$onCreate$1",
                    "_HiltModules"
                ])
            );
            if seen.insert(cls.clone()) {
                classes.push(cls);
                break;
            }
        }
    }
    let n = classes.len();
    let ok = |i: usize| {
        let c: &String = &classes[i];
        !c.contains('$') && !classes.iter().any(|o| o != c && o.contains(c.as_str()))
    };
    let s = Slots::among(r, n, z, ok);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut obf_n = r.range(10, 400);
    let mut needle_obf = String::new();
    for (i, cls) in classes.iter().enumerate() {
        let cls = cls.clone();
        obf_n += r.range(1, 5);
        let obf = format!(
            "o.{}{}",
            (b'A' + (obf_n / 26 % 26) as u8) as char,
            (b'a' + (obf_n % 26) as u8) as char
        );
        let l = format!("{cls} -> {obf}:");
        body.push(match s.role(i) {
            Role::Needle => {
                needle_obf = obf.clone();
                let key = cls.split('$').next().unwrap_or(&cls).to_string();
                acc.needle(l, &key)
            }
            Role::Dist => acc.dist(l),
            Role::Fill => l,
        });
        let simple = cls
            .rsplit('.')
            .next()
            .unwrap_or("X")
            .split('$')
            .next()
            .unwrap_or("X")
            .to_string();
        body.push(format!(
            "# {{\"id\":\"sourceFile\",\"fileName\":\"{simple}.kt\"}}"
        ));
        for _ in 0..r.range(2, 6) {
            let (a, b) = (r.range(1, 60), r.range(20, 400));
            body.push(format!(
                "    {a}:{}:{} {}({}):{b}:{} -> {}",
                a + r.range(1, 9),
                r.s(&[
                    "void",
                    "java.lang.Object",
                    "boolean",
                    "int",
                    "kotlinx.coroutines.flow.Flow"
                ]),
                r.s(&[
                    "invoke",
                    "onCreate",
                    "doWork",
                    "emit",
                    "query",
                    "bind",
                    "access$get"
                ]),
                r.s(&[
                    "",
                    "android.os.Bundle",
                    "kotlin.coroutines.Continuation",
                    "java.lang.String,int"
                ]),
                b + r.range(1, 9),
                r.s(&["a", "b", "c", "d", "e"])
            ));
        }
    }
    let head = vec![
        "# compiler: R8".to_string(),
        format!(
            "# compiler_version: 8.{}.{}",
            r.range(1, 3),
            r.range(10, 60)
        ),
        "# min_api: 26".into(),
        format!("# pg_map_id: {}", r.hex(7)),
        "# common_typos_disable".into(),
        "# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}".into(),
    ];
    let text = assemble(r, Clip::Read, head, body, Vec::new(), clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "r8_class_mapping",
        format!("The obfuscated {needle_obf} at the top of the Play Console trace is {key}; retracing the trace to get the real frames."),
        "bash",
        json!({"command": format!("retrace app/build/outputs/mapping/release/mapping.txt crash.txt | grep -n '{key}'")}),
        "3:    at com.fieldnotes.data.db.query(Unknown Source:41)\n4:    at kotlinx.coroutines.DispatchedTask.run(DispatchedTask.kt:108)",
    );
    Big {
        intro: "Reading the R8 mapping from the release build.".into(),
        tool: "read",
        args: json!({"path": "app/build/outputs/mapping/release/mapping.txt"}),
        text,
        is_error: false,
        plant,
    }
}

#[rustfmt::skip]
fn small_android(r: &mut Rng) -> Small {
    match r.below(7) {
        0 => small("Checking the working tree.", "bash", json!({"command": "git status --short"}), " M feature/capture/src/main/java/com/fieldnotes/capture/CaptureViewModel.kt\n M gradle/libs.versions.toml", false,),
        1 => small("Running ktlint.", "bash", json!({"command": "./gradlew ktlintCheck --console=plain -q"}), "feature/capture/src/main/java/com/fieldnotes/capture/CaptureViewModel.kt:61:1 Unexpected blank line(s) before \"}\" (standard:no-blank-line-before-rbrace)\n\n\nCommand exited with code 1", true,),
        2 => small("Looking at the version catalog.", "read", json!({"path": "gradle/libs.versions.toml", "limit": 16}), "[versions]\nagp = \"8.2.2\"\nkotlin = \"1.9.22\"\nroom = \"2.6.1\"\nwork = \"2.9.0\"\nokhttp = \"4.12.0\"\ncompose-bom = \"2024.02.01\"\nhilt = \"2.50\"", false,),
        3 => small("Listing the feature modules.", "ls", json!({"path": "feature"}), "capture/\nmap/\nnotes/\nsync/", false,),
        4 => small("Finding the Room schemas.", "find", json!({"pattern": "*.json", "path": "core/data/schemas"}), "core/data/schemas/com.fieldnotes.data.db.NotesDatabase/11.json\ncore/data/schemas/com.fieldnotes.data.db.NotesDatabase/12.json", false,),
        5 => small("Moving the query off the main thread.", "edit", edit_args("feature/sync/src/main/java/com/fieldnotes/sync/UploadWorker.kt", "val pending = dao.pendingUploads()", "val pending = withContext(Dispatchers.IO) { dao.pendingUploads() }",), &edited("feature/sync/src/main/java/com/fieldnotes/sync/UploadWorker.kt"), false,),
        _ => small("Is a device attached?", "bash", json!({"command": "adb devices"}), "List of devices attached\nemulator-5554\tdevice", false,),
    }
}

// ---------------------------------------------------------------------------------------------
// tessera: a Haskell compiler, cabal
// ---------------------------------------------------------------------------------------------

#[rustfmt::skip]
const HS_MODULES: &[&str] = &[
    "Tessera.Prelude", "Tessera.Parse.Lexer", "Tessera.Parse.Parser", "Tessera.Parse.Layout",
    "Tessera.Syntax.Surface", "Tessera.Rename", "Tessera.Types.Infer", "Tessera.Types.Unify",
    "Tessera.Types.Kinds", "Tessera.Core.Syntax", "Tessera.Core.Subst", "Tessera.Core.Occur",
    "Tessera.Core.Simplify", "Tessera.Core.Float", "Tessera.Core.Inline", "Tessera.Core.CaseOfCase",
    "Tessera.Core.Lint", "Tessera.Core.Pretty", "Tessera.Stg.FromCore", "Tessera.Codegen.Wasm",
    "Tessera.Driver", "Tessera.Driver.Options",
];
const HS_WARN: &[(&str, &str, &str)] = &[
    (
        "GHC-40910",
        "-Wunused-top-binds",
        "Defined but not used: ‘{}’",
    ),
    (
        "GHC-38417",
        "-Wmissing-signatures",
        "Top-level binding with no type signature: {} :: CoreExpr -> CoreExpr",
    ),
    (
        "GHC-62161",
        "-Wincomplete-patterns",
        "Pattern match(es) are non-exhaustive\n    In a case alternative: Patterns of type ‘Tick’ not matched: {}",
    ),
    (
        "GHC-66111",
        "-Wunused-imports",
        "The import of ‘Data.List’ is redundant\n      except perhaps to import instances from ‘Data.List’",
    ),
    (
        "GHC-63394",
        "-Wx-partial",
        "In the use of ‘head’\n    (imported from Prelude, but defined in GHC.List):\n    \"This is a partial function, it throws an error on empty lists.\"",
    ),
];
#[rustfmt::skip]
const HS_FUNS: &[&str] = &[
    "simplExpr", "simplAlt", "occurBind", "floatOut", "inlineSat", "substBndr", "mkLet",
    "etaExpand", "caseOfKnown", "lintAlt", "freshName", "zonkTy",
];

fn hs_path(m: &str) -> String {
    format!("src/{}.hs", m.replace('.', "/"))
}

fn g_cabal_build(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 330, 10, 6);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let total = r.range(60, 140);
    let ver = format!("0.{}.{}", r.range(2, 9), r.range(0, 9));
    let mut idx = 0;
    let mut err_path = String::new();
    for i in 0..n {
        let m = r.s(HS_MODULES);
        let p = hs_path(&m);
        let (ln, col) = (r.range(20, 900), r.range(1, 40));
        let loc = format!("{p}:{ln}:{col}");
        if r.chance(0.45) && idx < total {
            idx += 1;
            body.push(format!("[{idx:>3} of {total}] Compiling {m:<26} ( {p}, dist-newstyle/build/x86_64-linux/ghc-9.6.4/tessera-{ver}/build/{}.o )", m.replace('.', "/")));
        }
        let f = r.s(HS_FUNS);
        match s.role(i) {
            Role::Needle => {
                body.push(acc.needle(format!("{loc}: error: [GHC-83865]"), &loc));
                body.push("    • Couldn't match expected type ‘CoreExpr’".into());
                body.push("                  with actual type ‘Maybe CoreExpr’".into());
                body.push(format!(
                    "    • In the first argument of ‘{f}’, namely ‘rhs'’"
                ));
                body.push(format!("      In the expression: {f} env rhs'"));
                body.push("    |".into());
                body.push(format!("{ln:<4}|   {f} env rhs'"));
                body.push("    |   ^^^^^^^^^^^^^^^^".into());
                err_path = p;
            }
            role => {
                let (code, flag, msg) = *r.pick(HS_WARN);
                let h = format!("{loc}: warning: [{code}] [{flag}]");
                body.push(if role == Role::Dist { acc.dist(h) } else { h });
                body.push(format!("    {}", msg.replace("{}", &f)));
                body.push("    |".into());
                body.push(format!("{ln:<4}| {f} = go",));
                body.push("    | ^^^^^^^^".into());
            }
        }
    }
    let head = vec![
        "Resolving dependencies...".to_string(),
        "Build profile: -w ghc-9.6.4 -O1".into(),
        "In order, the following will be built (use -v for more details):".into(),
        format!(" - tessera-{ver} (lib) (file src/Tessera/Core/Simplify.hs changed)"),
        format!("Preprocessing library for tessera-{ver}.."),
        format!("Building library for tessera-{ver}.."),
    ];
    let failed = acc.line.is_some();
    let foot = if failed {
        vec![format!("Error: cabal: Failed to build tessera-{ver}.")]
    } else {
        Vec::new()
    };
    let mut text = assemble(r, Clip::Bash, head, body, foot, clipped);
    if failed {
        text.push_str("\n\n\nCommand exited with code 1");
    }
    let key = acc.key.clone();
    let off = key
        .split(':')
        .nth(1)
        .and_then(|x| x.parse::<usize>().ok())
        .unwrap_or(100);
    let plant = acc.plant(
        "ghc_type_error",
        format!("The build stops at {key}: the helper now returns Maybe CoreExpr after my change, so the caller has to handle Nothing. Reading that spot."),
        "read",
        json!({"path": err_path, "offset": off.saturating_sub(10), "limit": 25}),
        "  simplAlt env (Alt con bs rhs) = do\n    rhs' <- simplExpr env rhs\n    pure (Alt con bs rhs')",
    );
    Big {
        intro: r.s(&["Building the library.", "Let me rebuild after the change."]),
        tool: "bash",
        args: json!({"command": "cabal build lib:tessera 2>&1"}),
        text,
        is_error: failed,
        plant,
    }
}

fn g_golden(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 64, 16, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let groups = [
        "simplify",
        "float",
        "inline",
        "case_of_case",
        "occur",
        "lint",
    ];
    let stems = [
        "case_of_known",
        "beta_saturated",
        "let_float",
        "eta_expand",
        "dead_binder",
        "join_point",
        "rec_group",
        "strict_let",
    ];
    let mut g = "simplify";
    let mut seen = HashSet::new();
    for i in 0..n {
        if i == 0 || r.chance(0.07) {
            g = *r.pick(&groups);
            body.push(format!("  {g}"));
        }
        let mut path = String::new();
        for _ in 0..8 {
            path = format!("golden/{g}/{}_{:03}.core", r.pick(&stems), r.range(1, 999));
            if seen.insert(path.clone()) {
                break;
            }
        }
        let pad = 52usize.saturating_sub(path.len());
        match s.role(i) {
            Role::Needle => {
                let l = format!(
                    "    {path}:{} FAIL ({}.{:02}s)",
                    " ".repeat(pad),
                    r.range(0, 1),
                    r.below(100)
                );
                body.push(acc.needle(l, &path));
                body.push(format!(
                    "      Files differ: golden output has {} lines, actual has {}",
                    r.range(20, 80),
                    r.range(20, 80)
                ));
                body.push(
                    "      Use --accept or increase --size-cutoff to see full output.".into(),
                );
            }
            role => {
                let l = format!(
                    "    {path}:{} OK ({}.{:02}s)",
                    " ".repeat(pad),
                    r.range(0, 1),
                    r.below(100)
                );
                body.push(if role == Role::Dist { acc.dist(l) } else { l });
            }
        }
    }
    let failed = usize::from(acc.line.is_some());
    let head = vec![
        "Running 1 test suites...".to_string(),
        "Test suite golden: RUNNING...".into(),
        "golden".into(),
    ];
    let foot = vec![
        String::new(),
        if failed > 0 {
            format!(
                "1 out of {n} tests failed ({}.{:02}s)",
                r.range(2, 30),
                r.below(100)
            )
        } else {
            format!(
                "All {n} tests passed ({}.{:02}s)",
                r.range(2, 30),
                r.below(100)
            )
        },
        format!(
            "Test suite golden: {}",
            if failed > 0 { "FAIL" } else { "PASS" }
        ),
    ];
    let text = assemble(r, Clip::Bash, head, body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "golden_test_failure",
        format!("Only {key} differs, and the new output is the better one (the redundant case is gone); accepting that single golden file."),
        "bash",
        json!({"command": format!("cabal test golden --test-options='-p \"$0 == \\\"{key}\\\"\" --accept'")}),
        "Test suite golden: PASS\n1 of 1 test suites (1 of 1 test cases) passed.",
    );
    Big {
        intro: "Running the golden tests for the Core passes.".into(),
        tool: "bash",
        args: json!({"command": "cabal test golden --test-show-details=direct"}),
        is_error: failed > 0,
        text: if failed > 0 {
            format!("{text}\n\n\nCommand exited with code 1")
        } else {
            text
        },
        plant,
    }
}

#[rustfmt::skip]
const HACKAGE: &[&str] = &[
    "Cabal", "OneTuple", "QuickCheck", "StateVar", "aeson", "ansi-terminal", "array", "assoc",
    "async", "attoparsec", "base", "base-orphans", "bifunctors", "binary", "bytestring",
    "call-stack", "case-insensitive", "colour", "comonad", "containers", "contravariant",
    "data-fix", "deepseq", "directory", "distributive", "dlist", "exceptions", "filepath",
    "generically", "ghc-prim", "hashable", "indexed-traversable", "integer-logarithms",
    "megaparsec", "mtl", "optparse-applicative", "parser-combinators", "prettyprinter", "primitive",
    "process", "random", "recursion-schemes", "scientific", "semialigned", "semigroupoids", "split",
    "splitmix", "stm", "strict", "tagged", "tasty", "tasty-golden", "tasty-hunit",
    "template-haskell", "text", "th-abstraction", "these", "time", "transformers", "unix",
    "unordered-containers", "uuid-types", "vector", "witherable", "wasm-binary", "lens",
    "microlens", "fgl", "graphviz", "haskeline", "zlib", "xxhash",
];

fn g_freeze(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let mut pk: Vec<&str> = HACKAGE.to_vec();
    let (n, clipped) = plan_n(target, 36, 12, 1);
    let n = n.min(pk.len());
    r.shuffle(&mut pk);
    let mut pk: Vec<&str> = pk[..n].to_vec();
    pk.sort_by_key(|p| p.to_lowercase());
    let ok = |i: usize| {
        let p = pk[i];
        p.len() >= 4 && !pk.iter().any(|q| *q != p && q.starts_with(p))
    };
    let s = Slots::among(r, n, z, ok);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut needle = (String::new(), String::new());
    for (i, p) in pk.iter().enumerate() {
        let ver = format!(
            "{}.{}.{}.{}",
            r.range(0, 3),
            r.range(0, 20),
            r.range(0, 9),
            r.range(0, 3)
        );
        let first = if i == 0 {
            "constraints: "
        } else {
            "             "
        };
        let l = format!("{first}any.{p} =={ver},");
        body.push(match s.role(i) {
            Role::Needle => {
                needle = (
                    format!("any.{p} =={ver}"),
                    format!(
                        "any.{p} =={}.{}",
                        &ver[..ver.rfind('.').unwrap_or(0)],
                        r.range(4, 9)
                    ),
                );
                acc.needle(l, &format!("any.{p}"))
            }
            Role::Dist => acc.dist(l),
            Role::Fill => l,
        });
    }
    body.push(format!(
        "index-state: hackage.haskell.org 2024-{:02}-{:02}T0{}:{:02}:{:02}Z",
        r.range(1, 12),
        r.range(1, 28),
        r.below(10),
        r.below(60),
        r.below(60)
    ));
    let head = vec!["active-repositories: hackage.haskell.org:merge".to_string()];
    let text = assemble(r, Clip::Read, head, body, Vec::new(), clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "cabal_freeze_pin",
        format!("The freeze file pins {key} below the release that fixes the bug we hit; bumping just that constraint."),
        "edit",
        edit_args("cabal.project.freeze", &needle.0, &needle.1),
        &edited("cabal.project.freeze"),
    );
    Big {
        intro: "Checking the frozen constraints.".into(),
        tool: "read",
        args: json!({"path": "cabal.project.freeze"}),
        text,
        is_error: false,
        plant,
    }
}

#[rustfmt::skip]
const GHC_PHASES: &[&str] = &[
    "Parser", "Renamer/typechecker", "Desugar", "Simplifier", "Specialise",
    "Float out(FOS {Lam = Just 0, Consts = True, OverSatApps = False})", "Float inwards",
    "Demand analysis", "Worker Wrapper binds", "CoreTidy", "CorePrep", "CodeGen",
];

fn g_timings(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 92, 16, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut needle_mod = String::new();
    for i in 0..n {
        let ph = r.s(GHC_PHASES);
        let m = r.s(HS_MODULES);
        let alloc = r.range(10_000_000, 990_000_000);
        match s.role(i) {
            Role::Needle => {
                let t = format!("{}.{:03}", r.range(4_000, 9_800), r.below(1000));
                needle_mod = m.clone();
                body.push(acc.needle(
                    format!(
                        "Simplifier [{m}]: alloc={}{:03} time={t}",
                        alloc,
                        r.below(1000)
                    ),
                    &t,
                ));
            }
            Role::Dist => {
                let t = format!("{}.{:03}", r.range(1_000, 1_900), r.below(1000));
                body.push(acc.dist(format!("{ph} [{m}]: alloc={alloc} time={t}")));
            }
            Role::Fill => body.push(format!(
                "{ph} [{m}]: alloc={alloc} time={}.{:03}",
                r.range(0, 240),
                r.below(1000)
            )),
        }
    }
    let text = assemble(r, Clip::Bash, Vec::new(), body, Vec::new(), clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "ghc_phase_timing_outlier",
        format!("One simplifier run dominates: {key} ms on {needle_mod}, no other phase of any module takes two seconds. Dumping simplifier stats for that module."),
        "bash",
        json!({"command": format!("cabal build -v1 --ghc-options='-ddump-simpl-stats -ddump-to-file' 2>&1 | tail -n 5  # {key} ms")}),
        "Up to date",
    );
    Big {
        intro: "Collecting per-phase timings from GHC.".into(),
        tool: "bash",
        args: json!({"command": "cabal build --ghc-options=-ddump-timings 2>&1 | grep -E 'alloc=[0-9]+ time='"}),
        text,
        is_error: false,
        plant,
    }
}

fn g_hs_grep(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, _) = plan_n(target, 84, 12, 1);
    let n = n.min(100);
    let f = r.s(&["mkLet", "substExpr", "freshName", "lookupVar"]);
    let mut rows: Vec<(String, usize)> = (0..n)
        .map(|_| (hs_path(&r.s(HS_MODULES)), r.range(100, 990)))
        .collect();
    rows.sort();
    rows.dedup();
    let n = rows.len();
    let clipped = n >= 96 && target / 84 > 100;
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut needle_path = String::new();
    let mut needle_code = String::new();
    for (i, (p, ln)) in rows.iter().enumerate() {
        let code = format!(
            "{}{f} {} {}",
            " ".repeat(r.range(2, 10)),
            r.s(&["env", "b", "subst", "scope", "(tyOf b)"]),
            r.s(&["rhs", "body", "e'", "(Var v)", "alts"])
        );
        let loc = format!("{p}:{ln}");
        let l = format!("{loc}: {code}");
        body.push(match s.role(i) {
            Role::Needle => {
                needle_path = p.clone();
                needle_code = code.trim().to_string();
                acc.needle(l, &loc)
            }
            Role::Dist => acc.dist(l),
            Role::Fill => l,
        });
    }
    let text = assemble(r, Clip::Grep, Vec::new(), body, Vec::new(), clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "grep_call_site",
        format!("The call that still passes the unsubstituted binder is {key}; changing it to go through the substitution first."),
        "edit",
        edit_args(
            &needle_path,
            &needle_code,
            &needle_code.replacen(' ', " (substBndr subst) ", 1),
        ),
        &edited(&needle_path),
    );
    Big {
        intro: "Finding every call site.".into(),
        tool: "grep",
        args: json!({"pattern": format!("\\b{f}\\b"), "path": "src"}),
        text,
        is_error: false,
        plant,
    }
}

#[rustfmt::skip]
fn small_haskell(r: &mut Rng) -> Small {
    match r.below(7) {
        0 => small("Checking the working tree.", "bash", json!({"command": "git status --short"}), " M src/Tessera/Core/Simplify.hs\n M src/Tessera/Core/Subst.hs", false,),
        1 => small("Quick hlint on the pass.", "bash", json!({"command": "hlint src/Tessera/Core/Simplify.hs"}), "src/Tessera/Core/Simplify.hs:301:5-31: Suggestion: Use <$>\nFound:\n  fmap Just go\nPerhaps:\n  Just <$> go\n\n1 hint\n\n\nCommand exited with code 1", true,),
        2 => small("Listing the Core modules.", "ls", json!({"path": "src/Tessera/Core"}), "CaseOfCase.hs\nFloat.hs\nInline.hs\nLint.hs\nOccur.hs\nPretty.hs\nSimplify.hs\nSubst.hs\nSyntax.hs", false,),
        3 => small("Finding the golden inputs.", "find", json!({"pattern": "*.tsr", "path": "golden/simplify/inputs"}), "golden/simplify/inputs/sharing.tsr\ngolden/simplify/inputs/records.tsr\ngolden/simplify/inputs/letrec.tsr", false,),
        4 => small("Handling the Nothing case.", "edit", edit_args("src/Tessera/Core/Simplify.hs", "    rhs' <- simplExpr env rhs", "    rhs' <- fromMaybe rhs <$> simplExprMaybe env rhs",), &edited("src/Tessera/Core/Simplify.hs"), false,),
        5 => small("Which GHC is active?", "bash", json!({"command": "ghc --numeric-version && cabal --numeric-version"}), "9.6.4\n3.10.2.1", false,),
        _ => small("Reading the project file.", "read", json!({"path": "cabal.project"}), "packages: .\n\ntests: True\nbenchmarks: False\n\npackage tessera\n  ghc-options: -Wall -Wcompat", false,),
    }
}

// ---------------------------------------------------------------------------------------------
// lakeside-dw: Airflow + dbt
// ---------------------------------------------------------------------------------------------

const DBT_DIRS: &[(&str, &str)] = &[
    ("staging/shop", "stg_shop"),
    ("staging/payments", "stg_payments"),
    ("staging/crm", "stg_crm"),
    ("intermediate/finance", "int_finance"),
    ("marts/finance", "fct"),
    ("marts/customers", "dim"),
    ("marts/ops", "fct"),
];
#[rustfmt::skip]
const DBT_NOUNS: &[&str] = &[
    "orders", "refunds", "payments", "customers", "sessions", "invoices", "shipments", "payouts",
    "disputes", "subscriptions",
];
#[rustfmt::skip]
const DBT_SUFFIX: &[&str] = &[
    "daily", "weekly", "enriched", "deduped", "snapshot", "rollup", "current", "history",
];

fn dbt_model(r: &mut Rng) -> (String, String) {
    let (dir, pre) = *r.pick(DBT_DIRS);
    let sep = if pre.starts_with("stg") { "__" } else { "_" };
    let name = format!("{pre}{sep}{}_{}", r.s(DBT_NOUNS), r.s(DBT_SUFFIX));
    (dir.to_string(), name)
}

/// A model name not drawn before in this output (suffixed `_vN` only when the names run out).
fn unique_model(r: &mut Rng, seen: &mut HashSet<String>) -> (String, String) {
    for _ in 0..30 {
        let (dir, name) = dbt_model(r);
        if seen.insert(name.clone()) {
            return (dir, name);
        }
    }
    loop {
        let (dir, name) = dbt_model(r);
        let name = format!("{name}_v{}", r.range(10, 99));
        if seen.insert(name.clone()) {
            return (dir, name);
        }
    }
}

fn g_dbt_run(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 230, 12, 2);
    let mut acc = Acc::default();
    let planting = z.is_some();
    let err_at = if planting {
        r.range(n / 3, n - 1)
    } else {
        usize::MAX
    };
    let skips: Vec<usize> = if planting {
        r.distinct(n, 5)
            .into_iter()
            .filter(|&i| i != err_at)
            .take(r.range(2, 4))
            .collect()
    } else {
        Vec::new()
    };
    let mut body = Vec::new();
    let mut seen = HashSet::new();
    let mut err_model = (String::new(), String::new());
    let t0 = r.hms();
    for i in 0..n {
        let (dir, name) = unique_model(r, &mut seen);
        let t = r.hms();
        let mat = if dir.starts_with("staging") {
            "sql view model"
        } else {
            *r.pick(&["sql table model", "sql incremental model"])
        };
        let schema = dir.split('/').next().unwrap_or("staging");
        let rel = format!("{schema}.{name}");
        let dots =
            |s: &str, w: usize| format!("{s} {}", ".".repeat(w.saturating_sub(s.len()).max(3)));
        if skips.contains(&i) {
            body.push(acc.dist(format!(
                "{t}  {} of {n} SKIP relation {rel} due to ephemeral model error {}",
                i + 1,
                ".".repeat(r.range(3, 20)) + " [SKIP]"
            )));
            continue;
        }
        body.push(format!(
            "{t}  {}",
            dots(&format!("{} of {n} START {mat} {rel}", i + 1), 80) + " [RUN]"
        ));
        if i == err_at {
            body.push(format!(
                "{t}  {}",
                dots(&format!("{} of {n} ERROR creating {mat} {rel}", i + 1), 80)
                    + &format!(" [ERROR in {}.{:02}s]", r.range(0, 9), r.below(100))
            ));
            err_model = (dir.clone(), name.clone());
        } else {
            let what = if mat == "sql view model" {
                "CREATE VIEW".to_string()
            } else {
                format!("SELECT {}", r.range(100, 9_000_000))
            };
            body.push(format!(
                "{t}  {}",
                dots(&format!("{} of {n} OK created {mat} {rel}", i + 1), 80)
                    + &format!(" [{what} in {}.{:02}s]", r.range(0, 90), r.below(100))
            ));
        }
    }
    let tf = r.hms();
    let mut foot = vec![
        format!("{tf}  "),
        format!(
            "{tf}  Finished running {n} models in 0 hours {} minutes and {}.{:02} seconds ({}.{:02}s).",
            r.range(2, 40),
            r.range(0, 59),
            r.below(100),
            r.range(100, 2400),
            r.below(100)
        ),
    ];
    if planting {
        let col = format!(
            "{}_{}_v{}",
            r.s(&["refund", "payment", "order", "dispute", "payout"]),
            r.s(&[
                "reason_code",
                "channel_id",
                "fx_rate",
                "batch_ref",
                "settled_at"
            ]),
            r.range(2, 9)
        );
        foot.push(format!("{tf}  "));
        foot.push(format!("{tf}  Completed with 1 error and 0 warnings:"));
        foot.push(format!("{tf}  "));
        foot.push(format!(
            "{tf}    Database Error in model {} (models/{}/{}.sql)",
            err_model.1, err_model.0, err_model.1
        ));
        foot.push(acc.needle(format!("{tf}    column \"{col}\" does not exist"), &col));
        foot.push(format!(
            "{tf}    compiled Code at target/run/lakeside/models/{}/{}.sql",
            err_model.0, err_model.1
        ));
        foot.push(format!("{tf}  "));
        foot.push(format!(
            "{tf}  Done. PASS={} WARN=0 ERROR=1 SKIP={} TOTAL={n}",
            n - 1 - acc.dists.len(),
            acc.dists.len()
        ));
    } else {
        foot.push(format!("{tf}  "));
        foot.push(format!("{tf}  Completed successfully"));
        foot.push(format!("{tf}  "));
        foot.push(format!(
            "{tf}  Done. PASS={n} WARN=0 ERROR=0 SKIP=0 TOTAL={n}"
        ));
    }
    let head = vec![
        format!("{t0}  Running with dbt=1.7.{}", r.range(3, 9)),
        format!("{t0}  Registered adapter: postgres=1.7.{}", r.range(3, 9)),
        format!(
            "{t0}  Found {} models, {} tests, {} sources, 0 exposures, 0 metrics, 512 macros, 0 groups, 0 semantic models",
            n + r.range(10, 90),
            r.range(200, 700),
            r.range(10, 60)
        ),
        format!("{t0}  "),
        format!("{t0}  Concurrency: 8 threads (target='dev')"),
        format!("{t0}  "),
    ];
    let text = assemble(r, Clip::Bash, head, body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "dbt_database_error",
        format!("{} fails because column {key} doesn't exist upstream yet; finding which staging model should expose it.", err_model.1),
        "grep",
        json!({"pattern": key, "path": "models"}),
        "No matches found",
    );
    Big {
        intro: "Running the finance models and their parents.".into(),
        tool: "bash",
        args: json!({"command": "dbt run --select +marts --target dev"}),
        is_error: planting,
        text: if planting {
            format!("{text}\n\n\nCommand exited with code 1")
        } else {
            text
        },
        plant,
    }
}

fn g_airflow_log(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 175, 14, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let src = r.s(&["payments", "orders", "refunds", "sessions"]);
    let (y, mo, d) = (2024, r.range(1, 12), r.range(1, 27));
    let date = format!("{y}-{mo:02}-{:02}", d + 1);
    let mut h = 2;
    let mut mi = 0;
    for i in 0..n {
        mi += r.below(2);
        if mi >= 60 {
            mi = 0;
            h += 1;
        }
        let ts = format!("[{date}, {:02}:{mi:02}:{:02} UTC]", h.min(9), r.below(60));
        let part = format!(
            "s3://lakeside.raw/{src}/{y}/{mo:02}/{d:02}/{src}_{y}{mo:02}{d:02}_{i:04}_{}.parquet",
            r.hex(8)
        );
        match s.role(i) {
            Role::Needle => {
                let l = format!(
                    "{ts} {{parquet_loader.py:211}} WARNING - Skipping {part}: schema mismatch on column amount (int64 != decimal(18,2))"
                );
                body.push(acc.needle(l, &part));
            }
            Role::Dist => body.push(acc.dist(format!(
                "{ts} {{parquet_loader.py:188}} INFO - Copied {part} ({}.{} MiB)",
                r.range(1, 90),
                r.below(10)
            ))),
            Role::Fill => {
                let l = match r.below(5) {
                    0..=2 => format!(
                        "{ts} {{parquet_loader.py:188}} INFO - Copied {part} ({}.{} MiB)",
                        r.range(1, 90),
                        r.below(10)
                    ),
                    3 => format!(
                        "{ts} {{base.py:83}} INFO - Using connection ID 'warehouse' for task execution."
                    ),
                    _ => format!(
                        "{ts} {{parquet_loader.py:240}} INFO - staged {} rows into raw.{src}_staging",
                        r.range(10_000, 900_000)
                    ),
                };
                body.push(l);
            }
        }
    }
    let head = vec![
        format!(
            "[{date}, 02:00:04 UTC] {{local_task_job_runner.py:120}} ▶ Pre task execution logs"
        ),
        format!(
            "[{date}, 02:00:04 UTC] {{taskinstance.py:1957}} INFO - Dependencies all met for dep_context=non-requeueable deps ti=<TaskInstance: lakeside_nightly.load_{src} scheduled__{date}T02:00:00+00:00 [queued]>"
        ),
        format!("[{date}, 02:00:05 UTC] {{taskinstance.py:2171}} INFO - Starting attempt 2 of 3"),
    ];
    let foot = vec![
        format!(
            "[{date}, 0{}:{:02}:{:02} UTC] {{taskinstance.py:1138}} INFO - Marking task as SUCCESS. dag_id=lakeside_nightly, task_id=load_{src}",
            h.min(9),
            mi % 60,
            r.below(60)
        ),
        format!(
            "[{date}, 0{}:{:02}:{:02} UTC] {{local_task_job_runner.py:240}} INFO - Task exited with return code 0",
            h.min(9),
            mi % 60,
            r.below(60)
        ),
    ];
    let text = assemble(r, Clip::Read, head, body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "airflow_schema_skip",
        format!("The task \"succeeded\" but skipped {key}, so that night's totals are short. Copying the file down to inspect its schema."),
        "bash",
        json!({"command": format!("aws s3 cp {key} /tmp/suspect.parquet && python -c \"import pyarrow.parquet as pq; print(pq.read_schema('/tmp/suspect.parquet'))\"")}),
        "download: to /tmp/suspect.parquet\nid: string\namount: int64\ncurrency: string",
    );
    Big {
        intro: "Reading the task log of the last load attempt.".into(),
        tool: "read",
        args: json!({"path": format!("logs/dag_id=lakeside_nightly/run_id=scheduled__{date}T02:00:00+00:00/task_id=load_{src}/attempt=2.log")}),
        text,
        is_error: false,
        plant,
    }
}

fn g_sql_rows(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 80, 12, 1);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let (mo, d0) = (r.range(1, 12), r.range(1, 20));
    let mut minute = 0usize;
    for i in 0..n {
        minute += r.range(1, 9);
        let (day, hh, mm) = (d0 + minute / 600 % 8, minute / 60 % 10, minute % 60);
        let src = r.s(&["shop", "payments", "crm", "refunds", "ads"]);
        let id = format!("lb_2024{mo:02}{day:02}_{}", r.hex(6));
        let l = format!(
            " {id:<20} | {src:<9} | {:>11} | 2024-{mo:02}-{day:02} 0{hh}:{mm:02}:{:02}",
            r.range(1_000, 4_000_000),
            r.below(60)
        );
        body.push(match s.role(i) {
            Role::Needle => acc.needle(l, &id),
            Role::Dist => acc.dist(l),
            Role::Fill => l,
        });
    }
    let head = vec![
        "       batch_id       |  source   | rows_loaded |      loaded_at".to_string(),
        "----------------------+-----------+-------------+---------------------".into(),
    ];
    let foot = vec![format!("({n} rows)")];
    let text = assemble(r, Clip::Custom, head, body, foot, clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "warehouse_load_batch",
        format!("Batch {key} is the one loaded from the partial export; deleting its rows so the next run reloads it."),
        "sql_query",
        json!({"database": "warehouse", "sql": format!("DELETE FROM ops.load_batches WHERE batch_id = '{key}'")}),
        "DELETE 1",
    );
    Big {
        intro: "Listing the recent load batches.".into(),
        tool: "sql_query",
        args: json!({"database": "warehouse", "sql": "SELECT batch_id, source, rows_loaded, loaded_at FROM ops.load_batches WHERE loaded_at > now() - interval '30 days' ORDER BY loaded_at"}),
        text,
        is_error: false,
        plant,
    }
}

#[rustfmt::skip]
const PYPI: &[&str] = &[
    "aiohttp", "aiosignal", "alembic", "apache-airflow", "apache-airflow-providers-amazon",
    "apache-airflow-providers-postgres", "apache-airflow-providers-http", "argcomplete", "attrs",
    "boto3", "botocore", "cachelib", "certifi", "cffi", "charset-normalizer", "click", "croniter",
    "cryptography", "dbt-core", "dbt-postgres", "dbt-extractor", "deprecated", "dill", "flask",
    "flask-appbuilder", "frozenlist", "google-re2", "gunicorn", "httpx", "idna",
    "importlib-metadata", "jinja2", "jmespath", "jsonschema", "lazy-object-proxy", "markupsafe",
    "marshmallow", "multidict", "numpy", "packaging", "pandas", "pathspec", "pendulum", "pluggy",
    "psycopg2-binary", "pyarrow", "pydantic", "pygments", "pyjwt", "python-dateutil", "pytz",
    "pyyaml", "requests", "rich", "s3transfer", "setproctitle", "sqlalchemy", "sqlfluff",
    "sqlparse", "tabulate", "tenacity", "termcolor", "typing-extensions", "tzdata", "urllib3",
    "werkzeug", "wrapt", "yarl", "zipp",
];

fn g_pip_lock(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let mut pk: Vec<&str> = PYPI.to_vec();
    r.shuffle(&mut pk);
    let (n, clipped) = plan_n(target, 660, 8, 9);
    let n = n.min(pk.len());
    let mut pk: Vec<&str> = pk[..n].to_vec();
    pk.sort();
    // The needle and distractors are hash lines; slots are chosen over packages.
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut needle_pkg = String::new();
    for (i, p) in pk.iter().enumerate() {
        let ver = format!("{}.{}.{}", r.range(0, 12), r.range(0, 30), r.range(0, 9));
        body.push(format!("{p}=={ver} \\"));
        let k = r.range(2, 8);
        let pick = r.below(k);
        for j in 0..k {
            let h = format!("sha256:{}", r.hex(64));
            let end = if j + 1 == k { "" } else { " \\" };
            let l = format!("    --hash={h}{end}");
            body.push(match (s.role(i), j == pick) {
                (Role::Needle, true) => {
                    needle_pkg = format!("{p}=={ver}");
                    acc.needle(l, &h)
                }
                (Role::Dist, true) => acc.dist(l),
                _ => l,
            });
        }
        body.push("    # via".into());
        body.push(format!("    #   {}", r.s(PYPI)));
    }
    let head = vec![
        "#".to_string(),
        "# This file is autogenerated by pip-compile with Python 3.11".into(),
        "# by the following command:".into(),
        "#".into(),
        "#    pip-compile --generate-hashes --output-file=requirements/airflow.lock.txt requirements/airflow.in".into(),
        "#".into(),
    ];
    let text = assemble(r, Clip::Read, head, body, Vec::new(), clipped);
    let key = acc.key.clone();
    let plant = acc.plant(
        "pip_wheel_hash",
        format!("The worker image fails hash checking on {needle_pkg}: the wheel our mirror serves must match {key}. Checking the mirror's wheel against it."),
        "bash",
        json!({"command": format!("pip download --no-deps {needle_pkg} -d /tmp/w -i https://pypi.internal/simple && sha256sum /tmp/w/* | grep -c {}", key.get(7..).unwrap_or(""))}),
        "0\n\n\nCommand exited with code 1",
    );
    Big {
        intro: "Reading the locked requirements of the worker image.".into(),
        tool: "read",
        args: json!({"path": "requirements/airflow.lock.txt"}),
        text,
        is_error: false,
        plant,
    }
}

fn g_sqlfluff(r: &mut Rng, z: Option<Zone>, target: usize) -> Big {
    let (n, clipped) = plan_n(target, 64, 12, 3);
    let s = Slots::new(r, n, z);
    let mut acc = Acc::default();
    let mut body = Vec::new();
    let mut seen = HashSet::new();
    for i in 0..n {
        let (dir, name) = unique_model(r, &mut seen);
        let p = format!("models/{dir}/{name}.sql");
        match s.role(i) {
            Role::Needle => {
                body.push(acc.needle(format!("== [{p}] FAIL"), &p));
                body.push(format!("L: {:>3} | P: {:>3} | RF02 | Unqualified reference 'refund_amount' found in select with", r.range(10, 90), r.range(3, 30)));
                body.push("                       | more than one referenced table/view. [references.qualification]".into());
                body.push(format!("L: {:>3} | P: {:>3} | AM04 | Query produces an unknown number of result columns.", r.range(1, 9), r.range(1, 9)));
                body.push("                       | [ambiguous.column_count]".into());
            }
            Role::Dist => body.push(acc.dist(format!("== [{p}] PASS"))),
            Role::Fill => body.push(format!("== [{p}] PASS")),
        }
    }
    let failed = acc.line.is_some();
    let foot = vec![if failed {
        "All Finished!".to_string()
    } else {
        "All Finished 📜 🎉!".to_string()
    }];
    let mut text = assemble(r, Clip::Bash, Vec::new(), body, foot, clipped);
    if failed {
        text.push_str("\n\n\nCommand exited with code 1");
    }
    let key = acc.key.clone();
    let plant = acc.plant(
        "sqlfluff_failing_model",
        format!("The lint gate fails on one model, {key}: an unqualified column in a join. Letting sqlfluff fix what it can there."),
        "bash",
        json!({"command": format!("sqlfluff fix --force {key}")}),
        "==== finding fixable violations ====\n== [fixed] 1 fixable linting violations found\nAre you sure you wish to attempt to fix these? [Y/n] ...\nAttempting fixes...\nPersisting Changes...\nDone. Please check your files to confirm.",
    );
    Big {
        intro: "Linting the models like CI does.".into(),
        tool: "bash",
        args: json!({"command": "sqlfluff lint models --dialect postgres -v --nofail 2>/dev/null | grep -E '^(==|L:|  )'; exit ${PIPESTATUS[0]}"}),
        is_error: failed,
        text,
        plant,
    }
}

#[rustfmt::skip]
fn small_lakeside(r: &mut Rng) -> Small {
    match r.below(7) {
        0 => small("Checking the working tree.", "bash", json!({"command": "git status --short"}), " M models/marts/finance/schema.yml\n M dags/lakeside_nightly.py", false,),
        1 => small("Compiling one model.", "bash", json!({"command": "dbt compile --select stg_payments__refunds --quiet"}), "Compilation Error in model stg_payments__refunds (models/staging/payments/stg_payments__refunds.sql)\n  'source' is undefined. This can happen when calling a macro that does not exist.\n\n\nCommand exited with code 2", true,),
        2 => small("Listing the DAGs.", "ls", json!({"path": "dags"}), "__init__.py\nlakeside_nightly.py\nlakeside_backfill.py\ncommon/", false,),
        3 => small("Finding the schema files.", "find", json!({"pattern": "schema.yml", "path": "models"}), "models/marts/finance/schema.yml\nmodels/marts/customers/schema.yml\nmodels/staging/payments/schema.yml", false,),
        4 => small("How many rows landed last night?", "sql_query", json!({"database": "warehouse", "sql": "SELECT count(*) FROM raw.payments_staging WHERE _loaded_at > now() - interval '1 day'"}), "  count\n---------\n 1843022\n(1 row)", false,),
        5 => small("Adding a retry delay to the loader.", "edit", edit_args("dags/lakeside_nightly.py", "retries=2,", "retries=2,\n        retry_delay=timedelta(minutes=10),",), &edited("dags/lakeside_nightly.py"), false,),
        _ => small("Checking the dbt profile target.", "read", json!({"path": "profiles.yml", "limit": 12}), "lakeside:\n  target: dev\n  outputs:\n    dev:\n      type: postgres\n      host: localhost\n      port: 5432\n      dbname: warehouse\n      schema: analytics_dev\n      threads: 8", false,),
    }
}

// ---------------------------------------------------------------------------------------------
// The projects
// ---------------------------------------------------------------------------------------------

#[rustfmt::skip]
const K_INFRA: &[Kind] = &[
    Kind { name: "tf_forced_replacement", marked: true, zones: ANY, cap: 60_000, gen_fn: g_tf_plan },
    Kind { name: "tf_state_sg_id", marked: false, zones: ANY, cap: 60_000, gen_fn: g_tf_state },
    Kind { name: "k8s_warning_event", marked: true, zones: ANY, cap: 60_000, gen_fn: g_k8s_events },
    Kind { name: "tflint_error", marked: true, zones: ANY, cap: 40_000, gen_fn: g_tflint },
    Kind { name: "tf_lock_provider", marked: false, zones: ANY, cap: 36_000, gen_fn: g_tf_lock },
];
#[rustfmt::skip]
const K_COURIER: &[Kind] = &[
    Kind { name: "exunit_failure_location", marked: true, zones: ANY, cap: 60_000, gen_fn: g_mix_test },
    Kind { name: "ecto_migration_down", marked: true, zones: NOT_HEAD, cap: 40_000, gen_fn: g_ecto_migrations },
    Kind { name: "mix_lock_checksum", marked: false, zones: ANY, cap: 24_000, gen_fn: g_mix_lock },
    Kind { name: "phoenix_session_crash", marked: true, zones: ANY, cap: 60_000, gen_fn: g_phx_log },
    Kind { name: "pg_partition_seq_scan", marked: true, zones: ANY, cap: 60_000, gen_fn: g_explain },
    Kind { name: "phx_route", marked: false, zones: ANY, cap: 30_000, gen_fn: g_phx_routes },
];
#[rustfmt::skip]
const K_ANDROID: &[Kind] = &[
    Kind { name: "kotlin_unresolved_reference", marked: true, zones: ANY, cap: 60_000, gen_fn: g_gradle_build },
    Kind { name: "gradle_version_conflict", marked: true, zones: ANY, cap: 60_000, gen_fn: g_gradle_deps },
    Kind { name: "logcat_app_frame", marked: false, zones: ANY, cap: 60_000, gen_fn: g_logcat },
    Kind { name: "junit_failed_test", marked: true, zones: ANY, cap: 60_000, gen_fn: g_junit },
    Kind { name: "r8_class_mapping", marked: false, zones: ANY, cap: 60_000, gen_fn: g_r8_mapping },
];
#[rustfmt::skip]
const K_HASKELL: &[Kind] = &[
    Kind { name: "ghc_type_error", marked: true, zones: ANY, cap: 60_000, gen_fn: g_cabal_build },
    Kind { name: "golden_test_failure", marked: true, zones: ANY, cap: 60_000, gen_fn: g_golden },
    Kind { name: "cabal_freeze_pin", marked: false, zones: ANY, cap: 2_600, gen_fn: g_freeze },
    Kind { name: "ghc_phase_timing_outlier", marked: true, zones: ANY, cap: 60_000, gen_fn: g_timings },
    Kind { name: "grep_call_site", marked: false, zones: ANY, cap: 8_400, gen_fn: g_hs_grep },
];
#[rustfmt::skip]
const K_LAKESIDE: &[Kind] = &[
    Kind { name: "dbt_database_error", marked: true, zones: TAIL, cap: 60_000, gen_fn: g_dbt_run },
    Kind { name: "airflow_schema_skip", marked: true, zones: ANY, cap: 60_000, gen_fn: g_airflow_log },
    Kind { name: "warehouse_load_batch", marked: false, zones: ANY, cap: 60_000, gen_fn: g_sql_rows },
    Kind { name: "pip_wheel_hash", marked: false, zones: ANY, cap: 46_000, gen_fn: g_pip_lock },
    Kind { name: "sqlfluff_failing_model", marked: true, zones: ANY, cap: 60_000, gen_fn: g_sqlfluff },
];

const PROJECTS: &[Project] = &[
    Project {
        slug: "orbit-infra",
        cwd: "/home/dev/src/orbit-infra",
        tasks: &[
            "We're moving the edge load balancers into a new module and upgrading the ledger database. Before anything is applied, go through the prod environment and tell me what would break.",
            "The last prod apply was interrupted and the ledger rollout is stuck. Figure out what state things are in — plan, lint, events — and what has to be fixed before we re-apply.",
        ],
        closings: &[
            "I've been through the plan, the state, lint and the cluster events; a few things need fixing before anyone applies, and I know where each of them is.",
            "That's the full picture of prod: several separate problems, each with a clear fix. Nothing has been applied.",
        ],
        requests: &[
            "Before you change anything, make sure the working tree is clean.",
            "Good. First check that nobody else has uncommitted work in here.",
        ],
        later_asks: &[
            "Go ahead and fix everything you found, most dangerous first.",
            "Fix them now, one by one, and tell me what you did.",
        ],
        kinds: K_INFRA,
        small: small_infra,
    },
    Project {
        slug: "courier",
        cwd: "/home/dev/src/courier",
        tasks: &[
            "The dispatch rebalancer started misbehaving after the last merge and tracking sessions crash under load. Investigate the service: tests, migrations, logs, slow queries.",
            "Staging is flaky since the upgrade. Dig into the courier service and find out what's wrong before we cut a release.",
        ],
        closings: &[
            "I've gone through the tests, the database and the logs; there are a handful of distinct problems and I know where each one is.",
            "That covers the service end to end; I have a short list of concrete problems to fix.",
        ],
        requests: &[
            "Before you fix anything, make sure the working tree is clean.",
            "Alright. First confirm there are no stray local changes.",
        ],
        later_asks: &[
            "Go ahead and fix the problems you found.",
            "Please fix all of them now, starting with the worst.",
        ],
        kinds: K_COURIER,
        small: small_courier,
    },
    Project {
        slug: "fieldnotes-android",
        cwd: "/home/dev/src/fieldnotes-android",
        tasks: &[
            "The release build of the field notes app crashes on sync and CI is red. Look at the build, the tests, the dependency tree and the device logs and find out why.",
            "We need a release candidate today but the app won't build cleanly and testers report a crash. Investigate the Android project.",
        ],
        closings: &[
            "I've read the build output, the tests, the classpath and the device log; there are several separate issues and I've located each of them.",
            "That's everything the build and the device tell us; each problem has a clear place to fix.",
        ],
        requests: &[
            "Before touching any code, check that the working tree is clean.",
            "Okay. First make sure nothing is left uncommitted.",
        ],
        later_asks: &[
            "Go ahead and fix what you found.",
            "Fix them all now, please, and rerun what failed.",
        ],
        kinds: K_ANDROID,
        small: small_android,
    },
    Project {
        slug: "tessera",
        cwd: "/home/dev/src/tessera",
        tasks: &[
            "I refactored the simplifier to return Maybe from its helpers and now things are broken and slow. Work out what's wrong in the compiler before I keep going.",
            "The Core simplifier pass regressed: the build fails, goldens changed and compile times went up. Investigate.",
        ],
        closings: &[
            "I've gone through the build, the goldens, the timings and the call sites; the breakage comes down to a few specific places.",
            "That's the whole picture of the simplifier regression, with a precise location for each part of it.",
        ],
        requests: &[
            "Before editing anything, make sure the working tree is clean.",
            "Fine. First check there are no stray local edits.",
        ],
        later_asks: &["Go ahead and fix these.", "Please fix each of them now."],
        kinds: K_HASKELL,
        small: small_haskell,
    },
    Project {
        slug: "lakeside-dw",
        cwd: "/home/dev/src/lakeside-dw",
        tasks: &[
            "Last night's finance numbers are off and the nightly DAG looked green. Go through the dbt run, the Airflow logs and the warehouse and find out what happened.",
            "The nightly pipeline produced short totals and CI lint is red. Investigate the pipeline end to end.",
        ],
        closings: &[
            "I've been through the run logs, the task log and the warehouse; the short totals and the red CI come from a few distinct causes, each located.",
            "That's the whole pipeline checked; I have a precise list of what went wrong and where.",
        ],
        requests: &[
            "Before you fix anything, make sure the working tree is clean.",
            "Good. First check that there are no uncommitted changes lying around.",
        ],
        later_asks: &[
            "Go ahead and fix everything you found.",
            "Fix them now, one at a time, and tell me what you changed.",
        ],
        kinds: K_LAKESIDE,
        small: small_lakeside,
    },
];

// ---------------------------------------------------------------------------------------------
// The session file
// ---------------------------------------------------------------------------------------------

fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
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

fn iso(ms: u64) -> String {
    let secs = (ms / 1000) as i64;
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        ms % 1000
    )
}

struct Sess {
    lines: Vec<String>,
    parent: Value,
    ids: HashSet<String>,
    r: Rng,
    t: u64,
    ctx: u64,
}

impl Sess {
    fn id(&mut self) -> String {
        loop {
            let id = self.r.hex(8);
            if id.bytes().any(|c| c.is_ascii_digit()) && self.ids.insert(id.clone()) {
                return id;
            }
        }
    }
    fn push(&mut self, mut e: Value) {
        let id = self.id();
        let ts = iso(self.t);
        let obj = e.as_object_mut().expect("an entry object");
        let mut out = serde_json::Map::new();
        out.insert("type".into(), obj.remove("type").unwrap_or(Value::Null));
        out.insert("id".into(), json!(id));
        out.insert("parentId".into(), self.parent.clone());
        out.insert("timestamp".into(), json!(ts));
        for (k, v) in std::mem::take(obj) {
            out.insert(k, v);
        }
        self.parent = json!(id);
        self.lines.push(Value::Object(out).to_string());
    }
    fn tick(&mut self, lo: u64, hi: u64) {
        self.t += lo + self.r.next() % (hi - lo + 1);
    }
    fn user(&mut self, text: &str) {
        self.tick(4_000, 40_000);
        self.ctx += harness::tokens_of(text);
        let m = json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": self.t});
        self.push(json!({"type": "message", "message": m}));
    }
    /// An assistant message with prose and at most one tool call; returns the call's id.
    fn assistant(&mut self, text: &str, call: Option<(&str, &Value)>) -> Option<String> {
        self.tick(1_500, 12_000);
        let mut content = Vec::new();
        let mut out_tokens = harness::tokens_of(text);
        if !text.is_empty() {
            content.push(json!({"type": "text", "text": text}));
        }
        let mut call_id = None;
        if let Some((name, args)) = call {
            let id = format!("toolu_01{}", self.r.b62(22));
            out_tokens += harness::tokens_of(&args.to_string()) + 8;
            content.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": args}));
            call_id = Some(id);
        }
        let input = 2_400 + self.ctx;
        let cache_read = input * 9 / 10;
        let fresh = input - cache_read;
        let cost_in = fresh as f64 * 3e-6;
        let cost_out = out_tokens as f64 * 15e-6;
        let cost_cr = cache_read as f64 * 0.3e-6;
        let cost_cw = 0.0;
        let m = json!({
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {
                "input": fresh,
                "output": out_tokens,
                "cacheRead": cache_read,
                "cacheWrite": 0,
                "totalTokens": input + out_tokens,
                "cost": {
                    "input": round6(cost_in),
                    "output": round6(cost_out),
                    "cacheRead": round6(cost_cr),
                    "cacheWrite": cost_cw,
                    "total": round6(cost_in + cost_out + cost_cr),
                },
            },
            "stopReason": if call_id.is_some() { "toolUse" } else { "stop" },
            "timestamp": self.t,
        });
        self.ctx += out_tokens;
        self.push(json!({"type": "message", "message": m}));
        call_id
    }
    fn result(&mut self, call_id: &str, tool: &str, text: &str, is_error: bool) {
        self.tick(300, 9_000 + text.len() as u64 / 4);
        self.ctx += harness::tokens_of(text);
        let m = json!({
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": tool,
            "content": [{"type": "text", "text": text}],
            "isError": is_error,
            "timestamp": self.t,
        });
        self.push(json!({"type": "message", "message": m}));
    }
    fn call(&mut self, text: &str, tool: &str, args: &Value, out: &str, is_error: bool) {
        let id = self.assistant(text, Some((tool, args))).expect("a call id");
        self.result(&id, tool, out, is_error);
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[rustfmt::skip]
const BETWEEN: &[&str] = &[
    "Noted. Moving on.", "That's useful; continuing.", "Okay, one more angle.",
    "I'll keep that in mind and look further.", "Got it. Next.", "", "",
];

enum Step {
    Big(usize),
    Small,
}

/// One draw of session `index` from seed `s`.
/// Returns the session, each needle's string, and how many needles were planned.
fn draw(s: u64, project: usize, name: &str) -> (Generated, Vec<String>, usize) {
    let mut r = Rng(s);
    let proj = &PROJECTS[project];
    // Needle kinds: about half marked, half plain where the project has them.
    let nb = r.range(3, 5);
    let mut marked: Vec<usize> = (0..proj.kinds.len())
        .filter(|&i| proj.kinds[i].marked)
        .collect();
    let mut plain: Vec<usize> = (0..proj.kinds.len())
        .filter(|&i| !proj.kinds[i].marked)
        .collect();
    r.shuffle(&mut marked);
    r.shuffle(&mut plain);
    let want_plain = (nb / 2 + r.below(nb % 2 + 1)).min(plain.len());
    let mut kinds: Vec<usize> = plain[..want_plain].to_vec();
    kinds.extend(marked.iter().take(nb - want_plain));
    r.shuffle(&mut kinds);
    // The last big output (just before the closing turn) holds a needle or is a plain big one.
    let big_kinds: Vec<usize> = (0..proj.kinds.len())
        .filter(|&i| proj.kinds[i].cap >= 30_000)
        .collect();
    let last_needle = kinds
        .iter()
        .position(|&k| proj.kinds[k].cap >= 30_000 && r.chance(0.6));
    let mut bigs: Vec<(usize, Option<Zone>, usize)> = Vec::new(); // (kind, zone, target bytes)
    for (j, &k) in kinds.iter().enumerate() {
        let kd = &proj.kinds[k];
        let zone = *r.pick(kd.zones);
        let target = if Some(j) == last_needle {
            r.log_uniform(14_000.0, 60_000.0) as usize
        } else {
            (r.log_uniform(2_000.0, 60_000.0) as usize).min(kd.cap)
        };
        bigs.push((k, Some(zone), target));
    }
    let last_big = match last_needle {
        Some(j) => bigs.remove(j),
        None => (
            *r.pick(&big_kinds),
            None,
            r.log_uniform(14_000.0, 60_000.0) as usize,
        ),
    };
    let fillers = r.range(0, 2);
    let mut unused: Vec<usize> = (0..proj.kinds.len())
        .filter(|k| !kinds.contains(k) && *k != last_big.0)
        .collect();
    r.shuffle(&mut unused);
    for f in 0..fillers {
        let k = unused
            .get(f)
            .copied()
            .unwrap_or_else(|| r.below(proj.kinds.len()));
        let target = (r.log_uniform(2_000.0, 40_000.0) as usize).min(proj.kinds[k].cap);
        bigs.push((k, None, target));
    }
    let calls = r.range(8, 16).max(bigs.len() + 3);
    let mut steps: Vec<Step> = (0..bigs.len()).map(Step::Big).collect();
    while steps.len() < calls - 2 {
        steps.push(Step::Small);
    }
    r.shuffle(&mut steps);
    bigs.push(last_big);
    steps.push(Step::Big(bigs.len() - 1));

    let mut sess = Sess {
        lines: Vec::new(),
        parent: Value::Null,
        ids: HashSet::new(),
        r: Rng(mix(s, 0xA11CE)),
        t: 1_735_700_000_000 + (r.next() % 15_000_000) * 1000,
        ctx: 0,
    };
    // Wall-clock hours 13–18 UTC: never the hours the outputs' logs use.
    let day = sess.t / 86_400_000 * 86_400_000;
    sess.t = day + (13 * 3600 + r.below(4 * 3600) as u64) * 1000 + r.below(1000) as u64;
    let header = json!({
        "type": "session",
        "version": 3,
        "id": format!("{}-{}-7{}-{}{}-{}", sess.r.hex(8), sess.r.hex(4), sess.r.hex(3), sess.r.pick(&["8", "9", "a", "b"]), sess.r.hex(3), sess.r.hex(12)),
        "timestamp": iso(sess.t),
        "cwd": proj.cwd,
    });
    sess.lines.push(header.to_string());
    sess.push(
        json!({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
    );
    sess.push(
        json!({"type": "thinking_level_change", "thinkingLevel": r.s(&["off", "low", "medium"])}),
    );
    sess.user(&r.s(proj.tasks));

    let mut plants: Vec<Plant> = Vec::new();
    let mut used_smalls = HashSet::new();
    let mut gen_rng = Rng(mix(s, 0xB16));
    let follow_at = if r.chance(0.5) {
        r.range(2, steps.len().saturating_sub(3).max(2))
    } else {
        usize::MAX
    };
    for (si, st) in steps.iter().enumerate() {
        if si == follow_at {
            sess.assistant(
                "So far this is consistent with what you described; I'll keep digging.",
                None,
            );
            sess.user(&r.s(&[
                "Keep going, and look at the logs too if you haven't.",
                "Thanks. Also check whether anything else is off while you're at it.",
                "Fine, continue.",
            ]));
        }
        match st {
            Step::Small => {
                let mut sm = (proj.small)(&mut r);
                for _ in 0..12 {
                    if used_smalls.insert(sm.intro.clone()) {
                        break;
                    }
                    sm = (proj.small)(&mut r);
                }
                let pre = r.s(BETWEEN);
                let text = if pre.is_empty() {
                    sm.intro.clone()
                } else {
                    format!("{pre} {}", sm.intro)
                };
                sess.call(&text, sm.tool, &sm.args, &sm.text, sm.is_error);
            }
            Step::Big(b) => {
                let (k, zone, target) = bigs[*b];
                let big = (proj.kinds[k].gen_fn)(&mut gen_rng, zone, target.max(1_800));
                sess.call(&big.intro, big.tool, &big.args, &big.text, big.is_error);
                if let Some(p) = big.plant {
                    plants.push(p);
                }
            }
        }
    }
    // The closing text, the words-only request, a small call and its small result.
    sess.assistant(&r.s(proj.closings), None);
    sess.user(&r.s(proj.requests));
    sess.call(
        "Checking.",
        "bash",
        &json!({"command": "git status --short --branch"}),
        &format!(
            "## {}...origin/{}",
            r.s(&["main", "develop", "trunk"]),
            r.s(&["main", "develop", "trunk"])
        ),
        false,
    );
    let cut_line = sess.lines.len();
    // The later part: one turn per needle.
    sess.user(&r.s(proj.later_asks));
    let mut order: Vec<usize> = (0..plants.len()).collect();
    r.shuffle(&mut order);
    for &i in &order {
        let p = &plants[i];
        sess.call(
            &p.say,
            p.tool,
            &p.args,
            &p.result,
            p.result.contains("Command exited with code"),
        );
    }
    let done = format!(
        "Done: {} fixes in place. The details are in each step above.",
        plants.len()
    );
    sess.assistant(&done, None);

    let mut needles = Vec::new();
    let mut distractors = Vec::new();
    for p in &plants {
        needles.push((p.kind.to_string(), p.line.clone(), String::new()));
        distractors.extend(p.dists.iter().cloned());
    }
    let mut g = Generated {
        name: name.to_string(),
        lines: sess.lines,
        cut_line,
        needles,
        distractors,
    };
    label(&mut g);
    let keys = plants.iter().map(|p| p.key.clone()).collect();
    (g, keys, kinds.len())
}

/// Tool outputs before the cut, in order.
fn outputs(g: &Generated) -> Vec<String> {
    g.lines[..g.cut_line]
        .iter()
        .filter_map(|l| {
            let e: Value = serde_json::from_str(l).ok()?;
            (e["message"]["role"] == "toolResult")
                .then(|| {
                    e["message"]["content"][0]["text"]
                        .as_str()
                        .map(str::to_string)
                })
                .flatten()
        })
        .collect()
}

/// Label each needle by its place among its output's lines.
fn label(g: &mut Generated) {
    let outs = outputs(g);
    for (_, line, lab) in g.needles.iter_mut() {
        *lab = match outs.iter().find(|o| o.lines().any(|x| x == line)) {
            Some(o) => {
                let n = o.lines().count();
                let at = o.lines().position(|x| x == line).unwrap_or(0);
                if at * 5 < n {
                    "head"
                } else if at * 5 >= 4 * n {
                    "tail"
                } else {
                    "middle"
                }
            }
            None => "none",
        }
        .to_string();
    }
}

fn escaped(s: &str) -> String {
    let e = serde_json::to_string(s).unwrap_or_default();
    e[1..e.len() - 1].to_string()
}

/// The rules a session must keep (the e2e checks, and the ones they imply).
fn valid(g: &Generated, keys: &[String]) -> bool {
    if !(3..=5).contains(&g.needles.len()) || keys.len() != g.needles.len() {
        return false;
    }
    if !(2 * g.needles.len()..=4 * g.needles.len()).contains(&g.distractors.len()) {
        return false;
    }
    let kinds: HashSet<&str> = g.needles.iter().map(|(k, _, _)| k.as_str()).collect();
    if kinds.len() != g.needles.len() {
        return false;
    }
    let outs = outputs(g);
    if !(8..=16).contains(&outs.len()) {
        return false;
    }
    if harness::tokens_of(&outs[outs.len() - 2]) < 2_600 {
        return false;
    }
    let ask: Value = serde_json::from_str(&g.lines[g.cut_line - 3]).unwrap_or(Value::Null);
    if ask["message"]["role"] != "user" {
        return false;
    }
    let ask = ask["message"]["content"][0]["text"]
        .as_str()
        .unwrap_or("x_1");
    if harness::distinctive_iter(ask).count() != 0 {
        return false;
    }
    let body = g.lines[..g.cut_line].join("\n");
    let later = g.lines[g.cut_line..].join("\n");
    for ((_, line, lab), key) in g.needles.iter().zip(keys) {
        if lab == "none" || !harness::is_distinctive(key) {
            return false;
        }
        if !harness::distinctive_iter(line).any(|t| t == key) {
            return false;
        }
        if body.matches(&escaped(line)).count() != 1 {
            return false;
        }
        if body.matches(key.as_str()).count() != 1 || !later.contains(key.as_str()) {
            return false;
        }
        if outs.iter().filter(|o| o.lines().any(|x| x == line)).count() != 1 {
            return false;
        }
    }
    let mut seen = HashSet::new();
    for d in &g.distractors {
        if !seen.insert(d)
            || !body.contains(&escaped(d))
            || g.needles.iter().any(|(_, l, _)| l == d)
        {
            return false;
        }
        if !harness::distinctive_iter(d).any(|t| body.matches(t).count() == 1) {
            return false;
        }
        if harness::distinctive_iter(d).any(|t| later.contains(t) && body.matches(t).count() == 1) {
            return false;
        }
    }
    true
}
