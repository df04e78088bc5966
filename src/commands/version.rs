//! `pi-shake version`: the version, and with `--json` the handshake integrations check.
//!
//! The pi extension (`integrations/pi-shake/`) runs `pi-shake version --json` before anything else
//! and refuses a binary whose `protocol` it does not speak. `features` lists what this binary can do:
//! the modes integrations rely on (`compact-emit-json`, …) and, read from the clap definition
//! itself so it cannot drift, every long flag of every command as `"<command> --<flag>"`
//! (`"compact --first-kept-entry-id"`). An integration passes an optional flag only when the
//! handshake lists it.

use anyhow::Result;
use clap::CommandFactory;
use serde_json::json;

use crate::cli::Cli;
use crate::output::Printer;

/// The integration protocol: bumped when a mode integrations use changes incompatibly.
pub const PROTOCOL: u32 = 1;

/// Modes integrations use (see the module doc).
const MODES: &[&str] = &[
    "status-json",
    "shake-json",
    "dry-run-json",
    "undo-json",
    "compact-emit-json",
];

/// Every feature, modes first, then `"<command> --<flag>"` in definition order.
pub fn features() -> Vec<String> {
    let mut out: Vec<String> = MODES.iter().map(|m| m.to_string()).collect();
    let cmd = Cli::command();
    for sub in cmd.get_subcommands() {
        for arg in sub.get_arguments() {
            if let Some(long) = arg.get_long() {
                if long == "help" || long == "version" {
                    continue;
                }
                out.push(format!("{} --{long}", sub.get_name()));
            }
        }
    }
    out
}

/// Run `version`.
pub fn run(printer: &Printer) -> Result<()> {
    let version = env!("CARGO_PKG_VERSION");
    printer.out(&format!("pi-shake {version}"));
    printer.json_doc(&json!({
        "schemaVersion": 1,
        "name": "pi-shake",
        "version": version,
        "protocol": PROTOCOL,
        "features": features(),
    }));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_name_the_modes_and_real_flags() {
        let f = features();
        assert!(f.iter().any(|x| x == "compact-emit-json"));
        assert!(f.iter().any(|x| x == "compact --first-kept-entry-id"));
        assert!(f.iter().any(|x| x == "compact --instructions"));
        assert!(f.iter().any(|x| x == "shake --force"));
        assert!(!f.iter().any(|x| x.ends_with("--help")));
        assert!(!f.iter().any(|x| x == "compact --no-such-flag"));
    }
}
