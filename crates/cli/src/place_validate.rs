//! `pmolap place validate`: parses, shows progress, prints the predicted-vs-measured
//! table, writes the document and the accuracy record later advice on the same workload,
//! profile and options states; the work is `pmolap_bench::ssb::validate`.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use pmolap_bench::ssb::validate::{
    validate, Setting, ValidateOptions, ValidateReport, BASELINE_KINDS,
};
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
    /// Leave out the baselines (hottest by access density, dictionaries only,
    /// never-accessed only, the OS alone), measured by default at the DRAM bytes of each
    /// advised placement.
    #[arg(long)]
    pub no_baselines: bool,
    /// Past --reps, repeat each placement's timed runs until they add up to this many
    /// seconds (cold: each query's to its share of them), at most --max-reps times: a
    /// placement that reads little from the slow tier runs in about the all-DRAM time,
    /// and with few repetitions one disturbed run of a query decides its figure.
    /// 0: exactly --reps.
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    pub min_time: f64,
    /// The most repetitions --min-time may take a placement to (default: 3 x --reps, at
    /// least 5).
    #[arg(long)]
    pub max_reps: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct TablesArgs {
    /// `place-validate` documents: each one round of its setting (rounds and settings in
    /// any order).
    #[arg(required = true)]
    pub docs: Vec<PathBuf>,
    /// Also write the markdown here (an existing file is refused unless --overwrite).
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file.
    #[arg(long)]
    pub overwrite: bool,
}

/// `pmolap place tables`: reads the documents, prints the markdown tables, writes them.
pub fn tables(a: &TablesArgs) -> Result<()> {
    if let Some(out) = &a.out {
        crate::place_cmd::check_out_file(out, a.overwrite)?;
    }
    let mut docs: Vec<ValidateReport> = Vec::new();
    for path in &a.docs {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        let d: ValidateReport = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a place-validate document", path.display()))?;
        if d.header.kind != pmolap_results::kind::PLACE_VALIDATE.name {
            bail!(
                "{}: a `{}` document, not place-validate",
                path.display(),
                d.header.kind
            );
        }
        docs.push(d);
    }
    let md = pmolap_bench::ssb::validate::tables::markdown(&docs);
    print!("{md}");
    if let Some(out) = &a.out {
        std::fs::write(out, &md).with_context(|| format!("writing {}", out.display()))?;
        println!("-> {}", out.display());
    }
    Ok(())
}

