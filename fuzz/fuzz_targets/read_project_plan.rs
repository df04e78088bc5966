//! Fuzz target: bytes → reader → tree → projection → wall → status report → fold and undo plans.
//! Nothing may panic; planners read entries back from the same bytes.
#![no_main]

mod common;

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
    let mut fetch = |i: usize| common::value_at(&l.session, data, i);
    let params = fold::FoldParams {
        scopes: vec![Scope::Elide, Scope::Images, Scope::Thinking],
        tail: 10,
        block_min: 1,
    };
    let _ = fold::plan(&l.session, &l.tree, &l.projection, &l.wall, &params, &mut fetch);
    let _ = undo::plan(&l.wall);
});
