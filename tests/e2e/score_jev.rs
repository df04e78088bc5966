//! The System One client against an in-process wiremock server on 127.0.0.1: request shape,
//! batching, retries, splitting, validation, failures, timeouts and out-of-order completion.

// Helpers outside #[test] functions unwrap too: a failed setup is a failed test.
#![allow(clippy::unwrap_used)]

use crate::score_support;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use pi_shake::score::batch::{self, Limits};
use pi_shake::score::jev::{JevOptions, SystemOne};
use pi_shake::score::wire::Transport;
use pi_shake::score::{NoProgress, ScoreSource, Scorer};
use score_support::*;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-test-0123456789abcdef";

fn start() -> (tokio::runtime::Runtime, MockServer) {
    let rt = runtime();
    let server = rt.block_on(MockServer::start());
    (rt, server)
}

fn opts(server: &MockServer) -> JevOptions {
    JevOptions {
        url: Some(format!("{}/v1/systemone", server.uri())),
        transport: Transport {
            api_key: Some(KEY.into()),
            backoff_base: Duration::from_millis(1),
            request_timeout: Duration::from_secs(5),
            ..Transport::default()
        },
        ..JevOptions::default()
    }
}

/// [`opts`] with some transport knobs changed by `set`.
fn opts_with(server: &MockServer, set: impl FnOnce(&mut Transport)) -> JevOptions {
    let mut o = opts(server);
    set(&mut o.transport);
    o
}

fn scorer(o: JevOptions) -> SystemOne {
    SystemOne::with_env(o, &|_| None).unwrap()
}

fn mount(rt: &tokio::runtime::Runtime, server: &MockServer, mock: Mock) {
    rt.block_on(mock.mount(server));
}

fn requests(rt: &tokio::runtime::Runtime, server: &MockServer) -> Vec<wiremock::Request> {
    rt.block_on(server.received_requests()).unwrap_or_default()
}

fn echo(q: Quirks) -> Mock {
    Mock::given(method("POST"))
        .and(path("/v1/systemone"))
        .respond_with(JevEcho::new(q))
}

fn assert_expected(scores: &[pi_shake::score::PairScore], n: usize) {
    assert_eq!(scores.len(), n);
    for (i, s) in scores.iter().enumerate() {
        assert_eq!(s.pair_id, format!("t{i}"), "probe order");
        assert_eq!((s.useful, s.full), expected(i), "{}", s.pair_id);
        assert_eq!(s.source, ScoreSource::Jev);
        assert_eq!(s.model.as_deref(), Some("jev-1.13.0"));
    }
}

fn no_secrets(e: &pi_shake::score::ScorerError) {
    let shown = format!("{e} {e:?}");
    assert!(!shown.contains(KEY), "key leaked: {shown}");
    assert!(!shown.contains("SESSION-SECRET"), "state leaked: {shown}");
    assert!(
        !shown.contains("mismatched types"),
        "output leaked: {shown}"
    );
}

