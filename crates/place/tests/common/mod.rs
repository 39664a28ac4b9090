//! Random small workloads for the solver tests, and brute-force reference solutions.

#![allow(dead_code)]

use pmolap_place::{Encoding, Model, ModelOptions, Profile, StructureLoad, Workload};
use pmolap_store::format::FORMAT_VERSION;
use pmolap_store::{AccessCounts, ColumnType, StructureKind};
use rand::rngs::SmallRng;
use rand::Rng;

/// A model with a small S_LLC so that the CMR varies across the random sizes.
pub fn model() -> Model {
    Model::new(ModelOptions::new(4096)).unwrap()
}

/// For odd cases the No-Cache model: costs then do not depend on sizes, so twins of
/// different sizes tie in cost exactly.
pub fn model_for(case: usize) -> Model {
    Model::new(ModelOptions {
        cache_miss_ratio: case.is_multiple_of(2),
        ..ModelOptions::new(4096)
    })
    .unwrap()
}

/// A random workload of exactly `n` structures over up to three tables; counts only of
/// the access types the built-in profiles price, some structures never accessed.
pub fn random_workload(rng: &mut SmallRng, n: usize) -> Workload {
    let mut structures = Vec::new();
    let kinds = [
        StructureKind::Dictionary,
        StructureKind::DataVector,
        StructureKind::InvertedIndex,
    ];
    let mut col = 0;
    while structures.len() < n {
        let table = format!("t{}", rng.gen_range(0..3));
        let ty = if rng.gen_bool(0.5) {
            ColumnType::Int
        } else {
            ColumnType::Str
        };
        let k = rng.gen_range(1..=3).min(n - structures.len());
        for &kind in &kinds[..k] {
            let accessed = rng.gen_bool(0.8);
            let r = |rng: &mut SmallRng, m: u64| if accessed { rng.gen_range(0..m) } else { 0 };
            let mut counts = AccessCounts {
                scan: r(rng, 5000),
                lookup: r(rng, 200),
                near_dense: r(rng, 300),
                medium_dense: r(rng, 100),
                far_dense: r(rng, 50),
            };
            match (kind, ty) {
                (StructureKind::Dictionary, ColumnType::Int) => counts.scan = 0,
                (StructureKind::InvertedIndex, _) => {
                    counts.scan = 0;
                    counts.medium_dense = 0;
                    counts.far_dense = 0;
                }
                _ => {}
            }
            let dv = kind == StructureKind::DataVector;
            structures.push(StructureLoad {
                table: table.clone(),
                column: format!("c{col}"),
                kind,
                // Small sizes (many equal sums, ties) or page-like ones.
                bytes: if rng.gen_bool(0.5) {
                    rng.gen_range(1..40)
                } else {
                    4096 * rng.gen_range(1..8)
                },
                value_type: ty,
                encoding: dv.then(|| {
                    if rng.gen_bool(0.8) {
                        Encoding::Uncompressed
                    } else {
                        Encoding::Rle
                    }
                }),
                bit_width: dv.then(|| rng.gen_range(1..=32)),
                counts,
            });
        }
        col += 1;
    }
    // Some exact twins of earlier structures (same kind, size, variant and counts, so
    // the same cost): ties in cost as well as in bytes.
    for i in 1..structures.len() {
        if rng.gen_bool(0.3) {
            let j = rng.gen_range(0..i);
            if structures[j].kind == structures[i].kind {
                let src = structures[j].clone();
                let same_size = rng.gen_bool(0.5);
                let s = &mut structures[i];
                (s.value_type, s.encoding, s.bit_width, s.counts) =
                    (src.value_type, src.encoding, src.bit_width, src.counts);
                if same_size {
                    s.bytes = src.bytes;
                }
            }
        }
    }
    let mut w = Workload::new(FORMAT_VERSION, 1.0, structures).unwrap();
    let all: f64 = model()
        .costs(&w, &Profile::optane_200())
        .unwrap()
        .iter()
        .sum();
    w.t_dram_ns = all.max(1.0) * rng.gen_range(0.5..4.0);
    w
}

/// Each structure's cost in whole ps (the solver's rounding: nearest ps per structure).
pub fn costs_ps(w: &Workload, p: &Profile, m: &Model) -> Vec<u64> {
    m.costs(w, p)
        .unwrap()
        .iter()
        .map(|c| (c * 1000.0).round() as u64)
        .collect()
}

/// Groups by (table, column) or table, computed independently of the crate.
pub fn groups_of(w: &Workload, by: &str) -> Vec<Vec<usize>> {
    let mut keys: Vec<String> = Vec::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, s) in w.structures.iter().enumerate() {
        let key = match by {
            "structure" => format!("{i}"),
            "column" => format!("{}/{}", s.table, s.column),
            _ => s.table.clone(),
        };
        match keys.iter().position(|k| *k == key) {
            Some(g) => out[g].push(i),
            None => {
                keys.push(key);
                out.push(vec![i]);
            }
        }
    }
    out
}

/// (bytes, cost ps) of every subset of groups, by bitmask.
pub fn subsets(w: &Workload, groups: &[Vec<usize>], ps: &[u64]) -> Vec<(u64, u64)> {
    (0u32..1 << groups.len())
        .map(|mask| {
            let (mut b, mut c) = (0, 0);
            for (g, members) in groups.iter().enumerate() {
                if mask >> g & 1 == 1 {
                    for &i in members {
                        b += w.structures[i].bytes;
                        c += ps[i];
                    }
                }
            }
            (b, c)
        })
        .collect()
}

/// Every subset of groups as (accessed bytes, cost in ps, bytes): what target mode counts.
pub fn accessed_subsets(w: &Workload, groups: &[Vec<usize>], ps: &[u64]) -> Vec<(u64, u64, u64)> {
    (0u32..1 << groups.len())
        .map(|mask| {
            let (mut a, mut c, mut b) = (0, 0, 0);
            for (g, members) in groups.iter().enumerate() {
                if mask >> g & 1 == 1 {
                    for &i in members {
                        let s = &w.structures[i];
                        b += s.bytes;
                        c += ps[i];
                        if s.accessed() {
                            a += s.bytes;
                        }
                    }
                }
            }
            (a, c, b)
        })
        .collect()
}

/// The Pareto front (bytes up, cost down) of a set of points, as distinct points sorted
/// by bytes.
pub fn brute_front(points: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut f: Vec<(u64, u64)> = points
        .iter()
        .copied()
        .filter(|&(b, c)| {
            !points
                .iter()
                .any(|&(b2, c2)| b2 >= b && c2 <= c && (b2 > b || c2 < c))
        })
        .collect();
    f.sort_unstable();
    f.dedup();
    f
}

/// The page size of the page-record tests.
pub const PAGE: u64 = 4096;

/// An 8-bit data vector of `pages` pages, scanned once.
pub fn paged_dv(column: &str, pages: u64) -> StructureLoad {
    StructureLoad {
        table: "t".into(),
        column: column.into(),
        kind: StructureKind::DataVector,
        bytes: pages * PAGE,
        value_type: ColumnType::Int,
        encoding: Some(Encoding::Uncompressed),
        bit_width: Some(8),
        counts: AccessCounts::scans(1),
    }
}
