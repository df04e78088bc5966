//! The scorer `compact` was asked for (`--scorer`): offline, replay, Jev or chat, built from
//! the flags, and the one mapping of a scorer failure to the exit code.

use anyhow::Result;

use crate::cli::{CompactArgs, ScorerArg};
use crate::compact;
use crate::error::{Fault, FaultKind};
use crate::score::chat::{ChatOptions, ChatScorer};
use crate::score::jev::{JevOptions, SystemOne};
use crate::score::offline::Heuristic;
use crate::score::replay::Replay;
use crate::score::wire::Transport;
use crate::score::{Scorer, ScorerError};

pub(super) fn scorer_fault(e: ScorerError) -> anyhow::Error {
    Fault::new(FaultKind::Scorer, e.to_string())
        .hint("nothing was written; retry, use another --scorer, or pass --on-scorer-error offline")
        .into()
}

/// Build the scorer the flags ask for; `None` host for local scorers.
pub(super) fn build_scorer(args: &CompactArgs) -> Result<(Box<dyn Scorer>, Option<String>)> {
    Ok(match args.scorer {
        ScorerArg::Offline => (Box::new(Heuristic), None),
        ScorerArg::Replay => {
            let Some(path) = &args.scores_in else {
                return Err(
                    Fault::new(FaultKind::Usage, "--scorer replay needs --scores-in FILE").into(),
                );
            };
            (
                Box::new(Replay::from_file(
                    path,
                    compact::TEMPLATE,
                    args.scores_in_lax,
                )?),
                None,
            )
        }
        ScorerArg::Jev => {
            let mut opts = JevOptions {
                url: args.jev_url.clone(),
                model: args.jev_model.clone(),
                ..JevOptions::default()
            };
            flag_transport(&mut opts.transport, args);
            let s = SystemOne::new(opts).map_err(scorer_fault)?;
            let host = s.receiving_host();
            (Box::new(s), Some(host))
        }
        ScorerArg::Chat => {
            let Some(model) = args.chat_model.clone() else {
                return Err(
                    Fault::new(FaultKind::Usage, "--scorer chat needs --chat-model NAME").into(),
                );
            };
            let mut opts = ChatOptions {
                url: args.chat_url.clone(),
                model,
                ..ChatOptions::default()
            };
            flag_transport(&mut opts.transport, args);
            let s = ChatScorer::new(opts).map_err(scorer_fault)?;
            let host = s.receiving_host();
            (Box::new(s), Some(host))
        }
    })
}

/// The transport knobs the flags set (`--concurrency`, `--timeout`, `--allow-insecure-http`);
/// the rest keep the protocol's defaults.
fn flag_transport(t: &mut Transport, args: &CompactArgs) {
    t.concurrency = args.concurrency.max(1);
    t.request_timeout = std::time::Duration::from_secs(args.timeout.max(1));
    t.allow_insecure_http = args.allow_insecure_http;
}
