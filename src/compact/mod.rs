//! `compact`: the pi-compact-jev design (`docs/design-compact.md`) as a planner.
//!
//! pi still cuts where it would ([`cut::prepare`], a port of `prepareCompaction` +
//! `findProjectedCutPoint`); this module only rewrites what pi would summarize — the region
//! before `firstKeptEntryId`, split-turn prefix included — in the design's order:
//!
//! 1. keep-windows on user/assistant text ([`text::keep_window`]);
//! 2. pins: unresolved errors (same-key rule), git mutations, edit/write, images, the last skill
//!    load ([`region::pins`]);
//! 3. pairing of `toolCall` blocks with `toolResult`s by id; unpaired calls are not scored;
//! 4. the scorer is asked about unpinned pairs only, with one shared state ([`state`]) and two
//!    questions per pair ([`questions`]);
//! 5. useful → full: drop / keep verbatim / stub (25% head + 25% tail, each ≤ 2,500 chars);
//! 6. the survivors are rendered as one markdown summary ([`render`]) with the previous
//!    compaction's summary flattened under it.
//!
//! [`plan`] is pure apart from `fetch` (re-reading entry lines) and the workspace read;
//! [`append`] adds the `compaction` entry to a [`Batch`].

pub mod budget;
pub mod cut;
pub mod fit;
pub mod region;
pub mod render;
pub mod report;
pub mod state;

#[cfg(test)]
mod tests;

use anyhow::Result;
use serde_json::{Map, Value, json};

pub use crate::jscompat::estimate_request_tokens;
pub use crate::score::questions::{self, TEMPLATE};
pub use crate::text;
pub use cut::{Cut, CutOutcome};
pub use region::{Pin, normalised_args, same_key};
pub use report::{Action, Counts, PairReport, PlanReport, Sizes};

use crate::projection::{Overlays, Projection, materialize};
use crate::score::offline::{self, Heuristic, Signals};
use crate::score::{
    PairData, PairScore, Progress, ScoreNotes, ScoreRequest, ScoreSource, Scorer, ScorerError,
};
use crate::session::Session;
use crate::tree::Tree;
use crate::wall::Wall;
use crate::writer::Batch;
use region::{Kind, Pair, RMsg};

/// `pi-shake <version>`, the pruner named in `details`.
pub fn pruner() -> String {
    format!("pi-shake {}", env!("CARGO_PKG_VERSION"))
}

/// Knobs of a compaction; [`Default`] holds the design's numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactOptions {
    /// pi's `keepRecentTokens` (settings / `--keep-recent-tokens`).
    pub keep_recent_tokens: u64,
    /// Threshold for both scores, inclusive.
    pub threshold: f64,
    /// User/assistant text up to this many chars is kept whole.
    pub text_whole: usize,
    /// Otherwise about this many chars of whole lines are kept at each end.
    pub text_window: usize,
    /// Stub: this fraction of the dump at each end…
    pub stub_fraction: f64,
    /// …each capped at this many chars.
    pub stub_cap: usize,
    /// Git mutation output head.
    pub git_head: usize,
    /// Edit old/new text heads.
    pub edit_head: usize,
    /// Write bodies up to this size are kept.
    pub write_body_max: usize,
    /// State budget (estimated tokens).
    pub state_budget: u64,
    /// Whole-request budget (estimated tokens), before the 5% margin.
    pub request_budget: u64,
    /// Read the workspace (directories, README) from the session's cwd.
    pub read_workspace: bool,
    /// On a scorer failure, score the missing pairs with the offline heuristic instead of failing.
    pub on_scorer_error_offline: bool,
    /// Cut where pi said (`preparation.firstKeptEntryId` of `session_before_compact`) instead
    /// of computing the cut; planning fails when the id is not a projected entry of the span.
    pub first_kept_entry_id: Option<String>,
    /// The user's compaction instructions (`/compact <text>`): the newest prompt of the state,
    /// so every scorer (and the offline query) weighs pairs against them.
    pub instructions: Option<String>,
    /// Work to a size ([`fit`]) instead of the threshold; the offline scorer always has one.
    pub budget: Option<budget::BudgetSpec>,
    /// Do not hold tool outputs in memory (features only; re-read what is rendered). Only for
    /// scorers that do not need the outputs (the offline one).
    pub lite: bool,
    /// One line per dropped call instead of one per run.
    pub breadcrumbs: bool,
}

