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
    /// Where every result document and the report go (created; must be empty or new).
    pub out: PathBuf,
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
/// interrupt stops it after the running step, with what finished kept (partial).
pub fn run(opts: &DemoOptions, on_event: &dyn Fn(Event<'_>)) -> Result<DemoSummary> {
    prepare_out(&opts.out)?;
    let t0 = Instant::now();
    let topo = Topology::detect()?;
    let ctx = steps::Ctx {
        out: opts.out.clone(),
        sf: opts.sf,
        topo: topo.clone(),
    };
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
        let (status, detail, files) = match step(&ctx) {
            Ok(Outcome::Done { files, detail }) => (Status::Done, detail, files),
            Ok(Outcome::Skipped(why)) => (Status::Skipped, why, Vec::new()),
            Err(e) => (Status::Failed, e.to_string(), Vec::new()),
        };
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
    write_summary(opts, &topo, &records, t0)
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

/// The output directory: created if missing; an existing one must not hold a previous
/// demo's results (they are not overwritten).
fn prepare_out(out: &Path) -> Result<()> {
    if out.exists() {
        if !out.is_dir() {
            return Err(Error::Demo(format!(
                "{}: exists and is not a directory",
                out.display()
            )));
        }
        if out.join("demo.json").exists() {
            return Err(Error::Demo(format!(
                "{}: holds the results of an earlier demo; name a new directory (nothing was overwritten)",
                out.display()
            )));
        }
    }
    std::fs::create_dir_all(out).map_err(|e| pmolap_os::Error::io(out, e))?;
    pmolap_os::durable::check_writable(&out.join("demo.json"))?;
    Ok(())
}
