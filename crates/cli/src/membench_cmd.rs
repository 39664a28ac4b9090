//! `pmolap membench`: runs a YAML sweep or one parameter set given as flags, prints a
//! table, and writes JSON (and optionally CSV) results.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args as ClapArgs;

use pmolap_bench::membench::config::{name, parse_name, resolve, Args};
use pmolap_bench::membench::{
    csv::write_csv, describe, run_all, validate_all, Config, Params, Run, RunOptions,
};
use pmolap_bench::size::{format_size, parse_size, Size};
use pmolap_tier::durable::{check_writable, parent_of, publish_file};
use pmolap_tier::Topology;

/// Flags of `pmolap membench`. With `--config`, the file's benchmarks run and only the
/// tier (`--tier`), the limits (`--duration`, `--bytes`, `--reps`), `--overwrite` and the
/// outputs given here apply on top.
#[derive(Debug, ClapArgs)]
pub struct MembenchArgs {
    /// A YAML sweep: named benchmarks with `args` and a `matrix` (cross product).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Run only these benchmarks of the config (repeatable).
    #[arg(long)]
    only: Vec<String>,
    /// read | write | mixed | latency
    #[arg(long)]
    operation: Option<String>,
    /// sequential | random
    #[arg(long)]
    pattern: Option<String>,
    /// uniform | zipf (random pattern)
    #[arg(long)]
    distribution: Option<String>,
    /// Zipf exponent.
    #[arg(long)]
    zipf_s: Option<f64>,
    /// grouped | individual
    #[arg(long)]
    access_mode: Option<String>,
    /// Bytes per access: 64 … 64M (power of two).
    #[arg(long)]
    access_size: Option<String>,
    /// Threads (readers for mixed, streaming load threads for latency).
    #[arg(long)]
    threads: Option<usize>,
    /// Writer threads of a mixed run.
    #[arg(long)]
    write_threads: Option<usize>,
    /// none | numa | cores
    #[arg(long = "pin")]
    pinning: Option<String>,
    /// dram, dram:node=N, file:PATH, devdax:PATH (file:DIR: a temporary file there)
    #[arg(long)]
    tier: Option<String>,
    /// Let a `file:PATH` tier name an existing file, whose content is destroyed.
    #[arg(long)]
    overwrite: bool,
    /// Allow far more threads than logical CPUs (more than 4 per CPU or 1024).
    #[arg(long)]
    oversubscribe: bool,
    /// Bytes of memory the threads work on (e.g. 1G).
    #[arg(long)]
    memory_range: Option<String>,
    /// NUMA node the threads run on (near/far access vs the tier's node).
    #[arg(long)]
    thread_node: Option<u32>,
    /// nt-store | clwb | clflushopt | clflush | none (writes)
    #[arg(long)]
    persist: Option<String>,
    /// No sfence after each write access.
    #[arg(long)]
    no_sfence: bool,
    /// Seconds per repetition.
    #[arg(long)]
    duration: Option<f64>,
    /// Bytes per repetition (per thread group) instead of a duration.
    #[arg(long)]
    bytes: Option<String>,
    /// Repetitions per parameter set.
    #[arg(long)]
    reps: Option<usize>,
    /// off | thp | hugetlb
    #[arg(long)]
    huge_pages: Option<String>,
    /// Do not prefault the region before timing.
    #[arg(long)]
    no_prefault: bool,
    /// Skip the untimed warm-up pass.
    #[arg(long)]
    no_warmup: bool,
    /// auto | avx512 | avx2 | portable
    #[arg(long)]
    kernel: Option<String>,
    /// Where to write the JSON results (default: results/membench-<time>.json).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also write the results as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// No progress bar and no per-run lines; only errors and the output paths.
    #[arg(long)]
    quiet: bool,
    /// Validate and list the parameter sets, run nothing.
    #[arg(long)]
    dry_run: bool,
}

/// A config enum given as a flag (`--flag value`), parsed by its config name.
pub(crate) fn enum_arg<T: serde::de::DeserializeOwned>(
    flag: &str,
    v: &Option<String>,
) -> Result<Option<T>> {
    v.as_deref()
        .map(|s| parse_name(s).map_err(|e| anyhow::anyhow!("--{flag}: {e}")))
        .transpose()
}

/// A byte size given as a flag.
pub(crate) fn size_arg(flag: &str, v: &Option<String>) -> Result<Option<Size>> {
    v.as_deref()
        .map(|s| {
            parse_size(s)
                .map(Size)
                .map_err(|e| anyhow::anyhow!("--{flag}: {e}"))
        })
        .transpose()
}