#[test]
fn request_shape_headers_auth_and_identical_state() {
    let (rt, server) = start();
    mount(&rt, &server, echo(Quirks::default()));
    // Small request budget → several batches of the same state.
    let o = opts_with(&server, |t| t.limits.request_max = 9_000);
    let req = request(12, 1_000, |_| 3_000);
    let s = scorer(o);
    let planned = s.planned_requests(&req);
    assert!(planned >= 3, "{planned}");
    let progress = Recorder::default();
    let scores = s.score(&req, &progress).unwrap();
    assert_expected(&scores, 12);

    let reqs = requests(&rt, &server);
    assert_eq!(reqs.len(), planned);
    let mut seen = Vec::new();
    for r in &reqs {
        let h = |n: &str| {
            r.headers
                .get(n)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string()
        };
        assert_eq!(h("authorization"), format!("Bearer {KEY}"));
        assert_eq!(h("content-type"), "application/json");
        assert_eq!(h("accept"), "application/json");
        assert_eq!(
            h("user-agent"),
            format!("pi-shake/{}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(h("pi-shake-protocol"), "jev-v1");

        #[derive(serde::Deserialize)]
        struct Raw<'a> {
            #[serde(borrow)]
            state: &'a RawValue,
        }
        let raw: Raw = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            raw.state.get(),
            req.state_json,
            "state bytes identical in every request"
        );

        let v: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["model"], "jev-latest");
        let qs = v["questions"].as_object().unwrap();
        let ids: Vec<&String> = qs.keys().collect();
        assert_eq!(ids.len() % 2, 0);
        for pair in ids.chunks(2) {
            let n = pair_number(pair[0]);
            assert_eq!(*pair[0], format!("useful_t{n}"));
            assert_eq!(
                *pair[1],
                format!("full_t{n}"),
                "both questions of a pair together"
            );
            seen.push(n);
            for id in pair {
                let q = &qs[id.as_str()];
                assert_eq!(q["type"], "noul");
                assert!(q["instructions"].is_string());
                assert!(q["criteria"]["true"].is_string() && q["criteria"]["false"].is_string());
            }
            assert_eq!(
                qs[pair[0].as_str()]["instructions"],
                req.probes[n].useful_instructions
            );
            assert_eq!(
                qs[pair[1].as_str()]["instructions"],
                req.probes[n].full_instructions
            );
        }
    }
    seen.sort_unstable();
    assert_eq!(
        seen,
        (0..12).collect::<Vec<_>>(),
        "each pair asked exactly once"
    );
    assert_eq!(*progress.started.lock().unwrap(), Some((planned, 12)));
    assert_eq!(progress.done.lock().unwrap().iter().sum::<usize>(), 12);
    assert_eq!(progress.finished.load(Ordering::SeqCst), 1);
    assert_eq!(progress.retries.load(Ordering::SeqCst), 0);
}

#[test]
fn loopback_without_key_sends_no_authorization() {
    let (rt, server) = start();
    mount(&rt, &server, echo(Quirks::default()));
    let o = opts_with(&server, |t| t.api_key = None);
    let s = scorer(o);
    assert_eq!(
        s.receiving_host(),
        server.uri().trim_start_matches("http://")
    );
    s.score(&request(2, 100, |_| 100), &NoProgress).unwrap();
    let reqs = requests(&rt, &server);
    assert!(reqs[0].headers.get("authorization").is_none());
}

#[test]
fn hundreds_of_pairs_are_batched_within_limits() {
    let (rt, server) = start();
    mount(&rt, &server, echo(Quirks::default()));
    let o = opts_with(&server, |t| t.concurrency = 8);
    // 600 pairs, outputs from 300 to ~7,500 chars (the single-window cap), a 20k-token state.
    let req = request(600, 20_000, |i| 300 + (i * 7_919) % 7_200);
    let s = scorer(o.clone());
    let batches = s.batches(&req);
    let lb = batch::lower_bound(&req, &o.transport.limits);
    assert!(
        batches.len() >= lb && batches.len() <= 2 * lb,
        "{} vs {lb}",
        batches.len()
    );
    assert!(batches.len() > 10, "{}", batches.len());
    let scores = s.score(&req, &NoProgress).unwrap();
    assert_expected(&scores, 600);

    let reqs = requests(&rt, &server);
    assert_eq!(reqs.len(), batches.len());
    let l = &o.transport.limits;
    for r in &reqs {
        let ids = jev_ids(&r.body);
        let pairs: Vec<usize> = ids.iter().step_by(2).map(|id| pair_number(id)).collect();
        let costs: Vec<_> = pairs
            .iter()
            .map(|&n| batch::pair_cost(&req.probes[n]))
            .collect();
        let total: u64 = costs.iter().map(|c| c.total).sum();
        let largest = costs.iter().map(|c| c.largest_question).max().unwrap();
        assert!(req.state_tokens <= l.state_max);
        assert!(req.state_tokens + largest <= l.question_budget());
        assert!(req.state_tokens + total + l.envelope <= l.request_budget());
        assert!(
            pairs.windows(2).all(|w| w[1] > w[0]),
            "pair order kept within a request"
        );
    }
}

