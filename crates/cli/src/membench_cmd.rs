//! `pmolap membench`: runs a YAML sweep or one parameter set given as flags, prints a
//! table, and writes JSON (and optionally CSV) results.

use anyhow::{Context, Result};
use clap::Args as ClapArgs;

use pmolap_bench::membench::config::{name, resolve, Args};
use pmolap_bench::membench::{
    csv::write_csv, describe, run_all, validate_all, Config, Params, Results, Run, RunOptions,
};
use pmolap_bench::size::format_size;
use pmolap_tier::Topology;

use crate::sweep_args::{enum_arg, select_only, size_arg, SweepArgs, SweepShow};

/// Flags of `pmolap membench`. With `--config`, the file's benchmarks run and only the
/// tier (`--tier`), the limits (`--duration`, `--bytes`, `--reps`), `--overwrite` and the
/// outputs given here apply on top.
#[derive(Debug, ClapArgs)]
pub struct MembenchArgs {
    #[command(flatten)]
    sweep: SweepArgs,
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
        let Some(path) = &self.sweep.config else {
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
        select_only(&mut cfg.benchmarks, &self.sweep.only, path)?;
        Ok(cfg.expand(&limits)?)
    }
}

/// Runs `pmolap membench`.
pub fn run(a: &MembenchArgs) -> Result<()> {
    let runs = a.runs()?;
    let topo = Topology::detect().context("detecting the machine's topology")?;
    let opts = RunOptions {
        progress: !a.sweep.quiet,
        oversubscribe: a.sweep.oversubscribe,
    };
    validate_all(&runs, &topo, &opts)?;
    let show = SweepShow {
        kind: "membench",
        describe,
        header: header(),
        row,
        partial: |r: &Results| r.header.partial,
    };
    a.sweep.execute(
        &show,
        &runs,
        |config, on_run| Ok(run_all(&runs, &topo, config, &opts, on_run)?),
        |r, csv| write_csv(r, csv).map_err(Into::into),
    )
}

fn header() -> String {
    format!(
        "{:<22} {:<10} {:<10} {:<10} {:>6} {:>8} {:>34} {:>22}  {}",
        "benchmark",
        "op",
        "pattern",
        "mode",
        "size",
        "threads",
        "GiB/s median (min–max, reps)",
        "r/w / lat p50",
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
        _ => String::new(),
    };
    let bw = pmolap_results::stats::Spread {
        n: run.reps.len(),
        median: s.bandwidth_gib_s_median,
        min: s.bandwidth_gib_s_min,
        max: s.bandwidth_gib_s_max,
    };
    let mut line = format!(
        "{:<22} {:<10} {:<10} {:<10} {:>6} {:>8} {:>34} {:>22}  {}",
        run.name,
        name(&p.operation),
        name(&p.pattern),
        name(&p.access_mode),
        format_size(p.access_size),
        threads,
        bw.display("GiB/s"),
        extra,
        run.kernel
    );
    for w in &run.region.warnings {
        line.push_str(&format!("\n  warning: {w}"));
    }
    line
}
