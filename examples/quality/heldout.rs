//! The held-out needle generator (issue 12 item 6): independent of `examples/needles`.

use std::path::Path;

use anyhow::{Result, bail};

use crate::harness::CaseSpec;

pub fn specs(_seed: u64, _n: usize, _work: &Path) -> Result<Vec<CaseSpec>> {
    bail!("the held-out needle generator is not in this build yet; pass --needles 0")
}
