//! The compaction-quality benchmarks of issues 12 and 19, driving a `pi-shake` binary from
//! outside (method and numbers: `benches/quality/README.md`).
//!
//! ```text
//! cargo run --release --example quality -- --bin target/release/pi-shake
//! cargo run --release --example quality -- --bin ../wt-compact/target/release/pi-shake --json q.json
//! cargo run --release --example quality -- --bin B -- --target-ratio 0.1   # one run with these args
//! ```
//!
//! Options: `--bin PATH` (else `$PI_SHAKE_BIN`, else `target/release/pi-shake`), `--session
//! FILE` (repeatable; default: `sessions-fixtures/pi-mono/*.jsonl` and `sessions-fixtures/pi/`),
//! `--run 'LABEL=ARGS'` (repeatable; replaces the default runs; ARGS split on spaces; a label
//! starting with `pi-size` runs only at real pi compactions, with `--max-summary-tokens` = pi's
//! summary size; `--target-ratio R` in ARGS sizes the baselines when pi-shake writes nothing),
//! `-- ARGS` (one run with these args), `--needles N` (sessions of the first needle generator,
//! `quality/heldout.rs`, default 32; 0 = none), `--seed S` (their seed, default 1), `--fresh N`
//! (`quality/fresh.rs`, default 32), `--fresh-seed S` (default 7), `--blind N`
//! (`quality/blind.rs`, default 32), `--blind-seed S` (default 11), `--sealed N`
//! (`quality/sealed.rs`, held out: default 0, run once at the end of a round),
//! `--sealed-seed S` (default 13), `--unseen N` (`quality/unseen.rs`, a tuning set since round 16: default 0),
//! `--unseen-seed S` (default 17), `--veiled N` (`quality/veiled.rs`, a tuning set since round
//! 17: default 0), `--veiled-seed S` (default 19), `--cloaked N` (`quality/cloaked.rs`, the
//! newest held-out generator: default 0), `--cloaked-seed S` (default 23), `--no-real`, `--no-chain` (no chained
//! compactions, `quality/chain.rs`), `--cuts F,F,…` (the real sessions' cut points as shares of
//! their lines, default `0.5,0.7`: more points, a wider check of every cut being written within
//! budget and loaded by pi), `--quick` (the 50% cut and the first run only), `--out DIR`
//! (default `target/quality`), `--json FILE` (also write the JSON there), `--json` (JSON on stdout
//! instead of markdown).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

#[path = "quality/blind.rs"]
mod blind;
#[path = "quality/chain.rs"]
mod chain;
#[path = "quality/cloaked.rs"]
mod cloaked;
#[path = "quality/fresh.rs"]
mod fresh;
#[path = "quality/harness.rs"]
mod harness;
#[path = "quality/heldout.rs"]
mod heldout;
#[path = "quality/sealed.rs"]
mod sealed;
#[path = "quality/unseen.rs"]
mod unseen;
#[path = "quality/veiled.rs"]
mod veiled;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::json;

use harness::{RunSpec, SessionFile};

struct Args {
    bin: PathBuf,
    sessions: Vec<PathBuf>,
    runs: Vec<RunSpec>,
    needles: usize,
    seed: u64,
    fresh: usize,
    fresh_seed: u64,
    blind: usize,
    blind_seed: u64,
    sealed: usize,
    sealed_seed: u64,
    unseen: usize,
    unseen_seed: u64,
    veiled: usize,
    veiled_seed: u64,
    cloaked: usize,
    cloaked_seed: u64,
    real: bool,
    chain: bool,
    quick: bool,
    cuts: Vec<f64>,
    out: PathBuf,
    /// `--json FILE`: also write the JSON there; `--json` alone: JSON on stdout, no markdown.
    json: Option<PathBuf>,
    json_stdout: bool,
}

fn run_spec(label: &str, args: &str) -> RunSpec {
    let args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
    // The value after flag `name` in the run's args, when it parses.
    fn value<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
        let i = args.iter().position(|a| a == name)?;
        args.get(i + 1)?.parse().ok()
    }
    RunSpec {
        label: label.to_string(),
        pi_size: label.starts_with("pi-size"),
        ratio: value(&args, "--target-ratio"),
        max_tokens: value(&args, "--max-summary-tokens"),
        args,
    }
}

fn default_runs() -> Vec<RunSpec> {
    vec![
        run_spec("default", ""),
        run_spec("ratio 0.30", "--target-ratio 0.30"),
        run_spec("ratio 0.10", "--target-ratio 0.10"),
        run_spec("ratio 0.05", "--target-ratio 0.05"),
        run_spec("pi-size", ""),
    ]
}

