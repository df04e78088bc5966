//! Batch runs: apply one function to many sessions in parallel, results in input order.
//!
//! A failing session is reported by its own `Err` and never stops the others.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Map `f` over `paths` on up to `available_parallelism` threads, keeping input order.
pub fn map<T: Send>(paths: &[PathBuf], f: impl Fn(&Path) -> T + Sync) -> Vec<T> {
    if paths.len() <= 1 {
        return paths.iter().map(|p| f(p)).collect();
    }
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(paths.len())
        .min(8);
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
