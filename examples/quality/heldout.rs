//! The first needle generator of the harness (issue 12 item 6; held out until round 8, a tuning
//! set since, when `sealed.rs` took that role), designed without reading the tuning generator
//! in `examples/needles` so that it stays independent: other projects (a Python
//! billing service, a Go Kubernetes operator, a TypeScript storefront, a data warehouse), other
//! tools (`bash` running gh/kubectl/psql/pnpm/terraform, `read`, `web_search`), other output
//! formats (GitHub Actions logs, Python tracebacks, Go panics, Kubernetes YAML and events, JSON,
//! CSV, SQL tables, web-search results, diff hunks, TypeScript build errors, Terraform plans)
//! and other needle kinds.
//!
//! Each session is one investigation: 8–13 tool outputs (3–60 KB), four of them holding a
//! needle line at the head, middle or tail, plus look-alike distractor lines nothing depends on.
//! A short kept tail says what the user wants next in words (never the needle's strings); after
//! the cut, the session goes on to use each needle (a tool call's arguments or the assistant's
//! text quote a distinctive string of its line). A needle counts as kept only if its whole line
//! survives verbatim.

use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use super::harness::{self, CaseSpec};

/// Where in its output a needle sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pos {
    Head,
    Middle,
    Tail,
}

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x005e_ed0f_4e1d_0b75)
    }
    fn next(&mut self) -> u64 {
        harness::splitmix64(&mut self.0)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    fn of<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from_digit(self.below(16) as u32, 16).unwrap_or('0'))
            .collect()
    }
    fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..n)
            .map(|_| A[self.below(A.len() as u64) as usize] as char)
            .collect()
    }
}

/// One tool output, maybe holding a needle.
struct Made {
    tool: &'static str,
    args: Value,
    lines: Vec<String>,
    needle: Option<Needle>,
    distractors: Vec<String>,
}

struct Needle {
    kind: &'static str,
    line: String,
    /// Words for the kept tail: what the user wants next, without the needle's strings.
    hint: String,
    /// How the session goes on to use it: the assistant's text and one tool call.
    later_text: String,
    later_call: (&'static str, Value),
}

/// Fill `lines` to about `bytes` with `filler`, put `needle` at `pos`, and sprinkle distractors.
fn assemble(
    rng: &mut Rng,
    bytes: usize,
    filler: &mut dyn FnMut(&mut Rng, usize) -> String,
    needle: Option<(&str, Pos)>,
    distractor: &mut dyn FnMut(&mut Rng) -> String,
) -> (Vec<String>, Vec<String>) {
    let mut lines = Vec::new();
    let mut size = 0;
    while size < bytes {
        let l = filler(rng, lines.len());
        size += l.len() + 1;
        lines.push(l);
    }
    let n = lines.len().max(1);
    let mut ds = Vec::new();
    for _ in 0..rng.between(2, 4) {
        let d = distractor(rng);
        let at = rng.below(n as u64) as usize;
        lines.insert(at.min(lines.len()), d.clone());
        ds.push(d);
    }
    if let Some((line, pos)) = needle {
        let n = lines.len() as u64;
        let at = match pos {
            Pos::Head => rng.below((n / 10).max(1)),
            Pos::Middle => n * 2 / 5 + rng.below((n / 5).max(1)),
            Pos::Tail => n - 1 - rng.below((n / 10).max(1)).min(n - 1),
        } as usize;
        lines.insert(at.min(lines.len()), line.to_string());
    }
    (lines, ds)
}

fn iso(rng: &mut Rng, day: u64) -> String {
    format!(
        "2026-10-{:02}T{:02}:{:02}:{:02}.{:07}Z",
        day,
        rng.below(24),
        rng.below(60),
        rng.below(60),
        rng.below(10_000_000)
    )
}

const PY_MODULES: &[&str] = &[
    "settlement/rollover",
    "settlement/fx",
    "invoices/credit_notes",
    "invoices/render",
    "ledger/postings",
    "ledger/accruals",
    "payouts/batching",
    "tax/vat_rules",
];
const PY_FUNCS: &[&str] = &[
    "apply_credit_note",
    "close_period",
    "quantize_amount",
    "post_journal",
    "rebalance",
    "split_payout",
    "resolve_rate",
    "accrue_interest",
];
const GO_PKGS: &[&str] = &["drain", "reconcile", "lease", "webhook", "quota", "rollout"];
const GO_TYPES: &[&str] = &["Planner", "Controller", "Elector", "Admitter", "Tracker"];
const GO_METHODS: &[&str] = &["evict", "sync", "renew", "admit", "reserve", "advance"];
const TS_DIRS: &[&str] = &["checkout", "catalog", "account", "search", "cart"];
const TS_COMPONENTS: &[&str] = &[
    "CartSummary",
    "PriceBadge",
    "ShippingForm",
    "FacetList",
    "OrderHistory",
    "PromoBanner",
];
const REGIONS: &[&str] = &[
    "eu-central-2",
    "us-east-3",
    "ap-south-4",
    "sa-east-2",
    "eu-west-5",
];

/// One tool output of `kind`, in its own format, with a needle at `pos` or without.
fn make(rng: &mut Rng, project: &str, kind: &str, bytes: usize, pos: Option<Pos>) -> Made {
    match kind {
        "gha-log" => gha_log(rng, bytes, pos),
        "py-traceback" => py_traceback(rng, bytes, pos),
        "k8s-yaml" => k8s_yaml(rng, bytes, pos),
        "k8s-events" => k8s_events(rng, bytes, pos),
        "go-panic" => go_panic(rng, bytes, pos),
        "json-config" => json_config(rng, bytes, pos),
        "csv-metrics" => csv_metrics(rng, bytes, pos),
        "sql-rows" => sql_rows(rng, bytes, pos),
        "web-search" => web_search(rng, project, bytes, pos),
        "diff-hunk" => diff_hunk(rng, project, bytes, pos),
        "ts-build" => ts_build(rng, bytes, pos),
        _ => tf_plan(rng, bytes, pos),
    }
}

fn gha_log(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let run = rng.between(7_000_000_000, 9_999_999_999);
    let module = rng.of(PY_MODULES).to_string();
    let test = format!(
        "tests/{module}_test.py::test_{}_{}",
        rng.of(&["q4", "leap_day", "negative", "multi_currency", "zero"]),
        rng.of(&["rounding", "carry", "split", "reversal", "cutoff"])
    );
    let (a, b) = (rng.between(100, 99_999), rng.between(10, 99));
    let line = format!(
        "{} FAILED {test} - AssertionError: assert Decimal('{a}.{b}') == Decimal('{a}.{}')",
        iso(rng, 14),
        (b + 7) % 100
    );
    let needle = pos.map(|_| Needle {
        kind: "gha-log",
        line: line.clone(),
        hint: "the failing rounding test in CI".into(),
        later_text: format!("Re-running only {test} locally first."),
        later_call: (
            "bash",
            json!({"command": format!("python -m pytest -x -q {test}")}),
        ),
    });
    let (lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, i| {
            let t = iso(r, 14);
            match r.below(5) {
                0 => format!(
                    "{t} Collecting {}=={}.{}.{}",
                    r.of(&[
                        "django",
                        "psycopg",
                        "celery",
                        "pydantic",
                        "redis",
                        "sentry-sdk"
                    ]),
                    r.below(6),
                    r.below(20),
                    r.below(10)
                ),
                1 => format!(
                    "{t} tests/{}_test.py {} [{:>3}%]",
                    r.of(PY_MODULES),
                    ".".repeat(r.between(3, 40) as usize),
                    (i * 7) % 100
                ),
                2 => format!(
                    "{t} ##[group]Run {}",
                    r.of(&[
                        "actions/checkout@v4",
                        "actions/setup-python@v5",
                        "pip install -r requirements/ci.txt",
                        "python -m pytest -n 4"
                    ])
                ),
                3 => format!("{t} ##[endgroup]"),
                _ => format!(
                    "{t} PASSED tests/{}_test.py::test_{}",
                    r.of(PY_MODULES),
                    r.alnum(8)
                ),
            }
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "{} SKIPPED tests/{}_test.py::test_{}_{} (needs FX_FIXTURES_{})",
                iso(r, 14),
                r.of(PY_MODULES),
                r.alnum(6),
                r.alnum(4),
                r.below(90) + 10
            )
        },
    );
    Made {
        tool: "bash",
        args: json!({"command": format!("gh run view {run} --log-failed")}),
        lines,
        needle,
        distractors,
    }
}

