//! Strict flags: every value pi-shake cannot honour exactly is a usage error (exit 2, nothing
//! read or sent), and the privacy notice naming the host that receives session content is
//! printed even with `--quiet`.

use crate::common::*;
use crate::jev_cli::mock;

fn long_session() -> std::path::PathBuf {
    copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"))
}

/// A usage error that names `needle`, with the file untouched.
fn usage_error(args: &[&str], env: &[(&str, &str)], needle: &str) {
    let f = long_session();
    let before = std::fs::read(&f).unwrap();
    let mut all = args.to_vec();
    all.push(f.to_str().unwrap());
    let r = pi_shake_env(&all, env);
    assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
    assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn threshold_must_be_within_0_and_1() {
    for bad in ["2", "-0.1", "1.0001", "nan", "inf", "half"] {
        usage_error(
            &["compact", "--dry-run", "--threshold", bad],
            &[],
            "--threshold",
        );
    }
    for ok in ["0", "0.25", "1"] {
        let f = long_session();
        let r = pi_shake(&[
            "compact",
            "--dry-run",
            "--json",
            "--threshold",
            ok,
            f.to_str().unwrap(),
        ]);
        assert_eq!(r.code, 0, "--threshold {ok}: {}", r.stderr);
        assert_eq!(r.json()["threshold"], ok.parse::<f64>().unwrap());
    }
}

#[test]
fn chat_scorer_needs_a_chat_url() {
    // Never a default host: not even with an OpenAI key in the environment, not even dry.
    let key = [("OPENAI_API_KEY", "sk-test-not-sent")];
    usage_error(
        &["compact", "--scorer", "chat", "--chat-model", "m"],
        &key,
        "--chat-url",
    );
    usage_error(
        &[
            "compact",
            "--dry-run",
            "--scorer",
            "chat",
            "--chat-model",
            "m",
        ],
        &key,
        "--chat-url",
    );
}

#[test]
fn scores_in_needs_scorer_replay() {
    let f = long_session();
    let scores = f.with_extension("scores.jsonl");
    let r = pi_shake(&[
        "compact",
        "--dry-run",
        "--scores-out",
        scores.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let s = scores.to_str().unwrap();
    usage_error(&["compact", "--scores-in", s], &[], "--scorer replay");
    usage_error(
        &[
            "compact",
            "--dry-run",
            "--scorer",
            "offline",
            "--scores-in",
            s,
        ],
        &[],
        "--scorer replay",
    );
    usage_error(
        &["compact", "--scorer", "jev", "--scores-in", s],
        &[],
        "--scorer replay",
    );
    // With replay it is read.
    let r = pi_shake(&[
        "compact",
        "--dry-run",
        "--json",
        "--scorer",
        "replay",
        "--scores-in",
        s,
        f.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn quiet_still_names_the_receiving_host() {
    let (url, seen) = mock();
    let host = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    for extra in [&["--quiet"][..], &["--quiet", "--json"][..]] {
        let f = long_session();
        let mut args = extra.to_vec();
        args.extend(["compact", "--scorer", "jev", "--jev-url", &url]);
        args.push(f.to_str().unwrap());
        let r = pi_shake_env(&args, &[("PI_SHAKE_JEV_API_KEY", "sk-test-quiet")]);
        assert_eq!(r.code, 0, "{extra:?}: {}", r.stderr);
        assert!(
            r.stderr
                .contains(&format!("sending session content to {host}")),
            "{extra:?}: the privacy notice is missing: {:?}",
            r.stderr
        );
        if extra.len() == 1 {
            assert!(r.stdout.is_empty(), "--quiet: {}", r.stdout);
        }
    }
    assert!(!seen.lock().unwrap().is_empty(), "the mock was asked");
}
