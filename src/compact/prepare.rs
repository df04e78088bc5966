//! Steps 1–4 of the compaction, up to the scorer ([`prepare`]): pi's cut, the region read
//! through pi-shake's folds, pairs and pins, the shared state and the questions. Pure apart
//! from `fetch` and the workspace read.

use anyhow::Result;
use serde_json::Value;

use super::region::{self, Kind, Pin, RMsg};
use super::system::replay_system_message;
use super::{CompactOptions, Fetch, Outcome, Prepared, budget, cut, fit, questions, state, text};
use super::{CutOutcome, estimate_request_tokens};
use crate::load::Loaded;
use crate::projection::{Overlays, Projection, materialize};
use crate::score::{PairData, ScoreRequest};
use crate::session::{Role, Session};
use crate::wall::Wall;

fn entry_id(s: &Session, idx: usize) -> String {
    s.entries[idx]
        .id
        .as_ref()
        .map(|k| k.display().to_string())
        .unwrap_or_default()
}

/// Materialize positions `range` (read through pi-shake's folds) into region messages. With an
/// extractor, every tool result's line features are computed (by message index) and, when `lite`,
/// the text of results whose call is in the range is dropped (rendering re-reads it).
fn read_messages(
    s: &Session,
    p: &Projection,
    wall: Option<&Wall>,
    range: std::ops::Range<usize>,
    fetch: Fetch<'_>,
    mut extract: Option<(
        &mut budget::Extractor,
        &mut Vec<Option<budget::OutFeat>>,
        bool,
    )>,
) -> Result<Vec<RMsg>> {
    let mut out = Vec::new();
    let mut calls: std::collections::HashSet<String> = std::collections::HashSet::new();
    for pos in range {
        let idx = p.entries[pos].idx;
        if matches!(s.entries[idx].body, crate::session::Body::Compaction { .. }) {
            continue;
        }
        let id = entry_id(s, idx);
        for m in materialize(s, p, wall, Overlays::ThroughShake, pos, fetch)? {
            if let Some(mut rm) = region::parse_message(pos, &id, m) {
                if let Some((ex, feats, lite)) = extract.as_mut() {
                    feats.resize(out.len() + 1, None);
                    match &mut rm.kind {
                        Kind::Assistant(blocks) => {
                            for b in blocks.iter() {
                                if let region::Block::ToolCall { id, .. } = b {
                                    calls.insert(id.clone());
                                }
                            }
                        }
                        Kind::ToolResult {
                            blocks, call_id, ..
                        } => {
                            let text = region::text_ref(blocks);
                            let mut f = ex.features(&text);
                            if *lite {
                                f.win_tokens = estimate_request_tokens(&questions::render_windows(
                                    &text,
                                    questions::WHOLE_MAX,
                                    questions::WINDOW,
                                ));
                            }
                            feats[out.len()] = Some(f);
                            // Only the first result after its call is the call's
                            // ([`region::pair_up`]); a second one stands alone and is shown
                            // from its text.
                            if *lite && calls.remove(call_id.as_str()) {
                                blocks.retain(|b| !matches!(b, region::Block::Text(_)));
                            }
                        }
                        _ => {}
                    }
                }
                out.push(rm);
            }
        }
    }
    Ok(out)
}

/// Re-read the output of pair `pair` (its result's text blocks, through pi-shake's folds).
pub(crate) fn fetch_output(
    s: &Session,
    p: &Projection,
    wall: Option<&Wall>,
    pos: usize,
    call_id: &str,
    fetch: Fetch<'_>,
) -> Result<String> {
    let id = entry_id(s, p.entries[pos].idx);
    for m in materialize(s, p, wall, Overlays::ThroughShake, pos, fetch)? {
        if let Some(RMsg {
            kind: Kind::ToolResult {
                call_id: c, blocks, ..
            },
            ..
        }) = region::parse_message(pos, &id, m)
            && c == call_id
        {
            return Ok(region::text_of(&blocks));
        }
    }
    Ok(String::new())
}

/// The user messages' text, one message a line.
fn user_text(msgs: &[RMsg]) -> String {
    let mut out = String::new();
    for m in msgs {
        if let Kind::User(blocks) = &m.kind {
            out.push_str(&region::text_ref(blocks));
            out.push('\n');
        }
    }
    out
}

