//! Jev / TypeSafe System One over HTTP: "Jev protocol v1"
//! (`docs/jev.md#system-one-request-and-response`).
//!
//! `POST {base}/v1/systemone` (base `https://api.typesafe.ai`, or a full URL for gateways and
//! local servers) with `{"model", "state", "questions"}`: the state embedded verbatim from
//! [`ScoreRequest::state_json`] (byte-identical in every request of a run), two `noul` questions
//! per pair (`useful_tN`, `full_tN`) with string instructions and fixed criteria. Answers must
//! cover every asked id with `{"type":"noul","noul": x}`, x finite in [0, 1].
//!
//! Batching, concurrency, retries, splitting, window shrinking and failure handling are shared
//! with the chat adapter (`batch`, `http`). `usage.input_tokens` / `output_tokens` of every
//! answer are summed into the run's [`ScoreNotes`].

use std::sync::Mutex;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::value::RawValue;

use super::batch::{FULL_CRITERIA, Sending, USEFUL_CRITERIA};
use super::http::{self, Remote, Wire};
use super::wire::{Protocol, Transport, WireScorer};
use super::{PairScore, Progress, ScoreNotes, ScoreRequest, ScoreSource, ScorerError};

/// Default base URL; the endpoint is `{base}/v1/systemone`.
pub const DEFAULT_BASE: &str = "https://api.typesafe.ai";
/// Path appended to [`DEFAULT_BASE`].
pub const ENDPOINT_PATH: &str = "/v1/systemone";
/// Default model alias.
pub const DEFAULT_MODEL: &str = "jev-latest";
/// Value of the `Pi-Shake-Protocol` header.
pub const PROTOCOL: &str = "jev-v1";
/// Key variables, in lookup order.
pub const KEY_VARS: [&str; 2] = ["PI_SHAKE_JEV_API_KEY", "TYPESAFE_API_KEY"];
/// Extra key variable, used only when the URL's host is `openrouter.ai`
/// (`docs/jev.md#endpoint-and-keys`).
pub const OPENROUTER_KEY_VAR: &str = "OPENROUTER_API_KEY";

/// What the CLI fills in for `--scorer jev`.
#[derive(Clone, Debug, PartialEq)]
pub struct JevOptions {
    /// Full endpoint URL (`--jev-url`); `None` = `https://api.typesafe.ai/v1/systemone`.
    pub url: Option<String>,
    /// Model alias or pinned version (`--jev-model`, default `jev-latest`).
    pub model: String,
    /// Concurrency, timeouts, retries, limits and key (default: [`Transport::default`]).
    pub transport: Transport,
}

impl Default for JevOptions {
    fn default() -> Self {
        JevOptions {
            url: None,
            model: DEFAULT_MODEL.to_string(),
            transport: Transport::default(),
        }
    }
}

/// The System One scorer.
pub type SystemOne = WireScorer<JevOptions>;

impl Protocol for JevOptions {
    const TYPE: &'static str = "SystemOne";
    const NAME: &'static str = "jev";
    const EMPTY_MODEL: &'static str = "the Jev model name is empty";
    const EXTRA_HEADERS: &'static [(&'static str, &'static str)] =
        &[("pi-shake-protocol", PROTOCOL)];

    fn raw_url(&self) -> String {
        match &self.url {
            Some(u) => u.clone(),
            None => format!("{DEFAULT_BASE}{ENDPOINT_PATH}"),
        }
    }
    fn model(&self) -> &str {
        &self.model
    }
    fn transport(&self) -> &Transport {
        &self.transport
    }
    /// `PI_SHAKE_JEV_API_KEY`, `TYPESAFE_API_KEY`; `OPENROUTER_API_KEY` only for openrouter.ai
    /// (never send a key to a host it is not for).
    fn key_vars(url: &reqwest::Url) -> Vec<&'static str> {
        let mut vars = KEY_VARS.to_vec();
        if url.host_str() == Some("openrouter.ai") {
            vars.push(OPENROUTER_KEY_VAR);
        }
        vars
    }
    fn send(
        &self,
        remote: &Remote<'_>,
        req: &ScoreRequest,
        notes: &Mutex<ScoreNotes>,
        progress: &dyn Progress,
    ) -> Result<Vec<PairScore>, ScorerError> {
        let state = state_raw(&req.state_json)?;
        http::score_remote(remote, req, notes, |cfg, sending, fitted, batches| {
            let wire = JevWire {
                sending,
                state: &state,
                model: &self.model,
            };
            http::run_batches(cfg, &wire, fitted, batches, progress)
        })
    }
}

