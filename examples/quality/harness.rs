//! The compaction-quality harness (issues 12 and 19): drive a `pi-shake` binary from outside on
//! copies of session prefixes, read the `compaction` entry it appends, and score its summary and
//! the baselines on the facts the session went on to use.
//!
//! Everything pi-side (migration, pi's cut, the region and kept part, pi's serialization of the
//! region, loading the compacted copies) is pi 1.6.0's own code, through
//! `benches/quality/pi_oracle.mjs`. This module is shared by `examples/quality.rs` (the
//! benchmark) and `tests/e2e/quality.rs` (its structural checks).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The repository root (where the oracle and fixtures live).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// pi's estimator on a text: `ceil(UTF-16 length / 4)`.
pub fn tokens_of(s: &str) -> u64 {
    (s.encode_utf16().count() as u64).div_ceil(4)
}

// ---------------------------------------------------------------------------------------------
// Distinctive strings
// ---------------------------------------------------------------------------------------------

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | ':' | '-' | '@' | '#' | '+' | '~')
}

fn trim_token(t: &str) -> &str {
    t.trim_matches(|c: char| matches!(c, '.' | ':' | '-' | '#' | '+' | '~' | '@'))
}

/// Is `t` distinctive: at least 8 chars, with a digit, `_`, `.`, `/`, `:` or a camelCase hump.
pub fn is_distinctive(t: &str) -> bool {
    let n = t.chars().count();
    if !(8..=200).contains(&n) || !t.chars().any(|c| c.is_ascii_alphanumeric()) {
        return false;
    }
    if t.chars()
        .any(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | '/' | ':'))
    {
        return true;
    }
    let b = t.as_bytes();
    b.windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// `text` with JSON string escapes of whitespace and quotes undone (a tool call's arguments
/// are JSON in the prose).
pub fn unescape(text: &str) -> String {
    text.replace("\\n", "\n")
        .replace("\\t", "\t")
        .replace("\\r", "\r")
        .replace("\\\"", "\"")
}

/// Every distinctive string of `text`, in order of appearance (with repeats).
pub fn distinctive_iter(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !token_char(c))
        .map(trim_token)
        .filter(|t| is_distinctive(t))
}

pub fn distinctive_into(text: &str, out: &mut HashSet<String>) {
    for t in distinctive_iter(text) {
        if !out.contains(t) {
            out.insert(t.to_string());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The pi oracle
// ---------------------------------------------------------------------------------------------

/// One projected message as plain text parts (see `pi_oracle.mjs`).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Part {
    pub role: String,
    pub prose: Vec<String>,
    pub output: Vec<String>,
    pub thinking: Vec<String>,
    pub tool: Option<String>,
    pub tokens: u64,
}

/// pi's view of a prefix: its cut, region, kept part, serialization, and the later texts.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prepared {
    pub ok: bool,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub nothing: bool,
    #[serde(default)]
    pub keep: u64,
    #[serde(default)]
    pub exact: bool,
    #[serde(default)]
    pub first_kept_entry_id: Option<String>,
    #[serde(default)]
    pub is_split_turn: bool,
    #[serde(default)]
    pub previous_summary: Option<String>,
    #[serde(default)]
    pub region: Vec<Part>,
    #[serde(default)]
    pub kept: Vec<Part>,
    #[serde(default)]
    pub serialized: String,
    #[serde(default)]
    pub later: Vec<String>,
}

impl Prepared {
    /// Tokens of the region pi-shake replaces: its messages plus the carried previous summary.
    pub fn region_tokens(&self) -> u64 {
        self.region.iter().map(|p| p.tokens).sum::<u64>()
            + self.previous_summary.as_deref().map_or(0, tokens_of)
    }
}

/// A request to the oracle's `prepare`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepareJob {
    pub path: PathBuf,
    pub keep: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_first_kept: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub later: Option<LaterJob>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaterJob {
    pub path: PathBuf,
    pub from_line: usize,
}

/// What real pi made of a compacted copy.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Checked {
    pub ok: bool,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub loaded: bool,
    #[serde(default)]
    pub starts_with_summary: bool,
    #[serde(default)]
    pub first_role: Option<String>,
    #[serde(default)]
    pub first_kept_entry_id: Option<String>,
    #[serde(default)]
    pub context_tokens: u64,
}

fn oracle_script() -> PathBuf {
    root().join("benches/quality/pi_oracle.mjs")
}

