//! The batch engine: a tokio current-thread runtime built per `score` call, up to N requests in
//! flight, per-batch retry loop, split on 413 / size-related 422 (depth ≤ 3), one retry on an
//! invalid answer, a whole-run time budget, results merged by pair id whatever the completion
//! order, and failures carrying the partial scores. A lone pair the server finds too large is
//! re-rendered with smaller windows ([`Wire::shrink`]) and, at the smallest, left to the caller
//! to score offline instead of failing the run. Every request is counted, with the token usage
//! its answer reports.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant, SystemTime};

use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use super::endpoint::{Secret, is_loopback};
use super::errors::{
    Class, classify, cut, local_error, parse_error_body, request_id, scrub, status_kind,
};
use super::retry::{RetryPolicy, jitter_unit, server_wait};
use crate::score::batch::{self, Limits, Sending};
use crate::score::notes::{PER_REQUEST_MAX, settle};
use crate::score::{
    OfflinePair, PairScore, Progress, RequestUsage, ScoreNotes, ScoreRequest, ScorerError, Usage,
};

/// The transport knobs both protocols share. The default is Jev's; the chat adapter's
/// ([`crate::score::chat::ChatOptions`]) waits 120 s per request and sends at most 20 pairs per batch.
#[derive(Clone, Debug, PartialEq)]
pub struct Transport {
    /// Requests in flight (`--concurrency`, default 4).
    pub concurrency: usize,
    /// Connect timeout (default 10 s).
    pub connect_timeout: Duration,
    /// Per-request timeout, body included (`--timeout`, default 60 s; chat: 120 s, local models
    /// write every number slowly).
    pub request_timeout: Duration,
    /// Allow plain `http://` to a non-loopback host (`--allow-insecure-http`).
    pub allow_insecure_http: bool,
    /// Attempts per batch (default 4).
    pub max_attempts: u32,
    /// Whole-run time budget (default 180 s).
    pub run_budget: Duration,
    /// First backoff delay when the server gives no wait (default 0.5 s, doubling, capped 8 s).
    pub backoff_base: Duration,
    /// Request size limits (chat: Jev's, with at most 20 pairs per batch).
    pub limits: Limits,
    /// An explicit key; `None` reads the protocol's key variables ([`crate::score::wire::Protocol::key_vars`]): Jev's
    /// `PI_SHAKE_JEV_API_KEY`, then `TYPESAFE_API_KEY`; chat's `PI_SHAKE_CHAT_API_KEY`, then
    /// `OPENAI_API_KEY`.
    pub api_key: Option<Secret>,
}

impl Default for Transport {
    fn default() -> Self {
        Transport {
            concurrency: 4,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            allow_insecure_http: false,
            max_attempts: 4,
            run_budget: Duration::from_secs(180),
            backoff_base: Duration::from_millis(500),
            limits: Limits::default(),
            api_key: None,
        }
    }
}

/// How a wire scorer sends: its checked endpoint and key, its extra headers, and its options'
/// [`Transport`] (limits, concurrency, timeouts, retries), borrowed.
pub struct Remote<'a> {
    pub url: &'a Url,
    pub key: Option<&'a str>,
    pub extra_headers: &'a [(&'static str, &'static str)],
    pub transport: &'a Transport,
}

/// One scoring run of a wire scorer: fit the request to the limits (pairs too large get smaller
/// windows or are left to the offline scorer), pack it into batches, let `send` run them
/// through the scorer's wire over the fitted request ([`run_batches`]), and settle the scores;
/// the run's notes replace `notes`.
pub(crate) fn score_remote(
    remote: &Remote<'_>,
    req: &ScoreRequest,
    notes: &Mutex<ScoreNotes>,
    send: impl FnOnce(&EngineConfig<'_>, &Sending<'_>, &ScoreRequest, &[Vec<usize>]) -> Run,
) -> Result<Vec<PairScore>, ScorerError> {
    let t = remote.transport;
    let fitted = batch::fit(req, &t.limits);
    let batches = batch::pack(&fitted.req, &t.limits);
    let sending = Sending::new(&fitted.req, &t.limits, fitted.rungs, fitted.shrunk);
    let policy = RetryPolicy {
        max_attempts: t.max_attempts,
        run_budget: t.run_budget,
        base_delay: t.backoff_base,
        ..RetryPolicy::default()
    };
    let cfg = EngineConfig {
        url: remote.url,
        key: remote.key,
        extra_headers: remote.extra_headers,
        concurrency: t.concurrency,
        connect_timeout: t.connect_timeout,
        request_timeout: t.request_timeout,
        policy: &policy,
    };
    let run = send(&cfg, &sending, &fitted.req, &batches);
    let (result, run_notes) = finish_run(req, fitted.unfit, &sending, run);
    *notes.lock().unwrap_or_else(|e| e.into_inner()) = run_notes;
    result
}

