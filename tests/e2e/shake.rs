//! shake / dry-run / undo end to end, checked with real pi's loader.