impl Default for CompactOptions {
    fn default() -> CompactOptions {
        CompactOptions {
            keep_recent_tokens: 20_000,
            threshold: 0.5,
            text_whole: 2_000,
            text_window: 1_000,
            stub_fraction: 0.25,
            stub_cap: 2_500,
            git_head: 600,
            edit_head: 300,
            write_body_max: 2_000,
            state_budget: 28_000,
            request_budget: 64_000,
            read_workspace: true,
            on_scorer_error_offline: false,
            first_kept_entry_id: None,
            instructions: None,
            budget: None,
            lite: false,
            breadcrumbs: false,
        }
    }
}

/// The result of planning.
#[derive(Debug)]
pub enum Outcome<T> {
    Ready(Box<T>),
    /// The last entry on the path is already a compaction (pi: "Already compacted").
    AlreadyCompacted,
    /// pi would find nothing to compact (the span is under `keepRecentTokens`).
    NothingToCompact,
}

/// Everything before scoring: the cut, the region, the pins, the state and the questions.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub cut: Cut,
    pub options: CompactOptions,
    /// The scorer request (state + probes for the unpinned pairs).
    pub request: ScoreRequest,
    /// `fitState`'s result.
    pub state_caps: state::Caps,
    pub state_fit_steps: usize,
    /// The previous compaction's summary (flattened under ours, not scored).
    pub previous_summary: Option<String>,
    /// The replayed system message (timestamp set by [`append`]).
    pub system_message: Option<Value>,
    msgs: Vec<RMsg>,
    pairs: Vec<Pair>,
    pins: Vec<Option<Pin>>,
    /// Line features of every paired output (by pair).
    feats: Vec<Option<budget::OutFeat>>,
    /// The string table and the strings the summary has anyway (kept part, prose, carried).
    strings: Vec<budget::StrInfo>,
    covered: Vec<bool>,
    /// Pinned outputs (re-read in lite mode), by pair.
    pin_outputs: Vec<Option<String>>,
    /// Later-pair facts for the value model.
    facts: fit::PairFacts,
    region_tokens: u64,
    kept_tokens: u64,
    system_tokens: u64,
    user_messages: usize,
}

/// A finished plan: what [`append`] writes and what a report shows.
#[derive(Clone, Debug)]
pub struct CompactPlan {
    pub cut: Cut,
    pub scorer: String,
    pub summary: String,
    pub system_message: Option<Value>,
    pub pairs: Vec<PairReport>,
    pub counts: Counts,
    pub sizes: Sizes,
    pub batches: usize,
    pub planned_requests: usize,
    pub state_caps: state::Caps,
    pub state_fit_steps: usize,
    pub threshold: f64,
    /// The request the scorer answered (for `--scores-out`).
    pub request: ScoreRequest,
    /// The scores used, in probe order.
    pub scores: Vec<PairScore>,
    pub warnings: Vec<String>,
    /// What the scorer noted (usage, shrunk windows, offline fallbacks).
    pub notes: ScoreNotes,
    /// How the budget came out (budgeted plans only).
    pub budget: Option<budget::BudgetReport>,
}

impl CompactPlan {
    /// The `compact --dry-run --json` plan.
    pub fn report(&self) -> PlanReport {
        PlanReport {
            first_kept_entry_id: self.cut.first_kept_id.clone(),
            is_split_turn: self.cut.is_split_turn,
            keep_recent_tokens: self.cut.keep_recent_tokens,
            scorer: self.scorer.clone(),
            template: TEMPLATE.to_string(),
            threshold: self.threshold,
            counts: self.counts,
            sizes: self.sizes,
            batches: self.batches,
            planned_requests: self.planned_requests,
            state_fit_steps: self.state_fit_steps,
            state_caps: self.state_caps,
            pairs: self.pairs.clone(),
            warnings: self.warnings.clone(),
            budget: self.budget.clone(),
        }
    }

    /// The compaction entry's `details`.
    pub fn details(&self) -> Value {
        let mut d = json!({
            "pruner": pruner(),
            "scorer": self.scorer,
            "template": TEMPLATE,
            "threshold": self.threshold,
            "keepRecentTokens": self.cut.keep_recent_tokens,
            "isSplitTurn": self.cut.is_split_turn,
            "counts": self.counts,
            "tokens": {
                "regionBefore": self.sizes.region_before,
                "regionAfter": self.sizes.region_after,
                "contextBefore": self.sizes.context_before,
                "contextAfter": self.sizes.context_after,
            },
            "budget": self.budget,
            "pairs": self.pairs,
        });
        if let Some(o) = d.as_object_mut() {
            self.notes.extend_json(o);
        }
        d
    }
}

