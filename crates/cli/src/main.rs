//! `pmolap`: characterise memory tiers and run OLAP work on them.
#![forbid(unsafe_code)]

mod demo_cmd;
mod elf_cmd;
mod hash_cmd;
mod iobench_cmd;
mod membench_cmd;
mod pg_cmd;
mod place_cmd;
mod place_profile;
mod place_validate;
mod progress;
mod report_cmd;
mod ssb_cmd;
mod ssb_load;
mod ssb_run;
mod store_cmd;
mod topology_cmd;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "pmolap",
    version,
    about = "OLAP on heterogeneous memory: DRAM, far NUMA, CXL, PMEM, SSD"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Everything, quick: topology, memory sweeps, storage workloads, SSB on every tier
    /// with the Table 1 ladder, Elf, placement advice, and one HTML report (~3 min).
    Demo {
        /// Output directory for every result document and the report (new or empty;
        /// default results/demo-<unix time>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// SSB scale factor (its data is generated once into data/ssb/sf<SF>).
        #[arg(long, default_value_t = 1.0)]
        sf: f64,
        /// No progress spinner.
        #[arg(long)]
        quiet: bool,
    },
    /// Show the NUMA nodes, memory tiers, DAX devices and CPU features of this machine.
    Topology {
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// Measure bandwidth and latency of a memory tier (SIGMOD'21 §3–§5, PerMA-Bench).
    Membench(Box<membench_cmd::MembenchArgs>),
    /// Star Schema Benchmark: data, the 13 queries on any tier, the Table 1 ladder, Fig. 14.
    Ssb {
        #[command(subcommand)]
        command: SsbCommand,
    },
    /// Run star-join SQL (`SELECT … FROM fact, dims WHERE …`) on an SSB-shaped database:
    /// the statement is translated into the engine's query model (docs/engine.md).
    Sql {
        /// One SELECT (or several, `;`-separated).
        sql: String,
        #[command(flatten)]
        args: Box<ssb_run::RunArgs>,
    },
    /// Drop-in storage workloads over I/O paths (DaMoN'21 §3): table scan, buffer manager, logging.
    Iobench(Box<iobench_cmd::IobenchArgs>),
    /// The placement advisor (PVLDB'22): record a workload, advise a placement, what-if.
    Place {
        #[command(subcommand)]
        command: place_cmd::PlaceCommand,
    },
    /// Column-store tables.
    Store {
        #[command(subcommand)]
        command: StoreCommand,
    },
    /// The Dash persistent hash table: build a table file, check it, benchmark it.
    Hash {
        #[command(subcommand)]
        command: HashCommand,
    },
    /// The Elf index: build, query through a caching variant, the selective-caching benchmark.
    Elf {
        #[command(subcommand)]
        command: ElfCommand,
    },
    /// A real PostgreSQL per storage tier (DaMoN'21 §4): TPC-H cold and warm per tier.
    Pg {
        #[command(subcommand)]
        command: pg_cmd::PgCommand,
    },
    /// Draw PNG and SVG plots from a results JSON file.
    Plot {
        /// A results file written by `pmolap membench`, `iobench`, `elf bench` or `ssb`.
        results: PathBuf,
        /// Output directory (created if missing).
        #[arg(short, long, default_value = "plots")]
        out: PathBuf,
    },
    /// One self-contained HTML page (inline SVG figures) from result files and
    /// directories of them: machine and tiers, then a section per result kind.
    Report {
        /// Result files, or directories whose `*.json` files are read.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output directory (created if missing); the page is `DIR/report.html`.
        #[arg(short, long, default_value = "report")]
        out: PathBuf,
        /// Replace an existing `DIR/report.html` (without it one is refused).
        #[arg(long)]
        overwrite: bool,
    },
}

