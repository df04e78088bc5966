//! Shared helpers for the HTTP scorer tests and the `jev_latency` benchmark: synthetic score
//! requests and wiremock responders that answer System One and chat requests for whatever ids
//! they are asked, on 127.0.0.1 only.

#![allow(dead_code, clippy::unwrap_used)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pi_shake::compact::estimate_request_tokens;
use pi_shake::score::{PairData, PairProbe, Progress, ScoreRequest};
use serde_json::{Value, json};
use wiremock::{Request, Respond, ResponseTemplate};

/// Realistic question text: a header line plus `chars` characters of tool output.
pub fn probe(n: usize, chars: usize) -> PairProbe {
    let output: String =
        "error[E0308]: mismatched types --> src/score/jev.rs:42:17 expected `u64`, found `usize`\n"
            .chars()
            .cycle()
            .take(chars)
            .collect();
    let header =
        format!("Tool: bash {{\"command\":\"cargo build\"}} · {chars} chars · error: false");
    let useful = format!(
        "Does this tool call (pair t{n}) still inform the current work?\n{header}\n--- output ---\n{output}"
    );
    let full = format!(
        "Are details from the middle of this output (pair t{n}) likely needed?\n{header}\n--- output ---\n{output}"
    );
    let est_tokens = estimate_request_tokens(&useful) + estimate_request_tokens(&full);
    PairProbe {
        pair: PairData {
            pair_id: format!("t{n}"),
            index: n,
            count: 0,
            tool: "bash".into(),
            args: json!({"command": "cargo build"}).into(),
            output,
            is_error: false,
            call_entry: format!("c{n}"),
            result_entry: format!("r{n}"),
        },
        useful_instructions: useful,
        full_instructions: full,
        est_tokens,
        lite_cost: None,
    }
}

/// A request of `pairs` probes with output sizes from `size(i)`; the state JSON has unusual
/// spacing and number spellings so byte-identity is meaningful.
pub fn request(pairs: usize, state_tokens: u64, size: impl Fn(usize) -> usize) -> ScoreRequest {
    ScoreRequest {
        state_json: "{\"task\": \"review older history\",  \"workspace\":{\"cwd\":\"/w\"},\"n\":1.50e0, \"secret_session_text\":\"SESSION-SECRET-42\"}".into(),
        state_tokens,
        probes: (0..pairs).map(|i| probe(i, size(i))).collect(),
        kept_context: vec![],
    }
}

/// The scores the echo responders give pair `tN`.
pub fn expected(n: usize) -> (f64, f64) {
    (
        ((n * 37) % 101) as f64 / 100.0,
        ((n * 11) % 101) as f64 / 100.0,
    )
}

/// Pair number from a question id (`useful_t17` → 17).
pub fn pair_number(id: &str) -> usize {
    id.rsplit("_t")
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn value_for(id: &str) -> f64 {
    let (u, f) = expected(pair_number(id));
    if id.starts_with("useful_") { u } else { f }
}

/// How an echo responder misbehaves.
#[derive(Clone, Debug, Default)]
pub struct Quirks {
    /// Leave this question id out of the answer.
    pub omit: Option<String>,
    /// Answer this id with 1.5.
    pub out_of_range: Option<String>,
    /// Answer 413 when more than this many pairs are asked.
    pub too_large_above: Option<usize>,
    /// Fixed latency for every answer.
    pub latency: Duration,
    /// Extra latency by the batch's first pair number.
    pub latency_by_first_pair: Option<fn(usize) -> Duration>,
}

/// A System One server: answers every asked id.
pub struct JevEcho {
    pub quirks: Quirks,
    pub calls: AtomicUsize,
}

impl JevEcho {
    pub fn new(quirks: Quirks) -> Self {
        JevEcho {
            quirks,
            calls: AtomicUsize::new(0),
        }
    }
}

/// The question ids of a System One request body, in order.
pub fn jev_ids(body: &[u8]) -> Vec<String> {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    v["questions"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn delay(q: &Quirks, ids: &[String]) -> Duration {
    let first = ids.first().map(|i| pair_number(i)).unwrap_or(0);
    q.latency
        + q.latency_by_first_pair
            .map(|f| f(first))
            .unwrap_or_default()
}

impl Respond for JevEcho {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let ids = jev_ids(&req.body);
        if let Some(max) = self.quirks.too_large_above
            && ids.len() / 2 > max
        {
            return ResponseTemplate::new(413).set_body_json(json!({
                "error": {"type": "request_too_large", "message": "too large"}
            }));
        }
        let mut answers = serde_json::Map::new();
        for id in &ids {
            if self.quirks.omit.as_deref() == Some(id.as_str()) {
                continue;
            }
            let v = if self.quirks.out_of_range.as_deref() == Some(id.as_str()) {
                1.5
            } else {
                value_for(id)
            };
            answers.insert(id.clone(), json!({"type": "noul", "noul": v}));
        }
        ResponseTemplate::new(200)
            .insert_header("x-typesafe-request-id", "req-ok")
            .set_body_json(json!({
                "model": "jev-1.13.0",
                "answers": answers,
                "usage": {"input_tokens": 1000, "output_tokens": 0}
            }))
            .set_delay(delay(&self.quirks, &ids))
    }
}

/// An OpenAI-compatible chat server: answers the ids of the strict schema.
pub struct ChatEcho {
    pub quirks: Quirks,
}

/// The schema's required ids of a chat request body.
pub fn chat_ids(body: &[u8]) -> Vec<String> {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    v["response_format"]["json_schema"]["schema"]["required"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

impl Respond for ChatEcho {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let ids = chat_ids(&req.body);
        let mut answer = serde_json::Map::new();
        for id in &ids {
            if self.quirks.omit.as_deref() != Some(id.as_str()) {
                answer.insert(id.clone(), json!(value_for(id)));
            }
        }
        ResponseTemplate::new(200)
            .set_body_json(json!({
                "id": "chatcmpl-1",
                "model": "local-judge",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": Value::Object(answer).to_string(), "refusal": null
                }}]
            }))
            .set_delay(delay(&self.quirks, &ids))
    }
}

