//! The selective-caching benchmark of `pmolap elf bench` (the paper's §V): build time,
//! queries/s per query type and caching variant, throughput over the query stream
//! (Fig. 4, warm and with the page cache dropped), queries/s vs selectivity (Fig. 5),
//! against a column scan and a sorted projection of the same data on the same tier.
//! [`bench`] returns the typed document of [`results`]; progress lines go to a callback.

pub mod results;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use pmolap_tier::io::{fadvise, Advice};
use pmolap_tier::TierSpec;

use crate::elf::baseline::{ColumnScan, SortedProjection};
use crate::elf::{self, CachedElf, Variant};
use crate::error::{Error, Result};
use crate::Elf;
use results::{
    finite, BaselineResult, BenchReport, BuildFigures, ColdRun, QueryTypeResult, SelectivityPoint,
    SelectivityVariant, Settings, VariantResult,
};

/// SplitMix64: a fixed query stream per seed, independent of `rand`'s versions.
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
    /// Where to write the JSON result (published whole).
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
    use crate::elf::Policy::{Lru, TinyLfu};
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
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    fadvise(&f, path, Advice::DontNeed)?;
    Ok(())
}

/// The index file (named by this process's id), removed with its lock file when the
/// benchmark ends (also on an error).
struct TempIndex(PathBuf);

impl Drop for TempIndex {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_file(crate::elf::file::lock_path(&self.0));
    }
}

/// The benchmark (module docs): progress lines go to `progress`; the document is
/// written to `p.out` (when set) and returned.
pub fn bench(p: &BenchParams, progress: &dyn Fn(&str)) -> Result<BenchReport> {
    if p.dims < 2 || p.rows == 0 || p.window == 0 {
        return Err(Error::Bench(
            "need at least 2 dimensions, 1 row and a window of at least 1 query".into(),
        ));
    }
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let machine = pmolap_results::Machine::from_topology(&pmolap_tier::Topology::detect()?);
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
            .collect::<Result<_>>()?
    };
    let mut rng = SmallRng::seed_from_u64(p.seed ^ 0x5EED);

    progress(&format!("generating {} rows x {} dims", p.rows, p.dims));
    let flat = elf::uniform_rows(p.rows, p.dims, p.max_value, p.seed);
    let path = TempIndex(
        p.dir
            .join(format!("pmolap-elf-bench-{}.elf", std::process::id())),
    );
    let t = Instant::now();
    let built = Elf::write(&path.0, p.dims, &flat, &Default::default())?;
    let build_s = t.elapsed().as_secs_f64();
    let elf_bytes = built.size_bytes();
    drop(built);
    let pm = Elf::open_unverified(&path.0)?;
    // Map every page now so that the first variant measured pays no page faults.
    pmolap_tier::io::prefault_read(pm.region().as_slice());
    progress(&format!(
        "Elf: {:.1} MiB, built and written in {build_s:.2} s",
        elf_bytes as f64 / (1 << 20) as f64
    ));
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

    let baselines = Baselines {
        scan: &scan,
        proj: &proj,
        tier: &tier_name,
    };
    let mut query_types = Vec::new();
    for (kind, qs) in &sets {
        let window = if *kind == "exact" {
            p.window
        } else {
            (p.range_queries / 10).max(1)
        };
        query_types.push(query_type(
            &pm, &variants, kind, qs, window, p, &baselines, progress,
        )?);
    }
    let selectivity = selectivity_sweep(&pm, &variants, &flat, p, &tier_name, &mut rng, progress);
    drop(pm);
    let cold = if p.cold {
        cold_runs(&path.0, &sets[0].1, p, &tier_name, progress)?
    } else {
        Vec::new()
    };
    drop(path);

    let doc = BenchReport {
        header: pmolap_results::Header::new(
            pmolap_results::kind::ELFBENCH,
            machine,
            pmolap_os::signal::interrupted(),
        ),
        started_unix,
        params: Settings {
            rows: p.rows,
            dims: p.dims,
            max_value: p.max_value,
            seed: p.seed,
            tier: tier_name.clone(),
            exact_queries: p.exact_queries,
            range_queries: p.range_queries,
            window: p.window,
            range_selectivity: p.range_selectivity,
            cache_bytes: p.cache_bytes,
            max_secs: p.max_secs,
        },
        build: BuildFigures {
            tier: tier_name,
            elf_seconds: build_s,
            elf_bytes,
            column_scan_seconds: scan_build_s,
            column_scan_bytes: scan.size_bytes(),
            sorted_projection_seconds: proj_build_s,
            sorted_projection_bytes: proj.size_bytes(),
        },
        query_types,
        selectivity,
        cold,
    };
    if let Some(out) = &p.out {
        pmolap_results::publish(out, &doc)?;
    }
    Ok(doc)
}

