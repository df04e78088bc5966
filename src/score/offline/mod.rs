//! The embedded offline scorer `heuristic-v2` (`docs/jev.md#the-offline-scorer`, tuned on the
//! needle benchmark, `examples/needles.rs`): deterministic, explainable, no network.
//!
//! Per pair it computes signals in [0, 1] — `lex` (Okapi BM25 of the pair against the query),
//! `hit` (the best single output line's match with the query, its terms weighted by IDF across
//! the pairs and by the square of their rarity among the output's lines: a needle line, not a
//! topic), `arg` (the query names the call itself: IDF-weighted query terms among the string
//! values of its arguments — "the compose logs", "the worker log"), `mid` (1 when a line that
//! scores ≥ 70% of the best lies outside what a stub keeps), `ref` (its
//! paths seen in the kept context), `rec` (position in the region), `open_err`, `sup`
//! (superseded by a later identical call, a later write of what it read, or a later fix), `mut`
//! (edit/write), `short`, `quoted` (a middle line of its output quoted in the kept context) and
//! `listing` (≥ 80% of its lines are bare paths: a directory listing) — and combines them:
//!
//! ```text
//! useful = 0.05 + 0.25·lex + 0.45·hit + 0.25·arg + 0.15·ref + 0.10·rec + 0.20·open_err
//!          + 0.15·mut − 0.35·sup − 0.25·listing
//! full   = 0.20 + 0.50·short + 0.30·quoted + 0.20·open_err + 0.50·mid − 0.40·sup − 0.30·mut
//!          − 0.30·listing
//! ```
//!
//! clamped to [0, 1] and rounded to 2 decimals like Jev. The query: the last 3 user prompts and
//! the assistant's text of those turns (the plan it is about to follow) at 1.0, the first prompt
//! and the carried summary at 0.5 — all from the state JSON; the kept context (`kept_context`) is
//! only used by `ref` and `quoted`.
//!
//! v1 → v2 (needle benchmark, seed 1: needle retention 29% → 100%, distractors 0% → 2%, region
//! cut 98% → 85%; README "Compaction quality"): the query gained the assistant's recent text;
//! `hit`, `arg`, `mid` and `listing` are new; `ref` and `rec` weigh less; the tokenizer folds
//! plural and `-ing` / `-ed` endings. v1 dropped or stubbed almost every long output because
//! nothing looked inside it past the 20k-char BM25 window, and `full` only knew `short`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::{PairData, PairScore, Progress, ScoreRequest, ScoreSource, Scorer, ScorerError};

/// The scorer's name and version.
pub const NAME: &str = "heuristic-v2";

const K1: f64 = 1.2;
const B: f64 = 0.75;
const LEX_GAIN: f64 = 4.0;
const DOC_CAP: usize = 20_000;
/// A line scoring this much (Σ weight·idf·rarity of its query terms) is a full `hit`.
const HIT_SCALE: f64 = 4.0;
/// Lines scoring at least this share of the best line count as needed by `mid`.
const MID_SHARE: f64 = 0.7;
/// The design's stub (25% head + 25% tail, each ≤ 2,500 chars), for `mid`.
const STUB_FRACTION: f64 = 0.25;
const STUB_CAP: usize = 2_500;

/// One pair's signals (the explanation of its scores).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Signals {
    pub pair_id: String,
    pub lex: f64,
    pub hit: f64,
    pub arg: f64,
    pub mid: f64,
    #[serde(rename = "ref")]
    pub reference: f64,
    pub rec: f64,
    pub open_err: f64,
    pub sup: f64,
    #[serde(rename = "mut")]
    pub mutation: f64,
    pub short: f64,
    pub quoted: f64,
    pub listing: f64,
    pub useful: f64,
    pub full: f64,
}

/// The offline heuristic.
#[derive(Clone, Copy, Debug, Default)]
pub struct Heuristic;

/// Round to 2 decimals (only at the end).
fn r2(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 100.0).round() / 100.0
}

