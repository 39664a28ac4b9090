//! `pmolap membench`: runs a YAML sweep or one parameter set given as flags, prints a
//! table, and writes JSON (and optionally CSV) results.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args as ClapArgs;

use pmolap_bench::membench::config::{name, parse_name, resolve, Args};
use pmolap_bench::membench::{csv::write_csv, describe, run_all, Config, Params, Results, Run};
use pmolap_bench::size::{format_size, parse_size, Size};
use pmolap_tier::Topology;

/// Flags of `pmolap membench`. With `--config`, the file's benchmarks run and only the
/// tier (`--tier`), the limits (`--duration`, `--bytes`, `--reps`) and the outputs given
/// here apply on top.
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
    /// dram, dram:node=N, file:PATH, devdax:PATH
    #[arg(long)]
    tier: Option<String>,
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
            ..Args::default()
        };
        let cfg = Config::load(path)?;
        check_only(&cfg.benchmarks, &self.only, path)?;
        Ok(cfg
            .expand(&limits)
            .into_iter()
            .filter(|(n, _)| self.only.is_empty() || self.only.contains(n))
            .collect())
    }
}

/// Runs `pmolap membench`.
pub fn run(a: &MembenchArgs) -> Result<()> {
    let runs = a.runs()?;
    let topo = Topology::detect().context("detecting the machine's topology")?;
    if a.dry_run {
        for (n, p) in &runs {
            p.validate(n, &topo)?;
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
    let results = run_all(&runs, &topo, config_file, !quiet, |run| {
        if !quiet {
            println!("{}", row(run));
        }
    })?;
    let json_path = a
        .json
        .clone()
        .unwrap_or_else(|| default_json_path(&results));
    write_json(&results, &json_path)?;
    println!("results: {}", json_path.display());
    if let Some(csv) = &a.csv {
        write_csv(&results, csv).with_context(|| format!("writing {}", csv.display()))?;
        println!("csv: {}", csv.display());
    }
    Ok(())
}

fn default_json_path(r: &Results) -> PathBuf {
    PathBuf::from("results").join(format!("membench-{}.json", r.started_unix))
}

/// Errors unless every `--only` name is a benchmark of the config at `path`.
pub(crate) fn check_only<S>(
    benchmarks: &[(String, S)],
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
    Ok(())
}

/// Writes `r` as pretty JSON to `path`, creating its directory.
pub(crate) fn write_json<T: serde::Serialize>(r: &T, path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(r).context("serialising results")?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
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
