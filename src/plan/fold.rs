//! Stage 4a: plan a shake — which entries to fold, and the content that replaces theirs.
//!
//! Works on the projection (what the model sees) and the wall (what pi-shake already folded).
//! It selects candidates from the compact per-entry facts first and asks `fetch` for the full
//! JSON of only the entries whose bytes it must copy (an image kept beside a placeholder, the
//! blocks around a folded thinking block, the text around a fenced block). The plan is data;
//! nothing here writes.
//!
//! Rules (`docs/design-shake.md`; `docs/product.md#decisions` where it is silent):
//! - only editable entries (user/assistant/toolResult messages, custom messages) in the
//!   compaction-aware context of the active branch; never entries whose overlay someone else
//!   wrote; never a scope already folded on that entry;
//! - `elide`: whole tool results and fenced/XML regions of at least the block minimum, outside
//!   the protected tail (newest messages up to `tail` tokens; a straddling message is inside);
//! - `thinking` and `images`: every block, no tail, no minimum;
//! - a fold must shrink the entry (pi's estimate), and a placeholder is never larger than what
//!   it replaces.

use anyhow::Result;
use serde_json::{Value, json};

use crate::projection::Projection;
use crate::regions::{find_regions, replace_regions};
use crate::session::{Body, ContentStats, Role, Session};
use crate::text::thousands;
use crate::tree::Tree;
use crate::wall::{FoldKind, Scope, Wall};

/// What to fold.
#[derive(Clone, Debug, PartialEq)]
pub struct FoldParams {
    /// Scopes in the order they are applied.
    pub scopes: Vec<Scope>,
    /// Protected recent tail (tokens), elide only.
    pub tail: u64,
    /// Minimum tokens of a fenced block / XML span, elide only.
    pub block_min: u64,
}

/// One scope's fold of one entry.
#[derive(Clone, Debug, PartialEq)]
pub struct ScopeFold {
    pub scope: Scope,
    /// `toolResult`, `block`, `thinking`, `image` ([`FoldKind::as_str`]).
    pub kind: &'static str,
    /// Blocks or regions folded.
    pub count: u32,
    pub tokens_before: u64,
    pub tokens_after: u64,
}

/// The new overlay for one entry (all scopes of this run combined into one edit).
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFold {
    /// Entry index of the target.
    pub target: usize,
    pub target_id: String,
    pub tool: Option<String>,
    /// The content that replaces the target's (written as `replacement.content`).
    pub content: Value,
    pub folds: Vec<ScopeFold>,
    /// What undo restores to (None = the raw entry; Some(index of the base overlay)).
    pub base: Option<usize>,
    pub tokens_before: u64,
    pub tokens_after: u64,
}

/// A shake plan.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FoldPlan {
    pub folds: Vec<PlannedFold>,
    /// Tokens of the protected tail actually counted (elide).
    pub tail_tokens: u64,
    /// Entries skipped because someone else's overlay is in force.
    pub skipped_foreign: usize,
    /// Tokens the first request after this fold re-encodes (from the first folded entry on).
    pub cache_cost: u64,
}

impl FoldPlan {
    /// Σ tokens reclaimed.
    pub fn reclaimed(&self) -> u64 {
        self.folds
            .iter()
            .map(|f| f.tokens_before - f.tokens_after)
            .sum()
    }
    /// (count, tokens reclaimed) for one scope and kind.
    pub fn count(&self, scope: Scope, kind: &str) -> (u64, u64) {
        let mut n = 0;
        let mut t = 0;
        for f in &self.folds {
            for s in &f.folds {
                if s.scope == scope && s.kind == kind {
                    n += u64::from(s.count);
                    t += s.tokens_before - s.tokens_after;
                }
            }
        }
        (n, t)
    }
}

/// Entry indices of the context entries inside the protected tail.
pub fn tail_entries(p: &Projection, tail: u64) -> (Vec<bool>, u64) {
    let mut inside = vec![false; p.entries.len()];
    let mut cum = 0u64;
    'outer: for (pos, pe) in p.entries.iter().enumerate().rev() {
        for m in pe.messages.iter().rev() {
            if cum >= tail {
                break 'outer;
            }
            inside[pos] = true;
            cum += m.tokens0();
        }
    }
    (inside, cum)
}