pub fn run(a: &ValidateArgs) -> Result<()> {
    crate::place_cmd::check_out_file(&a.out, a.overwrite)?;
    if !(a.min_time.is_finite() && (0.0..=86_400.0).contains(&a.min_time)) {
        bail!("--min-time {}: give seconds from 0 to 86400", a.min_time);
    }
    if a.max_reps.is_some_and(|m| m < a.q.reps) {
        bail!(
            "--max-reps {} is below --reps {}",
            a.max_reps.unwrap_or(0),
            a.q.reps
        );
    }
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
    // Validate runs the slow structures from the database's files: the advice's promise
    // with the workload's samples of them, as `advise --location home` prices it.
    let (p, costs_line) = crate::place_cmd::calibrated_for(p, &w, true);
    let advice = a.solver.options(&w)?;
    let key = advice.key(&w, &p);
    let o = ValidateOptions {
        data,
        queries,
        reps: a.q.reps,
        min_time: std::time::Duration::from_secs_f64(a.min_time),
        max_reps: a
            .max_reps
            .unwrap_or_else(|| ValidateOptions::default_max_reps(a.q.reps)),
        profile: p,
        setting: a.setting,
        advice,
        baselines: !a.no_baselines,
    };
    let r = validate(&o, w, &pb)?;
    pb.finish_and_clear();
    crate::output::write_json(&r, &a.out)?;
    println!("profile: {label}");
    if let Some(l) = &costs_line {
        println!("{l}");
    }
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
        "slow tier: the database's files on {} ({}), profile {} ({}); {} threads, {} reps{}",
        r.config.slow_fs,
        r.config.setting,
        r.config.profile_tier,
        r.config.profile_source,
        r.config.threads,
        r.config.reps,
        r.config.min_time_note()
    );
    if let Some(c) = &r.cgroup {
        println!(
            "memory cgroup: limit {:.1} MiB = cache bound + {:.1} MiB working memory; page cache at most {:.1} MiB; page model given {} bytes (`place advise --cache {}` predicts the same)",
            c.limit_bytes as f64 / (1 << 20) as f64,
            c.working_bytes as f64 / (1 << 20) as f64,
            c.max_page_cache_bytes as f64 / (1 << 20) as f64,
            c.model_cache_bytes.unwrap_or(0),
            c.model_cache_bytes.unwrap_or(0)
        );
    }
    println!("slow %: share of the accessed bytes on the slow tier (of all bytes in brackets)");
    println!("read MiB: bytes read from storage per workload pass, measured / the page model's");
    println!(
        "{:<20} {:>16} {:>9} {:>9} {:>9} {:>9} {:>9} {:>17}",
        "placement", "slow %", "measured", "paper", "no CMR", "no dense", "page", "read MiB"
    );
    let mib = |io: Option<pmolap_bench::ssb::validate::IoFigures>| {
        io.map_or_else(
            || "-".into(),
            |i| format!("{:.1}", i.read_bytes / (1u64 << 20) as f64),
        )
    };
    for s in &r.scenarios {
        println!(
            "{:<20} {:>6.1}% ({:>5.1}%) {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9} {:>17}",
            s.name,
            100.0 * s.headline_fraction(),
            100.0 * s.slow_fraction,
            s.measured,
            s.predicted.paper,
            s.predicted.no_cmr,
            s.predicted.no_dense,
            opt(s.predicted.page),
            format!("{} / {}", mib(s.io), mib(s.predicted_io))
        );
        if let Some(b) = &s.advice_baseline {
            println!("{:<20} (the advice is the `{b}` baseline: predicted faster than the solver's optimum)", "");
        }
    }
    println!(
        "grid: budgets {:?}, targets {:?} (share); T_DRAM {:.1} ms (the workload's), {} I/O threads",
        r.config.budgets,
        r.config.targets,
        r.config.t_dram_ns.unwrap_or(f64::NAN) / 1e6,
        r.config.io_threads.unwrap_or(1)
    );
    if let Some(c) = &r.calibration {
        let f = crate::place_cmd::ns;
        println!(
            "page costs sampled beside every placement ({} samples of the database's files; the page model's `predicted` uses their medians, the promise the workload's calibration), ns: one stream {} per page (promise {}), three streams {} ({}), isolated fault {} per page read ({}), fault on a small file {} ({})",
            c.samples.len(),
            f(c.used.one_stream_ns),
            f(c.profile.one_stream_ns),
            f(c.used.three_streams_ns),
            f(c.profile.three_streams_ns),
            f(c.used.fault_page_ns),
            f(c.profile.fault_page_ns),
            f(c.used.fault_latency_ns),
            f(c.profile.fault_latency_ns),
        );
    }
    println!("absolute error of the predicted relative time (median / max):");
    for e in &r.errors {
        println!(
            "  {:<9} workload {:.3} / {:.3}   per query {:.3} / {:.3}",
            e.model, e.workload_median, e.workload_max, e.query_median, e.query_max
        );
    }
    print_comparisons(r);
}

/// Per advised placement: promise kept, and its time over each baseline's at the same
/// DRAM bytes with the verdict of the one noise rule.
fn print_comparisons(r: &ValidateReport) {
    let cs = r.comparisons();
    if cs.is_empty() {
        return;
    }
    println!(
        "advice vs baselines at equal DRAM bytes (advice time / baseline time, whole workload, each its extra time over its own paired all-DRAM runs plus the recorded all-DRAM time; promise kept: measured <= promised x 1.1, the promise behind a bounded cache the highest prediction at 10 % less, the same and 10 % more cache; at run: the promise's extra time over the all-DRAM time measured beside it, x its ratio to the recorded one; at run costs: the promise priced with the page costs the run sampled, at that all-DRAM time):"
    );
    print!(
        "{:<12} {:>9} {:>9} {:>5} {:>15} {:>13}",
        "placement", "promised", "measured", "kept", "at run (dram x)", "at run costs"
    );
    for k in BASELINE_KINDS {
        print!(" {:>28}", k);
    }
    println!();
    for c in cs {
        let at_run = match (c.promised_at_run, c.kept_at_run, c.dram_ratio) {
            (Some(p), Some(k), Some(r)) => {
                format!("{p:.3} {} ({r:.2})", if k { "yes" } else { "NO" })
            }
            _ => "-".into(),
        };
        let at_costs = match (c.promised_at_run_costs, c.kept_at_run_costs) {
            (Some(p), Some(k)) => format!("{p:.3} {}", if k { "yes" } else { "NO" }),
            _ => "-".into(),
        };
        print!(
            "{:<12} {:>9.3} {:>9.3} {:>5} {:>15} {:>13}",
            c.placement,
            c.promised,
            c.measured,
            if c.kept { "yes" } else { "NO" },
            at_run,
            at_costs
        );
        for (_, ratio) in &c.against {
            print!(" {:>28}", ratio.map_or_else(|| "-".into(), |x| x.display()));
        }
        let band = r
            .scenarios
            .iter()
            .find(|s| s.name == c.placement)
            .and_then(|s| s.promised_band);
        println!(
            "{}",
            band.map_or_else(String::new, crate::place_cmd::cliff_note)
        );
    }
}