fn py_traceback(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let module = rng.of(PY_MODULES).to_string();
    let func = rng.of(PY_FUNCS).to_string();
    let lineno = rng.between(120, 1400);
    let line = format!("  File \"/srv/ledger/ledger/{module}.py\", line {lineno}, in {func}");
    let needle = pos.map(|_| Needle {
        kind: "py-traceback",
        line: line.clone(),
        hint: "the crash in the settlement job".into(),
        later_text: format!("The frame in {func} at ledger/{module}.py line {lineno} is where the amount goes negative."),
        later_call: (
            "read",
            json!({"path": format!("ledger/{module}.py"), "offset": lineno.saturating_sub(15), "limit": 40}),
        ),
    });
    let (lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, _| match r.below(6) {
            0 => "Traceback (most recent call last):".to_string(),
            1 => format!(
                "  File \"/usr/local/lib/python3.12/site-packages/django/db/{}.py\", line {}, in {}",
                r.of(&[
                    "models/query",
                    "backends/utils",
                    "transaction",
                    "models/base"
                ]),
                r.between(30, 2900),
                r.of(&["execute", "_fetch_all", "__exit__", "save_base", "get"])
            ),
            2 => format!(
                "    {} = {}({})",
                r.of(&["rows", "qs", "entry", "total"]),
                r.of(&["self._fetch", "cursor.execute", "Decimal", "sum"]),
                r.alnum(6)
            ),
            3 => format!(
                "[{}] INFO settle worker={} batch={} accounts={}",
                iso(r, 15),
                r.below(16),
                r.hex(10),
                r.below(5000)
            ),
            4 => format!(
                "decimal.InvalidOperation: [<class 'decimal.{}'>]",
                r.of(&["DivisionUndefined", "InvalidOperation", "Overflow"])
            ),
            _ => format!(
                "[{}] WARNING retrying posting {} (attempt {}/5)",
                iso(r, 15),
                r.hex(12),
                r.between(1, 5)
            ),
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "  File \"/srv/ledger/ledger/{}.py\", line {}, in {}",
                r.of(PY_MODULES),
                r.between(20, 900),
                r.of(&["__init__", "handle", "run", "dispatch"])
            )
        },
    );
    Made {
        tool: "bash",
        args: json!({"command": "kubectl -n ledger logs job/settle-nightly --tail=4000"}),
        lines,
        needle,
        distractors,
    }
}