/// A `Progress` that records what it is told.
#[derive(Default)]
pub struct Recorder {
    pub started: Mutex<Option<(usize, usize)>>,
    pub done: Mutex<Vec<usize>>,
    pub retries: AtomicUsize,
    pub finished: AtomicUsize,
}

impl Progress for Recorder {
    fn start(&self, batches: usize, pairs: usize) {
        *self.started.lock().unwrap() = Some((batches, pairs));
    }
    fn batch_done(&self, pairs: usize) {
        self.done.lock().unwrap().push(pairs);
    }
    fn retry(&self) {
        self.retries.fetch_add(1, Ordering::SeqCst);
    }
    fn finish(&self) {
        self.finished.fetch_add(1, Ordering::SeqCst);
    }
}

/// A runtime for driving the mock server's async API from sync tests.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A System One server on 127.0.0.1 (one thread per connection) that holds every answer for
/// `delay` and counts the requests in flight: `max` is the most seen at once. Answers like
/// [`JevEcho`] (with `usage`), closing each connection.
pub struct CountingServer {
    pub url: String,
    pub current: std::sync::Arc<AtomicUsize>,
    pub max: std::sync::Arc<AtomicUsize>,
    pub total: std::sync::Arc<AtomicUsize>,
}

impl CountingServer {
    pub fn start(delay: Duration) -> CountingServer {
        use std::io::{BufRead, BufReader, Read, Write};
        use std::sync::Arc;
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1/systemone", l.local_addr().unwrap());
        let current = Arc::new(AtomicUsize::new(0));
        let max = Arc::new(AtomicUsize::new(0));
        let total = Arc::new(AtomicUsize::new(0));
        let (c, m, t) = (current.clone(), max.clone(), total.clone());
        std::thread::spawn(move || {
            for stream in l.incoming() {
                let Ok(mut s) = stream else { continue };
                let (c, m, t) = (c.clone(), m.clone(), t.clone());
                std::thread::spawn(move || {
                    let mut r = BufReader::new(s.try_clone().unwrap());
                    let mut len = 0usize;
                    loop {
                        let mut line = String::new();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim_end().to_ascii_lowercase();
                        if line.is_empty() {
                            break;
                        }
                        if let Some(v) = line.strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0u8; len];
                    if r.read_exact(&mut body).is_err() {
                        return;
                    }
                    let now = c.fetch_add(1, Ordering::SeqCst) + 1;
                    m.fetch_max(now, Ordering::SeqCst);
                    t.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(delay);
                    let mut answers = serde_json::Map::new();
                    for id in jev_ids(&body) {
                        let v = value_for(&id);
                        answers.insert(id, json!({"type": "noul", "noul": v}));
                    }
                    let out = json!({"model": "jev-1.13.0", "answers": answers,
                        "usage": {"input_tokens": 1000, "output_tokens": 0}})
                    .to_string();
                    c.fetch_sub(1, Ordering::SeqCst);
                    let _ = write!(
                        s,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                        out.len(),
                        out
                    );
                });
            }
        });
        CountingServer {
            url,
            current,
            max,
            total,
        }
    }
}
