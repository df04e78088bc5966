//! `pi-shake compact --scorer jev` end to end against a System One mock on 127.0.0.1: the
//! request carries the key and the protocol header, never leaks into output, and real pi loads
//! the compacted file; usage lands in `--json` and `details`; at most `--concurrency` (4)
//! requests are in flight; question ids stay put across runs; a replay that does not match says
//! what does not.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::*;

/// A one-purpose HTTP/1.1 server (one thread per connection): answers every POST with a score
/// for every question id (`useful_*` 0.8 for even pair numbers, 0.2 for odd; `full_*` 0.3) and
/// `usage.input_tokens` 7, after holding the answer for `delay`. Records request bodies and the
/// most requests seen in flight at once.
/// Recorded requests: (header lines, JSON body).
type Seen = Arc<Mutex<Vec<(Vec<String>, Value)>>>;

struct Mock {
    url: String,
    seen: Seen,
    max_in_flight: Arc<AtomicUsize>,
}

pub fn mock() -> (String, Seen) {
    let m = mock_with(Duration::ZERO);
    (m.url, m.seen)
}

/// `useful_t123_2` → 123.
fn pair_number(id: &str) -> u64 {
    let after = id.split_once("_t").map_or("", |x| x.1);
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

fn mock_with(delay: Duration) -> Mock {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1/systemone", l.local_addr().unwrap());
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let max_in_flight = Arc::new(AtomicUsize::new(0));
    let current = Arc::new(AtomicUsize::new(0));
    let (rec, max) = (seen.clone(), max_in_flight.clone());
    std::thread::spawn(move || {
        for stream in l.incoming() {
            let Ok(mut s) = stream else { continue };
            let (rec, max, current) = (rec.clone(), max.clone(), current.clone());
            std::thread::spawn(move || {
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
                    return;
                }
                let now = current.fetch_add(1, Ordering::SeqCst) + 1;
                max.fetch_max(now, Ordering::SeqCst);
                let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let mut answers = serde_json::Map::new();
                if let Some(q) = req["questions"].as_object() {
                    for id in q.keys() {
                        let v = if id.starts_with("useful_") {
                            if pair_number(id).is_multiple_of(2) {
                                0.8
                            } else {
                                0.2
                            }
                        } else {
                            0.3
                        };
                        answers.insert(id.clone(), json!({"type": "noul", "noul": v}));
                    }
                }
                rec.lock().unwrap().push((headers, req));
                std::thread::sleep(delay);
                let out = json!({"model": "jev-1.13.0", "answers": answers, "usage": {"input_tokens": 7, "output_tokens": 0}}).to_string();
                current.fetch_sub(1, Ordering::SeqCst);
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-typesafe-request-id: req-1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                    out.len(),
                    out
                );
            });
        }
    });
    Mock {
        url,
        seen,
        max_in_flight,
    }
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
    // Usage: summed in --json and in the compaction's details.
    let n = reqs.len() as u64;
    assert_eq!(rep["usage"]["requests"], json!(n));
    assert_eq!(rep["usage"]["answered"], json!(n));
    assert_eq!(rep["usage"]["inputTokens"], json!(7 * n));
    assert!(rep["usage"]["estimatedInputTokens"].as_u64().unwrap() > 0);
    assert_eq!(
        rep["usage"]["perRequest"].as_array().unwrap().len() as u64,
        n
    );
    let last: Value =
        serde_json::from_str(std::fs::read_to_string(&f).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], json!("compaction"));
    assert_eq!(last["details"]["usage"], rep["usage"]);
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