const STOP: &[&str] = &[
    "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "her", "was", "one",
    "our", "out", "has", "have", "had", "his", "how", "its", "may", "new", "now", "old", "see",
    "two", "way", "who", "did", "get", "let", "put", "say", "she", "too", "use", "this", "that",
    "with", "from", "they", "will", "would", "there", "their", "what", "about", "which", "when",
    "make", "like", "into", "than", "then", "them", "these", "some", "could", "other", "only",
    "also", "just", "more", "is", "it", "in", "on", "of", "to", "a", "an", "as", "at", "be", "by",
    "do", "if", "or", "so", "we", "no", "up", "me", "my", "true", "false", "null", "type", "text",
    "echo", "cd", "ls", "cat", "please", "should", "does", "done", "here", "file", "files",
];

/// The code-aware tokenizer: lowercase; whole path tokens plus their segments and basename;
/// identifiers split on camelCase / snake_case / kebab-case plus the whole; no tokens under 2
/// chars, hex blobs, long digit runs or stop words.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.');
    for raw in text.split(|c: char| !is_word(c)) {
        let raw = raw.trim_matches(|c: char| matches!(c, '.' | '-' | '/'));
        if raw.is_empty() {
            continue;
        }
        let mut parts: Vec<String> = Vec::new();
        let lower = raw.to_lowercase();
        if raw.contains('/') {
            parts.push(lower.clone());
            for seg in lower.split('/').filter(|s| !s.is_empty()) {
                parts.push(seg.to_string());
            }
        }
        for seg in raw.split(['/', '.']) {
            split_ident(seg, &mut parts);
        }
        for p in parts {
            if keep_token(&p) {
                out.push(stem(p));
            }
        }
    }
    out
}

fn split_ident(seg: &str, parts: &mut Vec<String>) {
    if seg.is_empty() {
        return;
    }
    parts.push(seg.to_lowercase());
    let mut cur = String::new();
    let mut prev_lower = false;
    let mut pieces = Vec::new();
    for c in seg.chars() {
        if c == '_' || c == '-' {
            if !cur.is_empty() {
                pieces.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            pieces.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        pieces.push(cur);
    }
    if pieces.len() > 1 {
        parts.extend(pieces);
    }
}

/// Fold plural and `-ing` / `-ed` endings of plain lowercase words (`listens`, `listening` →
/// `listen`; `logs` → `log`); anything with digits, dots or slashes is left alone.
fn stem(t: String) -> String {
    if !t.chars().all(|c| c.is_ascii_lowercase()) {
        return t;
    }
    let n = t.len();
    if n > 5 && t.ends_with("ies") {
        format!("{}y", &t[..n - 3])
    } else if n > 5 && t.ends_with("ing") {
        t[..n - 3].to_string()
    } else if n > 4 && t.ends_with("ed") && !t.ends_with("eed") {
        t[..n - 2].to_string()
    } else if n > 3
        && t.ends_with('s')
        && !t.ends_with("ss")
        && !t.ends_with("us")
        && !t.ends_with("is")
    {
        t[..n - 1].to_string()
    } else {
        t
    }
}

fn keep_token(t: &str) -> bool {
    if t.chars().count() < 2 || STOP.contains(&t) {
        return false;
    }
    let digits = t.chars().filter(char::is_ascii_digit).count();
    if digits > 6 && digits * 2 >= t.len() {
        return false;
    }
    if t.len() >= 16 && t.chars().all(|c| c.is_ascii_hexdigit()) {
        return false;
    }
    true
}

/// A pair's document text: args + output, capped at the first and last 20k chars.
fn doc_text(p: &PairData) -> String {
    let out = &p.output;
    let n = out.chars().count();
    let body = if n > 2 * DOC_CAP {
        let head: String = out.chars().take(DOC_CAP).collect();
        let tail: String = out.chars().skip(n - DOC_CAP).collect();
        format!("{head}\n{tail}")
    } else {
        out.clone()
    };
    format!("{} {}\n{}", p.tool, p.args, body)
}

/// Paths and file-like names a pair mentions (args `path`, path-like words of args and output head).
fn paths_of(p: &PairData) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(path) = p
        .args
        .get("path")
        .and_then(Value::as_str)
        .filter(|x| x.chars().count() >= 3)
    {
        out.insert(path.to_string());
    }
    let head: String = p.output.chars().take(2_000).collect();
    let args = p.args.to_string();
    for text in [args.as_str(), head.as_str()] {
        for w in text.split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\''
                        | '`'
                        | ','
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | ':'
                        | '<'
                        | '>'
                        | '='
                )
        }) {
            let w = w.trim_matches(|c: char| matches!(c, '.' | ';'));
            if w.chars().count() < 4 || w.starts_with('-') {
                continue;
            }
            let looks_path = w.contains('/') && w.chars().any(char::is_alphabetic);
            let has_ext = w.rsplit_once('.').is_some_and(|(a, e)| {
                !a.is_empty()
                    && (1..=5).contains(&e.len())
                    && e.chars().all(|c| c.is_ascii_alphanumeric())
                    && e.chars().any(|c| c.is_ascii_alphabetic())
            });
            if looks_path || has_ext {
                out.insert(w.to_string());
            }
        }
    }
    out
}

