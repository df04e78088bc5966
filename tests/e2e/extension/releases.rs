//! The same extension in older pi CLIs (from `tests/interop/releases`).

use super::compaction::{assert_aborted, assert_overflow_compacted};
use super::*;
use crate::common::{need_pi_releases, pi_release};

#[test]
fn the_extension_works_in_pi_releases_from_0_87() {
    // The same extension in the CLIs of pi 0.87.0 (the first release that honours
    // `context_edit`), 0.87.1, 1.0.3 and 1.5.2: `/shake` and its undo, and compaction through
    // pi-shake (at the threshold, in overflow recovery; an aborted one writes nothing). In 0.86.1, which ignores `context_edit`, `/shake` says so and writes nothing;
    // compaction works there too.
    if !need_pi_releases("the extension in older pi releases") {
        return;
    }
    for version in ["0.86.1", "0.87.0", "0.87.1", "1.0.3", "1.5.2"] {
        let cli = pi_release(version).join("dist/bundle/cli.js");
        let cli = cli.to_str().unwrap();
        let (v, _) = drive_with("shake", &["--cli", cli]);
        let shook = notifications(&v, "shake");
        let after_shake = &requests(&v)[mark(&v, "prompt3")];
        if version == "0.86.1" {
            assert!(
                shook
                    .iter()
                    .any(|m| m.contains("this pi (0.86.1) ignores context_edit")
                        && m.contains("update pi to 0.87.0 or newer")),
                "{shook:?}"
            );
            assert_eq!(
                v["hashes"]["beforeShake"], v["hashes"]["afterShake"],
                "pi 0.86.1: nothing written"
            );
            let dry = notifications(&v, "dryrun");
            assert!(
                dry.iter().any(|m| m.contains("ignores context_edit")),
                "{dry:?}"
            );
            assert!(!carries(after_shake, "omitted (~"));
        } else {
            assert!(
                shook.iter().any(|m| m.starts_with("Shook 4 tool results")),
                "pi {version}: {shook:?}"
            );
            let undone = notifications(&v, "undo");
            assert!(
                undone
                    .iter()
                    .any(|m| m.starts_with("Restored 4 folded entries")),
                "pi {version}: {undone:?}"
            );
            // What the model got after the shake, then after the undo.
            assert!(
                carries(after_shake, "omitted (~"),
                "pi {version}: no fold sent"
            );
            let after_undo = &requests(&v)[mark(&v, "prompt4")];
            assert!(
                !carries(after_undo, "omitted (~"),
                "pi {version}: a fold stayed"
            );
        }
        assert_all_on_branch(&session_of(&v));

        let (v, _) = drive_with("compact", &["--cli", cli]);
        let (file, cs) = pi_shakes_compactions(&v, &format!("pi {version}"));
        assert!(!cs.is_empty(), "pi {version}: no compaction");
        let next = request_after_compaction(&v, "threshold");
        assert!(carries(next, cs[0]["summary"].as_str().unwrap()));
        assert_all_on_branch(&file);

        // pi's overflow recovery through pi-shake, and an aborted compaction.
        let (v, _) = drive_with("overflow", &["--cli", cli]);
        assert_overflow_compacted(&v, &format!("pi {version}"));
        let (v, _) = drive_with("abort", &["--cli", cli]);
        assert_aborted(&v, &format!("pi {version}"));
    }
}
