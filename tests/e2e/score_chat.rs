//! The OpenAI-compatible chat adapter against an in-process wiremock server on 127.0.0.1:
//! request shape (strict schema, all ids required), parsing `choices[0].message.content`,
//! batches of at most 20 pairs, refusal / truncation handling with one retry after halving, and
//! the shared retry plumbing.

// Helpers outside #[test] functions unwrap too: a failed setup is a failed test.
#![allow(clippy::unwrap_used)]

use crate::score_support;

use std::time::Duration;

use pi_shake::score::chat::{ChatOptions, ChatScorer};
use pi_shake::score::wire::Transport;
use pi_shake::score::{NoProgress, ScoreSource, Scorer};
use score_support::*;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-chat-test-key-123456";

fn start() -> (tokio::runtime::Runtime, MockServer) {
    let rt = runtime();
    let server = rt.block_on(MockServer::start());
    (rt, server)
}

fn opts(server: &MockServer) -> ChatOptions {
    let chat = ChatOptions::default();
    ChatOptions {
        url: Some(format!("{}/v1/chat/completions", server.uri())),
        model: "local-judge".into(),
        seed: 7,
        // The chat defaults (at most 20 pairs per batch) for the rest.
        transport: Transport {
            api_key: Some(KEY.into()),
            backoff_base: Duration::from_millis(1),
            request_timeout: Duration::from_secs(5),
            ..chat.transport
        },
    }
}

fn scorer(o: ChatOptions) -> ChatScorer {
    ChatScorer::with_env(o, &|_| None).unwrap()
}

fn requests(rt: &tokio::runtime::Runtime, server: &MockServer) -> Vec<wiremock::Request> {
    rt.block_on(server.received_requests()).unwrap_or_default()
}

fn echo() -> Mock {
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ChatEcho {
            quirks: Quirks::default(),
        })
}

fn choice(message: Value, finish: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "model": "local-judge",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}]
    }))
}

#[test]
fn request_shape_batches_and_parse() {
    let (rt, server) = start();
    rt.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .and(header("authorization", format!("Bearer {KEY}").as_str()))
            .and(header("content-type", "application/json"))
            .respond_with(ChatEcho {
                quirks: Quirks::default(),
            })
            .mount(&server),
    );
    let req = request(45, 1_000, |_| 300);
    let s = scorer(opts(&server));
    assert_eq!(s.planned_requests(&req), 3, "at most 20 pairs per batch");
    let scores = s.score(&req, &NoProgress).unwrap();
    assert_eq!(scores.len(), 45);
    for (i, sc) in scores.iter().enumerate() {
        assert_eq!(sc.pair_id, format!("t{i}"));
        assert_eq!((sc.useful, sc.full), expected(i));
        assert_eq!(sc.source, ScoreSource::Chat);
        assert_eq!(sc.model.as_deref(), Some("local-judge"));
    }
    let reqs = requests(&rt, &server);
    assert_eq!(reqs.len(), 3);
    for r in &reqs {
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["model"], "local-judge");
        assert_eq!(v["temperature"], 0);
        assert_eq!(v["seed"], 7);
        let rf = &v["response_format"];
        assert_eq!(rf["type"], "json_schema");
        assert_eq!(rf["json_schema"]["strict"], true);
        assert!(rf["json_schema"]["name"].is_string());
        let schema = &rf["json_schema"]["schema"];
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        let required = chat_ids(&r.body);
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            props,
            required.iter().collect::<Vec<_>>(),
            "every property required"
        );
        assert!(required.len() <= 40);
        for id in &required {
            assert_eq!(schema["properties"][id]["type"], "number");
        }
        assert_eq!(v["max_tokens"], 12 * required.len() + 32);
        assert_eq!(v["messages"][0]["role"], "system");
        let user = v["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains(&req.state_json), "state in the user message");
        for id in &required {
            assert!(user.contains(&format!("### {id}\n")));
        }
    }
}

#[test]
fn refusal_fails_after_halving_once() {
    let (rt, server) = start();
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(choice(
                json!({"role": "assistant", "content": null, "refusal": "I can't help"}),
                "stop",
            ))
            .mount(&server),
    );
    let e = scorer(opts(&server))
        .score(&request(4, 100, |_| 100), &NoProgress)
        .unwrap_err();
    assert_eq!(e.kind, "invalid-answer");
    assert!(e.message.contains("refused"), "{}", e.message);
    // The 4-pair batch, then its first half (2 pairs) fails again: no further retries.
    let reqs = requests(&rt, &server);
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        chat_ids(&reqs[1].body).len(),
        4,
        "second request carries half the pairs"
    );
}

