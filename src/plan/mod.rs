//! Stage 4: plans — pure decisions about what to append (folds, restores, compactions).
//!
//! Planners read the session index, the projection and the wall, ask an injected `fetch` for
//! the few entries whose bytes they must copy, and return data. They never write.

pub mod fold;
pub mod undo;
