//! The single integration-test binary: every test module is listed here.

mod common;
mod faults;
mod hostile;
mod interop;
mod shake;
