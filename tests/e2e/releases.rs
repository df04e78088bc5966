//! Older pi releases and what pi-shake writes: `scripts/cross_release.py` has seven pi releases,
//! 0.50.7 to 1.5.2 (pinned in `tests/interop/releases`), build the model context from shaken,
//! undone and compacted copies of every pi 1.6 fixture. (The sessions those releases wrote
//! themselves are `sessions-fixtures/pi-releases/`, checked in `interop.rs`, `compact.rs`,
//! `shake.rs` and `hostile.rs`; the extension in their CLIs, in `extension/releases.rs`.)

use std::process::Command;

use serde_json::Value;

use crate::common::*;

#[test]
fn releases_from_0_87_build_pi_1_6s_context_from_what_pi_shake_writes() {
    if !need_pi_releases("older pi releases reading pi-shake's writes") {
        return;
    }
    let out = Command::new("python3")
        .arg(root().join("scripts/cross_release.py"))
        .arg(env!("CARGO_BIN_EXE_pi-shake"))
        .arg("--json")
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    let files = v["files"].as_u64().unwrap();
    assert!(files >= 20, "only {files} files written");
    let releases = v["releases"].as_array().unwrap();
    assert_eq!(releases.len(), 7);
    // The old-pi warning's boundary (src/pi_version.rs), measured: 0.86.1 does not give pi 1.6's
    // context for the shaken files, 0.87.0 does for every file.
    let same = |v: &str| releases.iter().find(|r| r["version"] == v).unwrap()["same"].as_u64();
    assert!(same("0.86.1").unwrap() < files);
    assert_eq!(same("0.87.0"), Some(files));
    for r in releases {
        let n = |k: &str| r[k].as_u64().unwrap();
        assert_eq!(n("load"), files, "every file loads: {r}");
        assert!(n("compacted") >= 5, "{r}");
        assert_eq!(
            n("startFromSummary"),
            n("compacted"),
            "every compacted file starts from pi-shake's summary: {r}"
        );
        if r["honoursEdits"] == true {
            // Exactly pi 1.6's context, message for message, for every file.
            assert_eq!(n("same"), files, "{r}");
        } else {
            // Folds have no effect there (the old-pi warning's case): only files without a
            // fold or a compaction could give pi 1.6's context.
            assert!(n("same") < files, "{r}");
        }
    }
}
