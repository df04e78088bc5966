//! `status`: the wire type of one session's report, how it is built from a loaded session, and
//! its human renderings (the full view of one session, and one table row per session).

use serde::Serialize;
use serde_json::{Value, json};

use super::{human_size, thousands};
use crate::load::Loaded;
use crate::output::Printer;
use crate::session::{Body, Replacement, Severity};
use crate::wall::WallState;

/// `status --json` for one session (field names are stable; see the README).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    pub schema_version: u32,
    pub path: String,
    pub header: HeaderOut,
    pub bytes: u64,
    pub lines: u32,
    pub entries: usize,
    pub counts_by_type: serde_json::Map<String, Value>,
    pub branch: BranchOut,
    pub projection: Vec<ProjRow>,
    /// pi's projected context total (`docs/pi-format.md#context-total`).
    pub context_tokens: Value,
    /// Whether the total is usage-based or a pure estimate.
    pub context_basis: &'static str,
    /// Σ per-message estimates of the projection.
    pub estimated_tokens: u64,
    /// Σ estimates of the same entries without any overlay (raw vs projected).
    pub raw_tokens: u64,
    pub wall: WallOut,
    pub pi_overlays: PiOverlaysOut,
    pub problems: Vec<ProblemOut>,
    /// pi-shake would refuse to append to this session.
    pub writable: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeaderOut {
    pub id: String,
    pub version: Option<Value>,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
    pub parent_session: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchOut {
    pub leaf_id: Option<String>,
    pub length: usize,
    pub context_entries: usize,
    pub compaction_id: Option<String>,
    /// The latest compaction on the active path (the one the context starts from).
    pub compaction: Option<CompactionOut>,
}

/// `branch.compaction`: who wrote the latest compaction and how big it is.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionOut {
    pub id: String,
    /// `pi-shake` (its summary is pi-shake's transcript), `extension` (another `fromHook`
    /// summary) or `pi` (pi's own LLM summary).
    pub by: &'static str,
    /// pi's estimate of the summary as the model sees it.
    pub summary_tokens: Option<u64>,
    /// `tokensBefore`: the context pi measured when it compacted (`null` when missing).
    pub tokens_before: Value,
    pub first_kept_entry_id: Option<String>,
    /// Compactions on the active path, this one included.
    pub count: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjRow {
    /// The entry's own copy of its id where it is a string (one row per projected message).
    pub entry_id: std::sync::Arc<str>,
    pub role: std::borrow::Cow<'static, str>,
    pub tokens: Option<u64>,
}

#[derive(Debug, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct WallOut {
    pub count: usize,
    pub active: usize,
    pub moot: usize,
    pub superseded: usize,
    pub tokens_reclaimed: u64,
    pub by_scope: serde_json::Map<String, Value>,
    /// Active folds by kind (`toolResult`, `block`, `thinking`, `image`).
    pub by_kind: serde_json::Map<String, Value>,
    pub last_run: Option<String>,
    pub profile: Option<String>,
    pub items: Vec<WallItemOut>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WallItemOut {
    pub entry_id: String,
    pub scopes: Vec<&'static str>,
    pub kinds: Vec<String>,
    pub tool: Option<String>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub state: WallState,
    pub folded_at: Option<String>,
}

#[derive(Debug, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PiOverlaysOut {
    /// `replacement: null` edits written by pi (or anyone but pi-shake) in force.
    pub omissions: usize,
    /// Content replacements written by others in force.
    pub replacements: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProblemOut {
    pub severity: Severity,
    pub code: &'static str,
    pub line: Option<u32>,
    pub message: String,
}

/// Whether compaction entry `idx`'s summary is pi-shake's transcript (its title). pi and
/// pi-shake both write `summary` right after the entry's id fields, so the line's first 4 KB
/// settle it without reading a summary that can be megabytes long; a line that does not is
/// parsed whole, and one that cannot be re-read counts as another writer's.
fn summary_is_pi_shakes(s: &crate::session::Session, idx: usize) -> bool {
    const KEY: &[u8] = br#""summary":""#;
    const HEAD: usize = 4096;
    let e = &s.entries[idx];
    let Ok(head) = s.read_at(e.offset, (e.len as usize).min(HEAD)) else {
        return false;
    };
    if let Some(at) = head.windows(KEY.len()).position(|w| w == KEY) {
        let rest = String::from_utf8_lossy(&head[at + KEY.len()..]);
        return crate::compact::carried::is_pi_shakes(&rest);
    }
    s.read_value(idx).is_ok_and(|v| {
        v.get("summary")
            .and_then(Value::as_str)
            .is_some_and(crate::compact::carried::is_pi_shakes)
    })
}

/// `branch.compaction` for the compaction entry `idx` (on the active path).
fn compaction_out(l: &Loaded, idx: usize) -> CompactionOut {
    let s = &l.session;
    let e = &s.entries[idx];
    let (first_kept, info) = match &e.body {
        Body::Compaction { first_kept, info } => (first_kept.as_ref(), Some(info)),
        _ => (None, None),
    };
    let from_hook = info.is_some_and(|i| i.from_hook);
    let ours = from_hook && summary_is_pi_shakes(s, idx);
    CompactionOut {
        id: e.id_str().to_string(),
        by: match (ours, from_hook) {
            (true, _) => "pi-shake",
            (false, true) => "extension",
            (false, false) => "pi",
        },
        summary_tokens: l
            .projection
            .entries
            .iter()
            .find(|pe| pe.idx == idx)
            .and_then(|pe| {
                pe.messages
                    .iter()
                    .find(|m| m.kind == crate::session::Role::CompactionSummary)
            })
            .and_then(|m| m.tokens),
        tokens_before: info
            .and_then(|i| i.tokens_before)
            .map_or(Value::Null, crate::report::js_number),
        first_kept_entry_id: first_kept.map(|k| k.display().to_string()),
        count: l
            .tree
            .path
            .iter()
            .filter(|&&i| matches!(s.entries[i].body, Body::Compaction { .. }))
            .count(),
    }
}

/// Build the report for a loaded session.
pub fn report(l: &Loaded) -> StatusReport {
    let s = &l.session;
    let p = &l.projection;
    let w = &l.wall;
    let mut counts = serde_json::Map::new();
    for (k, n) in s.counts_by_type() {
        counts.insert(k, json!(n));
    }
    let projection: Vec<ProjRow> = p
        .entries
        .iter()
        .flat_map(|pe| {
            let e = &s.entries[pe.idx];
            let id: std::sync::Arc<str> = match &e.id {
                Some(k) if k.is_string() => std::sync::Arc::clone(&k.0),
                _ => e.id_str().into(),
            };
            pe.messages.iter().map(move |m| ProjRow {
                entry_id: id.clone(),
                role: m.role.clone(),
                tokens: m.tokens,
            })
        })
        .collect();
    let raw_tokens: u64 = p
        .entries
        .iter()
        .map(|pe| match &s.entries[pe.idx].body {
            Body::Message(m) => m.tokens().unwrap_or(0),
            _ => pe.tokens(),
        })
        .sum();
    let mut wall = WallOut::default();
    for it in &w.items {
        wall.count += 1;
        match it.state {
            WallState::Active => {
                wall.active += 1;
                wall.tokens_reclaimed += it.tokens_before.saturating_sub(it.tokens_after);
                let bump = |m: &mut serde_json::Map<String, Value>, k: &str| {
                    let e = m.entry(k.to_string()).or_insert(json!(0));
                    *e = json!(e.as_u64().unwrap_or(0) + 1);
                };
                for sc in &it.scopes {
                    bump(&mut wall.by_scope, sc.as_str());
                }
                for k in &it.kinds {
                    bump(&mut wall.by_kind, k);
                }
            }
            WallState::Moot => wall.moot += 1,
            WallState::Superseded => wall.superseded += 1,
        }
        wall.items.push(WallItemOut {
            entry_id: it.target_id.clone(),
            scopes: it.scopes.iter().map(|s| s.as_str()).collect(),
            kinds: it.kinds.clone(),
            tool: it.tool.clone(),
            tokens_before: it.tokens_before,
            tokens_after: it.tokens_after,
            state: it.state,
            folded_at: it.when_ms.map(crate::jscompat::epoch_ms_to_iso),
        });
    }
    if let Some(&last) = w.logs.last() {
        wall.last_run = s.entries[last]
            .timestamp_ms
            .map(crate::jscompat::epoch_ms_to_iso);
    }
    wall.profile = w.items.iter().rev().find_map(|it| it.profile.clone());
    let mut pi_overlays = PiOverlaysOut::default();
    for pe in &p.entries {
        let Some(ed) = pe.edit else { continue };
        if w.is_own(ed) {
            continue;
        }
        match &s.entries[ed].body {
            Body::ContextEdit {
                replacement: Replacement::Omit,
                ..
            } => pi_overlays.omissions += 1,
            Body::ContextEdit { .. } => pi_overlays.replacements += 1,
            _ => {}
        }
    }
    let problems: Vec<ProblemOut> = l
        .problems()
        .into_iter()
        .map(|pr| ProblemOut {
            severity: pr.severity,
            code: pr.code,
            line: pr.line,
            message: pr.message.clone(),
        })
        .collect();
    let writable = !problems.iter().any(|pr| pr.severity >= Severity::Unsafe);
    let ctx = p.context.tokens;
    StatusReport {
        schema_version: 1,
        path: s.path.display().to_string(),
        header: HeaderOut {
            id: s.header.id.clone(),
            version: s
                .header
                .version_text
                .as_deref()
                .and_then(|t| serde_json::from_str(t).ok()),
            timestamp: s.header.timestamp.clone(),
            cwd: s.header.cwd.clone(),
            parent_session: s.header.parent_session.clone(),
        },
        bytes: s.size,
        lines: s.lines,
        entries: s.entries.len(),
        counts_by_type: counts,
        branch: BranchOut {
            leaf_id: l.tree.leaf.map(|i| s.entries[i].id_str().to_string()),
            length: l.tree.path.len(),
            context_entries: p.entries.len(),
            compaction_id: p.compaction.map(|i| s.entries[i].id_str().to_string()),
            compaction: p.compaction.map(|i| compaction_out(l, i)),
        },
        projection,
        context_tokens: crate::report::js_number(ctx),
        context_basis: if p.context.last_usage_index.is_some() {
            "usage"
        } else {
            "estimate"
        },
        estimated_tokens: p.estimate_sum(),
        raw_tokens,
        wall,
        pi_overlays,
        problems,
        writable,
    }
}

/// Render a report for humans.
pub fn render(r: &StatusReport, printer: &Printer) -> String {
    let mut o = String::new();
    let ctx = r.context_tokens.as_f64().unwrap_or(0.0);
    o.push_str(&format!("{}\n", printer.bold(&r.path)));
    o.push_str(&format!(
        "  session   {}  version {}  cwd {}\n",
        r.header.id,
        r.header
            .version
            .as_ref()
            .map(|v| v.to_string())
            .unwrap_or_else(|| "missing".into()),
        r.header.cwd.as_deref().unwrap_or("?")
    ));
    let types: Vec<String> = r
        .counts_by_type
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let types = if types.is_empty() {
        String::new()
    } else {
        format!(" ({})", types.join(", "))
    };
    o.push_str(&format!(
        "  entries   {}{types}\n",
        thousands(r.entries as u64)
    ));
    o.push_str(&format!(
        "  branch    leaf {}, {} entries on the active path, {} in context{}\n",
        r.branch.leaf_id.as_deref().unwrap_or("-"),
        thousands(r.branch.length as u64),
        thousands(r.branch.context_entries as u64),
        r.branch
            .compaction_id
            .as_deref()
            .map(|c| format!(" (after compaction {c})"))
            .unwrap_or_default()
    ));
    if let Some(c) = &r.branch.compaction {
        let tokens = |t: Option<f64>| {
            t.filter(|t| t.is_finite() && *t >= 0.0)
                .map_or("?".to_string(), |t| format!("~{}", thousands(t as u64)))
        };
        o.push_str(&format!(
            "  compacted by {} at {}{}: summary {} tokens, {} before; keeps from {}\n",
            c.by,
            c.id,
            if c.count > 1 {
                format!(" ({} compactions on this branch)", c.count)
            } else {
                String::new()
            },
            tokens(c.summary_tokens.map(|t| t as f64)),
            tokens(c.tokens_before.as_f64()),
            c.first_kept_entry_id.as_deref().unwrap_or("?"),
        ));
    }
    o.push_str(&format!(
        "  context   ~{} tokens ({}) · {} messages · estimated {} · raw {}\n",
        thousands(ctx.max(0.0) as u64),
        if r.context_basis == "usage" {
            "last usage + estimate"
        } else {
            "pi's chars/4 estimate"
        },
        thousands(r.projection.len() as u64),
        thousands(r.estimated_tokens),
        thousands(r.raw_tokens)
    ));
    if r.wall.active == 0 {
        o.push_str("  wall      nothing folded\n");
        if r.wall.moot + r.wall.superseded > 0 {
            o.push_str(&format!(
                "            {} moot (behind a later compaction), {} superseded by another overlay\n",
                r.wall.moot, r.wall.superseded
            ));
        }
    } else {
        let scopes: Vec<String> = r
            .wall
            .by_scope
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let kinds: Vec<String> = r
            .wall
            .by_kind
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        o.push_str(&format!(
            "  wall      {} entries folded ({}; {}) · ~{} tokens reclaimed · last run {} · profile {}\n",
            thousands(r.wall.active as u64),
            scopes.join(", "),
            kinds.join(", "),
            thousands(r.wall.tokens_reclaimed),
            r.wall.last_run.as_deref().unwrap_or("?"),
            r.wall.profile.as_deref().unwrap_or("?")
        ));
        if r.wall.moot + r.wall.superseded > 0 {
            o.push_str(&format!(
                "            {} moot (behind a later compaction), {} superseded by another overlay\n",
                r.wall.moot, r.wall.superseded
            ));
        }
    }
    if r.pi_overlays.omissions + r.pi_overlays.replacements > 0 {
        o.push_str(&format!(
            "  overlays  pi's own: {} omission(s), {} replacement(s) by others\n",
            r.pi_overlays.omissions, r.pi_overlays.replacements
        ));
    }
    for p in &r.problems {
        let sev = match p.severity {
            Severity::Warning => "warning",
            Severity::Unsafe => "unsafe",
            Severity::Error => "error",
        };
        let line = p.line.map(|l| format!("line {l}: ")).unwrap_or_default();
        o.push_str(&format!("  {sev:<9} {line}{}\n", p.message));
    }
    o
}

/// What `--check` / `--max-tokens` found for one session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckResult {
    /// pi's projected context is over `--max-tokens`.
    pub over: bool,
    /// `--check`: pi would reject or misread the session, or writing is unsafe.
    pub bad: bool,
}

