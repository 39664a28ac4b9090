//! `pmolap place validate`: parses, shows progress, prints the predicted-vs-measured
//! table and writes the document; the work is `pmolap_bench::ssb::validate`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use pmolap_bench::ssb::validate::{validate, Setting, ValidateOptions, ValidateReport};
use pmolap_bench::ssb::{self, DataOptions};
use pmolap_place::{Granularity, Workload};

use crate::place_cmd::{llc_bytes, profile};
use crate::ssb_run::DataArgs;

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Queries: all, or a list such as 1.1,2.3.
    #[arg(long, default_value = "all")]
    pub queries: String,
    /// Timed runs per query and placement.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// The slow tier's profile, measured on it (`pmolap place profile`), or a built-in.
    #[arg(long)]
    pub profile: String,
    /// `cold` (pages dropped before every query) or `cache:SIZE` (the slow tier's page
    /// cache bounded by a memory cgroup, e.g. cache:64MiB).
    #[arg(long, default_value = "cold")]
    pub setting: Setting,
    /// structure, column or table: what moves as one unit.
    #[arg(long, default_value = "structure")]
    pub granularity: Granularity,
    /// S_LLC in bytes (default: L3 + every core's L2 of this machine).
    #[arg(long)]
    pub llc: Option<u64>,
    /// A workload recorded with `pmolap place workload` (same queries); default: record
    /// it first.
    #[arg(long)]
    pub workload: Option<PathBuf>,
    /// Where to write the `place-validate` document.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Replace an existing --out file (without it an existing file is refused).
    #[arg(long)]
    pub overwrite: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(a: &ValidateArgs) -> Result<()> {
    crate::place_cmd::check_out_file(&a.out, a.overwrite)?;
    if matches!(a.setting, Setting::Cache { .. }) {
        // Before anything else: the memory cgroups of pmolap runs killed inside theirs.
        let n = pmolap_tier::cgroup::sweep_stale();
        if n > 0 {
            eprintln!("removed {n} memory cgroup(s) left by killed pmolap runs");
        }
    }
    let queries = crate::ssb_run::ssb_list(&a.queries)?;
    let data: DataOptions = a.data.options();
    let p = profile(&a.profile)?;
    let llc = llc_bytes(a.llc)?;
    let pb = crate::ssb_run::bar(0, a.quiet);
    let w = match &a.workload {
        Some(f) => Workload::load(f).with_context(|| format!("--workload {}", f.display()))?,
        None => {
            pb.set_message("workload");
            ssb::ssb_workload(&data, &queries, 3, &pb)?
        }
    };
    let o = ValidateOptions {
        data,
        queries,
        reps: a.reps,
        profile: p,
        setting: a.setting,
        granularity: a.granularity,
        llc_bytes: llc,
    };
    let r = validate(&o, w, &pb)?;
    pb.finish_and_clear();
    crate::membench_cmd::write_json(&r, &a.out)?;
    print_report(&r);
    println!("-> {}", a.out.display());
    if r.partial {
        std::process::exit(pmolap_tier::signal::EXIT_INTERRUPTED);
    }
    Ok(())
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.3}"))
}

fn print_report(r: &ValidateReport) {
    println!(
        "slow tier: the database's files on {} ({}), profile {} ({}); {} threads, {} reps",
        r.config.slow_fs,
        r.config.setting,
        r.config.profile_tier,
        r.config.profile_source,
        r.config.threads,
        r.config.reps
    );
    if let Some(c) = &r.cgroup {
        println!(
            "memory cgroup: limit {:.1} MiB = cache bound + {:.1} MiB working memory; page cache at most {:.1} MiB",
            c.limit_bytes as f64 / (1 << 20) as f64,
            c.working_bytes as f64 / (1 << 20) as f64,
            c.max_page_cache_bytes as f64 / (1 << 20) as f64
        );
    }
    println!(
        "{:<20} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "placement", "slow %", "measured", "paper", "no CMR", "no dense", "page"
    );
    for s in &r.scenarios {
        println!(
            "{:<20} {:>6.1}% {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9}",
            s.name,
            100.0 * s.slow_fraction,
            s.measured,
            s.predicted.paper,
            s.predicted.no_cmr,
            s.predicted.no_dense,
            opt(s.predicted.page)
        );
    }
    println!("absolute error of the predicted relative time (median / max):");
    for e in &r.errors {
        println!(
            "  {:<9} workload {:.3} / {:.3}   per query {:.3} / {:.3}",
            e.model, e.workload_median, e.workload_max, e.query_median, e.query_max
        );
    }
}
