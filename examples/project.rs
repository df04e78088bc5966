//! Library example: read a pi session and print what the model will see.
//!
//! ```text
//! cargo run --example project -- sessions-fixtures/pi/thinking.jsonl
//! ```
//!
//! Opens the file with pi 1.6's loader rules (`Loaded::open`: read → tree → projection → wall),
//! then prints the projected context (pi's own total and per-role estimates), what pi-shake has
//! folded, and any problems. Reading never writes.

#![allow(clippy::print_stdout, clippy::print_stderr)] // a command-line program

use std::collections::BTreeMap;
use std::path::PathBuf;

use pi_shake::load::Loaded;
use pi_shake::report::thousands;

fn main() -> anyhow::Result<()> {
    let path: PathBuf = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("sessions-fixtures/pi/thinking.jsonl"));
    let l = Loaded::open(&path)?;
    let p = &l.projection;

    println!("{}", path.display());
    println!(
        "  session {} · {} entries · leaf {}",
        l.session.header.id,
        thousands(l.session.entries.len() as u64),
        l.tree
            .leaf
            .map(|i| l.session.entries[i].id_str().to_string())
            .unwrap_or_else(|| "-".into())
    );
    println!(
        "  context ~{} tokens (pi's projected total) · {} messages · Σ estimates {}",
        thousands(p.context.tokens.max(0.0) as u64),
        p.messages().count(),
        thousands(p.estimate_sum())
    );

    // Per-role totals of pi's per-message estimates.
    let mut by_role: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    for (_, m) in p.messages() {
        let e = by_role.entry(&*m.role).or_default();
        e.0 += 1;
        e.1 += m.tokens0();
    }
    for (role, (n, tokens)) in &by_role {
        println!(
            "    {role:<18} {n:>4} message(s)  ~{:>8} tokens",
            thousands(*tokens)
        );
    }

    let active = l
        .wall
        .items
        .iter()
        .filter(|it| it.state == pi_shake::wall::WallState::Active)
        .count();
    println!("  folded by pi-shake: {active} entries");
    for pr in l.problems() {
        println!("  {:?}: {}", pr.severity, pr.message);
    }
    Ok(())
}
