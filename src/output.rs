//! The printer: the only path to stdout and stderr.
//!
//! Human output goes to stdout unless `--quiet`; `--json` prints exactly one JSON document on
//! stdout and nothing else there. Warnings and errors go to stderr. Colour only on a terminal
//! (honouring `NO_COLOR` and `--color`). A closed pipe (`pi-shake status | head`) is not an error.
//! Documents the user asked for on stdout (man pages, completions) go through [`Printer::raw`];
//! progress bars are made by [`Printer::progress_bar`]; clap's own usage errors and help by
//! [`clap_message`]. No other module writes to stdout or stderr (the `print_stdout` and
//! `print_stderr` lints hold the rest of the crate to it).

use std::io::{IsTerminal, Write};

use crate::cli::ColorChoice;

/// Output policy and sink.
#[derive(Clone, Debug)]
pub struct Printer {
    pub json: bool,
    pub quiet: bool,
    pub color: bool,
}

impl Printer {
    /// Build from the global flags.
    pub fn new(json: bool, quiet: bool, color: ColorChoice) -> Printer {
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Printer { json, quiet, color }
    }

    /// Human output (suppressed by `--quiet` and `--json`).
    pub fn out(&self, text: &str) {
        if self.json || self.quiet || text.is_empty() {
            return;
        }
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(text.as_bytes());
        if !text.ends_with('\n') {
            let _ = o.write_all(b"\n");
        }
        let _ = o.flush();
    }

    /// The one JSON document (only with `--json`).
    pub fn json_doc(&self, v: &serde_json::Value) {
        if !self.json {
            return;
        }
        let mut o = std::io::stdout().lock();
        let text = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
        let _ = o.write_all(text.as_bytes());
        let _ = o.write_all(b"\n");
        let _ = o.flush();
    }

    /// A machine-readable document that is the command's whole output (`compact --emit-json`):
    /// printed on stdout on one line whatever `--json` / `--quiet` say.
    pub fn emit(&self, v: &serde_json::Value) {
        let mut o = std::io::stdout().lock();
        let text = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
        let _ = o.write_all(text.as_bytes());
        let _ = o.write_all(b"\n");
        let _ = o.flush();
    }

    /// A note on stderr (suppressed by `--quiet`).
    pub fn note(&self, text: &str) {
        if self.quiet {
            return;
        }
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }

    /// A notice on stderr that `--quiet` does not hide (privacy: which host receives session
    /// content).
    pub fn notice(&self, text: &str) {
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }

    /// An error on stderr (always).
    pub fn error(&self, text: &str) {
        let (a, b) = if self.color && std::io::stderr().is_terminal() {
            ("\x1b[31m", "\x1b[0m")
        } else {
            ("", "")
        };
        let _ = writeln!(std::io::stderr().lock(), "{a}error{b}: {text}");
    }

    /// Whether a progress bar may be drawn.
    pub fn progress_enabled(&self) -> bool {
        !self.json && !self.quiet && std::io::stderr().is_terminal()
    }

    /// Bytes on stdout as they are, in every mode: a document the user asked for (a man page,
    /// completions). A closed pipe is not an error.
    pub fn raw(&self, bytes: &[u8]) {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(bytes);
        let _ = o.flush();
    }

    /// A progress bar drawn on stderr when `wanted` and [`Printer::progress_enabled`], else a
    /// hidden one (free to update).
    pub fn progress_bar(&self, wanted: bool) -> indicatif::ProgressBar {
        if wanted && self.progress_enabled() {
            indicatif::ProgressBar::with_draw_target(
                Some(0),
                indicatif::ProgressDrawTarget::stderr(),
            )
        } else {
            indicatif::ProgressBar::hidden()
        }
    }

    /// Bold text when colour is on.
    pub fn bold(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// Print a command-line parse failure or `--help` / `--version` the way clap does (stdout or
/// stderr, as clap decides). Used before any [`Printer`] exists.
pub fn clap_message(e: &clap::Error) {
    let _ = e.print();
}