#[test]
fn rate_limited_with_retry_after_zero_then_success() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(429)
                    .insert_header("retry-after", "0")
                    .set_body_json(
                        json!({"error": {"type": "rate_limited", "message": "slow down"}}),
                    ),
            )
            .up_to_n_times(1)
            .with_priority(1),
    );
    mount(&rt, &server, echo(Quirks::default()));
    // Backoff base of 10 s: only honouring Retry-After: 0 keeps this test fast.
    let o = opts_with(&server, |t| t.backoff_base = Duration::from_secs(10));
    let progress = Recorder::default();
    let t = Instant::now();
    let scores = scorer(o)
        .score(&request(3, 100, |_| 200), &progress)
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(3));
    assert_expected(&scores, 3);
    assert_eq!(requests(&rt, &server).len(), 2);
    assert_eq!(progress.retries.load(Ordering::SeqCst), 1);
}

#[test]
fn retry_after_ms_is_honoured_first() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(429)
                    .insert_header("retry-after-ms", "150")
                    .insert_header("retry-after", "30"),
            )
            .up_to_n_times(1)
            .with_priority(1),
    );
    mount(&rt, &server, echo(Quirks::default()));
    let t = Instant::now();
    scorer(opts(&server))
        .score(&request(1, 100, |_| 200), &NoProgress)
        .unwrap();
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(150) && took < Duration::from_secs(5),
        "{took:?}"
    );
}

#[test]
fn overloaded_529_then_success() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(529).set_body_json(
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
            ))
            .up_to_n_times(2)
            .with_priority(1),
    );
    mount(&rt, &server, echo(Quirks::default()));
    let scores = scorer(opts(&server))
        .score(&request(4, 100, |_| 200), &NoProgress)
        .unwrap();
    assert_expected(&scores, 4);
    assert_eq!(requests(&rt, &server).len(), 3);
}

#[test]
fn server_errors_until_exhaustion() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST")).respond_with(
            ResponseTemplate::new(503)
                .insert_header("x-typesafe-request-id", "req-503-abc")
                .set_body_json(json!({"error": {"type": "server_error", "message": format!("upstream failed for {KEY}")}})),
        ),
    );
    let e = scorer(opts(&server))
        .score(&request(2, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert_eq!(requests(&rt, &server).len(), 4, "4 attempts per batch");
    assert_eq!(e.status, Some(503));
    assert_eq!(e.kind, "server_error");
    assert_eq!(e.request_id.as_deref(), Some("req-503-abc"));
    assert!(
        e.message.contains("gave up after 4 attempts"),
        "{}",
        e.message
    );
    assert!(e.message.contains("[redacted]"), "{}", e.message);
    assert!(e.partial.is_empty());
    no_secrets(&e);
    assert!(e.to_string().contains("HTTP 503"));
}

#[test]
fn failure_carries_partial_scores() {
    let (rt, server) = start();
    // The batch holding pair t3 always fails; the others succeed.
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .and(body_string_contains("\"useful_t3\""))
            .respond_with(ResponseTemplate::new(500))
            .with_priority(1),
    );
    mount(&rt, &server, echo(Quirks::default()));
    let o = opts_with(&server, |t| {
        t.concurrency = 1;
        t.limits.max_pairs = 2;
    });
    let e = scorer(o)
        .score(&request(6, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert_eq!(e.status, Some(500));
    let ids: Vec<&str> = e.partial.iter().map(|s| s.pair_id.as_str()).collect();
    // Batches [t0,t1] done; [t2,t3] failed; later batches are not started after a failure.
    assert_eq!(ids, ["t0", "t1"]);
}

#[test]
fn too_large_413_splits_the_batch() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        echo(Quirks {
            too_large_above: Some(2),
            ..Quirks::default()
        }),
    );
    let progress = Recorder::default();
    let scores = scorer(opts(&server))
        .score(&request(8, 100, |_| 200), &progress)
        .unwrap();
    assert_expected(&scores, 8);
    // 8 → 4+4 → 2+2+2+2: 1 + 2 + 4 requests, no sleeping.
    assert_eq!(requests(&rt, &server).len(), 7);
    assert_eq!(
        *progress.done.lock().unwrap(),
        vec![8],
        "one packed batch done"
    );
}