#[derive(Debug, Subcommand)]
enum SsbCommand {
    /// Generate SSB tables, byte-identical to `TZ=UTC dbgen -s SF -T a`.
    Gen {
        /// Scale factor; below 1 dbgen scales every table, the date table included.
        #[arg(long, default_value_t = 1.0)]
        sf: f64,
        /// Output directory (created if missing); writes <table>.tbl.
        #[arg(long)]
        out: PathBuf,
        /// Output format: dbgen `.tbl` text, or column-store tables (`<out>/<table>/`).
        #[arg(long, default_value = "tbl", value_parser = ["tbl", "store"])]
        format: String,
        /// Formatting threads (0: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Tables to generate (default: all five).
        #[arg(long, value_delimiter = ',')]
        tables: Vec<String>,
    },
    /// Generate the five tables straight into column-store tables (`<out>/<table>/`) and
    /// reopen them on a tier with checksums verified.
    Load {
        /// Scale factor.
        #[arg(long, default_value_t = 1.0)]
        sf: f64,
        /// Tier to reopen the tables on: `home` (where written), dram, dram:node=N, file:DIR, devdax:PATH.
        #[arg(long, default_value = "home")]
        tier: String,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Read dbgen's `<table>.tbl` files from this directory instead of generating.
        #[arg(long)]
        tbl: Option<PathBuf>,
        /// Give every column a sorted dictionary: no frame-of-reference int columns (for
        /// comparing the two encodings).
        #[arg(long)]
        dictionary_only: bool,
        /// No progress bars or per-table lines.
        #[arg(long)]
        quiet: bool,
    },
    /// Run SSB queries: median ms, rows and GB/s of fact data per query.
    Run {
        /// Queries: all, or a list such as 1.1,2.3.
        #[arg(long, default_value = "all")]
        queries: String,
        #[command(flatten)]
        args: Box<ssb_run::RunArgs>,
    },
    /// Run star-join queries described in a YAML or JSON file (one query or a list), or
    /// star-join SQL (a `.sql` file of `;`-separated SELECTs).
    Query {
        /// The query file (the shape of crates/engine/queries/ssb.yaml, or `.sql`).
        file: PathBuf,
        #[command(flatten)]
        args: Box<ssb_run::RunArgs>,
    },
    /// The SIGMOD'21 Table 1 ladder for one query on every tier: 1 thread, all threads,
    /// pinning, striping + replication.
    Breakdown(Box<ssb_run::BreakdownArgs>),
    /// The 13 queries on every tier of this machine and the slowdown vs DRAM (Fig. 14).
    Tiers(Box<ssb_run::TiersArgs>),
}