/// Estimate pi's tokens for `content` as the content of entry `idx`.
fn tokens_of(s: &Session, idx: usize, content: &Value) -> Option<u64> {
    // Through text: the content measure borrows raw tool-call arguments from its input.
    let text = content.to_string();
    let stats: ContentStats = serde_json::from_str(&text).ok()?;
    match &s.entries[idx].body {
        Body::Message(m) => m.tokens_with(&stats),
        Body::CustomMessage { .. } => stats.user_chars().map(crate::jscompat::tokens_from_chars),
        _ => None,
    }
}

/// The content of an entry's JSON (`message.content`, or `content` of a custom message).
pub fn content_of(entry: &Value) -> Option<&Value> {
    match entry.get("type").and_then(Value::as_str) {
        Some("message") => entry.get("message").and_then(|m| m.get("content")),
        Some("custom_message") => entry.get("content"),
        _ => None,
    }
}

/// Plan a shake.
///
/// `fetch(i)` returns the JSON of entry `i` (the target or one of its overlays).
pub fn plan(
    s: &Session,
    t: &Tree,
    p: &Projection,
    w: &Wall,
    params: &FoldParams,
    fetch: &mut dyn FnMut(usize) -> Result<Value>,
) -> Result<FoldPlan> {
    let mut plans = plan_many(s, t, p, w, std::slice::from_ref(params), fetch)?;
    Ok(plans.pop().unwrap_or_default())
}