/// Plain text of messages (for the offline scorer's kept context).
fn plain_text(msgs: &[RMsg]) -> String {
    let mut out = Vec::new();
    for m in msgs {
        match &m.kind {
            Kind::User(b) | Kind::Custom { blocks: b, .. } => out.push(region::text_of(b)),
            Kind::Assistant(b) => {
                out.push(region::text_of(b));
                for blk in b {
                    if let region::Block::ToolCall { name, args, .. } = blk {
                        out.push(format!("{name} {args}"));
                    }
                }
            }
            Kind::ToolResult { blocks, .. } => out.push(region::text_of(blocks)),
            Kind::Bash {
                command, output, ..
            } => out.push(format!("{command}\n{output}")),
            Kind::BranchSummary(s) => out.push(s.clone()),
            Kind::Other(_) => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out.join("\n")
}

/// The region's own words, message by message: user, custom and assistant text, no calls or
/// results ([`plain_text`] of those messages with their calls left out, without copying them: a
/// region's call arguments can be most of its bytes).
fn prose_parts(msgs: &[RMsg]) -> impl Iterator<Item = String> + '_ {
    msgs.iter()
        .filter_map(|m| match &m.kind {
            Kind::User(b) | Kind::Custom { blocks: b, .. } | Kind::Assistant(b) => {
                Some(region::text_of(b))
            }
            _ => None,
        })
        .filter(|s| !s.is_empty())
}

/// Steps 1–4 up to the scorer: cut, region, pins, pairs, state, questions.
pub fn prepare(l: &Loaded, opts: &CompactOptions, fetch: Fetch<'_>) -> Result<Outcome<Prepared>> {
    let (s, t, p, wall) = (&l.session, &l.tree, &l.projection, Some(&l.wall));
    let outcome = match &opts.first_kept_entry_id {
        None => cut::prepare(s, t, p, opts.keep_recent_tokens),
        Some(id) => cut::at(s, t, p, id, opts.keep_recent_tokens).ok_or_else(|| {
            crate::error::Fault::new(
                crate::error::FaultKind::Usage,
                format!(
                    "firstKeptEntryId {id} is not an entry of the active branch's context after the previous compaction"
                ),
            )
        })?,
    };
    let cut = match outcome {
        CutOutcome::Cut(c) => c,
        CutOutcome::AlreadyCompacted => return Ok(Outcome::AlreadyCompacted),
        CutOutcome::NothingToCompact => return Ok(Outcome::NothingToCompact),
    };
    let region = cut.region();
    let end = p.entries.len();
    // The kept part first: what the agent is doing now relates the region's strings to it.
    let kept = read_messages(s, p, wall, cut.first_kept_pos..end, fetch, None)?;
    let kept_text = plain_text(&kept);
    let vocab = kept_vocab(&kept, &kept_text, opts.instructions.as_deref());
    let mut extractor = budget::Extractor::new(vocab);
    let mut msg_feats: Vec<Option<budget::OutFeat>> = Vec::new();
    let msgs = read_messages(
        s,
        p,
        wall,
        region.clone(),
        fetch,
        Some((&mut extractor, &mut msg_feats, opts.lite)),
    )?;
    let previous_summary = match cut.previous {
        Some(pos) => fetch(p.entries[pos].idx)?
            .get("summary")
            .and_then(Value::as_str)
            .map(str::to_string),
        None => None,
    };
    // System messages, as projected (pi replays them into the entry).
    let mut sys_msgs = Vec::new();
    for (pos, pe) in p.entries.iter().enumerate() {
        if pe.messages.iter().any(|m| m.kind == Role::System) {
            sys_msgs.extend(materialize(s, p, wall, Overlays::AsProjected, pos, fetch)?);
        }
    }
    let system_message = replay_system_message(&sys_msgs);
    let Tokens {
        region: region_tokens,
        kept: kept_tokens,
        carried: carried_tokens,
    } = Tokens::of(s, p, &cut);
    let system_tokens = crate::projection::replay_system_tokens(s, p);

    // Steps 2–3: pairs and pins.
    let mut pairs = region::pair_up(&msgs);
    // Question ids from the call's line in the file (append-only, so stable across runs).
    let earlier = crate::pair_ids::PairIds::read(s, &l.tree.path, fetch)?;
    region::stable_ids(
        &mut pairs,
        |mi| {
            msgs.get(mi)
                .and_then(|m| p.entries.get(m.pos))
                .map_or(0, |pe| s.entries[pe.idx].line)
        },
        |id| earlier.taken(id),
    );
    let later = region::pair_up(&kept);
    let pins = region::pins(&pairs, &later);
    let (region_user, kept_user) = (user_text(&msgs), user_text(&kept));
    let facts = fit::pair_facts(
        &msgs,
        &pairs,
        &kept,
        &later,
        &region_user,
        &kept_user,
        s.header.cwd.as_deref(),
    );
    let mut feats: Vec<Option<budget::OutFeat>> = Vec::with_capacity(pairs.len());
    for pair in pairs.iter_mut() {
        let f = pair
            .result_msg
            .and_then(|j| msg_feats.get_mut(j).and_then(Option::take));
        if let Some(f) = &f
            && pair.output.is_empty()
        {
            pair.output_chars = f.chars;
        }
        feats.push(f);
    }
    // The outputs outside the pairs: a shell command the user ran (`!cmd`; not `!!cmd`, which
    // pi keeps out of the context) and a tool result whose call is not in the region (its
    // features were read with the others and no pair took them). The issues count their facts
    // like any tool output's, so under a budget their lines compete with the pairs'.
    let mut loose: Vec<(usize, budget::OutFeat)> = Vec::new();
    for (j, m) in msgs.iter().enumerate() {
        let f = match &m.kind {
            Kind::Bash {
                output,
                excluded: false,
                ..
            } if !output.is_empty() => Some(extractor.features(output)),
            // Its text is held (lite mode lets go of a result's text only when it is the first
            // after its call in the region, the one a pair takes).
            Kind::ToolResult { blocks, .. }
                if blocks.iter().any(|b| matches!(b, region::Block::Text(_))) =>
            {
                msg_feats.get_mut(j).and_then(Option::take)
            }
            _ => None,
        };
        loose.extend(f.filter(|f| !f.units.is_empty()).map(|f| (j, f)));
    }
    drop(msg_feats);
    let mut pin_outputs: Vec<Option<String>> = vec![None; pairs.len()];
    for (i, pair) in pairs.iter().enumerate() {
        if pins[i].is_some()
            && let Some(j) = pair.result_msg
        {
            pin_outputs[i] = Some(if pair.output.is_empty() && pair.output_chars > 0 {
                fetch_output(s, p, wall, msgs[j].pos, &pair.call_id, fetch)?
            } else {
                pair.output.clone()
            });
        }
    }
    let user_messages = msgs
        .iter()
        .filter(|m| matches!(m.kind, Kind::User(_)))
        .count();

    // State.
    let inputs = state_inputs(s, opts, &msgs, &kept, previous_summary.clone());
    let fitted = state::fit(&inputs, opts.state_budget);
    // Every exchange's words are in the fitted state or covered below: not held beside them.
    drop(inputs);

    // Questions for the unpinned, paired pairs (lite: sized from the output windows only).
    let probes = probes(&pairs, &pins, &feats, &msgs, opts.lite);
    // Strings the summary holds anyway: the kept part, the region's prose, the pinned outputs.
    // pi-shake's own carried transcript competes line by line with the region (its strings are
    // not covered); another tool's summary (pi's own) is cut by position to a share.
    let carried = previous_summary
        .as_deref()
        .filter(|t| super::carried::is_pi_shakes(t))
        .map(|t| {
            let mut c = super::carried::Carried::read(t, &mut extractor);
            c.name_files(&region_user, &kept_user);
            c
        });
    // An edit's or write's new text is cut into lines like an output's: under a budget its
    // lines compete with the outputs' while the pins stay ([`region::Pair::written_text`]).
    // Its strings are not taken as held by the summary (only the lines that win a place hold
    // them); they are worth a share of their class instead ([`budget::WRITTEN_WORTH`]), in the
    // new text and in any output.
    let mut written = vec![false; extractor.table.len()];
    for (i, pair) in pairs.iter().enumerate() {
        if pins[i] == Some(Pin::EditWrite) {
            let t = pair.written_text();
            let f = (!t.is_empty()).then(|| extractor.features(&t));
            if let Some(f) = &f {
                written.resize(extractor.table.len(), false);
                for h in f.strs.ids(0..f.strs.len()) {
                    written[h as usize] = true;
                }
            }
            feats[i] = f;
        }
    }
    // The rest of a multi-line command (a script of `sed -i`s, `mv`s, a heredoc, a commit
    // message's body) is the agent's own action: under a budget its lines compete with the
    // outputs', shown in a block of their own under the call line (a git pin's while the pins
    // stay).
    let scripts: Vec<(usize, budget::OutFeat)> = pairs
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            matches!(pins[*i], None | Some(Pin::GitMutation)) && p.result_msg.is_some()
        })
        .filter_map(|(i, p)| Some((i, extractor.features_of_prose(p.script()?))))
        .collect();
    for (info, _) in extractor
        .table
        .iter_mut()
        .zip(&written)
        .filter(|(_, w)| **w)
    {
        info.scale_class(budget::WRITTEN_WORTH);
    }
    let mut covered = vec![false; extractor.table.len()];
    let ids = std::mem::take(&mut extractor.ids);
    let mut cover = |t: &str| {
        for x in budget::distinctive(t) {
            if let Some(&id) = ids.get(&budget::hash_str(x)) {
                covered[id as usize] = true;
            }
        }
    };
    // Kept context (for the threshold path's offline scorer): state parts, the region's own
    // words, pinned pairs, the kept tail. Each part is covered as it is made; in lite mode no
    // scorer reads the request's context, so the parts are not held.
    let mut kept_context = Vec::new();
    // `covers`: the part of `k` the summary holds anyway (`None`: all of it).
    let mut keep = |k: String, covers: bool, only: Option<&str>| {
        if covers {
            cover(only.unwrap_or(&k));
        }
        if !opts.lite && !k.is_empty() {
            kept_context.push(k);
        }
    };
    if let Some(f) = &fitted.state.first {
        keep(format!("{}\n{}", f.user, f.assistant), true, None);
    }
    for x in &fitted.state.recent {
        keep(format!("{}\n{}", x.user, x.assistant), true, None);
    }
    if let Some(c) = &fitted.state.carried {
        keep(c.clone(), carried.is_none(), None);
    }
    // The region's own words. The user's stay in the summary (whole or in windows) at every
    // level that keeps the user messages; the assistant's are cut to narrow windows or left
    // out, so their strings are not taken as held: an output line holding one is worth it.
    let users = |m: &RMsg| match &m.kind {
        Kind::User(b) | Kind::Custom { blocks: b, .. } => Some(region::text_of(b)),
        _ => None,
    };
    if opts.lite {
        // Covered message by message: no copy of the region's prose at once.
        for part in msgs.iter().filter_map(users).filter(|t| !t.is_empty()) {
            keep(part, true, None);
        }
    } else {
        let shown: Vec<String> = msgs.iter().filter_map(users).collect();
        keep(
            prose_parts(&msgs).collect::<Vec<_>>().join("\n"),
            true,
            Some(&shown.join("\n")),
        );
    }
    for (i, pair) in pairs.iter().enumerate() {
        if let Some(pin) = pins[i] {
            let out = text::head(&pair.output, 2_000);
            // An edit's or write's call line (its path) and result show; its text competes.
            // So does a git command's rest (a commit message's body).
            let shown = if pin == Pin::EditWrite {
                Some(format!(
                    "{} {}\n{out}",
                    pair.tool,
                    pair.path().unwrap_or_default()
                ))
            } else {
                pair.script().map(|_| {
                    let first = pair.command().unwrap_or("").split('\n').next();
                    format!("{} {}\n{out}", pair.tool, first.unwrap_or(""))
                })
            };
            keep(
                format!("{} {}\n{out}", pair.tool, pair.args),
                true,
                shown.as_deref(),
            );
        }
    }
    for o in pin_outputs.iter().flatten() {
        cover(o);
    }
    cover(&kept_text);
    if !opts.lite && !kept_text.is_empty() {
        kept_context.push(kept_text);
    }
    let request = ScoreRequest {
        state_json: fitted.json.clone(),
        state_tokens: fitted.tokens,
        probes,
        kept_context,
    };
    Ok(Outcome::Ready(Box::new(Prepared {
        cut,
        options: opts.clone(),
        request,
        state_caps: fitted.caps,
        state_fit_steps: fitted.steps,
        previous_summary,
        carried,
        system_message,
        msgs,
        pairs,
        pins,
        feats,
        scripts,
        loose,
        strings: extractor.table,
        covered,
        pin_outputs,
        facts,
        region_tokens,
        kept_tokens,
        carried_tokens,
        system_tokens,
        user_messages,
        cwd: s.header.cwd.clone(),
    })))
}

