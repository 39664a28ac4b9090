//! `pmolap plot` and `pmolap report`: outputs checked first, then `pmolap_report` draws;
//! the files written are printed.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use crate::output::check_output;

/// Flags of `pmolap plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A results file written by `pmolap membench`, `iobench`, `elf bench` or `ssb`.
    results: PathBuf,
    /// Output directory (created if missing).
    #[arg(short, long, default_value = "plots")]
    out: PathBuf,
}

/// Flags of `pmolap report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Result files, or directories whose `*.json` files are read.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output directory (created if missing); the page is `DIR/report.html`.
    #[arg(short, long, default_value = "report")]
    out: PathBuf,
    /// Replace an existing `DIR/report.html` (without it an existing page is refused).
    #[arg(long)]
    overwrite: bool,
}

/// `pmolap plot`: PNG and SVG files of one result document into `--out`.
pub fn plot(a: &PlotArgs) -> Result<()> {
    let (results, out) = (&a.results, &a.out);
    check_output(&out.join("plot.png"))
        .with_context(|| format!("cannot write plots into {}", out.display()))?;
    for f in pmolap_report::plot_file(results, out)? {
        println!("{}", f.display());
    }
    Ok(())
}

/// `pmolap report`: `out/report.html` from result files and directories; an existing page
/// is refused naming it unless `--overwrite` (this run did not write it).
pub fn report(a: &ReportArgs) -> Result<()> {
    let (inputs, out) = (&a.inputs, &a.out);
    let page = out.join(pmolap_report::REPORT_FILE);
    if page.symlink_metadata().is_ok() && !(a.overwrite && page.is_file()) {
        anyhow::bail!(
            "{}: already exists; pmolap replaces only files it wrote in this run (give --overwrite to replace it)",
            page.display()
        );
    }
    check_output(&page)
        .with_context(|| format!("cannot write the report into {}", out.display()))?;
    let (page, read) = pmolap_report::write_report(inputs, out)?;
    for (p, why) in &read.skipped {
        eprintln!("skipped {}: {why}", p.display());
    }
    println!("{}", page.display());
    Ok(())
}
