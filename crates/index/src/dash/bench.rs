//! `pmolap hash bench`: insert, positive and negative lookup throughput and load factor
//! of the Dash table at 1..N threads on each tier, against `std::collections::HashMap`
//! in DRAM with the same keys in the same run, and the time to reopen a table after a
//! crash at several sizes. The result is a typed JSON document (`kind` `hashbench`,
//! defined in `pmolap_results::hashbench`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use pmolap_results::stats::Spread;
use pmolap_results::{kind, Header, Machine};
use pmolap_tier::TierSpec;

use super::layout::hash;
use super::{Dash, DashOptions};
use crate::error::{Error, Result};

pub use pmolap_results::hashbench::{
    BaselineResult, HashBenchParams, HashBenchReport, Ratio, RecoveryResult, ThreadPoint,
    TierResult, TierRunSpec, FORMAT_VERSION, KIND,
};

/// Dash's hash (murmur3's finalizer) as a `Hasher`, for the HashMap with the same hash.
#[derive(Debug, Default)]
pub struct DashHasher(u64);

impl Hasher for DashHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = hash(self.0 ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = hash(x);
    }
}

fn mops(n: usize, secs: f64) -> f64 {
    n as f64 / secs.max(1e-9) / 1e6
}

/// Runs `f(thread, chunk)` over `items` split among `threads` threads; returns seconds.
/// A thread the system refuses is an error (the threads started are joined first).
fn timed_parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&[T]) -> Result<R> + Sync,
) -> Result<f64> {
    let chunk = items.len().div_ceil(threads.max(1)).max(1);
    let t = Instant::now();
    std::thread::scope(|s| {
        let mut hs = Vec::new();
        for (i, c) in items.chunks(chunk).enumerate() {
            let f = &f;
            let h = std::thread::Builder::new()
                .name(format!("hashbench-{i}"))
                .spawn_scoped(s, move || f(c))
                .map_err(|e| {
                    Error::HashBench(format!("starting thread {} of {threads}: {e}", i + 1))
                })?;
            hs.push(h);
        }
        for h in hs {
            h.join()
                .map_err(|_| Error::HashBench("a benchmark thread panicked".into()))??;
        }
        Ok::<_, Error>(())
    })?;
    Ok(t.elapsed().as_secs_f64())
}

/// Million operations per second of `n` operations in each of `reps` timings of `f`
/// (which returns seconds): their median and min–max.
fn mops_spread(n: usize, reps: usize, mut f: impl FnMut() -> Result<f64>) -> Result<Spread> {
    let t = (0..reps.max(1))
        .map(|_| f().map(|secs| mops(n, secs)))
        .collect::<Result<Vec<f64>>>()?;
    Spread::of(&t).ok_or_else(|| Error::HashBench("no finite timing".into()))
}

struct Keys {
    insert: Vec<u64>,
    positive: Vec<u64>,
    negative: Vec<u64>,
}

fn keys(n: usize, seed: u64) -> Keys {
    let mut rng = SmallRng::seed_from_u64(seed);
    // Present keys are even, absent ones odd: random 64-bit keys with no overlap.
    let insert: Vec<u64> = (0..n).map(|_| rng.gen::<u64>() & !1).collect();
    let mut positive = insert.clone();
    positive.shuffle(&mut rng);
    let negative = (0..n).map(|_| rng.gen::<u64>() | 1).collect();
    Keys {
        insert,
        positive,
        negative,
    }
}

fn lookups(d: &Dash, k: &Keys, threads: usize, reps: usize) -> Result<(Spread, Spread)> {
    let pos = mops_spread(k.positive.len(), reps, || {
        timed_parallel(&k.positive, threads, |c| {
            let mut found = 0usize;
            for &key in c {
                found += usize::from(d.get(key)?.is_some());
            }
            if found != c.len() {
                return Err(Error::HashBench(format!(
                    "{} present keys not found",
                    c.len() - found
                )));
            }
            Ok(())
        })
    })?;
    let neg = mops_spread(k.negative.len(), reps, || {
        timed_parallel(&k.negative, threads, |c| {
            for &key in c {
                if d.get(key)?.is_some() {
                    return Err(Error::HashBench(format!("absent key {key} found")));
                }
            }
            Ok(())
        })
    })?;
    Ok((pos, neg))
}

