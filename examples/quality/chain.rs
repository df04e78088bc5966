//! The chained benchmark: a session compacted twice, scored on what the second summary keeps
//! of the facts the session goes on to use — those of the second region's tool outputs and
//! those only the first summary still holds.
//!
//! Method, per real session and pair of cut points A < B (user messages near 35/70%, 45/80%
//! and 30/60% of its lines, with no compaction of the session's own between them):
//!
//! 1. compact the prefix before A at `--target-ratio 0.10` (compaction C₁);
//! 2. splice C₁ into the session: the lines before A, C₁, then the lines from A to B with the
//!    entry at A re-parented onto C₁ (real pi reads C₁ as the latest compaction);
//! 3. compact that at each ratio (compaction C₂, which carries C₁'s summary);
//! 4. facts: the distinctive strings (as in the predictive benchmark) of C₁'s summary or of a
//!    tool output between C₁ and C₂'s first kept entry that the original session's lines after
//!    B use (user/assistant text, tool-call arguments), and that neither C₂'s kept part nor the
//!    prose between C₁ and its first kept entry holds;
//! 5. retention: facts C₂'s summary holds verbatim; split into facts of the second region's
//!    outputs and facts only C₁'s summary held.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::Value;

use super::harness::{self, Outcome, SessionFile, distinctive_into};

/// One chained case at one ratio.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainRow {
    pub session: String,
    pub a: usize,
    pub b: usize,
    pub ratio: f64,
    pub facts: usize,
    pub kept: usize,
    pub region_facts: usize,
    pub region_kept: usize,
    pub carried_facts: usize,
    pub carried_kept: usize,
}