/// Lines of at least 20 chars from the middle of the output.
fn middle_lines(output: &str) -> Vec<&str> {
    let lines: Vec<&str> = output.lines().collect();
    let n = lines.len();
    let (a, b) = (n / 4, n - n / 4);
    lines[a..b.max(a)]
        .iter()
        .map(|l| l.trim())
        .filter(|l| l.chars().count() >= 20)
        .collect()
}

#[derive(serde::Deserialize, Default)]
struct StateView {
    #[serde(default)]
    first: Option<ExchangeView>,
    #[serde(default)]
    recent: Vec<ExchangeView>,
    #[serde(default)]
    carried: Option<String>,
}

#[derive(serde::Deserialize, Default)]
struct ExchangeView {
    #[serde(default)]
    user: String,
    #[serde(default)]
    assistant: String,
}

/// The string values of a call's arguments, space-separated (keys and JSON syntax left out).
fn args_text(args: &Value) -> String {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(args, &mut out);
    out.join(" ")
}

/// A directory listing: at least 5 non-empty lines, ≥ 80% of them one path-like word.
fn is_listing(output: &str) -> bool {
    let mut n = 0usize;
    let mut paths = 0usize;
    for l in output.lines().map(str::trim).filter(|l| !l.is_empty()) {
        n += 1;
        let one_word = !l.contains(char::is_whitespace);
        let pathish = l.contains('/')
            || l.rsplit_once('.').is_some_and(|(a, e)| {
                !a.is_empty()
                    && (1..=5).contains(&e.len())
                    && e.chars().all(|c| c.is_ascii_alphanumeric())
            });
        if one_word && pathish {
            paths += 1;
        }
    }
    n >= 5 && paths * 5 >= n * 4
}