/// Plan several independent shakes (dry-run's one line per scope) in one pass over the context:
/// each plan is exactly what [`plan`] returns for its parameters alone, and an entry's bytes are
/// fetched at most once, whichever plans need them.
pub fn plan_many(
    s: &Session,
    t: &Tree,
    p: &Projection,
    w: &Wall,
    runs: &[FoldParams],
    fetch: &mut dyn FnMut(usize) -> Result<Value>,
) -> Result<Vec<FoldPlan>> {
    let _ = t;
    let mut tails = Vec::with_capacity(runs.len());
    let mut plans = Vec::with_capacity(runs.len());
    for params in runs {
        let (in_tail, tail_tokens) = tail_entries(p, params.tail);
        tails.push(in_tail);
        plans.push(FoldPlan {
            tail_tokens,
            ..Default::default()
        });
    }
    let mut first_pos: Vec<Option<usize>> = vec![None; runs.len()];
    let base_tokens: Vec<u64> = p.entries.iter().map(|pe| pe.tokens()).collect();
    let mut new_tokens: Vec<Vec<u64>> = vec![base_tokens; runs.len()];
    // Which runs want what of the current entry.
    let mut wanted: Vec<Option<Want>> = vec![None; runs.len()];
    for (pos, pe) in p.entries.iter().enumerate() {
        let e = &s.entries[pe.idx];
        if !e.editable() || pe.messages.is_empty() || !e.id.as_ref().is_some_and(|k| k.is_string())
        {
            continue;
        }
        let item = w.item(pe.idx);
        // Whose overlay is in force?
        let (current_from_edit, base) = match pe.edit {
            None => (None, None),
            Some(ed) if w.restores.contains_key(&ed) => {
                (None, w.restores.get(&ed).copied().flatten())
            }
            Some(ed) if w.is_own(ed) => (Some(ed), item.and_then(|it| it.base)),
            Some(_) => {
                for plan in &mut plans {
                    plan.skipped_foreign += 1;
                }
                continue;
            }
        };
        let done: &[Scope] = item.map(|it| it.scopes.as_slice()).unwrap_or_default();
        // Stats of the content the model sees now.
        let (role, stats) = match &e.body {
            Body::Message(m) => (m.role.unwrap_or(Role::Other), &m.content),
            Body::CustomMessage { content, .. } => (Role::Custom, &**content),
            _ => continue,
        };
        let stats = match current_from_edit {
            Some(ed) => match &s.entries[ed].body {
                Body::ContextEdit {
                    replacement: crate::session::Replacement::Content(c),
                    ..
                } => c,
                _ => continue,
            },
            None => stats,
        };
        if stats.is_weird || stats.is_null {
            continue;
        }
        // A string can't be restored exactly into assistant/toolResult (pi wraps it).
        if stats.is_string && matches!(role, Role::Assistant | Role::ToolResult) {
            continue;
        }
        let mut fetch_for = 0usize;
        for (k, params) in runs.iter().enumerate() {
            wanted[k] = Want::of(
                params,
                done,
                tails[k][pos],
                role,
                stats,
                current_from_edit.is_some(),
            );
            fetch_for += usize::from(wanted[k].is_some_and(|w| w.needs_content));
        }
        if wanted.iter().all(Option::is_none) {
            continue;
        }
        let tool = e.msg().and_then(|m| m.tool_name.clone());
        let before = pe.tokens();
        let mut fetched: Option<Value> = None;
        if fetch_for > 0 {
            let mut v = fetch(current_from_edit.unwrap_or(pe.idx))?;
            fetched = take_content(&mut v, current_from_edit.is_some());
        }
        let missing = fetched.is_none();
        for (k, params) in runs.iter().enumerate() {
            let Some(want) = wanted[k] else {
                continue;
            };
            if want.needs_content && missing {
                continue;
            }
            let content: Value = if want.needs_content {
                fetch_for -= 1;
                let shared = fetched.as_ref();
                match (fetch_for, shared) {
                    (0, _) => fetched.take().unwrap_or(Value::Null),
                    (_, Some(c)) => c.clone(),
                    (_, None) => Value::Null,
                }
            } else {
                Value::Array(Vec::new())
            };
            let (content, folds, cur_tokens) = fold_steps(
                |c| tokens_of(s, pe.idx, c),
                params,
                want,
                content,
                before,
                stats,
                tool.as_deref(),
            );
            if folds.is_empty() {
                continue;
            }
            first_pos[k].get_or_insert(pos);
            new_tokens[k][pos] = cur_tokens;
            plans[k].folds.push(PlannedFold {
                target: pe.idx,
                target_id: e.id_str().to_string(),
                tool: tool.as_deref().map(str::to_string),
                content,
                folds,
                base,
                tokens_before: before,
                tokens_after: cur_tokens,
            });
        }
    }
    for (k, plan) in plans.iter_mut().enumerate() {
        if let Some(fp) = first_pos[k] {
            plan.cache_cost = new_tokens[k][fp..].iter().sum();
        }
    }
    Ok(plans)
}

/// What one run wants of one entry.
#[derive(Clone, Copy, Debug)]
struct Want {
    result: bool,
    blocks: bool,
    thinking: bool,
    images: bool,
    simple_result: bool,
    needs_content: bool,
}

impl Want {
    /// What run `params` wants of an entry (`None`: nothing): `done` = the scopes already
    /// folded in it, `in_tail` = inside the run's protected tail, `from_edit` = its content
    /// now is pi-shake's own overlay's.
    fn of(
        params: &FoldParams,
        done: &[Scope],
        in_tail: bool,
        role: Role,
        stats: &ContentStats,
        from_edit: bool,
    ) -> Option<Want> {
        let wants = |sc: Scope| params.scopes.contains(&sc) && !done.contains(&sc);
        let elide_ok = wants(Scope::Elide) && !in_tail;
        let min_chars = params.block_min.saturating_mul(4);
        let want_result = elide_ok && role == Role::ToolResult && stats.text_truthy_chars > 0;
        // The largest region was measured while reading: no fetch when none is big enough.
        let want_blocks = elide_ok
            && role != Role::ToolResult
            && (stats.max_text_len >= min_chars
                || (stats.is_string && stats.string_len >= min_chars))
            && stats.max_region_tokens >= params.block_min;
        let want_thinking =
            wants(Scope::Thinking) && role == Role::Assistant && stats.thinking_blocks > 0;
        let want_images = wants(Scope::Images) && stats.images > 0;
        if !(want_result || want_blocks || want_thinking || want_images) {
            return None;
        }
        // The content now: only fetched when its bytes must be copied.
        let simple_result = want_result
            && !want_images
            && !from_edit
            && stats.images == 0
            && stats.blocks == stats.text_blocks;
        Some(Want {
            result: want_result,
            blocks: want_blocks,
            thinking: want_thinking,
            images: want_images,
            simple_result,
            needs_content: !simple_result,
        })
    }
}

