//! `pmolap elf`: build an Elf index file, query it through a caching variant, and the
//! selective-caching benchmark (the paper's §V: build time, queries/s per query type and
//! variant, throughput over the query stream (Fig. 4), queries/s vs selectivity (Fig. 5)),
//! against a column scan and a sorted projection of the same data on the same tier.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use pmolap_index::elf::baseline::{ColumnScan, SortedProjection};
use pmolap_index::elf::{self, CachedElf, Variant};
use pmolap_index::Elf;
use pmolap_tier::io::{fadvise, Advice};
use pmolap_tier::TierSpec;
use serde_json::{json, Value};

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

/// SplitMix64: query generation without a `rand` dependency in the CLI.
#[derive(Debug)]
struct SmallRng(u64);

impl SmallRng {
    fn seed_from_u64(s: u64) -> SmallRng {
        SmallRng(s)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..hi` (`hi > lo`; the modulo bias is negligible here).
    fn below(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }
}

/// Parameters of [`bench`].
#[derive(Debug, Clone)]
pub struct BenchParams {
    pub rows: usize,
    pub dims: usize,
    pub max_value: u32,
    pub seed: u64,
    /// A directory on the tier under test ("PM"): the index file and the baselines'
    /// region files go there (e.g. a disk directory, or /dev/shm).
    pub dir: PathBuf,
    /// Exact-match queries per variant (the stream of Fig. 4).
    pub exact_queries: usize,
    /// Range and partial-match queries per variant.
    pub range_queries: usize,
    /// Window of the throughput progression, in queries.
    pub window: usize,
    /// Result selectivity of range and partial-match queries (fraction of rows).
    pub range_selectivity: f64,
    /// Fractions of the tuples exact-match keys are drawn from (Fig. 5).
    pub selectivities: Vec<f64>,
    /// DRAM for the dynamic and probability caches, bytes.
    pub cache_bytes: usize,
    /// Caching variants (names as [`Variant::parse`]); empty: the default set.
    pub variants: Vec<String>,
    /// Seconds at most per measured series (a series stops early past it).
    pub max_secs: f64,
    /// Also measure exact match with the index file's pages dropped from the page cache.
    pub cold: bool,
    /// Where to write the JSON result (also printed as a table).
    pub out: Option<PathBuf>,
}

impl Default for BenchParams {
    fn default() -> Self {
        BenchParams {
            rows: 1_000_000,
            dims: 10,
            max_value: 100,
            seed: 42,
            dir: std::env::temp_dir(),
            exact_queries: 500_000,
            range_queries: 200,
            window: 50_000,
            range_selectivity: 0.001,
            selectivities: vec![0.01, 0.1, 0.5, 1.0],
            cache_bytes: 16 << 20,
            variants: Vec::new(),
            max_secs: 20.0,
            cold: true,
            out: None,
        }
    }
}

/// The default set of variants for a cache of `b` bytes.
pub fn default_variants(b: usize) -> Vec<Variant> {
    use pmolap_index::elf::Policy::{Lru, TinyLfu};
    vec![
        Variant::Pm,
        Variant::Hybrid,
        Variant::Static { levels: 1 },
        Variant::Static { levels: 2 },
        Variant::Static { levels: 3 },
        Variant::Dynamic {
            policy: Lru,
            capacity_bytes: usize::MAX,
        },
        Variant::Dynamic {
            policy: Lru,
            capacity_bytes: b,
        },
        Variant::Dynamic {
            policy: TinyLfu,
            capacity_bytes: b,
        },
        Variant::Probability { budget_bytes: b },
        Variant::StaticDynamic {
            levels: 2,
            policy: Lru,
            capacity_bytes: b,
        },
        Variant::StaticDynamic {
            levels: 2,
            policy: TinyLfu,
            capacity_bytes: b,
        },
    ]
}

enum Q {
    Exact(Vec<u32>),
    Window(Vec<u32>, Vec<u32>),
}

/// A series: q/s overall, q/s per window, results (sum of TIDs counts) for cross-checks.
struct Series {
    queries: usize,
    secs: f64,
    windows: Vec<f64>,
    results: u64,
}

impl Series {
    fn qps(&self) -> f64 {
        self.queries as f64 / self.secs.max(1e-12)
    }

    /// The median of the per-window q/s (robust to interference on a shared box); the
    /// overall q/s when there are fewer than 3 windows.
    fn median_window_qps(&self) -> f64 {
        if self.windows.len() < 3 {
            return self.qps();
        }
        let mut w = self.windows.clone();
        w.sort_by(f64::total_cmp);
        w[w.len() / 2]
    }
}

fn run_series(
    qs: &[Q],
    window: usize,
    max_secs: f64,
    mut f: impl FnMut(&Q, &mut Vec<u32>),
) -> Series {
    let mut out = Vec::new();
    let mut windows = Vec::new();
    let mut results = 0u64;
    let start = Instant::now();
    let mut w_start = Instant::now();
    let mut done = 0;
    for (i, q) in qs.iter().enumerate() {
        out.clear();
        f(q, &mut out);
        results += out.len() as u64;
        done = i + 1;
        if done % window == 0 {
            windows.push(window as f64 / w_start.elapsed().as_secs_f64().max(1e-12));
            w_start = Instant::now();
        }
        if done % 64 == 0 && start.elapsed().as_secs_f64() > max_secs {
            break;
        }
    }
    Series {
        queries: done,
        secs: start.elapsed().as_secs_f64(),
        windows,
        results,
    }
}

fn run_cached(c: &mut CachedElf<'_>, qs: &[Q], window: usize, max_secs: f64) -> Series {
    run_series(qs, window, max_secs, |q, out| match q {
        Q::Exact(k) => c.exact_into(k, out).expect("key length"),
        Q::Window(l, h) => c.range_into(l, h, out).expect("bounds length"),
    })
}

fn exact_keys(flat: &[u32], dims: usize, n: usize, frac: f64, rng: &mut SmallRng) -> Vec<Q> {
    let rows = flat.len() / dims;
    // Keys from a random contiguous stretch of `frac` of the (uniformly random) rows.
    let span = ((rows as f64 * frac).ceil() as usize).clamp(1, rows);
    let base = rng.below(0, (rows - span + 1) as u64) as usize;
    (0..n)
        .map(|_| {
            let r = base + rng.below(0, span as u64) as usize;
            Q::Exact(flat[r * dims..(r + 1) * dims].to_vec())
        })
        .collect()
}

/// Windows of result selectivity about `sel` over `restricted` of the dimensions (the
/// others unrestricted); `restricted == dims`: range queries, fewer: partial match.
fn windows(
    dims: usize,
    max_value: u32,
    restricted: usize,
    sel: f64,
    n: usize,
    rng: &mut SmallRng,
) -> Vec<Q> {
    let card = f64::from(max_value) + 1.0;
    let width = ((card * sel.powf(1.0 / restricted as f64)).round() as u32).clamp(1, max_value + 1);
    (0..n)
        .map(|_| {
            let mut lo = vec![0; dims];
            let mut hi = vec![u32::MAX; dims];
            let mut ds: Vec<usize> = (0..dims).collect();
            for i in 0..restricted {
                let j = rng.below(i as u64, dims as u64) as usize;
                ds.swap(i, j);
            }
            for &d in &ds[..restricted] {
                let a = rng.below(0, u64::from(max_value + 2 - width)) as u32;
                lo[d] = a;
                hi[d] = a + width - 1;
            }
            Q::Window(lo, hi)
        })
        .collect()
}

fn drop_cache(path: &Path) -> Result<()> {
    let f = File::open(path)?;
    fadvise(&f, path, Advice::DontNeed)?;
    Ok(())
}

/// The benchmark (module docs). Returns the JSON document it writes to `p.out`.
pub fn bench(p: &BenchParams) -> Result<Value> {
    if p.dims < 2 || p.rows == 0 || p.window == 0 {
        bail!("need at least 2 dimensions, 1 row and a window of at least 1 query");
    }
    let machine = pmolap_bench::machine::Machine::from_topology(&pmolap_tier::Topology::detect()?);
    let tier_name = format!("file:{}", p.dir.display());
    let region_tier = TierSpec::File {
        path: p.dir.clone(),
    };
    let variants: Vec<Variant> = if p.variants.is_empty() {
        default_variants(p.cache_bytes)
    } else {
        p.variants
            .iter()
            .map(|v| Variant::parse(v))
            .collect::<pmolap_index::Result<_>>()?
    };
    let mut rng = SmallRng::seed_from_u64(p.seed ^ 0x5EED);

    eprintln!("generating {} rows x {} dims", p.rows, p.dims);
    let flat = elf::uniform_rows(p.rows, p.dims, p.max_value, p.seed);
    let path = p
        .dir
        .join(format!("pmolap-elf-bench-{}.elf", std::process::id()));
    let t = Instant::now();
    let built = Elf::write(&path, p.dims, &flat, &Default::default())?;
    let build_s = t.elapsed().as_secs_f64();
    let elf_bytes = built.size_bytes();
    drop(built);
    let pm = Elf::open_unverified(&path)?;
    // Map every page now so that the first variant measured pays no page faults.
    pmolap_tier::io::prefault_read(pm.region().as_slice());
    eprintln!(
        "Elf: {:.1} MiB, built and written in {build_s:.2} s",
        elf_bytes as f64 / (1 << 20) as f64
    );
    let t = Instant::now();
    let scan = ColumnScan::build(p.dims, &flat, &region_tier)?;
    let scan_build_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let proj = SortedProjection::build(p.dims, &flat, &region_tier)?;
    let proj_build_s = t.elapsed().as_secs_f64();

    let half = (p.dims / 2).max(1);
    let sets: Vec<(&str, Vec<Q>)> = vec![
        (
            "exact",
            exact_keys(&flat, p.dims, p.exact_queries, 1.0, &mut rng),
        ),
        (
            "range",
            windows(
                p.dims,
                p.max_value,
                p.dims,
                p.range_selectivity,
                p.range_queries,
                &mut rng,
            ),
        ),
        (
            "partial",
            windows(
                p.dims,
                p.max_value,
                half,
                p.range_selectivity,
                p.range_queries,
                &mut rng,
            ),
        ),
    ];

    let mut per_type = Vec::new();
    for (kind, qs) in &sets {
        let window = if *kind == "exact" {
            p.window
        } else {
            (p.range_queries / 10).max(1)
        };
        let mut rows = Vec::new();
        let mut hybrid_qps = None;
        let mut pm_qps = 0.0;
        let mut reference = None;
        for v in &variants {
            let t = Instant::now();
            let mut c = CachedElf::new(&pm, *v);
            let setup_s = t.elapsed().as_secs_f64();
            let s = run_cached(&mut c, qs, window, p.max_secs);
            let st = c.stats();
            // Every variant must answer alike: compare total result sizes over the same
            // prefix of the stream.
            match reference {
                None => reference = Some((s.queries, s.results)),
                Some((n, r)) if n == s.queries && r != s.results => {
                    bail!("{} returned {} rows, pm {r}", v.name(), s.results)
                }
                _ => {}
            }
            if *v == Variant::Hybrid {
                hybrid_qps = Some(s.qps());
            }
            if *v == Variant::Pm {
                pm_qps = s.qps();
            }
            eprintln!(
                "{kind:8} {:34} {:>12.0} q/s  hit ratio {:.3}  DRAM {:.1} MiB",
                v.name(),
                s.qps(),
                st.hit_ratio(),
                c.dram_bytes() as f64 / (1 << 20) as f64
            );
            rows.push((v.name(), s, st, c.dram_bytes(), setup_s));
        }
        // Baselines, same queries (a prefix: they are slow).
        let scan_s = run_series(qs, usize::MAX, p.max_secs.min(10.0), |q, out| match q {
            Q::Exact(k) => scan.range_into(k, k, out),
            Q::Window(l, h) => scan.range_into(l, h, out),
        });
        let proj_s = run_series(qs, usize::MAX, p.max_secs.min(10.0), |q, out| match q {
            Q::Exact(k) => proj.range_into(k, k, out),
            Q::Window(l, h) => proj.range_into(l, h, out),
        });
        eprintln!(
            "{kind:8} {:34} {:>12.1} q/s\n{kind:8} {:34} {:>12.1} q/s",
            "column-scan",
            scan_s.qps(),
            "sorted-projection",
            proj_s.qps()
        );
        let hyb = hybrid_qps.unwrap_or(f64::NAN);
        per_type.push(json!({
            "query_type": kind,
            "tier": tier_name,
            "queries": qs.len(),
            "variants": rows.iter().map(|(name, s, st, bytes, setup)| json!({
                "variant": name,
                "queries": s.queries,
                "seconds": s.secs,
                "qps": s.qps(),
                "qps_median_window": s.median_window_qps(),
                "relative_to_hybrid": s.qps() / hyb,
                "speedup_over_column_scan": s.qps() / scan_s.qps(),
                "speedup_over_sorted_projection": s.qps() / proj_s.qps(),
                "window_queries": window,
                "qps_per_window": s.windows,
                "dram_hits": st.dram,
                "pm_reads": st.pm,
                "hit_ratio": st.hit_ratio(),
                "admitted": st.admitted,
                "evicted": st.evicted,
                "dram_bytes": bytes,
                "setup_seconds": setup,
                "result_rows": s.results,
            })).collect::<Vec<_>>(),
            "baselines": [
                {"name": "column-scan", "tier": tier_name, "queries": scan_s.queries,
                 "qps": scan_s.qps(), "result_rows": scan_s.results},
                {"name": "sorted-projection", "tier": tier_name, "queries": proj_s.queries,
                 "qps": proj_s.qps(), "result_rows": proj_s.results},
            ],
            "pm_speedup_over_column_scan": pm_qps / scan_s.qps(),
            "pm_speedup_over_sorted_projection": pm_qps / proj_s.qps(),
        }));
    }

    // Fig. 5: exact match, keys from a fraction of the tuples.
    let sel_variants: Vec<Variant> = variants
        .iter()
        .copied()
        .filter(|v| {
            matches!(
                v,
                Variant::Pm
                    | Variant::Hybrid
                    | Variant::Static { levels: 3 }
                    | Variant::Dynamic { .. }
                    | Variant::StaticDynamic { .. }
            ) && !matches!(
                v,
                Variant::Dynamic {
                    capacity_bytes: usize::MAX,
                    ..
                }
            )
        })
        .collect();
    let mut selectivity = Vec::new();
    for &f in &p.selectivities {
        let qs = exact_keys(&flat, p.dims, p.exact_queries, f, &mut rng);
        let mut vs = Vec::new();
        for v in &sel_variants {
            let mut c = CachedElf::new(&pm, *v);
            let s = run_cached(&mut c, &qs, usize::MAX, p.max_secs);
            eprintln!("select {f:<6} {:34} {:>12.0} q/s", v.name(), s.qps());
            vs.push(
                json!({"variant": v.name(), "qps": s.qps(), "hit_ratio": c.stats().hit_ratio()}),
            );
        }
        selectivity.push(json!({"fraction_of_tuples": f, "tier": tier_name, "variants": vs}));
    }

    // Cold: the index file's pages dropped from the page cache before each variant.
    let mut cold = Vec::new();
    if p.cold {
        drop(pm);
        let qs = &sets[0].1;
        for v in [
            Variant::Pm,
            Variant::Static { levels: 3 },
            Variant::StaticDynamic {
                levels: 2,
                policy: pmolap_index::elf::Policy::TinyLfu,
                capacity_bytes: p.cache_bytes,
            },
            Variant::Hybrid,
        ] {
            drop_cache(&path)?;
            let t = Instant::now();
            let e = Elf::open_unverified(&path)?;
            let mut c = CachedElf::new(&e, v);
            let setup_s = t.elapsed().as_secs_f64();
            let s = run_cached(&mut c, qs, p.window, p.max_secs);
            eprintln!(
                "cold     {:34} {:>12.0} q/s (setup {setup_s:.2} s, first window {:.0} q/s)",
                v.name(),
                s.qps(),
                s.windows.first().copied().unwrap_or(f64::NAN)
            );
            cold.push(json!({
                "variant": v.name(), "tier": format!("{tier_name} (page cache dropped)"),
                "setup_seconds": setup_s, "queries": s.queries, "qps": s.qps(),
                "window_queries": p.window, "qps_per_window": s.windows,
                "hit_ratio": c.stats().hit_ratio(),
            }));
        }
    }
    std::fs::remove_file(&path).ok();

    let doc = json!({
        "kind": "elfbench",
        "pmolap_version": env!("CARGO_PKG_VERSION"),
        "started_unix": std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "machine": machine,
        "params": {
            "rows": p.rows, "dims": p.dims, "max_value": p.max_value, "seed": p.seed,
            "tier": tier_name, "exact_queries": p.exact_queries,
            "range_queries": p.range_queries, "window": p.window,
            "range_selectivity": p.range_selectivity, "cache_bytes": p.cache_bytes,
            "max_secs": p.max_secs,
        },
        "build": {
            "tier": tier_name, "elf_seconds": build_s, "elf_bytes": elf_bytes,
            "column_scan_seconds": scan_build_s, "column_scan_bytes": scan.size_bytes(),
            "sorted_projection_seconds": proj_build_s,
            "sorted_projection_bytes": proj.size_bytes(),
        },
        "query_types": per_type,
        "selectivity": selectivity,
        "cold": cold,
    });
    if let Some(out) = &p.out {
        std::fs::write(out, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("writing {}", out.display()))?;
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_bench_runs() {
        let dir = tempfile::tempdir().unwrap();
        let p = BenchParams {
            rows: 3000,
            dims: 4,
            max_value: 10,
            dir: dir.path().to_path_buf(),
            exact_queries: 200,
            range_queries: 20,
            window: 50,
            selectivities: vec![0.1, 1.0],
            max_secs: 5.0,
            out: Some(dir.path().join("r.json")),
            ..BenchParams::default()
        };
        let doc = bench(&p).unwrap();
        assert_eq!(doc["query_types"].as_array().unwrap().len(), 3);
        assert!(dir.path().join("r.json").exists());
        let idx = dir.path().join("i.elf");
        build(500, 3, 5, 1, &idx).unwrap();
        let tier = format!("file:{}", idx.display());
        let all = query(&idx, &tier, "static-2", &[0, 0, 0], &[5, 5, 5]).unwrap();
        assert_eq!(all.len(), 500);
    }
}
