//! `pi-shake compact --scorer jev` end to end against a System One mock on 127.0.0.1: the
//! request carries the key and the protocol header, never leaks into output, and real pi loads
//! the compacted file.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::common::*;

/// A one-purpose HTTP/1.1 server: answers every POST with a score for every question id
/// (`useful_*` 0.8 for even pair numbers, 0.2 for odd; `full_*` 0.3). Records request bodies.
/// Recorded requests: (header lines, JSON body).
type Seen = Arc<Mutex<Vec<(Vec<String>, Value)>>>;

pub fn mock() -> (String, Seen) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1/systemone", l.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let rec = seen.clone();
    std::thread::spawn(move || {
        for stream in l.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut headers = Vec::new();
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let t = line.trim_end().to_string();
                if t.is_empty() {
                    break;
                }
                if let Some(v) = t.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                headers.push(t);
            }
            let mut body = vec![0u8; len];
            if r.read_exact(&mut body).is_err() {
                continue;
            }
            let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let mut answers = serde_json::Map::new();
            if let Some(q) = req["questions"].as_object() {
                for id in q.keys() {
                    let n: u64 = id
                        .rsplit('t')
                        .next()
                        .and_then(|x| x.parse().ok())
                        .unwrap_or(0);
                    let v = if id.starts_with("useful_") {
                        if n.is_multiple_of(2) { 0.8 } else { 0.2 }
                    } else {
                        0.3
                    };
                    answers.insert(id.clone(), json!({"type": "noul", "noul": v}));
                }
            }
            rec.lock().unwrap().push((headers, req));
            let out = json!({"model": "jev-1.13.0", "answers": answers, "usage": {"input_tokens": 1, "output_tokens": 0}}).to_string();
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-typesafe-request-id: req-1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                out.len(),
                out
            );
        }
    });
    (url, seen)
}

#[test]
fn compact_with_jev_against_a_mock_loads_in_pi() {
    let (url, seen) = mock();
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let secret = "sk-test-DO-NOT-PRINT-1234";
    let r = pi_shake_env(
        &[
            "compact",
            "--json",
            "--scorer",
            "jev",
            "--jev-url",
            &url,
            f.to_str().unwrap(),
        ],
        &[("PI_SHAKE_JEV_API_KEY", secret)],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !r.stdout.contains(secret) && !r.stderr.contains(secret),
        "the key leaked into output"
    );
    assert!(
        r.stderr.contains("127.0.0.1"),
        "the receiving host must be named: {}",
        r.stderr
    );
    let rep = r.json();
    assert!(
        rep["scorer"].as_str().unwrap().starts_with("jev"),
        "{}",
        rep["scorer"]
    );
    let reqs = seen.lock().unwrap();
    assert!(!reqs.is_empty());
    assert_eq!(
        reqs.len() as u64,
        rep["plannedRequests"].as_u64().unwrap(),
        "requests = planned"
    );
    let state0 = reqs[0].1["state"].to_string();
    for (headers, body) in reqs.iter() {
        let h = headers.join("\n").to_ascii_lowercase();
        assert!(h.contains(&format!(
            "authorization: bearer {}",
            secret.to_ascii_lowercase()
        )));
        assert!(h.contains("pi-shake-protocol: jev-v1"));
        assert_eq!(
            body["state"].to_string(),
            state0,
            "state must be identical across requests"
        );
        for (id, q) in body["questions"].as_object().unwrap() {
            assert!(id.starts_with("useful_t") || id.starts_with("full_t"));
            assert!(q["instructions"].is_string());
        }
    }
    // Scores decided the actions: odd pairs dropped, even pairs stubbed (full 0.3 < 0.5).
    let pairs = rep["pairs"].as_array().unwrap();
    assert!(pairs.iter().any(|p| p["action"] == json!("drop")));
    assert!(pairs.iter().any(|p| p["action"] == json!("stub")));
    assert!(
        pairs
            .iter()
            .all(|p| p["action"] != json!("keep") || p["source"] != json!("jev"))
    );
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(!text.contains(secret), "the key leaked into the session");
    if need_oracle() {
        let pi = oracle1(&f, &[]);
        assert_eq!(pi["ok"], json!(true), "{}", pi["error"]);
        assert_eq!(pi["projection"][1]["role"], json!("compactionSummary"));
    }
}

#[test]
fn jev_failure_writes_nothing_and_exits_5() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let before = std::fs::read(&f).unwrap();
    // Nothing listens on this port.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1/systemone", l.local_addr().unwrap());
    drop(l);
    let r = pi_shake_env(
        &[
            "compact",
            "--scorer",
            "jev",
            "--jev-url",
            &url,
            "--timeout",
            "2",
            f.to_str().unwrap(),
        ],
        &[
            ("PI_SHAKE_JEV_API_KEY", "k"),
            ("PI_SHAKE_TEST_NO_JITTER", "1"),
        ],
    );
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert_eq!(std::fs::read(&f).unwrap(), before);
    // --on-scorer-error offline falls back and writes.
    let r = pi_shake_env(
        &[
            "compact",
            "--json",
            "--scorer",
            "jev",
            "--jev-url",
            &url,
            "--timeout",
            "2",
            "--on-scorer-error",
            "offline",
            f.to_str().unwrap(),
        ],
        &[
            ("PI_SHAKE_JEV_API_KEY", "k"),
            ("PI_SHAKE_TEST_NO_JITTER", "1"),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.json()["scorer"].as_str().unwrap().contains("heuristic"));
}

#[test]
fn plain_http_to_a_remote_host_is_refused() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let before = std::fs::read(&f).unwrap();
    let r = pi_shake_env(
        &[
            "compact",
            "--scorer",
            "jev",
            "--jev-url",
            "http://scorer.example.invalid/v1/systemone",
            f.to_str().unwrap(),
        ],
        &[("PI_SHAKE_JEV_API_KEY", "k")],
    );
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("http"), "{}", r.stderr);
    assert_eq!(std::fs::read(&f).unwrap(), before);
}