fn dash_on(spec: &TierRunSpec, threads: &[usize], seed: u64, reps: usize) -> Result<TierResult> {
    let tier: TierSpec = spec.tier.parse()?;
    let k = keys(spec.keys, seed);
    let mut points = Vec::new();
    let mut last = None;
    for &t in threads {
        let d = Dash::create(&tier, DashOptions::for_items(spec.keys), None)?;
        let path = d.path.clone();
        let ins = timed_parallel(&k.insert, t, |c| {
            for &key in c {
                d.insert(key, key ^ 0x5a5a)?;
            }
            Ok(())
        })?;
        let (p, n) = lookups(&d, &k, t, reps)?;
        points.push(ThreadPoint {
            threads: t,
            insert_mops: mops(spec.keys, ins),
            positive_lookup_mops: p.median,
            negative_lookup_mops: n.median,
            positive_lookup: Some(p),
            negative_lookup: Some(n),
        });
        if let Some((old, old_path)) = last.replace((d, path)) {
            drop_table(old, &old_path, &tier);
        }
    }
    let (d, path) = last.ok_or_else(|| Error::HashBench("no thread counts".into()))?;
    let rep = d.check()?;
    if !rep.problems.is_empty() {
        return Err(Error::HashBench(format!(
            "the table is inconsistent: {}",
            rep.problems[0]
        )));
    }
    let (splits, _, fill) = d.split_stats();
    let durability = d.mem.durability_name();
    let ppi = d.persist_points() as f64 / spec.keys as f64;
    drop_table(d, &path, &tier);
    Ok(TierResult {
        tier: spec.tier.clone(),
        durability,
        keys: spec.keys,
        points,
        load_factor: rep.load_factor,
        fill_at_split: fill,
        splits,
        persist_points_per_insert: ppi,
    })
}

/// Drops a benchmark table and removes the file it created (a `file:` tier keeps it).
fn drop_table(d: Dash, path: &Path, tier: &TierSpec) {
    drop(d);
    if matches!(tier, TierSpec::File { .. }) && path.is_file() {
        let _ = std::fs::remove_file(path);
    }
}

fn baseline<S: std::hash::BuildHasher + Default + Sync>(
    name: &str,
    hasher: &str,
    k: &Keys,
    threads: &[usize],
    reps: usize,
) -> Result<BaselineResult> {
    let mut points = Vec::new();
    for &t in threads {
        let t0 = Instant::now();
        let mut m: HashMap<u64, u64, S> = HashMap::default();
        for &key in &k.insert {
            m.insert(key, key ^ 0x5a5a);
        }
        let ins = t0.elapsed().as_secs_f64();
        let m = &m;
        let probe = |keys: &[u64]| {
            mops_spread(keys.len(), reps, || {
                timed_parallel(keys, t, |c| {
                    let found = c.iter().filter(|key| m.get(key).is_some()).count();
                    std::hint::black_box(found);
                    Ok(())
                })
            })
        };
        let pos = probe(&k.positive)?;
        let neg = probe(&k.negative)?;
        points.push(ThreadPoint {
            threads: t,
            insert_mops: mops(k.insert.len(), ins),
            positive_lookup_mops: pos.median,
            negative_lookup_mops: neg.median,
            positive_lookup: Some(pos),
            negative_lookup: Some(neg),
        });
    }
    Ok(BaselineResult {
        name: name.into(),
        hasher: hasher.into(),
        keys: k.insert.len(),
        points,
    })
}

/// The recovery measurement's table files: `<dir>/.pmolap-hashbench-<pid>-<items>.dash`,
/// named after their process so that a killed run's files are swept by the next run.
const RECOVERY_PREFIX: &str = ".pmolap-hashbench-";
const RECOVERY_SUFFIX: &str = ".dash";

/// A file removed when dropped: on success, on every error and on a panic.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Builds a table of `items` in DRAM, writes its words to a file as a crashed table
/// (never closed), then times reopening it, the first lookup and full recovery.
fn recovery(items: usize, dir: &Path, seed: u64) -> Result<RecoveryResult> {
    let d = Dash::new_dram(DashOptions::for_items(items))?;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut probe = 0;
    for i in 0..items {
        probe = rng.gen::<u64>();
        d.insert(probe, i as u64)?;
    }
    let file = Scratch(dir.join(format!(
        "{RECOVERY_PREFIX}{}-{items}{RECOVERY_SUFFIX}",
        std::process::id()
    )));
    let path = file.0.as_path();
    d.mem.write_image(path)?;
    drop(d);
    let run = || -> Result<RecoveryResult> {
        let t = Instant::now();
        let d = Dash::open_unlocked(path, None)?;
        let open_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        if d.get(probe)?.is_none() {
            return Err(Error::HashBench(
                "the last key inserted is missing after reopening".into(),
            ));
        }
        let first_lookup_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let segs = d.recover_all()? + 1;
        let recover_all_ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(RecoveryResult {
            items,
            file_bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            open_ms,
            first_lookup_ms,
            recover_all_ms,
            segments: segs,
        })
    };
    run()
}

fn gib(b: u128) -> String {
    format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30))
}