/// The baselines every query type is also run on.
struct Baselines<'a> {
    scan: &'a ColumnScan,
    proj: &'a SortedProjection,
    tier: &'a str,
}

/// Every variant, then the baselines, on one query stream.
#[allow(clippy::too_many_arguments)]
fn query_type(
    pm: &Elf,
    variants: &[Variant],
    kind: &str,
    qs: &[Q],
    window: usize,
    p: &BenchParams,
    base: &Baselines<'_>,
    progress: &dyn Fn(&str),
) -> Result<QueryTypeResult> {
    let mut rows = Vec::new();
    let mut reference = None;
    for v in variants {
        let t = Instant::now();
        let mut c = CachedElf::new(pm, *v);
        let setup_s = t.elapsed().as_secs_f64();
        let s = run_cached(&mut c, qs, window, p.max_secs);
        let st = c.stats();
        // Every variant must answer alike: compare total result sizes over the same
        // prefix of the stream.
        match reference {
            None => reference = Some((s.queries, s.results)),
            Some((n, r)) if n == s.queries && r != s.results => {
                return Err(Error::Bench(format!(
                    "{} returned {} rows, pm {r}",
                    v.name(),
                    s.results
                )))
            }
            _ => {}
        }
        progress(&format!(
            "{kind:8} {:34} {:>12.0} q/s  hit ratio {:.3}  DRAM {:.1} MiB",
            v.name(),
            s.qps(),
            st.hit_ratio(),
            c.dram_bytes() as f64 / (1 << 20) as f64
        ));
        rows.push((*v, s, st, c.dram_bytes(), setup_s));
    }
    // Baselines, same queries (a prefix: they are slow).
    let scan_s = run_series(qs, usize::MAX, p.max_secs.min(10.0), |q, out| match q {
        Q::Exact(k) => base.scan.range_into(k, k, out),
        Q::Window(l, h) => base.scan.range_into(l, h, out),
    });
    let proj_s = run_series(qs, usize::MAX, p.max_secs.min(10.0), |q, out| match q {
        Q::Exact(k) => base.proj.range_into(k, k, out),
        Q::Window(l, h) => base.proj.range_into(l, h, out),
    });
    progress(&format!(
        "{kind:8} {:34} {:>12.1} q/s\n{kind:8} {:34} {:>12.1} q/s",
        "column-scan",
        scan_s.qps(),
        "sorted-projection",
        proj_s.qps()
    ));
    let qps_of = |want: Variant| {
        rows.iter()
            .find(|r| r.0 == want)
            .map_or(f64::NAN, |r| r.1.qps())
    };
    let (hyb, pm_qps) = (qps_of(Variant::Hybrid), qps_of(Variant::Pm));
    let variants = rows
        .iter()
        .map(|(v, s, st, bytes, setup)| VariantResult {
            variant: v.name(),
            queries: s.queries,
            seconds: s.secs,
            qps: s.qps(),
            qps_median_window: s.median_window_qps(),
            relative_to_hybrid: finite(s.qps() / hyb),
            speedup_over_column_scan: finite(s.qps() / scan_s.qps()),
            speedup_over_sorted_projection: finite(s.qps() / proj_s.qps()),
            window_queries: window,
            qps_per_window: s.windows.clone(),
            dram_hits: st.dram,
            pm_reads: st.pm,
            hit_ratio: st.hit_ratio(),
            admitted: st.admitted,
            evicted: st.evicted,
            dram_bytes: *bytes,
            setup_seconds: *setup,
            result_rows: s.results,
        })
        .collect();
    let baseline = |name: &str, s: &Series| BaselineResult {
        name: name.into(),
        tier: base.tier.into(),
        queries: s.queries,
        qps: s.qps(),
        result_rows: s.results,
    };
    Ok(QueryTypeResult {
        query_type: kind.into(),
        tier: base.tier.into(),
        queries: qs.len(),
        variants,
        baselines: vec![
            baseline("column-scan", &scan_s),
            baseline("sorted-projection", &proj_s),
        ],
        pm_speedup_over_column_scan: finite(pm_qps / scan_s.qps()),
        pm_speedup_over_sorted_projection: finite(pm_qps / proj_s.qps()),
    })
}

