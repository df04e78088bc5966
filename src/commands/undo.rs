//! `pi-shake undo`: restore everything pi-shake folded, as one new operation.
//!
//! read → index → project → wall → plan (plan::undo) → report → append. All or nothing;
//! idempotent (a second undo appends nothing). Nothing is ever deleted: undo appends newer
//! overlays whose content is the original, and one log entry.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;
use serde_json::{Value, json};

use crate::cli::UndoArgs;
use crate::load::Loaded;
use crate::output::Printer;
use crate::plan::undo::{self, RestoreFrom};
use crate::report::thousands;
use crate::session::entry::RawField;
use crate::wall::{RestoreRecord, SHAKE_CUSTOM_TYPE, ShakeLog};
use crate::writer::{self, Batch, WriteOptions};

/// `undo --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    pub schema_version: u32,
    pub path: String,
    pub restored: usize,
    pub tokens_restored: u64,
    pub moot: usize,
    pub superseded: usize,
    pub entry_ids: Vec<String>,
    pub written_entries: usize,
    pub written_bytes: u64,
    pub context_tokens_before: Value,
    pub summary: String,
}

/// Undo one session.
pub fn undo_one(path: &Path, force: bool) -> Result<UndoReport> {
    undo_one_with(path, force, writer::CHUNK_BYTES, &mut |f, b| {
        std::io::Write::write_all(f, b)
    })
}

/// [`undo_one`] with the streamed append's chunk size and low-level write injected
/// (fault-injection tests).
pub fn undo_one_with(
    path: &Path,
    force: bool,
    chunk_bytes: usize,
    write: &mut dyn FnMut(&mut std::fs::File, &[u8]) -> std::io::Result<()>,
) -> Result<UndoReport> {
    let l = Loaded::open(path)?;
    let plan = undo::plan(&l.wall);
    let mut written = writer::Written {
        bytes: 0,
        entries: 0,
    };
    if !plan.restores.is_empty() {
        writer::check_writable(&l.session, &l.tree, &l.projection)?;
        // Log first, overlays after (see shake): a cut-short write never leaves unlisted edits.
        let mut batch = Batch::new(&l.session, &l.tree)?;
        let edit_ids: Vec<String> = plan.restores.iter().map(|_| batch.reserve_id()).collect();
        let records: Vec<RestoreRecord> = plan
            .restores
            .iter()
            .zip(&edit_ids)
            .map(|(r, edit)| RestoreRecord {
                target: r.target_id.clone(),
                edit: edit.clone(),
                to: r.to.map(|b| l.session.entries[b].id_str().to_string()),
                tokens_before: r.tokens_before,
                tokens_after: r.tokens_after,
            })
            .collect();
        let log = ShakeLog {
            op: "undo".into(),
            tool: "pi-shake".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            profile: None,
            profile_source: None,
            tail: None,
            block_min: None,
            scopes: Vec::new(),
            folds: Vec::new(),
            tokens_before: records.iter().map(|r| r.tokens_before).sum(),
            tokens_after: records.iter().map(|r| r.tokens_after).sum(),
            restores: records,
        };
        batch.custom(SHAKE_CUSTOM_TYPE, serde_json::to_value(&log)?);
        // The bytes each overlay restores are copied from the file one entry at a time, straight
        // into the append, which is written in chunks: memory holds one chunk, not everything
        // restored.
        let mut todo = plan.restores.iter().zip(edit_ids);
        let mut more = |batch: &mut Batch| -> Result<bool> {
            let Some((r, edit)) = todo.next() else {
                return Ok(false);
            };
            let replacement = match r.from {
                RestoreFrom::Raw(i) => {
                    format!(
                        "{{\"content\":{}}}",
                        l.session.read_raw(i, RawField::Content)?
                    )
                }
                RestoreFrom::Overlay(b) => l.session.read_raw(b, RawField::Replacement)?,
            };
            batch.context_edit_raw(edit, &r.target_id, &replacement);
            Ok(true)
        };
        written = writer::commit_streaming_with(
            &l.session,
            &l.tree,
            &l.projection,
            batch,
            &mut more,
            &WriteOptions { force },
            chunk_bytes,
            write,
        )?;
    }
    let tokens: u64 = plan
        .restores
        .iter()
        .map(|r| r.tokens_after.saturating_sub(r.tokens_before))
        .sum();
    let mut summary = if plan.restores.is_empty() {
        "Nothing to undo.".to_string()
    } else {
        format!(
            "Restored {} folded entr{} (~{} tokens back in context).",
            thousands(plan.restores.len() as u64),
            if plan.restores.len() == 1 { "y" } else { "ies" },
            thousands(tokens)
        )
    };
    if plan.moot > 0 {
        summary.push_str(&format!(
            " {} fold(s) behind a later compaction left as they are (moot).",
            plan.moot
        ));
    }
    if plan.superseded > 0 {
        summary.push_str(&format!(
            " {} fold(s) superseded by someone else's overlay left alone.",
            plan.superseded
        ));
    }
    Ok(UndoReport {
        schema_version: 1,
        path: path.display().to_string(),
        restored: plan.restores.len(),
        tokens_restored: tokens,
        moot: plan.moot,
        superseded: plan.superseded,
        entry_ids: plan.restores.iter().map(|r| r.target_id.clone()).collect(),
        written_entries: written.entries,
        written_bytes: written.bytes,
        context_tokens_before: crate::report::js_number(l.projection.context.tokens),
        summary,
    })
}

/// Run `undo`.
pub fn run(args: &UndoArgs, printer: &Printer) -> Result<()> {
    let paths: Vec<PathBuf> = crate::settings::resolve_sessions(&args.sessions, &args.find, false)?;
    let mut docs = Vec::new();
    let mut first_err = None;
    for p in &paths {
        match undo_one(p, args.force) {
            Ok(r) => {
                printer.out(&if paths.len() > 1 {
                    format!("{}: {}", r.path, r.summary)
                } else {
                    r.summary.clone()
                });
                docs.push(serde_json::to_value(&r)?);
            }
            Err(e) => {
                if paths.len() > 1 {
                    printer.error(&format!("{e:#}"));
                }
                docs.push(json!({"path": p.display().to_string(), "error": format!("{e:#}"), "exitCode": crate::error::exit_code_of(&e) as u8}));
                first_err.get_or_insert(e);
            }
        }
    }
    if paths.len() > 1 {
        printer.json_doc(&json!({"schemaVersion": 1, "sessions": docs}));
    } else if let Some(d) = docs.into_iter().next() {
        printer.json_doc(&d);
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