fn parse() -> Result<Args> {
    let root = harness::root();
    let mut a = Args {
        bin: std::env::var_os("PI_SHAKE_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/release/pi-shake")),
        sessions: Vec::new(),
        runs: Vec::new(),
        needles: 32,
        seed: 1,
        fresh: 32,
        fresh_seed: 7,
        blind: 32,
        blind_seed: 11,
        sealed: 0,
        sealed_seed: 13,
        unseen: 0,
        unseen_seed: 17,
        veiled: 0,
        veiled_seed: 19,
        cloaked: 0,
        cloaked_seed: 23,
        real: true,
        chain: true,
        quick: false,
        cuts: vec![0.5, 0.7],
        out: root.join("target/quality"),
        json: None,
        json_stdout: false,
    };
    let mut it = std::env::args().skip(1).peekable();
    while let Some(flag) = it.next() {
        let mut val = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--json" => match it.next_if(|v| !v.starts_with('-')) {
                Some(f) => a.json = Some(f.into()),
                None => a.json_stdout = true,
            },
            "--bin" => a.bin = val()?.into(),
            "--session" => a.sessions.push(val()?.into()),
            "--run" => {
                let v = val()?;
                let (l, r) = v.split_once('=').context("--run 'LABEL=ARGS'")?;
                a.runs.push(run_spec(l, r));
            }
            "--needles" => a.needles = val()?.parse()?,
            "--seed" => a.seed = val()?.parse()?,
            "--fresh" => a.fresh = val()?.parse()?,
            "--fresh-seed" => a.fresh_seed = val()?.parse()?,
            "--blind" => a.blind = val()?.parse()?,
            "--blind-seed" => a.blind_seed = val()?.parse()?,
            "--sealed" => a.sealed = val()?.parse()?,
            "--sealed-seed" => a.sealed_seed = val()?.parse()?,
            "--unseen" => a.unseen = val()?.parse()?,
            "--unseen-seed" => a.unseen_seed = val()?.parse()?,
            "--veiled" => a.veiled = val()?.parse()?,
            "--veiled-seed" => a.veiled_seed = val()?.parse()?,
            "--cloaked" => a.cloaked = val()?.parse()?,
            "--cloaked-seed" => a.cloaked_seed = val()?.parse()?,
            "--no-real" => a.real = false,
            "--no-chain" => a.chain = false,
            "--quick" => a.quick = true,
            "--cuts" => {
                a.cuts = val()?
                    .split(',')
                    .map(|f| f.trim().parse::<f64>())
                    .collect::<Result<_, _>>()?;
                anyhow::ensure!(
                    !a.cuts.is_empty() && a.cuts.iter().all(|f| *f > 0.0 && *f < 1.0),
                    "--cuts takes shares between 0 and 1"
                );
            }
            "--out" => a.out = val()?.into(),

            "--" => {
                let rest: Vec<String> = it.by_ref().collect();
                a.runs.push(run_spec("args", &rest.join(" ")));
            }
            "-h" | "--help" => {
                println!("see the header of examples/quality.rs and benches/quality/README.md");
                std::process::exit(0);
            }
            other => bail!("unknown option {other}"),
        }
    }
    if a.runs.is_empty() {
        a.runs = default_runs();
    }
    if a.quick {
        a.runs.truncate(1);
    }
    if a.sessions.is_empty() {
        for dir in ["sessions-fixtures/pi-mono", "sessions-fixtures/pi"] {
            let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(dir))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect();
            v.sort();
            a.sessions.extend(v);
        }
    }
    if !a.bin.exists() {
        bail!(
            "no pi-shake binary at {} (build it, or pass --bin / PI_SHAKE_BIN)",
            a.bin.display()
        );
    }
    Ok(a)
}

