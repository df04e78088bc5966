//! Shared HTTP plumbing for the wire scorers (Jev / System One and the chat adapter).
//!
//! - endpoint checks: URL parsing, loopback detection, the plain-`http://` refusal, key lookup;
//! - retry timing (`docs/jev.md#retries-and-timeouts`): `retry-after-ms`, then `Retry-After`
//!   (seconds or an HTTP-date), then the error body's `retry_after_ms`, else 0.5 s × 2^attempt
//!   capped at 8 s with ±25% jitter (none when `PI_SHAKE_TEST_NO_JITTER` is set); waits over 60 s
//!   give up;
//! - error bodies (`docs/jev.md#error-bodies`: ours, OpenAI / vLLM / llama.cpp, Anthropic, Ollama,
//!   FastAPI, bare, plain text) and their classification (retry, too large → split, fatal). Status
//!   always wins;
//! - the batch engine: a tokio current-thread runtime built per `score` call, up to N requests in
//!   flight, per-batch retry loop, split on 413 / size-related 422 (depth ≤ 3), one retry on an
//!   invalid answer, a whole-run time budget, results merged by pair id whatever the completion
//!   order, and failures carrying the partial scores.
//!
//! Nothing here ever puts the API key or request bodies into an error or a log line.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};

use super::{PairScore, Progress, ScoreRequest, ScorerError};

/// `User-Agent` of every request.
pub const USER_AGENT: &str = concat!("pi-shake/", env!("CARGO_PKG_VERSION"));
/// Set (to anything) to turn backoff jitter off, for deterministic tests.
pub const NO_JITTER_ENV: &str = "PI_SHAKE_TEST_NO_JITTER";
/// Server messages are cut to this many characters.
pub const MESSAGE_MAX_CHARS: usize = 300;
/// Request id headers, in lookup order.
pub const REQUEST_ID_HEADERS: [&str; 3] = ["x-typesafe-request-id", "request-id", "x-request-id"];
/// A batch is split in half at most this many times (so into at most 8 parts).
pub const MAX_SPLIT_DEPTH: u32 = 3;

/// Retry timing and caps (`docs/jev.md#retries-and-timeouts`).
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts per batch, the first included (default 4).
    pub max_attempts: u32,
    /// Time budget for the whole run, retries and waits included (default 180 s).
    pub run_budget: Duration,
    /// A server asking to wait longer than this makes the batch give up (default 60 s).
    pub max_server_wait: Duration,
    /// First backoff delay (default 0.5 s); doubles per attempt.
    pub base_delay: Duration,
    /// Backoff cap (default 8 s).
    pub max_delay: Duration,
    /// ±25% jitter on computed backoff (default: on unless `PI_SHAKE_TEST_NO_JITTER` is set).
    pub jitter: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            run_budget: Duration::from_secs(180),
            max_server_wait: Duration::from_secs(60),
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            jitter: std::env::var_os(NO_JITTER_ENV).is_none(),
        }
    }
}

impl RetryPolicy {
    /// Backoff before retry number `retry` (0 for the first retry), given a uniform `unit` in
    /// [0, 1) for the jitter: `base × 2^retry`, capped, then scaled by `1 ± 0.25`.
    pub fn backoff(&self, retry: u32, unit: f64) -> Duration {
        let factor = 2f64.powi(i32::try_from(retry.min(30)).unwrap_or(30));
        let raw = (self.base_delay.as_secs_f64() * factor).min(self.max_delay.as_secs_f64());
        let scaled = if self.jitter {
            raw * (1.0 + (unit.clamp(0.0, 1.0) * 2.0 - 1.0) * 0.25)
        } else {
            raw
        };
        Duration::from_secs_f64(scaled.max(0.0))
    }
}

/// A uniform number in [0, 1) from the standard library's per-call random hasher keys.
fn jitter_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x5eed);
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// How long the server asked us to wait, from `retry-after-ms`, then `Retry-After` (delta seconds
/// or an HTTP-date, relative to `now`).
pub fn server_wait(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let ra = text("retry-after")?;
    if let Ok(secs) = ra.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = parse_http_date(ra)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7); the weekday is
