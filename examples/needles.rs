//! The needle benchmark: does `compact` keep what the agent will need next? (issue 9)
//!
//! ```text
//! cargo run --release --example needles                      # seed 1, 24 sessions, 1–200 KB
//! cargo run --release --example needles -- --seed 7 --sessions 48
//! cargo run --release --example needles -- --scores jev=target/needles/jev   # + a recorded scorer
//! ```
//!
//! Generates the needle suite (`examples/needles/suite.rs`; deterministic for a seed) into
//! `target/needles/seed-N/`, compacts every session with the embedded offline scorer (exactly
//! what `pi-shake compact` does, at a `keepRecentTokens` that cuts right before the kept tail)
//! and compares it with four baselines on the same sessions: keep everything, drop every tool
//! output, head+tail truncation of every output (sized to match our region), and pi's own
//! summarizer input (tool results cut at 2,000 chars).
//!
//! Any other scorer runs through the same benchmark from replay files: `score-with.sh SCORER
//! DIR` (written next to the sessions) runs `pi-shake compact --scorer SCORER --scores-out
//! DIR/NAME.scores.jsonl` on a copy of every session; `--scores LABEL=DIR` replays them here.
//!
//! Options: `--seed N` (1), `--sessions N` (24), `--min BYTES` (1000), `--max BYTES` (200000),
//! `--out DIR` (target/needles/seed-N), `--scores LABEL=DIR` (repeatable), `--json FILE`
//! (results as JSON), `--detail` (per-fact lines for our run), `--ratio R|none` (default: the
//! budget `pi-shake compact` works to by default, 0.15; `none`: the threshold path, heuristic-v2).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

#[path = "needles/suite.rs"]
mod suite;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::json;

use pi_shake::compact::TEMPLATE;
use pi_shake::score::Scorer;
use pi_shake::score::offline::Heuristic;
use pi_shake::score::replay::{Replay, write_scores};
use suite::{Cut, Fact, Generated, Pos, Role, RunResult, SuiteConfig, Summary};

struct Args {
    cfg: SuiteConfig,
    out: Option<PathBuf>,
    scores: Vec<(String, PathBuf)>,
    json: Option<PathBuf>,
    detail: bool,
    /// `--ratio R` (default: the CLI's, `DEFAULT_RATIO`) or `--ratio none` (the threshold path).
    ratio: Option<f64>,
}

