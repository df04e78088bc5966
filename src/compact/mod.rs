//! `compact`: the pi-compact-jev design as a planner (pure apart from reading the workspace).
mod estimate;
pub use estimate::estimate_request_tokens;