/// Fig. 5: exact match, keys from a fraction of the tuples.
fn selectivity_sweep(
    pm: &Elf,
    variants: &[Variant],
    flat: &[u32],
    p: &BenchParams,
    tier: &str,
    rng: &mut SmallRng,
    progress: &dyn Fn(&str),
) -> Vec<SelectivityPoint> {
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
    let mut out = Vec::new();
    for &f in &p.selectivities {
        let qs = exact_keys(flat, p.dims, p.exact_queries, f, rng);
        let mut vs = Vec::new();
        for v in &sel_variants {
            let mut c = CachedElf::new(pm, *v);
            let s = run_cached(&mut c, &qs, usize::MAX, p.max_secs);
            progress(&format!(
                "select {f:<6} {:34} {:>12.0} q/s",
                v.name(),
                s.qps()
            ));
            vs.push(SelectivityVariant {
                variant: v.name(),
                qps: s.qps(),
                hit_ratio: c.stats().hit_ratio(),
            });
        }
        out.push(SelectivityPoint {
            fraction_of_tuples: f,
            tier: tier.into(),
            variants: vs,
        });
    }
    out
}

/// Fig. 4 cold: the index file's pages dropped from the page cache before each variant.
fn cold_runs(
    path: &Path,
    qs: &[Q],
    p: &BenchParams,
    tier: &str,
    progress: &dyn Fn(&str),
) -> Result<Vec<ColdRun>> {
    let mut cold = Vec::new();
    for v in [
        Variant::Pm,
        Variant::Static { levels: 3 },
        Variant::StaticDynamic {
            levels: 2,
            policy: crate::elf::Policy::TinyLfu,
            capacity_bytes: p.cache_bytes,
        },
        Variant::Hybrid,
    ] {
        drop_cache(path)?;
        let t = Instant::now();
        let e = Elf::open_unverified(path)?;
        let mut c = CachedElf::new(&e, v);
        let setup_s = t.elapsed().as_secs_f64();
        let s = run_cached(&mut c, qs, p.window, p.max_secs);
        progress(&format!(
            "cold     {:34} {:>12.0} q/s (setup {setup_s:.2} s, first window {:.0} q/s)",
            v.name(),
            s.qps(),
            s.windows.first().copied().unwrap_or(f64::NAN)
        ));
        cold.push(ColdRun {
            variant: v.name(),
            tier: format!("{tier} (page cache dropped)"),
            setup_seconds: setup_s,
            queries: s.queries,
            qps: s.qps(),
            window_queries: p.window,
            qps_per_window: s.windows,
            hit_ratio: c.stats().hit_ratio(),
        });
    }
    Ok(cold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_bench_runs_and_its_document_reads_back() {
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
        let doc = bench(&p, &|_| {}).unwrap();
        assert_eq!(doc.query_types.len(), 3);
        assert_eq!(doc.header.kind, results::KIND);
        assert_eq!(doc.selectivity.len(), 2);
        assert_eq!(doc.cold.len(), 4);
        let exact = &doc.query_types[0];
        let hybrid = exact
            .variants
            .iter()
            .find(|v| v.variant == "hybrid")
            .unwrap();
        assert_eq!(hybrid.relative_to_hybrid, Some(1.0));
        let text = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
        let back: BenchReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back.query_types[0].variants.len(), exact.variants.len());
        // Only the results file is left: the index file and its lock are removed.
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[test]
    fn without_hybrid_the_ratio_is_null_not_nan() {
        let dir = tempfile::tempdir().unwrap();
        let p = BenchParams {
            rows: 500,
            dims: 3,
            max_value: 5,
            dir: dir.path().to_path_buf(),
            exact_queries: 50,
            range_queries: 10,
            window: 10,
            selectivities: vec![1.0],
            variants: vec!["pm".into()],
            max_secs: 2.0,
            cold: false,
            ..BenchParams::default()
        };
        let doc = bench(&p, &|_| {}).unwrap();
        assert_eq!(doc.query_types[0].variants[0].relative_to_hybrid, None);
        let text = serde_json::to_string(&doc).unwrap();
        assert!(text.contains("\"relative_to_hybrid\":null"));
        serde_json::from_str::<BenchReport>(&text).unwrap();
        let e = bench(
            &BenchParams {
                dims: 1,
                ..p.clone()
            },
            &|_| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("at least 2 dimensions"), "{e}");
    }
}