/// `User-Agent` of every request.
pub const USER_AGENT: &str = concat!("pi-shake/", env!("CARGO_PKG_VERSION"));
/// A batch is split in half at most this many times (so into at most 8 parts).
pub const MAX_SPLIT_DEPTH: u32 = 3;

/// Why a batch failed, for the split / retry decisions above the retry loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FailClass {
    TooLarge,
    Invalid,
    Other,
}

/// A failed (sub-)batch.
pub(crate) struct BatchFail {
    pub class: FailClass,
    pub err: ScorerError,
}

/// A wire format: renders a batch and validates the answer. Implemented by the Jev and chat
/// adapters.
pub(crate) trait Wire {
    /// The probes as they are sent now (their windows, shrunk or not).
    fn sending(&self) -> &Sending<'_>;
    /// Refuses a batch locally (e.g. one pair over the size limits) without sending it.
    fn precheck(&self, batch: &[usize]) -> Result<(), ScorerError> {
        self.sending().precheck(batch)
    }
    /// The JSON body for the probes at `batch`.
    fn body(&self, batch: &[usize]) -> Result<Vec<u8>, ScorerError>;
    /// Scores from a 2xx body; `Err` says why the answer is invalid (ids only, no session text).
    fn parse(&self, batch: &[usize], body: &[u8]) -> Result<Vec<PairScore>, String>;
    /// On an invalid answer: `false` sends the same batch once more (Jev), `true` halves it and
    /// sends each half once (chat).
    fn halve_on_invalid(&self) -> bool;
    /// The pair id of probe `i` (for usage lines and messages).
    fn pair_id(&self, i: usize) -> String {
        self.sending().pair_id(i)
    }
    /// pi-shake's estimate of the input tokens of a request for `batch`.
    fn estimated_tokens(&self, batch: &[usize]) -> u64 {
        self.sending().estimated_tokens(batch)
    }
    /// (input, output) tokens a 2xx body reports, if it does.
    fn usage(&self, body: &[u8]) -> Option<(u64, u64)>;
    /// Re-renders probe `i` with smaller windows after the server said a request holding it
    /// alone is too large (`why`: e.g. `HTTP 413`); `false` when it is already at the smallest.
    fn shrink(&self, i: usize, why: &str) -> bool {
        self.sending().shrink(i, why)
    }
}

/// What a run produced.
pub(crate) struct Run {
    /// Scores in probe order, or the first failure carrying every score obtained.
    pub result: Result<Vec<PairScore>, ScorerError>,
    /// Probes the server found too large even alone at the smallest windows, with why; they
    /// have no score in `result`.
    pub oversized: Vec<(usize, String)>,
    /// Requests sent and the usage their answers reported.
    pub usage: Usage,
}

/// Everything the engine needs besides the wire format.
pub(crate) struct EngineConfig<'a> {
    pub url: &'a Url,
    pub key: Option<&'a str>,
    pub extra_headers: &'a [(&'static str, &'static str)],
    pub concurrency: usize,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub policy: &'a RetryPolicy,
}

enum Outcome {
    Done(Vec<PairScore>),
    Failed(usize, ScorerError),
    Skipped,
}

struct Engine<'a, W: Wire> {
    cfg: &'a EngineConfig<'a>,
    wire: &'a W,
    client: reqwest::Client,
    progress: &'a dyn Progress,
    deadline: Instant,
    stopped: AtomicBool,
    seq: AtomicUsize,
    sem: tokio::sync::Semaphore,
    /// (first probe of the batch, request number, line) for every request sent.
    sent: Mutex<Vec<(usize, usize, RequestUsage)>>,
    oversized: Mutex<Vec<(usize, String)>>,
}

type BoxFut<'s, T> = Pin<Box<dyn Future<Output = T> + 's>>;

/// Scores `batches` (lists of probe indices into `req.probes`) through `wire`: the shared run
/// loop of every HTTP scorer. Returns scores in probe order, or the first failure (in completion
/// order) carrying every score obtained; with the oversized pairs and the usage either way.
pub(crate) fn run_batches<W: Wire>(
    cfg: &EngineConfig<'_>,
    wire: &W,
    req: &ScoreRequest,
    batches: &[Vec<usize>],
    progress: &dyn Progress,
) -> Run {
    let pairs: usize = batches.iter().map(Vec::len).sum();
    progress.start(batches.len(), pairs);
    let mut run = Run {
        result: Ok(Vec::new()),
        oversized: Vec::new(),
        usage: Usage::default(),
    };
    run.result = run_inner(cfg, wire, req, batches, progress, &mut run);
    progress.finish();
    run
}