fn k8s_yaml(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let tag = format!(
        "v{}.{}.{}-rc.{}",
        rng.between(2, 4),
        rng.below(30),
        rng.below(12),
        rng.between(1, 9)
    );
    let image = format!("registry.fleet.internal/reconciler:{tag}");
    let line = format!("        image: {image}");
    let needle = pos.map(|_| Needle {
        kind: "k8s-yaml",
        line: line.clone(),
        hint: "roll the reconciler back to the last good image".into(),
        later_text: format!("The crashing pods run {image}; rolling back."),
        later_call: (
            "bash",
            json!({"command": format!("kubectl -n fleet-system rollout undo deploy/reconciler && echo 'was {image}'")}),
        ),
    });
    let (lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, i| match i % 9 {
            0 => "- apiVersion: apps/v1".to_string(),
            1 => "  kind: Deployment".to_string(),
            2 => format!(
                "    name: {}-{}",
                r.of(&["reconciler", "webhook", "metrics-relay", "lease-keeper"]),
                r.alnum(5)
            ),
            3 => format!(
                "    resourceVersion: \"{}\"",
                r.between(10_000_000, 99_999_999)
            ),
            4 => format!("    uid: {}-{}-{}", r.hex(8), r.hex(4), r.hex(12)),
            5 => format!(
                "      - name: {}",
                r.of(&["SHARD_COUNT", "LOG_LEVEL", "LEASE_SECONDS", "QPS", "BURST"])
            ),
            6 => format!("        value: \"{}\"", r.below(500)),
            7 => format!("          cpu: {}m", r.between(50, 4000)),
            _ => format!("          memory: {}Mi", r.between(64, 8192)),
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "        image: registry.fleet.internal/{}:v{}.{}.{}",
                r.of(&["webhook", "metrics-relay", "lease-keeper"]),
                r.between(1, 3),
                r.below(20),
                r.below(9)
            )
        },
    );
    Made {
        tool: "bash",
        args: json!({"command": "kubectl -n fleet-system get deploy -o yaml"}),
        lines,
        needle,
        distractors,
    }
}

fn k8s_events(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let pod = format!("reconciler-{}-{}", rng.hex(9), rng.alnum(5));
    let line = format!(
        "  Warning  BackOff    {}m{}s (x{} over {}m)  kubelet  Back-off restarting failed container manager in pod {pod} (fleet-system)",
        rng.between(1, 9),
        rng.below(60),
        rng.between(12, 80),
        rng.between(10, 50)
    );
    let needle = pos.map(|_| Needle {
        kind: "k8s-events",
        line: line.clone(),
        hint: "the pod that keeps restarting".into(),
        later_text: format!("{pod} is the one in back-off; reading its previous logs."),
        later_call: (
            "bash",
            json!({"command": format!("kubectl -n fleet-system logs {pod} -c manager --previous")}),
        ),
    });
    let (lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, _| {
            format!(
                "  Normal   {}  {}m  {}  {} pod/{}-{}-{}",
                r.of(&[
                    "Pulled   ",
                    "Created  ",
                    "Started  ",
                    "Scheduled",
                    "Killing  "
                ]),
                r.between(1, 90),
                r.of(&["kubelet", "default-scheduler"]),
                r.of(&[
                    "Successfully assigned",
                    "Container image already present for",
                    "Started container in",
                    "Stopping container in"
                ]),
                r.of(&["webhook", "metrics-relay", "lease-keeper", "reconciler"]),
                r.hex(9),
                r.alnum(5)
            )
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "  Warning  Unhealthy  {}m  kubelet  Readiness probe failed: HTTP probe failed with statuscode: 503 pod/webhook-{}-{}",
                r.between(1, 60),
                r.hex(9),
                r.alnum(5)
            )
        },
    );
    Made {
        tool: "bash",
        args: json!({"command": "kubectl -n fleet-system get events --sort-by=.lastTimestamp"}),
        lines,
        needle,
        distractors,
    }
}

fn go_panic(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let pkg = rng.of(GO_PKGS).to_string();
    let ty = rng.of(GO_TYPES).to_string();
    let method = rng.of(GO_METHODS).to_string();
    let lineno = rng.between(40, 900);
    let file = format!("internal/{pkg}/{}.go", ty.to_lowercase());
    let line = format!("\t/workspace/{file}:{lineno} +0x{}", rng.hex(3));
    let needle = pos.map(|_| Needle {
        kind: "go-panic",
        line: line.clone(),
        hint: "the nil pointer panic in the operator".into(),
        later_text: format!("The panic is in ({ty}).{method}: /workspace/{file}:{lineno}."),
        later_call: (
            "read",
            json!({"path": file, "offset": lineno.saturating_sub(20), "limit": 45}),
        ),
    });
    let (lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, _| match r.below(4) {
            0 => format!(
                "{{\"level\":\"info\",\"ts\":\"{}\",\"logger\":\"controller.{}\",\"msg\":\"Reconciling\",\"namespace\":\"{}\",\"name\":\"{}\",\"reconcileID\":\"{}-{}\"}}",
                iso(r, 16),
                r.of(GO_PKGS),
                r.of(&["fleet-a", "fleet-b", "edge-7", "batch"]),
                r.alnum(8),
                r.hex(8),
                r.hex(4)
            ),
            1 => format!(
                "goroutine {} [{}]:",
                r.between(1, 4000),
                r.of(&["select", "chan receive", "IO wait", "sync.Cond.Wait"])
            ),
            2 => format!(
                "sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).{}(0xc000{})",
                r.of(&["Start.func2.2", "processNextWorkItem", "reconcileHandler"]),
                r.hex(6)
            ),
            _ => format!(
                "\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.{}.{}/pkg/internal/controller/controller.go:{} +0x{}",
                r.between(15, 19),
                r.below(6),
                r.between(100, 400),
                r.hex(3)
            ),
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "\t/workspace/internal/{}/metrics.go:{} +0x{}",
                r.of(GO_PKGS),
                r.between(10, 200),
                r.hex(3)
            )
        },
    );
    Made {
        tool: "bash",
        args: json!({"command": "kubectl -n fleet-system logs deploy/reconciler -c manager --previous"}),
        lines,
        needle,
        distractors,
    }
}

