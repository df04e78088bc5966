//! One module per subcommand; this file only dispatches.

pub mod compact;
pub mod compact_emit;
pub mod completions;
pub mod man;
pub mod recall;
pub mod shake;
pub mod status;
pub mod undo;
pub mod version;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::output::Printer;

/// Run the parsed command.
pub fn dispatch(cli: Cli, printer: &Printer) -> Result<()> {
    // An older pi on PATH ignores every fold: say so where folds are made or shown.
    if matches!(
        cli.command,
        Command::Status(_) | Command::Shake(_) | Command::DryRun(_)
    ) && let Some(w) = crate::pi_version::old_pi_warning()
    {
        printer.note(w);
    }
    match cli.command {
        Command::Status(a) => status::run(&a, printer),
        Command::Shake(a) => shake::run(&a, printer, false),
        Command::DryRun(a) => shake::run(&a, printer, true),
        Command::Undo(a) => undo::run(&a, printer),
        Command::Compact(a) => compact::run(&a, printer),
        Command::Recall(a) => recall::run(&a, printer),
        Command::Completions(a) => completions::run(&a, printer),
        Command::Man(a) => man::run(&a, printer),
        Command::Version => version::run(printer),
    }
}
