//! The `pmolap ssb …` subcommands: their flags and the dispatch to `ssb_cmd` (gen),
//! `ssb_load` (load) and `ssb_run` (run, query, breakdown, tiers); `query` and `tiers`
//! are also top-level commands (`pmolap query`, `pmolap tiers`), for any database.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use crate::{ssb_cmd, ssb_load, ssb_run};

#[derive(Debug, Subcommand)]
pub enum SsbCommand {
    /// Generate SSB tables, byte-identical to `TZ=UTC dbgen -s SF -T a`.
    Gen(GenArgs),
    /// Generate the five tables straight into column-store tables (`<out>/<table>/`) and
    /// reopen them on a tier with checksums verified.
    Load(LoadArgs),
    /// Run SSB queries: median ms, rows and GB/s of fact data per query.
    Run {
        /// Queries: all, or a list such as 1.1,2.3.
        #[arg(long, default_value = "all")]
        queries: String,
        #[command(flatten)]
        args: Box<ssb_run::RunArgs>,
    },
    /// The same as `pmolap query FILE`: the star-join queries of a file on any database.
    Query(QueryArgs),
    /// The SIGMOD'21 Table 1 ladder for one query on every tier: 1 thread, all threads,
    /// pinning, striping + replication.
    Breakdown(Box<ssb_run::BreakdownArgs>),
    /// The same as `pmolap tiers`: the queries on every tier of this machine and the
    /// slowdown vs DRAM (Fig. 14).
    Tiers(Box<ssb_run::TiersArgs>),
}

/// Flags of `pmolap query` (and `ssb query`).
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The query file: star-join SQL (a `.sql` file of `;`-separated SELECTs) or queries
    /// as data in YAML or JSON (one or a list, the shape of
    /// crates/engine/queries/ssb.yaml).
    file: PathBuf,
    #[command(flatten)]
    args: Box<ssb_run::RunArgs>,
}

/// `pmolap query FILE` (and `ssb query FILE`).
pub fn query(a: &QueryArgs) -> Result<()> {
    ssb_run::load_query_file(&a.file)
        .and_then(|q| ssb_run::run(&a.args, q))
        .with_context(|| a.file.display().to_string())
}

/// Flags of `pmolap ssb gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
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
}

/// Flags of `pmolap ssb load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
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
}

/// Runs one `pmolap ssb` subcommand.
pub fn run(cmd: &SsbCommand) -> Result<()> {
    match cmd {
        SsbCommand::Gen(a) => gen(a),
        SsbCommand::Load(a) => ssb_load::load(
            a.sf,
            &a.tier,
            &a.out,
            a.tbl.as_deref(),
            a.dictionary_only,
            a.quiet,
        ),
        SsbCommand::Run { queries, args } => {
            ssb_run::ssb_list(queries).and_then(|q| ssb_run::run(args, q))
        }
        SsbCommand::Query(a) => query(a),
        SsbCommand::Breakdown(a) => ssb_run::breakdown(a),
        SsbCommand::Tiers(a) => ssb_run::tiers(a),
    }
}

/// `pmolap ssb gen`: `.tbl` files, or column-store tables where they were written.
fn gen(a: &GenArgs) -> Result<()> {
    if a.format == "store" && !a.tables.is_empty() {
        anyhow::bail!("--tables applies to --format tbl only")
    } else if a.format == "store" {
        ssb_load::load(a.sf, "home", &a.out, None, false, false)
    } else {
        ssb_cmd::gen(a.sf, &a.out, a.threads, &a.tables)
    }
}