#[derive(Debug, Subcommand)]
enum HashCommand {
    /// Create a Dash table file holding seeded random keys (every insert persisted).
    Build {
        path: PathBuf,
        #[arg(long, default_value_t = 100_000)]
        items: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Open a Dash table (recovering it after a crash) and check every invariant.
    Check { path: PathBuf },
    /// Insert / positive / negative lookup throughput and load factor at 1..N threads on
    /// each tier, vs std HashMap in DRAM, and recovery time after a crash.
    Bench {
        /// Keys of the DRAM runs and the HashMap baselines.
        #[arg(long, default_value_t = 1_000_000)]
        keys: usize,
        /// Tier to run on, `TIER` or `TIER@KEYS` (repeatable), e.g. `dram`,
        /// `file:/dev/shm@200000`, `file:/var/tmp@5000`.
        #[arg(long = "tier", default_values_t = ["dram".to_string()])]
        tiers: Vec<String>,
        /// Thread counts (repeatable; default 1..=available CPUs).
        #[arg(long = "threads")]
        threads: Vec<usize>,
        /// Table sizes of the recovery measurement (repeatable).
        #[arg(long = "recovery-items")]
        recovery_items: Vec<usize>,
        /// Directory for the recovery measurement's table files.
        #[arg(long, default_value = "/dev/shm")]
        recovery_dir: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Times each lookup phase is run; the median counts.
        #[arg(long, default_value_t = 3)]
        reps: usize,
        /// Where to write the JSON result.
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long)]
        quiet: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ElfCommand {
    /// Build an Elf over generated uniform data (the paper's: values 0..=max_value).
    Build {
        #[arg(long, default_value_t = 1_000_000)]
        rows: usize,
        #[arg(long, default_value_t = 10)]
        dims: usize,
        #[arg(long, default_value_t = 100)]
        max_value: u32,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Build over columns of this column-store table instead of generated data.
        #[arg(long)]
        table: Option<PathBuf>,
        /// The table's columns to index, in dimension order (with --table).
        #[arg(long, value_delimiter = ',')]
        columns: Vec<String>,
        /// The index file to write (atomically replaced).
        out: PathBuf,
    },
    /// Query an Elf: exact match when only --lo is given, else a window [lo, hi].
    Query {
        index: PathBuf,
        /// Tier to open the index on (a `file:` naming the index itself: in place).
        #[arg(long, default_value = "dram")]
        tier: String,
        /// pm, hybrid, static-K, dynamic-lru-SIZE, dynamic-tinylfu-SIZE, prob-SIZE, static-K+dynamic-POLICY-SIZE
        #[arg(long, default_value = "pm")]
        variant: String,
        #[arg(long, value_delimiter = ',')]
        lo: Vec<u32>,
        #[arg(long, value_delimiter = ',')]
        hi: Vec<u32>,
    },
    /// The selective-caching benchmark: q/s per query type and variant, the Fig. 4
    /// progression, Fig. 5 selectivity, and column-scan / sorted-projection baselines.
    Bench {
        #[arg(long, default_value_t = 1_000_000)]
        rows: usize,
        #[arg(long, default_value_t = 10)]
        dims: usize,
        /// Directory for the index file (its tier is the persistent tier).
        #[arg(long)]
        dir: PathBuf,
        #[arg(long, default_value_t = 500_000)]
        exact_queries: usize,
        #[arg(long, default_value_t = 200)]
        range_queries: usize,
        #[arg(long, default_value_t = 50_000)]
        window: usize,
        #[arg(long, default_value_t = 16 << 20)]
        cache_bytes: usize,
        #[arg(long, value_delimiter = ',')]
        variants: Vec<String>,
        /// Time limit per measurement, seconds.
        #[arg(long, default_value_t = 20.0)]
        max_secs: f64,
        /// Skip the cold (page cache dropped) run.
        #[arg(long)]
        no_cold: bool,
        /// Results JSON.
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum StoreCommand {
    /// Schema, rows, and per column the size, bit width and tier of every structure.
    Info {
        /// A table directory.
        dir: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() {
    let cli = Cli::parse();
    // Buffers freed by one query are reused by the next instead of faulted in again.
    pmolap_tier::alloc::keep_freed_memory();
    if let Err(e) = pmolap_tier::signal::install() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    let r: Result<()> = match cli.command {
        Command::Topology { json } => topology_cmd::run(json),
        Command::Demo { out, sf, quiet } => demo_cmd::run(out, sf, quiet),
        Command::Place { command } => place_cmd::run(&command),
        Command::Membench(args) => membench_cmd::run(&args),
        Command::Iobench(args) => iobench_cmd::run(&args),
        Command::Ssb {
            command:
                SsbCommand::Gen {
                    sf,
                    out,
                    format,
                    threads,
                    tables,
                },
        } => {
            if format == "store" && !tables.is_empty() {
                Err(anyhow::anyhow!("--tables applies to --format tbl only"))
            } else if format == "store" {
                ssb_load::load(sf, "home", &out, None, false, false)
            } else {
                ssb_cmd::gen(sf, &out, threads, &tables)
            }
        }
        Command::Ssb {
            command:
                SsbCommand::Load {
                    sf,
                    tier,
                    out,
                    tbl,
                    dictionary_only,
                    quiet,
                },
        } => ssb_load::load(sf, &tier, &out, tbl.as_deref(), dictionary_only, quiet),
        Command::Ssb {
            command: SsbCommand::Run { queries, args },
        } => ssb_run::ssb_list(&queries).and_then(|q| ssb_run::run(&args, q)),
        Command::Ssb {
            command: SsbCommand::Query { file, args },
        } => ssb_run::load_query_file(&file, &args.data)
            .and_then(|q| ssb_run::run(&args, q))
            .with_context(|| file.display().to_string()),
        Command::Sql { sql, args } => ssb_run::sql_texts(&sql, &args.data)
            .and_then(|q| ssb_run::run(&args, q))
            .context("pmolap sql"),
        Command::Ssb {
            command: SsbCommand::Breakdown(args),
        } => ssb_run::breakdown(&args),
        Command::Ssb {
            command: SsbCommand::Tiers(args),
        } => ssb_run::tiers(&args),
        Command::Hash { command } => match command {
            HashCommand::Build { path, items, seed } => hash_cmd::build(&path, items, seed),
            HashCommand::Check { path } => hash_cmd::check(&path),
            HashCommand::Bench {
                keys,
                tiers,
                threads,
                recovery_items,
                recovery_dir,
                seed,
                reps,
                out,
                quiet,
            } => hash_cmd::bench(&hash_cmd::BenchArgs {
                keys,
                tiers,
                threads,
                recovery_items,
                recovery_dir,
                seed,
                reps,
                out,
                quiet,
            }),
        },
        Command::Elf { command } => match command {
            ElfCommand::Build {
                rows,
                dims,
                max_value,
                seed,
                table,
                columns,
                out,
            } => match table {
                Some(t) => elf_cmd::build_from_table(&t, &columns, &out),
                None => elf_cmd::build(rows, dims, max_value, seed, &out),
            },
            ElfCommand::Query {
                index,
                tier,
                variant,
                lo,
                hi,
            } => {
                let hi = if hi.is_empty() { lo.clone() } else { hi };
                elf_cmd::query(&index, &tier, &variant, &lo, &hi).map(|_| ())
            }
            ElfCommand::Bench {
                rows,
                dims,
                dir,
                exact_queries,
                range_queries,
                window,
                cache_bytes,
                variants,
                max_secs,
                no_cold,
                out,
            } => elf_cmd::bench(&elf_cmd::BenchParams {
                rows,
                dims,
                dir,
                exact_queries,
                range_queries,
                window,
                cache_bytes,
                variants,
                max_secs,
                cold: !no_cold,
                out,
                ..Default::default()
            })
            .map(|_| ()),
        },
        Command::Store {
            command: StoreCommand::Info { dir, json },
        } => store_cmd::info(&dir, json),
        Command::Pg { command } => pg_cmd::run(&command),
        Command::Plot { results, out } => report_cmd::plot(&results, &out),
        Command::Report {
            inputs,
            out,
            overwrite,
        } => report_cmd::report(&inputs, &out, overwrite),
    };
    if let Err(e) = r {
        if pmolap_tier::signal::interrupted() {
            // What finished was written (marked partial) on the way out.
            eprintln!("pmolap: interrupted");
            std::process::exit(pmolap_tier::signal::EXIT_INTERRUPTED);
        }
        eprintln!("error: {}", one_line(&e));
        std::process::exit(1);
    }
    if pmolap_tier::signal::interrupted() {
        std::process::exit(pmolap_tier::signal::EXIT_INTERRUPTED);
    }
}

/// The chain of contexts, outermost first, on one line: a cause whose text the previous
/// message already ends with is not repeated, newlines become spaces, and the whole is
/// cut to a readable length (an error never echoes a big input back).
fn one_line(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in e.chain() {
        let s = c.to_string().replace(['\n', '\r'], " ");
        if parts
            .last()
            .is_some_and(|p| p.ends_with(&s) || p.contains(&s))
        {
            continue;
        }
        if let Some(last) = parts.last_mut() {
            if s.starts_with(last.as_str()) {
                // "query x" then "query x: no column y": keep the longer one.
                *last = s;
                continue;
            }
        }
        parts.push(s);
    }
    let mut msg = parts.join(": ");
    const MAX: usize = 400;
    if msg.len() > MAX {
        let mut cut = MAX;
        while !msg.is_char_boundary(cut) {
            cut -= 1;
        }
        msg.truncate(cut);
        msg.push_str(" …");
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::one_line;
    use anyhow::Context;

    #[test]
    fn error_chains_print_each_part_once() {
        let e = Err::<(), _>(anyhow::anyhow!("q.yaml: literal 1.5: not supported"))
            .context("q.yaml")
            .unwrap_err();
        assert_eq!(one_line(&e), "q.yaml: literal 1.5: not supported");
        let io = std::io::Error::from_raw_os_error(21);
        let e = Err::<(), _>(anyhow::Error::new(io))
            .context(format!("x: {}", std::io::Error::from_raw_os_error(21)))
            .unwrap_err();
        assert_eq!(one_line(&e).matches("os error 21").count(), 1);
        let e = anyhow::anyhow!("{}", "y".repeat(10_000));
        assert!(one_line(&e).len() < 500);
    }
}