impl CheckResult {
    /// Check a report against `--check` and `--max-tokens`.
    pub fn of(r: &StatusReport, check: bool, max_tokens: Option<u64>) -> CheckResult {
        CheckResult {
            over: max_tokens.is_some_and(|m| r.context_tokens.as_f64().unwrap_or(0.0) > m as f64),
            bad: check && (!r.writable || r.problems.iter().any(|p| p.severity == Severity::Error)),
        }
    }
    /// Either check failed.
    pub fn failed(self) -> bool {
        self.over || self.bad
    }
}

/// The full view of one session, with the check's verdict.
pub fn render_one(
    r: &StatusReport,
    c: CheckResult,
    max_tokens: Option<u64>,
    printer: &Printer,
) -> String {
    let mut o = render(r, printer);
    if c.over {
        o.push_str(&format!(
            "  check     FAILED: context {} > --max-tokens {}\n",
            thousands(r.context_tokens.as_f64().unwrap_or(0.0) as u64),
            thousands(max_tokens.unwrap_or(0))
        ));
    }
    if c.bad {
        o.push_str(
            "  check     FAILED: pi would reject or misread this session, or writing is unsafe\n",
        );
    }
    o
}

/// The `--json` document of one session: the report, its check verdict and the old-pi warning.
pub fn doc(r: &StatusReport, c: CheckResult) -> serde_json::Result<Value> {
    let mut v = serde_json::to_value(r)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("checkFailed".into(), json!(c.failed()));
        if let (Some(w), Some(p)) = (
            crate::pi_version::old_pi_warning(),
            o.get_mut("problems").and_then(|p| p.as_array_mut()),
        ) {
            p.push(
                json!({"severity": "warning", "code": "old-pi", "line": null,
                "message": w.trim_start_matches("warning: ")}),
            );
        }
    }
    Ok(v)
}