/// The state as a raw JSON value (kept byte for byte); System One takes a string, object or
/// array.
fn state_raw(state_json: &str) -> Result<Box<RawValue>, ScorerError> {
    let raw = RawValue::from_string(state_json.to_string())
        .map_err(|e| http::local_error("config", format!("the state is not valid JSON: {e}")))?;
    match raw.get().trim_start().as_bytes().first() {
        Some(b'{' | b'[' | b'"') => Ok(raw),
        _ => Err(http::local_error(
            "config",
            "the state must be a JSON object, array or string",
        )),
    }
}

struct JevWire<'a> {
    sending: &'a Sending<'a>,
    state: &'a RawValue,
    model: &'a str,
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    state: &'a RawValue,
    questions: Questions<'a>,
}

struct Questions<'a> {
    sending: &'a Sending<'a>,
    batch: &'a [usize],
}

#[derive(Serialize)]
struct Noul<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    instructions: &'a str,
    criteria: Criteria<'a>,
}

#[derive(Serialize)]
struct Criteria<'a> {
    #[serde(rename = "true")]
    yes: &'a str,
    #[serde(rename = "false")]
    no: &'a str,
}

impl Serialize for Questions<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.batch.len() * 2))?;
        for &i in self.batch {
            let Some(p) = self.sending.probe(i) else {
                continue;
            };
            let id = &p.pair.pair_id;
            map.serialize_entry(
                &format!("useful_{id}"),
                &Noul {
                    kind: "noul",
                    instructions: &p.useful_instructions,
                    criteria: Criteria {
                        yes: USEFUL_CRITERIA.0,
                        no: USEFUL_CRITERIA.1,
                    },
                },
            )?;
            map.serialize_entry(
                &format!("full_{id}"),
                &Noul {
                    kind: "noul",
                    instructions: &p.full_instructions,
                    criteria: Criteria {
                        yes: FULL_CRITERIA.0,
                        no: FULL_CRITERIA.1,
                    },
                },
            )?;
        }
        map.end()
    }
}

#[derive(serde::Deserialize)]
struct Response {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    answers: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `usage.input_tokens` / `usage.output_tokens` of a System One answer (a missing output count
/// is 0: System One output is free and some servers leave it out).
fn usage_of(body: &[u8]) -> Option<(u64, u64)> {
    #[derive(serde::Deserialize)]
    struct U {
        input_tokens: u64,
        #[serde(default)]
        output_tokens: u64,
    }
    #[derive(serde::Deserialize)]
    struct R {
        usage: U,
    }
    let r: R = serde_json::from_slice(body).ok()?;
    Some((r.usage.input_tokens, r.usage.output_tokens))
}

/// Reads the noul value for `id`, or says why it is invalid.
fn noul(answers: &serde_json::Map<String, serde_json::Value>, id: &str) -> Result<f64, String> {
    let a = answers
        .get(id)
        .ok_or_else(|| format!("no answer for {id}"))?;
    let kind = a.get("type").and_then(|t| t.as_str());
    if kind != Some("noul") {
        return Err(format!(
            "answer for {id} has type {}, expected noul",
            kind.map_or_else(|| "(none)".to_string(), |k| http::cut(k, 20))
        ));
    }
    let v = a
        .get("noul")
        .and_then(serde_json::Value::as_f64)
        .ok_or_else(|| format!("answer for {id} has no numeric noul"))?;
    if !v.is_finite() || !(0.0..=1.0).contains(&v) {
        return Err(format!("answer for {id} is out of range: {v}"));
    }
    Ok(v)
}

impl Wire for JevWire<'_> {
    fn sending(&self) -> &Sending<'_> {
        self.sending
    }

