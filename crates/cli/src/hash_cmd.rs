//! `pmolap hash`: the Dash persistent hash table — build a table file, check one (after a
//! crash, too), and the benchmark (`pmolap_index::dash::bench`, printed here).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use pmolap_index::dash::bench::{self, HashBenchParams, TierRunSpec};
use pmolap_index::dash::{Dash, DashOptions};
use pmolap_tier::TierSpec;

#[derive(Debug, Subcommand)]
pub enum HashCommand {
    /// Create a Dash table file holding seeded random keys (every insert persisted).
    Build {
        path: PathBuf,
        #[arg(long, default_value_t = 100_000)]
        items: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Check every invariant of a Dash table file, recovering a private copy after a crash
    /// (the file is never written; refused while another process writes the table).
    Check { path: PathBuf },
    /// Insert / positive / negative lookup throughput and load factor at 1..N threads on
    /// each tier, vs std HashMap in DRAM, and recovery time after a crash.
    Bench(BenchArgs),
}

/// Runs one `pmolap hash` subcommand.
pub fn run(cmd: &HashCommand) -> Result<()> {
    match cmd {
        HashCommand::Build { path, items, seed } => build(path, *items, *seed),
        HashCommand::Check { path } => check(path),
        HashCommand::Bench(a) => bench(a),
    }
}

/// Creates a Dash table file at `path` holding `items` seeded random keys (value = index).
pub fn build(path: &Path, items: usize, seed: u64) -> Result<()> {
    anyhow::ensure!(
        !path.exists(),
        "{}: already exists; pmolap hash build writes a new file",
        path.display()
    );
    let spec: TierSpec = format!("file:{}", path.display()).parse()?;
    let t = Instant::now();
    let d = Dash::create(&spec, DashOptions::for_items(items.max(1)), None)
        .with_context(|| format!("creating {}", path.display()))?;
    let mut x = seed;
    for i in 0..items {
        if i % 1024 == 0 && pmolap_os::signal::interrupted() {
            // Closed cleanly: the table holds the items inserted so far.
            d.close()?;
            anyhow::bail!("{}: interrupted after {i} items", path.display());
        }
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        d.insert(x, i as u64)
            .with_context(|| format!("inserting into {}", path.display()))?;
    }
    d.close()?;
    println!(
        "{}: {items} items inserted (each persisted) in {:.2} s",
        path.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Reads the table at `path` into memory (under its shared lock: a table being written
/// is refused naming the writer), recovers every segment of that copy and checks every
/// invariant; prints the report as JSON; fails if any invariant does not hold. The file
/// itself is never written.
pub fn check(path: &Path) -> Result<()> {
    let d = Dash::open_copy(path).with_context(|| format!("opening {}", path.display()))?;
    let rep = d
        .check()
        .with_context(|| format!("checking {}", path.display()))?;
    crate::output::print_json(&rep, "the check report")?;
    anyhow::ensure!(
        rep.problems.is_empty(),
        "{}: {} invariant violations, first: {}",
        path.display(),
        rep.problems.len(),
        rep.problems[0]
    );
    Ok(())
}

/// Flags of `pmolap hash bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Keys of the DRAM runs and the HashMap baselines.
    #[arg(long, default_value_t = 1_000_000)]
    pub keys: usize,
    /// Tier to run on, `TIER` or `TIER@KEYS` (repeatable), e.g. `dram`,
    /// `file:/dev/shm@200000`, `file:/var/tmp@5000`.
    #[arg(long = "tier", default_values_t = ["dram".to_string()])]
    pub tiers: Vec<String>,
    /// Thread counts (repeatable; default 1..=available CPUs).
    #[arg(long = "threads")]
    pub threads: Vec<usize>,
    /// Table sizes of the recovery measurement (repeatable).
    #[arg(long = "recovery-items")]
    pub recovery_items: Vec<usize>,
    /// Directory for the recovery measurement's table files.
    #[arg(long, default_value = "/dev/shm")]
    pub recovery_dir: PathBuf,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Times each lookup phase is run; the median counts.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Where to write the JSON result (default: results/hashbench-YYYYMMDD-HHMMSS.json,
    /// UTC, as every bench command).
    #[arg(long, visible_alias = "json")]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub quiet: bool,
    /// Allow far more threads than logical CPUs (more than 4 per CPU).
    #[arg(long)]
    pub oversubscribe: bool,
}

pub fn bench(a: &BenchArgs) -> Result<()> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = if a.threads.is_empty() {
        (1..=cpus).collect()
    } else {
        a.threads.clone()
    };
    // The benchmarks' one rule on how many threads a run may start.
    let most = threads.iter().copied().max().unwrap_or(1);
    pmolap_bench::threads::check_count("hash bench", most, cpus, a.oversubscribe)?;
    let tiers = a
        .tiers
        .iter()
        .map(|t| TierRunSpec::parse(t, a.keys))
        .collect::<pmolap_results::Result<Vec<_>>>()
        .context("--tier")?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| crate::output::default_results_path("hashbench", ".json"));
    crate::output::check_output(&out).context("--out")?;
    let p = HashBenchParams {
        keys: a.keys,
        tiers,
        threads,
        recovery_items: a.recovery_items.clone(),
        recovery_dir: a.recovery_dir.clone(),
        seed: a.seed,
        reps: a.reps,
        // Written here once the run is done (its directory created then).
        out: None,
    };
    let pb = crate::progress::spinner(a.quiet);
    let r = bench::run(&p, &mut |m| pb.set_message(m.to_string()));
    pb.finish_and_clear();
    let r = r?;
    println!("Mops/s (insert / positive lookup / negative lookup) per thread count:");
    for b in &r.baselines {
        print_points(&format!("{} [{}]", b.name, b.hasher), &b.points);
    }
    for d in &r.dash {
        print_points(&format!("dash on {} ({} keys)", d.tier, d.keys), &d.points);
        println!(
            "  load factor {:.3}, segments split at {:.3} fill on average ({} splits), {:.2} persist points per insert ({})",
            d.load_factor, d.fill_at_split, d.splits, d.persist_points_per_insert, d.durability
        );
    }
    for x in &r.dram_ratios {
        println!(
            "dash / {} positive lookups at {} threads: {}",
            x.baseline,
            x.threads,
            x.positive
                .map_or(format!("{:.2}x", x.dash_over_baseline_positive), |r| r
                    .display())
        );
    }
    for x in &r.recovery {
        println!(
            "recovery at {} items ({} segments): open {:.3} ms, first lookup {:.3} ms, all segments {:.1} ms",
            x.items, x.segments, x.open_ms, x.first_lookup_ms, x.recover_all_ms
        );
    }
    crate::output::publish_results(&r, &out)
}

/// One line per thread count: Mops/s of insert (one timed run), positive and negative
/// lookup (median with min–max and repetitions).
fn print_points(label: &str, points: &[bench::ThreadPoint]) {
    let lookups = |s: Option<pmolap_results::stats::Spread>, median: f64| {
        s.map_or(format!("{median:.2}"), |s| s.display("M/s"))
    };
    for x in points {
        println!(
            "{label:<44} {:>2} thr  {:>7.2} (1 run)  {:>28}  {:>28}",
            x.threads,
            x.insert_mops,
            lookups(x.positive_lookup, x.positive_lookup_mops),
            lookups(x.negative_lookup, x.negative_lookup_mops)
        );
    }
}
