//! `pi-shake man`: man pages generated from the clap definition (clap_mangen).
//!
//! A subcommand rather than a build step, like `completions`: the page comes from the very
//! binary the user runs, so it cannot drift from `--help`, and packagers need no build script.
//! `pi-shake man` prints `pi-shake(1)`; `pi-shake man shake` prints `pi-shake-shake(1)`;
//! `pi-shake man --out-dir DIR` writes every page into DIR.

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use crate::error::{Fault, FaultKind};
use crate::output::Printer;

/// The clap command as the man pages see it (built, so subcommands carry `pi-shake-NAME`).
fn command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Render one page.
fn render(cmd: clap::Command) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .manual("pi-shake manual")
        .source(concat!("pi-shake ", env!("CARGO_PKG_VERSION")))
        .render(&mut buf)?;
    Ok(buf)
}

/// Run `man`.
pub fn run(args: &ManArgs, printer: &Printer) -> Result<()> {
    let cmd = command();
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut pages = vec![cmd.clone()];
        pages.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
        let mut written = Vec::new();
        for page in pages {
            let name = format!(
                "{}.1",
                page.get_display_name().unwrap_or_else(|| page.get_name())
            );
            let path = dir.join(&name);
            std::fs::write(&path, render(page)?)
                .with_context(|| format!("writing {}", path.display()))?;
            written.push(path.display().to_string());
        }
        printer.out(&written.join("\n"));
        printer.json_doc(&serde_json::json!({ "schemaVersion": 1, "pages": written }));
        return Ok(());
    }
    let page = match &args.command {
        None => cmd,
        Some(name) => cmd
            .get_subcommands()
            .find(|s| s.get_name() == name.as_str())
            .cloned()
            .ok_or_else(|| Fault::new(FaultKind::Usage, format!("no such command: `{name}`")))?,
    };
    printer.raw(&render(page)?);
    Ok(())
}