/// The table of many sessions: a header, one row per session, a totals line.
#[derive(Debug, Default)]
pub struct Table {
    text: String,
    ctx: u64,
    folded: u64,
    bytes: u64,
}

impl Table {
    /// A table with its header line.
    pub fn new() -> Table {
        Table {
            text: format!(
                "{:>9}  {:>14}  {:>13}  session\n",
                "size", "context tokens", "folded tokens"
            ),
            ..Table::default()
        }
    }
    /// One session's row; its numbers count towards the totals.
    pub fn row(&mut self, r: &StatusReport, c: CheckResult) {
        self.ctx += r.context_tokens.as_f64().unwrap_or(0.0).max(0.0) as u64;
        self.folded += r.wall.tokens_reclaimed;
        self.bytes += r.bytes;
        self.text.push_str(&one_line(r, c.over, c.bad));
    }
    /// The row of a session that could not be read.
    pub fn failed_row(&mut self, path: &std::path::Path, code: u8) {
        self.text.push_str(&format!(
            "{:>9}  {:>14}  {:>13}  {}  FAILED (exit {code})\n",
            "-",
            "-",
            "-",
            path.display(),
        ));
    }
    /// The totals line; returns the whole table.
    pub fn finish(mut self, sessions: usize, failures: usize, checks_failed: usize) -> String {
        self.text.push_str(&format!(
            "{:>9}  {:>14}  {:>13}  {} session(s), {} failed{}\n",
            human_size(self.bytes),
            format!("~{}", thousands(self.ctx)),
            format!("~{}", thousands(self.folded)),
            sessions,
            failures,
            if checks_failed > 0 {
                format!(", {checks_failed} failed the check")
            } else {
                String::new()
            }
        ));
        self.text
    }
}

