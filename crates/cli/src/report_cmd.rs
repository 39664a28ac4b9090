//! `pmolap plot` and `pmolap report`: outputs checked first, then `pmolap_report` draws;
//! the files written are printed.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// PNG and SVG files of one result document into `out`.
pub fn plot(results: &Path, out: &Path) -> Result<()> {
    crate::membench_cmd::check_output(&out.join("plot.png"))
        .with_context(|| format!("cannot write plots into {}", out.display()))?;
    for f in pmolap_report::plot_file(results, out)? {
        println!("{}", f.display());
    }
    Ok(())
}

/// The demo's last step: the report of its output directory, in it.
pub fn demo_report(out: &Path) -> std::result::Result<PathBuf, String> {
    pmolap_report::write_report(&[out.to_path_buf()], out)
        .map(|(page, _)| page)
        .map_err(|e| e.to_string())
}

/// `out/report.html` from result files and directories; an existing page is refused
/// naming it unless `overwrite` (this run did not write it).
pub fn report(inputs: &[PathBuf], out: &Path, overwrite: bool) -> Result<()> {
    let page = out.join(pmolap_report::REPORT_FILE);
    if page.symlink_metadata().is_ok() && !(overwrite && page.is_file()) {
        anyhow::bail!(
            "{}: already exists; pmolap replaces only files it wrote in this run (give --overwrite to replace it)",
            page.display()
        );
    }
    crate::membench_cmd::check_output(&page)
        .with_context(|| format!("cannot write the report into {}", out.display()))?;
    let (page, read) = pmolap_report::write_report(inputs, out)?;
    for (p, why) in &read.skipped {
        eprintln!("skipped {}: {why}", p.display());
    }
    println!("{}", page.display());
    Ok(())
}