    fn body(&self, batch: &[usize]) -> Result<Vec<u8>, ScorerError> {
        serde_json::to_vec(&Body {
            model: self.model,
            state: self.state,
            questions: Questions {
                sending: self.sending,
                batch,
            },
        })
        .map_err(|e| http::local_error("internal", format!("cannot encode the request: {e}")))
    }

    fn parse(&self, batch: &[usize], body: &[u8]) -> Result<Vec<PairScore>, String> {
        let resp: Response = serde_json::from_slice(body)
            .map_err(|e| format!("the response is not a System One answer: {e}"))?;
        let answers = resp
            .answers
            .ok_or_else(|| "the response has no answers".to_string())?;
        let model = resp.model.map(|m| http::cut(&m, 100));
        self.sending
            .scores(batch, ScoreSource::Jev, model, |id| noul(&answers, id))
    }

    fn halve_on_invalid(&self) -> bool {
        false
    }

    fn usage(&self, body: &[u8]) -> Option<(u64, u64)> {
        usage_of(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::batch::Limits;
    use crate::score::batch::tests::request;
    use crate::score::{NoProgress, Scorer};

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn default_url_needs_a_key() {
        let e = SystemOne::with_env(JevOptions::default(), &no_env).unwrap_err();
        assert_eq!(e.kind, "missing-key");
        let env = |n: &str| (n == "TYPESAFE_API_KEY").then(|| "sk-ts".to_string());
        let s = SystemOne::with_env(JevOptions::default(), &env).unwrap();
        assert_eq!(s.url(), "https://api.typesafe.ai/v1/systemone");
        assert_eq!(s.receiving_host(), "api.typesafe.ai");
        assert_eq!(s.name(), "jev (jev-latest @ api.typesafe.ai)");
        assert_eq!(s.key(), Some("sk-ts"));
        // PI_SHAKE_JEV_API_KEY wins.
        let env = |n: &str| match n {
            "TYPESAFE_API_KEY" => Some("sk-ts".to_string()),
            "PI_SHAKE_JEV_API_KEY" => Some("sk-pi".to_string()),
            _ => None,
        };
        let s = SystemOne::with_env(JevOptions::default(), &env).unwrap();
        assert_eq!(s.key(), Some("sk-pi"));
        assert!(!format!("{s:?}").contains("sk-pi"));
    }

    #[test]
    fn openrouter_key_only_for_openrouter() {
        let env = |n: &str| (n == OPENROUTER_KEY_VAR).then(|| "sk-or".to_string());
        let opts = JevOptions {
            url: Some("https://openrouter.ai/api/alpha/decisions".into()),
            ..JevOptions::default()
        };
        let s = SystemOne::with_env(opts, &env).unwrap();
        assert_eq!(s.key(), Some("sk-or"));
        let opts = JevOptions {
            url: Some("https://gateway.example/v1/systemone".into()),
            ..JevOptions::default()
        };
        assert_eq!(
            SystemOne::with_env(opts, &env).unwrap_err().kind,
            "missing-key"
        );
    }

    #[test]
    fn loopback_needs_no_key_and_insecure_is_refused() {
        let opts = JevOptions {
            url: Some("http://127.0.0.1:8080/v1/systemone".into()),
            ..JevOptions::default()
        };
        let s = SystemOne::with_env(opts, &no_env).unwrap();
        assert_eq!(s.receiving_host(), "127.0.0.1:8080");
        let opts = JevOptions {
            url: Some("http://jev.example/v1/systemone".into()),
            transport: Transport {
                api_key: Some("k".into()),
                ..Transport::default()
            },
            ..JevOptions::default()
        };
        assert_eq!(
            SystemOne::with_env(opts.clone(), &no_env).unwrap_err().kind,
            "insecure-url"
        );
        let mut opts = opts;
        opts.transport.allow_insecure_http = true;
        assert!(SystemOne::with_env(opts, &no_env).is_ok());
    }

    #[test]
    fn body_embeds_state_verbatim_and_orders_questions() {
        let mut req = request(100, &[50, 60]);
        req.state_json = "{\"b\": 1,   \"a\": [1.50, 2e3]}".into();
        let state = state_raw(&req.state_json).unwrap();
        let limits = Limits::default();
        let sending = Sending::new(&req, &limits, vec![0; 2], vec![]);
        let wire = JevWire {
            sending: &sending,
            state: &state,
            model: "jev-latest",
        };
        let body = String::from_utf8(wire.body(&[0, 1]).unwrap()).unwrap();
        assert!(
            body.contains("\"state\":{\"b\": 1,   \"a\": [1.50, 2e3]}"),
            "{body}"
        );
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let ids: Vec<&String> = v["questions"].as_object().unwrap().keys().collect();
        assert_eq!(ids, ["useful_t0", "full_t0", "useful_t1", "full_t1"]);
        assert_eq!(v["questions"]["full_t1"]["type"], "noul");
        assert!(v["questions"]["full_t1"]["instructions"].is_string());
        assert_eq!(
            v["questions"]["useful_t0"]["criteria"]["true"],
            USEFUL_CRITERIA.0
        );
    }

    #[test]
    fn state_must_be_object_array_or_string() {
        assert!(state_raw("{}").is_ok());
        assert!(state_raw("[1]").is_ok());
        assert!(state_raw("\"s\"").is_ok());
        assert_eq!(state_raw("3").unwrap_err().kind, "config");
        assert_eq!(state_raw("{").unwrap_err().kind, "config");
    }

    #[test]
    fn answer_validation() {
        let req = request(100, &[50]);
        let state = state_raw("{}").unwrap();
        let limits = Limits::default();
        let sending = Sending::new(&req, &limits, vec![0], vec![]);
        let wire = JevWire {
            sending: &sending,
            state: &state,
            model: "m",
        };
        let ok = br#"{"model":"jev-1.13.0","answers":{"useful_t0":{"type":"noul","noul":0.5},"full_t0":{"type":"noul","noul":0},"extra":{"type":"noul","noul":1}}}"#;
        let s = wire.parse(&[0], ok).unwrap();
        assert_eq!(s[0].useful, 0.5);
        assert_eq!(s[0].full, 0.0);
        assert_eq!(s[0].model.as_deref(), Some("jev-1.13.0"));
        let cases: [(&[u8], &str); 6] = [
            (br#"{"answers":{"useful_t0":{"type":"noul","noul":0.5}}}"#, "no answer for full_t0"),
            (
                br#"{"answers":{"useful_t0":{"type":"noul","noul":1.01},"full_t0":{"type":"noul","noul":0}}}"#,
                "out of range",
            ),
            (
                br#"{"answers":{"useful_t0":{"type":"noul","noul":-0.1},"full_t0":{"type":"noul","noul":0}}}"#,
                "out of range",
            ),
            (
                br#"{"answers":{"useful_t0":{"type":"score","noul":0.5},"full_t0":{"type":"noul","noul":0}}}"#,
                "expected noul",
            ),
            (br#"{"model":"x"}"#, "no answers"),
            (b"<html>", "not a System One answer"),
        ];
        for (body, want) in cases {
            let e = wire.parse(&[0], body).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let mut req = request(100, &[50, 50]);
        req.probes[1].pair.pair_id = "t0".into();
        let s = SystemOne::with_env(
            JevOptions {
                url: Some("http://127.0.0.1:9/v1/systemone".into()),
                ..JevOptions::default()
            },
            &|_| None,
        )
        .unwrap();
        // Refused before anything is sent (nothing listens on port 9).
        assert_eq!(s.score(&req, &NoProgress).unwrap_err().kind, "config");
    }
}
