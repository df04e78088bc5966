//! Error bodies (`docs/jev.md#error-bodies`: ours, OpenAI / vLLM / llama.cpp, Anthropic, Ollama, FastAPI, bare,
//! plain text), their classification (retry, too large → split, fatal; status always wins),
//! request ids, and message cutting / key scrubbing.

use reqwest::header::HeaderMap;

use crate::score::ScorerError;

/// Server messages are cut to this many characters.
pub const MESSAGE_MAX_CHARS: usize = 300;
/// Request id headers, in lookup order.
pub const REQUEST_ID_HEADERS: [&str; 3] = ["x-typesafe-request-id", "request-id", "x-request-id"];

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

/// Parses an error body (`docs/jev.md#error-bodies`). Never fails: unknown shapes give the trimmed text.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::http::test_headers as headers;

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
}
