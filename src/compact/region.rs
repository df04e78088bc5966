//! The pruned region as data: materialized messages (read through pi-shake's folds), tool-call
//! pairs, user/assistant exchanges, and the pins of the design (step 2–3). Pure.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::session::Role;

pub use crate::score::pair::{normalised_args, same_key};

/// One content block, as far as compaction cares.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Text(String),
    Image {
        mime: String,
        data_len: usize,
    },
    Thinking,
    ToolCall {
        id: String,
        name: String,
        /// Shared with the pair and the scorer's question (a region's arguments can be most of
        /// its bytes: held once).
        args: Arc<Value>,
    },
}

/// What a message is.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    User(Vec<Block>),
    Assistant(Vec<Block>),
    ToolResult {
        call_id: String,
        tool: String,
        blocks: Vec<Block>,
        is_error: bool,
        /// The lines a `read` result shows (default for other tools): kept when a compaction
        /// lets go of the text.
        shown: Shown,
    },
    Bash {
        command: String,
        output: String,
        exit_code: Option<i64>,
        cancelled: bool,
        excluded: bool,
    },
    Custom {
        custom_type: String,
        blocks: Vec<Block>,
    },
    BranchSummary(String),
    /// A role compaction does not render (kept as its role name).
    Other(String),
}

/// One message of the region (or of the kept tail), with its source.
#[derive(Clone, Debug, PartialEq)]
pub struct RMsg {
    /// Position in `projection.entries`.
    pub pos: usize,
    pub entry_id: String,
    pub kind: Kind,
}

