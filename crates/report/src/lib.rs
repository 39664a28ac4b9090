//! pmolap's plots and HTML report, made from result documents alone (DESIGN.md: results
//! are data). Documents are read by `kind` into their `pmolap_results` types ([`doc`]);
//! one module per kind draws its figures and tables (`kinds`), dispatched from one place;
//! [`plot_file`] writes one document's figures as PNG and SVG files; [`write_report`]
//! writes one self-contained HTML page (`html` module docs) for any number of
//! documents.
//!
//! Figures and the paper figures they correspond to: membench — SIGMOD'21 Figs 3–13;
//! iobench — DaMoN'21 Figs 2–5; SSB — SIGMOD'21 Fig. 14 and Table 1; Elf — the
//! selective-caching paper's Figs 3–5;
//! PostgreSQL TPC-H per tier — DaMoN'21 Fig. 6; the Dash hash table — Dash VLDB'20 Fig. 10
//! (the joins of SIGMOD'21 §6.2).
#![forbid(unsafe_code)]

pub mod doc;
mod draw;
pub mod error;
mod findings;
mod html;
mod kinds;
mod markup;
mod plot;
mod png;

use std::path::{Path, PathBuf};

pub use doc::{Document, Inputs};
pub use error::{Error, Result};
pub use html::date;
pub use plot::plot_file;

/// The report's file name in its output directory.
pub const REPORT_FILE: &str = "report.html";

/// Reads every input (files, or directories of `*.json`; see [`doc::collect`]) and
/// renders the report page.
pub fn render_report(inputs: &[PathBuf]) -> Result<(String, Inputs)> {
    let docs = doc::collect(inputs)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Ok((html::render(&docs, now)?, docs))
}

/// [`render_report`], published whole as `out_dir/report.html` (the directory created if
/// missing). Returns the page's path and what was read.
pub fn write_report(inputs: &[PathBuf], out_dir: &Path) -> Result<(PathBuf, Inputs)> {
    let (page, docs) = render_report(inputs)?;
    std::fs::create_dir_all(out_dir).map_err(|e| Error::io(out_dir, e))?;
    let path = out_dir.join(REPORT_FILE);
    pmolap_os::durable::publish_file(&path, page.as_bytes())?;
    Ok((path, docs))
}
