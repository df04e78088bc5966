//! The single integration-test binary: every test module is listed here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod batch;
mod common;
mod compact;
mod discovery;
mod faults;
mod hostile;
mod interop;
mod jev_cli;
mod kit;
mod needles;
mod output;
mod props;
mod quality;
mod resume;
mod shake;
mod shell;