fn blocks_of(content: Option<Value>) -> Vec<Block> {
    // Strings are moved out of the message, not copied: a big tool output is held once.
    let take_str = |v: Option<&mut Value>| match v.map(Value::take) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    match content {
        Some(Value::String(s)) => vec![Block::Text(s)],
        Some(Value::Array(items)) => items
            .into_iter()
            .filter_map(|mut b| {
                let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
                match ty {
                    "text" => Some(Block::Text(take_str(b.get_mut("text")))),
                    "image" => Some(Block::Image {
                        mime: b
                            .get("mimeType")
                            .and_then(Value::as_str)
                            .unwrap_or("image")
                            .to_string(),
                        data_len: b.get("data").and_then(Value::as_str).map_or(0, str::len),
                    }),
                    "thinking" => Some(Block::Thinking),
                    "toolCall" => Some(Block::ToolCall {
                        id: take_str(b.get_mut("id")),
                        name: take_str(b.get_mut("name")),
                        args: Arc::new(b.get_mut("arguments").map_or(Value::Null, Value::take)),
                    }),
                    _ => None,
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Text blocks joined with `\n` (pi-ai's `contentText`).
pub fn text_of(blocks: &[Block]) -> String {
    let mut out = Vec::new();
    for b in blocks {
        if let Block::Text(t) = b {
            out.push(t.as_str());
        }
    }
    out.join("\n")
}

/// [`text_of`] without a copy when there is one text block (the usual tool result): what a big
/// output's features are read from.
pub fn text_ref(blocks: &[Block]) -> std::borrow::Cow<'_, str> {
    let mut texts = blocks.iter().filter_map(|b| match b {
        Block::Text(t) => Some(t.as_str()),
        _ => None,
    });
    match (texts.next(), texts.next()) {
        (None, _) => std::borrow::Cow::Borrowed(""),
        (Some(one), None) => std::borrow::Cow::Borrowed(one),
        _ => std::borrow::Cow::Owned(text_of(blocks)),
    }
}

/// Parse one materialized message. `None` for system messages and compaction summaries.
pub fn parse_message(pos: usize, entry_id: &str, mut m: Value) -> Option<RMsg> {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let kind = match Role::parse_str(role) {
        Role::System | Role::CompactionSummary => return None,
        Role::User => Kind::User(blocks_of(m.get_mut("content").map(Value::take))),
        Role::Assistant => Kind::Assistant(blocks_of(m.get_mut("content").map(Value::take))),
        Role::ToolResult => {
            let (tool, call_id) = (s("toolName"), s("toolCallId"));
            let is_error = m.get("isError").and_then(Value::as_bool).unwrap_or(false);
            let blocks = blocks_of(m.get_mut("content").map(Value::take));
            Kind::ToolResult {
                call_id,
                shown: match tool.as_str() {
                    "read" => Shown::of(&text_ref(&blocks)),
                    "bash" => Shown::of_shell(&text_ref(&blocks)),
                    _ => Shown::default(),
                },
                tool,
                blocks,
                is_error,
            }
        }
        Role::BashExecution => Kind::Bash {
            command: s("command"),
            output: s("output"),
            exit_code: m.get("exitCode").and_then(Value::as_i64),
            cancelled: m.get("cancelled").and_then(Value::as_bool).unwrap_or(false),
            excluded: m
                .get("excludeFromContext")
                .is_some_and(|v| !crate::jscompat::js_is_falsy(v)),
        },
        Role::Custom => Kind::Custom {
            custom_type: s("customType"),
            blocks: blocks_of(m.get_mut("content").map(Value::take)),
        },
        Role::BranchSummary => Kind::BranchSummary(s("summary")),
        Role::Other => Kind::Other(role.to_string()),
    };
    Some(RMsg {
        pos,
        entry_id: entry_id.to_string(),
        kind,
    })
}

/// The lines a `read` or `bash` result shows: how many, the line a `read`'s notice says to go
/// on from (`[2140 more lines in file. Use offset=2001 to continue]`, `[Showing lines 1-2000 of
/// 5436 (50.0KB limit). Use offset=2001 to continue]`), and the lines of a shell output pi cut
/// before those it shows (`[Showing lines 3001-5000 of 5000. Full output: …]`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shown {
    pub lines: u32,
    /// The `offset=` of the notice: the first line of the file not shown.
    pub next: Option<u32>,
    /// Lines of the output before the first one shown.
    pub skipped: u32,
    /// A shell output whose every line starts with a line number (`grep -n`'s `12:` for a
    /// match, `12-` for context, `--` between groups; `nl`'s and `cat -n`'s `    12<tab>`): the
    /// lines `[first, end)` it spans.
    pub numbered: Option<(u32, u32)>,
}

impl Shown {
    /// What the result text `text` shows.
    pub fn of(text: &str) -> Shown {
        let body = text.trim_end();
        let next = body
            .rsplit('\n')
            .next()
            .filter(|l| l.starts_with('[') && l.ends_with(']'))
            .and_then(|l| l.split("Use offset=").nth(1))
            .and_then(|r| {
                let digits = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
                r[..digits].parse().ok()
            });
        Shown {
            lines: u32::try_from(body.lines().count()).unwrap_or(u32::MAX),
            next,
            ..Shown::default()
        }
    }

    /// What the `bash` result text `text` shows: its lines without pi's notice, and from its
    /// notice the lines cut before them. Nothing for an empty output (`(no output)`) or one
    /// whose last line pi cut (`[Showing last 50.0KB of line 7 …]`).
    pub fn of_shell(text: &str) -> Shown {
        let body = text.trim_end();
        let (body, skipped) = match body.rsplit_once("\n\n[Showing ") {
            Some((body, notice)) if notice.ends_with(']') && !notice.contains('\n') => {
                let first = notice
                    .strip_prefix("lines ")
                    .and_then(|r| r.split_once('-'))
                    .and_then(|(a, _)| a.parse::<u32>().ok());
                match first {
                    Some(first) => (body, first.saturating_sub(1)),
                    None => return Shown::default(),
                }
            }
            _ => (body, 0),
        };
        if body.is_empty() || body == "(no output)" {
            return Shown::default();
        }
        Shown {
            lines: u32::try_from(body.lines().count()).unwrap_or(u32::MAX),
            next: None,
            skipped,
            numbered: numbered(body),
        }
    }
}

/// The lines `[first, end)` an output spans whose every line starts with a line number and
/// `:` or `-` (`grep -n`, `--` lines apart), or with spaces, a line number and a tab (`nl`,
/// `cat -n`); `None` when one does not.
fn numbered(body: &str) -> Option<(u32, u32)> {
    let mut span: Option<(u32, u32)> = None;
    for line in body.lines().filter(|l| *l != "--") {
        let indented = line.starts_with(' ');
        let line = line.trim_start_matches(' ');
        let digits = line.find(|c: char| !c.is_ascii_digit())?;
        match line.as_bytes().get(digits) {
            Some(b'\t') => {}
            Some(b':' | b'-') if !indented => {}
            _ => return None,
        }
        let n: u32 = line[..digits].parse().ok()?;
        let (first, end) = span.unwrap_or((n, n.saturating_add(1)));
        span = Some((first.min(n), end.max(n.saturating_add(1))));
    }
    span.filter(|(first, _)| *first > 0)
}

/// A tool call and (when found) its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    /// 1-based ordinal in the region (`t{n}`).
    pub n: usize,
    /// Index into the messages of the call's assistant message and of the block.
    pub call_msg: usize,
    pub block: usize,
    /// Index of the result message, if any.
    pub result_msg: Option<usize>,
    pub call_id: String,
    pub tool: String,
    pub args: Arc<Value>,
    /// Result text (text blocks joined with `\n`).
    pub output: String,
    /// Chars of the output (kept when the text itself is not held).
    pub output_chars: usize,
    pub images: usize,
    pub is_error: bool,
    /// The lines its result shows (a `read`'s; default for other tools).
    pub shown: Shown,
    /// The question id (`t{n}` from [`pair_up`]; [`stable_ids`] makes it `t{line}`).
    pub key: String,
}

impl Pair {
    /// The pair's id: `t{line}` once [`stable_ids`] ran, else `t{n}`.
    pub fn id(&self) -> String {
        self.key.clone()
    }
    /// The file it works on (`path`, else `file_path`), if any.
    pub fn path(&self) -> Option<&str> {
        self.arg("path")
            .or_else(|| self.arg("file_path"))
            .filter(|x| !x.is_empty())
    }
    /// A string argument.
    pub fn arg(&self, k: &str) -> Option<&str> {
        self.args.get(k).and_then(Value::as_str)
    }
    /// The lines of its file a `read` showed, `[first, end)` counted from 1: from its `offset`
    /// (else 1) to the line its notice says to go on from, else past its last line.
    pub fn read_span(&self) -> Option<(u64, u64)> {
        if self.tool != "read" || self.is_error || self.shown.lines == 0 {
            return None;
        }
        let first = match self.args.get("offset") {
            None | Some(Value::Null) => 1,
            Some(Value::Number(n)) => n.as_u64()?,
            Some(Value::String(s)) => s.trim().parse().ok()?,
            Some(_) => return None,
        }
        .max(1);
        let end = self
            .shown
            .next
            .map_or(first.saturating_add(u64::from(self.shown.lines)), u64::from);
        (end > first).then_some((first, end))
    }

    /// An edit's (old, new) text pairs: its `edits` list, then the single-edit argument names
    /// agents use (`oldText`/`newText`, `old_string`/`new_string`, `oldString`/`newString`).
    pub fn edits(&self) -> Vec<(&str, &str)> {
        let mut out = Vec::new();
        if let Some(list) = self.args.get("edits").and_then(Value::as_array) {
            for e in list {
                let g = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
                out.push((g("oldText"), g("newText")));
            }
        }
        for (ko, kn) in [
            ("oldText", "newText"),
            ("old_string", "new_string"),
            ("oldString", "newString"),
        ] {
            if let (Some(a), Some(b)) = (self.arg(ko), self.arg(kn)) {
                out.push((a, b));
            }
        }
        out
    }

    /// A shell call's command (`command`, else `cmd`).
    pub fn command(&self) -> Option<&str> {
        self.arg("command").or_else(|| self.arg("cmd"))
    }

    /// The rest of a multi-line shell command (`command`, else `cmd`): its lines after the
    /// first, which the call line shows (`first …(+14 lines)`). `None` for a one-line command
    /// or when the rest is blank. Under a budget these lines compete with the outputs' lines.
    pub fn script(&self) -> Option<&str> {
        let c = self.command()?.trim_end();
        let rest = &c[c.find('\n')? + 1..];
        (!rest.trim().is_empty()).then_some(rest)
    }

    /// The text an edit or write put in the file: a write's content, an edit's new texts
    /// ([`Self::edits`], in order, a blank line between). Under a budget its lines compete
    /// with the tool outputs' lines.
    pub fn written_text(&self) -> String {
        if self.tool == "write" {
            return self.arg("content").unwrap_or("").to_string();
        }
        let news: Vec<&str> = self.edits().into_iter().map(|(_, n)| n).collect();
        news.join("\n\n")
    }
}

/// Pair every `toolCall` block with the `toolResult` carrying its id (the first one after it).
pub fn pair_up(msgs: &[RMsg]) -> Vec<Pair> {
    // Unused results by call id, in order (linear in the messages).
    let mut by_id: std::collections::HashMap<&str, std::collections::VecDeque<usize>> =
        std::collections::HashMap::new();
    for (j, m) in msgs.iter().enumerate() {
        if let Kind::ToolResult { call_id, .. } = &m.kind
            && !call_id.is_empty()
        {
            by_id.entry(call_id.as_str()).or_default().push_back(j);
        }
    }
    let mut out = Vec::new();
    for (mi, m) in msgs.iter().enumerate() {
        let Kind::Assistant(blocks) = &m.kind else {
            continue;
        };
        for (bi, b) in blocks.iter().enumerate() {
            let Block::ToolCall { id, name, args } = b else {
                continue;
            };
            let result = by_id.get_mut(id.as_str()).and_then(|q| {
                while q.front().is_some_and(|&j| j <= mi) {
                    q.pop_front();
                }
                q.pop_front()
            });
            let (output, images, is_error, shown) = match result.map(|j| &msgs[j].kind) {
                Some(Kind::ToolResult {
                    blocks,
                    is_error,
                    shown,
                    ..
                }) => (
                    text_of(blocks),
                    blocks
                        .iter()
                        .filter(|b| matches!(b, Block::Image { .. }))
                        .count(),
                    *is_error,
                    *shown,
                ),
                _ => (String::new(), 0, false, Shown::default()),
            };
            out.push(Pair {
                key: format!("t{}", out.len() + 1),
                n: out.len() + 1,
                call_msg: mi,
                block: bi,
                result_msg: result,
                call_id: id.clone(),
                tool: name.clone(),
                args: args.clone(),
                output_chars: output.chars().count(),
                output,
                images,
                is_error,
                shown,
            });
        }
    }
    out
}

/// Gives every pair an id that stays the same across runs, whatever the pin set, the cut or the
/// turns appended since: `t{L}` for the first tool call of the assistant entry on line `L` of the
/// file (1-based; the file is append-only), `t{L}_{k}` for its k-th call (k ≥ 2)
/// ([`crate::pair_ids::pair_id`]). `line_of` maps a pair's `call_msg` to that line. An id an
/// earlier summary on the path already gives another call (`taken`: only after pi copied the
/// branch to a new file, where lines move) gets a letter ([`crate::pair_ids::unused`]).
pub fn stable_ids(
    pairs: &mut [Pair],
    line_of: impl Fn(usize) -> u32,
    taken: impl Fn(&str) -> bool,
) {
    let mut last: Option<(u32, usize)> = None;
    for p in pairs.iter_mut() {
        let line = line_of(p.call_msg);
        let k = match last {
            Some((l, k)) if l == line => k + 1,
            _ => 1,
        };
        last = Some((line, k));
        p.key = crate::pair_ids::unused(crate::pair_ids::pair_id(line, k), &taken);
    }
}

/// A user prompt and the assistant's visible text of that turn.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Exchange {
    pub user: String,
    pub assistant: String,
}

/// The exchanges of `msgs`, in order (a turn starts at a user message).
pub fn exchanges(msgs: &[RMsg]) -> Vec<Exchange> {
    let mut out: Vec<Exchange> = Vec::new();
    exchanges_cont(&mut out, msgs);
    out
}

/// Continue `out` with the exchanges of `msgs` (which follow the ones `out` came from).
pub fn exchanges_cont(out: &mut Vec<Exchange>, msgs: &[RMsg]) {
    for m in msgs {
        match &m.kind {
            Kind::User(blocks) => out.push(Exchange {
                user: text_of(blocks),
                assistant: String::new(),
            }),
            Kind::Assistant(blocks) => {
                let t = text_of(blocks);
                if t.is_empty() {
                    continue;
                }
                if let Some(last) = out.last_mut() {
                    if !last.assistant.is_empty() {
                        last.assistant.push_str("\n\n");
                    }
                    last.assistant.push_str(&t);
                }
            }
            _ => {}
        }
    }
}

/// Why a pair skips the scorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Pin {
    /// The last invoked skill load: full body.
    Skill,
    /// An `isError` result with no later same-key success: verbatim.
    UnresolvedError,
    /// A result with images: untouched.
    Image,
    /// `edit` / `write`: path, heads of old/new text, short write bodies (under a budget: path
    /// and the kept lines of its new text).
    EditWrite,
    /// A git mutation: 600-char head.
    GitMutation,
}

impl Pin {
    /// The pin's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Pin::Skill => "skill",
            Pin::UnresolvedError => "unresolvedError",
            Pin::Image => "image",
            Pin::EditWrite => "editWrite",
            Pin::GitMutation => "gitMutation",
        }
    }

    /// Whether a budget's levels show or leave out its body whole (a git head, a skill body,
    /// an output with images). An unresolved error's lines compete at the levels that cut
    /// it, and an edit's or write's new text competes line by line at every level.
    pub fn body_by_level(self) -> bool {
        matches!(self, Pin::Skill | Pin::Image | Pin::GitMutation)
    }
}

