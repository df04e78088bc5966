//! OpenAI-compatible chat adapter (`--scorer chat`, `docs/jev.md#the-chat-adapter`): lets a local
//! or hosted chat model judge the same questions.
//!
//! `POST` to a full `/v1/chat/completions` URL with one system message (the rubric) and one user
//! message (the state JSON, then one block per question), `temperature: 0`, a fixed `seed`,
//! `max_tokens` = 12 per question + 32, and a strict JSON-schema `response_format`: an object with
//! one number property per question id, all required, no additional properties. The answer is
//! `choices[0].message.content` (a JSON string). A refusal, `finish_reason: "length"`, a missing or
//! non-numeric key fails the batch; it is retried once after halving. Values are clamped to
//! [0, 1] and rounded to 2 decimals, like Jev's. Batches hold at most 20 pairs by default, because
//! the model must write every number.
//!
//! Generative models' self-reported probabilities are not calibrated like Jev's nouls; callers may
//! want a per-scorer threshold.
//!
//! `usage` (`prompt_tokens` / `completion_tokens`, or `input_tokens` / `output_tokens`) of every
//! answer is summed into the run's [`ScoreNotes`].

use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use super::batch::{FULL_CRITERIA, Limits, Sending, USEFUL_CRITERIA};
use super::http::{self, Remote, Wire};
use super::wire::{Protocol, Transport, WireScorer};
use super::{PairScore, Progress, ScoreNotes, ScoreRequest, ScoreSource, ScorerError};

/// Default endpoint.
pub const DEFAULT_URL: &str = "https://api.openai.com/v1/chat/completions";
/// Key variables, in lookup order.
pub const KEY_VARS: [&str; 2] = ["PI_SHAKE_CHAT_API_KEY", "OPENAI_API_KEY"];
/// Default pairs per batch.
pub const DEFAULT_MAX_PAIRS: usize = 20;
/// Name of the JSON schema in `response_format`.
pub const SCHEMA_NAME: &str = "pair_scores";

/// The rubric sent as the system message.
pub const SYSTEM_PROMPT: &str = "You review the older history of a coding agent's session to \
decide what can be pruned. You get the current STATE as JSON, then numbered QUESTIONS about past \
tool calls. Each question is a yes/no statement about one tool call; answer each with your \
probability, between 0 and 1, that the statement is true (1 = certainly true, 0 = certainly \
false, 0.5 = undecided; values of 0.5 or more count as yes). Judge every question on its own. \
Return only the JSON object with one number per question id, and nothing else.";

/// What the CLI fills in for `--scorer chat`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatOptions {
    /// Full endpoint URL (`--chat-url`); `None` = `https://api.openai.com/v1/chat/completions`.
    pub url: Option<String>,
    /// Model name (`--chat-model`); required.
    pub model: String,
    /// Fixed sampling seed (default 0).
    pub seed: u64,
    /// Concurrency, timeouts, retries, limits and key (default: [`Transport::default`] with a
    /// 120 s request timeout, since local models write every number slowly, and at most 20 pairs
    /// per batch).
    pub transport: Transport,
}

impl Default for ChatOptions {
    fn default() -> Self {
        ChatOptions {
            url: None,
            model: String::new(),
            seed: 0,
            transport: Transport {
                request_timeout: Duration::from_secs(120),
                limits: Limits {
                    max_pairs: DEFAULT_MAX_PAIRS,
                    ..Limits::default()
                },
                ..Transport::default()
            },
        }
    }
}

/// The chat-completions scorer.
pub type ChatScorer = WireScorer<ChatOptions>;

impl Protocol for ChatOptions {
    const TYPE: &'static str = "ChatScorer";
    const NAME: &'static str = "chat";
    const EMPTY_MODEL: &'static str = "the chat scorer needs a model name";
    const EXTRA_HEADERS: &'static [(&'static str, &'static str)] = &[];

    fn raw_url(&self) -> String {
        self.url.as_deref().unwrap_or(DEFAULT_URL).to_string()
    }
    fn model(&self) -> &str {
        &self.model
    }
    fn transport(&self) -> &Transport {
        &self.transport
    }
    fn key_vars(_: &reqwest::Url) -> Vec<&'static str> {
        KEY_VARS.to_vec()
    }
    fn send(
        &self,
        remote: &Remote<'_>,
        req: &ScoreRequest,
        notes: &Mutex<ScoreNotes>,
        progress: &dyn Progress,
    ) -> Result<Vec<PairScore>, ScorerError> {
        http::score_remote(remote, req, notes, |cfg, sending, fitted, batches| {
            let wire = ChatWire {
                sending,
                opts: self,
            };
            http::run_batches(cfg, &wire, fitted, batches, progress)
        })
    }
}

