//! `pmolap demo`: the machine's topology, quick memory sweeps, the storage workloads on
//! each file tier, the SSB on every tier with the Table 1 ladder, an Elf run, the Dash
//! hash table on every tier, TPC-H on PostgreSQL with a tablespace per file tier,
//! placement advice, and one HTML report — every intermediate result kept as a JSON document in one
//! output directory, with a `demo.json` that says which step did what, what it skipped
//! and why.
#![forbid(unsafe_code)]

pub mod error;
mod hashpg;
mod steps;

use std::path::{Path, PathBuf};
use std::time::Instant;

use pmolap_results::{kind, Header, Machine};
use pmolap_tier::Topology;

pub use error::{Error, Result};

/// How the demo runs.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// Where every result document and the report go (created if missing).
    pub out: PathBuf,
    /// Whether missing parents of `out` may be created (a default location the demo
    /// chose); a path the user gave must have an existing parent.
    pub create_parents: bool,
    /// Replace files of the demo's names already in `out`; otherwise the first one is
    /// refused by name before anything runs.
    pub overwrite: bool,
    /// The SSB scale factor (its database is `data/ssb/sf<SF>`, generated once).
    pub sf: f64,
}

pub use pmolap_results::demo::{DemoSummary, Status, StepRecord};

/// Progress events for the caller to show.
#[derive(Debug)]
pub enum Event<'a> {
    /// Step `index` (1-based) of `of` starts.
    Start {
        index: usize,
        of: usize,
        name: &'a str,
    },
    /// A step ended.
    Done(&'a StepRecord),
}

/// What a step returns: the files written and a line on what it measured, or a skip.
pub(crate) enum Outcome {
    Done { files: Vec<String>, detail: String },
    Skipped(String),
}