/// pi's estimates of the parts of the context a compaction changes, system messages left out
/// (pi replays them apart).
struct Tokens {
    /// The region, compaction entries left out.
    region: u64,
    /// The kept part.
    kept: u64,
    /// The previous compaction's summary, in the context too (the new summary replaces it).
    carried: u64,
}

impl Tokens {
    fn of(s: &Session, p: &Projection, cut: &cut::Cut) -> Tokens {
        // An entry's projected messages, the system ones left out.
        let message_tokens = |pe: &crate::projection::PEntry| -> u64 {
            pe.messages
                .iter()
                .filter(|m| m.kind != Role::System)
                .map(|m| m.tokens0())
                .sum()
        };
        let non_system = |r: std::ops::Range<usize>| -> u64 {
            p.entries[r]
                .iter()
                .filter(|pe| {
                    !matches!(
                        s.entries[pe.idx].body,
                        crate::session::Body::Compaction { .. }
                    )
                })
                .map(message_tokens)
                .sum()
        };
        Tokens {
            region: non_system(cut.region()),
            kept: non_system(cut.first_kept_pos..p.entries.len()),
            carried: cut
                .previous
                .and_then(|pos| p.entries.get(pos))
                .map_or(0, message_tokens),
        }
    }
}

/// What the shared state is made of: the workspace, the exchanges of the region and of the kept
/// part (the user's compaction instructions as the newest), and the carried summary.
fn state_inputs(
    s: &Session,
    opts: &CompactOptions,
    msgs: &[RMsg],
    kept: &[RMsg],
    carried: Option<String>,
) -> state::StateInputs {
    let mut exchanges = region::exchanges(msgs);
    region::exchanges_cont(&mut exchanges, kept);
    if let Some(text) = opts
        .instructions
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        exchanges.push(region::Exchange {
            user: format!("Compaction instructions: {}", text.trim()),
            assistant: String::new(),
        });
    }
    let workspace = match (&s.header.cwd, opts.read_workspace) {
        (Some(cwd), true) => state::read_workspace(cwd),
        (Some(cwd), false) => state::Workspace {
            name: std::path::Path::new(cwd)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            ..Default::default()
        },
        (None, _) => state::Workspace::default(),
    };
    state::StateInputs {
        workspace,
        first: exchanges.first().cloned(),
        all: exchanges,
        carried,
    }
}