/// optional and not checked.
pub fn parse_http_date(s: &str) -> Option<SystemTime> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let parts = match parts.as_slice() {
        [wd, rest @ ..] if wd.ends_with(',') => rest.to_vec(),
        all => all.to_vec(),
    };
    let [day, mon, year, time, zone] = parts.as_slice() else {
        return None;
    };
    if !zone.eq_ignore_ascii_case("GMT") && !zone.eq_ignore_ascii_case("UTC") {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(mon))? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let mut hms = time.split(':').map(|x| x.parse::<i64>().ok());
    let (h, m, sec) = (hms.next()??, hms.next()??, hms.next()??);
    if hms.next().is_some() || !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + m * 60 + sec;
    let secs = u64::try_from(secs).ok()?;
    UNIX_EPOCH.checked_add(Duration::from_secs(secs))
}

/// The useful parts of an error body, whatever its dialect.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ErrorBody {
    /// `error.type` (or a top-level `type` other than `"error"`).
    pub kind: Option<String>,
    /// `error.code` (string or number).
    pub code: Option<String>,
    /// The human message.
    pub message: Option<String>,
    /// Our canonical body's `error.retry_after_ms`.
    pub retry_after_ms: Option<u64>,
}

/// Parses an error body (`docs/jev.md#error-bodies`). Never fails: unknown shapes give the trimmed
/// text.
pub fn parse_error_body(body: &[u8]) -> ErrorBody {
    use serde_json::Value;
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    let as_string = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        Value::Number(n) => Some(n.to_string()),
        other => Some(other.to_string()),
    };
    let Ok(Value::Object(top)) = serde_json::from_str::<Value>(text) else {
        return ErrorBody {
            message: (!text.is_empty()).then(|| text.to_string()),
            ..ErrorBody::default()
        };
    };
    let mut out = ErrorBody::default();
    match top.get("error") {
        Some(Value::Object(e)) => {
            out.kind = e.get("type").and_then(as_string);
            out.code = e.get("code").and_then(as_string);
            out.message = e.get("message").and_then(as_string);
            out.retry_after_ms = e.get("retry_after_ms").and_then(Value::as_u64);
        }
        Some(Value::String(s)) => out.message = Some(s.clone()),
        _ => {}
    }
    if out.kind.is_none() {
        out.kind = top.get("type").and_then(as_string).filter(|t| t != "error");
    }
    if out.code.is_none() {
        out.code = top.get("code").and_then(as_string);
    }
    if out.message.is_none() {
        out.message = top
            .get("message")
            .or_else(|| top.get("detail"))
            .and_then(as_string);
    }
    if out.retry_after_ms.is_none() {
        out.retry_after_ms = top.get("retry_after_ms").and_then(Value::as_u64);
    }
    out
}

/// What to do with a non-2xx answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Back off and send again.
    Retry,
    /// The request was too large: split the batch.
    TooLarge,
    /// Give up on the batch.
    Fatal,
}

fn mentions(body: &ErrorBody, words: &[&str]) -> bool {
    [&body.kind, &body.code, &body.message]
        .into_iter()
        .flatten()
        .any(|s| {
            let s = s.to_ascii_lowercase();
            words.iter().any(|w| s.contains(w))
        })
}

/// Classifies a non-2xx status (status wins over the body; the body only refines 422 and 429).
pub fn classify(status: u16, body: &ErrorBody) -> Class {
    match status {
        413 => Class::TooLarge,
        422 if mentions(body, &["size", "length", "token", "too large", "too long"]) => {
            Class::TooLarge
        }
        429 if mentions(body, &["insufficient_quota", "billing", "quota_exhausted"]) => {
            Class::Fatal
        }
        408 | 425 | 429 | 529 => Class::Retry,
        // 501: the server does not implement the endpoint or model; sending again cannot help.
        501 | 505 => Class::Fatal,
        500..=599 => Class::Retry,
        _ => Class::Fatal,
    }
}

/// A short local class name for a status without a typed body.
pub fn status_kind(status: u16) -> &'static str {
    match status {
        400 | 422 => "invalid_request",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "not_found",
        408 => "request_timeout",
        413 => "request_too_large",
        425 => "too_early",
        429 => "rate_limited",
        529 => "overloaded",
        300..=399 => "redirect",
        500..=599 => "server_error",
        _ => "http_error",
    }
}

/// The first request id header present.
pub fn request_id(headers: &HeaderMap) -> Option<String> {
    REQUEST_ID_HEADERS.iter().find_map(|h| {
        headers
            .get(*h)
            .and_then(|v| v.to_str().ok())
            .map(|v| cut(v, 128))
    })
}

