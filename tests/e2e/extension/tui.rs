//! pi's interactive TUI as a user sees it (`integrations/pi-shake/test/tui.mjs`: the real pi CLI
//! in a tmux pane, the screen read after each step).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use super::*;
use crate::common::{need_pi_releases, pi_release};

/// The TUI as a user sees it (`integrations/pi-shake/test/tui.mjs`: pi in a tmux pane): every
/// notice of the extension is on the screen after the command that printed it. pi shows
/// "Resumed session" after reopening the file, as a status line that replaces the status line
/// before it, and redraws its chat when a compaction ends: a notice given inside
/// `switchSession`'s `withSession` or during the compaction was never seen there. In pi 1.6
/// and, when installed, the releases from 0.87.0 (the first that honours folds); with the
/// binary and, for the compaction's fallback warning, without it.
#[test]
fn the_tui_shows_every_notice_after_pi_reopens_the_session() {
    if !pi_cli() {
        return;
    }
    let mut clis = vec![("1.6.0".to_string(), None)];
    if need_pi_releases("the extension's TUI in older pi releases") {
        for version in ["0.87.0", "1.0.3", "1.5.2"] {
            let cli = pi_release(version).join("dist/bundle/cli.js");
            clis.push((version.to_string(), Some(cli)));
        }
    }
    for (i, (version, cli)) in clis.into_iter().enumerate() {
        // With the binary; without it; and (pi 1.6) without it while pi's summarizer fails too.
        let runs: &[&[&str]] = if i == 0 {
            &[
                &[],
                &["--missing-bin"],
                &["--missing-bin", "--summary-fails"],
            ]
        } else {
            &[&[], &["--missing-bin"]]
        };
        for flags in runs {
            let name = format!("ext-tui-{version}{}", flags.join(""));
            let work = temp_dir(&name).join("work");
            let mut cmd = Command::new(node22());
            cmd.arg(root().join("integrations/pi-shake/test/tui.mjs"))
                .args(["--bin", env!("CARGO_BIN_EXE_pi-shake")])
                .arg("--work")
                .arg(&work);
            if let Some(cli) = &cli {
                cmd.arg("--cli").arg(cli);
            }
            cmd.args(*flags);
            let (out, v) = run_json(&mut cmd, "tui.mjs");
            assert!(
                out.status.success() && v["ok"] == true,
                "pi {version} {flags:?}: the TUI run failed: {}\nstderr: {}",
                v["error"].as_str().unwrap_or(""),
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(v["unexpectedRequests"], 0, "the mock ran out of replies");
            if flags.is_empty() {
                assert_tui_notices(&version, &v);
            } else {
                assert_tui_fallback(&version, &v, flags.contains(&"--summary-fails"));
            }
        }
    }
}

/// The screen's trimmed lines at `step` of a `tui.mjs` report.
fn tui_screen(version: &str, v: &Value, step: &str) -> Vec<String> {
    v["screens"][step]
        .as_str()
        .unwrap_or_else(|| panic!("pi {version}: no screen for {step}"))
        .lines()
        .map(|l| l.trim().to_string())
        .collect()
}

/// The first line of the screen at `step` that starts with `prefix` (a failure shows the screen).
fn tui_line(version: &str, v: &Value, step: &str, prefix: &str) -> String {
    let lines = tui_screen(version, v, step);
    lines
        .iter()
        .find(|l| l.starts_with(prefix))
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "pi {version}, {step}: no line starts with {prefix:?}:\n{}",
                lines.join("\n")
            )
        })
}

/// Without the binary, `/compact` is pi's own, and the warning saying why is on the screen; when
/// pi's summarizer fails too (`summary_fails`), pi writes no compaction and the warning still
/// shows, after pi's error.
fn assert_tui_fallback(version: &str, v: &Value, summary_fails: bool) {
    let prefix = "Warning: pi-shake: compaction not available: the pi-shake binary was not found";
    tui_line(version, v, "compact", prefix);
    // The warning wraps at the pane's width: read it as one text.
    let text = tui_screen(version, v, "compact").join(" ");
    let why = &text[text.find(prefix).unwrap()..];
    assert!(
        why.contains("(PI_SHAKE_BIN)") && why.contains("pi writes its own summary."),
        "pi {version}: {why}"
    );
    let file = PathBuf::from(v["sessionFile"].as_str().unwrap());
    let cs = compactions(&file);
    if summary_fails {
        tui_line(version, v, "compact", "Error: Compaction failed: ");
        assert!(cs.is_empty(), "pi {version}: no compaction expected");
        return;
    }
    assert_eq!(cs.len(), 1, "pi {version}");
    assert!(
        !cs[0]["summary"].as_str().unwrap().contains("pi-shake"),
        "pi {version}: pi's own summary expected"
    );
}

