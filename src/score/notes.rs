//! What a scorer observed during a run, for the compaction's `details` and `compact --json`:
//! token usage reported by the server (summed, and per request when the run was small), pairs
//! whose question windows were shrunk to fit one request, pairs scored by the offline heuristic
//! instead (too large even at the smallest windows, or missing from a lax replay), and warnings.
//!
//! [`settle`] is the shared last step of the wire and replay scorers: it scores the fallback
//! pairs offline and merges everything in probe order.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::offline::Heuristic;
use super::{NoProgress, PairScore, ScoreRequest, Scorer, ScorerError};

/// Per-request usage lines are kept when a run sent at most this many requests.
pub const PER_REQUEST_MAX: usize = 16;

/// Token usage over one run. `input_tokens` / `output_tokens` are summed from the answers that
/// carried a `usage` object (System One `usage.input_tokens` / `output_tokens`; chat
/// `usage.prompt_tokens` / `completion_tokens`, or the `input_tokens` / `output_tokens` spelling).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// HTTP requests sent: retries, split halves and shrunk re-sends included.
    pub requests: u64,
    /// Requests answered with a 2xx status.
    pub answered: u64,
    /// Answers that reported usage.
    pub reported: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// pi-shake's estimate of the input tokens of the answered requests (compare with
    /// `input_tokens` to see how conservative the estimator is).
    pub estimated_input_tokens: u64,
    /// One line per request, in batch order, when the run sent at most [`PER_REQUEST_MAX`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_request: Vec<RequestUsage>,
}

/// One HTTP request of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestUsage {
    /// The first pair id of the request's batch.
    pub first_pair: String,
    pub pairs: usize,
    /// HTTP status; `None` for a transport failure (timeout, refused connection).
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    pub estimated_tokens: u64,
}

/// A pair whose question windows were made smaller so that one request can hold it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shrunk {
    pub pair: String,
    /// Head / middle / tail window sizes in chars, e.g. `1,500/1,500/1,500`.
    pub windows: String,
    /// Estimated tokens of both questions before and after.
    pub from_tokens: u64,
    pub to_tokens: u64,
    /// `request limits` (planned) or the server's answer, e.g. `HTTP 413`.
    pub reason: String,
}

/// A pair scored by the offline heuristic instead of the configured scorer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OfflinePair {
    pub pair: String,
    pub reason: String,
}

/// Everything a scorer noted during its last `score` call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreNotes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shrunk: Vec<Shrunk>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offline: Vec<OfflinePair>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl ScoreNotes {
    /// Adds `usage`, `shrunkPairs` and `offlinePairs` (each only when there is something to say)
    /// to a `details` object or a `--json` document.
    pub fn extend_json(&self, o: &mut Map<String, Value>) {
        let mut put = |k: &str, v: Result<Value, serde_json::Error>| {
            if let Ok(v) = v {
                o.insert(k.to_string(), v);
            }
        };
        if let Some(u) = &self.usage {
            put("usage", serde_json::to_value(u));
        }
        if !self.shrunk.is_empty() {
            put("shrunkPairs", serde_json::to_value(&self.shrunk));
        }
        if !self.offline.is_empty() {
            put("offlinePairs", serde_json::to_value(&self.offline));
        }
    }
}

impl ScoreNotes {
    /// The warning for `shrunk` (`verb`: `asked`, or `would be asked` for a plan).
    pub fn warn_shrunk(&mut self, verb: &str) {
        if self.shrunk.is_empty() {
            return;
        }
        let ids: Vec<String> = self
            .shrunk
            .iter()
            .map(|s| format!("{} ({})", s.pair, s.windows))
            .collect();
        self.warnings.push(format!(
            "{} pair(s) {verb} with smaller output windows to fit one request: {}",
            ids.len(),
            id_list(&ids, 10)
        ));
    }
}

/// `ids` as a short list: the first `max`, then `… and N more`.
pub fn id_list<S: AsRef<str>>(ids: &[S], max: usize) -> String {
    let mut s: Vec<&str> = ids.iter().take(max).map(AsRef::as_ref).collect();
    let more = ids.len().saturating_sub(max);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    s.retain(|x| !x.is_empty());
    format!("{}{tail}", s.join(", "))
}

/// The last step of a run: the `offline` pairs get the offline heuristic's scores (with a
/// warning), merged with `result` in `req`'s probe order. On failure the offline scores join the
/// error's partial scores. Fills `notes.offline` and its warning.
pub fn settle(
    req: &ScoreRequest,
    result: Result<Vec<PairScore>, ScorerError>,
    offline: Vec<OfflinePair>,
    notes: &mut ScoreNotes,
) -> Result<Vec<PairScore>, ScorerError> {
    if offline.is_empty() {
        return result;
    }
    let want: BTreeSet<&str> = offline.iter().map(|o| o.pair.as_str()).collect();
    let extra: Vec<PairScore> = Heuristic
        .score(req, &NoProgress)
        .unwrap_or_default()
        .into_iter()
        .filter(|s| want.contains(s.pair_id.as_str()))
        .collect();
    let ids: Vec<&str> = offline.iter().map(|o| o.pair.as_str()).collect();
    notes.warnings.push(format!(
        "{} pair(s) scored offline by {} instead: {} (see offlinePairs in details)",
        offline.len(),
        super::offline::NAME,
        id_list(&ids, 10)
    ));
    notes.offline = offline;
    let merge = |mut got: Vec<PairScore>| -> Vec<PairScore> {
        got.extend(extra.iter().cloned());
        let mut by_id: BTreeMap<String, PairScore> =
            got.into_iter().map(|s| (s.pair_id.clone(), s)).collect();
        req.probes
            .iter()
            .filter_map(|p| by_id.remove(&p.pair.pair_id))
            .collect()
    };
    match result {
        Ok(scores) => Ok(merge(scores)),
        Err(mut e) => {
            e.partial = merge(std::mem::take(&mut e.partial));
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_lists_are_short() {
        assert_eq!(id_list(&["t1", "t2"], 5), "t1, t2");
        assert_eq!(id_list(&["t1", "t2", "t3"], 2), "t1, t2 and 1 more");
    }

    #[test]
    fn json_keys_only_when_something_to_say() {
        let mut o = Map::new();
        ScoreNotes::default().extend_json(&mut o);
        assert!(o.is_empty());
        let n = ScoreNotes {
            usage: Some(Usage {
                requests: 2,
                input_tokens: 10,
                ..Usage::default()
            }),
            offline: vec![OfflinePair {
                pair: "t3".into(),
                reason: "too large".into(),
            }],
            ..ScoreNotes::default()
        };
        n.extend_json(&mut o);
        assert_eq!(o["usage"]["requests"], 2);
        assert_eq!(o["usage"]["inputTokens"], 10);
        assert_eq!(o["offlinePairs"][0]["pair"], "t3");
        assert!(!o.contains_key("shrunkPairs"));
    }
}