const GIT_MUTATIONS: &[&str] = &[
    "commit",
    "push",
    "merge",
    "rebase",
    "reset",
    "tag",
    "cherry-pick",
    "revert",
    "am",
    "apply",
];

/// Whether a shell command runs a mutating git subcommand (not status/diff/log/show).
pub fn is_git_mutation(command: &str) -> bool {
    for segment in command.split(['\n', ';', '|', '&']) {
        let words: Vec<&str> = segment.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            let w = words[i].trim_matches(|c| c == '(' || c == ')');
            if w == "git" || w.ends_with("/git") {
                // Skip global options (`-C dir`, `-c k=v`, `--no-pager`, …).
                let mut j = i + 1;
                while j < words.len() && words[j].starts_with('-') {
                    if matches!(words[j], "-C" | "-c" | "--git-dir" | "--work-tree") {
                        j += 1;
                    }
                    j += 1;
                }
                if let Some(sub) = words.get(j) {
                    if GIT_MUTATIONS.contains(sub) {
                        return true;
                    }
                    if matches!(*sub, "checkout" | "switch")
                        && words[j + 1..]
                            .iter()
                            .any(|a| matches!(*a, "-b" | "-B" | "-c" | "-C"))
                    {
                        return true;
                    }
                }
                i = j;
            }
            i += 1;
        }
    }
    false
}

