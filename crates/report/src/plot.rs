//! `pmolap plot`: every figure a result document supports, as PNG and SVG files.

use std::path::{Path, PathBuf};

use crate::doc::{self, Document};
use crate::draw::{unique_stems, Figure};
use crate::error::{Error, Result};
use crate::{elf, hashbench, iobench, membench, pg, place, ssb};

/// Every figure of `d` (none for the demo summary and topology documents).
pub(crate) fn figures(d: &Document) -> Vec<Figure> {
    let mut figs = match d {
        Document::Membench(r) => membench::figures(r),
        Document::Iobench(r) => iobench::figures(r),
        Document::Elf(r) => elf::figures(r),
        Document::SsbTiers(r) => ssb::tiers_figures(r),
        Document::SsbBreakdown(r) => ssb::breakdown_figures(r),
        Document::SsbRun(r) => ssb::run_figures(r),
        Document::PlaceValidate(r) => place::figures(r),
        Document::PgTpch(r) => pg::figures(r),
        Document::HashBench(r) => hashbench::figures(r),
        Document::Demo(_) | Document::Topology(_) => Vec::new(),
    };
    unique_stems(&mut figs);
    figs
}

/// Why `d` has no figure.
pub(crate) fn nothing_to_plot(d: &Document) -> String {
    match d {
        Document::Membench(r) => format!(
            "{} run(s), but no group has two or more access sizes or thread counts, \
             and no run measured latency",
            r.runs.len()
        ),
        Document::Iobench(r) => format!(
            "{} run(s), but no chart has two or more thread counts",
            r.runs.len()
        ),
        Document::Elf(_) => "no query types, windows or selectivities".into(),
        Document::SsbTiers(_) | Document::SsbBreakdown(_) | Document::SsbRun(_) => {
            "no query finished".into()
        }
        Document::PlaceValidate(_) => "no placement was measured".into(),
        Document::PgTpch(_) => "no query finished on every tier".into(),
        Document::HashBench(_) => "no thread count was measured".into(),
        Document::Demo(_) | Document::Topology(_) => {
            format!("a {} document holds no measurements to draw", d.kind())
        }
    }
}

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