/// Bytes of a table sized for `items` (beyond the address space: `u128::MAX`).
fn table_bytes(items: usize) -> u128 {
    DashOptions::for_items(items)
        .bytes()
        .map_or(u128::MAX, |b| b as u128)
}

/// Refuses, before anything is allocated, a run whose keys and tables do not fit in the
/// memory available now, on their tier, or (the recovery files) in the recovery
/// directory's free space.
fn check_sizes(p: &HashBenchParams) -> Result<()> {
    // Three vectors of keys (inserted, positive and negative lookups) per key set; a std
    // HashMap takes 17 bytes a slot at up to 8/7 slots a key, twice that while it grows.
    let keys = |n: usize| n as u128 * 24;
    let map = |n: usize| n as u128 * 40;
    // A tier keeps two tables at once while it moves from one thread count to the next.
    let tables = p.threads.len().min(2) as u128;
    let mut peak = map(p.keys);
    for t in &p.tiers {
        let tier: TierSpec = t.tier.parse()?;
        let bytes = table_bytes(t.keys).saturating_mul(tables);
        let mut need = keys(t.keys);
        if matches!(tier, TierSpec::Dram { node: None }) {
            need = need.saturating_add(bytes);
        } else {
            let room = pmolap_tier::region::capacity(&tier)?;
            if bytes > u128::from(room) {
                return Err(Error::HashBench(format!(
                    "{} keys on {}: the tables need {}, {} is free there",
                    t.keys,
                    t.tier,
                    gib(bytes),
                    gib(room.into())
                )));
            }
        }
        peak = peak.max(need);
    }
    let free = pmolap_tier::region::capacity(&TierSpec::File {
        path: p.recovery_dir.clone(),
    });
    for &n in &p.recovery_items {
        let bytes = table_bytes(n);
        peak = peak.max(bytes);
        if let Ok(free) = free {
            if bytes > u128::from(free) {
                return Err(Error::HashBench(format!(
                    "--recovery-items {n}: the table file needs {}, {} is free in {}",
                    gib(bytes),
                    gib(free.into()),
                    p.recovery_dir.display()
                )));
            }
        }
    }
    let need = keys(p.keys).saturating_add(peak);
    let have = pmolap_tier::region::capacity(&TierSpec::Dram { node: None })?;
    if need > u128::from(have) {
        let most = |v: &mut dyn Iterator<Item = usize>| v.max().unwrap_or(0);
        return Err(Error::HashBench(format!(
            "the keys and tables of this run (--keys {}, TIER@KEYS up to {}, --recovery-items up to {}) need about {} of memory, {} is available",
            p.keys,
            most(&mut p.tiers.iter().map(|t| t.keys)),
            most(&mut p.recovery_items.iter().copied()),
            gib(need),
            gib(have.into())
        )));
    }
    Ok(())
}

/// Most timings of a lookup phase.
pub const MAX_REPS: usize = 1000;