fn json_config(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let key = format!(
        "{}{}{}",
        rng.of(&["max", "min", "default", "burst"]),
        rng.of(&["Inflight", "Retry", "Batch", "Lease", "Backoff"]),
        rng.of(&["PerShard", "Millis", "Window", "Budget", "Depth"])
    );
    let value = rng.between(3, 5000);
    let line = format!("    \"{key}\": {value},");
    let path = format!(
        "config/{}.json",
        rng.of(&["shards", "limits", "workers", "tenants"])
    );
    let needle = pos.map(|_| Needle {
        kind: "json-config",
        line: line.clone(),
        hint: "the limit in the config that is too low".into(),
        later_text: format!("Raising {key} from {value}."),
        later_call: (
            "edit",
            json!({"path": path, "oldText": format!("\"{key}\": {value},"), "newText": format!("\"{key}\": {},", value * 2)}),
        ),
    });
    let (mut lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, i| {
            if i % 12 == 0 {
                format!(
                    "  \"{}-{}\": {{",
                    r.of(&["tenant", "shard", "pool"]),
                    r.alnum(6)
                )
            } else if i % 12 == 11 {
                "  },".to_string()
            } else {
                format!(
                    "    \"{}\": {},",
                    r.of(&["weight", "enabled", "region", "owner", "tier", "quota"]),
                    match r.below(3) {
                        0 => r.below(1000).to_string(),
                        1 => "true".to_string(),
                        _ => format!("\"{}\"", r.of(REGIONS)),
                    }
                )
            }
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "    \"{}{}\": {},",
                r.of(&["soft", "hard"]),
                r.of(&["LimitBytes", "CapMillis", "FloorCount"]),
                r.between(10, 9000)
            )
        },
    );
    lines.insert(0, "{".into());
    lines.push("}".into());
    Made {
        tool: "read",
        args: json!({"path": path}),
        lines,
        needle,
        distractors,
    }
}

fn csv_metrics(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let host = format!("settle-worker-{:02}", rng.between(10, 99));
    let region = rng.of(REGIONS).to_string();
    let p99 = rng.between(1500, 9000);
    let line = format!(
        "2026-10-{:02},{region},{host},p99_ms,{p99}",
        rng.between(1, 28)
    );
    let needle = pos.map(|_| Needle {
        kind: "csv-metrics",
        line: line.clone(),
        hint: "the worst latency outlier in last month's report".into(),
        later_text: format!("{host} in {region} is the outlier at {p99} ms p99; draining it."),
        later_call: (
            "bash",
            json!({"command": format!("./ops/drain.sh --region {region} --host {host}")}),
        ),
    });
    let (mut lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, _| {
            format!(
                "2026-10-{:02},{},{}-{:02},{},{}",
                r.between(1, 28),
                r.of(REGIONS),
                r.of(&["api", "ingest", "settle-worker", "fx-cache"]),
                r.between(10, 99),
                r.of(&["p50_ms", "p90_ms", "p99_ms", "errors", "rps"]),
                r.below(1400)
            )
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "2026-09-{:02},{},canary-{:02},p99_ms,{}",
                r.between(1, 30),
                r.of(REGIONS),
                r.between(10, 99),
                r.between(1500, 9000)
            )
        },
    );
    lines.insert(0, "date,region,host,metric,value".into());
    Made {
        tool: "read",
        args: json!({"path": "reports/latency-2026-10.csv"}),
        lines,
        needle,
        distractors,
    }
}

fn sql_rows(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let id = rng.between(10_000, 99_999);
    let acct = format!("acct_{}", rng.hex(8));
    let line = format!(
        " {id:>6} | {acct} | past_due  | {:>10} | 2026-10-{:02} 0{}:1{}:0{}+00",
        rng.between(100, 99_999),
        rng.between(1, 28),
        rng.below(10),
        rng.below(10),
        rng.below(10)
    );
    let needle = pos.map(|_| Needle {
        kind: "sql-rows",
        line: line.clone(),
        hint: "the one account stuck in past_due".into(),
        later_text: format!("Only {acct} is stuck; fixing that row."),
        later_call: (
            "bash",
            json!({"command": format!("psql \"$LEDGER_DSN\" -c \"update accounts set status='active' where id={id} and ref='{acct}'\"")}),
        ),
    });
    let (mut lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, _| {
            format!(
                " {:>6} | acct_{} | {} | {:>10} | 2026-10-{:02} {:02}:{:02}:{:02}+00",
                r.between(10_000, 99_999),
                r.hex(8),
                r.of(&["active   ", "closed   ", "suspended", "active   "]),
                r.between(0, 99_999),
                r.between(1, 28),
                r.below(24),
                r.below(60),
                r.below(60)
            )
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                " {:>6} | acct_{} | past_due  | {:>10} | 2025-0{}-1{} 00:00:00+00 (archived)",
                r.between(10_000, 99_999),
                r.hex(8),
                r.between(100, 99_999),
                r.between(1, 9),
                r.below(10)
            )
        },
    );
    lines.insert(
        0,
        "   id   |      ref      |  status   |  balance   |       updated_at".into(),
    );
    lines.insert(
        1,
        "--------+---------------+-----------+------------+------------------------".into(),
    );
    let n = lines.len() - 2;
    lines.push(format!("({n} rows)"));
    Made {
        tool: "bash",
        args: json!({"command": "psql \"$LEDGER_DSN\" -c \"select id, ref, status, balance, updated_at from accounts order by updated_at\""}),
        lines,
        needle,
        distractors,
    }
}

