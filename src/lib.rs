//! pi-shake: fold, undo and compact pi coding-agent sessions by appending, never rewriting.
//!
//! The data flow, one module per stage:
//!
//! ```text
//! session.jsonl ─ session::Session::open ─▶ Session (compact per-entry facts, problems)
//!               ─ tree::Tree::build       ─▶ id index, leaf, active path
//!               ─ projection::Projection  ─▶ what the model sees, pi's token estimates
//!               ─ wall::Wall              ─▶ what pi-shake has folded (from its own logs)
//!               ─ plan::{fold, undo}, compact ─▶ plans (pure)
//!               ─ report                  ─▶ human / JSON output (one printer)
//!               ─ writer                  ─▶ the only code that appends to a session
//! ```

pub mod error;
pub mod hash;
pub mod jscompat;
pub mod plan;
pub mod projection;
pub mod report;
pub mod score;
pub mod session;
pub mod tree;
pub mod wall;
