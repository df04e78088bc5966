//! Typed failures that decide exit codes, and the exit codes themselves.
//!
//! Code anywhere returns `anyhow::Error`; when the failure is one a user or script must tell
//! apart (a bad session, an unsafe write, a scorer failure…), its root is a [`Fault`]. The
//! entry point ([`crate::run`]) downcasts the chain once to pick the exit code.

use std::fmt;

/// Process exit codes (documented in the README and `--help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// Done, including "nothing to do".
    Ok = 0,
    /// An unexpected failure (I/O error, bug).
    Failure = 1,
    /// Bad command-line usage.
    Usage = 2,
    /// The session cannot be read as a pi session (or pi would fail on it).
    BadSession = 3,
    /// Writing was refused to protect the file; it is untouched.
    Unsafe = 4,
    /// The scorer (Jev, chat, replay) failed; nothing was written.
    Scorer = 5,
    /// A check failed (`status --check`, `--max-tokens`).
    Check = 6,
}

/// Failure classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    BadSession,
    Unsafe,
    Scorer,
    Check,
    Usage,
}

impl FaultKind {
    /// The exit code for this class.
    pub fn exit_code(self) -> ExitCode {
        match self {
            FaultKind::BadSession => ExitCode::BadSession,
            FaultKind::Unsafe => ExitCode::Unsafe,
            FaultKind::Scorer => ExitCode::Scorer,
            FaultKind::Check => ExitCode::Check,
            FaultKind::Usage => ExitCode::Usage,
        }
    }
}

/// A classified failure with an optional hint for what to do next.
#[derive(Debug)]
pub struct Fault {
    pub kind: FaultKind,
    pub message: String,
    pub hint: Option<String>,
}

impl Fault {
    /// A fault of `kind` with `message`.
    pub fn new(kind: FaultKind, message: impl Into<String>) -> Fault {
        Fault {
            kind,
            message: message.into(),
            hint: None,
        }
    }
    /// Attach a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Fault {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Fault {}

/// The exit code for an error chain (the first [`Fault`] found decides).
pub fn exit_code_of(err: &anyhow::Error) -> ExitCode {
    err.chain()
        .find_map(|e| e.downcast_ref::<Fault>())
        .map(|f| f.kind.exit_code())
        .unwrap_or(ExitCode::Failure)
}

/// The hint of the first [`Fault`] in the chain.
pub fn hint_of(err: &anyhow::Error) -> Option<&str> {
    err.chain()
        .find_map(|e| e.downcast_ref::<Fault>())
        .and_then(|f| f.hint.as_deref())
}