/// Re-reads entry `i`'s JSON (e.g. `&mut |i| session.read_value(i)`).
pub type Fetch<'a> = &'a mut dyn FnMut(usize) -> Result<Value>;

/// pi-ai's `getCurrentSystemMessage` over materialized messages (system ones only are read).
pub fn replay_system_message(msgs: &[Value]) -> Option<Value> {
    let mut content: Vec<String> = Vec::new();
    let mut sections: Vec<(String, Value)> = Vec::new();
    let mut tools: Vec<(String, Value)> = Vec::new();
    let mut timestamp: Option<Value> = None;
    for m in msgs
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("system"))
    {
        if timestamp.is_none() {
            timestamp = m.get("timestamp").filter(|t| !t.is_null()).cloned();
        }
        let text = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .map(|b| {
                    b.get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        if !text.is_empty() {
            content.push(text);
        }
        if let Some(Value::Object(secs)) = m.get("sections") {
            for (k, v) in secs {
                if v.is_null() {
                    sections.retain(|(n, _)| n != k);
                } else if let Some(slot) = sections.iter_mut().find(|(n, _)| n == k) {
                    slot.1 = v.clone();
                } else {
                    sections.push((k.clone(), v.clone()));
                }
            }
        }
        if let Some(Value::Array(removed)) = m.get("toolsRemoved") {
            for t in removed {
                let name = t.get("name").and_then(Value::as_str).unwrap_or("");
                tools.retain(|(n, _)| n != name);
            }
        }
        if let Some(Value::Array(added)) = m.get("toolsAdded") {
            for t in added {
                let name = t
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if let Some(slot) = tools.iter_mut().find(|(n, _)| *n == name) {
                    slot.1 = t.clone();
                } else {
                    tools.push((name, t.clone()));
                }
            }
        }
    }
    if timestamp.is_none() && tools.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert("role".into(), json!("system"));
    out.insert("content".into(), Value::String(content.join("\n\n")));
    if !sections.is_empty() {
        out.insert(
            "sections".into(),
            Value::Object(sections.into_iter().collect()),
        );
    }
    if !tools.is_empty() {
        out.insert(
            "toolsAdded".into(),
            Value::Array(tools.into_iter().map(|(_, t)| t).collect()),
        );
    }
    out.insert("timestamp".into(), timestamp.unwrap_or(json!(0)));
    Some(Value::Object(out))
}

fn entry_id(s: &Session, idx: usize) -> String {
    s.entries[idx]
        .id
        .as_ref()
        .map(|k| k.display().to_string())
        .unwrap_or_default()
}

/// Materialize positions `range` (read through pi-shake's folds) into region messages. With an
/// extractor, every tool result's line features are computed (by message index) and, when `lite`,
/// the text of results whose call is in the range is dropped (rendering re-reads it).
fn read_messages(
    s: &Session,
    p: &Projection,
    wall: Option<&Wall>,
    range: std::ops::Range<usize>,
    fetch: Fetch<'_>,
    mut extract: Option<(
        &mut budget::Extractor,
        &mut Vec<Option<budget::OutFeat>>,
        bool,
    )>,
) -> Result<Vec<RMsg>> {
    let mut out = Vec::new();
    let mut calls: std::collections::HashSet<String> = std::collections::HashSet::new();
    for pos in range {
        let idx = p.entries[pos].idx;
        if matches!(s.entries[idx].body, crate::session::Body::Compaction { .. }) {
            continue;
        }
        let id = entry_id(s, idx);
        for m in materialize(s, p, wall, Overlays::ThroughShake, pos, fetch)? {
            if let Some(mut rm) = region::parse_message(pos, &id, &m) {
                if let Some((ex, feats, lite)) = extract.as_mut() {
                    feats.resize(out.len() + 1, None);
                    match &mut rm.kind {
                        Kind::Assistant(blocks) => {
                            for b in blocks.iter() {
                                if let region::Block::ToolCall { id, .. } = b {
                                    calls.insert(id.clone());
                                }
                            }
                        }
                        Kind::ToolResult {
                            blocks, call_id, ..
                        } => {
                            let text = region::text_of(blocks);
                            let mut f = ex.features(&text);
                            if *lite {
                                f.win_tokens = estimate_request_tokens(&questions::render_windows(
                                    &text,
                                    questions::WHOLE_MAX,
                                    questions::WINDOW,
                                ));
                            }
                            feats[out.len()] = Some(f);
                            if *lite && calls.contains(call_id.as_str()) {
                                blocks.retain(|b| !matches!(b, region::Block::Text(_)));
                            }
                        }
                        _ => {}
                    }
                }
                out.push(rm);
            }
        }
    }
    Ok(out)
}

/// Re-read the output of pair `pair` (its result's text blocks, through pi-shake's folds).
pub(crate) fn fetch_output(
    s: &Session,
    p: &Projection,
    wall: Option<&Wall>,
    pos: usize,
    call_id: &str,
    fetch: Fetch<'_>,
) -> Result<String> {
    let id = entry_id(s, p.entries[pos].idx);
    for m in materialize(s, p, wall, Overlays::ThroughShake, pos, fetch)? {
        if let Some(RMsg {
            kind: Kind::ToolResult {
                call_id: c, blocks, ..
            },
            ..
        }) = region::parse_message(pos, &id, &m)
            && c == call_id
        {
            return Ok(region::text_of(&blocks));
        }
    }
    Ok(String::new())
}

/// Plain text of messages (for the offline scorer's kept context).
fn plain_text(msgs: &[RMsg]) -> String {
    let mut out = Vec::new();
    for m in msgs {
        match &m.kind {
            Kind::User(b) | Kind::Custom { blocks: b, .. } => out.push(region::text_of(b)),
            Kind::Assistant(b) => {
                out.push(region::text_of(b));
                for blk in b {
                    if let region::Block::ToolCall { name, args, .. } = blk {
                        out.push(format!("{name} {args}"));
                    }
                }
            }
            Kind::ToolResult { blocks, .. } => out.push(region::text_of(blocks)),
            Kind::Bash {
                command, output, ..
            } => out.push(format!("{command}\n{output}")),
            Kind::BranchSummary(s) => out.push(s.clone()),
            Kind::Other(_) => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out.join("\n")
}

/// Steps 1–4 up to the scorer: cut, region, pins, pairs, state, questions.
pub fn prepare(
    s: &Session,
    t: &Tree,
    p: &Projection,
    wall: Option<&Wall>,
    opts: &CompactOptions,
    fetch: Fetch<'_>,
) -> Result<Outcome<Prepared>> {
    let outcome = match &opts.first_kept_entry_id {
        None => cut::prepare(s, t, p, opts.keep_recent_tokens),
        Some(id) => cut::at(s, t, p, id, opts.keep_recent_tokens).ok_or_else(|| {
            crate::error::Fault::new(
                crate::error::FaultKind::Usage,
                format!(
                    "firstKeptEntryId {id} is not an entry of the active branch's context after the previous compaction"
                ),
            )
        })?,
    };
    let cut = match outcome {
        CutOutcome::Cut(c) => c,
        CutOutcome::AlreadyCompacted => return Ok(Outcome::AlreadyCompacted),
        CutOutcome::NothingToCompact => return Ok(Outcome::NothingToCompact),
    };
    let region = cut.region();
    let end = p.entries.len();
    // The kept part first: what the agent is doing now relates the region's strings to it.
    let kept = read_messages(s, p, wall, cut.first_kept_pos..end, fetch, None)?;
    let kept_text = plain_text(&kept);
    let mut vocab = budget::Vocab::default();
    vocab.add(&kept_text);
    for m in &kept {
        match &m.kind {
            Kind::User(b) | Kind::Custom { blocks: b, .. } => vocab.add_query(&region::text_of(b)),
            Kind::Assistant(b) => {
                vocab.add_query(&region::text_of(b));
                for blk in b {
                    if let region::Block::ToolCall { args, .. } = blk {
                        vocab.add_query(&args.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    // The user's compaction instructions (`/compact <text>`) are the newest prompt of all.
    if let Some(text) = opts.instructions.as_deref() {
        vocab.add(text);
        vocab.add_query(text);
    }
    let mut extractor = budget::Extractor::new(vocab);
    let mut msg_feats: Vec<Option<budget::OutFeat>> = Vec::new();
    let msgs = read_messages(
        s,
        p,
        wall,
        region.clone(),
        fetch,
        Some((&mut extractor, &mut msg_feats, opts.lite)),
    )?;
    let previous_summary = match cut.previous {
        Some(pos) => fetch(p.entries[pos].idx)?
            .get("summary")
            .and_then(Value::as_str)
            .map(str::to_string),
        None => None,
    };
    // System messages, as projected (pi replays them into the entry).
    let mut sys_msgs = Vec::new();
    for (pos, pe) in p.entries.iter().enumerate() {
        if pe.messages.iter().any(|m| m.role == "system") {
            sys_msgs.extend(materialize(s, p, wall, Overlays::AsProjected, pos, fetch)?);
        }
    }
    let system_message = replay_system_message(&sys_msgs);
    let non_system = |r: std::ops::Range<usize>| -> u64 {
        p.entries[r]
            .iter()
            .filter(|pe| {
                !matches!(
                    s.entries[pe.idx].body,
                    crate::session::Body::Compaction { .. }
                )
            })
            .flat_map(|pe| pe.messages.iter())
            .filter(|m| m.role != "system")
            .map(|m| m.tokens0())
            .sum()
    };
    let region_tokens = non_system(region.clone());
    let kept_tokens = non_system(cut.first_kept_pos..end);
    let system_tokens = crate::projection::replay_system_tokens(s, p);

    // Steps 2–3: pairs and pins.
    let mut pairs = region::pair_up(&msgs);
    // Question ids from the call's line in the file (append-only, so stable across runs).
    region::stable_ids(&mut pairs, |mi| {
        msgs.get(mi)
            .and_then(|m| p.entries.get(m.pos))
            .map_or(0, |pe| s.entries[pe.idx].line)
    });
    let later = region::pair_up(&kept);
    let pins = region::pins(&pairs, &later);
    let facts = fit::pair_facts(&pairs, &later);
    let mut feats: Vec<Option<budget::OutFeat>> = Vec::with_capacity(pairs.len());
    for pair in pairs.iter_mut() {
        let f = pair
            .result_msg
            .and_then(|j| msg_feats.get_mut(j).and_then(Option::take));
        if let Some(f) = &f
            && pair.output.is_empty()
        {
            pair.output_chars = f.chars;
        }
        feats.push(f);
    }
    drop(msg_feats);
    let mut pin_outputs: Vec<Option<String>> = vec![None; pairs.len()];
    for (i, pair) in pairs.iter().enumerate() {
        if pins[i].is_some()
            && let Some(j) = pair.result_msg
        {
            pin_outputs[i] = Some(if pair.output.is_empty() && pair.output_chars > 0 {
                fetch_output(s, p, wall, msgs[j].pos, &pair.call_id, fetch)?
            } else {
                pair.output.clone()
            });
        }
    }
    let user_messages = msgs
        .iter()
        .filter(|m| matches!(m.kind, Kind::User(_)))
        .count();

    // State.
    let mut exchanges = region::exchanges(&msgs);
    region::exchanges_cont(&mut exchanges, &kept);
    if let Some(text) = opts
        .instructions
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        exchanges.push(region::Exchange {
            user: format!("Compaction instructions: {}", text.trim()),
            assistant: String::new(),
        });
    }
    let workspace = match (&s.header.cwd, opts.read_workspace) {
        (Some(cwd), true) => state::read_workspace(cwd),
        (Some(cwd), false) => state::Workspace {
            name: std::path::Path::new(cwd)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            ..Default::default()
        },
        (None, _) => state::Workspace::default(),
    };
    let inputs = state::StateInputs {
        workspace,
        first: exchanges.first().cloned(),
        all: exchanges.clone(),
        carried: previous_summary.clone(),
    };
    let fitted = state::fit(&inputs, opts.state_budget);

    // Questions for the unpinned, paired pairs (lite: sized from the output windows only).
    let mut probes = Vec::new();
    for (i, pair) in pairs.iter().enumerate() {
        if pins[i].is_some() || pair.result_msg.is_none() {
            continue;
        }
        let win = if opts.lite {
            feats[i].as_ref().map_or(0, |f| f.win_tokens)
        } else {
            0
        };
        let mut probe = questions::probe(PairData {
            pair_id: pair.id(),
            index: i,
            count: pairs.len(),
            tool: pair.tool.clone(),
            args: pair.args.clone(),
            output: pair.output.clone(),
            is_error: pair.is_error,
            call_entry: msgs[pair.call_msg].entry_id.clone(),
            result_entry: pair
                .result_msg
                .map(|j| msgs[j].entry_id.clone())
                .unwrap_or_default(),
        });
        probe.est_tokens += 2 * win;
        probes.push(probe);
    }
    // Kept context: state parts, the region's own words, pinned pairs, the kept tail.
    let mut kept_context = Vec::new();
    if let Some(f) = &fitted.state.first {
        kept_context.push(format!("{}\n{}", f.user, f.assistant));
    }
    for x in &fitted.state.recent {
        kept_context.push(format!("{}\n{}", x.user, x.assistant));
    }
    if let Some(c) = &fitted.state.carried {
        kept_context.push(c.clone());
    }
    let words: Vec<RMsg> = msgs
        .iter()
        .filter(|m| {
            matches!(
                m.kind,
                Kind::User(_) | Kind::Assistant(_) | Kind::Custom { .. }
            )
        })
        .cloned()
        .map(|mut m| {
            if let Kind::Assistant(b) = &mut m.kind {
                b.retain(|x| matches!(x, region::Block::Text(_)));
            }
            m
        })
        .collect();
    kept_context.push(plain_text(&words));
    for (i, pair) in pairs.iter().enumerate() {
        if pins[i].is_some() {
            kept_context.push(format!(
                "{} {}\n{}",
                pair.tool,
                pair.args,
                text::head(&pair.output, 2_000)
            ));
        }
    }
    // Strings the summary holds anyway: the kept part, the region's prose, the carried summary,
    // the pinned outputs.
    let mut covered = vec![false; extractor.table.len()];
    let ids = std::mem::take(&mut extractor.ids);
    let mut cover = |t: &str| {
        for x in budget::distinctive(t) {
            if let Some(&id) = ids.get(&budget::hash_str(x)) {
                covered[id as usize] = true;
            }
        }
    };
    cover(&kept_text);
    for k in &kept_context {
        cover(k);
    }
    for o in pin_outputs.iter().flatten() {
        cover(o);
    }
    kept_context.push(kept_text);
    kept_context.retain(|k| !k.is_empty());
    let request = ScoreRequest {
        state_json: fitted.json.clone(),
        state_tokens: fitted.tokens,
        probes,
        kept_context,
    };
    Ok(Outcome::Ready(Box::new(Prepared {
        cut,
        options: opts.clone(),
        request,
        state_caps: fitted.caps,
        state_fit_steps: fitted.steps,
        previous_summary,
        system_message,
        msgs,
        pairs,
        pins,
        feats,
        strings: extractor.table,
        covered,
        pin_outputs,
        facts,
        region_tokens,
        kept_tokens,
        system_tokens,
        user_messages,
    })))
}

/// Requests a Jev run would send: [`crate::score::batch::request_count`] with the default limits
/// and `request_budget` as the whole-request limit (before the 5% margin).
pub fn count_batches(req: &ScoreRequest, request_budget: u64) -> usize {
    let limits = crate::score::batch::Limits {
        request_max: request_budget,
        ..Default::default()
    };
    crate::score::batch::request_count(req, &limits)
}

/// What a Jev run with the default limits and `request_budget` would note before sending `req`
/// (pairs to shrink or score offline).
pub fn plan_notes(req: &ScoreRequest, request_budget: u64) -> ScoreNotes {
    let limits = crate::score::batch::Limits {
        request_max: request_budget,
        ..Default::default()
    };
    crate::score::batch::plan_notes(req, &limits)
}

/// Steps 5–6: scores → actions, render, sizes.
pub fn finish(
    prep: Prepared,
    scorer: String,
    planned_requests: usize,
    scores: Vec<PairScore>,
    signals: Option<Vec<Signals>>,
) -> Result<CompactPlan> {
    let o = &prep.options;
    let mut reports = Vec::with_capacity(prep.pairs.len());
    let mut actions = Vec::with_capacity(prep.pairs.len());
    let probe_map: std::collections::HashMap<&str, u64> = prep
        .request
        .probes
        .iter()
        .map(|p| (p.pair.pair_id.as_str(), p.est_tokens))
        .collect();
    let probe_tokens = |id: &str| probe_map.get(id).copied().unwrap_or(0);
    let score_map: std::collections::HashMap<&str, &PairScore> =
        scores.iter().map(|s| (s.pair_id.as_str(), s)).collect();
    let signal_map: std::collections::HashMap<&str, &Signals> = signals
        .iter()
        .flatten()
        .map(|s| (s.pair_id.as_str(), s))
        .collect();
    for (i, pair) in prep.pairs.iter().enumerate() {
        let id = pair.id();
        let score = score_map.get(id.as_str()).copied();
        let action = if prep.pins[i].is_some() {
            Action::Pinned
        } else if pair.result_msg.is_none() {
            Action::Unpaired
        } else {
            let Some(sc) = score else {
                anyhow::bail!("the scorer returned no score for pair {id}");
            };
            if sc.useful < o.threshold {
                Action::Drop
            } else if sc.full >= o.threshold {
                Action::Keep
            } else {
                Action::Stub
            }
        };
        actions.push(action);
        let scored = matches!(action, Action::Keep | Action::Stub | Action::Drop);
        reports.push(PairReport {
            id: id.clone(),
            tool: pair.tool.clone(),
            call_entry: prep.msgs[pair.call_msg].entry_id.clone(),
            result_entry: pair.result_msg.map(|j| prep.msgs[j].entry_id.clone()),
            output_chars: text::clen(&pair.output),
            is_error: pair.is_error,
            action,
            pin: prep.pins[i],
            useful: score.filter(|_| scored).map(|s| s.useful),
            full: score.filter(|_| scored).map(|s| s.full),
            source: score.filter(|_| scored).map(|s| s.source),
            model: score.filter(|_| scored).and_then(|s| s.model.clone()),
            signals: signal_map
                .get(id.as_str())
                .filter(|_| {
                    scored && score.is_some_and(|s| s.source == crate::score::ScoreSource::Offline)
                })
                .map(|x| serde_json::to_value(x).unwrap_or(Value::Null)),
            lines: None,
            question_tokens: probe_tokens(&id),
        });
    }
    let decided: Vec<render::Decided<'_>> = prep
        .pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let action = actions[i];
            let out = prep.pin_outputs[i].as_deref().unwrap_or(&pair.output);
            let body = match (action, prep.pins[i]) {
                (Action::Drop, _) => None,
                (_, Some(Pin::EditWrite)) => Some((String::new(), out.to_string())),
                (_, Some(pin)) => Some(render::pin_body(out, pin, o.git_head, usize::MAX)),
                (Action::Keep | Action::Stub, None) => Some(render::threshold_body(
                    &pair.output,
                    action,
                    o.stub_fraction,
                    o.stub_cap,
                )),
                _ => None,
            };
            render::Decided {
                pair,
                action,
                pin: prep.pins[i],
                body,
            }
        })
        .collect();
    let ro = render::RenderOptions {
        user_whole: o.text_whole,
        user_window: o.text_window,
        text_whole: o.text_whole,
        text_window: o.text_window,
        edit_head: o.edit_head,
        write_body_max: o.write_body_max,
        pin_bodies: true,
        drop_notes: true,
        breadcrumbs: o.breadcrumbs,
        carried_cap: usize::MAX,
        short_title: false,
        pruner: pruner(),
        scorer: scorer.clone(),
    };
    let summary = render::render(&prep.msgs, &decided, prep.previous_summary.as_deref(), &ro);
    let summary_tokens = crate::jscompat::text_tokens(&summary);
    let counts = Counts::of(&reports, prep.user_messages);
    let mut warnings = Vec::new();
    if summary_tokens >= prep.region_tokens {
        warnings.push(format!(
            "the summary (~{} tokens) is not smaller than the region it replaces (~{} tokens)",
            crate::report::thousands(summary_tokens),
            crate::report::thousands(prep.region_tokens)
        ));
    }
    let sizes = Sizes {
        region_before: prep.region_tokens,
        region_after: summary_tokens,
        context_before: prep.cut.tokens_before,
        context_estimate_before: prep.system_tokens + prep.region_tokens + prep.kept_tokens,
        context_after: prep.system_tokens + summary_tokens + prep.kept_tokens,
        state_tokens: prep.request.state_tokens,
        state_chars: prep.request.state_json.chars().count(),
        question_tokens: prep.request.probes.iter().map(|p| p.est_tokens).sum(),
    };
    let batches = count_batches(&prep.request, o.request_budget);
    Ok(CompactPlan {
        cut: prep.cut,
        scorer,
        summary,
        system_message: prep.system_message,
        pairs: reports,
        counts,
        sizes,
        batches,
        planned_requests,
        state_caps: prep.state_caps,
        state_fit_steps: prep.state_fit_steps,
        threshold: o.threshold,
        request: prep.request,
        scores,
        warnings,
        notes: ScoreNotes::default(),
        budget: None,
    })
}

/// The whole pipeline: [`prepare`], score the unpinned pairs with `scorer`, [`finish`].
///
/// A scorer failure is returned as an [`anyhow::Error`] wrapping the [`ScorerError`] (downcast
/// it for the exit code) unless `on_scorer_error_offline`, which scores the missing pairs with
/// the offline heuristic.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    s: &Session,
    t: &Tree,
    p: &Projection,
    wall: Option<&Wall>,
    opts: &CompactOptions,
    scorer: &dyn Scorer,
    progress: &dyn Progress,
    fetch: Fetch<'_>,
) -> Result<Outcome<CompactPlan>> {
    let prep = match prepare(s, t, p, wall, opts, fetch)? {
        Outcome::Ready(p) => *p,
        Outcome::AlreadyCompacted => return Ok(Outcome::AlreadyCompacted),
        Outcome::NothingToCompact => return Ok(Outcome::NothingToCompact),
    };
    let name = scorer.name();
    let planned = scorer.planned_requests(&prep.request);
    if let Some(spec) = opts.budget.clone() {
        // Under a budget the embedded scorer is the line selector itself; another scorer's
        // answers become priors on its pairs.
        let (priors, name) = if name == offline::NAME || prep.request.probes.is_empty() {
            (Vec::new(), fit::NAME.to_string())
        } else {
            match scorer.score(&prep.request, progress) {
                Ok(s) => (s, format!("{name}, fitted by {}", fit::NAME)),
                Err(e) if opts.on_scorer_error_offline => (
                    e.partial,
                    format!("{name} (partial), fitted by {}", fit::NAME),
                ),
                Err(e) => return Err(anyhow::Error::new(e)),
            }
        };
        let src = fit::Source {
            session: s,
            projection: p,
            wall,
            fetch,
        };
        let mut plan = fit::finish(prep, &spec, name, planned, priors, src)?;
        let notes = scorer.notes();
        plan.warnings.extend(notes.warnings.iter().cloned());
        plan.notes = notes;
        return Ok(Outcome::Ready(Box::new(plan)));
    }
    let (scores, mut name) = if prep.request.probes.is_empty() {
        (Vec::new(), name)
    } else {
        match scorer.score(&prep.request, progress) {
            Ok(s) => (s, name),
            Err(e) if opts.on_scorer_error_offline => fallback(&prep.request, e, name),
            Err(e) => return Err(anyhow::Error::new(e)),
        }
    };
    let notes = scorer.notes();
    let offline_used = name == offline::NAME
        || name.ends_with(&format!("+ {}", offline::NAME))
        || scores.iter().any(|s| s.source == ScoreSource::Offline);
    let signals = offline_used.then(|| Heuristic.explain(&prep.request));
    if name.is_empty() {
        name = offline::NAME.to_string();
    }
    let mut plan = finish(prep, name, planned, scores, signals)?;
    plan.warnings.extend(notes.warnings.iter().cloned());
    plan.notes = notes;
    Ok(Outcome::Ready(Box::new(plan)))
}

fn fallback(req: &ScoreRequest, e: ScorerError, name: String) -> (Vec<PairScore>, String) {
    let mut scores = e.partial;
    let have: std::collections::BTreeSet<String> =
        scores.iter().map(|s| s.pair_id.clone()).collect();
    for sig in Heuristic.explain(req) {
        if !have.contains(&sig.pair_id) {
            scores.push(PairScore {
                pair_id: sig.pair_id,
                useful: sig.useful,
                full: sig.full,
                source: crate::score::ScoreSource::Offline,
                model: None,
            });
        }
    }
    (scores, format!("{name} + {}", offline::NAME))
}

/// Append the `compaction` entry (`docs/pi-format.md#the-compaction-entry-pi-shake-writes`) to
/// `batch`; returns its id.
pub fn append(plan: &CompactPlan, batch: &mut Batch) -> String {
    let now = batch.now_ms();
    let details = plan.details();
    batch.entry("compaction", |_id| {
        let mut m = Map::new();
        m.insert("summary".into(), Value::String(plan.summary.clone()));
        m.insert(
            "firstKeptEntryId".into(),
            Value::String(plan.cut.first_kept_id.clone()),
        );
        m.insert(
            "tokensBefore".into(),
            crate::jscompat::js_number(plan.cut.tokens_before),
        );
        m.insert("details".into(), details);
        m.insert("fromHook".into(), Value::Bool(true));
        if let Some(Value::Object(sys)) = &plan.system_message {
            let mut sys = sys.clone();
            sys.insert("timestamp".into(), json!(now));
            m.insert("systemMessage".into(), Value::Object(sys));
        }
        m
    })
}