/// Fold an entry's `content` (`before` tokens; `tokens` estimates the entry with another
/// content) by run `params`'s scopes in order, each step kept only when the entry does not
/// grow: the new content, the steps taken and the tokens after.
fn fold_steps(
    tokens: impl Fn(&Value) -> Option<u64>,
    params: &FoldParams,
    want: Want,
    mut content: Value,
    before: u64,
    stats: &ContentStats,
    tool: Option<&str>,
) -> (Value, Vec<ScopeFold>, u64) {
    let mut folds = Vec::new();
    let mut cur_tokens = before;
    for &scope in &params.scopes {
        let step = match scope {
            Scope::Elide if want.result => {
                fold_result(&content, want.simple_result, stats.text_truthy_chars, tool)
            }
            Scope::Elide if want.blocks => fold_blocks(&content, params.block_min),
            Scope::Thinking if want.thinking => fold_thinking(&content),
            Scope::Images if want.images => fold_images(&content),
            _ => None,
        };
        let Some((kind, count, new_content)) = step else {
            continue;
        };
        let Some(after) = tokens(&new_content) else {
            continue;
        };
        // Each step already shrinks its own region; an entry never grows.
        if after > cur_tokens {
            continue;
        }
        content = new_content;
        folds.push(ScopeFold {
            scope,
            kind: kind.as_str(),
            count,
            tokens_before: cur_tokens,
            tokens_after: after,
        });
        cur_tokens = after;
    }
    (content, folds, cur_tokens)
}

/// Move the content out of a fetched entry (`replacement.content` of an overlay), no copy.
fn take_content(v: &mut Value, from_edit: bool) -> Option<Value> {
    let slot = if from_edit {
        v.get_mut("replacement").and_then(|r| r.get_mut("content"))
    } else {
        match v.get("type").and_then(Value::as_str) {
            Some("message") => v.get_mut("message").and_then(|m| m.get_mut("content")),
            Some("custom_message") => v.get_mut("content"),
            _ => None,
        }
    };
    slot.map(Value::take)
}

type Step = Option<(FoldKind, u32, Value)>;

/// A whole tool result: its text blocks become one placeholder; other blocks (images) stay.
fn fold_result(content: &Value, simple: bool, text_chars: u64, tool: Option<&str>) -> Step {
    let placeholder = |chars: u64| {
        format!(
            "[{} output omitted (~{} tokens)]",
            tool.filter(|t| !t.is_empty()).unwrap_or("tool"),
            thousands(crate::jscompat::tokens_from_chars(chars))
        )
    };
    if simple {
        let ph = placeholder(text_chars);
        if !shrinks(&ph, text_chars) {
            return None;
        }
        return Some((
            FoldKind::ToolResult,
            1,
            json!([{"type": "text", "text": ph}]),
        ));
    }
    let blocks = content.as_array()?;
    let mut out = Vec::with_capacity(blocks.len());
    let mut first: Option<usize> = None;
    let mut chars = 0u64;
    for b in blocks {
        let text = (b.get("type").and_then(Value::as_str) == Some("text"))
            .then(|| b.get("text").and_then(Value::as_str))
            .flatten();
        match text {
            // pi-shake's own placeholders (an image folded earlier) stay as they are.
            Some(t) if !is_placeholder(t) => {
                chars += crate::jscompat::utf16_len(t) as u64;
                if first.is_none() {
                    first = Some(out.len());
                    out.push(Value::Null);
                }
            }
            _ => out.push(b.clone()),
        }
    }
    let at = first?;
    let ph = placeholder(chars);
    if !shrinks(&ph, chars) {
        return None;
    }
    out[at] = json!({"type": "text", "text": ph});
    Some((FoldKind::ToolResult, 1, Value::Array(out)))
}

