//! The spinner of the commands whose work reports steps rather than a count.

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
