//! The line parser through the crate API: [`Session::from_bytes`] on small hand-built files.
//! (The e2e suite compares whole real sessions with pi's own loader.)

use std::path::Path;

use super::*;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T09:15:00.000Z","cwd":"/p"}"#;

fn read(text: &str) -> Session {
    Session::from_bytes(text.as_bytes(), Path::new("t.jsonl")).unwrap()
}

fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    serde_json::json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-03-01T09:15:01.000Z",
        "message":{"role":"user","content":text,"timestamp":1}})
    .to_string()
}

fn codes(s: &Session) -> Vec<&'static str> {
    s.problems.iter().map(|p| p.code).collect()
}

#[test]
fn entries_keep_ids_parents_lines_and_offsets() {
    let a = user("a", None, "hello");
    let b = user("b", Some("a"), "again");
    let text = format!("{HEADER}\n{a}\n{b}\n");
    let s = read(&text);
    assert_eq!(s.header.id, "s1");
    assert_eq!(s.header.version, Some(3.0));
    assert_eq!(s.header_line, 1);
    assert_eq!(s.entries.len(), 2);
    let e = &s.entries[1];
    assert_eq!(e.line, 3);
    assert_eq!(e.id.as_ref().map(Key::display), Some("b"));
    assert_eq!(e.parent.as_ref().map(Key::display), Some("a"));
    assert_eq!(&*e.ty, "message");
    // Offsets and lengths address the line's bytes exactly.
    let (o, l) = (e.offset as usize, e.len as usize);
    assert_eq!(&text[o..o + l], b);
    assert_eq!(e.timestamp_ms, Some(1_772_356_501_000));
    assert_eq!(s.tail, Tail::Newline);
    assert_eq!(s.lines, 3);
    assert_eq!(s.size, text.len() as u64);
    assert!(s.problems.is_empty(), "{:?}", s.problems);
    assert_eq!(s.legacy(), None);
}

#[test]
fn the_user_message_is_measured_in_utf16_units() {
    let s = read(&format!("{HEADER}\n{}\n", user("a", None, "😀😀😀")));
    let m = s.entries[0].msg().unwrap();
    assert_eq!(m.role_name, "user");
    // Six UTF-16 units → pi's estimate ceil(6 / 4) = 2.
    assert_eq!(m.content.user_chars(), Some(6));
}

#[test]
fn blank_malformed_and_falsy_lines_are_skipped_like_pi() {
    let a = user("a", None, "x");
    let text = format!("{HEADER}\n\n   \u{feff}\n{{not json\nnull\n0\nfalse\n\"\"\n{a}\n");
    let s = read(&text);
    assert_eq!(s.entries.len(), 1, "only the message is an entry");
    assert_eq!(s.entries[0].line, 9);
    // The malformed line is reported with its line number; blank and falsy lines silently.
    assert!(
        s.problems
            .iter()
            .any(|p| p.code == "malformed-line" && p.line == Some(4)),
        "{:?}",
        s.problems
    );
}

#[test]
fn non_object_values_are_entries_and_a_second_header_is_not() {
    let a = user("a", None, "x");
    let text = format!("{HEADER}\n{a}\n[1,2]\n{HEADER}\n");
    let s = read(&text);
    assert!(matches!(s.entries.last().unwrap().body, Body::NonObject));
    assert!(codes(&s).contains(&"non-object-line"));
    assert!(codes(&s).contains(&"second-header"));
    assert_eq!(s.entries.len(), 2);
}

#[test]
fn lone_surrogates_are_repaired_and_duplicate_keys_keep_the_last() {
    let line = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-03-01T09:15:01.000Z","message":{"role":"user","content":"x\ud83dy","content":"abcdefgh","timestamp":1}}"#;
    let s = read(&format!("{HEADER}\n{line}\n"));
    assert_eq!(s.entries.len(), 1);
    // The later `content` wins (8 units), as with JSON.parse.
    assert_eq!(s.entries[0].msg().unwrap().content.user_chars(), Some(8));
    assert!(codes(&s).contains(&"lone-surrogate"), "{:?}", s.problems);
    assert!(s.blocking_problems().next().is_none());
}

#[test]
fn how_the_file_ends() {
    let a = user("a", None, "x");
    let unterminated = read(&format!("{HEADER}\n{a}"));
    assert_eq!(unterminated.tail, Tail::Unterminated);
    assert_eq!(unterminated.entries.len(), 1);
    assert!(codes(&unterminated).contains(&"no-final-newline"));

    let torn = read(&format!("{HEADER}\n{a}\n{}", &a[..a.len() / 2]));
    assert_eq!(torn.tail, Tail::Torn);
    assert_eq!(torn.entries.len(), 1);
    assert!(codes(&torn).contains(&"torn-last-line"));
    assert!(torn.blocking_problems().any(|p| p.code == "torn-last-line"));
}