fn web_search(rng: &mut Rng, project: &str, bytes: usize, pos: Option<Pos>) -> Made {
    let (repo, query) = match project {
        "ledger" => (
            "python/cpython",
            "decimal quantize ROUND_HALF_EVEN InvalidOperation",
        ),
        "fleet-operator" => (
            "kubernetes-sigs/controller-runtime",
            "controller-runtime nil pointer evict requeue",
        ),
        "warehouse" => (
            "hashicorp/terraform-provider-aws",
            "terraform aws_instance instance_type forces replacement",
        ),
        _ => (
            "vercel/next.js",
            "next.js build Type error serverComponentsExternalPackages",
        ),
    };
    let issue = rng.between(40_000, 79_999);
    let url = format!("https://github.com/{repo}/issues/{issue}");
    let line = format!("URL: {url}");
    let needle = pos.map(|_| Needle {
        kind: "web-search",
        line: line.clone(),
        hint: "the upstream bug report about the build error".into(),
        later_text: format!("Reading the upstream report first: {url}"),
        later_call: ("web_fetch", json!({"url": url})),
    });
    let mut k = 0;
    let (lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, _| {
            k += 1;
            match k % 4 {
                1 => format!(
                    "### {}. {} – {}",
                    k / 4 + 1,
                    r.of(&[
                        "Module not found",
                        "Hydration failed",
                        "Type error in build",
                        "Dynamic server usage"
                    ]),
                    r.of(&[
                        "Stack Overflow",
                        "Next.js Docs",
                        "GitHub Discussions",
                        "DEV Community"
                    ])
                ),
                2 => format!(
                    "URL: https://{}/{}/{}",
                    r.of(&[
                        "stackoverflow.com/questions",
                        "nextjs.org/docs/messages",
                        "dev.to",
                        "github.com/vercel/next.js/discussions"
                    ]),
                    r.between(1000, 79_999_999),
                    r.alnum(10)
                ),
                3 => format!(
                    "Snippet: {} when {} is used in a server component; upgrading to 14.{}.{} {}.",
                    r.of(&["This happens", "The error appears", "We saw this"]),
                    r.of(&["sharp", "canvas", "prisma", "bcrypt"]),
                    r.below(3),
                    r.below(30),
                    r.of(&["fixed it", "did not help", "changed the message"])
                ),
                _ => String::new(),
            }
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "URL: https://github.com/{repo}/issues/{}",
                r.between(20_000, 39_999)
            )
        },
    );
    Made {
        tool: "web_search",
        args: json!({"query": query, "limit": 40}),
        lines,
        needle,
        distractors,
    }
}

fn diff_hunk(rng: &mut Rng, project: &str, bytes: usize, pos: Option<Pos>) -> Made {
    if project == "fleet-operator" {
        return diff_hunk_go(rng, bytes, pos);
    }
    let (retries, backoff) = (rng.between(3, 12), rng.between(50, 900));
    let line = format!(
        "+  retryBudget: new RetryBudget({{ maxRetries: {retries}, backoffMs: {backoff} }}),"
    );
    let file = format!("src/{}/client.ts", rng.of(TS_DIRS));
    let needle = pos.map(|_| Needle {
        kind: "diff-hunk",
        line: line.clone(),
        hint: "undo the retry change from that commit".into(),
        later_text: "Reverting the retry budget the commit introduced.".into(),
        later_call: (
            "edit",
            json!({"path": file, "oldText": format!("  retryBudget: new RetryBudget({{ maxRetries: {retries}, backoffMs: {backoff} }}),\n"), "newText": ""}),
        ),
    });
    let sha = rng.hex(40);
    let (mut lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, i| match i % 7 {
            0 => format!(
                "@@ -{},{} +{},{} @@ export function {}(",
                r.between(1, 900),
                r.between(3, 30),
                r.between(1, 900),
                r.between(3, 30),
                r.of(&["createClient", "withRetry", "fetchCart", "loadPrices"])
            ),
            1 | 2 => format!(
                "   {} {} = {};",
                r.of(&["const", "let"]),
                r.alnum(7),
                r.of(&["await fetch(url)", "options.timeoutMs", "new Map()", "[]"])
            ),
            3 => format!("-  timeoutMs: {},", r.between(100, 30_000)),
            4 => format!("+  timeoutMs: {},", r.between(100, 30_000)),
            5 => format!(
                "diff --git a/src/{0}/{1}.ts b/src/{0}/{1}.ts",
                r.of(TS_DIRS),
                r.alnum(6)
            ),
            _ => format!("index {}..{} 100644", r.hex(7), r.hex(7)),
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "-  retryBudget: new RetryBudget({{ maxRetries: {}, backoffMs: {} }}),",
                r.between(1, 3),
                r.between(10, 40)
            )
        },
    );
    lines.insert(0, format!("commit {sha}"));
    Made {
        tool: "bash",
        args: json!({"command": format!("git show {}", &sha[..10])}),
        lines,
        needle,
        distractors,
    }
}