/// `hit` and `mid` of one output: the best line's query score (terms weighted by the query
/// weight, the corpus IDF and their rarity among the output's lines) over [`HIT_SCALE`], and
/// whether a line scoring ≥ [`MID_SHARE`] of the best falls outside the stub's head and tail.
fn line_signals(
    output: &str,
    query: &BTreeMap<String, f64>,
    idf: &dyn Fn(&str) -> f64,
) -> (f64, f64) {
    let lines: Vec<&str> = output.split('\n').collect();
    let mut per_line: Vec<BTreeSet<String>> = Vec::with_capacity(lines.len());
    let mut lf: BTreeMap<String, usize> = BTreeMap::new();
    for l in &lines {
        let set: BTreeSet<String> = tokenize(l)
            .into_iter()
            .filter(|t| query.contains_key(t))
            .collect();
        for t in &set {
            *lf.entry(t.clone()).or_insert(0) += 1;
        }
        per_line.push(set);
    }
    let nl = lines.len() as f64;
    let rarity = |t: &str| {
        if nl <= 1.0 {
            1.0
        } else {
            ((1.0 + nl / lf.get(t).copied().unwrap_or(1) as f64).ln() / (1.0 + nl).ln()).powi(2)
        }
    };
    let weights: BTreeMap<&String, f64> = lf
        .keys()
        .map(|t| (t, query.get(t).copied().unwrap_or(0.0) * idf(t) * rarity(t)))
        .collect();
    let scores: Vec<f64> = per_line
        .iter()
        .map(|set| {
            set.iter()
                .map(|t| weights.get(t).copied().unwrap_or(0.0))
                .sum()
        })
        .collect();
    let best = scores.iter().copied().fold(0.0, f64::max);
    if best <= 0.0 {
        return (0.0, 0.0);
    }
    let (h, t, gone) = crate::text::stub(output, STUB_FRACTION, STUB_CAP);
    let mut mid = 0.0;
    if gone > 0 {
        let (hl, tl) = (h.chars().count(), t.chars().count());
        let total = output.chars().count();
        let mut at = 0usize;
        for (l, sc) in lines.iter().zip(&scores) {
            let len = l.chars().count();
            if *sc >= MID_SHARE * best && !(at + len <= hl || at >= total - tl) {
                mid = 1.0;
                break;
            }
            at += len + 1;
        }
    }
    ((best / HIT_SCALE).min(1.0), mid)
}

