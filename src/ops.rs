//! Plans → new entries: the one place that turns a fold plan or an undo plan into the entries
//! pi-shake appends. The log entry always goes first and names the overlays that follow it, so a
//! write cut short can only lose overlays the log already lists (ignored as dangling), never
//! leave unlisted ones. Planners stay pure (they never see a [`Batch`]); the writer commits what
//! this module assembles.

use anyhow::Result;
use serde_json::json;

use crate::load::Loaded;
use crate::plan::fold::FoldPlan;
use crate::plan::undo::{RestoreFrom, UndoPlan};
use crate::session::entry::RawField;
use crate::settings::ShakeSettings;
use crate::wall::{FoldRecord, RestoreRecord, SHAKE_CUSTOM_TYPE, Scope, ShakeLog};
use crate::writer::Batch;

/// A fold plan's entries: one `shake` log, then one `context_edit` overlay per folded entry.
pub fn fold_entries(
    l: &Loaded,
    plan: &FoldPlan,
    st: &ShakeSettings,
    scopes: &[Scope],
) -> Result<Batch> {
    let mut batch = Batch::new(&l.session, &l.tree)?;
    let edit_ids: Vec<String> = plan.folds.iter().map(|_| batch.reserve_id()).collect();
    let mut records = Vec::new();
    for (f, edit) in plan.folds.iter().zip(&edit_ids) {
        let base = f.base.map(|b| l.session.entries[b].id_str().to_string());
        for sf in &f.folds {
            records.push(FoldRecord {
                target: f.target_id.clone(),
                edit: edit.clone(),
                scope: sf.scope,
                kind: sf.kind.to_string(),
                tool: f.tool.clone(),
                count: sf.count,
                tokens_before: sf.tokens_before,
                tokens_after: sf.tokens_after,
                base: base.clone(),
            });
        }
    }
    let log = ShakeLog {
        op: "shake".into(),
        tool: "pi-shake".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        profile: Some(st.profile.as_str().into()),
        profile_source: Some(st.source.key().into()),
        tail: Some(st.tail),
        block_min: Some(st.block_min),
        scopes: scopes.to_vec(),
        folds: records,
        restores: Vec::new(),
        tokens_before: plan.folds.iter().map(|f| f.tokens_before).sum(),
        tokens_after: plan.folds.iter().map(|f| f.tokens_after).sum(),
    };
    batch.custom(SHAKE_CUSTOM_TYPE, serde_json::to_value(&log)?);
    for (f, edit) in plan.folds.iter().zip(edit_ids) {
        batch.context_edit_as(edit, &f.target_id, json!({ "content": f.content }));
    }
    Ok(batch)
}

/// An undo plan's entries: the `shake` log (in the returned [`Batch`]) and a source of the
/// restoring overlays, one per call, for the writer's streamed append. The bytes each overlay
/// restores are copied from the file one entry at a time, straight into the append: memory
/// holds one chunk, not everything restored.
pub fn undo_entries<'a>(
    l: &'a Loaded,
    plan: &'a UndoPlan,
) -> Result<(Batch, impl FnMut(&mut Batch) -> Result<bool> + 'a)> {
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
    let mut todo = plan.restores.iter().zip(edit_ids);
    let more = move |batch: &mut Batch| -> Result<bool> {
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
    Ok((batch, more))
}

#[cfg(test)]
#[path = "ops_tests.rs"]
mod tests;
