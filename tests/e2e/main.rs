//! The single integration-test binary: every test module is listed here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod batch;
mod common;
mod compact;
mod discovery;
mod extension;
mod faults;
mod flags;
mod hostile;
mod interop;
mod jev_cli;
mod needles;
mod old_pi;
mod orphans;
mod output;
mod props;
mod quality;
mod readme;
mod recall;
mod releases;
mod repo;
mod resume;
mod score_chat;
mod score_jev;
mod score_support;
mod shake;
mod shell;
