//! The simple placements an advice must beat at equal DRAM bytes (issue 33, item 4):
//! the hottest structures by access density, the dictionaries only, and the
//! never-accessed structures only on the slow tier. (The fourth baseline, the OS alone —
//! everything on the slow tier behind a page cache of the DRAM bytes — is a setting, not
//! an assignment: `pmolap_bench::ssb::validate` runs it.)

use pmolap_store::StructureKind;

use crate::model::Assignment;
use crate::workload::Workload;

/// Accesses per byte of structure `i` (0 for an empty one).
fn density(w: &Workload, i: usize) -> f64 {
    let s = &w.structures[i];
    if s.bytes == 0 {
        return 0.0;
    }
    s.counts.total() as f64 / s.bytes as f64
}

/// The structures `eligible`, densest first (ties in workload order).
fn by_density(w: &Workload, eligible: &dyn Fn(usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..w.structures.len()).filter(|&i| eligible(i)).collect();
    order.sort_by(|&a, &b| density(w, b).total_cmp(&density(w, a)).then(a.cmp(&b)));
    order
}

/// The structures `eligible` in DRAM, densest first, each one that still fits in
/// `dram_bytes` (one that does not is skipped, the next tried); the rest on tier 1.
fn densest_in_dram(w: &Workload, dram_bytes: u64, eligible: &dyn Fn(usize) -> bool) -> Assignment {
    let order = by_density(w, eligible);
    let mut tier = vec![1; w.structures.len()];
    let mut left = dram_bytes;
    for i in order {
        let b = w.structures[i].bytes;
        if b <= left {
            left -= b;
            tier[i] = 0;
        }
    }
    Assignment { tier }
}

/// Hottest by access density: every structure, by accesses per byte, into DRAM while it
/// fits in `dram_bytes`.
pub fn hottest(w: &Workload, dram_bytes: u64) -> Assignment {
    densest_in_dram(w, dram_bytes, &|_| true)
}

/// Every structure in the order [`hottest`] fills DRAM: densest first.
pub fn hottest_order(w: &Workload) -> Vec<usize> {
    by_density(w, &|_| true)
}

/// The first `k` structures of `order` (a [`hottest_order`]) in DRAM, the rest on tier 1:
/// [`hottest`] at exactly their bytes.
pub fn keeping(w: &Workload, order: &[usize], k: usize) -> Assignment {
    let mut tier = vec![1; w.structures.len()];
    for &i in order.iter().take(k) {
        tier[i] = 0;
    }
    Assignment { tier }
}

/// The dictionaries in DRAM (densest first while they fit in `dram_bytes`), every other
/// structure on the slow tier.
pub fn dictionaries(w: &Workload, dram_bytes: u64) -> Assignment {
    densest_in_dram(w, dram_bytes, &|i| {
        w.structures[i].kind == StructureKind::Dictionary
    })
}

/// Only the never-accessed structures on the slow tier; `None` when the accessed ones do
/// not fit in `dram_bytes`.
pub fn never_accessed(w: &Workload, dram_bytes: u64) -> Option<Assignment> {
    let accessed: u64 = w
        .structures
        .iter()
        .filter(|s| s.counts.total() > 0)
        .map(|s| s.bytes)
        .sum();
    (accessed <= dram_bytes).then(|| Assignment {
        tier: w
            .structures
            .iter()
            .map(|s| usize::from(s.counts.total() == 0))
            .collect(),
    })
}

/// The name of the OS-alone baseline (every structure on the slow tier, the page cache
/// left the DRAM bytes).
pub const OS_ALONE: &str = "os alone";

/// The baselines at `dram_bytes` of DRAM, named as `place validate` names them:
/// `hottest`, `dictionaries`, `never accessed` (where the accessed structures fit) and,
/// with `os_alone`, [`OS_ALONE`] (everything on tier 1; meaningful only behind a page
/// cache given the DRAM bytes).
pub fn candidates(
    w: &Workload,
    dram_bytes: u64,
    os_alone: bool,
) -> Vec<(&'static str, Assignment)> {
    let mut out = vec![
        ("hottest", hottest(w, dram_bytes)),
        ("dictionaries", dictionaries(w, dram_bytes)),
    ];
    if let Some(a) = never_accessed(w, dram_bytes) {
        out.push(("never accessed", a));
    }
    if os_alone {
        out.push((OS_ALONE, Assignment::all(w.structures.len(), 1)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::StructureLoad;

    fn s(column: &str, kind: StructureKind, bytes: u64, lookups: u64) -> StructureLoad {
        StructureLoad::looked_up(column, kind, bytes, lookups)
    }

    fn workload() -> Workload {
        Workload::new(
            pmolap_store::format::FORMAT_VERSION,
            1.0,
            vec![
                s("a", StructureKind::DataVector, 1000, 100), // 0.1 / byte
                s("b", StructureKind::Dictionary, 100, 50),   // 0.5 / byte
                s("c", StructureKind::Dictionary, 400, 40),   // 0.1 / byte
                s("d", StructureKind::DataVector, 500, 0),    // never accessed
                s("e", StructureKind::DataVector, 200, 60),   // 0.3 / byte
            ],
        )
        .unwrap()
    }

    #[test]
    fn hottest_fills_dram_by_density_skipping_what_does_not_fit() {
        let w = workload();
        // 350 bytes: b (100), e (200); a (1000) and c (400) do not fit.
        assert_eq!(hottest(&w, 350).tier, vec![1, 0, 1, 1, 0]);
        // 700: b, e, then a does not fit but c (400 > 400 left? 700-300=400) does.
        assert_eq!(hottest(&w, 700).tier, vec![1, 0, 0, 1, 0]);
        assert_eq!(hottest(&w, 0).tier, vec![1; 5]);
        assert_eq!(hottest(&w, u64::MAX).tier, vec![0; 5]);
        // The first k of the order are `hottest` at exactly their bytes.
        let order = hottest_order(&w);
        assert_eq!(order, vec![1, 4, 0, 2, 3]);
        let mut bytes = 0;
        for k in 0..=order.len() {
            assert_eq!(keeping(&w, &order, k), hottest(&w, bytes), "k = {k}");
            bytes += order.get(k).map_or(0, |&i| w.structures[i].bytes);
        }
    }

    #[test]
    fn dictionaries_only_and_never_accessed_only() {
        let w = workload();
        assert_eq!(dictionaries(&w, 10_000).tier, vec![1, 0, 0, 1, 1]);
        assert_eq!(dictionaries(&w, 300).tier, vec![1, 0, 1, 1, 1]);
        assert_eq!(never_accessed(&w, 1699), None);
        assert_eq!(never_accessed(&w, 1700).unwrap().tier, vec![0, 0, 0, 1, 0]);
    }
}
