//! `pi-shake completions SHELL`: shell completions generated from the clap definition.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::output::Printer;

/// Print completions for `args.shell` on stdout.
pub fn run(args: &CompletionsArgs, printer: &Printer) -> Result<()> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "pi-shake", &mut script);
    printer.raw(&script);
    Ok(())
}
