//! Scorers for `compact`: the trait in front of everything that judges tool-call pairs.
//!
//! A scorer answers two questions per unpinned pair — `useful` and `full`, each a probability in
//! [0, 1] — about one shared state. Implementations: the embedded offline heuristic (default, no
//! network), Jev / TypeSafe System One over HTTP, an OpenAI-compatible chat adapter, and replay
//! from a scores file. Batching against the request limits is done once, above the wire
//! adapters (`batch`). The decision step that turns scores into keep / stub / drop is pure and
//! lives with the compaction planner.

pub mod batch;
pub mod chat;
pub mod http;
pub mod jev;
pub mod notes;
pub mod offline;
pub mod pair;
pub mod progress;
pub mod questions;
pub mod replay;
pub mod wire;

use serde::{Deserialize, Serialize};

pub use notes::{OfflinePair, RequestUsage, ScoreNotes, Shrunk, Usage};

/// One tool call + result pair, as the scorer sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairData {
    /// Stable pair id within the session region, e.g. `t17` (question ids are `useful_t17`,
    /// `full_t17`).
    pub pair_id: String,
    /// Position of the pair in the pruned region (0-based) and the number of pairs.
    pub index: usize,
    pub count: usize,
    /// Tool name and its arguments (JSON object as the model sent it).
    pub tool: String,
    pub args: std::sync::Arc<serde_json::Value>,
    /// The result's text (text blocks joined with `\n`; images are not scored).
    pub output: String,
    pub is_error: bool,
    /// Ids of the source entries (assistant with the call, tool result).
    pub call_entry: String,
    pub result_entry: String,
}

/// The questions for one pair, rendered exactly as Jev receives them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairProbe {
    pub pair: PairData,
    /// `instructions` of the `useful_tN` question.
    pub useful_instructions: String,
    /// `instructions` of the `full_tN` question.
    pub full_instructions: String,
    /// Estimated tokens of both questions together (the packing unit).
    pub est_tokens: u64,
    /// Set by [`PairProbe::lighten`]: the questions' cost, kept when their texts are not.
    #[serde(skip)]
    pub lite_cost: Option<batch::PairCost>,
}

impl PairProbe {
    /// Drop the question texts and keep only their cost, for a run that never sends them (the
    /// offline selector, a dry run): on a long session the texts are most of the request.
    pub fn lighten(&mut self) {
        self.lite_cost = Some(batch::pair_cost(self));
        self.useful_instructions = String::new();
        self.full_instructions = String::new();
    }
}

/// Everything a scorer gets for one run.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreRequest {
    /// The shared state, serialised once (byte-identical in every request of the run).
    pub state_json: String,
    /// Estimated tokens of the state.
    pub state_tokens: u64,
    /// Probes in pair order.
    pub probes: Vec<PairProbe>,
    /// Kept context the offline scorer may read: the first exchange, the recent exchanges and
    /// the previous compaction summary, as plain text.
    pub kept_context: Vec<String>,
}

impl ScoreRequest {
    /// Each probed pair's estimated question tokens, by pair id (pairs that were not asked
    /// about are absent).
    pub fn question_tokens(&self) -> std::collections::HashMap<&str, u64> {
        self.probes
            .iter()
            .map(|p| (p.pair.pair_id.as_str(), p.est_tokens))
            .collect()
    }
}

/// Where a score came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreSource {
    Offline,
    Jev,
    Chat,
    Replay,
}

/// A pair's two scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairScore {
    pub pair_id: String,
    pub useful: f64,
    pub full: f64,
    pub source: ScoreSource,
    /// Model that answered (Jev: the versioned model id), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Progress callbacks (the printer draws a bar on a terminal; tests use a no-op).
pub trait Progress: Send + Sync {
    /// Total batches and pairs are known.
    fn start(&self, _batches: usize, _pairs: usize) {}
    /// One batch finished with `pairs` pairs.
    fn batch_done(&self, _pairs: usize) {}
    /// A retry happened.
    fn retry(&self) {}
    /// The run is over.
    fn finish(&self) {}
}

/// A progress sink that does nothing.
pub struct NoProgress;
impl Progress for NoProgress {}

/// A scorer failure, classified for the exit code and message (never holds session text or keys).
#[derive(Debug)]
pub struct ScorerError {
    /// HTTP status, if any.
    pub status: Option<u16>,
    /// Error type/code from the body, or a local class (`timeout`, `connect`, `invalid-answer`).
    pub kind: String,
    /// Request id header, if any.
    pub request_id: Option<String>,
    /// A short message (server message cut to 300 chars).
    pub message: String,
    /// Pairs that got scores before the failure (merged by id), for `--on-scorer-error offline`.
    pub partial: Vec<PairScore>,
}

impl std::fmt::Display for ScorerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "scorer failed: {}", self.kind)?;
        if let Some(s) = self.status {
            write!(f, " (HTTP {s})")?;
        }
        if let Some(id) = &self.request_id {
            write!(f, " [request id {id}]")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScorerError {}

/// Something that scores pairs.
pub trait Scorer {
    /// A short name with version, e.g. `heuristic-v2`, `jev (jev-latest @ api.typesafe.ai)`.
    fn name(&self) -> String;
    /// How many HTTP requests scoring `req` would take (0 for local scorers).
    fn planned_requests(&self, _req: &ScoreRequest) -> usize {
        0
    }
    /// Score every probe of `req`. Results may come in any order; callers merge by `pair_id`.
    fn score(
        &self,
        req: &ScoreRequest,
        progress: &dyn Progress,
    ) -> Result<Vec<PairScore>, ScorerError>;
    /// What the last [`Scorer::score`] call noted (usage, shrunk windows, offline fallbacks,
    /// warnings), whether it succeeded or not. Local scorers note nothing.
    fn notes(&self) -> ScoreNotes {
        ScoreNotes::default()
    }
    /// What scoring `req` would note before anything is sent (pairs to shrink or score
    /// offline), for `--dry-run`. Local scorers note nothing.
    fn plan_notes(&self, _req: &ScoreRequest) -> ScoreNotes {
        ScoreNotes::default()
    }
}