/// A session of `pairs` bash calls with distinct, symbol-heavy 12,000-char outputs, then a
/// short tail: many Jev batches.
fn many_pairs_session(dir: &Path, pairs: usize) -> std::path::PathBuf {
    let mut lines = vec![
        json!({"type":"session","version":3,"id":"0195f000-0000-7000-8000-000000000001","timestamp":"2026-11-30T06:00:00.000Z","cwd":"/tmp/many"}),
    ];
    let mut parent = Value::Null;
    let mut n = 0u32;
    let mut push = |lines: &mut Vec<Value>, msg: Value| {
        n += 1;
        let id = format!("e{n:07}");
        lines.push(json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-11-30T06:00:01.000Z","message":msg}));
        parent = json!(id);
    };
    let asst = |content: Value| json!({"role":"assistant","content":content,"api":"openai-completions","provider":"mock","model":"m","stopReason":"toolUse","timestamp":1});
    push(
        &mut lines,
        json!({"role":"user","content":"inspect every log","timestamp":1}),
    );
    for i in 0..pairs {
        let call = format!("call_{i}");
        push(
            &mut lines,
            asst(
                json!([{"type":"toolCall","id":call,"name":"bash","arguments":{"command":format!("cat logs/run{i}.log")}}]),
            ),
        );
        let out: String = (0..400)
            .map(|k| {
                format!(
                    "[{i:04}:{k:04}] 0x{:08x} ok={}; ",
                    (i * 7919 + k * 104_729) % 0xffff_ffff,
                    k % 7
                )
            })
            .collect::<String>()
            .chars()
            .take(12_000)
            .collect();
        push(
            &mut lines,
            json!({"role":"toolResult","toolCallId":call,"toolName":"bash","content":[{"type":"text","text":out}],"isError":false,"timestamp":1}),
        );
    }
    for t in 0..3 {
        push(
            &mut lines,
            json!({"role":"user","content":format!("next step {t}"),"timestamp":1}),
        );
        let mut a =
            asst(json!([{"type":"text","text":format!("done {t}: {}", "words ".repeat(800))}]));
        a["stopReason"] = json!("stop");
        push(&mut lines, a);
    }
    let p = dir.join("many.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, text).unwrap();
    p
}

fn compact_jev(url: &str, f: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["compact", "--json", "--scorer", "jev", "--jev-url", url];
    args.extend_from_slice(extra);
    args.push(f.to_str().unwrap());
    let r = pi_shake_env(&args, &[("PI_SHAKE_JEV_API_KEY", "k")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.json()
}

#[test]
fn at_most_four_requests_in_flight_and_concurrency_is_honoured() {
    let dir = temp_dir("jev-inflight");
    let src = many_pairs_session(&dir, 120);
    for (flag, want) in [(None, 4usize), (Some("2"), 2), (Some("1"), 1)] {
        let f = copy_fixture(&src);
        let m = mock_with(Duration::from_millis(400));
        let mut extra = vec!["--keep-recent-tokens", "3000"];
        if let Some(n) = flag {
            extra.extend(["--concurrency", n]);
        }
        let rep = compact_jev(&m.url, &f, &extra);
        let sent = m.seen.lock().unwrap().len();
        assert!(sent >= 8, "many batches expected, got {sent}");
        assert_eq!(rep["plannedRequests"], json!(sent));
        assert_eq!(
            m.max_in_flight.load(Ordering::SeqCst),
            want,
            "--concurrency {flag:?}"
        );
    }
}

/// Line (1-based) of every entry id in the file.
fn lines_by_id(f: &Path) -> std::collections::HashMap<String, usize> {
    std::fs::read_to_string(f)
        .unwrap()
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let v: Value = serde_json::from_str(l).ok()?;
            Some((v["id"].as_str()?.to_string(), i + 1))
        })
        .collect()
}

/// Appends a user turn and an answer at the leaf.
fn append_turn(f: &Path, tag: &str) {
    let text = std::fs::read_to_string(f).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let leaf = last["id"].as_str().unwrap().to_string();
    let u = json!({"type":"message","id":format!("{tag}0001"),"parentId":leaf,"timestamp":"2026-11-30T07:00:00.000Z","message":{"role":"user","content":"one more question about the parser","timestamp":1}});
    let a = json!({"type":"message","id":format!("{tag}0002"),"parentId":format!("{tag}0001"),"timestamp":"2026-11-30T07:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The parser is fine."}],"api":"openai-completions","provider":"mock","model":"mock-coder","stopReason":"stop","timestamp":2}});
    let mut out = std::fs::OpenOptions::new().append(true).open(f).unwrap();
    writeln!(out, "{u}\n{a}").unwrap();
}