fn parse() -> Result<Args> {
    let mut a = Args {
        cfg: SuiteConfig {
            seed: 1,
            sessions: 24,
            min_output: 1_000,
            max_output: 200_000,
        },
        out: None,
        scores: Vec::new(),
        json: None,
        detail: false,
        ratio: Some(pi_shake::compact::fit::DEFAULT_RATIO),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--seed" => a.cfg.seed = val()?.parse()?,
            "--sessions" => a.cfg.sessions = val()?.parse()?,
            "--min" => a.cfg.min_output = val()?.parse()?,
            "--max" => a.cfg.max_output = val()?.parse()?,
            "--out" => a.out = Some(val()?.into()),
            "--json" => a.json = Some(val()?.into()),
            "--ratio" => {
                let v = val()?;
                a.ratio = if v == "none" { None } else { Some(v.parse()?) };
            }
            "--scores" => {
                let v = val()?;
                let (l, d) = v.split_once('=').context("--scores LABEL=DIR")?;
                a.scores.push((l.to_string(), d.into()));
            }
            "--detail" => a.detail = true,
            "-h" | "--help" => {
                println!("see the header of examples/needles.rs");
                std::process::exit(0);
            }
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(a)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn k(x: u64) -> String {
    if x >= 10_000 {
        format!("{:.0}k", x as f64 / 1000.0)
    } else {
        format!("{:.1}k", x as f64 / 1000.0)
    }
}

fn row(s: &Summary) -> String {
    format!(
        "| {} | {} ({}/{}) | {} ({}/{}) | {} ({}/{}) | {} → {} (−{}) | {} → {} (−{}) |",
        s.method,
        pct(s.needle_retention()),
        s.needles_kept,
        s.needles,
        pct(s.middle_retention()),
        s.middle_kept,
        s.middle,
        pct(s.distractor_retention()),
        s.distractors_kept,
        s.distractors,
        k(s.region_before),
        k(s.region_after),
        pct(s.region_cut()),
        k(s.total_before),
        k(s.total_after),
        pct(s.total_cut()),
    )
}

const HEADER: &str = "| method | needle retention | middle needles | distractor retention | region tokens | total projected tokens |\n|---|---|---|---|---|---|";

fn bucket(f: &Fact) -> &'static str {
    match f.output_chars {
        0..10_000 => "1–10 KB",
        10_000..50_000 => "10–50 KB",
        _ => "50–200 KB",
    }
}

fn main() -> Result<()> {
    let a = parse()?;
    let dir = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("target/needles/seed-{}", a.cfg.seed)));
    let t0 = std::time::Instant::now();
    let suite = suite::generate(&a.cfg);
    let mut paths = Vec::new();
    let mut keeps = Vec::new();
    let mut manifest = Vec::new();
    let mut script = String::from(
        "#!/bin/sh\n# usage: score-with.sh SCORER OUTDIR [extra pi-shake compact flags]\n# Runs `pi-shake compact --scorer SCORER --scores-out OUTDIR/NAME.scores.jsonl` on a copy of\n# every session; then: cargo run --release --example needles -- --scores LABEL=OUTDIR\nset -e\nscorer=\"$1\"; out=\"$2\"; shift 2\nmkdir -p \"$out\"\ntmp=$(mktemp -d)\n",
    );
    for g in &suite {
        suite::check_isolation(g)?;
        let p = suite::write(g, &dir)?;
        let keep = suite::keep_for(&p, g)?;
        script.push_str(&format!(
            "cp '{0}' \"$tmp/{1}.jsonl\" && pi-shake compact --force --scorer \"$scorer\" --keep-recent-tokens {keep} --scores-out \"$out/{1}.scores.jsonl\" \"$@\" \"$tmp/{1}.jsonl\" >/dev/null\n",
            std::fs::canonicalize(&p)?.display(),
            g.name
        ));
        manifest.push(
            json!({"session": g.name, "path": p, "keepRecentTokens": keep, "facts": g.facts}),
        );
        paths.push(p);
        keeps.push(keep);
    }
    script.push_str("rm -rf \"$tmp\"\n");
    std::fs::write(dir.join("score-with.sh"), script)?;
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_string_pretty(&manifest)?,
    )?;
    let gen_time = t0.elapsed();

    // Our compact with the embedded scorer (+ its scores, replayable).
    let ours_name = match a.ratio {
        Some(r) => format!("{} at {}%", pi_shake::compact::fit::NAME, r * 100.0),
        None => Heuristic.name(),
    };
    let heur_dir = dir.join("heuristic");
    std::fs::create_dir_all(&heur_dir)?;
    let mut methods: Vec<(String, Vec<RunResult>)> = Vec::new();
    let mut ours = Vec::new();
    let t1 = std::time::Instant::now();
    for ((g, p), &keep) in suite.iter().zip(&paths).zip(&keeps) {
        let (r, plan) = suite::run_compact(p, g, keep, &Heuristic, &ours_name, a.ratio)?;
        write_scores(
            &heur_dir.join(format!("{}.scores.jsonl", g.name)),
            TEMPLATE,
            &plan.request,
            &plan.scores,
        )?;
        if a.detail {
            for (f, kept) in g.facts.iter().zip(&r.retained) {
                let pr = plan.pairs.iter().find(|x| {
                    plan.request.probes.iter().any(|pb| {
                        pb.pair.pair_id == x.id
                            && pb.pair.result_entry == x.result_entry.clone().unwrap_or_default()
                    }) && x.output_chars == f.output_chars
                });
                let sig = pr.and_then(|x| x.signals.as_ref());
                eprintln!(
                    "{} {:>16} {:>10} {:>6} {:>7} kept={} action={:?} useful={:?} full={:?} {}",
                    g.name,
                    f.kind,
                    format!("{:?}", f.role),
                    f.pos.name(),
                    f.output_chars,
                    kept,
                    pr.map(|x| x.action),
                    pr.and_then(|x| x.useful),
                    pr.and_then(|x| x.full),
                    sig.map(|s| serde_json::to_string(s).unwrap())
                        .unwrap_or_default()
                );
            }
        }
        ours.push(r);
    }
    let ours_time = t1.elapsed();
    let name_ours = format!("compact ({ours_name})");
    methods.push((name_ours.clone(), ours.clone()));
    for (label, sdir) in &a.scores {
        let mut rs = Vec::new();
        for ((g, p), &keep) in suite.iter().zip(&paths).zip(&keeps) {
            let f = sdir.join(format!("{}.scores.jsonl", g.name));
            let replay = Replay::from_file(&f, TEMPLATE, false)?;
            rs.push(suite::run_compact(p, g, keep, &replay, label, None)?.0);
        }
        methods.push((format!("compact ({label}, replayed)"), rs));
    }
    // Baselines.
    let ours_total = suite::summarise("", &suite, &ours, &|_| true);
    let ht = suite::head_tail_for(&suite, &ours, ours_total.region_after);
    let base = |cut: Cut, name: &str| -> Vec<RunResult> {
        suite
            .iter()
            .zip(&ours)
            .map(|(g, r)| suite::run_baseline(g, r, cut, name))
            .collect()
    };
    methods.push(("keep everything".into(), base(Cut::None, "keep")));
    methods.push(("drop every tool output".into(), base(Cut::Drop, "drop")));
    methods.push((
        format!("head+tail {ht}+{ht} chars (size-matched)"),
        base(Cut::HeadTail(ht), "ht"),
    ));
    methods.push((
        "head+tail 1000+1000 chars".into(),
        base(Cut::HeadTail(1_000), "ht1000"),
    ));
    methods.push((
        "pi summarizer input (2,000-char cut)".into(),
        base(Cut::Pi, "pi"),
    ));
    let hd = suite::size_for(&suite, &ours, ours_total.region_after, Cut::Head);
    methods.push((
        format!("pi-style head cut at {hd} chars (size-matched)"),
        base(Cut::Head(hd), "head"),
    ));

    // Report.
    let nfacts: usize = suite.iter().map(|g| g.facts.len()).sum();
    let needles = suite
        .iter()
        .flat_map(|g| &g.facts)
        .filter(|f| f.role == Role::Needle)
        .count();
    println!(
        "## Needle benchmark — seed {}, {} sessions, outputs {}–{} bytes\n",
        a.cfg.seed, a.cfg.sessions, a.cfg.min_output, a.cfg.max_output
    );
    println!(
        "{} planted lines: {needles} needles (depended on), {} distractors. Generated in {:.1?}, compacted in {:.1?}. Sessions in {}.\n",
        nfacts,
        nfacts - needles,
        gen_time,
        ours_time,
        dir.display()
    );
    println!("{HEADER}");
    let all: Vec<Summary> = methods
        .iter()
        .map(|(m, rs)| suite::summarise(m, &suite, rs, &|_| true))
        .collect();
    for s in &all {
        println!("{}", row(s));
    }
    let o = &all[0];
    println!(
        "\nOur actions over {} scored/pinned pairs: keep {}, stub {}, drop {}, pinned/unpaired {}.",
        o.actions.iter().sum::<usize>(),
        o.actions[0],
        o.actions[1],
        o.actions[2],
        o.actions[3]
    );
    // Beat check.
    println!("\n### Against the baselines\n");
    for s in all.iter().skip(1 + a.scores.len()) {
        // Size-matched baselines sit a few tokens under ours: within 1% is "the same size".
        let smaller = o.region_after as f64 <= s.region_after as f64 * 1.01;
        println!(
            "- vs {}: needles {:+.1} pts, distractors {:+.1} pts, region {} ({} vs {} tokens){}",
            s.method,
            100.0 * (o.needle_retention() - s.needle_retention()),
            100.0 * (o.distractor_retention() - s.distractor_retention()),
            if smaller {
                "smaller or equal"
            } else {
                "LARGER"
            },
            k(o.region_after),
            k(s.region_after),
            if o.needle_retention() > s.needle_retention() && smaller {
                " — beaten"
            } else if o.needle_retention() > s.needle_retention() {
                " — more retained, but larger"
            } else {
                " — NOT beaten"
            }
        );
    }
    // Targets.
    println!("\n### Targets\n");
    let t_needle = o.needle_retention() >= 0.95;
    let t_cut = o.region_cut() >= 0.60;
    let t_dist = o.distractor_retention() <= 0.20;
    println!(
        "- needle retention ≥ 95%: {} ({})\n- region-token cut ≥ 60%: {} ({})\n- distractor retention ≤ 20%: {} ({})",
        pct(o.needle_retention()),
        if t_needle { "met" } else { "MISSED" },
        pct(o.region_cut()),
        if t_cut { "met" } else { "MISSED" },
        pct(o.distractor_retention()),
        if t_dist { "met" } else { "MISSED" },
    );
    // Breakdowns.
    println!("\n### Needle retention by position (all methods)\n");
    println!("| method | head | middle | tail |\n|---|---|---|---|");
    for (m, rs) in &methods {
        let cells: Vec<String> = Pos::ALL
            .iter()
            .map(|&p| {
                let s = suite::summarise(m, &suite, rs, &|f| f.pos == p);
                format!(
                    "{} ({}/{})",
                    pct(s.needle_retention()),
                    s.needles_kept,
                    s.needles
                )
            })
            .collect();
        println!("| {m} | {} |", cells.join(" | "));
    }
    println!("\n### Ours by output size and by kind\n");
    println!("| slice | needles | distractors |\n|---|---|---|");
    for b in ["1–10 KB", "10–50 KB", "50–200 KB"] {
        let s = suite::summarise("", &suite, &ours, &|f| bucket(f) == b);
        println!(
            "| {b} | {} ({}/{}) | {} ({}/{}) |",
            pct(s.needle_retention()),
            s.needles_kept,
            s.needles,
            pct(s.distractor_retention()),
            s.distractors_kept,
            s.distractors
        );
    }
    for kind in [
        "error-log",
        "config",
        "port",
        "signature",
        "superseded-read",
        "test-run",
        "listing",
        "unrelated",
    ] {
        let s = suite::summarise("", &suite, &ours, &|f| f.kind == kind);
        let (kept, n) = if s.needles > 0 {
            (s.needles_kept, s.needles)
        } else {
            (s.distractors_kept, s.distractors)
        };
        println!(
            "| {kind} | {} | {} |",
            if s.needles > 0 {
                format!("{} ({kept}/{n})", pct(ratio(kept, n)))
            } else {
                "—".into()
            },
            if s.needles == 0 {
                format!("{} ({kept}/{n})", pct(ratio(kept, n)))
            } else {
                "—".into()
            },
        );
    }
    // Where our region tokens go.
    if let Some(j) = &a.json {
        let doc = json!({
            "seed": a.cfg.seed, "sessions": a.cfg.sessions,
            "minOutput": a.cfg.min_output, "maxOutput": a.cfg.max_output,
            "headTail": ht,
            "summaries": all,
            "runs": methods.iter().map(|(m, rs)| json!({"method": m, "runs": rs})).collect::<Vec<_>>(),
        });
        std::fs::write(j, serde_json::to_string_pretty(&doc)?)?;
    }
    let _: &[Generated] = &suite;
    Ok(())
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}