impl MembenchArgs {
    /// The parameter flags as config `Args`.
    fn to_args(&self) -> Result<Args> {
        Ok(Args {
            operation: enum_arg("operation", &self.operation)?,
            pattern: enum_arg("pattern", &self.pattern)?,
            distribution: enum_arg("distribution", &self.distribution)?,
            zipf_s: self.zipf_s,
            access_mode: enum_arg("access-mode", &self.access_mode)?,
            access_size: size_arg("access-size", &self.access_size)?,
            threads: self.threads,
            write_threads: self.write_threads,
            pinning: enum_arg("pin", &self.pinning)?,
            tier: self
                .tier
                .as_deref()
                .map(|t| t.parse().map_err(|e| anyhow::anyhow!("--tier: {e}")))
                .transpose()?,
            memory_range: size_arg("memory-range", &self.memory_range)?,
            thread_node: self.thread_node,
            persist: enum_arg("persist", &self.persist)?,
            sfence: self.no_sfence.then_some(false),
            duration: self.duration,
            bytes: size_arg("bytes", &self.bytes)?,
            reps: self.reps,
            huge_pages: enum_arg("huge-pages", &self.huge_pages)?,
            prefault: self.no_prefault.then_some(false),
            warmup: self.no_warmup.then_some(false),
            kernel: self.kernel.clone(),
            overwrite: self.overwrite.then_some(true),
        })
    }

    /// The parameter sets to run, in order.
    fn runs(&self) -> Result<Vec<(String, Params)>> {
        let flags = self.to_args()?;
        let Some(path) = &self.config else {
            return Ok(vec![("cli".to_string(), resolve(&flags))]);
        };
        let limits = Args {
            duration: flags.duration,
            bytes: flags.bytes,
            reps: flags.reps,
            tier: flags.tier,
            overwrite: flags.overwrite,
            ..Args::default()
        };
        let mut cfg = Config::load(path)?;
        select_only(&mut cfg.benchmarks, &self.only, path)?;
        Ok(cfg.expand(&limits)?)
    }
}

/// Runs `pmolap membench`.
pub fn run(a: &MembenchArgs) -> Result<()> {
    let runs = a.runs()?;
    let topo = Topology::detect().context("detecting the machine's topology")?;
    let opts = RunOptions {
        progress: !a.quiet,
        oversubscribe: a.oversubscribe,
    };
    validate_all(&runs, &topo, &opts)?;
    let outputs = Outputs::new("membench", &a.json, &a.csv)?;
    if a.dry_run {
        for (n, p) in &runs {
            println!("{n}: {}", describe(p));
        }
        println!("{} parameter sets, all valid", runs.len());
        return Ok(());
    }
    let config_file = a.config.as_ref().map(|p| p.display().to_string());
    let quiet = a.quiet;
    if !quiet {
        println!("{}", header());
    }
    let results = run_all(&runs, &topo, config_file, &opts, |run| {
        if !quiet {
            println!("{}", row(run));
            let _ = std::io::Write::flush(&mut std::io::stdout());
        }
    })?;
    outputs.write(&results, results.header.partial, |r, csv| {
        write_csv(r, csv).map_err(Into::into)
    })
}

/// Where a run's results go: the JSON file (given, or `results/<kind>-<time>.json`) and
/// an optional CSV file, both checked before anything runs and published whole at the
/// end (staged beside their names, then renamed), so an old file there stays intact
/// until the new one is complete.
pub(crate) struct Outputs {
    json: PathBuf,
    csv: Option<PathBuf>,
}

impl Outputs {
    /// Checks the output paths of a `kind` run up front, creating nothing.
    pub(crate) fn new(
        kind: &str,
        json: &Option<PathBuf>,
        csv: &Option<PathBuf>,
    ) -> Result<Outputs> {
        let json = json.clone().unwrap_or_else(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            PathBuf::from("results").join(format!("{kind}-{now}.json"))
        });
        check_output(&json).context("--json")?;
        if let Some(c) = csv {
            check_output(c).context("--csv")?;
            if *c == json {
                anyhow::bail!("--csv and --json name the same file {}", c.display());
            }
        }
        Ok(Outputs {
            json,
            csv: csv.clone(),
        })
    }

    /// Publishes `r` as JSON (and CSV through `csv`), printing the paths; `partial`
    /// results (an interrupted run) say so.
    pub(crate) fn write<T: serde::Serialize>(
        &self,
        r: &T,
        partial: bool,
        csv: impl FnOnce(&T, &Path) -> Result<()>,
    ) -> Result<()> {
        let note = if partial {
            " (partial: interrupted, only the runs that finished)"
        } else {
            ""
        };
        write_json(r, &self.json)?;
        println!("results: {}{note}", self.json.display());
        if let Some(path) = &self.csv {
            create_parent(path)?;
            csv(r, path).with_context(|| format!("writing {}", path.display()))?;
            println!("csv: {}{note}", path.display());
        }
        Ok(())
    }
}

