//! The single integration-test binary: every test module is listed here.

mod common;
mod interop;
mod hostile;
mod shake;