struct ChatWire<'a> {
    sending: &'a Sending<'a>,
    opts: &'a ChatOptions,
}

/// Question ids of a batch, in order (`useful_tN`, `full_tN`, …).
fn ids(req: &ScoreRequest, batch: &[usize]) -> Vec<String> {
    batch
        .iter()
        .filter_map(|&i| req.probes.get(i))
        .flat_map(|p| {
            let id = &p.pair.pair_id;
            [format!("useful_{id}"), format!("full_{id}")]
        })
        .collect()
}

/// The strict JSON schema for a batch's answer.
pub fn answer_schema(ids: &[String]) -> Value {
    let props: serde_json::Map<String, Value> = ids
        .iter()
        .map(|id| {
            (
                id.clone(),
                json!({"type": "number", "minimum": 0, "maximum": 1}),
            )
        })
        .collect();
    json!({
        "type": "object",
        "properties": props,
        "required": ids,
        "additionalProperties": false,
    })
}

/// The user message: state, then one block per question.
fn user_message(sending: &Sending<'_>, batch: &[usize]) -> String {
    let req = sending.req;
    let mut m = String::with_capacity(req.state_json.len() + 4096);
    m.push_str("STATE (JSON):\n");
    m.push_str(&req.state_json);
    m.push_str("\n\nQUESTIONS:\n");
    for p in batch.iter().filter_map(|&i| sending.probe(i)) {
        for (prefix, text, (yes, no)) in [
            ("useful", &p.useful_instructions, USEFUL_CRITERIA),
            ("full", &p.full_instructions, FULL_CRITERIA),
        ] {
            let _ = write!(
                m,
                "\n### {prefix}_{id}\n{text}\nTrue (1) means: {yes}\nFalse (0) means: {no}\n",
                id = p.pair.pair_id
            );
        }
    }
    let ids = ids(req, batch);
    let _ = write!(
        m,
        "\nReturn one JSON object with exactly these {} keys, each a number from 0 to 1: {}",
        ids.len(),
        ids.join(", ")
    );
    m
}

/// Clamps to [0, 1] and rounds to 2 decimals.
pub fn clamp_round(v: f64) -> f64 {
    (v.clamp(0.0, 1.0) * 100.0).round() / 100.0
}

/// Strips a Markdown code fence some models wrap JSON in.
fn unfence(s: &str) -> &str {
    let t = s.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

impl Wire for ChatWire<'_> {
    fn sending(&self) -> &Sending<'_> {
        self.sending
    }

    fn body(&self, batch: &[usize]) -> Result<Vec<u8>, ScorerError> {
        let ids = ids(self.sending.req, batch);
        let body = json!({
            "model": self.opts.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": user_message(self.sending, batch)},
            ],
            "temperature": 0,
            "seed": self.opts.seed,
            "max_tokens": 12 * ids.len() + 32,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "strict": true, "schema": answer_schema(&ids)},
            },
        });
        serde_json::to_vec(&body)
            .map_err(|e| http::local_error("internal", format!("cannot encode the request: {e}")))
    }

    fn parse(&self, batch: &[usize], body: &[u8]) -> Result<Vec<PairScore>, String> {
        let v: Value =
            serde_json::from_slice(body).map_err(|e| format!("the response is not JSON: {e}"))?;
        let choice = v
            .get("choices")
            .and_then(|c| c.get(0))
            .ok_or_else(|| "the response has no choices".to_string())?;
        let message = choice.get("message").unwrap_or(&Value::Null);
        if message
            .get("refusal")
            .is_some_and(|r| !r.is_null() && r != &Value::String(String::new()))
        {
            return Err("the model refused".to_string());
        }
        if choice.get("finish_reason").and_then(Value::as_str) == Some("length") {
            return Err("the answer was cut off (finish_reason length)".to_string());
        }
        let content = message
            .get("content")
            .and_then(Value::as_str)
            .ok_or_else(|| "the answer has no content".to_string())?;
        let answer: serde_json::Map<String, Value> = serde_json::from_str(unfence(content))
            .map_err(|_| "the answer is not a JSON object".to_string())?;
        let model = v
            .get("model")
            .and_then(Value::as_str)
            .map(|m| http::cut(m, 100));
        let get = |id: &str| -> Result<f64, String> {
            answer
                .get(id)
                .and_then(Value::as_f64)
                .filter(|x| x.is_finite())
                .map(clamp_round)
                .ok_or_else(|| format!("no numeric answer for {id}"))
        };
        self.sending.scores(batch, ScoreSource::Chat, model, get)
    }

    fn halve_on_invalid(&self) -> bool {
        true
    }

    fn usage(&self, body: &[u8]) -> Option<(u64, u64)> {
        usage_of(body)
    }
}

