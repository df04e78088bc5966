//! One remote scorer over a protocol ([`WireScorer`]): the checked endpoint and key, the run's
//! notes, and everything of [`Scorer`] the two protocols share. A protocol — Jev / System One
//! ([`super::jev`], [`super::jev::SystemOne`]) or the OpenAI-compatible chat adapter
//! ([`super::chat`], [`super::chat::ChatScorer`]) — is its options type: it brings its defaults,
//! its key variables, its extra headers and its wire; the knobs of the transport they share
//! ([`Transport`]: concurrency, timeouts, retries, limits, key) become a [`Remote`] here.

use std::sync::Mutex;

use super::batch;
pub use super::http::Transport;
use super::http::{self, Remote};
use super::{PairScore, Progress, ScoreNotes, ScoreRequest, Scorer, ScorerError};

/// What a protocol's options tell [`WireScorer`], and how the protocol sends.
pub trait Protocol: Sized {
    /// The scorer's type name in `Debug` (`SystemOne`, `ChatScorer`).
    const TYPE: &'static str;
    /// The scorer's name before `(model @ host)`: `jev`, `chat`.
    const NAME: &'static str;
    /// The error when the model name is empty.
    const EMPTY_MODEL: &'static str;
    /// Headers sent with every request besides the key, `Content-Type` and `Accept`.
    const EXTRA_HEADERS: &'static [(&'static str, &'static str)];

    /// The endpoint URL as given, else the protocol's default.
    fn raw_url(&self) -> String;
    /// The model name.
    fn model(&self) -> &str;
    /// The transport knobs: limits, concurrency, timeouts, retries, explicit key.
    fn transport(&self) -> &Transport;
    /// The environment variables a key for `url` is read from, in lookup order.
    fn key_vars(url: &reqwest::Url) -> Vec<&'static str>;
    /// How requests go to `url` with `key`: [`Protocol::EXTRA_HEADERS`] and the
    /// [`Transport`]'s limits, concurrency, timeouts and retries.
    fn remote<'a>(&'a self, url: &'a reqwest::Url, key: Option<&'a str>) -> Remote<'a> {
        Remote {
            url,
            key,
            extra_headers: Self::EXTRA_HEADERS,
            transport: self.transport(),
        }
    }
    /// Score `req` through `remote` over the protocol's wire (its own checks of `req` first);
    /// the run's notes replace `notes`.
    fn send(
        &self,
        remote: &Remote<'_>,
        req: &ScoreRequest,
        notes: &Mutex<ScoreNotes>,
        progress: &dyn Progress,
    ) -> Result<Vec<PairScore>, ScorerError>;
}

/// A remote scorer: a protocol's options, its checked endpoint and key, and the last run's
/// notes.
pub struct WireScorer<P> {
    opts: P,
    url: reqwest::Url,
    key: Option<String>,
    notes: Mutex<ScoreNotes>,
}

impl<P: Protocol> std::fmt::Debug for WireScorer<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(P::TYPE)
            .field("url", &self.url.as_str())
            .field("model", &self.opts.model())
            .field("has_key", &self.key.is_some())
            .finish()
    }
}

impl<P: Protocol> WireScorer<P> {
    /// Checks the options and finds the key in the process environment.
    pub fn new(opts: P) -> Result<WireScorer<P>, ScorerError> {
        WireScorer::with_env(opts, &http::process_env)
    }

    /// Like [`WireScorer::new`] with an injected environment lookup.
    ///
    /// Errors (kind): `config` (bad URL, empty model name), `insecure-url` (plain http to a
    /// non-loopback host without `allow_insecure_http`), `missing-key` (no key for a
    /// non-loopback host).
    pub fn with_env(
        opts: P,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<WireScorer<P>, ScorerError> {
        let t = opts.transport();
        let url = http::check_url(&opts.raw_url(), t.allow_insecure_http)?;
        if opts.model().trim().is_empty() {
            return Err(http::local_error("config", P::EMPTY_MODEL));
        }
        let key = http::resolve_key(t.api_key.as_ref(), env, &P::key_vars(&url), &url)?;
        Ok(WireScorer {
            opts,
            url,
            key,
            notes: Mutex::new(ScoreNotes::default()),
        })
    }

    /// `host[:port]` that will receive session content (print it before sending).
    pub fn receiving_host(&self) -> String {
        http::host_label(&self.url)
    }

    /// The endpoint URL.
    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    /// The requested model.
    pub fn model(&self) -> &str {
        self.opts.model()
    }

    /// The options in force.
    pub fn options(&self) -> &P {
        &self.opts
    }

    /// The key it found (tests of the lookup order).
    #[cfg(test)]
    pub(crate) fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The batches `req` would be sent in: probe indices into [`batch::fit`]`(req)` (the same as
    /// `req`'s when every pair fits a request of its own).
    pub fn batches(&self, req: &ScoreRequest) -> Vec<Vec<usize>> {
        let limits = &self.opts.transport().limits;
        batch::pack(&batch::fit(req, limits).req, limits)
    }
}

impl<P: Protocol> Scorer for WireScorer<P> {
    fn name(&self) -> String {
        format!(
            "{} ({} @ {})",
            P::NAME,
            self.opts.model(),
            self.receiving_host()
        )
    }

    fn planned_requests(&self, req: &ScoreRequest) -> usize {
        batch::request_count(req, &self.opts.transport().limits)
    }

    fn plan_notes(&self, req: &ScoreRequest) -> ScoreNotes {
        batch::plan_notes(req, &self.opts.transport().limits)
    }

    fn notes(&self) -> ScoreNotes {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn score(
        &self,
        req: &ScoreRequest,
        progress: &dyn Progress,
    ) -> Result<Vec<PairScore>, ScorerError> {
        *self.notes.lock().unwrap_or_else(|e| e.into_inner()) = ScoreNotes::default();
        check_ids(req)?;
        let remote = self.opts.remote(&self.url, self.key.as_deref());
        self.opts.send(&remote, req, &self.notes, progress)
    }
}

/// Pair ids must be unique: they become question ids.
fn check_ids(req: &ScoreRequest) -> Result<(), ScorerError> {
    let mut seen = std::collections::HashSet::new();
    for p in &req.probes {
        if !seen.insert(p.pair.pair_id.as_str()) {
            return Err(http::local_error(
                "config",
                format!("duplicate pair id {}", http::cut(&p.pair.pair_id, 40)),
            ));
        }
    }
    Ok(())
}
