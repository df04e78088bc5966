//! Serialisable plan types: per-pair decisions, counts and sizes. They feed the compaction's
//! `details`, `compact --dry-run --json` and `--scores-out`.

use serde::Serialize;

use super::region::Pin;
use crate::score::ScoreSource;

/// What happens to a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Output kept verbatim (useful ≥ t and full ≥ t).
    Keep,
    /// Output cut to head + tail (useful ≥ t, full < t).
    Stub,
    /// Call and output dropped (useful < t); listed in the summary.
    Drop,
    /// Pinned: the scorer is not asked; kept per the pin's rule.
    Pinned,
    /// A call without a result: not scored, rendered as is.
    Unpaired,
}

impl Action {
    /// The action's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Keep => "keep",
            Action::Stub => "stub",
            Action::Drop => "drop",
            Action::Pinned => "pinned",
            Action::Unpaired => "unpaired",
        }
    }
}

/// One pair's plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PairReport {
    /// `t{n}`.
    pub id: String,
    pub tool: String,
    /// Entry ids of the call's assistant message and of the result.
    pub call_entry: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_entry: Option<String>,
    /// Output size in chars.
    pub output_chars: usize,
    pub is_error: bool,
    pub action: Action,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pin: Option<Pin>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub useful: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<ScoreSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The offline scorer's signals, when it scored the pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signals: Option<PairSignals>,
    /// Under a budget: `[kept, total]` lines of its output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[usize; 2]>,
    /// Under a budget: `[kept, total]` lines of a multi-line command's rest (its lines after
    /// the first, which the call line shows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_lines: Option<[usize; 2]>,
    /// Estimated tokens of both questions (0 for pairs that are not asked).
    pub question_tokens: u64,
}

/// Why the offline path valued a pair as it did (typed, not a JSON map per pair: a big region
/// has tens of thousands of pairs).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PairSignals {
    /// Under a budget: the factor on its strings' worth (3 decimals) and the reasons for it.
    Budget { factor: f64, why: Vec<&'static str> },
    /// Under the threshold: the offline heuristic's signals and scores.
    Heuristic(crate::score::offline::Signals),
}

/// Pairs by action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub pairs: usize,
    pub kept: usize,
    pub stubbed: usize,
    pub dropped: usize,
    pub pinned: usize,
    pub unpaired: usize,
    /// User messages in the region.
    pub user_messages: usize,
    /// Of those, left out of the summary (only under the smallest budgets; counted in place).
    pub user_messages_left_out: usize,
}

impl Counts {
    /// Count `pairs`.
    pub fn of(pairs: &[PairReport], user_messages: usize) -> Counts {
        let n = |a: Action| pairs.iter().filter(|p| p.action == a).count();
        Counts {
            pairs: pairs.len(),
            kept: n(Action::Keep),
            stubbed: n(Action::Stub),
            dropped: n(Action::Drop),
            pinned: n(Action::Pinned),
            unpaired: n(Action::Unpaired),
            user_messages,
            user_messages_left_out: 0,
        }
    }
}

/// Token sizes (pi's per-message estimates; the context totals are pi's,
/// `docs/pi-format.md#context-total`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sizes {
    /// Σ estimates of the region's projected messages.
    pub region_before: u64,
    /// Estimate of the summary (what replaces the region).
    pub region_after: u64,
    /// pi's projected context total now (= the entry's `tokensBefore`).
    #[serde(serialize_with = "crate::jscompat::serialize_js_number")]
    pub context_before: f64,
    /// The same total as a pure chars/4 estimate (pi's fallback), comparable with
    /// `context_after` when `context_before` is usage-based.
    pub context_estimate_before: u64,
    /// pi's projected context total after the compaction (a pure estimate, as pi computes it
    /// until the next response).
    pub context_after: u64,
    /// State size: estimated request tokens and chars.
    pub state_tokens: u64,
    pub state_chars: usize,
    /// Σ estimated question tokens.
    pub question_tokens: u64,
}

/// The `compact --dry-run --json` document's plan part.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanReport {
    pub first_kept_entry_id: String,
    pub is_split_turn: bool,
    pub keep_recent_tokens: u64,
    pub scorer: String,
    pub template: String,
    pub threshold: f64,
    pub counts: Counts,
    pub sizes: Sizes,
    /// Batches a Jev run would send (state + questions ≤ 64,000 estimated tokens each).
    pub batches: usize,
    /// HTTP requests this scorer makes (0 for local scorers).
    pub planned_requests: usize,
    /// Shrink steps `fitState` applied and the caps it ended with.
    pub state_fit_steps: usize,
    pub state_caps: super::state::Caps,
    pub pairs: Vec<PairReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Budgeted plans: the budget, the achieved size and the shrink steps taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<super::budget::BudgetReport>,
}
