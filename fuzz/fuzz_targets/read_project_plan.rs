//! Fuzz target: bytes → reader → tree → projection → wall → status report → fold and undo plans.
//! Nothing may panic; planners read entries back from the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_shake::load::Loaded;
use pi_shake::plan::{fold, undo};
use pi_shake::session::Session;
use pi_shake::wall::Scope;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = Session::from_bytes(data, std::path::Path::new("fuzz.jsonl")) else {
        return;
    };
    let l = Loaded::from_session(s);
    let _ = pi_shake::commands::status::report(&l);
    let mut fetch = |i: usize| -> anyhow::Result<serde_json::Value> {
        let e = &l.session.entries[i];
        let start = e.offset as usize;
        let end = (start + e.len as usize).min(data.len());
        let text = String::from_utf8_lossy(&data[start.min(end)..end]);
        Ok(pi_shake::session::entry::parse_value(&text)?.0)
    };
    let params = fold::FoldParams {
        scopes: vec![Scope::Elide, Scope::Images, Scope::Thinking],
        tail: 10,
        block_min: 1,
    };
    let _ = fold::plan(&l.session, &l.tree, &l.projection, &l.wall, &params, &mut fetch);
    let _ = undo::plan(&l.wall);
});
