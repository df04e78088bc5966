//! One shared copy of the strings the session index repeats: a parent's id (nearly every entry
//! names the entry before it again), stop reasons, providers, models and the tool names of
//! results. A session of many small entries holds one index entry per line, and a separate
//! allocation for each repeat was about a tenth of it.

use std::collections::HashSet;
use std::sync::Arc;

use super::entry::{Body, Entry, Key};

/// What has been seen so far while a session is read (dropped once it is read).
#[derive(Default)]
pub(super) struct Interner {
    /// The previous entry's id: most entries' parent (a parent further back keeps its own copy).
    last_id: Option<Arc<str>>,
    /// Stop reasons, providers, models and the tool names of results: a handful of distinct
    /// values.
    names: HashSet<Arc<str>, rustc_hash::FxBuildHasher>,
}

impl Interner {
    /// The shared copy of name `a` (the first one seen with its text).
    fn name(&mut self, a: &mut Arc<str>) {
        match self.names.get(&**a) {
            Some(first) => *a = Arc::clone(first),
            None => {
                self.names.insert(Arc::clone(a));
            }
        }
    }

    fn opt(&mut self, s: &mut Option<Arc<str>>) {
        if let Some(a) = s {
            self.name(a);
        }
    }

    /// Make `e`'s repeated strings the shared copies.
    pub(super) fn entry(&mut self, e: &mut Entry) {
        if let (Some(Key(p)), Some(last)) = (&mut e.parent, &self.last_id)
            && **p == **last
        {
            *p = Arc::clone(last);
        }
        if let Some(Key(id)) = &e.id {
            self.last_id = Some(Arc::clone(id));
        }
        if let Body::Message(m) = &mut e.body {
            self.opt(&mut m.stop_reason);
            self.opt(&mut m.provider);
            self.opt(&mut m.model);
            self.opt(&mut m.tool_name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_parent_id_and_a_tool_name_are_the_first_copy_seen() {
        let line = |id: &str, parent: &str, msg: &str| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{msg}}}"#
            ) + "\n"
        };
        let assistant = r#"{"role":"assistant","provider":"p","model":"m","stopReason":"toolUse","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}]}"#;
        let result = r#"{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[]}"#;
        let text = String::from(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
        ) + "\n"
            + &line("a1", "null", assistant)
            + &line("b2", r#""a1""#, result)
            + &line("c3", r#""b2""#, assistant)
            + &line("d4", r#""c3""#, result)
            // A parent further back: its own copy, the same text.
            + &line("e5", r#""a1""#, result);
        let s = crate::session::Session::from_bytes(text.as_bytes(), Path::new("t.jsonl"))
            .expect("reads");
        let e = &s.entries;
        let id = |i: usize| &e[i].id.as_ref().expect("id").0;
        let parent = |i: usize| &e[i].parent.as_ref().expect("parent").0;
        assert_eq!(&**parent(1), "a1");
        assert!(
            Arc::ptr_eq(id(0), parent(1)),
            "the parent id is the parent's own copy"
        );
        assert!(Arc::ptr_eq(id(2), parent(3)));
        assert_eq!(&**parent(4), "a1");
        assert!(!Arc::ptr_eq(id(0), parent(4)));
        let m = |i: usize| e[i].msg().expect("a message");
        let name = |i: usize| m(i).tool_name.as_ref().expect("tool name");
        assert_eq!(&**name(1), "bash");
        assert!(Arc::ptr_eq(name(1), name(3)), "one copy of the tool's name");
        assert!(Arc::ptr_eq(name(1), name(4)));
        let stop = |i: usize| m(i).stop_reason.as_ref().expect("stop reason");
        assert!(Arc::ptr_eq(stop(0), stop(2)), "one copy of the stop reason");
        let provider = |i: usize| m(i).provider.as_ref().expect("provider");
        assert!(
            Arc::ptr_eq(provider(0), provider(2)),
            "one copy of the provider"
        );
        let model = |i: usize| m(i).model.as_ref().expect("model");
        assert!(Arc::ptr_eq(model(0), model(2)));
    }
}
