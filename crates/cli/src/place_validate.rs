//! `pmolap place validate`: parses, shows progress, prints the predicted-vs-measured
//! table and writes the document; the work is `pmolap_bench::ssb::validate`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use pmolap_bench::ssb::validate::{validate, workload, Setting, ValidateOptions, ValidateReport};
use pmolap_bench::ssb::DataOptions;
use pmolap_place::Granularity;

use crate::place_cmd::{llc_bytes, profile, QueriesArgs};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub q: QueriesArgs,
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
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(a: &ValidateArgs) -> Result<()> {
    crate::output::check_output(&a.out).context("--out")?;
    let queries = crate::ssb_run::ssb_list(&a.q.queries)?;
    let data: DataOptions = a.q.data.options();
    let p = profile(&a.profile)?;
    let llc = llc_bytes(a.llc)?;
    let pb = crate::progress::bar(0, a.quiet);
    let w = workload(&data, &queries, a.workload.as_deref(), &pb)?;
    let o = ValidateOptions {
        data,
        queries,
        reps: a.q.reps,
        profile: p,
        setting: a.setting,
        granularity: a.granularity,
        llc_bytes: llc,
    };
    let r = validate(&o, w, &pb)?;
    pb.finish_and_clear();
    crate::output::write_json(&r, &a.out)?;
    print_report(&r);
    println!("-> {}", a.out.display());
    if r.header.partial {
        std::process::exit(pmolap_os::signal::EXIT_INTERRUPTED);
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
    println!("slow %: share of the accessed bytes on the slow tier (of all bytes in brackets)");
    println!(
        "{:<20} {:>16} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "placement", "slow %", "measured", "paper", "no CMR", "no dense", "page"
    );
    for s in &r.scenarios {
        println!(
            "{:<20} {:>6.1}% ({:>5.1}%) {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9}",
            s.name,
            100.0 * s.headline_fraction(),
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