/// Whether a pair loads a skill: a `read` of a `SKILL.md`, or a tool named like `skill`.
pub fn is_skill_load(p: &Pair) -> bool {
    if p.tool.to_ascii_lowercase().contains("skill") {
        return true;
    }
    p.tool == "read"
        && p.arg("path").is_some_and(|path| {
            let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
            base.eq_ignore_ascii_case("SKILL.md")
        })
}

/// Pins for the region's pairs (`later` = the pairs of the kept tail, for the same-key rule).
pub fn pins(pairs: &[Pair], later: &[Pair]) -> Vec<Option<Pin>> {
    let mut out: Vec<Option<Pin>> = vec![None; pairs.len()];
    let key = |p: &Pair| same_key(&p.tool, &p.args);
    // Unresolved errors: the last fail per key with no later same-key result (a later success
    // resolves it, a later failure takes over as the last one). One backward pass.
    let mut seen: std::collections::HashSet<String> = later
        .iter()
        .filter(|q| q.result_msg.is_some())
        .map(key)
        .collect();
    for i in (0..pairs.len()).rev() {
        let p = &pairs[i];
        if p.result_msg.is_none() {
            continue;
        }
        let k = key(p);
        if p.is_error && !seen.contains(&k) {
            out[i] = Some(Pin::UnresolvedError);
        }
        seen.insert(k);
    }
    for (i, p) in pairs.iter().enumerate() {
        if out[i].is_some() || p.result_msg.is_none() {
            continue;
        }
        out[i] = if p.images > 0 {
            Some(Pin::Image)
        } else if matches!(p.tool.as_str(), "edit" | "write") {
            Some(Pin::EditWrite)
        } else if p.tool == "bash" && p.arg("command").is_some_and(is_git_mutation) {
            Some(Pin::GitMutation)
        } else {
            None
        };
    }
    if let Some(i) = pairs
        .iter()
        .rposition(|p| p.result_msg.is_some() && is_skill_load(p))
    {
        out[i] = Some(Pin::Skill);
    }
    out
}

