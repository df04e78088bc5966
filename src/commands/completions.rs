//! `pi-shake completions SHELL`: shell completions generated from the clap definition.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

/// Print completions for `args.shell` on stdout.
pub fn run(args: &CompletionsArgs) -> Result<()> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "pi-shake", &mut std::io::stdout());
    Ok(())
}