/// The questions for the unpinned, paired pairs (`lite`: sized from the output windows only).
fn probes(
    pairs: &[region::Pair],
    pins: &[Option<Pin>],
    feats: &[Option<budget::OutFeat>],
    msgs: &[RMsg],
    lite: bool,
) -> Vec<crate::score::PairProbe> {
    let mut probes = Vec::new();
    for (i, pair) in pairs.iter().enumerate() {
        if pins[i].is_some() || pair.result_msg.is_none() {
            continue;
        }
        let win = if lite {
            feats[i].as_ref().map_or(0, |f| f.win_tokens)
        } else {
            0
        };
        let mut probe = questions::probe(PairData {
            pair_id: pair.id(),
            index: i,
            count: pairs.len(),
            tool: pair.tool.clone(),
            args: pair.args.clone(),
            output: pair.output.clone(),
            is_error: pair.is_error,
            call_entry: msgs[pair.call_msg].entry_id.clone(),
            result_entry: pair
                .result_msg
                .map(|j| msgs[j].entry_id.clone())
                .unwrap_or_default(),
        });
        probe.est_tokens += 2 * win;
        if lite {
            probe.lighten();
        }
        probes.push(probe);
    }
    probes
}

/// What the kept part says the agent is doing now: its word pieces (for relatedness), the query
/// words of its prompts, answers and call arguments, and the focus — the query words of its
/// last user message and of the user's compaction instructions (`/compact <text>`), the newest
/// prompt of all.
pub(super) fn kept_vocab(
    kept: &[RMsg],
    kept_text: &str,
    instructions: Option<&str>,
) -> budget::Vocab {
    let mut vocab = budget::Vocab::default();
    vocab.add(kept_text);
    for m in kept {
        match &m.kind {
            Kind::User(b) | Kind::Custom { blocks: b, .. } => vocab.add_query(&region::text_of(b)),
            Kind::Assistant(b) => {
                vocab.add_query(&region::text_of(b));
                for blk in b {
                    if let region::Block::ToolCall { args, .. } = blk {
                        vocab.add_query(&args.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(b) = kept.iter().rev().find_map(|m| match &m.kind {
        Kind::User(b) => Some(b),
        _ => None,
    }) {
        vocab.add_focus(&region::text_of(b));
    }
    if let Some(text) = instructions {
        vocab.add(text);
        vocab.add_focus(text);
    }
    vocab
}