/// The Go operator's diffs: a requeue interval changed in a controller.
fn diff_hunk_go(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let pkg = rng.of(GO_PKGS).to_string();
    let secs = rng.between(2, 90);
    let line = format!(
        "+\t\treturn ctrl.Result{{RequeueAfter: {secs} * time.Second}}, nil // {pkg}: was 5m"
    );
    let file = format!("internal/{pkg}/controller.go");
    let needle = pos.map(|_| Needle {
        kind: "diff-hunk",
        line: line.clone(),
        hint: "undo the requeue change from that commit".into(),
        later_text: format!("Restoring the 5m requeue in {file}."),
        later_call: (
            "edit",
            json!({"path": file, "oldText": format!("\t\treturn ctrl.Result{{RequeueAfter: {secs} * time.Second}}, nil // {pkg}: was 5m"), "newText": "\t\treturn ctrl.Result{RequeueAfter: 5 * time.Minute}, nil"}),
        ),
    });
    let sha = rng.hex(40);
    let (mut lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, i| match i % 6 {
            0 => format!(
                "@@ -{},{} +{},{} @@ func (r *{}) {}(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {{",
                r.between(1, 900),
                r.between(3, 30),
                r.between(1, 900),
                r.between(3, 30),
                r.of(GO_TYPES),
                r.of(&["Reconcile", "reconcileStatus", "ensureFinalizer"])
            ),
            1 | 2 => format!(
                " \t{} := {}",
                r.alnum(6),
                r.of(&[
                    "r.Get(ctx, req.NamespacedName, &obj)",
                    "log.FromContext(ctx)",
                    "metav1.Now()",
                    "len(obj.Spec.Shards)"
                ])
            ),
            3 => format!(
                "-\tif err != nil {{ return ctrl.Result{{}}, fmt.Errorf(\"{}: %w\", err) }}",
                r.alnum(8)
            ),
            4 => format!(
                "diff --git a/internal/{0}/{1}.go b/internal/{0}/{1}.go",
                r.of(GO_PKGS),
                r.alnum(6)
            ),
            _ => format!("index {}..{} 100644", r.hex(7), r.hex(7)),
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "-\t\treturn ctrl.Result{{RequeueAfter: {} * time.Minute}}, nil",
                r.between(1, 30)
            )
        },
    );
    lines.insert(0, format!("commit {sha}"));
    Made {
        tool: "bash",
        args: json!({"command": format!("git show {}", &sha[..10])}),
        lines,
        needle,
        distractors,
    }
}

fn ts_build(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let dir = rng.of(TS_DIRS).to_string();
    let comp = rng.of(TS_COMPONENTS).to_string();
    let (l, c) = (rng.between(20, 400), rng.between(3, 60));
    let file = format!("src/{dir}/{comp}.tsx");
    let line = format!("./{file}:{l}:{c}");
    let needle = pos.map(|_| Needle {
        kind: "ts-build",
        line: line.clone(),
        hint: "the type error that breaks the production build".into(),
        later_text: format!("The build breaks at ./{file}:{l}:{c} (a missing field)."),
        later_call: (
            "read",
            json!({"path": file, "offset": l.saturating_sub(10), "limit": 25}),
        ),
    });
    let (lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, _| match r.below(5) {
            0 => format!(
                "   Collecting page data  ...{}",
                ".".repeat(r.between(1, 30) as usize)
            ),
            1 => format!(
                "○ /{}/{}    {} kB    {} kB",
                r.of(TS_DIRS),
                r.alnum(6),
                r.between(1, 90),
                r.between(80, 400)
            ),
            2 => format!(
                "warn  - Compiled with warnings in {}ms",
                r.between(900, 90_000)
            ),
            3 => format!(
                "    at {} (node_modules/next/dist/build/webpack/{}.js:{}:{})",
                r.of(&[
                    "Object.<anonymous>",
                    "processTicksAndRejections",
                    "runLoaders"
                ]),
                r.alnum(8),
                r.between(10, 900),
                r.between(1, 80)
            ),
            _ => format!(
                "λ /api/{}/{}    {} B    {} kB",
                r.of(TS_DIRS),
                r.alnum(5),
                r.between(100, 999),
                r.between(80, 400)
            ),
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "./src/{}/{}.stories.tsx:{}:{}",
                r.of(TS_DIRS),
                r.of(TS_COMPONENTS),
                r.between(1, 90),
                r.between(1, 40)
            )
        },
    );
    Made {
        tool: "bash",
        args: json!({"command": "pnpm --filter storefront build"}),
        lines,
        needle,
        distractors,
    }
}

