//! `pmolap demo`: shows progress and prints; the steps are `pmolap_demo::run`.

use std::path::PathBuf;

use anyhow::{bail, Result};

use pmolap_demo::{DemoOptions, Event, Status};

/// Runs the demo into `out` (default `results/demo-<unix time>`) at scale factor `sf`;
/// `overwrite`: replace files of the demo's names already there.
pub fn run(out: Option<PathBuf>, sf: f64, overwrite: bool, quiet: bool) -> Result<()> {
    let create_parents = out.is_none();
    let out = out.unwrap_or_else(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        PathBuf::from("results").join(format!("demo-{now}"))
    });
    let pb = crate::progress::spinner(quiet);
    let on_event = |e: Event<'_>| match e {
        Event::Start { index, of, name } => pb.set_message(format!("step {index}/{of}: {name}")),
        Event::Done(r) => {
            let mark = match r.status {
                Status::Done => "done",
                Status::Skipped => "skipped",
                Status::Failed => "FAILED",
            };
            pb.println(format!(
                "{:>14} {:>7} {:>6.1} s  {}",
                r.name, mark, r.seconds, r.detail
            ));
        }
    };
    let summary = pmolap_demo::run(
        &DemoOptions {
            out: out.clone(),
            create_parents,
            overwrite,
            sf,
            report: Some(crate::report_cmd::demo_report),
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