/// `s` cut to `max` characters (on a char boundary), with `…` when cut.
pub fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// `msg` with every occurrence of `key` replaced, then cut to [`MESSAGE_MAX_CHARS`].
pub fn scrub(msg: &str, key: Option<&str>) -> String {
    let msg = match key {
        Some(k) if k.len() >= 4 => msg.replace(k, "[redacted]"),
        _ => msg.to_string(),
    };
    cut(msg.trim(), MESSAGE_MAX_CHARS)
}

/// A `ScorerError` without status or partial scores.
pub fn local_error(kind: &str, message: impl Into<String>) -> ScorerError {
    ScorerError {
        status: None,
        kind: kind.to_string(),
        request_id: None,
        message: message.into(),
        partial: Vec::new(),
    }
}

/// Whether the URL's host is loopback (`localhost`, 127.0.0.0/8, `[::1]`).
pub fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `host[:port]` of the URL: what the CLI prints as the receiver of session content.
pub fn host_label(url: &Url) -> String {
    let host = url.host_str().unwrap_or("?");
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    }
}

/// Parses an endpoint URL and refuses plain `http://` to a non-loopback host unless allowed.
pub fn check_url(raw: &str, allow_insecure_http: bool) -> Result<Url, ScorerError> {
    let url = Url::parse(raw.trim())
        .map_err(|e| local_error("config", format!("invalid scorer URL: {e}")))?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(local_error("config", "scorer URL has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(local_error(
            "config",
            "scorer URL must not carry credentials; use the API key variable",
        ));
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) || allow_insecure_http => Ok(url),
        "http" => Err(local_error(
            "insecure-url",
            format!(
                "refusing to send session content over plain http to {} (use https, a loopback \
                 address, or --allow-insecure-http)",
                host_label(&url)
            ),
        )),
        other => Err(local_error(
            "config",
            format!("unsupported URL scheme `{other}` (use https)"),
        )),
    }
}

/// A secret (an API key): its `Debug` never shows it, and nothing formats it by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for the one place that sends it (the `Authorization` header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Secret {
        Secret(s.to_string())
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Secret {
        Secret(s)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// The key for `url`: the explicit one, else the first of `vars` (see [`key_from`]). None is
/// fine for a loopback URL; otherwise it is a `missing-key` error naming the variables.
pub fn resolve_key(
    explicit: Option<&Secret>,
    env: &dyn Fn(&str) -> Option<String>,
    vars: &[&str],
    url: &Url,
) -> Result<Option<String>, ScorerError> {
    let key = match explicit.map(|k| k.expose().trim()) {
        Some(k) if !k.is_empty() => Some(k.to_string()),
        _ => key_from(env, vars),
    };
    if key.is_none() && !is_loopback(url) {
        return Err(local_error(
            "missing-key",
            format!(
                "no API key for {}: set {}",
                host_label(url),
                vars.join(" or ")
            ),
        ));
    }
    Ok(key)
}

/// The first non-empty value among `vars`, read through `env`.
///
/// For each variable `V` in order: its value, else the contents of the file named by `V_FILE`
/// (for secrets mounted as files). Keys never come from the command line.
pub fn key_from(env: &dyn Fn(&str) -> Option<String>, vars: &[&str]) -> Option<String> {
    vars.iter().find_map(|v| {
        let direct = env(v)
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty());
        direct.or_else(|| {
            env(&format!("{v}_FILE"))
                .and_then(|p| std::fs::read_to_string(p.trim()).ok())
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
        })
    })
}

/// The process environment as a lookup function.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

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
    /// Refuses a batch locally (e.g. one pair over the size limits) without sending it.
    fn precheck(&self, _batch: &[usize]) -> Result<(), ScorerError> {
        Ok(())
    }
    /// The JSON body for the probes at `batch`.
    fn body(&self, batch: &[usize]) -> Result<Vec<u8>, ScorerError>;
    /// Scores from a 2xx body; `Err` says why the answer is invalid (ids only, no session text).
    fn parse(&self, batch: &[usize], body: &[u8]) -> Result<Vec<PairScore>, String>;
    /// On an invalid answer: `false` sends the same batch once more (Jev), `true` halves it and
    /// sends each half once (chat).
    fn halve_on_invalid(&self) -> bool;
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
}

type BoxFut<'s, T> = Pin<Box<dyn Future<Output = T> + 's>>;