#[test]
fn crlf_lines_are_counted_and_still_parse() {
    let a = user("a", None, "x");
    let s = read(&format!("{HEADER}\r\n{a}\r\n"));
    assert_eq!(s.entries.len(), 1);
    assert_eq!(s.crlf_lines, 2);
}

#[test]
fn legacy_versions_are_recognised() {
    let v1 = read("{\"type\":\"session\",\"id\":\"s\"}\n");
    assert_eq!(v1.legacy(), Some(Legacy::V1));
    let v2 = read("{\"type\":\"session\",\"version\":2,\"id\":\"s\"}\n");
    assert_eq!(v2.legacy(), Some(Legacy::V2));
    assert!(codes(&v2).contains(&"legacy-version"));
}

#[test]
fn files_pi_rejects_are_errors_naming_the_file() {
    for bad in [
        "",
        "\n\n",
        "{\"type\":\"message\",\"id\":\"a\"}\n",
        "{\"type\":\"session\",\"id\":7}\n",
        "\u{feff}{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n",
    ] {
        let err = Session::from_bytes(bad.as_bytes(), Path::new("bad.jsonl"));
        match err {
            Ok(s) => panic!("{bad:?} was accepted: {:?}", s.header),
            Err(e) => assert!(format!("{e:#}").contains("bad.jsonl"), "{e:#}"),
        }
    }
}

#[test]
fn a_header_pi_skips_is_named_in_the_error() {
    let a = user("a", None, "x");
    let err = |text: String| match Session::from_bytes(text.as_bytes(), Path::new("bad.jsonl")) {
        Ok(s) => panic!("{text:?} was accepted: {:?}", s.header),
        Err(e) => format!("{e:#}"),
    };
    let bom = "line 1 starts with a UTF-8 byte-order mark";
    let torn = "; line 1 is not valid JSON and pi skips it";
    for (text, prefix, hint) in [
        // A byte-order mark makes the header line invalid JSON: pi skips it, meets a message.
        (
            format!("\u{feff}{HEADER}\n{a}\n"),
            "bad.jsonl:2: not a pi session",
            bom,
        ),
        (
            format!("{{\"type\":\"sess\n{a}\n"),
            "bad.jsonl:2: not a pi session",
            torn,
        ),
        // A file whose only line is a header behind a byte-order mark.
        (
            format!("\u{feff}{HEADER}\n"),
            "bad.jsonl: not a pi session",
            bom,
        ),
    ] {
        let e = err(text);
        assert!(e.starts_with(prefix), "{e}");
        assert!(e.contains(hint), "{e}");
        if hint == torn {
            assert!(e.ends_with(torn), "{e}");
        }
    }
    // Without a skipped line the error says only what it found.
    let plain = err(format!("{a}\n"));
    assert!(!plain.contains("pi skips"), "{plain}");
}

#[test]
fn counts_by_type_are_sorted() {
    let a = user("a", None, "x");
    let c = r#"{"type":"custom","customType":"k","data":{},"id":"c","parentId":"a","timestamp":"2026-03-01T09:15:02.000Z"}"#;
    let s = read(&format!("{HEADER}\n{a}\n{c}\n[0]\n"));
    assert_eq!(
        s.counts_by_type(),
        vec![
            ("(non-object)".to_string(), 1),
            ("custom".to_string(), 1),
            ("message".to_string(), 1)
        ]
    );
}

#[test]
fn an_entry_of_odd_shapes_says_which_field_and_why() {
    let a = user("a", None, "hello");
    let mut b: serde_json::Value = serde_json::from_str(&user("b", Some("a"), "x")).unwrap();
    b["message"]["content"] = serde_json::json!([{"type": 5, "text": "hi"}]);
    let mut c: serde_json::Value = serde_json::from_str(&user("c", Some("b"), "y")).unwrap();
    c["timestamp"] = serde_json::json!({"a": null});
    let d = r#"{"type":"message","id":"d","parentId":"c","timestamp":"2026-03-01T09:15:02.000Z"}"#;
    let s = read(&format!("{HEADER}\n{a}\n{b}\n{c}\n{d}\n"));
    let why: Vec<(&str, &str)> = s
        .entries
        .iter()
        .filter_map(|e| match &e.body {
            Body::Odd { ty, why } => Some((&**ty, &**why)),
            _ => None,
        })
        .collect();
    assert_eq!(
        why,
        [
            (
                "message",
                "`message.content[0].type`: invalid type: integer `5`, expected a string"
            ),
            (
                "message",
                "`timestamp`: invalid type: map, expected a string"
            ),
            ("message", "no `message`"),
        ]
    );
    // The tree facts stay: ids and parents of the odd entries are indexed.
    assert_eq!(s.entries[3].parent.as_ref().map(Key::display), Some("c"));
}