/// Text a message's author wrote: user/assistant text and tool-call arguments.
fn prose_of(e: &Value, out: &mut HashSet<String>) {
    let m = &e["message"];
    if e["type"] != "message" || !matches!(m["role"].as_str(), Some("user" | "assistant")) {
        return;
    }
    match &m["content"] {
        Value::String(s) => distinctive_into(s, out),
        Value::Array(blocks) => {
            for b in blocks {
                match b["type"].as_str() {
                    Some("text") => distinctive_into(b["text"].as_str().unwrap_or(""), out),
                    Some("toolCall") => distinctive_into(&b["arguments"].to_string(), out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// A tool result's or a bash execution's output.
fn output_of(e: &Value, out: &mut HashSet<String>) {
    let m = &e["message"];
    if e["type"] != "message" {
        return;
    }
    match m["role"].as_str() {
        Some("toolResult") => {
            for b in m["content"].as_array().into_iter().flatten() {
                if b["type"] == "text" {
                    distinctive_into(b["text"].as_str().unwrap_or(""), out);
                }
            }
        }
        Some("bashExecution") => distinctive_into(m["output"].as_str().unwrap_or(""), out),
        _ => {}
    }
}

/// The last line of a written compaction.
fn written(o: Outcome) -> Option<(String, Value)> {
    match o {
        Outcome::Written { summary, copy, .. } => {
            let text = std::fs::read_to_string(copy).ok()?;
            let e: Value = serde_json::from_str(text.lines().last()?).ok()?;
            Some((summary, e))
        }
        _ => None,
    }
}

/// Run the chained cases of `sessions` at `ratios` (C₁ at 0.10).
pub fn run(bin: &Path, sessions: &[PathBuf], work: &Path, ratios: &[f64]) -> Result<Vec<ChainRow>> {
    std::fs::create_dir_all(work)?;
    let mut rows = Vec::new();
    for path in sessions {
        let s = SessionFile::read(path)?;
        let entries: Vec<Value> = s
            .lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect();
        let mut seen = HashSet::new();
        for (fa, fb) in [(0.35, 0.7), (0.45, 0.8), (0.3, 0.6)] {
            let (Some(a), Some(b)) = (s.cut_near(fa), s.cut_near(fb)) else {
                continue;
            };
            if b <= a + 5
                || !seen.insert((a, b))
                || entries[a..b].iter().any(|e| e["type"] == "compaction")
            {
                continue;
            }
            let prefix = work.join(format!("{}.{a}.jsonl", s.name));
            s.write_prefix(a, &prefix)?;
            let copy = work.join(format!("{}.{a}.c1.jsonl", s.name));
            let first = harness::run_pi_shake(
                bin,
                &prefix,
                &copy,
                20_000,
                &["--target-ratio".into(), "0.10".into()],
            )?;
            let Some((c1_summary, c1)) = written(first) else {
                continue;
            };
            let c1_id = c1["id"].as_str().context("compaction id")?.to_string();
            let mut reparented = entries[a].clone();
            reparented["parentId"] = Value::String(c1_id);
            let mut chained: Vec<String> = s.lines[..a].to_vec();
            chained.push(serde_json::to_string(&c1)?);
            chained.push(serde_json::to_string(&reparented)?);
            chained.extend(s.lines[a + 1..b].iter().cloned());
            let chained_entries: Vec<Value> = chained
                .iter()
                .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
                .collect();
            let chain_file = SessionFile {
                name: format!("{}.chain", s.name),
                path: work.join(format!("{}.{a}.{b}.jsonl", s.name)),
                lines: chained,
            };
            chain_file.write_prefix(chain_file.lines.len(), &chain_file.path)?;
            let mut later = HashSet::new();
            for e in &entries[b..] {
                prose_of(e, &mut later);
            }
            let mut carried = HashSet::new();
            distinctive_into(&c1_summary, &mut carried);
            for &r in ratios {
                let copy = work.join(format!("{}.{a}.{b}.{r}.jsonl", s.name));
                let out = harness::run_pi_shake(
                    bin,
                    &chain_file.path,
                    &copy,
                    20_000,
                    &["--target-ratio".into(), r.to_string()],
                )?;
                let Some((summary, c2)) = written(out) else {
                    eprintln!("  chain {} {a}→{b} at {r}: nothing written", s.name);
                    continue;
                };
                let fk = c2["firstKeptEntryId"].as_str().unwrap_or("");
                let Some(fk) = chained_entries.iter().position(|e| e["id"] == fk) else {
                    continue;
                };
                let mut excl = HashSet::new();
                let mut region = HashSet::new();
                for e in &chained_entries[fk..] {
                    prose_of(e, &mut excl);
                    output_of(e, &mut excl);
                }
                for e in &chained_entries[a + 1..fk.max(a + 1)] {
                    prose_of(e, &mut excl);
                    output_of(e, &mut region);
                }
                let facts: Vec<&String> = region
                    .union(&carried)
                    .filter(|t| later.contains(*t) && !excl.contains(*t))
                    .collect();
                let held =
                    |v: &[&String]| v.iter().filter(|t| summary.contains(t.as_str())).count();
                let (from_region, only_carried): (Vec<&String>, Vec<&String>) =
                    facts.iter().partition(|t| region.contains(**t));
                rows.push(ChainRow {
                    session: s.name.clone(),
                    a,
                    b,
                    ratio: r,
                    facts: facts.len(),
                    kept: held(&facts),
                    region_facts: from_region.len(),
                    region_kept: held(&from_region),
                    carried_facts: only_carried.len(),
                    carried_kept: held(&only_carried),
                });
            }
        }
    }
    Ok(rows)
}

fn cell(k: usize, n: usize) -> String {
    if n == 0 {
        "–".into()
    } else {
        format!("{:.2} ({k}/{n})", k as f64 / n as f64)
    }
}

/// One row per case and ratio, then the totals per ratio.
pub fn markdown(rows: &[ChainRow], ratios: &[f64]) -> String {
    let mut s = String::from(
        "| session | A → B | ratio | all facts | second region's outputs | only in the first summary |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} → {} | {:.2} | {} | {} | {} |\n",
            r.session,
            r.a,
            r.b,
            r.ratio,
            cell(r.kept, r.facts),
            cell(r.region_kept, r.region_facts),
            cell(r.carried_kept, r.carried_facts)
        ));
    }
    for &ratio in ratios {
        let sum = |f: fn(&ChainRow) -> usize| -> usize {
            rows.iter().filter(|r| r.ratio == ratio).map(f).sum()
        };
        s.push_str(&format!(
            "| **all** | | {ratio:.2} | {} | {} | {} |\n",
            cell(sum(|r| r.kept), sum(|r| r.facts)),
            cell(sum(|r| r.region_kept), sum(|r| r.region_facts)),
            cell(sum(|r| r.carried_kept), sum(|r| r.carried_facts))
        ));
    }
    s
}
