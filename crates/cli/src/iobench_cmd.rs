//! `pmolap iobench`: runs the drop-in storage workloads (table scan, buffer manager,
//! logging) over an I/O path from a YAML sweep or flags, prints a table, writes JSON
//! (and optionally CSV).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args as ClapArgs;

use pmolap_bench::iobench::config::{name, resolve, Args, Paths};
use pmolap_bench::iobench::{
    describe, run_all, validate_all, Config, Params, Results, Run, RunOptions,
};
use pmolap_bench::size::format_size;
use pmolap_tier::Topology;

use crate::sweep_args::{enum_arg, select_only, size_arg, SweepArgs, SweepShow};

/// Flags of `pmolap iobench`. With `--config`, the file's benchmarks run and only the
/// directories (`--path`), the limits (`--duration`, `--bytes`, `--reps`) and the
/// outputs given here apply on top.
#[derive(Debug, ClapArgs)]
pub struct IobenchArgs {
    #[command(flatten)]
    sweep: SweepArgs,
    /// table-scan | buffer-manager | logging
    #[arg(long)]
    workload: Option<String>,
    /// pread | direct | mmap | pmem | io-uring | io-uring-direct
    #[arg(long)]
    io: Option<String>,
    /// Directory for the files; repeat to stripe pages round-robin over several.
    #[arg(long)]
    path: Vec<PathBuf>,
    /// Threads, each with its own files.
    #[arg(long)]
    threads: Option<usize>,
    /// Bytes per page (table scan, buffer manager), e.g. 4K, 16K.
    #[arg(long)]
    page_size: Option<String>,
    /// Bytes of data file per thread (e.g. 1G).
    #[arg(long)]
    file_size: Option<String>,
    /// Share of buffer-manager operations that write, 0..1 (0.2 = every fifth).
    #[arg(long)]
    write_ratio: Option<f64>,
    /// DRAM buffer pool per thread (buffer manager).
    #[arg(long)]
    pool_size: Option<String>,
    /// Bytes per log entry (e.g. 128, 8K).
    #[arg(long)]
    entry_size: Option<String>,
    /// new | recycled (logging)
    #[arg(long)]
    log_file: Option<String>,
    /// Bytes of a recycled log per thread.
    #[arg(long)]
    log_size: Option<String>,
    /// Requests in flight per thread (io-uring paths).
    #[arg(long)]
    queue_depth: Option<u32>,
    /// Do not persist page-outs (log entries are always persisted).
    #[arg(long)]
    no_sync: bool,
    /// Do not drop the files from the page cache before each repetition.
    #[arg(long)]
    no_drop_cache: bool,
    /// Rewrite the files with random bytes between repetitions (untimed).
    #[arg(long)]
    scramble: bool,
    /// Fault the mapping in before timing (mmap, pmem).
    #[arg(long)]
    prefault: bool,
    /// normal | sequential | random (posix_fadvise hint)
    #[arg(long)]
    readahead: Option<String>,
    /// Bytes per thread per repetition (default: one pass over the file or log).
    #[arg(long)]
    bytes: Option<String>,
    /// Stop each repetition after this many seconds at the latest.
    #[arg(long)]
    duration: Option<f64>,
    /// Repetitions per parameter set.
    #[arg(long)]
    reps: Option<usize>,
    /// Seed of the random page choice and file contents.
    #[arg(long)]
    seed: Option<u64>,
    /// Leave the files the run created in place.
    #[arg(long)]
    keep_files: bool,
    /// Name the files pmolap-iobench-data-t<T>-s<S>.dat (no process id), use any already
    /// there with the right size as they are (not rewritten), and keep them at the end:
    /// prepare once, run many times, or point fio at the same files.
    #[arg(long)]
    reuse_files: bool,
}

impl IobenchArgs {
    /// The parameter flags as config `Args`.
    fn to_args(&self) -> Result<Args> {
        Ok(Args {
            workload: enum_arg("workload", &self.workload)?,
            io: enum_arg("io", &self.io)?,
            path: (!self.path.is_empty()).then(|| Paths(self.path.clone())),
            threads: self.threads,
            page_size: size_arg("page-size", &self.page_size)?,
            file_size: size_arg("file-size", &self.file_size)?,
            write_ratio: self.write_ratio,
            pool_size: size_arg("pool-size", &self.pool_size)?,
            entry_size: size_arg("entry-size", &self.entry_size)?,
            log_file: enum_arg("log-file", &self.log_file)?,
            log_size: size_arg("log-size", &self.log_size)?,
            queue_depth: self.queue_depth,
            sync: self.no_sync.then_some(false),
            drop_cache: self.no_drop_cache.then_some(false),
            scramble: self.scramble.then_some(true),
            prefault: self.prefault.then_some(true),
            readahead: enum_arg("readahead", &self.readahead)?,
            bytes: size_arg("bytes", &self.bytes)?,
            duration: self.duration,
            reps: self.reps,
            seed: self.seed,
        })
    }