#[cfg(test)]
impl Pair {
    /// A call `c1` (`t1`) of `tool` with `args`, and its result: empty, not an error.
    pub fn of(tool: &str, args: Value) -> Pair {
        Pair {
            n: 1,
            call_msg: 0,
            block: 0,
            result_msg: Some(1),
            call_id: "c1".into(),
            tool: tool.into(),
            args: Arc::new(args),
            output: String::new(),
            output_chars: 0,
            images: 0,
            is_error: false,
            shown: Shown::default(),
            key: "t1".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_mutations() {
        for c in [
            "git commit -m x",
            "cd repo && git push origin main",
            "git -C sub rebase main",
            "git checkout -b feature",
            "git tag v1",
            "git cherry-pick abc",
            "git am < p",
            "/usr/bin/git reset --hard",
        ] {
            assert!(is_git_mutation(c), "{c}");
        }
        for c in [
            "git status",
            "git diff",
            "git log -3",
            "git show HEAD",
            "git checkout main",
        ] {
            assert!(!is_git_mutation(c), "{c}");
        }
    }

    #[test]
    fn a_read_shows_the_lines_its_offset_and_notice_say() {
        let shown = |text: &str| Shown::of(text);
        assert_eq!(
            shown("a\nb\n\n[2140 more lines in file. Use offset=2001 to continue]\n"),
            Shown {
                lines: 4,
                next: Some(2001),
                ..Shown::default()
            }
        );
        assert_eq!(
            shown(
                "a\n\n[Showing lines 1-2000 of 5436 (50.0KB limit). Use offset=2001 to continue]"
            ),
            Shown {
                lines: 3,
                next: Some(2001),
                ..Shown::default()
            }
        );
        // No notice: the file ended (a line that only mentions an offset is not one).
        assert_eq!(
            shown("a\nb\nc\n"),
            Shown {
                lines: 3,
                next: None,
                ..Shown::default()
            }
        );
        assert_eq!(
            shown("see [Use offset=9 to continue] above\nb"),
            Shown {
                lines: 2,
                next: None,
                ..Shown::default()
            }
        );
        assert_eq!(
            shown(""),
            Shown {
                lines: 0,
                next: None,
                ..Shown::default()
            }
        );

        let read = |args: Value, text: &str| {
            let msgs = vec![
                RMsg {
                    pos: 0,
                    entry_id: "a".into(),
                    kind: Kind::Assistant(vec![Block::ToolCall {
                        id: "c1".into(),
                        name: "read".into(),
                        args: args.into(),
                    }]),
                },
                parse_message(
                    1,
                    "b",
                    serde_json::json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                        "content": [{"type": "text", "text": text}], "isError": false}),
                )
                .unwrap(),
            ];
            pair_up(&msgs)[0].read_span()
        };
        let notice = "x\n\n[90 more lines in file. Use offset=60 to continue]";
        let args = |o: Value| serde_json::json!({"path": "a.rs", "offset": o, "limit": 50});
        assert_eq!(read(args(serde_json::json!(10)), notice), Some((10, 60)));
        assert_eq!(read(args(serde_json::json!("10")), notice), Some((10, 60)));
        assert_eq!(
            read(serde_json::json!({"path": "a.rs"}), "x\ny"),
            Some((1, 3))
        );
        assert_eq!(read(args(serde_json::json!(0)), "x\ny"), Some((1, 3)));
        assert_eq!(read(args(serde_json::json!(-3)), "x"), None);
        assert_eq!(
            read(args(serde_json::json!(u64::MAX)), "x"),
            None,
            "no line after the last"
        );
        assert_eq!(read(serde_json::json!({"path": "a.rs"}), ""), None);
    }