#[test]
fn split_depth_is_capped_at_three() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST")).respond_with(ResponseTemplate::new(413)),
    );
    let e = scorer(opts(&server))
        .score(&request(16, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert_eq!(e.status, Some(413));
    assert_eq!(e.kind, "request_too_large");
    // 16 → 8 → 4 → 2: the first 2-pair part fails at depth 3 and stops the batch: 1+1+1+1.
    assert_eq!(requests(&rt, &server).len(), 4);
}

#[test]
fn size_422_splits_but_other_422_fails() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .and(body_string_contains("\"useful_t0\""))
            .and(body_string_contains("\"useful_t1\""))
            .respond_with(
                ResponseTemplate::new(422)
                    .set_body_json(json!({"detail": "request exceeds 64000 tokens"})),
            )
            .with_priority(1),
    );
    mount(&rt, &server, echo(Quirks::default()));
    let scores = scorer(opts(&server))
        .score(&request(2, 100, |_| 200), &NoProgress)
        .unwrap();
    assert_expected(&scores, 2);
    assert_eq!(requests(&rt, &server).len(), 3);

    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST")).respond_with(
            ResponseTemplate::new(422)
                .set_body_json(json!({"error": {"type": "invalid_request", "message": "questions.useful_t0.criteria: bad"}})),
        ),
    );
    let e = scorer(opts(&server))
        .score(&request(2, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert_eq!((e.status, e.kind.as_str()), (Some(422), "invalid_request"));
    assert_eq!(requests(&rt, &server).len(), 1);
}

#[test]
fn missing_answer_fails_after_one_retry() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        echo(Quirks {
            omit: Some("full_t1".into()),
            ..Quirks::default()
        }),
    );
    let progress = Recorder::default();
    let e = scorer(opts(&server))
        .score(&request(3, 100, |_| 200), &progress)
        .unwrap_err();
    assert_eq!(requests(&rt, &server).len(), 2);
    assert_eq!(e.kind, "invalid-answer");
    assert_eq!(e.status, Some(200));
    assert_eq!(e.request_id.as_deref(), Some("req-ok"));
    assert!(e.message.contains("full_t1"), "{}", e.message);
    assert!(e.partial.is_empty(), "no partial acceptance within a batch");
    assert_eq!(progress.retries.load(Ordering::SeqCst), 1);
    no_secrets(&e);
}

#[test]
fn out_of_range_answer_fails_after_one_retry() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        echo(Quirks {
            out_of_range: Some("useful_t0".into()),
            ..Quirks::default()
        }),
    );
    let e = scorer(opts(&server))
        .score(&request(2, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert_eq!(requests(&rt, &server).len(), 2);
    assert_eq!(e.kind, "invalid-answer");
    assert!(e.message.contains("out of range"), "{}", e.message);
}

#[test]
fn invalid_answer_then_good_answer_succeeds() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .respond_with(JevEcho::new(Quirks {
                omit: Some("useful_t0".into()),
                ..Quirks::default()
            }))
            .up_to_n_times(1)
            .with_priority(1),
    );
    mount(&rt, &server, echo(Quirks::default()));
    let scores = scorer(opts(&server))
        .score(&request(2, 100, |_| 200), &NoProgress)
        .unwrap();
    assert_expected(&scores, 2);
}