    /// The parameter sets to run, in order.
    fn runs(&self) -> Result<Vec<(String, Params)>> {
        let flags = self.to_args()?;
        let Some(path) = &self.sweep.config else {
            return Ok(vec![("cli".to_string(), resolve(&flags))]);
        };
        let limits = Args {
            path: flags.path,
            duration: flags.duration,
            bytes: flags.bytes,
            reps: flags.reps,
            ..Args::default()
        };
        let mut cfg = Config::load(path)?;
        select_only(&mut cfg.benchmarks, &self.sweep.only, path)?;
        Ok(cfg.expand(&limits)?)
    }
}

/// Runs `pmolap iobench`.
pub fn run(a: &IobenchArgs) -> Result<()> {
    let runs = a.runs()?;
    let topo = Topology::detect().context("detecting the machine's topology")?;
    let opts = RunOptions {
        progress: !a.sweep.quiet,
        keep_files: a.keep_files,
        reuse_files: a.reuse_files,
        oversubscribe: a.sweep.oversubscribe,
    };
    // Parameters first, then the output paths: all before any file is prepared.
    validate_all(&runs, &topo, &opts)?;
    let show = SweepShow {
        kind: "iobench",
        describe,
        header: header(),
        row,
        partial: |r: &Results| r.header.partial,
    };
    a.sweep.execute(
        &show,
        &runs,
        |config, on_run| Ok(run_all(&runs, &topo, config, &opts, on_run)?),
        write_csv,
    )
}

/// One line per repetition: the parameters and the figures; published whole.
fn write_csv(r: &Results, path: &Path) -> Result<()> {
    let mut out = String::from(
        "name,workload,io,paths,threads,page_size,entry_size,log_file,write_ratio,queue_depth,sync,rep,bytes,ops,seconds,bandwidth_gib_s,ops_per_s,p50_ns,p99_ns,p999_ns\n",
    );
    for run in &r.runs {
        let p = &run.params;
        let paths: Vec<String> = p.paths.iter().map(|d| d.display().to_string()).collect();
        for (i, rep) in run.reps.iter().enumerate() {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6},{:.4},{:.1},{},{},{}\n",
                run.name,
                name(&p.workload),
                name(&p.io),
                paths.join("+"),
                p.threads,
                p.page_size,
                p.entry_size,
                name(&p.log_file),
                p.write_ratio,
                p.queue_depth,
                p.sync,
                i,
                rep.bytes,
                rep.ops,
                rep.seconds,
                rep.bandwidth_gib_s,
                rep.ops_per_s,
                rep.latency.p50_ns,
                rep.latency.p99_ns,
                rep.latency.p999_ns
            ));
        }
    }
    Ok(pmolap_os::durable::publish_file(path, out.as_bytes())?)
}

fn header() -> String {
    format!(
        "{:<20} {:<14} {:<15} {:>6} {:>8} {:>34} {:>11} {:>10} {:>10}",
        "benchmark",
        "workload",
        "io",
        "unit",
        "threads",
        "GiB/s median (min–max, reps)",
        "ops/s",
        "p50 µs",
        "p99 µs"
    )
}

fn row(run: &Run) -> String {
    let p = &run.params;
    let s = &run.summary;
    let mut io = name(&p.io);
    if p.io.is_uring() {
        io.push_str(&format!("/{}", p.queue_depth));
    }
    let mut wl = name(&p.workload);
    match p.workload {
        pmolap_bench::iobench::config::Workload::BufferManager => {
            wl = format!("bm {:.0}%w", p.write_ratio * 100.0)
        }
        pmolap_bench::iobench::config::Workload::Logging => {
            wl = format!("log {}", name(&p.log_file))
        }
        _ => {}
    }
    let bw = pmolap_results::stats::Spread {
        n: run.reps.len(),
        median: s.bandwidth_gib_s_median,
        min: s.bandwidth_gib_s_min,
        max: s.bandwidth_gib_s_max,
    };
    let mut line = format!(
        "{:<20} {:<14} {:<15} {:>6} {:>8} {:>34} {:>11.0} {:>10.1} {:>10.1}",
        run.name,
        wl,
        io,
        format_size(p.op_size()),
        p.threads,
        bw.display("GiB/s"),
        s.ops_per_s_median,
        s.latency_p50_ns_median / 1000.0,
        s.latency_p99_ns_median / 1000.0
    );
    for n in &run.notes {
        line.push_str(&format!("\n  note: {n}"));
    }
    line
}
