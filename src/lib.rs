//! pi-shake: fold, undo and compact pi coding-agent sessions by appending, never rewriting.
//!
//! The data flow, one module per stage:
//!
//! ```text
//! session.jsonl ─ session::Session::open ─▶ Session (compact per-entry facts, problems)
//!               ─ tree::Tree::build       ─▶ id index, leaf, active path
//!               ─ projection::Projection  ─▶ what the model sees, pi's token estimates
//!               ─ wall::Wall              ─▶ what pi-shake has folded (from its own logs)
//!               ─ plan::{fold, undo}, compact ─▶ plans (pure)
//!               ─ ops                     ─▶ plans → new entries (log first, then overlays)
//!               ─ writer                  ─▶ the only code that appends to a session
//!               ─ report                  ─▶ human / JSON output (one printer)
//! ```

pub mod batch;
pub mod cli;
pub mod commands;
pub mod compact;
pub mod discovery;
pub mod error;
pub mod hash;
pub mod jscompat;
pub mod load;
pub mod ops;
pub mod output;
pub mod pair_ids;
pub mod pi_version;
pub mod plan;
pub mod projection;
pub mod recall;
pub mod regions;
pub mod report;
pub mod score;
pub mod session;
pub mod settings;
pub mod shakelog;
pub mod text;
pub mod tree;
pub mod wall;
pub mod writer;

use clap::Parser;

/// Stack size of the command thread (virtual; pages are committed only when touched).
const STACK_BYTES: usize = 256 << 20;

/// Parse `args`, run the command, print any error, and return the process exit code.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match cli::Cli::try_parse_from(args).and_then(cli::Cli::validated) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                error::ExitCode::Usage as u8
            } else {
                0
            };
            output::clap_message(&e);
            return code;
        }
    };
    let printer = output::Printer::new(cli.json, cli.quiet, cli.color);
    // A large stack: deeply nested JSON (which pi accepts) recurses when copied or dropped.
    let outcome = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn({
            let printer = printer.clone();
            move || commands::dispatch(cli, &printer)
        })
        .map_err(anyhow::Error::from)
        .and_then(|h| {
            h.join().unwrap_or_else(|_| {
                Err(anyhow::anyhow!(
                    "internal error: the command thread panicked"
                ))
            })
        });
    match outcome {
        Ok(()) => error::ExitCode::Ok as u8,
        Err(e) => {
            printer.error(&format!("{e:#}"));
            if let Some(h) = error::hint_of(&e) {
                printer.note(&format!("hint: {h}"));
            }
            error::exit_code_of(&e) as u8
        }
    }
}