#[test]
fn unauthorized_401_fails_immediately() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST")).respond_with(
            ResponseTemplate::new(401)
                .insert_header("request-id", "req-401")
                .set_body_json(
                    json!({"error": {"type": "unauthorized", "message": "invalid key"}}),
                ),
        ),
    );
    let t = Instant::now();
    let e = scorer(opts_with(&server, |t| {
        t.backoff_base = Duration::from_secs(5)
    }))
    .score(&request(2, 100, |_| 200), &NoProgress)
    .unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(requests(&rt, &server).len(), 1, "401 is never retried");
    assert_eq!((e.status, e.kind.as_str()), (Some(401), "unauthorized"));
    assert_eq!(e.request_id.as_deref(), Some("req-401"));
    no_secrets(&e);
}

#[test]
fn exhausted_quota_is_not_retried() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST")).respond_with(
            ResponseTemplate::new(429).insert_header("retry-after", "0").set_body_json(
                json!({"error": {"type": "insufficient_quota", "code": "insufficient_quota", "message": "You exceeded your current quota"}}),
            ),
        ),
    );
    let e = scorer(opts(&server))
        .score(&request(1, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert_eq!(requests(&rt, &server).len(), 1);
    assert_eq!(
        (e.status, e.kind.as_str()),
        (Some(429), "insufficient_quota")
    );
}

#[test]
fn server_asking_over_60_s_gives_up() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "120")),
    );
    let t = Instant::now();
    let e = scorer(opts(&server))
        .score(&request(1, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(requests(&rt, &server).len(), 1);
    assert_eq!((e.status, e.kind.as_str()), (Some(429), "rate_limited"));
    assert!(e.message.contains("over the 60 s cap"), "{}", e.message);
}

#[test]
fn run_budget_stops_retrying() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(503).insert_header("retry-after-ms", "250")),
    );
    let o = opts_with(&server, |t| {
        t.run_budget = Duration::from_millis(400);
        t.max_attempts = 10;
    });
    let t = Instant::now();
    let e = scorer(o)
        .score(&request(1, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(requests(&rt, &server).len(), 2);
    assert!(e.message.contains("run budget"), "{}", e.message);
}

#[test]
fn request_timeout_is_retried_then_reported() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(3))),
    );
    let o = opts_with(&server, |t| {
        t.request_timeout = Duration::from_millis(150);
        t.max_attempts = 2;
    });
    let t = Instant::now();
    let e = scorer(o)
        .score(&request(1, 100, |_| 200), &NoProgress)
        .unwrap_err();
    assert!(
        t.elapsed() < Duration::from_millis(1_500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(e.kind, "timeout");
    assert_eq!(e.status, None);
    assert_eq!(requests(&rt, &server).len(), 2);
    no_secrets(&e);
}

#[test]
fn connection_refused_is_retried_then_reported() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = JevOptions {
        url: Some(format!("http://127.0.0.1:{port}/v1/systemone")),
        transport: Transport {
            api_key: Some(KEY.into()),
            backoff_base: Duration::from_millis(1),
            ..Transport::default()
        },
        ..JevOptions::default()
    };
    let progress = Recorder::default();
    let e = scorer(o)
        .score(&request(1, 100, |_| 200), &progress)
        .unwrap_err();
    assert_eq!(e.kind, "connect");
    assert_eq!(progress.retries.load(Ordering::SeqCst), 3);
    no_secrets(&e);
}

#[test]
fn answers_completing_out_of_order_are_merged_by_id() {
    let (rt, server) = start();
    // Batch with t0 is slowest, the last batch fastest.
    mount(
        &rt,
        &server,
        echo(Quirks {
            latency_by_first_pair: Some(|first| {
                Duration::from_millis(500u64.saturating_sub(first as u64 * 17))
            }),
            ..Quirks::default()
        }),
    );
    let o = opts_with(&server, |t| t.limits.max_pairs = 3);
    let progress = Recorder::default();
    let t = Instant::now();
    let scores = scorer(o)
        .score(&request(12, 100, |_| 200), &progress)
        .unwrap();
    let took = t.elapsed();
    assert_expected(&scores, 12);
    // Four batches of three in flight together (latencies 500, 449, 398, 347 ms, so they complete
    // in reverse order): about 500 ms in all, where one at a time would take 1.7 s.
    assert!(took < Duration::from_millis(1_200), "{took:?}");
    assert_eq!(progress.done.lock().unwrap().len(), 4);
}

