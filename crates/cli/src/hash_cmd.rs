//! `pmolap hash`: the Dash persistent hash table — build a table file, check one (after a
//! crash, too), and the benchmark (`pmolap_index::dash::bench`, printed here).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use pmolap_index::dash::bench::{self, HashBenchParams, TierRunSpec};
use pmolap_index::dash::{Dash, DashOptions};
use pmolap_tier::TierSpec;

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
        if i % 1024 == 0 && pmolap_tier::signal::interrupted() {
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
    println!("{}", serde_json::to_string_pretty(&rep)?);
    anyhow::ensure!(
        rep.problems.is_empty(),
        "{}: {} invariant violations, first: {}",
        path.display(),
        rep.problems.len(),
        rep.problems[0]
    );
    Ok(())
}

/// The benchmark's command-line settings.
#[derive(Debug, Clone)]
pub struct BenchArgs {
    pub keys: usize,
    pub tiers: Vec<String>,
    pub threads: Vec<usize>,
    pub recovery_items: Vec<usize>,
    pub recovery_dir: PathBuf,
    pub seed: u64,
    pub reps: usize,
    pub out: Option<PathBuf>,
    pub quiet: bool,
    /// Allow far more threads than CPUs.
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
        .collect::<pmolap_index::Result<Vec<_>>>()
        .context("--tier")?;
    let p = HashBenchParams {
        keys: a.keys,
        tiers,
        threads,
        recovery_items: a.recovery_items.clone(),
        recovery_dir: a.recovery_dir.clone(),
        seed: a.seed,
        reps: a.reps,
        out: a.out.clone(),
    };
    let pb = crate::progress::spinner(a.quiet);
    let r = bench::run(&p, &mut |m| pb.set_message(m.to_string()));
    pb.finish_and_clear();
    let r = r?;
    println!("Mops/s (insert / positive lookup / negative lookup) per thread count:");
    for b in &r.baselines {
        for x in &b.points {
            println!(
                "{:<44} {:>2} thr  {:>7.2} {:>7.2} {:>7.2}",
                format!("{} [{}]", b.name, b.hasher),
                x.threads,
                x.insert_mops,
                x.positive_lookup_mops,
                x.negative_lookup_mops
            );
        }
    }
    for d in &r.dash {
        for x in &d.points {
            println!(
                "{:<44} {:>2} thr  {:>7.2} {:>7.2} {:>7.2}",
                format!("dash on {} ({} keys)", d.tier, d.keys),
                x.threads,
                x.insert_mops,
                x.positive_lookup_mops,
                x.negative_lookup_mops
            );
        }
        println!(
            "  load factor {:.3}, segments split at {:.3} fill on average ({} splits), {:.2} persist points per insert ({})",
            d.load_factor, d.fill_at_split, d.splits, d.persist_points_per_insert, d.durability
        );
    }
    for x in &r.dram_ratios {
        println!(
            "dash / {} positive lookups at {} threads: {:.2}x",
            x.baseline, x.threads, x.dash_over_baseline_positive
        );
    }
    for x in &r.recovery {
        println!(
            "recovery at {} items ({} segments): open {:.3} ms, first lookup {:.3} ms, all segments {:.1} ms",
            x.items, x.segments, x.open_ms, x.first_lookup_ms, x.recover_all_ms
        );
    }
    if let Some(out) = &a.out {
        println!("results: {}", out.display());
    }
    Ok(())
}