/// `usage` of a chat answer: OpenAI's `prompt_tokens` / `completion_tokens`, or the
/// `input_tokens` / `output_tokens` spelling (Anthropic-style gateways).
fn usage_of(body: &[u8]) -> Option<(u64, u64)> {
    let v: Value = serde_json::from_slice(body).ok()?;
    let u = v.get("usage")?;
    let n = |a: &str, b: &str| u.get(a).or_else(|| u.get(b)).and_then(Value::as_u64);
    let input = n("prompt_tokens", "input_tokens")?;
    Some((input, n("completion_tokens", "output_tokens").unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Scorer;
    use crate::score::batch::tests::request;

    fn opts() -> ChatOptions {
        ChatOptions {
            url: Some("http://127.0.0.1:11434/v1/chat/completions".into()),
            model: "qwen3:8b".into(),
            ..ChatOptions::default()
        }
    }

    #[test]
    fn construction_rules() {
        let none = |_: &str| None;
        let s = ChatScorer::with_env(opts(), &none).unwrap();
        assert_eq!(s.receiving_host(), "127.0.0.1:11434");
        assert_eq!(s.name(), "chat (qwen3:8b @ 127.0.0.1:11434)");
        let e = ChatScorer::with_env(
            ChatOptions {
                model: String::new(),
                ..opts()
            },
            &none,
        )
        .unwrap_err();
        assert_eq!(e.kind, "config");
        let e = ChatScorer::with_env(
            ChatOptions {
                url: None,
                ..opts()
            },
            &none,
        )
        .unwrap_err();
        assert_eq!(e.kind, "missing-key");
        let env = |n: &str| (n == "OPENAI_API_KEY").then(|| "sk-oa".to_string());
        let s = ChatScorer::with_env(
            ChatOptions {
                url: None,
                ..opts()
            },
            &env,
        )
        .unwrap();
        assert_eq!(s.receiving_host(), "api.openai.com");
        assert!(!format!("{s:?}").contains("sk-oa"));
    }

    #[test]
    fn schema_and_body_shape() {
        let req = request(100, &[40, 40]);
        let o = opts();
        let sending = Sending::new(&req, &o.transport.limits, vec![0; req.probes.len()], vec![]);
        let wire = ChatWire {
            sending: &sending,
            opts: &o,
        };
        let body: Value = serde_json::from_slice(&wire.body(&[0, 1]).unwrap()).unwrap();
        assert_eq!(body["temperature"], 0);
        assert_eq!(body["seed"], 0);
        assert_eq!(body["max_tokens"], 12 * 4 + 32);
        let rf = &body["response_format"];
        assert_eq!(rf["type"], "json_schema");
        assert_eq!(rf["json_schema"]["strict"], true);
        let schema = &rf["json_schema"]["schema"];
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(
            schema["required"],
            json!(["useful_t0", "full_t0", "useful_t1", "full_t1"])
        );
        assert_eq!(schema["properties"]["full_t1"]["type"], "number");
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.starts_with("STATE (JSON):\n{\"task\":\"t\"}"));
        assert!(user.contains("### full_t1\n"));
    }

    #[test]
    fn parse_content_clamps_and_rounds() {
        let req = request(100, &[40]);
        let o = opts();
        let sending = Sending::new(&req, &o.transport.limits, vec![0; req.probes.len()], vec![]);
        let wire = ChatWire {
            sending: &sending,
            opts: &o,
        };
        let resp = json!({
            "model": "qwen3:8b",
            "choices": [{"finish_reason": "stop", "message": {"role": "assistant",
                "content": "```json\n{\"useful_t0\": 1.7, \"full_t0\": 0.126}\n```"}}]
        });
        let s = wire.parse(&[0], resp.to_string().as_bytes()).unwrap();
        assert_eq!((s[0].useful, s[0].full), (1.0, 0.13));
        assert_eq!(s[0].source, ScoreSource::Chat);
        assert_eq!(clamp_round(-0.2), 0.0);

        let bad = [
            (
                json!({"choices": [{"message": {"refusal": "no", "content": null}}]}),
                "refused",
            ),
            (
                json!({"choices": [{"finish_reason": "length", "message": {"content": "{\"useful_t0\": 0.1"}}]}),
                "cut off",
            ),
            (
                json!({"choices": [{"message": {"content": "{\"useful_t0\": 0.1}"}}]}),
                "full_t0",
            ),
            (
                json!({"choices": [{"message": {"content": "{\"useful_t0\": \"high\", \"full_t0\": 0}"}}]}),
                "useful_t0",
            ),
            (json!({"choices": []}), "no choices"),
        ];
        for (resp, want) in bad {
            let e = wire.parse(&[0], resp.to_string().as_bytes()).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }
}