fn assert_tui_notices(version: &str, v: &Value) {
    let screen = |step: &str| tui_screen(version, v, step);
    let line_starting = |step: &str, prefix: &str| tui_line(version, v, step, prefix);
    // pi lists the extension by its directory's name.
    let start = screen("start");
    let listed = start.iter().position(|l| l == "[Extensions]");
    assert_eq!(
        listed.and_then(|i| start.get(i + 1)).map(String::as_str),
        Some("pi-shake"),
        "pi {version}:\n{}",
        start.join("\n")
    );
    let auto = line_starting("auto", "pi-shake: auto-shake: Shook ");
    assert!(auto.contains(" tokens)"), "pi {version}: {auto}");
    let undo = line_starting("undo", "Restored ");
    assert!(
        undo.contains("tokens back in context"),
        "pi {version}: {undo}"
    );
    // The scope popup, answered in the pane; the dry-run says what elide would fold.
    line_starting("popup", "Shake which scope?");
    let dry = line_starting("dryrun", "[dry-run] · Shook ");
    let shake = line_starting("shake", "Shook ");
    assert_eq!(
        dry.trim_start_matches("[dry-run] · ").split(')').next(),
        shake.split(')').next(),
        "pi {version}: the dry-run said what the shake then did"
    );
    assert!(
        shake.contains("Protects the last 4,000 tokens"),
        "pi {version}: {shake}"
    );
    // pi's own status line gave way to the notice, and each notice replaced the one before.
    for step in ["auto", "undo", "shake"] {
        assert!(
            !screen(step).iter().any(|l| l == "Resumed session"),
            "pi {version}, {step}: pi's status line is still the last word"
        );
    }
    assert!(
        !screen("shake").contains(&undo),
        "pi {version}: the undo notice is still shown"
    );
    line_starting("status", "pi-shake: ");
    // After pi redrew the chat for the compaction, below pi's own "Compacted from" line.
    line_starting("compact", "pi-shake: compacted ");
    // The notice wraps at the pane's width: read it as one text. It says where the budget came
    // from (the setting to change).
    let text = tui_screen(version, v, "compact").join(" ");
    let compacted = &text[text.find("pi-shake: compacted ").unwrap()..];
    assert!(
        compacted.contains("; budget 15% of the region, built-in default). Scorer: heuristic"),
        "pi {version}: {compacted}"
    );
    // After `/tree` back to the second answer (pi moves its leaf without writing): `/shake`
    // refuses, below pi's "Navigated to selected point", and `/compact` compacts pi's branch.
    line_starting("navigated", "Navigated to selected point");
    let text = tui_screen(version, v, "treeShake").join(" ");
    let refused = "Warning: pi-shake: pi's position in the session tree (";
    let why = &text[text
        .find(refused)
        .unwrap_or_else(|| panic!("pi {version}: no refusal: {text}"))..];
    assert!(
        why.contains("is not the file's last entry") && why.contains("Send a message first"),
        "pi {version}: {why}"
    );
    line_starting("treeCompact", "pi-shake: compacted ");
    // What the screen said is what the file holds: three writing runs (the refused shake wrote
    // nothing) and pi-shake's two compactions, written by pi, the second on the branch pi
    // navigated to; pi can read it, and its branch ends there.
    let file = PathBuf::from(v["sessionFile"].as_str().unwrap());
    let entries = lines(&file);
    let logs = entries
        .iter()
        .filter(|e| e["type"] == "custom" && e["customType"] == "shake")
        .map(|e| e["data"]["op"].as_str().unwrap_or("").to_string())
        .collect::<Vec<_>>();
    assert_eq!(logs, ["shake", "undo", "shake"], "pi {version}");
    let cs = compactions(&file);
    assert_eq!(cs.len(), 2, "pi {version}");
    for c in &cs {
        assert_pi_shakes(c, &format!("pi {version}"));
    }
    let parent = entries
        .iter()
        .find(|e| e["id"] == cs[1]["parentId"])
        .unwrap();
    assert!(
        text_of(&parent["message"]["content"]).contains("Step 1 done."),
        "pi {version}: the tree compaction is not on the navigated branch: {parent}"
    );
    assert_pi_loads(std::slice::from_ref(&file));
    if need_oracle() {
        let o = oracle1(&file, &[]);
        let branch = o["branchIds"].as_array().unwrap();
        assert_eq!(branch.last(), Some(&cs[1]["id"]), "pi {version}");
        assert!(!branch.contains(&cs[0]["id"]), "pi {version}");
    }
}