/// The last step of a wire scorer's run over a [`crate::score::batch::fit`]ted request: the
/// notes (usage, shrunk windows with a warning), and the offline fallback for the pairs that
/// fit at no rung (`unfit`) or that the server found too large alone at the smallest
/// ([`crate::score::notes::settle`]). Scores come in `req`'s probe order.
pub(crate) fn finish_run(
    req: &ScoreRequest,
    unfit: Vec<OfflinePair>,
    sending: &Sending<'_>,
    run: Run,
) -> (Result<Vec<PairScore>, ScorerError>, ScoreNotes) {
    let mut notes = ScoreNotes {
        usage: Some(run.usage),
        shrunk: sending.take_shrunk(),
        ..ScoreNotes::default()
    };
    notes.warn_shrunk("asked");
    let mut offline = unfit;
    offline.extend(run.oversized.into_iter().map(|(i, reason)| {
        OfflinePair {
            pair: sending
                .req
                .probes
                .get(i)
                .map(|p| p.pair.pair_id.clone())
                .unwrap_or_default(),
            reason,
        }
    }));
    let result = settle(req, run.result, offline, &mut notes);
    (result, notes)
}

fn run_inner<W: Wire>(
    cfg: &EngineConfig<'_>,
    wire: &W,
    req: &ScoreRequest,
    batches: &[Vec<usize>],
    progress: &dyn Progress,
    run: &mut Run,
) -> Result<Vec<PairScore>, ScorerError> {
    if batches.is_empty() {
        return Ok(Vec::new());
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| local_error("runtime", format!("cannot start the HTTP runtime: {e}")))?;
    let mut builder = reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .connect_timeout(cfg.connect_timeout)
        .redirect(reqwest::redirect::Policy::none());
    if is_loopback(cfg.url) {
        builder = builder.no_proxy();
    }
    let client = rt.block_on(async { builder.build() }).map_err(|e| {
        local_error(
            "config",
            scrub(&format!("cannot build the HTTP client: {e}"), None),
        )
    })?;
    let engine = Engine {
        cfg,
        wire,
        client,
        progress,
        deadline: Instant::now() + cfg.policy.run_budget,
        stopped: AtomicBool::new(false),
        seq: AtomicUsize::new(0),
        sem: tokio::sync::Semaphore::new(cfg.concurrency.max(1)),
        sent: Mutex::new(Vec::new()),
        oversized: Mutex::new(Vec::new()),
    };
    let outcomes = rt.block_on(join_all(batches.iter().map(|b| engine.top(b)).collect()));
    run.usage = engine.usage();
    run.oversized = engine
        .oversized
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    run.oversized.sort_unstable();

    let mut by_id: HashMap<String, PairScore> = HashMap::new();
    let mut failures: Vec<(usize, ScorerError)> = Vec::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Done(scores) => {
                by_id.extend(scores.into_iter().map(|s| (s.pair_id.clone(), s)))
            }
            Outcome::Failed(seq, mut err) => {
                let partial = std::mem::take(&mut err.partial);
                by_id.extend(partial.into_iter().map(|s| (s.pair_id.clone(), s)));
                failures.push((seq, err));
            }
            Outcome::Skipped => {}
        }
    }
    let ordered: Vec<PairScore> = req
        .probes
        .iter()
        .filter_map(|p| by_id.remove(&p.pair.pair_id))
        .collect();
    match failures.into_iter().min_by_key(|(seq, _)| *seq) {
        None => Ok(ordered),
        Some((_, mut err)) => {
            err.partial = ordered;
            Err(err)
        }
    }
}

