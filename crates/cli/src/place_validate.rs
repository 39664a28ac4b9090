//! `pmolap place validate`: parses, shows progress, prints the predicted-vs-measured
//! table, writes the document and the accuracy record later advice on the same workload,
//! profile and options states; the work is `pmolap_bench::ssb::validate`.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use pmolap_bench::ssb::validate::{validate, Setting, ValidateOptions, ValidateReport};
use pmolap_bench::ssb::{given_or_recorded, DataOptions};
use pmolap_place::{AccuracyRecord, MeasuredError};

use crate::place_cmd::{accuracy_dir, profile, ChosenProfile, QueriesArgs, SolverArgs};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub q: QueriesArgs,
    /// The profile and model flags, as `place advise` takes them: the placements measured
    /// are those `advise` writes with the same flags.
    #[command(flatten)]
    pub solver: SolverArgs,
    /// `cold` (pages dropped before every query) or `cache:SIZE` (the slow tier's page
    /// cache bounded by a memory cgroup, e.g. cache:64MiB).
    #[arg(long, default_value = "cold")]
    pub setting: Setting,
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
        let n = pmolap_os::cgroup::sweep_stale();
        if n > 0 {
            eprintln!("removed {n} memory cgroup(s) left by killed pmolap runs");
        }
    }
    let data: DataOptions = a.q.data.options();
    let ChosenProfile { profile: p, label } = profile(a.solver.profile.as_deref())?;
    let pb = crate::progress::bar(0, a.quiet);
    let (queries, _) = a.q.resolve(&data, &pb)?;
    let w = given_or_recorded(&data, &queries, a.workload.as_deref(), &pb)?;
    let advice = a.solver.options(&w)?;
    let key = advice.key(&w, &p);
    let o = ValidateOptions {
        data,
        queries,
        reps: a.q.reps,
        profile: p,
        setting: a.setting,
        advice,
    };
    let r = validate(&o, w, &pb)?;
    pb.finish_and_clear();
    crate::output::write_json(&r, &a.out)?;
    println!("profile: {label}");
    print_report(&r);
    println!("-> {}", a.out.display());
    if r.header.partial {
        std::process::exit(pmolap_os::signal::EXIT_INTERRUPTED);
    }
    if let Some(e) = &r.advised {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let document = std::fs::canonicalize(&a.out)
            .unwrap_or_else(|_| a.out.clone())
            .display()
            .to_string();
        let record = AccuracyRecord::new(
            key,
            r.header.machine.hostname.clone(),
            now,
            MeasuredError {
                model: e.model.clone(),
                setting: r.config.setting.to_string(),
                date: pmolap_report::date(now),
                document,
                query_median: e.query_median,
                query_max: e.query_max,
                workload_median: e.workload_median,
                workload_max: e.workload_max,
                placements: e.placements,
            },
        );
        let path = record.save(&accuracy_dir())?;
        println!(
            "accuracy of advice on this workload: {} (-> {})",
            record.error,
            path.display()
        );
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
    println!(
        "grid: budgets {:?}, targets {:?} (share); T_DRAM {:.1} ms (the workload's), {} I/O threads",
        r.config.budgets,
        r.config.targets,
        r.config.t_dram_ns.unwrap_or(f64::NAN) / 1e6,
        r.config.io_threads.unwrap_or(1)
    );
    println!("absolute error of the predicted relative time (median / max):");
    for e in &r.errors {
        println!(
            "  {:<9} workload {:.3} / {:.3}   per query {:.3} / {:.3}",
            e.model, e.workload_median, e.workload_max, e.query_median, e.query_max
        );
    }
}
