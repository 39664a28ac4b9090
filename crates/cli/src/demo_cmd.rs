//! `pmolap demo`: shows progress and prints; the steps are `pmolap_demo::run`.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

use pmolap_demo::{DemoOptions, Event, Status};

/// Flags of `pmolap demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Output directory for every result document and the report (default
    /// results/demo-YYYYMMDD-HHMMSS, UTC). Its parent must exist; a file of this name already
    /// in it is refused (nothing is overwritten) unless --overwrite.
    #[arg(long)]
    out: Option<PathBuf>,
    /// SSB scale factor, above 0 and below 1000 (its data is generated once into
    /// data/ssb/sf<SF>).
    #[arg(long, default_value_t = 1.0)]
    sf: f64,
    /// Replace result files of the demo's names that are already in --out.
    #[arg(long)]
    overwrite: bool,
    /// No progress spinner.
    #[arg(long)]
    quiet: bool,
}

/// Runs the demo into `--out` (default `results/demo-YYYYMMDD-HHMMSS`, UTC) at scale factor `--sf`;
/// `--overwrite`: replace files of the demo's names already there.
pub fn run(a: &DemoArgs) -> Result<()> {
    let create_parents = a.out.is_none();
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| crate::output::default_results_path("demo", ""));
    let (sf, overwrite) = (a.sf, a.overwrite);
    let pb = crate::progress::spinner(a.quiet);
    let on_event = |e: Event<'_>| match e {
        Event::Start { index, of, name } => pb.set_message(format!("step {index}/{of}: {name}")),
        Event::Done(r) => {
            pb.println(format!(
                "{:>14} {:>7} {:>6.1} s  {}",
                r.name,
                r.status.word(),
                r.seconds,
                r.detail
            ));
        }
    };
    let summary = pmolap_demo::run(
        &DemoOptions {
            out: out.clone(),
            create_parents,
            overwrite,
            sf,
        },
        &on_event,
    )?;
    pb.finish_and_clear();
    println!(
        "results: {} ({} steps in {:.0} s)",
        out.display(),
        summary.steps.len(),
        summary.seconds
    );
    if let Some(r) = &summary.report {
        println!("report: {}", out.join(r).display());
    }
    if summary.header.partial {
        let stopped = summary
            .steps
            .iter()
            .find(|s| s.status == Status::Interrupted)
            .map_or("before the next step".to_string(), |s| {
                format!("during step `{}`", s.name)
            });
        println!(
            "interrupted {stopped}: the report covers the steps that finished; \
             `pmolap report {} -o {} --overwrite` rewrites it from the files there",
            out.display(),
            out.display()
        );
    }
    let failed: Vec<&str> = summary
        .steps
        .iter()
        .filter(|s| s.status == Status::Failed)
        .map(|s| s.name.as_str())
        .collect();
    if !failed.is_empty() {
        bail!(
            "demo steps failed: {} (see {}/demo.json)",
            failed.join(", "),
            out.display()
        );
    }
    Ok(())
}
