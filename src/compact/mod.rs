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
pub mod carried;
pub mod cut;
mod decide;
pub mod fit;
pub mod named;
mod prepare;
pub mod region;
pub mod render;
pub mod report;
pub mod state;
mod system;

#[cfg(test)]
mod tests;

use anyhow::Result;
use serde_json::{Map, Value, json};

pub use crate::jscompat::estimate_request_tokens;
pub use crate::score::questions::{self, TEMPLATE};
pub use crate::text;
pub use cut::{Cut, CutOutcome};
pub use decide::{finish, largest_sent, plan};
pub(crate) use prepare::fetch_output;
pub use prepare::prepare;
pub use region::{Pin, normalised_args, same_key};
pub use report::{Action, Counts, PairReport, PairSignals, PlanReport, Sizes};
pub use system::replay_system_message;

use crate::score::{PairScore, ScoreNotes, ScoreRequest};
use crate::writer::Batch;
use region::{Pair, RMsg};

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
    /// Hold the summary's text in the plan. A dry run needs only its size: under a budget the
    /// summary is then rendered into a counter (every body still read and cut, so the size is
    /// exactly what a real run writes) and [`CompactPlan::summary`] stays empty.
    pub summary_text: bool,
}

impl Default for CompactOptions {
    fn default() -> CompactOptions {
        CompactOptions {
            summary_text: true,
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
    /// The previous summary, read for cutting by value ([`carried`]).
    pub carried: Option<carried::Carried>,
    /// The replayed system message (timestamp set by [`append`]).
    pub system_message: Option<Value>,
    msgs: Vec<RMsg>,
    pairs: Vec<Pair>,
    pins: Vec<Option<Pin>>,
    /// Line features of every paired output (by pair).
    feats: Vec<Option<budget::OutFeat>>,
    /// Line features of the rest of each unpinned multi-line command ([`region::Pair::script`]),
    /// by pair, in pair order.
    scripts: Vec<(usize, budget::OutFeat)>,
    /// Line features of the outputs outside the pairs (a shell command the user ran, a tool
    /// result whose call is not in the region), by message index, in message order: under a
    /// budget their lines compete with the pairs'.
    loose: Vec<(usize, budget::OutFeat)>,
    /// The string table and the strings the summary has anyway (kept part, prose, carried).
    strings: Vec<budget::StrInfo>,
    covered: Vec<bool>,
    /// Pinned outputs (re-read in lite mode), by pair.
    pin_outputs: Vec<Option<String>>,
    /// Later-pair facts for the value model.
    facts: fit::PairFacts,
    region_tokens: u64,
    kept_tokens: u64,
    /// The previous compaction's summary message, as projected (0 without one).
    carried_tokens: u64,
    system_tokens: u64,
    user_messages: usize,
    /// The session's cwd (headers and the files line name paths under it relative to it).
    cwd: Option<String>,
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

/// What a decision step (the threshold or the budget) made of a [`Prepared`] region, before
/// the plan is assembled around it.
pub(crate) struct Decision {
    pub scorer: String,
    /// The summary (empty when the options say not to hold it) and its tokens.
    pub summary: String,
    pub summary_tokens: u64,
    pub pairs: Vec<PairReport>,
    pub counts: Counts,
    pub planned_requests: usize,
    pub scores: Vec<PairScore>,
    pub warnings: Vec<String>,
    pub budget: Option<budget::BudgetReport>,
}

impl CompactPlan {
    /// The plan for `prep` once a decision step has rendered its summary: sizes, the request
    /// count, and a warning when the summary is not smaller than the region.
    pub(crate) fn assemble(prep: Prepared, d: Decision) -> CompactPlan {
        let summary_tokens = d.summary_tokens;
        let mut warnings = Vec::new();
        if summary_tokens >= prep.region_tokens {
            warnings.push(format!(
                "the summary (~{} tokens) is not smaller than the region it replaces (~{} tokens)",
                crate::text::thousands(summary_tokens),
                crate::text::thousands(prep.region_tokens)
            ));
        }
        warnings.extend(d.warnings);
        let sizes = Sizes {
            region_before: prep.region_tokens,
            region_after: summary_tokens,
            context_before: prep.cut.tokens_before,
            context_estimate_before: prep.system_tokens
                + prep.carried_tokens
                + prep.region_tokens
                + prep.kept_tokens,
            context_after: prep.system_tokens + summary_tokens + prep.kept_tokens,
            state_tokens: prep.request.state_tokens,
            state_chars: prep.request.state_json.chars().count(),
            question_tokens: prep.request.probes.iter().map(|p| p.est_tokens).sum(),
        };
        let batches = count_batches(&prep.request, prep.options.request_budget);
        CompactPlan {
            cut: prep.cut,
            scorer: d.scorer,
            summary: d.summary,
            system_message: prep.system_message,
            pairs: d.pairs,
            counts: d.counts,
            sizes,
            batches,
            planned_requests: d.planned_requests,
            state_caps: prep.state_caps,
            state_fit_steps: prep.state_fit_steps,
            threshold: prep.options.threshold,
            request: prep.request,
            scores: d.scores,
            warnings,
            notes: ScoreNotes::default(),
            budget: d.budget,
        }
    }

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
            if !self.warnings.is_empty() {
                // What the human report prints as warnings (history lost, over budget): the
                // pi extension shows them in pi.
                o.insert("warnings".into(), json!(self.warnings));
            }
        }
        d
    }
}

/// Re-reads entry `i`'s JSON (e.g. `&mut |i| session.read_value(i)`).
pub type Fetch<'a> = &'a mut dyn FnMut(usize) -> Result<Value>;

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

/// Append the `compaction` entry (`docs/pi-format.md#the-compaction-entry-pi-shake-writes`) to
/// `batch`; returns its id. The summary moves into the entry (`plan.summary` is left empty):
/// a big summary is then held once beside its serialised line, not twice.
pub fn append(plan: &mut CompactPlan, batch: &mut Batch) -> String {
    let now = batch.now_ms();
    let details = plan.details();
    let summary = std::mem::take(&mut plan.summary);
    let plan = &*plan;
    batch.entry("compaction", |_id| {
        let mut m = Map::new();
        m.insert("summary".into(), Value::String(summary));
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
