//! `pi-shake compact`: the Jev compaction design as a CLI (wired to `crate::compact`).

use anyhow::Result;

use crate::cli::CompactArgs;
use crate::error::{Fault, FaultKind};
use crate::output::Printer;

/// Run `compact`.
pub fn run(_args: &CompactArgs, _printer: &Printer) -> Result<()> {
    Err(Fault::new(FaultKind::Usage, "compact is being wired in").into())
}