/// Runs the benchmark; publishes the document to `params.out` if set.
pub fn run(p: &HashBenchParams, progress: &mut dyn FnMut(&str)) -> Result<HashBenchReport> {
    if p.threads.is_empty() || p.threads.contains(&0) || p.keys == 0 || p.reps == 0 {
        return Err(Error::HashBench(
            "need at least one key, one rep and thread counts of at least 1".into(),
        ));
    }
    if p.reps > MAX_REPS {
        return Err(Error::HashBench(format!(
            "--reps {}: at most {MAX_REPS}",
            p.reps
        )));
    }
    if let Some(out) = &p.out {
        pmolap_os::durable::check_writable(out)?;
    }
    if !p.recovery_items.is_empty() {
        if !p.recovery_dir.is_dir() {
            return Err(Error::HashBench(format!(
                "--recovery-dir {}: not a directory",
                p.recovery_dir.display()
            )));
        }
        // Recovery files of killed runs.
        pmolap_tier::owner::sweep_dead(&p.recovery_dir, RECOVERY_PREFIX, RECOVERY_SUFFIX);
    }
    if p.recovery_items.contains(&0) {
        return Err(Error::HashBench(
            "--recovery-items: a table of at least one item".into(),
        ));
    }
    check_sizes(p)?;
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let machine = Machine::from_topology(&pmolap_tier::Topology::detect()?);
    let k = keys(p.keys, p.seed);
    progress("std HashMap baselines");
    let baselines = vec![
        baseline::<std::collections::hash_map::RandomState>(
            "std HashMap",
            "SipHash-1-3 (std default)",
            &k,
            &p.threads,
            p.reps,
        )?,
        baseline::<BuildHasherDefault<DashHasher>>(
            "std HashMap",
            "Dash's hash (murmur3 finalizer)",
            &k,
            &p.threads,
            p.reps,
        )?,
    ];
    let mut dash = Vec::new();
    for t in &p.tiers {
        progress(&format!("dash on {} ({} keys)", t.tier, t.keys));
        dash.push(dash_on(t, &p.threads, p.seed, p.reps)?);
    }
    let mut dram_ratios = Vec::new();
    if let Some(d) = dash.iter().find(|d| d.tier == "dram" && d.keys == p.keys) {
        for b in &baselines {
            for (dp, bp) in d.points.iter().zip(&b.points) {
                dram_ratios.push(Ratio {
                    threads: dp.threads,
                    baseline: format!("{} ({})", b.name, b.hasher),
                    dash_over_baseline_positive: dp.positive_lookup_mops / bp.positive_lookup_mops,
                    positive: dp
                        .positive_lookup
                        .zip(bp.positive_lookup)
                        .and_then(|(a, b)| pmolap_results::stats::Ratio::of(&a, &b)),
                });
            }
        }
    }
    let mut rec = Vec::new();
    for &n in &p.recovery_items {
        progress(&format!("recovery at {n} items"));
        rec.push(recovery(n, &p.recovery_dir, p.seed)?);
    }
    let doc = HashBenchReport {
        header: Header::new(kind::HASHBENCH, machine, false),
        started_unix,
        params: p.clone(),
        dash,
        baselines,
        dram_ratios,
        recovery: rec,
    };
    if let Some(out) = &p.out {
        pmolap_results::publish(out, &doc)?;
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_run_measures_every_tier_and_recovery() {
        let dir = if Path::new("/dev/shm").is_dir() {
            tempfile::tempdir_in("/dev/shm").unwrap()
        } else {
            tempfile::tempdir().unwrap()
        };
        let p = HashBenchParams {
            keys: 20_000,
            tiers: vec![
                TierRunSpec::parse("dram", 20_000).unwrap(),
                TierRunSpec::parse(&format!("file:{}@3000", dir.path().display()), 1).unwrap(),
            ],
            threads: vec![1, 2],
            recovery_items: vec![5_000],
            recovery_dir: dir.path().to_path_buf(),
            seed: 1,
            reps: 3,
            out: Some(dir.path().join("r.json")),
        };
        let r = run(&p, &mut |_| {}).unwrap();
        assert_eq!(r.dash.len(), 2);
        assert_eq!(r.dash[1].keys, 3000);
        assert!(r.dash[0]
            .points
            .iter()
            .all(|x| x.positive_lookup_mops > 0.0));
        assert!(r.dash[0].load_factor > 0.3);
        assert_eq!(r.dash[0].durability, "none (volatile)");
        assert!(r.dash[1].persist_points_per_insert >= 2.0);
        assert_eq!(r.dram_ratios.len(), 4);
        assert_eq!(r.recovery.len(), 1);
        let back: HashBenchReport =
            serde_json::from_slice(&std::fs::read(dir.path().join("r.json")).unwrap()).unwrap();
        assert_eq!(back.header.kind, KIND);
        // Only the result file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(TierRunSpec::parse("dram@x", 1).is_err());
        assert!(TierRunSpec::parse("nonsense", 1).is_err());
    }

    #[test]
    fn sizes_are_refused_before_allocating_and_dead_runs_files_swept() {
        let dir = tempfile::tempdir().unwrap();
        let base = HashBenchParams {
            keys: 100,
            tiers: vec![TierRunSpec::parse("dram", 100).unwrap()],
            threads: vec![1],
            recovery_items: vec![],
            recovery_dir: dir.path().to_path_buf(),
            seed: 1,
            reps: 1,
            out: None,
        };
        let huge = HashBenchParams {
            keys: 100_000_000_000_000,
            tiers: vec![TierRunSpec::parse("dram", 100_000_000_000_000).unwrap()],
            ..base.clone()
        };
        let e = run(&huge, &mut |_| {}).unwrap_err().to_string();
        assert!(
            e.starts_with("hash bench: ") && e.contains("of memory"),
            "{e}"
        );
        let e = run(
            &HashBenchParams {
                keys: usize::MAX,
                ..huge.clone()
            },
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("of memory"), "{e}");
        let e = run(
            &HashBenchParams {
                recovery_items: vec![10_000_000_000],
                ..base.clone()
            },
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("--recovery-items 10000000000"), "{e}");
        // A killed run's recovery file goes; a live one's and the user's stay.
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let dead = c.id();
        c.wait().unwrap();
        let left = dir.path().join(format!(".pmolap-hashbench-{dead}-5.dash"));
        let user = dir.path().join("mine.dash");
        std::fs::write(&left, b"x").unwrap();
        std::fs::write(&user, b"x").unwrap();
        run(
            &HashBenchParams {
                recovery_items: vec![1000],
                ..base
            },
            &mut |_| {},
        )
        .unwrap();
        assert!(!left.exists());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["mine.dash"]);
    }
}
