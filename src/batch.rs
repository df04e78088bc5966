//! The multi-session runner: apply one function to many sessions in parallel, results in input
//! order, and turn the failures into one error by one rule ([`failure`]).
//!
//! A failing session is reported by its own `Err` and never stops the others.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Result;

use crate::error::{ExitCode, Fault, FaultKind};

/// Map `f` over `paths` on up to `available_parallelism` threads (at most 8), keeping input order.
pub fn map<T: Send>(paths: &[PathBuf], f: impl Fn(&Path) -> T + Sync) -> Vec<T> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(8);
    map_on(paths, workers, f)
}

/// [`map`] on at most `workers` threads (1: one session after the other, in input order).
pub fn map_on<T: Send>(paths: &[PathBuf], workers: usize, f: impl Fn(&Path) -> T + Sync) -> Vec<T> {
    let workers = workers.min(paths.len());
    if workers <= 1 {
        return paths.iter().map(|p| f(p)).collect();
    }
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<T>> = (0..paths.len()).map(|_| None).collect();
    let results: Vec<Vec<(usize, T)>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                sc.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= paths.len() {
                            break;
                        }
                        out.push((i, f(&paths[i])));
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    for (i, t) in results.into_iter().flatten() {
        slots[i] = Some(t);
    }
    slots.into_iter().flatten().collect()
}

/// How a multi-session command runs its sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// In parallel (sessions are independent).
    Parallel,
    /// One after the other: a path given twice sees its own earlier append (`undo`).
    Sequential,
}

/// One command over many sessions: each path with its result, in input order.
#[derive(Debug)]
pub struct Run<T> {
    pub paths: Vec<PathBuf>,
    pub results: Vec<Result<T>>,
}

/// Run `f` over `paths`.
pub fn run<T: Send>(
    paths: Vec<PathBuf>,
    order: Order,
    f: impl Fn(&Path) -> Result<T> + Sync,
) -> Run<T> {
    let results = match order {
        Order::Parallel => map(&paths, f),
        Order::Sequential => map_on(&paths, 1, f),
    };
    Run { paths, results }
}

impl<T> Run<T> {
    /// More than one session: output is one line per session and the `--json` envelope.
    pub fn many(&self) -> bool {
        self.paths.len() > 1
    }
}

/// The failure → exit-code rule of every multi-session command, given the failed sessions'
/// errors in input order: none → `Ok`; one session on its own (`many` false) → its own error;
/// otherwise one error, exit 4 when any session was unsafe to write and 3 else, worded by
/// `summary(failed)`.
pub fn failure(
    mut errors: Vec<anyhow::Error>,
    many: bool,
    summary: impl FnOnce(usize) -> String,
) -> Result<()> {
    match errors.len() {
        0 => Ok(()),
        1 if !many => Err(errors.remove(0)),
        n => {
            let unsafe_ = errors
                .iter()
                .any(|e| crate::error::exit_code_of(e) == ExitCode::Unsafe);
            let kind = if unsafe_ {
                FaultKind::Unsafe
            } else {
                FaultKind::BadSession
            };
            Err(Fault::new(kind, summary(n)).into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(kind: FaultKind) -> anyhow::Error {
        Fault::new(kind, "boom").into()
    }

    #[test]
    fn the_runner_keeps_input_order_in_both_orders() {
        let paths: Vec<PathBuf> = (0..20).map(|i| PathBuf::from(i.to_string())).collect();
        for order in [Order::Parallel, Order::Sequential] {
            let run = run(paths.clone(), order, |p| Ok(p.to_path_buf()));
            let got: Vec<PathBuf> = run.results.into_iter().map(|r| r.unwrap()).collect();
            assert_eq!(got, paths);
        }
    }

    #[test]
    fn one_session_fails_with_its_own_error() {
        let e = failure(vec![fault(FaultKind::Unsafe)], false, |_| "many".into()).unwrap_err();
        assert_eq!(crate::error::exit_code_of(&e), ExitCode::Unsafe);
        assert_eq!(e.to_string(), "boom");
    }

    #[test]
    fn many_sessions_fail_with_one_summary_unsafe_first() {
        assert!(failure(Vec::new(), true, |_| unreachable!()).is_ok());
        let e = failure(vec![fault(FaultKind::BadSession)], true, |n| {
            format!("{n} failed")
        })
        .unwrap_err();
        assert_eq!(crate::error::exit_code_of(&e), ExitCode::BadSession);
        assert_eq!(e.to_string(), "1 failed");
        let mixed = vec![fault(FaultKind::BadSession), fault(FaultKind::Unsafe)];
        let e = failure(mixed, true, |n| format!("{n} failed")).unwrap_err();
        assert_eq!(crate::error::exit_code_of(&e), ExitCode::Unsafe);
        assert_eq!(e.to_string(), "2 failed");
    }
}