/// Scores `batches` (lists of probe indices into `req.probes`) through `wire`: the shared run
/// loop of every HTTP scorer. Returns scores in probe order, or the first failure (in completion
/// order) carrying every score obtained.
pub(crate) fn run_batches<W: Wire>(
    cfg: &EngineConfig<'_>,
    wire: &W,
    req: &ScoreRequest,
    batches: &[Vec<usize>],
    progress: &dyn Progress,
) -> Result<Vec<PairScore>, ScorerError> {
    let pairs: usize = batches.iter().map(Vec::len).sum();
    progress.start(batches.len(), pairs);
    let result = run_inner(cfg, wire, req, batches, progress);
    progress.finish();
    result
}

fn run_inner<W: Wire>(
    cfg: &EngineConfig<'_>,
    wire: &W,
    req: &ScoreRequest,
    batches: &[Vec<usize>],
    progress: &dyn Progress,
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
    };
    let outcomes = rt.block_on(join_all(batches.iter().map(|b| engine.top(b)).collect()));

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
        let (a, b) = super::batch::split_half(batch);
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
                Err(e) => (transport_error(&e, key), None),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let headers = resp.headers().clone();
                    let rid = request_id(&headers);
                    match resp.bytes().await {
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

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        let h = headers(&[("retry-after-ms", "250"), ("retry-after", "7")]);
        assert_eq!(
            server_wait(&h, SystemTime::now()),
            Some(Duration::from_millis(250))
        );
        let h = headers(&[("retry-after", "7")]);
        assert_eq!(
            server_wait(&h, SystemTime::now()),
            Some(Duration::from_secs(7))
        );
        let h = headers(&[("retry-after", "0")]);
        assert_eq!(server_wait(&h, SystemTime::now()), Some(Duration::ZERO));
        assert_eq!(server_wait(&HeaderMap::new(), SystemTime::now()), None);
        let h = headers(&[("retry-after", "soon")]);
        assert_eq!(server_wait(&h, SystemTime::now()), None);
    }

    #[test]
    fn retry_after_http_date() {
        let at = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(
            at.duration_since(UNIX_EPOCH).unwrap().as_secs(),
            784_111_777
        );
        let now = at - Duration::from_secs(30);
        let h = headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]);
        assert_eq!(server_wait(&h, now), Some(Duration::from_secs(30)));
        // A date in the past means "now".
        assert_eq!(
            server_wait(&h, at + Duration::from_secs(5)),
            Some(Duration::ZERO)
        );
        assert!(parse_http_date("Sun, 06 Nov 1994 25:49:37 GMT").is_none());
        assert!(parse_http_date("06 Foo 1994 08:49:37 GMT").is_none());
    }

    #[test]
    fn backoff_doubles_caps_and_jitters() {
        let mut p = RetryPolicy {
            jitter: false,
            ..RetryPolicy::default()
        };
        let secs = |p: &RetryPolicy, n, u| p.backoff(n, u).as_secs_f64();
        assert_eq!(secs(&p, 0, 0.9), 0.5);
        assert_eq!(secs(&p, 1, 0.9), 1.0);
        assert_eq!(secs(&p, 3, 0.9), 4.0);
        assert_eq!(secs(&p, 4, 0.9), 8.0);
        assert_eq!(secs(&p, 9, 0.9), 8.0);
        p.jitter = true;
        assert!((secs(&p, 1, 0.0) - 0.75).abs() < 1e-9);
        assert!((secs(&p, 1, 1.0) - 1.25).abs() < 1e-9);
        for _ in 0..100 {
            let d = secs(&p, 2, jitter_unit());
            assert!((1.5..=2.5).contains(&d), "{d}");
        }
    }

    #[test]
    fn error_body_dialects() {
        let ours = parse_error_body(
            br#"{"error":{"type":"rate_limited","message":"slow down","retry_after_ms":1500}}"#,
        );
        assert_eq!(ours.kind.as_deref(), Some("rate_limited"));
        assert_eq!(ours.retry_after_ms, Some(1500));
        let openai = parse_error_body(
            br#"{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota","param":null}}"#,
        );
        assert_eq!(openai.code.as_deref(), Some("insufficient_quota"));
        let anthropic = parse_error_body(
            br#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#,
        );
        assert_eq!(anthropic.kind.as_deref(), Some("overloaded_error"));
        let ollama = parse_error_body(br#"{"error":"model not found"}"#);
        assert_eq!(ollama.message.as_deref(), Some("model not found"));
        let fastapi = parse_error_body(br#"{"detail":[{"loc":["body"],"msg":"bad"}]}"#);
        assert!(fastapi.message.unwrap().contains("bad"));
        let bare = parse_error_body(br#"{"message":"nope","code":7}"#);
        assert_eq!(bare.message.as_deref(), Some("nope"));
        assert_eq!(bare.code.as_deref(), Some("7"));
        let text = parse_error_body(b"  Bad Gateway\n");
        assert_eq!(text.message.as_deref(), Some("Bad Gateway"));
        assert_eq!(parse_error_body(b""), ErrorBody::default());
    }

    #[test]
    fn classification() {
        let none = ErrorBody::default();
        for s in [408, 425, 429, 500, 502, 503, 504, 529] {
            assert_eq!(classify(s, &none), Class::Retry, "{s}");
        }
        for s in [400, 401, 403, 404, 409, 422, 501] {
            assert_eq!(classify(s, &none), Class::Fatal, "{s}");
        }
        assert_eq!(classify(413, &none), Class::TooLarge);
        let size = ErrorBody {
            message: Some("Request exceeds the maximum of 64000 tokens".into()),
            ..ErrorBody::default()
        };
        assert_eq!(classify(422, &size), Class::TooLarge);
        let quota = ErrorBody {
            kind: Some("insufficient_quota".into()),
            ..ErrorBody::default()
        };
        assert_eq!(classify(429, &quota), Class::Fatal);
        let billing = ErrorBody {
            message: Some("Billing hard limit reached".into()),
            ..ErrorBody::default()
        };
        assert_eq!(classify(429, &billing), Class::Fatal);
        // Status wins: a "token" message on a 500 is still a retry.
        assert_eq!(classify(500, &size), Class::Retry);
    }

    #[test]
    fn request_id_lookup_order() {
        let h = headers(&[("x-request-id", "c"), ("request-id", "b")]);
        assert_eq!(request_id(&h).as_deref(), Some("b"));
        let h = headers(&[("x-typesafe-request-id", "a"), ("x-request-id", "c")]);
        assert_eq!(request_id(&h).as_deref(), Some("a"));
    }

    #[test]
    fn messages_are_cut_and_scrubbed() {
        let long = "é".repeat(400);
        let c = scrub(&long, None);
        assert_eq!(c.chars().count(), MESSAGE_MAX_CHARS + 1);
        assert!(c.ends_with('…'));
        let s = scrub("bad key sk-abcdef123 given", Some("sk-abcdef123"));
        assert_eq!(s, "bad key [redacted] given");
    }

    #[test]
    fn urls_and_loopback() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(is_loopback(&u("http://127.0.0.1:8080/x")));
        assert!(is_loopback(&u("http://127.9.9.9/x")));
        assert!(is_loopback(&u("http://localhost/x")));
        assert!(is_loopback(&u("http://[::1]:99/x")));
        assert!(!is_loopback(&u("http://10.0.0.1/x")));
        assert!(!is_loopback(&u("https://api.typesafe.ai/v1/systemone")));
        assert_eq!(
            host_label(&u("https://api.typesafe.ai/v1/systemone")),
            "api.typesafe.ai"
        );
        assert_eq!(host_label(&u("http://127.0.0.1:8080/v1")), "127.0.0.1:8080");

        assert!(check_url("https://example.com/v1/systemone", false).is_ok());
        assert!(check_url("http://127.0.0.1:9/v1/systemone", false).is_ok());
        let e = check_url("http://example.com/v1/systemone", false).unwrap_err();
        assert_eq!(e.kind, "insecure-url");
        assert!(check_url("http://example.com/v1/systemone", true).is_ok());
        assert_eq!(
            check_url("ftp://example.com/x", true).unwrap_err().kind,
            "config"
        );
        assert_eq!(check_url("not a url", true).unwrap_err().kind, "config");
        assert_eq!(
            check_url("https://user:pw@example.com/x", true)
                .unwrap_err()
                .kind,
            "config"
        );
    }

    #[test]
    fn key_lookup_order() {
        let env = |name: &str| match name {
            "B" => Some("from-b".to_string()),
            "A" => Some("  ".to_string()),
            _ => None,
        };
        assert_eq!(key_from(&env, &["A", "B"]).as_deref(), Some("from-b"));
        assert_eq!(key_from(&env, &["C"]), None);
        let dir = std::env::temp_dir().join(format!("pi-shake-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("key");
        std::fs::write(&file, "from-file\n").unwrap();
        let path = file.to_string_lossy().to_string();
        let env2 = move |k: &str| (k == "D_FILE").then(|| path.clone());
        assert_eq!(key_from(&env2, &["D"]).as_deref(), Some("from-file"));
    }
}