/// Runs the demo (module docs). A step that fails is recorded and the demo goes on; an
/// interrupt stops it after the running step (recorded as interrupted), with what
/// finished kept (partial), and the report is written of what finished.
pub fn run(opts: &DemoOptions, on_event: &dyn Fn(Event<'_>)) -> Result<DemoSummary> {
    check_sf(opts.sf)?;
    let t0 = Instant::now();
    let topo = Topology::detect()?;
    let ctx = steps::Ctx {
        out: opts.out.clone(),
        sf: opts.sf,
        topo: topo.clone(),
    };
    prepare_out(opts, &steps::outputs(&ctx))?;
    let all = steps::all();
    let mut records = Vec::new();
    for (i, (name, step)) in all.iter().enumerate() {
        if pmolap_os::signal::interrupted() {
            break;
        }
        on_event(Event::Start {
            index: i + 1,
            of: all.len(),
            name,
        });
        let s0 = Instant::now();
        let (mut status, mut detail, files) = match step(&ctx) {
            Ok(Outcome::Done { files, detail }) => (Status::Done, detail, files),
            Ok(Outcome::Skipped(why)) => (Status::Skipped, why, Vec::new()),
            Err(e) => (Status::Failed, e.to_string(), Vec::new()),
        };
        if pmolap_os::signal::interrupted() && status != Status::Skipped {
            // The interrupt came while this step ran: what it finished is in its files.
            status = Status::Interrupted;
            detail = format!("stopped by an interrupt: {detail}");
        }
        let rec = StepRecord {
            name: name.to_string(),
            status,
            detail,
            files,
            seconds: s0.elapsed().as_secs_f64(),
        };
        on_event(Event::Done(&rec));
        records.push(rec);
        // The summary is rewritten after every step: an interrupted demo keeps it.
        write_summary(opts, &topo, &records, t0)?;
    }
    if pmolap_os::signal::interrupted() && !records.iter().any(|r| r.name == steps::REPORT) {
        // The report of what finished (demo.json, just written, lists the interrupted
        // step); `report` in demo.json is set once it is written.
        report_after_interrupt(&ctx, &mut records);
    }
    write_summary(opts, &topo, &records, t0)
}

/// The report step run after an interrupt stopped the demo: recorded as the report step,
/// or as failed with its error (the demo's documents are kept either way).
fn report_after_interrupt(ctx: &steps::Ctx, records: &mut Vec<StepRecord>) {
    let s0 = Instant::now();
    let (status, detail, files) = match steps::report_of(ctx) {
        Ok((name, detail)) => (Status::Done, detail, vec![name]),
        Err(e) => (Status::Failed, e.to_string(), Vec::new()),
    };
    records.push(StepRecord {
        name: steps::REPORT.to_string(),
        status,
        detail,
        files,
        seconds: s0.elapsed().as_secs_f64(),
    });
}

fn write_summary(
    opts: &DemoOptions,
    topo: &Topology,
    records: &[StepRecord],
    t0: Instant,
) -> Result<DemoSummary> {
    let report = records
        .iter()
        .find(|r| r.name == steps::REPORT && r.status == Status::Done)
        .and_then(|r| r.files.first().cloned());
    let s = DemoSummary {
        header: Header::new(
            kind::DEMO,
            Machine::from_topology(topo),
            pmolap_os::signal::interrupted(),
        ),
        sf: opts.sf,
        steps: records.to_vec(),
        report,
        seconds: t0.elapsed().as_secs_f64(),
    };
    steps::publish(&opts.out, "demo.json", &s)?;
    Ok(s)
}

/// Refuses a scale factor the SSB generator does not make, before any work.
fn check_sf(sf: f64) -> Result<()> {
    if sf.is_finite() && sf > 0.0 && sf < pmolap_ssb::MAX_SCALE_FACTOR {
        return Ok(());
    }
    Err(Error::Demo(format!(
        "--sf {sf}: the scale factor must be above 0 and below {} (the SSB generator's range)",
        pmolap_ssb::MAX_SCALE_FACTOR
    )))
}

/// The output directory: created if missing (its parents only where `create_parents`);
/// an existing one must hold none of the files the demo writes (`outputs`), unless
/// `overwrite`: files the demo did not write in this run are never replaced.
fn prepare_out(opts: &DemoOptions, outputs: &[String]) -> Result<()> {
    let out = &opts.out;
    if out.exists() {
        if !out.is_dir() {
            return Err(Error::Demo(format!(
                "{}: exists and is not a directory",
                out.display()
            )));
        }
        if !opts.overwrite {
            if let Some(f) = outputs
                .iter()
                .map(|n| out.join(n))
                .find(|p| p.symlink_metadata().is_ok())
            {
                return Err(Error::Demo(format!(
                    "{}: already exists and the demo would replace it; name a new or empty directory, or pass --overwrite (nothing was changed)",
                    f.display()
                )));
            }
        }
    } else if opts.create_parents {
        std::fs::create_dir_all(out).map_err(|e| pmolap_os::Error::io(out, e))?;
    } else {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            return Err(Error::Demo(format!(
                "{}: its parent directory {} does not exist (only the output directory itself is created)",
                out.display(),
                parent.display()
            )));
        }
        std::fs::create_dir(out).map_err(|e| pmolap_os::Error::io(out, e))?;
    }
    pmolap_os::durable::check_writable(&out.join("demo.json"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(out: PathBuf, overwrite: bool, create_parents: bool) -> DemoOptions {
        DemoOptions {
            out,
            create_parents,
            overwrite,
            sf: 0.01,
        }
    }

    #[test]
    fn the_output_directory_keeps_what_the_demo_did_not_write() {
        let d = tempfile::tempdir().unwrap();
        let names: Vec<String> = ["topology.json", "demo.json"].map(String::from).to_vec();
        let out = d.path().join("o");
        std::fs::create_dir(&out).unwrap();
        // Only the user's notes: the demo writes none of them.
        std::fs::write(out.join("notes.txt"), b"mine").unwrap();
        prepare_out(&opts(out.clone(), false, false), &names).unwrap();
        std::fs::write(out.join("demo.json"), b"{}").unwrap();
        let e = prepare_out(&opts(out.clone(), false, false), &names)
            .unwrap_err()
            .to_string();
        assert!(e.contains("demo.json") && e.contains("--overwrite"), "{e}");
        prepare_out(&opts(out.clone(), true, false), &names).unwrap();
        // Parents: only for a location the demo chose.
        let deep = d.path().join("a").join("b");
        let e = prepare_out(&opts(deep.clone(), false, false), &names)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        assert!(!d.path().join("a").exists());
        prepare_out(&opts(deep.clone(), false, true), &names).unwrap();
        assert!(deep.is_dir());
    }

    #[test]
    fn scale_factors_follow_the_generator() {
        for sf in [0.0, -1.0, 1000.0, 5000.0, f64::NAN, f64::INFINITY] {
            let e = check_sf(sf).unwrap_err().to_string();
            assert!(e.contains("above 0 and below 1000"), "{e}");
        }
        check_sf(0.01).unwrap();
        check_sf(999.0).unwrap();
    }
}
