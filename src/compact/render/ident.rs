//! How a call is named in a summary ([`ident`]): the arguments that identify it on one line,
//! paths and commands under the session's cwd named relative to it ([`relative_to`]). Pure.

use serde_json::Value;

use crate::compact::region::Pair;
use crate::compact::text::{cap_middle, clen};

/// `s` as inline code (a double-backtick span when it holds a backtick).
pub(super) fn inline_code(s: &str) -> String {
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

/// `path` relative to `cwd` when it lies under it (either separator), else `path`.
pub fn relative_to<'a>(path: &'a str, cwd: Option<&str>) -> &'a str {
    let Some(c) = cwd
        .map(|c| c.trim_end_matches(['/', '\\']))
        .filter(|c| !c.is_empty())
    else {
        return path;
    };
    path.strip_prefix(c)
        .and_then(|r| r.strip_prefix(['/', '\\']))
        .filter(|r| !r.is_empty())
        .unwrap_or(path)
}

/// `cmd` with every path under `cwd` that starts a word (after a space, quote, `=` or `(`)
/// named relative to it: the command means the same where it ran, in fewer chars.
fn relative_command(cmd: &str, cwd: &str) -> String {
    let c = cwd.trim_end_matches(['/', '\\']);
    if c.is_empty() {
        return cmd.to_string();
    }
    let mut out = String::with_capacity(cmd.len());
    let mut rest = cmd;
    while let Some(i) = rest.find(c) {
        let after = &rest[i + c.len()..];
        let starts_word = rest[..i]
            .chars()
            .next_back()
            .or_else(|| out.chars().next_back())
            .is_none_or(|b| matches!(b, ' ' | '"' | '\'' | '=' | '('));
        let sub = after
            .strip_prefix(['/', '\\'])
            .filter(|r| r.starts_with(|ch: char| !ch.is_whitespace() && ch != '"' && ch != '\''));
        out.push_str(&rest[..i]);
        match (starts_word, sub) {
            (true, Some(r)) => rest = r,
            _ => {
                out.push_str(c);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The arguments that identify a call, on one line: the command of `bash`; the path, pattern,
/// query or URL, then the other short scalar arguments as `key=value`; else the arguments as
/// compact JSON. Cut to 240 chars. Under the session's `cwd` a path is named relative to it, a
/// command's leading `cd <cwd> && ` is left out (the call ran there anyway) and the paths in
/// it under the cwd are named relative to it.
pub fn ident(p: &Pair, cwd: Option<&str>) -> String {
    ident_of(&p.args, cwd)
}

/// [`ident`] of a call's arguments (`pi-shake recall` names a call the way a summary does).
pub fn ident_of(args: &Value, cwd: Option<&str>) -> String {
    let short = |k: &str, v: &str| -> String {
        match (k, cwd) {
            ("path" | "file_path", _) => relative_to(v, cwd).to_string(),
            ("command" | "cmd", Some(c)) => relative_command(
                v.strip_prefix("cd ")
                    .and_then(|r| r.strip_prefix(c.trim_end_matches(['/', '\\'])))
                    .and_then(|r| r.strip_prefix(" && "))
                    .filter(|r| !r.trim().is_empty())
                    .unwrap_or(v),
                c,
            ),
            _ => v.to_string(),
        }
    };
    const MAIN: &[&str] = &[
        "command",
        "path",
        "file_path",
        "pattern",
        "query",
        "url",
        "cmd",
    ];
    let raw = match args {
        Value::Object(m) => {
            let mut parts: Vec<String> = Vec::new();
            for k in MAIN {
                if let Some(v) = m.get(*k).and_then(Value::as_str) {
                    parts.push(short(k, v));
                }
            }
            let main_found = !parts.is_empty();
            for (k, v) in m {
                if MAIN.contains(&k.as_str()) {
                    continue;
                }
                let t = match v {
                    Value::String(s) if clen(s) <= 80 && !s.contains('\n') => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => continue,
                };
                parts.push(format!("{k}={t}"));
            }
            if parts.is_empty() || (!main_found && m.len() > parts.len()) {
                crate::compact::region::normalised_args(args)
            } else {
                parts.join(" ")
            }
        }
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let mut lines = raw.lines();
    let first = lines.next().unwrap_or("").trim_end().to_string();
    let more = lines.count();
    let one = if more > 0 {
        format!("{first} …(+{more} lines)")
    } else {
        first
    };
    inline_code(&cap_middle(&one, 240).replace('\n', " "))
}
