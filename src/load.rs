//! Stages 1–3 in one call: read → index → project → wall, for commands and tests.

use std::path::Path;

use anyhow::Result;

use crate::projection::Projection;
use crate::session::{Problem, Session};
use crate::tree::Tree;
use crate::wall::Wall;

/// A session with its tree, projection and wall.
#[derive(Debug)]
pub struct Loaded {
    pub session: Session,
    pub tree: Tree,
    pub projection: Projection,
    pub wall: Wall,
}

impl Loaded {
    /// Read and index a session file.
    pub fn open(path: &Path) -> Result<Loaded> {
        Ok(Loaded::from_session(Session::open(path)?))
    }

    /// Index an already-read session.
    pub fn from_session(session: Session) -> Loaded {
        let tree = Tree::build(&session);
        let projection = Projection::build(&session, &tree);
        let wall = Wall::build(&session, &tree, &projection);
        Loaded {
            session,
            tree,
            projection,
            wall,
        }
    }

    /// Every problem found, reading order first.
    pub fn problems(&self) -> Vec<&Problem> {
        let mut v: Vec<&Problem> = self
            .session
            .problems
            .iter()
            .chain(&self.tree.problems)
            .chain(&self.projection.problems)
            .chain(&self.wall.problems)
            .collect();
        v.sort_by_key(|p| (std::cmp::Reverse(p.severity), p.line.unwrap_or(0)));
        v
    }

    /// A fetcher re-reading entries from the file.
    pub fn fetcher(&self) -> impl FnMut(usize) -> Result<serde_json::Value> + '_ {
        |i| self.session.read_value(i)
    }
}