    #[test]
    fn a_shell_output_shows_its_lines_and_the_lines_pi_cut_before_them() {
        let shown = |lines, skipped| Shown {
            lines,
            skipped,
            ..Shown::default()
        };
        assert_eq!(Shown::of_shell("a\nb\nc\n"), shown(3, 0));
        assert_eq!(
            Shown::of_shell("a\nb\n\n[Showing lines 3001-3002 of 3002. Full output: /tmp/o]"),
            shown(2, 3000)
        );
        assert_eq!(
            Shown::of_shell(
                "a\n\n[Showing lines 41-41 of 41 (50.0KB limit). Full output: /tmp/pi-bash-1.log]"
            ),
            shown(1, 40)
        );
        // A line that only looks like a notice is a line.
        assert_eq!(Shown::of_shell("[Showing lines 3-4 of 9]"), shown(1, 0));
        assert_eq!(Shown::of_shell("a\n\n[Showing the plan]\nb"), shown(4, 0));
        for nothing in [
            "",
            "(no output)",
            "\n\n[Showing lines 1-0 of 0. Full output: /tmp/o]",
            "x\n\n[Showing last 50.0KB of line 7 (line is 2.0MB). Full output: /tmp/o]",
        ] {
            assert_eq!(Shown::of_shell(nothing), Shown::default(), "{nothing:?}");
        }
        // Parsed from a `bash` result; another tool's shows nothing.
        let result = |tool: &str| {
            let m = parse_message(
                1,
                "b",
                serde_json::json!({"role": "toolResult", "toolCallId": "c1", "toolName": tool,
                    "content": [{"type": "text", "text": "a\nb"}], "isError": false}),
            );
            match m.map(|m| m.kind) {
                Some(Kind::ToolResult { shown, .. }) => shown,
                _ => panic!("not a tool result"),
            }
        };
        assert_eq!(result("bash"), shown(2, 0));
        assert_eq!(result("grep"), Shown::default());
    }

