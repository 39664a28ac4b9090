//! The progress displays: a spinner for commands whose work reports steps, a bar for
//! those that count runs.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A ticking spinner with the elapsed time and a message, or a hidden one when `quiet`.
pub(crate) fn spinner(quiet: bool) -> ProgressBar {
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// A bar of `len` runs with a message (set later as work goes on), or a hidden one when
/// `quiet`.
pub(crate) fn bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg:>6} {bar:30} {pos}/{len} runs {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}