fn oracle_jobs<J: Serialize, R: for<'de> Deserialize<'de>>(
    cmd: &str,
    jobs: &[J],
) -> Result<Vec<R>> {
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let mut input = String::new();
    for j in jobs {
        input.push_str(&serde_json::to_string(j)?);
        input.push('\n');
    }
    let mut child = Command::new("node")
        .arg(oracle_script())
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running node (the pi oracle needs Node >= 20)")?;
    let mut stdin = child.stdin.take().context("oracle stdin")?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output()?;
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("oracle writer panicked"))??;
    if !out.status.success() {
        bail!(
            "pi oracle {cmd} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8(out.stdout)?;
    let rows: Vec<R> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<std::result::Result<_, _>>()
        .context("parsing the pi oracle's output")?;
    if rows.len() != jobs.len() {
        bail!(
            "pi oracle {cmd}: {} answers for {} jobs",
            rows.len(),
            jobs.len()
        );
    }
    Ok(rows)
}

pub fn prepare(jobs: &[PrepareJob]) -> Result<Vec<Prepared>> {
    oracle_jobs("prepare", jobs)
}

pub fn check(jobs: &[(PathBuf, String)]) -> Result<Vec<Checked>> {
    let js: Vec<Value> = jobs
        .iter()
        .map(|(p, s)| json!({"path": p, "summary": s}))
        .collect();
    oracle_jobs("check", &js)
}

/// Migrate a session to v3 with pi's own SessionManager (on a copy), writing `out`.
pub fn migrate(input: &Path, out: &Path) -> Result<()> {
    let st = Command::new("node")
        .arg(oracle_script())
        .arg("migrate")
        .arg(input)
        .arg(out)
        .status()?;
    if !st.success() {
        bail!("migrating {} failed", input.display());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Sessions, cut points, cases
// ---------------------------------------------------------------------------------------------

/// A session as its raw lines.
pub struct SessionFile {
    pub name: String,
    pub path: PathBuf,
    pub lines: Vec<String>,
}

impl SessionFile {
    pub fn read(path: &Path) -> Result<SessionFile> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let lines = text.lines().map(str::to_string).collect();
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(SessionFile {
            name,
            path: path.to_path_buf(),
            lines,
        })
    }

    fn parsed(&self, i: usize) -> Option<Value> {
        serde_json::from_str(&self.lines[i]).ok()
    }

    /// Indices of lines holding a user message.
    pub fn user_lines(&self) -> Vec<usize> {
        (0..self.lines.len())
            .filter(|&i| {
                self.parsed(i)
                    .is_some_and(|e| e["type"] == "message" && e["message"]["role"] == "user")
            })
            .collect()
    }

    /// The user message line nearest to `frac` of the file's lines (never the first message).
    pub fn cut_near(&self, frac: f64) -> Option<usize> {
        let want = (self.lines.len() as f64 * frac).round() as i64;
        self.user_lines()
            .into_iter()
            .filter(|&i| i > 1)
            .min_by_key(|&i| (i as i64 - want).abs())
    }

    /// Real pi compactions: (line, firstKeptEntryId, summary), mock summaries excluded.
    pub fn pi_compactions(&self) -> Vec<(usize, String, String)> {
        (0..self.lines.len())
            .filter_map(|i| {
                let e = self.parsed(i)?;
                if e["type"] != "compaction" || e["fromHook"] == true {
                    return None;
                }
                let s = e["summary"].as_str()?.to_string();
                if s.contains("(mock summary)") {
                    return None;
                }
                Some((i, e["firstKeptEntryId"].as_str()?.to_string(), s))
            })
            .collect()
    }

    /// Write lines `[0, end)` to `path`.
    pub fn write_prefix(&self, end: usize, path: &Path) -> Result<()> {
        let mut s = self.lines[..end].join("\n");
        s.push('\n');
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(path, s)?;
        Ok(())
    }
}

/// Which facts a case is scored on.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FactRule {
    /// The predictive rule: distinctive strings of the region's tool output that the later
    /// lines use and that neither the kept part nor the region's prose holds.
    Predictive,
    /// Given lines (needles, each with a label such as its position) that must survive
    /// verbatim; `distractors` are reported beside.
    Lines {
        needles: Vec<(String, String)>,
        distractors: Vec<String>,
    },
}

/// One compaction point: a prefix of a session, compacted at pi's cut.
pub struct Case {
    pub session: String,
    /// `50%`, `70%`, `pi@LINE`, `needles`.
    pub point: String,
    pub prefix: PathBuf,
    pub keep: u64,
    pub prepared: Prepared,
    /// pi's own summary at this cut (pi compaction points only).
    pub pi_summary: Option<String>,
    pub facts: Vec<String>,
    /// A label per fact (needles: their position), or none.
    pub labels: Vec<String>,
    pub distractors: Vec<String>,
    /// Predictive cases: the distinctive strings of the region's prose (user and assistant
    /// text, tool-call arguments, carried summaries) that the later lines use and the kept
    /// part does not hold. Not facts by the issues' rule (it assumes a summary keeps the prose
    /// whole), but pi-shake's skeleton cuts prose under a budget: this shows what that costs.
    pub prose: Vec<String>,
    /// Where each prose string first appears: `user`, `assistant`, `call:TOOL` (its arguments),
    /// or the role of another message.
    pub prose_src: Vec<String>,
    /// Facts are distinctive strings, kept when the summary holds the same string as a
    /// distinctive string of its own (not merely inside a longer one); else lines, kept when
    /// the summary holds them verbatim.
    pub by_token: bool,
}

/// The facts a case is scored on.
pub struct Facts {
    pub facts: Vec<String>,
    pub labels: Vec<String>,
    pub distractors: Vec<String>,
    /// See [`Case::prose`].
    pub prose: Vec<String>,
    pub prose_src: Vec<String>,
}

/// The facts of a prepared prefix under `rule`.
pub fn facts_of(p: &Prepared, rule: &FactRule) -> Facts {
    let region_out: String = p
        .region
        .iter()
        .flat_map(|x| x.output.iter())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    let kept_text: String = p
        .kept
        .iter()
        .flat_map(|x| x.prose.iter().chain(&x.output).chain(&x.thinking))
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    match rule {
        FactRule::Predictive => {
            let mut out = HashSet::new();
            distinctive_into(&region_out, &mut out);
            let mut later = HashSet::new();
            for t in &p.later {
                distinctive_into(t, &mut later);
            }
            let mut excl = HashSet::new();
            distinctive_into(&kept_text, &mut excl);
            // Prose strings are read from unescaped text: a tool call's arguments are JSON
            // (`\tthis.x` is `this.x` after a tab).
            let mut kept_strings = HashSet::new();
            distinctive_into(&unescape(&kept_text), &mut kept_strings);
            let mut prose = HashSet::new();
            let mut src: std::collections::HashMap<String, String> = Default::default();
            for x in &p.region {
                for s in &x.prose {
                    distinctive_into(s, &mut excl);
                    let mut here = HashSet::new();
                    distinctive_into(&unescape(s), &mut here);
                    for h in &here {
                        let kind = if x.role == "assistant"
                            && s.contains('(')
                            && s.ends_with(')')
                            && s.find('(').is_some_and(|i| !s[..i].contains(' '))
                        {
                            format!("call:{}", &s[..s.find('(').unwrap_or(0)])
                        } else {
                            x.role.clone()
                        };
                        src.entry(h.clone()).or_insert(kind);
                    }
                    prose.extend(here);
                }
            }
            let prose: BTreeSet<String> = prose
                .into_iter()
                .filter(|t| later.contains(t) && !kept_strings.contains(t))
                .collect();
            let prose_src = prose
                .iter()
                .map(|t| src.get(t).cloned().unwrap_or_default())
                .collect();
            // The carried previous summary is neither the kept part nor the region's prose (the
            // issue's rule): a string it shares with a region output is a fact like any other.
            let facts: BTreeSet<String> = out
                .into_iter()
                .filter(|t| later.contains(t) && !excl.contains(t))
                .collect();
            Facts {
                facts: facts.into_iter().collect(),
                labels: Vec::new(),
                distractors: Vec::new(),
                prose: prose.into_iter().collect(),
                prose_src,
            }
        }
        FactRule::Lines {
            needles,
            distractors,
        } => {
            let keep = |l: &str| region_out.contains(l) && !kept_text.contains(l);
            let needles: Vec<&(String, String)> = needles.iter().filter(|(l, _)| keep(l)).collect();
            Facts {
                facts: needles.iter().map(|(l, _)| l.clone()).collect(),
                labels: needles.iter().map(|(_, k)| k.clone()).collect(),
                distractors: distractors.iter().filter(|l| keep(l)).cloned().collect(),
                prose: Vec::new(),
                prose_src: Vec::new(),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Running pi-shake
// ---------------------------------------------------------------------------------------------

/// One configuration of pi-shake to measure (extra arguments after `compact --force`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSpec {
    pub label: String,
    pub args: Vec<String>,
    /// The target ratio the run aims at, if any (baselines are sized to it when pi-shake
    /// writes nothing).
    pub ratio: Option<f64>,
    /// The run's `--max-summary-tokens`, if any (its budget, with `ratio` the smaller of the two).
    pub max_tokens: Option<u64>,
    /// Run at pi compaction points with `--max-summary-tokens` = pi's summary size.
    pub pi_size: bool,
}

/// What one pi-shake run did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Written {
        summary: String,
        first_kept_entry_id: String,
        copy: PathBuf,
    },
    NotWritten {
        reason: String,
    },
    Unsupported {
        message: String,
    },
    Failed {
        code: i32,
        message: String,
    },
}

/// Run `BIN compact --force --json --keep-recent-tokens KEEP [args] COPY` on a fresh copy.
pub fn run_pi_shake(
    bin: &Path,
    prefix: &Path,
    copy: &Path,
    keep: u64,
    args: &[String],
) -> Result<Outcome> {
    std::fs::copy(prefix, copy)?;
    let agent = copy.with_extension("agent");
    std::fs::create_dir_all(&agent)?;
    let out = Command::new(bin)
        .arg("compact")
        .arg("--force")
        .arg("--json")
        .arg("--keep-recent-tokens")
        .arg(keep.to_string())
        .args(args)
        .arg(copy)
        .env("PI_CODING_AGENT_DIR", &agent)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code().unwrap_or(-1);
    if code == 2 {
        return Ok(Outcome::Unsupported {
            message: stderr.lines().next().unwrap_or("").to_string(),
        });
    }
    if code != 0 {
        return Ok(Outcome::Failed {
            code,
            message: stderr.trim().to_string(),
        });
    }
    let doc: Value = serde_json::from_slice(&out.stdout).context("pi-shake --json output")?;
    if doc["compacted"] != true {
        return Ok(Outcome::NotWritten {
            reason: doc["reason"]
                .as_str()
                .or(doc["summary"].as_str())
                .unwrap_or("compacted: false")
                .to_string(),
        });
    }
    let text = std::fs::read_to_string(copy)?;
    let last = text.lines().last().context("empty file after compact")?;
    let e: Value = serde_json::from_str(last).context("last line after compact")?;
    if e["type"] != "compaction" {
        bail!("the last line after compact is a {} entry", e["type"]);
    }
    Ok(Outcome::Written {
        summary: e["summary"].as_str().unwrap_or("").to_string(),
        first_kept_entry_id: e["firstKeptEntryId"].as_str().unwrap_or("").to_string(),
        copy: copy.to_path_buf(),
    })
}

// ---------------------------------------------------------------------------------------------
// Baselines
// ---------------------------------------------------------------------------------------------

fn head_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn tail_chars(s: &str, n: usize) -> &str {
    let len = s.chars().count();
    if n >= len {
        return s;
    }
    match s.char_indices().nth(len - n) {
        Some((i, _)) => &s[i..],
        None => "",
    }
}

/// `s` cut to about `cap` chars: head and tail halves around a marker, each cut back to a
/// token boundary so that no partial string is produced.
pub fn head_tail(s: &str, cap: usize) -> String {
    let n = s.chars().count();
    if n <= cap {
        return s.to_string();
    }
    if cap == 0 {
        return String::new();
    }
    let h = cap.div_ceil(2);
    let head = head_chars(s, h);
    let head = match head.rfind(|c: char| !token_char(c)) {
        Some(i) if s[head.len()..].starts_with(|c: char| token_char(c)) => &head[..i],
        _ => head,
    };
    let tail = tail_chars(s, cap - h);
    let start = s.len() - tail.len();
    let tail = if start > 0 && s[..start].ends_with(|c: char| token_char(c)) {
        match tail.find(|c: char| !token_char(c)) {
            Some(i) => &tail[i..],
            None => "",
        }
    } else {
        tail
    };
    format!("{head}\n[… {} chars cut …]\n{tail}", n - cap)
}

/// The largest per-item cap `c` with Σ min(len_i, c) ≤ budget.
fn water_fill(lens: &[usize], budget: usize) -> usize {
    let total: usize = lens.iter().sum();
    if total <= budget {
        return lens.iter().copied().max().unwrap_or(0);
    }
    let (mut lo, mut hi) = (0usize, lens.iter().copied().max().unwrap_or(0));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let s: usize = lens.iter().map(|&l| l.min(mid)).sum();
        if s <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Prose items of a region are capped like pi-shake's prose: whole up to 2,000 chars.
const PROSE_CAP: usize = 2_000;

/// The region's prose (carried summary, user and assistant text, tool calls), one item a line.
fn prose_text(p: &Prepared) -> String {
    let mut s = String::new();
    if let Some(prev) = &p.previous_summary {
        s.push_str(prev);
        s.push('\n');
    }
    for x in &p.region {
        for t in &x.prose {
            // Lower-cased, so that a label (`bashExecution`) is never a distinctive string.
            let role = x.role.to_lowercase();
            s.push_str(&format!("[{role}]: {}\n", head_tail(t, PROSE_CAP)));
        }
    }
    s
}

fn outputs(p: &Prepared) -> Vec<&str> {
    p.region
        .iter()
        .flat_map(|x| x.output.iter().map(String::as_str))
        .collect()
}

/// A baseline's text: what `outs` makes of the tool outputs with the whole `budget` (chars).
/// No prose: by the fact rule it holds no fact, so a baseline that spent room on it would only
/// be weaker (the issues' baselines give the whole size to the tool outputs too).
fn compose(budget: usize, outs: &dyn Fn(usize) -> Vec<String>) -> String {
    let mut s = String::new();
    for o in outs(budget) {
        if !o.is_empty() {
            if !s.is_empty() {
                s.push('\n');
            }
            s.push_str(&o);
        }
    }
    s
}

pub fn keep_all(p: &Prepared) -> String {
    let mut s = prose_text(p);
    for o in outputs(p) {
        s.push('\n');
        s.push_str(o);
    }
    s
}

pub fn drop_all(p: &Prepared) -> String {
    prose_text(p)
}

/// The rendering `f(budget chars)` for the largest budget whose result fits in `tokens`
/// (or the smallest rendering, when nothing fits).
fn fit(tokens: u64, f: &dyn Fn(usize) -> String) -> String {
    let (mut lo, mut hi) = (0usize, (tokens as usize) * 4);
    if tokens_of(&f(hi)) <= tokens {
        return f(hi);
    }
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if tokens_of(&f(mid)) <= tokens {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    f(lo)
}

/// Head+tail truncation of every tool output, the whole rendering sized to `tokens`.
pub fn head_tail_at(p: &Prepared, tokens: u64) -> String {
    fit(tokens, &|b| head_tail_chars(p, b))
}

fn head_tail_chars(p: &Prepared, budget: usize) -> String {
    compose(budget, &|left| {
        let outs = outputs(p);
        // Each output costs a separator and a cut marker too.
        let lens: Vec<usize> = outs.iter().map(|o| o.chars().count() + 1).collect();
        let c = water_fill(&lens, left).saturating_sub(1);
        outs.iter().map(|o| head_tail(o, c)).collect()
    })
}

/// The naive line keeper: the output lines richest in distinctive strings, no other signal,
/// the whole rendering sized to `tokens`; kept lines stay in session order under their output.
pub fn naive_lines_at(p: &Prepared, tokens: u64) -> String {
    fit(tokens, &|b| naive_lines_chars(p, b))
}

fn naive_lines_chars(p: &Prepared, budget: usize) -> String {
    let outs = outputs(p);
    struct L {
        out: usize,
        line: usize,
        score: usize,
        len: usize,
    }
    let mut seen = HashSet::new();
    let mut cands = Vec::new();
    for (oi, o) in outs.iter().enumerate() {
        for (li, line) in o.lines().enumerate() {
            let set: HashSet<&str> = distinctive_iter(line).collect();
            if set.is_empty() || !seen.insert(line) {
                continue;
            }
            cands.push(L {
                out: oi,
                line: li,
                score: set.len(),
                len: line.chars().count() + 1,
            });
        }
    }
    cands.sort_by(|a, b| b.score.cmp(&a.score).then(a.len.cmp(&b.len)));
    compose(budget, &|left| {
        keep_lines(&outs, cands.iter().map(|c| (c.out, c.line, c.len)), left)
    })
}

/// A line keeper's text: the lines of `order` ((output, line, chars + newline), best first)
/// that fit in `room` chars, each skipped when it does not, shown in session order under their
/// output.
fn keep_lines(
    outs: &[&str],
    order: impl Iterator<Item = (usize, usize, usize)>,
    mut room: usize,
) -> Vec<String> {
    let mut chosen: HashSet<(usize, usize)> = HashSet::new();
    for (out, line, len) in order {
        if len <= room {
            room -= len;
            chosen.insert((out, line));
        }
    }
    outs.iter()
        .enumerate()
        .map(|(k, o)| {
            o.lines()
                .enumerate()
                .filter(|(li, _)| chosen.contains(&(k, *li)))
                .map(|(_, l)| l)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

/// The foresight line keeper: a ceiling, not a baseline. It knows which facts the later turns
/// use and keeps, greedily, the output lines holding the most facts not yet kept per char, the
/// whole rendering sized to `tokens` (kept lines in session order under their output, no call
/// headers, no prose). No summary can know this; the gap between pi-shake and it at a size is
/// what a better guess could still gain there, and where it stays below an issue's line, that
/// line cannot be met at that size by keeping whole lines.
pub fn foresight_lines_at(case: &Case, tokens: u64) -> String {
    let outs = outputs(&case.prepared);
    let index: std::collections::HashMap<&str, usize> = case
        .facts
        .iter()
        .enumerate()
        .map(|(i, f)| (f.as_str(), i))
        .collect();
    // Lines holding at least one fact: (output, line, chars + newline, the facts it holds).
    let mut cands: Vec<(usize, usize, usize, Vec<usize>)> = Vec::new();
    let mut seen = HashSet::new();
    for (oi, o) in outs.iter().enumerate() {
        for (li, line) in o.lines().enumerate() {
            let held: Vec<usize> = if case.by_token {
                distinctive_iter(line)
                    .filter_map(|s| index.get(s).copied())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect()
            } else {
                (0..case.facts.len())
                    .filter(|&i| line.contains(case.facts[i].as_str()))
                    .collect()
            };
            if held.is_empty() || !seen.insert(line) {
                continue;
            }
            cands.push((oi, li, line.chars().count() + 1, held));
        }
    }
    // The greedy order, once: most facts not yet held per char, shorter first on ties.
    let mut got = vec![false; case.facts.len()];
    let mut left: Vec<usize> = (0..cands.len()).collect();
    let mut order = Vec::new();
    loop {
        let gain = |c: usize| cands[c].3.iter().filter(|&&f| !got[f]).count();
        let best = left
            .iter()
            .copied()
            .filter(|&c| gain(c) > 0)
            .max_by(|&a, &b| {
                let (ga, gb) = (
                    gain(a) as f64 / cands[a].2 as f64,
                    gain(b) as f64 / cands[b].2 as f64,
                );
                ga.total_cmp(&gb).then(cands[b].2.cmp(&cands[a].2))
            });
        let Some(b) = best else { break };
        for &f in &cands[b].3 {
            got[f] = true;
        }
        order.push(b);
        left.retain(|&c| c != b);
    }
    fit(tokens, &|budget| {
        compose(budget, &|room| {
            let picks = order.iter().map(|&c| (cands[c].0, cands[c].1, cands[c].2));
            keep_lines(&outs, picks, room)
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------

/// A summary (or baseline rendering) scored on a case.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Score {
    pub facts: usize,
    pub kept: usize,
    pub distractors: usize,
    pub distractors_kept: usize,
    /// Prose strings ([`Case::prose`]) and how many the text holds.
    pub prose: usize,
    pub prose_kept: usize,
    /// [kept, strings] of the prose strings per source ([`Case::prose_src`]).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub prose_by_source: BTreeMap<String, [usize; 2]>,
    pub summary_tokens: u64,
    pub region_tokens: u64,
    /// [kept, facts] per fact label (needle position), when the case has labels.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_label: BTreeMap<String, [usize; 2]>,
}

/// The facts of `case` that `text` does not hold.
pub fn missed_facts(case: &Case, text: &str) -> Vec<String> {
    let mut set = HashSet::new();
    distinctive_into(text, &mut set);
    case.facts
        .iter()
        .filter(|f| {
            if case.by_token {
                !set.contains(*f)
            } else {
                !text.contains(f.as_str())
            }
        })
        .cloned()
        .collect()
}

/// How many of `missed` sit in an output whose call the summary names by its pair id (`(t12;
/// …)`), or in an output outside the pairs whose entry it names (`` `ls` (7c6d2c79; 8 of 13
/// lines) ``: a shell command the user ran, a result without its call), so that one `pi-shake
/// recall t12` (the `shake_recall` tool inside pi) reads them back. `copy` is the compacted
/// prefix: its lines give each call's id (`t{line}`, `t{line}_{k}`) and each result's stored
/// text.
pub fn recallable(case: &Case, copy: &Path, summary: &str, missed: &[String]) -> usize {
    let Ok(text) = std::fs::read_to_string(copy) else {
        return 0;
    };
    let mut named: HashSet<&str> = HashSet::new();
    for (i, _) in summary.match_indices("(t") {
        let rest = &summary[i + 1..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '_' || c == 't'))
            .unwrap_or(rest.len());
        if rest[end..].starts_with(';') && end > 1 {
            named.insert(&rest[..end]);
        }
    }
    let mut ids: BTreeMap<String, String> = BTreeMap::new();
    let mut held: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let m = &v["message"];
        // Named by its entry id: `(7c6d2c79; …` or `… history; 7c6d2c79; …`.
        let entry_named = || {
            v["id"]
                .as_str()
                .is_some_and(|e| summary.contains(&format!("{e}; ")))
        };
        if m["role"] == "bashExecution" && entry_named() {
            held.push(m["output"].as_str().unwrap_or("").to_string());
        } else if m["role"] == "assistant" {
            let calls = m["content"].as_array().into_iter().flatten();
            for (k, c) in calls.filter(|b| b["type"] == "toolCall").enumerate() {
                let id = if k == 0 {
                    format!("t{}", n + 1)
                } else {
                    format!("t{}_{}", n + 1, k + 1)
                };
                ids.insert(c["id"].as_str().unwrap_or("").to_string(), id);
            }
        } else if m["role"] == "toolResult"
            && (m["toolCallId"]
                .as_str()
                .and_then(|c| ids.get(c))
                .is_some_and(|id| named.contains(id.as_str()))
                || entry_named())
        {
            held.push(match &m["content"] {
                Value::String(t) => t.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            });
        }
    }
    let all = held.join("\n");
    let mut set = HashSet::new();
    if case.by_token {
        distinctive_into(&all, &mut set);
    }
    missed
        .iter()
        .filter(|f| {
            if case.by_token {
                set.contains(*f)
            } else {
                all.contains(f.as_str())
            }
        })
        .count()
}

impl Score {
    pub fn of(case: &Case, text: &str) -> Score {
        let mut set = HashSet::new();
        if case.by_token {
            distinctive_into(text, &mut set);
        }
        let holds = |f: &String| {
            if case.by_token {
                set.contains(f)
            } else {
                text.contains(f.as_str())
            }
        };
        let mut by_label: BTreeMap<String, [usize; 2]> = BTreeMap::new();
        for (f, l) in case.facts.iter().zip(&case.labels) {
            let e = by_label.entry(l.clone()).or_default();
            e[0] += usize::from(holds(f));
            e[1] += 1;
        }
        let mut prose_by_source: BTreeMap<String, [usize; 2]> = BTreeMap::new();
        for (f, k) in case.prose.iter().zip(&case.prose_src) {
            let e = prose_by_source.entry(k.clone()).or_default();
            e[0] += usize::from(set.contains(f));
            e[1] += 1;
        }
        Score {
            by_label,
            prose_by_source,
            facts: case.facts.len(),
            kept: case.facts.iter().filter(|f| holds(f)).count(),
            distractors: case.distractors.len(),
            distractors_kept: case.distractors.iter().filter(|f| holds(f)).count(),
            prose: case.prose.len(),
            prose_kept: case.prose.iter().filter(|f| set.contains(*f)).count(),
            summary_tokens: tokens_of(text),
            region_tokens: case.prepared.region_tokens(),
        }
    }

    pub fn retention(&self) -> Option<f64> {
        (self.facts > 0).then(|| self.kept as f64 / self.facts as f64)
    }

    pub fn cut(&self) -> f64 {
        if self.region_tokens == 0 {
            return 0.0;
        }
        1.0 - self.summary_tokens as f64 / self.region_tokens as f64
    }
}

/// Scores summed over cases: retention = Σ kept / Σ facts, cut = 1 − Σ summary / Σ region.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Total {
    pub cases: usize,
    pub facts: usize,
    pub kept: usize,
    pub distractors: usize,
    pub distractors_kept: usize,
    pub prose: usize,
    pub prose_kept: usize,
    pub prose_by_source: BTreeMap<String, [usize; 2]>,
    pub summary_tokens: u64,
    pub region_tokens: u64,
    pub by_label: BTreeMap<String, [usize; 2]>,
}

impl Total {
    pub fn add(&mut self, s: &Score) {
        for (l, [k, n]) in &s.by_label {
            let e = self.by_label.entry(l.clone()).or_default();
            e[0] += k;
            e[1] += n;
        }
        self.cases += 1;
        self.facts += s.facts;
        self.kept += s.kept;
        self.distractors += s.distractors;
        self.distractors_kept += s.distractors_kept;
        self.prose += s.prose;
        self.prose_kept += s.prose_kept;
        for (k, [a, b]) in &s.prose_by_source {
            let e = self.prose_by_source.entry(k.clone()).or_default();
            e[0] += a;
            e[1] += b;
        }
        self.summary_tokens += s.summary_tokens;
        self.region_tokens += s.region_tokens;
    }

    pub fn retention(&self) -> Option<f64> {
        (self.facts > 0).then(|| self.kept as f64 / self.facts as f64)
    }

    pub fn distractor_share(&self) -> Option<f64> {
        (self.distractors > 0).then(|| self.distractors_kept as f64 / self.distractors as f64)
    }

    pub fn cut(&self) -> Option<f64> {
        (self.region_tokens > 0)
            .then(|| 1.0 - self.summary_tokens as f64 / self.region_tokens as f64)
    }
}

// ---------------------------------------------------------------------------------------------
// A whole measurement
// ---------------------------------------------------------------------------------------------

/// A compaction point to prepare.
pub struct CaseSpec {
    pub session: String,
    pub point: String,
    pub prefix: PathBuf,
    pub keep: u64,
    pub target_first_kept: Option<String>,
    pub later: Option<LaterJob>,
    pub pi_summary: Option<String>,
    pub rule: FactRule,
}

/// One step of splitmix64 (the needle generators' random stream): advance `state`, return the
/// next value.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One drawn needle session, as the record-based generators give it: name, JSONL lines, the
/// first line of the later part, the needles (kind, whole line, label) and the distractors.
pub type Drawn = (
    String,
    Vec<String>,
    usize,
    Vec<(String, String, String)>,
    Vec<String>,
);

/// A generator's `n` needle cases under `work` ([`needle_case`] of each drawn session; `point`
/// names the generator in the report).
pub fn needle_specs(
    work: &Path,
    point: &str,
    n: usize,
    draw: impl Fn(usize) -> Drawn,
) -> Result<Vec<CaseSpec>> {
    std::fs::create_dir_all(work)?;
    (0..n)
        .map(|i| {
            let (name, lines, cut_line, needles, distractors) = draw(i);
            let needles = needles
                .into_iter()
                .map(|(_, line, label)| (line, label))
                .collect();
            needle_case(work, &name, &lines, cut_line, point, needles, distractors)
        })
        .collect()
}

/// One needle session's case: the whole session and the prefix before its later part (line
/// `cut_line` on) written under `work` as `NAME.jsonl` and `NAME.prefix.jsonl`, the prefix
/// compacted at `keepRecentTokens` 1,500, the needles (line, label) to survive whole.
pub fn needle_case(
    work: &Path,
    name: &str,
    lines: &[String],
    cut_line: usize,
    point: &str,
    needles: Vec<(String, String)>,
    distractors: Vec<String>,
) -> Result<CaseSpec> {
    let full = work.join(format!("{name}.jsonl"));
    let prefix = work.join(format!("{name}.prefix.jsonl"));
    std::fs::write(&full, lines.join("\n") + "\n")?;
    std::fs::write(&prefix, lines[..cut_line].join("\n") + "\n")?;
    Ok(CaseSpec {
        session: name.to_string(),
        point: point.into(),
        prefix,
        keep: 1_500,
        target_first_kept: None,
        later: Some(LaterJob {
            path: full,
            from_line: cut_line,
        }),
        pi_summary: None,
        rule: FactRule::Lines {
            needles,
            distractors,
        },
    })
}

/// The cut points of a real session: the user messages nearest to 50% and 70% of its lines,
/// and every real pi compaction followed by later lines. Prefixes are written under `work`.
pub fn real_specs(
    s: &SessionFile,
    work: &Path,
    fracs: &[f64],
    pi_points: bool,
) -> Result<Vec<CaseSpec>> {
    let mut specs = Vec::new();
    let mut seen = HashSet::new();
    for &f in fracs {
        let Some(cut) = s.cut_near(f) else { continue };
        if !seen.insert(cut) {
            continue;
        }
        let point = format!("{:.0}%", f * 100.0);
        let prefix = work.join(&s.name).join(format!("cut{cut}.jsonl"));
        s.write_prefix(cut, &prefix)?;
        specs.push(CaseSpec {
            session: s.name.clone(),
            point,
            prefix,
            keep: 20_000,
            target_first_kept: None,
            later: Some(LaterJob {
                path: s.path.clone(),
                from_line: cut,
            }),
            pi_summary: None,
            rule: FactRule::Predictive,
        });
    }
    if pi_points {
        for (line, first_kept, summary) in s.pi_compactions() {
            if line + 1 >= s.lines.len() {
                continue; // nothing later: no fact can be used
            }
            let prefix = work.join(&s.name).join(format!("pi{line}.jsonl"));
            s.write_prefix(line, &prefix)?;
            specs.push(CaseSpec {
                session: s.name.clone(),
                point: format!("pi@{}", line + 1),
                prefix,
                keep: 20_000,
                target_first_kept: Some(first_kept),
                later: Some(LaterJob {
                    path: s.path.clone(),
                    from_line: line + 1,
                }),
                pi_summary: Some(summary),
                rule: FactRule::Predictive,
            });
        }
    }
    Ok(specs)
}

/// A point that could not be measured.
#[derive(Debug, Clone, Serialize)]
pub struct Skip {
    pub session: String,
    pub point: String,
    pub reason: String,
}

/// Ask pi for every spec's cut, region and kept part; compute the facts.
pub fn build_cases(specs: Vec<CaseSpec>) -> Result<(Vec<Case>, Vec<Skip>)> {
    let jobs: Vec<PrepareJob> = specs
        .iter()
        .map(|s| PrepareJob {
            path: s.prefix.clone(),
            keep: s.keep,
            target_first_kept: s.target_first_kept.clone(),
            later: s.later.clone(),
        })
        .collect();
    let prepared = prepare(&jobs)?;
    let mut cases = Vec::new();
    let mut skips = Vec::new();
    for (s, p) in specs.into_iter().zip(prepared) {
        let skip = |reason: String| Skip {
            session: s.session.clone(),
            point: s.point.clone(),
            reason,
        };
        if !p.ok {
            skips.push(skip(format!("pi: {}", p.error.clone().unwrap_or_default())));
            continue;
        }
        if p.nothing {
            skips.push(skip(format!(
                "pi: nothing to compact at keepRecentTokens {}",
                p.keep
            )));
            continue;
        }
        if s.target_first_kept.is_some() && !p.exact {
            skips.push(skip("no keepRecentTokens reproduces pi's cut".into()));
            continue;
        }
        let Facts {
            facts,
            labels,
            distractors,
            prose,
            prose_src,
        } = facts_of(&p, &s.rule);
        cases.push(Case {
            session: s.session,
            point: s.point,
            prefix: s.prefix,
            keep: p.keep,
            pi_summary: s.pi_summary,
            prepared: p,
            facts,
            labels,
            distractors,
            prose,
            prose_src,
            by_token: matches!(s.rule, FactRule::Predictive),
        });
    }
    Ok((cases, skips))
}

/// One (case, run) measurement.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub session: String,
    pub point: String,
    pub run: String,
    pub args: Vec<String>,
    pub outcome: Outcome,
    /// The size baselines were matched to, and why (`pi-shake`, `target`, `pi`).
    pub size_tokens: Option<u64>,
    pub size_basis: Option<String>,
    pub ours: Option<Score>,
    pub head_tail: Option<Score>,
    pub naive_lines: Option<Score>,
    /// The foresight line keeper at the same size ([`foresight_lines_at`]): a ceiling.
    pub foresight: Option<Score>,
    pub pi_summary: Option<Score>,
    /// Real pi loaded the compacted copy and its projection starts with our summary.
    pub pi_loads: Option<bool>,
    /// pi-shake's firstKeptEntryId equals pi's own cut.
    pub same_cut: Option<bool>,
    /// The budget the run asked for (target ratio × region, or pi's summary size), and whether
    /// pi-shake's summary stayed within 5% of it.
    pub budget_tokens: Option<u64>,
    pub within_budget: Option<bool>,
    /// The facts pi-shake's summary lost (for tuning: these are training sessions).
    pub missed: Vec<String>,
    /// Of those, the ones an output whose call the summary names holds ([`recallable`]).
    pub recallable: Option<usize>,
    /// Prose strings ([`Case::prose`]) the summary does not hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missed_prose: Vec<String>,
}

/// Per-case baselines that do not depend on a size.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fixed {
    pub session: String,
    pub point: String,
    pub keep: u64,
    pub region_tokens: u64,
    pub facts: Vec<String>,
    pub keep_all: Score,
    pub drop_all: Score,
    pub pi_serialization: Score,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub bin: PathBuf,
    pub version: String,
    pub rows: Vec<Row>,
    pub fixed: Vec<Fixed>,
    pub skips: Vec<Skip>,
    pub pi_load_failures: usize,
    pub seconds: f64,
}

/// Which runs apply at a case: pi-size runs only at pi compaction points (where they get
/// `--max-summary-tokens` = pi's summary size); the others at the other points, plus the first
/// run everywhere.
fn runs_for<'a>(case: &Case, runs: &'a [RunSpec]) -> Vec<(&'a RunSpec, Vec<String>)> {
    let mut v = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let mut args = r.args.clone();
        match (&case.pi_summary, r.pi_size) {
            (Some(s), true) => {
                args.push("--max-summary-tokens".into());
                args.push(tokens_of(s).to_string());
            }
            (None, true) => continue,
            (Some(_), false) if i > 0 => continue,
            _ => {}
        }
        v.push((r, args));
    }
    v
}

/// Measure `bin` and the baselines on every case.
pub fn measure(
    bin: &Path,
    cases: &[Case],
    skips: Vec<Skip>,
    runs: &[RunSpec],
    work: &Path,
    progress: bool,
) -> Result<Report> {
    let t0 = std::time::Instant::now();
    let version = Command::new(bin)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let mut rows = Vec::new();
    let mut fixed = Vec::new();
    for (ci, case) in cases.iter().enumerate() {
        let p = &case.prepared;
        fixed.push(Fixed {
            session: case.session.clone(),
            point: case.point.clone(),
            keep: case.keep,
            region_tokens: p.region_tokens(),
            facts: case.facts.clone(),
            keep_all: Score::of(case, &keep_all(p)),
            drop_all: Score::of(case, &drop_all(p)),
            pi_serialization: Score::of(case, &p.serialized),
        });
        for (ri, (r, args)) in runs_for(case, runs).into_iter().enumerate() {
            let copy = work
                .join("runs")
                .join(format!("{ci:03}-{ri}-{}.jsonl", sanitize(&r.label)));
            if let Some(d) = copy.parent() {
                std::fs::create_dir_all(d)?;
            }
            if progress {
                eprintln!("  {} {} {} …", case.session, case.point, r.label);
            }
            let outcome = run_pi_shake(bin, &case.prefix, &copy, case.keep, &args)?;
            let missed_prose = match &outcome {
                Outcome::Written { summary, .. } => {
                    let mut set = HashSet::new();
                    distinctive_into(summary, &mut set);
                    case.prose
                        .iter()
                        .filter(|f| !set.contains(*f))
                        .cloned()
                        .collect()
                }
                _ => Vec::new(),
            };
            let (ours, missed) = match &outcome {
                Outcome::Written { summary, .. } => {
                    let sc = Score::of(case, summary);
                    (Some(sc), missed_facts(case, summary))
                }
                _ => (None, Vec::new()),
            };
            let recallable = match &outcome {
                Outcome::Written { summary, copy, .. } => {
                    Some(recallable(case, copy, summary, &missed))
                }
                _ => None,
            };
            let pi_summary = if r.pi_size {
                case.pi_summary.as_deref().map(|s| Score::of(case, s))
            } else {
                None
            };
            let (size_tokens, size_basis) = match (&ours, r.ratio, &pi_summary) {
                (Some(s), _, _) => (Some(s.summary_tokens), Some("pi-shake")),
                (None, _, Some(s)) => (Some(s.summary_tokens), Some("pi")),
                (None, Some(ratio), _) => (
                    Some((p.region_tokens() as f64 * ratio).round() as u64),
                    Some("target"),
                ),
                _ => (None, None),
            };
            // pi's summary size at a pi-size point; else the smaller of the run's ratio of the
            // region and its `--max-summary-tokens` (pi-shake's own rule when both are given).
            let by_ratio = r
                .ratio
                .map(|ratio| (p.region_tokens() as f64 * ratio).round() as u64);
            let budget_tokens = match (&case.pi_summary, r.pi_size) {
                (Some(s), true) => Some(tokens_of(s)),
                _ => match (by_ratio, r.max_tokens) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                },
            };
            let within_budget = match (&ours, budget_tokens) {
                (Some(o), Some(b)) => Some(o.summary_tokens as f64 <= b as f64 * 1.05),
                _ => None,
            };
            let same_cut = match &outcome {
                Outcome::Written {
                    first_kept_entry_id,
                    ..
                } => Some(Some(first_kept_entry_id) == p.first_kept_entry_id.as_ref()),
                _ => None,
            };
            rows.push(Row {
                session: case.session.clone(),
                point: case.point.clone(),
                run: r.label.clone(),
                args,
                outcome,
                size_tokens,
                size_basis: size_basis.map(str::to_string),
                ours,
                head_tail: size_tokens.map(|t| Score::of(case, &head_tail_at(p, t))),
                naive_lines: size_tokens.map(|t| Score::of(case, &naive_lines_at(p, t))),
                foresight: size_tokens.map(|t| Score::of(case, &foresight_lines_at(case, t))),
                pi_summary,
                pi_loads: None,
                same_cut,
                budget_tokens,
                within_budget,
                missed,
                recallable,
                missed_prose,
            });
        }
    }
    // Real pi loads every compacted copy, and its projection starts with our summary.
    let mut jobs = Vec::new();
    let mut idx = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if let Outcome::Written { summary, copy, .. } = &r.outcome {
            jobs.push((copy.clone(), summary.clone()));
            idx.push(i);
        }
    }
    let checked = check(&jobs)?;
    let mut failures = 0;
    for (i, c) in idx.into_iter().zip(checked) {
        let ok = c.ok && c.loaded && c.starts_with_summary;
        if !ok {
            failures += 1;
        }
        rows[i].pi_loads = Some(ok);
    }
    Ok(Report {
        bin: bin.to_path_buf(),
        version,
        rows,
        fixed,
        skips,
        pi_load_failures: failures,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// One run summed over every point it ran at.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunTotal {
    pub run: String,
    pub points: usize,
    pub written: usize,
    pub pi_loads: usize,
    pub same_cut: usize,
    /// Points with a budget, and how many summaries stayed within 5% of it.
    pub budgeted: usize,
    pub within_budget: usize,
    /// The first point's outcome in words (`written`, `flag unsupported`, …).
    pub outcome: String,
    pub pi_shake: Total,
    pub head_tail: Total,
    pub naive_lines: Total,
    pub foresight: Total,
    pub pi_summary: Total,
    /// Facts pi-shake's summaries missed that one `recall` of a call they name reads back.
    pub recallable: usize,
}

/// Totals per run, in the order the runs first appear.
pub fn totals(rep: &Report) -> Vec<RunTotal> {
    let mut labels: Vec<&str> = Vec::new();
    for r in &rep.rows {
        if !labels.contains(&r.run.as_str()) {
            labels.push(&r.run);
        }
    }
    labels
        .into_iter()
        .map(|l| {
            let rs: Vec<&Row> = rep.rows.iter().filter(|r| r.run == l).collect();
            let mut t = RunTotal {
                run: l.to_string(),
                points: rs.len(),
                written: 0,
                pi_loads: 0,
                same_cut: 0,
                budgeted: 0,
                within_budget: 0,
                outcome: rs
                    .first()
                    .map_or("–", |r| outcome_word(&r.outcome))
                    .to_string(),
                pi_shake: Total::default(),
                head_tail: Total::default(),
                naive_lines: Total::default(),
                foresight: Total::default(),
                pi_summary: Total::default(),
                recallable: 0,
            };
            for r in rs {
                t.recallable += r.recallable.unwrap_or(0);
                t.written += usize::from(matches!(r.outcome, Outcome::Written { .. }));
                t.pi_loads += usize::from(r.pi_loads == Some(true));
                t.same_cut += usize::from(r.same_cut == Some(true));
                t.budgeted += usize::from(r.within_budget.is_some());
                t.within_budget += usize::from(r.within_budget == Some(true));
                let pairs = [
                    (&r.ours, &mut t.pi_shake),
                    (&r.head_tail, &mut t.head_tail),
                    (&r.naive_lines, &mut t.naive_lines),
                    (&r.foresight, &mut t.foresight),
                    (&r.pi_summary, &mut t.pi_summary),
                ];
                for (score, total) in pairs {
                    if let Some(x) = score {
                        total.add(x);
                    }
                }
            }
            t
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------------

fn ratio(kept: usize, facts: usize) -> String {
    if facts == 0 {
        return "–".into();
    }
    format!("{:.2} ({kept}/{facts})", kept as f64 / facts as f64)
}

fn cut_str(c: Option<f64>) -> String {
    c.map_or("–".into(), |c| format!("{c:.2}"))
}

fn score_cell(s: &Option<Score>) -> String {
    match s {
        Some(s) => format!("{} @ {}", ratio(s.kept, s.facts), cut_str(Some(s.cut()))),
        None => "–".into(),
    }
}

fn total_cell(t: &Total) -> String {
    if t.cases == 0 {
        return "–".into();
    }
    format!("{} @ {}", ratio(t.kept, t.facts), cut_str(t.cut()))
}

fn outcome_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Written { .. } => "written",
        Outcome::NotWritten { .. } => "not written",
        Outcome::Unsupported { .. } => "flag unsupported",
        Outcome::Failed { .. } => "FAILED",
    }
}

/// Markdown: one table per session (unless `needles`), then the totals per run (with
/// `needles`: also per needle position, and the share of distractors kept).
pub fn markdown(rep: &Report, needles: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "binary: `{}` ({})\n", rep.bin.display(), rep.version);
    let _ = writeln!(
        s,
        "Cells: retention (facts kept / facts) @ region cut (1 − summary tokens / region tokens). Baselines are sized to pi-shake's summary when it wrote one, else to the run's target ratio (or pi's summary).\n"
    );
    let mut sessions: Vec<&str> = Vec::new();
    for f in &rep.fixed {
        if !sessions.contains(&f.session.as_str()) {
            sessions.push(&f.session);
        }
    }
    for sess in sessions.iter().filter(|_| !needles) {
        let _ = writeln!(s, "### {sess}\n");
        let _ = writeln!(
            s,
            "| point | keepRecentTokens | region tokens | facts | keep-all | drop-all | pi 2,000-char serialization |\n|---|---:|---:|---:|---|---|---|"
        );
        for f in rep.fixed.iter().filter(|f| f.session == *sess) {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                f.point,
                f.keep,
                f.region_tokens,
                f.facts.len(),
                score_cell(&Some(f.keep_all.clone())),
                score_cell(&Some(f.drop_all.clone())),
                score_cell(&Some(f.pi_serialization.clone())),
            );
        }
        let _ = writeln!(
            s,
            "\n| point | run | pi-shake | head+tail, same size | naive line keeper, same size | pi's summary | pi loads |\n|---|---|---|---|---|---|---|"
        );
        for r in rep.rows.iter().filter(|r| r.session == *sess) {
            let ours = match &r.ours {
                Some(_) => score_cell(&r.ours),
                None => outcome_word(&r.outcome).to_string(),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.point,
                r.run,
                ours,
                score_cell(&r.head_tail),
                score_cell(&r.naive_lines),
                score_cell(&r.pi_summary),
                match r.pi_loads {
                    Some(true) => "yes",
                    Some(false) => "**NO**",
                    None => "–",
                }
            );
        }
        s.push('\n');
    }
    let _ = writeln!(s, "### Overall\n");
    let mut fx = (Total::default(), Total::default(), Total::default());
    for f in &rep.fixed {
        fx.0.add(&f.keep_all);
        fx.1.add(&f.drop_all);
        fx.2.add(&f.pi_serialization);
    }
    let _ = writeln!(
        s,
        "{} points, {} facts. keep-all {}; drop-all {}; pi's 2,000-char serialization {}.\n",
        rep.fixed.len(),
        fx.0.facts,
        total_cell(&fx.0),
        total_cell(&fx.1),
        total_cell(&fx.2)
    );
    let _ = writeln!(
        s,
        "| run | points | written | pi loads | same cut as pi | within 5% of budget | pi-shake | pi-shake, kept or one `recall` away | head+tail, same size | naive line keeper, same size | pi's summary | foresight line keeper, same size (a ceiling) |\n|---|---:|---:|---:|---:|---:|---|---|---|---|---|---|"
    );
    for rt in totals(rep) {
        let t = (
            &rt.pi_shake,
            &rt.head_tail,
            &rt.naive_lines,
            &rt.pi_summary,
            &rt.foresight,
        );
        let written = rt.written;
        let ours = if written == 0 {
            rt.outcome.clone()
        } else {
            total_cell(t.0)
        };
        let within = if rt.budgeted == 0 {
            "–".to_string()
        } else {
            format!("{}/{}", rt.within_budget, rt.budgeted)
        };
        let reach = if written == 0 {
            "–".to_string()
        } else {
            ratio(t.0.kept + rt.recallable, t.0.facts)
        };
        let _ = writeln!(
            s,
            "| {} | {} | {written} | {}/{written} | {}/{written} | {within} | {ours} | {reach} | {} | {} | {} | {} |",
            rt.run,
            rt.points,
            rt.pi_loads,
            rt.same_cut,
            total_cell(t.1),
            total_cell(t.2),
            total_cell(t.3),
            total_cell(t.4),
        );
        if !needles && t.0.prose > 0 {
            let cell = |t: &Total| ratio(t.prose_kept, t.prose);
            let _ = writeln!(
                s,
                "|  | prose strings kept |  |  |  |  | {} | {} | {} | {} | {} |",
                cell(t.0),
                cell(t.1),
                cell(t.2),
                cell(t.3),
                cell(t.4),
            );
        }
        if needles {
            let label_cell = |t: &Total, l: &str| {
                t.by_label
                    .get(l)
                    .map_or("–".to_string(), |[k, n]| ratio(*k, *n))
            };
            let labels: BTreeSet<&String> = t.1.by_label.keys().collect();
            for lab in labels {
                let _ = writeln!(
                    s,
                    "|  | {lab} needles |  |  |  |  | {} | {} | {} |  | {} |",
                    label_cell(t.0, lab),
                    label_cell(t.1, lab),
                    label_cell(t.2, lab),
                    label_cell(t.4, lab),
                );
            }
            let share = |t: &Total| {
                t.distractor_share()
                    .map_or("–".into(), |x| format!("{x:.2}"))
            };
            let _ = writeln!(
                s,
                "|  | distractors kept |  |  |  |  | {} | {} | {} |  | {} |",
                share(t.0),
                share(t.1),
                share(t.2),
                share(t.4),
            );
        }
    }
    if !rep.skips.is_empty() {
        let _ = writeln!(s, "\nNot measured:");
        for k in &rep.skips {
            let _ = writeln!(s, "- {} {}: {}", k.session, k.point, k.reason);
        }
    }
    let _ = writeln!(
        s,
        "\nReal pi failed to load (or did not start with our summary) {} compacted file(s). {:.0} s.",
        rep.pi_load_failures, rep.seconds
    );
    s
}