    #[test]
    fn a_numbered_shell_output_spans_its_first_to_its_last_line_number() {
        let numbered = |text: &str| Shown::of_shell(text).numbered;
        assert_eq!(
            numbered("40:fn main() {\n41-    run();\n--\n95:fn run()"),
            Some((40, 96))
        );
        assert_eq!(numbered("7:x"), Some((7, 8)));
        assert_eq!(
            numbered("   120\tfn main() {\n   121\t\n   122\t}"),
            Some((120, 123))
        );
        // pi cut the output: the lines it shows.
        assert_eq!(
            numbered("900:a\n905:b\n\n[Showing lines 2-3 of 3. Full output: /tmp/o]"),
            Some((900, 906))
        );
        for not in [
            "src/a.ts:12:x",
            "12 x",
            "x\n12:x",
            "0:x",
            "12",
            "  12:x",
            "12 x\t",
            "--",
            "(no output)",
        ] {
            assert_eq!(numbered(not), None, "{not:?}");
        }
    }

    #[test]
    fn same_key_rule() {
        let a = serde_json::json!({"path": "a.rs", "offset": 1});
        let b = serde_json::json!({"path": "a.rs", "offset": 9});
        assert_eq!(same_key("read", &a), same_key("read", &b));
        let c = serde_json::json!({"command": "cargo test"});
        let d = serde_json::json!({"command": "cargo test "});
        assert_ne!(same_key("bash", &c), same_key("bash", &d));
    }

    #[test]
    fn a_commands_rest_is_its_lines_after_the_first() {
        let pair = |args: Value| Pair::of("bash", args);
        let p = pair(serde_json::json!({"command": "cd src\n\nsed -i 's/a/b/' x.ts\nls\n"}));
        assert_eq!(p.script(), Some("\nsed -i 's/a/b/' x.ts\nls"));
        let p = pair(serde_json::json!({"cmd": "make\n  all"}));
        assert_eq!(p.script(), Some("  all"));
        for one in [
            serde_json::json!({"command": "cargo test\n"}),
            serde_json::json!({"command": "cargo test\n \n"}),
            serde_json::json!({"command": "ls"}),
            serde_json::json!({"path": "a\nb"}),
        ] {
            assert_eq!(pair(one.clone()).script(), None, "{one}");
        }
    }
}
