//! pi-shake inside pi (issue 15): the binary's side of the protocol (`version --json`,
//! `compact --emit-json`), and the extension in `integrations/pi-shake/` driven end to end with the
//! REAL pi 1.6 CLI in RPC mode against the scripted mock model on 127.0.0.1
//! (`integrations/pi-shake/test/drive.mjs`).
//!
//! The real-pi tests need Node 22 and the pi CLI from `tests/interop/gen` (`npm ci` there); they
//! fail when those are missing unless `PI_SHAKE_SKIP_INTEROP=1`.
//!
//! One file per part: `protocol` (the binary's side), `compaction` (pi's compactions through
//! the extension: threshold, manual, overflow recovery, an abort, a missing or old binary, a
//! resumed old session), `recall` (the `shake_recall` tool), `shake` (`/shake`, its undo,
//! auto-shake, `/tree`), `tui` (pi's interactive TUI in a tmux pane) and `releases` (older pi
//! CLIs). This file holds what they share: the driver and readers of its report.

mod compaction;
mod protocol;
mod recall;
mod releases;
mod shake;
mod tui;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{
    assert_pi_loads, need_oracle, need_pi_cli, node22, oracle1, root, run_json, temp_dir, text_of,
};

const COMPACTION_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:";

/// Whether to run (see [`need_pi_cli`]).
fn pi_cli() -> bool {
    need_pi_cli("real pi CLI with the extension")
}

/// One scenario of `integrations/pi-shake/test/drive.mjs`: its report and its work dir.
fn drive(scenario: &str) -> (Value, PathBuf) {
    drive_with(scenario, &[])
}

/// [`drive`] with more arguments for the driver (`--cli` of another pi release).
fn drive_with(scenario: &str, extra: &[&str]) -> (Value, PathBuf) {
    let work = temp_dir(&format!("ext-{scenario}")).join("work");
    let (out, v) = run_json(
        Command::new(node22())
            .arg(root().join("integrations/pi-shake/test/drive.mjs"))
            .args([
                "--scenario",
                scenario,
                "--bin",
                env!("CARGO_BIN_EXE_pi-shake"),
            ])
            .arg("--work")
            .arg(&work)
            .args(extra),
        "drive.mjs",
    );
    assert!(
        out.status.success() && v["ok"] == true,
        "scenario {scenario} failed: {v:#}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["unexpectedRequests"], 0, "the mock ran out of replies");
    assert_eq!(v["exit"]["code"], 0, "pi exited with an error");
    (v, work)
}

fn lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn session_of(v: &Value) -> PathBuf {
    PathBuf::from(v["sessionFile"].as_str().unwrap())
}

fn requests(v: &Value) -> &Vec<Value> {
    v["requests"].as_array().unwrap()
}

fn mark(v: &Value, name: &str) -> usize {
    v["marks"][name].as_u64().unwrap() as usize
}

/// Whether a request carries `needle` in any message.
fn carries(req: &Value, needle: &str) -> bool {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| text_of(&m["content"]).contains(needle))
}

/// Tool results of a request: tool_call_id -> text.
fn tool_results(req: &Value) -> HashMap<String, String> {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                text_of(&m["content"]),
            )
        })
        .collect()
}

/// pi's SessionManager loads the file and every entry is on the active branch (nothing stranded).
fn assert_all_on_branch(file: &Path) {
    assert_pi_loads(&[file.to_path_buf()]);
    if !need_oracle() {
        return;
    }
    let o = oracle1(file, &[]);
    let branch: HashSet<&str> = o["branchIds"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for e in lines(file).iter().skip(1) {
        let id = e["id"].as_str().unwrap();
        assert!(
            branch.contains(id),
            "entry {id} ({}) is not on pi's active branch",
            e["type"]
        );
    }
    assert_eq!(o["entryCount"].as_u64().unwrap() as usize, branch.len());
}

fn notifications<'a>(v: &'a Value, step: &str) -> Vec<&'a str> {
    v["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["step"] == step)
        .map(|n| n["message"].as_str().unwrap())
        .collect()
}

fn compactions(file: &Path) -> Vec<Value> {
    lines(file)
        .into_iter()
        .filter(|e| e["type"] == "compaction")
        .collect()
}

/// The reasons of the compactions pi ended (`compaction_end` events), in order.
fn compaction_reasons(v: &Value) -> Vec<&str> {
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "compaction_end")
        .map(|e| e["reason"].as_str().unwrap())
        .collect()
}

/// The first turn request after the first compaction of `reason`.
fn request_after_compaction<'a>(v: &'a Value, reason: &str) -> &'a Value {
    let end = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "compaction_end" && e["reason"] == reason)
        .unwrap_or_else(|| panic!("no {reason} compaction: {:#}", v["events"]));
    let i = end["requestsSoFar"].as_u64().unwrap() as usize;
    let reqs = requests(v);
    reqs[i..]
        .iter()
        .find(|r| r["kind"] == "turn")
        .expect("a turn after the compaction")
}

/// The session file of a driven scenario and its compactions, each one pi-shake's: pi never
/// asked its own summarizer, and pi wrote every entry from the extension's answer (`fromHook`)
/// with pi-shake's summary.
fn pi_shakes_compactions(v: &Value, who: &str) -> (PathBuf, Vec<Value>) {
    assert!(
        requests(v).iter().all(|r| r["kind"] == "turn"),
        "{who}: pi fell back to its own summarizer"
    );
    let file = session_of(v);
    let cs = compactions(&file);
    for c in &cs {
        assert_pi_shakes(c, who);
    }
    (file, cs)
}

/// A compaction entry pi wrote from the extension's answer: `fromHook` and pi-shake's summary.
fn assert_pi_shakes(c: &Value, who: &str) {
    assert_eq!(c["fromHook"], true, "{who}: pi marks extension compactions");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .starts_with("# Session history before this point (pruned by pi-shake"),
        "{who}: not pi-shake's summary"
    );
}
