//! `pmolap plot`: every figure a result document supports, as PNG and SVG files.

use std::path::{Path, PathBuf};

use crate::doc;
use crate::error::{Error, Result};
use crate::kinds::{figures, nothing_to_plot};

/// Reads the result file `results` and writes every figure it supports as
/// `<stem>.png` and `<stem>.svg` into `out_dir` (created if missing). Returns the files
/// written.
pub fn plot_file(results: &Path, out_dir: &Path) -> Result<Vec<PathBuf>> {
    let d = doc::read(results)?;
    let figs = figures(&d);
    if figs.is_empty() {
        return Err(Error::NothingToPlot {
            path: results.to_path_buf(),
            why: format!("nothing to plot: {}", nothing_to_plot(&d)),
        });
    }
    std::fs::create_dir_all(out_dir).map_err(|e| Error::io(out_dir, e))?;
    let mut written = Vec::new();
    for f in &figs {
        written.extend(f.save(out_dir)?);
    }
    Ok(written)
}