/// Polls every future until all are done (no task spawning, so futures may borrow).
async fn join_all<F: Future>(futs: Vec<F>) -> Vec<F::Output> {
    let mut futs: Vec<Pin<Box<F>>> = futs.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futs.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (fut, slot) in futs.iter_mut().zip(out.iter_mut()) {
            if slot.is_none() {
                match fut.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

impl<W: Wire> Engine<'_, W> {
    /// Records one request of `batch` (sent at attempt `seq` of the run).
    fn record(&self, batch: &[usize], status: Option<u16>, usage: Option<(u64, u64)>) {
        let line = RequestUsage {
            first_pair: batch
                .first()
                .map(|&i| self.wire.pair_id(i))
                .unwrap_or_default(),
            pairs: batch.len(),
            status,
            input_tokens: usage.map(|u| u.0),
            output_tokens: usage.map(|u| u.1),
            estimated_tokens: self.wire.estimated_tokens(batch),
        };
        let mut sent = self.sent.lock().unwrap_or_else(|e| e.into_inner());
        let n = sent.len();
        sent.push((batch.first().copied().unwrap_or(usize::MAX), n, line));
    }

    /// The run's usage: totals, and per request (in batch order) when there were few.
    fn usage(&self) -> Usage {
        let mut sent = std::mem::take(&mut *self.sent.lock().unwrap_or_else(|e| e.into_inner()));
        sent.sort_by_key(|(first, n, _)| (*first, *n));
        let mut u = Usage::default();
        for (_, _, l) in &sent {
            u.requests += 1;
            if l.status.is_some_and(|s| (200..300).contains(&s)) {
                u.answered += 1;
                u.estimated_input_tokens += l.estimated_tokens;
            }
            if let (Some(i), Some(o)) = (l.input_tokens, l.output_tokens) {
                u.reported += 1;
                u.input_tokens += i;
                u.output_tokens += o;
            }
        }
        if sent.len() <= PER_REQUEST_MAX {
            u.per_request = sent.into_iter().map(|(_, _, l)| l).collect();
        }
        u
    }

    /// One packed batch: waits for a slot, then sends (splitting / retrying as needed).
    async fn top(&self, batch: &[usize]) -> Outcome {
        let Ok(_permit) = self.sem.acquire().await else {
            return Outcome::Skipped;
        };
        if self.stopped.load(Ordering::SeqCst) {
            return Outcome::Skipped;
        }
        let result = match self.wire.precheck(batch) {
            Ok(()) => self.split_send(batch, 0, true).await,
            Err(err) => Err(BatchFail {
                class: FailClass::TooLarge,
                err,
            }),
        };
        match result {
            Ok(scores) => {
                self.progress.batch_done(batch.len());
                Outcome::Done(scores)
            }
            Err(fail) => {
                self.stopped.store(true, Ordering::SeqCst);
                Outcome::Failed(self.seq.fetch_add(1, Ordering::SeqCst), fail.err)
            }
        }
    }

    /// Sends `batch`; splits it on "too large" (up to [`MAX_SPLIT_DEPTH`]) and handles one
    /// invalid-answer retry.
    fn split_send<'s>(
        &'s self,
        batch: &'s [usize],
        depth: u32,
        invalid_retry: bool,
    ) -> BoxFut<'s, Result<Vec<PairScore>, BatchFail>> {
        Box::pin(async move {
            match self.send(batch).await {
                Ok(scores) => Ok(scores),
                Err(f) if f.class == FailClass::TooLarge && batch.len() == 1 => {
                    let why = match f.err.status {
                        Some(s) => format!("HTTP {s}"),
                        None => f.err.kind.clone(),
                    };
                    if self.wire.shrink(batch[0], &why) {
                        self.split_send(batch, depth, invalid_retry).await
                    } else {
                        let reason = format!(
                            "the server found a request with this pair alone too large ({why}) \
                             even at the smallest windows"
                        );
                        self.oversized
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((batch[0], reason));
                        Ok(Vec::new())
                    }
                }
                Err(f)
                    if f.class == FailClass::TooLarge
                        && depth < MAX_SPLIT_DEPTH
                        && batch.len() > 1 =>
                {
                    self.halves(batch, depth + 1, invalid_retry).await
                }
                Err(f) if f.class == FailClass::Invalid && invalid_retry => {
                    self.progress.retry();
                    if self.wire.halve_on_invalid() && batch.len() > 1 {
                        self.halves(batch, depth, false).await
                    } else {
                        self.split_send(batch, depth, false).await
                    }
                }
                Err(f) => Err(f),
            }
        })
    }

    /// Sends both halves of `batch` in turn; a failure keeps the other half's scores as partial.
    async fn halves(
        &self,
        batch: &[usize],
        depth: u32,
        invalid_retry: bool,
    ) -> Result<Vec<PairScore>, BatchFail> {
        let (a, b) = crate::score::batch::split_half(batch);
        let mut first = self.split_send(a, depth, invalid_retry).await?;
        match self.split_send(b, depth, invalid_retry).await {
            Ok(second) => {
                first.extend(second);
                Ok(first)
            }
            Err(mut fail) => {
                first.append(&mut fail.err.partial);
                fail.err.partial = first;
                Err(fail)
            }
        }
    }

    /// One batch through the retry loop (transport errors and retryable statuses).
    async fn send(&self, batch: &[usize]) -> Result<Vec<PairScore>, BatchFail> {
        let body = self.wire.body(batch).map_err(|err| BatchFail {
            class: FailClass::Other,
            err,
        })?;
        let policy = self.cfg.policy;
        let key = self.cfg.key;
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let remaining = self.deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(other(local_error(
                    "budget-exhausted",
                    format!(
                        "the run budget of {} s was used up",
                        policy.run_budget.as_secs_f64()
                    ),
                )));
            }
            let mut rb = self
                .client
                .post(self.cfg.url.clone())
                .timeout(self.cfg.request_timeout.min(remaining))
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json");
            for (name, value) in self.cfg.extra_headers {
                rb = rb.header(*name, *value);
            }
            if let Some(k) = key {
                rb = rb.bearer_auth(k);
            }
            let (mut err, wait) = match rb.body(body.clone()).send().await {
                Err(e) => {
                    self.record(batch, None, None);
                    (transport_error(&e, key), None)
                }
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let headers = resp.headers().clone();
                    let rid = request_id(&headers);
                    let bytes = resp.bytes().await;
                    let usage = match &bytes {
                        Ok(b) if (200..300).contains(&status) => self.wire.usage(b),
                        _ => None,
                    };
                    self.record(batch, Some(status), usage);
                    match bytes {
                        Err(e) => {
                            let mut err = transport_error(&e, key);
                            err.status = Some(status);
                            err.request_id = rid;
                            (err, None)
                        }
                        Ok(bytes) if (200..300).contains(&status) => {
                            return match self.wire.parse(batch, &bytes) {
                                Ok(scores) => Ok(scores),
                                Err(why) => Err(BatchFail {
                                    class: FailClass::Invalid,
                                    err: ScorerError {
                                        status: Some(status),
                                        kind: "invalid-answer".to_string(),
                                        request_id: rid,
                                        message: scrub(&why, key),
                                        partial: Vec::new(),
                                    },
                                }),
                            };
                        }
                        Ok(bytes) => {
                            let eb = parse_error_body(&bytes);
                            let err = ScorerError {
                                status: Some(status),
                                kind: eb
                                    .kind
                                    .clone()
                                    .or_else(|| eb.code.clone())
                                    .map(|k| cut(&k, 64))
                                    .unwrap_or_else(|| status_kind(status).to_string()),
                                request_id: rid,
                                message: scrub(eb.message.as_deref().unwrap_or(""), key),
                                partial: Vec::new(),
                            };
                            match classify(status, &eb) {
                                Class::Fatal => return Err(other(err)),
                                Class::TooLarge => {
                                    return Err(BatchFail {
                                        class: FailClass::TooLarge,
                                        err,
                                    });
                                }
                                Class::Retry => {
                                    let wait = server_wait(&headers, SystemTime::now())
                                        .or(eb.retry_after_ms.map(Duration::from_millis));
                                    (err, wait)
                                }
                            }
                        }
                    }
                }
            };
            if attempt >= policy.max_attempts.max(1) {
                err.message = note(&err.message, &format!("gave up after {attempt} attempts"));
                return Err(other(err));
            }
            let delay = match wait {
                Some(w) if w > policy.max_server_wait => {
                    err.message = note(
                        &err.message,
                        &format!(
                            "server asked to wait {:.0} s, over the {:.0} s cap",
                            w.as_secs_f64(),
                            policy.max_server_wait.as_secs_f64()
                        ),
                    );
                    return Err(other(err));
                }
                Some(w) => w,
                None => policy.backoff(attempt - 1, jitter_unit()),
            };
            if Instant::now() + delay >= self.deadline {
                err.message = note(
                    &err.message,
                    &format!(
                        "run budget of {:.0} s exhausted",
                        policy.run_budget.as_secs_f64()
                    ),
                );
                return Err(other(err));
            }
            self.progress.retry();
            tokio::time::sleep(delay).await;
        }
    }
}

fn other(err: ScorerError) -> BatchFail {
    BatchFail {
        class: FailClass::Other,
        err,
    }
}

fn note(message: &str, extra: &str) -> String {
    if message.is_empty() {
        extra.to_string()
    } else {
        format!("{message} ({extra})")
    }
}

/// Classifies a transport failure (no status): `timeout`, `connect` or `network`.
fn transport_error(e: &reqwest::Error, key: Option<&str>) -> ScorerError {
    let kind = if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect"
    } else {
        "network"
    };
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    local_error(kind, scrub(&msg, key))
}