fn one_line(r: &StatusReport, over: bool, bad: bool) -> String {
    let ctx = r.context_tokens.as_f64().unwrap_or(0.0).max(0.0) as u64;
    let unsafe_ = r.problems.iter().any(|p| p.severity >= Severity::Unsafe);
    format!(
        "{:>9}  {:>14}  {:>13}  {}{}{}\n",
        human_size(r.bytes),
        format!("~{}", thousands(ctx)),
        format!("~{}", thousands(r.wall.tokens_reclaimed)),
        r.path,
        if unsafe_ { "  (unsafe to write)" } else { "" },
        if over || bad { "  CHECK FAILED" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// The pi-written `compaction-rpc` fixture with its latest compaction line changed by `edit`,
    /// loaded from a temporary copy.
    fn with_latest_compaction(
        tag: &str,
        edit: impl Fn(&mut serde_json::Map<String, Value>),
    ) -> Loaded {
        let src =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions-fixtures/pi/compaction-rpc.jsonl");
        let text = std::fs::read_to_string(src).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let at = lines
            .iter()
            .rposition(|l| l.contains(r#""type":"compaction""#))
            .unwrap();
        let mut v: serde_json::Map<String, Value> = serde_json::from_str(&lines[at]).unwrap();
        edit(&mut v);
        lines[at] = serde_json::to_string(&v).unwrap();
        let dir: PathBuf =
            std::env::temp_dir().join(format!("pi-shake-status-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        Loaded::open(&path).unwrap()
    }

    fn by(l: &Loaded) -> &'static str {
        let c = report(l).branch.compaction.unwrap();
        assert_eq!(c.count, 2);
        c.by
    }

    #[test]
    fn the_compactions_writer_is_named_from_from_hook_and_the_summarys_title() {
        let title =
            "# Session history before this point (pruned by pi-shake 0.1.0)\n\n### User\n\nhi";
        assert_eq!(by(&with_latest_compaction("pi", |_| {})), "pi");
        let hook = |v: &mut serde_json::Map<String, Value>| {
            v.insert("fromHook".into(), Value::Bool(true));
        };
        assert_eq!(by(&with_latest_compaction("hook", hook)), "extension");
        // pi-shake's title, with `summary` where both writers put it …
        let ours = |v: &mut serde_json::Map<String, Value>| {
            hook(v);
            v.insert("summary".into(), Value::String(title.into()));
        };
        assert_eq!(by(&with_latest_compaction("ours", ours)), "pi-shake");
        // … and last, after more than the 4 KB read first: the whole line is parsed.
        let late = |v: &mut serde_json::Map<String, Value>| {
            ours(v);
            let summary = v.shift_remove("summary").unwrap();
            v.insert("pad".into(), Value::String("x".repeat(5000)));
            v.insert("summary".into(), summary);
        };
        assert_eq!(by(&with_latest_compaction("late", late)), "pi-shake");
        // The title without `fromHook` is not pi-shake's entry (pi-shake always sets it).
        let unhooked = |v: &mut serde_json::Map<String, Value>| {
            v.insert("summary".into(), Value::String(title.into()));
        };
        assert_eq!(by(&with_latest_compaction("unhooked", unhooked)), "pi");
    }
}
