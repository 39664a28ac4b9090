//! `pmolap elf`: build an Elf index file, query it through a caching variant, and run the
//! selective-caching benchmark (`pmolap_index::elf::bench`, printed here).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use pmolap_index::elf::bench::BenchParams;
use pmolap_index::elf::{self, CachedElf, Variant};
use pmolap_index::Elf;
use pmolap_tier::TierSpec;

#[derive(Debug, Subcommand)]
pub enum ElfCommand {
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
    Bench(BenchArgs),
}

/// Flags of `pmolap elf bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
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
    /// Results JSON (default: results/elf-bench-YYYYMMDD-HHMMSS.json, UTC, as every bench
    /// command).
    #[arg(short, long, visible_alias = "json")]
    out: Option<PathBuf>,
}

/// Runs one `pmolap elf` subcommand.
pub fn run(cmd: &ElfCommand) -> Result<()> {
    match cmd {
        ElfCommand::Build {
            rows,
            dims,
            max_value,
            seed,
            table,
            columns,
            out,
        } => match table {
            Some(t) => build_from_table(t, columns, out),
            None => build(*rows, *dims, *max_value, *seed, out),
        },
        ElfCommand::Query {
            index,
            tier,
            variant,
            lo,
            hi,
        } => {
            let hi = if hi.is_empty() { lo } else { hi };
            query(index, tier, variant, lo, hi).map(|_| ())
        }
        ElfCommand::Bench(a) => bench(&BenchParams {
            rows: a.rows,
            dims: a.dims,
            dir: a.dir.clone(),
            exact_queries: a.exact_queries,
            range_queries: a.range_queries,
            window: a.window,
            cache_bytes: a.cache_bytes,
            variants: a.variants.clone(),
            max_secs: a.max_secs,
            cold: !a.no_cold,
            out: Some(
                a.out
                    .clone()
                    .unwrap_or_else(|| crate::output::default_results_path("elf-bench", ".json")),
            ),
            ..Default::default()
        }),
    }
}

/// Builds the paper's uniform data (`rows` × `dims`, values `0..=max_value`, from `seed`)
/// and writes it as an Elf index file at `out` (atomic commit). Prints a summary.
pub fn build(rows: usize, dims: usize, max_value: u32, seed: u64, out: &Path) -> Result<()> {
    elf::check_build_size(rows, dims).context("elf build")?;
    let t = Instant::now();
    let flat = elf::uniform_rows(rows, dims, max_value, seed);
    let gen_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let e = Elf::write(out, dims, &flat, &Default::default())
        .with_context(|| format!("writing the Elf index {}", out.display()))?;
    let build_s = t.elapsed().as_secs_f64();
    println!(
        "{}: {} rows x {} dims, {:.1} MiB, generated in {gen_s:.2} s, built and written in {build_s:.2} s",
        out.display(),
        e.rows(),
        e.dims(),
        e.size_bytes() as f64 / (1 << 20) as f64
    );
    Ok(())
}

/// Builds an Elf over columns of a column-store table: the dimensions are the columns'
/// value ids (the dictionaries are order-preserving, so value ranges stay code ranges)
/// and the TIDs are the table's row numbers.
pub fn build_from_table(table: &Path, columns: &[String], out: &Path) -> Result<()> {
    anyhow::ensure!(
        !columns.is_empty(),
        "--columns: name at least one column of the table"
    );
    let t = Instant::now();
    let tab = pmolap_store::Table::open(table, &pmolap_store::Placement::home())
        .with_context(|| format!("opening the table in {}", table.display()))?;
    let rows = tab.rows();
    let dims = columns.len();
    let mut flat = vec![0u32; rows * dims];
    let mut ids = vec![0u32; rows];
    for (d, name) in columns.iter().enumerate() {
        let col = tab
            .column(name)
            .with_context(|| format!("{}: column `{name}`", table.display()))?;
        col.dv.unpack(0, &mut ids);
        for (r, id) in ids.iter().enumerate() {
            flat[r * dims + d] = *id;
        }
    }
    let read_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let e = Elf::write(out, dims, &flat, &Default::default())
        .with_context(|| format!("writing the Elf index {}", out.display()))?;
    println!(
        "{}: {} rows x {} dims ({}) from {}, {:.1} MiB, columns read in {read_s:.2} s, built and written in {:.2} s",
        out.display(),
        e.rows(),
        e.dims(),
        columns.join(","),
        table.display(),
        e.size_bytes() as f64 / (1 << 20) as f64,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Opens the index at `index` onto `tier` (e.g. `file:PATH-of-the-index` = in place,
/// `dram` = the hybrid copy), reads it through `variant` (see [`Variant::parse`]) and
/// prints the TIDs of the rows inside the window `lo..=hi` (exact match: `lo == hi`;
/// an unrestricted dimension: 0 and 4294967295). Returns the TIDs.
pub fn query(index: &Path, tier: &str, variant: &str, lo: &[u32], hi: &[u32]) -> Result<Vec<u32>> {
    let tier: TierSpec = tier.parse()?;
    let variant = Variant::parse(variant)?;
    let e = Elf::open(index, &tier).with_context(|| format!("opening {}", index.display()))?;
    let mut c = CachedElf::new(&e, variant);
    let t = Instant::now();
    let tids = if lo == hi {
        c.exact(lo)?
    } else {
        c.range(lo, hi)?
    };
    let secs = t.elapsed().as_secs_f64();
    for t in &tids {
        println!("{t}");
    }
    let s = c.stats();
    eprintln!(
        "{} rows in {:.3} ms ({}; {} list reads from DRAM, {} from the array on {})",
        tids.len(),
        secs * 1e3,
        variant.name(),
        s.dram,
        s.pm,
        tier
    );
    Ok(tids)
}

/// `pmolap elf bench`: the benchmark of [`pmolap_index::elf::bench`] with its progress
/// lines on stderr; the document goes to `p.out`.
pub fn bench(p: &BenchParams) -> Result<()> {
    if let Some(out) = &p.out {
        crate::output::check_output(out).context("--out")?;
    }
    // Published here once the run is done (its directory created then).
    let run = BenchParams {
        out: None,
        ..p.clone()
    };
    let doc = pmolap_index::elf::bench::bench(&run, &|line| eprintln!("{line}"))?;
    match &p.out {
        Some(out) => crate::output::publish_results(&doc, out),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_and_query_a_small_index() {
        let dir = tempfile::tempdir().unwrap();
        let idx = dir.path().join("i.elf");
        build(500, 3, 5, 1, &idx).unwrap();
        let tier = format!("file:{}", idx.display());
        let all = query(&idx, &tier, "static-2", &[0, 0, 0], &[5, 5, 5]).unwrap();
        assert_eq!(all.len(), 500);
    }
}
