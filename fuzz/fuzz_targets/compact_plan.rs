//! Fuzz target: bytes → reader → tree → projection → compaction plan (threshold and budgeted
//! paths, the offline scorer). Nothing may panic, whatever the session holds; the first byte
//! picks the recent tokens to keep and the budget.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use pi_shake::compact::budget::BudgetSpec;
use pi_shake::compact::{CompactOptions, plan};
use pi_shake::load::Loaded;
use pi_shake::score::NoProgress;
use pi_shake::score::offline::Heuristic;
use pi_shake::session::Session;

fuzz_target!(|data: &[u8]| {
    let Some((&knob, data)) = data.split_first() else {
        return;
    };
    let Ok(s) = Session::from_bytes(data, std::path::Path::new("fuzz.jsonl")) else {
        return;
    };
    let l = Loaded::from_session(s);
    let mut fetch = |i: usize| common::value_at(&l.session, data, i);
    let keep = [0u64, 20, 200, 2_000][usize::from(knob & 3)];
    let budget = match (knob >> 2) & 7 {
        0 => None,
        1 => Some((Some(0.3), None)),
        2 => Some((Some(0.05), None)),
        3 => Some((Some(0.02), None)),
        4 => Some((None, Some(400))),
        5 => Some((None, Some(20))),
        6 => Some((Some(1.0), None)),
        _ => Some((Some(0.15), Some(1_500))),
    };
    let opts = CompactOptions {
        keep_recent_tokens: keep,
        read_workspace: false,
        lite: knob & 0x20 != 0,
        budget: budget.map(|(r, m)| BudgetSpec {
            target_ratio: r,
            max_summary_tokens: m,
            source: "fuzz".into(),
        }),
        ..Default::default()
    };
    let _ = plan(&l, &opts, &Heuristic, &NoProgress, &mut fetch);
});
