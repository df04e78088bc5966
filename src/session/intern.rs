//! One shared copy of the strings the session index repeats: a parent's id (nearly every entry
//! names the entry before it again), providers, models and tool names. A session of many small
//! entries holds one index entry per line, and a separate allocation for each repeat was about
//! a tenth of it.

use std::collections::HashSet;
use std::sync::Arc;

use super::entry::{Body, Entry, Key};

/// What has been seen so far while a session is read (dropped once it is read).
#[derive(Default)]
pub(super) struct Interner {
    /// The previous entry's id: most entries' parent (a parent further back keeps its own copy).
    last_id: Option<Arc<str>>,
    /// Providers, models and tool names: a handful of distinct values.
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
            self.opt(&mut m.provider);
            self.opt(&mut m.model);
            self.opt(&mut m.tool_name);
            for c in m.content.tool_calls.iter_mut() {
                self.name(&mut c.name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_parent_id_and_a_tool_name_are_the_first_copy_seen() {
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"assistant","provider":"p","model":"m","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}]}}"#,
            "\n",
            r#"{"type":"message","id":"b2","parentId":"a1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[]}}"#,
            "\n",
            r#"{"type":"message","id":"c3","parentId":"b2","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"assistant","provider":"p","model":"m","content":[]}}"#,
            "\n",
        );
        let s = crate::session::Session::from_bytes(text.as_bytes(), Path::new("t.jsonl"))
            .expect("reads");
        let [a, b, c] = [&s.entries[0], &s.entries[1], &s.entries[2]];
        let (ka, kb) = (
            a.id.as_ref().expect("id"),
            b.parent.as_ref().expect("parent"),
        );
        assert_eq!(&*kb.0, "a1");
        assert!(
            Arc::ptr_eq(&ka.0, &kb.0),
            "the parent id is the parent's own copy"
        );
        let (ma, mb, mc) = (
            a.msg().expect("msg"),
            b.msg().expect("msg"),
            c.msg().expect("msg"),
        );
        let call = &ma.content.tool_calls[0].name;
        let result = mb.tool_name.as_ref().expect("tool name");
        assert_eq!(&**result, "bash");
        assert!(Arc::ptr_eq(call, result), "one copy of the tool's name");
        let (pa, pc) = (
            ma.provider.as_ref().expect("p"),
            mc.provider.as_ref().expect("p"),
        );
        assert!(Arc::ptr_eq(pa, pc), "one copy of the provider");
        assert!(Arc::ptr_eq(
            ma.model.as_ref().expect("m"),
            mc.model.as_ref().expect("m")
        ));
    }
}