fn dry(f: &Path, extra: &[&str]) -> crate::common::Run {
    let mut args = vec!["compact", "--dry-run", "--json"];
    args.extend_from_slice(extra);
    args.push(f.to_str().unwrap());
    pi_shake(&args)
}

#[test]
fn question_ids_stay_put_across_cuts_and_new_turns() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let ids = |v: &Value| -> Vec<(String, String)> {
        v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["callEntry"].as_str().unwrap().to_string(),
                    p["id"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let a = ids(&dry(&f, &[]).json());
    let b = ids(&dry(&f, &["--keep-recent-tokens", "8000"]).json());
    append_turn(&f, "ab12");
    let c = ids(&dry(&f, &[]).json());
    let line = lines_by_id(&f);
    assert!(
        !a.is_empty() && b.len() > a.len(),
        "{} {}",
        a.len(),
        b.len()
    );
    for (entry, id) in a.iter().chain(&b).chain(&c) {
        let l = line[entry];
        assert!(
            *id == format!("t{l}") || id.starts_with(&format!("t{l}_")),
            "{id} is not from line {l}"
        );
    }
    // The ids of one entry's calls are the same in every run that has that entry.
    let of = |v: &[(String, String)], entry: &str| -> Vec<String> {
        v.iter()
            .filter(|(e, _)| e == entry)
            .map(|(_, id)| id.clone())
            .collect()
    };
    for (entry, _) in &a {
        for other in [&b, &c] {
            let theirs = of(other, entry);
            if !theirs.is_empty() {
                assert_eq!(of(&a, entry), theirs, "pairs of entry {entry} renumbered");
            }
        }
    }
    let common = a.iter().filter(|x| b.contains(x)).count();
    assert!(common >= a.len() / 2, "{common} of {}", a.len());
    // After a compaction the next region starts at its first kept entry: its pairs keep the ids
    // they had (positional ids would restart at t1).
    let r = pi_shake(&["compact", "--json", "--force", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["compacted"], json!(true));
    append_turn(&f, "ef56");
    let d = ids(&dry(&f, &["--keep-recent-tokens", "8000"]).json());
    let shared: Vec<&(String, String)> = d.iter().filter(|(e, _)| !of(&b, e).is_empty()).collect();
    assert!(!shared.is_empty(), "{d:?}");
    for (entry, _) in shared {
        assert_eq!(
            of(&b, entry),
            of(&d, entry),
            "pairs of entry {entry} renumbered"
        );
    }
}

#[test]
fn replay_that_does_not_match_says_what_and_lax_scores_the_rest_offline() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let scores = f.with_extension("scores.jsonl");
    let r = dry(&f, &["--scores-out", scores.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let recorded = std::fs::read_to_string(&scores).unwrap();
    let first: Value = serde_json::from_str(recorded.lines().next().unwrap()).unwrap();
    let dropped = first["pair"].as_str().unwrap().to_string();
    // Leave the first pair out of the file.
    let rest: String = recorded.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&scores, rest).unwrap();
    let replay = [
        "--scorer",
        "replay",
        "--scores-in",
        scores.to_str().unwrap(),
    ];

    let before = std::fs::read(&f).unwrap();
    let mut args = vec!["compact"];
    args.extend(replay);
    args.push(f.to_str().unwrap());
    let r = pi_shake(&args);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("not recorded: {dropped}")),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(&f).unwrap(), before, "nothing written");

    let mut args = replay.to_vec();
    args.push("--scores-in-lax");
    let v = dry(&f, &args).json();
    let p = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == json!(dropped))
        .unwrap();
    assert_eq!(p["source"], json!("offline"));
    assert_eq!(v["offlinePairs"][0]["pair"], json!(dropped));
    let w = v["warnings"].to_string();
    assert!(
        w.contains("no matching recorded score") && w.contains(&dropped),
        "{w}"
    );

    // A new turn changes the shared state: strict replay names the pairs and the cause.
    append_turn(&f, "cd34");
    let r = dry(&f, &replay);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(
        r.stderr.contains("the shared state differs"),
        "{}",
        r.stderr
    );
    let v = dry(&f, &args).json();
    assert!(
        v["warnings"]
            .to_string()
            .contains("accepted by --scores-in-lax"),
        "{}",
        v["warnings"]
    );
}