fn tf_plan(rng: &mut Rng, bytes: usize, pos: Option<Pos>) -> Made {
    let name = format!(
        "warehouse_{}",
        rng.of(&["etl", "loader", "dbt_runner", "replica"])
    );
    let (from, to) = (
        rng.of(&["r6i.2xlarge", "m6i.4xlarge", "c6i.8xlarge"]),
        rng.of(&["r6i.8xlarge", "m6i.16xlarge", "x2idn.16xlarge"]),
    );
    let line = format!("      ~ instance_type = \"{from}\" -> \"{to}\" # aws_instance.{name}");
    let needle = pos.map(|_| Needle {
        kind: "tf-plan",
        line: line.clone(),
        hint: "the unexpected resize in the plan".into(),
        later_text: format!("The plan resizes aws_instance.{name} to {to}; pinning it back to {from}."),
        later_call: ("bash", json!({"command": format!("terraform plan -target=aws_instance.{name} -var instance_type={from}")})),
    });
    let (lines, distractors) = assemble(
        rng,
        bytes,
        &mut |r, i| match i % 6 {
            0 => format!(
                "  # aws_{}.{} will be updated in-place",
                r.of(&[
                    "security_group_rule",
                    "iam_role_policy",
                    "s3_bucket_policy",
                    "db_parameter_group"
                ]),
                r.alnum(8)
            ),
            1 => format!(
                "  ~ resource \"aws_{}\" \"{}\" {{",
                r.of(&["security_group_rule", "iam_role_policy"]),
                r.alnum(8)
            ),
            2 => format!(
                "        id = \"{}-{}\"",
                r.of(&["sgr", "pol", "pg"]),
                r.hex(17)
            ),
            3 => format!(
                "      ~ tags = {{ \"cost-center\" = \"{}\" }}",
                r.between(1000, 9999)
            ),
            4 => "    }".to_string(),
            _ => format!(
                "aws_{}.{}: Refreshing state... [id={}]",
                r.of(&["instance", "subnet", "route_table"]),
                r.alnum(8),
                r.hex(12)
            ),
        },
        needle
            .as_ref()
            .map(|n| (n.line.as_str(), pos.unwrap_or(Pos::Middle))),
        &mut |r| {
            format!(
                "      ~ instance_type = \"t3.{}\" -> \"t3.{}\" # aws_instance.bastion_{}",
                r.of(&["micro", "small"]),
                r.of(&["medium", "large"]),
                r.alnum(4)
            )
        },
    );
    Made {
        tool: "bash",
        args: json!({"command": "terraform -chdir=infra/warehouse plan -no-color"}),
        lines,
        needle,
        distractors,
    }
}

/// A pi v3 session being written.
struct Writer {
    lines: Vec<String>,
    parent: Option<String>,
    ids: std::collections::HashSet<String>,
    ms: u64,
    calls: u64,
}

impl Writer {
    fn new(rng: &mut Rng, cwd: &str) -> Writer {
        let ms = 1_790_000_000_000 + rng.below(10_000_000_000);
        let mut w = Writer {
            lines: Vec::new(),
            parent: None,
            ids: Default::default(),
            ms,
            calls: 0,
        };
        let header = json!({"type": "session", "version": 3,
            "id": format!("{}-{}-7{}-8{}-{}", rng.hex(8), rng.hex(4), rng.hex(3), rng.hex(3), rng.hex(12)),
            "timestamp": pi_shake::jscompat::epoch_ms_to_iso(ms as i64), "cwd": cwd});
        w.lines.push(header.to_string());
        w
    }

    fn entry(&mut self, rng: &mut Rng, mut v: serde_json::Map<String, Value>) {
        let mut id = rng.hex(8);
        while !self.ids.insert(id.clone()) {
            id = rng.hex(8);
        }
        self.ms += rng.between(20, 4000);
        let mut e = serde_json::Map::new();
        e.insert("type".into(), v.remove("type").unwrap_or(json!("message")));
        e.insert("id".into(), json!(id));
        e.insert("parentId".into(), json!(self.parent));
        e.insert(
            "timestamp".into(),
            json!(pi_shake::jscompat::epoch_ms_to_iso(self.ms as i64)),
        );
        e.extend(v);
        self.lines.push(Value::Object(e).to_string());
        self.parent = Some(id);
    }

    fn message(&mut self, rng: &mut Rng, mut msg: Value) {
        msg["timestamp"] = json!(self.ms + 1);
        let mut m = serde_json::Map::new();
        m.insert("message".into(), msg);
        self.entry(rng, m);
    }

    fn user(&mut self, rng: &mut Rng, text: &str) {
        self.message(
            rng,
            json!({"role": "user", "content": [{"type": "text", "text": text}]}),
        );
    }

