//! A terminal progress bar for HTTP scoring (indicatif): pairs done out of all, batches done,
//! retries so far and elapsed time, on a bar made by the printer
//! ([`crate::output::Printer::progress_bar`]): drawn on stderr only when stderr is a terminal and
//! `--json` is off, otherwise hidden (and free).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::Progress;

/// An indicatif-backed [`Progress`].
pub struct BarProgress {
    bar: ProgressBar,
    batches_total: AtomicUsize,
    batches_done: AtomicUsize,
    retries: AtomicUsize,
}

impl BarProgress {
    /// Progress on `bar` (from [`crate::output::Printer::progress_bar`]; hidden in tests).
    pub fn new(bar: ProgressBar) -> BarProgress {
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} scoring [{elapsed_precise}] {bar:28} {pos}/{len} pairs · {msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        BarProgress {
            bar,
            batches_total: AtomicUsize::new(0),
            batches_done: AtomicUsize::new(0),
            retries: AtomicUsize::new(0),
        }
    }

    /// Batches finished so far.
    pub fn batches_done(&self) -> usize {
        self.batches_done.load(Ordering::SeqCst)
    }

    /// Retries so far.
    pub fn retries(&self) -> usize {
        self.retries.load(Ordering::SeqCst)
    }

    /// Pairs finished so far.
    pub fn pairs_done(&self) -> u64 {
        self.bar.position()
    }

    fn refresh(&self) {
        let retries = self.retries();
        let plural = if retries == 1 { "retry" } else { "retries" };
        self.bar.set_message(format!(
            "batch {}/{} · {retries} {plural}",
            self.batches_done(),
            self.batches_total.load(Ordering::SeqCst),
        ));
    }
}

impl Progress for BarProgress {
    fn start(&self, batches: usize, pairs: usize) {
        self.batches_total.store(batches, Ordering::SeqCst);
        self.bar.set_length(pairs as u64);
        self.refresh();
        if !self.bar.is_hidden() {
            self.bar.enable_steady_tick(Duration::from_millis(120));
        }
    }

    fn batch_done(&self, pairs: usize) {
        self.batches_done.fetch_add(1, Ordering::SeqCst);
        self.bar.inc(pairs as u64);
        self.refresh();
    }

    fn retry(&self) {
        self.retries.fetch_add(1, Ordering::SeqCst);
        self.refresh();
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_bar_counts() {
        let p = BarProgress::new(ProgressBar::hidden());
        p.start(3, 10);
        p.batch_done(4);
        p.retry();
        p.batch_done(6);
        assert_eq!(p.batches_done(), 2);
        assert_eq!(p.retries(), 1);
        assert_eq!(p.pairs_done(), 10);
        assert_eq!(p.bar.message(), "batch 2/3 · 1 retry");
        p.finish();
    }
}