#[test]
fn oversize_pair_is_shrunk_to_fit_and_scored_by_jev() {
    let (rt, server) = start();
    mount(&rt, &server, echo(Quirks::default()));
    // t1's question alone is over 32,000 × 0.95 with the state.
    let req = request(3, 20_000, |i| if i == 1 { 120_000 } else { 200 });
    assert!(!batch::fits_alone(&req, &Limits::default(), 1));
    let s = scorer(opts_with(&server, |t| t.concurrency = 1));
    let planned = s.planned_requests(&req);
    let scores = s.score(&req, &NoProgress).unwrap();
    assert_expected(&scores, 3);
    let notes = s.notes();
    assert_eq!(notes.shrunk.len(), 1, "{notes:?}");
    let sh = &notes.shrunk[0];
    assert_eq!(
        (sh.pair.as_str(), sh.windows.as_str(), sh.reason.as_str()),
        ("t1", "2,500/1,500/2,500", "request limits")
    );
    assert!(sh.to_tokens < sh.from_tokens);
    assert!(notes.offline.is_empty());
    assert!(
        notes
            .warnings
            .iter()
            .any(|w| w.contains("smaller output windows") && w.contains("t1 (2,500/1,500/2,500)")),
        "{:?}",
        notes.warnings
    );
    // What was sent for t1 is the shrunk rendering, within limit (b).
    let reqs = requests(&rt, &server);
    assert_eq!(reqs.len(), planned);
    let sent = reqs
        .iter()
        .find(|r| jev_ids(&r.body).iter().any(|i| i == "useful_t1"))
        .unwrap();
    let v: Value = serde_json::from_slice(&sent.body).unwrap();
    let ins = v["questions"]["useful_t1"]["instructions"]
        .as_str()
        .unwrap();
    assert!(
        ins.contains("<output-middle chars=\"59,250-60,750\">"),
        "middle window of 1,500 chars"
    );
    let q = batch::question_tokens(ins, batch::USEFUL_CRITERIA);
    assert!(20_000 + q <= Limits::default().question_budget());
    // Usage: one line per request, our estimate next to the server's count.
    let u = notes.usage.unwrap();
    assert_eq!((u.requests, u.answered, u.reported), (1, 1, 1));
    assert_eq!(u.input_tokens, 1_000);
    assert!(u.estimated_input_tokens > 20_000);
}

/// Limits (margin 1) under which the state plus the smallest rendering of `big` does not fit,
/// but a 200-char pair does.
fn tight_limits(
    state: u64,
    small: &pi_shake::score::PairProbe,
    big: &pi_shake::score::PairProbe,
) -> Limits {
    let smallest = pi_shake::compact::questions::probe_at(
        big.pair.clone(),
        pi_shake::compact::questions::LADDER.len() - 1,
    );
    let lo = batch::pair_cost(small).total;
    let hi = batch::pair_cost(&smallest).largest_question;
    assert!(lo < hi, "{lo} {hi}");
    Limits {
        margin: 1.0,
        question_max: state + (lo + hi) / 2,
        ..Limits::default()
    }
}

