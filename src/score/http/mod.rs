//! Shared HTTP plumbing for the wire scorers (Jev / System One and the chat adapter).
//!
//! - endpoint checks: URL parsing, loopback detection, the plain-`http://` refusal, key lookup;
//! - retry timing (`docs/jev.md#retries-and-timeouts`): `retry-after-ms`, then `Retry-After` (seconds or an
//!   HTTP-date), then the error body's `retry_after_ms`, else 0.5 s × 2^attempt capped at 8 s with
//!   ±25% jitter (none when `PI_SHAKE_TEST_NO_JITTER` is set); waits over 60 s give up;
//! - error bodies (`docs/jev.md#error-bodies`: ours, OpenAI / vLLM / llama.cpp, Anthropic, Ollama, FastAPI, bare,
//!   plain text) and their classification (retry, too large → split, fatal). Status always wins;
//! - the batch engine: a tokio current-thread runtime built per `score` call, up to N requests in
//!   flight, per-batch retry loop, split on 413 / size-related 422 (depth ≤ 3), one retry on an
//!   invalid answer, a whole-run time budget, results merged by pair id whatever the completion
//!   order, and failures carrying the partial scores.
//!
//! Nothing here ever puts the API key or request bodies into an error or a log line.

mod endpoint;
mod engine;
mod errors;
mod retry;

pub use endpoint::*;
pub use engine::{MAX_SPLIT_DEPTH, USER_AGENT};
pub use engine::{Remote, Transport};
pub(crate) use engine::{Wire, run_batches, score_remote};
pub use errors::*;
pub use retry::*;

/// A header map of `pairs` (the retry and error tests).
#[cfg(test)]
pub(crate) fn test_headers(pairs: &[(&'static str, &str)]) -> reqwest::header::HeaderMap {
    let mut h = reqwest::header::HeaderMap::new();
    for (k, v) in pairs {
        h.insert(*k, reqwest::header::HeaderValue::from_str(v).unwrap());
    }
    h
}