impl Heuristic {
    /// Every probe's signals and scores, in probe order.
    pub fn explain(&self, req: &ScoreRequest) -> Vec<Signals> {
        let pairs: Vec<&PairData> = req.probes.iter().map(|p| &p.pair).collect();
        let n = pairs.len();
        // Query: last 3 user prompts and the assistant's text of those turns at 1.0; first
        // prompt and carried summary at 0.5.
        let state: StateView = serde_json::from_str(&req.state_json).unwrap_or_default();
        let mut query: BTreeMap<String, f64> = BTreeMap::new();
        let mut add = |text: &str, w: f64| {
            for t in tokenize(text) {
                let e = query.entry(t).or_insert(0.0);
                if w > *e {
                    *e = w;
                }
            }
        };
        for x in state.recent.iter().rev().take(3) {
            add(&x.user, 1.0);
            add(&x.assistant, 1.0);
        }
        if let Some(f) = &state.first {
            add(&f.user, 0.5);
        }
        if let Some(c) = &state.carried {
            add(c, 0.5);
        }
        // Documents.
        let docs: Vec<BTreeMap<String, u32>> = pairs
            .iter()
            .map(|p| {
                let mut tf = BTreeMap::new();
                for t in tokenize(&doc_text(p)) {
                    *tf.entry(t).or_insert(0) += 1;
                }
                tf
            })
            .collect();
        let lens: Vec<f64> = docs
            .iter()
            .map(|d| d.values().map(|&c| f64::from(c)).sum())
            .collect();
        let avgdl = if n == 0 {
            1.0
        } else {
            (lens.iter().sum::<f64>() / n as f64).max(1.0)
        };
        let idf = |term: &str| {
            let df = docs.iter().filter(|d| d.contains_key(term)).count() as f64;
            (1.0 + (n as f64 - df + 0.5) / (df + 0.5)).ln()
        };
        let upper: f64 = query.iter().map(|(t, w)| w * idf(t) * (K1 + 1.0)).sum();
        let kept = req.kept_context.join("\n");
        let keys: Vec<String> = pairs
            .iter()
            .map(|p| super::pair::same_key(&p.tool, &p.args))
            .collect();
        let norm: Vec<String> = pairs
            .iter()
            .map(|p| format!("{}\u{0}{}", p.tool, super::pair::normalised_args(&p.args)))
            .collect();
        let paths: Vec<BTreeSet<String>> = pairs.iter().map(|p| paths_of(p)).collect();
        let mut out = Vec::with_capacity(n);
        for (i, p) in pairs.iter().enumerate() {
            let score: f64 = query
                .iter()
                .filter_map(|(t, w)| {
                    let tf = f64::from(*docs[i].get(t)?);
                    Some(w * idf(t) * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * lens[i] / avgdl)))
                })
                .sum();
            let lex = if upper > 0.0 {
                (LEX_GAIN * score / upper).min(1.0)
            } else {
                0.0
            };
            let later = || (i + 1..n).map(|j| pairs[j]);
            let reference = if paths[i].iter().any(|x| kept.contains(x.as_str())) {
                1.0
            } else if (i + 1..n).any(|j| {
                let text = doc_text(pairs[j]);
                paths[i].iter().any(|x| text.contains(x.as_str()))
            }) {
                0.5
            } else {
                0.0
            };
            let rec = if n <= 1 {
                1.0
            } else {
                i as f64 / (n - 1) as f64
            };
            let resolved_later = (i + 1..n).any(|j| keys[j] == keys[i] && !pairs[j].is_error);
            let open_err =
                if p.is_error && !(i + 1..n).any(|j| norm[j] == norm[i] && !pairs[j].is_error) {
                    1.0
                } else {
                    0.0
                };
            let path = p.args.get("path").and_then(Value::as_str);
            let written_later = p.tool == "read"
                && path.is_some_and(|x| {
                    later().any(|q| {
                        matches!(q.tool.as_str(), "edit" | "write")
                            && q.args.get("path").and_then(Value::as_str) == Some(x)
                    })
                });
            let sup = if (i + 1..n).any(|j| norm[j] == norm[i])
                || written_later
                || (p.is_error && resolved_later)
            {
                1.0
            } else {
                0.0
            };
            let mutation = if matches!(p.tool.as_str(), "edit" | "write") {
                1.0
            } else {
                0.0
            };
            let chars = p.output.chars().count() as f64;
            let short = if chars <= 1_500.0 {
                1.0
            } else {
                ((10_000.0 - chars) / 8_500.0).clamp(0.0, 1.0)
            };
            let quoted = if middle_lines(&p.output).iter().any(|l| kept.contains(l)) {
                1.0
            } else {
                0.0
            };
            let (hit, mid) = line_signals(&p.output, &query, &idf);
            // `arg`: the query names the call itself (its command's words, its path).
            let arg_terms: BTreeSet<String> = tokenize(&args_text(&p.args))
                .into_iter()
                .filter(|t| query.contains_key(t))
                .collect();
            let arg =
                (arg_terms.iter().map(|t| query[t] * idf(t)).sum::<f64>() / HIT_SCALE).min(1.0);
            let listing = if is_listing(&p.output) { 1.0 } else { 0.0 };
            let useful = 0.05
                + 0.25 * lex
                + 0.45 * hit
                + 0.25 * arg
                + 0.15 * reference
                + 0.10 * rec
                + 0.20 * open_err
                + 0.15 * mutation
                - 0.35 * sup
                - 0.25 * listing;
            let full = 0.20 + 0.50 * short + 0.30 * quoted + 0.20 * open_err + 0.50 * mid
                - 0.40 * sup
                - 0.30 * mutation
                - 0.30 * listing;
            let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
            out.push(Signals {
                pair_id: p.pair_id.clone(),
                lex: r3(lex),
                hit: r3(hit),
                arg: r3(arg),
                mid,
                reference,
                rec: r3(rec),
                open_err,
                sup,
                mutation,
                short: r3(short),
                quoted,
                listing,
                useful: r2(useful),
                full: r2(full),
            });
        }
        out
    }
}

impl Scorer for Heuristic {
    fn name(&self) -> String {
        NAME.to_string()
    }

    fn score(
        &self,
        req: &ScoreRequest,
        progress: &dyn Progress,
    ) -> Result<Vec<PairScore>, ScorerError> {
        progress.start(0, req.probes.len());
        let out = self
            .explain(req)
            .into_iter()
            .map(|s| PairScore {
                pair_id: s.pair_id,
                useful: s.useful,
                full: s.full,
                source: ScoreSource::Offline,
                model: None,
            })
            .collect();
        progress.finish();
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