#[test]
fn pair_too_large_even_at_the_smallest_windows_is_scored_offline() {
    let (rt, server) = start();
    mount(&rt, &server, echo(Quirks::default()));
    let mut req = request(3, 20_000, |i| if i == 1 { 120_000 } else { 200 });
    // Long arguments keep even the smallest header large.
    req.probes[1].pair.args = json!({"command": "x".repeat(20_000)}).into();
    let limits = tight_limits(20_000, &req.probes[0], &req.probes[1]);
    let s = scorer(opts_with(&server, |t| t.limits = limits));
    let planned = s.planned_requests(&req);
    let scores = s.score(&req, &NoProgress).unwrap();
    let got: Vec<(&str, ScoreSource)> = scores
        .iter()
        .map(|x| (x.pair_id.as_str(), x.source))
        .collect();
    assert_eq!(
        got,
        [
            ("t0", ScoreSource::Jev),
            ("t1", ScoreSource::Offline),
            ("t2", ScoreSource::Jev)
        ]
    );
    let notes = s.notes();
    assert_eq!(notes.offline.len(), 1);
    assert_eq!(notes.offline[0].pair, "t1");
    assert!(
        notes.offline[0]
            .reason
            .contains("even with 300-char windows"),
        "{}",
        notes.offline[0].reason
    );
    assert!(
        notes
            .warnings
            .iter()
            .any(|w| w.contains("scored offline") && w.contains("t1")),
        "{:?}",
        notes.warnings
    );
    let reqs = requests(&rt, &server);
    assert_eq!(reqs.len(), planned);
    assert!(
        reqs.iter()
            .all(|r| !jev_ids(&r.body).iter().any(|i| i.ends_with("_t1"))),
        "the unfit pair is never sent"
    );
}

/// Answers 413 to bodies over `max` bytes, else like [`JevEcho`].
struct SizeLimited {
    max: usize,
    echo: JevEcho,
}

impl wiremock::Respond for SizeLimited {
    fn respond(&self, req: &wiremock::Request) -> ResponseTemplate {
        if req.body.len() > self.max {
            return ResponseTemplate::new(413).set_body_json(
                json!({"error": {"type": "request_too_large", "message": "too large"}}),
            );
        }
        self.echo.respond(req)
    }
}

#[test]
fn lone_pair_the_server_finds_too_large_walks_down_the_window_ladder() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST")).respond_with(SizeLimited {
            max: 9_000,
            echo: JevEcho::new(Quirks::default()),
        }),
    );
    // Fits our limits whole (7,000 chars, twice) but not the server's 9,000-byte cap.
    let req = request(1, 100, |_| 7_000);
    let s = scorer(opts(&server));
    let scores = s.score(&req, &NoProgress).unwrap();
    assert_expected(&scores, 1);
    let sizes: Vec<usize> = requests(&rt, &server)
        .iter()
        .map(|r| r.body.len())
        .collect();
    // Rungs 0 (whole), 1 (2,500/1,500/2,500), 2 (1,500 each) are refused; 3 (1,000 each) fits.
    assert_eq!(sizes.len(), 4, "{sizes:?}");
    assert!(sizes.windows(2).all(|w| w[1] < w[0]), "{sizes:?}");
    let notes = s.notes();
    assert_eq!(notes.shrunk.len(), 1);
    assert_eq!(notes.shrunk[0].windows, "1,000/1,000/1,000");
    assert_eq!(notes.shrunk[0].reason, "HTTP 413");
    let u = notes.usage.unwrap();
    assert_eq!((u.requests, u.answered), (4, 1));
    let statuses: Vec<Option<u16>> = u.per_request.iter().map(|l| l.status).collect();
    assert_eq!(statuses, [Some(413), Some(413), Some(413), Some(200)]);
}

#[test]
fn lone_pair_still_too_large_at_the_smallest_windows_is_scored_offline() {
    let (rt, server) = start();
    mount(
        &rt,
        &server,
        Mock::given(method("POST"))
            .and(body_string_contains("\"useful_t1\""))
            .respond_with(ResponseTemplate::new(413))
            .with_priority(1),
    );
    mount(&rt, &server, echo(Quirks::default()));
    let o = opts_with(&server, |t| t.limits.max_pairs = 1);
    let s = scorer(o);
    let scores = s.score(&request(3, 100, |_| 7_000), &NoProgress).unwrap();
    let src: Vec<ScoreSource> = scores.iter().map(|x| x.source).collect();
    assert_eq!(
        src,
        [ScoreSource::Jev, ScoreSource::Offline, ScoreSource::Jev]
    );
    // t0 and t2 once each; t1 at every rung of the ladder.
    let n = pi_shake::compact::questions::LADDER.len();
    assert_eq!(requests(&rt, &server).len(), 2 + n);
    let notes = s.notes();
    assert_eq!(notes.offline.len(), 1);
    assert!(
        notes.offline[0].reason.contains("HTTP 413"),
        "{}",
        notes.offline[0].reason
    );
    assert_eq!(notes.shrunk[0].windows, "300/300/300");
}