fn main() -> Result<()> {
    let a = parse()?;
    // The work directory is ours only if it is new or holds our marker: never delete anything else.
    let marker = a.out.join(".pi-shake-quality");
    if a.out.exists() {
        // (Runs before the marker existed left only these two folders.)
        let ours = std::fs::read_dir(&a.out)?
            .filter_map(|e| e.ok())
            .all(|e| ["real", "needles"].contains(&e.file_name().to_string_lossy().as_ref()));
        // (Later runs also leave `chain`, with the marker.)
        if !ours && !marker.exists() {
            bail!(
                "{} exists and is not a quality work directory; pass another --out",
                a.out.display()
            );
        }
        std::fs::remove_dir_all(&a.out)?;
    }
    std::fs::create_dir_all(&a.out)?;
    std::fs::write(
        &marker,
        "work directory of examples/quality.rs; deleted on every run\n",
    )?;
    let mut doc = json!({"bin": a.bin, "runs": a.runs});
    let t0 = std::time::Instant::now();
    if a.real {
        let work = a.out.join("real");
        let fracs: &[f64] = if a.quick { &[0.5] } else { &a.cuts };
        let mut specs = Vec::new();
        for p in &a.sessions {
            let s = SessionFile::read(p)?;
            specs.extend(harness::real_specs(&s, &work, fracs, !a.quick)?);
        }
        eprintln!("real sessions: {} points", specs.len());
        let (cases, skips) = harness::build_cases(specs)?;
        let rep = harness::measure(&a.bin, &cases, skips, &a.runs, &work, true)?;
        if !a.json_stdout {
            println!(
                "## Real sessions, predictive\n\n{}",
                harness::markdown(&rep, false)
            );
        }
        doc["realTotals"] = serde_json::to_value(harness::totals(&rep))?;
        doc["real"] = serde_json::to_value(&rep)?;
    }
    if a.real && a.chain && !a.quick {
        let ratios = [0.10, 0.05];
        eprintln!("chained compactions");
        let rows = chain::run(&a.bin, &a.sessions, &a.out.join("chain"), &ratios)?;
        if !a.json_stdout {
            println!(
                "## Chained compactions (the second carries the first)\n\n{}",
                chain::markdown(&rows, &ratios)
            );
        }
        doc["chain"] = serde_json::to_value(&rows)?;
    }
    // The needle generators: (dir and JSON key, file, role, seed, sessions, specs).
    type Specs = fn(u64, usize, &std::path::Path) -> Result<Vec<harness::CaseSpec>>;
    let generators: [(&str, &str, &str, u64, usize, Specs); 7] = [
        (
            "needles",
            "heldout.rs",
            "a tuning set since round 8",
            a.seed,
            a.needles,
            heldout::specs,
        ),
        (
            "fresh",
            "fresh.rs",
            "a tuning set",
            a.fresh_seed,
            a.fresh,
            fresh::specs,
        ),
        (
            "blind",
            "blind.rs",
            "a tuning set",
            a.blind_seed,
            a.blind,
            blind::specs,
        ),
        (
            "sealed",
            "sealed.rs",
            "held out",
            a.sealed_seed,
            a.sealed,
            sealed::specs,
        ),
        (
            "unseen",
            "unseen.rs",
            "a tuning set since round 16",
            a.unseen_seed,
            a.unseen,
            unseen::specs,
        ),
        (
            "veiled",
            "veiled.rs",
            "a tuning set since round 17",
            a.veiled_seed,
            a.veiled,
            veiled::specs,
        ),
        (
            "cloaked",
            "cloaked.rs",
            "held out",
            a.cloaked_seed,
            a.cloaked,
            cloaked::specs,
        ),
    ];
    let runs: Vec<RunSpec> = a.runs.iter().filter(|r| !r.pi_size).cloned().collect();
    for (key, file, role, seed, n, specs) in generators {
        if n == 0 {
            continue;
        }
        let work = a.out.join(key);
        let specs = specs(seed, n, &work)?;
        eprintln!("{file} needles: {} sessions", specs.len());
        let (cases, skips) = harness::build_cases(specs)?;
        let rep = harness::measure(&a.bin, &cases, skips, &runs, &work, true)?;
        if !a.json_stdout {
            println!(
                "## Needles: {file}, {role} (seed {seed}, {n} sessions)\n\n{}",
                harness::markdown(&rep, true)
            );
        }
        // `needleTotals` / `needles` for the first generator, as before; `freshTotals` / … after.
        let totals = if key == "needles" {
            "needleTotals".to_string()
        } else {
            format!("{key}Totals")
        };
        doc[totals] = serde_json::to_value(harness::totals(&rep))?;
        doc[key] = serde_json::to_value(&rep)?;
    }
    eprintln!("total {:.0} s", t0.elapsed().as_secs_f64());
    if let Some(j) = &a.json {
        std::fs::write(j, serde_json::to_string_pretty(&doc)?)?;
    }
    if a.json_stdout {
        println!("{}", serde_json::to_string(&doc)?);
    }
    Ok(())
}
