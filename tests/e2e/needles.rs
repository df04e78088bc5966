//! The needle benchmark as a CI regression check (issue 9): a small, fixed-seed needle suite
//! (`examples/needles/suite.rs`) compacted with the embedded scorer, checked against generous
//! thresholds and against the baselines. The full benchmark is `cargo run --release --example
//! needles`.

use crate::common::temp_dir;

#[path = "../../examples/needles/suite.rs"]
mod suite;

use pi_shake::compact::TEMPLATE;
use pi_shake::score::offline::Heuristic;
use pi_shake::score::replay::{Replay, write_scores};
use suite::{Cut, Pos, SuiteConfig};

fn config() -> SuiteConfig {
    SuiteConfig {
        seed: 11,
        sessions: 6,
        min_output: 1_000,
        max_output: 40_000,
    }
}

#[test]
fn needle_suite_is_deterministic_and_isolated() {
    let a = suite::generate(&config());
    let b = suite::generate(&config());
    assert_eq!(a.len(), 6);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.lines, y.lines, "same seed, same bytes");
        suite::check_isolation(x).unwrap();
        // Every needle position is represented.
        assert_eq!(
            x.facts
                .iter()
                .filter(|f| f.role == suite::Role::Needle)
                .count(),
            4
        );
    }
    let c = suite::generate(&SuiteConfig {
        seed: 12,
        ..config()
    });
    assert_ne!(a[0].lines, c[0].lines);
    for p in Pos::ALL {
        assert!(
            a.iter()
                .flat_map(|g| &g.facts)
                .any(|f| f.pos == p && f.role == suite::Role::Needle)
        );
    }
}

#[test]
fn compact_keeps_the_needles_and_beats_the_baselines() {
    let dir = temp_dir("needles");
    let sessions = suite::generate(&config());
    let mut ours = Vec::new();
    for g in &sessions {
        let p = suite::write(g, &dir).unwrap();
        let keep = suite::keep_for(&p, g).unwrap();
        let (r, plan) = suite::run_compact(&p, g, keep, &Heuristic, "ours", None).unwrap();
        // The scores replay through --scores-in to the same projection.
        let scores = dir.join(format!("{}.scores.jsonl", g.name));
        write_scores(&scores, TEMPLATE, &plan.request, &plan.scores).unwrap();
        let replay = Replay::from_file(&scores, TEMPLATE, false).unwrap();
        let (r2, _) = suite::run_compact(&p, g, keep, &replay, "replay", None).unwrap();
        assert_eq!(r.retained, r2.retained, "{}", g.name);
        assert_eq!(r.actions, r2.actions, "{}", g.name);
        ours.push(r);
    }
    let all = |_: &suite::Fact| true;
    let o = suite::summarise("ours", &sessions, &ours, &all);
    let middle = suite::summarise("ours", &sessions, &ours, &|f| f.pos == Pos::Middle);
    let base = |cut: Cut| {
        let rs: Vec<_> = sessions
            .iter()
            .zip(&ours)
            .map(|(g, r)| suite::run_baseline(g, r, cut, ""))
            .collect();
        suite::summarise("", &sessions, &rs, &all)
    };
    let ht = suite::head_tail_for(&sessions, &ours, o.region_after);
    let matched = base(Cut::HeadTail(ht));
    let pi = base(Cut::Pi);
    let drop = base(Cut::Drop);
    let report = format!(
        "ours: needles {}/{} (middle {}/{}), distractors {}/{}, region {} → {}; head+tail {ht}: needles {}/{} at {}; pi 2,000: needles {}/{} at {}",
        o.needles_kept,
        o.needles,
        middle.needles_kept,
        middle.needles,
        o.distractors_kept,
        o.distractors,
        o.region_before,
        o.region_after,
        matched.needles_kept,
        matched.needles,
        matched.region_after,
        pi.needles_kept,
        pi.needles,
        pi.region_after
    );
    eprintln!("{report}");
    // Generous thresholds (the full benchmark's targets are 95% / 60% / 20%).
    assert!(o.needle_retention() >= 0.80, "{report}");
    assert!(middle.needle_retention() >= 0.70, "{report}");
    assert!(o.distractor_retention() <= 0.35, "{report}");
    assert!(o.region_cut() >= 0.50, "{report}");
    // Better than every baseline that is not larger.
    assert!(o.needle_retention() > drop.needle_retention(), "{report}");
    assert!(matched.region_after <= o.region_after, "{report}");
    assert!(
        o.needle_retention() > matched.needle_retention(),
        "{report}"
    );
    assert!(o.needle_retention() > pi.needle_retention(), "{report}");
    std::fs::remove_dir_all(&dir).ok();
}