#[test]
fn usage_is_summed_and_listed_per_request() {
    let (rt, server) = start();
    mount(&rt, &server, echo(Quirks::default()));
    let o = opts_with(&server, |t| t.limits.request_max = 9_000);
    let req = request(12, 1_000, |_| 3_000);
    let s = scorer(o);
    let planned = s.planned_requests(&req) as u64;
    s.score(&req, &NoProgress).unwrap();
    let u = s.notes().usage.unwrap();
    assert!(planned >= 3);
    assert_eq!(
        (u.requests, u.answered, u.reported),
        (planned, planned, planned)
    );
    assert_eq!((u.input_tokens, u.output_tokens), (1_000 * planned, 0));
    assert_eq!(u.per_request.len() as u64, planned);
    assert_eq!(u.per_request.iter().map(|l| l.pairs).sum::<usize>(), 12);
    assert_eq!(
        u.per_request
            .iter()
            .map(|l| l.estimated_tokens)
            .sum::<u64>(),
        u.estimated_input_tokens
    );
    let firsts: Vec<usize> = u
        .per_request
        .iter()
        .map(|l| pair_number(&format!("_{}", l.first_pair)))
        .collect();
    assert!(
        firsts.windows(2).all(|w| w[0] < w[1]),
        "batch order: {firsts:?}"
    );
    assert!(u.per_request.iter().all(|l| l.status == Some(200)));
    // Counted across runs separately: a second run starts from zero.
    s.score(&request(1, 100, |_| 100), &NoProgress).unwrap();
    assert_eq!(s.notes().usage.unwrap().requests, 1);
}

/// Scores `batches` one-pair batches against a server that holds each answer 400 ms; returns
/// the most requests it saw in flight at once.
fn max_in_flight(concurrency: Option<usize>, batches: usize) -> usize {
    let srv = CountingServer::start(Duration::from_millis(400));
    let mut o = JevOptions {
        url: Some(srv.url.clone()),
        transport: Transport {
            limits: Limits {
                max_pairs: 1,
                ..Limits::default()
            },
            request_timeout: Duration::from_secs(20),
            ..Transport::default()
        },
        ..JevOptions::default()
    };
    if let Some(n) = concurrency {
        o.transport.concurrency = n;
    }
    let scores = scorer(o)
        .score(&request(batches, 100, |_| 200), &NoProgress)
        .unwrap();
    assert_expected(&scores, batches);
    assert_eq!(srv.total.load(Ordering::SeqCst), batches);
    assert_eq!(srv.current.load(Ordering::SeqCst), 0);
    srv.max.load(Ordering::SeqCst)
}

#[test]
fn at_most_four_requests_in_flight_by_default() {
    assert_eq!(JevOptions::default().transport.concurrency, 4);
    assert_eq!(max_in_flight(None, 16), 4);
}

#[test]
fn fewer_requests_in_flight_when_asked() {
    for n in [1, 2, 3] {
        assert_eq!(max_in_flight(Some(n), 4 * n + 2), n, "concurrency {n}");
    }
}

#[test]
fn empty_request_sends_nothing() {
    let (rt, server) = start();
    let s = scorer(opts(&server));
    let req = request(0, 100, |_| 0);
    assert_eq!(s.planned_requests(&req), 0);
    assert!(s.score(&req, &NoProgress).unwrap().is_empty());
    assert!(requests(&rt, &server).is_empty());
}