    fn assistant(&mut self, rng: &mut Rng, text: &str, calls: &[(&str, Value)]) -> Vec<String> {
        let mut content = Vec::new();
        if !text.is_empty() {
            content.push(json!({"type": "text", "text": text}));
        }
        let mut ids = Vec::new();
        for (name, args) in calls {
            self.calls += 1;
            let id = format!("toolu_{}{:03}", rng.alnum(12), self.calls);
            content.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": args}));
            ids.push(id);
        }
        let input = rng.between(2_000, 90_000);
        self.message(
            rng,
            json!({"role": "assistant", "content": content, "api": "anthropic-messages",
                "provider": "anthropic", "model": "claude-sonnet-4-5",
                "usage": {"input": input, "output": 180, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + 180,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "stopReason": if calls.is_empty() { "stop" } else { "toolUse" }}),
        );
        ids
    }

    fn result(&mut self, rng: &mut Rng, call: &str, tool: &str, text: &str) {
        self.message(
            rng,
            json!({"role": "toolResult", "toolCallId": call, "toolName": tool,
                "content": [{"type": "text", "text": text}], "isError": false}),
        );
    }
}

/// One generated session: where the later part starts, and its needles and distractors.
pub struct Generated {
    pub name: String,
    pub lines: Vec<String>,
    pub cut_line: usize,
    pub needles: Vec<(String, String, Pos)>,
    pub distractors: Vec<String>,
}

/// Projects: name, the user's problem, and the output kinds its investigation produces.
const PROJECTS: &[(&str, &str, &[&str])] = &[
    (
        "ledger",
        "the nightly settlement job fails and CI is red",
        &[
            "gha-log",
            "py-traceback",
            "sql-rows",
            "csv-metrics",
            "json-config",
            "web-search",
        ],
    ),
    (
        "fleet-operator",
        "the reconciler keeps crashing after the last rollout",
        &[
            "k8s-yaml",
            "k8s-events",
            "go-panic",
            "json-config",
            "diff-hunk",
            "web-search",
        ],
    ),
    (
        "storefront",
        "the production build broke after the dependency bump",
        &[
            "ts-build",
            "web-search",
            "diff-hunk",
            "json-config",
            "gha-log",
            "csv-metrics",
        ],
    ),
    (
        "warehouse",
        "the warehouse loads got slow and expensive this week",
        &[
            "tf-plan",
            "sql-rows",
            "csv-metrics",
            "json-config",
            "py-traceback",
            "web-search",
        ],
    ),
];

pub fn generate_one(seed: u64, index: usize) -> Generated {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(index as u64));
    let (project, problem, pool) = PROJECTS[index % PROJECTS.len()];
    let cwd = format!("/home/dev/src/{project}");
    let mut w = Writer::new(&mut rng, &cwd);
    w.entry(
        &mut rng,
        json!({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    w.user(
        &mut rng,
        &format!("In {project}: {problem}. Investigate before changing anything, and tell me what you find."),
    );
    // Four needle kinds (distinct), each at a position; 4–9 more outputs without needles.
    let mut kinds: Vec<&str> = pool.to_vec();
    for i in (1..kinds.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        kinds.swap(i, j);
    }
    let positions = [
        Pos::Head,
        Pos::Middle,
        Pos::Tail,
        [Pos::Head, Pos::Middle, Pos::Tail][index % 3],
    ];
    let mut plan: Vec<(&str, Option<Pos>)> = kinds[..4]
        .iter()
        .zip(positions)
        .map(|(k, p)| (*k, Some(p)))
        .collect();
    for _ in 0..rng.between(4, 9) {
        let k = pool[rng.below(pool.len() as u64) as usize];
        plan.push((k, None));
    }
    for i in (1..plan.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        plan.swap(i, j);
    }
    let mut needles = Vec::new();
    let mut distractors = Vec::new();
    for (k, pos) in plan {
        // Sizes log-uniform in 3–60 KB.
        let bytes = (3_000.0 * 20f64.powf(rng.below(1000) as f64 / 1000.0)) as usize;
        let made = make(&mut rng, project, k, bytes, pos);
        let say = rng.of(&["Checking this next.", "Let me look at that.", "Next:", ""]);
        let ids = w.assistant(&mut rng, say, &[(made.tool, made.args.clone())]);
        w.result(&mut rng, &ids[0], made.tool, &made.lines.join("\n"));
        distractors.extend(made.distractors);
        if let Some(n) = made.needle {
            needles.push((n, pos.unwrap_or(Pos::Middle)));
        }
    }
    w.assistant(
        &mut rng,
        "I have looked at the logs, the config and the recent changes; I can summarise or start fixing.",
        &[],
    );
    // The kept tail: what the user wants next, in words.
    let hints: Vec<String> = needles.iter().map(|(n, _)| n.hint.clone()).collect();
    w.user(
        &mut rng,
        &format!(
            "Good. Next: {}. Do them one at a time.",
            hints.join("; then ")
        ),
    );
    let ids = w.assistant(
        &mut rng,
        "Starting with the first one.",
        &[("bash", json!({"command": "git status --short"}))],
    );
    w.result(&mut rng, &ids[0], "bash", " M README.md\n?? notes/");
    // The later part: the session uses every needle.
    let cut_line = w.lines.len();
    w.user(&mut rng, "Go ahead.");
    for (n, _) in &needles {
        let ids = w.assistant(
            &mut rng,
            &n.later_text,
            &[(n.later_call.0, n.later_call.1.clone())],
        );
        w.result(&mut rng, &ids[0], n.later_call.0, "done");
    }
    Generated {
        name: format!("heldout-{seed}-{index:02}-{project}"),
        lines: w.lines,
        cut_line,
        needles: needles
            .into_iter()
            .map(|(n, p)| (n.kind.to_string(), n.line, p))
            .collect(),
        distractors,
    }
}

/// Write `n` sessions of `seed` under `work` and make one case spec per session: the prefix
/// before the later part, compacted at `keepRecentTokens` 1,500 (the kept tail is the user's
/// request and one small call).
pub fn specs(seed: u64, n: usize, work: &Path) -> Result<Vec<CaseSpec>> {
    std::fs::create_dir_all(work)?;
    (0..n)
        .map(|i| {
            let g = generate_one(seed, i);
            let needles = g
                .needles
                .into_iter()
                .map(|(_, l, p)| (l, format!("{p:?}").to_lowercase()))
                .collect();
            harness::needle_case(
                work,
                &g.name,
                &g.lines,
                g.cut_line,
                "needles",
                needles,
                g.distractors,
            )
        })
        .collect()
}