#[test]
fn truncated_answer_is_retried_as_halves_and_succeeds() {
    let (rt, server) = start();
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(choice(
                json!({"role": "assistant", "content": "{\"useful_t0\": 0.3"}),
                "length",
            ))
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&server),
    );
    rt.block_on(echo().mount(&server));
    let scores = scorer(opts(&server))
        .score(&request(4, 100, |_| 100), &NoProgress)
        .unwrap();
    assert_eq!(scores.len(), 4);
    assert_eq!((scores[3].useful, scores[3].full), expected(3));
    let sizes: Vec<usize> = requests(&rt, &server)
        .iter()
        .map(|r| chat_ids(&r.body).len())
        .collect();
    assert_eq!(sizes, vec![8, 4, 4]);
}

#[test]
fn missing_key_in_answer_fails_the_batch() {
    let (rt, server) = start();
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(ChatEcho {
                quirks: Quirks {
                    omit: Some("full_t0".into()),
                    ..Quirks::default()
                },
            })
            .mount(&server),
    );
    let e = scorer(opts(&server))
        .score(&request(1, 100, |_| 100), &NoProgress)
        .unwrap_err();
    assert_eq!(e.kind, "invalid-answer");
    assert!(e.message.contains("full_t0"));
    // One pair cannot be halved: the same batch is sent once more.
    assert_eq!(requests(&rt, &server).len(), 2);
}

#[test]
fn out_of_range_values_are_clamped_and_rounded() {
    let (rt, server) = start();
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(choice(
                json!({"role": "assistant", "content": "{\"useful_t0\": 1.4, \"full_t0\": 0.333333}"}),
                "stop",
            ))
            .mount(&server),
    );
    let scores = scorer(opts(&server))
        .score(&request(1, 100, |_| 100), &NoProgress)
        .unwrap();
    assert_eq!((scores[0].useful, scores[0].full), (1.0, 0.33));
}

#[test]
fn openai_style_429_is_retried_and_quota_is_not() {
    let (rt, server) = start();
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(429)
                    .insert_header("retry-after-ms", "5")
                    .set_body_json(json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}})),
            )
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&server),
    );
    rt.block_on(echo().mount(&server));
    let scores = scorer(opts(&server))
        .score(&request(2, 100, |_| 100), &NoProgress)
        .unwrap();
    assert_eq!(scores.len(), 2);
    assert_eq!(requests(&rt, &server).len(), 2);

    let (rt, server) = start();
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(429).set_body_json(
                json!({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}),
            ))
            .mount(&server),
    );
    let e = scorer(opts(&server))
        .score(&request(2, 100, |_| 100), &NoProgress)
        .unwrap_err();
    assert_eq!(
        (e.status, e.kind.as_str()),
        (Some(429), "insufficient_quota")
    );
    assert_eq!(requests(&rt, &server).len(), 1);
    assert!(!format!("{e:?}").contains(KEY));
}

/// Like [`ChatEcho`], with OpenAI-style `usage` in every answer.
struct ChatWithUsage;

impl wiremock::Respond for ChatWithUsage {
    fn respond(&self, req: &wiremock::Request) -> ResponseTemplate {
        let ids = chat_ids(&req.body);
        let answer: serde_json::Map<String, Value> =
            ids.iter().map(|id| (id.clone(), json!(0.75))).collect();
        ResponseTemplate::new(200).set_body_json(json!({
            "model": "local-judge",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": Value::Object(answer).to_string()
            }}],
            "usage": {"prompt_tokens": 500 + ids.len(), "completion_tokens": 6 * ids.len(), "total_tokens": 0}
        }))
    }
}

#[test]
fn usage_is_summed_from_chat_answers() {
    let (rt, server) = start();
    rt.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(ChatWithUsage)
            .mount(&server),
    );
    let s = scorer(opts(&server));
    // 45 pairs → batches of 20, 20, 5.
    s.score(&request(45, 1_000, |_| 300), &NoProgress).unwrap();
    let u = s.notes().usage.unwrap();
    assert_eq!((u.requests, u.answered, u.reported), (3, 3, 3));
    assert_eq!(u.input_tokens, 3 * 500 + 90);
    assert_eq!(u.output_tokens, 6 * 90);
    let mut pairs: Vec<usize> = u.per_request.iter().map(|l| l.pairs).collect();
    pairs.sort_unstable();
    assert_eq!(pairs, [5, 20, 20]);
    assert!(u.estimated_input_tokens > 3_000);
}

#[test]
fn oversize_pair_is_shrunk_for_chat_too() {
    let (rt, server) = start();
    rt.block_on(echo().mount(&server));
    let req = request(2, 20_000, |i| if i == 1 { 120_000 } else { 200 });
    let s = scorer(opts(&server));
    let scores = s.score(&req, &NoProgress).unwrap();
    assert!(scores.iter().all(|x| x.source == ScoreSource::Chat));
    let n = s.notes();
    assert_eq!(n.shrunk.len(), 1);
    assert_eq!(n.shrunk[0].pair, "t1");
    let reqs = requests(&rt, &server);
    let user = |r: &wiremock::Request| {
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        v["messages"][1]["content"].as_str().unwrap().to_string()
    };
    assert!(
        reqs.iter()
            .map(user)
            .any(|u| u.contains("### useful_t1\n") && u.contains("<output-middle")),
        "t1 asked with windows"
    );
}