/// Checks that a file can later be published at `path`, creating nothing: its directory
/// exists and a file can be created there, or it is missing and its nearest existing
/// ancestor is a directory in which it can be created.
pub(crate) fn check_output(path: &Path) -> Result<()> {
    let dir = parent_of(path);
    if dir.is_dir() {
        return probe(path, &dir);
    }
    let mut missing = dir.as_path();
    loop {
        if missing.symlink_metadata().is_ok() {
            anyhow::bail!(
                "{}: {} is not a directory",
                path.display(),
                missing.display()
            );
        }
        let up = parent_of(missing);
        if up.is_dir() {
            // `missing` is the first directory to create: can it be?
            return probe(missing, &up);
        }
        if up.as_path() == missing {
            anyhow::bail!("{}: no existing directory above it", path.display());
        }
        missing = missing.parent().unwrap_or(Path::new("."));
    }
}

/// [`check_writable`] of `path` in the existing directory `dir`, with a plain message
/// when the directory refuses new files (`/proc/sys` answers "no such file").
fn probe(path: &Path, dir: &Path) -> Result<()> {
    match check_writable(path) {
        Err(pmolap_tier::Error::NotFound(_)) => anyhow::bail!(
            "{}: cannot create files in this directory (its filesystem refuses them)",
            dir.display()
        ),
        r => Ok(r?),
    }
}

/// Keeps only the `--only` benchmarks of the config at `path` (all when none is
/// given), before anything is expanded; errors on a name the config lacks.
pub(crate) fn select_only<S>(
    benchmarks: &mut Vec<(String, S)>,
    only: &[String],
    path: &Path,
) -> Result<()> {
    for o in only {
        if !benchmarks.iter().any(|(n, _)| n == o) {
            let names: Vec<&str> = benchmarks.iter().map(|(n, _)| n.as_str()).collect();
            anyhow::bail!(
                "{}: no benchmark `{o}` (has: {})",
                path.display(),
                names.join(", ")
            );
        }
    }
    if !only.is_empty() {
        benchmarks.retain(|(n, _)| only.contains(n));
    }
    Ok(())
}

/// Creates the directory `path` goes in, if missing.
pub(crate) fn create_parent(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    Ok(())
}

/// Publishes `r` as pretty JSON at `path` (staged, then renamed), creating its directory.
pub(crate) fn write_json<T: serde::Serialize>(r: &T, path: &Path) -> Result<()> {
    create_parent(path)?;
    let text = serde_json::to_string_pretty(r).context("serialising results")?;
    Ok(publish_file(path, text.as_bytes())?)
}

fn header() -> String {
    format!(
        "{:<22} {:<10} {:<10} {:<10} {:>6} {:>8} {:>9} {:>18}  {}",
        "benchmark",
        "op",
        "pattern",
        "mode",
        "size",
        "threads",
        "GiB/s",
        "min-max / lat p50",
        "kernel"
    )
}

fn row(run: &Run) -> String {
    let p = &run.params;
    let s = &run.summary;
    let threads = if p.write_threads > 0 {
        format!("{}r+{}w", p.threads, p.write_threads)
    } else {
        std::iter::once(p)
            .chain(&p.parallel)
            .map(|g| g.threads.to_string())
            .collect::<Vec<_>>()
            .join("+")
    };
    let extra = match (
        s.latency_p50_ns_median,
        s.read_gib_s_median,
        s.write_gib_s_median,
    ) {
        (Some(l), _, _) => {
            let p99 = run
                .reps
                .iter()
                .filter_map(|r| r.latency.as_ref())
                .map(|l| l.p99_ns)
                .fold(0.0, f64::max);
            format!("p50 {l:.1} p99 {p99:.1} ns")
        }
        (None, Some(r), Some(w)) => format!("r {r:.2} w {w:.2}"),
        _ => format!("{:.2}-{:.2}", s.bandwidth_gib_s_min, s.bandwidth_gib_s_max),
    };
    let mut line = format!(
        "{:<22} {:<10} {:<10} {:<10} {:>6} {:>8} {:>9.2} {:>18}  {}",
        run.name,
        name(&p.operation),
        name(&p.pattern),
        name(&p.access_mode),
        format_size(p.access_size),
        threads,
        s.bandwidth_gib_s_median,
        extra,
        run.kernel
    );
    for w in &run.region.warnings {
        line.push_str(&format!("\n  warning: {w}"));
    }
    line
}
