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

/// `out/report.html` from result files and directories.
pub fn report(inputs: &[PathBuf], out: &Path) -> Result<()> {
    crate::membench_cmd::check_output(&out.join(pmolap_report::REPORT_FILE))
        .with_context(|| format!("cannot write the report into {}", out.display()))?;
    let (page, read) = pmolap_report::write_report(inputs, out)?;
    for (p, why) in &read.skipped {
        eprintln!("skipped {}: {why}", p.display());
    }
    println!("{}", page.display());
    Ok(())
}