/// A placeholder replaces `chars` only if its own estimate is smaller (judged on the region
/// alone, so the decision does not depend on what else the entry holds or on rounding).
fn shrinks(placeholder: &str, chars: u64) -> bool {
    crate::jscompat::text_tokens(placeholder) < crate::jscompat::tokens_from_chars(chars)
}

/// Whether `text` is a placeholder pi-shake wrote (`[… omitted (~N tokens)]`).
pub fn is_placeholder(text: &str) -> bool {
    text.starts_with('[')
        && text.ends_with(" tokens)]")
        && text.contains(" omitted (~")
        && !text.contains('\n')
}

/// Fenced blocks and XML spans of at least `min` tokens, replaced in place.
fn fold_blocks(content: &Value, min: u64) -> Step {
    let fold_text = |t: &str| -> Option<(String, u32)> {
        let regions: Vec<_> = find_regions(t)
            .into_iter()
            .filter(|r| {
                r.tokens >= min
                    && shrinks(
                        &r.placeholder(),
                        crate::jscompat::utf16_len(&t[r.start..r.end]) as u64,
                    )
            })
            .collect();
        if regions.is_empty() {
            return None;
        }
        Some((replace_regions(t, &regions), regions.len() as u32))
    };
    match content {
        Value::String(t) => {
            let (new, n) = fold_text(t)?;
            Some((FoldKind::Block, n, Value::String(new)))
        }
        Value::Array(blocks) => {
            let mut total = 0;
            let mut out = blocks.clone();
            for b in &mut out {
                if b.get("type").and_then(Value::as_str) != Some("text") {
                    continue;
                }
                let Some(t) = b.get("text").and_then(Value::as_str) else {
                    continue;
                };
                if let Some((new, n)) = fold_text(t) {
                    b["text"] = Value::String(new);
                    total += n;
                }
            }
            (total > 0).then_some((FoldKind::Block, total, Value::Array(out)))
        }
        _ => None,
    }
}

/// Thinking blocks removed; a placeholder only when nothing else would remain.
fn fold_thinking(content: &Value) -> Step {
    let blocks = content.as_array()?;
    let mut out = Vec::with_capacity(blocks.len());
    let mut n = 0u32;
    let mut chars = 0u64;
    for b in blocks {
        if b.get("type").and_then(Value::as_str) == Some("thinking") {
            n += 1;
            chars += b
                .get("thinking")
                .and_then(Value::as_str)
                .map(crate::jscompat::utf16_len)
                .unwrap_or(0) as u64;
            continue;
        }
        out.push(b.clone());
    }
    if n == 0 || chars == 0 {
        return None;
    }
    if out.is_empty() {
        // Never leave an assistant message empty: a placeholder, if it is smaller.
        let ph = format!(
            "[thinking omitted (~{} tokens)]",
            thousands(crate::jscompat::tokens_from_chars(chars))
        );
        if !shrinks(&ph, chars) {
            return None;
        }
        out.push(json!({"type": "text", "text": ph}));
    }
    Some((FoldKind::Thinking, n, Value::Array(out)))
}

/// Image blocks replaced by a text placeholder.
fn fold_images(content: &Value) -> Step {
    let blocks = content.as_array()?;
    let mut n = 0u32;
    let out: Vec<Value> = blocks
        .iter()
        .map(|b| {
            if b.get("type").and_then(Value::as_str) == Some("image") {
                n += 1;
                json!({"type": "text", "text": "[image omitted (~1,200 tokens)]"})
            } else {
                b.clone()
            }
        })
        .collect();
    (n > 0).then_some((FoldKind::Image, n, Value::Array(out)))
}

#[cfg(test)]
#[path = "fold_tests.rs"]
mod tests;
