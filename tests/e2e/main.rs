//! The single integration-test binary: every test module is listed here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod compact;
mod faults;
mod hostile;
mod interop;
mod props;
mod resume;
mod shake;
